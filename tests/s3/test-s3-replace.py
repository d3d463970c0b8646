#!/usr/bin/python3
# Replacing a dataset on S3 while others use it (docs/s3.md, "Replacing
# a dataset"; docs/concurrency.md, "S3"), printing TAP. Each case runs
# real processes against the server radosgw-run started; the proxy of
# s3proxy.py delays requests to make the windows wide, not sleeps.
#
#  - two replacers at once: two ncz-copy of different inputs onto one URL,
#    through a proxy that delays every request so that they overlap,
#    ROUNDS times. With lock.timeout=0 exactly one succeeds and the other
#    fails naming the replacement in progress; with the default wait both
#    succeed, one after the other, and the dataset is the input of the
#    one that finished last. Either way it equals one input exactly
#    (ncz-dump) and reads whole.
#  - readers while the dataset is replaced: READERS processes read it
#    whole again and again (their chunk reads delayed, so that a
#    replacement often starts between their open and their reads) while
#    it is replaced REPLACEMENTS times: every read is whole, of one
#    version, or fails saying that the dataset was (being) replaced;
#    never a mix. The number of reads that met a replacement is printed.
#  - a writer in place against a replacer: opened before the
#    replacement, it writes while it runs, after it, or with its write
#    delayed across its start: its write or close fails saying the
#    dataset was replaced, and the dataset is the replacement's, whole
#    (or, if the late write landed among the replacement's chunks, the
#    replacement fails saying so and nothing opens).
#  - a replacer stopped (SIGSTOP) for longer than its record lives: a
#    reader meanwhile is refused; another replacer takes over and
#    finishes; the stopped one, resumed, fails without publishing
#    anything; the dataset is the second one's, whole.
#
#   test-s3-replace.py WORKER NCZ-COPY NCZ-DUMP
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import s3common as s3  # noqa: E402
from s3proxy import FaultProxy  # noqa: E402

s3.require_server()
if len(sys.argv) < 4:
    print("usage: test-s3-replace.py WORKER NCZ-COPY NCZ-DUMP", file=sys.stderr)
    sys.exit(2)
WORKER, NCZ_COPY, NCZ_DUMP = sys.argv[1:4]
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP the registry has no s3 store module")
    sys.exit(77)

ROUNDS = 5
WAIT_ROUNDS = 3
READERS = 4
REPLACEMENTS = 6
TMP = tempfile.mkdtemp(prefix="ncz-s3-replace-")
ENV = s3.clean_env()
T = s3.Tap()


def run(args, env=None, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, errors="replace",
                          env=env or ENV, timeout=timeout)


def popen(args, env=None):
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", env=env or ENV)


def url(host, bucket, key, extra=""):
    return f"http://{host}/{bucket}/{key}#mode=nczarr,s3" + (f"&{extra}" if extra else "")


def dump(u):
    r = run([NCZ_DUMP, u])
    if r.returncode != 0:
        return None
    # the first line names the dataset after its location
    return r.stdout.split("\n", 1)[1] if "\n" in r.stdout else r.stdout


def record(client, bucket, key):
    try:
        body = client.get_object(Bucket=bucket, Key=f"{key}/.ncz-generation")["Body"].read()
        return json.loads(body)
    except client.exceptions.NoSuchKey:
        return None


