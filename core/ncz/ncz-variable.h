/* ncz-variable.h: a variable (Zarr array)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-data-type.h>
#include <ncz/ncz-attribute.h>
#include <ncz/ncz-dimension.h>

G_BEGIN_DECLS

/**
 * NczQuantizeMode:
 * @NCZ_QUANTIZE_NONE: no quantization
 * @NCZ_QUANTIZE_BITGROOM: BitGroom, keeping a number of significant decimal digits
 * @NCZ_QUANTIZE_GRANULARBR: Granular BitRound, keeping significant decimal digits
 * @NCZ_QUANTIZE_BITROUND: BitRound, keeping a number of significant bits
 *
 * Lossy quantization applied to float and double data before the filters
 * (the values match netCDF's NC_QUANTIZE_* constants).
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_QUANTIZE_NONE = 0,
  NCZ_QUANTIZE_BITGROOM = 1,
  NCZ_QUANTIZE_GRANULARBR = 2,
  NCZ_QUANTIZE_BITROUND = 3,
} NczQuantizeMode;

/* HDF5 ids of the standard filters */
/**
 * NCZ_FILTER_DEFLATE:
 *
 * The HDF5 filter id of deflate (zlib).
 *
 * Since: 1.0
 */
#define NCZ_FILTER_DEFLATE 1
/**
 * NCZ_FILTER_SHUFFLE:
 *
 * The HDF5 filter id of shuffle.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_SHUFFLE 2
/**
 * NCZ_FILTER_FLETCHER32:
 *
 * The HDF5 filter id of Fletcher32 checksum.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_FLETCHER32 3
/**
 * NCZ_FILTER_SZIP:
 *
 * The HDF5 filter id of SZIP.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_SZIP 4
/**
 * NCZ_FILTER_BZIP2:
 *
 * The HDF5 filter id of bzip2.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_BZIP2 307
/**
 * NCZ_FILTER_BLOSC:
 *
 * The HDF5 filter id of Blosc.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_BLOSC 32001
/**
 * NCZ_FILTER_LZ4:
 *
 * The HDF5 filter id of LZ4.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_LZ4 32004
/**
 * NCZ_FILTER_ZSTD:
 *
 * The HDF5 filter id of Zstandard.
 *
 * Since: 1.0
 */
#define NCZ_FILTER_ZSTD 32015

#define NCZ_TYPE_VARIABLE (ncz_variable_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczVariable, ncz_variable, NCZ, VARIABLE, GObject)

/**
 * NCZ_DEFAULT_MAX_STRLEN:
 *
 * Width of fixed-length strings when neither `_nczarr_maxstrlen` nor
 * `_nczarr_default_maxstrlen` says otherwise.
 *
 * Since: 1.0
 */
#define NCZ_DEFAULT_MAX_STRLEN 128

