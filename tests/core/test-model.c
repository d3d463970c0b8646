/* Tests of the data model and the chunk engine, with the test format
 * backend (test-format.c) that keeps chunks in an NczMemoryStore. */
#include <math.h>
#include <string.h>

#include <ncz/ncz.h>
#include "ncz-model-private.h"
#include "test-format.h"

static NczDataset *
new_dataset (NczMemoryStore **store_out)
{
  return filter_test_dataset_new (store_out);
}

/* ---- tests ---- */

static void
test_types (void)
{
  g_assert_cmpuint (ncz_data_type_get_size (NCZ_DATA_TYPE_INT64), ==, 8);
  g_assert_cmpuint (ncz_data_type_get_size (NCZ_DATA_TYPE_CHAR), ==, 1);
  g_assert_cmpstr (ncz_data_type_get_name (NCZ_DATA_TYPE_USHORT), ==, "ushort");
  g_assert_cmpint (ncz_data_type_from_name ("uint64"), ==, NCZ_DATA_TYPE_UINT64);
  g_assert_cmpint (ncz_data_type_from_name ("nope"), ==, NCZ_DATA_TYPE_NONE);
  g_assert_true (ncz_data_type_is_unsigned (NCZ_DATA_TYPE_UBYTE));
  g_assert_false (ncz_data_type_is_unsigned (NCZ_DATA_TYPE_BYTE));
  g_autoptr(GBytes) f = ncz_data_type_get_default_fill (NCZ_DATA_TYPE_INT);
  g_assert_cmpint (*(const gint32 *) g_bytes_get_data (f, NULL), ==, -2147483647);
  g_autoptr(GBytes) d = ncz_data_type_get_default_fill (NCZ_DATA_TYPE_DOUBLE);
  g_assert_cmpfloat (*(const double *) g_bytes_get_data (d, NULL), ==, 9.9692099683868690e+36);
}

