#!/bin/sh
# run-hdf5-target.sh: runs the HDF5 libFuzzer target for a bounded time
# and sorts what it finds into libhdf5's defects and Ncz's
#
# Usage: run-hdf5-target.sh TARGET STANDALONE WORK_DIR SEED_DIR...
#
# libFuzzer runs TARGET (fuzz-hdf5) for $NCZ_FUZZ_SECONDS (default 60)
# seconds in fork mode (-fork=1), going on after crashes, hangs and
# out-of-memory: Debian's libhdf5 1.10.8 crashes on some hostile files
# whatever Ncz does. New inputs go to WORK_DIR/fuzz-work/corpus, the
# ones that crashed, hung, leaked or ran out of memory to
# WORK_DIR/fuzz-work/artifacts. Each of those is then run again, alone,
# by STANDALONE (fuzz-hdf5-standalone --as-is), which runs it in a child
# process and sorts it by the backtrace of the crash: inside libhdf5 (a
# libhdf5 defect: printed and kept in WORK_DIR/fuzz-work/sorted as
# libhdf5-*, not a failure) or anywhere else (an Ncz finding, kept as
# ncz-*: a failure), leaks and sanitizer reports always failures. A
# crash or leak that does not happen again when the input runs alone is
# a failure too; a hang or out-of-memory that does not is only reported
# (they depend on the machine's load). Every sanitizer report written
# under libFuzzer (one file per process) is sorted too: one of Ncz's is
# a failure, and an input whose report was libhdf5's is not a failure
# when it does not crash alone. See libhdf5-crashes/README.md.
#
# SPDX-License-Identifier: BSD-3-Clause
set -u
target=$1
standalone=$2
work=$3/fuzz-work
shift 3
secs=${NCZ_FUZZ_SECONDS:-60}

rm -rf "$work/artifacts" "$work/sorted" "$work/tmp" "$work/reports"
mkdir -p "$work/corpus" "$work/artifacts" "$work/sorted" "$work/tmp" "$work/reports"
# the target's temporary files (left behind by crashing runs) stay here
TMPDIR=$work/tmp
export TMPDIR

# a huge malloc (libhdf5 asks for sizes read from the file) returns NULL
# as glibc's does, as in fuzz-hdf5-standalone, rather than being a crash
ASAN_OPTIONS="${ASAN_OPTIONS:-}:allocator_may_return_null=1"
export ASAN_OPTIONS

# libFuzzer's output goes to a log first: its last lines tell how the
# parent process ended. Crashes and timeouts exit with different
# statuses, so that the parent counts each as what it is and prints the
# "ERROR:" lines of the logs of the children that crashed (it deletes
# the logs themselves).
log=$work/libfuzzer.log
# Each process's sanitizer reports go to a file of their own,
# reports/asan.PID, sorted below.
ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$work/reports/asan" \
"$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -error_exitcode=77 -timeout_exitcode=78 \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
  -dict="$(dirname "$0")/hdf5.dict" \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$work/corpus" "$@" > "$log" 2>&1
rc=$?
cat "$log"
# In fork mode the parent process exits with the status of the LAST
# child process it ran, whatever that child did: 0 when it ran out of
# time; 77 (-error_exitcode), 78 (-timeout_exitcode) or 134 (a
# sanitizer report and abort_on_error=1) when libhdf5 crashed or hung
# on its last input. So the
# status says nothing of the run as a whole; what a child found is in
# the artifacts, sorted below. The parent itself ended well when it
# printed its "INFO: exiting: STATUS" line and exited with that status
# (exit() keeps its low 8 bits).
last=$(sed -n 's/^INFO: exiting: \(-\{0,1\}[0-9][0-9]*\) time: .*/\1/p' "$log" | tail -n 1)
if [ -z "$last" ] || [ $((last & 255)) -ne "$rc" ]; then
  echo "run-hdf5-target: libFuzzer itself failed (exit status $rc," \
    "last status it printed: ${last:-none})"
  exit 1
fi
echo "run-hdf5-target: libFuzzer ended; its last child process exited with status $rc"

status=0
# Every sanitizer report written while libFuzzer ran, sorted as the
# standalone driver sorts a crash: libhdf5's (not a failure), Ncz's (a
# failure, whether or not the input does it again alone), or a fault of
# LeakSanitizer's own runtime (noted). The process that wrote a report
# left the input it crashed on in its temporary directory, named by its
# process id (fuzz-hdf5.c): the inputs of libhdf5's reports are noted by
# checksum, an Ncz report's input is kept in sorted/.
libhdf5_inputs=
quiet=0
for r in "$work/reports"/asan.*; do
  [ -e "$r" ] || continue
  pid=${r##*.}
  input=$(ls -d "$TMPDIR/ncz-fuzz-hdf5-$pid-"*/input.nc 2>/dev/null | head -n 1)
  kind=$("$standalone" --sort-report "$r")
  k=$?
  [ $k -eq 3 ] || echo "run-hdf5-target: the sanitizer report of process $pid is $kind"
  case $k in
    0) [ -n "$input" ] && libhdf5_inputs="$libhdf5_inputs $(sha1sum "$input" | cut -c1-40)" ;;
    3) quiet=$((quiet + 1)) ;;
    *)
      echo "run-hdf5-target: FINDING: a sanitizer report with an Ncz frame under libFuzzer:"
      cat "$r"
      [ -n "$input" ] && cp "$input" "$work/sorted/ncz-report-$pid"
      status=1
      ;;
  esac
done
echo "run-hdf5-target: $quiet more processes wrote sanitizer warnings (huge allocations refused) or LeakSanitizer faults, no error reports"

n=$(ls "$work/artifacts" | wc -l)
echo "run-hdf5-target: libFuzzer kept $n inputs that crashed, hung, leaked or ran out of memory"
[ "$n" -eq 0 ] && exit $status

# each input alone, sorted by the standalone driver (exit status 1 when
# one of them is Ncz's)
"$standalone" --as-is --save="$work/sorted" "$work/artifacts" || status=1

# An input that crashed or leaked under libFuzzer but not alone fails,
# unless its sanitizer report under libFuzzer was libhdf5's: libhdf5
# recycles its blocks (free lists), so whether AddressSanitizer sees one
# of its overreads depends on what the process did before.
for f in "$work/artifacts"/crash-* "$work/artifacts"/leak-*; do
  [ -e "$f" ] || continue
  full=$(sha1sum "$f" | cut -c1-40)
  sum=$(echo "$full" | cut -c1-16)
  ls "$work/sorted" | grep -q -e "-$sum\$" && continue
  case " $libhdf5_inputs " in
    *" $full "*)
      echo "run-hdf5-target: $f crashed under libFuzzer only, in libhdf5 by its report above (not a failure)" ;;
    *)
      echo "run-hdf5-target: $f crashed or leaked under libFuzzer but not alone"
      status=1 ;;
  esac
done
for f in "$work/artifacts"/timeout-* "$work/artifacts"/oom-*; do
  [ -e "$f" ] || continue
  sum=$(sha1sum "$f" | cut -c1-16)
  ls "$work/sorted" | grep -q -e "-$sum\$" ||
    echo "run-hdf5-target: $f hung or ran out of memory under libFuzzer only (not a failure)"
done
echo "run-hdf5-target: sorted inputs in $work/sorted:"
ls "$work/sorted"
exit $status
