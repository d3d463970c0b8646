/* nczarr-attrs.c: attributes as JSON values (.zattrs) and their types
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "nczarr-private.h"

gboolean
nczarr_attr_name_is_reserved (const char *name)
{
  if (g_str_equal (name, "_ARRAY_DIMENSIONS") || g_str_equal (name, "_NCProperties"))
    return TRUE;
  if (g_str_has_prefix (name, "_nczarr_"))
    return !g_str_equal (name, "_nczarr_maxstrlen") &&
           !g_str_equal (name, "_nczarr_default_maxstrlen");
  if (g_str_has_prefix (name, "_NCZARR_"))
    return TRUE;
  return FALSE;
}

static gboolean
is_atomic (const NczJson *node)
{
  NczJsonKind k = ncz_json_get_kind (node);
  return k == NCZ_JSON_NUMBER || k == NCZ_JSON_BOOLEAN || k == NCZ_JSON_STRING;
}

static NczAttribute *
text_attribute (const char *name, const NczJson *value)
{
  NczJsonKind kind = ncz_json_get_kind (value);

  if (kind == NCZ_JSON_STRING)
    {
      gsize len = 0;
      const char *s = ncz_json_get_string (value, &len);
      return ncz_attribute_new_text (name, s, len);
    }
  if (kind == NCZ_JSON_ARRAY)
    {
      gsize n = ncz_json_array_get_length (value);
      gboolean all_strings = n > 0;
      for (gsize i = 0; i < n && all_strings; i++)
        all_strings = ncz_json_get_kind (ncz_json_array_get (value, i)) == NCZ_JSON_STRING;
      if (all_strings)
        {
          /* a char attribute split into several strings: concatenate */
          g_autoptr(GString) s = g_string_new (NULL);
          for (gsize i = 0; i < n; i++)
            {
              gsize len = 0;
              const char *p = ncz_json_get_string (ncz_json_array_get (value, i), &len);
              g_string_append_len (s, p, len);
            }
          return ncz_attribute_new_text (name, s->str, s->len);
        }
    }
  {
    g_autofree char *text = ncz_json_to_string (value, FALSE);
    return ncz_attribute_new_text (name, text, -1);
  }
}

static NczAttribute *
strings_attribute (const char *name, const NczJson *value)
{
  NczJsonKind kind = ncz_json_get_kind (value);

  if (kind == NCZ_JSON_STRING)
    {
      const char *s = ncz_json_get_string (value, NULL);
      const char *strv[] = { s, NULL };
      return ncz_attribute_new_strings (name, strv, 1);
    }
  if (kind == NCZ_JSON_ARRAY)
    {
      gsize n = ncz_json_array_get_length (value);
      gboolean all_strings = TRUE;
      for (gsize i = 0; i < n && all_strings; i++)
        all_strings = ncz_json_get_kind (ncz_json_array_get (value, i)) == NCZ_JSON_STRING;
      if (all_strings)
        {
          g_autofree const char **strv = g_new0 (const char *, n + 1);
          for (gsize i = 0; i < n; i++)
            strv[i] = ncz_json_get_string (ncz_json_array_get (value, i), NULL);
          return ncz_attribute_new_strings (name, strv, n);
        }
    }
  {
    g_autofree char *text = ncz_json_to_string (value, FALSE);
    const char *strv[] = { text, NULL };
    return ncz_attribute_new_strings (name, strv, 1);
  }
}

/* Converts @value (an atomic or an array of atomics) to @type; NULL if a
 * value does not fit. */
static NczAttribute *
numeric_attribute (const char *name, const NczJson *value, NczDataType type,
                   GError **error)
{
  gsize tsize = ncz_data_type_get_size (type);
  g_autofree guint8 *buf = NULL;
  gsize n;

  if (ncz_json_get_kind (value) == NCZ_JSON_ARRAY)
    {
      n = ncz_json_array_get_length (value);
      buf = g_malloc0 (MAX (n, 1) * tsize);
      for (gsize i = 0; i < n; i++)
        {
          const NczJson *e = ncz_json_array_get (value, i);
          if (!is_atomic (e) || !nczarr_json_to_value (e, type, buf + i * tsize))
            return NULL;
        }
    }
  else
    {
      n = 1;
      buf = g_malloc0 (tsize);
      if (!nczarr_json_to_value (value, type, buf))
        return NULL;
    }
  return ncz_attribute_new_values (name, type, buf, n, error);
}

/* The netCDF type of untyped JSON numbers: double if any is not an
 * integer, else the first of int, uint, int64, uint64 holding them all. */
