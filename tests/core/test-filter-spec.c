/* Tests of the filter spec text parser (filters.md "Filter Specification
 * Syntax", Appendix A and Appendix D).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz.h>
#include "ncz-filter-spec-private.h"

static char *
params_of (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) p = g_array_new (FALSE, FALSE, sizeof (guint));
  GString *s = g_string_new (NULL);

  if (!ncz_filter_spec_parse_constant (text, -1, p, &error))
    g_error ("constant '%s': %s", text, error->message);
  for (guint i = 0; i < p->len; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", g_array_index (p, guint, i));
  return g_string_free (s, FALSE);
}

#define assert_constant(text, expected) G_STMT_START {   \
    g_autofree char *got_ = params_of (text);            \
    g_assert_cmpstr (got_, ==, expected);                \
  } G_STMT_END

static void
test_constants (void)
{
  char buf[64];
  guint two[2];
  float f = 789.0f;
  guint fbits;

  /* the table of filters.md */
  assert_constant ("-17b", "4294967279");        /* 0xffffffef */
  assert_constant ("23ub", "23");
  assert_constant ("-25S", "4294967271");        /* 0xffffffe7 */
  assert_constant ("27US", "27");
  assert_constant ("-77", "4294967219");
  assert_constant ("77", "77");
  assert_constant ("93U", "93");
  memcpy (&fbits, &f, sizeof fbits);
  g_snprintf (buf, sizeof buf, "%u", fbits);
  assert_constant ("789f", buf);
  g_assert_cmpuint (fbits, ==, 0x44454000u);
  ncz_filter_params_from_double (12345678.12345678, two);
  g_snprintf (buf, sizeof buf, "%u,%u", two[0], two[1]);
  assert_constant ("12345678.12345678d", buf);
  /* -9223372036854775807 = 0x8000000000000001: low word first */
  assert_constant ("-9223372036854775807L", "1,2147483648");
  assert_constant ("18446744073709551615UL", "4294967295,4294967295");

  /* tags in any case */
  assert_constant ("-17B", "4294967279");
  assert_constant ("23UB", "23");
  assert_constant ("23uB", "23");
  assert_constant ("23Ub", "23");
  assert_constant ("-25s", "4294967271");
  assert_constant ("27us", "27");
  assert_constant ("93u", "93");
  assert_constant ("789F", "1145389056");
  assert_constant ("1l", "1,0");
  assert_constant ("1ul", "1,0");
  assert_constant ("1uL", "1,0");

  /* truncation to 8 and 16 bits, then sign or zero extension */
  assert_constant ("300b", "44");
  assert_constant ("-129b", "127");
  assert_constant ("128b", "4294967168");        /* 0xffffff80 */
  assert_constant ("255ub", "255");
  assert_constant ("256ub", "0");
  assert_constant ("32768s", "4294934528");      /* 0xffff8000 */
  assert_constant ("65535us", "65535");
  assert_constant ("65536us", "0");
  assert_constant ("-1s", "4294967295");

  /* untagged: smallest type that holds it; negative means signed 32 */
  assert_constant ("0", "0");
  assert_constant ("4294967295", "4294967295");
  assert_constant ("4294967296", "0,1");
  assert_constant ("-2147483648", "2147483648");
  assert_constant ("+5", "5");
  assert_constant ("007", "7");

  /* 64-bit */
  assert_constant ("9223372036854775807L", "4294967295,2147483647");
  assert_constant ("-9223372036854775808L", "0,2147483648");
  assert_constant ("-1L", "4294967295,4294967295");
  assert_constant ("4294967296UL", "0,1");

  /* floats and doubles */
  assert_constant ("1.5f", "1069547520");        /* 0x3fc00000 */
  assert_constant ("-2.5f", "3223322624");       /* 0xc0200000 */
  assert_constant (".5f", "1056964608");         /* 0x3f000000 */
  assert_constant ("5.f", "1084227584");         /* 0x40a00000 */
  assert_constant ("1e3f", "1148846080");        /* 1000.0f */
  assert_constant ("1E-2F", "1008981770");       /* 0.01f */
  assert_constant ("1.5d", "0,1073217536");      /* 0x3ff8000000000000 */
  assert_constant ("-2d", "0,3221225472");       /* 0xc000000000000000 */
  assert_constant ("0d", "0,0");
  assert_constant (" 42 ", "42");

  /* back from two parameters */
  {
    g_autoptr(GArray) p = g_array_new (FALSE, FALSE, sizeof (guint));
    g_assert_true (ncz_filter_spec_parse_constant ("12345678.12345678d", -1, p, NULL));
    g_assert_cmpfloat (ncz_filter_params_to_double ((const guint *) p->data), ==,
                       12345678.12345678);
    g_array_set_size (p, 0);
    g_assert_true (ncz_filter_spec_parse_constant ("-9223372036854775807L", -1, p, NULL));
    g_assert_cmpint ((gint64) ncz_filter_params_to_uint64 ((const guint *) p->data), ==,
                     G_GINT64_CONSTANT (-9223372036854775807));
    g_array_set_size (p, 0);
    g_assert_true (ncz_filter_spec_parse_constant ("123,456", 3, p, NULL));
    g_assert_cmpuint (p->len, ==, 1);
    g_assert_cmpuint (g_array_index (p, guint, 0), ==, 123);
  }
}

