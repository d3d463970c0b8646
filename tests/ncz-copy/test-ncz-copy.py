#!/usr/bin/python3
# ncz-copy's tests, printing TAP.
#
#   test-ncz-copy.py MAKE-INPUT NCZ-COPY NCZ-DUMP [hdf5|no-hdf5]
#
# Datasets are written by make-input (the Ncz C API); copies are compared
# with ncz-dump -s, which shows _Filter, _Codecs, _ChunkSizes, _Storage.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

MAKE_INPUT, NCZ_COPY, NCZ_DUMP = sys.argv[1:4]
HAVE_HDF5 = len(sys.argv) > 4 and sys.argv[4] == "hdf5"
TMP = tempfile.mkdtemp(prefix="ncz-copy-test-")
N = 0
FAILED = 0

SPECIALS = ("_Storage", "_ChunkSizes", "_Filter", "_Codecs", "_Shuffle",
            "_DeflateLevel", "_Fletcher32")


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


def url(name, mode="nczarr"):
    return f"file://{TMP}/{name}#mode={mode},file"


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def copy(*args):
    return run([NCZ_COPY] + list(args))


def dump(u):
    r = run([NCZ_DUMP, "-s", u])
    if r.returncode != 0:
        return "ncz-dump failed: " + r.stderr
    # the first line names the dataset after its path
    return r.stdout.split("\n", 1)[1]


def strip_specials(cdl):
    return "\n".join(l for l in cdl.splitlines()
                     if not any(f":{s} =" in l for s in SPECIALS))


def specials(u, var):
    """The virtual attributes ncz-dump -s prints for variable var ("g/v"
    for one in a group): {"_Filter": "307,9", ...}."""
    out = {}
    text = dump(u)
    name = var.split("/")[-1]
    if "/" in var:
        # the group's section only
        text = text.split(f"group: {var.split('/')[-2]} {{", 1)[1]
    else:
        text = text.split("group:", 1)[0]
    for line in text.splitlines():
        m = re.match(r'\s*(\w+):(_\w+) = (.*) ;$', line)
        if m and m.group(1) == name:
            out[m.group(2)] = m.group(3).strip('"')
    return out


def filters_of(u, var):
    """The chain as a list of "id,params" strings, from the specials."""
    s = specials(u, var)
    chain = []
    if s.get("_Fletcher32") == "true":
        chain.append("3")
    if s.get("_Shuffle") == "true":
        chain.append("2")
    if "_Filter" in s:
        chain += s["_Filter"].split("|")
    if "_DeflateLevel" in s:
        chain.append("1," + s["_DeflateLevel"])
    return chain


def make(name, kind, mode="nczarr"):
    r = run([MAKE_INPUT, url(name, mode), kind])
    if r.returncode != 0:
        print(f"Bail out! make-input {kind}: {r.stderr}")
        sys.exit(1)
    return url(name, mode)


# ---------------------------------------------------------------- inputs
RICH = make("rich", "rich")
PLAIN = make("plain", "plain")
RICH_CDL = dump(RICH)
PLAIN_CDL = dump(PLAIN)
PLAIN_VALUES = strip_specials(PLAIN_CDL)
counter = [0]


def fresh(mode="nczarr"):
    counter[0] += 1
    return url(f"out{counter[0]}", mode)


def copy_plain(*opts):
    out = fresh()
    r = copy(*opts, PLAIN, out)
    return r, out


# ---------------------------------------------------------------- exact copies
out = fresh()
r = copy(RICH, out)
ok(r.returncode == 0 and dump(out) == RICH_CDL,
   "NCZarr -> NCZarr: ncz-dump -s identical (groups, unlimited, scalars, strings, "
   "char, big-endian, fill, no-fill, quantize, filters)", r.stderr + dump(out))

rich_dir = os.path.join(TMP, "rich")
out_dir = out.split("#")[0][len("file://"):]


def files(d):
    return sorted(os.path.relpath(os.path.join(p, f), d)
                  for p, _, fs in os.walk(d) for f in fs)


