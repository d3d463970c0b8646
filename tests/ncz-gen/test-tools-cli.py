#!/usr/bin/python3
# test-tools-cli.py: the command line of the four tools (ncz-gen,
# ncz-copy, ncz-dump, ncz-inspect-1.0): --help prints the usage on
# standard output and exits 0, --version prints "TOOL (Ncz) X.Y.Z" (the
# project's version) and exits 0, an unknown option fails with the tool's
# usual status and a hint on standard error. Then what ncz-gen leaves
# behind when the CDL has an error: nothing at a path that did not exist,
# an existing dataset byte for byte, and no message about removing
# anything.
#
# Usage: test-tools-cli.py VERSION NCZ_GEN NCZ_COPY NCZ_DUMP NCZ_INSPECT
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_common import run  # noqa: E402

n_tests = 0
n_failed = 0


def ok(cond, what, detail=''):
    global n_tests, n_failed
    n_tests += 1
    if cond:
        print('ok %d - %s' % (n_tests, what))
    else:
        n_failed += 1
        print('not ok %d - %s' % (n_tests, what))
        for line in str(detail).splitlines()[:20]:
            print('# ' + line)


def snapshot(root):
    """{relative path: (is_dir, bytes or None, mode)} of everything under root."""
    tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if os.path.isdir(path):
                tree[rel] = (True, None, st.st_mode)
            else:
                with open(path, 'rb') as f:
                    tree[rel] = (False, f.read(), st.st_mode)
    return tree


GOOD_CDL = ('netcdf x {\ndimensions:\n d = 2 ;\nvariables:\n int v(d) ;\n  v:a = "t" ;\n'
            'data:\n v = 7, 8 ;\n}\n')
# fails in its data section, after the model was defined
BAD_CDL = ('netcdf x {\ndimensions:\n d = 3 ;\nvariables:\n int w(d) ;\n'
           'data:\n w = 1, 2,, ;\n}\n')
# fails while the model is defined
BAD_MODEL_CDL = 'netcdf x {\nvariables:\n int w(nodim) ;\n}\n'


def main(argv):
    if len(argv) != 6:
        print('Bail out! usage: test-tools-cli.py VERSION NCZ_GEN NCZ_COPY NCZ_DUMP NCZ_INSPECT')
        return 1
    version = argv[1]
    tools = [
        # (name in --version, executable, status of an unknown option)
        ('ncz-gen', argv[2], 1),
        ('ncz-copy', argv[3], 1),
        ('ncz-dump', argv[4], 1),
        ('ncz-inspect-1.0', argv[5], 2),
    ]
    print('TAP version 13')

    for name, exe, bad_status in tools:
        rc, out, err = run([exe, '--help'])
        ok(rc == 0 and out.strip() != '' and err == '',
           '%s --help: usage on standard output, status 0' % name,
           'status %d\nstdout: %s\nstderr: %s' % (rc, out[:300], err))
        ok('--help' in out and '--version' in out,
           '%s --help mentions --help and --version' % name, out)

        rc, out, err = run([exe, '--version'])
        want = '%s (Ncz) %s' % (name, version)
        ok(rc == 0 and out.splitlines()[:1] == [want] and err == '',
           '%s --version prints %r, status 0' % (name, want),
           'status %d\nstdout: %s\nstderr: %s' % (rc, out, err))

        rc, out, err = run([exe, '--no-such-option'])
        ok(rc == bad_status and out == '' and '--no-such-option' in err and
           ('--help' in err or 'sage' in err),
           '%s --no-such-option: status %d, the option named and a hint on standard error'
           % (name, bad_status),
           'status %d\nstdout: %s\nstderr: %s' % (rc, out, err))

    gen = tools[0][1]
    rc, out, err = run([gen, '-h'])
    ok(rc == 0 and out.startswith('Usage: ncz-gen'), 'ncz-gen -h is --help', err)

    tmp = tempfile.mkdtemp(prefix='ncz-tools-cli-')
    try:
        good = os.path.join(tmp, 'good.cdl')
        with open(good, 'w') as f:
            f.write(GOOD_CDL)
        for label, text in (('data', BAD_CDL), ('model', BAD_MODEL_CDL)):
            bad = os.path.join(tmp, 'bad-%s.cdl' % label)
            with open(bad, 'w') as f:
                f.write(text)
            out_dir = os.path.join(tmp, 'out-%s' % label)
            os.mkdir(out_dir)

            # a path that does not exist, nor does its parent
            for form in ('url', 'path'):
                target = os.path.join(out_dir, 'new-%s' % form, 'x.zarr')
                arg = ('file://%s#mode=nczarr,file' % target) if form == 'url' else target
                rc, out, err = run([gen, '-o', arg, bad])
                ok(rc == 1 and 'bad-%s.cdl:' % label in err,
                   'ncz-gen, bad CDL (%s) into a new %s: status 1, the error at its line' % (label, form),
                   'status %d\nstderr: %s' % (rc, err))
                ok('remove' not in err, 'ncz-gen, bad CDL (%s) into a new %s: no word of removing'
                   % (label, form), err)
                ok(os.listdir(out_dir) == [],
                   'ncz-gen, bad CDL (%s) into a new %s: nothing left behind' % (label, form),
                   repr(os.listdir(out_dir)))

            # an existing dataset stays byte for byte
            url = 'file://%s#mode=nczarr,file' % os.path.join(out_dir, 'old.zarr')
            rc, out, err = run([gen, '-o', url, good])
            ok(rc == 0, 'ncz-gen writes the good CDL', err)
            before = snapshot(out_dir)
            rc, out, err = run([gen, '-o', url, bad])
            ok(rc == 1 and 'remove' not in err,
               'ncz-gen, bad CDL (%s) over an existing dataset: status 1, no word of removing'
               % label, 'status %d\nstderr: %s' % (rc, err))
            after = snapshot(out_dir)
            ok(before == after and len(before) > 3,
               'ncz-gen, bad CDL (%s) over an existing dataset: left byte for byte' % label,
               'before: %s\nafter: %s' % (sorted(before), sorted(after)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print('1..%d' % n_tests)
    return 1 if n_failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
