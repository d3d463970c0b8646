/* test-foreign-scan.c: the scan of foreign HDF5 filter and Codec
 * libraries and its pairing table (codec-registry/ncz-foreign-scan.h),
 * on fixture libraries and on Debian's HDF5 filter plugins.
 *
 * Loading a library can make symbols global for the rest of the process
 * (host libraries), so the cases whose outcome depends on that run in a
 * subprocess of their own.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ncz-foreign-scan.h"

/* ---- helpers ---- */

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("foreign-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* Removes a directory of links and small files (not recursive beyond one
 * level of subdirectories). */
static void
remove_dir (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        g_rmdir (child);
      else
        g_unlink (child);
    }
  g_dir_close (dir);
  g_rmdir (path);
}

static void
link_as (const char *dir,
         const char *target,
         const char *name)
{
  g_autofree char *base = g_path_get_basename (target);
  g_autofree char *path = g_build_filename (dir, name != NULL ? name : base, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
link_fixture (const char *dir,
              const char *name)
{
  g_autofree char *file = g_strdup_printf ("lib%s.so", name);
  g_autofree char *target = g_build_filename (FIXTURE_DIR, file, NULL);

  g_assert_true (g_file_test (target, G_FILE_TEST_IS_REGULAR));
  link_as (dir, target, NULL);
}

static const char *
basename_of (const char *path)
{
  const char *slash = path != NULL ? strrchr (path, '/') : NULL;

  return slash != NULL ? slash + 1 : path;
}

/* The row about library @base with @status (any status if -1). */
static const NczForeignRow *
find_library_row (NczForeignScan *scan,
                  const char     *base,
                  int             status)
{
  for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan); i++)
    {
      const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

      if (g_strcmp0 (basename_of (row->library), base) == 0 &&
          (status < 0 || (int) row->status == status))
        return row;
    }
  return NULL;
}

static const NczForeignRow *
expect_library_row (NczForeignScan   *scan,
                    const char       *base,
                    NczForeignStatus  status,
                    const char       *reason_part)
{
  const NczForeignRow *row = find_library_row (scan, base, status);

  if (row == NULL)
    g_error ("no %s row for %s", ncz_foreign_status_to_string (status), base);
  if (reason_part != NULL)
    {
      g_assert_nonnull (row->reason);
      if (strstr (row->reason, reason_part) == NULL)
        g_error ("reason for %s is '%s', expected it to contain '%s'", base, row->reason,
                 reason_part);
    }
  return row;
}

static const NczForeignRow *
expect_table_row (NczForeignScan   *scan,
                  guint             filter_id,
                  NczForeignStatus  status,
                  const char       *codec_id)
{
  const NczForeignRow *row = NULL;

  for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan) && row == NULL; i++)
    {
      const NczForeignRow *r = ncz_foreign_scan_get_row (scan, i);

      if (r->filter_id == filter_id && r->status == status)
        row = r;
    }
  if (row == NULL)
    g_error ("no %s row for filter %u", ncz_foreign_status_to_string (status), filter_id);
  g_assert_cmpstr (row->codec_id, ==, codec_id);
  if (status == NCZ_FOREIGN_USABLE)
    g_assert_null (row->reason);
  else
    g_assert_nonnull (row->reason);
  return row;
}

static guint
count_rows (NczForeignScan *scan,
            guint           filter_id)
{
  guint n = 0;

  for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan); i++)
    if (ncz_foreign_scan_get_row (scan, i)->filter_id == filter_id)
      n++;
  return n;
}

/* The table part comes first, by increasing id, then skipped libraries. */
static void
assert_row_order (NczForeignScan *scan)
{
  gboolean skipped_seen = FALSE;
  guint last_id = 0;

  for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan); i++)
    {
      const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

      g_assert_nonnull (row->library);
      if (row->status == NCZ_FOREIGN_USABLE || row->status == NCZ_FOREIGN_HDF5_ONLY ||
          row->status == NCZ_FOREIGN_CODEC_ONLY)
        {
          g_assert_false (skipped_seen);
          g_assert_cmpuint (row->filter_id, >, last_id);
          last_id = row->filter_id;
        }
      else if (row->status == NCZ_FOREIGN_NCZ_MODULE || row->filter_id == 0)
        skipped_seen = TRUE;
    }
}

static const char * const fixture_dir_a[] = {
  "fx-h5-badvers", "fx-h5-notfilter", "fx-codec-badvers", "fx-codec-badsort", "fx-mismatch",
  "fx-noabi", "fx-h5-half", "fx-h5-a", "fx-h5-a2", "fx-defaults", "fx-full-b", "fx-codec-only",
  "fx-h5-c", "fx-h5-fail", "fx-h5-lie", "fx-full-d1", "fx-full-d2", "fx-marker", "fx-badjson",
};

/* Directory A with most fixtures; B with the codec for A's 40030 and a
 * second libfx-full-b.so. */
