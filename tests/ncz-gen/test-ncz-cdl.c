/* test-ncz-cdl.c: unit tests of the CDL parser behind ncz-gen
 *
 * Each test defines a dataset in a memory store and inspects the model:
 * constants and their types, inference, data (partial, fill, char and
 * string), groups, unlimited dimensions, special attributes, and
 * malformed inputs, which must fail with the right line and column.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>
#include "ncz-cdl.h"

typedef struct {
  NczMemoryStore *store;
  NczDataset *ds;
} Fixture;

static NczDataset *
generate (const char *cdl, NczMemoryStore **store_out, GError **error)
{
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///unused#mode=nczarr,file", NULL);
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(NczDataset) ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, NULL);

  g_assert_nonnull (ds);
  if (!ncz_cdl_generate_into (cdl, -1, "t.cdl", ds, 1 << 20, NULL, error))
    return NULL;
  if (store_out)
    *store_out = g_steal_pointer (&store);
  return g_steal_pointer (&ds);
}

static NczDataset *
generate_ok (const char *cdl)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = generate (cdl, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

static NczAttribute *
global_attr (NczDataset *ds, const char *name)
{
  NczAttribute *a = ncz_group_get_attribute (ncz_dataset_get_root_group (ds), name);
  g_assert_nonnull (a);
  return a;
}

static NczVariable *
var_of (NczDataset *ds, const char *name)
{
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
  g_assert_nonnull (v);
  return v;
}

static GBytes *
read_all (NczVariable *v)
{
  guint rank;
  g_autofree guint64 *shape = ncz_variable_get_shape (v, &rank);
  g_autofree guint64 *start = g_new0 (guint64, MAX (rank, 1));
  g_autoptr(GError) error = NULL;
  GBytes *b = ncz_variable_read_bytes (v, start, rank, shape, rank, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  return b;
}

static void
assert_error_at (const char *cdl, const char *where)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = generate (cdl, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "t.cdl:"));
  if (!g_str_has_prefix (error->message + strlen ("t.cdl:"), where))
    g_error ("expected an error at %s, got: %s", where, error->message);
}

/* ---- constants ---- */

static void
test_constants (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf c {\n"
    ":b = 1b, -2B ;\n"
    ":ub = 3UB ;\n"
    ":s = 2s ;\n"
    ":us = 6US ;\n"
    ":i = 7, 8L ;\n"
    ":u = 9U, 10UL ;\n"
    ":ll = 4LL ;\n"
    ":ull = 5ULL, 18446744073709551615ULL ;\n"
    ":f = 5.f, 1.e+30f, NaNf, -Infinityf ;\n"
    ":d = 1.e+30, NaN, Infinity, -Inf, 2.5d, .5 ;\n"
    ":txt = \"a\\tb\\n\\\"q\\\"\\\\\\101\\x42\" ;\n"
    ":cat = \"ab\", \"cd\" ;\n"
    ":chars = 'a', '\\n' ;\n"
    "}\n");
  NczAttribute *a;

  a = global_attr (ds, "b");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_BYTE);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 1, NULL), ==, -2);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "ub")), ==, NCZ_DATA_TYPE_UBYTE);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "s")), ==, NCZ_DATA_TYPE_SHORT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "us")), ==, NCZ_DATA_TYPE_USHORT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "i")), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "u")), ==, NCZ_DATA_TYPE_UINT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "ll")), ==, NCZ_DATA_TYPE_INT64);
  a = global_attr (ds, "ull");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UINT64);
  g_assert_cmpuint (ncz_attribute_get_uint64 (a, 1, NULL), ==, G_MAXUINT64);
  a = global_attr (ds, "f");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_FLOAT);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==, 5.0);
  g_assert_true (isnan (ncz_attribute_get_double (a, 2, NULL)));
  g_assert_true (isinf (ncz_attribute_get_double (a, 3, NULL)) && ncz_attribute_get_double (a, 3, NULL) < 0);
  a = global_attr (ds, "d");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_DOUBLE);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==, 1e30);
  g_assert_true (isnan (ncz_attribute_get_double (a, 1, NULL)));
  g_assert_true (isinf (ncz_attribute_get_double (a, 3, NULL)) && ncz_attribute_get_double (a, 3, NULL) < 0);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 5, NULL), ==, 0.5);
  {
    g_autofree char *t = ncz_attribute_get_text (global_attr (ds, "txt"), NULL);
    g_assert_cmpstr (t, ==, "a\tb\n\"q\"\\AB");
  }
  {
    g_autofree char *t = ncz_attribute_get_text (global_attr (ds, "cat"), NULL);
    g_assert_cmpstr (t, ==, "abcd");
  }
  a = global_attr (ds, "chars");   /* ncgen: character constants make bytes */
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_BYTE);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, 'a');
}

