/* ncz-format.c: the format backend interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-format-private.h"

/**
 * NczFormat:
 *
 * A format backend (NCZarr/Zarr, HDF5). See #NczFormatInterface.
 *
 * Since: 1.0
 */
G_DEFINE_INTERFACE (NczFormat, ncz_format, G_TYPE_OBJECT)

static void
ncz_format_default_init (NczFormatInterface *iface)
{
  /**
   * NczFormat:url:
   *
   * The URL of the dataset the format serves.
   *
   * Since: 1.0
   */
  g_object_interface_install_property (iface,
      g_param_spec_object ("url", NULL, NULL, NCZ_TYPE_URL,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  /**
   * NczFormat:store:
   *
   * The store holding the dataset, %NULL for a format that does its own I/O.
   *
   * Since: 1.0
   */
  g_object_interface_install_property (iface,
      g_param_spec_object ("store", NULL, NULL, NCZ_TYPE_STORE,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
}

static gboolean
unsupported (NczFormat *self, const char *what, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "format '%s' cannot %s", G_OBJECT_TYPE_NAME (self), what);
  return FALSE;
}

/**
 * ncz_format_get_name:
 * @self: a format backend
 *
 * Gives the name of the format the backend serves, such as `nczarr` or
 * `hdf5`. The string belongs to the backend.
 *
 * Returns: the name of the format in use
 * Since: 1.0
 */
const char *
ncz_format_get_name (NczFormat *self)
{
  NczFormatInterface *iface;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->get_name == NULL)
    return G_OBJECT_TYPE_NAME (self);
  return iface->get_name (self);
}

/**
 * ncz_format_open:
 * @self: a format backend
 * @dataset: the dataset to load
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the metadata of an existing dataset and builds its groups,
 * dimensions, variables and attributes. Called by ncz_dataset_open().
 * Fails with a #NczDatasetError or #NczBackendError naming the object at
 * fault when the metadata are missing or cannot be understood.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_open (NczFormat *self, NczDataset *dataset,
                 GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_DATASET (dataset), FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->open == NULL)
    return unsupported (self, "open datasets", error);
  return iface->open (self, dataset, cancellable, error);
}

/**
 * ncz_format_create:
 * @self: a format backend
 * @dataset: the new dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the initial metadata of a new, empty @dataset in the backend's
 * format. Called by ncz_dataset_create(). Fails with
 * %NCZ_BACKEND_ERROR_UNSUPPORTED when the backend cannot create datasets.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_create (NczFormat *self, NczDataset *dataset,
                   GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_DATASET (dataset), FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->create == NULL)
    return unsupported (self, "create datasets", error);
  return iface->create (self, dataset, cancellable, error);
}

/**
 * ncz_format_sync:
 * @self: a format backend
 * @dataset: the dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the metadata of @dataset (groups, dimensions, variables and
 * attributes) that changed since it was created, opened or last synced.
 * Called by ncz_dataset_sync() and ncz_dataset_close(). Fails with
 * %NCZ_BACKEND_ERROR_UNSUPPORTED when the backend cannot write.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_sync (NczFormat *self, NczDataset *dataset,
                 GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->sync == NULL)
    return unsupported (self, "write metadata", error);
  return iface->sync (self, dataset, cancellable, error);
}

/**
 * ncz_format_close:
 * @self: a format backend
 * @dataset: the dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Releases what the backend holds for @dataset, after ncz_format_sync()
 * when it was writable. Called once by ncz_dataset_close(); backends with
 * nothing to release succeed.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_close (NczFormat *self, NczDataset *dataset,
                  GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->close == NULL)
    return TRUE;
  return iface->close (self, dataset, cancellable, error);
}

/**
 * ncz_format_read_chunk:
 * @self: a format backend
 * @variable: a variable
 * @chunk_index: (array): the chunk's index along each dimension
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads and decodes one chunk of @variable through its codec chain, giving
 * its values in native byte order. Fails with a storage error when the
 * chunk cannot be read and a codec error when it cannot be decoded.
 *
 * Returns: (transfer full): the decoded chunk, or %NULL with
 *   %NCZ_STORAGE_ERROR_NOT_FOUND when it was never written
 * Since: 1.0
 */
GBytes *
ncz_format_read_chunk (NczFormat *self, NczVariable *variable,
                       const guint64 *chunk_index, GCancellable *cancellable,
                       GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->read_chunk == NULL)
    {
      unsupported (self, "read chunks", error);
      return NULL;
    }
  return iface->read_chunk (self, variable, chunk_index, cancellable, error);
}

/**
 * ncz_format_write_chunk:
 * @self: a format backend
 * @variable: a variable
 * @chunk_index: (array): the chunk's index along each dimension
 * @data: the full chunk, native byte order, C order
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Encodes one full chunk of @variable through its codec chain and stores
 * it. Fails with a codec error when it cannot be encoded and a storage
 * error when it cannot be stored.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_write_chunk (NczFormat *self, NczVariable *variable,
                        const guint64 *chunk_index, GBytes *data,
                        GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->write_chunk == NULL)
    return unsupported (self, "write chunks", error);
  return iface->write_chunk (self, variable, chunk_index, data, cancellable, error);
}

/**
 * ncz_format_update_chunk:
 * @self: a format
 * @variable: the variable
 * @chunk_index: (array): the chunk's index along each dimension
 * @func: (scope call): builds the new chunk from the stored one
 * @user_data: (closure): data for @func
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Read-modify-writes one chunk, guarded against other writers of the
 * same chunk where the format and its store can (see
 * #NczFormatInterface.update_chunk).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_update_chunk (NczFormat *self, NczVariable *variable,
                         const guint64 *chunk_index, NczChunkUpdateFunc func,
                         gpointer user_data, GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  g_autoptr(GBytes) old = NULL;
  g_autoptr(GBytes) out = NULL;
  GError *local = NULL;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->update_chunk != NULL)
    return iface->update_chunk (self, variable, chunk_index, func, user_data, cancellable,
                                error);
  old = ncz_format_read_chunk (self, variable, chunk_index, cancellable, &local);
  if (old == NULL && local != NULL)
    {
      if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      g_clear_error (&local);
    }
  out = func (old, user_data, error);
  if (out == NULL)
    return FALSE;
  return ncz_format_write_chunk (self, variable, chunk_index, out, cancellable, error);
}

/* Whether @n_values index values hold @n_chunks indices of @variable's
 * rank (returned in @rank), as the batch calls take them. */
static gboolean
check_chunk_indices (NczVariable *variable, gsize n_values, guint n_chunks, guint *rank,
                     GError **error)
{
  *rank = ncz_variable_get_n_dimensions (variable);
  if (n_values == (gsize) n_chunks * *rank)
    return TRUE;
  {
    g_autofree char *name = ncz_variable_get_full_name (variable);
    g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                 "variable '%s': %" G_GSIZE_FORMAT " index values given for %u chunks "
                 "of rank %u", name, n_values, n_chunks, *rank);
  }
  return FALSE;
}

