#!/usr/bin/python3
# test-zarr-dtypes.py: the Zarr v2 data types zarr-python 2 and xarray
# write, read by Ncz; what Ncz writes as plain Zarr, read by them.
#
# Usage: test-zarr-dtypes.py NCZ_DUMP NCZ_GEN NCZ_COPY
#
# 1. xarray writes str coordinates and variables ("|O" + "vlen-utf8"),
#    with its default compressor and without one, a float16 variable and
#    a bool one; ncz-dump must print every value.
# 2. zarr-python writes "<U9" (C and F order), ">U3", "|O" with
#    "vlen-bytes" and zstd, "|O" "vlen-utf8" with a string fill value and
#    a missing chunk, "|S5", "|b1", "<f2", ">f2" (F order).
# 3. Arrays Ncz cannot read ("<c8", "|O" with "pickle") do not stop the
#    dataset opening: ncz-dump -h shows them, reading one fails naming
#    the dtype or codec.
# 4. Ncz writes plain Zarr: ncz-gen a string variable (a 300-byte value,
#    no length limit), ncz-copy of the zarr-python store keeps "|b1" and
#    "f2"; zarr-python and xarray read the values back.
# 5. ncz-gen in NCZarr mode refuses a string longer than
#    _nczarr_maxstrlen (exits non-zero naming the variable and length).
#
# Output is TAP; exits 77 when zarr, numcodecs or xarray is missing.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numcodecs
    import numpy as np
    import xarray as xr
    import zarr
except ImportError as e:  # pragma: no cover
    print("1..0 # SKIP %s" % e)
    sys.exit(77)

NCZ_DUMP, NCZ_GEN, NCZ_COPY = sys.argv[1:4]
LONG = "q" * 300

n = 0
failed = 0


