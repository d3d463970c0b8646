#!/usr/bin/python3
# netCDF-4 files in S3 read with ranged requests (#mode=bytes), printing TAP:
#  - files `ncgen -4` writes from the corpus's CDL (groups, strings,
#    unlimited dimensions, deflate) and one of a few MiB, uploaded with
#    boto3: `ncz-dump -h` and `ncz-dump` of
#    `s3://BUCKET/dir/F.nc#mode=bytes&endpoint=...` and of the path-style
#    `http://HOST:PORT/BUCKET/dir/F.nc#mode=bytes` (signed with the
#    credentials of the test's AWS files) equal the local dump;
#  - an object readable by anyone, read with `aws.profile=none`
#    (unsigned); a private one refused that way (403);
#  - a missing key, a truncated object: an error naming the URL and the
#    key, exit status 1, no crash;
#  - the requests of `ncz-dump -h` seen through a logging proxy (and
#    counted by the gateway): printed, and bounded (a HEAD and one GET of
#    a 64 KiB block for a small file), with the HDF5 reads the driver made.
#
#   test-s3-vfd.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3common as s3  # noqa: E402
from s3proxy import FaultProxy  # noqa: E402

s3.require_server()
NCZ_DUMP = sys.argv[1]
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP no s3 store module (storage-drivers/s3 not built)")
    sys.exit(77)
NCGEN = os.environ.get("NCGEN") or shutil.which("ncgen")
if not NCGEN:
    print("1..0 # SKIP ncgen is not installed (netcdf-bin)")
    sys.exit(77)
CORPUS = os.path.join(os.environ.get("NCZ_CORPUS_DIR", ""), "netcdf-c")
TMP = tempfile.mkdtemp(prefix="ncz-s3-vfd-")
ENV = s3.clean_env()
T = s3.Tap()
BLOCK = 64 * 1024
CDL_CASES = ["v4.9.3/ref_groups_regular.cdl", "generated/gen490/t.cdl",
             "v4.9.3/ref_fillonly.cdl", "generated/gen490/types.cdl"]


def run(args, env=None, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, errors="replace",
                          env=env or ENV, timeout=timeout)


def body(text):
    # the first line names the dataset after its location
    return text.split("\n", 1)[1] if "\n" in text else text


def same_dump(path, url, opts, label):
    a = run([NCZ_DUMP] + opts + [path])
    b = run([NCZ_DUMP] + opts + [url])
    diff = "".join(line + "\n" for line in difflib.unified_diff(
        body(a.stdout).splitlines(), body(b.stdout).splitlines(), lineterm=""))
    return T.ok(a.returncode == 0 and b.returncode == 0 and body(a.stdout) == body(b.stdout),
                f"ncz-dump {' '.join(opts)} {label} equals the local dump",
                f"{path}: exit {a.returncode}: {a.stderr}\n{url}: exit {b.returncode}: "
                f"{b.stderr}\n{diff[:3000]}")


def fails(url, label, want=()):
    r = run([NCZ_DUMP, "-h", url])
    return T.ok(r.returncode == 1 and url in r.stderr and "HDF5-DIAG" not in r.stderr
                and all(w in r.stderr for w in want),
                f"{label}: an error naming the URL, exit 1",
                f"exit {r.returncode}\nstderr: {r.stderr}")


def big_cdl(path):
    n = 300000
    lines = ["netcdf big {", "dimensions:", f"  n = {n} ;", "variables:",
             "  double a(n) ;", "    a:_Storage = \"contiguous\" ;",
             "  int b(n) ;", "    b:_ChunkSizes = 40000 ;", "    b:_DeflateLevel = 1 ;",
             "  :title = \"big\" ;", "data:",
             "  a = " + ", ".join(str(i * 0.25) for i in range(n)) + " ;",
             "  b = " + ", ".join(str((i * 7919) % 100003) for i in range(n)) + " ;"]
    for g in range(3):
        lines += [f"group: g{g} {{", "  variables:", f"    short s{g}(n) ;",
                  f"      s{g}:units = \"g{g}\" ;", "  }"]
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def make_files():
    files = []
    for rel in CDL_CASES:
        out = os.path.join(TMP, os.path.splitext(os.path.basename(rel))[0] + ".nc")
        r = run([NCGEN, "-4", "-o", out, os.path.join(CORPUS, rel)])
        if T.ok(r.returncode == 0, f"ncgen -4 {rel}", r.stderr):
            files.append(out)
    cdl = os.path.join(TMP, "big.cdl")
    big_cdl(cdl)
    out = os.path.join(TMP, "big.nc")
    r = run([NCGEN, "-4", "-o", out, cdl])
    if T.ok(r.returncode == 0, "ncgen -4 of a file of a few MiB", r.stderr):
        files.append(out)
    return files


def perf():
    p = s3.rgw_perf() or {}
    return p.get("req", 0), p.get("get", 0)