NCZ_AVAILABLE_IN_ALL
const char *ncz_variable_get_name (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
char *ncz_variable_get_full_name (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_variable_get_group (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
NczDataType ncz_variable_get_value_type (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_variable_get_n_dimensions (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
NczDimension *ncz_variable_get_dimension (NczVariable *self, guint index);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_variable_get_dimensions (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
NczDimension *ncz_variable_get_dimension_at (NczVariable *self, guint index,
                                             GError **error);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_variable_get_dimension_list (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_variable_get_attribute_list (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
GVariant *ncz_variable_get_shape_variant (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
char *ncz_variable_get_shape_text (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
GVariant *ncz_variable_get_chunk_sizes_variant (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
GVariant *ncz_variable_get_fill_value_variant (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_is_writable (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
guint64 *ncz_variable_get_shape (NczVariable *self, guint *n_dims);
NCZ_AVAILABLE_IN_ALL
guint64 ncz_variable_get_n_elements (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_is_scalar (NczVariable *self);

NCZ_AVAILABLE_IN_ALL
const guint64 *ncz_variable_get_chunk_sizes (NczVariable *self, guint *n_dims);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_chunk_sizes (NczVariable *self, const guint64 *sizes,
                                       guint n_dims, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_get_contiguous (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_contiguous (NczVariable *self, gboolean contiguous,
                                      GError **error);

NCZ_AVAILABLE_IN_ALL
GBytes *ncz_variable_get_fill_value (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_fill_value (NczVariable *self, GBytes *value,
                                      GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_has_user_fill_value (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_get_no_fill (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_no_fill (NczVariable *self, gboolean no_fill,
                                   GError **error);

NCZ_AVAILABLE_IN_ALL
NczEndianness ncz_variable_get_endianness (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_endianness (NczVariable *self,
                                      NczEndianness endianness,
                                      GError **error);
NCZ_AVAILABLE_IN_ALL
guint ncz_variable_get_max_string_length (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
gsize ncz_variable_get_storage_element_size (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_variable_get_storage_dtype (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
void ncz_variable_set_storage_dtype (NczVariable *self, const char *dtype);

NCZ_AVAILABLE_IN_ALL
char *ncz_variable_get_codecs_json (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_variable_get_n_codecs (NczVariable *self);

/* Filters (filters.md): the chain is kept in order of invocation on write */
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_add_filter (NczVariable *self, guint filter_id,
                                  const guint *params, gsize n_params,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_add_filter_json (NczVariable *self, const char *codec_json,
                                       GError **error);
NCZ_AVAILABLE_IN_ALL
GArray *ncz_variable_get_filter_ids (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
GArray *ncz_variable_get_filter_params (NczVariable *self, guint filter_id,
                                        GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_deflate (NczVariable *self, gboolean shuffle,
                                   gboolean deflate, guint level, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_shuffle (NczVariable *self, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_fletcher32 (NczVariable *self, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_szip (NczVariable *self, guint options_mask,
                                guint pixels_per_block, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_zstandard (NczVariable *self, int level, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_bzip2 (NczVariable *self, guint level, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_blosc (NczVariable *self, const char *compressor,
                                 guint level, guint blocksize, guint shuffle,
                                 GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_quantize (NczVariable *self, NczQuantizeMode mode,
                                    guint n_digits, GError **error);
NCZ_AVAILABLE_IN_ALL
NczQuantizeMode ncz_variable_get_quantize (NczVariable *self, guint *n_digits);

NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_variable_get_attributes (NczVariable *self);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_variable_get_attribute (NczVariable *self, const char *name);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_set_attribute (NczVariable *self, NczAttribute *attribute,
                                     GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_remove_attribute (NczVariable *self, const char *name,
                                        GError **error);

NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_read (NczVariable *self,
                            const guint64 *start, guint n_start,
                            const guint64 *count, guint n_count,
                            const gint64 *stride, guint n_stride,
                            gpointer buffer, gsize buffer_size,
                            GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_write (NczVariable *self,
                             const guint64 *start, guint n_start,
                             const guint64 *count, guint n_count,
                             const gint64 *stride, guint n_stride,
                             gconstpointer buffer, gsize buffer_size,
                             GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_variable_read_bytes (NczVariable *self,
                                 const guint64 *start, guint n_start,
                                 const guint64 *count, guint n_count,
                                 const gint64 *stride, guint n_stride,
                                 GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_variable_read_bytes_async (NczVariable *self,
                                    const guint64 *start, guint n_start,
                                    const guint64 *count, guint n_count,
                                    const gint64 *stride, guint n_stride,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_variable_read_bytes_finish (NczVariable *self, GAsyncResult *result,
                                        GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_write_bytes (NczVariable *self,
                                   const guint64 *start, guint n_start,
                                   const guint64 *count, guint n_count,
                                   const gint64 *stride, guint n_stride,
                                   GBytes *data, GCancellable *cancellable,
                                   GError **error);
NCZ_AVAILABLE_IN_ALL
void ncz_variable_write_bytes_async (NczVariable *self,
                                     const guint64 *start, guint n_start,
                                     const guint64 *count, guint n_count,
                                     const gint64 *stride, guint n_stride,
                                     GBytes *data, GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_write_bytes_finish (NczVariable *self, GAsyncResult *result,
                                          GError **error);
NCZ_AVAILABLE_IN_ALL
char **ncz_variable_read_strings (NczVariable *self,
                                  const guint64 *start, guint n_start,
                                  const guint64 *count, guint n_count,
                                  const gint64 *stride, guint n_stride,
                                  GCancellable *cancellable, GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_variable_write_strings (NczVariable *self,
                                     const guint64 *start, guint n_start,
                                     const guint64 *count, guint n_count,
                                     const gint64 *stride, guint n_stride,
                                     const char * const *strings,
                                     GCancellable *cancellable, GError **error);

G_END_DECLS
