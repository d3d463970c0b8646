/* Tests of the test-only "slowfile" store (tests/support/latency-store):
 * the data read through it is the file store's, a read waits at least
 * the delay, and a cancel during the wait (of an open or of a read) ends
 * it with G_IO_ERROR_CANCELLED.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <ncz/ncz.h>

#define N 16
#define C 8
/* a delay no test waits out: a cancelled wait ends long before it */
#define FOREVER_MS 600000

static char *dir;

static char *
make_dataset (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "a.zarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *d[2];
  NczVariable *v;
  guint64 chunks[2] = { C, C }, start[2] = { 0, 0 }, count[2] = { N, N };
  gint32 buf[N * N];

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  d[0] = ncz_group_add_dimension (root, "y", N, FALSE, &error);
  d[1] = ncz_group_add_dimension (root, "x", N, FALSE, &error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, d, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  for (guint i = 0; i < N * N; i++)
    buf[i] = (gint32) i * 3;
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, buf, sizeof buf, NULL,
                                     &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static char *
slow_url (const char *path, const char *extra)
{
  return g_strdup_printf ("file://%s#mode=nczarr,file&store=slowfile&%s", path, extra);
}

static void
test_read (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = make_dataset ();
  g_autofree char *url = slow_url (path, "latency_ms=150");
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  guint64 start[2] = { 3, 5 }, count[2] = { 1, 1 };
  gint32 value = -1;
  gint64 t0, elapsed;
  NczVariable *v;

  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);

  t0 = g_get_monotonic_time ();
  g_assert_true (ncz_variable_read (v, start, 2, count, 2, NULL, 0, &value, sizeof value,
                                    NULL, &error));
  elapsed = g_get_monotonic_time () - t0;
  g_assert_no_error (error);
  g_assert_cmpint (value, ==, (3 * N + 5) * 3);
  /* the delay is a lower bound the store guarantees */
  g_assert_cmpint (elapsed, >=, 150 * 1000);
}

static void
test_bad_latency (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = make_dataset ();
  g_autofree char *url = slow_url (path, "latency_ms=soon");
  NczDataset *ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);

  g_assert_null (ds);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "latency_ms"));
}

static void
done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* an open whose metadata reads never end unless cancelled */
static void
test_cancel_open (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = make_dataset ();
  g_autofree char *url = slow_url (path, "latency_ms=" G_STRINGIFY (FOREVER_MS));
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  GAsyncResult *result = NULL;
  NczDataset *ds;

  ncz_dataset_open_async (url, NCZ_OPEN_READ, cancel, done_cb, &result);
  g_timeout_add (50, cancel_cb, cancel);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  ds = ncz_dataset_open_finish (result, &error);
  g_assert_null (ds);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_object_unref (result);
}

/* metadata at once, chunk reads never end unless cancelled */
static void
test_cancel_read (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = make_dataset ();
  g_autofree char *url = slow_url (path, "latency_ms=" G_STRINGIFY (FOREVER_MS)
                                         "&latency_data_only");
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  guint64 start[2] = { 0, 0 }, count[2] = { N, N };
  gint64 stride[2] = { 2, 2 };
  GAsyncResult *result = NULL;
  NczVariable *v;
  GBytes *bytes;

  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  count[0] = count[1] = N / 2;
  ncz_variable_read_bytes_async (v, start, 2, count, 2, stride, 2, cancel, done_cb, &result);
  g_timeout_add (50, cancel_cb, cancel);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  bytes = ncz_variable_read_bytes_finish (v, result, &error);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_object (&result);

  /* so is the chunk inventory, whose get_length calls wait too */
  g_cancellable_reset (cancel);
  ncz_variable_query_chunks_async (v, NULL, 0, NULL, 0, cancel, done_cb, &result);
  g_timeout_add (50, cancel_cb, cancel);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (ncz_variable_query_chunks_finish (v, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&result);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("ncz-latency-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_func ("/latency-store/read", test_read);
  g_test_add_func ("/latency-store/bad-latency", test_bad_latency);
  g_test_add_func ("/latency-store/cancel-open", test_cancel_open);
  g_test_add_func ("/latency-store/cancel-read", test_cancel_read);
  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", dir);
  }
  g_free (dir);
  return ret;
}
