/* test-zip-writers.c: processes writing one zip dataset at once
 *
 * Every writer of a zip archive renames a whole new archive into place,
 * so writers take turns through the writer lock beside the archive
 * (storage-drivers/zip/ncz-zip-store.c). The writers here are real
 * processes: this program started again with a child command (see
 * child_main()), never a fork() of a process whose GLib threads run.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include "store-checks.h"

#define NT 64
#define NY 16
#define NX 16
#define SLICE (NY * NX)
#define N_WRITERS 8
#define FILL (-1.0f)

/* Exit status of a child whose open failed as asked ("try-open"). */
#define CHILD_OPEN_FAILED 2

/* What writer @writer puts at element @j of time slice @t: distinct for
 * every writer, slice and element, and exact in a float (below 2^24). */
static float
value_of (int writer, guint64 t, guint j)
{
  return (float) ((writer + 1) * 100000 + (int) t * SLICE + (int) j);
}

static char *
url_for (const char *path, const char *extra)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);

  g_assert_nonnull (uri);
  return g_strconcat (uri, "#mode=nczarr,zip", extra, NULL);
}

static gboolean
write_slices (NczDataset *ds, int writer, guint64 first, guint64 step, guint64 n,
              GError **error)
{
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  float slice[SLICE];

  if (v == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no variable v");
      return FALSE;
    }
  for (guint64 i = 0; i < n; i++)
    {
      guint64 t = first + i * step;
      guint64 start[3] = { t, 0, 0 }, count[3] = { 1, NY, NX };

      for (guint j = 0; j < SLICE; j++)
        slice[j] = value_of (writer, t, j);
      if (!ncz_variable_write (v, start, 3, count, 3, NULL, 0, slice, sizeof slice, NULL, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- the children ---- */

/* Waits until the parent closes our standard input: the start signal
 * all writers wait for. */
static void
wait_for_stdin_eof (void)
{
  char buf[64];

  while (fread (buf, 1, sizeof buf, stdin) > 0)
    ;
}

static int
child_fail (const char *what, GError *error)
{
  g_printerr ("child %d: %s: %s\n", (int) getpid (), what, error ? error->message : "?");
  return 1;
}

/* "write URL WRITER FIRST STEP COUNT": at the start signal, opens the
 * dataset for writing, writes the slices FIRST + i * STEP (i < COUNT)
 * with WRITER's values, closes it. */
static int
child_write (char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  int writer = atoi (argv[1]);

  wait_for_stdin_eof ();
  ds = ncz_dataset_open (argv[0], NCZ_OPEN_WRITE, NULL, &error);
  if (ds == NULL)
    return child_fail ("open", error);
  if (!write_slices (ds, writer, g_ascii_strtoull (argv[2], NULL, 10),
                     g_ascii_strtoull (argv[3], NULL, 10), g_ascii_strtoull (argv[4], NULL, 10),
                     &error))
    return child_fail ("write", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    return child_fail ("close", error);
  return 0;
}

/* "hold URL": opens the dataset for writing (so holds the writer lock),
 * writes slice 0, says "held" on its standard output, then waits for
 * the start signal (or to be killed) and discards what it wrote. */
static int
child_hold (char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (argv[0], NCZ_OPEN_WRITE, NULL, &error);

  if (ds == NULL)
    return child_fail ("open", error);
  if (!write_slices (ds, 90, 0, 1, 1, &error))
    return child_fail ("write", error);
  printf ("held\n");
  fflush (stdout);
  wait_for_stdin_eof ();
  ncz_dataset_discard (ds);
  return 0;
}

/* "try-open URL write|read": opens the dataset and closes it; a failed
 * open prints "DOMAIN CODE MESSAGE" and exits with CHILD_OPEN_FAILED. */
static int
child_try_open (char **argv)
{
  g_autoptr(GError) error = NULL;
  gboolean write = g_str_equal (argv[1], "write");
  g_autoptr(NczDataset) ds = ncz_dataset_open (argv[0], write ? NCZ_OPEN_WRITE : NCZ_OPEN_READ,
                                               NULL, &error);

  if (ds == NULL)
    {
      printf ("%s %d %s\n", g_quark_to_string (error->domain), error->code, error->message);
      return CHILD_OPEN_FAILED;
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    return child_fail ("close", error);
  return 0;
}

static int
child_main (int argc, char **argv)
{
  if (g_str_equal (argv[1], "write") && argc == 7)
    return child_write (argv + 2);
  if (g_str_equal (argv[1], "hold") && argc == 3)
    return child_hold (argv + 2);
  if (g_str_equal (argv[1], "try-open") && argc == 4)
    return child_try_open (argv + 2);
  g_printerr ("unknown child command '%s'\n", argv[1]);
  return 64;
}

/* ---- the parent ---- */

typedef struct {
  char *base;
  char *path;     /* base/store.zip */
  char *url;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->base = g_dir_make_tmp ("ncz-zip-writers-XXXXXX", NULL);
  g_assert_nonnull (f->base);
  f->path = g_build_filename (f->base, "store.zip", NULL);
  f->url = url_for (f->path, NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  rm_rf (f->base);
  g_free (f->url);
  g_free (f->path);
  g_free (f->base);
}

/* Creates the dataset: v(t, y, x), floats, one chunk per time slice,
 * filled with FILL, or with @writer's values unless @writer < 0. */
static void
create_dataset (Fixture *f, int writer)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (f->url, NCZ_CREATE_DEFAULT, NULL, &error);
  float fill = FILL;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  guint64 chunks[3] = { 1, NY, NX };
  NczDimension *dims[3];
  NczGroup *root;
  NczVariable *v;

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dims[0] = ncz_group_add_dimension (root, "t", NT, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "y", NY, FALSE, &error);
  g_assert_no_error (error);
  dims[2] = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
  g_assert_true (ncz_variable_set_fill_value (v, fill_bytes, &error));
  g_assert_no_error (error);
  if (writer >= 0)
    {
      g_assert_true (write_slices (ds, writer, 0, 1, NT, &error));
      g_assert_no_error (error);
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* All of v through @ds, or through a fresh read-only open. */
static float *
read_all (Fixture *f, NczDataset *ds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) fresh = NULL;
  float *values = g_new (float, NT * SLICE);
  guint64 start[3] = { 0, 0, 0 }, count[3] = { NT, NY, NX };
  NczVariable *v;

  if (ds == NULL)
    {
      ds = fresh = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);
      g_assert_no_error (error);
    }
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  g_assert_true (ncz_variable_read (v, start, 3, count, 3, NULL, 0, values,
                                    NT * SLICE * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  return values;
}

/* Slice @t of @values holds @writer's values. */
static void
assert_slice (const float *values, guint64 t, int writer)
{
  for (guint j = 0; j < SLICE; j++)
    if (values[t * SLICE + j] != value_of (writer, t, j))
      g_error ("slice %" G_GUINT64_FORMAT " element %u: %g, not writer %d's %g", t, j,
               values[t * SLICE + j], writer, value_of (writer, t, j));
}

/* This program, run with a child command. */
static GSubprocess *
spawn_child (GSubprocessFlags flags, const char *const *env, ...)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  GSubprocess *child;
  const char *arg;
  va_list ap;

  g_assert_no_error (error);
  g_ptr_array_add (args, g_strdup (self));
  g_ptr_array_add (args, g_strdup ("--child"));
  va_start (ap, env);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, g_strdup (arg));
  va_end (ap);
  g_ptr_array_add (args, NULL);
  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
  child = g_subprocess_launcher_spawnv (launcher, (const char *const *) args->pdata, &error);
  g_assert_no_error (error);
  return child;
}

static void
close_stdin (GSubprocess *child)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (child), NULL, &error));
  g_assert_no_error (error);
}

/* Runs "try-open URL MODE" with @env; returns its exit status and in
 * @output what it printed. */
static int
try_open_in_child (const char *url, const char *mode, const char *const *env, char **output)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) child = spawn_child (G_SUBPROCESS_FLAGS_STDOUT_PIPE, env, "try-open",
                                              url, mode, NULL);

  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, output, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (child));
  return g_subprocess_get_exit_status (child);
}

