#!/usr/bin/python3
"""numcodecs side of the codec interoperability tests.

  numcodecs-helper.py encode DIR   writes, per case, DIR/<case>.raw (the
                                   data), DIR/<case>.enc (numcodecs'
                                   encoding) and DIR/<case>.json (the
                                   codec config numcodecs would store)
  numcodecs-helper.py decode DIR   decodes every DIR/<case>.enc written by
                                   Ncz with the codec of DIR/<case>.json,
                                   compares with DIR/<case>.raw, and, for
                                   DIR/<case>.same files, checks that
                                   numcodecs encodes the raw data to the
                                   same bytes

Exit status 77 when numcodecs is not installed, 1 on any mismatch.
"""
import json
import os
import sys

try:
    import numpy as np
    import numcodecs
except ImportError:
    sys.exit(77)


def data_cases():
    rng = np.random.default_rng(12345)
    smooth = (np.sin(np.arange(20000) / 50.0) * 1000).astype('<f4')
    ints = np.arange(12345, dtype='<i4') * 7 - 4000
    noisy = rng.integers(0, 256, 30001, dtype=np.uint8)
    doubles = np.cumsum(rng.normal(size=5000)).astype('<f8')
    return {
        'smooth': smooth.tobytes(),
        'ints': ints.tobytes(),
        'noisy': noisy.tobytes(),
        'doubles': doubles.tobytes(),
    }


def codec_cases():
    return {
        'zlib1': numcodecs.Zlib(level=1),
        'zlib9': numcodecs.Zlib(level=9),
        'bz2-1': numcodecs.BZ2(level=1),
        'bz2-9': numcodecs.BZ2(level=9),
        'zstd1': numcodecs.Zstd(level=1),
        'zstd5': numcodecs.Zstd(level=5),
        'zstd-neg': numcodecs.Zstd(level=-3),
        'shuffle2': numcodecs.Shuffle(elementsize=2),
        'shuffle4': numcodecs.Shuffle(elementsize=4),
        'shuffle8': numcodecs.Shuffle(elementsize=8),
    }


def encode(directory):
    datas = data_cases()
    for cname, codec in codec_cases().items():
        for dname, raw in datas.items():
            if isinstance(codec, numcodecs.Shuffle) and len(raw) % codec.elementsize:
                continue
            case = '%s-%s' % (cname, dname)
            enc = bytes(codec.encode(raw))
            with open(os.path.join(directory, case + '.raw'), 'wb') as f:
                f.write(raw)
            with open(os.path.join(directory, case + '.enc'), 'wb') as f:
                f.write(enc)
            with open(os.path.join(directory, case + '.json'), 'w') as f:
                json.dump(codec.get_config(), f)
    return 0


def decode(directory):
    failures = 0
    count = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.enc'):
            continue
        case = name[:-4]
        base = os.path.join(directory, case)
        with open(base + '.json') as f:
            config = json.load(f)
        for key, value in config.items():
            if key != 'id' and isinstance(value, str) and key != 'cname':
                print('%s: %s is a string (%r), numcodecs cannot encode with it'
                      % (case, key, value))
                failures += 1
        codec = numcodecs.get_codec(config)
        with open(base + '.raw', 'rb') as f:
            raw = f.read()
        with open(base + '.enc', 'rb') as f:
            enc = f.read()
        try:
            out = bytes(codec.decode(enc))
        except Exception as e:  # noqa: BLE001 - report any decoder failure
            print('%s: numcodecs cannot decode: %s' % (case, e))
            failures += 1
            continue
        if out != raw:
            print('%s: decoded %d bytes differ from the %d raw bytes' % (case, len(out), len(raw)))
            failures += 1
        if os.path.exists(base + '.same'):
            again = bytes(codec.encode(raw))
            if again != enc:
                print('%s: numcodecs encodes differently (%d vs %d bytes)'
                      % (case, len(again), len(enc)))
                failures += 1
        count += 1
    if count == 0:
        print('no cases in %s' % directory)
        return 1
    print('%d cases, %d failures' % (count, failures))
    return 1 if failures else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('encode', 'decode'):
        print(__doc__)
        sys.exit(2)
    sys.exit(encode(sys.argv[2]) if sys.argv[1] == 'encode' else decode(sys.argv[2]))
