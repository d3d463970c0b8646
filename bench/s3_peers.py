#!/usr/bin/python3
# s3_peers.py: the peers of the S3 bench cases, each printing one JSON line.
#
#   s3_peers.py gdal --bucket=B --key=K [--var=data] [--check=none|zstd]
#       GDAL's Zarr driver (Debian python3-gdal) opens /vsis3/B/K as a
#       multidimensional dataset and reads the variable whole; timed from
#       the open to the end of the read.
#   s3_peers.py boto3 --bucket=B --prefix=P --threads=N
#       the transfer ceiling: every object under P whose name does not
#       start with '.' (the chunks) fetched by whole-object GETs from a
#       pool of N threads in this one process (Debian python3-boto3,
#       SigV4, one client with N pooled connections); the listing is not
#       timed.
#
# The server is the one tests/s3/radosgw-run started: NCZ_TEST_S3_ENDPOINT,
# NCZ_TEST_S3_ACCESS_KEY, NCZ_TEST_S3_SECRET_KEY.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ENDPOINT = os.environ["NCZ_TEST_S3_ENDPOINT"]
ACCESS = os.environ["NCZ_TEST_S3_ACCESS_KEY"]
SECRET = os.environ["NCZ_TEST_S3_SECRET_KEY"]


def arg(name, default=None):
    for a in sys.argv[2:]:
        if a.startswith(f"--{name}="):
            return a.split("=", 1)[1]
    if default is None:
        sys.exit(f"s3_peers.py: --{name}= is needed")
    return default


def peak_rss_kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def gdal_read():
    os.environ.update({
        "AWS_S3_ENDPOINT": ENDPOINT.split("://", 1)[1],
        "AWS_HTTPS": "NO",
        "AWS_VIRTUAL_HOSTING": "FALSE",
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-east-1",
    })
    from osgeo import gdal
    gdal.UseExceptions()
    bucket, key, var = arg("bucket"), arg("key"), arg("var", "data")
    t0 = time.monotonic()
    ds = gdal.OpenEx(f'ZARR:"/vsis3/{bucket}/{key}"', gdal.OF_MULTIDIM_RASTER)
    arr = ds.GetRootGroup().OpenMDArray(var)
    data = arr.ReadAsArray()
    dt = time.monotonic() - t0
    if arg("check", "none") == "none":
        # the values of the data case: bench_value (bench-common.h)
        import numpy as np
        i = np.arange(data.size, dtype=np.int64)
        want = (i % 1000003).astype(np.float32) * np.float32(0.5) - np.float32(7.0)
        if not np.array_equal(data.reshape(-1), want):
            sys.exit("s3_peers.py: GDAL read other values than ncz-s3-bench wrote")
    print(json.dumps({"tool": "gdal", "case": "read", "key": key, "bytes": int(data.nbytes),
                      "shape": list(data.shape), "read_s": dt,
                      "gdal": gdal.__version__, "peak_rss_kib": peak_rss_kib()}))


def boto3_ceiling():
    import boto3
    from botocore.config import Config
    bucket, prefix, threads = arg("bucket"), arg("prefix"), int(arg("threads"))
    client = boto3.session.Session().client(
        "s3", endpoint_url=ENDPOINT, region_name="us-east-1",
        aws_access_key_id=ACCESS, aws_secret_access_key=SECRET,
        config=Config(signature_version="s3v4", max_pool_connections=max(threads, 1),
                      s3={"addressing_style": "path"}))
    keys = []
    token = None
    while True:
        kw = {"Bucket": bucket, "Prefix": prefix}
        if token:
            kw["ContinuationToken"] = token
        r = client.list_objects_v2(**kw)
        keys += [o["Key"] for o in r.get("Contents", [])
                 if not o["Key"].rsplit("/", 1)[-1].startswith(".")]
        if not r.get("IsTruncated"):
            break
        token = r["NextContinuationToken"]
    if not keys:
        sys.exit(f"s3_peers.py: no objects under s3://{bucket}/{prefix}")

    def get(key):
        return len(client.get_object(Bucket=bucket, Key=key)["Body"].read())

    # one warm-up GET per connection is not timed: connections are opened
    # as the pool grows, as a long-running reader's would be already
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(get, keys[:threads]))
        t0 = time.monotonic()
        total = sum(pool.map(get, keys))
        dt = time.monotonic() - t0
    print(json.dumps({"tool": "boto3", "case": "get", "threads": threads, "objects": len(keys),
                      "bytes": total, "read_s": dt, "peak_rss_kib": peak_rss_kib()}))


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "gdal":
        gdal_read()
    elif what == "boto3":
        boto3_ceiling()
    else:
        sys.exit("usage: s3_peers.py {gdal|boto3} ...")
