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
  GBytes *b = ncz_variable_read_bytes (v, rank, start, shape, NULL, NULL, &error);
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
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_TYPE_BYTE);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 1), ==, -2);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "ub")), ==, NCZ_TYPE_UBYTE);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "s")), ==, NCZ_TYPE_SHORT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "us")), ==, NCZ_TYPE_USHORT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "i")), ==, NCZ_TYPE_INT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "u")), ==, NCZ_TYPE_UINT);
  g_assert_cmpint (ncz_attribute_get_value_type (global_attr (ds, "ll")), ==, NCZ_TYPE_INT64);
  a = global_attr (ds, "ull");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_TYPE_UINT64);
  g_assert_cmpuint (ncz_attribute_get_uint64 (a, 1), ==, G_MAXUINT64);
  a = global_attr (ds, "f");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_TYPE_FLOAT);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 0), ==, 5.0);
  g_assert_true (isnan (ncz_attribute_get_double (a, 2)));
  g_assert_true (isinf (ncz_attribute_get_double (a, 3)) && ncz_attribute_get_double (a, 3) < 0);
  a = global_attr (ds, "d");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_TYPE_DOUBLE);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 0), ==, 1e30);
  g_assert_true (isnan (ncz_attribute_get_double (a, 1)));
  g_assert_true (isinf (ncz_attribute_get_double (a, 3)) && ncz_attribute_get_double (a, 3) < 0);
  g_assert_cmpfloat (ncz_attribute_get_double (a, 5), ==, 0.5);
  {
    g_autofree char *t = ncz_attribute_get_text (global_attr (ds, "txt"), NULL);
    g_assert_cmpstr (t, ==, "a\tb\n\"q\"\\AB");
  }
  {
    g_autofree char *t = ncz_attribute_get_text (global_attr (ds, "cat"), NULL);
    g_assert_cmpstr (t, ==, "abcd");
  }
  a = global_attr (ds, "chars");   /* ncgen: character constants make bytes */
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_TYPE_BYTE);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0), ==, 'a');
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
  static const struct { const char *name; NczType type; } expect[] = {
    { "a1", NCZ_TYPE_SHORT }, { "a2", NCZ_TYPE_FLOAT }, { "a3", NCZ_TYPE_UINT },
    { "a4", NCZ_TYPE_BYTE }, { "a5", NCZ_TYPE_DOUBLE }, { "a6", NCZ_TYPE_UINT64 },
    { "a7", NCZ_TYPE_INT64 }, { "a8", NCZ_TYPE_FLOAT }, { "a9", NCZ_TYPE_INT64 },
    { "s1", NCZ_TYPE_STRING }, { "s2", NCZ_TYPE_INT64 }, { "s3", NCZ_TYPE_FLOAT },
    { "s4", NCZ_TYPE_CHAR }, { "s5", NCZ_TYPE_BYTE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      NczAttribute *a = global_attr (ds, expect[i].name);
      if (ncz_attribute_get_value_type (a) != expect[i].type)
        g_error ("%s: type %s, expected %s", expect[i].name,
                 ncz_type_get_name (ncz_attribute_get_value_type (a)),
                 ncz_type_get_name (expect[i].type));
    }
  g_assert_cmpint (ncz_attribute_get_length (global_attr (ds, "s1")), ==, 2);
  g_assert_cmpint (ncz_attribute_get_int64 (global_attr (ds, "s5"), 1), ==, 44);
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
  strs = ncz_variable_read_strings (var_of (ds, "st"), 1, &start, &count, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (strs[0], ==, "one");
  g_assert_cmpstr (strs[1], ==, "");
  g_assert_cmpstr (strs[2], ==, "three");
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
                   NCZ_TYPE_SHORT);
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
  g_assert_true (ncz_variable_read (v, 1, &start, &count, NULL, vals, sizeof vals, NULL, &error));
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