ok(files(rich_dir) == files(out_dir),
   "chunks never written stay unwritten (same objects in the store)",
   f"{files(rich_dir)}\n{files(out_dir)}")

z1 = fresh("zarr")
n2 = fresh()
z2 = fresh("zarr")
r1 = copy(RICH, z1)
r2 = copy(z1, n2)
r3 = copy(n2, z2)
ok(r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
   "NCZarr -> Zarr -> NCZarr -> Zarr copies succeed", r1.stderr + r2.stderr + r3.stderr)
ok(dump(z1) == dump(n2), "Zarr -> NCZarr keeps everything the Zarr dataset holds",
   f"{dump(z1)}\n----\n{dump(n2)}")
ok(dump(z1) == dump(z2), "NCZarr -> Zarr of that copy gives the same Zarr dataset")
ok(strip_specials(dump(z1)).count("-40, -29, -18, -7") == 1 and "18446744073709551606" in dump(z1)
   and '"ünïcode"' in dump(z1) and "scalar = -7" in dump(z1),
   "values survive the trip through pure Zarr")

r = copy(RICH, out)
ok(r.returncode == 0 and dump(out) == RICH_CDL, "an existing output is replaced (as nccopy)",
   r.stderr)
r = copy("-N", RICH, out)
ok(r.returncode != 0 and "exists" in r.stderr, "-N refuses an existing output", r.stderr)
r = copy(RICH, RICH)
ok(r.returncode != 0 and "same dataset" in r.stderr and dump(RICH) == RICH_CDL,
   "IN and OUT the same dataset: refused", r.stderr)
r = copy("-q", RICH)
ok(r.returncode != 0 and "Usage" in r.stderr, "one argument: usage", r.stderr)

# ---------------------------------------------------------------- -F none table
# plain: a, b unfiltered; f with bzip2 307,9; t strings; g1/a unfiltered
TABLE = [
    # (name, options, variable, expected chain)
    ("row 1: -F none, var undefined, input filtered -> unfiltered", ["-F", "none"], "f", []),
    ("row 1: -F none, var undefined, input unfiltered -> unfiltered", ["-F", "none"], "a", []),
    ("row 2: -F none, -F var,none -> unfiltered", ["-F", "none", "-F", "f,none"], "f", []),
    ("row 3: -F none, -F var,defined -> output filters",
     ["-F", "none", "-F", "f,32015,1"], "f", ["32015,1"]),
    ("row 3 (options in the other order)",
     ["-F", "f,32015,1", "-F", "none"], "f", ["32015,1"]),
    ("row 4: var undefined, input filtered -> input filters", [], "f", ["307,9"]),
    ("row 5: -F var,none, input filtered -> unfiltered", ["-F", "f,none"], "f", []),
    ("row 5: -F var,none, input unfiltered -> unfiltered", ["-F", "a,none"], "a", []),
    ("row 6: -F var,defined, input unfiltered -> output filters",
     ["-F", "a,307,5"], "a", ["307,5"]),
    ("row 7: var undefined, input unfiltered -> unfiltered", [], "a", []),
    ("row 8: -F var,defined, input filtered -> output filters (replacing)",
     ["-F", "f,32015,3"], "f", ["32015,3"]),
    ("-F *,none is -F none", ["-F", "*,none"], "f", []),
]
for name, opts, var, expect in TABLE:
    r, o = copy_plain(*opts)
    got = filters_of(o, var) if r.returncode == 0 else r.stderr
    ok(r.returncode == 0 and got == expect
       and strip_specials(dump(o)) == PLAIN_VALUES, name, f"expected {expect}, got {got}")

# ---------------------------------------------------------------- -F forms
r, o = copy_plain("-F", "*,32015,2")
ok(r.returncode == 0 and all(filters_of(o, v) == ["32015,2"] for v in ("a", "b", "f", "g1/a"))
   and strip_specials(dump(o)) == PLAIN_VALUES,
   "-F '*,...' filters every variable (strings left alone)", r.stderr)
