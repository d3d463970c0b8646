/* ncz-file-store.c: directory-tree storage driver
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ncz-file-store.h"
#include "ncz-model-private.h"

/* NczFileStore: each object is a regular file under the root directory,
 * key "a/b/.zarray" being the file root/a/b/.zarray; prefixes are
 * directories.
 *
 * Every operation goes through a descriptor of the root directory opened
 * once, with *at() system calls on the key as a relative path, so a store
 * keeps working on the directory it opened. Objects are written to a
 * temporary file beside the target and renamed over it, so a failed write
 * never damages what was there; a store being created (an empty root, or
 * a replacement written beside the old store until commit) writes objects
 * that do not exist yet in place, since there is nothing to damage. Removal never follows symbolic links.
 * The only state is the root descriptor: calls from several threads at
 * once are safe.
 */
struct _NczFileStore
{
  GObject parent_instance;

  NczUrl *url;
  guint flags;
  char *root;       /* absolute path of the root directory, for messages */
  int root_fd;      /* -1 until initialized */
  char *stage;      /* CREATE over something: the replacement being written
                     * beside it, swapped in by commit; NULL otherwise */
  /* CREATE: the root started empty, so whatever exists in it this store
   * made: new objects are written in place (nothing to protect), and the
   * directories made are known, which spares a failed open per new one */
  GMutex made_lock;
  GHashTable *made_dirs;   /* directories made, keys relative to the root */
};

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

static void
set_key_error_code (NczFileStore *self,
                    GError      **error,
                    int           code,
                    int           errsv,
                    const char   *action,
                    const char   *key)
{
  g_set_error (error, NCZ_STORAGE_ERROR, code, "cannot %s “%s” in store “%s”: %s",
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
    g_set_error (error, NCZ_STORAGE_ERROR, code, "no object “%s” in store “%s”",
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

static gboolean
check_writable (NczFileStore *self,
                const char   *key,
                GError      **error)
{
  if (!check_ready (self, error))
    return FALSE;
  if ((self->flags & (NCZ_STORE_WRITE | NCZ_STORE_CREATE)) != 0)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
               "cannot change “%s”: store “%s” was opened read-only", key, self->root);
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

/* Creates the directories of @dir ("a/b/c") under the root; returns 0 or
 * an errno value. */
static int
make_parents (NczFileStore *self,
              const char   *dir)
{
  /* Usually only the last directory is missing: try it first and walk
   * up only while parents are missing too (each mkdir is costly on some
   * file systems). */
  char *slash;

  if (mkdirat (self->root_fd, dir, 0777) == 0 || errno == EEXIST)
    return 0;
  if (errno != ENOENT)
    return errno;
  slash = strrchr (dir, '/');
  if (slash == NULL)
    return ENOENT;
  {
    g_autofree char *parent = g_strndup (dir, slash - dir);
    int err = make_parents (self, parent);
    if (err != 0)
      return err;
  }
  if (mkdirat (self->root_fd, dir, 0777) < 0 && errno != EEXIST)
    return errno;
  return 0;
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
      data += n;
      size -= (gsize) n;
    }
  return TRUE;
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
  struct stat st;
  guint64 size, n;
  guint8 *buf = NULL;
  gsize done = 0, capacity = 0;
  int fd;

  if (!check_ready (self, error))
    return NULL;

  /* O_NONBLOCK: a FIFO planted in the tree must not hang the open. */
  fd = openat (self->root_fd, key, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      set_key_error (self, error, errno, "read", key);
      return NULL;
    }
  if (fstat (fd, &st) < 0)
    {
      int errsv = errno;

      close (fd);
      set_key_error (self, error, errsv, "read", key);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object “%s” in store “%s”: it is %s", key, self->root,
                   S_ISDIR (st.st_mode) ? "a directory (a prefix of other keys)"
                                        : "not a regular file");
      return NULL;
    }

  size = (guint64) st.st_size;
  if (offset > size)
    {
      close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "range beyond end: object “%s” in store “%s” is %" G_GUINT64_FORMAT
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
      close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read “%s” in store “%s”: %" G_GUINT64_FORMAT
                   " bytes do not fit in memory", key, self->root, n);
      return NULL;
    }
  if (n == 0)
    {
      close (fd);
      return g_bytes_new (NULL, 0);
    }

  while (done < n)
    {
      ssize_t r = pread (fd, buf + done, MIN ((gsize) n - done, (gsize) G_MAXSSIZE),
                         (off_t) (offset + done));

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          int errsv = errno;

          close (fd);
          ncz_buffer_release (buf, capacity);
          if (r == 0)
            g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                         "cannot read “%s” in store “%s”: the file was truncated "
                         "while being read", key, self->root);
          else
            set_key_error (self, error, errsv, "read", key);
          return NULL;
        }
      done += (gsize) r;
    }
  close (fd);
  return ncz_buffer_new_bytes (buf, (gsize) n, capacity);
}

