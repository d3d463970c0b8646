#!/usr/bin/python3
# test-concurrency.py: many writers, one dataset (docs/concurrency.md)
#
#   test-concurrency.py --worker=BUILD/tests/concurrency/conc-worker [--only=STORE]
#
# For each store and each way of writing (conc-worker.c), 8 processes
# open one dataset for writing at once (they wait on a barrier file), each
# writes its own part and closes. The contract's rule is checked per
# writer: a writer that exited 0 has its whole part stored; one that did
# not printed an error. Each case runs ROUNDS times to meet the races.
# TAP output. tests/s3/test-s3-concurrency.py runs the same cases on S3
# (with this file's run_writers, N_WRITERS and ROUNDS).
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import shutil
import subprocess
import sys
import tempfile

N_WRITERS = 8
ROUNDS = 3

# (store, mode): what runs
CASES = [
    ("file", "slices"), ("file", "bands"), ("file", "append"), ("file", "attr"),
    ("file", "region"),
    ("zip", "slices"), ("zip", "bands"), ("zip", "append"), ("zip", "attr"), ("zip", "region"),
    # netCDF-4/HDF5 files: writers take turns on libhdf5's file lock
    ("hdf5", "slices"), ("hdf5", "bands"), ("hdf5", "append"), ("hdf5", "attr"),
    # the opt-in lock: a lock directory the writers share (lock.dir)
    ("lockdir", "bands"), ("lockdir", "append"), ("lockdir", "attr"),
]


def opt(name, default=None):
    for a in sys.argv[1:]:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, text, detail=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} - {text}", flush=True)
        if not ok:
            self.failed += 1
            for line in detail.splitlines():
                print(f"# {line}")


def url_for(tmp, store, mode, r):
    if store == "zip":
        return f"file://{tmp}/{mode}-{r}.zip#mode=nczarr,zip"
    if store == "hdf5":
        return f"{tmp}/{store}-{mode}-{r}.nc"
    if store == "lockdir":
        locks = os.path.join(tmp, "locks")
        os.makedirs(locks, exist_ok=True)
        return f"file://{tmp}/{store}-{mode}-{r}.ncz#mode=nczarr,file&lock.dir={locks}"
    return f"file://{tmp}/{store}-{mode}-{r}.ncz#mode=nczarr,file"


def run_writers(worker, mode, url, barrier):
    procs = [subprocess.Popen([worker, mode, url, str(i), barrier], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
             for i in range(N_WRITERS)]
    with open(barrier, "w"):
        pass
    results = []
    for p in procs:
        out, _ = p.communicate(timeout=300)
        results.append((p.returncode, out.strip()))
    os.unlink(barrier)
    return results


def zarray_shape(tmp, store, mode, r, var):
    path = os.path.join(tmp, f"{store}-{mode}-{r}.ncz", var, ".zarray")
    with open(path) as f:
        return json.load(f)["shape"]


def main():
    worker = opt("--worker")
    only = opt("--only")
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="ncz-conc-")
    try:
        for store, mode in CASES:
            if only and store != only:
                continue
            for r in range(ROUNDS):
                url = url_for(tmp, store, mode, r)
                init = subprocess.run([worker, "init", url], capture_output=True, text=True)
                if init.returncode != 0:
                    tap.check(False, f"{store} {mode} round {r}: init", init.stdout + init.stderr)
                    continue
                if mode == "region":
                    # the coordinator sizes utime; the workers write data only
                    sl = subprocess.run([worker, "setlen", url, str(N_WRITERS * 8)],
                                        capture_output=True, text=True)
                    if sl.returncode != 0:
                        tap.check(False, f"{store} region round {r}: setlen", sl.stdout)
                        continue
                results = run_writers(worker, mode, url, os.path.join(tmp, "barrier"))
                ok = [i for i, (rc, _) in enumerate(results) if rc == 0]
                errors = [f"writer {i}: {out}" for i, (rc, out) in enumerate(results) if rc != 0]
                # a writer that failed said why
                silent = [e for e in errors if "error:" not in e]
                chk = subprocess.run([worker, "check", url, mode, str(N_WRITERS),
                                      ",".join(map(str, ok)) or "-"],
                                     capture_output=True, text=True)
                detail = chk.stdout + chk.stderr + "\n".join(errors)
                tap.check(chk.returncode == 0 and not silent,
                          f"{store} {mode} round {r}: {len(ok)} of {N_WRITERS} writers "
                          f"succeeded, each success stored whole", detail)
                if (mode in ("slices", "bands", "region") and store in ("file", "lockdir") or
                        store in ("zip", "hdf5")):
                    # disjoint regions need no coordination; zip archives and
                    # HDF5 files make their writers wait for each other
                    tap.check(len(ok) == N_WRITERS,
                              f"{store} {mode} round {r}: every writer succeeded", detail)
                if store == "lockdir":
                    beside = os.path.join(tmp, f".{store}-{mode}-{r}.ncz.ncz-lock")
                    tap.check(not os.path.exists(beside) and
                              any(n.endswith(".ncz-lock")
                                  for n in os.listdir(os.path.join(tmp, "locks"))),
                              f"lockdir {mode} round {r}: the locks are in the lock directory")
                if (mode in ("append", "region") and store in ("file", "lockdir") and
                        len(ok) == N_WRITERS):
                    shape = zarray_shape(tmp, store, mode, r, "u")
                    tap.check(shape[0] == N_WRITERS * 8,
                              f"{store} {mode} round {r}: u/.zarray shape {shape[0]} is the "
                              f"longest any writer wrote ({N_WRITERS * 8})")
                path = url.split("#")[0][len("file://"):]
                if os.path.isdir(path):
                    shutil.rmtree(path, ignore_errors=True)
                elif os.path.exists(path):
                    os.unlink(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
