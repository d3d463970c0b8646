#!/usr/bin/python3
# test-hdf5-vfd-dump.py: netCDF-4 files read through a store (#mode=bytes)
# dump as the same files opened directly, printing TAP:
#  - a handful of files `ncgen -4` writes from the corpus's CDL (groups,
#    strings, unlimited dimensions, deflate) and one made here with a
#    variable of a few MiB (reads that bypass the block cache, reads that
#    span several blocks, more blocks than the cache keeps): `ncz-dump`,
#    `-s` and `-h` of `PATH#mode=bytes` equal those of `PATH`;
#  - the same files inside zip archives, deflated and stored
#    (`A.zip#mode=bytes&key=NAME`, also under a folder of the archive);
#  - a file named by its directory and `key=` (`DIR#mode=bytes&key=NAME`);
#  - truncated copies (several lengths), a missing key, a zip without
#    `key=`, a file that is not HDF5: an error naming the URL, exit status
#    1, no crash, nothing from HDF5 on stderr.
#
#   test-hdf5-vfd-dump.py --ncz-dump=PATH
#
# Environment: NCZ_CORPUS_DIR (the shared corpus, containing netcdf-c/),
# NCGEN (optional path of ncgen). Skips (77) without ncgen or zip.
#
# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 300
CDL_CASES = [
    # corpus path under netcdf-c/, what it has
    ("v4.9.3/ref_groups_regular.cdl", "groups, deflate"),
    ("generated/gen490/t.cdl", "groups, strings"),
    ("v4.9.3/ref_fillonly.cdl", "unlimited dimension, fill values"),
    ("generated/gen490/types.cdl", "every atomic type"),
    ("v4.9.3/ref_avail1.cdl", "a larger variable"),
]


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        print(f"{'ok' if cond else 'not ok'} {self.n} - {name}")
        if not cond:
            self.failed += 1
            for line in str(detail).splitlines()[:40]:
                print(f"# {line}")
        sys.stdout.flush()
        return cond

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0


# (A run that LeakSanitizer's runtime itself fails at exit is made again
# without the leak check by tests/pyhooks/sitecustomize.py.)
def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, errors="replace",
                          timeout=TIMEOUT)


def body(text):
    """A dump without its first line, which names the dataset after its URL."""
    return text.split("\n", 1)[1] if "\n" in text else text


