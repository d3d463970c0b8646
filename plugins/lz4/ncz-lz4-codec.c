/* ncz-lz4-codec.c: the LZ4 codec (HDF5 filter 32004, numcodecs "lz4")
 *
 * Two framings of LZ4 blocks exist under these ids:
 *  - numcodecs (Zarr chunks): the uncompressed size as 4 bytes little
 *    endian, then one LZ4 block;
 *  - the HDF5 lz4 filter (HDF5 chunks): the uncompressed size as 8 bytes
 *    big endian, the block size as 4 bytes big endian, then for each
 *    block its stored size as 4 bytes big endian and its bytes; a block
 *    whose compression would not shrink it is stored as is (stored size
 *    equal to the block's length).
 * Ncz's NczCodec always runs the numcodecs framing. Through the HDF5
 * plugin ABI the filter runs the HDF5 framing, except when its parameters
 * are working parameters made by modify (netcdf-c's NCZarr calls the same
 * HDF5 filter function for Zarr chunks): modify marks them.
 *
 * Parameters (visible, the HDF5 lz4 filter's cd_values, all optional):
 *   [block size (0: the filter's default of 1 GiB), acceleration (1)]
 * The block size only matters to the HDF5 framing; the acceleration is
 * numcodecs' "acceleration" and LZ4_compress_fast's (the HDF5 filter
 * ignores a second value). JSON {"id": "lz4", "acceleration": 1} gives no
 * visible parameters, any other acceleration gives [0, acceleration].
 * Working parameters: [block size, acceleration, NUMCODECS_FRAMING_MARK].
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <lz4.h>

#include "ncz-lz4-codec.h"

enum { P_BLOCK_SIZE = 0, P_ACCELERATION = 1, P_MARK = 2, N_WORKING = 3 };

/* The third working parameter: "Zarr chunk, numcodecs framing" ("NCZ4") */
#define NUMCODECS_FRAMING_MARK 0x4e435a34u

#define HDF5_DEFAULT_BLOCK_SIZE (1u << 30)
#define HDF5_HEADER_SIZE 12
#define NUMCODECS_HEADER_SIZE 4

/* An LZ4 block expands at most 255 times (a match's length grows by 255
 * per extra byte); a header claiming more is corrupt. */
#define LZ4_MAX_EXPANSION 255u

static gint
acceleration_of (const guint *params, gsize n)
{
  return n > P_ACCELERATION ? (gint) params[P_ACCELERATION] : 1;
}

static gboolean
check_visible (const guint *params, gsize n, GError **error)
{
  if (n > N_WORKING || (n == N_WORKING && params[P_MARK] != NUMCODECS_FRAMING_MARK))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "lz4 takes at most 2 parameters (block size, acceleration), not %"
                   G_GSIZE_FORMAT, n);
      return FALSE;
    }
  if (n > P_BLOCK_SIZE && params[P_BLOCK_SIZE] > (guint) LZ4_MAX_INPUT_SIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "lz4 block size %u is larger than LZ4's maximum %d", params[P_BLOCK_SIZE],
                   LZ4_MAX_INPUT_SIZE);
      return FALSE;
    }
  return TRUE;
}

static gboolean
lz4_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  gint acceleration;

  if (!ncz_codec_json_get_int (dict, "acceleration", TRUE, 1, &acceleration, error))
    return FALSE;
  if (acceleration != 1)
    {
      guint v[2] = { 0, (guint) acceleration };
      g_array_append_vals (visible, v, 2);
    }
  return TRUE;
}

static JsonObject *
lz4_to_json (const guint *visible, gsize n_visible, GError **error)
{
  JsonObject *dict;

  if (!check_visible (visible, n_visible, error))
    return NULL;
  dict = json_object_new ();
  json_object_set_string_member (dict, "id", "lz4");
  json_object_set_int_member (dict, "acceleration", acceleration_of (visible, n_visible));
  return dict;
}

static gboolean
lz4_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  const guint *v = (const guint *) visible->data;
  guint w[N_WORKING];

  if (!check_visible (v, visible->len, error))
    return FALSE;
  w[P_BLOCK_SIZE] = visible->len > P_BLOCK_SIZE ? v[P_BLOCK_SIZE] : 0;
  w[P_ACCELERATION] = (guint) acceleration_of (v, visible->len);
  w[P_MARK] = NUMCODECS_FRAMING_MARK;
  g_array_append_vals (working, w, N_WORKING);
  return TRUE;
}

static void
put_le32 (guchar *p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = (v >> 24) & 0xff;
}

