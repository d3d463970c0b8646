#!/usr/bin/python3
"""numcodecs and zarr-python side of the tests of Ncz's numcodecs codecs.

  numcodecs-c-helper.py encode DIR      per case: DIR/<case>.json (the
        codec config), .raw (the data), .enc (numcodecs' encoding of the
        data) and .dec (numcodecs' decoding of .enc)
  numcodecs-c-helper.py check DIR       numcodecs decodes every
        DIR/<case>.ncz (Ncz's encoding of .raw) and compares with .dec;
        prints one line per mismatch
  numcodecs-c-helper.py write-zarr DIR  zarr-python writes DIR/py.zarr
        (arrays with numcodecs filters) and, per array, DIR/<name>.expect
        (its values, native byte order)
  numcodecs-c-helper.py read-zarr DIR   zarr-python reads DIR/ncz.zarr,
        written by Ncz, and compares each array with DIR/<name>.expect;
        DIR/<name>.codecs lists the codec ids its metadata must have

Exit status 77 when numcodecs or zarr is missing, 1 on any mismatch.
"""
import json
import os
import sys

try:
    import numpy as np
    import numcodecs
except ImportError:
    sys.exit(77)

INT_TYPES = ['i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8']
FLOAT_TYPES = ['f4', 'f8']


def typed(kind, order):
    return ('|' if kind[1] == '1' else order) + kind


