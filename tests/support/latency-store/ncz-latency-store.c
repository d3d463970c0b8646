/* ncz-latency-store.c: the "slowfile" store, a test-only storage module
 * that wraps the file store and waits before every read
 *
 * URL form: the file store's, with the storage driver chosen by the
 * fragment key "store=slowfile" and the delay in milliseconds in the
 * fragment key "latency_ms" (default 200):
 *
 *   file:///path/to/data.zarr#mode=nczarr,file&store=slowfile&latency_ms=300
 *
 * Every object read (read, ranged read, each read_many call, get_length)
 * waits the delay first, on the caller's GCancellable: a cancel during
 * the wait ends it at once with G_IO_ERROR_CANCELLED. With the fragment
 * key "latency_data_only", metadata objects (keys whose last part starts
 * with '.', such as .zarray) are read without delay: a dataset opens at
 * once and its chunk reads are slow. Listings, writes
 * and everything else go straight to the file store. Built for the tests
 * only (never installed); its directory is the meson variable
 * ncz_test_latency_store_dir, to put first in NCZ_PLUGIN_PATH.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

#define DEFAULT_LATENCY_MS 200

#define NCZ_TYPE_LATENCY_STORE (ncz_latency_store_get_type ())
G_DECLARE_FINAL_TYPE (NczLatencyStore, ncz_latency_store, NCZ, LATENCY_STORE, GObject)

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_slowfile_describe (void);

struct _NczLatencyStore
{
  GObject parent_instance;
  NczUrl *url;
  NczStoreFlags flags;
  NczStore *inner;
  guint latency_ms;
  gboolean data_only;
};

static gboolean
is_metadata_key (const char *key)
{
  const char *slash = strrchr (key, '/');
  return (slash ? slash[1] : key[0]) == '.';
}

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
};

static void ncz_latency_store_store_init (NczStoreInterface *iface);
static void ncz_latency_store_initable_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczLatencyStore, ncz_latency_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_latency_store_store_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      ncz_latency_store_initable_init))

/* Waits the store's delay, or less when @cancellable is cancelled:
 * FALSE with G_IO_ERROR_CANCELLED then. */
static gboolean
wait_latency (NczLatencyStore *self, GCancellable *cancellable, GError **error)
{
  GPollFD pfd;

  if (self->latency_ms == 0)
    return !g_cancellable_set_error_if_cancelled (cancellable, error);
  if (cancellable != NULL && g_cancellable_make_pollfd (cancellable, &pfd))
    {
      gint64 end = g_get_monotonic_time () + (gint64) self->latency_ms * 1000;
      gint64 left;

      while (!g_cancellable_is_cancelled (cancellable) &&
             (left = end - g_get_monotonic_time ()) > 0)
        g_poll (&pfd, 1, (gint) ((left + 999) / 1000));
      g_cancellable_release_fd (cancellable);
    }
  else
    g_usleep ((gulong) self->latency_ms * 1000);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

static GBytes *
latency_read (NczStore *store, const char *key, guint64 offset, gint64 length,
              GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);
  if (!(self->data_only && is_metadata_key (key)) && !wait_latency (self, cancellable, error))
    return NULL;
  return ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
}

static GPtrArray *
latency_read_ranges (NczStore *store, const char *key, const NczStoreRange *ranges,
                     guint n_ranges, GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);
  if (!(self->data_only && is_metadata_key (key)) && !wait_latency (self, cancellable, error))
    return NULL;
  return ncz_store_read_ranges (self->inner, key, ranges, n_ranges, cancellable, error);
}

static GPtrArray *
latency_read_many (NczStore *store, const char * const *keys, GCancellable *cancellable,
                   GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);
  gboolean slow = !self->data_only;

  for (guint i = 0; !slow && keys[i] != NULL; i++)
    slow = !is_metadata_key (keys[i]);
  /* the requests of one call are in flight together: one delay */
  if (slow && !wait_latency (self, cancellable, error))
    return NULL;
  return ncz_store_read_many (self->inner, keys, cancellable, error);
}

static gboolean
latency_get_length (NczStore *store, const char *key, guint64 *length,
                    GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);
  if (!(self->data_only && is_metadata_key (key)) && !wait_latency (self, cancellable, error))
    return FALSE;
  return ncz_store_get_length (self->inner, key, length, cancellable, error);
}

static gboolean
latency_write (NczStore *store, const char *key, GBytes *data, GCancellable *cancellable,
               GError **error)
{
  return ncz_store_write (NCZ_LATENCY_STORE (store)->inner, key, data, cancellable, error);
}

static gboolean
latency_write_many (NczStore *store, const char * const *keys, GBytes * const *data,
                    guint n, GCancellable *cancellable, GError **error)
{
  return ncz_store_write_many (NCZ_LATENCY_STORE (store)->inner, keys, data, n, cancellable,
                               error);
}

static gboolean
latency_remove (NczStore *store, const char *key, GCancellable *cancellable, GError **error)
{
  return ncz_store_remove (NCZ_LATENCY_STORE (store)->inner, key, cancellable, error);
}

