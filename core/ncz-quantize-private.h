/* ncz-quantize-private.h: lossy quantization of float and double data
 *
 * Exported for Ncz's own tests; not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/* The attribute that records @mode on a variable
 * (_QuantizeBitGroomNumberOfSignificantDigits, ...); NULL for NONE. */
NCZ_PRIVATE_API const char *ncz_quantize_attribute_name (NczQuantizeMode mode);

/* The mode an attribute name records, NCZ_QUANTIZE_NONE if none. */
NCZ_PRIVATE_API NczQuantizeMode ncz_quantize_mode_from_attribute (const char *name);

/* Checks that @mode with @nsd (significant decimal digits for BitGroom
 * and Granular BitRound, significant bits for BitRound) applies to
 * @type: float or double; digits 1..7 (float) or 1..15 (double), bits
 * 1..23 or 1..52. @what names the variable in the message. */
NCZ_PRIVATE_API gboolean ncz_quantize_check (NczDataType type, NczQuantizeMode mode, guint nsd,
                                             const char *what, GError **error);

/* Number of explicit mantissa bits BitGroom keeps for @nsd digits. */
NCZ_PRIVATE_API guint ncz_quantize_bitgroom_bits (guint nsd);

/* Quantizes @n values in place. Values equal to *@fill (when not NULL),
 * zeros, subnormals, infinities and NaNs are left as they are. For
 * BitGroom, values at even indices are shaved and odd ones set. */
NCZ_PRIVATE_API void ncz_quantize_float (float *values, gsize n, NczQuantizeMode mode,
                                         guint nsd, const float *fill);
NCZ_PRIVATE_API void ncz_quantize_double (double *values, gsize n, NczQuantizeMode mode,
                                          guint nsd, const double *fill);

G_END_DECLS
