#!/usr/bin/python3
# zarr-to-ncz.py: what zarr-python and xarray write, read back by Ncz
#
# Usage: zarr-to-ncz.py READ_VALUES_EXE
#
# Writes with zarr-python 2 an array of every dtype Ncz supports, in C
# and F order, with both dimension separators, uncompressed, partly
# written (the rest is fill), with NaN fill, no fill, a chunk larger than
# the shape, fixed-width byte strings, 0-d arrays, nested groups and
# attributes; and a dataset with xarray's to_zarr. The expected values go
# to expected.json; read-values (Ncz) prints what it reads, and every
# value must be equal.
#
# Exit 77 (skipped) only when zarr-python / numpy are not installed.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interop_common as ic  # noqa: E402

NUMERIC = ["|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4",
           "<i8", ">i8", "<u8", ">u8", "<f4", ">f4", "<f8", ">f8"]

NCZ_TYPE = {"i1": "byte", "u1": "ubyte", "i2": "short", "u2": "ushort",
            "i4": "int", "u4": "uint", "i8": "int64", "u8": "uint64",
            "f4": "float", "f8": "double"}


def json_value(v):
    """Python/numpy scalar -> JSON-able value (NaN/Inf as strings)."""
    import numpy as np
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).rstrip(b"\0").decode("latin-1")
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, str):
        return v
    raise TypeError(repr(v))


def pattern(dtype, shape, seed):
    """Deterministic values covering each type's range."""
    import numpy as np
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    kind = dt.kind
    if kind == "S":
        vals = [("w%d" % (i + seed)) * (1 + i % 3) for i in range(n)]
        return np.array([v.encode()[:dt.itemsize] for v in vals], dtype=dt).reshape(shape)
    typ = NCZ_TYPE[dt.str[1:]]
    vals = ic.values(typ, n, seed)
    return np.array(vals, dtype=dt.newbyteorder("=")).astype(dt).reshape(shape)


def build(path):
    """Writes the store; returns {path: expected entry}."""
    import numpy as np
    import zarr

    store = zarr.DirectoryStore(path)
    root = zarr.group(store=store, overwrite=True)
    root.attrs.update({
        "title": "written by zarr-python",
        "n": 42, "neg": -7, "big": 2 ** 63 + 5, "x": 1.5,
        "ints": [1, 2, 3], "floats": [0.5, 2.25], "flag": True,
    })
    expected = {}
    seed = [0]

    def add(group, gpath, name, dtype, shape, chunks, order="C", sep=".",
            fill=0, region=None, attrs=None, write=True):
        seed[0] += 1
        dt = np.dtype(dtype)
        kw = dict(shape=shape, chunks=chunks, dtype=dt, order=order,
                  compressor=None, fill_value=fill)
        if sep != ".":
            kw["dimension_separator"] = sep
        z = group.create_dataset(name, **kw)
        full = pattern(dt, shape, seed[0])
        if fill is None:
            region = None   # no fill: write everything
        if not write:
            exp = np.full(shape, fill, dtype=dt)
        elif region is None:
            z[...] = full
            exp = full.copy()
        else:
            z[region] = full[region]
            if dt.kind == "S":
                exp = np.full(shape, fill if fill is not None else b"", dtype=dt)
            else:
                exp = np.full(shape, fill, dtype=dt)
            exp[region] = full[region]
        if attrs:
            z.attrs.update(attrs)
        p = gpath + "/" + name if gpath else name
        kind = "string" if dt.kind == "S" else NCZ_TYPE[dt.str[1:]]
        expected[p] = {
            "dtype": dt.str, "order": order, "separator": sep,
            "type": kind, "shape": list(shape),
            "values": [json_value(v) for v in exp.reshape(-1)],
            "fill": None if fill is None else json_value(np.array(fill, dtype=dt)[()]),
            "attrs": attrs or {},
        }

    part = (slice(1, 6), slice(0, 3))
    for dt in NUMERIC:
        for order in ("C", "F"):
            for sep in (".", "/"):
                name = "a_%s%s_%s_%s" % ({"<": "le", ">": "be", "|": ""}[dt[0]], dt[1:],
                                          order, "dot" if sep == "." else "slash")
                fill = 0 if dt[1] != "f" else -1.5
                add(root, "", name, dt, (7, 5), (3, 2), order, sep, fill, part)

    add(root, "", "nan_fill", "<f4", (7, 5), (3, 2), fill=np.nan, region=part)
    add(root, "", "nan_fill_d", "<f8", (6,), (4,), fill=np.nan, region=(slice(0, 2),))
    add(root, "", "inf_fill", "<f8", (6,), (4,), fill=-np.inf, region=(slice(2, 3),))
    add(root, "", "no_fill", "<i4", (7, 5), (3, 2), fill=None)
    add(root, "", "u64_fill", "<u8", (5,), (2,), fill=2 ** 64 - 1, region=(slice(0, 1),))
    add(root, "", "big_chunk", "<i2", (3,), (10,), fill=5, region=(slice(0, 2),))
    add(root, "", "f3d", "<f8", (5, 4, 3), (2, 3, 2), order="F", sep="/", fill=-2.0,
        region=(slice(1, 5), slice(0, 3), slice(1, 3)))
    add(root, "", "one_chunk", ">i4", (4, 3), (4, 3), fill=0)
    add(root, "", "str5", "|S5", (7, 5), (3, 2), fill=b"", region=part)
    add(root, "", "str1", "|S1", (6,), (4,), fill=b"", region=(slice(0, 5),))
    add(root, "", "scalar_i4", "<i4", (), (), fill=0, attrs={"units": "m"})
    add(root, "", "scalar_f8", ">f8", (), (), fill=0.0)
    add(root, "", "scalar_unwritten", "<f4", (), (), fill=3.25, write=False)

    g = root.create_group("grp")
    g.attrs["desc"] = "a subgroup"
    add(g, "grp", "v", "<i8", (4, 6), (3, 4), fill=-1, region=(slice(0, 3), slice(2, 6)),
        attrs={"scale": 0.5, "names": ["a", "b"]})
    g2 = g.create_group("sub2")
    add(g2, "grp/sub2", "w", "<u2", (9,), (4,), sep="/", fill=7, region=(slice(3, 9),))
    add(g2, "grp/sub2", "s", "|S3", (2, 2), (1, 2), fill=b"", region=None)
    return expected


