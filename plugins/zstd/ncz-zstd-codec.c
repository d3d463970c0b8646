/* ncz-zstd-codec.c: Zstandard (HDF5 filter 32015, numcodecs "zstd")
 *
 * Parameters: visible = working = [level], any level libzstd accepts
 * (negative levels are stored as their 32-bit two's complement, as the
 * HDF5 zstd filter reads them); 3 when absent. Encoding writes one frame
 * with its content size. Decoding trusts a frame's content size only
 * when the input could really expand that far (a zstd block of 128 KiB
 * needs at least 4 bytes), and otherwise, or for concatenated frames,
 * streams into a growing buffer under the same bound.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "ncz-codec-module.h"

#define ZSTD_DEFAULT_LEVEL 3
/* no zstd input expands by more than this per byte */
#define ZSTD_MAX_RATIO 32768

/* libzstd's level range is known at run time only */
static const NczCodecLevel *
zstd_levels (void)
{
  static NczCodecLevel levels = { "zstd", 0, 0, ZSTD_DEFAULT_LEVEL };
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      levels.min = ZSTD_minCLevel ();
      levels.max = ZSTD_maxCLevel ();
      g_once_init_leave (&initialized, 1);
    }
  return &levels;
}

/* One compression and one decompression context per thread, reused for
 * every chunk: building a context sets up its tables, which costs as much
 * as compressing a small chunk. (Codec modules stay loaded for the life
 * of the process, so the destroy functions stay valid.) */
static GPrivate cctx_key = G_PRIVATE_INIT ((GDestroyNotify) ZSTD_freeCCtx);
static GPrivate dctx_key = G_PRIVATE_INIT ((GDestroyNotify) ZSTD_freeDCtx);

static ZSTD_CCtx *
thread_cctx (void)
{
  ZSTD_CCtx *cctx = g_private_get (&cctx_key);
  if (cctx == NULL && (cctx = ZSTD_createCCtx ()) != NULL)
    g_private_set (&cctx_key, cctx);
  return cctx;
}

static ZSTD_DCtx *
thread_dctx (void)
{
  ZSTD_DCtx *dctx = g_private_get (&dctx_key);
  if (dctx == NULL && (dctx = ZSTD_createDCtx ()) != NULL)
    g_private_set (&dctx_key, dctx);
  return dctx;
}

static gboolean
zstd_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  return ncz_codec_level_from_json (zstd_levels (), dict, visible, error);
}

static gboolean
level_from_params (const guint *params, gsize n_params, gint *level, GError **error)
{
  return ncz_codec_level_from_params (zstd_levels (), params, n_params, level, error);
}

static JsonObject *
zstd_to_json (const guint *visible, gsize n_visible, GError **error)
{
  return ncz_codec_level_to_json (zstd_levels (), visible, n_visible, error);
}

static GBytes *
zstd_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  gint level;
  gsize bound, out_length, capacity;
  guint8 *out;
  ZSTD_CCtx *cctx;

  if (!level_from_params (working, n_working, &level, error))
    return NULL;
  bound = ZSTD_compressBound (length);
  if (ZSTD_isError (bound))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "zstd: a chunk of %" G_GSIZE_FORMAT " bytes is too large", length);
      return NULL;
    }
  out = ncz_buffer_alloc (bound, &capacity);
  if (out == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "zstd: out of memory for %" G_GSIZE_FORMAT " bytes", bound);
      return NULL;
    }
  cctx = thread_cctx ();
  out_length = cctx ? ZSTD_compressCCtx (cctx, out, bound, in, length, level)
                    : ZSTD_compress (out, bound, in, length, level);
  if (ZSTD_isError (out_length))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "zstd: compression failed: %s",
                   ZSTD_getErrorName (out_length));
      ncz_buffer_release (out, capacity);
      return NULL;
    }
  /* a pooled buffer: reused for the next chunk once the caller is done */
  return ncz_buffer_new_bytes (out, out_length, capacity);
}

