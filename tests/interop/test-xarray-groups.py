#!/usr/bin/python3
# test-xarray-groups.py: Ncz and xarray (zarr backend, zarr-python 2)
# read each other's groups and fill values.
#
# xarray writes: an int16 variable with encoding {'_FillValue': -9999}
# (fill_value -9999, no _FillValue attribute), floats with NaN (fill_value
# "NaN"), an int32 with no fill (fill_value null), at the root and in a
# group (to_zarr(group='g')); ncz-dump must show _FillValue and '_' for
# the missing values, the fill_value-null variable without _FillValue.
#
# Ncz writes (ncz-gen) pure Zarr and NCZarr with a subgroup that uses a
# root dimension and one of its own: xr.open_zarr(path, group='g') must
# open it without warnings, with the plain dimension names and the values,
# missing values as NaN; pure Zarr (and NCZarr with consolidated=true)
# also through zarr.open_consolidated, and xarray's default open finds the
# consolidated metadata without a warning. An array added later by
# zarr-python without consolidating is seen by Ncz (stale .zmetadata).
#
# usage: test-xarray-groups.py NCZ-GEN NCZ-DUMP
# Exits 77 (skipped) when /usr/bin/python3 lacks xarray or zarr.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_common import Tap  # noqa: E402

try:
    import numpy as np
    import xarray as xr
    import zarr  # noqa: F401
except ImportError:
    print("1..0 # SKIP xarray or zarr not installed")
    sys.exit(77)


def run(argv, stdin=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)


def xarray_dataset():
    ds = xr.Dataset({
        "i": (("x",), np.array([1, -9999, 3], dtype="int16")),
        "f": (("x",), np.array([1.5, np.nan, 3.5], dtype="float32")),
        "n": (("x",), np.array([1, 2, 3], dtype="int32")),
    })
    enc = {v: {"compressor": None} for v in ds}
    enc["i"]["_FillValue"] = -9999
    return ds, enc


CDL = """netcdf t {
dimensions:
	time = UNLIMITED ;
	x = 3 ;
variables:
	int time(time) ;
	short i(x) ;
		i:_FillValue = -9999s ;
	float f(x) ;
data:
 time = 10, 20 ;
 i = 1, _, 3 ;
 f = 1.5, _, 3.5 ;

group: g {
  dimensions:
  	m = 2 ;
  variables:
  	short w(time, m) ;
  		w:_FillValue = -1s ;
  	double d(x) ;
  		d:units = "m" ;
  data:
   w = 1, _, 3, 4 ;
   d = 0.5, 1.5, 2.5 ;
  } // group g
}
"""


def xarray_writes(tap, ncz_dump, work):
    for consolidated in (True, False):
        path = os.path.join(work, "xa-%s.zarr" % ("c" if consolidated else "nc"))
        ds, enc = xarray_dataset()
        ds.to_zarr(path, consolidated=consolidated, encoding=enc)
        ds.to_zarr(path, group="g", consolidated=consolidated, encoding=enc)
        what = "consolidated" if consolidated else "not consolidated"
        r = run([ncz_dump, "file://%s#mode=zarr,file" % path])
        out = r.stdout
        tap.ok(r.returncode == 0, "ncz-dump reads xarray's store (%s)" % what, r.stderr)
        tap.ok("\t\ti:_FillValue = -9999s ;" in out and " i = 1, _, 3 ;" in out,
               "int16 fill_value -9999 is _FillValue, missing value shown as _ (%s)" % what, out)
        tap.ok("\t\tf:_FillValue = NaNf ;" in out and " f = 1.5, _, 3.5 ;" in out,
               "float fill_value NaN is _FillValue (%s)" % what, out)
        tap.ok("n:_FillValue" not in out and " n = 1, 2, 3 ;" in out,
               "fill_value null: no _FillValue (%s)" % what, out)
        tap.ok("group: g {" in out and "   i = 1, _, 3 ;" in out and "   f = 1.5, _, 3.5 ;" in out,
               "group g written by to_zarr(group='g') read with its fill values (%s)" % what, out)


