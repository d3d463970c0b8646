/* ncz-json.c: a small JSON tree for Zarr metadata
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz-json.h>

#define MAX_DEPTH 256

struct _NczJson
{
  gatomicrefcount ref;
  NczJsonKind kind;
  union {
    gboolean boolean;
    struct {
      char *text;
      double value;
      gboolean is_integer;
    } number;
    struct {
      char *data;
      gsize length;
    } string;
    GPtrArray *array;            /* NczJson */
    struct {
      GPtrArray *keys;           /* char* */
      GPtrArray *values;         /* NczJson */
      /* key (in keys) -> its position + 1, once the object has
       * OBJECT_INDEX_MIN members: lookups in large objects (many
       * attributes, dimensions) take constant time */
      GHashTable *index;
    } object;
  } u;
};

static NczJson *
json_new (NczJsonKind kind)
{
  NczJson *node = g_new0 (NczJson, 1);
  g_atomic_ref_count_init (&node->ref);
  node->kind = kind;
  return node;
}

NczJson *
ncz_json_ref (NczJson *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_atomic_ref_count_inc (&node->ref);
  return node;
}

void
ncz_json_unref (NczJson *node)
{
  if (node == NULL || !g_atomic_ref_count_dec (&node->ref))
    return;
  switch (node->kind)
    {
    case NCZ_JSON_NUMBER:
      g_free (node->u.number.text);
      break;
    case NCZ_JSON_STRING:
      g_free (node->u.string.data);
      break;
    case NCZ_JSON_ARRAY:
      g_ptr_array_unref (node->u.array);
      break;
    case NCZ_JSON_OBJECT:
      g_clear_pointer (&node->u.object.index, g_hash_table_unref);
      g_ptr_array_unref (node->u.object.keys);
      g_ptr_array_unref (node->u.object.values);
      break;
    default:
      break;
    }
  g_free (node);
}

NczJsonKind
ncz_json_get_kind (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, NCZ_JSON_NULL);
  return node->kind;
}

const char *
ncz_json_kind_name (NczJsonKind kind)
{
  switch (kind)
    {
    case NCZ_JSON_NULL: return "null";
    case NCZ_JSON_BOOLEAN: return "boolean";
    case NCZ_JSON_NUMBER: return "number";
    case NCZ_JSON_STRING: return "string";
    case NCZ_JSON_ARRAY: return "array";
    case NCZ_JSON_OBJECT: return "object";
    default: return "invalid";
    }
}

gboolean
ncz_json_get_boolean (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, FALSE);
  return node->kind == NCZ_JSON_BOOLEAN && node->u.boolean;
}

const char *
ncz_json_get_string (const NczJson *node, gsize *length)
{
  g_return_val_if_fail (node != NULL, NULL);
  if (node->kind != NCZ_JSON_STRING)
    {
      if (length)
        *length = 0;
      return NULL;
    }
  if (length)
    *length = node->u.string.length;
  return node->u.string.data;
}

const char *
ncz_json_get_number_text (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  return node->kind == NCZ_JSON_NUMBER ? node->u.number.text : NULL;
}

gboolean
ncz_json_number_is_integer (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, FALSE);
  return node->kind == NCZ_JSON_NUMBER && node->u.number.is_integer;
}

double
ncz_json_get_double (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, 0);
  return node->kind == NCZ_JSON_NUMBER ? node->u.number.value : 0;
}

gboolean
ncz_json_get_int64 (const NczJson *node, gint64 *value)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind != NCZ_JSON_NUMBER)
    return FALSE;
  if (node->u.number.is_integer)
    {
      char *end;
      errno = 0;
      gint64 v = g_ascii_strtoll (node->u.number.text, &end, 10);
      if (errno != 0 || *end != '\0')
        return FALSE;
      *value = v;
      return TRUE;
    }
  /* 3.0 and 1e3 are integers too */
  double d = node->u.number.value;
  if (isfinite (d) && d == floor (d) && d >= -9223372036854775808.0 &&
      d < 9223372036854775808.0)
    {
      *value = (gint64) d;
      return TRUE;
    }
  return FALSE;
}

