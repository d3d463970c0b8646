/* ncz-format.h: the format backend interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-dataset.h>
#include <ncz/ncz-store.h>
#include <ncz/ncz-url.h>

G_BEGIN_DECLS

#define NCZ_TYPE_FORMAT (ncz_format_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (NczFormat, ncz_format, NCZ, FORMAT, GObject)

/**
 * NczFormatInterface:
 * @get_name: short name of the format in use ("nczarr", "zarr", "hdf5")
 * @open: read the dataset's metadata into the model under @dataset's root group
 * @create: start a new, empty dataset
 * @sync: store the model's metadata
 * @close: release resources; called once, after a final @sync when writable
 * @read_chunk: return the decoded chunk at @chunk_index as native-order,
 *   C-order bytes of the full chunk shape (storage element size per
 *   element); %NULL with %NCZ_STORAGE_ERROR_NOT_FOUND if it was never
 *   written. May be called from several threads at once.
 * @write_chunk: encode and store a full chunk given as @read_chunk returns it
 * @read_slab: optional; a backend that does its own hyperslab I/O (HDF5)
 *   sets this and @write_slab, and the core chunk engine is not used
 * @write_slab: optional; see @read_slab
 * @describe_variable: optional; return the virtual attributes ncdump -s
 *   shows for a variable (`_Storage`, `_Filter`, `_Codecs`, ...) that the
 *   core cannot derive itself, as a list of #NczAttribute
 * @describe_dataset: optional; the same for the dataset's root group
 *   (`_NCProperties`, `_SuperblockVersion`, `_Format`, ...)
 *
 * A format backend. Instances are created per dataset with the construct
 * properties "url" (#NczUrl) and "store" (#NczStore, %NULL for formats
 * that do their own I/O).
 *
 * Since: 1.0
 */
struct _NczFormatInterface
{
  GTypeInterface g_iface;

  const char * (*get_name)    (NczFormat     *self);
  gboolean     (*open)        (NczFormat     *self,
                               NczDataset    *dataset,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*create)      (NczFormat     *self,
                               NczDataset    *dataset,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*sync)        (NczFormat     *self,
                               NczDataset    *dataset,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*close)       (NczFormat     *self,
                               NczDataset    *dataset,
                               GCancellable  *cancellable,
                               GError       **error);
  GBytes *     (*read_chunk)  (NczFormat     *self,
                               NczVariable   *variable,
                               const guint64 *chunk_index,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*write_chunk) (NczFormat     *self,
                               NczVariable   *variable,
                               const guint64 *chunk_index,
                               GBytes        *data,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*read_slab)   (NczFormat     *self,
                               NczVariable   *variable,
                               const guint64 *start,
                               const guint64 *count,
                               const gint64  *stride,
                               gpointer       buffer,
                               GCancellable  *cancellable,
                               GError       **error);
  gboolean     (*write_slab)  (NczFormat     *self,
                               NczVariable   *variable,
                               const guint64 *start,
                               const guint64 *count,
                               const gint64  *stride,
                               gconstpointer  buffer,
                               GCancellable  *cancellable,
                               GError       **error);
  GPtrArray *  (*describe_variable) (NczFormat   *self,
                                     NczVariable *variable);
  GPtrArray *  (*describe_dataset)  (NczFormat   *self,
                                     NczDataset  *dataset);

  /*< private >*/
  gpointer padding[7];
};

NCZ_AVAILABLE_IN_ALL
const char *ncz_format_get_name (NczFormat *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_open (NczFormat *self, NczDataset *dataset,
                          GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_create (NczFormat *self, NczDataset *dataset,
                            GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_sync (NczFormat *self, NczDataset *dataset,
                          GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_close (NczFormat *self, NczDataset *dataset,
                           GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_format_read_chunk (NczFormat *self, NczVariable *variable,
                               const guint64 *chunk_index,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_write_chunk (NczFormat *self, NczVariable *variable,
                                 const guint64 *chunk_index, GBytes *data,
                                 GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_format_describe_variable (NczFormat *self, NczVariable *variable);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_format_describe_dataset (NczFormat *self, NczDataset *dataset);

G_END_DECLS
