/* ncz-module.h: the Ncz module SDK
 *
 * Everything a storage driver, format backend or codec module needs
 * beyond the public API: buffers from Ncz's pool, byte order helpers,
 * chunk geometry, the loader calls a format backend uses to build the
 * model while opening a dataset, the exact JSON reader for metadata
 * (<ncz/ncz-json.h>), the binary filter ABIs (<ncz/ncz-filter-abi.h>),
 * the locks of writers that share a dataset (<ncz/ncz-lock-file.h>) and
 * the entries stores stage beside a dataset (<ncz/ncz-staging.h>).
 *
 * Opt-in: define NCZ_ENABLE_MODULE_API before including it. The SDK is C
 * only (not introspected) and versioned by NCZ_MODULE_SDK_VERSION, which
 * is also the plugin ABI (see docs/plugins.md).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(NCZ_ENABLE_MODULE_API) && !defined(NCZ_COMPILATION)
#error "<ncz/ncz-module.h> is the module SDK: define NCZ_ENABLE_MODULE_API before including it."
#endif

#include <ncz/ncz.h>
#include <ncz/ncz-json.h>
#include <ncz/ncz-filter-abi.h>
#include <ncz/ncz-codec-chain.h>
#include <ncz/ncz-lock-file.h>
#include <ncz/ncz-staging.h>

G_BEGIN_DECLS

/* One filter of a variable's chain, in chain order (Zarr "filters" then
 * "compressor"). */
typedef struct {
  char *codec_id;      /* Zarr / numcodecs id; NULL if only the HDF5 id is known */
  guint filter_id;     /* HDF5 filter id; 0 if unknown */
  char *json;          /* the codec dict as JSON text (as read, or as produced) */
  GArray *visible;     /* guint visible parameters; never NULL */
  GArray *working;     /* unused: working parameters live in the variable's
                          codec chain (<ncz/ncz-codec-chain.h>) */
  NczCodec *codec;     /* the implementation; NULL if not available */
} NczFilterSpec;

NCZ_MODULE_API NczFilterSpec *ncz_filter_spec_new (const char *codec_id,
                                                    guint filter_id,
                                                    const char *json);
NCZ_MODULE_API void ncz_filter_spec_free (NczFilterSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczFilterSpec, ncz_filter_spec_free)

/* While a backend loads a dataset, the model accepts definitions even when
 * the dataset is read-only. */
NCZ_MODULE_API void ncz_dataset_set_loading (NczDataset *self, gboolean loading);
NCZ_MODULE_API gboolean ncz_dataset_is_loading (NczDataset *self);
/* Whether the dataset is closed by ncz_dataset_discard() (the format's
 * close then drops what it staged), rather than by ncz_dataset_close(). */
NCZ_MODULE_API gboolean ncz_dataset_is_discarded (NczDataset *self);
/* Whether the dataset was opened with NCZ_OPEN_WRITE_DATA: a format then
 * stores chunks and never its metadata. */
NCZ_MODULE_API gboolean ncz_dataset_is_data_only (NczDataset *self);

/* Stores: the construct-only properties "url" and "flags" that every
 * NczStore has, for a store that keeps them in two fields of its
 * instance (an NczUrl * it owns and an NczStoreFlags). In class_init:
 *
 *   ncz_store_class_override_properties (object_class, PROP_URL, PROP_FLAGS);
 *
 * and in get_property / set_property, before the store's own properties:
 *
 *   if (ncz_store_get_construct_property (pspec, value, self->url, self->flags))
 *     return;
 *   if (ncz_store_set_construct_property (pspec, value, &self->url, &self->flags))
 *     return;
 *
 * They recognize the two properties by @pspec (GObject passes the
 * interface's), so a store's switch on its own property ids stays as it
 * was. Setting "url" takes a reference, which the store drops in its
 * finalize. Each returns FALSE for any other property. */
NCZ_MODULE_API void ncz_store_class_override_properties (GObjectClass *object_class,
                                                         guint         url_id,
                                                         guint         flags_id);
NCZ_MODULE_API gboolean ncz_store_get_construct_property (GParamSpec   *pspec,
                                                          GValue       *value,
                                                          NczUrl       *url,
                                                          NczStoreFlags flags);
