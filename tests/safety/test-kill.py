#!/usr/bin/python3
# ncz-copy killed with SIGKILL at many points of a replacement, printing
# TAP.
#
#   test-kill.py MAKE-INPUT NCZ-COPY
#
# OUT holds a dataset; ncz-copy replaces it by a copy of IN and is killed
# after delays spread from 0 to twice the time a whole run takes.
# After each kill OUT must be the complete previous dataset or the
# complete new one, byte for byte: never a mix, never missing. A
# following ncz-copy into OUT must then succeed and leave nothing beside
# it.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MAKE_INPUT, NCZ_COPY = sys.argv[1:3]
TMP = tempfile.mkdtemp(prefix="ncz-kill-test-")
KILLS = 40
N = 0
FAILED = 0


def ok(cond, name, detail=""):
    global N, FAILED
    N += 1
    if cond:
        print(f"ok {N} - {name}")
    else:
        FAILED += 1
        print(f"not ok {N} - {name}")
        for line in str(detail).splitlines()[:40]:
            print(f"# {line}")
    sys.stdout.flush()


def bail(message):
    print(f"Bail out! {message}")
    sys.exit(1)


def url(path):
    return f"file://{path}#mode=nczarr,file"


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def copy(src, dst, *options):
    return run([NCZ_COPY, "-q"] + list(options) + [url(src), url(dst)])


def snapshot(root):
    """Every directory, link and file under root, with the files' bytes."""
    if not os.path.lexists(root):
        return None
    tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        tree[rel] = "dir"
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            key = os.path.normpath(os.path.join(rel, name))
            if os.path.islink(path):
                tree[key] = "link:" + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    tree[key] = f.read()
    return tree


def describe(want, got):
    if got is None:
        return "nothing at the path"
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    differ = sorted(k for k in set(want) & set(got) if want[k] != got[k])
    return (f"{len(missing)} missing {missing[:5]}, {len(extra)} extra {extra[:5]}, "
            f"{len(differ)} differ {differ[:5]}")


def main():
    base = os.path.join(TMP, "big.zarr")
    src = os.path.join(TMP, "in.zarr")
    old_src = os.path.join(TMP, "old-src.zarr")
    ref = os.path.join(TMP, "ref")
    os.mkdir(ref)
    outdir = os.path.join(TMP, "out")
    out = os.path.join(outdir, "data.zarr")

    # the input: some megabytes in about a thousand chunks, so that a
    # copy takes long enough to be killed at many points
    for kind, path in (("big", base), ("rich", old_src)):
        r = run([MAKE_INPUT, url(path), kind])
        if r.returncode != 0:
            bail(f"make-input {kind}: {r.stderr}")
    r = copy(base, src, "-c", "r/8,col/64")
    if r.returncode != 0:
        bail(f"ncz-copy making the input: {r.stderr}")

    # the previous dataset and the new one, as ncz-copy writes them
    old_ref = os.path.join(ref, "old.zarr")
    new_ref = os.path.join(ref, "new.zarr")
    for s, d in ((old_src, old_ref), (src, new_ref)):
        r = copy(s, d)
        if r.returncode != 0:
            bail(f"ncz-copy: {r.stderr}")
    old = snapshot(old_ref)
    new = snapshot(new_ref)

    # a replacement run to its end gives the same bytes
    os.mkdir(outdir)
    shutil.copytree(old_ref, out, symlinks=True)
    start = time.monotonic()
    r = copy(src, out)
    whole = time.monotonic() - start
    ok(r.returncode == 0 and snapshot(out) == new and os.listdir(outdir) == ["data.zarr"],
       "a whole replacement writes the new dataset, nothing beside it",
       r.stderr + describe(new, snapshot(out)))
    print(f"# a whole replacement took {whole:.3f} s")

    seen = {"old": 0, "new": 0}
    for i in range(KILLS):
        delay = whole * 2.0 * i / (KILLS - 1)
        shutil.rmtree(outdir)
        os.mkdir(outdir)
        shutil.copytree(old_ref, out, symlinks=True)

        p = subprocess.Popen([NCZ_COPY, "-q", url(src), url(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stderr.close()

        got = snapshot(out)
        state = "old" if got == old else "new" if got == new else None
        if state:
            seen[state] += 1
        ok(state is not None,
           f"killed after {delay:.3f} s: the path holds the {state or 'a damaged'} dataset",
           describe(old, got) + "\n(against the new one: " + describe(new, got) + ")")

        left = sorted(os.listdir(outdir))
        # a following replacement succeeds and leaves nothing beside it:
        # whatever the killed writer left (a stage, or the ".ncz-init-"
        # directory of one it had not locked yet) names a process that is
        # dead, so it goes at once, however young
        r = copy(old_src, out)
        after = sorted(os.listdir(outdir))
        ok(r.returncode == 0 and snapshot(out) == old and after == ["data.zarr"],
           f"killed after {delay:.3f} s: the next ncz-copy cleans up",
           f"exit {r.returncode}: {r.stderr}\nleft by the kill: {left}\nafter the next copy: "
           f"{after}\n" + describe(old, snapshot(out)))

    print(f"# the kills left the previous dataset {seen['old']} times, "
          f"the new one {seen['new']} times")
    print(f"1..{N}")
    shutil.rmtree(TMP)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
