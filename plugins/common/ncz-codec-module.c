/* ncz-codec-module.c: the shared frame of Ncz's codec modules
 *
 * One NczCodecModuleDesc drives three hosts: the NczCodec GType that Ncz
 * uses, the HDF5 filter function, and netcdf-c's Codec functions. See
 * ncz-codec-module.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "ncz-codec-module.h"

/* ---- library setup ----
 *
 * Ncz and HDF5 never call the codec's initialize function themselves
 * (netcdf-c does, through NCZ_codec_initialize): it runs once, before
 * the first type registration or HDF5 filter call. A module holds one
 * descriptor, and each module has its own copy of this code. */

static void
ensure_initialized (const NczCodecModuleDesc *desc)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      if (desc->initialize != NULL)
        desc->initialize ();
      g_once_init_leave (&done, 1);
    }
}

/* ---- the NczCodec GType ---- */

typedef struct {
  GObject parent_instance;
} NczCodecModuleCodec;

typedef struct {
  GObjectClass parent_class;
  const NczCodecModuleDesc *desc;
} NczCodecModuleCodecClass;

static const NczCodecModuleDesc *
codec_desc (NczCodec *self)
{
  return ((NczCodecModuleCodecClass *) G_OBJECT_GET_CLASS (self))->desc;
}

/* Parses codec JSON text into visible parameters for @desc. */
static GArray *
visible_from_json_text (const NczCodecModuleDesc *desc, const char *json, GError **error)
{
  g_autoptr (NczJson) root = NULL;
  g_autoptr (GError) local_error = NULL;
  NczJson *id;
  const char *id_text;
  GArray *visible;

  root = ncz_json_parse (json, -1, &local_error);
  if (root == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': invalid codec JSON: %s", desc->codec_id, local_error->message);
      return NULL;
    }
  if (ncz_json_get_kind (root) != NCZ_JSON_OBJECT)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON must be an object, not %s", desc->codec_id,
                   ncz_json_kind_name (ncz_json_get_kind (root)));
      return NULL;
    }
  id = ncz_json_object_get (root, "id");
  if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON key 'id' is %s, expected the string \"%s\"",
                   desc->codec_id, id == NULL ? "missing" : ncz_json_kind_name (ncz_json_get_kind (id)),
                   desc->codec_id);
      return NULL;
    }
  id_text = ncz_json_get_string (id, NULL);
  if (g_strcmp0 (id_text, desc->codec_id) != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON key 'id' is \"%s\", expected \"%s\"",
                   desc->codec_id, id_text, desc->codec_id);
      return NULL;
    }

  visible = g_array_new (FALSE, FALSE, sizeof (guint));
  if (desc->from_json != NULL && !desc->from_json (root, visible, error))
    {
      g_array_unref (visible);
      if (error != NULL && *error != NULL)
        g_prefix_error (error, "codec '%s': ", desc->codec_id);
      return NULL;
    }
  return visible;
}

static char *
json_text_from_visible (const NczCodecModuleDesc *desc, const guint *params, gsize n_params,
                        GError **error)
{
  g_autoptr (NczJson) node = NULL;

  if (desc->to_json != NULL)
    {
      node = desc->to_json (params, n_params, error);
      if (node == NULL)
        {
          if (error != NULL && *error != NULL)
            g_prefix_error (error, "codec '%s': ", desc->codec_id);
          return NULL;
        }
    }
  else
    {
      node = ncz_json_new_object ();
      ncz_json_object_set (node, "id", ncz_json_new_string (desc->codec_id, -1));
    }
  return ncz_json_to_string (node, FALSE);
}

/* Runs desc->modify (or copies) on @visible; returns the working params. */
static GArray *
working_from_visible (const NczCodecModuleDesc *desc, const NczCodecVarInfo *info,
                      GArray *visible, GError **error)
{
  GArray *working;

  if (desc->modify == NULL)
    return g_array_copy (visible);

  working = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!desc->modify (info, visible, working, error))
    {
      g_array_unref (working);
      if (error != NULL && *error != NULL)
        g_prefix_error (error, "codec '%s': ", desc->codec_id);
      return NULL;
    }
  return working;
}

