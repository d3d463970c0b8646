/* test-blosc.c: the Blosc codec module's descriptor (JSON, parameters,
 * encode/decode, damaged input, threads) and its NczCodec through the
 * registry.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <blosc.h>

#include "ncz-blosc-codec.h"
#include "codec-test-util.h"

static const NczCodecModuleDesc *desc = &ncz_blosc_codec_desc;

static void
test_json_defaults (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) v = test_visible_from_json (desc, "{\"id\": \"blosc\"}", &error);
  const guint expected[] = { 0, 0, 0, 0, 5, 1, 1 };   /* numcodecs: lz4, 5, shuffle, auto */
  g_autofree char *json = NULL;

  g_assert_no_error (error);
  test_assert_params (v, 7, expected);
  json = test_json_from_visible (desc, expected, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json, ==,
                   "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, "
                   "\"blocksize\": 0}");
}

static void
test_json_roundtrip (void)
{
  const char *cases[] = {
    "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 9, \"shuffle\": 2, \"blocksize\": 0}",
    "{\"id\": \"blosc\", \"cname\": \"blosclz\", \"clevel\": 0, \"shuffle\": 0, \"blocksize\": 4096}",
    "{\"id\": \"blosc\", \"cname\": \"zlib\", \"clevel\": 1, \"shuffle\": -1, \"blocksize\": 0}",
    "{\"id\": \"blosc\", \"cname\": \"lz4hc\", \"clevel\": 3, \"shuffle\": 1, \"blocksize\": 65536}",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) v = test_visible_from_json (desc, cases[i], &error);
      g_autofree char *json = NULL;

      g_assert_no_error (error);
      g_assert_cmpuint (v->len, ==, 7);
      json = test_json_from_visible (desc, (guint *) v->data, v->len, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (json, ==, cases[i]);
    }
}