def check(name, ok, detail=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
        print("not ok %d - %s" % (n, name))
        for line in str(detail).splitlines():
            print("# " + line)
    else:
        print("ok %d - %s" % (n, name))


def url(path, mode="zarr"):
    return "file://%s#mode=%s,file" % (path, mode)


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def parse_values(text):
    """The values of ncz-dump's data section for one variable."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c in " \t\n,;":
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while text[j] != '"':
                if text[j] == "\\":
                    j += 1
                buf.append(text[j])
                j += 1
            out.append("".join(buf))
            i = j + 1
        else:
            j = i
            while j < len(text) and text[j] not in " \t\n,;":
                j += 1
            out.append(text[i:j])
            i = j
    return out


def dump_values(path, var, mode="zarr"):
    r = run([NCZ_DUMP, "-v", var, url(path, mode)])
    if r.returncode != 0:
        return None, r.stderr
    data = r.stdout.split("data:", 1)[1]
    body = data.split(" %s =" % var, 1)[1].rsplit(";", 1)[0]
    return parse_values(body), r.stdout


def expect(name, path, var, want):
    got, detail = dump_values(path, var)
    check(name, got == want, "got %r, want %r\n%s" % (got, want, detail))


def close(a, b):
    return len(a) == len(b) and all(x == y or abs(x - y) <= 1e-6 * abs(y) for x, y in zip(a, b))


def numbers(values, fill=0.0):
    """ncz-dump prints a value equal to the fill value as _"""
    return [fill if v == "_" else
            float(v.rstrip("fUBS").replace("Infinity", "inf").replace("NaN", "nan"))
            for v in values]


tmp = tempfile.mkdtemp(prefix="ncz-zarr-dtypes-")
try:
    # 1. xarray
    names = np.array(["alpha", LONG, "h\u00e9llo", "d"], dtype=object)
    ds = xr.Dataset(
        {"name": ("x", names),
         "half": ("x", np.array([1.5, -2.25, 65504, 0.099975586], dtype=np.float16)),
         "flag": ("x", np.array([True, False, True, True]))},
        coords={"x": ["a", "bb", "ccc", "dddd"]})
    for comp in ("default", "none"):
        p = os.path.join(tmp, "xr-%s.zarr" % comp)
        enc = None
        if comp == "none":
            enc = {k: {"compressor": None} for k in ("name", "half", "flag", "x")}
        ds.to_zarr(p, mode="w", encoding=enc)
        expect("xarray %s: str coordinate" % comp, p, "x", ["a", "bb", "ccc", "dddd"])
        expect("xarray %s: str variable (300-byte value, UTF-8)" % comp, p, "name",
               ["alpha", LONG, "h\u00e9llo", "d"])
        got, detail = dump_values(p, "half")
        check("xarray %s: float16 read as float" % comp,
              got is not None and close(numbers(got), [1.5, -2.25, 65504.0, 0.099975586]),
              "%r\n%s" % (got, detail))
        got, detail = dump_values(p, "flag")
        check("xarray %s: bool" % comp, got is not None and numbers(got) == [1, 0, 1, 1],
              "%r\n%s" % (got, detail))

    # 2. zarr-python
    zp = os.path.join(tmp, "zp.zarr")
    g = zarr.open_group(zp, mode="w")
    uc = np.array([["abc", "d\u00e9f", "g"], ["123456789", "x", "yz"]])
    g.create("uC", shape=(2, 3), chunks=(1, 2), dtype="<U9")[:] = uc
    g.create("uF", shape=(2, 3), chunks=(2, 2), dtype="<U9", order="F")[:] = uc
    g.create("ub", shape=(2,), chunks=(2,), dtype=">U3")[:] = ["ab", "xyz"]
    g.create("vb", shape=(3,), chunks=(2,), dtype=object, object_codec=numcodecs.VLenBytes(),
             compressor=numcodecs.Zstd())[:] = [b"x", b"yy", b"zzz"]
    vs = g.create("vs", shape=(5,), chunks=(2,), dtype=object,
                  object_codec=numcodecs.VLenUTF8(), fill_value="FILL")
    vs[0:2] = [LONG, "r"]
    g.create("s5", shape=(2,), chunks=(2,), dtype="|S5")[:] = [b"abcde", b"f"]
    g.create("b1", shape=(3,), chunks=(2,), dtype="|b1")[:] = [True, False, True]
    g.create("h2", shape=(3,), chunks=(2,), dtype="<f2")[:] = [0.5, -3, 1e-7]
    g.create("hb", shape=(2, 2), chunks=(2, 2), dtype=">f2", order="F")[:] = [[1, 2], [3, np.inf]]
    expect("zarr <U9 C order", zp, "uC", ["abc", "d\u00e9f", "g", "123456789", "x", "yz"])
    expect("zarr <U9 F order", zp, "uF", ["abc", "d\u00e9f", "g", "123456789", "x", "yz"])
    expect("zarr >U3", zp, "ub", ["ab", "xyz"])
    expect("zarr vlen-bytes + zstd", zp, "vb", ["x", "yy", "zzz"])
    # without _ARRAY_DIMENSIONS, fill_value is no _FillValue: unwritten
    # elements read as it, as zarr-python shows them (docs/fill-values.md)
    expect("zarr vlen-utf8, string fill, missing chunk", zp, "vs",
           [LONG, "r", "FILL", "FILL", "FILL"])
    expect("zarr |S5", zp, "s5", ["abcde", "f"])
    got, detail = dump_values(zp, "b1")
    check("zarr |b1", got is not None and numbers(got) == [1, 0, 1], "%r\n%s" % (got, detail))
    got, detail = dump_values(zp, "h2")
    check("zarr <f2", got is not None and close(numbers(got), [0.5, -3, float(np.float16(1e-7))]),
          "%r\n%s" % (got, detail))
    got, detail = dump_values(zp, "hb")
    check("zarr >f2 F order", got is not None and numbers(got) == [1, 2, 3, float("inf")],
          "%r\n%s" % (got, detail))

    # 3. not supported: the dataset still opens
    bad = os.path.join(tmp, "bad.zarr")
    shutil.copytree(zp, bad)
    bg = zarr.open_group(bad, mode="a")
    bg.create("c8", shape=(2,), chunks=(2,), dtype="<c8")[:] = [1 + 2j, 3]
    bg.create("pk", shape=(2,), chunks=(2,), dtype=object,
              object_codec=numcodecs.Pickle())[:] = ["a", 1]
    r = run([NCZ_DUMP, "-h", url(bad)])
    check("ncz-dump -h opens a dataset with unsupported arrays",
          r.returncode == 0 and " c8(" in r.stdout and " pk(" in r.stdout, r.stdout + r.stderr)
    for var, needle in (("c8", "'<c8'"), ("pk", "'pickle'")):
        r = run([NCZ_DUMP, "-v", var, url(bad)])
        check("reading %s fails naming %s" % (var, needle),
              r.returncode != 0 and needle in r.stderr and "%s/.zarray" % var in r.stderr,
              r.stderr)
    expect("the other arrays still read", bad, "ub", ["ab", "xyz"])

    # 4. Ncz writes plain Zarr
    cdl = os.path.join(tmp, "s.cdl")
    with open(cdl, "w") as f:
        f.write('netcdf s {\ndimensions:\n x = 3 ;\nvariables:\n string s(x) ;\n'
                'data:\n s = "a", "%s", "h\u00e9" ;\n}\n' % LONG)
    out = os.path.join(tmp, "gen.zarr")
    r = run([NCZ_GEN, "-o", url(out), cdl])
    check("ncz-gen mode=zarr: a 300-byte string", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        arr = zarr.open(out, mode="r")["s"]
        check("zarr-python reads Ncz's strings as |O vlen-utf8",
              arr.dtype == object and list(arr[:]) == ["a", LONG, "h\u00e9"],
              "%r %r" % (arr.dtype, arr[:]))
        xs = xr.open_zarr(out, consolidated=False)
        check("xarray reads Ncz's strings", list(xs["s"].values) == ["a", LONG, "h\u00e9"],
              repr(xs["s"].values))
    cp = os.path.join(tmp, "copy.zarr")
    zp2 = os.path.join(tmp, "zp2.zarr")
    shutil.copytree(zp, zp2)
    r = run([NCZ_COPY, url(zp2), url(cp)])
    check("ncz-copy zarr -> zarr", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        cg = zarr.open_group(cp, mode="r")
        check("copy keeps |b1", cg["b1"].dtype == np.bool_ and
              list(cg["b1"][:]) == [True, False, True], "%r %r" % (cg["b1"].dtype, cg["b1"][:]))
        check("copy keeps <f2", cg["h2"].dtype == np.dtype("<f2") and
              list(cg["h2"][:]) == [0.5, -3, np.float16(1e-7)], "%r" % cg["h2"][:])
        check("copy keeps >f2", cg["hb"].dtype == np.dtype(">f2") and
              cg["hb"][:].tolist() == [[1, 2], [3, float("inf")]], "%r" % cg["hb"][:])
        check("copy of strings reads back in zarr-python",
              list(cg["vs"][:]) == [LONG, "r", "FILL", "FILL", "FILL"] and
              cg["uC"][:].tolist() == uc.tolist(), "%r %r" % (cg["vs"][:], cg["uC"][:]))
        xc = xr.open_zarr(cp, consolidated=False)
        check("xarray opens the copy", "b1" in xc.variables and "vs" in xc.variables,
              repr(xc))

    # 5. no silent truncation in NCZarr mode
    r = run([NCZ_GEN, "-o", url(os.path.join(tmp, "nc.zarr"), "nczarr"), cdl])
    check("ncz-gen mode=nczarr: a 300-byte string is an error",
          r.returncode != 0 and "'/s'" in r.stderr and "300 bytes" in r.stderr, r.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("1..%d" % n)
sys.exit(1 if failed else 0)