static NczForeignScan *
scan_fixtures (char **dir_a,
               char **dir_b)
{
  const char *dirs[3];
  g_autofree char *b_target = g_build_filename (FIXTURE_DIR, "libfx-full-b.so", NULL);

  *dir_a = make_dir ();
  *dir_b = make_dir ();
  for (gsize i = 0; i < G_N_ELEMENTS (fixture_dir_a); i++)
    link_fixture (*dir_a, fixture_dir_a[i]);
  link_fixture (*dir_b, "fx-codec-c");
  link_as (*dir_b, b_target, NULL);

  dirs[0] = *dir_a;
  dirs[1] = *dir_b;
  dirs[2] = NULL;
  return ncz_foreign_scan_new (dirs);
}

static gpointer
fixture_symbol (const char *library,
                const char *symbol)
{
  g_autofree char *path = g_build_filename (FIXTURE_DIR, library, NULL);
  void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  gpointer address;

  g_assert_nonnull (handle);
  address = dlsym (handle, symbol);
  dlclose (handle);
  return address;
}

/* ---- the pairing table on fixtures ---- */

static void
test_scan_fixtures (void)
{
  g_autofree char *dir_a = NULL;
  g_autofree char *dir_b = NULL;
  g_autoptr(NczForeignScan) scan = scan_fixtures (&dir_a, &dir_b);
  const char * const *path = ncz_foreign_scan_get_search_path (scan);
  const NczForeignRow *row;

  g_assert_cmpuint (g_strv_length ((char **) path), ==, 2);
  g_assert_cmpstr (path[0], ==, dir_a);
  g_assert_cmpstr (path[1], ==, dir_b);
  g_assert_cmpstr (ncz_foreign_scan_get_search_path_source (scan, 0), ==, "explicit");
  g_assert_true (ncz_foreign_scan_get_search_path_exists (scan, 1));
  /* Every fixture is linked with what it uses. */
  g_assert_null (ncz_foreign_scan_get_host_libraries (scan)[0]);

  /* Broken libraries, skipped with their reason */
  expect_library_row (scan, "libfx-h5-badvers.so", NCZ_FOREIGN_BROKEN,
                      "H5Z_class2_t version 2, expected 1");
  expect_library_row (scan, "libfx-h5-notfilter.so", NCZ_FOREIGN_BROKEN, "not a filter");
  expect_library_row (scan, "libfx-codec-badvers.so", NCZ_FOREIGN_BROKEN,
                      "NCZ_codec_t version 2, expected 1");
  expect_library_row (scan, "libfx-codec-badsort.so", NCZ_FOREIGN_BROKEN, "NCZ_codec_t sort 2");
  row = expect_library_row (scan, "libfx-mismatch.so", NCZ_FOREIGN_BROKEN,
                            "HDF5 filter id 40004 and its codec 'fxmis' HDF5 id 40005 differ");
  g_assert_cmpuint (row->filter_id, ==, 0);
  expect_library_row (scan, "libfx-noabi.so", NCZ_FOREIGN_BROKEN, "exports neither");
  expect_library_row (scan, "libfx-h5-half.so", NCZ_FOREIGN_BROKEN,
                      "exports H5PLget_plugin_type but not H5PLget_plugin_info");
  g_assert_cmpuint (count_rows (scan, 40001), ==, 0);
  g_assert_cmpuint (count_rows (scan, 40003), ==, 0);
  g_assert_cmpuint (count_rows (scan, 40004), ==, 0);
  g_assert_cmpuint (count_rows (scan, 40080), ==, 0);

  /* HDF5-only + defaults library: the default codec is used */
  row = expect_table_row (scan, 40010, NCZ_FOREIGN_USABLE, "fxa");
  g_assert_cmpstr (basename_of (row->hdf5_library), ==, "libfx-h5-a.so");
  g_assert_cmpstr (basename_of (row->codec_library), ==, "libfx-defaults.so");
  g_assert_true (row->codec_is_default);
  g_assert_cmpstr (row->hdf5_name, ==, "fixture filter");
  /* a second HDF5 library for 40010 is a duplicate */
  row = expect_library_row (scan, "libfx-h5-a2.so", NCZ_FOREIGN_DUPLICATE,
                            "HDF5 filter 40010 is already provided by");
  g_assert_cmpuint (row->filter_id, ==, 40010);
  g_assert_nonnull (strstr (row->reason, "libfx-h5-a.so"));

  /* A library with both parts beats the defaults library */
  row = expect_table_row (scan, 40011, NCZ_FOREIGN_USABLE, "fxb");
  g_assert_false (row->codec_is_default);
  g_assert_cmpstr (row->hdf5_library, ==, row->codec_library);
  g_assert_true (g_str_has_prefix (row->codec_library, dir_a));
  row = expect_library_row (scan, "libfx-defaults.so", NCZ_FOREIGN_DUPLICATE,
                            "defaults codec 'fxb' not used");
  g_assert_cmpuint (row->filter_id, ==, 40011);
  g_assert_true (row->codec_is_default);
  /* ... and the same library found again in B is a duplicate */
  row = find_library_row (scan, "libfx-full-b.so", NCZ_FOREIGN_DUPLICATE);
  g_assert_nonnull (row);
  g_assert_true (g_str_has_prefix (row->library, dir_b));
  g_assert_nonnull (strstr (row->reason, "already provided by"));

  /* Codec parts alone are ignored, from a defaults library or not */
  row = expect_table_row (scan, 40012, NCZ_FOREIGN_CODEC_ONLY, "fxc");
  g_assert_true (row->codec_is_default);
  g_assert_null (row->hdf5_library);
  row = expect_table_row (scan, 40020, NCZ_FOREIGN_CODEC_ONLY, "fxonly");
  g_assert_false (row->codec_is_default);
  g_assert_nonnull (strstr (row->reason, "no HDF5 library"));
  /* The defaults library's own NCZ_get_codec_info is not used */
  g_assert_cmpuint (count_rows (scan, 40099), ==, 0);

  /* HDF5-only in A + Codec-only in B: usable */
  row = expect_table_row (scan, 40030, NCZ_FOREIGN_USABLE, "fxc2");
  g_assert_true (g_str_has_prefix (row->hdf5_library, dir_a));
  g_assert_true (g_str_has_prefix (row->codec_library, dir_b));
  g_assert_cmpstr (basename_of (row->library), ==, "libfx-h5-c.so");

  /* One codec id names one filter: the first found */
  expect_table_row (scan, 40050, NCZ_FOREIGN_USABLE, "fxdup");
  row = expect_library_row (scan, "libfx-full-d2.so", NCZ_FOREIGN_DUPLICATE,
                            "codec id 'fxdup' already names HDF5 filter 40050");
  g_assert_cmpuint (row->filter_id, ==, 40051);

  /* A library exporting an Ncz module's entry point is not paired */
  row = expect_library_row (scan, "libfx-marker.so", NCZ_FOREIGN_NCZ_MODULE, "served natively");
  g_assert_cmpuint (row->filter_id, ==, 40060);
  g_assert_cmpuint (count_rows (scan, 40060), ==, 1);

  expect_table_row (scan, 40040, NCZ_FOREIGN_USABLE, "fxfail");
  expect_table_row (scan, 40041, NCZ_FOREIGN_USABLE, "fxlie");
  expect_table_row (scan, 40070, NCZ_FOREIGN_USABLE, "fxbadjson");

  assert_row_order (scan);

  /* Lookups find the table rows only */
  g_assert_true (ncz_foreign_scan_lookup (scan, 40010, NULL) ==
                 ncz_foreign_scan_lookup (scan, 0, "fxa"));
  g_assert_cmpint (ncz_foreign_scan_lookup (scan, 0, "fxdup")->filter_id, ==, 40050);
  g_assert_cmpint (ncz_foreign_scan_lookup (scan, 40020, NULL)->status, ==, NCZ_FOREIGN_CODEC_ONLY);
  g_assert_null (ncz_foreign_scan_lookup (scan, 40001, NULL));
  g_assert_null (ncz_foreign_scan_lookup (scan, 40060, NULL));
  g_assert_null (ncz_foreign_scan_lookup (scan, 0, "fxmis"));
  g_assert_null (ncz_foreign_scan_lookup (scan, 0, "nothing"));

  remove_dir (dir_a);
  remove_dir (dir_b);
}

