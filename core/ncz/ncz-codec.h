/* ncz-codec.h: the codec (filter) interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-variable.h>

G_BEGIN_DECLS

#define NCZ_TYPE_CODEC (ncz_codec_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (NczCodec, ncz_codec, NCZ, CODEC, GObject)

/**
 * NczCodecInterface:
 * @get_codec_id: the Zarr (numcodecs) id, e.g. "zstd"
 * @get_filter_id: the HDF5 filter id, e.g. 32015 (0 if none)
 * @params_from_json: codec JSON dict text → visible HDF5 parameters
 * @params_to_json: visible parameters → codec JSON dict text
 * @modify_parameters: visible → working parameters for @variable
 * @encode: encode one chunk with the working parameters
 * @decode: decode one chunk with the working parameters
 *
 * A codec. Zarr `filters` then `compressor` run in order on encode and in
 * reverse order on decode.
 *
 * Since: 1.0
 */
struct _NczCodecInterface
{
  GTypeInterface g_iface;

  const char * (*get_codec_id)      (NczCodec *self);
  guint        (*get_filter_id)     (NczCodec *self);
  gboolean     (*params_from_json)  (NczCodec     *self,
                                     const char   *json,
                                     GArray      **params,
                                     GError      **error);
  char *       (*params_to_json)    (NczCodec     *self,
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

  /*< private >*/
  gpointer padding[8];
};

NCZ_AVAILABLE_IN_ALL
const char *ncz_codec_get_codec_id (NczCodec *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_codec_get_filter_id (NczCodec *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_codec_params_from_json (NczCodec *self, const char *json,
                                     GArray **params, GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_codec_params_to_json (NczCodec *self, const guint *params,
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
