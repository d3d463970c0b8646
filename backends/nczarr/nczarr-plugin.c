/* nczarr-plugin.c: entry point of the NCZarr format module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-nczarr-format.h"

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_nczarr_describe (void);

static gboolean
register_nczarr (NczRegistry *registry, GError **error)
{
  ncz_registry_add_format (registry, "nczarr", NCZ_TYPE_NCZARR_FORMAT, NCZ_PRIORITY_PRIMARY);
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
