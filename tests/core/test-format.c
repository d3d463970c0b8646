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

static void
ftest_format_iface_init (NczFormatInterface *iface)
{
  iface->get_name = ftest_get_name;
  iface->open = ftest_open;
  iface->create = ftest_open;
  iface->sync = ftest_sync;
  iface->read_chunk = ftest_read_chunk;
  iface->write_chunk = ftest_write_chunk;
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
