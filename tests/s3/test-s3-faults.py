#!/usr/bin/python3
# Faults between Ncz and the S3 server, printing TAP. A proxy
# (s3proxy.py) in front of radosgw drops connections, withholds replies,
# answers 503 SlowDown or 500, cuts bodies short, or stops accepting
# connections. Reads through it must retry and give the right values, or
# fail with an error naming what failed; they never hang (each run of a
# tool has a generous limit that only a hang reaches) and never give fill
# values for chunks that exist.
#
#   test-s3-faults.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL
#
# Last, the gateway itself is stopped and started again. The proxy and
# the restart are checked with boto3 too (also without the S3 store
# module; Ncz's side is skipped then).
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3common as s3  # noqa: E402
from s3proxy import FaultProxy  # noqa: E402

s3.require_server()
NCZ_DUMP, NCZ_COPY, NCZ_GEN, WRITE_ALL = sys.argv[1:5]
HAVE_STORE = os.environ.get("NCZ_TEST_S3_HAVE_STORE") == "1"
TMP = tempfile.mkdtemp(prefix="ncz-s3-faults-")
ENV = s3.clean_env()
T = s3.Tap()
HANG_LIMIT = 300   # seconds: only a hang gets there

NT, NY, NX = 8, 6, 10
CHUNK_RE = re.compile(r"/temp/\d+\.\d+\.\d+($|\?)")


def value(t, y, x):
    return t * 100 + y * 10 + x + 1


def cdl():
    vals = ", ".join(str(value(t, y, x)) for t in range(NT) for y in range(NY) for x in range(NX))
    return f"""netcdf faults {{
dimensions:
  t = {NT} ;
  y = {NY} ;
  x = {NX} ;
variables:
  int temp(t, y, x) ;
    temp:_ChunkSizes = 2, 3, 5 ;
    temp:_FillValue = -999 ;
data:
  temp = {vals} ;
}}
"""


def is_chunk(target):
    return bool(CHUNK_RE.search(target.split("?", 1)[0]))


def once_per_chunk(action, on="GET"):
    """The first request (of method ON) for each chunk gets ACTION, the
    next ones pass."""
    seen = set()

    def rule(method, target, n):
        if method == on and is_chunk(target) and target not in seen:
            seen.add(target)
            return action
        return "pass"
    return rule


def all_chunks(action):
    return lambda method, target, n: action if method == "GET" and is_chunk(target) else "pass"


def dump(url, timeout=HANG_LIMIT):
    t0 = time.monotonic()
    try:
        r = subprocess.run([NCZ_DUMP, url], capture_output=True, text=True, env=ENV,
                           timeout=timeout)
        out = r.stdout.split("\n", 1)[1] if "\n" in r.stdout else r.stdout
        return r.returncode, out, r.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "", f"still running after {timeout} s: a hang", time.monotonic() - t0


def attempts_per_chunk(log):
    counts = {}
    for m, t, _ in log:
        if m == "GET" and is_chunk(t):
            counts[t] = counts.get(t, 0) + 1
    return counts


def no_fill(out):
    """ncz-dump shows a fill value as its value (-999) or as '_'."""
    return "-999" not in out.split("data:", 1)[-1] and not re.search(r"(^|[ ,=])_([ ,;]|$)",
                                                                      out.split("data:", 1)[-1])


