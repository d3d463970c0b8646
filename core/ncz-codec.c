/* ncz-codec.c: the codec interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"

/**
 * NczCodec:
 *
 * A codec (an HDF5 filter paired with a Zarr codec). See #NczCodecInterface.
 *
 * Since: 1.0
 */
G_DEFINE_INTERFACE (NczCodec, ncz_codec, G_TYPE_OBJECT)

static void
ncz_codec_default_init (NczCodecInterface *iface)
{
}

static gboolean
codec_unsupported (NczCodec *self, const char *what, GError **error)
{
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
               "codec '%s' cannot %s", ncz_codec_get_codec_id (self), what);
  return FALSE;
}

/**
 * ncz_codec_get_codec_id:
 * @self: a codec
 *
 * Gives the codec's id in Zarr metadata: the `id` of its JSON in `.zarray`
 * `compressor` and `filters` (`zstd`, `blosc`, ...). The string belongs to
 * the codec.
 *
 * Returns: the Zarr (numcodecs) codec id
 * Since: 1.0
 */
const char *
ncz_codec_get_codec_id (NczCodec *self)
{
  g_return_val_if_fail (NCZ_IS_CODEC (self), NULL);
  return NCZ_CODEC_GET_IFACE (self)->get_codec_id (self);
}

/**
 * ncz_codec_get_filter_id:
 * @self: a codec
 *
 * Gives the HDF5 filter id the codec implements, as netCDF-4 files and the
 * `_Filter` attribute name it (32015 for zstd).
 *
 * Returns: the HDF5 filter id, 0 if none
 * Since: 1.0
 */
guint
ncz_codec_get_filter_id (NczCodec *self)
{
  NczCodecInterface *iface;
  g_return_val_if_fail (NCZ_IS_CODEC (self), 0);
  iface = NCZ_CODEC_GET_IFACE (self);
  return iface->get_filter_id ? iface->get_filter_id (self) : 0;
}

/**
 * ncz_codec_get_kind:
 * @self: a codec
 *
 * Tells whether the codec works on arrays of values, turns values into
 * bytes, or works on bytes; codecs that do not say work on bytes.
 *
 * Returns: where the codec stands in a chunk's pipeline
 * Since: 1.0
 */
NczCodecKind
ncz_codec_get_kind (NczCodec *self)
{
  NczCodecInterface *iface;
  NczCodecKind kind;

  g_return_val_if_fail (NCZ_IS_CODEC (self), NCZ_CODEC_KIND_BYTES_TO_BYTES);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->get_kind == NULL)
    return NCZ_CODEC_KIND_BYTES_TO_BYTES;
  kind = iface->get_kind (self);
  if (kind < NCZ_CODEC_KIND_ARRAY_TO_ARRAY || kind > NCZ_CODEC_KIND_BYTES_TO_BYTES)
    return NCZ_CODEC_KIND_BYTES_TO_BYTES;
  return kind;
}

/**
 * ncz_codec_params_from_json:
 * @self: a codec
 * @json: the codec configuration: the codec dict, "id" included
 * @params: (out) (transfer full) (element-type guint): the visible parameters
 * @error: return location for a #GError
 *
 * Converts codec configuration into the codec's visible (HDF5-style)
 * parameters. The codec checks them: a bad value is
 * %NCZ_CODEC_ERROR_BAD_PARAMETERS naming the JSON key.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_codec_params_from_json (NczCodec *self, JsonObject *json, GArray **params,
                            GError **error)
{
  NczCodecInterface *iface;
  GArray *out = NULL;

  g_return_val_if_fail (NCZ_IS_CODEC (self), FALSE);
  g_return_val_if_fail (json != NULL && params != NULL, FALSE);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->params_from_json == NULL)
    return codec_unsupported (self, "read codec JSON", error);
  if (!iface->params_from_json (self, json, &out, error))
    return FALSE;
  *params = out != NULL ? out : g_array_new (FALSE, FALSE, sizeof (guint));
  return TRUE;
}

/**
 * ncz_codec_params_to_json:
 * @self: a codec
 * @params: (array length=n_params) (nullable): visible parameters
 * @n_params: number of parameters
 * @error: return location for a #GError
 *
 * Converts visible parameters into codec configuration, checking them.
 *
 * Returns: (transfer full): a new codec dict with "id" first
 * Since: 1.0
 */
JsonObject *
ncz_codec_params_to_json (NczCodec *self, const guint *params, gsize n_params,
                          GError **error)
{
  NczCodecInterface *iface;
  JsonObject *out;

  g_return_val_if_fail (NCZ_IS_CODEC (self), NULL);
  g_return_val_if_fail (params != NULL || n_params == 0, NULL);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->params_to_json == NULL)
    {
      codec_unsupported (self, "write codec JSON", error);
      return NULL;
    }
  out = iface->params_to_json (self, params, n_params, error);
  if (out == NULL && error != NULL && *error == NULL)
    g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                 "codec '%s' rejected its parameters", ncz_codec_get_codec_id (self));
  return out;
}

