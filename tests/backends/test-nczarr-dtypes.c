/* test-nczarr-dtypes.c: the Zarr v2 data types zarr-python and xarray
 * write, from hand-written .zarray objects and chunk bytes: "|b1" read as
 * ubyte 0/1, "<f2"/">f2" widened to float, "<U<n>"/">U<n>" and "|O" with
 * "vlen-utf8" / "vlen-bytes" read as strings (missing chunks as the fill
 * value, longer strings than the default width, F order), the stored type
 * kept when written to plain Zarr; arrays whose dtype or object codec is
 * not supported open and fail only when read; strings longer than a
 * fixed-width variable are an error, never truncated.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-test-util.h"

#define ZGROUP "{\"zarr_format\": 2}"

static char *
zarray (const char *shape, const char *chunks, const char *dtype, const char *fill,
        const char *order, const char *filters)
{
  return g_strdup_printf ("{\"zarr_format\": 2, \"shape\": %s, \"dtype\": \"%s\", \"chunks\": %s, "
                          "\"fill_value\": %s, \"order\": \"%s\", \"compressor\": null, "
                          "\"filters\": %s}", shape, dtype, chunks, fill, order, filters);
}

static NczMemoryStore *
store_with (const char *name, const char *zarray_text)
{
  NczMemoryStore *store = ncz_memory_store_new ();
  g_autofree char *key = g_strdup_printf ("%s/.zarray", name);
  nczt_put (store, ".zgroup", ZGROUP);
  nczt_put (store, key, zarray_text);
  return store;
}

static NczDataset *
open_pure (NczMemoryStore *store)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

/* little-endian uint32 */
static void
le32 (GByteArray *a, guint32 v)
{
  guint8 b[4] = { (guint8) v, (guint8) (v >> 8), (guint8) (v >> 16), (guint8) (v >> 24) };
  g_byte_array_append (a, b, 4);
}

/* numcodecs' VLenUTF8 / VLenBytes framing of @n items */
static GBytes *
vlen (const char *const *items, guint n)
{
  GByteArray *a = g_byte_array_new ();
  le32 (a, n);
  for (guint i = 0; i < n; i++)
    {
      le32 (a, (guint32) strlen (items[i]));
      g_byte_array_append (a, (const guint8 *) items[i], (guint) strlen (items[i]));
    }
  return g_byte_array_free_to_bytes (a);
}

static void
put_gbytes (NczMemoryStore *store, const char *key, GBytes *b)
{
  nczt_put_bytes (store, key, g_bytes_get_data (b, NULL), g_bytes_get_size (b));
}

/* ---- |b1 ---- */

static void
test_bool (void)
{
  g_autofree char *za = zarray ("[3]", "[2]", "|b1", "false", "C", "null");
  g_autoptr(NczMemoryStore) store = store_with ("b", za);
  g_autoptr(NczDataset) ds = NULL;
  static const guint8 c0[2] = { 1, 0 };
  guint8 got[3];
  NczVariable *v;

  nczt_put_bytes (store, "b/0", c0, 2);   /* chunk 1 missing: the fill (false) */
  ds = open_pure (store);
  v = nczt_var (ds, "b");
  g_assert_cmpint (ncz_variable_get_value_type (v), ==, NCZ_DATA_TYPE_UBYTE);
  g_assert_cmpstr (ncz_variable_get_storage_dtype (v), ==, "|b1");
  nczt_read_all (v, got, 3);
  g_assert_cmpmem (got, 3, "\1\0\0", 3);
}