/* Entries that are not libraries, or not loadable */
static void
test_scan_special_files (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *text = g_build_filename (dir, "libbad.so", NULL);
  g_autofree char *fifo = g_build_filename (dir, "libfifo.so", NULL);
  g_autofree char *subdir = g_build_filename (dir, "libdir.so", NULL);
  g_autofree char *target = g_build_filename (FIXTURE_DIR, "libfx-h5-c.so", NULL);
  const char *dirs[] = { dir, NULL };
  g_autoptr(NczForeignScan) scan = NULL;
  g_autoptr(GError) error = NULL;
  const NczForeignRow *row;

  g_file_set_contents (text, "this is not a shared library\n", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_mkdir (subdir, 0700), ==, 0);
  link_as (dir, "/nonexistent/libgone.so", "libdangling.so");
  link_as (dir, target, "libversioned.so.1.2");
  /* not lib*.so*: never looked at */
  link_as (dir, target, "fxnolib.so");
  link_as (dir, target, "libfx.sox");
  link_as (dir, target, "libfx.txt");

  scan = ncz_foreign_scan_new (dirs);

  expect_library_row (scan, "libbad.so", NCZ_FOREIGN_BROKEN, "cannot be loaded");
  expect_library_row (scan, "libfifo.so", NCZ_FOREIGN_BROKEN, "not a regular file");
  expect_library_row (scan, "libdangling.so", NCZ_FOREIGN_BROKEN, "cannot be read");
  g_assert_null (find_library_row (scan, "libdir.so", -1));
  row = expect_table_row (scan, 40030, NCZ_FOREIGN_HDF5_ONLY, NULL);
  g_assert_cmpstr (basename_of (row->library), ==, "libversioned.so.1.2");
  g_assert_nonnull (strstr (row->reason, "no Codec library for HDF5 filter 40030"));
  g_assert_cmpuint (ncz_foreign_scan_get_n_rows (scan), ==, 4);

  remove_dir (dir);
}

