#!/usr/bin/python3
# test-unicode-text.py: names and attribute texts outside ASCII (Latin,
# Greek, Cyrillic, CJK, emoji beyond U+FFFF) in group, variable, dimension
# and attribute names and in char and string attribute values, written by
# ncz-gen in pure Zarr and in each NCZarr layout, read whole by
# zarr-python and by ncdump of netcdf-c 4.9.0 (Debian), 4.9.2, 4.9.3 and
# 4.10.1 (../shared/peers).
#
# The two kinds of reader want different metadata text, and no text suits
# both:
# - zarr-python before 2.14 (Debian 12 has 2.13) decodes .zgroup, .zarray,
#   .zattrs and .zmetadata as ASCII and fails on anything else
#   (UnicodeDecodeError); it writes every other character as a \u escape.
# - netcdf-c, every version up to 4.10.1, does not decode \u escapes: it
#   drops the backslash and keeps "u00e9" as text, and an NCZarr store
#   whose group, variable or dimension names are escaped does not open.
# So Ncz writes pure Zarr escaped (json=ascii, its default there) and the
# NCZarr layouts in UTF-8 (json=utf-8, their default), and either form on
# request. This test checks each store with every reader and states, for
# each reader that cannot read a form, what it does instead.
#
# usage: test-unicode-text.py NCZ-GEN NCZ-DUMP
# Output is TAP. A netcdf-c version whose ncdump is missing is skipped
# ("# SKIP"), and so is zarr-python when /usr/bin/python3 lacks it.
#
# SPDX-License-Identifier: BSD-3-Clause

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_common import Tap, cdl_tokens  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("NCZ_SOURCE_ROOT", os.path.join(HERE, "..", ".."))
PEERS = os.path.join(SOURCE_ROOT, "..", "shared", "peers")
VERSIONS = ["4.9.0", "4.9.2", "4.9.3", "4.10.1"]
METADATA = (".zgroup", ".zarray", ".zattrs", ".zmetadata")


# ---- the dataset ----
#
# A group: (dims [(name, length)], variables [(type, name, dims, attrs,
# data)], attrs, subgroups [(name, group)]). An attribute value that is a
# str is a char attribute, a list of str a string attribute.

SUB2 = ([], [("int", "😀v", ["ñ"], {"emoji": "😀 🎉 𝄞"}, [7, 8])],
        {"名前": "子グループ 😀"}, [])
SUB = ([("ñ", 2)],
       [("short", "ψ", ["ñ"], {"ψattr": "ψψ – Ψ"}, [1, 2]),
        ("int", "中文", ["dïm"], {"描述": "中文字符 ☃ 漢字"}, [5, 6])],
       {"群": "グループ", "labels": ["α", "β", "γ"]},
       [("中文组", SUB2)])
ROOT = ([("dïm", 2), ("Δθ", 3), ("время", 2), ("时间", 2)],
        [("int", "température", ["dïm"],
          {"units": "°C", "long_name": "Température à l'été"}, [1, 2]),
         ("float", "Ωμέγα", ["Δθ"], {"note": "Ωμέγα – ελληνικά"}, [1.5, 2.5, 3.5]),
         ("short", "Привет", ["время"],
          {"описание": "Привет, мир", "labels": ["привет", "мир", "😀"]}, [3, 4]),
         ("int", "文字", ["时间"], {"desc": "中文 😀 日本語"}, [9, 10]),
         ("int", "😀", ["dïm"], {"emoji": "😀🎉 ok"}, [11, 12])],
       {"title": "Ünïcödé – Ωμέγα – Привет – 中文 – 😀",
        "keywords": ["été", "中文", "😀"],
        "plain": "ASCII,\ttab"},
       [("grüppe été", SUB)])


