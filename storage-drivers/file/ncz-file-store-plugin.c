/* ncz-file-store-plugin.c: entry point of the file storage module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-file-store.h"

static gboolean
register_file_store (NczRegistry *registry,
                     GError     **error)
{
  ncz_registry_add_store (registry, "file", NCZ_TYPE_FILE_STORE, NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc file_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "file",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "Directory-tree storage",
  .register_func = register_file_store,
};

const NczPluginDesc *
ncz_plugin_file_describe (void)
{
  return &file_plugin_desc;
}
