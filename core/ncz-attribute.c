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

enum {
  PROP_0,
  PROP_NAME,
  PROP_DATA_TYPE,
  PROP_LENGTH,
  PROP_VALUE,
  PROP_TEXT,
  PROP_DISPLAY_TEXT,
  N_PROPS
};

static GParamSpec *attribute_props[N_PROPS];

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
ncz_attribute_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  NczAttribute *self = NCZ_ATTRIBUTE (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_DATA_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_LENGTH:
      g_value_set_uint64 (value, self->length);
      break;
    case PROP_VALUE:
      g_value_take_variant (value, ncz_attribute_get_value (self));
      break;
    case PROP_TEXT:
      g_value_take_string (value, ncz_attribute_dup_text (self));
      break;
    case PROP_DISPLAY_TEXT:
      g_value_take_string (value, ncz_attribute_dup_display_text (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_attribute_class_init (NczAttributeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ncz_attribute_finalize;
  object_class->get_property = ncz_attribute_get_property;

  /**
   * NczAttribute:name: (getter get_name)
   *
   * The attribute's name, in Unicode NFC.
   *
   * Since: 1.0
   */
  attribute_props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  /**
   * NczAttribute:data-type: (getter get_value_type)
   *
   * The type of the values.
   *
   * Since: 1.0
   */
  attribute_props[PROP_DATA_TYPE] = g_param_spec_enum ("data-type", NULL, NULL,
                                                       NCZ_TYPE_DATA_TYPE,
                                                       NCZ_DATA_TYPE_NONE, ro);
  /**
   * NczAttribute:length:
   *
   * The number of values (characters for a char attribute).
   *
   * Since: 1.0
   */
  attribute_props[PROP_LENGTH] = g_param_spec_uint64 ("length", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  /**
   * NczAttribute:value: (getter get_value)
   *
   * The values as a #GVariant, as ncz_attribute_get_value() gives them.
   *
   * Since: 1.0
   */
  attribute_props[PROP_VALUE] = g_param_spec_variant ("value", NULL, NULL, G_VARIANT_TYPE_ANY,
                                                      NULL, ro);
  /**
   * NczAttribute:text: (getter dup_text)
   *
   * The characters of a char attribute as a string; %NULL for other
   * attributes.
   *
   * Since: 1.0
   */
  attribute_props[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, ro);
  /**
   * NczAttribute:display-text: (getter dup_display_text)
   *
   * A readable rendering of the values of any attribute, as
   * ncz_attribute_dup_display_text() gives it.
   *
   * Since: 1.0
   */
  attribute_props[PROP_DISPLAY_TEXT] = g_param_spec_string ("display-text", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, attribute_props);
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

/* A value index beyond the values is an error a binding can reach */
static gboolean
check_index (NczAttribute *self, gsize index, GError **error)
{
  if (index < self->length)
    return TRUE;
  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
               "attribute '%s' has %" G_GSIZE_FORMAT " values: there is no value %"
               G_GSIZE_FORMAT, self->name, self->length, index);
  return FALSE;
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
  if (!check_numeric (self, error) || !check_index (self, index, error))
    return 0;
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
  if (!check_numeric (self, error) || !check_index (self, index, error))
    return 0;
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
  if (!check_numeric (self, error) || !check_index (self, index, error))
    return 0;
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

/* ---- values for bindings: strings, GVariants, lists ---- */

const GVariantType *
ncz_data_type_variant_element (NczDataType type)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_CHAR: return G_VARIANT_TYPE_BYTE;
    case NCZ_DATA_TYPE_SHORT: return G_VARIANT_TYPE_INT16;
    case NCZ_DATA_TYPE_USHORT: return G_VARIANT_TYPE_UINT16;
    case NCZ_DATA_TYPE_INT: return G_VARIANT_TYPE_INT32;
    case NCZ_DATA_TYPE_UINT: return G_VARIANT_TYPE_UINT32;
    case NCZ_DATA_TYPE_INT64: return G_VARIANT_TYPE_INT64;
    case NCZ_DATA_TYPE_UINT64: return G_VARIANT_TYPE_UINT64;
    case NCZ_DATA_TYPE_FLOAT:
    case NCZ_DATA_TYPE_DOUBLE: return G_VARIANT_TYPE_DOUBLE;
    case NCZ_DATA_TYPE_STRING: return G_VARIANT_TYPE_STRING;
    case NCZ_DATA_TYPE_NONE:
    default: return NULL;
    }
}

GVariant *
ncz_packed_value_to_variant (NczDataType type, gconstpointer data)
{
  const guint8 *p = data;
  const gsize index = 0;

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_CHAR: return g_variant_new_byte (p[0]);
    case NCZ_DATA_TYPE_SHORT: { gint16 v; READ_AS (gint16, v); return g_variant_new_int16 (v); }
    case NCZ_DATA_TYPE_USHORT: { guint16 v; READ_AS (guint16, v); return g_variant_new_uint16 (v); }
    case NCZ_DATA_TYPE_INT: { gint32 v; READ_AS (gint32, v); return g_variant_new_int32 (v); }
    case NCZ_DATA_TYPE_UINT: { guint32 v; READ_AS (guint32, v); return g_variant_new_uint32 (v); }
    case NCZ_DATA_TYPE_INT64: { gint64 v; READ_AS (gint64, v); return g_variant_new_int64 (v); }
    case NCZ_DATA_TYPE_UINT64: { guint64 v; READ_AS (guint64, v); return g_variant_new_uint64 (v); }
    case NCZ_DATA_TYPE_FLOAT: { float v; READ_AS (float, v); return g_variant_new_double (v); }
    case NCZ_DATA_TYPE_DOUBLE: { double v; READ_AS (double, v); return g_variant_new_double (v); }
    case NCZ_DATA_TYPE_STRING: return g_variant_new_string (data ? (const char *) data : "");
    case NCZ_DATA_TYPE_NONE:
    default: return NULL;
    }
}

GVariant *
ncz_packed_values_to_variant (NczDataType type, gconstpointer data, gsize n_values)
{
  const GVariantType *element = ncz_data_type_variant_element (type);
  gsize tsize = ncz_data_type_get_size (type);
  GVariantBuilder b;

  if (element == NULL || type == NCZ_DATA_TYPE_STRING)
    return NULL;
  if (type == NCZ_DATA_TYPE_BYTE || type == NCZ_DATA_TYPE_UBYTE || type == NCZ_DATA_TYPE_CHAR)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, n_values ? data : "", n_values, 1);
  g_variant_builder_init (&b, G_VARIANT_TYPE_ARRAY);
  for (gsize i = 0; i < n_values; i++)
    g_variant_builder_add_value (&b, ncz_packed_value_to_variant (type,
                                                                  (const guint8 *) data + i * tsize));
  if (n_values == 0)
    {
      g_variant_builder_clear (&b);
      return g_variant_new_array (element, NULL, 0);
    }
  return g_variant_builder_end (&b);
}

/**
 * ncz_attribute_new_utf8: (rename-to ncz_attribute_new_text) (constructor)
 * @name: the attribute name
 * @text: the characters, UTF-8 text
 * @error: return location for a #GError
 *
 * Creates a char attribute from a string, as bindings call
 * `Ncz.Attribute.new_text (name, text)`. Unlike ncz_attribute_new_text(),
 * a bad name is an error, not a critical warning.
 *
 * Returns: (transfer full): a new attribute, or %NULL with @error set
 *   (%NCZ_DATASET_ERROR_INVALID) if @name is not a valid attribute name
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new_utf8 (const char *name, const char *text, GError **error)
{
  g_autoptr(GBytes) b = NULL;

  g_return_val_if_fail (text != NULL, NULL);
  b = g_bytes_new (text, strlen (text));
  return ncz_attribute_new (name, NCZ_DATA_TYPE_CHAR, b, error);
}

/**
 * ncz_attribute_dup_text: (rename-to ncz_attribute_get_text)
 * @self: an attribute
 *
 * Gets the characters of a char attribute as a string, as bindings call
 * `attribute.get_text ()`. Characters after a NUL, if the attribute
 * holds any, are not part of the string: ncz_attribute_get_text() gives
 * them all.
 *
 * Returns: (transfer full) (nullable): the text; %NULL if not a char
 *   attribute
 * Since: 1.0
 */
char *
ncz_attribute_dup_text (NczAttribute *self)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  return ncz_attribute_get_text (self, NULL);
}