static void
test_inference (void)
{
  /* as ncgen 4.9.0: the list takes the type of highest rank (byte <
   * short < int < int64 < float < double), the later one on a tie */
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf c {\n"
    ":a1 = 1b, 2s ;\n"
    ":a2 = 1, 2.5f ;\n"
    ":a3 = 1, 3000000000 ;\n"
    ":a4 = 1UB, -1b ;\n"
    ":a5 = 1.f, 2. ;\n"
    ":a6 = 5000000000 ;\n"
    ":a7 = 1ULL, 2LL ;\n"
    ":a8 = 1.f, 1LL ;\n"
    ":a9 = -5000000000 ;\n"
    "string :s1 = \"x\", \"y\" ;\n"
    "int64 :s2 = 1 ;\n"
    "float :s3 = 1, 2.5 ;\n"
    "char :s4 = \"ab\", \"cd\" ;\n"
    "byte :s5 = 'a', 300 ;\n"
    "}\n");
  static const struct { const char *name; NczDataType type; } expect[] = {
    { "a1", NCZ_DATA_TYPE_SHORT }, { "a2", NCZ_DATA_TYPE_FLOAT }, { "a3", NCZ_DATA_TYPE_UINT },
    { "a4", NCZ_DATA_TYPE_BYTE }, { "a5", NCZ_DATA_TYPE_DOUBLE }, { "a6", NCZ_DATA_TYPE_UINT64 },
    { "a7", NCZ_DATA_TYPE_INT64 }, { "a8", NCZ_DATA_TYPE_FLOAT }, { "a9", NCZ_DATA_TYPE_INT64 },
    { "s1", NCZ_DATA_TYPE_STRING }, { "s2", NCZ_DATA_TYPE_INT64 }, { "s3", NCZ_DATA_TYPE_FLOAT },
    { "s4", NCZ_DATA_TYPE_CHAR }, { "s5", NCZ_DATA_TYPE_BYTE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      NczAttribute *a = global_attr (ds, expect[i].name);
      if (ncz_attribute_get_value_type (a) != expect[i].type)
        g_error ("%s: type %s, expected %s", expect[i].name,
                 ncz_data_type_get_name (ncz_attribute_get_value_type (a)),
                 ncz_data_type_get_name (expect[i].type));
    }
  g_assert_cmpint (ncz_attribute_get_length (global_attr (ds, "s1")), ==, 2);
  g_assert_cmpint (ncz_attribute_get_int64 (global_attr (ds, "s5"), 1, NULL), ==, 44);
}

/* ---- data ---- */

static void
test_data_partial_fill (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf d {\n"
    "dimensions:\n  x = 3 ;\n  y = 2 ;\n"
    "variables:\n"
    "  int v(x, y) ;\n    v:_FillValue = -1 ;\n"
    "  byte b(y) ;\n"
    "  double s ;\n"
    "data:\n"
    "  v = 1, _, 3 ;\n"
    "  b = 2.7, -3.9 ;\n"
    "  s = 7 ;\n"
    "}\n");
  g_autoptr(GBytes) v = read_all (var_of (ds, "v"));
  g_autoptr(GBytes) b = read_all (var_of (ds, "b"));
  g_autoptr(GBytes) s = read_all (var_of (ds, "s"));
  const gint32 *vi = g_bytes_get_data (v, NULL);
  const gint8 *bi = g_bytes_get_data (b, NULL);
  const double *sd = g_bytes_get_data (s, NULL);

  g_assert_cmpint (vi[0], ==, 1);
  g_assert_cmpint (vi[1], ==, -1);
  g_assert_cmpint (vi[2], ==, 3);
  g_assert_cmpint (vi[3], ==, -1);
  g_assert_cmpint (vi[5], ==, -1);
  g_assert_cmpint (bi[0], ==, 2);
  g_assert_cmpint (bi[1], ==, -3);
  g_assert_cmpfloat (sd[0], ==, 7.0);
}

static void
test_data_chars_strings (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf d {\n"
    "dimensions:\n  d = 3 ;\n  n = 4 ;\n  u = UNLIMITED ; // (0 currently)\n"
    "variables:\n"
    "  char c1(n) ;\n  char c2(d, n) ;\n  char c4(u) ;\n  char c0 ;\n"
    "  string st(d) ;\n"
    "data:\n"
    "  c1 = \"ab\" ;\n"
    "  c2 = \"abcdef\", \"x\" ;\n"
    "  c4 = \"hello\", \"x\" ;\n"
    "  c0 = \"q\" ;\n"
    "  st = \"one\", NIL, \"three\" ;\n"
    "}\n");
  g_autoptr(GBytes) c1 = read_all (var_of (ds, "c1"));
  g_autoptr(GBytes) c2 = read_all (var_of (ds, "c2"));
  g_autoptr(GBytes) c4 = read_all (var_of (ds, "c4"));
  g_autoptr(GBytes) c0 = read_all (var_of (ds, "c0"));
  gsize n;
  const char *p;
  guint64 start = 0, count = 3;
  g_auto(GStrv) strs = NULL;
  g_autoptr(GError) error = NULL;

  p = g_bytes_get_data (c1, &n);
  g_assert_cmpmem (p, n, "ab\0\0", 4);
  p = g_bytes_get_data (c2, &n);
  g_assert_cmpmem (p, n, "abcdef\0\0x\0\0\0", 12);
  p = g_bytes_get_data (c4, &n);   /* unlimited last dimension: no padding */
  g_assert_cmpmem (p, n, "hellox", 6);
  p = g_bytes_get_data (c0, &n);
  g_assert_cmpmem (p, n, "q", 1);
  strs = ncz_variable_read_strings (var_of (ds, "st"), &start, 1, &count, 1, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strs[0], ==, "one");
  g_assert_cmpstr (strs[1], ==, "");
  g_assert_cmpstr (strs[2], ==, "three");
}

/* The extreme constants of every type, in attributes, in data and in
 * _FillValue, with and without suffixes: as ncgen 4.9.0 writes them
 * (checked with `ncgen -k nc4` and ncdump; its NCZarr attributes keep
 * only 6 digits, so the HDF5 file is the reference), except where ncgen
 * is wrong and C is followed: ncgen widens the byte -128b of a list of
 * mixed types to 128 where C's conversion keeps -128. A real constant is
 * rounded once from its text, as strtof (suffix f) and strtod round it;
 * a double stored as a float is rounded to nearest, FLT_MAX up to
 * FLT_MAX + half an ulp. */
static const char extremes_cdl[] =
  "netcdf x {\n"
  "dimensions:\n  n = 4 ;\n"
  "variables:\n"
  "  float f(n) ;\n"
  "    f:a1 = 3.4028235e+38f, 3.40282346638528859811704183484516925440e+38f, -3.4028235e+38f, 3.4028236e+38f ;\n"
  "    f:a2 = 1.17549435e-38f, 1.4e-45f, 1.401298464e-45f, 7e-46f ;\n"
  "    f:a3 = 16777217f, -3.4028235e+38F, 3.4028235e+38d, 1e-45f ;\n"
  "    float f:a4 = 3.4028235e+38, -3.4028235e+38, 3.4028236e+38, 1.4e-45 ;\n"
  "    f:_FillValue = 3.4028235e+38f ;\n"
  "  float g(n) ;\n"
  "    g:_FillValue = -3.4028235e+38 ;\n"
  "  double d(n) ;\n"
  "    d:a1 = 1.7976931348623157e+308, 2.2250738585072014e-308, 4.9406564584124654e-324, -1.7976931348623157e308 ;\n"
  "    d:a2 = 1.7976931348623157e+308d, 3.4028235e+38f, 1.8e308, 2e-324 ;\n"
  "    d:_FillValue = -1.7976931348623157e+308 ;\n"
  "  byte b(n) ;\n"
  "    b:a = -128b, 127b ;\n"
  "    b:m = -128b, 127b, -128, 127 ;\n"
  "    b:_FillValue = -128b ;\n"
  "  ubyte ub(n) ;\n    ub:a = 0ub, 255UB ;\n    ub:_FillValue = 255ub ;\n"
  "  short s(n) ;\n    s:a = -32768s, 32767S ;\n    s:_FillValue = -32768s ;\n"
  "  ushort us(n) ;\n    us:a = 0us, 65535us ;\n    us:_FillValue = 65535us ;\n"
  "  int i(n) ;\n    i:a = -2147483648, 2147483647, -2147483648l, 2147483647L ;\n"
  "    i:_FillValue = -2147483648 ;\n"
  "  uint ui(n) ;\n    ui:a = 0u, 4294967295U, 4294967295ul ;\n    ui:_FillValue = 4294967295u ;\n"
  "  int64 i64(n) ;\n"
  "    i64:a = -9223372036854775808ll, 9223372036854775807LL, -9223372036854775808 ;\n"
  "    i64:_FillValue = -9223372036854775808ll ;\n"
  "  uint64 u64(n) ;\n"
  "    u64:a = 0ull, 18446744073709551615ULL, 18446744073709551615 ;\n"
  "    u64:_FillValue = 18446744073709551615ull ;\n"
  "data:\n"
  "  f = 3.4028235e+38f, -3.4028235e+38, 1.4e-45f, 3.4028236e+38 ;\n"
  "  g = 3.4028235e+38, 3.4028236e+38f, 7e-46f, 1.0e-45 ;\n"
  "  d = 1.7976931348623157e+308, 4.9406564584124654e-324, 3.4028235e+38f, -1.7976931348623157e+308d ;\n"
  "  b = -128b, 127b, -128, 127 ;\n"
  "  ub = 0ub, 255ub, 255, 0 ;\n"
  "  s = -32768s, 32767s, -32768, 32767 ;\n"
  "  us = 0us, 65535us, 65535, 0 ;\n"
  "  i = -2147483648, 2147483647, -2147483648l, 2147483647l ;\n"
  "  ui = 0u, 4294967295u, 4294967295, 0 ;\n"
  "  i64 = -9223372036854775808ll, 9223372036854775807ll, -9223372036854775808, 9223372036854775807 ;\n"
  "  u64 = 0ull, 18446744073709551615ull, 18446744073709551615, 0 ;\n"
  "}\n";

static void
assert_float_bits (float got, float want, const char *what, guint i)
{
  if (memcmp (&got, &want, sizeof got) != 0)
    g_error ("%s[%u]: %.9g, expected %.9g", what, i, got, want);
}

static void
assert_double_bits (double got, double want, const char *what, guint i)
{
  if (memcmp (&got, &want, sizeof got) != 0)
    g_error ("%s[%u]: %.17g, expected %.17g", what, i, got, want);
}

static void
assert_float_attr (NczVariable *v, const char *name, const float *want, guint n)
{
  NczAttribute *a = ncz_variable_get_attribute (v, name);
  g_assert_nonnull (a);
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_FLOAT);
  g_assert_cmpuint (ncz_attribute_get_length (a), ==, n);
  for (guint i = 0; i < n; i++)
    assert_float_bits ((float) ncz_attribute_get_double (a, i, NULL), want[i], name, i);
}

