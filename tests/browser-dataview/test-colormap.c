/* test-colormap.c: colour maps, percentiles and missing values of the
 * data view, without a display
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nb-colormap.h"
#include "nb-slice-loader.h"

#include <math.h>
#include <stdlib.h>

static void
assert_rgb (const guint8 rgb[3], int r, int g, int b)
{
  g_assert_cmpint (rgb[0], ==, r);
  g_assert_cmpint (rgb[1], ==, g);
  g_assert_cmpint (rgb[2], ==, b);
}

static void
test_viridis (void)
{
  guint8 rgb[3], table[256][3];

  /* matplotlib's viridis: first, middle and last entries, in 8 bits */
  nb_colormap_lookup ("viridis", 0.0, rgb);
  assert_rgb (rgb, 68, 1, 84);
  nb_colormap_lookup ("viridis", 1.0, rgb);
  assert_rgb (rgb, 253, 231, 37);
  nb_colormap_lookup ("viridis", 128 / 256.0, rgb);
  assert_rgb (rgb, 33, 145, 140);
  /* clamped, NaN at the start */
  nb_colormap_lookup ("viridis", 7.0, rgb);
  assert_rgb (rgb, 253, 231, 37);
  nb_colormap_lookup ("viridis", NAN, rgb);
  assert_rgb (rgb, 68, 1, 84);
  /* the renderer's table is exactly the lookup of each entry */
  nb_colormap_fill_table ("viridis", table);
  for (int i = 0; i < 256; i++)
    {
      nb_colormap_lookup ("viridis", i / 256.0, rgb);
      assert_rgb (table[i], rgb[0], rgb[1], rgb[2]);
    }
}

static void
test_grey_balance (void)
{
  guint8 rgb[3], missing[3];

  nb_colormap_lookup ("grey", 0.0, rgb);
  assert_rgb (rgb, 0, 0, 0);
  nb_colormap_lookup ("grey", 1.0, rgb);
  assert_rgb (rgb, 255, 255, 255);
  nb_colormap_lookup ("grey", 0.5, rgb);
  assert_rgb (rgb, 128, 128, 128);
  /* diverging: blue, near white in the middle, red */
  nb_colormap_lookup ("balance", 0.0, rgb);
  g_assert_cmpint (rgb[2], >, rgb[0]);
  nb_colormap_lookup ("balance", 0.5, rgb);
  assert_rgb (rgb, 0xf7, 0xf7, 0xf7);
  nb_colormap_lookup ("balance", 1.0, rgb);
  g_assert_cmpint (rgb[0], >, rgb[2]);
  g_assert_true (nb_colormap_is_known ("balance"));
  g_assert_false (nb_colormap_is_known ("jet"));

  /* the missing colour is on neither viridis nor balance */
  nb_colormap_missing_rgb (missing);
  for (int i = 0; i <= 1000; i++)
    {
      nb_colormap_lookup ("viridis", i / 1000.0, rgb);
      g_assert_cmpint (abs (rgb[0] - missing[0]) + abs (rgb[1] - missing[1]) + abs (rgb[2] - missing[2]), >, 30);
      nb_colormap_lookup ("balance", i / 1000.0, rgb);
      g_assert_cmpint (abs (rgb[0] - missing[0]) + abs (rgb[1] - missing[1]) + abs (rgb[2] - missing[2]), >, 30);
    }
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
test_percentile (void)
{
  GRand *rand = g_rand_new_with_seed (7);

  for (guint n = 1; n < 300; n += 7)
    {
      double *v = g_new (double, n), *sorted = g_new (double, n);

      for (guint i = 0; i < n; i++)
        v[i] = sorted[i] = floor (g_rand_double_range (rand, -50, 50));
      qsort (sorted, n, sizeof (double), cmp_double);
      for (double q = 0; q <= 1.0; q += 0.125)
        {
          double pos = q * (n - 1);
          guint k = (guint) floor (pos);
          double expected = k + 1 < n ? sorted[k] + (sorted[k + 1] - sorted[k]) * (pos - k) : sorted[k];
          double *copy = g_memdup2 (v, n * sizeof (double));

          g_assert_cmpfloat_with_epsilon (nb_percentile (copy, n, q), expected, 1e-9);
          g_free (copy);
        }
      g_free (v);
      g_free (sorted);
    }
  g_assert_true (isnan (nb_percentile (NULL, 0, 0.5)));
  g_rand_free (rand);
}

static void
test_missing_spec (void)
{
  double missing[] = { -5 };
  NbMissingSpec spec = { TRUE, -999, -100, 100, missing, 1 };

  g_assert_true (nb_slice_is_missing (&spec, -999));
  g_assert_true (nb_slice_is_missing (&spec, NAN));
  g_assert_true (nb_slice_is_missing (&spec, 101));
  g_assert_true (nb_slice_is_missing (&spec, -5));
  g_assert_false (nb_slice_is_missing (&spec, 0));
  g_assert_false (nb_slice_is_missing (&spec, 100));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/browser-dataview/colormap/viridis", test_viridis);
  g_test_add_func ("/browser-dataview/colormap/grey-balance", test_grey_balance);
  g_test_add_func ("/browser-dataview/percentile", test_percentile);
  g_test_add_func ("/browser-dataview/missing-spec", test_missing_spec);
  return g_test_run ();
}