/**
 * ncz_attribute_get_value: (get-property value)
 * @self: an attribute
 *
 * Gets the values as a #GVariant typed by the attribute's type: a byte
 * array ("ay") for byte and ubyte, "an" for short, "aq" for ushort, "ai"
 * for int, "au" for uint, "ax" for int64, "at" for uint64, "ad" for
 * float (widened exactly) and double, "as" for string, and a string
 * ("s") for char, the text.
 *
 * Returns: (transfer full): the values
 * Since: 1.0
 */
GVariant *
ncz_attribute_get_value (NczAttribute *self)
{
  GVariant *v;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (self->type == NCZ_DATA_TYPE_STRING)
    v = g_variant_new_strv ((const char * const *) self->strings, (gssize) self->length);
  else if (self->type == NCZ_DATA_TYPE_CHAR)
    {
      g_autofree char *text = ncz_attribute_get_text (self, NULL);
      if (!g_utf8_validate (text, -1, NULL))
        {
          char *valid = g_utf8_make_valid (text, -1);
          g_free (text);
          text = valid;
        }
      v = g_variant_new_string (text);
    }
  else
    v = ncz_packed_values_to_variant (self->type, g_bytes_get_data (self->data, NULL),
                                      self->length);
  return g_variant_ref_sink (v);
}

