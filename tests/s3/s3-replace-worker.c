/* s3-replace-worker.c: one party of the replacement tests
 * (test-s3-replace.py)
 *
 *   s3-replace-worker make URL VERSION    creates the dataset at URL (replacing
 *                                         what is there) as version VERSION
 *   s3-replace-worker check URL VERSION   exits 0 if the dataset at URL is
 *                                         version VERSION, whole
 *   s3-replace-worker read URL STOPFILE   reads the dataset whole, again and
 *                                         again, until the file STOPFILE exists
 *   s3-replace-worker write URL GOFILE    opens the dataset for writing, prints
 *                                         "opened", waits until the file GOFILE
 *                                         exists, writes the first chunk of a
 *                                         and closes
 *
 * The dataset of version V: the global attribute version = V, dimensions
 * n = 256 and m = 64,
 *   int a(n)     chunks of 16   a[i] = 100000 V + i
 *   group g:
 *   int b(m)     chunks of 16   b[j] = 100000 V + 50000 + j
 * so every element says which version it belongs to, and the metadata
 * (the attribute, read at open) says which version was opened.
 *
 * read prints one line per read: "whole V" when the metadata and every
 * element are of version V, "mix: ..." when they are not (what the
 * replacement contract forbids), "error: ..." when the open or a read
 * failed (with the message).
 *
 * make, check and write print "ok" and exit 0, or print "error: ..." and
 * exit 1.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NA 256
#define NB 64
#define CHUNK 16

static gint32
a_value (gint64 version, guint i)
{
  return (gint32) (100000 * version + i);
}

static gint32
b_value (gint64 version, guint j)
{
  return (gint32) (100000 * version + 50000 + j);
}

static int
fail (const char *what, GError *error)
{
  printf ("error: %s: %s\n", what, error != NULL ? error->message : "failed");
  fflush (stdout);
  return 1;
}

static void
wait_file (const char *path)
{
  gint64 end = g_get_monotonic_time () + 300 * G_TIME_SPAN_SECOND;

  while (!g_file_test (path, G_FILE_TEST_EXISTS) && g_get_monotonic_time () < end)
    g_usleep (2000);
}

static int
make (const char *url, gint64 version)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_autoptr(NczAttribute) attr = NULL;
  NczGroup *root, *g;
  NczDimension *n, *m;
  NczVariable *a, *b;
  const guint64 chunk[1] = { CHUNK };
  gint32 va[NA], vb[NB];
  gint32 v = (gint32) version;
  const guint64 start[1] = { 0 };
  guint64 count[1];

  if (ds == NULL)
    return fail ("create", error);
  root = ncz_dataset_get_root_group (ds);
  attr = ncz_attribute_new_values ("version", NCZ_DATA_TYPE_INT, &v, 1, &error);
  if (attr == NULL || !ncz_group_set_attribute (root, attr, &error) ||
      (n = ncz_group_add_dimension (root, "n", NA, FALSE, &error)) == NULL ||
      (m = ncz_group_add_dimension (root, "m", NB, FALSE, &error)) == NULL ||
      (a = ncz_group_add_variable (root, "a", NCZ_DATA_TYPE_INT, 1, &n, &error)) == NULL ||
      !ncz_variable_set_chunk_sizes (a, chunk, 1, &error) ||
      (g = ncz_group_add_group (root, "g", &error)) == NULL ||
      (b = ncz_group_add_variable (g, "b", NCZ_DATA_TYPE_INT, 1, &m, &error)) == NULL ||
      !ncz_variable_set_chunk_sizes (b, chunk, 1, &error))
    {
      ncz_dataset_discard (ds);
      return fail ("define", error);
    }
  for (guint i = 0; i < NA; i++)
    va[i] = a_value (version, i);
  for (guint j = 0; j < NB; j++)
    vb[j] = b_value (version, j);
  count[0] = NA;
  if (!ncz_variable_write (a, start, 1, count, 1, NULL, 0, va, sizeof va, NULL, &error))
    {
      ncz_dataset_discard (ds);
      return fail ("write a", error);
    }
  count[0] = NB;
  if (!ncz_variable_write (b, start, 1, count, 1, NULL, 0, vb, sizeof vb, NULL, &error))
    {
      ncz_dataset_discard (ds);
      return fail ("write g/b", error);
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    return fail ("close", error);
  printf ("ok\n");
  return 0;
}

/* One whole read: the line to print, and the version read (-1: none). */
static char *
read_once (const char *url, gint64 *version_read)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  NczGroup *root, *g;
  NczAttribute *attr;
  NczVariable *a, *b;
  gint32 va[NA], vb[NB];
  const guint64 start[1] = { 0 };
  guint64 count[1];
  gint64 version;

  *version_read = -1;
  if (ds == NULL)
    return g_strdup_printf ("error: open: %s", error->message);
  root = ncz_dataset_get_root_group (ds);
  attr = ncz_group_get_attribute (root, "version");
  g = ncz_group_get_group (root, "g");
  a = ncz_group_get_variable (root, "a");
  b = g != NULL ? ncz_group_get_variable (g, "b") : NULL;
  if (attr == NULL || a == NULL || b == NULL)
    return g_strdup ("mix: the metadata lacks the attribute version, a or g/b");
  version = ncz_attribute_get_int64 (attr, 0, NULL);
  count[0] = NA;
  if (!ncz_variable_read (a, start, 1, count, 1, NULL, 0, va, sizeof va, NULL, &error))
    return g_strdup_printf ("error: read a: %s", error->message);
  count[0] = NB;
  if (!ncz_variable_read (b, start, 1, count, 1, NULL, 0, vb, sizeof vb, NULL, &error))
    return g_strdup_printf ("error: read g/b: %s", error->message);
  for (guint i = 0; i < NA; i++)
    if (va[i] != a_value (version, i))
      return g_strdup_printf ("mix: version %" G_GINT64_FORMAT " opened, a[%u] = %d "
                              "(version %d)", version, i, va[i], va[i] / 100000);
  for (guint j = 0; j < NB; j++)
    if (vb[j] != b_value (version, j))
      return g_strdup_printf ("mix: version %" G_GINT64_FORMAT " opened, g/b[%u] = %d "
                              "(version %d)", version, j, vb[j], vb[j] / 100000);
  if (!ncz_dataset_close (ds, NULL, &error))
    return g_strdup_printf ("error: close: %s", error->message);
  *version_read = version;
  return g_strdup_printf ("whole %" G_GINT64_FORMAT, version);
}