static void
test_scan_empty (void)
{
  const char *dirs[] = { "/nonexistent/hdf5/plugins", NULL };
  g_autoptr(NczForeignScan) none = ncz_foreign_scan_new (NULL);
  g_autoptr(NczForeignScan) missing = ncz_foreign_scan_new (dirs);

  g_assert_cmpuint (ncz_foreign_scan_get_n_rows (none), ==, 0);
  g_assert_null (ncz_foreign_scan_get_search_path (none)[0]);
  g_assert_cmpuint (ncz_foreign_scan_get_n_rows (missing), ==, 0);
  g_assert_cmpstr (ncz_foreign_scan_get_search_path (missing)[0], ==, dirs[0]);
  g_assert_false (ncz_foreign_scan_get_search_path_exists (missing, 0));
  g_assert_null (ncz_foreign_scan_lookup (missing, 32000, NULL));

  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_USABLE), ==, "usable");
  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_HDF5_ONLY), ==, "hdf5-only");
  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_CODEC_ONLY), ==, "codec-only");
  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_DUPLICATE), ==, "duplicate");
  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_BROKEN), ==, "broken");
  g_assert_cmpstr (ncz_foreign_status_to_string (NCZ_FOREIGN_NCZ_MODULE), ==, "ncz-module");
}

/* HDF5_PLUGIN_PATH, then the default directory; the default scan once */
static void
test_scan_environment (void)
{
  g_autofree char *dir_a = NULL;
  g_autofree char *dir_b = NULL;
  g_autofree char *env = NULL;
  NczForeignScan *scan;
  const char * const *path;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  dir_a = make_dir ();
  dir_b = make_dir ();
  link_fixture (dir_b, "fx-full-b");
  env = g_strdup_printf ("%s::%s:%s:/nonexistent", dir_a, dir_b, dir_a);
  g_setenv ("HDF5_PLUGIN_PATH", env, TRUE);

  scan = ncz_foreign_scan_get_default ();
  g_assert_true (scan == ncz_foreign_scan_get_default ());
  path = ncz_foreign_scan_get_search_path (scan);
  g_assert_cmpstr (path[0], ==, dir_a);
  g_assert_cmpstr (path[1], ==, dir_b);
  g_assert_cmpstr (path[2], ==, "/nonexistent");
  g_assert_cmpstr (path[3], ==, "/usr/local/hdf5/lib/plugin");
  g_assert_null (path[4]);
  g_assert_cmpstr (ncz_foreign_scan_get_search_path_source (scan, 0), ==, "HDF5_PLUGIN_PATH");
  g_assert_cmpstr (ncz_foreign_scan_get_search_path_source (scan, 2), ==, "HDF5_PLUGIN_PATH");
  g_assert_cmpstr (ncz_foreign_scan_get_search_path_source (scan, 3), ==, "default");
  g_assert_true (ncz_foreign_scan_get_search_path_exists (scan, 1));
  g_assert_false (ncz_foreign_scan_get_search_path_exists (scan, 2));
  expect_table_row (scan, 40011, NCZ_FOREIGN_USABLE, "fxb");

  /* Later changes are not seen by the default scan */
  g_setenv ("HDF5_PLUGIN_PATH", dir_a, TRUE);
  g_assert_nonnull (ncz_foreign_scan_lookup (ncz_foreign_scan_get_default (), 40011, NULL));

  remove_dir (dir_a);
  remove_dir (dir_b);
}

/* ---- using a row ---- */

static const char payload[] = "Zarr chunks through a foreign HDF5 filter, and back again.";

typedef struct {
  const NczForeignRow *row;
  guint rounds;
} ThreadData;

static gpointer
filter_thread (gpointer data)
{
  ThreadData *td = data;
  const guint working[] = { 33 };

  for (guint i = 0; i < td->rounds; i++)
    {
      g_autoptr(GBytes) input = g_bytes_new (payload, sizeof payload);
      g_autoptr(GBytes) encoded = ncz_foreign_row_filter (td->row, FALSE, working, 1, input, NULL);
      g_autoptr(GBytes) decoded = NULL;

      g_assert_nonnull (encoded);
      decoded = ncz_foreign_row_filter (td->row, TRUE, working, 1, encoded, NULL);
      g_assert_nonnull (decoded);
      g_assert_true (g_bytes_equal (decoded, input));
    }
  return NULL;
}

