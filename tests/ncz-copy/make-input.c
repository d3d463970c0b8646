/* make-input.c: writes the datasets ncz-copy's tests copy
 *
 *   make-input URL [rich|plain|grid|big|many]
 *
 * rich: every type, groups, unlimited and scalar variables, strings,
 * big-endian storage, fill values, no-fill, quantize, filter chains and
 * chunks never written; plain: three unfiltered variables and one with
 * bzip2; big: one variable of some megabytes; many: variables of
 * hundreds of small chunks, with edge chunks and chunks never written,
 * compressed and not, beside strings and a scalar.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>

static void
check (gboolean ok, GError *error)
{
  if (!ok)
    {
      fprintf (stderr, "make-input: %s\n", error ? error->message : "failed");
      exit (EXIT_FAILURE);
    }
}

static NczVariable *
add_var (NczGroup *g, const char *name, NczDataType type, guint rank, NczDimension **dims)
{
  GError *error = NULL;
  NczVariable *v = ncz_group_add_variable (g, name, type, rank, dims, &error);
  check (v != NULL, error);
  return v;
}

static NczDimension *
add_dim (NczGroup *g, const char *name, guint64 length, gboolean unlimited)
{
  GError *error = NULL;
  NczDimension *d = ncz_group_add_dimension (g, name, length, unlimited, &error);
  check (d != NULL, error);
  return d;
}

static void
set_attr (NczVariable *v, NczGroup *g, NczAttribute *a)
{
  GError *error = NULL;
  gboolean ok = v ? ncz_variable_set_attribute (v, a, &error) : ncz_group_set_attribute (g, a, &error);
  check (ok, error);
  g_object_unref (a);
}

static void
write_all (NczVariable *v, gconstpointer data, gsize size)
{
  GError *error = NULL;
  guint rank = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (v, &rank);
  g_autofree guint64 *start = g_new0 (guint64, MAX (rank, 1));
  check (ncz_variable_write (v, start, rank, shape, rank, NULL, 0, data, size, NULL, &error), error);
}

static void
make_rich (NczGroup *root)
{
  GError *error = NULL;
  NczDimension *x = add_dim (root, "x", 10, FALSE);
  NczDimension *y = add_dim (root, "y", 7, FALSE);
  NczDimension *t = add_dim (root, "t", 5, TRUE);
  NczDimension *n = add_dim (root, "n", 4, FALSE);
  NczVariable *v;
  NczGroup *g1, *g2;
  NczDimension *z;

  /* global attributes of several types */
  set_attr (NULL, root, ncz_attribute_new_text ("title", "copy test", -1));
  {
    gint32 ints[] = { -1, 2, 2147483647 };
    double d = 3.25;
    const char *strs[] = { "alpha", "beta gamma", NULL };
    guint64 big = G_MAXUINT64;
    set_attr (NULL, root, ncz_attribute_new_values ("ints", NCZ_DATA_TYPE_INT, ints, 3, NULL));
    set_attr (NULL, root, ncz_attribute_new_values ("dbl", NCZ_DATA_TYPE_DOUBLE, &d, 1, NULL));
    set_attr (NULL, root, ncz_attribute_new_strings ("strs", strs, 2));
    set_attr (NULL, root, ncz_attribute_new_values ("big", NCZ_DATA_TYPE_UINT64, &big, 1, NULL));
  }

  /* int v(t, x): bzip2, fill value, only some chunks written */
  {
    NczDimension *dims[] = { t, x };
    guint64 cs[] = { 2, 4 };
    gint32 fill = -999;
    guint params[] = { 9 };
    gint32 vals[2 * 4];
    guint64 start[] = { 2, 4 }, count[] = { 2, 4 };
    g_autoptr(GBytes) fb = g_bytes_new (&fill, sizeof fill);

    v = add_var (root, "v", NCZ_DATA_TYPE_INT, 2, dims);
    check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
    check (ncz_variable_add_filter (v, NCZ_FILTER_BZIP2, params, 1, &error), error);
    check (ncz_variable_set_fill_value (v, fb, &error), error);
    set_attr (v, NULL, ncz_attribute_new_text ("units", "m", -1));
    for (int i = 0; i < 8; i++)
      vals[i] = i * 11 - 40;
    check (ncz_variable_write (v, start, 2, count, 2, NULL, 0, vals, sizeof vals, NULL, &error), error);
  }
  /* double d(y, x): big-endian, shuffle + deflate, edge chunks */
  {
    NczDimension *dims[] = { y, x };
    guint64 cs[] = { 3, 4 };
    double vals[7 * 10];
    v = add_var (root, "d", NCZ_DATA_TYPE_DOUBLE, 2, dims);
    check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
    check (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error), error);
    check (ncz_variable_set_deflate (v, TRUE, TRUE, 5, &error), error);
    for (int i = 0; i < 70; i++)
      vals[i] = i * 1.5 - 3.0 + 1e-9 * i;
    write_all (v, vals, sizeof vals);
  }
  /* float w(x): zstd */
  {
    float vals[10];
    v = add_var (root, "w", NCZ_DATA_TYPE_FLOAT, 1, &x);
    check (ncz_variable_set_zstandard (v, 3, &error), error);
    for (int i = 0; i < 10; i++)
      vals[i] = (float) i / 3.0f;
    write_all (v, vals, sizeof vals);
  }
  /* float q(x): quantized */
  {
    float vals[10];
    v = add_var (root, "q", NCZ_DATA_TYPE_FLOAT, 1, &x);
    check (ncz_variable_set_quantize (v, NCZ_QUANTIZE_BITGROOM, 3, &error), error);
    for (int i = 0; i < 10; i++)
      vals[i] = 3.14159265f * (float) i;
    write_all (v, vals, sizeof vals);
  }
  /* ubyte ub(x): no fill */
  {
    guint8 vals[10];
    v = add_var (root, "ub", NCZ_DATA_TYPE_UBYTE, 1, &x);
    check (ncz_variable_set_no_fill (v, TRUE, &error), error);
    for (int i = 0; i < 10; i++)
      vals[i] = (guint8) (250 + i);
    write_all (v, vals, sizeof vals);
  }
  /* int64 / uint64 / short / byte / ushort / uint */
  {
    gint64 i64[10];
    guint64 u64[10];
    gint16 s16[10];
    gint8 s8[10];
    guint16 u16[10];
    guint32 u32[10];
    for (int i = 0; i < 10; i++)
      {
        i64[i] = G_MININT64 + i;
        u64[i] = G_MAXUINT64 - (guint64) i;
        s16[i] = (gint16) (-32768 + i);
        s8[i] = (gint8) (-128 + i);
        u16[i] = (guint16) (65535 - i);
        u32[i] = 4294967295u - (guint32) i;
      }
    write_all (add_var (root, "i64", NCZ_DATA_TYPE_INT64, 1, &x), i64, sizeof i64);
    write_all (add_var (root, "u64", NCZ_DATA_TYPE_UINT64, 1, &x), u64, sizeof u64);
    write_all (add_var (root, "s16", NCZ_DATA_TYPE_SHORT, 1, &x), s16, sizeof s16);
    write_all (add_var (root, "s8", NCZ_DATA_TYPE_BYTE, 1, &x), s8, sizeof s8);
    write_all (add_var (root, "u16", NCZ_DATA_TYPE_USHORT, 1, &x), u16, sizeof u16);
    write_all (add_var (root, "u32", NCZ_DATA_TYPE_UINT, 1, &x), u32, sizeof u32);
  }
  /* char c(y, n) */
  {
    NczDimension *dims[] = { y, n };
    char text[7 * 4];
    for (int i = 0; i < 28; i++)
      text[i] = (char) ('a' + i % 26);
    write_all (add_var (root, "c", NCZ_DATA_TYPE_CHAR, 2, dims), text, sizeof text);
  }
  /* string s(n) with a fill value, and a scalar short */
  {
    const char *strs[] = { "one", "", "three three", "ünïcode", NULL };
    guint64 start = 0, count = 4;
    g_autoptr(GBytes) fb = g_bytes_new ("missing", 8);
    v = add_var (root, "s", NCZ_DATA_TYPE_STRING, 1, &n);
    check (ncz_variable_set_fill_value (v, fb, &error), error);
    check (ncz_variable_write_strings (v, &start, 1, &count, 1, NULL, 0, strs, NULL, &error), error);
  }
  {
    gint16 value = -7;
    v = add_var (root, "scalar", NCZ_DATA_TYPE_SHORT, 0, NULL);
    set_attr (v, NULL, ncz_attribute_new_text ("long_name", "a scalar", -1));
    check (ncz_variable_write (v, NULL, 0, NULL, 0, NULL, 0, &value, sizeof value, NULL, &error), error);
  }
  /* never written */
  {
    NczDimension *dims[] = { x, y };
    add_var (root, "empty", NCZ_DATA_TYPE_INT, 2, dims);
  }

  /* groups */
  g1 = ncz_group_add_group (root, "g1", &error);
  check (g1 != NULL, error);
  set_attr (NULL, g1, ncz_attribute_new_text ("where", "g1", -1));
  z = add_dim (g1, "z", 3, FALSE);
  {
    NczDimension *dims[] = { z, x };
    double vals[30];
    v = add_var (g1, "u", NCZ_DATA_TYPE_DOUBLE, 2, dims);
    check (ncz_variable_set_fletcher32 (v, &error), error);
    for (int i = 0; i < 30; i++)
      vals[i] = -i * 0.25;
    write_all (v, vals, sizeof vals);
  }
  {
    gint32 vals[10];
    for (int i = 0; i < 10; i++)
      vals[i] = i * i;
    write_all (add_var (g1, "w", NCZ_DATA_TYPE_INT, 1, &x), vals, sizeof vals);
  }
  g2 = ncz_group_add_group (g1, "g2", &error);
  check (g2 != NULL, error);
  {
    const char *strs[] = { "deep", NULL };
    v = add_var (g2, "name", NCZ_DATA_TYPE_STRING, 0, NULL);
    check (ncz_variable_write_strings (v, NULL, 0, NULL, 0, NULL, 0, strs, NULL, &error), error);
  }
}