gboolean
ncz_json_get_uint64 (const NczJson *node, guint64 *value)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind != NCZ_JSON_NUMBER)
    return FALSE;
  if (node->u.number.is_integer)
    {
      const char *t = node->u.number.text;
      char *end;
      if (t[0] == '-')
        {
          /* -0 is fine */
          for (const char *p = t + 1; *p; p++)
            if (*p != '0')
              return FALSE;
          *value = 0;
          return TRUE;
        }
      errno = 0;
      guint64 v = g_ascii_strtoull (t, &end, 10);
      if (errno != 0 || *end != '\0')
        return FALSE;
      *value = v;
      return TRUE;
    }
  double d = node->u.number.value;
  if (isfinite (d) && d == floor (d) && d >= 0 && d < 18446744073709551616.0)
    {
      *value = (guint64) d;
      return TRUE;
    }
  return FALSE;
}

gsize
ncz_json_array_get_length (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, 0);
  return node->kind == NCZ_JSON_ARRAY ? node->u.array->len : 0;
}

NczJson *
ncz_json_array_get (const NczJson *node, gsize index)
{
  g_return_val_if_fail (node != NULL, NULL);
  if (node->kind != NCZ_JSON_ARRAY || index >= node->u.array->len)
    return NULL;
  return g_ptr_array_index (node->u.array, index);
}

gsize
ncz_json_object_get_size (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, 0);
  return node->kind == NCZ_JSON_OBJECT ? node->u.object.keys->len : 0;
}

const char *
ncz_json_object_get_key (const NczJson *node, gsize index)
{
  g_return_val_if_fail (node != NULL, NULL);
  if (node->kind != NCZ_JSON_OBJECT || index >= node->u.object.keys->len)
    return NULL;
  return g_ptr_array_index (node->u.object.keys, index);
}

NczJson *
ncz_json_object_get_value (const NczJson *node, gsize index)
{
  g_return_val_if_fail (node != NULL, NULL);
  if (node->kind != NCZ_JSON_OBJECT || index >= node->u.object.values->len)
    return NULL;
  return g_ptr_array_index (node->u.object.values, index);
}

#define OBJECT_INDEX_MIN 16

/* Builds the index of @node's keys when it is large enough, or drops it */
static void
object_reindex (NczJson *node)
{
  GPtrArray *keys = node->u.object.keys;

  g_clear_pointer (&node->u.object.index, g_hash_table_unref);
  if (keys->len < OBJECT_INDEX_MIN)
    return;
  node->u.object.index = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < keys->len; i++)
    g_hash_table_insert (node->u.object.index, g_ptr_array_index (keys, i),
                         GUINT_TO_POINTER (i + 1));
}

static gssize
object_find (const NczJson *node, const char *key)
{
  if (node->u.object.index)
    return (gssize) GPOINTER_TO_UINT (g_hash_table_lookup (node->u.object.index, key)) - 1;
  for (guint i = 0; i < node->u.object.keys->len; i++)
    if (strcmp (g_ptr_array_index (node->u.object.keys, i), key) == 0)
      return i;
  return -1;
}

NczJson *
ncz_json_object_get (const NczJson *node, const char *key)
{
  g_return_val_if_fail (key != NULL, NULL);
  if (node == NULL || node->kind != NCZ_JSON_OBJECT)
    return NULL;
  gssize i = object_find (node, key);
  return i < 0 ? NULL : g_ptr_array_index (node->u.object.values, i);
}

/* ---- builders ---- */

NczJson *
ncz_json_new_null (void)
{
  return json_new (NCZ_JSON_NULL);
}

NczJson *
ncz_json_new_boolean (gboolean value)
{
  NczJson *n = json_new (NCZ_JSON_BOOLEAN);
  n->u.boolean = !!value;
  return n;
}

static NczJson *
number_new_take (char *text, double value, gboolean is_integer)
{
  NczJson *n = json_new (NCZ_JSON_NUMBER);
  n->u.number.text = text;
  n->u.number.value = value;
  n->u.number.is_integer = is_integer;
  return n;
}

NczJson *
ncz_json_new_int64 (gint64 value)
{
  return number_new_take (g_strdup_printf ("%" G_GINT64_FORMAT, value),
                          (double) value, TRUE);
}

