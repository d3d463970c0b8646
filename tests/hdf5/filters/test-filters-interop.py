#!/usr/bin/python3
# test-filters-interop.py: netCDF-4 files using zstd, blosc, bzip2 and lz4
# between Ncz (its codecs registered with libhdf5 as filters, no
# HDF5_PLUGIN_PATH), h5py and the netcdf-c peer builds
#
# One CDL text (make_cdl() below) names a variable per filter chain, with
# `_Filter` (and `_Shuffle`, `_ChunkSizes`). It is written
#   - by `ncz-gen` with HDF5_PLUGIN_PATH unset (the Ncz file), and again
#     with libhdf5's plugin loading off (HDF5_PLUGIN_PRELOAD="::"), so
#     that even the filters Debian's plugin folder would give libhdf5 are
#     Ncz's registered ones, and
#   - by each peer's `ncgen -4` with HDF5_PLUGIN_PATH set to the peer's
#     plugins, then Debian's plugin folder (lz4 comes from Debian's
#     hdf5-filter-plugin: the peers have none) (the peer's file).
# Then:
#   1. h5py reads the Ncz files with Debian's hdf5-filter-plugin libraries
#      (HDF5_PLUGIN_PATH=Debian's folder): every variable Debian has the
#      filters of has those filter ids, and the values of the CDL;
#   2. h5py reads them with each peer's plugins (then Debian's folder):
#      every variable, the same;
#   3. each peer's `ncdump` (plain and -s, _NCProperties aside) of the Ncz
#      files equals its ncdump of its own file, but for blosc's stored
#      parameters (BLOSC_PARAMS below);
#   4. `ncz-dump` (plain and -s), HDF5_PLUGIN_PATH unset, of each peer's
#      file equals that peer's ncdump of it, also with libhdf5's plugin
#      loading off.
# Missing programs or modules skip their checks; exit 77 when nothing can
# run at all.
#
# Usage: test-filters-interop.py --ncz-gen=PATH --ncz-dump=PATH
# Environment: NCZ_CORPUS_DIR (the shared corpus; the peers are beside it
# in ../peers), HDF5_FILTER_PLUGIN_DIR (Debian's plugin folder, default
# /usr/lib/x86_64-linux-gnu/hdf5/serial/plugins). Prints TAP.
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120
NX, NY = 12, 20

# (variable, CDL type, numpy type, special attributes, HDF5 filter ids)
VARIABLES = [
    ('zstd', 'int', 'i4', ['_Filter = "32015,3"'], [32015]),
    ('blosc', 'float', 'f4', ['_Filter = "32001,0,0,0,0,5,1,1"'], [32001]),
    ('bzip2', 'short', 'i2', ['_Filter = "307,9"'], [307]),
    ('lz4', 'int', 'i4', ['_Filter = "32004"'], [32004]),
    ('shuffle_zstd', 'double', 'f8', ['_Shuffle = "true"', '_Filter = "32015,1"'], [2, 32015]),
    ('bzip2_deflate', 'int', 'i4', ['_Filter = "307,5|1,2"'], [307, 1]),
]


# The parameters HDF5's blosc filter stores are made by its set_local:
# [filter version, blosc format version, type size, chunk bytes, clevel,
# shuffle, compressor]. Ncz's blosc module, like hdf5-blosc (h5py,
# Debian's libH5Zblosc), writes both versions as 2; netcdf-c's blosc
# plugin keeps the 0, 0 its users give. Either form reads with either
# library (checks 2 and 4), so only `ncdump -s` shows the difference.
BLOSC_PARAMS = ('blosc:_Filter = "32001,2,2,', 'blosc:_Filter = "32001,0,0,')


def values(i, ctype):
    """The data of variable number i, as CDL numbers."""
    out = []
    for k in range(NX * NY):
        v = (k // 3) * (i + 1) - 50
        if ctype in ('float', 'double'):
            out.append('%g' % (v * 0.25))
        else:
            out.append('%d' % v)
    return out


def make_cdl():
    lines = ['netcdf codecs {', 'dimensions:', '\tx = %d ;' % NX, '\ty = %d ;' % NY,
             'variables:']
    for name, ctype, _, attrs, _ in VARIABLES:
        lines.append('\t%s %s(x, y) ;' % (ctype, name))
        lines.append('\t\t%s:_ChunkSizes = 6, 10 ;' % name)
        for a in attrs:
            lines.append('\t\t%s:%s ;' % (name, a))
    lines.append('data:')
    for i, (name, ctype, _, _, _) in enumerate(VARIABLES):
        lines.append('\n %s = %s ;' % (name, ', '.join(values(i, ctype))))
    lines.append('}')
    return '\n'.join(lines) + '\n'


def run(argv, env=None):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, env=env)
        return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return -999, '', 'timed out after %d s' % TIMEOUT


