#!/usr/bin/python3
# Many writers, one dataset, on S3: tests/concurrency/test-concurrency.py's
# cases against the server radosgw-run started, printing TAP.
#
#   test-s3-concurrency.py CONC-WORKER
#
# For each way of writing (slices, bands, append, attr; see
# tests/concurrency/conc-worker.c), 8 processes open one dataset on S3
# for writing at once (they wait on a barrier file), each writes its own
# part and closes; ROUNDS rounds of each. Checked per round:
#  - every writer that exited 0 has its whole part stored (conc-worker
#    check, reading through .zmetadata and through each object's own
#    metadata), and one that did not printed an error;
#  - every writer succeeded: writers of disjoint chunks need nothing of
#    each other, and the others retry their conditional writes until they
#    land;
#  - after append: u/.zarray's shape, the dimension utime in the root's
#    .zgroup and both of them in .zmetadata agree, and are the end of
#    the longest part written (64 when every writer succeeded).
# Then answers lost after the server acted: two writers at once through
# a proxy (s3proxy.py) that withholds the first successful answer to each
# PUT of a key and resets the connection. The store retries the PUT,
# which meets the object its first attempt wrote: 412, a conflict; the
# writer reads again and applies its change once more. Both succeed and
# their parts are whole.
#
# The datasets live in a bucket of this run (run-s3-tests.py removes its
# buckets at the end); credentials come from the AWS files s3common
# wrote, through the environment the workers inherit.
#
# SPDX-License-Identifier: BSD-3-Clause

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import s3common as s3  # noqa: E402
from s3proxy import FaultProxy  # noqa: E402

s3.require_server()
if len(sys.argv) < 2:
    print("usage: test-s3-concurrency.py CONC-WORKER", file=sys.stderr)
    sys.exit(2)
WORKER = sys.argv[1]
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP the registry has no s3 store module")
    sys.exit(77)

# the file and zip stores' driver: its writers, rounds and sizes
_spec = importlib.util.spec_from_file_location(
    "conc", os.path.join(HERE, "..", "concurrency", "test-concurrency.py"))
conc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conc)

MODES = ["slices", "bands", "append", "attr"]
SLICES = 8   # conc-worker.c: N_SLICES, utime slices each append writer adds


def stored_lengths(client, bucket, prefix):
    """u's first dimension as u/.zarray, the root's .zgroup and the
    consolidated copies of both say it."""
    def get(key):
        body = client.get_object(Bucket=bucket, Key=f"{prefix}/{key}")["Body"].read()
        return json.loads(body)
    zarray = get("u/.zarray")
    zgroup = get(".zgroup")
    out = {"u/.zarray shape": zarray["shape"][0],
           ".zgroup utime": zgroup["_nczarr_group"]["dims"]["utime"]}
    try:
        meta = get(".zmetadata")["metadata"]
        out[".zmetadata u/.zarray shape"] = meta["u/.zarray"]["shape"][0]
        out[".zmetadata .zgroup utime"] = meta[".zgroup"]["_nczarr_group"]["dims"]["utime"]
    except client.exceptions.NoSuchKey:
        pass
    return out


def check_parts(tap, name, url, mode, n, ok, errors):
    """Each writer in @ok has its part stored whole, as a reader finds it
    through .zmetadata (as S3 opens by default) and through each group's
    and array's own objects; a writer that failed said why."""
    silent = [e for e in errors if "error:" not in e]
    for how, frag in (("consolidated", ""), ("per object", "&consolidated=false")):
        chk = subprocess.run([WORKER, "check", url + frag, mode, str(conc.N_WRITERS),
                              ",".join(map(str, ok)) or "-"], capture_output=True, text=True)
        detail = chk.stdout + chk.stderr + "\n".join(errors)
        tap.ok(chk.returncode == 0 and not silent,
               f"{name}: {len(ok)} of {n} writers succeeded, each success stored whole "
               f"(read {how})", detail)


