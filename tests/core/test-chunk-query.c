/* The core side of the chunk inventory: a format without query_chunks
 * fails with NCZ_BACKEND_ERROR_UNSUPPORTED naming the format and the
 * variable; the chunk grid of chunked, contiguous, unlimited and scalar
 * variables; NczChunkInfo made by hand.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>
#include <ncz/ncz.h>

#include "test-format.h"

static void
test_unsupported (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *d = ncz_group_add_dimension (root, "x", 10, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 1, &d, &error);
  guint64 stored = 0;

  g_assert_no_error (error);
  g_assert_null (ncz_variable_query_chunks (v, NULL, 0, NULL, 0, NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'ftest'"));
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_get_storage_size (v, &stored, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
}

static void
test_grid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *d[2];
  NczVariable *v, *c, *s;
  guint64 chunks[2] = { 3, 4 };
  g_autofree guint64 *grid = NULL;
  g_autofree guint64 *cgrid = NULL;
  guint n = 9;

  d[0] = ncz_group_add_dimension (root, "t", 0, TRUE, &error);
  d[1] = ncz_group_add_dimension (root, "x", 10, FALSE, &error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, d, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  grid = ncz_variable_get_chunk_grid (v, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (grid[0], ==, 0);   /* empty unlimited dimension */
  g_assert_cmpuint (grid[1], ==, 3);   /* 10 / 4 rounded up */

  c = ncz_group_add_variable (root, "c", NCZ_DATA_TYPE_INT, 1, &d[1], &error);
  g_assert_true (ncz_variable_set_contiguous (c, TRUE, &error));
  cgrid = ncz_variable_get_chunk_grid (c, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (cgrid[0], ==, 1);

  s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_INT, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (ncz_variable_get_chunk_grid (s, &n));
  g_assert_cmpuint (n, ==, 0);
}

static void
test_info_new (void)
{
  guint64 index[3] = { 1, 2, 3 };
  g_autoptr(NczChunkInfo) a = ncz_chunk_info_new (index, 3, TRUE, 10, 80);
  g_autoptr(NczChunkInfo) b = ncz_chunk_info_new (index, 3, FALSE, 10, 80);
  g_autoptr(GVariant) iv = ncz_chunk_info_get_index_variant (a);
  guint n = 0;

  g_assert_cmpuint (ncz_chunk_info_get_index (a, &n)[2], ==, 3);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (g_variant_get_type_string (iv), ==, "at");
  g_assert_true (ncz_chunk_info_get_stored (a));
  g_assert_cmpuint (ncz_chunk_info_get_stored_size (a), ==, 10);
  g_assert_false (ncz_chunk_info_get_stored (b));
  g_assert_cmpuint (ncz_chunk_info_get_stored_size (b), ==, 0);
  g_assert_cmpuint (ncz_chunk_info_get_raw_size (b), ==, 80);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  filter_test_format_register ();
  g_test_add_func ("/chunk-query/unsupported", test_unsupported);
  g_test_add_func ("/chunk-query/grid", test_grid);
  g_test_add_func ("/chunk-query/info-new", test_info_new);
  return g_test_run ();
}
