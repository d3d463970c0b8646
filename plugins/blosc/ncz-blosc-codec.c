/* ncz-blosc-codec.c: the Blosc codec (HDF5 filter 32001, numcodecs "blosc")
 *
 * One Blosc buffer per chunk, the same bytes in a Zarr chunk, in an HDF5
 * chunk (the HDF5 blosc filter) and from numcodecs. Only the contextual
 * c-blosc calls are used (blosc_compress_ctx / blosc_decompress_ctx, one
 * internal thread): chunks are encoded on several threads at once and
 * the library's global state is never touched.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>
#include <blosc.h>

#include "ncz-blosc-codec.h"

/* working[0]: the version of the HDF5 blosc filter's parameter layout */
#define BLOSC_FILTER_PARAMS_VERSION 2u

/* visible and working positions */
enum {
  P_TYPESIZE = 2,     /* working only */
  P_BLOCKSIZE = 3,    /* visible; chunk bytes in the working form */
  P_CLEVEL = 4,
  P_SHUFFLE = 5,
  P_COMPCODE = 6,
  N_PARAMS = 7,
  P_WORKING_BLOCKSIZE = 7,
};

/* numcodecs' defaults for missing JSON keys */
#define JSON_DEFAULT_CNAME "lz4"
#define JSON_DEFAULT_CLEVEL 5
#define JSON_DEFAULT_SHUFFLE 1
#define JSON_DEFAULT_BLOCKSIZE 0

/* The HDF5 blosc filter's defaults for absent cd_values */
#define H5_DEFAULT_CLEVEL 5u
#define H5_DEFAULT_SHUFFLE 1u
#define H5_DEFAULT_COMPCODE 0u   /* blosclz */

#define AUTOSHUFFLE (-1)

/* A Blosc buffer cannot expand more than this many times: zstd's best
 * case (run-length blocks) stays under half of it. A header claiming
 * more is corrupt, which bounds what a damaged chunk can make us
 * allocate. */
#define MAX_EXPANSION 65536u

typedef struct {
  guint typesize;     /* 0 when unknown */
  guint chunk_bytes;  /* 0 when unknown */
  guint blocksize;
  guint clevel;
  gint shuffle;
  guint compcode;
} BloscParams;

static char *
available_compressors (void)
{
  return g_strdup (blosc_list_compressors ());
}

static gboolean
compcode_supported (guint compcode, const char **name)
{
  const char *compname = NULL;

  if (compcode > G_MAXINT)
    return FALSE;
  if (blosc_compcode_to_compname ((int) compcode, &compname) < 0 || compname == NULL)
    return FALSE;
  if (name != NULL)
    *name = compname;
  return TRUE;
}

static gboolean
check_params (const BloscParams *p, GError **error)
{
  if (p->clevel > 9)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "blosc clevel %u is out of range 0..9", p->clevel);
      return FALSE;
    }
  if (p->shuffle != AUTOSHUFFLE && p->shuffle != BLOSC_NOSHUFFLE && p->shuffle != BLOSC_SHUFFLE
      && p->shuffle != BLOSC_BITSHUFFLE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "blosc shuffle %d is not one of -1 (auto), 0 (none), 1 (byte), 2 (bit)",
                   p->shuffle);
      return FALSE;
    }
  if (!compcode_supported (p->compcode, NULL))
    {
      g_autofree char *list = available_compressors ();
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "blosc compressor code %u is not supported by this c-blosc (it has %s)",
                   p->compcode, list);
      return FALSE;
    }
  if (p->blocksize > (guint) BLOSC_MAX_BLOCKSIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "blosc blocksize %u is larger than c-blosc's maximum %d", p->blocksize,
                   (int) BLOSC_MAX_BLOCKSIZE);
      return FALSE;
    }
  return TRUE;
}

/* Reads parameters in either form: the visible one ([0] == 0, as given to
 * nc_def_var_filter or h5py's compression_opts) or the working one ([0]
 * is the filter's parameter version, as set_local or modify make it).
 * Missing trailing values take the HDF5 blosc filter's defaults. */
static gboolean
params_read (const guint *v, gsize n, BloscParams *p, GError **error)
{
  gboolean working_form = n > P_BLOCKSIZE && v[0] != 0;

  if (n > N_PARAMS + 1 || (n > N_PARAMS && !working_form))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "blosc takes at most %d parameters, not %" G_GSIZE_FORMAT, N_PARAMS, n);
      return FALSE;
    }
  memset (p, 0, sizeof *p);
  if (working_form)
    {
      p->typesize = v[P_TYPESIZE];
      p->chunk_bytes = v[P_BLOCKSIZE];
      p->blocksize = n > P_WORKING_BLOCKSIZE ? v[P_WORKING_BLOCKSIZE] : 0;
    }
  else
    p->blocksize = n > P_BLOCKSIZE ? v[P_BLOCKSIZE] : 0;
  p->clevel = n > P_CLEVEL ? v[P_CLEVEL] : H5_DEFAULT_CLEVEL;
  p->shuffle = (gint) (n > P_SHUFFLE ? v[P_SHUFFLE] : H5_DEFAULT_SHUFFLE);
  p->compcode = n > P_COMPCODE ? v[P_COMPCODE] : H5_DEFAULT_COMPCODE;
  return check_params (p, error);
}

