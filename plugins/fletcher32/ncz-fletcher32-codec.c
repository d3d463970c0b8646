/* ncz-fletcher32-codec.c: the Fletcher-32 checksum (HDF5 filter 3,
 * numcodecs >= 0.12 "fletcher32")
 *
 * The checksum is HDF5's: 16-bit words read big-endian (a trailing odd
 * byte is the high byte of a last word), both sums folded to 16 bits
 * every 360 words and at the end, result sum2 << 16 | sum1. Encoding
 * appends it as 4 little-endian bytes; decoding checks and strips it.
 * Like HDF5, decoding also accepts the checksum with the bytes of each
 * 16-bit half swapped, as HDF5 before 1.6.3 wrote it on little-endian
 * machines. No parameters.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>

#include "ncz-codec-module.h"

static guint32
fletcher32 (const guint8 *data, gsize length)
{
  gsize words = length / 2;
  guint32 sum1 = 0, sum2 = 0;

  while (words > 0)
    {
      gsize block = MIN (words, 360);

      words -= block;
      for (gsize i = 0; i < block; i++)
        {
          sum1 += ((guint32) data[0] << 8) | data[1];
          sum2 += sum1;
          data += 2;
        }
      sum1 = (sum1 & 0xffff) + (sum1 >> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
  if (length % 2 != 0)
    {
      sum1 += (guint32) data[0] << 8;
      sum2 += sum1;
      sum1 = (sum1 & 0xffff) + (sum1 >> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

static gboolean
fletcher32_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  return TRUE;
}

static JsonObject *
fletcher32_to_json (const guint *visible, gsize n_visible, GError **error)
{
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", "fletcher32");
  return dict;
}

static gboolean
fletcher32_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  /* no working parameters whatever the visible ones say */
  return TRUE;
}

static GBytes *
fletcher32_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  guint32 sum = fletcher32 (in, length);
  guint8 *out;

  if (length > G_MAXSIZE - 4)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "fletcher32: input too large");
      return NULL;
    }
  out = g_malloc (length + 4);
  if (length > 0)
    memcpy (out, in, length);
  out[length] = sum & 0xff;
  out[length + 1] = (sum >> 8) & 0xff;
  out[length + 2] = (sum >> 16) & 0xff;
  out[length + 3] = (sum >> 24) & 0xff;
  return g_bytes_new_take (out, length + 4);
}

static GBytes *
fletcher32_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  guint32 stored, sum, swapped;

  if (length < 4)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "fletcher32: %" G_GSIZE_FORMAT " bytes cannot hold a checksum", length);
      return NULL;
    }
  length -= 4;
  stored = (guint32) in[length] | ((guint32) in[length + 1] << 8)
           | ((guint32) in[length + 2] << 16) | ((guint32) in[length + 3] << 24);
  sum = fletcher32 (in, length);
  swapped = ((sum & 0x00ff00ffu) << 8) | ((sum & 0xff00ff00u) >> 8);
  if (stored != sum && stored != swapped)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "fletcher32: checksum mismatch (stored 0x%08x, computed 0x%08x)",
                   stored, sum);
      return NULL;
    }
  return g_bytes_new_from_bytes (input, 0, length);
}

static const NczCodecModuleDesc fletcher32_desc = {
  .codec_id = "fletcher32",
  .filter_id = 3,
  .name = "fletcher32 (Ncz)",
  .description = "Fletcher-32 checksum (HDF5 filter 3, numcodecs fletcher32)",
  .json_example = "{\"id\": \"fletcher32\"}",
  .from_json = fletcher32_from_json,
  .to_json = fletcher32_to_json,
  .modify = fletcher32_modify,
  .encode = fletcher32_encode,
  .decode = fletcher32_decode,
};

NCZ_DEFINE_CODEC_MODULE (fletcher32, NczFletcher32Codec, fletcher32_desc)
