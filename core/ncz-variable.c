/* ncz-variable.c: variables
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"
#include "ncz-format-private.h"
#include "ncz-filter-spec-private.h"
#include <ncz/ncz-json.h>
#include "ncz-quantize-private.h"

/**
 * NczVariable:
 *
 * A variable: a typed, dimensioned array stored in chunks, with its
 * attributes, fill value, byte order and filter chain.
 *
 * Since: 1.0
 */
struct _NczVariable
{
  GObject parent_instance;
  char *name;
  NczNodeLink link;       /* to the group, the owner */
  NczGroup *group;
  NczDataType type;
  GPtrArray *dimensions;  /* NczDimension, strong */
  guint64 *chunks;        /* NULL until set or defaulted */
  gboolean contiguous;
  GBytes *fill;           /* user fill value (storage element bytes), or NULL */
  gboolean no_fill;
  NczEndianness endianness;
  gboolean zero_dim;
  guint string_width;     /* set directly; 0 = from attributes (atomic) */
  int vlen_strings;       /* -1: the dataset's default, 0: fixed width, 1: variable length */
  char *storage_dtype;    /* the stored data type to keep (e.g. "|b1"), or NULL */
  NczAttrList attributes;
  GPtrArray *filters;     /* NczFilterSpec */
  guint filters_generation; /* bumped whenever @filters changes (under lock) */
  NczCodecChain *chain;   /* resolved chain, or NULL (under lock) */
  NczQuantizeMode quantize_mode;
  guint quantize_nsd;
  gboolean loaded;        /* read from an existing dataset */
  gboolean data_written;  /* values were written since it was defined */
  GMutex lock;
};

G_DEFINE_FINAL_TYPE (NczVariable, ncz_variable, G_TYPE_OBJECT)

/* Target size of a default chunk when the whole variable is too big to be one */
#define DEFAULT_CHUNK_BYTES (4u * 1024 * 1024)
#define WHOLE_VARIABLE_CHUNK_MAX (64u * 1024 * 1024)

NczFilterSpec *
ncz_filter_spec_new (const char *codec_id, guint filter_id, const char *json)
{
  NczFilterSpec *spec = g_new0 (NczFilterSpec, 1);
  spec->codec_id = g_strdup (codec_id);
  spec->filter_id = filter_id;
  spec->json = g_strdup (json);
  spec->visible = g_array_new (FALSE, TRUE, sizeof (guint));
  return spec;
}

void
ncz_filter_spec_free (NczFilterSpec *spec)
{
  if (spec == NULL)
    return;
  g_free (spec->codec_id);
  g_free (spec->json);
  g_clear_pointer (&spec->visible, g_array_unref);
  g_clear_pointer (&spec->working, g_array_unref);
  g_clear_object (&spec->codec);
  g_free (spec);
}

static void
ncz_variable_finalize (GObject *object)
{
  NczVariable *self = NCZ_VARIABLE (object);
  ncz_node_link_clear (&self->link);
  g_free (self->name);
  g_ptr_array_unref (self->dimensions);
  g_free (self->chunks);
  g_clear_pointer (&self->fill, g_bytes_unref);
  ncz_attr_list_clear (&self->attributes);
  g_clear_pointer (&self->filters, g_ptr_array_unref);
  g_clear_pointer (&self->chain, ncz_codec_chain_unref);
  g_free (self->storage_dtype);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ncz_variable_parent_class)->finalize (object);
}

static void
ncz_variable_class_init (NczVariableClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ncz_variable_finalize;
}

static void
ncz_variable_init (NczVariable *self)
{
  /* not references: a dimension belongs to a group of the dataset, which
   * lives as long as any of its objects */
  self->dimensions = g_ptr_array_new ();
  ncz_attr_list_init (&self->attributes);
  self->vlen_strings = -1;
  g_mutex_init (&self->lock);
}

NczVariable *
ncz_variable_new_internal (NczGroup *group, const char *name, NczDataType type,
                           guint n_dims, NczDimension **dimensions)
{
  NczVariable *self = g_object_new (NCZ_TYPE_VARIABLE, NULL);
  self->name = g_strdup (name);
  self->group = group;
  ncz_node_link_init (&self->link, group);
  self->type = type;
  for (guint i = 0; i < n_dims; i++)
    g_ptr_array_add (self->dimensions, dimensions[i]);
  {
    NczDataset *ds = ncz_group_peek_dataset (group);
    self->loaded = ds != NULL && ncz_dataset_is_loading (ds);
  }
  return self;
}

NczNodeLink *
ncz_variable_get_link (NczVariable *self)
{
  return &self->link;
}

/**
 * ncz_variable_get_name:
 * @self: a variable
 *
 * Returns: the name
 * Since: 1.0
 */
const char *
ncz_variable_get_name (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return self->name;
}

/**
 * ncz_variable_get_full_name:
 * @self: a variable
 *
 * Returns: (transfer full): the fully qualified name, e.g. "/grp/v"
 * Since: 1.0
 */
char *
ncz_variable_get_full_name (NczVariable *self)
{
  g_autofree char *gname = NULL;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->group == NULL)
    return g_strconcat ("/", self->name, NULL);
  gname = ncz_group_get_full_name (self->group);
  return g_str_equal (gname, "/") ? g_strconcat ("/", self->name, NULL)
                                  : g_strconcat (gname, "/", self->name, NULL);
}

/**
 * ncz_variable_get_group:
 * @self: a variable
 *
 * Returns: (transfer none) (nullable): the group of the variable
 * Since: 1.0
 */
NczGroup *
ncz_variable_get_group (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return self->group;
}

NczDataset *
ncz_variable_get_dataset (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return self->group ? ncz_group_peek_dataset (self->group) : NULL;
}

/**
 * ncz_variable_get_value_type:
 * @self: a variable
 *
 * Returns: the type of its values
 * Since: 1.0
 */
NczDataType
ncz_variable_get_value_type (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NCZ_DATA_TYPE_NONE);
  return self->type;
}

/**
 * ncz_variable_get_n_dimensions:
 * @self: a variable
 *
 * Returns: the rank (0 for a scalar)
 * Since: 1.0
 */
guint
ncz_variable_get_n_dimensions (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), 0);
  return self->dimensions->len;
}

/**
 * ncz_variable_get_dimension:
 * @self: a variable
 * @index: dimension index, outermost first
 *
 * Returns: (transfer none): the dimension
 * Since: 1.0
 */
NczDimension *
ncz_variable_get_dimension (NczVariable *self, guint index)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_return_val_if_fail (index < self->dimensions->len, NULL);
  return g_ptr_array_index (self->dimensions, index);
}

/**
 * ncz_variable_get_dimensions:
 * @self: a variable
 *
 * Returns: (transfer container) (element-type NczDimension): the dimensions
 * Since: 1.0
 */
GPtrArray *
ncz_variable_get_dimensions (NczVariable *self)
{
  GPtrArray *out;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  out = g_ptr_array_new_full (self->dimensions->len, g_object_unref);
  for (guint i = 0; i < self->dimensions->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (self->dimensions, i)));
  return out;
}

/**
 * ncz_variable_get_shape:
 * @self: a variable
 * @n_dims: (out) (optional): the rank
 *
 * Returns: (transfer full) (array length=n_dims) (nullable): the current
 *   length of each dimension; %NULL for a scalar
 * Since: 1.0
 */
guint64 *
ncz_variable_get_shape (NczVariable *self, guint *n_dims)
{
  guint n;
  guint64 *shape;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  n = self->dimensions->len;
  if (n_dims)
    *n_dims = n;
  if (n == 0)
    return NULL;
  shape = g_new (guint64, n);
  for (guint i = 0; i < n; i++)
    shape[i] = ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i));
  return shape;
}

/**
 * ncz_variable_get_n_elements:
 * @self: a variable
 *
 * Returns: the number of elements (1 for a scalar), saturating at G_MAXUINT64
 * Since: 1.0
 */
guint64
ncz_variable_get_n_elements (NczVariable *self)
{
  guint64 n = 1;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), 0);
  for (guint i = 0; i < self->dimensions->len; i++)
    {
      guint64 len = ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i));
      if (len != 0 && n > G_MAXUINT64 / len)
        return G_MAXUINT64;
      n *= len;
    }
  return n;
}

/**
 * ncz_variable_is_scalar:
 * @self: a variable
 *
 * Returns: whether the variable has no dimensions
 * Since: 1.0
 */