static void
assert_double_attr (NczVariable *v, const char *name, const double *want, guint n)
{
  NczAttribute *a = ncz_variable_get_attribute (v, name);
  g_assert_nonnull (a);
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_DOUBLE);
  g_assert_cmpuint (ncz_attribute_get_length (a), ==, n);
  for (guint i = 0; i < n; i++)
    assert_double_bits (ncz_attribute_get_double (a, i, NULL), want[i], name, i);
}

static void
test_constants_extremes (void)
{
  g_autoptr(NczDataset) ds = generate_ok (extremes_cdl);
  const float denorm_f = 0x1p-149f;
  const double denorm_d = 0x1p-1074;

  /* float attributes */
  {
    const float a1[] = { FLT_MAX, FLT_MAX, -FLT_MAX, INFINITY };
    const float a2[] = { FLT_MIN, denorm_f, denorm_f, 0.0f };
    const float a3[] = { 16777216.0f, -FLT_MAX, FLT_MAX, denorm_f };
    const float a4[] = { FLT_MAX, -FLT_MAX, INFINITY, denorm_f };
    NczVariable *f = var_of (ds, "f");
    assert_float_attr (f, "a1", a1, 4);
    assert_float_attr (f, "a2", a2, 4);
    assert_float_attr (f, "a4", a4, 4);
    /* 3.4028235e+38d is a double; the list is double */
    {
      const double a3d[] = { 16777216.0, -(double) FLT_MAX, 3.4028235e+38, (double) denorm_f };
      assert_double_attr (f, "a3", a3d, 4);
      (void) a3;
    }
  }
  /* double attributes */
  {
    const double a1[] = { DBL_MAX, DBL_MIN, denorm_d, -DBL_MAX };
    const double a2[] = { DBL_MAX, (double) FLT_MAX, INFINITY, 0.0 };
    assert_double_attr (var_of (ds, "d"), "a1", a1, 4);
    assert_double_attr (var_of (ds, "d"), "a2", a2, 4);
  }
  /* integer attributes */
  {
    static const struct { const char *var, *attr; NczDataType type; gint64 want[4]; guint n; } ints[] = {
      { "b", "a", NCZ_DATA_TYPE_BYTE, { -128, 127 }, 2 },
      { "b", "m", NCZ_DATA_TYPE_INT, { -128, 127, -128, 127 }, 4 },   /* ncgen: 128, 127, ... */
      { "ub", "a", NCZ_DATA_TYPE_UBYTE, { 0, 255 }, 2 },
      { "s", "a", NCZ_DATA_TYPE_SHORT, { -32768, 32767 }, 2 },
      { "us", "a", NCZ_DATA_TYPE_USHORT, { 0, 65535 }, 2 },
      { "i", "a", NCZ_DATA_TYPE_INT, { G_MININT32, G_MAXINT32, G_MININT32, G_MAXINT32 }, 4 },
      { "ui", "a", NCZ_DATA_TYPE_UINT, { 0, G_MAXUINT32, G_MAXUINT32 }, 3 },
      { "i64", "a", NCZ_DATA_TYPE_INT64, { G_MININT64, G_MAXINT64, G_MININT64 }, 3 },
    };
    for (gsize k = 0; k < G_N_ELEMENTS (ints); k++)
      {
        NczAttribute *a = ncz_variable_get_attribute (var_of (ds, ints[k].var), ints[k].attr);
        g_assert_nonnull (a);
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, ints[k].type);
        g_assert_cmpuint (ncz_attribute_get_length (a), ==, ints[k].n);
        for (guint i = 0; i < ints[k].n; i++)
          if (ncz_attribute_get_int64 (a, i, NULL) != ints[k].want[i])
            g_error ("%s:%s[%u] = %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT,
                     ints[k].var, ints[k].attr, i, ncz_attribute_get_int64 (a, i, NULL), ints[k].want[i]);
      }
    NczAttribute *a = ncz_variable_get_attribute (var_of (ds, "u64"), "a");
    g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UINT64);
    g_assert_cmpuint (ncz_attribute_get_uint64 (a, 0, NULL), ==, 0);
    g_assert_cmpuint (ncz_attribute_get_uint64 (a, 1, NULL), ==, G_MAXUINT64);
    g_assert_cmpuint (ncz_attribute_get_uint64 (a, 2, NULL), ==, G_MAXUINT64);
  }
  /* fill values */
  {
    static const struct { const char *var; gsize size; } fills[] = {
      { "f", 4 }, { "g", 4 }, { "d", 8 }, { "b", 1 }, { "ub", 1 }, { "s", 2 }, { "us", 2 },
      { "i", 4 }, { "ui", 4 }, { "i64", 8 }, { "u64", 8 },
    };
    const float ff = FLT_MAX, gf = -FLT_MAX;
    const double df = -DBL_MAX;
    const gint8 bf = G_MININT8;
    const guint8 ubf = G_MAXUINT8;
    const gint16 sf = G_MININT16;
    const guint16 usf = G_MAXUINT16;
    const gint32 i_f = G_MININT32;
    const guint32 uif = G_MAXUINT32;
    const gint64 i64f = G_MININT64;
    const guint64 u64f = G_MAXUINT64;
    const void *want[] = { &ff, &gf, &df, &bf, &ubf, &sf, &usf, &i_f, &uif, &i64f, &u64f };
    for (gsize k = 0; k < G_N_ELEMENTS (fills); k++)
      {
        g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var_of (ds, fills[k].var));
        gsize n = 0;
        const void *p = g_bytes_get_data (fill, &n);
        if (n != fills[k].size || memcmp (p, want[k], n) != 0)
          g_error ("%s: wrong _FillValue", fills[k].var);
      }
  }
  /* data */
  {
    const float fw[] = { FLT_MAX, -FLT_MAX, denorm_f, INFINITY };
    const float gw[] = { FLT_MAX, INFINITY, 0.0f, denorm_f };
    const double dw[] = { DBL_MAX, denorm_d, (double) FLT_MAX, -DBL_MAX };
    g_autoptr(GBytes) f = read_all (var_of (ds, "f"));
    g_autoptr(GBytes) g = read_all (var_of (ds, "g"));
    g_autoptr(GBytes) d = read_all (var_of (ds, "d"));
    const float *fp = g_bytes_get_data (f, NULL), *gp = g_bytes_get_data (g, NULL);
    const double *dp = g_bytes_get_data (d, NULL);
    for (guint i = 0; i < 4; i++)
      {
        assert_float_bits (fp[i], fw[i], "f", i);
        assert_float_bits (gp[i], gw[i], "g", i);
        assert_double_bits (dp[i], dw[i], "d", i);
      }
  }
  {
    static const struct { const char *var; gint64 lo, hi; gboolean is_unsigned; gsize size; } ints[] = {
      { "b", G_MININT8, G_MAXINT8, FALSE, 1 }, { "ub", 0, G_MAXUINT8, TRUE, 1 },
      { "s", G_MININT16, G_MAXINT16, FALSE, 2 }, { "us", 0, G_MAXUINT16, TRUE, 2 },
      { "i", G_MININT32, G_MAXINT32, FALSE, 4 }, { "ui", 0, G_MAXUINT32, TRUE, 4 },
      { "i64", G_MININT64, G_MAXINT64, FALSE, 8 }, { "u64", 0, -1, TRUE, 8 },
    };
    for (gsize k = 0; k < G_N_ELEMENTS (ints); k++)
      {
        g_autoptr(GBytes) b = read_all (var_of (ds, ints[k].var));
        const guint8 *p = g_bytes_get_data (b, NULL);
        for (guint i = 0; i < 4; i++)
          {
            gint64 x = 0;
            guint64 u = 0;
            switch (ints[k].size)
              {
              case 1: x = ints[k].is_unsigned ? (gint64) p[i] : (gint64) (gint8) p[i]; break;
              case 2: { guint16 y; memcpy (&y, p + 2 * i, 2); x = ints[k].is_unsigned ? (gint64) y : (gint64) (gint16) y; break; }
              case 4: { guint32 y; memcpy (&y, p + 4 * i, 4); x = ints[k].is_unsigned ? (gint64) y : (gint64) (gint32) y; break; }
              default: memcpy (&u, p + 8 * i, 8); x = (gint64) u; break;
              }
            /* b, s, i, i64 hold lo, hi, lo, hi; the unsigned ones 0, max, max, 0 */
            gint64 want = ints[k].is_unsigned ? (i == 1 || i == 2 ? ints[k].hi : 0)
                                              : (i % 2 == 0 ? ints[k].lo : ints[k].hi);
            if (x != want)
              g_error ("%s[%u] = %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT,
                       ints[k].var, i, x, want);
          }
      }
  }
}

