#!/bin/sh
# run-target.sh: runs a libFuzzer target for a bounded time
#
# Usage: run-target.sh TARGET WORK_DIR SEED_DIR...
# Runs TARGET for $NCZ_FUZZ_SECONDS (default 60) seconds, each input at
# most 10 s, starting from the seeds; new inputs go to WORK_DIR/corpus,
# crashing ones to WORK_DIR/artifacts. Exits non-zero on any finding.
#
# SPDX-License-Identifier: BSD-3-Clause
set -e
target=$1
work=$2/fuzz-work
shift 2
secs=${NCZ_FUZZ_SECONDS:-60}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/corpus" "$work/artifacts"
exec "$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
  -dict="$here/zarr.dict" -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 "$work/corpus" "$@"
