/* test-codecs.c: the codec modules shuffle, fletcher32, deflate (zlib),
 * bzip2 (bz2) and zstd through NczCodec, their HDF5 filter and netcdf-c
 * Codec ABIs, and byte-level interoperability with numcodecs.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gmodule.h>

#include "ncz-codec-module.h"

/* ---- helpers ---- */

static NczCodec *
lookup (const char *codec_id)
{
  g_autoptr (GError) error = NULL;
  NczCodec *codec = ncz_registry_lookup_codec (ncz_registry_get_default (), codec_id, &error);

  g_assert_no_error (error);
  g_assert_nonnull (codec);
  g_assert_cmpstr (ncz_codec_get_codec_id (codec), ==, codec_id);
  return codec;
}

/* Deterministic data: smooth values with noise in the low bytes. */
static GBytes *
make_data (gsize length, guint32 seed)
{
  guint8 *data = g_malloc (MAX (length, 1));
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < length; i++)
    {
      if (i % 4 == 0)
        data[i] = (guint8) g_rand_int_range (rand, 0, 256);
      else
        data[i] = (guint8) ((i / 64) * 3 + (i % 4));
    }
  g_rand_free (rand);
  return g_bytes_new_take (data, length);
}

static GBytes *
encode_ok (NczCodec *codec, const guint *working, gsize n, GBytes *input)
{
  g_autoptr (GError) error = NULL;
  GBytes *out = ncz_codec_encode (codec, working, n, input, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

static GBytes *
decode_ok (NczCodec *codec, const guint *working, gsize n, GBytes *input)
{
  g_autoptr (GError) error = NULL;
  GBytes *out = ncz_codec_decode (codec, working, n, input, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

static void
assert_decode_corrupt (NczCodec *codec, const guint *working, gsize n, const void *data,
                       gsize length)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) input = g_bytes_new (data, length);
  g_autoptr (GBytes) out = ncz_codec_decode (codec, working, n, input, &error);

  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_assert_null (out);
  g_assert_true (strstr (error->message, ncz_codec_get_codec_id (codec)) != NULL);
}

static GArray *
from_json_ok (NczCodec *codec, const char *json)
{
  g_autoptr (GError) error = NULL;
  GArray *params = NULL;

  g_assert_true (ncz_codec_params_from_json_text (codec, json, &params, &error));
  g_assert_no_error (error);
  g_assert_nonnull (params);
  return params;
}

static void
assert_params (GArray *params, gsize n, const guint *expected)
{
  g_assert_cmpuint (params->len, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (params, guint, i), ==, expected[i]);
}

static void
assert_from_json_fails (NczCodec *codec, const char *json, const char *mentions)
{
  g_autoptr (GError) error = NULL;
  GArray *params = NULL;

  g_assert_false (ncz_codec_params_from_json_text (codec, json, &params, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_null (params);
  if (strstr (error->message, mentions) == NULL)
    g_error ("error for %s does not mention '%s': %s", json, mentions, error->message);
}

static void
assert_to_json (NczCodec *codec, const guint *params, gsize n, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = ncz_codec_params_to_json_text (codec, params, n, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (json, ==, expected);
}

/* ---- lookups ---- */

static const struct {
  const char *codec_id;
  guint filter_id;
} known_codecs[] = {
  { "shuffle", 2 }, { "fletcher32", 3 }, { "zlib", 1 }, { "bz2", 307 }, { "zstd", 32015 },
};

static void
test_lookup (void)
{
  NczRegistry *registry = ncz_registry_get_default ();

  for (gsize i = 0; i < G_N_ELEMENTS (known_codecs); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (NczCodec) by_id = lookup (known_codecs[i].codec_id);
      g_autoptr (NczCodec) by_filter =
        ncz_registry_lookup_codec_by_filter_id (registry, known_codecs[i].filter_id, &error);

      g_assert_no_error (error);
      g_assert_nonnull (by_filter);
      g_assert_cmpuint (ncz_codec_get_filter_id (by_id), ==, known_codecs[i].filter_id);
      g_assert_cmpstr (ncz_codec_get_codec_id (by_filter), ==, known_codecs[i].codec_id);
      g_assert_true (G_OBJECT_TYPE (by_id) == G_OBJECT_TYPE (by_filter));
      g_assert_true (G_TYPE_IS_FINAL (G_OBJECT_TYPE (by_id)));
    }
}

/* ---- round trips ---- */

typedef struct {
  const char *codec_id;
  guint working[2];
  gsize n_working;
} RoundTrip;

static const RoundTrip round_trips[] = {
  { "shuffle", { 1 }, 1 }, { "shuffle", { 2 }, 1 }, { "shuffle", { 4 }, 1 },
  { "shuffle", { 8 }, 1 }, { "shuffle", { 3 }, 1 }, { "shuffle", { 16 }, 1 },
  { "shuffle", { 0 }, 0 },
  { "fletcher32", { 0 }, 0 },
  { "zlib", { 0 }, 1 }, { "zlib", { 1 }, 1 }, { "zlib", { 9 }, 1 }, { "zlib", { (guint) -1 }, 1 },
  { "zlib", { 0 }, 0 },
  { "bz2", { 1 }, 1 }, { "bz2", { 9 }, 1 }, { "bz2", { 0 }, 0 },
  { "zstd", { 1 }, 1 }, { "zstd", { 19 }, 1 }, { "zstd", { (guint) -5 }, 1 }, { "zstd", { 0 }, 1 },
  { "zstd", { 0 }, 0 },
};

static void
test_round_trip (void)
{
  static const gsize sizes[] = { 0, 1, 2, 7, 4096 + 3, 65536, 1 << 20 };

  for (gsize c = 0; c < G_N_ELEMENTS (round_trips); c++)
    {
      const RoundTrip *rt = &round_trips[c];
      g_autoptr (NczCodec) codec = lookup (rt->codec_id);

      for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
        {
          g_autoptr (GBytes) data = make_data (sizes[s], (guint32) (c * 31 + s));
          g_autoptr (GBytes) encoded = encode_ok (codec, rt->working, rt->n_working, data);
          g_autoptr (GBytes) decoded = decode_ok (codec, rt->working, rt->n_working, encoded);

          if (!g_bytes_equal (data, decoded))
            g_error ("%s (%u) round trip of %" G_GSIZE_FORMAT " bytes differs", rt->codec_id,
                     rt->n_working ? rt->working[0] : 0, sizes[s]);
        }
    }
}

/* Compressors really compress compressible data. */
static void
test_compresses (void)
{
  const char *ids[] = { "zlib", "bz2", "zstd" };
  const guint level = 1;
  gsize length = 1 << 20;
  g_autofree guint8 *zeros = g_malloc0 (length);
  g_autoptr (GBytes) data = g_bytes_new_static (zeros, length);

  for (gsize i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr (NczCodec) codec = lookup (ids[i]);
      g_autoptr (GBytes) encoded = encode_ok (codec, &level, 1, data);
      g_autoptr (GBytes) decoded = decode_ok (codec, &level, 1, encoded);

      g_assert_cmpuint (g_bytes_get_size (encoded), <, length / 100);
      g_assert_true (g_bytes_equal (data, decoded));
    }
}

/* ---- shuffle ---- */

static void
test_shuffle_layout (void)
{
  g_autoptr (NczCodec) codec = lookup ("shuffle");
  const guint four = 4;
  guint8 in[14];
  static const guint8 expected[14] = { 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13 };
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) encoded = NULL;
  g_autoptr (GBytes) decoded = NULL;
  g_autoptr (GBytes) want = g_bytes_new_static (expected, sizeof expected);

  for (guint i = 0; i < sizeof in; i++)
    in[i] = (guint8) i;
  input = g_bytes_new (in, sizeof in);
  encoded = encode_ok (codec, &four, 1, input);
  g_assert_true (g_bytes_equal (encoded, want));
  decoded = decode_ok (codec, &four, 1, encoded);
  g_assert_true (g_bytes_equal (decoded, input));
}

static void
test_shuffle_json (void)
{
  g_autoptr (NczCodec) codec = lookup ("shuffle");
  static const guint eight = 8, four = 4;
  g_autoptr (GArray) a = from_json_ok (codec, "{\"id\": \"shuffle\", \"elementsize\": 8}");
  g_autoptr (GArray) b = from_json_ok (codec, "{\"id\": \"shuffle\", \"elementsize\": \"8\"}");
  g_autoptr (GArray) c = from_json_ok (codec, "{\"id\": \"shuffle\", \"elementsize\": \"0\"}");
  g_autoptr (GArray) d = from_json_ok (codec, "{\"id\": \"shuffle\"}");

  assert_params (a, 1, &eight);
  assert_params (b, 1, &eight);
  assert_params (c, 0, NULL);
  assert_params (d, 0, NULL);
  assert_to_json (codec, &four, 1, "{\"id\": \"shuffle\", \"elementsize\": 4}");
  assert_to_json (codec, NULL, 0, "{\"id\": \"shuffle\", \"elementsize\": 0}");
  assert_from_json_fails (codec, "{\"id\": \"shuffle\", \"elementsize\": -1}", "elementsize");
  assert_from_json_fails (codec, "{\"id\": \"shuffle\", \"elementsize\": 4.5}", "elementsize");
  assert_from_json_fails (codec, "{\"id\": \"shuffle\", \"elementsize\": \"four\"}", "elementsize");
  assert_from_json_fails (codec, "{\"id\": \"shuffle\", \"elementsize\": [4]}", "elementsize");
  assert_from_json_fails (codec, "{\"id\": \"shuffle\", \"elementsize\": 4294967296}", "elementsize");
}

/* A real variable for modify_parameters: an NCZarr dataset in memory. */
static NczDataset *
new_dataset (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (NczUrl) url = ncz_url_parse ("file:///unused#mode=nczarr,file", &error);
  g_autoptr (NczMemoryStore) store = ncz_memory_store_new ();
  NczDataset *ds;

  g_assert_no_error (error);
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

static NczVariable *
new_variable (NczDataset *ds, const char *name, NczDataType type)
{
  g_autoptr (GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  static const guint64 chunks[2] = { 5, 3 };
  NczVariable *v;

  dims[0] = ncz_group_get_dimension (root, "x");
  if (dims[0] == NULL)
    {
      dims[0] = ncz_group_add_dimension (root, "x", 10, FALSE, &error);
      g_assert_no_error (error);
      dims[1] = ncz_group_add_dimension (root, "y", 6, FALSE, &error);
      g_assert_no_error (error);
    }
  else
    dims[1] = ncz_group_get_dimension (root, "y");
  v = ncz_group_add_variable (root, name, type, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_no_error (error);
  return v;
}

static void
test_shuffle_modify (void)
{
  g_autoptr (NczDataset) ds = new_dataset ();
  NczVariable *vi = new_variable (ds, "i", NCZ_DATA_TYPE_INT);
  NczVariable *vd = new_variable (ds, "d", NCZ_DATA_TYPE_DOUBLE);
  g_autoptr (NczCodec) codec = lookup ("shuffle");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) working = NULL;
  g_autoptr (GArray) working2 = NULL;
  g_autoptr (GArray) working3 = NULL;
  const guint four = 4, eight = 8, two = 2;
  g_autofree char *json = NULL;

  /* [] -> working [type size], visible rewritten so the JSON carries it */
  g_assert_true (ncz_codec_modify_parameters (codec, vi, visible, &working, &error));
  g_assert_no_error (error);
  assert_params (working, 1, &four);
  assert_params (visible, 1, &four);
  json = ncz_codec_params_to_json_text (codec, (const guint *) visible->data, visible->len, &error);
  g_assert_cmpstr (json, ==, "{\"id\": \"shuffle\", \"elementsize\": 4}");

  g_array_set_size (visible, 0);
  g_assert_true (ncz_codec_modify_parameters (codec, vd, visible, &working2, &error));
  assert_params (working2, 1, &eight);

  /* an explicit element size (numcodecs' elementsize) wins */
  g_array_set_size (visible, 0);
  g_array_append_val (visible, two);
  g_assert_true (ncz_codec_modify_parameters (codec, vd, visible, &working3, &error));
  assert_params (working3, 1, &two);
  assert_params (visible, 1, &two);
}

static void
test_var_info (void)
{
  g_autoptr (NczDataset) ds = new_dataset ();
  NczVariable *v = new_variable (ds, "s", NCZ_DATA_TYPE_SHORT);
  g_autoptr (GError) error = NULL;
  NczCodecVarInfo info;

  ncz_codec_var_info_from_variable (v, &info);
  g_assert_cmpint (info.type, ==, NCZ_DATA_TYPE_SHORT);
  g_assert_cmpuint (info.type_size, ==, 2);
  g_assert_cmpuint (info.rank, ==, 2);
  g_assert_cmpuint (info.chunks[0], ==, 5);
  g_assert_cmpuint (info.chunks[1], ==, 3);
  g_assert_cmpuint (info.chunk_bytes, ==, 30);
  g_assert_cmpint (info.big_endian, ==, G_BYTE_ORDER == G_BIG_ENDIAN);

  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
  g_assert_no_error (error);
  ncz_codec_var_info_from_variable (v, &info);
  g_assert_true (info.big_endian);
  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_LITTLE, &error));
  ncz_codec_var_info_from_variable (v, &info);
  g_assert_false (info.big_endian);
}

/* ---- fletcher32 ---- */

static void
test_fletcher32 (void)
{
  g_autoptr (NczCodec) codec = lookup ("fletcher32");
  /* "abcde": words 0x6162, 0x6364 and the odd byte 0x65 as 0x6500 */
  static const guint8 abcde[] = { 'a', 'b', 'c', 'd', 'e' };
  g_autoptr (GBytes) input = g_bytes_new_static (abcde, sizeof abcde);
  g_autoptr (GBytes) encoded = encode_ok (codec, NULL, 0, input);
  g_autoptr (GBytes) decoded = NULL;
  g_autoptr (GArray) params = from_json_ok (codec, "{\"id\": \"fletcher32\"}");
  g_autoptr (GArray) visible = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) working = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 *e;
  gsize n;
  guint32 sum1, sum2, stored;
  guint8 copy[9];

  /* sum1 = 0x6162 + 0x6364 + 0x6500, sum2 = running sums, folded */
  sum1 = 0x6162 + 0x6364 + 0x6500;
  sum2 = 0x6162 + (0x6162 + 0x6364) + sum1;
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  e = g_bytes_get_data (encoded, &n);
  g_assert_cmpuint (n, ==, 9);
  g_assert_cmpmem (e, 5, abcde, 5);
  stored = e[5] | (e[6] << 8) | (e[7] << 16) | ((guint32) e[8] << 24);
  g_assert_cmphex (stored, ==, (sum2 << 16) | sum1);

  decoded = decode_ok (codec, NULL, 0, encoded);
  g_assert_true (g_bytes_equal (decoded, input));

  /* HDF5 < 1.6.3's byte-swapped checksum is accepted too */
  memcpy (copy, e, 9);
  copy[5] = e[6];
  copy[6] = e[5];
  copy[7] = e[8];
  copy[8] = e[7];
  {
    g_autoptr (GBytes) swapped = g_bytes_new (copy, 9);
    g_autoptr (GBytes) out = decode_ok (codec, NULL, 0, swapped);
    g_assert_true (g_bytes_equal (out, input));
  }

  /* a flipped data bit, a flipped checksum bit, too short */
  memcpy (copy, e, 9);
  copy[2] ^= 0x10;
  assert_decode_corrupt (codec, NULL, 0, copy, 9);
  memcpy (copy, e, 9);
  copy[8] ^= 0x01;
  assert_decode_corrupt (codec, NULL, 0, copy, 9);
  assert_decode_corrupt (codec, NULL, 0, e, 3);
  assert_decode_corrupt (codec, NULL, 0, "", 0);

  assert_params (params, 0, NULL);
  assert_to_json (codec, NULL, 0, "{\"id\": \"fletcher32\"}");
  g_assert_true (ncz_codec_modify_parameters (codec, NULL, visible, &working, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (working->len, ==, 0);
}

/* ---- parameters of the compressors ---- */

static void
test_zlib_json (void)
{
  g_autoptr (NczCodec) codec = lookup ("zlib");
  static const guint five = 5, six = 6, one = 1, minus_one = (guint) -1;
  g_autoptr (GArray) a = from_json_ok (codec, "{\"id\": \"zlib\", \"level\": 5}");
  g_autoptr (GArray) b = from_json_ok (codec, "{\"id\": \"zlib\", \"level\": \"5\"}");
  g_autoptr (GArray) c = from_json_ok (codec, "{\"id\": \"zlib\"}");
  g_autoptr (GArray) d = from_json_ok (codec, "{\"level\": -1, \"id\": \"zlib\", \"extra\": [1]}");

  assert_params (a, 1, &five);
  assert_params (b, 1, &five);
  assert_params (c, 1, &six);
  assert_params (d, 1, &minus_one);
  assert_to_json (codec, &one, 1, "{\"id\": \"zlib\", \"level\": 1}");
  assert_to_json (codec, &minus_one, 1, "{\"id\": \"zlib\", \"level\": -1}");
  assert_from_json_fails (codec, "{\"id\": \"zlib\", \"level\": 10}", "level");
  assert_from_json_fails (codec, "{\"id\": \"zlib\", \"level\": \"high\"}", "level");
  assert_from_json_fails (codec, "{\"id\": \"zlib\", \"level\": true}", "level");
  assert_from_json_fails (codec, "{\"id\": \"zlib\", \"level\": \"5\\u0000\"}", "level");
  assert_from_json_fails (codec, "{\"id\": \"gzip\", \"level\": 5}", "'id'");
  assert_from_json_fails (codec, "{\"level\": 5}", "'id'");
  assert_from_json_fails (codec, "{\"id\": 1}", "'id'");
  assert_from_json_fails (codec, "[\"zlib\"]", "object");
  assert_from_json_fails (codec, "{\"id\": \"zlib\", ", "zlib");
  assert_from_json_fails (codec, "", "zlib");
}

static void
test_bz2_json (void)
{
  g_autoptr (NczCodec) codec = lookup ("bz2");
  static const guint nine = 9, seven = 7;
  g_autoptr (GArray) a = from_json_ok (codec, "{\"id\": \"bz2\", \"level\": 7}");
  g_autoptr (GArray) b = from_json_ok (codec, "{\"id\": \"bz2\", \"level\": \"7\"}");
  g_autoptr (GArray) c = from_json_ok (codec, "{\"id\": \"bz2\"}");
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;
  static const guint zero = 0;

  assert_params (a, 1, &seven);
  assert_params (b, 1, &seven);
  assert_params (c, 1, &nine);
  assert_to_json (codec, &nine, 1, "{\"id\": \"bz2\", \"level\": 9}");
  assert_from_json_fails (codec, "{\"id\": \"bz2\", \"level\": 0}", "level");
  assert_from_json_fails (codec, "{\"id\": \"bz2\", \"level\": -1}", "level");
  assert_from_json_fails (codec, "{\"id\": \"bz2\", \"level\": 1e3}", "level");
  json = ncz_codec_params_to_json_text (codec, &zero, 1, &error);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_null (json);
}

static void
test_zstd_json (void)
{
  g_autoptr (NczCodec) codec = lookup ("zstd");
  static const guint five = 5, three = 3, minus_three = (guint) -3;
  g_autoptr (GArray) a = from_json_ok (codec, "{\"id\": \"zstd\", \"level\": 5}");
  g_autoptr (GArray) b = from_json_ok (codec, "{\"id\": \"zstd\", \"level\": \"5\"}");
  g_autoptr (GArray) c = from_json_ok (codec, "{\"id\": \"zstd\"}");
  g_autoptr (GArray) d = from_json_ok (codec, "{\"id\": \"zstd\", \"level\": \"-3\"}");

  assert_params (a, 1, &five);
  assert_params (b, 1, &five);
  assert_params (c, 1, &three);
  assert_params (d, 1, &minus_three);
  assert_to_json (codec, &five, 1, "{\"id\": \"zstd\", \"level\": 5}");
  assert_to_json (codec, &minus_three, 1, "{\"id\": \"zstd\", \"level\": -3}");
  assert_from_json_fails (codec, "{\"id\": \"zstd\", \"level\": 100}", "level");
  assert_from_json_fails (codec, "{\"id\": \"zstd\", \"level\": null, \"x\": 1", "zstd");
  assert_from_json_fails (codec, "{\"id\": \"zstd\", \"level\": \"\"}", "level");
  assert_from_json_fails (codec, "{\"id\": \"zstd\", \"level\": \"99999999999999999999\"}", "level");
}

/* ---- corrupt input ---- */

static void
test_corrupt (void)
{
  const char *ids[] = { "zlib", "bz2", "zstd" };
  static const char garbage[] = "this is not compressed data, not at all";
  g_autoptr (GBytes) data = make_data (65536, 7);

  for (gsize i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr (NczCodec) codec = lookup (ids[i]);
      const guint level = 5;
      g_autoptr (GBytes) encoded = encode_ok (codec, &level, 1, data);
      gsize n;
      const guint8 *e = g_bytes_get_data (encoded, &n);

      assert_decode_corrupt (codec, &level, 1, garbage, sizeof garbage);
      assert_decode_corrupt (codec, &level, 1, "", 0);
      assert_decode_corrupt (codec, &level, 1, e, 1);
      assert_decode_corrupt (codec, &level, 1, e, n / 2);
      assert_decode_corrupt (codec, &level, 1, e, n - 1);
      /* every truncation of a short stream fails cleanly */
      {
        g_autoptr (GBytes) small = make_data (300, 9);
        g_autoptr (GBytes) small_enc = encode_ok (codec, &level, 1, small);
        gsize sn;
        const guint8 *se = g_bytes_get_data (small_enc, &sn);

        for (gsize cut = 0; cut < sn; cut++)
          assert_decode_corrupt (codec, &level, 1, se, cut);
      }
      /* random flips must never crash; checksummed formats must notice */
      for (guint flip = 0; flip < 200; flip++)
        {
          g_autofree guint8 *copy = g_memdup2 (e, n);
          g_autoptr (GBytes) bad = NULL;
          g_autoptr (GBytes) out = NULL;
          g_autoptr (GError) error = NULL;

          copy[(flip * 7919u) % n] ^= (guint8) (1u << (flip % 8));
          bad = g_bytes_new (copy, n);
          out = ncz_codec_decode (codec, &level, 1, bad, &error);
          if (out == NULL)
            g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
          else if (strcmp (ids[i], "zstd") != 0)
            g_assert_true (g_bytes_equal (out, data));   /* zlib: adler32, bz2: CRC */
        }
    }
}

/* A zstd frame header claiming far more content than its bytes can hold
 * is refused before anything that size is allocated. */
static void
test_zstd_lying_header (void)
{
  g_autoptr (NczCodec) codec = lookup ("zstd");
  const guint level = 1;
  guint8 frame[32] = { 0x28, 0xb5, 0x2f, 0xfd,   /* magic */
                       0xe0 };                     /* 8-byte content size, single segment */
  guint64 claimed = G_GUINT64_CONSTANT (1) << 40;

  for (int i = 0; i < 8; i++)
    frame[5 + i] = (guint8) (claimed >> (8 * i));
  /* a last raw block of 3 bytes */
  frame[13] = 0x19;
  frame[14] = 0x00;
  frame[15] = 0x00;
  frame[16] = 'a';
  frame[17] = 'b';
  frame[18] = 'c';
  assert_decode_corrupt (codec, &level, 1, frame, 19);

  /* the same with a plausible size that is simply wrong */
  claimed = 1000;
  for (int i = 0; i < 8; i++)
    frame[5 + i] = (guint8) (claimed >> (8 * i));
  assert_decode_corrupt (codec, &level, 1, frame, 19);

  /* and right: 3 bytes */
  claimed = 3;
  for (int i = 0; i < 8; i++)
    frame[5 + i] = (guint8) (claimed >> (8 * i));
  {
    g_autoptr (GBytes) input = g_bytes_new (frame, 19);
    g_autoptr (GBytes) out = decode_ok (codec, &level, 1, input);
    g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out), "abc", 3);
  }
}

/* Frames without a content size and concatenated frames (what streaming
 * encoders write) decode too. */
static void
test_zstd_frames (void)
{
  g_autoptr (NczCodec) codec = lookup ("zstd");
  const guint level = 3;
  g_autoptr (GBytes) a = make_data (5000, 1);
  g_autoptr (GBytes) b = make_data (70000, 2);
  g_autoptr (GBytes) ea = encode_ok (codec, &level, 1, a);
  g_autoptr (GBytes) eb = encode_ok (codec, &level, 1, b);
  g_autoptr (GByteArray) both = g_byte_array_new ();
  g_autoptr (GByteArray) expected = g_byte_array_new ();
  g_autoptr (GBytes) joined = NULL;
  g_autoptr (GBytes) out = NULL;
  gsize n;
  const guint8 *p;

  p = g_bytes_get_data (ea, &n);
  g_byte_array_append (both, p, n);
  p = g_bytes_get_data (eb, &n);
  g_byte_array_append (both, p, n);
  p = g_bytes_get_data (a, &n);
  g_byte_array_append (expected, p, n);
  p = g_bytes_get_data (b, &n);
  g_byte_array_append (expected, p, n);
  joined = g_bytes_new (both->data, both->len);
  out = decode_ok (codec, &level, 1, joined);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out), expected->data,
                   expected->len);
}

/* ---- the HDF5 and netcdf-c ABIs of the same modules ---- */

static GModule *
open_module (const char *name)
{
  g_autofree char *path = g_strdup_printf ("%s/%s/libncz-codec-%s.so", PLUGINS_BUILD_DIR, name, name);
  GModule *module = g_module_open (path, G_MODULE_BIND_LOCAL);

  if (module == NULL)
    g_error ("cannot open %s: %s", path, g_module_error ());
  return module;
}

static gpointer
module_symbol (GModule *module, const char *name)
{
  gpointer p = NULL;

  g_assert_true (g_module_symbol (module, name, &p));
  g_assert_nonnull (p);
  return p;
}

static void
test_hdf5_abi (void)
{
  static const struct {
    const char *module;
    guint id;
    guint cd[1];
    gsize n_cd;
  } cases[] = {
    { "zstd", 32015, { 3 }, 1 }, { "bzip2", 307, { 9 }, 1 }, { "deflate", 1, { 6 }, 1 },
    { "shuffle", 2, { 4 }, 1 }, { "fletcher32", 3, { 0 }, 0 }, { "zstd", 32015, { 0 }, 0 },
  };

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      GModule *module = open_module (cases[c].module);
      NczH5PLGetPluginTypeFunc get_type = module_symbol (module, "H5PLget_plugin_type");
      NczH5PLGetPluginInfoFunc get_info = module_symbol (module, "H5PLget_plugin_info");
      const NczH5ZClass2 *cls;
      g_autoptr (GBytes) data = make_data (10000, 3);
      size_t buf_size = g_bytes_get_size (data);
      void *buf = malloc (buf_size);
      size_t n;

      g_assert_cmpint (get_type (), ==, NCZ_H5PL_TYPE_FILTER);
      cls = get_info ();
      g_assert_cmpint (cls->version, ==, NCZ_H5Z_CLASS_T_VERS);
      g_assert_cmpint (cls->id, ==, (int) cases[c].id);
      g_assert_cmpuint (cls->encoder_present, ==, 1);
      g_assert_cmpuint (cls->decoder_present, ==, 1);
      g_assert_nonnull (cls->name);
      g_assert_null (cls->can_apply);
      g_assert_null (cls->set_local);

      memcpy (buf, g_bytes_get_data (data, NULL), buf_size);
      n = cls->filter (0, cases[c].n_cd, cases[c].cd, buf_size, &buf_size, &buf);
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (buf_size, >=, n);
      n = cls->filter (NCZ_H5Z_FLAG_REVERSE, cases[c].n_cd, cases[c].cd, n, &buf_size, &buf);
      g_assert_cmpuint (n, ==, g_bytes_get_size (data));
      g_assert_cmpmem (buf, n, g_bytes_get_data (data, NULL), n);

      /* corrupt input: failure (0), the buffer is left for the caller to free */
      if (strcmp (cases[c].module, "shuffle") != 0)
        {
          memcpy (buf, "garbage!garbage!", 16);
          n = cls->filter (NCZ_H5Z_FLAG_REVERSE, cases[c].n_cd, cases[c].cd, 16, &buf_size, &buf);
          g_assert_cmpuint (n, ==, 0);
          g_assert_nonnull (buf);
        }
      free (buf);
      /* modules stay loaded: their GTypes may be registered */
      g_module_make_resident (module);
      g_module_close (module);
    }
}

