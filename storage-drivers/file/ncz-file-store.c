/* ncz-file-store.c: directory-tree storage driver
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "ncz-file-store.h"
#include <ncz/ncz-module.h>

/* NczFileStore: each object is a regular file under the root directory,
 * key "a/b/.zarray" being the file root/a/b/.zarray; prefixes are
 * directories.
 *
 * Nothing outside the root is ever read or written. Every operation goes
 * through a descriptor of the root directory opened once and resolves
 * the key beneath it without following symbolic links, outside the root
 * or inside it: a link anywhere on a key's path refuses the object with
 * an error naming the key (openat2() with RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS where the kernel has it, O_NOFOLLOW on every
 * component otherwise). A store holds regular files and directories
 * only; links are not part of the format, and following even those that
 * stay inside the root would let one variable's data appear as
 * another's.
 *
 * Existing objects are replaced through a temporary file beside them and
 * a rename, so a failed write never damages what was there. CREATE never
 * writes at the path itself: the new dataset is written in a directory
 * beside it (".NAME.ncz-new-hHOST-pPID-XXXXXX", same parent, so same file
 * system; <ncz/ncz-staging.h>) and swapped in by commit with one atomic
 * rename; discard removes it.
 * Whatever was at the path (a dataset, a file, nothing) stays as it was
 * until the commit, and stays if it never comes.
 *
 * Readers and writers hold a shared flock on the tree they opened. A
 * writer that swapped a tree out removes it only when it can lock it
 * exclusively, i.e. when nobody reads it any more; otherwise it renames
 * it ".NAME.ncz-old-hHOST-p0-XXXXXX" and leaves it to the last reader
 * (which removes it when it closes, if it may) or to the next writer. A
 * reader therefore keeps a consistent view: the dataset it opened, whole,
 * until it closes, whatever replaces it meanwhile. Where flock() does not
 * reach other hosts (NFS directories, see docs/concurrency.md), a reader
 * on another host is not seen: its tree may be removed under it, and its
 * reads then fail.
 *
 * A writer of an existing dataset writes in place, into the tree it
 * opened. If another process replaced the dataset meanwhile, its writes
 * would land in the retired tree, seen by nobody: every write checks that
 * the tree at the path is still the one opened and fails otherwise, and
 * so does the commit at close, which catches a replacement that came
 * after the last write.
 *
 * Writers that share the dataset coordinate through the lock file beside
 * it (".NAME.ncz-lock", <ncz/ncz-lock-file.h>): lock_key(NULL) is the
 * metadata lock the formats hold while they merge their metadata into
 * what is stored, lock_key(KEY) the lock of one object's
 * read-modify-write (a chunk written in part).
 *
 * Calls from several threads at once are safe.
 */
struct _NczFileStore
{
  GObject parent_instance;

  NczUrl *url;
  NczStoreFlags flags;
  char *root;       /* absolute path of the root directory, for messages */
  int root_fd;      /* -1 until initialized; the tree opened, flocked shared */
  gboolean locked;  /* root_fd holds the shared lock */
  dev_t root_dev;   /* the tree opened */
  ino_t root_ino;
  /* CREATE */
  char *target;     /* the path replaced at commit (the root, or where it links) */
  char *stage;      /* the new dataset being written beside @target, until commit */
  gboolean target_existed;
  GPtrArray *made_parents;  /* missing parents of @target made, outermost first */
  /* CREATE: the root started empty, so whatever exists in it this store
   * made and objects that do not exist yet are written in place */
  gboolean fresh;
  /* writers: the lock file beside the dataset, opened at the first
   * lock_key (see <ncz/ncz-lock-file.h>) */
  GMutex lock_mutex;
  NczLockFile *lock_file;
  gint wrote;       /* something was written or removed */
};

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
};

/* Recursion limit of tree removal; keys are at most 1024 bytes long, so
 * no key has more than 512 segments. */
#define MAX_TREE_DEPTH 512

/* The longest part of an object's name copied into its temporary name. */
#define TEMP_BASE_MAX 200
#define TEMP_INFIX ".tmp-"
#define TEMP_RANDOM_LEN 6

static const char *const store_markers[] = {
  ".zgroup", ".zarray", ".zattrs", ".zmetadata", ".nczarr",
};

static void ncz_file_store_store_init (NczStoreInterface *iface);
static gboolean ncz_file_store_commit (NczStore *store, GCancellable *cancellable,
                                       GError **error);
static void ncz_file_store_discard (NczStore *store);
static void ncz_file_store_initable_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczFileStore, ncz_file_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_file_store_store_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      ncz_file_store_initable_init))

static int
storage_code_for_errno (int errsv)
{
  switch (errsv)
    {
    case ENOENT:
    case ENOTDIR:
      return NCZ_STORAGE_ERROR_NOT_FOUND;
    case EACCES:
    case EPERM:
      return NCZ_STORAGE_ERROR_PERMISSION;
    case EROFS:
      return NCZ_STORAGE_ERROR_READ_ONLY;
    default:
      return NCZ_STORAGE_ERROR_IO;
    }
}

/* errno values of a path that leaves the root or goes through a link */
static gboolean
is_link_errno (int errsv)
{
  return errsv == ELOOP || errsv == EXDEV;
}

static void
set_key_error_code (NczFileStore *self,
                    GError      **error,
                    int           code,
                    int           errsv,
                    const char   *action,
                    const char   *key)
{
  if (is_link_errno (errsv))
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION,
                 "cannot %s '%s' in store '%s': a symbolic link is on its path, and "
                 "the file store follows none (objects are read and written only "
                 "beneath the store's directory)",
                 action, key[0] ? key : ".", self->root);
  else if (key[0] == '\0')
    g_set_error (error, NCZ_STORAGE_ERROR, code, "cannot %s the top directory of store '%s': %s",
                 action, self->root, g_strerror (errsv));
  else
    g_set_error (error, NCZ_STORAGE_ERROR, code, "cannot %s '%s' in store '%s': %s",
                 action, key, self->root, g_strerror (errsv));
}

static void
set_key_error (NczFileStore *self,
               GError      **error,
               int           errsv,
               const char   *action,
               const char   *key)
{
  int code = storage_code_for_errno (errsv);

  if (code == NCZ_STORAGE_ERROR_NOT_FOUND)
    g_set_error (error, NCZ_STORAGE_ERROR, code, "no object '%s' in store '%s'",
                 key, self->root);
  else
    set_key_error_code (self, error, code, errsv, action, key);
}

