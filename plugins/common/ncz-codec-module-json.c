/* ncz-codec-module-json.c: codec configuration for codec modules
 *
 * Codec configuration crosses the SDK as json-glib objects. JSON text (the
 * netcdf-c Codec ABI's form) is read with Ncz's exact reader and written
 * with its writer, so integers stay integers and doubles get the
 * shortest text that reads back, as numcodecs writes them.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "ncz-codec-module-private.h"

GArray *
ncz_codec_module_visible_from_json (const NczCodecModuleDesc *desc, JsonObject *dict,
                                    GError **error)
{
  JsonNode *id;
  const char *id_text;
  GArray *visible;

  id = json_object_get_member (dict, "id");
  if (id == NULL || json_node_get_value_type (id) != G_TYPE_STRING)
    {
      char *to_free = NULL;
      const char *what = id == NULL ? "missing" : ncz_codec_json_describe (id, &to_free);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON key 'id' is %s, expected the string \"%s\"",
                   desc->codec_id, what, desc->codec_id);
      g_free (to_free);
      return NULL;
    }
  id_text = json_node_get_string (id);
  if (g_strcmp0 (id_text, desc->codec_id) != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON key 'id' is \"%s\", expected \"%s\"",
                   desc->codec_id, id_text, desc->codec_id);
      return NULL;
    }

  visible = g_array_new (FALSE, FALSE, sizeof (guint));
  if (desc->from_json != NULL && !desc->from_json (dict, visible, error))
    {
      g_array_unref (visible);
      if (error != NULL && *error != NULL)
        g_prefix_error (error, "codec '%s': ", desc->codec_id);
      return NULL;
    }
  return visible;
}

GArray *
ncz_codec_module_visible_from_json_text (const NczCodecModuleDesc *desc, const char *json,
                                         GError **error)
{
  g_autoptr (NczJson) root = NULL;
  g_autoptr (JsonObject) dict = NULL;
  g_autoptr (GError) local_error = NULL;

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
  dict = ncz_json_to_json_object (root);
  return ncz_codec_module_visible_from_json (desc, dict, error);
}

JsonObject *
ncz_codec_module_json_from_visible (const NczCodecModuleDesc *desc, const guint *params,
                                    gsize n_params, GError **error)
{
  JsonObject *dict;

  if (desc->to_json == NULL)
    {
      dict = json_object_new ();
      json_object_set_string_member (dict, "id", desc->codec_id);
      return dict;
    }
  dict = desc->to_json (params, n_params, error);
  if (dict == NULL && error != NULL && *error != NULL)
    g_prefix_error (error, "codec '%s': ", desc->codec_id);
  return dict;
}

/* ---- reading members ---- */

const char *
ncz_codec_json_kind_name (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
        case G_TYPE_DOUBLE:
          return "number";
        case G_TYPE_STRING:
          return "string";
        case G_TYPE_BOOLEAN:
          return "boolean";
        default:
          return "invalid";
        }
    }
}

const char *
ncz_codec_json_describe (JsonNode *node, char **to_free)
{
  *to_free = NULL;
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *to_free = g_strdup_printf ("the number %" G_GINT64_FORMAT, json_node_get_int (node));
      return *to_free;
    case G_TYPE_DOUBLE:
      {
        g_autofree char *text = ncz_format_double_roundtrip (json_node_get_double (node));
        *to_free = g_strdup_printf ("the number %s", text);
        return *to_free;
      }
    case G_TYPE_STRING:
      {
        g_autofree char *escaped = g_strescape (json_node_get_string (node), NULL);
        *to_free = g_strdup_printf ("the string \"%.64s\"", escaped);
        return *to_free;
      }
    case G_TYPE_BOOLEAN:
      return "boolean";
    default:
      return "invalid";
    }
}

static gboolean
json_get_integer (JsonObject *dict, const char *key, gboolean is_signed, gboolean has_default,
                  gint64 fallback, gint64 min, gint64 max, gint64 *value, GError **error)
{
  JsonNode *member;
  gint64 v = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (dict != NULL && key != NULL && value != NULL, FALSE);

  member = json_object_get_member (dict, key);
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
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

  if (JSON_NODE_HOLDS_VALUE (member))
    switch (json_node_get_value_type (member))
      {
      case G_TYPE_INT64:
        v = json_node_get_int (member);
        ok = is_signed || v >= 0;
        break;
      case G_TYPE_DOUBLE:
        {
          /* 3.0 and 1e3 are integers too */
          gdouble d = json_node_get_double (member);
          ok = isfinite (d) && d == floor (d) && d >= -9223372036854775808.0
               && d < 9223372036854775808.0 && (is_signed || d >= 0);
          v = ok ? (gint64) d : 0;
          break;
        }
      case G_TYPE_STRING:
        {
          g_autofree char *trimmed = g_strstrip (g_strdup (json_node_get_string (member)));

          if (trimmed[0] != '\0')
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
          break;
        }
      default:
        break;
      }

  if (ok && (v < min || v > max))
    ok = FALSE;
  if (!ok)
    {
      char *to_free = NULL;
      const char *what = ncz_codec_json_describe (member, &to_free);
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
ncz_codec_json_get_uint (JsonObject *dict, const char *key, gboolean has_default,
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
ncz_codec_json_get_int (JsonObject *dict, const char *key, gboolean has_default,
                        gint fallback, gint *value, GError **error)
{
  gint64 v;

  g_return_val_if_fail (value != NULL, FALSE);
  if (!json_get_integer (dict, key, TRUE, has_default, fallback, G_MININT, G_MAXINT, &v, error))
    return FALSE;
  *value = (gint) v;
  return TRUE;
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
ncz_codec_level_from_json (const NczCodecLevel *spec, JsonObject *dict, GArray *visible,
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

JsonObject *
ncz_codec_level_to_json (const NczCodecLevel *spec, const guint *visible, gsize n_visible,
                         GError **error)
{
  JsonObject *dict;
  gint level;

  if (!ncz_codec_level_from_params (spec, visible, n_visible, &level, error))
    return NULL;
  dict = json_object_new ();
  json_object_set_string_member (dict, "id", spec->codec_id);
  json_object_set_int_member (dict, "level", level);
  return dict;
}
