#!/usr/bin/python3
# zarr-bench.py: the benchmark cases with zarr-python 2 (the peer)
#
# Usage: zarr-bench.py data --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
#                      [--codec=none|zstd|blosc-lz4|zlib]
#        zarr-bench.py meta --dir=DIR [--meta=20,20,10] [--consolidated] [--open-only]
#
# Same cases as nc-bench.c and ncz-bench.c: the data case writes the same
# float32 values (bench_value in bench-common.h) uncompressed with
# z[...] = data and reads them back with z[...]; with --codec, the values
# of the codec cases (bench_smooth_fill) compressed with numcodecs Zstd
# level 1, Blosc lz4 clevel 5 byte shuffle, or Zlib level 1. The meta case creates G
# groups of V arrays with A attributes each, then opens and lists all of
# it. With --consolidated, creating ends with zarr.consolidate_metadata
# (.zmetadata) and the store is opened with zarr.open_consolidated, so
# listing and attributes come from .zmetadata alone. --open-only skips
# creating: it opens and lists what an earlier run left in DIR (to count
# the store operations of an open alone, e.g. under strace). Prints one
# JSON line with the times and the peak RSS.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import math
import os
import resource
import shutil
import sys
import time


def arg(name, default):
    for a in sys.argv[2:]:
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return default


def sizes(text):
    return tuple(int(x) for x in text.split(","))


def values(total):
    import numpy as np
    i = np.arange(total, dtype=np.int64)
    return ((i % 1000003).astype(np.float32) * np.float32(0.5) - np.float32(7.0)).astype("<f4")


def lround(v):
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def smooth_values(shape):
    """bench_smooth_fill of bench-common.h, bit for bit."""
    import numpy as np
    nz, ny, nx = shape

    def wave(n, period):
        return np.array([lround(10000.0 * math.sin(2.0 * math.pi * (i % period) / period))
                         for i in range(n)], dtype=np.int64)
    wx, wy, wz = wave(nx, 512), wave(ny, 384), wave(nz, 96)
    plane = 2 * wx[None, :] + 3 * wy[:, None]
    out = np.empty(shape, dtype="<f4")
    for z in range(nz):
        i = np.arange(z * ny * nx, (z + 1) * ny * nx, dtype=np.uint64).reshape(ny, nx)
        h = (i * np.uint64(2654435761)) & np.uint64(0xffffffff)
        noise = ((h >> np.uint64(16)) % np.uint64(201)).astype(np.int64) - 100
        out[z] = (2800000 + plane + wz[z] + noise).astype(np.float32) * np.float32(1e-4)
    return out


def compressor(name):
    import numcodecs
    if name == "none":
        return None
    if name == "zstd":
        return numcodecs.Zstd(level=1)
    if name == "blosc-lz4":
        return numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
    if name == "zlib":
        return numcodecs.Zlib(level=1)
    raise ValueError("unknown codec " + name)


def stored_bytes(path):
    """Bytes of the chunk objects (every file but the metadata)."""
    n = 0
    for d, _, files in os.walk(path):
        for f in files:
            if not f.startswith("."):
                n += os.path.getsize(os.path.join(d, f))
    return n


def peak_rss_kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_data(d):
    import numpy as np
    import zarr
    shape = sizes(arg("--shape", "128,512,512"))
    chunks = sizes(arg("--chunks", "32,128,128"))
    codec = arg("--codec", "none")
    total = int(np.prod(shape))
    data = values(total).reshape(shape) if codec == "none" else smooth_values(shape)
    path = os.path.join(d, "zarr-data.zarr")
    shutil.rmtree(path, ignore_errors=True)

    t0 = time.perf_counter()
    z = zarr.open_array(zarr.DirectoryStore(path), mode="w", shape=shape, chunks=chunks,
                        dtype="<f4", compressor=compressor(codec), fill_value=0)
    z[...] = data
    t_write = time.perf_counter() - t0
    stored = stored_bytes(path)

    t0 = time.perf_counter()
    z = zarr.open_array(zarr.DirectoryStore(path), mode="r")
    back = z[...]
    t_read = time.perf_counter() - t0
    if not np.array_equal(back, data):
        print("zarr-bench: read back different values", file=sys.stderr)
        return 1
    print(json.dumps({"tool": "zarr-python", "case": "data", "codec": codec,
                      "bytes": total * 4, "stored_bytes": stored,
                      "write_s": t_write, "read_s": t_read,
                      "peak_rss_kib": peak_rss_kib()}))
    return 0


def run_meta(d):
    import zarr
    g_n, v_n, a_n = sizes(arg("--meta", "20,20,10"))
    consolidated = "--consolidated" in sys.argv[2:]
    open_only = "--open-only" in sys.argv[2:]
    path = os.path.join(d, "zarr-cmeta.zarr" if consolidated else "zarr-meta.zarr")

    t_create = 0.0
    if not open_only:
        shutil.rmtree(path, ignore_errors=True)
        t0 = time.perf_counter()
        root = zarr.group(zarr.DirectoryStore(path), overwrite=True)
        for g in range(g_n):
            grp = root.create_group("group%d" % g)
            for v in range(v_n):
                z = grp.create_dataset("var%d" % v, shape=(10,), chunks=(10,), dtype="<f8",
                                       compressor=None)
                attrs = {}
                for a in range(a_n):
                    attrs["attr%d" % a] = "some text." if a % 2 else float(g * 1000 + v * 10 + a)
                attrs["_ARRAY_DIMENSIONS"] = ["n"]
                z.attrs.put(attrs)
        if consolidated:
            zarr.consolidate_metadata(zarr.DirectoryStore(path))
        t_create = time.perf_counter() - t0

    t0 = time.perf_counter()
    if consolidated:
        root = zarr.open_consolidated(zarr.DirectoryStore(path), mode="r")
    else:
        root = zarr.open_group(zarr.DirectoryStore(path), mode="r")
    n_groups = n_vars = n_attrs = 0
    for _, grp in root.groups():
        n_groups += 1
        for _, z in grp.arrays():
            n_vars += 1
            _ = (z.dtype, z.shape, z.chunks)
            n_attrs += len([k for k in z.attrs.asdict() if k != "_ARRAY_DIMENSIONS"])
    t_open = time.perf_counter() - t0
    out = {"tool": "zarr-python", "case": "meta-consolidated" if consolidated else "meta"}
    if consolidated:
        out["consolidated"] = True
    out.update({"groups": n_groups, "variables": n_vars, "attributes": n_attrs,
                "create_s": t_create, "open_s": t_open, "peak_rss_kib": peak_rss_kib()})
    print(json.dumps(out))
    return 0


def main():
    d = arg("--dir", None)
    if len(sys.argv) < 2 or d is None:
        print("usage: zarr-bench.py {data|meta} --dir=DIR [options]", file=sys.stderr)
        return 2
    os.makedirs(d, exist_ok=True)
    if sys.argv[1] == "data":
        return run_data(d)
    if sys.argv[1] == "meta":
        return run_meta(d)
    print("zarr-bench.py: unknown case " + sys.argv[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
