/* Tests of the filter API of NczVariable (filters.md "Using The API" and
 * "Order of Invocation for Multiple Filters"), with codecs defined here
 * and no plugin modules (NCZ_PLUGIN_PATH is emptied).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz.h>
#include <ncz/ncz-json.h>
#include "ncz-model-private.h"
#include "test-format.h"

/* ---- test codecs: {"id": ID, "p": [visible...]}; encoding prefixes a
 * marker byte and XORs the data with p[0] (or 0x5a) ---- */

typedef struct { GObject parent_instance; } TestCodec;
typedef struct {
  GObjectClass parent_class;
  const char *codec_id;
  guint filter_id;
} TestCodecClass;

static void test_codec_iface_init (NczCodecInterface *iface);
GType test_codec_get_type (void);
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (TestCodec, test_codec, G_TYPE_OBJECT,
                                  G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, test_codec_iface_init))

#define TEST_CODEC_CLASS_OF(o) ((TestCodecClass *) G_OBJECT_GET_CLASS (o))

static void test_codec_class_init (TestCodecClass *klass) { }
static void test_codec_init (TestCodec *self) { }

static const char *
tc_get_codec_id (NczCodec *self)
{
  return TEST_CODEC_CLASS_OF (self)->codec_id;
}

static guint
tc_get_filter_id (NczCodec *self)
{
  return TEST_CODEC_CLASS_OF (self)->filter_id;
}

static gboolean
tc_params_from_json (NczCodec *self, const char *json, GArray **params, GError **error)
{
  g_autoptr(NczJson) root = ncz_json_parse (json, -1, error);
  const NczJson *p;
  GArray *out;

  if (root == NULL)
    return FALSE;
  out = g_array_new (FALSE, FALSE, sizeof (guint));
  p = ncz_json_object_get (root, "p");
  for (gsize i = 0; p && i < ncz_json_array_get_length (p); i++)
    {
      gint64 v = 0;
      if (!ncz_json_get_int64 (ncz_json_array_get (p, i), &v) || v < 0 || v > G_MAXUINT32)
        {
          g_array_unref (out);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "\"p\" holds a bad number");
          return FALSE;
        }
      guint u = (guint) v;
      g_array_append_val (out, u);
    }
  *params = out;
  return TRUE;
}

static char *
tc_params_to_json (NczCodec *self, const guint *params, gsize n, GError **error)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "{\"id\": \"%s\", \"p\": [", tc_get_codec_id (self));
  for (gsize i = 0; i < n; i++)
    {
      if (params[i] == 666)
        {
          g_string_free (s, TRUE);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "666 is not a parameter");
          return NULL;
        }
      g_string_append_printf (s, "%s%u", i ? ", " : "", params[i]);
    }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

static guint8
marker (NczCodec *self)
{
  guint id = tc_get_filter_id (self);
  return id ? (guint8) (id & 0xff) ^ 0x80 : 'z';
}

static GBytes *
tc_encode (NczCodec *self, const guint *w, gsize n, GBytes *input, GError **error)
{
  gsize len;
  const guint8 *in = g_bytes_get_data (input, &len);
  guint8 key = n > 0 ? (guint8) w[0] : 0x5a;
  guint8 *out = g_malloc (len + 1);
  out[0] = marker (self);
  for (gsize i = 0; i < len; i++)
    out[i + 1] = in[i] ^ key;
  return g_bytes_new_take (out, len + 1);
}

static GBytes *
tc_decode (NczCodec *self, const guint *w, gsize n, GBytes *input, GError **error)
{
  gsize len;
  const guint8 *in = g_bytes_get_data (input, &len);
  guint8 key = n > 0 ? (guint8) w[0] : 0x5a;
  guint8 *out;
  if (len == 0 || in[0] != marker (self))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "codec %s: not my data", tc_get_codec_id (self));
      return NULL;
    }
  out = g_malloc (MAX (len - 1, 1));
  for (gsize i = 1; i < len; i++)
    out[i - 1] = in[i] ^ key;
  return g_bytes_new_take (out, len - 1);
}

