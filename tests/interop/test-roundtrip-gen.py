#!/usr/bin/python3
# test-roundtrip-gen.py: ncz-dump X | ncz-gen -o Y gives a Y that dumps as X
#
# Usage: test-roundtrip-gen.py WRITE_ALL WRITE_CODECS NCZ_DUMP NCZ_GEN
#
# For the datasets the test suite writes -- write-all's (every type, both
# byte orders, fill values, no-fill, strings, scalars, groups, unlimited
# dimensions) in NCZarr and in pure Zarr, and write-codecs' filter chains
# and groups -- the CDL ncz-dump prints is fed to ncz-gen, and the new
# dataset must dump to the same text: plain (data), and with -s (chunking,
# filters, endianness, fill) for NCZarr. Prints TAP.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=""):
        self.n += 1
        if cond:
            print("ok %d %s" % (self.n, name))
        else:
            self.failed += 1
            print("not ok %d %s" % (self.n, name))
            for line in str(diag).splitlines()[:40]:
                print("# " + line)
        sys.stdout.flush()
        return cond


def run(argv, stdin=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=300)


def first_difference(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<end>"
        y = bl[i] if i < len(bl) else "<end>"
        if x != y:
            return "line %d:\n- %s\n+ %s" % (i + 1, x, y)
    return ""


# write-codecs variables: NAME:TYPE:SHAPE:CHUNKS:CHAIN (see write-codecs.c)
CODEC_SETS = [
    ("chains", [], [
        "z1:float:6,10:3,5:@zstandard:1",
        "b1:int:20:7:@bzip2:9",
        "d1:double:4,4,4:2,2,2:@deflate:1:5",
        "s1:short:30:8:@shuffle|@deflate:0:1",
        "f1:ushort:12:12:@fletcher32|@zstandard:3",
        "bl:float:16,16:8,8:@blosc:lz4:5:0:1",
        "u_a:int64:9:4:=32015,1",
        "n1:ubyte:5:5:none",
    ]),
    ("group", ["--group=g1", "--dims=t,x", "--fill-attr"], [
        "v1:int:4,6:2,3:@zstandard:1",
        "v2:double:4,6:4,6:@deflate:1:1",
    ]),
    ("nofill", ["--no-fill"], [
        "w:uint:7,3:4,2:none",
    ]),
]


def main():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: test-roundtrip-gen.py WRITE_ALL WRITE_CODECS NCZ_DUMP NCZ_GEN\n")
        return 2
    write_all, write_codecs, ncz_dump, ncz_gen = sys.argv[1:]
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="ncz-roundtrip-")
    try:
        sources = []
        for mode in ("nczarr", "zarr"):
            url = "file://%s/all-%s.file#mode=%s,file" % (tmp, mode, mode)
            p = run([write_all, url, os.path.join(tmp, "manifest-%s.json" % mode)])
            if tap.ok(p.returncode == 0, "write-all writes %s" % mode, p.stderr):
                sources.append(("all-" + mode, mode, url))
        for name, options, specs in CODEC_SETS:
            url = "file://%s/codecs-%s.file#mode=nczarr,file" % (tmp, name)
            p = run([write_codecs] + options + [url] + specs)
            if tap.ok(p.returncode == 0, "write-codecs writes %s" % name, p.stderr):
                sources.append(("codecs-" + name, "nczarr", url))

        for label, mode, url in sources:
            flag_sets = [[]] + ([["-s"]] if mode == "nczarr" else [])
            for flags in flag_sets:
                what = "%s %s" % (label, " ".join(flags) or "plain")
                first = run([ncz_dump] + flags + [url])
                if not tap.ok(first.returncode == 0, "%s: ncz-dump reads the source" % what,
                              first.stderr):
                    continue
                out_dir = os.path.join(tmp, "gen-%s-%d" % (label, len(flags)))
                out_url = "file://%s#mode=%s,file" % (out_dir, mode)
                gen = run([ncz_gen, "-o", out_url, "-"], stdin=first.stdout)
                if not tap.ok(gen.returncode == 0, "%s: ncz-gen reads the dump" % what,
                              gen.stderr):
                    continue
                second = run([ncz_dump] + flags + [out_url])
                if not tap.ok(second.returncode == 0, "%s: ncz-dump reads the copy" % what,
                              second.stderr):
                    continue
                # the dataset's name comes from its path: compare the rest
                a = first.stdout.split("\n", 1)[1]
                b = second.stdout.split("\n", 1)[1]
                tap.ok(a == b, "%s: the regenerated dataset dumps the same" % what,
                       first_difference(a, b))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
