#!/usr/bin/python3
# run.py: runs the benchmarks of Ncz, netcdf-c and zarr-python side by side
#
# Usage: run.py --builddir=BUILD/bench [--small] [--repeat=N] [--dir=DIR]
#               [--shape=a,b,c] [--chunks=a,b,c] [--meta=G,V,A] [--wide=G,V,A|none]
#               [--codecs=zstd,blosc-lz4,zlib|none]
#               [--hdf5=chunked,contiguous,deflate,shuffle-deflate|none]
#               [--only=data,codecs,meta,hdf5,copy,writers,python,xarray,browser]
#               [--browser-dir=DIR | --browser-url=URL] [--ncz-copy=PATH]
#               [--writers-shape=T,Y,X] [--drop-caches] [--json=FILE]
#
# In one run: the data case (a 3-D float32 variable written whole and read
# whole, uncompressed, NCZarr/Zarr in a directory), the codec cases (the
# same with a smooth noisy field compressed by zstd level 1, blosc lz4
# clevel 5 with byte shuffle, zlib level 1; Ncz against zarr-python and
# against the compression library called directly on the same chunks on
# every core), the metadata case (G groups x V variables x A attributes:
# create, then open and list), the consolidated metadata case (the same
# store in pure Zarr with consolidated metadata, .zmetadata: Ncz's open
# against zarr-python's open_consolidated; netcdf-c, which has no
# consolidated metadata, is left out, and Ncz's open with
# consolidated=false is shown for reference), the wide metadata case (the same with many
# variables in one group, 1 x 10000 x 2 by default: the cost per variable
# must not grow with their number), the HDF5 case (the data case in a
# netCDF-4 file, Ncz's HDF5 backend against netcdf-c's, uncompressed
# chunked and contiguous, deflate level 1 with and without shuffle on the
# codec cases' values; and Ncz's NCZarr with zstd level 1 against
# netcdf-c's HDF5 with deflate), the copy case (ncz-copy against
# netcdf-c's nccopy on the same deflated netCDF-4 file, -d0 and -d1, each
# timed as a whole process), the many-writers case (1, 2 and 4 processes
# writing disjoint time slices of one dataset on the file store, in
# whole chunks and in halves of chunks shared by two writers, with the
# store's own locks and with lock.dir; writers_case.py), and the machine
# ceiling (memcpy, plain chunk-sized files). Every program
# runs --repeat times; the best time of each is kept, and the largest peak
# RSS. Prints a table, the Ncz/peer ratios and whether Ncz meets its
# targets: at least 1.5 times the faster peer, or at least 85% of the
# ceiling where 1.5 times the peer would exceed the ceiling; for each
# codec case, at least 1.5 times zarr-python and at least 85% of the raw
# codec throughput, writing and reading; for the HDF5 case, Ncz within
# 10% of netcdf-c or faster uncompressed (chunked), at least 1.5 times
# netcdf-c with deflate (with and without shuffle), and Ncz's NCZarr with
# zstd faster than netcdf-c's HDF5 with deflate (with and without
# shuffle), writing and reading; and at least 1.5 times netcdf-c reading
# uncompressed contiguous (no target writing); for the copy case, ncz-copy at least 1.5
# times as fast as nccopy, with -d0 and with -d1; for the many-writers
# case, chunk-aligned writers losing nothing measurable against one
# process (N = 2 and 4 at least 0.9 x the MB/s of N = 1) and lock.dir
# costing what the store's own lock costs (within 10 %); the Python case
# (py-bench.py: the data case through the Python layer, var[...] = array
# and read_into(), against ncz-bench in C in the same run) within 10% of
# C, writing and reading.
#
# --only runs some of the cases: data (with the ceiling), codecs, meta (the
# metadata, consolidated and wide cases), hdf5, copy, writers, python,
# xarray (s3 is run.sh's S3 section, ignored here).
#
# The xarray case (xr-bench.py, run_xarray): xr.open_dataset(...).load()
# with engine="ncz" against engine="zarr" on one Zarr store and against
# engine="netcdf4" on one netCDF-4 file, uncompressed and compressed (zstd
# level 1 in the store, deflate level 1 in the file), and a Dask sum over
# 2 worker processes, engine="ncz" against engine="zarr" on the store;
# target: at least 1.5 times the peer in each.
#
# Reads are warm (the page cache holds what was just written) unless
# --drop-caches is given and writing /proc/sys/vm/drop_caches works.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import writers_case

HERE = os.path.dirname(os.path.abspath(__file__))
# the reference row of the consolidated metadata case
CMETA_REF = "ncz consolidated=false"
CODECS = {
    "zstd": "zstd level 1",
    "blosc-lz4": "blosc lz4 clevel 5 shuffle",
    "zlib": "zlib level 1",
}
# The forms of the HDF5 case, in the order they are run and shown; the
# compressed ones take the codec cases' values (bench_smooth_fill).
HDF5_FORMS = {
    "chunked": "uncompressed, chunked",
    "contiguous": "uncompressed, contiguous",
    "deflate": "deflate level 1",
    "shuffle-deflate": "shuffle + deflate level 1",
}
HDF5_COMPRESSED = ("deflate", "shuffle-deflate")
# the HDF5 case's cross comparison row: Ncz's NCZarr with zstd level 1
HDF5_ZSTD = "ncz/nczarr-zstd"
# The copy case: the deflate levels of the output, in the order they run
COPY_LEVELS = ("0", "1")


def opt(name, default=None):
    for a in sys.argv[1:]:
        if a == name:
            return True
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return default


def drop_caches():
    try:
        subprocess.run(["sync"], check=False)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def run_one(argv, env, want_drop):
    if want_drop:
        drop_caches()
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.stderr.write("%s failed (%d): %s\n" % (" ".join(argv), r.returncode,
                                                    r.stderr.strip()[-500:]))
        return None
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    return None


