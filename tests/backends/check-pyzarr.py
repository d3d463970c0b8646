#!/usr/bin/python3
# Reads the stores test-nczarr-pyzarr wrote with zarr-python (and xarray)
# and checks what they hold. Exit status 77 means "skipped".
import sys

try:
    import numpy as np
    import zarr
except ImportError:
    sys.exit(77)


def check(path, layout):
    g = zarr.open_group(path, mode="r")
    assert g.attrs["title"] == "test", g.attrs.asdict()
    tas = g["tas"]
    assert tas.shape == (4, 3) and tas.dtype == np.dtype("<f4"), (tas.shape, tas.dtype)
    assert tas.fill_value == -999.0, tas.fill_value
    assert (tas[:] == np.arange(1, 13, dtype="f4").reshape(4, 3)).all(), tas[:]
    assert g["scalarv"].shape == (1,) and g["scalarv"][0] == 7
    assert list(g["sub/d"][:]) == [1.5, 2.5]
    be = g["be"]
    assert be.dtype == np.dtype(">i4"), be.dtype
    assert list(be[:]) == [1, 2, 3], be[:]
    ch = g["chars"]
    assert ch.dtype == np.dtype("S1"), ch.dtype
    assert list(ch[:]) == [b"x", b"y", b"z"] or list(ch[:]) == [b"x", b"y", b"x"], ch[:]
    assert ch.fill_value == b"x", ch.fill_value
    st = g["strs"]
    if layout == "pure":
        # plain Zarr: strings with their lengths, as xarray writes them
        assert st.dtype == np.dtype(object), st.dtype
        assert list(st[:]) == ["a", "bb", "a str"], st[:]
    else:
        assert st.dtype == np.dtype("S5"), st.dtype
        assert list(st[:]) == [b"a", b"bb", b"a str"], st[:]
    d = g["dbl"]
    assert d.fill_value == 1.23456789012, d.fill_value
    assert d[1] == 1.23456789012, d[:]
    nf = g["nan"]
    assert np.isnan(nf.fill_value), nf.fill_value
    if layout == "pure":
        assert not any(k.startswith("_nczarr") for k in tas.attrs), tas.attrs.asdict()
    try:
        import xarray as xr
    except ImportError:
        return
    ds = xr.open_zarr(path, consolidated=False, mask_and_scale=False)
    assert ds["tas"].dims == ("time", "lat"), ds["tas"].dims
    assert ds["scalarv"].dims == ("_scalar_",), ds["scalarv"].dims
    assert int(ds["scalarv"].values[0]) == 7


def main():
    for arg in sys.argv[1:]:
        layout, path = arg.split("=", 1)
        check(path, layout)
        print("ok - %s" % layout)


if __name__ == "__main__":
    main()
