/* test-file-store.c: the directory-tree store
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <glib/gstdio.h>
#include <gmodule.h>

#include "ncz-file-store.h"
#include "store-checks.h"
#include <ncz/ncz-module.h>

/* System calls that misbehave on demand: the driver's sources are built
 * into this program, so its write() and pread() calls come here. Armed
 * with a count N, the Nth call on a descriptor above 2 from now returns 0:
 * a write that writes nothing, a read that finds the file shorter. */
static gint zero_write_in;
static gint short_pread_in;

static gboolean
fire (gint *countdown,
      int   fd)
{
  return fd > 2 && g_atomic_int_get (countdown) > 0 && g_atomic_int_dec_and_test (countdown);
}

ssize_t
write (int fd, const void *buf, size_t count)
{
  if (fire (&zero_write_in, fd))
    return 0;
  return syscall (SYS_write, fd, buf, count);
}

ssize_t
pread (int fd, void *buf, size_t count, off_t offset)
{
  if (fire (&short_pread_in, fd))
    return 0;
  return syscall (SYS_pread64, fd, buf, count, offset);
}

typedef struct {
  char *base;       /* a scratch directory holding the store and nothing else */
  char *root;       /* base/store */
  NczStore *store;  /* root opened with NCZ_STORE_CREATE */
} Fixture;

static NczStore *
open_store (const char *path,
            guint       flags,
            GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *uri = g_filename_to_uri (path, NULL, &local_error);
  g_autofree char *text = NULL;
  g_autoptr(NczUrl) url = NULL;

  g_assert_no_error (local_error);
  text = g_strconcat (uri, "#mode=nczarr,file", NULL);
  url = ncz_url_parse (text, &local_error);
  g_assert_no_error (local_error);
  g_assert_cmpstr (ncz_url_get_local_path (url), ==, path);

  return g_initable_new (NCZ_TYPE_FILE_STORE, NULL, error,
                         "url", url, "flags", flags, NULL);
}

/* Fails if a temporary file of a write was left anywhere under @path. */
static void
assert_no_temp_files (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      g_assert_null (strstr (name, ".tmp-"));
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        assert_no_temp_files (child);
    }
  g_dir_close (dir);
}

static void
write_file (const char *root,
            const char *relative,
            const char *text)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

/* The pid of a process that has ended (and been reaped). */
static guint
dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return (guint) pid;
}

/* The path of an entry beside @target named for @host and @pid, with
 * @random as its random part. */
static char *
owned_entry (const char *target,
             const char *kind,
             guint64     host,
             guint       pid,
             const char *random)
{
  char *path = ncz_staging_path_for_owner (target, kind, host, pid);

  g_assert_true (g_str_has_suffix (path, "XXXXXX"));
  memcpy (path + strlen (path) - 6, random, 6);
  return path;
}

/* Dates @path and everything in it to @times. */
static void
age_tree (const char      *path,
          struct utimbuf  *times)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      age_tree (child, times);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_assert_cmpint (utime (path, times), ==, 0);
}

static void
assert_file (const char *root,
             const char *relative,
             const char *text)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (contents, length, text, strlen (text));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->base = g_dir_make_tmp ("ncz-file-store-XXXXXX", &error);
  g_assert_no_error (error);
  f->root = g_build_filename (f->base, "store", NULL);
  f->store = open_store (f->root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (NCZ_IS_STORE (f->store));
  /* created beside the path and put there by the commit; the store goes
   * on writing there */
  g_assert_false (g_file_test (f->root, G_FILE_TEST_EXISTS));
  g_assert_true (ncz_store_commit (f->store, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (f->root, G_FILE_TEST_IS_DIR));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  store_release (&f->store);
  rm_rf (f->base);
  g_free (f->root);
  g_free (f->base);
}

typedef void (*StoreCheck) (NczStore *store);

static void
run_check (Fixture       *f,
           gconstpointer  data)
{
  StoreCheck check = (StoreCheck) data;
  g_autofree char *entries = NULL;

  check (f->store);

  /* Nothing was ever written beside the store, nothing was left in it. */
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "store");
  g_clear_pointer (&entries, g_free);
  entries = dir_entries (f->root);
  g_assert_cmpstr (entries, ==, "");
}

static void
test_layout (Fixture       *f,
             gconstpointer  data)
{
  store_put (f->store, ".zgroup", "{\"zarr_format\": 2}");
  store_put (f->store, "a/b/.zarray", "{}");
  store_put (f->store, "a/b/0.0", "chunk");
  assert_file (f->root, ".zgroup", "{\"zarr_format\": 2}");
  assert_file (f->root, "a/b/.zarray", "{}");
  assert_file (f->root, "a/b/0.0", "chunk");

  /* Files put there by someone else are objects. */
  write_file (f->root, "a/c/.zattrs", "{\"x\": 1}");
  store_assert_content (f->store, "a/c/.zattrs", "{\"x\": 1}");
  store_assert_list (f->store, "a", "b", "c", NULL);
  assert_no_temp_files (f->root);
}