static const char *
module_codec_get_codec_id (NczCodec *self)
{
  return codec_desc (self)->codec_id;
}

static guint
module_codec_get_filter_id (NczCodec *self)
{
  return codec_desc (self)->filter_id;
}

static gboolean
module_codec_params_from_json (NczCodec *self, const char *json, GArray **params, GError **error)
{
  GArray *visible = visible_from_json_text (codec_desc (self), json, error);

  if (visible == NULL)
    return FALSE;
  *params = visible;
  return TRUE;
}

static char *
module_codec_params_to_json (NczCodec *self, const guint *params, gsize n_params, GError **error)
{
  return json_text_from_visible (codec_desc (self), params, n_params, error);
}

static gboolean
module_codec_modify_parameters (NczCodec *self, NczVariable *variable, GArray *visible,
                                GArray **working, GError **error)
{
  NczCodecVarInfo info;
  GArray *result;

  ncz_codec_var_info_from_variable (variable, &info);
  result = working_from_visible (codec_desc (self), &info, visible, error);
  if (result == NULL)
    return FALSE;
  *working = result;
  return TRUE;
}

static GBytes *
module_codec_run (NczCodec *self, gboolean decode, const guint *working, gsize n_working,
                  GBytes *input, GError **error)
{
  const NczCodecModuleDesc *desc = codec_desc (self);
  GBytes *(*func) (const guint *, gsize, GBytes *, GError **) = decode ? desc->decode : desc->encode;

  if (func == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "codec '%s' cannot %s",
                   desc->codec_id, decode ? "decode" : "encode");
      return NULL;
    }
  return func (working, n_working, input, error);
}

static GBytes *
module_codec_encode (NczCodec *self, const guint *working, gsize n_working, GBytes *input,
                     GError **error)
{
  return module_codec_run (self, FALSE, working, n_working, input, error);
}

static GBytes *
module_codec_decode (NczCodec *self, const guint *working, gsize n_working, GBytes *input,
                     GError **error)
{
  return module_codec_run (self, TRUE, working, n_working, input, error);
}

static void
module_codec_iface_init (gpointer g_iface, gpointer iface_data)
{
  NczCodecInterface *iface = g_iface;

  iface->get_codec_id = module_codec_get_codec_id;
  iface->get_filter_id = module_codec_get_filter_id;
  iface->params_from_json = module_codec_params_from_json;
  iface->params_to_json = module_codec_params_to_json;
  iface->modify_parameters = module_codec_modify_parameters;
  iface->encode = module_codec_encode;
  iface->decode = module_codec_decode;
}

static void
module_codec_class_init (gpointer g_class, gpointer class_data)
{
  ((NczCodecModuleCodecClass *) g_class)->desc = class_data;
}

static void
module_codec_instance_init (GTypeInstance *instance, gpointer g_class)
{
}

GType
ncz_codec_module_get_type (const char *type_name, const NczCodecModuleDesc *desc)
{
  static GMutex lock;
  GType type;

  g_return_val_if_fail (type_name != NULL && desc != NULL, G_TYPE_INVALID);

  ensure_initialized (desc);
  g_mutex_lock (&lock);
  type = g_type_from_name (type_name);
  if (type == G_TYPE_INVALID)
    {
      const GTypeInfo info = {
        sizeof (NczCodecModuleCodecClass),
        NULL, NULL,
        module_codec_class_init, NULL, desc,
        sizeof (NczCodecModuleCodec), 0,
        module_codec_instance_init,
        NULL,
      };
      const GInterfaceInfo iface_info = { module_codec_iface_init, NULL, NULL };

      type = g_type_register_static (G_TYPE_OBJECT, type_name, &info, G_TYPE_FLAG_FINAL);
      g_type_add_interface_static (type, NCZ_TYPE_CODEC, &iface_info);
    }
  g_mutex_unlock (&lock);
  return type;
}