static void
test_json_visible_layout (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) v = test_visible_from_json (desc,
      "{\"id\": \"blosc\", \"clevel\": \"7\", \"blocksize\": 2048, \"cname\": \"zstd\", "
      "\"shuffle\": -1}", &error);
  const guint expected[] = { 0, 0, 0, 2048, 7, G_MAXUINT, 5 };
  /* netcdf-c's _Filter "32001,0,0,0,0,5,1,1" */
  const guint netcdf[] = { 0, 0, 0, 0, 5, 1, 1 };
  /* what the HDF5 blosc filter's set_local stores in a file */
  const guint h5file[] = { 2, 2, 4, 40000, 5, 2, 0 };
  /* fewer values: the HDF5 filter's defaults (clevel 5, shuffle, blosclz) */
  const guint short_form[] = { 0, 0, 0, 0 };
  g_autofree char *a = NULL, *b = NULL, *c = NULL;

  g_assert_no_error (error);
  test_assert_params (v, 7, expected);

  a = test_json_from_visible (desc, netcdf, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a, ==, "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}");
  b = test_json_from_visible (desc, h5file, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (b, ==, "{\"id\": \"blosc\", \"cname\": \"blosclz\", \"clevel\": 5, \"shuffle\": 2, \"blocksize\": 0}");
  c = test_json_from_visible (desc, short_form, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (c, ==, "{\"id\": \"blosc\", \"cname\": \"blosclz\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}");
}

static void
test_json_errors (void)
{
  const struct { const char *json; const char *needle; } cases[] = {
    { "{\"id\": \"blosc\", \"cname\": \"brotli\"}", "brotli" },
    { "{\"id\": \"blosc\", \"cname\": \"\"}", "cname" },
    { "{\"id\": \"blosc\", \"cname\": 3}", "cname" },
    { "{\"id\": \"blosc\", \"clevel\": 10}", "clevel" },
    { "{\"id\": \"blosc\", \"clevel\": -1}", "clevel" },
    { "{\"id\": \"blosc\", \"clevel\": \"high\"}", "clevel" },
    { "{\"id\": \"blosc\", \"clevel\": 2.5}", "clevel" },
    { "{\"id\": \"blosc\", \"shuffle\": 3}", "shuffle" },
    { "{\"id\": \"blosc\", \"shuffle\": -2}", "shuffle" },
    { "{\"id\": \"blosc\", \"blocksize\": -1}", "blocksize" },
    { "{\"id\": \"blosc\", \"blocksize\": 4000000000}", "blocksize" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) v = test_visible_from_json (desc, cases[i].json, &error);

      g_assert_null (v);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
    }

  {
    const guint bad_clevel[] = { 0, 0, 0, 0, 12, 1, 1 };
    const guint bad_code[] = { 0, 0, 0, 0, 5, 1, 99 };
    const guint bad_shuffle[] = { 0, 0, 0, 0, 5, 7, 1 };
    const guint too_many[] = { 0, 0, 0, 0, 5, 1, 1, 0 };
    g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
    g_autofree char *j1 = test_json_from_visible (desc, bad_clevel, 7, &e1);
    g_autofree char *j2 = test_json_from_visible (desc, bad_code, 7, &e2);
    g_autofree char *j3 = test_json_from_visible (desc, bad_shuffle, 7, &e3);
    g_autofree char *j4 = test_json_from_visible (desc, too_many, 8, &e4);

    g_assert_null (j1);
    g_assert_error (e1, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_null (j2);
    g_assert_error (e2, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (e2->message, "99"));
    g_assert_null (j3);
    g_assert_error (e3, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_null (j4);
    g_assert_error (e4, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  }
}

static void
test_modify (void)
{
  g_autoptr (GError) error = NULL;
  NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_FLOAT, 4, FALSE, 2, (guint64) 10, (guint64) 20);
  g_autoptr (GArray) v = test_params (7, 0u, 0u, 0u, 0u, 5u, 1u, 1u);
  g_autoptr (GArray) w = test_working (desc, &info, v, &error);
  const guint expected[] = { 2, BLOSC_VERSION_FORMAT, 4, 800, 5, 1, 1 };
  g_autoptr (GArray) v2 = test_params (7, 0u, 0u, 0u, 8192u, 9u, 2u, 5u);
  g_autoptr (GArray) w2 = NULL;
  const guint expected2[] = { 2, BLOSC_VERSION_FORMAT, 8, 8 * 7, 9, 2, 5, 8192 };
  NczCodecVarInfo scalar = test_var_info (NCZ_DATA_TYPE_DOUBLE, 8, FALSE, 0);
  NczCodecVarInfo info2 = test_var_info (NCZ_DATA_TYPE_INT64, 8, TRUE, 1, (guint64) 7);
  g_autoptr (GArray) w3 = NULL;
  const guint expected3[] = { 2, BLOSC_VERSION_FORMAT, 8, 8, 5, 1, 1 };

  g_assert_no_error (error);
  test_assert_params (w, 7, expected);
  /* the visible parameters stay as they were */
  g_assert_cmpuint (v->len, ==, 7);

  w2 = test_working (desc, &info2, v2, &error);
  g_assert_no_error (error);
  test_assert_params (w2, 8, expected2);

  w3 = test_working (desc, &scalar, v, &error);
  g_assert_no_error (error);
  test_assert_params (w3, 7, expected3);
}

static GPtrArray *
compressor_names (void)
{
  g_auto (GStrv) names = g_strsplit (blosc_list_compressors (), ",", -1);
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (a, g_strdup (names[i]));
  return a;
}

static const char *
complib_of (const char *cname)
{
  if (strcmp (cname, "lz4") == 0 || strcmp (cname, "lz4hc") == 0)
    return "LZ4";
  if (strcmp (cname, "blosclz") == 0)
    return "BloscLZ";
  if (strcmp (cname, "zlib") == 0)
    return "Zlib";
  if (strcmp (cname, "zstd") == 0)
    return "Zstd";
  return "Snappy";
}

static void
test_roundtrip_all (void)
{
  g_autoptr (GPtrArray) names = compressor_names ();
  const int shuffles[] = { -1, 0, 1, 2 };
  const guint sizes[] = { 1, 2, 4, 8, 3 };
  const gsize counts[] = { 0, 1, 7, 1000, 70000 };

  g_assert_cmpuint (names->len, >=, 5);   /* blosclz, lz4, lz4hc, zlib, zstd */
  for (guint c = 0; c < names->len; c++)
    for (gsize s = 0; s < G_N_ELEMENTS (shuffles); s++)
      for (gsize t = 0; t < G_N_ELEMENTS (sizes); t++)
        for (gsize k = 0; k < G_N_ELEMENTS (counts); k++)
          {
            g_autoptr (GError) error = NULL;
            g_autofree char *json = g_strdup_printf (
                "{\"id\": \"blosc\", \"cname\": \"%s\", \"clevel\": %u, \"shuffle\": %d, "
                "\"blocksize\": %u}", (const char *) g_ptr_array_index (names, c),
                (guint) ((c + s + k) % 10), shuffles[s], k == 3 ? 256u : 0u);
            g_autoptr (GArray) v = test_visible_from_json (desc, json, &error);
            NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_NONE, sizes[t], FALSE, 1,
                                                  (guint64) counts[k]);
            g_autoptr (GArray) w = NULL;
            g_autoptr (GBytes) data = test_data (counts[k], sizes[t], (guint) (k + c) % 3, c * 100 + s);
            g_autoptr (GBytes) enc = NULL;

            g_assert_no_error (error);
            w = test_working (desc, &info, v, &error);
            g_assert_no_error (error);
            enc = test_roundtrip (desc->encode, desc->decode, w, data);
            /* a Blosc buffer: its header names the compressor */
            g_assert_cmpuint (g_bytes_get_size (enc), >=, BLOSC_MIN_HEADER_LENGTH);
            if (counts[k] * sizes[t] >= 128 && (k + c) % 3 != 1 && (c + s + k) % 10 != 0)
              g_assert_cmpstr (blosc_cbuffer_complib (g_bytes_get_data (enc, NULL)), ==,
                               complib_of (g_ptr_array_index (names, c)));
          }
}

/* shuffle -1 is numcodecs' AUTOSHUFFLE: bit shuffle for 1-byte items,
 * byte shuffle otherwise */
static void
test_autoshuffle (void)
{
  const guint sizes[] = { 1, 4 };

  for (gsize t = 0; t < G_N_ELEMENTS (sizes); t++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) v = test_params (7, 0u, 0u, 0u, 0u, 5u, G_MAXUINT, 1u);
      NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_NONE, sizes[t], FALSE, 1, (guint64) 4096);
      g_autoptr (GArray) w = test_working (desc, &info, v, &error);
      g_autoptr (GBytes) data = test_data (4096, sizes[t], 0, 7);
      g_autoptr (GBytes) enc = NULL;
      size_t typesize;
      int flags;

      g_assert_no_error (error);
      enc = test_roundtrip (desc->encode, desc->decode, w, data);
      blosc_cbuffer_metainfo (g_bytes_get_data (enc, NULL), &typesize, &flags);
      g_assert_cmpuint (typesize, ==, sizes[t]);
      if (sizes[t] == 1)
        g_assert_true ((flags & BLOSC_DOBITSHUFFLE) != 0);
      else
        g_assert_true ((flags & BLOSC_DOSHUFFLE) != 0 && (flags & BLOSC_DOBITSHUFFLE) == 0);
    }
}

