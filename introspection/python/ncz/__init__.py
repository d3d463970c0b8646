"""ncz: netCDF-4 datasets in Zarr/NCZarr and HDF5 from Python.

    import ncz
    with ncz.open("file:///data/tas.zarr#mode=nczarr,file") as ds:
        print(ds["tas"][...].mean())

``import ncz`` asks PyGObject for the Ncz 1.0 typelib; every name of
``from gi.repository import Ncz`` (with its override,
gi/overrides/Ncz.py) is also a name of this package: ``ncz.open``,
``ncz.Dataset``, ``ncz.NotFoundError``... See docs/python.md.
"""
# SPDX-License-Identifier: BSD-3-Clause

import gi

gi.require_version("Ncz", "1.0")

__all__ = ["open", "open_async", "Ncz"]


def _namespace():
    from gi.repository import Ncz
    return Ncz


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    Ncz = _namespace()
    if name == "Ncz":
        return Ncz
    try:
        return getattr(Ncz, name)
    except AttributeError:
        raise AttributeError("module 'ncz' has no attribute %r" % name) from None


def __dir__():
    return sorted(set(globals()) | set(dir(_namespace())))


def open(url, mode="r", **kwargs):
    """Ncz.open(): opens or creates the dataset at @url (see docs/python.md)."""
    return _namespace().open(url, mode, **kwargs)


async def open_async(url, mode="r", **kwargs):
    """Ncz.open_async()."""
    return await _namespace().open_async(url, mode, **kwargs)


def _reopen(url, path, mode, kind, options=None):
    """Unpickling of Ncz.Dataset, Group and Variable (see Ncz._reopen)."""
    return _namespace()._reopen(url, path, mode, kind, options)


def _error(domain, code, message):
    """Unpickling of the Ncz exceptions."""
    return _namespace()._error_from(domain, code, message)
