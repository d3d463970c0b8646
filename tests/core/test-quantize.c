/* Tests of quantize (filters.md "Lossy One-Way Filters"): the error
 * bounds of the spec's table on random data, what is never quantized,
 * the _Quantize... attributes and the write path.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <ncz/ncz.h>
#include "ncz-quantize-private.h"
#include "test-format.h"

#define N_VALUES 20000
#define SEED 20240611

/* filters.md: relative error margins by number of significant digits */
static const double bitgroom_margin[] = { 0, 3.1e-2, 3.9e-3, 4.9e-4, 3.1e-5, 3.8e-6, 4.7e-7 };
static const double granular_margin[] = { 0, 1.4e-1, 1.9e-2, 2.2e-3, 1.4e-4, 1.8e-5, 2.2e-6 };
/* the table's values are rounded to two digits */
#define TABLE_ROUNDING 1.02

/* Random values over many magnitudes, both signs. */
static double *
random_values (GRand *rand, gsize n, int max_exp10)
{
  double *v = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      double m = g_rand_double_range (rand, 1.0, 10.0);
      int e = g_rand_int_range (rand, -max_exp10, max_exp10 + 1);
      if (i % 4 == 0)
        v[i] = g_rand_double_range (rand, -1000.0, 1000.0);
      else
        v[i] = (g_rand_boolean (rand) ? -1 : 1) * m * pow (10.0, e);
    }
  return v;
}

static double
rel_error (double orig, double q)
{
  return orig == 0 ? fabs (q) : fabs (q - orig) / fabs (orig);
}

/* Half a unit of the @nsd-th significant digit of @x */
static double
half_unit (double x, guint nsd)
{
  int d = (int) floor (log10 (fabs (x))) + 1;
  return 0.5 * pow (10.0, d - (int) nsd);
}

static void
check_float_mode (NczQuantizeMode mode, guint nsd, double bound, gboolean digits)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED + nsd + 100 * mode);
  g_autofree double *src = random_values (rand, N_VALUES, 30);
  g_autofree float *f = g_new (float, N_VALUES);
  g_autofree float *orig = g_new (float, N_VALUES);
  double worst = 0;

  for (gsize i = 0; i < N_VALUES; i++)
    orig[i] = f[i] = (float) src[i];
  ncz_quantize_float (f, N_VALUES, mode, nsd, NULL);
  for (gsize i = 0; i < N_VALUES; i++)
    {
      double err = rel_error (orig[i], f[i]);
      worst = MAX (worst, err);
      if (err > bound)
        g_error ("float mode %d nsd %u: %.9g -> %.9g, relative error %g > %g",
                 mode, nsd, orig[i], f[i], err, bound);
      if (digits && fabs ((double) f[i] - orig[i]) > half_unit (orig[i], nsd) * (1 + 1e-6))
        g_error ("float mode %d nsd %u: %.9g -> %.9g changes digit %u",
                 mode, nsd, orig[i], f[i], nsd);
      if (mode == NCZ_QUANTIZE_BITGROOM && i % 2 == 0)
        g_assert_cmpfloat (fabsf (f[i]), <=, fabsf (orig[i]));
      if (mode == NCZ_QUANTIZE_BITGROOM && i % 2 == 1)
        g_assert_cmpfloat (fabsf (f[i]), >=, fabsf (orig[i]));
    }
  g_test_message ("float mode %d nsd %u: worst relative error %g (bound %g)", mode, nsd,
                  worst, bound);
}

static void
check_double_mode (NczQuantizeMode mode, guint nsd, double bound, gboolean digits)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED + nsd + 1000 * mode);
  g_autofree double *orig = random_values (rand, N_VALUES, 300);
  g_autofree double *d = g_memdup2 (orig, N_VALUES * sizeof (double));
  double worst = 0;

  ncz_quantize_double (d, N_VALUES, mode, nsd, NULL);
  for (gsize i = 0; i < N_VALUES; i++)
    {
      double err = rel_error (orig[i], d[i]);
      worst = MAX (worst, err);
      if (err > bound)
        g_error ("double mode %d nsd %u: %.17g -> %.17g, relative error %g > %g",
                 mode, nsd, orig[i], d[i], err, bound);
      if (digits && fabs (d[i] - orig[i]) > half_unit (orig[i], nsd) * (1 + 1e-9))
        g_error ("double mode %d nsd %u: %.17g -> %.17g changes digit %u",
                 mode, nsd, orig[i], d[i], nsd);
    }
  g_test_message ("double mode %d nsd %u: worst relative error %g (bound %g)", mode, nsd,
                  worst, bound);
}

