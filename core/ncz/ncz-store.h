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
#include <ncz/ncz-url.h>

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

/**
 * NczStoreRange:
 * @offset: the first byte of the range
 * @length: how many bytes, or -1 for all bytes to the end of the object
 *
 * A byte range of an object, for [method@Ncz.Store.read_ranges].
 *
 * Since: 1.0
 */
typedef struct {
  guint64 offset;
  gint64 length;
} NczStoreRange;

#define NCZ_TYPE_STORE_RANGE (ncz_store_range_get_type ())
NCZ_AVAILABLE_IN_ALL
GType ncz_store_range_get_type (void) G_GNUC_CONST;
NCZ_AVAILABLE_IN_ALL
NczStoreRange *ncz_store_range_copy (const NczStoreRange *range);
NCZ_AVAILABLE_IN_ALL
void ncz_store_range_free (NczStoreRange *range);

/**
 * NCZ_STORE_DEFAULT_IO_DEPTH:
 *
 * How many requests the chunk engine keeps in flight on a store that
 * gives no hint of its own ([method@Ncz.Store.get_io_depth_hint]).
 *
 * Since: 1.0
 */
#define NCZ_STORE_DEFAULT_IO_DEPTH 16

/**
 * NCZ_STORE_MAX_IO_DEPTH:
 *
 * The largest number of requests one call keeps in flight.
 *
 * Since: 1.0
 */
