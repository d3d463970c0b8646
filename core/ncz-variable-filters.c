/* ncz-variable-filters.c: a variable's filter chain and quantize
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

/* ---- filters (filters.md "Using The API") ---- */

/* Filters and quantize may be defined on a variable defined in this
 * session of a writable dataset, before any value is written to it:
 * chunks already stored were encoded with the chain they have. */
static gboolean
check_chain_definable (NczVariable *self, const char *what, GError **error)
{
  if (!ncz_variable_check_define (self, error))
    return FALSE;
  if (self->loaded)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' was read from the dataset: its %s cannot change",
                   self->name, what);
      return FALSE;
    }
  if (g_atomic_int_get (&self->data_written))
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
  ncz_variable_notify_filters (self);
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
 * Gives the lossy quantization set with ncz_variable_set_quantize(), and
 * the number of significant digits (or bits) it keeps.
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
  gint64 v = ncz_variable_int_attribute (attribute);

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
 * Lists the variable's attributes, `_FillValue` and the quantization
 * attributes included. Free the array with g_ptr_array_unref(); the
 * attributes belong to the variable.
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
 * Looks up an attribute of the variable by name. Gives %NULL when there is
 * none. The attribute belongs to the variable.
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
  if (!ncz_variable_check_define (self, error))
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
 * Deletes an attribute of the variable. Removing `_FillValue` goes back to
 * the default fill value; removing the quantization attribute in use turns
 * quantization off. Fails with %NCZ_DATASET_ERROR_READ_ONLY when the
 * dataset is not writable or was opened with %NCZ_OPEN_WRITE_DATA, and
 * %NCZ_DATASET_ERROR_NOT_FOUND when there is no attribute @name.
 *
 * Returns: %TRUE on success; %NCZ_DATASET_ERROR_NOT_FOUND if absent
 * Since: 1.0
 */
gboolean
ncz_variable_remove_attribute (NczVariable *self, const char *name, GError **error)
{
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  if (!ncz_variable_check_define (self, error))
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