static void
test_codec_iface_init (NczCodecInterface *iface)
{
  iface->get_codec_id = tc_get_codec_id;
  iface->get_filter_id = tc_get_filter_id;
  iface->params_from_json = tc_params_from_json;
  iface->params_to_json = tc_params_to_json;
  iface->encode = tc_encode;
  iface->decode = tc_decode;
}

#define DEFINE_TEST_CODEC(Name, name, cid, fid)                                   \
  typedef TestCodec Name;                                                         \
  typedef TestCodecClass Name##Class;                                             \
  GType name##_get_type (void);                                                   \
  G_DEFINE_TYPE (Name, name, test_codec_get_type ())                              \
  static void name##_class_init (Name##Class *k) { k->codec_id = cid; k->filter_id = fid; } \
  static void name##_init (Name *self) { }

DEFINE_TEST_CODEC (TcMisc, tc_misc, "test", 32768)
DEFINE_TEST_CODEC (TcOther, tc_other, "other", 32769)
DEFINE_TEST_CODEC (TcShuffle, tc_shuffle, "shuffle", 2)
DEFINE_TEST_CODEC (TcFletcher, tc_fletcher, "fletcher32", 3)
DEFINE_TEST_CODEC (TcZlib, tc_zlib, "zlib", 1)
DEFINE_TEST_CODEC (TcBz2, tc_bz2, "bz2", 307)
DEFINE_TEST_CODEC (TcZstd, tc_zstd, "zstd", 32015)
DEFINE_TEST_CODEC (TcBlosc, tc_blosc, "blosc", 32001)
DEFINE_TEST_CODEC (TcSzip, tc_szip, "szip", 4)
DEFINE_TEST_CODEC (TcZonly, tc_zonly, "zonly", 0)

static void
register_codecs (void)
{
  NczRegistry *reg = ncz_registry_get_default ();
  ncz_registry_add_codec (reg, tc_misc_get_type (), "test", 32768, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_other_get_type (), "other", 32769, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_shuffle_get_type (), "shuffle", 2, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_fletcher_get_type (), "fletcher32", 3, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_zlib_get_type (), "zlib", 1, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_bz2_get_type (), "bz2", 307, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_zstd_get_type (), "zstd", 32015, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_blosc_get_type (), "blosc", 32001, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_szip_get_type (), "szip", 4, NCZ_PRIORITY_PRIMARY);
  ncz_registry_add_codec (reg, tc_zonly_get_type (), "zonly", 0, NCZ_PRIORITY_PRIMARY);
}

/* ---- helpers ---- */

static NczVariable *
new_var (NczDataset *ds, const char *name, NczDataType type, guint rank)
{
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *d[2];
  NczVariable *v;

  d[0] = ncz_group_get_dimension (root, "x");
  if (d[0] == NULL)
    {
      d[0] = ncz_group_add_dimension (root, "x", 8, FALSE, &error);
      g_assert_no_error (error);
      d[1] = ncz_group_add_dimension (root, "y", 4, FALSE, &error);
      g_assert_no_error (error);
    }
  d[1] = ncz_group_get_dimension (root, "y");
  v = ncz_group_add_variable (root, name, type, rank, d, &error);
  g_assert_no_error (error);
  return v;
}

static char *
ids_text (NczVariable *v)
{
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (v);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", g_array_index (ids, guint, i));
  return g_string_free (s, FALSE);
}

static char *
params_text (NczVariable *v, guint id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) p = ncz_variable_get_filter_params (v, id, &error);
  GString *s = g_string_new (NULL);
  g_assert_no_error (error);
  for (guint i = 0; i < p->len; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", g_array_index (p, guint, i));
  return g_string_free (s, FALSE);
}

#define assert_ids(v, text) G_STMT_START { \
    g_autofree char *t_ = ids_text (v); g_assert_cmpstr (t_, ==, text); } G_STMT_END
#define assert_params(v, id, text) G_STMT_START { \
    g_autofree char *t_ = params_text (v, id); g_assert_cmpstr (t_, ==, text); } G_STMT_END

/* ---- tests ---- */