/* The HDF5 host passes h5py's compression_opts as they are: visible
 * form, typesize unknown. */
static void
test_visible_form_encodes (void)
{
  g_autoptr (GArray) v = test_params (7, 0u, 0u, 0u, 0u, 4u, 1u, 5u);
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GBytes) data = test_data (5000, 4, 0, 3);
  g_autoptr (GBytes) a = test_roundtrip (desc->encode, desc->decode, v, data);
  g_autoptr (GBytes) b = test_roundtrip (desc->encode, desc->decode, none, data);

  g_assert_cmpstr (blosc_cbuffer_complib (g_bytes_get_data (a, NULL)), ==, "Zstd");
  g_assert_cmpstr (blosc_cbuffer_complib (g_bytes_get_data (b, NULL)), ==, "BloscLZ");
}

static void
test_corrupt (void)
{
  g_autoptr (GPtrArray) names = compressor_names ();

  for (guint c = 0; c < names->len; c++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *json = g_strdup_printf ("{\"id\": \"blosc\", \"cname\": \"%s\"}",
                                               (const char *) g_ptr_array_index (names, c));
      g_autoptr (GArray) v = test_visible_from_json (desc, json, &error);
      NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_INT, 4, FALSE, 1, (guint64) 20000);
      g_autoptr (GArray) w = test_working (desc, &info, v, &error);
      g_autoptr (GBytes) data = test_data (20000, 4, 0, c);
      g_autoptr (GBytes) enc = test_roundtrip (desc->encode, desc->decode, w, data);

      g_assert_no_error (error);
      test_corruptions (desc->decode, w, enc, 80000, c);
    }
}

