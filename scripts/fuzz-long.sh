#!/usr/bin/env bash
# fuzz-long.sh: runs the libFuzzer targets for a long time, by hand.
#
# scripts/test.sh (CI) runs each target only briefly: its seeds and
# regression inputs, then NCZ_FUZZ_SECONDS (15) seconds of fuzzing. Longer
# runs are this script's: what they find joins the regression inputs
# (tests/fuzz/README.md says where), which every CI run replays.
#
# Usage: scripts/fuzz-long.sh [-t SECONDS] [-j JOBS] [-b BUILD_DIR] [TARGET...]
#   TARGET     metadata, filter-spec, cdl, hdf5 (default: all four)
#   -t SECONDS how long each target runs (default 3600)
#   -j JOBS    how many targets run at once (default: the number of cores)
#   -b DIR     the libFuzzer build (default _build-fuzz at the top of the
#              tree, configured as scripts/test.sh configures it: clang,
#              AddressSanitizer, UndefinedBehaviorSanitizer, coverage)
#
# Each target goes on from the inputs earlier runs kept (their
# fuzz-work/corpus directories in the build), so runs add up. At the end
# the script lists what each target found and how to keep it. Exit status
# 0 when nothing was found, 1 otherwise.
#
# SPDX-License-Identifier: BSD-3-Clause
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=3600
jobs=$(nproc 2>/dev/null || echo 2)
build=$top/_build-fuzz

usage() { sed -n '9,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while getopts "t:j:b:h" opt; do
  case $opt in
    t) secs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) build=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
case $secs in ''|*[!0-9]*) echo "fuzz-long: -t takes whole seconds" >&2; exit 2 ;; esac
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(metadata filter-spec cdl hdf5)

# the meson test running each target, and its work directory in the build
tests=()
for t in "${targets[@]}"; do
  case $t in
    metadata|filter-spec|cdl|hdf5) tests+=("fuzz-$t") ;;
    *) echo "fuzz-long: unknown target '$t' (metadata, filter-spec, cdl, hdf5)" >&2; exit 2 ;;
  esac
done
work_of() {
  case $1 in
    metadata) echo "$build/tests/fuzz/fuzz-work" ;;
    *) echo "$build/tests/fuzz/$1/fuzz-work" ;;
  esac
}

if [ ! -f "$build/build.ninja" ]; then
  # the same options as the libFuzzer build of scripts/test.sh
  CC=clang meson setup "$build" "$top" -Dbuildtype=debug -Dfuzzing=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dintrospection=disabled \
    -Dc_args=-fsanitize=fuzzer-no-link || exit 1
fi
ninja -C "$build" || exit 1

echo "fuzz-long: ${targets[*]} for $secs s each, $jobs at a time, in $build"
# no meson timeout (a multiplier of 0): the targets stop themselves
NCZ_FUZZ_SECONDS=$secs meson test -C "$build" --no-rebuild --print-errorlogs \
  --num-processes "$jobs" --timeout-multiplier 0 "${tests[@]}"
status=$?

echo
echo "fuzz-long: what the targets found (meson's log: $build/meson-logs/testlog.txt)"
for t in "${targets[@]}"; do
  w=$(work_of "$t")
  n_corpus=$(ls "$w/corpus" 2>/dev/null | wc -l)
  if [ "$t" = hdf5 ]; then
    # run-hdf5-target.sh sorted the inputs that crashed: libhdf5-* are
    # libhdf5's own defects, ncz-* are findings
    ncz=$(ls "$w/sorted" 2>/dev/null | grep '^ncz-' | wc -l)
    lib=$(ls "$w/sorted" 2>/dev/null | grep '^libhdf5-' | wc -l)
    echo "  $t: $n_corpus inputs kept; $ncz findings of Ncz's, $lib crashes inside libhdf5 ($w/sorted)"
  else
    n=$(ls "$w/artifacts" 2>/dev/null | wc -l)
    echo "  $t: $n_corpus inputs kept; $n findings ($w/artifacts)"
  fi
done
if [ $status -ne 0 ]; then
  cat <<EOF

A finding joins the regression inputs (tests/fuzz/README.md): reproduce
it with the target (BUILD/tests/fuzz/fuzz-TARGET FILE), minimise it if
you like (-minimize_crash=1 -runs=10000), fix it, then copy it to
  metadata     tests/fuzz/regressions/
  hdf5         tests/fuzz/hdf5-regressions/ (and name it in the
               fuzz-hdf5-regressions test, tests/fuzz/meson.build, and its
               README.md); a crash inside libhdf5 goes to
               tests/fuzz/libhdf5-crashes/ with a row in its README.md
  filter-spec  tests/fuzz/filter-spec-corpus/
  cdl          tests/fuzz/cdl-corpus/
with a name that says what it does.
EOF
fi
exit $((status != 0))
