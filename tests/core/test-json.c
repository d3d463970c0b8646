/* Tests of the JSON reader/writer used for Zarr metadata */
#include <math.h>
#include <string.h>

#include <ncz/ncz-json.h>

static void
test_parse_basic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczJson) j = ncz_json_parse ("{\"zarr_format\": 2, \"shape\": [4, 3], \"dtype\": \"<f4\","
                                         " \"fill_value\": null, \"x\": true, \"s\": \"a\\u00e9\\n\"}", -1, &error);
  gint64 v;
  gsize len;

  g_assert_no_error (error);
  g_assert_nonnull (j);
  g_assert_cmpint (ncz_json_get_kind (j), ==, NCZ_JSON_OBJECT);
  g_assert_cmpuint (ncz_json_object_get_size (j), ==, 6);
  g_assert_cmpstr (ncz_json_object_get_key (j, 0), ==, "zarr_format");
  g_assert_true (ncz_json_get_int64 (ncz_json_object_get (j, "zarr_format"), &v));
  g_assert_cmpint (v, ==, 2);
  g_assert_cmpuint (ncz_json_array_get_length (ncz_json_object_get (j, "shape")), ==, 2);
  g_assert_cmpint (ncz_json_get_kind (ncz_json_object_get (j, "fill_value")), ==, NCZ_JSON_NULL);
  g_assert_true (ncz_json_get_boolean (ncz_json_object_get (j, "x")));
  g_assert_cmpstr (ncz_json_get_string (ncz_json_object_get (j, "s"), &len), ==, "a\xc3\xa9\n");
  g_assert_cmpuint (len, ==, 4);
  g_assert_null (ncz_json_object_get (j, "missing"));
}

static void
test_parse_numbers (void)
{
  g_autoptr(NczJson) j = ncz_json_parse ("[18446744073709551615, -9223372036854775808, 1.5e3,"
                                         " NaN, Infinity, -Infinity, -nan, 3.0, 1e400]", -1, NULL);
  guint64 u;
  gint64 i;

  g_assert_nonnull (j);
  g_assert_true (ncz_json_get_uint64 (ncz_json_array_get (j, 0), &u));
  g_assert_cmpuint (u, ==, G_MAXUINT64);
  g_assert_false (ncz_json_get_int64 (ncz_json_array_get (j, 0), &i));
  g_assert_true (ncz_json_get_int64 (ncz_json_array_get (j, 1), &i));
  g_assert_cmpint (i, ==, G_MININT64);
  g_assert_false (ncz_json_get_uint64 (ncz_json_array_get (j, 1), &u));
  g_assert_cmpfloat (ncz_json_get_double (ncz_json_array_get (j, 2)), ==, 1500.0);
  g_assert_false (ncz_json_number_is_integer (ncz_json_array_get (j, 2)));
  g_assert_true (ncz_json_get_int64 (ncz_json_array_get (j, 2), &i));
  g_assert_cmpint (i, ==, 1500);
  g_assert_true (isnan (ncz_json_get_double (ncz_json_array_get (j, 3))));
  g_assert_true (isinf (ncz_json_get_double (ncz_json_array_get (j, 4))));
  g_assert_cmpfloat (ncz_json_get_double (ncz_json_array_get (j, 5)), <, 0);
  g_assert_true (isnan (ncz_json_get_double (ncz_json_array_get (j, 6))));
  g_assert_true (ncz_json_get_int64 (ncz_json_array_get (j, 7), &i));
  g_assert_cmpint (i, ==, 3);
  g_assert_true (isinf (ncz_json_get_double (ncz_json_array_get (j, 8))));

  /* netcdf-c 4.9.0 writes raw control characters in strings */
  g_autoptr(NczJson) vt = ncz_json_parse ("\"a\vb\x01\"", -1, NULL);
  g_assert_cmpstr (ncz_json_get_string (vt, NULL), ==, "a\vb\x01");

  /* netcdf-c writes reals such as "0." */
  g_autoptr(NczJson) k = ncz_json_parse ("[0.,0.,1.]", -1, NULL);
  g_assert_nonnull (k);
  g_assert_cmpfloat (ncz_json_get_double (ncz_json_array_get (k, 2)), ==, 1.0);
  g_assert_false (ncz_json_number_is_integer (ncz_json_array_get (k, 2)));
}