static void
test_row_roundtrip (void)
{
  g_autofree char *dir_a = NULL;
  g_autofree char *dir_b = NULL;
  g_autoptr(NczForeignScan) scan = scan_fixtures (&dir_a, &dir_b);
  const NczForeignRow *row = ncz_foreign_scan_lookup (scan, 0, "fxa");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) params = NULL;
  g_autoptr(GBytes) input = g_bytes_new (payload, sizeof payload);
  g_autoptr(GBytes) encoded = NULL;
  g_autoptr(GBytes) decoded = NULL;
  g_autofree char *json = NULL;
  const guint8 *bytes;
  gsize length;
  int *init_count;
  GThread *threads[4];
  ThreadData td;

  g_assert_nonnull (row);
  g_assert_cmpint (row->status, ==, NCZ_FOREIGN_USABLE);

  /* Codec JSON <-> visible parameters, through the defaults library */
  g_assert_true (ncz_foreign_row_params_from_json (row, "{\"id\": \"fxa\", \"k\": 7}", &params, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (params->len, ==, 1);
  g_assert_cmpuint (g_array_index (params, guint, 0), ==, 7);
  g_clear_pointer (&params, g_array_unref);
  g_assert_true (ncz_foreign_row_params_from_json (row, "{\"id\": \"fxa\"}", &params, &error));
  g_assert_cmpuint (params->len, ==, 0);

  json = ncz_foreign_row_params_to_json (row, (const guint[]) { 7 }, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "\"fxa\""));
  g_assert_nonnull (strstr (json, "\"k\""));
  g_clear_pointer (&json, g_free);
  json = ncz_foreign_row_params_to_json (row, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "\"fxa\""));
  g_assert_null (strstr (json, "\"k\""));

  /* Encoding replaces the buffer, decoding works in place */
  encoded = ncz_foreign_row_filter (row, FALSE, (const guint[]) { 7 }, 1, input, &error);
  g_assert_no_error (error);
  bytes = g_bytes_get_data (encoded, &length);
  g_assert_cmpuint (length, ==, sizeof payload + 4);
  g_assert_cmpint (bytes[0], ==, 'F');
  g_assert_cmpint (bytes[2], ==, 7);
  g_assert_cmpint (bytes[4], ==, payload[0] ^ 7);
  decoded = ncz_foreign_row_filter (row, TRUE, (const guint[]) { 7 }, 1, encoded, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (decoded, input));
  g_clear_pointer (&encoded, g_bytes_unref);
  g_clear_pointer (&decoded, g_bytes_unref);

  /* No working parameters: the filter's default key */
  encoded = ncz_foreign_row_filter (row, FALSE, NULL, 0, input, &error);
  g_assert_no_error (error);
  g_assert_cmpint (((const guint8 *) g_bytes_get_data (encoded, NULL))[2], ==, 0x5A);

  /* From several threads at once */
  td.row = row;
  td.rounds = 200;
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("filter", filter_thread, &td);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);

  /* NCZ_codec_initialize ran once, for the defaults codec in use */
  init_count = fixture_symbol ("libfx-defaults.so", "fx_init_count");
  g_assert_nonnull (init_count);
  g_assert_cmpint (*init_count, ==, 1);
  /* ... and not for the one in a library never used */
  init_count = fixture_symbol ("libfx-codec-only.so", "fx_init_count");
  g_assert_cmpint (*init_count, ==, 0);

  remove_dir (dir_a);
  remove_dir (dir_b);
}