static void
make_plain (NczGroup *root)
{
  GError *error = NULL;
  NczDimension *x = add_dim (root, "x", 12, FALSE);
  NczDimension *y = add_dim (root, "y", 6, FALSE);
  NczDimension *dims[] = { y, x };
  guint64 cs[] = { 3, 4 };
  guint params[] = { 9 };
  float vals[72];
  NczVariable *v;
  NczGroup *g;

  for (int i = 0; i < 72; i++)
    vals[i] = (float) i * 0.5f;
  v = add_var (root, "a", NCZ_DATA_TYPE_FLOAT, 2, dims);
  check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
  write_all (v, vals, sizeof vals);
  v = add_var (root, "b", NCZ_DATA_TYPE_FLOAT, 2, dims);
  check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
  write_all (v, vals, sizeof vals);
  v = add_var (root, "f", NCZ_DATA_TYPE_FLOAT, 2, dims);
  check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
  check (ncz_variable_add_filter (v, NCZ_FILTER_BZIP2, params, 1, &error), error);
  write_all (v, vals, sizeof vals);
  v = add_var (root, "t", NCZ_DATA_TYPE_STRING, 1, &x);
  g = ncz_group_add_group (root, "g1", &error);
  check (g != NULL, error);
  v = add_var (g, "a", NCZ_DATA_TYPE_FLOAT, 2, dims);
  write_all (v, vals, sizeof vals);
}

