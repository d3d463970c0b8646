/* ncz-writers-bench.c: the many-writers case of the bench
 *
 * Usage: ncz-writers-bench init URL [--shape=64,512,512] [--chunks=1,512,512]
 *        ncz-writers-bench write URL --index=I --writers=N --mode=aligned|partial
 *                          [--barrier=PATH]
 *        ncz-writers-bench check URL
 *        ncz-writers-bench locks URL [--count=20000]
 *
 * init creates the dataset at URL: dimensions time, y, x of --shape and
 * one float variable "data" in chunks of --chunks, with the fill value
 * -9999 (no value written is ever that).
 *
 * write is one of N writers: it opens the dataset (NCZ_OPEN_WRITE),
 * makes its values, prints "ready" when given --barrier, waits until the
 * file PATH exists, then writes the time slices t with t mod N = I, one
 * ncz_variable_write() of 1 x Y x X per slice, and closes. --mode says
 * what the dataset's chunks must be, so the case measures what it says:
 * "aligned", chunks of 1 x Y x X (each write a whole chunk: no lock);
 * "partial", chunks of 2 x Y x X (each write half a chunk, read, modified
 * and written under the chunk's lock; from N = 2 on, two writers share
 * each chunk). Element (t, y, x) gets bench_value of its flat index.
 * Prints one JSON line: the seconds from the barrier to the end of the
 * close ("write_s"), the open and the close alone, the bytes written and,
 * where the store counts them (S3), its HTTP requests, open included.
 *
 * check opens the dataset read-only, reads it whole and compares every
 * element with bench_value: exits 1, printing the first wrong element,
 * when any differs (a lost update or a slice not written).
 *
 * locks takes and releases the lock of one chunk of "data" --count times
 * (ncz_store_lock_key / ncz_store_unlock_key on the store of the dataset
 * opened for writing, uncontended): the cost of the lock alone, in
 * microseconds per pair.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include "bench-common.h"

#define FILL_VALUE (-9999.0f)
#define VARIABLE "data"
/* the first chunk's key: its lock slot is as good as any */
#define LOCK_KEY VARIABLE "/0.0.0"

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "ncz-writers-bench: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static int
run_init (const char *url, int argc, char **argv)
{
  static const char *const names[3] = { "time", "y", "x" };
  GError *error = NULL;
  size_t shape[3], chunks[3];
  guint64 csize[3];
  NczDimension *dims[3];
  NczDataset *ds;
  NczGroup *root;
  NczVariable *var;
  float fill = FILL_VALUE;
  GBytes *fill_bytes;
  char default_chunks[64];
  double t0;

  if (bench_parse_sizes (bench_arg (argc, argv, "--shape", "64,512,512"), shape, 3) != 3)
    return 2;
  g_snprintf (default_chunks, sizeof default_chunks, "1,%zu,%zu", shape[1], shape[2]);
  if (bench_parse_sizes (bench_arg (argc, argv, "--chunks", default_chunks), chunks, 3) != 3)
    return 2;
  for (int i = 0; i < 3; i++)
    csize[i] = chunks[i];

  t0 = bench_now ();
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  root = ncz_dataset_get_root_group (ds);
  for (int i = 0; i < 3; i++)
    if ((dims[i] = ncz_group_add_dimension (root, names[i], shape[i], FALSE, &error)) == NULL)
      die (names[i], error);
  fill_bytes = g_bytes_new (&fill, sizeof fill);
  var = ncz_group_add_variable (root, VARIABLE, NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  if (var == NULL || !ncz_variable_set_chunk_sizes (var, csize, 3, &error) ||
      !ncz_variable_set_fill_value (var, fill_bytes, &error))
    die (VARIABLE, error);
  g_bytes_unref (fill_bytes);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  printf ("{\"tool\": \"ncz\", \"case\": \"writers-init\", \"create_s\": %.6f}\n",
          bench_now () - t0);
  return 0;
}

/* The variable's shape; fails unless it is 3-D. */
static void
get_shape (NczVariable *var, guint64 shape[3])
{
  guint n = 0;
  guint64 *s = ncz_variable_get_shape (var, &n);

  if (n != 3)
    die ("variable " VARIABLE " is not 3-D", NULL);
  memcpy (shape, s, 3 * sizeof (guint64));
  g_free (s);
}

static void
wait_barrier (const char *path)
{
  double end = bench_now () + 600.0;

  while (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      if (bench_now () > end)
        die ("the barrier file never appeared", NULL);
      g_usleep (200);
    }
}

static int
run_write (const char *url, int argc, char **argv)
{
  GError *error = NULL;
  const char *mode = bench_arg (argc, argv, "--mode", "aligned");
  const char *barrier = bench_arg (argc, argv, "--barrier", NULL);
  long index = strtol (bench_arg (argc, argv, "--index", "0"), NULL, 10);
  long writers = strtol (bench_arg (argc, argv, "--writers", "1"), NULL, 10);
  guint64 shape[3], want_chunk0, slice, n_slices = 0;
  const guint64 *chunks;
  guint n_chunk_dims = 0;
  NczDataset *ds;
  NczVariable *var;
  NczStore *store;
  char *requests = NULL;
  float *data;
  double t0, t_open, t_barrier, t_close, close_start;

  if (writers < 1 || index < 0 || index >= writers)
    {
      fprintf (stderr, "ncz-writers-bench: --index must be in [0, --writers)\n");
      return 2;
    }
  if (strcmp (mode, "aligned") == 0)
    want_chunk0 = 1;
  else if (strcmp (mode, "partial") == 0)
    want_chunk0 = 2;
  else
    {
      fprintf (stderr, "ncz-writers-bench: --mode is aligned or partial\n");
      return 2;
    }

  t0 = bench_now ();
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  if (ds == NULL)
    die (url, error);
  t_open = bench_now () - t0;
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), VARIABLE);
  if (var == NULL)
    die ("no variable " VARIABLE, NULL);
  get_shape (var, shape);
  chunks = ncz_variable_get_chunk_sizes (var, &n_chunk_dims);
  /* the case measures what it says: whole chunks, or halves of chunks
   * of two time steps */
  if (chunks == NULL || n_chunk_dims != 3 || chunks[0] != want_chunk0 ||
      chunks[1] != shape[1] || chunks[2] != shape[2])
    {
      fprintf (stderr, "ncz-writers-bench: --mode=%s needs chunks of %" G_GUINT64_FORMAT
               " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "\n", mode, want_chunk0,
               shape[1], shape[2]);
      return 2;
    }

  /* this writer's values, made before the barrier */
  slice = shape[1] * shape[2];
  for (guint64 t = (guint64) index; t < shape[0]; t += (guint64) writers)
    n_slices++;
  data = g_malloc (MAX (n_slices, 1) * slice * sizeof (float));
  for (guint64 k = 0, t = (guint64) index; k < n_slices; k++, t += (guint64) writers)
    for (guint64 e = 0; e < slice; e++)
      data[k * slice + e] = bench_value (t * slice + e);

  if (barrier != NULL)
    {
      printf ("ready\n");
      fflush (stdout);
      wait_barrier (barrier);
    }
  t0 = bench_now ();
  for (guint64 k = 0, t = (guint64) index; k < n_slices; k++, t += (guint64) writers)
    {
      const guint64 start[3] = { t, 0, 0 }, count[3] = { 1, shape[1], shape[2] };

      if (!ncz_variable_write (var, start, 3, count, 3, NULL, 0, data + k * slice,
                               slice * sizeof (float), NULL, &error))
        die ("write", error);
    }
  close_start = bench_now ();
  store = g_object_ref (ncz_dataset_get_store (ds));
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_close = bench_now ();
  t_barrier = t_close - t0;
  t_close -= close_start;

  /* a remote store's HTTP requests (open included), where it counts them */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (store), "n-requests") != NULL)
    {
      guint64 n = 0;

      g_object_get (store, "n-requests", &n, NULL);
      requests = g_strdup_printf (", \"requests\": %" G_GUINT64_FORMAT, n);
    }
  g_object_unref (store);
  printf ("{\"tool\": \"ncz\", \"case\": \"writers\", \"mode\": \"%s\", \"index\": %ld, "
          "\"writers\": %ld, \"writes\": %" G_GUINT64_FORMAT ", \"bytes\": %" G_GUINT64_FORMAT
          ", \"open_s\": %.6f, \"write_s\": %.6f, \"close_s\": %.6f%s, \"peak_rss_kib\": %ld}\n",
          mode, index, writers, n_slices, n_slices * slice * (guint64) sizeof (float), t_open,
          t_barrier, t_close, requests != NULL ? requests : "", bench_peak_rss_kib ());
  g_free (requests);
  g_free (data);
  return 0;
}

