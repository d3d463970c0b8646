/* fixture-wrongabi.c: a module built for another plugin ABI
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

static gboolean
register_wrongabi (NczRegistry *registry,
                   GError     **error)
{
  g_error ("register_func of a module with the wrong ABI must not be called");
  return FALSE;
}

static const NczPluginDesc wrongabi_desc = {
  .abi = 999,
  .name = "fixture-wrongabi",
  .version = "9.9.9",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: wrong ABI",
  .register_func = register_wrongabi,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_wrongabi_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_wrongabi_describe (void)
{
  return &wrongabi_desc;
}