static void
make_big (NczGroup *root)
{
  GError *error = NULL;
  NczDimension *r = add_dim (root, "r", 512, FALSE);
  NczDimension *col = add_dim (root, "col", 1024, FALSE);
  NczDimension *dims[] = { r, col };
  guint64 cs[] = { 64, 1024 };
  guint64 start[] = { 0, 0 }, count[] = { 64, 1024 };
  g_autofree double *vals = g_new (double, 64 * 1024);
  NczVariable *v = add_var (root, "big", NCZ_DATA_TYPE_DOUBLE, 2, dims);

  check (ncz_variable_set_chunk_sizes (v, cs, 2, &error), error);
  for (guint64 row = 0; row < 512; row += 64)
    {
      for (int i = 0; i < 64 * 1024; i++)
        vals[i] = (double) row * 1024 + i;
      start[0] = row;
      check (ncz_variable_write (v, start, 2, count, 2, NULL, 0, vals, 64 * 1024 * sizeof (double),
                                 NULL, &error), error);
    }
}

/* grid: chunk grids with edge chunks, fully and partly written, and an
 * unlimited dimension: the chunk-by-chunk copy takes them a box at a time */
static void
make_grid (NczGroup *root)
{
  GError *error = NULL;
  NczDimension *y = add_dim (root, "y", 7, FALSE);
  NczDimension *x = add_dim (root, "x", 5, FALSE);
  NczDimension *t = add_dim (root, "t", 0, TRUE);
  NczDimension *yx[] = { y, x }, *tx[] = { t, x };
  guint64 c32[] = { 3, 2 }, c22[] = { 2, 2 };
  guint64 start[] = { 0, 0 }, full[] = { 7, 5 }, part[] = { 2, 5 }, grow[] = { 5, 5 };
  gint32 ints[35];
  gint16 shorts[10];
  double dbls[25];
  NczVariable *v = add_var (root, "full", NCZ_DATA_TYPE_INT, 2, yx);
  NczVariable *p = add_var (root, "part", NCZ_DATA_TYPE_SHORT, 2, yx);
  NczVariable *u = add_var (root, "grow", NCZ_DATA_TYPE_DOUBLE, 2, tx);

  for (int i = 0; i < 35; i++)
    ints[i] = i * 7 - 100;
  for (int i = 0; i < 10; i++)
    shorts[i] = (gint16) (i + 1);
  for (int i = 0; i < 25; i++)
    dbls[i] = i / 4.0;
  check (ncz_variable_set_chunk_sizes (v, c32, 2, &error), error);
  check (ncz_variable_set_chunk_sizes (p, c32, 2, &error), error);
  check (ncz_variable_set_chunk_sizes (u, c22, 2, &error), error);
  check (ncz_variable_write (v, start, 2, full, 2, NULL, 0, ints, sizeof ints, NULL, &error), error);
  check (ncz_variable_write (p, start, 2, part, 2, NULL, 0, shorts, sizeof shorts, NULL, &error), error);
  check (ncz_variable_write (u, start, 2, grow, 2, NULL, 0, dbls, sizeof dbls, NULL, &error), error);
}