static guint32
get_le32 (const guchar *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static void
put_be32 (guchar *p, guint32 v)
{
  p[0] = (v >> 24) & 0xff;
  p[1] = (v >> 16) & 0xff;
  p[2] = (v >> 8) & 0xff;
  p[3] = v & 0xff;
}

static guint32
get_be32 (const guchar *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | (guint32) p[3];
}

static gboolean
check_input_size (gsize nbytes, GError **error)
{
  if (nbytes > (gsize) LZ4_MAX_INPUT_SIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "lz4 cannot compress %" G_GSIZE_FORMAT " bytes at once (at most %d)", nbytes,
                   LZ4_MAX_INPUT_SIZE);
      return FALSE;
    }
  return TRUE;
}

/* ---- numcodecs framing ---- */

static GBytes *
lz4_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  const char *src;
  gsize nbytes, capacity;
  int bound, written;
  guchar *dest;

  src = g_bytes_get_data (input, &nbytes);
  if (!check_input_size (nbytes, error))
    return NULL;
  bound = LZ4_compressBound ((int) nbytes);
  dest = ncz_buffer_alloc (NUMCODECS_HEADER_SIZE + (gsize) bound, &capacity);
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "lz4: out of memory for %d bytes", bound);
      return NULL;
    }
  put_le32 (dest, (guint32) nbytes);
  written = LZ4_compress_fast (src != NULL ? src : "", (char *) dest + NUMCODECS_HEADER_SIZE,
                               (int) nbytes, bound, acceleration_of (working, n_working));
  if (written <= 0)
    {
      ncz_buffer_release (dest, capacity);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "lz4 failed to compress %" G_GSIZE_FORMAT " bytes", nbytes);
      return NULL;
    }
  return ncz_buffer_new_bytes (dest, NUMCODECS_HEADER_SIZE + (gsize) written, capacity);
}

static GBytes *
lz4_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  const guchar *src;
  gsize length, compressed;
  guint32 nbytes;
  char *dest;
  int got;

  src = g_bytes_get_data (input, &length);
  if (length < NUMCODECS_HEADER_SIZE + 1)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "lz4 buffer of %" G_GSIZE_FORMAT " bytes is too short for its size header "
                   "and a block", length);
      return NULL;
    }
  nbytes = get_le32 (src);
  compressed = length - NUMCODECS_HEADER_SIZE;
  if (compressed > (gsize) G_MAXINT || nbytes > (guint32) LZ4_MAX_INPUT_SIZE
      || (guint64) nbytes > (guint64) compressed * LZ4_MAX_EXPANSION)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "lz4 header claims %u bytes from a %" G_GSIZE_FORMAT "-byte block", nbytes,
                   compressed);
      return NULL;
    }
  dest = g_try_malloc (MAX (nbytes, 1));
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "lz4: out of memory for %u decoded bytes", nbytes);
      return NULL;
    }
  got = LZ4_decompress_safe ((const char *) src + NUMCODECS_HEADER_SIZE, dest, (int) compressed,
                             (int) nbytes);
  if (got < 0 || (guint32) got != nbytes)
    {
      g_free (dest);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "lz4 block of %" G_GSIZE_FORMAT " bytes is corrupt or does not hold the %u "
                   "bytes its header gives", compressed, nbytes);
      return NULL;
    }
  return g_bytes_new_take (dest, nbytes);
}

/* ---- HDF5 lz4 filter framing ---- */

static gboolean
is_numcodecs_working (const guint *params, gsize n)
{
  return n == N_WORKING && params[P_MARK] == NUMCODECS_FRAMING_MARK;
}

static GBytes *
lz4_h5_encode (const guint *cd_values, gsize n_cd_values, GBytes *input, GError **error)
{
  const guchar *src;
  gsize nbytes, n_blocks, block_size, capacity, pos;
  gint acceleration;
  guchar *dest;

  if (is_numcodecs_working (cd_values, n_cd_values))
    return lz4_encode (cd_values, n_cd_values, input, error);
  if (!check_visible (cd_values, n_cd_values, error))
    return NULL;

  src = g_bytes_get_data (input, &nbytes);
  if (nbytes > (gsize) G_MAXINT32)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "the HDF5 lz4 framing holds at most %d bytes, not %" G_GSIZE_FORMAT,
                   G_MAXINT32, nbytes);
      return NULL;
    }
  block_size = n_cd_values > P_BLOCK_SIZE && cd_values[P_BLOCK_SIZE] > 0
               ? cd_values[P_BLOCK_SIZE] : HDF5_DEFAULT_BLOCK_SIZE;
  if (block_size > nbytes)
    block_size = nbytes;
  acceleration = acceleration_of (cd_values, n_cd_values);
  n_blocks = block_size > 0 ? (nbytes + block_size - 1) / block_size : 0;

  /* a block is stored as is unless compressing shrinks it */
  capacity = HDF5_HEADER_SIZE + n_blocks * 4 + nbytes;
  dest = g_malloc (MAX (capacity, 1));
  put_be32 (dest, (guint32) ((guint64) nbytes >> 32));
  put_be32 (dest + 4, (guint32) nbytes);
  put_be32 (dest + 8, (guint32) block_size);
  pos = HDF5_HEADER_SIZE;

  for (gsize done = 0; done < nbytes; done += block_size)
    {
      gsize this_block = MIN (block_size, nbytes - done);
      int stored = 0;

      if (this_block > 1)
        stored = LZ4_compress_fast ((const char *) src + done, (char *) dest + pos + 4,
                                    (int) this_block, (int) this_block - 1, acceleration);
      if (stored <= 0 || (gsize) stored >= this_block)
        {
          memcpy (dest + pos + 4, src + done, this_block);
          stored = (int) this_block;
        }
      put_be32 (dest + pos, (guint32) stored);
      pos += 4 + (gsize) stored;
    }

  if (pos < capacity)
    dest = g_realloc (dest, pos);
  return g_bytes_new_take (dest, pos);
}

