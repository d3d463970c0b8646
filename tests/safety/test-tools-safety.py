#!/usr/bin/python3
# The tools on datasets that hold symbolic links, and replacing datasets
# where no replacement can be written beside them. Prints TAP.
#
#   test-tools-safety.py NCZ-GEN NCZ-COPY NCZ-DUMP
#
# - A chunk, a .zarray or a variable directory of a dataset that is a
#   symbolic link to another dataset (or a file outside), and a directory
#   link whose ".." leads out: ncz-dump and ncz-copy refuse it with an
#   error naming the key, print none of its data and copy nothing.
# - ncz-copy and ncz-gen over an existing dataset whose parent directory
#   the user may not write: they fail before touching anything, and the
#   dataset stays byte for byte (run as the user nobody when root).
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile

NCZ_GEN, NCZ_COPY, NCZ_DUMP = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="ncz-tools-safety-")
N = 0
FAILED = 0

CDL = """netcdf %s {
dimensions:
  x = 4 ;
variables:
  int v(x) ;
    v:_ChunkSizes = 2 ;
  int w(x) ;
    w:_ChunkSizes = 2 ;
data:
  v = %s ;
  w = %s ;
}
"""


def ok(cond, name, detail=""):
    global N, FAILED
    N += 1
    print(("ok" if cond else "not ok") + f" {N} - {name}")
    if not cond:
        FAILED += 1
        for line in str(detail).splitlines()[:30]:
            print(f"# {line}")
    sys.stdout.flush()


def run(*args, user=None):
    cmd = list(args)
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def gen(path, name, v, w):
    cdl = os.path.join(TMP, name + ".cdl")
    with open(cdl, "w") as f:
        f.write(CDL % (name, v, w))
    r = run(NCZ_GEN, "-o", f"file://{path}#mode=nczarr,file", cdl)
    assert r.returncode == 0, r.stderr


def snapshot(path):
    """Every file and directory below path with its bytes (links as links)."""
    result = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, path)
            if os.path.islink(full):
                result[rel] = "link:" + os.readlink(full)
            elif os.path.isdir(full):
                result[rel] = "dir"
            else:
                with open(full, "rb") as f:
                    result[rel] = f.read()
    return result


def check_links():
    other = os.path.join(TMP, "other.zarr")
    gen(other, "other", "1001, 1002, 1003, 1004", "2001, 2002, 2003, 2004")
    outside = os.path.join(TMP, "outside")
    with open(outside, "wb") as f:
        f.write(b"\x39\x05\x00\x00\x39\x05\x00\x00")   # two ints 1337: secret
    other_before = snapshot(other)

    cases = [
        # (description, path in the dataset, link target, key in the message)
        ("chunk linked to a file outside", "v/0", outside, "v/0"),
        ("chunk linked to another dataset's chunk", "v/1", os.path.join(other, "v/1"), "v/1"),
        (".zarray linked to another dataset's", "w/.zarray", os.path.join(other, "v/.zarray"),
         "w/.zarray"),
        ("variable directory linked to another dataset's", "w", os.path.join(other, "w"),
         "w/.zarray"),
        ("directory link whose .. leads out", "v", "../other.zarr/v", "v/"),
    ]
    for i, (what, rel, target, key) in enumerate(cases):
        ds = os.path.join(TMP, f"links{i}.zarr")
        gen(ds, f"links{i}", "1, 2, 3, 4", "5, 6, 7, 8")
        full = os.path.join(ds, rel)
        if os.path.isdir(full):
            shutil.rmtree(full)
        else:
            os.unlink(full)
        os.symlink(target, full)
        url = f"file://{ds}#mode=nczarr,file"

        r = run(NCZ_DUMP, url)
        ok(r.returncode != 0 and key in r.stderr and "symbolic link" in r.stderr
           and "100" not in r.stdout and "200" not in r.stdout and "1337" not in r.stdout,
           f"ncz-dump refuses a {what}",
           f"status {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")

        out = os.path.join(TMP, f"copy{i}.zarr")
        r = run(NCZ_COPY, url, f"file://{out}#mode=nczarr,file")
        ok(r.returncode != 0 and key in r.stderr and not os.path.exists(out)
           and not [n for n in os.listdir(TMP) if n.startswith(f".copy{i}.zarr")],
           f"ncz-copy refuses a {what} and writes nothing",
           f"status {r.returncode}\nstderr:\n{r.stderr}\nexists: {os.path.exists(out)}")
    with open(outside, "rb") as f:
        outside_now = f.read()
    ok(snapshot(other) == other_before and outside_now == b"\x39\x05\x00\x00" * 2,
       "what the links point to is untouched")


def check_unwritable_parent():
    if os.geteuid() == 0:
        user = 65534
    else:
        user = None
    parent = os.path.join(TMP, "locked")
    os.mkdir(parent)
    ds = os.path.join(parent, "ds.zarr")
    src = os.path.join(TMP, "src.zarr")
    gen(ds, "ds", "1, 2, 3, 4", "5, 6, 7, 8")
    gen(src, "src", "11, 12, 13, 14", "15, 16, 17, 18")
    os.chmod(TMP, 0o755)
    for dirpath, dirnames, filenames in os.walk(TMP):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
    os.chmod(parent, 0o555 if user is None else 0o755)   # root's: nobody may not write
    before = snapshot(parent)

    r = run(NCZ_COPY, f"file://{src}#mode=nczarr,file", f"file://{ds}#mode=nczarr,file",
            user=user)
    ok(r.returncode != 0 and ds in r.stderr and "unchanged" in r.stderr
       and snapshot(parent) == before,
       "ncz-copy over a dataset whose parent is not writable fails and changes nothing",
       f"status {r.returncode}\nstderr:\n{r.stderr}")

    cdl = os.path.join(TMP, "src.cdl")
    r = run(NCZ_GEN, "-o", f"file://{ds}#mode=nczarr,file", cdl, user=user)
    ok(r.returncode != 0 and ds in r.stderr and snapshot(parent) == before,
       "ncz-gen over a dataset whose parent is not writable fails and changes nothing",
       f"status {r.returncode}\nstderr:\n{r.stderr}")

    r = run(NCZ_DUMP, f"file://{ds}#mode=nczarr,file", user=user)
    ok(r.returncode == 0 and "v = 1, 2, 3, 4" in r.stdout,
       "the dataset still reads as before",
       f"status {r.returncode}\n{r.stdout}\n{r.stderr}")
    os.chmod(parent, 0o755)


def main():
    try:
        check_links()
        check_unwritable_parent()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print(f"1..{N}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