static void
test_define (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x, *y;
  NczGroup *sub;
  NczVariable *v;

  x = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  g_assert_no_error (error);
  y = ncz_group_add_dimension (root, "y", 3, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (ncz_group_add_dimension (root, "x", 5, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_dimension (root, "a/b", 5, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_group (root, "..", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  sub = ncz_group_add_group (root, "sub", &error);
  g_assert_no_error (error);
  g_autofree char *subname = ncz_group_get_full_name (sub);
  g_assert_cmpstr (subname, ==, "/sub");
  NczDimension *z = ncz_group_add_dimension (sub, "z", 2, FALSE, &error);
  g_assert_no_error (error);
  g_autofree char *zname = ncz_dimension_get_full_name (z);
  g_assert_cmpstr (zname, ==, "/sub/z");
  g_assert_true (ncz_group_lookup_dimension (sub, "x") == x);
  g_assert_true (ncz_group_lookup_dimension (root, "/sub/z") == z);
  g_assert_null (ncz_group_lookup_dimension (root, "z"));

  NczDimension *dims[] = { x, y };
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_null (ncz_group_add_variable (root, "sub", NCZ_DATA_TYPE_FLOAT, 2, dims, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  NczDimension *zdims[] = { z };
  NczVariable *subvar = ncz_group_add_variable (sub, "w", NCZ_DATA_TYPE_INT, 1, zdims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_group_lookup_variable (root, "/v") == v);
  g_assert_true (ncz_group_lookup_variable (root, "v") == v);
  g_assert_true (ncz_group_lookup_variable (sub, "/sub/w") == subvar);
  g_assert_true (ncz_group_lookup_variable (root, "/sub/w") == subvar);
  g_assert_true (ncz_group_lookup_variable (sub, "w") == subvar);
  g_assert_null (ncz_group_lookup_variable (root, "w"));
  g_assert_null (ncz_group_lookup_variable (root, "/nope/w"));
  g_assert_null (ncz_group_lookup_variable (root, "/sub/"));
  g_assert_null (ncz_group_lookup_variable (root, "/"));
  g_assert_null (ncz_group_lookup_dimension (root, "/sub/"));

  guint n;
  g_autofree guint64 *shape = ncz_variable_get_shape (v, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (shape[0], ==, 4);
  g_assert_cmpuint (shape[1], ==, 3);
  const guint64 *chunks = ncz_variable_get_chunk_sizes (v, &n);
  g_assert_cmpuint (chunks[0], ==, 4);
  g_assert_cmpuint (chunks[1], ==, 3);
  guint64 bad[] = { 0, 1 };
  g_assert_false (ncz_variable_set_chunk_sizes (v, bad, 2, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* GListModel: groups then variables */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (root)), ==, 2);
  g_autoptr(GObject) first = g_list_model_get_item (G_LIST_MODEL (root), 0);
  g_autoptr(GObject) second = g_list_model_get_item (G_LIST_MODEL (root), 1);
  g_assert_true (first == G_OBJECT (sub));
  g_assert_true (second == G_OBJECT (v));

  /* attributes keep order; replacing keeps the place */
  g_autoptr(NczAttribute) a1 = ncz_attribute_new_text ("units", "K", -1);
  gint32 vals[] = { 1, 2, 3 };
  g_autoptr(NczAttribute) a2 = ncz_attribute_new_values ("valid", NCZ_DATA_TYPE_INT, vals, 3, NULL);
  g_autoptr(NczAttribute) a3 = ncz_attribute_new_text ("units", "degC", -1);
  g_assert_true (ncz_variable_set_attribute (v, a1, NULL));
  g_assert_true (ncz_variable_set_attribute (v, a2, NULL));
  g_assert_true (ncz_variable_set_attribute (v, a3, NULL));
  g_autoptr(GPtrArray) attrs = ncz_variable_get_attributes (v);
  g_assert_cmpuint (attrs->len, ==, 2);
  g_assert_cmpstr (ncz_attribute_get_name (attrs->pdata[0]), ==, "units");
  g_autofree char *t = ncz_attribute_get_text (attrs->pdata[0], NULL);
  g_assert_cmpstr (t, ==, "degC");
  g_assert_cmpint (ncz_attribute_get_int64 (attrs->pdata[1], 2, NULL), ==, 3);
  g_assert_false (ncz_variable_remove_attribute (v, "nope", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* fill value shows as _FillValue */
  float fv = -999.f;
  g_autoptr(GBytes) fb = g_bytes_new (&fv, sizeof fv);
  g_assert_true (ncz_variable_set_fill_value (v, fb, &error));
  g_assert_nonnull (ncz_variable_get_attribute (v, "_FillValue"));
  g_assert_cmpfloat (ncz_attribute_get_double (ncz_variable_get_attribute (v, "_FillValue"), 0, NULL), ==, -999.0);
  g_autoptr(NczAttribute) wrong = ncz_attribute_new_values ("_FillValue", NCZ_DATA_TYPE_INT, vals, 1, NULL);
  g_assert_false (ncz_variable_set_attribute (v, wrong, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* strings and widths */
  NczVariable *s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_variable_get_storage_element_size (s), ==, 128);
  gint32 w = 16;
  g_autoptr(NczAttribute) dm = ncz_attribute_new_values ("_nczarr_default_maxstrlen", NCZ_DATA_TYPE_INT, &w, 1, NULL);
  ncz_group_set_attribute (root, dm, NULL);
  g_assert_cmpuint (ncz_variable_get_storage_element_size (s), ==, 16);
  w = 4;
  g_autoptr(NczAttribute) m = ncz_attribute_new_values ("_nczarr_maxstrlen", NCZ_DATA_TYPE_INT, &w, 1, NULL);
  ncz_variable_set_attribute (s, m, NULL);
  g_assert_cmpuint (ncz_variable_get_storage_element_size (s), ==, 4);
}

static void
test_slab_roundtrip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = new_dataset (&store);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[3];
  dims[0] = ncz_group_add_dimension (root, "t", 5, FALSE, NULL);
  dims[1] = ncz_group_add_dimension (root, "y", 7, FALSE, NULL);
  dims[2] = ncz_group_add_dimension (root, "x", 9, FALSE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 3, dims, &error);
  guint64 chunks[] = { 2, 3, 4 };
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
  gint32 fill = -1;
  g_autoptr(GBytes) fb = g_bytes_new (&fill, 4);
  ncz_variable_set_fill_value (v, fb, NULL);

  /* nothing written: all fill */
  guint64 start[] = { 0, 0, 0 }, count[] = { 5, 7, 9 };
  gint32 all[5 * 7 * 9];
  g_assert_true (ncz_variable_read (v, start, 3, count, 3, NULL, 0, all, sizeof all, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    g_assert_cmpint (all[i], ==, -1);
  g_assert_cmpuint (ncz_memory_store_get_n_objects (store), ==, 0);

  /* write a region crossing chunk boundaries, partial edge chunks */
  guint64 ws[] = { 1, 2, 3 }, wc[] = { 4, 5, 6 };
  gint32 vals[4 * 5 * 6];
  for (guint i = 0; i < G_N_ELEMENTS (vals); i++)
    vals[i] = i;
  g_assert_true (ncz_variable_write (v, ws, 3, wc, 3, NULL, 0, vals, sizeof vals, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_read (v, start, 3, count, 3, NULL, 0, all, sizeof all, NULL, &error));
  for (guint t = 0; t < 5; t++)
    for (guint y = 0; y < 7; y++)
      for (guint x = 0; x < 9; x++)
        {
          gint32 got = all[(t * 7 + y) * 9 + x];
          if (t >= 1 && t < 5 && y >= 2 && y < 7 && x >= 3 && x < 9)
            g_assert_cmpint (got, ==, (gint32) (((t - 1) * 5 + (y - 2)) * 6 + (x - 3)));
          else
            g_assert_cmpint (got, ==, -1);
        }

  /* strided read */
  guint64 ss[] = { 1, 2, 3 }, sc[] = { 2, 3, 2 };
  gint64 st[] = { 2, 2, 5 };
  gint32 sv[12];
  g_assert_true (ncz_variable_read (v, ss, 3, sc, 3, st, 3, sv, sizeof sv, NULL, &error));
  g_assert_no_error (error);
  for (guint a = 0; a < 2; a++)
    for (guint b = 0; b < 3; b++)
      for (guint c = 0; c < 2; c++)
        {
          guint t = 1 + 2 * a, y = 2 + 2 * b, x = 3 + 5 * c;
          g_assert_cmpint (sv[(a * 3 + b) * 2 + c], ==, all[(t * 7 + y) * 9 + x]);
        }

  /* strided write */
  gint32 wv[12];
  for (guint i = 0; i < 12; i++)
    wv[i] = 1000 + i;
  g_assert_true (ncz_variable_write (v, ss, 3, sc, 3, st, 3, wv, sizeof wv, NULL, &error));
  gint32 back[12];
  g_assert_true (ncz_variable_read (v, ss, 3, sc, 3, st, 3, back, sizeof back, NULL, &error));
  g_assert_cmpmem (back, sizeof back, wv, sizeof wv);

  /* out of bounds, wrong rank, small buffer, zero stride */
  guint64 oob[] = { 0, 0, 8 }, oc[] = { 1, 1, 2 };
  g_assert_false (ncz_variable_read (v, oob, 3, oc, 3, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ncz_variable_read (v, oob, 2, oc, 2, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ncz_variable_read (v, start, 3, count, 3, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  gint64 zero[] = { 1, 0, 1 };
  g_assert_false (ncz_variable_read (v, start, 3, oc, 3, zero, 3, back, sizeof back, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  /* huge count does not overflow */
  guint64 hc[] = { G_MAXUINT64, 2, 2 };
  g_assert_false (ncz_variable_read (v, start, 3, hc, 3, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
}

static void
test_slab_large_random (void)
{
  /* many chunks, compared against a plain array, to exercise the pool */
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  dims[0] = ncz_group_add_dimension (root, "y", 61, FALSE, NULL);
  dims[1] = ncz_group_add_dimension (root, "x", 67, FALSE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "d", NCZ_DATA_TYPE_DOUBLE, 2, dims, &error);
  guint64 chunks[] = { 8, 5 };
  ncz_variable_set_chunk_sizes (v, chunks, 2, NULL);
  double *ref = g_new0 (double, 61 * 67);
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (v);
  double fv = *(const double *) g_bytes_get_data (fill, NULL);
  for (guint i = 0; i < 61 * 67; i++)
    ref[i] = fv;
  GRand *rand = g_rand_new_with_seed (42);
  for (int iter = 0; iter < 60; iter++)
    {
      guint64 s[2], c[2];
      gint64 st[2];
      for (int d = 0; d < 2; d++)
        {
          guint64 len = d ? 67 : 61;
          st[d] = g_rand_int_range (rand, 1, 4);
          s[d] = g_rand_int_range (rand, 0, len);
          guint64 maxc = (len - 1 - s[d]) / st[d] + 1;
          c[d] = g_rand_int_range (rand, 1, maxc + 1);
        }
      gsize n = c[0] * c[1];
      double *buf = g_new (double, n);
      if (iter % 2 == 0)
        {
          for (gsize i = 0; i < n; i++)
            buf[i] = iter * 10000 + i;
          g_assert_true (ncz_variable_write (v, s, 2, c, 2, st, 2, buf, n * 8, NULL, &error));
          g_assert_no_error (error);
          for (guint64 a = 0; a < c[0]; a++)
            for (guint64 b = 0; b < c[1]; b++)
              ref[(s[0] + a * st[0]) * 67 + s[1] + b * st[1]] = buf[a * c[1] + b];
        }
      else
        {
          g_assert_true (ncz_variable_read (v, s, 2, c, 2, st, 2, buf, n * 8, NULL, &error));
          g_assert_no_error (error);
          for (guint64 a = 0; a < c[0]; a++)
            for (guint64 b = 0; b < c[1]; b++)
              g_assert_cmpfloat (buf[a * c[1] + b], ==, ref[(s[0] + a * st[0]) * 67 + s[1] + b * st[1]]);
        }
      g_free (buf);
    }
  g_rand_free (rand);
  g_free (ref);
}

static void
test_scalar_and_strings (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczVariable *sc = ncz_group_add_variable (root, "sc", NCZ_DATA_TYPE_UINT64, 0, NULL, &error);
  guint64 val = G_MAXUINT64 - 3, got = 0;
  g_assert_true (ncz_variable_is_scalar (sc));
  g_assert_true (ncz_variable_read (sc, NULL, 0, NULL, 0, NULL, 0, &got, sizeof got, NULL, &error));
  g_assert_cmpuint (got, ==, G_GUINT64_CONSTANT (18446744073709551614));
  g_assert_true (ncz_variable_write (sc, NULL, 0, NULL, 0, NULL, 0, &val, sizeof val, NULL, &error));
  g_assert_true (ncz_variable_read (sc, NULL, 0, NULL, 0, NULL, 0, &got, sizeof got, NULL, &error));
  g_assert_cmpuint (got, ==, val);

  NczDimension *n = ncz_group_add_dimension (root, "n", 5, FALSE, NULL);
  NczVariable *s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 1, &n, &error);
  gint32 w = 4;
  g_autoptr(NczAttribute) m = ncz_attribute_new_values ("_nczarr_maxstrlen", NCZ_DATA_TYPE_INT, &w, 1, NULL);
  ncz_variable_set_attribute (s, m, NULL);
  guint64 chunk = 2;
  ncz_variable_set_chunk_sizes (s, &chunk, 1, NULL);
  const char *too_long[] = { "a", "0123456789", "", NULL };
  const char *in[] = { "a", "0123", "", NULL };
  guint64 st = 1, ct = 3;
  /* longer than the width (4): an error naming the length, never cut */
  g_assert_false (ncz_variable_write_strings (s, &st, 1, &ct, 1, NULL, 0, too_long, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "10 bytes"));
  g_clear_error (&error);
  g_assert_true (ncz_variable_write_strings (s, &st, 1, &ct, 1, NULL, 0, in, NULL, &error));
  g_assert_no_error (error);
  /* one string per selected element: more or fewer writes nothing */
  {
    const char *more[] = { "b", "c", "d", "e", NULL };
    const char *fewer[] = { "b", "c", NULL };

    g_assert_false (ncz_variable_write_strings (s, &st, 1, &ct, 1, NULL, 0, more, NULL, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "'/s'"));
    g_assert_nonnull (strstr (error->message, "4 strings given for a selection of 3 elements"));
    g_clear_error (&error);
    g_assert_false (ncz_variable_write_strings (s, &st, 1, &ct, 1, NULL, 0, fewer, NULL, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "2 strings given for a selection of 3 elements"));
    g_clear_error (&error);
  }
  guint64 s0 = 0, c5 = 5;
  g_auto(GStrv) out = ncz_variable_read_strings (s, &s0, 1, &c5, 1, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (out[0], ==, "");
  g_assert_cmpstr (out[1], ==, "a");
  g_assert_cmpstr (out[2], ==, "0123");
  g_assert_cmpstr (out[3], ==, "");
  g_assert_cmpstr (out[4], ==, "");
  g_assert_null (out[5]);
}

/* The numeric getters read numbers: a char or string attribute is an
 * error naming the attribute, as is a value the result cannot hold. */
static void
test_attribute_getters (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczAttribute) title = ncz_attribute_new_text ("title", "Numbers", -1);
  const char *names[] = { "a", "bc", NULL };
  g_autoptr(NczAttribute) strings = ncz_attribute_new_strings ("names", names, -1);
  double dv[] = { 1.75, -1.75, 1e30, NAN, -0.5 };
  g_autoptr(NczAttribute) doubles = ncz_attribute_new_values ("d", NCZ_DATA_TYPE_DOUBLE, dv,
                                                              G_N_ELEMENTS (dv), NULL);
  guint64 uv[] = { G_MAXUINT64, 7 };
  g_autoptr(NczAttribute) u64 = ncz_attribute_new_values ("u", NCZ_DATA_TYPE_UINT64, uv, 2, NULL);
  gint8 bv[] = { -3, 4 };
  g_autoptr(NczAttribute) bytes = ncz_attribute_new_values ("b", NCZ_DATA_TYPE_BYTE, bv, 2, NULL);

  /* text: not 78.0 ('N') */
  g_assert_cmpfloat (ncz_attribute_get_double (title, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'title'"));
  g_assert_nonnull (strstr (error->message, "ncz_attribute_get_text()"));
  g_clear_error (&error);
  g_assert_cmpint (ncz_attribute_get_int64 (title, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (ncz_attribute_get_uint64 (title, 1, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* strings */
  g_assert_cmpfloat (ncz_attribute_get_double (strings, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'names'"));
  g_assert_nonnull (strstr (error->message, "ncz_attribute_get_strings()"));
  g_clear_error (&error);
  g_assert_cmpint (ncz_attribute_get_int64 (strings, 1, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (ncz_attribute_get_uint64 (strings, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* numbers convert, fractions truncated toward zero */
  g_assert_cmpfloat (ncz_attribute_get_double (doubles, 0, &error), ==, 1.75);
  g_assert_no_error (error);
  g_assert_cmpint (ncz_attribute_get_int64 (doubles, 0, &error), ==, 1);
  g_assert_cmpint (ncz_attribute_get_int64 (doubles, 1, &error), ==, -1);
  g_assert_cmpuint (ncz_attribute_get_uint64 (doubles, 0, &error), ==, 1);
  g_assert_cmpuint (ncz_attribute_get_uint64 (doubles, 4, &error), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpint (ncz_attribute_get_int64 (bytes, 0, &error), ==, -3);
  g_assert_cmpfloat (ncz_attribute_get_double (bytes, 0, &error), ==, -3.0);
  g_assert_cmpuint (ncz_attribute_get_uint64 (bytes, 1, &error), ==, 4);
  g_assert_cmpuint (ncz_attribute_get_uint64 (u64, 0, &error), ==, G_MAXUINT64);
  g_assert_cmpfloat (ncz_attribute_get_double (u64, 0, &error), ==, 18446744073709551616.0);
  g_assert_cmpint (ncz_attribute_get_int64 (u64, 1, &error), ==, 7);
  g_assert_no_error (error);

  /* values the result cannot hold */
  g_assert_cmpint (ncz_attribute_get_int64 (doubles, 2, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'d'"));
  g_clear_error (&error);
  g_assert_cmpint (ncz_attribute_get_int64 (doubles, 3, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (ncz_attribute_get_uint64 (doubles, 1, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpint (ncz_attribute_get_int64 (u64, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (ncz_attribute_get_uint64 (bytes, 0, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
}

static void
test_unlimited_and_readonly (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *t = ncz_group_add_dimension (root, "t", 0, TRUE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_SHORT, 1, &t, &error);
  guint n;
  const guint64 *ch = ncz_variable_get_chunk_sizes (v, &n);
  g_assert_cmpuint (ch[0], ==, 1);
  gint16 vals[] = { 1, 2, 3 };
  guint64 s = 2, c = 3;
  g_assert_true (ncz_variable_write (v, &s, 1, &c, 1, NULL, 0, vals, sizeof vals, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 5);
  gint16 back[5];
  guint64 s0 = 0, c5 = 5;
  g_assert_true (ncz_variable_read (v, &s0, 1, &c5, 1, NULL, 0, back, sizeof back, NULL, &error));
  g_assert_cmpint (back[0], ==, -32767);
  g_assert_cmpint (back[4], ==, 3);

  guint syncs = filter_test_format_n_syncs ();
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs + 1);
  g_assert_false (ncz_dataset_is_writable (ds));
  g_assert_null (ncz_group_add_group (root, "late", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_clear_error (&error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs + 1);
}

static void
on_closed_read_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GError **out = user_data;
  g_autoptr(GBytes) b = ncz_variable_read_bytes_finish (NCZ_VARIABLE (source), res, out);
  g_assert_null (b);
  g_assert_nonnull (*out);
}

static void
assert_closed_error (GError **error, const char *variable)
{
  g_autofree char *name = g_strdup_printf ("variable '%s'", variable);

  g_assert_error (*error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_assert_nonnull (strstr ((*error)->message, "'file:///unused#mode=nczarr,file&format=ftest'"));
  g_assert_nonnull (strstr ((*error)->message, name));
  g_clear_error (error);
}

/* After ncz_dataset_close() no data goes through the objects still held:
 * every read and write fails naming the dataset's URL and the variable;
 * the metadata stays. */
static void
test_closed_data (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 4, FALSE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  NczVariable *s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 1, &x, &error);
  gint32 vals[] = { 1, 2, 3, 4 }, back[4] = { 0 };
  const char *strs[] = { "a", "b", "c", "d", NULL };
  guint64 start = 0, count = 4, none = 0;
  g_autoptr(GBytes) in = g_bytes_new (vals, sizeof vals);
  g_autoptr(GBytes) out = NULL;
  g_auto(GStrv) got = NULL;
  GError *async_error = NULL;

  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, vals, sizeof vals, NULL, &error));
  g_assert_true (ncz_variable_write_strings (s, &start, 1, &count, 1, NULL, 0, strs, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, back, sizeof back, NULL, &error));
  assert_closed_error (&error, "/v");
  g_assert_cmpint (back[0], ==, 0);
  g_assert_false (ncz_variable_read (v, &start, 1, &none, 1, NULL, 0, back, 0, NULL, &error));
  assert_closed_error (&error, "/v");
  out = ncz_variable_read_bytes (v, &start, 1, &count, 1, NULL, 0, NULL, &error);
  g_assert_null (out);
  assert_closed_error (&error, "/v");
  got = ncz_variable_read_strings (s, &start, 1, &count, 1, NULL, 0, NULL, &error);
  g_assert_null (got);
  assert_closed_error (&error, "/s");
  g_assert_false (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, vals, sizeof vals, NULL, &error));
  assert_closed_error (&error, "/v");
  g_assert_false (ncz_variable_write_bytes (v, &start, 1, &count, 1, NULL, 0, in, NULL, &error));
  assert_closed_error (&error, "/v");
  g_assert_false (ncz_variable_write_strings (s, &start, 1, &count, 1, NULL, 0, strs, NULL, &error));
  assert_closed_error (&error, "/s");
  ncz_variable_read_bytes_async (v, &start, 1, &count, 1, NULL, 0, NULL, on_closed_read_done,
                                 &async_error);
  while (async_error == NULL)
    g_main_context_iteration (NULL, TRUE);
  assert_closed_error (&async_error, "/v");

  /* the metadata is still there */
  g_assert_cmpuint (ncz_dimension_get_length (x), ==, 4);
  g_assert_cmpint (ncz_variable_get_value_type (s), ==, NCZ_DATA_TYPE_STRING);
}

static void
on_read_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GBytes **out = user_data;
  g_autoptr(GError) error = NULL;
  *out = ncz_variable_read_bytes_finish (NCZ_VARIABLE (source), res, &error);
  g_assert_no_error (error);
}

static void
test_async_read (void)
{
  g_autoptr(NczDataset) ds = new_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 10, FALSE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_UBYTE, 1, &x, NULL);
  guint8 vals[10];
  for (int i = 0; i < 10; i++)
    vals[i] = i * 3;
  guint64 s = 0, c = 10;
  g_autoptr(GBytes) in = g_bytes_new (vals, 10);
  g_assert_true (ncz_variable_write_bytes (v, &s, 1, &c, 1, NULL, 0, in, NULL, NULL));
  GBytes *out = NULL;
  ncz_variable_read_bytes_async (v, &s, 1, &c, 1, NULL, 0, NULL, on_read_done, &out);
  while (out == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_bytes_equal (in, out));
  g_bytes_unref (out);
}


/* One bad chunk among many: the read fails with that chunk's error, the
 * other workers stop claiming chunks, nothing crashes. */
static void
test_slab_error_stops (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = new_dataset (&store);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  dims[0] = ncz_group_add_dimension (root, "y", 64, FALSE, NULL);
  dims[1] = ncz_group_add_dimension (root, "x", 64, FALSE, NULL);
  NczVariable *v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, dims, &error);
  guint64 chunks[] = { 4, 4 };
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));

  guint64 start[] = { 0, 0 }, count[] = { 64, 64 };
  g_autofree gint32 *vals = g_new (gint32, 64 * 64);
  for (guint i = 0; i < 64 * 64; i++)
    vals[i] = (gint32) i;
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, vals, 64 * 64 * 4, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_memory_store_get_n_objects (store), ==, 256);

  /* chunk 9.7 holds 3 bytes instead of 64 */
  g_autoptr(GBytes) bad = g_bytes_new ("abc", 3);
  g_assert_true (ncz_store_write (NCZ_STORE (store), "v/9.7", bad, NULL, &error));
  memset (vals, 0, 64 * 64 * 4);
  g_assert_false (ncz_variable_read (v, start, 2, count, 2, NULL, 0, vals, 64 * 64 * 4, NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);

  /* a selection that avoids the bad chunk still reads */
  guint64 s2[] = { 0, 0 }, c2[] = { 36, 64 };
  g_assert_true (ncz_variable_read (v, s2, 2, c2, 2, NULL, 0, vals, 36 * 64 * 4, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 36 * 64; i++)
    g_assert_cmpint (vals[i], ==, (gint32) i);
}

/* The per-thread buffer cache: a freed chunk buffer is reused by the
 * next request of a close size on the same thread, with headroom for
 * objects that vary in size; buffers freed on another thread stay there. */
static gpointer
release_on_thread (gpointer data)
{
  gsize capacity = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (data), "capacity"));
  gpointer buf = g_object_get_data (G_OBJECT (data), "buf");
  ncz_buffer_release (buf, capacity);
  return NULL;
}

static void
test_buffer_cache (void)
{
  gsize cap1, cap2, cap3;
  guint8 *a = ncz_buffer_alloc (1 << 20, &cap1);

  g_assert_nonnull (a);
  g_assert_cmpuint (cap1, >=, 1 << 20);
  memset (a, 1, 1 << 20);
  ncz_buffer_release (a, cap1);

  /* a slightly larger object fits the headroom */
  guint8 *b = ncz_buffer_alloc ((1 << 20) + 4096, &cap2);
  g_assert_true (b == a);
  g_assert_cmpuint (cap2, ==, cap1);
  /* a much smaller one does not take it */
  guint8 *c = ncz_buffer_alloc (300 * 1024, &cap3);
  g_assert_true (c != b);
  ncz_buffer_release (c, cap3);

  /* a GBytes gives its buffer back when freed */
  GBytes *bytes = ncz_buffer_new_bytes (b, 10, cap2);
  g_bytes_unref (bytes);
  guint8 *d = ncz_buffer_alloc (1 << 20, &cap2);
  g_assert_true (d == a);

  /* released on another thread: not in this thread's cache */
  g_autoptr(GObject) holder = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_set_data (holder, "buf", d);
  g_object_set_data (holder, "capacity", GSIZE_TO_POINTER (cap2));
  GThread *t = g_thread_new ("release", release_on_thread, holder);
  g_thread_join (t);
  guint8 *e = ncz_buffer_alloc (1 << 20, &cap2);
  g_assert_true (e != a);
  ncz_buffer_release (e, cap2);

  /* small buffers are plain allocations */
  gsize small;
  gpointer f = ncz_buffer_alloc (100, &small);
  g_assert_cmpuint (small, ==, 100);
  ncz_buffer_release (f, small);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  filter_test_format_register ();
  g_test_add_func ("/model/types", test_types);
  g_test_add_func ("/model/define", test_define);
  g_test_add_func ("/model/attribute/numeric-getters", test_attribute_getters);
  g_test_add_func ("/model/slab/roundtrip", test_slab_roundtrip);
  g_test_add_func ("/model/slab/random", test_slab_large_random);
  g_test_add_func ("/model/slab/error-stops", test_slab_error_stops);
  g_test_add_func ("/model/buffer-cache", test_buffer_cache);
  g_test_add_func ("/model/scalar-and-strings", test_scalar_and_strings);
  g_test_add_func ("/model/unlimited-and-close", test_unlimited_and_readonly);
  g_test_add_func ("/model/async-read", test_async_read);
  g_test_add_func ("/model/closed-data", test_closed_data);
  return g_test_run ();
}