static void
test_bad_constants (void)
{
  static const char *const bad[] = {
    "", " ", "-", "+", ".", "e5", "1e", "1e+", "1.5", "1e3", "1.5u", "1.5L", "2.5b",
    "17x", "17bb", "17ubl", "17uu", "17lu", "17 b", "1 7", "--5", "-+5", "0x10",
    "-5u", "-5ub", "-5us", "-5ul", "4294967296u", "-2147483649",
    "9223372036854775808L", "-9223372036854775809L", "18446744073709551616",
    "18446744073709551616UL", "99999999999999999999999b", "1e39f", "-1e39f", "1e999d",
    "inf", "nanf", "1.5e", "\xff", "1\xc3\xa9", "5;", "5,",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) p = g_array_new (FALSE, FALSE, sizeof (guint));
      if (ncz_filter_spec_parse_constant (bad[i], -1, p, &error))
        g_error ("constant '%s' should not parse", bad[i]);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
      g_assert_true (g_str_has_prefix (error->message, "filter spec at byte "));
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_cmpuint (p->len, ==, 0);
    }
  /* a NUL inside the given length */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) p = g_array_new (FALSE, FALSE, sizeof (guint));
    g_assert_false (ncz_filter_spec_parse_constant ("1\0002", 3, p, &error));
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  }
}

static char *
list_text (const char *spec)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = ncz_filter_spec_parse_list (spec, &error);
  if (list == NULL)
    g_error ("'%s': %s", spec, error->message);
  return ncz_filter_spec_list_to_text (list);
}

#define assert_list(spec, expected) G_STMT_START {   \
    g_autofree char *got_ = list_text (spec);        \
    g_assert_cmpstr (got_, ==, expected);            \
  } G_STMT_END

static void
test_lists (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = NULL;
  NczFilterSpec *f;

  list = ncz_filter_spec_parse_list ("307,9|4,32,32", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 2);
  f = g_ptr_array_index (list, 0);
  g_assert_cmpuint (f->filter_id, ==, 307);
  g_assert_cmpuint (f->visible->len, ==, 1);
  g_assert_cmpuint (g_array_index (f->visible, guint, 0), ==, 9);
  g_assert_null (f->codec_id);
  g_assert_null (f->codec);
  g_assert_null (f->json);
  f = g_ptr_array_index (list, 1);
  g_assert_cmpuint (f->filter_id, ==, 4);
  g_assert_cmpuint (f->visible->len, ==, 2);

  assert_list ("307,9|1,2|40000", "307,9|1,2|40000");
  assert_list ("32001,0,0,0,0,5,1,1", "32001,0,0,0,0,5,1,1");
  assert_list ("40000", "40000");
  assert_list ("32015,-3", "32015,4294967293");
  assert_list (" 307 , 9 | 4 , 32 , 32 ", "307,9|4,32,32");
  assert_list ("307U,9", "307,9");
  assert_list ("32768,-17b,23ub,-25S,27US,77,93U,789f,1.5d,-9L,18446744073709551615UL",
               "32768,4294967279,23,4294967271,27,77,93,1145389056,0,1073217536,"
               "4294967287,4294967295,4294967295,4294967295");
  /* names */
  assert_list ("zstd,1", "32015,1");
  assert_list ("bzip2,9|deflate,5", "307,9|1,5");
  assert_list ("BZ2,9|zlib,1|Shuffle|fletcher32|szip,32,32|blosc|lz4|zstandard,3",
               "307,9|1,1|2|3|4,32,32|32001|32004|32015,3");

  /* single spec */
  {
    g_autoptr(NczFilterSpec) one = ncz_filter_spec_parse ("32015,3", &error);
    g_assert_no_error (error);
    g_assert_cmpuint (one->filter_id, ==, 32015);
    g_assert_cmpuint (g_array_index (one->visible, guint, 0), ==, 3);
    g_assert_null (ncz_filter_spec_parse ("307,9|1,2", &error));
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_clear_error (&error);
  }

  /* text from parameters */
  {
    guint p[] = { 0, 0, 0, 0, 5, 1, 1 };
    g_autofree char *t = ncz_filter_spec_to_text (32001, p, G_N_ELEMENTS (p));
    g_autofree char *t0 = ncz_filter_spec_to_text (40000, NULL, 0);
    g_assert_cmpstr (t, ==, "32001,0,0,0,0,5,1,1");
    g_assert_cmpstr (t0, ==, "40000");
  }
  g_assert_cmpuint (ncz_filter_id_from_name ("ZSTD"), ==, 32015);
  g_assert_cmpuint (ncz_filter_id_from_name ("delta"), ==, 0);
}

