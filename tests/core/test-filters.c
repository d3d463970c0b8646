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
tc_params_from_json (NczCodec *self, JsonObject *json, GArray **params, GError **error)
{
  JsonArray *p = NULL;
  GArray *out;

  if (json_object_has_member (json, "p"))
    {
      JsonNode *node = json_object_get_member (json, "p");
      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "\"p\" is not an array");
          return FALSE;
        }
      p = json_node_get_array (node);
    }
  out = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; p && i < json_array_get_length (p); i++)
    {
      JsonNode *e = json_array_get_element (p, i);
      gint64 v = -1;
      if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_INT64)
        v = json_node_get_int (e);
      if (v < 0 || v > G_MAXUINT32)
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

static JsonObject *
tc_params_to_json (NczCodec *self, const guint *params, gsize n, GError **error)
{
  JsonObject *o = json_object_new ();
  JsonArray *p = json_array_new ();
  json_object_set_string_member (o, "id", tc_get_codec_id (self));
  for (gsize i = 0; i < n; i++)
    {
      if (params[i] == 666)
        {
          json_array_unref (p);
          json_object_unref (o);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "666 is not a parameter");
          return NULL;
        }
      json_array_add_int_element (p, params[i]);
    }
  json_object_set_array_member (o, "p", p);
  return o;
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

/* "count" (HDF5 32770): an array to array codec whose working parameters
 * are [visible..., element size, elements per chunk, big endian], and
 * which counts how often they are derived. */
static gint n_modified;

typedef TestCodec TcCount;
typedef TestCodecClass TcCountClass;
GType tc_count_get_type (void);
static void tc_count_iface_init (NczCodecInterface *iface);
G_DEFINE_TYPE_WITH_CODE (TcCount, tc_count, test_codec_get_type (),
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC, tc_count_iface_init))
static void tc_count_class_init (TcCountClass *k) { k->codec_id = "count"; k->filter_id = 32770; }
static void tc_count_init (TcCount *self) { }

static gboolean
tc_count_modify (NczCodec *self, NczVariable *variable, GArray *visible, GArray **working,
                 GError **error)
{
  guint extra[3];

  g_atomic_int_inc (&n_modified);
  extra[0] = (guint) ncz_variable_get_storage_element_size (variable);
  extra[1] = (guint) ncz_variable_get_chunk_n_elements (variable);
  extra[2] = ncz_variable_get_endianness (variable) == NCZ_ENDIANNESS_BIG;
  *working = g_array_copy (visible);
  g_array_append_vals (*working, extra, 3);
  return TRUE;
}

static NczCodecKind
tc_count_get_kind (NczCodec *self)
{
  return NCZ_CODEC_KIND_ARRAY_TO_ARRAY;
}

static void
tc_count_iface_init (NczCodecInterface *iface)
{
  test_codec_iface_init (iface);
  iface->modify_parameters = tc_count_modify;
  iface->get_kind = tc_count_get_kind;
}

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
  ncz_registry_add_codec (reg, tc_count_get_type (), "count", 32770, NCZ_PRIORITY_PRIMARY);
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
  /* the codec's JsonObject written by Ncz's metadata writer */
  g_assert_cmpstr (codecs, ==, "[{\"id\": \"test\", \"p\": [1,2,3]}]");

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
  /* core leaves the parameters to the codec: these test codecs take any
   * value (the real modules refuse them: tests/backends/test-nczarr-filters.c) */
  g_assert_true (ncz_variable_set_zstandard (v, 23, &error));
  g_assert_no_error (error);
  assert_params (v, 32015, "23");

  g_assert_true (ncz_variable_set_bzip2 (v, 10, &error));
  assert_params (v, 307, "10");
  g_assert_true (ncz_variable_set_bzip2 (v, 9, &error));
  assert_params (v, 307, "9");

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
  g_assert_true (ncz_variable_set_blosc (v, "lz4", 10, 0, 3, &error));
  g_assert_no_error (error);
  assert_params (v, 32001, "0,0,0,0,10,3,1");

  g_assert_true (ncz_variable_set_szip (v, 32, 16, &error));
  assert_params (v, 4, "32,16");
  g_assert_true (ncz_variable_set_szip (v, 4, 8, &error));
  assert_params (v, 4, "4,8");
  g_assert_true (ncz_variable_set_szip (v, 8, 7, &error));
  g_assert_no_error (error);
  assert_params (v, 4, "8,7");

  g_assert_true (ncz_variable_set_deflate (v, FALSE, TRUE, 10, &error));
  g_assert_no_error (error);
  assert_params (v, 1, "10");
  /* shuffle only */
  g_assert_true (ncz_variable_set_deflate (v, TRUE, FALSE, 0, &error));
  g_assert_no_error (error);
  assert_ids (v, "2,32015,307,32001,4,1");
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