/* A copy to plain Zarr keeps "|b1" and "f2": what ncz-copy does */
static void
test_bool_half_write (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=zarr,file");
  g_autoptr(NczDataset) back = NULL;
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  NczVariable *b = ncz_group_add_variable (root, "b", NCZ_DATA_TYPE_UBYTE, 1, &x, &error);
  NczVariable *h = ncz_group_add_variable (root, "h", NCZ_DATA_TYPE_FLOAT, 1, &x, &error);
  NczVariable *hb = ncz_group_add_variable (root, "hb", NCZ_DATA_TYPE_FLOAT, 1, &x, &error);
  guint64 start = 0, count = 3;
  const guint8 bools[3] = { 1, 0, 1 }, two[3] = { 0, 2, 0 };
  const float hv[3] = { 1.0f, -2.5f, 65504.0f };
  float got[3];
  g_autofree char *za = NULL;
  g_autoptr(GBytes) chunk = NULL;

  g_assert_no_error (error);
  ncz_variable_set_storage_dtype (b, "|b1");
  ncz_variable_set_storage_dtype (h, "<f2");
  ncz_variable_set_storage_dtype (hb, ">f2");
  g_assert_true (ncz_variable_set_endianness (hb, NCZ_ENDIANNESS_BIG, &error));
  g_assert_true (ncz_variable_write (b, &start, 1, &count, 1, NULL, 0, bools, 3, NULL, &error));
  g_assert_no_error (error);
  /* a boolean is 0 or 1: 2 is an error, not a silent 1 */
  g_assert_false (ncz_variable_write (b, &start, 1, &count, 1, NULL, 0, two, 3, NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK);
  g_assert_nonnull (strstr (error->message, "'|b1'"));
  g_clear_error (&error);
  g_assert_true (ncz_variable_write (h, &start, 1, &count, 1, NULL, 0, hv, sizeof hv, NULL, &error));
  g_assert_true (ncz_variable_write (hb, &start, 1, &count, 1, NULL, 0, hv, sizeof hv, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  za = nczt_get (store, "b/.zarray");
  g_assert_nonnull (strstr (za, "\"dtype\": \"|b1\""));
  g_free (za);
  za = nczt_get (store, "h/.zarray");
  g_assert_nonnull (strstr (za, "\"dtype\": \"<f2\""));
  g_free (za);
  za = nczt_get (store, "hb/.zarray");
  g_assert_nonnull (strstr (za, "\"dtype\": \">f2\""));
  chunk = ncz_store_read (NCZ_STORE (store), "b/0", NULL, &error);
  g_assert_cmpmem (g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk), "\1\0\1", 3);
  g_bytes_unref (chunk);
  chunk = ncz_store_read (NCZ_STORE (store), "h/0", NULL, &error);
  g_assert_cmpmem (g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk),
                   "\x00\x3c\x00\xc1\xff\x7b", 6);
  g_bytes_unref (chunk);
  chunk = ncz_store_read (NCZ_STORE (store), "hb/0", NULL, &error);
  g_assert_cmpmem (g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk),
                   "\x3c\x00\xc1\x00\x7b\xff", 6);

  back = open_pure (store);
  nczt_read_all (nczt_var (back, "hb"), got, sizeof got);
  g_assert_cmpmem (got, sizeof got, hv, sizeof hv);
  g_assert_cmpstr (ncz_variable_get_storage_dtype (nczt_var (back, "hb")), ==, ">f2");

  /* NCZarr (for netcdf-c) stores plain ubyte and float */
  {
    g_autoptr(NczMemoryStore) s2 = NULL;
    g_autoptr(NczDataset) d2 = nczt_create_mem (&s2, "mode=nczarr,file");
    NczGroup *r2 = ncz_dataset_get_root_group (d2);
    NczDimension *x2 = ncz_group_add_dimension (r2, "x", 3, FALSE, &error);
    NczVariable *b2 = ncz_group_add_variable (r2, "b", NCZ_DATA_TYPE_UBYTE, 1, &x2, &error);
    ncz_variable_set_storage_dtype (b2, "|b1");
    g_assert_true (ncz_variable_write (b2, &start, 1, &count, 1, NULL, 0, bools, 3, NULL, &error));
    g_assert_true (ncz_dataset_close (d2, NULL, &error));
    g_assert_no_error (error);
    g_free (za);
    za = nczt_get (s2, "b/.zarray");
    g_assert_nonnull (strstr (za, "u1\""));
    g_assert_null (strstr (za, "b1"));
  }
}

/* ---- f2 ---- */

