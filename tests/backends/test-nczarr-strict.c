/* test-nczarr-strict.c: metadata that contradicts itself is refused with
 * an error naming the URL, the object key and the JSON key; the valid
 * forms (extreme fill values, NaN, known superblocks, typed attributes)
 * still open; char attributes holding JSON text read back unchanged;
 * chunk errors name the URL.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-test-util.h"

/* nczt_open_mem opens memory stores under this URL */
#define URL "file:///unused#mode=nczarr,file"

#define ZGROUP_KEYS "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, " \
  "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\"], \"groups\": []}}"

static void
assert_message (const GError *error, const char *const *needles)
{
  g_test_message ("%s", error->message);
  for (guint i = 0; needles[i]; i++)
    if (strstr (error->message, needles[i]) == NULL)
      g_error ("message \"%s\" lacks \"%s\"", error->message, needles[i]);
}

static char *
zarray (const char *dtype, const char *fill)
{
  return g_strdup_printf ("{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"%s\", \"chunks\": [2], "
                          "\"fill_value\": %s, \"order\": \"C\", \"compressor\": null, "
                          "\"filters\": null, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}",
                          dtype, fill);
}

static NczDataset *
open_store (NczMemoryStore *store, GError **error)
{
  return nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, error);
}

static void
assert_refused (NczMemoryStore *store, gint code, const char *const *needles)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = open_store (store, &error);

  g_assert_null (ds);
  g_assert_error (error, NCZ_BACKEND_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, URL ": "));
  assert_message (error, needles);
}

/* ---- fill_value ---- */

typedef struct {
  const char *dtype;
  const char *fill;
} BadFill;

static const BadFill bad_fills[] = {
  { "<i4", "\"42\"" },            /* a string for an integer */
  { "<i4", "\"NaN\"" },
  { "<i4", "NaN" },               /* bare NaN, as 4.9.0 writes for floats */
  { "<i8", "Infinity" },
  { "<u2", "\"-Infinity\"" },
  { "<i4", "1.5" },
  { "<i4", "true" },
  { "<i4", "[1]" },
  { "<i4", "{}" },
  { "<i1", "128" },               /* out of range */
  { "<i1", "-129" },
  { "<u1", "256" },
  { "<u1", "-1" },
  { "<i2", "32768" },
  { "<u4", "4294967296" },
  { "<i8", "9223372036854775808" },
  { "<u8", "18446744073709551616" },
  { "<u8", "-1" },
  { "<f4", "\"abc\"" },           /* strings other than NaN and infinities */
  { "<f4", "\"1.5\"" },
  { "<f8", "true" },
  { "<f4", "1e39" },
  { ">S1", "\"abc\"" },           /* neither a character nor base64 */
  { ">S1", "\"YWJj\"" },          /* base64 of three bytes */
  { ">S1", "65" },
  { "|S5", "5" },
};

static void
test_bad_fill (gconstpointer data)
{
  const BadFill *c = data;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autofree char *za = zarray (c->dtype, c->fill);
  const char *needles[] = { "v/.zarray", "\"fill_value\"", c->dtype, NULL };

  nczt_put (store, ".zgroup", ZGROUP_KEYS);
  nczt_put (store, "v/.zarray", za);
  assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
}