/* Reads char variable @name of @ds whole, as text. */
static char *
read_chars (NczDataset *ds, const char *name, gsize *n)
{
  g_autoptr(GBytes) b = read_all (var_of (ds, name));
  const char *p = g_bytes_get_data (b, n);
  return g_memdup2 (p, *n);
}

static void
assert_chars (NczDataset *ds, const char *name, const char *want)
{
  gsize n = 0;
  g_autofree char *got = read_chars (ds, name, &n);
  if (n != strlen (want) || memcmp (got, want, n) != 0)
    g_error ("%s: '%.*s', expected '%s'", name, (int) n, got, want);
}

/* Char data, laid out as ncgen 4.9.0 does (each result below is what
 * ncgen wrote to an NCZarr store, read back with ncdump): a string starts
 * on a row and takes whole rows, the rest of its last row being the fill
 * value; an empty string takes a row; single characters run on, and a
 * string after them starts on the next row. Where ncgen is wrong it is
 * not followed: after a run of characters, ncgen 4.9.0 (and 4.9.3) drops
 * the next string ('a', 'b', "cd" gives "ab" alone); a string longer
 * than the rest of the variable, or several strings of a variable with
 * an unlimited first dimension, make it crash. */
static void
test_data_char_layout (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf c {\n"
    "dimensions:\n  r = 3 ;\n  n = 5 ;\n  m = 3 ;\n  a = 2 ;\n  u = UNLIMITED ;\n"
    "variables:\n"
    "  char c1(n) ;\n    c1:_FillValue = \"X\" ;\n"
    "  char c2(r, n) ;\n    c2:_FillValue = \"X\" ;\n"
    "  char c3(r, n) ;\n    c3:_FillValue = \"X\" ;\n"
    "  char c4(r, n) ;\n    c4:_FillValue = \"X\" ;\n"
    "  char c5(r, n) ;\n    c5:_FillValue = \"X\" ;\n"
    "  char c6(r, n) ;\n    c6:_FillValue = \"X\" ;\n"
    "  char c7(r, n) ;\n    c7:_FillValue = \"X\" ;\n"
    "  char c8(a, a, m) ;\n    c8:_FillValue = \"X\" ;\n"
    "  char c9(r, m) ;\n    c9:_FillValue = \"X\" ;\n"
    "  char c10(r, n) ;\n    c10:_FillValue = \"X\" ;\n"
    "  char c11(r, n) ;\n    c11:_FillValue = \"X\" ;\n"
    "  char c12(r, n) ;\n"
    "  char d1(r, n) ;\n    d1:_FillValue = \"X\" ;\n"
    "  char d2(r, m) ;\n    d2:_FillValue = \"X\" ;\n"
    "data:\n"
    "  c1 = \"ab\" ;\n"
    "  c2 = \"ab\", \"cde\" ;\n"
    "  c3 = \"abcdefg\" ;\n"
    "  c4 = \"ab\", 'x', \"q\" ;\n"
    "  c5 = \"ab\", \"\", \"c\" ;\n"
    "  c6 = \"cd\", 'a', 'b' ;\n"
    "  c7 = 'a', 'b', 'c', 'd', 'e', 'f', 'g' ;\n"
    "  c8 = \"ab\", \"c\", \"d\" ;\n"
    "  c9 = \"\", \"ab\" ;\n"
    "  c10 = 'a', \"cd\" ;\n"
    "  c11 = \"abcdef\", \"gh\" ;\n"
    "  c12 = \"ab\", \"c\" ;\n"
    /* ncgen drops "cd": "abXXXXXXXXXXXXX" */
    "  d1 = 'a', 'b', \"cd\" ;\n"
    /* ncgen drops "xy": "aXXbXXXXX" */
    "  d2 = 'a', \"xy\", 'b' ;\n"
    "}\n");

  assert_chars (ds, "c1", "abXXX");
  assert_chars (ds, "c2", "abXXXcdeXXXXXXX");
  assert_chars (ds, "c3", "abcdefgXXXXXXXX");
  assert_chars (ds, "c4", "abXXXxXXXXqXXXX");
  assert_chars (ds, "c5", "abXXXXXXXXcXXXX");
  assert_chars (ds, "c6", "cdXXXabXXXXXXXX");
  assert_chars (ds, "c7", "abcdefgXXXXXXXX");
  assert_chars (ds, "c8", "abXcXXdXXXXX");
  assert_chars (ds, "c9", "XXXabXXXX");
  assert_chars (ds, "c10", "aXXXXcdXXXXXXXX");
  assert_chars (ds, "c11", "abcdefXXXXghXXX");
  {
    gsize n = 0;
    g_autofree char *c12 = read_chars (ds, "c12", &n);   /* the default fill: NUL */
    g_assert_cmpmem (c12, n, "ab\0\0\0c\0\0\0\0\0\0\0\0\0", 15);
  }
  assert_chars (ds, "d1", "abXXXcdXXXXXXXX");
  assert_chars (ds, "d2", "aXXxyXbXX");
}