/* ---- variable information ---- */

static gboolean
host_is_big_endian (void)
{
  return G_BYTE_ORDER == G_BIG_ENDIAN;
}

static gsize
mul_saturate (gsize a, guint64 b)
{
  if (b != 0 && a > G_MAXSIZE / b)
    return G_MAXSIZE;
  return a * (gsize) b;
}

void
ncz_codec_var_info_from_variable (NczVariable *variable, NczCodecVarInfo *info)
{
  const guint64 *chunks;
  guint n_dims = 0;
  NczEndianness endianness;

  g_return_if_fail (info != NULL);
  memset (info, 0, sizeof *info);
  if (variable == NULL)
    return;

  info->type = ncz_variable_get_value_type (variable);
  info->type_size = ncz_variable_get_storage_element_size (variable);
  chunks = ncz_variable_get_chunk_sizes (variable, &n_dims);
  info->chunk_bytes = info->type_size;
  if (chunks == NULL)
    n_dims = 0;
  info->rank = MIN (n_dims, G_N_ELEMENTS (info->chunks));
  for (guint i = 0; i < n_dims; i++)
    {
      if (i < G_N_ELEMENTS (info->chunks))
        info->chunks[i] = chunks[i];
      info->chunk_bytes = mul_saturate (info->chunk_bytes, chunks[i]);
    }
  endianness = ncz_variable_get_endianness (variable);
  info->big_endian = endianness == NCZ_ENDIANNESS_BIG
                     || (endianness == NCZ_ENDIANNESS_NATIVE && host_is_big_endian ());
}

/* ---- JSON helpers ---- */

static const char *
json_value_description (const NczJson *node, char **to_free)
{
  switch (ncz_json_get_kind (node))
    {
    case NCZ_JSON_NUMBER:
      *to_free = g_strdup_printf ("the number %s", ncz_json_get_number_text (node));
      return *to_free;
    case NCZ_JSON_STRING:
      {
        g_autofree char *escaped = g_strescape (ncz_json_get_string (node, NULL), NULL);
        *to_free = g_strdup_printf ("the string \"%.64s\"", escaped);
        return *to_free;
      }
    default:
      *to_free = NULL;
      return ncz_json_kind_name (ncz_json_get_kind (node));
    }
}

static gboolean
json_get_integer (const NczJson *dict, const char *key, gboolean is_signed, gboolean has_default,
                  gint64 fallback, gint64 min, gint64 max, gint64 *value, GError **error)
{
  NczJson *member;
  gint64 v = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (dict != NULL && key != NULL && value != NULL, FALSE);

  member = ncz_json_object_get (dict, key);
  if (member == NULL || ncz_json_get_kind (member) == NCZ_JSON_NULL)
    {
      if (has_default)
        {
          *value = fallback;
          return TRUE;
        }
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key '%s' is missing", key);
      return FALSE;
    }

  if (ncz_json_get_kind (member) == NCZ_JSON_NUMBER)
    {
      if (is_signed)
        ok = ncz_json_get_int64 (member, &v);
      else
        {
          guint64 u;
          ok = ncz_json_get_uint64 (member, &u) && u <= (guint64) G_MAXINT64;
          v = (gint64) u;
        }
    }
  else if (ncz_json_get_kind (member) == NCZ_JSON_STRING)
    {
      gsize length = 0;
      const char *text = ncz_json_get_string (member, &length);
      g_autofree char *trimmed = g_strstrip (g_strndup (text, length));

      /* an embedded NUL is never a number */
      if (trimmed[0] != '\0' && memchr (text, '\0', length) == NULL)
        {
          if (is_signed)
            ok = g_ascii_string_to_signed (trimmed, 10, G_MININT64, G_MAXINT64, &v, NULL);
          else
            {
              guint64 u = 0;
              ok = trimmed[0] != '-' &&
                   g_ascii_string_to_unsigned (trimmed, 10, 0, G_MAXINT64, &u, NULL);
              v = (gint64) u;
            }
        }
    }

  if (ok && (v < min || v > max))
    ok = FALSE;
  if (!ok)
    {
      char *to_free = NULL;
      const char *what = json_value_description (member, &to_free);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key '%s' must be %s integer between %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT ", not %s",
                   key, is_signed ? "an" : "an unsigned", min, max, what);
      g_free (to_free);
      return FALSE;
    }
  *value = v;
  return TRUE;
}