static void
test_bitgroom_bounds (void)
{
  for (guint nsd = 1; nsd <= 6; nsd++)
    {
      double exact = ldexp (1.0, -(int) ncz_quantize_bitgroom_bits (nsd));
      g_assert_cmpfloat (exact, <=, bitgroom_margin[nsd] * TABLE_ROUNDING);
      check_float_mode (NCZ_QUANTIZE_BITGROOM, nsd, exact, FALSE);
      check_double_mode (NCZ_QUANTIZE_BITGROOM, nsd, exact, FALSE);
    }
  /* 7 digits keep every bit of a float */
  {
    float f[3] = { 1.2345678f, -3.3333333f, 7e-20f };
    float g[3];
    memcpy (g, f, sizeof f);
    ncz_quantize_float (g, 3, NCZ_QUANTIZE_BITGROOM, 7, NULL);
    g_assert_cmpmem (f, sizeof f, g, sizeof g);
  }
  for (guint nsd = 7; nsd <= 15; nsd++)
    check_double_mode (NCZ_QUANTIZE_BITGROOM, nsd,
                       ldexp (1.0, -(int) ncz_quantize_bitgroom_bits (nsd)), FALSE);
}

static void
test_granular_bounds (void)
{
  for (guint nsd = 1; nsd <= 6; nsd++)
    {
      check_float_mode (NCZ_QUANTIZE_GRANULARBR, nsd, granular_margin[nsd], TRUE);
      check_double_mode (NCZ_QUANTIZE_GRANULARBR, nsd, granular_margin[nsd], TRUE);
    }
  for (guint nsd = 7; nsd <= 15; nsd++)
    check_double_mode (NCZ_QUANTIZE_GRANULARBR, nsd, 5 * pow (10.0, -(double) nsd), TRUE);
}

static void
test_bitround_bounds (void)
{
  /* 0.5 * V * 2^-NSB */
  for (guint nsb = 1; nsb <= 23; nsb++)
    check_float_mode (NCZ_QUANTIZE_BITROUND, nsb, 0.5 * ldexp (1.0, -(int) nsb), FALSE);
  for (guint nsb = 1; nsb <= 52; nsb += 3)
    check_double_mode (NCZ_QUANTIZE_BITROUND, nsb, 0.5 * ldexp (1.0, -(int) nsb), FALSE);
  /* kept bits only */
  {
    float f = 1.0f + 1.0f / 3.0f;
    guint32 u;
    ncz_quantize_float (&f, 1, NCZ_QUANTIZE_BITROUND, 4, NULL);
    memcpy (&u, &f, sizeof u);
    g_assert_cmpuint (u & ((1u << 19) - 1), ==, 0);
    g_assert_cmpfloat (f, ==, 1.3125f);   /* 1.0101b */
  }
}

/* Granular BitRound drops more bits than BitGroom for the same digits */
static void
test_granular_is_granular (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (SEED);
  g_autofree double *src = random_values (rand, 4000, 20);
  g_autofree float *a = g_new (float, 4000);
  g_autofree float *b = g_new (float, 4000);
  guint zeros_a = 0, zeros_b = 0;
  GHashTable *kept = g_hash_table_new (NULL, NULL);

  for (gsize i = 0; i < 4000; i++)
    a[i] = b[i] = (float) src[i];
  ncz_quantize_float (a, 4000, NCZ_QUANTIZE_BITGROOM, 3, NULL);
  ncz_quantize_float (b, 4000, NCZ_QUANTIZE_GRANULARBR, 3, NULL);
  for (gsize i = 0; i < 4000; i += 2)   /* shaved BitGroom values */
    {
      guint32 ua, ub;
      memcpy (&ua, &a[i], 4);
      memcpy (&ub, &b[i], 4);
      zeros_a += ua ? (guint) __builtin_ctz (ua) : 32;
      zeros_b += ub ? (guint) __builtin_ctz (ub) : 32;
      g_hash_table_add (kept, GUINT_TO_POINTER (ub ? __builtin_ctz (ub) : 32));
    }
  g_assert_cmpuint (zeros_b, >, zeros_a);
  /* the number of bits kept varies with the value */
  g_assert_cmpuint (g_hash_table_size (kept), >, 2);
  g_hash_table_unref (kept);
}

