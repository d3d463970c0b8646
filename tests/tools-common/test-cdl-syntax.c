/* test-cdl-syntax.c: the CDL words and characters ncz-gen reads and
 * ncz-dump writes (tools/common): what one writes, the other reads back.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include <ncz/ncz.h>

#include "cdl-format.h"
#include "cdl-syntax.h"
#include "ncz-cdl.h"

static const NczDataType all_types[] = {
  NCZ_DATA_TYPE_CHAR, NCZ_DATA_TYPE_BYTE, NCZ_DATA_TYPE_UBYTE, NCZ_DATA_TYPE_SHORT,
  NCZ_DATA_TYPE_USHORT, NCZ_DATA_TYPE_INT, NCZ_DATA_TYPE_UINT, NCZ_DATA_TYPE_INT64,
  NCZ_DATA_TYPE_UINT64, NCZ_DATA_TYPE_FLOAT, NCZ_DATA_TYPE_DOUBLE, NCZ_DATA_TYPE_STRING,
};

static void
test_type_keywords (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (all_types); i++)
    {
      const char *word = cdl_type_keyword (all_types[i]);
      g_assert_nonnull (word);
      /* what ncz-dump writes is what ncz_data_type_get_name says */
      g_assert_cmpstr (word, ==, ncz_data_type_get_name (all_types[i]));
      g_assert_cmpint (cdl_type_from_keyword (word), ==, all_types[i]);
    }
  g_assert_cmpint (cdl_type_from_keyword ("integer"), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (cdl_type_from_keyword ("long"), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (cdl_type_from_keyword ("real"), ==, NCZ_DATA_TYPE_FLOAT);
  g_assert_cmpint (cdl_type_from_keyword ("Int"), ==, NCZ_DATA_TYPE_NONE);
  g_assert_cmpint (cdl_type_from_keyword ("compound"), ==, NCZ_DATA_TYPE_NONE);
  g_assert_null (cdl_type_keyword (NCZ_DATA_TYPE_NONE));
}

static void
test_suffixes (void)
{
  static const struct { NczDataType type; const char *written; } expected[] = {
    { NCZ_DATA_TYPE_BYTE, "b" }, { NCZ_DATA_TYPE_UBYTE, "UB" }, { NCZ_DATA_TYPE_SHORT, "s" },
    { NCZ_DATA_TYPE_USHORT, "US" }, { NCZ_DATA_TYPE_INT, "" }, { NCZ_DATA_TYPE_UINT, "U" },
    { NCZ_DATA_TYPE_INT64, "LL" }, { NCZ_DATA_TYPE_UINT64, "ULL" }, { NCZ_DATA_TYPE_FLOAT, "f" },
    { NCZ_DATA_TYPE_DOUBLE, "" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const char *suffix = cdl_type_suffix (expected[i].type);
      g_assert_cmpstr (suffix, ==, expected[i].written);
      if (*suffix)
        g_assert_cmpint (cdl_type_from_suffix (suffix), ==, expected[i].type);
    }
  /* what the reader takes besides */
  g_assert_cmpint (cdl_type_from_suffix ("ub"), ==, NCZ_DATA_TYPE_UBYTE);
  g_assert_cmpint (cdl_type_from_suffix ("l"), ==, NCZ_DATA_TYPE_INT);
  g_assert_cmpint (cdl_type_from_suffix ("UL"), ==, NCZ_DATA_TYPE_UINT);
  g_assert_cmpint (cdl_type_from_suffix ("d"), ==, NCZ_DATA_TYPE_DOUBLE);
  g_assert_cmpint (cdl_type_from_suffix ("x"), ==, NCZ_DATA_TYPE_NONE);
  g_assert_cmpint (cdl_type_from_suffix (""), ==, NCZ_DATA_TYPE_NONE);
}

static void
test_special_reals (void)
{
  static const double values[] = { NAN, INFINITY, -INFINITY };
  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    for (int f = 0; f < 2; f++)
      {
        g_autoptr(GString) s = g_string_new (NULL);
        const char *word;
        double back = 0;
        NczDataType type = NCZ_DATA_TYPE_NONE;

        cdl_append_special_real (s, values[i], f ? "f" : "");
        /* the reader takes the sign as part of the number */
        word = s->str[0] == '-' ? s->str + 1 : s->str;
        g_assert_true (cdl_special_real_from_word (word, &back, &type));
        g_assert_cmpint (type, ==, f ? NCZ_DATA_TYPE_FLOAT : NCZ_DATA_TYPE_DOUBLE);
        if (isnan (values[i]))
          g_assert_true (isnan (back));
        else
          g_assert_cmpfloat (s->str[0] == '-' ? -back : back, ==, values[i]);
      }
  g_assert_false (cdl_special_real_from_word ("NAN", &(double) { 0 }, &(NczDataType) { 0 }));
}

static void
test_escapes (void)
{
  guint8 b = 0;

  g_assert_cmpint (cdl_decode_escape ("", 0, &b), ==, 0);
  g_assert_cmpint (cdl_decode_escape ("n", 1, &b), ==, 1);
  g_assert_cmpint (b, ==, '\n');
  g_assert_cmpint (cdl_decode_escape ("x41z", 4, &b), ==, 3);
  g_assert_cmpint (b, ==, 'A');
  g_assert_cmpint (cdl_decode_escape ("X4g", 3, &b), ==, 2);
  g_assert_cmpint (b, ==, 4);
  g_assert_cmpint (cdl_decode_escape ("x41", 2, &b), ==, 2);   /* only what is there */
  g_assert_cmpint (b, ==, 4);
  g_assert_cmpint (cdl_decode_escape ("xg", 2, &b), ==, -1);
  g_assert_cmpint (cdl_decode_escape ("x", 1, &b), ==, -1);
  g_assert_cmpint (cdl_decode_escape ("1011", 4, &b), ==, 3);
  g_assert_cmpint (b, ==, 0101);
  g_assert_cmpint (cdl_decode_escape ("08", 2, &b), ==, 1);
  g_assert_cmpint (b, ==, 0);
  g_assert_cmpint (cdl_decode_escape ("\"", 1, &b), ==, 1);
  g_assert_cmpint (b, ==, '"');
  g_assert_cmpint (cdl_decode_escape ("\\", 1, &b), ==, 1);
  g_assert_cmpint (b, ==, '\\');
}

static void
test_keywords (void)
{
  g_assert_true (cdl_is_keyword ("dimensions"));
  g_assert_true (cdl_is_keyword ("types"));
  g_assert_false (cdl_is_keyword ("netcdf"));
  g_assert_false (cdl_is_keyword ("Data"));
}

/* Names and text ncz-dump writes are read back unchanged by ncz-gen. */
static void
test_written_text_reads_back (void)
{
  static const char * const names[] = {
    "plain", "with space", "1digit", "a:b", "q\"uote", "semi;colon", "brace{}",
    "\xc3\xa9t\xc3\xa9", "dot.at@plus+minus-",
  };
  static const char text[] = "line\none \"quoted\" back\\slash \t tab \x01 ctrl caf\xc3\xa9";
  g_autoptr(GString) cdl = g_string_new ("netcdf t {\ndimensions:\n");
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///cdl-syntax-test#mode=nczarr,file", &error);
  g_autoptr(NczDataset) ds = NULL;
  NczAttribute *attr;
  NczGroup *root;
  gsize n = 0;
  const char *value;

  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_string_append (cdl, "  ");
      cdl_append_name (cdl, names[i]);
      g_string_append_printf (cdl, " = %u ;\n", (guint) i + 1);
    }
  g_string_append (cdl, "\n// global attributes:\n  :");
  cdl_append_name (cdl, "text attr");
  g_string_append (cdl, " = ");
  cdl_append_attribute_text (cdl, text, strlen (text));
  g_string_append (cdl, " ;\n}\n");

  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_cdl_generate_into (cdl->str, -1, "written.cdl", ds, 0, NULL, &error));
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      NczDimension *dim = ncz_group_get_dimension (root, names[i]);
      g_assert_nonnull (dim);
      g_assert_cmpuint (ncz_dimension_get_length (dim), ==, i + 1);
    }
  attr = ncz_group_get_attribute (root, "text attr");
  g_assert_nonnull (attr);
  value = ncz_attribute_peek_values (attr, &n);
  g_assert_cmpmem (value, n, text, strlen (text));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/tools-common/type-keywords", test_type_keywords);
  g_test_add_func ("/tools-common/suffixes", test_suffixes);
  g_test_add_func ("/tools-common/special-reals", test_special_reals);
  g_test_add_func ("/tools-common/escapes", test_escapes);
  g_test_add_func ("/tools-common/keywords", test_keywords);
  g_test_add_func ("/tools-common/written-text-reads-back", test_written_text_reads_back);
  return g_test_run ();
}