def lost_answers(tap, bucket, tmp):
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()

    def rule(method, target, n):
        # runs under the proxy's lock: its log is read directly
        if method != "PUT":
            return "pass"
        lost = any(m == "PUT" and t == target and w == "lose-success" for m, t, w in proxy.log)
        return "pass" if lost else "lose-success"

    try:
        for mode in ("bands", "append", "attr"):
            prefix = f"lost-{mode}"
            url = f"{s3.ENDPOINT}/{bucket}/{prefix}#mode=nczarr,s3"
            via = f"http://127.0.0.1:{proxy.port}/{bucket}/{prefix}#mode=nczarr,s3&s3.retries=3"
            name = f"s3 {mode}, answers lost"
            init = subprocess.run([WORKER, "init", url], capture_output=True, text=True)
            if not tap.ok(init.returncode == 0, f"{name}: init", init.stdout + init.stderr):
                continue
            proxy.clear_log()
            proxy.set_rule(rule)
            barrier = os.path.join(tmp, "barrier")
            procs = [subprocess.Popen([WORKER, mode, via, str(i), barrier],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for i in range(2)]
            with open(barrier, "w"):
                pass
            outs = [p.communicate(timeout=300)[0].strip() for p in procs]
            results = [(p.returncode, out) for p, out in zip(procs, outs)]
            os.unlink(barrier)
            proxy.set_rule(lambda m, t, n: "pass")
            ok = [i for i, (rc, _) in enumerate(results) if rc == 0]
            errors = [f"writer {i}: {out}" for i, (rc, out) in enumerate(results) if rc != 0]
            log = proxy.requests()
            lost = {t for m, t, w in log if w == "lose-success"}
            # the retry of a lost conditional PUT met its own first attempt
            met = {t for i, (m, t, w) in enumerate(log) if m == "PUT" and w == 412 and
                   any(lt == t and lw == "lose-success" for _, lt, lw in log[:i])}
            tap.ok(len(ok) == 2, f"{name}: both writers succeeded", "\n".join(errors))
            tap.ok(bool(met), f"{name}: {len(lost)} successful PUTs lost, "
                              f"{len(met)} retried into a conflict",
                   "\n".join(f"{m} {t} {w}" for m, t, w in log))
            check_parts(tap, name, url, mode, 2, ok, errors)
    finally:
        proxy.stop()


def main():
    tap = s3.Tap()
    client = s3.boto3_client()
    bucket = s3.create_bucket(client, s3.unique_bucket("conc"))
    tmp = tempfile.mkdtemp(prefix="ncz-s3-conc-")
    try:
        for mode in MODES:
            for r in range(conc.ROUNDS):
                prefix = f"{mode}-{r}"
                url = f"{s3.ENDPOINT}/{bucket}/{prefix}#mode=nczarr,s3"
                name = f"s3 {mode} round {r}"
                init = subprocess.run([WORKER, "init", url], capture_output=True, text=True)
                if init.returncode != 0:
                    tap.ok(False, f"{name}: init", init.stdout + init.stderr)
                    continue
                results = conc.run_writers(WORKER, mode, url, os.path.join(tmp, "barrier"))
                ok = [i for i, (rc, _) in enumerate(results) if rc == 0]
                errors = [f"writer {i}: {out}" for i, (rc, out) in enumerate(results) if rc != 0]
                check_parts(tap, name, url, mode, conc.N_WRITERS, ok, errors)
                tap.ok(len(ok) == conc.N_WRITERS, f"{name}: every writer succeeded",
                       "\n".join(errors))
                if mode == "append" and ok:
                    lengths = stored_lengths(client, bucket, prefix)
                    end = (max(ok) + 1) * SLICES
                    want = conc.N_WRITERS * SLICES if len(ok) == conc.N_WRITERS else None
                    values = set(lengths.values())
                    agree = len(values) == 1 and (
                        values == {want} if want is not None else min(values) >= end)
                    tap.ok(agree, f"{name}: u's shape and the dimension utime agree "
                                  f"({', '.join(f'{k} {v}' for k, v in lengths.items())}), "
                                  f"the end of the longest part written "
                                  f"({want if want is not None else f'at least {end}'})",
                           json.dumps(lengths))
        lost_answers(tap, bucket, tmp)
    finally:
        s3.remove_bucket(client, bucket)
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