def interleaved(jobs, env, workdir):
    """Runs every job of one case (name -> (argv, repeat, want_drop, keys))
    in rounds, A B C A B C ..., each time with a fresh --dir, so that a
    slow spell of a shared machine falls on all the programs compared
    rather than on one. The directories are removed with @workdir at the
    end. Returns name -> the best of each key (None for a
    program that failed), with the largest peak RSS."""
    best = {name: None for name in jobs}
    failed = set()
    rounds = max((job[1] for job in jobs.values()), default=0)
    for i in range(rounds):
        for name, (argv, repeat, want_drop, keys) in jobs.items():
            if i >= repeat or name in failed:
                continue
            d = tempfile.mkdtemp(prefix="run%d-" % i, dir=workdir)
            res = run_one(argv + ["--dir=" + os.path.join(d, "data")], env, want_drop)
            # What a run wrote stays until the end and goes to disk now,
            # outside the timed part: deleting it here would make the next
            # program create its files among just-freed inodes (slower on
            # ext4), and leaving it dirty would make the next program share
            # the machine with its writeback.
            os.sync()
            if res is None:
                failed.add(name)
                best[name] = None
                continue
            b = best[name]
            if b is None:
                best[name] = res
                continue
            for k in keys:
                if k in res:
                    b[k] = min(b[k], res[k])
            b["peak_rss_kib"] = max(b["peak_rss_kib"], res["peak_rss_kib"])
    return best


def mbps(nbytes, seconds):
    return nbytes / seconds / 1e6 if seconds and seconds > 0 else float("nan")


def fmt(v, width=10, prec=1):
    if v is None or v != v:
        return "n/a".rjust(width)
    return ("%.*f" % (prec, v)).rjust(width)


def target_rate(peer_best, ceiling):
    """Throughput Ncz must reach."""
    if peer_best is None:
        return None
    t = 1.5 * peer_best
    if ceiling is not None and t > ceiling:
        return 0.85 * ceiling
    return t


