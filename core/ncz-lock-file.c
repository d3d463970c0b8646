/* ncz-lock-file.c: locks shared by the processes that write one dataset
 *
 * See <ncz/ncz-lock-file.h> for the rules.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ncz/ncz-error.h"
#include "ncz/ncz-lock-file.h"
#include "ncz/ncz-url.h"

/* Slots are bytes from here on; the bytes before it hold the record of
 * the holder of slot 0. */
#define SLOT_BASE ((off_t) 1 << 20)
#define KEY_SLOTS ((guint64) 1 << 30)
#define HOLDER_RECORD 256
#define POLL_MAX_MS 10
#define LOCK_BASE_MAX 200

struct _NczLockFile
{
  char *path;
  int fd;
  GMutex mutex;
  GCond cond;
  GHashTable *held;   /* slot (guint64 *) → count: > 0 shared, -1 exclusive */
};

/**
 * ncz_lock_file_path_for:
 * @target: the path of a dataset (a directory or a file)
 *
 * Returns: (transfer full): the lock file of @target: ".NAME.ncz-lock" in
 * the directory that holds @target (NAME cut to 200 bytes).
 */
char *
ncz_lock_file_path_for (const char *target)
{
  g_autofree char *copy = g_strdup (target);
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  gsize len = strlen (copy);

  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  dir = g_path_get_dirname (copy);
  base = g_path_get_basename (copy);
  /* a name stays within NAME_MAX; two long names that share their first
   * LOCK_BASE_MAX bytes share a lock, which costs only waiting */
  name = g_strdup_printf (".%.*s.ncz-lock", (int) MIN (strlen (base), LOCK_BASE_MAX), base);
  return g_build_filename (dir, name, NULL);
}

/**
 * ncz_lock_file_open:
 * @path: the lock file, created if missing
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the lock file, or %NULL with
 * @error set (a #NczStorageError naming @path).
 */
NczLockFile *
ncz_lock_file_open (const char *path, GError **error)
{
  NczLockFile *self;
  int fd;

  do
    fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, NCZ_STORAGE_ERROR,
                   errsv == EACCES || errsv == EPERM || errsv == EROFS
                     ? NCZ_STORAGE_ERROR_PERMISSION : NCZ_STORAGE_ERROR_IO,
                   "cannot open the lock file %s: %s", path, g_strerror (errsv));
      return NULL;
    }
  self = g_new0 (NczLockFile, 1);
  self->path = g_strdup (path);
  self->fd = fd;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->held = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return self;
}

/**
 * ncz_lock_file_close:
 * @self: (transfer full): a lock file
 *
 * Closes the file, which releases every lock still held through it.
 */
void
ncz_lock_file_close (NczLockFile *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_hash_table_unref (self->held);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self->path);
  g_free (self);
}

const char *
ncz_lock_file_get_path (NczLockFile *self)
{
  return self->path;
}

/**
 * ncz_lock_file_slot_for_key:
 * @key: an object key
 *
 * Returns: the slot that guards @key (never %NCZ_LOCK_SLOT_WRITER); the
 * same in every process and on every host.
 */
guint64
ncz_lock_file_slot_for_key (const char *key)
{
  /* FNV-1a: stable across processes and versions, unlike g_str_hash's
   * promise */
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);

  for (const guchar *p = (const guchar *) key; *p != '\0'; p++)
    {
      h ^= *p;
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return 1 + h % KEY_SLOTS;
}

static int
ofd_lock (NczLockFile *self, guint64 slot, short type)
{
  struct flock fl = { 0 };
  int r;

  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = SLOT_BASE + (off_t) slot;
  fl.l_len = 1;
  do
    r = fcntl (self->fd, F_OFD_SETLK, &fl);
  while (r < 0 && errno == EINTR);
  return r < 0 ? errno : 0;
}

static void
write_holder (NczLockFile *self)
{
  char record[HOLDER_RECORD];
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *when = g_date_time_format_iso8601 (now);
  int n;

  memset (record, ' ', sizeof record);
  n = g_snprintf (record, sizeof record, "host %s pid %ld since %s", g_get_host_name (),
                  (long) getpid (), when);
  if (n > 0 && (gsize) n < sizeof record)
    record[n] = ' ';
  record[sizeof record - 1] = '\n';
  /* informational: a failure only makes a later message vaguer */
  if (pwrite (self->fd, record, sizeof record, 0) < 0)
    g_debug ("%s: cannot record the holder: %s", self->path, g_strerror (errno));
}

/**
 * ncz_lock_file_describe_holder:
 * @self: a lock file
 *
 * Returns: (transfer full) (nullable): "host H pid P since T" of the last
 * process that took slot 0 exclusively, or %NULL if none is recorded.
 */
char *
ncz_lock_file_describe_holder (NczLockFile *self)
{
  char record[HOLDER_RECORD + 1];
  ssize_t n = pread (self->fd, record, HOLDER_RECORD, 0);

  if (n <= 0)
    return NULL;
  record[n] = '\0';
  g_strstrip (record);
  if (!g_str_has_prefix (record, "host "))
    return NULL;
  return g_strdup (record);
}