def sample(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        a = np.cumsum(rng.normal(size=n) * 100).astype(dt)
        specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30 if dt.itemsize == 4 else 1e300]
        for k, v in enumerate(specials):
            if n > 20 + 3 * k:
                a[10 + 3 * k] = v
        return a
    info = np.iinfo(dt)
    # a walk (small differences) with a few jumps across the whole range
    walk = np.cumsum(rng.integers(-3, 4, size=n)).astype(np.int64) + int(info.min // 2 + info.max // 2)
    a = walk.astype(dt)
    for k in range(0, n, 97):
        a[k] = rng.integers(info.min, info.max, dtype=dt.type, endpoint=True)
    return a


def codec_cases():
    rng = np.random.default_rng(2024)
    cases = []
    blobs = {
        'empty': b'',
        'one': b'\x07',
        'seven': bytes(range(7)),
        'ints': (np.arange(12345, dtype='<i4') * 7 - 4000).tobytes(),
        'noisy': rng.integers(0, 256, 30001, dtype=np.uint8).tobytes(),
    }
    for level in (1, 5, 9, 0, -1):
        for name, blob in blobs.items():
            cases.append(('gzip%d-%s' % (level, name), numcodecs.GZip(level=level), blob))
    for name, blob in blobs.items():
        cases.append(('crc32-%s' % name, numcodecs.CRC32(), blob))
        cases.append(('adler32-%s' % name, numcodecs.Adler32(), blob))
    for kind in INT_TYPES + FLOAT_TYPES:
        for order in ('<', '>'):
            if kind[1] == '1' and order == '>':
                continue
            dt = typed(kind, order)
            for n in (1, 7, 1001):
                data = sample(dt, n, rng)
                cases.append(('delta-%s-%d' % (dt[1:] + ('be' if order == '>' else ''), n),
                              numcodecs.Delta(dtype=dt), data.tobytes()))
    narrow = [('<i2', '|i1'), ('|u1', '<i2'), ('<i8', '<i4'), ('<u4', '<u2'),
              ('<i4', '>i4'), ('<f8', '<f4'), ('<f4', '<f8'), ('>f8', '<f4')]
    for dt, at in narrow:
        small = np.dtype(at) if np.dtype(at).itemsize < np.dtype(dt).itemsize else np.dtype(dt)
        if small.kind == 'f':
            data = sample(dt, 501, rng)
        else:
            data = sample(small.str, 501, rng).astype(dt)
        cases.append(('delta-%s-as-%s' % (dt[1:] + ('be' if dt[0] == '>' else ''),
                                          at[1:] + ('be' if at[0] == '>' else '')),
                      numcodecs.Delta(dtype=dt, astype=at), data.tobytes()))
    cases += fixedscaleoffset_cases(rng)
    cases += bitround_cases(rng)
    cases += quantize_cases(rng)
    cases += astype_cases(rng)
    for n in (0, 1, 7, 8, 9, 15, 16, 17, 1001):
        bits = rng.integers(0, 2, size=n, dtype=np.uint8)
        cases.append(('packbits-%d' % n, numcodecs.PackBits(), bits.tobytes()))
        # numpy takes any nonzero byte for true
        cases.append(('packbits-any-%d' % n, numcodecs.PackBits(),
                      rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()))
    cases.append(('packbits-ones-13', numcodecs.PackBits(), b'\x01' * 13))
    return cases


def astype_cases(rng):
    cases = []
    types = ['|i1', '|u1', '<i2', '>i2', '<u2', '>u2', '<i4', '>i4', '<u4', '>u4', '<i8', '>i8',
             '<u8', '>u8', '<f4', '>f4', '<f8', '>f8']
    for dec in types:
        for enc in types:
            d, e = np.dtype(dec), np.dtype(enc)
            for n in ((0, 1, 7, 300) if dec in ('<i8', '<f8', '|u1') else (300,)):
                if d.kind == 'f' and e.kind == 'f':
                    data = (rng.normal(size=n) * 10.0 ** rng.integers(-40, 41, size=n)).astype(dec)
                    if n > 16:
                        data[:16] = float_specials(dec)
                elif d.kind == 'f':
                    # values the integer type holds, fractions truncated
                    info = np.iinfo(e)
                    lo, hi = float(info.min), float(info.max)
                    # float32 cannot hold int64's and uint64's extremes
                    if d.itemsize == 4 or e.itemsize == 8:
                        lo, hi = lo / 2, hi / 2
                    data = rng.uniform(lo, hi, size=n)
                    data[:min(n, 6)] = [lo, hi, -0.9 if lo < 0 else 0.9, 0.99, -0.0, 0.5][:min(n, 6)]
                    data = data.astype(dec)
                else:
                    info = np.iinfo(d)
                    lo, hi = info.min, info.max
                    if e.kind == 'f' and d.itemsize >= e.itemsize:
                        # rounded to the float, read back into the integer type
                        lo, hi = lo // 2, hi // 2
                    data = rng.integers(lo, hi, size=n, dtype=d.newbyteorder('=').type,
                                        endpoint=True).astype(dec)
                    data[:min(n, 2)] = [lo, hi][:min(n, 2)]
                    if e.kind == 'f' and n > 10:
                        # ties between float32 and float64 neighbours
                        data[2:10] = [x for x in (2 ** 24 + 1, 2 ** 24 + 3, 2 ** 53 + 1,
                                                  2 ** 53 + 3, 2 ** 25 + 3, 16777217 * 4 + 1, 7, 9)]\
                            if d.itemsize == 8 else data[2:10]
                cases.append(('astype-%s-as-%s-%d' % (tag(dec), tag(enc), n),
                              numcodecs.AsType(encode_dtype=enc, decode_dtype=dec),
                              data.tobytes()))
    return cases


def quantize_cases(rng):
    cases = []
    floats = ['<f4', '>f4', '<f8', '>f8']

    def data_for(dt, n):
        data = (rng.normal(size=n) * 10.0 ** rng.integers(-4, 5, size=n)).astype(dt)
        if n > 16:
            data[:16] = float_specials(dt)
            data[16:24] = np.array([0.5, 1.5, 2.5, -2.5, 0.125, 1e-40, 3e38, -7.0], dtype=dt)
        return data

    # every pair of types
    for dt in floats:
        for at in floats:
            for digits in (1, 3):
                for n in (0, 1, 7, 1001):
                    cases.append(('quantize-%s-as-%s-d%d-%d' % (tag(dt), tag(at), digits, n),
                                  numcodecs.Quantize(digits=digits, dtype=dt, astype=at),
                                  data_for(dt, n).tobytes()))
    # digits from very coarse to beyond float32's range (38: float32
    # arithmetic that overflows; 39: float64 arithmetic; -300: a scale
    # float32 rounds to 0)
    for dt, at in (('<f4', '<f4'), ('<f8', '<f8'), ('<f8', '<f4'), ('>f4', '<f8')):
        for digits in (-300, -5, -1, 0, 2, 6, 7, 10, 16, 20, 37, 38, 39, 45, 300, 307):
            cases.append(('quantize-%s-as-%s-d%s-333' % (tag(dt), tag(at),
                                                         str(digits).replace('-', 'm')),
                          numcodecs.Quantize(digits=digits, dtype=dt, astype=at),
                          data_for(dt, 333).tobytes()))
    return cases


def float_specials(dt):
    # NaN (also with a full payload), infinities, zeros, subnormals, the
    # largest finite value, values just below a rounding carry
    it = dt.replace('f', 'u')
    bits = [0x7fffffff, 0xffc00001, 0x00000001, 0x007fffff, 0x7f7fffff, 0x3f7fffff,
            0x3fc00000, 0x3f800001] if it[-1] == '4' else \
           [0x7fffffffffffffff, 0xfff0000000000001, 1, 0x000fffffffffffff,
            0x7fefffffffffffff, 0x3fefffffffffffff, 0x3ff8000000000000, 0x3ff0000000000001]
    a = np.array(bits, dtype=it).view(dt)
    b = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -3.75, 2.0 ** -10], dtype=dt)
    return np.concatenate([a, b]).astype(dt)