/* A _FillValue attribute that is not a value of the dtype. */
static void
test_bad_fill_attribute (void)
{
  static const char *const attrs[] = {
    "{\"_FillValue\": \"42\"}",
    "{\"_FillValue\": 3000000000}",
    "{\"_FillValue\": [1, 2]}",
    "{\"_FillValue\": \"NaN\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (attrs); i++)
    {
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autofree char *za = zarray ("<i4", "0");
      const char *needles[] = { "v/.zattrs", "\"_FillValue\"", "<i4", NULL };

      nczt_put (store, ".zgroup", ZGROUP_KEYS);
      nczt_put (store, "v/.zarray", za);
      nczt_put (store, "v/.zattrs", attrs[i]);
      assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
    }
}

typedef struct {
  const char *dtype;
  const char *fill;
  NczDataType type;
  double d;          /* expected value (floats, small integers, char) */
  gint64 i;          /* expected value of 64-bit integers */
  gboolean use_i;
} GoodFill;

static const GoodFill good_fills[] = {
  { "<i1", "-128", NCZ_DATA_TYPE_BYTE, -128 },
  { "<i1", "127", NCZ_DATA_TYPE_BYTE, 127 },
  { "<u1", "255", NCZ_DATA_TYPE_UBYTE, 255 },
  { "<u1", "0", NCZ_DATA_TYPE_UBYTE, 0 },
  { "<i2", "-32768", NCZ_DATA_TYPE_SHORT, -32768 },
  { "<u2", "65535", NCZ_DATA_TYPE_USHORT, 65535 },
  { "<i4", "-2147483648", NCZ_DATA_TYPE_INT, -2147483648.0 },
  { "<i4", "2147483647", NCZ_DATA_TYPE_INT, 2147483647.0 },
  { ">i4", "-5", NCZ_DATA_TYPE_INT, -5 },
  { "<i4", "7.0", NCZ_DATA_TYPE_INT, 7 },     /* an integer written as a float number */
  { "<u4", "4294967295", NCZ_DATA_TYPE_UINT, 4294967295.0 },
  { "<i8", "-9223372036854775808", NCZ_DATA_TYPE_INT64, 0, G_MININT64, TRUE },
  { "<i8", "9223372036854775807", NCZ_DATA_TYPE_INT64, 0, G_MAXINT64, TRUE },
  { "<u8", "18446744073709551615", NCZ_DATA_TYPE_UINT64, 0, -1, TRUE },
  { "<f4", "3.4028234663852886e+38", NCZ_DATA_TYPE_FLOAT, G_MAXFLOAT },
  { "<f4", "-3.4028234663852886e+38", NCZ_DATA_TYPE_FLOAT, -G_MAXFLOAT },
  { "<f4", "1e-45", NCZ_DATA_TYPE_FLOAT, 1e-45f },
  { "<f4", "\"NaN\"", NCZ_DATA_TYPE_FLOAT, NAN },
  { "<f4", "NaN", NCZ_DATA_TYPE_FLOAT, NAN },
  { "<f4", "\"Infinity\"", NCZ_DATA_TYPE_FLOAT, INFINITY },
  { "<f4", "-Infinity", NCZ_DATA_TYPE_FLOAT, -INFINITY },
  { "<f8", "1.7976931348623157e+308", NCZ_DATA_TYPE_DOUBLE, G_MAXDOUBLE },
  { "<f8", "-1.7976931348623157e+308", NCZ_DATA_TYPE_DOUBLE, -G_MAXDOUBLE },
  { "<f8", "\"-Infinity\"", NCZ_DATA_TYPE_DOUBLE, -INFINITY },
  { "<f8", "\"NaN\"", NCZ_DATA_TYPE_DOUBLE, NAN },
  { "<f8", "-999", NCZ_DATA_TYPE_DOUBLE, -999 },
  { ">S1", "\"\"", NCZ_DATA_TYPE_CHAR, 0 },
  { ">S1", "\"x\"", NCZ_DATA_TYPE_CHAR, 'x' },
  { ">S1", "\"eA==\"", NCZ_DATA_TYPE_CHAR, 'x' },   /* base64, as zarr-python writes */
  { ">S1", "\"AA==\"", NCZ_DATA_TYPE_CHAR, 0 },
};

static double
element_as_double (NczDataType type, const guint8 *p)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: return *(const gint8 *) p;
    case NCZ_DATA_TYPE_UBYTE: return *p;
    case NCZ_DATA_TYPE_CHAR: return *p;
    case NCZ_DATA_TYPE_SHORT: { gint16 v; memcpy (&v, p, 2); return v; }
    case NCZ_DATA_TYPE_USHORT: { guint16 v; memcpy (&v, p, 2); return v; }
    case NCZ_DATA_TYPE_INT: { gint32 v; memcpy (&v, p, 4); return v; }
    case NCZ_DATA_TYPE_UINT: { guint32 v; memcpy (&v, p, 4); return v; }
    case NCZ_DATA_TYPE_FLOAT: { float v; memcpy (&v, p, 4); return v; }
    case NCZ_DATA_TYPE_DOUBLE: { double v; memcpy (&v, p, 8); return v; }
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
    case NCZ_DATA_TYPE_STRING:
    case NCZ_DATA_TYPE_NONE:
    default:
      g_assert_not_reached ();
    }
  return 0;
}

