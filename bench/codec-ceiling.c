/* codec-ceiling.c: the raw codec throughput of the codec cases
 *
 * Usage: codec-ceiling --codec=zstd|blosc-lz4|zlib [--shape=128,512,512]
 *                      [--chunks=32,128,128] [--passes=3]
 *
 * What the compression library itself does on this machine with the data
 * of the codec cases (bench_smooth_fill): the variable is cut into its
 * chunks (not timed), then every chunk is compressed, and every chunk
 * decompressed, by the library called directly (libzstd ZSTD_compressCCtx
 * level 1; c-blosc blosc_compress_ctx lz4 clevel 5 byte shuffle, one
 * internal thread; zlib compress2 level 1), on all cores: each thread
 * takes the next chunk until none is left, as a chunk engine does. No
 * format, no metadata, no store. The decoded bytes are checked.
 *
 * Prints one JSON line: {"tool": "codec-ceiling", "codec": …, "bytes": …,
 * "compressed_bytes": …, "encode_s": …, "decode_s": …, "threads": …}, the
 * times being the best of --passes passes.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "bench-common.h"

#ifdef BENCH_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef BENCH_HAVE_BLOSC
#include <blosc.h>
#endif
#ifdef BENCH_HAVE_ZLIB
#include <zlib.h>
#endif

typedef enum {
  CODEC_ZSTD,
  CODEC_BLOSC_LZ4,
  CODEC_ZLIB,
} Codec;

typedef struct {
  Codec codec;
  size_t n_chunks;
  size_t chunk_bytes;
  size_t capacity;            /* bytes reserved for one compressed chunk */
  unsigned char **plain;      /* the chunks */
  unsigned char **packed;     /* their compressed form */
  size_t *packed_len;
  unsigned char **unpacked;   /* decompressed again */
  atomic_size_t next;
  atomic_int failed;
  int encoding;
} Work;

static void
fail (const char *what)
{
  fprintf (stderr, "codec-ceiling: %s\n", what);
  exit (1);
}

static size_t
bound (Codec codec, size_t n)
{
  switch (codec)
    {
#ifdef BENCH_HAVE_ZSTD
    case CODEC_ZSTD:
      return ZSTD_compressBound (n);
#endif
#ifdef BENCH_HAVE_BLOSC
    case CODEC_BLOSC_LZ4:
      return n + BLOSC_MAX_OVERHEAD;
#endif
#ifdef BENCH_HAVE_ZLIB
    case CODEC_ZLIB:
      return compressBound ((uLong) n);
#endif
    default:
      fail ("codec not built in");
    }
  return 0;
}

static void *
worker (void *arg)
{
  Work *w = arg;
#ifdef BENCH_HAVE_ZSTD
  ZSTD_CCtx *cctx = w->codec == CODEC_ZSTD ? ZSTD_createCCtx () : NULL;
  ZSTD_DCtx *dctx = w->codec == CODEC_ZSTD ? ZSTD_createDCtx () : NULL;
#endif

  for (;;)
    {
      size_t k = atomic_fetch_add (&w->next, 1);
      int ok = 1;

      if (k >= w->n_chunks)
        break;
      switch (w->codec)
        {
#ifdef BENCH_HAVE_ZSTD
        case CODEC_ZSTD:
          if (w->encoding)
            {
              size_t r = ZSTD_compressCCtx (cctx, w->packed[k], w->capacity, w->plain[k],
                                            w->chunk_bytes, 1);
              ok = !ZSTD_isError (r);
              w->packed_len[k] = r;
            }
          else
            {
              size_t r = ZSTD_decompressDCtx (dctx, w->unpacked[k], w->chunk_bytes,
                                              w->packed[k], w->packed_len[k]);
              ok = !ZSTD_isError (r) && r == w->chunk_bytes;
            }
          break;
#endif
#ifdef BENCH_HAVE_BLOSC
        case CODEC_BLOSC_LZ4:
          if (w->encoding)
            {
              int r = blosc_compress_ctx (5, BLOSC_SHUFFLE, sizeof (float), w->chunk_bytes,
                                          w->plain[k], w->packed[k], w->capacity, "lz4", 0, 1);
              ok = r > 0;
              w->packed_len[k] = ok ? (size_t) r : 0;
            }
          else
            {
              int r = blosc_decompress_ctx (w->packed[k], w->unpacked[k], w->chunk_bytes, 1);
              ok = r == (int) w->chunk_bytes;
            }
          break;
#endif
#ifdef BENCH_HAVE_ZLIB
        case CODEC_ZLIB:
          if (w->encoding)
            {
              uLongf len = (uLongf) w->capacity;
              ok = compress2 (w->packed[k], &len, w->plain[k], (uLong) w->chunk_bytes, 1) == Z_OK;
              w->packed_len[k] = len;
            }
          else
            {
              uLongf len = (uLongf) w->chunk_bytes;
              ok = uncompress (w->unpacked[k], &len, w->packed[k], (uLong) w->packed_len[k]) == Z_OK
                   && len == w->chunk_bytes;
            }
          break;
#endif
        default:
          ok = 0;
        }
      if (!ok)
        atomic_store (&w->failed, 1);
    }
#ifdef BENCH_HAVE_ZSTD
  ZSTD_freeCCtx (cctx);
  ZSTD_freeDCtx (dctx);
#endif
  return NULL;
}

