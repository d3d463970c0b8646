/* nczarr-dtype.c: NumPy dtype strings and JSON scalar values
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-private.h"

/* Widest fixed-length string accepted in a dtype ("|S<n>"). */
#define NCZARR_MAX_STRING_WIDTH (1u << 24)

const char *
nczarr_layout_name (NczarrLayout layout)
{
  switch (layout)
    {
    case NCZARR_LAYOUT_PURE: return "pure-zarr";
    case NCZARR_LAYOUT_V1: return "v1";
    case NCZARR_LAYOUT_KEYS_UPPER: return "keys-upper";
    case NCZARR_LAYOUT_KEYS: return "keys";
    case NCZARR_LAYOUT_ATTRIBUTES: return "attributes";
    }
  return "unknown";
}

static NczType
int_type (char kind, guint64 n)
{
  if (kind == 'i')
    switch (n)
      {
      case 1: return NCZ_TYPE_BYTE;
      case 2: return NCZ_TYPE_SHORT;
      case 4: return NCZ_TYPE_INT;
      case 8: return NCZ_TYPE_INT64;
      default: return NCZ_TYPE_NONE;
      }
  if (kind == 'u')
    switch (n)
      {
      case 1: return NCZ_TYPE_UBYTE;
      case 2: return NCZ_TYPE_USHORT;
      case 4: return NCZ_TYPE_UINT;
      case 8: return NCZ_TYPE_UINT64;
      default: return NCZ_TYPE_NONE;
      }
  if (kind == 'f')
    switch (n)
      {
      case 4: return NCZ_TYPE_FLOAT;
      case 8: return NCZ_TYPE_DOUBLE;
      default: return NCZ_TYPE_NONE;
      }
  return NCZ_TYPE_NONE;
}

gboolean
nczarr_dtype_parse (const char *dtype, gboolean pure_zarr,
                    gboolean netcdf_written, NczarrDtype *out)
{
  const char *p = dtype;
  char order = 0;
  char kind;
  char *end = NULL;
  guint64 n;

  memset (out, 0, sizeof *out);
  if (dtype == NULL)
    return FALSE;
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
    order = *p++;
  kind = *p++;
  if (kind == '\0' || !g_ascii_isdigit (*p))
    return FALSE;
  n = g_ascii_strtoull (p, &end, 10);
  if (end == NULL || *end != '\0' || n > NCZARR_MAX_STRING_WIDTH)
    return FALSE;

  switch (kind)
    {
    case 'i':
    case 'u':
    case 'f':
      out->type = int_type (kind, n);
      if (out->type == NCZ_TYPE_NONE)
        return FALSE;
      out->stored_size = n;
      if (n > 1 && order == '>')
        out->endianness = NCZ_ENDIANNESS_BIG;
      else if (n > 1 && order == '<')
        out->endianness = NCZ_ENDIANNESS_LITTLE;
      else
        out->endianness = NCZ_ENDIANNESS_NATIVE;
      return TRUE;
    case 'S':
      if (n == 0)
        return FALSE;
      out->stored_size = n;
      out->endianness = NCZ_ENDIANNESS_NATIVE;
      /* NCZarr: ">S1" is char, "|S1" and "|Sn" are strings. Plain Zarr
       * has no char type: every "S" is a string. */
      if (!pure_zarr && n == 1 && order != '|')
        out->type = NCZ_TYPE_CHAR;
      else
        out->type = NCZ_TYPE_STRING;
      return TRUE;
    case 'U':
      /* netcdf-c 4.9.0 wrote char as "<U1" but stored one byte per char;
       * a real NumPy unicode array (4 bytes per char) is not supported. */
      if (n == 1 && netcdf_written)
        {
          out->type = NCZ_TYPE_CHAR;
          out->stored_size = 1;
          out->endianness = NCZ_ENDIANNESS_NATIVE;
          return TRUE;
        }
      return FALSE;
    default:
      return FALSE;
    }
}

