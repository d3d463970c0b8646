# writers_case.py: the many-writers case of the bench, shared by run.py
# (the file store, --only=writers) and s3_bench.py (radosgw,
# --cases=writers); see bench/README.md.
#
# N processes (1, 2, 4) of ncz-writers-bench write disjoint time slices
# of one dataset (float T x Y x X, one ncz_variable_write per slice):
#  - aligned: chunks of 1 x Y x X, writer i writes the slices t with
#    t mod N = i, each a whole chunk (no lock);
#  - partial: chunks of 2 x Y x X, the same slices, each half a chunk:
#    read, modified and written under the chunk's lock; from N = 2 on,
#    two writers share each chunk. With N = 1 the writes are half-chunk
#    writes too (the same read-modify-write, the lock uncontended).
# Each run: a fresh dataset (ncz-writers-bench init, not timed), the N
# writers started and opened, each printing "ready"; then the barrier
# file is created and the wall time runs until the last writer has
# exited. Then every value is read back and compared (ncz-writers-bench
# check): a run whose check fails counts as failed, never as a rate.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import subprocess
import sys
import time

NS = (1, 2, 4)
MODES = ("aligned", "partial")
# how a run may fail to be counted
TIMEOUT_S = 900


def sizes(shape):
    return [int(x) for x in shape.split(",")]


def chunks_for(mode, shape):
    t, y, x = sizes(shape)
    return "%d,%d,%d" % (1 if mode == "aligned" else 2, y, x)


def nbytes(shape):
    t, y, x = sizes(shape)
    return 4 * t * y * x


def run_json(argv, env, what):
    """Runs a short command; its JSON line, or None with the reason
    printed."""
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    if r.returncode != 0:
        sys.stderr.write("writers: %s failed (%d): %s\n" % (what, r.returncode,
                                                           r.stderr.strip()[-600:]))
        return None
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    sys.stderr.write("writers: %s printed no JSON line\n" % what)
    return None


