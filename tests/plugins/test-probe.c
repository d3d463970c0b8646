/* test-probe.c: the registry chooses a dataset's format before anything
 * else, with the fewest requests
 *
 * A counting store (wrapping a real one) and a counting input stream count
 * the requests made before the format is chosen: existence checks of
 * marker keys for a store, one read of the first bytes for a file. No
 * module is loaded to probe.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include "ncz-known-plugins.h"   /* generated from meson.build's plugin list */

/* ---- a store that counts the requests it forwards ---- */

typedef struct {
  GObject parent_instance;
  NczStore *inner;
  guint n_lengths;   /* get_length: existence checks */
  guint n_reads;
  guint n_lists;
} CountingStore;
typedef struct { GObjectClass parent_class; } CountingStoreClass;

static GType counting_store_get_type (void);
static void counting_store_iface_init (NczStoreInterface *iface);
G_DEFINE_TYPE_WITH_CODE (CountingStore, counting_store, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE, counting_store_iface_init))
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CountingStore, g_object_unref)

static GBytes *
counting_read (NczStore *store, const char *key, guint64 offset, gint64 length,
               GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  self->n_reads++;
  return ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
}

static gboolean
counting_get_length (NczStore *store, const char *key, guint64 *length,
                     GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  self->n_lengths++;
  return ncz_store_get_length (self->inner, key, length, cancellable, error);
}

static char **
counting_list (NczStore *store, const char *prefix, GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  self->n_lists++;
  return ncz_store_list (self->inner, prefix, cancellable, error);
}

static void
counting_store_iface_init (NczStoreInterface *iface)
{
  iface->read = counting_read;
  iface->get_length = counting_get_length;
  iface->list = counting_list;
}

static void
counting_store_dispose (GObject *object)
{
  g_clear_object (&((CountingStore *) object)->inner);
  G_OBJECT_CLASS (counting_store_parent_class)->dispose (object);
}

enum { PROP_0, PROP_URL, PROP_FLAGS };