/* Every dtype's extreme fill values open, and unwritten elements read as
 * the fill value. */
static void
test_good_fills (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (good_fills); i++)
    {
      const GoodFill *c = &good_fills[i];
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autofree char *za = zarray (c->dtype, c->fill);
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;
      NczVariable *v;
      guint8 buf[16] = { 0 };

      nczt_put (store, ".zgroup", ZGROUP_KEYS);
      nczt_put (store, "v/.zarray", za);
      ds = open_store (store, &error);
      if (ds == NULL)
        g_error ("%s %s: %s", c->dtype, c->fill, error->message);
      v = nczt_var (ds, "/v");
      g_assert_cmpint (ncz_variable_get_value_type (v), ==, c->type);
      nczt_read_all (v, buf, 2 * ncz_data_type_get_size (c->type));
      if (c->use_i)
        {
          gint64 got;
          memcpy (&got, buf + ncz_data_type_get_size (c->type), 8);
          g_assert_cmpint (got, ==, c->i);
        }
      else if (isnan (c->d))
        g_assert_true (isnan (element_as_double (c->type, buf)));
      else
        g_assert_cmpfloat (element_as_double (c->type, buf), ==, c->d);
    }
}

/* fill_value null and the string dtypes' empty fill open too. */
static void
test_good_fills_other (void)
{
  static const char *const cases[][2] = {
    { "<i4", "null" }, { "<f8", "null" }, { "|S5", "\"\"" }, { "|S5", "null" }, { ">S1", "null" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autofree char *za = zarray (cases[i][0], cases[i][1]);
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;

      nczt_put (store, ".zgroup", ZGROUP_KEYS);
      nczt_put (store, "v/.zarray", za);
      ds = open_store (store, &error);
      g_assert_no_error (error);
      g_assert_nonnull (nczt_var (ds, "/v"));
    }
}

/* ---- the superblock ---- */

typedef struct {
  const char *name;
  const char *key;     /* object holding the superblock */
  const char *text;
  gint code;
  const char *json_key;
  const char *needle;
} BadSuperblock;

#define GROUP_INFO "\"_nczarr_group\": {\"dims\": {}, \"vars\": [], \"groups\": []}"

static const BadSuperblock bad_superblocks[] = {
  { "string", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": \"2.0.0\", " GROUP_INFO "}",
    NCZ_BACKEND_ERROR_BAD_METADATA, "\"_nczarr_superblock\"", "not an object" },
  { "array-upper", ".zgroup", "{\"zarr_format\": 2, \"_NCZARR_SUPERBLOCK\": [\"2.0.0\"], "
    "\"_NCZARR_GROUP\": {\"dims\": {}, \"vars\": [], \"groups\": []}}",
    NCZ_BACKEND_ERROR_BAD_METADATA, "\"_NCZARR_SUPERBLOCK\"", "not an object" },
  { "no-version", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {}, " GROUP_INFO "}",
    NCZ_BACKEND_ERROR_BAD_METADATA, "\"_nczarr_superblock\"", "\"version\"" },
  { "version-number", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": 2}, "
    GROUP_INFO "}", NCZ_BACKEND_ERROR_BAD_METADATA, "\"_nczarr_superblock\"", "\"version\"" },
  { "version-9", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"9.0.0\"}, "
    GROUP_INFO "}", NCZ_BACKEND_ERROR_UNSUPPORTED, "\"_nczarr_superblock\"", "'9.0.0'" },
  { "version-1", ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"1.0.0\"}, " GROUP_INFO "}",
    NCZ_BACKEND_ERROR_UNSUPPORTED, "\"_nczarr_superblock\"", "'1.0.0'" },
  { "version-2.1", ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"2.1.0\"}, " GROUP_INFO "}",
    NCZ_BACKEND_ERROR_UNSUPPORTED, "\"_nczarr_superblock\"", "'2.1.0'" },
  { "version-upper-garbage", ".zgroup", "{\"zarr_format\": 2, \"_NCZARR_SUPERBLOCK\": "
    "{\"version\": \"banana\"}}", NCZ_BACKEND_ERROR_UNSUPPORTED, "\"_NCZARR_SUPERBLOCK\"", "'banana'" },
  { "format-3", ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"3.0.0\", \"format\": 3}, "
    GROUP_INFO "}", NCZ_BACKEND_ERROR_UNSUPPORTED, "\"format\"", "3" },
};