static void
test_bad_lists (void)
{
  static const struct { const char *text; gsize offset; } bad[] = {
    { "", 0 }, { "|", 0 }, { "307|", 4 }, { "|307", 0 }, { "307,9|", 6 }, { "307||1", 4 },
    { "307,", 4 }, { ",9", 0 }, { "307,,9", 4 }, { "307,9,", 6 }, { "abc", 0 }, { "0", 0 },
    { "65536", 0 }, { "99999999999", 0 }, { "-307", 0 }, { "307b", 0 }, { "307,9x", 4 },
    { "307,1.5", 4 }, { "307,9|4,3x2", 8 }, { "3 07", 0 }, { "307;9", 0 }, { "zstd;1", 0 },
    { "delta,1", 0 }, { "\xff", 0 }, { "307,\xff", 4 }, { "  ", 0 }, { "307 9", 0 },
    { "1,2,3|4,5,-", 10 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) list = ncz_filter_spec_parse_list (bad[i].text, &error);
      g_autofree char *prefix = g_strdup_printf ("filter spec at byte %" G_GSIZE_FORMAT " ",
                                                 bad[i].offset);
      if (list != NULL)
        g_error ("'%s' should not parse", bad[i].text);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
      if (!g_str_has_prefix (error->message, prefix))
        g_error ("'%s': message '%s' does not start with '%s'", bad[i].text,
                 error->message, prefix);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
  /* long input is quoted short */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *lng = g_strnfill (5000, '7');
    g_assert_null (ncz_filter_spec_parse_list (lng, &error));
    g_assert_cmpuint (strlen (error->message), <, 200);
  }
}

/* Appendix A: 8-byte values as two 4-byte parameters, on either host */
static void
test_fix8 (void)
{
  const double value = 12345678.12345678;
  guint64 bits;
  guint expect[2];
  guint8 le[8], be[8], mem[8];
  guint32 w0, w1;

  memcpy (&bits, &value, 8);
  ncz_filter_params_from_double (value, expect);
  g_assert_cmpuint (expect[0], ==, (guint) (bits & 0xffffffffu));
  g_assert_cmpuint (expect[1], ==, (guint) (bits >> 32));
  for (int i = 0; i < 8; i++)
    {
      le[i] = (guint8) (bits >> (8 * i));
      be[i] = (guint8) (bits >> (8 * (7 - i)));
    }

  /* little-endian host: nothing to do; the words read little-endian */
  memcpy (mem, le, 8);
  ncz_filter_params_fix8_for (mem, FALSE, FALSE);
  g_assert_cmpmem (mem, 8, le, 8);
  w0 = (guint32) mem[0] | (guint32) mem[1] << 8 | (guint32) mem[2] << 16 | (guint32) mem[3] << 24;
  w1 = (guint32) mem[4] | (guint32) mem[5] << 8 | (guint32) mem[6] << 16 | (guint32) mem[7] << 24;
  g_assert_cmpuint (w0, ==, expect[0]);
  g_assert_cmpuint (w1, ==, expect[1]);
  ncz_filter_params_fix8_for (mem, TRUE, FALSE);
  g_assert_cmpmem (mem, 8, le, 8);

  /* big-endian host: encoding makes the two words, read big-endian,
   * the same low and high halves; decoding gives the native value back */
  memcpy (mem, be, 8);
  ncz_filter_params_fix8_for (mem, FALSE, TRUE);
  w0 = (guint32) mem[0] << 24 | (guint32) mem[1] << 16 | (guint32) mem[2] << 8 | (guint32) mem[3];
  w1 = (guint32) mem[4] << 24 | (guint32) mem[5] << 16 | (guint32) mem[6] << 8 | (guint32) mem[7];
  g_assert_cmpuint (w0, ==, expect[0]);
  g_assert_cmpuint (w1, ==, expect[1]);
  ncz_filter_params_fix8_for (mem, TRUE, TRUE);
  g_assert_cmpmem (mem, 8, be, 8);

  /* this host */
  memcpy (mem, &value, 8);
  ncz_filter_params_fix8 (mem, FALSE);
  ncz_filter_params_fix8 (mem, TRUE);
  g_assert_cmpmem (mem, 8, &value, 8);

  /* uint64 round trip */
  ncz_filter_params_from_uint64 (G_GUINT64_CONSTANT (0x0123456789abcdef), expect);
  g_assert_cmpuint (expect[0], ==, 0x89abcdefu);
  g_assert_cmpuint (expect[1], ==, 0x01234567u);
  g_assert_cmpuint (ncz_filter_params_to_uint64 (expect), ==,
                    G_GUINT64_CONSTANT (0x0123456789abcdef));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/filter-spec/constants", test_constants);
  g_test_add_func ("/filter-spec/bad-constants", test_bad_constants);
  g_test_add_func ("/filter-spec/lists", test_lists);
  g_test_add_func ("/filter-spec/bad-lists", test_bad_lists);
  g_test_add_func ("/filter-spec/fix8", test_fix8);
  return g_test_run ();
}