/* "url" and "flags" are those of the wrapped store */
static void
counting_store_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CountingStore *self = (CountingStore *) object;

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->inner ? ncz_store_get_url (self->inner) : NULL);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->inner ? ncz_store_get_flags (self->inner) : 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
counting_store_set_property (GObject *object, guint prop_id, const GValue *value,
                             GParamSpec *pspec)
{
  if (prop_id != PROP_URL && prop_id != PROP_FLAGS)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
counting_store_class_init (CountingStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = counting_store_dispose;
  object_class->get_property = counting_store_get_property;
  object_class->set_property = counting_store_set_property;
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
counting_store_init (CountingStore *self)
{
}

static guint
n_requests (CountingStore *store)
{
  return store->n_lengths + store->n_reads + store->n_lists;
}

/* ---- an input stream that counts its reads ---- */

typedef struct {
  GInputStream parent_instance;
  GBytes *data;
  gsize position;
  guint n_reads;
} CountingStream;
typedef struct { GInputStreamClass parent_class; } CountingStreamClass;

static GType counting_stream_get_type (void);
G_DEFINE_TYPE (CountingStream, counting_stream, G_TYPE_INPUT_STREAM)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CountingStream, g_object_unref)

static gssize
counting_stream_read (GInputStream *stream, void *buffer, gsize count,
                      GCancellable *cancellable, GError **error)
{
  CountingStream *self = (CountingStream *) stream;
  gsize size;
  const guint8 *data = g_bytes_get_data (self->data, &size);
  gsize n = MIN (count, size - self->position);

  self->n_reads++;
  memcpy (buffer, data + self->position, n);
  self->position += n;
  return (gssize) n;
}

static void
counting_stream_finalize (GObject *object)
{
  g_bytes_unref (((CountingStream *) object)->data);
  G_OBJECT_CLASS (counting_stream_parent_class)->finalize (object);
}

static void
counting_stream_class_init (CountingStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = counting_stream_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = counting_stream_read;
}

static void
counting_stream_init (CountingStream *self)
{
}

static CountingStream *
counting_stream_new (GBytes *data)
{
  CountingStream *self = g_object_new (counting_stream_get_type (), NULL);

  self->data = g_bytes_ref (data);
  return self;
}

/* ---- helpers ---- */

static const guint8 hdf5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

/* @size pseudo-random bytes (fixed seed) with the HDF5 signature at
 * @offset, or none when @offset is -1. */
static GBytes *
make_file_bytes (gsize size, gssize offset)
{
  guint8 *data = g_malloc (size);
  GRand *rand = g_rand_new_with_seed (20261125);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_rand_int_range (rand, 0, 256);
  /* a random file must not hold the signature by chance */
  for (gsize i = 0; i + 1 < size; i++)
    if (data[i] == 0x89 && data[i + 1] == 'H')
      data[i + 1] = 'h';
  if (offset >= 0)
    memcpy (data + offset, hdf5_signature, sizeof hdf5_signature);
  g_rand_free (rand);
  return g_bytes_new_take (data, size);
}

static char *
write_temp_file (const char *name, GBytes *bytes)
{
  char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
  return path;
}

/* A dataset written by Ncz at @path (NCZarr, or pure Zarr with @zarr). */
static void
make_dataset (const char *path, gboolean zarr)
{
  g_autofree char *url = g_strdup_printf ("%s%s", path, zarr ? "#mode=zarr,file" : "");
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *dim;
  NczDimension *dims[1];

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  g_assert_no_error (error);
  dims[0] = dim;
  g_assert_nonnull (ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, dims, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* The store at @path, opened for reading, wrapped in a counting store. */
static CountingStore *
counting_store_for (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse (path, &error);
  CountingStore *store;

  g_assert_no_error (error);
  store = g_object_new (counting_store_get_type (), NULL);
  store->inner = ncz_registry_open_store (ncz_registry_get_default (), url, NCZ_STORE_READ,
                                          NULL, &error);
  g_assert_no_error (error);
  return store;
}

static char *
temp_dir (const char *name)
{
  g_autofree char *parent = g_dir_make_tmp ("ncz-probe-XXXXXX", NULL);

  g_assert_nonnull (parent);
  return g_build_filename (parent, name, NULL);
}

static gboolean
plugin_is_loaded (NczRegistry *registry, const char *name)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);

  for (guint i = 0; i < plugins->len; i++)
    if (strcmp (ncz_plugin_info_get_name (g_ptr_array_index (plugins, i)), name) == 0)
      return ncz_plugin_info_is_loaded (g_ptr_array_index (plugins, i));
  g_assert_not_reached ();
}

/* A registry of its own on the build's plugin directories, so that which
 * modules are loaded can be checked. */
static NczRegistry *
fresh_registry (void)
{
  g_auto(GStrv) dirs = g_strsplit (g_getenv ("NCZ_PLUGIN_PATH"), ":", -1);

  return ncz_registry_new ((const char * const *) dirs);
}

/* ---- stores ---- */

static void
check_store_dataset (gboolean zarr)
{
  g_autofree char *path = temp_dir (zarr ? "pure.zarr" : "nczarr.file");
  g_autoptr(NczRegistry) registry = fresh_registry ();
  g_autoptr(CountingStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczUrl) url = NULL;

  make_dataset (path, zarr);
  store = counting_store_for (path);

  format = ncz_registry_probe_store (registry, NCZ_STORE (store), path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (format, ==, "nczarr");
  /* one existence check (.zgroup), nothing read or listed */
  g_assert_cmpuint (store->n_lengths, ==, 1);
  g_assert_cmpuint (n_requests (store), ==, 1);
  /* chosen from the manifest: the module is not loaded to probe */
  g_assert_false (plugin_is_loaded (registry, "nczarr"));

  /* the whole open path chooses the same, and the dataset opens */
  url = ncz_url_parse (path, &error);
  g_assert_no_error (error);
  g_clear_pointer (&format, g_free);
  format = ncz_registry_choose_format (registry, url, NCZ_STORE (store), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (format, ==, "nczarr");
  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v"));
  /* the backend tells NCZarr from pure Zarr by what .zgroup holds */
  g_assert_cmpstr (ncz_format_get_name (ncz_dataset_get_format (ds)), ==,
                   zarr ? "zarr" : "nczarr");
}

static void
test_store_nczarr (void)
{
  check_store_dataset (FALSE);
}

static void
test_store_pure_zarr (void)
{
  check_store_dataset (TRUE);
}

/* A store whose root is a Zarr v2 array: the second marker. */
static void
test_store_zarr_array (void)
{
  g_autofree char *path = temp_dir ("array.zarr");
  g_autofree char *zarray = g_build_filename (path, ".zarray", NULL);
  g_autoptr(CountingStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  g_file_set_contents (zarray, "{\"zarr_format\": 2}", -1, &error);
  g_assert_no_error (error);
  store = counting_store_for (path);
  format = ncz_registry_probe_store (ncz_registry_get_default (), NCZ_STORE (store), path,
                                     NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (format, ==, "nczarr");
  g_assert_cmpuint (store->n_lengths, ==, 2);
  g_assert_cmpuint (n_requests (store), ==, 2);
}

/* Zarr v3: recognised by zarr.json, not read yet: a clear error naming
 * what was found, after the markers of the formats before it. */
static void
test_store_zarr_v3 (void)
{
  g_autofree char *path = temp_dir ("v3.zarr");
  g_autofree char *zarr_json = g_build_filename (path, "zarr.json", NULL);
  g_autoptr(CountingStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;
  g_autoptr(NczDataset) ds = NULL;

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  g_file_set_contents (zarr_json, "{\"zarr_format\": 3, \"node_type\": \"group\"}", -1, &error);
  g_assert_no_error (error);
  store = counting_store_for (path);
  format = ncz_registry_probe_store (ncz_registry_get_default (), NCZ_STORE (store), path,
                                     NULL, &error);
  g_assert_null (format);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "found zarr.json"));
  g_assert_nonnull (strstr (error->message, "zarr3"));
  /* .zgroup, .zarray, .nczarr, then zarr.json: four existence checks */
  g_assert_cmpuint (store->n_lengths, ==, 4);
  g_assert_cmpuint (n_requests (store), ==, 4);
  g_clear_error (&error);

  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_nonnull (strstr (error->message, "zarr.json"));
}

/* Nothing claims an empty directory: the error lists the markers. */
static void
test_store_unclaimed (void)
{
  g_autofree char *path = temp_dir ("empty");
  g_autoptr(CountingStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;
  g_autoptr(NczDataset) ds = NULL;

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  store = counting_store_for (path);
  format = ncz_registry_probe_store (ncz_registry_get_default (), NCZ_STORE (store), path,
                                     NULL, &error);
  g_assert_null (format);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_cmpuint (n_requests (store), ==, 4);
  g_clear_error (&error);

  /* no silent fallback to nczarr on the open path either */
  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, ".zgroup"));
  g_assert_nonnull (strstr (error->message, ".zarray"));
  g_assert_nonnull (strstr (error->message, "zarr.json"));
}

/* ---- files ---- */

static void
check_file_probe (gsize size, gssize offset, const char *expect)
{
  g_autoptr(GBytes) bytes = make_file_bytes (size, offset);
  g_autoptr(CountingStream) stream = counting_stream_new (bytes);
  g_autoptr(NczRegistry) registry = fresh_registry ();
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;

  format = ncz_registry_probe_stream (registry, G_INPUT_STREAM (stream), "test-file",
                                      NULL, &error);
  /* one small read of the first bytes, whatever the outcome */
  g_assert_cmpuint (stream->n_reads, ==, 1);
  g_assert_cmpuint (stream->position, <=, 64 * 1024);
  if (expect != NULL)
    {
      g_assert_no_error (error);
      g_assert_cmpstr (format, ==, expect);
    }
  else
    {
      g_assert_null (format);
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
      g_assert_nonnull (strstr (error->message, "test-file"));
      /* says what was looked for */
      g_assert_nonnull (strstr (error->message, "hdf5 signature 894844460d0a1a0a"));
      g_assert_nonnull (strstr (error->message, "0, 512, 1024"));
    }
  g_assert_false (plugin_is_loaded (registry, "nczarr"));
}

static void
test_file_hdf5_at_0 (void)
{
  check_file_probe (4096, 0, "hdf5");
}

static void
test_file_hdf5_at_512 (void)
{
  check_file_probe (4096, 512, "hdf5");
}

static void
test_file_hdf5_at_32768 (void)
{
  check_file_probe (100000, 32768, "hdf5");
}

static void
test_file_random (void)
{
  check_file_probe (3000, -1, NULL);
  /* larger than the first read: still one read */
  check_file_probe (300000, -1, NULL);
}

/* The HDF5 signature is recognised with no HDF5 module installed, and
 * opening gives "not installed" with the package to install; that
 * package is one docs/packaging.md defines. */
static void
test_hdf5_not_installed (void)
{
  g_autoptr(GBytes) bytes = make_file_bytes (2048, 512);
  g_autofree char *path = write_temp_file ("probe-test.h5", bytes);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autofree char *packaging_path = NULL;
  g_autofree char *packaging = NULL;

  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "libncz-backend-hdf5.so"));
  g_assert_nonnull (strstr (error->message, "ncz-plugin-hdf5"));
  /* and how it was recognised */
  g_assert_nonnull (strstr (error->message, "found the signature of format 'hdf5' at offset 512"));
  g_clear_error (&error);

  packaging_path = g_build_filename (g_getenv ("NCZ_SOURCE_ROOT"), "docs", "packaging.md", NULL);
  g_file_get_contents (packaging_path, &packaging, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (packaging, "`ncz-plugin-hdf5`"));
  g_assert_nonnull (strstr (packaging, "libncz-backend-hdf5.so"));
  g_unlink (path);
}

/* A random regular file opened without a mode: an error naming what was
 * looked for, not an attempt at NCZarr. */
static void
test_open_random_file (void)
{
  g_autoptr(GBytes) bytes = make_file_bytes (1000, -1);
  g_autofree char *path = write_temp_file ("probe-test.bin", bytes);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  ds = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "894844460d0a1a0a"));
  g_unlink (path);
}