/* The netCDF inquiry functions a Codec module's modify_parameters looks
 * up at run time, for a 2-D int variable chunked 5x3, big-endian. */
int nc_inq_var (int ncid, int varid, char *name, int *xtypep, int *ndimsp, int *dimidsp,
                int *nattsp);
int nc_inq_type (int ncid, int xtype, char *name, size_t *sizep);
int nc_inq_var_chunking (int ncid, int varid, int *storagep, size_t *chunksizesp);
int nc_inq_var_endian (int ncid, int varid, int *endianp);

int
nc_inq_var (int ncid, int varid, char *name, int *xtypep, int *ndimsp, int *dimidsp, int *nattsp)
{
  if (ncid != 65536 || varid != 3)
    return -49;   /* NC_ENOTVAR */
  if (name != NULL)
    strcpy (name, "v");
  if (xtypep != NULL)
    *xtypep = 4;   /* NC_INT */
  if (ndimsp != NULL)
    *ndimsp = 2;
  if (dimidsp != NULL)
    {
      dimidsp[0] = 0;
      dimidsp[1] = 1;
    }
  if (nattsp != NULL)
    *nattsp = 0;
  return 0;
}

int
nc_inq_type (int ncid, int xtype, char *name, size_t *sizep)
{
  if (xtype != 4)
    return -45;   /* NC_EBADTYPE */
  if (sizep != NULL)
    *sizep = 4;
  return 0;
}