static gboolean
compatible (NczLockFile *self, guint64 slot, gboolean exclusive)
{
  gpointer v;

  if (!g_hash_table_lookup_extended (self->held, &slot, NULL, &v))
    return TRUE;
  return !exclusive && GPOINTER_TO_INT (v) > 0;
}

static void
release_local (NczLockFile *self, guint64 slot)
{
  gpointer v;
  int count;

  if (!g_hash_table_lookup_extended (self->held, &slot, NULL, &v))
    return;
  count = GPOINTER_TO_INT (v);
  if (count > 1)
    g_hash_table_insert (self->held, g_memdup2 (&slot, sizeof slot), GINT_TO_POINTER (count - 1));
  else
    g_hash_table_remove (self->held, &slot);
  g_cond_broadcast (&self->cond);
}

static void
set_timeout_error (NczLockFile *self, guint64 slot, gint64 timeout_ms, GError **error)
{
  g_autofree char *holder = slot == NCZ_LOCK_SLOT_WRITER ? ncz_lock_file_describe_holder (self)
                                                          : NULL;
  g_autofree char *waited = timeout_ms == 0 ? g_strdup ("")
                                            : g_strdup_printf (" (waited %.3g s)",
                                                               timeout_ms / 1000.0);

  if (slot == NCZ_LOCK_SLOT_WRITER)
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED,
                 "another writer holds the lock %s%s%s%s", self->path,
                 holder != NULL ? ": " : "", holder != NULL ? holder : "", waited);
  else
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED,
                 "another writer holds slot %" G_GUINT64_FORMAT " of the lock %s%s",
                 slot, self->path, waited);
}

/**
 * ncz_lock_file_lock:
 * @self: a lock file
 * @slot: %NCZ_LOCK_SLOT_WRITER or a key's slot
 * @exclusive: %TRUE for a write lock, %FALSE for a shared one
 * @timeout_ms: how long to wait: 0 to try once, -1 without limit
 * @cancellable: (nullable): stops the wait
 * @error: return location for a #GError
 *
 * Takes the lock of @slot, waiting while another process, or another
 * thread through @self, holds it in a conflicting way. Every successful
 * call is paired with ncz_lock_file_unlock().
 *
 * Returns: %TRUE with the lock held; %FALSE with @error set:
 * %NCZ_STORAGE_ERROR_LOCKED naming the holder when the time ran out,
 * %G_IO_ERROR_CANCELLED, or an I/O error.
 */
gboolean
ncz_lock_file_lock (NczLockFile  *self,
                    guint64       slot,
                    gboolean      exclusive,
                    gint64        timeout_ms,
                    GCancellable *cancellable,
                    GError      **error)
{
  gint64 deadline = timeout_ms < 0 ? G_MAXINT64
                                   : g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;
  gboolean first;
  gint delay_ms = 1;
  gpointer v;

  /* threads sharing @self first */
  g_mutex_lock (&self->mutex);
  while (!compatible (self, slot, exclusive))
    {
      gint64 now = g_get_monotonic_time ();
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_mutex_unlock (&self->mutex);
          return FALSE;
        }
      if (now >= deadline)
        {
          g_mutex_unlock (&self->mutex);
          set_timeout_error (self, slot, timeout_ms, error);
          return FALSE;
        }
      g_cond_wait_until (&self->cond, &self->mutex,
                         MIN (deadline, now + POLL_MAX_MS * G_TIME_SPAN_MILLISECOND));
    }
  first = !g_hash_table_lookup_extended (self->held, &slot, NULL, &v);
  g_hash_table_insert (self->held, g_memdup2 (&slot, sizeof slot),
                       GINT_TO_POINTER (exclusive ? -1 : (first ? 1 : GPOINTER_TO_INT (v) + 1)));
  g_mutex_unlock (&self->mutex);
  if (!first)
    return TRUE;   /* a shared lock this description holds already */

  /* then other descriptions: other processes, hosts, or NczLockFiles */
  for (;;)
    {
      int err = ofd_lock (self, slot, exclusive ? F_WRLCK : F_RDLCK);
      if (err == 0)
        break;
      if (err != EAGAIN && err != EACCES)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                       "cannot lock %s: %s", self->path, g_strerror (err));
          goto fail;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto fail;
      if (g_get_monotonic_time () >= deadline)
        {
          set_timeout_error (self, slot, timeout_ms, error);
          goto fail;
        }
      g_usleep ((gulong) MIN ((gint64) delay_ms * G_TIME_SPAN_MILLISECOND,
                              MAX ((gint64) 0, deadline - g_get_monotonic_time ())));
      delay_ms = MIN (delay_ms * 2, POLL_MAX_MS);
    }
  if (exclusive && slot == NCZ_LOCK_SLOT_WRITER)
    write_holder (self);
  return TRUE;

fail:
  g_mutex_lock (&self->mutex);
  release_local (self, slot);
  g_mutex_unlock (&self->mutex);
  return FALSE;
}