/* Char data of a variable with an unlimited first dimension makes as
 * many records as it takes rows (ncgen 4.9.0, checked where it does not
 * crash: "abcdef" in rows of 4 makes 2 records, "abcd", "efXX"); the
 * elements after the data are not written: their chunks do not exist
 * and read as the fill value. */
static void
test_data_char_unwritten (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = generate (
    "netcdf c {\n"
    "dimensions:\n  r = 4 ;\n  n = 4 ;\n  u = UNLIMITED ;\n  v = UNLIMITED ;\n"
    "variables:\n"
    "  char f(r, n) ;\n    f:_FillValue = \"X\" ;\n    f:_ChunkSizes = 1, 4 ;\n"
    "  char g(u, n) ;\n    g:_FillValue = \"X\" ;\n    g:_ChunkSizes = 1, 4 ;\n"
    "  char h(v, n) ;\n    h:_FillValue = \"X\" ;\n    h:_ChunkSizes = 1, 4 ;\n"
    "data:\n"
    "  f = \"ab\", \"c\" ;\n"
    "  g = \"abcdef\" ;\n"
    "  h = \"ab\", 'x', 'y', \"c\", 'z' ;\n"
    "}\n", &store, &error);
  NczGroup *root;

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  root = ncz_dataset_get_root_group (ds);
  assert_chars (ds, "f", "abXXcXXXXXXXXXXX");
  assert_chars (ds, "g", "abcdefXX");
  assert_chars (ds, "h", "abXXxyXXcXXXzXXX");
  g_assert_cmpuint (ncz_dimension_get_length (ncz_group_get_dimension (root, "u")), ==, 2);
  g_assert_cmpuint (ncz_dimension_get_length (ncz_group_get_dimension (root, "v")), ==, 4);
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
  {
    static const struct { const char *key; gboolean exists; } keys[] = {
      { "f/0.0", TRUE }, { "f/1.0", TRUE }, { "f/2.0", FALSE }, { "f/3.0", FALSE },
      { "g/0.0", TRUE }, { "g/1.0", TRUE }, { "g/2.0", FALSE },
    };
    for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
      {
        gboolean e = ncz_store_exists (NCZ_STORE (store), keys[k].key, NULL, &error);
        g_assert_no_error (error);
        if (e != keys[k].exists)
          g_error ("chunk %s %s", keys[k].key, e ? "written" : "not written");
      }
  }
}

