/* test-lz4.c: the LZ4 codec module's descriptor: JSON and parameters, the
 * numcodecs framing (Zarr) and the HDF5 lz4 filter's framing, damaged
 * input, and its NczCodec through the registry.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <lz4.h>

#include "ncz-lz4-codec.h"
#include "codec-test-util.h"

#define MARK 0x4e435a34u

static const NczCodecModuleDesc *desc = &ncz_lz4_codec_desc;

static guint32
be32 (const guchar *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static void
test_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) a = test_visible_from_json (desc, "{\"id\": \"lz4\"}", &error);
  g_autoptr (GArray) b = test_visible_from_json (desc, "{\"id\": \"lz4\", \"acceleration\": 1}", &error);
  g_autoptr (GArray) c = test_visible_from_json (desc, "{\"id\": \"lz4\", \"acceleration\": 8}", &error);
  g_autoptr (GArray) d = test_visible_from_json (desc, "{\"id\": \"lz4\", \"acceleration\": \"-3\"}", &error);
  const guint cv[] = { 0, 8 };
  const guint dv[] = { 0, (guint) -3 };
  const guint block_only[] = { 65536 };
  g_autofree char *j0 = NULL, *j1 = NULL, *j2 = NULL, *j3 = NULL, *j4 = NULL;

  g_assert_no_error (error);
  test_assert_params (a, 0, NULL);
  test_assert_params (b, 0, NULL);
  test_assert_params (c, 2, cv);
  test_assert_params (d, 2, dv);

  j0 = test_json_from_visible (desc, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j0, ==, "{\"id\": \"lz4\", \"acceleration\": 1}");
  j1 = test_json_from_visible (desc, cv, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j1, ==, "{\"id\": \"lz4\", \"acceleration\": 8}");
  j2 = test_json_from_visible (desc, dv, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j2, ==, "{\"id\": \"lz4\", \"acceleration\": -3}");
  /* an HDF5 file's cd_values (block size only) */
  j3 = test_json_from_visible (desc, block_only, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (j3, ==, "{\"id\": \"lz4\", \"acceleration\": 1}");

  {
    const guint three[] = { 1, 2, 3 };
    const guint huge_block[] = { 0x7f000000u };
    g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL;
    g_autoptr (GArray) bad = test_visible_from_json (desc, "{\"id\": \"lz4\", \"acceleration\": 1.5}", &e3);

    j4 = test_json_from_visible (desc, three, 3, &e1);
    g_assert_null (j4);
    g_assert_error (e1, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_null (test_json_from_visible (desc, huge_block, 1, &e2));
    g_assert_error (e2, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_null (bad);
    g_assert_error (e3, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (e3->message, "acceleration"));
  }
}

static void
test_modify (void)
{
  g_autoptr (GError) error = NULL;
  NczCodecVarInfo info = test_var_info (NCZ_DATA_TYPE_INT, 4, FALSE, 1, (guint64) 100);
  g_autoptr (GArray) none = test_params (0);
  g_autoptr (GArray) accel = test_params (2, 4096u, 3u);
  g_autoptr (GArray) w0 = test_working (desc, &info, none, &error);
  g_autoptr (GArray) w1 = test_working (desc, &info, accel, &error);
  const guint e0[] = { 0, 1, MARK };
  const guint e1[] = { 4096, 3, MARK };

  g_assert_no_error (error);
  test_assert_params (w0, 3, e0);
  test_assert_params (w1, 3, e1);
}

/* numcodecs: 4-byte little-endian size, then one LZ4 block */
static void
test_numcodecs_format (void)
{
  g_autoptr (GArray) w = test_params (3, 0u, 1u, MARK);
  g_autoptr (GBytes) data = test_data (10000, 4, 0, 1);
  g_autoptr (GBytes) enc = test_roundtrip (desc->encode, desc->decode, w, data);
  gsize len;
  const guchar *p = g_bytes_get_data (enc, &len);
  g_autofree char *plain = g_malloc (40000);

  g_assert_cmpuint (p[0] | p[1] << 8 | p[2] << 16 | (guint32) p[3] << 24, ==, 40000);
  g_assert_cmpint (LZ4_decompress_safe ((const char *) p + 4, plain, (int) len - 4, 40000), ==, 40000);
  g_assert_cmpmem (plain, 40000, g_bytes_get_data (data, NULL), 40000);
  /* the default acceleration: LZ4_compress_default's bytes */
  {
    g_autofree char *ref = g_malloc (LZ4_compressBound (40000));
    int n = LZ4_compress_default (g_bytes_get_data (data, NULL), ref, 40000, LZ4_compressBound (40000));
    g_assert_cmpmem (ref, n, p + 4, len - 4);
  }

  /* the HDF5 ABI with working parameters (netcdf-c's NCZarr) frames the
   * same way */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) h5 = desc->h5_encode ((guint *) w->data, w->len, data, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (h5, enc));
  }
}

