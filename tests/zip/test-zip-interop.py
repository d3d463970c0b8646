#!/usr/bin/python3
# The zip store against other programs, printing TAP.
#
#   test-zip-interop.py MAKE-INPUT NCZ-COPY NCZ-DUMP NCZ-GEN
#
# Datasets written by Ncz into zips (make-input, ncz-gen, ncz-copy) dump
# as the same datasets written to directories; directories zipped by the
# zip tool and by Python's zipfile, from inside and from their parent,
# open in Ncz; Ncz's zips unzip into directories the file store opens;
# zarr-python's ZipStore reads Ncz's zips and Ncz reads ZipStore's, values
# compared; netcdf-c's zips of the corpus dump as their unzipped
# directories do.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

MAKE_INPUT, NCZ_COPY, NCZ_DUMP, NCZ_GEN = sys.argv[1:5]
CORPUS = os.path.join(os.environ.get("NCZ_CORPUS_DIR", ""), "netcdf-c")
TMP = tempfile.mkdtemp(prefix="ncz-zip-test-")
N = 0
FAILED = 0
MARKERS = (".zgroup", ".zarray", ".zattrs", ".zmetadata", ".nczarr")


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


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def zip_url(path, mode="nczarr"):
    return f"file://{path}#mode={mode},zip"


def file_url(path, mode="nczarr"):
    return f"file://{path}#mode={mode},file"


def dump(u, *opts):
    r = run([NCZ_DUMP] + list(opts) + [u])
    if r.returncode < 0 or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        return f"ncz-dump crashed ({r.returncode}): " + r.stderr
    if r.returncode != 0:
        return "ncz-dump failed: " + r.stderr
    # the first line names the dataset after its path
    return r.stdout.split("\n", 1)[1]


def same_dump(a, b, name, *opts):
    da, db = dump(a, *opts), dump(b, *opts)
    ok(da == db and not da.startswith("ncz-dump failed"), name,
       f"{a}:\n{da}\n{b}:\n{db}")