def main():
    builddir = opt("--builddir", os.environ.get("NCZ_BENCH_BUILDDIR"))
    if not builddir:
        print("usage: run.py --builddir=BUILD/bench [--small] [--repeat=N] ...", file=sys.stderr)
        return 2
    small = bool(opt("--small", False))
    shape = opt("--shape", "32,128,128" if small else "128,512,512")
    chunks = opt("--chunks", "16,64,64" if small else "32,128,128")
    meta = opt("--meta", "5,5,4" if small else "20,20,10")
    wide = opt("--wide", "1,500,2" if small else "1,10000,2")
    wide = None if wide in ("none", "", True) else wide
    repeat = int(opt("--repeat", "1" if small else "3"))
    want_drop = bool(opt("--drop-caches", False))
    python = os.environ.get("PYTHON", "/usr/bin/python3")
    base = opt("--dir", None)
    workdir = tempfile.mkdtemp(prefix="ncz-bench-", dir=base)
    env = dict(os.environ)

    dropped = drop_caches() if want_drop else False
    if want_drop and not dropped:
        print("note: cannot drop the page cache here; reads are warm")

    ncz = os.path.join(builddir, "ncz-bench")
    nc = os.path.join(builddir, "nc-bench")
    ceiling = os.path.join(builddir, "ceiling")
    codec_ceiling = os.path.join(builddir, "codec-ceiling")
    codecs = opt("--codecs", ",".join(CODECS))
    codecs = [] if codecs in ("none", "", True) else codecs.split(",")
    for c in codecs:
        if c not in CODECS:
            print("unknown codec %s (%s)" % (c, ", ".join(CODECS)), file=sys.stderr)
            return 2
    hdf5_forms = opt("--hdf5", ",".join(HDF5_FORMS))
    hdf5_forms = [] if hdf5_forms in ("none", "", True) else hdf5_forms.split(",")
    for f in hdf5_forms:
        if f not in HDF5_FORMS:
            print("unknown HDF5 form %s (%s)" % (f, ", ".join(HDF5_FORMS)), file=sys.stderr)
            return 2
    only = opt("--only", "data,codecs,meta,hdf5,copy,writers,python," + XARRAY_CASE)
    only = set(only.split(",")) if isinstance(only, str) else set()
    only.discard("s3")   # run.sh's S3 section
    if "browser" in only:
        only.discard("browser")
        status = run_browser(builddir)
        if not only:
            shutil.rmtree(workdir, ignore_errors=True)
            return status
    if not only <= {"data", "codecs", "meta", "hdf5", "copy", "writers", "python",
                    XARRAY_CASE}:
        print("--only takes some of data, codecs, meta, hdf5, copy, writers, python, xarray, "
              "s3",
              file=sys.stderr)
        return 2
    # 256 MiB: runs of a few tenths of a second (at 64 MiB, under 0.1 s,
    # the noise of a shared machine is as large as what is measured)
    writers_shape = opt("--writers-shape", "16,128,128" if small else "256,512,512")
    if "codecs" not in only:
        codecs = []
    if "hdf5" not in only:
        hdf5_forms = []
    if "meta" not in only:
        wide = None
    zarr_py = os.path.join(HERE, "zarr-bench.py")
    have_zarr = subprocess.run([python, "-c", "import zarr, numpy"],
                               capture_output=True).returncode == 0

    tools = [("ncz", [ncz] if os.path.exists(ncz) else None),
             ("netcdf-c", [nc] if os.path.exists(nc) else None),
             ("zarr-python", [python, zarr_py] if have_zarr else None)]
    common_data = ["--shape=" + shape, "--chunks=" + chunks]
    common_meta = ["--meta=" + meta]

    results = {"data": {}, "meta": {}, "cmeta": {}, "wide": {}, "ceiling": None, "codecs": {},
               "hdf5": {}, "copy": {}, "writers": {}, "python": {}, XARRAY_CASE: {},
               "cores": len(os.sched_getaffinity(0)),
               "shape": shape, "chunks": chunks, "meta_sizes": meta, "wide_sizes": wide,
               "cases": sorted(only),
               "repeat": repeat, "warm": not dropped}
    try:
        data_jobs, meta_jobs, cmeta_jobs, wide_jobs = {}, {}, {}, {}
        for name, argv in tools:
            if argv is None:
                print("note: %s not available, skipped" % name)
                continue
            data_jobs[name] = (argv + ["data"] + common_data, repeat, want_drop,
                               ["write_s", "read_s"])
            meta_jobs[name] = (argv + ["meta"] + common_meta, repeat, want_drop,
                               ["create_s", "open_s"])
            # netcdf-c has no consolidated metadata: not in that case
            if name == "ncz":
                cmeta_jobs[name] = (argv + ["meta", "--consolidated=true"] + common_meta,
                                    repeat, want_drop, ["create_s", "open_s"])
                cmeta_jobs[CMETA_REF] = (argv + ["meta", "--consolidated=false"] +
                                         common_meta, repeat, want_drop,
                                         ["create_s", "open_s"])
            elif name == "zarr-python":
                cmeta_jobs[name] = (argv + ["meta", "--consolidated"] + common_meta,
                                    repeat, want_drop, ["create_s", "open_s"])
            if wide:
                wide_jobs[name] = (argv + ["meta", "--meta=" + wide], repeat, want_drop,
                                   ["create_s", "open_s"])
        if os.path.exists(ceiling):
            data_jobs["ceiling"] = ([ceiling, "--shape=" + shape, "--chunks=" + chunks],
                                    max(repeat, 3), want_drop, ["memcpy_s", "write_s", "read_s"])
        if "data" in only:
            data = interleaved(data_jobs, env, workdir)
            results["ceiling"] = data.pop("ceiling", None)
            results["data"] = data
        if "meta" in only:
            results["meta"] = interleaved(meta_jobs, env, workdir)
            results["cmeta"] = interleaved(cmeta_jobs, env, workdir)
        if wide:
            results["wide"] = interleaved(wide_jobs, env, workdir)
        for codec in codecs:
            jobs = {}
            for name, argv in tools:
                if argv is None or name == "netcdf-c":
                    continue   # Debian's netcdf-c 4.9.0 has no NCZarr codecs
                jobs[name] = (argv + ["data", "--codec=" + codec] + common_data, repeat,
                              want_drop, ["write_s", "read_s"])
            if os.path.exists(codec_ceiling):
                jobs["raw"] = ([codec_ceiling, "--codec=" + codec] + common_data,
                               max(repeat, 3), False, ["encode_s", "decode_s"])
            results["codecs"][codec] = interleaved(jobs, env, workdir)
        results["hdf5"] = run_hdf5(hdf5_forms, tools, common_data, repeat, want_drop, env,
                                   workdir)
        if "copy" in only:
            results["copy"] = run_copy(builddir, tools, common_data, repeat, want_drop, env,
                                       workdir, python)
        if "writers" in only:
            results["writers"] = run_writers(builddir, writers_shape, repeat, env, workdir)
        if "python" in only:
            results["python"] = run_python(builddir, ncz, python, common_data, repeat,
                                           want_drop, env, workdir)
        if XARRAY_CASE in only:
            results[XARRAY_CASE] = run_xarray(builddir, small, repeat, env, workdir, python)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    report(results)
    out = opt("--json", None)
    if results["writers"]:
        # tuple keys in JSON: "config/mode/N"
        results["writers"]["runs"] = {"/".join(map(str, k)): v
                                      for k, v in results["writers"]["runs"].items()}
    if out and out is not True:
        with open(out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def run_browser(builddir):
    """The browser case (--only=browser): browser-bench under xvfb-run,
    the data view showing slices of a ~2 GiB float32 variable written
    once in --browser-dir (default: TMPDIR/ncz-browser-bench), or of
    --browser-url (the remote form). Prints its numbers and MET/MISSED."""
    prog = os.path.join(builddir, "browser-bench")
    xvfb = shutil.which("xvfb-run")
    if not os.path.exists(prog):
        print("note: browser-bench not built (no GTK 4), browser case skipped")
        return 0
    if xvfb is None:
        print("note: xvfb-run not found, browser case skipped")
        return 0
    argv = [xvfb, "-a", "-s", "-screen 0 1280x1024x24", prog]
    url = opt("--browser-url", None)
    if url and url is not True:
        argv.append("--url=" + url)
    else:
        argv.append("--dir=" + str(opt("--browser-dir", os.path.join(tempfile.gettempdir(),
                                                                    "ncz-browser-bench"))))
    env = dict(os.environ)
    env.setdefault("GDK_BACKEND", "x11")
    env.setdefault("GSK_RENDERER", "cairo")
    env.setdefault("NO_AT_BRIDGE", "1")
    print("== browser: the data view on a ~2 GiB variable")
    res = subprocess.run(argv, env=env, capture_output=True, text=True)
    report_browser(res)
    return res.returncode


def report_browser(res):
    """browser-bench's lines, without GTK's warnings about the session bus"""
    for line in res.stdout.splitlines():
        print(line)
    if res.returncode != 0:
        for line in res.stderr.splitlines():
            if "Gtk-WARNING" not in line and line.strip():
                print("  " + line)


def run_python(builddir, ncz, python, common_data, repeat, want_drop, env, workdir):
    """The Python case: py-bench.py (the data case through the Python
    layer of the build: BUILD/introspection/python) and ncz-bench data,
    interleaved."""
    build = os.path.dirname(os.path.abspath(builddir))
    pydir = os.path.join(build, "introspection", "python")
    if not os.path.exists(ncz) or not os.path.isdir(os.path.join(pydir, "ncz")):
        print("note: the Python case needs ncz-bench and %s, skipped" % pydir)
        return {}
    penv = dict(env)
    for var, path in (("PYTHONPATH", pydir),
                      ("GI_TYPELIB_PATH", os.path.join(build, "introspection")),
                      ("LD_LIBRARY_PATH", os.path.join(build, "core"))):
        penv[var] = path + (":" + penv[var] if penv.get(var) else "")
    # both warm: modules loaded (and the bindings resolved) before timing
    jobs = {"ncz (C)": ([ncz, "data", "--warm=yes"] + common_data, repeat, want_drop,
                        ["write_s", "read_s"]),
            "ncz-python": ([python, os.path.join(HERE, "py-bench.py"), "data",
                            "--warm=yes"] + common_data,
                           repeat, want_drop,
                           ["write_s", "read_s", "read_get_s", "read_masked_s"])}
    return interleaved(jobs, penv, workdir)


def report_python(res):
    """The Python case: C and Python side by side, the target within 10%."""
    py = res.get("python") or {}
    if not py:
        return []
    c, p = py.get("ncz (C)"), py.get("ncz-python")
    print()
    print("Python case: the data case through the Python layer (py-bench.py) and "
          "ncz-bench in C, best of %d" % res["repeat"])
    print("%-34s %12s %12s %14s" % ("program", "write MB/s", "read MB/s", "peak RSS MiB"))
    rows = [("ncz (C)", c, "read_s"), ("python: read_into", p, "read_s"),
            ("python: get(mask_and_scale=False)", p, "read_get_s"),
            ("python: var[...] masked", p, "read_masked_s")]
    for label, r, key in rows:
        if r is None:
            print("%-34s %12s" % (label, "FAILED"))
            continue
        w = mbps(r["bytes"], r["write_s"]) if key == "read_s" else None
        print("%-34s %s %s %s" % (label, fmt(w, 12), fmt(mbps(r["bytes"], r[key]), 12),
                                  fmt(r["peak_rss_kib"] / 1024, 14)))
    if c is None or p is None:
        return []
    verdicts = []
    for label, pkey in (("write", "write_s"), ("read", "read_s")):
        ratio = c[pkey] / p[pkey]
        ok = ratio >= 0.9
        verdicts.append(ok)
        print("target %-5s Python within 10%% of C (%s): x%.2f of C  %s" % (
            label, "var[...] = array" if label == "write" else "read_into", ratio,
            "MET" if ok else "MISSED"))
    # for reference: these allocate the array they return, whose fresh
    # pages the kernel zeroes (ncz-bench reads into a buffer it reuses);
    # var[...] also compares every value with the fill value
    for label, pkey in (("get(mask_and_scale=False)", "read_get_s"),
                        ("var[...] masked", "read_masked_s")):
        print("reference: Python %s reads at x%.2f of C (a new array each read)"
              % (label, c["read_s"] / p[pkey]))
    return verdicts


def run_hdf5(forms, tools, common_data, repeat, want_drop, env, workdir):
    """The HDF5 case: Ncz's HDF5 backend and netcdf-c, each form in a
    netCDF-4 file. The uncompressed forms take turns among themselves,
    the compressed ones among themselves and with Ncz's NCZarr + zstd
    (the cross comparison), so that each comparison is made in the same
    rounds. Returns "tool/form" -> the best results."""
    out = {}
    argvs = dict(tools)
    for group in ([f for f in forms if f not in HDF5_COMPRESSED],
                  [f for f in forms if f in HDF5_COMPRESSED]):
        jobs = {}
        for form in group:
            for name in ("ncz", "netcdf-c"):
                if argvs.get(name) is None:
                    continue
                jobs["%s/%s" % (name, form)] = (
                    argvs[name] + ["hdf5", "--form=" + form] + common_data, repeat, want_drop,
                    ["write_s", "read_s", "fsync_s", "preload_s"])
        if group and group[0] in HDF5_COMPRESSED and argvs.get("ncz") is not None:
            jobs[HDF5_ZSTD] = (argvs["ncz"] + ["data", "--codec=zstd"] + common_data, repeat,
                               want_drop, ["write_s", "read_s"])
        if jobs:
            out.update(interleaved(jobs, env, workdir))
    return out


def find_ncz_copy(builddir):
    """ncz-copy: --ncz-copy=PATH (another build's, to compare), else the
    one in the build that holds @builddir (BUILD/bench, or BUILD)."""
    given = opt("--ncz-copy", None)
    if isinstance(given, str):
        return given if os.path.exists(given) else None
    for top in (os.path.join(builddir, ".."), builddir):
        path = os.path.join(top, "tools", "ncz-copy", "ncz-copy")
        if os.path.exists(path):
            return os.path.normpath(path)
    return None


def timed_run(argv, env, want_drop):
    """Runs @argv as a whole process; returns its wall time and peak RSS,
    or None when it fails."""
    if want_drop:
        drop_caches()
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.stderr.write("%s failed (%d): %s\n" % (" ".join(argv), p.returncode,
                                                    err.decode(errors="replace").strip()[-500:]))
        return None
    return {"wall_s": wall, "user_s": usage.ru_utime, "sys_s": usage.ru_stime,
            "peak_rss_kib": usage.ru_maxrss}


def same_values(python, a, b, env):
    """Whether variable 'data' of the netCDF-4 files @a and @b holds the
    same values (h5py); None when h5py is missing."""
    code = ("import sys, h5py, numpy\n"
            "with h5py.File(sys.argv[1], 'r') as f, h5py.File(sys.argv[2], 'r') as g:\n"
            "    sys.exit(0 if numpy.array_equal(f['data'][...], g['data'][...]) else 1)\n")
    if subprocess.run([python, "-c", "import h5py, numpy"], capture_output=True).returncode != 0:
        return None
    return subprocess.run([python, "-c", code, a, b], env=env).returncode == 0


def run_copy(builddir, tools, common_data, repeat, want_drop, env, workdir, python):
    """The copy case: ncz-copy and netcdf-c's nccopy copy the same
    deflated netCDF-4 file (the HDF5 case's deflate form, as netcdf-c
    writes it) to a new netCDF-4 file with -d0 (no compression) and -d1,
    each run timed as a whole process, as users run them. The four
    programs take turns, each time writing a fresh file; the first output
    of each is checked against the input (h5py). Returns "tool/-dN" -> the
    best results, with the input's "bytes" (of the variable) and "stored"
    (of the file)."""
    ncz_copy = find_ncz_copy(builddir)
    nccopy = shutil.which("nccopy")
    argvs = dict(tools)
    if ncz_copy is None or nccopy is None:
        print("note: copy case skipped: %s not found" % ("ncz-copy" if ncz_copy is None
                                                          else "nccopy (netcdf-bin)"))
        return {}
    # the input, not timed: netcdf-c's own deflated file when nc-bench is
    # there, else the one Ncz's HDF5 backend writes
    maker = argvs.get("netcdf-c") or argvs.get("ncz")
    if maker is None:
        print("note: copy case skipped: no program to write its input")
        return {}
    src_dir = tempfile.mkdtemp(prefix="copy-src-", dir=workdir)
    r = run_one(maker + ["hdf5", "--form=deflate", "--dir=" + src_dir] + common_data, env, False)
    src = os.path.join(src_dir, "nc-data.nc" if maker is argvs.get("netcdf-c") else "ncz-data.nc")
    if r is None or not os.path.exists(src):
        print("note: copy case skipped: its input could not be written")
        return {}
    os.sync()
    jobs = {}
    for level in COPY_LEVELS:
        jobs["ncz-copy/-d" + level] = [ncz_copy, "-q", "-d" + level]
        jobs["nccopy/-d" + level] = [nccopy, "-d" + level]
    best = {name: None for name in jobs}
    failed = set()
    for i in range(repeat):
        for name, argv in jobs.items():
            if name in failed:
                continue
            d = tempfile.mkdtemp(prefix="copy%d-" % i, dir=workdir)
            out = os.path.join(d, "copy.nc")
            res = timed_run(argv + [src, out], env, want_drop)
            os.sync()   # as in interleaved(): the next program never shares its writeback
            if res is not None and i == 0:
                same = same_values(python, src, out, env)
                if same is False:
                    sys.stderr.write("%s: the copy holds other values than %s\n" % (name, src))
                    res = None
                elif same is None:
                    res["unchecked"] = True
            if res is None:
                failed.add(name)
                best[name] = None
                continue
            b = best[name]
            if b is None:
                best[name] = res
            else:
                for k in ("wall_s", "user_s", "sys_s"):
                    b[k] = min(b[k], res[k])
                b["peak_rss_kib"] = max(b["peak_rss_kib"], res["peak_rss_kib"])
    nbytes = 4
    for n in common_data[0].split("=", 1)[1].split(","):
        nbytes *= int(n)
    best["input"] = {"bytes": nbytes, "stored": os.path.getsize(src),
                     "writer": "netcdf-c" if maker is argvs.get("netcdf-c") else "ncz"}
    return best


def report_copy(res):
    """The copy case: a row per program and level, the ratios and the
    targets (ncz-copy >= 1.5 x nccopy with -d0 and with -d1)."""
    verdicts = []
    c = res.get("copy")
    if not c:
        return verdicts
    src = c.get("input", {})
    nbytes = src.get("bytes", 0)
    print()
    print("Copy case: a netCDF-4 file, float32 %s in chunks %s, deflate level 1 (written by %s, "
          "%.1f MB), copied to a new netCDF-4 file; whole processes, %s page cache, best of %d, "
          "%d cores" % (res["shape"].replace(",", "x"), res["chunks"].replace(",", "x"),
                        src.get("writer", "?"), src.get("stored", 0) / 1e6,
                        "warm" if res["warm"] else "dropped", res["repeat"], res.get("cores", 0)))
    print("%-28s %10s %10s %10s %10s %14s" % ("program", "MB/s", "wall s", "user s", "sys s",
                                               "peak RSS MiB"))
    rates = {}
    for level in COPY_LEVELS:
        for tool, label in (("ncz-copy", "ncz-copy -d%s" % level),
                            ("nccopy", "nccopy 4.9.0 -d%s" % level)):
            key = "%s/-d%s" % (tool, level)
            if key not in c:
                continue
            r = c[key]
            if r is None:
                print("%-28s %10s" % (label, "FAILED"))
                continue
            rates[key] = mbps(nbytes, r["wall_s"])
            print("%-28s %s %s %s %s %s%s" % (label, fmt(rates[key], 10), fmt(r["wall_s"], 10, 3),
                                              fmt(r["user_s"], 10, 3), fmt(r["sys_s"], 10, 3),
                                              fmt(r["peak_rss_kib"] / 1024, 14),
                                              "  (values not checked: no h5py)"
                                              if r.get("unchecked") else ""))
    print("  MB/s: bytes of the variable / wall time of the whole process (start to exit)")
    for level in COPY_LEVELS:
        n, p = rates.get("ncz-copy/-d" + level), rates.get("nccopy/-d" + level)
        if n is None or p is None:
            continue
        ok = n >= 1.5 * p
        verdicts.append(ok)
        print("target copy -d%s  %8.1f MB/s (1.5 x nccopy): ncz-copy %.1f MB/s = x%.2f  %s" % (
            level, 1.5 * p, n, n / p, "MET" if ok else "MISSED"))
    return verdicts


# The many-writers case on the file store: the locks beside the dataset
# (the store's own) and the opt-in lock directory
WRITERS_CONFIGS = ("own", "lock.dir")
WRITERS_LABELS = {"own": "file, own locks", "lock.dir": "file, lock.dir"}


def run_writers(builddir, shape, repeat, env, workdir):
    """The many-writers case on the file store (writers_case.py), with the
    store's own locks (beside the dataset) and with lock.dir. After each
    run: the values were checked (writers_case), and the partial writers'
    locks must be where the configuration puts them; then the dataset
    and its locks are removed and the machine syncs. Returns the runs,
    the lock alone of each configuration, the shape."""
    prog = os.path.join(builddir, "ncz-writers-bench")
    if not os.path.exists(prog):
        print("note: writers case skipped: %s not built" % prog)
        return {}
    top = tempfile.mkdtemp(prefix="writers-", dir=workdir)
    locks = os.path.join(top, "locks")
    os.makedirs(locks)

    def path_of(mode, n, i):
        return os.path.join(top, "w-%s-%d-%d.zarr" % (mode, n, i))

    def url_of(config, path):
        url = "file://%s#mode=nczarr,file" % path
        return url + "&lock.dir=" + locks if config == "lock.dir" else url

    def make_url(config, mode, n, i):
        return url_of(config, path_of(mode, n, i))

    def after(config, mode, n, url):
        path = url.split("#")[0][len("file://"):]
        beside = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".ncz-lock")
        in_dir = [f for f in os.listdir(locks) if f.endswith(".ncz-lock")]
        problem = None
        if mode == "partial" and config == "own" and (not os.path.exists(beside) or in_dir):
            problem = "the partial writers took no lock beside the dataset"
        if mode == "partial" and config == "lock.dir" and (os.path.exists(beside) or not in_dir):
            problem = "the partial writers took no lock in the lock directory"
        shutil.rmtree(path, ignore_errors=True)
        for f in [beside] + [os.path.join(locks, f) for f in os.listdir(locks)]:
            if os.path.exists(f):
                os.unlink(f)
        os.sync()
        return problem

    runs = writers_case.run(prog, WRITERS_CONFIGS, shape, repeat, env,
                            os.path.join(top, "barrier"), make_url, after)
    lock_us = {}
    for config in WRITERS_CONFIGS:
        r = writers_case.locks_cost(prog, url_of(config, os.path.join(top, "locks-%s.zarr"
                                                                      % config)),
                                    shape, env)
        if r is not None and r.get("has_locks"):
            lock_us[config] = r["us_per_lock"]
    return {"runs": runs, "lock_us": lock_us, "shape": shape}