static void
test_open_missing (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->base, "missing", NULL);
  g_autofree char *file = g_build_filename (f->base, "file", NULL);
  g_autoptr(GError) error = NULL;
  NczStore *store;

  store = open_store (missing, NCZ_STORE_READ, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  store = open_store (missing, NCZ_STORE_WRITE, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (store);
  g_clear_error (&error);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));

  write_file (f->base, "file", "not a store");
  store = open_store (file, NCZ_STORE_READ, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (store);
  g_clear_error (&error);
  assert_file (f->base, "file", "not a store");
}

static void
test_read_only (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(NczStore) ro = NULL;
  g_autoptr(GBytes) bytes = store_bytes ("new");
  g_autoptr(GError) error = NULL;

  store_put (f->store, ".zgroup", "{}");
  store_put (f->store, "v/0", "old");

  ro = open_store (f->root, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (ro, "v/0", "old");
  store_assert_list (ro, "", ".zgroup", "v", NULL);

  g_assert_false (ncz_store_write (ro, "v/0", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (ncz_store_write (ro, "v/1", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (ncz_store_remove (ro, "v/0", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (ncz_store_remove (ro, "", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);

  store_assert_content (f->store, "v/0", "old");
  store_assert_list (f->store, "v", "0", NULL);
}

static void
test_create_refuses_foreign (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *home = g_build_filename (f->base, "home", NULL);
  g_autoptr(GError) error = NULL;
  NczStore *store;

  write_file (home, "notes.txt", "precious");
  write_file (home, "photos/cat.jpg", "meow");
  write_file (home, "sub/.zgroup", "{}");   /* a store below does not count */

  store = open_store (home, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, home));
  g_clear_error (&error);

  assert_file (home, "notes.txt", "precious");
  assert_file (home, "photos/cat.jpg", "meow");
  assert_file (home, "sub/.zgroup", "{}");
}

static void
test_create_replaces (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *entries = NULL;
  g_autofree char *file = g_build_filename (f->base, "file.zarr", NULL);
  g_autofree char *empty = g_build_filename (f->base, "empty", NULL);
  g_autofree char *nested = g_build_filename (f->base, "x", "y", "z", NULL);
  g_autofree char *zattrs_only = g_build_filename (f->base, "attrs", NULL);
  g_autoptr(GError) error = NULL;
  NczStore *store;

  /* An existing store. */
  store_put (f->store, ".zgroup", "{}");
  store_put (f->store, "g/.zgroup", "{}");
  store_put (f->store, "g/v/.zarray", "{}");
  store_put (f->store, "g/v/0.0", "data");
  g_clear_object (&f->store);

  /* The new store is empty; the previous one stays intact on disk until
   * the new one is committed, and stays if it never is. */
  f->store = open_store (f->root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_assert_list (f->store, "", NULL);
  g_assert_false (ncz_store_exists (f->store, "g/v/0.0", NULL, NULL));
  store_put (f->store, ".zgroup", "{\"new\": true}");
  store_assert_content (f->store, ".zgroup", "{\"new\": true}");
  assert_file (f->root, ".zgroup", "{}");
  assert_file (f->root, "g/v/0.0", "data");
  g_clear_object (&f->store);
  assert_file (f->root, ".zgroup", "{}");
  assert_file (f->root, "g/v/0.0", "data");
  entries = dir_entries (f->base);
  g_assert_null (strstr (entries, "ncz-new"));
  g_clear_pointer (&entries, g_free);

  /* Discarded explicitly: the same. */
  f->store = open_store (f->root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (f->store, ".zgroup", "{\"new\": true}");
  ncz_store_discard (f->store);
  assert_file (f->root, "g/v/0.0", "data");
  g_clear_object (&f->store);

  /* Committed: the new store replaces the previous one whole, and the
   * store keeps working on it. */
  f->store = open_store (f->root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (f->store, ".zgroup", "{\"new\": true}");
  g_assert_true (ncz_store_commit (f->store, NULL, &error));
  g_assert_no_error (error);
  entries = dir_entries (f->root);
  g_assert_cmpstr (entries, ==, ".zgroup");
  g_clear_pointer (&entries, g_free);
  assert_file (f->root, ".zgroup", "{\"new\": true}");
  store_put (f->store, "v/.zarray", "{}");
  assert_file (f->root, "v/.zarray", "{}");
  g_assert_true (ncz_store_commit (f->store, NULL, &error));   /* again: nothing to do */
  entries = dir_entries (f->base);
  g_assert_null (strstr (entries, "ncz-new"));
  g_clear_pointer (&entries, g_free);

  /* What writers and readers that are gone left beside the dataset is
   * removed by the next writer (<ncz/ncz-staging.h>): this host's stages
   * and old trees whose process is dead and whose lock nobody holds,
   * whatever their age. A live writer's (locked) stays, and so does a
   * stage being set up ("init", not locked yet) while its process lives.
   * Entries of other hosts, and those named by earlier versions, go only
   * once unchanged for a day and unlocked. */
  {
    guint64 here = ncz_staging_get_host_tag ();
    guint dead = dead_pid ();
    g_autofree char *stale = owned_entry (f->root, "new", here, dead, "AAAAAA");
    g_autofree char *live = owned_entry (f->root, "new", here, dead, "BBBBBB");
    g_autofree char *fresh = owned_entry (f->root, "new", here, dead, "CCCCCC");
    g_autofree char *old = owned_entry (f->root, "old", here, 0, "DDDDDD");
    g_autofree char *reading = owned_entry (f->root, "old", here, 0, "EEEEEE");
    g_autofree char *init = owned_entry (f->root, "init", here, (guint) getpid (), "FFFFFF");
    g_autofree char *dead_init = owned_entry (f->root, "init", here, dead, "GGGGGG");
    g_autofree char *other = g_build_filename (f->base, ".other.ncz-new-HHHHHH", NULL);
    g_autofree char *remote = owned_entry (f->root, "new", here ^ 1, dead, "IIIIII");
    g_autofree char *remote_old = owned_entry (f->root, "new", here ^ 1, dead, "JJJJJJ");
    g_autofree char *legacy = g_build_filename (f->base, ".store.ncz-new-KKKKKK", NULL);
    g_autofree char *legacy_old = g_build_filename (f->base, ".store.ncz-new-LLLLLL", NULL);
    g_autofree char *legacy_init = g_build_filename (f->base, ".store.ncz-init-MMMMMM", NULL);
    g_autofree char *base_name = g_path_get_basename (f->root);
    struct utimbuf hour_ago = { time (NULL) - 3600, time (NULL) - 3600 };
    struct utimbuf days_ago = { time (NULL) - 2 * 86400, time (NULL) - 2 * 86400 };
    int live_fd, reading_fd;

    g_assert_cmpstr (base_name, ==, "store");
    write_file (stale, "v/0", "left behind");
    write_file (live, "v/0", "being written");
    write_file (fresh, "v/0", "just left behind");
    write_file (old, "v/0", "read by a reader that died");
    write_file (reading, "v/0", "being read");
    write_file (other, "v/0", "another dataset's");
    write_file (remote, "v/0", "another host's writer");
    write_file (remote_old, "v/0", "another host's writer, gone long ago");
    write_file (legacy, "v/0", "an earlier version's writer");
    write_file (legacy_old, "v/0", "an earlier version's writer, gone long ago");
    g_assert_cmpint (g_mkdir (init, 0755), ==, 0);
    g_assert_cmpint (g_mkdir (dead_init, 0755), ==, 0);
    g_assert_cmpint (g_mkdir (legacy_init, 0755), ==, 0);
    g_assert_cmpint (utime (stale, &hour_ago), ==, 0);
    g_assert_cmpint (utime (live, &days_ago), ==, 0);
    g_assert_cmpint (utime (init, &days_ago), ==, 0);
    g_assert_cmpint (utime (other, &days_ago), ==, 0);
    g_assert_cmpint (utime (remote, &hour_ago), ==, 0);
    age_tree (remote_old, &days_ago);
    g_assert_cmpint (utime (legacy, &hour_ago), ==, 0);
    age_tree (legacy_old, &days_ago);
    g_assert_cmpint (utime (legacy_init, &days_ago), ==, 0);
    live_fd = open (live, O_RDONLY | O_DIRECTORY);
    g_assert_cmpint (live_fd, >=, 0);
    g_assert_cmpint (flock (live_fd, LOCK_SH), ==, 0);
    reading_fd = open (reading, O_RDONLY | O_DIRECTORY);
    g_assert_cmpint (reading_fd, >=, 0);
    g_assert_cmpint (flock (reading_fd, LOCK_SH), ==, 0);

    store = open_store (f->root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
    g_assert_no_error (error);
    g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (fresh, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (dead_init, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (remote_old, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (legacy_old, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (legacy_init, G_FILE_TEST_EXISTS));
    assert_file (live, "v/0", "being written");
    assert_file (reading, "v/0", "being read");
    assert_file (other, "v/0", "another dataset's");
    assert_file (remote, "v/0", "another host's writer");
    assert_file (legacy, "v/0", "an earlier version's writer");
    g_assert_true (g_file_test (init, G_FILE_TEST_IS_DIR));
    g_object_unref (store);
    close (live_fd);
    close (reading_fd);
    rm_rf (live);
    rm_rf (reading);
    rm_rf (other);
    rm_rf (remote);
    rm_rf (legacy);
    rm_rf (init);
  }

  /* A regular file in the way: replaced on commit. */
  write_file (f->base, "file.zarr", "old file");
  store = open_store (file, NCZ_STORE_CREATE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{}");
  store_assert_content (store, ".zgroup", "{}");
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_DIR));
  assert_file (file, ".zgroup", "{}");
  g_object_unref (store);

  /* An empty directory: stays empty until the commit. */
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  store = open_store (empty, NCZ_STORE_CREATE, &error);
  g_assert_no_error (error);
  store_assert_list (store, "", NULL);
  store_put (store, ".zgroup", "{}");
  entries = dir_entries (empty);
  g_assert_cmpstr (entries, ==, "");
  g_clear_pointer (&entries, g_free);
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  assert_file (empty, ".zgroup", "{}");
  g_object_unref (store);

  /* A path whose parents do not exist yet: they are made, and removed
   * again if the store is never committed. */
  {
    g_autofree char *x = g_build_filename (f->base, "x", NULL);

    store = open_store (nested, NCZ_STORE_CREATE, &error);
    g_assert_no_error (error);
    store_put (store, ".zgroup", "{}");
    g_assert_false (g_file_test (nested, G_FILE_TEST_EXISTS));
    g_object_unref (store);
    g_assert_false (g_file_test (x, G_FILE_TEST_EXISTS));

    store = open_store (nested, NCZ_STORE_CREATE, &error);
    g_assert_no_error (error);
    store_put (store, ".zgroup", "{}");
    g_assert_true (ncz_store_commit (store, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (nested, G_FILE_TEST_IS_DIR));
    assert_file (nested, ".zgroup", "{}");
    g_object_unref (store);
    {
      g_autofree char *y = g_path_get_dirname (nested);
      entries = dir_entries (y);
    }
    g_assert_cmpstr (entries, ==, "z");
    g_clear_pointer (&entries, g_free);
  }

  /* Any of the Zarr metadata objects at the top marks a store. */
  write_file (zattrs_only, ".zattrs", "{}");
  write_file (zattrs_only, "v/0", "x");
  store = open_store (zattrs_only, NCZ_STORE_CREATE, &error);
  g_assert_no_error (error);
  store_assert_list (store, "", NULL);
  g_object_unref (store);

  entries = dir_entries (f->base);
  g_assert_null (strstr (entries, ".ncz-"));
}

static void
test_atomic_replace (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GBytes) bytes = store_bytes ("new");
  g_autoptr(GError) error = NULL;

  store_put (f->store, "k", "old");
  store_put (f->store, "k", "newer");
  store_assert_content (f->store, "k", "newer");
  store_put (f->store, "g/.zattrs", "{\"a\": 1}");
  store_put (f->store, "g/.zattrs", "{\"a\": 2}");
  store_assert_content (f->store, "g/.zattrs", "{\"a\": 2}");
  assert_no_temp_files (f->root);

  /* A key whose parent is an object: fails, the object stays. */
  g_assert_false (ncz_store_write (f->store, "k/child", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "k/child"));
  g_clear_error (&error);
  g_assert_false (ncz_store_write (f->store, "k/child/grandchild", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_clear_error (&error);
  store_assert_content (f->store, "k", "newer");

  /* A key that is a prefix of other objects. */
  g_assert_false (ncz_store_write (f->store, "g", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "'g'"));
  g_clear_error (&error);
  store_assert_content (f->store, "g/.zattrs", "{\"a\": 2}");

  assert_no_temp_files (f->root);
  store_assert_list (f->store, "", "g", "k", NULL);
}

static void
test_odd_entries (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *fifo = g_build_filename (f->root, "v", "fifo", NULL);
  g_autoptr(GError) error = NULL;
  GBytes *bytes;
  guint64 length;

  store_put (f->store, "v/.zarray", "{}");
  store_put (f->store, "v/0.0", "x");
  write_file (f->root, "v/.0.1.tmp-AbC123", "a write in progress");
  write_file (f->root, "v/bad\nname", "control character");
  write_file (f->root, "v/bad\xff", "not UTF-8");
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);

  store_assert_list (f->store, "v", ".zarray", "0.0", NULL);

  /* A FIFO is no object, and reading it does not block. */
  bytes = ncz_store_read (f->store, "v/fifo", NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (bytes);
  g_clear_error (&error);
  g_assert_false (ncz_store_get_length (f->store, "v/fifo", &length, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Removal takes everything, whatever it is. */
  g_assert_true (ncz_store_remove (f->store, "v", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (fifo, G_FILE_TEST_EXISTS));
  store_assert_list (f->store, "", NULL);
}

static void
test_absolute_keys (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *evil = g_build_filename (f->base, "evil", NULL);
  g_autofree char *entries = NULL;
  g_autoptr(GBytes) bytes = store_bytes ("evil");
  const char *keys[] = { evil, "../evil", "a/../../evil", "../store/../evil", "a/../../../evil" };
  g_autoptr(GError) error = NULL;

  store_put (f->store, "a/.zgroup", "{}");
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_assert_false (ncz_store_write (f->store, keys[i], bytes, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);
      g_assert_false (ncz_store_remove (f->store, keys[i], NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);
    }
  g_assert_false (g_file_test (evil, G_FILE_TEST_EXISTS));
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "store");
}

/* Asserts that every kind of access to @key is refused because a link
 * is on its path, with the key in the message. */
static void
assert_link_refused (NczStore   *store,
                     const char *key)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) data = store_bytes ("written through a link");
  guint64 length;
  char **names;

  bytes = ncz_store_read (store, key, NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_assert_nonnull (strstr (error->message, key));
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_clear_error (&error);

  bytes = ncz_store_read_range (store, key, 0, 4, NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_clear_error (&error);

  g_assert_false (ncz_store_get_length (store, key, &length, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_assert_nonnull (strstr (error->message, key));
  g_clear_error (&error);

  /* existence is not "missing" either: the object is refused */
  g_assert_false (ncz_store_exists (store, key, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_clear_error (&error);

  /* writing below it writes nowhere */
    {
      g_autofree char *child = g_strconcat (key, "/x", NULL);

      g_assert_false (ncz_store_write (store, child, data, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
      g_assert_nonnull (strstr (error->message, child));
      g_clear_error (&error);
    }

  /* as a prefix, it lists nothing: it is refused */
  names = ncz_store_list (store, key, NULL, &error);
  g_assert_null (names);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_clear_error (&error);
}

static void
test_symlinks (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *outside = g_build_filename (f->base, "outside", NULL);
  g_autofree char *other = g_build_filename (f->base, "other", NULL);
  g_autofree char *keep = g_build_filename (outside, "keep", NULL);
  g_autofree char *other_zarray = g_build_filename (other, "v", ".zarray", NULL);
  g_autofree char *other_v = g_build_filename (other, "v", NULL);
  g_autofree char *link = g_build_filename (f->root, "link", NULL);
  g_autofree char *flink = g_build_filename (f->root, "flink", NULL);
  g_autofree char *entries = NULL;
  g_autoptr(GError) error = NULL;
  struct {
    const char *name;     /* the link, in the store */
    const char *target;   /* what it points to */
    const char *key;      /* a key read through it */
  } links[] = {
    /* a chunk that is a link to a file outside the store */
    { "a/0", NULL, "a/0" },
    /* a .zarray that is a link to another dataset's */
    { "b/.zarray", NULL, "b/.zarray" },
    /* a whole variable directory linked to another dataset's */
    { "c", NULL, "c/.zarray" },
    /* a directory link inside the store whose ".." leaves it */
    { "d/up", "..", "d/up/../other/v/.zarray" },
    { "e/up", "../..", "e/up/other/v/.zarray" },
    /* a link that stays inside the store: not followed either */
    { "f/v", "../g/v", "f/v/.zarray" },
    { "h", "g/v/.zarray", "h" },
  };

  write_file (outside, "keep", "outside the store");
  write_file (other, "v/.zarray", "{\"another\": \"dataset\"}");
  write_file (other, "v/0", "another dataset's chunk");
  store_put (f->store, ".zgroup", "{}");
  store_put (f->store, "g/v/.zarray", "{}");
  store_put (f->store, "a/.zarray", "{}");
  store_put (f->store, "b/0", "x");
  store_put (f->store, "d/.zgroup", "{}");
  store_put (f->store, "e/.zgroup", "{}");
  store_put (f->store, "f/.zgroup", "{}");

  links[0].target = keep;
  links[1].target = other_zarray;
  links[2].target = other_v;
  for (gsize i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_autofree char *path = g_build_filename (f->root, links[i].name, NULL);

      g_assert_cmpint (symlink (links[i].target, path), ==, 0);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_test_message ("link %s -> %s", links[i].name, links[i].target);
      /* ".." segments are no legal key: refused before the store sees them */
      if (strstr (links[i].key, "..") != NULL)
        {
          g_autoptr(GBytes) bytes = ncz_store_read (f->store, links[i].key, NULL, &error);
          g_assert_null (bytes);
          g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
          g_clear_error (&error);
          continue;
        }
      assert_link_refused (f->store, links[i].key);
    }
  /* the links are listed (they are there) but lead nowhere */
  store_assert_list (f->store, "", ".zgroup", "a", "b", "c", "d", "e", "f", "g", "h", NULL);
  store_assert_list (f->store, "d", ".zgroup", "up", NULL);
  assert_link_refused (f->store, "e/up/.zgroup");
  assert_file (other, "v/.zarray", "{\"another\": \"dataset\"}");
  entries = dir_entries (other_v);
  g_assert_cmpstr (entries, ==, ".zarray|0");
  g_clear_pointer (&entries, g_free);
  entries = dir_entries (outside);
  g_assert_cmpstr (entries, ==, "keep");
  g_clear_pointer (&entries, g_free);
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "other|outside|store");
  g_clear_pointer (&entries, g_free);

  /* Overwriting a link replaces the link, never what it points to. */
  store_put (f->store, "a/0", "a chunk of its own");
  {
    g_autofree char *a0 = g_build_filename (f->root, "a", "0", NULL);
    g_assert_false (g_file_test (a0, G_FILE_TEST_IS_SYMLINK));
  }
  store_assert_content (f->store, "a/0", "a chunk of its own");
  assert_file (outside, "keep", "outside the store");

  /* Removal never follows links. */
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (symlink (keep, flink), ==, 0);
  g_assert_false (ncz_store_remove (f->store, "link/keep", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_clear_error (&error);
  assert_file (outside, "keep", "outside the store");

  g_assert_true (ncz_store_remove (f->store, "flink", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (flink, G_FILE_TEST_IS_SYMLINK));
  assert_file (outside, "keep", "outside the store");

  g_assert_true (ncz_store_remove (f->store, "link", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  assert_file (outside, "keep", "outside the store");

  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_true (ncz_store_remove (f->store, "", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  assert_file (outside, "keep", "outside the store");
  assert_file (other, "v/0", "another dataset's chunk");
  store_assert_list (f->store, "", NULL);

  /* Nor does CREATE over a store holding a link. */
  store_put (f->store, ".zgroup", "{}");
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_clear_object (&f->store);
  f->store = open_store (f->root, NCZ_STORE_CREATE, &error);
  g_assert_no_error (error);
  store_assert_list (f->store, "", NULL);
  g_assert_true (ncz_store_commit (f->store, NULL, &error));
  g_assert_no_error (error);
  assert_file (outside, "keep", "outside the store");

  rm_rf (outside);
  rm_rf (other);
}

/* Snapshot of a directory tree: every path with its type and bytes. */
static void
snapshot_into (GString    *out,
               const char *path,
               const char *rel)
{
  g_autoptr(GPtrArray) names = sorted_entries (path);

  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *child = g_build_filename (path, n, NULL);
      g_autofree char *child_rel = g_build_filename (rel, n, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        {
          g_string_append_printf (out, "%s/\n", child_rel);
          snapshot_into (out, child, child_rel);
        }
      else
        {
          g_autofree char *contents = NULL;
          gsize length;

          g_assert_true (g_file_get_contents (child, &contents, &length, NULL));
          g_string_append_printf (out, "%s %" G_GSIZE_FORMAT " ", child_rel, length);
          g_string_append_len (out, contents, (gssize) length);
          g_string_append_c (out, '\n');
        }
    }
}

static char *
snapshot (const char *path)
{
  GString *out = g_string_new (NULL);

  snapshot_into (out, path, ".");
  return g_string_free (out, FALSE);
}

/* Fills a small file system with a dataset, then makes a replacement
 * impossible: the open for writing must fail before anything is
 * touched, saying why and where, and leave nothing beside the dataset. */
static void
check_create_fails (const char *base,
                    const char *root,
                    const char *why)
{
  g_autofree char *before = snapshot (base);
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  NczStore *store;

  store = open_store (root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_null (store);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", why, error->message);
  g_assert_nonnull (strstr (error->message, root));
  g_assert_nonnull (strstr (error->message, "unchanged"));
  g_assert_null (strstr (error->message, "\"\""));
  g_assert_null (strstr (error->message, "''"));
  after = snapshot (base);
  g_assert_cmpstr (before, ==, after);
}

static void
test_create_cannot_stage (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *mnt = g_build_filename (f->base, "small", NULL);
  g_autofree char *ds = g_build_filename (mnt, "ds.zarr", NULL);
  g_autoptr(GError) error = NULL;
  NczStore *store;
  guint n = 0;

  store_put (f->store, ".zgroup", "{}");
  store_put (f->store, "v/.zarray", "{\"shape\": [4]}");
  store_put (f->store, "v/0", "data");
  g_clear_object (&f->store);

  if (geteuid () == 0)
    {
      /* root may write anywhere: the permission case runs as nobody, in
       * a child process */
      int status = -1;
      pid_t pid;

      g_assert_cmpint (chmod (f->base, 0755), ==, 0);
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          if (setgid (65534) < 0 || setuid (65534) < 0)
            _exit (2);
          check_create_fails (f->base, f->root, "parent not writable");
          _exit (0);
        }
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    }
  else
    {
      g_assert_cmpint (chmod (f->base, 0555), ==, 0);
      check_create_fails (f->base, f->root, "parent not writable");
      g_assert_cmpint (chmod (f->base, 0755), ==, 0);
    }

  /* a file system out of inodes, then a read-only one */
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m,nr_inodes=16") < 0)
    {
      g_test_skip ("no ENOSPC or EROFS case: cannot mount a small tmpfs here (not root?)");
      return;
    }
  store = open_store (ds, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{}");
  store_put (store, "v/.zarray", "{}");
  store_put (store, "v/0", "data");
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (store);
  for (;; n++)
    {
      g_autofree char *name = g_strdup_printf ("%s/filler-%u", mnt, n);
      int fd = open (name, O_WRONLY | O_CREAT | O_EXCL, 0644);

      if (fd < 0)
        {
          g_assert_cmpint (errno, ==, ENOSPC);
          break;
        }
      close (fd);
    }
  check_create_fails (mnt, ds, "no inode left");
  g_assert_cmpint (mount (NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL), ==, 0);
  check_create_fails (mnt, ds, "read-only file system");
  g_assert_cmpint (umount (mnt), ==, 0);
}

/* Where a file system has no locks, a writer may remove a tree that a
 * reader still reads: the reader then fails, it never takes the objects
 * for missing. */
static void
test_tree_removed (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(NczStore) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  guint64 length;
  char **names;

  store_put (f->store, ".zgroup", "{}");
  store_put (f->store, "v/0", "data");
  store_put (f->store, "v/1", "more");
  reader = open_store (f->root, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (reader, "v/0", "data");

  /* a missing object of a live tree is missing */
  bytes = ncz_store_read (reader, "v/7", NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  rm_rf (f->root);
  bytes = ncz_store_read (reader, "v/1", NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "v/1"));
  g_assert_nonnull (strstr (error->message, "replaced"));
  g_clear_error (&error);
  g_assert_false (ncz_store_get_length (reader, "v/1", &length, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_clear_error (&error);
  names = ncz_store_list (reader, "v", NULL, &error);
  g_assert_null (names);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
}

/* write() that writes nothing without an error, and pread() that finds
 * the file shorter than it is: failures naming the key, nothing lost,
 * nothing left. */
static void
test_syscall_faults (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GBytes) bytes = store_bytes ("new value");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) got = NULL;

  store_put (f->store, "v/.zarray", "{}");
  store_put (f->store, "v/0", "old value");

  /* replacing an object: the old one stays */
  g_atomic_int_set (&zero_write_in, 1);
  g_assert_false (ncz_store_write (f->store, "v/0", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "v/0"));
  g_clear_error (&error);
  store_assert_content (f->store, "v/0", "old value");

  /* a new object in a store being created: nothing is left */
  g_atomic_int_set (&zero_write_in, 1);
  g_assert_false (ncz_store_write (f->store, "v/1", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_clear_error (&error);
  g_assert_false (ncz_store_exists (f->store, "v/1", NULL, &error));
  g_assert_no_error (error);
  assert_no_temp_files (f->root);
  store_assert_list (f->store, "v", ".zarray", "0", NULL);
  g_assert_cmpint (g_atomic_int_get (&zero_write_in), ==, 0);

  /* a read that ends early is an error, never a shorter object */
  g_atomic_int_set (&short_pread_in, 1);
  got = ncz_store_read (f->store, "v/0", NULL, &error);
  g_assert_null (got);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "v/0"));
  g_clear_error (&error);
  store_assert_content (f->store, "v/0", "old value");
}

/* The same where the kernel has no openat2(): every component is
 * opened without following links. */
static void
test_symlinks_walk (Fixture       *f,
                    gconstpointer  data)
{
  ncz_file_store_set_use_openat2 (FALSE);
  test_symlinks (f, data);
  ncz_file_store_set_use_openat2 (TRUE);
}

#define N_WRITERS 6
#define N_WRITES 40

static gpointer
writer_thread (gpointer data)
{
  NczStore *store = NCZ_STORE (((gpointer *) data)[0]);
  guint t = GPOINTER_TO_UINT (((gpointer *) data)[1]);

  for (guint i = 0; i < N_WRITES; i++)
    {
      /* All threads create the same new directories at once. */
      g_autofree char *key = g_strdup_printf ("g%u/v/%u.%u", i % 4, t, i);
      g_autofree char *text = g_strdup_printf ("%u-%u", t, i);

      store_put (store, key, text);
      store_assert_content (store, key, text);
    }
  return NULL;
}

static void
test_concurrent_writes (Fixture       *f,
                        gconstpointer  data)
{
  GThread *threads[N_WRITERS];
  gpointer args[N_WRITERS][2];
  g_autoptr(GError) error = NULL;
  guint n = 0;

  for (guint t = 0; t < N_WRITERS; t++)
    {
      args[t][0] = f->store;
      args[t][1] = GUINT_TO_POINTER (t);
      threads[t] = g_thread_new ("writer", writer_thread, args[t]);
    }
  for (guint t = 0; t < N_WRITERS; t++)
    g_thread_join (threads[t]);

  for (guint g = 0; g < 4; g++)
    {
      g_autofree char *prefix = g_strdup_printf ("g%u/v", g);
      g_auto(GStrv) names = ncz_store_list (f->store, prefix, NULL, &error);

      g_assert_no_error (error);
      n += g_strv_length (names);
    }
  g_assert_cmpuint (n, ==, N_WRITERS * N_WRITES);
  assert_no_temp_files (f->root);
}

static void
test_uninitialized (void)
{
  g_autoptr(NczStore) store = g_object_new (NCZ_TYPE_FILE_STORE, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  NczStore *failed;

  bytes = ncz_store_read (store, "k", NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_null (bytes);
  g_clear_error (&error);

  failed = g_initable_new (NCZ_TYPE_FILE_STORE, NULL, &error, NULL);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_null (failed);
}

static void
test_plugin_entry (void)
{
  const NczPluginDesc *(*describe) (void) = NULL;
  const NczPluginDesc *desc;
  g_autoptr(GError) error = NULL;
  GModule *module;

  module = g_module_open_full (FILE_MODULE_PATH, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL,
                               &error);
  g_assert_no_error (error);
  g_assert_nonnull (module);
  g_assert_true (g_module_symbol (module, "ncz_plugin_file_describe", (gpointer *) &describe));
  g_assert_nonnull (describe);

  desc = describe ();
  g_assert_cmpuint (desc->abi, ==, NCZ_PLUGIN_ABI);
  g_assert_cmpstr (desc->name, ==, "file");
  g_assert_nonnull (desc->version);
  g_assert_cmpstr (desc->license, ==, "BSD-3-Clause");
  g_assert_nonnull (desc->description);
  g_assert_nonnull (desc->register_func);

  /* Nothing else is exported. */
  g_assert_false (g_module_symbol (module, "ncz_file_store_get_type", (gpointer *) &describe));

  g_module_make_resident (module);
  g_module_close (module);
}

static void
add_check (const char *name,
           StoreCheck  check)
{
  g_autofree char *path = g_strconcat ("/storage/file/", name, NULL);

  g_test_add (path, Fixture, (gconstpointer) check, fixture_setup, run_check, fixture_teardown);
}

#define ADD(name, func) \
  g_test_add ("/storage/file/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  add_check ("basic", store_check_basic);
  add_check ("range", store_check_range);
  add_check ("replace", store_check_replace);
  add_check ("prefix-is-not-object", store_check_prefix_is_not_object);
  add_check ("list", store_check_list);
  add_check ("remove", store_check_remove);
  add_check ("invalid-keys", store_check_invalid_keys);
  add_check ("read-many", store_check_read_many);
  add_check ("read-async", store_check_read_async);
  add_check ("cancelled", store_check_cancelled);
  add_check ("concurrent-reads", store_check_concurrent_reads);
  add_check ("read-ranges", store_check_read_ranges);
  add_check ("list-pages", store_check_list_pages);
  add_check ("async-calls", store_check_async_calls);
  ADD ("layout", test_layout);
  ADD ("open-missing", test_open_missing);
  ADD ("read-only", test_read_only);
  ADD ("create-refuses-foreign", test_create_refuses_foreign);
  ADD ("create-replaces", test_create_replaces);
  ADD ("atomic-replace", test_atomic_replace);
  ADD ("odd-entries", test_odd_entries);
  ADD ("absolute-keys", test_absolute_keys);
  ADD ("symlinks", test_symlinks);
  ADD ("symlinks-walk", test_symlinks_walk);
  ADD ("create-cannot-stage", test_create_cannot_stage);
  ADD ("tree-removed", test_tree_removed);
  ADD ("syscall-faults", test_syscall_faults);
  ADD ("concurrent-writes", test_concurrent_writes);
  g_test_add_func ("/storage/file/uninitialized", test_uninitialized);
  g_test_add_func ("/storage/file/plugin-entry", test_plugin_entry);

  return g_test_run ();
}
