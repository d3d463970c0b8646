/* test-coordination.c: what a coordinator and its workers are promised
 * (docs/concurrency.md), in one process
 *
 * - ncz_dimension_set_length() sizes an unlimited dimension without data;
 * - NCZ_OPEN_WRITE_DATA writes chunks and refuses every metadata change,
 *   and its close stores no metadata;
 * - threads appending to one variable leave the longest length;
 * - a writer whose dataset another writer replaced fails loudly, at its
 *   next write or at its close.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  char *dir;
  char *path;
  char *url;
} Fixture;

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* time (unlimited) x 4, chunks 1 x 4, float v with fill -1 */
static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root;
  NczDimension *dims[2];
  NczVariable *v;
  float fill = -1;
  g_autoptr(GBytes) fb = g_bytes_new (&fill, sizeof fill);
  const guint64 chunks[2] = { 1, 4 };

  f->dir = g_dir_make_tmp ("ncz-coord-XXXXXX", NULL);
  f->path = g_build_filename (f->dir, "ds.ncz", NULL);
  f->url = g_strdup_printf ("file://%s#mode=nczarr,file", f->path);
  ds = ncz_dataset_create (f->url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dims[0] = ncz_group_add_dimension (root, "time", 0, TRUE, &error);
  dims[1] = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_true (ncz_variable_set_fill_value (v, fb, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_free (f->url);
}

static guint64
stored_length (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);

  g_assert_no_error (error);
  return ncz_dimension_get_length (ncz_group_get_dimension (ncz_dataset_get_root_group (ds),
                                                            "time"));
}

static gboolean
write_row (NczVariable *v, guint64 t, float value, GError **error)
{
  float row[4] = { value, value, value, value };
  const guint64 start[2] = { t, 0 }, count[2] = { 1, 4 };

  return ncz_variable_write (v, start, 2, count, 2, NULL, 0, row, sizeof row, NULL, error);
}

static float
read_value (Fixture *f, guint64 t)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);
  float row[4];
  const guint64 start[2] = { t, 0 }, count[2] = { 1, 4 };

  g_assert_no_error (error);
  g_assert_true (ncz_variable_read (ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v"),
                                    start, 2, count, 2, NULL, 0, row, sizeof row, NULL, &error));
  g_assert_no_error (error);
  return row[0];
}

