#!/usr/bin/python3
# test_xarray.py: xarray's engine "ncz" (introspection/python/ncz/
# xarray_backend.py), printing TAP.
#
# The same stores are opened with engine="ncz" and with xarray's own
# engines, "netcdf4" (netCDF4-python) and "zarr" (zarr-python), and must
# give the same Dataset: variables, dimensions, coordinates, values
# (decoded: masked, unpacked, times, strings), attributes, and the
# encodings both engines report (dtype, _FillValue, scale_factor,
# add_offset, units and calendar of times, chunks / preferred_chunks).
# Stores: a netCDF-4 file written by netCDF4-python (strings, an
# unlimited dimension, a group, packed values, times), the same file read
# with #mode=bytes; NCZarr written by ncz-gen in each layout (keys,
# keys-upper, attributes) and pure Zarr, in a directory and in a zip
# archive; a Zarr store written by xarray (to_zarr, with a group); NCZarr
# written by Ncz.open("w") in each layout. Then what the engine itself
# promises: the entry point is registered, guess_can_open, lazy reads
# (only the chunks indexed are read: a damaged chunk is met only when
# indexed), outer indexing with any steps and index arrays, reads from
# many threads at once, chunks={} following the storage chunks, pickling.
#
#   test_xarray.py NCZ-GEN
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings

try:
    import numpy as np
    import xarray as xr
except ImportError:
    print("1..0 # SKIP numpy or xarray not installed")
    sys.exit(77)

try:
    import gi
    gi.require_version("Ncz", "1.0")
    from gi.repository import Ncz
    import ncz.xarray_backend  # noqa: F401
except (ImportError, ValueError) as e:
    print("1..0 # SKIP the Python layer is not importable: %s" % e)
    sys.exit(77)

try:
    import netCDF4
except ImportError:
    netCDF4 = None
try:
    import zarr
except ImportError:
    zarr = None

warnings.simplefilter("ignore", category=RuntimeWarning)

NCZ_GEN = sys.argv[1] if len(sys.argv) > 1 else shutil.which("ncz-gen")
TMP = tempfile.mkdtemp(prefix="ncz-test-xarray-")
n_tests = 0
failed = 0

# attributes the zarr engine shows on NCZarr stores and Ncz does not (the
# NCZarr metadata itself, in the "attributes" layout)
NCZARR_KEYS = ("_nczarr", "_NCZARR", "_NCProperties")


def ok(cond, name, detail=""):
    global n_tests, failed
    n_tests += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n_tests, name))
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:40]:
            print("# " + line)
    sys.stdout.flush()
    return cond


def skip(name, why):
    global n_tests
    n_tests += 1
    print("ok %d - %s # SKIP %s" % (n_tests, name, why))


def check(name, fn):
    """Runs @fn; its exception is a failure with the traceback shown."""
    try:
        r = fn()
    except Exception:
        return ok(False, name, traceback.format_exc())
    if isinstance(r, tuple):
        return ok(r[0], name, r[1])
    return ok(r is None or bool(r), name)


def strip_nczarr(ds):
    ds = ds.copy()
    ds.attrs = {k: v for k, v in ds.attrs.items() if not k.startswith(NCZARR_KEYS)}
    for v in ds.variables.values():
        v.attrs = {k: a for k, a in v.attrs.items() if not k.startswith(NCZARR_KEYS)}
    return ds