/* ---- the URL decides without any request ---- */

static void
test_url_decides (void)
{
  NczRegistry *registry = ncz_registry_get_default ();
  static const struct {
    const char *url;
    const char *format;
  } cases[] = {
    { "/nonexistent/a#mode=zarr", "nczarr" },
    { "/nonexistent/a#mode=nczarr,file", "nczarr" },
    { "file:///nonexistent/a#xarray", "nczarr" },
    { "/nonexistent/a#mode=noxarray", "nczarr" },
    { "file:///nonexistent/a#format=hdf5", "hdf5" },
    { "file:///nonexistent/a#mode=zarr&format=fixture", "fixture" },
    { "/nonexistent/a", NULL },
    { "/nonexistent/a#mode=file", NULL },
    { "file:///nonexistent/a.zip", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczUrl) url = ncz_url_parse (cases[i].url, &error);
      g_autofree char *format = NULL;

      g_assert_no_error (error);
      format = ncz_registry_format_from_url (registry, url);
      g_assert_cmpstr (format, ==, cases[i].format);
    }
}

/* ---- manifests carry the probe ---- */

static const char * const fixture_probe_lines[] = {
  "Signature=4e435a00ff4658",
  "SignatureOffsets=0;100;256;...",
  "Markers=fixture.marker;meta/fixture.json",
  "NeedsStore=false",
  NULL
};

