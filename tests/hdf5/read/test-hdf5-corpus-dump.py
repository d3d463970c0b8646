#!/usr/bin/python3
# test-hdf5-corpus-dump.py: ncz-dump against ncdump on netCDF-4/HDF5 files
#
# Every .cdl file below the corpus's netcdf-c/ folder (all version
# folders) that `ncgen -4` accepts is written to a netCDF-4 file, and that
# file, plus the corpus's HDF5 files (ref_groups.h5), is dumped by ncdump
# (netCDF 4.9.0 here) and by ncz-dump, plainly, with -s and with -h. The
# outputs must be identical, byte for byte, unless the HDF5 table of
# tests/interop/KNOWN-DIFFERENCES.md (between the "BEGIN hdf5-differences"
# and "END hdf5-differences" markers) lists the case, saying what to
# compare instead and why ncdump is wrong there. A row that applies to no
# case fails the test, so the table cannot go stale.
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
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.normpath(os.path.join(HERE, '..', '..', 'interop', 'KNOWN-DIFFERENCES.md'))
TIMEOUT = 120
OPTION_SETS = ['', '-s', '-h']
HDF5_FILES = ('.h5', '.nc', '.nc4', '.hdf5')


def parse_known(path):
    """Rows of the HDF5 table: dataset | options | action | reason."""
    rows = []
    inside = False
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            if 'BEGIN hdf5-differences' in line:
                inside = True
                continue
            if 'END hdf5-differences' in line:
                inside = False
                continue
            if not inside or not line.startswith('|'):
                continue
            cells = [c.strip() for c in split_row(line.strip())]
            if len(cells) < 4 or cells[0] in ('dataset', '') or set(cells[0]) <= set('-:'):
                continue
            rows.append({'dataset': cells[0].strip('`'), 'options': cells[1].strip('`'),
                         'action': cells[2], 'reason': cells[3], 'line': lineno,
                         'used': False})
    return rows


def split_row(line):
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


def parse_action(action):
    out = []
    for m in re.finditer(r'(\w[\w-]*)(?:=(?:`([^`]*)`|(\S+)))?', action):
        val = m.group(2) if m.group(2) is not None else m.group(3)
        out.append((m.group(1), val))
    return out


def row_applies(row, dataset, options):
    if not fnmatch.fnmatchcase(dataset, row['dataset']):
        return False
    want = '' if row['options'] in ('-', 'none') else row['options']
    return row['options'] == '*' or want == options


# ncgen and ncdump find HDF5 filter plugins (zstd, blosc, ...) in the peer
# build's plugin folder, so that CDL asking for them is written and read;
# ncz-dump runs without it (Ncz registers its own codecs with HDF5).
def shared_dir():
    corpus = os.environ.get('NCZ_CORPUS_DIR')
    if corpus:
        return os.path.dirname(os.path.normpath(corpus))
    return os.path.normpath(os.path.join(HERE, '..', '..', '..', '..', 'shared'))


def netcdf_env():
    env = dict(os.environ)
    plugins = os.path.join(shared_dir(), 'peers', 'netcdf-c-4.10.1', 'plugins')
    if os.path.isdir(plugins) and 'HDF5_PLUGIN_PATH' not in env:
        env['HDF5_PLUGIN_PATH'] = plugins
    return env


def ncz_env():
    env = dict(os.environ)
    env.pop('HDF5_PLUGIN_PATH', None)
    return env


def run(argv, timeout=TIMEOUT, env=None):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode('utf-8', 'surrogateescape'), \
            p.stderr.decode('utf-8', 'surrogateescape')
    except subprocess.TimeoutExpired:
        return 'timeout', '', 'timed out after %d s' % timeout


def unified(a, b, la, lb, limit=60):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), la, lb,
                                      lineterm='', n=1))
    if len(lines) > limit:
        lines = lines[:limit] + ['... (%d more lines)' % (len(lines) - limit)]
    return lines


