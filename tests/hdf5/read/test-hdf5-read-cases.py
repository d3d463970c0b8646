#!/usr/bin/python3
# test-hdf5-read-cases.py: the HDF5 reader on files made for it
#
# netCDF-4 files written by `ncgen -4` (or `-k nc7`) from the CDL below,
# and HDF5 files written by h5py without netCDF's conventions, are dumped
# by ncdump (netCDF 4.9.0 here) and by ncz-dump, plainly and with -s; the
# outputs must be identical, unless the HDF5 table of
# tests/interop/KNOWN-DIFFERENCES.md lists the case (dataset
# `cases/<name>`). Cases cover every atomic type of variables and
# attributes, fill values and no-fill, big-endian variables, contiguous,
# compact and chunked storage, deflate/shuffle/fletcher32/szip and plugin
# filters in -s output, quantization attributes, groups, coordinate
# variables and dimensions seen from enclosing groups, unlimited
# dimensions, the classic model, h5py files (phony dimensions, dimension
# scales without netCDF ids) and user-defined types (left out, listed in
# `_Unsupported`). Damaged copies of a file (truncated, bytes changed)
# must give an error naming the file, never a crash, a hang or HDF5's
# own messages on stderr.
#
# Output is TAP. Arguments: --ncz-dump=PATH, then optional substrings
# selecting cases. Environment: NCDUMP, NCGEN (optional tool paths).
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    'corpus_dump', os.path.join(HERE, 'test-hdf5-corpus-dump.py'))
corpus_dump = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus_dump)

CDL = {}

CDL['atomic'] = r'''netcdf atomic {
dimensions:
  n = 3 ;
variables:
  byte b(n) ;
    b:att = -128b, 0b, 127b ;
  ubyte ub(n) ;
    ub:att = 0ub, 255ub ;
  short s(n) ;
    s:att = -32768s, 32767s ;
  ushort us(n) ;
    us:att = 65535us ;
  int i(n) ;
    i:att = -2147483647, 2147483647 ;
  uint ui(n) ;
    ui:att = 4294967295u ;
  int64 i64(n) ;
    i64:att = -9223372036854775807LL, 9223372036854775807LL ;
  uint64 ui64(n) ;
    ui64:att = 18446744073709551615ULL ;
  float f(n) ;
    f:att = 1.5f, -0.f, NaNf, Infinityf, -Infinityf ;
  double d(n) ;
    d:att = 1.e300, NaN, -Infinity ;
  char c(n) ;
    c:att = "text with \"quotes\" and\ttab" ;
    c:empty = "" ;
  string str(n) ;
    string str:att = "one", "", "three" ;
  int scalar ;
    scalar:units = "1" ;
  :global_char = "g" ;
  string :global_strings = "a", "b" ;
  :global_ints = 1, 2, 3 ;
  :global_double = 3.25 ;
data:
  b = -128, 0, 127 ;
  ub = 0, 128, 255 ;
  s = -32768, 0, 32767 ;
  us = 0, 1, 65535 ;
  i = -2147483647, 0, 2147483647 ;
  ui = 0, 1, 4294967295 ;
  i64 = -9223372036854775807, 0, 9223372036854775807 ;
  ui64 = 0, 1, 18446744073709551615 ;
  f = 1.5, -2.25, 3.125 ;
  d = 1e300, -1e-300, 0 ;
  c = "abc" ;
  str = "x", "a longer string than the others", "" ;
  scalar = 42 ;
}
'''

CDL['fill'] = r'''netcdf fill {
dimensions:
  n = 4 ;
  t = UNLIMITED ;
variables:
  int with_fill(n) ;
    with_fill:_FillValue = -99 ;
  float ffill(n) ;
    ffill:_FillValue = 9.5f ;
  double default_fill(n) ;
  string sfill(n) ;
    sfill:_FillValue = "none" ;
  char cfill(n) ;
    cfill:_FillValue = "x" ;
  ubyte nofill(n) ;
    nofill:_NoFill = "true" ;
  short long_record(t) ;
    long_record:_FillValue = 7s ;
  short short_record(t) ;
    short_record:_FillValue = -7s ;
data:
  with_fill = 1, _, 3, _ ;
  ffill = _, 2, _, 4 ;
  sfill = "a", _, "c", _ ;
  cfill = "ab" ;
  nofill = 1, 2, 3, 4 ;
  long_record = 1, 2, 3, 4, 5 ;
  short_record = 1, 2 ;
}
'''

