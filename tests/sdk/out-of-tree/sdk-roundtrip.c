/* sdk-roundtrip.c: a program built against the installed ncz-1.0.pc that
 * writes and reads a dataset through the out-of-tree store module
 * (sdkdir) with the out-of-tree codec module (sdkxor), both found
 * through NCZ_PLUGIN_PATH by their manifests.
 *
 * Usage: sdk-roundtrip DIRECTORY MODULE_DIR
 * Prints one line per check; exits 1 at the first that fails.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 10
#define CHUNK 4
#define KEY 90

static void
check (gboolean good, const char *what, const GError *error)
{
  if (good)
    {
      printf ("ok: %s\n", what);
      return;
    }
  printf ("FAILED: %s%s%s\n", what, error ? ": " : "", error ? error->message : "");
  exit (1);
}

/* The plugin called @name: loaded, from a file in @module_dir. */
static void
check_plugin (NczRegistry *registry, const char *name, const char *module_dir)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  g_autofree char *what = NULL;

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      g_autofree char *dir = NULL;

      if (strcmp (ncz_plugin_info_get_name (info), name) != 0)
        continue;
      dir = g_path_get_dirname (ncz_plugin_info_get_filename (info));
      what = g_strdup_printf ("plugin %s is loaded from %s (%s)", name,
                              ncz_plugin_info_get_filename (info),
                              ncz_plugin_info_get_manifest_path (info));
      check (ncz_plugin_info_is_loaded (info) && strcmp (dir, module_dir) == 0, what,
             ncz_plugin_info_get_error (info));
      return;
    }
  what = g_strdup_printf ("the registry lists plugin %s", name);
  check (FALSE, what, NULL);
}

static NczStore *
open_store (GType type, NczUrl *url, guint flags, GError **error)
{
  return g_initable_new (type, NULL, error, "url", url, "flags", flags, NULL);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *url_text = NULL;
  g_autofree char *chunk_path = NULL;
  g_autofree char *zarray_path = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *zarray = NULL;
  g_autoptr(NczUrl) url = NULL;
  g_autoptr(NczStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GArray) ids = NULL;
  NczRegistry *registry;
  NczDimension *dim;
  NczVariable *var;
  GType store_type;
  gint32 values[N], back[N];
  guint8 expected[CHUNK * 4];
  guint64 start = 0, count = N;
  gsize raw_len = 0;

  if (argc != 3)
    {
      fprintf (stderr, "usage: %s DIRECTORY MODULE_DIR\n", argv[0]);
      return 2;
    }
  for (int i = 0; i < N; i++)
    values[i] = i * 1000 + 7;

  registry = ncz_registry_get_default ();
  store_type = ncz_registry_lookup_store (registry, "sdkdir", &error);
  check (store_type != G_TYPE_INVALID && g_type_is_a (store_type, NCZ_TYPE_STORE),
         "the registry finds store sdkdir", error);
  check_plugin (registry, "sdkdir", argv[2]);

  data_dir = g_build_filename (argv[1], "data.ncz", NULL);
  url_text = g_strdup_printf ("file://%s#mode=nczarr,file", data_dir);
  url = ncz_url_parse (url_text, &error);
  check (url != NULL, "the URL parses", error);

  /* write */
  store = open_store (store_type, url, NCZ_STORE_WRITE | NCZ_STORE_CREATE, &error);
  check (store != NULL, "an sdkdir store is created", error);
  ds = ncz_dataset_create_in_store (store, url, NULL, &error);
  check (ds != NULL, "a dataset is created in the sdkdir store", error);
  dim = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", N, FALSE, &error);
  check (dim != NULL, "dimension x is defined", error);
  var = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1,
                                &dim, &error);
  check (var != NULL, "variable v is defined", error);
  {
    guint64 chunk = CHUNK;
    check (ncz_variable_set_chunk_sizes (var, &chunk, 1, &error), "v has chunks of 4", error);
  }
  check (!ncz_variable_add_filter_json (var, "{\"id\": \"sdkxor\", \"key\": 256}", &error) &&
         g_error_matches (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS),
         "the sdkxor codec refuses key 256", NULL);
  printf ("   (%s)\n", error->message);
  g_clear_error (&error);
  check (ncz_variable_add_filter_json (var, "{\"id\": \"sdkxor\", \"key\": 90}", &error),
         "the sdkxor codec is added from its JSON", error);
  check_plugin (registry, "sdkxor", argv[2]);
  check (ncz_variable_write (var, 1, &start, &count, NULL, values, sizeof values, NULL, &error),
         "v is written", error);
  check (ncz_dataset_close (ds, NULL, &error), "the dataset is closed", error);
  g_clear_object (&ds);
  g_clear_object (&store);

  /* what the modules wrote, read without Ncz */
  zarray_path = g_build_filename (data_dir, "v", ".zarray", NULL);
  check (g_file_get_contents (zarray_path, &zarray, NULL, &error) &&
         strstr (zarray, "\"sdkxor\"") != NULL && strstr (zarray, "\"key\"") != NULL,
         "v/.zarray, a file the sdkdir store wrote, names the sdkxor codec and its key", error);
  chunk_path = g_build_filename (data_dir, "v", "0", NULL);
  check (g_file_get_contents (chunk_path, &raw, &raw_len, &error),
         "chunk v/0 is a file the sdkdir store wrote", error);
  for (int i = 0; i < CHUNK; i++)
    {
      guint32 le = GUINT32_TO_LE ((guint32) values[i]);
      for (int b = 0; b < 4; b++)
        expected[sizeof expected - 1 - (i * 4 + b)] = (guint8) (((guint8 *) &le)[b] ^ KEY);
    }
  check (raw_len == sizeof expected && memcmp (raw, expected, sizeof expected) == 0,
         "chunk v/0 holds the values reversed and XORed with 90 (sdkxor encoded it)", NULL);

  /* read back */
  store = open_store (store_type, url, NCZ_STORE_READ, &error);
  check (store != NULL, "the sdkdir store is opened read-only", error);
  ds = ncz_dataset_open_store (store, url, NCZ_OPEN_READ, NULL, &error);
  check (ds != NULL, "the dataset is opened from the sdkdir store", error);
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  check (var != NULL, "variable v is there", NULL);
  ids = ncz_variable_get_filter_ids (var);
  check (ids != NULL && ids->len == 1 && g_array_index (ids, guint, 0) == 300,
         "v's filter is HDF5 filter 300 (sdkxor)", NULL);
  memset (back, 0, sizeof back);
  check (ncz_variable_read (var, 1, &start, &count, NULL, back, sizeof back, NULL, &error),
         "v is read", error);
  check (memcmp (back, values, sizeof values) == 0, "the values read are those written", NULL);
  check (ncz_dataset_close (ds, NULL, &error), "the dataset is closed", error);
  return 0;
}