/* In a store being created: makes sure directory @dir (NULL: the root)
 * exists, remembering the ones made. */
static void
ensure_made_dir (NczFileStore *self,
                 const char   *dir)
{
  gboolean known;

  if (dir == NULL)
    return;
  g_mutex_lock (&self->made_lock);
  known = g_hash_table_contains (self->made_dirs, dir);
  g_mutex_unlock (&self->made_lock);
  if (!known && make_parents (self, dir) == 0)
    {
      g_mutex_lock (&self->made_lock);
      g_hash_table_add (self->made_dirs, g_strdup (dir));
      g_mutex_unlock (&self->made_lock);
    }
}

/* In a store being created: writes @key in place if no object is there
 * yet. Returns 1 when written, 0 when something exists at @key (the
 * caller replaces it through a temporary file), -1 on error; a failed
 * write leaves nothing behind. */
static int
write_new_object (NczFileStore *self,
                  const char   *key,
                  const char   *dir,
                  GBytes       *data,
                  GError      **error)
{
  gconstpointer bytes;
  gsize size;
  int fd, errsv;

  ensure_made_dir (self, dir);
  fd = openat (self->root_fd, key, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && errno == ENOENT && dir != NULL && make_parents (self, dir) == 0)
    fd = openat (self->root_fd, key, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return errno == EEXIST || errno == ENOTDIR ? 0 : (set_write_error (self, error, errno, key), -1);
  bytes = g_bytes_get_data (data, &size);
  if (!write_all (fd, bytes, size))
    {
      errsv = errno;
      close (fd);
      unlinkat (self->root_fd, key, 0);
      set_write_error (self, error, errsv, key);
      return -1;
    }
  if (close (fd) < 0)
    {
      errsv = errno;
      unlinkat (self->root_fd, key, 0);
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
  const char *slash = strrchr (key, '/');
  const char *base = slash ? slash + 1 : key;
  gsize dir_len = slash ? (gsize) (slash - key) : 0;
  g_autofree char *dir = slash ? g_strndup (key, dir_len) : NULL;
  g_autofree char *tmp = NULL;
  gconstpointer bytes;
  gsize size;
  int fd = -1;
  int errsv;

  if (!check_writable (self, key, error))
    return FALSE;

  /* A store being created holds only what it wrote: an object that does
   * not exist yet replaces nothing and is written in place. */
  if (self->made_dirs != NULL)
    {
      int done = write_new_object (self, key, dir, data, error);
      if (done != 0)
        return done > 0;
    }

  tmp = g_strdup_printf ("%s%s.%.*s" TEMP_INFIX "XXXXXX",
                         dir ? dir : "", dir ? "/" : "",
                         (int) MIN (strlen (base), TEMP_BASE_MAX), base);

  /* The parent directories usually exist: create them only when needed,
   * and again if a concurrent removal pruned them meanwhile. A created
   * store knows which exist. */
  errsv = 0;
  for (int attempt = 0; attempt < 4; attempt++)
    {
      fd = create_temp_at (self->root_fd, tmp);
      errsv = fd < 0 ? errno : 0;
      if (fd >= 0 || errsv != ENOENT || dir == NULL)
        break;
      errsv = make_parents (self, dir);
      if (errsv != 0)
        break;
    }
  if (fd < 0)
    {
      if (errsv == ENOTDIR || errsv == EEXIST)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "cannot write “%s” in store “%s”: a part of “%s” is an object, "
                     "not a prefix", key, self->root, dir ? dir : key);
      else
        set_write_error (self, error, errsv, key);
      return FALSE;
    }

  /* Metadata objects (".zarray", ".zattrs"...) that replace an existing
   * one reach the disk before the rename, so a crash never leaves an
   * empty object where a good one was; new objects and chunks are not
   * worth the wait. */
  gboolean durable = FALSE;
  if (base[0] == '.')
    {
      struct stat st;
      durable = fstatat (self->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
  bytes = g_bytes_get_data (data, &size);
  if (!write_all (fd, bytes, size) || (durable && fsync (fd) < 0))
    {
      errsv = errno;
      close (fd);
      unlinkat (self->root_fd, tmp, 0);
      set_write_error (self, error, errsv, key);
      return FALSE;
    }
  if (close (fd) < 0)
    {
      errsv = errno;
      unlinkat (self->root_fd, tmp, 0);
      set_write_error (self, error, errsv, key);
      return FALSE;
    }

  if (renameat (self->root_fd, tmp, self->root_fd, key) < 0)
    {
      errsv = errno;
      unlinkat (self->root_fd, tmp, 0);
      if (errsv == EISDIR || errsv == ENOTEMPTY || errsv == EEXIST)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "cannot write “%s” in store “%s”: it is a directory "
                     "(a prefix of other keys)", key, self->root);
      else
        set_write_error (self, error, errsv, key);
      return FALSE;
    }
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
                   "cannot remove “%s” in store “%s”: directories nested deeper "
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
      *slash = '\0';
      if (unlinkat (self->root_fd, path, AT_REMOVEDIR) < 0)
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
                           "cannot remove “%s” in store “%s”: “%s” is a symbolic link",
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

  if (!check_ready (self, error))
    return FALSE;
  if (fstatat (self->root_fd, key, &st, 0) < 0)
    {
      set_key_error (self, error, errno, "stat", key);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object “%s” in store “%s”: it is %s", key, self->root,
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

  fd = openat (self->root_fd, prefix[0] ? prefix : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      /* A missing prefix, or an object (which has no children). */
      if (errno == ENOENT || errno == ENOTDIR)
        return g_new0 (char *, 1);
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

static void
ncz_file_store_store_init (NczStoreInterface *iface)
{
  iface->read = ncz_file_store_read;
  iface->write = ncz_file_store_write;
  iface->remove = ncz_file_store_remove;
  iface->get_length = ncz_file_store_get_length;
  iface->list = ncz_file_store_list;
  iface->commit = ncz_file_store_commit;
  iface->discard = ncz_file_store_discard;
}

static gboolean start_stage (NczFileStore *self);

/* CREATE: replaces what is at the root path by an empty directory, but
 * never a directory that has content and does not look like a store. An
 * existing store or file is replaced only when the new store is
 * committed (ncz_store_commit()): until then it is written beside it. */
static gboolean
prepare_create (NczFileStore *self,
                GError      **error)
{
  struct stat st;
  gboolean has_entries = FALSE;
  gboolean is_store = FALSE;
  struct dirent *de;
  DIR *dir;
  int fd;

  if (stat (self->root, &st) < 0)
    {
      int errsv = errno;

      if (errsv == ENOENT)
        {
          if (g_mkdir_with_parents (self->root, 0777) == 0)
            return TRUE;
          errsv = errno;
        }
      g_set_error (error, NCZ_STORAGE_ERROR,
                   errsv == ENOTDIR ? NCZ_STORAGE_ERROR_FAILED : storage_code_for_errno (errsv),
                   "cannot create store “%s”: %s", self->root, g_strerror (errsv));
      return FALSE;
    }

  if (S_ISREG (st.st_mode))
    {
      if (start_stage (self))
        return TRUE;
      if (unlink (self->root) < 0 || mkdir (self->root, 0777) < 0)
        {
          int errsv = errno;

          g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                       "cannot replace the file “%s” by a store: %s",
                       self->root, g_strerror (errsv));
          return FALSE;
        }
      return TRUE;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS,
                   "cannot create store “%s”: something that is neither a directory "
                   "nor a regular file is in the way", self->root);
      return FALSE;
    }

  fd = open (self->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      int errsv = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                   "cannot replace store “%s”: %s", self->root, g_strerror (errsv));
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

  if (!has_entries)
    return TRUE;
  if (!is_store)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS,
                   "cannot create store “%s”: the directory is not empty and does not "
                   "look like a Zarr store (no .zgroup, .zarray, .zattrs, .zmetadata "
                   "or .nczarr at its top); remove it first", self->root);
      return FALSE;
    }

  /* the previous store stays intact until the new one is committed */
  if (start_stage (self))
    return TRUE;
  fd = open (self->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;

      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                   "cannot replace store “%s”: %s", self->root, g_strerror (errsv));
      return FALSE;
    }
  return clear_dir_fd (self, "", fd, 0, error);
}

