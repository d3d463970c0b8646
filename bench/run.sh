#!/bin/sh
# run.sh: runs the benchmarks; see bench/README.md.
#
# Usage: bench/run.sh [BUILDDIR] [run.py options: --small --repeat=N ...]
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
exec "${PYTHON:-/usr/bin/python3}" "$here/run.py" --builddir="$bench" "$@"
