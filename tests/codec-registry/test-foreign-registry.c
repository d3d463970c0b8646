/* test-foreign-registry.c: the registry's codec-provider hook, and the
 * codec-registry module ("foreign") answering the default registry:
 * fixture libraries, then an NCZarr dataset written and read through
 * Debian's HDF5-only LZF filter paired with Ncz's LZF codec-only library.
 *
 * The module scans HDF5_PLUGIN_PATH once per process, so every case that
 * uses it runs in a subprocess with its own HDF5_PLUGIN_PATH.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include <ncz/ncz-json.h>

/* ---- a codec for provider tests ---- */

#define TEST_TYPE_CODEC (test_codec_get_type ())
G_DECLARE_FINAL_TYPE (TestCodec, test_codec, TEST, CODEC, GObject)

struct _TestCodec
{
  GObject parent_instance;
  char *codec_id;
  guint filter_id;
};

static void test_codec_iface_init (NczCodecInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestCodec, test_codec, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, test_codec_iface_init))

static void
test_codec_finalize (GObject *object)
{
  g_free (TEST_CODEC (object)->codec_id);
  G_OBJECT_CLASS (test_codec_parent_class)->finalize (object);
}

static void
test_codec_class_init (TestCodecClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_codec_finalize;
}

static void
test_codec_init (TestCodec *self)
{
}

static const char *
test_codec_get_codec_id (NczCodec *codec)
{
  return TEST_CODEC (codec)->codec_id;
}

static guint
test_codec_get_filter_id (NczCodec *codec)
{
  return TEST_CODEC (codec)->filter_id;
}

static void
test_codec_iface_init (NczCodecInterface *iface)
{
  iface->get_codec_id = test_codec_get_codec_id;
  iface->get_filter_id = test_codec_get_filter_id;
}

static NczCodec *
test_codec_new (const char *codec_id,
                guint       filter_id)
{
  TestCodec *codec = g_object_new (TEST_TYPE_CODEC, NULL);

  codec->codec_id = g_strdup (codec_id);
  codec->filter_id = filter_id;
  return NCZ_CODEC (codec);
}

/* ---- the provider hook ---- */

typedef struct {
  const char *name;
  GString *calls;        /* "name:codec_id/filter_id;" shared by providers */
  guint n_destroyed;
} ProviderData;

static NczCodec *
provider_one (NczRegistry  *registry,
              const char   *codec_id,
              guint         filter_id,
              gpointer      user_data,
              GError      **error)
{
  ProviderData *data = user_data;

  g_assert_true (NCZ_IS_REGISTRY (registry));
  g_assert_true ((codec_id == NULL) != (filter_id == 0));
  g_string_append_printf (data->calls, "%s:%s/%u;", data->name,
                          codec_id != NULL ? codec_id : "-", filter_id);
  if (g_strcmp0 (codec_id, "p-one") == 0 || filter_id == 61000)
    return test_codec_new ("p-one", 61000);
  if (g_strcmp0 (codec_id, "p-broken") == 0)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "p-broken's library is broken");
      return NULL;
    }
  return NULL;
}

static NczCodec *
provider_two (NczRegistry  *registry,
              const char   *codec_id,
              guint         filter_id,
              gpointer      user_data,
              GError      **error)
{
  ProviderData *data = user_data;

  g_string_append_printf (data->calls, "%s:%s/%u;", data->name,
                          codec_id != NULL ? codec_id : "-", filter_id);
  if (g_strcmp0 (codec_id, "p-two") == 0)
    return test_codec_new ("p-two", 0);
  return NULL;
}

static void
provider_destroy (gpointer user_data)
{
  ((ProviderData *) user_data)->n_destroyed++;
}

