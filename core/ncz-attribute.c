/* ncz-attribute.c: a typed attribute value
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include <ncz/ncz.h>
#include "ncz-core-private.h"

/**
 * NczAttribute:
 *
 * An immutable named vector of values of one #NczDataType. Numeric and char
 * values are kept packed in native byte order; string values as an
 * array of UTF-8 strings.
 *
 * The name is kept in Unicode normalization form C (NFC), as netCDF
 * requires: an attribute created with a name in another form (say NFD)
 * is named by its NFC form, and is found by either form. This holds for
 * attributes read from a dataset too.
 *
 * Since: 1.0
 */
struct _NczAttribute
{
  GObject parent_instance;
  char *name;
  NczDataType type;
  gsize length;
  GBytes *data;     /* numeric and char values */
  char **strings;   /* NCZ_DATA_TYPE_STRING */
};

G_DEFINE_FINAL_TYPE (NczAttribute, ncz_attribute, G_TYPE_OBJECT)

static void
ncz_attribute_finalize (GObject *object)
{
  NczAttribute *self = NCZ_ATTRIBUTE (object);
  g_free (self->name);
  g_clear_pointer (&self->data, g_bytes_unref);
  g_strfreev (self->strings);
  G_OBJECT_CLASS (ncz_attribute_parent_class)->finalize (object);
}

static void
ncz_attribute_class_init (NczAttributeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ncz_attribute_finalize;
}

static void
ncz_attribute_init (NczAttribute *self)
{
}

static gboolean
check_name (const char *name, GError **error)
{
  if (name == NULL || *name == '\0' || strchr (name, '/') != NULL ||
      !g_utf8_validate (name, -1, NULL))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "invalid attribute name '%s'", name ? name : "(null)");
      return FALSE;
    }
  return TRUE;
}

/**
 * ncz_attribute_new:
 * @name: the attribute name
 * @type: the value type (not %NCZ_DATA_TYPE_STRING; see ncz_attribute_new_strings())
 * @values: the packed values in native byte order
 * @error: return location for a #GError
 *
 * Makes an attribute of @type from values packed in native byte order. The
 * name must be non-empty UTF-8 without `/`, and is kept in Unicode
 * normalization form C. Fails with %NCZ_DATASET_ERROR_INVALID for a bad
 * name, for %NCZ_DATA_TYPE_STRING or an invalid type, or when the size of
 * @values is not a multiple of the size of @type. The attribute takes a
 * reference on @values.
 *
 * Returns: (transfer full): a new attribute, or %NULL if @values is not a
 *   whole number of values of @type
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new (const char *name, NczDataType type, GBytes *values,
                   GError **error)
{
  gsize size;
  gsize tsize = ncz_data_type_get_size (type);
  NczAttribute *self;

  g_return_val_if_fail (values != NULL, NULL);
  if (!check_name (name, error))
    return NULL;
  if (tsize == 0 || type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "attribute '%s': invalid type %d for packed values", name, type);
      return NULL;
    }
  size = g_bytes_get_size (values);
  if (size % tsize != 0)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "attribute '%s': %" G_GSIZE_FORMAT " bytes is not a whole number of %s values",
                   name, size, ncz_data_type_get_name (type));
      return NULL;
    }
  self = g_object_new (NCZ_TYPE_ATTRIBUTE, NULL);
  self->name = ncz_name_normalize (name);
  self->type = type;
  self->length = size / tsize;
  self->data = g_bytes_ref (values);
  return self;
}

/**
 * ncz_attribute_new_values: (skip)
 * @name: the attribute name
 * @type: the value type (not %NCZ_DATA_TYPE_STRING)
 * @values: (array length=n_values): packed native values
 * @n_values: number of values
 * @error: return location for a #GError
 *
 * Makes an attribute of @n_values values of @type copied from @values,
 * packed in native byte order. The C-only form of ncz_attribute_new(): it
 * fails as that does.
 *
 * Returns: (transfer full): a new attribute
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new_values (const char *name, NczDataType type, gconstpointer values,
                          gsize n_values, GError **error)
{
  g_autoptr(GBytes) b = g_bytes_new (values, n_values * ncz_data_type_get_size (type));
  return ncz_attribute_new (name, type, b, error);
}

/**
 * ncz_attribute_new_text:
 * @name: the attribute name
 * @text: (array length=length) (element-type guint8): the characters
 * @length: length of @text in bytes, or -1 if NUL-terminated
 *
 * Creates a %NCZ_DATA_TYPE_CHAR attribute (a netCDF text attribute) from
 * @length bytes of @text, copied; they need not be NUL-terminated when
 * @length is given. The name must be a non-empty string; a name with `/`
 * or invalid UTF-8 gives %NULL.
 *
 * Returns: (transfer full): a new attribute
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new_text (const char *name, const char *text, gssize length)
{
  g_autoptr(GBytes) b = NULL;

  g_return_val_if_fail (name != NULL && *name != '\0', NULL);
  if (length < 0)
    length = text ? strlen (text) : 0;
  b = g_bytes_new (text, length);
  return ncz_attribute_new (name, NCZ_DATA_TYPE_CHAR, b, NULL);
}

/**
 * ncz_attribute_new_strings:
 * @name: the attribute name
 * @strings: (array length=n_strings): the strings
 * @n_strings: number of strings, or -1 if @strings is %NULL-terminated
 *
 * Creates a %NCZ_DATA_TYPE_STRING attribute holding copies of @strings
 * (a %NULL element is stored as the empty string). The name must be a
 * non-empty UTF-8 string; it is kept in Unicode normalization form C.
 *
 * Returns: (transfer full): a new attribute
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new_strings (const char *name, const char * const *strings,
                           gssize n_strings)
{
  NczAttribute *self;

  g_return_val_if_fail (name != NULL && *name != '\0', NULL);
  g_return_val_if_fail (g_utf8_validate (name, -1, NULL), NULL);
  if (n_strings < 0)
    n_strings = strings ? g_strv_length ((char **) strings) : 0;
  self = g_object_new (NCZ_TYPE_ATTRIBUTE, NULL);
  self->name = ncz_name_normalize (name);
  self->type = NCZ_DATA_TYPE_STRING;
  self->length = n_strings;
  self->strings = g_new0 (char *, n_strings + 1);
  for (gssize i = 0; i < n_strings; i++)
    self->strings[i] = g_strdup (strings[i] ? strings[i] : "");
  return self;
}

/**
 * ncz_attribute_get_name:
 * @self: an attribute
 *
 * Gives the attribute's name, as stored (in Unicode normalization form C).
 * The string belongs to the attribute.
 *
 * Returns: the name, in Unicode NFC
 * Since: 1.0
 */