static void
test_add_and_query (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 2);
  guint p[] = { 1, 2, 3 };
  g_autoptr(GArray) none = NULL;
  g_autofree char *codecs = NULL;

  assert_ids (v, "");
  none = ncz_variable_get_filter_params (v, 32768, &error);
  g_assert_null (none);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "32768"));
  g_clear_error (&error);

  g_assert_true (ncz_variable_add_filter (v, 32768, p, 3, &error));
  g_assert_no_error (error);
  assert_ids (v, "32768");
  assert_params (v, 32768, "1,2,3");
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 1);
  codecs = ncz_variable_get_codecs_json (v);
  g_assert_cmpstr (codecs, ==, "[{\"id\": \"test\", \"p\": [1, 2, 3]}]");

  /* the spec carries codec, ids and JSON */
  {
    GPtrArray *chain = ncz_variable_peek_filters (v);
    NczFilterSpec *f = g_ptr_array_index (chain, 0);
    g_assert_cmpstr (f->codec_id, ==, "test");
    g_assert_cmpuint (f->filter_id, ==, 32768);
    g_assert_nonnull (f->codec);
    g_assert_null (f->working);
  }

  /* no parameters */
  g_assert_true (ncz_variable_add_filter (v, 32769, NULL, 0, &error));
  g_assert_no_error (error);
  assert_params (v, 32769, "");
  assert_ids (v, "32768,32769");
}