gboolean
ncz_codec_json_get_uint (const NczJson *dict, const char *key, gboolean has_default,
                         guint fallback, guint *value, GError **error)
{
  gint64 v;

  g_return_val_if_fail (value != NULL, FALSE);
  if (!json_get_integer (dict, key, FALSE, has_default, fallback, 0, G_MAXUINT, &v, error))
    return FALSE;
  *value = (guint) v;
  return TRUE;
}

gboolean
ncz_codec_json_get_int (const NczJson *dict, const char *key, gboolean has_default,
                        gint fallback, gint *value, GError **error)
{
  gint64 v;

  g_return_val_if_fail (value != NULL, FALSE);
  if (!json_get_integer (dict, key, TRUE, has_default, fallback, G_MININT, G_MAXINT, &v, error))
    return FALSE;
  *value = (gint) v;
  return TRUE;
}

/* ---- HDF5 filter ABI ----
 *
 * HDF5 hands the filter its cd_values. Codecs whose descriptor sets
 * h5_set_local get a set_local callback that stores the working
 * parameters in the dataset (from its type and chunk shape); for the
 * others these are the visible parameters the application gave (h5py's
 * compression_opts). Each codec's encode/decode therefore accepts the
 * visible form as working parameters too, using defaults that keep
 * encode and decode consistent when a working value is absent (shuffle
 * without an element size shuffles bytes of size 1, that is, copies). */

/* The HDF5 calls set_local needs, from the libhdf5 that loaded us: it
 * may have been loaded with RTLD_LOCAL (Python extension modules are),
 * so it is looked up among the loaded objects by name as well. */
typedef ncz_h5_herr_t (*H5PGetFilterByIdFunc) (ncz_h5_hid_t plist, ncz_h5_filter_t id,
                                               unsigned *flags, size_t *cd_nelmts,
                                               unsigned cd_values[], size_t namelen,
                                               char name[], unsigned *filter_config);
typedef ncz_h5_herr_t (*H5PModifyFilterFunc) (ncz_h5_hid_t plist, ncz_h5_filter_t id,
                                              unsigned flags, size_t cd_nelmts,
                                              const unsigned cd_values[]);
typedef int (*H5PGetChunkFunc) (ncz_h5_hid_t plist, int max_ndims, unsigned long long dims[]);
typedef size_t (*H5TGetSizeFunc) (ncz_h5_hid_t type);
typedef int (*H5TGetOrderFunc) (ncz_h5_hid_t type);

#define NCZ_H5T_ORDER_BE 1
#define NCZ_H5_MAX_CD_VALUES 64

static int
find_libhdf5 (struct dl_phdr_info *info, size_t size, void *data)
{
  const char *name = info->dlpi_name;
  const char *base = name ? strrchr (name, '/') : NULL;

  base = base ? base + 1 : name;
  if (base != NULL && g_str_has_prefix (base, "libhdf5") && !g_str_has_prefix (base, "libhdf5_hl")
      && !g_str_has_prefix (base, "libhdf5_serial_hl") && strstr (base, ".so") != NULL)
    {
      *(char **) data = g_strdup (name);
      return 1;
    }
  return 0;
}

