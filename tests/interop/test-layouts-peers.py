#!/usr/bin/python3
# test-layouts-peers.py: each NCZarr layout Ncz writes is read by the
# netcdf-c version it is meant for, with an unlimited dimension, a
# subgroup using it and every numeric type plus char.
#
#   keys        (netcdf-c 4.9.1-4.9.2 layout) -> ncdump 4.9.2
#   keys-upper  (netcdf-c 4.9.0 layout)       -> ncdump 4.9.0 (Debian)
#   attributes  (netcdf-c 4.9.3+ layout)      -> ncdump 4.9.3 and 4.10.1
#
# ncdump's output must equal ncz-dump's, except that netcdf-c before
# 4.9.3 has no unlimited dimensions in NCZarr and prints the current
# length. No reader may crash (a signal) on any layout for a dataset
# without char or scalar variables (netcdf-c 4.9.0 crashes on ">S1" chars
# and on scalars whatever writes them; that is not checked here), except
# netcdf-c 4.9.3+ on the keys layout (see below).
#
# usage: test-layouts-peers.py NCZ-GEN NCZ-DUMP
# Versions whose ncdump is missing are skipped (TAP "# SKIP").
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_common import Tap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("NCZ_SOURCE_ROOT", os.path.join(HERE, "..", ".."))
PEERS = os.path.join(SOURCE_ROOT, "..", "shared", "peers")

CDL_TYPES = """
	byte b(n) ; ubyte ub(n) ; short s(n) ; ushort us(n) ; int i(n) ;
	uint ui(n) ; int64 i8(n) ; uint64 u8(n) ; float f(n) ; double d(n) ;
"""
DATA_TYPES = """
 b = -1, 2 ; ub = 1, 255 ; s = -300, 2 ; us = 1, 65535 ; i = -70000, 2 ;
 ui = 1, 4294967295 ; i8 = -5000000000, 2 ; u8 = 1, 18446744073709551615 ;
 f = 1.5, -2.25 ; d = 1.125, 1e+300 ;
"""


def cdl(with_char):
    char_var = "\tchar c(n) ;\n" if with_char else ""
    char_data = ' c = "ab" ;\n' if with_char else ""
    return ("netcdf t {\ndimensions:\n\ttime = UNLIMITED ;\n\tn = 2 ;\nvariables:\n"
            "\tint time(time) ;\n\tfloat v(time, n) ;\n\t\tv:units = \"K\" ;\n"
            "\t\tv:_FillValue = -999.f ;\n" + CDL_TYPES + char_var +
            "\n// global attributes:\n\t\t:title = \"layouts\" ;\ndata:\n"
            " time = 0, 1, 2 ;\n v = 1, 2, 3, 4, 5, _ ;\n" + DATA_TYPES + char_data +
            "\ngroup: g {\n  dimensions:\n  \tm = 3 ;\n  variables:\n"
            "  \tint w(time, m) ;\n  \tshort z(n) ;\n  data:\n"
            "   w = 1, 2, 3, 4, 5, 6, 7, 8, 9 ;\n   z = 1, 2 ;\n  } // group g\n}\n")


def ncdump_cmd(version):
    """argv prefix running that version's ncdump, or None."""
    if version == "4.9.0":
        path = shutil.which("ncdump")
        return [path] if path else None
    env_sh = os.path.join(PEERS, "netcdf-c-" + version, "env.sh")
    if not os.path.exists(env_sh):
        return None
    return ["bash", "-c", 'source "$0" >/dev/null 2>&1 && exec ncdump "$1"', env_sh]


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def body(text):
    """The dump without its first line (the dataset name)."""
    return text.split("\n", 1)[1] if "\n" in text else text


def main():
    ncz_gen, ncz_dump = sys.argv[1], sys.argv[2]
    tap = Tap()
    work = tempfile.mkdtemp(prefix="ncz-layouts-peers-")
    targets = [("keys", ["4.9.2"]), ("keys-upper", ["4.9.0"]),
               ("attributes", ["4.9.3", "4.10.1"])]
    versions = ["4.9.0", "4.9.2", "4.9.3", "4.10.1"]
    try:
        for layout, readers in targets:
            for with_char in (True, False):
                tag = "%s%s" % (layout, "" if with_char else "-nochar")
                url = "file://%s/%s#mode=nczarr,file&layout=%s" % (work, tag, layout)
                r = subprocess.run([ncz_gen, "-o", url, "-"], input=cdl(with_char),
                                   capture_output=True, text=True, timeout=120)
                tap.ok(r.returncode == 0, "ncz-gen writes layout %s" % tag, r.stderr)
                if r.returncode != 0:
                    continue
                plain = "file://%s/%s#mode=nczarr,file" % (work, tag)
                mine = run([ncz_dump, plain])
                tap.ok(mine.returncode == 0 and "time = UNLIMITED ; // (3 currently)" in mine.stdout,
                       "ncz-dump reads %s back with time unlimited" % tag, mine.stdout + mine.stderr)
                expect = body(mine.stdout)
                if layout != "attributes":
                    expect = expect.replace("time = UNLIMITED ; // (3 currently)", "time = 3 ;")
                for v in versions:
                    cmd = ncdump_cmd(v)
                    name = "ncdump %s on layout %s" % (v, tag)
                    if cmd is None:
                        tap.skip(name, "netcdf-c %s not installed" % v)
                        continue
                    theirs = run(cmd + [plain])
                    if v in readers:
                        diff = "".join(l for l in __import__("difflib").unified_diff(
                            expect.splitlines(True), body(theirs.stdout).splitlines(True)))
                        tap.ok(theirs.returncode == 0 and body(theirs.stdout) == expect,
                               name + " reads what ncz-dump prints",
                               "rc %d\n%s%s" % (theirs.returncode, theirs.stderr, diff))
                    elif layout == "keys" and v in ("4.9.3", "4.10.1"):
                        # netcdf-c 4.9.3+ reads the 4.9.2 layout with a
                        # subgroup that has its own dimensions only to fail
                        # ("NCZarr error" without _ARRAY_DIMENSIONS there,
                        # a crash with it); layout=attributes is for them
                        continue
                    elif not with_char:
                        tap.ok(theirs.returncode >= 0 and theirs.returncode < 128,
                               name + " fails or reads without a crash",
                               "rc %d %s" % (theirs.returncode, theirs.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
