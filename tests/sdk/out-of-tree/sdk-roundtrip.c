/* sdk-roundtrip.c: a program built against the installed ncz-1.0.pc that
 * writes and reads a dataset through the out-of-tree store module
 * (sdkdir) with the out-of-tree codec module (sdkxor), both found
 * through NCZ_PLUGIN_PATH by their manifests. Besides the round trip it
 * checks the codec's json-glib configuration and kind through the public
 * NczCodec calls, the store's "url" and "flags" properties and the
 * interface defaults the store does not implement itself (ranged reads,
 * paged listing, an asynchronous read), and the format-first open path:
 * a URL that names no format is opened from the store by its marker
 * keys, and an empty store is refused saying what was looked for.
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
open_store (GType type, NczUrl *url, NczStoreFlags flags, GError **error)
{
  return g_initable_new (type, NULL, error, "url", url, "flags", flags, NULL);
}

/* The codec module through the public NczCodec calls: its kind, its
 * configuration as a json-glib object both ways, a refused key. */
static void
check_codec (NczRegistry *registry)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = ncz_registry_lookup_codec (registry, "sdkxor", &error);
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(JsonObject) back = NULL;
  g_autoptr(GArray) params = NULL;
  guint key = KEY;

  check (codec != NULL && ncz_codec_get_filter_id (codec) == 300,
         "the registry finds codec sdkxor (HDF5 filter 300)", error);
  check (ncz_codec_get_kind (codec) == NCZ_CODEC_KIND_BYTES_TO_BYTES,
         "sdkxor declares itself a bytes to bytes codec", NULL);

  json_object_set_string_member (config, "id", "sdkxor");
  json_object_set_int_member (config, "key", KEY);
  check (ncz_codec_params_from_json (codec, config, &params, &error) && params->len == 1 &&
         g_array_index (params, guint, 0) == KEY,
         "sdkxor reads {\"id\": \"sdkxor\", \"key\": 90} as a JsonObject: parameters [90]",
         error);

  back = ncz_codec_params_to_json (codec, &key, 1, &error);
  check (back != NULL && g_strcmp0 (json_object_get_string_member_with_default (back, "id", NULL),
                                    "sdkxor") == 0 &&
         json_object_get_int_member_with_default (back, "key", -1) == KEY &&
         json_object_get_size (back) == 2,
         "sdkxor writes parameters [90] as the JsonObject {\"id\": \"sdkxor\", \"key\": 90}",
         error);

  g_clear_pointer (&params, g_array_unref);
  json_object_set_string_member (config, "key", "90");
  check (!ncz_codec_params_from_json (codec, config, &params, &error) &&
         g_error_matches (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS) &&
         strstr (error->message, "'key'") != NULL,
         "sdkxor refuses a key that is a string, naming 'key'", NULL);
  printf ("   (%s)\n", error->message);
}

/* The store's properties, and the interface's defaults on it: a ranged
 * read, a paged listing, an asynchronous read. @raw is chunk v/0 as read
 * from the disk. */