/* many: hundreds of chunks per variable, so that a copy goes in many
 * batches; edge chunks along every dimension; a block of chunks of "m"
 * never written (they read as its fill value) */
static void
make_many (NczGroup *root)
{
  GError *error = NULL;
  NczDimension *z = add_dim (root, "z", 23, FALSE);
  NczDimension *y = add_dim (root, "y", 41, FALSE);
  NczDimension *x = add_dim (root, "x", 37, FALSE);
  NczDimension *zyx[] = { z, y, x }, *yx[] = { y, x };
  guint64 cm[] = { 4, 6, 5 }, cc[] = { 5, 4 };
  guint64 start[] = { 0, 0, 0 }, count[] = { 23, 41, 37 };
  gint32 fill = -999;
  g_autofree gint32 *ints = g_new (gint32, 23 * 41 * 37);
  g_autofree float *floats = g_new (float, 41 * 37);
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);
  const char *words[] = { "alpha", "beta", "", "delta ünïcode" };
  const char *strings[42];   /* NULL-terminated */
  NczVariable *m = add_var (root, "m", NCZ_DATA_TYPE_INT, 3, zyx);
  NczVariable *c = add_var (root, "c", NCZ_DATA_TYPE_FLOAT, 2, yx);
  NczVariable *s = add_var (root, "s", NCZ_DATA_TYPE_STRING, 1, &y);
  NczVariable *k = add_var (root, "k", NCZ_DATA_TYPE_DOUBLE, 0, NULL);
  double scalar = 2.75;

  for (int i = 0; i < 23 * 41 * 37; i++)
    ints[i] = i * 3 - 7000;
  for (int i = 0; i < 41 * 37; i++)
    floats[i] = (float) i * 0.25f - 100.0f;
  for (int i = 0; i < 41; i++)
    strings[i] = words[i % 4];
  strings[41] = NULL;
  check (ncz_variable_set_chunk_sizes (m, cm, 3, &error), error);
  check (ncz_variable_set_fill_value (m, fill_bytes, &error), error);
  check (ncz_variable_set_chunk_sizes (c, cc, 2, &error), error);
  check (ncz_variable_set_deflate (c, TRUE, TRUE, 3, &error), error);
  /* m: written in two parts around z 8..15, whose chunks (z 8..11 and
   * 12..15) stay unwritten */
  count[0] = 8;
  check (ncz_variable_write (m, start, 3, count, 3, NULL, 0, ints, 8 * 41 * 37 * sizeof (gint32),
                             NULL, &error), error);
  start[0] = 16;
  count[0] = 7;
  check (ncz_variable_write (m, start, 3, count, 3, NULL, 0, ints + 16 * 41 * 37,
                             7 * 41 * 37 * sizeof (gint32), NULL, &error), error);
  write_all (c, floats, 41 * 37 * sizeof (float));
  check (ncz_variable_write_strings (s, start + 1, 1, count + 1, 1, NULL, 0, strings, NULL, &error),
         error);
  check (ncz_variable_write (k, NULL, 0, NULL, 0, NULL, 0, &scalar, sizeof scalar, NULL, &error),
         error);
}

int
main (int argc, char *argv[])
{
  GError *error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  const char *what = argc > 2 ? argv[2] : "rich";

  if (argc < 2)
    {
      fprintf (stderr, "usage: make-input URL [rich|plain|grid|big|many]\n");
      return EXIT_FAILURE;
    }
  ds = ncz_dataset_create (argv[1], NCZ_CREATE_DEFAULT, NULL, &error);
  check (ds != NULL, error);
  if (g_str_equal (what, "rich"))
    make_rich (ncz_dataset_get_root_group (ds));
  else if (g_str_equal (what, "plain"))
    make_plain (ncz_dataset_get_root_group (ds));
  else if (g_str_equal (what, "grid"))
    make_grid (ncz_dataset_get_root_group (ds));
  else if (g_str_equal (what, "many"))
    make_many (ncz_dataset_get_root_group (ds));
  else
    make_big (ncz_dataset_get_root_group (ds));
  check (ncz_dataset_close (ds, NULL, &error), error);
  return EXIT_SUCCESS;
}
