/* nczarr-dtype.c: NumPy dtype strings and JSON scalar values
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "nczarr-dtype-private.h"

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

static NczDataType
int_type (char kind, guint64 n)
{
  if (kind == 'i')
    switch (n)
      {
      case 1: return NCZ_DATA_TYPE_BYTE;
      case 2: return NCZ_DATA_TYPE_SHORT;
      case 4: return NCZ_DATA_TYPE_INT;
      case 8: return NCZ_DATA_TYPE_INT64;
      default: return NCZ_DATA_TYPE_NONE;
      }
  if (kind == 'u')
    switch (n)
      {
      case 1: return NCZ_DATA_TYPE_UBYTE;
      case 2: return NCZ_DATA_TYPE_USHORT;
      case 4: return NCZ_DATA_TYPE_UINT;
      case 8: return NCZ_DATA_TYPE_UINT64;
      default: return NCZ_DATA_TYPE_NONE;
      }
  if (kind == 'f')
    switch (n)
      {
      case 4: return NCZ_DATA_TYPE_FLOAT;
      case 8: return NCZ_DATA_TYPE_DOUBLE;
      default: return NCZ_DATA_TYPE_NONE;
      }
  return NCZ_DATA_TYPE_NONE;
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
      if (out->type == NCZ_DATA_TYPE_NONE)
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
        out->type = NCZ_DATA_TYPE_CHAR;
      else
        out->type = NCZ_DATA_TYPE_STRING;
      return TRUE;
    case 'U':
      /* netcdf-c 4.9.0 wrote char as "<U1" but stored one byte per char;
       * a real NumPy unicode array (4 bytes per char) is not supported. */
      if (n == 1 && netcdf_written)
        {
          out->type = NCZ_DATA_TYPE_CHAR;
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
      if (*end != '\0' || code < NCZ_DATA_TYPE_BYTE || code > NCZ_DATA_TYPE_STRING)
        return FALSE;
      out->type = (NczDataType) code;
      out->stored_size = code == NCZ_DATA_TYPE_STRING ? 1 : ncz_data_type_get_size (out->type);
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
nczarr_dtype_for (NczDataType type, NczEndianness endianness, guint string_width)
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
    case NCZ_DATA_TYPE_BYTE: code = "i1"; break;
    case NCZ_DATA_TYPE_UBYTE: code = "u1"; break;
    case NCZ_DATA_TYPE_SHORT: code = "i2"; break;
    case NCZ_DATA_TYPE_USHORT: code = "u2"; break;
    case NCZ_DATA_TYPE_INT: code = "i4"; break;
    case NCZ_DATA_TYPE_UINT: code = "u4"; break;
    case NCZ_DATA_TYPE_INT64: code = "i8"; break;
    case NCZ_DATA_TYPE_UINT64: code = "u8"; break;
    case NCZ_DATA_TYPE_FLOAT: code = "f4"; break;
    case NCZ_DATA_TYPE_DOUBLE: code = "f8"; break;
    case NCZ_DATA_TYPE_CHAR: return g_strdup (">S1");
    case NCZ_DATA_TYPE_STRING:
      return g_strdup_printf ("|S%u", string_width > 0 ? string_width : 1);
    case NCZ_DATA_TYPE_NONE:
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
nczarr_json_to_value (const NczJson *node, NczDataType type, gpointer out)
{
  double d = 0;
  gint64 i = 0;
  guint64 u = 0;
  gboolean has_i, has_u;

  if (type == NCZ_DATA_TYPE_CHAR)
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
    case NCZ_DATA_TYPE_BYTE:
      if (!to_signed (d, i, has_i, G_MININT8, G_MAXINT8, &i))
        return FALSE;
      *(gint8 *) out = (gint8) i;
      return TRUE;
    case NCZ_DATA_TYPE_SHORT:
      if (!to_signed (d, i, has_i, G_MININT16, G_MAXINT16, &i))
        return FALSE;
      { gint16 v = (gint16) i; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_DATA_TYPE_INT:
      if (!to_signed (d, i, has_i, G_MININT32, G_MAXINT32, &i))
        return FALSE;
      { gint32 v = (gint32) i; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_DATA_TYPE_INT64:
      if (!to_signed (d, i, has_i, G_MININT64, G_MAXINT64, &i))
        return FALSE;
      memcpy (out, &i, sizeof i);
      return TRUE;
    case NCZ_DATA_TYPE_UBYTE:
      if (!to_unsigned (d, u, has_u, G_MAXUINT8, &u))
        return FALSE;
      *(guint8 *) out = (guint8) u;
      return TRUE;
    case NCZ_DATA_TYPE_USHORT:
      if (!to_unsigned (d, u, has_u, G_MAXUINT16, &u))
        return FALSE;
      { guint16 v = (guint16) u; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_DATA_TYPE_UINT:
      if (!to_unsigned (d, u, has_u, G_MAXUINT32, &u))
        return FALSE;
      { guint32 v = (guint32) u; memcpy (out, &v, sizeof v); }
      return TRUE;
    case NCZ_DATA_TYPE_UINT64:
      if (!to_unsigned (d, u, has_u, G_MAXUINT64, &u))
        return FALSE;
      memcpy (out, &u, sizeof u);
      return TRUE;
    case NCZ_DATA_TYPE_FLOAT:
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
    case NCZ_DATA_TYPE_DOUBLE:
      memcpy (out, &d, sizeof d);
      return TRUE;
    case NCZ_DATA_TYPE_NONE:
    case NCZ_DATA_TYPE_CHAR:
    case NCZ_DATA_TYPE_STRING:
    default:
      return FALSE;
    }
}

const char *
nczarr_json_to_typed_value (const NczJson *node, NczDataType type, gpointer out)
{
  NczJsonKind kind = ncz_json_get_kind (node);

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_SHORT:
    case NCZ_DATA_TYPE_USHORT:
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UINT:
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
      if (kind != NCZ_JSON_NUMBER)
        return "is not a JSON number";
      if (!isfinite (ncz_json_get_double (node)) ||
          (!ncz_json_number_is_integer (node) &&
           ncz_json_get_double (node) != floor (ncz_json_get_double (node))))
        return "is not an integer";
      break;
    case NCZ_DATA_TYPE_FLOAT:
    case NCZ_DATA_TYPE_DOUBLE:
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
    case NCZ_DATA_TYPE_CHAR:
      if (kind != NCZ_JSON_STRING)
        return "is not a JSON string";
      break;
    case NCZ_DATA_TYPE_NONE:
    case NCZ_DATA_TYPE_STRING:
    default:
      return "is not a value of a numeric type";
    }
  if (!nczarr_json_to_value (node, type, out))
    return type == NCZ_DATA_TYPE_CHAR ? "is not a single character" : "is out of the range of the type";
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
nczarr_value_to_json (NczDataType type, gconstpointer value)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: return ncz_json_new_int64 (*(const gint8 *) value);
    case NCZ_DATA_TYPE_UBYTE: return ncz_json_new_uint64 (*(const guint8 *) value);
    case NCZ_DATA_TYPE_SHORT: { gint16 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_DATA_TYPE_USHORT: { guint16 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_DATA_TYPE_INT: { gint32 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_DATA_TYPE_UINT: { guint32 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_DATA_TYPE_INT64: { gint64 v; memcpy (&v, value, sizeof v); return ncz_json_new_int64 (v); }
    case NCZ_DATA_TYPE_UINT64: { guint64 v; memcpy (&v, value, sizeof v); return ncz_json_new_uint64 (v); }
    case NCZ_DATA_TYPE_FLOAT: { float v; memcpy (&v, value, sizeof v); return nczarr_json_new_float (v); }
    case NCZ_DATA_TYPE_DOUBLE: { double v; memcpy (&v, value, sizeof v); return ncz_json_new_double (v); }
    case NCZ_DATA_TYPE_CHAR: return ncz_json_new_string ((const char *) value, 1);
    case NCZ_DATA_TYPE_NONE:
    case NCZ_DATA_TYPE_STRING:
    default:
      return ncz_json_new_null ();
    }
}


/* ---- stored forms that differ from the model's ---- */

static NczEndianness
order_endianness (char order)
{
  if (order == '>')
    return NCZ_ENDIANNESS_BIG;
  if (order == '<')
    return NCZ_ENDIANNESS_LITTLE;
  return NCZ_ENDIANNESS_NATIVE;
}

void
nczarr_array_dtype_parse (const char *dtype, gboolean pure_zarr,
                          gboolean netcdf_written, NczarrArrayDtype *out)
{
  const char *p = dtype;
  char order = 0;
  char kind;

  memset (out, 0, sizeof *out);
  if (nczarr_dtype_parse (dtype, pure_zarr, netcdf_written, &out->dt))
    {
      out->stored = NCZARR_STORED_PLAIN;
      return;
    }
  memset (&out->dt, 0, sizeof out->dt);
  out->dt.stored_size = 1;
  out->dt.endianness = NCZ_ENDIANNESS_NATIVE;
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
    order = *p++;
  kind = *p ? *p++ : '\0';

  if (kind == 'b' && g_str_equal (p, "1") && order != '<' && order != '>')
    {
      out->dt.type = NCZ_DATA_TYPE_UBYTE;
      out->stored = NCZARR_STORED_BOOL;
      return;
    }
  if (kind == 'f' && g_str_equal (p, "2"))
    {
      out->dt.type = NCZ_DATA_TYPE_FLOAT;
      out->dt.stored_size = 2;
      out->dt.endianness = order_endianness (order);
      out->stored = NCZARR_STORED_HALF;
      return;
    }
  if (kind == 'O' && *p == '\0')
    {
      out->dt.type = NCZ_DATA_TYPE_STRING;
      out->stored = NCZARR_STORED_VLEN_UTF8;   /* until the codec is known */
      out->is_object = TRUE;
      return;
    }
  if (kind == 'U' && g_ascii_isdigit (*p))
    {
      char *end = NULL;
      guint64 n = g_ascii_strtoull (p, &end, 10);
      /* room for the UTF-8 of n code points in memory */
      if (*end == '\0' && n >= 1 && n <= G_MAXINT32 / 4)
        {
          out->dt.type = NCZ_DATA_TYPE_STRING;
          out->dt.stored_size = (gsize) n * 4;
          out->dt.endianness = order_endianness (order);
          out->stored = NCZARR_STORED_UNICODE;
          return;
        }
    }

  /* not supported: a placeholder the dataset can show */
  out->dt.type = NCZ_DATA_TYPE_UBYTE;
  out->unsupported = g_strdup_printf ("\"dtype\" '%s' is not supported (supported: integers, "
                                      "floats 'f2'/'f4'/'f8', booleans '|b1', strings "
                                      "'S<n>', 'U<n>', '|O' with 'vlen-utf8' or 'vlen-bytes')",
                                      dtype ? dtype : "");
}

void
nczarr_array_dtype_clear (NczarrArrayDtype *out)
{
  g_clear_pointer (&out->unsupported, g_free);
}

void
nczarr_array_dtype_take_object_codec (NczarrArrayDtype *out, GPtrArray *specs)
{
  NczFilterSpec *first = specs && specs->len > 0 ? g_ptr_array_index (specs, 0) : NULL;
  const char *id = first ? first->codec_id : NULL;

  if (!out->is_object || out->unsupported)
    return;
  if (id && g_str_equal (id, "vlen-utf8"))
    out->stored = NCZARR_STORED_VLEN_UTF8;
  else if (id && g_str_equal (id, "vlen-bytes"))
    out->stored = NCZARR_STORED_VLEN_BYTES;
  else
    {
      if (id == NULL)
        out->unsupported = g_strdup ("\"dtype\" '|O' without an object codec first in "
                                     "\"filters\" is not supported");
      else if (g_str_equal (id, "pickle"))
        out->unsupported = g_strdup ("object codec 'pickle' of \"dtype\" '|O' is not supported "
                                     "(unpickling could run code from the dataset)");
      else
        out->unsupported = g_strdup_printf ("object codec '%s' of \"dtype\" '|O' is not "
                                            "supported (supported: 'vlen-utf8', 'vlen-bytes')",
                                            id);
      return;
    }
  g_ptr_array_remove_index (specs, 0);
}

void
nczarr_array_dtype_normalize_fill (const NczarrArrayDtype *adt, NczJson *zarray)
{
  const NczJson *fill = ncz_json_object_get (zarray, "fill_value");

  if (adt->stored == NCZARR_STORED_BOOL && fill && ncz_json_get_kind (fill) == NCZ_JSON_BOOLEAN)
    ncz_json_object_set (zarray, "fill_value",
                         ncz_json_new_uint64 (ncz_json_get_boolean (fill) ? 1 : 0));
  /* an object array's fill is a string; zarr-python's default 0 (or any
   * other non-string) means none: the empty string */
  if (adt->is_object && fill && ncz_json_get_kind (fill) != NCZ_JSON_STRING &&
      ncz_json_get_kind (fill) != NCZ_JSON_NULL)
    ncz_json_object_remove (zarray, "fill_value");
}

typedef struct {
  NczarrStored kind;
  gsize stored_size;
  char *unsupported;
  char *dtype;         /* as found */
} NczarrStorage;

static void
storage_free (gpointer data)
{
  NczarrStorage *st = data;
  g_free (st->unsupported);
  g_free (st->dtype);
  g_free (st);
}

/* Looked up once (chunk workers reach it at the same time). */
static GQuark
storage_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-nczarr-storage"));
  return (GQuark) quark;
}

static NczarrStorage *
storage_peek (NczVariable *variable)
{
  return g_object_get_qdata (G_OBJECT (variable), storage_quark ());
}

void
nczarr_storage_attach (NczVariable *variable, const NczarrArrayDtype *adt, const char *dtype)
{
  NczarrStorage *st = g_new0 (NczarrStorage, 1);

  st->kind = adt->stored;
  st->stored_size = adt->dt.stored_size;
  st->unsupported = g_strdup (adt->unsupported);
  st->dtype = g_strdup (dtype);
  g_object_set_qdata_full (G_OBJECT (variable), storage_quark (), st, storage_free);

  if (adt->dt.type == NCZ_DATA_TYPE_STRING && !adt->unsupported)
    ncz_variable_set_variable_length_strings (variable,
                                              st->kind == NCZARR_STORED_VLEN_UTF8 ||
                                              st->kind == NCZARR_STORED_VLEN_BYTES);
  if (adt->unsupported)
    return;
  if (st->kind == NCZARR_STORED_BOOL || st->kind == NCZARR_STORED_HALF)
    ncz_variable_set_storage_dtype (variable, dtype);
  /* room in memory for the UTF-8 of the stored code points */
  if (st->kind == NCZARR_STORED_UNICODE)
    ncz_variable_set_max_string_length (variable, (guint) st->stored_size);
}

void
nczarr_storage_object_fill (NczVariable *variable, const NczJson *fill_value)
{
  gsize len = 0;
  const char *text;
  g_autoptr(GBytes) b = NULL;

  if (fill_value == NULL || ncz_json_get_kind (fill_value) != NCZ_JSON_STRING ||
      ncz_variable_has_user_fill_value (variable))
    return;
  text = ncz_json_get_string (fill_value, &len);
  if (len == 0 || strlen (text) != len)
    return;
  ncz_variable_grow_string_width (variable, len);
  b = g_bytes_new (text, len + 1);
  ncz_variable_set_storage_fill_value (variable, b);
}

const char *
nczarr_storage_unsupported (NczVariable *variable)
{
  NczarrStorage *st = storage_peek (variable);
  return st ? st->unsupported : NULL;
}

static gboolean
storage_dtype_is (NczVariable *variable, const char *suffix)
{
  const char *d = ncz_variable_get_storage_dtype (variable);
  if (d == NULL)
    return FALSE;
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
    d++;
  return g_str_equal (d, suffix);
}

NczarrStored
nczarr_storage_kind (NczVariable *variable, gboolean pure)
{
  NczarrStorage *st = storage_peek (variable);
  NczDataType type = ncz_variable_get_value_type (variable);

  if (st)
    return st->kind;
  /* a variable defined since the dataset was opened */
  if (type == NCZ_DATA_TYPE_STRING && ncz_variable_has_variable_length_strings (variable))
    return NCZARR_STORED_VLEN_UTF8;
  if (pure && type == NCZ_DATA_TYPE_UBYTE && storage_dtype_is (variable, "b1"))
    return NCZARR_STORED_BOOL;
  if (pure && type == NCZ_DATA_TYPE_FLOAT && storage_dtype_is (variable, "f2"))
    return NCZARR_STORED_HALF;
  return NCZARR_STORED_PLAIN;
}

gsize
nczarr_storage_stored_size (NczVariable *variable, NczarrStored kind)
{
  NczarrStorage *st = storage_peek (variable);

  switch (kind)
    {
    case NCZARR_STORED_BOOL: return 1;
    case NCZARR_STORED_HALF: return 2;
    case NCZARR_STORED_UNICODE: return st ? st->stored_size : 4;
    case NCZARR_STORED_PLAIN:
    case NCZARR_STORED_VLEN_UTF8:
    case NCZARR_STORED_VLEN_BYTES:
    default:
      return ncz_variable_get_storage_element_size (variable);
    }
}

static char
endianness_prefix (NczVariable *variable)
{
  switch (ncz_variable_get_endianness (variable))
    {
    case NCZ_ENDIANNESS_BIG: return '>';
    case NCZ_ENDIANNESS_LITTLE: return '<';
    case NCZ_ENDIANNESS_NATIVE:
    default:
      return G_BYTE_ORDER == G_BIG_ENDIAN ? '>' : '<';
    }
}

void
nczarr_storage_fix_zarray (NczVariable *variable, gboolean pure, NczJson *zarray)
{
  NczarrStorage *st = storage_peek (variable);
  NczarrStored kind = nczarr_storage_kind (variable, pure);
  char *dtype = NULL;

  if (st && st->unsupported)
    {
      ncz_json_object_set (zarray, "dtype", ncz_json_new_string (st->dtype, -1));
      return;
    }
  switch (kind)
    {
    case NCZARR_STORED_BOOL:
      dtype = g_strdup ("|b1");
      break;
    case NCZARR_STORED_HALF:
      dtype = g_strdup_printf ("%cf2", endianness_prefix (variable));
      break;
    case NCZARR_STORED_UNICODE:
      dtype = g_strdup_printf ("%cU%" G_GSIZE_FORMAT, endianness_prefix (variable),
                               nczarr_storage_stored_size (variable, kind) / 4);
      break;
    case NCZARR_STORED_VLEN_UTF8:
    case NCZARR_STORED_VLEN_BYTES:
      {
        const NczJson *old = ncz_json_object_get (zarray, "filters");
        NczJson *list = ncz_json_new_array ();
        NczJson *codec = ncz_json_new_object ();
        g_autoptr(GBytes) fill = ncz_variable_get_fill_value (variable);
        gsize len = 0;
        const char *f = fill ? g_bytes_get_data (fill, &len) : NULL;

        ncz_json_object_set (codec, "id",
                             ncz_json_new_string (kind == NCZARR_STORED_VLEN_UTF8
                                                  ? "vlen-utf8" : "vlen-bytes", -1));
        ncz_json_array_append (list, codec);
        if (old && ncz_json_get_kind (old) == NCZ_JSON_ARRAY)
          for (gsize i = 0; i < ncz_json_array_get_length (old); i++)
            {
              g_autofree char *t = ncz_json_to_string (ncz_json_array_get (old, i), FALSE);
              ncz_json_array_append (list, ncz_json_parse (t, -1, NULL));
            }
        ncz_json_object_set (zarray, "filters", list);
        /* the fill value of an object array is the string itself */
        if (ncz_variable_get_no_fill (variable))
          ncz_json_object_set (zarray, "fill_value", ncz_json_new_null ());
        else
          ncz_json_object_set (zarray, "fill_value",
                               ncz_json_new_string (f ? f : "", f ? (gssize) strnlen (f, len) : 0));
        dtype = g_strdup ("|O");
        break;
      }
    case NCZARR_STORED_PLAIN:
    default:
      return;
    }
  ncz_json_object_set (zarray, "dtype", ncz_json_new_string (dtype, -1));
  g_free (dtype);
}

float
nczarr_half_to_float (guint16 h)
{
  guint32 sign = ((guint32) h & 0x8000u) << 16;
  guint32 exp = (h >> 10) & 0x1fu;
  guint32 mant = h & 0x3ffu;
  guint32 bits;
  float f;

  if (exp == 0)
    {
      f = ldexpf ((float) mant, -24);
      return sign ? -f : f;
    }
  if (exp == 31)
    bits = sign | 0x7f800000u | (mant << 13);
  else
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  memcpy (&f, &bits, sizeof f);
  return f;
}

guint16
nczarr_float_to_half (float f)
{
  guint32 bits;
  guint16 sign;
  float a;

  memcpy (&bits, &f, sizeof bits);
  sign = (guint16) ((bits >> 16) & 0x8000u);
  if (isnan (f))
    return (guint16) (sign | 0x7e00u | ((bits >> 13) & 0x3ffu));
  a = fabsf (f);
  if (a >= 65520.0f)
    return (guint16) (sign | 0x7c00u);   /* infinity, or too large */
  if (a < 6.103515625e-05f)
    {
      /* subnormal half: a multiple of 2^-24, rounded to nearest even */
      return (guint16) (sign | (guint16) nearbyintf (a * 16777216.0f));
    }
  {
    guint32 exp = ((bits >> 23) & 0xffu) - 127u + 15u;
    guint32 mant = bits & 0x7fffffu;
    guint32 half = (exp << 10) | (mant >> 13);
    guint32 rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
      half++;
    return (guint16) (sign | half);
  }
}
