#!/usr/bin/python3
"""Ncz's codec modules as HDF5 filter plugins (TAP).

  test-hdf5-plugins.py H5DUMP PLUGINS_BUILD_DIR

HDF5_PLUGIN_PATH points at the zstd and bzip2 module build directories:
h5py writes datasets with filters 32015 and 307 through them and reads
them back, h5dump (HDF5's own tool) prints their data, and the chunks
are plain zstd frames / bzip2 streams. The shuffle and fletcher32
modules' HDF5 filter functions, called through ctypes, produce the same
bytes as HDF5's built-in shuffle and fletcher32 filters.
Skipped (TAP "1..0 # SKIP") only when h5py or numpy is missing.
"""
import bz2
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import traceback

try:
    import numpy as np
    import h5py
except ImportError:
    print('1..0 # SKIP h5py is not installed')
    sys.exit(0)

H5DUMP = sys.argv[1] if len(sys.argv) > 1 else ''
PLUGINS = sys.argv[2] if len(sys.argv) > 2 else ''
WORK = tempfile.mkdtemp(prefix='ncz-h5-')
FLAG_REVERSE = 0x0100

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def sample(shape, dtype):
    n = int(np.prod(shape))
    values = (np.arange(n) * 37 % 1001) - 300
    return values.reshape(shape).astype(dtype)


def write(name, data, **kwargs):
    path = os.path.join(WORK, name + '.h5')
    with h5py.File(path, 'w') as f:
        f.create_dataset('data', data=data, **kwargs)
    return path


def filter_ids(path):
    with h5py.File(path, 'r') as f:
        plist = f['data'].id.get_create_plist()
        return [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]


def raw_chunk(path, offset):
    with h5py.File(path, 'r') as f:
        mask, chunk = f['data'].id.read_direct_chunk(offset)
        return mask, bytes(chunk)


def h5dump_values(path, env):
    proc = subprocess.run([H5DUMP, '-d', '/data', path], env=env,
                          capture_output=True, text=True, timeout=120)
    text = proc.stdout
    if 'DATA {' not in text:
        return proc.returncode, None, proc.stdout + proc.stderr
    body = text.split('DATA {', 1)[1].rsplit('}', 2)[0]
    body = re.sub(r'\(\s*\d+(\s*,\s*\d+)*\s*\):', ' ', body)
    return proc.returncode, [int(v) for v in re.findall(r'-?\d+', body)], proc.stdout + proc.stderr


# ---- h5py through the zstd and bzip2 modules ----

@test
def zstd_round_trip():
    data = sample((120, 50), '<i4')
    path = write('zstd', data, chunks=(30, 50), compression=32015, compression_opts=(5,))
    assert filter_ids(path) == [32015], filter_ids(path)
    with h5py.File(path, 'r') as f:
        assert np.array_equal(f['data'][...], data)
    mask, chunk = raw_chunk(path, (0, 0))
    assert mask == 0
    import numcodecs
    assert numcodecs.Zstd().decode(chunk) == data[:30].tobytes()
    assert len(chunk) < data[:30].nbytes


@test
def zstd_negative_level():
    data = sample((1000,), '<f8')
    path = write('zstd-neg', data, chunks=(250,), compression=32015,
                 compression_opts=((-5) & 0xffffffff,))
    with h5py.File(path, 'r') as f:
        assert np.array_equal(f['data'][...], data)


@test
def bzip2_round_trip():
    data = sample((64, 64), '<i2')
    path = write('bzip2', data, chunks=(16, 64), compression=307, compression_opts=(9,))
    assert filter_ids(path) == [307], filter_ids(path)
    with h5py.File(path, 'r') as f:
        assert np.array_equal(f['data'][...], data)
    mask, chunk = raw_chunk(path, (16, 0))
    assert chunk[:3] == b'BZh', chunk[:4]
    assert bz2.decompress(chunk) == data[16:32].tobytes()


@test
def shuffle_then_zstd_chain():
    data = sample((200, 10), '<i4')
    path = write('chain', data, chunks=(50, 10), shuffle=True, compression=32015,
                 compression_opts=(3,))
    assert filter_ids(path) == [2, 32015], filter_ids(path)
    with h5py.File(path, 'r') as f:
        assert np.array_equal(f['data'][...], data)


def h5dump_check(name, compression, opts, dtype, comment):
    if not H5DUMP:
        return 'h5dump is not installed'
    data = sample((12, 7), dtype)
    path = write(name, data, chunks=(4, 7), compression=compression, compression_opts=opts)
    code, values, out = h5dump_values(path, dict(os.environ))
    assert code == 0 and values is not None, out
    assert values == [int(v) for v in data.flatten()], out
    # the filter pipeline names the filter class that wrote it: Ncz's
    header = subprocess.run([H5DUMP, '-p', '-H', '-d', '/data', path], capture_output=True,
                            text=True, timeout=120).stdout
    assert 'FILTER_ID %d' % compression in header, header
    assert 'COMMENT %s' % comment in header, header
    assert 'PARAMS { %s }' % ' '.join(str(o) for o in opts) in header, header
    # without the plugin path HDF5 cannot read it: the data came from Ncz
    empty = tempfile.mkdtemp(dir=WORK)
    code, values, out = h5dump_values(path, dict(os.environ, HDF5_PLUGIN_PATH=empty))
    assert code != 0 or values != [int(v) for v in data.flatten()], out
    return None


