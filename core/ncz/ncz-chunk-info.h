/* ncz-chunk-info.h: what is stored of a variable: its chunks, their
 * stored sizes, and the plugins providing its filters
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-version-macros.h>
#include <ncz/ncz-variable.h>

G_BEGIN_DECLS

#define NCZ_TYPE_CHUNK_INFO (ncz_chunk_info_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczChunkInfo, ncz_chunk_info, NCZ, CHUNK_INFO, GObject)

NCZ_AVAILABLE_IN_ALL
NczChunkInfo *ncz_chunk_info_new (const guint64 *index, guint n_dims, gboolean stored,
                                  guint64 stored_size, guint64 raw_size);
NCZ_AVAILABLE_IN_ALL
const guint64 *ncz_chunk_info_get_index (NczChunkInfo *self, guint *n_dims);
NCZ_AVAILABLE_IN_ALL
GVariant *ncz_chunk_info_get_index_variant (NczChunkInfo *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_chunk_info_get_stored (NczChunkInfo *self);
NCZ_AVAILABLE_IN_ALL
guint64 ncz_chunk_info_get_stored_size (NczChunkInfo *self);
NCZ_AVAILABLE_IN_ALL
guint64 ncz_chunk_info_get_raw_size (NczChunkInfo *self);

NCZ_AVAILABLE_IN_ALL
guint64 *ncz_variable_get_chunk_grid (NczVariable *self, guint *n_dims);

NCZ_AVAILABLE_IN_ALL
GListModel *ncz_variable_query_chunks (NczVariable *self,
                                       const guint64 *start, guint n_start,
                                       const guint64 *count, guint n_count,
                                       GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_variable_query_chunks_async (NczVariable *self,
                                      const guint64 *start, guint n_start,
                                      const guint64 *count, guint n_count,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_variable_query_chunks_finish (NczVariable *self, GAsyncResult *result,
                                              GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_get_storage_size (NczVariable *self, guint64 *stored_size,
                                        guint64 *raw_size, guint64 *n_stored,
                                        guint64 *n_chunks, GCancellable *cancellable,
                                        GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_variable_get_storage_size_async (NczVariable *self, GCancellable *cancellable,
                                          GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_get_storage_size_finish (NczVariable *self, GAsyncResult *result,
                                               guint64 *stored_size, guint64 *raw_size,
                                               guint64 *n_stored, guint64 *n_chunks,
                                               GError **error);

NCZ_AVAILABLE_IN_ALL
GVariant *ncz_variable_get_filter_providers (NczVariable *self);

G_END_DECLS
