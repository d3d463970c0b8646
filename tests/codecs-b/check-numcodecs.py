#!/usr/bin/python3
# check-numcodecs.py TOOL: Ncz's blosc and lz4 codecs against numcodecs.
#
# For every blosc compressor numcodecs has (with each shuffle mode, item
# sizes 1/2/4/8, several levels and block sizes) and for lz4 (several
# accelerations): numcodecs' bytes decode with Ncz, Ncz's bytes decode
# with numcodecs, and both write the same bytes. Also a chunk zarr-python
# writes with its default compressor. TAP output; exit 77 without numpy,
# numcodecs or zarr.
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import numcodecs
    from numcodecs import Blosc, LZ4
    from numcodecs import blosc as numcodecs_blosc
    import zarr
except ImportError as e:
    print("1..0 # SKIP %s" % e)
    sys.exit(77)

tool = sys.argv[1]
results = []


def report(ok, what):
    results.append((ok, what))


def make_data(dtype, n, seed):
    rng = np.random.default_rng(seed)
    x = np.arange(n, dtype="f8")
    smooth = 1000.0 + 400.0 * np.sin(x / 40.0) + rng.normal(0, 2, n)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return smooth.astype(dt)
    if dt.itemsize == 1:
        return (smooth % 256).astype(dt)
    return smooth.astype(dt)


def single_threaded_encode(codec, data):
    # numcodecs' Blosc on several threads places blocks in the order the
    # threads finish them: valid but not reproducible bytes. Its
    # single-threaded path (blosc_compress_ctx, as Ncz) is.
    saved = numcodecs_blosc.use_threads
    numcodecs_blosc.use_threads = False
    try:
        return codec.encode(data)
    finally:
        numcodecs_blosc.use_threads = saved


def main():
    cases = []
    cnames = numcodecs_blosc.list_compressors()
    shuffles = [Blosc.AUTOSHUFFLE, Blosc.NOSHUFFLE, Blosc.SHUFFLE, Blosc.BITSHUFFLE]
    dtypes = ["u1", "<i2", "<f4", "<f8"]
    k = 0
    for cname in cnames:
        for shuffle in shuffles:
            for dtype in dtypes:
                clevel = [1, 5, 9, 3][k % 4]
                blocksize = [0, 0, 4096, 0, 65536][k % 5]
                codec = Blosc(cname=cname, clevel=clevel, shuffle=shuffle, blocksize=blocksize)
                n = 20000 + 37 * k
                cases.append((codec, make_data(dtype, n, k)))
                k += 1
    for accel in [1, 4, 30]:
        for dtype in dtypes:
            cases.append((LZ4(acceleration=accel), make_data(dtype, 15000 + 11 * k, k)))
            k += 1
    # tiny and incompressible buffers
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 2**32, 5000, dtype="<u4")
    cases.append((Blosc(cname="zstd", clevel=5, shuffle=Blosc.SHUFFLE), noise))
    cases.append((LZ4(), noise))
    cases.append((Blosc(), np.array([7], dtype="<i4")))
    cases.append((LZ4(), np.array([7], dtype="<i4")))

    with tempfile.TemporaryDirectory() as tmp:
        batch = []
        for i, (codec, data) in enumerate(cases):
            conf = json.dumps(codec.get_config())
            raw = os.path.join(tmp, "%d.raw" % i)
            with open(raw, "wb") as f:
                f.write(data.tobytes())
            with open(os.path.join(tmp, "%d.py" % i), "wb") as f:
                f.write(codec.encode(data))
            batch.append("\t".join(["decode", conf, str(data.dtype.itemsize), str(data.size),
                                    os.path.join(tmp, "%d.py" % i), os.path.join(tmp, "%d.py.dec" % i)]))
            batch.append("\t".join(["encode", conf, str(data.dtype.itemsize), str(data.size),
                                    raw, os.path.join(tmp, "%d.ncz" % i)]))

        # a chunk as zarr-python writes it with its default compressor
        store = os.path.join(tmp, "z.zarr")
        arr = zarr.open_array(store, mode="w", shape=(100, 80), chunks=(50, 40), dtype="<f8")
        full = make_data("<f8", 8000, 99).reshape(100, 80)
        arr[:] = full
        zconf = json.load(open(os.path.join(store, ".zarray")))["compressor"]
        batch.append("\t".join(["decode", json.dumps(zconf), "8", "2000",
                                os.path.join(store, "1.1"), os.path.join(tmp, "zarr.dec")]))

        with open(os.path.join(tmp, "batch"), "w") as f:
            f.write("\n".join(batch) + "\n")
        run = subprocess.run([tool, os.path.join(tmp, "batch")], capture_output=True, text=True)
        report(run.returncode == 0, "codecs-b-tool ran every line (%s)" % run.stdout.strip().replace("\n", "; "))

        for i, (codec, data) in enumerate(cases):
            conf = codec.get_config()
            name = json.dumps(conf) + " " + str(data.dtype)
            try:
                dec = open(os.path.join(tmp, "%d.py.dec" % i), "rb").read()
                report(dec == data.tobytes(), "Ncz decodes numcodecs' %s" % name)
            except OSError as e:
                report(False, "Ncz decodes numcodecs' %s: %s" % (name, e))
            try:
                ours = open(os.path.join(tmp, "%d.ncz" % i), "rb").read()
                back = np.frombuffer(codec.decode(ours), dtype=data.dtype)
                report(np.array_equal(back, data), "numcodecs decodes Ncz's %s" % name)
                report(ours == single_threaded_encode(codec, data),
                       "Ncz writes numcodecs' bytes for %s" % name)
            except Exception as e:  # noqa: BLE001 - any failure is a test failure
                report(False, "numcodecs decodes Ncz's %s: %s" % (name, e))

        report(zconf == {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
               "zarr-python's default compressor is %s" % json.dumps(zconf))
        try:
            dec = open(os.path.join(tmp, "zarr.dec"), "rb").read()
            report(dec == np.ascontiguousarray(full[50:100, 40:80]).tobytes(),
                   "Ncz decodes zarr-python's default-compressor chunk")
        except OSError as e:
            report(False, "Ncz decodes zarr-python's default-compressor chunk: %s" % e)

    print("1..%d" % len(results))
    for i, (ok, what) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    return 0 if all(ok for ok, _ in results) else 1


sys.exit(main())
