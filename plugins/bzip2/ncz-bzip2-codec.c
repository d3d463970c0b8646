/* ncz-bzip2-codec.c: bzip2 (HDF5 filter 307, numcodecs "bz2")
 *
 * Parameters: visible = working = [level], the block size 1 to 9 (x100k);
 * 9 when absent, as HDF5's bzip2 filter does. Decoding reads one or more
 * concatenated bzip2 streams (Python's bz2.decompress accepts those),
 * grows its output as the streams produce it up to NCZ_BZIP2_MAX_OUTPUT,
 * and rejects truncated or corrupt data.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <bzlib.h>
#include <string.h>

#include "ncz-codec-module.h"

#define BZIP2_DEFAULT_LEVEL 9
/* bzip2 can expand a few bytes enormously; a decoded chunk stops here */
#define NCZ_BZIP2_MAX_OUTPUT ((gsize) G_MAXUINT32)

static const NczCodecLevel bzip2_levels = { "bz2", 1, 9, BZIP2_DEFAULT_LEVEL };

static gboolean
bzip2_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  return ncz_codec_level_from_json (&bzip2_levels, dict, visible, error);
}

static gboolean
level_from_params (const guint *params, gsize n_params, guint *level, GError **error)
{
  gint l;
  if (!ncz_codec_level_from_params (&bzip2_levels, params, n_params, &l, error))
    return FALSE;
  *level = (guint) l;
  return TRUE;
}

static JsonObject *
bzip2_to_json (const guint *visible, gsize n_visible, GError **error)
{
  return ncz_codec_level_to_json (&bzip2_levels, visible, n_visible, error);
}

static GBytes *
bzip2_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  guint level;
  unsigned int out_length;
  char *out;
  int status;

  if (!level_from_params (working, n_working, &level, error))
    return NULL;
  /* the documented worst case: 1% larger plus 600 bytes */
  if (length > (G_MAXUINT32 - 600) / 102 * 100)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "bz2: a chunk of %" G_GSIZE_FORMAT " bytes is too large", length);
      return NULL;
    }
  out_length = (unsigned int) (length + length / 100 + 601);
  out = g_malloc (out_length);
  status = BZ2_bzBuffToBuffCompress (out, &out_length, length > 0 ? (char *) in : (char *) "",
                                     (unsigned int) length, (int) level, 0, 0);
  if (status != BZ_OK)
    {
      g_free (out);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "bz2: compression failed (%d)",
                   status);
      return NULL;
    }
  return g_bytes_new_take (g_realloc (out, MAX (out_length, 1)), out_length);
}

static GBytes *
bzip2_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  bz_stream stream;
  gsize capacity, used = 0, consumed = 0;
  guint8 *out;
  const char *problem = NULL;

  if (length == 0 || length > G_MAXUINT32)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "bz2: %" G_GSIZE_FORMAT " bytes are not a bzip2 stream", length);
      return NULL;
    }
  capacity = MIN (MAX (length * 8, (gsize) 4096), NCZ_BZIP2_MAX_OUTPUT);
  out = g_malloc (capacity);

  /* one pass per concatenated stream */
  while (consumed < length && problem == NULL)
    {
      int status;

      memset (&stream, 0, sizeof stream);
      if (BZ2_bzDecompressInit (&stream, 0, 0) != BZ_OK)
        {
          problem = "cannot initialise";
          break;
        }
      stream.next_in = (char *) in + consumed;
      stream.avail_in = (unsigned int) (length - consumed);
      for (;;)
        {
          unsigned int room;

          if (used == capacity)
            {
              if (capacity >= NCZ_BZIP2_MAX_OUTPUT)
                {
                  problem = "expands past the limit of a chunk";
                  break;
                }
              capacity = MIN (capacity * 2, NCZ_BZIP2_MAX_OUTPUT);
              out = g_realloc (out, capacity);
            }
          room = (unsigned int) MIN (capacity - used, G_MAXUINT32);
          stream.next_out = (char *) out + used;
          stream.avail_out = room;
          status = BZ2_bzDecompress (&stream);
          used += room - stream.avail_out;
          if (status == BZ_STREAM_END)
            break;
          if (status != BZ_OK)
            {
              problem = "corrupt data";
              break;
            }
          if (stream.avail_in == 0 && stream.avail_out > 0)
            {
              problem = "truncated data";
              break;
            }
        }
      consumed = length - stream.avail_in;
      BZ2_bzDecompressEnd (&stream);
    }

  if (problem != NULL)
    {
      g_free (out);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT, "bz2: %s", problem);
      return NULL;
    }
  return g_bytes_new_take (g_realloc (out, MAX (used, 1)), used);
}

static const NczCodecModuleDesc bzip2_desc = {
  .codec_id = "bz2",
  .filter_id = 307,
  .name = "bzip2 (Ncz)",
  .description = "bzip2 (HDF5 filter 307, numcodecs bz2)",
  .json_example = "{\"id\": \"bz2\", \"level\": 9}",
  .from_json = bzip2_from_json,
  .to_json = bzip2_to_json,
  .encode = bzip2_encode,
  .decode = bzip2_decode,
};

NCZ_DEFINE_CODEC_MODULE (bzip2, NczBzip2Codec, bzip2_desc)
