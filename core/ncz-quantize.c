/* ncz-quantize.c: BitGroom, Granular BitRound and BitRound
 *
 * All three keep a number of explicit mantissa bits of each value and
 * clear the others, so that the data compress better while staying
 * within a known relative error:
 *
 *  - BitGroom (Zender 2016) keeps ceil(nsd * log2 10) + 1 bits and
 *    alternates between shaving the dropped bits (setting them to 0) and
 *    setting them (to 1), so that the errors do not accumulate in one
 *    direction. Relative error below 2^-bits.
 *  - BitRound keeps nsb bits, rounding to the nearest kept value (half
 *    away from zero). Relative error at most 2^-(nsb+1).
 *  - Granular BitRound rounds each value to a multiple of the largest
 *    power of two not above half a unit of its nsd-th significant
 *    decimal digit (from the value's decimal exponent), so the value
 *    prints the same to nsd digits; it keeps at least
 *    ceil(nsd * log2 10) - 2 bits, which bounds the relative error by
 *    2^-(that + 1).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ncz-core-private.h"
#include "ncz-quantize-private.h"

#define LOG2_10 3.32192809488736234787

#define F_MANT 23
#define F_EXP_MASK 0x7f800000u
#define D_MANT 52
#define D_EXP_MASK G_GUINT64_CONSTANT (0x7ff0000000000000)

const char *
ncz_quantize_attribute_name (NczQuantizeMode mode)
{
  switch (mode)
    {
    case NCZ_QUANTIZE_BITGROOM:
      return "_QuantizeBitGroomNumberOfSignificantDigits";
    case NCZ_QUANTIZE_GRANULARBR:
      return "_QuantizeGranularBitRoundNumberOfSignificantDigits";
    case NCZ_QUANTIZE_BITROUND:
      return "_QuantizeBitRoundNumberOfSignificantBits";
    case NCZ_QUANTIZE_NONE:
    default:
      return NULL;
    }
}

NczQuantizeMode
ncz_quantize_mode_from_attribute (const char *name)
{
  for (int m = NCZ_QUANTIZE_BITGROOM; m <= NCZ_QUANTIZE_BITROUND; m++)
    if (name && g_str_equal (name, ncz_quantize_attribute_name ((NczQuantizeMode) m)))
      return (NczQuantizeMode) m;
  return NCZ_QUANTIZE_NONE;
}

gboolean
ncz_quantize_check (NczDataType type, NczQuantizeMode mode, guint nsd, const char *what,
                    GError **error)
{
  guint max;
  gboolean bits = mode == NCZ_QUANTIZE_BITROUND;

  if (mode == NCZ_QUANTIZE_NONE)
    return TRUE;
  if (mode != NCZ_QUANTIZE_BITGROOM && mode != NCZ_QUANTIZE_GRANULARBR &&
      mode != NCZ_QUANTIZE_BITROUND)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: unknown quantize mode %d", what, (int) mode);
      return FALSE;
    }
  if (type != NCZ_DATA_TYPE_FLOAT && type != NCZ_DATA_TYPE_DOUBLE)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: quantize applies to float and double data, not %s",
                   what, ncz_data_type_get_name (type));
      return FALSE;
    }
  if (type == NCZ_DATA_TYPE_FLOAT)
    max = bits ? F_MANT : 7;
  else
    max = bits ? D_MANT : 15;
  if (nsd < 1 || nsd > max)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: %u significant %s out of range for %s (1 to %u)", what, nsd,
                   bits ? "bits" : "digits", ncz_data_type_get_name (type), max);
      return FALSE;
    }
  return TRUE;
}

guint
ncz_quantize_bitgroom_bits (guint nsd)
{
  return (guint) ceil (nsd * LOG2_10) + 1;
}

/* Fewest bits Granular BitRound keeps for @nsd digits. */
static int
granular_min_bits (guint nsd)
{
  return MAX (0, (int) ceil (nsd * LOG2_10) - 2);
}

/* Explicit mantissa bits Granular BitRound keeps for @x (finite, normal,
 * not zero): enough that the rounding error stays within half a unit of
 * the nsd-th significant digit. -1 when @x is too close to the limits
 * of the double range to tell. */
static int
granular_bits (double x, guint nsd, int mant)
{
  double ax = fabs (x);
  double q;
  int e2, eq, d;

  (void) frexp (ax, &e2);      /* ax = m * 2^e2, m in [0.5, 1) */
  d = (int) floor (log10 (ax)) + 1;
  /* log10 may be off by one next to powers of ten */
  if (pow (10.0, d - 1) > ax)
    d--;
  else if (pow (10.0, d) <= ax)
    d++;
  q = pow (10.0, d - (int) nsd);
  if (!(q > 0.0) || !isfinite (q) || !isnormal (q))
    return -1;
  (void) frexp (q, &eq);
  /* largest power of two not above q is 2^(eq-1); the value's leading
   * bit has weight 2^(e2-1): keep the bits down to weight 2^(eq-1) */
  return CLAMP (MAX ((e2 - 1) - (eq - 1), granular_min_bits (nsd)), 0, mant);
}

