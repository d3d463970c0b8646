/* ncz-variable.c: variables
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-variable-private.h"
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

enum {
  PROP_0,
  PROP_NAME,
  PROP_FULL_NAME,
  PROP_GROUP,
  PROP_DATA_TYPE,
  PROP_SHAPE,
  PROP_SHAPE_TEXT,
  PROP_DIMENSIONS,
  PROP_ATTRIBUTES,
  PROP_CHUNK_SIZES,
  PROP_FILL_VALUE,
  PROP_FILTERS,
  PROP_N_ELEMENTS,
  PROP_WRITABLE,
  N_PROPS
};

static GParamSpec *variable_props[N_PROPS];

static void
ncz_variable_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  NczVariable *self = NCZ_VARIABLE (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_FULL_NAME:
      g_value_take_string (value, ncz_variable_get_full_name (self));
      break;
    case PROP_GROUP:
      g_value_set_object (value, self->group);
      break;
    case PROP_DATA_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_SHAPE:
      g_value_take_variant (value, ncz_variable_get_shape_variant (self));
      break;
    case PROP_SHAPE_TEXT:
      g_value_take_string (value, ncz_variable_get_shape_text (self));
      break;
    case PROP_DIMENSIONS:
      g_value_take_object (value, ncz_variable_get_dimension_list (self));
      break;
    case PROP_ATTRIBUTES:
      g_value_take_object (value, ncz_variable_get_attribute_list (self));
      break;
    case PROP_CHUNK_SIZES:
      g_value_take_variant (value, ncz_variable_get_chunk_sizes_variant (self));
      break;
    case PROP_FILL_VALUE:
      g_value_take_variant (value, ncz_variable_get_fill_value_variant (self));
      break;
    case PROP_FILTERS:
      g_value_take_string (value, ncz_variable_get_codecs_json (self));
      break;
    case PROP_N_ELEMENTS:
      g_value_set_uint64 (value, ncz_variable_get_n_elements (self));
      break;
    case PROP_WRITABLE:
      g_value_set_boolean (value, ncz_variable_is_writable (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_variable_class_init (NczVariableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ncz_variable_finalize;
  object_class->get_property = ncz_variable_get_property;

  /**
   * NczVariable:name: (getter get_name)
   *
   * The variable's name.
   *
   * Since: 1.0
   */
  variable_props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  /**
   * NczVariable:full-name: (getter get_full_name)
   *
   * The fully qualified name, e.g. "/grp/v".
   *
   * Since: 1.0
   */
  variable_props[PROP_FULL_NAME] = g_param_spec_string ("full-name", NULL, NULL, NULL, ro);
  /**
   * NczVariable:group: (getter get_group)
   *
   * The group of the variable.
   *
   * Since: 1.0
   */
  variable_props[PROP_GROUP] = g_param_spec_object ("group", NULL, NULL, NCZ_TYPE_GROUP, ro);
  /**
   * NczVariable:data-type: (getter get_value_type)
   *
   * The type of the variable's values.
   *
   * Since: 1.0
   */
  variable_props[PROP_DATA_TYPE] = g_param_spec_enum ("data-type", NULL, NULL, NCZ_TYPE_DATA_TYPE,
                                                      NCZ_DATA_TYPE_NONE, ro);
  /**
   * NczVariable:shape: (getter get_shape_variant)
   *
   * The current length of each dimension, outermost first, as a
   * #GVariant of type "at" (empty for a scalar). #GObject::notify is
   * emitted when a dimension of the variable grows, on the thread that
   * grew it.
   *
   * Since: 1.0
   */
  variable_props[PROP_SHAPE] = g_param_spec_variant ("shape", NULL, NULL, G_VARIANT_TYPE ("at"),
                                                     NULL, ro);
  /**
   * NczVariable:shape-text: (getter get_shape_text)
   *
   * The shape as text, "(10, 20)", "()" for a scalar, for showing in a
   * user interface; notified with [property@Ncz.Variable:shape].
   *
   * Since: 1.0
   */
  variable_props[PROP_SHAPE_TEXT] = g_param_spec_string ("shape-text", NULL, NULL, NULL, ro);
  /**
   * NczVariable:dimensions: (getter get_dimension_list)
   *
   * The variable's dimensions as a #GListModel of #NczDimension,
   * outermost first.
   *
   * Since: 1.0
   */
  variable_props[PROP_DIMENSIONS] = g_param_spec_object ("dimensions", NULL, NULL,
                                                         G_TYPE_LIST_MODEL, ro);
  /**
   * NczVariable:attributes: (getter get_attribute_list)
   *
   * The variable's attributes as a #GListModel of #NczAttribute, in
   * definition order. It stays current: setting, replacing or removing
   * an attribute (the fill value too) emits #GListModel::items-changed on
   * the thread that made the change.
   *
   * Since: 1.0
   */
  variable_props[PROP_ATTRIBUTES] = g_param_spec_object ("attributes", NULL, NULL,
                                                         G_TYPE_LIST_MODEL, ro);
  /**
   * NczVariable:chunk-sizes: (getter get_chunk_sizes_variant)
   *
   * The chunk shape as a #GVariant of type "at"; %NULL for contiguous
   * storage and for a scalar.
   *
   * Since: 1.0
   */
  variable_props[PROP_CHUNK_SIZES] = g_param_spec_variant ("chunk-sizes", NULL, NULL,
                                                           G_VARIANT_TYPE ("at"), NULL, ro);
  /**
   * NczVariable:fill-value: (getter get_fill_value_variant)
   *
   * The fill value as a #GVariant, as
   * ncz_variable_get_fill_value_variant() gives it; notified when it is
   * set.
   *
   * Since: 1.0
   */
  variable_props[PROP_FILL_VALUE] = g_param_spec_variant ("fill-value", NULL, NULL,
                                                          G_VARIANT_TYPE_ANY, NULL, ro);
  /**
   * NczVariable:filters: (getter get_codecs_json)
   *
   * The filter chain as a JSON array of codec dicts, as
   * ncz_variable_get_codecs_json() gives it; notified when a filter is
   * added.
   *
   * Since: 1.0
   */
  variable_props[PROP_FILTERS] = g_param_spec_string ("filters", NULL, NULL, NULL, ro);
  /**
   * NczVariable:n-elements: (getter get_n_elements)
   *
   * The number of elements (1 for a scalar); notified with
   * [property@Ncz.Variable:shape].
   *
   * Since: 1.0
   */
  variable_props[PROP_N_ELEMENTS] = g_param_spec_uint64 ("n-elements", NULL, NULL, 0,
                                                         G_MAXUINT64, 1, ro);
  /**
   * NczVariable:writable: (getter is_writable)
   *
   * Whether values can be written: the dataset is writable and open.
   *
   * Since: 1.0
   */
  variable_props[PROP_WRITABLE] = g_param_spec_boolean ("writable", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, variable_props);
}

