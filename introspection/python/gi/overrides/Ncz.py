# Ncz.py: the PyGObject override of the Ncz namespace (docs/python.md)
#
# Adds to the generated classes what a user of netCDF4-python or h5py
# expects: Ncz.open() and datasets as context managers, ds["group/var"],
# var[...] reading into numpy arrays (masked and unpacked by default)
# and var[...] = array writing from them, attrs as a mapping, pickling,
# asyncio awaitables, and exception classes per error domain and code.
# Reads and writes go through ncz._native, which decodes into (and
# encodes from) the array's own memory with the GIL released.
#
# SPDX-License-Identifier: BSD-3-Clause

import asyncio
import atexit
import collections.abc
import functools
import itertools
import json
import operator
import threading

import numpy as np

from gi._gi import FunctionInfo, InterfaceInfo, ObjectInfo, Repository, StructInfo
from gi.repository import GLib

from ..module import get_introspection_module
from ..overrides import override

import ncz as _ncz_package
from ncz import _native

Ncz = get_introspection_module("Ncz")

__all__ = []


def _export(obj, name=None):
    name = name or obj.__name__
    globals()[name] = obj
    __all__.append(name)
    return obj


# --- Exceptions -----------------------------------------------------------

@_export
class Error(GLib.Error):
    """An Ncz GError: every error of a GI call or a read or write of the
    layer is raised as a subclass of this (and of GLib.Error), with the
    GError's domain, code and message."""

    def __reduce__(self):
        return (_ncz_package._error, (self.domain, self.code, self.message))


# Per code, across domains: what users catch
@_export
class NotFoundError(Error):
    """No such object: a dataset, group, variable, attribute or key."""


@_export
class NotInstalledError(Error):
    """The feature (a codec, a store, a format) is known but no installed
    module provides it."""


@_export
class ReadOnlyError(Error):
    """A write to a dataset or store opened read-only (or WRITE_DATA)."""


@_export
class ExistsError(Error):
    """The object (a dataset, a variable...) already exists."""


@_export
class ConflictError(Error):
    """Another writer changed the object since it was read."""


@_export
class LockedError(Error):
    """Another writer holds the lock."""


@_export
class InvalidError(Error):
    """An invalid argument: a name, a shape, a hyperslab, a type."""


@_export
class ClosedError(Error):
    """The dataset was closed."""


# domain enum name -> (exception class name, {code nick -> code class})
_DOMAINS = {
    "DatasetError": {"not-found": NotFoundError, "exists": ExistsError,
                     "invalid": InvalidError, "read-only": ReadOnlyError,
                     "closed": ClosedError},
    "StorageError": {"not-found": NotFoundError, "read-only": ReadOnlyError,
                     "exists": ExistsError, "locked": LockedError,
                     "conflict": ConflictError},
    "CodecError": {"not-available": NotInstalledError, "not-found": NotFoundError},
    "BackendError": {},
    "PluginError": {"not-installed": NotInstalledError, "not-found": NotInstalledError},
}
# GError domain string -> domain class; (domain string, code) -> class
_DOMAIN_CLASSES = {}
_CODE_CLASSES = {}


def _make_domain_classes():
    for enum_name, code_classes in _DOMAINS.items():
        enum = getattr(Ncz, enum_name)
        quark = enum.quark()
        domain = GLib.quark_to_string(quark)
        ns = {"__doc__": "The errors of the %s domain (%s); the class also carries the "
                         "codes of Ncz.%s and its quark()." % (enum_name, domain, enum_name),
              "__module__": __name__,
              "quark": staticmethod(enum.quark),
              "domain_name": domain}
        for value in enum.__enum_values__.values():
            ns[value.value_nick.upper().replace("-", "_")] = value
        cls = type(enum_name, (Error,), ns)
        _export(cls)
        _DOMAIN_CLASSES[domain] = cls
        for value in enum.__enum_values__.values():
            code_cls = code_classes.get(value.value_nick)
            if code_cls is not None:
                sub = type(code_cls.__name__, (cls, code_cls),
                           {"__module__": __name__,
                            "__qualname__": "%s.%s" % (enum_name,
                                                       value.value_nick.upper().replace("-", "_")),
                            "__doc__": code_cls.__doc__})
                _CODE_CLASSES[(domain, int(value))] = sub


_make_domain_classes()


def _error_from(domain, code, message):
    """The exception for a GError of @domain (its quark's string), @code
    and @message: the class of its code if it has one, else of its domain,
    else Ncz.Error. ncz._native raises what this returns."""
    cls = _CODE_CLASSES.get((domain, code)) or _DOMAIN_CLASSES.get(domain) or Error
    return cls(message, domain, code)


_export(_error_from, "_error_from")
_native.set_error_factory(_error_from)


def _raise_error(enum, code, message):
    domain = GLib.quark_to_string(enum.quark())
    raise _error_from(domain, int(code), message)