static void
test_unlimited (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf u {\n"
    "dimensions:\n  t = UNLIMITED ; // (2 currently)\n  x = 3 ;\n"
    "variables:\n  int r(t, x) ;\n  float q(t) ;\n"
    "data:\n  r = 1, 2, 3, 4 ;\n  q = 1, 2, 3, 4, 5 ;\n"
    "}\n");
  NczDimension *t = ncz_group_get_dimension (ncz_dataset_get_root_group (ds), "t");
  g_autoptr(GBytes) r = NULL;
  const gint32 *ri;

  g_assert_true (ncz_dimension_is_unlimited (t));
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 5);
  r = read_all (var_of (ds, "r"));
  g_assert_cmpuint (g_bytes_get_size (r), ==, 15 * sizeof (gint32));
  ri = g_bytes_get_data (r, NULL);
  g_assert_cmpint (ri[3], ==, 4);
  g_assert_cmpint (ri[4], ==, -2147483647);   /* the default int fill */
}

static void
test_groups (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf g {\n"
    "dimensions:\n  x = 2 ;\n"
    "// global attributes:\n  :_Format = \"netCDF-4\" ;\n  :title = \"t\" ;\n"
    "group: sub {\n"
    "  dimensions:\n    y = 3 ;\n"
    "  variables:\n    int v(x, y) ;\n    double w(/x) ;\n"
    "  // group attributes:\n    :ga = 1s ;\n"
    "  data:\n    v = 1, 2, 3, 4, 5, 6 ;\n    w = 1.5, 2.5 ;\n"
    "  group: deeper {\n    variables:\n      string s ;\n    data:\n      s = \"x\" ;\n  } // group deeper\n"
    "  } // group sub\n"
    "}\n");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczGroup *sub = ncz_group_get_group (root, "sub");
  NczVariable *v;

  g_assert_nonnull (sub);
  g_assert_null (ncz_group_get_attribute (root, "_Format"));
  g_assert_nonnull (ncz_group_get_attribute (root, "title"));
  g_assert_cmpint (ncz_attribute_get_value_type (ncz_group_get_attribute (sub, "ga")), ==,
                   NCZ_DATA_TYPE_SHORT);
  v = ncz_group_get_variable (sub, "v");
  g_assert_nonnull (v);
  g_assert_cmpuint (ncz_variable_get_n_dimensions (v), ==, 2);
  g_assert_nonnull (ncz_group_get_group (sub, "deeper"));
  g_assert_nonnull (ncz_group_get_variable (ncz_group_get_group (sub, "deeper"), "s"));
}

