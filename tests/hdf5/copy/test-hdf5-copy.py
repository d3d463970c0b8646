#!/usr/bin/python3
# ncz-copy between netCDF-4 files and NCZarr/Zarr stores, printing TAP.
#
#   test-hdf5-copy.py NCZ-COPY NCZ-DUMP
#
# For every CDL file of the netcdf-c corpus that ncgen (netCDF 4.9.0)
# writes as netCDF-4, and for ref_groups.h5:
#   ncgen -4 -> in.nc; ncz-copy in.nc -> NCZarr directory; ncz-copy that
#   back -> out.nc; `ncdump out.nc` must equal `ncdump in.nc` (the first
#   line, which names the file, aside), and the NCZarr store must dump
#   (ncz-dump) as ncdump dumps in.nc.
# With -F none the round trip drops every filter; with -F the filters
# asked for are in the new file (ncdump -s shows them) and the values
# are the same. Files netcdf-c wrote with deflate and shuffle keep their
# filters through NCZarr and back.
#
# SPDX-License-Identifier: BSD-3-Clause

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

NCZ_COPY, NCZ_DUMP = sys.argv[1:3]
CORPUS = os.path.join(os.environ.get("NCZ_CORPUS_DIR", ""), "netcdf-c")
NCGEN = os.environ.get("NCGEN") or shutil.which("ncgen") or "/usr/bin/ncgen"
NCDUMP = os.environ.get("NCDUMP") or shutil.which("ncdump") or "/usr/bin/ncdump"
NCCOPY = shutil.which("nccopy") or "/usr/bin/nccopy"
TMP = tempfile.mkdtemp(prefix="ncz-hdf5-copy-")
N = 0
FAILED = 0


def ok(cond, name, detail=""):
    global N, FAILED
    N += 1
    if cond:
        print(f"ok {N} - {name}")
    else:
        FAILED += 1
        print(f"not ok {N} - {name}")
        for line in str(detail).splitlines()[:60]:
            print(f"# {line}")
    sys.stdout.flush()


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def crashed(r):
    return r.returncode < 0 or "Sanitizer" in r.stderr or "runtime error" in r.stderr


def body(text):
    """A dump without its first line (which names the file)."""
    return text.split("\n", 1)[1] if "\n" in text else text


def ncdump(path, *opts):
    r = run([NCDUMP] + list(opts) + [path])
    return body(r.stdout) if r.returncode == 0 else None


def nczdump(url, *opts):
    r = run([NCZ_DUMP] + list(opts) + [url])
    return body(r.stdout) if r.returncode == 0 else "ncz-dump failed: " + r.stderr


def copy(src, dst, *opts):
    r = run([NCZ_COPY] + list(opts) + [src, dst])
    return r


def diff(a, b):
    import difflib
    return "\n".join(difflib.unified_diff((a or "").splitlines(), (b or "").splitlines(),
                                          "expected", "got", lineterm="", n=2))


def special_lines(text, key):
    return sorted(l.strip() for l in (text or "").splitlines() if key in l)


def corpus_inputs():
    """(name, netCDF-4 file) for the corpus CDL files ncgen writes."""
    out = []
    seen = set()
    for cdl in sorted(glob.glob(os.path.join(CORPUS, "*", "*.cdl"))):
        base = os.path.basename(cdl)
        if base in seen:
            continue
        name = os.path.basename(os.path.dirname(cdl)) + "/" + base
        nc = os.path.join(TMP, "in", name.replace("/", "_")[:-4] + ".nc")
        os.makedirs(os.path.dirname(nc), exist_ok=True)
        r = run([NCGEN, "-4", "-o", nc, cdl], timeout=120)
        if r.returncode != 0 or not os.path.exists(nc):
            continue  # CDL ncgen does not write as netCDF-4 (the test of reading covers which)
        seen.add(base)
        out.append((name, nc))
    h5 = os.path.join(CORPUS, "v4.9.3", "ref_groups.h5")
    if os.path.exists(h5):
        out.append(("v4.9.3/ref_groups.h5", h5))
    return out


# Inputs whose copy to NCZarr must fail: ref_string.cdl gives a variable
# the attribute _nczarr_maxstrlen = 4 and holds 10-byte strings in it.
# NCZarr stores strings at that width; netcdf-c cuts them ("0123456789"
# becomes "0123"), Ncz refuses with an error rather than lose data.
MUST_FAIL = {"ref_string.cdl": "it is not truncated"}


def round_trip(name, nc):
    stem = os.path.join(TMP, "rt", name.replace("/", "_"))
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    store = f"file://{stem}.zarr#mode=nczarr,file"
    back = f"{stem}.back.nc"
    expected = ncdump(nc)
    if expected is None:
        ok(False, f"{name}: ncdump reads the input")
        return
    r = copy(nc, store)
    must_fail = MUST_FAIL.get(os.path.basename(name))
    if must_fail is not None:
        ok(not crashed(r) and r.returncode != 0 and must_fail in r.stderr,
           f"{name}: ncz-copy .nc -> NCZarr refuses to cut strings", r.stderr)
        return
    if crashed(r) or r.returncode != 0:
        ok(False, f"{name}: ncz-copy .nc -> NCZarr", r.stderr)
        return
    got = nczdump(store)
    ok(got == expected, f"{name}: the NCZarr copy dumps as ncdump dumps the .nc",
       diff(expected, got))
    r = copy(store, back)
    if crashed(r) or r.returncode != 0:
        ok(False, f"{name}: ncz-copy NCZarr -> .nc", r.stderr)
        return
    got = ncdump(back)
    ok(got == expected, f"{name}: ncdump of the copy back equals ncdump of the original",
       diff(expected, got) if got is not None else "ncdump failed on " + back)


