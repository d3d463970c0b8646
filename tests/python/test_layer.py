#!/usr/bin/python3
"""The Python layer (docs/python.md): gi/overrides/Ncz.py and ncz._native.

Modes and the context manager, indexing against numpy, masking and
unpacking against netCDF4-python, writes against zarr-python, attrs,
create_variable's codecs, exceptions, pickling, asyncio, threads, the
zero-copy reads and the README's Python example. TAP output."""
import asyncio
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import threading
import tracemalloc

import numpy as np

import ncz
from gi.repository import GLib, Ncz

n = 0
failures = 0


def check(name, cond, detail=""):
    global n, failures
    n += 1
    print(("ok" if cond else "not ok"), n, name)
    if not cond:
        failures += 1
        if detail:
            print("# " + str(detail).replace("\n", "\n# "))


def raises(name, exc, fn):
    try:
        fn()
    except exc as e:
        check(name, True)
        return e
    except BaseException as e:  # noqa: B902 - reported as the failure
        check(name, False, "raised %r" % (e,))
        return None
    check(name, False, "raised nothing")
    return None


tmp = tempfile.mkdtemp(prefix="ncz-pylayer-")
rng = np.random.default_rng(1234)


def url_of(name, mode="nczarr"):
    return "file://%s/%s#mode=%s,file" % (tmp, name, mode)


# --- modes and the context manager ---------------------------------------
u = url_of("modes.zarr")
with Ncz.open(u, "w") as ds:
    check("open('w') gives an Ncz.Dataset", isinstance(ds, Ncz.Dataset) and ds.mode == "w")
    ds.create_dimension("x", 4)
    ds.create_variable("v", "i4", ("x",))[...] = [1, 2, 3, 4]
check("the dataset is closed after the with block", ds._ncz_closed)
with Ncz.open(u) as ds:
    check("mode r reads what w wrote", list(ds["v"][...]) == [1, 2, 3, 4] and ds.url == u)
    raises("a write in mode r raises Ncz.ReadOnlyError", Ncz.ReadOnlyError,
           lambda: ds["v"].__setitem__(0, 5))


def failing_replace():
    with Ncz.open(u, "w") as ds:
        ds.create_dimension("x", 2)
        ds.create_variable("v", "i4", ("x",))[...] = [9, 9]
        raise RuntimeError("stop")


raises("an exception in a 'w' block propagates", RuntimeError, failing_replace)
with Ncz.open(u) as ds:
    check("an exception in 'w' discards: the old dataset stays",
          list(ds["v"][...]) == [1, 2, 3, 4])
raises("mode x on an existing dataset raises Ncz.ExistsError", Ncz.ExistsError,
       lambda: Ncz.open(u, "x"))
for mode in ("a", "r+"):
    with Ncz.open(u, mode) as ds:
        ds["v"][1] = 20 if mode == "a" else 21
with Ncz.open(u) as ds:
    check("modes a and r+ write in place", list(ds["v"][...]) == [1, 21, 3, 4])
with Ncz.open(url_of("new.zarr"), "x") as ds:
    ds.attrs["title"] = "x"
with Ncz.open(url_of("new.zarr")) as ds:
    check("mode x creates", ds.attrs["title"] == "x")
raises("an unknown mode raises ValueError", ValueError, lambda: Ncz.open(u, "q"))
raises("a missing dataset raises Ncz.NotFoundError", Ncz.NotFoundError,
       lambda: Ncz.open(url_of("missing.zarr")))

# --- indexing against numpy ------------------------------------------------
u = url_of("index.zarr")
full3 = rng.standard_normal((5, 6, 7))
full1 = rng.integers(-1000, 1000, 11).astype("i2")
strings = np.array([["a", "bb", "ccc"], ["", "ddddd", "é"]], dtype=object)
with Ncz.open(u, "w") as ds:
    for name, size in (("t", 5), ("y", 6), ("x", 7), ("n", 11), ("p", 2), ("q", 3)):
        ds.create_dimension(name, size)
    ds.create_variable("d3", "f8", ("t", "y", "x"), chunks=(2, 3, 4))[...] = full3
    ds.create_variable("d1", "i2", ("n",), chunks=(4,))[...] = full1
    ds.create_variable("s", str, ("p", "q"))[...] = strings
    ds.create_variable("z", "f4", ())[...] = 2.5