def report_writers(res):
    """The many-writers case: the table and the targets (aligned writers
    lose nothing measurable against one process; lock.dir costs what the
    store's own locks cost), and the cost of sharing chunks, shown."""
    w = res.get("writers")
    if not w:
        return []
    runs, shape = w["runs"], w["shape"]
    cores = res.get("cores", 0)
    t = writers_case.sizes(shape)[0]
    rates = writers_case.report("Writers case, file store", runs, WRITERS_CONFIGS,
                                WRITERS_LABELS, "own", shape, res["repeat"], cores,
                                w.get("lock_us"))
    verdicts = []

    def target(ok, text):
        verdicts.append(ok)
        print("target %s  %s" % (text, "MET" if ok else "MISSED"))

    def r(a, b):
        return writers_case.ratio_line(rates, a, b)

    print("(%d cores: N = 4 runs 4 writers on %d cores, N = 2 one per core)" % (cores, cores))
    for n in writers_case.NS[1:]:
        x = r(("own", "aligned", n), ("own", "aligned", 1))
        if x is not None:
            target(x >= 0.9, "aligned, file store, N=%d vs N=1: x%.2f of the MB/s of one "
                   "process (no measurable loss: >= x0.90)" % (n, x))
    for mode in writers_case.MODES:
        for n in writers_case.NS:
            x = r(("lock.dir", mode, n), ("own", mode, n))
            if x is not None:
                target(x >= 0.9, "lock.dir vs own locks, %s, N=%d: x%.2f (it costs what the "
                       "store's locks cost: >= x0.90)" % (mode, n, x))
    print("(aligned writers take no lock in either configuration: the lock.dir / own ratios of "
          "the aligned rows are the noise of the run)")
    # shown, no target: what sharing chunks costs, and the lock alone
    for n in writers_case.NS:
        x = r(("own", "partial", n), ("own", "aligned", n))
        if x is not None:
            print("partial vs aligned, own locks, N=%d: x%.2f (each write reads and writes a "
                  "whole 2-step chunk under its lock)" % (n, x))
    us = w.get("lock_us", {}).get("own")
    p1 = runs.get(("own", "partial", 1))
    if us and p1 and "wall_s" in p1:
        print("the lock alone: %d partial writes x %.2f us = %.3f ms, %.3f %% of the partial "
              "N=1 run (%.3f s)" % (t, us, t * us / 1e3, 100 * t * us / 1e6 / p1["wall_s"],
                                    p1["wall_s"]))
    return verdicts