def proxy_selftest(bucket):
    client = s3.boto3_client()
    s3.create_bucket(client, bucket)
    client.put_object(Bucket=bucket, Key="k/0.0", Body=b"0123456789" * 1000)
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    via = s3.boto3_client(endpoint=f"http://127.0.0.1:{proxy.port}")
    try:
        body = via.get_object(Bucket=bucket, Key="k/0.0")["Body"].read()
        T.ok(body == b"0123456789" * 1000, "proxy: passes a GET through (boto3)")
        proxy.set_rule(lambda m, t, n: "503" if n < 1 else "pass")
        try:
            via.get_object(Bucket=bucket, Key="k/0.0")
            T.ok(False, "proxy: answers 503 SlowDown")
        except via.exceptions.ClientError as e:
            T.ok(e.response["Error"]["Code"] == "SlowDown", "proxy: answers 503 SlowDown",
                 e.response)
        proxy.set_rule(lambda m, t, n: "drop")
        try:
            via.get_object(Bucket=bucket, Key="k/0.0")
            T.ok(False, "proxy: drops the connection")
        except Exception as e:  # noqa: BLE001 - botocore's connection errors vary
            T.ok("Connection" in type(e).__name__ or "connection" in str(e).lower(),
                 "proxy: drops the connection", repr(e))
        proxy.set_rule(lambda m, t, n: "truncate")
        try:
            got = via.get_object(Bucket=bucket, Key="k/0.0")["Body"].read()
            T.ok(False, "proxy: cuts a body short", f"read {len(got)} bytes")
        except Exception as e:  # noqa: BLE001
            T.ok(True, "proxy: cuts a body short", repr(e))
        proxy.set_rule(lambda m, t, n: "pass")
        proxy.refuse()
        try:
            via.get_object(Bucket=bucket, Key="k/0.0")
            T.ok(False, "proxy: refuses connections")
        except Exception as e:  # noqa: BLE001
            T.ok(True, "proxy: refuses connections", repr(e))
        proxy.accept_again()
        via2 = s3.boto3_client(endpoint=f"http://127.0.0.1:{proxy.port}")
        T.ok(via2.get_object(Bucket=bucket, Key="k/0.0")["Body"].read() == body,
             "proxy: accepts again on the same port")
    finally:
        proxy.stop()
        s3.remove_bucket(client, bucket)


