# sdk_common.py: what the install-based SDK tests share: installing the
# build into a temporary DESTDIR, reading the installed headers, the
# dynamic symbols of installed files.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import re
import subprocess
import sys


class Tap:
    """A TAP stream: plan known at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, good, name, details=()):
        self.n += 1
        if not good:
            self.failed += 1
        print('%s %d - %s' % ('ok' if good else 'not ok', self.n, name))
        for line in details:
            print('# ' + line)
        sys.stdout.flush()
        return good

    def diag(self, text):
        for line in text.splitlines():
            print('# ' + line)

    def bail(self, text):
        print('Bail out! ' + text.replace('\n', ' '))
        sys.exit(1)

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def meson_install(meson, builddir, destdir):
    """Installs @builddir into @destdir quietly; returns the error text or
    None."""
    cmd = meson + ['install', '-C', builddir, '--destdir', destdir,
                   '--no-rebuild', '--quiet']
    env = dict(os.environ)
    # The manifests are made at build time; nothing installed runs here.
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if r.returncode != 0:
        return '%s failed (%d):\n%s' % (' '.join(cmd), r.returncode, r.stdout)
    return None


class Install:
    """Where things are in an installed tree."""

    def __init__(self, destdir):
        self.destdir = destdir
        self.pc = None
        self.libncz = None
        self.headers_dir = None
        self.modules = []
        self.tools = []
        for root, dirs, files in os.walk(destdir):
            dirs.sort()
            for f in sorted(files):
                path = os.path.join(root, f)
                if f == 'ncz-1.0.pc':
                    self.pc = path
                elif re.fullmatch(r'libncz-1\.0\.so\.\d+\.\d+\.\d+', f):
                    self.libncz = path
                elif f.endswith('.so') and not os.path.islink(path) and \
                        not f.startswith('libncz-1.0.'):
                    self.modules.append(path)
                elif os.path.basename(root) == 'bin' and os.access(path, os.X_OK):
                    self.tools.append(path)
            if root.endswith(os.path.join('include', 'ncz-1.0', 'ncz')):
                self.headers_dir = root

    def rel(self, path):
        return os.path.relpath(path, self.destdir)

    def find(self, name):
        for root, dirs, files in os.walk(self.destdir):
            if name in files:
                return os.path.join(root, name)
        return None


def strip_c(text):
    """Comments and preprocessor lines removed (continuations too)."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    return text


_EXPORT_MACROS = re.compile(r'\bNCZ_(?:AVAILABLE_IN_\w+|DEPRECATED_IN_\w+|MODULE_API)\b')


def declared_functions(header_texts):
    """Names of the functions the headers declare with an export macro
    (public: NCZ_AVAILABLE_IN_*, NCZ_DEPRECATED_IN_*; SDK:
    NCZ_MODULE_API), plus the *_get_type of G_DECLARE_* types. Returns
    (public, sdk, private): private are names declared NCZ_PRIVATE_API."""
    public, sdk, private = set(), set(), set()
    for text in header_texts:
        text = strip_c(text)
        for m in re.finditer(r'\bG_DECLARE_\w+\s*\(\s*\w+\s*,\s*(\w+)', text):
            public.add(m.group(1) + '_get_type')
        for statement in text.split(';'):
            is_private = re.search(r'\bNCZ_PRIVATE_API\b', statement)
            macro = _EXPORT_MACROS.search(statement)
            if not (macro or is_private) or re.search(r'\btypedef\b', statement):
                continue
            start = macro.end() if macro else is_private.end()
            m = re.search(r'\b([A-Za-z_]\w*)\s*\(', statement[start:])
            while m and re.fullmatch(r'G_\w+|NCZ_\w+', m.group(1)):
                # an attribute macro with arguments before the name
                rest = statement[start + m.end():]
                depth, i = 1, 0
                while i < len(rest) and depth:
                    depth += {'(': 1, ')': -1}.get(rest[i], 0)
                    i += 1
                start = start + m.end() + i
                m = re.search(r'\b([A-Za-z_]\w*)\s*\(', statement[start:])
            if not m:
                continue
            name = m.group(1)
            if is_private:
                private.add(name)
            elif macro.group(0) == 'NCZ_MODULE_API':
                sdk.add(name)
            else:
                public.add(name)
    return public, sdk, private


def read_headers(directory):
    texts = {}
    for f in sorted(os.listdir(directory)):
        if f.endswith('.h'):
            with open(os.path.join(directory, f), encoding='utf-8') as fp:
                texts[f] = fp.read()
    return texts


def dynamic_symbols(nm, path, undefined):
    flag = '--undefined-only' if undefined else '--defined-only'
    r = subprocess.run([nm, '-D', flag, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError('%s -D %s %s: %s' % (nm, flag, path, r.stderr.strip()))
    names = set()
    for line in r.stdout.splitlines():
        fields = line.split()
        if not fields:
            continue
        if not undefined and len(fields) >= 2 and fields[-2] not in 'TtDdBbRrVvWwiu':
            continue
        names.add(fields[-1].split('@')[0])
    return names
