#!/usr/bin/python3
# test-corpus-dump.py: ncz-dump against netCDF's ncdump over the netcdf-c corpus
#
# Every Zarr store of the corpus (zip files are unpacked to a temporary
# directory) is dumped by ncdump (netCDF 4.9.0 here) and by ncz-dump with
# the same URL, in the modes and with the options that apply to it. The
# outputs must be identical, unless KNOWN-DIFFERENCES.md lists the case:
# its table says what to compare instead (the header only, an expected
# CDL file of the corpus, ncdump's output with a correction applied, ...)
# and why ncdump is wrong there. When ncdump fails or crashes the case
# needs such an entry too.
#
# CDL samples written to NCZarr by ncgen (fixed ones, and random ones from
# fixed seeds) are compared the same way, with more options.
#
# Output is TAP; the exit status is non-zero when a case fails.
#
# Arguments: --ncz-dump=PATH (or NCZ_DUMP in the environment), then
# optional substrings selecting cases. Environment: NCZ_CORPUS_DIR (the
# shared corpus, containing netcdf-c/), NCDUMP and NCGEN (optional paths
# of the netCDF tools).
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.join(HERE, 'KNOWN-DIFFERENCES.md')
NCDUMP_TIMEOUT = 60
NCZ_TIMEOUT = 120
OPTION_SETS = ['', '-s']


class Case:
    def __init__(self, dataset, store, mode, options):
        self.dataset = dataset      # path of the zip or directory in the corpus
        self.store = store          # unpacked store directory
        self.mode = mode
        self.options = options      # '' or '-s'
        self.url = 'file://%s#mode=%s,file' % (store, mode)

    @property
    def name(self):
        return '%s mode=%s%s' % (self.dataset, self.mode,
                                 ' ' + self.options if self.options else '')


# ----------------------------------------------------------------------
# The table of known differences

def parse_known(path):
    """Rows of the table between the BEGIN/END markers of the file."""
    rows = []
    inside = False
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            # the ncz-gen table (known-differences-gen) is test-corpus-gen.py's
            if 'BEGIN known-differences' in line and 'known-differences-gen' not in line:
                inside = True
                continue
            if 'END known-differences' in line:
                inside = False
                continue
            if not inside or not line.startswith('|'):
                continue
            cells = [c.strip() for c in split_row(line.strip())]
            if len(cells) < 5 or cells[0] in ('dataset', '') or set(cells[0]) <= set('-:'):
                continue
            dataset, mode, options, action, reason = cells[:5]
            rows.append({
                'dataset': dataset.strip('`'),
                'mode': mode.strip('`'),
                'options': options.strip('`'),
                'action': action,
                'reason': reason,
                'line': lineno,
            })
    return rows


def split_row(line):
    """Cells of a Markdown table row; '\\|' is a literal bar."""
    cells, cur, i = [], '', 1
    while i < len(line):
        c = line[i]
        if c == '\\' and i + 1 < len(line) and line[i + 1] == '|':
            cur += '|'
            i += 2
            continue
        if c == '|':
            cells.append(cur)
            cur = ''
        else:
            cur += c
        i += 1
    return cells


def row_applies(row, case):
    if not fnmatch.fnmatchcase(case.dataset, row['dataset']):
        return False
    if row['mode'] not in ('*', case.mode):
        return False
    want = '' if row['options'] in ('-', 'none') else row['options']
    return row['options'] == '*' or want == case.options


def parse_action(action):
    """'a=b c d=e' -> [('a', 'b'), ('c', None), ('d', 'e')]; values may be
    quoted with backquotes to hold spaces; in contains= and error= values,
    \\n and \\t stand for a newline and a tab."""
    out = []
    for m in re.finditer(r'(\w[\w-]*)(?:=(?:`([^`]*)`|(\S+)))?', action):
        key = m.group(1)
        val = m.group(2) if m.group(2) is not None else m.group(3)
        if val is not None and key in ('contains', 'error'):
            val = val.replace('\\n', '\n').replace('\\t', '\t')
        out.append((key, val))
    return out


