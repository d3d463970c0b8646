# gen_common.py: what the ncz-gen test scripts share
#
# SPDX-License-Identifier: BSD-3-Clause

import subprocess

TIMEOUT = 60


def run(argv, stdin=None, **kw):
    """(exit status, stdout, stderr) of argv; -999 when it timed out."""
    try:
        p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, **kw)
        return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return -999, '', 'timed out after %d s' % TIMEOUT


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ''


def parse_args(argv, script):
    """(ncz_gen, ncz_dump, selectors) from --ncz-gen=PATH --ncz-dump=PATH
    [substring...]; prints a TAP bail-out and returns None when a path
    is missing."""
    ncz_gen = ncz_dump = None
    selectors = []
    for arg in argv:
        if arg.startswith('--ncz-gen='):
            ncz_gen = arg.split('=', 1)[1]
        elif arg.startswith('--ncz-dump='):
            ncz_dump = arg.split('=', 1)[1]
        else:
            selectors.append(arg)
    if not ncz_gen or not ncz_dump:
        print('Bail out! usage: %s --ncz-gen=PATH --ncz-dump=PATH [substring...]' % script)
        return None
    return ncz_gen, ncz_dump, selectors