XARRAY_CASE = "xarray"
# the xarray case's data: (label, xr-bench.py --codec)
XARRAY_FORMS = (("uncompressed", "none"), ("compressed", "zstd"))


def xarray_env(builddir, env):
    """@env with the Python layer of the build on PYTHONPATH (its
    ncz-1.0.dist-info registers the engine), the typelib and libncz."""
    root = os.path.dirname(os.path.abspath(builddir)) if os.path.basename(
        os.path.abspath(builddir)) == "bench" else os.path.abspath(builddir)
    e = dict(env)

    def prepend(key, value):
        e[key] = value + (":" + e[key] if e.get(key) else "")
    prepend("PYTHONPATH", os.path.join(root, "introspection", "python"))
    prepend("GI_TYPELIB_PATH", os.path.join(root, "introspection"))
    prepend("LD_LIBRARY_PATH", os.path.join(root, "core"))
    return e


def run_xarray(builddir, small, repeat, env, workdir, python):
    """The xarray case: xr-bench.py for each form; form -> its times, or
    None when it failed."""
    e = xarray_env(builddir, env)
    ready = subprocess.run([python, "-c", "import xarray, zarr, netCDF4, distributed, "
                            "ncz.xarray_backend"], env=e, capture_output=True, text=True)
    if ready.returncode != 0:
        print("note: xarray case skipped: %s" % ready.stderr.strip().splitlines()[-1:])
        return {}
    shape = "16,128,128" if small else "64,512,512"
    chunks = "8,64,64" if small else "16,128,128"
    out = {}
    for label, codec in XARRAY_FORMS:
        d = tempfile.mkdtemp(prefix="xarray-", dir=workdir)
        argv = [python, os.path.join(HERE, "xr-bench.py"), "--dir=" + d, "--shape=" + shape,
                "--chunks=" + chunks, "--codec=" + codec, "--repeat=%d" % max(repeat, 1)]
        out[label] = run_one(argv, e, False)
        shutil.rmtree(d, ignore_errors=True)
    return out