static void
test_row_errors (void)
{
  g_autofree char *dir_a = NULL;
  g_autofree char *dir_b = NULL;
  g_autoptr(NczForeignScan) scan = scan_fixtures (&dir_a, &dir_b);
  const NczForeignRow *fxa = ncz_foreign_scan_lookup (scan, 40010, NULL);
  g_autoptr(GBytes) input = g_bytes_new (payload, sizeof payload);
  g_autoptr(GBytes) garbage = g_bytes_new ("garbage", 7);
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GError) error = NULL;
  GArray *params = NULL;
  GBytes *out;
  char *json;

  /* The Codec library refuses the JSON */
  g_assert_false (ncz_foreign_row_params_from_json (fxa, "{\"id\": \"bad\"}", &params, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "libfx-defaults.so"));
  g_assert_nonnull (strstr (error->message, "NCZ_codec_to_hdf5"));
  g_assert_null (params);
  g_clear_error (&error);

  /* ... or the parameters */
  json = ncz_foreign_row_params_to_json (fxa, (const guint[]) { 1, 2 }, 2, &error);
  g_assert_null (json);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);

  /* ... or writes something that is not JSON */
  json = ncz_foreign_row_params_to_json (ncz_foreign_scan_lookup (scan, 40070, NULL), NULL, 0, &error);
  g_assert_null (json);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "this is not JSON"));
  g_clear_error (&error);

  /* Decoding what the filter did not encode */
  out = ncz_foreign_row_filter (fxa, TRUE, NULL, 0, garbage, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "HDF5 filter 40010"));
  g_assert_nonnull (strstr (error->message, "libfx-h5-a.so"));
  g_clear_error (&error);
  out = ncz_foreign_row_filter (fxa, TRUE, NULL, 0, empty, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_clear_error (&error);

  /* A filter that fails, one that lies about its output */
  out = ncz_foreign_row_filter (ncz_foreign_scan_lookup (scan, 40040, NULL), FALSE, NULL, 0,
                                input, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "libfx-h5-fail.so"));
  g_assert_nonnull (strstr (error->message, "failed to encode"));
  g_clear_error (&error);
  out = ncz_foreign_row_filter (ncz_foreign_scan_lookup (scan, 40041, NULL), FALSE, NULL, 0,
                                input, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "claims more bytes"));
  g_clear_error (&error);

  /* Rows that are not usable */
  out = ncz_foreign_row_filter (ncz_foreign_scan_lookup (scan, 40020, NULL), FALSE, NULL, 0,
                                input, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "HDF5 filter 40020"));
  g_clear_error (&error);
  g_assert_false (ncz_foreign_row_params_from_json (ncz_foreign_scan_lookup (scan, 40012, NULL),
                                                    "{\"id\": \"fxc\"}", &params, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_clear_error (&error);

  remove_dir (dir_a);
  remove_dir (dir_b);
}

static void
assert_params (GArray      *array,
               const guint *expected,
               guint        n)
{
  g_assert_cmpuint (array->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (array, guint, i), ==, expected[i]);
  g_array_unref (array);
}

static void
test_working_params (void)
{
  /* shuffle: the element size */
  assert_params (ncz_foreign_working_params (2, NULL, 0, 8, 800), (const guint[]) { 8 }, 1);
  /* fletcher32: nothing */
  assert_params (ncz_foreign_working_params (3, (const guint[]) { 9 }, 1, 8, 800), NULL, 0);
  /* LZF: version, LZF version, chunk bytes (as HDF5's set_local) */
  assert_params (ncz_foreign_working_params (32000, NULL, 0, 4, 400),
                 (const guint[]) { 4, 261, 400 }, 3);
  /* blosc: 7 visible -> 7 working */
  assert_params (ncz_foreign_working_params (32001, (const guint[]) { 0, 0, 0, 0, 9, 2, 5 }, 7, 4, 4096),
                 (const guint[]) { 2, 2, 4, 4096, 9, 2, 5 }, 7);
  assert_params (ncz_foreign_working_params (32001, NULL, 0, 2, 100),
                 (const guint[]) { 2, 2, 2, 100, 5, 1, 0 }, 7);
  /* bitshuffle: element size at [2], block and compression kept */
  assert_params (ncz_foreign_working_params (32008, (const guint[]) { 0, 0, 0, 0, 2 }, 5, 4, 400),
                 (const guint[]) { 0, 0, 4, 0, 2 }, 5);
  assert_params (ncz_foreign_working_params (32008, NULL, 0, 8, 400),
                 (const guint[]) { 0, 0, 8 }, 3);
  /* everything else: the visible parameters */
  assert_params (ncz_foreign_working_params (307, (const guint[]) { 9 }, 1, 4, 400),
                 (const guint[]) { 9 }, 1);
  assert_params (ncz_foreign_working_params (40010, NULL, 0, 4, 400), NULL, 0);
}

/* ---- Ncz's own modules ---- */

static void
test_scan_ncz_module (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  const char *dirs[2];
  g_autoptr(NczForeignScan) scan = NULL;
  const NczForeignRow *row;

  if (NCZ_MODULE_FILE[0] == '\0')
    {
      g_test_skip ("no Ncz codec module is built");
      return;
    }
  dir = make_dir ();
  link_as (dir, NCZ_MODULE_FILE, NULL);
  dirs[0] = dir;
  dirs[1] = NULL;
  scan = ncz_foreign_scan_new (dirs);
  base = g_path_get_basename (NCZ_MODULE_FILE);

  row = expect_library_row (scan, base, NCZ_FOREIGN_NCZ_MODULE, "NCZ_PLUGIN_PATH");
  g_assert_cmpuint (row->filter_id, >, 0);
  g_assert_nonnull (row->codec_id);
  g_assert_cmpuint (ncz_foreign_scan_get_n_rows (scan), ==, 1);
  g_assert_null (ncz_foreign_scan_lookup (scan, row->filter_id, NULL));

  remove_dir (dir);
}

/* ---- Debian's HDF5 filter plugins ---- */

static char **
debian_plugins (void)
{
  if (DEBIAN_HDF5_PLUGINS[0] == '\0')
    return NULL;
  return g_strsplit (DEBIAN_HDF5_PLUGINS, ":", -1);
}

static gboolean
have_debian_plugin (const char *base)
{
  g_auto(GStrv) plugins = debian_plugins ();

  for (gsize i = 0; plugins != NULL && plugins[i] != NULL; i++)
    if (strcmp (basename_of (plugins[i]), base) == 0)
      return TRUE;
  return FALSE;
}

static char *
debian_plugin_path (const char *base)
{
  g_auto(GStrv) plugins = debian_plugins ();

  for (gsize i = 0; plugins != NULL && plugins[i] != NULL; i++)
    if (strcmp (basename_of (plugins[i]), base) == 0)
      return g_strdup (plugins[i]);
  return NULL;
}

static void
test_scan_debian (void)
{
  static const struct {
    const char *base;
    guint filter_id;
  } hdf5_only[] = {
    { "libh5bz2.so", 307 },
    { "libh5lz4.so", 32004 },
    { "libH5Zblosc.so", 32001 },
    { "libh5zzfp.so", 32013 },
    { "libh5bshuf.so", 32008 },
  };
  g_auto(GStrv) plugins = NULL;
  g_autofree char *dir = NULL;
  g_autoptr(NczForeignScan) scan = NULL;
  const char *dirs[2];
  guint checked = 0;

  if (!g_test_subprocess ())
    {
      if (DEBIAN_HDF5_PLUGINS[0] == '\0')
        {
          g_test_skip ("Debian's HDF5 filter plugins are not installed");
          return;
        }
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  plugins = debian_plugins ();
  dir = make_dir ();
  for (gsize i = 0; plugins[i] != NULL; i++)
    link_as (dir, plugins[i], NULL);
  dirs[0] = dir;
  dirs[1] = NULL;
  scan = ncz_foreign_scan_new (dirs);

  /* Every library gives a row */
  for (gsize i = 0; plugins[i] != NULL; i++)
    g_assert_nonnull (find_library_row (scan, basename_of (plugins[i]), -1));

  /* The HDF5 filter libraries are all HDF5-only: none has a Codec part */
  for (gsize i = 0; i < G_N_ELEMENTS (hdf5_only); i++)
    {
      const NczForeignRow *row;

      if (!have_debian_plugin (hdf5_only[i].base))
        continue;
      row = expect_library_row (scan, hdf5_only[i].base, NCZ_FOREIGN_HDF5_ONLY,
                                "not usable for NCZarr");
      g_assert_cmpuint (row->filter_id, ==, hdf5_only[i].filter_id);
      g_assert_nonnull (row->hdf5_name);
      g_assert_null (row->codec_library);
      g_assert_null (ncz_foreign_scan_lookup (scan, 0, "bz2"));
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);
  for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan); i++)
    g_assert_cmpint (ncz_foreign_scan_get_row (scan, i)->status, !=, NCZ_FOREIGN_USABLE);

  /* blosc's second copy exports no plugin entry point at all */
  if (have_debian_plugin ("libblosc_filter.so"))
    expect_library_row (scan, "libblosc_filter.so", NCZ_FOREIGN_BROKEN, "exports neither");
  /* the LZF filter is not linked with liblzf: nothing here provides it */
  if (have_debian_plugin ("liblzf_filter.so"))
    {
      expect_library_row (scan, "liblzf_filter.so", NCZ_FOREIGN_BROKEN, "undefined symbol");
      g_assert_null (ncz_foreign_scan_lookup (scan, 32000, NULL));
    }

  assert_row_order (scan);
  remove_dir (dir);
}