keys3 = [Ellipsis, 0, -1, (1, 2), (1, 2, 3), (-1, -2, -3), slice(None, None, 2),
         (slice(1, 5, 3), Ellipsis, slice(None, None, 2)), (Ellipsis, 3), (2, Ellipsis),
         (slice(None), slice(1, None, 2), 4), (slice(4, 0, -2), 1), slice(3, 3),
         (slice(None, None, -1), slice(None, None, -3), slice(5, None, -1)),
         (slice(-3, None), slice(None, -2), slice(2, 100))]
keys1 = [Ellipsis, 3, -1, slice(None, None, 3), slice(-4, None), slice(10, 2, -2), slice(0, 0)]
with Ncz.open(u, mask_and_scale=False) as ds:
    v3, v1, s, z = ds["d3"], ds["d1"], ds["s"], ds["z"]
    check("shape, dtype, dims, ndim, size, len",
          v3.shape == (5, 6, 7) and v3.dtype == np.float64 and v3.dims == ("t", "y", "x")
          and v3.ndim == 3 and v3.size == 210 and len(v3) == 5 and v3.chunks == (2, 3, 4))
    for key in keys3:
        got, want = v3[key], full3[key]
        check("3-D var%r equals numpy" % (key,),
              np.shape(got) == np.shape(want) and np.array_equal(got, want),
              "%r vs %r" % (got, want))
    for key in keys1:
        got, want = v1[key], full1[key]
        check("1-D var%r equals numpy" % (key,),
              np.shape(got) == np.shape(want) and np.array_equal(got, want)
              and np.asarray(got).dtype == np.int16)
    check("an integer index gives a scalar", np.isscalar(v1[4]) and v1[4] == full1[4])
    check("0-d var[...] and var[()]",
          z.shape == () and z[...].shape == () and z[...] == 2.5 and z[()] == 2.5
          and z.dtype == np.float32)
    for key in (Ellipsis, 1, (1, slice(None, None, 2)), (slice(None), -1), (0, 1)):
        got, want = s[key], strings[key]
        check("string var%r equals numpy" % (key,),
              np.shape(got) == np.shape(want) and np.array_equal(got, want)
              and s.dtype == np.dtype(object))
    raises("an index out of bounds raises IndexError", IndexError, lambda: v1[11])
    raises("too many indices raise IndexError", IndexError, lambda: v1[1, 2])
    raises("two ellipses raise IndexError", IndexError, lambda: v3[..., 1, ...])

# --- orthogonal indexing with integer and boolean arrays ------------------
def orthogonal(arr, key):
    """numpy's result of @key taken one dimension at a time, as
    netCDF4-python indexes (each array selects along its own dimension)."""
    key = tuple(key) + (slice(None),) * (arr.ndim - len(key))
    axis = 0
    for k in key:
        if isinstance(k, (int, np.integer)):
            arr = np.take(arr, k, axis=axis)
            continue
        if not isinstance(k, slice):
            k = np.asarray(k)
            k = np.nonzero(k)[0] if k.dtype == bool else k.astype(int)
        arr = arr[(slice(None),) * axis + (k,)]
        axis += 1
    return arr


okeys = [([0, 2, 4],), ([4, 1, 3], slice(None), [-1, 0]), (slice(None), [1, 3, 5], 2),
         (np.array([True, False, True, False, True]),), ([4],), ([],),
         (slice(None, None, -1), [2, 2, 0]), (1, [5, 0], [6, 1, 3]),
         (slice(1, 4), np.array([5, 3, 1]), [0, 6])]
with Ncz.open(u, mask_and_scale=False) as ds:
    v3 = ds["d3"]
    for key in okeys:
        got, want = v3[key], orthogonal(full3, key)
        check("3-D var%r selects as orthogonal indexing" % (key,),
              np.shape(got) == np.shape(want) and np.array_equal(got, want),
              "%r vs %r" % (np.shape(got), np.shape(want)))
    raises("a boolean index of the wrong length raises IndexError", IndexError,
           lambda: v3[np.array([True, False])])
    raises("a float index array raises IndexError", IndexError, lambda: v3[[0.5, 1.5]])
    raises("an index array out of bounds raises IndexError", IndexError, lambda: v3[[0, 5]])
ou = url_of("orthogonal.zarr")
with Ncz.open(ou, "w") as ds:
    for name, size in (("t", 5), ("y", 6), ("x", 7)):
        ds.create_dimension(name, size)
    ds.create_variable("d3", "f8", ("t", "y", "x"), chunks=(2, 3, 4))[...] = full3