static void
test_parse_errors (void)
{
  const char *bad[] = {
    "", "{", "[1,", "{\"a\" 1}", "{\"a\": }", "[1 2]", "\"abc", "\"\\x\"", "tru", "{1: 2}",
    "[1,]", "01x", "-", "1.e", "1e", "{} extra", "[\"\\ud800\\u0041\"]x", "nul",
  };
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczJson) j = ncz_json_parse (bad[k], -1, &error);
      g_assert_null (j);
      g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA);
      g_assert_nonnull (strstr (error->message, "line 1 column"));
    }
  /* deep nesting is refused, not a stack overflow */
  GString *deep = g_string_new (NULL);
  for (int k = 0; k < 100000; k++)
    g_string_append_c (deep, '[');
  g_autoptr(GError) error = NULL;
  g_assert_null (ncz_json_parse (deep->str, deep->len, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA);
  g_string_free (deep, TRUE);
  /* position on a later line */
  g_clear_error (&error);
  g_assert_null (ncz_json_parse ("{\n  \"a\": 1,\n  \"b\": ]\n}", -1, &error));
  g_assert_nonnull (strstr (error->message, "line 3 column 8"));
}

static void
test_write (void)
{
  g_autoptr(NczJson) o = ncz_json_new_object ();
  g_autoptr(NczJson) shape = ncz_json_new_array ();
  g_autofree char *text = NULL;
  g_autofree char *compact = NULL;
  g_autofree char *pretty = NULL;

  ncz_json_object_set (o, "zarr_format", ncz_json_new_int64 (2));
  ncz_json_array_append (shape, ncz_json_new_uint64 (4));
  ncz_json_array_append (shape, ncz_json_new_uint64 (3));
  ncz_json_object_set (o, "shape", ncz_json_ref (shape));
  ncz_json_object_set (o, "fill_value", ncz_json_new_double (NAN));
  ncz_json_object_set (o, "pi", ncz_json_new_double (3.141592653589793));
  ncz_json_object_set (o, "one", ncz_json_new_double (1.0));
  ncz_json_object_set (o, "s", ncz_json_new_string ("q\"\\\n\x01", -1));
  ncz_json_object_set (o, "big", ncz_json_new_uint64 (G_MAXUINT64));
  ncz_json_object_set (o, "f", ncz_json_new_double (1.23456789012345));
  text = ncz_json_to_string (o, FALSE);
  g_assert_cmpstr (text, ==,
                   "{\"zarr_format\": 2, \"shape\": [4,3], \"fill_value\": \"NaN\", \"pi\": 3.141592653589793, "
                   "\"one\": 1.0, \"s\": \"q\\\"\\\\\\n\\u0001\", \"big\": 18446744073709551615, "
                   "\"f\": 1.23456789012345}");
  compact = ncz_json_to_compact_string (shape);
  g_assert_cmpstr (compact, ==, "[4,3]");
  pretty = ncz_json_to_string (shape, TRUE);
  g_assert_cmpstr (pretty, ==, "[\n    4,\n    3\n]");

  /* replacing keeps the place; removal works */
  ncz_json_object_set (o, "shape", ncz_json_new_null ());
  g_assert_cmpstr (ncz_json_object_get_key (o, 1), ==, "shape");
  g_assert_true (ncz_json_object_remove (o, "shape"));
  g_assert_false (ncz_json_object_remove (o, "shape"));

  /* round trip */
  g_autoptr(NczJson) back = ncz_json_parse (text, -1, NULL);
  g_assert_nonnull (back);
  g_autofree char *text2 = ncz_json_to_string (back, FALSE);
  g_assert_cmpstr (text, ==, text2);
}

static void
test_double_roundtrip (void)
{
  double values[] = { 0.1, 1.0 / 3.0, 9.969209968386869e+36, 1e-300, -2.5, 1.23456789012,
                      5e-324, 1.7976931348623157e308, 100.0 };
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    {
      g_autofree char *s = ncz_format_double_roundtrip (values[k]);
      g_assert_cmpfloat (g_ascii_strtod (s, NULL), ==, values[k]);
    }
  g_autofree char *a = ncz_format_double_roundtrip (0.1);
  g_assert_cmpstr (a, ==, "0.1");
  g_autofree char *b = ncz_format_double_roundtrip (9.969209968386869e+36);
  g_assert_cmpstr (b, ==, "9.969209968386869e+36");
  g_autofree char *c = ncz_format_double_roundtrip (100.0);
  g_assert_cmpstr (c, ==, "100.0");
}

static void
test_bare_nan_written_quoted (void)
{
  g_autoptr(NczJson) j = ncz_json_parse ("{\"fill_value\": NaN, \"a\": -Infinity}", -1, NULL);
  g_autofree char *s = ncz_json_to_string (j, FALSE);
  g_assert_cmpstr (s, ==, "{\"fill_value\": \"NaN\", \"a\": \"-Infinity\"}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/json/parse/basic", test_parse_basic);
  g_test_add_func ("/json/parse/numbers", test_parse_numbers);
  g_test_add_func ("/json/parse/errors", test_parse_errors);
  g_test_add_func ("/json/write", test_write);
  g_test_add_func ("/json/double-roundtrip", test_double_roundtrip);
  g_test_add_func ("/json/bare-nan", test_bare_nan_written_quoted);
  return g_test_run ();
}