def _converting(fn):
    """@fn with its GLib.Error raised as the matching Ncz exception."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GLib.Error as e:
            if isinstance(e, Error):
                raise
            raise _error_from(e.domain, e.code, e.message) from None
    return call


def _converting_methods(cls_name, base, info, exclude):
    """The throwing methods of a generated class (@base, @info) wrapped by
    _converting, except those named in @exclude."""
    ns = {}
    for m in info.get_methods():
        name = m.get_name()
        if not m.can_throw_gerror() or name in exclude:
            continue
        orig = getattr(base, name, None)
        if orig is None:
            continue
        if m.is_method():
            ns[name] = _converting(orig)
        else:
            ns[name] = staticmethod(_converting(orig))
    return ns


# --- Types ----------------------------------------------------------------

_DTYPE_OF = {
    Ncz.DataType.BYTE: np.dtype("i1"),
    Ncz.DataType.CHAR: np.dtype("S1"),
    Ncz.DataType.SHORT: np.dtype("i2"),
    Ncz.DataType.INT: np.dtype("i4"),
    Ncz.DataType.FLOAT: np.dtype("f4"),
    Ncz.DataType.DOUBLE: np.dtype("f8"),
    Ncz.DataType.UBYTE: np.dtype("u1"),
    Ncz.DataType.USHORT: np.dtype("u2"),
    Ncz.DataType.UINT: np.dtype("u4"),
    Ncz.DataType.INT64: np.dtype("i8"),
    Ncz.DataType.UINT64: np.dtype("u8"),
    Ncz.DataType.STRING: np.dtype(object),
}
_TYPE_OF = {np.dtype(k.str[1:] if k.kind in "iuf" else k): t
            for t, k in _DTYPE_OF.items() if k.kind in "iufS"}


def _data_type(dtype):
    """The Ncz.DataType of a numpy dtype (or anything numpy.dtype takes):
    str and object are NC_STRING, S1 is NC_CHAR, bool is NC_BYTE."""
    if isinstance(dtype, Ncz.DataType):
        return dtype
    if dtype is str:
        return Ncz.DataType.STRING
    dt = np.dtype(dtype)
    if dt.kind in "OU":
        return Ncz.DataType.STRING
    if dt.kind == "b":
        return Ncz.DataType.BYTE
    if dt.kind == "S" and dt.itemsize == 1:
        return Ncz.DataType.CHAR
    t = _TYPE_OF.get(dt.newbyteorder("="))
    if t is None:
        raise TypeError("no netCDF type for numpy dtype %r" % (dt,))
    return t


def _dtype(data_type):
    return _DTYPE_OF.get(data_type, np.dtype(object))


_export(_data_type, "data_type_of")


# --- Attributes: the one place where values are converted ----------------

def _attr_value(attr):
    """The Python value of an Ncz.Attribute: str for text (NC_CHAR), str or
    a list of str for NC_STRING, a numpy scalar for one number, else a
    1-D numpy array."""
    t = attr.get_value_type()
    if t == Ncz.DataType.CHAR:
        return (attr.get_text() or "").rstrip("\0")
    if t == Ncz.DataType.STRING:
        strings = list(attr.get_strings() or [])
        return strings[0] if len(strings) == 1 else strings
    data = attr.get_data()
    arr = np.frombuffer(data.get_data() if data is not None else b"", dtype=_dtype(t)).copy()
    return arr[0] if arr.size == 1 else arr


def _make_attr(name, value):
    """An Ncz.Attribute named @name holding @value (str, bytes, a sequence
    of str, a number, or anything numpy.asarray takes)."""
    if isinstance(value, str):
        return Attribute.new_text(name, value)
    if isinstance(value, (bytes, bytearray)):
        return Attribute.new(name, Ncz.DataType.CHAR, GLib.Bytes.new(bytes(value)))
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return Attribute.new_strings(name, list(value))
    arr = np.asarray(value)
    if arr.dtype.kind == "U":
        return Attribute.new_strings(name, [str(v) for v in arr.ravel()])
    if arr.dtype.kind == "b":
        arr = arr.astype("i1")
    if arr.dtype.kind not in "iuf":
        raise TypeError("attribute %r: cannot store a value of type %s" % (name, arr.dtype))
    t = _data_type(arr.dtype)
    arr = np.ascontiguousarray(arr.ravel(), dtype=_dtype(t))
    return Attribute.new(name, t, GLib.Bytes.new(arr.tobytes()))


class Attributes(collections.abc.MutableMapping):
    """The attributes of a group or variable as a mapping of names to
    Python values; assignment and deletion write them."""

    __slots__ = ("_owner",)

    def __init__(self, owner):
        self._owner = owner

    def __getitem__(self, name):
        attr = self._owner.get_attribute(name)
        if attr is None:
            raise KeyError(name)
        return _attr_value(attr)

    def __setitem__(self, name, value):
        self._owner.set_attribute(_make_attr(name, value))

    def __delitem__(self, name):
        if self._owner.get_attribute(name) is None:
            raise KeyError(name)
        self._owner.remove_attribute(name)

    def __iter__(self):
        return iter([a.get_name() for a in self._owner.get_attributes()])

    def __len__(self):
        return len(self._owner.get_attributes())

    def __repr__(self):
        return "<Ncz attributes of %s: %r>" % (self._owner.path, dict(self))


_export(Attributes)


# --- Indexing -------------------------------------------------------------

def _expand_key(key, ndim):
    """@key as a tuple of one item per dimension: the Ellipsis expanded,
    missing trailing items as whole slices."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ell:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - len(key) + 1) + key[i + 1:]
    if len(key) > ndim:
        raise IndexError("too many indices: %d for %d dimension(s)" % (len(key), ndim))
    return key + (slice(None),) * (ndim - len(key))