static char **
latency_list (NczStore *store, const char *prefix, GCancellable *cancellable, GError **error)
{
  return ncz_store_list (NCZ_LATENCY_STORE (store)->inner, prefix, cancellable, error);
}

static char **
latency_list_page (NczStore *store, const char *prefix, const char *token, guint max_names,
                   char **next_token, GCancellable *cancellable, GError **error)
{
  return ncz_store_list_page (NCZ_LATENCY_STORE (store)->inner, prefix, token, max_names,
                              next_token, cancellable, error);
}

static gboolean
latency_commit (NczStore *store, GCancellable *cancellable, GError **error)
{
  return ncz_store_commit (NCZ_LATENCY_STORE (store)->inner, cancellable, error);
}

static void
latency_discard (NczStore *store)
{
  ncz_store_discard (NCZ_LATENCY_STORE (store)->inner);
}

static guint
latency_get_io_depth_hint (NczStore *store)
{
  return ncz_store_get_io_depth_hint (NCZ_LATENCY_STORE (store)->inner);
}

static void
ncz_latency_store_store_init (NczStoreInterface *iface)
{
  iface->read = latency_read;
  iface->read_ranges = latency_read_ranges;
  iface->read_many = latency_read_many;
  iface->get_length = latency_get_length;
  iface->write = latency_write;
  iface->write_many = latency_write_many;
  iface->remove = latency_remove;
  iface->list = latency_list;
  iface->list_page = latency_list_page;
  iface->commit = latency_commit;
  iface->discard = latency_discard;
  iface->get_io_depth_hint = latency_get_io_depth_hint;
}

/* The URL of the wrapped file store: without the "store" key. */
static char *
inner_url_text (NczUrl *url)
{
  const char *text = ncz_url_get_original (url);
  const char *hash = strchr (text, '#');
  GString *out;
  g_auto(GStrv) pairs = NULL;

  if (hash == NULL)
    return g_strdup (text);
  out = g_string_new_len (text, hash - text + 1);
  pairs = g_strsplit (hash + 1, "&", -1);
  for (guint i = 0, n = 0; pairs[i] != NULL; i++)
    {
      if (g_str_has_prefix (pairs[i], "store=") || strcmp (pairs[i], "store") == 0)
        continue;
      if (n++ > 0)
        g_string_append_c (out, '&');
      g_string_append (out, pairs[i]);
    }
  return g_string_free (out, FALSE);
}

static gboolean
ncz_latency_store_initable_init_impl (GInitable *initable, GCancellable *cancellable,
                                      GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (initable);
  g_autofree char *text = NULL;
  g_autoptr(NczUrl) inner_url = NULL;
  const char *ms;

  if (self->url == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "the slowfile store needs a URL");
      return FALSE;
    }
  ms = ncz_url_get_fragment_value (self->url, "latency_ms");
  if (ms != NULL)
    {
      guint64 v = 0;
      if (!g_ascii_string_to_unsigned (ms, 10, 0, 600000, &v, NULL))
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "%s: latency_ms must be a number of milliseconds up to 600000, not "
                       "'%s'", ncz_url_get_original (self->url), ms);
          return FALSE;
        }
      self->latency_ms = (guint) v;
    }
  self->data_only = ncz_url_has_fragment_key (self->url, "latency_data_only");
  text = inner_url_text (self->url);
  inner_url = ncz_url_parse (text, error);
  if (inner_url == NULL)
    return FALSE;
  self->inner = ncz_registry_open_store (ncz_registry_get_default (), inner_url, self->flags,
                                         cancellable, error);
  return self->inner != NULL;
}

static void
ncz_latency_store_initable_init (GInitableIface *iface)
{
  iface->init = ncz_latency_store_initable_init_impl;
}

static void
ncz_latency_store_get_property (GObject *object, guint prop_id, GValue *value,
                                GParamSpec *pspec)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (object);
  if (ncz_store_get_construct_property (pspec, value, self->url, self->flags))
    return;
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_latency_store_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (object);
  if (ncz_store_set_construct_property (pspec, value, &self->url, &self->flags))
    return;
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_latency_store_finalize (GObject *object)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (object);
  g_clear_object (&self->inner);
  g_clear_object (&self->url);
  G_OBJECT_CLASS (ncz_latency_store_parent_class)->finalize (object);
}

static void
ncz_latency_store_class_init (NczLatencyStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ncz_latency_store_get_property;
  object_class->set_property = ncz_latency_store_set_property;
  object_class->finalize = ncz_latency_store_finalize;
  ncz_store_class_override_properties (object_class, PROP_URL, PROP_FLAGS);
}

static void
ncz_latency_store_init (NczLatencyStore *self)
{
  self->latency_ms = DEFAULT_LATENCY_MS;
}

static gboolean
register_slowfile (NczRegistry *registry, GError **error)
{
  ncz_registry_add_store (registry, "slowfile", NCZ_TYPE_LATENCY_STORE, NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc slowfile_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "slowfile",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "File storage with a delay before each read (tests only)",
  .register_func = register_slowfile,
};

const NczPluginDesc *
ncz_plugin_slowfile_describe (void)
{
  return &slowfile_plugin_desc;
}
