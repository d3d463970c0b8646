/* ncz-codec-dtype.c: numpy-style element types for Ncz's codec modules
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "ncz-codec-dtype.h"

static gboolean
valid (const NczCodecDtype *d)
{
  switch (d->kind)
    {
    case NCZ_CODEC_DTYPE_INT:
    case NCZ_CODEC_DTYPE_UINT:
      return d->size == 1 || d->size == 2 || d->size == 4 || d->size == 8;
    case NCZ_CODEC_DTYPE_FLOAT:
      return d->size == 4 || d->size == 8;
    default:
      return FALSE;
    }
}

gboolean
ncz_codec_dtype_parse (const char *text, NczCodecDtype *dtype, GError **error)
{
  const char *p = text;
  NczCodecDtype d = { 0, 0, G_BYTE_ORDER == G_BIG_ENDIAN };

  g_return_val_if_fail (text != NULL && dtype != NULL, FALSE);
  if (*p == '<' || *p == '|')
    d.big_endian = FALSE, p++;
  else if (*p == '>')
    d.big_endian = TRUE, p++;
  else if (*p == '=')
    p++;
  switch (*p)
    {
    case 'i': d.kind = NCZ_CODEC_DTYPE_INT; break;
    case 'u': d.kind = NCZ_CODEC_DTYPE_UINT; break;
    case 'f': d.kind = NCZ_CODEC_DTYPE_FLOAT; break;
    default: break;
    }
  if (d.kind != 0 && p[1] >= '1' && p[1] <= '8' && p[2] == '\0')
    d.size = (guint) (p[1] - '0');
  if (d.size == 1)
    d.big_endian = FALSE;
  if (!valid (&d))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "unsupported element type '%s' (expected a numpy type string such as "
                   "'<i4', '|u1' or '<f8': integers of 1, 2, 4 or 8 bytes, floats of 4 or 8)",
                   text);
      return FALSE;
    }
  *dtype = d;
  return TRUE;
}

char *
ncz_codec_dtype_to_string (const NczCodecDtype *dtype)
{
  static const char kinds[] = { '?', 'i', 'u', 'f' };

  g_return_val_if_fail (dtype != NULL && valid (dtype), NULL);
  return g_strdup_printf ("%c%c%u", dtype->size == 1 ? '|' : dtype->big_endian ? '>' : '<',
                          kinds[dtype->kind], dtype->size);
}

guint
ncz_codec_dtype_pack (const NczCodecDtype *dtype)
{
  return ((guint) dtype->kind << 16) | ((dtype->big_endian ? 1u : 0u) << 8) | dtype->size;
}

gboolean
ncz_codec_dtype_unpack (guint packed, NczCodecDtype *dtype, GError **error)
{
  NczCodecDtype d;

  d.kind = (NczCodecDtypeKind) (packed >> 16);
  d.big_endian = ((packed >> 8) & 0xff) == 1;
  d.size = packed & 0xff;
  if (!valid (&d) || ((packed >> 8) & 0xff) > 1)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "parameter %u is not an element type", packed);
      return FALSE;
    }
  *dtype = d;
  return TRUE;
}

void
ncz_codec_error_append_json (GError **error, JsonObject *dict)
{
  g_autoptr (NczJson) node = NULL;
  g_autofree char *json = NULL;
  char *message;

  if (error == NULL || *error == NULL || dict == NULL)
    return;
  node = ncz_json_from_json_object (dict);
  json = ncz_json_to_string (node, FALSE);
  message = g_strdup_printf ("%s (codec JSON %s)", (*error)->message, json);
  g_free ((*error)->message);
  (*error)->message = message;
}

gboolean
ncz_codec_json_get_dtype (JsonObject *dict, const char *key, NczCodecDtype *dtype,
                          GError **error)
{
  JsonNode *member = json_object_get_member (dict, key);
  const char *text;

  if (member == NULL || json_node_get_value_type (member) != G_TYPE_STRING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key '%s' is %s, expected a numpy type string such as '<i4'", key,
                   member == NULL ? "missing" : ncz_codec_json_kind_name (member));
      return FALSE;
    }
  text = json_node_get_string (member);
  if (!ncz_codec_dtype_parse (text, dtype, error))
    {
      g_prefix_error (error, "codec JSON key '%s': ", key);
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  return TRUE;
}

guint64
ncz_codec_dtype_load_bits (const NczCodecDtype *dtype, const guint8 *data, gsize index)
{
  const guint8 *p = data + index * dtype->size;
  guint64 v = 0;

  if (dtype->big_endian)
    for (guint i = 0; i < dtype->size; i++)
      v = (v << 8) | p[i];
  else
    for (guint i = dtype->size; i-- > 0;)
      v = (v << 8) | p[i];
  return v;
}

void
ncz_codec_dtype_store_bits (const NczCodecDtype *dtype, guint8 *data, gsize index, guint64 bits)
{
  guint8 *p = data + index * dtype->size;

  for (guint i = 0; i < dtype->size; i++)
    {
      guint8 byte = (guint8) (bits >> (8 * i));
      if (dtype->big_endian)
        p[dtype->size - 1 - i] = byte;
      else
        p[i] = byte;
    }
}

gint64
ncz_codec_dtype_load_int (const NczCodecDtype *dtype, const guint8 *data, gsize index)
{
  guint64 bits = ncz_codec_dtype_load_bits (dtype, data, index);
  guint shift = 64 - 8 * dtype->size;

  if (dtype->kind == NCZ_CODEC_DTYPE_INT && shift > 0 && (bits >> (8 * dtype->size - 1)) != 0)
    bits |= ~G_GUINT64_CONSTANT (0) << (8 * dtype->size);
  return (gint64) bits;
}

gdouble
ncz_codec_dtype_load_float (const NczCodecDtype *dtype, const guint8 *data, gsize index)
{
  guint64 bits = ncz_codec_dtype_load_bits (dtype, data, index);

  if (dtype->size == 4)
    {
      guint32 b32 = (guint32) bits;
      gfloat f;
      memcpy (&f, &b32, sizeof f);
      return f;
    }
  else
    {
      gdouble d;
      memcpy (&d, &bits, sizeof d);
      return d;
    }
}

void
ncz_codec_dtype_store_float (const NczCodecDtype *dtype, guint8 *data, gsize index,
                             gdouble value)
{
  guint64 bits;

  if (dtype->size == 4)
    {
      gfloat f = (gfloat) value;
      guint32 b32;
      memcpy (&b32, &f, sizeof b32);
      bits = b32;
    }
  else
    memcpy (&bits, &value, sizeof bits);
  ncz_codec_dtype_store_bits (dtype, data, index, bits);
}

gboolean
ncz_codec_dtype_check_length (const NczCodecDtype *dtype, const char *codec_id, gsize length,
                              GError **error)
{
  if (length % dtype->size != 0)
    {
      g_autofree char *name = ncz_codec_dtype_to_string (dtype);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "%s: %" G_GSIZE_FORMAT " bytes are not whole elements of type '%s'",
                   codec_id, length, name);
      return FALSE;
    }
  return TRUE;
}

gboolean
ncz_codec_dtype_float_to_int (const NczCodecDtype *dtype, gdouble value, guint64 *bits)
{
  gdouble t = trunc (value), limit = ldexp (1.0, (int) (8 * dtype->size));

  if (isnan (value))
    return FALSE;
  if (dtype->kind == NCZ_CODEC_DTYPE_INT)
    {
      if (t < -limit / 2 || t >= limit / 2)
        return FALSE;
      *bits = (guint64) (gint64) t;
    }
  else
    {
      if (t < 0 || t >= limit)
        return FALSE;
      *bits = (guint64) t;
    }
  if (dtype->size < 8)
    *bits &= (G_GUINT64_CONSTANT (1) << (8 * dtype->size)) - 1;
  return TRUE;
}

gboolean
ncz_codec_json_get_double (JsonObject *dict, const char *key, gdouble *value, GError **error)
{
  JsonNode *member = json_object_get_member (dict, key);
  GType type = member != NULL && JSON_NODE_HOLDS_VALUE (member)
               ? json_node_get_value_type (member) : G_TYPE_INVALID;
  gdouble v = NAN;

  if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
    v = json_node_get_double (member);
  else if (type == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (member);
      char *end = NULL;

      if (text[0] != '\0')
        {
          v = g_ascii_strtod (text, &end);
          if (end == NULL || *end != '\0')
            v = NAN;
        }
    }
  if (member == NULL || !isfinite (v))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key '%s' is %s, expected a finite number", key,
                   member == NULL ? "missing" : "not a finite number");
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  *value = v;
  return TRUE;
}

void
ncz_codec_params_append_double (GArray *params, gdouble value)
{
  guint64 bits;
  guint half[2];

  memcpy (&bits, &value, sizeof bits);
  half[0] = (guint) (bits & 0xffffffffu);
  half[1] = (guint) (bits >> 32);
  g_array_append_vals (params, half, 2);
}

gdouble
ncz_codec_params_get_double (const guint *params)
{
  guint64 bits = (guint64) params[0] | (guint64) params[1] << 32;
  gdouble value;

  memcpy (&value, &bits, sizeof value);
  return value;
}

JsonNode *
ncz_codec_json_new_number (gdouble value)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  if (isfinite (value) && value == trunc (value) && fabs (value) <= 9007199254740992.0)
    json_node_set_int (node, (gint64) value);
  else
    json_node_set_double (node, value);
  return node;
}