def _is_index_array(k):
    return isinstance(k, (list, np.ndarray)) or (
        isinstance(k, tuple) and not isinstance(k, slice))


def _orthogonal(key, shape, unlimited=None):
    """Integer sequences and boolean masks in @key, one per dimension as
    netCDF4-python takes them (orthogonal indexing): returns the key with
    each replaced by a slice (a strided hyperslab when the indices are an
    increasing arithmetic progression, else the hyperslab they span) and
    the list of (axis of the result, positions to take along it) that
    turns the hyperslab into the selection."""
    key = _expand_key(key, len(shape))
    out, takes, axis = [], [], 0
    for d, (k, n) in enumerate(zip(key, shape)):
        if not _is_index_array(k):
            out.append(k)
            if isinstance(k, slice):
                axis += 1
            continue
        idx = np.asarray(k)
        if idx.dtype == bool:
            if idx.ndim != 1 or idx.size != n:
                raise IndexError("a boolean index of dimension %d must have its length %d"
                                 % (d, n))
            idx = np.nonzero(idx)[0]
        elif idx.size and idx.dtype.kind not in "iu":
            raise IndexError("only integers, slices, Ellipsis and integer or boolean "
                             "arrays are valid indices, not %r" % (k,))
        if idx.ndim > 1:
            raise IndexError("an index array of dimension %d must be one-dimensional" % d)
        idx = idx.astype(np.int64)
        grow = bool(unlimited and unlimited[d])
        idx = np.where(idx < 0, idx + n, idx)
        if idx.size and (idx.min() < 0 or (idx.max() >= n and not grow)):
            raise IndexError("an index of dimension %d is out of bounds for its size %d"
                             % (d, n))
        if idx.size == 0:
            out.append(slice(0, 0))
        elif idx.size == 1:
            out.append(slice(int(idx[0]), int(idx[0]) + 1))
        else:
            step = np.diff(idx)
            if step[0] > 0 and np.all(step == step[0]):
                out.append(slice(int(idx[0]), int(idx[-1]) + 1, int(step[0])))
            else:
                lo = int(idx.min())
                out.append(slice(lo, int(idx.max()) + 1))
                takes.append((axis, idx - lo))
        axis += 1
    return tuple(out), takes


def _hyperslab(key, shape, unlimited=None):
    """(start, count, stride or None, result shape, flipped dims) of the
    index @key of an array of @shape. Integers (negative from the end)
    drop their dimension; slices with any step; one Ellipsis. @unlimited
    (writes): per dimension, whether an explicit slice stop or an index
    may go past the length."""
    key = _expand_key(key, len(shape))
    start, count, stride, out_shape, flips = [], [], [], [], []
    for d, (k, n) in enumerate(zip(key, shape)):
        grow = bool(unlimited and unlimited[d])
        if isinstance(k, slice):
            if grow and k.stop is not None and k.stop > n:
                n = k.stop
            first, stop, step = k.indices(n)
            r = range(first, stop, step)
            cnt = len(r)
            if step < 0:
                if cnt:
                    first = r[-1]
                step = -step
                flips.append(len(out_shape))
            start.append(first if cnt else 0)
            count.append(cnt)
            stride.append(step)
            out_shape.append(cnt)
            continue
        try:
            i = operator.index(k)
        except TypeError:
            raise IndexError("only integers, slices, Ellipsis and integer or boolean "
                             "arrays are valid indices, not %r" % (k,)) from None
        if i < 0:
            i += n
        if i < 0 or (i >= n and not grow):
            raise IndexError("index %d is out of bounds for dimension %d of size %d"
                             % (operator.index(k), d, n))
        start.append(i)
        count.append(1)
        stride.append(1)
    if all(s == 1 for s in stride):
        stride = None
    return start, count, stride, tuple(out_shape), flips


def _flip(arr, flips):
    if not flips:
        return arr
    idx = [slice(None)] * arr.ndim
    for d in flips:
        idx[d] = slice(None, None, -1)
    return arr[tuple(idx)]


# elements of data tested at once for the mask: a block stays in cache
_MASK_BLOCK = 1 << 18


