/* test-registry.c: the plugin registry against fixture modules
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include "ncz-registry-private.h"

/* Types registered without a module */

typedef struct {
  GObject parent_instance;
  NczUrl *url;
  guint flags;
} TestStore;
typedef struct { GObjectClass parent_class; } TestStoreClass;

static GType test_store_get_type (void);
static void test_store_iface_init (NczStoreInterface *iface) { }
static gboolean test_store_initable_init (GInitable *initable, GCancellable *cancellable,
                                          GError **error);
static void
test_store_initable_iface_init (GInitableIface *iface)
{
  iface->init = test_store_initable_init;
}

G_DEFINE_TYPE_WITH_CODE (TestStore, test_store, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE, test_store_iface_init)
                         G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, test_store_initable_iface_init))

enum { STORE_PROP_0, STORE_PROP_URL, STORE_PROP_FLAGS };

static gboolean
test_store_initable_init (GInitable     *initable,
                          GCancellable  *cancellable,
                          GError       **error)
{
  TestStore *self = (TestStore *) initable;

  if (self->flags & NCZ_STORE_CREATE)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
                   "%s: test store is read-only", ncz_url_get_original (self->url));
      return FALSE;
    }
  return TRUE;
}

static void
test_store_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TestStore *self = (TestStore *) object;

  switch (prop_id)
    {
    case STORE_PROP_URL:
      self->url = g_value_dup_object (value);
      break;
    case STORE_PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
test_store_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TestStore *self = (TestStore *) object;

  if (prop_id == STORE_PROP_URL)
    g_value_set_object (value, self->url);
  else if (prop_id == STORE_PROP_FLAGS)
    g_value_set_flags (value, self->flags);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
test_store_finalize (GObject *object)
{
  g_clear_object (&((TestStore *) object)->url);
  G_OBJECT_CLASS (test_store_parent_class)->finalize (object);
}

static void
test_store_class_init (TestStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = test_store_set_property;
  object_class->get_property = test_store_get_property;
  object_class->finalize = test_store_finalize;
  g_object_class_override_property (object_class, STORE_PROP_URL, "url");
  g_object_class_override_property (object_class, STORE_PROP_FLAGS, "flags");
}

static void test_store_init (TestStore *self) { }

typedef struct {
  GObject parent_instance;
  NczUrl *url;
  NczStore *store;
} TestFormat;
typedef struct { GObjectClass parent_class; } TestFormatClass;

static GType test_format_get_type (void);
static void test_format_iface_init (NczFormatInterface *iface) { }

G_DEFINE_TYPE_WITH_CODE (TestFormat, test_format, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT, test_format_iface_init))

enum { FORMAT_PROP_0, FORMAT_PROP_URL, FORMAT_PROP_STORE };

static void
test_format_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TestFormat *self = (TestFormat *) object;

  switch (prop_id)
    {
    case FORMAT_PROP_URL:
      self->url = g_value_dup_object (value);
      break;
    case FORMAT_PROP_STORE:
      self->store = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
test_format_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TestFormat *self = (TestFormat *) object;

  switch (prop_id)
    {
    case FORMAT_PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case FORMAT_PROP_STORE:
      g_value_set_object (value, self->store);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
test_format_finalize (GObject *object)
{
  g_clear_object (&((TestFormat *) object)->url);
  g_clear_object (&((TestFormat *) object)->store);
  G_OBJECT_CLASS (test_format_parent_class)->finalize (object);
}

static void
test_format_class_init (TestFormatClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = test_format_set_property;
  object_class->get_property = test_format_get_property;
  object_class->finalize = test_format_finalize;
  g_object_class_override_property (object_class, FORMAT_PROP_URL, "url");
  g_object_class_override_property (object_class, FORMAT_PROP_STORE, "store");
}

static void test_format_init (TestFormat *self) { }

typedef struct { GObject parent_instance; } TestCodec;
typedef struct { GObjectClass parent_class; } TestCodecClass;
static GType test_codec_get_type (void);
static void test_codec_iface_init (NczCodecInterface *iface) { }
G_DEFINE_TYPE_WITH_CODE (TestCodec, test_codec, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, test_codec_iface_init))
static void test_codec_class_init (TestCodecClass *klass) { }
static void test_codec_init (TestCodec *self) { }

/* Helpers */

/* A registry over the fixture directories given (NULL-terminated). */
static NczRegistry *
fixture_registry (const char *first, ...)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  NczRegistry *registry;
  const char *sub;
  va_list ap;

  va_start (ap, first);
  for (sub = first; sub != NULL; sub = va_arg (ap, const char *))
    g_ptr_array_add (dirs, g_build_filename (FIXTURE_DIR, sub, NULL));
  va_end (ap);
  g_ptr_array_add (dirs, NULL);

  registry = ncz_registry_new ((const char * const *) dirs->pdata);
  g_ptr_array_unref (dirs);
  return registry;
}

static NczPluginInfo *
find_info (NczRegistry *registry,
           const char  *manifest_basename)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  NczPluginInfo *found = NULL;

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      g_autofree char *base = g_path_get_basename (ncz_plugin_info_get_manifest_path (info));

      if (strcmp (base, manifest_basename) == 0)
        {
          g_assert_null (found);
          found = info;
        }
    }
  g_assert_nonnull (found);
  return found;
}

