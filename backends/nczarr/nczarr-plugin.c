/* nczarr-plugin.c: entry point of the NCZarr format module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-nczarr-format.h"

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_nczarr_describe (void);

/* What the format claims (written into nczarr.plugin): the URL mode words
 * of NCZarr and pure Zarr v2, and the root keys of a Zarr v2 store: a
 * group, an array, or the superblock object of NCZarr 1 (netcdf-c 4.8).
 * Whether a store is NCZarr or pure Zarr is told by reading .zgroup
 * (_nczarr_superblock), which the backend does when it opens. */
static const char * const nczarr_modes[] = { "nczarr", "zarr", "xarray", "noxarray", NULL };
static const char * const nczarr_markers[] = { ".zgroup", ".zarray", ".nczarr", NULL };

static const NczFormatProbe nczarr_probe = {
  .modes = nczarr_modes,
  .markers = nczarr_markers,
  .needs_store = TRUE,
};

static gboolean
register_nczarr (NczRegistry *registry, GError **error)
{
  ncz_registry_add_format_with_probe (registry, "nczarr", NCZ_TYPE_NCZARR_FORMAT,
                                      NCZ_PRIORITY_PRIMARY, &nczarr_probe);
  return TRUE;
}

static const NczPluginDesc nczarr_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "nczarr",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "NCZarr and Zarr version 2 format backend",
  .register_func = register_nczarr,
};

const NczPluginDesc *
ncz_plugin_nczarr_describe (void)
{
  return &nczarr_plugin_desc;
}
