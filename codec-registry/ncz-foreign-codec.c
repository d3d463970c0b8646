/* ncz-foreign-codec.c: a codec served by foreign HDF5 + Codec libraries
 *
 * The codec id and filter id are those of the pairing-table row; JSON is
 * converted by the Codec library (NCZ_codec_to_hdf5, NCZ_hdf5_to_codec),
 * chunks by the HDF5 library's filter function. The foreign
 * NCZ_modify_parameters is never called: it asks netcdf-c's nc_inq_*
 * functions about the variable, which Ncz does not provide. Ncz derives
 * the working parameters itself for the filter ids whose layout it knows
 * (ncz_foreign_working_params); for the others they are the visible ones.
 * Codec configuration crosses to the Codec library as the JSON text Ncz
 * writes to .zarray (the Codec ABI's form) and comes back as json-glib.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-foreign-codec.h"

struct _NczForeignCodec
{
  GObject parent_instance;

  NczForeignScan *scan;
  const NczForeignRow *row;
};

static void ncz_foreign_codec_iface_init (NczCodecInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczForeignCodec, ncz_foreign_codec, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC,
                                                      ncz_foreign_codec_iface_init))

static void
ncz_foreign_codec_finalize (GObject *object)
{
  NczForeignCodec *self = NCZ_FOREIGN_CODEC (object);

  g_clear_pointer (&self->scan, ncz_foreign_scan_unref);

  G_OBJECT_CLASS (ncz_foreign_codec_parent_class)->finalize (object);
}

static void
ncz_foreign_codec_class_init (NczForeignCodecClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ncz_foreign_codec_finalize;
}

static void
ncz_foreign_codec_init (NczForeignCodec *self)
{
}

static const char *
foreign_get_codec_id (NczCodec *codec)
{
  return NCZ_FOREIGN_CODEC (codec)->row->codec_id;
}

static guint
foreign_get_filter_id (NczCodec *codec)
{
  return NCZ_FOREIGN_CODEC (codec)->row->filter_id;
}

/* Shuffle needs the element type; every other filter the pairing table
 * serves works on bytes as far as Ncz knows. */
static NczCodecKind
foreign_get_kind (NczCodec *codec)
{
  return NCZ_FOREIGN_CODEC (codec)->row->filter_id == NCZ_FILTER_SHUFFLE
         ? NCZ_CODEC_KIND_ARRAY_TO_ARRAY : NCZ_CODEC_KIND_BYTES_TO_BYTES;
}

static gboolean
foreign_params_from_json (NczCodec    *codec,
                          JsonObject  *json,
                          GArray     **params,
                          GError     **error)
{
  g_autoptr(NczJson) node = ncz_json_from_json_object (json);
  g_autofree char *text = ncz_json_to_string (node, FALSE);

  return ncz_foreign_row_params_from_json (NCZ_FOREIGN_CODEC (codec)->row, text, params, error);
}

static JsonObject *
foreign_params_to_json (NczCodec     *codec,
                        const guint  *params,
                        gsize         n_params,
                        GError      **error)
{
  g_autofree char *text = NULL;
  g_autoptr(NczJson) node = NULL;

  text = ncz_foreign_row_params_to_json (NCZ_FOREIGN_CODEC (codec)->row, params, n_params,
                                         error);
  if (text == NULL)
    return NULL;
  /* the row checked that it is an object with a string "id" */
  node = ncz_json_parse (text, -1, error);
  if (node == NULL)
    return NULL;
  return ncz_json_to_json_object (node);
}

static gboolean
foreign_modify_parameters (NczCodec     *codec,
                           NczVariable  *variable,
                           GArray       *visible,
                           GArray      **working,
                           GError      **error)
{
  gsize type_size = 0;
  gsize chunk_bytes = 0;

  if (variable != NULL)
    {
      type_size = ncz_variable_get_storage_element_size (variable);
      chunk_bytes = ncz_variable_get_chunk_n_bytes (variable);
      if (chunk_bytes == G_MAXSIZE)
        chunk_bytes = 0;
    }
  *working = ncz_foreign_working_params (NCZ_FOREIGN_CODEC (codec)->row->filter_id,
                                         (const guint *) visible->data, visible->len,
                                         type_size, chunk_bytes);
  return TRUE;
}

static GBytes *
foreign_encode (NczCodec     *codec,
                const guint  *working,
                gsize         n_working,
                GBytes       *input,
                GError      **error)
{
  return ncz_foreign_row_filter (NCZ_FOREIGN_CODEC (codec)->row, FALSE, working, n_working,
                                 input, error);
}

static GBytes *
foreign_decode (NczCodec     *codec,
                const guint  *working,
                gsize         n_working,
                GBytes       *input,
                GError      **error)
{
  return ncz_foreign_row_filter (NCZ_FOREIGN_CODEC (codec)->row, TRUE, working, n_working,
                                 input, error);
}

static void
ncz_foreign_codec_iface_init (NczCodecInterface *iface)
{
  iface->get_codec_id = foreign_get_codec_id;
  iface->get_filter_id = foreign_get_filter_id;
  iface->get_kind = foreign_get_kind;
  iface->params_from_json = foreign_params_from_json;
  iface->params_to_json = foreign_params_to_json;
  iface->modify_parameters = foreign_modify_parameters;
  iface->encode = foreign_encode;
  iface->decode = foreign_decode;
}

NczCodec *
ncz_foreign_codec_new (NczForeignScan      *scan,
                       const NczForeignRow *row)
{
  NczForeignCodec *self;

  g_return_val_if_fail (scan != NULL, NULL);
  g_return_val_if_fail (row != NULL && row->status == NCZ_FOREIGN_USABLE, NULL);

  self = g_object_new (NCZ_TYPE_FOREIGN_CODEC, NULL);
  self->scan = ncz_foreign_scan_ref (scan);
  self->row = row;
  return NCZ_CODEC (self);
}

const NczForeignRow *
ncz_foreign_codec_get_row (NczForeignCodec *self)
{
  g_return_val_if_fail (NCZ_IS_FOREIGN_CODEC (self), NULL);
  return self->row;
}