CDL['endian'] = r'''netcdf endian {
dimensions:
  n = 3 ;
variables:
  short s(n) ;
    s:_Endianness = "big" ;
  int i(n) ;
    i:_Endianness = "big" ;
  float f(n) ;
    f:_Endianness = "big" ;
  double d(n) ;
    d:_Endianness = "big" ;
  uint64 u(n) ;
    u:_Endianness = "big" ;
  int little(n) ;
    little:_Endianness = "little" ;
data:
  s = 1, -2, 300 ;
  i = 1, -2, 70000 ;
  f = 1.5, -2.5, 1e10 ;
  d = 1.25, -2.5, 1e100 ;
  u = 1, 2, 18446744073709551615 ;
  little = 5, 6, 7 ;
}
'''

CDL['storage'] = r'''netcdf storage {
dimensions:
  x = 6 ;
  y = 4 ;
variables:
  int contig(x, y) ;
    contig:_Storage = "contiguous" ;
  int compact(y) ;
    compact:_Storage = "compact" ;
  int chunked(x, y) ;
    chunked:_Storage = "chunked" ;
    chunked:_ChunkSizes = 2, 3 ;
  int chunked1(x) ;
    chunked1:_ChunkSizes = 6 ;
data:
  contig = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 ;
  compact = 9, 8, 7, 6 ;
  chunked = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 ;
  chunked1 = 1, 2, 3, 4, 5, 6 ;
}
'''

CDL['filters'] = r'''netcdf filters {
dimensions:
  x = 64 ;
variables:
  int deflate(x) ;
    deflate:_DeflateLevel = 6 ;
  int shuffled(x) ;
    shuffled:_Shuffle = "true" ;
    shuffled:_DeflateLevel = 1 ;
  int fletcher(x) ;
    fletcher:_Fletcher32 = "true" ;
  int all3(x) ;
    all3:_Fletcher32 = "true" ;
    all3:_Shuffle = "true" ;
    all3:_DeflateLevel = 9 ;
  float szip(x) ;
    szip:_Filter = "4,32,32" ;
  int szip_ec(x) ;
    szip_ec:_Filter = "4,4,16" ;
  int bzip2(x) ;
    bzip2:_Filter = "307,9" ;
  int bzip2_deflate(x) ;
    bzip2_deflate:_Filter = "307,5|1,2" ;
data:
  deflate = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
    38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56,
    57, 58, 59, 60, 61, 62, 63 ;
  shuffled = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
    38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56,
    57, 58, 59, 60, 61, 62, 63 ;
  szip = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
    38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56,
    57, 58, 59, 60, 61, 62, 63 ;
}
'''

CDL['quantize'] = r'''netcdf quantize {
dimensions:
  x = 4 ;
variables:
  float bg(x) ;
    bg:_QuantizeBitGroomNumberOfSignificantDigits = 3 ;
  double gbr(x) ;
    gbr:_QuantizeGranularBitRoundNumberOfSignificantDigits = 4 ;
  float br(x) ;
    br:_QuantizeBitRoundNumberOfSignificantBits = 6 ;
data:
  bg = 3.14159, 2.71828, 1.41421, 1.73205 ;
  gbr = 3.14159, 2.71828, 1.41421, 1.73205 ;
  br = 3.14159, 2.71828, 1.41421, 1.73205 ;
}
'''

