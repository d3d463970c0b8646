/* test-hdf5-write.c: netCDF-4 files written through the HDF5 backend,
 * checked with libhdf5 itself
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <signal.h>
#include <utime.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

/* A path in the test's own (isolated) cache directory. */
static char *
temp_path (const char *name)
{
  g_assert_cmpint (g_mkdir_with_parents (g_get_user_cache_dir (), 0700), ==, 0);
  return g_build_filename (g_get_user_cache_dir (), name, NULL);
}

static NczDataset *
create (const char *path)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  g_assert_cmpstr (ncz_format_get_name (ncz_dataset_get_format (ds)), ==, "hdf5");
  return ds;
}

static void
close_dataset (NczDataset *ds)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
}

static hid_t
h5_open (const char *path)
{
  hid_t f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);

  g_assert_cmpint (f, >=, 0);
  return f;
}

static char *
read_string_attribute (hid_t loc, const char *name, gboolean *variable)
{
  hid_t a = H5Aopen (loc, name, H5P_DEFAULT);
  hid_t t;
  char *text;

  g_assert_cmpint (a, >=, 0);
  t = H5Aget_type (a);
  g_assert_cmpint (H5Tget_class (t), ==, H5T_STRING);
  *variable = H5Tis_variable_str (t) > 0;
  if (*variable)
    {
      char *p = NULL;
      g_assert_cmpint (H5Aread (a, t, &p), >=, 0);
      text = g_strdup (p);
      H5free_memory (p);
    }
  else
    {
      text = g_malloc0 (H5Tget_size (t) + 1);
      g_assert_cmpint (H5Aread (a, t, text), >=, 0);
    }
  H5Tclose (t);
  H5Aclose (a);
  return text;
}

static herr_t
collect_name (hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
  g_ptr_array_add (data, g_strdup (name));
  return 0;
}

/* The attribute names of an object in creation order, joined by ','. */
static char *
attribute_order (hid_t loc)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  g_assert_cmpint (H5Aiterate2 (loc, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect_name,
                                names), >=, 0);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (",", (char **) names->pdata);
}

/* netcdf-c's ncdump -h of @path is @expected. */
static void
assert_ncdump (const char *path, const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ncdump = g_find_program_in_path ("ncdump");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *argv[] = { ncdump, "-h", path, NULL };
  int status = 0;

  g_assert_nonnull (ncdump);   /* netcdf-bin */
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, expected);
}

/* ncdump (no option) of @path. */
static char *
ncdump_data (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ncdump = g_find_program_in_path ("ncdump");
  g_autofree char *err = NULL;
  const char *argv[] = { ncdump, path, NULL };
  char *out = NULL;
  int status = 0;

  g_assert_nonnull (ncdump);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (status, ==, 0);
  return out;
}