static guint
count_loaded (NczRegistry *registry)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  guint n = 0;

  for (guint i = 0; i < plugins->len; i++)
    if (ncz_plugin_info_is_loaded (g_ptr_array_index (plugins, i)))
      n++;
  return n;
}

static void
assert_strv_equal (const char * const *actual,
                   const char * const *expected)
{
  gsize i;

  for (i = 0; expected[i] != NULL; i++)
    {
      g_assert_nonnull (actual[i]);
      g_assert_cmpstr (actual[i], ==, expected[i]);
    }
  g_assert_null (actual[i]);
}

/* Tests */

static void
test_scan_lists_manifests (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", "broken", NULL);
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  const char * const good_provides[] = { "store:fixture-good", NULL };
  const char * const lying_provides[] = { "store:fixture-lying", "codec:lie", NULL };
  g_autofree char *good_module = g_build_filename (FIXTURE_DIR, "good",
                                                   "libncz-store-fixture-good.so", NULL);
  NczPluginInfo *info;
  const GError *error;

  /* good/: 2 manifests; broken/: 10 .plugin files (not the .txt). */
  g_assert_cmpuint (plugins->len, ==, 12);
  g_assert_cmpuint (count_loaded (registry), ==, 0);

  /* Sorted within a directory, directories in order. */
  g_assert_cmpstr (ncz_plugin_info_get_name (g_ptr_array_index (plugins, 0)), ==, "fixture-codec");
  g_assert_cmpstr (ncz_plugin_info_get_name (g_ptr_array_index (plugins, 1)), ==, "fixture-good");

  info = find_info (registry, "fixture-good.plugin");
  g_assert_cmpstr (ncz_plugin_info_get_name (info), ==, "fixture-good");
  g_assert_cmpstr (ncz_plugin_info_get_filename (info), ==, good_module);
  g_assert_cmpstr (ncz_plugin_info_get_version (info), ==, "1.2.3");
  g_assert_cmpstr (ncz_plugin_info_get_description (info), ==,
                   "Registry test fixture: a store that loads");
  assert_strv_equal (ncz_plugin_info_get_provides (info), good_provides);
  g_assert_false (ncz_plugin_info_is_loaded (info));
  g_assert_null (ncz_plugin_info_get_error (info));
  g_assert_cmpint (ncz_plugin_info_get_status (info), ==, NCZ_PLUGIN_STATUS_AVAILABLE);

  info = find_info (registry, "fixture-lying.plugin");
  assert_strv_equal (ncz_plugin_info_get_provides (info), lying_provides);
  g_assert_null (ncz_plugin_info_get_error (info));

  /* Manifests rejected while scanning, each with its reason. */
  info = find_info (registry, "fixture-oldabi.plugin");
  g_assert_cmpint (ncz_plugin_info_get_status (info), ==, NCZ_PLUGIN_STATUS_SKIPPED);
  g_assert_error (ncz_plugin_info_get_error (info), NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_ABI);
  g_assert_nonnull (strstr (ncz_plugin_info_get_error (info)->message, "plugin ABI 0"));

  info = find_info (registry, "no-module.plugin");
  error = ncz_plugin_info_get_error (info);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);
  g_assert_nonnull (strstr (error->message, "Module"));
  g_assert_nonnull (strstr (error->message, "no-module.plugin"));
  g_assert_null (ncz_plugin_info_get_filename (info));

  info = find_info (registry, "bad-provides.plugin");
  error = ncz_plugin_info_get_error (info);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);
  g_assert_nonnull (strstr (error->message, "frobnicator"));

  info = find_info (registry, "escape.plugin");
  g_assert_error (ncz_plugin_info_get_error (info), NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);

  info = find_info (registry, "garbage.plugin");
  g_assert_cmpint (ncz_plugin_info_get_status (info), ==, NCZ_PLUGIN_STATUS_SKIPPED);
  g_assert_error (ncz_plugin_info_get_error (info), NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);

  /* Reading manifests loaded nothing, and has_feature does not load. */
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "fixture-good"));
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_HDF5_FILTER, "65000"));
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_CODEC, "fixture-codec"));
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "fixture-oldabi"));
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "fixture-escape"));
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "zip"));
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_HDF5_FILTER, "not-a-number"));
  g_assert_cmpuint (count_loaded (registry), ==, 0);
}