gboolean
nczarr_attr_dtype_parse (const char *dtype, NczarrDtype *out)
{
  memset (out, 0, sizeof *out);
  if (dtype == NULL || *dtype == '\0')
    return FALSE;
  if (g_ascii_isdigit (dtype[0]))
    {
      /* NCZarr V1: decimal nc_type codes */
      char *end = NULL;
      guint64 code = g_ascii_strtoull (dtype, &end, 10);
      if (*end != '\0' || code < NCZ_TYPE_BYTE || code > NCZ_TYPE_STRING)
        return FALSE;
      out->type = (NczType) code;
      out->stored_size = code == NCZ_TYPE_STRING ? 1 : ncz_type_get_size (out->type);
      out->endianness = NCZ_ENDIANNESS_NATIVE;
      return TRUE;
    }
  if (g_str_equal (dtype + (dtype[0] == '|' || dtype[0] == '<' || dtype[0] == '>'), "J0"))
    {
      out->is_json = TRUE;
      return TRUE;
    }
  return nczarr_dtype_parse (dtype, FALSE, TRUE, out);
}

char *
nczarr_dtype_for (NczType type, NczEndianness endianness, guint string_width)
{
  char prefix;
  const char *code = NULL;

  switch (endianness)
    {
    case NCZ_ENDIANNESS_BIG: prefix = '>'; break;
    case NCZ_ENDIANNESS_LITTLE: prefix = '<'; break;
    case NCZ_ENDIANNESS_NATIVE:
    default:
      prefix = G_BYTE_ORDER == G_BIG_ENDIAN ? '>' : '<';
      break;
    }
  switch (type)
    {
    case NCZ_TYPE_BYTE: code = "i1"; break;
    case NCZ_TYPE_UBYTE: code = "u1"; break;
    case NCZ_TYPE_SHORT: code = "i2"; break;
    case NCZ_TYPE_USHORT: code = "u2"; break;
    case NCZ_TYPE_INT: code = "i4"; break;
    case NCZ_TYPE_UINT: code = "u4"; break;
    case NCZ_TYPE_INT64: code = "i8"; break;
    case NCZ_TYPE_UINT64: code = "u8"; break;
    case NCZ_TYPE_FLOAT: code = "f4"; break;
    case NCZ_TYPE_DOUBLE: code = "f8"; break;
    case NCZ_TYPE_CHAR: return g_strdup (">S1");
    case NCZ_TYPE_STRING:
      return g_strdup_printf ("|S%u", string_width > 0 ? string_width : 1);
    case NCZ_TYPE_NONE:
    default:
      return g_strdup ("|V0");
    }
  return g_strdup_printf ("%c%s", prefix, code);
}

/* NaN / Infinity spellings seen in Zarr metadata, any case. */
static gboolean
parse_special_float (const char *s, double *out)
{
  const char *p = s;
  gboolean neg = FALSE;

  if (*p == '-' || *p == '+')
    {
      neg = *p == '-';
      p++;
    }
  if (g_ascii_strcasecmp (p, "nan") == 0 || g_ascii_strcasecmp (p, "nanf") == 0)
    {
      *out = NAN;
      return TRUE;
    }
  if (g_ascii_strcasecmp (p, "inf") == 0 || g_ascii_strcasecmp (p, "infinity") == 0 ||
      g_ascii_strcasecmp (p, "inff") == 0 || g_ascii_strcasecmp (p, "infinityf") == 0)
    {
      *out = neg ? -INFINITY : INFINITY;
      return TRUE;
    }
  return FALSE;
}

/* Reads a JSON number or numeric string into either a double or an exact
 * integer. */