static void
test_bad_superblock (gconstpointer data)
{
  const BadSuperblock *c = data;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  const char *needles[] = { c->key, c->json_key, c->needle, NULL };

  if (g_str_equal (c->key, ".zattrs"))
    nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, c->key, c->text);
  assert_refused (store, c->code, needles);
}

/* The versions netcdf-c writes open. */
static void
test_good_superblocks (void)
{
  static const char *const cases[][2] = {
    { ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, " GROUP_INFO "}" },
    { ".zgroup", "{\"zarr_format\": 2, \"_NCZARR_SUPERBLOCK\": {\"version\": \"2.0.0\"}, "
      "\"_NCZARR_GROUP\": {\"dims\": {\"d\": 3}, \"vars\": [], \"groups\": []}}" },
    { ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, " GROUP_INFO "}" },
    { ".zattrs", "{\"_nczarr_superblock\": {\"nczarr_version\": \"2.0.0\"}, " GROUP_INFO "}" },
    { ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"3.0.0\", \"format\": 2}, " GROUP_INFO "}" },
    { ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"3.0.0\", \"format\": 2}, "
      GROUP_INFO "}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;

      if (g_str_equal (cases[i][0], ".zattrs"))
        nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
      nczt_put (store, cases[i][0], cases[i][1]);
      ds = open_store (store, &error);
      g_assert_no_error (error);
      g_assert_nonnull (ds);
    }
}

/* ---- typed attributes (_nczarr_attr) ---- */

typedef struct {
  const char *name;
  const char *zattrs;  /* of the array v; the needles name the JSON keys */
  const char *needle1;
  const char *needle2;
} BadTypes;

static const BadTypes bad_types[] = {
  { "strings-for-int", "{\"a\": [\"x\", \"y\"], \"_nczarr_attr\": {\"types\": {\"a\": \">i4\"}}}",
    "\"a\"", "'>i4'" },
  { "string-for-int", "{\"a\": \"12\", \"_nczarr_attr\": {\"types\": {\"a\": \"<i4\"}}}",
    "\"a\"", "'<i4'" },
  { "out-of-range", "{\"a\": [1, 300], \"_nczarr_attr\": {\"types\": {\"a\": \"<i1\"}}}",
    "\"a\"", "element 1" },
  { "negative-unsigned", "{\"a\": -1, \"_nczarr_attr\": {\"types\": {\"a\": \"<u8\"}}}",
    "\"a\"", "'<u8'" },
  { "nan-for-int", "{\"a\": \"NaN\", \"_nczarr_attr\": {\"types\": {\"a\": \"<i2\"}}}",
    "\"a\"", "'<i2'" },
  { "text-for-float", "{\"a\": \"abc\", \"_nczarr_attr\": {\"types\": {\"a\": \"<f4\"}}}",
    "\"a\"", "'<f4'" },
  { "object-for-double", "{\"a\": {\"b\": 1}, \"_nczarr_attr\": {\"types\": {\"a\": \"<f8\"}}}",
    "\"a\"", "'<f8'" },
  { "number-for-string", "{\"a\": 5, \"_nczarr_attr\": {\"types\": {\"a\": \"|S8\"}}}",
    "\"a\"", "'|S8'" },
  { "unknown-type", "{\"a\": 5, \"_nczarr_attr\": {\"types\": {\"a\": \"<q9\"}}}",
    "\"a\"", "'<q9'" },
  { "unknown-type-unused", "{\"_nczarr_attr\": {\"types\": {\"ghost\": \"<i3\"}}}",
    "\"ghost\"", "'<i3'" },
  { "type-not-string", "{\"a\": 5, \"_nczarr_attr\": {\"types\": {\"a\": 4}}}",
    "\"a\"", "not a string" },
  { "types-not-object", "{\"a\": 5, \"_nczarr_attr\": {\"types\": [\"<i4\"]}}",
    "\"types\"", "not an object" },
  { "attr-not-object", "{\"a\": 5, \"_nczarr_attr\": \"<i4\"}",
    "\"_nczarr_attr\"", "not an object" },
  { "upper-case", "{\"a\": \"x\", \"_NCZARR_ATTR\": {\"types\": {\"a\": \"<u1\"}}}",
    "\"_NCZARR_ATTR\"", "'<u1'" },
};

static void
test_bad_types (gconstpointer data)
{
  const BadTypes *c = data;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autofree char *za = zarray ("<i4", "0");
  const char *needles[] = { "v/.zattrs", "_attr\"", c->needle1, c->needle2, NULL };

  if (g_str_equal (c->name, "upper-case"))
    needles[1] = "_NCZARR_ATTR";
  nczt_put (store, ".zgroup", ZGROUP_KEYS);
  nczt_put (store, "v/.zarray", za);
  nczt_put (store, "v/.zattrs", c->zattrs);
  assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
}

/* Group attributes too, in the 4.9.3 layout. */
static void
test_bad_types_group (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  const char *needles[] = { ".zattrs", "\"_nczarr_attr\"", "\"title\"", "'<i4'", NULL };

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, ".zattrs", "{\"title\": \"t\", \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
            GROUP_INFO ", \"_nczarr_attr\": {\"types\": {\"title\": \"<i4\"}}}");
  assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
}

