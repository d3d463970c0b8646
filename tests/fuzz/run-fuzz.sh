#!/bin/sh
# run-fuzz.sh: the libFuzzer targets for a while, in their own build
#
# Usage: tests/fuzz/run-fuzz.sh [BUILD_DIR [SECONDS]]
# BUILD_DIR defaults to _build-fuzz at the top of the source tree and
# SECONDS (per target) to 60. Kept for its old command line: it runs
# scripts/fuzz-long.sh -b BUILD_DIR -t SECONDS, which configures the
# clang + sanitizer build when it is missing, runs every target and says
# what they found and how a finding joins the regression inputs
# (tests/fuzz/README.md).
#
# SPDX-License-Identifier: BSD-3-Clause
set -e
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/_build-fuzz}
exec bash "$src/scripts/fuzz-long.sh" -b "$build" -t "${2:-${NCZ_FUZZ_SECONDS:-60}}"