/* Errors of writing, where a missing directory is not a missing object. */
static void
set_write_error (NczFileStore *self,
                 GError      **error,
                 int           errsv,
                 const char   *key)
{
  int code = storage_code_for_errno (errsv);

  if (code == NCZ_STORAGE_ERROR_NOT_FOUND)
    code = NCZ_STORAGE_ERROR_FAILED;
  set_key_error_code (self, error, code, errsv, "write", key);
}

/* Resolution beneath the root. */

/* Whether openat2() is worth trying: 1 yes, 0 the kernel lacks it. */
static gint have_openat2 = 1;

/* For tests: resolve keys one component at a time, as on kernels
 * without openat2(). */
void
ncz_file_store_set_use_openat2 (gboolean use)
{
  g_atomic_int_set (&have_openat2, use ? 1 : 0);
}

/* Sets errno to ELOOP when @name of @dir_fd is a symbolic link, so a
 * failed O_NOFOLLOW open reports the link rather than what it met. */
static void
explain_open_failure (int         dir_fd,
                      const char *name)
{
  int errsv = errno;
  struct stat st;

  if (errsv != ELOOP && fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK (st.st_mode))
    errsv = ELOOP;
  errno = errsv;
}

/* Opens @path beneath @root_fd one component at a time, never following
 * a link; with @make_dirs, missing directories on the way (and the last
 * component, when @flags has O_DIRECTORY) are made. -1 and errno on
 * failure. */
static int
walk_beneath (int         root_fd,
              const char *path,
              int         flags,
              mode_t      mode,
              gboolean    make_dirs)
{
  const char *p = path;
  int dir_fd = root_fd;
  int fd, errsv;

  for (;;)
    {
      const char *slash = strchr (p, '/');
      g_autofree char *seg = NULL;

      if (slash == NULL)
        break;
      seg = g_strndup (p, (gsize) (slash - p));
      fd = openat (dir_fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT && make_dirs &&
          (mkdirat (dir_fd, seg, 0777) == 0 || errno == EEXIST))
        fd = openat (dir_fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        {
          explain_open_failure (dir_fd, seg);
          errsv = errno;
          if (dir_fd != root_fd)
            close (dir_fd);
          errno = errsv;
          return -1;
        }
      if (dir_fd != root_fd)
        close (dir_fd);
      dir_fd = fd;
      p = slash + 1;
    }
  fd = openat (dir_fd, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0 && errno == ENOENT && make_dirs && (flags & O_DIRECTORY) != 0 &&
      (mkdirat (dir_fd, p, 0777) == 0 || errno == EEXIST))
    fd = openat (dir_fd, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    explain_open_failure (dir_fd, p);
  errsv = errno;
  if (dir_fd != root_fd)
    close (dir_fd);
  errno = errsv;
  return fd;
}

/* Opens @path (a key, or "." for the root) beneath the root without
 * following any link: -1 with errno ELOOP or EXDEV for a path through a
 * link. */
static int
open_beneath (NczFileStore *self,
              const char   *path,
              int           flags,
              mode_t        mode)
{
#if defined(__linux__) && defined(SYS_openat2)
  if (g_atomic_int_get (&have_openat2))
    {
      struct open_how how;
      long fd;

      memset (&how, 0, sizeof how);
      how.flags = (guint64) (flags | O_NOFOLLOW | O_CLOEXEC);
      how.mode = (flags & O_CREAT) != 0 ? mode : 0;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
      do
        fd = syscall (SYS_openat2, self->root_fd, path, &how, sizeof how);
      while (fd < 0 && (errno == EINTR || errno == EAGAIN));
      /* O_DIRECTORY on a trailing link fails with ENOTDIR: say it is one
       * (a link earlier on the path already gave ELOOP) */
      if (fd < 0 && errno == ENOTDIR)
        explain_open_failure (self->root_fd, path);
      if (fd >= 0 || errno != ENOSYS)
        return (int) fd;
      g_atomic_int_set (&have_openat2, 0);
    }
#endif
  return walk_beneath (self->root_fd, path, flags, mode, FALSE);
}

/* The directory holding @key, opened beneath the root (made, with
 * @make); *@base is set to the last segment of @key. Returns the root's
 * descriptor for a top-level key: release it with close_parent(). */
static int
open_parent (NczFileStore *self,
             const char   *key,
             gboolean      make,
             const char  **base)
{
  const char *slash = strrchr (key, '/');
  g_autofree char *dir = NULL;
  int fd;

  *base = slash ? slash + 1 : key;
  if (slash == NULL)
    return self->root_fd;
  dir = g_strndup (key, (gsize) (slash - key));
  fd = open_beneath (self, dir, O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0 && errno == ENOENT && make)
    fd = walk_beneath (self->root_fd, dir, O_RDONLY | O_DIRECTORY, 0, TRUE);
  return fd;
}

static void
close_parent (NczFileStore *self,
              int           fd)
{
  if (fd >= 0 && fd != self->root_fd)
    close (fd);
}

static gboolean
check_ready (NczFileStore *self,
             GError      **error)
{
  if (self->root_fd >= 0)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
               "the file store was used before g_initable_init()");
  return FALSE;
}

/* A missing object is a missing object only while the tree read is still
 * there. Readers lock it, so a writer never removes it under them; where
 * the file system has no locks, a reader whose tree was removed fails
 * instead of taking every object for missing (fill values where data
 * was). */
static gboolean
check_tree_alive (NczFileStore *self,
                  const char   *key,
                  GError      **error)
{
  struct stat st;

  if (fstat (self->root_fd, &st) < 0 || st.st_nlink > 0)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
               "cannot read '%s' in store '%s': the dataset was replaced and removed "
               "while it was being read", key, self->root);
  return FALSE;
}

/* A writer in place: the tree at the path is still the one it opened. */
static gboolean
check_tree_current (NczFileStore *self,
                    const char   *key,
                    GError      **error)
{
  struct stat st;
  int r;

  if ((self->flags & NCZ_STORE_CREATE) != 0 || self->target == NULL)
    return TRUE;
  r = stat (self->target, &st);

  if (r == 0 && st.st_dev == self->root_dev && st.st_ino == self->root_ino)
    return TRUE;
  if (r < 0 && errno == ENOENT)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                   "cannot write '%s' in store '%s': the dataset was removed after it was "
                   "opened for writing", key, self->root);
      return FALSE;
    }
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
               "cannot write '%s' in store '%s': another writer replaced the dataset after "
               "it was opened for writing (what this writer wrote since is in the retired "
               "copy, not in the dataset)", key, self->root);
  return FALSE;
}

