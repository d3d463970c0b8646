#!/usr/bin/python3
# test_dask.py: Ncz under dask.distributed with worker processes, printing
# TAP. One LocalCluster (2 worker processes, 1 thread each) for the
# whole script:
#  - read: xr.open_dataset(url, engine="ncz", chunks={}) of an NCZarr
#    store and of a pure Zarr store written by ncz-gen, then reductions
#    (sum, mean over a dimension, a masked and unpacked variable, a
#    group) computed on the workers, equal to the values of the CDL;
#  - write: dask.array.store() of a chunked array into an Ncz variable
#    (the target pickles as URL + path and reopens in each worker with
#    Ncz.OpenFlags.WRITE_DATA), with dask chunks equal to the storage
#    chunks and with dask chunks that split storage chunks between
#    workers; every value read back, by Ncz and by engine "ncz".
#
#   test_dask.py NCZ-GEN
#
# tests/s3/test-s3-dask.py runs the same cases on S3 (run_cases below).
#
# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import io
import logging
import re
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond:
            self.failed += 1
            for line in str(detail).splitlines()[:40]:
                print("# " + line)
        sys.stdout.flush()
        return cond

    def check(self, name, fn):
        try:
            r = fn()
        except Exception:
            return self.ok(False, name, traceback.format_exc())
        if isinstance(r, tuple):
            return self.ok(r[0], name, r[1])
        return self.ok(bool(r), name)

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def requirements():
    """None, or why the tests cannot run."""
    try:
        import numpy  # noqa: F401
        import xarray  # noqa: F401
        import dask.array  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:
        return "numpy, xarray, dask or distributed missing: %s" % e
    try:
        import gi
        gi.require_version("Ncz", "1.0")
        from gi.repository import Ncz  # noqa: F401
        import ncz.xarray_backend  # noqa: F401
    except (ImportError, ValueError) as e:
        return "the Python layer is not importable: %s" % e
    return None


