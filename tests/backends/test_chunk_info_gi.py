#!/usr/bin/python3
"""The chunk inventory and the filter providers as PyGObject sees them:
the list model of Ncz.ChunkInfo with its properties, the async pair,
GErrors for a bad box and a cancelled query, the sizes summed, and the
providers GVariant."""
import os
import shutil
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


tmp = tempfile.mkdtemp(prefix="ncz-chunk-gi-")
path = os.path.join(tmp, "a.zarr")
url = "file://%s#mode=nczarr,file" % path

have_zstd = Ncz.Registry.get_default().has_feature(Ncz.FeatureKind.CODEC, "zstd")

ds = Ncz.Dataset.create(url, Ncz.CreateFlags.DEFAULT, None)
root = ds.get_root_group()
y = root.add_dimension("y", 6, False)
x = root.add_dimension("x", 8, False)
v = root.add_variable("v", Ncz.DataType.SHORT, [y, x])
v.set_chunk_sizes([3, 4])
if have_zstd:
    v.add_filter(Ncz.FILTER_ZSTD, [1])
v.write_bytes([3, 4], [3, 4], None, GLib.Bytes.new(bytes(3 * 4 * 2)), None)
ds.close(None)

ds = Ncz.Dataset.open(url, Ncz.OpenFlags.READ, None)
v = ds.get_root_group().get_variable("v")
check("grid", list(v.get_chunk_grid()) == [2, 2])

model = v.query_chunks(None, None, None)
check("list model of ChunkInfo", model.get_item_type() == Ncz.ChunkInfo.__gtype__)
items = [model.get_item(i) for i in range(model.get_n_items())]
check("four chunks", len(items) == 4)
check("index property", [list(i.props.index) for i in items] == [[0, 0], [0, 1], [1, 0], [1, 1]])
check("only (1,1) stored", [i.props.stored for i in items] == [False, False, False, True])
check("raw size", all(i.props.raw_size == 24 for i in items))
check("stored size", items[3].props.stored_size > 0 and items[0].props.stored_size == 0)
if have_zstd:
    check("compressed", items[3].props.stored_size < 24)

sub = v.query_chunks([1, 0], [1, 2], None)
check("box", [list(sub.get_item(i).get_index()) for i in range(sub.get_n_items())] == [[1, 0], [1, 1]])

try:
    v.query_chunks([2, 0], [1, 1], None)
    check("bad box raises", False)
except GLib.Error as e:
    check("bad box raises", e.matches(Ncz.dataset_error_quark(), Ncz.DatasetError.INVALID))

ok, stored, raw, n_stored, n_chunks = v.get_storage_size(None)
check("storage size", ok and stored == items[3].props.stored_size and raw == 96
      and n_stored == 1 and n_chunks == 4)

loop = GLib.MainLoop()
got = {}


def on_chunks(src, res):
    got["model"] = src.query_chunks_finish(res)
    loop.quit()


v.query_chunks_async(None, None, None, on_chunks)
loop.run()
check("async", got["model"].get_n_items() == 4)


def on_size(src, res):
    got["size"] = src.get_storage_size_finish(res)
    loop.quit()


v.get_storage_size_async(None, on_size)
loop.run()
check("async size", tuple(got["size"][1:]) == (stored, raw, n_stored, n_chunks))

c = Gio.Cancellable()
c.cancel()
try:
    v.query_chunks(None, None, c)
    check("cancelled raises", False)
except GLib.Error as e:
    check("cancelled raises", e.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))

prov = v.get_filter_providers()
check("providers type", prov.get_type_string() == "a(sussbs)")
if have_zstd:
    codec, fid, name, fname, available, why = prov.unpack()[0]
    check("zstd provider", codec == "zstd" and fid == Ncz.FILTER_ZSTD and available
          and fname.endswith(".so") and why == "")
else:
    check("no filters", len(prov.unpack()) == 0)

ds.close(None)

u = Ncz.Url.parse("file:///tmp/x.zarr#mode=nczarr,file&store=slowfile")
check("store key picks the storage driver", u.get_storage() == "slowfile"
      and u.get_local_path() == "/tmp/x.zarr")
shutil.rmtree(tmp)
print("1..%d" % n)
sys.exit(1 if failures else 0)
