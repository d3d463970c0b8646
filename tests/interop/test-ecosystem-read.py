#!/usr/bin/python3
# What the Zarr ecosystem really writes, read by Ncz: xarray (to_zarr with
# strings, bytes, bools, datetimes, packed int16 with _FillValue and
# scale_factor, codecs, groups, consolidated or not), zarr-python (every
# dtype, both byte orders, F order, both separators) and GDAL
# (gdalmdimtranslate to Zarr). Every array must read with the right
# values, types and missing values through ncz-dump. Prints TAP.
#
#   test-ecosystem-read.py NCZ-DUMP KNOWN-GAPS-FILE
#
# Cases Ncz cannot read yet are listed in the known-gaps file (one case
# name a line, '#' comments): they are reported as TAP TODO, and a listed
# case that passes fails the test, so the list cannot go stale.
#
# SPDX-License-Identifier: BSD-3-Clause

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

from interop_common import cdl_data

NCZ_DUMP, GAPS_FILE = sys.argv[1:3]
TMP = tempfile.mkdtemp(prefix="ncz-ecosystem-")
N = 0
FAILED = 0


def load_gaps():
    gaps = {}
    with open(GAPS_FILE) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, why = line.partition(" ")
            gaps[name] = why.strip()
    return gaps


GAPS = load_gaps()
SEEN_GAPS = set()


def report(cond, name, detail=""):
    global N, FAILED
    N += 1
    if name in GAPS:
        SEEN_GAPS.add(name)
        if cond:
            FAILED += 1
            print(f"not ok {N} - {name}: listed as a known gap but passes: "
                  f"remove it from {os.path.basename(GAPS_FILE)}")
        else:
            print(f"not ok {N} - {name} # TODO {GAPS[name]}")
            for line in str(detail).splitlines()[:10]:
                print(f"# {line}")
        sys.stdout.flush()
        return
    print(("ok" if cond else "not ok") + f" {N} - {name}")
    if not cond:
        FAILED += 1
        for line in str(detail).splitlines()[:40]:
            print(f"# {line}")
    sys.stdout.flush()


# ---- reading ncz-dump's CDL ----

def dump_types(text):
    """path/var -> its CDL type, from a CDL dump."""
    types = {}
    groups = []
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"group: (\S+) \{", s)
        if m:
            groups.append(m.group(1))
            continue
        if s == "}" and groups:
            groups.pop()
            continue
        m = re.match(r"(char|byte|ubyte|short|ushort|int|uint|int64|uint64|float|double|string) "
                     r"(\S+?)(\(.*\))? ;$", s)
        if m:
            types["/".join(groups + [m.group(2)])] = m.group(1)
    return types


def same_value(token, want, kind):
    t, v = token
    if want is None:
        return t == "n" and v == "_"
    if isinstance(want, str):
        # "" is the default fill value of strings, which dumps show as _
        return (t == "s" and v == want) or (want == "" and t == "n" and v == "_")
    if t != "n" or v == "_":
        return False
    try:
        got = float(v.rstrip("bBsSuUlLfFdD") if not v.lower().startswith(("nan", "inf", "-inf"))
                    else v.rstrip("fF"))
    except ValueError:
        return False
    want = float(want)
    if math.isnan(want):
        return math.isnan(got)
    if want == 0:
        return got == 0
    return abs(got - want) <= abs(want) * 1e-6