def filters():
    """-F none drops filters; -F adds them; netcdf-c's deflate+shuffle survive."""
    cdl = os.path.join(TMP, "f.cdl")
    with open(cdl, "w") as f:
        f.write("netcdf f {\ndimensions:\n\ty = 40 ;\n\tx = 50 ;\nvariables:\n"
                "\tfloat t(y, x) ;\n\t\tt:units = \"K\" ;\n\t\tt:_ChunkSizes = 20, 25 ;\n"
                "\t\tt:_DeflateLevel = 1 ;\n\t\tt:_Shuffle = \"true\" ;\n"
                "\tint i(y, x) ;\n\t\ti:_ChunkSizes = 10, 50 ;\n\t\ti:_DeflateLevel = 4 ;\n"
                "data:\n\tt = " + ", ".join(str(v * 0.5) for v in range(2000)) + " ;\n"
                "\ti = " + ", ".join(str(v * 7 % 1000) for v in range(2000)) + " ;\n}\n")
    nc = os.path.join(TMP, "f.nc")
    r = run([NCGEN, "-4", "-o", nc, cdl])
    ok(r.returncode == 0, "ncgen writes the filtered sample", r.stderr)
    expected = ncdump(nc)
    expected_s = run([NCDUMP, "-s", "-h", nc]).stdout

    store = f"file://{TMP}/f.zarr#mode=nczarr,file"
    back = os.path.join(TMP, "f.back.nc")
    r1, r2 = copy(nc, store), copy(store, back)
    ok(r1.returncode == 0 and r2.returncode == 0, "filtered: copies to NCZarr and back",
       r1.stderr + r2.stderr)
    got_s = run([NCDUMP, "-s", "-h", back]).stdout
    for key in ("_DeflateLevel", "_Shuffle", "_ChunkSizes"):
        ok(special_lines(got_s, key) == special_lines(expected_s, key),
           f"filtered: {key} survives NCZarr and back", diff(expected_s, got_s))
    ok(ncdump(back) == expected, "filtered: values survive", diff(expected, ncdump(back)))

    none_back = os.path.join(TMP, "f.none.nc")
    r = copy(nc, none_back, "-F", "none")
    ok(r.returncode == 0, "-F none: copies", r.stderr)
    got_s = run([NCDUMP, "-s", "-h", none_back]).stdout
    ok(not special_lines(got_s, "_DeflateLevel") and not special_lines(got_s, "_Filter"),
       "-F none: no filter left", got_s)
    ok(ncdump(none_back) == expected, "-F none: values survive",
       diff(expected, ncdump(none_back)))

    zst_store = f"file://{TMP}/f.zst.zarr#mode=nczarr,file"
    r = copy(nc, zst_store, "-F", "*,32015,3")
    ok(r.returncode == 0, "-F zstd: .nc to NCZarr", r.stderr)
    dump_s = nczdump(zst_store, "-s", "-h")
    ok("32015" in dump_s or "zstd" in dump_s, "-F zstd: the NCZarr copy has zstd", dump_s)
    ok(nczdump(zst_store) == expected, "-F zstd: values survive",
       diff(expected, nczdump(zst_store)))

    defl = os.path.join(TMP, "f.deflate.nc")
    r = copy(zst_store, defl, "-F", "none")
    r2 = copy(defl, os.path.join(TMP, "f.deflate2.nc"), "-F", "*,1,5")
    ok(r.returncode == 0 and r2.returncode == 0, "-F deflate: NCZarr to .nc",
       r.stderr + r2.stderr)
    got_s = run([NCDUMP, "-s", "-h", os.path.join(TMP, "f.deflate2.nc")]).stdout
    ok(special_lines(got_s, "_DeflateLevel") == ["i:_DeflateLevel = 5 ;", "t:_DeflateLevel = 5 ;"],
       "-F deflate: every variable deflated at level 5", got_s)
    ok(ncdump(os.path.join(TMP, "f.deflate2.nc")) == expected, "-F deflate: values survive")


def xarray_strings():
    """A file xarray writes (h5netcdf) with a string variable, which
    netCDF reads as without fill (no fill value defined): ncz-copy to .nc
    keeps it (libhdf5 refuses fill time "never" for strings)."""
    src = os.path.join(TMP, "xr.nc")
    r = run(["/usr/bin/python3", "-c",
             "import xarray as xr, numpy as np\n"
             "ds = xr.Dataset({'t': (('time', 'lat'), np.arange(12.).reshape(4, 3)),\n"
             "                 's': (('lat',), np.array(['a', 'bb', 'ccc'], dtype=object))},\n"
             "                coords={'lat': [10., 20., 30.]})\n"
             f"ds.to_netcdf({src!r}, engine='h5netcdf')\n"])
    if r.returncode != 0:
        ok(True, "xarray (h5netcdf) is not available # SKIP")
        return
    out = os.path.join(TMP, "xr.back.nc")
    r = copy(src, out)
    ok(r.returncode == 0, "xarray's file with a string variable: ncz-copy to .nc", r.stderr)
    # who wrote it and the superblock version (netCDF-4's 2, h5py's 0) differ
    def kept(text):
        return [l for l in (text or "").splitlines()
                if "_NCProperties" not in l and "_SuperblockVersion" not in l]
    ok(ncdump(out, "-s") is not None and kept(ncdump(out, "-s")) == kept(ncdump(src, "-s")),
       "xarray's file with a string variable: ncdump -s of the copy equals the original's",
       diff(ncdump(src, "-s"), ncdump(out, "-s")))


def main():
    ok(os.path.isdir(CORPUS), "the corpus is at " + CORPUS)
    for name, nc in corpus_inputs():
        round_trip(name, nc)
    filters()
    xarray_strings()
    print(f"1..{N}")
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
