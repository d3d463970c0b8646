/* ncz-filter-spec-private.h: filter spec text and filter chain helpers
 *
 * Exported for Ncz's own tools, backends and tests; not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>
#include "ncz-model-private.h"

G_BEGIN_DECLS

/* ---- filter spec text (filters.md "Filter Specification Syntax" and
 * Appendix D): "307,9|4,32,32", typed constants such as -17b, 23ub, -25S,
 * 27US, 77, 93U, 789f, 1.5d, -9L, 18446744073709551615UL ---- */

/* Parses one constant of a filter spec into one or two unsigned 32-bit
 * parameters (two for the 8-byte forms d, l and ul, and for untagged
 * values above 2^32-1), appended to @params. @text is @length bytes, not
 * NUL-terminated; -1 means up to the NUL. Errors are
 * NCZ_CODEC_ERROR_BAD_PARAMETERS. */
NCZ_PRIVATE_API gboolean ncz_filter_spec_parse_constant (const char *text, gssize length,
                                                         GArray *params, GError **error);

/* Parses one filter spec "id[,param...]". The id is an unsigned number
 * (1 to 65535) or a known filter name (deflate, zlib, shuffle,
 * fletcher32, szip, bzip2, bz2, blosc, lz4, zstd, zstandard). Returns a
 * spec with filter_id and visible set (codec_id, json and codec NULL). */
NCZ_PRIVATE_API NczFilterSpec *ncz_filter_spec_parse (const char *text, GError **error);

/* Parses a '|'-separated list of filter specs.
 * Returns: (element-type NczFilterSpec) (transfer full): the specs in
 * order, or NULL with @error set; the message gives the byte offset. */
NCZ_PRIVATE_API GPtrArray *ncz_filter_spec_parse_list (const char *text, GError **error);

/* "id,p1,p2" with the parameters as unsigned decimal numbers. */
NCZ_PRIVATE_API char *ncz_filter_spec_to_text (guint filter_id, const guint *params,
                                               gsize n_params);

/* The specs of @specs (element-type NczFilterSpec) joined with '|', as
 * the `_Filter` attribute shows them; specs with filter_id 0 are left out. */
NCZ_PRIVATE_API char *ncz_filter_spec_list_to_text (GPtrArray *specs);

/* The HDF5 filter id for a filter name as the parser accepts it, 0 if
 * unknown (case-insensitive). */
NCZ_PRIVATE_API guint ncz_filter_id_from_name (const char *name);

/* ---- 8-byte parameters (filters.md Appendix A) ----
 * An 8-byte value travels as two parameters holding its little-endian
 * byte image. On a little-endian host nothing is done; on a big-endian
 * host encoding swaps the 8 bytes, then each 4-byte half, and decoding
 * does the inverse. @host_big_endian selects the host convention (tests
 * exercise both); ncz_filter_params_fix8 uses the running host's. */
NCZ_PRIVATE_API void ncz_filter_params_fix8_for (guint8 mem8[8], gboolean decode,
                                                 gboolean host_big_endian);
NCZ_PRIVATE_API void ncz_filter_params_fix8 (guint8 mem8[8], gboolean decode);

/* Two parameters for an 8-byte value, and back. */
NCZ_PRIVATE_API void ncz_filter_params_from_uint64 (guint64 value, guint out[2]);
NCZ_PRIVATE_API guint64 ncz_filter_params_to_uint64 (const guint in[2]);
NCZ_PRIVATE_API void ncz_filter_params_from_double (double value, guint out[2]);
NCZ_PRIVATE_API double ncz_filter_params_to_double (const guint in[2]);

/* ---- filter chains (ncz-filter.c) ---- */

/* Adds @spec (taking ownership) to @chain following filters.md "Order of
 * Invocation": a filter already in the chain (same filter id, or same
 * codec id when it has none) keeps its place and takes the new
 * parameters; fletcher32 goes first, shuffle after fletcher32 and before
 * every other filter; others are appended. */
NCZ_PRIVATE_API void ncz_filter_chain_insert (GPtrArray *chain, NczFilterSpec *spec);

/* The spec of @filter_id in @chain, or NULL. */
NCZ_PRIVATE_API NczFilterSpec *ncz_filter_chain_find (GPtrArray *chain, guint filter_id);

/* A spec for @codec with visible @params: its JSON comes from
 * ncz_codec_params_to_json, which also validates the parameters. */
NCZ_PRIVATE_API NczFilterSpec *ncz_filter_spec_new_for_codec (NczCodec *codec,
                                                              const guint *params,
                                                              gsize n_params,
                                                              GError **error);

/* The blosc compressor code of a c-blosc compressor name (blosclz 0,
 * lz4 1, lz4hc 2, snappy 3, zlib 4, zstd 5), -1 if unknown; and back. */
NCZ_PRIVATE_API int ncz_blosc_compcode_from_name (const char *name);
NCZ_PRIVATE_API const char *ncz_blosc_compname_from_code (guint code);

G_END_DECLS
