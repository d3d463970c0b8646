/* Tests of the chunk inventory (ncz_variable_query_chunks(),
 * ncz_variable_get_storage_size()) and of the filter providers, through
 * the real modules (NCZ_PLUGIN_PATH): NCZarr and pure Zarr on the file
 * store, NCZarr in a zip store, a netCDF-4 file of the HDF5 backend.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <ncz/ncz.h>

#define NX 12
#define NY 10
#define CX 4
#define CY 5
/* grid: 3 x 2 chunks; chunks (0,0) and (2,1) written */

typedef struct {
  char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  f->dir = g_dir_make_tmp ("ncz-chunk-info-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rm_rf (child);
        }
      if (d)
        g_dir_close (d);
    }
  g_remove (path);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  rm_rf (f->dir);
  g_free (f->dir);
}

static gboolean
have (NczFeatureKind kind, const char *name)
{
  if (ncz_registry_has_feature (ncz_registry_get_default (), kind, name))
    return TRUE;
  {
    g_autofree char *msg = g_strdup_printf ("module for %s '%s' not built",
                                            ncz_feature_kind_to_string (kind), name);
    g_test_skip (msg);
  }
  return FALSE;
}

/* Makes variable "v" (int, NX x NY, chunks CX x CY, zstd when @zstd,
 * deflate when @deflate) and writes chunks (0,0) and (2,1) with values
 * that compress well. */
static void
make_dataset (const char *url, gboolean zstd, gboolean deflate)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *d[2];
  NczVariable *v;
  guint64 chunks[2] = { CX, CY };
  gint32 buf[CX * CY];

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  d[0] = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
  g_assert_no_error (error);
  d[1] = ncz_group_add_dimension (root, "y", NY, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, d, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  if (zstd)
    {
      guint level = 3;
      g_assert_true (ncz_variable_add_filter (v, NCZ_FILTER_ZSTD, &level, 1, &error));
      g_assert_no_error (error);
    }
  if (deflate)
    {
      guint level = 6;
      g_assert_true (ncz_variable_add_filter (v, NCZ_FILTER_DEFLATE, &level, 1, &error));
      g_assert_no_error (error);
    }
  /* a scalar and a contiguous-free second variable never written */
  g_assert_nonnull (ncz_group_add_variable (root, "empty", NCZ_DATA_TYPE_DOUBLE, 2, d, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < CX * CY; i++)
    buf[i] = 7;
  {
    guint64 start[2] = { 0, 0 }, count[2] = { CX, CY };
    g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, buf, sizeof buf, NULL,
                                       &error));
    g_assert_no_error (error);
  }
  {
    guint64 start[2] = { 2 * CX, CY }, count[2] = { CX, CY };
    g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, buf, sizeof buf, NULL,
                                       &error));
    g_assert_no_error (error);
  }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static NczVariable *
open_var (const char *url, const char *name, NczDataset **ds_out)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  NczVariable *v;

  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
  g_assert_nonnull (v);
  *ds_out = ds;
  return v;
}

/* Checks the whole inventory of "v": stored exactly (0,0) and (2,1),
 * sizes from @key_path (a printf format taking the two indices, or NULL
 * when the objects cannot be looked at) or positive and, compressed,
 * below the raw size. */
