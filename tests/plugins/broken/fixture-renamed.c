/* fixture-renamed.c: a module whose descriptor names another plugin
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

static gboolean
register_renamed (NczRegistry *registry,
                  GError     **error)
{
  g_error ("register_func of a module that misnames itself must not be called");
  return FALSE;
}

static const NczPluginDesc renamed_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-somebody-else",
  .register_func = register_renamed,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_renamed_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_renamed_describe (void)
{
  return &renamed_desc;
}