def run_once(prog, url, n, mode, shape, env, barrier):
    """One run: init, N writers on the barrier, check. Returns a dict:
    "wall_s" (barrier to the last exit), "slowest_s" (the largest
    barrier-to-close of the writers), "cpu_s" (user + system seconds
    of all the writers, whole processes: making their values included),
    "open_s" (the slowest open, before the barrier), "bytes", "writes",
    "requests" (where the store counts them), "check_s"; or
    {"failed": reason}."""
    if run_json([prog, "init", url, "--shape=" + shape, "--chunks=" + chunks_for(mode, shape)],
                env, "init %s" % url) is None:
        return {"failed": "init"}
    if os.path.exists(barrier):
        os.unlink(barrier)
    procs = [subprocess.Popen([prog, "write", url, "--index=%d" % i, "--writers=%d" % n,
                               "--mode=" + mode, "--barrier=" + barrier],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for i in range(n)]
    ready = all(p.stdout.readline().strip() == "ready" for p in procs)
    # released even when one writer failed, so none waits forever
    t0 = time.monotonic()
    with open(barrier, "w"):
        pass
    cpu = 0.0
    for p in procs:
        # wait4: the exit status and the CPU time of the writer
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
    wall = time.monotonic() - t0
    os.unlink(barrier)
    rows, errors = [], []
    for i, p in enumerate(procs):
        out, err = p.communicate()
        line = [x for x in out.splitlines() if x.startswith("{")]
        if p.returncode != 0 or not line:
            errors.append("writer %d (exit %d): %s" % (i, p.returncode, err.strip()[-400:]))
        else:
            rows.append(json.loads(line[-1]))
    if errors or not ready:
        sys.stderr.write("writers: %s N=%d %s: %s\n" % (mode, n, url, "; ".join(errors)
                                                        or "a writer was not ready"))
        return {"failed": "writer"}
    check = run_json([prog, "check", url], env, "check %s" % url)
    if check is None:
        return {"failed": "check (values wrong or unreadable)"}
    res = {"wall_s": wall, "cpu_s": cpu, "slowest_s": max(r["write_s"] for r in rows),
           "open_s": max(r["open_s"] for r in rows),
           "bytes": sum(r["bytes"] for r in rows), "writes": sum(r["writes"] for r in rows),
           "check_s": check["read_s"]}
    if all("requests" in r for r in rows):
        res["requests"] = sum(r["requests"] for r in rows)
    if res["bytes"] != check["bytes"]:
        sys.stderr.write("writers: %s N=%d wrote %d bytes, the variable has %d\n" % (
            mode, n, res["bytes"], check["bytes"]))
        return {"failed": "bytes"}
    return res


def run(prog, configs, shape, repeat, env, barrier, make_url, after=None):
    """Runs every (config, mode, N) @repeat times, taking turns (all of
    them once, then all again), so that a slow spell of a shared machine
    falls on all of them. @configs: config names (e.g. the lock); @make_url
    (config, mode, n, i) gives a fresh dataset's URL; @after (config, mode,
    n, url) runs after each run (its checks, its cleaning) and returns an
    error text or None. Returns {(config, mode, n): best run (the least
    wall time, with the least CPU time of any) or {"failed": ...}}."""
    best = {}
    for i in range(repeat):
        for config in configs:
            for mode in MODES:
                for n in NS:
                    key = (config, mode, n)
                    if "failed" in best.get(key, {}):
                        continue
                    url = make_url(config, mode, n, i)
                    res = run_once(prog, url, n, mode, shape, env, barrier)
                    if after is not None:
                        problem = after(config, mode, n, url)
                        if problem is not None and "failed" not in res:
                            sys.stderr.write("writers: %s %s N=%d: %s\n" % (config, mode, n,
                                                                            problem))
                            res = {"failed": problem}
                    if "failed" in res or key not in best:
                        best[key] = res
                    else:
                        cpu = min(res["cpu_s"], best[key]["cpu_s"])
                        if res["wall_s"] < best[key]["wall_s"]:
                            best[key] = res
                        best[key]["cpu_s"] = cpu
    return best


def locks_cost(prog, url, shape, env):
    """The lock alone: microseconds per uncontended lock and unlock of a
    chunk (ncz-writers-bench locks), on a dataset made for it."""
    if run_json([prog, "init", url, "--shape=" + shape], env, "init %s" % url) is None:
        return None
    return run_json([prog, "locks", url], env, "locks %s" % url)


def mbps(nbytes_, seconds):
    return nbytes_ / seconds / 1e6 if seconds and seconds > 0 else float("nan")


def report(title, res, configs, labels, reference, shape, repeat, cores, lock_us=None,
           notes=()):
    """Prints the table (total MB/s, the ratio to N = 1 of the same
    config and mode, the ratio to @reference's aligned rows at the same
    N) and returns {(config, mode, n): MB/s} of the runs that passed
    their check."""
    t, y, x = sizes(shape)
    print()
    print("%s: float32 %dx%dx%d (%.0f MiB), one write per time slice (%.1f MiB); aligned: "
          "chunks 1x%dx%d, partial: chunks 2x%dx%d; N processes started together on a barrier, "
          "wall time from the barrier to the last exit, every value read back and checked "
          "after each run; best of %d, %d cores" % (
              title, t, y, x, nbytes(shape) / 2 ** 20, y * x * 4 / 2 ** 20, y, x, y, x,
              repeat, cores))
    print("%-34s %2s %10s %8s %11s %9s %9s %8s %9s" % (
        "store / locks / mode", "N", "MB/s", "x N=1", "x aligned*", "wall s", "slowest",
        "CPU s", "requests"))
    rates = {}
    for key, r in res.items():
        if "failed" not in r:
            rates[key] = mbps(r["bytes"], r["wall_s"])
    for config in configs:
        for mode in MODES:
            for n in NS:
                key = (config, mode, n)
                if key not in res:
                    continue
                r = res[key]
                label = "%s, %s" % (labels[config], mode)
                if "failed" in r:
                    print("%-34s %2d  FAILED: %s" % (label, n, r["failed"]))
                    continue
                one = rates.get((config, mode, 1))
                ref = rates.get((reference, "aligned", n))
                print("%-34s %2d %10.1f %8s %11s %9.3f %9.3f %8.3f %9s" % (
                    label, n, rates[key],
                    "x%.2f" % (rates[key] / one) if one else "n/a",
                    "x%.2f" % (rates[key] / ref) if ref else "n/a",
                    r["wall_s"], r["slowest_s"], r["cpu_s"], r.get("requests", "")))
    print("  MB/s: bytes of the variable / wall time; x N=1: against one process of the same "
          "row writing the same bytes;")
    print("  * x aligned: against %s, aligned at the same N; slowest: the slowest writer's "
          "barrier-to-close;" % labels[reference])
    print("  CPU s: user + system time of the N writer processes, whole (making their values "
          "included), least of the runs")
    if lock_us:
        print("  the lock alone (ncz-writers-bench locks, uncontended lock + unlock of a chunk): "
              + ", ".join("%s %.2f us" % (labels[c], us) for c, us in lock_us.items()))
    for note in notes:
        print("  " + note)
    return rates


def ratio_line(rates, a, b):
    """'xR' of rates[a] / rates[b], or None."""
    if a in rates and b in rates and rates[b] > 0:
        return rates[a] / rates[b]
    return None
