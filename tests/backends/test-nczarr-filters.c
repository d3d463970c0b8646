/* Tests of filter chains and quantize through the NCZarr backend: the
 * codec JSON written to .zarray, what is read back, the _Filter /
 * _Shuffle / _DeflateLevel / _Fletcher32 / _Codecs virtual attributes
 * and a dataset whose codec is not installed. Uses Ncz's codec modules
 * (NCZ_PLUGIN_PATH); a test is skipped when a module is not built.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-test-util.h"
#include <ncz/ncz-json.h>
#include "ncz-model-private.h"

#define NX 12
#define NY 5

static gboolean
have_codecs (const char *const *ids)
{
  for (guint i = 0; ids[i]; i++)
    if (!ncz_registry_has_feature (ncz_registry_get_default (), NCZ_FEATURE_CODEC, ids[i]))
      {
        g_autofree char *msg = g_strdup_printf ("codec module '%s' not built", ids[i]);
        g_test_skip (msg);
        return FALSE;
      }
  return TRUE;
}

static NczVariable *
add_var (NczDataset *ds, const char *name, NczDataType type)
{
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *d[2];
  NczVariable *v;
  guint64 chunks[2] = { 4, 5 };

  d[0] = ncz_group_get_dimension (root, "x");
  if (d[0] == NULL)
    {
      d[0] = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
      g_assert_no_error (error);
      ncz_group_add_dimension (root, "y", NY, FALSE, &error);
      g_assert_no_error (error);
    }
  d[1] = ncz_group_get_dimension (root, "y");
  v = ncz_group_add_variable (root, name, type, 2, d, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_no_error (error);
  return v;
}

static void
write_ramp (NczVariable *v)
{
  g_autoptr(GError) error = NULL;
  guint64 start[2] = { 0, 0 }, count[2] = { NX, NY };
  NczDataType t = ncz_variable_get_value_type (v);
  gsize es = ncz_data_type_get_size (t);
  g_autofree guint8 *buf = g_malloc0 (NX * NY * es);

  for (guint i = 0; i < NX * NY; i++)
    {
      if (t == NCZ_DATA_TYPE_INT)
        ((gint32 *) buf)[i] = (gint32) (i * 7 - 100);
      else if (t == NCZ_DATA_TYPE_FLOAT)
        ((float *) buf)[i] = (float) (i * 0.37 - 3.0);
      else if (t == NCZ_DATA_TYPE_DOUBLE)
        ((double *) buf)[i] = i * 1.0001 + 1e-3;
      else if (t == NCZ_DATA_TYPE_SHORT)
        ((gint16 *) buf)[i] = (gint16) (i - 20);
      else
        g_assert_not_reached ();
    }
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, buf, NX * NY * es, NULL, &error));
  g_assert_no_error (error);
}

static void
check_ramp (NczVariable *v)
{
  NczDataType t = ncz_variable_get_value_type (v);
  gsize es = ncz_data_type_get_size (t);
  g_autofree guint8 *buf = g_malloc0 (NX * NY * es);

  nczt_read_all (v, buf, NX * NY * es);
  for (guint i = 0; i < NX * NY; i++)
    {
      if (t == NCZ_DATA_TYPE_INT)
        g_assert_cmpint (((gint32 *) buf)[i], ==, (gint32) (i * 7 - 100));
      else if (t == NCZ_DATA_TYPE_FLOAT)
        g_assert_cmpfloat (((float *) buf)[i], ==, (float) (i * 0.37 - 3.0));
      else if (t == NCZ_DATA_TYPE_DOUBLE)
        g_assert_cmpfloat (((double *) buf)[i], ==, i * 1.0001 + 1e-3);
      else if (t == NCZ_DATA_TYPE_SHORT)
        g_assert_cmpint (((gint16 *) buf)[i], ==, (gint16) (i - 20));
    }
}

/* The compressor and filters of a stored array, as compact JSON */
static void
assert_zarray_codecs (NczMemoryStore *store, const char *var, const char *compressor,
                      const char *filters)
{
  g_autofree char *key = g_strdup_printf ("%s/.zarray", var);
  g_autofree char *text = nczt_get (store, key);
  g_autoptr(NczJson) root = NULL;
  g_autofree char *c = NULL;
  g_autofree char *f = NULL;

  g_assert_nonnull (text);
  root = ncz_json_parse (text, -1, NULL);
  g_assert_nonnull (root);
  c = ncz_json_to_string (ncz_json_object_get (root, "compressor"), FALSE);
  f = ncz_json_to_string (ncz_json_object_get (root, "filters"), FALSE);
  g_assert_cmpstr (c, ==, compressor);
  g_assert_cmpstr (f, ==, filters);
}

