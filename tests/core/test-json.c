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

/* Every byte of @text is ASCII. */
static gboolean
is_ascii (const char *text)
{
  for (const char *p = text; *p; p++)
    if ((guchar) *p >= 0x80)
      return FALSE;
  return TRUE;
}

static void
test_write_ascii (void)
{
  g_autoptr(NczJson) o = ncz_json_new_object ();
  g_autoptr(NczJson) arr = ncz_json_new_array ();
  g_autofree char *ascii = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *pretty = NULL;

  /* Latin, Greek, Cyrillic, CJK (BMP), an emoji (a surrogate pair),
   * control characters, DEL and a NUL */
  ncz_json_object_set (o, "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9", ncz_json_new_int64 (1));
  ncz_json_array_append (arr, ncz_json_new_string ("\xce\xa9\xce\xbc \xd0\x9f\xd1\x80 "
                                                   "\xe4\xb8\xad\xe6\x96\x87", -1));
  ncz_json_array_append (arr, ncz_json_new_string ("\xf0\x9f\x98\x80!", -1));
  ncz_json_array_append (arr, ncz_json_new_string ("a\x01\x1f\x7f\t\n\"\\", -1));
  ncz_json_array_append (arr, ncz_json_new_string ("x\0y", 3));
  ncz_json_array_append (arr, ncz_json_new_string ("\xef\xbf\xbf\xf4\x8f\xbf\xbf", -1));
  ncz_json_object_set (o, "t", ncz_json_ref (arr));
  ascii = ncz_json_to_ascii_string (o, FALSE);
  g_assert_cmpstr (ascii, ==,
                   "{\"gr\\u00fcppe \\u00e9t\\u00e9\": 1, \"t\": ["
                   "\"\\u03a9\\u03bc \\u041f\\u0440 \\u4e2d\\u6587\","
                   "\"\\ud83d\\ude00!\","
                   "\"a\\u0001\\u001f\\u007f\\t\\n\\\"\\\\\","
                   "\"x\\u0000y\","
                   "\"\\uffff\\udbff\\udfff\"]}");
  g_assert_true (is_ascii (ascii));

  /* the default writer keeps raw UTF-8; both read back the same */
  raw = ncz_json_to_string (o, FALSE);
  g_assert_nonnull (strstr (raw, "gr\xc3\xbcppe"));
  g_assert_nonnull (strstr (raw, "\xf0\x9f\x98\x80!"));
  {
    g_autoptr(NczJson) a = ncz_json_parse (ascii, -1, NULL);
    g_autoptr(NczJson) b = ncz_json_parse (raw, -1, NULL);
    g_assert_true (ncz_json_equal (a, o));
    g_assert_true (ncz_json_equal (b, o));
  }

  /* pretty (zarr-python's layout) escapes too */
  pretty = ncz_json_to_ascii_string (arr, TRUE);
  g_assert_true (is_ascii (pretty));
  g_assert_true (g_str_has_prefix (pretty, "[\n    \"\\u03a9"));

  /* bytes that are not UTF-8 (a Latin-1 char attribute, a sequence cut
   * short, a UTF-8 encoded surrogate, an overlong form) are written as
   * the Latin-1 characters of those bytes */
  {
    g_autoptr(NczJson) s = ncz_json_new_string ("caf\xe9 \xe4\xb8 \xed\xa0\x80 \xc0\xaf", -1);
    g_autofree char *t = ncz_json_to_ascii_string (s, FALSE);
    g_assert_cmpstr (t, ==, "\"caf\\u00e9 \\u00e4\\u00b8 \\u00ed\\u00a0\\u0080 \\u00c0\\u00af\"");
  }
  {
    g_autoptr(NczJson) s = ncz_json_new_string ("\xe4\xb8", -1);
    g_autofree char *t = ncz_json_to_ascii_string (s, FALSE);
    g_assert_cmpstr (t, ==, "\"\\u00e4\\u00b8\"");
  }
}