static int
run_check (const char *url)
{
  GError *error = NULL;
  const guint64 start[3] = { 0, 0, 0 };
  guint64 shape[3], total, wrong = 0, unwritten = 0, first = 0;
  NczDataset *ds;
  NczVariable *var;
  float *data;
  double t0 = bench_now ();

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (url, error);
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), VARIABLE);
  if (var == NULL)
    die ("no variable " VARIABLE, NULL);
  get_shape (var, shape);
  total = shape[0] * shape[1] * shape[2];
  data = g_malloc (total * sizeof (float));
  if (!ncz_variable_read (var, start, 3, shape, 3, NULL, 0, data, total * sizeof (float),
                          NULL, &error))
    die ("read", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  for (guint64 i = 0; i < total; i++)
    if (data[i] != bench_value (i))
      {
        if (wrong++ == 0)
          first = i;
        if (data[i] == FILL_VALUE)
          unwritten++;
      }
  printf ("{\"tool\": \"ncz\", \"case\": \"writers-check\", \"bytes\": %" G_GUINT64_FORMAT
          ", \"wrong\": %" G_GUINT64_FORMAT ", \"unwritten\": %" G_GUINT64_FORMAT
          ", \"read_s\": %.6f}\n", total * (guint64) sizeof (float), wrong, unwritten,
          bench_now () - t0);
  if (wrong > 0)
    {
      guint64 t = first / (shape[1] * shape[2]);

      fprintf (stderr, "ncz-writers-bench: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
               " values wrong (%" G_GUINT64_FORMAT " still the fill value); the first at "
               "flat index %" G_GUINT64_FORMAT " (time %" G_GUINT64_FORMAT "): %g, not %g\n",
               wrong, total, unwritten, first, t, data[first], bench_value (first));
      g_free (data);
      return 1;
    }
  g_free (data);
  return 0;
}