want = full3.copy()
patch = rng.standard_normal((3, 6, 2))
want[np.ix_([4, 0, 2], range(6), [6, 1])] = patch
with Ncz.open(ou, "a", mask_and_scale=False) as ds:
    ds["d3"][[4, 0, 2], :, [6, 1]] = patch
    ds["d3"][[1, 3], 2, ::3] = -1.0
want[np.ix_([1, 3], [2], range(0, 7, 3))] = -1.0
with Ncz.open(ou, mask_and_scale=False) as ds:
    got = ds["d3"][...]
    check("writes through index arrays change the selected elements and no others",
          np.array_equal(got, want), np.argwhere(got != want)[:5])

# --- masking and unpacking against netCDF4-python -------------------------
import netCDF4  # noqa: E402

nc_path = os.path.join(tmp, "mask.nc")
with netCDF4.Dataset(nc_path, "w") as nc:
    nc.createDimension("x", 8)
    cases = {}
    a = nc.createVariable("fill", "f4", ("x",), fill_value=-999)
    cases["fill"] = [-1000, -999, -998, 5, 1e37, 0, -999, 3]
    nc.createVariable("default_fill", "f8", ("x",))
    cases["default_fill"] = [1, 2, 9.969209968386869e36, 4, 5, 6, 7, 8]
    b = nc.createVariable("byte", "i1", ("x",))
    cases["byte"] = [-127, -128, 0, 1, 2, 127, -127, 3]
    c = nc.createVariable("missing", "i4", ("x",))
    c.missing_value = np.array([1, 2], dtype="i4")
    c.scale_factor = 0.5
    cases["missing"] = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5]
    e = nc.createVariable("packed", "i2", ("x",), fill_value=-32000)
    e.scale_factor = np.float32(0.5)
    e.add_offset = np.float32(1)
    e.valid_min = np.int16(-5)
    cases["packed"] = [-10, -5, 0, 1, 2, 3, 4, 5]
    f = nc.createVariable("range", "u2", ("x",))
    f.valid_range = np.array([10, 20], dtype="u2")
    cases["range"] = [5, 10, 15, 20, 25, 11, 12, 13]
    g = nc.createVariable("vmax", "f8", ("x",))
    g.valid_max = 3.0
    g.add_offset = 100.0
    cases["vmax"] = [1, 2, 3, 4, 5, 6, 0, -1]
    for name, values in cases.items():
        nc[name][:] = np.array(values)
    nc.createVariable("text", "S1", ("x",))[:] = np.array(list("abcdefgh"), dtype="S1")
with netCDF4.Dataset(nc_path) as nc, Ncz.open(nc_path) as ds:
    for name in list(cases) + ["text"]:
        want, got = nc[name][:], ds[name][...]
        same = (type(got) is type(want) and got.dtype == want.dtype
                and np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
                and np.ma.allequal(got, want))
        check("%s: masked and unpacked as netCDF4-python" % name, same,
              "ncz %r\nnetCDF4 %r" % (got, want))
        nc[name].set_auto_maskandscale(False)
        ds[name].set_auto_maskandscale(False)
        raw_nc, raw = nc[name][:], ds[name][...]
        check("%s: raw values as netCDF4-python" % name,
              type(raw) is np.ndarray and raw.dtype == raw_nc.dtype
              and np.array_equal(raw, np.asarray(raw_nc)))
    v = ds["packed"]
    v.set_auto_maskandscale(True)
    v.set_auto_scale(False)
    nc["packed"].set_auto_maskandscale(True)
    nc["packed"].set_auto_scale(False)
    check("set_auto_scale(False): masked but packed",
          np.array_equal(np.ma.getmaskarray(v[...]), np.ma.getmaskarray(nc["packed"][:]))
          and v[...].dtype == np.int16)
    check("get(mask_and_scale=False) is a plain array of the stored values",
          type(ds["packed"].get(mask_and_scale=False)) is np.ndarray)
    check("fill_value and attrs of a netCDF-4 file",
          ds["fill"].fill_value == np.float32(-999) and ds["packed"].attrs["valid_min"] == -5
          and ds["packed"].attrs["scale_factor"].dtype == np.float32)