#define NCZ_STORE_MAX_IO_DEPTH 256

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
 * @read_many: optional; read several whole objects at once, a %NULL
 *   element for each missing one (network drivers keep many requests in
 *   flight). The default reads them on Ncz's I/O threads, as many at once
 *   as there are keys (up to %NCZ_STORE_MAX_IO_DEPTH).
 * @write_many: optional; write several objects at once. The default runs
 *   @write for each on Ncz's I/O threads, as many at once as there are
 *   objects (up to %NCZ_STORE_MAX_IO_DEPTH).
 * @commit: optional; for a store opened with %NCZ_STORE_CREATE, makes what
 *   was written replace what was at the URL before. A driver that can
 *   stage a replacement (a directory or an archive written beside the old
 *   one) keeps the old dataset intact until then. For a store opened for
 *   writing without %NCZ_STORE_CREATE, stores what the driver held back
 *   (an archive rewritten beside the old one). The default does nothing:
 *   the objects were written in place.
 * @discard: optional; for a store opened with %NCZ_STORE_CREATE and not
 *   committed, drops what was written so that what was at the URL before
 *   stays as it was, where the driver staged it. The default does nothing.
 * @read_ranges: optional; read several byte ranges of one object (an HTTP
 *   multi-range request). The default calls @read once per range.
 * @list_page: optional; one page of the names @list gives: at most
 *   @max_names names after the continuation @token (%NULL for the first
 *   page), and in @next_token the token of the next page or %NULL after
 *   the last. The default lists everything with @list and cuts it.
 * @get_io_depth_hint: optional; how many requests in flight suit the
 *   store (a local store whose reads are memory copies says few, a remote
 *   one many). The default says %NCZ_STORE_DEFAULT_IO_DEPTH.
 * @read_async: optional; the default runs @read in a #GTask thread
 * @read_finish: finishes @read_async
 * @read_ranges_async: optional; the default runs @read_ranges in a thread
 * @read_ranges_finish: finishes @read_ranges_async
 * @read_many_async: optional; the default runs @read_many in a thread
 * @read_many_finish: finishes @read_many_async
 * @write_async: optional; the default runs @write in a thread
 * @write_finish: finishes @write_async
 * @remove_async: optional; the default runs @remove in a thread
 * @remove_finish: finishes @remove_async
 * @get_length_async: optional; the default runs @get_length in a thread
 * @get_length_finish: finishes @get_length_async
 * @list_page_async: optional; the default runs @list_page in a thread
 * @list_page_finish: finishes @list_page_async
 * @is_remote: optional; whether each request crosses a network, so that
 *   listings and small reads are costly (formats then consolidate their
 *   metadata by default). The default says %FALSE.
 * @lock_key: optional; takes, across processes, the lock that guards
 *   @key's read-modify-write (%NULL @key: the dataset's metadata lock),
 *   waiting at most @timeout_ms (-1: without limit), or fails with
 *   %NCZ_STORAGE_ERROR_LOCKED naming the holder. The default takes no
 *   lock and succeeds: a store without locks guards its objects with
 *   @write_if, or has a single writer.
 * @unlock_key: releases what @lock_key took; required with it
 * @read_tagged: optional; reads an object whole and gives its version
 *   tag (an HTTP ETag), which a later @write_if compares. The default
 *   reads it and gives no tag.
 * @write_if: optional; writes an object only if it is still the version
 *   @tag names (%NULL @tag: only if it does not exist), else fails with
 *   %NCZ_STORAGE_ERROR_CONFLICT. The default writes unconditionally.
 *
 * Keys are `/`-separated paths relative to the dataset root, without a
 * leading `/` (`.zgroup`, `grp/var/.zarray`, `grp/var/0.1`). The empty
 * string is the root prefix. Implementations may be called from several
 * threads at once.
 *
 * Every storage call has an asynchronous pair in the pattern of
 * #GInputStream: the interface's defaults run the synchronous vfunc in a
 * #GTask thread, and a driver with real asynchronous I/O (a network
 * client) overrides them. A driver that overrides one of a pair overrides
 * both. The wrappers check keys and arguments before a driver sees them.
 *
 * The interface declares the construct-only properties "url" (the
 * #NczUrl the store was opened from, %NULL for stores made in memory)
 * and "flags" (#NczStoreFlags); every implementation provides both, most
 * simply with g_object_class_override_property().
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

  GPtrArray * (*read_ranges) (NczStore            *self,
                              const char          *key,
                              const NczStoreRange *ranges,
                              guint                n_ranges,
                              GCancellable        *cancellable,
                              GError             **error);
  char **   (*list_page)  (NczStore      *self,
                           const char    *prefix,
                           const char    *token,
                           guint          max_names,
                           char         **next_token,
                           GCancellable  *cancellable,
                           GError       **error);
  guint     (*get_io_depth_hint) (NczStore *self);

  void      (*read_async)  (NczStore            *self,
                            const char          *key,
                            guint64              offset,
                            gint64               length,
                            int                  io_priority,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data);
  GBytes *  (*read_finish) (NczStore      *self,
                            GAsyncResult  *result,
                            GError       **error);
  void      (*read_ranges_async)  (NczStore            *self,
                                   const char          *key,
                                   const NczStoreRange *ranges,
                                   guint                n_ranges,
                                   int                  io_priority,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  GPtrArray * (*read_ranges_finish) (NczStore      *self,
                                     GAsyncResult  *result,
                                     GError       **error);
  void      (*read_many_async)  (NczStore            *self,
                                 const char * const  *keys,
                                 int                  io_priority,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
  GPtrArray * (*read_many_finish) (NczStore      *self,
                                   GAsyncResult  *result,
                                   GError       **error);
  void      (*write_async)  (NczStore            *self,
                             const char          *key,
                             GBytes              *data,
                             int                  io_priority,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data);
  gboolean  (*write_finish) (NczStore      *self,
                             GAsyncResult  *result,
                             GError       **error);
  void      (*remove_async)  (NczStore            *self,
                              const char          *key,
                              int                  io_priority,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data);
  gboolean  (*remove_finish) (NczStore      *self,
                              GAsyncResult  *result,
                              GError       **error);
  void      (*get_length_async)  (NczStore            *self,
                                  const char          *key,
                                  int                  io_priority,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data);
  gboolean  (*get_length_finish) (NczStore      *self,
                                  GAsyncResult  *result,
                                  guint64       *length,
                                  GError       **error);
  void      (*list_page_async)  (NczStore            *self,
                                 const char          *prefix,
                                 const char          *token,
                                 guint                max_names,
                                 int                  io_priority,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
  char **   (*list_page_finish) (NczStore      *self,
                                 GAsyncResult  *result,
                                 char         **next_token,
                                 GError       **error);
  gboolean  (*is_remote) (NczStore *self);
  gboolean  (*lock_key)   (NczStore      *self,
                           const char    *key,
                           gint64         timeout_ms,
                           GCancellable  *cancellable,
                           GError       **error);
  void      (*unlock_key) (NczStore      *self,
                           const char    *key);
  GBytes *  (*read_tagged) (NczStore     *self,
                            const char   *key,
                            char        **tag,
                            GCancellable *cancellable,
                            GError      **error);
  gboolean  (*write_if)   (NczStore      *self,
                           const char    *key,
                           GBytes        *data,
                           const char    *tag,
                           GCancellable  *cancellable,
                           GError       **error);

  /*< private >*/
  gpointer padding[7];
};

NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read (NczStore *self, const char *key,
                        GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_read_async (NczStore *self, const char *key, int io_priority,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_finish (NczStore *self, GAsyncResult *result,
                               GError **error);

NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_range (NczStore *self, const char *key,
                              guint64 offset, gint64 length,
                              GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_read_range_async (NczStore *self, const char *key,
                                 guint64 offset, gint64 length, int io_priority,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_range_finish (NczStore *self, GAsyncResult *result,
                                     GError **error);

NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_store_read_ranges (NczStore *self, const char *key,
                                  const NczStoreRange *ranges, guint n_ranges,
                                  GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_read_ranges_async (NczStore *self, const char *key,
                                  const NczStoreRange *ranges, guint n_ranges,
                                  int io_priority, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_store_read_ranges_finish (NczStore *self, GAsyncResult *result,
                                         GError **error);

NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_store_read_many (NczStore *self, const char * const *keys,
                                GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_read_many_async (NczStore *self, const char * const *keys,
                                int io_priority, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_store_read_many_finish (NczStore *self, GAsyncResult *result,
                                       GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write (NczStore *self, const char *key, GBytes *data,
                          GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_write_async (NczStore *self, const char *key, GBytes *data,
                            int io_priority, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write_finish (NczStore *self, GAsyncResult *result,
                                 GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write_many (NczStore *self, const char * const *keys,
                               GBytes * const *data, guint n,
                               GCancellable *cancellable, GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_remove (NczStore *self, const char *key,
                           GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_remove_async (NczStore *self, const char *key, int io_priority,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_remove_finish (NczStore *self, GAsyncResult *result,
                                  GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_get_length (NczStore *self, const char *key,
                               guint64 *length,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_get_length_async (NczStore *self, const char *key, int io_priority,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_get_length_finish (NczStore *self, GAsyncResult *result,
                                      guint64 *length, GError **error);

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
char **ncz_store_list_page (NczStore *self, const char *prefix,
                            const char *token, guint max_names,
                            char **next_token,
                            GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_list_page_async (NczStore *self, const char *prefix,
                                const char *token, guint max_names,
                                int io_priority, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
NCZ_AVAILABLE_IN_ALL
char **ncz_store_list_page_finish (NczStore *self, GAsyncResult *result,
                                   char **next_token, GError **error);

NCZ_AVAILABLE_IN_ALL
guint ncz_store_get_io_depth_hint (NczStore *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_is_remote (NczStore *self);
NCZ_AVAILABLE_IN_ALL
NczUrl *ncz_store_get_url (NczStore *self);
NCZ_AVAILABLE_IN_ALL
NczStoreFlags ncz_store_get_flags (NczStore *self);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_lock_key (NczStore *self, const char *key, gint64 timeout_ms,
                             GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_store_unlock_key (NczStore *self, const char *key);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_has_locks (NczStore *self);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_store_read_tagged (NczStore *self, const char *key, char **tag,
                               GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_write_if (NczStore *self, const char *key, GBytes *data,
                             const char *tag, GCancellable *cancellable,
                             GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_has_conditional_writes (NczStore *self);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_store_key_is_valid (const char *key, gboolean allow_root,
                                 GError **error);

G_END_DECLS