static gpointer
hdf5_symbol (const char *symbol)
{
  static gsize initialized;
  static void *handle;
  gpointer p = dlsym (RTLD_DEFAULT, symbol);

  if (p != NULL)
    return p;
  if (g_once_init_enter (&initialized))
    {
      g_autofree char *path = NULL;
      dl_iterate_phdr (find_libhdf5, &path);
      if (path != NULL)
        handle = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
      g_once_init_leave (&initialized, 1);
    }
  return handle ? dlsym (handle, symbol) : NULL;
}

ncz_h5_herr_t
ncz_codec_module_h5_set_local (const NczCodecModuleDesc *desc, ncz_h5_hid_t dcpl,
                               ncz_h5_hid_t type, ncz_h5_hid_t space)
{
  H5PGetFilterByIdFunc get_filter = (H5PGetFilterByIdFunc) hdf5_symbol ("H5Pget_filter_by_id2");
  H5PModifyFilterFunc modify_filter = (H5PModifyFilterFunc) hdf5_symbol ("H5Pmodify_filter");
  H5PGetChunkFunc get_chunk = (H5PGetChunkFunc) hdf5_symbol ("H5Pget_chunk");
  H5TGetSizeFunc get_size = (H5TGetSizeFunc) hdf5_symbol ("H5Tget_size");
  H5TGetOrderFunc get_order = (H5TGetOrderFunc) hdf5_symbol ("H5Tget_order");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  unsigned cd_values[NCZ_H5_MAX_CD_VALUES];
  unsigned long long dims[G_N_ELEMENTS (((NczCodecVarInfo *) NULL)->chunks)];
  size_t n = G_N_ELEMENTS (cd_values);
  unsigned flags = 0;
  NczCodecVarInfo info;
  int rank;

  if (get_filter == NULL || modify_filter == NULL || get_chunk == NULL || get_size == NULL)
    {
      /* not inside libhdf5 after all: keep the parameters as given */
      g_debug ("%s: HDF5 functions not found; parameters kept as given", desc->codec_id);
      return 0;
    }
  ensure_initialized (desc);
  if (get_filter (dcpl, (ncz_h5_filter_t) desc->filter_id, &flags, &n, cd_values, 0, NULL,
                  NULL) < 0)
    return -1;
  if (n > G_N_ELEMENTS (cd_values))
    return -1;

  memset (&info, 0, sizeof info);
  info.type = NCZ_DATA_TYPE_NONE;
  info.type_size = get_size (type);
  info.big_endian = get_order != NULL && get_order (type) == NCZ_H5T_ORDER_BE;
  rank = get_chunk (dcpl, (int) G_N_ELEMENTS (dims), dims);
  if (rank < 0 || info.type_size == 0)
    return -1;
  info.rank = (guint) rank;
  info.chunk_bytes = info.type_size;
  for (int i = 0; i < rank; i++)
    {
      info.chunks[i] = dims[i];
      info.chunk_bytes = mul_saturate (info.chunk_bytes, dims[i]);
    }

  visible = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n);
  g_array_append_vals (visible, cd_values, (guint) n);
  working = working_from_visible (desc, &info, visible, &error);
  if (working == NULL)
    {
      g_debug ("%s: %s", desc->codec_id, error ? error->message : "modify failed");
      return -1;
    }
  return modify_filter (dcpl, (ncz_h5_filter_t) desc->filter_id, flags, working->len,
                        (const unsigned *) working->data);
}