def without_strings(group):
    """The dataset without string attributes (netcdf-c 4.9.0 fails on
    them, whatever the text: 'Invalid argument')."""
    dims, variables, attrs, subs = group
    return (dims,
            [(t, n, d, {k: v for k, v in a.items() if isinstance(v, str)}, data)
             for t, n, d, a, data in variables],
            {k: v for k, v in attrs.items() if isinstance(v, str)},
            [(n, without_strings(g)) for n, g in subs])


def cdl_name(name):
    return re.sub(r"([ ,:;=(){}\\\"'])", r"\\\1", name)


def cdl_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")


def cdl_group(group, indent):
    dims, variables, attrs, subs = group
    t = indent
    out = []
    if dims:
        out.append(t + "dimensions:")
        out += ["%s\t%s = %d ;" % (t, cdl_name(n), length) for n, length in dims]
    out.append(t + "variables:")
    for typ, name, vdims, vattrs, _ in variables:
        out.append("%s\t%s %s(%s) ;" % (t, typ, cdl_name(name), ", ".join(map(cdl_name, vdims))))
        for k, v in vattrs.items():
            out.append(cdl_attr(t + "\t\t", cdl_name(name), k, v))
    if attrs:
        out.append("")
        out.append(t + "// group attributes:")
        out += [cdl_attr(t + "\t\t", "", k, v) for k, v in attrs.items()]
    out.append(t + "data:")
    for _, name, _, _, data in variables:
        out.append("%s %s = %s ;" % (t, cdl_name(name), ", ".join(str(x) for x in data)))
    for name, sub in subs:
        out.append("")
        out.append("%sgroup: %s {" % (t, cdl_name(name)))
        out += cdl_group(sub, t + "  ")
        out.append("%s} // group %s" % (t, cdl_name(name)))
    return out


def cdl_attr(indent, var, name, value):
    if isinstance(value, str):
        return "%s%s:%s = %s ;" % (indent, var, cdl_name(name), cdl_string(value))
    return "%sstring %s:%s = %s ;" % (indent, var, cdl_name(name),
                                     ", ".join(cdl_string(v) for v in value))


def cdl(group):
    return "netcdf unicode {\n" + "\n".join(cdl_group(group, "")) + "\n}\n"


# ---- what a reader should see ----
#
# A dataset as seen: groups (paths), variables (path -> (type, dims)),
# dimensions (names, or "group path/name" when placed), attributes
# ((object path, name) -> value) and data (path -> numbers).


def expected(group, place_dims):
    seen = {"groups": set(), "vars": {}, "dims": set(), "attrs": {}, "data": {}}

    def walk(g, path):
        dims, variables, attrs, subs = g
        for n, _ in dims:
            seen["dims"].add(path + "/" + n if place_dims else n)
        for typ, name, vdims, vattrs, data in variables:
            vpath = path + "/" + name
            seen["vars"][vpath] = (typ, tuple(vdims))
            seen["data"][vpath] = [float(x) for x in data]
            for k, v in vattrs.items():
                seen["attrs"][(vpath, k)] = v
        for k, v in attrs.items():
            seen["attrs"][(path or "/", k)] = v
        for name, sub in subs:
            seen["groups"].add(path + "/" + name)
            walk(sub, path + "/" + name)

    walk(group, "")
    return seen


def as_netcdf_c_reads_escapes(text):
    """The text netcdf-c reads from an escaped JSON string: it drops the
    backslash of \\uXXXX (and of each half of a surrogate pair) and keeps
    the rest as letters."""
    out = []
    for c in text:
        if ord(c) < 0x80:
            out.append(c)
        elif ord(c) < 0x10000:
            out.append("u%04x" % ord(c))
        else:
            u = ord(c) - 0x10000
            out.append("u%04xu%04x" % (0xD800 + (u >> 10), 0xDC00 + (u & 0x3FF)))
    return "".join(out)