def build_xarray(path):
    import numpy as np
    import xarray as xr
    ds = xr.Dataset(
        {
            "temp": (("time", "lat"), np.arange(12, dtype="<f4").reshape(4, 3) + 0.25),
            "count": (("lat",), np.array([1, 2, 3], dtype="<i8")),
        },
        coords={"lat": np.array([10.0, 20.0, 30.0]), "time": np.arange(4, dtype="<i4")},
        attrs={"title": "written by xarray"},
    )
    ds["temp"].attrs["units"] = "K"
    enc = {k: {"compressor": None} for k in ("temp", "count", "lat", "time")}
    ds.to_zarr(path, mode="w", consolidated=False, encoding=enc)
    expected = {}
    for name in ("temp", "count", "lat", "time"):
        v = ds[name].values
        expected[name] = {
            "type": NCZ_TYPE[v.dtype.str[1:]], "shape": list(v.shape),
            "values": [json_value(x) for x in v.reshape(-1)],
            "dims": list(ds[name].dims),
        }
    return expected


def same(typ, got, want):
    if typ in ("string", "char"):
        return got == want
    return ic.same_number(got, want, typ)


def compare(c, label, expected, got, check_dims=False):
    for p, e in sorted(expected.items()):
        what = "%s %s" % (label, p)
        g = got["variables"].get(p)
        if g is None:
            c.check(False, what + ": Ncz finds the variable")
            continue
        shape_ok = g["shape"] == e["shape"] or (e["shape"] == [] and g["shape"] in ([], [1]))
        c.check(shape_ok, "%s: shape %s" % (what, g["shape"]))
        if e["type"] == "string":
            c.check(g["type"] in ("string", "char"), "%s: type %s" % (what, g["type"]))
            if g["type"] == "char" and len(e["values"]) and max(len(v) for v in e["values"]) > 1:
                c.check(False, "%s: |Sn with n>1 read as char" % what)
        else:
            c.check(g["type"] == e["type"], "%s: type %s (expected %s)" % (what, g["type"], e["type"]))
        gv, ev = g["values"], e["values"]
        if len(gv) != len(ev):
            c.check(False, "%s: %d values, expected %d" % (what, len(gv), len(ev)))
            continue
        bad = [(i, a, b) for i, (a, b) in enumerate(zip(gv, ev)) if not same(e["type"], a, b)]
        c.check(not bad, "%s: %d values equal%s" % (
            what, len(ev), "" if not bad else "; first mismatches (index, Ncz, zarr): %r" % bad[:4]))
        if "fill" in e and e["fill"] is not None and e["type"] != "string":
            c.check(g["fill"] is not None and same(e["type"], g["fill"], e["fill"]),
                    "%s: fill %r (expected %r)" % (what, g["fill"], e["fill"]))
        if check_dims:
            names = [d.rsplit("/", 1)[-1] for d in g["dims"]]
            c.check(names == e["dims"], "%s: dims %s" % (what, names))
        for k, v in (e.get("attrs") or {}).items():
            a = got["attributes"].get(p, {}).get(k)
            c.check(a is not None and same_attr(a, v), "%s: attribute %s = %r" % (what, k, a))