static void
test_untouched (void)
{
  float f[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, 9.96921e+36f, 1.2345678f };
  double d[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, 9.9692099683868690e+36, 1.2345678 };
  float fill = 9.96921e+36f;
  double dfill = 9.9692099683868690e+36;

  for (int mode = NCZ_QUANTIZE_BITGROOM; mode <= NCZ_QUANTIZE_BITROUND; mode++)
    {
      float fq[G_N_ELEMENTS (f)];
      double dq[G_N_ELEMENTS (d)];
      memcpy (fq, f, sizeof f);
      memcpy (dq, d, sizeof d);
      ncz_quantize_float (fq, G_N_ELEMENTS (f), (NczQuantizeMode) mode, 2, &fill);
      ncz_quantize_double (dq, G_N_ELEMENTS (d), (NczQuantizeMode) mode, 2, &dfill);
      /* all but the last are kept bit for bit */
      g_assert_cmpmem (fq, sizeof f - sizeof f[0], f, sizeof f - sizeof f[0]);
      g_assert_cmpmem (dq, sizeof d - sizeof d[0], d, sizeof d - sizeof d[0]);
      g_assert_cmpfloat (fq[7], !=, f[7]);
      g_assert_cmpfloat (dq[7], !=, d[7]);
    }
  /* without a fill value the same value is quantized */
  {
    float x = 9.96921e+36f, y = x;   /* 1.875 * 2^122 */
    ncz_quantize_float (&y, 1, NCZ_QUANTIZE_BITROUND, 2, NULL);
    g_assert_cmpfloat (x, !=, y);
  }
  /* rounding never overflows to infinity */
  {
    float big = FLT_MAX;
    double dbig = DBL_MAX;
    ncz_quantize_float (&big, 1, NCZ_QUANTIZE_BITROUND, 1, NULL);
    ncz_quantize_double (&dbig, 1, NCZ_QUANTIZE_BITROUND, 1, NULL);
    g_assert_true (isfinite (big));
    g_assert_true (isfinite (dbig));
  }
}

static void
test_check (void)
{
  g_autoptr(GError) error = NULL;
  struct { NczDataType type; NczQuantizeMode mode; guint nsd; gboolean ok; } cases[] = {
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITGROOM, 1, TRUE },
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITGROOM, 7, TRUE },
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITGROOM, 8, FALSE },
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITGROOM, 0, FALSE },
    { NCZ_DATA_TYPE_DOUBLE, NCZ_QUANTIZE_GRANULARBR, 15, TRUE },
    { NCZ_DATA_TYPE_DOUBLE, NCZ_QUANTIZE_GRANULARBR, 16, FALSE },
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITROUND, 23, TRUE },
    { NCZ_DATA_TYPE_FLOAT, NCZ_QUANTIZE_BITROUND, 24, FALSE },
    { NCZ_DATA_TYPE_DOUBLE, NCZ_QUANTIZE_BITROUND, 52, TRUE },
    { NCZ_DATA_TYPE_DOUBLE, NCZ_QUANTIZE_BITROUND, 53, FALSE },
    { NCZ_DATA_TYPE_INT, NCZ_QUANTIZE_BITROUND, 5, FALSE },
    { NCZ_DATA_TYPE_SHORT, NCZ_QUANTIZE_BITGROOM, 2, FALSE },
    { NCZ_DATA_TYPE_FLOAT, (NczQuantizeMode) 7, 2, FALSE },
    { NCZ_DATA_TYPE_INT, NCZ_QUANTIZE_NONE, 0, TRUE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean ok = ncz_quantize_check (cases[i].type, cases[i].mode, cases[i].nsd, "v", &error);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (!ok)
        {
          g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
          g_clear_error (&error);
        }
    }
  g_assert_cmpstr (ncz_quantize_attribute_name (NCZ_QUANTIZE_BITGROOM), ==,
                   "_QuantizeBitGroomNumberOfSignificantDigits");
  g_assert_cmpstr (ncz_quantize_attribute_name (NCZ_QUANTIZE_GRANULARBR), ==,
                   "_QuantizeGranularBitRoundNumberOfSignificantDigits");
  g_assert_cmpstr (ncz_quantize_attribute_name (NCZ_QUANTIZE_BITROUND), ==,
                   "_QuantizeBitRoundNumberOfSignificantBits");
  g_assert_cmpint (ncz_quantize_mode_from_attribute ("_QuantizeBitRoundNumberOfSignificantBits"),
                   ==, NCZ_QUANTIZE_BITROUND);
  g_assert_cmpint (ncz_quantize_mode_from_attribute ("units"), ==, NCZ_QUANTIZE_NONE);
}