NCZ_MODULE_API gboolean ncz_store_set_construct_property (GParamSpec    *pspec,
                                                          const GValue  *value,
                                                          NczUrl       **url,
                                                          NczStoreFlags *flags);

/* Takes ownership of @filters (element-type NczFilterSpec), may be NULL. */
NCZ_MODULE_API void ncz_variable_set_filters (NczVariable *self, GPtrArray *filters);
NCZ_MODULE_API GPtrArray *ncz_variable_peek_filters (NczVariable *self);
NCZ_MODULE_API NczDataset *ncz_variable_get_dataset (NczVariable *self);
/* Marks a variable read from a true 0-d Zarr array (shape []) */
NCZ_MODULE_API void ncz_variable_set_zero_dim (NczVariable *self, gboolean zero_dim);
NCZ_MODULE_API gboolean ncz_variable_is_zero_dim (NczVariable *self);
/* Whether chunking was chosen rather than left to the default: chunk
 * sizes set (ncz_variable_set_chunk_sizes(), also by a format reading a
 * stored variable) or ncz_variable_set_contiguous (FALSE) called, and not
 * undone by ncz_variable_set_contiguous (TRUE). A format with contiguous
 * storage (HDF5) stores the variables without it contiguously. */
NCZ_MODULE_API gboolean ncz_variable_is_chunking_set (NczVariable *self);
/* Sets the fill value used for unwritten elements without showing it as a
 * _FillValue attribute (a pure Zarr fill_value the dataset never named). */
NCZ_MODULE_API void ncz_variable_set_storage_fill_value (NczVariable *self, GBytes *value);
/* Sets the width of fixed-length strings directly (0: from attributes). */
NCZ_MODULE_API void ncz_variable_set_max_string_length (NczVariable *self, guint width);
/* Strings stored with their own lengths (Zarr "|O" + "vlen-utf8"): the
 * width in memory grows to the longest string (see ncz-variable.c). A
 * variable not set either way follows its dataset's default, set by the
 * format (pure Zarr: variable length). */
NCZ_MODULE_API void ncz_dataset_set_variable_length_strings (NczDataset *dataset,
                                                              gboolean variable_length);
NCZ_MODULE_API void ncz_variable_set_variable_length_strings (NczVariable *self,
                                                               gboolean variable_length);
NCZ_MODULE_API gboolean ncz_variable_has_variable_length_strings (NczVariable *self);
/* Widens the strings in memory to at least @width bytes (never narrows);
 * FALSE if @width is too large. */
NCZ_MODULE_API gboolean ncz_variable_grow_string_width (NczVariable *self, gsize width);

/* Moves attribute @name to @position in the variable's attribute order
 * (the end if beyond it); FALSE if there is no such attribute. */
NCZ_MODULE_API gboolean ncz_variable_move_attribute (NczVariable *self, const char *name,
                                                      guint position);

/* An unlimited dimension grows to @length if it is shorter (an array in
 * the store is longer than the dimension's recorded size, e.g. after
 * another program appended to it). */
NCZ_MODULE_API void ncz_dimension_grow (NczDimension *self, guint64 length);

/* Reusable chunk-sized buffers (ncz-buffer.c), for the chunk engine and
 * codecs: fresh multi-MiB allocations fault their pages in on first use. */
/* The shared worker pool (ncz-parallel.c): runs @func over @items on
 * the CPU workers, the calling thread working too; there are
 * ncz_parallel_get_n_workers() of them, as ncz_get_max_threads() */
typedef void (*NczParallelFunc) (gpointer item, gpointer user_data);
NCZ_MODULE_API void ncz_parallel_for (gpointer *items, guint n, NczParallelFunc func,
                                       gpointer user_data);
NCZ_MODULE_API guint ncz_parallel_get_n_workers (void);

NCZ_MODULE_API gpointer ncz_buffer_alloc (gsize size, gsize *capacity);
NCZ_MODULE_API void ncz_buffer_release (gpointer data, gsize capacity);
NCZ_MODULE_API GBytes *ncz_buffer_new_bytes (gpointer data, gsize length, gsize capacity);

