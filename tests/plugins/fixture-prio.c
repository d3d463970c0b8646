/* fixture-prio.c: two modules providing the same store at different
 * priorities (built into priolow/ and priohigh/)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "fixture.h"

#ifdef FIXTURE_PRIO_HIGH
FIXTURE_STORE_TYPE (FixturePrioHighStore, fixture_prio_store)
#define PLUGIN_NAME "fixture-prio-high"
#define PRIORITY NCZ_PRIORITY_PRIMARY
#define ENTRY_POINT ncz_plugin_fixture_prio_high_describe
#else
FIXTURE_STORE_TYPE (FixturePrioLowStore, fixture_prio_store)
#define PLUGIN_NAME "fixture-prio-low"
#define PRIORITY NCZ_PRIORITY_FALLBACK
#define ENTRY_POINT ncz_plugin_fixture_prio_low_describe
#endif

static gboolean
register_prio (NczRegistry *registry,
               GError     **error)
{
  ncz_registry_add_store (registry, "fixture-prio", fixture_prio_store_get_type (), PRIORITY);
  return TRUE;
}

static const NczPluginDesc prio_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = PLUGIN_NAME,
  .version = "1.0",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: " PLUGIN_NAME,
  .register_func = register_prio,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ENTRY_POINT (void);

const NczPluginDesc *
ENTRY_POINT (void)
{
  return &prio_desc;
}
