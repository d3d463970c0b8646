/* fixture-codec.c: a module providing a codec by Zarr id and HDF5 id
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

FIXTURE_CODEC_TYPE (FixtureCodec, fixture_codec)

static gboolean
register_codec (NczRegistry *registry,
                GError     **error)
{
  ncz_registry_add_codec (registry, fixture_codec_get_type (), "fixture-codec", 65000,
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc codec_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-codec",
  .version = "0.1",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: a codec",
  .register_func = register_codec,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_codec_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_codec_describe (void)
{
  return &codec_desc;
}