NczJson *
ncz_json_new_uint64 (guint64 value)
{
  return number_new_take (g_strdup_printf ("%" G_GUINT64_FORMAT, value),
                          (double) value, TRUE);
}

char *
ncz_format_double_roundtrip (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value > 0 ? "Infinity" : "-Infinity");
  for (int prec = 15; prec <= 17; prec++)
    {
      g_ascii_formatd (buf, sizeof buf, prec == 15 ? "%.15g" : prec == 16 ? "%.16g" : "%.17g", value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  /* Keep it a JSON real when it looks like an integer: 1 -> 1.0 */
  if (strpbrk (buf, ".eEn") == NULL)
    return g_strconcat (buf, ".0", NULL);
  return g_strdup (buf);
}

NczJson *
ncz_json_new_double (double value)
{
  if (!isfinite (value))
    {
      const char *s = isnan (value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
      return ncz_json_new_string (s, -1);
    }
  return number_new_take (ncz_format_double_roundtrip (value), value, FALSE);
}

NczJson *
ncz_json_new_string (const char *value, gssize length)
{
  NczJson *n = json_new (NCZ_JSON_STRING);
  if (length < 0)
    length = value ? strlen (value) : 0;
  n->u.string.data = g_malloc (length + 1);
  if (length > 0)
    memcpy (n->u.string.data, value, length);
  n->u.string.data[length] = '\0';
  n->u.string.length = length;
  return n;
}

NczJson *
ncz_json_new_array (void)
{
  NczJson *n = json_new (NCZ_JSON_ARRAY);
  n->u.array = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_json_unref);
  return n;
}

NczJson *
ncz_json_new_object (void)
{
  NczJson *n = json_new (NCZ_JSON_OBJECT);
  n->u.object.keys = g_ptr_array_new_with_free_func (g_free);
  n->u.object.values = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_json_unref);
  return n;
}

void
ncz_json_array_append (NczJson *array, NczJson *value)
{
  g_return_if_fail (array != NULL && array->kind == NCZ_JSON_ARRAY);
  g_return_if_fail (value != NULL);
  g_ptr_array_add (array->u.array, value);
}

void
ncz_json_object_set (NczJson *object, const char *key, NczJson *value)
{
  g_return_if_fail (object != NULL && object->kind == NCZ_JSON_OBJECT);
  g_return_if_fail (key != NULL && value != NULL);
  gssize i = object_find (object, key);
  if (i >= 0)
    {
      ncz_json_unref (g_ptr_array_index (object->u.object.values, i));
      g_ptr_array_index (object->u.object.values, i) = value;
      return;
    }
  g_ptr_array_add (object->u.object.keys, g_strdup (key));
  g_ptr_array_add (object->u.object.values, value);
  if (object->u.object.index)
    g_hash_table_insert (object->u.object.index,
                         g_ptr_array_index (object->u.object.keys, object->u.object.keys->len - 1),
                         GUINT_TO_POINTER (object->u.object.keys->len));
  else if (object->u.object.keys->len == OBJECT_INDEX_MIN)
    object_reindex (object);
}

gboolean
ncz_json_object_remove (NczJson *object, const char *key)
{
  g_return_val_if_fail (object != NULL && object->kind == NCZ_JSON_OBJECT, FALSE);
  gssize i = object_find (object, key);
  if (i < 0)
    return FALSE;
  g_clear_pointer (&object->u.object.index, g_hash_table_unref);
  g_ptr_array_remove_index (object->u.object.keys, i);
  g_ptr_array_remove_index (object->u.object.values, i);
  object_reindex (object);
  return TRUE;
}

/* ---- parser ---- */

typedef struct {
  const char *text;
  gsize len;
  gsize pos;
  GError **error;
} Parser;

static void
parser_position (Parser *p, gsize pos, int *line, int *col)
{
  *line = 1;
  *col = 1;
  for (gsize i = 0; i < pos && i < p->len; i++)
    {
      if (p->text[i] == '\n')
        {
          (*line)++;
          *col = 1;
        }
      else
        (*col)++;
    }
}

G_GNUC_PRINTF (2, 3)
static void
parser_fail (Parser *p, const char *format, ...)
{
  va_list args;
  int line, col;
  g_autofree char *msg = NULL;

  if (p->error == NULL || *p->error != NULL)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  parser_position (p, p->pos, &line, &col);
  g_set_error (p->error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
               "invalid JSON at line %d column %d: %s", line, col, msg);
}