static void
ncz_variable_init (NczVariable *self)
{
  /* not references: a dimension belongs to a group of the dataset, which
   * lives as long as any of its objects */
  self->dimensions = g_ptr_array_new ();
  ncz_attr_list_init (&self->attributes, self);
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
 * Gives the variable's name, without its group's path (see
 * ncz_variable_get_full_name()). The string belongs to the variable.
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
 * Gives the variable's name qualified by its group's path (`/v` in the
 * root group, `/grp/v` in group `grp`). Free the result with g_free().
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
 * Gives the group that defines the variable.
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
 * Gives the type of the variable's elements. Reads and writes use this
 * type, in native byte order.
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
 * Gives the number of the variable's dimensions: the number of values
 * @start, @count and @stride take in reads and writes.
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
 * Gives one dimension of the variable, outermost first. It belongs to
 * its group. An @index not less than ncz_variable_get_n_dimensions()
 * gives %NULL; ncz_variable_get_dimension_at() says so with a #GError
 * (bindings call that one).
 *
 * Returns: (transfer none) (nullable): the dimension, or %NULL when
 *   @index is out of range
 * Since: 1.0
 */
NczDimension *
ncz_variable_get_dimension (NczVariable *self, guint index)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (index >= self->dimensions->len)
    return NULL;
  return g_ptr_array_index (self->dimensions, index);
}

/**
 * ncz_variable_get_dimension_at: (rename-to ncz_variable_get_dimension)
 * @self: a variable
 * @index: dimension index, outermost first
 * @error: return location for a #GError
 *
 * Gets dimension @index of the variable; an index beyond the rank is an
 * error, so that bindings raise it (`var.get_dimension (5)` raises
 * `GLib.Error`). ncz_variable_get_dimension() returns %NULL instead.
 *
 * Returns: (transfer none): the dimension, or %NULL with @error set
 *   (%NCZ_DATASET_ERROR_INVALID) if @index is not less than the rank
 * Since: 1.0
 */