const char *
ncz_attribute_get_name (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  return self->name;
}

/**
 * ncz_attribute_get_value_type:
 * @self: an attribute
 *
 * Gives the type of the attribute's values.
 *
 * Returns: the value type
 * Since: 1.0
 */
NczDataType
ncz_attribute_get_value_type (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NCZ_DATA_TYPE_NONE);
  return self->type;
}

/**
 * ncz_attribute_get_length:
 * @self: an attribute
 *
 * Gives the number of values the attribute holds: of characters for a
 * %NCZ_DATA_TYPE_CHAR attribute, of strings for a %NCZ_DATA_TYPE_STRING
 * one.
 *
 * Returns: the number of values (characters for a char attribute)
 * Since: 1.0
 */
gsize
ncz_attribute_get_length (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  return self->length;
}

/**
 * ncz_attribute_get_data:
 * @self: an attribute
 *
 * Gives the values of a numeric or char attribute as packed native values:
 * ncz_attribute_get_length() of them, each of the size of
 * ncz_attribute_get_value_type(). The caller owns the returned reference.
 *
 * Returns: (transfer full) (nullable): the packed values in native byte
 *   order; %NULL for a string attribute
 * Since: 1.0
 */
GBytes *
ncz_attribute_get_data (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  return self->data ? g_bytes_ref (self->data) : NULL;
}

/**
 * ncz_attribute_peek_values: (skip)
 * @self: an attribute
 * @n_values: (out) (optional): number of values
 *
 * Gives the attribute's values without copying: packed native values, or a
 * `char **` of strings for a string attribute. They belong to the
 * attribute and are valid while it lives.
 *
 * Returns: the packed values (for strings, a `char **`)
 * Since: 1.0
 */
gconstpointer
ncz_attribute_peek_values (NczAttribute *self, gsize *n_values)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (n_values)
    *n_values = self->length;
  if (self->type == NCZ_DATA_TYPE_STRING)
    return self->strings;
  return g_bytes_get_data (self->data, NULL);
}