# masks of arrays larger than the blocks the mask is computed in
values = rng.integers(0, 50, 700001).astype("i4")
with Ncz.open(url_of("bigmask.zarr"), "w") as ds:
    ds.create_dimension("x", values.size)
    v = ds.create_variable("v", "i4", ("x",), fill_value=7)
    v.attrs["missing_value"] = np.int32(9)
    v.attrs["valid_max"] = np.int32(45)
    v[...] = values
    got = v[...]
    want = np.ma.MaskedArray(values, mask=(values == 7) | (values == 9) | (values > 45))
    check("a large masked read masks what numpy masks",
          np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
          and np.ma.allequal(got, want))
    got = v[::-3]
    check("... and through a negative step",
          np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want[::-3])))

# writing through scale_factor/add_offset and a mask, read back by netCDF4
u = os.path.join(tmp, "pack.nc")
with Ncz.open(u, "w") as ds:
    ds.create_dimension("x", 5)
    v = ds.create_variable("p", "i2", ("x",), fill_value=-1)
    v.attrs["scale_factor"] = np.float32(0.1)
    v.attrs["add_offset"] = np.float32(10)
    v[...] = np.ma.MaskedArray([10.0, 10.5, 11.0, 0, 12.3], mask=[0, 0, 0, 1, 0])
with netCDF4.Dataset(u) as nc:
    got = nc["p"][:]
    nc["p"].set_auto_maskandscale(False)
    check("a masked array written packed reads back in netCDF4-python",
          list(np.ma.getmaskarray(got)) == [False, False, False, True, False]
          and np.allclose(got.compressed(), [10.0, 10.5, 11.0, 12.3], atol=0.05)
          and list(nc["p"][:]) == [0, 5, 10, -1, 23])

# --- writes against zarr-python -------------------------------------------
import zarr  # noqa: E402

zpath = os.path.join(tmp, "pure.zarr")
u = "file://%s#mode=zarr,file" % zpath
want = np.zeros((6, 8), dtype="i4")
with Ncz.open(u, "w") as ds:
    ds.create_dimension("y", 6)
    ds.create_dimension("x", 8)
    v = ds.create_variable("w", "i4", ("y", "x"), chunks=(4, 3), compression="zlib",
                           fill_value=0)
    block = rng.integers(-100, 100, (6, 8)).astype("i4")
    v[...] = block
    want[...] = block
    v[1:5:2, ::3] = [[1, 2, 3], [4, 5, 6]]
    want[1:5:2, ::3] = [[1, 2, 3], [4, 5, 6]]
    v[-1] = 7
    want[-1] = 7
    v[:, 5] = np.arange(6)
    want[:, 5] = np.arange(6)
    v[::-2, 1] = [10, 11, 12]
    want[::-2, 1] = [10, 11, 12]
    f = ds.create_variable("f", "f8", ("x",))
    f[...] = np.linspace(0, 1, 8)
za = zarr.open(zpath, mode="r")
check("var[...] = array reads back the same in zarr-python",
      np.array_equal(za["w"][...], want), "%r\n%r" % (za["w"][...], want))
check("float writes read back in zarr-python", np.array_equal(za["f"][...], np.linspace(0, 1, 8)))
with Ncz.open(u) as ds:
    check("and in Ncz", np.array_equal(ds["w"].get(mask_and_scale=False), want))

# writes past an unlimited dimension grow it
with Ncz.open(url_of("grow.zarr"), "w") as ds:
    ds.create_dimension("t", None)
    ds.create_dimension("x", 3)
    v = ds.create_variable("v", "i4", ("t", "x"), fill_value=-5)
    v[0:2] = np.ones((2, 3))
    v[4] = [7, 8, 9]
    got = v[...]
    check("writes past an unlimited dimension grow it, the gap masked as fill",
          v.shape == (5, 3) and ds.dimensions["t"].isunlimited()
          and list(np.ma.getmaskarray(got)[:, 0]) == [False, False, True, True, False]
          and got[4].tolist() == [7, 8, 9], got)

# --- attrs ----------------------------------------------------------------
u = url_of("attrs.zarr")
with Ncz.open(u, "w") as ds:
    ds.attrs["title"] = "Ünïcode title"
    ds.attrs["count"] = 3
    ds.attrs["ratio"] = np.float32(0.25)
    ds.attrs["levels"] = [1.5, 2.5, 3.5]
    ds.attrs["names"] = ["a", "bc"]
    ds.attrs["gone"] = 1
    del ds.attrs["gone"]
    ds.create_dimension("x", 1)
    v = ds.create_variable("v", "u1", ("x",))
    v.attrs.update({"units": "K", "flags": np.array([1, 2], dtype="u1")})
