#!/usr/bin/python3
# check-write-all.py: what Ncz writes, read back by other programs
#
# Usage: check-write-all.py WRITE_ALL_EXE {zarr|xarray|ncdump} [NCZ_DUMP_EXE]
#
#   zarr    zarr-python reads every array and attribute of the datasets
#           write-all writes in mode=nczarr,file and mode=zarr,file, and
#           finds the values of the formula in interop_common.py, the fill
#           value where nothing was written, the right dtype, shape,
#           chunks, fill_value and _ARRAY_DIMENSIONS.
#   xarray  xarray opens the root group of both (open_zarr,
#           consolidated=False) with the named dimensions and the values.
#   ncdump  netcdf-c's ncdump reads the datasets (profile "ncdump", see
#           write-all.c for what netcdf-c 4.9.0 cannot read) and prints
#           the expected values; when NCZ_DUMP_EXE is given, ncz-dump's
#           data section must agree too.
#
# Exit 77 (skipped) only when the Python side lacks zarr/numpy, or for
# "ncdump" when ncdump is not installed.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interop_common as ic  # noqa: E402


def expected_dtype(var, mode="nczarr"):
    t = var["type"]
    if t == "char":
        return "|S1"
    if t == "string":
        # plain Zarr: "|O" + "vlen-utf8", as xarray writes strings (docs/dtypes.md)
        if mode == "zarr":
            return "O"
        return "|S%d" % (var["maxstrlen"] or 128)
    base = ic.DTYPE[t]
    if base in ("i1", "u1"):
        return "|" + base
    return (">" if var["endian"] == "big" else "<") + base


def expected_fill(var):
    f = var["fill"]
    if f is None:
        return ic.DEFAULT_FILL[var["type"]]
    return ic.special_float(f)


def element_value(var, flat):
    t = var["type"]
    v = ic.value(t, flat + 31 * var["seed"])
    if t == "string":
        width = var["maxstrlen"] or 128
        return v.encode("utf-8")[:width]
    if t == "char":
        return v.encode("ascii")
    return v


def expected_elements(var):
    """List (C order) of expected values; None = fill."""
    shape = var["shape"]
    n = 1
    for s in shape:
        n *= s
    out = [None] * n
    if var["start"] is None:
        return out
    start, count = var["start"], var["count"]
    nd = len(shape)
    for flat in range(n):
        rem = flat
        idx = [0] * nd
        for d in range(nd - 1, -1, -1):
            idx[d] = rem % shape[d]
            rem //= shape[d]
        if all(start[d] <= idx[d] < start[d] + count[d] for d in range(nd)):
            out[flat] = element_value(var, flat)
    return out


def same_element(typ, got, want):
    if typ in ("char", "string"):
        if isinstance(got, str):
            got = got.encode("utf-8")
        if isinstance(want, str):
            want = want.encode("utf-8")
        return bytes(got).rstrip(b"\0") == bytes(want).rstrip(b"\0")
    return ic.same_number(got, want, typ)


def fill_for_compare(var, zfill):
    t = var["type"]
    if t in ("char", "string"):
        return b""
    return expected_fill(var)


def check_values(c, var, flat_values, what):
    """flat_values: sequence of Python values in C order."""
    t = var["type"]
    want = expected_elements(var)
    fill = fill_for_compare(var, None)
    bad = []
    if len(flat_values) != len(want):
        c.check(False, "%s: %d values, expected %d" % (what, len(flat_values), len(want)))
        return
    for i, (g, w) in enumerate(zip(flat_values, want)):
        if w is None:
            w = fill
        if not same_element(t, g, w):
            bad.append((i, g, w))
    c.check(not bad, "%s: %d values%s" % (
        what, len(want),
        "" if not bad else "; first mismatches (index, got, expected): %r" % bad[:4]))


def attr_expected(attr):
    if "text" in attr:
        return attr["text"]
    if "strings" in attr:
        return attr["strings"]
    if "values" in attr:
        return [ic.special_float(v) for v in attr["values"]]
    return ic.values(attr["type"], attr["n"], attr["seed"])


def same_attr(attr, got):
    want = attr_expected(attr)
    if "text" in attr:
        return got == want
    if not isinstance(got, list):
        got = [got]
    if len(got) != len(want):
        return False
    if "strings" in attr:
        return got == want
    return all(ic.same_number(g, w, attr["type"]) for g, w in zip(got, want))


