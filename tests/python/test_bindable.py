#!/usr/bin/python3
"""What a binding sees of the data model through PyGObject: properties
and their notifications, list models, attribute values as str, GVariant
and lists, GErrors for misuse, and the asynchronous calls finished from
a GLib.MainLoop. TAP output."""
import struct
import sys
import tempfile

import gi
gi.require_version("Ncz", "1.0")
from gi.repository import Gio, GLib, Ncz  # noqa: E402

failures = 0
n = 0


def check(name, cond):
    global failures, n
    n += 1
    print(("ok" if cond else "not ok"), n, name)
    if not cond:
        failures += 1


def raises(name, func, code, domain=Ncz.DatasetError.quark(), text=None):
    try:
        func()
        check(name, False)
    except GLib.Error as e:
        check(name, e.matches(domain, code) and (text is None or text in e.message))


# ---- attributes without bytes ----
units = Ncz.Attribute.new_text("units", "K")
check("new_text from str, get_text gives str", units.get_text() == "K")
check("attribute props", units.props.name == "units" and units.props.length == 1
      and units.props.data_type == Ncz.DataType.CHAR and units.props.text == "K")
check("char value is a string GVariant",
      units.get_value().get_type_string() == "s" and units.get_value().unpack() == "K")
raises("new_text with an empty name raises", lambda: Ncz.Attribute.new_text("", "x"),
       Ncz.DatasetError.INVALID)

nums = Ncz.Attribute.new("nums", Ncz.DataType.INT, GLib.Bytes.new(struct.pack("=3i", -1, 2, 300)))
check("int values as 'ai'", nums.get_value().get_type_string() == "ai"
      and nums.props.value.unpack() == [-1, 2, 300])
check("display text", nums.props.display_text == "-1, 2, 300")
check("get_text of numbers is None", nums.get_text() is None and nums.props.text is None)
check("get_double_values is a list", nums.get_double_values() == [-1.0, 2.0, 300.0])
check("get_int64_values is a list", nums.get_int64_values() == [-1, 2, 300])
raises("get_uint64_values of -1 raises", nums.get_uint64_values, Ncz.DatasetError.INVALID)
raises("get_double beyond the values raises", lambda: nums.get_double(3),
       Ncz.DatasetError.INVALID, text="'nums'")

for vtype, values, dtype in (("ad", [1.5, -2.25], Ncz.DataType.DOUBLE),
                             ("ax", [-(2 ** 40), 7], Ncz.DataType.INT64),
                             ("at", [2 ** 63], Ncz.DataType.UINT64),
                             ("an", [-3], Ncz.DataType.SHORT),
                             ("ay", [0, 255], Ncz.DataType.UBYTE),
                             ("as", ["a", "bc"], Ncz.DataType.STRING)):
    a = Ncz.Attribute.new_from_variant("x", GLib.Variant(vtype, values))
    check("new_from_variant %s" % vtype,
          a.get_value_type() == dtype and a.get_value().get_type_string() == vtype
          and a.get_value().unpack() == values)
text = Ncz.Attribute.new_from_variant("t", GLib.Variant("s", "kelvin"))
check("new_from_variant 's' is text", text.get_value_type() == Ncz.DataType.CHAR
      and text.get_text() == "kelvin")
scalar = Ncz.Attribute.new_from_variant("d", GLib.Variant("d", 0.5))
check("a scalar GVariant gives one value", scalar.props.length == 1
      and scalar.get_double(0) == 0.5)
raises("new_from_variant of a boolean raises",
       lambda: Ncz.Attribute.new_from_variant("b", GLib.Variant("b", True)),
       Ncz.DatasetError.INVALID)

# ---- a dataset through the plugins ----
tmp = tempfile.TemporaryDirectory()
url = "file://" + tmp.name + "/t.file#mode=nczarr,file"
ds = Ncz.Dataset.create(url, Ncz.CreateFlags.DEFAULT, None)
check("dataset props", ds.props.url == url and ds.props.format_name == "nczarr"
      and ds.props.writable and not ds.props.closed)
root = ds.props.root_group
check("root group props", root.props.name == "/" and root.props.full_name == "/"
      and root.props.parent is None and root.props.dataset == ds)

events = []
dims_model = root.props.dimensions
vars_model = root.props.variables
root_attrs = root.props.attributes
dims_model.connect("items-changed", lambda m, p, r, a: events.append(("dims", p, r, a)))
vars_model.connect("items-changed", lambda m, p, r, a: events.append(("vars", p, r, a)))
root_attrs.connect("items-changed", lambda m, p, r, a: events.append(("attrs", p, r, a)))

t = root.add_dimension("t", 0, True)
x = root.add_dimension("x", 3, False)
v = root.add_variable("v", Ncz.DataType.INT, [t, x])
check("dimension and variable lists told",
      ("dims", 0, 0, 1) in events and ("dims", 1, 0, 1) in events and ("vars", 0, 0, 1) in events)
check("dimension list content", [d.props.name for d in dims_model] == ["t", "x"])
check("the group is still a list of its children", root.get_n_items() == 1)

root.set_attribute(Ncz.Attribute.new_text("title", "a"))
root.set_attribute(Ncz.Attribute.new_text("title", "b"))
root.remove_attribute("title")
check("attribute list: added, replaced, removed",
      [e for e in events if e[0] == "attrs"] == [("attrs", 0, 0, 1), ("attrs", 0, 1, 1),
                                                 ("attrs", 0, 1, 0)])

