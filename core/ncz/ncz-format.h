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

/**
 * NczFormatFlags:
 * @NCZ_FORMAT_FLAGS_NONE: no flags
 * @NCZ_FORMAT_NO_STORE: the format does its own I/O (HDF5 on a file): the
 *   open path creates it without opening a store, with a %NULL "store"
 *
 * What a format backend needs, set in #NczFormatInterface.flags and read
 * before an instance exists with ncz_format_type_get_flags().
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  NCZ_FORMAT_FLAGS_NONE = 0,
  NCZ_FORMAT_NO_STORE = 1 << 0,
} NczFormatFlags;

/**
 * NczDefinitionChange:
 * @NCZ_DEFINITION_ADDED: the object was defined (an attribute set, new or
 *   replacing one of the same name)
 * @NCZ_DEFINITION_CHANGED: a property of the object changed (a variable's
 *   chunking, fill value, filters; an attribute's values)
 * @NCZ_DEFINITION_REMOVED: the object was deleted (attributes)
 *
 * What happened to a definition, for the definition hooks of
 * #NczFormatInterface.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_DEFINITION_ADDED,
  NCZ_DEFINITION_CHANGED,
  NCZ_DEFINITION_REMOVED,
} NczDefinitionChange;

#define NCZ_TYPE_FORMAT (ncz_format_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (NczFormat, ncz_format, NCZ, FORMAT, GObject)

/**
 * NczChunkUpdateFunc:
 * @old: (nullable): the chunk as stored now, decoded, or %NULL if it was
 *   never written
 * @user_data: the data passed to ncz_format_update_chunk()
 * @error: return location for a #GError
 *
 * Builds the new content of a chunk from its stored one.
 *
 * Returns: (transfer full) (nullable): the full chunk to store, or %NULL
 *   with @error set
 * Since: 1.0
 */