def main():
    ncz_dump = os.environ.get('NCZ_DUMP')
    selectors = []
    for a in sys.argv[1:]:
        if a.startswith('--ncz-dump='):
            ncz_dump = a.split('=', 1)[1]
        else:
            selectors.append(a)
    corpus = os.path.join(shared_dir(), 'corpus', 'netcdf-c')
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    if not ncz_dump or not os.path.exists(ncz_dump):
        print('1..0 # SKIP ncz-dump not given')
        return 0
    if not ncdump or not ncgen or not os.path.isdir(corpus):
        print('1..0 # SKIP ncdump/ncgen or the corpus (%s) is missing' % corpus)
        return 0
    # rows for cases/... belong to test-hdf5-read-cases.py
    known = [r for r in parse_known(KNOWN) if not r['dataset'].startswith('cases/')]
    work = tempfile.mkdtemp(prefix='ncz-hdf5-corpus-')
    results = []   # (ok, description, diagnostics, directive)
    try:
        datasets = []
        for dirpath, dirnames, filenames in os.walk(corpus):
            dirnames.sort()
            for f in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, f), corpus)
                if f.endswith('.cdl') or f.endswith(HDF5_FILES):
                    datasets.append(rel)
        for rel in datasets:
            if selectors and not any(s in rel for s in selectors):
                continue
            src = os.path.join(corpus, rel)
            outdir = os.path.join(work, os.path.dirname(rel))
            os.makedirs(outdir, exist_ok=True)
            if rel.endswith('.cdl'):
                path = os.path.join(outdir, os.path.basename(rel)[:-4] + '.nc')
                rc, out, err = run([ncgen, '-4', '-o', path, src], env=netcdf_env())
                if rc != 0 or not os.path.exists(path):
                    results.append((True, '%s: ncgen -4 rejects it' % rel, [], 'SKIP'))
                    continue
            else:
                with open(src, 'rb') as f:
                    head = f.read(8)
                if head != b'\x89HDF\r\n\x1a\n':
                    continue
                path = os.path.join(outdir, os.path.basename(rel))
                shutil.copyfile(src, path)
            for options in OPTION_SETS:
                results.append(compare(rel, path, options, ncdump, ncz_dump, known))
        if not selectors:
            for row in known:
                if not row['used']:
                    results.append((False, 'KNOWN-DIFFERENCES.md line %d (%s %s) applies to '
                                    'no case' % (row['line'], row['dataset'], row['options']),
                                    [], None))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print('1..%d' % len(results))
    failed = 0
    for i, (ok, desc, diag, directive) in enumerate(results, 1):
        line = '%s %d - %s' % ('ok' if ok else 'not ok', i, desc)
        if directive:
            line += ' # ' + directive
        print(line)
        for d in diag:
            print('# ' + d)
        if not ok and not (directive or '').startswith('TODO'):
            failed += 1
    return 1 if failed else 0


def compare(rel, path, options, ncdump, ncz_dump, known):
    name = '%s%s' % (rel, ' ' + options if options else '')
    rows = [r for r in known if row_applies(r, rel, options)]
    actions = []
    for r in rows:
        r['used'] = True
        actions += parse_action(r['action'])
    keys = [k for k, v in actions]
    if 'skip' in keys:
        return (True, name, [], 'SKIP ' + '; '.join(r['reason'] for r in rows))
    opts = options.split()
    if 'header-only' in keys and '-h' not in opts:
        opts.append('-h')
    rc1, ref, err1 = run([ncdump] + opts + [path], env=netcdf_env())
    rc2, got, err2 = run([ncz_dump] + opts + [path], env=ncz_env())
    if rc2 != 0:
        return (False, name, ['ncz-dump failed (%s): %s' % (rc2, err2.strip())],
                'TODO known' if 'todo' in keys else None)
    if rc1 != 0:
        return (False, name, ['ncdump failed (%s): %s' % (rc1, err1.strip())], None)
    for k, v in actions:
        if k == 'sub' and v and '=>' in v:
            pat, repl = v.split('=>', 1)
            ref = re.sub(pat, repl.replace('\\n', '\n').replace('\\t', '\t'), ref,
                         flags=re.M)
        elif k == 'drop-ref' and v:
            ref = ''.join(l for l in ref.splitlines(True) if not re.search(v, l))
        elif k == 'drop-ncz' and v:
            got = ''.join(l for l in got.splitlines(True) if not re.search(v, l))
    if ref == got:
        stale = [r for r in rows if 'todo' in [k for k, v in parse_action(r['action'])]]
        if stale:
            # the gap a todo row names is closed: the row must go
            return (False, name, ['KNOWN-DIFFERENCES.md line %d says todo, but the outputs '
                                  'are equal now: remove the row' % r['line'] for r in stale],
                    None)
        return (True, name, [], None)
    diag = unified(ref, got, 'ncdump', 'ncz-dump')
    return (False, name, diag, 'TODO known Ncz gap' if 'todo' in keys else None)


if __name__ == '__main__':
    sys.exit(main())
