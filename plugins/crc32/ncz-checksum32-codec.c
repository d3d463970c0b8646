/* ncz-checksum32-codec.c: the numcodecs "crc32" and "adler32" codecs
 * (no HDF5 filter id)
 *
 * Encoded data is the 32-bit checksum of the data, little-endian,
 * followed by the data, as numcodecs 0.11 writes it. Decoding checks the
 * checksum and returns the data. zlib computes both checksums.
 *
 * Built twice: with CHECKSUM32_ADLER for adler32 (plugins/adler32), and
 * without for crc32. No parameters: JSON {"id": "crc32"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <zlib.h>

#include "ncz-codec-module.h"

#ifdef CHECKSUM32_ADLER
#define CHECKSUM_ID "adler32"
#define CHECKSUM_START adler32 (0L, Z_NULL, 0)
#define CHECKSUM_UPDATE adler32
#else
#define CHECKSUM_ID "crc32"
#define CHECKSUM_START crc32 (0L, Z_NULL, 0)
#define CHECKSUM_UPDATE crc32
#endif

static guint32
checksum (const guint8 *data, gsize length)
{
  uLong sum = CHECKSUM_START;

  while (length > 0)
    {
      uInt n = (uInt) MIN (length, (gsize) G_MAXUINT32 / 2);
      sum = CHECKSUM_UPDATE (sum, data, n);
      data += n;
      length -= n;
    }
  return (guint32) sum;
}

static gboolean
checksum_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  (void) dict;
  (void) visible;
  (void) error;
  return TRUE;
}

static GBytes *
checksum_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;
  guint32 sum;

  (void) working;
  (void) n_working;
  if (length > G_MAXSIZE - 4)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "%s: too much data",
                   CHECKSUM_ID);
      return NULL;
    }
  sum = checksum (data, length);
  out = g_malloc (length + 4);
  out[0] = (guint8) sum;
  out[1] = (guint8) (sum >> 8);
  out[2] = (guint8) (sum >> 16);
  out[3] = (guint8) (sum >> 24);
  if (length > 0)
    memcpy (out + 4, data, length);
  return g_bytes_new_take (out, length + 4);
}

static GBytes *
checksum_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint32 stored, actual;

  (void) working;
  (void) n_working;
  if (length < 4)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "%s: %" G_GSIZE_FORMAT " bytes hold no checksum (4 bytes)", CHECKSUM_ID,
                   length);
      return NULL;
    }
  stored = (guint32) data[0] | (guint32) data[1] << 8 | (guint32) data[2] << 16
           | (guint32) data[3] << 24;
  actual = checksum (data + 4, length - 4);
  if (stored != actual)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "%s: checksum mismatch (stored 0x%08x, data 0x%08x)", CHECKSUM_ID, stored,
                   actual);
      return NULL;
    }
  return g_bytes_new_from_bytes (input, 4, length - 4);
}

static const NczCodecModuleDesc checksum_desc = {
  .codec_id = CHECKSUM_ID,
  .filter_id = 0,
  .name = CHECKSUM_ID " (Ncz)",
  .description = "Checksum codec (numcodecs '" CHECKSUM_ID "': 4-byte checksum, then the data; "
                 "no HDF5 filter id)",
  .json_example = "{\"id\": \"" CHECKSUM_ID "\"}",
  .from_json = checksum_from_json,
  .encode = checksum_encode,
  .decode = checksum_decode,
};

#ifdef CHECKSUM32_ADLER
NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (adler32, NczAdler32Codec, checksum_desc)
#else
NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (crc32, NczCrc32Codec, checksum_desc)
#endif