NczDimension *
ncz_variable_get_dimension_at (NczVariable *self, guint index, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (index >= self->dimensions->len)
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has %u dimensions: there is no dimension %u",
                   fqn, self->dimensions->len, index);
      return NULL;
    }
  return g_ptr_array_index (self->dimensions, index);
}

/**
 * ncz_variable_get_dimensions:
 * @self: a variable
 *
 * Lists the variable's dimensions, outermost (slowest varying) first. Free
 * the array with g_ptr_array_unref(); it holds a reference on each
 * dimension. It is empty for a scalar.
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
 * Gives the current length of each of the variable's dimensions,
 * outermost first, which is the extent of a read of the whole variable.
 * Free the array with g_free().
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
 * Gives the number of elements the variable holds now: the product of the
 * current lengths of its dimensions, so it changes as unlimited dimensions
 * grow.
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
 * Tells whether the variable is a scalar: it has no dimensions and holds
 * one element, read and written with empty @start and @count.
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

gboolean
ncz_variable_check_define (NczVariable *self, GError **error)
{
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of variable '%s' is gone", self->name);
      return FALSE;
    }
  if (ncz_dataset_is_closed (ds) && !ncz_dataset_is_loading (ds))
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed: variable '%s' can no longer be changed",
                   ncz_url_get_original (ncz_dataset_get_url (ds)), fqn);
      return FALSE;
    }
  return ncz_dataset_check_definable (ds, error);
}

/**
 * ncz_variable_set_chunk_sizes:
 * @self: a variable
 * @sizes: (array length=n_dims): chunk lengths, each at least 1
 * @n_dims: must equal the rank
 * @error: return location for a #GError
 *
 * Sets the length of the variable's chunks along each dimension, which
 * turns off contiguous storage. Fails with %NCZ_DATASET_ERROR_READ_ONLY
 * when the dataset is not writable or was opened with
 * %NCZ_OPEN_WRITE_DATA, and %NCZ_DATASET_ERROR_INVALID when @n_dims is not
 * the rank or a size is zero.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_chunk_sizes (NczVariable *self, const guint64 *sizes,
                              guint n_dims, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!ncz_variable_check_define (self, error))
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
  self->chunking_set = TRUE;
  g_mutex_unlock (&self->lock);
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_CHUNK_SIZES]);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_contiguous:
 * @self: a variable
 *
 * Tells whether the variable is stored contiguously: as a single chunk
 * covering the whole array (HDF5's contiguous layout), rather than in the
 * chunks of ncz_variable_get_chunk_sizes().
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
  if (!ncz_variable_check_define (self, error))
    return FALSE;
  self->contiguous = contiguous;
  self->chunking_set = !contiguous;
  if (contiguous && self->dimensions->len > 0)
    {
      g_mutex_lock (&self->lock);
      g_free (self->chunks);
      self->chunks = g_new (guint64, self->dimensions->len);
      for (guint i = 0; i < self->dimensions->len; i++)
        self->chunks[i] = MAX (1, ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i)));
      g_mutex_unlock (&self->lock);
    }
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_CHUNK_SIZES]);
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
 * Tells whether the fill value was set (with ncz_variable_set_fill_value()
 * or a stored `_FillValue` attribute) rather than being the default of the
 * type.
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
  if (!ncz_variable_check_define (self, error))
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
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_FILL_VALUE]);
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_no_fill:
 * @self: a variable
 *
 * Tells whether the variable was set to have no fill value
 * (ncz_variable_set_no_fill()): chunks are not pre-filled and elements
 * never written have no defined value.
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
 * Sets whether the variable has a fill value. With none, chunks are not
 * pre-filled, and elements never written have no defined value (Zarr's
 * `fill_value: null`). Fails with %NCZ_DATASET_ERROR_READ_ONLY when the
 * dataset is not writable or was opened with %NCZ_OPEN_WRITE_DATA.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_no_fill (NczVariable *self, gboolean no_fill, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!ncz_variable_check_define (self, error))
    return FALSE;
  if (self->no_fill != !!no_fill)
    {
      self->no_fill = !!no_fill;
      g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_FILL_VALUE]);
    }
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_variable_get_endianness:
 * @self: a variable
 *
 * Gives the byte order of the variable's values in storage. Reads and
 * writes always use the native byte order: values are swapped as chunks
 * are stored and loaded.
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
 * Sets the byte order the variable's values are stored in. Reads and
 * writes still use native byte order. Fails with
 * %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable or was
 * opened with %NCZ_OPEN_WRITE_DATA.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_set_endianness (NczVariable *self, NczEndianness endianness,
                             GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  if (!ncz_variable_check_define (self, error))
    return FALSE;
  self->endianness = endianness;
  return ncz_format_notify_variable (self, NCZ_DEFINITION_CHANGED, error);
}

gint64
ncz_variable_int_attribute (NczAttribute *a)
{
  g_autoptr(GError) error = NULL;
  gint64 v;

  if (a == NULL || ncz_attribute_get_length (a) < 1 ||
      !ncz_data_type_is_integer (ncz_attribute_get_value_type (a)))
    return -1;
  v = ncz_attribute_get_int64 (a, 0, &error);
  return error != NULL ? -1 : v;
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
  n = ncz_variable_int_attribute (ncz_attr_list_find (&self->attributes, "_nczarr_maxstrlen"));
  if (n <= 0 && self->group)
    {
      NczGroup *root = self->group;
      while (ncz_group_get_parent (root))
        root = ncz_group_get_parent (root);
      n = ncz_variable_int_attribute (ncz_group_get_attribute (root, "_nczarr_default_maxstrlen"));
    }
  if (n <= 0 || n > G_MAXINT32)
    n = NCZ_DEFAULT_MAX_STRLEN;
  return (guint) n;
}

/**
 * ncz_variable_get_storage_element_size:
 * @self: a variable
 *
 * Gives the size of one element as the chunks of the variable store it.
 * This is the memory size of the type for numeric and char variables and
 * the fixed width of ncz_variable_get_max_string_length() for string
 * variables.
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
  ncz_variable_notify_filters (self);
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

gboolean
ncz_variable_is_chunking_set (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  return self->chunking_set;
}

/**
 * ncz_variable_get_n_codecs:
 * @self: a variable
 *
 * Counts the codecs of the variable's filter chain, as
 * ncz_variable_get_codecs_json() lists them.
 *
 * Returns: the number of codecs in the filter chain
 * Since: 1.0
 */
