/* ncz-delta-codec.c: the numcodecs "delta" codec (no HDF5 filter id)
 *
 * The chunk's bytes are elements of `dtype`. Encoding keeps the first
 * element and replaces every other by its difference from the one
 * before, computed in `dtype` (integers wrap around), then converts each
 * to `astype` (default: `dtype`). Decoding sums the encoded values in
 * order and converts the running sums to `dtype`. This is numcodecs
 * 0.11's arithmetic:
 *  - integers: the differences are taken modulo 2^(8 * size of dtype),
 *    and the running sums are kept in 64 bits (numpy's cumulative sum
 *    widens small integers), so both conversions keep low-order bits;
 *  - floats: the differences are taken in `dtype`; the running sums are
 *    kept in float32 when both types are float32, in float64 otherwise.
 * `dtype` and `astype` must both be integers or both floats: numpy's
 * conversions between integers and floats out of range are not defined
 * portably, so such a configuration is refused.
 *
 * The codec sees the chunk as the chain hands it over, so `dtype`'s
 * byte order is the one the bytes have; zarr-python writes `dtype` equal
 * to the array's type.
 *
 * Visible parameters: [dtype, astype], each packed as kind << 16 |
 * big-endian << 8 | size (ncz-codec-dtype.h).
 * JSON {"id": "delta", "dtype": "<i4", "astype": "<i4"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <string.h>

#include "ncz-codec-module.h"
#include "ncz-codec-dtype.h"

static gboolean
is_float (const NczCodecDtype *d)
{
  return d->kind == NCZ_CODEC_DTYPE_FLOAT;
}

static gboolean
delta_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  NczCodecDtype dtype, astype;
  guint packed[2];

  if (!ncz_codec_json_get_dtype (dict, "dtype", &dtype, error))
    return FALSE;
  astype = dtype;
  if (json_object_get_member (dict, "astype") != NULL
      && !JSON_NODE_HOLDS_NULL (json_object_get_member (dict, "astype"))
      && !ncz_codec_json_get_dtype (dict, "astype", &astype, error))
    return FALSE;
  if (is_float (&dtype) != is_float (&astype))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "'dtype' and 'astype' must both be integer or both be float types");
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  packed[0] = ncz_codec_dtype_pack (&dtype);
  packed[1] = ncz_codec_dtype_pack (&astype);
  g_array_append_vals (visible, packed, 2);
  return TRUE;
}

static gboolean
delta_params (const guint *params, gsize n_params, NczCodecDtype *dtype, NczCodecDtype *astype,
              GError **error)
{
  if (n_params < 1 || n_params > 2)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "delta: expected 1 or 2 parameters (dtype, astype), not %" G_GSIZE_FORMAT,
                   n_params);
      return FALSE;
    }
  if (!ncz_codec_dtype_unpack (params[0], dtype, error)
      || !ncz_codec_dtype_unpack (n_params > 1 ? params[1] : params[0], astype, error))
    {
      g_prefix_error (error, "delta: ");
      return FALSE;
    }
  if (is_float (dtype) != is_float (astype))
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "delta: dtype and astype must both be integer or both be float types");
      return FALSE;
    }
  return TRUE;
}

static void
set_dtype (JsonObject *dict, const char *key, const NczCodecDtype *d)
{
  g_autofree char *text = ncz_codec_dtype_to_string (d);

  json_object_set_string_member (dict, key, text);
}

static JsonObject *
delta_to_json (const guint *visible, gsize n_visible, GError **error)
{
  NczCodecDtype dtype, astype;
  JsonObject *dict;

  if (!delta_params (visible, n_visible, &dtype, &astype, error))
    return NULL;
  dict = json_object_new ();
  json_object_set_string_member (dict, "id", "delta");
  set_dtype (dict, "dtype", &dtype);
  set_dtype (dict, "astype", &astype);
  return dict;
}

/* @v reduced to @d's width, then widened as @d's kind says */
static guint64
integer_in (const NczCodecDtype *d, guint64 v)
{
  guint bits = 8 * d->size;

  if (bits == 64)
    return v;
  v &= (G_GUINT64_CONSTANT (1) << bits) - 1;
  if (d->kind == NCZ_CODEC_DTYPE_INT && (v >> (bits - 1)) != 0)
    v |= ~G_GUINT64_CONSTANT (0) << bits;
  return v;
}

static GBytes *
delta_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  NczCodecDtype dtype, astype;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;

  if (!delta_params (working, n_working, &dtype, &astype, error)
      || !ncz_codec_dtype_check_length (&dtype, "delta", length, error))
    return NULL;
  n = length / dtype.size;
  out = g_malloc (MAX (n * astype.size, 1));
  if (is_float (&dtype))
    {
      for (gsize i = 0; i < n; i++)
        {
          gdouble v = ncz_codec_dtype_load_float (&dtype, data, i);
          if (i > 0)
            {
              gdouble prev = ncz_codec_dtype_load_float (&dtype, data, i - 1);
              if (dtype.size == 4)
                v = (gfloat) ((gfloat) v - (gfloat) prev);
              else
                v = v - prev;
            }
          ncz_codec_dtype_store_float (&astype, out, i, v);
        }
    }
  else
    {
      guint64 prev = 0;
      for (gsize i = 0; i < n; i++)
        {
          guint64 v = (guint64) ncz_codec_dtype_load_int (&dtype, data, i);
          ncz_codec_dtype_store_bits (&astype, out, i, integer_in (&dtype, v - prev));
          prev = v;
        }
    }
  return g_bytes_new_take (out, n * astype.size);
}

static GBytes *
delta_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  NczCodecDtype dtype, astype;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;

  if (!delta_params (working, n_working, &dtype, &astype, error)
      || !ncz_codec_dtype_check_length (&astype, "delta", length, error))
    return NULL;
  n = length / astype.size;
  out = g_malloc (MAX (n * dtype.size, 1));
  if (is_float (&dtype) && dtype.size == 4 && astype.size == 4)
    {
      gfloat sum = 0;
      for (gsize i = 0; i < n; i++)
        {
          gfloat v = (gfloat) ncz_codec_dtype_load_float (&astype, data, i);
          sum = i == 0 ? v : sum + v;
          ncz_codec_dtype_store_float (&dtype, out, i, sum);
        }
    }
  else if (is_float (&dtype))
    {
      gdouble sum = 0;
      for (gsize i = 0; i < n; i++)
        {
          gdouble v = ncz_codec_dtype_load_float (&astype, data, i);
          sum = i == 0 ? v : sum + v;
          ncz_codec_dtype_store_float (&dtype, out, i, sum);
        }
    }
  else
    {
      guint64 sum = 0;
      for (gsize i = 0; i < n; i++)
        {
          sum += (guint64) ncz_codec_dtype_load_int (&astype, data, i);
          ncz_codec_dtype_store_bits (&dtype, out, i, sum);
        }
    }
  return g_bytes_new_take (out, n * dtype.size);
}

static const NczCodecModuleDesc delta_desc = {
  .codec_id = "delta",
  .filter_id = 0,
  .name = "delta (Ncz)",
  .description = "Delta codec (numcodecs 'delta': differences of adjacent values; no HDF5 filter id)",
  .json_example = "{\"id\": \"delta\", \"dtype\": \"<i4\", \"astype\": \"<i4\"}",
  .from_json = delta_from_json,
  .to_json = delta_to_json,
  .encode = delta_encode,
  .decode = delta_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (delta, NczDeltaCodec, delta_desc)