def check_names(path, name, stored=True):
    """The entries of an Ncz zip: relative, no '..', no backslash, no
    duplicate, and (chunks and metadata alike) stored."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
    names = [i.filename for i in infos]
    bad = [n for n in names
           if n.startswith("/") or "\\" in n or ".." in n.split("/")]
    ok(not bad and len(set(names)) == len(names), f"{name}: entry names",
       f"bad {bad}, {len(names)} names, {len(set(names))} distinct")
    if stored:
        deflated = [i.filename for i in infos if i.compress_type != zipfile.ZIP_STORED]
        ok(not deflated, f"{name}: entries stored", deflated)


def zip_dir(src, dest, from_parent, tool):
    """Zips the directory src into dest: from inside it (names '.zgroup')
    or from its parent (names 'DIR/.zgroup')."""
    if os.path.exists(dest):
        os.unlink(dest)
    cwd = os.path.dirname(src) if from_parent else src
    what = os.path.basename(src) if from_parent else "."
    if tool == "zip":
        r = run(["zip", "-q", "-r", dest, what], cwd=cwd)
        assert r.returncode == 0, r.stderr
        return
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for root, dirs, files in os.walk(src):
            dirs.sort()
            rel = os.path.relpath(root, cwd)
            if rel != ".":
                z.write(root, rel + "/")
            for f in sorted(files):
                arc = os.path.normpath(os.path.join(rel, f))
                z.write(os.path.join(root, f), arc)


def unzip(path, dest):
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    with zipfile.ZipFile(path) as z:
        z.extractall(dest)


def dataset_dir(d):
    """Where the dataset is in an unzipped tree: its top, or the one
    directory holding a marker object."""
    if any(os.path.exists(os.path.join(d, m)) for m in MARKERS):
        return d
    cands = [e for e in sorted(os.listdir(d))
             if os.path.isdir(os.path.join(d, e))
             and any(os.path.exists(os.path.join(d, e, m)) for m in MARKERS)]
    if len(cands) == 1:
        return os.path.join(d, cands[0])
    top = os.listdir(d)
    if len(top) == 1 and os.path.isdir(os.path.join(d, top[0])):
        return os.path.join(d, top[0])
    return d


# ---- datasets Ncz writes, in zips and in directories ----

for kind in ("rich", "plain", "grid"):
    for mode in ("nczarr", "zarr"):
        name = f"{kind}-{mode}"
        zpath = os.path.join(TMP, name + ".zip")
        dpath = os.path.join(TMP, name + ".dir")
        r1 = run([MAKE_INPUT, zip_url(zpath, mode), kind])
        r2 = run([MAKE_INPUT, file_url(dpath, mode), kind])
        ok(r1.returncode == 0 and r2.returncode == 0, f"{name}: written to a zip and a directory",
           r1.stderr + r2.stderr)
        if r1.returncode != 0:
            continue
        # the writer lock file (.NAME.zip.ncz-lock) stays beside the archive
        left = sorted(e for e in os.listdir(TMP)
                      if e.startswith("." + name) and not e.endswith(".ncz-lock"))
        ok(not left, f"{name}: nothing left beside the zip", left)
        check_names(zpath, name)
        same_dump(zip_url(zpath, mode), file_url(dpath, mode), f"{name}: zip dumps as the directory", "-s")

        # unzipped: the file store opens it
        udir = os.path.join(TMP, name + ".unzipped")
        unzip(zpath, udir)
        same_dump(file_url(udir, mode), file_url(dpath, mode), f"{name}: unzipped dumps the same", "-s")

        # the directory zipped from inside and from its parent
        for tool in ("zip", "python"):
            for parent in (False, True):
                how = f"{tool} from {'parent' if parent else 'inside'}"
                zp = os.path.join(TMP, f"{name}-{tool}-{int(parent)}.zip")
                zip_dir(dpath, zp, parent, tool)
                same_dump(zip_url(zp, mode), file_url(dpath, mode), f"{name}: zipped by {how}", "-s")

# ---- ncz-copy: file -> zip -> file ----

src = os.path.join(TMP, "rich-nczarr.dir")
z1 = os.path.join(TMP, "copy.zip")
back = os.path.join(TMP, "copy-back.dir")
r = run([NCZ_COPY, "-q", file_url(src), zip_url(z1)])
ok(r.returncode == 0, "ncz-copy file -> zip", r.stderr)
r = run([NCZ_COPY, "-q", zip_url(z1), file_url(back)])
ok(r.returncode == 0, "ncz-copy zip -> file", r.stderr)
same_dump(file_url(back), file_url(src), "ncz-copy file -> zip -> file: same dump", "-s")
same_dump(zip_url(z1), file_url(src), "ncz-copy file -> zip: same dump", "-s")

# replacing a zip by ncz-copy: the new one in place, nothing beside it
r = run([NCZ_COPY, "-q", file_url(os.path.join(TMP, "plain-nczarr.dir")), zip_url(z1)])
ok(r.returncode == 0, "ncz-copy replaces a zip", r.stderr)
same_dump(zip_url(z1), file_url(os.path.join(TMP, "plain-nczarr.dir")), "replaced zip dumps as the new dataset", "-s")
left = sorted(e for e in os.listdir(TMP)
              if e.startswith(".copy.zip") and e != ".copy.zip.ncz-lock")
ok(not left, "nothing left beside the replaced zip", left)

# ---- zarr-python ----

PY_WRITE = r'''
import sys, numpy as np, zarr, numcodecs
store = zarr.ZipStore(sys.argv[1], mode="w")
root = zarr.group(store=store)
root.attrs["title"] = "from zarr-python"
a = root.create_dataset("a", shape=(5, 7), chunks=(2, 3), dtype="<i4", compressor=None,
                        fill_value=-1)
a[:] = np.arange(35, dtype="<i4").reshape(5, 7) * 3 - 20
a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
d = root.create_dataset("d", shape=(6,), chunks=(4,), dtype="<f8",
                        compressor=numcodecs.Zlib(level=5), fill_value=0.0)
d[:] = np.array([0.5, -1.25, 2.0, 1e10, 3.75, -0.125])
d.attrs["_ARRAY_DIMENSIONS"] = ["t"]
g = root.create_group("sub")
s = g.create_dataset("s", shape=(4,), chunks=(4,), dtype="<i2", compressor=None)
s[:] = [7, -8, 9, -10]
s.attrs["_ARRAY_DIMENSIONS"] = ["u"]
store.close()
'''

CDL = r'''netcdf known {
dimensions:
	x = 4 ;
	y = 3 ;
variables:
	int a(x, y) ;
		a:units = "m" ;
	double d(x) ;
data:
 a = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ;
 d = 0.5, 1.5, -2.5, 1e+20 ;
}
'''

PY_READ = r'''
import sys, json, numpy as np, zarr
store = zarr.ZipStore(sys.argv[1], mode="r")
root = zarr.open_group(store=store, mode="r")
out = {"a": root["a"][:].tolist(), "d": root["d"][:].tolist(),
       "a_shape": list(root["a"].shape), "units": root["a"].attrs.get("units")}
store.close()
print(json.dumps(out))
'''


def data_values(cdl, var):
    """The values ncz-dump prints for var in its data section."""
    text = cdl.split("data:", 1)[1] if "data:" in cdl else ""
    m = re.search(r"\b" + re.escape(var) + r" =(.*?);", text, re.S)
    if not m:
        return None
    return [v.strip() for v in m.group(1).replace("\n", " ").split(",") if v.strip()]


pz = os.path.join(TMP, "pyzarr.zip")
r = run(["/usr/bin/python3", "-c", PY_WRITE, pz])
ok(r.returncode == 0, "zarr-python writes a ZipStore", r.stderr)
if r.returncode == 0:
    out = dump(zip_url(pz, "zarr"))
    a = data_values(out, "a")
    ok(a == [str(v * 3 - 20) for v in range(35)], "Ncz reads ZipStore: int32 chunked values", out)
    d = data_values(out, "d")
    ok(d is not None and [float(v) for v in d] == [0.5, -1.25, 2.0, 1e10, 3.75, -0.125],
       "Ncz reads ZipStore: zlib float64 values", out)
    s = data_values(out.split("group: sub", 1)[-1], "s")
    ok(s == ["7", "-8", "9", "-10"], "Ncz reads ZipStore: subgroup values", out)
    ok('title = "from zarr-python"' in out, "Ncz reads ZipStore: group attribute", out)
    # the same through the default (no mode) of a path ending in .zip
    plain = dump(pz)
    ok(data_values(plain, "a") == a, "a plain path ending in .zip opens as a zip store", plain)

for mode in ("zarr", "nczarr"):
    kz = os.path.join(TMP, f"known-{mode}.zip")
    r = run([NCZ_GEN, "-o", zip_url(kz, mode), "-"], input=CDL)
    ok(r.returncode == 0, f"ncz-gen writes a {mode} zip", r.stderr)
    if r.returncode != 0:
        continue
    r = run(["/usr/bin/python3", "-c", PY_READ, kz])
    ok(r.returncode == 0, f"zarr-python's ZipStore opens Ncz's {mode} zip", r.stderr)
    if r.returncode == 0:
        import json
        got = json.loads(r.stdout)
        ok(got["a_shape"] == [4, 3] and got["a"] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
           f"zarr-python reads Ncz's {mode} zip: int values", got)
        ok(got["d"] == [0.5, 1.5, -2.5, 1e20], f"zarr-python reads Ncz's {mode} zip: double values", got)
        if mode == "zarr":
            ok(got["units"] == "m", "zarr-python reads Ncz's zarr zip: attribute", got)

# more than 65535 entries: zip64 end records, both ways
BIG_N = 66000
PY_BIG_WRITE = r'''
import sys, numpy as np, zarr
s = zarr.ZipStore(sys.argv[1], mode="w")
g = zarr.group(store=s)
a = g.create_dataset("a", shape=(%d,), chunks=(1,), dtype="u1", compressor=None,
                      fill_value=255)
a[:] = (np.arange(%d) %% 251).astype("u1")
s.close()
''' % (BIG_N, BIG_N)
PY_BIG_READ = r'''
import sys, numpy as np, zarr
s = zarr.ZipStore(sys.argv[1], mode="r")
a = zarr.open_group(store=s, mode="r")["a"][:]
print(a.shape == (%d,) and bool((a == (np.arange(%d) %% 251)).all()), len(s.zf.infolist()))
s.close()
''' % (BIG_N, BIG_N)
want = [str(i % 251) for i in range(BIG_N)]
bz = os.path.join(TMP, "big-pyzarr.zip")
r = run(["/usr/bin/python3", "-c", PY_BIG_WRITE, bz])
ok(r.returncode == 0, f"zarr-python writes {BIG_N} chunks in a ZipStore (zip64)", r.stderr)
if r.returncode == 0:
    with open(bz, "rb") as fh:
        ok(b"PK\x06\x06" in fh.read(), "the ZipStore has a zip64 end record")
    out = dump(zip_url(bz, "zarr"))
    ok(data_values(out, "a") == want, f"Ncz reads the {BIG_N} chunks of the zip64 ZipStore", out[:2000])
bcdl = os.path.join(TMP, "big.cdl")
with open(bcdl, "w") as fh:
    fh.write("netcdf big {\ndimensions:\n\tx = %d ;\nvariables:\n\tubyte a(x) ;\n"
             "\t\ta:_ChunkSizes = 1 ;\ndata:\n a = %s ;\n}\n" % (BIG_N, ", ".join(want)))
nz = os.path.join(TMP, "big-ncz.zip")
r = run([NCZ_GEN, "-o", zip_url(nz, "zarr"), bcdl])
ok(r.returncode == 0, f"ncz-gen writes {BIG_N} chunks in a zip", r.stderr)
if r.returncode == 0:
    r = run(["/usr/bin/python3", "-c", PY_BIG_READ, nz])
    ok(r.returncode == 0 and r.stdout.split()[0] == "True" and int(r.stdout.split()[1]) > 65535,
       f"zarr-python reads the {BIG_N} chunks of Ncz's zip64 zip", r.stdout + r.stderr)

# ---- netcdf-c's zips of the corpus ----

if not os.path.isdir(CORPUS):
    ok(False, "corpus", f"no corpus at {CORPUS}")
else:
    zips = []
    for root, dirs, files in os.walk(CORPUS):
        dirs.sort()
        zips += [os.path.join(root, f) for f in sorted(files) if f.endswith(".zip")]
    ok(len(zips) >= 40, f"corpus has its zips ({len(zips)})")
    for i, z in enumerate(zips):
        rel = os.path.relpath(z, CORPUS)
        udir = os.path.join(TMP, f"corpus-{i}")
        unzip(z, udir)
        ddir = dataset_dir(udir)
        for mode in ("nczarr", "zarr"):
            a = dump(file_url(ddir, mode), "-s")
            b = dump(zip_url(z, mode), "-s")
            if a.startswith("ncz-dump failed"):
                # what the file store refuses, the zip store refuses too
                ok(b.startswith("ncz-dump failed"), f"corpus {rel} ({mode}): refused as unzipped", b)
            else:
                ok(a == b, f"corpus {rel} ({mode}): dumps as unzipped", f"file:\n{a}\nzip:\n{b}")
        # ncz-copy file -> zip -> file gives what file -> file gives
        direct = os.path.join(TMP, f"corpus-{i}-direct")
        viazip = os.path.join(TMP, f"corpus-{i}-via.zip")
        back = os.path.join(TMP, f"corpus-{i}-back")
        r1 = run([NCZ_COPY, "-q", file_url(ddir), file_url(direct)])
        if r1.returncode == 0:
            r2 = run([NCZ_COPY, "-q", file_url(ddir), zip_url(viazip)])
            r3 = run([NCZ_COPY, "-q", zip_url(viazip), file_url(back)])
            ok(r2.returncode == 0 and r3.returncode == 0 and
               dump(file_url(back), "-s") == dump(file_url(direct), "-s"),
               f"corpus {rel}: ncz-copy file -> zip -> file", r2.stderr + r3.stderr)
        for p in (direct, back):
            shutil.rmtree(p, ignore_errors=True)
        if os.path.exists(viazip):
            os.unlink(viazip)
        shutil.rmtree(udir, ignore_errors=True)

    # netcdf-c's own dumps of its zips (ncdump output, name line aside)
    expected = [
        ("v4.9.3/ref_oldkeys.file.zip", "v4.9.3/ref_oldkeys.cdl", ()),
        ("v4.9.3/ref_oldformat.zip", "v4.9.3/ref_oldformat.cdl", ()),
        ("v4.9.2/ref_oldformat.zip", "v4.9.2/ref_oldformat.cdl", ()),
        ("generated/gen490/types.file.zip", "generated/gen490/types.ncdump-s.txt", ("-s",)),
    ]
    for z, cdl, opts in expected:
        with open(os.path.join(CORPUS, cdl)) as fh:
            want = fh.read().split("\n", 1)[1]
        got = dump(zip_url(os.path.join(CORPUS, z)), *opts)
        ok(got == want, f"corpus {z} dumps as {cdl}", got)

    # zips that hold no dataset
    tgz = os.path.join(CORPUS, "v4.9.3", "ref_notzarr.tar.gz")
    if os.path.exists(tgz):
        nd = os.path.join(TMP, "notzarr")
        os.makedirs(nd)
        with tarfile.open(tgz) as t:
            t.extractall(nd)
        found = []
        for root, dirs, files in os.walk(nd):
            found += [os.path.join(root, f) for f in files if f.endswith(".zip")]
        ok(len(found) >= 2, "ref_notzarr holds its zips", found)
        for z in sorted(found):
            r = run([NCZ_DUMP, zip_url(z)])
            ok(r.returncode > 0 and z in r.stderr and "Sanitizer" not in r.stderr,
               f"{os.path.basename(z)} is refused with an error naming it", r.stderr)
    else:
        ok(False, "ref_notzarr.tar.gz", "missing")

# ---- netcdf-c's layout on request: zip.layout=dir ----
# netcdf-c puts a zip's entries under a directory named after the archive
# (NAME.zip holds NAME/.zgroup ...) and reads only that; Ncz writes it so
# with zip.layout=dir, and every netcdf-c build of ../shared/peers reads it.

lcdl = os.path.join(TMP, "layout.cdl")
with open(lcdl, "w") as fh:
    fh.write("netcdf layout {\ndimensions:\n  x = 5 ;\nvariables:\n  int v(x) ;\n"
             "    v:units = \"m\" ;\ndata:\n  v = 1, 2, 3, 4, 5 ;\n}\n")
ldir = os.path.join(TMP, "layout-src")
lzip = os.path.join(TMP, "netcdfc.zip")
r1 = run([NCZ_GEN, "-o", file_url(ldir), lcdl])
r2 = run([NCZ_COPY, "-q", file_url(ldir), zip_url(lzip) + "&zip.layout=dir"])
ok(r1.returncode == 0 and r2.returncode == 0, "ncz-copy writes a zip with zip.layout=dir",
   r1.stderr + r2.stderr)
if r2.returncode == 0:
    with zipfile.ZipFile(lzip) as z:
        names = z.namelist()
    ok(names and all(n.startswith("netcdfc/") for n in names),
       "zip.layout=dir: every entry is under netcdfc/", names)
    same_dump(file_url(ldir), zip_url(lzip), "zip.layout=dir: dumps as the directory", "-s")
    want = dump(zip_url(lzip))
    peers = os.path.join(os.environ.get("NCZ_CORPUS_DIR", ""), "..", "peers")
    versions = sorted(d for d in (os.listdir(peers) if os.path.isdir(peers) else [])
                      if os.path.exists(os.path.join(peers, d, "env.sh")))
    ok(len(versions) > 0, "netcdf-c builds in ../shared/peers", peers)
    for v in versions:
        r = run(["bash", "-c", '. "$0/env.sh" && ncdump "$1"', os.path.join(peers, v),
                 zip_url(lzip)])
        got = "\n".join(l for l in r.stdout.split("\n", 1)[-1].split("\n")
                        if "_NCProperties" not in l)
        mine = "\n".join(l for l in want.split("\n") if "_NCProperties" not in l)
        ok(r.returncode == 0 and got == mine, f"{v}: ncdump reads the zip.layout=dir zip as Ncz does",
           f"{r.stderr}\n{r.stdout}\n---\n{want}")
r = run([NCZ_COPY, "-q", file_url(ldir), zip_url(os.path.join(TMP, "bad.zip")) + "&zip.layout=x"])
ok(r.returncode != 0 and "zip.layout" in r.stderr, "an unknown zip.layout is refused", r.stderr)

shutil.rmtree(TMP, ignore_errors=True)
print(f"1..{N}")
sys.exit(1 if FAILED else 0)
