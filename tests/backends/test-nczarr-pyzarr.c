/* test-nczarr-pyzarr.c: stores written by the NCZarr backend, read by
 * zarr-python 2 and xarray
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-test-util.h"

static void
write_store (const char *path, const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("file://%s#%s", path, fragment);
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root, *sub;
  NczDimension *time, *lat, *x, *n;
  NczVariable *v;
  float tas[12], ffill = -999.0f;
  double dv[2] = { 1.5, 2.5 }, dfill = 1.23456789012, dnan = NAN;
  gint32 s = 7, be[3] = { 1, 2, 3 }, five = 5;
  guint64 start[2] = { 0, 0 }, count[2] = { 4, 3 }, c1 = 1, two = 2, three = 3;
  const char *strs[] = { "a", "bb", "a str", NULL };
  char fillc = 'x';

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  {
    g_autoptr(NczAttribute) a = ncz_attribute_new_text ("title", "test", -1);
    g_assert_true (ncz_group_set_attribute (root, a, &error));
  }
  time = ncz_group_add_dimension (root, "time", 4, FALSE, &error);
  lat = ncz_group_add_dimension (root, "lat", 3, FALSE, &error);
  n = ncz_group_add_dimension (root, "n", 3, FALSE, &error);
  v = ncz_group_add_variable (root, "tas", NCZ_DATA_TYPE_FLOAT, 2, (NczDimension *[]) { time, lat }, &error);
  g_assert_no_error (error);
  {
    g_autoptr(GBytes) b = g_bytes_new (&ffill, 4);
    g_assert_true (ncz_variable_set_fill_value (v, b, &error));
  }
  for (int i = 0; i < 12; i++)
    tas[i] = i + 1;
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, tas, sizeof tas, NULL, &error));
  v = ncz_group_add_variable (root, "scalarv", NCZ_DATA_TYPE_INT, 0, NULL, &error);
  g_assert_true (ncz_variable_write (v, NULL, 0, NULL, 0, NULL, 0, &s, 4, NULL, &error));
  v = ncz_group_add_variable (root, "be", NCZ_DATA_TYPE_INT, 1, &n, &error);
  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
  g_assert_true (ncz_variable_write (v, start, 1, &three, 1, NULL, 0, be, sizeof be, NULL, &error));
  v = ncz_group_add_variable (root, "chars", NCZ_DATA_TYPE_CHAR, 1, &n, &error);
  {
    g_autoptr(GBytes) b = g_bytes_new (&fillc, 1);
    g_assert_true (ncz_variable_set_fill_value (v, b, &error));
  }
  g_assert_true (ncz_variable_write (v, start, 1, &two, 1, NULL, 0, "xy", 2, NULL, &error));
  v = ncz_group_add_variable (root, "strs", NCZ_DATA_TYPE_STRING, 1, &n, &error);
  {
    g_autoptr(NczAttribute) a = ncz_attribute_new_values ("_nczarr_maxstrlen", NCZ_DATA_TYPE_INT, &five, 1, &error);
    g_assert_true (ncz_variable_set_attribute (v, a, &error));
  }
  g_assert_true (ncz_variable_write_strings (v, start, 1, &three, 1, NULL, 0, strs, NULL, &error));
  v = ncz_group_add_variable (root, "dbl", NCZ_DATA_TYPE_DOUBLE, 1, &n, &error);
  {
    g_autoptr(GBytes) b = g_bytes_new (&dfill, 8);
    g_assert_true (ncz_variable_set_fill_value (v, b, &error));
  }
  g_assert_true (ncz_variable_write (v, start, 1, &c1, 1, NULL, 0, dv, 8, NULL, &error));
  v = ncz_group_add_variable (root, "nan", NCZ_DATA_TYPE_DOUBLE, 1, &n, &error);
  {
    g_autoptr(GBytes) b = g_bytes_new (&dnan, 8);
    g_assert_true (ncz_variable_set_fill_value (v, b, &error));
  }
  sub = ncz_group_add_group (root, "sub", &error);
  x = ncz_group_add_dimension (sub, "x", 2, FALSE, &error);
  v = ncz_group_add_variable (sub, "d", NCZ_DATA_TYPE_DOUBLE, 1, &x, &error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, &c1, 1, &error));
  g_assert_true (ncz_variable_write (v, start, 1, &two, 1, NULL, 0, dv, sizeof dv, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
test_pyzarr_reads (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *keys = NULL, *attrs = NULL, *pure = NULL;
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "backends", "check-pyzarr.py", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *python = g_getenv ("PYTHON") ? g_getenv ("PYTHON") : "/usr/bin/python3";
  int status = 0;

  if (!ncz_registry_has_feature (ncz_registry_get_default (), NCZ_FEATURE_STORE, "file"))
    {
      g_test_skip ("the file store is not built");
      return;
    }
  tmp = g_dir_make_tmp ("ncz-nczarr-py-XXXXXX", &error);
  g_assert_no_error (error);
  keys = g_build_filename (tmp, "keys.zarr", NULL);
  attrs = g_build_filename (tmp, "attrs.zarr", NULL);
  pure = g_build_filename (tmp, "pure.zarr", NULL);
  write_store (keys, "mode=nczarr,file");
  write_store (attrs, "mode=nczarr,file&layout=attributes");
  write_store (pure, "mode=zarr,file");
  {
    g_autofree char *a1 = g_strconcat ("keys=", keys, NULL);
    g_autofree char *a2 = g_strconcat ("attributes=", attrs, NULL);
    g_autofree char *a3 = g_strconcat ("pure=", pure, NULL);
    const char *argv[] = { python, script, a1, a2, a3, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
    g_assert_no_error (error);
  }
  nczt_remove_tree (keys);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("zarr-python is not installed");
      return;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("zarr-python check failed:\n%s\n%s", out, err);
  g_test_message ("%s", out);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  nczt_init ();
  g_test_add_func ("/nczarr/zarr-python/reads-ncz-stores", test_pyzarr_reads);
  return g_test_run ();
}