static gboolean
check_writable (NczFileStore *self,
                const char   *key,
                GError      **error)
{
  if (!check_ready (self, error))
    return FALSE;
  if ((self->flags & (NCZ_STORE_WRITE | NCZ_STORE_CREATE)) != 0)
    {
      g_atomic_int_set (&self->wrote, TRUE);
      return check_tree_current (self, key, error);
    }
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
               "cannot change '%s': store '%s' was opened read-only", key, self->root);
  return FALSE;
}

static gboolean
is_temp_name (const char *name)
{
  gsize len = strlen (name);
  const gsize tail = strlen (TEMP_INFIX) + TEMP_RANDOM_LEN;

  if (name[0] != '.' || len < 2 + tail)
    return FALSE;
  if (memcmp (name + len - tail, TEMP_INFIX, strlen (TEMP_INFIX)) != 0)
    return FALSE;
  for (gsize i = len - TEMP_RANDOM_LEN; i < len; i++)
    if (!g_ascii_isalnum (name[i]))
      return FALSE;
  return TRUE;
}

/* Opens a new file named @tmpl relative to @dir_fd, replacing the
 * trailing random part of @tmpl until the name is unused. */
static int
create_temp_at (int   dir_fd,
                char *tmpl)
{
  static const char letters[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  char *x = tmpl + strlen (tmpl) - TEMP_RANDOM_LEN;

  for (int attempt = 0; attempt < 100; attempt++)
    {
      int fd;

      for (int i = 0; i < TEMP_RANDOM_LEN; i++)
        x[i] = letters[g_random_int_range (0, (gint32) sizeof letters - 1)];
      fd = openat (dir_fd, tmpl, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd >= 0 || errno != EEXIST)
        return fd;
    }
  errno = EEXIST;
  return -1;
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         size)
{
  while (size > 0)
    {
      ssize_t n = write (fd, data, MIN (size, (gsize) G_MAXSSIZE));

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      if (n == 0)
        {
          /* nothing written and no error: the device is full */
          errno = ENOSPC;
          return FALSE;
        }
      data += n;
      size -= (gsize) n;
    }
  return TRUE;
}

/* Opens the object at @key for reading; its length in *@size. -1 with
 * @error set when there is no such object or it cannot be opened. */
static int
open_object (NczFileStore *self,
             const char   *key,
             guint64      *size,
             GError      **error)
{
  struct stat st;
  int fd;

  if (!check_ready (self, error))
    return -1;

  /* O_NONBLOCK: a FIFO planted in the tree must not hang the open. */
  fd = open_beneath (self, key, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int errsv = errno;

      if (!check_tree_alive (self, key, error))
        return -1;
      set_key_error (self, error, errsv, "read", key);
      return -1;
    }
  if (fstat (fd, &st) < 0)
    {
      int errsv = errno;

      close (fd);
      set_key_error (self, error, errsv, "read", key);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object '%s' in store '%s': it is %s", key, self->root,
                   S_ISDIR (st.st_mode) ? "a directory (a prefix of other keys)"
                                        : "not a regular file");
      return -1;
    }
  *size = (guint64) st.st_size;
  return fd;
}

/* Reads the bytes @offset..@offset+@length (-1: to the end) of the open
 * object @fd of @size bytes. */
static GBytes *
read_range_at (NczFileStore *self,
               int           fd,
               const char   *key,
               guint64       size,
               guint64       offset,
               gint64        length,
               GError      **error)
{
  guint64 n;
  guint8 *buf = NULL;
  gsize done = 0, capacity = 0;

  if (offset > size)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "range beyond end: object '%s' in store '%s' is %" G_GUINT64_FORMAT
                   " bytes long, read asked from byte %" G_GUINT64_FORMAT,
                   key, self->root, size, offset);
      return NULL;
    }
  n = size - offset;
  if (length >= 0 && (guint64) length < n)
    n = (guint64) length;
  /* chunk-sized objects come from the shared buffer pool, whose pages
   * are already mapped: fresh multi-MiB buffers fault every page in */
  if (n > G_MAXSIZE || (n > 0 && (buf = ncz_buffer_alloc ((gsize) n, &capacity)) == NULL))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read '%s' in store '%s': %" G_GUINT64_FORMAT
                   " bytes do not fit in memory", key, self->root, n);
      return NULL;
    }
  if (n == 0)
    return g_bytes_new (NULL, 0);

  while (done < n)
    {
      ssize_t r = pread (fd, buf + done, MIN ((gsize) n - done, (gsize) G_MAXSSIZE),
                         (off_t) (offset + done));

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          int errsv = errno;

          ncz_buffer_release (buf, capacity);
          if (r == 0)
            g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                         "cannot read '%s' in store '%s': the file was truncated "
                         "while being read", key, self->root);
          else
            set_key_error (self, error, errsv, "read", key);
          return NULL;
        }
      done += (gsize) r;
    }
  return ncz_buffer_new_bytes (buf, (gsize) n, capacity);
}

static GBytes *
ncz_file_store_read (NczStore     *store,
                     const char   *key,
                     guint64       offset,
                     gint64        length,
                     GCancellable *cancellable,
                     GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  guint64 size = 0;
  GBytes *bytes;
  int fd;

  fd = open_object (self, key, &size, error);
  if (fd < 0)
    return NULL;
  bytes = read_range_at (self, fd, key, size, offset, length, error);
  close (fd);
  return bytes;
}

/* Many ranges of one object: one open, one pread per range. */
static GPtrArray *
ncz_file_store_read_ranges (NczStore            *store,
                            const char          *key,
                            const NczStoreRange *ranges,
                            guint                n_ranges,
                            GCancellable        *cancellable,
                            GError             **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_autoptr(GPtrArray) result = g_ptr_array_new_full (n_ranges, (GDestroyNotify) g_bytes_unref);
  guint64 size = 0;
  int fd;

  fd = open_object (self, key, &size, error);
  if (fd < 0)
    return NULL;
  for (guint i = 0; i < n_ranges; i++)
    {
      GBytes *bytes;

      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          (bytes = read_range_at (self, fd, key, size, ranges[i].offset, ranges[i].length,
                                  error)) == NULL)
        {
          close (fd);
          return NULL;
        }
      g_ptr_array_add (result, bytes);
    }
  close (fd);
  return g_steal_pointer (&result);
}

/* In a store being created: writes @base of @dir_fd in place if no
 * object is there yet. Returns 1 when written, 0 when something exists
 * there (the caller replaces it through a temporary file), -1 on error; a
 * failed write leaves nothing behind. */