static void
check_inventory (NczVariable *v, const char *key_path, gboolean compressed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) list = ncz_variable_query_chunks (v, NULL, 0, NULL, 0, NULL, &error);
  guint64 sum = 0, stored_size = 0, raw_size = 0, n_stored = 0, n_chunks = 0;
  guint n_dims = 0;
  g_autofree guint64 *grid = ncz_variable_get_chunk_grid (v, &n_dims);

  g_assert_no_error (error);
  g_assert_cmpuint (n_dims, ==, 2);
  g_assert_cmpuint (grid[0], ==, 3);
  g_assert_cmpuint (grid[1], ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (list), ==, 6);
  g_assert_true (g_list_model_get_item_type (list) == NCZ_TYPE_CHUNK_INFO);
  for (guint k = 0; k < 6; k++)
    {
      g_autoptr(NczChunkInfo) info = g_list_model_get_item (list, k);
      guint n = 0;
      const guint64 *index = ncz_chunk_info_get_index (info, &n);
      gboolean expect = (index[0] == 0 && index[1] == 0) || (index[0] == 2 && index[1] == 1);
      g_autoptr(GVariant) iv = NULL;
      gboolean stored;
      guint64 stored_sz, raw_sz;

      g_assert_cmpuint (n, ==, 2);
      /* C order */
      g_assert_cmpuint (index[0], ==, k / 2);
      g_assert_cmpuint (index[1], ==, k % 2);
      g_object_get (info, "index", &iv, "stored", &stored, "stored-size", &stored_sz,
                    "raw-size", &raw_sz, NULL);
      g_assert_true (g_variant_is_of_type (iv, G_VARIANT_TYPE ("at")));
      g_assert_cmpuint (g_variant_n_children (iv), ==, 2);
      g_assert_cmpuint (stored, ==, expect);
      g_assert_cmpuint (raw_sz, ==, CX * CY * sizeof (gint32));
      g_assert_cmpuint (ncz_chunk_info_get_raw_size (info), ==, raw_sz);
      if (!expect)
        {
          g_assert_cmpuint (stored_sz, ==, 0);
          continue;
        }
      g_assert_cmpuint (stored_sz, >, 0);
      if (compressed)
        g_assert_cmpuint (stored_sz, <, raw_sz);
      if (key_path != NULL)
        {
          g_autofree char *path = g_strdup_printf (key_path, index[0], index[1]);
          GStatBuf st;
          g_assert_cmpint (g_stat (path, &st), ==, 0);
          g_assert_cmpuint (stored_sz, ==, (guint64) st.st_size);
        }
      sum += stored_sz;
    }

  g_assert_true (ncz_variable_get_storage_size (v, &stored_size, &raw_size, &n_stored,
                                                &n_chunks, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stored_size, ==, sum);
  g_assert_cmpuint (raw_size, ==, 6 * CX * CY * sizeof (gint32));
  g_assert_cmpuint (n_stored, ==, 2);
  g_assert_cmpuint (n_chunks, ==, 6);
}

static void
check_box_and_errors (NczVariable *v)
{
  g_autoptr(GError) error = NULL;
  guint64 start[2] = { 1, 1 }, count[2] = { 2, 1 };
  g_autoptr(GListModel) list = ncz_variable_query_chunks (v, start, 2, count, 2, NULL, &error);
  GListModel *bad;

  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (list), ==, 2);
  {
    g_autoptr(NczChunkInfo) a = g_list_model_get_item (list, 0);
    g_autoptr(NczChunkInfo) b = g_list_model_get_item (list, 1);
    const guint64 *ia = ncz_chunk_info_get_index (a, NULL);
    const guint64 *ib = ncz_chunk_info_get_index (b, NULL);
    g_assert_cmpuint (ia[0], ==, 1);
    g_assert_cmpuint (ia[1], ==, 1);
    g_assert_false (ncz_chunk_info_get_stored (a));
    g_assert_cmpuint (ib[0], ==, 2);
    g_assert_cmpuint (ib[1], ==, 1);
    g_assert_true (ncz_chunk_info_get_stored (b));
  }

  /* outside the grid */
  start[0] = 2;
  count[0] = 2;
  bad = ncz_variable_query_chunks (v, start, 2, count, 2, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);
  /* wrong rank */
  bad = ncz_variable_query_chunks (v, start, 1, count, 1, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  /* an empty box is an empty list */
  start[0] = 3;
  count[0] = 0;
  g_clear_object (&list);
  list = ncz_variable_query_chunks (v, start, 2, count, 2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (list), ==, 0);
}

static void
test_nczarr_file (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "a.ncz", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autofree char *keys = g_build_filename (path, "v", "%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, NULL);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "file") || !have (NCZ_FEATURE_CODEC, "zstd"))
    return;
  make_dataset (url, TRUE, FALSE);
  v = open_var (url, "v", &ds);
  check_inventory (v, keys, TRUE);
  check_box_and_errors (v);

  /* never written at all */
  {
    g_autoptr(GError) error = NULL;
    guint64 stored = 1, n_stored = 1, n_chunks = 0;
    NczVariable *empty = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "empty");
    g_autofree guint64 *grid = ncz_variable_get_chunk_grid (empty, NULL);
    g_assert_true (ncz_variable_get_storage_size (empty, &stored, NULL, &n_stored, &n_chunks,
                                                  NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (stored, ==, 0);
    g_assert_cmpuint (n_stored, ==, 0);
    g_assert_cmpuint (n_chunks, ==, grid[0] * grid[1]);
    g_assert_cmpuint (n_chunks, >, 0);
  }
}

static void
test_zarr_slash (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "b.zarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=zarr,file&dimension_separator=/", path);
  g_autofree char *keys = g_build_filename (path, "v", "%" G_GUINT64_FORMAT, "%" G_GUINT64_FORMAT, NULL);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "file"))
    return;
  make_dataset (url, FALSE, FALSE);
  v = open_var (url, "v", &ds);
  check_inventory (v, keys, FALSE);
}

