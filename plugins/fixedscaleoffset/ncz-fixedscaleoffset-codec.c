/* ncz-fixedscaleoffset-codec.c: the numcodecs "fixedscaleoffset" codec
 * (no HDF5 filter id)
 *
 * The chunk's bytes are elements of `dtype` (a float type). Encoding
 * computes round((x - offset) * scale), rounding halves to even, and
 * converts it to `astype` (default: `dtype`); decoding computes
 * x / scale + offset and converts it to `dtype`. This is numcodecs
 * 0.11's arithmetic, including the precision numpy chooses:
 *  - encoding runs in float32 when `dtype` is float32 (offset and scale
 *    rounded to float32), in float64 otherwise;
 *  - decoding runs in float32 when `astype` is float32, in float64 when
 *    it is float64 or an integer type.
 * Refused, with an error naming the codec and its JSON:
 *  - an integer `dtype` (numpy then computes in integers and wraps);
 *  - a float32 `dtype` or `astype` with an offset or scale of magnitude
 *    3.4e38 or more (numpy then switches to float64 part way);
 *  - when encoding to an integer `astype`, a value that is NaN or does
 *    not fit it (numpy's result is not defined portably): the chunk is
 *    not written rather than written wrong.
 *
 * Visible parameters: [dtype, astype, offset (2), scale (2)]: types
 * packed as in ncz-codec-dtype.h, doubles as two halves, low first.
 * JSON {"id": "fixedscaleoffset", "offset": 1000, "scale": 10,
 *       "dtype": "<f8", "astype": "<i2"}.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include <math.h>
#include <string.h>

#include "ncz-codec-module.h"
#include "ncz-codec-dtype.h"

#define CODEC_ID "fixedscaleoffset"
#define N_PARAMS 6

typedef struct {
  NczCodecDtype dtype;
  NczCodecDtype astype;
  gdouble offset;
  gdouble scale;
} Fso;

/* NULL when the configuration is one Ncz runs; else why not */
static const char *
fso_refusal (const Fso *f)
{
  gboolean f4 = (f->dtype.kind == NCZ_CODEC_DTYPE_FLOAT && f->dtype.size == 4)
                || (f->astype.kind == NCZ_CODEC_DTYPE_FLOAT && f->astype.size == 4);

  if (f->dtype.kind != NCZ_CODEC_DTYPE_FLOAT)
    return "'dtype' must be a float type ('<f4', '<f8'): Ncz does not run integer dtypes";
  /* numpy keeps float32 for a scalar of magnitude below 3.4e38 only */
  if (f4 && !(fabs (f->offset) < 3.4e38 && fabs (f->scale) < 3.4e38))
    return "with a float32 'dtype' or 'astype', 'offset' and 'scale' must lie below "
           "3.4e38 in magnitude (float32 arithmetic)";
  return NULL;
}

static JsonObject *
fso_json (const Fso *f)
{
  g_autofree char *dtype = ncz_codec_dtype_to_string (&f->dtype);
  g_autofree char *astype = ncz_codec_dtype_to_string (&f->astype);
  JsonObject *dict = json_object_new ();

  json_object_set_string_member (dict, "id", CODEC_ID);
  json_object_set_member (dict, "scale", ncz_codec_json_new_number (f->scale));
  json_object_set_member (dict, "offset", ncz_codec_json_new_number (f->offset));
  json_object_set_string_member (dict, "dtype", dtype);
  json_object_set_string_member (dict, "astype", astype);
  return dict;
}

static gboolean
fso_from_json (JsonObject *dict, GArray *visible, GError **error)
{
  Fso f;
  const char *refusal;
  JsonNode *astype = json_object_get_member (dict, "astype");
  guint packed[2];

  if (!ncz_codec_json_get_dtype (dict, "dtype", &f.dtype, error))
    return FALSE;
  f.astype = f.dtype;
  if (astype != NULL && !JSON_NODE_HOLDS_NULL (astype)
      && !ncz_codec_json_get_dtype (dict, "astype", &f.astype, error))
    return FALSE;
  if (!ncz_codec_json_get_double (dict, "offset", &f.offset, error)
      || !ncz_codec_json_get_double (dict, "scale", &f.scale, error))
    return FALSE;
  refusal = fso_refusal (&f);
  if (refusal != NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS, "%s", refusal);
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  packed[0] = ncz_codec_dtype_pack (&f.dtype);
  packed[1] = ncz_codec_dtype_pack (&f.astype);
  g_array_append_vals (visible, packed, 2);
  ncz_codec_params_append_double (visible, f.offset);
  ncz_codec_params_append_double (visible, f.scale);
  return TRUE;
}

static gboolean
fso_params (const guint *params, gsize n_params, Fso *f, GError **error)
{
  const char *refusal;

  if (n_params != N_PARAMS)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   CODEC_ID ": expected %d parameters (dtype, astype, offset, scale), "
                   "not %" G_GSIZE_FORMAT, N_PARAMS, n_params);
      return FALSE;
    }
  if (!ncz_codec_dtype_unpack (params[0], &f->dtype, error)
      || !ncz_codec_dtype_unpack (params[1], &f->astype, error))
    {
      g_prefix_error (error, CODEC_ID ": ");
      return FALSE;
    }
  f->offset = ncz_codec_params_get_double (params + 2);
  f->scale = ncz_codec_params_get_double (params + 4);
  refusal = fso_refusal (f);
  if (refusal == NULL && (!isfinite (f->offset) || !isfinite (f->scale)))
    refusal = "'offset' and 'scale' must be finite numbers";
  if (refusal != NULL)
    {
      g_autoptr (JsonObject) dict = fso_json (f);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS, CODEC_ID ": %s",
                   refusal);
      ncz_codec_error_append_json (error, dict);
      return FALSE;
    }
  return TRUE;
}

