#!/usr/bin/python3
# test-installed-python.py: the Python layer as a user gets it from
# `meson install`: the build is installed into a temporary DESTDIR and
# Debian's python3 is run with nothing of the build tree on its paths.
#  - the override, the package ncz and its entry point land in a
#    directory this python3 searches once DESTDIR is dropped (sys.path);
#  - `import ncz` writes and reads a dataset through the installed
#    extension, typelib, library and modules;
#  - xarray finds engine "ncz" through the installed entry point alone.
#
# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_common import Tap, meson_install  # noqa: E402

PYTHON = '/usr/bin/python3'

PROGRAM = r'''
import sys
import numpy as np
import ncz
url = "file://%s#mode=nczarr,file" % sys.argv[1]
with ncz.open(url, "w") as ds:
    ds.create_dimension("x", 6)
    v = ds.create_variable("v", "f4", ("x",), fill_value=-1.0)
    v[...] = np.arange(6, dtype="f4")
    v[2] = -1.0
with ncz.open(url) as ds:
    a = ds["v"][...]
    print("masked", int(a.mask.sum()), "mean", float(a.mean()))
print("module", ncz.__file__)
import importlib.metadata as md
eps = [e for e in md.entry_points(group="xarray.backends") if e.name == "ncz"]
print("entry", eps[0].value if eps else None)
import xarray as xr
d = xr.open_dataset(url, engine="ncz")
print("xarray", float(d["v"].sum()))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True)
    ap.add_argument('--builddir', required=True)
    args = ap.parse_args()
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix='ncz-pyinst-') as tmp:
        destdir = os.path.join(tmp, 'root')
        err = meson_install(args.meson.split(), args.builddir, destdir)
        if err:
            tap.bail(err)
        overrides = site = typelib_dir = libdir = None
        plugin_dirs = set()
        for root, dirs, files in os.walk(destdir):
            for f in files:
                if f == 'Ncz.py' and root.endswith(os.path.join('gi', 'overrides')):
                    overrides = root
                    site = os.path.dirname(os.path.dirname(root))
                elif f.startswith('Ncz-') and f.endswith('.typelib'):
                    typelib_dir = root
                elif f.startswith('libncz-1.0.so'):
                    libdir = root
                elif f.endswith('.plugin'):
                    plugin_dirs.add(root)
        if not tap.ok(overrides is not None and typelib_dir and libdir,
                      'the override, the typelib and libncz are installed'):
            return tap.done()
        installed_site = '/' + os.path.relpath(site, destdir)
        tap.ok(os.path.isdir(os.path.join(site, 'ncz')) and
               os.path.isfile(os.path.join(site, 'ncz-1.0.dist-info', 'entry_points.txt')),
               'the package ncz and ncz-1.0.dist-info are beside gi/overrides',
               ['site: ' + installed_site])
        path = subprocess.run([PYTHON, '-c', 'import sys; print("\\n".join(sys.path))'],
                              capture_output=True, text=True).stdout.split()
        tap.ok(installed_site in path,
               '%s is on %s\'s sys.path' % (installed_site, PYTHON), path)

        env = dict(os.environ)
        env.pop('PYTHONPATH', None)
        env['PYTHONPATH'] = site
        env['GI_TYPELIB_PATH'] = typelib_dir
        env['LD_LIBRARY_PATH'] = libdir
        env['NCZ_PLUGIN_SYSTEM_PATH'] = ''
        env['NCZ_PLUGIN_PATH'] = os.pathsep.join(sorted(plugin_dirs))
        r = subprocess.run([PYTHON, '-c', PROGRAM, os.path.join(tmp, 'd.zarr')],
                           capture_output=True, text=True, env=env, cwd=tmp)
        out = r.stdout.splitlines()
        details = out + r.stderr.splitlines()[-15:]
        tap.ok(r.returncode == 0 and 'masked 1 mean 2.6' in out,
               'the installed layer writes and reads a masked variable', details)
        tap.ok(any(l.startswith('module ' + site) for l in out),
               'ncz is imported from the installed tree', details)
        tap.ok('entry ncz.xarray_backend:NczBackendEntrypoint' in out,
               'the installed entry point names the xarray engine', details)
        tap.ok('xarray 13.0' in out,
               'xr.open_dataset(engine="ncz") reads through the installed engine', details)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