def report_xarray(res):
    """The xarray case: times, ratios (the peer's time over Ncz's) and
    the targets (at least 1.5)."""
    x = res.get(XARRAY_CASE)
    if not x:
        return []
    verdicts = []
    print()
    print("xarray case: xr.open_dataset(...).load(), and a Dask sum on 2 worker processes "
          "(seconds, best of %d)" % res["repeat"])
    rows = (("load, Zarr store", "load_ncz_zarr", "load_zarr", "engine=zarr"),
            ("load, netCDF-4 file", "load_ncz_nc4", "load_netcdf4", "engine=netcdf4"),
            ("Dask sum, Zarr store", "dask_ncz", "dask_zarr", "engine=zarr"))
    print("%-22s %-13s %10s %10s %8s" % ("case", "form", "ncz", "peer", "ratio"))
    for label, _ in XARRAY_FORMS:
        r = x.get(label)
        if not r:
            print("%-22s %-13s failed" % ("all", label))
            continue
        for name, mine, peer, peer_name in rows:
            if mine not in r or peer not in r:
                continue
            ratio = r[peer] / r[mine] if r[mine] > 0 else float("nan")
            print("%-22s %-13s %s %s %8.2f  (%s; %.1f MB)" % (
                name, label, fmt(r[mine], 10, 3), fmt(r[peer], 10, 3), ratio, peer_name,
                r["bytes"] / 1e6))
            ok = ratio >= 1.5
            verdicts.append(ok)
            print("target ncz >= 1.5 x %s, %s, %s: x%.2f  %s" % (
                peer_name, name, label, ratio, "MET" if ok else "MISSED"))
        if r.get("dask_baseline"):
            base = r["dask_baseline"]
            print("  (the Dask sum of the same array made on the workers, no read: %.3f s; above it, ncz "
                  "%.3f s, engine=zarr %.3f s)" % (base, r["dask_ncz"] - base,
                                                   r["dask_zarr"] - base))
    return verdicts