def as_netcdf_c_pure_zarr(seen, escaped):
    """What netcdf-c makes of a pure Zarr store: no attribute types, so a
    JSON array of strings is char text holding that array (written back
    by netcdf-c's JSON writer, "," between elements); dimensions (from
    _ARRAY_DIMENSIONS), attribute names and texts are JSON text, mangled
    when escaped; group and variable names are store keys, never escaped."""
    m = as_netcdf_c_reads_escapes if escaped else (lambda s: s)
    out = {"groups": seen["groups"], "data": seen["data"],
           "vars": {p: (t, tuple(m(d) for d in dims)) for p, (t, dims) in seen["vars"].items()},
           "dims": {m(d) for d in seen["dims"]}, "attrs": {}}
    for (path, name), v in seen["attrs"].items():
        if isinstance(v, list):
            v = "[" + ",".join('"%s"' % m(x) for x in v) + "]"
        else:
            v = m(v)
        out["attrs"][(path, m(name))] = v
    return out


# ---- ncdump ----


def ncdump_cmd(version):
    """argv prefix running that version's ncdump, or None."""
    if version == "4.9.0":
        path = "/usr/bin/ncdump" if os.path.exists("/usr/bin/ncdump") else shutil.which("ncdump")
        return [path] if path else None
    env_sh = os.path.join(PEERS, "netcdf-c-" + version, "env.sh")
    if not os.path.exists(env_sh):
        return None
    return ["bash", "-c", 'source "$0" >/dev/null 2>&1 && exec ncdump "$1"', env_sh]


def unescape_name(s):
    return re.sub(r"\\(.)", r"\1", s)


NAME = r"((?:\\.|[^\\\s(:])+)"
TYPES = r"(byte|char|short|int|long|float|real|double|ubyte|ushort|uint|int64|uint64|string)"


def parse_dump(text):
    """A CDL dump (ncdump, ncz-dump) as a dataset as seen (see expected())."""
    seen = {"groups": set(), "vars": {}, "dims": set(), "attrs": {}, "data": {}}
    path = []
    section = None
    pending = ""
    for line in text.splitlines()[1:]:
        s = line.strip()
        if pending:
            s = pending + " " + s
            pending = ""
        if not s or s.startswith("// global attributes") or s.startswith("// group attributes"):
            continue
        m = re.match(r"group: (.*) \{$", s)
        if m:
            path.append(unescape_name(m.group(1)))
            seen["groups"].add("/" + "/".join(path))
            section = None
            continue
        if re.match(r"\} // group ", s) or s == "}":
            if path:
                path.pop()
            section = None
            continue
        if s in ("dimensions:", "variables:", "data:"):
            section = s[:-1]
            continue
        if not s.endswith(";"):
            pending = s
            continue
        where = "/" + "/".join(path) if path else ""
        if section == "dimensions":
            m = re.match(NAME + r" = ", s)
            if m:
                seen["dims"].add(where + "/" + unescape_name(m.group(1)))
        elif section == "variables":
            m = re.match(TYPES + " " + NAME + r"(?:\((.*)\))? ;$", s)
            if m:
                dims = tuple(unescape_name(d.strip()) for d in m.group(3).split(", ")) if m.group(3) else ()
                seen["vars"][where + "/" + unescape_name(m.group(2))] = (m.group(1), dims)
                continue
            m = re.match(r"(?:" + TYPES + " )?" + r"((?:\\.|[^\\:\s])*):" + NAME + r" = (.*) ;$", s)
            if m:
                obj = where + "/" + unescape_name(m.group(2)) if m.group(2) else (where or "/")
                strings = [t for k, t in cdl_tokens(m.group(4)) if k == "s"]
                value = strings if m.group(1) == "string" else "".join(strings)
                seen["attrs"][(obj, unescape_name(m.group(3)))] = value
        elif section == "data":
            m = re.match(NAME + r" = (.*) ;$", s)
            if m:
                seen["data"][where + "/" + unescape_name(m.group(1))] = [
                    float(t) for k, t in cdl_tokens(m.group(2)) if k == "n"]
    return seen


