/* ncz-deflate-codec.c: deflate with the zlib wrapper (HDF5 filter 1,
 * numcodecs "zlib")
 *
 * Parameters: visible = working = [level], level -1 (zlib's default) to
 * 9; 6 when absent. The stream is RFC 1950 (what Python's zlib.compress
 * and HDF5's deflate filter write). Decoding grows its output as the
 * stream produces it, never past what deflate can expand to (1032 bytes
 * per input byte), and rejects truncated or corrupt streams.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <zlib.h>

#include "ncz-codec-module.h"

#define DEFLATE_DEFAULT_LEVEL 6
/* deflate cannot expand one input byte to more than this */
#define DEFLATE_MAX_RATIO 1032

static const NczCodecLevel deflate_levels = { "zlib", -1, 9, DEFLATE_DEFAULT_LEVEL };

static gboolean
deflate_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  return ncz_codec_level_from_json (&deflate_levels, dict, visible, error);
}

static gboolean
level_from_params (const guint *params, gsize n_params, gint *level, GError **error)
{
  return ncz_codec_level_from_params (&deflate_levels, params, n_params, level, error);
}

static JsonObject *
deflate_to_json (const guint *visible, gsize n_visible, GError **error)
{
  return ncz_codec_level_to_json (&deflate_levels, visible, n_visible, error);
}

static GBytes *
deflate_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  gint level;
  uLongf out_length;
  gsize capacity = 0;
  guint8 *out;
  int status;

  if (!level_from_params (working, n_working, &level, error))
    return NULL;
  if (length > G_MAXUINT32)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "zlib: a chunk of %" G_GSIZE_FORMAT " bytes is too large", length);
      return NULL;
    }
  out_length = compressBound ((uLong) length);
  /* reused chunk-sized buffers here and in decode: fresh pages would
   * fault in on every chunk */
  out = ncz_buffer_alloc (out_length, &capacity);
  status = compress2 (out, &out_length, length > 0 ? in : (const guint8 *) "", (uLong) length, level);
  if (status != Z_OK)
    {
      ncz_buffer_release (out, capacity);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "zlib: compression failed (%d)",
                   status);
      return NULL;
    }
  return ncz_buffer_new_bytes (out, out_length, capacity);
}

static GBytes *
deflate_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  z_stream stream;
  guint8 *out;
  gsize capacity, limit, pool_capacity = 0;
  gboolean pooled = TRUE;  /* @out is from ncz_buffer_alloc() */
  int status;

  if (length == 0 || length > G_MAXUINT32)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "zlib: %" G_GSIZE_FORMAT " bytes are not a zlib stream", length);
      return NULL;
    }
  limit = length <= (G_MAXSIZE - 4096) / DEFLATE_MAX_RATIO ? length * DEFLATE_MAX_RATIO + 4096
                                                           : G_MAXSIZE;
  capacity = MIN (MAX (length * 4, (gsize) 4096), limit);

  memset (&stream, 0, sizeof stream);
  if (inflateInit (&stream) != Z_OK)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "zlib: cannot initialise");
      return NULL;
    }
  out = ncz_buffer_alloc (capacity, &pool_capacity);
  capacity = pool_capacity;
  stream.next_in = (Bytef *) in;
  stream.avail_in = (uInt) length;
  stream.next_out = out;
  stream.avail_out = (uInt) MIN (capacity, G_MAXUINT32);

  for (;;)
    {
      status = inflate (&stream, Z_NO_FLUSH);
      if (status == Z_STREAM_END)
        break;
      if (status == Z_BUF_ERROR && stream.avail_out > 0)
        status = Z_DATA_ERROR;   /* no progress with room left: truncated */
      if (status != Z_OK && status != Z_BUF_ERROR)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                       "zlib: corrupt or truncated data (%s)",
                       stream.msg != NULL ? stream.msg : "stream ends early");
          inflateEnd (&stream);
          pooled ? ncz_buffer_release (out, pool_capacity) : g_free (out);
          return NULL;
        }
      if (stream.avail_out == 0)
        {
          gsize used = (gsize) (stream.next_out - out);

          if (used < capacity)
            {
              /* the window of one call is at most 4 GiB: give it the rest */
              stream.avail_out = (uInt) MIN (capacity - used, G_MAXUINT32);
              continue;
            }
          if (capacity >= limit)
            {
              g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                           "zlib: corrupt data (expands past %" G_GSIZE_FORMAT " bytes)", limit);
              inflateEnd (&stream);
              pooled ? ncz_buffer_release (out, pool_capacity) : g_free (out);
              return NULL;
            }
          capacity = capacity > limit / 2 ? limit : capacity * 2;
          if (pooled)
            {
              /* past the first guess: grow with realloc from here */
              guint8 *grown = g_malloc (capacity);

              memcpy (grown, out, used);
              ncz_buffer_release (out, pool_capacity);
              out = grown;
              pooled = FALSE;
            }
          else
            out = g_realloc (out, capacity);
          stream.next_out = out + used;
          stream.avail_out = (uInt) MIN (capacity - used, G_MAXUINT32);
        }
    }
  capacity = (gsize) (stream.next_out - out);
  inflateEnd (&stream);
  if (pooled)
    return ncz_buffer_new_bytes (out, capacity, pool_capacity);
  return g_bytes_new_take (g_realloc (out, MAX (capacity, 1)), capacity);
}

static const NczCodecModuleDesc deflate_desc = {
  .codec_id = "zlib",
  .filter_id = 1,
  .name = "deflate (Ncz)",
  .description = "Deflate with the zlib wrapper (HDF5 filter 1, numcodecs zlib)",
  .json_example = "{\"id\": \"zlib\", \"level\": 1}",
  .from_json = deflate_from_json,
  .to_json = deflate_to_json,
  .encode = deflate_encode,
  .decode = deflate_decode,
};

NCZ_DEFINE_CODEC_MODULE (deflate, NczDeflateCodec, deflate_desc)
