/* ncz-quantize-codec.c: the numcodecs "quantize" codec (no HDF5 filter
 * id)
 *
 * The chunk's bytes are elements of `dtype` (a float type). Encoding
 * keeps about `digits` decimal digits after the point: with the scale
 * s = 2^bits worked out from `digits` as numcodecs 0.11 does it (in
 * double precision, with libm's pow and log):
 *   precision = pow(10, -digits)
 *   e = log(precision) / log(10), then floor(e) if e < 0, else ceil(e)
 *   bits = ceil(log(pow(10, -e)) / log(2))
 * each element x becomes rint(x * s) / s (halves to even), converted to
 * `astype` (default: `dtype`). The arithmetic runs in float32 when
 * `dtype` is float32 and s is below 3.4e38 (s rounded to float32, so a
 * very small s becomes 0 and every element NaN, as in numcodecs), in
 * float64 otherwise. Decoding converts `astype` back to `dtype`.
 * Refused, with an error naming the codec and its JSON: an integer
 * `dtype` or `astype`, and digits for which the scale cannot be worked
 * out (the precision is 0 or a step overflows).
 *
 * Visible parameters: [dtype, astype, digits (2)]: types packed as in
 * ncz-codec-dtype.h, digits a double in two halves, low first.
 * JSON {"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <math.h>
#include <string.h>

#include "ncz-codec-module.h"
#include "ncz-codec-dtype.h"

#define CODEC_ID "quantize"
#define N_PARAMS 4

typedef struct {
  NczCodecDtype dtype;
  NczCodecDtype astype;
  gdouble digits;
  gdouble scale;      /* derived from digits */
} Quantize;

/* The scale 2^bits for @digits; NULL, or why it cannot be worked out */
static const char *
quantize_scale (gdouble digits, gdouble *scale)
{
  gdouble precision = pow (10.0, -digits), e, step, bits;

  if (isinf (precision))
    return "10^-digits overflows";
  if (!(precision > 0))
    return "10^-digits is 0 (no precision to keep)";
  e = log (precision) / log (10.0);
  e = e < 0 ? floor (e) : ceil (e);
  step = pow (10.0, -e);
  if (isinf (step) || !(step > 0))
    return "the decimal step 10^-floor(log10(10^-digits)) is out of range";
  bits = ceil (log (step) / log (2.0));
  *scale = pow (2.0, bits);
  if (isinf (*scale))
    return "the scale 2^bits overflows";
  return NULL;
}

/* NULL when the configuration is one Ncz runs; else why not */
static const char *
quantize_refusal (Quantize *q)
{
  if (q->dtype.kind != NCZ_CODEC_DTYPE_FLOAT || q->astype.kind != NCZ_CODEC_DTYPE_FLOAT)
    return "'dtype' and 'astype' must be float types ('<f4', '<f8')";
  if (!isfinite (q->digits))
    return "'digits' must be a finite number";
  return quantize_scale (q->digits, &q->scale);
}

static JsonObject *
quantize_json (const Quantize *q)
{
  g_autofree char *dtype = ncz_codec_dtype_to_string (&q->dtype);
  g_autofree char *astype = ncz_codec_dtype_to_string (&q->astype);
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", CODEC_ID);
  json_object_set_member (dict, "digits", ncz_codec_json_new_number (q->digits));
  json_object_set_string_member (dict, "dtype", dtype);
  json_object_set_string_member (dict, "astype", astype);
  return dict;
}

static gboolean
quantize_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  Quantize q;
  const char *refusal;
  JsonNode *astype = json_object_get_member (dict, "astype");
  guint packed[2];

  if (!ncz_codec_json_get_dtype (dict, "dtype", &q.dtype, error))
    return FALSE;
  q.astype = q.dtype;
  if (astype != NULL && !JSON_NODE_HOLDS_NULL (astype)
      && !ncz_codec_json_get_dtype (dict, "astype", &q.astype, error))
    return FALSE;
  if (!ncz_codec_json_get_double (dict, "digits", &q.digits, error))
    return FALSE;
  refusal = quantize_refusal (&q);
  if (refusal != NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS, "%s", refusal);
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  packed[0] = ncz_codec_dtype_pack (&q.dtype);
  packed[1] = ncz_codec_dtype_pack (&q.astype);
  g_array_append_vals (visible, packed, 2);
  ncz_codec_params_append_double (visible, q.digits);
  return TRUE;
}