def placed_names_only(seen):
    """Dimension names without their groups (netcdf-c 4.9.2 and 4.9.3
    define the dimensions of a pure Zarr store in the root group)."""
    out = dict(seen)
    out["dims"] = {d.rsplit("/", 1)[-1] for d in seen["dims"]}
    return out


def differences(want, got):
    lines = []
    for key in ("groups", "dims"):
        for x in sorted(want[key] - got[key]):
            lines.append("missing %s %s" % (key[:-1], x))
        for x in sorted(got[key] - want[key]):
            lines.append("unexpected %s %s" % (key[:-1], x))
    for key in ("vars", "attrs", "data"):
        for k in sorted(set(want[key]) | set(got[key]), key=str):
            if want[key].get(k) != got[key].get(k):
                lines.append("%s %s: want %r, got %r" % (key, k, want[key].get(k), got[key].get(k)))
    return "\n".join(lines)


# ---- zarr-python ----

ZARR_READER = r"""
import json, sys
import zarr
path, consolidated = sys.argv[1], sys.argv[2] == "1"
root = zarr.open_consolidated(path, mode="r") if consolidated else zarr.open_group(path, mode="r")
seen = {"groups": [], "vars": {}, "attrs": [], "data": {}}
def user(attrs):
    return {k: v for k, v in attrs.items()
            if k != "_ARRAY_DIMENSIONS" and k != "_NCProperties" and not k.lower().startswith("_nczarr_")}
def walk(g, path):
    for k, v in user(g.attrs.asdict()).items():
        seen["attrs"].append([path or "/", k, v])
    for name, a in g.arrays():
        vpath = path + "/" + name
        seen["vars"][vpath] = [a.dtype.str[1:], a.attrs.get("_ARRAY_DIMENSIONS")]
        seen["data"][vpath] = [float(x) for x in a[...].ravel()]
        for k, v in user(a.attrs.asdict()).items():
            seen["attrs"].append([vpath, k, v])
    for name, s in g.groups():
        seen["groups"].append(path + "/" + name)
        walk(s, path + "/" + name)
walk(root, "")
json.dump(seen, sys.stdout, ensure_ascii=True)
"""

DTYPE = {"short": "i2", "int": "i4", "float": "f4"}