/* ---- LZF: Debian's HDF5-only filter + Ncz's codec-only library ---- */

static gboolean
lzf_available (void)
{
  if (LZF_CODEC_DIR[0] == '\0')
    {
      g_test_skip ("the LZF codec-only library is not built");
      return FALSE;
    }
  if (!have_debian_plugin ("liblzf_filter.so"))
    {
      g_test_skip ("hdf5-plugin-lzf is not installed");
      return FALSE;
    }
  return TRUE;
}

static void
test_lzf_pairing (void)
{
  g_autofree char *lzf_dir = NULL;
  g_autofree char *codec_dir = NULL;
  g_autofree char *lzf_filter = NULL;
  g_autofree char *codec_lib = NULL;
  g_autoptr(NczForeignScan) scan = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) params = NULL;
  g_autoptr(GArray) working = NULL;
  g_autoptr(GBytes) input = NULL;
  g_autoptr(GBytes) encoded = NULL;
  g_autoptr(GBytes) decoded = NULL;
  g_autoptr(GBytes) noise = NULL;
  g_autoptr(GBytes) fails = NULL;
  g_autofree char *json = NULL;
  const char * const *hosts;
  const char *dirs[3];
  const NczForeignRow *row;
  gint32 values[1000];
  guint8 random_bytes[512];
  gboolean have_lzf_host = FALSE, have_hdf5_host = FALSE;

  if (!g_test_subprocess ())
    {
      if (!lzf_available ())
        return;
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  lzf_dir = make_dir ();
  codec_dir = make_dir ();
  lzf_filter = debian_plugin_path ("liblzf_filter.so");
  codec_lib = g_build_filename (LZF_CODEC_DIR, "libncz-lzf-codec.so", NULL);
  link_as (lzf_dir, lzf_filter, NULL);
  link_as (codec_dir, codec_lib, NULL);
  dirs[0] = lzf_dir;
  dirs[1] = codec_dir;
  dirs[2] = NULL;
  scan = ncz_foreign_scan_new (dirs);

  row = expect_table_row (scan, 32000, NCZ_FOREIGN_USABLE, "lzf");
  g_assert_cmpstr (basename_of (row->hdf5_library), ==, "liblzf_filter.so");
  g_assert_cmpstr (basename_of (row->codec_library), ==, "libncz-lzf-codec.so");
  g_assert_false (row->codec_is_default);
  g_assert_cmpstr (row->hdf5_name, ==, "lzf");
  g_assert_true (ncz_foreign_scan_lookup (scan, 0, "lzf") == row);
  /* libhdf5 and the liblzf the codec library names were made global */
  hosts = ncz_foreign_scan_get_host_libraries (scan);
  for (gsize i = 0; hosts[i] != NULL; i++)
    {
      have_lzf_host |= strcmp (hosts[i], "liblzf.so.1") == 0;
      have_hdf5_host |= g_str_has_prefix (hosts[i], "libhdf5");
    }
  g_assert_true (have_lzf_host);
  g_assert_true (have_hdf5_host);

  g_assert_true (ncz_foreign_row_params_from_json (row, "{\"id\": \"lzf\"}", &params, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (params->len, ==, 0);
  g_assert_false (ncz_foreign_row_params_from_json (row, "{\"id\": \"zstd\"}", &params, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);
  json = ncz_foreign_row_params_to_json (row, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "\"lzf\""));

  /* Chunks through the real LZF filter */
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = (gint32) (i / 10);
  input = g_bytes_new (values, sizeof values);
  working = ncz_foreign_working_params (32000, NULL, 0, sizeof (gint32), sizeof values);
  encoded = ncz_foreign_row_filter (row, FALSE, (const guint *) working->data, working->len,
                                    input, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (encoded), <, sizeof values / 2);
  decoded = ncz_foreign_row_filter (row, TRUE, (const guint *) working->data, working->len,
                                    encoded, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (decoded, input));
  g_clear_pointer (&decoded, g_bytes_unref);
  /* without the chunk size, LZF grows its buffer until it fits */
  decoded = ncz_foreign_row_filter (row, TRUE, NULL, 0, encoded, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (decoded, input));

  /* Data LZF cannot compress: the HDF5 filter gives up (HDF5 would store
   * the chunk unfiltered; a Zarr chunk cannot say so), an error */
  for (guint i = 0; i < sizeof random_bytes; i++)
    random_bytes[i] = (guint8) g_test_rand_int ();
  noise = g_bytes_new (random_bytes, sizeof random_bytes);
  fails = ncz_foreign_row_filter (row, FALSE, NULL, 0, noise, &error);
  g_assert_null (fails);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "HDF5 filter 32000"));
  g_clear_error (&error);
  /* Corrupt data: a literal run longer than the input */
  g_clear_pointer (&noise, g_bytes_unref);
  noise = g_bytes_new ("\x1f" "a", 2);
  fails = ncz_foreign_row_filter (row, TRUE, (const guint *) working->data, working->len,
                                  noise, &error);
  g_assert_null (fails);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "liblzf_filter.so"));

  remove_dir (lzf_dir);
  remove_dir (codec_dir);
}