/* The data type of a GVariant's values, and how many; NONE if unusable */
static NczDataType
type_of_variant (GVariant *value, gboolean *is_array)
{
  static const struct { const char *t; NczDataType type; } map[] = {
    { "y", NCZ_DATA_TYPE_UBYTE }, { "n", NCZ_DATA_TYPE_SHORT },
    { "q", NCZ_DATA_TYPE_USHORT }, { "i", NCZ_DATA_TYPE_INT },
    { "u", NCZ_DATA_TYPE_UINT }, { "x", NCZ_DATA_TYPE_INT64 },
    { "t", NCZ_DATA_TYPE_UINT64 }, { "d", NCZ_DATA_TYPE_DOUBLE },
    { "s", NCZ_DATA_TYPE_STRING },
  };
  const char *t = g_variant_get_type_string (value);

  *is_array = t[0] == 'a';
  if (*is_array)
    t++;
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (g_str_equal (t, map[i].t))
      return map[i].type;
  return NCZ_DATA_TYPE_NONE;
}

/**
 * ncz_attribute_new_from_variant:
 * @name: the attribute name
 * @value: the values: a string ("s") for a char attribute (text), a
 *   string array ("as") for a string attribute, or a number or an array
 *   of numbers: "y"/"ay" for ubyte, "n"/"an" short, "q"/"aq" ushort,
 *   "i"/"ai" int, "u"/"au" uint, "x"/"ax" int64, "t"/"at" uint64,
 *   "d"/"ad" double
 * @error: return location for a #GError
 *
 * Creates an attribute from a #GVariant, the inverse of
 * ncz_attribute_get_value() except for the types a #GVariant has no
 * numbers for (byte and float: create those with ncz_attribute_new()).
 * A floating @value is consumed.
 *
 * Returns: (transfer full): a new attribute, or %NULL with @error set
 *   (%NCZ_DATASET_ERROR_INVALID) for another #GVariant type or a bad name
 * Since: 1.0
 */
NczAttribute *
ncz_attribute_new_from_variant (const char *name, GVariant *value, GError **error)
{
  g_autoptr(GVariant) v = NULL;
  gboolean is_array = FALSE;
  NczDataType type;
  gsize tsize, n;
  g_autofree guint8 *packed = NULL;

  g_return_val_if_fail (value != NULL, NULL);
  v = g_variant_ref_sink (value);
  if (!check_name (name, error))
    return NULL;
  type = type_of_variant (v, &is_array);
  if (type == NCZ_DATA_TYPE_NONE)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "attribute '%s': a GVariant of type '%s' gives no attribute values "
                   "(a string, a number, or an array of strings or numbers)",
                   name, g_variant_get_type_string (v));
      return NULL;
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      g_autofree const char **strv = NULL;
      if (!is_array)
        return ncz_attribute_new_utf8 (name, g_variant_get_string (v, NULL), error);
      strv = g_variant_get_strv (v, &n);
      return ncz_attribute_new_strings (name, strv, (gssize) n);
    }
  tsize = ncz_data_type_get_size (type);
  n = is_array ? g_variant_n_children (v) : 1;
  packed = g_malloc0 (MAX (n * tsize, 1));
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) e = is_array ? g_variant_get_child_value (v, i) : g_variant_ref (v);
      guint8 *out = packed + i * tsize;
      union { guint8 y; gint16 n; guint16 q; gint32 i; guint32 u; gint64 x; guint64 t; double d; } u;

      switch (type)
        {
        case NCZ_DATA_TYPE_UBYTE: u.y = g_variant_get_byte (e); break;
        case NCZ_DATA_TYPE_SHORT: u.n = g_variant_get_int16 (e); break;
        case NCZ_DATA_TYPE_USHORT: u.q = g_variant_get_uint16 (e); break;
        case NCZ_DATA_TYPE_INT: u.i = g_variant_get_int32 (e); break;
        case NCZ_DATA_TYPE_UINT: u.u = g_variant_get_uint32 (e); break;
        case NCZ_DATA_TYPE_INT64: u.x = g_variant_get_int64 (e); break;
        case NCZ_DATA_TYPE_UINT64: u.t = g_variant_get_uint64 (e); break;
        case NCZ_DATA_TYPE_DOUBLE: u.d = g_variant_get_double (e); break;
        default: g_assert_not_reached ();
        }
      memcpy (out, &u, tsize);
    }
  return ncz_attribute_new_values (name, type, packed, n, error);
}

/* Converts every value with @get; NULL with @error set on the first that
 * fails. */