def run_write_all(exe, mode, profile, tmp):
    path = os.path.join(tmp, "%s-%s.zarr" % (mode, profile))
    manifest = os.path.join(tmp, "%s-%s.json" % (mode, profile))
    url = "file://%s#mode=%s,file" % (path, mode)
    r = ic.run([exe, url, manifest, "--profile=" + profile])
    if r.returncode != 0:
        return None
    m = ic.load_json(manifest)
    m["path"] = path
    return m


# ----------------------------------------------------------------- zarr


def check_zarr(c, m):
    import json
    import numpy as np
    import zarr

    mode = m["mode"]
    store = zarr.DirectoryStore(m["path"])
    root = zarr.open_group(store=store, mode="r")

    # Structure: every group and array where expected, nothing else.
    groups = {""} | {v["group"] for v in m["variables"]} | \
        {a["owner"] for a in m["attributes"] if a["owner_kind"] == "group"}
    for g in sorted(groups):
        c.check(zarr.storage.contains_group(store, g or ""),
                "[%s] group '%s' is a Zarr group" % (mode, g))
    for g in sorted(groups):
        grp = root[g] if g else root
        want = sorted(v["name"] for v in m["variables"] if v["group"] == g)
        got = sorted(grp.array_keys())
        c.check(got == want, "[%s] arrays of group '%s': %s" % (mode, g, got))

    # No NCZarr metadata in pure Zarr mode; a superblock in NCZarr mode.
    meta_text = []
    for dirpath, _, files in os.walk(m["path"]):
        for f in files:
            if f in (".zgroup", ".zarray", ".zattrs"):
                with open(os.path.join(dirpath, f), "r", encoding="utf-8") as fh:
                    text = fh.read()
                meta_text.append(text)
                try:
                    json.loads(text)
                    ok = True
                except ValueError as e:
                    ok = False
                    print("   %s: %s" % (os.path.join(dirpath, f), e))
                c.check(ok, "[%s] %s is strict JSON" %
                        (mode, os.path.relpath(os.path.join(dirpath, f), m["path"])))
    joined = "\n".join(meta_text).lower()
    if mode == "zarr":
        c.check("_nczarr_superblock" not in joined and "_nczarr_array" not in joined,
                "[zarr] no NCZarr metadata in pure Zarr mode")
    else:
        c.check("_nczarr_superblock" in joined, "[nczarr] NCZarr superblock present")

    for var in m["variables"]:
        what = "[%s] %s" % (mode, var["path"])
        try:
            z = root[var["path"]]
        except KeyError:
            c.check(False, what + ": zarr-python finds the array")
            continue
        want_dtype = np.dtype(expected_dtype(var, mode))
        c.check(z.dtype == want_dtype, "%s: dtype %s (expected %s)" % (what, z.dtype.str, want_dtype.str))
        shape = tuple(var["shape"])
        if shape == ():
            c.check(z.shape in ((), (1,)), "%s: scalar shape %s" % (what, z.shape))
        else:
            c.check(z.shape == shape, "%s: shape %s" % (what, z.shape))
        if var["chunks"] is not None:
            c.check(z.chunks == tuple(var["chunks"]), "%s: chunks %s" % (what, z.chunks))
        c.check(z.order == "C", "%s: order %s" % (what, z.order))

        # fill_value
        zf = z.fill_value
        if var["type"] in ("char", "string"):
            zb = zf.encode("utf-8") if isinstance(zf, str) else bytes(zf or b"")
            c.check(zf is not None and zb.rstrip(b"\0") == b"",
                    "%s: fill_value %r" % (what, zf))
        else:
            want = expected_fill(var)
            if var["type"] == "float":
                ok = zf is not None and ic.same_number(float(zf), want, "float")
            else:
                ok = zf is not None and ic.same_number(zf.item() if hasattr(zf, "item") else zf,
                                                       want, var["type"])
            c.check(ok, "%s: fill_value %r (expected %r)" % (what, zf, want))

        data = z[...]
        flat = data.reshape(-1).tolist()
        if var["type"] in ("float", "double"):
            flat = [float(x) for x in data.reshape(-1)]
        if var["type"] == "string" and z.dtype == object:
            flat = [x.encode("utf-8") for x in flat]
        check_values(c, var, flat, what + " values")

        # _ARRAY_DIMENSIONS (xarray convention) of root-group variables
        if var["group"] == "":
            dims = z.attrs.get("_ARRAY_DIMENSIONS")
            if var["dims"]:
                c.check(dims == var["dims"], "%s: _ARRAY_DIMENSIONS %r" % (what, dims))
            else:
                c.check(dims in ([], ["_scalar_"]) and
                        len(dims or []) == len(z.shape),
                        "%s: scalar _ARRAY_DIMENSIONS %r matches shape %s" % (what, dims, z.shape))
        else:
            dims = z.attrs.get("_ARRAY_DIMENSIONS")
            if dims is not None:
                c.check(len(dims) == len(z.shape), "%s: _ARRAY_DIMENSIONS %r" % (what, dims))

    for attr in m["attributes"]:
        what = "[%s] attribute %s:%s" % (mode, attr["owner"] or "/", attr["name"])
        try:
            obj = root[attr["owner"]] if attr["owner"] else root
        except KeyError:
            c.check(False, what + ": owner exists")
            continue
        attrs = obj.attrs.asdict()
        if attr["name"] not in attrs:
            c.check(False, what + ": present")
            continue
        got = attrs[attr["name"]]
        c.check(same_attr(attr, got), "%s = %r" % (what, got))