static void
test_generated_manifest (void)
{
  g_autofree char *path = g_build_filename (FIXTURE_DIR, "good", "fixture-codec.plugin", NULL);
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *module = NULL, *name = NULL, *provides = NULL, *license = NULL;

  g_key_file_load_from_file (keyfile, path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  module = g_key_file_get_string (keyfile, "Plugin", "Module", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (module, ==, "libncz-codec-fixture-codec.so");
  name = g_key_file_get_string (keyfile, "Plugin", "Name", &error);
  g_assert_cmpstr (name, ==, "fixture-codec");
  g_assert_cmpint (g_key_file_get_integer (keyfile, "Plugin", "Abi", &error), ==, NCZ_PLUGIN_ABI);
  g_assert_no_error (error);
  license = g_key_file_get_string (keyfile, "Plugin", "License", &error);
  g_assert_cmpstr (license, ==, "BSD-3-Clause");
  provides = g_key_file_get_value (keyfile, "Plugin", "Provides", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (provides, ==, "codec:fixture-codec;hdf5-filter:65000");
}

static void
test_store_loads_lazily (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", "broken", NULL);
  g_autoptr(GError) error = NULL;
  NczPluginInfo *good = find_info (registry, "fixture-good.plugin");
  GType type;

  g_assert_false (ncz_plugin_info_is_loaded (good));

  type = ncz_registry_lookup_store (registry, "fixture-good", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_type_name (type), ==, "FixtureGoodStore");
  g_assert_true (g_type_is_a (type, NCZ_TYPE_STORE));
  g_assert_true (ncz_plugin_info_is_loaded (good));
  g_assert_null (ncz_plugin_info_get_error (good));
  /* Only that module was opened. */
  g_assert_cmpuint (count_loaded (registry), ==, 1);

  g_assert_cmpuint (ncz_registry_lookup_store (registry, "fixture-good", &error), ==, type);
  g_assert_no_error (error);
  g_assert_cmpuint (count_loaded (registry), ==, 1);

  /* A store is not a format. */
  g_assert_cmpuint (ncz_registry_lookup_format (registry, "fixture-good", &error), ==,
                    G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
}

static void
test_codec_by_id_loads_only_its_module (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", "broken", "dup1", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) by_filter = NULL;
  g_autoptr(NczCodec) by_id = NULL;
  NczPluginInfo *codec = find_info (registry, "fixture-codec.plugin");
  g_autoptr(GPtrArray) plugins = NULL;

  by_filter = ncz_registry_lookup_codec_by_filter_id (registry, 65000, &error);
  g_assert_no_error (error);
  g_assert_nonnull (by_filter);
  g_assert_true (NCZ_IS_CODEC (by_filter));
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (by_filter), ==, "FixtureCodec");
  g_assert_true (ncz_plugin_info_is_loaded (codec));

  plugins = ncz_registry_list_plugins (registry);
  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);

      if (info == codec)
        continue;
      g_assert_false (ncz_plugin_info_is_loaded (info));
      /* Not tried either: only scan-time rejections carry an error. */
      g_assert_cmpint (ncz_plugin_info_get_status (info), !=, NCZ_PLUGIN_STATUS_FAILED);
    }

  /* Codecs are stateless: one shared instance. */
  by_id = ncz_registry_lookup_codec (registry, "fixture-codec", &error);
  g_assert_no_error (error);
  g_assert_true (by_id == by_filter);
  g_assert_cmpuint (count_loaded (registry), ==, 1);
}

static void
assert_store_error (NczRegistry *registry,
                    const char  *name,
                    int          code,
                    const char  *manifest,
                    const char  *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again = NULL;
  NczPluginInfo *info = find_info (registry, manifest);

  g_assert_cmpuint (ncz_registry_lookup_store (registry, name, &error), ==, G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, code);
  g_test_message ("%s: %s", name, error->message);
  if (message_part != NULL)
    g_assert_nonnull (strstr (error->message, message_part));

  g_assert_false (ncz_plugin_info_is_loaded (info));
  g_assert_error (ncz_plugin_info_get_error (info), NCZ_PLUGIN_ERROR, code);

  /* Remembered, not retried: the same answer again. */
  g_assert_cmpuint (ncz_registry_lookup_store (registry, name, &again), ==, G_TYPE_INVALID);
  g_assert_error (again, NCZ_PLUGIN_ERROR, code);
  g_assert_cmpstr (again->message, ==, error->message);
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, name));
}

static void
test_missing_symbol (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("broken", NULL);

  assert_store_error (registry, "fixture-nosym", NCZ_PLUGIN_ERROR_LOAD,
                      "fixture-nosym.plugin", "ncz_plugin_fixture_nosym_describe");
  g_assert_cmpuint (count_loaded (registry), ==, 0);
}

static void
test_wrong_abi (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("broken", NULL);

  /* The module's descriptor says ABI 999. */
  assert_store_error (registry, "fixture-wrongabi", NCZ_PLUGIN_ERROR_ABI,
                      "fixture-wrongabi.plugin", "999");
  /* The manifest says Abi=0: never opened. */
  assert_store_error (registry, "fixture-oldabi", NCZ_PLUGIN_ERROR_ABI,
                      "fixture-oldabi.plugin", "fixture-oldabi.plugin");
  g_assert_cmpint (ncz_plugin_info_get_status (find_info (registry, "fixture-oldabi.plugin")),
                   ==, NCZ_PLUGIN_STATUS_SKIPPED);
}

