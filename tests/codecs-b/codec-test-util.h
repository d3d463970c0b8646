/* codec-test-util.h: helpers shared by the blosc, lz4 and szip tests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <string.h>
#include "ncz-codec-module.h"

/* JSON text -> visible parameters through the descriptor; NULL + error. */
static inline GArray *
test_visible_from_json (const NczCodecModuleDesc *desc, const char *json, GError **error)
{
  g_autoptr (NczJson) root = ncz_json_parse (json, -1, NULL);
  g_autoptr (JsonObject) dict = NULL;
  GArray *visible;

  g_assert_nonnull (root);
  dict = ncz_json_to_json_object (root);
  g_assert_nonnull (dict);
  visible = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!desc->from_json (dict, visible, error))
    {
      g_array_unref (visible);
      return NULL;
    }
  return visible;
}

/* Visible parameters -> JSON text as Ncz writes it to .zarray
 * (ncz_json_to_string); NULL + error. */
static inline char *
test_json_from_visible (const NczCodecModuleDesc *desc, const guint *v, gsize n, GError **error)
{
  g_autoptr (JsonObject) dict = desc->to_json (v, n, error);
  g_autoptr (NczJson) node = NULL;

  if (dict == NULL)
    return NULL;
  node = ncz_json_from_json_object (dict);
  return ncz_json_to_string (node, FALSE);
}

static inline GArray *
test_params (gsize n, ...)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint));
  va_list ap;

  va_start (ap, n);
  for (gsize i = 0; i < n; i++)
    {
      guint v = va_arg (ap, guint);
      g_array_append_val (a, v);
    }
  va_end (ap);
  return a;
}

static inline void
test_assert_params (GArray *a, gsize n, const guint *expected)
{
  g_assert_nonnull (a);
  g_assert_cmpuint (a->len, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (a, guint, i), ==, expected[i]);
}

/* Variable information for modify. */
static inline NczCodecVarInfo
test_var_info (NczDataType type, gsize type_size, gboolean big_endian, guint rank, ...)
{
  NczCodecVarInfo info;
  va_list ap;

  memset (&info, 0, sizeof info);
  info.type = type;
  info.type_size = type_size;
  info.big_endian = big_endian;
  info.rank = rank;
  info.chunk_bytes = type_size;
  va_start (ap, rank);
  for (guint i = 0; i < rank; i++)
    {
      info.chunks[i] = va_arg (ap, guint64);
      info.chunk_bytes *= info.chunks[i];
    }
  va_end (ap);
  return info;
}

static inline GArray *
test_working (const NczCodecModuleDesc *desc, const NczCodecVarInfo *info, GArray *visible,
              GError **error)
{
  GArray *working = g_array_new (FALSE, FALSE, sizeof (guint));

  if (!desc->modify (info, visible, working, error))
    {
      g_array_unref (working);
      return NULL;
    }
  return working;
}

/* Test data of @n elements of @esize bytes: a smooth signal with some
 * noise (kind 0), pure noise (kind 1), constant (kind 2). */
static inline GBytes *
test_data (gsize n, guint esize, guint kind, guint32 seed)
{
  guchar *buf = g_malloc (MAX (n * esize, 1));
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < n; i++)
    {
      guint64 v;

      switch (kind)
        {
        case 0:
          v = (guint64) (1000.0 + 500.0 * sin ((double) i / 50.0)) + g_rand_int_range (rand, 0, 4);
          break;
        case 1:
          v = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
          break;
        default:
          v = 0x4242424242424242ull;
          break;
        }
      for (guint b = 0; b < esize; b++)
        buf[i * esize + b] = (v >> (8 * (b % 8))) & 0xff;
    }
  g_rand_free (rand);
  return g_bytes_new_take (buf, n * esize);
}

static inline GBytes *
test_roundtrip (GBytes *(*encode) (const guint *, gsize, GBytes *, GError **),
                GBytes *(*decode) (const guint *, gsize, GBytes *, GError **),
                GArray *working, GBytes *data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) encoded = NULL;
  GBytes *decoded;

  encoded = encode ((const guint *) working->data, working->len, data, &error);
  g_assert_no_error (error);
  g_assert_nonnull (encoded);
  decoded = decode ((const guint *) working->data, working->len, encoded, &error);
  g_assert_no_error (error);
  g_assert_nonnull (decoded);
  g_assert_true (g_bytes_equal (decoded, data));
  return g_steal_pointer (&encoded);
}

/* test_roundtrip() when the encoded bytes are not needed */
static inline void
test_roundtrip_only (GBytes *(*encode) (const guint *, gsize, GBytes *, GError **),
                     GBytes *(*decode) (const guint *, gsize, GBytes *, GError **),
                     GArray *working, GBytes *data)
{
  g_bytes_unref (test_roundtrip (encode, decode, working, data));
}

/* Every truncation of @encoded, and byte flips at many positions, must
 * fail with NCZ_CODEC_ERROR_CORRUPT or decode to @expected_len bytes;
 * truncations must always fail. */
static inline void
test_corruptions (GBytes *(*decode) (const guint *, gsize, GBytes *, GError **),
                  GArray *working, GBytes *encoded, gsize expected_len, guint32 seed)
{
  gsize len;
  const guchar *data = g_bytes_get_data (encoded, &len);
  GRand *rand = g_rand_new_with_seed (seed);
  guint rejected = 0;

  for (gsize cut = 0; cut < len; cut += (len > 2000 ? len / 997 + 1 : 1))
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) piece = g_bytes_new (data, cut);
      g_autoptr (GBytes) out = decode ((const guint *) working->data, working->len, piece, &error);

      g_assert_null (out);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    }

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) damaged = NULL;
      g_autoptr (GBytes) out = NULL;
      guchar *copy = g_memdup2 (data, len);
      guint flips = g_rand_int_range (rand, 1, 4);

      for (guint f = 0; f < flips; f++)
        {
          /* the headers most often */
          gsize pos = g_rand_boolean (rand) ? (gsize) g_rand_int_range (rand, 0, MIN (len, 24))
                                            : (gsize) g_rand_int_range (rand, 0, len);
          copy[pos] ^= (guchar) g_rand_int_range (rand, 1, 256);
        }
      damaged = g_bytes_new_take (copy, len);
      out = decode ((const guint *) working->data, working->len, damaged, &error);
      if (out == NULL)
        {
          g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
          rejected++;
        }
      else
        {
          g_assert_no_error (error);
          /* no checksum in these formats: a damaged body may decode,
           * but never to more than the header could justify */
          g_assert_cmpuint (g_bytes_get_size (out), <=, MAX (expected_len, len) * 65536);
        }
    }
  g_assert_cmpuint (rejected, >, 0);
  g_rand_free (rand);
}
