/* ncz-codec-module.h: the shared frame of Ncz's codec modules
 *
 * A codec module describes its codec once, in an NczCodecModuleDesc, and
 * NCZ_DEFINE_CODEC_MODULE() turns that into everything the module
 * exports, so the same .so serves three hosts:
 *  - Ncz: `ncz_plugin_<name>_describe` registering a GType that
 *    implements NczCodec (codec id, HDF5 id, JSON <-> visible parameters,
 *    modify_parameters, encode/decode);
 *  - HDF5 / h5py: `H5PLget_plugin_type` and `H5PLget_plugin_info`
 *    returning an H5Z_class2_t whose filter function runs the same
 *    encode/decode on malloc'd buffers (visible parameters as cd_values);
 *  - netcdf-c: `NCZ_get_codec_info` returning an NCZ_codec_t whose
 *    functions convert JSON text <-> visible parameters and, where the
 *    host provides nc_inq_var/nc_inq_type (looked up at run time),
 *    derive working parameters.
 * See <ncz/ncz-filter-abi.h> for the two ABIs. The frame is split by job:
 * ncz-codec-module-type.c (the GType adapter), ncz-codec-module-json.c
 * (codec configuration on json-glib), ncz-codec-module-hdf5.c (the HDF5
 * plugin ABI host) and ncz-codec-module-netcdf.c (the netcdf-c Codec ABI
 * host).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#ifndef NCZ_ENABLE_MODULE_API
#define NCZ_ENABLE_MODULE_API
#endif
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

G_BEGIN_DECLS

/* What a codec may need to know of the variable it serves, whichever
 * host asks (Ncz fills it from NczVariable, netcdf-c from nc_inq_*). */
typedef struct {
  NczDataType type;              /* NCZ_DATA_TYPE_NONE when unknown (HDF5 host) */
  gsize type_size;           /* bytes per element as stored; 0 when unknown */
  guint rank;
  guint64 chunks[32];        /* chunk lengths, rank of them */
  gsize chunk_bytes;         /* bytes in one chunk before filtering */
  gboolean big_endian;       /* data stored big-endian */
} NczCodecVarInfo;

typedef GBytes *(*NczCodecFilterFunc) (const guint *params, gsize n_params, GBytes *input,
                                        GError **error);

typedef struct {
  const char *codec_id;      /* Zarr / numcodecs id: "zstd" */
  guint filter_id;           /* HDF5 filter id: 32015 */
  const char *name;          /* H5Z_class2_t name: "zstd (Ncz)" */
  const char *description;   /* one line, for ncz-inspect */
  const char *json_example;  /* e.g. {"id": "zstd", "level": 1} */

  /* Codec JSON dict -> visible parameters (append to @visible); checks
   * them (errors name the JSON key). Numbers may be JSON numbers or
   * numeric strings (netcdf-c <= 4.9.3). */
  gboolean (*from_json) (JsonObject *dict, GArray *visible, GError **error);
  /* Visible parameters -> a new codec JSON dict with "id" first; numbers
   * as JSON numbers (numcodecs-compatible: integers as json-glib
   * integers, see ncz_codec_json_new_number()). */
  JsonObject *(*to_json) (const guint *visible, gsize n_visible, GError **error);
  /* Optional: visible -> working parameters (append to @working); may
   * rewrite @visible. NULL means working = visible. */
  gboolean (*modify) (const NczCodecVarInfo *info, GArray *visible, GArray *working,
                      GError **error);
  /* The filter. Errors use NCZ_CODEC_ERROR. */
  GBytes *(*encode) (const guint *working, gsize n_working, GBytes *input, GError **error);
  GBytes *(*decode) (const guint *working, gsize n_working, GBytes *input, GError **error);
  /* Optional library setup / teardown (blosc_init / blosc_destroy). */
  void (*initialize) (void);
  void (*finalize) (void);
  /* Optional: the filter as run through the HDF5 plugin ABI (the
   * H5Z_class2_t filter function, called with cd_values by libhdf5 and
   * with working parameters by netcdf-c's NCZarr). NULL means the HDF5
   * path runs encode/decode above. For codecs whose HDF5 chunk framing
   * differs from the Zarr (numcodecs) one: lz4, whose module exports its
   * own HDF5 filter function running these (ncz-lz4-plugin.c).
   * ncz_codec_module_h5_filter() should run them too when they are set. */
  GBytes *(*h5_encode) (const guint *cd_values, gsize n_cd_values, GBytes *input, GError **error);
  GBytes *(*h5_decode) (const guint *cd_values, gsize n_cd_values, GBytes *input, GError **error);
  /* TRUE: the HDF5 class gets a set_local callback that turns the
   * cd_values the application gave into working parameters through
   * @modify, from the dataset's type size, byte order and chunk shape
   * (as HDF5's own filters do), where the working form is what the same
   * filter id's HDF5 plugins store (blosc). */
  gboolean h5_set_local;
  /* Where the codec stands in a pipeline; 0 means
   * NCZ_CODEC_KIND_BYTES_TO_BYTES (compressors and checksums). */
  NczCodecKind kind;
} NczCodecModuleDesc;