static NczDataType
infer_numeric_type (const NczJson *const *values, gsize n)
{
  gboolean all_bool = TRUE;
  gboolean fits_int = TRUE, fits_uint = TRUE, fits_int64 = TRUE, fits_uint64 = TRUE;

  for (gsize i = 0; i < n; i++)
    {
      const NczJson *v = values[i];
      gint64 iv;
      guint64 uv;
      gboolean has_i, has_u;

      if (ncz_json_get_kind (v) == NCZ_JSON_BOOLEAN)
        continue;
      all_bool = FALSE;
      if (!ncz_json_number_is_integer (v))
        return NCZ_DATA_TYPE_DOUBLE;
      has_i = ncz_json_get_int64 (v, &iv);
      has_u = ncz_json_get_uint64 (v, &uv);
      if (!has_i && !has_u)
        return NCZ_DATA_TYPE_DOUBLE;
      if (!has_i || iv < G_MININT32 || iv > G_MAXINT32)
        fits_int = FALSE;
      if (!has_u || uv > G_MAXUINT32)
        fits_uint = FALSE;
      if (!has_i)
        fits_int64 = FALSE;
      if (!has_u)
        fits_uint64 = FALSE;
    }
  if (all_bool)
    return NCZ_DATA_TYPE_UBYTE;
  if (fits_int)
    return NCZ_DATA_TYPE_INT;
  if (fits_uint)
    return NCZ_DATA_TYPE_UINT;
  if (fits_int64)
    return NCZ_DATA_TYPE_INT64;
  if (fits_uint64)
    return NCZ_DATA_TYPE_UINT64;
  return NCZ_DATA_TYPE_DOUBLE;
}

static gboolean
is_number_like (const NczJson *v)
{
  NczJsonKind k = ncz_json_get_kind (v);
  return k == NCZ_JSON_NUMBER || k == NCZ_JSON_BOOLEAN;
}

static NczAttribute *
infer_attribute (const char *name, const NczJson *value, GError **error)
{
  switch (ncz_json_get_kind (value))
    {
    case NCZ_JSON_STRING:
      return text_attribute (name, value);
    case NCZ_JSON_NUMBER:
    case NCZ_JSON_BOOLEAN:
      {
        const NczJson *one[] = { value };
        NczDataType t = infer_numeric_type (one, 1);
        NczAttribute *a = numeric_attribute (name, value, t, error);
        return a ? a : text_attribute (name, value);
      }
    case NCZ_JSON_ARRAY:
      {
        gsize n = ncz_json_array_get_length (value);
        gboolean numeric = TRUE;

        if (n == 0)
          /* `[]`: no element to take a type from; an empty char
           * attribute keeps the name visible. */
          return ncz_attribute_new_text (name, "", 0);
        for (gsize i = 0; i < n && numeric; i++)
          numeric = is_number_like (ncz_json_array_get (value, i));
        if (numeric)
          {
            g_autofree const NczJson **items = g_new (const NczJson *, n);
            NczAttribute *a;
            for (gsize i = 0; i < n; i++)
              items[i] = ncz_json_array_get (value, i);
            a = numeric_attribute (name, value, infer_numeric_type (items, n), error);
            if (a)
              return a;
          }
        /* strings, mixed or nested arrays: the JSON text */
        {
          g_autofree char *text = ncz_json_to_string (value, FALSE);
          return ncz_attribute_new_text (name, text, -1);
        }
      }
    case NCZ_JSON_NULL:
    case NCZ_JSON_OBJECT:
    default:
      {
        g_autofree char *text = ncz_json_to_string (value, FALSE);
        return ncz_attribute_new_text (name, text, -1);
      }
    }
}

/* Values of a numeric type as the types map gives it: a scalar or an
 * array of scalars, each a value of @type. */
static NczAttribute *
typed_numeric_attribute (const char *name, const NczJson *value, NczDataType type,
                         const char *dtype, GError **error)
{
  gsize tsize = ncz_data_type_get_size (type);
  gboolean is_array = ncz_json_get_kind (value) == NCZ_JSON_ARRAY;
  gsize n = is_array ? ncz_json_array_get_length (value) : 1;
  g_autofree guint8 *buf = g_malloc0 (MAX (n, 1) * tsize);

  for (gsize i = 0; i < n; i++)
    {
      const NczJson *e = is_array ? ncz_json_array_get (value, i) : value;
      const char *why = nczarr_json_to_typed_value (e, type, buf + i * tsize);
      if (why != NULL)
        {
          g_autofree char *t = ncz_json_to_string (e, FALSE);
          if (is_array)
            g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                         "element %" G_GSIZE_FORMAT " (%s) %s, but the type of the "
                         "attribute is '%s'", i, t, why, dtype);
          else
            g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                         "the value %s %s, but the type of the attribute is '%s'",
                         t, why, dtype);
          return NULL;
        }
    }
  return ncz_attribute_new_values (name, type, buf, n, error);
}

