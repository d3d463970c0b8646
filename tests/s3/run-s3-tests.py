#!/usr/bin/python3
# run-s3-tests.py: runs every S3 test against the one server radosgw-run
# started, prints each one's output and result, and fails if any fails.
#
#   radosgw-run /usr/bin/python3 run-s3-tests.py --store-test=PATH \
#       --write-all=PATH --ncz-dump=PATH --ncz-copy=PATH --ncz-gen=PATH \
#       --conc-worker=PATH --replace-worker=PATH [--test-browser=PATH
#       --xvfb-run=PATH --browser-output=DIR]
#
# Every bucket of the run starts with one random prefix
# (NCZ_TEST_S3_BUCKET_PREFIX); all of them are removed at the end, also
# after a failure. Credentials come from files in a temporary directory
# (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE), never from ~/.aws.
#
# Exit status: 0 when every test passed (or skipped one part with a
# reason it prints), 1 when one failed, 77 when nothing could run.
#
# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import s3common  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    for opt in ("store-test", "write-all", "ncz-dump", "ncz-copy", "ncz-gen", "conc-worker",
                "replace-worker"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--only", action="append", default=[],
                    help="run only the named tests (repeatable)")
    # the browser case (test-s3-browser.py skips without them)
    for opt in ("test-browser", "xvfb-run", "browser-output"):
        ap.add_argument("--" + opt, default=None)
    args = ap.parse_args()

    if not s3common.ENDPOINT:
        print("run-s3-tests: SKIP: NCZ_TEST_S3_ENDPOINT is not set (run me through "
              "tests/s3/radosgw-run)")
        return 77

    tmp = tempfile.mkdtemp(prefix="ncz-s3-tests-")
    run_prefix = "ncz-" + uuid.uuid4().hex[:8]
    env = s3common.clean_env(s3common.write_aws_files(os.path.join(tmp, "aws")))
    env["NCZ_TEST_S3_BUCKET_PREFIX"] = run_prefix
    env["TMPDIR"] = tmp
    # no ~/.ncrc, ~/.dodsrc or ~/.aws of the user's
    env["HOME"] = os.path.join(tmp, "home")
    os.makedirs(env["HOME"])

    has_store = subprocess.run([args.store_test, "--has-s3-store"], env=env,
                               capture_output=True).returncode == 0
    if has_store:
        env["NCZ_TEST_S3_HAVE_STORE"] = "1"
    else:
        print("run-s3-tests: the registry has no \"s3\" store (storage-drivers/s3 not "
              "built): the tests of Ncz's side are skipped, the server and peer tools "
              "are still checked")

    py = "/usr/bin/python3"
    tools = [args.ncz_dump, args.ncz_copy, args.ncz_gen, args.write_all]
    tests = [
        ("store", [args.store_test, "--tap"], {"NCZ_TEST_S3_BUCKET": f"{run_prefix}-store"}),
        ("datasets", [py, os.path.join(HERE, "test-s3-datasets.py")] + tools, {}),
        ("peers", [py, os.path.join(HERE, "test-s3-peers.py")] + tools, {}),
        ("faults", [py, os.path.join(HERE, "test-s3-faults.py")] + tools, {}),
        ("vfd", [py, os.path.join(HERE, "test-s3-vfd.py")] + tools, {}),
        ("concurrency", [py, os.path.join(HERE, "test-s3-concurrency.py"), args.conc_worker], {}),
        ("replace", [py, os.path.join(HERE, "test-s3-replace.py"), args.replace_worker,
                     args.ncz_copy, args.ncz_dump], {}),
        # xarray's engine "ncz" and Dask workers on S3 (skips without the
        # Python layer on PYTHONPATH)
        ("dask", [py, os.path.join(HERE, "test-s3-dask.py")] + tools, {}),
        # Ncz Browser's test program under xvfb-run on S3 URLs (skips
        # without the browser or xvfb-run)
        ("browser", [py, os.path.join(HERE, "test-s3-browser.py")] + tools +
         [f"--{k}={v}" for k, v in (("test-browser", args.test_browser),
                                    ("xvfb-run", args.xvfb_run),
                                    ("browser-output", args.browser_output)) if v], {}),
    ]
    results = []
    try:
        for name, argv, extra in tests:
            if args.only and name not in args.only:
                continue
            if name == "store" and not has_store:
                results.append((name, "SKIP", 0.0))
                print(f"=== {name}: SKIP (no s3 store module)", flush=True)
                continue
            print(f"=== {name}: {' '.join(argv)}", flush=True)
            t0 = time.monotonic()
            if name == "store":
                out, rc = run_gtest_cases(argv, {**env, **extra})
            else:
                out, rc = run_one(argv, {**env, **extra})
            dt = time.monotonic() - t0
            sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
            verdict = "PASS" if rc == 0 else "SKIP" if rc == 77 else f"FAIL (exit {rc})"
            if rc == 0 and "\nnot ok " in "\n" + out:
                verdict = "FAIL (a TAP test failed)"
            results.append((name, verdict, dt))
            print(f"=== {name}: {verdict} in {dt:.1f} s", flush=True)
    finally:
        cleanup_errors = remove_buckets(run_prefix)
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nS3 tests:")
    for name, verdict, dt in results:
        print(f"  {name:10s} {verdict} ({dt:.1f} s)")
    if cleanup_errors:
        print("  cleanup: FAIL: " + "; ".join(cleanup_errors))
    failed = [r for r in results if r[1].startswith("FAIL")] or cleanup_errors
    if failed:
        return 1
    if all(r[1] == "SKIP" for r in results):
        return 77
    return 0


def run_one(argv, env, timeout=1200):
    try:
        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        return r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (
            e.stdout or "")
        return out + f"\n(killed after {timeout} s)", -1


def run_gtest_cases(argv, env):
    """Each case of a GTest program in a process of its own, so that one
    failed assertion (which ends the process) does not hide the others'
    results; prints one TAP line per case."""
    r = subprocess.run([argv[0], "-l"], env=env, capture_output=True, text=True)
    cases = [c for c in r.stdout.split() if c.startswith("/")]
    if r.returncode != 0 or not cases:
        return run_one(argv, env)
    lines = []
    failed = 0
    for n, case in enumerate(cases, 1):
        out, rc = run_one([argv[0], "-p", case], env, timeout=600)
        if rc == 0:
            lines.append(f"ok {n} - {case}")
        else:
            failed += 1
            lines.append(f"not ok {n} - {case} (exit {rc})")
            lines += ["# " + x for x in out.splitlines()
                      if "GLib-GIO-DEBUG" not in x][-15:]
    lines.append(f"1..{len(cases)}")
    return "\n".join(lines) + "\n", (1 if failed else 0)


def remove_buckets(prefix):
    """Removes every bucket of this run; returns what could not be removed."""
    errors = []
    try:
        client = s3common.boto3_client()
        names = [b["Name"] for b in client.list_buckets().get("Buckets", [])
                 if b["Name"].startswith(prefix)]
        for name in names:
            try:
                s3common.remove_bucket(client, name)
            except Exception as e:  # noqa: BLE001 - reported, then the next one
                errors.append(f"{name}: {e}")
        left = [b["Name"] for b in client.list_buckets().get("Buckets", [])
                if b["Name"].startswith(prefix)]
        if left:
            errors.append("buckets left: " + ", ".join(left))
        else:
            print(f"run-s3-tests: removed the run's {len(names)} bucket(s)")
    except Exception as e:  # noqa: BLE001
        errors.append(str(e))
    return errors


if __name__ == "__main__":
    sys.exit(main())
