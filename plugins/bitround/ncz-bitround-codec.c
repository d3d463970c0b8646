/* ncz-bitround-codec.c: the numcodecs "bitround" codec (no HDF5 filter
 * id)
 *
 * Keeps the `keepbits` leading bits of each float's mantissa, rounding
 * to nearest with ties to even on the bit pattern, as numcodecs 0.11
 * does: with m = mantissa bits - keepbits (23 for float32, 52 for
 * float64, 10 for float16), the element's bits b become
 *   (b + ((b >> m) & 1) + 2^(m-1) - 1) & ~(2^m - 1)
 * computed modulo 2^(element width) (a carry may run into the exponent,
 * and NaNs with long payloads may turn into other values, as in
 * numcodecs). keepbits equal to the mantissa bits keeps the data as is;
 * more is refused. Decoding returns the bytes unchanged.
 *
 * The JSON names no type: the codec takes the element type from the
 * variable (float, double, or a half-float "<f2" variable), in its byte
 * order. A variable of another type is refused with an error naming the
 * codec and its JSON. numcodecs 0.11 cannot bit-round big-endian arrays;
 * Ncz rounds them the same way as little-endian ones.
 *
 * Visible parameters: [keepbits]. Working parameters: [keepbits,
 * element size, big-endian]; without a variable [keepbits], and then
 * encoding fails.
 * JSON {"id": "bitround", "keepbits": 10}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>

#include "ncz-codec-module.h"
#include "ncz-codec-dtype.h"

#define CODEC_ID "bitround"

static guint
mantissa_bits (gsize size)
{
  return size == 2 ? 10 : size == 4 ? 23 : 52;
}

static gboolean
bitround_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  guint keepbits;

  if (!ncz_codec_json_get_uint (dict, "keepbits", FALSE, 0, &keepbits, error))
    {
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  if (keepbits > 52)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "'keepbits' %u is more than a float64 mantissa holds (52)", keepbits);
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  g_array_append_val (visible, keepbits);
  return TRUE;
}

static JsonObject *
bitround_json (guint keepbits)
{
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", CODEC_ID);
  json_object_set_int_member (dict, "keepbits", keepbits);
  return dict;
}

static JsonObject *
bitround_to_json (const guint *visible, gsize n_visible, GError **error)
{
  if (n_visible < 1 || visible[0] > 52)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": expected the parameter [keepbits], keepbits at most 52");
      return NULL;
    }
  return bitround_json (visible[0]);
}

static gboolean
bitround_modify (const NczCodecVarInfo *info, GArray *visible, GArray *working, GError **error)
{
  guint keepbits, params[3];
  gboolean is_float;

  if (visible->len != 1)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": expected 1 parameter (keepbits), not %u", visible->len);
      return FALSE;
    }
  keepbits = g_array_index (visible, guint, 0);
  g_array_append_val (working, keepbits);
  if (info == NULL || info->type == NCZ_DATA_TYPE_NONE)
    return TRUE;   /* no variable: encoding will fail */
  is_float = (info->type == NCZ_DATA_TYPE_FLOAT || info->type == NCZ_DATA_TYPE_DOUBLE)
             && (info->type_size == 2 || info->type_size == 4 || info->type_size == 8);
  if (!is_float || keepbits > mantissa_bits (info->type_size))
    {
      g_autoptr (JsonObject) dict = bitround_json (keepbits);
      if (!is_float)
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                     CODEC_ID ": works on float variables only (float16, float32, float64)");
      else
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                     CODEC_ID ": 'keepbits' %u is more than the variable's %u mantissa bits",
                     keepbits, mantissa_bits (info->type_size));
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  params[0] = keepbits;
  params[1] = (guint) info->type_size;
  params[2] = info->big_endian ? 1 : 0;
  g_array_set_size (working, 0);
  g_array_append_vals (working, params, 3);
  return TRUE;
}

static GBytes *
bitround_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  NczCodecDtype dtype = { NCZ_CODEC_DTYPE_UINT, 0, FALSE };
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;
  guint keepbits, maskbits;
  guint64 width_mask, low, half;

  if (n_working != 3 || (working[1] != 2 && working[1] != 4 && working[1] != 8)
      || working[0] > mantissa_bits (working[1]))
    {
      g_autoptr (JsonObject) dict = bitround_json (n_working > 0 ? working[0] : 0);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": the element type is not known (the codec needs its float "
                   "variable) or does not take these keepbits");
      ncz_codec_error_append_json (error, dict);
      return NULL;
    }
  keepbits = working[0];
  dtype.size = working[1];
  dtype.big_endian = working[2] != 0;
  if (!ncz_codec_dtype_check_length (&dtype, CODEC_ID, length, error))
    return NULL;
  maskbits = mantissa_bits (dtype.size) - keepbits;
  if (maskbits == 0)
    return g_bytes_ref (input);
  n = length / dtype.size;
  out = g_malloc (MAX (length, 1));
  width_mask = dtype.size == 8 ? ~G_GUINT64_CONSTANT (0)
                               : (G_GUINT64_CONSTANT (1) << (8 * dtype.size)) - 1;
  low = (G_GUINT64_CONSTANT (1) << maskbits) - 1;
  half = (G_GUINT64_CONSTANT (1) << (maskbits - 1)) - 1;
  for (gsize i = 0; i < n; i++)
    {
      guint64 b = ncz_codec_dtype_load_bits (&dtype, data, i);
      b = (b + ((b >> maskbits) & 1) + half) & width_mask & ~low;
      ncz_codec_dtype_store_bits (&dtype, out, i, b);
    }
  return g_bytes_new_take (out, length);
}

static GBytes *
bitround_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  (void) working;
  (void) n_working;
  (void) error;
  return g_bytes_ref (input);
}

static const NczCodecModuleDesc bitround_desc = {
  .codec_id = CODEC_ID,
  .filter_id = 0,
  .name = CODEC_ID " (Ncz)",
  .description = "Bit rounding codec (numcodecs 'bitround': keeps the leading mantissa bits "
                 "of floats; no HDF5 filter id)",
  .json_example = "{\"id\": \"bitround\", \"keepbits\": 10}",
  .from_json = bitround_from_json,
  .to_json = bitround_to_json,
  .modify = bitround_modify,
  .encode = bitround_encode,
  .decode = bitround_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (bitround, NczBitroundCodec, bitround_desc)