/* Removes a directory tree or a file at an absolute path, never
 * following symbolic links; warns when it cannot. */
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
        g_warning ("cannot remove “%s”: %s", path, g_strerror (errno));
      return;
    }
  if (!remove_tree_at (self, path, AT_FDCWD, path, 0, &error))
    g_warning ("cannot remove “%s”: %s", path, error->message);
}

/* CREATE over an existing store or file: the new store is written in a
 * directory beside it (".NAME.ncz-new-XXXXXX" in the same parent, so on
 * the same file system) and swapped in by commit. FALSE when the parent
 * does not allow it: then the store is replaced in place. */
/* Removes the replacements of earlier writers of this store that died
 * before committing: a writer holds a shared lock on its staging
 * directory while it lives, so one that can be locked exclusively (and
 * is old enough not to be a writer that has not locked it yet) is
 * abandoned. */
#define STALE_STAGE_SECONDS 60

static void
remove_stale_stages (NczFileStore *self,
                     const char   *parent,
                     const char   *prefix)
{
  g_autoptr(GDir) dir = g_dir_open (parent, 0, NULL);
  const char *name;
  time_t now = time (NULL);

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      struct stat st;
      int fd;

      if (!g_str_has_prefix (name, prefix))
        continue;
      path = g_build_filename (parent, name, NULL);
      if (lstat (path, &st) < 0 || now - st.st_mtime < STALE_STAGE_SECONDS)
        continue;
      fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (S_ISDIR (st.st_mode) ? O_DIRECTORY : 0));
      if (fd < 0)
        continue;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        remove_path (self, path);
      close (fd);
    }
}