gboolean
ncz_variable_is_scalar (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return self->dimensions->len == 0;
}

static void
compute_default_chunks (NczVariable *self)
{
  guint n = self->dimensions->len;
  gsize esize = ncz_variable_get_storage_element_size (self);
  guint64 total = esize;

  self->chunks = g_new (guint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      NczDimension *d = g_ptr_array_index (self->dimensions, i);
      guint64 len = ncz_dimension_get_length (d);
      self->chunks[i] = ncz_dimension_is_unlimited (d) || len == 0 ? 1 : len;
      if (self->chunks[i] > 0 && total <= G_MAXUINT64 / self->chunks[i])
        total *= self->chunks[i];
      else
        total = G_MAXUINT64;
    }
  if (total <= WHOLE_VARIABLE_CHUNK_MAX)
    return;
  /* Too big for one chunk: halve the largest dimensions until small enough */
  while (total > DEFAULT_CHUNK_BYTES)
    {
      guint best = 0;
      for (guint i = 1; i < n; i++)
        if (self->chunks[i] > self->chunks[best])
          best = i;
      if (self->chunks[best] <= 1)
        break;
      guint64 half = (self->chunks[best] + 1) / 2;
      total = total / self->chunks[best] * half;
      self->chunks[best] = half;
    }
}

/**
 * ncz_variable_get_chunk_sizes:
 * @self: a variable
 * @n_dims: (out) (optional): the rank
 *
 * The chunk shape. When none was set, a default is chosen: the whole
 * variable as one chunk (length 1 along unlimited dimensions), or when
 * that would exceed 64 MiB, the largest dimensions halved until a chunk
 * is at most 4 MiB.
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the chunk
 *   lengths, %NULL for a scalar
 * Since: 1.0
 */
const guint64 *
ncz_variable_get_chunk_sizes (NczVariable *self, guint *n_dims)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (n_dims)
    *n_dims = self->dimensions->len;
  if (self->dimensions->len == 0)
    return NULL;
  g_mutex_lock (&self->lock);
  if (self->chunks == NULL)
    compute_default_chunks (self);
  g_mutex_unlock (&self->lock);
  return self->chunks;
}

static gboolean
check_define (NczVariable *self, GError **error)
{
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of variable '%s' is gone", self->name);
      return FALSE;
    }
  return ncz_dataset_check_writable (ds, error);
}

/**
 * ncz_variable_set_chunk_sizes:
 * @self: a variable
 * @sizes: (array length=n_dims): chunk lengths, each at least 1
 * @n_dims: must equal the rank
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_chunk_sizes (NczVariable *self, const guint64 *sizes,
                              guint n_dims, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_define (self, error))
    return FALSE;
  if (n_dims != self->dimensions->len)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %u chunk sizes given for rank %u",
                   self->name, n_dims, self->dimensions->len);
      return FALSE;
    }
  for (guint i = 0; i < n_dims; i++)
    if (sizes[i] == 0)
      {
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                     "variable '%s': chunk size %u is zero", self->name, i);
        return FALSE;
      }
  g_mutex_lock (&self->lock);
  g_free (self->chunks);
  self->chunks = n_dims ? g_memdup2 (sizes, n_dims * sizeof (guint64)) : NULL;
  self->contiguous = FALSE;
  g_mutex_unlock (&self->lock);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_contiguous:
 * @self: a variable
 *
 * Returns: whether contiguous storage was requested (stored as one chunk)
 * Since: 1.0
 */
gboolean
ncz_variable_get_contiguous (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return self->contiguous;
}

/**
 * ncz_variable_set_contiguous:
 * @self: a variable
 * @contiguous: %TRUE to store the variable as a single chunk
 * @error: return location for a #GError
 *
 * NCZarr has no contiguous storage: a contiguous variable is one chunk
 * covering the whole shape.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_contiguous (NczVariable *self, gboolean contiguous, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_define (self, error))
    return FALSE;
  self->contiguous = contiguous;
  if (contiguous && self->dimensions->len > 0)
    {
      g_mutex_lock (&self->lock);
      g_free (self->chunks);
      self->chunks = g_new (guint64, self->dimensions->len);
      for (guint i = 0; i < self->dimensions->len; i++)
        self->chunks[i] = MAX (1, ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i)));
      g_mutex_unlock (&self->lock);
    }
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_fill_value:
 * @self: a variable
 *
 * The value unwritten elements read as: the user's fill value, or the
 * netCDF default fill of the type. Numeric and char values are in native
 * byte order; for a string variable, the UTF-8 string with its NUL.
 *
 * Returns: (transfer full): the fill value
 * Since: 1.0
 */
GBytes *
ncz_variable_get_fill_value (NczVariable *self)
{
  GBytes *fill;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_mutex_lock (&self->lock);
  fill = self->fill ? g_bytes_ref (self->fill) : ncz_data_type_get_default_fill (self->type);
  g_mutex_unlock (&self->lock);
  return fill;
}

/**
 * ncz_variable_has_user_fill_value:
 * @self: a variable
 *
 * Returns: whether a fill value was set (the `_FillValue` attribute)
 * Since: 1.0
 */
gboolean
ncz_variable_has_user_fill_value (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return self->fill != NULL;
}

static NczAttribute *
fill_attribute (NczVariable *self, GBytes *value)
{
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      gsize n;
      const char *s = g_bytes_get_data (value, &n);
      g_autofree char *str = g_strndup (s ? s : "", n);
      const char *strs[] = { str, NULL };
      return ncz_attribute_new_strings ("_FillValue", strs, 1);
    }
  return ncz_attribute_new ("_FillValue", self->type, value, NULL);
}

/**
 * ncz_variable_set_fill_value:
 * @self: a variable
 * @value: (nullable): one value of the variable's type in native byte
 *   order (for strings: UTF-8 text), or %NULL to return to the default
 * @error: return location for a #GError
 *
 * Sets the fill value; it also appears as the `_FillValue` attribute.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_fill_value (NczVariable *self, GBytes *value, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_define (self, error))
    return FALSE;
  if (value && self->type != NCZ_DATA_TYPE_STRING &&
      g_bytes_get_size (value) != ncz_data_type_get_size (self->type))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': fill value of %" G_GSIZE_FORMAT " bytes for type %s",
                   self->name, g_bytes_get_size (value), ncz_data_type_get_name (self->type));
      return FALSE;
    }
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->fill, g_bytes_unref);
  if (value)
    self->fill = g_bytes_ref (value);
  g_mutex_unlock (&self->lock);
  if (value)
    {
      g_autoptr(NczAttribute) attr = fill_attribute (self, value);
      ncz_attr_list_set (&self->attributes, attr);
    }
  else
    ncz_attr_list_remove (&self->attributes, "_FillValue");
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_no_fill:
 * @self: a variable
 *
 * Returns: whether the variable has no fill value (Zarr `fill_value: null`)
 * Since: 1.0
 */
gboolean
ncz_variable_get_no_fill (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return self->no_fill;
}

/**
 * ncz_variable_set_no_fill:
 * @self: a variable
 * @no_fill: %TRUE for no fill value
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_no_fill (NczVariable *self, gboolean no_fill, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_define (self, error))
    return FALSE;
  self->no_fill = !!no_fill;
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_endianness:
 * @self: a variable
 *
 * Returns: the storage byte order
 * Since: 1.0
 */
NczEndianness
ncz_variable_get_endianness (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NCZ_ENDIANNESS_NATIVE);
  return self->endianness;
}

/**
 * ncz_variable_set_endianness:
 * @self: a variable
 * @endianness: the storage byte order
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_endianness (NczVariable *self, NczEndianness endianness,
                             GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_define (self, error))
    return FALSE;
  self->endianness = endianness;
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

static gint64
int_attribute (NczAttribute *a)
{
  if (a == NULL || ncz_attribute_get_length (a) < 1 ||
      !ncz_data_type_is_integer (ncz_attribute_get_value_type (a)))
    return -1;
  return ncz_attribute_get_int64 (a, 0);
}

/**
 * ncz_variable_get_max_string_length:
 * @self: a variable
 *
 * The width of the fixed-length strings a string variable is stored as:
 * its `_nczarr_maxstrlen` attribute, else the root group's
 * `_nczarr_default_maxstrlen`, else %NCZ_DEFAULT_MAX_STRLEN.
 *
 * Returns: the width in bytes
 * Since: 1.0
 */
