/* fixture-good.c: a module that does everything right
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

FIXTURE_STORE_TYPE (FixtureGoodStore, fixture_good_store)

static gboolean
register_good (NczRegistry *registry,
               GError     **error)
{
  ncz_registry_add_store (registry, "fixture-good", fixture_good_store_get_type (),
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc good_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-good",
  .version = "1.2.3",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: a store that loads",
  .register_func = register_good,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_good_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_good_describe (void)
{
  return &good_desc;
}