int
nc_inq_var_chunking (int ncid, int varid, int *storagep, size_t *chunksizesp)
{
  *storagep = 0;   /* NC_CHUNKED */
  chunksizesp[0] = 5;
  chunksizesp[1] = 3;
  return 0;
}

int
nc_inq_var_endian (int ncid, int varid, int *endianp)
{
  *endianp = 2;   /* NC_ENDIAN_BIG */
  return 0;
}

static void
test_codec_abi (void)
{
  GModule *zstd = open_module ("zstd");
  GModule *shuffle = open_module ("shuffle");
  NczGetCodecInfoFunc get_zstd = module_symbol (zstd, "NCZ_get_codec_info");
  NczGetCodecInfoFunc get_shuffle = module_symbol (shuffle, "NCZ_get_codec_info");
  const NczAbiCodec *zc = get_zstd ();
  const NczAbiCodec *sc = get_shuffle ();
  size_t n = 0, vn, wn;
  unsigned *params = NULL, *vp, *wp;
  char *json = NULL;
  static const unsigned seven = 7;

  g_assert_cmpint (zc->version, ==, NCZ_ABI_CODEC_CLASS_VER);
  g_assert_cmpint (zc->sort, ==, NCZ_ABI_CODEC_HDF5);
  g_assert_cmpstr (zc->codecid, ==, "zstd");
  g_assert_cmpuint (zc->hdf5id, ==, 32015);
  g_assert_cmpstr (sc->codecid, ==, "shuffle");
  g_assert_cmpuint (sc->hdf5id, ==, 2);

  /* netcdf-c <= 4.9.3 quotes its numbers */
  g_assert_cmpint (zc->NCZ_codec_to_hdf5 ("{\"id\": \"zstd\", \"level\": \"7\"}", &n, &params), ==, 0);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (params[0], ==, 7);
  free (params);
  g_assert_cmpint (zc->NCZ_codec_to_hdf5 ("{\"id\": \"blosc\"}", &n, &params), !=, 0);
  g_assert_cmpint (zc->NCZ_codec_to_hdf5 ("{", &n, &params), !=, 0);
  g_assert_cmpint (zc->NCZ_hdf5_to_codec (1, &seven, &json), ==, 0);
  g_assert_cmpstr (json, ==, "{\"id\": \"zstd\", \"level\": 7}");
  free (json);

  /* working = visible for zstd: no host functions needed */
  vn = 1;
  vp = malloc (sizeof *vp);
  vp[0] = 7;
  wn = 0;
  wp = NULL;
  g_assert_cmpint (zc->NCZ_modify_parameters (65536, 3, &vn, &vp, &wn, &wp), ==, 0);
  g_assert_cmpuint (wn, ==, 1);
  g_assert_cmpuint (wp[0], ==, 7);
  free (vp);
  free (wp);

  /* shuffle asks the host (this program) for the type size */
  vn = 0;
  vp = NULL;
  wn = 1;
  wp = malloc (sizeof *wp);
  wp[0] = 99;
  g_assert_cmpint (sc->NCZ_modify_parameters (65536, 3, &vn, &vp, &wn, &wp), ==, 0);
  g_assert_cmpuint (wn, ==, 1);
  g_assert_cmpuint (wp[0], ==, 4);
  g_assert_cmpuint (vn, ==, 1);
  g_assert_cmpuint (vp[0], ==, 4);
  free (vp);
  free (wp);
  /* an unknown variable: the host's error comes back */
  vn = 0;
  vp = NULL;
  wn = 0;
  wp = NULL;
  g_assert_cmpint (sc->NCZ_modify_parameters (65536, 4, &vn, &vp, &wn, &wp), ==, -49);
  g_assert_null (wp);

  g_module_make_resident (zstd);
  g_module_make_resident (shuffle);
  g_module_close (zstd);
  g_module_close (shuffle);
}