static int
write_new_object (NczFileStore *self,
                  const char   *key,
                  int           dir_fd,
                  const char   *base,
                  GBytes       *data,
                  GError      **error)
{
  gconstpointer bytes;
  gsize size;
  int fd, errsv;

  fd = openat (dir_fd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return errno == EEXIST ? 0 : (set_write_error (self, error, errno, key), -1);
  bytes = g_bytes_get_data (data, &size);
  if (!write_all (fd, bytes, size))
    {
      errsv = errno;
      close (fd);
      errno = errsv;
      fd = -1;
    }
  if (fd < 0 || close (fd) < 0)
    {
      errsv = errno;
      unlinkat (dir_fd, base, 0);
      set_write_error (self, error, errsv, key);
      return -1;
    }
  return 1;
}

static gboolean
ncz_file_store_write (NczStore     *store,
                      const char   *key,
                      GBytes       *data,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_autofree char *tmp = NULL;
  gconstpointer bytes;
  gboolean durable = FALSE;
  const char *base;
  gsize size;
  int dir_fd, fd = -1;
  int errsv;

  if (!check_writable (self, key, error))
    return FALSE;

  /* The parent directories usually exist: they are made only when
   * needed, beneath the root and through no link. */
  dir_fd = open_parent (self, key, TRUE, &base);
  if (dir_fd < 0)
    {
      errsv = errno;
      if (errsv == ENOTDIR || errsv == EEXIST)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "cannot write '%s' in store '%s': a part of its path is an object, "
                     "not a prefix", key, self->root);
      else
        set_write_error (self, error, errsv, key);
      return FALSE;
    }

  /* A store being created holds only what it wrote: an object that does
   * not exist yet replaces nothing and is written in place. */
  if (self->fresh)
    {
      int done = write_new_object (self, key, dir_fd, base, data, error);
      if (done != 0)
        {
          close_parent (self, dir_fd);
          return done > 0;
        }
    }

  tmp = g_strdup_printf (".%.*s" TEMP_INFIX "XXXXXX",
                         (int) MIN (strlen (base), TEMP_BASE_MAX), base);
  fd = create_temp_at (dir_fd, tmp);
  if (fd < 0)
    {
      set_write_error (self, error, errno, key);
      close_parent (self, dir_fd);
      return FALSE;
    }

  /* Metadata objects (".zarray", ".zattrs"...) that replace an existing
   * one reach the disk before the rename, so a crash never leaves an
   * empty object where a good one was; new objects and chunks are not
   * worth the wait. */
  if (base[0] == '.')
    {
      struct stat st;
      durable = fstatat (dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
  bytes = g_bytes_get_data (data, &size);
  if (!write_all (fd, bytes, size) || (durable && fsync (fd) < 0))
    {
      errsv = errno;
      close (fd);
      unlinkat (dir_fd, tmp, 0);
      set_write_error (self, error, errsv, key);
      close_parent (self, dir_fd);
      return FALSE;
    }
  if (close (fd) < 0)
    {
      errsv = errno;
      unlinkat (dir_fd, tmp, 0);
      set_write_error (self, error, errsv, key);
      close_parent (self, dir_fd);
      return FALSE;
    }

  /* renameat() replaces a link at @base itself, never what it points to */
  if (renameat (dir_fd, tmp, dir_fd, base) < 0)
    {
      errsv = errno;
      unlinkat (dir_fd, tmp, 0);
      if (errsv == EISDIR || errsv == ENOTEMPTY || errsv == EEXIST)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "cannot write '%s' in store '%s': it is a directory "
                     "(a prefix of other keys)", key, self->root);
      else
        set_write_error (self, error, errsv, key);
      close_parent (self, dir_fd);
      return FALSE;
    }
  close_parent (self, dir_fd);
  return TRUE;
}

static gboolean remove_tree_at (NczFileStore *self, const char *key, int dir_fd,
                                const char *name, int depth, GError **error);

/* Removes every entry of the directory @fd (which it closes), never
 * following symbolic links. */
static gboolean
clear_dir_fd (NczFileStore *self,
              const char   *key,
              int           fd,
              int           depth,
              GError      **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  struct dirent *de;
  DIR *dir;
  gboolean ok = TRUE;

  dir = fdopendir (fd);
  if (dir == NULL)
    {
      int errsv = errno;

      close (fd);
      set_key_error (self, error, errsv, "remove", key);
      return FALSE;
    }
  for (;;)
    {
      errno = 0;
      de = readdir (dir);
      if (de == NULL)
        break;
      if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
        g_ptr_array_add (names, g_strdup (de->d_name));
    }
  if (errno != 0)
    {
      set_key_error (self, error, errno, "remove", key);
      closedir (dir);
      return FALSE;
    }

  for (guint i = 0; ok && i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      struct stat st;

      if (fstatat (fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        {
          if (errno == ENOENT)
            continue;
          set_key_error (self, error, errno, "remove", key);
          ok = FALSE;
        }
      else if (S_ISDIR (st.st_mode))
        ok = remove_tree_at (self, key, fd, name, depth + 1, error);
      else if (unlinkat (fd, name, 0) < 0 && errno != ENOENT)
        {
          set_key_error (self, error, errno, "remove", key);
          ok = FALSE;
        }
    }
  closedir (dir);
  return ok;
}

/* Removes the directory @name of @dir_fd and everything in it. */
static gboolean
remove_tree_at (NczFileStore *self,
                const char   *key,
                int           dir_fd,
                const char   *name,
                int           depth,
                GError      **error)
{
  int fd;

  if (depth > MAX_TREE_DEPTH)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "cannot remove '%s' in store '%s': directories nested deeper "
                   "than %d levels", key, self->root, MAX_TREE_DEPTH);
      return FALSE;
    }
  fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return TRUE;
      set_key_error (self, error, errno, "remove", key);
      return FALSE;
    }
  if (!clear_dir_fd (self, key, fd, depth, error))
    return FALSE;
  if (unlinkat (dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    {
      set_key_error (self, error, errno, "remove", key);
      return FALSE;
    }
  return TRUE;
}

/* Removes the directories of @key's parents that became empty, so that
 * listings show only prefixes of remaining objects. */
static void
prune_empty_parents (NczFileStore *self,
                     const char   *key)
{
  g_autofree char *path = g_strdup (key);
  char *slash;

  while ((slash = strrchr (path, '/')) != NULL)
    {
      const char *name;
      int dir_fd, r;

      *slash = '\0';
      dir_fd = open_parent (self, path, FALSE, &name);
      if (dir_fd < 0)
        break;
      r = unlinkat (dir_fd, name, AT_REMOVEDIR);
      close_parent (self, dir_fd);
      if (r < 0)
        break;
    }
}

static gboolean
ncz_file_store_remove (NczStore     *store,
                       const char   *key,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_auto(GStrv) segments = NULL;
  const char *last;
  struct stat st;
  int dir_fd;
  gboolean ok;
  guint n;

  if (!check_writable (self, key, error))
    return FALSE;

  if (key[0] == '\0')
    {
      int fd = openat (self->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

      if (fd < 0)
        {
          set_key_error (self, error, errno, "remove", key);
          return FALSE;
        }
      return clear_dir_fd (self, key, fd, 0, error);
    }

  /* Walk down to the parent directory without following links. */
  segments = g_strsplit (key, "/", -1);
  n = g_strv_length (segments);
  dir_fd = self->root_fd;
  for (guint i = 0; i + 1 < n; i++)
    {
      int fd = openat (dir_fd, segments[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int errsv = errno;

      if (fd < 0)
        {
          gboolean is_link = fstatat (dir_fd, segments[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                             S_ISLNK (st.st_mode);

          if (dir_fd != self->root_fd)
            close (dir_fd);
          if (is_link)
            {
              g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION,
                           "cannot remove '%s' in store '%s': '%s' is a symbolic link",
                           key, self->root, segments[i]);
              return FALSE;
            }
          /* Nothing under a missing directory or a regular file. */
          if (errsv == ENOENT || errsv == ENOTDIR)
            return TRUE;
          set_key_error (self, error, errsv, "remove", key);
          return FALSE;
        }
      if (dir_fd != self->root_fd)
        close (dir_fd);
      dir_fd = fd;
    }

  last = segments[n - 1];
  if (fstatat (dir_fd, last, &st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      int errsv = errno;

      if (dir_fd != self->root_fd)
        close (dir_fd);
      if (errsv == ENOENT)
        return TRUE;
      set_key_error (self, error, errsv, "remove", key);
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    ok = remove_tree_at (self, key, dir_fd, last, 0, error);
  else if (unlinkat (dir_fd, last, 0) < 0 && errno != ENOENT)
    {
      set_key_error (self, error, errno, "remove", key);
      ok = FALSE;
    }
  else
    ok = TRUE;
  if (dir_fd != self->root_fd)
    close (dir_fd);

  if (ok)
    prune_empty_parents (self, key);
  return ok;
}

static gboolean
ncz_file_store_get_length (NczStore     *store,
                           const char   *key,
                           guint64      *length,
                           GCancellable *cancellable,
                           GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  struct stat st;
  int fd;

  if (!check_ready (self, error))
    return FALSE;
  fd = open_beneath (self, key, O_PATH, 0);
  if (fd < 0 || fstat (fd, &st) < 0)
    {
      int errsv = errno;

      if (fd >= 0)
        close (fd);
      if (errsv == ENOENT && !check_tree_alive (self, key, error))
        return FALSE;
      set_key_error (self, error, errsv, "stat", key);
      return FALSE;
    }
  close (fd);
  if (S_ISLNK (st.st_mode))
    {
      set_key_error (self, error, ELOOP, "stat", key);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object '%s' in store '%s': it is %s", key, self->root,
                   S_ISDIR (st.st_mode) ? "a directory (a prefix of other keys)"
                                        : "not a regular file");
      return FALSE;
    }
  *length = (guint64) st.st_size;
  return TRUE;
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char **
ncz_file_store_list (NczStore     *store,
                     const char   *prefix,
                     GCancellable *cancellable,
                     GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  struct dirent *de;
  DIR *dir;
  int fd;

  if (!check_ready (self, error))
    return NULL;

  fd = open_beneath (self, prefix[0] ? prefix : ".", O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0)
    {
      /* A missing prefix, or an object (which has no children). */
      if (errno == ENOENT || errno == ENOTDIR)
        return check_tree_alive (self, prefix, error) ? g_new0 (char *, 1) : NULL;
      set_key_error (self, error, errno, "list", prefix);
      return NULL;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      int errsv = errno;

      close (fd);
      set_key_error (self, error, errsv, "list", prefix);
      return NULL;
    }

  for (;;)
    {
      const char *name;

      errno = 0;
      de = readdir (dir);
      if (de == NULL)
        break;
      name = de->d_name;
      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0 || is_temp_name (name))
        continue;
      switch (de->d_type)
        {
        case DT_FIFO:
        case DT_SOCK:
        case DT_CHR:
        case DT_BLK:
          continue;
        default:
          break;
        }
      /* Names that could not be used as a key segment are not shown. */
      if (!ncz_store_key_is_valid (name, FALSE, NULL))
        continue;
      g_ptr_array_add (names, g_strdup (name));
    }
  if (errno != 0)
    {
      set_key_error (self, error, errno, "list", prefix);
      closedir (dir);
      return NULL;
    }
  closedir (dir);

  g_ptr_array_sort_with_data (names, compare_names, NULL);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* Reads from local files are mostly copies from the page cache, work of
 * the CPU: more requests in flight than CPU workers gain nothing, and
 * handing each object from an I/O thread to the worker that decodes it
 * costs the worker its warm caches. A dataset on a network file system
 * can still ask for more (NczDataset:io-depth, NCZ_IO_DEPTH). */
/* The lock file beside the dataset (beside what a link at the root
 * points to); inside the root where its directory cannot take one (a
 * dataset writable under a read-only parent). */
static NczLockFile *
get_lock_file (NczFileStore *self,
               GError      **error)
{
  NczLockFile *lf;

  g_mutex_lock (&self->lock_mutex);
  if (self->lock_file == NULL)
    {
      g_autoptr(GError) local = NULL;
      g_autofree char *path = ncz_lock_file_path_for (self->target != NULL ? self->target
                                                                            : self->root);
      self->lock_file = ncz_lock_file_open (path, &local);
      if (self->lock_file == NULL &&
          g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION))
        {
          g_autofree char *inside = g_build_filename (self->target != NULL ? self->target
                                                                            : self->root,
                                                      ".ncz-lock", NULL);
          self->lock_file = ncz_lock_file_open (inside, NULL);
        }
      if (self->lock_file == NULL)
        g_propagate_prefixed_error (error, g_steal_pointer (&local), "store '%s': ",
                                    self->root);
    }
  lf = self->lock_file;
  g_mutex_unlock (&self->lock_mutex);
  return lf;
}

static gboolean
ncz_file_store_lock_key (NczStore     *store,
                         const char   *key,
                         gint64        timeout_ms,
                         GCancellable *cancellable,
                         GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  NczLockFile *lf;

  if (!check_ready (self, error))
    return FALSE;
  lf = get_lock_file (self, error);
  if (lf == NULL)
    return FALSE;
  if (ncz_lock_file_lock_key (lf, key, timeout_ms, cancellable, error))
    return TRUE;
  g_prefix_error (error, "store '%s': ", self->root);
  return FALSE;
}

static void
ncz_file_store_unlock_key (NczStore   *store,
                           const char *key)
{
  NczFileStore *self = NCZ_FILE_STORE (store);

  if (self->lock_file != NULL)
    ncz_lock_file_unlock_key (self->lock_file, key);
}

static guint
ncz_file_store_get_io_depth_hint (NczStore *store)
{
  return 1;
}

static void
ncz_file_store_store_init (NczStoreInterface *iface)
{
  iface->get_io_depth_hint = ncz_file_store_get_io_depth_hint;
  iface->read_ranges = ncz_file_store_read_ranges;
  iface->read = ncz_file_store_read;
  iface->write = ncz_file_store_write;
  iface->remove = ncz_file_store_remove;
  iface->get_length = ncz_file_store_get_length;
  iface->list = ncz_file_store_list;
  iface->commit = ncz_file_store_commit;
  iface->discard = ncz_file_store_discard;
  iface->lock_key = ncz_file_store_lock_key;
  iface->unlock_key = ncz_file_store_unlock_key;
}

/* Removes a directory tree or a file at an absolute path, never
 * following symbolic links. Failures are not errors: what is left is a
 * leftover the next writer removes. */
static void
remove_path (NczFileStore *self,
             const char   *path)
{
  g_autoptr(GError) error = NULL;
  struct stat st;

  if (lstat (path, &st) < 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      if (unlink (path) < 0)
        g_debug ("cannot remove '%s': %s", path, g_strerror (errno));
      return;
    }
  if (!remove_tree_at (self, path, AT_FDCWD, path, 0, &error))
    g_debug ("cannot remove '%s': %s", path, error->message);
}

/* Entries beside a dataset (<ncz/ncz-staging.h>): "init" (a stage being
 * set up, for the microseconds before its writer locks it), "new" (a
 * stage, locked shared by its writer while it lives) and "old" (a dataset
 * swapped out while readers still had it open, locked shared by each of
 * them, so named for no process). A stage is named "init" until it is
 * locked because versions of Ncz that wrote no owner in the name take an
 * unlocked "new" for a dead writer's. */
static const NczStagingKind staging_kinds[] = {
  { "init", TRUE, NCZ_STAGING_LOCK_NONE },
  { "new", TRUE, NCZ_STAGING_LOCK_FLOCK },
  { "old", TRUE, NCZ_STAGING_LOCK_FLOCK },
};

static void
remove_leftover (const char *path,
                 gboolean    directory,
                 gpointer    user_data)
{
  remove_path (user_data, path);
}

/* Removes what earlier writers and readers of the dataset left beside
 * it: stages of writers that died and trees swapped out whose last
 * reader could not remove them (the rule is ncz_staging_remove_leftovers()'s). */
static void
remove_leftovers (NczFileStore *self)
{
  ncz_staging_remove_leftovers (self->target, staging_kinds, G_N_ELEMENTS (staging_kinds),
                                remove_leftover, self);
}

/* @template (ending in "XXXXXX") with the random part of @path */
static char *
with_random_part_of (char       *template,
                     const char *path)
{
  gsize n = strlen (template), m = strlen (path);

  g_assert (n >= 6 && m >= 6);
  memcpy (template + n - 6, path + m - 6, 6);
  return template;
}

/* The name a swapped-out tree at @path takes while readers have it: an
 * "old" entry of this host, for no process (its readers' locks keep it). */
static char *
retired_name (NczFileStore *self,
              const char   *path)
{
  return with_random_part_of (ncz_staging_path_for_owner (self->target, "old",
                                                          ncz_staging_get_host_tag (), 0),
                              path);
}

/* Disposes of a tree swapped out by a commit (at @path): removed now
 * if nobody reads it, otherwise renamed to an "old" entry and left to
 * its last reader or the next writer. */
static void
retire_tree (NczFileStore *self,
             const char   *path)
{
  struct stat st;
  int fd;

  if (lstat (path, &st) < 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      unlink (path);
      return;
    }
  fd = ncz_staging_lock_if_abandoned (path, TRUE, NCZ_STAGING_LOCK_FLOCK);
  if (fd >= 0)
    {
      remove_path (self, path);
      close (fd);
    }
  else
    {
      g_autofree char *old = retired_name (self, path);

      if (strcmp (old, path) != 0 && rename (path, old) < 0)
        {
          g_debug ("cannot rename '%s': %s", path, g_strerror (errno));
          return;
        }
      /* retired now: a scan on another host measures its age from here,
       * not from the dataset's last change */
      if (utimensat (AT_FDCWD, old, NULL, AT_SYMLINK_NOFOLLOW) < 0)
        g_debug ("cannot touch '%s': %s", old, g_strerror (errno));
    }
}

/* Whether what is at the target may be replaced: nothing, a regular
 * file, an empty directory or a Zarr store; never a directory with
 * other content. */
static gboolean
check_target (NczFileStore *self,
              gboolean     *exists,
              GError      **error)
{
  gboolean has_entries = FALSE;
  gboolean is_store = FALSE;
  struct dirent *de;
  struct stat st;
  DIR *dir;
  int fd;

  *exists = FALSE;
  if (stat (self->target, &st) < 0)
    {
      int errsv = errno;

      if (errsv == ENOENT)
        return TRUE;
      g_set_error (error, NCZ_STORAGE_ERROR,
                   errsv == ENOTDIR ? NCZ_STORAGE_ERROR_FAILED : storage_code_for_errno (errsv),
                   "cannot create store '%s': %s", self->root, g_strerror (errsv));
      return FALSE;
    }
  *exists = TRUE;
  if (S_ISREG (st.st_mode))
    return TRUE;
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS,
                   "cannot create store '%s': something that is neither a directory "
                   "nor a regular file is in the way", self->root);
      return FALSE;
    }

  fd = open (self->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      int errsv = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                   "cannot replace store '%s': %s", self->root, g_strerror (errsv));
      return FALSE;
    }
  while ((de = readdir (dir)) != NULL)
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      has_entries = TRUE;
      for (gsize i = 0; i < G_N_ELEMENTS (store_markers); i++)
        if (strcmp (de->d_name, store_markers[i]) == 0)
          is_store = TRUE;
    }
  closedir (dir);

  if (has_entries && !is_store)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS,
                   "cannot create store '%s': the directory is not empty and does not "
                   "look like a Zarr store (no .zgroup, .zarray, .zattrs, .zmetadata "
                   "or .nczarr at its top); remove it first", self->root);
      return FALSE;
    }
  return TRUE;
}

/* Removes the parents of the target that prepare_create() made, if
 * they are still empty. */
static void
remove_made_parents (NczFileStore *self)
{
  if (self->made_parents == NULL)
    return;
  for (guint i = self->made_parents->len; i > 0; i--)
    rmdir (g_ptr_array_index (self->made_parents, i - 1));
  g_clear_pointer (&self->made_parents, g_ptr_array_unref);
}

/* Makes the missing parents of the target, remembering them so that a
 * discarded store leaves no trace. */
static gboolean
make_missing_parents (NczFileStore *self,
                      GError      **error)
{
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  char *dir = g_path_get_dirname (self->target);
  struct stat st;

  while (lstat (dir, &st) < 0 && errno == ENOENT)
    {
      char *up = g_path_get_dirname (dir);

      g_ptr_array_add (missing, dir);
      if (strcmp (up, dir) == 0)
        {
          g_free (up);
          dir = NULL;
          break;
        }
      dir = up;
    }
  g_free (dir);

  self->made_parents = g_ptr_array_new_with_free_func (g_free);
  for (guint i = missing->len; i > 0; i--)
    {
      const char *path = g_ptr_array_index (missing, i - 1);

      if (mkdir (path, 0777) < 0 && errno != EEXIST)
        {
          int errsv = errno;

          remove_made_parents (self);
          g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                       "cannot create store '%s': cannot make the directory '%s': %s",
                       self->root, path, g_strerror (errsv));
          return FALSE;
        }
      g_ptr_array_add (self->made_parents, g_strdup (path));
    }
  return TRUE;
}