static void
visible_append (GArray *visible, const BloscParams *p)
{
  guint v[N_PARAMS] = { 0, 0, 0, p->blocksize, p->clevel, (guint) p->shuffle, p->compcode };

  g_array_append_vals (visible, v, N_PARAMS);
}

static gboolean
blosc_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  BloscParams p = { 0, };
  JsonNode *cname_node;
  const char *cname = JSON_DEFAULT_CNAME;
  gint clevel, shuffle, code;

  cname_node = json_object_get_member (dict, "cname");
  if (cname_node != NULL && !JSON_NODE_HOLDS_NULL (cname_node))
    {
      if (json_node_get_value_type (cname_node) != G_TYPE_STRING)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "codec JSON key 'cname' must be a string, not %s",
                       ncz_codec_json_kind_name (cname_node));
          return FALSE;
        }
      cname = json_node_get_string (cname_node);
    }
  code = blosc_compname_to_compcode (cname);
  if (code < 0)
    {
      g_autofree char *list = available_compressors ();
      g_autofree char *escaped = g_strescape (cname, NULL);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key 'cname' is \"%.64s\", a compressor this c-blosc does not "
                   "have (it has %s)", escaped, list);
      return FALSE;
    }
  p.compcode = (guint) code;

  if (!ncz_codec_json_get_int (dict, "clevel", TRUE, JSON_DEFAULT_CLEVEL, &clevel, error))
    return FALSE;
  if (clevel < 0 || clevel > 9)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key 'clevel' is %d, outside 0..9", clevel);
      return FALSE;
    }
  p.clevel = (guint) clevel;

  if (!ncz_codec_json_get_int (dict, "shuffle", TRUE, JSON_DEFAULT_SHUFFLE, &shuffle, error))
    return FALSE;
  if (shuffle < AUTOSHUFFLE || shuffle > BLOSC_BITSHUFFLE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key 'shuffle' is %d, not one of -1 (auto), 0 (none), "
                   "1 (byte), 2 (bit)", shuffle);
      return FALSE;
    }
  p.shuffle = shuffle;

  if (!ncz_codec_json_get_uint (dict, "blocksize", TRUE, JSON_DEFAULT_BLOCKSIZE, &p.blocksize,
                                error))
    return FALSE;
  if (p.blocksize > (guint) BLOSC_MAX_BLOCKSIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec JSON key 'blocksize' is %u, larger than c-blosc's maximum %d",
                   p.blocksize, (int) BLOSC_MAX_BLOCKSIZE);
      return FALSE;
    }

  visible_append (visible, &p);
  return TRUE;
}

static JsonObject *
blosc_to_json (const guint *visible, gsize n_visible, GError **error)
{
  BloscParams p;
  const char *cname = NULL;
  JsonObject *dict;

  if (!params_read (visible, n_visible, &p, error))
    return NULL;
  compcode_supported (p.compcode, &cname);

  dict = json_object_new ();
  json_object_set_string_member (dict, "id", "blosc");
  json_object_set_string_member (dict, "cname", cname);
  json_object_set_int_member (dict, "clevel", p.clevel);
  json_object_set_int_member (dict, "shuffle", p.shuffle);
  json_object_set_int_member (dict, "blocksize", p.blocksize);
  return dict;
}

static gboolean
blosc_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  BloscParams p;
  guint typesize = info->type_size > 0 && info->type_size <= G_MAXUINT ? (guint) info->type_size : 1;
  guint chunk_bytes = info->chunk_bytes <= G_MAXUINT ? (guint) info->chunk_bytes : G_MAXUINT;

  if (!params_read ((const guint *) visible->data, visible->len, &p, error))
    return FALSE;

  {
    guint w[N_PARAMS + 1] = {
      BLOSC_FILTER_PARAMS_VERSION, BLOSC_VERSION_FORMAT, typesize, chunk_bytes,
      p.clevel, (guint) p.shuffle, p.compcode, p.blocksize,
    };
    g_array_append_vals (working, w, p.blocksize != 0 ? N_PARAMS + 1 : N_PARAMS);
  }
  return TRUE;
}

