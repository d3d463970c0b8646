/* test-szip.c: the SZIP codec module's descriptor: JSON and parameters,
 * HDF5's rules for the working parameters, round trips over types,
 * shapes and options, HDF5's chunk format, damaged input, and its
 * NczCodec through the registry.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <szlib.h>

#include "ncz-szip-codec.h"
#include "codec-test-util.h"

static const NczCodecModuleDesc *desc = &ncz_szip_codec_desc;

#define K13 SZ_ALLOW_K13_OPTION_MASK
#define RAW SZ_RAW_OPTION_MASK
#define LSB SZ_LSB_OPTION_MASK
#define MSB SZ_MSB_OPTION_MASK
#define NN SZ_NN_OPTION_MASK
#define EC SZ_EC_OPTION_MASK

static void
test_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) a = test_visible_from_json (desc, "{\"id\": \"szip\", \"mask\": 4, \"pixels-per-block\": 16}", &error);
  g_autoptr (GArray) b = test_visible_from_json (desc, "{\"id\": \"szip\", \"mask\": \"32\", \"pixels-per-block\": \"8\"}", &error);
  g_autoptr (GArray) c = test_visible_from_json (desc, "{\"id\": \"szip\"}", &error);
  const guint av[] = { 4, 16 };
  const guint bv[] = { 32, 8 };
  const guint cv[] = { 32, 32 };
  /* what HDF5 stores in a file (4 values) gives the JSON of the first two */
  const guint h5file[] = { NN | K13 | RAW | LSB, 16, 32, 200 };
  g_autofree char *j1 = NULL, *j2 = NULL;

  g_assert_no_error (error);
  test_assert_params (a, 2, av);
  test_assert_params (b, 2, bv);
  test_assert_params (c, 2, cv);
  j1 = test_json_from_visible (desc, av, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j1, ==, "{\"id\": \"szip\", \"mask\": 4, \"pixels-per-block\": 16}");
  j2 = test_json_from_visible (desc, h5file, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j2, ==, "{\"id\": \"szip\", \"mask\": 169, \"pixels-per-block\": 16}");
}

static void
test_json_errors (void)
{
  const struct { const char *json; const char *needle; } cases[] = {
    { "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 15}", "pixels per block" },
    { "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 34}", "pixels per block" },
    { "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 0}", "pixels per block" },
    { "{\"id\": \"szip\", \"mask\": 0, \"pixels-per-block\": 8}", "coding method" },
    { "{\"id\": \"szip\", \"mask\": 36, \"pixels-per-block\": 8}", "coding method" },
    { "{\"id\": \"szip\", \"mask\": 288, \"pixels-per-block\": 8}", "unknown bits" },
    { "{\"id\": \"szip\", \"mask\": -4, \"pixels-per-block\": 8}", "mask" },
    { "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": [8]}", "pixels-per-block" },
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
    const guint three[] = { 32, 8, 8 };
    g_autoptr (GError) error = NULL;
    g_autofree char *j = test_json_from_visible (desc, three, 3, &error);

    g_assert_null (j);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  }
}

/* HDF5's set_local rules for the szip filter */
static void
test_modify (void)
{
  const struct {
    guint mask, ppb;
    guint type_size;
    gboolean big_endian;
    guint rank;
    guint64 chunks[3];
    guint expected[4];
  } cases[] = {
    /* last dimension between ppb and 4096: min (ppb * 128, dim) */
    { NN, 16, 4, FALSE, 2, { 100, 200 }, { NN | K13 | RAW | LSB, 16, 32, 200 } },
    { NN, 8, 4, FALSE, 1, { 3000 }, { NN | K13 | RAW | LSB, 8, 32, 1024 } },
    /* above 4096: ppb * 128 */
    { EC, 32, 8, FALSE, 1, { 10000 }, { EC | K13 | RAW | LSB, 32, 64, 4096 } },
    { EC, 8, 8, FALSE, 1, { 10000 }, { EC | K13 | RAW | LSB, 8, 64, 1024 } },
    /* last dimension shorter than a block: the chunk's element count */
    { NN, 16, 2, FALSE, 2, { 10, 5 }, { NN | K13 | RAW | LSB, 16, 16, 50 } },
    { NN, 4, 2, FALSE, 3, { 100, 10, 2 }, { NN | K13 | RAW | LSB, 4, 16, 512 } },
    /* byte order of the stored data */
    { NN, 32, 8, TRUE, 1, { 64 }, { NN | K13 | RAW | MSB, 32, 64, 64 } },
    { NN | LSB, 32, 2, TRUE, 1, { 64 }, { NN | K13 | RAW | MSB, 32, 16, 64 } },
    /* CHIP is dropped; 1-byte elements: 8 bits */
    { EC | SZ_CHIP_OPTION_MASK, 8, 1, FALSE, 1, { 64 }, { EC | K13 | RAW | LSB, 8, 8, 64 } },
    /* the 4 values an HDF5 file stores as visible parameters */
    { NN | K13 | RAW | MSB, 32, 4, FALSE, 1, { 64 }, { NN | K13 | RAW | LSB, 32, 32, 64 } },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) v = (cases[i].mask & RAW) != 0
                             ? test_params (4, cases[i].mask, cases[i].ppb, 32u, 64u)
                             : test_params (2, cases[i].mask, cases[i].ppb);
      NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_NONE, cases[i].type_size, cases[i].big_endian, 0);
      g_autoptr (GArray) w = NULL;

      info.rank = cases[i].rank;
      for (guint d = 0; d < cases[i].rank; d++)
        info.chunks[d] = cases[i].chunks[d];
      w = test_working (desc, &info, v, &error);
      g_assert_no_error (error);
      test_assert_params (w, 4, cases[i].expected);
    }
}

