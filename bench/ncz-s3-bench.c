/* ncz-s3-bench.c: the benchmark cases with Ncz on S3
 *
 * Usage: ncz-s3-bench data --url=BASE [--shape=128,512,512]
 *                          [--chunks=32,128,128] [--codec=none|zstd]
 *        ncz-s3-bench meta --url=BASE [--meta=20,20,10]
 *                          [--consolidated=true|false] [--open-only]
 *
 * BASE is the dataset's location without a fragment, e.g.
 * http://127.0.0.1:PORT/BUCKET/ncz-data; the S3 store is chosen with
 * #mode=nczarr,s3 (#mode=zarr,s3&consolidated=true for --consolidated=true,
 * #mode=nczarr,s3&consolidated=false for --consolidated=false, both when
 * the dataset is created and when it is opened). The data case is
 * ncz-bench's: one 3-D float variable written with one call, closed, then
 * opened, read whole with one call and closed (uncompressed values
 * bench_value, or bench_smooth_fill through zstd level 1). The meta case
 * creates G groups of V double variables with A attributes each, then
 * opens and lists everything with the attribute values (--open-only: only
 * opens and lists what an earlier run left at BASE). Beside each time
 * it prints the store's `n-requests` (HTTP requests, retries included)
 * and `max-in-flight` (peak concurrent requests), read with
 * g_object_get () from ncz_dataset_get_store (). One JSON line.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include "bench-common.h"

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "ncz-s3-bench: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

typedef struct {
  guint64 requests;
  guint in_flight;
} Counts;

/* The counts of a dataset's store; taken after close (the caller holds
 * a reference to the store). */
static Counts
store_counts (NczStore *store)
{
  Counts c = { 0, 0 };

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (store), "n-requests") == NULL ||
      g_object_class_find_property (G_OBJECT_GET_CLASS (store), "max-in-flight") == NULL)
    die ("the store has no n-requests / max-in-flight properties", NULL);
  g_object_get (store, "n-requests", &c.requests, "max-in-flight", &c.in_flight, NULL);
  return c;
}

