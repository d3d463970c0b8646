#!/usr/bin/python3
# Which reader reads what Ncz writes: every layout Ncz writes (pure Zarr
# and the NCZarr layouts) x netcdf-c 4.9.0 (Debian), 4.9.2, 4.9.3, 4.10.1
# (../shared/peers), xarray, zarr-python and GDAL. Prints TAP and the
# table; the table in docs/compatibility.md must be the one this run
# produces (run with --update to rewrite it).
#
#   test-compat-matrix.py NCZ-GEN NCZ-DUMP DOCS-FILE [--update]
#
# Each cell says what the reader makes of one dataset written in one
# layout:
#   yes                  every value, dimension and the group structure
#                        as Ncz itself reads them
#   values; ...          every value right, with what is lost or different
#   no: ...              the reader fails or reads wrong values
#
# A cell is a fact about the peer, not a test failure: the test fails
# only when the table differs from the docs (what users are told), or
# when a reader that the docs say reads a layout stops reading it.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

from interop_common import cdl_data

NCZ_GEN, NCZ_DUMP, DOCS = sys.argv[1:4]
UPDATE = "--update" in sys.argv[4:]
HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "peers"))
TMP = tempfile.mkdtemp(prefix="ncz-compat-")
N = 0
FAILED = 0

# The datasets: name -> (CDL, what each variable holds, by path; None is
# a missing value (the fill value); unlimited dimensions)
DATASETS = {
    "basic": ("""netcdf basic {
dimensions:
  x = 4 ;
variables:
  short s(x) ;
    s:_FillValue = -99s ;
    s:units = "m" ;
  double d(x) ;
  float f(x) ;
  int64 l(x) ;
data:
  s = -1, -2, -3, _ ;
  d = 0.5, 1.5, 2.5, 3.5 ;
  f = 1, 2, 3, 4 ;
  l = 10000000000, 2, 3, 4 ;
}
""", {"s": [-1, -2, -3, None], "d": [0.5, 1.5, 2.5, 3.5], "f": [1, 2, 3, 4],
      "l": [10000000000, 2, 3, 4]}, set()),
    "groups": ("""netcdf groups {
dimensions:
  x = 3 ;
variables:
  int v(x) ;
data:
  v = 1, 2, 3 ;
group: g {
  dimensions:
    y = 2 ;
  variables:
    int gv(x, y) ;
    float gy(y) ;
  data:
    gv = 1, 2, 3, 4, 5, 6 ;
    gy = 0.25, 0.75 ;
  }
}
""", {"v": [1, 2, 3], "g/gv": [[1, 2], [3, 4], [5, 6]], "g/gy": [0.25, 0.75]}, set()),
    "unlimited": ("""netcdf unlimited {
dimensions:
  time = UNLIMITED ;
  x = 2 ;
variables:
  int time(time) ;
  float t(time, x) ;
data:
  time = 1, 2, 3 ;
  t = 1, 2, 3, 4, 5, 6 ;
}
""", {"time": [1, 2, 3], "t": [[1, 2], [3, 4], [5, 6]]}, {"time"}),
}

LAYOUTS = [
    ("pure Zarr", "zarr", ""),
    ("NCZarr, keys (default)", "nczarr", ""),
    ("NCZarr, attributes", "nczarr", "&layout=attributes"),
    ("NCZarr, keys-upper", "nczarr", "&layout=keys-upper"),
]

NETCDF = [("netcdf-c 4.9.0", None)] + [
    (f"netcdf-c {v}", os.path.join(PEERS, f"netcdf-c-{v}")) for v in ("4.9.2", "4.9.3", "4.10.1")
]


def ok(cond, name, detail=""):
    global N, FAILED
    N += 1
    print(("ok" if cond else "not ok") + f" {N} - {name}")
    if not cond:
        FAILED += 1
        for line in str(detail).splitlines()[:40]:
            print(f"# {line}")
    sys.stdout.flush()


def note(text):
    for line in text.splitlines():
        print(f"# {line}")


def url(path, mode, extra):
    return f"file://{path}#mode={mode},file{extra}"


def short_error(stderr, path):
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    text = lines[-1] if lines else "no message"
    text = text.replace(path, "DATASET").replace(TMP, "TMP")
    text = re.sub(r"file://\S+", "URL", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:70]


def unlimited_dims(text):
    return set(re.findall(r"^\s*(\S+) = UNLIMITED", text, re.M))


def run_ncdump(peer, target):
    if peer is None:
        cmd = ["ncdump", target]
        env = dict(os.environ)
        env.pop("HDF5_PLUGIN_PATH", None)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    script = f'. "{peer}/env.sh" && exec ncdump "$1"'
    return subprocess.run(["bash", "-c", script, "ncdump", target], capture_output=True,
                          text=True, timeout=60)


def netcdf_cell(peer, path, mode, extra, reference, unlimited):
    r = run_ncdump(peer, url(path, mode, extra))
    if r.returncode < 0:
        return f"no: crashes (signal {-r.returncode})"
    if r.returncode != 0:
        return "no: " + short_error(r.stderr, path)
    got = cdl_data(r.stdout)
    want = cdl_data(reference)
    wrong = sorted(k for k in want if got.get(k) != want[k])
    if wrong:
        return "no: wrong or missing values of " + ", ".join(wrong)
    lost = []
    if unlimited and mode == "nczarr" and not unlimited <= unlimited_dims(r.stdout):
        lost.append("unlimited shown fixed")
    return "values; " + ", ".join(lost) if lost else "yes"


