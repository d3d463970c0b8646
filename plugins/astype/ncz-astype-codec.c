/* ncz-astype-codec.c: the numcodecs "astype" codec (no HDF5 filter id)
 *
 * Encoding converts elements of `decode_dtype` (the bytes the codec
 * receives) to `encode_dtype`; decoding converts them back. Each
 * conversion is the one numpy's astype makes:
 *  - integer to integer: the low bits of the two's complement value
 *    (narrowing wraps around);
 *  - integer to float: rounded to nearest, ties to even, in one step
 *    (an int64 to float32 is not rounded through float64);
 *  - float to float: float32 to float64 exactly, float64 to float32
 *    rounded to nearest (overflowing to infinity);
 *  - float to integer: truncated toward zero. A NaN or a value outside
 *    the integer type's range (numpy's result then depends on the
 *    platform) fails the chunk with an error naming the codec and its
 *    JSON instead of storing a made-up value.
 * Integer types of 1, 2, 4 and 8 bytes and float32/float64, either byte
 * order; other types are refused with an error naming the codec.
 *
 * Visible parameters: [encode_dtype, decode_dtype], packed as in
 * ncz-codec-dtype.h.
 * JSON {"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <math.h>
#include <string.h>

#include "ncz-codec-module.h"
#include "ncz-codec-dtype.h"

#define CODEC_ID "astype"

typedef struct {
  NczCodecDtype encode_dtype;
  NczCodecDtype decode_dtype;
} AsType;

static JsonObject *
astype_json (const AsType *a)
{
  g_autofree char *enc = ncz_codec_dtype_to_string (&a->encode_dtype);
  g_autofree char *dec = ncz_codec_dtype_to_string (&a->decode_dtype);
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", CODEC_ID);
  json_object_set_string_member (dict, "encode_dtype", enc);
  json_object_set_string_member (dict, "decode_dtype", dec);
  return dict;
}

static gboolean
astype_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  AsType a;
  guint packed[2];

  if (!ncz_codec_json_get_dtype (dict, "encode_dtype", &a.encode_dtype, error)
      || !ncz_codec_json_get_dtype (dict, "decode_dtype", &a.decode_dtype, error))
    return FALSE;
  packed[0] = ncz_codec_dtype_pack (&a.encode_dtype);
  packed[1] = ncz_codec_dtype_pack (&a.decode_dtype);
  g_array_append_vals (visible, packed, 2);
  return TRUE;
}

static gboolean
astype_params (const guint *params, gsize n_params, AsType *a, GError **error)
{
  if (n_params != 2)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": expected 2 parameters (encode_dtype, decode_dtype), "
                   "not %" G_GSIZE_FORMAT, n_params);
      return FALSE;
    }
  if (!ncz_codec_dtype_unpack (params[0], &a->encode_dtype, error)
      || !ncz_codec_dtype_unpack (params[1], &a->decode_dtype, error))
    {
      g_prefix_error (error, CODEC_ID ": ");
      return FALSE;
    }
  return TRUE;
}

static JsonObject *
astype_to_json (const guint *visible, gsize n_visible, GError **error)
{
  AsType a;

  if (!astype_params (visible, n_visible, &a, error))
    return NULL;
  return astype_json (&a);
}

/* Element @i of @in (type @from) converted into element @i of @out
 * (type @to); FALSE for a float that the integer type @to cannot hold
 * (*@value: that float). */
static gboolean
convert (const NczCodecDtype *from, const guint8 *in, const NczCodecDtype *to, guint8 *out,
         gsize i, gdouble *value)
{
  if (from->kind == NCZ_CODEC_DTYPE_FLOAT)
    {
      gdouble v = ncz_codec_dtype_load_float (from, in, i);
      guint64 bits;

      if (to->kind == NCZ_CODEC_DTYPE_FLOAT)
        {
          ncz_codec_dtype_store_float (to, out, i, v);
          return TRUE;
        }
      if (!ncz_codec_dtype_float_to_int (to, v, &bits))
        {
          *value = v;
          return FALSE;
        }
      ncz_codec_dtype_store_bits (to, out, i, bits);
      return TRUE;
    }

  if (to->kind != NCZ_CODEC_DTYPE_FLOAT)
    {
      /* load_int sign-extends signed types only; store_bits keeps the
       * low bits: numpy's wrap-around */
      ncz_codec_dtype_store_bits (to, out, i, (guint64) ncz_codec_dtype_load_int (from, in, i));
      return TRUE;
    }
  /* integer to float in one rounding: to float32 directly (a float32
   * held in a double is exact, and store_float converts it back
   * unchanged) */
  if (from->kind == NCZ_CODEC_DTYPE_UINT)
    {
      guint64 u = ncz_codec_dtype_load_bits (from, in, i);
      ncz_codec_dtype_store_float (to, out, i, to->size == 4 ? (gdouble) (gfloat) u : (gdouble) u);
    }
  else
    {
      gint64 s = ncz_codec_dtype_load_int (from, in, i);
      ncz_codec_dtype_store_float (to, out, i, to->size == 4 ? (gdouble) (gfloat) s : (gdouble) s);
    }
  return TRUE;
}

static GBytes *
astype_run (const guint *working, gsize n_working, GBytes *input, gboolean encode,
            GError **error)
{
  AsType a;
  const NczCodecDtype *from, *to;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  g_autofree guint8 *out = NULL;

  if (!astype_params (working, n_working, &a, error))
    return NULL;
  from = encode ? &a.decode_dtype : &a.encode_dtype;
  to = encode ? &a.encode_dtype : &a.decode_dtype;
  if (!ncz_codec_dtype_check_length (from, CODEC_ID, length, error))
    return NULL;
  n = length / from->size;
  out = g_malloc (MAX (n * to->size, 1));
  for (gsize i = 0; i < n; i++)
    {
      gdouble v = 0;

      if (!convert (from, data, to, out, i, &v))
        {
          g_autoptr (JsonObject) dict = astype_json (&a);
          g_autofree char *type = ncz_codec_dtype_to_string (to);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                       CODEC_ID ": %s element %" G_GSIZE_FORMAT " is %.17g, which '%s' "
                       "cannot hold", encode ? "encoding:" : "decoding:", i, v, type);
          ncz_codec_error_append_json (error, dict);
          return NULL;
        }
    }
  return g_bytes_new_take (g_steal_pointer (&out), n * to->size);
}

static GBytes *
astype_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  return astype_run (working, n_working, input, TRUE, error);
}

static GBytes *
astype_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  return astype_run (working, n_working, input, FALSE, error);
}

static const NczCodecModuleDesc astype_desc = {
  .codec_id = CODEC_ID,
  .filter_id = 0,
  .name = CODEC_ID " (Ncz)",
  .description = "Type conversion codec (numcodecs 'astype': elements converted as numpy's "
                 "astype; no HDF5 filter id)",
  .json_example = "{\"id\": \"astype\", \"encode_dtype\": \"<f4\", \"decode_dtype\": \"<f8\"}",
  .from_json = astype_from_json,
  .to_json = astype_to_json,
  .encode = astype_encode,
  .decode = astype_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (astype, NczAsTypeCodec, astype_desc)
