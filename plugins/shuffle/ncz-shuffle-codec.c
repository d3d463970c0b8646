/* ncz-shuffle-codec.c: the byte shuffle codec (HDF5 filter 2, numcodecs
 * "shuffle")
 *
 * Byte k of every element goes to plane k: with n whole elements of size
 * s, output byte k*n + i is input byte i*s + k. Bytes after the last
 * whole element are copied unchanged to the end, as HDF5 does (numcodecs
 * refuses such buffers, so the layouts agree wherever both apply).
 *
 * Parameters: visible [] or [elementsize]; working [elementsize], taken
 * from the visible parameter when set, else from the variable's storage
 * element size (and then written back to the visible parameters, so the
 * codec JSON carries the real size numcodecs needs). An element size of
 * 0 or 1, or none at all (the HDF5 host without cd_values), copies.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>

#include "ncz-codec-module.h"

static gboolean
shuffle_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  guint element_size;

  if (!ncz_codec_json_get_uint (dict, "elementsize", TRUE, 0, &element_size, error))
    return FALSE;
  /* 0 is what netcdf-c <= 4.9.3 writes: "take it from the variable" */
  if (element_size > 0)
    g_array_append_val (visible, element_size);
  return TRUE;
}

static JsonObject *
shuffle_to_json (const guint *visible, gsize n_visible, GError **error)
{
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", "shuffle");
  json_object_set_int_member (dict, "elementsize", n_visible > 0 ? visible[0] : 0);
  return dict;
}

static gboolean
shuffle_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  guint element_size = 0;

  if (visible->len > 0)
    element_size = g_array_index (visible, guint, 0);
  if (element_size == 0)
    {
      if (info->type_size == 0 || info->type_size > G_MAXUINT)
        {
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                       "the element size is unknown: set 'elementsize' in the codec JSON");
          return FALSE;
        }
      element_size = (guint) info->type_size;
      g_array_set_size (visible, 0);
      g_array_append_val (visible, element_size);
    }
  g_array_append_val (working, element_size);
  return TRUE;
}

static guint
working_element_size (const guint *working, gsize n_working)
{
  return n_working > 0 && working[0] > 1 ? working[0] : 1;
}

/* The inner loops, inlined with constant sizes for the common types. */
static inline void
shuffle_bytes (guint8 *restrict out, const guint8 *restrict in, gsize n, gsize size)
{
  for (gsize i = 0; i < n; i++)
    for (gsize k = 0; k < size; k++)
      out[k * n + i] = in[i * size + k];
}

static inline void
unshuffle_bytes (guint8 *restrict out, const guint8 *restrict in, gsize n, gsize size)
{
  for (gsize i = 0; i < n; i++)
    for (gsize k = 0; k < size; k++)
      out[i * size + k] = in[k * n + i];
}

static GBytes *
shuffle_run (gboolean reverse, const guint *working, gsize n_working, GBytes *input)
{
  gsize length;
  const guint8 *in = g_bytes_get_data (input, &length);
  gsize size = working_element_size (working, n_working);
  gsize n = length / size;
  gsize whole = n * size;
  gsize capacity = 0;
  guint8 *out;

  if (size <= 1 || n <= 1)
    return g_bytes_ref (input);

  /* a reused chunk-sized buffer: fresh pages would fault in on every chunk */
  out = ncz_buffer_alloc (length, &capacity);
  switch (size)
    {
    case 2:
      reverse ? unshuffle_bytes (out, in, n, 2) : shuffle_bytes (out, in, n, 2);
      break;
    case 4:
      reverse ? unshuffle_bytes (out, in, n, 4) : shuffle_bytes (out, in, n, 4);
      break;
    case 8:
      reverse ? unshuffle_bytes (out, in, n, 8) : shuffle_bytes (out, in, n, 8);
      break;
    default:
      reverse ? unshuffle_bytes (out, in, n, size) : shuffle_bytes (out, in, n, size);
      break;
    }
  if (whole < length)
    memcpy (out + whole, in + whole, length - whole);
  return ncz_buffer_new_bytes (out, length, capacity);
}

static GBytes *
shuffle_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  return shuffle_run (FALSE, working, n_working, input);
}

static GBytes *
shuffle_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  return shuffle_run (TRUE, working, n_working, input);
}

static const NczCodecModuleDesc shuffle_desc = {
  .codec_id = "shuffle",
  .filter_id = 2,
  .name = "shuffle (Ncz)",
  .description = "Byte shuffle (HDF5 filter 2, numcodecs shuffle)",
  .json_example = "{\"id\": \"shuffle\", \"elementsize\": 4}",
  .from_json = shuffle_from_json,
  .to_json = shuffle_to_json,
  .modify = shuffle_modify,
  .encode = shuffle_encode,
  .decode = shuffle_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE (shuffle, NczShuffleCodec, shuffle_desc)
