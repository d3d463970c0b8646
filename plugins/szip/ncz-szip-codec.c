/* ncz-szip-codec.c: the SZIP codec (HDF5 filter 4, codec "szip")
 *
 * Runs libaec's szip-compatible API (SZ_BufftoBuffCompress /
 * SZ_BufftoBuffDecompress). The chunk format is HDF5's szip filter's: the
 * uncompressed size as 4 bytes little endian, then the szip stream, so
 * the same chunk bytes serve HDF5 files and netcdf-c's NCZarr.
 *
 * Visible parameters [options mask, pixels per block] (H5Pset_szip's
 * arguments, netcdf-c's nc_def_var_szip's). Working parameters, as HDF5's
 * szip filter derives them for a chunk:
 *   [0] mask: CHIP removed, K13 and RAW added, LSB or MSB from the byte
 *       order of the stored data;
 *   [1] pixels per block;
 *   [2] bits per pixel: 8 * element size, rounded up to 32 or 64 above 24;
 *   [3] pixels per scanline: the chunk's last dimension, bounded by
 *       pixels per block * 128; when that dimension is shorter than a
 *       block, the whole chunk's element count is used instead (bounded
 *       the same way).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <szlib.h>

#include "ncz-szip-codec.h"

enum { P_MASK = 0, P_PPB = 1, P_BPP = 2, P_PPS = 3, N_VISIBLE = 2, N_WORKING = 4 };

#define KNOWN_MASK_BITS (SZ_ALLOW_K13_OPTION_MASK | SZ_CHIP_OPTION_MASK | SZ_EC_OPTION_MASK \
                         | SZ_LSB_OPTION_MASK | SZ_MSB_OPTION_MASK | SZ_NN_OPTION_MASK      \
                         | SZ_RAW_OPTION_MASK)

#define JSON_DEFAULT_MASK SZ_NN_OPTION_MASK
#define JSON_DEFAULT_PPB 32u

#define HEADER_SIZE 4

/* An szip stream cannot expand more than this many times (an all-equal
 * reference sample interval still costs its reference sample and block
 * ids); a header claiming more is corrupt. */
#define MAX_EXPANSION 65536u

static gboolean
check_mask_ppb (guint mask, guint ppb, GError **error)
{
  guint coding = mask & (SZ_EC_OPTION_MASK | SZ_NN_OPTION_MASK);

  if ((mask & ~(guint) KNOWN_MASK_BITS) != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip options mask %u has unknown bits (known: 1 K13, 2 CHIP, 4 EC, 8 LSB, "
                   "16 MSB, 32 NN, 128 RAW)", mask);
      return FALSE;
    }
  if (coding != SZ_EC_OPTION_MASK && coding != SZ_NN_OPTION_MASK)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip options mask %u must select exactly one coding method: "
                   "4 (EC, entropy coding) or 32 (NN, nearest neighbour)", mask);
      return FALSE;
    }
  if (ppb < 2 || ppb > SZ_MAX_PIXELS_PER_BLOCK || ppb % 2 != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip pixels per block %u must be even, from 2 to %d", ppb,
                   SZ_MAX_PIXELS_PER_BLOCK);
      return FALSE;
    }
  return TRUE;
}

/* Visible parameters: 2, or the 4 an HDF5 file stores. */
static gboolean
check_visible (const guint *v, gsize n, GError **error)
{
  if (n != N_VISIBLE && n != N_WORKING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip takes 2 parameters (options mask, pixels per block), not %"
                   G_GSIZE_FORMAT, n);
      return FALSE;
    }
  return check_mask_ppb (v[P_MASK], v[P_PPB], error);
}

static gboolean
szip_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  guint v[N_VISIBLE];

  if (!ncz_codec_json_get_uint (dict, "mask", TRUE, JSON_DEFAULT_MASK, &v[P_MASK], error)
      || !ncz_codec_json_get_uint (dict, "pixels-per-block", TRUE, JSON_DEFAULT_PPB, &v[P_PPB],
                                   error))
    return FALSE;
  if (!check_mask_ppb (v[P_MASK], v[P_PPB], error))
    return FALSE;
  g_array_append_vals (visible, v, N_VISIBLE);
  return TRUE;
}

static JsonObject *
szip_to_json (const guint *visible, gsize n_visible, GError **error)
{
  JsonObject *dict;

  if (!check_visible (visible, n_visible, error))
    return NULL;
  dict = json_object_new ();
  json_object_set_string_member (dict, "id", "szip");
  json_object_set_int_member (dict, "mask", visible[P_MASK]);
  json_object_set_int_member (dict, "pixels-per-block", visible[P_PPB]);
  return dict;
}

