/* ncz-format.c: the format backend interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"

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
 * Returns: the name of the format in use
 * Since: 1.0
 */
const char *
ncz_format_get_name (NczFormat *self)
{
  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  return NCZ_FORMAT_GET_IFACE (self)->get_name (self);
}

/**
 * ncz_format_open:
 * @self: a format backend
 * @dataset: the dataset to load
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
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
 * ncz_format_describe_variable:
 * @self: a format backend
 * @variable: a variable
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