# --------------------------------------------------------------- xarray


def check_xarray(c, m):
    import numpy as np
    import xarray as xr

    mode = m["mode"]
    try:
        ds = xr.open_zarr(m["path"], consolidated=False)
    except Exception as e:  # noqa: BLE001
        c.check(False, "[%s] xarray opens the root group: %s: %s" % (mode, type(e).__name__, e))
        return
    c.check(True, "[%s] xarray opens the root group" % mode)
    # Decoding joins char (S1) arrays along their last dimension, so the
    # dimensions are checked on the undecoded dataset.
    raw = xr.open_zarr(m["path"], consolidated=False, decode_cf=False, mask_and_scale=False)
    for d in m["dimensions"]:
        if d["group"] == "":
            used = any(d["name"] in v["dims"] for v in m["variables"] if v["group"] == "")
            if used:
                c.check(raw.dims.get(d["name"]) == d["length"],
                        "[%s] dimension %s = %s" % (mode, d["name"], raw.dims.get(d["name"])))
    for var in m["variables"]:
        if var["group"] == "" and var["type"] not in ("char",) and var["path"] in ds.variables:
            c.check(list(ds[var["path"]].dims) == var["dims"] or
                    (not var["dims"] and ds[var["path"]].dims in ((), ("_scalar_",))),
                    "[%s] decoded %s dims %s" % (mode, var["path"], ds[var["path"]].dims))
    for var in m["variables"]:
        if var["group"] != "":
            continue
        what = "[%s] xarray %s" % (mode, var["path"])
        if var["path"] not in raw.variables:
            c.check(False, what + ": present")
            continue
        xv = raw[var["path"]]
        if var["dims"]:
            c.check(list(xv.dims) == var["dims"], "%s: dims %s" % (what, xv.dims))
        else:
            c.check(xv.dims in ((), ("_scalar_",)), "%s: scalar dims %s" % (what, xv.dims))
        data = np.asarray(xv.values)
        if var["type"] in ("float", "double"):
            flat = [float(x) for x in data.reshape(-1)]
        else:
            flat = data.reshape(-1).tolist()
        check_values(c, var, flat, what + " values")

    # A subgroup: xarray needs _ARRAY_DIMENSIONS there too; report only.
    try:
        g = xr.open_zarr(m["path"], group="g1", consolidated=False)
        print("info [%s] xarray opens group g1: %s" % (mode, dict(g.dims)))
    except Exception as e:  # noqa: BLE001
        print("info [%s] xarray cannot open group g1: %s" % (mode, e))


# --------------------------------------------------------------- ncdump


_num_re = re.compile(r"^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)")


def parse_cdl_token(tok):
    tok = tok.strip()
    if tok == "_":
        return None
    low = tok.lower()
    if low.startswith("nan") or low.startswith("-nan"):
        return float("nan")
    if "inf" in low:
        return float("-inf") if low.startswith("-") else float("inf")
    mo = _num_re.match(tok)
    if not mo:
        raise ValueError("bad CDL value %r" % tok)
    text = mo.group(0)
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    return float(text)


