/* bench-common.h: timing, memory and argument helpers of the benchmarks
 *
 * Header-only so the netcdf-c and the plain-C programs need no GLib.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static inline double
bench_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* Peak resident set size of this process, in KiB. */
static inline long
bench_peak_rss_kib (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return -1;
  return ru.ru_maxrss;
}

/* "a,b,c" -> 3 sizes; returns the count, 0 on a parse error. */
static inline int
bench_parse_sizes (const char *text, size_t *out, int max)
{
  int n = 0;
  const char *p = text;
  while (*p && n < max)
    {
      char *end;
      unsigned long long v = strtoull (p, &end, 10);
      if (end == p || v == 0)
        return 0;
      out[n++] = (size_t) v;
      if (*end == ',')
        p = end + 1;
      else if (*end == '\0')
        break;
      else
        return 0;
    }
  return n;
}

/* The value written at flat index i of the data case; every program
 * writes the same bytes. */
static inline float
bench_value (size_t i)
{
  return (float) (i % 1000003) * 0.5f - 7.0f;
}

/* The values of the codec cases: a smooth field (a temperature-like
 * 280 +- 6, the sum of three sine waves along x, y and z) plus noise in
 * the last few bits, as measured data looks to a compressor. Integer
 * arithmetic up to one float multiplication, so zarr-bench.py computes
 * the same bits: each wave is lround (10000 sin (2 pi n / period)), the
 * noise an integer hash of the flat index in [-100, 100], and the value
 * (float) (2800000 + 2 wx + 3 wy + wz + noise) * 1e-4f. */
#define BENCH_SMOOTH_PERIOD_X 512
#define BENCH_SMOOTH_PERIOD_Y 384
#define BENCH_SMOOTH_PERIOD_Z 96

static inline long
bench_wave (size_t n, size_t period)
{
  return lround (10000.0 * sin (2.0 * 3.14159265358979323846 * (double) (n % period) /
                                (double) period));
}

static inline void
bench_smooth_fill (float *data, const size_t shape[3])
{
  long *wx = malloc (shape[2] * sizeof (long));
  long *wy = malloc (shape[1] * sizeof (long));
  size_t i = 0;

  if (wx == NULL || wy == NULL)
    abort ();
  for (size_t x = 0; x < shape[2]; x++)
    wx[x] = bench_wave (x, BENCH_SMOOTH_PERIOD_X);
  for (size_t y = 0; y < shape[1]; y++)
    wy[y] = bench_wave (y, BENCH_SMOOTH_PERIOD_Y);
  for (size_t z = 0; z < shape[0]; z++)
    {
      long wz = bench_wave (z, BENCH_SMOOTH_PERIOD_Z);
      for (size_t y = 0; y < shape[1]; y++)
        for (size_t x = 0; x < shape[2]; x++, i++)
          {
            uint32_t h = (uint32_t) ((uint64_t) i * 2654435761u);
            long noise = (long) ((h >> 16) % 201) - 100;
            data[i] = (float) (2800000 + 2 * wx[x] + 3 * wy[y] + wz + noise) * 1e-4f;
          }
    }
  free (wx);
  free (wy);
}

static inline const char *
bench_arg (int argc, char **argv, const char *name, const char *def)
{
  size_t len = strlen (name);
  for (int i = 1; i < argc; i++)
    if (strncmp (argv[i], name, len) == 0 && argv[i][len] == '=')
      return argv[i] + len + 1;
  return def;
}
