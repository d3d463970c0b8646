#!/usr/bin/python3
"""The package version, the version macros and the Since: tags agree
(what Vala's since-check and gi-docgen rely on): every public symbol has a
Since: tag, no tag is newer than the package, every version named in a tag
has its NCZ_VERSION_x_y / NCZ_AVAILABLE_IN_x_y macros, and ncz-version.h,
ncz-1.0.pc, the GIR and the vapi carry the package version."""
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

src = os.environ["NCZ_SOURCE_ROOT"]
build = os.environ["NCZ_BUILD_ROOT"]
n = 0
failures = 0


def check(name, cond, detail=""):
    global n, failures
    n += 1
    print(("ok" if cond else "not ok"), n, name)
    if not cond:
        failures += 1
        for line in str(detail).splitlines():
            print("#", line)


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


with open(os.path.join(build, "meson-info", "intro-projectinfo.json")) as f:
    version = json.load(f)["version"]
major, minor, micro = vtuple(version)
api = "%d.%d" % (major, minor)

# ncz-version.h (generated) and ncz-1.0.pc
with open(os.path.join(build, "core", "ncz", "ncz-version.h")) as f:
    vh = f.read()
nums = {k: int(v) for k, v in re.findall(r"#define NCZ_(MAJOR|MINOR|MICRO)_VERSION \((\d+)\)", vh)}
check("ncz-version.h numbers are the package version " + version,
      nums == {"MAJOR": major, "MINOR": minor, "MICRO": micro}, nums)
check("NCZ_VERSION_STRING is the package version",
      '#define NCZ_VERSION_STRING "%s"' % version in vh)
with open(os.path.join(build, "meson-private", "ncz-%s.pc" % api)) as f:
    pc = f.read()
check("ncz-%s.pc Version is the package version" % api, "\nVersion: %s\n" % version in pc)

# the version macros
with open(os.path.join(src, "core", "ncz", "ncz-version-macros.h")) as f:
    macros = f.read()
encoded = sorted(vtuple("%s.%s" % m) for m in re.findall(r"#define NCZ_VERSION_(\d+)_(\d+) ", macros))
check("the newest NCZ_VERSION_x_y is the package's major.minor",
      encoded and encoded[-1] == (major, minor), encoded)
for mj, mn in encoded:
    for kind in ("AVAILABLE_IN", "DEPRECATED_IN"):
        check("NCZ_%s_%d_%d is defined" % (kind, mj, mn),
              re.search(r"#define NCZ_%s_%d_%d\b" % (kind, mj, mn), macros) is not None)
later = [m for m in re.findall(r"NCZ_(?:AVAILABLE|DEPRECATED)_IN_(\d+)_(\d+)", macros)
         if vtuple("%s.%s" % m) > (major, minor)]
check("no availability macro names a version after the package's", not later, later)

# the GIR: every symbol has a Since: tag no newer than the package
C = "{http://www.gtk.org/introspection/core/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"
gir = ET.parse(os.path.join(build, "introspection", "Ncz-%s.gir" % api)).getroot()
ns = gir.find(C + "namespace")
check("GIR namespace version is " + api, ns.get("version") == api)
missing, newer, versions = [], [], set()
KINDS = ("class", "interface", "record", "enumeration", "bitfield", "function", "method",
         "constructor", "constant", "callback", "property", "signal", "function-macro")


def walk(e, path):
    for ch in e:
        tag = ch.tag.replace(C, "").replace(GLIB, "")
        if tag not in KINDS:
            continue
        name = path + "." + str(ch.get("name"))
        if ch.get("introspectable") != "0" and ch.get(GLIB + "is-gtype-struct-for") is None:
            v = ch.get("version")
            if v is None:
                missing.append(name)
            else:
                versions.add(v)
                if vtuple(v) > (major, minor):
                    newer.append("%s (%s)" % (name, v))
        walk(ch, name)


walk(ns, "Ncz")
check("every public symbol in the GIR has a Since: tag", not missing, "\n".join(missing))
check("no Since: tag is newer than the package", not newer, "\n".join(newer))
for v in sorted(versions):
    check("Since: %s has NCZ_AVAILABLE_IN_%s" % (v, v.replace(".", "_")),
          re.search(r"#define NCZ_AVAILABLE_IN_%s\b" % v.replace(".", "_"), macros) is not None)

# C-only functions (skipped by introspection) declared in the public
# headers have a Since: tag too
headers = [h for h in glob.glob(os.path.join(src, "core", "ncz", "*.h"))
           if not h.endswith("ncz-module.h")]
declared = set()
for h in headers:
    with open(h) as f:
        text = f.read()
    declared.update(re.findall(r"NCZ_AVAILABLE_IN_\w+\s+[^;(]*?\b(ncz_\w+)\s*\(", text))
docs = {}
for f in glob.glob(os.path.join(src, "core", "*.c")) + headers:
    with open(f) as fh:
        for m in re.finditer(r"/\*\*\n\s*\* (\w+):(.*?)\*/", fh.read(), re.S):
            docs[m.group(1)] = "Since:" in m.group(2)
bad = sorted(s for s in declared if not docs.get(s, False))
check("every public C function has a doc comment with Since:", not bad, " ".join(bad))

# the vapi carries the same versions
vapis = glob.glob(os.path.join(build, "introspection", "ncz-%s.vapi" % api))
if vapis:
    with open(vapis[0]) as f:
        vapi = f.read()
    since = set(re.findall(r'since = "([\d.]+)"', vapi))
    check("the vapi has Since versions", bool(since))
    check("no vapi since is newer than the package",
          all(vtuple(v) <= (major, minor) for v in since), since)

print("1..%d" % n)
sys.exit(1 if failures else 0)