/**
 * ncz_attribute_get_text:
 * @self: a char attribute
 * @length: (out) (optional): length in bytes
 *
 * Gives the characters of a %NCZ_DATA_TYPE_CHAR attribute as a newly
 * allocated, NUL-terminated string; @length receives their number, which
 * counts any NUL inside the text. Free the result with g_free().
 *
 * Returns: (transfer full) (nullable): the characters, NUL-terminated
 *   (they may contain NULs themselves); %NULL if not a char attribute
 * Since: 1.0
 */
char *
ncz_attribute_get_text (NczAttribute *self, gsize *length)
{
  gsize n = 0;
  const char *d;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (self->type != NCZ_DATA_TYPE_CHAR)
    return NULL;
  d = g_bytes_get_data (self->data, &n);
  if (length)
    *length = n;
  {
    char *out = g_malloc0 (n + 1);
    if (n > 0)
      memcpy (out, d, n);
    return out;
  }
}

/**
 * ncz_attribute_get_strings:
 * @self: a string attribute
 *
 * Gives the values of a %NCZ_DATA_TYPE_STRING attribute. They belong to
 * the attribute and live as long as it. Any other attribute has none.
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the strings
 * Since: 1.0
 */
const char * const *
ncz_attribute_get_strings (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  return (const char * const *) self->strings;
}

/* Checks that the values of @self can be read as numbers: char and
 * string attributes hold text, not numbers. */
static gboolean
check_numeric (NczAttribute *self, GError **error)
{
  if (self->type == NCZ_DATA_TYPE_CHAR)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "attribute '%s' holds text (char), not numbers: "
                   "read it with ncz_attribute_get_text()", self->name);
      return FALSE;
    }
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "attribute '%s' holds strings, not numbers: "
                   "read it with ncz_attribute_get_strings()", self->name);
      return FALSE;
    }
  return TRUE;
}

#define READ_AS(ctype, dest) \
  G_STMT_START { ctype v_; memcpy (&v_, p + index * sizeof v_, sizeof v_); dest = v_; } G_STMT_END

/* Value @index of a numeric attribute as a double; for an integer type
 * also exactly, in *@i or (when *@is_unsigned) in *@u; *@is_float for a
 * floating-point type. */
static double
get_value (NczAttribute *self, gsize index, gboolean *is_float, gint64 *i,
           guint64 *u, gboolean *is_unsigned)
{
  const guint8 *p = g_bytes_get_data (self->data, NULL);
  double value = 0;

  *is_float = FALSE;
  *is_unsigned = FALSE;
  *i = 0;
  *u = 0;
  switch (self->type)
    {
    case NCZ_DATA_TYPE_BYTE: READ_AS (gint8, *i); break;
    case NCZ_DATA_TYPE_SHORT: READ_AS (gint16, *i); break;
    case NCZ_DATA_TYPE_INT: READ_AS (gint32, *i); break;
    case NCZ_DATA_TYPE_INT64: READ_AS (gint64, *i); break;
    case NCZ_DATA_TYPE_UBYTE: READ_AS (guint8, *u); *is_unsigned = TRUE; break;
    case NCZ_DATA_TYPE_USHORT: READ_AS (guint16, *u); *is_unsigned = TRUE; break;
    case NCZ_DATA_TYPE_UINT: READ_AS (guint32, *u); *is_unsigned = TRUE; break;
    case NCZ_DATA_TYPE_UINT64: READ_AS (guint64, *u); *is_unsigned = TRUE; break;
    case NCZ_DATA_TYPE_FLOAT: READ_AS (float, value); *is_float = TRUE; return value;
    case NCZ_DATA_TYPE_DOUBLE: READ_AS (double, value); *is_float = TRUE; return value;
    default: g_assert_not_reached ();
    }
  return *is_unsigned ? (double) *u : (double) *i;
}

static void
set_range_error (NczAttribute *self, gsize index, double value, const char *what,
                 GError **error)
{
  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
               "attribute '%s': value %" G_GSIZE_FORMAT " (%.17g) does not fit in %s",
               self->name, index, value, what);
}

/**
 * ncz_attribute_get_double:
 * @self: a numeric attribute
 * @index: value index, less than ncz_attribute_get_length()
 * @error: return location for a #GError
 *
 * Gets value @index of a numeric attribute, converted to a double (a
 * 64-bit integer beyond 2^53 is rounded). A char attribute holds text
 * and a string attribute strings, not numbers: for them this fails with
 * %NCZ_DATASET_ERROR_INVALID (read them with
 * [method@Ncz.Attribute.get_text] and [method@Ncz.Attribute.get_strings]).
 *
 * Returns: the value, or 0 with @error set
 * Since: 1.0
 */