static void
test_half (void)
{
  /* 1, -2.5, 65504, inf, smallest subnormal, NaN; big-endian, F order 2x3 */
  static const guint8 le[12] = { 0x00, 0x3c, 0x00, 0xc1, 0xff, 0x7b, 0x00, 0x7c, 0x01, 0x00, 0x00, 0x7e };
  static const float want[6] = { 1.0f, -2.5f, 65504.0f, INFINITY, 5.9604644775390625e-08f, NAN };
  guint8 be[12];
  float got[6];

  for (guint i = 0; i < 12; i += 2)
    {
      be[i] = le[i + 1];
      be[i + 1] = le[i];
    }
  for (int big = 0; big < 2; big++)
    {
      g_autofree char *za = zarray ("[6]", "[6]", big ? ">f2" : "<f2", "\"NaN\"", "C", "null");
      g_autoptr(NczMemoryStore) store = store_with ("h", za);
      g_autoptr(NczDataset) ds = NULL;
      NczVariable *v;

      nczt_put_bytes (store, "h/0", big ? be : le, 12);
      ds = open_pure (store);
      v = nczt_var (ds, "h");
      g_assert_cmpint (ncz_variable_get_value_type (v), ==, NCZ_DATA_TYPE_FLOAT);
      nczt_read_all (v, got, sizeof got);
      for (guint i = 0; i < 5; i++)
        g_assert_cmpfloat (got[i], ==, want[i]);
      g_assert_true (isnan (got[5]));
    }
  {
    /* F order: stored column by column */
    g_autofree char *za = zarray ("[2, 3]", "[2, 3]", "<f2", "0", "F", "null");
    g_autoptr(NczMemoryStore) store = store_with ("h", za);
    g_autoptr(NczDataset) ds = NULL;
    /* C order values 1 2 3 / 4 5 6 -> F bytes 1 4 2 5 3 6 */
    static const guint8 f[12] = { 0x00, 0x3c, 0x00, 0x44, 0x00, 0x40, 0x00, 0x45, 0x00, 0x42, 0x00, 0x46 };
    nczt_put_bytes (store, "h/0.0", f, 12);
    ds = open_pure (store);
    nczt_read_all (nczt_var (ds, "h"), got, sizeof got);
    for (guint i = 0; i < 6; i++)
      g_assert_cmpfloat (got[i], ==, (float) (i + 1));
  }
}

/* ---- strings ---- */

static void
test_vlen_utf8 (void)
{
  g_autofree char *za = zarray ("[5]", "[2]", "|O", "null", "C", "[{\"id\": \"vlen-utf8\"}]");
  g_autoptr(NczMemoryStore) store = store_with ("s", za);
  g_autoptr(NczDataset) ds = NULL;
  g_autofree char *long_text = g_strnfill (300, 'q');
  const char *c0[] = { "alpha", "h\xc3\xa9llo" };
  const char *c1[] = { long_text, "" };
  g_autoptr(GBytes) b0 = vlen (c0, 2);
  g_autoptr(GBytes) b1 = vlen (c1, 2);
  g_auto(GStrv) got = NULL;
  NczVariable *v;

  put_gbytes (store, "s/0", b0);
  put_gbytes (store, "s/1", b1);   /* chunk 2 missing: "" */
  ds = open_pure (store);
  v = nczt_var (ds, "s");
  g_assert_cmpint (ncz_variable_get_value_type (v), ==, NCZ_DATA_TYPE_STRING);
  got = nczt_read_strings (v);
  g_assert_cmpstr (got[0], ==, "alpha");
  g_assert_cmpstr (got[1], ==, "h\xc3\xa9llo");
  g_assert_cmpstr (got[2], ==, long_text);   /* 300 bytes, not 128 */
  g_assert_cmpstr (got[3], ==, "");
  g_assert_cmpstr (got[4], ==, "");
  g_assert_cmpuint (ncz_variable_get_max_string_length (v), >=, 300);
}

static void
test_vlen_fill_and_bytes (void)
{
  g_autofree char *za = zarray ("[4]", "[2]", "|O", "\"zz\"", "C", "[{\"id\": \"vlen-bytes\"}]");
  g_autoptr(NczMemoryStore) store = store_with ("s", za);
  g_autoptr(NczDataset) ds = NULL;
  const char *c0[] = { "x", "yy" };
  g_autoptr(GBytes) b0 = vlen (c0, 2);
  g_auto(GStrv) got = NULL;

  put_gbytes (store, "s/0", b0);
  ds = open_pure (store);
  got = nczt_read_strings (nczt_var (ds, "s"));
  g_assert_cmpstr (got[0], ==, "x");
  g_assert_cmpstr (got[1], ==, "yy");
  g_assert_cmpstr (got[2], ==, "zz");
  g_assert_cmpstr (got[3], ==, "zz");
}

static void
test_vlen_forder (void)
{
  g_autofree char *za = zarray ("[2, 2]", "[2, 2]", "|O", "\"\"", "F", "[{\"id\": \"vlen-utf8\"}]");
  g_autoptr(NczMemoryStore) store = store_with ("s", za);
  g_autoptr(NczDataset) ds = NULL;
  const char *f[] = { "a", "c", "b", "d" };   /* C order a b / c d */
  g_autoptr(GBytes) b = vlen (f, 4);
  g_auto(GStrv) got = NULL;

  put_gbytes (store, "s/0.0", b);
  ds = open_pure (store);
  got = nczt_read_strings (nczt_var (ds, "s"));
  g_assert_cmpstr (got[0], ==, "a");
  g_assert_cmpstr (got[1], ==, "b");
  g_assert_cmpstr (got[2], ==, "c");
  g_assert_cmpstr (got[3], ==, "d");
}