/* ---- special attributes ---- */

static void
test_specials (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "netcdf s {\n"
    "dimensions:\n  x = 4 ;\n  y = 6 ;\n"
    "variables:\n"
    "  float a(x, y) ;\n"
    "    a:_FillValue = -999 ;\n"
    "    a:_Storage = \"chunked\" ;\n"
    "    a:_ChunkSizes = 2, 3 ;\n"
    "    a:_Endianness = \"big\" ;\n"
    "    a:_Filter = \"1,5\" ;\n"
    "    a:_Codecs = \"[{\\\"id\\\": \\\"zlib\\\", \\\"level\\\": 5}]\" ;\n"
    "    a:_Shuffle = \"true\" ;\n"
    "    a:_Fletcher32 = \"true\" ;\n"
    "  int b(x) ;\n"
    "    b:_NoFill = \"true\" ;\n"
    "    b:_DeflateLevel = 4 ;\n"
    "  int c(x) ;\n"
    "    c:_Storage = \"contiguous\" ;\n"
    "  double q(x) ;\n"
    "    q:_QuantizeBitGroomNumberOfSignificantDigits = 3 ;\n"
    "  string t(x) ;\n"
    "    t:_nczarr_maxstrlen = 4 ;\n"
    "// global attributes:\n"
    "  :_NCProperties = \"version=2\" ;\n  :_IsNetcdf4 = 1 ;\n  :_SuperblockVersion = 2 ;\n"
    "  :_nczarr_default_maxstrlen = 64 ;\n"
    "}\n");
  NczVariable *a = var_of (ds, "a");
  guint n;
  const guint64 *chunks = ncz_variable_get_chunk_sizes (a, &n);
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (a);
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (a);
  guint nsd = 0;

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (chunks[0], ==, 2);
  g_assert_cmpuint (chunks[1], ==, 3);
  g_assert_cmpint (ncz_variable_get_endianness (a), ==, NCZ_ENDIANNESS_BIG);
  g_assert_cmpuint (ids->len, ==, 3);   /* fletcher32, shuffle, deflate */
  g_assert_cmpuint (g_array_index (ids, guint, 0), ==, NCZ_FILTER_FLETCHER32);
  g_assert_cmpuint (g_array_index (ids, guint, 1), ==, NCZ_FILTER_SHUFFLE);
  g_assert_cmpuint (g_array_index (ids, guint, 2), ==, NCZ_FILTER_DEFLATE);
  g_assert_cmpfloat (*(const float *) g_bytes_get_data (fill, NULL), ==, -999.0f);
  g_assert_null (ncz_variable_get_attribute (a, "_Storage"));
  g_assert_null (ncz_variable_get_attribute (a, "_Codecs"));
  g_assert_true (ncz_variable_get_no_fill (var_of (ds, "b")));
  {
    g_autoptr(GArray) bids = ncz_variable_get_filter_ids (var_of (ds, "b"));
    g_assert_cmpuint (bids->len, ==, 1);
    g_assert_cmpuint (g_array_index (bids, guint, 0), ==, NCZ_FILTER_DEFLATE);
  }
  g_assert_true (ncz_variable_get_contiguous (var_of (ds, "c")));
  g_assert_cmpint (ncz_variable_get_quantize (var_of (ds, "q"), &nsd), ==, NCZ_QUANTIZE_BITGROOM);
  g_assert_cmpuint (nsd, ==, 3);
  g_assert_cmpuint (ncz_variable_get_max_string_length (var_of (ds, "t")), ==, 4);
  g_assert_null (ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "_IsNetcdf4"));
}

static void
test_special_errors (void)
{
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_Filter = \"999,1\" ;\n}\n", "5:15: ");
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_ChunkSizes = 2, 2 ;\n}\n", "5:19: ");
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_Endianness = \"middle\" ;\n}\n", "5:19: ");
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_Storage = 1 ;\n}\n", "5:16: ");
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_NoFill = \"maybe\" ;\n}\n", "5:15: ");
  assert_error_at ("netcdf s {\ndimensions: x = 4 ;\nvariables:\n int a(x) ;\n"
                   "  a:_DeflateLevel = 12 ;\n}\n", "5:21: ");
}

/* ---- malformed input ---- */

