# ncz/xarray_backend.py: the "ncz" engine of xarray.
#
#   xr.open_dataset(url, engine="ncz", group=None, chunks=None, ...)
#
# opens every URL Ncz opens (NCZarr in any layout, pure Zarr, netCDF-4
# files, zip archives, S3, "#mode=bytes") as an xarray Dataset. Nothing is
# read but the metadata until values are indexed: each variable is an
# NczBackendArray, and an indexing of it reads one hyperslab (start,
# count, stride) of raw stored values. CF decoding (masking, scaling,
# times, strings) is xarray's own: this module hands over the raw values
# and the raw attributes, _FillValue included.
#
# Registered with xarray by the "xarray.backends" entry point of the
# ncz-1.0.dist-info installed beside this package.
#
# Arrays pickle as (url, variable path, shape, dtype) and reopen the
# dataset, read-only, once per process (Dask workers): see _Handle.
#
# With chunks= (Dask), xarray 2023.01 takes the modification time of a
# plain path for its tokens: write a path with a fragment as a file: URL
# ("file:///d/x.nc#mode=bytes", not "/d/x.nc#mode=bytes").
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import threading

import numpy as np

from xarray.backends.common import AbstractDataStore, BackendArray, BackendEntrypoint
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing
from xarray.core.utils import FrozenDict
from xarray.core.variable import Variable

__all__ = ["NczBackendEntrypoint", "NczBackendArray", "NczDataStore"]

_NCZ = None


def _ncz():
    """The Ncz module (gi.repository.Ncz with the Python overrides),
    imported on first use so that listing xarray's engines stays cheap."""
    global _NCZ
    if _NCZ is None:
        import gi
        gi.require_version("Ncz", "1.0")
        from gi.repository import Ncz
        _NCZ = Ncz
    return _NCZ


# ---------------------------------------------------------------------------
# Open datasets, one per URL and process

class _Handle:
    """A read-only Ncz dataset opened on demand: shared by a data store and
    its arrays, reopened after a close when an array is read again (as
    xarray expects of a lazily loaded Dataset), and found again by URL in
    a process that unpickles an array."""

    def __init__(self, url):
        self.url = url
        self._ds = None
        self._lock = threading.Lock()

    def dataset(self):
        ds = self._ds
        if ds is not None:
            return ds
        with self._lock:
            if self._ds is None:
                self._ds = _ncz().open(self.url, "r")
            return self._ds

    def node(self, path):
        """The group or variable at @path ("" or "/" is the root group)."""
        ds = self.dataset()
        path = path.strip("/")
        return ds if not path else ds[path]

    def close(self):
        with self._lock:
            ds, self._ds = self._ds, None
        if ds is not None:
            ds.close()


_handles = {}
_handles_lock = threading.Lock()
_handles_pid = os.getpid()


def _handle_for(url, new=False):
    """The process's handle of @url; with @new, a handle of a fresh open
    (xr.open_dataset sees the dataset as it is now), which arrays
    unpickled later in this process then share. A forked child starts
    afresh: the parent's open datasets are not the child's."""
    global _handles_pid
    with _handles_lock:
        if _handles_pid != os.getpid():
            _handles.clear()
            _handles_pid = os.getpid()
        h = _handles.get(url)
        if h is None or new:
            h = _handles[url] = _Handle(url)
        return h


# ---------------------------------------------------------------------------
# Lazily indexed arrays

class NczBackendArray(BackendArray):
    """One variable of an Ncz dataset, read only where indexed.

    Indexing supports xarray's outer indexing: integers, slices (any step)
    and 1-D integer arrays per axis. Each read is one hyperslab read of
    raw stored values, with the GIL released during the I/O, so several
    threads (Dask's) read at once."""

    def __init__(self, handle, path, shape, dtype):
        self._handle = handle
        self.path = path
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)

    @property
    def url(self):
        return self._handle.url

    def __reduce__(self):
        return (_rebuild_array, (self._handle.url, self.path, self.shape, self.dtype))

    def get_variable(self):
        return self._handle.node(self.path)

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._raw_indexing_method)

    def _raw_indexing_method(self, key):
        key = tuple(key)
        if len(key) != len(self.shape):
            raise IndexError("%d indices for the %d dimensions of %s"
                             % (len(key), len(self.shape), self.path))
        # the layer's indexing is outer (orthogonal) indexing: integers,
        # slices with any step, integer arrays, one hyperslab read each
        out = np.asarray(self.get_variable().get(key, mask_and_scale=False))
        if out.dtype != self.dtype:
            out = out.astype(self.dtype)
        return out


def _rebuild_array(url, path, shape, dtype):
    return NczBackendArray(_handle_for(url), path, shape, dtype)


# ---------------------------------------------------------------------------
# The data store

def _is_unlimited(dim):
    for name in ("isunlimited", "is_unlimited", "get_unlimited"):
        f = getattr(dim, name, None)
        if callable(f):
            return bool(f())
    return bool(getattr(dim, "unlimited", False))


def _dim_length(dim):
    for name in ("size", "length"):
        v = getattr(dim, name, None)
        if v is not None and not callable(v):
            return int(v)
    for name in ("get_length", "get_size"):
        f = getattr(dim, name, None)
        if callable(f):
            return int(f())
    return len(dim)