static void
test_corrupt_header (void)
{
  g_autoptr (GArray) w = test_params (7, 2u, 2u, 4u, 4000u, 5u, 1u, 1u);
  g_autoptr (GBytes) data = test_data (1000, 4, 0, 1);
  g_autoptr (GBytes) enc = test_roundtrip (desc->encode, desc->decode, w, data);
  gsize len;
  const guchar *src = g_bytes_get_data (enc, &len);
  struct { guint offset; guint32 value; } cases[] = {
    { 4, 0x7fffffe0u },   /* nbytes near the maximum */
    { 4, 0xffffffffu },   /* nbytes beyond it */
    { 8, 0 },             /* block size 0 */
    { 8, 1 },             /* too many blocks for the buffer */
    { 12, 0x10000 },      /* cbytes larger than the buffer */
    { 12, 3 },            /* cbytes smaller than the header */
    { 0, 9 },             /* unknown format version */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      guchar *copy = g_memdup2 (src, len);
      g_autoptr (GBytes) bad = NULL;
      g_autoptr (GBytes) out = NULL;

      if (cases[i].offset == 0)
        copy[0] = (guchar) cases[i].value;
      else
        for (guint b = 0; b < 4; b++)
          copy[cases[i].offset + b] = (cases[i].value >> (8 * b)) & 0xff;
      bad = g_bytes_new_take (copy, len);
      out = desc->decode ((guint *) w->data, w->len, bad, &error);
      g_assert_null (out);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    }

  /* random garbage */
  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr (GError) error = NULL;
      GRand *rand = g_rand_new_with_seed (round);
      gsize n = g_rand_int_range (rand, 0, 200);
      guchar *buf = g_malloc (MAX (n, 1));
      g_autoptr (GBytes) bad = NULL;
      g_autoptr (GBytes) out = NULL;

      for (gsize i = 0; i < n; i++)
        buf[i] = g_rand_int (rand) & 0xff;
      if (n >= 16 && round % 2 == 0)
        {
          /* plausible header, random body */
          buf[0] = 2;
          buf[1] = 1;
          buf[12] = n & 0xff;
          buf[13] = buf[14] = buf[15] = 0;
        }
      bad = g_bytes_new_take (buf, n);
      out = desc->decode ((guint *) w->data, w->len, bad, &error);
      if (out == NULL)
        g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
      g_rand_free (rand);
    }
}

typedef struct {
  GArray *working;
  guint index;
} ThreadJob;

static gpointer
thread_func (gpointer user_data)
{
  ThreadJob *job = user_data;

  for (guint i = 0; i < 40; i++)
    {
      g_autoptr (GBytes) data = test_data (30000 + job->index * 100 + i, 4, i % 3, job->index * 1000 + i);
      test_roundtrip_only (desc->encode, desc->decode, job->working, data);
    }
  return NULL;
}

/* Chunks are encoded on several threads at once, with different
 * compressors: nothing global may be shared. */