static int
check (const char *url, gint64 version)
{
  gint64 got;
  g_autofree char *line = read_once (url, &got);

  if (got == version)
    {
      printf ("ok\n");
      return 0;
    }
  printf ("%s%s\n", g_str_has_prefix (line, "error: ") ? "" : "error: ", line);
  return 1;
}

static int
read_loop (const char *url, const char *stop)
{
  do
    {
      gint64 got;
      g_autofree char *line = read_once (url, &got);

      printf ("%s\n", line);
      fflush (stdout);
    }
  while (!g_file_test (stop, G_FILE_TEST_EXISTS));
  return 0;
}

static int
write_in_place (const char *url, const char *go)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  NczVariable *a;
  gint32 marker[CHUNK];
  const guint64 start[1] = { 0 }, count[1] = { CHUNK };

  if (ds == NULL)
    return fail ("open", error);
  printf ("opened\n");
  fflush (stdout);
  wait_file (go);
  a = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "a");
  for (guint i = 0; i < CHUNK; i++)
    marker[i] = -1 - (gint32) i;
  if (!ncz_variable_write (a, start, 1, count, 1, NULL, 0, marker, sizeof marker, NULL, &error))
    {
      ncz_dataset_discard (ds);
      return fail ("write", error);
    }
  if (!ncz_dataset_close (ds, NULL, &error))
    return fail ("close", error);
  printf ("ok\n");
  return 0;
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (argc == 4 && strcmp (argv[1], "make") == 0)
    return make (argv[2], g_ascii_strtoll (argv[3], NULL, 10));
  if (argc == 4 && strcmp (argv[1], "check") == 0)
    return check (argv[2], g_ascii_strtoll (argv[3], NULL, 10));
  if (argc == 4 && strcmp (argv[1], "read") == 0)
    return read_loop (argv[2], argv[3]);
  if (argc == 4 && strcmp (argv[1], "write") == 0)
    return write_in_place (argv[2], argv[3]);
  fprintf (stderr, "usage: s3-replace-worker make|check URL VERSION | read URL STOPFILE | "
                   "write URL GOFILE\n");
  return 2;
}