guint
ncz_variable_get_n_codecs (NczVariable *self)
{
  guint n;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), 0);
  g_mutex_lock (&self->lock);
  n = self->filters ? self->filters->len : 0;
  g_mutex_unlock (&self->lock);
  return n;
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
  g_mutex_lock (&self->lock);
  for (guint i = 0; self->filters && i < self->filters->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (self->filters, i);
      if (i > 0)
        g_string_append_c (s, ',');
      g_string_append (s, f->json ? f->json : "null");
    }
  g_mutex_unlock (&self->lock);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* ---- properties for bindings and list models ---- */

GPtrArray *
ncz_variable_peek_list (GObject *variable, NczModelListKind kind)
{
  NczVariable *self = NCZ_VARIABLE (variable);

  if (kind == NCZ_MODEL_LIST_ATTRIBUTES)
    return self->attributes.items;
  if (kind == NCZ_MODEL_LIST_DIMENSIONS)
    return self->dimensions;
  return NULL;
}

/* Whether anybody listens to @self's notifications: a dimension's growth
 * visits every variable using it (in a netCDF file, often every variable
 * shares the time dimension), and most of them nobody watches. */
static gboolean
is_watched (NczVariable *self)
{
  static guint notify_id;

  if (notify_id == 0)
    notify_id = g_signal_lookup ("notify", G_TYPE_OBJECT);
  return g_signal_handler_find (self, G_SIGNAL_MATCH_ID, notify_id, 0, NULL, NULL, NULL) != 0;
}

void
ncz_variable_notify_shape (NczVariable *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_SHAPE]);
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_SHAPE_TEXT]);
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_N_ELEMENTS]);
}

void
ncz_variable_dimension_grown (NczVariable *self, NczDimension *dimension)
{
  for (guint i = 0; i < self->dimensions->len; i++)
    if (g_ptr_array_index (self->dimensions, i) == dimension)
      {
        if (is_watched (self))
          ncz_variable_notify_shape (self);
        return;
      }
}

void
ncz_variable_notify_filters (NczVariable *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_FILTERS]);
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_CHUNK_SIZES]);
}

void
ncz_variable_notify_writable (NczVariable *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), variable_props[PROP_WRITABLE]);
}

/**
 * ncz_variable_get_attribute_list: (get-property attributes)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:attributes] list model: the variable's
 * attributes, kept current as attributes are set and removed.
 *
 * Returns: (transfer full): a #GListModel of #NczAttribute
 * Since: 1.0
 */