static void
assert_working (NczCodecChain *chain, guint index, const char *expected)
{
  const GArray *w = ncz_codec_chain_get_working (chain, index);
  g_autofree char *text = ncz_filter_spec_to_text (0, (const guint *) w->data, w->len);

  /* "0,a,b,..." */
  g_assert_cmpstr (text + 2, ==, expected);
}

/* The chain is resolved once per variable: the codec derives its working
 * parameters once, until the filters, chunking or byte order change. */
static void
test_codec_chain_cached (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 2);
  guint64 chunks[2] = { 4, 4 };
  guint seven = 7;
  g_autoptr(NczCodecChain) c1 = NULL;
  g_autoptr(NczCodecChain) c2 = NULL;
  g_autoptr(NczCodecChain) c3 = NULL;
  g_autoptr(NczCodecChain) c4 = NULL;
  g_autoptr(NczCodecChain) c5 = NULL;
  g_autoptr(NczCodecChain) empty = NULL;
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GBytes) enc = NULL;
  g_autoptr(GBytes) dec = NULL;
  gint base;

  /* no filters: an empty chain passes data through */
  empty = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_chain_get_length (empty), ==, 0);
  g_assert_true (ncz_codec_chain_is_ordered (empty));
  data = g_bytes_new_static ("0123456789abcdef", 16);
  enc = ncz_codec_chain_encode (empty, data, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (enc, data));
  g_clear_pointer (&enc, g_bytes_unref);

  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_true (ncz_variable_add_filter (v, 32770, &seven, 1, &error));
  g_assert_no_error (error);
  base = g_atomic_int_get (&n_modified);
  c1 = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_nonnull (c1);
  g_assert_true (c1 != empty);
  g_assert_cmpint (g_atomic_int_get (&n_modified), ==, base + 1);
  g_assert_cmpuint (ncz_codec_chain_get_length (c1), ==, 1);
  g_assert_cmpstr (ncz_codec_get_codec_id (ncz_codec_chain_get_codec (c1, 0)), ==, "count");
  g_assert_cmpint (ncz_codec_chain_get_kind (c1, 0), ==, NCZ_CODEC_KIND_ARRAY_TO_ARRAY);
  g_assert_true (ncz_codec_chain_is_ordered (c1));
  assert_working (c1, 0, "7,4,16,0");

  /* asked again: the same chain, nothing derived again */
  c2 = ncz_variable_get_codec_chain (v, &error);
  g_assert_true (c2 == c1);
  g_assert_cmpint (g_atomic_int_get (&n_modified), ==, base + 1);

  /* encode and decode through it */
  enc = ncz_codec_chain_encode (c1, data, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (enc), ==, 17);
  dec = ncz_codec_chain_decode (c1, enc, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (dec, data));

  /* new chunking: derived again */
  chunks[1] = 2;
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  c3 = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_true (c3 != c1);
  g_assert_cmpint (g_atomic_int_get (&n_modified), ==, base + 2);
  assert_working (c3, 0, "7,4,8,0");
  /* the old chain stays usable by whoever holds it */
  assert_working (c1, 0, "7,4,16,0");

  /* new byte order */
  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
  c4 = ncz_variable_get_codec_chain (v, &error);
  g_assert_true (c4 != c3);
  assert_working (c4, 0, "7,4,8,1");

  /* another filter: shuffle (a bytes to bytes test codec here) goes first */
  g_assert_true (ncz_variable_set_shuffle (v, &error));
  c5 = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_chain_get_length (c5), ==, 2);
  g_assert_cmpint (ncz_codec_chain_get_kind (c5, 0), ==, NCZ_CODEC_KIND_BYTES_TO_BYTES);
  g_assert_cmpint (ncz_codec_chain_get_kind (c5, 1), ==, NCZ_CODEC_KIND_ARRAY_TO_ARRAY);
  /* a Zarr v2 chain keeps its order; Zarr v3 would refuse this one */
  g_assert_false (ncz_codec_chain_is_ordered (c5));
  g_clear_pointer (&enc, g_bytes_unref);
  g_clear_pointer (&dec, g_bytes_unref);
  enc = ncz_codec_chain_encode (c5, data, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (enc), ==, 18);
  dec = ncz_codec_chain_decode (c5, enc, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (dec, data));
}

