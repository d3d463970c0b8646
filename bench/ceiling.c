/* ceiling.c: what this machine can do at best, for the data benchmark
 *
 * Usage: ceiling --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
 *
 * Prints one JSON line: memcpy bandwidth over a buffer the size of the
 * variable, and the time to write then read the same bytes as plain
 * files, one per chunk (open/write/close, open/read/close), on every
 * core, with no format, no copy into chunk layout and no metadata.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
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

/* Chunk files are written and read on every core, as Ncz does: thread t
 * handles the chunks k with k % nthreads == t. */
typedef struct {
  const char *dir;
  char *data;
  char *copy;
  size_t chunk_bytes;
  size_t total_bytes;
  int writing;
  int index;
  int nthreads;
} FileJob;

static void *
file_thread (void *arg)
{
  FileJob *job = arg;
  char path[4096];

  for (size_t k = (size_t) job->index; k * job->chunk_bytes < job->total_bytes;
       k += (size_t) job->nthreads)
    {
      size_t len = job->total_bytes - k * job->chunk_bytes;
      int fd;
      if (len > job->chunk_bytes)
        len = job->chunk_bytes;
      snprintf (path, sizeof path, "%s/%zu", job->dir, k);
      if (job->writing)
        {
          fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
          if (fd < 0)
            fail (path);
          if (write (fd, job->data + k * job->chunk_bytes, len) != (ssize_t) len)
            fail (path);
        }
      else
        {
          fd = open (path, O_RDONLY);
          if (fd < 0)
            fail (path);
          if (read (fd, job->copy + k * job->chunk_bytes, len) != (ssize_t) len)
            fail (path);
        }
      close (fd);
    }
  return NULL;
}

static void
run_threads (const FileJob *job)
{
  pthread_t threads[64];
  FileJob jobs[64];
  int n = job->nthreads > 64 ? 64 : job->nthreads;

  for (int t = 0; t < n; t++)
    {
      jobs[t] = *job;
      jobs[t].index = t;
      jobs[t].nthreads = n;
      if (pthread_create (&threads[t], NULL, file_thread, &jobs[t]) != 0)
        fail ("pthread_create");
    }
  for (int t = 0; t < n; t++)
    pthread_join (threads[t], NULL);
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

    FileJob job = { dir, (char *) data, (char *) copy, chunk_bytes, total_bytes, 0, 0, 1 };
    long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu > 0 ? (int) ncpu : 1;

    job.nthreads = nthreads;
    job.writing = 1;
    t0 = bench_now ();
    run_threads (&job);
    t_write = bench_now () - t0;

    job.writing = 0;
    t0 = bench_now ();
    run_threads (&job);
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