static GBytes *
lz4_h5_decode (const guint *cd_values, gsize n_cd_values, GBytes *input, GError **error)
{
  const guchar *src;
  gsize length, pos, done;
  guint64 nbytes;
  guint32 block_size;
  guchar *dest;

  if (is_numcodecs_working (cd_values, n_cd_values))
    return lz4_decode (cd_values, n_cd_values, input, error);

  src = g_bytes_get_data (input, &length);
  if (length < HDF5_HEADER_SIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "HDF5 lz4 buffer of %" G_GSIZE_FORMAT " bytes is shorter than its %d-byte "
                   "header", length, HDF5_HEADER_SIZE);
      return NULL;
    }
  nbytes = (guint64) get_be32 (src) << 32 | get_be32 (src + 4);
  block_size = get_be32 (src + 8);
  if (block_size > nbytes)
    block_size = (guint32) nbytes;
  if (nbytes > 0 && block_size == 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "HDF5 lz4 header gives a block size of 0 for %" G_GUINT64_FORMAT " bytes",
                   nbytes);
      return NULL;
    }
  if (nbytes > (guint64) (length - HDF5_HEADER_SIZE) * LZ4_MAX_EXPANSION
      || (nbytes > 0 && (nbytes + block_size - 1) / block_size > (length - HDF5_HEADER_SIZE) / 4))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "HDF5 lz4 header claims %" G_GUINT64_FORMAT " bytes from a %" G_GSIZE_FORMAT
                   "-byte buffer", nbytes, length);
      return NULL;
    }
  dest = g_try_malloc (MAX (nbytes, 1));
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "lz4: out of memory for %" G_GUINT64_FORMAT " decoded bytes", nbytes);
      return NULL;
    }

  pos = HDF5_HEADER_SIZE;
  for (done = 0; done < nbytes; done += block_size)
    {
      gsize this_block = MIN ((guint64) block_size, nbytes - done);
      guint32 stored;

      if (length - pos < 4)
        goto truncated;
      stored = get_be32 (src + pos);
      pos += 4;
      if (stored > length - pos)
        goto truncated;
      if (stored == this_block)
        memcpy (dest + done, src + pos, this_block);
      else if (stored > (guint32) G_MAXINT
               || LZ4_decompress_safe ((const char *) src + pos, (char *) dest + done, (int) stored,
                                       (int) this_block) != (int) this_block)
        {
          g_free (dest);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                       "HDF5 lz4 block at byte %" G_GSIZE_FORMAT " is corrupt", pos - 4);
          return NULL;
        }
      pos += stored;
    }
  return g_bytes_new_take (dest, (gsize) nbytes);

truncated:
  g_free (dest);
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
               "HDF5 lz4 buffer of %" G_GSIZE_FORMAT " bytes is truncated (block at byte %"
               G_GSIZE_FORMAT ")", length, pos);
  return NULL;
}

const NczCodecModuleDesc ncz_lz4_codec_desc = {
  .codec_id = "lz4",
  .filter_id = 32004,
  .name = "lz4 (Ncz)",
  .description = "LZ4 block compression (liblz4 " LZ4_VERSION_STRING "), numcodecs framing in "
                 "Zarr, the HDF5 lz4 filter's framing in HDF5",
  .json_example = "{\"id\": \"lz4\", \"acceleration\": 1}",
  .from_json = lz4_from_json,
  .to_json = lz4_to_json,
  .modify = lz4_modify,
  .encode = lz4_encode,
  .decode = lz4_decode,
  .h5_encode = lz4_h5_encode,
  .h5_decode = lz4_h5_decode,
};
