#!/usr/bin/python3
# Codec modules and the codec registry are built as a third party would
# build them: every ncz_ symbol they take from libncz must be declared in
# an installed header (public or module SDK), never NCZ_PRIVATE_API.
#
# usage: check-module-symbols.py NM HEADER_DIR... -- MODULE...
#
# SPDX-License-Identifier: BSD-3-Clause
import os
import re
import subprocess
import sys

args = sys.argv[1:]
nm = args[0]
split = args.index('--')
header_dirs = args[1:split]
modules = args[split + 1:]

declared = set()
private = set()
for d in header_dirs:
    for name in sorted(os.listdir(d)):
        if not name.endswith('.h'):
            continue
        text = open(os.path.join(d, name), encoding='utf-8').read()
        declared.update(re.findall(r'\b(ncz_[a-z0-9_]+)\s*\(', text))
        for decl in re.findall(r'NCZ_PRIVATE_API[^;]*;', text):
            private.update(re.findall(r'\b(ncz_[a-z0-9_]+)\s*\(', decl))

print('1..%d' % (len(modules) + 1))
ok = len(declared) > 100
print('%s 1 - the installed headers declare %d ncz_ functions' % ('ok' if ok else 'not ok', len(declared)))
failed = not ok
for i, module in enumerate(modules, start=2):
    out = subprocess.run([nm, '-D', '--undefined-only', module], check=True,
                         capture_output=True, text=True).stdout
    used = sorted({line.split()[-1] for line in out.splitlines()
                   if line.split() and line.split()[-1].startswith('ncz_')})
    bad = [s for s in used if s not in declared or s in private]
    name = os.path.basename(module)
    if bad:
        failed = True
        print('not ok %d - %s uses %s' % (i, name, ', '.join(bad)))
    else:
        print('ok %d - %s: %d ncz_ symbols, all in installed headers' % (i, name, len(used)))
sys.exit(1 if failed else 0)