static gboolean
json_number (const NczJson *node, double *d, gint64 *i, guint64 *u,
             gboolean *has_i, gboolean *has_u)
{
  *has_i = *has_u = FALSE;
  switch (ncz_json_get_kind (node))
    {
    case NCZ_JSON_NUMBER:
      *d = ncz_json_get_double (node);
      *has_i = ncz_json_get_int64 (node, i);
      *has_u = ncz_json_get_uint64 (node, u);
      return TRUE;
    case NCZ_JSON_BOOLEAN:
      *d = ncz_json_get_boolean (node) ? 1 : 0;
      *i = (gint64) *d;
      *u = (guint64) *d;
      *has_i = *has_u = TRUE;
      return TRUE;
    case NCZ_JSON_STRING:
      {
        gsize len = 0;
        const char *s = ncz_json_get_string (node, &len);
        char *end = NULL;
        if (len == 0 || strlen (s) != len)
          return FALSE;
        if (parse_special_float (s, d))
          return TRUE;
        *d = g_ascii_strtod (s, &end);
        if (end == s || *end != '\0')
          return FALSE;
        {
          g_autoptr(NczJson) num = ncz_json_parse (s, -1, NULL);
          if (num && ncz_json_get_kind (num) == NCZ_JSON_NUMBER)
            {
              *has_i = ncz_json_get_int64 (num, i);
              *has_u = ncz_json_get_uint64 (num, u);
            }
        }
        return TRUE;
      }
    case NCZ_JSON_NULL:
    case NCZ_JSON_ARRAY:
    case NCZ_JSON_OBJECT:
    default:
      return FALSE;
    }
}

static gboolean
to_signed (double d, gint64 i, gboolean has_i, gint64 lo, gint64 hi, gint64 *out)
{
  if (!has_i)
    {
      if (!isfinite (d) || d != floor (d) || d < -9223372036854775808.0 ||
          d >= 9223372036854775808.0)
        return FALSE;
      i = (gint64) d;
    }
  if (i < lo || i > hi)
    return FALSE;
  *out = i;
  return TRUE;
}

static gboolean
to_unsigned (double d, guint64 u, gboolean has_u, guint64 hi, guint64 *out)
{
  if (!has_u)
    {
      if (!isfinite (d) || d != floor (d) || d < 0 || d >= 18446744073709551616.0)
        return FALSE;
      u = (guint64) d;
    }
  if (u > hi)
    return FALSE;
  *out = u;
  return TRUE;
}