/* A new file: netCDF-4's creation properties and _NCProperties naming Ncz. */
static void
test_new_file (void)
{
  g_autofree char *path = temp_path ("new.nc");
  g_autofree char *props = NULL;
  g_autofree char *expected = NULL;
  unsigned maj, min, rel, crt;
  gboolean variable;
  H5F_info2_t info;
  hid_t f, fcpl, root;

  close_dataset (create (path));
  f = h5_open (path);
  root = H5Gopen2 (f, "/", H5P_DEFAULT);
  props = read_string_attribute (root, "_NCProperties", &variable);
  g_assert_false (variable);
  H5get_libversion (&maj, &min, &rel);
  expected = g_strdup_printf ("version=2,ncz=%s,hdf5=%u.%u.%u", NCZ_VERSION_STRING, maj, min, rel);
  g_assert_cmpstr (props, ==, expected);
  fcpl = H5Gget_create_plist (root);   /* the root group keeps the creation orders */
  g_assert_cmpint (H5Pget_link_creation_order (fcpl, &crt), >=, 0);
  g_assert_cmpuint (crt, ==, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  g_assert_cmpint (H5Pget_attr_creation_order (fcpl, &crt), >=, 0);
  g_assert_cmpuint (crt, ==, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  g_assert_cmpint (H5Fget_info2 (f, &info), >=, 0);
  g_assert_cmpuint (info.super.version, ==, 2);
  H5Pclose (fcpl);
  H5Gclose (root);
  H5Fclose (f);
}

/* ncz_variable_is_chunking_set() and what the writer makes of it. */
static void
test_chunking_choice (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("chunking.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 100, FALSE, &error);
  NczDimension *y = ncz_group_add_dimension (root, "y", 50, FALSE, &error);
  NczDimension *t = ncz_group_add_dimension (root, "t", 0, TRUE, &error);
  NczDimension *xy[2] = { x, y };
  NczVariable *plain = ncz_group_add_variable (root, "plain", NCZ_DATA_TYPE_INT, 2, xy, &error);
  NczVariable *chosen = ncz_group_add_variable (root, "chosen", NCZ_DATA_TYPE_INT, 2, xy, &error);
  NczVariable *asked = ncz_group_add_variable (root, "asked", NCZ_DATA_TYPE_INT, 2, xy, &error);
  NczVariable *packed = ncz_group_add_variable (root, "packed", NCZ_DATA_TYPE_DOUBLE, 2, xy, &error);
  NczVariable *rec = ncz_group_add_variable (root, "rec", NCZ_DATA_TYPE_FLOAT, 1, &t, &error);
  NczVariable *brec = ncz_group_add_variable (root, "brec", NCZ_DATA_TYPE_BYTE, 1, &t, &error);
  guint64 sizes[2] = { 10, 7 };
  hsize_t chunks[2];
  hid_t f, d, p;

  g_assert_no_error (error);
  g_assert_false (ncz_variable_is_chunking_set (plain));
  g_assert_true (ncz_variable_set_chunk_sizes (chosen, sizes, 2, &error));
  g_assert_true (ncz_variable_is_chunking_set (chosen));
  g_assert_true (ncz_variable_set_contiguous (asked, FALSE, &error));
  g_assert_true (ncz_variable_is_chunking_set (asked));
  g_assert_true (ncz_variable_set_contiguous (asked, TRUE, &error));
  g_assert_false (ncz_variable_is_chunking_set (asked));
  g_assert_true (ncz_variable_set_deflate (packed, TRUE, TRUE, 4, &error));
  g_assert_false (ncz_variable_is_chunking_set (packed));
  g_assert_no_error (error);
  close_dataset (ds);

  f = h5_open (path);
  d = H5Dopen2 (f, "plain", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_layout (p), ==, H5D_CONTIGUOUS);
  H5Pclose (p);
  H5Dclose (d);
  d = H5Dopen2 (f, "asked", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_layout (p), ==, H5D_CONTIGUOUS);
  H5Pclose (p);
  H5Dclose (d);
  d = H5Dopen2 (f, "chosen", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_layout (p), ==, H5D_CHUNKED);
  g_assert_cmpint (H5Pget_chunk (p, 2, chunks), ==, 2);
  g_assert_cmpuint (chunks[0], ==, 10);
  g_assert_cmpuint (chunks[1], ==, 7);
  H5Pclose (p);
  H5Dclose (d);
  /* netCDF-4's default shapes: the whole of a small variable, 4 KiB for a
   * one-dimensional record variable */
  d = H5Dopen2 (f, "packed", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_chunk (p, 2, chunks), ==, 2);
  g_assert_cmpuint (chunks[0], ==, 100);
  g_assert_cmpuint (chunks[1], ==, 50);
  g_assert_cmpint (H5Pget_nfilters (p), ==, 2);
  g_assert_cmpint (H5Pget_filter2 (p, 0, NULL, NULL, NULL, 0, NULL, NULL), ==, H5Z_FILTER_SHUFFLE);
  g_assert_cmpint (H5Pget_filter2 (p, 1, NULL, NULL, NULL, 0, NULL, NULL), ==, H5Z_FILTER_DEFLATE);
  H5Pclose (p);
  H5Dclose (d);
  d = H5Dopen2 (f, "rec", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_chunk (p, 1, chunks), ==, 1);
  g_assert_cmpuint (chunks[0], ==, 1024);
  H5Pclose (p);
  H5Dclose (d);
  d = H5Dopen2 (f, "brec", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_chunk (p, 1, chunks), ==, 1);
  g_assert_cmpuint (chunks[0], ==, 4096);
  H5Pclose (p);
  H5Dclose (d);
  H5Fclose (f);
  (void) rec;
  (void) brec;
}

/* Definitions HDF5 cannot apply to a dataset already in the file fail
 * naming the variable; attributes changed after creation are rewritten
 * in the model's order. */
static void
test_late_definitions (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("late.nc");
  g_autofree char *order = NULL;
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_autoptr(NczAttribute) a1 = ncz_attribute_new_text ("a1", "one", -1);
  g_autoptr(NczAttribute) a2 = ncz_attribute_new_text ("a2", "two", -1);
  g_autoptr(NczAttribute) a3 = ncz_attribute_new_text ("a3", "three", -1);
  g_autoptr(NczAttribute) a2b = NULL;
  g_autoptr(NczAttribute) reserved = ncz_attribute_new_text ("DIMENSION_LIST", "x", -1);
  g_autoptr(NczAttribute) ga = ncz_attribute_new_text ("title", "t", -1);
  const gint32 two[2] = { 2, 22 };
  guint64 sizes[1] = { 2 };
  gint32 fill = -5;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  gboolean variable;
  g_autofree char *text = NULL;
  hid_t f, d, a;
  gint32 values[2];

  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_attribute (v, a1, &error));
  g_assert_true (ncz_variable_set_attribute (v, a2, &error));
  g_assert_true (ncz_variable_set_attribute (v, a3, &error));
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);

  /* the dataset exists: its storage is fixed */
  g_assert_false (ncz_variable_set_chunk_sizes (v, sizes, 1, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_assert_nonnull (strstr (error->message, "chunk"));
  g_clear_error (&error);
  /* the model took the definition: back to what the file has */
  g_assert_true (ncz_variable_set_contiguous (v, TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_fill_value (v, fill_bytes, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_assert_nonnull (strstr (error->message, "fill value"));
  g_clear_error (&error);
  /* undo in the model what the file does not have */
  g_assert_true (ncz_variable_set_fill_value (v, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_endianness (v, G_BYTE_ORDER == G_BIG_ENDIAN ?
                                               NCZ_ENDIANNESS_LITTLE : NCZ_ENDIANNESS_BIG,
                                               &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "endianness"));
  g_clear_error (&error);
  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_NATIVE, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_deflate (v, FALSE, TRUE, 1, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);

  /* names netCDF-4/HDF5 keep for themselves */
  g_assert_false (ncz_variable_set_attribute (v, reserved, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (ncz_variable_remove_attribute (v, "DIMENSION_LIST", &error));
  g_assert_no_error (error);

  /* a2 gets other values in its place, a1 goes, a4 comes */
  a2b = ncz_attribute_new_values ("a2", NCZ_DATA_TYPE_INT, two, 2, &error);
  g_assert_true (ncz_variable_set_attribute (v, a2b, &error));
  g_assert_true (ncz_variable_remove_attribute (v, "a1", &error));
  g_assert_true (ncz_group_set_attribute (root, ga, &error));
  g_assert_no_error (error);
  close_dataset (ds);

  f = h5_open (path);
  d = H5Dopen2 (f, "v", H5P_DEFAULT);
  order = attribute_order (d);
  g_assert_cmpstr (order, ==, "_Netcdf4Coordinates,DIMENSION_LIST,a2,a3");
  a = H5Aopen (d, "a2", H5P_DEFAULT);
  g_assert_cmpint (H5Aread (a, H5T_NATIVE_INT32, values), >=, 0);
  g_assert_cmpint (values[0], ==, 2);
  g_assert_cmpint (values[1], ==, 22);
  H5Aclose (a);
  text = read_string_attribute (d, "a3", &variable);
  g_assert_false (variable);
  g_assert_cmpstr (text, ==, "three");
  H5Dclose (d);
  g_clear_pointer (&order, g_free);
  d = H5Gopen2 (f, "/", H5P_DEFAULT);
  order = attribute_order (d);
  g_assert_cmpstr (order, ==, "_NCProperties,title");
  H5Gclose (d);
  H5Fclose (f);
  assert_ncdump (path, "netcdf late {\n"
                       "dimensions:\n"
                       "\tx = 4 ;\n"
                       "variables:\n"
                       "\tint v(x) ;\n"
                       "\t\tv:a2 = 2, 22 ;\n"
                       "\t\tv:a3 = \"three\" ;\n"
                       "\n"
                       "// global attributes:\n"
                       "\t\t:title = \"t\" ;\n"
                       "}\n");
}

static gboolean
file_equals (const char *path, const char *contents, gsize length)
{
  g_autofree char *now = NULL;
  gsize n = 0;

  return g_file_get_contents (path, &now, &n, NULL) && n == length &&
         memcmp (now, contents, n) == 0;
}

/* The staging files of NAME in @dir, sorted. */
static GPtrArray *
staging_files_of (const char *dir, const char *name)
{
  g_autofree char *prefix = g_strdup_printf (".%s.ncz-", name);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  const char *entry;

  while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (entry, prefix))
      g_ptr_array_add (found, g_build_filename (dir, entry, NULL));
  g_ptr_array_sort (found, (GCompareFunc) g_strcmp0);
  return found;
}

static guint
staging_files (const char *dir)
{
  g_autoptr(GPtrArray) found = staging_files_of (dir, "kept.nc");

  return found->len;
}

/* Dates a file two minutes back, past the age a staging file must have
 * before another writer may remove it. */
static void
make_old (const char *path)
{
  struct utimbuf times = { .actime = time (NULL) - 120, .modtime = time (NULL) - 120 };

  g_assert_cmpint (g_utime (path, &times), ==, 0);
}

static NczDataset *
create_with_data (const char *path, gint32 first)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  gint32 data[3] = { first, first + 1, first + 2 };
  guint64 start = 0, count = 3;

  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, data, sizeof data,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
  return ds;
}

static void
assert_first_value (const char *path, gint32 first)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  NczVariable *v;
  gint32 back[3];
  guint64 start = 0, count = 3;

  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back,
                                    NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (back[0], ==, first);
}

/* Dates a file two days back, past the age a staging file whose name
 * records no writer (an earlier version's) must have before another
 * writer may remove it. */
static void
make_older (const char *path)
{
  struct utimbuf times = { .actime = time (NULL) - 2 * 86400,
                           .modtime = time (NULL) - 2 * 86400 };

  g_assert_cmpint (g_utime (path, &times), ==, 0);
}

/* A writer killed while creating a file leaves its staging file, and the
 * old file, behind; the next creation of that path removes it at once
 * (its name records the writer, which is dead, and nobody holds it), and
 * never one a live writer holds. A staging file named by an earlier
 * version, which records no writer, goes only once a day old. */
static void
test_killed_writer (void)
{
  g_autoptr(GPtrArray) left = NULL;
  g_autoptr(GPtrArray) now = NULL;
  g_autofree char *path = NULL;
  g_autofree char *odd = NULL;
  g_autofree char *link = NULL;
  g_autofree char *legacy = NULL;
  NczDataset *live, *next;

  if (g_test_subprocess ())
    {
      /* the writer: killed with its file half made */
      create_with_data (g_getenv ("NCZ_TEST_KILLED_PATH"), 100);
      kill (getpid (), SIGKILL);
      g_assert_not_reached ();
    }

  path = temp_path ("killed.nc");
  close_dataset (create_with_data (path, 1));
  g_setenv ("NCZ_TEST_KILLED_PATH", path, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  assert_first_value (path, 1);
  left = staging_files_of (g_get_user_cache_dir (), "killed.nc");
  g_assert_cmpuint (left->len, ==, 1);

  /* its writer is dead: removed however young */
  close_dataset (create_with_data (path, 2));
  now = staging_files_of (g_get_user_cache_dir (), "killed.nc");
  g_assert_cmpuint (now->len, ==, 0);
  g_clear_pointer (&now, g_ptr_array_unref);

  /* named by an earlier version: kept while young (it could be a writer
   * of that version that has not locked it yet), removed once a day old */
  legacy = g_strdup_printf ("%s/.killed.nc.ncz-Abc123", g_get_user_cache_dir ());
  g_assert_true (g_file_set_contents (legacy, "x", 1, NULL));
  make_old (legacy);
  close_dataset (create_with_data (path, 2));
  g_assert_true (g_file_test (legacy, G_FILE_TEST_IS_REGULAR));
  make_older (legacy);
  close_dataset (create_with_data (path, 2));
  g_assert_false (g_file_test (legacy, G_FILE_TEST_EXISTS));

  /* files that are not staging files of this name are left alone */
  odd = g_strdup_printf ("%s/.killed.nc.ncz-abc12", g_get_user_cache_dir ());
  g_assert_true (g_file_set_contents (odd, "x", 1, NULL));
  make_old (odd);
  link = g_strdup_printf ("%s/.killed.nc.ncz-Lnk001", g_get_user_cache_dir ());
  g_assert_cmpint (symlink (path, link), ==, 0);

  /* a live writer's file, however old, stays while it holds it */
  live = create_with_data (path, 3);
  now = staging_files_of (g_get_user_cache_dir (), "killed.nc");
  g_assert_cmpuint (now->len, ==, 3);
  for (guint i = 0; i < now->len; i++)
    if (!g_file_test (g_ptr_array_index (now, i), G_FILE_TEST_IS_SYMLINK))
      make_old (g_ptr_array_index (now, i));
  g_clear_pointer (&now, g_ptr_array_unref);

  next = create_with_data (path, 4);
  now = staging_files_of (g_get_user_cache_dir (), "killed.nc");
  /* the live writer's file, this one's, the odd name and the link stay */
  g_assert_cmpuint (now->len, ==, 4);
  for (guint i = 0; i < now->len; i++)
    g_assert_cmpstr (g_ptr_array_index (now, i), !=, g_ptr_array_index (left, 0));
  g_clear_pointer (&now, g_ptr_array_unref);
  close_dataset (next);
  assert_first_value (path, 4);
  ncz_dataset_discard (live);
  g_object_unref (live);
  assert_first_value (path, 4);
  now = staging_files_of (g_get_user_cache_dir (), "killed.nc");
  g_assert_cmpuint (now->len, ==, 2);
  g_assert_cmpint (g_unlink (odd), ==, 0);
  g_assert_cmpint (g_unlink (link), ==, 0);
}

/* A discarded or failed creation leaves what was at the path. */
static void
test_existing_file_kept (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("kept.nc");
  g_autofree char *before = NULL;
  gsize length = 0;
  NczDataset *ds;
  NczGroup *root;
  NczDimension *x;
  NczVariable *v;
  gint32 data[3] = { 1, 2, 3 };
  guint64 start = 0, count = 3;

  ds = create (path);
  root = ncz_dataset_get_root_group (ds);
  x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, data, sizeof data,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);
  g_assert_true (g_file_get_contents (path, &before, &length, &error));

  /* discarded after data were written */
  ds = create (path);
  root = ncz_dataset_get_root_group (ds);
  x = ncz_group_add_dimension (root, "y", 3, FALSE, &error);
  v = ncz_group_add_variable (root, "w", NCZ_DATA_TYPE_DOUBLE, 1, &x, &error);
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
  ncz_dataset_discard (ds);
  g_object_unref (ds);
  g_assert_true (file_equals (path, before, length));
  g_assert_cmpuint (staging_files (g_get_user_cache_dir ()), ==, 0);

  /* not replaced when asked not to */
  ds = ncz_dataset_create (path, NCZ_CREATE_NO_CLOBBER, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (file_equals (path, before, length));
  g_assert_cmpuint (staging_files (g_get_user_cache_dir ()), ==, 0);
}

/* Variables along an unlimited dimension are extended at sync; the
 * dimension's own dataset keeps its length (as netCDF-4 does). */
static void
test_unlimited (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("unlimited.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *t = ncz_group_add_dimension (root, "t", 0, TRUE, &error);
  NczDimension *x = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  NczDimension *tx[2] = { t, x };
  NczVariable *r = ncz_group_add_variable (root, "r", NCZ_DATA_TYPE_INT, 1, &t, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_SHORT, 2, tx, &error);
  gint32 data[5] = { 5, 6, 7, 8, 9 }, back[5];
  guint64 start = 0, count = 5;
  hsize_t dims[2], maxdims[2];
  hid_t f, d, s;

  g_assert_true (ncz_variable_write (r, &start, 1, &count, 1, NULL, 0, data, sizeof data,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);
  (void) v;

  f = h5_open (path);
  d = H5Dopen2 (f, "r", H5P_DEFAULT);
  s = H5Dget_space (d);
  g_assert_cmpint (H5Sget_simple_extent_dims (s, dims, maxdims), ==, 1);
  g_assert_cmpuint (dims[0], ==, 5);
  g_assert_true (maxdims[0] == H5S_UNLIMITED);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), >=, 0);
  g_assert_cmpmem (back, sizeof back, data, sizeof data);
  H5Sclose (s);
  H5Dclose (d);
  d = H5Dopen2 (f, "v", H5P_DEFAULT);
  s = H5Dget_space (d);
  g_assert_cmpint (H5Sget_simple_extent_dims (s, dims, maxdims), ==, 2);
  g_assert_cmpuint (dims[0], ==, 5);
  g_assert_cmpuint (dims[1], ==, 2);
  H5Sclose (s);
  H5Dclose (d);
  d = H5Dopen2 (f, "t", H5P_DEFAULT);
  s = H5Dget_space (d);
  g_assert_cmpint (H5Sget_simple_extent_dims (s, dims, maxdims), ==, 1);
  g_assert_cmpuint (dims[0], ==, 0);
  g_assert_true (H5DSis_scale (d) > 0);
  H5Sclose (s);
  H5Dclose (d);
  H5Fclose (f);
}

/* A coordinate variable defined after its dimension's own dataset was
 * written replaces that dataset; the scales stay attached. */
static void
test_late_coordinate (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("latecoord.nc");
  g_autofree char *name = NULL;
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  NczGroup *sub = ncz_group_add_group (root, "sub", &error);
  NczVariable *w = ncz_group_add_variable (sub, "w", NCZ_DATA_TYPE_INT, 1, &x, &error);
  NczVariable *cx;
  float coords[3] = { 0.5f, 1.5f, 2.5f }, back[3];
  guint64 start = 0, count = 3;
  gboolean variable;
  hid_t f, dx, dv, dw;
  int dimid = -1;
  hid_t a;

  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
  cx = ncz_group_add_variable (root, "x", NCZ_DATA_TYPE_FLOAT, 1, &x, &error);
  g_assert_true (ncz_variable_write (cx, &start, 1, &count, 1, NULL, 0, coords, sizeof coords,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);
  (void) v;
  (void) w;

  f = h5_open (path);
  dx = H5Dopen2 (f, "x", H5P_DEFAULT);
  dv = H5Dopen2 (f, "v", H5P_DEFAULT);
  dw = H5Dopen2 (f, "sub/w", H5P_DEFAULT);
  g_assert_true (H5DSis_scale (dx) > 0);
  name = read_string_attribute (dx, "NAME", &variable);
  g_assert_cmpstr (name, ==, "x");
  g_assert_cmpint (H5Dread (dx, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), >=, 0);
  g_assert_cmpmem (back, sizeof back, coords, sizeof coords);
  g_assert_true (H5DSis_attached (dv, dx, 0) > 0);
  g_assert_true (H5DSis_attached (dw, dx, 0) > 0);
  a = H5Aopen (dx, "_Netcdf4Dimid", H5P_DEFAULT);
  g_assert_cmpint (H5Aread (a, H5T_NATIVE_INT, &dimid), >=, 0);
  g_assert_cmpint (dimid, ==, 0);
  H5Aclose (a);
  H5Dclose (dx);
  H5Dclose (dv);
  H5Dclose (dw);
  H5Fclose (f);
  assert_ncdump (path, "netcdf latecoord {\n"
                       "dimensions:\n"
                       "\tx = 3 ;\n"
                       "variables:\n"
                       "\tint v(x) ;\n"
                       "\tfloat x(x) ;\n"
                       "\n"
                       "group: sub {\n"
                       "  variables:\n"
                       "  \tint w(x) ;\n"
                       "  } // group sub\n"
                       "}\n");
}

/* Types in the file: endianness, char, variable-length UTF-8 strings,
 * fill values in the dataset creation properties and no-fill. */
static void
test_types (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("types.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *n = ncz_group_add_dimension (root, "n", 2, FALSE, &error);
  NczVariable *be = ncz_group_add_variable (root, "be", NCZ_DATA_TYPE_INT64, 1, &n, &error);
  NczVariable *s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 1, &n, &error);
  NczVariable *c = ncz_group_add_variable (root, "c", NCZ_DATA_TYPE_CHAR, 1, &n, &error);
  NczVariable *nf = ncz_group_add_variable (root, "nf", NCZ_DATA_TYPE_DOUBLE, 1, &n, &error);
  const char *strings[] = { "h\xc3\xa9llo", "a much longer string than the first", NULL };
  gint64 big[2] = { -3, G_GINT64_CONSTANT (1) << 40 }, back[2];
  guint64 start = 0, count = 2;
  gint64 fill = 77;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  char *sback[2] = { NULL, NULL };
  H5D_fill_time_t when;
  hid_t f, d, t, p, mt;

  g_assert_true (ncz_variable_set_endianness (be, NCZ_ENDIANNESS_BIG, &error));
  g_assert_true (ncz_variable_set_fill_value (be, fill_bytes, &error));
  g_assert_true (ncz_variable_set_no_fill (nf, TRUE, &error));
  g_assert_true (ncz_variable_write (be, &start, 1, &count, 1, NULL, 0, big, sizeof big,
                                     NULL, &error));
  g_assert_true (ncz_variable_write_strings (s, &start, 1, &count, 1, NULL, 0, strings,
                                             NULL, &error));
  g_assert_true (ncz_variable_write (c, &start, 1, &count, 1, NULL, 0, "ab", 2, NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);
  (void) nf;

  f = h5_open (path);
  d = H5Dopen2 (f, "be", H5P_DEFAULT);
  t = H5Dget_type (d);
  g_assert_cmpint (H5Tget_order (t), ==, H5T_ORDER_BE);
  g_assert_cmpint (H5Tget_size (t), ==, 8);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), >=, 0);
  g_assert_cmpmem (back, sizeof back, big, sizeof big);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_fill_value (p, H5T_NATIVE_INT64, back), >=, 0);
  g_assert_cmpint (back[0], ==, 77);
  H5Pclose (p);
  H5Tclose (t);
  H5Dclose (d);

  d = H5Dopen2 (f, "s", H5P_DEFAULT);
  t = H5Dget_type (d);
  g_assert_true (H5Tis_variable_str (t) > 0);
  g_assert_cmpint (H5Tget_cset (t), ==, H5T_CSET_UTF8);
  mt = H5Tcopy (t);
  g_assert_cmpint (H5Dread (d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, sback), >=, 0);
  g_assert_cmpstr (sback[0], ==, strings[0]);
  g_assert_cmpstr (sback[1], ==, strings[1]);
  H5free_memory (sback[0]);
  H5free_memory (sback[1]);
  H5Tclose (mt);
  H5Tclose (t);
  H5Dclose (d);

  d = H5Dopen2 (f, "c", H5P_DEFAULT);
  t = H5Dget_type (d);
  g_assert_cmpint (H5Tget_class (t), ==, H5T_STRING);
  g_assert_false (H5Tis_variable_str (t) > 0);
  g_assert_cmpint (H5Tget_size (t), ==, 1);
  g_assert_cmpint (H5Tget_cset (t), ==, H5T_CSET_ASCII);
  H5Tclose (t);
  H5Dclose (d);

  d = H5Dopen2 (f, "nf", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_fill_time (p, &when), >=, 0);
  g_assert_cmpint (when, ==, H5D_FILL_TIME_NEVER);
  H5Pclose (p);
  H5Dclose (d);
  H5Fclose (f);
}

/* Fletcher32 and szip (when HDF5 can encode it) in the pipeline. */
static void
test_filters (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("filters.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *n = ncz_group_add_dimension (root, "n", 64, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &n, &error);
  NczVariable *z = ncz_group_add_variable (root, "z", NCZ_DATA_TYPE_FLOAT, 1, &n, &error);
  unsigned config = 0;
  gboolean szip = H5Zfilter_avail (H5Z_FILTER_SZIP) > 0 &&
                  H5Zget_filter_info (H5Z_FILTER_SZIP, &config) >= 0 &&
                  (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0;
  gint32 data[64], back[64];
  guint64 start = 0, count = 64;
  hid_t f, d, p;
  unsigned flags;
  size_t nv = 4;
  unsigned values[4];

  for (guint i = 0; i < 64; i++)
    data[i] = (gint32) (i * 7);
  g_assert_true (ncz_variable_set_fletcher32 (v, &error));
  g_assert_true (ncz_variable_set_deflate (v, FALSE, TRUE, 9, &error));
  if (szip)
    g_assert_true (ncz_variable_set_szip (z, H5_SZIP_NN_OPTION_MASK, 16, &error));
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, data, sizeof data,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);

  f = h5_open (path);
  d = H5Dopen2 (f, "v", H5P_DEFAULT);
  p = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_nfilters (p), ==, 2);
  g_assert_cmpint (H5Pget_filter2 (p, 0, &flags, NULL, NULL, 0, NULL, NULL), ==, H5Z_FILTER_FLETCHER32);
  g_assert_cmpint (H5Pget_filter2 (p, 1, &flags, &nv, values, 0, NULL, NULL), ==, H5Z_FILTER_DEFLATE);
  g_assert_cmpuint (nv, ==, 1);
  g_assert_cmpuint (values[0], ==, 9);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), >=, 0);
  g_assert_cmpmem (back, sizeof back, data, sizeof data);
  H5Pclose (p);
  H5Dclose (d);
  if (szip)
    {
      d = H5Dopen2 (f, "z", H5P_DEFAULT);
      p = H5Dget_create_plist (d);
      g_assert_cmpint (H5Pget_nfilters (p), ==, 1);
      g_assert_cmpint (H5Pget_filter2 (p, 0, &flags, NULL, NULL, 0, NULL, NULL), ==, H5Z_FILTER_SZIP);
      H5Pclose (p);
      H5Dclose (d);
    }
  else
    g_test_message ("HDF5 cannot encode szip here: the szip dataset was not checked");
  H5Fclose (f);
}

/* Quantization is recorded as netCDF-4 records it (one int); a large
 * attribute goes to HDF5's dense attribute storage and reads back. */
static void
test_quantize_and_large_attribute (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("quantize.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *n = ncz_group_add_dimension (root, "n", 4, FALSE, &error);
  NczVariable *q = ncz_group_add_variable (root, "q", NCZ_DATA_TYPE_DOUBLE, 1, &n, &error);
  g_autofree double *big = g_new (double, 20000);
  g_autofree double *back = g_new (double, 20000);
  g_autoptr(NczAttribute) large = NULL;
  double values[4] = { 3.14159265358979, 2.718281828, 1.0, 100.0 };
  guint64 start = 0, count = 4;
  hid_t f, d, a, s, t;
  int nsd = 0;

  for (guint i = 0; i < 20000; i++)
    big[i] = i * 0.5;
  large = ncz_attribute_new_values ("large", NCZ_DATA_TYPE_DOUBLE, big, 20000, &error);
  g_assert_true (ncz_variable_set_quantize (q, NCZ_QUANTIZE_BITROUND, 10, &error));
  g_assert_true (ncz_variable_set_attribute (q, large, &error));
  g_assert_true (ncz_variable_write (q, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);

  f = h5_open (path);
  d = H5Dopen2 (f, "q", H5P_DEFAULT);
  a = H5Aopen (d, "_QuantizeBitRoundNumberOfSignificantBits", H5P_DEFAULT);
  g_assert_cmpint (a, >=, 0);
  s = H5Aget_space (a);
  t = H5Aget_type (a);
  g_assert_cmpint (H5Sget_simple_extent_type (s), ==, H5S_SIMPLE);
  g_assert_cmpint (H5Sget_simple_extent_npoints (s), ==, 1);
  g_assert_true (H5Tequal (t, H5T_STD_I32LE) > 0);
  g_assert_cmpint (H5Aread (a, H5T_NATIVE_INT, &nsd), >=, 0);
  g_assert_cmpint (nsd, ==, 10);
  H5Tclose (t);
  H5Sclose (s);
  H5Aclose (a);
  a = H5Aopen (d, "large", H5P_DEFAULT);
  g_assert_cmpint (a, >=, 0);
  g_assert_cmpint (H5Aread (a, H5T_NATIVE_DOUBLE, back), >=, 0);
  g_assert_cmpmem (back, 20000 * sizeof (double), big, 20000 * sizeof (double));
  H5Aclose (a);
  H5Dclose (d);
  H5Fclose (f);
}

/* A file whose variable-length string names an object its global heap
 * collection does not have (libhdf5 1.10 reads outside its table of the
 * collection's objects for it) is refused when opened for writing too:
 * the file is flushed before the read, and the descriptor checked as in
 * a read-only file. The file is left as it was. */
static void
test_open_damaged_for_writing (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "fuzz", "libhdf5-crashes",
                                                   "vlen-heap-index-huge-root-attribute.h5",
                                                   NULL);
  g_autofree char *path = temp_path ("damaged-vlen.h5");
  g_autofree char *before = NULL, *after = NULL;
  gsize n_before = 0, n_after = 0;
  NczDataset *ds;

  g_assert_true (g_file_get_contents (source, &before, &n_before, &error));
  g_assert_true (g_file_set_contents (path, before, (gssize) n_before, &error));
  ds = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "names object 1381236737 of the global heap "
                                            "collection at offset 2048, which has no such "
                                            "object"));
  g_assert_true (g_file_get_contents (path, &after, &n_after, NULL));
  g_assert_cmpmem (before, n_before, after, n_after);
  g_unlink (path);
}

/* A file netcdf-c wrote, opened for writing: what is defined is added
 * beside what it has, attributes changed in place, data written to old
 * and new variables. */
static void
test_open_for_writing (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("opened.nc");
  g_autofree char *cdl = temp_path ("opened.cdl");
  g_autofree char *ncgen = g_find_program_in_path ("ncgen");
  g_autofree char *dump = NULL;
  const char *argv[] = { ncgen, "-4", "-o", path, cdl, NULL };
  const char *text =
    "netcdf opened {\n"
    "dimensions:\n"
    "\tx = 3 ;\n"
    "\tt = UNLIMITED ;\n"
    "variables:\n"
    "\tfloat x(x) ;\n"
    "\t\tx:units = \"m\" ;\n"
    "\tint v(t, x) ;\n"
    "\t\tv:long_name = \"old\" ;\n"
    "\t\tv:keep = 1 ;\n"
    "\n"
    "// global attributes:\n"
    "\t\t:title = \"from ncgen\" ;\n"
    "data:\n"
    "\n"
    " x = 1, 2, 3 ;\n"
    "\n"
    " v =\n"
    "  1, 2, 3 ;\n"
    "}\n";
  const char *expected =
    "netcdf opened {\n"
    "dimensions:\n"
    "\tx = 3 ;\n"
    "\tt = UNLIMITED ; // (2 currently)\n"
    "\tn = 2 ;\n"
    "variables:\n"
    "\tfloat x(x) ;\n"
    "\t\tx:units = \"m\" ;\n"
    "\tint v(t, x) ;\n"
    "\t\tv:long_name = \"changed\" ;\n"
    "\t\tv:keep = 1 ;\n"
    "\tdouble w(n, x) ;\n"
    "\t\tw:_FillValue = -1. ;\n"
    "\n"
    "// global attributes:\n"
    "\t\t:title = \"from ncgen\" ;\n"
    "\t\t:history = \"added by Ncz\" ;\n"
    "data:\n"
    "\n"
    " x = 1, 2, 3 ;\n"
    "\n"
    " v =\n"
    "  1, 2, 3,\n"
    "  4, 5, 6 ;\n"
    "\n"
    " w =\n"
    "  0.5, _, _,\n"
    "  _, _, _ ;\n"
    "\n"
    "group: sub {\n"
    "  variables:\n"
    "  \tint64 s(x) ;\n"
    "  data:\n"
    "\n"
    "   s = 7, 8, 9 ;\n"
    "  } // group sub\n"
    "}\n";
  NczDataset *ds;
  NczGroup *root, *sub;
  NczDimension *x, *n, *nx[2];
  NczVariable *v, *w, *sv;
  g_autoptr(NczAttribute) history = ncz_attribute_new_text ("history", "added by Ncz", -1);
  g_autoptr(NczAttribute) long_name = ncz_attribute_new_text ("long_name", "changed", -1);
  gint32 row[3] = { 4, 5, 6 };
  gint64 svals[3] = { 7, 8, 9 };
  double half = 0.5, fill = -1;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  guint64 start[2] = { 1, 0 }, count[2] = { 1, 3 }, one[2] = { 1, 1 }, origin[2] = { 0, 0 };
  int status = 0;

  g_assert_nonnull (ncgen);   /* netcdf-bin */
  g_assert_true (g_file_set_contents (cdl, text, -1, &error));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);

  ds = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  x = ncz_group_get_dimension (root, "x");
  v = ncz_group_get_variable (root, "v");
  g_assert_nonnull (x);
  g_assert_nonnull (v);
  g_assert_true (ncz_group_set_attribute (root, history, &error));
  g_assert_true (ncz_variable_set_attribute (v, long_name, &error));
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, row, sizeof row, NULL,
                                     &error));
  g_assert_no_error (error);
  n = ncz_group_add_dimension (root, "n", 2, FALSE, &error);
  nx[0] = n;
  nx[1] = x;
  w = ncz_group_add_variable (root, "w", NCZ_DATA_TYPE_DOUBLE, 2, nx, &error);
  g_assert_true (ncz_variable_set_fill_value (w, fill_bytes, &error));
  g_assert_true (ncz_variable_write (w, origin, 2, one, 2, NULL, 0, &half, sizeof half, NULL,
                                     &error));
  g_assert_no_error (error);
  sub = ncz_group_add_group (root, "sub", &error);
  sv = ncz_group_add_variable (sub, "s", NCZ_DATA_TYPE_INT64, 1, &x, &error);
  g_assert_true (ncz_variable_write (sv, origin, 1, count + 1, 1, NULL, 0, svals, sizeof svals,
                                     NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);

  dump = ncdump_data (path);
  g_assert_cmpstr (dump, ==, expected);
}

/* An HDF5 file without netCDF's conventions (a compound dataset, a
 * dataset without dimension scales), opened for writing: what is defined
 * is added, what the reader found is left as it was (no scale is made
 * for its phony dimension, the compound dataset keeps its values). */
static void
test_open_plain_hdf5 (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("plain.h5");
  typedef struct { gint32 a; double b; } Pair;
  Pair pairs[2] = { { 1, 2.5 }, { 3, 4.5 } }, pback[2];
  gint32 plain[4] = { 4, 3, 2, 1 };
  hsize_t two = 2, four = 4;
  hid_t f, t, s2, s4, d;
  NczDataset *ds;
  NczGroup *root;
  NczDimension *n;
  NczVariable *p, *v;
  g_autoptr(NczAttribute) history = ncz_attribute_new_text ("history", "added", -1);
  g_autoptr(NczAttribute) units = ncz_attribute_new_text ("units", "m", -1);
  gint32 nv[2] = { 8, 9 };
  guint64 start = 0, count = 2;

  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  t = H5Tcreate (H5T_COMPOUND, sizeof (Pair));
  H5Tinsert (t, "a", G_STRUCT_OFFSET (Pair, a), H5T_NATIVE_INT32);
  H5Tinsert (t, "b", G_STRUCT_OFFSET (Pair, b), H5T_NATIVE_DOUBLE);
  s2 = H5Screate_simple (1, &two, NULL);
  s4 = H5Screate_simple (1, &four, NULL);
  d = H5Dcreate2 (f, "c", t, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, pairs), >=, 0);
  H5Dclose (d);
  d = H5Dcreate2 (f, "plain", H5T_STD_I32LE, s4, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, plain), >=, 0);
  H5Dclose (d);
  H5Sclose (s2);
  H5Sclose (s4);
  H5Fclose (f);

  ds = ncz_dataset_open (path, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  p = ncz_group_get_variable (root, "plain");
  g_assert_nonnull (p);
  g_assert_true (ncz_variable_set_attribute (p, units, &error));
  g_assert_true (ncz_group_set_attribute (root, history, &error));
  n = ncz_group_add_dimension (root, "n", 2, FALSE, &error);
  v = ncz_group_add_variable (root, "new", NCZ_DATA_TYPE_INT, 1, &n, &error);
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, nv, sizeof nv, NULL,
                                     &error));
  g_assert_no_error (error);
  close_dataset (ds);

  f = h5_open (path);
  d = H5Dopen2 (f, "c", H5P_DEFAULT);
  g_assert_cmpint (H5Dread (d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, pback), >=, 0);
  g_assert_cmpint (pback[1].a, ==, 3);
  g_assert_cmpfloat (pback[1].b, ==, 4.5);
  g_assert_cmpint (H5Aget_num_attrs (d), ==, 0);
  H5Dclose (d);
  d = H5Dopen2 (f, "plain", H5P_DEFAULT);
  g_assert_true (H5Aexists (d, "units") > 0);
  g_assert_false (H5Aexists (d, "DIMENSION_LIST") > 0);
  g_assert_cmpint (H5DSget_num_scales (d, 0), <=, 0);
  H5Dclose (d);
  {
    H5G_info_t info;

    /* c, plain, n and new: nothing made for the phony dimension */
    g_assert_cmpint (H5Gget_info (f, &info), >=, 0);
    g_assert_cmpuint (info.nlinks, ==, 4);
  }
  d = H5Dopen2 (f, "new", H5P_DEFAULT);
  g_assert_cmpint (H5DSget_num_scales (d, 0), ==, 1);
  H5Dclose (d);
  d = H5Dopen2 (f, "n", H5P_DEFAULT);
  g_assert_true (H5DSis_scale (d) > 0);
  H5Dclose (d);
  g_assert_true (H5Aexists (f, "history") > 0);
  H5Fclose (f);
  H5Tclose (t);
}

