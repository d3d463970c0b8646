/* ceiling.c: what this machine can do at best, for the data benchmark
 *
 * Usage: ceiling --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
 *
 * Prints one JSON line: memcpy bandwidth over a buffer the size of the
 * variable, and the time to write then read the same bytes as plain
 * files, one per chunk (open/write/close, open/read/close), with no
 * format, no copy into chunk layout and no metadata.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bench-common.h"

static void
fail (const char *what)
{
  fprintf (stderr, "ceiling: %s: %s\n", what, strerror (errno));
  exit (1);
}

int
main (int argc, char **argv)
{
  const char *dir = bench_arg (argc, argv, "--dir", NULL);
  size_t shape[3], chunks[3];
  size_t total = 1, chunk_elems = 1, n_chunks = 1;
  float *data, *copy;
  double t0, t_memcpy, t_write, t_read;
  int reps = 5;
  char path[4096];

  if (dir == NULL ||
      bench_parse_sizes (bench_arg (argc, argv, "--shape", "128,512,512"), shape, 3) != 3 ||
      bench_parse_sizes (bench_arg (argc, argv, "--chunks", "32,128,128"), chunks, 3) != 3)
    {
      fprintf (stderr, "usage: ceiling --dir=DIR [--shape=a,b,c] [--chunks=a,b,c]\n");
      return 2;
    }
  for (int i = 0; i < 3; i++)
    {
      total *= shape[i];
      chunk_elems *= chunks[i];
      n_chunks *= (shape[i] + chunks[i] - 1) / chunks[i];
    }

  data = malloc (total * sizeof (float));
  copy = malloc (total * sizeof (float));
  if (data == NULL || copy == NULL)
    fail ("malloc");
  for (size_t i = 0; i < total; i++)
    data[i] = bench_value (i);
  memset (copy, 1, total * sizeof (float));

  /* memcpy: best of a few passes over the whole variable */
  t_memcpy = 1e30;
  for (int r = 0; r < reps; r++)
    {
      t0 = bench_now ();
      memcpy (copy, data, total * sizeof (float));
      t0 = bench_now () - t0;
      if (t0 < t_memcpy)
        t_memcpy = t0;
      data[r] += copy[total - 1 - (size_t) r] * 0.0f;   /* keep the copy alive */
    }

  /* Plain chunk files: the same number of bytes, chunk-sized pieces */
  if (mkdir (dir, 0755) != 0 && errno != EEXIST)
    fail (dir);
  {
    size_t chunk_bytes = chunk_elems * sizeof (float);
    size_t total_bytes = total * sizeof (float);
    size_t k;

    t0 = bench_now ();
    for (k = 0; k * chunk_bytes < total_bytes; k++)
      {
        size_t len = total_bytes - k * chunk_bytes;
        int fd;
        if (len > chunk_bytes)
          len = chunk_bytes;
        snprintf (path, sizeof path, "%s/%zu", dir, k);
        fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
          fail (path);
        if (write (fd, (char *) data + k * chunk_bytes, len) != (ssize_t) len)
          fail (path);
        close (fd);
      }
    t_write = bench_now () - t0;

    t0 = bench_now ();
    for (k = 0; k * chunk_bytes < total_bytes; k++)
      {
        size_t len = total_bytes - k * chunk_bytes;
        int fd;
        if (len > chunk_bytes)
          len = chunk_bytes;
        snprintf (path, sizeof path, "%s/%zu", dir, k);
        fd = open (path, O_RDONLY);
        if (fd < 0)
          fail (path);
        if (read (fd, (char *) copy + k * chunk_bytes, len) != (ssize_t) len)
          fail (path);
        close (fd);
      }
    t_read = bench_now () - t0;
    if (memcmp (copy, data, total_bytes) != 0)
      {
        fprintf (stderr, "ceiling: read back different bytes\n");
        return 1;
      }
    for (k = 0; k * chunk_bytes < total_bytes; k++)
      {
        snprintf (path, sizeof path, "%s/%zu", dir, k);
        unlink (path);
      }
    rmdir (dir);
  }

  printf ("{\"tool\": \"ceiling\", \"case\": \"data\", \"bytes\": %zu, \"chunks\": %zu, "
          "\"memcpy_s\": %.6f, \"write_s\": %.6f, \"read_s\": %.6f, \"peak_rss_kib\": %ld}\n",
          total * sizeof (float), n_chunks, t_memcpy, t_write, t_read, bench_peak_rss_kib ());
  free (data);
  free (copy);
  return 0;
}
