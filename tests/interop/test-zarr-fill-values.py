#!/usr/bin/python3
# test-zarr-fill-values.py: pure-Zarr fill values as users see them
# (docs/fill-values.md).
#
# 1. Every zarr-python store of the corpus whose arrays carry no
#    _ARRAY_DIMENSIONS dumps exactly as netcdf-c 4.9.3's ncdump prints it:
#    the same values (real zeros are data) and no _FillValue. Where 4.9.3
#    cannot read a store, or reads it wrong (the rows of NCDUMP_493_WRONG),
#    ncz-dump must still show no _FillValue and no missing value, and its
#    values must be zarr-python's.
# 2. xarray-written arrays (with _ARRAY_DIMENSIONS) keep their masking:
#    fill_value is the _FillValue, as xarray shows it.
# 3. ncz-copy of a zarr-python store to NCZarr and back to pure Zarr keeps
#    every zero: zarr-python reads the same values and fill_value back, and
#    ncz-dump shows no missing value in the NCZarr copy.
#
# usage: test-zarr-fill-values.py NCZ-DUMP NCZ-COPY
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_common import Tap, cdl_data  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("NCZ_SOURCE_ROOT", os.path.join(HERE, "..", ".."))
SHARED = os.path.join(SOURCE_ROOT, "..", "shared")
CORPUS = os.path.join(os.environ.get("NCZ_CORPUS_DIR", os.path.join(SHARED, "corpus")),
                      "netcdf-c")
PEER_493 = os.path.join(SHARED, "peers", "netcdf-c-4.9.3", "env.sh")

# Stores 4.9.3 reads wrong or not at all, and why. They are still
# checked against zarr-python's values.
NCDUMP_493_WRONG = {
    "p0.zarr": "a 0-d array: 4.9.3 drops it",
    "pz_forder.zarr": "\"order\": \"F\": 4.9.3 returns the elements in the wrong order",
    "pz_filters.zarr": "numcodecs delta filter: 4.9.3 has no codec for it",
    "pz_bool.zarr": "|b1: 4.9.3 refuses the dtype",
    "pz_U3.zarr": "<U3: 4.9.3 refuses the dtype",
    "pz_obj.zarr": "vlen-utf8 strings: 4.9.3 refuses the dtype",
    "pz_M8.zarr": "datetime: no netCDF type",
    "pz_c8.zarr": "complex: no netCDF type",
    "pa_empty.zarr": "an empty JSON array attribute: 4.9.3 fails the open",
    "pa_mixed.zarr": "a JSON array mixing a number and a string: 4.9.3 aborts",
}


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


def ncdump_493(url):
    if not os.path.exists(PEER_493):
        return None
    return run(["bash", "-c", 'source "$0" >/dev/null 2>&1 && exec ncdump "$1"', PEER_493, url])


def has_array_dimensions(store):
    for top, _dirs, files in os.walk(store):
        if ".zattrs" in files:
            with open(os.path.join(top, ".zattrs"), encoding="utf-8") as f:
                if "_ARRAY_DIMENSIONS" in json.load(f):
                    return True
    return False


def has_fillvalue_attribute(store):
    for top, _dirs, files in os.walk(store):
        if ".zattrs" in files:
            with open(os.path.join(top, ".zattrs"), encoding="utf-8") as f:
                if "_FillValue" in json.load(f):
                    return True
    return False


def zarr_stores(work):
    """(name, directory) of every pure-Zarr store of zarr-python in the corpus."""
    out = []
    pyzarr = os.path.join(CORPUS, "generated", "pyzarr")
    for z in sorted(os.listdir(pyzarr)):
        if z.endswith(".zarr.zip"):
            with zipfile.ZipFile(os.path.join(pyzarr, z)) as f:
                f.extractall(work)
            out.append((z[:-4], os.path.join(work, z[:-4])))
    with zipfile.ZipFile(os.path.join(CORPUS, "v4.9.3", "ref_byte.zarr.zip")) as f:
        f.extractall(work)
    out.append(("ref_byte.zarr", os.path.join(work, "ref_byte.zarr")))
    shutil.copytree(os.path.join(CORPUS, "v4.10-main", "ref_data.zarr"),
                    os.path.join(work, "ref_data.zarr"))
    out.append(("ref_data.zarr", os.path.join(work, "ref_data.zarr")))
    return out