static void
test_lying_manifest (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("broken", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;

  assert_store_error (registry, "fixture-lying", NCZ_PLUGIN_ERROR_MANIFEST,
                      "fixture-lying.plugin", "manifest lies");
  g_assert_nonnull (strstr (ncz_plugin_info_get_error (find_info (registry, "fixture-lying.plugin"))->message,
                            "claims codec:lie but the module"));

  codec = ncz_registry_lookup_codec (registry, "lie", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: lie"));
}

static void
test_failing_init (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("broken", NULL);

  /* It registered the store before failing: that registration is gone. */
  assert_store_error (registry, "fixture-failinit", NCZ_PLUGIN_ERROR_LOAD,
                      "fixture-failinit.plugin", "fixture device not present");
}

static void
test_name_mismatch (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("broken", NULL);

  assert_store_error (registry, "fixture-renamed", NCZ_PLUGIN_ERROR_MANIFEST,
                      "fixture-renamed.plugin", "fixture-somebody-else");
}

static void
test_not_installed (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", NULL);
  g_autoptr(GError) error = NULL;
  NczCodec *codec;

  g_assert_cmpuint (ncz_registry_lookup_store (registry, "zip", &error), ==, G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_cmpstr (error->message, ==,
                   "storage driver 'zip' is known but libncz-store-zip.so is not installed "
                   "(apt install ncz-plugin-zip)");
  g_clear_error (&error);

  g_assert_cmpuint (ncz_registry_lookup_format (registry, "hdf5", &error), ==, G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-backend-hdf5.so"));
  g_clear_error (&error);

  codec = ncz_registry_lookup_codec (registry, "blosc", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_cmpstr (error->message, ==,
                   "codec not available: blosc: codec 'blosc' is known but "
                   "libncz-codec-blosc.so is not installed (apt install ncz-plugin-blosc)");
  g_clear_error (&error);

  codec = ncz_registry_lookup_codec_by_filter_id (registry, 32015, &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 32015: "));
  g_assert_nonnull (strstr (error->message, "HDF5 filter 32015 (zstd)"));
  g_assert_nonnull (strstr (error->message, "libncz-codec-zstd.so"));
  g_clear_error (&error);

  codec = ncz_registry_lookup_codec_by_filter_id (registry, 1, &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-codec-deflate.so"));
  g_clear_error (&error);

  /* Unknown to Ncz altogether. */
  g_assert_cmpuint (ncz_registry_lookup_store (registry, "nonesuch", &error), ==, G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "'nonesuch'"));
  g_clear_error (&error);

  codec = ncz_registry_lookup_codec_by_filter_id (registry, 0, &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 0"));
  g_clear_error (&error);

  codec = ncz_registry_lookup_codec (registry, "no such codec\n", &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_cmpuint (count_loaded (registry), ==, 0);
}

static void
test_duplicate_basename (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("dup1", "dup2", NULL);
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  g_autoptr(GError) error = NULL;
  g_autofree char *dup1 = g_build_filename (FIXTURE_DIR, "dup1", NULL);
  g_autofree char *dup2 = g_build_filename (FIXTURE_DIR, "dup2", NULL);
  NczPluginInfo *first, *second;
  GType type;

  g_assert_cmpuint (plugins->len, ==, 2);
  first = g_ptr_array_index (plugins, 0);
  second = g_ptr_array_index (plugins, 1);
  g_assert_true (g_str_has_prefix (ncz_plugin_info_get_filename (first), dup1));
  g_assert_true (g_str_has_prefix (ncz_plugin_info_get_filename (second), dup2));
  g_assert_null (ncz_plugin_info_get_error (first));
  g_assert_cmpint (ncz_plugin_info_get_status (second), ==, NCZ_PLUGIN_STATUS_SKIPPED);
  g_assert_nonnull (ncz_plugin_info_get_error (second));
  g_assert_nonnull (strstr (ncz_plugin_info_get_error (second)->message,
                            ncz_plugin_info_get_filename (first)));

  type = ncz_registry_lookup_store (registry, "fixture-dup", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_type_name (type), ==, "FixtureDupStore");
  g_assert_true (ncz_plugin_info_is_loaded (first));
  g_assert_false (ncz_plugin_info_is_loaded (second));
  g_assert_cmpstr (ncz_plugin_info_get_description (first), ==, "first");
}

/* Finding a plugin by name or feature, as ncz-inspect-1.0 NAME does; a
 * known one that is missing says which package to install, with the
 * message a lookup gives. */
static void
test_find_plugin (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) lookup_error = NULL;
  NczPluginInfo *info;

  info = ncz_registry_find_plugin (registry, "fixture-good", &error);
  g_assert_no_error (error);
  g_assert_true (info == find_info (registry, "fixture-good.plugin"));
  g_assert_false (ncz_plugin_info_is_loaded (info));
  info = ncz_registry_find_plugin (registry, "65000", &error);
  g_assert_no_error (error);
  g_assert_true (info == find_info (registry, "fixture-codec.plugin"));

  /* a known plugin, by its name or by a feature's */
  g_assert_null (ncz_registry_find_plugin (registry, "zip", &error));
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_cmpuint (ncz_registry_lookup_store (registry, "zip", &lookup_error), ==, G_TYPE_INVALID);
  g_assert_cmpstr (error->message, ==, lookup_error->message);
  g_clear_error (&error);
  g_assert_null (ncz_registry_find_plugin (registry, "bzip2", &error));
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-codec-bzip2.so is not installed"));
  g_assert_nonnull (strstr (error->message, "ncz-plugin-bzip2"));
  g_clear_error (&error);
  g_assert_null (ncz_registry_find_plugin (registry, "zlib", &error));
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-codec-deflate.so"));
  g_clear_error (&error);
  g_assert_null (ncz_registry_find_plugin (registry, "32015", &error));
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "HDF5 filter 32015 (zstd)"));
  g_clear_error (&error);

  /* anything else */
  g_assert_null (ncz_registry_find_plugin (registry, "nonesuch", &error));
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "'nonesuch'"));
  g_assert_nonnull (strstr (error->message, FIXTURE_DIR));
}

static void
test_disabled (void)
{
  g_autoptr(NczRegistry) registry = NULL;
  g_autoptr(NczRegistry) by_feature = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;
  NczPluginInfo *info;

  /* By plugin name. */
  g_setenv ("NCZ_PLUGIN_DISABLE", "s3, fixture-good,blosc", TRUE);
  registry = fixture_registry ("good", NULL);
  g_unsetenv ("NCZ_PLUGIN_DISABLE");

  info = find_info (registry, "fixture-good.plugin");
  g_assert_cmpint (ncz_plugin_info_get_status (info), ==, NCZ_PLUGIN_STATUS_DISABLED);
  g_assert_error (ncz_plugin_info_get_error (info), NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED);
  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "fixture-good"));
  g_assert_cmpuint (ncz_registry_lookup_store (registry, "fixture-good", &error), ==,
                    G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED);
  g_assert_nonnull (strstr (error->message, "NCZ_PLUGIN_DISABLE"));
  g_assert_false (ncz_plugin_info_is_loaded (info));
  g_clear_error (&error);

  /* By feature name, even for a known one that is not installed. */
  g_assert_cmpuint (ncz_registry_lookup_store (registry, "s3", &error), ==, G_TYPE_INVALID);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED);
  g_clear_error (&error);

  /* The codec module is untouched. */
  codec = ncz_registry_lookup_codec (registry, "fixture-codec", &error);
  g_assert_no_error (error);
  g_clear_object (&codec);

  g_setenv ("NCZ_PLUGIN_DISABLE", "65000", TRUE);
  by_feature = fixture_registry ("good", NULL);
  g_unsetenv ("NCZ_PLUGIN_DISABLE");

  codec = ncz_registry_lookup_codec_by_filter_id (by_feature, 65000, &error);
  g_assert_null (codec);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: 65000"));
  g_clear_error (&error);
  g_assert_false (ncz_plugin_info_is_loaded (find_info (by_feature, "fixture-codec.plugin")));

  codec = ncz_registry_lookup_codec (by_feature, "fixture-codec", &error);
  g_assert_no_error (error);
  g_assert_nonnull (codec);
}