/* ---- numcodecs interoperability ---- */

static const char *
numcodecs_codec_id (const char *case_name)
{
  if (g_str_has_prefix (case_name, "zlib"))
    return "zlib";
  if (g_str_has_prefix (case_name, "bz2"))
    return "bz2";
  if (g_str_has_prefix (case_name, "zstd"))
    return "zstd";
  if (g_str_has_prefix (case_name, "shuffle"))
    return "shuffle";
  return NULL;
}

static gboolean
run_helper (const char *mode, const char *dir, char **output)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "codecs", "numcodecs-helper.py", NULL);
  const char *python = g_getenv ("PYTHON") ? g_getenv ("PYTHON") : "/usr/bin/python3";
  const char *argv[] = { python, script, mode, dir, NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;
  g_autofree char *err = NULL;
  g_autofree char *ignored = NULL;

  if (output == NULL)
    output = &ignored;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, output, &err,
                     &status, &error))
    {
      g_autofree char *why = g_strdup_printf ("cannot run %s: %s", python, error->message);
      g_test_skip (why);
      return FALSE;
    }
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("numcodecs is not installed");
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("numcodecs-helper.py %s failed: %s\n%s%s", mode, error->message,
             *output ? *output : "", err);
  return TRUE;
}

static void
test_numcodecs_decode (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-XXXXXX", &error);
  g_autoptr (GDir) listing = NULL;
  const char *name;
  guint count = 0;

  g_assert_no_error (error);
  if (!run_helper ("encode", dir, NULL))
    return;
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *case_name = NULL;
      g_autofree char *path = NULL;
      g_autofree char *json = NULL;
      g_autofree char *raw = NULL;
      g_autofree char *enc = NULL;
      gsize raw_len, enc_len;
      g_autoptr (NczCodec) codec = NULL;
      g_autoptr (GArray) params = NULL;
      g_autoptr (GBytes) input = NULL;
      g_autoptr (GBytes) decoded = NULL;
      g_autoptr (GBytes) encoded = NULL;
      g_autoptr (GBytes) raw_bytes = NULL;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      case_name = g_strndup (name, strlen (name) - 5);
      path = g_build_filename (dir, name, NULL);
      g_assert_true (g_file_get_contents (path, &json, NULL, &error));
      g_free (path);
      path = g_strdup_printf ("%s/%s.raw", dir, case_name);
      g_assert_true (g_file_get_contents (path, &raw, &raw_len, &error));
      g_free (path);
      path = g_strdup_printf ("%s/%s.enc", dir, case_name);
      g_assert_true (g_file_get_contents (path, &enc, &enc_len, &error));

      codec = lookup (numcodecs_codec_id (case_name));
      params = from_json_ok (codec, json);
      input = g_bytes_new (enc, enc_len);
      /* with an explicit elementsize, working = visible for all four */
      decoded = decode_ok (codec, (const guint *) params->data, params->len, input);
      raw_bytes = g_bytes_new (raw, raw_len);
      if (!g_bytes_equal (decoded, raw_bytes))
        g_error ("%s: Ncz decodes numcodecs' data differently", case_name);
      /* shuffle is a fixed layout and zlib the same library: same bytes */
      encoded = encode_ok (codec, (const guint *) params->data, params->len, raw_bytes);
      if ((g_str_has_prefix (case_name, "shuffle") || g_str_has_prefix (case_name, "zlib"))
          && !g_bytes_equal (encoded, input))
        g_error ("%s: Ncz encodes differently from numcodecs", case_name);
      count++;
    }
  g_assert_cmpuint (count, >=, 30);
}