# ----------------------------------------------------------------------
# Running the tools

def run(argv, timeout):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stdout.decode('utf-8', 'surrogateescape'), \
            p.stderr.decode('utf-8', 'surrogateescape')
    except subprocess.TimeoutExpired:
        return 'timeout', '', 'timed out after %d s' % timeout


def describe_rc(rc):
    if rc == 'timeout':
        return 'timed out'
    if isinstance(rc, int) and rc < 0:
        return 'killed by signal %d' % -rc
    return 'exit status %s' % rc


def normalise_name_line(text):
    return re.sub(r'\Anetcdf [^\n]* \{\n', 'netcdf NAME {\n', text)


def normalise_whitespace(text):
    """What 'diff -b' ignores: amounts of blank space, trailing space."""
    return '\n'.join(re.sub(r'[ \t]+', ' ', l).rstrip() for l in text.split('\n'))


def unified(a, b, label_a, label_b, limit=60):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                      label_a, label_b, lineterm='', n=1))
    if len(lines) > limit:
        lines = lines[:limit] + ['... (%d more lines)' % (len(lines) - limit)]
    return lines


# ----------------------------------------------------------------------
# The corpus

def find_store(root):
    """The directory of a Zarr store below root: the first one holding
    group metadata; else the first whose subdirectories are arrays; else
    the first array."""
    def walk():
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            yield dirpath, dirnames, filenames
    for dirpath, dirnames, filenames in walk():
        if any(f in filenames for f in ('.zgroup', '.nczarr', '.zmetadata')):
            return dirpath
    for dirpath, dirnames, filenames in walk():
        if any(os.path.exists(os.path.join(dirpath, d, '.zarray')) for d in dirnames):
            return dirpath
    for dirpath, dirnames, filenames in walk():
        if '.zarray' in filenames:
            return dirpath
    return None


def is_pure_zarr(store):
    """No NCZarr metadata of any version."""
    if os.path.exists(os.path.join(store, '.nczarr')):
        return False
    for meta in ('.zgroup', '.zattrs'):
        p = os.path.join(store, meta)
        if os.path.exists(p):
            with open(p, 'rb') as f:
                text = f.read().decode('utf-8', 'replace').lower()
            if '_nczarr_superblock' in text:
                return False
    return True


def has_chunks(store):
    for dirpath, dirnames, filenames in os.walk(store):
        if any(not f.startswith('.') for f in filenames):
            return True
    return False


def unpack(corpus, work):
    """(dataset, store directory) for every store of the corpus."""
    found = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, corpus)
        for d in list(dirnames):
            if d.endswith('.zarr') or d.endswith('.file'):
                rel = os.path.normpath(os.path.join(rel_dir, d))
                found.append((rel, os.path.join(dirpath, d)))
                dirnames.remove(d)
        for f in sorted(filenames):
            rel = os.path.normpath(os.path.join(rel_dir, f))
            src = os.path.join(dirpath, f)
            if f.endswith('.zip'):
                dest = os.path.join(work, rel.replace('/', '__'))
                try:
                    with zipfile.ZipFile(src) as z:
                        z.extractall(dest)
                except zipfile.BadZipFile:
                    continue
                store = find_store(dest)
                if store:
                    found.append((rel, store))
            elif f.endswith('.tar.gz'):
                dest = os.path.join(work, rel.replace('/', '__'))
                with tarfile.open(src) as t:
                    t.extractall(dest)
                # each top-level entry is a dataset of its own
                for entry in sorted(os.listdir(dest)):
                    found.append(('%s/%s' % (rel, entry), os.path.join(dest, entry)))
    return found


def cases_for(dataset, store, known):
    modes = ['nczarr']
    if is_pure_zarr(store):
        modes.append('zarr')
    for row in known:
        if row['dataset'] == dataset and row['mode'] != '*' and row['mode'] not in modes:
            modes.append(row['mode'])
    return [Case(dataset, store, m, o) for m in modes for o in OPTION_SETS]