def _mask_of(data, tests):
    """The mask of the elements of @data for which any of @tests (each
    taking an array, returning a boolean array) holds, or numpy.ma.nomask
    when none does. One pass over the data, a block at a time: the mask
    array is only allocated once an element is masked."""
    if not tests:
        return np.ma.nomask
    if not data.flags.c_contiguous or data.size <= _MASK_BLOCK:
        mask = np.asarray(tests[0](data))
        for t in tests[1:]:
            mask = mask | t(data)
        return mask if mask.any() else np.ma.nomask
    flat = data.reshape(-1)
    mask = None
    for i in range(0, flat.size, _MASK_BLOCK):
        part = flat[i:i + _MASK_BLOCK]
        m = tests[0](part)
        for t in tests[1:]:
            m |= t(part)
        if m.any():
            if mask is None:
                mask = np.zeros(flat.size, dtype=bool)
            mask[i:i + _MASK_BLOCK] = m
    return np.ma.nomask if mask is None else mask.reshape(data.shape)


def _run_in_executor(fn, *args, **kwargs):
    return asyncio.get_running_loop().run_in_executor(
        None, functools.partial(fn, *args, **kwargs))


# --- Dataset --------------------------------------------------------------

_OPEN_MODES = ("r", "r+", "a", "w", "x")


def open(url, mode="r", *, mask_and_scale=True, write_data=False, io_depth=None):
    """Opens or creates the dataset at @url and returns an Ncz.Dataset.

    @mode: "r" reads; "r+" or "a" opens for writing ("a" with
    write_data=True writes chunks only, Ncz.OpenFlags.WRITE_DATA); "w"
    creates, replacing what is there (the old dataset stays until the new
    one is closed, and an exception in a `with` block discards the new
    one); "x" creates, failing with Ncz.ExistsError if a dataset is there.
    @mask_and_scale: the default of the dataset's variables
    (Variable.set_auto_maskandscale)."""
    if mode not in _OPEN_MODES:
        raise ValueError("mode must be one of %s, not %r" % (", ".join(_OPEN_MODES), mode))
    if mode == "r":
        ds = Dataset.open(url, Ncz.OpenFlags.READ, None)
    elif mode in ("r+", "a"):
        flags = Ncz.OpenFlags.WRITE_DATA if write_data else Ncz.OpenFlags.WRITE
        ds = Dataset.open(url, flags, None)
    elif mode == "w":
        ds = Dataset.create(url, Ncz.CreateFlags.DEFAULT, None)
    else:
        ds = Dataset.create(url, Ncz.CreateFlags.NO_CLOBBER, None)
    ds._ncz_mode = mode
    ds._ncz_mask_and_scale = bool(mask_and_scale)
    ds._ncz_write_data = bool(write_data) and mode in ("r+", "a")
    ds._ncz_closed = False
    if io_depth is not None:
        ds.set_io_depth(int(io_depth))
    return ds


_export(open)


async def open_async(url, mode="r", **kwargs):
    """Ncz.open() as an awaitable: the open runs in the event loop's
    default thread executor."""
    return await _run_in_executor(open, url, mode, **kwargs)


_export(open_async)


def _lookup(group, path):
    """The variable or group at @path ("a/b/v", "/a/b") below @group."""
    parts = [p for p in str(path).split("/") if p]
    if str(path).startswith("/"):
        while group.get_parent() is not None:
            group = group.get_parent()
    obj = group
    for i, name in enumerate(parts):
        if not isinstance(obj, Group):
            obj = None
            break
        child = obj.get_group(name)
        if child is None and i == len(parts) - 1:
            child = obj.get_variable(name)
        obj = child
        if obj is None:
            break
    if obj is None:
        _raise_error(Ncz.DatasetError, Ncz.DatasetError.NOT_FOUND,
                     "no variable or group '%s' in group '%s'" % (path, group.get_full_name()))
    return obj


# per process: (url, mode, write_data, mask_and_scale) -> Dataset
_reopened = {}
_reopened_lock = threading.Lock()


def _reopen(url, path, mode, kind, options=None):
    """Unpickling: the object at @path of the dataset at @url, reopened in
    this process once (and kept in a per-process cache). A dataset pickled
    while open for writing reopens for writing chunks only
    (Ncz.OpenFlags.WRITE_DATA)."""
    options = dict(options or {})
    mask_and_scale = options.pop("mask_and_scale", True)
    write_data = mode != "r"
    key = (url, write_data, mask_and_scale)
    with _reopened_lock:
        ds = _reopened.get(key)
        if ds is None or ds._ncz_closed:
            ds = open(url, "a" if write_data else "r", mask_and_scale=mask_and_scale,
                      write_data=write_data)
            _reopened[key] = ds
    if kind == "dataset":
        return ds
    obj = _lookup(ds.get_root_group(), path)
    if kind == "variable":
        for flag in ("mask", "scale"):
            if flag in options:
                setattr(obj, "_ncz_" + flag, bool(options[flag]))
    return obj


