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

# The numeric getters raise on text: 'title' is not the number 78.0 ('N')
title = Ncz.Attribute.new_text("title", "Numbers")
for getter in ("get_double", "get_int64", "get_uint64"):
    for a in (title, attr):
        try:
            value = getattr(a, getter)(0)
            check("%s on %s raises" % (getter, a.get_name()), False)
        except GLib.Error as e:
            check("%s on %s raises" % (getter, a.get_name()),
                  e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.INVALID)
                  and "'%s'" % a.get_name() in e.message)
import struct  # noqa: E402
nums = Ncz.Attribute.new("nums", Ncz.DataType.DOUBLE, GLib.Bytes.new(struct.pack("=2d", 2.5, 1e30)))
check("get_double on numbers", nums.get_double(0) == 2.5)
check("get_int64 truncates", nums.get_int64(0) == 2)
try:
    nums.get_int64(1)
    check("get_int64 of 1e30 raises", False)
except GLib.Error as e:
    check("get_int64 of 1e30 raises", e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.INVALID))
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
        # a closed dataset passes no data: the error names its URL
        for name, call in (("read", lambda: v.read_bytes([0], [4], None, None)),
                           ("write", lambda: v.write_bytes([0], [1], None,
                                                           GLib.Bytes.new(b"\0" * 4), None))):
            try:
                call()
                check("%s after close raises" % name, False)
            except GLib.Error as e:
                check("%s after close raises" % name,
                      e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.CLOSED)
                      and path in e.message and "'/v'" in e.message)
        ds2 = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None)
        v2 = ds2.get_root_group().get_variable("v")
        data = v2.read_bytes([0], [4], None, None).get_data()
        check("dataset round trip", struct.unpack("=4i", data) == (1, 2, 3, 4))
        check("group is a list model", ds2.get_root_group().get_n_items() == 1)
        del ds2, v2

        # A 2-D variable for the hyperslab checks
        ds = Ncz.Dataset.create(path, Ncz.CreateFlags.DEFAULT, None)
        root = ds.get_root_group()
        y = root.add_dimension("y", 3, False)
        x = root.add_dimension("x", 4, False)
        t = root.add_variable("t", Ncz.DataType.INT, [y, x])
        t.write_bytes([0, 0], [3, 4], None,
                      GLib.Bytes.new(struct.pack("=12i", *range(0, 120, 10))), None)
        s = root.add_variable("s", Ncz.DataType.STRING, [x])
        s.write_strings([0], [4], None, ["a", "bb", "ccc", "dddd"], None)
        ds.close(None)
        del ds, root, x, y, t, s

        # The chained expression: nobody holds the dataset or the group
        b = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None).get_root_group() \
            .get_variable("t").read_bytes([1, 1], [2, 2], [1, 2], None)
        check("chained open().get_root_group().get_variable().read_bytes()",
              struct.unpack("=4i", b.get_data()) == (50, 70, 90, 110))
        v = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None).get_root_group().get_variable("t")
        check("held variable keeps its group", v.get_group().get_name() == "/")
        check("held variable keeps its dataset",
              v.get_group().get_dataset().get_url().get_original() == path)
        check("held variable full name", v.get_full_name() == "/t")
        check("held variable dimensions",
              [d.get_name() for d in v.get_dimensions()] == ["y", "x"])
        # Dropped without close: the dataset and its objects are freed with
        # the last of them, not before
        import gc
        freed = []
        ds = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None)
        ds.weak_ref(lambda: freed.append("dataset"))
        ds.get_root_group().weak_ref(lambda: freed.append("root"))
        held = ds.get_root_group().get_variable("t")
        held.weak_ref(lambda: freed.append("variable"))
        del ds
        gc.collect()
        check("a held variable keeps the dataset", freed == [])
        check("a held variable still reads",
              struct.unpack("=1i", held.read_bytes([2, 3], [1, 1], None, None).get_data())
              == (110,))
        del held
        gc.collect()
        check("all freed once nothing is held",
              sorted(freed) == ["dataset", "root", "variable"])
        sub = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None).get_root_group()
        check("held group lists its variables",
              sorted(w.get_name() for w in sub.get_variables()) == ["s", "t"])
        check("chained read_strings",
              sub.get_variable("s").read_strings([1], [2], None, None) == ["bb", "ccc"])
        del sub

        # Each array has its own length: a mismatch is a GLib.Error and
        # nothing is read
        def mismatch(name, call):
            try:
                call()
                check(name, False)
            except GLib.Error as e:
                check(name, e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.INVALID)
                      and "'/t'" in e.message)

        mismatch("start shorter than count", lambda: v.read_bytes([1], [2, 2], None, None))
        mismatch("count shorter than start", lambda: v.read_bytes([1, 1], [2], None, None))
        mismatch("stride of the wrong length", lambda: v.read_bytes([0, 0], [1, 1], [1], None))
        mismatch("too many values", lambda: v.read_bytes([0, 0, 0], [1, 1, 1], None, None))
        try:
            v.read_bytes([1], [2, 2], None, None)
        except GLib.Error as e:
            check("the message gives the lengths", "1 start, 2 count" in e.message)
        check("a correct read after the errors",
              struct.unpack("=2i", v.read_bytes([2, 2], [1, 2], None, None).get_data()) == (100, 110))

        # the async read reports a mismatch through its result
        loop = GLib.MainLoop()
        result = {}

        def done(var, res):
            try:
                var.read_bytes_finish(res)
                result["error"] = None
            except GLib.Error as e:
                result["error"] = e
            loop.quit()

        v.read_bytes_async([0], [1, 1], None, None, done)
        loop.run()
        check("async mismatch raises",
              result["error"] is not None and result["error"].matches(
                  Ncz.DatasetError.quark(), Ncz.DatasetError.INVALID))

        # writes: a mismatch writes nothing
        ds = Ncz.Dataset.open(path, Ncz.OpenFlags.WRITE, None)
        w = ds.get_root_group().get_variable("t")
        try:
            w.write_bytes([0], [1, 4], None, GLib.Bytes.new(b"\0" * 16), None)
            check("write mismatch raises", False)
        except GLib.Error as e:
            check("write mismatch raises", e.matches(Ncz.DatasetError.quark(),
                                                     Ncz.DatasetError.INVALID))
        check("nothing written",
              struct.unpack("=4i", w.read_bytes([0, 0], [1, 4], None, None).get_data())
              == (0, 10, 20, 30))
        ds.close(None)
        del ds, w, v

        # Errors raised by the library match the registered domains
        empty = os.path.join(d, "empty")
        os.mkdir(empty)
        try:
            Ncz.Dataset.open(empty, Ncz.OpenFlags.READ, None)
            check("a directory without a dataset raises NOT_NCZ", False)
        except GLib.Error as e:
            check("a directory without a dataset raises NOT_NCZ",
                  e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.NOT_NCZ))

        def raises(name, call, domain, code):
            try:
                call()
                check(name, False)
            except GLib.Error as e:
                check(name, e.matches(domain.quark(), code))

        reg = Ncz.Registry.get_default()
        raises("a missing store raises Ncz.PluginError.NOT_FOUND",
               lambda: reg.lookup_store("no-such-store"), Ncz.PluginError,
               Ncz.PluginError.NOT_FOUND)
        ds = Ncz.Dataset.create(path, Ncz.CreateFlags.DEFAULT, None)
        x = ds.get_root_group().add_dimension("x", 4, False)
        w = ds.get_root_group().add_variable("w", Ncz.DataType.INT, [x])
        raises("an unknown filter raises Ncz.CodecError.NOT_AVAILABLE",
               lambda: w.add_filter(65000, [1]), Ncz.CodecError, Ncz.CodecError.NOT_AVAILABLE)
        raises("bad codec parameters raise Ncz.CodecError.BAD_PARAMETERS",
               lambda: w.add_filter_json('{"id": "zstd", "level": "x"}'),
               Ncz.CodecError, Ncz.CodecError.BAD_PARAMETERS)
        ds.close(None)
        del ds, x, w
        with open(os.path.join(d, "t.file", "w", ".zarray"), "w") as f:
            f.write("{ not json")
        raises("bad metadata raises Ncz.BackendError.BAD_METADATA",
               lambda: Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None),
               Ncz.BackendError, Ncz.BackendError.BAD_METADATA)