static void
test_priority (void)
{
  g_autoptr(GError) error = NULL;
  GType type;

  {
    /* priolow/ comes first, but registers itself as a fallback: the
     * registry goes on to the other module and the primary one wins. */
    g_autoptr(NczRegistry) registry = fixture_registry ("priolow", "priohigh", NULL);

    type = ncz_registry_lookup_store (registry, "fixture-prio", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (g_type_name (type), ==, "FixturePrioHighStore");
    g_assert_true (ncz_plugin_info_is_loaded (find_info (registry, "fixture-prio-low.plugin")));
    g_assert_true (ncz_plugin_info_is_loaded (find_info (registry, "fixture-prio-high.plugin")));
  }

  {
    /* Listed in the other order: the primary one is found first and the
     * fallback is never loaded. */
    g_autoptr(NczRegistry) registry = fixture_registry ("priohigh", "priolow", NULL);

    type = ncz_registry_lookup_store (registry, "fixture-prio", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (g_type_name (type), ==, "FixturePrioHighStore");
    g_assert_false (ncz_plugin_info_is_loaded (find_info (registry, "fixture-prio-low.plugin")));
  }

  {
    g_autoptr(NczRegistry) registry = NULL;

    g_setenv ("NCZ_PLUGIN_PRIORITY", "fixture-prio-high:none", TRUE);
    registry = fixture_registry ("priolow", "priohigh", NULL);
    g_unsetenv ("NCZ_PLUGIN_PRIORITY");

    type = ncz_registry_lookup_store (registry, "fixture-prio", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (g_type_name (type), ==, "FixturePrioLowStore");
    g_assert_false (ncz_plugin_info_is_loaded (find_info (registry, "fixture-prio-high.plugin")));
  }

  {
    g_autoptr(NczRegistry) registry = NULL;

    g_setenv ("NCZ_PLUGIN_PRIORITY", "fixture-prio-low:PRIMARY", TRUE);
    registry = fixture_registry ("priolow", "priohigh", NULL);
    g_unsetenv ("NCZ_PLUGIN_PRIORITY");

    type = ncz_registry_lookup_store (registry, "fixture-prio", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (g_type_name (type), ==, "FixturePrioLowStore");
    g_assert_false (ncz_plugin_info_is_loaded (find_info (registry, "fixture-prio-high.plugin")));
  }
}

static void
test_priority_help (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(NczRegistry) registry = NULL;

      g_setenv ("NCZ_PLUGIN_PRIORITY", "help", TRUE);
      registry = fixture_registry ("priolow", "priohigh", NULL);
      g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "fixture-prio"));
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*NCZ_PLUGIN_PRIORITY=NAME:PRIORITY*primary*fallback*none*");
  g_test_trap_assert_stderr ("*fixture-prio-low*store:fixture-prio*");
  g_test_trap_assert_stderr ("*fixture-prio-high*");
}

static void
test_builtin (void)
{
  g_autoptr(NczRegistry) registry = ncz_registry_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;
  g_autoptr(NczCodec) codec2 = NULL;
  g_auto(GStrv) path = ncz_registry_get_search_path (registry);
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);

  g_assert_cmpuint (g_strv_length (path), ==, 0);
  g_assert_cmpuint (plugins->len, ==, 0);

  g_assert_false (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "mem-test"));
  ncz_registry_add_store (registry, "mem-test", test_store_get_type (), NCZ_PRIORITY_FALLBACK);
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_STORE, "mem-test"));
  g_assert_cmpuint (ncz_registry_lookup_store (registry, "mem-test", &error), ==,
                    test_store_get_type ());
  g_assert_no_error (error);

  ncz_registry_add_codec (registry, test_codec_get_type (), "test-codec", 65001,
                          NCZ_PRIORITY_PRIMARY);
  g_assert_true (ncz_registry_has_feature (registry, NCZ_FEATURE_HDF5_FILTER, "65001"));
  codec = ncz_registry_lookup_codec (registry, "test-codec", &error);
  g_assert_no_error (error);
  codec2 = ncz_registry_lookup_codec_by_filter_id (registry, 65001, &error);
  g_assert_no_error (error);
  g_assert_true (codec == codec2);

  /* A module found later with a higher priority is still preferred. */
  {
    g_autoptr(NczRegistry) mixed = fixture_registry ("priolow", NULL);

    ncz_registry_add_store (mixed, "fixture-prio", test_store_get_type (), NCZ_PRIORITY_NONE);
    g_assert_cmpstr (g_type_name (ncz_registry_lookup_store (mixed, "fixture-prio", &error)), ==,
                     "FixturePrioLowStore");
    g_assert_no_error (error);
  }
  {
    g_autoptr(NczRegistry) mixed = fixture_registry ("priolow", NULL);

    ncz_registry_add_store (mixed, "fixture-prio", test_store_get_type (), NCZ_PRIORITY_PRIMARY);
    g_assert_cmpuint (ncz_registry_lookup_store (mixed, "fixture-prio", &error), ==,
                      test_store_get_type ());
    g_assert_no_error (error);
    g_assert_cmpuint (count_loaded (mixed), ==, 0);
  }
}