static gboolean
szip_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  const guint *v = (const guint *) visible->data;
  guint w[N_WORKING];
  guint64 scanline, npoints = 1;
  guint mask, ppb, bpp;

  if (!check_visible (v, visible->len, error))
    return FALSE;
  mask = v[P_MASK];
  ppb = v[P_PPB];

  if (info->rank == 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip needs a chunked variable of rank 1 or more, not a scalar");
      return FALSE;
    }
  if (info->type == NCZ_DATA_TYPE_STRING || info->type_size == 0 || info->type_size > 8)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip compresses elements of 1 to 8 bytes, not %s",
                   info->type == NCZ_DATA_TYPE_STRING ? "strings" : "this element size");
      return FALSE;
    }

  bpp = (guint) info->type_size * 8;
  if (bpp > 24)
    bpp = bpp <= 32 ? 32 : 64;

  for (guint i = 0; i < info->rank; i++)
    npoints = info->chunks[i] > 0 && npoints <= G_MAXUINT64 / info->chunks[i]
              ? npoints * info->chunks[i] : G_MAXUINT64;
  scanline = info->chunks[info->rank - 1];
  if (scanline < ppb)
    {
      if (npoints < ppb)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "szip pixels per block %u is more than the %" G_GUINT64_FORMAT
                       " elements of a chunk", ppb, npoints);
          return FALSE;
        }
      scanline = MIN ((guint64) ppb * SZ_MAX_BLOCKS_PER_SCANLINE, npoints);
    }
  else if (scanline <= SZ_MAX_PIXELS_PER_SCANLINE)
    scanline = MIN ((guint64) ppb * SZ_MAX_BLOCKS_PER_SCANLINE, scanline);
  else
    scanline = (guint64) ppb * SZ_MAX_BLOCKS_PER_SCANLINE;

  mask &= ~(guint) SZ_CHIP_OPTION_MASK;
  mask |= SZ_ALLOW_K13_OPTION_MASK | SZ_RAW_OPTION_MASK;
  mask &= ~(guint) (SZ_LSB_OPTION_MASK | SZ_MSB_OPTION_MASK);
  mask |= info->big_endian ? SZ_MSB_OPTION_MASK : SZ_LSB_OPTION_MASK;

  w[P_MASK] = mask;
  w[P_PPB] = ppb;
  w[P_BPP] = bpp;
  w[P_PPS] = (guint) scanline;
  g_array_append_vals (working, w, N_WORKING);
  return TRUE;
}

/* Bytes of one element in the uncompressed buffer for @bpp bits. */
static guint
element_bytes (guint bpp)
{
  if (bpp == 64)
    return 8;
  if (bpp > 16)
    return 4;
  if (bpp > 8)
    return 2;
  return 1;
}

static gboolean
working_read (const guint *w, gsize n, SZ_com_t *param, GError **error)
{
  if (n != N_WORKING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip runs with 4 working parameters (mask, pixels per block, bits per "
                   "pixel, pixels per scanline), not %" G_GSIZE_FORMAT, n);
      return FALSE;
    }
  if (!check_mask_ppb (w[P_MASK], w[P_PPB], error))
    return FALSE;
  if (w[P_BPP] == 0 || (w[P_BPP] > 32 && w[P_BPP] != 64))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip bits per pixel %u must be 1 to 32, or 64", w[P_BPP]);
      return FALSE;
    }
  if (w[P_PPS] == 0 || w[P_PPS] > w[P_PPB] * 4096u)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip pixels per scanline %u must be 1 to 4096 blocks", w[P_PPS]);
      return FALSE;
    }
  param->options_mask = (int) w[P_MASK];
  param->pixels_per_block = (int) w[P_PPB];
  param->bits_per_pixel = (int) w[P_BPP];
  param->pixels_per_scanline = (int) w[P_PPS];
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