def check(name, path, mode, expected, extra=""):
    """expected: var path -> (CDL type, flat list of values, None missing)."""
    url = f"file://{path}#mode={mode},file{extra}"
    r = subprocess.run([NCZ_DUMP, url], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        report(False, name, f"ncz-dump {url}: status {r.returncode}\n{r.stderr}")
        return
    data = cdl_data(r.stdout)
    types = dump_types(r.stdout)
    problems = []
    for var, (cdl_type, values) in expected.items():
        if var not in data:
            problems.append(f"{var}: no data in the dump")
            continue
        if cdl_type is not None and types.get(var) != cdl_type:
            problems.append(f"{var}: type {types.get(var)}, expected {cdl_type}")
        got = data[var]
        kind = "s" if cdl_type == "string" else "n"
        if len(got) != len(values) or not all(
                same_value(g, w, kind) for g, w in zip(got, values)):
            problems.append(f"{var}: values {got[:12]} expected {values[:12]}")
    report(not problems, name, "\n".join(problems) + "\n--- dump:\n" + r.stdout[-1500:])


def flat(a, missing=None):
    """C-order list of an array's values; elements equal to @missing (or
    NaN for floats when @missing is 'nan') become None."""
    out = []
    for v in np.asarray(a).ravel(order="C").tolist():
        if missing == "nan" and isinstance(v, float) and math.isnan(v):
            out.append(None)
        elif missing is not None and missing != "nan" and v == missing:
            out.append(None)
        else:
            out.append(v.decode() if isinstance(v, bytes) else v)
    return out


def case(name, func):
    try:
        func(name)
    except Exception as e:   # noqa: BLE001 - a writer that fails is reported
        report(False, name, f"{type(e).__name__}: {e}")


# ---- xarray ----

def xarray_cases():
    import xarray as xr
    import numcodecs

    def strings(name):
        p = os.path.join(TMP, name)
        ds = xr.Dataset({"v": ("x", np.array([1.5, 2.5, 3.5, 4.5]))},
                        coords={"x": ["a", "bb", "ccc", "déjà vu"]})
        ds.to_zarr(p, consolidated=False)
        check(name, p, "zarr", {"x": ("string", ["a", "bb", "ccc", "déjà vu"]),
                                "v": ("double", [1.5, 2.5, 3.5, 4.5])})

    def fixed_unicode(name):
        p = os.path.join(TMP, name)
        ds = xr.Dataset({"u": ("x", np.array(["ab", "c", "", "dé"], dtype="<U2"))})
        ds.to_zarr(p, consolidated=False, encoding={"u": {"dtype": "<U2"}})
        check(name, p, "zarr", {"u": ("string", ["ab", "c", "", "dé"])})

    def byte_strings(name):
        p = os.path.join(TMP, name)
        ds = xr.Dataset({"b": ("x", np.array([b"ab", b"c", b"", b"xyz"]))})
        ds.to_zarr(p, consolidated=False)
        check(name, p, "zarr", {"b": (None, ["ab", "c", "", "xyz"])})

    def booleans(name):
        p = os.path.join(TMP, name)
        ds = xr.Dataset({"flag": ("x", np.array([True, False, True, True]))})
        ds.to_zarr(p, consolidated=False)
        # xarray stores bool as int8 with a "dtype": "bool" attribute
        check(name, p, "zarr", {"flag": ("byte", [1, 0, 1, 1])})

    def datetimes(name):
        p = os.path.join(TMP, name)
        t = np.array(["2020-01-01", "2020-01-02", "2020-01-04", "2020-01-08"],
                     dtype="datetime64[ns]")
        xr.Dataset({"v": ("time", np.arange(4.0))}, coords={"time": t}).to_zarr(
            p, consolidated=False)
        check(name, p, "zarr", {"time": ("int64", [0, 1, 3, 7])})

    def packed(name):
        p = os.path.join(TMP, name)
        t = np.array([280.1, np.nan, 281.5, 279.9])
        xr.Dataset({"t": ("x", t)}).to_zarr(p, consolidated=False, encoding={
            "t": {"dtype": "int16", "scale_factor": 0.1, "_FillValue": -9999}})
        check(name, p, "zarr", {"t": ("short", [2801, None, 2815, 2799])})

    def codec(name, encoding):
        p = os.path.join(TMP, name)
        v = np.arange(64, dtype="int32").reshape(8, 8) * 3 - 50
        xr.Dataset({"v": (("y", "x"), v)}).to_zarr(p, consolidated=False, encoding={
            "v": dict(chunks=(4, 4), **encoding)})
        check(name, p, "zarr", {"v": ("int", flat(v))})

    def group(name):
        p = os.path.join(TMP, name)
        xr.Dataset({"r": ("x", np.arange(3.0))}).to_zarr(p, consolidated=False)
        xr.Dataset({"gv": ("y", np.array([7, 8], dtype="int16"))}).to_zarr(
            p, group="g", consolidated=False, mode="a")
        check(name, p, "zarr", {"r": ("double", [0.0, 1.0, 2.0]), "g/gv": ("short", [7, 8])})

    def consolidated(name):
        p = os.path.join(TMP, name)
        xr.Dataset({"c": ("x", np.array([1, 2, 3], dtype="int32"))},
                   attrs={"title": "t"}).to_zarr(p, consolidated=True)
        check(name, p, "zarr", {"c": ("int", [1, 2, 3])})

    def float_missing(name):
        p = os.path.join(TMP, name)
        xr.Dataset({"f": ("x", np.array([1.0, np.nan, 3.0], dtype="float32"))}).to_zarr(
            p, consolidated=False)
        check(name, p, "zarr", {"f": ("float", [1.0, None, 3.0])})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case("xarray-str-coordinate", strings)
        case("xarray-fixed-unicode", fixed_unicode)
        case("xarray-bytes", byte_strings)
        case("xarray-bool", booleans)
        case("xarray-datetime64", datetimes)
        case("xarray-int16-packed-fillvalue", packed)
        case("xarray-float-nan-fill", float_missing)
        case("xarray-zstd", lambda n: codec(n, {"compressor": numcodecs.Zstd(level=3)}))
        case("xarray-blosc", lambda n: codec(n, {"compressor": numcodecs.Blosc(
            "lz4", 5, numcodecs.Blosc.SHUFFLE)}))
        case("xarray-gzip", lambda n: codec(n, {"compressor": numcodecs.GZip(level=5)}))
        case("xarray-delta", lambda n: codec(n, {"filters": [numcodecs.Delta(dtype="<i4")],
                                                 "compressor": numcodecs.Zlib(level=1)}))
        case("xarray-group", group)
        case("xarray-consolidated", consolidated)


# ---- zarr-python ----

def zarr_cases():
    import zarr
    import numcodecs

    numeric = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]
    cdl = {"i1": "byte", "u1": "ubyte", "i2": "short", "u2": "ushort", "i4": "int",
           "u4": "uint", "i8": "int64", "u8": "uint64", "f4": "float", "f8": "double",
           "f2": "float", "b1": "ubyte"}

    def numeric_case(name, dt, order, sep):
        p = os.path.join(TMP, name)
        signed = np.dtype(dt).kind in "if"
        v = (np.arange(24).reshape(4, 6) - (7 if signed else 0)).astype(dt)
        g = zarr.open_group(zarr.DirectoryStore(p, dimension_separator=sep), mode="w")
        a = g.create_dataset("a", shape=v.shape, chunks=(3, 4), dtype=dt, order=order,
                             fill_value=None)
        a[...] = v
        check(name, p, "zarr", {"a": (cdl[dt.lstrip("<>|")], flat(v))})

    for dt in numeric:
        for bo in ("<", ">") if dt[1] != "1" else ("|",):
            case(f"zarr-{bo}{dt}-C", lambda n, d=bo + dt: numeric_case(n, d, "C", "."))
    case("zarr-<i4-F", lambda n: numeric_case(n, "<i4", "F", "."))
    case("zarr->f8-F", lambda n: numeric_case(n, ">f8", "F", "."))
    case("zarr-<i2-slash-separator", lambda n: numeric_case(n, "<i2", "C", "/"))
    case("zarr-<f2", lambda n: numeric_case(n, "<f2", "C", "."))
    case("zarr->f2", lambda n: numeric_case(n, ">f2", "C", "."))

    def special(name, data, dtype, expected_type, expected, **kw):
        p = os.path.join(TMP, name)
        g = zarr.open_group(p, mode="w")
        a = g.create_dataset("a", shape=(len(data),), chunks=(2,), dtype=dtype, **kw)
        a[...] = data
        check(name, p, "zarr", {"a": (expected_type, expected)})

    # zarr-python's default fill_value of |b1 is false; without
    # _ARRAY_DIMENSIONS it is no _FillValue, so false is data, as
    # zarr-python shows it (docs/fill-values.md)
    case("zarr-|b1", lambda n: special(n, np.array([True, False, False, True]), "|b1",
                                       "ubyte", [1, 0, 0, 1]))
    case("zarr-|b1-no-fill", lambda n: special(n, np.array([True, False, False, True]), "|b1",
                                               "ubyte", [1, 0, 0, 1], fill_value=None))
    case("zarr-|S5", lambda n: special(n, np.array([b"hello", b"ab", b"", b"x"]), "|S5",
                                       None, ["hello", "ab", "", "x"]))
    case("zarr-<U5", lambda n: special(n, np.array(["héllo", "ab", "", "x"]), "<U5",
                                       "string", ["héllo", "ab", "", "x"]))
    case("zarr->U5", lambda n: special(n, np.array(["héllo", "ab", "", "x"]), ">U5",
                                       "string", ["héllo", "ab", "", "x"]))
    case("zarr-vlen-utf8", lambda n: special(
        n, np.array(["a", "bb", "", "ü" * 300], dtype=object), object, "string",
        ["a", "bb", "", "ü" * 300], object_codec=numcodecs.VLenUTF8()))
    case("zarr-vlen-bytes", lambda n: special(
        n, np.array([b"a", b"bb", b"", b"xyz"], dtype=object), object, None,
        ["a", "bb", "", "xyz"], object_codec=numcodecs.VLenBytes()))
    case("zarr-vlen-utf8-zstd", lambda n: special(
        n, np.array(["one", "two", "three", "four"], dtype=object), object, "string",
        ["one", "two", "three", "four"], object_codec=numcodecs.VLenUTF8(),
        compressor=numcodecs.Zstd(level=1)))
    case("zarr-vlen-utf8-fill-missing-chunk", lambda n: special(
        n, np.array(["a", "b", "missing", "missing"], dtype=object), object, "string",
        ["a", "b", "missing", "missing"], object_codec=numcodecs.VLenUTF8(), fill_value="missing",
        write_empty_chunks=False))
    case("zarr-int-fill-missing-chunk", lambda n: special(
        n, np.array([5, 6, -1, -1], dtype="<i4"), "<i4", "int", [5, 6, -1, -1],
        fill_value=-1, write_empty_chunks=False))