# ----------------------------------------------------------------------
# CDL samples: written to NCZarr stores with ncgen (netCDF 4.9.0 writes
# no scalars, strings or unlimited dimensions to NCZarr), then dumped by
# both tools. They pin the formatting rules the corpus does not reach.

SAMPLES = {}

SAMPLES['names'] = (r"""netcdf names {
dimensions:
  d = 2 ; \1lead = 1 ; a\ b = 1 ; x-y.z+w@v_u = 1 ;
variables:
  int data(d) ; data :x = 1 ;
  int variable(d) ; variable:units = "m" ;
  int dimensions(d) ; dimensions :units = "m" ;
  int v\!\"\#\$\&\'\(\)\*\,\:\;\<\=\>\[\\\]\^\`\{\|\}\~(d) ;
  int \1lead(\1lead) ;
  int é(a\ b) ; é:ü = "ö" ;
  short q(x-y.z+w@v_u) ;
  :a\ b = "c" ;
  :per_cent+1 = 1 ;
data:
  data = 1, 2 ; variable = 3, 4 ; dimensions = 5, 6 ; \1lead = 5 ; é = 6 ; q = 7 ;
}
""", ['', '-s', '-v data,é'])

SAMPLES['attributes'] = (r"""netcdf attributes {
dimensions: d = 1 ;
variables:
  int v(d) ;
  v:b = -128b, 127b, 0b ; v:ub = 0ub, 255ub ;
  v:s = -32768s, 32767s ; v:us = 65535us ;
  v:i = -2147483647, 2147483647 ; v:ui = 4294967295u ;
  v:i64 = -9223372036854775807ll, 9223372036854775807ll ;
  v:u64 = 18446744073709551615ull, 0ull ;
  v:f = 3.14159265f, 1.f, 0.1f, 1.e30f, 1.e-30f, 123456789.f, -0.f, 100000.f, 16777216.f ;
  v:fs = NaNf, Infinityf, -Infinityf ;
  v:dd = 3.5, 1., 0.1, 1.e300, -0., 100000., 1.e15, 1.e16, 0.25 ;
  v:ds = NaN, Infinity, -Infinity ;
  v:c = "a\"b\\c\nd\te'f\bg\fh\ri\177j é" ;
  v:empty = "" ;
  v:nul = "ab\000cd" ;
  :g = "global" ;
data:
  v = 1 ;
}
""", ['', '-s', '-p 3,8'])

SAMPLES['control-chars'] = (r"""netcdf control-chars {
  :vt = "a\vb" ;
  :soh = "a\001b\037c" ;
}
""", [''])

SAMPLES['chars'] = (r"""netcdf chars {
dimensions: n = 60 ; m = 2 ; k = 4 ; one = 1 ;
variables:
  char c(n) ; char c2(m, k) ; char c3(m, k, one) ; char c4(k) ;
data:
  c = "\001\002\t\n\v\f\r\033 !\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~\177\200\377" ;
  c2 = "ab\000d", "\000\000\000" ;
  c3 = "a", "b", "", "", "x", "y", "z", "\n" ;
  c4 = "\n\nab" ;
}
""", ['', '-s'])

SAMPLES['wrap'] = (r"""netcdf wrap {
dimensions: a = 2 ; b = 3 ; l = 31 ;
variables:
  int long1(l) ; int64 big(a, l) ; double dl(l) ; float fl(b, l) ;
  ubyte ub(l) ; short s(a, b, l) ;
data:
  long1 = 1000000, 1, 22, 333, 4444, 55555, 666666, 7777777, 88888888,
    999999999, 1000000, 1, 22, 333, 4444, 55555, 666666, 7777777, 88888888,
    999999999, 1000000, 1, 22, 333, 4444, 55555, 666666, 7777777, 88888888,
    999999999, -2147483647 ;
  big = -9223372036854775807, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    9223372036854775807, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 ;
  dl = 0.1, 1e-300, 1e300, -0.0, 3.141592653589793, 2.718281828459045, 1, 2,
    3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25 ;
  fl = 0.1, 1e-30, 1e30, 3.1415927, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    0.1, 1e-30, 1e30, 3.1415927, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    0.1, 1e-30, 1e30, 3.1415927, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27 ;
}
""", ['', '-s', '-l 50', '-p 3,5', '-h', '-v s,ub', '-n other'])