def report(res):
    verdicts = []
    if res["data"] or res["ceiling"]:
        verdicts += report_data(res)
    verdicts += report_codecs(res)
    verdicts += report_hdf5(res)
    verdicts += report_copy(res)
    verdicts += report_writers(res)
    verdicts += report_python(res)
    verdicts += report_xarray(res)
    if res["meta"]:
        verdicts += report_meta("Metadata case", res["meta"], res["meta_sizes"], res["repeat"])
    if res["cmeta"]:
        verdicts += report_meta(
            "Consolidated metadata case (pure Zarr with .zmetadata; Ncz ncz_dataset_open, "
            "zarr-python open_consolidated)", res["cmeta"], res["meta_sizes"], res["repeat"],
            targets=("open_s",), reference=(CMETA_REF,),
            notes=["netcdf-c: left out (it has no consolidated metadata)",
                   "%s: Ncz opening the same store with consolidated=false (every .zgroup "
                   "and .zattrs read, every group listed), for reference only" % CMETA_REF])
    if res.get("wide_sizes") and res["wide"]:
        verdicts += report_meta("Wide metadata case", res["wide"], res["wide_sizes"],
                                res["repeat"])
    if verdicts:
        print()
        print("targets met: %d of %d" % (sum(verdicts), len(verdicts)))


def report_data(res):
    """The data case: the table, the ratios and the targets."""
    dims = [int(x) for x in res["shape"].split(",")]
    nbytes = 4
    for d in dims:
        nbytes *= d
    print()
    print("Data case: float32 %s (%.1f MiB), chunks %s, uncompressed, %s page cache, "
          "best of %d" % ("x".join(map(str, dims)), nbytes / 2 ** 20,
                          res["chunks"].replace(",", "x"),
                          "warm" if res["warm"] else "dropped", res["repeat"]))
    print("%-22s %12s %12s %14s" % ("program", "write MB/s", "read MB/s", "peak RSS MiB"))
    rates = {}
    for name, r in res["data"].items():
        if r is None:
            print("%-22s %12s %12s %14s" % (name, "FAILED", "", ""))
            continue
        w, rd = mbps(r["bytes"], r["write_s"]), mbps(r["bytes"], r["read_s"])
        rates[name] = (w, rd)
        print("%-22s %s %s %s" % (name, fmt(w, 12), fmt(rd, 12),
                                  fmt(r["peak_rss_kib"] / 1024, 14)))
    c = res["ceiling"]
    ceil_w = ceil_r = None
    if c:
        ceil_w, ceil_r = mbps(c["bytes"], c["write_s"]), mbps(c["bytes"], c["read_s"])
        print("%-22s %s %s %s" % ("ceiling: chunk files*", fmt(ceil_w, 12), fmt(ceil_r, 12),
                                  fmt(c["peak_rss_kib"] / 1024, 14)))
        print("%-22s %s" % ("ceiling: memcpy", fmt(mbps(c["bytes"], c["memcpy_s"]), 12)))
        print("  * one plain file per chunk, written and read on every core")

    verdicts = []
    if "ncz" in rates:
        nw, nr = rates["ncz"]
        for peer in ("netcdf-c", "zarr-python"):
            if peer in rates:
                pw, pr = rates[peer]
                print("Ncz / %-12s write x%.2f  read x%.2f" % (peer, nw / pw, nr / pr))
        peers = [v for k, v in rates.items() if k != "ncz"]
        for label, idx, ncz_rate, ceil in (("write", 0, nw, ceil_w), ("read", 1, nr, ceil_r)):
            best_peer = max((p[idx] for p in peers), default=None)
            tgt = target_rate(best_peer, ceil)
            if tgt is None:
                continue
            ok = ncz_rate >= tgt
            verdicts.append(ok)
            how = ("1.5 x faster peer" if ceil is None or 1.5 * best_peer <= ceil
                   else "85% of ceiling")
            print("target %-5s %8.1f MB/s (%s): Ncz %.1f MB/s  %s" % (
                label, tgt, how, ncz_rate, "MET" if ok else "MISSED"))
            if ceil:
                print("             Ncz at %.0f%% of the ceiling" % (100 * ncz_rate / ceil))
    return verdicts


def report_meta(title, m, sizes, repeat, targets=("create_s", "open_s"), reference=(),
                notes=()):
    """A metadata case: the table, the time per variable, the ratios and
    the targets (for the keys in @targets; ratios alone for the others).
    The programs named in @reference are shown, and compared with Ncz,
    but are no peers: they set no target."""
    verdicts = []
    print()
    sizes = sizes.split(",")
    print("%s: %s groups x %s variables x %s attributes, best of %d" % (
        title, sizes[0], sizes[1], sizes[2], repeat))
    print("%-22s %12s %12s %14s %16s" % ("program", "create s", "open+list s", "peak RSS MiB",
                                         "us/var open+list"))
    for name, r in m.items():
        if r is None:
            print("%-22s %12s" % (name, "FAILED"))
            continue
        per_var = 1e6 * r["open_s"] / r["variables"] if r["variables"] else float("nan")
        print("%-22s %s %s %s %s   (%d groups, %d variables, %d attributes listed)" % (
            name, fmt(r["create_s"], 12, 4), fmt(r["open_s"], 12, 4),
            fmt(r["peak_rss_kib"] / 1024, 14), fmt(per_var, 16, 1), r["groups"],
            r["variables"], r["attributes"]))
    for note in notes:
        print("  " + note)
    if m.get("ncz"):
        for key, label in (("create_s", "create"), ("open_s", "open+list")):
            peers = [(r[key], k) for k, r in m.items() if k != "ncz" and k not in reference and r]
            for k, r in m.items():
                if k != "ncz" and r and (k not in reference or key in targets):
                    print("Ncz / %-12s %-9s x%.2f faster" % (k, label, r[key] / m["ncz"][key]))
            if peers and key in targets:
                best, who = min(peers)
                tgt = best / 1.5
                ok = m["ncz"][key] <= tgt
                verdicts.append(ok)
                print("target %-9s <= %.4f s (1.5 x faster peer, %s): Ncz %.4f s  %s" % (
                    label, tgt, who, m["ncz"][key], "MET" if ok else "MISSED"))
    return verdicts