CDL['groups'] = r'''netcdf groups {
dimensions:
  x = 3 ;
  lonely = 2 ;
  rec = UNLIMITED ;
  y = 2 ;
  len = 4 ;
variables:
  float x(x) ;
    x:units = "m" ;
  int y(x) ;
  char name(y, len) ;
  int rec(rec) ;
  data:
  x = 1, 2, 3 ;
  y = 7, 8, 9 ;
  name = "abcd", "efgh" ;
  rec = 1, 2 ;
group: g1 {
  dimensions:
    z = 2 ;
  variables:
    int v(z, x) ;
      v:long_name = "uses the parent's x" ;
    int r(rec) ;
    :g1_attr = 1.5 ;
  data:
    v = 1, 2, 3, 4, 5, 6 ;
    r = 1, 2, 3, 4 ;
  group: g2 {
    dimensions:
      x = 5 ;
    variables:
      int w(x, z) ;
      int lonely_user(lonely) ;
      :deep = "yes" ;
    data:
      w = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 ;
  }
}
group: g3 {
  variables:
    string s ;
  data:
    s = "in g3" ;
}
}
'''

CDL['classic'] = r'''netcdf classic {
dimensions:
  x = 2 ;
  t = UNLIMITED ;
variables:
  double x(x) ;
  float v(t, x) ;
    v:missing_value = -1.f ;
  :Conventions = "CF-1.8" ;
data:
  x = 1, 2 ;
  v = 1, 2, 3, 4 ;
}
'''

CDL['usertypes'] = r'''netcdf usertypes {
types:
  compound cmp_t { int i ; double d ; } ;
  byte enum color_t { red = 0, green = 1 } ;
  opaque(4) op_t ;
  int(*) vl_t ;
dimensions:
  n = 2 ;
variables:
  cmp_t c(n) ;
  color_t e(n) ;
    e:note = "an enum variable" ;
  op_t o(n) ;
  vl_t v(n) ;
  int plain(n) ;
    color_t plain:ecol = green ;
    plain:ok = 1 ;
  color_t :gcolor = red ;
  :title = "with types" ;
data:
  plain = 1, 2 ;
  e = red, green ;
}
'''

# h5py files: (name, script body using h5py as h5py, numpy as np, PATH)
H5PY = {}
H5PY['h5py_phony'] = r'''
with h5py.File(PATH, 'w') as f:
    f['a'] = np.arange(12, dtype='i4').reshape(3, 4)
    f['b'] = np.arange(100, dtype='f8').reshape(10, 10)
    f['c'] = np.arange(4, dtype='i2')
    f.attrs['title'] = 'hello'
    f.attrs['n'] = np.int64(5)
    f.attrs['arr'] = np.array([1.5, 2.5])
    f.attrs['bs'] = np.bytes_(b'fixed')
    f.attrs['sl'] = ['x', 'yy']
    g = f.create_group('g')
    g['d'] = np.zeros((4, 7), 'u1')
    g.create_dataset('e', (2, 3), maxshape=(None, 3), dtype='f4', chunks=(1, 3), fillvalue=9)
    g.create_dataset('big', data=np.arange(5, dtype='>i4'))
    g.create_dataset('z', data=np.arange(6, dtype='i8'), compression='gzip',
                     compression_opts=4, shuffle=True, fletcher32=True)
    f['vs'] = np.array(['x', 'yz'], dtype=h5py.string_dtype())
    f.create_dataset('sc', data=3.0)
'''
H5PY['h5py_scales'] = r'''
with h5py.File(PATH, 'w') as f:
    f['time'] = np.arange(3, dtype='f8')
    f['time'].make_scale('time')
    f['lat'] = np.array([10., 20.], dtype='f4')
    f['lat'].make_scale('lat')
    f['temp'] = np.arange(6, dtype='f4').reshape(3, 2)
    f['temp'].dims[0].attach_scale(f['time'])
    f['temp'].dims[1].attach_scale(f['lat'])
    f['temp'].attrs['units'] = 'K'
    f['other'] = np.arange(2, dtype='i4')
'''
# a user block before the superblock: every address in the file is
# relative to it, and raw chunks and contiguous data read without
# libhdf5 must add it
H5PY['h5py_userblock'] = r'''
with h5py.File(PATH, 'w', userblock_size=1024) as f:
    f.create_dataset('z', data=np.arange(4000, dtype='i4').reshape(40, 100),
                     chunks=(10, 25), compression='gzip', compression_opts=1, shuffle=True)
    f.create_dataset('u', data=np.arange(300, dtype='f8').reshape(3, 100), chunks=(1, 100))
    f.create_dataset('c', data=np.arange(600, dtype='>f8').reshape(6, 100) * 1.5 - 7)
    f.create_dataset('c16', data=np.arange(50, dtype='<i2') * -611)
    f.create_dataset('unwritten', (4, 5), dtype='>i4', fillvalue=-3)
    f.attrs['title'] = 'after a user block'
'''
H5PY['h5py_fixed_strings'] = r'''
with h5py.File(PATH, 'w') as f:
    f['s'] = np.array([b'ab', b'cde'])
    f['one'] = np.array([b'xyz'])
    f.attrs['fixed_list'] = np.array([b'ab', b'cde'])
    f.attrs['fixed_one'] = np.bytes_(b'text')
'''