static void
test_threads (void)
{
  const guint codes[] = { 0, 1, 2, 4, 5, 1, 5, 0 };
  GThread *threads[G_N_ELEMENTS (codes)];
  ThreadJob jobs[G_N_ELEMENTS (codes)];

  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    {
      jobs[i].working = test_params (7, 2u, 2u, 4u, 120000u, 1u + i, i % 3, codes[i]);
      jobs[i].index = i;
      threads[i] = g_thread_new ("blosc", thread_func, &jobs[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    {
      g_thread_join (threads[i]);
      g_array_unref (jobs[i].working);
    }
}

/* The same codec reached through the registry, as the NCZarr backend
 * uses it, with the working parameters of a real variable. */
static void
test_registry (void)
{
  g_autoptr (GError) error = NULL;
  NczRegistry *registry = ncz_registry_get_default ();
  g_autoptr (NczCodec) codec = ncz_registry_lookup_codec (registry, "blosc", &error);
  g_autoptr (NczCodec) by_id = NULL;
  g_autoptr (NczUrl) url = NULL;
  g_autoptr (NczMemoryStore) store = NULL;
  g_autoptr (NczDataset) ds = NULL;
  NczDimension *dims[2];
  NczVariable *var;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  g_autofree char *json = NULL;
  const guint64 chunks[] = { 5, 50 };
  const guint expected[] = { 2, BLOSC_VERSION_FORMAT, 8, 2000, 5, 1, 1 };
  g_autoptr (GBytes) data = test_data (250, 8, 0, 5);
  g_autoptr (GBytes) enc = NULL;
  g_autoptr (GBytes) dec = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (codec);
  g_assert_cmpstr (ncz_codec_get_codec_id (codec), ==, "blosc");
  g_assert_cmpuint (ncz_codec_get_filter_id (codec), ==, 32001);
  by_id = ncz_registry_lookup_codec_by_filter_id (registry, 32001, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_codec_get_codec_id (by_id), ==, "blosc");

  url = ncz_url_parse ("file:///unused#mode=nczarr,file", &error);
  g_assert_no_error (error);
  store = ncz_memory_store_new ();
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", 10, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", 100, FALSE, &error);
  g_assert_no_error (error);
  var = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_DOUBLE, 2, dims, &error);
  g_assert_no_error (error);
  ncz_variable_set_chunk_sizes (var, chunks, 2, &error);
  g_assert_no_error (error);

  ncz_codec_params_from_json_text (codec, "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, "
                              "\"shuffle\": 1, \"blocksize\": 0}", &visible, &error);
  g_assert_no_error (error);
  ncz_codec_modify_parameters (codec, var, visible, &working, &error);
  g_assert_no_error (error);
  test_assert_params (working, 7, expected);
  json = ncz_codec_params_to_json_text (codec, (guint *) visible->data, visible->len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json, ==, "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}");

  enc = ncz_codec_encode (codec, (guint *) working->data, working->len, data, &error);
  g_assert_no_error (error);
  dec = ncz_codec_decode (codec, (guint *) working->data, working->len, enc, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (dec, data));

  /* a bad cname through the frame: the error names the codec and the cname */
  g_clear_pointer (&visible, g_array_unref);
  g_assert_false (ncz_codec_params_from_json_text (codec, "{\"id\": \"blosc\", \"cname\": \"lzma\"}",
                                              &visible, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "lzma"));
  g_assert_nonnull (strstr (error->message, "blosc"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/blosc/json/defaults", test_json_defaults);
  g_test_add_func ("/blosc/json/roundtrip", test_json_roundtrip);
  g_test_add_func ("/blosc/json/visible-layout", test_json_visible_layout);
  g_test_add_func ("/blosc/json/errors", test_json_errors);
  g_test_add_func ("/blosc/modify", test_modify);
  g_test_add_func ("/blosc/roundtrip/all", test_roundtrip_all);
  g_test_add_func ("/blosc/roundtrip/autoshuffle", test_autoshuffle);
  g_test_add_func ("/blosc/roundtrip/visible-form", test_visible_form_encodes);
  g_test_add_func ("/blosc/corrupt/body", test_corrupt);
  g_test_add_func ("/blosc/corrupt/header", test_corrupt_header);
  g_test_add_func ("/blosc/threads", test_threads);
  g_test_add_func ("/blosc/registry", test_registry);

  return g_test_run ();
}