def ncz_writes(tap, ncz_gen, ncz_dump, work):
    for mode in ("zarr", "nczarr", "nczarr&consolidated=true",
                 "nczarr&layout=attributes&consolidated=true"):
        tag = mode.replace("&layout=", "-").replace("&consolidated=true", "-consolidated")
        consolidated = mode == "zarr" or "consolidated=true" in mode
        path = os.path.join(work, "ncz-%s.zarr" % tag)
        parts = mode.split("&")
        url = "file://%s#mode=%s,file" % (path, parts[0]) + "".join("&" + p for p in parts[1:])
        r = run([ncz_gen, "-o", url, "-"], CDL)
        tap.ok(r.returncode == 0, "ncz-gen writes %s with a group" % tag, r.stderr)
        if r.returncode != 0:
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                # consolidated metadata: xarray's default (no argument)
                # must find it without a warning
                kw = {} if consolidated else {"consolidated": False}
                root = xr.open_zarr(path, **kw)
                g = xr.open_zarr(path, group="g", **kw)
                err = None
            except Exception as e:  # noqa: BLE001 -- reported as a test failure
                err = e
        tap.ok(err is None, "xr.open_zarr opens the root and group g of %s" % tag, err)
        if err is not None:
            continue
        tap.ok(not caught, "no warnings opening %s" % tag,
               "\n".join(str(w.message) for w in caught))
        if consolidated:
            try:
                z = zarr.open_consolidated(path)
                got = (sorted(z.array_keys()), sorted(z["g"].array_keys()),
                       z["g/w"][:].tolist())
            except Exception as e:  # noqa: BLE001 -- reported as a test failure
                got = e
            tap.ok(got == (["f", "i", "time"], ["d", "w"], [[1, -1], [3, 4]]),
                   "zarr.open_consolidated reads %s" % tag, got)
            if isinstance(got, tuple) and mode == "zarr":
                # one more array written without consolidating: Ncz sees
                # .zmetadata is stale and reads the objects (in NCZarr
                # the group lists its arrays, so zarr-python's addition is
                # not part of the dataset either way)
                zarr.open_group(path, mode="a").create_dataset(
                    "late", data=np.arange(2, dtype="i4"), compressor=None)
                r = run([ncz_dump, "-h", "file://%s#mode=%s,file" % (path, parts[0])])
                tap.ok(r.returncode == 0 and "late(" in r.stdout,
                       "a stale .zmetadata of %s is not used" % tag, r.stdout + r.stderr)
        tap.ok(dict(g["w"].sizes) == {"time": 2, "m": 2} and dict(g["d"].sizes) == {"x": 3},
               "group g of %s: dimensions named plainly, parent's 'time' and 'x' too" % tag,
               "%s %s" % (dict(g["w"].sizes), dict(g["d"].sizes)))
        w = g["w"].values
        tap.ok(w[0, 0] == 1 and np.isnan(w[0, 1]) and list(w[1]) == [3, 4],
               "group g of %s: values, the _FillValue element missing (NaN)" % tag, w)
        tap.ok(list(g["d"].values) == [0.5, 1.5, 2.5] and g["d"].attrs.get("units") == "m",
               "group g of %s: double values and attributes" % tag, g["d"])
        i = root["i"].values
        tap.ok(i[0] == 1 and np.isnan(i[1]) and i[2] == 3 and np.isnan(root["f"].values[1]),
               "root of %s: _FillValue elements missing (NaN)" % tag, i)


def main():
    ncz_gen, ncz_dump = sys.argv[1], sys.argv[2]
    tap = Tap()
    work = tempfile.mkdtemp(prefix="ncz-xarray-groups-")
    try:
        xarray_writes(tap, ncz_dump, work)
        ncz_writes(tap, ncz_gen, ncz_dump, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