static int
run_locks (const char *url, int argc, char **argv)
{
  GError *error = NULL;
  long count = strtol (bench_arg (argc, argv, "--count", "20000"), NULL, 10);
  NczDataset *ds;
  NczStore *store;
  gboolean has_locks;
  double t0, elapsed = 0.0;

  if (count < 1)
    return 2;
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  if (ds == NULL)
    die (url, error);
  store = ncz_dataset_get_store (ds);
  has_locks = ncz_store_has_locks (store);
  if (has_locks)
    {
      t0 = bench_now ();
      for (long i = 0; i < count; i++)
        {
          if (!ncz_store_lock_key (store, LOCK_KEY, 0, NULL, &error))
            die ("lock", error);
          ncz_store_unlock_key (store, LOCK_KEY);
        }
      elapsed = bench_now () - t0;
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  printf ("{\"tool\": \"ncz\", \"case\": \"writers-locks\", \"has_locks\": %s, "
          "\"count\": %ld, \"us_per_lock\": %.3f}\n", has_locks ? "true" : "false",
          has_locks ? count : 0, has_locks ? 1e6 * elapsed / (double) count : 0.0);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 3 || argv[2][0] == '-')
    {
      fprintf (stderr, "usage: ncz-writers-bench {init|write|check|locks} URL [options]\n");
      return 2;
    }
  if (strcmp (argv[1], "init") == 0)
    return run_init (argv[2], argc, argv);
  if (strcmp (argv[1], "write") == 0)
    return run_write (argv[2], argc, argv);
  if (strcmp (argv[1], "check") == 0)
    return run_check (argv[2]);
  if (strcmp (argv[1], "locks") == 0)
    return run_locks (argv[2], argc, argv);
  fprintf (stderr, "ncz-writers-bench: unknown command %s\n", argv[1]);
  return 2;
}