def env_with(plugin_path, loading_off=False):
    """The environment with HDF5_PLUGIN_PATH set to @plugin_path or unset;
    @loading_off turns libhdf5's plugin loading off (HDF5_PLUGIN_PRELOAD
    "::"), so that only filters registered in the process are found."""
    env = dict(os.environ)
    env.pop('HDF5_PLUGIN_PATH', None)
    env.pop('HDF5_PLUGIN_PRELOAD', None)
    if plugin_path is not None:
        env['HDF5_PLUGIN_PATH'] = plugin_path
    if loading_off:
        env['HDF5_PLUGIN_PRELOAD'] = '::'
    return env


def without_ncproperties(text):
    return ''.join(l for l in text.splitlines(True) if not l.lstrip().startswith(':_NCProperties = '))


def diff(a, b, la, lb):
    return ''.join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), la, lb))[:40])


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, good, what, detail=''):
        self.n += 1
        print('%s %d - %s' % ('ok' if good else 'not ok', self.n, what))
        if not good:
            self.failed += 1
            for line in detail.rstrip().splitlines():
                print('#   ' + line)
        sys.stdout.flush()

    def skip(self, what, reason):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, what, reason))
        sys.stdout.flush()


# Run in a child python, so that HDF5_PLUGIN_PATH is read by its libhdf5:
# prints {variable: {"filters": [ids], "values": [...]} or {"error": ...}}.
H5PY_READER = r'''
import json, sys
import h5py
out = {}
with h5py.File(sys.argv[1], 'r') as f:
    for name in sys.argv[2:]:
        try:
            ds = f[name]
            plist = ds.id.get_create_plist()
            ids = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
            out[name] = {'filters': ids, 'values': [float(v) for v in ds[...].ravel()]}
        except Exception as e:
            out[name] = {'error': str(e).splitlines()[0] if str(e) else type(e).__name__}
print(json.dumps(out))
'''


def check_h5py(tap, label, path, plugin_path, names):
    rc, out, err = run([sys.executable, '-c', H5PY_READER, path] + names, env_with(plugin_path))
    if rc != 0:
        tap.ok(False, '%s: h5py opens the file' % label, err)
        return
    got = json.loads(out)
    for i, (name, ctype, _, _, ids) in enumerate(VARIABLES):
        if name not in names:
            continue
        r = got.get(name, {'error': 'missing'})
        if 'error' in r:
            tap.ok(False, '%s: %s' % (label, name), r['error'])
            continue
        expected = [float(v) for v in values(i, ctype)]
        good = r['filters'] == ids and r['values'] == expected
        tap.ok(good, '%s: %s (filters %s)' % (label, name, ids),
               'filters %s; values equal: %s' % (r['filters'], r['values'] == expected))


def h5_filter_available(plugin_path, ids):
    """Which of @ids libhdf5 (h5py's) finds with @plugin_path."""
    code = ('import json, sys, h5py\n'
            'print(json.dumps([i for i in %r if h5py.h5z.filter_avail(i)]))\n' % (ids,))
    rc, out, _ = run([sys.executable, '-c', code], env_with(plugin_path))
    return set(json.loads(out)) if rc == 0 else set()