/* Values that fit their types open with those types. */
static void
test_good_types (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autofree char *za = zarray ("<i4", "0");
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczVariable *v;
  NczAttribute *a;
  g_autofree char *t = NULL;

  nczt_put (store, ".zgroup", ZGROUP_KEYS);
  nczt_put (store, "v/.zarray", za);
  nczt_put (store, "v/.zattrs",
            "{\"c_num\": 42, \"c_dict\": {\"k\": [1, 2]}, \"c_list\": [1,2,3], \"f\": \"NaN\", "
            "\"d\": [1, \"Infinity\", -2.5], \"s\": [\"a\", \"b\"], \"u8\": 18446744073709551615, "
            "\"i1\": [-128, 127], \"j\": {\"x\": 1}, \"e\": [], \"v1\": 7, "
            "\"_nczarr_attr\": {\"types\": {\"c_num\": \">S1\", \"c_dict\": \">S1\", \"c_list\": \"<U1\", "
            "\"f\": \"<f4\", \"d\": \"<f8\", \"s\": \"|S128\", \"u8\": \"<u8\", \"i1\": \"|i1\", "
            "\"j\": \"|J0\", \"e\": \"<i4\", \"v1\": \"4\"}}}");
  ds = open_store (store, &error);
  g_assert_no_error (error);
  v = nczt_var (ds, "/v");

  t = nczt_attr_text (ncz_variable_get_attribute (v, "c_num"));
  g_assert_cmpstr (t, ==, "42");
  g_free (t);
  t = nczt_attr_text (ncz_variable_get_attribute (v, "c_dict"));
  g_assert_cmpstr (t, ==, "{\"k\": [1,2]}");
  g_free (t);
  t = nczt_attr_text (ncz_variable_get_attribute (v, "c_list"));
  g_assert_cmpstr (t, ==, "[1,2,3]");
  a = ncz_variable_get_attribute (v, "f");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_FLOAT);
  g_assert_true (isnan (ncz_attribute_get_double (a, 0, NULL)));
  a = ncz_variable_get_attribute (v, "d");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_DOUBLE);
  g_assert_true (isinf (ncz_attribute_get_double (a, 1, NULL)));
  g_assert_cmpfloat (ncz_attribute_get_double (a, 2, NULL), ==, -2.5);
  a = ncz_variable_get_attribute (v, "s");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_STRING);
  g_assert_cmpuint (ncz_attribute_get_length (a), ==, 2);
  a = ncz_variable_get_attribute (v, "u8");
  g_assert_cmpuint (ncz_attribute_get_uint64 (a, 0, NULL), ==, G_MAXUINT64);
  a = ncz_variable_get_attribute (v, "i1");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_BYTE);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, -128);
  a = ncz_variable_get_attribute (v, "j");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_CHAR);
  a = ncz_variable_get_attribute (v, "e");
  g_assert_nonnull (a);
  g_assert_cmpuint (ncz_attribute_get_length (a), ==, 0);
  a = ncz_variable_get_attribute (v, "v1");   /* NCZarr V1 code 4: int */
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, 7);
}

