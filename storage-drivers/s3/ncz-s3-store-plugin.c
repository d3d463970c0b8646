/* ncz-s3-store-plugin.c: entry point of the S3 storage module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-s3-store.h"

static gboolean
register_s3_store (NczRegistry *registry,
                   GError     **error)
{
  ncz_registry_add_store (registry, "s3", NCZ_TYPE_S3_STORE, NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc s3_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "s3",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "S3 object storage (libsoup-3, AWS Signature V4)",
  .register_func = register_s3_store,
};

const NczPluginDesc *
ncz_plugin_s3_describe (void)
{
  return &s3_plugin_desc;
}