H5PY['h5py_links'] = r'''
with h5py.File(PATH, 'w') as f:
    g = f.create_group('g')
    g['v'] = np.arange(3, dtype='i4')
    f['g2'] = g
    f['w'] = np.arange(2, dtype='i4')
    f['w'].attrs['_FillValue'] = np.float64(1.5)
    f['soft'] = h5py.SoftLink('/w')
'''

# types without a name in the file (h5py's compound and bool): netcdf-c
# leaves such datasets out, dimensions and all
H5PY['h5py_usertypes'] = r'''
with h5py.File(PATH, 'w') as f:
    f['a'] = np.zeros(5, dtype=[('i', 'i4'), ('d', 'f8')])
    f['b'] = np.arange(3, dtype='i4')
    f['e'] = np.array([True, False])
    f['b'].attrs['flag'] = np.bool_(True)
    f['b'].attrs['units'] = 'm'
'''

# ncdump 4.9.0 fails on these ("HDF error"); ncz-dump leaves the links out
H5PY['h5py_badlinks'] = r'''
with h5py.File(PATH, 'w') as f:
    g = f.create_group('g')
    g['v'] = np.arange(3, dtype='i4')
    g['up'] = f['/']
    f['dangling'] = h5py.SoftLink('/nowhere')
    f['ext'] = h5py.ExternalLink('other.h5', '/x')
'''

# written by h5netcdf (netCDF-4's conventions without netcdf-c)
H5PY['h5netcdf'] = r'''
import h5netcdf
with h5netcdf.File(PATH, 'w') as f:
    f.dimensions = {'x': 3, 't': None, 'unused': None}
    v = f.create_variable('x', ('x',), float)
    v[:] = [1, 2, 3]
    w = f.create_variable('data', ('t', 'x'), 'i4', chunks=(1, 3), compression='gzip')
    f.resize_dimension('t', 2)
    f.resize_dimension('unused', 4)
    w[:] = np.arange(6).reshape(2, 3)
    w.attrs['units'] = 'K'
    g = f.create_group('sub')
    g.dimensions = {'y': 2}
    u = g.create_variable('u', ('y', 'x'), 'f4')
    s = g.create_variable('s', ('y',), dtype=h5py.string_dtype())
    s[:] = np.array(['a', 'bc'], dtype=object)
    f.attrs['title'] = 'h5netcdf'
'''

# names netCDF-4 stores specially: a variable named like a dimension it
# does not use (_nc4_non_coord_), a multi-dimensional coordinate variable,
# a dimension of a subgroup shadowing the root's
CDL['names'] = r'''netcdf names {
dimensions:
  time = UNLIMITED ;
  len = 5 ;
  x = 2 ;
  y = 4 ;
variables:
  char time(time, len) ;
  int x(x) ;
  int y(x) ;
  string ss(x) ;
    string ss:a = "p", "q" ;
    ss:_FillValue = "fill" ;
data:
  y = 1, 2 ;
group: g {
  dimensions:
    x = 3 ;
  variables:
    int shadow(x) ;
    int parent_x(/x) ;
  data:
    shadow = 1, 2, 3 ;
  group: h {
    variables:
      int both(/x, x) ;
  }
}
}
'''

