/* fixture-dup.c: built into dup1/ and dup2/ under the same file name
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "fixture.h"

FIXTURE_STORE_TYPE (FixtureDupStore, fixture_dup_store)

static gboolean
register_dup (NczRegistry *registry,
              GError     **error)
{
  ncz_registry_add_store (registry, "fixture-dup", fixture_dup_store_get_type (),
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc dup_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-dup",
  .version = "1.0",
  .license = "BSD-3-Clause",
  .description = FIXTURE_DUP_DESCRIPTION,
  .register_func = register_dup,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_dup_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_dup_describe (void)
{
  return &dup_desc;
}