# Many writers (docs/concurrency.md): the coordinator sizes an unlimited
# dimension, a worker opened for data only writes its region and cannot
# change metadata, and a long-lived reader sees the data after a refresh
with tempfile.TemporaryDirectory() as d:
    path = "file://" + d + "/w.ncz#mode=nczarr,file"
    try:
        ds = Ncz.Dataset.create(path, Ncz.CreateFlags.DEFAULT, None)
    except GLib.Error as e:
        print("# plugins not available:", e.message)
        ds = None
    if ds is not None:
        import struct
        root = ds.get_root_group()
        t = root.add_dimension("t", 0, True)
        root.add_variable("u", Ncz.DataType.INT, [t])
        ds.close(None)
        reader = Ncz.Dataset.open(path, Ncz.OpenFlags.READ, None)
        coord = Ncz.Dataset.open(path, Ncz.OpenFlags.WRITE, None)
        coord.get_root_group().get_dimension("t").set_length(4)
        coord.close(None)
        worker = Ncz.Dataset.open(path, Ncz.OpenFlags.WRITE_DATA, None)
        wroot = worker.get_root_group()
        wroot.get_variable("u").write_bytes([1], [2], None,
                                            GLib.Bytes.new(struct.pack("=2i", 7, 8)), None)
        try:
            wroot.set_attribute(Ncz.Attribute.new_text("title", "x"))
            check("WRITE_DATA refuses an attribute", False)
        except GLib.Error as e:
            check("WRITE_DATA refuses an attribute",
                  e.matches(Ncz.DatasetError.quark(), Ncz.DatasetError.READ_ONLY))
        try:
            wroot.get_variable("u").write_bytes([4], [1], None,
                                                GLib.Bytes.new(struct.pack("=i", 9)), None)
            check("WRITE_DATA refuses growing t", False)
        except GLib.Error as e:
            check("WRITE_DATA refuses growing t", "NCZ_OPEN_WRITE_DATA" in e.message)
        worker.close(None)
        rdim = reader.get_root_group().get_dimension("t")
        check("reader keeps the length it opened", rdim.get_length() == 0)
        reader.refresh(None)
        check("refresh: t is 4", rdim.get_length() == 4)
        data = reader.get_root_group().get_variable("u").read_bytes([0], [4], None, None)
        check("refresh: the worker's values", struct.unpack("=4i", data.get_data())[1:3] == (7, 8))
        reader.close(None)