double
ncz_attribute_get_double (NczAttribute *self, gsize index, GError **error)
{
  gboolean is_float, is_unsigned;
  gint64 i;
  guint64 u;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  if (!check_numeric (self, error))
    return 0;
  g_return_val_if_fail (index < self->length, 0);
  return get_value (self, index, &is_float, &i, &u, &is_unsigned);
}

/**
 * ncz_attribute_get_int64:
 * @self: a numeric attribute
 * @index: value index, less than ncz_attribute_get_length()
 * @error: return location for a #GError
 *
 * Gets value @index of a numeric attribute, converted to a signed 64-bit
 * integer; a floating-point value loses its fraction (it is truncated
 * toward zero). Fails with %NCZ_DATASET_ERROR_INVALID for a value that
 * does not fit (NaN, an infinity, a uint64 above %G_MAXINT64), and for a
 * char or string attribute, which holds text, not numbers.
 *
 * Returns: the value, or 0 with @error set
 * Since: 1.0
 */
gint64
ncz_attribute_get_int64 (NczAttribute *self, gsize index, GError **error)
{
  gboolean is_float, is_unsigned;
  gint64 i;
  guint64 u;
  double d;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  if (!check_numeric (self, error))
    return 0;
  g_return_val_if_fail (index < self->length, 0);
  d = get_value (self, index, &is_float, &i, &u, &is_unsigned);
  if (is_float)
    {
      /* both bounds are powers of two, exact as doubles; NaN fails both */
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        {
          set_range_error (self, index, d, "a signed 64-bit integer", error);
          return 0;
        }
      return (gint64) d;
    }
  if (is_unsigned)
    {
      if (u > (guint64) G_MAXINT64)
        {
          set_range_error (self, index, d, "a signed 64-bit integer", error);
          return 0;
        }
      return (gint64) u;
    }
  return i;
}

/**
 * ncz_attribute_get_uint64:
 * @self: a numeric attribute
 * @index: value index, less than ncz_attribute_get_length()
 * @error: return location for a #GError
 *
 * Gets value @index of a numeric attribute, converted to an unsigned
 * 64-bit integer; a floating-point value loses its fraction (it is
 * truncated toward zero). Fails with %NCZ_DATASET_ERROR_INVALID for a
 * value that does not fit (a negative number, NaN, an infinity), and for
 * a char or string attribute, which holds text, not numbers.
 *
 * Returns: the value, or 0 with @error set
 * Since: 1.0
 */
guint64
ncz_attribute_get_uint64 (NczAttribute *self, gsize index, GError **error)
{
  gboolean is_float, is_unsigned;
  gint64 i;
  guint64 u;
  double d;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  if (!check_numeric (self, error))
    return 0;
  g_return_val_if_fail (index < self->length, 0);
  d = get_value (self, index, &is_float, &i, &u, &is_unsigned);
  if (is_float)
    {
      /* the integral part must fit: -0.5 reads as 0 */
      if (!(d > -1.0 && d < 18446744073709551616.0))
        {
          set_range_error (self, index, d, "an unsigned 64-bit integer", error);
          return 0;
        }
      return (guint64) d;
    }
  if (!is_unsigned)
    {
      if (i < 0)
        {
          set_range_error (self, index, d, "an unsigned 64-bit integer", error);
          return 0;
        }
      return (guint64) i;
    }
  return u;
}

/**
 * ncz_attribute_equal:
 * @a: an attribute
 * @b: another attribute
 *
 * Compares two attributes: their names, value types, lengths and every
 * value (the strings of string attributes, the bytes of the others).
 *
 * Returns: whether @a and @b have the same name, type and values
 * Since: 1.0
 */
gboolean
ncz_attribute_equal (NczAttribute *a, NczAttribute *b)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (a) && NCZ_IS_ATTRIBUTE (b), FALSE);
  if (strcmp (a->name, b->name) != 0 || a->type != b->type || a->length != b->length)
    return FALSE;
  if (a->type == NCZ_DATA_TYPE_STRING)
    {
      for (gsize i = 0; i < a->length; i++)
        if (strcmp (a->strings[i], b->strings[i]) != 0)
          return FALSE;
      return TRUE;
    }
  return g_bytes_equal (a->data, b->data);
}
