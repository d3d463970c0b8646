#!/usr/bin/python3
# test-write-interop.py: netCDF-4 files written by Ncz's HDF5 backend,
# read by netcdf-c, HDF5's tools, h5py and xarray
#
# Every CDL file of tests/hdf5/write/cases and every .cdl of the netcdf-c
# corpus that ncgen (netCDF 4.9.0) accepts is written twice, by
# `ncgen -4` (reference) and by `ncz-gen` (which creates a .nc path as
# netCDF-4 through the HDF5 backend), under the same basename. Then, for
# the file Ncz wrote:
#   1. `ncdump` equals `ncdump` of the reference;
#   2. `ncdump -s` equals the reference's but for _NCProperties, which
#      names Ncz ("version=2,ncz=VERSION,hdf5=VERSION");
#   3. `h5dump` reads it (exit 0);
#   4. `ncdump -s` of every netcdf-c peer build (../shared/peers) equals
#      that peer's ncdump -s of the reference, _NCProperties aside;
#   5. h5py sees the same HDF5 objects as in the reference: the same
#      groups and datasets, types, shapes, values, attributes (dimension
#      scale references compared by the names they point to);
#   6. xarray (engine h5netcdf, else netcdf4) opens every group of it
#      with values and attributes identical to the reference's.
# Where the reference is wrong (ncgen 4.9.0 stores something else than
# the CDL says), the check is excused by KNOWN below with the reason; a
# row that no longer excuses anything fails.
# Last, a creation that fails leaves the file that was at the path as it
# was.
#
# Usage: test-write-interop.py --ncz-gen=PATH [substring...]
# Environment: NCZ_CORPUS_DIR (the shared corpus, containing netcdf-c/
# and, beside it, ../peers), NCGEN, NCDUMP, H5DUMP (optional paths).
# Prints TAP.
#
# SPDX-License-Identifier: BSD-3-Clause

import difflib
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 120

# (file basename, check) -> why the reference is not what the CDL says
KNOWN = {
    ('ref_nulls', 'ncdump'):
        "ncgen 4.9.0 stores the char constant '\\0' of the untyped attributes nul_sng "
        "and nul0 as 48b (the digit '0'); Ncz stores 0b, as netcdf-c's own baseline "
        "ref_nulls_nczarr.baseline (4.9.3) says",
    ('ref_nulls', 'ncdump -s'):
        "ncgen 4.9.0 stores '\\0' as 48b (see the ncdump row)",
    ('ref_nulls', 'h5py'):
        "ncgen 4.9.0 stores '\\0' as 48b (see the ncdump row)",
    ('ref_nulls', 'xarray'):
        "ncgen 4.9.0 stores '\\0' as 48b (see the ncdump row)",
    ('ref_nulls', 'ncdump -s of netcdf-c-4.9.2'): "'\\0' as 48b (see the ncdump row)",
    ('ref_nulls', 'ncdump -s of netcdf-c-4.9.3'): "'\\0' as 48b (see the ncdump row)",
    ('ref_nulls', 'ncdump -s of netcdf-c-4.10.1'): "'\\0' as 48b (see the ncdump row)",
    ('ref_string', 'ncdump -s of netcdf-c-4.9.2'): "char data of c (see the ncdump row)",
    ('ref_string', 'ncdump -s of netcdf-c-4.9.3'): "char data of c (see the ncdump row)",
    ('ref_string', 'ncdump -s of netcdf-c-4.10.1'): "char data of c (see the ncdump row)",
    ('ref_string', 'ncdump'):
        "the data `c = \"a\", \"b\"` of char c(d2): ncgen 4.9.0 concatenates the "
        "strings (\"ab\"), ncz-gen pads each string to the last dimension and keeps "
        "the first (\"a\"), the same for every format ncz-gen writes",
    ('records', 'h5py'):
        "netcdf-c leaves a variable never written (both) at extent 0 along its unlimited "
        "dimensions; Ncz extends every variable along an unlimited dimension to the "
        "dimension's length at sync; ncdump and xarray show the same fill values",
    ('ref_string', 'ncdump -s'): "char data of c (see the ncdump row)",
    ('ref_string', 'h5py'): "char data of c (see the ncdump row)",
    ('ref_string', 'xarray'): "char data of c (see the ncdump row)",
}


def run(argv, **kw):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, **kw)
        return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return -999, '', 'timed out after %d s' % TIMEOUT


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ''