SAMPLES['groups'] = (r"""netcdf groups {
dimensions: d = 3 ; e = 2 ;
variables: int v(d) ; v:a = 1 ; int e(e) ;
:gatt = "x" ;
data: v = 1, 2, 3 ; e = 4, 5 ;
group: sub {
  dimensions: d = 2 ; x = 33 ;
  variables: int w(d) ; int u(x) ; int ww(/d) ; int www(e, d) ; int e(e) ;
    char c(d) ;
  :satt = 1 ;
  data: w = 1, 2 ; u = 1000000, 1000001, 1000002, 1000003, 1000004, 1000005,
    1000006, 1000007, 1000008, 1000009, 1000010, 1000011, 1000012, 1000013,
    1000014, 1000015, 1000016, 1000017, 1000018, 1000019, 1000020, 1000021,
    1000022, 1000023, 1000024, 1000025, 1000026, 1000027, 1000028, 1000029,
    1000030, 1000031, 1000032 ;
    ww = 7, 8, 9 ; e = 1, 2 ; c = "\nb" ;
  group: inner {
    dimensions: d = 5 ;
    variables: int z(d) ; int y(e) ; int q(/sub/d) ; char c(d) ; int data(e) ;
    data: z = 1, 2, 3, 4, 5 ; c = "ab\ncd" ; data = 1, 2 ;
  }
  group: empty { }
}
group: sib {
  variables: double d2(d) ;
  data: d2 = 1.5, 2.5, 3.5 ;
}
}
""", ['', '-s', '-c', '-h', '-v e', '-v sub/e,inner/z', '-v /sub/inner/z'])

SAMPLES['fill'] = (r"""netcdf fill {
dimensions: d = 4 ;
variables:
  byte b(d) ; byte bf(d) ; bf:_FillValue = 3b ;
  ubyte ub(d) ; ubyte ubf(d) ; ubf:_FillValue = 7ub ;
  short s(d) ; ushort us(d) ; int i(d) ; uint ui(d) ;
  int64 l(d) ; uint64 ul(d) ;
  float f(d) ; float fnan(d) ; fnan:_FillValue = NaNf ;
  double g(d) ; g:_FillValue = 1.5 ;
  double ginf(d) ; ginf:_FillValue = -Infinity ;
  float near(d) ; near:_FillValue = 1.f ;
  char c(d) ; int nf(d) ; nf:_NoFill = "true" ;
  int wrongtype(d) ; wrongtype:_FillValue = 5s ;
data:
  b = -127, _, 1, 2 ; bf = 3, _, 1, 2 ; ub = 255, _, 1, 2 ; ubf = 7, _, 1, 2 ;
  s = -32767, _, 1, 2 ; us = 65535, _, 1, 2 ; i = -2147483647, _, 1, 2 ;
  ui = 4294967295, _, 1, 2 ; l = -9223372036854775806, _, 1, 2 ;
  ul = 18446744073709551614, _, 1, 2 ; f = 9.96921e+36, _, NaN, 1 ;
  fnan = NaN, _, 0, 1 ; g = 1.5, _, 1.5000000000000002, 2 ;
  ginf = -Infinity, Infinity, _, 0 ; near = 1.0000001, 0.9999999, 1.0000002, 1 ;
  c = "a" ; nf = 1, 2, 3, 4 ; wrongtype = 5, _, 1, 2 ;
}
""", ['', '-s'])