def zarr_values(store):
    """{array path: list of values} as zarr-python reads them, or None."""
    import zarr
    try:
        root = zarr.open_group(store, mode="r")
        out = {}
        for path, arr in root.arrays(recurse=True):
            if arr.dtype.kind in "Mc":
                continue
            out[arr.path] = arr[...].ravel().tolist()
        return out
    except Exception:  # noqa: BLE001 - a store zarr-python cannot read
        return None


def same_values(dump, store):
    """Whether every numeric array's values in @dump are zarr-python's."""
    want = zarr_values(store)
    if want is None:
        return True, "zarr-python cannot read it"
    got = cdl_data(dump)
    for path, values in want.items():
        if not values or not isinstance(values[0], (int, float, bool)):
            continue
        toks = got.get(path.strip("/"))
        if toks is None:
            return False, "%s missing from the dump" % path
        nums = []
        for kind, t in toks:
            if kind != "n" or t == "_":
                return False, "%s: %r" % (path, toks)
            nums.append(float(t.rstrip("bsfLUu").replace("NaNf", "nan").replace("NaN", "nan")))
        ref = [float(v) for v in values]
        if len(nums) != len(ref) or any(
                not (a == b or (a != a and b != b) or abs(a - b) <= 1e-6 * abs(b))
                for a, b in zip(nums, ref)):
            return False, "%s: ncz-dump %r, zarr-python %r" % (path, nums, ref)
    return True, ""


def dump_has_missing(text):
    """Whether the data section prints a missing value ('_')."""
    data = text.split("\ndata:\n", 1)
    if len(data) < 2:
        return False
    for line in data[1].splitlines():
        body = line.split("=", 1)[-1] if "=" in line else line
        for tok in body.replace(";", ",").split(","):
            if tok.strip() == "_":
                return True
    return False


def check_corpus(tap, ncz_dump, work):
    for name, store in zarr_stores(work):
        if has_array_dimensions(store):
            continue
        url = "file://%s#mode=zarr,file" % store
        mine = run([ncz_dump, url])
        if name in ("pz_M8.zarr", "pz_c8.zarr"):
            tap.ok(mine.returncode != 0 and "is not supported" in mine.stderr,
                   "%s: ncz-dump refuses a dtype netCDF has no type for" % name, mine.stderr)
            continue
        if not tap.ok(mine.returncode == 0, "%s: ncz-dump reads it" % name, mine.stderr):
            continue
        attr = has_fillvalue_attribute(store)
        tap.ok(attr or ":_FillValue" not in mine.stdout,
               "%s: fill_value is no _FillValue (no _ARRAY_DIMENSIONS)" % name, mine.stdout)
        if name in NCDUMP_493_WRONG:
            tap.ok(attr or not dump_has_missing(mine.stdout),
                   "%s: no value prints as missing (%s)" % (name, NCDUMP_493_WRONG[name]),
                   mine.stdout)
            same, why = same_values(mine.stdout, store)
            tap.ok(same, "%s: the values are zarr-python's" % name, why + "\n" + mine.stdout)
            continue
        theirs = ncdump_493(url)
        if theirs is None:
            tap.skip("%s: dump equals ncdump 4.9.3's" % name, "netcdf-c 4.9.3 peer not found")
            continue
        diff = "".join(difflib.unified_diff(theirs.stdout.splitlines(True),
                                            mine.stdout.splitlines(True), "ncdump-4.9.3",
                                            "ncz-dump"))
        tap.ok(theirs.returncode == 0 and theirs.stdout == mine.stdout,
               "%s: dump equals ncdump 4.9.3's" % name,
               "ncdump rc %d %s\n%s" % (theirs.returncode, theirs.stderr, diff))