def _close_reopened():
    """Closes the datasets _reopen opened: at exit, and for workers that
    must flush what they wrote (Ncz.close_reopened())."""
    with _reopened_lock:
        items = list(_reopened.values())
        _reopened.clear()
    for ds in items:
        if not ds._ncz_closed:
            ds.close(None)


_export(_reopen, "_reopen")
_export(_close_reopened, "close_reopened")
atexit.register(_close_reopened)


@override
class Dataset(Ncz.Dataset):
    """An open dataset: a context manager, indexable by path."""

    _ncz_closed = False
    _ncz_mask_and_scale = True
    _ncz_write_data = False

    @property
    def mode(self):
        """The mode of Ncz.open(): "r", "r+", "a", "w" or "x"."""
        m = self.__dict__.get("_ncz_mode")
        if m is None:
            m = "r+" if self.is_writable() else "r"
        return m

    @property
    def url(self):
        """The URL the dataset was opened with."""
        return self.get_url().get_original()

    @property
    def path(self):
        return "/"

    @property
    def root(self):
        return self.get_root_group()

    @property
    def groups(self):
        return self.get_root_group().groups

    @property
    def variables(self):
        return self.get_root_group().variables

    @property
    def dimensions(self):
        return self.get_root_group().dimensions

    @property
    def attrs(self):
        return Attributes(self.get_root_group())

    def __getitem__(self, path):
        return _lookup(self.get_root_group(), path)

    def __contains__(self, path):
        try:
            _lookup(self.get_root_group(), path)
            return True
        except NotFoundError:
            return False

    def create_variable(self, *args, **kwargs):
        return self.get_root_group().create_variable(*args, **kwargs)

    def create_dimension(self, *args, **kwargs):
        return self.get_root_group().create_dimension(*args, **kwargs)

    def create_group(self, *args, **kwargs):
        return self.get_root_group().create_group(*args, **kwargs)

    def close(self, cancellable=None):
        """Stores what was written and closes the dataset (a second close
        does nothing)."""
        if self._ncz_closed:
            return True
        self._ncz_closed = True
        return _converting(Ncz.Dataset.close)(self, cancellable)

    def discard(self):
        """Closes the dataset without storing it: a dataset created with
        "w" leaves the one it was to replace in place."""
        self._ncz_closed = True
        Ncz.Dataset.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self.mode in ("w", "x"):
            self.discard()
        else:
            self.close(None)
        return False

    async def __aenter__(self):
        return self

    async def __aexit__(self, exc_type, exc, tb):
        await _run_in_executor(self.__exit__, exc_type, exc, tb)
        return False

    async def aclose(self):
        """close() as an awaitable (in the default thread executor)."""
        return await _run_in_executor(self.close, None)

    async def aflush(self):
        """sync() as an awaitable (in the default thread executor)."""
        return await _run_in_executor(self.sync, None)

    def __reduce__(self):
        return (_ncz_package._reopen, (self.url, "/", self.mode, "dataset",
                          {"mask_and_scale": self._ncz_mask_and_scale}))

    def __repr__(self):
        return "<Ncz.Dataset %r mode=%r>" % (self.url, self.mode)


# --- Groups ---------------------------------------------------------------

class _Member:
    """What groups, variables and dimensions have alike: a name and the
    full path from the root."""

    @property
    def name(self):
        return self.get_name()

    @property
    def path(self):
        return self.get_full_name()


class _HasAttributes(_Member):
    """Groups and variables: their attributes as a mapping too."""

    @property
    def attrs(self):
        return Attributes(self)


