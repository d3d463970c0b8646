/* sdkxor-codec.c: a codec module written outside Ncz's tree
 *
 * Built by tests/sdk/test-out-of-tree.py against the installed
 * ncz-1.0.pc only (public headers and the module SDK), as a third party
 * builds one. Codec id "sdkxor", HDF5 filter id 300 (in HDF5's range for
 * testing). Encoding reverses the bytes of a buffer and XORs each with a
 * one-byte key; decoding undoes it. Codec JSON: {"id": "sdkxor", "key": K},
 * K from 0 to 255, read and written as a json-glib JsonObject (the codec
 * configuration type of the NczCodec interface); visible and working
 * parameters: [K]. A bytes to bytes codec (NCZ_CODEC_KIND_BYTES_TO_BYTES).
 *
 * The module file is libncz-codec-sdkxor.so, so its one entry point is
 * ncz_plugin_sdkxor_describe.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#define NCZ_ENABLE_MODULE_API
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>
#include <json-glib/json-glib.h>

#define SDKXOR_CODEC_ID "sdkxor"
#define SDKXOR_FILTER_ID 300

#define SDKXOR_TYPE_CODEC (sdkxor_codec_get_type ())
G_DECLARE_FINAL_TYPE (SdkxorCodec, sdkxor_codec, SDKXOR, CODEC, GObject)

struct _SdkxorCodec
{
  GObject parent_instance;
};

static void sdkxor_codec_iface_init (NczCodecInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SdkxorCodec, sdkxor_codec, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, sdkxor_codec_iface_init))

/* ---- the codec JSON: the one place that reads and writes it ---- */

/* {"id": "sdkxor", "key": K} (a json-glib object, as Ncz passes codec
 * configuration) to the key; FALSE with @error set naming the JSON key
 * at fault. */
static gboolean
key_from_json (JsonObject *config, guint *key, GError **error)
{
  JsonNode *id = json_object_get_member (config, "id");
  JsonNode *value = json_object_get_member (config, "key");
  gint64 k;

  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) ||
      json_node_get_value_type (id) != G_TYPE_STRING ||
      g_strcmp0 (json_node_get_string (id), SDKXOR_CODEC_ID) != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "sdkxor: codec JSON: 'id' must be \"" SDKXOR_CODEC_ID "\"");
      return FALSE;
    }
  if (value == NULL || !JSON_NODE_HOLDS_VALUE (value) ||
      json_node_get_value_type (value) != G_TYPE_INT64 ||
      (k = json_node_get_int (value)) < 0 || k > 255)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "sdkxor: codec JSON: 'key' must be an integer from 0 to 255");
      return FALSE;
    }
  *key = (guint) k;
  return TRUE;
}

/* A new codec dict, "id" first. */
static JsonObject *
key_to_json (guint key)
{
  JsonObject *config = json_object_new ();

  json_object_set_string_member (config, "id", SDKXOR_CODEC_ID);
  json_object_set_int_member (config, "key", key);
  return config;
}

/* ---- NczCodec ---- */

static const char *
sdkxor_get_codec_id (NczCodec *codec)
{
  return SDKXOR_CODEC_ID;
}

static guint
sdkxor_get_filter_id (NczCodec *codec)
{
  return SDKXOR_FILTER_ID;
}

static gboolean
check_key (const guint *params, gsize n_params, GError **error)
{
  if (n_params != 1 || params[0] > 255)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "sdkxor: one parameter, the key (0 to 255), expected");
      return FALSE;
    }
  return TRUE;
}

static NczCodecKind
sdkxor_get_kind (NczCodec *codec)
{
  return NCZ_CODEC_KIND_BYTES_TO_BYTES;   /* bytes in, bytes out */
}

static gboolean
sdkxor_params_from_json (NczCodec *codec, JsonObject *config, GArray **params,
                         GError **error)
{
  guint key;

  if (!key_from_json (config, &key, error))
    return FALSE;
  *params = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_val (*params, key);
  return TRUE;
}

static JsonObject *
sdkxor_params_to_json (NczCodec *codec, const guint *params, gsize n_params, GError **error)
{
  if (!check_key (params, n_params, error))
    return NULL;
  return key_to_json (params[0]);
}

static gboolean
sdkxor_modify_parameters (NczCodec *codec, NczVariable *variable, GArray *visible,
                          GArray **working, GError **error)
{
  if (!check_key ((const guint *) visible->data, visible->len, error))
    return FALSE;
  *working = g_array_copy (visible);
  return TRUE;
}

/* Reversed and XORed with the key: the same steps undo it. */
static GBytes *
transform (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize n = 0, capacity = 0;
  const guint8 *in = g_bytes_get_data (input, &n);
  guint8 *out;
  guint8 key;

  if (!check_key (working, n_working, error))
    return NULL;
  key = (guint8) working[0];
  out = ncz_buffer_alloc (MAX (n, 1), &capacity);   /* from Ncz's pool */
  for (gsize i = 0; i < n; i++)
    out[n - 1 - i] = (guint8) (in[i] ^ key);
  return ncz_buffer_new_bytes (out, n, capacity);
}

static GBytes *
sdkxor_encode (NczCodec *codec, const guint *working, gsize n_working, GBytes *input,
               GError **error)
{
  return transform (working, n_working, input, error);
}

static GBytes *
sdkxor_decode (NczCodec *codec, const guint *working, gsize n_working, GBytes *input,
               GError **error)
{
  return transform (working, n_working, input, error);
}

static void
sdkxor_codec_iface_init (NczCodecInterface *iface)
{
  iface->get_codec_id = sdkxor_get_codec_id;
  iface->get_filter_id = sdkxor_get_filter_id;
  iface->get_kind = sdkxor_get_kind;
  iface->params_from_json = sdkxor_params_from_json;
  iface->params_to_json = sdkxor_params_to_json;
  iface->modify_parameters = sdkxor_modify_parameters;
  iface->encode = sdkxor_encode;
  iface->decode = sdkxor_decode;
}

static void
sdkxor_codec_class_init (SdkxorCodecClass *klass)
{
}

static void
sdkxor_codec_init (SdkxorCodec *self)
{
}

/* ---- the module ---- */

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_sdkxor_describe (void);

static gboolean
register_sdkxor (NczRegistry *registry, GError **error)
{
  ncz_registry_add_codec (registry, SDKXOR_TYPE_CODEC, SDKXOR_CODEC_ID, SDKXOR_FILTER_ID,
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc sdkxor_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "sdkxor",
  .version = "0.1.0",
  .license = "BSD-3-Clause",
  .description = "Byte-reversing XOR codec built out of tree",
  .register_func = register_sdkxor,
};

const NczPluginDesc *
ncz_plugin_sdkxor_describe (void)
{
  return &sdkxor_desc;
}