def ncz_faults(bucket):
    cdl_path = os.path.join(TMP, "faults.cdl")
    with open(cdl_path, "w") as f:
        f.write(cdl())
    url = s3.s3_url(bucket, "faults")
    r = subprocess.run([NCZ_GEN, "-o", url, cdl_path], capture_output=True, text=True, env=ENV)
    if not T.ok(r.returncode == 0, "ncz-gen writes the dataset to S3", r.stderr):
        return
    rc, want, err, _ = dump(url)
    if not T.ok(rc == 0 and no_fill(want), "the dataset dumps directly", err):
        return
    n_chunks = (NT // 2) * (NY // 3) * (NX // 5)

    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    via = f"http://127.0.0.1:{proxy.port}/{bucket}/faults#mode=nczarr,s3"

    def through(rule, frag):
        proxy.set_rule(rule)
        proxy.clear_log()
        return dump(via + frag)

    try:
        rc, out, err, _ = through(lambda m, t, n: "pass", "")
        T.ok(rc == 0 and out == want, "through the proxy: the same dump", err)

        # faults that retries get past: the values come out right
        for action, frag in (("drop", "&s3.timeout=10&s3.retries=3"),
                             ("503", "&s3.timeout=10&s3.retries=3"),
                             ("500", "&s3.timeout=10&s3.retries=3"),
                             ("truncate", "&s3.timeout=10&s3.retries=3"),
                             ("delay:1", "&s3.timeout=10&s3.retries=3"),
                             ("hang", "&s3.timeout=2&s3.retries=3")):
            rc, out, err, dt = through(once_per_chunk(action), frag)
            counts = attempts_per_chunk(proxy.requests())
            T.ok(rc == 0 and out == want,
                 f"{action} on the first request of each chunk: retried, right values "
                 f"({dt:.1f} s)", f"exit {rc}\n{err}\n{out[:2000]}")
            if action != "delay:1":
                T.ok(len(counts) == n_chunks and all(c == 2 for c in counts.values()),
                     f"{action}: each chunk asked for twice", counts)

        # faults with no end: an error naming what failed, no fill values
        for action, frag, retries in (("drop", "&s3.timeout=5&s3.retries=2", 2),
                                      ("503", "&s3.timeout=5&s3.retries=2", 2),
                                      ("truncate", "&s3.timeout=5&s3.retries=1", 1),
                                      ("hang", "&s3.timeout=2&s3.retries=1", 1)):
            rc, out, err, dt = through(all_chunks(action), frag)
            counts = attempts_per_chunk(proxy.requests())
            T.ok(rc is not None, f"{action} on every chunk request: no hang ({dt:.1f} s)", err)
            T.ok(rc not in (None, 0) and err.strip() != "",
                 f"{action} on every chunk request: the read fails", f"exit {rc}\n{err}")
            T.ok(no_fill(out), f"{action} on every chunk request: no fill values shown", out)
            T.ok(bool(re.search(r"temp/\d+\.\d+\.\d+|faults", err)),
                 f"{action}: the error names the object or dataset", err)
            T.note(f"{action}: {err.strip()[:300]}")
            T.ok(counts and max(counts.values()) <= retries + 1,
                 f"{action}: at most {retries + 1} attempts for a chunk", counts)

        # a server that does not accept connections, then does again
        proxy.set_rule(lambda m, t, n: "pass")
        proxy.refuse()
        rc, out, err, dt = dump(via + "&s3.timeout=5&s3.retries=2")
        T.ok(rc not in (None, 0) and err.strip() != "",
             f"connections refused: the open fails ({dt:.1f} s)", f"exit {rc}\n{err}")
        T.note(f"refused: {err.strip()[:300]}")
        proxy.accept_again()
        rc, out, err, _ = dump(via)
        T.ok(rc == 0 and out == want, "accepting again: the same dump", err)

        # writes get past dropped connections too
        proxy.set_rule(once_per_chunk("drop", on="PUT"))
        wurl = f"http://127.0.0.1:{proxy.port}/{bucket}/written#mode=nczarr,s3&s3.retries=3"
        r = subprocess.run([NCZ_COPY, url, wurl], capture_output=True, text=True, env=ENV,
                           timeout=HANG_LIMIT)
        T.ok(r.returncode == 0, "ncz-copy to S3 with dropped connections", r.stderr)
        puts = [t for m, t, a in proxy.requests() if m == "PUT" and a == "drop"]
        T.note(f"{len(puts)} PUTs dropped")
        rc, out, err, _ = dump(s3.s3_url(bucket, "written"))
        T.ok(rc == 0 and out == want, "what was written through the faults dumps the same", err)
    finally:
        proxy.stop()


def restart(bucket):
    """The gateway itself stopped, then started again: reads fail with an
    error while it is down (no hang, no fill values) and work again once
    it is back; the objects are still there (they live in the OSD)."""
    url = s3.s3_url(bucket, "faults")
    client = s3.boto3_client()
    if HAVE_STORE:
        rc, want, err, _ = dump(url)
        T.ok(rc == 0, "before the restart: the dataset dumps", err)
    else:
        s3.create_bucket(client, bucket)
        client.put_object(Bucket=bucket, Key="k", Body=b"kept")
    s3.rgw_stop()
    if HAVE_STORE:
        rc, out, err, dt = dump(url + "&s3.timeout=5&s3.retries=1")
        T.ok(rc not in (None, 0) and err.strip() != "" and no_fill(out),
             f"gateway stopped: the read fails with an error ({dt:.1f} s)", f"exit {rc}\n{err}")
        T.note(f"gateway stopped: {err.strip()[:300]}")
    try:
        dt = s3.rgw_start()
        T.ok(True, f"the gateway starts again ({dt:.1f} s)")
    except RuntimeError as e:
        T.ok(False, "the gateway starts again", str(e))
        return
    if HAVE_STORE:
        rc, out, err, _ = dump(url)
        T.ok(rc == 0 and out == want, "after the restart: the same dump", err)
    else:
        T.ok(s3.boto3_client().get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept",
             "after the restart: the object is still there (boto3)")


def main():
    proxy_selftest(s3.unique_bucket("proxy"))
    bucket = s3.unique_bucket("faults")
    try:
        if HAVE_STORE:
            ncz_faults(bucket)
        else:
            T.skip("reads and writes of Ncz through faults", "no s3 store module")
        restart(bucket)
    finally:
        s3.remove_bucket(s3.boto3_client(), bucket)


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(T.done())