guint
ncz_variable_get_max_string_length (NczVariable *self)
{
  gint64 n;
  guint direct;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NCZ_DEFAULT_MAX_STRLEN);
  direct = (guint) g_atomic_int_get ((gint *) &self->string_width);
  if (direct > 0)
    return direct;
  n = int_attribute (ncz_attr_list_find (&self->attributes, "_nczarr_maxstrlen"));
  if (n <= 0 && self->group)
    {
      NczGroup *root = self->group;
      while (ncz_group_get_parent (root))
        root = ncz_group_get_parent (root);
      n = int_attribute (ncz_group_get_attribute (root, "_nczarr_default_maxstrlen"));
    }
  if (n <= 0 || n > G_MAXINT32)
    n = NCZ_DEFAULT_MAX_STRLEN;
  return (guint) n;
}

/**
 * ncz_variable_get_storage_element_size:
 * @self: a variable
 *
 * Returns: bytes per element in a chunk: the type size, or the string
 *   width for a string variable
 * Since: 1.0
 */
gsize
ncz_variable_get_storage_element_size (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), 0);
  if (self->type == NCZ_DATA_TYPE_STRING)
    return ncz_variable_get_max_string_length (self);
  return ncz_data_type_get_size (self->type);
}

guint64
ncz_variable_get_chunk_n_elements (NczVariable *self)
{
  guint n;
  const guint64 *c = ncz_variable_get_chunk_sizes (self, &n);
  guint64 total = 1;
  for (guint i = 0; i < n; i++)
    {
      if (c[i] != 0 && total > G_MAXUINT64 / c[i])
        return G_MAXUINT64;
      total *= c[i];
    }
  return total;
}

gsize
ncz_variable_get_chunk_n_bytes (NczVariable *self)
{
  guint64 n = ncz_variable_get_chunk_n_elements (self);
  gsize es = ncz_variable_get_storage_element_size (self);
  if (n == G_MAXUINT64 || (es != 0 && n > G_MAXSIZE / es))
    return G_MAXSIZE;
  return n * es;
}

void
ncz_variable_set_filters (NczVariable *self, GPtrArray *filters)
{
  GPtrArray *old;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_mutex_lock (&self->lock);
  old = self->filters;
  self->filters = filters;
  self->filters_generation++;
  g_clear_pointer (&self->chain, ncz_codec_chain_unref);
  g_mutex_unlock (&self->lock);
  if (old != NULL)
    g_ptr_array_unref (old);
}

/* The chain is cached under the lock; it is resolved outside it, since
 * resolving reads the variable back (chunk sizes take the lock). Two
 * threads may resolve at once: the first to store its chain wins. */
NczCodecChain *
ncz_variable_get_codec_chain (NczVariable *self, GError **error)
{
  NczCodecChain *chain;
  guint generation;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_mutex_lock (&self->lock);
  chain = self->chain != NULL ? ncz_codec_chain_ref (self->chain) : NULL;
  g_mutex_unlock (&self->lock);
  if (chain != NULL)
    {
      if (ncz_codec_chain_matches (chain, self))
        return chain;
      ncz_codec_chain_unref (chain);
    }

  g_mutex_lock (&self->lock);
  generation = self->filters_generation;
  chain = ncz_codec_chain_new_unresolved (self->filters, generation);
  g_mutex_unlock (&self->lock);
  if (!ncz_codec_chain_resolve (chain, self, error))
    {
      ncz_codec_chain_unref (chain);
      return NULL;
    }
  g_mutex_lock (&self->lock);
  if (self->filters_generation == generation)
    {
      g_clear_pointer (&self->chain, ncz_codec_chain_unref);
      self->chain = ncz_codec_chain_ref (chain);
    }
  g_mutex_unlock (&self->lock);
  return chain;
}

GPtrArray *
ncz_variable_peek_filters (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return self->filters;
}

void
ncz_variable_set_storage_fill_value (NczVariable *self, GBytes *value)
{
  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->fill, g_bytes_unref);
  if (value)
    self->fill = g_bytes_ref (value);
  g_mutex_unlock (&self->lock);
}

gboolean
ncz_variable_move_attribute (NczVariable *self, const char *name, guint position)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return ncz_attr_list_move (&self->attributes, name, position);
}

void
ncz_variable_set_max_string_length (NczVariable *self, guint width)
{
  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_atomic_int_set ((gint *) &self->string_width, (gint) MIN (width, (guint) G_MAXINT32));
}

/* Strings: how they are held in memory.
 *
 * The values of a string variable are held in memory, in the chunk
 * engine and in the codecs, as fixed-width NUL-padded elements of
 * ncz_variable_get_max_string_length() bytes. A variable whose strings
 * are stored with their own lengths (Zarr "|O" with "vlen-utf8") has no
 * stored width: its width in memory is only how much room each element
 * gets, and grows to the longest string met. Reading a chunk that holds a
 * longer string widens the variable (ncz_variable_grow_string_width())
 * and fails; the read or write is then done again with the new width.
 * Writing strings longer than the width widens the variable first. A
 * variable stored at a fixed width (NCZarr "|S<n>") never grows: a longer
 * string is an error, never cut. */

#define VLEN_DATASET_KEY "ncz-variable-length-strings"

void
ncz_dataset_set_variable_length_strings (NczDataset *dataset, gboolean variable_length)
{
  g_return_if_fail (NCZ_IS_DATASET (dataset));
  g_object_set_data (G_OBJECT (dataset), VLEN_DATASET_KEY,
                     GINT_TO_POINTER (variable_length ? 1 : 0));
}

void
ncz_variable_set_variable_length_strings (NczVariable *self, gboolean variable_length)
{
  g_return_if_fail (NCZ_IS_VARIABLE (self));
  self->vlen_strings = variable_length ? 1 : 0;
}

gboolean
ncz_variable_has_variable_length_strings (NczVariable *self)
{
  NczDataset *ds;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (self->type != NCZ_DATA_TYPE_STRING)
    return FALSE;
  if (self->vlen_strings >= 0)
    return self->vlen_strings == 1;
  ds = ncz_variable_get_dataset (self);
  return ds != NULL &&
         GPOINTER_TO_INT (g_object_get_data (G_OBJECT (ds), VLEN_DATASET_KEY)) == 1;
}

gboolean
ncz_variable_grow_string_width (NczVariable *self, gsize width)
{
  guint cur;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (width > G_MAXINT32)
    return FALSE;
  for (;;)
    {
      cur = ncz_variable_get_max_string_length (self);
      if (cur >= width)
        return TRUE;
      if (g_atomic_int_compare_and_exchange ((gint *) &self->string_width,
                                             g_atomic_int_get ((gint *) &self->string_width),
                                             (gint) width))
        return TRUE;
    }
}

/**
 * ncz_variable_get_storage_dtype:
 * @self: a variable
 *
 * The stored data type a format keeps for values it widens in memory:
 * for Zarr, "|b1" for booleans read as ubyte 0 and 1, "<f2" or ">f2" for
 * half floats read as float. Copying a variable keeps it with
 * ncz_variable_set_storage_dtype(), so that a copy to Zarr stores the
 * same data type.
 *
 * Returns: (nullable): the stored data type, or %NULL when the values are
 *   stored as their type says
 * Since: 1.0
 */
const char *
ncz_variable_get_storage_dtype (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return self->storage_dtype;
}

/**
 * ncz_variable_set_storage_dtype:
 * @self: a variable
 * @dtype: (nullable): a stored data type, as ncz_variable_get_storage_dtype()
 *   returns it, or %NULL
 *
 * Asks the format to store the values as @dtype where it can (pure Zarr:
 * "|b1" for a ubyte variable, "f2" for a float variable); a format or a
 * type that has no such storage ignores it.
 *
 * Since: 1.0
 */
void
ncz_variable_set_storage_dtype (NczVariable *self, const char *dtype)
{
  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_free (self->storage_dtype);
  self->storage_dtype = g_strdup (dtype);
}

void
ncz_variable_set_zero_dim (NczVariable *self, gboolean zero_dim)
{
  self->zero_dim = zero_dim;
}

gboolean
ncz_variable_is_zero_dim (NczVariable *self)
{
  return self->zero_dim;
}

/**
 * ncz_variable_get_n_codecs:
 * @self: a variable
 *
 * Returns: the number of codecs in the filter chain
 * Since: 1.0
 */
guint
ncz_variable_get_n_codecs (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), 0);
  return self->filters ? self->filters->len : 0;
}