with Ncz.open(u) as ds:
    a = ds.attrs
    check("attrs: text round trip", a["title"] == "Ünïcode title")
    check("attrs: an int is a numpy int64 scalar", a["count"] == 3 and a["count"].dtype == np.int64)
    check("attrs: a float32 stays float32", a["ratio"].dtype == np.float32 and a["ratio"] == 0.25)
    check("attrs: a list of numbers is a 1-D array",
          isinstance(a["levels"], np.ndarray) and list(a["levels"]) == [1.5, 2.5, 3.5])
    check("attrs: a list of strings", a["names"] == ["a", "bc"])
    check("attrs: deleted, iterated, len",
          "gone" not in a and sorted(a) == ["count", "levels", "names", "ratio", "title"]
          and len(a) == 5)
    check("variable attrs", ds["v"].attrs["units"] == "K"
          and ds["v"].attrs["flags"].dtype == np.uint8)
    raises("a missing attribute raises KeyError", KeyError, lambda: a["nope"])

# --- create_variable: compression and codecs in .zarray -------------------
zpath = os.path.join(tmp, "codecs.zarr")
with Ncz.open("file://%s#mode=zarr,file" % zpath, "w") as ds:
    ds.create_dimension("x", 100)
    ds.create_variable("zstd", "f4", "x", chunks=(50,), compression="zstd", level=3)
    ds.create_variable("zlib", "i4", "x", compression="zlib", level=2, shuffle=True)
    ds.create_variable("blosc", "f8", "x", compression="blosc", shuffle=True)
    ds.create_variable("bz2", "u2", "x", compression="bzip2", level=5)
    ds.create_variable("codecs", "f8", "x",
                       codecs=[{"id": "delta", "dtype": "<f8"}, {"id": "zlib", "level": 1}])
    ds.create_variable("contig", "f8", "x", chunks="contiguous")
    for name in ("zstd", "zlib", "codecs"):
        ds[name][...] = np.arange(100)


def zarray(name):
    with open(os.path.join(zpath, name, ".zarray")) as f:
        return json.load(f)


z = zarray("zstd")
check("zstd: .zarray compressor and chunks",
      z["compressor"] == {"id": "zstd", "level": 3} and not z["filters"] and z["chunks"] == [50])
z = zarray("zlib")
check("zlib + shuffle: .zarray compressor and filters",
      z["compressor"] == {"id": "zlib", "level": 2}
      and [f["id"] for f in z["filters"]] == ["shuffle"])
z = zarray("blosc")
check("blosc: lz4 with byte shuffle",
      z["compressor"]["id"] == "blosc" and z["compressor"]["cname"] == "lz4"
      and z["compressor"]["shuffle"] == 1)
check("bzip2: .zarray compressor", zarray("bz2")["compressor"] == {"id": "bz2", "level": 5})
z = zarray("codecs")
check("codecs: numcodecs dicts in order",
      z["compressor"] == {"id": "zlib", "level": 1} and z["filters"][0]["id"] == "delta")
za = zarr.open(zpath, mode="r")
check("zarr-python decodes what the codecs wrote",
      np.array_equal(za["codecs"][...], np.arange(100)) and
      np.array_equal(za["zstd"][...], np.arange(100, dtype="f4")))
with Ncz.open("file://%s#mode=zarr,file" % zpath) as ds:
    check("var.filters lists the codecs",
          [f["id"] for f in ds["codecs"].filters] == ["delta", "zlib"])
raises("an unknown compression raises ValueError", ValueError,
       lambda: Ncz.open(url_of("bad.zarr"), "w").create_variable("v", "f4", (),
                                                                compression="lzma"))

