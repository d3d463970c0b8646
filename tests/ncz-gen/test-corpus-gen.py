#!/usr/bin/python3
# test-corpus-gen.py: ncz-gen against netCDF's ncgen over the corpus CDL files
#
# For every .cdl file of the netcdf-c corpus that ncgen (netCDF 4.9.0)
# accepts, the file is written to NCZarr twice, by ncgen into store A and
# by ncz-gen into store B (same basename, so the dumps carry the same
# dataset name). Then:
#   1. `ncdump A` must equal `ncz-dump B`;
#   2. `ncz-dump A` must equal `ncz-dump B`, plain and with -s.
# A file ncgen rejects (or crashes on) is skipped with ncgen's reason.
# Where netCDF 4.9.0 is wrong -- ncdump crashes on or misreads the store
# ncgen wrote, or ncgen writes something other than the CDL says -- the
# comparison concerned is excused by a row of
# tests/interop/KNOWN-DIFFERENCES.md (its ncz-gen table: file, check, reason); a row that
# no longer excuses anything is reported too.
#
# Usage: test-corpus-gen.py --ncz-gen=PATH --ncz-dump=PATH [substring...]
# Environment: NCZ_CORPUS_DIR (the shared corpus, containing netcdf-c/),
# NCGEN and NCDUMP (optional paths of the netCDF tools). Prints TAP.
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_common import first_line, parse_args, run  # noqa: E402
SOURCE_ROOT = os.environ.get('NCZ_SOURCE_ROOT', os.path.dirname(os.path.dirname(HERE)))
KNOWN = os.path.join(SOURCE_ROOT, 'tests', 'interop', 'KNOWN-DIFFERENCES.md')
CHECKS = ('ncdump', 'ncz-dump', 'ncz-dump -s')


def parse_known(path):
    """{(file, check): reason} from the table between the markers."""
    rows = {}
    inside = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if 'BEGIN known-differences-gen' in line:
                inside = True
                continue
            if 'END known-differences-gen' in line:
                inside = False
                continue
            if not inside or not line.startswith('|'):
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if len(cells) < 3 or cells[0] in ('file', '') or set(cells[0]) <= set('-: '):
                continue
            name, check, reason = cells[0].strip('`'), cells[1].strip('`'), cells[2]
            if check not in CHECKS:
                raise SystemExit('%s: unknown check %r for %s' % (path, check, name))
            rows[(name, check)] = reason
    return rows


def without_ncproperties(text):
    """_NCProperties names the library that wrote the dataset: never equal."""
    return ''.join(l for l in text.splitlines(True) if not l.lstrip().startswith(':_NCProperties = '))


def diff(a, b, la, lb):
    return ''.join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), la, lb))[:40])


def main():
    args = parse_args(sys.argv[1:], 'test-corpus-gen.py')
    if args is None:
        return 1
    ncz_gen, ncz_dump, selectors = args
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    corpus = os.path.join(os.environ.get('NCZ_CORPUS_DIR', ''), 'netcdf-c')
    if not ncgen or not ncdump or not os.path.isdir(corpus):
        print('1..0 # SKIP ncgen/ncdump or the corpus (NCZ_CORPUS_DIR) not available')
        return 0

    known = parse_known(KNOWN)
    used = set()
    files = []
    for dirpath, _, names in os.walk(corpus):
        for n in names:
            if n.endswith('.cdl'):
                rel = os.path.relpath(os.path.join(dirpath, n), corpus)
                if not selectors or any(s in rel for s in selectors):
                    files.append(rel)
    files.sort()

    tmp = tempfile.mkdtemp(prefix='ncz-gen-corpus-')
    n = 0
    failed = 0
    out = []
    try:
        for rel in files:
            src = os.path.join(corpus, rel)
            stem = os.path.splitext(os.path.basename(rel))[0]
            case_dir = os.path.join(tmp, rel.replace('/', '_'))
            a = os.path.join(case_dir, 'A', stem)
            b = os.path.join(case_dir, 'B', stem)
            os.makedirs(os.path.dirname(a))
            os.makedirs(os.path.dirname(b))
            url_a = 'file://%s#mode=nczarr,file' % a
            url_b = 'file://%s#mode=nczarr,file' % b

            rc, _, err = run([ncgen, '-4', '-lb', '-o', url_a, src], cwd=case_dir)
            if rc != 0:
                why = first_line(err) or ('exit status %d' % rc)
                if rc < 0 and rc != -999:
                    why = 'ncgen crashed (signal %d)' % -rc
                for check in CHECKS:
                    n += 1
                    out.append('ok %d - %s %s # SKIP ncgen 4.9.0 rejects it: %s' % (n, rel, check, why))
                continue

            rc, _, err = run([ncz_gen, '-4', '-lb', '-o', url_b, src], cwd=case_dir)
            if rc != 0:
                for check in CHECKS:
                    n += 1
                    failed += 1
                    out.append('not ok %d - %s %s' % (n, rel, check))
                    out.append('# ncz-gen failed (%d): %s' % (rc, first_line(err)))
                continue

            _, dump_b, err_b = run([ncz_dump, url_b])
            _, dump_bs, err_bs = run([ncz_dump, '-s', url_b])
            results = {}
            rc, ref, err = run([ncdump, url_a])
            results['ncdump'] = (rc == 0 and ref == dump_b, ref, dump_b,
                                 'ncdump failed (%d): %s' % (rc, first_line(err)) if rc != 0 else '')
            rc, ref, err = run([ncz_dump, url_a])
            results['ncz-dump'] = (rc == 0 and ref == dump_b, ref, dump_b,
                                   'ncz-dump A failed: %s' % first_line(err) if rc != 0 else '')
            rc, ref, err = run([ncz_dump, '-s', url_a])
            ref = without_ncproperties(ref)
            dump_bs = without_ncproperties(dump_bs)
            results['ncz-dump -s'] = (rc == 0 and ref == dump_bs, ref, dump_bs,
                                      'ncz-dump -s A failed: %s' % first_line(err) if rc != 0 else '')
            for check in CHECKS:
                n += 1
                same, ref, got, why = results[check]
                reason = known.get((rel, check))
                if reason is not None:
                    used.add((rel, check))
                if same and reason is None:
                    out.append('ok %d - %s %s' % (n, rel, check))
                elif same:
                    failed += 1
                    out.append('not ok %d - %s %s' % (n, rel, check))
                    out.append('# identical now: remove its KNOWN-DIFFERENCES.md row')
                elif reason is not None:
                    out.append('ok %d - %s %s # known difference: %s' % (n, rel, check, reason))
                else:
                    failed += 1
                    out.append('not ok %d - %s %s' % (n, rel, check))
                    if why:
                        out.append('# ' + why)
                    for line in diff(ref, got, 'netCDF store (A)', 'ncz-gen store (B)').splitlines():
                        out.append('# ' + line)
                    if not got:
                        out.append('# ncz-dump B: %s' % first_line(err_b or err_bs))
        if not selectors:
            for key in sorted(set(known) - used):
                n += 1
                failed += 1
                out.append('not ok %d - KNOWN-DIFFERENCES.md row %s %s matches no case'
                           % (n, key[0], key[1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('1..%d' % n)
    print('\n'.join(out))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