r, o = copy_plain("-F", "a&b,307,4")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,4"] and filters_of(o, "b") == ["307,4"]
   and filters_of(o, "f") == ["307,9"], "-F 'a&b,...' filters several variables", r.stderr)
r, o = copy_plain("-F", "a&b,307,9|32015,1")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,9", "32015,1"]
   and filters_of(o, "b") == ["307,9", "32015,1"]
   and strip_specials(dump(o)) == PLAIN_VALUES,
   "-F 'a&b,307,9|32015,1': a chain, in order", filters_of(o, "a"))
r, o = copy_plain("-F", "a,1,5ub", "-F", "b,307,7US")
ok(r.returncode == 0 and filters_of(o, "a") == ["1,5"] and filters_of(o, "b") == ["307,7"],
   "typed constants (5ub, 7US)", r.stderr + str(filters_of(o, "a")))
r, o = copy_plain("-F", "/g1/a,307,3")
ok(r.returncode == 0 and filters_of(o, "g1/a") == ["307,3"] and filters_of(o, "a") == [],
   "fully qualified name /g1/a", r.stderr + str(filters_of(o, "g1/a")))
r, o = copy_plain("-F", "a,307,2", "-F", "b,32015,4")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,2"] and filters_of(o, "b") == ["32015,4"],
   "repeated -F for different variables", r.stderr)
r, o = copy_plain("-F", "a,bzip2,6", "-F", "b,zstd,5")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,6"] and filters_of(o, "b") == ["32015,5"],
   "filters named (bzip2, zstd)", r.stderr)
r, o = copy_plain("-F", "*,1,3", "-F", "a,307,1")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,1"] and filters_of(o, "b") == ["1,3"],
   "a -F naming a variable wins over -F '*'", r.stderr)

# errors
r, o = copy_plain("-F", "nosuch,307,9")
ok(r.returncode != 0 and "nosuch" in r.stderr, "-F with an unknown variable: error naming it",
   r.stderr)
for bad in ("a", "a,", "a,abc", "a,307,9x", ",307", "a&,307"):
    r, o = copy_plain("-F", bad)
    ok(r.returncode != 0 and "-F" in r.stderr, f"malformed -F '{bad}': error", r.stderr)
r, o = copy_plain("-F", "a,65000,1")
ok(r.returncode != 0 and "65000" in r.stderr and "/a" in r.stderr,
   "unavailable filter id: error naming the id and the variable", r.stderr)
r, o = copy_plain("-F", "t,307,9")
ok(r.returncode != 0 and "/t" in r.stderr, "filter on a string variable: error", r.stderr)

# a failed copy never costs the dataset that was at OUT before
prev = fresh()
r0 = copy(RICH, prev)
before = dump(prev)
r = copy("-F", "a,65000,1", PLAIN, prev)   # fails once OUT is being written
ok(r0.returncode == 0 and r.returncode != 0 and "cannot apply filter" in r.stderr
   and dump(prev) == before
   and not [n for n in os.listdir(TMP) if "ncz-new" in n],
   "failed copy over an existing dataset: the previous one stays intact, nothing left beside it",
   r.stderr + dump(prev))

# ---------------------------------------------------------------- -c, -d, -s
r, o = copy_plain("-c", "x/6,y/2")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "2, 6"
   and specials(o, "f").get("_ChunkSizes") == "2, 6"
   and strip_specials(dump(o)) == PLAIN_VALUES, "-c x/6,y/2", r.stderr)
r, o = copy_plain("-c", "x/")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "3, 12",
   "-c x/ (whole dimension, others kept)", r.stderr + str(specials(o, "a")))
r, o = copy_plain("-c", "x/0")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "3, 12", "-c x/0", r.stderr)
r, o = copy_plain("-c", "a:6,5", "-c", "a:1,1")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "6, 5"
   and specials(o, "b").get("_ChunkSizes") == "3, 4"
   and strip_specials(dump(o)) == PLAIN_VALUES,
   "-c a:6,5 (per variable; a second -c for it is ignored)", r.stderr)