/**
 * ncz_format_read_chunks:
 * @self: a format backend
 * @variable: a variable
 * @chunk_indices: (array length=n_values): the indices of the chunks, one
 *   after another (@n_chunks times the variable's rank values)
 * @n_values: the number of values in @chunk_indices
 * @n_chunks: the number of chunks
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads and decodes several chunks in one call, as
 * [method@Ncz.Format.read_chunk] does one. A format keeps the requests
 * in flight together and coalesces what it can (chunks of one shard);
 * one that cannot reads them one by one.
 *
 * Returns: (transfer container) (element-type GBytes): the decoded chunks
 *   in the order asked, with a %NULL element for each chunk never
 *   written; %NULL on error
 * Since: 1.0
 */
GPtrArray *
ncz_format_read_chunks (NczFormat     *self,
                        NczVariable   *variable,
                        const guint64 *chunk_indices,
                        gsize          n_values,
                        guint          n_chunks,
                        GCancellable  *cancellable,
                        GError       **error)
{
  NczFormatInterface *iface;
  g_autoptr(GPtrArray) result = NULL;
  GError *local_error = NULL;
  guint rank;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), NULL);
  g_return_val_if_fail (n_values == 0 || chunk_indices != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_chunk_indices (variable, n_values, n_chunks, &rank, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->read_chunks != NULL)
    {
      result = iface->read_chunks (self, variable, chunk_indices, n_chunks, cancellable,
                                   &local_error);
      if (result == NULL)
        {
          if (local_error == NULL)
            g_set_error (&local_error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                         "format '%s' failed to read chunks without saying why",
                         G_OBJECT_TYPE_NAME (self));
          g_propagate_error (error, local_error);
          return NULL;
        }
      g_clear_error (&local_error);
      if (result->len != n_chunks)
        {
          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                       "format '%s' returned %u chunks for %u", G_OBJECT_TYPE_NAME (self),
                       result->len, n_chunks);
          return NULL;
        }
      return g_steal_pointer (&result);
    }

  if (iface->read_chunk == NULL)
    {
      unsupported (self, "read chunks", error);
      return NULL;
    }
  result = g_ptr_array_new_full (n_chunks, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < n_chunks; i++)
    {
      GBytes *chunk = iface->read_chunk (self, variable, chunk_indices + (gsize) i * rank,
                                         cancellable, &local_error);
      if (chunk == NULL)
        {
          if (!g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            {
              if (local_error == NULL)
                g_set_error (&local_error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                             "format '%s' failed to read a chunk without saying why",
                             G_OBJECT_TYPE_NAME (self));
              g_propagate_error (error, local_error);
              return NULL;
            }
          g_clear_error (&local_error);
        }
      g_ptr_array_add (result, chunk);
    }
  return g_steal_pointer (&result);
}