gsize
ncz_codec_module_h5_filter (const NczCodecModuleDesc *desc, unsigned int flags,
                            size_t cd_nelmts, const unsigned int cd_values[],
                            size_t nbytes, size_t *buf_size, void **buf)
{
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) output = NULL;
  g_autoptr (GError) error = NULL;
  gboolean decode = (flags & NCZ_H5Z_FLAG_REVERSE) != 0;
  const guchar *data;
  gsize size;
  void *result;

  if (desc == NULL || buf == NULL || buf_size == NULL || (*buf == NULL && nbytes > 0))
    return 0;
  if (cd_nelmts > 0 && cd_values == NULL)
    return 0;

  ensure_initialized (desc);
  input = g_bytes_new_static (*buf, nbytes);
  if (decode)
    {
      /* a codec may frame its data differently for HDF5 hosts (lz4) */
      NczCodecFilterFunc dec = desc->h5_decode ? desc->h5_decode : desc->decode;
      output = dec != NULL ? dec (cd_values, cd_nelmts, input, &error) : NULL;
    }
  else
    {
      NczCodecFilterFunc enc = desc->h5_encode ? desc->h5_encode : desc->encode;
      output = enc != NULL ? enc (cd_values, cd_nelmts, input, &error) : NULL;
    }
  if (output == NULL)
    {
      g_debug ("%s filter %u (%s) failed: %s", decode ? "decoding" : "encoding",
               desc->filter_id, desc->codec_id, error != NULL ? error->message : "no codec");
      return 0;
    }

  data = g_bytes_get_data (output, &size);
  result = malloc (size > 0 ? size : 1);
  if (result == NULL)
    return 0;
  if (size > 0)
    memcpy (result, data, size);
  free (*buf);
  *buf = result;
  *buf_size = size > 0 ? size : 1;
  return size;
}

/* ---- netcdf-c Codec ABI ---- */

static unsigned *
malloc_params (const GArray *params)
{
  unsigned *p = malloc (MAX (params->len, 1) * sizeof (unsigned));

  if (p != NULL && params->len > 0)
    memcpy (p, params->data, params->len * sizeof (unsigned));
  return p;
}

int
ncz_codec_module_to_hdf5 (const NczCodecModuleDesc *desc, const char *codec,
                          size_t *nparamsp, unsigned **paramsp)
{
  g_autoptr (GError) error = NULL;
  GArray *visible;
  unsigned *p;

  if (desc == NULL || codec == NULL || nparamsp == NULL || paramsp == NULL)
    return NCZ_ABI_NC_EINVAL;

  visible = visible_from_json_text (desc, codec, &error);
  if (visible == NULL)
    {
      g_debug ("%s", error->message);
      return NCZ_ABI_NC_EFILTER;
    }
  p = malloc_params (visible);
  if (p == NULL)
    {
      g_array_unref (visible);
      return NCZ_ABI_NC_ENOMEM;
    }
  *nparamsp = visible->len;
  *paramsp = p;
  g_array_unref (visible);
  return NCZ_ABI_NC_NOERR;
}

int
ncz_codec_module_to_codec (const NczCodecModuleDesc *desc, size_t nparams,
                           const unsigned *params, char **codecp)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  char *copy;

  if (desc == NULL || codecp == NULL || (nparams > 0 && params == NULL))
    return NCZ_ABI_NC_EINVAL;

  text = json_text_from_visible (desc, params, nparams, &error);
  if (text == NULL)
    {
      g_debug ("%s", error != NULL ? error->message : "no JSON");
      return NCZ_ABI_NC_EFILTER;
    }
  copy = strdup (text);
  if (copy == NULL)
    return NCZ_ABI_NC_ENOMEM;
  *codecp = copy;
  return NCZ_ABI_NC_NOERR;
}

/* The netCDF inquiry functions, present when loaded into libnetcdf. */
typedef int (*NcInqVarFunc) (int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                             int *dimidsp, int *nattsp);
typedef int (*NcInqTypeFunc) (int ncid, int xtype, char *name, size_t *sizep);
typedef int (*NcInqVarChunkingFunc) (int ncid, int varid, int *storagep, size_t *chunksizesp);
typedef int (*NcInqVarEndianFunc) (int ncid, int varid, int *endianp);
typedef int (*NcInqDimlenFunc) (int ncid, int dimid, size_t *lenp);

