#!/usr/bin/python3
# test-out-of-tree.py: a codec module and a store module built outside
# Ncz's tree against the *installed* ncz-1.0.pc, loaded through
# NCZ_PLUGIN_PATH.
#
# Installs the build into a temporary DESTDIR; takes the compiler flags
# from `pkg-config --cflags --libs ncz-1.0` of that tree (its prefix
# moved into the DESTDIR; json-glib-1.0, which ncz-1.0.pc requires since
# codec configuration crosses the interface as a JsonObject, comes from
# the system's pkg-config path); builds out-of-tree/sdkxor-codec.c and
# out-of-tree/sdkdir-store.c as modules and out-of-tree/sdk-roundtrip.c
# as a program with nothing else on the command line; writes the modules'
# manifests with the installed ncz-inspect-1.0 --manifest; runs the
# program, which writes a dataset through the sdkdir store with the
# sdkxor codec, checks the bytes on disk and reads the values back, the
# NCZarr backend coming from the installed plugins directory; it also
# checks the codec's JsonObject configuration and kind, the store's
# "url"/"flags" properties and the store interface's defaults (ranged,
# paged, asynchronous calls), and opens the dataset from the store with
# a URL that names no format (the format found by its marker keys).
#
# SPDX-License-Identifier: BSD-3-Clause

import argparse
import configparser
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdk_common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
WARNINGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter',
            '-Wmissing-prototypes', '-Wstrict-prototypes']


def run(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env, cwd=cwd)
    return r.returncode, r.stdout


def pc_prefix(pc_path):
    with open(pc_path, encoding='utf-8') as fp:
        for line in fp:
            if line.startswith('prefix='):
                return line.split('=', 1)[1].strip()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True, nargs='+')
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--cc', required=True, help='the C compiler command, shell-quoted')
    ap.add_argument('--pkg-config', default='pkg-config')
    ap.add_argument('--sanitize', default='none')
    args = ap.parse_args()

    tap = sdk_common.Tap()
    tmp = tempfile.mkdtemp(prefix='ncz-sdk-oot-')
    try:
        destdir = os.path.join(tmp, 'destdir')
        err = sdk_common.meson_install(args.meson, args.builddir, destdir)
        if err:
            tap.bail(err)
        tap.ok(True, 'the build is installed into a temporary DESTDIR')
        inst = sdk_common.Install(destdir)
        if inst.pc is None or inst.libncz is None:
            tap.bail('no ncz-1.0.pc or libncz in the installed tree')
        libdir = os.path.dirname(inst.libncz)

        # pkg-config, from a copy of the installed ncz-1.0.pc whose prefix
        # is moved into the DESTDIR
        pcdir = os.path.join(tmp, 'pkgconfig')
        os.mkdir(pcdir)
        prefix = pc_prefix(inst.pc)
        with open(inst.pc, encoding='utf-8') as fp:
            pc_text = fp.read()
        with open(os.path.join(pcdir, 'ncz-1.0.pc'), 'w', encoding='utf-8') as fp:
            fp.write(pc_text.replace('prefix=' + prefix + '\n',
                                     'prefix=' + destdir + prefix + '\n', 1))
        env = dict(os.environ)
        env['PKG_CONFIG_PATH'] = pcdir
        pkg = [args.pkg_config]
        status, out = run(pkg + ['--print-requires', 'ncz-1.0'], env=env)
        requires = [line.split()[0] for line in out.splitlines() if line.strip()]
        tap.ok(status == 0 and 'json-glib-1.0' in requires,
               'ncz-1.0.pc requires json-glib-1.0 (the codec configuration type)',
               out.splitlines())
        status, out = run(pkg + ['--cflags', '--libs', 'ncz-1.0'], env=env)
        if not tap.ok(status == 0, 'pkg-config --cflags --libs ncz-1.0', out.splitlines()):
            return tap.done()
        flags = shlex.split(out)
        trees = [os.path.realpath(args.source_root), os.path.realpath(args.builddir)]
        leaks = [f for f in flags if f[:2] in ('-I', '-L') and
                 any(os.path.realpath(f[2:]).startswith(tree) for tree in trees)]
        tap.ok(any(f.startswith('-I' + destdir) for f in flags) and not leaks,
               'the flags name the installed headers and nothing of the source or build tree',
               [' '.join(flags)] + leaks)
        status, pluginsdir = run(pkg + ['--variable=pluginsdir', 'ncz-1.0'], env=env)
        pluginsdir = pluginsdir.strip()
        tap.ok(status == 0 and os.path.isfile(os.path.join(pluginsdir, 'nczarr.plugin')),
               'ncz-1.0.pc names the plugins directory, which holds the NCZarr backend',
               [pluginsdir])

        cc = shlex.split(args.cc)
        extra = ['-fsanitize=' + args.sanitize] if args.sanitize not in ('', 'none') else []
        modules = os.path.join(tmp, 'modules')
        os.mkdir(modules)
        built = {}
        for source, output, shared in [
                ('sdkxor-codec.c', 'libncz-codec-sdkxor.so', True),
                ('sdkdir-store.c', 'libncz-store-sdkdir.so', True),
                ('sdk-roundtrip.c', 'sdk-roundtrip', False)]:
            target = os.path.join(modules if shared else tmp, output)
            cmd = cc + WARNINGS + extra + (['-shared', '-fPIC'] if shared else []) + \
                ['-o', target, os.path.join(HERE, 'out-of-tree', source)] + flags
            status, out = run(cmd)
            tap.ok(status == 0, 'out-of-tree/%s builds (%s)' % (source, output),
                   [' '.join(cmd)] + out.splitlines() if status != 0 else [])
            built[source] = status == 0 and target
        if not all(built.values()):
            return tap.done()

        # manifests by the installed ncz-inspect-1.0
        inspect = inst.find('ncz-inspect-1.0')
        run_env = dict(os.environ)
        run_env['LD_LIBRARY_PATH'] = libdir
        manifest_env = dict(run_env, NCZ_PLUGIN_PATH='', NCZ_PLUGIN_SYSTEM_PATH='',
                            ASAN_OPTIONS='detect_leaks=0')
        for so, name, provides in [('libncz-codec-sdkxor.so', 'sdkxor',
                                    {'codec:sdkxor', 'hdf5-filter:300'}),
                                   ('libncz-store-sdkdir.so', 'sdkdir', {'store:sdkdir'})]:
            plugin = os.path.join(modules, name + '.plugin')
            status, out = run([inspect, '--manifest', os.path.join(modules, so), '-o', plugin],
                              env=manifest_env)
            got = set()
            if status == 0 and os.path.isfile(plugin):
                kf = configparser.ConfigParser(interpolation=None)
                kf.read(plugin)
                got = set(filter(None, kf.get('Plugin', 'Provides', fallback='').split(';')))
                module = kf.get('Plugin', 'Module', fallback='')
            tap.ok(status == 0 and got == provides and module == so,
                   'the installed ncz-inspect-1.0 writes %s.plugin: Provides=%s'
                   % (name, ';'.join(sorted(provides))),
                   out.splitlines() + ['Provides: ' + ';'.join(sorted(got))])

        # the program, the modules found by their manifests
        run_env['NCZ_PLUGIN_PATH'] = modules
        run_env['NCZ_PLUGIN_SYSTEM_PATH'] = pluginsdir
        data = os.path.join(tmp, 'data')
        os.mkdir(data)
        status, out = run([built['sdk-roundtrip.c'], data, modules], env=run_env)
        tap.ok(status == 0,
               'a dataset is written and read through the out-of-tree store and codec',
               out.splitlines())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