@override
class Group(_HasAttributes, Ncz.Group):
    """A group: indexable by name or path ("sub/var"), with dicts of its
    groups, variables and dimensions."""

    @property
    def parent(self):
        return self.get_parent()

    @property
    def dataset(self):
        return self.get_dataset()

    @property
    def groups(self):
        return {g.get_name(): g for g in self.get_groups()}

    @property
    def variables(self):
        return {v.get_name(): v for v in self.get_variables()}

    @property
    def dimensions(self):
        return {d.get_name(): d for d in self.get_dimensions()}

    def __getitem__(self, key):
        if isinstance(key, str):
            return _lookup(self, key)
        return super().__getitem__(key)

    def __contains__(self, key):
        if isinstance(key, str):
            try:
                _lookup(self, key)
                return True
            except NotFoundError:
                return False
        return super().__contains__(key)

    def create_dimension(self, name, size=None):
        """Adds a dimension of @size elements (None: unlimited)."""
        if size is None:
            return self.add_dimension(name, 0, True)
        return self.add_dimension(name, int(size), False)

    def create_group(self, name):
        return self.add_group(name)

    def create_variable(self, name, dtype, dims=(), chunks=None, compression=None,
                        level=None, shuffle=False, fill_value=None, codecs=None):
        """Adds a variable of numpy @dtype (str for NC_STRING, "S1" for
        NC_CHAR) over the dimensions @dims (names, looked up in this group
        and its ancestors, or Ncz.Dimension objects).

        @chunks: a tuple of chunk sizes, "contiguous", or None for the
        default; @compression: "zstd", "zlib", "blosc" (lz4), "bzip2" or
        None, at @level (the codec's default when None), after the
        shuffle filter when @shuffle; @fill_value: the _FillValue, or
        False for no fill; @codecs: more filters as numcodecs-style dicts
        (or JSON strings), in order of invocation on write."""
        if isinstance(dims, (str, Ncz.Dimension)):
            dims = (dims,)
        dim_objs = []
        for d in dims:
            if isinstance(d, str):
                obj = self.lookup_dimension(d)
                if obj is None:
                    _raise_error(Ncz.DatasetError, Ncz.DatasetError.NOT_FOUND,
                                 "no dimension '%s' in group '%s' or its ancestors"
                                 % (d, self.get_full_name()))
                d = obj
            dim_objs.append(d)
        t = _data_type(dtype)
        var = self.add_variable(name, t, dim_objs)
        if isinstance(chunks, str) and chunks == "contiguous":
            var.set_contiguous(True)
        elif chunks is not None:
            var.set_chunk_sizes([int(c) for c in chunks])
        if fill_value is False:
            var.set_no_fill(True)
        elif fill_value is not None and t != Ncz.DataType.STRING:
            fv = np.asarray(fill_value, dtype=_dtype(t)).reshape(())
            var.set_fill_value(GLib.Bytes.new(fv.tobytes()))
        if compression not in (None, "zstd", "zlib", "blosc", "bzip2"):
            raise ValueError("compression must be zstd, zlib, blosc, bzip2 or None, not %r"
                             % (compression,))
        if compression == "zlib":
            var.set_deflate(bool(shuffle), True, 4 if level is None else int(level))
        else:
            if shuffle and compression != "blosc":
                var.set_shuffle()
            if compression == "zstd":
                var.set_zstandard(1 if level is None else int(level))
            elif compression == "blosc":
                var.set_blosc("lz4", 5 if level is None else int(level), 0,
                              1 if shuffle else 0)
            elif compression == "bzip2":
                var.set_bzip2(9 if level is None else int(level))
        for codec in codecs or ():
            var.add_filter_json(codec if isinstance(codec, str) else json.dumps(codec))
        return var

    def __reduce__(self):
        ds = self.get_dataset()
        return (_ncz_package._reopen, (ds.url, self.get_full_name(), ds.mode, "group",
                          {"mask_and_scale": ds._ncz_mask_and_scale}))

    def __repr__(self):
        return "<Ncz.Group %r>" % (self.get_full_name(),)


# --- Dimensions -----------------------------------------------------------

@override
class Dimension(_Member, Ncz.Dimension):
    @property
    def size(self):
        return self.get_length()

    def __len__(self):
        return self.get_length()

    def isunlimited(self):
        return self.is_unlimited()

    def __repr__(self):
        return "<Ncz.Dimension %r size=%d%s>" % (
            self.get_full_name(), self.get_length(), " unlimited" if self.is_unlimited() else "")


# --- Variables ------------------------------------------------------------

