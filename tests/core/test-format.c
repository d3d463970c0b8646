/* test-format.c: see test-format.h
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "test-format.h"
#include "ncz-model-private.h"

#define FTEST_TYPE_FORMAT (ftest_format_get_type ())
G_DECLARE_FINAL_TYPE (FtestFormat, ftest_format, FTEST, FORMAT, GObject)

struct _FtestFormat
{
  GObject parent_instance;
  NczUrl *url;
  NczStore *store;
};

static guint n_encoded;
static guint n_syncs;

static void ftest_format_iface_init (NczFormatInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (FtestFormat, ftest_format, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT, ftest_format_iface_init))

enum { PROP_0, PROP_URL, PROP_STORE };

static void
ftest_set_property (GObject *o, guint id, const GValue *v, GParamSpec *p)
{
  FtestFormat *self = FTEST_FORMAT (o);
  if (id == PROP_URL)
    self->url = g_value_dup_object (v);
  else if (id == PROP_STORE)
    self->store = g_value_dup_object (v);
}

static void
ftest_get_property (GObject *o, guint id, GValue *v, GParamSpec *p)
{
  FtestFormat *self = FTEST_FORMAT (o);
  if (id == PROP_URL)
    g_value_set_object (v, self->url);
  else if (id == PROP_STORE)
    g_value_set_object (v, self->store);
}

static void
ftest_finalize (GObject *o)
{
  FtestFormat *self = FTEST_FORMAT (o);
  g_clear_object (&self->url);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (ftest_format_parent_class)->finalize (o);
}

static void
ftest_format_class_init (FtestFormatClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->set_property = ftest_set_property;
  oc->get_property = ftest_get_property;
  oc->finalize = ftest_finalize;
  g_object_class_override_property (oc, PROP_URL, "url");
  g_object_class_override_property (oc, PROP_STORE, "store");
}

static void
ftest_format_init (FtestFormat *self)
{
}

static const char *
ftest_get_name (NczFormat *f)
{
  return "ftest";
}

static gboolean
ftest_open (NczFormat *f, NczDataset *ds, GCancellable *c, GError **error)
{
  return TRUE;
}

static gboolean
ftest_sync (NczFormat *f, NczDataset *ds, GCancellable *c, GError **error)
{
  g_atomic_int_inc (&n_syncs);
  return TRUE;
}

static char *
chunk_key (NczVariable *v, const guint64 *index)
{
  GString *s = g_string_new (ncz_variable_get_name (v));
  guint n = ncz_variable_get_n_dimensions (v);
  g_string_append_c (s, '/');
  if (n == 0)
    g_string_append_c (s, '0');
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? "." : "", index[i]);
  return g_string_free (s, FALSE);
}

/* Runs the chain forwards or backwards; working = visible. */
static GBytes *
run_chain (NczVariable *v, GBytes *data, gboolean encode, GError **error)
{
  GPtrArray *chain = ncz_variable_peek_filters (v);
  GBytes *cur = g_bytes_ref (data);
  guint n = chain ? chain->len : 0;

  for (guint k = 0; k < n; k++)
    {
      NczFilterSpec *f = g_ptr_array_index (chain, encode ? k : n - 1 - k);
      GBytes *next;
      if (f->codec == NULL)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
                       "codec not available: %s", f->codec_id);
          g_bytes_unref (cur);
          return NULL;
        }
      next = encode ? ncz_codec_encode (f->codec, (const guint *) f->visible->data,
                                        f->visible->len, cur, error)
                    : ncz_codec_decode (f->codec, (const guint *) f->visible->data,
                                        f->visible->len, cur, error);
      g_bytes_unref (cur);
      if (next == NULL)
        return NULL;
      cur = next;
    }
  return cur;
}

static GBytes *
ftest_read_chunk (NczFormat *f, NczVariable *v, const guint64 *index, GCancellable *c,
                  GError **error)
{
  g_autofree char *key = chunk_key (v, index);
  g_autoptr(GBytes) raw = ncz_store_read (FTEST_FORMAT (f)->store, key, c, error);
  if (raw == NULL)
    return NULL;
  return run_chain (v, raw, FALSE, error);
}

static gboolean
ftest_write_chunk (NczFormat *f, NczVariable *v, const guint64 *index, GBytes *data,
                   GCancellable *c, GError **error)
{
  g_autofree char *key = chunk_key (v, index);
  g_autoptr(GBytes) enc = run_chain (v, data, TRUE, error);
  if (enc == NULL)
    return FALSE;
  g_atomic_int_inc (&n_encoded);
  return ncz_store_write (FTEST_FORMAT (f)->store, key, enc, c, error);
}

static guint n_read_chunks_calls;
static guint n_batched_chunks;
static GMutex events_lock;
static GString *events;

