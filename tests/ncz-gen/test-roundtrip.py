#!/usr/bin/python3
# test-roundtrip.py: ncz-dump X | ncz-gen -o Y gives a Y that dumps as X
#
# X is written by ncz-gen from each .cdl file of the netcdf-c corpus and
# from docs/samples/sample.cdl (a file ncz-gen rejects is skipped with its
# message; the corpus test says which ones must be accepted). The CDL
# ncz-dump prints of X, with -s so chunking, filters, endianness and
# fill settings travel too, is fed to ncz-gen on standard input; then
# `ncz-dump Y` must equal `ncz-dump X`, plain and with -s.
#
# Usage: test-roundtrip.py --ncz-gen=PATH --ncz-dump=PATH [substring...]
# Environment: NCZ_CORPUS_DIR, NCZ_SOURCE_ROOT. Prints TAP.
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


def main():
    args = parse_args(sys.argv[1:], 'test-roundtrip.py')
    if args is None:
        return 1
    ncz_gen, ncz_dump, selectors = args

    inputs = [('docs/samples/sample.cdl', os.path.join(SOURCE_ROOT, 'docs', 'samples', 'sample.cdl'))]
    corpus = os.path.join(os.environ.get('NCZ_CORPUS_DIR', ''), 'netcdf-c')
    if os.path.isdir(corpus):
        found = []
        for dirpath, _, names in os.walk(corpus):
            for n in names:
                if n.endswith('.cdl'):
                    path = os.path.join(dirpath, n)
                    found.append((os.path.relpath(path, corpus), path))
        inputs += sorted(found)
    if selectors:
        inputs = [i for i in inputs if any(s in i[0] for s in selectors)]

    tmp = tempfile.mkdtemp(prefix='ncz-gen-roundtrip-')
    n = 0
    failed = 0
    out = []
    try:
        for rel, path in inputs:
            stem = os.path.splitext(os.path.basename(rel))[0]
            case_dir = os.path.join(tmp, rel.replace('/', '_'))
            x = os.path.join(case_dir, 'X', stem)
            y = os.path.join(case_dir, 'Y', stem)
            os.makedirs(os.path.dirname(x))
            os.makedirs(os.path.dirname(y))
            url_x = 'file://%s#mode=nczarr,file' % x
            url_y = 'file://%s#mode=nczarr,file' % y
            rc, _, err = run([ncz_gen, '-o', url_x, path])
            if rc != 0:
                for opts in ('', ' -s'):
                    n += 1
                    out.append('ok %d - %s%s # SKIP ncz-gen rejects it: %s' % (n, rel, opts, first_line(err)))
                continue
            rc, cdl, err = run([ncz_dump, '-s', url_x])
            rc2 = -1
            if rc == 0:
                rc2, _, err = run([ncz_gen, '-o', url_y, '-'], stdin=cdl.encode('utf-8'))
            for opts in ([], ['-s']):
                n += 1
                name = '%s%s' % (rel, ' -s' if opts else '')
                if rc != 0 or rc2 != 0:
                    failed += 1
                    out.append('not ok %d - %s' % (n, name))
                    out.append('# %s failed: %s' % ('ncz-dump X' if rc != 0 else 'ncz-gen Y', first_line(err)))
                    continue
                _, dx, _ = run([ncz_dump] + opts + [url_x])
                _, dy, ey = run([ncz_dump] + opts + [url_y])
                if dx == dy and dx:
                    out.append('ok %d - %s' % (n, name))
                else:
                    failed += 1
                    out.append('not ok %d - %s' % (n, name))
                    d = difflib.unified_diff(dx.splitlines(True), dy.splitlines(True), 'X', 'Y')
                    for line in list(d)[:40]:
                        out.append('# ' + line.rstrip('\n'))
                    if not dy:
                        out.append('# ncz-dump Y: ' + first_line(ey))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('1..%d' % n)
    print('\n'.join(out))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