static GBytes *
szip_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  SZ_com_t param;
  const guchar *src;
  gsize nbytes, capacity, limit;
  guint esize;

  if (!working_read (working, n_working, &param, error))
    return NULL;
  src = g_bytes_get_data (input, &nbytes);
  esize = element_bytes ((guint) param.bits_per_pixel);
  if (nbytes > G_MAXUINT32 || nbytes % esize != 0)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "szip cannot compress %" G_GSIZE_FORMAT " bytes as %d-bit pixels", nbytes,
                   param.bits_per_pixel);
      return NULL;
    }
  if (nbytes == 0)
    {
      guchar *empty = g_malloc0 (HEADER_SIZE);
      return g_bytes_new_take (empty, HEADER_SIZE);
    }

  /* A chunk rarely grows; when it does (noise, padding of a short last
   * scanline), retry with more room. */
  capacity = nbytes + nbytes / 8 + 1024;
  limit = 4 * nbytes + (gsize) param.pixels_per_scanline * esize * 4 + 65536;
  for (;;)
    {
      guchar *dest = g_malloc (HEADER_SIZE + capacity);
      size_t out_len = capacity;
      int status;

      status = SZ_BufftoBuffCompress (dest + HEADER_SIZE, &out_len, src, nbytes, &param);
      if (status == SZ_OK)
        {
          put_le32 (dest, (guint32) nbytes);
          dest = g_realloc (dest, HEADER_SIZE + out_len);
          return g_bytes_new_take (dest, HEADER_SIZE + out_len);
        }
      g_free (dest);
      if (status == SZ_OUTBUFF_FULL && capacity < limit)
        {
          capacity = MIN (capacity * 2, limit);
          continue;
        }
      g_set_error (error, NCZ_CODEC_ERROR,
                   status == SZ_PARAM_ERROR ? NCZ_CODEC_ERROR_BAD_PARAMETERS : NCZ_CODEC_ERROR_FAILED,
                   "szip (mask %d, %d pixels per block, %d bits per pixel, %d pixels per "
                   "scanline) failed to compress %" G_GSIZE_FORMAT " bytes (code %d)",
                   param.options_mask, param.pixels_per_block, param.bits_per_pixel,
                   param.pixels_per_scanline, nbytes, status);
      return NULL;
    }
}

static GBytes *
szip_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  SZ_com_t param;
  const guchar *src;
  gsize length;
  guint32 nbytes;
  size_t out_len;
  guchar *dest;
  int status;

  if (!working_read (working, n_working, &param, error))
    return NULL;
  src = g_bytes_get_data (input, &length);
  if (length < HEADER_SIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "szip buffer of %" G_GSIZE_FORMAT " bytes is shorter than its %d-byte "
                   "size header", length, HEADER_SIZE);
      return NULL;
    }
  nbytes = (guint32) src[0] | (guint32) src[1] << 8 | (guint32) src[2] << 16
           | (guint32) src[3] << 24;
  if (nbytes == 0)
    return g_bytes_new (NULL, 0);
  if (length == HEADER_SIZE || (guint64) nbytes > (guint64) (length - HEADER_SIZE) * MAX_EXPANSION)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "szip header claims %u bytes from a %" G_GSIZE_FORMAT "-byte stream", nbytes,
                   length - HEADER_SIZE);
      return NULL;
    }
  dest = g_try_malloc (nbytes);
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "szip: out of memory for %u decoded bytes", nbytes);
      return NULL;
    }
  out_len = nbytes;
  status = SZ_BufftoBuffDecompress (dest, &out_len, src + HEADER_SIZE, length - HEADER_SIZE, &param);
  if (status != SZ_OK || out_len != nbytes)
    {
      g_free (dest);
      if (status == SZ_PARAM_ERROR)
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                     "szip rejects its parameters (mask %d, %d pixels per block, %d bits per "
                     "pixel, %d pixels per scanline)", param.options_mask,
                     param.pixels_per_block, param.bits_per_pixel, param.pixels_per_scanline);
      else
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                     "szip stream of %" G_GSIZE_FORMAT " bytes is corrupt (code %d, %"
                     G_GSIZE_FORMAT " of %u bytes decoded)", length - HEADER_SIZE, status,
                     (gsize) out_len, nbytes);
      return NULL;
    }
  return g_bytes_new_take (dest, nbytes);
}

const NczCodecModuleDesc ncz_szip_codec_desc = {
  .codec_id = "szip",
  .filter_id = 4,
  .name = "szip (Ncz, libaec)",
  .description = "SZIP (CCSDS adaptive entropy coding via libaec), HDF5's chunk format",
  .json_example = "{\"id\": \"szip\", \"mask\": 32, \"pixels-per-block\": 32}",
  .from_json = szip_from_json,
  .to_json = szip_to_json,
  .modify = szip_modify,
  .encode = szip_encode,
  .decode = szip_decode,
};