/**
 * ncz_variable_get_codecs_json:
 * @self: a variable
 *
 * The filter chain as a JSON array of codec dicts in chain order, as
 * the `_Codecs` virtual attribute shows it (`[]` when there are none).
 *
 * Returns: (transfer full): JSON text
 * Since: 1.0
 */
char *
ncz_variable_get_codecs_json (NczVariable *self)
{
  GString *s;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  s = g_string_new ("[");
  for (guint i = 0; self->filters && i < self->filters->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (self->filters, i);
      if (i > 0)
        g_string_append_c (s, ',');
      g_string_append (s, f->json ? f->json : "null");
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* ---- filters (filters.md "Using The API") ---- */

/* Filters and quantize may be defined on a variable defined in this
 * session of a writable dataset, before any value is written to it:
 * chunks already stored were encoded with the chain they have. */
static gboolean
check_chain_definable (NczVariable *self, const char *what, GError **error)
{
  if (!check_define (self, error))
    return FALSE;
  if (self->loaded)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' was read from the dataset: its %s cannot change",
                   self->name, what);
      return FALSE;
    }
  if (self->data_written)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %s must be defined before data is written",
                   self->name, what);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_filterable (NczVariable *self, GError **error)
{
  if (!check_chain_definable (self, "filters", error))
    return FALSE;
  /* strings stored with their lengths (plain Zarr "|O") take a
   * compressor after their object codec; netCDF-4 strings do not */
  if (self->type == NCZ_DATA_TYPE_STRING && !ncz_variable_has_variable_length_strings (self))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' holds strings: filters cannot be applied to "
                   "variable-length types", self->name);
      return FALSE;
    }
  if (self->dimensions->len == 0)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' is a scalar: filters need a chunked variable",
                   self->name);
      return FALSE;
    }
  return TRUE;
}

/* A spec for HDF5 filter @filter_id with visible @params, its codec
 * found in the registry. */
static NczFilterSpec *
filter_spec_for_id (NczVariable *self, guint filter_id, const guint *params,
                    gsize n_params, GError **error)
{
  g_autoptr(NczCodec) codec = NULL;
  g_autoptr(GError) local = NULL;
  NczFilterSpec *spec;

  if (filter_id == 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "variable '%s': 0 is not a filter id", self->name);
      return NULL;
    }
  codec = ncz_registry_lookup_codec_by_filter_id (ncz_registry_get_default (), filter_id,
                                                  &local);
  if (codec == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
                   "filter %u is not available: %s", filter_id,
                   local ? local->message : "no codec provides it");
      return NULL;
    }
  spec = ncz_filter_spec_new_for_codec (codec, params, n_params, &local);
  if (spec == NULL)
    {
      g_set_error (error, local->domain, local->code, "variable '%s': filter %u: %s",
                   self->name, filter_id, local->message);
      return NULL;
    }
  /* the HDF5 id asked for, even if the codec registered under another */
  spec->filter_id = filter_id;
  return spec;
}

/* Adds @spec (owned) to the chain. A contiguous variable becomes chunked
 * (one chunk for the whole shape, as before). */
static void
insert_filter_spec (NczVariable *self, NczFilterSpec *spec)
{
  g_mutex_lock (&self->lock);
  if (self->filters == NULL)
    self->filters = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  ncz_filter_chain_insert (self->filters, spec);
  self->filters_generation++;
  g_clear_pointer (&self->chain, ncz_codec_chain_unref);
  self->contiguous = FALSE;
  g_mutex_unlock (&self->lock);
}

static gboolean
add_filter_checked (NczVariable *self, guint filter_id, const guint *params,
                    gsize n_params, GError **error)
{
  NczFilterSpec *spec = filter_spec_for_id (self, filter_id, params, n_params, error);
  if (spec == NULL)
    return FALSE;
  insert_filter_spec (self, spec);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_add_filter:
 * @self: a numeric or char variable with dimensions
 * @filter_id: the HDF5 filter id, e.g. 307 for bzip2
 * @params: (array length=n_params) (nullable): the filter's visible parameters
 * @n_params: number of parameters
 * @error: return location for a #GError
 *
 * Adds a filter to the chain applied when chunks are written, as netCDF's
 * nc_def_var_filter() does. The codec implementing @filter_id is looked
 * up now: if none is available the error is %NCZ_CODEC_ERROR_NOT_AVAILABLE
 * and names the id. The parameters are checked by the codec (converting
 * them to its codec JSON).
 *
 * Filters apply in the order they are defined, except that fletcher32 is
 * always first and shuffle comes before every other filter (after
 * fletcher32). Adding a filter already in the chain keeps its place and
 * replaces its parameters; filters cannot be removed.
 *
 * Filters can be defined on a variable of a writable dataset defined
 * since the dataset was opened, before any data is written to it; not on
 * string or scalar variables (%NCZ_DATASET_ERROR_INVALID).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_add_filter (NczVariable *self, guint filter_id, const guint *params,
                         gsize n_params, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (params != NULL || n_params == 0, FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  return add_filter_checked (self, filter_id, params, n_params, error);
}

/**
 * ncz_variable_add_filter_json:
 * @self: a numeric or char variable with dimensions
 * @codec_json: a codec dict as JSON text, e.g.
 *   `{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2}`
 * @error: return location for a #GError
 *
 * Adds a filter given as Zarr codec JSON (the form stored in `.zarray`).
 * The codec is looked up by its `id` (%NCZ_CODEC_ERROR_NOT_AVAILABLE,
 * "codec not available: ID", if there is none) and turns the JSON into
 * its visible parameters; the filter is then added as with
 * ncz_variable_add_filter().
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_add_filter_json (NczVariable *self, const char *codec_json, GError **error)
{
  g_autoptr(NczJson) root = NULL;
  g_autoptr(NczCodec) codec = NULL;
  g_autoptr(GArray) visible = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonObject) object = NULL;
  const NczJson *id;
  const char *codec_id;
  NczFilterSpec *spec;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (codec_json != NULL, FALSE);
  if (!check_filterable (self, error))
    return FALSE;

  root = ncz_json_parse (codec_json, -1, &local);
  if (root == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "variable '%s': codec JSON: %s", self->name, local->message);
      return FALSE;
    }
  if (ncz_json_get_kind (root) != NCZ_JSON_OBJECT)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "variable '%s': codec JSON is a %s, not an object", self->name,
                   ncz_json_kind_name (ncz_json_get_kind (root)));
      return FALSE;
    }
  id = ncz_json_object_get (root, "id");
  if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING ||
      *(codec_id = ncz_json_get_string (id, NULL)) == '\0')
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "variable '%s': codec JSON has no string \"id\"", self->name);
      return FALSE;
    }
  codec = ncz_registry_lookup_codec (ncz_registry_get_default (), codec_id, &local);
  if (codec == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE, "%s",
                   local ? local->message : "codec not available");
      return FALSE;
    }
  object = ncz_json_to_json_object (root);
  if (!ncz_codec_params_from_json (codec, object, &visible, &local))
    {
      if (local == NULL)
        g_set_error (&local, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                     "invalid parameters");
      g_set_error (error, local->domain, local->code, "variable '%s': codec '%s': %s",
                   self->name, codec_id, local->message);
      return FALSE;
    }
  if (visible == NULL)
    visible = g_array_new (FALSE, FALSE, sizeof (guint));
  spec = ncz_filter_spec_new_for_codec (codec, (const guint *) visible->data, visible->len,
                                        &local);
  if (spec == NULL)
    {
      g_set_error (error, local->domain, local->code, "variable '%s': codec '%s': %s",
                   self->name, codec_id, local->message);
      return FALSE;
    }
  insert_filter_spec (self, spec);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_filter_ids:
 * @self: a variable
 *
 * The HDF5 ids of the filters of the chain, in the order they apply on
 * write. Codecs without an HDF5 id (Zarr-only codecs, or codecs whose
 * implementation is not available) are not listed; see
 * ncz_variable_get_codecs_json() for the whole chain.
 *
 * Returns: (transfer full) (element-type guint): the filter ids
 * Since: 1.0
 */
GArray *
ncz_variable_get_filter_ids (NczVariable *self)
{
  GArray *ids;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  ids = g_array_new (FALSE, FALSE, sizeof (guint));
  g_mutex_lock (&self->lock);
  for (guint i = 0; self->filters && i < self->filters->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (self->filters, i);
      if (f->filter_id != 0)
        g_array_append_val (ids, f->filter_id);
    }
  g_mutex_unlock (&self->lock);
  return ids;
}

/**
 * ncz_variable_get_filter_params:
 * @self: a variable
 * @filter_id: an HDF5 filter id
 * @error: return location for a #GError
 *
 * The visible parameters of one filter: those it was defined with, or
 * those its codec derives from the codec JSON of a stored variable.
 *
 * Returns: (transfer full) (element-type guint) (nullable): the
 *   parameters, or %NULL with %NCZ_CODEC_ERROR_NOT_FOUND if the variable
 *   has no such filter
 * Since: 1.0
 */
GArray *
ncz_variable_get_filter_params (NczVariable *self, guint filter_id, GError **error)
{
  NczFilterSpec *f;
  GArray *out = NULL;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_mutex_lock (&self->lock);
  f = ncz_filter_chain_find (self->filters, filter_id);
  if (f != NULL)
    {
      out = g_array_new (FALSE, FALSE, sizeof (guint));
      if (f->visible && f->visible->len > 0)
        g_array_append_vals (out, f->visible->data, f->visible->len);
    }
  g_mutex_unlock (&self->lock);
  if (out == NULL)
    g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_FOUND,
                 "variable '%s' has no filter %u", self->name, filter_id);
  return out;
}

/**
 * ncz_variable_set_deflate:
 * @self: a numeric or char variable with dimensions
 * @shuffle: whether to add the shuffle filter (HDF5 id 2)
 * @deflate: whether to add the deflate filter (HDF5 id 1, Zarr `zlib`)
 * @level: the deflate level, 0 to 9
 * @error: return location for a #GError
 *
 * As netCDF's nc_def_var_deflate(): adds shuffle and/or deflate. Nothing
 * is added unless both are available and the deflate codec accepts
 * @level (%NCZ_CODEC_ERROR_BAD_PARAMETERS otherwise).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_deflate (NczVariable *self, gboolean shuffle, gboolean deflate,
                          guint level, GError **error)
{
  g_autoptr(NczFilterSpec) shuffle_spec = NULL;
  g_autoptr(NczFilterSpec) deflate_spec = NULL;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  /* the codec checks the level */
  if (deflate &&
      (deflate_spec = filter_spec_for_id (self, NCZ_FILTER_DEFLATE, &level, 1, error)) == NULL)
    return FALSE;
  if (shuffle &&
      (shuffle_spec = filter_spec_for_id (self, NCZ_FILTER_SHUFFLE, NULL, 0, error)) == NULL)
    return FALSE;
  if (shuffle_spec)
    insert_filter_spec (self, g_steal_pointer (&shuffle_spec));
  if (deflate_spec)
    insert_filter_spec (self, g_steal_pointer (&deflate_spec));
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_set_shuffle:
 * @self: a numeric or char variable with dimensions
 * @error: return location for a #GError
 *
 * Adds the shuffle filter (HDF5 id 2), which always applies before the
 * other filters except fletcher32.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_shuffle (NczVariable *self, GError **error)
{
  return ncz_variable_add_filter (self, NCZ_FILTER_SHUFFLE, NULL, 0, error);
}

/**
 * ncz_variable_set_fletcher32:
 * @self: a numeric or char variable with dimensions
 * @error: return location for a #GError
 *
 * Adds the fletcher32 checksum (HDF5 id 3), which always applies first.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_fletcher32 (NczVariable *self, GError **error)
{
  return ncz_variable_add_filter (self, NCZ_FILTER_FLETCHER32, NULL, 0, error);
}

/**
 * ncz_variable_set_szip:
 * @self: a numeric or char variable with dimensions
 * @options_mask: 32 (nearest neighbour, NC_SZIP_NN) or 4 (entropy coding, NC_SZIP_EC)
 * @pixels_per_block: an even number from 2 to 32
 * @error: return location for a #GError
 *
 * Adds the szip filter (HDF5 id 4) with visible parameters
 * `[options_mask, pixels_per_block]`, which the szip codec checks
 * (%NCZ_CODEC_ERROR_BAD_PARAMETERS).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_szip (NczVariable *self, guint options_mask, guint pixels_per_block,
                       GError **error)
{
  guint params[2] = { options_mask, pixels_per_block };

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  /* the codec checks the parameters */
  return add_filter_checked (self, NCZ_FILTER_SZIP, params, 2, error);
}