static gboolean
start_stage (NczFileStore *self)
{
  g_autofree char *parent = g_path_get_dirname (self->root);
  g_autofree char *base = g_path_get_basename (self->root);
  g_autofree char *prefix = g_strdup_printf (".%s.ncz-new-", base);
  g_autofree char *tmpl = g_strdup_printf ("%s/%sXXXXXX", parent, prefix);

  remove_stale_stages (self, parent, prefix);
  if (g_mkdtemp_full (tmpl, 0777) == NULL)
    return FALSE;
  self->stage = g_steal_pointer (&tmpl);
  return TRUE;
}

static gboolean
ncz_file_store_commit (NczStore     *store,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczFileStore *self = NCZ_FILE_STORE (store);
  g_autofree char *old = NULL;
  int errsv;

  if (self->stage == NULL)
    return TRUE;
  /* one atomic swap where the file system has it: at every moment the
   * path holds either the previous dataset or the new one */
  if (renameat2 (AT_FDCWD, self->stage, AT_FDCWD, self->root, RENAME_EXCHANGE) == 0)
    {
      remove_path (self, self->stage);   /* now the previous dataset */
      g_clear_pointer (&self->stage, g_free);
      return TRUE;
    }
  errsv = errno;
  if (errsv == ENOENT && access (self->root, F_OK) < 0)
    old = NULL;   /* the previous one is gone already */
  else if (errsv == EINVAL || errsv == ENOSYS || errsv == ENOTSUP)
    {
      old = g_strconcat (self->stage, ".old", NULL);
      if (rename (self->root, old) < 0)
        {
          errsv = errno;
          goto failed;
        }
    }
  else
    goto failed;
  if (rename (self->stage, self->root) < 0)
    {
      errsv = errno;
      if (old != NULL)
        rename (old, self->root);
      goto failed;
    }
  if (old != NULL)
    remove_path (self, old);
  g_clear_pointer (&self->stage, g_free);
  return TRUE;

failed:
  g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
               "cannot put the new store “%s” in place of the previous one: %s "
               "(the previous one is unchanged; the new one is in “%s”)",
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
}