/* The fill value of a string or char variable already in the file:
 * the same again is accepted, another one refused. */
static void
test_text_fill_late (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("textfill.nc");
  NczDataset *ds = create (path);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *n = ncz_group_add_dimension (root, "n", 2, FALSE, &error);
  NczVariable *s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 1, &n, &error);
  NczVariable *c = ncz_group_add_variable (root, "c", NCZ_DATA_TYPE_CHAR, 1, &n, &error);
  g_autoptr(GBytes) none = g_bytes_new ("none", 5);
  g_autoptr(GBytes) other = g_bytes_new ("other", 6);
  g_autoptr(GBytes) x = g_bytes_new ("x", 1);
  g_autoptr(GBytes) y = g_bytes_new ("y", 1);

  g_assert_true (ncz_variable_set_fill_value (s, none, &error));
  g_assert_true (ncz_variable_set_fill_value (c, x, &error));
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_fill_value (s, none, &error));
  g_assert_true (ncz_variable_set_fill_value (c, x, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_fill_value (s, other, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'/s'"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_fill_value (c, y, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "'/c'"));
  g_clear_error (&error);
  ncz_dataset_discard (ds);
  g_object_unref (ds);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/hdf5/write/new-file", test_new_file);
  g_test_add_func ("/hdf5/write/chunking-choice", test_chunking_choice);
  g_test_add_func ("/hdf5/write/late-definitions", test_late_definitions);
  g_test_add_func ("/hdf5/write/existing-file-kept", test_existing_file_kept);
  g_test_add_func ("/hdf5/write/killed-writer", test_killed_writer);
  g_test_add_func ("/hdf5/write/unlimited", test_unlimited);
  g_test_add_func ("/hdf5/write/late-coordinate", test_late_coordinate);
  g_test_add_func ("/hdf5/write/types", test_types);
  g_test_add_func ("/hdf5/write/filters", test_filters);
  g_test_add_func ("/hdf5/write/quantize-and-large-attribute", test_quantize_and_large_attribute);
  g_test_add_func ("/hdf5/write/open-for-writing", test_open_for_writing);
  g_test_add_func ("/hdf5/write/open-damaged-for-writing", test_open_damaged_for_writing);
  g_test_add_func ("/hdf5/write/open-plain-hdf5", test_open_plain_hdf5);
  g_test_add_func ("/hdf5/write/text-fill-late", test_text_fill_late);
  return g_test_run ();
}