static void
test_provider_hook (void)
{
  g_autoptr(NczRegistry) registry = ncz_registry_new (NULL);
  g_autoptr(GString) calls = g_string_new (NULL);
  ProviderData one = { "one", calls, 0 };
  ProviderData two = { "two", calls, 0 };
  ProviderData replaced = { "old", calls, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;
  g_autoptr(NczCodec) again = NULL;
  g_autoptr(NczCodec) by_id = NULL;

  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC_PROVIDER, "one"));
  ncz_registry_add_codec_provider (registry, "one", provider_one, &replaced, provider_destroy,
                                   NCZ_PRIORITY_FALLBACK);
  /* same name: replaced, its data destroyed */
  ncz_registry_add_codec_provider (registry, "one", provider_one, &one, provider_destroy,
                                   NCZ_PRIORITY_FALLBACK);
  g_assert_cmpuint (replaced.n_destroyed, ==, 1);
  ncz_registry_add_codec_provider (registry, "two", provider_two, &two, provider_destroy,
                                   NCZ_PRIORITY_PRIMARY);
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC_PROVIDER, "one"));
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC_PROVIDER, "two"));
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC_PROVIDER, "three"));

  /* Asked highest priority first, by codec id */
  codec = ncz_registry_lookup_codec (registry, "p-one", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_codec_get_codec_id (codec), ==, "p-one");
  g_assert_cmpstr (calls->str, ==, "two:p-one/0;one:p-one/0;");
  /* kept: not asked again */
  g_string_truncate (calls, 0);
  again = ncz_registry_lookup_codec (registry, "p-one", &error);
  g_assert_true (again == codec);
  g_assert_cmpstr (calls->str, ==, "");

  /* by filter id */
  by_id = ncz_registry_lookup_codec_by_filter_id (registry, 61000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_get_filter_id (by_id), ==, 61000);
  g_assert_cmpstr (calls->str, ==, "two:-/61000;one:-/61000;");
  g_clear_object (&codec);
  g_string_truncate (calls, 0);
  codec = ncz_registry_lookup_codec (registry, "p-two", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (calls->str, ==, "two:p-two/0;");
  g_clear_object (&codec);

  /* A provider's reason comes first in the registry's error */
  codec = ncz_registry_lookup_codec (registry, "p-broken", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message,
                                   "codec not available: p-broken: p-broken's library is broken; "));
  g_assert_nonnull (strstr (error->message, "no plugin provides codec 'p-broken'"));
  g_clear_error (&error);

  /* Nothing provides it: the registry's own error, unchanged */
  codec = ncz_registry_lookup_codec_by_filter_id (registry, 61001, &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 61001: no plugin provides"));
  g_clear_error (&error);
  /* a known codec keeps its "not installed" error and hint */
  codec = ncz_registry_lookup_codec (registry, "zstd", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_clear_error (&error);

  /* Codecs registered for real come first: providers are not asked */
  ncz_registry_add_codec (registry, TEST_TYPE_CODEC, "p-native", 61002, NCZ_PRIORITY_PRIMARY);
  g_string_truncate (calls, 0);
  codec = ncz_registry_lookup_codec (registry, "p-native", &error);
  g_assert_no_error (error);
  g_assert_nonnull (codec);
  g_assert_cmpstr (calls->str, ==, "");

  g_clear_object (&codec);
  g_clear_object (&again);
  g_clear_object (&by_id);
  g_clear_object (&registry);
  g_assert_cmpuint (one.n_destroyed, ==, 1);
  g_assert_cmpuint (two.n_destroyed, ==, 1);
}

/* Concurrent lookups: every thread gets the one codec kept */
static gint thread_calls;

static NczCodec *
provider_threads (NczRegistry  *registry,
                  const char   *codec_id,
                  guint         filter_id,
                  gpointer      user_data,
                  GError      **error)
{
  g_atomic_int_inc (&thread_calls);
  g_usleep (1000);
  return test_codec_new ("p-thread", 61003);
}

static gpointer
lookup_thread (gpointer data)
{
  return ncz_registry_lookup_codec (data, "p-thread", NULL);
}

static void
test_provider_threads (void)
{
  g_autoptr(NczRegistry) registry = ncz_registry_new (NULL);
  GThread *threads[8];
  NczCodec *codecs[8];

  ncz_registry_add_codec_provider (registry, "threads", provider_threads, NULL, NULL,
                                   NCZ_PRIORITY_PRIMARY);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("lookup", lookup_thread, registry);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    codecs[i] = g_thread_join (threads[i]);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_assert_nonnull (codecs[i]);
      g_assert_true (codecs[i] == codecs[0]);
    }
  g_assert_cmpint (g_atomic_int_get (&thread_calls), >=, 1);
  g_assert_cmpint (g_atomic_int_get (&thread_calls), <=, (gint) G_N_ELEMENTS (threads));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_object_unref (codecs[i]);
}