def check_xarray(tap, ncz_dump, work):
    try:
        import numpy as np
        import xarray as xr
    except ImportError:
        tap.skip("xarray masking", "xarray is not installed")
        return
    path = os.path.join(work, "xr.zarr")
    ds = xr.Dataset({"t": (("x",), np.array([1.5, np.nan, 0.0], dtype="f4")),
                     "n": (("x",), np.array([0, -9999, 3], dtype="i2"))})
    ds.to_zarr(path, mode="w", encoding={"n": {"_FillValue": -9999}}, consolidated=False)
    mine = run([ncz_dump, "file://%s#mode=zarr,file" % path])
    tap.ok(mine.returncode == 0 and " t = 1.5, _, 0 ;" in mine.stdout and
           " n = 0, _, 3 ;" in mine.stdout and "n:_FillValue = -9999s ;" in mine.stdout,
           "xarray store: fill_value is the _FillValue, real zeros are data",
           mine.stdout + mine.stderr)


def check_copy(tap, ncz_dump, ncz_copy, work):
    try:
        import numpy as np
        import zarr
    except ImportError:
        tap.skip("ncz-copy round trip", "zarr-python is not installed")
        return
    src = os.path.join(work, "copy-src.zarr")
    g = zarr.open_group(src, mode="w")
    a = g.create_dataset("f", shape=(6,), chunks=(3,), dtype="f4")   # fill_value 0
    a[:3] = [0.0, 0.333, 0.667]                                       # chunk 1 unwritten
    b = g.create_dataset("i", shape=(4,), chunks=(2,), dtype="i4", fill_value=0)
    b[:] = [0, 1, 0, 2]
    c = g.create_dataset("p", shape=(4,), chunks=(2,), dtype="i2", fill_value=-1)
    c[:2] = [0, 5]
    want = {k: (g[k][...].tolist(), g[k].fill_value) for k in ("f", "i", "p")}

    nczarr = os.path.join(work, "copy.file")
    r = run([ncz_copy, "file://%s#mode=zarr,file" % src, "file://%s#mode=nczarr,file" % nczarr])
    if not tap.ok(r.returncode == 0, "ncz-copy zarr-python store -> NCZarr", r.stderr):
        return
    d = run([ncz_dump, "file://%s#mode=nczarr,file" % nczarr])
    tap.ok(d.returncode == 0 and not dump_has_missing(d.stdout) and ":_FillValue" not in d.stdout
           and " f = 0, 0.333, 0.667, 0, 0, 0 ;" in d.stdout and " i = 0, 1, 0, 2 ;" in d.stdout
           and " p = 0, 5, -1, -1 ;" in d.stdout,
           "the NCZarr copy keeps every zero and invents no _FillValue", d.stdout + d.stderr)
    for frag, what in (("mode=zarr,file", "pure Zarr"), ("mode=zarr,file,noxarray", "pure Zarr, noxarray")):
        back = os.path.join(work, "copy-back-%d.zarr" % len(frag))
        r = run([ncz_copy, "file://%s#mode=nczarr,file" % nczarr, "file://%s#%s" % (back, frag)])
        if not tap.ok(r.returncode == 0, "ncz-copy NCZarr -> %s" % what, r.stderr):
            continue
        h = zarr.open_group(back, mode="r")
        got = {k: (h[k][...].tolist(), h[k].fill_value) for k in ("f", "i", "p")}
        tap.ok(got == want, "zarr-python reads the %s copy back unchanged (values, fill_value)"
               % what, "want %r\ngot  %r" % (want, got))
        if "noxarray" in frag:
            d = run([ncz_dump, "file://%s#mode=zarr,file" % back])
            tap.ok(d.returncode == 0 and not dump_has_missing(d.stdout) and
                   ":_FillValue" not in d.stdout and " i = 0, 1, 0, 2 ;" in d.stdout,
                   "ncz-dump of the %s copy keeps every zero" % what, d.stdout + d.stderr)


def main():
    ncz_dump, ncz_copy = sys.argv[1], sys.argv[2]
    if not os.path.isdir(CORPUS):
        print("1..0 # SKIP no corpus at %s" % CORPUS)
        return 0
    tap = Tap()
    work = tempfile.mkdtemp(prefix="ncz-zarr-fill-")
    try:
        check_corpus(tap, ncz_dump, os.path.join(work, "corpus"))
        check_xarray(tap, ncz_dump, work)
        check_copy(tap, ncz_dump, ncz_copy, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