def diff(a, b, la, lb):
    return ''.join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), la, lb))[:40])


def without_ncproperties(text):
    return ''.join(l for l in text.splitlines(True) if not l.lstrip().startswith(':_NCProperties = '))


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

    def excused_key(self, name, label, check, good, detail):
        """A check KNOWN excuses: it must still differ."""
        reason = KNOWN[(name, check)]
        if good:
            self.ok(False, '%s: %s (KNOWN row no longer needed)' % (label, check),
                    'the known difference is gone: remove its row: ' + reason)
        else:
            self.n += 1
            print('ok %d - %s: %s (known difference: %s)' % (self.n, label, check, reason))


# ---- h5py: the HDF5 objects ----

def h5_objects(path):
    """{name: description} of every group and dataset, with attributes;
    references shown as the names they point to."""
    import h5py
    import numpy as np

    def value(v, f):
        if isinstance(v, h5py.Reference):
            return ('ref', f[v].name if v else None)
        if isinstance(v, np.ndarray):
            if v.dtype.kind == 'O' or v.dtype.names:
                return tuple(value(x, f) for x in v.tolist()) if v.dtype.kind == 'O' else \
                    tuple(tuple(value(y, f) for y in x) for x in v.tolist())
            if v.dtype.kind == 'f':
                return ('f', v.dtype.str, v.shape, tuple(np.where(np.isnan(v), 'nan', v.astype(str)).ravel().tolist()))
            return (v.dtype.str, v.shape, v.tobytes())
        if isinstance(v, (list, tuple)):
            return tuple(value(x, f) for x in v)
        if isinstance(v, bytes):
            return v
        if isinstance(v, h5py.Empty):
            # an empty char attribute: Ncz writes a null dataspace, ncgen one
            # NUL character; both are the empty text for netCDF
            return b''
        if isinstance(v, float) and v != v:
            return 'nan'
        return v

    out = {}
    with h5py.File(path, 'r') as f:
        def visit(name, obj):
            attrs = {}
            for k in obj.attrs.keys():
                if k == '_NCProperties':
                    continue
                try:
                    raw = obj.attrs.get_id(k)
                    attrs[k] = (str(raw.dtype), raw.shape, value(obj.attrs[k], f))
                except (OSError, TypeError) as e:
                    attrs[k] = ('unreadable', str(e))
            if isinstance(obj, h5py.Dataset):
                dcpl = obj.id.get_create_plist()
                desc = ('dataset', str(obj.dtype), obj.shape, obj.maxshape, obj.chunks,
                        obj.compression, obj.compression_opts, obj.shuffle, obj.fletcher32,
                        dcpl.get_fill_time(), attrs)
                if dcpl.get_fill_time() == h5py.h5d.FILL_TIME_NEVER:
                    data = 'no fill: not compared'
                else:
                    data = value(obj[()], f) if obj.size else ()
                out[name] = desc + (data,)
            else:
                out[name] = ('group', attrs)
        out['/'] = ('group', {k: value(f.attrs[k], f) for k in f.attrs.keys() if k != '_NCProperties'})
        f.visititems(visit)
    return out


def compare_h5(ref, ncz):
    try:
        a = h5_objects(ref)
        b = h5_objects(ncz)
    except Exception as e:  # noqa: BLE001 -- reported as the check's failure
        return False, 'h5py failed: %s: %s' % (type(e).__name__, e)
    problems = []
    for name in sorted(set(a) | set(b)):
        if name not in b:
            problems.append('%s: missing' % name)
        elif name not in a:
            problems.append('%s: not in the reference' % name)
        elif a[name] != b[name]:
            problems.append('%s:\n  reference %r\n  ncz       %r' % (name, a[name], b[name]))
    return not problems, '\n'.join(problems[:10])


# ---- xarray ----

def xarray_engine():
    for module, engine in (('h5netcdf', 'h5netcdf'), ('netCDF4', 'netcdf4')):
        try:
            __import__(module)
            return engine
        except ImportError:
            pass
    return None


def group_paths(path):
    import h5py
    groups = ['/']
    with h5py.File(path, 'r') as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Group):
                groups.append('/' + name)
        f.visititems(visit)
    return groups