/**
 * ncz_format_write_chunks:
 * @self: a format backend
 * @variable: a variable
 * @chunk_indices: (array length=n_values): the indices of the chunks, one
 *   after another (@n_chunks times the variable's rank values)
 * @n_values: the number of values in @chunk_indices
 * @data: (array length=n_chunks): each chunk's bytes, as
 *   [method@Ncz.Format.write_chunk] takes one
 * @n_chunks: the number of chunks
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Encodes and stores several full chunks in one call, as
 * [method@Ncz.Format.write_chunk] does one. A format keeps the requests
 * in flight together; one that cannot writes them one by one. Every
 * chunk is attempted; the first failure is reported.
 *
 * Returns: %TRUE if every chunk was stored
 * Since: 1.0
 */
gboolean
ncz_format_write_chunks (NczFormat      *self,
                         NczVariable    *variable,
                         const guint64  *chunk_indices,
                         gsize           n_values,
                         GBytes * const *data,
                         guint           n_chunks,
                         GCancellable   *cancellable,
                         GError        **error)
{
  NczFormatInterface *iface;
  GError *first = NULL;
  guint rank;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), FALSE);
  g_return_val_if_fail (n_values == 0 || chunk_indices != NULL, FALSE);
  g_return_val_if_fail (n_chunks == 0 || data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_chunk_indices (variable, n_values, n_chunks, &rank, error))
    return FALSE;
  for (guint i = 0; i < n_chunks; i++)
    if (data[i] == NULL)
      {
        g_autofree char *name = ncz_variable_get_full_name (variable);
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                     "variable '%s': chunk %u of %u has no bytes", name, i, n_chunks);
        return FALSE;
      }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->write_chunks != NULL)
    {
      if (iface->write_chunks (self, variable, chunk_indices, n_values, data, n_chunks,
                               cancellable, &first))
        {
          g_clear_error (&first);
          return TRUE;
        }
      if (first == NULL)
        g_set_error (&first, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                     "format '%s' failed to write chunks without saying why",
                     G_OBJECT_TYPE_NAME (self));
      g_propagate_error (error, first);
      return FALSE;
    }
  for (guint i = 0; i < n_chunks; i++)
    {
      GError *local_error = NULL;

      if (!ncz_format_write_chunk (self, variable, chunk_indices + (gsize) i * rank, data[i],
                                   cancellable, &local_error))
        {
          if (first == NULL)
            first = local_error;
          else
            g_clear_error (&local_error);
        }
    }
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