static GBytes *
file_bytes (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

/* Nothing but the archive and its lock file is left beside it. */
static void
assert_only_archive (Fixture *f)
{
  g_autofree char *entries = dir_entries (f->base);

  g_assert_cmpstr (entries, ==, ".store.zip.ncz-lock|store.zip");
}

/* (a) Eight processes open the dataset for writing at the same moment,
 * each writing its own eight slices: all 64 slices are there
 * afterwards, each with its writer's values. */
static void
test_eight_writers (Fixture *f, gconstpointer data)
{
  GSubprocess *children[N_WRITERS];
  g_autofree float *values = NULL;

  create_dataset (f, -1);
  for (int k = 0; k < N_WRITERS; k++)
    {
      g_autofree char *writer = g_strdup_printf ("%d", k);
      g_autofree char *first = g_strdup_printf ("%d", k);

      /* interleaved: writer k has slices k, k + 8, k + 16, ... */
      children[k] = spawn_child (G_SUBPROCESS_FLAGS_STDIN_PIPE, NULL, "write", f->url, writer,
                                 first, G_STRINGIFY (N_WRITERS), "8", NULL);
    }
  /* the start signal, to all at once */
  for (int k = 0; k < N_WRITERS; k++)
    close_stdin (children[k]);
  for (int k = 0; k < N_WRITERS; k++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (g_subprocess_wait_check (children[k], NULL, &error));
      g_assert_no_error (error);
      g_object_unref (children[k]);
    }

  values = read_all (f, NULL);
  for (guint64 t = 0; t < NT; t++)
    assert_slice (values, t, (int) (t % N_WRITERS));
  assert_only_archive (f);
}

/* (b) While another process holds the writer lock, an open for writing
 * with lock.timeout=0.2 (or NCZ_LOCK_TIMEOUT=0.2) gives up after that
 * long with NCZ_STORAGE_ERROR_LOCKED naming the URL and the holder's
 * pid, and changes nothing; the holder's death releases the lock. */
static void
test_timeout (Fixture *f, gconstpointer data)
{
  static const char *const env_timeout[] = { "NCZ_LOCK_TIMEOUT", "0.2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDataInputStream) holder_out = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autofree char *url = url_for (f->path, "&lock.timeout=0.2");
  g_autofree char *line = NULL;
  g_autofree char *pid = NULL;
  g_autofree char *output = NULL;
  g_autofree char *expect = NULL;
  g_autofree float *values = NULL;
  gint64 t0, waited;

  create_dataset (f, 50);
  before = file_bytes (f->path);

  holder = spawn_child (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, NULL,
                        "hold", f->url, NULL);
  holder_out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (holder));
  line = g_data_input_stream_read_line (holder_out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "held");
  pid = g_strdup_printf ("pid %s ", g_subprocess_get_identifier (holder));

  t0 = g_get_monotonic_time ();
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  waited = g_get_monotonic_time () - t0;
  g_assert_null (ds);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, url));
  g_assert_nonnull (strstr (error->message, pid));
  g_assert_nonnull (strstr (error->message, g_get_host_name ()));
  g_assert_cmpint (waited, >=, 200 * G_TIME_SPAN_MILLISECOND);
  g_assert_cmpint (waited, <, 20 * G_TIME_SPAN_SECOND);
  g_clear_error (&error);

  /* the same through the environment, in another process */
  g_assert_cmpint (try_open_in_child (f->url, "write", env_timeout, &output), ==,
                   CHILD_OPEN_FAILED);
  expect = g_strdup_printf ("%s %d ", g_quark_to_string (NCZ_STORAGE_ERROR),
                            NCZ_STORAGE_ERROR_LOCKED);
  g_assert_true (g_str_has_prefix (output, expect));
  g_assert_nonnull (strstr (output, pid));
  g_clear_pointer (&output, g_free);
  /* readers do not wait */
  g_assert_cmpint (try_open_in_child (f->url, "read", env_timeout, &output), ==, 0);

  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_clear_pointer (&after, g_bytes_unref);

  /* killed while holding it: the lock goes with the process, and the
   * archive stays as it was */
  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, &error));
  g_assert_no_error (error);
  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  values = read_all (f, NULL);
  for (guint64 t = 0; t < NT; t++)
    assert_slice (values, t, 50);
}