/**
 * ncz_variable_set_zstandard:
 * @self: a numeric or char variable with dimensions
 * @level: the zstd level, -131072 to 22 (negative levels are faster)
 * @error: return location for a #GError
 *
 * Adds the zstd filter (HDF5 id 32015); its visible parameter is the
 * level as an unsigned number (negative levels keep their bit pattern).
 * The zstd codec checks the level against its library's range
 * (%NCZ_CODEC_ERROR_BAD_PARAMETERS).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_zstandard (NczVariable *self, int level, GError **error)
{
  guint param = (guint) level;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  /* the codec checks the level */
  return add_filter_checked (self, NCZ_FILTER_ZSTD, &param, 1, error);
}

/**
 * ncz_variable_set_bzip2:
 * @self: a numeric or char variable with dimensions
 * @level: the block size level, 1 to 9
 * @error: return location for a #GError
 *
 * Adds the bzip2 filter (HDF5 id 307, Zarr `bz2`); the codec checks the
 * level (%NCZ_CODEC_ERROR_BAD_PARAMETERS).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_bzip2 (NczVariable *self, guint level, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  /* the codec checks the level */
  return add_filter_checked (self, NCZ_FILTER_BZIP2, &level, 1, error);
}

/**
 * ncz_variable_set_blosc:
 * @self: a numeric or char variable with dimensions
 * @compressor: the blosc compressor: `blosclz`, `lz4`, `lz4hc`, `snappy`,
 *   `zlib` or `zstd`
 * @level: the compression level, 0 to 9
 * @blocksize: the blosc block size in bytes, 0 for automatic
 * @shuffle: 0 for none, 1 for byte shuffle, 2 for bit shuffle
 * @error: return location for a #GError
 *
 * Adds the blosc filter (HDF5 id 32001) with visible parameters
 * `[0, 0, 0, blocksize, level, shuffle, compressor code]` (the codes of
 * c-blosc: blosclz 0, lz4 1, lz4hc 2, snappy 3, zlib 4, zstd 5). An
 * unknown compressor name is %NCZ_CODEC_ERROR_BAD_PARAMETERS; the blosc
 * codec checks the other values.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_blosc (NczVariable *self, const char *compressor, guint level,
                        guint blocksize, guint shuffle, GError **error)
{
  guint params[7] = { 0, 0, 0, blocksize, level, shuffle, 0 };
  int code;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (compressor != NULL, FALSE);
  if (!check_filterable (self, error))
    return FALSE;
  code = ncz_blosc_compcode_from_name (compressor);
  if (code < 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "variable '%s': unknown blosc compressor '%s' (blosclz, lz4, lz4hc, "
                   "snappy, zlib or zstd)", self->name, compressor);
      return FALSE;
    }
  /* the codec checks level, shuffle and block size */
  params[6] = (guint) code;
  return add_filter_checked (self, NCZ_FILTER_BLOSC, params, 7, error);
}

/* ---- quantize (filters.md "Lossy One-Way Filters") ---- */

/* Records @mode on the variable and in its attributes. */
static void
apply_quantize (NczVariable *self, NczQuantizeMode mode, guint nsd)
{
  for (int m = NCZ_QUANTIZE_BITGROOM; m <= NCZ_QUANTIZE_BITROUND; m++)
    if (m != (int) mode)
      ncz_attr_list_remove (&self->attributes,
                            ncz_quantize_attribute_name ((NczQuantizeMode) m));
  if (mode != NCZ_QUANTIZE_NONE)
    {
      gint32 v = (gint32) nsd;
      g_autoptr(NczAttribute) attr = ncz_attribute_new_values (ncz_quantize_attribute_name (mode),
                                                               NCZ_DATA_TYPE_INT, &v, 1, NULL);
      ncz_attr_list_set (&self->attributes, attr);
    }
  self->quantize_mode = mode;
  self->quantize_nsd = mode == NCZ_QUANTIZE_NONE ? 0 : nsd;
}

