/* test-file-registry.c: the file storage module, found and loaded by the
 * registry from its manifest
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <glib/gstdio.h>

#include "store-checks.h"

static NczStore *
open_with_registry (const char *path,
                    guint       flags,
                    GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *uri = g_filename_to_uri (path, NULL, &local_error);
  g_autofree char *text = g_strconcat (uri, "#mode=nczarr,file", NULL);
  g_autoptr(NczUrl) url = ncz_url_parse (text, &local_error);

  g_assert_no_error (local_error);
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "file");
  return ncz_registry_open_store (ncz_registry_get_default (), url, flags, NULL, error);
}

static void
test_registry_open (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base = g_dir_make_tmp ("ncz-file-registry-XXXXXX", &error);
  g_autofree char *root = NULL;
  g_autofree char *chunk = NULL;
  g_autoptr(NczStore) store = NULL;
  g_autoptr(NczStore) reader = NULL;
  NczStore *missing;

  g_assert_no_error (error);
  g_assert_true (ncz_registry_has_feature (ncz_registry_get_default (),
                                           NCZ_FEATURE_STORE, "file"));
  root = g_build_filename (base, "data.zarr", NULL);

  missing = open_with_registry (root, NCZ_STORE_READ, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (missing);
  g_clear_error (&error);

  store = open_with_registry (root, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (store), ==, "NczFileStore");
  g_assert_true (G_IS_INITABLE (store));

  store_put (store, ".zgroup", "{\"zarr_format\": 2}");
  store_put (store, "v/.zarray", "{}");
  store_put (store, "v/0.0", "chunk");
  chunk = g_build_filename (root, "v", "0.0", NULL);
  /* a new dataset appears at its path when committed, whole */
  g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (chunk, G_FILE_TEST_IS_REGULAR));

  reader = open_with_registry (root, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (reader, "v/0.0", "chunk");

  /* the interface's properties, as the registry set them */
  g_assert_cmpuint (ncz_store_get_flags (store), ==, NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_assert_cmpuint (ncz_store_get_flags (reader), ==, NCZ_STORE_READ);
  g_assert_nonnull (ncz_store_get_url (reader));
  g_assert_cmpstr (ncz_url_get_storage (ncz_store_get_url (reader)), ==, "file");
  /* local reads are copies from the page cache: no batching */
  g_assert_cmpuint (ncz_store_get_io_depth_hint (reader), ==, 1);
  store_assert_list (reader, "", ".zgroup", "v", NULL);
  store_check_concurrent_reads (store);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rmdir (root), ==, 0);
  g_assert_cmpint (g_rmdir (base), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/storage/file/registry-open", test_registry_open);

  return g_test_run ();
}