static void
test_zip (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "c.zip", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,zip", path);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "zip") || !have (NCZ_FEATURE_CODEC, "zstd"))
    return;
  make_dataset (url, TRUE, FALSE);
  v = open_var (url, "v", &ds);
  check_inventory (v, NULL, TRUE);
}

static void
test_hdf5 (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "d.nc", NULL);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have (NCZ_FEATURE_FORMAT, "hdf5"))
    return;
  make_dataset (path, FALSE, TRUE);
  v = open_var (path, "v", &ds);
  check_inventory (v, NULL, TRUE);
  check_box_and_errors (v);
}

/* a contiguous HDF5 variable is one chunk holding all its bytes */
static void
test_hdf5_contiguous (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "e.nc", NULL);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;
  guint64 stored = 0, raw = 0, n_stored = 0, n_chunks = 0;

  if (!have (NCZ_FEATURE_FORMAT, "hdf5"))
    return;
  {
    g_autoptr(NczDataset) w = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
    NczGroup *root;
    NczDimension *d;
    gint32 buf[NX] = { 0 };
    guint64 start = 0, count = NX;
    g_assert_no_error (error);
    root = ncz_dataset_get_root_group (w);
    d = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
    v = ncz_group_add_variable (root, "c", NCZ_DATA_TYPE_INT, 1, &d, &error);
    g_assert_no_error (error);
    g_assert_true (ncz_variable_set_contiguous (v, TRUE, &error));
    g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, buf, sizeof buf,
                                       NULL, &error));
    g_assert_true (ncz_dataset_close (w, NULL, &error));
    g_assert_no_error (error);
  }
  v = open_var (path, "c", &ds);
  g_assert_true (ncz_variable_get_storage_size (v, &stored, &raw, &n_stored, &n_chunks, NULL,
                                                &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_chunks, ==, 1);
  g_assert_cmpuint (n_stored, ==, 1);
  g_assert_cmpuint (stored, ==, NX * sizeof (gint32));
  g_assert_cmpuint (raw, ==, NX * sizeof (gint32));
}