# --- exceptions -----------------------------------------------------------
with Ncz.open(url_of("exc.zarr"), "w") as ds:
    ds.create_dimension("x", 2)
    e = raises("a codec id with no plugin raises Ncz.NotInstalledError", Ncz.NotInstalledError,
               lambda: ds.create_variable("v", "f4", ("x",), codecs=[{"id": "nosuchcodec"}]))
    check("... which is an Ncz.CodecError, an Ncz.Error and a GLib.Error",
          isinstance(e, Ncz.CodecError) and isinstance(e, Ncz.Error)
          and isinstance(e, GLib.Error) and e.matches(Ncz.CodecError.quark(),
                                                       Ncz.CodecError.NOT_AVAILABLE))
    check("an Ncz exception pickles with its domain and code",
          type(pickle.loads(pickle.dumps(e))) is type(e)
          and pickle.loads(pickle.dumps(e)).code == e.code)
    raises("ds['missing'] raises Ncz.NotFoundError", Ncz.NotFoundError, lambda: ds["missing"])
    raises("a dimension that is not there raises Ncz.NotFoundError", Ncz.NotFoundError,
           lambda: ds.create_variable("v", "f4", ("nodim",)))
    raises("a GI call's GError is converted too (add_dimension twice: ExistsError)",
           Ncz.ExistsError, lambda: ds.get_root_group().add_dimension("x", 3, False))
    raises("Ncz.Dataset.open (GI) raises Ncz.NotFoundError", Ncz.NotFoundError,
           lambda: Ncz.Dataset.open(url_of("none.zarr"), Ncz.OpenFlags.READ, None))
raises("an interface method's GError is converted (Ncz.Store.read of a MemoryStore)",
       Ncz.NotFoundError, lambda: Ncz.MemoryStore.new().read("missing", None))
check("the domain classes keep the enum's codes and quark",
      Ncz.DatasetError.NOT_FOUND == 1 and
      GLib.quark_to_string(Ncz.StorageError.quark()) == "ncz-storage-error-quark")
# a store scheme whose module is not installed: a plugin path without it
env = dict(os.environ)
env["NCZ_PLUGIN_PATH"] = ":".join(p for p in env.get("NCZ_PLUGIN_PATH", "").split(":")
                                  if not p.rstrip("/").endswith("zip"))
r = subprocess.run([sys.executable, "-c", """
import ncz
from gi.repository import Ncz
try:
    ncz.open("file://%s/x.zip#mode=nczarr,zip", "w")
except Ncz.NotInstalledError as e:
    print("NotInstalledError", isinstance(e, Ncz.PluginError))
""" % tmp], env=env, capture_output=True, text=True)
check("a store scheme with no module raises Ncz.NotInstalledError (a PluginError)",
      r.stdout.strip() == "NotInstalledError True", r.stdout + r.stderr)

# --- pickling -------------------------------------------------------------
u = url_of("pickle.zarr")
with Ncz.open(u, "w") as ds:
    ds.create_dimension("t", 4)
    ds.create_dimension("x", 6)
    g = ds.create_group("sub")
    v = g.create_variable("v", "f4", ("t", "x"), chunks=(1, 6), fill_value=-1)
    v[...] = np.arange(24, dtype="f4").reshape(4, 6)
with Ncz.open(u) as ds:
    v = ds["sub/v"]
    blob = pickle.dumps(v)
    want = v[1:3]
    r = subprocess.run([sys.executable, "-c", """
import pickle, sys
v = pickle.loads(sys.stdin.buffer.read())
print(v.path, v.dataset.mode, v[1:3].tolist())
"""], input=blob, capture_output=True)
    check("a pickled variable reads the same values in another process",
          r.stdout.decode().strip() == "/sub/v r %s" % want.tolist(), r.stdout + r.stderr)
    check("datasets and groups pickle",
          pickle.loads(pickle.dumps(ds)).url == u and
          pickle.loads(pickle.dumps(ds["sub"])).path == "/sub")