/**
 * ncz_lock_file_unlock:
 * @self: a lock file
 * @slot: a slot locked through @self
 *
 * Releases one ncz_lock_file_lock() of @slot.
 */
void
ncz_lock_file_unlock (NczLockFile *self, guint64 slot)
{
  gpointer v;

  g_mutex_lock (&self->mutex);
  if (!g_hash_table_lookup_extended (self->held, &slot, NULL, &v))
    {
      g_mutex_unlock (&self->mutex);
      g_critical ("%s: slot %" G_GUINT64_FORMAT " unlocked but not locked", self->path, slot);
      return;
    }
  if (GPOINTER_TO_INT (v) == -1 || GPOINTER_TO_INT (v) == 1)
    {
      int err = ofd_lock (self, slot, F_UNLCK);
      if (err != 0)
        g_warning ("%s: cannot unlock: %s", self->path, g_strerror (err));
    }
  release_local (self, slot);
  g_mutex_unlock (&self->mutex);
}

static guint64
slot_of (const char *key)
{
  return key != NULL ? ncz_lock_file_slot_for_key (key) : NCZ_LOCK_SLOT_WRITER;
}

/**
 * ncz_lock_file_lock_key:
 * @self: a lock file
 * @key: (nullable): the object whose read-modify-write the lock guards,
 *   or %NULL for the writer (metadata) lock
 * @timeout_ms: as for ncz_lock_file_lock()
 * @cancellable: (nullable): stops the wait
 * @error: return location for a #GError
 *
 * Takes the exclusive lock of @key's slot, as the stores' lock_key does.
 *
 * Returns: %TRUE with the lock held
 */
gboolean
ncz_lock_file_lock_key (NczLockFile *self, const char *key, gint64 timeout_ms,
                        GCancellable *cancellable, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (ncz_lock_file_lock (self, slot_of (key), TRUE, timeout_ms, cancellable, &local))
    return TRUE;
  if (key != NULL)
    g_propagate_prefixed_error (error, g_steal_pointer (&local), "object %s: ", key);
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/**
 * ncz_lock_file_unlock_key:
 * @self: a lock file
 * @key: (nullable): what ncz_lock_file_lock_key() locked
 */
void
ncz_lock_file_unlock_key (NczLockFile *self, const char *key)
{
  ncz_lock_file_unlock (self, slot_of (key));
}

/**
 * ncz_lock_timeout_from_text:
 * @text: seconds, as a decimal number ("30", "0.5"), or "inf"
 * @timeout_ms: (out): the wait in milliseconds, -1 for "inf"
 * @error: return location for a #GError
 *
 * Reads a lock wait as a URL fragment key or an environment variable
 * gives it.
 *
 * Returns: %TRUE on success; %FALSE with @error set if @text is not a
 * non-negative number of seconds.
 */
gboolean
ncz_lock_timeout_from_text (const char *text, gint64 *timeout_ms, GError **error)
{
  char *end = NULL;
  double seconds = -1;

  if (g_strcmp0 (text, "inf") == 0)
    {
      *timeout_ms = -1;
      return TRUE;
    }
  if (text != NULL && *text != '\0')
    seconds = g_ascii_strtod (text, &end);
  if (text == NULL || *text == '\0' || end == NULL || *end != '\0' || !(seconds >= 0) ||
      seconds > 1e9)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "a lock wait is a number of seconds or \"inf\", not \"%s\"",
                   text != NULL ? text : "");
      return FALSE;
    }
  *timeout_ms = (gint64) (seconds * 1000.0 + 0.5);
  return TRUE;
}

/**
 * ncz_lock_timeout_for_url:
 * @url: (nullable): the dataset's URL
 * @timeout_ms: (out): how long its writers wait for a lock, in
 *   milliseconds (-1: without limit)
 * @error: return location for a #GError
 *
 * The wait for a lock: the URL fragment key `lock.timeout` (seconds, or
 * `inf`), else the environment variable `NCZ_LOCK_TIMEOUT`, else
 * %NCZ_LOCK_DEFAULT_TIMEOUT_MS.
 *
 * Returns: %TRUE; %FALSE with @error set naming the URL or the variable
 * when the value is not a number of seconds.
 */
gboolean
ncz_lock_timeout_for_url (NczUrl *url, gint64 *timeout_ms, GError **error)
{
  const char *text = url != NULL ? ncz_url_get_fragment_value (url, "lock.timeout") : NULL;
  g_autoptr(GError) local = NULL;

  *timeout_ms = NCZ_LOCK_DEFAULT_TIMEOUT_MS;
  if (text != NULL)
    {
      if (ncz_lock_timeout_from_text (text, timeout_ms, &local))
        return TRUE;
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "URL '%s': key lock.timeout: %s", ncz_url_get_original (url), local->message);
      return FALSE;
    }
  text = g_getenv ("NCZ_LOCK_TIMEOUT");
  if (text != NULL && *text != '\0')
    {
      if (ncz_lock_timeout_from_text (text, timeout_ms, &local))
        return TRUE;
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "environment variable NCZ_LOCK_TIMEOUT: %s", local->message);
      return FALSE;
    }
  return TRUE;
}
