/* conc-worker.c: one party of the many-writers tests (test-concurrency.py;
 * tests/s3/test-s3-concurrency.py on S3)
 *
 *   conc-worker init URL                  creates the dataset below
 *   conc-worker MODE URL INDEX [BARRIER]   one writer: waits until the file
 *                                          BARRIER exists, then writes its part
 *   conc-worker check URL MODE N OKLIST    checks, for each writer in OKLIST
 *                                          (comma-separated indices, or "-"),
 *                                          that its part is stored
 *
 * The dataset: fixed dimensions time = 64, y = 16, x = 16, row = 256 and
 * col = 16, an unlimited dimension utime, and
 *   float v(time, y, x)   chunks 1 x 16 x 16    "slices": writer i writes
 *                                               time slices 8i .. 8i+7
 *   float s(row, col)     chunks 64 x 16        "bands": writer i writes
 *                                               rows 32i .. 32i+31, half a
 *                                               chunk: two writers share each
 *   float u(utime, y, x)  chunks 1 x 16 x 16    "append": writer i writes
 *                                               utime slices 8i .. 8i+7
 *   "attr": writer i adds the global attribute writer_i = i.
 *   "region": as "append", but opened with NCZ_OPEN_WRITE_DATA after
 *   "conc-worker setlen URL 64" set utime's length (xarray's region=).
 * Value of element (k, ...) written by writer i: 1000 i + k + 1. Unwritten
 * elements hold the fill value -1.
 *
 * A writer prints "ok" and exits 0 when its close succeeded, or prints
 * the error and exits 1. check exits 1 if a writer that succeeded lost
 * anything, printing what.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_SLICES 8
#define NY 16
#define NX 16
#define BAND_ROWS 32
#define NCOL 16

static int
fail (const char *what, GError *error)
{
  printf ("error: %s: %s\n", what, error != NULL ? error->message : "failed");
  fflush (stdout);
  return 1;
}

static float
value (int writer, guint64 k)
{
  return (float) (1000 * writer + (int) k + 1);
}

static int
init (const char *url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *d3[3], *d2[2], *u3[3];
  NczVariable *v, *s, *u;
  float fill = -1.0f;
  g_autoptr(GBytes) fb = g_bytes_new (&fill, sizeof fill);
  const guint64 c3[3] = { 1, NY, NX }, c2[2] = { 64, NCOL };

  if (ds == NULL)
    return fail ("create", error);
  root = ncz_dataset_get_root_group (ds);
  if ((d3[0] = ncz_group_add_dimension (root, "time", 64, FALSE, &error)) == NULL ||
      (d3[1] = ncz_group_add_dimension (root, "y", NY, FALSE, &error)) == NULL ||
      (d3[2] = ncz_group_add_dimension (root, "x", NX, FALSE, &error)) == NULL ||
      (d2[0] = ncz_group_add_dimension (root, "row", 8 * BAND_ROWS, FALSE, &error)) == NULL ||
      (d2[1] = ncz_group_add_dimension (root, "col", NCOL, FALSE, &error)) == NULL ||
      (u3[0] = ncz_group_add_dimension (root, "utime", 0, TRUE, &error)) == NULL)
    return fail ("define", error);
  u3[1] = d3[1];
  u3[2] = d3[2];
  if ((v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 3, d3, &error)) == NULL ||
      !ncz_variable_set_chunk_sizes (v, c3, 3, &error) ||
      !ncz_variable_set_fill_value (v, fb, &error) ||
      (s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_FLOAT, 2, d2, &error)) == NULL ||
      !ncz_variable_set_chunk_sizes (s, c2, 2, &error) ||
      !ncz_variable_set_fill_value (s, fb, &error) ||
      (u = ncz_group_add_variable (root, "u", NCZ_DATA_TYPE_FLOAT, 3, u3, &error)) == NULL ||
      !ncz_variable_set_chunk_sizes (u, c3, 3, &error) ||
      !ncz_variable_set_fill_value (u, fb, &error))
    return fail ("define", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    return fail ("close", error);
  return 0;
}

static int
set_length (const char *url, guint64 length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);

  if (ds == NULL)
    return fail ("open", error);
  if (!ncz_dimension_set_length (ncz_group_get_dimension (ncz_dataset_get_root_group (ds),
                                                          "utime"), length, &error))
    return fail ("set length", error);
  if (!ncz_dataset_close (ds, NULL, &error))
    return fail ("close", error);
  return 0;
}

static void
wait_barrier (const char *path)
{
  gint64 end = g_get_monotonic_time () + 120 * G_TIME_SPAN_SECOND;

  while (path != NULL && !g_file_test (path, G_FILE_TEST_EXISTS) &&
         g_get_monotonic_time () < end)
    g_usleep (500);
}

static gboolean
write_slices (NczVariable *var, int writer, GError **error)
{
  float buf[NY * NX];

  for (guint64 k = 0; k < N_SLICES; k++)
    {
      guint64 t = (guint64) writer * N_SLICES + k;
      const guint64 start[3] = { t, 0, 0 }, count[3] = { 1, NY, NX };
      for (guint i = 0; i < NY * NX; i++)
        buf[i] = value (writer, t);
      if (!ncz_variable_write (var, start, 3, count, 3, NULL, 0, buf, sizeof buf, NULL, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_band (NczVariable *var, int writer, GError **error)
{
  float buf[BAND_ROWS * NCOL];
  const guint64 start[2] = { (guint64) writer * BAND_ROWS, 0 }, count[2] = { BAND_ROWS, NCOL };

  for (guint r = 0; r < BAND_ROWS; r++)
    for (guint c = 0; c < NCOL; c++)
      buf[r * NCOL + c] = value (writer, start[0] + r);
  return ncz_variable_write (var, start, 2, count, 2, NULL, 0, buf, sizeof buf, NULL, error);
}

static int
writer (const char *mode, const char *url, int index, const char *barrier)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root;
  gboolean ok = TRUE;

  wait_barrier (barrier);
  ds = ncz_dataset_open (url, strcmp (mode, "region") == 0 ? NCZ_OPEN_WRITE_DATA : NCZ_OPEN_WRITE,
                         NULL, &error);
  if (ds == NULL)
    return fail ("open", error);
  root = ncz_dataset_get_root_group (ds);
  if (strcmp (mode, "slices") == 0)
    ok = write_slices (ncz_group_get_variable (root, "v"), index, &error);
  else if (strcmp (mode, "append") == 0 || strcmp (mode, "region") == 0)
    ok = write_slices (ncz_group_get_variable (root, "u"), index, &error);
  else if (strcmp (mode, "bands") == 0)
    ok = write_band (ncz_group_get_variable (root, "s"), index, &error);
  else if (strcmp (mode, "attr") == 0)
    {
      g_autofree char *name = g_strdup_printf ("writer_%d", index);
      gint32 v = index;
      g_autoptr(NczAttribute) a = ncz_attribute_new_values (name, NCZ_DATA_TYPE_INT, &v, 1,
                                                             &error);
      ok = a != NULL && ncz_group_set_attribute (root, a, &error);
    }
  else
    {
      printf ("error: unknown mode %s\n", mode);
      return 2;
    }
  if (!ok)
    {
      ncz_dataset_discard (ds);
      return fail ("write", error);
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    return fail ("close", error);
  printf ("ok\n");
  return 0;
}

static gboolean
check_block (NczVariable *var, guint64 first, guint64 n_rows, guint64 row_len, int writer,
             GString *problems)
{
  g_autoptr(GError) error = NULL;
  guint rank = ncz_variable_get_n_dimensions (var);
  g_autofree guint64 *start = g_new0 (guint64, rank);
  g_autofree guint64 *count = g_new0 (guint64, rank);
  g_autofree float *buf = g_new (float, n_rows * row_len);
  g_autoptr(GPtrArray) dims = ncz_variable_get_dimensions (var);
  guint64 len0 = ncz_dimension_get_length (g_ptr_array_index (dims, 0));

  if (first + n_rows > len0)
    {
      g_string_append_printf (problems, "writer %d: %s has %" G_GUINT64_FORMAT
                              " along its first dimension, its part ends at %" G_GUINT64_FORMAT
                              "\n", writer, ncz_variable_get_name (var), len0, first + n_rows);
      return FALSE;
    }
  start[0] = first;
  count[0] = n_rows;
  for (guint i = 1; i < rank; i++)
    count[i] = ncz_dimension_get_length (g_ptr_array_index (dims, i));
  if (!ncz_variable_read (var, start, rank, count, rank, NULL, 0, buf,
                          n_rows * row_len * sizeof (float), NULL, &error))
    {
      g_string_append_printf (problems, "writer %d: reading %s: %s\n", writer,
                              ncz_variable_get_name (var), error->message);
      return FALSE;
    }
  for (guint64 r = 0; r < n_rows; r++)
    for (guint64 c = 0; c < row_len; c++)
      if (buf[r * row_len + c] != value (writer, first + r))
        {
          g_string_append_printf (problems, "writer %d: %s[%" G_GUINT64_FORMAT "] holds %g, "
                                  "not %g\n", writer, ncz_variable_get_name (var), first + r,
                                  buf[r * row_len + c], value (writer, first + r));
          return FALSE;
        }
  return TRUE;
}

static int
check (const char *url, const char *mode, const char *ok_list)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_auto(GStrv) oks = NULL;
  g_autoptr(GString) problems = g_string_new (NULL);
  NczGroup *root;

  if (ds == NULL)
    return fail ("open", error);
  root = ncz_dataset_get_root_group (ds);
  oks = g_strsplit (strcmp (ok_list, "-") == 0 ? "" : ok_list, ",", -1);
  for (guint i = 0; oks[i] != NULL; i++)
    {
      int w = atoi (oks[i]);
      if (strcmp (mode, "slices") == 0)
        check_block (ncz_group_get_variable (root, "v"), (guint64) w * N_SLICES, N_SLICES,
                     NY * NX, w, problems);
      else if (strcmp (mode, "append") == 0 || strcmp (mode, "region") == 0)
        check_block (ncz_group_get_variable (root, "u"), (guint64) w * N_SLICES, N_SLICES,
                     NY * NX, w, problems);
      else if (strcmp (mode, "bands") == 0)
        check_block (ncz_group_get_variable (root, "s"), (guint64) w * BAND_ROWS, BAND_ROWS,
                     NCOL, w, problems);
      else if (strcmp (mode, "attr") == 0)
        {
          g_autofree char *name = g_strdup_printf ("writer_%d", w);
          NczAttribute *a = ncz_group_get_attribute (root, name);
          if (a == NULL || ncz_attribute_get_int64 (a, 0, NULL) != w)
            g_string_append_printf (problems, "writer %d: global attribute %s is %s\n", w, name,
                                    a == NULL ? "missing" : "wrong");
        }
    }
  if (problems->len > 0)
    {
      printf ("%s", problems->str);
      return 1;
    }
  printf ("ok\n");
  return 0;
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (argc >= 3 && strcmp (argv[1], "init") == 0)
    return init (argv[2]);
  if (argc >= 4 && strcmp (argv[1], "setlen") == 0)
    return set_length (argv[2], g_ascii_strtoull (argv[3], NULL, 10));
  if (argc >= 5 && strcmp (argv[1], "check") == 0)
    return check (argv[2], argv[3], argc >= 6 ? argv[5] : "-");
  if (argc >= 4)
    return writer (argv[1], argv[2], atoi (argv[3]), argc >= 5 ? argv[4] : NULL);
  fprintf (stderr, "usage: conc-worker init URL | MODE URL INDEX [BARRIER] | "
                   "check URL MODE N OKLIST\n");
  return 2;
}