static void
add_event (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

static void
add_event (const char *fmt, ...)
{
  va_list ap;

  g_mutex_lock (&events_lock);
  if (events == NULL)
    events = g_string_new (NULL);
  if (events->len > 0)
    g_string_append (events, "; ");
  va_start (ap, fmt);
  g_string_append_vprintf (events, fmt, ap);
  va_end (ap);
  g_mutex_unlock (&events_lock);
}

static const char *
change_name (NczDefinitionChange change)
{
  switch (change)
    {
    case NCZ_DEFINITION_ADDED: return "added";
    case NCZ_DEFINITION_CHANGED: return "changed";
    case NCZ_DEFINITION_REMOVED: return "removed";
    default: return "?";
    }
}

/* Batched reads: every object in one ncz_store_read_many() call. */
static GPtrArray *
ftest_read_chunks (NczFormat *f, NczVariable *v, const guint64 *indices, guint n,
                   GCancellable *c, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (v);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) raw = NULL;
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  g_atomic_int_inc (&n_read_chunks_calls);
  g_atomic_int_add (&n_batched_chunks, (gint) n);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (keys, chunk_key (v, indices + (gsize) i * rank));
  g_ptr_array_add (keys, NULL);
  raw = ncz_store_read_many (FTEST_FORMAT (f)->store, (const char * const *) keys->pdata, c,
                             error);
  if (raw == NULL)
    return NULL;
  for (guint i = 0; i < n; i++)
    {
      GBytes *r = g_ptr_array_index (raw, i);
      GBytes *decoded = NULL;
      if (r != NULL && (decoded = run_chain (v, r, FALSE, error)) == NULL)
        return NULL;
      g_ptr_array_add (out, decoded);
    }
  return g_steal_pointer (&out);
}

static gboolean
ftest_group_defined (NczFormat *f, NczGroup *g, NczDefinitionChange change, GError **error)
{
  add_event ("group %s %s", ncz_group_get_name (g), change_name (change));
  return TRUE;
}

static gboolean
ftest_dimension_defined (NczFormat *f, NczDimension *d, NczDefinitionChange change,
                         GError **error)
{
  add_event ("dimension %s %s", ncz_dimension_get_name (d), change_name (change));
  if (strcmp (ncz_dimension_get_name (d), "refused") == 0)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "ftest refuses dimension 'refused'");
      return FALSE;
    }
  return TRUE;
}

static gboolean
ftest_variable_defined (NczFormat *f, NczVariable *v, NczDefinitionChange change,
                        GError **error)
{
  add_event ("variable %s %s", ncz_variable_get_name (v), change_name (change));
  return TRUE;
}

static gboolean
ftest_attribute_defined (NczFormat *f, GObject *owner, const char *name, NczAttribute *a,
                         NczDefinitionChange change, GError **error)
{
  g_assert_true (a == NULL || strcmp (ncz_attribute_get_name (a), name) == 0);
  add_event ("attribute %s:%s %s",
             NCZ_IS_GROUP (owner) ? ncz_group_get_name (NCZ_GROUP (owner))
                                  : ncz_variable_get_name (NCZ_VARIABLE (owner)),
             name, change_name (change));
  return TRUE;
}

static void
ftest_format_iface_init (NczFormatInterface *iface)
{
  iface->get_name = ftest_get_name;
  iface->open = ftest_open;
  iface->create = ftest_open;
  iface->sync = ftest_sync;
  iface->read_chunk = ftest_read_chunk;
  iface->write_chunk = ftest_write_chunk;
  iface->read_chunks = ftest_read_chunks;
  iface->group_defined = ftest_group_defined;
  iface->dimension_defined = ftest_dimension_defined;
  iface->variable_defined = ftest_variable_defined;
  iface->attribute_defined = ftest_attribute_defined;
}

/* ---- "ftest-plain": a format that keeps its chunks itself (no store),
 * reads them one at a time (the default read_chunks) and hears no
 * definitions ---- */

#define FTEST_TYPE_PLAIN_FORMAT (ftest_plain_format_get_type ())
G_DECLARE_FINAL_TYPE (FtestPlainFormat, ftest_plain_format, FTEST, PLAIN_FORMAT, GObject)

struct _FtestPlainFormat
{
  GObject parent_instance;
  NczUrl *url;
  GMutex lock;
  GHashTable *chunks;   /* key -> GBytes (decoded) */
};

static guint n_plain_reads;

static void ftest_plain_format_iface_init (NczFormatInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (FtestPlainFormat, ftest_plain_format, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT,
                                                      ftest_plain_format_iface_init))

