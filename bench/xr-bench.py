#!/usr/bin/python3
# xr-bench.py: xarray's engine "ncz" against xarray's own engines on the
# same data, printing one JSON line of times (seconds, best of --repeat):
#
#   load_ncz_zarr / load_zarr:    xr.open_dataset(store, engine=E).load()
#                                 of one Zarr store written by zarr-python
#   load_ncz_nc4 / load_netcdf4:  the same of one netCDF-4 file written by
#                                 netCDF4-python (chunked as the store)
#   dask_ncz / dask_zarr:         xr.open_dataset(store, engine=E,
#                                 chunks=C)["v"].sum().compute() on a
#                                 dask.distributed LocalCluster of 2 worker
#                                 processes, 1 thread each (started once);
#                                 C: --dask-chunks, by default whole T-slabs
#                                 of one storage chunk's T (16 MiB tasks at
#                                 full size, as Dask advises tasks of many
#                                 MB), "storage" for chunks={} (one task per
#                                 storage chunk: the scheduler's cost)
#
#   xr-bench.py --dir=DIR [--shape=T,Y,X] [--chunks=T,Y,X] [--codec=none|zstd]
#               [--fill=none|nan] [--dask-chunks=T,Y,X|storage] [--repeat=N]
#               [--no-dask]
#
# The data: a float32 field, smooth plus noise (bench_smooth_fill's spirit:
# it compresses as real data does), with no _FillValue (--fill=nan gives it
# xarray's default NaN fill; xarray then makes one more pass over the
# values to mask them, the same for every engine). --codec=zstd compresses the Zarr store
# with zstd level 1 and the netCDF-4 file with deflate level 1 (netCDF4-
# python 1.6.2 on Debian's netcdf-c has no zstd filter).
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import logging
import os
import sys
import time
import warnings


def opt(name, default=None):
    for a in sys.argv[1:]:
        if a == name:
            return True
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return default


def field(shape):
    import numpy as np
    rng = np.random.default_rng(7)
    t, y, x = (np.arange(n, dtype="f4") for n in shape)
    v = (np.sin(t[:, None, None] / 7) + np.cos(y[None, :, None] / 19) *
         np.sin(x[None, None, :] / 23)) * 10
    return (v + rng.normal(0, 0.01, shape).astype("f4")).astype("f4")


def write_stores(d, shape, chunks, codec, fill):
    import netCDF4
    import numpy as np
    import xarray as xr
    import zarr
    from numcodecs import Zstd
    v = field(shape)
    store = os.path.join(d, "bench.zarr")
    comp = Zstd(level=1) if codec == "zstd" else None
    ds = xr.Dataset({"v": (("t", "y", "x"), v)})
    ds["v"].encoding["_FillValue"] = np.nan if fill == "nan" else None
    ds.to_zarr(store, encoding={"v": {"chunks": chunks, "compressor": comp}},
               consolidated=True)
    nc = os.path.join(d, "bench.nc")
    with netCDF4.Dataset(nc, "w") as f:
        for name, n in zip(("t", "y", "x"), shape):
            f.createDimension(name, n)
        kw = {"zlib": True, "complevel": 1} if codec == "zstd" else {}
        var = f.createVariable("v", "f4", ("t", "y", "x"), chunksizes=chunks,
                               fill_value=np.float32(np.nan) if fill == "nan" else False, **kw)
        var[:] = v
    assert zarr is not None and np is not None
    return store, nc, float(v.astype("f8").sum())


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    d = opt("--dir")
    if not d or d is True:
        print("usage: xr-bench.py --dir=DIR [...]", file=sys.stderr)
        return 2
    os.makedirs(d, exist_ok=True)
    shape = tuple(int(s) for s in opt("--shape", "64,256,256").split(","))
    chunks = tuple(int(s) for s in opt("--chunks", "16,128,128").split(","))
    codec = opt("--codec", "none")
    repeat = int(opt("--repeat", "3"))
    warnings.simplefilter("ignore")
    import numpy as np
    import xarray as xr
    fill = opt("--fill", "none")
    dask_chunks = opt("--dask-chunks", "")
    if dask_chunks == "storage":
        dchunks = {}
    elif dask_chunks:
        dchunks = dict(zip(("t", "y", "x"), (int(c) for c in dask_chunks.split(","))))
    else:
        dchunks = {"t": chunks[0], "y": shape[1], "x": shape[2]}
    store, nc, total = write_stores(d, shape, chunks, codec, fill)
    nbytes = int(np.prod(shape)) * 4
    res = {"shape": list(shape), "chunks": list(chunks), "codec": codec, "bytes": nbytes,
           "fill": fill, "dask_chunks": dchunks}

    def load(path, engine):
        def run():
            with xr.open_dataset(path, engine=engine) as ds:
                ds.load()
        return run
    # one untimed open of each warms the page cache and the imports
    for path, engine in ((store, "ncz"), (store, "zarr"), (nc, "ncz"), (nc, "netcdf4")):
        load(path, engine)()
    # interleaved rounds: a slow spell of the machine falls on both sides
    keys = (("load_ncz_zarr", store, "ncz"), ("load_zarr", store, "zarr"),
            ("load_ncz_nc4", nc, "ncz"), ("load_netcdf4", nc, "netcdf4"))
    for k, _, _ in keys:
        res[k] = float("inf")
    for _ in range(repeat):
        for k, path, engine in keys:
            res[k] = min(res[k], best(load(path, engine), 1))

    if not opt("--no-dask", False):
        from distributed import Client, LocalCluster
        logging.getLogger("distributed").setLevel(logging.ERROR)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            def reduce(engine):
                def run():
                    with xr.open_dataset(store, engine=engine, chunks=dchunks) as ds:
                        s = float(ds["v"].sum().compute())
                    if not np.isclose(s, total, rtol=1e-4):
                        raise RuntimeError("%s: sum %r, not %r" % (engine, s, total))
                return run
            for engine in ("ncz", "zarr"):
                reduce(engine)()
            res["dask_ncz"] = res["dask_zarr"] = float("inf")
            for _ in range(repeat):
                for k, engine in (("dask_ncz", "ncz"), ("dask_zarr", "zarr")):
                    res[k] = min(res[k], best(reduce(engine), 1))
            # the same sum of values made (allocated and filled) on the
            # workers, reading nothing:
            # what the scheduler and the workers cost, paid by both engines
            import dask.array as da
            tchunks = tuple(dchunks.get(n, c) for n, c in zip(("t", "y", "x"), chunks))
            def made_on_workers():
                a = da.zeros(shape, chunks=tchunks, dtype="f4").map_blocks(
                    lambda blk: np.ones(blk.shape, blk.dtype), dtype="f4")
                return float(a.sum().compute())
            made_on_workers()
            res["dask_baseline"] = best(made_on_workers, repeat)
            res["dask_workers"] = len(client.scheduler_info()["workers"])
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