#define NC_CHUNKED_VALUE 0
#define NC_ENDIAN_BIG_VALUE 2
#define NC_ENDIAN_NATIVE_VALUE 0
#define NC_MAX_ATOMIC_TYPE_VALUE 12
#define NC_MAX_VAR_DIMS_VALUE 1024

static gpointer
host_symbol (const char *name)
{
  return dlsym (RTLD_DEFAULT, name);
}

static int
var_info_from_netcdf (int ncid, int varid, NczCodecVarInfo *info)
{
  NcInqVarFunc inq_var = (NcInqVarFunc) host_symbol ("nc_inq_var");
  NcInqTypeFunc inq_type = (NcInqTypeFunc) host_symbol ("nc_inq_type");
  NcInqVarChunkingFunc inq_chunking = (NcInqVarChunkingFunc) host_symbol ("nc_inq_var_chunking");
  NcInqVarEndianFunc inq_endian = (NcInqVarEndianFunc) host_symbol ("nc_inq_var_endian");
  NcInqDimlenFunc inq_dimlen = (NcInqDimlenFunc) host_symbol ("nc_inq_dimlen");
  g_autofree int *dimids = NULL;
  g_autofree size_t *chunks = NULL;
  int xtype = 0, ndims = 0, storage = NC_CHUNKED_VALUE, endian = NC_ENDIAN_NATIVE_VALUE;
  size_t type_size = 0;
  int status;

  memset (info, 0, sizeof *info);
  if (inq_var == NULL || inq_type == NULL)
    return NCZ_ABI_NC_EFILTER;

  status = inq_var (ncid, varid, NULL, &xtype, &ndims, NULL, NULL);
  if (status != NCZ_ABI_NC_NOERR)
    return status;
  if (ndims < 0 || ndims > NC_MAX_VAR_DIMS_VALUE)
    return NCZ_ABI_NC_EINVAL;
  status = inq_type (ncid, xtype, NULL, &type_size);
  if (status != NCZ_ABI_NC_NOERR)
    return status;

  info->type = (xtype >= 1 && xtype <= NC_MAX_ATOMIC_TYPE_VALUE) ? (NczDataType) xtype : NCZ_DATA_TYPE_NONE;
  info->type_size = type_size;
  info->chunk_bytes = type_size;

  if (ndims > 0)
    {
      dimids = g_new0 (int, ndims);
      chunks = g_new0 (size_t, ndims);
      status = inq_var (ncid, varid, NULL, NULL, NULL, dimids, NULL);
      if (status != NCZ_ABI_NC_NOERR)
        return status;
      if (inq_chunking != NULL)
        {
          status = inq_chunking (ncid, varid, &storage, chunks);
          if (status != NCZ_ABI_NC_NOERR)
            return status;
        }
      else
        storage = -1;
      if (storage != NC_CHUNKED_VALUE)
        {
          /* not chunked: one chunk covers the variable */
          if (inq_dimlen == NULL)
            return NCZ_ABI_NC_EFILTER;
          for (int i = 0; i < ndims; i++)
            {
              status = inq_dimlen (ncid, dimids[i], &chunks[i]);
              if (status != NCZ_ABI_NC_NOERR)
                return status;
            }
        }
      info->rank = MIN ((guint) ndims, G_N_ELEMENTS (info->chunks));
      for (int i = 0; i < ndims; i++)
        {
          if ((guint) i < G_N_ELEMENTS (info->chunks))
            info->chunks[i] = chunks[i];
          info->chunk_bytes = mul_saturate (info->chunk_bytes, chunks[i]);
        }
    }

  if (inq_endian != NULL && inq_endian (ncid, varid, &endian) != NCZ_ABI_NC_NOERR)
    endian = NC_ENDIAN_NATIVE_VALUE;
  info->big_endian = endian == NC_ENDIAN_BIG_VALUE
                     || (endian == NC_ENDIAN_NATIVE_VALUE && host_is_big_endian ());
  return NCZ_ABI_NC_NOERR;
}

