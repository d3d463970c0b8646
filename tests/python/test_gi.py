#!/usr/bin/python3
"""Smoke test of the Ncz typelib from Python (PyGObject)."""
import os
import sys
import tempfile

import gi
gi.require_version("Ncz", "1.0")
from gi.repository import GLib, Ncz  # noqa: E402

failures = 0
n = 0


def check(name, cond):
    global failures, n
    n += 1
    print(("ok" if cond else "not ok"), n, name)
    if not cond:
        failures += 1


url = Ncz.Url.parse("file:///tmp/x.zarr#mode=zarr,file")
check("url storage", url.get_storage() == "file")
check("url pure zarr", url.is_pure_zarr())
check("url mode flags", bool(url.get_mode() & Ncz.UrlMode.ZARR))

try:
    Ncz.Url.parse("file:///x#mode=bogus")
    check("bad mode raises", False)
except GLib.Error as e:
    check("bad mode raises", e.domain == "ncz-dataset-error-quark" and e.code == int(Ncz.DatasetError.BAD_URL))

store = Ncz.MemoryStore.new()
store.write("a/.zarray", GLib.Bytes.new(b"{}"), None)
check("memory store read", store.read("a/.zarray", None).get_data() == b"{}")
check("memory store list", store.list("", None) == ["a"])
try:
    store.read("missing", None)
    check("missing key raises", False)
except GLib.Error as e:
    check("missing key raises", e.domain == "ncz-storage-error-quark" and e.code == int(Ncz.StorageError.NOT_FOUND))

attr = Ncz.Attribute.new_strings("names", ["a", "bc"])
check("string attribute", attr.get_strings() == ["a", "bc"])
check("type names", Ncz.data_type_get_name(Ncz.DataType.UINT64) == "uint64")

# A real dataset through the plugins, when they are built
with tempfile.TemporaryDirectory() as d:
    path = "file://" + d + "/t.file#mode=nczarr,file"
    try:
        ds = Ncz.Dataset.create(path, Ncz.CreateFlags.DEFAULT, None)
    except GLib.Error as e:
        print("# plugins not available:", e.message)
        ds = None
    if ds is not None:
        root = ds.get_root_group()
        x = root.add_dimension("x", 4, False)
        v = root.add_variable("v", Ncz.DataType.INT, [x])
        import struct
        v.write_bytes([0], [4], None, GLib.Bytes.new(struct.pack("=4i", 1, 2, 3, 4)), None)
        ds.close(None)
        ds2 = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None)
        v2 = ds2.get_root_group().get_variable("v")
        data = v2.read_bytes([0], [4], None, None).get_data()
        check("dataset round trip", struct.unpack("=4i", data) == (1, 2, 3, 4))
        check("group is a list model", ds2.get_root_group().get_n_items() == 1)

print("1..%d" % n)
sys.exit(1 if failures else 0)