def wait_for(cond, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def delay_all(seconds):
    return lambda method, target, n: f"delay:{seconds}"


def two_replacers(client, bucket):
    """Two ncz-copy of different inputs onto one dataset at once."""
    direct = s3.host_port()
    inputs = {}
    for v in (1, 2):
        path = os.path.join(TMP, f"in{v}")
        r = run([WORKER, "make", f"file://{path}#mode=nczarr,file", str(v)])
        if not T.ok(r.returncode == 0, f"input {v} written to a directory", r.stdout + r.stderr):
            return
        inputs[v] = (f"file://{path}#mode=nczarr,file", dump(f"file://{path}#mode=nczarr,file"))
    key = "two"
    r = run([WORKER, "make", url(direct, bucket, key), "0"])
    if not T.ok(r.returncode == 0, "two replacers: the dataset exists (version 0)", r.stdout):
        return
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    proxy.set_rule(delay_all(0.03))
    via = f"127.0.0.1:{proxy.port}"
    try:
        for how, extra, rounds in (("lock.timeout=0", "lock.timeout=0", ROUNDS),
                                   ("waiting", "", WAIT_ROUNDS)):
            refused = 0
            for r_ in range(rounds):
                name = f"two replacers ({how}) round {r_}"
                t0 = time.monotonic()
                procs = {v: popen([NCZ_COPY, "-q", inputs[v][0], url(via, bucket, key, extra)])
                         for v in (1, 2)}
                outs, ends = {}, {}
                while len(ends) < 2:
                    for v, p in procs.items():
                        if v not in ends and p.poll() is not None:
                            ends[v] = time.monotonic() - t0
                            outs[v] = p.stdout.read()
                    time.sleep(0.005)
                ok = [v for v in (1, 2) if procs[v].returncode == 0]
                detail = "\n".join(f"copy of input {v}: exit {procs[v].returncode} after "
                                   f"{ends[v]:.2f} s: {outs[v].strip()}" for v in (1, 2))
                if extra:
                    failed = [v for v in (1, 2) if v not in ok]
                    refused += len(failed)
                    T.ok(len(ok) == 1 and "another replacement of the dataset is in progress"
                         in outs[failed[0]], f"{name}: exactly one succeeded, the other was "
                         "refused naming the replacement in progress", detail)
                    winner = ok[0] if len(ok) == 1 else None
                else:
                    T.ok(len(ok) == 2, f"{name}: both succeeded, one after the other", detail)
                    winner = max(ok, key=lambda v: ends[v]) if ok else None
                    T.note(f"{name}: finished after {ends[1]:.2f} s and {ends[2]:.2f} s")
                if winner is None:
                    continue
                got = dump(url(direct, bucket, key))
                T.ok(got is not None and got == inputs[winner][1],
                     f"{name}: the dataset equals input {winner} (ncz-dump)", detail)
                c = run([WORKER, "check", url(direct, bucket, key), str(winner)])
                T.ok(c.returncode == 0, f"{name}: it reads whole as version {winner}",
                     c.stdout + c.stderr)
                rec = record(client, bucket, key)
                T.ok(rec is not None and rec.get("state") == "complete",
                     f"{name}: its generation object says complete", rec)
            if extra:
                T.note(f"two replacers ({how}): {refused} of {rounds} rounds overlapped "
                       "(one refused)")
    finally:
        proxy.stop()


def readers_while_replaced(client, bucket):
    direct = s3.host_port()
    key = "readers"
    r = run([WORKER, "make", url(direct, bucket, key), "0"])
    if not T.ok(r.returncode == 0, "readers: the dataset exists (version 0)", r.stdout):
        return
    # readers: their chunk reads are slow, so that a replacement often
    # begins between their open and their reads
    rproxy = FaultProxy("127.0.0.1", s3.port())
    rproxy.start()

    def reader_rule(method, target, n):
        leaf = target.split("?", 1)[0].rsplit("/", 1)[-1]
        return "delay:0.05" if method == "GET" and leaf[:1].isdigit() else "pass"
    rproxy.set_rule(reader_rule)
    # the replacer: every request a little slow, so that readers also
    # open while it runs
    wproxy = FaultProxy("127.0.0.1", s3.port())
    wproxy.start()
    wproxy.set_rule(delay_all(0.01))
    stop = os.path.join(TMP, "stop-readers")
    readers = [popen([WORKER, "read", url(f"127.0.0.1:{rproxy.port}", bucket, key), stop])
               for _ in range(READERS)]
    lines = []
    lock = threading.Lock()

    def collect(p):
        for line in p.stdout:
            with lock:
                lines.append(line.strip())
    collectors = [threading.Thread(target=collect, args=(p,), daemon=True) for p in readers]
    for t in collectors:
        t.start()

    def whole_reads(v):
        with lock:
            return sum(1 for line in lines if line == f"whole {v}")
    made = []
    try:
        # each version is read whole by READERS reads before the next
        # replacement starts, while reads are still going on
        for v in range(REPLACEMENTS + 1):
            if v > 0:
                m = run([WORKER, "make", url(f"127.0.0.1:{wproxy.port}", bucket, key), str(v)])
                made.append((v, m.returncode, m.stdout.strip()))
            wait_for(lambda: whole_reads(v) >= READERS, timeout=120)
    finally:
        with open(stop, "w"):
            pass
        for p in readers:
            p.wait(timeout=300)
        for t in collectors:
            t.join(timeout=60)
        rproxy.stop()
        wproxy.stop()
    T.ok(all(rc == 0 for _, rc, _ in made), f"readers: {REPLACEMENTS} replacements succeeded",
         made)
    lines = [line for line in lines if line]
    whole = [line for line in lines if line.startswith("whole ")]
    mixes = [line for line in lines if line.startswith("mix")]
    refused = [line for line in lines if line.startswith("error") and "is being replaced" in line]
    replaced = [line for line in lines
                if line.startswith("error") and "replaced while it was being read" in line]
    other = [line for line in lines if line not in whole and line not in mixes
             and line not in refused and line not in replaced]
    versions = sorted({int(line.split()[1]) for line in whole})
    T.note(f"readers: {len(lines)} reads: {len(whole)} whole (versions {versions}); "
           f"{len(replaced)} opened a version and met the next one's start before reading "
           f"its chunks, and failed saying so; {len(refused)} were refused at open (a "
           f"replacement in progress); {len(mixes)} mixed; {len(other)} other")
    T.ok(not mixes, "readers: no read mixed two versions", "\n".join(mixes[:20]))
    T.ok(not other, "readers: every read is whole or fails saying the dataset was replaced",
         "\n".join(other[:20]))
    T.ok(versions == list(range(REPLACEMENTS + 1)),
         f"readers: every version 0 to {REPLACEMENTS} was read whole", versions)
    T.ok(len(replaced) > 0, "readers: reads opened a version before a replacement and read "
         "after its start (the race was hit), and failed", f"{len(replaced)} such reads")
    c = run([WORKER, "check", url(direct, bucket, key), str(REPLACEMENTS)])
    T.ok(c.returncode == 0, f"readers: the dataset is version {REPLACEMENTS}, whole", c.stdout)


def writer_against_replacer(client, bucket):
    direct = s3.host_port()
    # the replacer: slow enough that a write delayed by a second lands
    # while it runs
    slow = FaultProxy("127.0.0.1", s3.port())
    slow.start()
    slow.set_rule(delay_all(0.1))
    wproxy = FaultProxy("127.0.0.1", s3.port())
    wproxy.start()
    try:
        for case in ("during", "after", "straddling"):
            key = f"writer-{case}"
            name = f"writer in place, write {case} the replacement"
            r = run([WORKER, "make", url(direct, bucket, key), "0"])
            if not T.ok(r.returncode == 0, f"{name}: the dataset exists", r.stdout):
                continue
            go = os.path.join(TMP, f"go-{case}")
            if case == "straddling":
                # the writer's chunk PUT reaches the server a second after
                # it was sent (after its check), while the replacement runs
                wproxy.clear_log()
                wproxy.set_rule(lambda m, t, n: "delay:1.0" if m == "PUT" and
                                t.split("?", 1)[0].endswith(f"/{key}/a/0") else "pass")
                wurl = url(f"127.0.0.1:{wproxy.port}", bucket, key)
            else:
                wurl = url(direct, bucket, key)
            writer = popen([WORKER, "write", wurl, go])
            first = writer.stdout.readline()
            if first.strip() != "opened":
                T.ok(False, f"{name}: the writer opened the dataset",
                     first + writer.communicate(timeout=300)[0])
                continue
            T.ok(True, f"{name}: the writer opened the dataset")
            replacer = None
            if case == "during":
                replacer = popen([WORKER, "make", url(f"127.0.0.1:{slow.port}", bucket, key), "1"])
                T.ok(wait_for(lambda: (record(client, bucket, key) or {}).get("state")
                              == "replacing"), f"{name}: the replacement began")
                with open(go, "w"):
                    pass
            elif case == "after":
                m = run([WORKER, "make", url(direct, bucket, key), "1"])
                T.ok(m.returncode == 0, f"{name}: the replacement succeeded", m.stdout)
                with open(go, "w"):
                    pass
            else:
                with open(go, "w"):
                    pass
                # the proxy holds the PUT (a fault applied) before it sends it on
                T.ok(wait_for(lambda: wproxy.faults > 0 or writer.poll() is not None),
                     f"{name}: the writer's PUT is on its way")
                replacer = popen([WORKER, "make", url(f"127.0.0.1:{slow.port}", bucket, key), "1"])
            wout = writer.communicate(timeout=300)[0].strip()
            T.ok(writer.returncode != 0 and "replaced" in wout,
                 f"{name}: the writer failed saying the dataset was replaced", wout)
            rout, rrc = "", 0
            if replacer is not None:
                rout = replacer.communicate(timeout=300)[0].strip()
                rrc = replacer.returncode
            c = run([WORKER, "check", url(direct, bucket, key), "1"])
            if case == "straddling" and rrc != 0:
                T.note(f"{name}: the write landed among the replacement's chunks: {rout}")
                T.ok("another writer changed" in rout and c.returncode != 0
                     and "mix" not in c.stdout,
                     f"{name}: the replacement failed saying another writer changed its chunks, "
                     "and the dataset does not open", rout + "\n" + c.stdout)
            else:
                if replacer is not None:
                    T.ok(rrc == 0, f"{name}: the replacement succeeded", rout)
                T.ok(c.returncode == 0, f"{name}: the dataset is the replacement's, whole",
                     c.stdout)
            if os.path.exists(go):
                os.unlink(go)
    finally:
        slow.stop()
        wproxy.stop()


def stopped_replacer(client, bucket):
    direct = s3.host_port()
    key = "stopped"
    r = run([WORKER, "make", url(direct, bucket, key), "0"])
    if not T.ok(r.returncode == 0, "stopped replacer: the dataset exists", r.stdout):
        return
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    proxy.set_rule(delay_all(0.1))
    env = dict(ENV, NCZ_S3_REPLACE_STALE="2")
    a = popen([WORKER, "make", url(f"127.0.0.1:{proxy.port}", bucket, key), "7"], env=env)
    try:
        began = wait_for(lambda: (record(client, bucket, key) or {}).get("pid") == a.pid)
        os.kill(a.pid, signal.SIGSTOP)
        T.ok(began, "stopped replacer: it claimed the dataset, then was stopped",
             record(client, bucket, key))
        c = run([WORKER, "check", url(direct, bucket, key), "0"])
        T.ok(c.returncode != 0 and "is being replaced" in c.stdout,
             "stopped replacer: a reader is refused while its record is fresh", c.stdout)
        t0 = time.monotonic()
        b = run([WORKER, "make", url(direct, bucket, key), "8"])
        T.ok(b.returncode == 0, f"stopped replacer: another replacement took over after "
             f"{time.monotonic() - t0:.1f} s and succeeded", b.stdout)
    finally:
        os.kill(a.pid, signal.SIGCONT)
    aout = a.communicate(timeout=300)[0].strip()
    proxy.stop()
    T.ok(a.returncode != 0 and "took it over" in aout,
         "stopped replacer: resumed, it fails saying another replacement took over", aout)
    c = run([WORKER, "check", url(direct, bucket, key), "8"])
    T.ok(c.returncode == 0, "stopped replacer: the dataset is the second replacement's, whole",
         c.stdout)
    rec = record(client, bucket, key)
    T.ok(rec is not None and rec.get("state") == "complete" and rec.get("pid") != a.pid,
         "stopped replacer: the generation object is the second one's, complete", rec)


def main():
    client = s3.boto3_client()
    bucket = s3.create_bucket(client, s3.unique_bucket("replace"))
    try:
        two_replacers(client, bucket)
        readers_while_replaced(client, bucket)
        writer_against_replacer(client, bucket)
        stopped_replacer(client, bucket)
    finally:
        s3.remove_bucket(client, bucket)
        shutil.rmtree(TMP, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