static gboolean
quantize_params (const guint *params, gsize n_params, Quantize *q, GError **error)
{
  const char *refusal;

  if (n_params != N_PARAMS)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": expected %d parameters (dtype, astype, digits), "
                   "not %" G_GSIZE_FORMAT, N_PARAMS, n_params);
      return FALSE;
    }
  if (!ncz_codec_dtype_unpack (params[0], &q->dtype, error)
      || !ncz_codec_dtype_unpack (params[1], &q->astype, error))
    {
      g_prefix_error (error, CODEC_ID ": ");
      return FALSE;
    }
  q->digits = ncz_codec_params_get_double (params + 2);
  refusal = quantize_refusal (q);
  if (refusal != NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS, CODEC_ID ": %s",
                   refusal);
      if (isfinite (q->digits) && q->dtype.kind == NCZ_CODEC_DTYPE_FLOAT
          && q->astype.kind == NCZ_CODEC_DTYPE_FLOAT)
        {
          g_autoptr (JsonObject) dict = quantize_json (q);
          ncz_codec_error_append_json (error, dict);
        }
      return FALSE;
    }
  return TRUE;
}

static JsonObject *
quantize_to_json (const guint *visible, gsize n_visible, GError **error)
{
  Quantize q;

  if (!quantize_params (visible, n_visible, &q, error))
    return NULL;
  return quantize_json (&q);
}

static GBytes *
quantize_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  Quantize q;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;
  gboolean in_f4;

  if (!quantize_params (working, n_working, &q, error)
      || !ncz_codec_dtype_check_length (&q.dtype, CODEC_ID, length, error))
    return NULL;
  n = length / q.dtype.size;
  out = g_malloc (MAX (n * q.astype.size, 1));
  /* numpy keeps float32 for a scalar of magnitude below 3.4e38 only */
  in_f4 = q.dtype.size == 4 && q.scale < 3.4e38;
  for (gsize i = 0; i < n; i++)
    {
      gdouble v;

      if (in_f4)
        {
          gfloat s = (gfloat) q.scale;
          gfloat x = (gfloat) ncz_codec_dtype_load_float (&q.dtype, data, i);
          gfloat scaled = x * s;
          gfloat rounded = rintf (scaled);
          v = rounded / s;
        }
      else
        {
          gdouble x = ncz_codec_dtype_load_float (&q.dtype, data, i);
          gdouble scaled = x * q.scale;
          gdouble rounded = rint (scaled);
          v = rounded / q.scale;
        }
      ncz_codec_dtype_store_float (&q.astype, out, i, v);
    }
  return g_bytes_new_take (out, n * q.astype.size);
}

static GBytes *
quantize_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  Quantize q;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;

  if (!quantize_params (working, n_working, &q, error)
      || !ncz_codec_dtype_check_length (&q.astype, CODEC_ID, length, error))
    return NULL;
  n = length / q.astype.size;
  out = g_malloc (MAX (n * q.dtype.size, 1));
  for (gsize i = 0; i < n; i++)
    ncz_codec_dtype_store_float (&q.dtype, out, i,
                                 ncz_codec_dtype_load_float (&q.astype, data, i));
  return g_bytes_new_take (out, n * q.dtype.size);
}

static const NczCodecModuleDesc quantize_desc = {
  .codec_id = CODEC_ID,
  .filter_id = 0,
  .name = CODEC_ID " (Ncz)",
  .description = "Quantize codec (numcodecs 'quantize': floats rounded to a power-of-two step "
                 "finer than 10^-digits; no HDF5 filter id)",
  .json_example = "{\"id\": \"quantize\", \"digits\": 3, \"dtype\": \"<f8\", \"astype\": \"<f4\"}",
  .from_json = quantize_from_json,
  .to_json = quantize_to_json,
  .encode = quantize_encode,
  .decode = quantize_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (quantize, NczQuantizeCodec, quantize_desc)