/* Makes the directory the new dataset is written in, beside the
 * target, and locks it: returns its descriptor, or -1 with @error set
 * and nothing changed. */
static int
start_stage (NczFileStore *self,
             gboolean      exists,
             GError      **error)
{
  g_autofree char *parent = g_path_get_dirname (self->target);
  g_autofree char *init = ncz_staging_path_for (self->target, "init");
  g_autofree char *stage = NULL;
  int fd = -1, errsv;

  remove_leftovers (self);
  if (g_mkdtemp_full (init, 0777) == NULL)
    {
      errsv = errno;
      goto failed;
    }
  fd = open (init, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      errsv = errno;
      rmdir (init);
      goto failed;
    }
  /* locked before it gets the name other writers look at: a stage that
   * can be locked exclusively is a dead writer's (where the file system
   * has no locks, only the owner in its name keeps it) */
  if (!ncz_staging_hold_lock (fd, NCZ_STAGING_LOCK_FLOCK))
    g_debug ("cannot lock the stage '%s': %s", init, g_strerror (errno));
  stage = with_random_part_of (ncz_staging_path_for (self->target, "new"), init);
  if (rename (init, stage) < 0)
    {
      errsv = errno;
      close (fd);
      rmdir (init);
      goto failed;
    }
  self->stage = g_steal_pointer (&stage);
  return fd;

failed:
  if (exists)
    g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                 "cannot replace store '%s': the new dataset cannot be written beside "
                 "it in '%s': %s; the existing dataset is unchanged",
                 self->root, parent, g_strerror (errsv));
  else
    g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                 "cannot create store '%s': the new dataset cannot be written in '%s': %s",
                 self->root, parent, g_strerror (errsv));
  return -1;
}

