/* ncz-staging.h: what a store stages beside a dataset, and who may remove it
 *
 * Part of the module SDK (<ncz/ncz-module.h>): the one place where the
 * stores that live on a file system (file, zip, HDF5) name what they
 * write beside a dataset before it takes the dataset's place (a staging
 * tree, a new archive, a new file) and decide which of those entries are
 * leftovers of writers that died, so that every store follows the same
 * rules.
 *
 * Names. An entry beside TARGET is named
 *
 *     .NAME.ncz-KIND-hHOST-pPID-XXXXXX
 *
 * in the directory that holds TARGET: NAME is TARGET's last component cut
 * to NCZ_STAGING_BASE_MAX bytes, KIND a word of at most NCZ_STAGING_KIND_MAX
 * lowercase letters chosen by the store ("new", "zip", ...; an empty KIND
 * drops "KIND-"), HOST the host tag (ncz_staging_get_host_tag(), 16
 * lowercase hexadecimal digits), PID the process that made the entry in
 * decimal, 0 when no one process owns it, and XXXXXX what g_mkstemp() or
 * g_mkdtemp() put there (6 of [A-Za-z0-9]). A library that writes the entry
 * through a temporary file of its own made from the entry's name adds
 * ".YYYYYY" (libzip does); that file is the entry's too. The longest name
 * is 246 bytes with such an addition, within NAME_MAX (255) everywhere.
 *
 * Earlier versions of Ncz wrote ".NAME.ncz-KIND-XXXXXX" (NAME cut to 200
 * bytes), without the record; such names are still recognized.
 *
 * The host tag names the scope in which a process id and a flock() mean
 * something: it is the 64-bit FNV-1a hash of the host name, the kernel's
 * boot id (/proc/sys/kernel/random/boot_id) and the process's pid
 * namespace (/proc/self/ns/pid), each followed by a NUL byte. Two
 * processes with the same tag run on the same kernel, in the same pid
 * namespace, under the same host name; hosts that share a host name
 * (every container called "localhost") or a reboot give different tags.
 *
 * Who may remove an entry (ncz_staging_remove_leftovers()). Its owner
 * holds a shared lock on it while it lives (ncz_staging_hold_lock()):
 * flock() or an open-file-description lock (F_OFD_SETLK), as the store's
 * kind says. Such locks always reach every process of one kernel, but
 * between hosts they depend on the file system: NFS forwards byte-range
 * locks (F_OFD_SETLK) to the server, yet keeps flock() on a directory,
 * and on every file with local_lock=flock, to the host that took it;
 * Lustre mounted with localflock does the same. A lock that can be taken
 * is therefore no proof for an entry made on another host. So:
 *
 *  1. An entry of this host (same tag) whose recorded process is alive
 *     (kill (pid, 0) succeeds, or fails with EPERM) is kept, whatever its
 *     lock: a process that just made its entry and has not locked it yet
 *     is alive, and a reused pid only keeps a leftover longer.
 *  2. An entry of this host whose process is dead, or that names none
 *     (pid 0), is removed when its lock can be taken exclusively, i.e.
 *     nobody on this host holds it; for a kind without a lock, at once if
 *     its recorded process is dead.
 *  3. Everything else (an entry of another host; one named by an earlier
 *     version, which may be a live writer of that version on any host;
 *     one of this host without process or lock) is removed only when
 *     nothing in it was modified for NCZ_STAGING_EXPIRY_SECONDS (its
 *     modification time, and that of everything in a directory, against
 *     this host's clock) and, for a kind with a lock, when its lock can be
 *     taken too (where locks reach across hosts, a live owner still keeps
 *     it). A writer on another host that leaves its stage untouched for
 *     that long may thus lose it: its next write into it, or its commit,
 *     then fails, and the dataset at the path stays as it was.
 *
 * A leftover is taken over before it is removed: renamed to an entry of
 * its kind named for the process removing it, then removed. A writer
 * wrongly taken for gone then fails at its commit (its entry is no longer
 * where it looks) instead of putting a half-removed dataset in place, two
 * scans never remove one entry at once, and what a remover that dies
 * halfway leaves is its own, a leftover by rule 2.
 *
 * A store that renames an entry for others to find later (a retired tree)
 * sets its modification time to the time of the rename, which is when its
 * age starts.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(NCZ_ENABLE_MODULE_API) && !defined(NCZ_COMPILATION)
#error "<ncz/ncz-staging.h> is part of the module SDK: define NCZ_ENABLE_MODULE_API."
#endif

#include <glib.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

/* The longest part of the dataset's name copied into an entry's name. */
#define NCZ_STAGING_BASE_MAX 180
/* The longest kind. */
#define NCZ_STAGING_KIND_MAX 16
/* How long an entry whose owner cannot be asked (another host's, or one
 * named by an earlier version) must stay unchanged before it is taken for
 * a leftover: a day, far beyond the clock differences of hosts that share
 * a file system and the pauses of a live writer. */
#define NCZ_STAGING_EXPIRY_SECONDS (24 * 60 * 60)

/* How the owner of an entry shows that it lives. */
typedef enum {
  NCZ_STAGING_LOCK_NONE,    /* it does not: only its record tells */
  NCZ_STAGING_LOCK_FLOCK,   /* flock (LOCK_SH) */
  NCZ_STAGING_LOCK_OFD,     /* a read lock over the whole file (F_OFD_SETLK) */
} NczStagingLock;

/* One kind of entry a store makes. */
typedef struct {
  const char *kind;         /* as given to ncz_staging_path_for() */
  gboolean directory;       /* a directory; else a regular file */
  NczStagingLock lock;
} NczStagingKind;

/* Who made an entry, as its name says. */
typedef struct {
  gboolean recorded;        /* FALSE: a name of an earlier version, without the record */
  guint64 host;             /* the host tag (if recorded) */
  guint pid;                /* the process, 0 for none (if recorded) */
} NczStagingOwner;

/* Removes the leftover at @path (a directory or a regular file). */
typedef void (*NczStagingRemoveFunc) (const char *path, gboolean directory, gpointer user_data);

NCZ_MODULE_API guint64 ncz_staging_get_host_tag (void);
NCZ_MODULE_API char *ncz_staging_path_for (const char *target, const char *kind);
NCZ_MODULE_API char *ncz_staging_path_for_owner (const char *target, const char *kind,
                                                 guint64 host, guint pid);
NCZ_MODULE_API gboolean ncz_staging_parse (const char *target, const char *name,
                                           const char *kind, NczStagingOwner *owner);
NCZ_MODULE_API gboolean ncz_staging_hold_lock (int fd, NczStagingLock lock);
NCZ_MODULE_API int ncz_staging_lock_if_abandoned (const char *path, gboolean directory,
                                                  NczStagingLock lock);
NCZ_MODULE_API void ncz_staging_remove_leftovers (const char           *target,
                                                  const NczStagingKind *kinds,
                                                  gsize                 n_kinds,
                                                  NczStagingRemoveFunc  remove,
                                                  gpointer              user_data);

G_END_DECLS