static NczVariable *
new_var (NczDataset *ds, const char *name, NczDataType type)
{
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_get_dimension (root, "x");
  NczVariable *v;
  if (x == NULL)
    x = ncz_group_add_dimension (root, "x", 64, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, name, type, 1, &x, &error);
  g_assert_no_error (error);
  return v;
}

static gint64
attr_int (NczVariable *v, const char *name)
{
  NczAttribute *a = ncz_variable_get_attribute (v, name);
  g_assert_nonnull (a);
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_INT);
  return ncz_attribute_get_int64 (a, 0, NULL);
}

static void
test_variable_api (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczVariable *f = new_var (ds, "f", NCZ_DATA_TYPE_FLOAT);
  NczVariable *i = new_var (ds, "i", NCZ_DATA_TYPE_INT);
  guint nsd = 99;

  g_assert_cmpint (ncz_variable_get_quantize (f, &nsd), ==, NCZ_QUANTIZE_NONE);
  g_assert_cmpuint (nsd, ==, 0);
  g_assert_false (ncz_variable_set_quantize (i, NCZ_QUANTIZE_BITGROOM, 3, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ncz_variable_set_quantize (f, NCZ_QUANTIZE_BITGROOM, 8, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  g_assert_true (ncz_variable_set_quantize (f, NCZ_QUANTIZE_BITGROOM, 3, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ncz_variable_get_quantize (f, &nsd), ==, NCZ_QUANTIZE_BITGROOM);
  g_assert_cmpuint (nsd, ==, 3);
  g_assert_cmpint (attr_int (f, "_QuantizeBitGroomNumberOfSignificantDigits"), ==, 3);

  g_assert_true (ncz_variable_set_quantize (f, NCZ_QUANTIZE_BITROUND, 10, &error));
  g_assert_null (ncz_variable_get_attribute (f, "_QuantizeBitGroomNumberOfSignificantDigits"));
  g_assert_cmpint (attr_int (f, "_QuantizeBitRoundNumberOfSignificantBits"), ==, 10);

  g_assert_true (ncz_variable_set_quantize (f, NCZ_QUANTIZE_NONE, 0, &error));
  g_assert_null (ncz_variable_get_attribute (f, "_QuantizeBitRoundNumberOfSignificantBits"));
  g_assert_cmpint (ncz_variable_get_quantize (f, NULL), ==, NCZ_QUANTIZE_NONE);

  /* the attribute defines it too */
  {
    gint32 four = 4;
    g_autoptr(NczAttribute) a = ncz_attribute_new_values (
        "_QuantizeGranularBitRoundNumberOfSignificantDigits", NCZ_DATA_TYPE_INT, &four, 1, NULL);
    g_autoptr(NczAttribute) bad = ncz_attribute_new_values (
        "_QuantizeGranularBitRoundNumberOfSignificantDigits", NCZ_DATA_TYPE_INT, &four, 1, NULL);
    g_assert_true (ncz_variable_set_attribute (f, a, &error));
    g_assert_no_error (error);
    g_assert_cmpint (ncz_variable_get_quantize (f, &nsd), ==, NCZ_QUANTIZE_GRANULARBR);
    g_assert_cmpuint (nsd, ==, 4);
    g_assert_false (ncz_variable_set_attribute (i, bad, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_true (ncz_variable_remove_attribute (f,
        "_QuantizeGranularBitRoundNumberOfSignificantDigits", &error));
    g_assert_cmpint (ncz_variable_get_quantize (f, NULL), ==, NCZ_QUANTIZE_NONE);
  }
}

static void
test_write_path (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (&store);
  NczVariable *f = new_var (ds, "f", NCZ_DATA_TYPE_FLOAT);
  NczVariable *d = new_var (ds, "d", NCZ_DATA_TYPE_DOUBLE);
  float data[64], copy[64], expect[64], back[64];
  double ddata[64], dcopy[64], dexpect[64], dback[64];
  float fill = -1.0f;
  g_autoptr(GBytes) fillb = g_bytes_new (&fill, sizeof fill);
  guint64 start = 0, count = 64;

  for (guint k = 0; k < 64; k++)
    {
      data[k] = (float) (k * 3.14159265 + 0.1);
      ddata[k] = k * 2.718281828459045 - 5;
    }
  data[5] = fill;
  data[6] = NAN;
  ddata[7] = 9.9692099683868690e+36;   /* the default fill */
  memcpy (copy, data, sizeof data);
  memcpy (dcopy, ddata, sizeof ddata);
  memcpy (expect, data, sizeof data);
  memcpy (dexpect, ddata, sizeof ddata);
  ncz_quantize_float (expect, 64, NCZ_QUANTIZE_BITROUND, 6, &fill);
  {
    double dfill = 9.9692099683868690e+36;
    ncz_quantize_double (dexpect, 64, NCZ_QUANTIZE_BITGROOM, 4, &dfill);
  }

  g_assert_true (ncz_variable_set_fill_value (f, fillb, &error));
  g_assert_true (ncz_variable_set_quantize (f, NCZ_QUANTIZE_BITROUND, 6, &error));
  g_assert_true (ncz_variable_set_quantize (d, NCZ_QUANTIZE_BITGROOM, 4, &error));
  g_assert_true (ncz_variable_write (f, &start, 1, &count, 1, NULL, 0, data, sizeof data, NULL, &error));
  g_assert_true (ncz_variable_write (d, &start, 1, &count, 1, NULL, 0, ddata, sizeof ddata, NULL, &error));
  g_assert_no_error (error);
  /* the caller's buffers are unchanged */
  g_assert_cmpmem (data, sizeof data, copy, sizeof copy);
  g_assert_cmpmem (ddata, sizeof ddata, dcopy, sizeof dcopy);

  g_assert_true (ncz_variable_read (f, &start, 1, &count, 1, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_true (ncz_variable_read (d, &start, 1, &count, 1, NULL, 0, dback, sizeof dback, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, sizeof back, expect, sizeof expect);
  g_assert_cmpmem (dback, sizeof dback, dexpect, sizeof dexpect);
  g_assert_cmpfloat (back[5], ==, fill);
  g_assert_true (isnan (back[6]));
  g_assert_cmpfloat (dback[7], ==, 9.9692099683868690e+36);
  g_assert_cmpfloat (back[10], !=, data[10]);

  /* defined before data only */
  g_assert_false (ncz_variable_set_quantize (f, NCZ_QUANTIZE_BITROUND, 8, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_setenv ("NCZ_PLUGIN_PATH", "", TRUE);
  g_setenv ("NCZ_PLUGIN_SYSTEM_PATH", "", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  filter_test_format_register ();

  g_test_add_func ("/quantize/bitgroom-bounds", test_bitgroom_bounds);
  g_test_add_func ("/quantize/granular-bounds", test_granular_bounds);
  g_test_add_func ("/quantize/bitround-bounds", test_bitround_bounds);
  g_test_add_func ("/quantize/granular-is-granular", test_granular_is_granular);
  g_test_add_func ("/quantize/untouched", test_untouched);
  g_test_add_func ("/quantize/check", test_check);
  g_test_add_func ("/quantize/variable-api", test_variable_api);
  g_test_add_func ("/quantize/write-path", test_write_path);
  return g_test_run ();
}