/* The path a link at the root points to (replacing a dataset through a
 * link replaces what it links to, and its leftovers live beside that). */
static char *
resolve_target (const char *root)
{
  struct stat st;
  char *real;
  char *result;

  if (lstat (root, &st) < 0 || !S_ISLNK (st.st_mode) || (real = realpath (root, NULL)) == NULL)
    return g_strdup (root);
  result = g_strdup (real);
  free (real);
  return result;
}

/* CREATE: never writes at the target itself. The new dataset is written
 * in a stage beside it, which commit swaps in; whatever is at the target
 * stays as it was until then. Returns the stage's descriptor or -1. */
static int
prepare_create (NczFileStore *self,
                GError      **error)
{
  gboolean exists;
  int fd;

  if (!check_target (self, &exists, error))
    return -1;
  self->target_existed = exists;
  if (!exists && !make_missing_parents (self, error))
    return -1;
  fd = start_stage (self, exists, error);
  if (fd < 0)
    remove_made_parents (self);
  return fd;
}

static gboolean
ncz_file_store_commit (NczStore     *store,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_autofree char *old = NULL;
  gboolean exists;
  struct stat st;
  int errsv;

  if (self->stage == NULL)
    return !g_atomic_int_get (&self->wrote) || check_tree_current (self, "", error);

  /* nothing at the target: the new dataset takes its place */
  if (lstat (self->target, &st) < 0 && errno == ENOENT)
    {
      if (renameat2 (AT_FDCWD, self->stage, AT_FDCWD, self->target, RENAME_NOREPLACE) == 0)
        goto done;
      errsv = errno;
      if ((errsv == EINVAL || errsv == ENOSYS || errsv == ENOTSUP) &&
          access (self->target, F_OK) < 0)
        {
          if (rename (self->stage, self->target) == 0)
            goto done;
          errsv = errno;
        }
      if (errsv != EEXIST && errsv != ENOTEMPTY)
        goto failed;
    }

  /* something is there (maybe made meanwhile): replace it if it still
   * may be, in one atomic swap where the file system has it, so the path
   * holds either the previous dataset or the new one at every moment */
  if (!check_target (self, &exists, error))
    return FALSE;
  if (renameat2 (AT_FDCWD, self->stage, AT_FDCWD, self->target, RENAME_EXCHANGE) == 0)
    {
      retire_tree (self, self->stage);   /* now the previous dataset */
      goto done;
    }
  errsv = errno;
  if (errsv != EINVAL && errsv != ENOSYS && errsv != ENOTSUP)
    goto failed;
  old = retired_name (self, self->stage);
  if (rename (self->target, old) < 0)
    {
      errsv = errno;
      goto failed;
    }
  if (rename (self->stage, self->target) < 0)
    {
      errsv = errno;
      rename (old, self->target);
      goto failed;
    }
  retire_tree (self, old);

done:
  g_clear_pointer (&self->stage, g_free);
  g_clear_pointer (&self->made_parents, g_ptr_array_unref);   /* they hold it now */
  return TRUE;

failed:
  g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
               "cannot put the new store '%s' in place: %s (what was there is unchanged; "
               "the new one is in '%s')",
               self->root, g_strerror (errsv), self->stage);
  return FALSE;
}

