/* ncz-filter-spec-private.h: filter spec text and filter chain helpers
 *
 * Exported for Ncz's tests; not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>
#include "ncz-model-private.h"

G_BEGIN_DECLS

/* Filter spec text and 8-byte parameters are in the module SDK
 * (<ncz/ncz-module.h>). */

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
 * lz4 1, lz4hc 2, snappy 3, zlib 4, zstd 5), -1 if unknown. */
NCZ_PRIVATE_API int ncz_blosc_compcode_from_name (const char *name);

/* ---- codec chains (ncz-codec-chain.c), for ncz-variable.c ---- */

/* A chain copying @specs (element-type NczFilterSpec), not yet resolved:
 * no lookup, no call into the variable (safe under its lock). */
NCZ_PRIVATE_API NczCodecChain *ncz_codec_chain_new_unresolved (GPtrArray *specs,
                                                               guint generation);
/* Looks the codecs up and derives the working parameters for @variable. */
NCZ_PRIVATE_API gboolean ncz_codec_chain_resolve (NczCodecChain *chain, NczVariable *variable,
                                                  GError **error);
/* Whether a resolved chain still fits @variable's type, element size,
 * byte order and chunk shape. */
NCZ_PRIVATE_API gboolean ncz_codec_chain_matches (NczCodecChain *chain, NczVariable *variable);
NCZ_PRIVATE_API guint ncz_codec_chain_get_generation (NczCodecChain *chain);

G_END_DECLS