/**
 * ncz_format_read_slab:
 * @self: a format backend
 * @variable: a variable
 * @start: (array): the first index along each dimension
 * @count: (array): how many values along each dimension
 * @stride: (array): the step along each dimension
 * @buffer: (not nullable): where the values go: storage elements of
 *   @variable in C order of @count
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a checked hyperslab of @variable: through the format's own slab
 * I/O when it has one (HDF5), else through Ncz's chunk engine, which
 * reads the chunks with [method@Ncz.Format.read_chunks] in batches of
 * the dataset's [property@Ncz.Dataset:io-depth]. The arrays hold one
 * value per dimension of @variable; the model checks them before.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_read_slab (NczFormat     *self,
                      NczVariable   *variable,
                      const guint64 *start,
                      const guint64 *count,
                      const gint64  *stride,
                      gpointer       buffer,
                      GCancellable  *cancellable,
                      GError       **error)
{
  NczFormatInterface *iface;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->read_slab != NULL)
    return iface->read_slab (self, variable, start, count, stride, buffer, cancellable, error);
  return ncz_slab_read (variable, self, start, count, stride, buffer, cancellable, error);
}

/**
 * ncz_format_write_slab:
 * @self: a format backend
 * @variable: a variable
 * @start: (array): the first index along each dimension
 * @count: (array): how many values along each dimension
 * @stride: (array): the step along each dimension
 * @buffer: (not nullable): the values: storage elements of @variable in
 *   C order of @count
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes a checked hyperslab of @variable: through the format's own slab
 * I/O when it has one, else through Ncz's chunk engine.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_format_write_slab (NczFormat     *self,
                       NczVariable   *variable,
                       const guint64 *start,
                       const guint64 *count,
                       const gint64  *stride,
                       gconstpointer  buffer,
                       GCancellable  *cancellable,
                       GError       **error)
{
  NczFormatInterface *iface;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->write_slab != NULL)
    return iface->write_slab (self, variable, start, count, stride, buffer, cancellable, error);
  return ncz_slab_write (variable, self, start, count, stride, buffer, cancellable, error);
}

/**
 * ncz_format_get_flags:
 * @self: a format backend
 *
 * Gives what the backend needs: %NCZ_FORMAT_NO_STORE when it does its own
 * I/O rather than reading and writing through a store.
 *
 * Returns: what the format needs
 * Since: 1.0
 */
NczFormatFlags
ncz_format_get_flags (NczFormat *self)
{
  g_return_val_if_fail (NCZ_IS_FORMAT (self), NCZ_FORMAT_FLAGS_NONE);
  return NCZ_FORMAT_GET_IFACE (self)->flags;
}

/**
 * ncz_format_type_get_flags:
 * @format_type: a type implementing #NczFormat
 *
 * Gets what a format needs before any instance exists: the open path
 * opens a store only for a format without %NCZ_FORMAT_NO_STORE.
 *
 * Returns: the format's flags
 * Since: 1.0
 */
NczFormatFlags
ncz_format_type_get_flags (GType format_type)
{
  gpointer klass;
  NczFormatInterface *iface;
  NczFormatFlags flags;

  g_return_val_if_fail (g_type_is_a (format_type, NCZ_TYPE_FORMAT), NCZ_FORMAT_FLAGS_NONE);
  g_return_val_if_fail (G_TYPE_IS_CLASSED (format_type), NCZ_FORMAT_FLAGS_NONE);

  klass = g_type_class_ref (format_type);
  iface = g_type_interface_peek (klass, NCZ_TYPE_FORMAT);
  flags = iface ? iface->flags : NCZ_FORMAT_FLAGS_NONE;
  g_type_class_unref (klass);
  return flags;
}

