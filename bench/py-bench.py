#!/usr/bin/python3
# py-bench.py: the data case of ncz-bench.c through the Python layer
#
# Usage: py-bench.py data --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
#
# The same work as `ncz-bench data`: a 3-D float32 variable of
# bench_value(i) written whole, uncompressed, to
# file://DIR/ncz-py.zarr#mode=nczarr,file with `var[...] = array`,
# closed, reopened and read whole. Reads are timed three ways:
# "read_s", read_into() a preallocated array as ncz-bench reads into its
# buffer; "read_get_s", var.get(mask_and_scale=False), which allocates
# the array it returns; "read_masked_s", var[...], masked as
# netCDF4-python does (for reference). The source array is allocated
# without transparent huge pages, as ncz-bench's g_malloc() buffer is:
# numpy asks for them (madvise) on large arrays, and a write from such an
# array measured x0.3 to x0.6 of C here, from a plain one x0.94 to x1.09
# (bench/README.md). Needs PYTHONPATH, GI_TYPELIB_PATH
# and LD_LIBRARY_PATH to reach the build (run.py sets them). Prints one
# JSON line with the times and the peak RSS.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import resource
import sys
import time

import numpy as np

import ncz
from gi.repository import Ncz  # noqa: F401 - the typelib and override load here, untimed


def arg(name, default):
    for a in sys.argv[1:]:
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return default


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "data":
        print("usage: py-bench.py data --dir=DIR [--shape=a,b,c] [--chunks=a,b,c] [--warm=yes]",
              file=sys.stderr)
        return 2
    shape = tuple(int(x) for x in arg("--shape", "128,512,512").split(","))
    chunks = tuple(int(x) for x in arg("--chunks", "32,128,128").split(","))
    d = arg("--dir", None)
    if d is None or len(shape) != 3 or len(chunks) != 3:
        print("py-bench.py: --dir, and 3 sizes in --shape and --chunks", file=sys.stderr)
        return 2
    os.makedirs(d, exist_ok=True)
    url = "file://%s/ncz-py.zarr#mode=nczarr,file" % os.path.abspath(d)
    total = shape[0] * shape[1] * shape[2]
    # bench_value(i) of bench-common.h, in float32 arithmetic, made a
    # block at a time (the peak RSS is the array's, as ncz-bench's)
    # the source array as ncz-bench's g_malloc() makes it: without
    # transparent huge pages (numpy asks for them on large arrays)
    thp = np.core.multiarray._set_madvise_hugepage(False)
    data = np.empty(total, dtype=np.float32)
    np.core.multiarray._set_madvise_hugepage(thp)
    block = 1 << 20
    for i in range(0, total, block):
        part = data[i:i + block]
        np.remainder(np.arange(i, i + part.size, dtype=np.int64), 1000003, out=part,
                     casting="unsafe")
        part *= np.float32(0.5)
        part -= np.float32(7.0)
    del part
    data = data.reshape(shape)
    check = data.ravel()[::997].copy()

    if arg("--warm", "no") == "yes":
        # as ncz-bench --warm=yes: modules loaded (and here the bindings'
        # methods resolved) before the timed part
        with ncz.open("file://%s/warm.zarr#mode=nczarr,file" % os.path.abspath(d), "w") as ds:
            ds.create_dimension("x", 1)
            ds.create_variable("v", "f4", ("x",))

    t0 = time.perf_counter()
    with ncz.open(url, "w") as ds:
        for name, n in zip(("z", "y", "x"), shape):
            ds.create_dimension(name, n)
        var = ds.create_variable("data", "f4", ("z", "y", "x"), chunks=chunks)
        var[...] = data
    t_write = time.perf_counter() - t0

    data[...] = 0
    t0 = time.perf_counter()
    with ncz.open(url) as ds:
        ds["data"].read_into(data, (0, 0, 0), shape)
    t_read = time.perf_counter() - t0
    if not np.array_equal(data.ravel()[::997], check):
        print("py-bench.py: read_into read back different values", file=sys.stderr)
        return 1

    del data
    t0 = time.perf_counter()
    with ncz.open(url) as ds:
        got = ds["data"].get(mask_and_scale=False)
    t_get = time.perf_counter() - t0
    ok = np.array_equal(got.ravel()[::997], check)
    del got
    t0 = time.perf_counter()
    with ncz.open(url) as ds:
        got = ds["data"][...]
    t_masked = time.perf_counter() - t0
    ok = ok and np.array_equal(np.asarray(got).ravel()[::997], check)
    del got
    if not ok:
        print("py-bench.py: get() read back different values", file=sys.stderr)
        return 1
    print(json.dumps({"tool": "ncz-python", "case": "data", "bytes": total * 4,
                      "write_s": t_write, "read_s": t_read, "read_get_s": t_get,
                      "read_masked_s": t_masked,
                      "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
