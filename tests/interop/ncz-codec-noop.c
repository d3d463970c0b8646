/* ncz-codec-noop.c: a test codec that leaves the bytes as they are
 *
 * HDF5 filter id 40000, codec id "noop", no parameters: the codec
 * netCDF's filter tests use in a chain (ref_multi.cdl: "307,9|1,2|40000").
 * Built for the interop tests only, never installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#define NOOP_FILTER_ID 40000

typedef struct { GObject parent_instance; } NczNoopCodec;
typedef struct { GObjectClass parent_class; } NczNoopCodecClass;

static GType ncz_noop_codec_get_type (void);
static void ncz_noop_codec_iface_init (NczCodecInterface *iface);

G_DEFINE_TYPE_WITH_CODE (NczNoopCodec, ncz_noop_codec, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, ncz_noop_codec_iface_init))

static void ncz_noop_codec_class_init (NczNoopCodecClass *klass) { }
static void ncz_noop_codec_init (NczNoopCodec *self) { }

static const char *
noop_get_codec_id (NczCodec *self)
{
  return "noop";
}

static guint
noop_get_filter_id (NczCodec *self)
{
  return NOOP_FILTER_ID;
}

static gboolean
noop_params_from_json (NczCodec *self, JsonObject *json, GArray **params, GError **error)
{
  const char *id = json_object_get_string_member_with_default (json, "id", NULL);

  if (g_strcmp0 (id, "noop") != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "noop: codec JSON \"id\" is %s%s%s, not \"noop\"", id ? "\"" : "",
                   id ? id : "missing", id ? "\"" : "");
      return FALSE;
    }
  *params = g_array_new (FALSE, FALSE, sizeof (guint));
  return TRUE;
}

static JsonObject *
noop_params_to_json (NczCodec *self, const guint *params, gsize n_params, GError **error)
{
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "id", "noop");
  return json;
}

static gboolean
noop_modify_parameters (NczCodec *self, NczVariable *variable, GArray *visible,
                        GArray **working, GError **error)
{
  *working = g_array_new (FALSE, FALSE, sizeof (guint));
  if (visible != NULL && visible->len > 0)
    g_array_append_vals (*working, visible->data, visible->len);
  return TRUE;
}

static GBytes *
noop_run (NczCodec *self, const guint *working, gsize n_working, GBytes *input, GError **error)
{
  return g_bytes_ref (input);
}

static void
ncz_noop_codec_iface_init (NczCodecInterface *iface)
{
  iface->get_codec_id = noop_get_codec_id;
  iface->get_filter_id = noop_get_filter_id;
  iface->params_from_json = noop_params_from_json;
  iface->params_to_json = noop_params_to_json;
  iface->modify_parameters = noop_modify_parameters;
  iface->encode = noop_run;
  iface->decode = noop_run;
}

static gboolean
register_noop (NczRegistry *registry, GError **error)
{
  ncz_registry_add_codec (registry, ncz_noop_codec_get_type (), "noop", NOOP_FILTER_ID,
                          NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc noop_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "noop",
  .version = "1.0",
  .license = "BSD-3-Clause",
  .description = "Test codec that copies its input (HDF5 filter 40000)",
  .register_func = register_noop,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_noop_describe (void);

const NczPluginDesc *
ncz_plugin_noop_describe (void)
{
  return &noop_desc;
}
