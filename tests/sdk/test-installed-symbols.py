#!/usr/bin/python3
# test-installed-symbols.py: every installed module and tool uses only
# symbols that the installed headers declare.
#
# Installs the build into a temporary DESTDIR, reads the function names
# the installed <ncz/*.h> declare (public API and module SDK), and checks
# with `nm -D --undefined-only` that every symbol an installed module
# (every .so but libncz itself: the plugins directory, the HDF5 plugin
# directory, ...) or tool (bin/) takes from libncz, and every ncz_/Ncz
# symbol it needs, is one of them. A symbol that is not names the file
# and says what the symbol is: NCZ_PRIVATE_API in which core private
# header, exported by libncz but declared by no installed header, or not
# exported at all. Also: no installed header declares NCZ_PRIVATE_API
# functions, and every SDK and public function the headers declare is
# exported by libncz.
#
# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdk_common  # noqa: E402


def private_declarations(source_root):
    """NCZ_PRIVATE_API names of the core's private headers, by header."""
    where = {}
    core = os.path.join(source_root, 'core')
    for f in sorted(os.listdir(core)):
        if not f.endswith('-private.h'):
            continue
        with open(os.path.join(core, f), encoding='utf-8') as fp:
            _, _, private = sdk_common.declared_functions([fp.read()])
        for name in private:
            where[name] = 'core/' + f
    return where


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True, nargs='+')
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--nm', default='nm')
    args = ap.parse_args()

    tap = sdk_common.Tap()
    tmp = tempfile.mkdtemp(prefix='ncz-sdk-symbols-')
    try:
        err = sdk_common.meson_install(args.meson, args.builddir, tmp)
        if err:
            tap.bail(err)
        inst = sdk_common.Install(tmp)
        if inst.libncz is None or inst.headers_dir is None:
            tap.bail('no libncz-1.0.so.X.Y.Z or include/ncz-1.0/ncz in the installed tree')

        headers = sdk_common.read_headers(inst.headers_dir)
        public, sdk, private_in_installed = sdk_common.declared_functions(headers.values())
        declared = public | sdk
        tap.ok(len(public) > 100 and len(sdk) > 20,
               'the installed headers declare %d public and %d module SDK functions'
               % (len(public), len(sdk)))
        tap.ok(not private_in_installed,
               'no installed header declares an NCZ_PRIVATE_API function',
               sorted(private_in_installed))

        exported = sdk_common.dynamic_symbols(args.nm, inst.libncz, undefined=False)
        private_where = private_declarations(args.source_root)
        missing = sorted(n for n in declared if n not in exported)
        tap.ok(not missing,
               'libncz exports every function the installed headers declare',
               ['declared but not exported: ' + n for n in missing])

        files = inst.modules + inst.tools
        tap.ok(len(inst.modules) >= 3 and len(inst.tools) >= 4,
               '%d installed modules and %d installed tools found'
               % (len(inst.modules), len(inst.tools)))

        private_users = {}
        for path in files:
            undefined = sdk_common.dynamic_symbols(args.nm, path, undefined=True)
            needs = sorted(s for s in undefined
                           if s in exported or re.match(r'(?:ncz_|Ncz|NCZ_)', s))
            bad = []
            for s in needs:
                if s in declared:
                    continue
                if s in private_where:
                    why = 'NCZ_PRIVATE_API, declared in %s' % private_where[s]
                    private_users.setdefault(s, []).append(inst.rel(path))
                elif s in exported:
                    why = 'exported by libncz but declared in no installed header'
                else:
                    why = 'not exported by libncz'
                bad.append('%s uses %s (%s)' % (inst.rel(path), s, why))
            tap.ok(not bad,
                   '%s: the %d libncz symbols it uses are declared in installed headers'
                   % (inst.rel(path), len(needs)), bad)

        exported_private = sorted(n for n in private_where if n in exported)
        tap.diag('libncz exports %d NCZ_PRIVATE_API functions (for tests): %s'
                 % (len(exported_private), ' '.join(exported_private)))
        tap.ok(not private_users,
               'no installed module or tool uses an NCZ_PRIVATE_API export of libncz',
               ['%s: %s' % (s, ', '.join(users)) for s, users in sorted(private_users.items())])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