/**
 * ncz_codec_params_from_json_text:
 * @self: a codec
 * @json: the codec dict as JSON text, e.g. `{"id": "zstd", "level": 3}`
 * @params: (out) (transfer full) (element-type guint): the visible parameters
 * @error: return location for a #GError
 *
 * As ncz_codec_params_from_json() on JSON text. The text is read as Zarr
 * metadata is (bare `NaN` and `Infinity` accepted).
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_codec_params_from_json_text (NczCodec *self, const char *json, GArray **params,
                                 GError **error)
{
  g_autoptr(NczJson) root = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (NCZ_IS_CODEC (self), FALSE);
  g_return_val_if_fail (json != NULL && params != NULL, FALSE);
  root = ncz_json_parse (json, -1, &local);
  if (root == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': invalid codec JSON: %s", ncz_codec_get_codec_id (self),
                   local->message);
      return FALSE;
    }
  if (ncz_json_get_kind (root) != NCZ_JSON_OBJECT)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s': codec JSON must be an object, not %s",
                   ncz_codec_get_codec_id (self), ncz_json_kind_name (ncz_json_get_kind (root)));
      return FALSE;
    }
  object = ncz_json_to_json_object (root);
  return ncz_codec_params_from_json (self, object, params, error);
}

/**
 * ncz_codec_params_to_json_text:
 * @self: a codec
 * @params: (array length=n_params) (nullable): visible parameters
 * @n_params: number of parameters
 * @error: return location for a #GError
 *
 * As ncz_codec_params_to_json(), as the single-line JSON text Ncz writes
 * to `.zarray` (integers as integers, other numbers with the shortest
 * text that reads back, as numcodecs writes them).
 *
 * Returns: (transfer full): the codec dict as JSON text
 * Since: 1.0
 */
char *
ncz_codec_params_to_json_text (NczCodec *self, const guint *params, gsize n_params,
                               GError **error)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(NczJson) node = NULL;

  object = ncz_codec_params_to_json (self, params, n_params, error);
  if (object == NULL)
    return NULL;
  node = ncz_json_from_json_object (object);
  return ncz_json_to_string (node, FALSE);
}

/**
 * ncz_codec_modify_parameters:
 * @self: a codec
 * @variable: the variable the codec serves
 * @visible: (element-type guint): visible parameters
 * @working: (out) (transfer full) (element-type guint): working parameters
 * @error: return location for a #GError
 *
 * Gives the parameters the codec works with for @variable from the ones
 * stored in metadata (@visible): a codec may add the element size or the
 * chunk shape. Codecs that need nothing more use @visible unchanged. Fails
 * with %NCZ_CODEC_ERROR_BAD_PARAMETERS for parameters the codec cannot use
 * with @variable.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_codec_modify_parameters (NczCodec *self, NczVariable *variable,
                             GArray *visible, GArray **working, GError **error)
{
  NczCodecInterface *iface;
  g_return_val_if_fail (NCZ_IS_CODEC (self), FALSE);
  g_return_val_if_fail (visible != NULL && working != NULL, FALSE);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->modify_parameters == NULL)
    {
      *working = g_array_copy (visible);
      return TRUE;
    }
  return iface->modify_parameters (self, variable, visible, working, error);
}

/**
 * ncz_codec_encode:
 * @self: a codec
 * @working: (array length=n_working): working parameters
 * @n_working: number of parameters
 * @input: the data
 * @error: return location for a #GError
 *
 * Encodes one chunk (compresses it, adds a checksum, ...) with the working
 * parameters ncz_codec_modify_parameters() gave. Fails with
 * %NCZ_CODEC_ERROR_BAD_PARAMETERS for parameters the codec cannot use, and
 * %NCZ_CODEC_ERROR_NOT_AVAILABLE when the codec cannot encode.
 *
 * Returns: (transfer full): the encoded data
 * Since: 1.0
 */
GBytes *
ncz_codec_encode (NczCodec *self, const guint *working, gsize n_working,
                  GBytes *input, GError **error)
{
  NczCodecInterface *iface;
  g_return_val_if_fail (NCZ_IS_CODEC (self), NULL);
  g_return_val_if_fail (input != NULL, NULL);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->encode == NULL)
    {
      codec_unsupported (self, "encode", error);
      return NULL;
    }
  return iface->encode (self, working, n_working, input, error);
}

/**
 * ncz_codec_decode:
 * @self: a codec
 * @working: (array length=n_working): working parameters
 * @n_working: number of parameters
 * @input: the encoded data
 * @error: return location for a #GError
 *
 * Undoes the codec's encoding of one chunk with the working parameters
 * ncz_codec_modify_parameters() gave. Fails with %NCZ_CODEC_ERROR_CORRUPT
 * when @input is not valid encoded data, and
 * %NCZ_CODEC_ERROR_NOT_AVAILABLE when the codec cannot decode.
 *
 * Returns: (transfer full): the decoded data
 * Since: 1.0
 */
GBytes *
ncz_codec_decode (NczCodec *self, const guint *working, gsize n_working,
                  GBytes *input, GError **error)
{
  NczCodecInterface *iface;
  g_return_val_if_fail (NCZ_IS_CODEC (self), NULL);
  g_return_val_if_fail (input != NULL, NULL);
  iface = NCZ_CODEC_GET_IFACE (self);
  if (iface->decode == NULL)
    {
      codec_unsupported (self, "decode", error);
      return NULL;
    }
  return iface->decode (self, working, n_working, input, error);
}