/* An attribute's value as text: char attributes as they are, numbers in
 * decimal */
static char *
attr_value (NczAttribute *a)
{
  if (ncz_attribute_get_value_type (a) == NCZ_DATA_TYPE_CHAR)
    {
      gsize n = 0;
      const char *p = ncz_attribute_peek_values (a, &n);
      return g_strndup (p, n);
    }
  g_assert_cmpuint (ncz_attribute_get_length (a), ==, 1);
  return g_strdup_printf ("%" G_GINT64_FORMAT, ncz_attribute_get_int64 (a, 0, NULL));
}

/* The backend's virtual attributes of @v as "name=value;" text */
static char *
describe (NczDataset *ds, NczVariable *v)
{
  g_autoptr(GPtrArray) list = ncz_format_describe_variable (ncz_dataset_get_format (ds), v);
  GString *s = g_string_new (NULL);
  for (guint i = 0; list && i < list->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (list, i);
      g_autofree char *t = attr_value (a);
      if (g_str_equal (ncz_attribute_get_name (a), "_Codecs"))
        continue;
      g_string_append_printf (s, "%s=%s;", ncz_attribute_get_name (a), t);
    }
  return g_string_free (s, FALSE);
}

static char *
ids_text (NczVariable *v)
{
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (v);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    {
      guint id = g_array_index (ids, guint, i);
      g_autoptr(GArray) p = ncz_variable_get_filter_params (v, id, NULL);
      g_string_append_printf (s, "%s%u", i ? "|" : "", id);
      for (guint k = 0; p && k < p->len; k++)
        g_string_append_printf (s, ",%u", g_array_index (p, guint, k));
    }
  return g_string_free (s, FALSE);
}

#define assert_describe(ds, v, text) G_STMT_START { \
    g_autofree char *d_ = describe (ds, v); g_assert_cmpstr (d_, ==, text); } G_STMT_END