def same_attr(a, want):
    got = a["value"]
    if a["type"] == "char":
        if isinstance(want, (list, dict)):
            # netcdf-c's convention: a JSON value that is not an atomic
            # array is kept as its JSON text in a char attribute
            try:
                return json.loads(got) == want
            except ValueError:
                return False
        return got == want
    if a["type"] == "string":
        return got == (want if isinstance(want, list) else [want])
    if not isinstance(want, list):
        want = [want]
    return len(got) == len(want) and all(
        ic.same_number(g, w, a["type"]) for g, w in zip(got, want))


def main():
    if len(sys.argv) < 2:
        print("usage: zarr-to-ncz.py READ_VALUES_EXE")
        return 2
    exe = sys.argv[1]
    if not ic.have_zarr():
        ic.skip("zarr-python / numpy not installed for " + sys.executable)

    c = ic.Checker()
    tmp = ic.make_tmpdir("zarr-to-ncz")
    try:
        path = os.path.join(tmp, "pyzarr.zarr")
        expected = build(path)
        with open(os.path.join(tmp, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1)
        out = os.path.join(tmp, "ncz.json")
        r = ic.run([exe, "file://%s#mode=zarr,file" % path, out])
        if c.check(r.returncode == 0, "read-values opens the zarr-python store"):
            got = ic.load_json(out)
            compare(c, "[zarr-python]", expected, got)
            ra = got["attributes"].get("", {})
            for k, v in (("title", "written by zarr-python"), ("n", 42), ("neg", -7),
                         ("big", 2 ** 63 + 5), ("x", 1.5), ("ints", [1, 2, 3]),
                         ("floats", [0.5, 2.25])):
                a = ra.get(k)
                c.check(a is not None and same_attr(a, v), "root attribute %s = %r" % (k, a))
            c.check("flag" in ra, "root attribute flag (JSON true) is read: %r" % ra.get("flag"))
            c.check(sorted(got["groups"]) == ["", "grp", "grp/sub2"], "groups %s" % got["groups"])

        # The same store opened without a mode: Ncz must infer pure Zarr
        r = ic.run([exe, "file://%s#mode=nczarr,file" % path, out])
        if c.check(r.returncode == 0, "read-values opens the zarr-python store with mode=nczarr"):
            got = ic.load_json(out)
            sub = {k: v for k, v in expected.items() if k in ("a_le_i4_F_slash", "str5", "grp/v")}
            compare(c, "[zarr-python as nczarr]", sub, got)

        try:
            import xarray  # noqa: F401
            have_xr = True
        except ImportError:
            have_xr = False
            print("info: xarray not installed, xarray case not run")
        if have_xr:
            xpath = os.path.join(tmp, "xarray.zarr")
            xexp = build_xarray(xpath)
            r = ic.run([exe, "file://%s#mode=zarr,file" % xpath, out])
            if c.check(r.returncode == 0, "read-values opens the xarray store"):
                got = ic.load_json(out)
                compare(c, "[xarray]", xexp, got, check_dims=True)
                a = got["attributes"].get("temp", {}).get("units")
                c.check(a is not None and a["value"] == "K", "xarray temp:units = %r" % a)
    finally:
        ic.remove_tmpdir(tmp)
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
