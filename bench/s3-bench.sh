#!/bin/sh
# s3-bench.sh: the S3 cases of the bench (bench/s3_bench.py) against a
# radosgw started on 127.0.0.1 by tests/s3/radosgw-run; see bench/README.md.
#
# Usage: bench/s3-bench.sh [BUILDDIR] [--small] [--repeat=N] [--shape=a,b,c]
#                          [--chunks=a,b,c] [--meta=G,V,A] [--ncz-copy=PATH]
#                          [--cases=data,meta,writers,browser] [--writers-shape=T,Y,X]
#                          [--browser-shape=T,Y,X]
# Exit status: s3_bench.py's (3: Ncz's rows left out, no s3 store
# module); 77 with a message when the server cannot be
# started (packages missing and not installable) and 99 when it failed to
# start.
#
# SPDX-License-Identifier: BSD-3-Clause
here=$(cd "$(dirname "$0")" && pwd)
build=${NCZ_BENCH_BUILDDIR:-}
case "$1" in
  --*|"") ;;
  *) build=$1; shift ;;
esac
[ -n "$build" ] || build="$here/../_build"
build=$(cd "$build" && pwd) || exit 2
bench="$build/bench"
[ -d "$bench" ] || bench="$build"
if [ -z "$NCZ_PLUGIN_PATH" ]; then
  NCZ_PLUGIN_PATH=$(find "$build/storage-drivers" "$build/backends" "$build/plugins" \
                      "$build/codec-registry" -name '*.plugin' -printf '%h\n' 2>/dev/null |
                    sort -u | paste -sd: -)
  export NCZ_PLUGIN_PATH
fi
export NCZ_PLUGIN_SYSTEM_PATH=${NCZ_PLUGIN_SYSTEM_PATH-}
"$here/../tests/s3/radosgw-run" /usr/bin/python3 "$here/s3_bench.py" --builddir="$bench" "$@"
status=$?
case $status in
  3) echo "S3 bench: Ncz's rows left out: the s3 store module is not built" ;;
  77) echo "S3 bench: SKIPPED: no S3 test server (the Ceph packages are missing; see the message above)" ;;
  99) echo "S3 bench: SKIPPED: the S3 test server did not start (see the message above)" ;;
esac
exit $status
