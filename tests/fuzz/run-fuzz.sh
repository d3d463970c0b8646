#!/bin/sh
# run-fuzz.sh: configures a clang + sanitizer build and fuzzes the
# metadata readers
#
# Usage: tests/fuzz/run-fuzz.sh [BUILD_DIR [SECONDS]]
# BUILD_DIR defaults to _build-fuzz at the top of the source tree and
# SECONDS to 60. The whole library and its modules are compiled with
# coverage for libFuzzer (-fsanitize=fuzzer-no-link) and with
# AddressSanitizer and UndefinedBehaviorSanitizer; the target itself links
# libFuzzer (-Dfuzzing=enabled). Findings are left in
# BUILD_DIR/tests/fuzz/fuzz-work/artifacts; reproduce one with
#   BUILD_DIR/tests/fuzz/fuzz-metadata ARTIFACT
#
# SPDX-License-Identifier: BSD-3-Clause
set -e
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/_build-fuzz}
export NCZ_FUZZ_SECONDS=${2:-${NCZ_FUZZ_SECONDS:-60}}

if [ ! -d "$build" ]; then
  CC=clang meson setup "$build" "$src" \
    -Dfuzzing=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dintrospection=disabled \
    -Dc_args=-fsanitize=fuzzer-no-link
fi
ninja -C "$build" -j"${NINJA_JOBS:-2}"
meson test -C "$build" --suite fuzz --print-errorlogs --timeout-multiplier=2
