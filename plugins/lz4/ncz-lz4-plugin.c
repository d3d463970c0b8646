/* ncz-lz4-plugin.c: libncz-codec-lz4.so's exports (Ncz, HDF5, netcdf-c)
 *
 * What NCZ_DEFINE_CODEC_MODULE expands to, except that the HDF5 filter
 * function runs the descriptor's h5_encode / h5_decode: through the HDF5
 * plugin ABI, chunks use the HDF5 lz4 filter's framing (or numcodecs'
 * when netcdf-c passes the working parameters of a Zarr variable), while
 * Ncz's NczCodec always uses numcodecs' framing. See ncz-lz4-codec.c.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-lz4-codec.h"

/* The descriptor as the HDF5 host sees it: the filter is h5_encode /
 * h5_decode, everything else as for Ncz. */
static const NczCodecModuleDesc *
lz4_h5_desc (void)
{
  static NczCodecModuleDesc h5_desc;
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      h5_desc = ncz_lz4_codec_desc;
      h5_desc.encode = ncz_lz4_codec_desc.h5_encode;
      h5_desc.decode = ncz_lz4_codec_desc.h5_decode;
      g_once_init_leave (&initialized, 1);
    }
  return &h5_desc;
}

/* ---- Ncz ---- */

static gboolean
lz4_register (NczRegistry *registry, GError **error)
{
  ncz_registry_add_codec (registry, ncz_codec_module_get_type ("NczLz4Codec", &ncz_lz4_codec_desc),
                          ncz_lz4_codec_desc.codec_id, ncz_lz4_codec_desc.filter_id,
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_lz4_describe (void);

const NczPluginDesc *
ncz_plugin_lz4_describe (void)
{
  static NczPluginDesc described;
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      described.abi = NCZ_PLUGIN_ABI;
      described.name = "lz4";
      described.version = NCZ_VERSION;
      described.license = "BSD-3-Clause";
      described.description = ncz_lz4_codec_desc.description;
      described.register_func = lz4_register;
      g_once_init_leave (&initialized, 1);
    }
  return &described;
}

/* ---- HDF5 ---- */

static size_t
lz4_h5_filter (unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
               size_t nbytes, size_t *buf_size, void **buf)
{
  return ncz_codec_module_h5_filter (lz4_h5_desc (), flags, cd_nelmts, cd_values, nbytes,
                                     buf_size, buf);
}

NCZ_PLUGIN_EXPORT NczH5PLType H5PLget_plugin_type (void);

NczH5PLType
H5PLget_plugin_type (void)
{
  return NCZ_H5PL_TYPE_FILTER;
}

NCZ_PLUGIN_EXPORT const void *H5PLget_plugin_info (void);

const void *
H5PLget_plugin_info (void)
{
  static const NczH5ZClass2 h5_class = {
    NCZ_H5Z_CLASS_T_VERS, 32004, 1, 1, "lz4 (Ncz)", NULL, NULL, lz4_h5_filter,
  };

  return &h5_class;
}

/* ---- netcdf-c ---- */

static int
lz4_to_hdf5 (const char *codec, size_t *nparamsp, unsigned **paramsp)
{
  return ncz_codec_module_to_hdf5 (&ncz_lz4_codec_desc, codec, nparamsp, paramsp);
}

static int
lz4_to_codec (size_t nparams, const unsigned *params, char **codecp)
{
  return ncz_codec_module_to_codec (&ncz_lz4_codec_desc, nparams, params, codecp);
}

static int
lz4_modify (int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp, size_t *wnparamsp,
            unsigned **wparamsp)
{
  return ncz_codec_module_modify (&ncz_lz4_codec_desc, ncid, varid, vnparamsp, vparamsp,
                                  wnparamsp, wparamsp);
}

NCZ_PLUGIN_EXPORT const void *NCZ_get_codec_info (void);

const void *
NCZ_get_codec_info (void)
{
  static const NczAbiCodec codec = {
    NCZ_ABI_CODEC_CLASS_VER, NCZ_ABI_CODEC_HDF5, "lz4", 32004, NULL, NULL,
    lz4_to_hdf5, lz4_to_codec, lz4_modify,
  };

  return &codec;
}
