/* ncz-zip-store-plugin.c: entry point of the zip storage module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-zip-store.h"

static gboolean
register_zip_store (NczRegistry *registry,
                    GError     **error)
{
  ncz_registry_add_store (registry, "zip", NCZ_TYPE_ZIP_STORE, NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc zip_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "zip",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "Zip-archive storage (libzip)",
  .register_func = register_zip_store,
};

const NczPluginDesc *
ncz_plugin_zip_describe (void)
{
  return &zip_plugin_desc;
}