static gboolean
ncz_file_store_initable_init_impl (GInitable     *initable,
                                   GCancellable  *cancellable,
                                   GError       **error)
{
  NczFileStore *self = NCZ_FILE_STORE (initable);
  const char *path;
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
                   "URL “%s” does not name a local directory",
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

  if ((self->flags & NCZ_STORE_CREATE) != 0 && !prepare_create (self, error))
    return FALSE;

  fd = open (self->stage ? self->stage : self->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;

      if (errsv == ENOENT)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                     "no store at “%s”: no such directory", self->root);
      else if (errsv == ENOTDIR)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                     "no store at “%s”: not a directory", self->root);
      else
        g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                     "cannot open store “%s”: %s", self->root, g_strerror (errsv));
      return FALSE;
    }
  /* held while this store lives: its replacement is not stale */
  if (self->stage != NULL)
    flock (fd, LOCK_SH | LOCK_NB);
  if ((self->flags & NCZ_STORE_CREATE) != 0)
    {
      self->made_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_FLAGS:
      g_value_set_uint (value, self->flags);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_file_store_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NczFileStore *self = NCZ_FILE_STORE (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_set_object (&self->url, g_value_get_object (value));
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_file_store_finalize (GObject *object)
{
  NczFileStore *self = NCZ_FILE_STORE (object);

  /* a replacement never committed: the previous store stays */
  ncz_file_store_discard (NCZ_STORE (self));
  if (self->root_fd >= 0)
    close (self->root_fd);
  g_clear_pointer (&self->made_dirs, g_hash_table_unref);
  g_mutex_clear (&self->made_lock);
  g_free (self->root);
  g_clear_object (&self->url);

  G_OBJECT_CLASS (ncz_file_store_parent_class)->finalize (object);
}

static void
ncz_file_store_class_init (NczFileStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ncz_file_store_get_property;
  object_class->set_property = ncz_file_store_set_property;
  object_class->finalize = ncz_file_store_finalize;

  properties[PROP_URL] =
    g_param_spec_object ("url", NULL, NULL, NCZ_TYPE_URL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FLAGS] =
    g_param_spec_uint ("flags", NULL, NULL, 0, G_MAXUINT, NCZ_STORE_READ,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ncz_file_store_init (NczFileStore *self)
{
  self->root_fd = -1;
  g_mutex_init (&self->made_lock);
}