check("variable props", v.props.name == "v" and v.props.full_name == "/v"
      and v.props.group == root and v.props.data_type == Ncz.DataType.INT
      and v.props.writable and v.props.filters == "[]")
check("shape is a GVariant 'at'", v.props.shape.get_type_string() == "at"
      and v.props.shape.unpack() == [0, 3] and v.props.shape_text == "(0, 3)")
check("n-elements", v.props.n_elements == 0)
check("variable dimension list", [d.props.name for d in v.props.dimensions] == ["t", "x"])
check("chunk-sizes", v.props.chunk_sizes.unpack() == [1, 3])
check("fill-value default", v.props.fill_value.unpack() == -2147483647)
check("dimension props", t.props.unlimited and t.props.length == 0
      and t.props.full_name == "/t" and t.props.group == root)

notified = []
t.connect("notify::length", lambda o, p: notified.append("length"))
v.connect("notify::shape", lambda o, p: notified.append("shape"))
v.connect("notify::fill-value", lambda o, p: notified.append("fill"))
v_attrs = v.props.attributes
v_attrs.connect("items-changed", lambda m, p, r, a: notified.append(("attrs", p, r, a)))
v.write_bytes([0, 0], [2, 3], None, GLib.Bytes.new(struct.pack("=6i", *range(6))), None)
check("a write growing the dimension notifies length and shape",
      "length" in notified and "shape" in notified and v.props.shape.unpack() == [2, 3])
v.set_attribute(Ncz.Attribute.new_text("units", "K"))
check("setting an attribute emits items-changed", ("attrs", 0, 0, 1) in notified
      and v_attrs.get_n_items() == 1 and v_attrs.get_item(0).get_text() == "K")
v.set_fill_value(GLib.Bytes.new(struct.pack("=i", -5)))
check("setting the fill value notifies", "fill" in notified and v.props.fill_value.unpack() == -5)

check("get_dimension in range", v.get_dimension(1).props.name == "x")
raises("get_dimension out of range raises", lambda: v.get_dimension(2),
       Ncz.DatasetError.INVALID, text="'/v'")

# ---- async, finished from a GLib.MainLoop ----
loop = GLib.MainLoop()
result = {}


def done(source, res, key):
    result[key] = res
    loop.quit()


data = GLib.Bytes.new(struct.pack("=3i", 7, 8, 9))
v.write_bytes_async([2, 0], [1, 3], None, data, None, done, "write")
loop.run()
check("write_bytes_async", v.write_bytes_finish(result["write"]) and t.props.length == 3)

cancelled = Gio.Cancellable()
cancelled.cancel()
v.write_bytes_async([3, 0], [1, 3], None, data, cancelled, done, "write-cancelled")
loop.run()
raises("write_bytes_async cancelled before it starts",
       lambda: v.write_bytes_finish(result["write-cancelled"]), Gio.IOErrorEnum.CANCELLED,
       domain=Gio.io_error_quark())
check("the cancelled write wrote nothing", t.props.length == 3)

ds.sync_async(None, done, "sync")
loop.run()
check("sync_async", ds.sync_finish(result["sync"]))

ds.close_async(cancelled, done, "close-cancelled")
loop.run()
raises("close_async cancelled before it starts",
       lambda: ds.close_finish(result["close-cancelled"]), Gio.IOErrorEnum.CANCELLED,
       domain=Gio.io_error_quark())
check("the dataset stays open", not ds.props.closed)

closed_notified = []
ds.connect("notify::closed", lambda o, p: closed_notified.append(True))
ds.close_async(None, done, "close")
loop.run()
check("close_async", ds.close_finish(result["close"]) and ds.props.closed
      and not ds.props.writable and not v.props.writable)
# the notification came from the worker thread; it is delivered anyway
check("notify::closed emitted", closed_notified == [True])

raises("set_attribute on a closed dataset raises",
       lambda: v.set_attribute(Ncz.Attribute.new_text("a", "b")),
       Ncz.DatasetError.CLOSED, text="'/v'")
raises("write on a closed dataset raises",
       lambda: v.write_bytes([0, 0], [1, 3], None, data, None),
       Ncz.DatasetError.CLOSED, text="'/v'")
raises("read on a closed dataset raises",
       lambda: v.read_bytes([0, 0], [1, 3], None, None),
       Ncz.DatasetError.CLOSED)

url2 = "file://" + tmp.name + "/c.file#mode=nczarr,file"
Ncz.Dataset.create_async(url2, Ncz.CreateFlags.DEFAULT, None, done, "create")
loop.run()
created = Ncz.Dataset.create_finish(result["create"])
check("create_async", created.props.writable and created.props.url == url2)
created.close(None)

Ncz.Dataset.open_async(url, Ncz.OpenFlags.READ, None, done, "open")
loop.run()
reopened = Ncz.Dataset.open_finish(result["open"])
rv = reopened.props.root_group.get_variable("v")
got = rv.read_bytes([0, 0], [3, 3], None, None).get_data()
check("what was written asynchronously is stored",
      struct.unpack("=9i", got) == (0, 1, 2, 3, 4, 5, 7, 8, 9))
check("stored attributes are read back", rv.get_attribute("units").get_text() == "K"
      and rv.props.fill_value.unpack() == -5)
reopened.close(None)
tmp.cleanup()

print("1..%d" % n)
sys.exit(1 if failures else 0)