def bitround_cases(rng):
    cases = []
    for dt, top in (('<f4', 23), ('<f8', 52)):
        for keep in sorted({0, 1, 3, 7, 10, top - 1, top}):
            for n in (0, 1, 7, 1001):
                data = (rng.normal(size=n) * 10.0 ** rng.integers(-5, 6, size=n)).astype(dt)
                if n > 16:
                    data[:16] = float_specials(dt)
                cases.append(('bitround-%s-k%d-%d' % (tag(dt), keep, n),
                              numcodecs.BitRound(keepbits=keep), data.tobytes(), dt))
    return cases


def tag(dt):
    return dt[1:] + ('be' if dt[0] == '>' else '')


def fixedscaleoffset_cases(rng):
    cases = []
    astypes = ['|i1', '|u1', '<i2', '>i2', '<u2', '<i4', '>u4', '<i8', '<u8', '<f4', '>f4',
               '<f8', '>f8']
    for dt in ('<f4', '>f4', '<f8', '>f8'):
        for at in astypes:
            info = np.iinfo(at) if np.dtype(at).kind in 'iu' else None
            for n in (0, 1, 7, 1001):
                offset, scale = 1000, 10
                if info is not None:
                    lo, hi = max(info.min, -30000), min(info.max, 30000)
                    codes = rng.integers(lo, hi, size=n, endpoint=True)
                    codes[:min(n, 2)] = [lo, hi][:min(n, 2)]
                    # near the ends of the range, and halves between codes
                    x = offset + (codes + rng.choice([-0.5, 0, 0.25, 0.5], size=n).clip(
                        lo - codes, hi - codes)) / scale
                else:
                    x = offset + rng.normal(size=n) * 1000
                    for k, v in enumerate([np.nan, np.inf, -np.inf, -0.0, 1e30, 1000.05]):
                        if n > 20 + k:
                            x[3 + 3 * k] = v
                data = np.asarray(x).astype(dt)
                cases.append(('fso-%s-as-%s-%d' % (tag(dt), tag(at), n),
                              numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dt,
                                                         astype=at), data.tobytes()))
    # halves round to even; float offsets and scales; scale below one
    ties = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 1e6 + 0.5, -0.0, 0.0], dtype='<f8')
    for dt in ('<f4', '<f8'):
        cases.append(('fso-ties-%s' % tag(dt),
                      numcodecs.FixedScaleOffset(offset=0, scale=1, dtype=dt, astype='<i4'),
                      ties.astype(dt).tobytes()))
        vals = (rng.normal(size=333) * 50 + 273.15).astype(dt)
        for k, (o, sc, at) in enumerate([(273.15, 100.0, '<i2'), (-1.25, 0.1, '|i1'),
                                         (0.1, 3.3, '<f4'), (1e5, 1e-3, '<f8'),
                                         (200, 7, '<u2'), (0, 2 ** 20, '<i8')]):
            if at == '<u2':
                vals2 = np.abs(vals - 273.15) + 273.15
            else:
                vals2 = vals
            cases.append(('fso-params%d-%s' % (k, tag(dt)),
                          numcodecs.FixedScaleOffset(offset=o, scale=sc, dtype=dt, astype=at),
                          vals2.astype(dt).tobytes()))
    return cases