GListModel *
ncz_variable_get_attribute_list (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_ATTRIBUTES,
                             NCZ_TYPE_ATTRIBUTE, ncz_variable_peek_list);
}

/**
 * ncz_variable_get_dimension_list: (get-property dimensions)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:dimensions] list model.
 *
 * Returns: (transfer full): a #GListModel of #NczDimension, outermost
 *   first
 * Since: 1.0
 */
GListModel *
ncz_variable_get_dimension_list (NczVariable *self)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_DIMENSIONS,
                             NCZ_TYPE_DIMENSION, ncz_variable_peek_list);
}

/**
 * ncz_variable_get_shape_variant: (get-property shape)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:shape]: the current length of each
 * dimension.
 *
 * Returns: (transfer full): a #GVariant of type "at", empty for a scalar
 * Since: 1.0
 */
GVariant *
ncz_variable_get_shape_variant (NczVariable *self)
{
  GVariantBuilder b;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_variant_builder_init (&b, G_VARIANT_TYPE ("at"));
  for (guint i = 0; i < self->dimensions->len; i++)
    g_variant_builder_add (&b, "t", ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i)));
  return g_variant_ref_sink (g_variant_builder_end (&b));
}

/**
 * ncz_variable_get_shape_text: (get-property shape-text)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:shape-text]: the shape written as
 * "(10, 20)", "()" for a scalar.
 *
 * Returns: (transfer full): the text
 * Since: 1.0
 */
char *
ncz_variable_get_shape_text (NczVariable *self)
{
  GString *s;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  s = g_string_new ("(");
  for (guint i = 0; i < self->dimensions->len; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
                            ncz_dimension_get_length (g_ptr_array_index (self->dimensions, i)));
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/**
 * ncz_variable_get_chunk_sizes_variant: (get-property chunk-sizes)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:chunk-sizes]: the chunk shape, as
 * ncz_variable_get_chunk_sizes() gives it.
 *
 * Returns: (transfer full) (nullable): a #GVariant of type "at", or %NULL
 *   for contiguous storage and for a scalar
 * Since: 1.0
 */
GVariant *
ncz_variable_get_chunk_sizes_variant (NczVariable *self)
{
  const guint64 *chunks;
  guint n = 0;
  GVariant *v;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (ncz_variable_get_contiguous (self))
    return NULL;
  chunks = ncz_variable_get_chunk_sizes (self, &n);
  if (chunks == NULL || n == 0)
    return NULL;
  g_mutex_lock (&self->lock);
  v = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, self->chunks, n, sizeof (guint64));
  g_mutex_unlock (&self->lock);
  return g_variant_ref_sink (v);
}

/**
 * ncz_variable_get_fill_value_variant: (get-property fill-value)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:fill-value]: the value unwritten
 * elements read as, as one #GVariant value typed as in
 * ncz_attribute_get_value() ("y" for byte, ubyte and char, "d" for float
 * and double, "s" for string).
 *
 * Returns: (transfer full) (nullable): the fill value; %NULL when the
 *   variable has no fill value (ncz_variable_set_no_fill())
 * Since: 1.0
 */
GVariant *
ncz_variable_get_fill_value_variant (NczVariable *self)
{
  g_autoptr(GBytes) fill = NULL;
  gsize size = 0;
  const guint8 *p;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->no_fill)
    return NULL;
  fill = ncz_variable_get_fill_value (self);
  if (fill == NULL)
    return NULL;
  p = g_bytes_get_data (fill, &size);
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_autofree char *text = g_strndup (p ? (const char *) p : "", size);
      if (!g_utf8_validate (text, -1, NULL))
        return NULL;
      return g_variant_ref_sink (g_variant_new_string (text));
    }
  if (size < ncz_data_type_get_size (self->type))
    return NULL;
  return g_variant_ref_sink (ncz_packed_value_to_variant (self->type, p));
}

/**
 * ncz_variable_is_writable: (get-property writable)
 * @self: a variable
 *
 * Gets the [property@Ncz.Variable:writable].
 *
 * Returns: whether the variable's dataset is writable and open
 * Since: 1.0
 */
gboolean
ncz_variable_is_writable (NczVariable *self)
{
  NczDataset *ds;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  ds = ncz_variable_get_dataset (self);
  return ds != NULL && ncz_dataset_is_writable (ds);
}
