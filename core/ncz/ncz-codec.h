/* ncz-codec.h: the codec (filter) interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <ncz/ncz-variable.h>

G_BEGIN_DECLS

/**
 * NczCodecKind:
 * @NCZ_CODEC_KIND_ARRAY_TO_ARRAY: works on the elements of a chunk and
 *   needs to know their type and shape: the numcodecs filters (shuffle,
 *   delta, fixedscaleoffset, astype, quantize, bitround, packbits) and
 *   Zarr v3's `transpose`
 * @NCZ_CODEC_KIND_ARRAY_TO_BYTES: turns elements into bytes: Zarr v3's
 *   `bytes` (byte order) and `sharding_indexed`; in Zarr v2 this step is
 *   implicit in the dtype and done by the format
 * @NCZ_CODEC_KIND_BYTES_TO_BYTES: works on bytes only: compressors and
 *   checksums (zlib, zstd, blosc, bz2, lz4, szip, fletcher32, crc32, ...)
 *
 * Where a codec stands in a chunk's pipeline, as Zarr v3 orders its
 * `codecs`: array to array codecs first, one array to bytes codec, then
 * bytes to bytes codecs. A Zarr v2 chain (`filters` then `compressor`)
 * keeps the order it was stored in.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_CODEC_KIND_ARRAY_TO_ARRAY = 1,
  NCZ_CODEC_KIND_ARRAY_TO_BYTES = 2,
  NCZ_CODEC_KIND_BYTES_TO_BYTES = 3,
} NczCodecKind;

#define NCZ_TYPE_CODEC (ncz_codec_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (NczCodec, ncz_codec, NCZ, CODEC, GObject)

/**
 * NczCodecInterface:
 * @get_codec_id: the Zarr (numcodecs) id, e.g. "zstd"
 * @get_filter_id: the HDF5 filter id, e.g. 32015 (0 if none)
 * @params_from_json: codec configuration (the codec dict, "id" included)
 *   → visible HDF5 parameters; the codec checks its parameters here
 * @params_to_json: visible parameters → a new codec dict, "id" first;
 *   the codec checks its parameters here
 * @modify_parameters: visible → working parameters for @variable
 * @encode: encode one chunk with the working parameters
 * @decode: decode one chunk with the working parameters
 * @get_kind: where the codec stands in a pipeline (default
 *   %NCZ_CODEC_KIND_BYTES_TO_BYTES)
 *
 * A codec. Zarr `filters` then `compressor` run in order on encode and in
 * reverse order on decode (see `NczCodecChain` in the module SDK).
 *
 * Since: 1.0
 */
struct _NczCodecInterface
{
  GTypeInterface g_iface;

  const char * (*get_codec_id)      (NczCodec *self);
  guint        (*get_filter_id)     (NczCodec *self);
  gboolean     (*params_from_json)  (NczCodec     *self,
                                     JsonObject   *json,
                                     GArray      **params,
                                     GError      **error);
  JsonObject * (*params_to_json)    (NczCodec     *self,
                                     const guint  *params,
                                     gsize         n_params,
                                     GError      **error);
  gboolean     (*modify_parameters) (NczCodec     *self,
                                     NczVariable  *variable,
                                     GArray       *visible,
                                     GArray      **working,
                                     GError      **error);
  GBytes *     (*encode)            (NczCodec     *self,
                                     const guint  *working,
                                     gsize         n_working,
                                     GBytes       *input,
                                     GError      **error);
  GBytes *     (*decode)            (NczCodec     *self,
                                     const guint  *working,
                                     gsize         n_working,
                                     GBytes       *input,
                                     GError      **error);
  NczCodecKind (*get_kind)          (NczCodec     *self);

  /*< private >*/
  gpointer padding[7];
};

NCZ_AVAILABLE_IN_ALL
const char *ncz_codec_get_codec_id (NczCodec *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_codec_get_filter_id (NczCodec *self);
NCZ_AVAILABLE_IN_ALL
NczCodecKind ncz_codec_get_kind (NczCodec *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_codec_params_from_json (NczCodec *self, JsonObject *json,
                                     GArray **params, GError **error);
NCZ_AVAILABLE_IN_ALL
JsonObject *ncz_codec_params_to_json (NczCodec *self, const guint *params,
                                      gsize n_params, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_codec_params_from_json_text (NczCodec *self, const char *json,
                                          GArray **params, GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_codec_params_to_json_text (NczCodec *self, const guint *params,
                                     gsize n_params, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_codec_modify_parameters (NczCodec *self, NczVariable *variable,
                                      GArray *visible, GArray **working,
                                      GError **error);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_codec_encode (NczCodec *self, const guint *working,
                          gsize n_working, GBytes *input, GError **error);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_codec_decode (NczCodec *self, const guint *working,
                          gsize n_working, GBytes *input, GError **error);

G_END_DECLS
