/* ncz-bench.c: the benchmark cases with Ncz
 *
 * Usage: ncz-bench data --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
 *                       [--codec=none|zstd|blosc-lz4|zlib]
 *        ncz-bench hdf5 --dir=DIR [--shape=...] [--chunks=...]
 *                       [--form=chunked|contiguous|deflate|shuffle-deflate]
 *        ncz-bench meta --dir=DIR [--meta=20,20,10] [--consolidated=true|false]
 *                       [--open-only]
 *
 * The same cases as nc-bench.c (netcdf-c) and zarr-bench.py: the data
 * case writes a 3-D float variable uncompressed in one call to
 * file://DIR/ncz-data.zarr#mode=nczarr,file, closes, reopens and reads it
 * whole; with --codec, the values of the codec cases (bench_smooth_fill)
 * go through zstd level 1 (ncz_variable_set_zstandard), blosc lz4 clevel
 * 5 with byte shuffle (ncz_variable_set_blosc) or zlib level 1
 * (ncz_variable_set_deflate), the same codec JSON zarr-bench.py writes
 * with numcodecs; the meta case creates G groups of V variables with A attributes
 * each, closes, then opens and lists everything including attribute
 * values. With --consolidated, the meta case is written in pure Zarr
 * (file://DIR/ncz-cmeta.zarr#mode=zarr,file, which writes consolidated
 * metadata, .zmetadata, by default: checked) and opened with
 * consolidated=true (the default: .zmetadata read in place of listing
 * groups and reading each .zgroup and .zattrs) or consolidated=false
 * (every object read). --open-only skips creating: it opens and lists
 * what an earlier run left in DIR (to count the store operations of an
 * open alone, e.g. under strace). The hdf5 case is the data case in a
 * netCDF-4 file, DIR/ncz-data.nc (a local path ending in .nc, no mode:
 * Ncz's HDF5 backend), in one of the forms of --form: chunked (the data
 * case's values and chunks, uncompressed), contiguous (the same values,
 * no chunks), deflate (bench_smooth_fill's values, the data case's
 * chunks, deflate level 1) or shuffle-deflate (the same with the shuffle
 * filter before deflate), the filters set with ncz_variable_set_deflate.
 * The hdf5 module (and libhdf5 with it) is loaded before the timed part,
 * as nc-bench is linked with libhdf5; "preload_s" is that load.
 * Prints one JSON line with the times and the peak RSS.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include "bench-common.h"

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "ncz-bench: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static gboolean
set_codec (NczVariable *var, const char *codec, GError **error)
{
  if (strcmp (codec, "none") == 0)
    return TRUE;
  if (strcmp (codec, "zstd") == 0)
    return ncz_variable_set_zstandard (var, 1, error);
  if (strcmp (codec, "blosc-lz4") == 0)
    return ncz_variable_set_blosc (var, "lz4", 5, 0, 1, error);
  if (strcmp (codec, "zlib") == 0)
    return ncz_variable_set_deflate (var, FALSE, TRUE, 1, error);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "unknown codec '%s' (none, zstd, blosc-lz4, zlib)", codec);
  return FALSE;
}

/* Bytes of the chunk objects below @path: every file whose name does
 * not start with '.' (the metadata objects do). */
static guint64
stored_bytes (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint64 total = 0;

  if (dir == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        total += stored_bytes (child);
      else if (name[0] != '.' && g_stat (child, &st) == 0)
        total += (guint64) st.st_size;
      g_free (child);
    }
  g_dir_close (dir);
  return total;
}

/* The forms of the hdf5 case: how the variable is stored. */
static gboolean
set_hdf5_form (NczVariable *var, const char *form, const guint64 *csize, GError **error)
{
  if (strcmp (form, "contiguous") == 0)
    return ncz_variable_set_contiguous (var, TRUE, error);
  if (!ncz_variable_set_chunk_sizes (var, csize, 3, error))
    return FALSE;
  if (strcmp (form, "chunked") == 0)
    return TRUE;
  if (strcmp (form, "deflate") == 0)
    return ncz_variable_set_deflate (var, FALSE, TRUE, 1, error);
  if (strcmp (form, "shuffle-deflate") == 0)
    return ncz_variable_set_deflate (var, TRUE, TRUE, 1, error);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "unknown form '%s' (chunked, contiguous, deflate, shuffle-deflate)", form);
  return FALSE;
}