static void
done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_async_and_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "g.ncz", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  GAsyncResult *result = NULL;
  GListModel *list;
  NczVariable *v;
  guint64 stored = 0, n_stored = 0;

  if (!have (NCZ_FEATURE_STORE, "file"))
    return;
  make_dataset (url, FALSE, FALSE);
  v = open_var (url, "v", &ds);

  ncz_variable_query_chunks_async (v, NULL, 0, NULL, 0, NULL, done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  list = ncz_variable_query_chunks_finish (v, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (list), ==, 6);
  g_object_unref (list);
  g_clear_object (&result);

  ncz_variable_get_storage_size_async (v, NULL, done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (ncz_variable_get_storage_size_finish (v, result, &stored, NULL, &n_stored,
                                                       NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_stored, ==, 2);
  g_assert_cmpuint (stored, ==, 2 * CX * CY * sizeof (gint32));
  g_clear_object (&result);

  /* a bad box fails through the callback */
  {
    guint64 start[2] = { 9, 0 }, count[2] = { 1, 1 };
    ncz_variable_query_chunks_async (v, start, 2, count, 2, NULL, done_cb, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_null (ncz_variable_query_chunks_finish (v, result, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_clear_error (&error);
    g_clear_object (&result);
  }

  g_cancellable_cancel (cancel);
  g_assert_null (ncz_variable_query_chunks (v, NULL, 0, NULL, 0, cancel, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  ncz_variable_query_chunks_async (v, NULL, 0, NULL, 0, cancel, done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (ncz_variable_query_chunks_finish (v, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&result);
}

/* a format without query_chunks: the memory store's datasets use the
 * NCZarr backend, so a closed dataset stands for the error path */
static void
test_closed (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "h.ncz", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "file"))
    return;
  make_dataset (url, FALSE, FALSE);
  v = open_var (url, "v", &ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_null (ncz_variable_query_chunks (v, NULL, 0, NULL, 0, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_assert_nonnull (strstr (error->message, path));
}

static void
test_filter_providers (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "p.ncz", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GVariant) providers = NULL;
  g_autoptr(GVariant) none = NULL;
  const char *codec, *name, *file, *why;
  guint32 id;
  gboolean available;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "file") || !have (NCZ_FEATURE_CODEC, "zstd"))
    return;
  make_dataset (url, TRUE, FALSE);
  v = open_var (url, "v", &ds);
  providers = ncz_variable_get_filter_providers (v);
  g_assert_true (g_variant_is_of_type (providers, G_VARIANT_TYPE ("a(sussbs)")));
  g_assert_cmpuint (g_variant_n_children (providers), ==, 1);
  g_variant_get_child (providers, 0, "(&su&s&sb&s)", &codec, &id, &name, &file, &available,
                       &why);
  g_assert_cmpstr (codec, ==, "zstd");
  g_assert_cmpuint (id, ==, NCZ_FILTER_ZSTD);
  g_assert_true (available);
  g_assert_cmpstr (why, ==, "");
  g_assert_nonnull (strstr (name, "zstd"));
  g_assert_true (g_str_has_suffix (file, ".so"));
  g_assert_true (g_file_test (file, G_FILE_TEST_EXISTS));
  {
    /* the plugin the registry lists under that name has that file */
    g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (ncz_registry_get_default ());
    gboolean found = FALSE;
    for (guint i = 0; i < plugins->len; i++)
      {
        NczPluginInfo *p = g_ptr_array_index (plugins, i);
        if (g_strcmp0 (ncz_plugin_info_get_name (p), name) == 0)
          {
            g_assert_cmpstr (ncz_plugin_info_get_filename (p), ==, file);
            found = TRUE;
          }
      }
    g_assert_true (found);
  }

  none = ncz_variable_get_filter_providers (ncz_group_get_variable (
                                              ncz_dataset_get_root_group (ds), "empty"));
  g_assert_cmpuint (g_variant_n_children (none), ==, 0);
}

/* a codec no module provides: listed as unavailable, with the reason */
static void
test_filter_provider_missing (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "q.zarr", NULL);
  g_autofree char *arr = g_build_filename (path, "m", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=zarr,file", path);
  g_autofree char *zgroup = g_build_filename (path, ".zgroup", NULL);
  g_autofree char *zarray = g_build_filename (arr, ".zarray", NULL);
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GVariant) providers = NULL;
  const char *codec, *name, *file, *why;
  guint32 id;
  gboolean available;
  NczVariable *v;

  if (!have (NCZ_FEATURE_STORE, "file"))
    return;
  g_assert_cmpint (g_mkdir_with_parents (arr, 0755), ==, 0);
  g_assert_true (g_file_set_contents (zgroup, "{\"zarr_format\": 2}", -1, NULL));
  g_assert_true (g_file_set_contents (zarray,
    "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\", "
    "\"compressor\": {\"id\": \"no-such-codec\"}, \"fill_value\": 0, \"order\": \"C\", "
    "\"filters\": null}", -1, NULL));
  v = open_var (url, "m", &ds);
  providers = ncz_variable_get_filter_providers (v);
  g_assert_cmpuint (g_variant_n_children (providers), ==, 1);
  g_variant_get_child (providers, 0, "(&su&s&sb&s)", &codec, &id, &name, &file, &available,
                       &why);
  g_assert_cmpstr (codec, ==, "no-such-codec");
  g_assert_false (available);
  g_assert_cmpstr (name, ==, "");
  g_assert_nonnull (strstr (why, "no-such-codec"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add (name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/chunk-info/nczarr-file-zstd", test_nczarr_file);
  ADD ("/chunk-info/zarr-slash", test_zarr_slash);
  ADD ("/chunk-info/zip", test_zip);
  ADD ("/chunk-info/hdf5", test_hdf5);
  ADD ("/chunk-info/hdf5-contiguous", test_hdf5_contiguous);
  ADD ("/chunk-info/async-cancel", test_async_and_cancel);
  ADD ("/chunk-info/closed", test_closed);
  ADD ("/filter-providers/zstd", test_filter_providers);
  ADD ("/filter-providers/missing", test_filter_provider_missing);
  return g_test_run ();
}