/**
 * ncz_variable_set_quantize:
 * @self: a float or double variable
 * @mode: the algorithm, or %NCZ_QUANTIZE_NONE to turn quantization off
 * @n_digits: significant decimal digits for BitGroom and Granular
 *   BitRound (1 to 7 for float, 1 to 15 for double), significant bits for
 *   BitRound (1 to 23 for float, 1 to 52 for double)
 * @error: return location for a #GError
 *
 * Quantizes the values written from now on, as netCDF's
 * nc_def_var_quantize(): the caller's values are rounded (a copy; the
 * caller's buffer is never changed) before they are written, fill values,
 * NaNs and infinities excepted. The data stay ordinary floats: nothing is
 * needed to read them. The variable gets the attribute
 * `_QuantizeBitGroomNumberOfSignificantDigits`,
 * `_QuantizeGranularBitRoundNumberOfSignificantDigits` or
 * `_QuantizeBitRoundNumberOfSignificantBits` holding @n_digits.
 *
 * As with filters, quantization is defined before data is written to a
 * variable defined since the dataset was opened.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_quantize (NczVariable *self, NczQuantizeMode mode, guint n_digits,
                           GError **error)
{
  g_autofree char *what = NULL;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!check_chain_definable (self, "quantization", error))
    return FALSE;
  what = g_strdup_printf ("variable '%s'", self->name);
  if (!ncz_quantize_check (self->type, mode, n_digits, what, error))
    return FALSE;
  apply_quantize (self, mode, n_digits);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_quantize:
 * @self: a variable
 * @n_digits: (out) (optional): the significant digits (bits for BitRound), 0 if none
 *
 * Returns: the quantization of the values written to the variable; for a
 *   stored variable, the one its `_Quantize...` attribute records
 * Since: 1.0
 */
NczQuantizeMode
ncz_variable_get_quantize (NczVariable *self, guint *n_digits)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NCZ_QUANTIZE_NONE);
  if (n_digits)
    *n_digits = self->quantize_nsd;
  return self->quantize_mode;
}

/* A _Quantize... attribute being set: while loading, it records the mode
 * when valid (the attribute is kept either way); otherwise it defines
 * quantization as ncz_variable_set_quantize() does. Returns FALSE with
 * @error set, or TRUE with *@handled telling whether nothing is left to do. */
static gboolean
quantize_attribute_set (NczVariable *self, NczAttribute *attribute, gboolean *handled,
                        GError **error)
{
  NczQuantizeMode mode = ncz_quantize_mode_from_attribute (ncz_attribute_get_name (attribute));
  NczDataset *ds = ncz_variable_get_dataset (self);
  gint64 v = int_attribute (attribute);

  *handled = FALSE;
  if (mode == NCZ_QUANTIZE_NONE)
    return TRUE;
  if (ds != NULL && ncz_dataset_is_loading (ds))
    {
      if (ncz_attribute_get_length (attribute) == 1 && v > 0 && v <= G_MAXUINT &&
          ncz_quantize_check (self->type, mode, (guint) v, "", NULL))
        {
          self->quantize_mode = mode;
          self->quantize_nsd = (guint) v;
        }
      return TRUE;
    }
  if (ncz_attribute_get_length (attribute) != 1 || v <= 0 || v > G_MAXUINT)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %s must be one positive integer", self->name,
                   ncz_attribute_get_name (attribute));
      return FALSE;
    }
  *handled = TRUE;
  return ncz_variable_set_quantize (self, mode, (guint) v, error);
}

/**
 * ncz_variable_get_attributes:
 * @self: a variable
 *
 * Returns: (transfer container) (element-type NczAttribute): the
 *   attributes in definition order
 * Since: 1.0
 */
GPtrArray *
ncz_variable_get_attributes (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return ncz_attr_list_copy (&self->attributes);
}

/**
 * ncz_variable_get_attribute:
 * @self: a variable
 * @name: an attribute name
 *
 * Returns: (transfer none) (nullable): the attribute
 * Since: 1.0
 */
NczAttribute *
ncz_variable_get_attribute (NczVariable *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return ncz_attr_list_find (&self->attributes, name);
}

/**
 * ncz_variable_set_attribute:
 * @self: a variable
 * @attribute: the attribute; replaces one of the same name in its place
 * @error: return location for a #GError
 *
 * Setting `_FillValue` (one value of the variable's type) also sets the
 * fill value. Setting one of the `_Quantize...` attributes (one positive
 * integer) defines quantization as ncz_variable_set_quantize() does.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_attribute (NczVariable *self, NczAttribute *attribute,
                            GError **error)
{
  gboolean handled = FALSE;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (attribute), FALSE);
  if (!check_define (self, error))
    return FALSE;
  if (!quantize_attribute_set (self, attribute, &handled, error))
    return FALSE;
  if (handled)
    return TRUE;
  if (g_str_equal (ncz_attribute_get_name (attribute), "_FillValue"))
    {
      g_autoptr(GBytes) value = NULL;
      if (ncz_attribute_get_value_type (attribute) != self->type ||
          ncz_attribute_get_length (attribute) != 1)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': _FillValue must be one %s value",
                       self->name, ncz_data_type_get_name (self->type));
          return FALSE;
        }
      if (self->type == NCZ_DATA_TYPE_STRING)
        {
          const char *s = ncz_attribute_get_strings (attribute)[0];
          value = g_bytes_new (s, strlen (s) + 1);
        }
      else
        value = ncz_attribute_get_data (attribute);
      return ncz_variable_set_fill_value (self, value, error);
    }
  ncz_attr_list_set (&self->attributes, attribute);
  return ncz_format_notify_attribute (self, ncz_attribute_get_name (attribute), attribute, NCZ_DEFINITION_ADDED, error);
}

/**
 * ncz_variable_remove_attribute:
 * @self: a variable
 * @name: an attribute name
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; %NCZ_DATASET_ERROR_NOT_FOUND if absent
 * Since: 1.0
 */
gboolean
ncz_variable_remove_attribute (NczVariable *self, const char *name, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  if (!check_define (self, error))
    return FALSE;
  if (g_str_equal (name, "_FillValue") && self->fill)
    return ncz_variable_set_fill_value (self, NULL, error);
  if (ncz_quantize_mode_from_attribute (name) != NCZ_QUANTIZE_NONE &&
      ncz_quantize_mode_from_attribute (name) == self->quantize_mode)
    {
      self->quantize_mode = NCZ_QUANTIZE_NONE;
      self->quantize_nsd = 0;
    }
  if (!ncz_attr_list_remove (&self->attributes, name))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND,
                   "variable '%s' has no attribute '%s'", self->name, name);
      return FALSE;
    }
  return ncz_format_notify_attribute (self, name, NULL, NCZ_DEFINITION_REMOVED, error);
}

/* ---- hyperslab I/O ---- */

/* Checks that each array of a hyperslab has one value per dimension of
 * the variable (bindings pass every array with its own length); sets
 * *@n_dims to the rank. @n_stride does not count when @stride is NULL. */
static gboolean
check_rank (NczVariable *self, guint n_start, guint n_count,
            const gint64 *stride, guint n_stride, guint *n_dims, GError **error)
{
  guint rank = self->dimensions->len;

  if (n_start != rank || n_count != rank || (stride != NULL && n_stride != rank))
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_autofree char *strides = stride ? g_strdup_printf ("%u", n_stride) : g_strdup ("no");
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has %u dimension%s: the hyperslab has %u start, %u count "
                   "and %s stride values; nothing was read or written",
                   fqn, rank, rank == 1 ? "" : "s", n_start, n_count, strides);
      return FALSE;
    }
  *n_dims = rank;
  return TRUE;
}

/* Validates a hyperslab; fills the effective stride and the number of
 * selected elements. For writes, unlimited dimensions may grow. */
static gboolean
check_slab (NczVariable *self, guint n_dims, const guint64 *start,
            const guint64 *count, const gint64 *stride, gboolean for_write,
            gint64 *stride_out, guint64 *n_out, GError **error)
{
  guint64 n = 1;

  if (n_dims != self->dimensions->len)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has rank %u, hyperslab has %u dimensions",
                   self->name, self->dimensions->len, n_dims);
      return FALSE;
    }
  for (guint i = 0; i < n_dims; i++)
    {
      NczDimension *d = g_ptr_array_index (self->dimensions, i);
      guint64 len = ncz_dimension_get_length (d);
      gint64 st = stride ? stride[i] : 1;
      if (st < 1)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': stride %" G_GINT64_FORMAT " along dimension %u must be positive",
                       self->name, st, i);
          return FALSE;
        }
      stride_out[i] = st;
      if (count[i] == 0)
        {
          n = 0;
          continue;
        }
      guint64 last;
      if ((count[i] - 1) > G_MAXUINT64 / (guint64) st ||
          start[i] > G_MAXUINT64 - (count[i] - 1) * (guint64) st)
        last = G_MAXUINT64;
      else
        last = start[i] + (count[i] - 1) * (guint64) st;
      if (last >= len && !(for_write && ncz_dimension_is_unlimited (d) && last < G_MAXUINT64 / 2))
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': hyperslab [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       "] is outside dimension '%s' of length %" G_GUINT64_FORMAT,
                       self->name, start[i], last, ncz_dimension_get_name (d), len);
          return FALSE;
        }
      if (n != 0 && count[i] > G_MAXUINT64 / n)
        n = G_MAXUINT64;
      else
        n *= count[i];
    }
  *n_out = n;
  return TRUE;
}