static gboolean
hook_failed (NczFormat *self, const char *hook, GError *local_error, GError **error)
{
  if (local_error == NULL)
    g_set_error (&local_error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                 "format '%s' refused a definition (%s) without saying why",
                 G_OBJECT_TYPE_NAME (self), hook);
  g_propagate_error (error, local_error);
  return FALSE;
}

/**
 * ncz_format_group_defined:
 * @self: a format backend
 * @group: the group
 * @change: what happened
 * @error: return location for a #GError
 *
 * Tells the format that @group was defined. The model calls it; a
 * format without the hook accepts every definition.
 *
 * Returns: %TRUE if the format took the definition
 * Since: 1.0
 */
gboolean
ncz_format_group_defined (NczFormat *self, NczGroup *group, NczDefinitionChange change,
                          GError **error)
{
  NczFormatInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_GROUP (group), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->group_defined == NULL)
    return TRUE;
  if (!iface->group_defined (self, group, change, &local_error))
    return hook_failed (self, "group", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

/**
 * ncz_format_dimension_defined:
 * @self: a format backend
 * @dimension: the dimension
 * @change: what happened
 * @error: return location for a #GError
 *
 * Tells the format that @dimension was defined. The model calls it; a
 * format without the hook accepts every definition.
 *
 * Returns: %TRUE if the format took the definition
 * Since: 1.0
 */
gboolean
ncz_format_dimension_defined (NczFormat *self, NczDimension *dimension,
                              NczDefinitionChange change, GError **error)
{
  NczFormatInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_DIMENSION (dimension), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->dimension_defined == NULL)
    return TRUE;
  if (!iface->dimension_defined (self, dimension, change, &local_error))
    return hook_failed (self, "dimension", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

/**
 * ncz_format_variable_defined:
 * @self: a format backend
 * @variable: the variable
 * @change: what happened
 * @error: return location for a #GError
 *
 * Tells the format that @variable was defined or that its chunking, fill
 * value, endianness, filters or quantization changed. The model calls
 * it; a format without the hook accepts every definition.
 *
 * Returns: %TRUE if the format took the definition
 * Since: 1.0
 */
gboolean
ncz_format_variable_defined (NczFormat *self, NczVariable *variable,
                             NczDefinitionChange change, GError **error)
{
  NczFormatInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->variable_defined == NULL)
    return TRUE;
  if (!iface->variable_defined (self, variable, change, &local_error))
    return hook_failed (self, "variable", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

/**
 * ncz_format_attribute_defined:
 * @self: a format backend
 * @owner: the #NczGroup or #NczVariable the attribute belongs to
 * @name: the attribute's name
 * @attribute: (nullable): the attribute as set, %NULL when removed
 * @change: what happened
 * @error: return location for a #GError
 *
 * Tells the format that an attribute was set or removed. The model calls
 * it; a format without the hook accepts every definition.
 *
 * Returns: %TRUE if the format took the definition
 * Since: 1.0
 */
gboolean
ncz_format_attribute_defined (NczFormat *self, GObject *owner, const char *name,
                              NczAttribute *attribute, NczDefinitionChange change,
                              GError **error)
{
  NczFormatInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), FALSE);
  g_return_val_if_fail (NCZ_IS_GROUP (owner) || NCZ_IS_VARIABLE (owner), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (attribute == NULL || NCZ_IS_ATTRIBUTE (attribute), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->attribute_defined == NULL)
    return TRUE;
  if (!iface->attribute_defined (self, owner, name, attribute, change, &local_error))
    return hook_failed (self, "attribute", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

/* The format to tell, or NULL while loading, without a format, or when
 * the format has no hook at @hook_offset in its interface: the model
 * calls these for every definition, so a format without hooks costs a
 * look at the vtable. */
static NczFormat *
hook_target (NczDataset *dataset, gsize hook_offset)
{
  NczFormat *format;

  if (dataset == NULL || ncz_dataset_is_loading (dataset))
    return NULL;
  format = ncz_dataset_get_format (dataset);
  if (format == NULL ||
      G_STRUCT_MEMBER (gpointer, NCZ_FORMAT_GET_IFACE (format), hook_offset) == NULL)
    return NULL;
  return format;
}

gboolean
ncz_format_notify_group (NczGroup *group, NczDefinitionChange change, GError **error)
{
  NczFormat *format = hook_target (ncz_group_peek_dataset (group),
                                   G_STRUCT_OFFSET (NczFormatInterface, group_defined));
  return format == NULL || ncz_format_group_defined (format, group, change, error);
}

gboolean
ncz_format_notify_dimension (NczDimension *dimension, NczDefinitionChange change,
                             GError **error)
{
  NczGroup *group = ncz_dimension_get_group (dimension);
  NczFormat *format = group ? hook_target (ncz_group_peek_dataset (group),
                                           G_STRUCT_OFFSET (NczFormatInterface,
                                                            dimension_defined))
                            : NULL;
  return format == NULL || ncz_format_dimension_defined (format, dimension, change, error);
}

gboolean
ncz_format_notify_variable (NczVariable *variable, NczDefinitionChange change,
                            GError **error)
{
  NczFormat *format = hook_target (ncz_variable_get_dataset (variable),
                                   G_STRUCT_OFFSET (NczFormatInterface, variable_defined));
  return format == NULL || ncz_format_variable_defined (format, variable, change, error);
}

gboolean
ncz_format_notify_attribute (gpointer owner, const char *name, NczAttribute *attribute,
                             NczDefinitionChange change, GError **error)
{
  /* both final types: an exact comparison, cheaper than a type check */
  NczDataset *dataset = G_OBJECT_TYPE (owner) == NCZ_TYPE_GROUP
                        ? ncz_group_peek_dataset (owner) : ncz_variable_get_dataset (owner);
  NczFormat *format = hook_target (dataset, G_STRUCT_OFFSET (NczFormatInterface,
                                                             attribute_defined));
  return format == NULL ||
         ncz_format_attribute_defined (format, owner, name, attribute, change, error);
}

/**
 * ncz_format_describe_variable:
 * @self: a format backend
 * @variable: a variable
 *
 * Lists the virtual attributes the backend reports for @variable (such as
 * `_Storage`, `_ChunkSizes`, `_Filter` and `_Codecs`), as `ncz-dump -s`
 * shows them.
 *
 * Returns: (transfer container) (element-type NczAttribute): the
 *   virtual attributes the backend reports for @variable
 * Since: 1.0
 */
GPtrArray *
ncz_format_describe_variable (NczFormat *self, NczVariable *variable)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->describe_variable == NULL)
    return g_ptr_array_new_with_free_func (g_object_unref);
  return iface->describe_variable (self, variable);
}

/**
 * ncz_format_describe_dataset:
 * @self: a format backend
 * @dataset: a dataset
 *
 * Lists the virtual attributes the backend reports for the dataset's root
 * group (such as `_NCProperties`): read-only facts of the format `ncz-dump
 * -s` shows, not stored as attributes.
 *
 * Returns: (transfer container) (element-type NczAttribute): the
 *   virtual attributes the backend reports for the root group
 * Since: 1.0
 */
GPtrArray *
ncz_format_describe_dataset (NczFormat *self, NczDataset *dataset)
{
  NczFormatInterface *iface;
  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->describe_dataset == NULL)
    return g_ptr_array_new_with_free_func (g_object_unref);
  return iface->describe_dataset (self, dataset);
}
