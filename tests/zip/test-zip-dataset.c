/* test-zip-dataset.c: datasets in zip archives through the registry
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <glib/gstdio.h>

#include "store-checks.h"

typedef struct {
  char *base;
  char *path;
} Fixture;

/* Nothing but the archive @name and its writer lock file, which stays
 * beside it, is left in @dir. */
static void
assert_only (const char *dir,
             const char *name)
{
  g_autofree char *entries = dir_entries (dir);
  g_autofree char *expected = g_strdup_printf (".%s.ncz-lock|%s", name, name);

  g_assert_cmpstr (entries, ==, expected);
}

/* A dataset through the public API: created in a zip, closed, opened,
 * its values read; a discarded replacement leaves it. */
static void
test_dataset (void)
{
  g_autofree char *base = g_dir_make_tmp ("ncz-zip-XXXXXX", NULL);
  Fixture fx = { base, g_build_filename (base, "store.zip", NULL) }, *f = &fx;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_filename_to_uri (f->path, NULL, NULL);
  g_autofree char *url = g_strconcat (uri, "#mode=nczarr,zip", NULL);
  gint32 values[10], back[10];
  guint64 start = 0, count = 10, chunk = 4;
  NczDataset *ds;
  NczDimension *x;
  NczVariable *v;

  for (int i = 0; i < 10; i++)
    values[i] = i * i;
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  x = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", 10, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, &chunk, 1, &error));
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);

  /* a replacement discarded */
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", 3, FALSE, &error);
  g_assert_no_error (error);
  ncz_dataset_discard (ds);
  g_object_unref (ds);
  assert_only (f->base, "store.zip");

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  g_assert_null (ncz_group_get_dimension (ncz_dataset_get_root_group (ds), "y"));
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back,
                                    NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (values, sizeof values, back, sizeof back);
  g_object_unref (ds);

  /* a plain path ending in .zip is a zip store too */
  ds = ncz_dataset_open (f->path, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v"));
  g_object_unref (ds);

  /* opened for update: a chunk rewritten */
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  values[0] = -7;
  count = 1;
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values[0],
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
  assert_only (f->base, "store.zip");

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  count = 10;
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back,
                                    NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (values, sizeof values, back, sizeof back);
  g_object_unref (ds);
  rm_rf (base);
  g_free (fx.path);
}

#define N_VALUES 64
#define CHUNK 8
#define FILL -99

/* Creates the zip dataset at @url: v[i] = version * 1000 + i. */
static void
write_version (const char *url,
               int         version)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  gint32 values[N_VALUES], fill = FILL;
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
  g_assert_true (ncz_variable_set_fill_value (v, fill_bytes, &error));
  g_assert_no_error (error);
  for (int i = 0; i < N_VALUES; i++)
    values[i] = version * 1000 + i;
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

typedef struct {
  const char *url;
  gint done;
} Shared;

static gpointer
writer_thread (gpointer data)
{
  Shared *shared = data;

  for (int version = 2; version <= 30; version++)
    write_version (shared->url, version);
  g_atomic_int_set (&shared->done, 1);
  return NULL;
}

/* Readers opening the dataset while a writer replaces it again and
 * again: each sees one whole version, never fill values, never a mix. */
static void
test_replace_while_read (void)
{
  g_autofree char *base = g_dir_make_tmp ("ncz-zip-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (base, "d.zip", NULL);
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  g_autofree char *url = g_strconcat (uri, "#mode=nczarr,zip", NULL);
  Shared shared = { url, 0 };
  GThread *writer;
  guint reads = 0;

  write_version (url, 1);
  writer = g_thread_new ("writer", writer_thread, &shared);
  while (!g_atomic_int_get (&shared.done) || reads == 0)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
      int version = -1;
      NczVariable *v;

      g_assert_no_error (error);
      v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
      g_assert_nonnull (v);
      for (guint64 c = 0; c < N_VALUES / CHUNK; c++)
        {
          gint32 values[CHUNK];
          guint64 start = c * CHUNK, count = CHUNK;

          g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, values,
                                            sizeof values, NULL, &error));
          g_assert_no_error (error);
          if (version < 0)
            version = values[0] / 1000;
          for (int i = 0; i < CHUNK; i++)
            g_assert_cmpint (values[i], ==, version * 1000 + (int) start + i);
        }
      reads++;
    }
  g_thread_join (writer);
  assert_only (base, "d.zip");
  rm_rf (base);
}

static void
test_registry (void)
{
  /* the registry finds the store by its name */
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///nonexistent/x.zip#mode=zarr,zip", &error);
  NczStore *store;

  g_assert_no_error (error);
  store = ncz_registry_open_store (ncz_registry_get_default (), url, NCZ_STORE_READ, NULL, &error);
  g_assert_null (store);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/x.zip"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/zip/dataset", test_dataset);
  g_test_add_func ("/zip/registry", test_registry);
  g_test_add_func ("/zip/replace-while-read", test_replace_while_read);
  return g_test_run ();
}