static JsonObject *
fso_to_json (const guint *visible, gsize n_visible, GError **error)
{
  Fso f;

  if (!fso_params (visible, n_visible, &f, error))
    return NULL;
  return fso_json (&f);
}

static gboolean
is_f4 (const NczCodecDtype *d)
{
  return d->kind == NCZ_CODEC_DTYPE_FLOAT && d->size == 4;
}

static GBytes *
fso_encode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  Fso f;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  g_autofree guint8 *out = NULL;

  if (!fso_params (working, n_working, &f, error)
      || !ncz_codec_dtype_check_length (&f.dtype, CODEC_ID, length, error))
    return NULL;
  n = length / f.dtype.size;
  out = g_malloc (MAX (n * f.astype.size, 1));
  for (gsize i = 0; i < n; i++)
    {
      gdouble v;
      guint64 bits;

      if (is_f4 (&f.dtype))
        {
          gfloat x = (gfloat) ncz_codec_dtype_load_float (&f.dtype, data, i);
          gfloat shifted = x - (gfloat) f.offset;
          gfloat scaled = shifted * (gfloat) f.scale;
          v = rintf (scaled);
        }
      else
        {
          gdouble x = ncz_codec_dtype_load_float (&f.dtype, data, i);
          gdouble shifted = x - f.offset;
          gdouble scaled = shifted * f.scale;
          v = rint (scaled);
        }
      if (f.astype.kind == NCZ_CODEC_DTYPE_FLOAT)
        ncz_codec_dtype_store_float (&f.astype, out, i, v);
      else if (ncz_codec_dtype_float_to_int (&f.astype, v, &bits))
        ncz_codec_dtype_store_bits (&f.astype, out, i, bits);
      else
        {
          g_autoptr (JsonObject) dict = fso_json (&f);
          g_autofree char *astype = ncz_codec_dtype_to_string (&f.astype);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                       CODEC_ID ": element %" G_GSIZE_FORMAT " encodes to %g, which astype "
                       "'%s' cannot hold", i, v, astype);
          ncz_codec_error_append_json (error, dict);
          return NULL;
        }
    }
  return g_bytes_new_take (g_steal_pointer (&out), n * f.astype.size);
}

static GBytes *
fso_decode (const guint *working, gsize n_working, GBytes *input, GError **error)
{
  Fso f;
  gsize length, n;
  const guint8 *data = g_bytes_get_data (input, &length);
  guint8 *out;

  if (!fso_params (working, n_working, &f, error)
      || !ncz_codec_dtype_check_length (&f.astype, CODEC_ID, length, error))
    return NULL;
  n = length / f.astype.size;
  out = g_malloc (MAX (n * f.dtype.size, 1));
  for (gsize i = 0; i < n; i++)
    {
      gdouble v;

      if (is_f4 (&f.astype))
        {
          gfloat e = (gfloat) ncz_codec_dtype_load_float (&f.astype, data, i);
          gfloat unscaled = e / (gfloat) f.scale;
          v = unscaled + (gfloat) f.offset;
        }
      else
        {
          gdouble e, unscaled;
          if (f.astype.kind == NCZ_CODEC_DTYPE_FLOAT)
            e = ncz_codec_dtype_load_float (&f.astype, data, i);
          else if (f.astype.kind == NCZ_CODEC_DTYPE_UINT)
            e = (gdouble) ncz_codec_dtype_load_bits (&f.astype, data, i);
          else
            e = (gdouble) ncz_codec_dtype_load_int (&f.astype, data, i);
          unscaled = e / f.scale;
          v = unscaled + f.offset;
        }
      ncz_codec_dtype_store_float (&f.dtype, out, i, v);
    }
  return g_bytes_new_take (out, n * f.dtype.size);
}

static const NczCodecModuleDesc fso_desc = {
  .codec_id = CODEC_ID,
  .filter_id = 0,
  .name = CODEC_ID " (Ncz)",
  .description = "Fixed scale-offset codec (numcodecs 'fixedscaleoffset': round((x - offset) * "
                 "scale) as astype; no HDF5 filter id)",
  .json_example = "{\"id\": \"fixedscaleoffset\", \"offset\": 1000, \"scale\": 10, "
                  "\"dtype\": \"<f8\", \"astype\": \"<i2\"}",
  .from_json = fso_from_json,
  .to_json = fso_to_json,
  .encode = fso_encode,
  .decode = fso_decode,
  .kind = NCZ_CODEC_KIND_ARRAY_TO_ARRAY,
};

NCZ_DEFINE_CODEC_MODULE_NCZ_ONLY (fixedscaleoffset, NczFixedScaleOffsetCodec, fso_desc)