/* Raw UTF-8 and escapes read the same; surrogate pairs join; a lone
 * surrogate becomes U+FFFD and never swallows what follows. */
static void
test_parse_unicode (void)
{
  static const struct {
    const char *json;
    const char *text;
    gsize length;
  } cases[] = {
    { "\"\\u00e9t\\u00e9\"", "\xc3\xa9t\xc3\xa9", 5 },
    { "\"\xc3\xa9t\xc3\xa9\"", "\xc3\xa9t\xc3\xa9", 5 },
    { "\"\\u4E2D\\u6587 \xe4\xb8\xad\"", "\xe4\xb8\xad\xe6\x96\x87 \xe4\xb8\xad", 10 },
    { "\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4 },
    { "\"\\uD83D\\uDE00\\ud800\\udc00\\udbff\\udfff\"",
      "\xf0\x9f\x98\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 12 },
    { "\"\xf0\x9f\x98\x80\"", "\xf0\x9f\x98\x80", 4 },
    { "\"a\\u0000b\"", "a\0b", 3 },
    { "\"\\ud83d\"", "\xef\xbf\xbd", 3 },
    { "\"\\ud83dx\"", "\xef\xbf\xbdx", 4 },
    { "\"\\ud83d\\n\"", "\xef\xbf\xbd\n", 4 },
    { "\"\\ud83d\\u0041\"", "\xef\xbf\xbd" "A", 4 },
    { "\"\\ud83d\\ud83d\\ude00\"", "\xef\xbf\xbd\xf0\x9f\x98\x80", 7 },
    { "\"\\ude00\\ud83d\"", "\xef\xbf\xbd\xef\xbf\xbd", 6 },
    { "\"\\udfff!\"", "\xef\xbf\xbd!", 4 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczJson) j = ncz_json_parse (cases[k].json, -1, &error);
      const char *s;
      gsize len = 0;

      g_test_message ("%s", cases[k].json);
      g_assert_no_error (error);
      s = ncz_json_get_string (j, &len);
      g_assert_cmpmem (s, len, cases[k].text, cases[k].length);
    }

  /* escapes that are cut short are errors, also after a lone surrogate */
  {
    const char *bad[] = { "\"\\u00\"", "\"\\ud83d\\u12\"", "\"\\ud83d\\", "\"\\uzzzz\"" };
    for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
      {
        g_autoptr(GError) error = NULL;
        g_assert_null (ncz_json_parse (bad[k], -1, &error));
        g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA);
      }
  }
}

/* Every code point (surrogates aside) written in ASCII reads back as its
 * UTF-8, alone and between other characters. */
static void
test_ascii_roundtrip (void)
{
  for (gunichar u = 1; u <= 0x10FFFF; u += (u < 0x800 ? 1 : u < 0x10000 ? 3 : 61))
    {
      char utf8[8] = "";
      char text[16];
      gint n;

      if (u >= 0xD800 && u <= 0xDFFF)
        continue;
      n = g_unichar_to_utf8 (u, utf8);
      g_snprintf (text, sizeof text, "<%.*s>", n, utf8);
      {
        g_autoptr(NczJson) s = ncz_json_new_string (text, -1);
        g_autofree char *t = ncz_json_to_ascii_string (s, FALSE);
        g_autoptr(NczJson) back = ncz_json_parse (t, -1, NULL);
        gsize len = 0;
        const char *b;

        g_assert_true (is_ascii (t));
        g_assert_nonnull (back);
        b = ncz_json_get_string (back, &len);
        g_assert_cmpmem (b, len, text, strlen (text));
      }
    }
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
  g_test_add_func ("/json/write/ascii", test_write_ascii);
  g_test_add_func ("/json/parse/unicode", test_parse_unicode);
  g_test_add_func ("/json/ascii-roundtrip", test_ascii_roundtrip);
  g_test_add_func ("/json/double-roundtrip", test_double_roundtrip);
  g_test_add_func ("/json/bare-nan", test_bare_nan_written_quoted);
  return g_test_run ();
}
