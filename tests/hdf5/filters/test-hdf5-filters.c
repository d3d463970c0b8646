/* test-hdf5-filters.c: Ncz's codecs registered with libhdf5 as filters
 *
 * HDF5_PLUGIN_PATH is unset: libhdf5 finds zstd, blosc, bzip2 and lz4
 * only through the backend's registration (or, for ids a library in
 * libhdf5's built-in plugin folder provides, through that library).
 * With --no-hdf5-plugins, libhdf5's plugin loading is turned off before
 * anything else (H5PLset_loading_state (0)), so every codec id comes
 * from Ncz's registration.
 *
 * - /hdf5/filters/lazy: opening and creating a file without those
 *   filters loads no codec module and registers nothing;
 * - /hdf5/filters/ncz-written: variables Ncz wrote with zstd, blosc,
 *   bzip2, lz4 and shuffle+zstd: the writer registered each id libhdf5
 *   lacked (libhdf5 reports it available, with encoder and decoder), the
 *   HDF5 pipelines carry the filters and parameters, libhdf5's H5Dread
 *   decodes them in this process, and Ncz reads them back;
 * - /hdf5/filters/hdf5-written: once Ncz has defined variables with
 *   them, datasets libhdf5 itself creates and writes with those filters
 *   (HDF5's pipeline, set_local included) read back with H5Dread and
 *   through Ncz;
 * - /hdf5/filters/unloadable-module: a plugin whose manifest claims an
 *   HDF5 filter id but whose module cannot be loaded (written by main()
 *   into a folder put first on NCZ_PLUGIN_PATH): a file whose dataset
 *   names the id as an optional filter, opened by Ncz, gets the id
 *   registered without loading anything, and creating a dataset with it
 *   then fails with HDF5's error stack naming the plugin and why.
 * Registration while reading a file (no writing first) is checked by
 * test-filters-interop.py: ncz-dump of the netcdf-c peers' files.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

#define NX 40
#define NY 50
#define CX 10
#define CY 25

typedef struct {
  const char *var;        /* the variable's name */
  const char *module;     /* the Ncz plugin (libncz-codec-<module>.so) */
  guint id;               /* its HDF5 filter id */
  gboolean foreign;       /* libhdf5 found a library of its own for it */
} Codec;

static Codec codecs[] = {
  { "zstd", "zstd", 32015, FALSE },
  { "blosc", "blosc", 32001, FALSE },
  { "bzip2", "bzip2", 307, FALSE },
  { "lz4", "lz4", 32004, FALSE },
};

static gboolean no_plugins;

/* The plugin that cannot be loaded */
#define BROKEN_ID 40124
#define BROKEN_NAME "h5broken"
static char *broken_dir;

static char *
temp_path (const char *name)
{
  g_assert_cmpint (g_mkdir_with_parents (g_get_user_cache_dir (), 0700), ==, 0);
  return g_build_filename (g_get_user_cache_dir (), name, NULL);
}

/* Whether this build has the codec (its module may be disabled). */
static gboolean
have_codec (const Codec *c)
{
  char name[16];

  g_snprintf (name, sizeof name, "%u", c->id);
  return ncz_registry_has_feature (ncz_registry_get_default (), NCZ_FEATURE_HDF5_FILTER, name);
}

static void
fill_data (gint32 *data, guint salt)
{
  for (guint i = 0; i < NX * NY; i++)
    data[i] = (gint32) ((i / 7) * 3 + salt) - 400;
}

static void
close_dataset (NczDataset *ds)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
}

