#!/usr/bin/python3
# test-module-sources.py: the sources of every module and tool include
# no core private header (core/*-private.h): they are
# built as a third party would build them, against <ncz/ncz.h> and the
# module SDK <ncz/ncz-module.h>. The symbol check of the installed files
# (test-installed-symbols.py) cannot see a private header used only for
# its macros, inline functions or structure layouts; this test does. The
# build's config.h is noted, not refused.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdk_common  # noqa: E402

MODULE_DIRS = ['storage-drivers', 'backends', 'plugins', 'codec-registry', 'tools']
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)


def main():
    root = sys.argv[1]
    tap = sdk_common.Tap()
    core_private = {f for f in os.listdir(os.path.join(root, 'core'))
                    if f.endswith('-private.h')}
    tap.ok(len(core_private) > 0, 'core has %d private headers' % len(core_private))

    for top in MODULE_DIRS:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        # one group per module folder; files right in @top are one more
        groups = [(top, [os.path.join(base, f) for f in sorted(os.listdir(base))
                         if os.path.isfile(os.path.join(base, f))])]
        for sub in sorted(os.listdir(base)):
            folder = os.path.join(base, sub)
            if os.path.isdir(folder):
                paths = []
                for dirpath, dirs, files in os.walk(folder):
                    dirs.sort()
                    paths += [os.path.join(dirpath, f) for f in sorted(files)]
                groups.append((top + '/' + sub, paths))
        for name, paths in groups:
            paths = [p for p in paths if p.endswith(('.c', '.h'))]
            bad, notes = [], []
            for path in paths:
                with open(path, encoding='utf-8', errors='replace') as fp:
                    text = fp.read()
                for m in INCLUDE.finditer(text):
                    header = os.path.basename(m.group(1))
                    where = '%s:%d includes %s' % (os.path.relpath(path, root),
                                                   text.count('\n', 0, m.start()) + 1,
                                                   m.group(1))
                    if header in core_private:
                        bad.append(where)
                    elif header == 'config.h':
                        notes.append('note: %s (the core build\'s; NCZ_VERSION_STRING of '
                                     '<ncz/ncz-version.h> serves a module)' % where)
            if paths:
                tap.ok(not bad, '%s: %d files, no core private header' % (name, len(paths)),
                       bad + notes)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