# The CPU workers of the process, set from code: 0 is the default back
# (NCZ_THREADS, else the CPUs the process may use)
default_threads = Ncz.get_max_threads()
check("get_max_threads is 1 to 64", 1 <= default_threads <= 64)
Ncz.set_max_threads(3)
check("set_max_threads(3)", Ncz.get_max_threads() == 3)
Ncz.set_max_threads(1000)
check("set_max_threads(1000) is 64", Ncz.get_max_threads() == 64)
Ncz.set_max_threads(0)
check("set_max_threads(0) gives the default back", Ncz.get_max_threads() == default_threads)

# Every error domain is registered: an error enum with its quark
for name, quark_name in (("DatasetError", "ncz-dataset-error-quark"),
                         ("StorageError", "ncz-storage-error-quark"),
                         ("CodecError", "ncz-codec-error-quark"),
                         ("BackendError", "ncz-backend-error-quark"),
                         ("PluginError", "ncz-plugin-error-quark")):
    enum = getattr(Ncz, name, None)
    ok = enum is not None and hasattr(enum, "FAILED") and int(enum.FAILED) == 0
    ok = ok and GLib.quark_to_string(enum.quark()) == quark_name
    fn = getattr(Ncz, name[:-5].lower() + "_error_quark", None)
    ok = ok and fn is not None and fn() == enum.quark()
    check("Ncz.%s is an error domain (%s)" % (name, quark_name), ok)


print("1..%d" % n)
sys.exit(1 if failures else 0)