CDL['nofill_unwritten'] = r'''netcdf nofill_unwritten {
dimensions:
  n = 2 ;
variables:
  double never_written(n) ;
    never_written:_NoFill = "true" ;
  int written(n) ;
    written:_NoFill = "true" ;
data:
  written = 1, 2 ;
}
'''


def run(argv, timeout=120, env=None):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode('utf-8', 'surrogateescape'), \
            p.stderr.decode('utf-8', 'surrogateescape')
    except subprocess.TimeoutExpired:
        return 'timeout', '', 'timed out after %d s' % timeout


class Tap:
    def __init__(self):
        self.results = []

    def add(self, ok, desc, diag=(), directive=None):
        self.results.append((ok, desc, list(diag), directive))

    def finish(self):
        print('1..%d' % len(self.results))
        failed = 0
        for i, (ok, desc, diag, directive) in enumerate(self.results, 1):
            line = '%s %d - %s' % ('ok' if ok else 'not ok', i, desc)
            if directive:
                line += ' # ' + directive
            print(line)
            for d in diag:
                print('# ' + d)
            if not ok and not (directive or '').startswith('TODO'):
                failed += 1
        return 1 if failed else 0


def make_files(work, ncgen, selectors, tap):
    files = {}
    for name, text in CDL.items():
        if selectors and not any(s in name for s in selectors):
            continue
        cdl = os.path.join(work, name + '.cdl')
        path = os.path.join(work, name + '.nc')
        with open(cdl, 'w') as f:
            f.write(text)
        kind = 'nc7' if name == 'classic' else 'nc4'
        rc, out, err = run([ncgen, '-k', kind, '-o', path, cdl])
        if rc != 0:
            tap.add(False, '%s: ncgen -k %s' % (name, kind), [err.strip()])
            continue
        files[name] = path
    for name, body in H5PY.items():
        if selectors and not any(s in name for s in selectors):
            continue
        path = os.path.join(work, name + '.h5')
        script = 'import h5py, numpy as np\nPATH = %r\n%s' % (path, body)
        if run_h5py(tap, script, name) is None:
            continue
        files[name] = path
    return files


def check_usertypes(tap, ncz_dump, path):
    rc, out, err = run([ncz_dump, '-s', path])
    if rc != 0:
        tap.add(False, 'usertypes: ncz-dump opens a file with user-defined types',
                [err.strip()])
        return
    tap.add(True, 'usertypes: ncz-dump opens a file with user-defined types')
    want = ['\tint plain(n) ;', '\t\tplain:ok = 1 ;', '\t\t:title = "with types" ;',
            ' plain = 1, 2 ;']
    missing = [w for w in want if w not in out.split('\n')]
    tap.add(not missing, 'usertypes: the atomic variable and attributes are read',
            ['missing: %r' % m for m in missing])
    m = re.search(r':_Unsupported = "([^"]*)" ;', out)
    listed = m.group(1).split('\\n') if m else []
    expect = ['/cmp_t (named datatype)', '/color_t (named datatype)',
              '/op_t (named datatype)', '/vl_t (named datatype)', '/c (compound type)',
              '/e (enum type)', '/o (opaque type)', '/v (vlen type)',
              '/plain:ecol (enum type)', '/:gcolor (enum type)']
    tap.add(listed == expect, 'usertypes: -s lists what is left out in _Unsupported',
            ['got %r' % listed])
    left = [l for l in out.split('\n') if re.search(r'\b(cmp_t|color_t|op_t|vl_t)\b', l)
            and '_Unsupported' not in l]
    tap.add(not left, 'usertypes: no variable of a user-defined type is shown', left)
    rc, out, err = run([ncz_dump, '-v', 'c', path])
    tap.add(rc != 0 or 'cmp_t' not in out, 'usertypes: the compound variable is not readable')