/* NCZ_PLUGIN_DISABLE names providers too */
static void
test_provider_disabled (void)
{
  g_autoptr(NczRegistry) registry = NULL;
  g_autoptr(GString) calls = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;
  ProviderData one;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  g_setenv ("NCZ_PLUGIN_DISABLE", "one", TRUE);
  registry = ncz_registry_new (NULL);
  calls = g_string_new (NULL);
  one = (ProviderData) { "one", calls, 0 };
  ncz_registry_add_codec_provider (registry, "one", provider_one, &one, NULL,
                                   NCZ_PRIORITY_PRIMARY);
  codec = ncz_registry_lookup_codec (registry, "p-one", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_cmpstr (calls->str, ==, "");
}

/* ---- the codec-registry module ---- */

static NczRegistry *
module_registry (void)
{
  const char *path[] = { CODEC_REGISTRY_DIR, NULL };

  return ncz_registry_new (path);
}

static void
test_module_manifest (void)
{
  g_autoptr(NczRegistry) registry = module_registry ();
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  NczPluginInfo *foreign = NULL;

  for (guint i = 0; i < plugins->len; i++)
    if (g_strcmp0 (ncz_plugin_info_get_name (g_ptr_array_index (plugins, i)), "foreign") == 0)
      foreign = g_ptr_array_index (plugins, i);
  g_assert_nonnull (foreign);
  g_assert_true (g_strv_contains (ncz_plugin_info_get_provides (foreign),
                                  "codec-provider:foreign"));
  g_assert_true (g_str_has_suffix (ncz_plugin_info_get_filename (foreign),
                                   "/libncz-codec-registry.so"));
  /* Known from the manifest, not loaded */
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC_PROVIDER, "foreign"));
  g_assert_false (ncz_plugin_info_is_loaded (foreign));
}

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("foreign-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
link_into (const char *dir,
           const char *target)
{
  g_autofree char *base = g_path_get_basename (target);
  g_autofree char *path = g_build_filename (dir, base, NULL);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
link_fixture (const char *dir,
              const char *name)
{
  g_autofree char *file = g_strdup_printf ("lib%s.so", name);
  g_autofree char *target = g_build_filename (FIXTURE_DIR, file, NULL);

  link_into (dir, target);
}

static char *
debian_plugin (const char *base)
{
  g_auto(GStrv) plugins = g_strsplit (DEBIAN_HDF5_PLUGINS, ":", -1);

  for (gsize i = 0; plugins[i] != NULL; i++)
    if (g_str_has_suffix (plugins[i], base) && plugins[i][strlen (plugins[i]) - strlen (base) - 1] == '/')
      return g_strdup (plugins[i]);
  return NULL;
}

static void
remove_tree (const char *path)
{
  GDir *dir;
  const char *name;

  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      remove_tree (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

static void
test_module_fixtures (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(NczRegistry) registry = NULL;
  g_autoptr(NczCodec) codec = NULL;
  g_autoptr(NczCodec) by_id = NULL;
  g_autoptr(NczCodec) missing = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) visible = NULL;
  g_autoptr(GArray) working = NULL;
  g_autoptr(GBytes) input = g_bytes_new_static ("hello, foreign codec", 20);
  g_autoptr(GBytes) encoded = NULL;
  g_autoptr(GBytes) decoded = NULL;
  g_autofree char *json = NULL;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  dir = make_dir ();
  link_fixture (dir, "fx-h5-a");
  link_fixture (dir, "fx-defaults");
  link_fixture (dir, "fx-codec-only");
  link_fixture (dir, "fx-noabi");
  g_setenv ("HDF5_PLUGIN_PATH", dir, TRUE);
  registry = module_registry ();

  /* By codec id, then by filter id: one codec */
  codec = ncz_registry_lookup_codec (registry, "fxa", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (codec), ==, "NczForeignCodec");
  g_assert_cmpstr (ncz_codec_get_codec_id (codec), ==, "fxa");
  g_assert_cmpuint (ncz_codec_get_filter_id (codec), ==, 40010);
  by_id = ncz_registry_lookup_codec_by_filter_id (registry, 40010, &error);
  g_assert_no_error (error);
  g_assert_true (by_id == codec);

  /* NczCodec through the foreign libraries */
  g_assert_true (ncz_codec_params_from_json_text (codec, "{\"id\": \"fxa\", \"k\": 9}", &visible, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (visible->len, ==, 1);
  json = ncz_codec_params_to_json_text (codec, (const guint *) visible->data, visible->len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (json, "\"k\""));
  g_assert_true (ncz_codec_modify_parameters (codec, NULL, visible, &working, &error));
  g_assert_cmpuint (working->len, ==, 1);
  g_assert_cmpuint (g_array_index (working, guint, 0), ==, 9);
  encoded = ncz_codec_encode (codec, (const guint *) working->data, working->len, input, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (encoded), ==, 24);
  decoded = ncz_codec_decode (codec, (const guint *) working->data, working->len, encoded, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (decoded, input));

  /* A Codec library alone: the reason is in the error */
  missing = ncz_registry_lookup_codec_by_filter_id (registry, 40020, &error);
  g_assert_null (missing);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 40020: "));
  g_assert_nonnull (strstr (error->message, "no HDF5 library"));
  g_clear_error (&error);

  /* Unknown: the libraries that could not be used are named */
  missing = ncz_registry_lookup_codec (registry, "fxnope", &error);
  g_assert_null (missing);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: fxnope: "));
  g_assert_nonnull (strstr (error->message, "libfx-noabi.so"));
  g_assert_nonnull (strstr (error->message, "no plugin provides codec 'fxnope'"));
  g_clear_error (&error);

  remove_tree (dir);
}

/* ---- LZF end to end ---- */

#define LZF_N 1000
#define LZF_CHUNK 100

static gboolean
lzf_available (void)
{
  g_autofree char *lzf = debian_plugin ("liblzf_filter.so");

  if (LZF_CODEC_DIR[0] == '\0')
    {
      g_test_skip ("the LZF codec-only library is not built");
      return FALSE;
    }
  if (lzf == NULL)
    {
      g_test_skip ("hdf5-plugin-lzf is not installed");
      return FALSE;
    }
  return TRUE;
}

/* HDF5_PLUGIN_PATH for the children: a directory with Debian's LZF filter
 * (and zfp's, HDF5-only), then one with the codec-only library. */
static void
lzf_environment (gboolean with_codec,
                 char   **filter_dir,
                 char   **codec_dir)
{
  g_autofree char *lzf = debian_plugin ("liblzf_filter.so");
  g_autofree char *zfp = debian_plugin ("libh5zzfp.so");
  g_autofree char *codec = g_build_filename (LZF_CODEC_DIR, "libncz-lzf-codec.so", NULL);
  g_autofree char *path = NULL;

  *filter_dir = make_dir ();
  *codec_dir = make_dir ();
  link_into (*filter_dir, lzf);
  if (zfp != NULL)
    link_into (*filter_dir, zfp);
  if (with_codec)
    link_into (*codec_dir, codec);
  path = g_strdup_printf ("%s:%s", *filter_dir, *codec_dir);
  g_setenv ("HDF5_PLUGIN_PATH", path, TRUE);
}

static void
lzf_values (gint32 *values)
{
  for (guint i = 0; i < LZF_N; i++)
    values[i] = (gint32) (i / 10) - 50;
}

/* In a child: writes the dataset with filter 32000 and reads it back. */
static void
lzf_write_and_read (const char *store)
{
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", store);
  g_autofree char *zarray_path = g_build_filename (store, "v", ".zarray", NULL);
  g_autofree char *chunk_path = g_build_filename (store, "v", "0", NULL);
  g_autofree char *zarray = NULL;
  g_autoptr(NczJson) meta = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GArray) ids = NULL;
  const NczJson *compressor;
  NczDimension *x;
  NczVariable *v;
  gint32 values[LZF_N], back[LZF_N];
  guint64 start = 0, count = LZF_N, chunk = LZF_CHUNK;
  GStatBuf st;

  lzf_values (values);
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  x = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", LZF_N, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, &chunk, 1, &error));
  g_assert_true (ncz_variable_add_filter (v, 32000, NULL, 0, &error));
  g_assert_no_error (error);
  ids = ncz_variable_get_filter_ids (v);
  g_assert_cmpuint (ids->len, ==, 1);
  g_assert_cmpuint (g_array_index (ids, guint, 0), ==, 32000);
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&ds);

  /* .zarray: {"id": "lzf"} as compressor, no filters */
  g_assert_true (g_file_get_contents (zarray_path, &zarray, NULL, &error));
  meta = ncz_json_parse (zarray, -1, &error);
  g_assert_no_error (error);
  compressor = ncz_json_object_get (meta, "compressor");
  g_assert_nonnull (compressor);
  g_assert_cmpint (ncz_json_get_kind (compressor), ==, NCZ_JSON_OBJECT);
  g_assert_cmpuint (ncz_json_object_get_size (compressor), ==, 1);
  g_assert_cmpstr (ncz_json_get_string (ncz_json_object_get (compressor, "id"), NULL), ==, "lzf");
  g_assert_cmpint (ncz_json_get_kind (ncz_json_object_get (meta, "filters")), ==, NCZ_JSON_NULL);
  /* chunks are compressed */
  g_assert_cmpint (g_stat (chunk_path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, LZF_CHUNK * 4 / 2);

  /* Read back */
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  g_clear_pointer (&ids, g_array_unref);
  ids = ncz_variable_get_filter_ids (v);
  g_assert_cmpuint (ids->len, ==, 1);
  g_assert_cmpuint (g_array_index (ids, guint, 0), ==, 32000);
  memset (back, 0, sizeof back);
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, sizeof back, values, sizeof values);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
}

/* In a child without the codec-only library: the dataset opens, reading
 * fails naming the codec; defining filter 32000 fails naming the id. */
static void
lzf_without_codec (const char *store)
{
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", store);
  g_autofree char *other = g_strdup_printf ("file://%s-new#mode=nczarr,file", store);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczCodec) codec = NULL;
  NczDimension *x;
  NczVariable *v;
  gint32 back[LZF_N];
  guint64 start = 0, count = LZF_N;

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_false (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "lzf"));
  g_clear_error (&error);
  g_clear_object (&ds);

  codec = ncz_registry_lookup_codec_by_filter_id (ncz_registry_get_default (), 32000, &error);
  g_assert_null (codec);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 32000: "));
  /* the unloadable LZF filter library is named as a suspect */
  g_assert_nonnull (strstr (error->message, "liblzf_filter.so"));
  g_clear_error (&error);

  ds = ncz_dataset_create (other, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  x = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", LZF_N, FALSE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_variable_add_filter (v, 32000, NULL, 0, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "32000"));
  g_clear_error (&error);

  /* An HDF5-only library that loads (zfp) is unusable, and says why */
  if (DEBIAN_HDF5_PLUGINS[0] != '\0' && strstr (DEBIAN_HDF5_PLUGINS, "/libh5zzfp.so") != NULL)
    {
      g_assert_false (ncz_variable_add_filter (v, 32013, NULL, 0, &error));
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
      g_assert_nonnull (strstr (error->message, "32013"));
      g_assert_nonnull (strstr (error->message, "no Codec library"));
      g_clear_error (&error);
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
}

static void
test_lzf_dataset (void)
{
  const char *store = g_getenv ("LZF_TEST_STORE");
  const char *mode = g_getenv ("LZF_TEST_MODE");
  g_autofree char *top = NULL;
  g_autofree char *path = NULL;
  char *filter_dir = NULL, *codec_dir = NULL;

  if (g_test_subprocess ())
    {
      if (g_strcmp0 (mode, "write") == 0)
        lzf_write_and_read (store);
      else
        lzf_without_codec (store);
      return;
    }
  if (!lzf_available ())
    return;

  top = make_dir ();
  path = g_build_filename (top, "lzf.zarr", NULL);
  g_setenv ("LZF_TEST_STORE", path, TRUE);

  /* With Debian's filter + the codec-only library: usable */
  lzf_environment (TRUE, &filter_dir, &codec_dir);
  g_setenv ("LZF_TEST_MODE", "write", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  remove_tree (filter_dir);
  remove_tree (codec_dir);
  g_clear_pointer (&filter_dir, g_free);
  g_clear_pointer (&codec_dir, g_free);

  /* Without the codec-only library: not */
  lzf_environment (FALSE, &filter_dir, &codec_dir);
  g_setenv ("LZF_TEST_MODE", "without", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  remove_tree (filter_dir);
  remove_tree (codec_dir);
  g_free (filter_dir);
  g_free (codec_dir);

  g_unsetenv ("HDF5_PLUGIN_PATH");
  remove_tree (top);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/codec-registry/provider/hook", test_provider_hook);
  g_test_add_func ("/codec-registry/provider/threads", test_provider_threads);
  g_test_add_func ("/codec-registry/provider/disabled", test_provider_disabled);
  g_test_add_func ("/codec-registry/module/manifest", test_module_manifest);
  g_test_add_func ("/codec-registry/module/fixtures", test_module_fixtures);
  g_test_add_func ("/codec-registry/lzf/dataset", test_lzf_dataset);

  return g_test_run ();
}