static void
test_open_store (void)
{
  g_autoptr(NczRegistry) registry = ncz_registry_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = NULL;
  g_autoptr(NczUrl) zip_url = NULL;
  g_autoptr(NczStore) store = NULL;
  g_autoptr(NczStore) nothing = NULL;
  g_autoptr(NczFormat) format = NULL;
  g_autoptr(NczFormat) no_format = NULL;

  url = ncz_url_parse ("file:///tmp/ncz-test-registry#mode=nczarr,file", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "file");

  /* Nothing registered yet: file is a known driver. */
  nothing = ncz_registry_open_store (registry, url, NCZ_STORE_READ, NULL, &error);
  g_assert_null (nothing);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-store-file.so"));
  g_assert_true (g_str_has_prefix (error->message, ncz_url_get_original (url)));
  g_clear_error (&error);

  ncz_registry_add_store (registry, "file", test_store_get_type (), NCZ_PRIORITY_PRIMARY);
  store = ncz_registry_open_store (registry, url, NCZ_STORE_READ | NCZ_STORE_WRITE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_true (((TestStore *) store)->url == url);
  g_assert_cmpuint (((TestStore *) store)->flags, ==, NCZ_STORE_WRITE);

  /* GInitable failures come back as they are. */
  nothing = ncz_registry_open_store (registry, url, NCZ_STORE_CREATE, NULL, &error);
  g_assert_null (nothing);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);

  zip_url = ncz_url_parse ("file:///tmp/ncz-test-registry.zip#mode=zarr,zip", &error);
  g_assert_no_error (error);
  nothing = ncz_registry_open_store (registry, zip_url, NCZ_STORE_READ, NULL, &error);
  g_assert_null (nothing);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message,
                            "storage driver 'zip' is known but libncz-store-zip.so is not installed"));
  g_clear_error (&error);

  no_format = ncz_registry_new_format (registry, url, store, &error);
  g_assert_null (no_format);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, "libncz-backend-nczarr.so"));
  g_clear_error (&error);

  ncz_registry_add_format (registry, "nczarr", test_format_get_type (), NCZ_PRIORITY_PRIMARY);
  format = ncz_registry_new_format (registry, url, store, &error);
  g_assert_no_error (error);
  g_assert_nonnull (format);
  g_assert_true (((TestFormat *) format)->url == url);
  g_assert_true (((TestFormat *) format)->store == store);
}

