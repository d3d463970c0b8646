#!/usr/bin/python3
# make-hdf5-corpus.py: builds the seed corpus of fuzz-hdf5 (hdf5-corpus/)
#
# Usage: make-hdf5-corpus.py OUTPUT_DIR
#
# Writes small netCDF-4 files with `ncgen -4` (and `-k nc7` for the
# classic model) from the tiny CDL texts below, and files written with
# h5py without netCDF's conventions (phony dimensions, h5py's own
# dimension scales, compact layout, links, superblock versions 0 and 3).
# Each covers a part of the reader: groups, dimension scales, unlimited
# dimensions, attributes of every type, strings, filters, fill values,
# user-defined types, and the structures of the file (superblock, v1 and
# v2 object headers, local and fractal heaps, B-trees, global heap).
# The seeds are kept in the repository; rerun this only to refresh them
# (needs ncgen and /usr/bin/python3 with h5py and numpy).
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import subprocess
import sys
import tempfile

CDL = {
    "basic": ("-4", r"""
netcdf basic {
dimensions:
  time = UNLIMITED ;
  x = 3 ;
  y = 2 ;
variables:
  double time(time) ;
    time:units = "days since 2000-01-01" ;
    time:_ChunkSizes = 2 ;
  float t(time, y, x) ;
    t:long_name = "temperature" ;
    t:_ChunkSizes = 1, 2, 3 ;
    t:_FillValue = -999.f ;
    t:valid_range = 0.f, 400.f ;
  short s(x) ;
    s:scale_factor = 0.5 ;
  int64 big ;
// global attributes:
  :title = "fuzz seed" ;
  :version = 2 ;
  :bytes = 1b, -2b ;
  :ushorts = 1us, 65535us ;
data:
  time = 0, 1 ;
  t = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
  s = -1, 0, 1 ;
  big = 1234567890123 ;
}
"""),
    "groups": ("-4", r"""
netcdf groups {
dimensions:
  n = 2 ;
variables:
  int n(n) ;
  string names(n) ;
  char letter ;
data:
  n = 10, 20 ;
  names = "alpha", "b" ;
  letter = "z" ;
group: inner {
  dimensions:
    m = 3 ;
  variables:
    ubyte u(n, m) ;
      u:comment = "uses the parent's dimension" ;
    uint64 w(m) ;
  // group attributes:
    string :tags = "one", "two" ;
  data:
    u = 1, 2, 3, 4, 5, 6 ;
    w = 1, 2, 3 ;
  group: deeper {
    variables:
      double d(m) ;
    data:
      d = 0.5, 1.5, 2.5 ;
  }
}
}
"""),
    "filters": ("-4", r"""
netcdf filters {
dimensions:
  r = 8 ;
  c = 6 ;
variables:
  int z(r, c) ;
    z:_Storage = "chunked" ;
    z:_ChunkSizes = 4, 3 ;
    z:_DeflateLevel = 2 ;
    z:_Shuffle = "true" ;
  float f(r) ;
    f:_Storage = "chunked" ;
    f:_ChunkSizes = 3 ;
    f:_Fletcher32 = "true" ;
  short nf(c) ;
    nf:_NoFill = "true" ;
    nf:_Storage = "contiguous" ;
  uint64 e(r) ;
    e:_Endianness = "big" ;
data:
  z = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
      20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
      37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47 ;
  f = 1, 2, 3, 4, 5, _, _, 8 ;
  nf = 1, 2, 3, 4, 5, 6 ;
  e = 1, 2, 3, 4, 5, 6, 7, 8 ;
}
"""),
    "classic": ("-7", r"""
netcdf classic {
dimensions:
  rec = UNLIMITED ;
  len = 4 ;
variables:
  char label(rec, len) ;
    label:_ChunkSizes = 1, 4 ;
  int v(rec) ;
    v:missing_value = -1 ;
    v:_ChunkSizes = 2 ;
  :Conventions = "CF-1.8" ;
data:
  label = "abcd", "efgh" ;
  v = 7, 8 ;
}
"""),
    "usertypes": ("-4", r"""
netcdf usertypes {
types:
  compound pair {
    int a ;
    double b ;
  } ;
  ubyte enum color {red = 0, green = 1, blue = 2} ;
  int(*) ragged ;
  opaque(3) blob ;
dimensions:
  k = 2 ;
variables:
  pair p(k) ;
  color col(k) ;
  ragged rg(k) ;
  blob bl ;
  int plain(k) ;
    plain:note = "next to user types" ;
data:
  p = {1, 0.5}, {2, 1.5} ;
  col = red, blue ;
  rg = {1, 2, 3}, {4} ;
  bl = 0XABCDEF ;
  plain = 5, 6 ;
}
"""),
}