/* A chain naming codecs nobody provides is refused with all of them named,
 * and the failure is not cached; a decode error names the variable. */
static void
test_codec_chain_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *v = new_var (ds, "v", NCZ_DATA_TYPE_INT, 1);
  GPtrArray *specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  g_autoptr(NczCodecChain) chain = NULL;
  g_autoptr(GBytes) junk = g_bytes_new_static ("x", 1);
  g_autoptr(GBytes) out = NULL;

  g_ptr_array_add (specs, ncz_filter_spec_new ("nosuch-a", 0, "{\"id\": \"nosuch-a\"}"));
  g_ptr_array_add (specs, ncz_filter_spec_new ("test", 32768, "{\"id\": \"test\"}"));
  g_ptr_array_add (specs, ncz_filter_spec_new (NULL, 61234, NULL));
  ncz_variable_set_filters (v, specs);
  chain = ncz_variable_get_codec_chain (v, &error);
  g_assert_null (chain);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_cmpstr (error->message, ==,
                   "codec not available: nosuch-a, HDF5 filter 61234 (variable '/v')");
  g_clear_error (&error);
  chain = ncz_variable_get_codec_chain (v, &error);
  g_assert_null (chain);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_clear_error (&error);

  /* filters replaced: the chain follows */
  specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  g_ptr_array_add (specs, ncz_filter_spec_new ("test", 32768, "{\"id\": \"test\"}"));
  ncz_variable_set_filters (v, specs);
  chain = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_chain_get_length (chain), ==, 1);
  out = ncz_codec_chain_decode (chain, junk, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_assert_true (g_str_has_prefix (error->message, "variable '/v': decoding with test: "));
}

/* Codec configuration crosses the API as json-glib objects; what Ncz
 * writes of it is its exact metadata JSON: integers stay integers, doubles
 * get the shortest text that reads back, key order is kept. */