def encode(directory):
    np.seterr(all='ignore')   # overflow to inf when narrowing floats is meant
    for case, codec, raw, *array_dtype in codec_cases():
        dtype = array_dtype[0] if array_dtype else getattr(codec, 'dtype', 'u1')
        enc = bytes(codec.encode(np.frombuffer(raw, dtype=dtype).copy()))
        dec = bytes(codec.decode(enc))
        base = os.path.join(directory, case)
        if array_dtype:
            # codecs whose JSON names no type take it from the variable
            with open(base + '.dtype', 'w') as f:
                f.write(array_dtype[0])
        for ext, blob in (('.raw', raw), ('.enc', enc), ('.dec', dec)):
            with open(base + ext, 'wb') as f:
                f.write(blob)
        with open(base + '.json', 'w') as f:
            json.dump(codec.get_config(), f)
    return 0


def check(directory):
    failures = count = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.ncz'):
            continue
        base = os.path.join(directory, name[:-4])
        with open(base + '.json') as f:
            codec = numcodecs.get_codec(json.load(f))
        with open(base + '.ncz', 'rb') as f:
            ncz = f.read()
        with open(base + '.dec', 'rb') as f:
            expected = f.read()
        try:
            out = bytes(codec.decode(ncz))
        except Exception as e:  # noqa: BLE001 - report any decoder failure
            print('%s: numcodecs cannot decode what Ncz wrote: %s' % (name, e))
            failures += 1
            continue
        if out != expected:
            print('%s: numcodecs decodes what Ncz wrote to different bytes' % name)
            failures += 1
        count += 1
    if count == 0:
        print('no .ncz files in %s' % directory)
        return 1
    print('%d cases checked, %d failures' % (count, failures))
    return 1 if failures else 0