NczAttribute *
nczarr_attr_from_json (const char *name, const NczJson *value,
                       const char *dtype, GError **error)
{
  NczarrDtype dt;
  NczJsonKind kind = ncz_json_get_kind (value);

  if (dtype == NULL)
    return infer_attribute (name, value, error);
  if (!nczarr_attr_dtype_parse (dtype, &dt))
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                   "'%s' is not a known attribute type", dtype);
      return NULL;
    }
  if (dt.is_json)
    return infer_attribute (name, value, error);
  switch (dt.type)
    {
    case NCZ_DATA_TYPE_CHAR:
      /* any JSON value: the JSON convention stores text holding JSON as
       * that value */
      return text_attribute (name, value);
    case NCZ_DATA_TYPE_STRING:
      if (kind == NCZ_JSON_ARRAY)
        for (gsize i = 0; i < ncz_json_array_get_length (value); i++)
          if (ncz_json_get_kind (ncz_json_array_get (value, i)) != NCZ_JSON_STRING)
            {
              g_autofree char *t = ncz_json_to_string (ncz_json_array_get (value, i), FALSE);
              g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                           "element %" G_GSIZE_FORMAT " (%s) is not a JSON string, but the "
                           "type of the attribute is '%s'", i, t, dtype);
              return NULL;
            }
      if (kind != NCZ_JSON_ARRAY && kind != NCZ_JSON_STRING)
        {
          g_autofree char *t = ncz_json_to_string (value, FALSE);
          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                       "the value %s is not a JSON string, but the type of the "
                       "attribute is '%s'", t, dtype);
          return NULL;
        }
      return strings_attribute (name, value);
    case NCZ_DATA_TYPE_NONE:
      break;
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_SHORT:
    case NCZ_DATA_TYPE_USHORT:
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UINT:
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
    case NCZ_DATA_TYPE_FLOAT:
    case NCZ_DATA_TYPE_DOUBLE:
    default:
      return typed_numeric_attribute (name, value, dt.type, dtype, error);
    }
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
               "'%s' is not a known attribute type", dtype);
  return NULL;
}

static gboolean
json_is_complex (const NczJson *node)
{
  NczJsonKind k = ncz_json_get_kind (node);

  if (k == NCZ_JSON_OBJECT)
    return TRUE;
  if (k == NCZ_JSON_ARRAY)
    {
      gsize n = ncz_json_array_get_length (node);
      for (gsize i = 0; i < n; i++)
        {
          NczJsonKind ek = ncz_json_get_kind (ncz_json_array_get (node, i));
          if (ek == NCZ_JSON_OBJECT || ek == NCZ_JSON_ARRAY)
            return TRUE;
        }
    }
  return FALSE;
}

NczJson *
nczarr_attr_to_json (NczAttribute *attr)
{
  NczDataType type = ncz_attribute_get_value_type (attr);
  gsize n = 0;

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      gsize len = 0;
      g_autofree char *text = ncz_attribute_get_text (attr, &len);
      /* The JSON convention: text holding a JSON object, or an array with
       * nested arrays/objects, is stored as that JSON value, but only when
       * the reader's text of that value (ncz_json_to_string, see
       * text_attribute) is the very text written: `{"a": 1}` is stored as
       * an object, `{"a":1}` and `[[1, 2]]` stay strings. Text that merely
       * looks like a number or a flat array stays a string too. */
      if (len > 0 && memchr (text, '\0', len) == NULL && (text[0] == '{' || text[0] == '['))
        {
          g_autoptr(NczJson) parsed = ncz_json_parse (text, len, NULL);
          if (parsed && json_is_complex (parsed))
            {
              g_autofree char *back = ncz_json_to_string (parsed, FALSE);
              if (strlen (back) == len && memcmp (back, text, len) == 0)
                return g_steal_pointer (&parsed);
            }
        }
      return ncz_json_new_string (text, len);
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      const char * const *strv = ncz_attribute_get_strings (attr);
      NczJson *arr;
      n = ncz_attribute_get_length (attr);
      if (n == 1)
        return ncz_json_new_string (strv[0], -1);
      arr = ncz_json_new_array ();
      for (gsize i = 0; i < n; i++)
        ncz_json_array_append (arr, ncz_json_new_string (strv[i], -1));
      return arr;
    }
  {
    const guint8 *p = ncz_attribute_peek_values (attr, &n);
    gsize tsize = ncz_data_type_get_size (type);
    NczJson *arr;
    if (n == 1)
      return nczarr_value_to_json (type, p);
    arr = ncz_json_new_array ();
    for (gsize i = 0; i < n; i++)
      ncz_json_array_append (arr, nczarr_value_to_json (type, p + i * tsize));
    return arr;
  }
}

char *
nczarr_attr_dtype (NczAttribute *attr, guint default_string_width)
{
  NczDataType type = ncz_attribute_get_value_type (attr);
  return nczarr_dtype_for (type, NCZ_ENDIANNESS_NATIVE, default_string_width);
}
