#!/bin/sh
# run.sh: runs the benchmarks; see bench/README.md.
#
# Usage: bench/run.sh [BUILDDIR] [run.py options: --small --repeat=N ...] [--no-s3]
# BUILDDIR defaults to $NCZ_BENCH_BUILDDIR, else _build; the programs are
# taken from BUILDDIR/bench and the plugins from BUILDDIR.
#
# SPDX-License-Identifier: BSD-3-Clause
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${NCZ_BENCH_BUILDDIR:-}
case "$1" in
  --*|"") ;;
  *) build=$1; shift ;;
esac
[ -n "$build" ] || build="$here/../_build"
build=$(cd "$build" && pwd)
bench="$build/bench"
[ -d "$bench" ] || bench="$build"
if [ -z "$NCZ_PLUGIN_PATH" ]; then
  NCZ_PLUGIN_PATH=$(find "$build/storage-drivers" "$build/backends" "$build/plugins" \
                      "$build/codec-registry" -name '*.plugin' -printf '%h\n' 2>/dev/null |
                    sort -u | paste -sd: -)
  export NCZ_PLUGIN_PATH
fi
export NCZ_PLUGIN_SYSTEM_PATH=${NCZ_PLUGIN_SYSTEM_PATH-}
"${PYTHON:-/usr/bin/python3}" "$here/run.py" --builddir="$bench" "$@" || exit $?

# --- S3 section: the S3 cases against a radosgw on 127.0.0.1
# (bench/s3-bench.sh); --no-s3, or --only without s3, leaves it out. A
# server that cannot start skips the section with a message; it does not
# fail the bench.
s3=yes
s3_args=
for a in "$@"; do
  case $a in
    --no-s3) s3=no ;;
    --only=*) case $a in *s3*) ;; *) s3=no ;; esac ;;
    --small|--repeat=*|--shape=*|--chunks=*|--meta=*|--ncz-copy=*) s3_args="$s3_args $a" ;;
  esac
done
if [ "$s3" = yes ]; then
  echo
  echo "=== S3 (bench/s3-bench.sh; --no-s3 leaves this out)"
  # shellcheck disable=SC2086 # the options hold no spaces
  s3_status=0
  "$here/s3-bench.sh" "$build" $s3_args || s3_status=$?
  case $s3_status in
    0|3|77|99) ;;
    *) echo "S3 bench: FAILED"; exit 1 ;;
  esac
fi
# --- end S3 section