@override
class Variable(_HasAttributes, Ncz.Variable):
    """A variable: var[key] reads (masked and unpacked by default, like
    netCDF4-python), var[key] = value writes."""

    @property
    def group(self):
        return self.get_group()

    @property
    def dataset(self):
        return self.get_group().get_dataset()

    @property
    def shape(self):
        return tuple(int(n) for n in (self.get_shape() or ()))

    @property
    def ndim(self):
        return self.get_n_dimensions()

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a scalar variable")
        return shape[0]

    @property
    def dtype(self):
        return _dtype(self.get_value_type())

    @property
    def dims(self):
        return tuple(d.get_name() for d in self.get_dimensions())

    @property
    def chunks(self):
        if self.is_scalar() or self.get_contiguous():
            return None
        sizes = self.get_chunk_sizes()
        return tuple(int(c) for c in sizes) if sizes else None

    @property
    def filters(self):
        text = self.get_codecs_json()
        return json.loads(text) if text else []

    @property
    def fill_value(self):
        if self.get_no_fill() or self.get_value_type() == Ncz.DataType.STRING:
            return None
        data = self.get_fill_value()
        if data is None:
            return None
        arr = np.frombuffer(data.get_data(), dtype=self.dtype)
        return arr[0] if arr.size else None

    # masking and unpacking flags: the variable's own, else the dataset's
    def _flag(self, name):
        v = self.__dict__.get("_ncz_" + name)
        if v is None:
            v = self.dataset._ncz_mask_and_scale
        return v

    def set_auto_maskandscale(self, flag):
        self._ncz_mask = self._ncz_scale = bool(flag)

    def set_auto_mask(self, flag):
        self._ncz_mask = bool(flag)

    def set_auto_scale(self, flag):
        self._ncz_scale = bool(flag)

    # raw I/O
    def read_into(self, out, start, count, stride=None):
        """Reads the hyperslab (@start, @count, @stride) as stored into
        @out, a C-contiguous array of var.dtype and of the hyperslab's
        size, filling its own memory (the GIL is released meanwhile).
        Returns @out."""
        if self.get_value_type() == Ncz.DataType.STRING:
            raise TypeError("read_into: '%s' holds strings; index it instead" % self.path)
        arr = np.asarray(out)
        if arr.dtype != self.dtype:
            raise TypeError("read_into: out has dtype %s, '%s' holds %s"
                            % (arr.dtype, self.path, self.dtype))
        _native.read(self, list(start), list(count),
                     None if stride is None else list(stride), out)
        return out

    def _read(self, key):
        key, takes = _orthogonal(key, self.shape)
        out = self._read_slab(key)
        for axis, idx in takes:
            out = np.take(out, idx, axis=axis)
        return out

    def _read_slab(self, key):
        start, count, stride, shape, flips = _hyperslab(key, self.shape)
        if self.get_value_type() == Ncz.DataType.STRING:
            if 0 in count:
                out = np.empty(count, dtype=object)
            else:
                strings = self.read_strings(start, count, stride, None)
                out = np.empty(len(strings), dtype=object)
                out[:] = strings
        else:
            out = np.empty(count, dtype=self.dtype)
            if out.size:
                _native.read(self, start, count, stride, out)
        return _flip(out.reshape(shape), flips)

    def _write(self, key, value):
        unlimited = [d.is_unlimited() for d in self.get_dimensions()]
        key, takes = _orthogonal(key, self.shape, unlimited)
        if not takes:
            return self._write_slab(key, value, unlimited)
        # indices that are no progression: the value is written one
        # hyperslab per combination of them, never the span between
        shape = _hyperslab(key, self.shape, unlimited)[3]
        shape = list(shape)
        for axis, idx in takes:
            shape[axis] = len(idx)
        value = np.broadcast_to(np.asarray(value, dtype=self.dtype if
                                           self.dtype.kind != "O" else object), tuple(shape))
        dims_of_axis = [d for d, k in enumerate(key) if isinstance(k, slice)]
        for combo in itertools.product(*(range(len(idx)) for _, idx in takes)):
            sub_key, sub_value = list(key), value
            for (axis, idx), j in zip(takes, combo):
                d = dims_of_axis[axis]
                first = key[d].start + int(idx[j])
                sub_key[d] = slice(first, first + 1)
                sub_value = np.take(sub_value, [j], axis=axis)
            self._write_slab(tuple(sub_key), sub_value, unlimited)

    def _write_slab(self, key, value, unlimited):
        start, count, stride, shape, flips = _hyperslab(key, self.shape, unlimited)
        if self.get_value_type() == Ncz.DataType.STRING:
            arr = np.broadcast_to(np.asarray(value, dtype=object), shape)
            arr = _flip(arr, flips)
            strings = [str(s) for s in arr.ravel()]
            if strings:
                self.write_strings(start, count, stride, strings, None)
            return
        arr = np.asarray(value, dtype=self.dtype)
        if arr.shape != shape:
            arr = np.broadcast_to(arr, shape)
        arr = np.ascontiguousarray(_flip(arr, flips)).reshape(count)
        if arr.size:
            _native.write(self, start, count, stride, arr)

    # masking and unpacking
    def _mask(self, data, attrs):
        if data.dtype.kind == "O":
            return data
        fval = attrs.get("_FillValue")
        if fval is None and not self.get_no_fill():
            fval = self.fill_value
        tests = []

        def equal_to(value):
            value = np.asarray(value).ravel()[0]
            if value.dtype.kind == "f" and np.isnan(value):
                return np.isnan
            return lambda x: x == value

        if fval is not None:
            fval = np.asarray(fval).ravel()[0]
            tests.append(equal_to(fval))
        mv = attrs.get("missing_value")
        if mv is not None:
            tests += [equal_to(v) for v in np.atleast_1d(mv)]
        vr = attrs.get("valid_range")
        if vr is not None and np.size(vr) == 2:
            vmin, vmax = vr[0], vr[1]
        else:
            vmin, vmax = attrs.get("valid_min"), attrs.get("valid_max")
        if vmin is not None:
            tests.append(lambda x: x < vmin)
        if vmax is not None:
            tests.append(lambda x: x > vmax)
        out = np.ma.MaskedArray(data, mask=_mask_of(data, tests), copy=False)
        if fval is not None:
            try:
                out.fill_value = fval
            except (TypeError, ValueError, OverflowError):
                pass
        return out

    @staticmethod
    def _unpack(data, attrs):
        sf, ao = attrs.get("scale_factor"), attrs.get("add_offset")
        if data.dtype.kind in "OS":
            return data
        if sf is not None and ao is not None:
            return data * sf + ao
        if sf is not None:
            return data * sf
        if ao is not None:
            return data + ao
        return data

    def _pack(self, value, attrs, mask, scale):
        dt = self.dtype
        if dt.kind in "OS":
            return value
        sf = attrs.get("scale_factor") if scale else None
        ao = attrs.get("add_offset") if scale else None
        if isinstance(value, np.ma.MaskedArray) or sf is not None or ao is not None:
            value = np.ma.asarray(value) if isinstance(value, np.ma.MaskedArray) \
                else np.asarray(value)
            if ao is not None:
                value = value - ao
            if sf is not None:
                value = value / sf
            if (sf is not None or ao is not None) and dt.kind in "iu":
                value = np.around(value)
            if isinstance(value, np.ma.MaskedArray):
                fval = attrs.get("_FillValue")
                if fval is None:
                    fval = self.fill_value
                if fval is None:
                    fval = 0
                value = value.filled(np.asarray(fval).ravel()[0])
        return value

    def get(self, key=Ellipsis, *, mask_and_scale=None):
        """var[key]; @mask_and_scale False returns the values as stored in
        a plain numpy array (safe from any thread: the read runs without
        the GIL), True masks and unpacks, None follows the variable's
        flags."""
        if mask_and_scale is None:
            mask, scale = self._flag("mask"), self._flag("scale")
        else:
            mask = scale = bool(mask_and_scale)
        data = self._read(key)
        if (mask or scale) and data.dtype.kind != "O":
            attrs = dict(self.attrs)
            if mask:
                data = self._mask(data, attrs)
            if scale:
                data = self._unpack(data, attrs)
        # integers alone give a scalar, as in numpy
        if data.ndim == 0 and not (key is Ellipsis or
                                   (isinstance(key, tuple) and any(k is Ellipsis for k in key))):
            return data[()]
        return data

    def __getitem__(self, key):
        return self.get(key)

    def set(self, key, value, *, mask_and_scale=None):
        """var[key] = value; @mask_and_scale False stores @value as given."""
        if mask_and_scale is None:
            mask, scale = self._flag("mask"), self._flag("scale")
        else:
            mask = scale = bool(mask_and_scale)
        if mask or scale:
            value = self._pack(value, dict(self.attrs), mask, scale)
        self._write(key, value)

    def __setitem__(self, key, value):
        self.set(key, value)

    async def get_async(self, key=Ellipsis, **kwargs):
        """get() as an awaitable (in the default thread executor)."""
        return await _run_in_executor(self.get, key, **kwargs)

    async def set_async(self, key, value, **kwargs):
        """set() as an awaitable (in the default thread executor)."""
        return await _run_in_executor(self.set, key, value, **kwargs)

    def __array__(self, dtype=None):
        data = self.get()
        if isinstance(data, np.ma.MaskedArray):
            data = data.filled()
        return np.asarray(data, dtype=dtype)

    def __reduce__(self):
        ds = self.dataset
        options = {"mask_and_scale": ds._ncz_mask_and_scale}
        for flag in ("mask", "scale"):
            if ("_ncz_" + flag) in self.__dict__:
                options[flag] = self.__dict__["_ncz_" + flag]
        return (_ncz_package._reopen, (ds.url, self.get_full_name(), ds.mode, "variable", options))

    def __repr__(self):
        return "<Ncz.Variable %r %s%r>" % (self.get_full_name(), self.dtype, self.shape)