def main():
    args = dict(a[2:].split('=', 1) for a in sys.argv[1:] if a.startswith('--') and '=' in a)
    ncz_gen, ncz_dump = args.get('ncz-gen'), args.get('ncz-dump')
    if not ncz_gen or not ncz_dump or not os.access(ncz_gen, os.X_OK) or not os.access(ncz_dump, os.X_OK):
        print('1..0 # SKIP ncz-gen and ncz-dump are needed (--ncz-gen=, --ncz-dump=)')
        return 77
    corpus = os.environ.get('NCZ_CORPUS_DIR', '')
    peers_dir = os.path.normpath(os.path.join(corpus, '..', 'peers')) if corpus else ''
    peers = []
    for v in ('4.9.2', '4.9.3', '4.10.1'):
        d = os.path.join(peers_dir, 'netcdf-c-' + v)
        if peers_dir and all(os.access(os.path.join(d, 'bin', p), os.X_OK) for p in ('ncgen', 'ncdump')):
            peers.append((v, d))
    debian = os.environ.get('HDF5_FILTER_PLUGIN_DIR',
                            '/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins')
    if not os.path.isdir(debian):
        debian = None
    try:
        import h5py  # noqa: F401
        have_h5py = True
    except ImportError:
        have_h5py = False
    if not peers and not have_h5py:
        print('1..0 # SKIP neither the netcdf-c peers (%s) nor h5py are here' % peers_dir)
        return 77

    tap = Tap()
    tmp = tempfile.mkdtemp(prefix='ncz-filters-interop-')
    try:
        cdl = os.path.join(tmp, 'codecs.cdl')
        with open(cdl, 'w') as f:
            f.write(make_cdl())
        names = [v[0] for v in VARIABLES]

        # The Ncz files, without HDF5_PLUGIN_PATH: as libhdf5 is set up
        # (Debian's plugin folder may give it blosc, bzip2 and lz4 itself),
        # and with libhdf5's plugin loading off (every filter Ncz's own).
        ncz_files = []
        for label, off in (('Ncz file', False), ('Ncz file (HDF5 plugin loading off)', True)):
            path = os.path.join(tmp, 'ncz-off' if off else 'ncz', 'codecs.nc')
            os.makedirs(os.path.dirname(path))
            rc, _, err = run([ncz_gen, '-o', path, cdl], env_with(None, off))
            tap.ok(rc == 0, 'ncz-gen writes the %s with zstd, blosc, bzip2, lz4 without '
                   'HDF5_PLUGIN_PATH' % label, err)
            if rc == 0:
                ncz_files.append((label, path))

        # 1. h5py with Debian's plugins, for the variables whose filters it has
        if not have_h5py:
            tap.skip('h5py reads the Ncz files', 'h5py is not installed')
        elif not debian:
            tap.skip('h5py reads the Ncz files with Debian\'s plugins', 'no folder %s' % debian)
        else:
            avail = h5_filter_available(debian, [307, 32001, 32004, 32015])
            some = [v[0] for v in VARIABLES if all(i < 256 or i in avail for i in v[4])]
            for v in VARIABLES:
                if v[0] not in some:
                    tap.skip('h5py (Debian\'s plugins): %s' % v[0],
                             'Debian\'s %s has no library for filter %s' %
                             (debian, [i for i in v[4] if i >= 256 and i not in avail]))
            for label, path in ncz_files:
                if some:
                    check_h5py(tap, 'h5py (Debian\'s plugins), %s' % label, path, debian, some)

        for version, peer in peers:
            plugins = os.path.join(peer, 'plugins')
            path = plugins + (':' + debian if debian else '')
            peer_label = 'netcdf-c-' + version

            # 2. h5py with the peer's plugins
            if have_h5py:
                for label, ncz_file in ncz_files:
                    check_h5py(tap, 'h5py (%s plugins), %s' % (peer_label, label), ncz_file,
                               path, names)

            # the peer's own file of the same CDL
            peer_file = os.path.join(tmp, version, 'codecs.nc')
            os.makedirs(os.path.dirname(peer_file))
            rc, _, err = run([os.path.join(peer, 'bin', 'ncgen'), '-4', '-b', '-o', peer_file, cdl],
                             env_with(path))
            if rc != 0:
                tap.ok(False, '%s ncgen writes the CDL' % peer_label, err)
                continue
            ncdump = os.path.join(peer, 'bin', 'ncdump')

            # 3. the peer's ncdump of the Ncz files
            for label, ncz_file in ncz_files:
                for opts in ([], ['-s']):
                    what = '%s ncdump %sof the %s' % (peer_label, ' '.join(opts) + ' ' if opts else '',
                                                     label)
                    rc1, ref, err1 = run([ncdump] + opts + [peer_file], env_with(path))
                    rc2, got, err2 = run([ncdump] + opts + [ncz_file], env_with(path))
                    ref, got = without_ncproperties(ref), without_ncproperties(got)
                    if opts:
                        tap.ok(BLOSC_PARAMS[0] in got,
                               what + ': blosc\'s parameters as hdf5-blosc stores them (2, 2, ...)',
                               got)
                        got = got.replace(BLOSC_PARAMS[0], BLOSC_PARAMS[1])
                    good = rc1 == 0 and rc2 == 0 and ref == got
                    tap.ok(good, what + ' equals its dump of its own file',
                           err1 + err2 + diff(ref, got, peer_label, 'ncz'))

            # 4. ncz-dump of the peer's file, without HDF5_PLUGIN_PATH, as
            # libhdf5 is set up and with its plugin loading off
            for off in (False, True):
                for opts in ([], ['-s']):
                    what = 'ncz-dump %sof the %s file%s' % (' '.join(opts) + ' ' if opts else '',
                                                          peer_label,
                                                          ' (HDF5 plugin loading off)' if off else '')
                    rc1, ref, err1 = run([ncdump] + opts + [peer_file], env_with(path))
                    rc2, got, err2 = run([ncz_dump] + opts + [peer_file], env_with(None, off))
                    good = rc1 == 0 and rc2 == 0 and ref == got
                    tap.ok(good, what + ' equals the peer\'s ncdump',
                           err1 + err2 + diff(ref, got, peer_label, 'ncz-dump'))
        if not peers:
            tap.skip('the netcdf-c peers', 'none in %s' % peers_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print('1..%d' % tap.n)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