def compare_xarray(ref, ncz, engine):
    """(True/False/None, detail): None when xarray cannot open netcdf-c's
    own file either."""
    import xarray as xr
    problems = []
    for group in group_paths(ref):
        try:
            a = xr.open_dataset(ref, engine=engine, group=group).load()
        except Exception as e:  # noqa: BLE001 -- xarray's own limits
            return None, 'xarray cannot open group %s of the reference: %s: %s' % (
                group, type(e).__name__, first_line(str(e)))
        try:
            b = xr.open_dataset(ncz, engine=engine, group=group).load()
        except Exception as e:  # noqa: BLE001
            problems.append('group %s: %s: %s' % (group, type(e).__name__, e))
            continue
        for ds in (a, b):
            ds.attrs.pop('_NCProperties', None)
        try:
            xr.testing.assert_identical(a, b)
        except AssertionError as e:
            problems.append('group %s: %s' % (group, str(e)[:2000]))
        a.close()
        b.close()
    return not problems, '\n'.join(problems)


# ---- one CDL file ----

def check_cdl(tap, cdl, name, label, tools, work):
    ncgen, ncdump, h5dump, ncz_gen, peers, engine = tools
    ref_dir = os.path.join(work, 'ref')
    ncz_dir = os.path.join(work, 'ncz')
    ref = os.path.join(ref_dir, name + '.nc')
    ncz = os.path.join(ncz_dir, name + '.nc')
    for p in (ref, ncz):
        if os.path.exists(p):
            os.unlink(p)
    st, _, err = run([ncgen, '-4', '-o', ref, cdl])
    if st != 0 or not os.path.exists(ref):
        tap.skip(label, 'ncgen -4 rejects it: ' + first_line(err))
        return
    st, _, err = run([ncz_gen, '-o', ncz, cdl])
    tap.ok(st == 0 and os.path.exists(ncz), '%s: ncz-gen writes it' % label, err)
    if st != 0:
        return

    def check(check_name, good, detail):
        if (name, check_name) in KNOWN:
            tap.excused_key(name, label, check_name, good, detail)
        else:
            tap.ok(good, '%s: %s' % (label, check_name), detail)

    st1, a, e1 = run([ncdump, ref])
    st2, b, e2 = run([ncdump, ncz])
    check('ncdump', st1 == 0 and st2 == 0 and a == b,
          e1 + e2 + diff(a, b, 'ncgen -4', 'ncz-gen'))
    st1, a, e1 = run([ncdump, '-s', ref])
    st2, b, e2 = run([ncdump, '-s', ncz])
    props = [l.strip() for l in b.splitlines() if l.strip().startswith(':_NCProperties = ')]
    check('ncdump -s', st1 == 0 and st2 == 0 and
          without_ncproperties(a) == without_ncproperties(b) and len(props) == 1 and
          props[0].startswith(':_NCProperties = "version=2,ncz='),
          e1 + e2 + '\n'.join(props) + '\n' +
          diff(without_ncproperties(a), without_ncproperties(b), 'ncgen -4', 'ncz-gen'))
    st, _, err = run([h5dump, ncz])
    tap.ok(st == 0, '%s: h5dump reads it' % label, err)
    for peer in peers:
        env = dict(os.environ, HDF5_PLUGIN_PATH=os.path.join(peer, 'plugins'))
        peer_ncdump = os.path.join(peer, 'bin', 'ncdump')
        version = os.path.basename(peer)
        st1, a, e1 = run([peer_ncdump, '-s', ref], env=env)
        st2, c, e2 = run([peer_ncdump, '-s', ncz], env=env)
        check('ncdump -s of ' + version, st1 == 0 and st2 == 0 and
              without_ncproperties(a) == without_ncproperties(c),
              e1 + e2 + diff(without_ncproperties(a), without_ncproperties(c),
                             'ncgen -4 (%s)' % version, 'ncz-gen (%s)' % version))
    good, detail = compare_h5(ref, ncz)
    check('h5py', good, detail)
    if engine is None:
        tap.skip('%s: xarray' % label, 'neither h5netcdf nor netCDF4 is installed')
        return
    good, detail = compare_xarray(ref, ncz, engine)
    if good is None:
        tap.skip('%s: xarray' % label, detail)
    else:
        check('xarray', good, detail)