gboolean
nczarr_json_to_value (const NczJson *node, NczType type, gpointer out)
{
  double d = 0;
  gint64 i = 0;
  guint64 u = 0;
  gboolean has_i, has_u;

  if (type == NCZ_TYPE_CHAR)
    {
      if (ncz_json_get_kind (node) == NCZ_JSON_STRING)
        {
          gsize len = 0;
          const char *s = ncz_json_get_string (node, &len);
          *(guint8 *) out = len > 0 ? (guint8) s[0] : 0;
          return len <= 1;
        }
      if (!json_number (node, &d, &i, &u, &has_i, &has_u) ||
          !to_signed (d, i, has_i, -128, 255, &i))
        return FALSE;
      *(guint8 *) out = (guint8) i;
      return TRUE;
    }

  if (!json_number (node, &d, &i, &u, &has_i, &has_u))
    return FALSE;

  switch (type)
    {
    case NCZ_TYPE_BYTE:
      if (!to_signed (d, i, has_i, G_MININT8, G_MAXINT8, &i))
        return FALSE;
      *(gint8 *) out = (gint8) i;
      return TRUE;
    case NCZ_TYPE_SHORT:
      if (!to_signed (d, i, has_i, G_MININT16, G_MAXINT16, &i))
        return FALSE;
      { gint16 v = (gint16) i; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_TYPE_INT:
      if (!to_signed (d, i, has_i, G_MININT32, G_MAXINT32, &i))
        return FALSE;
      { gint32 v = (gint32) i; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_TYPE_INT64:
      if (!to_signed (d, i, has_i, G_MININT64, G_MAXINT64, &i))
        return FALSE;
      memcpy (out, &i, sizeof i);
      return TRUE;
    case NCZ_TYPE_UBYTE:
      if (!to_unsigned (d, u, has_u, G_MAXUINT8, &u))
        return FALSE;
      *(guint8 *) out = (guint8) u;
      return TRUE;
    case NCZ_TYPE_USHORT:
      if (!to_unsigned (d, u, has_u, G_MAXUINT16, &u))
        return FALSE;
      { guint16 v = (guint16) u; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_TYPE_UINT:
      if (!to_unsigned (d, u, has_u, G_MAXUINT32, &u))
        return FALSE;
      { guint32 v = (guint32) u; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_TYPE_UINT64:
      if (!to_unsigned (d, u, has_u, G_MAXUINT64, &u))
        return FALSE;
      memcpy (out, &u, sizeof u);
      return TRUE;
    case NCZ_TYPE_FLOAT:
      {
        float f;
        if (has_i && !has_u)
          d = (double) i;
        else if (has_u)
          d = (double) u;
        if (isfinite (d) && fabs (d) > G_MAXFLOAT * 1.0000001)
          return FALSE;
        f = (float) d;
        memcpy (out, &f, sizeof f);
        return TRUE;
      }
    case NCZ_TYPE_DOUBLE:
      memcpy (out, &d, sizeof d);
      return TRUE;
    case NCZ_TYPE_NONE:
    case NCZ_TYPE_CHAR:
    case NCZ_TYPE_STRING:
    default:
      return FALSE;
    }
}

const char *
nczarr_json_to_typed_value (const NczJson *node, NczType type, gpointer out)
{
  NczJsonKind kind = ncz_json_get_kind (node);

  switch (type)
    {
    case NCZ_TYPE_BYTE:
    case NCZ_TYPE_UBYTE:
    case NCZ_TYPE_SHORT:
    case NCZ_TYPE_USHORT:
    case NCZ_TYPE_INT:
    case NCZ_TYPE_UINT:
    case NCZ_TYPE_INT64:
    case NCZ_TYPE_UINT64:
      if (kind != NCZ_JSON_NUMBER)
        return "is not a JSON number";
      if (!isfinite (ncz_json_get_double (node)) ||
          (!ncz_json_number_is_integer (node) &&
           ncz_json_get_double (node) != floor (ncz_json_get_double (node))))
        return "is not an integer";
      break;
    case NCZ_TYPE_FLOAT:
    case NCZ_TYPE_DOUBLE:
      if (kind == NCZ_JSON_STRING)
        {
          double d;
          gsize len = 0;
          const char *s = ncz_json_get_string (node, &len);
          if (strlen (s) != len || !parse_special_float (s, &d))
            return "is a string other than \"NaN\", \"Infinity\" or \"-Infinity\"";
        }
      else if (kind != NCZ_JSON_NUMBER)
        return "is not a JSON number";
      break;
    case NCZ_TYPE_CHAR:
      if (kind != NCZ_JSON_STRING)
        return "is not a JSON string";
      break;
    case NCZ_TYPE_NONE:
    case NCZ_TYPE_STRING:
    default:
      return "is not a value of a numeric type";
    }
  if (!nczarr_json_to_value (node, type, out))
    return type == NCZ_TYPE_CHAR ? "is not a single character" : "is out of the range of the type";
  return NULL;
}

NczJson *
nczarr_json_new_float (float value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  static const char *const formats[] = { "%.6g", "%.7g", "%.8g", "%.9g" };
  NczJson *node;

  if (!isfinite (value))
    return ncz_json_new_double (value);
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[k], value);
      if ((float) g_ascii_strtod (buf, NULL) == value)
        break;
    }
  if (strpbrk (buf, ".eE") == NULL)
    g_strlcat (buf, ".0", sizeof buf);
  node = ncz_json_parse (buf, -1, NULL);
  if (node == NULL)
    node = ncz_json_new_double (value);
  return node;
}

NczJson *
nczarr_value_to_json (NczType type, gconstpointer value)
{
  switch (type)
    {
    case NCZ_TYPE_BYTE: return ncz_json_new_int64 (*(const gint8 *) value);
    case NCZ_TYPE_UBYTE: return ncz_json_new_uint64 (*(const guint8 *) value);
    case NCZ_TYPE_SHORT: { gint16 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_TYPE_USHORT: { guint16 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_TYPE_INT: { gint32 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_TYPE_UINT: { guint32 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_TYPE_INT64: { gint64 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_TYPE_UINT64: { guint64 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_TYPE_FLOAT: { float v; memcpy (&v, value, sizeof v); return nczarr_json_new_float (v); }
    case NCZ_TYPE_DOUBLE: { double v; memcpy (&v, value, sizeof v); return ncz_json_new_double (v); }
    case NCZ_TYPE_CHAR: return ncz_json_new_string ((const char *) value, 1);
    case NCZ_TYPE_NONE:
    case NCZ_TYPE_STRING:
    default:
      return ncz_json_new_null ();
    }
}