static void
skip_ws (Parser *p)
{
  while (p->pos < p->len)
    {
      char c = p->text[p->pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        p->pos++;
      else
        break;
    }
}

static gboolean
match_word (Parser *p, const char *word)
{
  gsize n = strlen (word);
  if (p->len - p->pos >= n && g_ascii_strncasecmp (p->text + p->pos, word, n) == 0)
    {
      /* must not be followed by an identifier character */
      if (p->pos + n < p->len && g_ascii_isalnum (p->text[p->pos + n]))
        return FALSE;
      p->pos += n;
      return TRUE;
    }
  return FALSE;
}

static NczJson *parse_value (Parser *p, int depth);

static gboolean
parse_hex4 (Parser *p, gunichar *out)
{
  gunichar v = 0;
  if (p->len - p->pos < 4)
    return FALSE;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p->text[p->pos + i]);
      if (d < 0)
        return FALSE;
      v = (v << 4) | d;
    }
  p->pos += 4;
  *out = v;
  return TRUE;
}

static NczJson *
parse_string (Parser *p)
{
  GString *s = g_string_new (NULL);

  p->pos++; /* opening quote */
  while (TRUE)
    {
      if (p->pos >= p->len)
        {
          parser_fail (p, "unterminated string");
          goto fail;
        }
      char c = p->text[p->pos];
      if (c == '"')
        {
          p->pos++;
          break;
        }
      /* Raw control characters are not strict JSON, but netcdf-c 4.9.0
       * writes them unescaped in attribute text: keep them. */
      if (c != '\\')
        {
          g_string_append_c (s, c);
          p->pos++;
          continue;
        }
      p->pos++;
      if (p->pos >= p->len)
        {
          parser_fail (p, "unterminated escape");
          goto fail;
        }
      c = p->text[p->pos++];
      switch (c)
        {
        case '"': g_string_append_c (s, '"'); break;
        case '\\': g_string_append_c (s, '\\'); break;
        case '/': g_string_append_c (s, '/'); break;
        case 'b': g_string_append_c (s, '\b'); break;
        case 'f': g_string_append_c (s, '\f'); break;
        case 'n': g_string_append_c (s, '\n'); break;
        case 'r': g_string_append_c (s, '\r'); break;
        case 't': g_string_append_c (s, '\t'); break;
        case 'u':
          {
            gunichar u;
            if (!parse_hex4 (p, &u))
              {
                parser_fail (p, "bad \\u escape");
                goto fail;
              }
            /* A character beyond U+FFFF is a UTF-16 surrogate pair,
             * "\ud83d\ude00". A surrogate that is not part of a pair
             * (Python's json.dumps writes those it is given) has no
             * UTF-8 form: it reads as U+FFFD, and an escape after a lone
             * high surrogate is read on its own. */
            if (u >= 0xD800 && u < 0xDC00)
              {
                Parser next = *p;
                gunichar lo;
                next.pos += 2;
                if (p->len - p->pos >= 6 && p->text[p->pos] == '\\' &&
                    p->text[p->pos + 1] == 'u' && parse_hex4 (&next, &lo) &&
                    lo >= 0xDC00 && lo <= 0xDFFF)
                  {
                    p->pos = next.pos;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                  }
                else
                  u = 0xFFFD;
              }
            else if (u >= 0xDC00 && u <= 0xDFFF)
              u = 0xFFFD;
            if (u == 0)
              g_string_append_len (s, "", 1);
            else
              g_string_append_unichar (s, u);
          }
          break;
        default:
          parser_fail (p, "bad escape '\\%c'", g_ascii_isprint (c) ? c : '?');
          goto fail;
        }
    }
  {
    NczJson *n = json_new (NCZ_JSON_STRING);
    n->u.string.length = s->len;
    n->u.string.data = g_string_free (s, FALSE);
    return n;
  }
fail:
  g_string_free (s, TRUE);
  return NULL;
}