static GBytes *
corrupt (GError **error, const char *what)
{
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT, "zstd: corrupt data: %s", what);
  return NULL;
}

static GBytes *
zstd_decode_stream (const guint8 *in, gsize length, gsize limit, GError **error)
{
  ZSTD_DStream *stream = ZSTD_createDStream ();
  ZSTD_inBuffer source = { in, length, 0 };
  gsize capacity = MIN (MAX (length * 4, ZSTD_DStreamOutSize ()), limit);
  guint8 *out = g_malloc (capacity);
  gsize used = 0;
  gsize status = 1;
  const char *problem = NULL;

  if (stream == NULL)
    {
      g_free (out);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "zstd: cannot initialise");
      return NULL;
    }
  for (;;)
    {
      ZSTD_outBuffer sink;

      if (used == capacity)
        {
          if (capacity >= limit)
            {
              problem = "expands further than its size allows";
              break;
            }
          capacity = capacity > limit / 2 ? limit : capacity * 2;
          out = g_realloc (out, capacity);
        }
      sink.dst = out;
      sink.size = capacity;
      sink.pos = used;
      status = ZSTD_decompressStream (stream, &sink, &source);
      used = sink.pos;
      if (ZSTD_isError (status))
        {
          problem = ZSTD_getErrorName (status);
          break;
        }
      if (source.pos == source.size && sink.pos < sink.size)
        {
          /* all input read and room left: done, or truncated mid-frame */
          if (status != 0)
            problem = "truncated frame";
          break;
        }
    }
  ZSTD_freeDStream (stream);
  if (problem != NULL)
    {
      g_free (out);
      return corrupt (error, problem);
    }
  return g_bytes_new_take (g_realloc (out, MAX (used, 1)), used);
}

static GBytes *
zstd_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  unsigned long long content_size;
  gsize limit, result, capacity;
  guint8 *out;
  ZSTD_DCtx *dctx;

  if (length == 0)
    return corrupt (error, "empty input");
  limit = length <= (G_MAXSIZE - 131072) / ZSTD_MAX_RATIO ? length * ZSTD_MAX_RATIO + 131072
                                                          : G_MAXSIZE;

  content_size = ZSTD_getFrameContentSize (in, length);
  if (content_size == ZSTD_CONTENTSIZE_ERROR)
    return corrupt (error, "not a zstd frame");
  if (content_size == ZSTD_CONTENTSIZE_UNKNOWN)
    return zstd_decode_stream (in, length, limit, error);
  if (content_size > limit)
    return corrupt (error, "frame content size larger than the frame can hold");

  out = ncz_buffer_alloc (MAX (content_size, 1), &capacity);
  if (out == NULL)
    return corrupt (error, "frame content size does not fit in memory");
  dctx = thread_dctx ();
  result = dctx ? ZSTD_decompressDCtx (dctx, out, content_size, in, length)
                : ZSTD_decompress (out, content_size, in, length);
  if (ZSTD_isError (result))
    {
      ncz_buffer_release (out, capacity);
      /* more than one frame: their total is unknown here */
      if (ZSTD_getErrorCode (result) == ZSTD_error_dstSize_tooSmall)
        return zstd_decode_stream (in, length, limit, error);
      return corrupt (error, ZSTD_getErrorName (result));
    }
  if (result != content_size)
    {
      ncz_buffer_release (out, capacity);
      return corrupt (error, "frame shorter than its content size");
    }
  return ncz_buffer_new_bytes (out, result, capacity);
}

static const NczCodecModuleDesc zstd_desc = {
  .codec_id = "zstd",
  .filter_id = 32015,
  .name = "zstd (Ncz)",
  .description = "Zstandard (HDF5 filter 32015, numcodecs zstd)",
  .json_example = "{\"id\": \"zstd\", \"level\": 1}",
  .from_json = zstd_from_json,
  .to_json = zstd_to_json,
  .encode = zstd_encode,
  .decode = zstd_decode,
};

NCZ_DEFINE_CODEC_MODULE (zstd, NczZstdCodec, zstd_desc)