def zarr_python_version():
    r = subprocess.run(["/usr/bin/python3", "-c", "import zarr; print(zarr.__version__)"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None
    return tuple(int(x) for x in re.findall(r"\d+", r.stdout)[:2])


def zarr_python_read(store, consolidated):
    """(seen, error text)"""
    r = subprocess.run(["/usr/bin/python3", "-c", ZARR_READER, store, "1" if consolidated else "0"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "rc %d" % r.returncode
    raw = json.loads(r.stdout)
    seen = {"groups": set(raw["groups"]), "dims": set(),
            "vars": {p: (t, tuple(d or ())) for p, (t, d) in raw["vars"].items()},
            "attrs": {(p, k): v for p, k, v in raw["attrs"]}, "data": raw["data"]}
    return seen, None


def as_zarr_python_reads(seen):
    out = dict(seen)
    out["dims"] = set()
    out["vars"] = {p: (DTYPE[t], dims) for p, (t, dims) in seen["vars"].items()}
    return out


def metadata_objects(store):
    for path in glob.glob(os.path.join(store, "**", ".z*"), recursive=True):
        if os.path.basename(path) in METADATA:
            with open(path, "rb") as f:
                yield os.path.relpath(path, store), f.read()


# ---- the test ----


# (name, fragment, dataset, escaped, pure Zarr, {version: expectation})
#
# An expectation is "exact" (every name, attribute and value as written),
# "escaped" (pure Zarr only: what netcdf-c reads from \u escapes, see
# as_netcdf_c_reads_escapes), "no-open" (ncdump must fail, without a
# crash), "no-open-crash" (ncdump must fail; netcdf-c 4.9.0 crashes, with
# a segmentation fault, on an NCZarr store listing arrays it does not
# find, as on the stores its own ncgen leaves half-written) or a reason
# the version is not run on that store.
NOT_4_9_0 = ("netcdf-c 4.9.0 fails on string attributes ('Invalid argument') and reads "
             "lower-case NCZarr keys as plain Zarr; it reads the stores without strings")
KEYS_CRASH = ("netcdf-c 4.9.3+ crashes on the keys layout when a subgroup has a dimension "
              "of its own (docs/compatibility.md); it reads layout=attributes")
NO_ATTRIBUTES = "netcdf-c 4.9.2 does not read the attributes layout (docs/compatibility.md)"
STORES = [
    ("pure Zarr", "mode=zarr,file", ROOT, True, True,
     {"4.9.0": NOT_4_9_0, "4.9.2": "escaped", "4.9.3": "escaped", "4.10.1": "escaped"}),
    ("pure Zarr json=utf-8", "mode=zarr,file&json=utf-8", ROOT, False, True,
     {"4.9.0": NOT_4_9_0, "4.9.2": "exact", "4.9.3": "exact", "4.10.1": "exact"}),
    ("NCZarr keys", "mode=nczarr,file", ROOT, False, False,
     {"4.9.0": NOT_4_9_0, "4.9.2": "exact", "4.9.3": KEYS_CRASH, "4.10.1": KEYS_CRASH}),
    ("NCZarr keys json=ascii", "mode=nczarr,file&json=ascii", ROOT, True, False,
     {"4.9.0": NOT_4_9_0, "4.9.2": "no-open", "4.9.3": KEYS_CRASH, "4.10.1": KEYS_CRASH}),
    ("NCZarr attributes", "mode=nczarr,file&layout=attributes", ROOT, False, False,
     {"4.9.0": NOT_4_9_0, "4.9.2": NO_ATTRIBUTES, "4.9.3": "exact", "4.10.1": "exact"}),
    ("NCZarr attributes json=ascii", "mode=nczarr,file&layout=attributes&json=ascii", ROOT,
     True, False,
     {"4.9.0": NOT_4_9_0, "4.9.2": NO_ATTRIBUTES, "4.9.3": "no-open", "4.10.1": "no-open"}),
    # the same names and texts without string attributes, for 4.9.0
    ("pure Zarr, no strings", "mode=zarr,file", without_strings(ROOT), True, True,
     {"4.9.0": "escaped"}),
    ("pure Zarr json=utf-8, no strings", "mode=zarr,file&json=utf-8", without_strings(ROOT),
     False, True, {"4.9.0": "exact"}),
    ("NCZarr keys-upper, no strings", "mode=nczarr,file&layout=keys-upper",
     without_strings(ROOT), False, False, {"4.9.0": "exact"}),
    ("NCZarr keys-upper json=ascii, no strings", "mode=nczarr,file&layout=keys-upper&json=ascii",
     without_strings(ROOT), True, False, {"4.9.0": "no-open-crash"}),
]


def check_store(tap, work, index, spec, ncz_gen, ncz_dump, zarr_version):
    name, fragment, dataset, escaped, pure, readers = spec
    store = os.path.join(work, "s%d" % index)
    url = "file://%s#%s" % (store, fragment)
    r = subprocess.run([ncz_gen, "-o", url, "-"], input=cdl(dataset),
                       capture_output=True, text=True, timeout=120)
    tap.ok(r.returncode == 0, "%s: ncz-gen writes it" % name, r.stderr)
    if r.returncode != 0:
        return

    # the metadata text: ASCII only, or UTF-8 with the characters as they are
    objects = list(metadata_objects(store))
    non_ascii = [k for k, data in objects if any(b >= 0x80 for b in data)]
    if escaped:
        tap.ok(objects and not non_ascii, "%s: every metadata object is ASCII" % name,
               "not ASCII: %s" % non_ascii)
    else:
        tap.ok(non_ascii, "%s: metadata holds UTF-8" % name)
    for k, data in objects:
        try:
            json.loads(data.decode("utf-8"))
        except ValueError as e:
            tap.ok(False, "%s: %s is JSON" % (name, k), e)

    want = expected(dataset, not pure)

    # Ncz reads its own store back, whichever form
    mode = "mode=zarr,file" if pure else "mode=nczarr,file"
    r = subprocess.run([ncz_dump, "file://%s#%s" % (store, mode)],
                       capture_output=True, text=True, timeout=120)
    got = parse_dump(r.stdout)
    mine = want
    if pure:
        mine = as_netcdf_c_pure_zarr(want, False)
        got = placed_names_only(got)
    tap.ok(r.returncode == 0 and not differences(mine, got), "%s: ncz-dump reads it back" % name,
           r.stderr + differences(mine, got))

    # zarr-python: every group and array, every attribute, every value
    if zarr_version is None:
        tap.skip("%s: zarr-python reads it" % name, "/usr/bin/python3 has no zarr")
    else:
        for consolidated in ([False, True] if os.path.exists(os.path.join(store, ".zmetadata"))
                             else [False]):
            how = "open_consolidated" if consolidated else "open_group"
            seen, err = zarr_python_read(store, consolidated)
            if escaped or zarr_version >= (2, 14):
                diff = err or differences(as_zarr_python_reads(want), seen)
                tap.ok(not diff, "%s: zarr-python %s reads every name and text" % (name, how), diff)
            else:
                # zarr-python before 2.14 reads metadata as ASCII only
                tap.ok(err is not None and "UnicodeDecodeError" in err,
                       "%s: zarr-python %s fails on UTF-8 metadata (UnicodeDecodeError)"
                       % (name, how), err or "it read the store")

    for v in VERSIONS:
        if v not in readers:
            continue
        what = readers[v]
        title = "%s: ncdump %s" % (name, v)
        cmd = ncdump_cmd(v)
        if cmd is None:
            tap.skip(title, "netcdf-c %s not installed" % v)
            continue
        if what not in ("exact", "escaped", "no-open", "no-open-crash"):
            tap.skip(title, what)
            continue
        r = subprocess.run(cmd + ["file://%s#%s" % (store, mode)],
                           capture_output=True, text=True, timeout=120)
        if what == "no-open":
            # netcdf-c looks for the escaped names as they read ("u00e9")
            tap.ok(0 < r.returncode < 128, title + " cannot open escaped NCZarr names (no crash)",
                   "rc %d\n%s%s" % (r.returncode, r.stderr, r.stdout))
            continue
        if what == "no-open-crash":
            tap.ok(r.returncode != 0, title + " cannot open escaped NCZarr names (it crashes)",
                   "rc %d\n%s%s" % (r.returncode, r.stderr, r.stdout))
            continue
        got = parse_dump(r.stdout)
        if pure:
            theirs = as_netcdf_c_pure_zarr(want, what == "escaped")
            got = placed_names_only(got)
        else:
            theirs = want
        diff = differences(theirs, got)
        tap.ok(r.returncode == 0 and not diff,
               title + (" reads every name and text" if what == "exact" else
                        " reads \\u escapes as letters, group and variable names right"),
               "rc %d\n%s%s" % (r.returncode, r.stderr, diff))


def main():
    ncz_gen, ncz_dump = sys.argv[1], sys.argv[2]
    tap = Tap()
    work = tempfile.mkdtemp(prefix="ncz-unicode-text-")
    zarr_version = zarr_python_version()
    try:
        for i, spec in enumerate(STORES):
            check_store(tap, work, i, spec, ncz_gen, ncz_dump, zarr_version)
    finally:
        if not os.environ.get("NCZ_INTEROP_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("# kept " + work)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