static NczJson *
parse_number (Parser *p)
{
  gsize start = p->pos;
  gboolean is_integer = TRUE;

  if (p->text[p->pos] == '-' || p->text[p->pos] == '+')
    p->pos++;
  /* -Infinity, -NaN */
  if (p->pos < p->len && !g_ascii_isdigit (p->text[p->pos]))
    {
      gboolean neg = p->text[start] == '-';
      if (match_word (p, "infinity") || match_word (p, "inf"))
        return number_new_take (g_strdup (neg ? "-Infinity" : "Infinity"),
                                neg ? -INFINITY : INFINITY, FALSE);
      if (match_word (p, "nan"))
        return number_new_take (g_strdup ("NaN"), NAN, FALSE);
      parser_fail (p, "bad number");
      return NULL;
    }
  if (p->pos >= p->len)
    {
      parser_fail (p, "bad number");
      return NULL;
    }
  while (p->pos < p->len && g_ascii_isdigit (p->text[p->pos]))
    p->pos++;
  if (p->pos < p->len && p->text[p->pos] == '.')
    {
      is_integer = FALSE;
      p->pos++;
      /* "0." (no fraction digits) is not strict JSON, but netcdf-c writes it */
      while (p->pos < p->len && g_ascii_isdigit (p->text[p->pos]))
        p->pos++;
    }
  if (p->pos < p->len && (p->text[p->pos] == 'e' || p->text[p->pos] == 'E'))
    {
      is_integer = FALSE;
      p->pos++;
      if (p->pos < p->len && (p->text[p->pos] == '+' || p->text[p->pos] == '-'))
        p->pos++;
      if (p->pos >= p->len || !g_ascii_isdigit (p->text[p->pos]))
        {
          parser_fail (p, "bad number: digit expected in exponent");
          return NULL;
        }
      while (p->pos < p->len && g_ascii_isdigit (p->text[p->pos]))
        p->pos++;
    }
  char *text = g_strndup (p->text + start, p->pos - start);
  double value = g_ascii_strtod (text, NULL);
  return number_new_take (text, value, is_integer);
}

static NczJson *
parse_array (Parser *p, int depth)
{
  NczJson *arr = ncz_json_new_array ();

  p->pos++;
  skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == ']')
    {
      p->pos++;
      return arr;
    }
  while (TRUE)
    {
      NczJson *v = parse_value (p, depth + 1);
      if (v == NULL)
        goto fail;
      ncz_json_array_append (arr, v);
      skip_ws (p);
      if (p->pos >= p->len)
        {
          parser_fail (p, "unterminated array");
          goto fail;
        }
      if (p->text[p->pos] == ',')
        {
          p->pos++;
          continue;
        }
      if (p->text[p->pos] == ']')
        {
          p->pos++;
          return arr;
        }
      parser_fail (p, "',' or ']' expected");
      goto fail;
    }
fail:
  ncz_json_unref (arr);
  return NULL;
}

static NczJson *
parse_object (Parser *p, int depth)
{
  NczJson *obj = ncz_json_new_object ();

  p->pos++;
  skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == '}')
    {
      p->pos++;
      return obj;
    }
  while (TRUE)
    {
      skip_ws (p);
      if (p->pos >= p->len || p->text[p->pos] != '"')
        {
          parser_fail (p, "object key expected");
          goto fail;
        }
      NczJson *key = parse_string (p);
      if (key == NULL)
        goto fail;
      skip_ws (p);
      if (p->pos >= p->len || p->text[p->pos] != ':')
        {
          ncz_json_unref (key);
          parser_fail (p, "':' expected");
          goto fail;
        }
      p->pos++;
      NczJson *v = parse_value (p, depth + 1);
      if (v == NULL)
        {
          ncz_json_unref (key);
          goto fail;
        }
      ncz_json_object_set (obj, key->u.string.data, v);
      ncz_json_unref (key);
      skip_ws (p);
      if (p->pos >= p->len)
        {
          parser_fail (p, "unterminated object");
          goto fail;
        }
      if (p->text[p->pos] == ',')
        {
          p->pos++;
          continue;
        }
      if (p->text[p->pos] == '}')
        {
          p->pos++;
          return obj;
        }
      parser_fail (p, "',' or '}' expected");
      goto fail;
    }
fail:
  ncz_json_unref (obj);
  return NULL;
}