static void
test_unavailable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_FLOAT, 1);
  guint p = 1;

  g_assert_false (ncz_variable_add_filter (v, 32004, &p, 1, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_true (g_str_has_prefix (error->message, "filter 32004 is not available: "));
  g_clear_error (&error);
  g_assert_false (ncz_variable_add_filter (v, 0, NULL, 0, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);
  g_assert_false (ncz_variable_add_filter_json (v, "{\"id\": \"nosuchcodec\"}", &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_true (g_str_has_prefix (error->message, "codec not available: nosuchcodec"));
  g_clear_error (&error);
  /* parameters the codec rejects */
  p = 666;
  g_assert_false (ncz_variable_add_filter (v, 32768, &p, 1, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "666"));
  g_clear_error (&error);
  /* nothing was added */
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 0);
}

static void
test_order (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_DOUBLE, 2);
  guint p9 = 9, p5 = 5, p1 = 1;

  g_assert_true (ncz_variable_add_filter (v, 307, &p9, 1, &error));
  g_assert_true (ncz_variable_set_deflate (v, FALSE, TRUE, 2, &error));
  g_assert_true (ncz_variable_add_filter (v, 32768, &p1, 1, &error));
  g_assert_no_error (error);
  assert_ids (v, "307,1,32768");
  /* shuffle goes before the others */
  g_assert_true (ncz_variable_set_shuffle (v, &error));
  assert_ids (v, "2,307,1,32768");
  /* fletcher32 first */
  g_assert_true (ncz_variable_set_fletcher32 (v, &error));
  assert_ids (v, "3,2,307,1,32768");
  /* redefining keeps the place and takes the new parameters */
  g_assert_true (ncz_variable_add_filter (v, 307, &p5, 1, &error));
  g_assert_true (ncz_variable_set_deflate (v, TRUE, TRUE, 7, &error));
  g_assert_true (ncz_variable_set_shuffle (v, &error));
  g_assert_true (ncz_variable_set_fletcher32 (v, &error));
  g_assert_no_error (error);
  assert_ids (v, "3,2,307,1,32768");
  assert_params (v, 307, "5");
  assert_params (v, 1, "7");
  {
    g_autofree char *codecs = ncz_variable_get_codecs_json (v);
    g_assert_cmpstr (codecs, ==,
                     "[{\"id\": \"fletcher32\", \"p\": []},{\"id\": \"shuffle\", \"p\": []},"
                     "{\"id\": \"bz2\", \"p\": [5]},{\"id\": \"zlib\", \"p\": [7]},"
                     "{\"id\": \"test\", \"p\": [1]}]");
  }

  /* shuffle defined first, fletcher32 later still goes before it */
  {
    NczVariable *w = new_var (ds, "w", NCZ_DATA_TYPE_INT, 1);
    g_assert_true (ncz_variable_set_deflate (w, TRUE, TRUE, 1, &error));
    assert_ids (w, "2,1");
    g_assert_true (ncz_variable_set_fletcher32 (w, &error));
    assert_ids (w, "3,2,1");
    g_assert_true (ncz_variable_set_deflate (w, FALSE, TRUE, 4, &error));
    g_assert_no_error (error);
    assert_ids (w, "3,2,1");
    assert_params (w, 1, "4");
  }
}

static void
test_standard_setters (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_FLOAT, 2);

  g_assert_true (ncz_variable_set_zstandard (v, -5, &error));
  g_assert_no_error (error);
  assert_params (v, 32015, "4294967291");
  g_assert_true (ncz_variable_set_zstandard (v, 22, &error));
  assert_params (v, 32015, "22");
  g_assert_false (ncz_variable_set_zstandard (v, 23, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);

  g_assert_true (ncz_variable_set_bzip2 (v, 9, &error));
  assert_params (v, 307, "9");
  g_assert_false (ncz_variable_set_bzip2 (v, 0, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_bzip2 (v, 10, &error));
  g_clear_error (&error);

  g_assert_true (ncz_variable_set_blosc (v, "lz4", 5, 0, 1, &error));
  assert_params (v, 32001, "0,0,0,0,5,1,1");
  g_assert_true (ncz_variable_set_blosc (v, "zstd", 3, 65536, 2, &error));
  assert_params (v, 32001, "0,0,0,65536,3,2,5");
  g_assert_true (ncz_variable_set_blosc (v, "blosclz", 1, 0, 0, &error));
  assert_params (v, 32001, "0,0,0,0,1,0,0");
  g_assert_true (ncz_variable_set_blosc (v, "LZ4HC", 9, 0, 0, &error));
  assert_params (v, 32001, "0,0,0,0,9,0,2");
  g_assert_true (ncz_variable_set_blosc (v, "snappy", 9, 0, 0, &error));
  assert_params (v, 32001, "0,0,0,0,9,0,3");
  g_assert_true (ncz_variable_set_blosc (v, "zlib", 9, 0, 0, &error));
  assert_params (v, 32001, "0,0,0,0,9,0,4");
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_blosc (v, "lzma", 5, 0, 1, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "lzma"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_blosc (v, "lz4", 10, 0, 1, &error));
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_blosc (v, "lz4", 5, 0, 3, &error));
  g_clear_error (&error);

  g_assert_true (ncz_variable_set_szip (v, 32, 16, &error));
  assert_params (v, 4, "32,16");
  g_assert_true (ncz_variable_set_szip (v, 4, 8, &error));
  assert_params (v, 4, "4,8");
  g_assert_false (ncz_variable_set_szip (v, 8, 8, &error));
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_szip (v, 32, 7, &error));
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_szip (v, 32, 34, &error));
  g_clear_error (&error);

  g_assert_false (ncz_variable_set_deflate (v, FALSE, TRUE, 10, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);
  /* shuffle only */
  g_assert_true (ncz_variable_set_deflate (v, TRUE, FALSE, 0, &error));
  g_assert_no_error (error);
  assert_ids (v, "2,32015,307,32001,4");
}

static void
test_add_json (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_SHORT, 2);
  static const char *const bad[] = {
    "", "nope", "[1,2]", "{}", "{\"id\": 5}", "{\"id\": \"\"}", "{\"id\": \"test\", \"p\": [-1]}",
    "{\"id\": \"test\", \"p\": [666]}", "{\"id\": \"test\"",
  };

  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"test\", \"p\": [4, 5]}", &error));
  g_assert_no_error (error);
  assert_ids (v, "32768");
  assert_params (v, 32768, "4,5");
  /* a codec without an HDF5 id: in the chain, not in the id list */
  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"zonly\", \"p\": [1]}", &error));
  g_assert_no_error (error);
  assert_ids (v, "32768");
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 2);
  /* redefined by codec id */
  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"zonly\", \"p\": [2]}", &error));
  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"test\", \"p\": [6]}", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 2);
  {
    g_autofree char *codecs = ncz_variable_get_codecs_json (v);
    g_assert_cmpstr (codecs, ==, "[{\"id\": \"test\", \"p\": [6]},{\"id\": \"zonly\", \"p\": [2]}]");
  }
  /* shuffle given as JSON still goes first */
  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"shuffle\"}", &error));
  g_assert_no_error (error);
  assert_ids (v, "2,32768");

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (ncz_variable_add_filter_json (v, bad[i], &error));
      g_assert_nonnull (error);
      g_assert_true (error->domain == NCZ_CODEC_ERROR);
      g_clear_error (&error);
    }
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 3);
}