static void
test_write_read (void)
{
  static const char *const needed[] = { "shuffle", "zlib", "bz2", "zstd", "blosc", "fletcher32", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) back = NULL;
  NczVariable *v;
  static const char *const names[] = { "vz", "vb2", "vzs", "vbl", "vf", "vm", "vj", "vneg" };

  if (!have_codecs (needed))
    return;
  ds = nczt_create_mem (&store, "mode=nczarr,file");
  v = add_var (ds, "vz", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_deflate (v, TRUE, TRUE, 5, &error));
  v = add_var (ds, "vb2", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_bzip2 (v, 9, &error));
  v = add_var (ds, "vzs", NCZ_DATA_TYPE_SHORT);
  g_assert_true (ncz_variable_set_zstandard (v, 3, &error));
  v = add_var (ds, "vbl", NCZ_DATA_TYPE_FLOAT);
  g_assert_true (ncz_variable_set_blosc (v, "lz4", 5, 0, 1, &error));
  v = add_var (ds, "vf", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_fletcher32 (v, &error));
  v = add_var (ds, "vm", NCZ_DATA_TYPE_DOUBLE);
  {
    guint nine = 9, two = 2, one = 1;
    g_assert_true (ncz_variable_add_filter (v, 307, &nine, 1, &error));
    g_assert_true (ncz_variable_add_filter (v, 1, &two, 1, &error));
    g_assert_true (ncz_variable_add_filter (v, 32015, &one, 1, &error));
  }
  v = add_var (ds, "vj", NCZ_DATA_TYPE_FLOAT);
  g_assert_true (ncz_variable_add_filter_json (v, "{\"id\": \"blosc\", \"cname\": \"zstd\", "
                                                  "\"clevel\": 5, \"shuffle\": 2}", &error));
  v = add_var (ds, "vneg", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_zstandard (v, -3, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    write_ramp (nczt_var (ds, names[i]));

  /* what the dataset shows before it is closed */
  assert_describe (ds, nczt_var (ds, "vz"), "_Shuffle=true;_DeflateLevel=5;");
  assert_describe (ds, nczt_var (ds, "vm"), "_Filter=307,9|1,2|32015,1;");

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  /* Zarr metadata: last filter is the compressor, numbers are numbers */
  assert_zarray_codecs (store, "vz", "{\"id\": \"zlib\", \"level\": 5}",
                        "[{\"id\": \"shuffle\", \"elementsize\": 4}]");
  assert_zarray_codecs (store, "vb2", "{\"id\": \"bz2\", \"level\": 9}", "null");
  assert_zarray_codecs (store, "vzs", "{\"id\": \"zstd\", \"level\": 3}", "null");
  assert_zarray_codecs (store, "vf", "{\"id\": \"fletcher32\"}", "null");
  assert_zarray_codecs (store, "vm", "{\"id\": \"zstd\", \"level\": 1}",
                        "[{\"id\": \"bz2\", \"level\": 9},{\"id\": \"zlib\", \"level\": 2}]");
  assert_zarray_codecs (store, "vneg", "{\"id\": \"zstd\", \"level\": -3}", "null");
  {
    g_autofree char *t = nczt_get (store, "vbl/.zarray");
    g_autoptr(NczJson) root = ncz_json_parse (t, -1, NULL);
    const NczJson *c = ncz_json_object_get (root, "compressor");
    gint64 n = -1;
    g_assert_cmpstr (ncz_json_get_string (ncz_json_object_get (c, "id"), NULL), ==, "blosc");
    g_assert_cmpstr (ncz_json_get_string (ncz_json_object_get (c, "cname"), NULL), ==, "lz4");
    g_assert_true (ncz_json_get_int64 (ncz_json_object_get (c, "clevel"), &n));
    g_assert_cmpint (n, ==, 5);
    g_assert_true (ncz_json_get_int64 (ncz_json_object_get (c, "shuffle"), &n));
    g_assert_cmpint (n, ==, 1);
  }

  /* read back */
  back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    check_ramp (nczt_var (back, names[i]));
  {
    g_autofree char *a = ids_text (nczt_var (back, "vz"));
    g_autofree char *b = ids_text (nczt_var (back, "vm"));
    g_autofree char *c = ids_text (nczt_var (back, "vbl"));
    g_autofree char *d = ids_text (nczt_var (back, "vneg"));
    g_autofree char *e = ids_text (nczt_var (back, "vj"));
    g_assert_true (g_str_has_prefix (a, "2"));
    g_assert_true (g_str_has_suffix (a, "|1,5"));
    g_assert_cmpstr (b, ==, "307,9|1,2|32015,1");
    g_assert_cmpstr (c, ==, "32001,0,0,0,0,5,1,1");
    g_assert_cmpstr (d, ==, "32015,4294967293");
    g_assert_cmpstr (e, ==, "32001,0,0,0,0,5,2,5");
  }
  assert_describe (back, nczt_var (back, "vz"), "_Shuffle=true;_DeflateLevel=5;");
  assert_describe (back, nczt_var (back, "vb2"), "_Filter=307,9;");
  assert_describe (back, nczt_var (back, "vzs"), "_Filter=32015,3;");
  assert_describe (back, nczt_var (back, "vbl"), "_Filter=32001,0,0,0,0,5,1,1;");
  assert_describe (back, nczt_var (back, "vf"), "_Fletcher32=true;");
  assert_describe (back, nczt_var (back, "vm"), "_Filter=307,9|1,2|32015,1;");
  {
    g_autoptr(GPtrArray) list = ncz_format_describe_variable (ncz_dataset_get_format (back),
                                                              nczt_var (back, "vm"));
    NczAttribute *last = g_ptr_array_index (list, list->len - 1);
    g_autofree char *t = attr_value (last);
    g_assert_cmpstr (ncz_attribute_get_name (last), ==, "_Codecs");
    g_assert_cmpstr (t, ==, "[{\"id\": \"bz2\", \"level\": 9},{\"id\": \"zlib\", \"level\": 2},"
                            "{\"id\": \"zstd\", \"level\": 1}]");
  }
}

/* The chain of a stored variable is fixed, quantization too */
static void
test_stored_is_fixed (void)
{
  static const char *const needed[] = { "zstd", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) again = NULL;
  NczVariable *v;

  if (!have_codecs (needed))
    return;
  ds = nczt_create_mem (&store, "mode=nczarr,file");
  v = add_var (ds, "v", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_zstandard (v, 1, &error));
  write_ramp (v);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  again = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  v = nczt_var (again, "v");
  g_assert_false (ncz_variable_set_zstandard (v, 5, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_quantize (v, NCZ_QUANTIZE_BITROUND, 3, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  /* a new variable of the same dataset can have filters */
  v = add_var (again, "w", NCZ_DATA_TYPE_INT);
  g_assert_true (ncz_variable_set_zstandard (v, 5, &error));
  g_assert_no_error (error);
  write_ramp (v);
  check_ramp (nczt_var (again, "v"));
  check_ramp (v);
}

/* Core leaves parameter checks to the codec modules: each setter's
 * out-of-range values are refused by the module, naming the variable,
 * and nothing is added. */
static void
test_codecs_check_parameters (void)
{
  static const char *const needed[] = { "shuffle", "zlib", "bz2", "zstd", "blosc", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;

  if (!have_codecs (needed))
    return;
  ds = nczt_create_mem (&store, "mode=nczarr,file");
  v = add_var (ds, "v", NCZ_DATA_TYPE_INT);

#define REFUSED(call, mentions)                                                    \
  G_STMT_START {                                                                   \
    g_assert_false (call);                                                         \
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);       \
    g_assert_nonnull (strstr (error->message, "variable 'v'"));                    \
    g_assert_nonnull (strstr (error->message, mentions));                          \
    g_clear_error (&error);                                                        \
  } G_STMT_END
  REFUSED (ncz_variable_set_zstandard (v, 23, &error), "23");
  REFUSED (ncz_variable_set_bzip2 (v, 0, &error), "level 0");
  REFUSED (ncz_variable_set_bzip2 (v, 10, &error), "level 10");
  REFUSED (ncz_variable_set_deflate (v, TRUE, TRUE, 10, &error), "level 10");
  REFUSED (ncz_variable_set_blosc (v, "lz4", 10, 0, 1, &error), "clevel 10");
  REFUSED (ncz_variable_set_blosc (v, "lz4", 5, 0, 3, &error), "shuffle 3");
  if (ncz_registry_has_feature (ncz_registry_get_default (), NCZ_FEATURE_CODEC, "szip"))
    {
      REFUSED (ncz_variable_set_szip (v, 8, 8, &error), "mask 8");
      REFUSED (ncz_variable_set_szip (v, 32, 7, &error), "block 7");
      REFUSED (ncz_variable_set_szip (v, 32, 34, &error), "block 34");
    }
#undef REFUSED
  /* set_deflate adds nothing when deflate is refused, shuffle included */
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 0);
  g_assert_true (ncz_variable_set_blosc (v, "zstd", 9, 0, 2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 1);
}

/* The backend runs chunks through the variable's codec chain, resolved
 * once: writing and reading every chunk leaves the same chain in place. */
static void
test_codec_chain_kept (void)
{
  static const char *const needed[] = { "shuffle", "zlib", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) back = NULL;
  g_autoptr(NczCodecChain) c1 = NULL;
  g_autoptr(NczCodecChain) c2 = NULL;
  g_autoptr(NczCodecChain) c3 = NULL;
  NczVariable *v;

  if (!have_codecs (needed))
    return;
  ds = nczt_create_mem (&store, "mode=nczarr,file");
  v = add_var (ds, "v", NCZ_DATA_TYPE_DOUBLE);
  g_assert_true (ncz_variable_set_deflate (v, TRUE, TRUE, 3, &error));
  g_assert_no_error (error);
  write_ramp (v);
  c1 = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_chain_get_length (c1), ==, 2);
  g_assert_cmpstr (ncz_codec_get_codec_id (ncz_codec_chain_get_codec (c1, 0)), ==, "shuffle");
  g_assert_cmpint (ncz_codec_chain_get_kind (c1, 0), ==, NCZ_CODEC_KIND_ARRAY_TO_ARRAY);
  g_assert_cmpint (ncz_codec_chain_get_kind (c1, 1), ==, NCZ_CODEC_KIND_BYTES_TO_BYTES);
  g_assert_true (ncz_codec_chain_is_ordered (c1));
  /* shuffle's working parameter: the element size */
  g_assert_cmpuint (ncz_codec_chain_get_working (c1, 0)->len, ==, 1);
  g_assert_cmpuint (g_array_index (ncz_codec_chain_get_working (c1, 0), guint, 0), ==, 8);
  check_ramp (v);
  c2 = ncz_variable_get_codec_chain (v, &error);
  g_assert_true (c2 == c1);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  v = nczt_var (back, "v");
  check_ramp (v);
  c3 = ncz_variable_get_codec_chain (v, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_chain_get_length (c3), ==, 2);
  g_assert_cmpint (ncz_codec_chain_get_kind (c3, 0), ==, NCZ_CODEC_KIND_ARRAY_TO_ARRAY);
  check_ramp (v);
  {
    g_autoptr(NczCodecChain) c4 = ncz_variable_get_codec_chain (v, &error);
    g_assert_true (c4 == c3);
  }
}

static void
test_quantize_stored (void)
{
  static const char *const needed[] = { "zlib", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) back = NULL;
  NczVariable *v, *w;
  float in[NX * NY], out[NX * NY];
  double din[NX * NY], dout[NX * NY];
  guint64 start[2] = { 0, 0 }, count[2] = { NX, NY };
  guint nsd = 0;

  if (!have_codecs (needed))
    return;
  ds = nczt_create_mem (&store, "mode=nczarr,file");
  v = add_var (ds, "q", NCZ_DATA_TYPE_FLOAT);
  w = add_var (ds, "g", NCZ_DATA_TYPE_DOUBLE);
  g_assert_true (ncz_variable_set_quantize (v, NCZ_QUANTIZE_BITROUND, 8, &error));
  g_assert_true (ncz_variable_set_deflate (v, FALSE, TRUE, 1, &error));
  g_assert_true (ncz_variable_set_quantize (w, NCZ_QUANTIZE_GRANULARBR, 3, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < NX * NY; i++)
    {
      in[i] = (float) (G_PI * (i + 1));
      din[i] = G_E * (i + 1);
    }
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, in, sizeof in, NULL, &error));
  g_assert_true (ncz_variable_write (w, start, 2, count, 2, NULL, 0, din, sizeof din, NULL, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  {
    g_autofree char *zattrs = nczt_get (store, "q/.zattrs");
    g_assert_nonnull (strstr (zattrs, "\"_QuantizeBitRoundNumberOfSignificantBits\": 8"));
  }

  back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  v = nczt_var (back, "q");
  w = nczt_var (back, "g");
  g_assert_cmpint (ncz_variable_get_quantize (v, &nsd), ==, NCZ_QUANTIZE_BITROUND);
  g_assert_cmpuint (nsd, ==, 8);
  g_assert_cmpint (ncz_variable_get_quantize (w, &nsd), ==, NCZ_QUANTIZE_GRANULARBR);
  g_assert_cmpuint (nsd, ==, 3);
  nczt_read_all (v, out, sizeof out);
  nczt_read_all (w, dout, sizeof dout);
  for (guint i = 0; i < NX * NY; i++)
    {
      guint32 u;
      memcpy (&u, &out[i], 4);
      g_assert_cmpuint (u & ((1u << 15) - 1), ==, 0);   /* 23 - 8 bits cleared */
      g_assert_cmpfloat (fabs (out[i] - in[i]), <=, fabs (in[i]) * ldexp (1, -9));
      g_assert_cmpfloat (fabs (dout[i] - din[i]), <=, fabs (din[i]) * 2.2e-3);
    }
}

/* A codec that is not installed: the dataset opens, _Codecs shows it,
 * reading data fails naming it. */
static void
test_unknown_codec (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;
  gint32 buf[4];
  guint64 start = 0, count = 4;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GArray) ids = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "v/.zarray",
            "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [4], \"dtype\": \"<i4\","
            " \"fill_value\": 0, \"order\": \"C\", \"filters\": [{\"id\": \"nosuchfilter\", \"k\": 3}],"
            " \"compressor\": {\"id\": \"nosuchcodec\", \"level\": 1}}");
  nczt_put (store, "v/0", "0123456789abcdef");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  v = nczt_var (ds, "v");
  g_assert_cmpuint (ncz_variable_get_n_codecs (v), ==, 2);
  ids = ncz_variable_get_filter_ids (v);
  g_assert_cmpuint (ids->len, ==, 0);
  list = ncz_format_describe_variable (ncz_dataset_get_format (ds), v);
  g_assert_cmpuint (list->len, ==, 1);
  {
    NczAttribute *a = g_ptr_array_index (list, 0);
    g_autofree char *t = attr_value (a);
    g_assert_cmpstr (ncz_attribute_get_name (a), ==, "_Codecs");
    g_assert_nonnull (strstr (t, "nosuchcodec"));
    g_assert_nonnull (strstr (t, "nosuchfilter"));
  }
  g_assert_false (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, buf, sizeof buf, NULL, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "nosuchcodec"));
}

/* netCDF 4.9.3's filt3 store: the virtual attributes its ncdump shows */
static void
test_corpus_filt3 (void)
{
  static const char *const needed[] = { "shuffle", "zlib", "bz2", "zstd", "blosc", "fletcher32", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autoptr(NczDataset) ds = NULL;
  gint32 iv[100];
  float fv[100];

  if (!have_codecs (needed))
    return;
  dir = nczt_unpack ("generated/gen493/filt3.file.zip", "filt3.file");
  if (dir == NULL)
    {
      g_test_skip ("corpus not found");
      return;
    }
  ds = nczt_open_dir (dir, "nczarr,file", &error);
  if (ds == NULL && g_error_matches (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND))
    {
      g_test_skip ("no file store");
      nczt_remove_tree (dir);
      return;
    }
  g_assert_no_error (error);
  assert_describe (ds, nczt_var (ds, "vz"), "_Shuffle=true;_DeflateLevel=5;");
  assert_describe (ds, nczt_var (ds, "vb2"), "_Filter=307,9;");
  assert_describe (ds, nczt_var (ds, "vzs"), "_Filter=32015,3;");
  assert_describe (ds, nczt_var (ds, "vbl"), "_Filter=32001,0,0,0,0,5,1,1;");
  assert_describe (ds, nczt_var (ds, "vf"), "_Fletcher32=true;");
  nczt_read_all (nczt_var (ds, "vz"), iv, sizeof iv);
  g_assert_cmpint (iv[0], ==, 1);
  nczt_read_all (nczt_var (ds, "vb2"), iv, sizeof iv);
  g_assert_cmpint (iv[0], ==, 2);
  nczt_read_all (nczt_var (ds, "vzs"), iv, sizeof iv);
  g_assert_cmpint (iv[0], ==, 3);
  nczt_read_all (nczt_var (ds, "vbl"), fv, sizeof fv);
  g_assert_cmpfloat (fv[0], ==, 4.0f);
  nczt_read_all (nczt_var (ds, "vf"), iv, sizeof iv);
  g_assert_cmpint (iv[0], ==, 5);
  g_clear_object (&ds);
  nczt_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  nczt_init ();
  g_test_add_func ("/nczarr-filters/write-read", test_write_read);
  g_test_add_func ("/nczarr-filters/stored-is-fixed", test_stored_is_fixed);
  g_test_add_func ("/nczarr-filters/quantize-stored", test_quantize_stored);
  g_test_add_func ("/nczarr-filters/unknown-codec", test_unknown_codec);
  g_test_add_func ("/nczarr-filters/codecs-check-parameters", test_codecs_check_parameters);
  g_test_add_func ("/nczarr-filters/codec-chain-kept", test_codec_chain_kept);
  g_test_add_func ("/nczarr-filters/corpus-filt3", test_corpus_filt3);
  return g_test_run ();
}
