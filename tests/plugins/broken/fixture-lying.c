/* fixture-lying.c: a module that registers less than its manifest claims
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

FIXTURE_STORE_TYPE (FixtureLyingStore, fixture_lying_store)

static gboolean
register_lying (NczRegistry *registry,
                GError     **error)
{
  /* The manifest also claims codec:lie. */
  ncz_registry_add_store (registry, "fixture-lying", fixture_lying_store_get_type (),
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc lying_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-lying",
  .version = "1.0",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: lying manifest",
  .register_func = register_lying,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_lying_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_lying_describe (void)
{
  return &lying_desc;
}