int
ncz_codec_module_modify (const NczCodecModuleDesc *desc, int ncid, int varid,
                         size_t *vnparamsp, unsigned **vparamsp,
                         size_t *wnparamsp, unsigned **wparamsp)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  NczCodecVarInfo info;
  unsigned *new_visible = NULL;
  unsigned *new_working;
  gboolean visible_changed;
  gsize n_visible;
  int status;

  if (desc == NULL || vnparamsp == NULL || vparamsp == NULL || wnparamsp == NULL
      || wparamsp == NULL)
    return NCZ_ABI_NC_EINVAL;
  n_visible = *vnparamsp;
  if (n_visible > 0 && *vparamsp == NULL)
    return NCZ_ABI_NC_EINVAL;
  if (n_visible > 4096)
    return NCZ_ABI_NC_EINVAL;

  visible = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_visible);
  if (n_visible > 0)
    g_array_append_vals (visible, *vparamsp, n_visible);

  memset (&info, 0, sizeof info);
  if (desc->modify != NULL)
    {
      status = var_info_from_netcdf (ncid, varid, &info);
      if (status != NCZ_ABI_NC_NOERR)
        return status;
    }

  working = working_from_visible (desc, &info, visible, &error);
  if (working == NULL)
    {
      g_debug ("%s", error != NULL ? error->message : "modify failed");
      return NCZ_ABI_NC_EFILTER;
    }

  visible_changed = visible->len != n_visible
                    || (n_visible > 0
                        && memcmp (visible->data, *vparamsp, n_visible * sizeof (unsigned)) != 0);
  if (visible_changed)
    {
      new_visible = malloc_params (visible);
      if (new_visible == NULL)
        return NCZ_ABI_NC_ENOMEM;
    }
  new_working = malloc_params (working);
  if (new_working == NULL)
    {
      free (new_visible);
      return NCZ_ABI_NC_ENOMEM;
    }

  if (visible_changed)
    {
      free (*vparamsp);
      *vparamsp = new_visible;
      *vnparamsp = visible->len;
    }
  free (*wparamsp);
  *wparamsp = new_working;
  *wnparamsp = working->len;
  return NCZ_ABI_NC_NOERR;
}

/* ---- level-only codecs ---- */

static gboolean
level_check (const NczCodecLevel *spec, gint64 level, GError **error)
{
  if (level < spec->min || level > spec->max)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "%s: level %" G_GINT64_FORMAT " is not between %d and %d",
                   spec->codec_id, level, spec->min, spec->max);
      return FALSE;
    }
  return TRUE;
}

gboolean
ncz_codec_level_from_json (const NczCodecLevel *spec, const NczJson *dict, GArray *visible,
                           GError **error)
{
  gint level;
  guint value;

  if (!ncz_codec_json_get_int (dict, "level", TRUE, spec->fallback, &level, error) ||
      !level_check (spec, level, error))
    return FALSE;
  value = (guint) level;
  g_array_append_val (visible, value);
  return TRUE;
}

gboolean
ncz_codec_level_from_params (const NczCodecLevel *spec, const guint *params, gsize n_params,
                             gint *level, GError **error)
{
  *level = n_params > 0 ? (gint) params[0] : spec->fallback;
  return level_check (spec, *level, error);
}

NczJson *
ncz_codec_level_to_json (const NczCodecLevel *spec, const guint *visible, gsize n_visible,
                         GError **error)
{
  NczJson *dict;
  gint level;

  if (!ncz_codec_level_from_params (spec, visible, n_visible, &level, error))
    return NULL;
  dict = ncz_json_new_object ();
  ncz_json_object_set (dict, "id", ncz_json_new_string (spec->codec_id, -1));
  ncz_json_object_set (dict, "level", ncz_json_new_int64 (level));
  return dict;
}
