#!/usr/bin/env bash
# Installs the Debian 12 packages Ncz builds and tests with.
set -euo pipefail

PACKAGES=(
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev
  libglib2.0-dev libjson-glib-dev libsoup-3.0-dev libzip-dev libhdf5-dev
  libzstd-dev libblosc-dev libbz2-dev zlib1g-dev libaec-dev liblz4-dev
  hdf5-tools hdf5-filter-plugin hdf5-plugin-lzf hdf5-filter-plugin-blosc-serial
  hdf5-filter-plugin-zfp-serial
  netcdf-bin libnetcdf-dev
  python3 python3-zarr python3-numcodecs python3-xarray python3-h5py python3-h5netcdf
  zip unzip gobject-introspection libgirepository1.0-dev python3-gi gir1.2-glib-2.0 gir1.2-json-1.0
  valac
  # the Python layer: its C extension, the xarray engine and Dask across processes, the API reference
  python3-dev python-gi-dev python3-numpy python3-dask python3-distributed python3-netcdf4 gi-docgen
  # the browser (tools/ncz-browser): GTK 4, libadwaita, and what its tests and validation run
  libgtk-4-dev libadwaita-1-dev xvfb xauth desktop-file-utils appstream adwaita-icon-theme
  gdal-bin
  # the S3 tests and bench: Ceph's RADOS Gateway on 127.0.0.1 (tests/s3/radosgw-run)
  # and the peers that read the same buckets
  radosgw ceph-mon ceph-osd uuid-runtime awscli python3-boto3 python3-gdal
  # what the netcdf-c builds in ../shared/peers need at run time
  libhdf5-103-1 libhdf5-hl-100 libzip4 libcurl4 libxml2 libssl3 libzstd1 libblosc1
  libbz2-1.0 libsz2 zlib1g
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