r, o = copy_plain("-c", "x/2", "-c", "a:6,5")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "6, 5"
   and specials(o, "b").get("_ChunkSizes") == "3, 2",
   "per-variable -c wins over per-dimension -c", r.stderr)
r, o = copy_plain("-c", "a:")
ok(r.returncode == 0 and specials(o, "a").get("_ChunkSizes") == "6, 12", "-c a: (contiguous)",
   r.stderr)
r, o = copy_plain("-c", "/")
ok(r.returncode == 0 and specials(o, "f").get("_ChunkSizes") == "6, 12"
   and filters_of(o, "f") == ["307,9"], "-c / (all contiguous)", r.stderr)
for bad in ("nosuch/3", "a:1", "a:0,1", "x/q", "x"):
    r, o = copy_plain("-c", bad)
    ok(r.returncode != 0, f"bad -c '{bad}': error", r.stderr)

r, o = copy_plain("-d", "4")
ok(r.returncode == 0 and filters_of(o, "a") == ["1,4"] and filters_of(o, "f") == ["307,9", "1,4"]
   and strip_specials(dump(o)) == PLAIN_VALUES, "-d 4 adds deflate to every variable",
   str(filters_of(o, "f")))
r, o = copy_plain("-d", "2", "-s")
ok(r.returncode == 0 and filters_of(o, "a") == ["2", "1,2"], "-d 2 -s: shuffle + deflate",
   str(filters_of(o, "a")))
r, o = copy_plain("-s")
ok(r.returncode == 0 and filters_of(o, "a") == [], "-s alone does nothing (as nccopy)")
out = fresh()
r = copy("-d", "0", RICH, out)
ok(r.returncode == 0 and filters_of(out, "d") == [] and filters_of(out, "v") == ["307,9"],
   "-d 0 drops deflate and shuffle, keeps other filters", str(filters_of(out, "d")))
r, o = copy_plain("-d", "1", "-F", "a,307,9")
ok(r.returncode == 0 and filters_of(o, "a") == ["307,9", "1,1"], "-d with -F", r.stderr)
r, o = copy_plain("-d", "12")
ok(r.returncode != 0, "-d 12: error", r.stderr)

# other options
r, o = copy_plain("-u", "-w", "-m", "1K", "-k", "nc4")
ok(r.returncode == 0 and strip_specials(dump(o)) == PLAIN_VALUES, "-u -w -m 1K -k nc4", r.stderr)
out = fresh()
r = copy("-u", RICH, out)
ok(r.returncode == 0 and "t = 5 ;" in dump(out), "-u makes unlimited dimensions fixed", r.stderr)
for bad in (["-k", "nc3"], ["-V", "a"], ["-3"]):
    r, o = copy_plain(*bad)
    ok(r.returncode != 0 and ("supported" in r.stderr or "possible" in r.stderr),
       f"{' '.join(bad)}: rejected clearly", r.stderr)

# ---------------------------------------------------------------- boxes of chunks
# Chunks are read several at a time and a box whose chunks all exist is
# written with one call: edge chunks, partly written variables and an
# unlimited dimension, on every core and on one.
GRID = make("grid", "grid")
grid_dir = os.path.join(TMP, "grid")
for label, env in (("all cores", None), ("one core", "taskset")):
    out = fresh()
    cmd = [NCZ_COPY, GRID, out]
    if env and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0"] + cmd
    r = run(cmd)
    out_dir = out.split("#")[0][len("file://"):]
    ok(r.returncode == 0 and dump(out) == dump(GRID) and files(grid_dir) == files(out_dir),
       f"chunk boxes ({label}): same values and the same chunk objects",
       r.stderr + f"{files(grid_dir)}\n{files(out_dir)}")

# ---------------------------------------------------------------- big data, small buffer
BIG = make("big", "big")
out = fresh()
t0 = time.time()
r = copy("-m", "100K", "-c", "r/100,col/300", BIG, out)
big_in = strip_specials(dump(BIG))
ok(r.returncode == 0 and strip_specials(dump(out)) == big_in
   and specials(out, "big").get("_ChunkSizes") == "100, 300",
   f"4 MiB variable rechunked through a 100 KB buffer ({time.time() - t0:.2f} s)", r.stderr)
