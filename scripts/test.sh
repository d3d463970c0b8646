#!/usr/bin/env bash
# Runs every test: once in a normal build, once under AddressSanitizer and
# UndefinedBehaviorSanitizer; the multi-threaded tests under
# ThreadSanitizer; the fuzz targets for a bounded time. Ends with
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/deps.sh || { echo "dependency installation failed"; exit 1; }

status=0
logs=()

run_suite () {
  local dir=$1; shift
  echo "=== configure $dir $*"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" || { status=1; logs+=("$dir/setup-failed"); return; }
  fi
  ninja -C "$dir" || { status=1; logs+=("$dir/build-failed"); return; }
  meson test -C "$dir" --print-errorlogs --num-processes 2 "${MESON_TEST_ARGS[@]}" || status=1
  logs+=("$dir/meson-logs/testlog.json")
}

# The targets of build DIR that are not defined under the folders named
# after it (a folder also leaves out its siblings named FOLDER-*), as
# paths ninja takes: a build for a few tests need not build the rest.
build_targets () {
  local dir=$1; shift
  meson introspect "$dir" --targets | /usr/bin/python3 -c '
import json, os, sys
top = os.getcwd()
build, skip = sys.argv[1], sys.argv[2:]
for t in json.load(sys.stdin):
    where = os.path.relpath(os.path.dirname(t["defined_in"]), top)
    if any(where == s or where.startswith(s + "/") or where.startswith(s + "-") for s in skip):
        continue
    for f in t["filename"]:
        print(os.path.relpath(f, os.path.join(top, build)))
' "$dir" "$@"
}

MESON_TEST_ARGS=()
run_suite _build-test -Dbuildtype=debugoptimized

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
MESON_TEST_ARGS=(--no-suite bench --timeout-multiplier 3)
# The browser (a GTK application, tests/browser) runs in the normal build
# only: under AddressSanitizer its GTK tests take minutes and flag GTK's
# and fontconfig's process-lifetime caches, not Ncz.
run_suite _build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
  -Dintrospection=disabled -Dbrowser=disabled

# ThreadSanitizer: the tests that read (and write) from several threads.
# Only what they need is built: the library, the modules they load and
# the test programs, not the tools, benchmarks or other suites.
tsan_tests=(lifetime nczarr memory-store file-store file-replace registry foreign-registry
            lock-file coordination)
tsan_dir=_build-tsan
echo "=== configure $tsan_dir (ThreadSanitizer)"
if [ ! -f "$tsan_dir/build.ninja" ]; then
  meson setup "$tsan_dir" -Dbuildtype=debug -Db_sanitize=thread -Db_lundef=false \
    -Dintrospection=disabled -Dinterop_tests=disabled -Dfuzzing=disabled -Dbrowser=disabled \
    || { status=1; logs+=("$tsan_dir/setup-failed"); }
fi
if [ -f "$tsan_dir/build.ninja" ]; then
  mapfile -t tsan_targets < <(build_targets "$tsan_dir" bench tools/ncz-dump tools/ncz-gen \
    tools/ncz-copy tests/interop tests/fuzz tests/codecs tests/ncz-gen tests/ncz-copy tests/safety)
  if ninja -C "$tsan_dir" "${tsan_targets[@]}"; then
    # the tests set TSAN_OPTIONS (tests/meson.build) and preload
    # tests/tsan/glib-tsan.c, which shows GLib's synchronization to
    # ThreadSanitizer
    meson test -C "$tsan_dir" --no-rebuild --print-errorlogs --num-processes 2 \
      --timeout-multiplier 4 "${tsan_tests[@]}" || status=1
    logs+=("$tsan_dir/meson-logs/testlog.json")
  else
    status=1; logs+=("$tsan_dir/build-failed")
  fi
fi

# libFuzzer (clang build): each target runs its seeds and regression
# inputs, then fuzzes for NCZ_FUZZ_SECONDS. The normal and ASan builds
# above already replayed the seeds and regressions with the standalone
# drivers; long runs are scripts/fuzz-long.sh's, started by hand, and
# what they find joins the regression inputs (tests/fuzz/README.md).
MESON_TEST_ARGS=(--suite fuzz --timeout-multiplier 2 fuzz-metadata fuzz-filter-spec fuzz-cdl fuzz-hdf5)
export NCZ_FUZZ_SECONDS=${NCZ_FUZZ_SECONDS:-15}
# Only the library, the modules and the fuzz targets are built there.
fuzz_dir=_build-fuzz
echo "=== configure $fuzz_dir (libFuzzer)"
if [ ! -f "$fuzz_dir/build.ninja" ]; then
  CC=clang meson setup "$fuzz_dir" -Dbuildtype=debug -Dfuzzing=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dintrospection=disabled -Dbrowser=disabled \
    -Dc_args=-fsanitize=fuzzer-no-link || { status=1; logs+=("$fuzz_dir/setup-failed"); }
fi
if [ -f "$fuzz_dir/build.ninja" ]; then
  mapfile -t fuzz_targets < <(build_targets "$fuzz_dir" bench tools/ncz-dump tools/ncz-copy \
    tests/interop tests/codecs tests/ncz-gen tests/ncz-copy tests/safety tests/core \
    tests/storage tests/plugins tests/python tests/vala tests/sdk tests/s3 tests/s3-unit \
    tests/zip tests/hdf5 tests/backends tests/tools-common tests/codec-registry)
  if ninja -C "$fuzz_dir" "${fuzz_targets[@]}"; then
    meson test -C "$fuzz_dir" --no-rebuild --print-errorlogs --num-processes 2 \
      "${MESON_TEST_ARGS[@]}" || status=1
    logs+=("$fuzz_dir/meson-logs/testlog.json")
  else
    status=1; logs+=("$fuzz_dir/build-failed")
  fi
fi

/usr/bin/python3 - "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
failures = []
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                r = json.loads(line)
                res = r.get("result")
                if res in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif res == "SKIP":
                    skipped += 1
                else:
                    failed += 1
                    failures.append((path, r.get("name"), res, r.get("stdout") or ""))
    except FileNotFoundError:
        failed += 1
        failures.append((path, "(no test log)", "MISSING", ""))
# the failures again at the very end, where a truncated log still shows them
for path, name, res, out in failures:
    print(f"--- {res}: {name} ({path})")
    for line in out.splitlines()[-40:]:
        print("    " + line)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
rc=$?
[ $status -ne 0 ] && rc=1
exit $rc