static GBytes *
blosc_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  BloscParams p;
  const char *cname = NULL;
  const guchar *src;
  gsize nbytes, dest_size;
  gsize capacity;
  guchar *dest;
  int shuffle, written;
  gsize typesize;

  if (!params_read (working, n_working, &p, error))
    return NULL;
  compcode_supported (p.compcode, &cname);

  src = g_bytes_get_data (input, &nbytes);
  if (nbytes > (gsize) BLOSC_MAX_BUFFERSIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "blosc cannot compress %" G_GSIZE_FORMAT " bytes at once (at most %d)",
                   nbytes, (int) BLOSC_MAX_BUFFERSIZE);
      return NULL;
    }

  typesize = p.typesize > 0 ? p.typesize : 1;
  shuffle = p.shuffle;
  if (shuffle == AUTOSHUFFLE)
    shuffle = typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;

  dest_size = nbytes + BLOSC_MAX_OVERHEAD;
  dest = ncz_buffer_alloc (dest_size, &capacity);
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "blosc: out of memory for %" G_GSIZE_FORMAT " bytes", dest_size);
      return NULL;
    }
  written = blosc_compress_ctx ((int) p.clevel, shuffle, typesize, nbytes, src != NULL ? src : dest,
                                dest, dest_size, cname, p.blocksize, 1);
  if (written <= 0)
    {
      ncz_buffer_release (dest, capacity);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "blosc (%s, clevel %u, shuffle %d) failed to compress %" G_GSIZE_FORMAT
                   " bytes (code %d)", cname, p.clevel, shuffle, nbytes, written);
      return NULL;
    }
  return ncz_buffer_new_bytes (dest, written, capacity);
}

static guint32
read_le32 (const guchar *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static GBytes *
blosc_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  const guchar *src;
  gsize length, nbytes = 0, capacity = 0;
  guint32 header_nbytes, header_blocksize, header_cbytes;
  guint version, flags;
  guchar *dest;
  int got;

  src = g_bytes_get_data (input, &length);
  if (length < BLOSC_MIN_HEADER_LENGTH)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc buffer of %" G_GSIZE_FORMAT " bytes is shorter than its %d-byte header",
                   length, BLOSC_MIN_HEADER_LENGTH);
      return NULL;
    }
  version = src[0];
  flags = src[2];
  header_nbytes = read_le32 (src + 4);
  header_blocksize = read_le32 (src + 8);
  header_cbytes = read_le32 (src + 12);

  if (version == 0 || version > BLOSC_VERSION_FORMAT)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc buffer has format version %u, this c-blosc reads 1..%d",
                   version, BLOSC_VERSION_FORMAT);
      return NULL;
    }
  if (header_cbytes != length)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc header gives a compressed size of %u bytes but the buffer has %"
                   G_GSIZE_FORMAT " (truncated or corrupt)", header_cbytes, length);
      return NULL;
    }
  if (header_nbytes > (guint32) BLOSC_MAX_BUFFERSIZE)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc header gives an impossible uncompressed size of %u bytes", header_nbytes);
      return NULL;
    }
  if ((flags & BLOSC_MEMCPYED) != 0)
    {
      if ((guint64) header_nbytes + BLOSC_MAX_OVERHEAD != header_cbytes)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                       "blosc buffer stored uncompressed has %u bytes, its header says %u",
                       header_cbytes - BLOSC_MAX_OVERHEAD, header_nbytes);
          return NULL;
        }
    }
  else if (header_nbytes > 0)
    {
      guint64 nblocks;

      if (header_blocksize == 0 || header_blocksize > (guint32) BLOSC_MAX_BLOCKSIZE)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                       "blosc header gives an impossible block size of %u bytes",
                       header_blocksize);
          return NULL;
        }
      nblocks = ((guint64) header_nbytes + header_blocksize - 1) / header_blocksize;
      if (BLOSC_MAX_OVERHEAD + nblocks * 4 > header_cbytes
          || (guint64) header_nbytes > (guint64) (header_cbytes - BLOSC_MAX_OVERHEAD) * MAX_EXPANSION)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                       "blosc header claims %u bytes from a %u-byte buffer", header_nbytes,
                       header_cbytes);
          return NULL;
        }
    }
  if (blosc_cbuffer_validate (src, length, &nbytes) < 0 || nbytes != header_nbytes)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc buffer of %" G_GSIZE_FORMAT " bytes has an invalid header", length);
      return NULL;
    }
  if (nbytes == 0)
    return g_bytes_new (NULL, 0);

  dest = ncz_buffer_alloc (nbytes, &capacity);
  if (dest == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "blosc: out of memory for %" G_GSIZE_FORMAT " decoded bytes", nbytes);
      return NULL;
    }
  got = blosc_decompress_ctx (src, dest, nbytes, 1);
  if (got < 0 || (gsize) got != nbytes)
    {
      ncz_buffer_release (dest, capacity);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT,
                   "blosc buffer of %" G_GSIZE_FORMAT " bytes is corrupt (decompression gave %d "
                   "of %" G_GSIZE_FORMAT " bytes)", length, got, nbytes);
      return NULL;
    }
  return ncz_buffer_new_bytes (dest, nbytes, capacity);
}

const NczCodecModuleDesc ncz_blosc_codec_desc = {
  .codec_id = "blosc",
  .filter_id = 32001,
  .name = "blosc (Ncz)",
  .description = "Blosc meta-compressor (c-blosc " BLOSC_VERSION_STRING "): every compressor "
                 "c-blosc has (blosclz, lz4, lz4hc, snappy, zlib, zstd), byte or bit shuffle",
  .json_example = "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, "
                  "\"blocksize\": 0}",
  .from_json = blosc_from_json,
  .to_json = blosc_to_json,
  .modify = blosc_modify,
  .h5_set_local = TRUE,
  .encode = blosc_encode,
  .decode = blosc_decode,
};
