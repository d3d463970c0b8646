/* test-file-replace.c: datasets on the file store replaced while they
 * are read, and writers that fail or die
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include "store-checks.h"

#define N_VALUES 64
#define CHUNK 8
#define N_VERSIONS 30
#define FILL (-1)

typedef struct {
  char *base;   /* scratch directory */
  char *path;   /* base/data.zarr */
  char *url;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  f->base = g_dir_make_tmp ("ncz-file-replace-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->base, "data.zarr", NULL);
  uri = g_filename_to_uri (f->path, NULL, &error);
  g_assert_no_error (error);
  f->url = g_strconcat (uri, "#mode=nczarr,file", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  rm_rf (f->base);
  g_free (f->url);
  g_free (f->path);
  g_free (f->base);
}

/* Creates the dataset at @url: variable v of N_VALUES ints in chunks of
 * CHUNK, v[i] = version * 1000 + i. Returns the dataset open (not yet
 * closed) when @keep_open, otherwise NULL after closing it. */
static NczDataset *
write_version (const char *url,
               int         version,
               gboolean    keep_open)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  gint32 values[N_VALUES];
  gint32 fill = FILL;
  guint64 chunk = CHUNK, start = 0, count = N_VALUES;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  NczDimension *x;
  NczVariable *v;

  g_assert_no_error (error);
  x = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", N_VALUES, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, &chunk, 1, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_fill_value (v, fill_bytes, &error));
  g_assert_no_error (error);
  for (int i = 0; i < N_VALUES; i++)
    values[i] = version * 1000 + i;
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  if (keep_open)
    return g_steal_pointer (&ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  return NULL;
}

typedef struct {
  const char *url;
  gint done;       /* the writer finished */
  guint passes;    /* reader passes that overlapped a replacement */
} Shared;

static gpointer
writer_thread (gpointer data)
{
  Shared *shared = data;

  for (int version = 2; version <= N_VERSIONS; version++)
    {
      write_version (shared->url, version, FALSE);
      g_usleep (3000);
    }
  g_atomic_int_set (&shared->done, 1);
  return NULL;
}

/* Reads the dataset one chunk at a time, slowly: every value comes from
 * the version that was there when the reader opened it, never a fill
 * value and never a mix of versions. */
static int
read_slowly (const char *url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  NczVariable *v;
  int version = -1;

  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  for (guint64 c = 0; c < N_VALUES / CHUNK; c++)
    {
      gint32 values[CHUNK];
      guint64 start = c * CHUNK, count = CHUNK;

      g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                        NULL, &error));
      g_assert_no_error (error);
      if (version < 0)
        version = values[0] / 1000;
      for (int i = 0; i < CHUNK; i++)
        {
          g_assert_cmpint (values[i], !=, FILL);
          g_assert_cmpint (values[i], ==, version * 1000 + (int) start + i);
        }
      g_usleep (1500);
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  return version;
}

static void
test_slow_reader (Fixture       *f,
                  gconstpointer  data)
{
  Shared shared = { f->url, 0, 0 };
  g_autofree char *entries = NULL;
  GThread *writer;
  int last = 0, versions_seen = 0;

  write_version (f->url, 1, FALSE);
  writer = g_thread_new ("writer", writer_thread, &shared);
  while (!g_atomic_int_get (&shared.done))
    {
      int version = read_slowly (f->url);

      g_assert_cmpint (version, >=, last);
      if (version != last)
        versions_seen++;
      last = version;
      shared.passes++;
    }
  g_thread_join (writer);
  g_test_message ("%u reader passes saw %d versions", shared.passes, versions_seen);
  g_assert_cmpint (read_slowly (f->url), ==, N_VERSIONS);

  /* every swapped-out tree was removed by its writer or its last reader */
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "data.zarr");
}

/* Readers that hold the dataset open across several replacements: each
 * keeps its version, and the last one to leave removes it. */
static void
test_readers_keep_their_version (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(GPtrArray) readers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *entries = NULL;
  g_autoptr(GError) error = NULL;

  for (int version = 1; version <= 4; version++)
    {
      write_version (f->url, version, FALSE);
      g_ptr_array_add (readers, ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error));
      g_assert_no_error (error);
      /* a second reader of the same version */
      g_ptr_array_add (readers, ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error));
      g_assert_no_error (error);
    }
  write_version (f->url, 5, FALSE);

  entries = dir_entries (f->base);
  g_test_message ("while read: %s", entries);
  g_clear_pointer (&entries, g_free);

  for (guint i = 0; i < readers->len; i++)
    {
      NczDataset *ds = g_ptr_array_index (readers, i);
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
      gint32 values[N_VALUES];
      guint64 start = 0, count = N_VALUES;

      g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                        NULL, &error));
      g_assert_no_error (error);
      for (int k = 0; k < N_VALUES; k++)
        g_assert_cmpint (values[k], ==, (int) (i / 2 + 1) * 1000 + k);
    }
  g_ptr_array_set_size (readers, 0);

  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "data.zarr");
}

/* A writer killed while it creates a dataset that did not exist leaves
 * nothing that blocks the next run, and the next writer removes what it
 * left at once. */
static void
test_killed_first_create (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *entries = NULL;
  int status = 0;
  pid_t pid;

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      NczDataset *ds = write_version (f->url, 1, TRUE);

      g_assert_nonnull (ds);
      raise (SIGKILL);
      _exit (1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));

  /* nothing at the path: a reader finds no dataset, not half of one */
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
  entries = dir_entries (f->base);
  g_assert_nonnull (strstr (entries, ".data.zarr.ncz-new-"));
  g_clear_pointer (&entries, g_free);

  write_version (f->url, 2, FALSE);
  g_assert_cmpint (read_slowly (f->url), ==, 2);
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "data.zarr");
}

/* A create that fails, of a dataset in directories that do not exist:
 * nothing is left, not even the directories. */
static void
test_failed_first_create (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *deep = g_build_filename (f->base, "a", "b", "c.zarr", NULL);
  g_autofree char *uri = g_filename_to_uri (deep, NULL, NULL);
  g_autofree char *url = g_strconcat (uri, "#mode=nczarr,file", NULL);
  g_autofree char *entries = NULL;
  g_autoptr(NczDataset) ds = write_version (url, 1, TRUE);

  ncz_dataset_discard (ds);
  entries = dir_entries (f->base);
  g_assert_cmpstr (entries, ==, "");
}

#define ADD(name, func) \
  g_test_add ("/storage/file-replace/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  ADD ("slow-reader", test_slow_reader);
  ADD ("readers-keep-their-version", test_readers_keep_their_version);
  ADD ("killed-first-create", test_killed_first_create);
  ADD ("failed-first-create", test_failed_first_create);
  return g_test_run ();
}
