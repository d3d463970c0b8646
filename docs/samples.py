#!/usr/bin/python3
"""The programs of a user page (getting-started-c.md, vala.md): extract
them, build the Vala ones, run them and compare what they print with the
page.

A program is a fenced block of the page's language whose first line is a
comment naming its file: `/* read.c: ... */`. The first ```text block
after it (before the next program) is what it must print.

    samples.py extract PAGE.md LANG OUTDIR NAME...
        writes OUTDIR/NAME for each program; fails unless the page's
        programs are exactly NAME... (so meson.build lists them all)
    samples.py run PAGE.md LANG EXE...
        runs each EXE (the build of the program of the same name, in
        page order) with one scratch directory as argument and compares
        its output with the page's; prints TAP
    samples.py vala PAGE.md VAPIDIR PKGCONFIGDIR
        extracts the Vala programs, builds each with valac --pkg ncz-1.0
        against the vapi in VAPIDIR and the ncz-1.0 of PKGCONFIGDIR, and
        runs them as `run` does; exits 77 (skip) without valac
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")
NAME = re.compile(r"^\s*/\*\s*([\w.-]+\.(?:c|vala)):")


def programs(page, lang):
    """[(name, source, expected output or None)] in page order"""
    with open(page, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        kind = m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[i + 1:j]
        if kind == lang:
            n = NAME.match(body[0]) if body else None
            if n:
                out.append([n.group(1), "\n".join(body) + "\n", None])
        elif kind == "text" and out and out[-1][2] is None:
            out[-1][2] = "\n".join(body) + "\n"
        i = j + 1
    return out


def extract(page, lang, outdir, names):
    progs = programs(page, lang)
    found = [p[0] for p in progs]
    if sorted(found) != sorted(names):
        sys.stderr.write("%s: its %s programs are %s, meson.build lists %s\n"
                         % (page, lang, found, names))
        return 1
    for name, src, _ in progs:
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write(src)
    return 0


def run_all(progs, exes, tmp):
    """progs: page order; exes: {name: path}. TAP on stdout."""
    n = 0
    failed = False
    scratch = os.path.join(tmp, "data")
    os.makedirs(scratch, exist_ok=True)
    for name, _src, expected in progs:
        n += 1
        exe = exes.get(name)
        if exe is None:
            print("not ok %d %s was not built" % (n, name))
            failed = True
            continue
        r = subprocess.run([exe, scratch], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        ok = r.returncode == 0 and (expected is None or r.stdout == expected)
        if not ok:
            failed = True
            print("# %s exited with %d" % (name, r.returncode))
            for line in r.stdout.splitlines():
                print("# stdout: " + line)
            for line in r.stderr.splitlines():
                print("# stderr: " + line)
            if expected is not None and r.stdout != expected:
                for line in expected.splitlines():
                    print("# expected: " + line)
        print("%s %d %s runs and prints what the page shows" % ("ok" if ok else "not ok", n, name))
    print("1..%d" % n)
    return 1 if failed else 0


def run(page, lang, exes):
    progs = programs(page, lang)
    by_name = {}
    for e in exes:
        base = os.path.basename(e)
        for name, _s, _e in progs:
            stem = os.path.splitext(name)[0]
            if base == stem or base.endswith("-" + stem):
                by_name[name] = e
    with tempfile.TemporaryDirectory() as tmp:
        return run_all(progs, by_name, tmp)


def vala(page, vapidir, pcdir):
    valac = shutil.which("valac")
    if valac is None:
        print("1..0 # SKIP valac is not installed")
        return 77
    progs = programs(page, "vala")
    vapidir = os.path.abspath(vapidir)
    pcdir = os.path.abspath(pcdir)
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = pcdir + os.pathsep + env.get("PKG_CONFIG_PATH", "")
    exes = {}
    n = 0
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, _ in progs:
            n += 1
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(src)
            exe = os.path.join(tmp, os.path.splitext(name)[0])
            # pkg-config prefers ncz-1.0-uninstalled.pc (the build tree); the
            # build tree has no ncz-1.0.deps, so the vapi's packages are named
            r = subprocess.run([valac, "--vapidir", vapidir, "--pkg", "ncz-1.0",
                                "--pkg", "gio-2.0", "--pkg", "json-glib-1.0",
                                "--fatal-warnings", "-X", "-w", "-o", exe, path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, env=env, cwd=tmp)
            if r.returncode == 0:
                exes[name] = exe
            else:
                failed = True
                for line in r.stdout.splitlines():
                    print("# " + line)
            print("%s %d valac builds %s" % ("ok" if r.returncode == 0 else "not ok", n, name))
        # the runs' TAP, numbered after the builds
        r = subprocess.run([sys.executable, __file__, "run-built", page, tmp],
                           stdout=subprocess.PIPE, universal_newlines=True)
        for line in r.stdout.splitlines():
            for word in ("ok ", "not ok "):
                if line.startswith(word):
                    rest = line[len(word):].split(" ", 1)
                    n += 1
                    print("%s%d %s" % (word, n, rest[1] if len(rest) > 1 else ""))
                    break
            else:
                if not line.startswith("1.."):
                    print(line)
        print("1..%d" % n)
        return 1 if failed or r.returncode != 0 else 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "extract":
        return extract(argv[2], argv[3], argv[4], argv[5:])
    if len(argv) >= 4 and argv[1] == "run":
        return run(argv[2], argv[3], argv[4:])
    if len(argv) == 5 and argv[1] == "vala":
        return vala(argv[2], argv[3], argv[4])
    if len(argv) == 4 and argv[1] == "run-built":
        progs = programs(argv[2], "vala")
        exes = {}
        for name, _s, _e in progs:
            exe = os.path.join(argv[3], os.path.splitext(name)[0])
            if os.path.exists(exe):
                exes[name] = exe
        with tempfile.TemporaryDirectory() as tmp:
            return run_all(progs, exes, tmp)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