static void
test_json_bridge (void)
{
  static const char *const cases[][2] = {
    { "{\"id\": \"x\", \"i\": 5, \"n\": -9223372036854775808, \"d\": 0.1}",
      "{\"id\": \"x\", \"i\": 5, \"n\": -9223372036854775808, \"d\": 0.1}" },
    { "{\"b\": 1e-05, \"a\": 100.0, \"c\": 1e16, \"e\": 2.5E3}",
      "{\"b\": 1e-05, \"a\": 100.0, \"c\": 1e+16, \"e\": 2500.0}" },
    { "{\"t\": true, \"f\": false, \"z\": null, \"s\": \"\\u00e9\\\"\"}",
      "{\"t\": true, \"f\": false, \"z\": null, \"s\": \"\xc3\xa9\\\"\"}" },
    { "{\"l\": [1, [2.5, {\"k\": []}], {}], \"o\": {\"y\": 1, \"x\": 2}}",
      "{\"l\": [1,[2.5,{\"k\": []}],{}], \"o\": {\"y\": 1, \"x\": 2}}" },
    /* beyond gint64: a double; bare NaN: written as Ncz writes NaN */
    { "{\"u\": 18446744073709551615, \"nan\": NaN}",
      "{\"u\": 1.8446744073709552e+19, \"nan\": \"NaN\"}" },
    /* json-glib strings end at NUL */
    { "{\"s\": \"5\\u0000\"}", "{\"s\": \"5\ufffd\"}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczJson) in = ncz_json_parse (cases[i][0], -1, &error);
      g_autoptr(JsonObject) object = NULL;
      g_autoptr(NczJson) out = NULL;
      g_autofree char *text = NULL;

      g_assert_no_error (error);
      object = ncz_json_to_json_object (in);
      g_assert_nonnull (object);
      out = ncz_json_from_json_object (object);
      text = ncz_json_to_string (out, FALSE);
      g_assert_cmpstr (text, ==, cases[i][1]);
    }

  /* not an object */
  {
    g_autoptr(NczJson) array = ncz_json_parse ("[1]", -1, NULL);
    g_autoptr(JsonNode) node = ncz_json_to_json_node (array);
    g_autoptr(NczJson) back = ncz_json_from_json_node (node);
    g_autofree char *text = ncz_json_to_string (back, FALSE);
    g_assert_null (ncz_json_to_json_object (array));
    g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
    g_assert_cmpstr (text, ==, "[1]");
  }
}

/* The public codec calls: JsonObject in and out, and the text forms. */
static void
test_codec_json_api (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = ncz_registry_lookup_codec (ncz_registry_get_default (), "test",
                                                         &error);
  g_autoptr(JsonObject) in = json_object_new ();
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(GArray) params = NULL;
  g_autoptr(GArray) again = NULL;
  g_autofree char *text = NULL;
  JsonArray *p = json_array_new ();
  guint bad = 666;

  g_assert_no_error (error);
  g_assert_cmpint (ncz_codec_get_kind (codec), ==, NCZ_CODEC_KIND_BYTES_TO_BYTES);
  json_object_set_string_member (in, "id", "test");
  json_array_add_int_element (p, 3);
  json_array_add_int_element (p, 4);
  json_object_set_array_member (in, "p", p);
  g_assert_true (ncz_codec_params_from_json (codec, in, &params, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (params->len, ==, 2);
  g_assert_cmpuint (g_array_index (params, guint, 1), ==, 4);

  out = ncz_codec_params_to_json (codec, (const guint *) params->data, params->len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (out, "id"), ==, "test");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (out, "p")), ==, 2);

  text = ncz_codec_params_to_json_text (codec, (const guint *) params->data, params->len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "{\"id\": \"test\", \"p\": [3,4]}");
  g_assert_true (ncz_codec_params_from_json_text (codec, text, &again, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (again->len, ==, 2);

  /* the codec's refusals, and text that is no codec dict */
  g_assert_null (ncz_codec_params_to_json (codec, &bad, 1, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_clear_error (&error);
  g_assert_false (ncz_codec_params_from_json_text (codec, "[1]", &again, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "must be an object"));
  g_clear_error (&error);
  g_assert_false (ncz_codec_params_from_json_text (codec, "{\"id\": ", &again, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "invalid codec JSON"));
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
  g_test_add_func ("/filters/json-bridge", test_json_bridge);
  g_test_add_func ("/filters/codec-json-api", test_codec_json_api);
  g_test_add_func ("/filters/codec-chain-cached", test_codec_chain_cached);
  g_test_add_func ("/filters/codec-chain-errors", test_codec_chain_errors);
  return g_test_run ();
}