def check_badlinks(tap, ncz_dump, path):
    rc, out, err = run([ncz_dump, '-s', path])
    lines = out.split('\n')
    ok = rc == 0 and '  \tint v(phony_dim_0) ;' in lines and ' v = 0, 1, 2 ;' in ''.join(
        l + '\n' for l in lines).replace('   v =', ' v =') and \
        ':_Unsupported = "/g/up (a link to an enclosing group)" ;' in out and \
        'dangling' not in out and 'ext' not in out.replace('netcdf', '')
    tap.add(ok, 'h5py_badlinks: a link to an enclosing group, a dangling soft link and an '
            'external link are left out', [] if ok else [str(rc), err.strip()] + lines)


def check_damaged(tap, ncz_dump, path, name, ncdump):
    """Truncations and changed bytes: an error naming the file, or a
    successful dump; never a crash, a hang or HDF5's own messages.

    libhdf5 1.10.8 itself crashes on some damaged global heaps (reading a
    variable-length string attribute copies past the heap: H5HG_read); a
    crash of ncz-dump is put down to libhdf5 only when ncdump, which reads
    the file through the same libhdf5, crashes on that copy too, and is
    then reported as a diagnostic rather than a failure."""
    with open(path, 'rb') as f:
        data = f.read()
    work = os.path.dirname(path)
    rng = random.Random(12)
    variants = []
    for cut in (0, 7, 8, 96, 512, 800, 1200, 2000, 4000, len(data) // 2, len(data) - 1):
        if cut < len(data):
            variants.append(('truncated at %d' % cut, data[:cut]))
    for k in range(40):
        b = bytearray(data)
        start = rng.randrange(0, min(len(b), 12000))
        for j in range(rng.randrange(1, 9)):
            b[min(len(b) - 1, start + j)] = rng.randrange(256)
        variants.append(('bytes changed at %d' % start, bytes(b)))
    bad = []
    in_libhdf5 = []
    errors = 0
    for desc, content in variants:
        damaged = os.path.join(work, 'damaged-' + name + '.nc')
        with open(damaged, 'wb') as f:
            f.write(content)
        for opts in (['-h'], []):
            rc, out, err = run([ncz_dump] + opts + [damaged], timeout=60)
            if isinstance(rc, int) and rc < 0:
                rc_ref, _, _ = run([ncdump] + opts + [damaged], timeout=60)
                if isinstance(rc_ref, int) and rc_ref < 0:
                    in_libhdf5.append('%s %s: signal %d, ncdump signal %d'
                                      % (desc, ' '.join(opts), -rc, -rc_ref))
                    continue
            if rc == 'timeout' or (isinstance(rc, int) and rc < 0) or rc not in (0, 1):
                bad.append('%s %s: %s %s' % (desc, ' '.join(opts), rc, err.strip()[-300:]))
            elif 'HDF5-DIAG' in err or '#000:' in err:
                bad.append('%s: HDF5 printed its error stack' % desc)
            elif rc != 0:
                errors += 1
                if damaged not in err:
                    bad.append('%s %s: the message does not name the file: %s'
                               % (desc, ' '.join(opts), err.strip()))
    tap.add(not bad, '%s: %d damaged copies give an error naming the file (%d errors) '
            'or a dump, never a crash' % (name, len(variants), errors),
            bad[:20] + ['crashes inside libhdf5 (ncdump crashes too): ' + c
                        for c in in_libhdf5])


def run_h5py(tap, script, what):
    """Runs an h5py @script with Debian's python: its output, or None
    (with a SKIP for @what) when h5py is not available."""
    rc, out, err = run(['/usr/bin/python3', '-c', script])
    if rc != 0:
        tap.add(True, '%s: h5py is not available' % what, [], 'SKIP')
        return None
    return out


def check_damaged_heaps(tap, ncz_dump, work):
    """Global heap collections whose objects do not fit in them (libhdf5
    1.10.8 copies past the heap, or loops forever, on these) are refused
    by the file drivers before libhdf5 decodes them: an error naming the
    file and the collection, read locally and through a store. Raw data
    that looks like such a collection is read as data."""
    crashes = os.path.join(os.environ.get('NCZ_SOURCE_ROOT', ''), 'tests', 'fuzz',
                           'libhdf5-crashes')
    names = sorted(n for n in os.listdir(crashes) if n.startswith('gcol-')) \
        if os.path.isdir(crashes) else []
    if not names:
        tap.add(False, 'damaged heaps: no gcol-* inputs in %s' % crashes)
        return
    for name in names:
        path = os.path.join(crashes, name)
        for url in (path, path + '#mode=bytes'):
            rc, out, err = run([ncz_dump, url], timeout=60)
            ok = rc == 1 and 'global heap collection' in err and path in err
            tap.add(ok, 'damaged heap %s: refused with an error naming the collection' % url,
                    [] if ok else ['exit %s: %s' % (rc, err.strip()[-400:])])
    lookalike = os.path.join(work, 'gcol-lookalike.h5')
    script = (
        'import h5py, numpy as np, struct\n'
        'head = b"GCOL\\x01\\x00\\x00\\x00" + struct.pack("<Q", 4096) + '
        'struct.pack("<HHIQ", 1, 0, 0, 1 << 40)\n'
        'data = np.frombuffer(head + bytes(4096 - len(head)), dtype=np.uint8)\n'
        'with h5py.File(%r, "w") as f:\n'
        '    f["contiguous"] = data\n'
        '    f.create_dataset("chunked", data=data, chunks=(2048,))\n'
        '    f.attrs["s"] = "a string in a heap"\n' % lookalike)
    if run_h5py(tap, script, 'damaged heaps') is None:
        return
    for url in (lookalike, lookalike + '#mode=bytes'):
        rc, out, err = run([ncz_dump, url], timeout=60)
        ok = rc == 0 and ' contiguous = 71, 67, 79, 76, 1, 0,' in out.replace('\n', ' ') \
            and ' chunked = 71, 67, 79, 76, 1, 0,' in out.replace('\n', ' ') \
            and ':s = "a string in a heap" ;' in out
        tap.add(ok, 'raw data that starts like a heap collection is read as data (%s)' % url,
                [] if ok else ['exit %s: %s' % (rc, err.strip()[-400:])])


def check_damaged_vlen(tap, ncz_dump, work):
    """Variable-length values whose descriptor (length, global heap
    collection, object index: in the attribute's or variable's own data)
    does not match an object of the collection are refused before
    libhdf5 follows them (libhdf5 1.10.8 reads outside its table of
    objects for an index the collection does not have, and allocates
    what a damaged length says): an error naming the file, locally and
    through a store. The intact file reads."""
    good = os.path.join(work, 'vlen-intact.h5')
    script = (
        'import h5py, json\n'
        'with h5py.File(%r, "w") as f:\n'
        '    f.attrs["title"] = "hello world"\n'
        '    f.create_dataset("s", data=["alpha", "beta", "gamma"],\n'
        '                     dtype=h5py.string_dtype())\n'
        '    print(json.dumps(f["s"].id.get_offset()))\n' % good)
    out = run_h5py(tap, script, 'damaged variable-length values')
    if out is None:
        return
    dset = json.loads(out)
    data = open(good, 'rb').read()
    heap = data.find(b'GCOL')
    # the attribute's descriptor: 11 bytes in the collection, index unknown
    attr = data.find(struct.pack('<IQ', 11, heap))
    if heap < 0 or attr < 0 or dset is None:
        tap.add(False, 'damaged variable-length values: descriptors not found in %s' % good)
        return

    def variant(name, at, value):
        path = os.path.join(work, 'vlen-%s.h5' % name)
        with open(path, 'wb') as f:
            f.write(data[:at] + value + data[at + len(value):])
        return path

    # descriptor: length (4 bytes), collection address (8), index (4)
    cases = [
        (variant('index-huge', attr + 12, struct.pack('<I', 1381236737)),
         'names object 1381236737 of the global heap collection at offset %d, '
         'which has no such object' % heap),
        (variant('index-missing', attr + 12, struct.pack('<I', 200)),
         'names object 200 of the global heap collection at offset %d' % heap),
        (variant('length-huge', attr, struct.pack('<I', 0x7fffffff)),
         'a variable-length value of 2147483647 elements of 1 bytes names object'),
        (variant('length-longer', dset + 16, struct.pack('<I', 5)),
         'a variable-length value of 5 elements of 1 bytes names object'),
        (variant('no-collection', dset + 32 + 4, struct.pack('<Q', 48)),
         'names a global heap collection at offset 48, where there is none'),
    ]
    rc, out, err = run([ncz_dump, good], timeout=60)
    ok = rc == 0 and ':title = "hello world" ;' in out and \
        's = "alpha", "beta", "gamma" ;' in out
    tap.add(ok, 'variable-length values: the intact file reads',
            [] if ok else ['exit %s: %s%s' % (rc, out[-400:], err.strip()[-400:])])
    for path, expect in cases:
        for url in (path, path + '#mode=bytes'):
            rc, out, err = run([ncz_dump, url], timeout=60)
            ok = rc == 1 and expect in err and path in err
            tap.add(ok, 'damaged variable-length value %s: refused before libhdf5 follows it'
                    % url, [] if ok else ['exit %s: %s' % (rc, err.strip()[-600:])])


def main():
    ncz_dump = os.environ.get('NCZ_DUMP')
    selectors = []
    for a in sys.argv[1:]:
        if a.startswith('--ncz-dump='):
            ncz_dump = a.split('=', 1)[1]
        else:
            selectors.append(a)
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    if not ncz_dump or not ncdump or not ncgen:
        print('1..0 # SKIP ncz-dump, ncdump or ncgen missing')
        return 0
    known = [r for r in corpus_dump.parse_known(corpus_dump.KNOWN)
             if r['dataset'].startswith('cases/')]
    tap = Tap()
    work = tempfile.mkdtemp(prefix='ncz-hdf5-cases-')
    try:
        files = make_files(work, ncgen, selectors, tap)
        for name, path in files.items():
            if name == 'usertypes':
                check_usertypes(tap, ncz_dump, path)
                continue
            if name == 'h5py_badlinks':
                check_badlinks(tap, ncz_dump, path)
                continue
            for options in ('', '-s'):
                ok, desc, diag, directive = corpus_dump.compare(
                    'cases/' + name, path, options, ncdump, ncz_dump, known)
                tap.add(ok, desc, diag, directive)
        for name in ('atomic', 'groups', 'h5py_scales', 'filters'):
            if name in files:
                check_damaged(tap, ncz_dump, files[name], name, ncdump)
        if not selectors or 'heap' in selectors:
            check_damaged_heaps(tap, ncz_dump, work)
            check_damaged_vlen(tap, ncz_dump, work)
        if 'h5py_userblock' in files:
            path = files['h5py_userblock']
            rc1, local, err1 = run([ncz_dump, path])
            rc2, remote, err2 = run([ncz_dump, path + '#mode=bytes'])
            ok = rc1 == 0 and rc2 == 0 and local == remote and ' z =' in local and \
                ' c =' in local and ' unwritten =' in local
            tap.add(ok, 'h5py_userblock: read through a store (#mode=bytes) as read locally',
                    [] if ok else [str(rc1), err1.strip(), str(rc2), err2.strip()])
        if not selectors:
            for row in known:
                if not row['used']:
                    tap.add(False, 'KNOWN-DIFFERENCES.md line %d (%s %s) applies to no case'
                            % (row['line'], row['dataset'], row['options']))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.finish()


if __name__ == '__main__':
    sys.exit(main())
