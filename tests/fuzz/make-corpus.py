#!/usr/bin/python3
# make-corpus.py: builds the seed corpus of fuzz-metadata from real stores
#
# Usage: make-corpus.py CORPUS_ROOT OUTPUT_DIR
#
# For every array of every zipped directory store under CORPUS_ROOT
# (netcdf-c's and zarr-python's, see shared/corpus), writes one seed:
# root .zgroup, root .zattrs, the array's .zarray and .zattrs and its first
# chunk (cut to 4 KiB), joined by the byte 0xFF (the layout fuzz-metadata.c
# reads). The array is renamed "v" and the group metadata that lists
# arrays is rewritten to list only "v", so the seed opens as a dataset.
# The seeds are kept in the repository; rerun this only to refresh them.
#
# SPDX-License-Identifier: BSD-3-Clause

import hashlib
import json
import os
import sys
import zipfile

SEP = b"\xff"
MAX_CHUNK = 4096


def rewrite_group(text):
    """Point _nczarr_group / _NCZARR_GROUP listings at the one array 'v'."""
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if not isinstance(obj, dict):
        return text
    changed = False
    for key in ("_nczarr_group", "_NCZARR_GROUP"):
        g = obj.get(key)
        if isinstance(g, dict):
            for k in ("vars", "arrays"):
                if k in g:
                    g[k] = ["v"]
                    changed = True
            if "groups" in g:
                g["groups"] = []
                changed = True
    if not changed:
        return text
    return json.dumps(obj).encode()


def seeds_of_zip(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        files = {n: z.read(n) for n in names if not n.endswith("/")}
    # find store roots: directories holding .zgroup or .zarray at top
    roots = set()
    for n in files:
        parts = n.split("/")
        if parts[-1] == ".zgroup" and len(parts) == 2:
            roots.add(parts[0] + "/")
        if parts[-1] in (".zgroup", ".zarray") and len(parts) == 1:
            roots.add("")
    out = []
    for root in sorted(roots):
        zgroup = files.get(root + ".zgroup", b"")
        zattrs = files.get(root + ".zattrs", b"")
        arrays = sorted(n[:-len("/.zarray")] for n in files
                        if n.startswith(root) and n.endswith("/.zarray"))
        if root + ".zarray" in files:
            arrays.append(root.rstrip("/"))
        for a in arrays:
            prefix = a + "/" if a else ""
            zarray = files.get(prefix + ".zarray", b"")
            vattrs = files.get(prefix + ".zattrs", b"")
            chunks = sorted(n for n in files if n.startswith(prefix) and
                            "/" not in n[len(prefix):].replace("/", "", 0) and
                            not os.path.basename(n).startswith("."))
            chunks = [c for c in chunks if c[len(prefix):] and
                      not c[len(prefix):].startswith(".")]
            chunk = files[chunks[0]][:MAX_CHUNK] if chunks else b""
            out.append(SEP.join([rewrite_group(zgroup), rewrite_group(zattrs),
                                 zarray, vattrs, chunk]))
    return out


def main():
    if len(sys.argv) != 3:
        print("usage: make-corpus.py CORPUS_ROOT OUTPUT_DIR", file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    seen = set()
    count = 0
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".zip"):
                continue
            try:
                seeds = seeds_of_zip(os.path.join(dirpath, f))
            except (zipfile.BadZipFile, KeyError):
                continue
            for s in seeds:
                h = hashlib.sha1(s).hexdigest()
                if h in seen:
                    continue
                seen.add(h)
                with open(os.path.join(dst, "seed-" + h[:12]), "wb") as fh:
                    fh.write(s)
                count += 1
    print("%d seeds written to %s" % (count, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