/* Without the codec-only library, nothing makes filter 32000 usable */
static void
test_lzf_without_codec (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *lzf_filter = NULL;
  g_autoptr(NczForeignScan) scan = NULL;
  const char *dirs[2];

  if (!g_test_subprocess ())
    {
      if (!lzf_available ())
        return;
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  dir = make_dir ();
  lzf_filter = debian_plugin_path ("liblzf_filter.so");
  link_as (dir, lzf_filter, NULL);
  dirs[0] = dir;
  dirs[1] = NULL;
  scan = ncz_foreign_scan_new (dirs);

  expect_library_row (scan, "liblzf_filter.so", NCZ_FOREIGN_BROKEN, "lzf_");
  g_assert_null (ncz_foreign_scan_lookup (scan, 32000, NULL));
  g_assert_null (ncz_foreign_scan_lookup (scan, 0, "lzf"));
  remove_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/codec-registry/scan/fixtures", test_scan_fixtures);
  g_test_add_func ("/codec-registry/scan/special-files", test_scan_special_files);
  g_test_add_func ("/codec-registry/scan/empty", test_scan_empty);
  g_test_add_func ("/codec-registry/scan/environment", test_scan_environment);
  g_test_add_func ("/codec-registry/scan/ncz-module", test_scan_ncz_module);
  g_test_add_func ("/codec-registry/scan/debian", test_scan_debian);
  g_test_add_func ("/codec-registry/row/roundtrip", test_row_roundtrip);
  g_test_add_func ("/codec-registry/row/errors", test_row_errors);
  g_test_add_func ("/codec-registry/working-params", test_working_params);
  g_test_add_func ("/codec-registry/lzf/pairing", test_lzf_pairing);
  g_test_add_func ("/codec-registry/lzf/without-codec", test_lzf_without_codec);

  return g_test_run ();
}