def parse_cdl_data(text):
    """Returns {path: [tokens]} from the data sections of CDL."""
    out = {}
    stack = []
    in_data = False
    current = None
    buf = ""
    for line in text.splitlines():
        s = line.strip()
        if current is not None:
            buf += " " + s
            if buf.rstrip().endswith(";"):
                out[current] = buf
                current = None
            continue
        mo = re.match(r"^group:\s+(\S+)\s*\{", s)
        if mo:
            stack.append(mo.group(1))
            in_data = False
            continue
        if s.startswith("}"):
            if stack:
                stack.pop()
            in_data = False
            continue
        if s == "data:":
            in_data = True
            continue
        if in_data:
            mo = re.match(r"^(\S+)\s*=\s*(.*)$", s)
            if mo:
                name = "/".join(stack + [mo.group(1)])
                buf = mo.group(2)
                if buf.rstrip().endswith(";"):
                    out[name] = buf
                else:
                    current = name
    result = {}
    for name, body in out.items():
        body = body.rstrip().rstrip(";")
        body = re.sub(r"//.*", "", body)
        result[name] = [t for t in body.split(",") if t.strip()]
    return result


def check_cdl_values(c, m, cdl, tool):
    data = parse_cdl_data(cdl)
    for var in m["variables"]:
        what = "[%s] %s %s" % (m["mode"], tool, var["path"])
        if var["path"] not in data:
            c.check(False, what + ": in the data section")
            continue
        try:
            vals = [parse_cdl_token(t) for t in data[var["path"]]]
        except ValueError as e:
            c.check(False, "%s: %s" % (what, e))
            continue
        want = expected_elements(var)
        fill = expected_fill(var)
        if len(vals) != len(want):
            c.check(False, "%s: %d values, expected %d" % (what, len(vals), len(want)))
            continue
        bad = []
        for i, (g, w) in enumerate(zip(vals, want)):
            if w is None:
                ok = g is None or ic.same_number(g, fill, var["type"])
            else:
                ok = g is not None and ic.same_number(g, w, var["type"])
            if not ok:
                bad.append((i, g, w if w is not None else fill))
        c.check(not bad, "%s: %d values%s" % (
            what, len(want), "" if not bad else "; first mismatches: %r" % bad[:4]))


def check_ncdump(c, m, ncz_dump):
    url = "file://%s#mode=%s,file" % (m["path"], m["mode"])
    r = ic.run(["ncdump", "-p", "9,17", url], capture_output=True, text=True)
    if not c.check(r.returncode == 0, "[%s] ncdump exits 0 (%d) %s" %
                   (m["mode"], r.returncode, r.stderr.strip()[:300])):
        return
    check_cdl_values(c, m, r.stdout, "ncdump")
    r = ic.run(["ncdump", "-h", "-s", url], capture_output=True, text=True)
    c.check(r.returncode == 0, "[%s] ncdump -h -s exits 0" % m["mode"])
    if ncz_dump:
        r = ic.run([ncz_dump, "-p", "9,17", url], capture_output=True, text=True)
        if c.check(r.returncode == 0, "[%s] ncz-dump exits 0 (%d) %s" %
                   (m["mode"], r.returncode, r.stderr.strip()[:300])):
            check_cdl_values(c, m, r.stdout, "ncz-dump")


def main():
    if len(sys.argv) < 3:
        print("usage: check-write-all.py WRITE_ALL_EXE {zarr|xarray|ncdump} [NCZ_DUMP_EXE]")
        return 2
    exe, what = sys.argv[1], sys.argv[2]
    ncz_dump = sys.argv[3] if len(sys.argv) > 3 else None
    if not ic.have_zarr():
        ic.skip("zarr-python / numpy not installed for " + sys.executable)
    if what == "xarray":
        try:
            import xarray  # noqa: F401
        except ImportError:
            ic.skip("xarray not installed for " + sys.executable)
    if what == "ncdump" and shutil.which("ncdump") is None:
        ic.skip("ncdump (netcdf-bin) not installed")

    c = ic.Checker()
    tmp = ic.make_tmpdir("write-all-" + what)
    try:
        profile = "ncdump" if what == "ncdump" else "full"
        for mode in ("nczarr", "zarr"):
            m = run_write_all(exe, mode, profile, tmp)
            if not c.check(m is not None, "write-all %s %s" % (mode, profile)):
                continue
            if what == "zarr":
                check_zarr(c, m)
            elif what == "xarray":
                check_xarray(c, m)
            elif what == "ncdump":
                check_ncdump(c, m, ncz_dump)
            else:
                print("unknown check " + what)
                return 2
    finally:
        ic.remove_tmpdir(tmp)
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