static void
test_manifest_round_trip (void)
{
  const char *dirs[] = { FIXTURE_PROBE_DIR, NULL };
  g_autoptr(NczRegistry) registry = ncz_registry_new (dirs);
  g_autofree char *manifest_path = g_build_filename (FIXTURE_PROBE_DIR, "fixture-probe.plugin", NULL);
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) registered_lines = NULL;
  g_autofree char *format = NULL;
  g_autofree char *markers = NULL;
  g_autofree char *provides = NULL;
  g_autoptr(GPtrArray) plugins = NULL;
  guint8 head[600] = { 0 };
  static const guint8 sig[] = { 'N', 'C', 'Z', 0x00, 0xff, 'F', 'X' };

  /* ncz-inspect-1.0 --manifest wrote the module's probe */
  g_key_file_load_from_file (keyfile, manifest_path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  provides = g_key_file_get_value (keyfile, "Plugin", "Provides", NULL);
  g_assert_cmpstr (provides, ==, "format:fixture-fmt");
  markers = g_key_file_get_value (keyfile, "Format fixture-fmt", "Markers", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (markers, ==, "fixture.marker;meta/fixture.json");
  g_assert_false (g_key_file_get_boolean (keyfile, "Format fixture-fmt", "NeedsStore", &error));
  g_assert_no_error (error);

  /* the registry reads it back without loading the module */
  lines = ncz_registry_describe_format_probe (registry, "fixture-fmt");
  g_assert_nonnull (lines);
  g_assert_cmpstrv (lines, fixture_probe_lines);
  g_assert_false (ncz_registry_format_needs_store (registry, "fixture-fmt"));
  g_assert_false (plugin_is_loaded (registry, "fixture-probe"));

  /* and probes with it: the signature at 512, a doubling of 256 */
  memcpy (head + 512, sig, sizeof sig);
  {
    g_autoptr(GBytes) bytes = g_bytes_new (head, sizeof head);
    g_autoptr(CountingStream) stream = counting_stream_new (bytes);

    format = ncz_registry_probe_stream (registry, G_INPUT_STREAM (stream), "fixture", NULL,
                                        &error);
    g_assert_no_error (error);
    g_assert_cmpstr (format, ==, "fixture-fmt");
    g_assert_cmpuint (stream->n_reads, ==, 1);
  }
  g_assert_false (plugin_is_loaded (registry, "fixture-probe"));

  /* the same claims once the module registered them itself */
  plugins = ncz_registry_list_plugins (registry);
  g_assert_cmpuint (plugins->len, ==, 1);
  g_assert_true (ncz_registry_load_plugin (registry, g_ptr_array_index (plugins, 0), &error));
  g_assert_no_error (error);
  registered_lines = ncz_registry_describe_format_probe (registry, "fixture-fmt");
  g_assert_cmpstrv (registered_lines, fixture_probe_lines);
}

/* Probe keys a manifest gets wrong make the registry skip the manifest. */
static void
test_manifest_bad_probe (void)
{
  static const char *bad[] = {
    "Signature=89zz\nSignatureOffsets=0\n",
    "Signature=8948\n",
    "Signature=8948\nSignatureOffsets=512;0\n",
    "Signature=\nSignatureOffsets=0\n",
    "Markers=../escape\n",
    "NeedsStore=perhaps\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("ncz-probe-manifest-XXXXXX", NULL);
      g_autofree char *path = g_build_filename (dir, "badprobe.plugin", NULL);
      g_autofree char *text = g_strdup_printf ("[Plugin]\nName=badprobe\n"
                                               "Module=libncz-backend-badprobe.so\nAbi=%d\n"
                                               "Provides=format:badprobe\n\n"
                                               "[Format badprobe]\n%s",
                                               NCZ_PLUGIN_ABI, bad[i]);
      const char *dirs[] = { dir, NULL };
      g_autoptr(NczRegistry) registry = NULL;
      g_autoptr(GPtrArray) plugins = NULL;
      g_autoptr(GError) error = NULL;
      const GError *why;

      g_file_set_contents (path, text, -1, &error);
      g_assert_no_error (error);
      registry = ncz_registry_new (dirs);
      plugins = ncz_registry_list_plugins (registry);
      g_assert_cmpuint (plugins->len, ==, 1);
      g_assert_cmpint (ncz_plugin_info_get_status (g_ptr_array_index (plugins, 0)), ==,
                       NCZ_PLUGIN_STATUS_SKIPPED);
      why = ncz_plugin_info_get_error (g_ptr_array_index (plugins, 0));
      g_assert_nonnull (why);
      g_assert_true (g_error_matches (why, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST));
      g_assert_nonnull (strstr (why->message, "[Format badprobe]"));
      g_assert_null (ncz_registry_describe_format_probe (registry, "badprobe"));
      g_unlink (path);
      g_rmdir (dir);
    }
}

/* The known formats table carries probes: HDF5 and Zarr v3 are described
 * even though no module for them is installed. */
static void
test_known_probes (void)
{
  g_autoptr(NczRegistry) registry = ncz_registry_new (NULL);
  g_auto(GStrv) hdf5 = ncz_registry_describe_format_probe (registry, "hdf5");
  g_auto(GStrv) zarr3 = ncz_registry_describe_format_probe (registry, "zarr3");
  g_auto(GStrv) nczarr = ncz_registry_describe_format_probe (registry, "nczarr");
  const char * const hdf5_lines[] = {
    "Modes=bytes", "Signature=894844460d0a1a0a", "SignatureOffsets=0;512;...",
    "NeedsStore=false", NULL
  };

  g_assert_cmpstrv (hdf5, hdf5_lines);
  g_assert_true (g_strv_contains ((const char * const *) zarr3, "Markers=zarr.json"));
  g_assert_true (g_strv_contains ((const char * const *) nczarr,
                                  "Modes=nczarr;zarr;xarray;noxarray"));
  g_assert_null (ncz_registry_describe_format_probe (registry, "no-such-format"));
  g_assert_false (ncz_registry_format_needs_store (registry, "hdf5"));
  g_assert_true (ncz_registry_format_needs_store (registry, "nczarr"));
}

/* Every module this build makes is in the known-plugin table, under its
 * plugin name, module file and features, so that the "not installed"
 * hint names the module and package that really exist. */
static void
test_known_table_matches_manifests (void)
{
  g_autoptr(NczRegistry) registry = fresh_registry ();
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  guint n_checked = 0;

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      const char *name = ncz_plugin_info_get_name (info);
      g_autofree char *module = g_path_get_basename (ncz_plugin_info_get_filename (info));
      const NczKnownPlugin *known = NULL;
      g_autofree char *expect_module = NULL;
      g_auto(GStrv) known_provides = NULL;
      const char * const *provides = ncz_plugin_info_get_provides (info);

      for (gsize j = 0; j < G_N_ELEMENTS (ncz_known_plugins); j++)
        if (strcmp (ncz_known_plugins[j].name, name) == 0)
          known = &ncz_known_plugins[j];
      if (known == NULL)
        g_error ("plugin '%s' (%s) is missing from ncz_known_plugins in meson.build",
                 name, module);
      expect_module = g_strdup_printf ("libncz-%s.%s", known->module, G_MODULE_SUFFIX);
      g_assert_cmpstr (module, ==, expect_module);
      g_assert_cmpstr (known->package, ==, name);
      known_provides = g_strsplit (known->provides, ";", -1);
      g_assert_cmpstrv (provides, known_provides);
      n_checked++;
    }
  /* the file store, the nczarr backend and the codec modules at least */
  g_assert_cmpuint (n_checked, >=, 3);
}