/* HDF5 lz4 filter: 8-byte BE size, 4-byte BE block size, blocks each
 * with a 4-byte BE stored size; blocks that do not shrink stored raw */
static void
test_hdf5_format (void)
{
  const struct { guint block; gsize count; guint kind; } cases[] = {
    { 0, 10000, 2 },     /* default block size: one block */
    { 1000, 2500, 2 },   /* 10 blocks */
    { 3000, 2500, 2 },   /* 3 full blocks and a short one */
    { 3000, 2500, 0 },
    { 1000, 2500, 1 },   /* noise: raw blocks */
    { 0, 1, 0 },
    { 1, 50, 2 },        /* one-byte blocks: all raw */
    { 0, 0, 0 },         /* empty */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GArray) cd = cases[i].block ? test_params (1, cases[i].block) : test_params (0);
      g_autoptr (GBytes) data = test_data (cases[i].count, 4, cases[i].kind, (guint32) i);
      g_autoptr (GBytes) enc = test_roundtrip (desc->h5_encode, desc->h5_decode, cd, data);
      gsize len, nbytes = cases[i].count * 4, pos = 12;
      const guchar *p = g_bytes_get_data (enc, &len);
      guint block = cases[i].block && cases[i].block < nbytes ? cases[i].block : (guint) nbytes;
      guint n_blocks = 0;

      g_assert_cmpuint (be32 (p), ==, 0);
      g_assert_cmpuint (be32 (p + 4), ==, nbytes);
      g_assert_cmpuint (be32 (p + 8), ==, block);
      for (gsize done = 0; done < nbytes; done += block)
        {
          gsize this_block = MIN (block, nbytes - done);
          guint32 stored = be32 (p + pos);

          g_assert_cmpuint (stored, <=, this_block);
          if (cases[i].kind == 1 || this_block == 1)
            {
              g_assert_cmpuint (stored, ==, this_block);
              g_assert_cmpmem (p + pos + 4, stored, (const guchar *) g_bytes_get_data (data, NULL) + done, this_block);
            }
          else if (cases[i].kind == 2 && this_block >= 64)
            g_assert_cmpuint (stored, <, this_block);
          pos += 4 + stored;
          n_blocks++;
        }
      g_assert_cmpuint (pos, ==, len);
      if (cases[i].block == 1000)
        g_assert_cmpuint (n_blocks, ==, 10);
    }
}

static void
test_roundtrip_sizes (void)
{
  const gsize sizes[] = { 0, 1, 2, 5, 12, 13, 100, 65536, 1 << 20 };
  const guint accels[] = { 1, 2, 17, (guint) -5 };

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (gsize a = 0; a < G_N_ELEMENTS (accels); a++)
      for (guint kind = 0; kind < 3; kind++)
        {
          g_autoptr (GArray) w = test_params (3, 0u, accels[a], MARK);
          g_autoptr (GArray) cd = test_params (2, 4096u, accels[a]);
          g_autoptr (GBytes) data = test_data (sizes[s], 1, kind, (guint32) (s * 10 + a));
          test_roundtrip_only (desc->encode, desc->decode, w, data);
          test_roundtrip_only (desc->h5_encode, desc->h5_decode, cd, data);
        }
}