static void
test_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (&store);
  NczVariable *s = new_var (ds, "s", NCZ_DATA_TYPE_STRING, 1);
  NczVariable *sc = new_var (ds, "sc", NCZ_DATA_TYPE_INT, 0);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 1);
  gint32 data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  guint64 start = 0, count = 8;

  g_assert_false (ncz_variable_set_shuffle (s, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "strings"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_add_filter_json (s, "{\"id\": \"test\"}", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_shuffle (sc, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* once data is written the chain is fixed */
  g_assert_true (ncz_variable_set_bzip2 (v, 1, &error));
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, data, sizeof data, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_set_bzip2 (v, 2, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  assert_params (v, 307, "1");
}

static void
test_contiguous_becomes_chunked (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 2);
  const guint64 *cs;
  guint rank;

  g_assert_true (ncz_variable_set_contiguous (v, TRUE, &error));
  g_assert_true (ncz_variable_get_contiguous (v));
  g_assert_true (ncz_variable_set_zstandard (v, 1, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_variable_get_contiguous (v));
  cs = ncz_variable_get_chunk_sizes (v, &rank);
  g_assert_cmpuint (rank, ==, 2);
  g_assert_cmpuint (cs[0], ==, 8);
  g_assert_cmpuint (cs[1], ==, 4);
}

/* Data go through the chain in order and come back. */
static void
test_chain_roundtrip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (&store);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 2);
  gint32 data[32], back[32];
  guint64 start[2] = { 0, 0 }, count[2] = { 8, 4 }, chunks[2] = { 4, 4 };
  guint k1 = 0x11, k2 = 0x22;
  g_autoptr(GBytes) raw = NULL;
  const guint8 *p;
  gsize len;

  for (guint i = 0; i < 32; i++)
    data[i] = (gint32) (i * 1000 + 7);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_true (ncz_variable_add_filter (v, 32768, &k1, 1, &error));
  g_assert_true (ncz_variable_add_filter (v, 32769, &k2, 1, &error));
  g_assert_true (ncz_variable_set_shuffle (v, &error));
  g_assert_no_error (error);
  assert_ids (v, "2,32768,32769");
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, data, sizeof data, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (filter_test_format_n_encoded (), >=, 2);

  /* the stored chunk carries the markers of the last filter first */
  raw = ncz_store_read (NCZ_STORE (store), "v/0.0", NULL, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (raw, &len);
  g_assert_cmpuint (len, ==, 16 * 4 + 3);
  g_assert_cmpuint (p[0], ==, (32769 & 0xff) ^ 0x80);
  g_assert_cmpuint (p[1] ^ 0x22, ==, (32768 & 0xff) ^ 0x80);

  memset (back, 0, sizeof back);
  g_assert_true (ncz_variable_read (v, start, 2, count, 2, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, sizeof back, data, sizeof data);
}

int
main (int argc, char **argv)
{
  /* only the codecs defined here */
  g_setenv ("NCZ_PLUGIN_PATH", "", TRUE);
  g_setenv ("NCZ_PLUGIN_SYSTEM_PATH", "", TRUE);
  g_unsetenv ("HDF5_PLUGIN_PATH");
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  filter_test_format_register ();
  register_codecs ();

  g_test_add_func ("/filters/add-and-query", test_add_and_query);
  g_test_add_func ("/filters/unavailable", test_unavailable);
  g_test_add_func ("/filters/order", test_order);
  g_test_add_func ("/filters/standard-setters", test_standard_setters);
  g_test_add_func ("/filters/add-json", test_add_json);
  g_test_add_func ("/filters/refused", test_refused);
  g_test_add_func ("/filters/contiguous-becomes-chunked", test_contiguous_becomes_chunked);
  g_test_add_func ("/filters/chain-roundtrip", test_chain_roundtrip);
  return g_test_run ();
}