def zarr_arrays():
    """name -> (values, chunks, filters, compressor)"""
    n = np.arange(1000)
    ints = (n * n // 7 - 3000).astype('<i4')
    ints2 = (np.abs(n % 200 - 100) - 50).astype('<i2')   # fits int8 differences
    temp = (280 + 10 * np.sin(n / 30.0)).astype('<f8')
    grid = (np.arange(35 * 23).reshape(35, 23) * 3 - 100).astype('>i4')
    return {
        'delta_gzip': (ints, (128,), [numcodecs.Delta(dtype='<i4')], numcodecs.GZip(level=5)),
        'delta_narrow': (ints2, (100,), [numcodecs.Delta(dtype='<i2', astype='|i1')],
                         numcodecs.GZip(level=1)),
        'delta_float': (temp, (333,), [numcodecs.Delta(dtype='<f8')], None),
        'gzip_only': (temp, (250,), None, numcodecs.GZip(level=9)),
        'delta_be_2d': (grid, (10, 7), [numcodecs.Delta(dtype='>i4')], numcodecs.GZip(level=5)),
        'checksums': (ints, (300,), [numcodecs.Delta(dtype='<i4'), numcodecs.CRC32()],
                      numcodecs.Adler32()),
        'fso_f8_i2': (temp, (300,), [numcodecs.FixedScaleOffset(offset=280, scale=1000,
                                                                dtype='<f8', astype='<i2')],
                      numcodecs.GZip(level=5)),
        'fso_f4_u1': ((temp - 270).astype('>f4'), (250,),
                      [numcodecs.FixedScaleOffset(offset=0, scale=10, dtype='>f4',
                                                  astype='|u1')], None),
        'bitround_f4': (temp.astype('<f4'), (300,), [numcodecs.BitRound(keepbits=7)],
                        numcodecs.GZip(level=5)),
        'bitround_f8': (temp, (1000,), [numcodecs.BitRound(keepbits=0)], None),
        'quantize_f8_f4': (temp, (300,), [numcodecs.Quantize(digits=2, dtype='<f8',
                                                             astype='<f4')],
                           numcodecs.GZip(level=5)),
        'astype_f8_f4': (temp, (300,), [numcodecs.AsType(encode_dtype='<f4',
                                                         decode_dtype='<f8')],
                         numcodecs.GZip(level=5)),
        'astype_i2_i1': (ints2, (128,), [numcodecs.AsType(encode_dtype='|i1',
                                                          decode_dtype='<i2')], None),
        'astype_be_u8_f8': (np.arange(777, dtype='>u8') * 12345, (100,),
                            [numcodecs.AsType(encode_dtype='>f8', decode_dtype='>u8')], None),
        'packbits_bool': ((n % 3 == 0) | (n % 7 == 1), (333,), [numcodecs.PackBits()],
                          numcodecs.GZip(level=5)),
        'quantize_f4be': ((temp - 270).astype('>f4'), (250,),
                          [numcodecs.Quantize(digits=1, dtype='>f4')], None),
    }


def write_zarr(directory):
    try:
        import zarr
    except ImportError:
        return 77
    root = zarr.open_group(os.path.join(directory, 'py.zarr'), mode='w')
    for name, (values, chunks, filters, compressor) in zarr_arrays().items():
        a = root.create_dataset(name, shape=values.shape, chunks=chunks, dtype=values.dtype,
                                filters=filters, compressor=compressor, fill_value=0)
        a[...] = values
        a.attrs['_ARRAY_DIMENSIONS'] = ['%s_d%d' % (name, k) for k in range(values.ndim)]
        # what zarr-python reads back (lossy filters change the values)
        back = a[...]
        with open(os.path.join(directory, name + '.expect'), 'wb') as f:
            f.write(back.astype(back.dtype.newbyteorder('=')).tobytes())
    return 0


def read_zarr(directory):
    try:
        import zarr
    except ImportError:
        return 77
    failures = count = 0
    root = zarr.open_group(os.path.join(directory, 'ncz.zarr'), mode='r')
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.codecs'):
            continue
        var = name[:-7]
        with open(os.path.join(directory, name)) as f:
            want = f.read().split()
        a = root[var]
        got = [f.codec_id for f in (a.filters or [])] + \
              ([a.compressor.codec_id] if a.compressor is not None else [])
        if got != want:
            print('%s: codecs %s, expected %s' % (var, got, want))
            failures += 1
        with open(os.path.join(directory, var + '.expect'), 'rb') as f:
            expected = np.frombuffer(f.read(), dtype=a.dtype.newbyteorder('='))
        values = a[...].reshape(-1)
        if values.tobytes() != expected.astype(a.dtype).tobytes():
            print('%s: zarr-python reads different values' % var)
            failures += 1
        count += 1
    print('%d arrays read, %d failures' % (count, failures))
    return 1 if failures or count == 0 else 0


if __name__ == '__main__':
    commands = {'encode': encode, 'check': check, 'write-zarr': write_zarr,
                'read-zarr': read_zarr}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        print(__doc__)
        sys.exit(2)
    sys.exit(commands[sys.argv[1]](sys.argv[2]))