@test
def h5dump_zstd():
    return h5dump_check('dump-zstd', 32015, (7,), '<i4', 'zstd (Ncz)')


@test
def h5dump_bzip2():
    return h5dump_check('dump-bzip2', 307, (3,), '<i2', 'bzip2 (Ncz)')


@test
def netcdf_c_nc4_zstd():
    """netcdf-c writes and reads a netCDF-4 file through the zstd module
    (as an HDF5 filter plugin: the NCZarr Codec path of Debian's 4.9.0
    has no plugin support)."""
    import shutil
    ncgen, ncdump = shutil.which('ncgen'), shutil.which('ncdump')
    if not ncgen or not ncdump:
        return 'ncgen/ncdump are not installed'
    cdl = os.path.join(WORK, 'nc4.cdl')
    nc = os.path.join(WORK, 'nc4.nc')
    with open(cdl, 'w') as f:
        f.write('netcdf nc4 {\ndimensions:\n  x = 30 ;\nvariables:\n  int v(x) ;\n'
                '    v:_Filter = "32015,4" ;\n    v:_ChunkSizes = 10 ;\n'
                'data:\n  v = %s ;\n}\n' % ', '.join(str(i * i - 50) for i in range(30)))
    proc = subprocess.run([ncgen, '-k', 'nc4', '-o', nc, cdl], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([ncdump, '-s', nc], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert 'v:_Filter = "32015,4"' in out.stdout, out.stdout
    values = out.stdout.split(' v = ', 1)[1].split(';', 1)[0]
    assert [int(v) for v in values.split(',')] == [i * i - 50 for i in range(30)], values
    if H5DUMP:
        header = subprocess.run([H5DUMP, '-p', '-H', '-d', '/v', nc], capture_output=True,
                                text=True).stdout
        assert 'COMMENT zstd (Ncz)' in header, header


# ---- the modules' filter functions against HDF5's built-in filters ----

FILTER_FUNC = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_uint, ctypes.c_size_t,
                               ctypes.POINTER(ctypes.c_uint), ctypes.c_size_t,
                               ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p))


class H5ZClass2(ctypes.Structure):
    _fields_ = [('version', ctypes.c_int), ('id', ctypes.c_int),
                ('encoder_present', ctypes.c_uint), ('decoder_present', ctypes.c_uint),
                ('name', ctypes.c_char_p), ('can_apply', ctypes.c_void_p),
                ('set_local', ctypes.c_void_p), ('filter', FILTER_FUNC)]


LIBC = ctypes.CDLL(None)
LIBC.malloc.restype = ctypes.c_void_p
LIBC.malloc.argtypes = [ctypes.c_size_t]
LIBC.free.argtypes = [ctypes.c_void_p]


def module_filter(name):
    lib = ctypes.CDLL(os.path.join(PLUGINS, name, 'libncz-codec-%s.so' % name))
    lib.H5PLget_plugin_info.restype = ctypes.POINTER(H5ZClass2)
    cls = lib.H5PLget_plugin_info().contents
    assert cls.version == 1
    return lib, cls.filter


def run(filter_func, flags, cd, data):
    buf = LIBC.malloc(max(len(data), 1))
    ctypes.memmove(buf, data, len(data))
    size = ctypes.c_size_t(len(data))
    bufp = ctypes.c_void_p(buf)
    cd_array = (ctypes.c_uint * max(len(cd), 1))(*cd)
    n = filter_func(flags, len(cd), cd_array, len(data), ctypes.byref(size), ctypes.byref(bufp))
    out = ctypes.string_at(bufp.value, n) if n else None
    LIBC.free(bufp.value)
    return out


@test
def builtin_shuffle_fletcher32_layout():
    _keep1, shuffle = module_filter('shuffle')
    _keep2, fletcher = module_filter('fletcher32')
    for dtype, chunk in (('<i4', (40, 25)), ('<f8', (33, 7)), ('<i2', (101,)), ('u1', (1001,))):
        data = sample(chunk, dtype)
        path = write('layout', data, chunks=chunk, shuffle=True, fletcher32=True)
        ids = filter_ids(path)
        assert sorted(ids) == [2, 3], ids
        mask, raw = raw_chunk(path, (0,) * len(chunk))
        size = np.dtype(dtype).itemsize
        encoded = data.tobytes()
        for fid in ids:
            encoded = run(shuffle, 0, [size], encoded) if fid == 2 else run(fletcher, 0, [], encoded)
        assert encoded == raw, (dtype, len(encoded), len(raw))
        decoded = raw
        for fid in reversed(ids):
            decoded = (run(shuffle, FLAG_REVERSE, [size], decoded) if fid == 2
                       else run(fletcher, FLAG_REVERSE, [], decoded))
        assert decoded == data.tobytes()
        corrupt = bytearray(raw)
        corrupt[5] ^= 0x40
        assert run(fletcher, FLAG_REVERSE, [], bytes(corrupt)) is None


def main():
    print('1..%d' % len(TESTS))
    failed = 0
    for number, fn in enumerate(TESTS, 1):
        try:
            skip = fn()
        except Exception:  # noqa: BLE001 - every failure is reported in TAP
            failed += 1
            print('not ok %d - %s' % (number, fn.__name__))
            for line in traceback.format_exc().splitlines():
                print('# ' + line)
            continue
        if skip:
            print('ok %d - %s # SKIP %s' % (number, fn.__name__, skip))
        else:
            print('ok %d - %s' % (number, fn.__name__))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