@override
class Attribute(Ncz.Attribute):
    @property
    def name(self):
        return self.get_name()

    @property
    def value(self):
        return _attr_value(self)


# --- Every other throwing GI call: the same exceptions --------------------

def _convert_namespace():
    hand_written = {"Dataset": Dataset, "Group": Group, "Dimension": Dimension,
                    "Variable": Variable, "Attribute": Attribute}
    for info in Repository.get_default().get_infos("Ncz"):
        name = info.get_name()
        if isinstance(info, FunctionInfo):
            if info.can_throw_gerror() and name not in __all__:
                fn = getattr(Ncz, name, None)
                if fn is not None:
                    _export(_converting(fn), name)
            continue
        if not isinstance(info, (ObjectInfo, InterfaceInfo, StructInfo)):
            continue
        base = getattr(Ncz, name, None)
        if base is None:
            continue
        mine = hand_written.get(name)
        if mine is not None:
            ns = _converting_methods(name, base, info, set(vars(mine)))
            for k, v in ns.items():
                setattr(mine, k, v)
            _export(mine, name)
            continue
        ns = {}
        if isinstance(info, ObjectInfo):
            # the methods of the interfaces it implements (Ncz.Store of
            # Ncz.MemoryStore), reached through the generated classes
            for iface in info.get_interfaces():
                if iface.get_namespace() == "Ncz":
                    ns.update(_converting_methods(name, base, iface, ()))
        ns.update(_converting_methods(name, base, info, ()))
        if not ns:
            continue
        ns["__module__"] = __name__
        try:
            cls = override(type(name, (base,), ns))
        except (TypeError, AssertionError):
            continue
        _export(cls, name)


_convert_namespace()