static void
test_corrupt (void)
{
  g_autoptr (GArray) w = test_params (3, 0u, 1u, MARK);
  g_autoptr (GArray) cd = test_params (1, 5000u);
  g_autoptr (GBytes) data = test_data (20000, 2, 0, 9);
  g_autoptr (GBytes) enc = test_roundtrip (desc->encode, desc->decode, w, data);
  g_autoptr (GBytes) h5 = test_roundtrip (desc->h5_encode, desc->h5_decode, cd, data);

  test_corruptions (desc->decode, w, enc, 40000, 1);
  test_corruptions (desc->h5_decode, cd, h5, 40000, 2);

  /* sizes in the headers the data cannot hold */
  {
    const guchar tiny_numcodecs[] = { 0xff, 0xff, 0xff, 0x7f, 0x00 };
    const guchar tiny_hdf5[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 1, 0 };
    const guchar zero_block[] = { 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
    g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL;
    g_autoptr (GBytes) b1 = g_bytes_new_static (tiny_numcodecs, sizeof tiny_numcodecs);
    g_autoptr (GBytes) b2 = g_bytes_new_static (tiny_hdf5, sizeof tiny_hdf5);
    g_autoptr (GBytes) b3 = g_bytes_new_static (zero_block, sizeof zero_block);

    g_assert_null (desc->decode ((guint *) w->data, w->len, b1, &e1));
    g_assert_error (e1, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    g_assert_null (desc->h5_decode ((guint *) cd->data, cd->len, b2, &e2));
    g_assert_error (e2, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    g_assert_null (desc->h5_decode ((guint *) cd->data, cd->len, b3, &e3));
    g_assert_error (e3, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  }

  /* the numcodecs bytes are not HDF5 framing and vice versa */
  {
    g_autoptr (GError) e1 = NULL, e2 = NULL;
    g_autoptr (GBytes) o1 = desc->h5_decode ((guint *) cd->data, cd->len, enc, &e1);
    g_autoptr (GBytes) o2 = desc->decode ((guint *) w->data, w->len, h5, &e2);

    g_assert_null (o1);
    g_assert_error (e1, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    g_assert_null (o2);
    g_assert_error (e2, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  }
}

static void
test_registry (void)
{
  g_autoptr (GError) error = NULL;
  NczRegistry *registry = ncz_registry_get_default ();
  g_autoptr (NczCodec) codec = ncz_registry_lookup_codec_by_filter_id (registry, 32004, &error);
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  g_autofree char *json = NULL;
  g_autoptr (GBytes) data = test_data (3000, 8, 0, 2);
  g_autoptr (GBytes) enc = NULL;
  g_autoptr (GBytes) dec = NULL;
  const guchar *p;

  g_assert_no_error (error);
  g_assert_cmpstr (ncz_codec_get_codec_id (codec), ==, "lz4");
  g_assert_true (ncz_codec_params_from_json_text (codec, "{\"id\": \"lz4\", \"acceleration\": 1}", &visible, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (visible->len, ==, 0);
  json = ncz_codec_params_to_json_text (codec, (guint *) visible->data, visible->len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json, ==, "{\"id\": \"lz4\", \"acceleration\": 1}");
  g_assert_true (ncz_codec_modify_parameters (codec, NULL, visible, &working, &error));
  g_assert_no_error (error);

  /* Ncz's NczCodec uses the numcodecs framing, even with the parameters
   * an HDF5 file would give */
  g_array_set_size (working, 0);
  enc = ncz_codec_encode (codec, (guint *) working->data, working->len, data, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (enc, NULL);
  g_assert_cmpuint (p[0] | p[1] << 8 | p[2] << 16 | (guint32) p[3] << 24, ==, 24000);
  dec = ncz_codec_decode (codec, (guint *) working->data, working->len, enc, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (dec, data));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/lz4/json", test_json);
  g_test_add_func ("/lz4/modify", test_modify);
  g_test_add_func ("/lz4/format/numcodecs", test_numcodecs_format);
  g_test_add_func ("/lz4/format/hdf5", test_hdf5_format);
  g_test_add_func ("/lz4/roundtrip", test_roundtrip_sizes);
  g_test_add_func ("/lz4/corrupt", test_corrupt);
  g_test_add_func ("/lz4/registry", test_registry);

  return g_test_run ();
}