def big_cdl(path):
    """A file of a few MiB: a chunked, deflated variable and a contiguous
    one, plus groups and attributes, so that metadata and data lie far
    apart."""
    n = 400000
    lines = ["netcdf big {", "dimensions:", f"  n = {n} ;", "  t = UNLIMITED ;", "variables:",
             "  double a(n) ;", "    a:_Storage = \"contiguous\" ;",
             "  int b(n) ;", "    b:_ChunkSizes = 50000 ;", "    b:_DeflateLevel = 1 ;",
             "  float c(t) ;",
             "  :title = \"big\" ;"]
    lines += ["data:"]
    lines.append("  a = " + ", ".join(str(i * 0.5) for i in range(n)) + " ;")
    lines.append("  b = " + ", ".join(str((i * 7919) % 100003) for i in range(n)) + " ;")
    lines.append("  c = 1, 2, 3 ;")
    for g in range(4):
        lines += [f"group: g{g} {{", "  variables:", f"    short s{g}(n) ;",
                  f"      s{g}:_ChunkSizes = 65536 ;", f"      s{g}:units = \"g{g}\" ;",
                  "  data:", f"    s{g} = " + ", ".join(str((i + g) % 30000) for i in range(0, n, 7))
                  + " ;", "  }"]
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ncz-dump", default=os.environ.get("NCZ_DUMP"))
    args = ap.parse_args()
    ncgen = os.environ.get("NCGEN") or shutil.which("ncgen")
    zip_prog = shutil.which("zip")
    corpus = os.path.join(os.environ.get("NCZ_CORPUS_DIR", ""), "netcdf-c")
    if not args.ncz_dump:
        print("1..0 # SKIP no ncz-dump given")
        return 77
    if not ncgen or not zip_prog:
        print(f"1..0 # SKIP needs ncgen and zip (ncgen: {ncgen}, zip: {zip_prog})")
        return 77
    if not os.path.isdir(corpus):
        print(f"1..0 # SKIP no corpus at {corpus} (NCZ_CORPUS_DIR)")
        return 77

    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="ncz-vfd-")
    try:
        files = []
        for rel, what in CDL_CASES:
            cdl = os.path.join(corpus, rel)
            name = os.path.splitext(os.path.basename(rel))[0]
            out = os.path.join(tmp, name + ".nc")
            r = run([ncgen, "-4", "-o", out, cdl])
            if tap.ok(r.returncode == 0, f"ncgen -4 {rel} ({what})", r.stderr):
                files.append(out)
        cdl = os.path.join(tmp, "big.cdl")
        big_cdl(cdl)
        big = os.path.join(tmp, "big.nc")
        r = run([ncgen, "-4", "-o", big, cdl])
        if tap.ok(r.returncode == 0, "ncgen -4 of a file of a few MiB", r.stderr):
            files.append(big)

        def check(path, url, opts, label):
            a = run([args.ncz_dump] + opts + [path])
            b = run([args.ncz_dump] + opts + [url])
            tap.ok(a.returncode == 0 and b.returncode == 0 and body(a.stdout) == body(b.stdout)
                   and "HDF5" not in b.stderr,
                   f"ncz-dump {' '.join(opts)} {label} equals the direct dump",
                   f"{path}: exit {a.returncode}: {a.stderr}\n{url}: exit {b.returncode}: "
                   f"{b.stderr}\n" + "".join(
                       line + "\n" for line in
                       __import__("difflib").unified_diff(body(a.stdout).splitlines(),
                                                          body(b.stdout).splitlines(),
                                                          lineterm=""))[:3000])

        # local files through the file store
        for path in files:
            name = os.path.basename(path)
            for opts in ([], ["-s"], ["-h"]):
                check(path, path + "#mode=bytes", opts, f"{name}#mode=bytes")
        if files:
            path = files[0]
            check(path, f"{os.path.dirname(path)}#mode=bytes&key={os.path.basename(path)}", [],
                  "DIR#mode=bytes&key=NAME")
            check(path, f"file://{path}#mode=bytes", ["-h"], "file://PATH#mode=bytes")

        # inside zip archives: deflated, stored, and under a folder
        deflated = os.path.join(tmp, "deflated.zip")
        stored = os.path.join(tmp, "stored.zip")
        nested = os.path.join(tmp, "nested.zip")
        names = [os.path.basename(p) for p in files]
        r1 = subprocess.run([zip_prog, "-q", deflated] + names, cwd=tmp, capture_output=True)
        r2 = subprocess.run([zip_prog, "-q", "-0", stored] + names, cwd=tmp, capture_output=True)
        os.makedirs(os.path.join(tmp, "sub", "dir"))
        if files:
            shutil.copy(files[0], os.path.join(tmp, "sub", "dir", names[0]))
        r3 = subprocess.run([zip_prog, "-q", "-r", nested, "sub"], cwd=tmp, capture_output=True)
        tap.ok(r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
               "zip archives of the files", f"{r1.stderr}{r2.stderr}{r3.stderr}")
        for archive in (deflated, stored):
            for path in files:
                name = os.path.basename(path)
                for opts in ([], ["-h"]):
                    check(path, f"{archive}#mode=bytes&key={name}", opts,
                          f"{os.path.basename(archive)}#mode=bytes&key={name}")
        if files:
            check(files[0], f"{nested}#mode=bytes&key=sub/dir/{names[0]}", [],
                  "nested.zip#mode=bytes&key=sub/dir/NAME")
            # the dataset is named after the key's file, not the archive
            r = run([args.ncz_dump, "-h", f"{nested}#mode=bytes&key=sub/dir/{names[0]}"])
            want = "netcdf %s {" % os.path.splitext(names[0])[0]
            first = r.stdout.split("\n", 1)[0]
            tap.ok(first == want, "a file named by key= is named after the key in the dump",
                   f"first line {first!r}, wanted {want!r}")

        # failures: an error, exit 1, no crash, nothing from HDF5
        def fails(url, label, want=()):
            r = run([args.ncz_dump, url])
            err = r.stderr
            tap.ok(r.returncode == 1 and "HDF5-DIAG" not in err and url in err
                   and all(w in err for w in want) and r.stdout == "",
                   f"{label}: an error, exit 1", f"exit {r.returncode}\nstderr: {err}\n"
                   f"stdout: {r.stdout[:500]}")
            return err

        if files:
            src = files[0]
            size = os.path.getsize(src)
            for length in (0, 7, 8, 100, 511, 4096, size // 2, size - 1):
                cut = os.path.join(tmp, f"cut-{length}.nc")
                with open(src, "rb") as f, open(cut, "wb") as g:
                    g.write(f.read(length))
                fails(cut + "#mode=bytes", f"a copy truncated to {length} of {size} bytes")
            cut = os.path.join(tmp, "cut-zip.nc")
            with open(src, "rb") as f, open(cut, "wb") as g:
                g.write(f.read(size // 3))
            cutzip = os.path.join(tmp, "cut.zip")
            subprocess.run([zip_prog, "-q", cutzip, os.path.basename(cut)], cwd=tmp)
            fails(f"{cutzip}#mode=bytes&key=cut-zip.nc", "a truncated file inside a zip",
                  ["cut-zip.nc"])
            if big in files:
                cut = os.path.join(tmp, "cut-big.nc")
                with open(big, "rb") as f, open(cut, "wb") as g:
                    g.write(f.read(os.path.getsize(big) - 100000))
                fails(cut + "#mode=bytes", "a big file cut short")
        fails(os.path.join(tmp, "missing.nc") + "#mode=bytes", "a missing file",
              ["missing.nc"])
        fails(f"{stored}#mode=bytes&key=missing.nc", "a key missing from a zip",
              ["missing.nc"])
        fails(f"{stored}#mode=bytes", "a zip without key=", ["key"])
        notnc = os.path.join(tmp, "plain.txt")
        with open(notnc, "w") as f:
            f.write("this is not an HDF5 file\n" * 100)
        fails(notnc + "#mode=bytes", "a file that is not HDF5", ["plain.txt"])
        fails(f"{tmp}/#mode=bytes", "a URL naming a directory")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