static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static void
check_store (NczStore *store, NczUrl *url, const guint8 *raw, gsize raw_len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) got_url = NULL;
  NczStoreFlags got_flags = NCZ_STORE_WRITE;
  NczStoreRange ranges[2] = { { 1, 3 }, { raw_len - 4, -1 } };
  g_autoptr(GPtrArray) pieces = NULL;
  g_autoptr(GPtrArray) paged = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) all = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GBytes) zarray = NULL;
  guint pages = 0;
  gboolean same;

  g_object_get (store, "url", &got_url, "flags", &got_flags, NULL);
  check (got_url == url && ncz_store_get_url (store) == url,
         "the store's \"url\" property is the URL it was made with", NULL);
  check (got_flags == NCZ_STORE_READ && ncz_store_get_flags (store) == NCZ_STORE_READ,
         "the store's \"flags\" property is NCZ_STORE_READ", NULL);

  pieces = ncz_store_read_ranges (store, "v/0", ranges, G_N_ELEMENTS (ranges), NULL, &error);
  check (pieces != NULL && pieces->len == 2, "two byte ranges of v/0 are read", error);
  {
    GBytes *a = g_ptr_array_index (pieces, 0), *b = g_ptr_array_index (pieces, 1);
    gsize na = 0, nb = 0;
    const guint8 *da = g_bytes_get_data (a, &na), *db = g_bytes_get_data (b, &nb);

    check (na == 3 && memcmp (da, raw + 1, 3) == 0 && nb == 4 &&
           memcmp (db, raw + raw_len - 4, 4) == 0,
           "the ranges hold bytes 1-3 and the last 4 of v/0", NULL);
  }

  all = ncz_store_list (store, "v", NULL, &error);
  check (all != NULL && g_strv_length (all) >= 4, "v lists .zarray and its chunks", error);
  do
    {
      g_autofree char *next = NULL;
      g_auto(GStrv) page = ncz_store_list_page (store, "v", token, 2, &next, NULL, &error);

      check (page != NULL && g_strv_length (page) <= 2, "a page of at most 2 names of v", error);
      for (char **n = page; *n != NULL; n++)
        g_ptr_array_add (paged, g_strdup (*n));
      g_free (token);
      token = g_steal_pointer (&next);
      pages++;
    }
  while (token != NULL && pages <= 16);
  same = paged->len == g_strv_length (all);
  for (guint i = 0; same && i < paged->len; i++)
    same = g_strv_contains ((const char * const *) all, g_ptr_array_index (paged, i));
  check (same && pages >= 2, "the pages of v's listing together give the whole listing", NULL);

  ncz_store_read_async (store, "v/.zarray", G_PRIORITY_DEFAULT, NULL, on_read, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  zarray = ncz_store_read_finish (store, result, &error);
  check (zarray != NULL && g_bytes_get_size (zarray) > 0,
         "v/.zarray is read asynchronously", error);
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
  g_autoptr(NczUrl) probe_url = NULL;
  g_autoptr(NczUrl) empty_url = NULL;
  g_autoptr(NczStore) empty = NULL;
  g_autofree char *probe_text = NULL;
  g_autofree char *empty_dir = NULL;
  g_autofree char *empty_text = NULL;
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
  check_codec (registry);
  check (ncz_variable_write (var, &start, 1, &count, 1, NULL, 0, values, sizeof values, NULL,
                             &error),
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
  check (ncz_variable_read (var, &start, 1, &count, 1, NULL, 0, back, sizeof back, NULL,
                            &error),
         "v is read", error);
  check (memcmp (back, values, sizeof values) == 0, "the values read are those written", NULL);
  check (ncz_dataset_close (ds, NULL, &error), "the dataset is closed", error);
  g_clear_object (&ds);
  check_store (store, url, (const guint8 *) raw, raw_len);
  g_clear_object (&store);

  /* format first: a URL naming no format, the format found by the
   * marker keys the registry checks in the sdkdir store */
  probe_text = g_strdup_printf ("file://%s", data_dir);
  probe_url = ncz_url_parse (probe_text, &error);
  check (probe_url != NULL, "the URL without a mode parses", error);
  store = open_store (store_type, probe_url, NCZ_STORE_READ, &error);
  check (store != NULL, "the sdkdir store is opened from the URL without a mode", error);
  ds = ncz_dataset_open_store (store, probe_url, NCZ_OPEN_READ, NULL, &error);
  check (ds != NULL, "the dataset is opened from the sdkdir store with no format named", error);
  check (g_strcmp0 (ncz_format_get_name (ncz_dataset_get_format (ds)), "nczarr") == 0,
         "the format found by its marker keys is nczarr", NULL);
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  memset (back, 0, sizeof back);
  check (var != NULL && ncz_variable_read (var, &start, 1, &count, 1, NULL, 0, back,
                                           sizeof back, NULL, &error) &&
         memcmp (back, values, sizeof values) == 0,
         "v read through the probed format holds the values written", error);
  check (ncz_dataset_close (ds, NULL, &error), "the dataset is closed", error);

  /* an empty sdkdir store: no format claims it */
  empty_dir = g_build_filename (argv[1], "empty", NULL);
  empty_text = g_strdup_printf ("file://%s", empty_dir);
  empty_url = ncz_url_parse (empty_text, &error);
  check (empty_url != NULL, "the URL of an empty directory parses", error);
  empty = open_store (store_type, empty_url, NCZ_STORE_WRITE | NCZ_STORE_CREATE, &error);
  check (empty != NULL, "an empty sdkdir store is made", error);
  check (ncz_dataset_open_store (empty, empty_url, NCZ_OPEN_READ, NULL, &error) == NULL &&
         g_error_matches (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ) &&
         strstr (error->message, ".zgroup") != NULL,
         "the empty store is refused, the error naming the marker keys looked for", NULL);
  printf ("   (%s)\n", error->message);
  return 0;
}