# a dataset open for writing: workers write regions (WRITE_DATA)
with Ncz.open(u, "a") as ds:
    blob = pickle.dumps(ds["sub/v"])
    procs = []
    for t in range(4):
        procs.append(subprocess.Popen([sys.executable, "-c", """
import pickle, sys
import numpy as np
from gi.repository import Ncz
v = pickle.loads(sys.stdin.buffer.read())
v[%d] = np.full(6, 100 + %d)
Ncz.close_reopened()
""" % (t, t)], stdin=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        p.communicate(blob)
    check("workers of a pickled writable variable all succeed",
          all(p.returncode == 0 for p in procs))
with Ncz.open(u) as ds:
    got = ds["sub/v"][...]
    check("the regions the workers wrote are there",
          np.array_equal(got, np.repeat(np.arange(100, 104), 6).reshape(4, 6)), got)

# --- asyncio --------------------------------------------------------------


async def async_case():
    ds = await Ncz.open_async(url_of("index.zarr"), mask_and_scale=False)
    v = ds["d3"]
    parts = await asyncio.gather(*(v.get_async(i) for i in range(5)))
    await ds.aclose()
    async with await ncz.open_async(url_of("async.zarr"), "w") as w:
        w.create_dimension("x", 3)
        await w.create_variable("v", "i8", ("x",)).set_async(Ellipsis, [4, 5, 6])
    ds = await Ncz.open_async(url_of("async.zarr"))
    back = await ds["v"].get_async()
    await ds.aclose()
    return parts, back


parts, back = asyncio.run(async_case())
check("asyncio: gathered get_async reads", np.array_equal(np.stack(parts), full3))
check("asyncio: async with, set_async", list(back) == [4, 5, 6])

# --- threads --------------------------------------------------------------
with Ncz.open(url_of("index.zarr"), mask_and_scale=False) as ds:
    v = ds["d3"]
    results, errors = {}, []

    def reader(i):
        try:
            for _ in range(20):
                key = (slice(i % 5, None), slice(None, None, 1 + i % 3))
                got = v[key]
                if not np.array_equal(got, full3[key]):
                    errors.append(i)
            results[i] = True
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("concurrent reads from 8 Python threads are all right",
          not errors and len(results) == 8, errors)

# --- zero copy ------------------------------------------------------------
u = url_of("big.zarr")
big = rng.standard_normal((64, 256, 256))   # 32 MiB of float64
with Ncz.open(u, "w") as ds:
    for name, size in zip("tyx", big.shape):
        ds.create_dimension(name, size)
    v = ds.create_variable("big", "f8", ("t", "y", "x"), chunks=(16, 128, 128))
    tracemalloc.start()
    v[...] = big
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    check("var[...] = array of var.dtype makes no copy of it (traced peak %d bytes)" % peak,
          peak < big.nbytes // 8)
with Ncz.open(u) as ds:
    v = ds["big"]
    out = np.empty((8, 256, 256))
    addr = out.ctypes.data
    got = v.read_into(out, (8, 0, 0), (8, 256, 256))
    check("read_into fills the caller's array in place",
          got is out and out.ctypes.data == addr and np.shares_memory(got, out)
          and np.array_equal(out, big[8:16]))
    raises("read_into refuses an array of another dtype", TypeError,
           lambda: v.read_into(np.empty((1, 1, 1), "f4"), (0, 0, 0), (1, 1, 1)))
    raises("read_into refuses a buffer of the wrong size", ValueError,
           lambda: v.read_into(np.empty((1, 1, 2)), (0, 0, 0), (1, 1, 1)))
    for what, read in (("get(mask_and_scale=False)", lambda: v.get(mask_and_scale=False)),
                       ("var[...] (masked)", lambda: v[...])):
        tracemalloc.start()
        data = read()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        check("%s allocates about one array (traced peak %.2f x the data)"
              % (what, peak / big.nbytes),
              peak < 1.5 * big.nbytes and np.array_equal(np.asarray(data), big))
        del data

# --- the README's Python example ------------------------------------------
readme = os.path.join(os.environ.get("NCZ_SOURCE_ROOT",
                                     os.path.join(os.path.dirname(__file__), "..", "..")),
                      "README.md")
with open(readme, encoding="utf-8") as f:
    text = f.read()
m = re.search(r"## From Python\n.*?```python\n(.*?)```", text, re.S)
check("README has a 'From Python' section with a python block", m is not None)
if m:
    code = m.group(1)
    check("the README example is 3 lines", len(code.strip().splitlines()) == 3, code)
    u = url_of("tas.zarr")
    tas = rng.uniform(250, 300, (3, 4, 5)).astype("f4")
    tas[0, 0, :] = 1e20
    with Ncz.open(u, "w") as ds:
        for name, size in zip(("time", "lat", "lon"), tas.shape):
            ds.create_dimension(name, size)
        ds.create_variable("tas", "f4", ("time", "lat", "lon"), fill_value=1e20)[...] = tas
    code = re.sub(r'"file://[^"]*"', '"%s"' % u, code)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    want = np.ma.masked_equal(tas, np.float32(1e20)).mean()
    check("the README example prints the masked mean",
          r.returncode == 0 and abs(float(r.stdout) - want) < 1e-3 * abs(want),
          r.stdout + r.stderr)

print("1..%d" % n)
sys.exit(1 if failures else 0)