#define GET_ALL(ctype, get)                                              \
  G_STMT_START {                                                         \
    ctype *out_;                                                         \
    if (!check_numeric (self, error))                                    \
      return NULL;                                                       \
    out_ = g_new (ctype, MAX (self->length, 1));                         \
    for (gsize i_ = 0; i_ < self->length; i_++)                          \
      {                                                                  \
        GError *e_ = NULL;                                               \
        out_[i_] = get (self, i_, &e_);                                  \
        if (e_ != NULL)                                                  \
          {                                                              \
            g_propagate_error (error, e_);                               \
            g_free (out_);                                               \
            return NULL;                                                 \
          }                                                              \
      }                                                                  \
    if (n_values)                                                        \
      *n_values = self->length;                                          \
    return out_;                                                         \
  } G_STMT_END

/**
 * ncz_attribute_get_double_values:
 * @self: a numeric attribute
 * @n_values: (out) (optional): the number of values
 * @error: return location for a #GError
 *
 * Gets every value of a numeric attribute as a double, as
 * ncz_attribute_get_double() converts each; bindings see a list.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the values,
 *   or %NULL with @error set for a char or string attribute
 * Since: 1.0
 */
double *
ncz_attribute_get_double_values (NczAttribute *self, gsize *n_values, GError **error)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (n_values)
    *n_values = 0;
  GET_ALL (double, ncz_attribute_get_double);
}

/**
 * ncz_attribute_get_int64_values:
 * @self: a numeric attribute
 * @n_values: (out) (optional): the number of values
 * @error: return location for a #GError
 *
 * Gets every value of a numeric attribute as a signed 64-bit integer, as
 * ncz_attribute_get_int64() converts each; bindings see a list.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the values,
 *   or %NULL with @error set for a char or string attribute or a value
 *   that does not fit
 * Since: 1.0
 */
gint64 *
ncz_attribute_get_int64_values (NczAttribute *self, gsize *n_values, GError **error)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (n_values)
    *n_values = 0;
  GET_ALL (gint64, ncz_attribute_get_int64);
}

/**
 * ncz_attribute_get_uint64_values:
 * @self: a numeric attribute
 * @n_values: (out) (optional): the number of values
 * @error: return location for a #GError
 *
 * Gets every value of a numeric attribute as an unsigned 64-bit integer,
 * as ncz_attribute_get_uint64() converts each; bindings see a list.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the values,
 *   or %NULL with @error set for a char or string attribute or a value
 *   that does not fit
 * Since: 1.0
 */
guint64 *
ncz_attribute_get_uint64_values (NczAttribute *self, gsize *n_values, GError **error)
{
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (n_values)
    *n_values = 0;
  GET_ALL (guint64, ncz_attribute_get_uint64);
}

/**
 * ncz_attribute_dup_display_text: (get-property display-text)
 * @self: an attribute
 *
 * A readable rendering of the values, for showing an attribute of any
 * type in a user interface: the text of a char attribute, the string of
 * a one-string attribute, else the values separated by ", " (strings
 * quoted).
 *
 * Returns: (transfer full): the text
 * Since: 1.0
 */
char *
ncz_attribute_dup_display_text (NczAttribute *self)
{
  GString *s;
  const guint8 *p;

  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (self), NULL);
  if (self->type == NCZ_DATA_TYPE_CHAR)
    {
      g_autoptr(GVariant) v = ncz_attribute_get_value (self);
      return g_variant_dup_string (v, NULL);
    }
  if (self->type == NCZ_DATA_TYPE_STRING && self->length == 1)
    return g_strdup (self->strings[0]);
  s = g_string_new (NULL);
  p = self->data ? g_bytes_get_data (self->data, NULL) : NULL;
  for (gsize index = 0; index < self->length; index++)
    {
      if (index > 0)
        g_string_append (s, ", ");
      switch (self->type)
        {
        case NCZ_DATA_TYPE_STRING:
          {
            g_autofree char *q = g_strescape (self->strings[index], NULL);
            g_string_append_printf (s, "\"%s\"", q);
          }
          break;
        case NCZ_DATA_TYPE_FLOAT:
          {
            float v;
            READ_AS (float, v);
            g_string_append_printf (s, "%.9g", (double) v);
          }
          break;
        case NCZ_DATA_TYPE_DOUBLE:
          {
            double v;
            READ_AS (double, v);
            g_string_append_printf (s, "%.17g", v);
          }
          break;
        default:
          {
            gboolean is_float, is_unsigned;
            gint64 i;
            guint64 u;
            get_value (self, index, &is_float, &i, &u, &is_unsigned);
            if (is_unsigned)
              g_string_append_printf (s, "%" G_GUINT64_FORMAT, u);
            else
              g_string_append_printf (s, "%" G_GINT64_FORMAT, i);
          }
        }
    }
  return g_string_free (s, FALSE);
}
