# interop_common.py: shared helpers of the interoperability tests
#
# The value formula here is the same as the one in write-all.c: element
# number i (C order, over the variable's whole shape) of a variable with
# seed k holds value(type, i + 31 * k). Both sides compute it
# independently; the manifest written by write-all only says which
# variables exist, their shape and which hyperslab was written.
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

SKIP = 77

NUMERIC_TYPES = ["byte", "ubyte", "short", "ushort", "int", "uint",
                 "int64", "uint64", "float", "double"]

# dtype (little-endian / big-endian) of each netCDF type in Zarr.
DTYPE = {
    "byte": "i1", "ubyte": "u1", "short": "i2", "ushort": "u2",
    "int": "i4", "uint": "u4", "int64": "i8", "uint64": "u8",
    "float": "f4", "double": "f8",
}

# netCDF default fill values (netcdf.h), as Python numbers.
DEFAULT_FILL = {
    "byte": -127, "ubyte": 255, "short": -32767, "ushort": 65535,
    "int": -2147483647, "uint": 4294967295,
    "int64": -9223372036854775806, "uint64": 18446744073709551614,
    "float": 9.9692099683868690e+36, "double": 9.9692099683868690e+36,
    "char": "", "string": "",
}

M32 = 1 << 32
M64 = 1 << 64
GOLDEN64 = 0x9E3779B97F4A7C15


def value(typ, n):
    """The test value of element with formula argument n (= i + 31 k)."""
    if typ == "byte":
        return (n * 37 + 11) % 256 - 128
    if typ == "ubyte":
        return (n * 37 + 11) % 256
    if typ == "short":
        return (n * 1237 + 11) % 65536 - 32768
    if typ == "ushort":
        return (n * 1237 + 11) % 65536
    if typ == "int":
        return (n * 2654435761 + 12345) % M32 - (1 << 31)
    if typ == "uint":
        return (n * 2654435761 + 12345) % M32
    if typ == "int64":
        return (n * GOLDEN64 + 1) % M64 - (1 << 63)
    if typ == "uint64":
        return (n * GOLDEN64 + 1) % M64
    if typ == "float":
        import numpy as np
        return float(np.float32(float(n) * 1.1 - 5.0))
    if typ == "double":
        return float(n) * 0.1 - 3.0 / 7.0
    if typ == "char":
        return chr(ord("a") + n % 26)
    if typ == "string":
        return "s%d%s" % (n, "-" * (n % 4))
    raise ValueError("unknown type " + typ)


def values(typ, count, seed):
    return [value(typ, i + 31 * seed) for i in range(count)]


def same_number(a, b, typ):
    """Exact equality for the test's numbers, NaN equal to NaN; float
    values compare after rounding both to float32."""
    if isinstance(a, str) or isinstance(b, str):
        a = special_float(a)
        b = special_float(b)
    if a is None or b is None:
        return a is b
    if typ in ("float", "double") or isinstance(a, float) or isinstance(b, float):
        a = float(a)
        b = float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if typ == "float":
            import numpy as np
            return np.float32(a) == np.float32(b)
        return a == b
    return int(a) == int(b)


def special_float(v):
    """"NaN", "Infinity", "-Infinity" (any case) as floats; other values
    unchanged."""
    if isinstance(v, str):
        low = v.lower()
        if low in ("nan", "-nan"):
            return float("nan")
        if low in ("infinity", "inf", "+infinity"):
            return float("inf")
        if low in ("-infinity", "-inf"):
            return float("-inf")
    return v


def have_zarr():
    try:
        import zarr  # noqa: F401
        import numpy  # noqa: F401
        return True
    except ImportError:
        return False


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


class Checker:
    """Collects failures; every check prints one line."""

    def __init__(self):
        self.failures = 0
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        if ok:
            print("ok   " + what)
        else:
            self.failures += 1
            print("FAIL " + what)
        return ok

    def finish(self):
        print("%d checks, %d failed" % (self.checks, self.failures))
        sys.exit(1 if self.failures else 0)


class Tap:
    """TAP output: one line a check, the plan printed by the caller at
    the end ("1..%d" % tap.n)."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=""):
        self.n += 1
        print(("ok %d %s" if cond else "not ok %d %s") % (self.n, name))
        if not cond:
            self.failed += 1
            for line in str(diag).splitlines()[:40]:
                print("# " + line)
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d %s # SKIP %s" % (self.n, name, why))
        sys.stdout.flush()


def make_tmpdir(name):
    base = os.environ.get("NCZ_INTEROP_TMPDIR") or tempfile.gettempdir()
    return tempfile.mkdtemp(prefix="ncz-" + name + "-", dir=base)


def remove_tmpdir(path):
    if not os.environ.get("NCZ_INTEROP_KEEP"):
        shutil.rmtree(path, ignore_errors=True)


def run(argv, **kw):
    print("$ " + " ".join(argv), flush=True)
    return subprocess.run(argv, **kw)


def load_json(path):
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f)


# ---- reading the data section of a CDL dump (ncdump, ncz-dump) ----


def cdl_tokens(text):
    """The values of one variable's data: numbers, '_' and strings."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in " \t\n,":
            i += 1
        elif c == '"':
            j = i + 1
            buf = []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                    buf.append({"n": "\n", "t": "\t", "0": "\0"}.get(text[j], text[j]))
                else:
                    buf.append(text[j])
                j += 1
            out.append(("s", "".join(buf)))
            i = j + 1
        else:
            j = i
            while j < len(text) and text[j] not in " \t\n,":
                j += 1
            out.append(("n", text[i:j]))
            i = j
    return out


def cdl_data(text):
    """path/var -> the tokens of its data (cdl_tokens), from a CDL dump."""
    values = {}
    groups = []
    in_data = False
    current = None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"group: (\S+) \{", s)
        if m and current is None:
            groups.append(m.group(1))
            in_data = False
            continue
        if s == "data:" and current is None:
            in_data = True
            continue
        if s == "}" and current is None:
            if groups:
                groups.pop()
            in_data = False
            continue
        if not in_data:
            continue
        if current is None:
            m = re.match(r"(\S+) =(.*)", line.strip(), re.S)
            if not m:
                continue
            current = ["/".join(groups + [m.group(1)]), m.group(2)]
        else:
            current[1] += "\n" + line
        if current[1].rstrip().endswith(";"):
            values[current[0]] = cdl_tokens(current[1].rstrip()[:-1])
            current = None
    return values