/* ---- float ---- */

static guint32
round_bits32 (guint32 u, int keep)
{
  guint32 z, mask, half, r;
  if (keep >= F_MANT)
    return u;
  z = (guint32) (F_MANT - keep);
  mask = ~((1u << z) - 1u);
  half = 1u << (z - 1);
  r = (u + half) & mask;
  if ((r & F_EXP_MASK) == F_EXP_MASK)   /* rounded up to infinity */
    r = u & mask;
  return r;
}

void
ncz_quantize_float (float *values, gsize n, NczQuantizeMode mode, guint nsd,
                    const float *fill)
{
  int keep = 0;

  g_return_if_fail (values != NULL || n == 0);
  if (mode == NCZ_QUANTIZE_NONE || nsd == 0)
    return;
  if (mode == NCZ_QUANTIZE_BITGROOM)
    keep = (int) ncz_quantize_bitgroom_bits (nsd);
  else if (mode == NCZ_QUANTIZE_BITROUND)
    keep = (int) nsd;
  if (mode != NCZ_QUANTIZE_GRANULARBR && keep >= F_MANT)
    return;

  for (gsize i = 0; i < n; i++)
    {
      float v = values[i];
      guint32 u, exp;
      if (fill != NULL && v == *fill)
        continue;
      memcpy (&u, &v, sizeof u);
      exp = u & F_EXP_MASK;
      if (exp == 0 || exp == F_EXP_MASK)   /* zero, subnormal, inf, NaN */
        continue;
      switch (mode)
        {
        case NCZ_QUANTIZE_BITGROOM:
          {
            guint32 low = (1u << (F_MANT - keep)) - 1u;
            u = (i % 2 == 0) ? (u & ~low) : (u | low);
          }
          break;
        case NCZ_QUANTIZE_BITROUND:
          u = round_bits32 (u, keep);
          break;
        case NCZ_QUANTIZE_GRANULARBR:
          {
            int k = granular_bits (v, nsd, F_MANT);
            if (k < 0)
              continue;
            u = round_bits32 (u, k);
          }
          break;
        case NCZ_QUANTIZE_NONE:
        default:
          break;
        }
      memcpy (&values[i], &u, sizeof u);
    }
}

/* ---- double ---- */

static guint64
round_bits64 (guint64 u, int keep)
{
  guint64 z, mask, half, r;
  if (keep >= D_MANT)
    return u;
  z = (guint64) (D_MANT - keep);
  mask = ~((G_GUINT64_CONSTANT (1) << z) - 1);
  half = G_GUINT64_CONSTANT (1) << (z - 1);
  r = (u + half) & mask;
  if ((r & D_EXP_MASK) == D_EXP_MASK)
    r = u & mask;
  return r;
}

void
ncz_quantize_double (double *values, gsize n, NczQuantizeMode mode, guint nsd,
                     const double *fill)
{
  int keep = 0;

  g_return_if_fail (values != NULL || n == 0);
  if (mode == NCZ_QUANTIZE_NONE || nsd == 0)
    return;
  if (mode == NCZ_QUANTIZE_BITGROOM)
    keep = (int) ncz_quantize_bitgroom_bits (nsd);
  else if (mode == NCZ_QUANTIZE_BITROUND)
    keep = (int) nsd;
  if (mode != NCZ_QUANTIZE_GRANULARBR && keep >= D_MANT)
    return;

  for (gsize i = 0; i < n; i++)
    {
      double v = values[i];
      guint64 u, exp;
      if (fill != NULL && v == *fill)
        continue;
      memcpy (&u, &v, sizeof u);
      exp = u & D_EXP_MASK;
      if (exp == 0 || exp == D_EXP_MASK)
        continue;
      switch (mode)
        {
        case NCZ_QUANTIZE_BITGROOM:
          {
            guint64 low = (G_GUINT64_CONSTANT (1) << (D_MANT - keep)) - 1;
            u = (i % 2 == 0) ? (u & ~low) : (u | low);
          }
          break;
        case NCZ_QUANTIZE_BITROUND:
          u = round_bits64 (u, keep);
          break;
        case NCZ_QUANTIZE_GRANULARBR:
          {
            int k = granular_bits (v, nsd, D_MANT);
            if (k < 0)
              continue;
            u = round_bits64 (u, k);
          }
          break;
        case NCZ_QUANTIZE_NONE:
        default:
          break;
        }
      memcpy (&values[i], &u, sizeof u);
    }
}