/* Loads the module that provides format @name (and the libraries it is
 * linked with) now, outside the timed part: nc-bench has libhdf5 mapped
 * before main(), Ncz would load it with the module inside its first
 * create. Returns the seconds it took (finding the module included). */
static double
preload_format (const char *name)
{
  double t0 = bench_now ();
  NczRegistry *registry = ncz_registry_get_default ();
  GPtrArray *plugins = ncz_registry_list_plugins (registry);
  char *feature = g_strdup_printf ("format:%s", name);
  gboolean found = FALSE;

  for (guint i = 0; i < plugins->len && !found; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      const char * const *provides = ncz_plugin_info_get_provides (info);
      GError *error = NULL;

      if (provides == NULL || !g_strv_contains (provides, feature))
        continue;
      if (!ncz_registry_load_plugin (registry, info, &error))
        die (feature, error);
      found = TRUE;
    }
  if (!found)
    die (feature, NULL);
  g_ptr_array_unref (plugins);
  g_free (feature);
  return bench_now () - t0;
}

/* The data case (@hdf5 FALSE: NCZarr in a directory, --codec) and the
 * hdf5 case (@hdf5 TRUE: a netCDF-4 file, --form). */
/* --warm=yes: a one-value dataset is created and closed in DIR/warm.zarr
 * before the timed part, so that the store and format modules are loaded
 * when timing starts (as py-bench.py --warm=yes does, whose first call
 * also resolves its bindings). */
static void
warm_up (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "warm.zarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  GError *error = NULL;
  NczDataset *ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dim;

  if (ds == NULL)
    die (url, error);
  dim = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", 1, FALSE, &error);
  if (dim == NULL ||
      ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_FLOAT,
                              1, &dim, &error) == NULL ||
      !ncz_dataset_close (ds, NULL, &error))
    die (url, error);
  g_object_unref (ds);
}