static double
run_pass (Work *w, int encoding, int nthreads)
{
  pthread_t threads[64];
  double t0;

  w->encoding = encoding;
  atomic_store (&w->next, 0);
  t0 = bench_now ();
  for (int t = 0; t < nthreads; t++)
    if (pthread_create (&threads[t], NULL, worker, w) != 0)
      fail ("pthread_create failed");
  for (int t = 0; t < nthreads; t++)
    pthread_join (threads[t], NULL);
  t0 = bench_now () - t0;
  if (atomic_load (&w->failed))
    fail (encoding ? "compression failed" : "decompression failed");
  return t0;
}

int
main (int argc, char **argv)
{
  const char *name = bench_arg (argc, argv, "--codec", NULL);
  size_t shape[3], chunks[3], grid[3], total = 1, chunk_elems = 1, packed_total = 0;
  int passes = atoi (bench_arg (argc, argv, "--passes", "3"));
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int nthreads = ncpu > 0 ? (ncpu > 64 ? 64 : (int) ncpu) : 1;
  double t_encode = 1e30, t_decode = 1e30;
  float *data;
  Work w = { 0 };

  if (name == NULL ||
      bench_parse_sizes (bench_arg (argc, argv, "--shape", "128,512,512"), shape, 3) != 3 ||
      bench_parse_sizes (bench_arg (argc, argv, "--chunks", "32,128,128"), chunks, 3) != 3)
    {
      fprintf (stderr, "usage: codec-ceiling --codec=zstd|blosc-lz4|zlib [--shape=a,b,c] "
               "[--chunks=a,b,c] [--passes=N]\n");
      return 2;
    }
  if (strcmp (name, "zstd") == 0)
    w.codec = CODEC_ZSTD;
  else if (strcmp (name, "blosc-lz4") == 0)
    w.codec = CODEC_BLOSC_LZ4;
  else if (strcmp (name, "zlib") == 0)
    w.codec = CODEC_ZLIB;
  else
    fail ("unknown codec (zstd, blosc-lz4, zlib)");
  if (passes < 1)
    passes = 1;

  for (int i = 0; i < 3; i++)
    {
      total *= shape[i];
      chunk_elems *= chunks[i];
      grid[i] = (shape[i] + chunks[i] - 1) / chunks[i];
    }
  data = malloc (total * sizeof (float));
  if (data == NULL)
    fail ("out of memory");
  bench_smooth_fill (data, shape);

  /* Cut the variable into full-size chunks, as a Zarr store holds them
   * (the part of an edge chunk outside the variable is zero). */
  w.n_chunks = grid[0] * grid[1] * grid[2];
  w.chunk_bytes = chunk_elems * sizeof (float);
  w.capacity = bound (w.codec, w.chunk_bytes);
  w.plain = calloc (w.n_chunks, sizeof (void *));
  w.packed = calloc (w.n_chunks, sizeof (void *));
  w.unpacked = calloc (w.n_chunks, sizeof (void *));
  w.packed_len = calloc (w.n_chunks, sizeof (size_t));
  if (w.plain == NULL || w.packed == NULL || w.unpacked == NULL || w.packed_len == NULL)
    fail ("out of memory");
  for (size_t k = 0; k < w.n_chunks; k++)
    {
      size_t c0 = k / (grid[1] * grid[2]), c1 = (k / grid[2]) % grid[1], c2 = k % grid[2];
      float *chunk = calloc (chunk_elems, sizeof (float));

      w.packed[k] = malloc (w.capacity);
      w.unpacked[k] = malloc (w.chunk_bytes);
      if (chunk == NULL || w.packed[k] == NULL || w.unpacked[k] == NULL)
        fail ("out of memory");
      for (size_t a = 0; a < chunks[0] && c0 * chunks[0] + a < shape[0]; a++)
        for (size_t b = 0; b < chunks[1] && c1 * chunks[1] + b < shape[1]; b++)
          {
            size_t z = c0 * chunks[0] + a, y = c1 * chunks[1] + b, x = c2 * chunks[2];
            size_t n = shape[2] - x < chunks[2] ? shape[2] - x : chunks[2];
            memcpy (chunk + (a * chunks[1] + b) * chunks[2],
                    data + (z * shape[1] + y) * shape[2] + x, n * sizeof (float));
          }
      w.plain[k] = (unsigned char *) chunk;
      memset (w.unpacked[k], 0x55, w.chunk_bytes);   /* touch the pages */
    }
  free (data);

#ifdef BENCH_HAVE_BLOSC
  blosc_init ();
#endif
  for (int p = 0; p < passes; p++)
    {
      double t = run_pass (&w, 1, nthreads);
      if (t < t_encode)
        t_encode = t;
      t = run_pass (&w, 0, nthreads);
      if (t < t_decode)
        t_decode = t;
    }
#ifdef BENCH_HAVE_BLOSC
  blosc_destroy ();
#endif

  for (size_t k = 0; k < w.n_chunks; k++)
    {
      if (memcmp (w.plain[k], w.unpacked[k], w.chunk_bytes) != 0)
        fail ("decompressed bytes differ");
      packed_total += w.packed_len[k];
      free (w.plain[k]);
      free (w.packed[k]);
      free (w.unpacked[k]);
    }

  printf ("{\"tool\": \"codec-ceiling\", \"codec\": \"%s\", \"bytes\": %zu, "
          "\"chunk_bytes\": %zu, \"chunks\": %zu, \"compressed_bytes\": %zu, "
          "\"encode_s\": %.6f, \"decode_s\": %.6f, \"threads\": %d, \"peak_rss_kib\": %ld}\n",
          name, total * sizeof (float), w.chunk_bytes, w.n_chunks, packed_total,
          t_encode, t_decode, nthreads, bench_peak_rss_kib ());
  free (w.plain);
  free (w.packed);
  free (w.unpacked);
  free (w.packed_len);
  return 0;
}
