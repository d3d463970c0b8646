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
 * Creates a char attribute.
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
 * Creates a string attribute.
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
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the strings
 * Since: 1.0
 */
const char * const *
ncz_attribute_get_strings (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  return (const char * const *) self->strings;
}

#define GET_AS(T, ctype) \
  do { ctype v; memcpy (&v, p + index * sizeof v, sizeof v); return (T) v; } while (0)

/**
 * ncz_attribute_get_double:
 * @self: a numeric attribute
 * @index: value index
 *
 * Returns: value @index converted to double
 * Since: 1.0
 */
double
ncz_attribute_get_double (NczAttribute *self, gsize index)
{
  const guint8 *p;
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  g_return_val_if_fail (index < self->length && self->type != NCZ_DATA_TYPE_STRING, 0);
  p = g_bytes_get_data (self->data, NULL);
  switch (self->type)
    {
    case NCZ_DATA_TYPE_BYTE: GET_AS (double, gint8);
    case NCZ_DATA_TYPE_CHAR: GET_AS (double, guint8);
    case NCZ_DATA_TYPE_UBYTE: GET_AS (double, guint8);
    case NCZ_DATA_TYPE_SHORT: GET_AS (double, gint16);
    case NCZ_DATA_TYPE_USHORT: GET_AS (double, guint16);
    case NCZ_DATA_TYPE_INT: GET_AS (double, gint32);
    case NCZ_DATA_TYPE_UINT: GET_AS (double, guint32);
    case NCZ_DATA_TYPE_INT64: GET_AS (double, gint64);
    case NCZ_DATA_TYPE_UINT64: GET_AS (double, guint64);
    case NCZ_DATA_TYPE_FLOAT: GET_AS (double, float);
    case NCZ_DATA_TYPE_DOUBLE: GET_AS (double, double);
    default: return 0;
    }
}

/**
 * ncz_attribute_get_int64:
 * @self: a numeric attribute
 * @index: value index
 *
 * Returns: value @index converted to a signed 64-bit integer
 * Since: 1.0
 */
gint64
ncz_attribute_get_int64 (NczAttribute *self, gsize index)
{
  const guint8 *p;
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  g_return_val_if_fail (index < self->length && self->type != NCZ_DATA_TYPE_STRING, 0);
  p = g_bytes_get_data (self->data, NULL);
  switch (self->type)
    {
    case NCZ_DATA_TYPE_BYTE: GET_AS (gint64, gint8);
    case NCZ_DATA_TYPE_CHAR: GET_AS (gint64, guint8);
    case NCZ_DATA_TYPE_UBYTE: GET_AS (gint64, guint8);
    case NCZ_DATA_TYPE_SHORT: GET_AS (gint64, gint16);
    case NCZ_DATA_TYPE_USHORT: GET_AS (gint64, guint16);
    case NCZ_DATA_TYPE_INT: GET_AS (gint64, gint32);
    case NCZ_DATA_TYPE_UINT: GET_AS (gint64, guint32);
    case NCZ_DATA_TYPE_INT64: GET_AS (gint64, gint64);
    case NCZ_DATA_TYPE_UINT64: GET_AS (gint64, guint64);
    case NCZ_DATA_TYPE_FLOAT: GET_AS (gint64, float);
    case NCZ_DATA_TYPE_DOUBLE: GET_AS (gint64, double);
    default: return 0;
    }
}

/**
 * ncz_attribute_get_uint64:
 * @self: a numeric attribute
 * @index: value index
 *
 * Returns: value @index converted to an unsigned 64-bit integer
 * Since: 1.0
 */
guint64
ncz_attribute_get_uint64 (NczAttribute *self, gsize index)
{
  const guint8 *p;
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), 0);
  g_return_val_if_fail (index < self->length && self->type != NCZ_DATA_TYPE_STRING, 0);
  p = g_bytes_get_data (self->data, NULL);
  switch (self->type)
    {
    case NCZ_DATA_TYPE_UINT64: GET_AS (guint64, guint64);
    case NCZ_DATA_TYPE_UINT: GET_AS (guint64, guint32);
    case NCZ_DATA_TYPE_USHORT: GET_AS (guint64, guint16);
    case NCZ_DATA_TYPE_UBYTE: GET_AS (guint64, guint8);
    case NCZ_DATA_TYPE_CHAR: GET_AS (guint64, guint8);
    default: return (guint64) ncz_attribute_get_int64 (self, index);
    }
}

/**
 * ncz_attribute_equal:
 * @a: an attribute
 * @b: another attribute
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
