#!/usr/bin/python3
# check-h5py.py BLOSC_MODULE_DIR LZ4_MODULE_DIR [H5DUMP]
#
# Ncz's blosc (32001) and lz4 (32004) modules as HDF5 filter plugins in
# h5py (HDF5_PLUGIN_PATH at the module's build directory): datasets
# written and read back, every chunk really filtered; files written
# through Debian's plugins (hdf5-filter-plugin's lz4,
# hdf5-filter-plugin-blosc-serial) read through Ncz's, and the reverse,
# which shows the chunk bytes are the same format; blosc's set_local
# stores the type size and chunk bytes in the dataset, as HDF5's own blosc
# filter does; h5dump reads Ncz's files. HDF5 reads HDF5_PLUGIN_PATH once
# per process, so the writes through one plugin directory run in one
# process of their own, then the reads through each directory (a process
# per write or read made the test's time that of starting Python and
# h5py 130 times). TAP output; exit 77 without h5py or numpy.
import contextlib
import glob
import io
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import h5py
except ImportError as e:
    print("1..0 # SKIP %s" % e)
    sys.exit(77)


def make_data(dtype, shape, seed, noise=False):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if noise:
        # does not compress: the HDF5 lz4 framing stores such blocks as is
        return rng.integers(0, 256, n * np.dtype(dtype).itemsize, dtype="u1").view(dtype).reshape(shape)
    x = np.arange(n, dtype="f8")
    # slowly varying whole numbers with a little noise: compressible for
    # every item size
    v = np.round(1000.0 + 400.0 * np.sin(x / 6000.0)) + (rng.random(n) < 0.01)
    if np.dtype(dtype).itemsize == 1:
        v = v % 256
    return v.astype(dtype).reshape(shape)


