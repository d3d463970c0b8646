#!/usr/bin/env bash
# Sets everything up and runs the main job: a CDL sample is converted to
# an NCZarr dataset in a directory tree (the default file driver), then
# dumped with ncz-dump, in NCZarr and in pure-Zarr form.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/deps.sh
[ -f _build/build.ninja ] || meson setup _build -Dbuildtype=debugoptimized
ninja -C _build

export NCZ_PLUGIN_PATH="$top/_build/storage-drivers/file:$top/_build/backends/nczarr"
export NCZ_PLUGIN_SYSTEM_PATH=
out=${1:-$top/_build/sample}
rm -rf "$out.file" "$out.zarr"

# Convert: CDL -> NCZarr (file driver). ncz-gen arrives with the tools
# issue; until then netcdf-c's ncgen writes the store.
ncgen -4 -lb -o "file://$out.file#mode=nczarr,file" docs/samples/sample.cdl
ncgen -4 -lb -o "file://$out.zarr#mode=zarr,file" docs/samples/sample.cdl

echo "== ncz-dump -s file://$out.file#mode=nczarr,file"
_build/tools/ncz-dump/ncz-dump -s "file://$out.file#mode=nczarr,file"
echo "== ncz-dump file://$out.zarr#mode=zarr,file"
_build/tools/ncz-dump/ncz-dump "file://$out.zarr#mode=zarr,file"