/* Read as plain Zarr (mode=zarr), a types map that is not well formed
 * is not NCZarr metadata to obey: it is left unused. */
static void
test_pure_ignores_bad_types_map (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczAttribute *a;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, ".zattrs", "{\"n\": 5, \"_nczarr_attr\": {\"types\": {\"n\": \"<q9\"}}}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  a = ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "n");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, 5);
  g_clear_object (&ds);

  /* with a superblock the store is NCZarr: the same map is refused */
  nczt_put (store, ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}}");
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA);
  g_assert_nonnull (strstr (error->message, "'<q9'"));
}

/* ---- JSON-looking char attributes ---- */

static void
test_json_text_roundtrip (void)
{
  static const char *const fragments[] = {
    "mode=nczarr,file", "mode=nczarr,file&layout=attributes", "mode=zarr,file",
  };
  static const struct { const char *name, *text; gboolean as_json; } texts[] = {
    { "compact_dict", "{\"a\":1,\"b\":2}", FALSE },
    { "spaced_dict", "{\"a\": 1, \"b\": 2}", TRUE },
    { "nested", "[[1, 2], [3]]", FALSE },
    { "nested_compact", "[[1,2],[3]]", TRUE },
    { "mixed", "[1, {\"a\":2}]", FALSE },
    { "mixed_json", "[1,{\"a\": 2}]", TRUE },
    { "leading_space", " {\"a\": 1}", FALSE },
    { "newline", "{\n\"key1\": [1,2,3]}", FALSE },
    { "float_text", "{\"x\": 1.50}", TRUE },
    { "deep", "{\"a\": {\"b\": [[1],[2, 3]]}}", FALSE },
  };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *za = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);

      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        {
          g_autoptr(NczAttribute) a = ncz_attribute_new_text (texts[i].name, texts[i].text, -1);
          g_assert_true (ncz_group_set_attribute (root, a, &error));
          g_assert_no_error (error);
        }
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);

      za = nczt_get (store, ".zattrs");
      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        {
          /* stored as JSON exactly when that reads back as the text */
          g_autofree char *raw = g_strdup_printf ("\"%s\": %s", texts[i].name, texts[i].text);
          if ((strstr (za, raw) != NULL) != texts[i].as_json)
            g_error ("%s: %s in %s", fragments[f], texts[i].name, za);
        }

      back = nczt_open_mem (store, fragments[f], NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      root = ncz_dataset_get_root_group (back);
      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        {
          g_autofree char *t = nczt_attr_text (ncz_group_get_attribute (root, texts[i].name));
          g_assert_cmpstr (t, ==, texts[i].text);
        }
    }
}