static NczJson *
parse_value (Parser *p, int depth)
{
  if (depth > MAX_DEPTH)
    {
      parser_fail (p, "nesting deeper than %d", MAX_DEPTH);
      return NULL;
    }
  skip_ws (p);
  if (p->pos >= p->len)
    {
      parser_fail (p, "unexpected end of input");
      return NULL;
    }
  char c = p->text[p->pos];
  switch (c)
    {
    case '{': return parse_object (p, depth);
    case '[': return parse_array (p, depth);
    case '"': return parse_string (p);
    case '-': case '+':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return parse_number (p);
    default:
      break;
    }
  if (match_word (p, "true"))
    return ncz_json_new_boolean (TRUE);
  if (match_word (p, "false"))
    return ncz_json_new_boolean (FALSE);
  if (match_word (p, "null"))
    return ncz_json_new_null ();
  if (match_word (p, "nan"))
    return number_new_take (g_strdup ("NaN"), NAN, FALSE);
  if (match_word (p, "infinity"))
    return number_new_take (g_strdup ("Infinity"), INFINITY, FALSE);
  parser_fail (p, "unexpected character '%c'", g_ascii_isprint (c) ? c : '?');
  return NULL;
}

NczJson *
ncz_json_parse (const char *text, gssize length, GError **error)
{
  Parser p = { text, 0, 0, error };
  NczJson *v;

  g_return_val_if_fail (text != NULL || length == 0, NULL);
  p.len = length < 0 ? strlen (text) : (gsize) length;
  if (p.len == 0)
    p.text = "";
  /* A UTF-8 byte order mark is tolerated */
  if (p.len >= 3 && memcmp (p.text, "\xEF\xBB\xBF", 3) == 0)
    p.pos = 3;
  v = parse_value (&p, 0);
  if (v == NULL)
    return NULL;
  skip_ws (&p);
  if (p.pos < p.len && !(p.text[p.pos] == '\0' && p.pos + 1 == p.len))
    {
      parser_fail (&p, "trailing characters after JSON value");
      ncz_json_unref (v);
      return NULL;
    }
  return v;
}

/* ---- writer ---- */

typedef enum { STYLE_NETCDF, STYLE_PRETTY, STYLE_COMPACT } Style;

typedef struct {
  GString *out;
  Style style;
  /* every character outside ASCII as a \u escape */
  gboolean ascii;
} Writer;

static void
write_escape (GString *out, gunichar u)
{
  if (u >= 0x10000)
    {
      u -= 0x10000;
      g_string_append_printf (out, "\\u%04x\\u%04x", 0xD800 + (u >> 10), 0xDC00 + (u & 0x3FF));
    }
  else
    g_string_append_printf (out, "\\u%04x", u);
}

/* In ASCII mode, a character outside ASCII is written as \uXXXX, one
 * beyond U+FFFF as its UTF-16 surrogate pair (Python's json.dumps does
 * the same). Text that is not UTF-8 (char attributes hold bytes) has no
 * code points: each byte that starts no valid sequence is taken as the
 * Latin-1 character of that value. */
static void
write_string (Writer *w, const char *s, gsize len)
{
  GString *out = w->out;

  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = s[i];
      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:
          if (c < 0x20 || c == 0x7f)
            write_escape (out, c);
          else if (c < 0x80 || !w->ascii)
            g_string_append_c (out, c);
          else
            {
              gunichar u = g_utf8_get_char_validated (s + i, (gssize) (len - i));
              if (u == (gunichar) -1 || u == (gunichar) -2)
                write_escape (out, c);
              else
                {
                  write_escape (out, u);
                  i += g_utf8_skip[c] - 1;
                }
            }
        }
    }
  g_string_append_c (out, '"');
}

static void
indent (GString *out, int level)
{
  for (int i = 0; i < level; i++)
    g_string_append (out, "    ");
}