/* Registers (once) a GType named @type_name implementing NczCodec for
 * @desc. Used by NCZ_DEFINE_CODEC_MODULE. */
GType ncz_codec_module_get_type (const char *type_name, const NczCodecModuleDesc *desc);

/* Fills @info from an Ncz variable. */
void ncz_codec_var_info_from_variable (NczVariable *variable, NczCodecVarInfo *info);

/* Helpers for from_json: reads an unsigned integer member that may be a
 * JSON number or a numeric string; @fallback when absent (has_default),
 * else an NCZ_CODEC_ERROR_BAD_PARAMETERS error naming @key. */
gboolean ncz_codec_json_get_uint (JsonObject *dict, const char *key, gboolean has_default,
                                  guint fallback, guint *value, GError **error);
gboolean ncz_codec_json_get_int (JsonObject *dict, const char *key, gboolean has_default,
                                 gint fallback, gint *value, GError **error);

/* A short description of a JSON value for error messages: "the number
 * 5", "the string \"x\"", "boolean", "array", ... (@to_free is set when
 * the result must be freed). */
const char *ncz_codec_json_describe (JsonNode *node, char **to_free);
/* "number", "string", "boolean", "null", "array" or "object". */
const char *ncz_codec_json_kind_name (JsonNode *node);

/* Codecs whose only parameter is a compression level (zlib, bz2, zstd):
 * visible = working = [level], the level stored as an unsigned bit
 * pattern (negative zstd levels), JSON {"id": ID, "level": L}. */
typedef struct {
  const char *codec_id;
  gint min;
  gint max;
  gint fallback;            /* when the JSON or the parameters give none */
} NczCodecLevel;

gboolean ncz_codec_level_from_json (const NczCodecLevel *spec, JsonObject *dict,
                                    GArray *visible, GError **error);
JsonObject *ncz_codec_level_to_json (const NczCodecLevel *spec, const guint *visible,
                                  gsize n_visible, GError **error);
gboolean ncz_codec_level_from_params (const NczCodecLevel *spec, const guint *params,
                                      gsize n_params, gint *level, GError **error);

/* The ABI adapters; each module instantiates them for its descriptor. */
ncz_h5_herr_t ncz_codec_module_h5_set_local (const NczCodecModuleDesc *desc, ncz_h5_hid_t dcpl,
                                             ncz_h5_hid_t type, ncz_h5_hid_t space);
gsize ncz_codec_module_h5_filter (const NczCodecModuleDesc *desc, unsigned int flags,
                                  size_t cd_nelmts, const unsigned int cd_values[],
                                  size_t nbytes, size_t *buf_size, void **buf);
int ncz_codec_module_to_hdf5 (const NczCodecModuleDesc *desc, const char *codec,
                              size_t *nparamsp, unsigned **paramsp);
int ncz_codec_module_to_codec (const NczCodecModuleDesc *desc, size_t nparams,
                               const unsigned *params, char **codecp);
int ncz_codec_module_modify (const NczCodecModuleDesc *desc, int ncid, int varid,
                             size_t *vnparamsp, unsigned **vparamsp,
                             size_t *wnparamsp, unsigned **wparamsp);

/*
 * NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (module_name, TypeName, desc):
 *   the Ncz entry point only, for codecs that have no HDF5 filter id
 *   (numcodecs' gzip, delta, ...): desc.filter_id is 0, and the module
 *   exports neither the HDF5 plugin ABI nor netcdf-c's Codec ABI, both of
 *   which identify a filter by its HDF5 id.
 */