def start_cluster():
    """One cluster for the script: 2 worker processes, 1 thread each, no
    dashboard, distributed's logging quiet."""
    from distributed import Client, LocalCluster
    for name in ("distributed", "distributed.worker", "distributed.scheduler",
                 "distributed.nanny", "distributed.core", "distributed.comm",
                 "distributed.utils_perf", "tornado"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    return cluster, Client(cluster)


# The data, in CDL (written by ncz-gen) and as numpy: T x Y x X floats with
# two missing values, packed shorts, a group.
T, Y, X = 6, 8, 10
CDL = """netcdf d {
dimensions:
	time = UNLIMITED ;
	y = %(Y)d ;
	x = %(X)d ;
variables:
	double time(time) ;
		time:units = "hours since 2000-01-01" ;
	float temp(time, y, x) ;
		temp:_FillValue = -999.f ;
		temp:_ChunkSizes = 2, 4, 5 ;
		temp:_Filter = "32015,1" ;
	short packed(time, y, x) ;
		packed:scale_factor = 0.5 ;
		packed:add_offset = 100. ;
		packed:_FillValue = -1s ;
		packed:_ChunkSizes = 3, 8, 5 ;
	float target(time, y, x) ;
		target:_FillValue = -9999.f ;
		target:_ChunkSizes = 2, 4, 5 ;
data:
 time = %(time)s ;
 temp = %(temp)s ;
 packed = %(packed)s ;

group: g {
  variables:
  	int w(y, x) ;
  		w:_ChunkSizes = 4, 5 ;
  data:
   w = %(w)s ;
  } // group g
}
"""


def arrays():
    import numpy as np
    temp = (np.arange(T * Y * X, dtype="f4").reshape(T, Y, X) % 97) / 4
    temp[1, 2, 3] = np.nan
    temp[5, 7, 9] = np.nan
    packed = (np.arange(T * Y * X, dtype="i2").reshape(T, Y, X) % 300)
    packed[0, 0, 0] = -1
    w = np.arange(Y * X, dtype="i4").reshape(Y, X) - 20
    return temp, packed, w


def cdl_text():
    import numpy as np
    temp, packed, w = arrays()

    def fmt(a):
        return ", ".join("_" if (isinstance(v, float) and v != v) else repr(v)
                         for v in a.ravel().tolist())
    return CDL % {"Y": Y, "X": X, "time": ", ".join(str(i) for i in range(T)),
                  "temp": fmt(np.where(np.isnan(temp), np.nan, temp).astype("f8")),
                  "packed": fmt(packed), "w": fmt(w)}


def write_store(ncz_gen, url):
    r = subprocess.run([ncz_gen, "-o", url, "-"], input=cdl_text(), capture_output=True,
                       text=True, timeout=300)
    return r.returncode == 0, r.stderr


def close_reopened():
    """Run in each worker: closes the datasets that unpickled Ncz objects
    opened there (what a worker wrote is stored for good)."""
    from gi.repository import Ncz
    f = getattr(Ncz, "close_reopened", None)
    if f is not None:
        f()


def run_cases(tap, client, ncz_gen, make_url, where):
    """The read and write cases on the store of @where: make_url(name, mode)
    gives the URL of a new dataset there (mode "nczarr" or "zarr")."""
    import numpy as np
    import xarray as xr
    import dask.array as da
    from gi.repository import Ncz

    temp, packed, w = arrays()
    unpacked = np.where(packed == -1, np.nan, packed * 0.5 + 100)

    for mode in ("nczarr", "zarr"):
        url = make_url("read-" + mode, mode)
        good, err = write_store(ncz_gen, url)
        if not tap.ok(good, "%s: ncz-gen writes the %s store" % (where, mode), err):
            continue

        def reductions():
            ds = xr.open_dataset(url, engine="ncz", chunks={})
            msgs = []
            if ds["temp"].chunks != ((2, 2, 2), (4, 4), (5, 5)):
                msgs.append("temp chunks %r" % (ds["temp"].chunks,))
            s = ds["temp"].sum().compute()
            if not np.isclose(float(s), float(np.nansum(temp)), rtol=1e-6):
                msgs.append("sum %r != %r" % (float(s), float(np.nansum(temp))))
            m = ds["temp"].mean("time").compute()
            if not np.allclose(m.values, np.nanmean(temp, axis=0), equal_nan=True):
                msgs.append("mean over time differs")
            mx = ds["packed"].max(("y", "x")).compute()
            if not np.allclose(mx.values, np.nanmax(unpacked, axis=(1, 2))):
                msgs.append("packed max %r" % mx.values)
            n = int(ds["packed"].count().compute())
            if n != T * Y * X - 1:
                msgs.append("count %d" % n)
            ds.close()
            g = xr.open_dataset(url, engine="ncz", group="g", chunks={})
            if int(g["w"].sum().compute()) != int(w.sum()):
                msgs.append("group sum %r" % int(g["w"].sum().compute()))
            g.close()
            return not msgs, "\n".join(msgs)
        tap.check("%s, %s: reductions computed on 2 worker processes equal numpy's"
                  % (where, mode), reductions)

    def workers_read():
        seen = client.run(lambda: "ncz.xarray_backend" in sys.modules)
        return len(seen) == 2 and any(seen.values()), repr(seen)
    tap.check("%s: the reads ran in the worker processes" % where, workers_read)

    # dask.array.store into an Ncz variable, from the workers
    url = make_url("store", "nczarr")
    good, err = write_store(ncz_gen, url)
    if not tap.ok(good, "%s: ncz-gen writes the target store" % where, err):
        return
    src = (np.arange(T * Y * X, dtype="f4").reshape(T, Y, X) * 1.5 - 7)
    for label, chunks in (("storage chunks", (2, 4, 5)), ("split chunks", (3, 3, 4))):
        def store():
            want = src + (1000 if label == "split chunks" else 0)
            darr = da.from_array(want, chunks=chunks)
            ds = Ncz.open(url, "a")
            try:
                da.store(darr, ds["target"], lock=False, compute=True)
            finally:
                ds.close()
            # the workers close the datasets their unpickled targets opened
            client.run(close_reopened)
            with Ncz.open(url, "r") as back:
                got = back["target"].get(mask_and_scale=False)
            x = xr.open_dataset(url, engine="ncz")["target"].values
            return (np.array_equal(np.asarray(got), want) and np.array_equal(x, want),
                    "%r\n%r" % (np.asarray(got)[0, :2], want[0, :2]))
        tap.check("%s: dask.array.store from 2 worker processes, %s %r, every value read "
                  "back" % (where, label, chunks), store)


def doc_examples(tap, client, tmp):
    """The xarray and Dask examples of docs/python.md, run as written but
    for their URLs (in @tmp) and the Client (the script's cluster)."""
    import numpy as np
    import ncz
    root = os.environ.get("NCZ_SOURCE_ROOT",
                          os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    with open(os.path.join(root, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    blocks = dict(re.findall(r"<!-- test: ([\w-]+) -->\n```python\n(.*?)```", text, re.S))
    if not tap.ok(set(blocks) >= {"xarray", "dask-read", "dask-write"},
                  "docs/python.md has its xarray, dask-read and dask-write examples",
                  sorted(blocks)):
        return
    tas = np.arange(2 * 3 * 4, dtype="f4").reshape(2, 3, 4)
    tas[0, 0, 0] = 1e20
    tas_url = "file://%s/doc-tas.zarr#mode=nczarr,file" % tmp
    with ncz.open(tas_url, "w") as ds:
        for name, n in zip(("time", "lat", "lon"), tas.shape):
            ds.create_dimension(name, n)
        ds.create_variable("tas", "f4", ("time", "lat", "lon"), fill_value=1e20)[...] = tas
    want = float(np.mean(tas.ravel()[1:]))

    def run(name, extra=None):
        code = blocks[name].replace("file:///data/tas.zarr", "file://%s/doc-tas.zarr" % tmp)
        code = code.replace("file:///data/out.zarr", "file://%s/doc-out.zarr" % tmp)
        code = re.sub(r"(?m)^client = Client\(.*\)$", "client = _client", code)
        env = {"_client": client, "client": client, "__name__": "__doc__"}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/python.md:" + name, "exec"), env)
        return out.getvalue(), env

    def xarray_example():
        out, _ = run("xarray")
        return np.isclose(float(out), want), out
    tap.check("docs/python.md: the xarray example prints the masked mean", xarray_example)

    def dask_read():
        out, _ = run("dask-read")
        return np.isclose(float(out), want), out
    tap.check("docs/python.md: the Dask reading example prints it from the workers", dask_read)

    def dask_write():
        _, env = run("dask-write")
        want_out = env["src"].compute()
        with ncz.open(env["url"]) as ds:
            got = ds["tas"].get(mask_and_scale=False)
        return np.array_equal(got, want_out), "%r" % (got[0, 0, :3],)
    tap.check("docs/python.md: the Dask writing example stores every value", dask_write)


def main():
    tap = Tap()
    why = requirements()
    if why:
        print("1..0 # SKIP " + why)
        return 77
    ncz_gen = sys.argv[1] if len(sys.argv) > 1 else shutil.which("ncz-gen")
    if not ncz_gen:
        print("1..0 # SKIP ncz-gen not given")
        return 77
    tmp = tempfile.mkdtemp(prefix="ncz-test-dask-")
    cluster = client = None
    try:
        cluster, client = start_cluster()

        def make_url(name, mode):
            return "file://%s/%s#mode=%s,file" % (tmp, name, mode)
        run_cases(tap, client, ncz_gen, make_url, "file store")
        doc_examples(tap, client, tmp)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