/* Chunk grid helpers */
NCZ_MODULE_API guint64 ncz_variable_get_chunk_n_elements (NczVariable *self);
NCZ_MODULE_API gsize ncz_variable_get_chunk_n_bytes (NczVariable *self);

/* Sorting helpers for byte order */
NCZ_MODULE_API void ncz_byteswap_buffer (gpointer data, gsize element_size, gsize n_elements);
NCZ_MODULE_API gboolean ncz_endianness_needs_swap (NczEndianness endianness);

/* Fill a buffer with @n_elements copies of @fill (@element_size bytes each);
 * zeros when @fill is NULL. */
NCZ_MODULE_API void ncz_fill_buffer (gpointer buffer, gsize element_size, gsize n_elements,
                                      GBytes *fill);

/* ---- filter spec text (filters.md "Filter Specification Syntax" and
 * Appendix D): "307,9|4,32,32", typed constants such as -17b, 23ub, -25S,
 * 27US, 77, 93U, 789f, 1.5d, -9L, 18446744073709551615UL ---- */

/* Parses one constant of a filter spec into one or two unsigned 32-bit
 * parameters (two for the 8-byte forms d, l and ul, and for untagged
 * values above 2^32-1), appended to @params. @text is @length bytes, not
 * NUL-terminated; -1 means up to the NUL. Errors are
 * NCZ_CODEC_ERROR_BAD_PARAMETERS. */
NCZ_MODULE_API gboolean ncz_filter_spec_parse_constant (const char *text, gssize length,
                                                         GArray *params, GError **error);

/* Parses one filter spec "id[,param...]". The id is an unsigned number
 * (1 to 65535) or a known filter name (deflate, zlib, shuffle,
 * fletcher32, szip, bzip2, bz2, blosc, lz4, zstd, zstandard). Returns a
 * spec with filter_id and visible set (codec_id, json and codec NULL). */
NCZ_MODULE_API NczFilterSpec *ncz_filter_spec_parse (const char *text, GError **error);

/* Parses a '|'-separated list of filter specs.
 * Returns: (element-type NczFilterSpec) (transfer full): the specs in
 * order, or NULL with @error set; the message gives the byte offset. */
NCZ_MODULE_API GPtrArray *ncz_filter_spec_parse_list (const char *text, GError **error);

/* "id,p1,p2" with the parameters as unsigned decimal numbers. */
NCZ_MODULE_API char *ncz_filter_spec_to_text (guint filter_id, const guint *params,
                                               gsize n_params);

/* The specs of @specs (element-type NczFilterSpec) joined with '|', as
 * the `_Filter` attribute shows them; specs with filter_id 0 are left out. */
NCZ_MODULE_API char *ncz_filter_spec_list_to_text (GPtrArray *specs);

/* The HDF5 filter id for a filter name as the parser accepts it, 0 if
 * unknown (case-insensitive). */
NCZ_MODULE_API guint ncz_filter_id_from_name (const char *name);

/* ---- 8-byte parameters (filters.md Appendix A) ----
 * An 8-byte value travels as two parameters holding its little-endian
 * byte image. On a little-endian host nothing is done; on a big-endian
 * host encoding swaps the 8 bytes, then each 4-byte half, and decoding
 * does the inverse. @host_big_endian selects the host convention (tests
 * exercise both); ncz_filter_params_fix8 uses the running host's. */
NCZ_MODULE_API void ncz_filter_params_fix8_for (guint8 mem8[8], gboolean decode,
                                                 gboolean host_big_endian);
NCZ_MODULE_API void ncz_filter_params_fix8 (guint8 mem8[8], gboolean decode);

/* Two parameters for an 8-byte value, and back. */
NCZ_MODULE_API void ncz_filter_params_from_uint64 (guint64 value, guint out[2]);
NCZ_MODULE_API guint64 ncz_filter_params_to_uint64 (const guint in[2]);
NCZ_MODULE_API void ncz_filter_params_from_double (double value, guint out[2]);
NCZ_MODULE_API double ncz_filter_params_to_double (const guint in[2]);

G_END_DECLS
