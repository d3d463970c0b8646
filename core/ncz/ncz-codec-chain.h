/* ncz-codec-chain.h: the codec chain of a variable (module SDK)
 *
 * A chain is a variable's codecs resolved once: each codec found in the
 * registry and its working parameters derived for the variable (type,
 * chunk shape, byte order), then kept on the variable until its filters,
 * type, chunking or byte order change. A format runs chunks through it:
 * Zarr v2 `filters` then `compressor` on encode, the reverse on decode
 * (and later Zarr v3 `codecs` in order). Every step has a codec kind
 * (array to array, array to bytes, bytes to bytes), the order Zarr v3
 * requires; a Zarr v2 chain keeps its stored order, as NCZarr puts
 * fletcher32 (bytes to bytes) before shuffle (array to array).
 *
 * Part of the module SDK: define NCZ_ENABLE_MODULE_API and include
 * <ncz/ncz-module.h>. A chain is immutable and may be used from several
 * threads at once.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(NCZ_ENABLE_MODULE_API) && !defined(NCZ_COMPILATION)
#error "<ncz/ncz-codec-chain.h> is part of the module SDK: define NCZ_ENABLE_MODULE_API and include <ncz/ncz-module.h>."
#endif

#include <ncz/ncz.h>

G_BEGIN_DECLS

typedef struct _NczCodecChain NczCodecChain;

/* The variable's chain, resolved on first use and cached (a new
 * reference). NULL with NCZ_CODEC_ERROR_NOT_AVAILABLE ("codec not
 * available: ID (variable 'NAME')") when a codec is missing, or the
 * codec's error when it refuses the variable (modify_parameters); a
 * failure is not cached. A variable without filters has an empty chain. */
NCZ_MODULE_API NczCodecChain *ncz_variable_get_codec_chain (NczVariable *self, GError **error);

/* Builds a chain for @variable from @specs (element-type NczFilterSpec,
 * in chain order; NULL for none) without caching it. */
NCZ_MODULE_API NczCodecChain *ncz_codec_chain_new (NczVariable *variable, GPtrArray *specs,
                                                    GError **error);

NCZ_MODULE_API NczCodecChain *ncz_codec_chain_ref (NczCodecChain *chain);
NCZ_MODULE_API void ncz_codec_chain_unref (NczCodecChain *chain);

/* The steps, in encode order. */
NCZ_MODULE_API guint ncz_codec_chain_get_length (NczCodecChain *chain);
NCZ_MODULE_API NczCodec *ncz_codec_chain_get_codec (NczCodecChain *chain, guint index);
NCZ_MODULE_API NczCodecKind ncz_codec_chain_get_kind (NczCodecChain *chain, guint index);
/* The working parameters of step @index (guint); owned by the chain. */
NCZ_MODULE_API const GArray *ncz_codec_chain_get_working (NczCodecChain *chain, guint index);
/* TRUE when the kinds never go back (array to array, then at most one
 * array to bytes, then bytes to bytes): the order Zarr v3 requires. */
NCZ_MODULE_API gboolean ncz_codec_chain_is_ordered (NczCodecChain *chain);

/* Runs @input through every step in order (encode) or in reverse order
 * (decode). An empty chain returns @input itself (a new reference).
 * Errors name the variable and the codec: "variable 'NAME': decoding
 * with zstd: ...". */
NCZ_MODULE_API GBytes *ncz_codec_chain_encode (NczCodecChain *chain, GBytes *input,
                                                GError **error);
NCZ_MODULE_API GBytes *ncz_codec_chain_decode (NczCodecChain *chain, GBytes *input,
                                                GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczCodecChain, ncz_codec_chain_unref)

G_END_DECLS