typedef GBytes *(*NczChunkUpdateFunc) (GBytes *old, gpointer user_data, GError **error);

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
 * @flags: what the format needs (#NczFormatFlags), set in the interface
 *   init function
 * @read_chunks: optional; return the decoded chunks at @n_chunks chunk
 *   indices (@chunk_indices holds @n_chunks times the variable's rank
 *   values, one index after another), a %NULL element for each chunk
 *   never written, as @read_chunk would one by one. A format coalesces
 *   them as it can (many chunks of one shard in one ranged read) and keeps
 *   the requests in flight together (ncz_store_read_many()). The chunk
 *   engine calls it with batches of up to the dataset's I/O depth. The
 *   default calls @read_chunk for each. May be called from several
 *   threads at once.
 * @group_defined: optional definition hook: a group was defined
 * @dimension_defined: optional definition hook: a dimension was defined
 * @variable_defined: optional definition hook: a variable was defined, or
 *   its chunking, fill value, endianness, filters or quantization changed
 * @attribute_defined: optional definition hook: an attribute of @owner (a
 *   #NczGroup or #NczVariable) named @name was set (@attribute is the new
 *   one) or removed (@attribute is %NULL)
 * @write_chunks: optional; encode and store @n_chunks full chunks (as
 *   @write_chunk does one) at the indices of @chunk_indices (@n_values,
 *   checked by the wrapper, is @n_chunks times the rank), keeping the
 *   requests in flight together (ncz_store_write_many()). The chunk
 *   engine calls it with batches of up to the dataset's I/O depth. The
 *   default calls @write_chunk for each. May be called from several
 *   threads at once.
 * @update_chunk: optional; the read-modify-write of a chunk written in
 *   part: reads the chunk at @chunk_index (decoded, as @read_chunk gives
 *   it, or %NULL if never written), calls @func on it and stores what
 *   @func returns, so that a writer in another process updating the same
 *   chunk at the same time loses neither update (a lock of the store, or
 *   a conditional write retried on conflict; see docs/concurrency.md).
 *   @func may be called more than once. The default reads and writes
 *   with @read_chunk and @write_chunk, which guards against nothing.
 * @query_chunks: optional; what is stored of @n_chunks chunks at the
 *   indices of @chunk_indices (as for @read_chunks): a #GArray of
 *   @n_chunks #gint64, the size in bytes of each chunk as stored
 *   (compressed), or -1 for a chunk never written. A format keeps the
 *   requests in flight together where it can. The default fails with
 *   %NCZ_BACKEND_ERROR_UNSUPPORTED. May be called from several threads
 *   at once.
 *
 * A format backend. Instances are created per dataset with the construct
 * properties "url" (#NczUrl) and "store" (#NczStore, %NULL for formats
 * that do their own I/O, whose @flags hold %NCZ_FORMAT_NO_STORE).
 *
 * The definition hooks let a format that is not a key/value store (HDF5)
 * create objects as they are defined, rather than at @sync. They are
 * called after the model took the definition, not while a dataset is
 * being loaded by @open; a hook that fails makes the defining call fail
 * with its error (the model keeps the definition). Every vfunc is reached
 * through its public wrapper (ncz_format_read_chunks(), ...).
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

  NczFormatFlags flags;

  GPtrArray *  (*read_chunks) (NczFormat     *self,
                               NczVariable   *variable,
                               const guint64 *chunk_indices,
                               guint          n_chunks,
                               GCancellable  *cancellable,
                               GError       **error);

  gboolean     (*group_defined)     (NczFormat           *self,
                                     NczGroup            *group,
                                     NczDefinitionChange  change,
                                     GError             **error);
  gboolean     (*dimension_defined) (NczFormat           *self,
                                     NczDimension        *dimension,
                                     NczDefinitionChange  change,
                                     GError             **error);
  gboolean     (*variable_defined)  (NczFormat           *self,
                                     NczVariable         *variable,
                                     NczDefinitionChange  change,
                                     GError             **error);
  gboolean     (*attribute_defined) (NczFormat           *self,
                                     GObject             *owner,
                                     const char          *name,
                                     NczAttribute        *attribute,
                                     NczDefinitionChange  change,
                                     GError             **error);

  gboolean     (*write_chunks) (NczFormat      *self,
                                NczVariable    *variable,
                                const guint64  *chunk_indices,
                                gsize           n_values,
                                GBytes * const *data,
                                guint           n_chunks,
                                GCancellable   *cancellable,
                                GError        **error);
  gboolean     (*update_chunk) (NczFormat          *self,
                                NczVariable        *variable,
                                const guint64      *chunk_index,
                                NczChunkUpdateFunc  func,
                                gpointer            user_data,
                                GCancellable       *cancellable,
                                GError            **error);
  GArray *     (*query_chunks) (NczFormat      *self,
                                NczVariable    *variable,
                                const guint64  *chunk_indices,
                                guint           n_chunks,
                                GCancellable   *cancellable,
                                GError        **error);

  /*< private >*/
  gpointer padding[9];
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
gboolean ncz_format_update_chunk (NczFormat *self, NczVariable *variable,
                                  const guint64 *chunk_index, NczChunkUpdateFunc func,
                                  gpointer user_data, GCancellable *cancellable,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_write_chunk (NczFormat *self, NczVariable *variable,
                                 const guint64 *chunk_index, GBytes *data,
                                 GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_format_read_chunks (NczFormat *self, NczVariable *variable,
                                   const guint64 *chunk_indices, gsize n_values,
                                   guint n_chunks,
                                   GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_write_chunks (NczFormat *self, NczVariable *variable,
                                  const guint64 *chunk_indices, gsize n_values,
                                  GBytes * const *data, guint n_chunks,
                                  GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GArray *ncz_format_query_chunks (NczFormat *self, NczVariable *variable,
                                 const guint64 *chunk_indices, gsize n_values,
                                 guint n_chunks,
                                 GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_read_slab (NczFormat *self, NczVariable *variable,
                               const guint64 *start, const guint64 *count,
                               const gint64 *stride, gpointer buffer,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_write_slab (NczFormat *self, NczVariable *variable,
                                const guint64 *start, const guint64 *count,
                                const gint64 *stride, gconstpointer buffer,
                                GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
NczFormatFlags ncz_format_get_flags (NczFormat *self);
NCZ_AVAILABLE_IN_ALL
NczFormatFlags ncz_format_type_get_flags (GType format_type);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_group_defined (NczFormat *self, NczGroup *group,
                                   NczDefinitionChange change, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_dimension_defined (NczFormat *self, NczDimension *dimension,
                                       NczDefinitionChange change, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_variable_defined (NczFormat *self, NczVariable *variable,
                                      NczDefinitionChange change, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_format_attribute_defined (NczFormat *self, GObject *owner,
                                       const char *name, NczAttribute *attribute,
                                       NczDefinitionChange change, GError **error);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_format_describe_variable (NczFormat *self, NczVariable *variable);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_format_describe_dataset (NczFormat *self, NczDataset *dataset);

G_END_DECLS
