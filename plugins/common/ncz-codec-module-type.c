/* ncz-codec-module-type.c: the NczCodec GType of a codec module
 *
 * One GType per module, registered from its NczCodecModuleDesc: Ncz's
 * view of the codec (ids, kind, codec configuration as json-glib
 * objects, working parameters from an NczVariable, encode/decode).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "ncz-codec-module-private.h"

typedef struct {
  GObject parent_instance;
} NczCodecModuleCodec;

typedef struct {
  GObjectClass parent_class;
  const NczCodecModuleDesc *desc;
} NczCodecModuleCodecClass;

void
ncz_codec_module_ensure_initialized (const NczCodecModuleDesc *desc)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      if (desc->initialize != NULL)
        desc->initialize ();
      g_once_init_leave (&done, 1);
    }
}

gboolean
ncz_codec_module_host_is_big_endian (void)
{
  return G_BYTE_ORDER == G_BIG_ENDIAN;
}

gsize
ncz_codec_module_mul_saturate (gsize a, guint64 b)
{
  if (b != 0 && a > G_MAXSIZE / b)
    return G_MAXSIZE;
  return a * (gsize) b;
}

GArray *
ncz_codec_module_working_from_visible (const NczCodecModuleDesc *desc,
                                       const NczCodecVarInfo *info, GArray *visible,
                                       GError **error)
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

static const NczCodecModuleDesc *
codec_desc (NczCodec *self)
{
  return ((NczCodecModuleCodecClass *) G_OBJECT_GET_CLASS (self))->desc;
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

static NczCodecKind
module_codec_get_kind (NczCodec *self)
{
  NczCodecKind kind = codec_desc (self)->kind;

  return kind != 0 ? kind : NCZ_CODEC_KIND_BYTES_TO_BYTES;
}

static gboolean
module_codec_params_from_json (NczCodec *self, JsonObject *json, GArray **params, GError **error)
{
  GArray *visible = ncz_codec_module_visible_from_json (codec_desc (self), json, error);

  if (visible == NULL)
    return FALSE;
  *params = visible;
  return TRUE;
}

static JsonObject *
module_codec_params_to_json (NczCodec *self, const guint *params, gsize n_params, GError **error)
{
  return ncz_codec_module_json_from_visible (codec_desc (self), params, n_params, error);
}

static gboolean
module_codec_modify_parameters (NczCodec *self, NczVariable *variable, GArray *visible,
                                GArray **working, GError **error)
{
  NczCodecVarInfo info;
  GArray *result;

  ncz_codec_var_info_from_variable (variable, &info);
  result = ncz_codec_module_working_from_visible (codec_desc (self), &info, visible, error);
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
  NczCodecFilterFunc func = decode ? desc->decode : desc->encode;

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
  iface->get_kind = module_codec_get_kind;
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

  ncz_codec_module_ensure_initialized (desc);
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
      info->chunk_bytes = ncz_codec_module_mul_saturate (info->chunk_bytes, chunks[i]);
    }
  endianness = ncz_variable_get_endianness (variable);
  info->big_endian = endianness == NCZ_ENDIANNESS_BIG
                     || (endianness == NCZ_ENDIANNESS_NATIVE
                         && ncz_codec_module_host_is_big_endian ());
}
