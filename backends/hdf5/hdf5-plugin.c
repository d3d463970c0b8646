/* hdf5-plugin.c: entry point of the HDF5 (netCDF-4) format module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "hdf5-private.h"

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_hdf5_describe (void);

/* What the format claims (written into hdf5.plugin): HDF5's signature at
 * offset 0, 512, 1024, 2048, ... (the user block sizes HDF5 allows), and
 * the URL mode word "bytes" (one file read through a store with ranged
 * reads). The backend opens its file itself. */
static const char * const hdf5_modes[] = { "bytes", NULL };
static const guint8 hdf5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
static const guint64 hdf5_offsets[] = { 0, 512 };

static const NczFormatProbe hdf5_probe = {
  .modes = hdf5_modes,
  .signature = hdf5_signature,
  .signature_length = sizeof hdf5_signature,
  .signature_offsets = hdf5_offsets,
  .n_signature_offsets = G_N_ELEMENTS (hdf5_offsets),
  .signature_offsets_double = TRUE,
  .needs_store = FALSE,
};

static gboolean
register_hdf5 (NczRegistry *registry, GError **error)
{
  ncz_registry_add_format_with_probe (registry, "hdf5", NCZ_TYPE_HDF5_FORMAT,
                                      NCZ_PRIORITY_PRIMARY, &hdf5_probe);
  return TRUE;
}

static const NczPluginDesc hdf5_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "hdf5",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "netCDF-4 files (HDF5) format backend",
  .register_func = register_hdf5,
};

const NczPluginDesc *
ncz_plugin_hdf5_describe (void)
{
  return &hdf5_plugin_desc;
}