out2 = fresh()
r = copy("-m", "100K", "-F", "big,32015,1", out, out2)
ok(r.returncode == 0 and strip_specials(dump(out2)) == big_in, "and back, compressed", r.stderr)

# ---------------------------------------------------------------- batches
# The values go in batches of chunks, read on every core and written
# while the next ones are read, in memory bounded by -m: hundreds of
# small chunks (edge chunks along every dimension, a block of chunks
# never written, a compressed variable, strings and a scalar beside),
# with the default -m and with small ones, on every core and on one.


def tree(d):
    """Every file under d with its bytes."""
    out = {}
    for p, _, fs in os.walk(d):
        for f in fs:
            with open(os.path.join(p, f), "rb") as fh:
                out[os.path.relpath(os.path.join(p, f), d)] = fh.read()
    return out


def data_part(u):
    """The values of a dump, which do not depend on the format: each
    variable's part of what follows "data:", by name (pure Zarr lists the
    variables in another order)."""
    text = dump(u)
    if "\ndata:\n" not in text:
        return {"no data": text}
    blocks = re.split(r"\n\n (?=\w+ =)", "\n" + text.split("\ndata:\n", 1)[1].rstrip("}\n"))
    return {b.split(" =", 1)[0].strip(): b.strip() for b in blocks if b.strip()}


def path_of(u):
    return u.split("#")[0][len("file://"):]


MANY = make("many", "many")
MANY_DATA = data_part(MANY)
ok(sorted(MANY_DATA) == ["c", "k", "m", "s"] and "_," in MANY_DATA["m"]
   and '"delta ünïcode"' in MANY_DATA["s"] and MANY_DATA["k"] == "k = 2.75 ;",
   "the many-chunk input holds fill values, strings and a scalar", str(MANY_DATA)[-600:])
many_ref = fresh()
r = copy(MANY, many_ref)
ref_tree = tree(path_of(many_ref))
ok(r.returncode == 0 and data_part(many_ref) == MANY_DATA
   and files(path_of(MANY)) == files(path_of(many_ref)),
   "many chunks: values kept, chunks never written stay unwritten", r.stderr)
for size in ("2K", "40K"):
    for label, prefix in (("all cores", []), ("one core", ["taskset", "-c", "0"])):
        if prefix and not shutil.which("taskset"):
            continue
        out = fresh()
        r = run(prefix + [NCZ_COPY, "-m", size, MANY, out], timeout=120)
        got = tree(path_of(out))
        ok(r.returncode == 0 and got == ref_tree,
           f"-m {size} ({label}): the same objects, byte for byte, as with the default -m",
           r.stderr + f"{sorted(set(got) ^ set(ref_tree))[:10]} "
           f"{[k for k in got if k in ref_tree and got[k] != ref_tree[k]][:10]}")

# through every format and back, in small batches
steps = [("Zarr", fresh("zarr")), ("NCZarr", fresh())]
if HAVE_HDF5:
    steps = [("HDF5", f"{TMP}/many1.nc"), ("Zarr", fresh("zarr")), ("HDF5", f"{TMP}/many2.nc"),
             ("NCZarr", fresh())]
src, src_name = MANY, "NCZarr"
for name, dst in steps:
    r = copy("-m", "16K", src, dst)
    ok(r.returncode == 0 and data_part(dst) == MANY_DATA,
       f"{src_name} -> {name} in small batches: the same values",
       r.stderr + str(data_part(dst))[:2000])
    src, src_name = dst, name
if HAVE_HDF5:
    for level in ("0", "1"):
        out = f"{TMP}/many-d{level}.nc"
        r = copy("-m", "16K", "-d", level, f"{TMP}/many1.nc", out)
        ok(r.returncode == 0 and data_part(out) == MANY_DATA
           and (specials(out, "m").get("_DeflateLevel") == ("1" if level == "1" else None)),
           f"HDF5 -> HDF5 -d {level} in small batches: the same values", r.stderr)