static int
run_data (const char *dir, int argc, char **argv, gboolean hdf5)
{
  static const char *const names[3] = { "z", "y", "x" };
  GError *error = NULL;
  size_t shape[3], chunks[3], total = 1;
  guint64 start[3] = { 0, 0, 0 }, count[3], csize[3];
  NczDimension *dims[3];
  NczDataset *ds;
  NczGroup *root;
  NczVariable *var;
  float *data, *expected = NULL;
  double t0, t_write, t_read, t_preload = 0.0;
  const char *codec = bench_arg (argc, argv, "--codec", "none");
  const char *form = bench_arg (argc, argv, "--form", "chunked");
  gboolean smooth;
  char *url, *path;
  guint64 stored;

  if (bench_parse_sizes (bench_arg (argc, argv, "--shape", "128,512,512"), shape, 3) != 3 ||
      bench_parse_sizes (bench_arg (argc, argv, "--chunks", "32,128,128"), chunks, 3) != 3)
    return 2;
  for (int i = 0; i < 3; i++)
    {
      total *= shape[i];
      count[i] = shape[i];
      csize[i] = chunks[i];
    }
  /* the compressed forms take the codec cases' values */
  smooth = hdf5 ? strcmp (form, "chunked") != 0 && strcmp (form, "contiguous") != 0
                : strcmp (codec, "none") != 0;
  data = g_malloc (total * sizeof (float));
  if (!smooth)
    for (size_t i = 0; i < total; i++)
      data[i] = bench_value (i);
  else
    {
      bench_smooth_fill (data, shape);
      expected = g_memdup2 (data, total * sizeof (float));
    }
  if (hdf5)
    {
      /* a local path ending in .nc, without a mode: a netCDF-4 file */
      path = g_build_filename (dir, "ncz-data.nc", NULL);
      url = g_strdup (path);
      t_preload = preload_format ("hdf5");
    }
  else
    {
      path = g_build_filename (dir, "ncz-data.zarr", NULL);
      url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
    }

  if (!hdf5 && strcmp (bench_arg (argc, argv, "--warm", "no"), "yes") == 0)
    warm_up (dir);

  t0 = bench_now ();
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  root = ncz_dataset_get_root_group (ds);
  for (int i = 0; i < 3; i++)
    if ((dims[i] = ncz_group_add_dimension (root, names[i], shape[i], FALSE, &error)) == NULL)
      die (names[i], error);
  var = ncz_group_add_variable (root, "data", NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  if (var == NULL)
    die ("data", error);
  if (hdf5)
    {
      if (!set_hdf5_form (var, form, csize, &error))
        die (form, error);
    }
  else
    {
      if (!ncz_variable_set_chunk_sizes (var, csize, 3, &error))
        die ("data", error);
      if (!set_codec (var, codec, &error))
        die (codec, error);
    }
  if (!ncz_variable_write (var, start, 3, count, 3, NULL, 0, data, total * sizeof (float),
                           NULL, &error))
    die ("write", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_write = bench_now () - t0;
  if (hdf5)
    {
      GStatBuf st;

      /* the whole file: chunks and metadata */
      stored = g_stat (path, &st) == 0 ? (guint64) st.st_size : 0;
    }
  else
    stored = stored_bytes (path);

  memset (data, 0, total * sizeof (float));
  t0 = bench_now ();
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (url, error);
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "data");
  if (var == NULL)
    die ("no variable 'data'", NULL);
  if (!ncz_variable_read (var, start, 3, count, 3, NULL, 0, data, total * sizeof (float),
                          NULL, &error))
    die ("read", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_read = bench_now () - t0;

  if (expected != NULL)
    {
      if (memcmp (data, expected, total * sizeof (float)) != 0)
        {
          fprintf (stderr, "ncz-bench: read back different values\n");
          return 1;
        }
    }
  else
    for (size_t i = 0; i < total; i += 997)
      if (data[i] != bench_value (i))
        {
          fprintf (stderr, "ncz-bench: wrong value at %zu\n", i);
          return 1;
        }
  if (hdf5)
    printf ("{\"tool\": \"ncz\", \"case\": \"hdf5\", \"form\": \"%s\", \"bytes\": %zu, "
            "\"stored_bytes\": %" G_GUINT64_FORMAT ", \"write_s\": %.6f, "
            "\"read_s\": %.6f, \"preload_s\": %.6f, \"peak_rss_kib\": %ld}\n",
            form, total * sizeof (float), stored, t_write, t_read, t_preload,
            bench_peak_rss_kib ());
  else
    printf ("{\"tool\": \"ncz\", \"case\": \"data\", \"codec\": \"%s\", \"bytes\": %zu, "
            "\"stored_bytes\": %" G_GUINT64_FORMAT ", \"write_s\": %.6f, "
            "\"read_s\": %.6f, \"peak_rss_kib\": %ld}\n",
            codec, total * sizeof (float), stored, t_write, t_read, bench_peak_rss_kib ());
  g_free (data);
  g_free (expected);
  g_free (url);
  g_free (path);
  return 0;
}

static int
run_meta (const char *dir, int argc, char **argv)
{
  GError *error = NULL;
  size_t m[3];
  char name[64];
  char *url;
  NczDataset *ds;
  NczGroup *root;
  NczDimension *dim;
  double t0, t_create, t_open;
  long n_groups = 0, n_vars = 0, n_attrs = 0;

  const char *consolidated = bench_arg (argc, argv, "--consolidated", NULL);
  gboolean open_only = FALSE;
  char *open_url, *path;

  for (int i = 2; i < argc; i++)
    if (strcmp (argv[i], "--open-only") == 0)
      open_only = TRUE;
  if (bench_parse_sizes (bench_arg (argc, argv, "--meta", "20,20,10"), m, 3) != 3)
    return 2;
  if (consolidated != NULL && strcmp (consolidated, "true") != 0 &&
      strcmp (consolidated, "false") != 0)
    {
      fprintf (stderr, "ncz-bench: --consolidated must be true or false\n");
      return 2;
    }
  path = g_build_filename (dir, consolidated ? "ncz-cmeta.zarr" : "ncz-meta.zarr", NULL);
  /* Pure Zarr writes .zmetadata by default: the URL does not ask for it. */
  url = g_strdup_printf ("file://%s#mode=%s,file", path, consolidated ? "zarr" : "nczarr");
  open_url = consolidated && strcmp (consolidated, "false") == 0
               ? g_strdup_printf ("%s&consolidated=false", url) : g_strdup (url);

  if (open_only)
    {
      t_create = 0.0;
      goto open;
    }
  t0 = bench_now ();
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "n", 10, FALSE, &error);
  if (dim == NULL)
    die ("n", error);
  for (size_t g = 0; g < m[0]; g++)
    {
      NczGroup *grp;
      g_snprintf (name, sizeof name, "group%zu", g);
      if ((grp = ncz_group_add_group (root, name, &error)) == NULL)
        die (name, error);
      for (size_t v = 0; v < m[1]; v++)
        {
          NczVariable *var;
          g_snprintf (name, sizeof name, "var%zu", v);
          if ((var = ncz_group_add_variable (grp, name, NCZ_DATA_TYPE_DOUBLE, 1, &dim, &error)) == NULL)
            die (name, error);
          for (size_t a = 0; a < m[2]; a++)
            {
              NczAttribute *attr;
              double value = (double) (g * 1000 + v * 10 + a);
              g_snprintf (name, sizeof name, "attr%zu", a);
              if (a % 2)
                attr = ncz_attribute_new_text (name, "some text.", -1);
              else if ((attr = ncz_attribute_new_values (name, NCZ_DATA_TYPE_DOUBLE, &value, 1,
                                                         &error)) == NULL)
                die (name, error);
              if (!ncz_variable_set_attribute (var, attr, &error))
                die (name, error);
              g_object_unref (attr);
            }
        }
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_create = bench_now () - t0;
  if (consolidated != NULL)
    {
      char *zmetadata = g_build_filename (path, ".zmetadata", NULL);
      if (!g_file_test (zmetadata, G_FILE_TEST_IS_REGULAR))
        {
          fprintf (stderr, "ncz-bench: %s wrote no .zmetadata\n", url);
          return 1;
        }
      g_free (zmetadata);
    }

open:
  t0 = bench_now ();
  ds = ncz_dataset_open (open_url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (open_url, error);
  {
    GPtrArray *groups = ncz_group_get_groups (ncz_dataset_get_root_group (ds));
    for (guint g = 0; g < groups->len; g++)
      {
        GPtrArray *vars = ncz_group_get_variables (g_ptr_array_index (groups, g));
        n_groups++;
        for (guint v = 0; v < vars->len; v++)
          {
            NczVariable *var = g_ptr_array_index (vars, v);
            GPtrArray *attrs = ncz_variable_get_attributes (var);
            (void) ncz_variable_get_value_type (var);
            n_vars++;
            for (guint a = 0; a < attrs->len; a++)
              {
                NczAttribute *attr = g_ptr_array_index (attrs, a);
                gsize n = 0;
                (void) ncz_attribute_get_name (attr);
                (void) ncz_attribute_peek_values (attr, &n);
                n_attrs++;
              }
            g_ptr_array_unref (attrs);
          }
        g_ptr_array_unref (vars);
      }
    g_ptr_array_unref (groups);
  }
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_open = bench_now () - t0;

  printf ("{\"tool\": \"ncz\", \"case\": \"%s\", %s\"groups\": %ld, \"variables\": %ld, "
          "\"attributes\": %ld, \"create_s\": %.6f, \"open_s\": %.6f, \"peak_rss_kib\": %ld}\n",
          consolidated ? "meta-consolidated" : "meta",
          consolidated == NULL ? ""
            : strcmp (consolidated, "true") == 0 ? "\"consolidated\": true, "
                                                 : "\"consolidated\": false, ",
          n_groups, n_vars, n_attrs, t_create, t_open, bench_peak_rss_kib ());
  g_free (url);
  g_free (open_url);
  g_free (path);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *dir = bench_arg (argc, argv, "--dir", NULL);
  if (argc < 2 || dir == NULL)
    {
      fprintf (stderr, "usage: ncz-bench {data|hdf5|meta} --dir=DIR [options]\n");
      return 2;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      fprintf (stderr, "ncz-bench: cannot create %s\n", dir);
      return 1;
    }
  if (strcmp (argv[1], "data") == 0)
    return run_data (dir, argc, argv, FALSE);
  if (strcmp (argv[1], "hdf5") == 0)
    return run_data (dir, argc, argv, TRUE);
  if (strcmp (argv[1], "meta") == 0)
    return run_meta (dir, argc, argv);
  fprintf (stderr, "ncz-bench: unknown case %s\n", argv[1]);
  return 2;
}