static NczFormat *
get_format (NczVariable *self, GError **error)
{
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of variable '%s' is gone", self->name);
      return NULL;
    }
  return ncz_dataset_get_format (ds);
}

static gboolean
slab_read_storage (NczVariable *self, guint n_dims, const guint64 *start,
                   const guint64 *count, const gint64 *stride, guint8 *storage,
                   GCancellable *cancellable, GError **error)
{
  NczFormat *format = get_format (self, error);
  if (format == NULL)
    return FALSE;
  return ncz_format_read_slab (format, self, start, count, stride, storage, cancellable, error);
}

static gboolean
grow_unlimited (NczVariable *self, const guint64 *start, const guint64 *count,
                const gint64 *stride)
{
  for (guint i = 0; i < self->dimensions->len; i++)
    {
      NczDimension *d = g_ptr_array_index (self->dimensions, i);
      if (count[i] == 0 || !ncz_dimension_is_unlimited (d))
        continue;
      guint64 last = start[i] + (count[i] - 1) * (guint64) stride[i];
      if (last >= ncz_dimension_get_length (d))
        ncz_dimension_set_length_internal (d, last + 1);
    }
  return TRUE;
}

static gboolean
slab_write_storage (NczVariable *self, guint n_dims, const guint64 *start,
                    const guint64 *count, const gint64 *stride,
                    const guint8 *storage, GCancellable *cancellable,
                    GError **error)
{
  NczFormat *format = get_format (self, error);
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (format == NULL || !ncz_dataset_check_writable (ds, error))
    return FALSE;
  grow_unlimited (self, start, count, stride);
  return ncz_format_write_slab (format, self, start, count, stride, storage, cancellable, error);
}

/* Checks a hyperslab and the caller's buffer; returns the effective
 * stride in @st and the number of selected elements in @n. */
static gboolean
prepare_slab (NczVariable *self, guint n_dims, const guint64 *start,
              const guint64 *count, const gint64 *stride, gboolean for_write,
              gsize buffer_size, gint64 *st, guint64 *n, GError **error)
{
  gsize tsize = ncz_data_type_get_size (self->type);

  if (!check_slab (self, n_dims, start, count, stride, for_write, st, n, error))
    return FALSE;
  if (*n > G_MAXSIZE / tsize || buffer_size < *n * tsize)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': buffer of %" G_GSIZE_FORMAT " bytes is too small for %"
                   G_GUINT64_FORMAT " values", self->name, buffer_size, *n);
      return FALSE;
    }
  return TRUE;
}

/* Fixed-width storage for @n strings of a string variable */
static guint8 *
alloc_string_storage (NczVariable *self, guint64 n, gsize *width, GError **error)
{
  guint8 *storage = NULL;

  *width = ncz_variable_get_storage_element_size (self);
  if (n <= G_MAXSIZE / *width)
    storage = g_try_malloc0 (n * *width);
  if (storage == NULL)
    g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                 "variable '%s': cannot hold %" G_GUINT64_FORMAT " strings of %"
                 G_GSIZE_FORMAT " bytes in memory", self->name, n, *width);
  return storage;
}

/**
 * ncz_variable_read: (skip)
 * @self: a variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @buffer: where the values go, C order, native byte order; for a string
 *   variable an array of `char *` the caller frees with g_free()
 * @buffer_size: size of @buffer in bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a hyperslab. Elements never written read as the fill value.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_read (NczVariable *self,
                   const guint64 *start, guint n_start,
                   const guint64 *count, guint n_count,
                   const gint64 *stride, guint n_stride,
                   gpointer buffer, gsize buffer_size,
                   GCancellable *cancellable, GError **error)
{
  guint n_dims;
  g_autofree gint64 *st = NULL;
  g_autofree guint8 *storage = NULL;
  guint64 n;
  gsize width;
  char **out = buffer;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (n_start == 0 || start != NULL, FALSE);
  g_return_val_if_fail (n_count == 0 || count != NULL, FALSE);
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  st = g_new0 (gint64, MAX (n_dims, 1));
  if (!prepare_slab (self, n_dims, start, count, stride, FALSE, buffer_size, st, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  if (self->type != NCZ_DATA_TYPE_STRING)
    return slab_read_storage (self, n_dims, start, count, st, buffer, cancellable, error);

  /* Strings: read fixed-width storage, then make C strings; again with
   * the new width when a chunk held longer strings */
  for (;;)
    {
      g_autoptr(GError) local = NULL;
      storage = alloc_string_storage (self, n, &width, error);
      if (storage == NULL)
        return FALSE;
      if (slab_read_storage (self, n_dims, start, count, st, storage, cancellable, &local))
        break;
      if (ncz_variable_get_storage_element_size (self) <= width)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_pointer (&storage, g_free);
    }
  for (guint64 i = 0; i < n; i++)
    {
      const char *s = (const char *) storage + i * width;
      out[i] = g_strndup (s, strnlen (s, width));
    }
  return TRUE;
}

/* The caller's @n values, quantized, in a new buffer. */
static guint8 *
quantized_copy (NczVariable *self, gconstpointer buffer, guint64 n, GError **error)
{
  gsize tsize = ncz_data_type_get_size (self->type);
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (self);
  gsize fill_size = 0;
  gconstpointer fill_data = g_bytes_get_data (fill, &fill_size);
  guint8 *copy = g_try_malloc (MAX (n * tsize, 1));

  if (copy == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory quantizing %" G_GUINT64_FORMAT " values",
                   self->name, n);
      return NULL;
    }
  memcpy (copy, buffer, n * tsize);
  if (self->type == NCZ_DATA_TYPE_FLOAT)
    {
      float f;
      gboolean has_fill = fill_size == sizeof f;
      if (has_fill)
        memcpy (&f, fill_data, sizeof f);
      ncz_quantize_float ((float *) copy, n, self->quantize_mode, self->quantize_nsd,
                          has_fill ? &f : NULL);
    }
  else
    {
      double d;
      gboolean has_fill = fill_size == sizeof d;
      if (has_fill)
        memcpy (&d, fill_data, sizeof d);
      ncz_quantize_double ((double *) copy, n, self->quantize_mode, self->quantize_nsd,
                           has_fill ? &d : NULL);
    }
  return copy;
}