static void
test_malformed (void)
{
  static const struct { const char *cdl; const char *where; } cases[] = {
    { "", "1:1: expected 'netcdf'" },
    { "netcdf", "1:7: expected a dataset name" },
    { "netcdf x", "1:9: expected '{'" },
    { "netcdf x {", "1:11: expected '}'" },
    { "netcdf x {\n}\nextra", "3:1: expected end of file" },
    { "netcdf x {\n:a = 1\n}", "3:1: expected ',' or ';'" },
    { "netcdf x {\n:a = \"unterminated\n}", "2:6: unterminated string" },
    { "netcdf x {\n:a = 'ab' ;\n}", "2:6: character constant" },
    { "netcdf x {\n:a = 1q ;\n}", "2:6: bad number suffix" },
    { "netcdf x {\n:a = -1u ;\n}", "2:6: unsigned" },
    { "netcdf x {\n:a = 99999999999999999999999 ;\n}", "2:6: integer constant too large" },
    { "netcdf x {\n:a = 1, \"s\" ;\n}", "2:6: attribute 'a' mixes" },
    { "netcdf x {\n:a = _ ;\n}", "2:6: the fill value" },
    { "netcdf x {\ntypes:\n  int(*) vl ;\n}", "2:1: user-defined types" },
    { "netcdf x {\nvariables:\n  int v(nodim) ;\n}", "3:9: no dimension 'nodim'" },
    { "netcdf x {\nvariables:\n  foo v ;\n}", "3:3: unknown type 'foo'" },
    { "netcdf x {\nvariables:\n  int v ;\n  w:a = 1 ;\n}", "4:3: no variable 'w'" },
    { "netcdf x {\ndimensions:\n  d = -1 ;\n}", "3:7: expected a length" },
    { "netcdf x {\ndimensions:\n  d = 2 ;\n  d = 3 ;\n}", "4:3: " },
    { "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = 1, 2, 3 ;\n}",
      "7:13: too many values" },
    { "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = \"a\" ;\n}",
      "7:7: a string in data" },
    { "netcdf x {\nvariables:\n  int v ;\ndata:\n  nov = 1 ;\n}", "5:3: no variable 'nov'" },
    { "netcdf x {\n  :a = 1 ; # comment\n}", "2:12: unexpected character '#'" },
    { "netcdf x {\n:a = {1} ;\n}", "2:6: '{' groups values" },
    { "netcdf x {\ngroup: g {\n}\n", "4:1: expected '}'" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_error_at (cases[i].cdl, cases[i].where);
}

static void
test_comments_and_names (void)
{
  g_autoptr(NczDataset) ds = generate_ok (
    "// leading comment\n"
    "netcdf \\1name { // after the name\n"
    "dimensions:\n  d\\ 1 = 2 , e = 1 ; // two at once\n"
    "variables:\n  int a-b(d\\ 1), c ;\n  a-b:x\\:y = 1 ;\n"
    "data:\n  a-b = 1, 2 ; c = 3 ;\n"
    "}\n");
  NczVariable *v = var_of (ds, "a-b");
  g_assert_nonnull (ncz_variable_get_attribute (v, "x:y"));
  g_assert_nonnull (ncz_group_get_dimension (ncz_dataset_get_root_group (ds), "d 1"));
  g_assert_nonnull (var_of (ds, "c"));
}

static void
test_check_limits (void)
{
  g_autoptr(GError) error = NULL;

  /* a huge variable with little data writes only that data */
  g_assert_true (ncz_cdl_check ("netcdf x { dimensions: d = 4000000000 ; variables: byte v(d) ; "
                                "v:_ChunkSizes = 1000 ; data: v = 1, 2 ; }", -1, "t.cdl", 1 << 20,
                                &error));
  g_assert_no_error (error);
  /* chunks beyond the limit are refused rather than allocated */
  g_assert_false (ncz_cdl_check ("netcdf x { dimensions: d = 4000000000 ; variables: byte v(d) ; "
                                 "v:_ChunkSizes = 4000000000 ; data: v = 1 ; }", -1, "t.cdl", 1 << 20,
                                 &error));
  g_assert_error (error, NCZ_CDL_ERROR, NCZ_CDL_ERROR_LIMIT);
}


/* CDL that fails after the output was created never costs the dataset
 * that was at the URL before */
static void
test_failure_keeps_previous (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ncz-cdl-XXXXXX", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s/x.zarr#mode=nczarr,file", dir);
  g_autoptr(GError) error = NULL;
  const char *good = "netcdf x {\ndimensions:\n d = 2 ;\nvariables:\n int v(d) ;\n"
                     "data:\n v = 7, 8 ;\n}\n";
  const char *bad = "netcdf x {\ndimensions:\n d = 3 ;\nvariables:\n int w(d) ;\n"
                    "data:\n w = 1, 2,, ;\n}\n";

  g_assert_true (ncz_cdl_generate (good, -1, "good.cdl", url, NCZ_CREATE_DEFAULT, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_cdl_generate (bad, -1, "bad.cdl", url, NCZ_CREATE_DEFAULT, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "bad.cdl:7:"));
  g_clear_error (&error);

  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  gint32 vals[2] = { 0, 0 };
  guint64 start = 0, count = 2;
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, vals, sizeof vals, NULL, &error));
  g_assert_cmpint (vals[0], ==, 7);
  g_assert_cmpint (vals[1], ==, 8);
  g_assert_null (ncz_group_get_variable (ncz_dataset_get_root_group (ds), "w"));
  g_clear_object (&ds);

  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    g_assert_cmpstr (name, ==, "x.zarr");
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  g_assert_cmpint (system (cmd), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/cdl/constants", test_constants);
  g_test_add_func ("/cdl/inference", test_inference);
  g_test_add_func ("/cdl/data/partial-fill", test_data_partial_fill);
  g_test_add_func ("/cdl/data/chars-strings", test_data_chars_strings);
  g_test_add_func ("/cdl/constants/extremes", test_constants_extremes);
  g_test_add_func ("/cdl/data/char-layout", test_data_char_layout);
  g_test_add_func ("/cdl/data/char-unwritten", test_data_char_unwritten);
  g_test_add_func ("/cdl/unlimited", test_unlimited);
  g_test_add_func ("/cdl/groups", test_groups);
  g_test_add_func ("/cdl/specials", test_specials);
  g_test_add_func ("/cdl/specials/errors", test_special_errors);
  g_test_add_func ("/cdl/malformed", test_malformed);
  g_test_add_func ("/cdl/comments-names", test_comments_and_names);
  g_test_add_func ("/cdl/check-limits", test_check_limits);
  g_test_add_func ("/cdl/failure-keeps-previous", test_failure_keeps_previous);
  return g_test_run ();
}