static void
ftest_plain_set_property (GObject *o, guint id, const GValue *v, GParamSpec *p)
{
  if (id == PROP_URL)
    g_set_object (&FTEST_PLAIN_FORMAT (o)->url, g_value_get_object (v));
  /* "store": none needed, any given is ignored */
}

static void
ftest_plain_get_property (GObject *o, guint id, GValue *v, GParamSpec *p)
{
  if (id == PROP_URL)
    g_value_set_object (v, FTEST_PLAIN_FORMAT (o)->url);
  else if (id == PROP_STORE)
    g_value_set_object (v, NULL);
}

static void
ftest_plain_finalize (GObject *o)
{
  FtestPlainFormat *self = FTEST_PLAIN_FORMAT (o);
  g_clear_object (&self->url);
  g_hash_table_unref (self->chunks);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ftest_plain_format_parent_class)->finalize (o);
}

static void
ftest_plain_format_class_init (FtestPlainFormatClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->set_property = ftest_plain_set_property;
  oc->get_property = ftest_plain_get_property;
  oc->finalize = ftest_plain_finalize;
  g_object_class_override_property (oc, PROP_URL, "url");
  g_object_class_override_property (oc, PROP_STORE, "store");
}

static void
ftest_plain_format_init (FtestPlainFormat *self)
{
  g_mutex_init (&self->lock);
  self->chunks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) g_bytes_unref);
}

static const char *
ftest_plain_get_name (NczFormat *f)
{
  return "ftest-plain";
}

static GBytes *
ftest_plain_read_chunk (NczFormat *f, NczVariable *v, const guint64 *index, GCancellable *c,
                        GError **error)
{
  FtestPlainFormat *self = FTEST_PLAIN_FORMAT (f);
  g_autofree char *key = chunk_key (v, index);
  GBytes *data;

  g_atomic_int_inc (&n_plain_reads);
  g_mutex_lock (&self->lock);
  data = g_hash_table_lookup (self->chunks, key);
  if (data)
    g_bytes_ref (data);
  g_mutex_unlock (&self->lock);
  if (data == NULL)
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND, "no chunk '%s'", key);
  return data;
}

static gboolean
ftest_plain_write_chunk (NczFormat *f, NczVariable *v, const guint64 *index, GBytes *data,
                         GCancellable *c, GError **error)
{
  FtestPlainFormat *self = FTEST_PLAIN_FORMAT (f);

  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->chunks, chunk_key (v, index),
                        g_bytes_new (g_bytes_get_data (data, NULL), g_bytes_get_size (data)));
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
ftest_plain_format_iface_init (NczFormatInterface *iface)
{
  iface->flags = NCZ_FORMAT_NO_STORE;
  iface->get_name = ftest_plain_get_name;
  iface->open = ftest_open;
  iface->create = ftest_open;
  iface->sync = ftest_sync;
  iface->read_chunk = ftest_plain_read_chunk;
  iface->write_chunk = ftest_plain_write_chunk;
}

void
filter_test_plain_format_register (void)
{
  ncz_registry_add_format (ncz_registry_get_default (), "ftest-plain", FTEST_TYPE_PLAIN_FORMAT,
                           NCZ_PRIORITY_PRIMARY);
}

GType
filter_test_format_get_type (gboolean plain)
{
  return plain ? FTEST_TYPE_PLAIN_FORMAT : FTEST_TYPE_FORMAT;
}

guint
filter_test_format_n_plain_reads (void)
{
  return (guint) g_atomic_int_get (&n_plain_reads);
}

guint
filter_test_format_n_read_chunks_calls (guint *n_chunks)
{
  if (n_chunks)
    *n_chunks = (guint) g_atomic_int_get (&n_batched_chunks);
  return (guint) g_atomic_int_get (&n_read_chunks_calls);
}

char *
filter_test_format_take_events (void)
{
  char *out;

  g_mutex_lock (&events_lock);
  out = events ? g_string_free (g_steal_pointer (&events), FALSE) : g_strdup ("");
  g_mutex_unlock (&events_lock);
  return out;
}

void
filter_test_format_register (void)
{
  ncz_registry_add_format (ncz_registry_get_default (), "ftest", FTEST_TYPE_FORMAT,
                           NCZ_PRIORITY_PRIMARY);
}

guint
filter_test_format_n_syncs (void)
{
  return (guint) g_atomic_int_get (&n_syncs);
}

guint
filter_test_format_n_encoded (void)
{
  return (guint) g_atomic_int_get (&n_encoded);
}

NczDataset *
filter_test_dataset_new (NczMemoryStore **store_out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///unused#mode=nczarr,file&format=ftest", &error);
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  NczDataset *ds;

  g_assert_no_error (error);
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  if (store_out)
    *store_out = g_steal_pointer (&store);
  return ds;
}