#define NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY(module_name, TypeName, desc)                     \
  static gboolean                                                                         \
  ncz_codec_module_register_##module_name (NczRegistry *registry, GError **error)         \
  {                                                                                       \
    ncz_registry_add_codec (registry, ncz_codec_module_get_type (#TypeName, &(desc)),     \
                            (desc).codec_id, (desc).filter_id, NCZ_PRIORITY_PRIMARY);     \
    return TRUE;                                                                          \
  }                                                                                       \
  NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_##module_name##_describe (void);      \
  const NczPluginDesc *                                                                   \
  ncz_plugin_##module_name##_describe (void)                                              \
  {                                                                                       \
    static const NczPluginDesc plugin_desc = {                                            \
      NCZ_PLUGIN_ABI, #module_name, NCZ_VERSION_STRING, "BSD-3-Clause", NULL,                    \
      ncz_codec_module_register_##module_name, { NULL }                                   \
    };                                                                                    \
    static NczPluginDesc described;                                                       \
    described = plugin_desc;                                                              \
    described.description = (desc).description;                                           \
    return &described;                                                                    \
  }

/*
 * NCZ_DEFINE_CODEC_MODULE (module_name, TypeName, desc):
 *   module_name  the plugin name: the module is libncz-codec-<name>.so and its
 *             entry point ncz_plugin_<name>_describe
 *   TypeName  the GType name, unique per module ("NczZstdCodec")
 *   desc      a static const NczCodecModuleDesc
 * Expands to the Ncz entry point, the HDF5 ABI exports and the netcdf-c
 * Codec ABI export.
 */
#define NCZ_DEFINE_CODEC_MODULE(module_name, TypeName, desc)                              \
  NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (module_name, TypeName, desc)                          \
  static size_t                                                                           \
  ncz_codec_module_h5_##module_name (unsigned int flags, size_t cd_nelmts,                \
                              const unsigned int cd_values[], size_t nbytes,              \
                              size_t *buf_size, void **buf)                               \
  {                                                                                       \
    return ncz_codec_module_h5_filter (&(desc), flags, cd_nelmts, cd_values,              \
                                       nbytes, buf_size, buf);                            \
  }                                                                                       \
  static ncz_h5_herr_t                                                                    \
  ncz_codec_module_h5_set_local_##module_name (ncz_h5_hid_t dcpl, ncz_h5_hid_t type,      \
                                               ncz_h5_hid_t space)                        \
  {                                                                                       \
    return ncz_codec_module_h5_set_local (&(desc), dcpl, type, space);                    \
  }                                                                                       \
  NCZ_PLUGIN_EXPORT NczH5PLType H5PLget_plugin_type (void);                               \
  NczH5PLType H5PLget_plugin_type (void) { return NCZ_H5PL_TYPE_FILTER; }                 \
  NCZ_PLUGIN_EXPORT const void *H5PLget_plugin_info (void);                               \
  const void *                                                                            \
  H5PLget_plugin_info (void)                                                              \
  {                                                                                       \
    static NczH5ZClass2 h5_class;                                                         \
    h5_class.version = NCZ_H5Z_CLASS_T_VERS;                                              \
    h5_class.id = (ncz_h5_filter_t) (desc).filter_id;                                     \
    h5_class.encoder_present = 1;                                                         \
    h5_class.decoder_present = 1;                                                         \
    h5_class.name = (desc).name;                                                          \
    h5_class.filter = ncz_codec_module_h5_##module_name;                                  \
    h5_class.set_local = (desc).h5_set_local ? ncz_codec_module_h5_set_local_##module_name  \
                                             : NULL;                                      \
    return &h5_class;                                                                     \
  }                                                                                       \
  static int ncz_codec_module_to_hdf5_##module_name (const char *c, size_t *n, unsigned **p)\
  { return ncz_codec_module_to_hdf5 (&(desc), c, n, p); }                                 \
  static int ncz_codec_module_to_codec_##module_name (size_t n, const unsigned *p, char **c)\
  { return ncz_codec_module_to_codec (&(desc), n, p, c); }                                \
  static int ncz_codec_module_modify_##module_name (int ncid, int varid, size_t *vn,      \
                                             unsigned **vp, size_t *wn, unsigned **wp)    \
  { return ncz_codec_module_modify (&(desc), ncid, varid, vn, vp, wn, wp); }              \
  NCZ_PLUGIN_EXPORT const void *NCZ_get_codec_info (void);                                \
  const void *                                                                            \
  NCZ_get_codec_info (void)                                                               \
  {                                                                                       \
    static NczAbiCodec codec;                                                             \
    codec.version = NCZ_ABI_CODEC_CLASS_VER;                                              \
    codec.sort = NCZ_ABI_CODEC_HDF5;                                                      \
    codec.codecid = (desc).codec_id;                                                      \
    codec.hdf5id = (desc).filter_id;                                                      \
    codec.NCZ_codec_initialize = (desc).initialize;                                       \
    codec.NCZ_codec_finalize = (desc).finalize;                                           \
    codec.NCZ_codec_to_hdf5 = ncz_codec_module_to_hdf5_##module_name;                     \
    codec.NCZ_hdf5_to_codec = ncz_codec_module_to_codec_##module_name;                    \
    codec.NCZ_modify_parameters = ncz_codec_module_modify_##module_name;                  \
    return &codec;                                                                        \
  }

G_END_DECLS