static void
ncz_file_store_discard (NczStore *store)
{
  NczFileStore *self = NCZ_FILE_STORE (store);

  if (self->stage == NULL)
    return;
  remove_path (self, self->stage);
  g_clear_pointer (&self->stage, g_free);
  remove_made_parents (self);
}

/* Readers and writers of an existing dataset: opens the tree at the
 * root and locks it shared, making sure the tree locked is the one at
 * the path (a writer may swap it out between the open and the lock, and
 * a tree locked exclusively is being removed). Returns -1 with @error
 * set on failure. */
#define OPEN_ATTEMPTS 2000

static int
open_current_tree (NczFileStore *self,
                   GError      **error)
{
  for (int attempt = 0;; attempt++)
    {
      struct stat here, there;
      int fd = open (self->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

      if (fd < 0)
        {
          int errsv = errno;

          if (errsv == ENOENT)
            g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                         "no store at '%s': no such directory", self->root);
          else if (errsv == ENOTDIR)
            g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                         "no store at '%s': not a directory", self->root);
          else
            g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                         "cannot open store '%s': %s", self->root, g_strerror (errsv));
          return -1;
        }
      self->locked = flock (fd, LOCK_SH | LOCK_NB) == 0;
      if (!self->locked && errno != EWOULDBLOCK)
        return fd;   /* no locks on this file system: no consistent view either */
      if (self->locked && fstat (fd, &here) == 0 && stat (self->root, &there) == 0 &&
          here.st_dev == there.st_dev && here.st_ino == there.st_ino)
        return fd;
      close (fd);
      if (attempt >= OPEN_ATTEMPTS)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                       "cannot open store '%s': it was replaced %d times while being "
                       "opened", self->root, attempt);
          return -1;
        }
      g_usleep (attempt < 10 ? 0 : 1000);
    }
}