/* (c) A reader opened before a writer commits keeps reading the archive
 * it opened, whole, after the writer replaced it; a new open reads the
 * writer's values. */
static void
test_reader_keeps_old (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) reader = NULL;
  g_autoptr(GSubprocess) writer = NULL;
  g_autofree float *first = NULL;
  g_autofree float *later = NULL;
  g_autofree float *fresh = NULL;

  create_dataset (f, 50);
  reader = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  first = read_all (f, reader);
  assert_slice (first, 0, 50);

  writer = spawn_child (G_SUBPROCESS_FLAGS_STDIN_PIPE, NULL, "write", f->url, "51", "0", "1",
                        G_STRINGIFY (NT), NULL);
  close_stdin (writer);
  g_assert_true (g_subprocess_wait_check (writer, NULL, &error));
  g_assert_no_error (error);

  later = read_all (f, reader);
  for (guint64 t = 0; t < NT; t++)
    assert_slice (later, t, 50);
  fresh = read_all (f, NULL);
  for (guint64 t = 0; t < NT; t++)
    assert_slice (fresh, t, 51);
  g_assert_true (ncz_dataset_close (reader, NULL, &error));
  g_assert_no_error (error);
}

/* (d) A lock wait that is not a number of seconds is an error naming
 * the key and the URL (or the variable), for writers; readers do not
 * read it. */
