#!/usr/bin/python3
"""Builds tests/vala/read-slab.vala against the *installed* ncz-1.0.vapi
and ncz-1.0.pc (the build is installed into a scratch DESTDIR) and runs
it. Exits 77 (skip) only when valac is not installed."""
import os
import shutil
import subprocess
import sys
import tempfile

valac = shutil.which("valac")
if valac is None:
    print("1..0 # SKIP valac is not installed")
    sys.exit(77)

build_root = os.environ["NCZ_BUILD_ROOT"]
source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "read-slab.vala")


def find(root, name):
    for dirpath, _dirs, files in os.walk(root):
        if name in files:
            return dirpath
    return None


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    if r.returncode != 0:
        print("# " + " ".join(cmd))
        for line in r.stdout.splitlines():
            print("# " + line)
    return r


with tempfile.TemporaryDirectory() as tmp:
    destdir = os.path.join(tmp, "dest")
    meson = os.environ.get("MESON") or shutil.which("meson")
    r = run([meson, "install", "-C", build_root, "--no-rebuild", "--quiet",
             "--destdir", destdir])
    if r.returncode != 0:
        print("not ok 1 meson install into a DESTDIR")
        print("1..1")
        sys.exit(1)
    pcdir = find(destdir, "ncz-1.0.pc")
    vapidir = find(destdir, "ncz-1.0.vapi")
    libdir = find(destdir, "libncz-1.0.so.0")
    ok = pcdir is not None and vapidir is not None and libdir is not None
    print(("ok" if ok else "not ok") + " 1 installed ncz-1.0.pc, ncz-1.0.vapi and libncz-1.0.so.0")
    if not ok:
        print("1..1")
        sys.exit(1)
    # the installed ncz-1.0.pc, with its prefix moved into the DESTDIR
    localpc = os.path.join(tmp, "pkgconfig")
    os.mkdir(localpc)
    with open(os.path.join(pcdir, "ncz-1.0.pc")) as f:
        lines = f.read().splitlines()
    with open(os.path.join(localpc, "ncz-1.0.pc"), "w") as f:
        for line in lines:
            if line.startswith("prefix="):
                line = "prefix=" + destdir + line[len("prefix="):]
            f.write(line + "\n")
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = localpc
    exe = os.path.join(tmp, "read-slab")
    r = run([valac, "--vapidir", vapidir, "--pkg", "ncz-1.0", "--fatal-warnings",
             "-X", "-w", "-X", "-L" + libdir, "-o", exe, source], env=env, cwd=tmp)
    print(("ok" if r.returncode == 0 else "not ok") +
          " 2 valac --pkg ncz-1.0 against the installed vapi")
    if r.returncode != 0:
        print("1..2")
        sys.exit(1)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir
    scratch = os.path.join(tmp, "data")
    os.mkdir(scratch)
    r = subprocess.run([exe, scratch], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    # the program's own TAP, renumbered after ours
    n = 2
    failed = r.returncode != 0
    for line in r.stdout.splitlines():
        for word in ("ok ", "not ok "):
            if line.startswith(word):
                rest = line[len(word):].split(" ", 1)
                n += 1
                print("%s%d %s" % (word, n, rest[1] if len(rest) > 1 else ""))
                break
        else:
            if not line.startswith("1.."):
                print("# " + line)
    if r.returncode != 0:
        n += 1
        print("not ok %d read-slab exited with %d" % (n, r.returncode))
    print("1..%d" % n)
    sys.exit(1 if failed else 0)