/* A reader whose tree was swapped out by a writer while it read it
 * removes the tree when it is the last one to leave, if it may. */
static void
remove_if_orphaned (NczFileStore *self)
{
  g_autofree char *parent = NULL;
  g_autoptr(GDir) dir = NULL;
  struct stat st;
  const char *name;

  if (!self->locked || self->stage != NULL || self->target == NULL)
    return;
  if (stat (self->target, &st) == 0 && st.st_dev == self->root_dev && st.st_ino == self->root_ino)
    return;   /* still the dataset */
  if (flock (self->root_fd, LOCK_EX | LOCK_NB) < 0)
    return;   /* others still read it */
  parent = g_path_get_dirname (self->target);
  dir = g_dir_open (parent, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;

      /* swapped out: renamed "old", or still under the stage's name */
      if (!ncz_staging_parse (self->target, name, "old", NULL) &&
          !ncz_staging_parse (self->target, name, "new", NULL))
        continue;
      path = g_build_filename (parent, name, NULL);
      if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode) &&
          st.st_dev == self->root_dev && st.st_ino == self->root_ino)
        {
          remove_path (self, path);
          break;
        }
    }
}

static gboolean
ncz_file_store_initable_init_impl (GInitable     *initable,
                                   GCancellable  *cancellable,
                                   GError       **error)
{
  NczFileStore *self = NCZ_FILE_STORE (initable);
  const char *path;
  struct stat st;
  gsize len;
  int fd;

  if (self->root_fd >= 0)
    return TRUE;

  if (self->url == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "the file store was created without a URL");
      return FALSE;
    }
  path = ncz_url_get_local_path (self->url);
  if (path == NULL || path[0] == '\0')
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "URL '%s' does not name a local directory",
                   ncz_url_get_original (self->url));
      return FALSE;
    }

  g_clear_pointer (&self->root, g_free);
  if (g_path_is_absolute (path))
    self->root = g_strdup (path);
  else
    {
      g_autofree char *cwd = g_get_current_dir ();

      self->root = g_build_filename (cwd, path, NULL);
    }
  len = strlen (self->root);
  while (len > 1 && self->root[len - 1] == '/')
    self->root[--len] = '\0';
  g_clear_pointer (&self->target, g_free);
  self->target = resolve_target (self->root);

  if ((self->flags & NCZ_STORE_CREATE) != 0)
    {
      fd = prepare_create (self, error);
      if (fd < 0)
        return FALSE;
      self->locked = TRUE;
      self->fresh = TRUE;
    }
  else
    {
      fd = open_current_tree (self, error);
      if (fd < 0)
        return FALSE;
    }
  if (fstat (fd, &st) == 0)
    {
      self->root_dev = st.st_dev;
      self->root_ino = st.st_ino;
    }
  self->root_fd = fd;
  return TRUE;
}

static void
ncz_file_store_initable_init (GInitableIface *iface)
{
  iface->init = ncz_file_store_initable_init_impl;
}

static void
ncz_file_store_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  NczFileStore *self = NCZ_FILE_STORE (object);

  if (!ncz_store_get_construct_property (pspec, value, self->url, self->flags))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_file_store_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NczFileStore *self = NCZ_FILE_STORE (object);

  if (!ncz_store_set_construct_property (pspec, value, &self->url, &self->flags))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_file_store_finalize (GObject *object)
{
  NczFileStore *self = NCZ_FILE_STORE (object);

  /* a replacement never committed: what was at the path stays */
  ncz_file_store_discard (NCZ_STORE (self));
  if (self->root_fd >= 0)
    {
      remove_if_orphaned (self);
      close (self->root_fd);
    }
  g_free (self->root);
  g_free (self->target);
  g_clear_object (&self->url);
  g_clear_pointer (&self->lock_file, ncz_lock_file_close);
  g_mutex_clear (&self->lock_mutex);

  G_OBJECT_CLASS (ncz_file_store_parent_class)->finalize (object);
}

static void
ncz_file_store_class_init (NczFileStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ncz_file_store_get_property;
  object_class->set_property = ncz_file_store_set_property;
  object_class->finalize = ncz_file_store_finalize;

  ncz_store_class_override_properties (object_class, PROP_URL, PROP_FLAGS);
}

static void
ncz_file_store_init (NczFileStore *self)
{
  self->root_fd = -1;
  g_mutex_init (&self->lock_mutex);
}