static void
test_set_length (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *time = ncz_group_get_dimension (root, "time");

  g_assert_true (ncz_dimension_set_length (time, 10, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_dimension_get_length (time), ==, 10);
  /* never shorter: data would be hidden */
  g_assert_false (ncz_dimension_set_length (time, 5, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "time"));
  g_clear_error (&error);
  /* a fixed dimension keeps its length */
  g_assert_false (ncz_dimension_set_length (ncz_group_get_dimension (root, "x"), 8, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (ncz_dimension_set_length (ncz_group_get_dimension (root, "x"), 4, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (stored_length (f), ==, 10);
  g_assert_cmpfloat (read_value (f, 9), ==, -1);
}

static char *
metadata_snapshot (Fixture *f)
{
  const char *keys[] = { ".zgroup", ".zattrs", "v/.zarray", "v/.zattrs", NULL };
  GString *all = g_string_new (NULL);

  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *p = g_build_filename (f->path, keys[i], NULL);
      g_autofree char *text = NULL;
      g_file_get_contents (p, &text, NULL, NULL);
      g_string_append_printf (all, "%s=%s\n", keys[i], text != NULL ? text : "(none)");
    }
  return g_string_free (all, FALSE);
}

static void
test_write_data (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) coord = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  g_autoptr(NczDataset) ds = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(NczAttribute) attr = ncz_attribute_new_text ("title", "x", -1);
  NczGroup *root;
  NczVariable *v;

  g_assert_true (ncz_dimension_set_length (
                   ncz_group_get_dimension (ncz_dataset_get_root_group (coord), "time"), 8,
                   &error));
  g_assert_true (ncz_dataset_close (coord, NULL, &error));
  g_assert_no_error (error);
  before = metadata_snapshot (f);

  ds = ncz_dataset_open (f->url, NCZ_OPEN_WRITE_DATA, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_is_writable (ds));
  root = ncz_dataset_get_root_group (ds);
  v = ncz_group_get_variable (root, "v");
  g_assert_true (write_row (v, 3, 3.5f, &error));
  g_assert_no_error (error);
  /* growing the dimension is a metadata change */
  g_assert_false (write_row (v, 8, 8.5f, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY);
  g_assert_nonnull (strstr (error->message, "'time'"));
  g_assert_nonnull (strstr (error->message, "NCZ_OPEN_WRITE_DATA"));
  g_clear_error (&error);
  /* so are definitions, attributes and lengths */
  g_assert_false (ncz_group_set_attribute (root, attr, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_dimension (root, "y", 2, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (ncz_dimension_set_length (ncz_group_get_dimension (root, "time"), 20,
                                            &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  after = metadata_snapshot (f);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpfloat (read_value (f, 3), ==, 3.5f);
  g_assert_cmpuint (stored_length (f), ==, 8);
}

typedef struct {
  NczVariable *v;
  guint index;
  GError *error;
} Appender;

static gpointer
append_thread (gpointer data)
{
  Appender *a = data;

  for (guint k = 0; k < 16 && a->error == NULL; k++)
    write_row (a->v, a->index * 16 + k, (float) (a->index * 16 + k), &a->error);
  return NULL;
}

/* Threads appending at once: the length never goes back. */
static void
test_threads_append (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  Appender a[8];
  GThread *t[8];

  for (guint i = 0; i < 8; i++)
    {
      a[i] = (Appender) { v, i, NULL };
      t[i] = g_thread_new ("append", append_thread, &a[i]);
    }
  for (guint i = 0; i < 8; i++)
    {
      g_thread_join (t[i]);
      g_assert_no_error (a[i].error);
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stored_length (f), ==, 128);
  for (guint64 i = 0; i < 128; i += 17)
    g_assert_cmpfloat (read_value (f, i), ==, (float) i);
}

/* A writer in place whose dataset another writer replaced (ncz-copy over
 * it) writes into the retired tree: it is told, never silently. */
static void
test_replaced_under_writer (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) w = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  g_autoptr(NczDataset) w2 = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  g_autoptr(NczDataset) r = NULL;
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (w), "v");
  NczVariable *v2 = ncz_group_get_variable (ncz_dataset_get_root_group (w2), "v");

  g_assert_no_error (error);
  g_assert_true (write_row (v, 0, 1.0f, &error));
  g_assert_true (write_row (v2, 1, 2.0f, &error));
  g_assert_no_error (error);

  /* the replacement: a new dataset at the same URL */
  r = ncz_dataset_create (f->url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ncz_group_add_dimension (ncz_dataset_get_root_group (r), "z", 1, FALSE,
                                             &error));
  g_assert_true (ncz_dataset_close (r, NULL, &error));
  g_assert_no_error (error);

  /* the next write fails, naming the store */
  g_assert_false (write_row (v, 2, 3.0f, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_assert_nonnull (strstr (error->message, "replaced"));
  g_assert_nonnull (strstr (error->message, f->path));
  g_clear_error (&error);
  ncz_dataset_discard (w);
  /* a writer that wrote before the replacement and nothing since learns
   * at its close */
  g_assert_false (ncz_dataset_close (w2, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_clear_error (&error);
}

static void
refreshed (GObject *source, GAsyncResult *result, gpointer data)
{
  GError **error = data;

  ncz_dataset_refresh_finish (NCZ_DATASET (source), result, error);
  *(gboolean *) g_object_get_data (source, "done") = TRUE;
}

/* A long-lived reader sees what a writer appended, after a refresh. */
static void
test_refresh (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) reader = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);
  g_autoptr(NczDataset) w = NULL;
  g_autoptr(NczAttribute) title = ncz_attribute_new_text ("title", "appended", -1);
  NczGroup *root = ncz_dataset_get_root_group (reader);
  NczVariable *rv = ncz_group_get_variable (root, "v");
  NczDimension *time = ncz_group_get_dimension (root, "time");
  float row[4];
  const guint64 start[2] = { 5, 0 }, count[2] = { 1, 4 };
  gboolean done = FALSE;

  g_assert_no_error (error);
  g_assert_cmpuint (ncz_dimension_get_length (time), ==, 0);

  for (int round = 0; round < 2; round++)
    {
      w = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (write_row (ncz_group_get_variable (ncz_dataset_get_root_group (w), "v"),
                                5 + round, 5.5f + round, &error));
      if (round == 0)
        g_assert_true (ncz_group_set_attribute (ncz_dataset_get_root_group (w), title, &error));
      g_assert_true (ncz_dataset_close (w, NULL, &error));
      g_assert_no_error (error);
      g_clear_object (&w);

      if (round == 0)
        {
          /* before the refresh: the length read at open */
          g_assert_cmpuint (ncz_dimension_get_length (time), ==, 0);
          g_assert_true (ncz_dataset_refresh (reader, NULL, &error));
          g_assert_no_error (error);
        }
      else
        {
          g_object_set_data (G_OBJECT (reader), "done", &done);
          ncz_dataset_refresh_async (reader, NULL, refreshed, &error);
          while (!done)
            g_main_context_iteration (NULL, TRUE);
          g_assert_no_error (error);
        }
      g_assert_cmpuint (ncz_dimension_get_length (time), ==, 6 + round);
    }
  g_assert_true (ncz_variable_read (rv, start, 2, count, 2, NULL, 0, row, sizeof row, NULL,
                                    &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (row[0], ==, 5.5f);
  g_assert_nonnull (ncz_group_get_attribute (root, "title"));
  {
    g_autofree char *text = ncz_attribute_get_text (ncz_group_get_attribute (root, "title"), NULL);
    g_assert_cmpstr (text, ==, "appended");
  }
  g_assert_true (ncz_dataset_close (reader, NULL, &error));
  g_assert_false (ncz_dataset_refresh (reader, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
}

/* netCDF-4/HDF5: libhdf5 locks a file open for writing. A second writer
 * waits up to lock.timeout, then fails saying why; a reader fails at once.
 * The holder is another process (this program run with --hold): in one
 * process libhdf5 shares the file between opens. */
static char *self_exe;

static int
hold (const char *path, const char *ms)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) w = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);

  if (w == NULL)
    {
      printf ("failed: %s\n", error->message);
      return 1;
    }
  printf ("opened\n");
  fflush (stdout);
  g_usleep (g_ascii_strtoull (ms, NULL, 10) * 1000);
  return ncz_dataset_close (w, NULL, NULL) ? 0 : 1;
}

static void
test_hdf5_lock (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-coord-h5-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "d.nc", NULL);
  g_autoptr(NczDataset) w = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  g_autoptr(NczDataset) other = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;
  gint64 t0;

  g_assert_no_error (error);
  g_assert_nonnull (ncz_group_add_dimension (ncz_dataset_get_root_group (w), "x", 2, FALSE,
                                             &error));
  g_assert_true (ncz_dataset_close (w, NULL, &error));
  holder = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_exe, "--hold", path,
                             "1500", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (holder));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_cmpstr (line, ==, "opened");

  g_setenv ("NCZ_LOCK_TIMEOUT", "0.3", TRUE);
  t0 = g_get_monotonic_time ();
  other = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_null (other);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 300 * 1000);
  g_assert_nonnull (strstr (error->message, "another process has the file open for writing"));
  g_assert_nonnull (strstr (error->message, "waited 0.3 s"));
  g_clear_error (&error);

  other = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (other);
  g_assert_nonnull (strstr (error->message, "does not let it be read meanwhile"));
  g_clear_error (&error);

  /* a writer that waits long enough gets the file when the holder closes */
  g_setenv ("NCZ_LOCK_TIMEOUT", "30", TRUE);
  other = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (other, NULL, &error));
  g_unsetenv ("NCZ_LOCK_TIMEOUT");
  g_assert_true (g_subprocess_wait_check (holder, NULL, &error));
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "--hold") == 0)
    return hold (argv[2], argv[3]);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/coordination/set-length", Fixture, NULL, setup, test_set_length, teardown);
  g_test_add ("/coordination/write-data", Fixture, NULL, setup, test_write_data, teardown);
  g_test_add ("/coordination/threads-append", Fixture, NULL, setup, test_threads_append,
              teardown);
  g_test_add ("/coordination/replaced-under-writer", Fixture, NULL, setup,
              test_replaced_under_writer, teardown);
  g_test_add_func ("/coordination/hdf5-lock", test_hdf5_lock);
  g_test_add ("/coordination/refresh", Fixture, NULL, setup, test_refresh, teardown);
  return g_test_run ();
}