/* Reads variable @name of @path through Ncz and compares it with @expected. */
static void
assert_ncz_values (const char *path, const char *name, guint id, const gint32 *expected)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_autofree gint32 *back = g_new0 (gint32, NX * NY);
  guint64 start[2] = { 0, 0 }, count[2] = { NX, NY };
  g_autoptr(GArray) ids = NULL;
  NczVariable *v;
  gboolean found = FALSE;

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
  g_assert_nonnull (v);
  ids = ncz_variable_get_filter_ids (v);
  for (guint i = 0; i < ids->len; i++)
    found = found || g_array_index (ids, guint, i) == id;
  g_assert_true (found);
  g_assert_true (ncz_variable_read (v, start, 2, count, 2, NULL, 0, back, NX * NY * sizeof (gint32),
                                    NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, NX * NY * sizeof (gint32), expected, NX * NY * sizeof (gint32));
  close_dataset (ds);
}

/* H5Dread of dataset @name in @file equals @expected. */
static void
assert_h5_values (hid_t file, const char *name, const gint32 *expected)
{
  g_autofree gint32 *back = g_new0 (gint32, NX * NY);
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);

  g_assert_cmpint (d, >=, 0);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), >=, 0);
  g_assert_cmpmem (back, NX * NY * sizeof (gint32), expected, NX * NY * sizeof (gint32));
  H5Dclose (d);
}

/* Makes sure the backend is initialized: creates and closes a file. */
static void
init_backend (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("init.nc");
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (ncz_format_get_name (ncz_dataset_get_format (ds)), ==, "hdf5");
  close_dataset (ds);
}

/* The name libhdf5 records for a filter Ncz registered: its module's. */
static char *
ncz_filter_name (const Codec *c)
{
  return g_strdup_printf ("%s (Ncz)", c->module);
}

/* The default registry's plugin @name. */
static NczPluginInfo *
find_plugin (const char *name)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (ncz_registry_get_default ());

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);

      if (g_strcmp0 (ncz_plugin_info_get_name (info), name) == 0)
        return info;   /* owned by the registry */
    }
  return NULL;
}