static void
test_default_search_path (void)
{
  if (g_test_subprocess ())
    {
      NczRegistry *registry;
      g_auto(GStrv) path = NULL;
      g_auto(GStrv) sources = NULL;
      const char * const expected[] = { "/nonexistent/a", "/nonexistent/b", "/nonexistent/sys", NULL };
      const char * const expected_sources[] = {
        "NCZ_PLUGIN_PATH", "NCZ_PLUGIN_PATH", "NCZ_PLUGIN_SYSTEM_PATH", NULL
      };

      g_setenv ("NCZ_PLUGIN_PATH", ":/nonexistent/a::/nonexistent/b:/nonexistent/a:", TRUE);
      g_setenv ("NCZ_PLUGIN_SYSTEM_PATH", "/nonexistent/sys", TRUE);
      registry = ncz_registry_get_default ();
      g_assert_true (ncz_registry_get_default () == registry);
      path = ncz_registry_get_search_path (registry);
      assert_strv_equal ((const char * const *) path, expected);
      sources = ncz_registry_get_search_path_sources (registry);
      assert_strv_equal ((const char * const *) sources, expected_sources);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_default_system_path_empty (void)
{
  if (g_test_subprocess ())
    {
      g_auto(GStrv) path = NULL;

      g_unsetenv ("NCZ_PLUGIN_PATH");
      g_setenv ("NCZ_PLUGIN_SYSTEM_PATH", "", TRUE);
      path = ncz_registry_get_search_path (ncz_registry_get_default ());
      g_assert_cmpuint (g_strv_length (path), ==, 0);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_default_builtin_dir (void)
{
  if (g_test_subprocess ())
    {
      g_auto(GStrv) path = NULL;
      g_auto(GStrv) sources = NULL;
      const char * const expected[] = { NCZ_PLUGINS_DIR, NULL };
      const char * const expected_sources[] = { "built-in", NULL };

      g_unsetenv ("NCZ_PLUGIN_PATH");
      g_unsetenv ("NCZ_PLUGIN_SYSTEM_PATH");
      path = ncz_registry_get_search_path (ncz_registry_get_default ());
      assert_strv_equal ((const char * const *) path, expected);
      sources = ncz_registry_get_search_path_sources (ncz_registry_get_default ());
      assert_strv_equal ((const char * const *) sources, expected_sources);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_default_finds_fixture (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *good = g_build_filename (FIXTURE_DIR, "good", NULL);
      g_autoptr(GError) error = NULL;
      GType type;

      g_setenv ("NCZ_PLUGIN_PATH", good, TRUE);
      g_setenv ("NCZ_PLUGIN_SYSTEM_PATH", "", TRUE);
      type = ncz_registry_lookup_store (ncz_registry_get_default (), "fixture-good", &error);
      g_assert_no_error (error);
      g_assert_cmpstr (g_type_name (type), ==, "FixtureGoodStore");
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

typedef struct {
  NczRegistry *registry;
  gboolean use_default;
} ThreadData;

static gpointer
lookup_thread (gpointer data)
{
  ThreadData *td = data;

  for (int i = 0; i < 50; i++)
    {
      NczRegistry *registry = td->use_default ? ncz_registry_get_default () : td->registry;
      g_autoptr(GError) error = NULL;
      g_autoptr(NczCodec) codec = NULL;
      GType type;

      if (td->use_default)
        {
          g_assert_true (registry == ncz_registry_get_default ());
          continue;
        }
      type = ncz_registry_lookup_store (registry, "fixture-good", &error);
      g_assert_no_error (error);
      g_assert_cmpstr (g_type_name (type), ==, "FixtureGoodStore");
      codec = ncz_registry_lookup_codec_by_filter_id (registry, 65000, &error);
      g_assert_no_error (error);
      g_assert_nonnull (codec);
      g_assert_cmpuint (ncz_registry_lookup_store (registry, "fixture-lying", &error), ==,
                        G_TYPE_INVALID);
      g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST);
    }
  return NULL;
}

static void
test_threads (void)
{
  g_autoptr(NczRegistry) registry = fixture_registry ("good", "broken", NULL);
  ThreadData td = { registry, FALSE };
  ThreadData td_default = { NULL, TRUE };
  GThread *threads[8];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("lookup", lookup_thread, i % 2 == 0 ? &td : &td_default);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);

  g_assert_cmpuint (count_loaded (registry), ==, 2);
}

/* ncz-inspect-1.0 */

static char *
run_inspect_full (const char * const *args,
                  int                *exit_status,
                  char              **err);

static char *
run_inspect (const char * const *args,
             int                *exit_status)
{
  return run_inspect_full (args, exit_status, NULL);
}

static char *
run_inspect_full (const char * const *args,
                  int                *exit_status,
                  char              **err)
{
  g_autofree char *good = g_build_filename (FIXTURE_DIR, "good", NULL);
  g_autofree char *broken = g_build_filename (FIXTURE_DIR, "broken", NULL);
  g_autofree char *path = g_strjoin (G_SEARCHPATH_SEPARATOR_S, good, broken, NULL);
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int wait_status;

  envp = g_environ_setenv (envp, "NCZ_PLUGIN_PATH", path, TRUE);
  envp = g_environ_setenv (envp, "NCZ_PLUGIN_SYSTEM_PATH", "", TRUE);
  envp = g_environ_unsetenv (envp, "NCZ_PLUGIN_DISABLE");
  envp = g_environ_unsetenv (envp, "NCZ_PLUGIN_PRIORITY");

  g_ptr_array_add (argv, (gpointer) NCZ_INSPECT);
  for (gsize i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &out, err, &wait_status, &error);
  g_assert_no_error (error);
  *exit_status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  return out;
}

static void
test_inspect (void)
{
  g_autofree char *list = NULL, *failed = NULL, *json = NULL, *paths = NULL;
  g_autofree char *details = NULL, *bad_details = NULL, *missing = NULL;
  g_autofree char *tmpdir = NULL, *manifest = NULL, *module = NULL, *written = NULL;
  g_autofree char *reference = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  list = run_inspect ((const char *[]) { NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (list, "fixture-good"));
  g_assert_nonnull (strstr (list, "libncz-store-fixture-good.so"));
  g_assert_nonnull (strstr (list, "available"));
  g_assert_nonnull (strstr (list, "skipped"));
  g_assert_null (strstr (list, "loaded"));

  failed = run_inspect ((const char *[]) { "--failed", NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (failed, "manifest lies"));
  g_assert_nonnull (strstr (failed, "fixture device not present"));
  g_assert_nonnull (strstr (failed, "fixture-oldabi"));
  g_assert_null (strstr (failed, "fixture-codec"));

  json = run_inspect ((const char *[]) { "--json", "--kind=codec", NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (json, "["));
  g_assert_nonnull (strstr (json, "\"name\": \"fixture-codec\""));
  g_assert_nonnull (strstr (json, "\"provides\": [\"codec:fixture-codec\", \"hdf5-filter:65000\"]"));
  g_assert_null (strstr (json, "fixture-good"));

  paths = run_inspect ((const char *[]) { "--paths", NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (paths, FIXTURE_DIR));
  g_assert_nonnull (strstr (paths, "(NCZ_PLUGIN_PATH)"));

  details = run_inspect ((const char *[]) { "fixture-good", NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (details, "1.2.3"));
  g_assert_nonnull (strstr (details, "store:fixture-good"));
  g_assert_nonnull (strstr (details, "loaded"));

  /* By feature name. */
  bad_details = run_inspect ((const char *[]) { "lie", NULL }, &status);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (bad_details, "fixture-lying"));
  g_assert_nonnull (strstr (bad_details, "manifest lies"));

  missing = run_inspect ((const char *[]) { "nonesuch", NULL }, &status);
  g_assert_cmpint (status, ==, 1);

  /* known but not installed (the fixture path has no zip module): the
   * package to install, as opening a zip URL says */
  {
    g_autofree char *out = NULL, *err = NULL;

    out = run_inspect_full ((const char *[]) { "zip", NULL }, &status, &err);
    g_assert_cmpint (status, ==, 1);
    g_assert_cmpstr (out, ==, "");
    g_assert_cmpstr (err, ==, "ncz-inspect-1.0: storage driver 'zip' is known but "
                     "libncz-store-zip.so is not installed (apt install ncz-plugin-zip)\n");
    g_clear_pointer (&err, g_free);
    g_free (run_inspect_full ((const char *[]) { "nonesuch", NULL }, &status, &err));
    g_assert_nonnull (strstr (err, "no plugin named or providing 'nonesuch'"));
  }

  /* --manifest writes what the build wrote. */
  tmpdir = g_dir_make_tmp ("ncz-inspect-XXXXXX", &error);
  g_assert_no_error (error);
  manifest = g_build_filename (tmpdir, "out.plugin", NULL);
  module = g_build_filename (FIXTURE_DIR, "good", "libncz-store-fixture-good.so", NULL);
  g_free (run_inspect ((const char *[]) { "--manifest", module, "-o", manifest, NULL }, &status));
  g_assert_cmpint (status, ==, 0);
  g_file_get_contents (manifest, &written, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (written, "Module=libncz-store-fixture-good.so\n"));
  g_assert_nonnull (strstr (written, "Name=fixture-good\n"));
  {
    g_autofree char *abi_line = g_strdup_printf ("Abi=%d\n", NCZ_PLUGIN_ABI);
    g_assert_nonnull (strstr (written, abi_line));
  }
  g_assert_nonnull (strstr (written, "Provides=store:fixture-good\n"));
  {
    g_autofree char *ref_path = g_build_filename (FIXTURE_DIR, "good", "fixture-good.plugin", NULL);

    g_file_get_contents (ref_path, &reference, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (written, ==, reference);
  }
  g_remove (manifest);

  /* A module without the entry point its file name implies. */
  g_free (module);
  module = g_build_filename (FIXTURE_DIR, "broken", "libncz-store-fixture-nosym.so", NULL);
  g_free (run_inspect ((const char *[]) { "--manifest", module, "-o", manifest, NULL }, &status));
  g_assert_cmpint (status, ==, 1);
  g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
  g_rmdir (tmpdir);
}

int
main (int argc, char **argv)
{
  g_unsetenv ("NCZ_PLUGIN_DISABLE");
  g_unsetenv ("NCZ_PLUGIN_PRIORITY");

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/registry/scan/lists-manifests", test_scan_lists_manifests);
  g_test_add_func ("/registry/scan/generated-manifest", test_generated_manifest);
  g_test_add_func ("/registry/lazy/store", test_store_loads_lazily);
  g_test_add_func ("/registry/lazy/codec-by-id", test_codec_by_id_loads_only_its_module);
  g_test_add_func ("/registry/errors/missing-symbol", test_missing_symbol);
  g_test_add_func ("/registry/errors/wrong-abi", test_wrong_abi);
  g_test_add_func ("/registry/errors/lying-manifest", test_lying_manifest);
  g_test_add_func ("/registry/errors/failing-init", test_failing_init);
  g_test_add_func ("/registry/errors/name-mismatch", test_name_mismatch);
  g_test_add_func ("/registry/errors/not-installed", test_not_installed);
  g_test_add_func ("/registry/find-plugin", test_find_plugin);
  g_test_add_func ("/registry/duplicate-basename", test_duplicate_basename);
  g_test_add_func ("/registry/disabled", test_disabled);
  g_test_add_func ("/registry/priority", test_priority);
  g_test_add_func ("/registry/priority-help", test_priority_help);
  g_test_add_func ("/registry/builtin", test_builtin);
  g_test_add_func ("/registry/open-store", test_open_store);
  g_test_add_func ("/registry/default/search-path", test_default_search_path);
  g_test_add_func ("/registry/default/system-path-empty", test_default_system_path_empty);
  g_test_add_func ("/registry/default/builtin-dir", test_default_builtin_dir);
  g_test_add_func ("/registry/default/finds-fixture", test_default_finds_fixture);
  g_test_add_func ("/registry/threads", test_threads);
  g_test_add_func ("/registry/inspect", test_inspect);

  return g_test_run ();
}
