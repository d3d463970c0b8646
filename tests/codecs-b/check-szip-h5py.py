#!/usr/bin/python3
# check-szip-h5py.py TOOL: Ncz's szip codec against HDF5's own szip filter
# (libhdf5 with libaec, through h5py).
#
# For datasets h5py writes with compression="szip": the working
# parameters Ncz derives for the chunk shape and type equal the cd_values
# HDF5 stored; every chunk HDF5 wrote (read raw) decodes with Ncz given
# those cd_values; chunks Ncz encodes, written raw into a dataset with
# the same filter, read back through HDF5 equal. TAP output; exit 77
# without h5py, numpy or HDF5's szip encoder.
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import h5py
    from h5py import h5z
except ImportError as e:
    print("1..0 # SKIP %s" % e)
    sys.exit(77)

if not h5z.filter_avail(h5z.FILTER_SZIP):
    print("1..0 # SKIP this HDF5 has no szip filter")
    sys.exit(77)
if not (h5z.get_filter_info(h5z.FILTER_SZIP) & h5z.FILTER_CONFIG_ENCODE_ENABLED):
    print("1..0 # SKIP this HDF5's szip filter cannot encode")
    sys.exit(77)

tool = sys.argv[1]
MASKS = {"nn": 32, "ec": 4}


def make_data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    x = np.arange(n, dtype="f8")
    v = np.round(100.0 + 90.0 * np.sin(x / 300.0)) + rng.integers(0, 3, n)
    return v.astype(dtype).reshape(shape)


def chunk_offsets(shape, chunks):
    for idx in np.ndindex(*[-(-s // c) for s, c in zip(shape, chunks)]):
        yield tuple(i * c for i, c in zip(idx, chunks))


def chunk_of(data, offset, chunks):
    """The chunk as HDF5 stores it: full size, fill value 0 beyond the data."""
    out = np.zeros(chunks, dtype=data.dtype)
    sl = tuple(slice(o, min(o + c, s)) for o, c, s in zip(offset, chunks, data.shape))
    part = data[sl]
    out[tuple(slice(0, n) for n in part.shape)] = part
    return out


def main():
    cases = [
        dict(dtype="<i4", shape=[200, 300], chunks=[50, 100], szip=("nn", 16)),
        dict(dtype="<f4", shape=[230, 310], chunks=[50, 100], szip=("nn", 32)),
        dict(dtype="<f8", shape=[5000], chunks=[5000], szip=("ec", 8)),
        dict(dtype="<u2", shape=[40, 30, 20], chunks=[10, 10, 10], szip=("nn", 8)),
        dict(dtype="<i2", shape=[100, 4], chunks=[100, 4], szip=("ec", 32)),
        dict(dtype="|u1", shape=[10000], chunks=[6000], szip=("nn", 32)),
        dict(dtype="<u8", shape=[3, 9000], chunks=[3, 9000], szip=("nn", 16)),
        dict(dtype=">i4", shape=[64, 64], chunks=[32, 64], szip=("nn", 16)),
        dict(dtype=">f8", shape=[1000], chunks=[700], szip=("ec", 16)),
    ]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        batch = []
        plans = []
        for i, c in enumerate(cases):
            data = make_data(c["dtype"], tuple(c["shape"]), i)
            path = os.path.join(tmp, "hdf5-%d.h5" % i)
            with h5py.File(path, "w") as f:
                f.create_dataset("x", data=data, chunks=tuple(c["chunks"]),
                                 compression="szip", compression_opts=c["szip"])
            with h5py.File(path, "r") as f:
                d = f["x"]
                flags, values, name = d.id.get_create_plist().get_filter_by_id(h5z.FILTER_SZIP)
                raws = []
                for off in chunk_offsets(c["shape"], c["chunks"]):
                    mask, raw = d.id.read_direct_chunk(off)
                    raws.append((off, mask, raw))
            esize = np.dtype(c["dtype"]).itemsize
            shape_text = "x".join(str(n) for n in c["chunks"])
            conf = json.dumps({"id": "szip", "mask": MASKS[c["szip"][0]], "pixels-per-block": c["szip"][1]})
            working = "szip:" + ",".join(str(v) for v in values)
            batch.append("\t".join(["modify", conf, str(esize), shape_text, "-", os.path.join(tmp, "%d.working" % i)]))
            chunk_files = []
            for k, (off, mask, raw) in enumerate(raws):
                hdf5_chunk = os.path.join(tmp, "%d-%d.hdf5" % (i, k))
                plain = os.path.join(tmp, "%d-%d.raw" % (i, k))
                with open(hdf5_chunk, "wb") as f:
                    f.write(raw)
                with open(plain, "wb") as f:
                    f.write(chunk_of(data, off, c["chunks"]).tobytes())
                batch.append("\t".join(["decode-working", working, str(esize), shape_text,
                                        hdf5_chunk, hdf5_chunk + ".dec"]))
                batch.append("\t".join(["encode-working", working, str(esize), shape_text,
                                        plain, plain + ".ncz"]))
                chunk_files.append((off, mask, plain, hdf5_chunk))
            plans.append((i, c, data, list(values), chunk_files))

        with open(os.path.join(tmp, "batch"), "w") as f:
            f.write("\n".join(batch) + "\n")
        run = subprocess.run([tool, os.path.join(tmp, "batch")], capture_output=True, text=True)
        results.append((run.returncode == 0, "codecs-b-tool ran every line (%s)" % run.stdout.strip().replace("\n", "; ")))

        for i, c, data, values, chunk_files in plans:
            name = "%s %s chunks %s szip %s" % (c["dtype"], c["shape"], c["chunks"], c["szip"])
            # Ncz's working parameters are HDF5's (little-endian cases:
            # the tool's variables are stored little endian)
            if c["dtype"][0] != ">":
                try:
                    ours = [int(v) for v in open(os.path.join(tmp, "%d.working" % i)).read().split(",")]
                except (OSError, ValueError) as e:
                    ours = str(e)
                results.append((ours == values, "%s: Ncz's working parameters %s = HDF5's %s" % (name, ours, values)))
            ok_dec = True
            for off, mask, plain, hdf5_chunk in chunk_files:
                expected = open(plain, "rb").read()
                try:
                    ok_dec = ok_dec and mask == 0 and open(hdf5_chunk + ".dec", "rb").read() == expected
                except OSError:
                    ok_dec = False
            results.append((ok_dec, "%s: Ncz decodes HDF5's %d chunks" % (name, len(chunk_files))))

            # Ncz's chunks written raw into a dataset with the same filter
            path = os.path.join(tmp, "ncz-%d.h5" % i)
            try:
                with h5py.File(path, "w") as f:
                    d = f.create_dataset("x", shape=data.shape, dtype=data.dtype, chunks=tuple(c["chunks"]),
                                         compression="szip", compression_opts=c["szip"])
                    for off, mask, plain, hdf5_chunk in chunk_files:
                        d.id.write_direct_chunk(off, open(plain + ".ncz", "rb").read(), 0)
                with h5py.File(path, "r") as f:
                    back = f["x"][...]
                results.append((np.array_equal(back, data), "%s: HDF5 reads Ncz's chunks" % name))
            except Exception as e:  # noqa: BLE001 - any failure is a test failure
                results.append((False, "%s: HDF5 reads Ncz's chunks: %s" % (name, e)))

    print("1..%d" % len(results))
    for n, (ok, what) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
    return 0 if all(ok for ok, _ in results) else 1


sys.exit(main())