static void
write_value (Writer *w, const NczJson *n, int level)
{
  GString *out = w->out;
  Style style = w->style;

  switch (n->kind)
    {
    case NCZ_JSON_NULL: g_string_append (out, "null"); break;
    case NCZ_JSON_BOOLEAN: g_string_append (out, n->u.boolean ? "true" : "false"); break;
    case NCZ_JSON_NUMBER:
      if (!isfinite (n->u.number.value) && !n->u.number.is_integer)
        {
          /* bare NaN/Infinity read from a 4.9.0 file is written quoted */
          const char *s = isnan (n->u.number.value) ? "NaN"
                        : n->u.number.value > 0 ? "Infinity" : "-Infinity";
          write_string (w, s, strlen (s));
        }
      else
        g_string_append (out, n->u.number.text);
      break;
    case NCZ_JSON_STRING: write_string (w, n->u.string.data, n->u.string.length); break;
    case NCZ_JSON_ARRAY:
      if (n->u.array->len == 0)
        {
          g_string_append (out, "[]");
          break;
        }
      g_string_append_c (out, '[');
      for (guint i = 0; i < n->u.array->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          if (style == STYLE_PRETTY)
            {
              g_string_append_c (out, '\n');
              indent (out, level + 1);
            }
          write_value (w, g_ptr_array_index (n->u.array, i), level + 1);
        }
      if (style == STYLE_PRETTY)
        {
          g_string_append_c (out, '\n');
          indent (out, level);
        }
      g_string_append_c (out, ']');
      break;
    case NCZ_JSON_OBJECT:
      if (n->u.object.keys->len == 0)
        {
          g_string_append (out, "{}");
          break;
        }
      g_string_append_c (out, '{');
      for (guint i = 0; i < n->u.object.keys->len; i++)
        {
          const char *k = g_ptr_array_index (n->u.object.keys, i);
          if (i > 0)
            g_string_append (out, style == STYLE_NETCDF ? ", " : ",");
          if (style == STYLE_PRETTY)
            {
              g_string_append_c (out, '\n');
              indent (out, level + 1);
            }
          write_string (w, k, strlen (k));
          g_string_append (out, style == STYLE_COMPACT ? ":" : ": ");
          write_value (w, g_ptr_array_index (n->u.object.values, i), level + 1);
        }
      if (style == STYLE_PRETTY)
        {
          g_string_append_c (out, '\n');
          indent (out, level);
        }
      g_string_append_c (out, '}');
      break;
    }
}

static char *
write_text (const NczJson *node, Style style, gboolean ascii)
{
  Writer w = { g_string_new (NULL), style, ascii };
  write_value (&w, node, 0);
  return g_string_free (w.out, FALSE);
}

char *
ncz_json_to_string (const NczJson *node, gboolean pretty)
{
  g_return_val_if_fail (node != NULL, NULL);
  return write_text (node, pretty ? STYLE_PRETTY : STYLE_NETCDF, FALSE);
}

char *
ncz_json_to_ascii_string (const NczJson *node, gboolean pretty)
{
  g_return_val_if_fail (node != NULL, NULL);
  return write_text (node, pretty ? STYLE_PRETTY : STYLE_NETCDF, TRUE);
}

char *
ncz_json_to_compact_string (const NczJson *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  return write_text (node, STYLE_COMPACT, FALSE);
}

gboolean
ncz_json_equal (const NczJson *a, const NczJson *b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL || a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case NCZ_JSON_NULL: return TRUE;
    case NCZ_JSON_BOOLEAN: return a->u.boolean == b->u.boolean;
    case NCZ_JSON_NUMBER:
      if (strcmp (a->u.number.text, b->u.number.text) == 0)
        return TRUE;
      return a->u.number.value == b->u.number.value &&
             a->u.number.is_integer == b->u.number.is_integer &&
             !a->u.number.is_integer;
    case NCZ_JSON_STRING:
      return a->u.string.length == b->u.string.length &&
             memcmp (a->u.string.data, b->u.string.data, a->u.string.length) == 0;
    case NCZ_JSON_ARRAY:
      if (a->u.array->len != b->u.array->len)
        return FALSE;
      for (guint i = 0; i < a->u.array->len; i++)
        if (!ncz_json_equal (g_ptr_array_index (a->u.array, i),
                             g_ptr_array_index (b->u.array, i)))
          return FALSE;
      return TRUE;
    case NCZ_JSON_OBJECT:
      if (a->u.object.keys->len != b->u.object.keys->len)
        return FALSE;
      for (guint i = 0; i < a->u.object.keys->len; i++)
        {
          const char *k = g_ptr_array_index (a->u.object.keys, i);
          if (!ncz_json_equal (g_ptr_array_index (a->u.object.values, i),
                               ncz_json_object_get (b, k)))
            return FALSE;
        }
      return TRUE;
    }
  return FALSE;
}

