/* ncz-lock-file.h: locks shared by the processes that write one dataset
 *
 * Part of the module SDK (<ncz/ncz-module.h>): the one place where the
 * stores that live on a file system (file, zip, HDF5) take their locks, so
 * that every store follows the same rules.
 *
 * A lock file sits beside the dataset it protects, in the same directory,
 * named ".NAME.ncz-lock" (ncz_lock_file_path_for()); it is never part of
 * the dataset, so copies, archives and other programs never see it. Its
 * locks are open-file-description byte-range locks (F_OFD_SETLK): they
 * are released when the holder closes the file or dies, they work across
 * threads (each NczLockFile is its own description; threads sharing one
 * are excluded from each other by the NczLockFile itself) and they are
 * forwarded to the server by NFS (v4, and v3 with lockd), where flock()
 * is host-local on older kernels.
 *
 * A lock is a slot: slot 0 (NCZ_LOCK_SLOT_WRITER) is the dataset's
 * metadata or writer lock; a key's slot (ncz_lock_file_slot_for_key())
 * guards the read-modify-write of one object. Slots of different keys may
 * collide (two keys then share one lock), which costs only waiting.
 *
 * The holder of slot 0 records its host name, process id and the time in
 * the file, so that a writer that gave up waiting can name it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(NCZ_ENABLE_MODULE_API) && !defined(NCZ_COMPILATION)
#error "<ncz/ncz-lock-file.h> is part of the module SDK: define NCZ_ENABLE_MODULE_API."
#endif

#include <gio/gio.h>
#include <ncz/ncz-version-macros.h>
#include <ncz/ncz-url.h>

G_BEGIN_DECLS

typedef struct _NczLockFile NczLockFile;

#define NCZ_LOCK_SLOT_WRITER 0

/* The wait used when nobody says otherwise, in milliseconds. */
#define NCZ_LOCK_DEFAULT_TIMEOUT_MS 60000

NCZ_MODULE_API char *ncz_lock_file_path_for (const char *target);
NCZ_MODULE_API NczLockFile *ncz_lock_file_open (const char *path, GError **error);
NCZ_MODULE_API void ncz_lock_file_close (NczLockFile *self);
NCZ_MODULE_API const char *ncz_lock_file_get_path (NczLockFile *self);
NCZ_MODULE_API guint64 ncz_lock_file_slot_for_key (const char *key);
NCZ_MODULE_API gboolean ncz_lock_file_lock (NczLockFile  *self,
                                            guint64       slot,
                                            gboolean      exclusive,
                                            gint64        timeout_ms,
                                            GCancellable *cancellable,
                                            GError      **error);
NCZ_MODULE_API void ncz_lock_file_unlock (NczLockFile *self, guint64 slot);
/* The lock of an object's read-modify-write (@key), or with a %NULL @key
 * the writer/metadata lock: slot 0. */
NCZ_MODULE_API gboolean ncz_lock_file_lock_key (NczLockFile  *self,
                                                const char   *key,
                                                gint64        timeout_ms,
                                                GCancellable *cancellable,
                                                GError      **error);
NCZ_MODULE_API void ncz_lock_file_unlock_key (NczLockFile *self, const char *key);
NCZ_MODULE_API char *ncz_lock_file_describe_holder (NczLockFile *self);
NCZ_MODULE_API gboolean ncz_lock_timeout_from_text (const char *text, gint64 *timeout_ms,
                                                    GError **error);

NCZ_MODULE_API gboolean ncz_lock_timeout_for_url (NczUrl *url, gint64 *timeout_ms,
                                                  GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczLockFile, ncz_lock_file_close)

G_END_DECLS
