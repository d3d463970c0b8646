/* ncz-packbits-codec.c: the numcodecs "packbits" codec (no HDF5 filter
 * id)
 *
 * The chunk's bytes are booleans, one a byte (Ncz reads a "|b1" array
 * as unsigned bytes 0 and 1); as in numpy, any nonzero byte is true.
 * Encoding writes one byte holding the number of padding bits in the
 * last byte (0 to 7), then the values eight to a byte, the first in the
 * most significant bit, the last byte padded with zero bits. Decoding
 * writes each bit as a byte 0 or 1 and drops the padding bits; a
 * buffer without its first byte, or with a padding count above 7 or
 * above the bits there are, is refused as corrupt.
 *
 * No parameters. JSON {"id": "packbits"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>

#include "ncz-codec-module.h"

#define CODEC_ID "packbits"

static gboolean
packbits_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  (void) dict;
  (void) visible;
  (void) error;
  return TRUE;
}

static GBytes *
packbits_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize n, n_bytes;
  const guint8 *data = g_bytes_get_data (input, &n);
  guint8 *out;

  (void) working;
  (void) n_working;
  (void) error;
  n_bytes = n / 8 + (n % 8 != 0 ? 1 : 0);
  out = g_malloc0 (n_bytes + 1);
  out[0] = (guint8) (n % 8 != 0 ? 8 - n % 8 : 0);
  for (gsize i = 0; i < n; i++)
    if (data[i] != 0)
      out[1 + i / 8] |= (guint8) (0x80u >> (i % 8));
  return g_bytes_new_take (out, n_bytes + 1);
}

static GBytes *
packbits_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;

  (void) working;
  (void) n_working;
  if (length == 0 || data[0] > 7 || (length == 1 && data[0] != 0))
    {
      if (length == 0)
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                     CODEC_ID ": empty data (no padding count byte)");
      else
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                     CODEC_ID ": padding count %u is more than the %s", data[0],
                     data[0] > 7 ? "7 bits a last byte can have" : "bits there are (none)");
      return NULL;
    }
  n = 8 * (length - 1) - data[0];
  out = g_malloc (MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    out[i] = (guint8) ((data[1 + i / 8] >> (7 - i % 8)) & 1);
  return g_bytes_new_take (out, n);
}

static const NczCodecModuleDesc packbits_desc = {
  .codec_id = CODEC_ID,
  .filter_id = 0,
  .name = CODEC_ID " (Ncz)",
  .description = "Bit packing codec (numcodecs 'packbits': booleans eight to a byte, after "
                 "a padding count; no HDF5 filter id)",
  .json_example = "{\"id\": \"packbits\"}",
  .from_json = packbits_from_json,
  .encode = packbits_encode,
  .decode = packbits_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (packbits, NczPackbitsCodec, packbits_desc)