def worker(argv):
    """Runs in a child process: write or read one dataset."""
    op, path, spec = argv[0], argv[1], json.loads(argv[2])
    data = make_data(spec["dtype"], tuple(spec["shape"]), spec["seed"], spec.get("noise", False))
    if op == "write":
        opts = tuple(spec["opts"]) if spec["opts"] is not None else None
        with h5py.File(path, "w") as f:
            d = f.create_dataset("x", data=data, chunks=tuple(spec["chunks"]),
                                 compression=spec["filter"], compression_opts=opts)
            del d
    with h5py.File(path, "r") as f:
        d = f["x"]
        back = d[...]
        if not np.array_equal(back, data):
            print("values differ")
            return 1
        # every chunk went through the filter (an optional filter that
        # fails leaves the chunk raw with its bit set in the mask)
        dcpl = d.id.get_create_plist()
        filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
        if filters != [spec["filter"]]:
            print("filters %s" % filters)
            return 1
        chunk_bytes = int(np.prod(spec["chunks"])) * data.dtype.itemsize
        for idx in np.ndindex(*[-(-s // c) for s, c in zip(spec["shape"], spec["chunks"])]):
            offset = tuple(i * c for i, c in zip(idx, spec["chunks"]))
            mask, raw = d.id.read_direct_chunk(offset)
            if mask != 0:
                print("chunk %s stored unfiltered (mask %d)" % (offset, mask))
                return 1
            if spec["filter"] == 32004:
                # HDF5 lz4 framing: 8-byte big-endian size, 4-byte block size
                size = int.from_bytes(raw[0:8], "big")
                block = int.from_bytes(raw[8:12], "big")
                want_block = spec["opts"][0] if spec["opts"] else 1 << 30
                if size != chunk_bytes or block != min(want_block, chunk_bytes):
                    print("chunk %s: lz4 header %d/%d, expected %d/%d" % (offset, size, block, chunk_bytes, min(want_block, chunk_bytes)))
                    return 1
            else:
                # a Blosc buffer: its header's sizes
                if raw[0] != 2 or int.from_bytes(raw[4:8], "little") != chunk_bytes \
                        or int.from_bytes(raw[12:16], "little") != len(raw):
                    print("chunk %s: not a Blosc buffer of %d bytes" % (offset, chunk_bytes))
                    return 1
                # set_local gave the filter the element size (header byte 3)
                if raw[3] != data.dtype.itemsize:
                    print("chunk %s: Blosc type size %d, expected %d" % (offset, raw[3], data.dtype.itemsize))
                    return 1
        if spec["filter"] == 32001:
            # what set_local stored: [version, format, type size, chunk bytes (, clevel, shuffle,
            # compressor)], the clevel, shuffle and compressor given kept
            cd = list(dcpl.get_filter_by_id(32001)[1])
            if len(cd) < 4 or cd[2] != data.dtype.itemsize or cd[3] != chunk_bytes \
                    or (spec["opts"] and cd[4:7] != spec["opts"][4:7]):
                print("blosc cd_values %s (type size %d, chunk %d bytes)" % (cd, data.dtype.itemsize, chunk_bytes))
                return 1
            if len(raw) >= chunk_bytes and not spec.get("noise"):
                print("chunk %s not compressed (%d bytes)" % (offset, len(raw)))
                return 1
    print("ok")
    return 0


def batch(jobs_path):
    """Runs in a child process: the writes or reads listed in jobs_path
    (a JSON list of [op, path, spec]), one after the other; prints one
    "@@result {ok, why}" line for each as soon as it is done."""
    with open(jobs_path) as f:
        jobs = json.load(f)
    for op, path, spec in jobs:
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                rc = worker([op, path, json.dumps(spec)])
        except Exception as e:  # noqa: BLE001 - the job's failure, then the next job
            rc = 1
            buf.write("%s: %s\n" % (type(e).__name__, e))
        out = buf.getvalue().strip().splitlines()
        print("@@result " + json.dumps({"ok": rc == 0, "why": out[-1] if out else "exit %d" % rc}),
              flush=True)
    return 0


def main(argv):
    blosc_dir, lz4_dir = argv[0], argv[1]
    h5dump = argv[2] if len(argv) > 2 else None
    results = []

    def find_debian(name):
        hits = sorted(glob.glob("/usr/lib/*/hdf5/serial/plugins/" + name))
        return hits[0] if hits else None

    debian_lz4 = find_debian("libh5lz4.so")
    debian_blosc = find_debian("libH5Zblosc.so")

    with tempfile.TemporaryDirectory() as tmp:
        dirs = {"ncz-lz4": lz4_dir, "ncz-blosc": blosc_dir}
        for key, lib in (("debian-lz4", debian_lz4), ("debian-blosc", debian_blosc)):
            if lib:
                # a directory holding only that plugin
                d = os.path.join(tmp, key)
                os.mkdir(d)
                os.symlink(lib, os.path.join(d, os.path.basename(lib)))
                dirs[key] = d

        def run_batch(op, plugin, jobs):
            """The writes or reads (op) of jobs [(path, spec)] in one process
            with plugin's directory; a (ok, why) for each."""
            jobs_path = os.path.join(tmp, "%s-%s.json" % (op, plugin))
            with open(jobs_path, "w") as f:
                json.dump([[op, path, spec] for path, spec in jobs], f)
            env = dict(os.environ, HDF5_PLUGIN_PATH=dirs[plugin])
            try:
                p = subprocess.run([sys.executable, __file__, "--batch", jobs_path],
                                   env=env, capture_output=True, text=True,
                                   timeout=120 * len(jobs))
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = "timeout", e.stdout or "", "killed after %d s" % (120 * len(jobs))
                out = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
            got = [json.loads(line[len("@@result "):]) for line in out.splitlines()
                   if line.startswith("@@result ")]
            lines = (out + err).strip().splitlines()
            ended = "the %s process ended (exit %s) before this one: %s" % (
                plugin, rc, lines[-1] if lines else "no output")
            return [(g["ok"], g["why"]) for g in got] + [(False, ended)] * (len(jobs) - len(got))

        # [result index, op, plugin, path, spec, index of the write, label]
        # of every write and read, run once all cases are known
        pending = []

        def case(name, writer, readers, spec):
            if writer not in dirs or any(r not in dirs for r in readers):
                results.append((None, "%s # SKIP Debian plugin not installed" % name))
                return None
            path = os.path.join(tmp, name.replace(" ", "_").replace("/", "_") + ".h5")
            w = len(results)
            results.append(None)
            pending.append((w, "write", writer, path, spec, None, "%s: written by %s" % (name, writer)))
            for r in readers:
                results.append(None)
                pending.append((len(results) - 1, "read", r, path, spec, w,
                                "%s: read by %s" % (name, r)))
            return path

        shapes = [
            dict(dtype="<f4", shape=[230, 310], chunks=[50, 100]),
            dict(dtype="<f8", shape=[64, 64], chunks=[64, 64]),
            dict(dtype="<i2", shape=[10000], chunks=[3000]),
            dict(dtype="|u1", shape=[40, 50], chunks=[40, 50]),
        ]
        ncz_files = []
        for i, s in enumerate(shapes):
            for opts in (None, [4096]):
                spec = dict(s, filter=32004, opts=opts, seed=i)
                p = case("lz4 %s opts %s" % (s["dtype"], opts), "ncz-lz4", ["ncz-lz4", "debian-lz4"], spec)
                if p and i == 0:
                    ncz_files.append((p, "lz4"))
                case("lz4 %s opts %s from Debian" % (s["dtype"], opts), "debian-lz4", ["ncz-lz4"], spec)

        # incompressible: blocks stored as they are, in several blocks or one
        for opts in (None, [1000]):
            spec = dict(dtype="<u4", shape=[3000], chunks=[1500], filter=32004, opts=opts, seed=7, noise=True)
            case("lz4 noise opts %s" % opts, "ncz-lz4", ["ncz-lz4", "debian-lz4"], spec)
            case("lz4 noise opts %s from Debian" % opts, "debian-lz4", ["ncz-lz4"], spec)

        blosc_opts = [[0, 0, 0, 0, 5, 1, 1], [0, 0, 0, 0, 9, 2, 5], [0, 0, 0, 0, 1, 0, 4],
                      [0, 0, 0, 0, 3, 1, 0], [0, 0, 0, 0, 7, 1, 2]]
        for i, s in enumerate(shapes):
            for j, opts in enumerate(blosc_opts):
                if (i + j) % 2 and j != 0:
                    continue
                spec = dict(s, filter=32001, opts=opts, seed=10 + i)
                p = case("blosc %s opts %s" % (s["dtype"], opts), "ncz-blosc", ["ncz-blosc", "debian-blosc"], spec)
                if p and i == 0 and j == 0:
                    ncz_files.append((p, "blosc"))
                case("blosc %s opts %s from Debian" % (s["dtype"], opts), "debian-blosc", ["ncz-blosc"], spec)
            # Debian's filter with no options: its set_local fills in 4 values
            case("blosc %s no opts from Debian" % s["dtype"], "debian-blosc", ["ncz-blosc"],
                 dict(s, filter=32001, opts=None, seed=20 + i))
            # Ncz's with no options: its set_local fills them in the same way
            case("blosc %s no opts" % s["dtype"], "ncz-blosc", ["ncz-blosc", "debian-blosc"],
                 dict(s, filter=32001, opts=None, seed=30 + i))

        # every write, then every read, a process per plugin directory
        outcome = {}
        for op in ("write", "read"):
            by_plugin = {}
            for job in pending:
                if job[1] == op:
                    by_plugin.setdefault(job[2], []).append(job)
            for plugin, jobs in sorted(by_plugin.items()):
                for job, res in zip(jobs, run_batch(op, plugin, [(j[3], j[4]) for j in jobs])):
                    outcome[job[0]] = res
        for index, op, plugin, path, spec, w, label in pending:
            ok, why = outcome[index]
            # a read of a file whose write failed fails too
            results[index] = ((ok and outcome[w][0]) if op == "read" else ok,
                              "%s (%s)" % (label, why))

        if h5dump and os.path.exists(h5dump):
            for path, kind in ncz_files:
                env = dict(os.environ, HDF5_PLUGIN_PATH=dirs["ncz-" + kind])
                p = subprocess.run([h5dump, "-d", "/x", "-s", "0,0", "-c", "2,3", path],
                                   env=env, capture_output=True, text=True, timeout=60)
                ok = p.returncode == 0 and "DATA" in p.stdout and "error" not in p.stderr.lower()
                if ok:
                    first = float(p.stdout.split("(0,0):")[1].split(",")[0])
                    ok = abs(first - float(make_data("<f4", (230, 310), 0)[0, 0])) < 1e-3
                results.append((ok, "h5dump reads Ncz's %s file %s" % (kind, os.path.basename(path))))
        else:
            results.append((None, "h5dump # SKIP h5dump not installed"))

    print("1..%d" % len(results))
    for i, (ok, what) in enumerate(results, 1):
        if ok is None:
            print("ok %d - %s" % (i, what))
        else:
            print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    return 0 if all(ok is not False for ok, _ in results) else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(worker(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "--batch":
        sys.exit(batch(sys.argv[2]))
    sys.exit(main(sys.argv[1:]))
