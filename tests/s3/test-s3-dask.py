#!/usr/bin/python3
# test-s3-dask.py: the cases of tests/python/test_dask.py on S3 (the
# gateway radosgw-run started), printing TAP: xr.open_dataset(url,
# engine="ncz", chunks={}) of NCZarr and pure Zarr stores in a bucket,
# reductions computed on 2 dask.distributed worker processes, and
# dask.array.store() into an Ncz variable on S3 from the workers, every
# value read back. The workers inherit the test's environment: the AWS
# files of run-s3-tests.py and the Python layer's PYTHONPATH.
#
#   test-s3-dask.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import s3common as s3  # noqa: E402
import test_dask  # noqa: E402

s3.require_server()
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP no s3 store module (storage-drivers/s3 not built)")
    sys.exit(77)
why = test_dask.requirements()
if why:
    print("1..0 # SKIP " + why)
    sys.exit(77)
NCZ_GEN = sys.argv[3]


def main():
    tap = test_dask.Tap()
    client = s3.boto3_client()
    bucket = s3.create_bucket(client, s3.unique_bucket("dask"))
    cluster = dclient = None
    try:
        cluster, dclient = test_dask.start_cluster()

        def make_url(name, mode):
            return s3.s3_url(bucket, name, mode)
        test_dask.run_cases(tap, dclient, NCZ_GEN, make_url, "S3")
    finally:
        if dclient is not None:
            dclient.close()
        if cluster is not None:
            cluster.close()
        s3.remove_bucket(client, bucket)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