SAMPLES['cformat'] = (r"""netcdf cformat {
dimensions: d = 3 ;
variables:
  float f(d) ; f:C_format = "%.3f" ;
  double g(d) ; g:C_format = "x=%8.2e%%" ;
  int i(d) ; i:C_format = "%05d" ;
  short s(d) ; s:C_format = "%x" ;
  ubyte u(d) ; u:C_format = "%3u|" ;
  double n(d) ; n:C_format = "%.2f" ;
data:
  f = 1.5, NaN, 3.25 ; g = 1e10, 2, -3 ; i = 1, -2, 3 ; s = -1, 255, 3 ;
  u = 1, 2, 255 ; n = NaN, Infinity, 0.125 ;
}
""", ['', '-p 4,6', '-p 4'])


def random_cdl(seed):
    """A random but valid CDL text: dimensions, variables of every type
    ncgen can write to NCZarr, attributes, data with fill values, groups."""
    import random
    r = random.Random(seed)
    ranges = {'byte': (-128, 127), 'ubyte': (0, 255), 'short': (-32768, 32767),
              'ushort': (0, 65535), 'int': (-2**31 + 1, 2**31 - 1), 'uint': (0, 2**32 - 1),
              'int64': (-2**63 + 1, 2**63 - 1), 'uint64': (0, 2**64 - 1)}
    suffix = {'byte': 'b', 'ubyte': 'ub', 'short': 's', 'ushort': 'us', 'int': '',
              'uint': 'u', 'int64': 'll', 'uint64': 'ull'}
    types = list(ranges) + ['float', 'double', 'char']
    used = set()

    def name():
        while True:
            n = r.choice('abcdefghijklmnopqrstuvwxyz') + ''.join(
                r.choice('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_')
                for _ in range(r.randint(0, 7)))
            if r.random() < 0.2 and len(n) > 1:
                k = r.randint(1, len(n) - 1)
                n = n[:k] + r.choice(' !#$&()*,:;<=>?[]^{|}~+-.@') + n[k:]
            if n not in used and n not in ('data', 'group', 'variables', 'dimensions', 'types'):
                used.add(n)
                return n

    def esc(n):
        return ''.join('\\' + c if c in ' !"#$&\'()*,:;<=>?[]\\^`{|}~' else c for c in n)

    def number(t):
        if t in ranges:
            lo, hi = ranges[t]
            k = r.random()
            return lo if k < 0.1 else hi if k < 0.2 else \
                r.randint(max(lo, -999), min(hi, 999)) if k < 0.6 else r.randint(lo, hi)
        k = r.random()
        if k < 0.05:
            return 'nan'
        if k < 0.1:
            return r.choice(['inf', '-inf'])
        if k < 0.3:
            return float(r.randint(-100, 100))
        if k < 0.5:
            return r.uniform(-1, 1)
        return r.choice([-1, 1]) * 10 ** r.uniform(-38 if t == 'float' else -300,
                                                   38 if t == 'float' else 300)

    def literal(v, t, attribute):
        if t in ranges:
            return '%d%s' % (v, suffix[t] if attribute else '')
        text = {'nan': 'NaN', 'inf': 'Infinity', '-inf': '-Infinity'}.get(v) or repr(float(v))
        return text + ('f' if attribute and t == 'float' else '')

    def text(maxlen):
        out = []
        for _ in range(r.randint(0, maxlen)):
            c = r.choice('abc xyz,;"\'\\\u00e9\u20ac')
            out.append({'"': '\\"', '\\': '\\\\'}.get(c, c))
        return ''.join(out)

    lines = ['netcdf random%d {' % seed]

    def group(depth, visible, indent):
        dims = [(name(), r.randint(1, 25)) for _ in range(r.randint(0, 3))]
        if dims:
            lines.append(indent + 'dimensions:')
            lines.extend(indent + '  %s = %d ;' % (esc(n), l) for n, l in dims)
        visible = visible + dims
        variables = []
        for _ in range(r.randint(0 if depth else 1, 4) if visible else 0):
            vd = [r.choice(visible) for _ in range(r.randint(1, min(3, len(visible))))]
            variables.append((r.choice(types), name(), vd))
        if variables:
            lines.append(indent + 'variables:')
        for t, n, vd in variables:
            lines.append(indent + '  %s %s(%s) ;' % (t, esc(n), ', '.join(esc(d[0]) for d in vd)))
            for _ in range(r.randint(0, 3)):
                at = r.choice(types)
                if at == 'char':
                    value = '"%s"' % text(20)
                else:
                    value = ', '.join(literal(number(at), at, True) for _ in range(r.randint(1, 4)))
                lines.append(indent + '    %s:%s = %s ;' % (esc(n), esc(name()), value))
            if t != 'char' and r.random() < 0.3:
                lines.append(indent + '    %s:_FillValue = %s ;' % (esc(n), literal(number(t), t, True)))
        for _ in range(r.randint(0, 2)):
            lines.append(indent + '  :%s = "%s" ;' % (esc(name()), text(20)))
        if variables:
            lines.append(indent + 'data:')
        for t, n, vd in variables:
            total = 1
            for d in vd:
                total *= d[1]
            if t == 'char':
                values = ['"%s"' % text(vd[-1][1]) for _ in range(total // vd[-1][1])]
            else:
                values = ['_' if r.random() < 0.1 else literal(number(t), t, False)
                          for _ in range(total)]
            lines.append(indent + ' %s = %s ;' % (esc(n), ', '.join(values)))
        if depth < 2:
            for _ in range(r.randint(0, 2) if depth == 0 else r.randint(0, 1)):
                lines.append(indent + 'group: %s {' % esc(name()))
                group(depth + 1, visible, indent + '  ')
                lines.append(indent + '}')

    group(0, [], '')
    lines.append('}')
    return '\n'.join(lines) + '\n'


RANDOM_SEEDS = range(1, 41)


def make_samples(work):
    """(dataset, store, option sets) of the CDL samples that ncgen writes."""
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    out = []
    if not ncgen:
        return out
    specs = [(n, cdl, opts) for n, (cdl, opts) in SAMPLES.items()]
    specs += [('random-%d' % seed, random_cdl(seed), ['', '-s']) for seed in RANDOM_SEEDS]
    base = os.path.join(work, 'samples')
    os.makedirs(base, exist_ok=True)
    for n, cdl, opts in specs:
        cdl_path = os.path.join(base, n + '.cdl')
        with open(cdl_path, 'w', encoding='utf-8') as f:
            f.write(cdl)
        store = os.path.join(base, n + '.file')
        rc, out_, err = run([ncgen, '-4', '-lb', '-o', 'file://%s#mode=nczarr,file' % store,
                             cdl_path], NCDUMP_TIMEOUT)
        if rc != 0 or not os.path.isdir(store):
            # ncgen 4.9.0 crashes on some valid CDL; such samples are left out
            continue
        out.append(('ncgen/' + n, store, opts))
    return out


# ----------------------------------------------------------------------
# One case

class Result:
    def __init__(self):
        self.ok = True
        self.todo = None
        self.skip = None
        self.note = ''
        self.diag = []


def ncgen_oracle(case, cdl_path, opts, work):
    """ncdump of a netCDF-4/HDF5 file made by ncgen from the CDL a store
    was made from: the dump the store should give."""
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    nc = os.path.join(work, 'oracle-%d.nc' % os.getpid())
    rc, out, err = run([ncgen, '-k', 'nc4', '-o', nc, cdl_path], NCDUMP_TIMEOUT)
    if rc != 0:
        return None, 'ncgen failed: %s %s' % (describe_rc(rc), err.strip())
    rc, out, err = run([ncdump] + opts + [nc], NCDUMP_TIMEOUT)
    os.unlink(nc)
    if rc != 0:
        return None, 'ncdump of the ncgen oracle failed: %s' % describe_rc(rc)
    return out, None


def run_case(case, known, corpus, ncz_dump, ncdump, work):
    r = Result()
    rows = [row for row in known if row_applies(row, case)]
    actions = []  # (key, value) in table order
    for row in rows:
        actions += parse_action(row['action'])
    keys = dict(actions)

    if 'skip' in keys:
        r.skip = keys['skip'] or next(row['reason'] for row in rows
                                      if any(k == 'skip' for k, v in parse_action(row['action'])))
        return r

    opts = case.options.split() if case.options else []
    if 'header-only' in keys or not has_chunks(case.store):
        opts = ['-h'] + opts

    rc, ncz_out, ncz_err = run([ncz_dump] + opts + [case.url], NCZ_TIMEOUT)

    if 'error' in keys:
        if rc == 0:
            r.ok = False
            r.note = 'ncz-dump succeeded but should fail with "%s"' % keys['error']
        elif rc == 'timeout' or (isinstance(rc, int) and rc < 0) or keys['error'] not in ncz_err:
            r.ok = False
            r.note = 'ncz-dump: %s, stderr %r; expected an error containing %r' % (
                describe_rc(rc), ncz_err.strip(), keys['error'])
        else:
            r.note = 'fails as expected: %s' % ncz_err.strip()
        return finish(r, keys, rows)

    if rc != 0:
        r.ok = False
        r.note = 'ncz-dump failed (%s): %s' % (describe_rc(rc), ncz_err.strip())
        return finish(r, keys, rows)

    if 'contains' in keys:
        # No tool gives a reference: the output must hold these lines
        missing = [val for key, val in actions if key == 'contains' and val not in ncz_out]
        if missing:
            r.ok = False
            r.note = 'ncz-dump output lacks %s' % ', '.join(repr(m) for m in missing)
            r.diag = ncz_out.splitlines()[:40]
        else:
            r.note = 'output has the expected lines'
        return finish(r, keys, rows)

    # The reference output
    label = 'ncdump'
    if 'expected' in keys:
        path = os.path.join(corpus, keys['expected'])
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            ref = f.read()
        label = keys['expected']
    elif 'oracle' in keys:
        ref, problem = ncgen_oracle(case, os.path.join(corpus, keys['oracle']), opts, work)
        if ref is None:
            r.ok = False
            r.note = problem
            return finish(r, keys, rows)
        label = 'ncgen+ncdump of ' + keys['oracle']
    else:
        nrc, ref, nerr = run([ncdump] + opts + [case.url], NCDUMP_TIMEOUT)
        if nrc != 0:
            r.ok = False
            r.note = 'ncdump failed (%s: %s) and KNOWN-DIFFERENCES.md gives no reference' % (
                describe_rc(nrc), nerr.strip().splitlines()[-1] if nerr.strip() else '')
            return finish(r, keys, rows)

    got = ncz_out
    for key, val in actions:
        if key == 'sub' and val:
            pattern, _, repl = val.partition('=>')
            ref = re.sub(pattern, repl, ref, flags=re.M)
        elif key == 'drop-ref' and val:
            ref = drop_lines(ref, val)
        elif key == 'drop-ncz' and val:
            got = drop_lines(got, val)
    if 'expected' in keys or 'oracle' in keys:
        # a file of another tool or version: its name line and, as netCDF's
        # own tests do (diff -b), amounts of white space do not count
        ref = normalise_whitespace(normalise_name_line(ref))
        got = normalise_whitespace(normalise_name_line(got))

    if ref == got:
        r.note = 'same as %s%s' % (label, ' (' + ' '.join(opts) + ')' if opts else '')
        return finish(r, keys, rows)
    r.ok = False
    r.note = 'output differs from %s' % label
    r.diag = unified(ref, got, label, 'ncz-dump')
    todo_drops = [val for key, val in actions if key == 'todo-drop' and val]
    if todo_drops:
        ref_d, got_d = ref, got
        for val in todo_drops:
            ref_d = drop_lines(ref_d, val)
            got_d = drop_lines(got_d, val)
        if ref_d == got_d:
            r.todo = '; '.join(row['reason'] for row in rows if 'todo-drop' in row['action'])
            r.note += ' only in lines of a known Ncz gap'
    return finish(r, keys, rows)


def drop_lines(text, pattern):
    return ''.join(l for l in text.splitlines(True) if not re.search(pattern, l))


def finish(r, keys, rows):
    if 'todo' in keys and not r.ok and not r.todo:
        r.todo = next((row['reason'] for row in rows
                       if any(k == 'todo' for k, v in parse_action(row['action']))), '')
    return r


# ----------------------------------------------------------------------

def tap_text(text):
    """One line of a TAP description. A '#' would start a directive (and
    hide a TODO after it from some harnesses): URLs get it %-encoded."""
    return ' '.join(text.split()).replace('#', '%23')


def main():
    args = sys.argv[1:]
    ncz_dump = os.environ.get('NCZ_DUMP')
    if args and args[0].startswith('--ncz-dump='):
        ncz_dump = args.pop(0).split('=', 1)[1]
    corpus_root = os.environ.get('NCZ_CORPUS_DIR',
                                 os.path.join(HERE, '..', '..', '..', 'shared', 'corpus'))
    corpus = os.path.join(corpus_root, 'netcdf-c')
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    selectors = args

    if not ncz_dump or not os.access(ncz_dump, os.X_OK):
        print('1..0 # SKIP NCZ_DUMP does not name the ncz-dump executable')
        return 0
    if not os.path.isdir(corpus):
        print('1..0 # SKIP no corpus at %s' % corpus)
        return 0
    if not ncdump:
        print('1..0 # SKIP ncdump (netcdf-bin) is not installed')
        return 0

    known = parse_known(KNOWN)
    work = tempfile.mkdtemp(prefix='ncz-corpus-dump-')
    try:
        datasets = unpack(corpus, work)
        cases = []
        for dataset, store in datasets:
            cases += cases_for(dataset, store, known)
        for dataset, store, option_sets in make_samples(work):
            cases += [Case(dataset, store, 'nczarr', o) for o in option_sets]
        if selectors:
            cases = [c for c in cases if any(s in c.name for s in selectors)]

        used = set()
        for row in known:
            for c in cases:
                if row_applies(row, c):
                    used.add(row['line'])

        print('1..%d' % (len(cases) + 1))
        failures = 0
        n = 0
        todo_rows = {row['line'] for row in known
                     if any(k in ('todo', 'todo-drop') for k, v in parse_action(row['action']))}
        todo_used = set()
        for case in cases:
            n += 1
            r = run_case(case, known, corpus, ncz_dump, ncdump, work)
            if r.skip:
                print('ok %d - %s # SKIP %s' % (n, tap_text(case.name), tap_text(r.skip)))
                continue
            if r.todo:
                todo_used.update(row['line'] for row in known if row_applies(row, case))
            status = 'ok' if r.ok else 'not ok'
            directive = ' # TODO %s' % tap_text(r.todo) if r.todo else ''
            print('%s %d - %s: %s%s' % (status, n, tap_text(case.name), tap_text(r.note),
                                        directive))
            for line in r.diag:
                print('#   ' + line)
            if not r.ok and not r.todo:
                failures += 1
            sys.stdout.flush()

        # Known Ncz bugs that no case shows any more: the rows can go
        fixed = sorted(todo_rows - todo_used)
        if fixed and not selectors:
            print('# KNOWN-DIFFERENCES.md: no case needs the todo row(s) at line(s) %s any more;'
                  ' remove them' % ', '.join(str(l) for l in fixed))

        # Every entry of the table must still be needed by some case
        n += 1
        stale = [row for row in known if row['line'] not in used]
        if stale and not selectors:
            print('not ok %d - KNOWN-DIFFERENCES.md entries match no case: %s' % (
                n, ', '.join('line %d (%s)' % (r['line'], r['dataset']) for r in stale)))
            failures += 1
        else:
            print('ok %d - every KNOWN-DIFFERENCES.md entry matches a case' % n)
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
