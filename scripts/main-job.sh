#!/usr/bin/env bash
# Sets everything up and runs the main job: the sample CDL is turned into
# an NCZarr dataset in a directory tree (the default file driver) with
# ncz-gen, copied with ncz-copy to a zstd-compressed NCZarr dataset, to
# pure Zarr and to a netCDF-4 (HDF5) file with deflate, and each result is
# dumped with ncz-dump.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/deps.sh
[ -f _build/build.ninja ] || meson setup _build -Dbuildtype=debugoptimized
ninja -C _build

# the modules of the build tree (an installed Ncz finds its own)
NCZ_PLUGIN_PATH=$(find "$top/_build/storage-drivers" "$top/_build/backends" \
                       "$top/_build/plugins" -name '*.plugin' -printf '%h\n' | sort -u | paste -sd: -)
export NCZ_PLUGIN_PATH
export NCZ_PLUGIN_SYSTEM_PATH=
tools=$top/_build/tools
out=${1:-$top/_build/sample}
rm -rf "$out.file" "$out-zstd.file" "$out.zarr" "$out.nc"

src="file://$out.file#mode=nczarr,file"
zstd="file://$out-zstd.file#mode=nczarr,file"
zarr="file://$out.zarr#mode=zarr,file"

echo "== ncz-gen -o $src docs/samples/sample.cdl"
"$tools/ncz-gen/ncz-gen" -o "$src" docs/samples/sample.cdl
echo "== ncz-copy -F '*,32015,1' $src $zstd"
"$tools/ncz-copy/ncz-copy" -F '*,32015,1' "$src" "$zstd"
echo "== ncz-copy $zstd $zarr"
"$tools/ncz-copy/ncz-copy" "$zstd" "$zarr"

echo "== ncz-copy -F '*,deflate,1' $zarr $out.nc"
"$tools/ncz-copy/ncz-copy" -F '*,deflate,1' "$zarr" "$out.nc"

echo "== ncz-dump -s $zstd"
"$tools/ncz-dump/ncz-dump" -s "$zstd"
echo "== ncz-dump $zarr"
"$tools/ncz-dump/ncz-dump" "$zarr"
echo "== ncz-dump -s $out.nc"
"$tools/ncz-dump/ncz-dump" -s "$out.nc"