static void
test_modify_errors (void)
{
  g_autoptr (GArray) v = test_params (2, (guint) NN, 16u);
  const struct { NczDataType type; guint type_size; guint rank; guint64 last; const char *needle; } cases[] = {
    { NCZ_DATA_TYPE_DOUBLE, 8, 0, 0, "rank" },           /* scalar */
    { NCZ_DATA_TYPE_INT, 4, 1, 3, "elements of a chunk" }, /* fewer elements than a block */
    { NCZ_DATA_TYPE_STRING, 4, 1, 100, "strings" },
    { NCZ_DATA_TYPE_NONE, 16, 1, 100, "element size" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      NczCodecVarInfo info = test_var_info (cases[i].type, cases[i].type_size, FALSE, 0);
      g_autoptr (GArray) w = NULL;

      info.rank = cases[i].rank;
      info.chunks[0] = cases[i].last;
      w = test_working (desc, &info, v, &error);
      g_assert_null (w);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
    }
}

static void
test_roundtrip_shapes (void)
{
  const guint type_sizes[] = { 1, 2, 4, 8 };
  const struct { guint rank; guint64 chunks[3]; } shapes[] = {
    { 1, { 1000 } },
    { 2, { 37, 53 } },
    { 3, { 5, 3, 7 } },
    { 1, { 4096 * 3 + 17 } },
    { 2, { 2, 40 } },
    { 1, { 32 } },
    { 2, { 3, 10000 } },
  };
  const guint masks[] = { NN, EC };
  const guint ppbs[] = { 2, 4, 8, 10, 16, 32 };
  guint runs = 0;

  for (gsize t = 0; t < G_N_ELEMENTS (type_sizes); t++)
    for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
      for (gsize m = 0; m < G_N_ELEMENTS (masks); m++)
        for (gsize p = 0; p < G_N_ELEMENTS (ppbs); p++)
          for (guint be = 0; be < 2; be++)
            {
              g_autoptr (GError) error = NULL;
              g_autoptr (GArray) v = test_params (2, masks[m], ppbs[p]);
              NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_NONE, type_sizes[t], be, 0);
              g_autoptr (GArray) w = NULL;
              g_autoptr (GBytes) data = NULL;
              g_autoptr (GBytes) enc = NULL;
              guint64 n = 1;
              const guchar *hdr;

              info.rank = shapes[s].rank;
              for (guint d = 0; d < info.rank; d++)
                {
                  info.chunks[d] = shapes[s].chunks[d];
                  n *= shapes[s].chunks[d];
                }
              info.chunk_bytes = n * type_sizes[t];
              w = test_working (desc, &info, v, &error);
              g_assert_no_error (error);
              data = test_data (n, type_sizes[t], (guint) ((t + s + p) % 3), (guint32) (t * 1000 + s * 100 + p));
              enc = test_roundtrip (desc->encode, desc->decode, w, data);
              /* HDF5's szip chunk: 4-byte little-endian uncompressed size first */
              hdr = g_bytes_get_data (enc, NULL);
              g_assert_cmpuint (hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (guint32) hdr[3] << 24, ==,
                                n * type_sizes[t]);
              runs++;
            }
  g_assert_cmpuint (runs, >, 600);
}

/* A chunk shorter than a whole number of scanlines (the last chunk of a
 * variable read whole), noise that does not compress, all-equal data */