/* libhdf5 has @c's filter, with its encoder and decoder. */
static void
assert_registered (const Codec *c)
{
  unsigned config = 0;

  g_assert_cmpint (H5Zfilter_avail ((H5Z_filter_t) c->id), >, 0);
  g_assert_cmpint (H5Zget_filter_info ((H5Z_filter_t) c->id, &config), >=, 0);
  g_assert_true ((config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0);
  g_assert_true ((config & H5Z_FILTER_CONFIG_DECODE_ENABLED) != 0);
  if (no_plugins)
    g_assert_false (c->foreign);
  g_test_message ("%s (%u): %s", c->module, c->id,
                  c->foreign ? "libhdf5's own plugin" : "registered by Ncz");
}

/* Opening and creating files without these filters registers nothing
 * and loads no codec module. */
static void
test_lazy (void)
{
  init_backend ();
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    {
      const Codec *c = &codecs[i];
      NczPluginInfo *info;

      if (!have_codec (c))
        {
          g_test_message ("%s (%u): not in this build", c->module, c->id);
          continue;
        }
      info = find_plugin (c->module);
      g_assert_nonnull (info);
      g_assert_false (ncz_plugin_info_is_loaded (info));
      if (!c->foreign)
        {
          g_assert_cmpint (H5Zfilter_avail ((H5Z_filter_t) c->id), ==, 0);
          H5Eclear2 (H5E_DEFAULT);
        }
    }
}

/* Gives @v @c's filter through the public API. */
static void
set_codec (NczVariable *v, const Codec *c)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = FALSE;

  switch (c->id)
    {
    case 32015:
      ok = ncz_variable_set_zstandard (v, 5, &error);
      break;
    case 32001:
      ok = ncz_variable_set_blosc (v, "lz4", 5, 0, 1, &error);
      break;
    case 307:
      ok = ncz_variable_set_bzip2 (v, 9, &error);
      break;
    case 32004:
      ok = ncz_variable_add_filter (v, 32004, NULL, 0, &error);
      break;
    default:
      g_assert_not_reached ();
    }
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* Ncz defines a variable with each codec (no data) in a new file: its
 * writer registers the filters. */
static void
define_through_ncz (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("define.nc");
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x;

  g_assert_no_error (error);
  x = ncz_group_add_dimension (root, "x", 8, FALSE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (have_codec (&codecs[i]))
      {
        NczVariable *v = ncz_group_add_variable (root, codecs[i].var, NCZ_DATA_TYPE_INT, 1, &x,
                                                 &error);

        g_assert_no_error (error);
        set_codec (v, &codecs[i]);
      }
  close_dataset (ds);
}

/* Checks the pipeline of dataset @name: its filters are @ids (n of them),
 * and the name of the last one is Ncz's when Ncz registered it. */
static void
assert_pipeline (hid_t file, const char *name, const Codec *c, const guint *ids, guint n,
                 unsigned *cd, size_t *n_cd)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  hid_t p = H5Dget_create_plist (d);
  char fname[64] = "";
  unsigned flags = 0;

  g_assert_cmpint (H5Pget_nfilters (p), ==, (int) n);
  for (guint i = 0; i < n; i++)
    {
      size_t nc = *n_cd;

      g_assert_cmpint (H5Pget_filter2 (p, i, &flags, &nc, cd, sizeof fname, fname, NULL), ==,
                       (H5Z_filter_t) ids[i]);
      if (i == n - 1)
        *n_cd = nc;
    }
  g_assert_true ((flags & H5Z_FLAG_OPTIONAL) == 0);
  if (!c->foreign)
    {
      g_autofree char *expected = ncz_filter_name (c);

      g_assert_cmpstr (fname, ==, expected);
    }
  H5Pclose (p);
  H5Dclose (d);
}

static void
test_ncz_written (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = temp_path ("ncz-written.nc");
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  g_autofree gint32 *data = g_new (gint32, NX * NY);
  guint64 chunks[2] = { CX, CY };
  guint64 start[2] = { 0, 0 }, count[2] = { NX, NY };
  gboolean wrote[G_N_ELEMENTS (codecs)] = { FALSE };
  gboolean wrote_chain = FALSE;
  hid_t f;

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
  dims[1] = ncz_group_add_dimension (root, "y", NY, FALSE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    {
      const Codec *c = &codecs[i];
      NczVariable *v;

      if (!have_codec (c))
        continue;
      v = ncz_group_add_variable (root, c->var, NCZ_DATA_TYPE_INT, 2, dims, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
      set_codec (v, c);
      fill_data (data, i);
      g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, data,
                                         NX * NY * sizeof (gint32), NULL, &error));
      g_assert_no_error (error);
      wrote[i] = TRUE;
    }
  if (have_codec (&codecs[0]))
    {
      NczVariable *v = ncz_group_add_variable (root, "shuffle_zstd", NCZ_DATA_TYPE_INT, 2, dims,
                                               &error);

      g_assert_no_error (error);
      g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
      g_assert_true (ncz_variable_set_shuffle (v, &error));
      g_assert_true (ncz_variable_set_zstandard (v, 1, &error));
      fill_data (data, 99);
      g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, data,
                                         NX * NY * sizeof (gint32), NULL, &error));
      g_assert_no_error (error);
      wrote_chain = TRUE;
    }
  close_dataset (ds);

  /* the writer registered the filters libhdf5 lacked */
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (wrote[i])
      assert_registered (&codecs[i]);

  /* libhdf5 sees the filters and decodes the data in this process */
  f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    {
      const Codec *c = &codecs[i];
      unsigned cd[16];
      size_t n_cd = G_N_ELEMENTS (cd);

      if (!wrote[i])
        {
          g_test_message ("%s (%u): not in this build, not checked", c->module, c->id);
          continue;
        }
      assert_pipeline (f, c->var, c, &c->id, 1, cd, &n_cd);
      switch (c->id)
        {
        case 32015:
        case 307:
          g_assert_cmpuint (n_cd, ==, 1);
          g_assert_cmpuint (cd[0], ==, c->id == 307 ? 9 : 5);
          break;
        case 32001:
          /* the HDF5 blosc filter's layout, as its set_local makes it:
           * [2, 2, type size, chunk bytes, clevel, shuffle, compressor] */
          g_assert_cmpuint (n_cd, >=, 7);
          g_assert_cmpuint (cd[2], ==, sizeof (gint32));
          g_assert_cmpuint (cd[3], ==, CX * CY * sizeof (gint32));
          g_assert_cmpuint (cd[4], ==, 5);
          g_assert_cmpuint (cd[5], ==, 1);
          g_assert_cmpuint (cd[6], ==, 1);   /* lz4 */
          break;
        case 32004:
          g_assert_cmpuint (n_cd, ==, 0);
          break;
        }
      fill_data (data, i);
      assert_h5_values (f, c->var, data);
    }
  if (wrote_chain)
    {
      const guint ids[2] = { H5Z_FILTER_SHUFFLE, 32015 };
      unsigned cd[16];
      size_t n_cd = G_N_ELEMENTS (cd);

      assert_pipeline (f, "shuffle_zstd", &codecs[0], ids, 2, cd, &n_cd);
      g_assert_cmpuint (n_cd, ==, 1);
      g_assert_cmpuint (cd[0], ==, 1);
      fill_data (data, 99);
      assert_h5_values (f, "shuffle_zstd", data);
    }
  g_assert_cmpint (H5Fclose (f), >=, 0);

  /* and Ncz reads them back */
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (wrote[i])
      {
        fill_data (data, i);
        assert_ncz_values (path, codecs[i].var, codecs[i].id, data);
      }
  if (wrote_chain)
    {
      fill_data (data, 99);
      assert_ncz_values (path, "shuffle_zstd", 32015, data);
    }
}