static void
test_vlen_corrupt (void)
{
  static const struct { const char *what; const char *bytes; gsize len; } cases[] = {
    { "count", "\3\0\0\0\1\0\0\0a\1\0\0\0b", 14 },
    { "truncated", "\2\0\0\0\1\0\0\0a\11\0\0\0b", 14 },
    { "short", "\2\0", 2 },
    { "trailing", "\2\0\0\0\1\0\0\0a\1\0\0\0bXX", 16 },
    { "nul", "\2\0\0\0\1\0\0\0\0\1\0\0\0b", 14 },
    { "utf8", "\2\0\0\0\1\0\0\0\xff\1\0\0\0b", 14 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *za = zarray ("[2]", "[2]", "|O", "null", "C", "[{\"id\": \"vlen-utf8\"}]");
      g_autoptr(NczMemoryStore) store = store_with ("s", za);
      g_autoptr(NczDataset) ds = NULL;
      g_autoptr(GError) error = NULL;
      char *buf[2] = { NULL, NULL };
      guint64 start = 0, count = 2;

      nczt_put_bytes (store, "s/0", cases[i].bytes, cases[i].len);
      ds = open_pure (store);
      g_test_message ("%s", cases[i].what);
      g_assert_false (ncz_variable_read (nczt_var (ds, "s"), &start, 1, &count, 1, NULL, 0, buf,
                                         sizeof buf, NULL, &error));
      g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK);
      g_assert_nonnull (strstr (error->message, "'s/0'"));
    }
}

static void
test_unicode (void)
{
  for (int big = 0; big < 2; big++)
    {
      g_autofree char *za = zarray ("[3]", "[3]", big ? ">U3" : "<U3", "\"\"", "C", "null");
      g_autoptr(NczMemoryStore) store = store_with ("u", za);
      g_autoptr(NczDataset) ds = NULL;
      g_auto(GStrv) got = NULL;
      /* "ab", "d\u00e9f", "\U0001F600" */
      static const guint32 cps[9] = { 'a', 'b', 0, 'd', 0xe9, 'f', 0x1f600, 0, 0 };
      guint8 bytes[36];

      for (guint i = 0; i < 9; i++)
        for (guint k = 0; k < 4; k++)
          bytes[i * 4 + k] = (guint8) (cps[i] >> (8 * (big ? 3 - k : k)));
      nczt_put_bytes (store, "u/0", bytes, sizeof bytes);
      ds = open_pure (store);
      got = nczt_read_strings (nczt_var (ds, "u"));
      g_assert_cmpstr (got[0], ==, "ab");
      g_assert_cmpstr (got[1], ==, "d\xc3\xa9" "f");
      g_assert_cmpstr (got[2], ==, "\xf0\x9f\x98\x80");
    }
}

/* ---- not supported: the dataset opens, reading fails ---- */

static void
test_unsupported (void)
{
  static const struct { const char *dtype, *filters, *needle; } cases[] = {
    { "<c8", "null", "'<c8'" },
    { "|V8", "null", "'|V8'" },
    { "<M8[ns]", "null", "'<M8[ns]'" },
    { "|O", "[{\"id\": \"pickle\"}]", "'pickle'" },
    { "|O", "[{\"id\": \"json2\"}]", "'json2'" },
    { "|O", "null", "'|O'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *za = zarray ("[2]", "[2]", cases[i].dtype, "null", "C", cases[i].filters);
      g_autoptr(NczMemoryStore) store = store_with ("bad", za);
      g_autoptr(NczDataset) ds = NULL;
      g_autoptr(GError) error = NULL;
      guint8 buf[64];
      char *sbuf[2] = { NULL, NULL };
      guint64 start = 0, count = 2;
      NczVariable *v;
      gboolean ok;

      nczt_put (store, "good/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", "
                "\"chunks\": [2], \"fill_value\": 7, \"order\": \"C\", \"compressor\": null, "
                "\"filters\": null}");
      ds = open_pure (store);
      /* the other arrays read */
      {
        gint32 iv[2];
        nczt_read_all (nczt_var (ds, "good"), iv, sizeof iv);
        g_assert_cmpint (iv[0], ==, 7);
      }
      v = nczt_var (ds, "bad");
      if (ncz_variable_get_value_type (v) == NCZ_DATA_TYPE_STRING)
        ok = ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, sbuf, sizeof sbuf, NULL, &error);
      else
        ok = ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, buf, sizeof buf, NULL, &error);
      g_assert_false (ok);
      g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
      g_assert_nonnull (strstr (error->message, "bad/.zarray"));
      g_assert_nonnull (strstr (error->message, "file:///"));
    }
}

