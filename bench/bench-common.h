/* bench-common.h: timing, memory and argument helpers of the benchmarks
 *
 * Header-only so the netcdf-c and the plain-C programs need no GLib.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

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

static inline const char *
bench_arg (int argc, char **argv, const char *name, const char *def)
{
  size_t len = strlen (name);
  for (int i = 1; i < argc; i++)
    if (strncmp (argv[i], name, len) == 0 && argv[i][len] == '=')
      return argv[i] + len + 1;
  return def;
}