static void
test_numcodecs_encode (void)
{
  static const struct {
    const char *codec_id;
    guint level;
    gboolean same;   /* numcodecs must produce the same bytes */
  } cases[] = {
    { "zlib", 1, TRUE }, { "zlib", 9, TRUE }, { "bz2", 1, FALSE }, { "bz2", 9, FALSE },
    { "zstd", 1, FALSE }, { "zstd", (guint) -2, FALSE }, { "zstd", 12, FALSE },
    { "shuffle", 2, TRUE }, { "shuffle", 4, TRUE }, { "shuffle", 8, TRUE },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-XXXXXX", &error);
  g_autofree char *output = NULL;

  g_assert_no_error (error);
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint s = 0; s < 3; s++)
      {
        g_autoptr (NczCodec) codec = lookup (cases[c].codec_id);
        g_autoptr (GBytes) data = make_data (s == 0 ? 8 : s == 1 ? 40000 : 1 << 20, c * 3 + s);
        g_autoptr (GBytes) encoded = encode_ok (codec, &cases[c].level, 1, data);
        g_autofree char *json =
          ncz_codec_params_to_json_text (codec, &cases[c].level, 1, &error);
        g_autofree char *base = g_strdup_printf ("%s/%s-%u-%u", dir, cases[c].codec_id,
                                                 cases[c].level, s);
        g_autofree char *path = NULL;

        g_assert_no_error (error);
        path = g_strconcat (base, ".json", NULL);
        g_assert_true (g_file_set_contents (path, json, -1, &error));
        g_free (path);
        path = g_strconcat (base, ".raw", NULL);
        g_assert_true (g_file_set_contents (path, g_bytes_get_data (data, NULL),
                                            g_bytes_get_size (data), &error));
        g_free (path);
        path = g_strconcat (base, ".enc", NULL);
        g_assert_true (g_file_set_contents (path, g_bytes_get_data (encoded, NULL),
                                            g_bytes_get_size (encoded), &error));
        if (cases[c].same)
          {
            g_free (path);
            path = g_strconcat (base, ".same", NULL);
            g_assert_true (g_file_set_contents (path, "", 0, &error));
          }
        g_assert_no_error (error);
      }
  if (!run_helper ("decode", dir, &output))
    return;
  g_test_message ("numcodecs: %s", output);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/codecs/lookup", test_lookup);
  g_test_add_func ("/codecs/round-trip", test_round_trip);
  g_test_add_func ("/codecs/compresses", test_compresses);
  g_test_add_func ("/codecs/corrupt", test_corrupt);
  g_test_add_func ("/codecs/shuffle/layout", test_shuffle_layout);
  g_test_add_func ("/codecs/shuffle/json", test_shuffle_json);
  g_test_add_func ("/codecs/shuffle/modify", test_shuffle_modify);
  g_test_add_func ("/codecs/var-info", test_var_info);
  g_test_add_func ("/codecs/fletcher32", test_fletcher32);
  g_test_add_func ("/codecs/zlib/json", test_zlib_json);
  g_test_add_func ("/codecs/bz2/json", test_bz2_json);
  g_test_add_func ("/codecs/zstd/json", test_zstd_json);
  g_test_add_func ("/codecs/zstd/lying-header", test_zstd_lying_header);
  g_test_add_func ("/codecs/zstd/frames", test_zstd_frames);
  g_test_add_func ("/codecs/abi/hdf5", test_hdf5_abi);
  g_test_add_func ("/codecs/abi/netcdf-c", test_codec_abi);
  g_test_add_func ("/codecs/numcodecs/decode", test_numcodecs_decode);
  g_test_add_func ("/codecs/numcodecs/encode", test_numcodecs_encode);

  return g_test_run ();
}
