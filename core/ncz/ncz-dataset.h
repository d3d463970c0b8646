/* ncz-dataset.h: an open dataset
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-group.h>
#include <ncz/ncz-url.h>
#include <ncz/ncz-store.h>

G_BEGIN_DECLS

typedef struct _NczFormat NczFormat;

/**
 * NczOpenFlags:
 * @NCZ_OPEN_READ: open read-only
 * @NCZ_OPEN_WRITE: open for reading and writing
 * @NCZ_OPEN_WRITE_DATA: open for reading and writing data only: the
 *   dataset's metadata is never written, and defining or changing a
 *   dimension, variable or attribute, or a write that would grow an
 *   unlimited dimension, fails with %NCZ_DATASET_ERROR_READ_ONLY. For the
 *   workers of a job whose coordinator defined the dataset and set its
 *   lengths (see docs/concurrency.md). Since: 1.0
 *
 * How ncz_dataset_open() opens a dataset.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  NCZ_OPEN_READ = 0,
  NCZ_OPEN_WRITE = 1 << 0,
  NCZ_OPEN_WRITE_DATA = 1 << 1,
} NczOpenFlags;

/**
 * NczCreateFlags:
 * @NCZ_CREATE_DEFAULT: replace whatever is at the URL
 * @NCZ_CREATE_NO_CLOBBER: fail if something already exists at the URL
 *
 * How ncz_dataset_create() creates a dataset.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  NCZ_CREATE_DEFAULT = 0,
  NCZ_CREATE_NO_CLOBBER = 1 << 0,
} NczCreateFlags;

#define NCZ_TYPE_DATASET (ncz_dataset_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczDataset, ncz_dataset, NCZ, DATASET, GObject)

NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_open (const char *url, NczOpenFlags flags,
                              GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_open_async (const char *url, NczOpenFlags flags,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_open_finish (GAsyncResult *result, GError **error);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_create (const char *url, NczCreateFlags flags,
                                GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_create_async (const char *url, NczCreateFlags flags,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_create_finish (GAsyncResult *result, GError **error);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_open_store (NczStore *store, NczUrl *url,
                                    NczOpenFlags flags,
                                    GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_dataset_create_in_store (NczStore *store, NczUrl *url,
                                         GCancellable *cancellable,
                                         GError **error);

NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_dataset_get_root_group (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
NczUrl *ncz_dataset_get_url (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_dataset_get_url_string (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_dataset_get_format_name (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
NczStore *ncz_dataset_get_store (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
NczFormat *ncz_dataset_get_format (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_dataset_get_io_depth (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_set_io_depth (NczDataset *self, guint io_depth);

/* The CPU workers of the process, shared by every dataset
 * (ncz-parallel.c) */
NCZ_AVAILABLE_IN_ALL
void ncz_set_max_threads (guint n_threads);
NCZ_AVAILABLE_IN_ALL
guint ncz_get_max_threads (void);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_is_writable (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_sync (NczDataset *self, GCancellable *cancellable,
                           GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_sync_async (NczDataset *self, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_sync_finish (NczDataset *self, GAsyncResult *result,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_is_closed (NczDataset *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_refresh (NczDataset *self, GCancellable *cancellable,
                              GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_refresh_async (NczDataset *self, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_refresh_finish (NczDataset *self, GAsyncResult *result,
                                     GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_close (NczDataset *self, GCancellable *cancellable,
                            GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_close_async (NczDataset *self, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dataset_close_finish (NczDataset *self, GAsyncResult *result,
                                   GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_dataset_discard (NczDataset *self);

G_END_DECLS