static int
run_data (const char *base, int argc, char **argv)
{
  static const char *const names[3] = { "z", "y", "x" };
  GError *error = NULL;
  size_t shape[3], chunks[3], total = 1;
  guint64 start[3] = { 0, 0, 0 }, count[3], csize[3];
  NczDimension *dims[3];
  NczDataset *ds;
  NczStore *store;
  NczGroup *root;
  NczVariable *var;
  float *data, *expected = NULL;
  double t0, t_write, t_read;
  const char *codec = bench_arg (argc, argv, "--codec", "none");
  char *url;
  Counts cw, cr;

  if (bench_parse_sizes (bench_arg (argc, argv, "--shape", "128,512,512"), shape, 3) != 3 ||
      bench_parse_sizes (bench_arg (argc, argv, "--chunks", "32,128,128"), chunks, 3) != 3)
    return 2;
  if (strcmp (codec, "none") != 0 && strcmp (codec, "zstd") != 0)
    {
      fprintf (stderr, "ncz-s3-bench: --codec is none or zstd\n");
      return 2;
    }
  for (int i = 0; i < 3; i++)
    {
      total *= shape[i];
      count[i] = shape[i];
      csize[i] = chunks[i];
    }
  data = g_malloc (total * sizeof (float));
  if (strcmp (codec, "none") == 0)
    for (size_t i = 0; i < total; i++)
      data[i] = bench_value (i);
  else
    {
      bench_smooth_fill (data, shape);
      expected = g_memdup2 (data, total * sizeof (float));
    }
  url = g_strdup_printf ("%s#mode=nczarr,s3", base);

  t0 = bench_now ();
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  store = g_object_ref (ncz_dataset_get_store (ds));
  root = ncz_dataset_get_root_group (ds);
  for (int i = 0; i < 3; i++)
    if ((dims[i] = ncz_group_add_dimension (root, names[i], shape[i], FALSE, &error)) == NULL)
      die (names[i], error);
  var = ncz_group_add_variable (root, "data", NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  if (var == NULL || !ncz_variable_set_chunk_sizes (var, csize, 3, &error))
    die ("data", error);
  if (strcmp (codec, "zstd") == 0 && !ncz_variable_set_zstandard (var, 1, &error))
    die (codec, error);
  if (!ncz_variable_write (var, start, 3, count, 3, NULL, 0, data, total * sizeof (float),
                           NULL, &error))
    die ("write", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_write = bench_now () - t0;
  cw = store_counts (store);
  g_object_unref (store);

  memset (data, 0, total * sizeof (float));
  t0 = bench_now ();
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (url, error);
  store = g_object_ref (ncz_dataset_get_store (ds));
  var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "data");
  if (var == NULL)
    die ("no variable 'data'", NULL);
  if (!ncz_variable_read (var, start, 3, count, 3, NULL, 0, data, total * sizeof (float),
                          NULL, &error))
    die ("read", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_read = bench_now () - t0;
  cr = store_counts (store);
  g_object_unref (store);

  if (expected != NULL)
    {
      if (memcmp (data, expected, total * sizeof (float)) != 0)
        die ("read back different values", NULL);
    }
  else
    for (size_t i = 0; i < total; i++)
      if (data[i] != bench_value (i))
        {
          fprintf (stderr, "ncz-s3-bench: wrong value at %zu\n", i);
          return 1;
        }
  printf ("{\"tool\": \"ncz\", \"case\": \"data\", \"codec\": \"%s\", \"bytes\": %zu, "
          "\"write_s\": %.6f, \"write_requests\": %" G_GUINT64_FORMAT ", "
          "\"write_in_flight\": %u, \"read_s\": %.6f, \"read_requests\": %" G_GUINT64_FORMAT
          ", \"read_in_flight\": %u, \"peak_rss_kib\": %ld}\n",
          codec, total * sizeof (float), t_write, cw.requests, cw.in_flight,
          t_read, cr.requests, cr.in_flight, bench_peak_rss_kib ());
  g_free (data);
  g_free (expected);
  g_free (url);
  return 0;
}

static void
add_attributes (GPtrArray *attrs, long *n_attrs)
{
  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      gsize n = 0;

      (void) ncz_attribute_get_name (a);
      (void) ncz_attribute_peek_values (a, &n);
      (*n_attrs)++;
    }
}

static int
run_meta (const char *base, int argc, char **argv)
{
  GError *error = NULL;
  size_t m[3];
  char name[64];
  char *url, *open_url;
  NczDataset *ds;
  NczStore *store;
  NczGroup *root;
  NczDimension *dim;
  double t0, t_create, t_open;
  long n_groups = 0, n_vars = 0, n_attrs = 0;
  const char *consolidated = bench_arg (argc, argv, "--consolidated", NULL);
  gboolean open_only = FALSE;
  Counts cc = { 0, 0 }, co;

  for (int i = 2; i < argc; i++)
    if (strcmp (argv[i], "--open-only") == 0)
      open_only = TRUE;

  if (bench_parse_sizes (bench_arg (argc, argv, "--meta", "20,20,10"), m, 3) != 3)
    return 2;
  if (consolidated != NULL && strcmp (consolidated, "true") != 0 &&
      strcmp (consolidated, "false") != 0)
    {
      fprintf (stderr, "ncz-s3-bench: --consolidated must be true or false\n");
      return 2;
    }
  /* --consolidated=true: plain Zarr with .zmetadata; false: NCZarr
   * without it (on S3 it is written by default), created and opened so */
  if (consolidated == NULL)
    url = g_strdup_printf ("%s#mode=nczarr,s3", base);
  else
    url = g_strdup_printf ("%s#mode=%s,s3&consolidated=%s", base,
                           strcmp (consolidated, "true") == 0 ? "zarr" : "nczarr", consolidated);
  open_url = g_strdup (url);

  if (open_only)
    {
      t_create = 0.0;
      goto open;
    }
  t0 = bench_now ();
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  store = g_object_ref (ncz_dataset_get_store (ds));
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "n", 10, FALSE, &error);
  if (dim == NULL)
    die ("dimension", error);
  for (size_t g = 0; g < m[0]; g++)
    {
      NczGroup *grp;

      g_snprintf (name, sizeof name, "g%zu", g);
      if ((grp = ncz_group_add_group (root, name, &error)) == NULL)
        die (name, error);
      for (size_t v = 0; v < m[1]; v++)
        {
          NczVariable *var;

          g_snprintf (name, sizeof name, "v%zu", v);
          var = ncz_group_add_variable (grp, name, NCZ_DATA_TYPE_DOUBLE, 1, &dim, &error);
          if (var == NULL)
            die (name, error);
          for (size_t a = 0; a < m[2]; a++)
            {
              NczAttribute *attr;

              g_snprintf (name, sizeof name, "a%zu", a);
              if (a % 2 == 0)
                {
                  double value = (double) (g * 1000 + v * 10 + a);
                  attr = ncz_attribute_new_values (name, NCZ_DATA_TYPE_DOUBLE, &value, 1,
                                                   &error);
                }
              else
                attr = ncz_attribute_new_text (name, "some text.", -1);
              if (attr == NULL || !ncz_variable_set_attribute (var, attr, &error))
                die (name, error);
              g_object_unref (attr);
            }
        }
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_create = bench_now () - t0;
  cc = store_counts (store);
  g_object_unref (store);

open:
  t0 = bench_now ();
  ds = ncz_dataset_open (open_url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (open_url, error);
  store = g_object_ref (ncz_dataset_get_store (ds));
  {
    GPtrArray *groups = ncz_group_get_groups (ncz_dataset_get_root_group (ds));

    for (guint g = 0; g < groups->len; g++)
      {
        GPtrArray *vars = ncz_group_get_variables (g_ptr_array_index (groups, g));

        n_groups++;
        for (guint v = 0; v < vars->len; v++)
          {
            GPtrArray *attrs = ncz_variable_get_attributes (g_ptr_array_index (vars, v));

            n_vars++;
            add_attributes (attrs, &n_attrs);
            g_ptr_array_unref (attrs);
          }
        g_ptr_array_unref (vars);
      }
    g_ptr_array_unref (groups);
  }
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  t_open = bench_now () - t0;
  co = store_counts (store);
  g_object_unref (store);
  if ((size_t) n_vars != m[0] * m[1] || (size_t) n_attrs != m[0] * m[1] * m[2])
    die ("the open found other groups, variables or attributes than were written", NULL);

  printf ("{\"tool\": \"ncz\", \"case\": \"%s\", \"groups\": %ld, \"variables\": %ld, "
          "\"attributes\": %ld, \"create_s\": %.6f, \"create_requests\": %" G_GUINT64_FORMAT
          ", \"create_in_flight\": %u, \"open_s\": %.6f, \"open_requests\": %"
          G_GUINT64_FORMAT ", \"open_in_flight\": %u, \"peak_rss_kib\": %ld}\n",
          consolidated ? "meta-consolidated" : "meta", n_groups, n_vars, n_attrs,
          t_create, cc.requests, cc.in_flight, t_open, co.requests, co.in_flight,
          bench_peak_rss_kib ());
  g_free (url);
  g_free (open_url);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *base = bench_arg (argc, argv, "--url", NULL);

  if (argc < 2 || base == NULL)
    {
      fprintf (stderr, "usage: ncz-s3-bench {data|meta} --url=BASE [options]\n");
      return 2;
    }
  if (strcmp (argv[1], "data") == 0)
    return run_data (base, argc, argv);
  if (strcmp (argv[1], "meta") == 0)
    return run_meta (base, argc, argv);
  fprintf (stderr, "ncz-s3-bench: unknown case %s\n", argv[1]);
  return 2;
}