/* ---- item 7: nothing silently cut ---- */

static void
test_too_long_string (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file");
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "names", NCZ_DATA_TYPE_STRING, 1, &x, &error);
  g_autofree char *long_text = g_strnfill (203, 'L');
  g_autofree char *max_text = g_strnfill (128, 'M');
  const char *values[] = { "short", long_text, NULL };
  const char *fits[] = { "short", max_text, NULL };
  guint64 start = 0, count = 2;

  g_assert_false (ncz_variable_write_strings (v, &start, 1, &count, 1, NULL, 0, values, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'/names'"));
  g_assert_nonnull (strstr (error->message, "203 bytes"));
  g_assert_nonnull (strstr (error->message, "128"));
  g_clear_error (&error);
  g_assert_true (ncz_variable_write_strings (v, &start, 1, &count, 1, NULL, 0, fits, NULL, &error));
  g_assert_no_error (error);
}

/* plain Zarr: strings of any length, as "|O" + "vlen-utf8" */
static void
test_pure_vlen_write (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=zarr,file");
  g_autoptr(NczDataset) back = NULL;
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, "names", NCZ_DATA_TYPE_STRING, 1, &x, &error);
  g_autofree char *long_text = g_strnfill (203, 'L');
  const char *values[] = { "short", long_text, "h\xc3\xa9", NULL };
  const char *part[] = { "mid", NULL };
  guint64 start = 0, count = 3, one = 1, at1 = 1;
  g_autofree char *za = NULL;
  g_auto(GStrv) got = NULL;

  g_assert_true (ncz_variable_write_strings (v, &start, 1, &count, 1, NULL, 0, values, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  za = nczt_get (store, "names/.zarray");
  g_assert_nonnull (strstr (za, "\"dtype\": \"|O\""));
  g_assert_nonnull (strstr (za, "\"id\": \"vlen-utf8\""));

  /* a partial write over a chunk holding a long string */
  back = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write_strings (nczt_var (back, "names"), &at1, 1, &one, 1, NULL, 0,
                                             (const char *const *) part, NULL, &error));
  g_assert_no_error (error);
  got = nczt_read_strings (nczt_var (back, "names"));
  g_assert_cmpstr (got[0], ==, "short");
  g_assert_cmpstr (got[1], ==, "mid");
  g_assert_cmpstr (got[2], ==, "h\xc3\xa9");
  g_strfreev (got);
  part[0] = long_text;
  g_assert_true (ncz_variable_write_strings (nczt_var (back, "names"), &at1, 1, &one, 1, NULL, 0,
                                             (const char *const *) part, NULL, &error));
  g_assert_no_error (error);
  got = nczt_read_strings (nczt_var (back, "names"));
  g_assert_cmpstr (got[1], ==, long_text);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  nczt_init ();
  g_test_add_func ("/nczarr-dtypes/bool", test_bool);
  g_test_add_func ("/nczarr-dtypes/bool-half-write", test_bool_half_write);
  g_test_add_func ("/nczarr-dtypes/half", test_half);
  g_test_add_func ("/nczarr-dtypes/vlen-utf8", test_vlen_utf8);
  g_test_add_func ("/nczarr-dtypes/vlen-fill-bytes", test_vlen_fill_and_bytes);
  g_test_add_func ("/nczarr-dtypes/vlen-forder", test_vlen_forder);
  g_test_add_func ("/nczarr-dtypes/vlen-corrupt", test_vlen_corrupt);
  g_test_add_func ("/nczarr-dtypes/unicode", test_unicode);
  g_test_add_func ("/nczarr-dtypes/unsupported", test_unsupported);
  g_test_add_func ("/nczarr-dtypes/too-long-string", test_too_long_string);
  g_test_add_func ("/nczarr-dtypes/pure-vlen-write", test_pure_vlen_write);
  return g_test_run ();
}
