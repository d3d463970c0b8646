/* fixture-failinit.c: a module whose register_func fails
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

FIXTURE_STORE_TYPE (FixtureFailinitStore, fixture_failinit_store)

static gboolean
register_failinit (NczRegistry *registry,
                   GError     **error)
{
  /* Registers, then fails: the registration must not survive. */
  ncz_registry_add_store (registry, "fixture-failinit", fixture_failinit_store_get_type (),
                          NCZ_PRIORITY_PRIMARY);
  g_set_error_literal (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_FAILED,
                       "fixture device not present");
  return FALSE;
}

static const NczPluginDesc failinit_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-failinit",
  .version = "1.0",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: failing register_func",
  .register_func = register_failinit,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_failinit_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_failinit_describe (void)
{
  return &failinit_desc;
}