def equal(got, want, masked):
    """Compares nested lists; a None in want is a missing value: NaN when
    @masked (CF readers), otherwise anything (the raw fill value)."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            equal(g, w, masked) for g, w in zip(got, want))
    if want is None:
        return (isinstance(got, float) and math.isnan(got)) if masked else True
    try:
        return float(got) == float(want)
    except (TypeError, ValueError):
        return False


def split(path):
    parts = path.split("/")
    return ("/".join(parts[:-1]) or None), parts[-1]


def xarray_cell(path, expected):
    import xarray as xr
    groups = sorted({split(p)[0] for p in expected}, key=lambda g: g or "")
    for group in groups:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ds = xr.open_zarr(path, group=group, consolidated=False)
        except Exception as e:   # noqa: BLE001 - any failure is the finding
            where = f" group {group}" if group else ""
            return f"no{where}: {type(e).__name__}: {str(e).splitlines()[0][:50]}"
        for p, want in expected.items():
            g, name = split(p)
            if g != group:
                continue
            if name not in ds:
                return f"no: {p} missing"
            if not equal(ds[name].values.tolist(), want, True):
                return f"no: wrong values of {p}"
    return "yes"


def zarr_cell(path, expected):
    import zarr
    try:
        root = zarr.open_group(path, mode="r")
        for p, want in expected.items():
            if not equal(root[p][...].tolist(), want, False):
                return f"no: wrong values of {p}"
    except Exception as e:   # noqa: BLE001
        return f"no: {type(e).__name__}: {str(e).splitlines()[0][:50]}"
    return "yes"


def gdal_arrays(node, prefix=""):
    for name, a in node.get("arrays", {}).items():
        yield prefix + name, a
    for name, g in node.get("groups", {}).items():
        yield from gdal_arrays(g, prefix + name + "/")


def gdal_cell(path, expected):
    r = subprocess.run(["gdalmdiminfo", "-detailed", path], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        return "no: " + short_error(r.stderr, path)
    try:
        info = json.loads(r.stdout)
    except json.JSONDecodeError:
        return "no: not JSON"
    arrays = dict(gdal_arrays(info))
    unnamed = []
    for p, want in expected.items():
        a = arrays.get(p)
        if a is None:
            return f"no: {p} missing"
        if not equal(a.get("values"), want, False):
            return f"no: wrong values of {p}"
        for d in a.get("dimensions", []):
            name = d if isinstance(d, str) else d.get("name", "")
            if re.fullmatch(r"/?dim\d+", name) and p not in unnamed:
                unnamed.append(p)
    if unnamed:
        return "values; dimensions unnamed in " + ", ".join(unnamed)
    return "yes"


def main():
    readers = [n for n, _ in NETCDF] + ["xarray", "zarr-python", "GDAL"]
    rows = []
    for dataset, (cdl, expected, unlimited) in DATASETS.items():
        cdl_path = os.path.join(TMP, dataset + ".cdl")
        with open(cdl_path, "w") as f:
            f.write(cdl)
        for label, mode, extra in LAYOUTS:
            if mode == "zarr" and unlimited:
                continue   # pure Zarr has no unlimited dimensions
            path = os.path.join(TMP, f"{dataset}-{len(rows)}.zarr")
            r = subprocess.run([NCZ_GEN, "-o", url(path, mode, extra), cdl_path],
                               capture_output=True, text=True, timeout=60)
            ok(r.returncode == 0, f"ncz-gen writes {dataset} as {label}", r.stderr)
            if r.returncode != 0:
                continue
            ref = subprocess.run([NCZ_DUMP, url(path, mode, extra)], capture_output=True,
                                 text=True, timeout=60)
            ok(ref.returncode == 0 and all(
                k in cdl_data(ref.stdout) for k in expected),
               f"ncz-dump reads {dataset} as {label}", ref.stderr + ref.stdout)
            cells = []
            for name, peer in NETCDF:
                if peer is not None and not os.path.isdir(peer):
                    cells.append("not tested: no peer build")
                    continue
                cells.append(netcdf_cell(peer, path, mode, extra, ref.stdout, unlimited))
            cells.append(xarray_cell(path, expected))
            cells.append(zarr_cell(path, expected))
            cells.append(gdal_cell(path, expected))
            rows.append((label, dataset, cells))

    lines = ["| layout | dataset | " + " | ".join(readers) + " |",
             "|---|---|" + "---|" * len(readers)]
    for label, dataset, cells in rows:
        lines.append(f"| {label} | {dataset} | " + " | ".join(c.replace("|", "/") for c in cells)
                     + " |")
    table = "\n".join(lines) + "\n"
    note(table)

    begin, end = "<!-- BEGIN compat-matrix -->\n", "<!-- END compat-matrix -->"
    with open(DOCS) as f:
        docs = f.read()
    if begin not in docs or end not in docs:
        ok(False, f"{DOCS} has the table markers")
    else:
        before, rest = docs.split(begin, 1)
        old, after = rest.split(end, 1)
        if UPDATE:
            with open(DOCS, "w") as f:
                f.write(before + begin + table + end + after)
            old = table
        ok(old == table, "docs/compatibility.md shows what this run found "
           "(run the test script with --update after a change, and say why in the docs)",
           "\n".join(l for l in __import__("difflib").unified_diff(
               old.splitlines(), table.splitlines(), "docs", "this run", lineterm="")))

    shutil.rmtree(TMP, ignore_errors=True)
    print(f"1..{N}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