def request_counts(bucket, files):
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    via = f"http://127.0.0.1:{proxy.port}"
    env = dict(ENV, G_MESSAGES_DEBUG="Ncz-hdf5")
    try:
        for path in files:
            name = os.path.basename(path)
            size = os.path.getsize(path)
            url = f"{via}/{bucket}/dir/{name}#mode=bytes"
            proxy.clear_log()
            req0, _ = perf()
            r = run([NCZ_DUMP, "-h", url], env=env)
            req1, _ = perf()
            log = proxy.requests()
            # the driver's count (a debug message, on stdout)
            m = re.search(r"(\d+) HDF5 reads, (\d+) store requests", r.stdout)
            hdf5_reads = int(m.group(1)) if m else -1
            driver_requests = int(m.group(2)) if m else -1
            if not T.ok(r.returncode == 0 and m is not None,
                        f"{name}: ncz-dump -h through the proxy", r.stderr):
                continue
            T.note(f"ncz-dump -h of {name} ({size} bytes) on S3: {len(log)} requests "
                   f"({hdf5_reads} HDF5 reads): " + ", ".join(f"{m_} {t}" for m_, t, _ in log))
            heads = [t for m_, t, _ in log if m_ == "HEAD"]
            gets = [t for m_, t, _ in log if m_ == "GET"]
            T.ok(len(heads) == 1 and len(heads) + len(gets) == len(log),
                 f"{name}: one HEAD for the length, GETs for the rest", log)
            T.ok(driver_requests == len(log), f"{name}: the driver counted the requests the "
                 "proxy saw", f"driver {driver_requests}, proxy {len(log)}")
            if req1 or req0:
                T.ok(req1 - req0 == len(log),
                     f"{name}: the gateway counted the requests the proxy saw",
                     f"gateway {req1 - req0}, proxy {len(log)}")
            if size <= BLOCK:
                T.ok(len(gets) == 1, f"{name}: a file of one block is read with one GET",
                     gets)
            else:
                T.ok(len(gets) <= 8, f"{name}: the metadata of a file of {size} bytes is "
                     "read in a few GETs", gets)
            T.ok(hdf5_reads >= 3 * len(gets),
                 f"{name}: the block cache serves HDF5's small reads",
                 f"{hdf5_reads} HDF5 reads, {len(gets)} GETs")
    finally:
        proxy.stop()


def main():
    client = s3.boto3_client()
    bucket = s3.unique_bucket("vfd")
    s3.create_bucket(client, bucket)
    try:
        files = make_files()
        for path in files:
            client.upload_file(path, bucket, "dir/" + os.path.basename(path))
        for path in files:
            name = os.path.basename(path)
            urls = [(f"s3://{bucket}/dir/{name}#mode=bytes&endpoint={s3.ENDPOINT}",
                     f"s3://BUCKET/dir/{name}#mode=bytes&endpoint=..."),
                    (f"{s3.ENDPOINT}/{bucket}/dir/{name}#mode=bytes",
                     f"http://HOST:PORT/BUCKET/dir/{name}#mode=bytes")]
            for url, label in urls:
                for opts in (["-h"], []):
                    same_dump(path, url, opts, label)
            same_dump(path, f"{s3.ENDPOINT}/{bucket}/dir#mode=bytes&key={name}", ["-s"],
                      f"http://HOST:PORT/BUCKET/dir#mode=bytes&key={name}")

        # anonymous: a public object reads unsigned, a private one does not
        if files:
            path = files[0]
            name = os.path.basename(path)
            # at the root of the bucket: the store is the whole bucket
            client.upload_file(path, bucket, name)
            same_dump(path, f"s3://{bucket}/{name}#mode=bytes&endpoint={s3.ENDPOINT}", [],
                      f"s3://BUCKET/{name}#mode=bytes&endpoint=...")
            client.upload_file(path, bucket, "public/" + name,
                               ExtraArgs={"ACL": "public-read"})
            same_dump(path, f"{s3.ENDPOINT}/{bucket}/public/{name}#mode=bytes&aws.profile=none",
                      [], "of a public object, unsigned (aws.profile=none)")
            fails(f"{s3.ENDPOINT}/{bucket}/dir/{name}#mode=bytes&aws.profile=none",
                  "a private object read unsigned", [name, "403"])
            fails(f"{s3.ENDPOINT}/{bucket}/dir/missing.nc#mode=bytes", "a missing key",
                  ["missing.nc", "404"])
            data = open(path, "rb").read()
            for length in (0, 100, len(data) // 2, len(data) - 1):
                key = f"cut/{length}.nc"
                client.put_object(Bucket=bucket, Key=key, Body=data[:length])
                fails(f"{s3.ENDPOINT}/{bucket}/{key}#mode=bytes",
                      f"an object truncated to {length} of {len(data)} bytes", [f"{length}.nc"])

        request_counts(bucket, files)
    finally:
        s3.remove_bucket(client, bucket)
        shutil.rmtree(TMP, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
