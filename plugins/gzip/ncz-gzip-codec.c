/* ncz-gzip-codec.c: the numcodecs "gzip" codec (no HDF5 filter id)
 *
 * Encoded data is one gzip member (RFC 1952): the 10-byte header
 * 1f 8b 08, no flags, modification time 0, the extra-flags byte (2 for
 * level 9, 4 for level 1, else 0), operating system 255 (unknown); raw
 * deflate data at the level asked for (window 15, memory level 8,
 * default strategy, output space handed over as Python's zlib binding
 * does); then the CRC-32 and the input length modulo 2^32,
 * little-endian. Apart from the time stamp, which numcodecs sets to the
 * current time, this is what numcodecs 0.11 writes.
 *
 * Decoding accepts any gzip data: header fields (name, comment, extra
 * field, header CRC), several members one after another, and zero bytes
 * after the last member. Empty input decodes to nothing, as in numcodecs.
 *
 * Visible parameters: [level], -1 to 9. JSON {"id": "gzip", "level": 1}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <zlib.h>

#include "ncz-codec-module.h"

#define GZIP_HEADER_SIZE 10
#define GZIP_TRAILER_SIZE 8

static const NczCodecLevel gzip_level = { "gzip", -1, 9, 1 };

static gboolean
gzip_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  return ncz_codec_level_from_json (&gzip_level, dict, visible, error);
}

static JsonObject *
gzip_to_json (const guint *visible, gsize n_visible, GError **error)
{
  return ncz_codec_level_to_json (&gzip_level, visible, n_visible, error);
}

static void
put_le32 (guint8 *p, guint32 v)
{
  p[0] = (guint8) v;
  p[1] = (guint8) (v >> 8);
  p[2] = (guint8) (v >> 16);
  p[3] = (guint8) (v >> 24);
}

/* Output space is handed to zlib in pieces of these sizes, one piece
 * after another until a call leaves space unused, first for all the
 * input, then again from the first size to finish the stream. Stored
 * (level 0) deflate blocks end where a piece ends, so this is part of
 * the format: it is how Python's zlib binding, which numcodecs' gzip
 * codec writes through, hands out its output space. */
static const gsize piece_sizes[] = {
  32 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024, 8 * 1024 * 1024,
  16 * 1024 * 1024,
};

static int
deflate_into (z_stream *stream, int flush, GByteArray *out)
{
  guint piece = 0;
  int status;

  do
    {
      gsize size = piece_sizes[MIN (piece, G_N_ELEMENTS (piece_sizes) - 1)];
      guint old = out->len;

      piece++;
      g_byte_array_set_size (out, old + (guint) size);
      stream->next_out = out->data + old;
      stream->avail_out = (uInt) size;
      status = deflate (stream, flush);
      g_byte_array_set_size (out, old + (guint) (size - stream->avail_out));
      if (status == Z_STREAM_ERROR)
        return status;
    }
  while (stream->avail_out == 0);
  return status;
}

static GBytes *
gzip_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (input, &length);
  g_autoptr (GByteArray) out = NULL;
  guint8 header[GZIP_HEADER_SIZE] = { 0x1f, 0x8b, 8 /* deflate */, 0 /* no flags */,
                                      0, 0, 0, 0 /* no time stamp */, 0, 255 /* OS unknown */ };
  guint8 trailer[GZIP_TRAILER_SIZE];
  z_stream stream;
  uLong crc;
  gint level;
  int status = Z_OK;

  if (!ncz_codec_level_from_params (&gzip_level, working, n_working, &level, error))
    return NULL;
  if (length > G_MAXUINT32 - 1)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "gzip: %" G_GSIZE_FORMAT " bytes are too many for one call", length);
      return NULL;
    }
  memset (&stream, 0, sizeof stream);
  if (deflateInit2 (&stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "gzip: cannot start a deflate stream at level %d", level);
      return NULL;
    }

  header[8] = level == 9 ? 2 : level == 1 ? 4 : 0;
  out = g_byte_array_sized_new ((guint) MIN (length / 2 + 64, G_MAXUINT / 2));
  g_byte_array_append (out, header, sizeof header);
  stream.next_in = (Bytef *) data;
  stream.avail_in = (uInt) length;
  if (length > 0)
    status = deflate_into (&stream, Z_NO_FLUSH, out);
  if (status != Z_STREAM_ERROR)
    status = deflate_into (&stream, Z_FINISH, out);
  deflateEnd (&stream);
  if (status != Z_STREAM_END)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "gzip: deflate failed (zlib status %d)", status);
      return NULL;
    }

  crc = crc32 (0L, Z_NULL, 0);
  crc = crc32 (crc, data, (uInt) length);
  put_le32 (trailer, (guint32) crc);
  put_le32 (trailer + 4, (guint32) length);
  g_byte_array_append (out, trailer, sizeof trailer);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

static GBytes *
gzip_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (input, &length);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  z_stream stream;
  gsize consumed = 0;
  guint members = 0;
  int status = Z_OK;

  (void) working;
  (void) n_working;
  if (length > G_MAXUINT32)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "gzip: %" G_GSIZE_FORMAT " bytes are too many for one call", length);
      return NULL;
    }
  if (length == 0)
    return g_bytes_new (NULL, 0);   /* as numcodecs: no member, no data */
  memset (&stream, 0, sizeof stream);
  /* 16 + window bits: gzip framing only, header and trailer checked */
  if (inflateInit2 (&stream, 16 + MAX_WBITS) != Z_OK)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "gzip: cannot start an inflate stream");
      return NULL;
    }
  stream.next_in = (Bytef *) data;
  stream.avail_in = (uInt) length;

  for (;;)
    {
      guint8 buffer[65536];

      stream.next_out = buffer;
      stream.avail_out = sizeof buffer;
      status = inflate (&stream, Z_NO_FLUSH);
      g_byte_array_append (out, buffer, (guint) (sizeof buffer - stream.avail_out));
      if (status == Z_STREAM_END)
        {
          members++;
          consumed = length - stream.avail_in;
          /* zero bytes may pad the data after a member */
          while (consumed < length && data[consumed] == 0)
            consumed++;
          if (consumed == length)
            break;
          inflateReset (&stream);
          stream.next_in = (Bytef *) data + consumed;
          stream.avail_in = (uInt) (length - consumed);
          continue;
        }
      if (status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0))
        continue;
      break;
    }
  inflateEnd (&stream);

  if (status != Z_STREAM_END)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "gzip: corrupt or truncated gzip data (%s, after %u member%s of %"
                   G_GSIZE_FORMAT " input bytes)",
                   status == Z_OK || status == Z_BUF_ERROR ? "unexpected end" :
                   status == Z_DATA_ERROR ? "invalid data or checksum" : "inflate failed",
                   members, members == 1 ? "" : "s", length);
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

static const NczCodecModuleDesc gzip_desc = {
  .codec_id = "gzip",
  .filter_id = 0,
  .name = "gzip (Ncz)",
  .description = "gzip codec (numcodecs 'gzip', zlib; no HDF5 filter id)",
  .json_example = "{\"id\": \"gzip\", \"level\": 1}",
  .from_json = gzip_from_json,
  .to_json = gzip_to_json,
  .encode = gzip_encode,
  .decode = gzip_decode,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (gzip, NczGzipCodec, gzip_desc)