def same_values(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    if a.dtype.kind == "M" and b.dtype.kind == "M":
        return np.array_equal(a.astype("i8"), b.astype("i8"))
    return a.tolist() == b.tolist()


# netCDF's default fill values: a store written by Ncz or netcdf-c keeps
# them implicit (docs/fill-values.md), where zarr-python shows .zarray's
# fill_value, which xarray's zarr engine takes for a _FillValue
NC_DEFAULT_FILL = {"int8": -127, "uint8": 255, "int16": -32767, "uint16": 65535,
                   "int32": -2147483647, "uint32": 4294967295,
                   "int64": -9223372036854775806, "uint64": 18446744073709551614,
                   "float32": float(np.float32(9.9692099683868690e+36)),
                   "float64": 9.9692099683868690e+36}


def same_scalar(a, b):
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b


ENC_KEYS = ("dtype", "_FillValue", "scale_factor", "add_offset", "units", "calendar",
            "chunks", "preferred_chunks")


def encoding_view(v, engine):
    e = dict(v.encoding)
    if engine == "netcdf4" and e.get("chunksizes"):
        e["chunks"] = tuple(e["chunksizes"])
    out = {}
    for k in ENC_KEYS:
        if k in e:
            val = e[k]
            if k == "dtype":
                val = "str" if (val is str or np.dtype(val).kind in "OUS") else str(np.dtype(val))
            elif k == "_FillValue" and val is not None:
                val = float(val) if not isinstance(val, (str, bytes)) else val
            elif isinstance(val, (np.generic,)):
                val = val.item()
            out[k] = val
    return out


def compare(mine, theirs, engine, default_fill_implicit=False):
    """(same, detail) of two Datasets: values, attributes, dimensions,
    coordinates and the encodings both report. With
    @default_fill_implicit (a store Ncz or netcdf-c wrote, read by the zarr
    engine), a _FillValue that only @theirs has and that is netCDF's
    default fill of the type is no difference."""
    theirs = strip_nczarr(theirs)
    msgs = []
    if set(mine.variables) != set(theirs.variables):
        msgs.append("variables %s != %s" % (sorted(mine.variables), sorted(theirs.variables)))
    if set(mine.coords) != set(theirs.coords):
        msgs.append("coords %s != %s" % (sorted(mine.coords), sorted(theirs.coords)))
    if dict(mine.dims) != dict(theirs.dims):
        msgs.append("dims %s != %s" % (dict(mine.dims), dict(theirs.dims)))
    if not xr.core.utils.dict_equiv(mine.attrs, theirs.attrs):
        msgs.append("global attrs %r != %r" % (mine.attrs, theirs.attrs))
    for name in set(mine.variables) & set(theirs.variables):
        a, b = mine[name], theirs[name]
        if a.dims != b.dims:
            msgs.append("%s: dims %s != %s" % (name, a.dims, b.dims))
        elif not same_values(a.values, b.values):
            msgs.append("%s: values\n%r\n%r" % (name, a.values, b.values))
        if not xr.core.utils.dict_equiv(a.attrs, b.attrs):
            msgs.append("%s: attrs %r != %r" % (name, a.attrs, b.attrs))
        ea, eb = encoding_view(a, "ncz"), encoding_view(b, engine)
        for k in set(ea) & set(eb):
            if k == "dtype" and "str" in (ea[k], eb[k]):
                continue   # netCDF strings vs Zarr's <U, |S: the values are compared
            if not same_scalar(ea[k], eb[k]):
                msgs.append("%s: encoding %s %r != %r" % (name, k, ea[k], eb[k]))
        for k in ("units", "calendar", "_FillValue", "scale_factor", "add_offset"):
            if (k == "_FillValue" and default_fill_implicit and k not in ea and
                    same_scalar(eb[k], NC_DEFAULT_FILL.get(eb.get("dtype")))):
                continue
            if (k in ea) != (k in eb):
                msgs.append("%s: encoding %s only in one: %r %r" % (name, k, ea, eb))
    return not msgs, "\n".join(msgs)


def compare_open(name, ncz_url, other, engine, **kw):
    def run():
        with xr.open_dataset(ncz_url, engine="ncz", **kw) as a, \
                xr.open_dataset(other, engine=engine, **kw) as b:
            return compare(a, b, engine)
    return check(name, run)


# ---------------------------------------------------------------------------
# Stores

def write_netcdf4(path):
    with netCDF4.Dataset(path, "w") as nc:
        nc.title = "written by netCDF4-python"
        nc.setncattr("nums", np.array([1, 2, 3], dtype="i4"))
        nc.createDimension("time", None)
        nc.createDimension("x", 5)
        nc.createDimension("nchar", 4)
        t = nc.createVariable("time", "f8", ("time",))
        t.units = "hours since 2001-02-03 04:00:00"
        t.calendar = "proleptic_gregorian"
        t[:] = [0, 6, 12, 30]
        x = nc.createVariable("x", "i4", ("x",))
        x[:] = [10, 20, 30, 40, 50]
        v = nc.createVariable("temp", "f4", ("time", "x"), chunksizes=(2, 3),
                              fill_value=np.float32(-999), zlib=True)
        v.units = "K"
        vals = np.arange(20, dtype="f4").reshape(4, 5)
        vals[1, 2] = -999
        v[:] = vals
        p = nc.createVariable("packed", "i2", ("time", "x"), fill_value=np.int16(-1))
        p.scale_factor = 0.25
        p.add_offset = 100.0
        p.set_auto_maskandscale(False)
        raw = np.arange(20, dtype="i2").reshape(4, 5)
        raw[3, 4] = -1
        p[:] = raw
        s = nc.createVariable("label", str, ("x",))
        for i, word in enumerate(["a", "bc", "", "déf", "ghij"]):
            s[i] = word
        c = nc.createVariable("code", "S1", ("x", "nchar"))
        c[:] = netCDF4.stringtochar(np.array([b"ab", b"cde", b"", b"fghi", b"j"], dtype="S4"))
        g = nc.createGroup("g")
        g.createDimension("m", 3)
        g.note = "a subgroup"
        w = g.createVariable("w", "i8", ("x", "m"))
        w.long_name = "in g"
        w[:] = np.arange(15).reshape(5, 3)


CDL = """netcdf t {
dimensions:
	time = UNLIMITED ;
	x = 5 ;
	nchar = 3 ;
variables:
	double time(time) ;
		time:units = "days since 2000-01-01" ;
		time:calendar = "standard" ;
	int x(x) ;
	float temp(time, x) ;
		temp:_FillValue = -999.f ;
		temp:units = "K" ;
		temp:_ChunkSizes = 2, 3 ;
	short packed(time, x) ;
		packed:scale_factor = 0.5 ;
		packed:add_offset = 10. ;
		packed:_FillValue = -1s ;
		packed:_ChunkSizes = 3, 5 ;
	%(string)s
	char code(x, nchar) ;
	ubyte flags(x) ;

// global attributes:
		:title = "written by ncz-gen" ;
		:nums = 1, 2, 3 ;
data:
 time = 0, 1, 2.5 ;
 x = 10, 20, 30, 40, 50 ;
 temp = 1, 2, _, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, _ ;
 packed = 0, 1, 2, 3, 4, 5, 6, -1, 8, 9, 10, 11, 12, 13, 14 ;
 %(string_data)s
 code = "ab", "cde", "f", "", "g" ;
 flags = 1, 2, 3, 4, 254 ;

group: g {
  dimensions:
  	m = 2 ;
  variables:
  	int w(x, m) ;
  		w:long_name = "in g" ;
  		w:_FillValue = -7 ;

  // group attributes:
  		:note = "a subgroup" ;
  data:
   w = 1, 2, 3, 4, 5, 6, 7, 8, 9, _ ;
  } // group g
}
"""


def cdl(with_string=True):
    return CDL % {"string": 'string label(x) ;' if with_string else "",
                  "string_data": 'label = "a", "bc", "", "d\u00e9f", "ghij" ;'
                  if with_string else ""}


def ncz_gen(url, text):
    r = subprocess.run([NCZ_GEN, "-o", url, "-"], input=text, capture_output=True,
                       text=True, timeout=120)
    return r.returncode == 0, r.stderr


def expected_ncz_gen(ds):
    """(same, detail): the values of the CDL above, decoded by xarray."""
    msgs = []
    want_time = np.array(["2000-01-01T00", "2000-01-02T00", "2000-01-03T12"],
                         dtype="datetime64[ns]")
    if not same_values(ds["time"].values, want_time):
        msgs.append("time %r" % ds["time"].values)
    t = np.arange(1, 16, dtype="f4").reshape(3, 5)
    t[0, 2] = np.nan
    t[2, 4] = np.nan
    if not same_values(ds["temp"].values, t):
        msgs.append("temp %r" % ds["temp"].values)
    p = np.arange(15, dtype="f4").reshape(3, 5) * 0.5 + 10
    p[1, 2] = np.nan
    if not same_values(ds["packed"].values, p):
        msgs.append("packed %r" % ds["packed"].values)
    if "label" in ds and ds["label"].values.tolist() != ["a", "bc", "", "d\u00e9f", "ghij"]:
        msgs.append("label %r" % ds["label"].values)
    codes = [c.decode() if isinstance(c, bytes) else c for c in ds["code"].values.tolist()]
    if ds["code"].dims == ("x", "nchar"):
        # pure Zarr has no char type: Ncz reads the |S1 array as strings of
        # one character, which xarray does not join
        codes = ["".join(row) for row in codes]
    if codes != ["ab", "cde", "f", "", "g"]:
        msgs.append("code %r" % ds["code"].values)
    if ds["temp"].attrs.get("units") != "K" or ds["temp"].encoding.get("_FillValue") != -999:
        msgs.append("temp attrs %r encoding %r" % (ds["temp"].attrs, ds["temp"].encoding))
    if ds.attrs.get("title") != "written by ncz-gen":
        msgs.append("attrs %r" % ds.attrs)
    return not msgs, "\n".join(msgs)


def expected_group(ds):
    w = np.arange(1, 11, dtype="f8").reshape(5, 2)
    w[4, 1] = np.nan
    good = (same_values(ds["w"].values, w) and ds["w"].attrs.get("long_name") == "in g"
            and ds.attrs.get("note") == "a subgroup" and ds["w"].dims == ("x", "m"))
    return good, repr(ds)


# ---------------------------------------------------------------------------

def test_registration():
    from importlib.metadata import entry_points
    eps = [e for e in entry_points(group="xarray.backends") if e.name == "ncz"]
    ok(len(eps) == 1 and eps[0].value == "ncz.xarray_backend:NczBackendEntrypoint",
       "the xarray.backends entry point 'ncz' is registered", repr(eps))
    engines = xr.backends.list_engines()
    ok("ncz" in engines, "xarray lists the engine 'ncz'", repr(list(engines)))
    be = engines.get("ncz")
    if be is None:
        return
    ok(be.description and "url" in dir(be) and
       {"filename_or_obj", "group", "mask_and_scale", "decode_times", "drop_variables"}
       <= set(be.open_dataset_parameters),
       "the engine has a description, a url and its open_dataset parameters",
       repr(be.open_dataset_parameters))
    yes = ["/d/x.zarr", "/d/x.nc", "/d/x.zip", "s3://b/k", "/d/x#mode=nczarr,file",
           "file:///d/f.nc#mode=bytes", "https://h/b/k#mode=zarr,s3"]
    no = ["/d/x.txt", "/d/x.grib", b"CDF"]
    ok(all(be.guess_can_open(u) for u in yes) and not any(be.guess_can_open(u) for u in no),
       "guess_can_open: #mode= URLs, .zarr, .nc, .zip and s3:// only",
       "%r %r" % ([be.guess_can_open(u) for u in yes], [be.guess_can_open(u) for u in no]))


def test_netcdf4():
    if netCDF4 is None:
        skip("netCDF-4 file written by netCDF4-python", "netCDF4 not installed")
        return
    path = os.path.join(TMP, "nc4py.nc")
    write_netcdf4(path)
    compare_open("netCDF4-python file: engine ncz == engine netcdf4", path, path, "netcdf4")
    compare_open("netCDF4-python file, group='g': engine ncz == engine netcdf4",
                 path, path, "netcdf4", group="g")
    compare_open("netCDF4-python file, not decoded: engine ncz == engine netcdf4",
                 path, path, "netcdf4", decode_cf=False)
    compare_open("#mode=bytes of the netCDF-4 file == engine netcdf4",
                 "file://" + path + "#mode=bytes", path, "netcdf4")
    compare_open("#mode=bytes, group='g' == engine netcdf4",
                 "file://" + path + "#mode=bytes", path, "netcdf4", group="g")

    def unlimited():
        with xr.open_dataset(path, engine="ncz") as ds:
            return ds.encoding.get("unlimited_dims") == {"time"}, repr(ds.encoding)
    check("the unlimited dimension is in the Dataset's encoding", unlimited)


def test_ncz_gen():
    if not NCZ_GEN or not os.path.exists(NCZ_GEN):
        skip("stores written by ncz-gen", "ncz-gen not found")
        return
    # netCDF-4 written by ncz-gen
    nc = os.path.join(TMP, "gen.nc")
    good, err = ncz_gen(nc, cdl())
    if ok(good, "ncz-gen writes a netCDF-4 file", err):
        compare_open("ncz-gen netCDF-4 file: engine ncz == engine netcdf4", nc, nc, "netcdf4")
        check("ncz-gen netCDF-4 file: the values of the CDL",
              lambda: expected_ncz_gen(xr.open_dataset(nc, engine="ncz")))
    for layout in ("keys", "keys-upper", "attributes", "zarr"):
        d = os.path.join(TMP, "gen-" + layout)
        mode = "zarr" if layout == "zarr" else "nczarr"
        frag = "#mode=%s,file" % mode + ("" if layout == "zarr" else "&layout=" + layout)
        # zarr-python 2.13 reads the fixed-width strings of NCZarr as bytes,
        # and xarray's zarr engine masks an empty char row (fill_value ""):
        # the string and char variables are checked against the CDL only
        good, err = ncz_gen("file://" + d + frag, cdl())
        if not ok(good, "ncz-gen writes layout %s" % layout, err):
            continue
        url = "file://%s#mode=%s,file" % (d, mode)
        check("layout %s: the values of the CDL" % layout,
              lambda: expected_ncz_gen(xr.open_dataset(url, engine="ncz")))
        check("layout %s, group='g': the values of the CDL" % layout,
              lambda: expected_group(xr.open_dataset(url, engine="ncz", group="g")))
        if zarr is not None:
            mine = xr.open_dataset(url, engine="ncz", drop_variables=["label", "code"])
            theirs = xr.open_dataset(d, engine="zarr", drop_variables=["label", "code"])
            check("layout %s: engine ncz == engine zarr" % layout,
                  lambda: compare(mine, theirs, "zarr", True))
            check("layout %s, group='g': engine ncz == engine zarr" % layout,
                  lambda: compare(xr.open_dataset(url, engine="ncz", group="g"),
                                  xr.open_dataset(d, engine="zarr", group="g"), "zarr", True))
    # a zip archive (the root layout, as zarr-python's ZipStore)
    z = os.path.join(TMP, "gen.zip")
    good, err = ncz_gen("file://" + z + "#mode=nczarr,zip", cdl())
    if ok(good, "ncz-gen writes a zip archive", err):
        check("zip: the values of the CDL",
              lambda: expected_ncz_gen(xr.open_dataset(z, engine="ncz")))
        check("zip, group='g': the values of the CDL",
              lambda: expected_group(xr.open_dataset(z, engine="ncz", group="g")))
        if zarr is not None:
            def zip_vs_zarr():
                zs = zarr.ZipStore(z, mode="r")
                try:
                    drop = ["label", "code"]
                    return compare(xr.open_dataset(z, engine="ncz", drop_variables=drop),
                                   xr.open_dataset(zs, engine="zarr", drop_variables=drop),
                                   "zarr", True)
                finally:
                    zs.close()
            check("zip: engine ncz == engine zarr on zarr.ZipStore", zip_vs_zarr)


def xarray_written():
    t = np.array(["2020-01-01T00", "2020-01-01T06", "2020-01-02T00", "2020-01-03T00"],
                 dtype="datetime64[ns]")
    temp = np.arange(24, dtype="f8").reshape(4, 6) / 4
    temp[1, 1] = np.nan
    ds = xr.Dataset(
        {"temp": (("time", "x"), temp, {"units": "K", "long_name": "temperature"}),
         "count": (("x",), np.array([1, 2, -9999, 4, 5, 6], dtype="i4")),
         "name": (("x",), np.array(["a", "bb", "", "dddd", "é", "f"], dtype="<U4")),
         "packed": (("time", "x"), temp.astype("f4"))},
        coords={"time": t, "x": np.arange(6) * 10},
        attrs={"title": "written by xarray", "version": 3})
    enc = {"temp": {"chunks": (2, 3), "_FillValue": -1e30},
           "count": {"_FillValue": -9999},
           "packed": {"dtype": "i2", "scale_factor": 0.01, "add_offset": 1.0,
                      "_FillValue": -32768, "chunks": (4, 2)},
           "time": {"units": "hours since 2020-01-01", "calendar": "gregorian"}}
    return ds, enc


def test_zarr_written_by_xarray():
    if zarr is None:
        skip("Zarr written by xarray", "zarr not installed")
        return
    d = os.path.join(TMP, "xr.zarr")
    ds, enc = xarray_written()
    ds.to_zarr(d, encoding=enc, consolidated=True)
    g = xr.Dataset({"w": (("y",), np.array([1.5, 2.5, np.nan]), {"note": "g"})})
    g.to_zarr(d, group="g", mode="a", consolidated=True)
    compare_open("xarray's Zarr store: engine ncz == engine zarr", d, d, "zarr")
    compare_open("xarray's Zarr store, group='g': engine ncz == engine zarr",
                 d, d, "zarr", group="g")
    compare_open("xarray's Zarr store, #mode=zarr URL, decode_cf=False",
                 "file://" + d + "#mode=zarr,file", d, "zarr", decode_cf=False)

    def dask_chunks():
        with xr.open_dataset(d, engine="ncz", chunks={}) as a, \
                xr.open_dataset(d, engine="zarr", chunks={}) as b:
            good = (a["temp"].chunks == b["temp"].chunks and a["packed"].chunks == b["packed"].chunks
                    and a["temp"].encoding["preferred_chunks"] == {"time": 2, "x": 3})
            return good and same_values(a["temp"].values, b["temp"].values), \
                "%r %r %r" % (a["temp"].chunks, b["temp"].chunks, a["temp"].encoding)
    check("chunks={}: dask chunks are the storage chunks, as engine zarr", dask_chunks)
    return d


def test_written_by_ncz():
    if not hasattr(Ncz, "open") or not callable(getattr(Ncz, "open")):
        skip("NCZarr written by Ncz.open('w')", "Ncz.open missing")
        return
    t = np.arange(12, dtype="f4").reshape(3, 4)
    t[1, 1] = -999
    for layout in ("keys", "keys-upper", "attributes", "zarr"):
        d = os.path.join(TMP, "w-" + layout)
        mode = "zarr" if layout == "zarr" else "nczarr"
        frag = "#mode=%s,file" % mode + ("" if layout == "zarr" else "&layout=" + layout)

        def write():
            with Ncz.open("file://" + d + frag, "w") as ds:
                ds.create_dimension("time", None)
                ds.create_dimension("x", 4)
                tv = ds.create_variable("time", "f8", ("time",))
                tv.attrs["units"] = "days since 1999-12-31"
                tv.attrs["calendar"] = "noleap"
                v = ds.create_variable("t", "f4", ("time", "x"), chunks=(2, 2),
                                       compression="zstd", fill_value=-999.0)
                v.attrs["units"] = "degC"
                v.attrs["scale_factor"] = np.float32(2.0)
                tv[0:3] = np.array([1.0, 2.0, 59.0])
                # raw values: xarray masks and unpacks them on reading
                v.set_auto_maskandscale(False)
                v[0:3, :] = t
                ds.attrs["title"] = "Ncz.open"
                g = ds.create_group("sub")
                g.create_dimension("y", 2)
                gv = g.create_variable("s", str, ("y",))
                gv[:] = np.array(["x", "yz"], dtype=object)
            return True
        if not check("Ncz.open('w') writes layout %s" % layout, write):
            continue
        url = "file://%s#mode=%s,file" % (d, mode)

        def read():
            ds = xr.open_dataset(url, engine="ncz")
            want = t * 2
            want[1, 1] = np.nan
            e = ds["time"].encoding
            good = (same_values(ds["t"].values, want) and ds["t"].attrs["units"] == "degC"
                    and e.get("units") == "days since 1999-12-31" and e.get("calendar") == "noleap"
                    and ds.encoding["unlimited_dims"] == ({"time"} if layout != "zarr" else set())
                    and ds["t"].encoding["chunks"] == (2, 2)
                    and ds["t"].encoding["_FillValue"] == -999
                    and str(ds["time"].values[2]).startswith("2000-02-28"))
            g = xr.open_dataset(url, engine="ncz", group="sub")
            good = good and g["s"].values.tolist() == ["x", "yz"]
            return good, "%r\n%r\n%r" % (ds, ds["time"].values, g)
        check("layout %s written by Ncz.open: values, attributes, encodings" % layout, read)
        if zarr is not None:
            check("layout %s written by Ncz.open: engine ncz == engine zarr" % layout,
                  lambda: compare(xr.open_dataset(url, engine="ncz"),
                                  xr.open_dataset(d, engine="zarr"), "zarr", True))


def test_lazy_and_indexing(d):
    """Reads only what is indexed, outer indexing, threads, pickling."""
    if d is None:
        return
    lazy = os.path.join(TMP, "lazy.zarr")
    arr = np.arange(8 * 10, dtype="f8").reshape(8, 10)
    xr.Dataset({"v": (("a", "b"), arr)}).to_zarr(
        lazy, encoding={"v": {"chunks": (4, 5)}}, consolidated=True)
    ds = xr.open_dataset(lazy, engine="ncz")
    # damage one chunk after the open: only reads that touch it meet it
    with open(os.path.join(lazy, "v", "1.1"), "wb") as f:
        f.write(b"not a chunk")
    ok(same_values(ds["v"][:4, :].values, arr[:4, :]) and
       same_values(ds["v"][4:, :5].values, arr[4:, :5]),
       "lazy: reads away from a damaged chunk succeed after the open")
    try:
        ds["v"][5, 7].values
        ok(False, "lazy: a read of the damaged chunk fails")
    except Exception as e:
        ok(True, "lazy: a read of the damaged chunk fails (%s)" % type(e).__name__)
    ds.close()

    ds = xr.open_dataset(d, engine="ncz")
    ref = xr.open_dataset(d, engine="zarr").load()
    cases = {
        "ints": dict(time=1, x=-1),
        "slices with steps": dict(time=slice(None, None, 2), x=slice(1, 6, 2)),
        "negative steps": dict(time=slice(None, None, -1), x=slice(5, 0, -2)),
        "index arrays": dict(time=[3, 0, 2], x=[0, 0, 5, 1]),
        "regular index arrays": dict(x=[1, 3, 5]),
        "empty": dict(x=slice(3, 3)),
        "vectorized": dict(time=xr.DataArray([0, 3], dims="k"), x=xr.DataArray([5, 1], dims="k")),
    }
    for label, sel in cases.items():
        for name in ("temp", "packed", "name"):
            a = ds[name].isel({k: v for k, v in sel.items() if k in ds[name].dims})
            b = ref[name].isel({k: v for k, v in sel.items() if k in ref[name].dims})
            ok(same_values(a.values, b.values), "indexing %s of %s" % (label, name),
               "%r\n%r" % (a.values, b.values))

    def threads():
        import dask
        c = xr.open_dataset(d, engine="ncz", chunks={"time": 1, "x": 1})
        with dask.config.set(scheduler="threads", num_workers=8):
            s = float(c["temp"].sum().compute())
            m = c["packed"].mean("time").compute()
        return (np.isclose(s, float(ref["temp"].sum())) and
                same_values(m.values, ref["packed"].mean("time").values)), "%r" % s
    check("24 one-element chunks read by 8 threads at once", threads)

    def pickled():
        lazy_ds = xr.open_dataset(d, engine="ncz")
        back = pickle.loads(pickle.dumps(lazy_ds))
        lazy_ds.close()
        return compare(back.load(), ref, "zarr")
    check("a lazy Dataset pickles, and loads after the original is closed", pickled)

    def reopened():
        x = xr.open_dataset(d, engine="ncz")
        x.close()
        return same_values(x["temp"].values, ref["temp"].values)
    check("a closed Dataset's arrays reopen the store when read", reopened)

    def errors():
        try:
            xr.open_dataset(os.path.join(TMP, "missing.zarr"), engine="ncz")
            return False, "no error"
        except Exception as e:
            return ("missing.zarr" in str(e)), repr(e)
    check("opening a missing store raises an error naming it", errors)

    def bad_group():
        try:
            xr.open_dataset(d, engine="ncz", group="nope")
            return False, "no error"
        except Exception as e:
            return "nope" in str(e), repr(e)
    check("group= of a missing group raises an error naming it", bad_group)


def main():
    try:
        test_registration()
        test_netcdf4()
        test_ncz_gen()
        d = test_zarr_written_by_xarray()
        test_written_by_ncz()
        test_lazy_and_indexing(d)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("1..%d" % n_tests)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
