/* ncz-store.h: the storage driver (zmap) interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

/**
 * NczStoreFlags:
 * @NCZ_STORE_READ: open an existing store for reading
 * @NCZ_STORE_WRITE: allow writes
 * @NCZ_STORE_CREATE: create the store, replacing whatever was at the URL
 *
 * How a store is opened; passed as the "flags" construct property.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  NCZ_STORE_READ = 0,
  NCZ_STORE_WRITE = 1 << 0,
  NCZ_STORE_CREATE = 1 << 1,
} NczStoreFlags;

#define NCZ_TYPE_STORE (ncz_store_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (NczStore, ncz_store, NCZ, STORE, GObject)

/**
 * NczStoreInterface:
 * @read: read an object, or the byte range @offset..@offset+@length of it
 *   (@length of -1 means to the end)
 * @write: write (replace) an object whole
 * @remove: delete an object or every object under a prefix
 * @get_length: the length of an object, or %NCZ_STORAGE_ERROR_NOT_FOUND
 * @list: the immediate child names under a prefix
 * @read_many: optional; read several objects at once (network drivers keep
 *   many requests in flight). The default reads them one by one.
 * @write_many: optional; write several objects at once. The default runs
 *   @write for each on Ncz's worker pool.
 * @commit: optional; for a store opened with %NCZ_STORE_CREATE, makes what
 *   was written replace what was at the URL before. A driver that can
 *   stage a replacement (a directory or an archive written beside the old
 *   one) keeps the old dataset intact until then. The default does
 *   nothing: the objects were written in place.
 * @discard: optional; for a store opened with %NCZ_STORE_CREATE and not
 *   committed, drops what was written so that what was at the URL before
 *   stays as it was, where the driver staged it. The default does nothing.
 *
 * Keys are `/`-separated paths relative to the dataset root, without a
 * leading `/` (`.zgroup`, `grp/var/.zarray`, `grp/var/0.1`). The empty
 * string is the root prefix. Implementations may be called from several
 * threads at once.
 *
 * Since: 1.0
 */
struct _NczStoreInterface
{
  GTypeInterface g_iface;

  GBytes *  (*read)       (NczStore      *self,
                           const char    *key,
                           guint64        offset,
                           gint64         length,
                           GCancellable  *cancellable,
                           GError       **error);
  gboolean  (*write)      (NczStore      *self,
                           const char    *key,
                           GBytes        *data,
                           GCancellable  *cancellable,
                           GError       **error);
  gboolean  (*remove)     (NczStore      *self,
                           const char    *key,
                           GCancellable  *cancellable,
                           GError       **error);
  gboolean  (*get_length) (NczStore      *self,
                           const char    *key,
                           guint64       *length,
                           GCancellable  *cancellable,
                           GError       **error);
  char **   (*list)       (NczStore      *self,
                           const char    *prefix,
                           GCancellable  *cancellable,
                           GError       **error);
  GPtrArray * (*read_many) (NczStore           *self,
                            const char * const *keys,
                            GCancellable       *cancellable,
                            GError            **error);
  gboolean  (*write_many) (NczStore           *self,
                           const char * const *keys,
                           GBytes * const     *data,
                           guint               n,
                           GCancellable       *cancellable,
                           GError            **error);

  gboolean  (*commit)     (NczStore           *self,
                           GCancellable       *cancellable,
                           GError            **error);
  void      (*discard)    (NczStore           *self);
  /*< private >*/
  gpointer padding[5];
};

NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read (NczStore *self, const char *key,
                        GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_range (NczStore *self, const char *key,
                              guint64 offset, gint64 length,
                              GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_store_read_many (NczStore *self, const char * const *keys,
                                GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_read_async (NczStore *self, const char *key,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_finish (NczStore *self, GAsyncResult *result,
                               GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write (NczStore *self, const char *key, GBytes *data,
                          GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write_many (NczStore *self, const char * const *keys,
                               GBytes * const *data, guint n,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_remove (NczStore *self, const char *key,
                           GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_get_length (NczStore *self, const char *key,
                               guint64 *length,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_commit (NczStore *self, GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_discard (NczStore *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_exists (NczStore *self, const char *key,
                           GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
char **ncz_store_list (NczStore *self, const char *prefix,
                       GCancellable *cancellable, GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_key_is_valid (const char *key, gboolean allow_root,
                                 GError **error);

G_END_DECLS