/* Datasets libhdf5 writes through its own pipeline with Ncz's filters. */
static void
test_hdf5_written (void)
{
  g_autofree char *path = temp_path ("hdf5-written.h5");
  g_autofree gint32 *data = g_new (gint32, NX * NY);
  hsize_t dims[2] = { NX, NY }, chunks[2] = { CX, CY };
  gboolean wrote[G_N_ELEMENTS (codecs)] = { FALSE };
  hid_t f, s;

  define_through_ncz ();
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (have_codec (&codecs[i]))
      assert_registered (&codecs[i]);
  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  s = H5Screate_simple (2, dims, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    {
      const Codec *c = &codecs[i];
      const unsigned level[1] = { 3 };
      const unsigned blosc[7] = { 0, 0, 0, 0, 4, 2, 0 };  /* clevel 4, bit shuffle, blosclz */
      hid_t p, d;

      if (!have_codec (c))
        continue;
      p = H5Pcreate (H5P_DATASET_CREATE);
      g_assert_cmpint (H5Pset_chunk (p, 2, chunks), >=, 0);
      if (c->id == 32001)
        g_assert_cmpint (H5Pset_filter (p, (H5Z_filter_t) c->id, H5Z_FLAG_MANDATORY, 7, blosc), >=, 0);
      else if (c->id == 32004)
        g_assert_cmpint (H5Pset_filter (p, (H5Z_filter_t) c->id, H5Z_FLAG_MANDATORY, 0, NULL), >=, 0);
      else
        g_assert_cmpint (H5Pset_filter (p, (H5Z_filter_t) c->id, H5Z_FLAG_MANDATORY, 1, level), >=, 0);
      d = H5Dcreate2 (f, c->var, H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
      g_assert_cmpint (d, >=, 0);
      fill_data (data, 10 + i);
      g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
      g_assert_cmpint (H5Dclose (d), >=, 0);
      H5Pclose (p);
      wrote[i] = TRUE;
    }
  H5Sclose (s);
  g_assert_cmpint (H5Fclose (f), >=, 0);

  f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (wrote[i])
      {
        unsigned cd[16];
        size_t n_cd = G_N_ELEMENTS (cd);

        assert_pipeline (f, codecs[i].var, &codecs[i], &codecs[i].id, 1, cd, &n_cd);
        if (codecs[i].id == 32001)
          {
            /* set_local (the module's, through Ncz's stand-in, or the
             * foreign library's) filled in the type size and chunk bytes */
            g_assert_cmpuint (n_cd, >=, 7);
            g_assert_cmpuint (cd[2], ==, sizeof (gint32));
            g_assert_cmpuint (cd[3], ==, CX * CY * sizeof (gint32));
            g_assert_cmpuint (cd[4], ==, 4);
            g_assert_cmpuint (cd[5], ==, 2);
          }
        fill_data (data, 10 + i);
        assert_h5_values (f, codecs[i].var, data);
      }
  g_assert_cmpint (H5Fclose (f), >=, 0);

  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    if (wrote[i])
      {
        fill_data (data, 10 + i);
        assert_ncz_values (path, codecs[i].var, codecs[i].id, data);
      }
}

static herr_t
collect_error (unsigned n, const H5E_error2_t *e, void *data)
{
  if (e->desc != NULL)
    g_string_append_printf (data, "%s\n", e->desc);
  return 0;
}

/* The descriptions on HDF5's error stack, which is cleared. */
static char *
take_error_stack (void)
{
  GString *text = g_string_new (NULL);

  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, text);
  H5Eclear2 (H5E_DEFAULT);
  return g_string_free (text, FALSE);
}

static void
test_unloadable_module (void)
{
  g_autofree char *path = temp_path ("unloadable.h5");
  hsize_t dims[1] = { 100 }, chunks[1] = { 10 };
  hid_t f, s, p;

  g_autoptr(GError) error = NULL;
  g_autofree char *stored = temp_path ("optional.h5");
  NczDataset *ds;
  NczPluginInfo *info = find_plugin (BROKEN_NAME);

  g_assert_nonnull (info);
  init_backend ();
  g_assert_cmpint (H5Zfilter_avail (BROKEN_ID), ==, 0);
  H5Eclear2 (H5E_DEFAULT);

  /* a file naming the filter as optional (libhdf5 skips it), written
   * before anything registered it */
  f = H5Fcreate (stored, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  s = H5Screate_simple (1, dims, NULL);
  p = H5Pcreate (H5P_DATASET_CREATE);
  g_assert_cmpint (H5Pset_chunk (p, 1, chunks), >=, 0);
  g_assert_cmpint (H5Pset_filter (p, BROKEN_ID, H5Z_FLAG_OPTIONAL, 0, NULL), >=, 0);
  g_assert_cmpint (H5Dclose (H5Dcreate2 (f, "optional", H5T_STD_I32LE, s, H5P_DEFAULT, p,
                                         H5P_DEFAULT)), >=, 0);
  H5Pclose (p);
  H5Sclose (s);
  g_assert_cmpint (H5Fclose (f), >=, 0);

  /* Ncz's reader names the id: registered, nothing loaded */
  ds = ncz_dataset_open (stored, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  close_dataset (ds);
  g_assert_cmpint (H5Zfilter_avail (BROKEN_ID), >, 0);

  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  s = H5Screate_simple (1, dims, NULL);
  p = H5Pcreate (H5P_DATASET_CREATE);
  g_assert_cmpint (H5Pset_chunk (p, 1, chunks), >=, 0);
  g_assert_cmpint (H5Pset_filter (p, BROKEN_ID, H5Z_FLAG_MANDATORY, 0, NULL), >=, 0);
  /* twice: the failure is remembered, not retried */
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *stack = NULL;
      hid_t d = H5Dcreate2 (f, "broken", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);

      g_assert_cmpint (d, <, 0);
      stack = take_error_stack ();
      g_test_message ("H5Dcreate2: %s", stack);
      g_assert_nonnull (strstr (stack, "HDF5 filter 40124: Ncz plugin '" BROKEN_NAME "'"));
      g_assert_nonnull (strstr (stack, "cannot be loaded"));
    }
  H5Pclose (p);
  H5Sclose (s);
  g_assert_cmpint (H5Fclose (f), >=, 0);
}

/* Writes the manifest of a plugin claiming HDF5 filter BROKEN_ID beside
 * a module file that is not a shared object, in a new folder put first
 * on NCZ_PLUGIN_PATH. */
static void
add_broken_plugin (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *manifest_path = NULL;
  g_autofree char *module_path = NULL;
  g_autofree char *search = NULL;
  const char *old = g_getenv ("NCZ_PLUGIN_PATH");

  broken_dir = g_dir_make_tmp ("ncz-hdf5-filters-XXXXXX", &error);
  g_assert_no_error (error);
  manifest = g_strdup_printf ("[Plugin]\n"
                              "Module=libncz-codec-" BROKEN_NAME ".so\n"
                              "Name=" BROKEN_NAME "\n"
                              "Abi=%u\n"
                              "Version=1.0.0\n"
                              "License=BSD-3-Clause\n"
                              "Description=a module that cannot be loaded\n"
                              "Provides=codec:" BROKEN_NAME ";hdf5-filter:%u\n",
                              (guint) NCZ_PLUGIN_ABI, (guint) BROKEN_ID);
  manifest_path = g_build_filename (broken_dir, BROKEN_NAME ".plugin", NULL);
  module_path = g_build_filename (broken_dir, "libncz-codec-" BROKEN_NAME ".so", NULL);
  g_assert_true (g_file_set_contents (manifest_path, manifest, -1, &error));
  g_assert_true (g_file_set_contents (module_path, "not a shared object\n", -1, &error));
  g_assert_no_error (error);
  search = old != NULL && *old != '\0' ? g_strconcat (broken_dir, ":", old, NULL)
                                       : g_strdup (broken_dir);
  g_setenv ("NCZ_PLUGIN_PATH", search, TRUE);
}

static void
remove_broken_plugin (void)
{
  g_autofree char *manifest_path = g_build_filename (broken_dir, BROKEN_NAME ".plugin", NULL);
  g_autofree char *module_path = g_build_filename (broken_dir, "libncz-codec-" BROKEN_NAME ".so",
                                                   NULL);

  g_unlink (manifest_path);
  g_unlink (module_path);
  g_rmdir (broken_dir);
  g_clear_pointer (&broken_dir, g_free);
}

int
main (int argc, char *argv[])
{
  int status;
  int n = 1;

  /* our own option, before GTest sees the arguments */
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--no-hdf5-plugins") == 0)
        no_plugins = TRUE;
      else
        argv[n++] = argv[i];
    }
  argc = n;
  argv[argc] = NULL;

  /* libhdf5 reads it when it initializes, at the first call below */
  g_unsetenv ("HDF5_PLUGIN_PATH");
  /* the default registry reads it when it is made, below */
  add_broken_plugin ();
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  if (no_plugins)
    g_assert_cmpint (H5PLset_loading_state (0), >=, 0);
  /* Which ids libhdf5 finds on its own (its built-in plugin folder),
   * asked as the backend asks, before the backend is initialized. */
  for (guint i = 0; i < G_N_ELEMENTS (codecs); i++)
    {
      codecs[i].foreign = H5Zfilter_avail ((H5Z_filter_t) codecs[i].id) > 0;
      H5Eclear2 (H5E_DEFAULT);
    }

  g_test_add_func ("/hdf5/filters/lazy", test_lazy);
  g_test_add_func ("/hdf5/filters/ncz-written", test_ncz_written);
  g_test_add_func ("/hdf5/filters/hdf5-written", test_hdf5_written);
  g_test_add_func ("/hdf5/filters/unloadable-module", test_unloadable_module);
  status = g_test_run ();
  remove_broken_plugin ();
  return status;
}