/* ---- errors about chunks and array metadata name the URL ---- */

static void
test_chunk_errors_name_url (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autofree char *za = zarray ("<i4", "0");
  gint32 v[2];
  guint64 start = 0, count = 2;

  nczt_put (store, ".zgroup", ZGROUP_KEYS);
  nczt_put (store, "v/.zarray", za);
  nczt_put_bytes (store, "v/0", "\1\0\0\0\2\0", 6);
  ds = open_store (store, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_variable_read (nczt_var (ds, "/v"), &start, 1, &count, 1, NULL, 0, v, sizeof v,
                                     NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK);
  {
    const char *needles[] = { URL ": ", "chunk 'v/0'", "'/v'", "6 bytes", NULL };
    assert_message (error, needles);
  }
  g_clear_error (&error);
  g_clear_object (&ds);

  /* a codec that cannot decode the chunk */
  nczt_put (store, "v/.zarray",
            "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
            "\"fill_value\": 0, \"compressor\": {\"id\": \"zlib\", \"level\": 1}, "
            "\"filters\": null, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}");
  nczt_put_bytes (store, "v/0", "not zlib data", 13);
  ds = open_store (store, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_variable_read (nczt_var (ds, "/v"), &start, 1, &count, 1, NULL, 0, v, sizeof v,
                                     NULL, &error));
  g_assert_nonnull (error);
  {
    const char *needles[] = { URL ": ", "'v/0'", NULL };
    assert_message (error, needles);
  }
  g_clear_error (&error);
  g_clear_object (&ds);

  /* a codec that is not available */
  nczt_put (store, "v/.zarray",
            "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
            "\"fill_value\": 0, \"compressor\": {\"id\": \"no-such-codec\"}, "
            "\"filters\": null, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}");
  ds = open_store (store, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_variable_read (nczt_var (ds, "/v"), &start, 1, &count, 1, NULL, 0, v, sizeof v,
                                     NULL, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  {
    const char *needles[] = { URL ": ", "'v/0'", "no-such-codec", NULL };
    assert_message (error, needles);
  }
}

/* NCZarr array and group information in .zattrs (the 4.9.3 layout) is
 * named by its object and JSON key. */
static void
test_metadata_errors_name_json_key (void)
{
  {
    g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
    const char *needles[] = { "v/.zattrs", "\"_nczarr_array\"", "\"dimension_references\"[0]",
                              "\"/nope\"", NULL };

    nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
    nczt_put (store, ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
              "\"_nczarr_group\": {\"dimensions\": {\"x\": 2}, \"arrays\": [\"v\"], \"groups\": []}}");
    /* the .zarray of zarray() has its own _nczarr_array: use a plain one */
    nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", "
              "\"chunks\": [2], \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, "
              "\"filters\": null}");
    nczt_put (store, "v/.zattrs", "{\"_nczarr_array\": {\"dimension_references\": [\"/nope\"]}}");
    assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
  }
  {
    g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
    const char *needles[] = { ".zattrs", "\"_nczarr_group\"", "\"dimensions\"", "\"x\"", NULL };

    nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
    nczt_put (store, ".zattrs", "{\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
              "\"_nczarr_group\": {\"dimensions\": {\"x\": -2}, \"arrays\": [], \"groups\": []}}");
    assert_refused (store, NCZ_BACKEND_ERROR_BAD_METADATA, needles);
  }
}

/* The root of the store: a Zarr group; or no .zgroup but arrays or
 * groups below it, opened as netcdf-c opens it (xarray wrote such stores,
 * netcdf-c's ref_power_901_constants) and made a group by the first
 * write; a single array at the root is refused, and so is a store with
 * no Zarr object at the root or below it. */
#define ZARRAY_PLAIN "{\"zarr_format\": 2, \"shape\": [3], \"dtype\": \"<i4\", \"chunks\": [3], " \
  "\"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}"
#define PURE_URL "file:///unused#mode=zarr,file"

static void
test_root_implicit_group (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) again = NULL;
  g_autofree char *zgroup = NULL;
  NczGroup *sub;
  gint32 back[3] = { 0 };
  const gint32 vals[] = { 1, 2, 3 };

  nczt_put (store, "sub/.zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "sub/a/.zarray", ZARRAY_PLAIN);
  nczt_put (store, "sub/a/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  nczt_put_bytes (store, "sub/a/0", vals, sizeof vals);

  /* read-only: opened, nothing written */
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  sub = ncz_group_get_group (ncz_dataset_get_root_group (ds), "sub");
  g_assert_nonnull (sub);
  nczt_read_all (nczt_var (ds, "/sub/a"), back, sizeof back);
  g_assert_cmpmem (back, sizeof back, vals, sizeof vals);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (nczt_get (store, ".zgroup"));
  g_clear_object (&ds);

  /* opened for writing, it becomes a group */
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  zgroup = nczt_get (store, ".zgroup");
  g_assert_nonnull (zgroup);
  g_assert_nonnull (strstr (zgroup, "\"zarr_format\": 2"));
  again = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nczt_var (again, "/sub/a"));
}

static void
test_root_refused (void)
{
  {
    g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(NczDataset) ds = NULL;
    const char *needles[] = { PURE_URL ": ", ".zarray", "the root of the store is a Zarr array",
                              NULL };

    nczt_put (store, ".zarray", ZARRAY_PLAIN);
    ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
    g_assert_null (ds);
    g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
    assert_message (error, needles);
  }
  {
    g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(NczDataset) ds = NULL;
    const char *needles[] = { PURE_URL ": ", "no Zarr group or array at the root", NULL };

    nczt_put (store, "notes.txt", "not Zarr");
    nczt_put (store, "dir/readme", "not Zarr either");
    ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
    g_assert_null (ds);
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
    assert_message (error, needles);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  nczt_init ();

  for (guint i = 0; i < G_N_ELEMENTS (bad_fills); i++)
    {
      g_autofree char *path = g_strdup_printf ("/nczarr-strict/fill-value/bad-%u", i);
      g_test_add_data_func (path, &bad_fills[i], test_bad_fill);
    }
  g_test_add_func ("/nczarr-strict/fill-value/bad-attribute", test_bad_fill_attribute);
  g_test_add_func ("/nczarr-strict/fill-value/good", test_good_fills);
  g_test_add_func ("/nczarr-strict/fill-value/good-null-and-strings", test_good_fills_other);
  for (guint i = 0; i < G_N_ELEMENTS (bad_superblocks); i++)
    {
      g_autofree char *path = g_strdup_printf ("/nczarr-strict/superblock/bad-%s",
                                               bad_superblocks[i].name);
      g_test_add_data_func (path, &bad_superblocks[i], test_bad_superblock);
    }
  g_test_add_func ("/nczarr-strict/superblock/good", test_good_superblocks);
  for (guint i = 0; i < G_N_ELEMENTS (bad_types); i++)
    {
      g_autofree char *path = g_strdup_printf ("/nczarr-strict/types/bad-%s", bad_types[i].name);
      g_test_add_data_func (path, &bad_types[i], test_bad_types);
    }
  g_test_add_func ("/nczarr-strict/types/bad-group", test_bad_types_group);
  g_test_add_func ("/nczarr-strict/types/good", test_good_types);
  g_test_add_func ("/nczarr-strict/types/pure-ignores-bad-map", test_pure_ignores_bad_types_map);
  g_test_add_func ("/nczarr-strict/json-text-roundtrip", test_json_text_roundtrip);
  g_test_add_func ("/nczarr-strict/errors/chunk-url", test_chunk_errors_name_url);
  g_test_add_func ("/nczarr-strict/errors/json-key", test_metadata_errors_name_json_key);
  g_test_add_func ("/nczarr-strict/root/implicit-group", test_root_implicit_group);
  g_test_add_func ("/nczarr-strict/root/refused", test_root_refused);
  return g_test_run ();
}