def check_failed_creation(tap, ncz_gen, work):
    path = os.path.join(work, 'existing.nc')
    with open(os.path.join(work, 'ok.cdl'), 'w') as f:
        f.write('netcdf existing {\ndimensions:\n n = 2 ;\nvariables:\n int v(n) ;\n'
                'data:\n v = 1, 2 ;\n}\n')
    with open(os.path.join(work, 'bad.cdl'), 'w') as f:
        f.write('netcdf existing {\ndimensions:\n n = 2 ;\nvariables:\n int v(n) ;\n'
                ' v:att = 1 ;\ndata:\n v = 1, "not a number" ;\n}\n')
    st, _, err = run([ncz_gen, '-o', path, os.path.join(work, 'ok.cdl')])
    tap.ok(st == 0, 'failed creation: the first file is written', err)
    with open(path, 'rb') as f:
        before = hashlib.sha256(f.read()).hexdigest()
    st, _, err = run([ncz_gen, '-o', path, os.path.join(work, 'bad.cdl')])
    with open(path, 'rb') as f:
        after = hashlib.sha256(f.read()).hexdigest()
    left = [n for n in os.listdir(work) if n.startswith('.existing.nc')]
    tap.ok(st != 0 and before == after and not left,
           'failed creation: the file at the path is unchanged, no staging file is left',
           'status %d, %s, left %r\n%s' % (st, 'unchanged' if before == after else 'CHANGED',
                                           left, err))


def main():
    ncz_gen = None
    selectors = []
    for arg in sys.argv[1:]:
        if arg.startswith('--ncz-gen='):
            ncz_gen = arg.split('=', 1)[1]
        else:
            selectors.append(arg)
    if not ncz_gen:
        print('Bail out! usage: test-write-interop.py --ncz-gen=PATH [substring...]')
        return 1
    ncgen = os.environ.get('NCGEN') or shutil.which('ncgen')
    ncdump = os.environ.get('NCDUMP') or shutil.which('ncdump')
    h5dump = os.environ.get('H5DUMP') or shutil.which('h5dump')
    if not ncgen or not ncdump or not h5dump:
        print('Bail out! ncgen, ncdump and h5dump are needed (netcdf-bin, hdf5-tools)')
        return 1
    try:
        import h5py  # noqa: F401
        import xarray  # noqa: F401
    except ImportError as e:
        print('Bail out! h5py and xarray are needed (python3-h5py, python3-xarray): %s' % e)
        return 1
    engine = xarray_engine()
    corpus_root = os.environ.get('NCZ_CORPUS_DIR', '')
    corpus = os.path.join(corpus_root, 'netcdf-c')
    peers_dir = os.path.join(corpus_root, '..', 'peers')
    peers = sorted(p for p in glob.glob(os.path.join(peers_dir, 'netcdf-c-*'))
                   if os.access(os.path.join(p, 'bin', 'ncdump'), os.X_OK))

    cdls = sorted(glob.glob(os.path.join(HERE, 'cases', '*.cdl')))
    if os.path.isdir(corpus):
        cdls += sorted(glob.glob(os.path.join(corpus, '*', '*.cdl')))
    if selectors:
        cdls = [c for c in cdls if any(s in c for s in selectors)]

    tap = Tap()
    tools = (ncgen, ncdump, h5dump, ncz_gen, peers, engine)
    with tempfile.TemporaryDirectory(prefix='ncz-hdf5-write-') as work:
        os.makedirs(os.path.join(work, 'ref'))
        os.makedirs(os.path.join(work, 'ncz'))
        seen = set()
        for cdl in cdls:
            name = os.path.splitext(os.path.basename(cdl))[0]
            label = name if name not in seen else '%s (%s)' % (name, os.path.basename(os.path.dirname(cdl)))
            seen.add(name)
            print('# %s' % cdl)
            if label == name:
                check_cdl(tap, cdl, name, label, tools, work)
            else:
                check_cdl_renamed(tap, cdl, name, label, tools, work)
        check_failed_creation(tap, ncz_gen, work)
    print('1..%d' % tap.n)
    if not os.path.isdir(corpus):
        print('# the netcdf-c corpus (NCZ_CORPUS_DIR) was not found: only the cases ran')
    if not peers:
        print('# no netcdf-c peer builds beside the corpus: the peer checks did not run')
    return 1 if tap.failed else 0


def check_cdl_renamed(tap, cdl, name, label, tools, work):
    """The same basename again (another corpus version): its own work
    directory, so the dataset names stay the basename."""
    sub = os.path.join(work, hashlib.sha1(cdl.encode()).hexdigest()[:8])
    os.makedirs(os.path.join(sub, 'ref'), exist_ok=True)
    os.makedirs(os.path.join(sub, 'ncz'), exist_ok=True)
    check_cdl(tap, cdl, name, label, tools, sub)


if __name__ == '__main__':
    sys.exit(main())