def report_codecs(res):
    """The codec cases: a table per codec, the ratios and the targets."""
    verdicts = []
    if not res.get("codecs"):
        return verdicts
    dims = res["shape"].replace(",", "x")
    print()
    print("Codec cases: float32 %s smooth field + noise, chunks %s, %s page cache, best of %d"
          % (dims, res["chunks"].replace(",", "x"), "warm" if res["warm"] else "dropped",
             res["repeat"]))
    print("%-28s %12s %12s %8s %14s" % ("codec / program", "write MB/s", "read MB/s", "ratio",
                                        "peak RSS MiB"))
    summary = []
    for codec, case in res["codecs"].items():
        rates = {}
        for name in ("ncz", "zarr-python"):
            r = case.get(name)
            label = "%s: %s" % (codec, name)
            if name not in case:
                continue
            if r is None:
                print("%-28s %12s" % (label, "FAILED"))
                continue
            w, rd = mbps(r["bytes"], r["write_s"]), mbps(r["bytes"], r["read_s"])
            rates[name] = (w, rd)
            ratio = r["bytes"] / r["stored_bytes"] if r.get("stored_bytes") else float("nan")
            print("%-28s %s %s %s %s" % (label, fmt(w, 12), fmt(rd, 12), fmt(ratio, 8, 2),
                                         fmt(r["peak_rss_kib"] / 1024, 14)))
        raw = case.get("raw")
        if raw:
            rw, rr = mbps(raw["bytes"], raw["encode_s"]), mbps(raw["bytes"], raw["decode_s"])
            rates["raw"] = (rw, rr)
            print("%-28s %s %s %s %s" % ("%s: raw codec*" % codec, fmt(rw, 12), fmt(rr, 12),
                                         fmt(raw["bytes"] / raw["compressed_bytes"], 8, 2),
                                         fmt(raw["peak_rss_kib"] / 1024, 14)))
        if "ncz" not in rates:
            continue
        nw, nr = rates["ncz"]
        for peer, factor, what in (("zarr-python", 1.5, "1.5 x zarr-python"),
                                   ("raw", 0.85, "85% of raw codec")):
            if peer not in rates:
                continue
            pw, pr = rates[peer]
            for label, ncz_rate, peer_rate in (("write", nw, pw), ("read", nr, pr)):
                tgt = factor * peer_rate
                ok = ncz_rate >= tgt
                verdicts.append(ok)
                summary.append("target %-9s %-5s %8.1f MB/s (%s): Ncz %.1f MB/s = x%.2f  %s" % (
                    codec, label, tgt, what, ncz_rate, ncz_rate / peer_rate,
                    "MET" if ok else "MISSED"))
    print("  * the library called directly on the same chunks, on every core; no store")
    for line in summary:
        print(line)
    return verdicts


def report_hdf5(res):
    """The HDF5 case: a row per form and program, the Ncz/netcdf-c
    ratios and the targets."""
    verdicts = []
    h = res.get("hdf5")
    if not h:
        return verdicts
    print()
    print("HDF5 case: netCDF-4 files, float32 %s, chunks %s (compressed forms: smooth field + "
          "noise), %s page cache, best of %d, %d cores" % (
              res["shape"].replace(",", "x"), res["chunks"].replace(",", "x"),
              "warm" if res["warm"] else "dropped", res["repeat"], res.get("cores", 0)))
    print("%-40s %12s %12s %8s %14s" % ("form / program", "write MB/s", "read MB/s", "ratio",
                                        "peak RSS MiB"))
    rates = {}
    fsyncs, preloads = [], []
    rows = [(k, "%s: %s" % (k.split("/")[1], {"ncz": "Ncz (HDF5)",
                                              "netcdf-c": "netcdf-c 4.9.0 (HDF5)"}[k.split("/")[0]]))
            for f in HDF5_FORMS for k in ("ncz/" + f, "netcdf-c/" + f) if k in h]
    if HDF5_ZSTD in h:
        rows.append((HDF5_ZSTD, "zstd level 1: Ncz (NCZarr)"))
    for key, label in rows:
        r = h[key]
        if r is None:
            print("%-40s %12s" % (label, "FAILED"))
            continue
        w, rd = mbps(r["bytes"], r["write_s"]), mbps(r["bytes"], r["read_s"])
        rates[key] = (w, rd)
        ratio = r["bytes"] / r["stored_bytes"] if r.get("stored_bytes") else float("nan")
        print("%-40s %s %s %s %s" % (label, fmt(w, 12), fmt(rd, 12), fmt(ratio, 8, 2),
                                     fmt(r["peak_rss_kib"] / 1024, 14)))
        if "fsync_s" in r:
            fsyncs.append("%s %.3f s" % (key.split("/")[1], r["fsync_s"]))
        if "preload_s" in r:
            preloads.append("%s %.3f s" % (key.split("/")[1], r["preload_s"]))
    print("  ratio: variable bytes / bytes stored (HDF5: the whole file; NCZarr: the chunks)")
    if fsyncs:
        print("  netcdf-c's write includes an fsync of the file and its directory after nc_close,")
        print("  as Ncz's HDF5 backend syncs a new file at close; the fsync alone, best: "
              + ", ".join(fsyncs))
    if preloads:
        print("  Ncz loads its hdf5 module (and libhdf5) before the timed part, as nc-bench is")
        print("  linked with libhdf5; the load alone, best: " + ", ".join(preloads))

    summary = []

    def target(label, key, peer, factor, what, idx):
        if key not in rates or peer not in rates:
            return
        n, p = rates[key][idx], rates[peer][idx]
        tgt = factor * p
        ok = n > tgt if factor == 1.0 else n >= tgt
        verdicts.append(ok)
        summary.append("target %-34s %-5s %8.1f MB/s (%s): %.1f MB/s = x%.2f  %s" % (
            label, ("write", "read")[idx], tgt, what, n, n / p, "MET" if ok else "MISSED"))

    for form in HDF5_FORMS:
        key, peer = "ncz/" + form, "netcdf-c/" + form
        if key in rates and peer in rates:
            print("Ncz / netcdf-c %-16s write x%.2f  read x%.2f" % (
                form, rates[key][0] / rates[peer][0], rates[key][1] / rates[peer][1]))
    for idx in (0, 1):
        target("hdf5 chunked", "ncz/chunked", "netcdf-c/chunked", 0.9,
               ">= 0.9 x netcdf-c", idx)
    # contiguous: reading only (Ncz reads a read-only file's contiguous
    # data with pread outside libhdf5, in pieces on every core)
    target("hdf5 contiguous", "ncz/contiguous", "netcdf-c/contiguous", 1.5,
           "1.5 x netcdf-c", 1)
    for form in HDF5_COMPRESSED:
        for idx in (0, 1):
            target("hdf5 " + form, "ncz/" + form, "netcdf-c/" + form, 1.5,
                   "1.5 x netcdf-c", idx)
    for form in HDF5_COMPRESSED:
        for idx in (0, 1):
            target("nczarr-zstd vs nc " + form, HDF5_ZSTD, "netcdf-c/" + form, 1.0,
                   "> netcdf-c HDF5 " + form, idx)
    for line in summary:
        print(line)
    return verdicts


if __name__ == "__main__":
    sys.exit(main())