/**
 * ncz_variable_write: (skip)
 * @self: a variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @buffer: the values, C order, native byte order; for a string variable
 *   an array of `const char *` (a string longer than the variable's
 *   maximum string length is an error, unless the variable is stored with
 *   variable-length strings)
 * @buffer_size: size of @buffer in bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes a hyperslab; chunks partly covered are read, modified and written.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write (NczVariable *self,
                    const guint64 *start, guint n_start,
                    const guint64 *count, guint n_count,
                    const gint64 *stride, guint n_stride,
                    gconstpointer buffer, gsize buffer_size,
                    GCancellable *cancellable, GError **error)
{
  guint n_dims;
  g_autofree gint64 *st = NULL;
  g_autofree guint8 *storage = NULL;
  guint64 n;
  gsize width;
  const char * const *in = buffer;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (n_start == 0 || start != NULL, FALSE);
  g_return_val_if_fail (n_count == 0 || count != NULL, FALSE);
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  st = g_new0 (gint64, MAX (n_dims, 1));
  if (!prepare_slab (self, n_dims, start, count, stride, TRUE, buffer_size, st, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  self->data_written = TRUE;
  if (self->quantize_mode != NCZ_QUANTIZE_NONE &&
      (self->type == NCZ_DATA_TYPE_FLOAT || self->type == NCZ_DATA_TYPE_DOUBLE))
    {
      g_autofree guint8 *copy = quantized_copy (self, buffer, n, error);
      if (copy == NULL)
        return FALSE;
      return slab_write_storage (self, n_dims, start, count, st, copy, cancellable, error);
    }
  if (self->type != NCZ_DATA_TYPE_STRING)
    return slab_write_storage (self, n_dims, start, count, st, buffer, cancellable, error);

  /* Strings: NUL-padded to the width. A longer string widens a variable
   * stored with variable-length strings and is an error for one stored at
   * a fixed width: never cut. */
  {
    gsize longest = 0;
    guint64 where = 0;
    for (guint64 i = 0; i < n; i++)
      if (in[i])
        {
          gsize len = strlen (in[i]);
          if (len > longest)
            {
              longest = len;
              where = i;
            }
        }
    if (longest > ncz_variable_get_max_string_length (self) &&
        !(ncz_variable_has_variable_length_strings (self) &&
          ncz_variable_grow_string_width (self, longest)))
      {
        g_autofree char *fqn = ncz_variable_get_full_name (self);
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                     "variable '%s': string %" G_GUINT64_FORMAT " of the selection is %"
                     G_GSIZE_FORMAT " bytes long, longer than the variable's maximum string "
                     "length of %u bytes (_nczarr_maxstrlen); it is not truncated",
                     fqn, where, longest, ncz_variable_get_max_string_length (self));
        return FALSE;
      }
  }
  for (;;)
    {
      g_autoptr(GError) local = NULL;
      storage = alloc_string_storage (self, n, &width, error);
      if (storage == NULL)
        return FALSE;
      for (guint64 i = 0; i < n; i++)
        if (in[i])
          memcpy (storage + i * width, in[i], strlen (in[i]));
      if (slab_write_storage (self, n_dims, start, count, st, storage, cancellable, &local))
        return TRUE;
      /* a chunk read back for a partial write held longer strings */
      if (ncz_variable_get_storage_element_size (self) <= width)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_pointer (&storage, g_free);
    }
}

static guint64
count_elements (guint n_dims, const guint64 *count)
{
  guint64 n = 1;
  for (guint i = 0; i < n_dims; i++)
    {
      if (count[i] != 0 && n > G_MAXUINT64 / count[i])
        return G_MAXUINT64;
      n *= count[i];
    }
  return n;
}

/**
 * ncz_variable_read_bytes:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the values, C order, native byte order
 * Since: 1.0
 */
GBytes *
ncz_variable_read_bytes (NczVariable *self,
                         const guint64 *start, guint n_start,
                         const guint64 *count, guint n_count,
                         const gint64 *stride, guint n_stride,
                         GCancellable *cancellable, GError **error)
{
  guint n_dims;
  guint64 n;
  gsize tsize, size;
  gpointer buf;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' holds strings: use ncz_variable_read_strings()",
                   self->name);
      return NULL;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return NULL;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), NULL);
  n = count_elements (n_dims, count);
  tsize = ncz_data_type_get_size (self->type);
  if (n > G_MAXSIZE / tsize)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': hyperslab too large", self->name);
      return NULL;
    }
  size = n * tsize;
  buf = g_try_malloc (MAX (size, 1));
  if (buf == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory for %" G_GSIZE_FORMAT " bytes",
                   self->name, size);
      return NULL;
    }
  if (!ncz_variable_read (self, start, n_dims, count, n_dims, stride, n_dims,
                          buf, size, cancellable, error))
    {
      g_free (buf);
      return NULL;
    }
  return g_bytes_new_take (buf, size);
}

typedef struct {
  guint n_dims;
  guint64 *start;
  guint64 *count;
  gint64 *stride;
} SlabArgs;

static void
slab_args_free (SlabArgs *a)
{
  g_free (a->start);
  g_free (a->count);
  g_free (a->stride);
  g_free (a);
}

static void
read_bytes_thread (GTask *task, gpointer source, gpointer task_data,
                   GCancellable *cancellable)
{
  SlabArgs *a = task_data;
  GError *error = NULL;
  GBytes *b = ncz_variable_read_bytes (NCZ_VARIABLE (source), a->start, a->n_dims,
                                       a->count, a->n_dims, a->stride, a->n_dims,
                                       cancellable, &error);
  if (b)
    g_task_return_pointer (task, b, (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_error (task, error);
}

/**
 * ncz_variable_read_bytes_async:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Reads a hyperslab in a worker thread.
 *
 * Since: 1.0
 */
void
ncz_variable_read_bytes_async (NczVariable *self,
                               const guint64 *start, guint n_start,
                               const guint64 *count, guint n_count,
                               const gint64 *stride, guint n_stride,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  guint n_dims;
  SlabArgs *a;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_return_if_fail (n_start == 0 || start != NULL);
  g_return_if_fail (n_count == 0 || count != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_variable_read_bytes_async);
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  a = g_new0 (SlabArgs, 1);
  a->n_dims = n_dims;
  a->start = g_memdup2 (start, sizeof (guint64) * n_dims);
  a->count = g_memdup2 (count, sizeof (guint64) * n_dims);
  a->stride = stride ? g_memdup2 (stride, sizeof (gint64) * n_dims) : NULL;
  g_task_set_task_data (task, a, (GDestroyNotify) slab_args_free);
  g_task_run_in_thread (task, read_bytes_thread);
}

/**
 * ncz_variable_read_bytes_finish:
 * @self: a variable
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the values, as ncz_variable_read_bytes()
 * Since: 1.0
 */
GBytes *
ncz_variable_read_bytes_finish (NczVariable *self, GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_variable_read_bytes_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ncz_variable_write_bytes:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @data: the values, C order, native byte order
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write_bytes (NczVariable *self,
                          const guint64 *start, guint n_start,
                          const guint64 *count, guint n_count,
                          const gint64 *stride, guint n_stride,
                          GBytes *data, GCancellable *cancellable, GError **error)
{
  guint n_dims;
  gsize size;
  gconstpointer p;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' holds strings: use ncz_variable_write_strings()",
                   self->name);
      return FALSE;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), FALSE);
  p = g_bytes_get_data (data, &size);
  if (size != count_elements (n_dims, count) * ncz_data_type_get_size (self->type))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %" G_GSIZE_FORMAT " bytes given for %" G_GUINT64_FORMAT " values",
                   self->name, size, count_elements (n_dims, count));
      return FALSE;
    }
  return ncz_variable_write (self, start, n_dims, count, n_dims, stride, n_dims,
                             p ? p : "", size, cancellable, error);
}

/**
 * ncz_variable_read_strings:
 * @self: a string variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (array zero-terminated=1): the strings
 * Since: 1.0
 */
char **
ncz_variable_read_strings (NczVariable *self,
                           const guint64 *start, guint n_start,
                           const guint64 *count, guint n_count,
                           const gint64 *stride, guint n_stride,
                           GCancellable *cancellable, GError **error)
{
  guint n_dims;
  guint64 n;
  char **out;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->type != NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' does not hold strings: use ncz_variable_read_bytes()",
                   self->name);
      return NULL;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return NULL;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), NULL);
  n = count_elements (n_dims, count);
  if (n >= G_MAXSIZE / sizeof (char *))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': hyperslab too large", self->name);
      return NULL;
    }
  out = g_try_new0 (char *, n + 1);
  if (out == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory", self->name);
      return NULL;
    }
  if (!ncz_variable_read (self, start, n_dims, count, n_dims, stride, n_dims, out,
                          n * sizeof (char *), cancellable, error))
    {
      g_free (out);
      return NULL;
    }
  return out;
}

/**
 * ncz_variable_write_strings:
 * @self: a string variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @strings: (array zero-terminated=1): the strings, one per element
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write_strings (NczVariable *self,
                            const guint64 *start, guint n_start,
                            const guint64 *count, guint n_count,
                            const gint64 *stride, guint n_stride,
                            const char * const *strings, GCancellable *cancellable,
                            GError **error)
{
  guint n_dims;
  guint64 n;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (strings != NULL, FALSE);
  if (self->type != NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' does not hold strings: use ncz_variable_write_bytes()",
                   self->name);
      return FALSE;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), FALSE);
  n = count_elements (n_dims, count);
  if (g_strv_length ((char **) strings) < n)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %u strings given for %" G_GUINT64_FORMAT " elements",
                   self->name, g_strv_length ((char **) strings), n);
      return FALSE;
    }
  return ncz_variable_write (self, start, n_dims, count, n_dims, stride, n_dims,
                             strings, n * sizeof (char *), cancellable, error);
}