def ncgen(name, kind, text, out_dir):
    with tempfile.TemporaryDirectory() as tmp:
        cdl = os.path.join(tmp, name + ".cdl")
        with open(cdl, "w") as f:
            f.write(text)
        kflag = ["-k", "nc7"] if kind == "-7" else ["-4"]
        subprocess.run(["ncgen"] + kflag + ["-o", os.path.join(out_dir, name + ".nc"), cdl],
                       check=True)


def h5py_files(out_dir):
    import h5py
    import numpy as np

    # no netCDF conventions, superblock 0, v1 object headers, symbol tables
    with h5py.File(os.path.join(out_dir, "h5py-plain.h5"), "w") as f:
        f.attrs["title"] = "written by h5py"
        f.attrs["floats"] = np.arange(3, dtype="f4")
        f.attrs.create("fixed", np.array([b"ab", b"cd"], dtype="S2"))
        f.create_dataset("grid", data=np.arange(12, dtype="i2").reshape(3, 4))
        f.create_dataset("compact", data=np.arange(4, dtype="f8"),
                         dcpl=None, chunks=None)
        g = f.create_group("sub")
        g.create_dataset("chunked", data=np.arange(20, dtype="u4"), chunks=(7,),
                         compression="gzip", compression_opts=1, fletcher32=True)
        g.create_dataset("scalar", data=np.float32(2.5))
        g.create_dataset("vstr", data=np.array(["x", "yz"], dtype=h5py.string_dtype()))
        g.attrs["ref_to_root"] = f.ref
        g["soft"] = h5py.SoftLink("/grid")
        g["again"] = f["grid"]
        f.create_dataset("empty", data=h5py.Empty("f4"))

    # superblock 3, v2 object headers (OHDR), fractal heaps, creation
    # order tracked, h5py's dimension scales
    with h5py.File(os.path.join(out_dir, "h5py-latest.h5"), "w", libver="latest",
                   track_order=True) as f:
        x = f.create_dataset("x", data=np.arange(4, dtype="f4"))
        x.make_scale("x")
        t = f.create_dataset("t", data=np.arange(3, dtype="i4"), maxshape=(None,),
                             chunks=(2,))
        t.make_scale("t")
        v = f.create_dataset("v", data=np.arange(12, dtype="f8").reshape(3, 4),
                             maxshape=(None, 4), chunks=(1, 4), shuffle=True,
                             compression="gzip")
        v.dims[0].attach_scale(t)
        v.dims[1].attach_scale(x)
        v.attrs["units"] = "m"
        for i in range(10):
            v.attrs["a%d" % i] = i
        g = f.create_group("g", track_order=True)
        g.create_dataset("c", data=np.arange(6, dtype="i1").reshape(2, 3),
                         compression="gzip")
        g.attrs["vlen_strings"] = np.array(["p", "qr"], dtype=h5py.string_dtype())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-hdf5-corpus.py OUTPUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, (kind, text) in CDL.items():
        ncgen(name, kind, text, out_dir)
    h5py_files(out_dir)
    for name in sorted(os.listdir(out_dir)):
        print("%-20s %6d bytes" % (name, os.path.getsize(os.path.join(out_dir, name))))


if __name__ == "__main__":
    main()