/* ---- json-glib bridge ----
 *
 * Codec configuration crosses the public API and the module SDK as
 * json-glib objects; metadata is read and written with this tree, whose
 * numbers keep their exact text. Integers that fit a gint64 become
 * json-glib integers, other numbers doubles; json-glib integers come back
 * as integers and doubles with the shortest text that reads back. */

JsonNode *
ncz_json_to_json_node (const NczJson *node)
{
  JsonNode *out;

  g_return_val_if_fail (node != NULL, NULL);
  switch (node->kind)
    {
    case NCZ_JSON_BOOLEAN:
      out = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (out, node->u.boolean);
      return out;
    case NCZ_JSON_NUMBER:
      {
        gint64 v;
        out = json_node_new (JSON_NODE_VALUE);
        if (node->u.number.is_integer && ncz_json_get_int64 (node, &v))
          json_node_set_int (out, v);
        else
          json_node_set_double (out, node->u.number.value);
        return out;
      }
    case NCZ_JSON_STRING:
      out = json_node_new (JSON_NODE_VALUE);
      if (memchr (node->u.string.data, '\0', node->u.string.length) == NULL)
        json_node_set_string (out, node->u.string.data);
      else
        {
          /* json-glib strings end at a NUL: keep what follows, and keep
           * the string from reading as something it is not */
          GString *s = g_string_sized_new (node->u.string.length + 8);
          for (gsize i = 0; i < node->u.string.length; i++)
            if (node->u.string.data[i] == '\0')
              g_string_append (s, "\xef\xbf\xbd");
            else
              g_string_append_c (s, node->u.string.data[i]);
          json_node_set_string (out, s->str);
          g_string_free (s, TRUE);
        }
      return out;
    case NCZ_JSON_ARRAY:
      {
        JsonArray *array = json_array_sized_new (node->u.array->len);
        for (guint i = 0; i < node->u.array->len; i++)
          json_array_add_element (array, ncz_json_to_json_node (node->u.array->pdata[i]));
        out = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (out, array);
        return out;
      }
    case NCZ_JSON_OBJECT:
      {
        JsonObject *object = json_object_new ();
        for (guint i = 0; i < node->u.object.keys->len; i++)
          json_object_set_member (object, node->u.object.keys->pdata[i],
                                  ncz_json_to_json_node (node->u.object.values->pdata[i]));
        out = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (out, object);
        return out;
      }
    case NCZ_JSON_NULL:
    default:
      return json_node_new (JSON_NODE_NULL);
    }
}

JsonObject *
ncz_json_to_json_object (const NczJson *node)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (node != NULL, NULL);
  if (node->kind != NCZ_JSON_OBJECT)
    return NULL;
  root = ncz_json_to_json_node (node);
  return json_object_ref (json_node_get_object (root));
}

NczJson *
ncz_json_from_json_node (JsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return ncz_json_from_json_object (json_node_get_object (node));
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        NczJson *out = ncz_json_new_array ();
        guint n = json_array_get_length (array);
        for (guint i = 0; i < n; i++)
          ncz_json_array_append (out, ncz_json_from_json_node (json_array_get_element (array, i)));
        return out;
      }
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          return ncz_json_new_int64 (json_node_get_int (node));
        case G_TYPE_DOUBLE:
          return ncz_json_new_double (json_node_get_double (node));
        case G_TYPE_BOOLEAN:
          return ncz_json_new_boolean (json_node_get_boolean (node));
        case G_TYPE_STRING:
          return ncz_json_new_string (json_node_get_string (node), -1);
        default:
          return ncz_json_new_null ();
        }
    case JSON_NODE_NULL:
    default:
      return ncz_json_new_null ();
    }
}

NczJson *
ncz_json_from_json_object (JsonObject *object)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *member;
  NczJson *out;

  g_return_val_if_fail (object != NULL, NULL);
  out = ncz_json_new_object ();
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &key, &member))
    ncz_json_object_set (out, key, ncz_json_from_json_node (member));
  return out;
}