def _attr_value(v):
    # a 1-element numeric array reads as its scalar, as netCDF4-python
    # gives them; text stays str, lists of strings stay lists
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.size == 1 and v.dtype != object:
        return v[0]
    return v


class NczDataStore(AbstractDataStore):
    """The variables, attributes and dimensions of one group of an Ncz
    dataset, as xarray's CF decoding takes them: raw values, raw
    attributes."""

    def __init__(self, url, group=None, handle=None):
        self._url = url
        self._group = (group or "").strip("/")
        self._handle = handle if handle is not None else _handle_for(url, new=True)
        self._node = None
        if handle is None:
            self._open()

    def _open(self):
        node = self._handle.node(self._group)
        if self._group and not hasattr(node, "variables"):
            raise ValueError("%r in %s is not a group" % (self._group, self._url))
        self._node = node
        return node

    def __reduce__(self):
        # a pickled Dataset holds its store's close: the store pickles as
        # its URL and group, and opens again when it is used
        return (_rebuild_store, (self._url, self._group))

    @property
    def ds(self):
        return self._node if self._node is not None else self._open()

    def _var_path(self, name):
        return name if not self._group else self._group + "/" + name

    def open_store_variable(self, name, var):
        shape = tuple(var.shape)
        dtype = np.dtype(var.dtype)
        path = self._var_path(name)
        data = indexing.LazilyIndexedArray(
            NczBackendArray(self._handle, path, shape, dtype))
        attrs = {k: _attr_value(v) for k, v in dict(var.attrs).items()}
        dims = tuple(var.dims)
        encoding = {"source": self._url, "original_shape": shape,
                    # netCDF4-python's name for variable-length strings
                    "dtype": str if dtype == object else dtype}
        chunks = var.chunks
        if chunks:
            chunks = tuple(int(c) for c in chunks)
            encoding["chunks"] = chunks
            encoding["preferred_chunks"] = dict(zip(dims, chunks))
        return Variable(dims, data, attrs, encoding)

    def get_variables(self):
        return FrozenDict((k, self.open_store_variable(k, v))
                          for k, v in self.ds.variables.items())

    def get_attrs(self):
        return FrozenDict((k, _attr_value(v)) for k, v in dict(self.ds.attrs).items())

    def get_dimensions(self):
        return FrozenDict((k, _dim_length(v)) for k, v in self.ds.dimensions.items())

    def get_encoding(self):
        return {"unlimited_dims": {k for k, v in self.ds.dimensions.items()
                                   if _is_unlimited(v)}}

    def close(self):
        self._node = None
        self._handle.close()


def _rebuild_store(url, group):
    return NczDataStore(url, group, handle=_handle_for(url))


# ---------------------------------------------------------------------------
# The entry point

_EXTENSIONS = (".zarr", ".nc", ".nc4", ".zip", ".h5", ".hdf5")


class NczBackendEntrypoint(BackendEntrypoint):
    """Opens NCZarr, Zarr v2 and netCDF-4 datasets with Ncz, on the file,
    zip and S3 stores: ``xr.open_dataset(url, engine="ncz", group=...)``.
    The URL is any Ncz URL (see Ncz's docs/urls.md): a path, ``file://``,
    ``s3://`` or ``http[s]://`` with a ``#mode=`` fragment."""

    description = ("Open NCZarr, Zarr v2 and netCDF-4 datasets (file, zip, S3, "
                   "#mode=bytes) with Ncz")
    url = "docs/python.md and docs/urls.md of Ncz"
    open_dataset_parameters = (
        "filename_or_obj", "mask_and_scale", "decode_times", "concat_characters",
        "decode_coords", "drop_variables", "use_cftime", "decode_timedelta", "group",
    )

    def guess_can_open(self, filename_or_obj):
        try:
            path = os.fspath(filename_or_obj)
        except TypeError:
            return False
        if not isinstance(path, str):
            return False
        if "#mode=" in path or path.startswith("s3://"):
            return True
        return path.rstrip("/").lower().endswith(_EXTENSIONS)

    def open_dataset(self, filename_or_obj, *, mask_and_scale=True, decode_times=True,
                     concat_characters=True, decode_coords=True, drop_variables=None,
                     use_cftime=None, decode_timedelta=None, group=None):
        if isinstance(filename_or_obj, AbstractDataStore):
            store = filename_or_obj
        else:
            try:
                url = os.fspath(filename_or_obj)
            except TypeError:
                raise TypeError("engine 'ncz' opens URLs and paths, not %s"
                                % type(filename_or_obj).__name__) from None
            if isinstance(url, bytes):
                url = os.fsdecode(url)
            store = NczDataStore(url, group=group)
        try:
            return StoreBackendEntrypoint().open_dataset(
                store, mask_and_scale=mask_and_scale, decode_times=decode_times,
                concat_characters=concat_characters, decode_coords=decode_coords,
                drop_variables=drop_variables, use_cftime=use_cftime,
                decode_timedelta=decode_timedelta)
        except BaseException:
            store.close()
            raise
