/* test-hdf5-read.c: the HDF5 reader through the API
 *
 * netCDF-4 files written by ncgen -4 (skipped when ncgen is not
 * installed) are opened with ncz_dataset_open() and the model is checked:
 * variable-length strings, the filter chain with HDF5 ids and parameters,
 * chunking and byte order, fill values, unlimited dimensions, dimensions
 * of enclosing groups, and damaged files giving an error that names the
 * file.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef NCZ_ENABLE_MODULE_API
#define NCZ_ENABLE_MODULE_API
#endif
#include <string.h>
#include <glib/gstdio.h>
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

static char *tmpdir;

static const char cdl[] =
  "netcdf t {\n"
  "dimensions:\n"
  "  x = 3 ;\n"
  "  t = UNLIMITED ;\n"
  "variables:\n"
  "  float x(x) ;\n"
  "  string s(x) ;\n"
  "  int z(t, x) ;\n"
  "    z:_ChunkSizes = 1, 3 ;\n"
  "    z:_Shuffle = \"true\" ;\n"
  "    z:_DeflateLevel = 4 ;\n"
  "    z:_FillValue = -5 ;\n"
  "  short big(x) ;\n"
  "    big:_Endianness = \"big\" ;\n"
  "  double nofill(x) ;\n"
  "    nofill:_NoFill = \"true\" ;\n"
  "  int short_rec(t) ;\n"
  "  :title = \"test\" ;\n"
  "data:\n"
  "  x = 1, 2, 3 ;\n"
  "  s = \"a\", \"bb\", \"a string longer than the rest\" ;\n"
  "  z = 1, 2, 3, 4, 5, 6, 7, 8, 9 ;\n"
  "  big = 1, -2, 300 ;\n"
  "  nofill = 1, 2, 3 ;\n"
  "  short_rec = 11 ;\n"
  "group: g {\n"
  "  dimensions:\n"
  "    y = 2 ;\n"
  "  variables:\n"
  "    int v(y, x) ;\n"
  "  data:\n"
  "    v = 1, 2, 3, 4, 5, 6 ;\n"
  "}\n"
  "}\n";

/* Writes @text with ncgen -4 to a .nc file; NULL (test skipped) without ncgen. */
static char *
make_file (const char *name, const char *text)
{
  g_autofree char *ncgen = g_find_program_in_path ("ncgen");
  g_autofree char *cdl_path = g_build_filename (tmpdir, "in.cdl", NULL);
  char *path = g_strdup_printf ("%s/%s.nc", tmpdir, name);
  g_autoptr(GError) error = NULL;
  const char *argv[] = { NULL, "-4", "-o", path, cdl_path, NULL };
  int status = 0;

  if (ncgen == NULL)
    {
      g_test_skip ("ncgen is not installed");
      g_free (path);
      return NULL;
    }
  argv[0] = ncgen;
  g_assert_true (g_file_set_contents (cdl_path, text, -1, &error));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  return path;
}