# a chunk that cannot be decoded, in the middle of the copy: the copy
# stops with an error naming the variable and the input, and the dataset
# it was to replace stays as it was
bad = fresh()
r0 = copy(MANY, bad)
with open(os.path.join(path_of(bad), "c", "4.5"), "wb") as f:
    f.write(b"not a zlib stream at all")
prev = fresh()
r1 = copy(RICH, prev)
before = tree(path_of(prev))
r = run([NCZ_COPY, "-m", "4K", bad, prev], timeout=120)
ok(r0.returncode == 0 and r1.returncode == 0 and r.returncode != 0
   and "'/c'" in r.stderr and path_of(bad) in r.stderr and tree(path_of(prev)) == before,
   "a bad chunk mid-copy: error naming the variable and the input; the previous dataset stays",
   r.stderr)
if HAVE_HDF5:
    out = f"{TMP}/bad.nc"
    r = run([NCZ_COPY, "-m", "4K", bad, out], timeout=120)
    ok(r.returncode != 0 and "'/c'" in r.stderr and not os.path.exists(out),
       "the same into a new HDF5 file: error, no file left", r.stderr)

# ---------------------------------------------------------------- progress bar


def run_pty(args):
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execv(args[0], args)
        finally:
            os._exit(127)
    chunks = []
    while True:
        try:
            rl, _, _ = select.select([fd], [], [], 30)
            if not rl:
                break
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace")


out = fresh()
code, text = run_pty([NCZ_COPY, "-m", "200K", BIG, out])
ok(code == 0 and re.search(r"\[#+\.*\]\s+\d+%", text) and "100%" in text and "MB/s" in text
   and "/big" in text, "progress bar on a terminal", repr(text[-400:]))
ok(re.search(r"copied 1 variable, 4\.2 MB in [\d.]+ s \([\d.]+ MB/s\)", text),
   "summary line on a terminal", repr(text[-200:]))
code, text = run_pty([NCZ_COPY, "-q", BIG, fresh()])
ok(code == 0 and text == "", "-q: nothing on a terminal", repr(text))
r = copy(BIG, fresh())
ok(r.returncode == 0 and r.stderr == "" and r.stdout == "", "nothing printed without a terminal",
   r.stderr)

# ---------------------------------------------- compressed strings of plain Zarr
# zarr-python and xarray compress string arrays (|O + vlen-utf8, then the
# compressor); NCZarr strings take no filters: the copy keeps the values,
# drops the compression and says so; asking for a filter on them with -F
# is still an error.
zs = os.path.join(TMP, "zstrings.zarr")
subprocess.run(["/usr/bin/python3", "-c", f"""
import zarr, numcodecs, numpy as np
g = zarr.open_group({zs!r}, mode="w")
a = g.create_dataset("name", shape=(3,), chunks=(2,), dtype=object,
                     object_codec=numcodecs.VLenUTF8(), compressor=numcodecs.Blosc())
a[:] = np.array(["Zürich", "São Paulo", "x"], dtype=object)
a.attrs["_ARRAY_DIMENSIONS"] = ["station"]
"""], check=True)
out = fresh()
r = copy(f"file://{zs}#mode=zarr,file", out)
ok(r.returncode == 0 and "name = \"Zürich\", \"São Paulo\", \"x\" ;" in dump(out)
   and "copied without compression" in r.stderr and "'/name'" in r.stderr,
   "plain Zarr compressed strings -> NCZarr: values kept, compression dropped with a notice",
   r.stderr + dump(out))
r = copy("-q", f"file://{zs}#mode=zarr,file", fresh())
ok(r.returncode == 0 and r.stderr == "", "-q: no notice", r.stderr)
r = copy("-F", "name,307,9", f"file://{zs}#mode=zarr,file", fresh())
ok(r.returncode != 0 and "name" in r.stderr, "-F on those strings is still an error", r.stderr)

print(f"1..{N}")
shutil.rmtree(TMP, ignore_errors=True)
sys.exit(1 if FAILED else 0)