/* These tests are about what happens when the HDF5 format is recognised
 * but its module is not installed (a packager's split): the build's HDF5
 * module is left off the plugin path. */
static void
hide_hdf5_module (void)
{
  const char *path = g_getenv ("NCZ_PLUGIN_PATH");
  g_auto(GStrv) dirs = NULL;
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  g_autofree char *joined = NULL;

  if (path == NULL)
    return;
  dirs = g_strsplit (path, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; dirs[i] != NULL; i++)
    if (!g_str_has_suffix (dirs[i], "/backends/hdf5"))
      g_ptr_array_add (kept, dirs[i]);
  g_ptr_array_add (kept, NULL);
  joined = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, (char **) kept->pdata);
  g_setenv ("NCZ_PLUGIN_PATH", joined, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  hide_hdf5_module ();

  g_test_add_func ("/probe/store/nczarr", test_store_nczarr);
  g_test_add_func ("/probe/store/pure-zarr", test_store_pure_zarr);
  g_test_add_func ("/probe/store/zarr-array", test_store_zarr_array);
  g_test_add_func ("/probe/store/zarr-v3", test_store_zarr_v3);
  g_test_add_func ("/probe/store/unclaimed", test_store_unclaimed);
  g_test_add_func ("/probe/file/hdf5-at-0", test_file_hdf5_at_0);
  g_test_add_func ("/probe/file/hdf5-at-512", test_file_hdf5_at_512);
  g_test_add_func ("/probe/file/hdf5-at-32768", test_file_hdf5_at_32768);
  g_test_add_func ("/probe/file/random", test_file_random);
  g_test_add_func ("/probe/open/hdf5-not-installed", test_hdf5_not_installed);
  g_test_add_func ("/probe/open/random-file", test_open_random_file);
  g_test_add_func ("/probe/url-decides", test_url_decides);
  g_test_add_func ("/probe/manifest/round-trip", test_manifest_round_trip);
  g_test_add_func ("/probe/manifest/bad-probe", test_manifest_bad_probe);
  g_test_add_func ("/probe/known", test_known_probes);
  g_test_add_func ("/probe/known-table-matches-manifests", test_known_table_matches_manifests);

  return g_test_run ();
}