static void
test_roundtrip_edges (void)
{
  g_autoptr (GArray) w = test_params (4, (guint) (NN | K13 | RAW | LSB), 32u, 32u, 4096u);
  g_autoptr (GArray) w8 = test_params (4, (guint) (EC | K13 | RAW | LSB), 8u, 8u, 1024u);
  const gsize counts[] = { 1, 31, 33, 4095, 4097, 100000 };

  for (gsize i = 0; i < G_N_ELEMENTS (counts); i++)
    for (guint kind = 0; kind < 3; kind++)
      {
        g_autoptr (GBytes) data = test_data (counts[i], 4, kind, (guint32) i);
        g_autoptr (GBytes) d8 = test_data (counts[i], 1, kind, (guint32) i);
        g_autoptr (GBytes) e1 = test_roundtrip (desc->encode, desc->decode, w, data);
        test_roundtrip_only (desc->encode, desc->decode, w8, d8);

        if (kind == 2 && counts[i] >= 4095)
          g_assert_cmpuint (g_bytes_get_size (e1), <, g_bytes_get_size (data) / 20);
      }

  /* empty */
  {
    g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
    g_autoptr (GBytes) e = test_roundtrip (desc->encode, desc->decode, w, empty);
    g_assert_cmpuint (g_bytes_get_size (e), ==, 4);
  }

  /* a byte count that is not whole pixels */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) odd = g_bytes_new ("abcdefg", 7);
    g_autoptr (GBytes) e = desc->encode ((guint *) w->data, w->len, odd, &error);
    g_assert_null (e);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  }

  /* visible parameters are not enough to run the filter */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GArray) v = test_params (2, (guint) NN, 32u);
    g_autoptr (GBytes) data = test_data (100, 4, 0, 1);
    g_autoptr (GBytes) e = desc->encode ((guint *) v->data, v->len, data, &error);
    g_assert_null (e);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  }
}

static void
test_corrupt (void)
{
  g_autoptr (GArray) w = test_params (4, (guint) (NN | K13 | RAW | LSB), 16u, 16u, 2048u);
  g_autoptr (GBytes) data = test_data (30000, 2, 0, 4);
  g_autoptr (GBytes) enc = test_roundtrip (desc->encode, desc->decode, w, data);
  g_autoptr (GBytes) zeros = test_data (30000, 2, 2, 4);
  g_autoptr (GBytes) enc0 = test_roundtrip (desc->encode, desc->decode, w, zeros);

  test_corruptions (desc->decode, w, enc, 60000, 3);
  test_corruptions (desc->decode, w, enc0, 60000, 4);

  /* a size header the stream cannot hold */
  {
    const guchar tiny[] = { 0xff, 0xff, 0xff, 0xff, 0x12, 0x34 };
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) b = g_bytes_new_static (tiny, sizeof tiny);

    g_assert_null (desc->decode ((guint *) w->data, w->len, b, &error));
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  }
}

static void
test_registry (void)
{
  g_autoptr (GError) error = NULL;
  NczRegistry *registry = ncz_registry_get_default ();
  g_autoptr (NczCodec) codec = ncz_registry_lookup_codec (registry, "szip", &error);
  g_autoptr (NczUrl) url = NULL;
  g_autoptr (NczMemoryStore) store = NULL;
  g_autoptr (NczDataset) ds = NULL;
  NczDimension *dims[2];
  NczVariable *var;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  const guint64 chunks[] = { 4, 300 };
  const guint expected[] = { NN | K13 | RAW | MSB, 16, 16, 300 };
  g_autoptr (GBytes) data = test_data (1200, 2, 0, 5);
  g_autoptr (GBytes) enc = NULL;
  g_autoptr (GBytes) dec = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (ncz_codec_get_filter_id (codec), ==, 4);

  url = ncz_url_parse ("file:///unused#mode=nczarr,file", &error);
  g_assert_no_error (error);
  store = ncz_memory_store_new ();
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", 8, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", 600, FALSE, &error);
  g_assert_no_error (error);
  var = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_SHORT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (var, chunks, 2, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_endianness (var, NCZ_ENDIANNESS_BIG, &error));
  g_assert_no_error (error);

  g_assert_true (ncz_codec_params_from_json_text (codec, "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 16}", &visible, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_codec_modify_parameters (codec, var, visible, &working, &error));
  g_assert_no_error (error);
  test_assert_params (working, 4, expected);
  enc = ncz_codec_encode (codec, (guint *) working->data, working->len, data, &error);
  g_assert_no_error (error);
  dec = ncz_codec_decode (codec, (guint *) working->data, working->len, enc, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (dec, data));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/szip/json", test_json);
  g_test_add_func ("/szip/json/errors", test_json_errors);
  g_test_add_func ("/szip/modify", test_modify);
  g_test_add_func ("/szip/modify/errors", test_modify_errors);
  g_test_add_func ("/szip/roundtrip", test_roundtrip_shapes);
  g_test_add_func ("/szip/roundtrip/edges", test_roundtrip_edges);
  g_test_add_func ("/szip/corrupt", test_corrupt);
  g_test_add_func ("/szip/registry", test_registry);

  return g_test_run ();
}