static void
test_bad_timeout (Fixture *f, gconstpointer data)
{
  static const char *const env_bad[] = { "NCZ_LOCK_TIMEOUT", "abc", NULL };
  static const char *const bad[] = { "&lock.timeout=abc", "&lock.timeout=", "&lock.timeout=-1",
                                     "&lock.timeout=1s" };
  static const char *const good[] = { "&lock.timeout=inf", "&lock.timeout=0",
                                      "&lock.timeout=2.5" };
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  NczDataset *ds;

  create_dataset (f, 50);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *url = url_for (f->path, bad[i]);

      ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
      g_assert_null (ds);
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL);
      g_assert_nonnull (strstr (error->message, "lock.timeout"));
      g_assert_nonnull (strstr (error->message, url));
      g_clear_error (&error);
      ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
      g_assert_null (ds);
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL);
      g_clear_error (&error);
      ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
      g_assert_no_error (error);
      g_object_unref (ds);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *url = url_for (f->path, good[i]);

      ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      g_object_unref (ds);
    }

  g_assert_cmpint (try_open_in_child (f->url, "write", env_bad, &output), ==, CHILD_OPEN_FAILED);
  g_assert_nonnull (strstr (output, "NCZ_LOCK_TIMEOUT"));
  g_assert_nonnull (strstr (output, "abc"));
  g_clear_pointer (&output, g_free);
  g_assert_cmpint (try_open_in_child (f->url, "read", env_bad, &output), ==, 0);
}

/* A writer that cannot make the lock file does not open: it would risk
 * losing another writer's objects. Readers open. */
static void
test_no_lock_file (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *lock_path = g_build_filename (f->base, ".store.zip.ncz-lock", NULL);
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  NczDataset *ds;

  create_dataset (f, 50);
  before = file_bytes (f->path);
  /* something that is not a file where the lock file goes */
  g_assert_cmpint (g_unlink (lock_path), ==, 0);
  g_assert_cmpint (g_mkdir (lock_path, 0700), ==, 0);

  ds = ncz_dataset_open (f->url, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_assert_true (error->domain == NCZ_STORAGE_ERROR);
  g_assert_nonnull (strstr (error->message, lock_path));
  g_assert_nonnull (strstr (error->message, f->url));
  g_clear_error (&error);
  ds = ncz_dataset_create (f->url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, lock_path));
  g_clear_error (&error);

  ds = ncz_dataset_open (f->url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  g_object_unref (ds);
  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_assert_cmpint (g_rmdir (lock_path), ==, 0);
}

#define ADD(name, func) \
  g_test_add ("/zip/writers/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  if (argc >= 2 && g_str_equal (argv[1], "--child"))
    return child_main (argc - 1, argv + 1);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  ADD ("eight-processes", test_eight_writers);
  ADD ("timeout", test_timeout);
  ADD ("reader-keeps-old", test_reader_keeps_old);
  ADD ("bad-timeout", test_bad_timeout);
  ADD ("no-lock-file", test_no_lock_file);
  return g_test_run ();
}