static void
test_model (void)
{
  g_autofree char *path = make_file ("model", cdl);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root, *g;
  NczVariable *s, *z, *big, *nofill, *v, *x, *rec;
  NczDimension *t, *xd;
  GPtrArray *filters;
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GArray) params = NULL;
  guint rank = 0;
  const guint64 *chunks;
  guint64 start[2] = { 0, 0 }, count[2] = { 3, 3 };
  gint32 zv[9];
  gint16 bv[3];
  gint32 rv[3];
  char **strs;

  if (path == NULL)
    return;
  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);

  /* dimensions: t is as long as its longest variable */
  t = ncz_group_get_dimension (root, "t");
  g_assert_nonnull (t);
  g_assert_true (ncz_dimension_is_unlimited (t));
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 3);
  xd = ncz_group_get_dimension (root, "x");
  g_assert_cmpuint (ncz_dimension_get_length (xd), ==, 3);

  /* the coordinate variable x */
  x = ncz_group_get_variable (root, "x");
  g_assert_nonnull (x);
  g_assert_true (ncz_variable_get_dimension (x, 0) == xd);

  /* strings are variable length, read whole */
  s = ncz_group_get_variable (root, "s");
  g_assert_cmpint (ncz_variable_get_value_type (s), ==, NCZ_DATA_TYPE_STRING);
  g_assert_true (ncz_variable_has_variable_length_strings (s));
  strs = ncz_variable_read_strings (s, start, 1, count, 1, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strs[0], ==, "a");
  g_assert_cmpstr (strs[1], ==, "bb");
  g_assert_cmpstr (strs[2], ==, "a string longer than the rest");
  g_strfreev (strs);

  /* filters in pipeline order with their HDF5 ids and parameters */
  z = ncz_group_get_variable (root, "z");
  ids = ncz_variable_get_filter_ids (z);
  g_assert_cmpuint (ids->len, ==, 2);
  g_assert_cmpuint (g_array_index (ids, guint, 0), ==, NCZ_FILTER_SHUFFLE);
  g_assert_cmpuint (g_array_index (ids, guint, 1), ==, NCZ_FILTER_DEFLATE);
  params = ncz_variable_get_filter_params (z, NCZ_FILTER_DEFLATE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (params->len, ==, 1);
  g_assert_cmpuint (g_array_index (params, guint, 0), ==, 4);
  filters = ncz_variable_peek_filters (z);
  g_assert_nonnull (filters);
  g_assert_cmpuint (filters->len, ==, 2);
  g_assert_cmpuint (((NczFilterSpec *) filters->pdata[1])->filter_id, ==, 1);
  chunks = ncz_variable_get_chunk_sizes (z, &rank);
  g_assert_cmpuint (rank, ==, 2);
  g_assert_cmpuint (chunks[0], ==, 1);
  g_assert_cmpuint (chunks[1], ==, 3);
  g_assert_false (ncz_variable_get_contiguous (z));
  g_assert_true (ncz_variable_has_user_fill_value (z));
  g_assert_true (ncz_variable_read (z, start, 2, count, 2, NULL, 0, zv, sizeof zv, NULL,
                                    &error));
  g_assert_no_error (error);
  for (int i = 0; i < 9; i++)
    g_assert_cmpint (zv[i], ==, i + 1);

  /* byte order */
  big = ncz_group_get_variable (root, "big");
  g_assert_cmpint (ncz_variable_get_endianness (big), ==, NCZ_ENDIANNESS_BIG);
  g_assert_true (ncz_variable_get_contiguous (big));
  g_assert_true (ncz_variable_read (big, start, 1, count, 1, NULL, 0, bv, sizeof bv, NULL,
                                    &error));
  g_assert_no_error (error);
  g_assert_cmpint (bv[0], ==, 1);
  g_assert_cmpint (bv[1], ==, -2);
  g_assert_cmpint (bv[2], ==, 300);

  nofill = ncz_group_get_variable (root, "nofill");
  g_assert_true (ncz_variable_get_no_fill (nofill));
  g_assert_false (ncz_variable_get_no_fill (z));

  /* a record variable shorter than its dimension reads fill values past
   * its extent */
  rec = ncz_group_get_variable (root, "short_rec");
  g_assert_true (ncz_variable_read (rec, start, 1, count, 1, NULL, 0, rv, sizeof rv, NULL,
                                    &error));
  g_assert_no_error (error);
  g_assert_cmpint (rv[0], ==, 11);
  g_assert_cmpint (rv[1], ==, -2147483647);
  g_assert_cmpint (rv[2], ==, -2147483647);

  /* a variable of a subgroup on a dimension of the root */
  g = ncz_group_get_group (root, "g");
  g_assert_nonnull (g);
  v = ncz_group_get_variable (g, "v");
  g_assert_nonnull (v);
  g_assert_true (ncz_variable_get_dimension (v, 1) == xd);
  g_assert_true (ncz_variable_get_dimension (v, 0) == ncz_group_get_dimension (g, "y"));

  /* hidden attributes are not shown; _NCProperties is not an attribute */
  g_assert_null (ncz_variable_get_attribute (x, "CLASS"));
  g_assert_null (ncz_variable_get_attribute (x, "REFERENCE_LIST"));
  g_assert_null (ncz_variable_get_attribute (z, "DIMENSION_LIST"));
  g_assert_null (ncz_variable_get_attribute (z, "_Netcdf4Coordinates"));
  g_assert_null (ncz_group_get_attribute (root, "_NCProperties"));
  g_assert_nonnull (ncz_group_get_attribute (root, "title"));

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* Damaged copies give an error that names the file. */
static void
test_damaged (void)
{
  g_autofree char *path = make_file ("whole", cdl);
  g_autofree char *damaged = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  static const gsize cuts[] = { 0, 8, 100, 600, 2000, 5000 };
  guint n_errors = 0;

  if (path == NULL)
    return;
  damaged = g_strdup_printf ("%s/damaged.nc", tmpdir);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cuts) + 20; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;
      g_autofree char *copy = g_memdup2 (data, len);
      gsize n = len;

      if (i < G_N_ELEMENTS (cuts))
        n = MIN (cuts[i], len);
      else
        {
          /* object headers and heaps lie in the first few kilobytes */
          gsize at = 96 + (i - G_N_ELEMENTS (cuts)) * 211 % MIN (len - 96, 8000);
          for (int j = 0; j < 4 && at + j < len; j++)
            copy[at + j] ^= 0x5a;
        }
      g_assert_true (g_file_set_contents (damaged, copy, (gssize) n, NULL));
      ds = ncz_dataset_open (damaged, NCZ_OPEN_READ, NULL, &error);
      if (ds == NULL)
        {
          g_assert_nonnull (error);
          g_assert_nonnull (strstr (error->message, "damaged.nc"));
          n_errors++;
        }
      else
        {
          /* whatever was read, closing works */
          ncz_dataset_close (ds, NULL, NULL);
        }
    }
  g_assert_cmpuint (n_errors, >=, G_N_ELEMENTS (cuts));
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("ncz-hdf5-read-XXXXXX", NULL);
  g_test_add_func ("/hdf5/read/model", test_model);
  g_test_add_func ("/hdf5/read/damaged", test_damaged);
  rc = g_test_run ();
  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmpdir, name, NULL);
        g_unlink (p);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }
  return rc;
}