# ---- GDAL ----

def gdal_cases():
    def translate(name):
        src = os.path.join(TMP, name + ".nc")
        cdl = os.path.join(TMP, name + ".cdl")
        with open(cdl, "w") as f:
            f.write("netcdf g { dimensions: y = 2 ; x = 3 ; variables: float t(y, x) ; "
                    "t:_FillValue = -1.f ; t:units = \"K\" ; int x(x) ; data: "
                    "t = 1, 2, 3, 4, _, 6 ; x = 10, 20, 30 ; }\n")
        subprocess.run(["ncgen", "-k", "nc4", "-o", src, cdl], check=True)
        out = os.path.join(TMP, name)
        r = subprocess.run(["gdalmdimtranslate", "-of", "Zarr", src, out],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            report(False, name, r.stderr)
            return
        # GDAL 3.6 writes no _ARRAY_DIMENSIONS for t (its dimension y
        # has no indexing variable) and no _FillValue attribute: its
        # fill_value is then no _FillValue, and the missing value reads
        # as the -1 it is, as zarr-python and netcdf-c show it
        # (docs/fill-values.md); GDAL itself takes it for nodata
        check(name, out, "zarr", {"t": ("float", [1, 2, 3, 4, -1, 6]),
                                  "x": ("int", [10, 20, 30])})

    if shutil.which("gdalmdimtranslate") and shutil.which("ncgen"):
        case("gdal-mdimtranslate-zarr", translate)
    else:
        report(False, "gdal-mdimtranslate-zarr", "gdalmdimtranslate or ncgen not installed")


def main():
    try:
        xarray_cases()
        zarr_cases()
        gdal_cases()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    for name in sorted(set(GAPS) - SEEN_GAPS):
        report(False, f"known gap '{name}' names no case")
    print(f"1..{N}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
