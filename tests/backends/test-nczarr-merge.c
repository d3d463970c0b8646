/* test-nczarr-merge.c: one writer's metadata changes applied on top of
 * what other writers stored (nczarr-merge.c)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "nczarr-private.h"

static char *
merge (const char *key, const char *before, const char *after, const char *stored,
       GError **error)
{
  g_autoptr(NczJson) b = before ? ncz_json_parse (before, -1, NULL) : NULL;
  g_autoptr(NczJson) a = ncz_json_parse (after, -1, NULL);
  g_autoptr(NczJson) s = stored ? ncz_json_parse (stored, -1, NULL) : NULL;
  g_autoptr(NczJson) m = nczarr_merge_metadata (key, b, a, s, error);

  return m != NULL ? ncz_json_to_string (m, FALSE) : NULL;
}

static void
check (const char *key, const char *before, const char *after, const char *stored,
       const char *expect)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *got = merge (key, before, after, stored, &error);
  g_autoptr(NczJson) e = ncz_json_parse (expect, -1, NULL);
  g_autoptr(NczJson) g = NULL;

  g_assert_no_error (error);
  g = ncz_json_parse (got, -1, NULL);
  if (!ncz_json_equal (e, g))
    g_error ("%s: expected %s, got %s", key, expect, got);
}

static void
test_attributes (void)
{
  /* added by another writer: kept; added by this one: set */
  check (".zattrs", "{\"a\":1}", "{\"a\":1,\"mine\":2}", "{\"a\":1,\"theirs\":3}",
         "{\"a\":1,\"theirs\":3,\"mine\":2}");
  /* changed by both: this (later) writer wins; unchanged here: theirs */
  check (".zattrs", "{\"a\":1,\"b\":1}", "{\"a\":5,\"b\":1}", "{\"a\":7,\"b\":9}",
         "{\"a\":5,\"b\":9}");
  /* deleted here: gone */
  check (".zattrs", "{\"a\":1,\"b\":2}", "{\"a\":1}", "{\"a\":1,\"b\":2,\"c\":3}",
         "{\"a\":1,\"c\":3}");
  /* the first attributes of both: a .zattrs neither had */
  check (".zattrs", NULL, "{\"mine\":1}", "{\"theirs\":2}", "{\"theirs\":2,\"mine\":1}");
  /* attribute types (NCZarr) merge as attributes do */
  check ("g/.zattrs", "{\"_nczarr_attr\":{\"types\":{}}}",
         "{\"m\":1,\"_nczarr_attr\":{\"types\":{\"m\":\"<i4\"}}}",
         "{\"t\":\"x\",\"_nczarr_attr\":{\"types\":{\"t\":\">S1\"}}}",
         "{\"t\":\"x\",\"_nczarr_attr\":{\"types\":{\"t\":\">S1\",\"m\":\"<i4\"}},\"m\":1}");
  /* an attribute named shape is an attribute, not a length */
  check (".zattrs", "{\"shape\":[9]}", "{\"shape\":[1]}", "{\"shape\":[9]}", "{\"shape\":[1]}");
}

static void
test_lengths (void)
{
  /* shapes only grow, element by element */
  check ("v/.zarray", "{\"shape\":[0,4],\"chunks\":[1,4]}", "{\"shape\":[8,4],\"chunks\":[1,4]}",
         "{\"shape\":[40,4],\"chunks\":[1,4]}", "{\"shape\":[40,4],\"chunks\":[1,4]}");
  check ("v/.zarray", "{\"shape\":[0,4]}", "{\"shape\":[56,4]}", "{\"shape\":[40,4]}",
         "{\"shape\":[56,4]}");
  /* not changed here: the stored length stays */
  check ("v/.zarray", "{\"shape\":[8],\"fill_value\":0}", "{\"shape\":[8],\"fill_value\":1}",
         "{\"shape\":[30],\"fill_value\":0}", "{\"shape\":[30],\"fill_value\":1}");
  /* NCZarr group dimensions: plain lengths and {size, unlimited} */
  check (".zgroup", "{\"_nczarr_group\":{\"dims\":{\"t\":0,\"x\":4},\"vars\":[\"v\"],\"groups\":[]}}",
         "{\"_nczarr_group\":{\"dims\":{\"t\":8,\"x\":4},\"vars\":[\"v\"],\"groups\":[]}}",
         "{\"_nczarr_group\":{\"dims\":{\"t\":40,\"x\":4},\"vars\":[\"v\"],\"groups\":[]}}",
         "{\"_nczarr_group\":{\"dims\":{\"t\":40,\"x\":4},\"vars\":[\"v\"],\"groups\":[]}}");
  check (".zattrs",
         "{\"_nczarr_group\":{\"dimensions\":{\"t\":{\"size\":0,\"unlimited\":1}},\"arrays\":[]}}",
         "{\"_nczarr_group\":{\"dimensions\":{\"t\":{\"size\":64,\"unlimited\":1}},\"arrays\":[]}}",
         "{\"_nczarr_group\":{\"dimensions\":{\"t\":{\"size\":16,\"unlimited\":1}},\"arrays\":[]}}",
         "{\"_nczarr_group\":{\"dimensions\":{\"t\":{\"size\":64,\"unlimited\":1}},\"arrays\":[]}}");
  /* consolidated metadata: the same rules inside */
  check (".zmetadata",
         "{\"metadata\":{\"v/.zarray\":{\"shape\":[0]}},\"zarr_consolidated_format\":1}",
         "{\"metadata\":{\"v/.zarray\":{\"shape\":[8]}},\"zarr_consolidated_format\":1}",
         "{\"metadata\":{\"v/.zarray\":{\"shape\":[16]},\"w/.zarray\":{\"shape\":[2]}},"
         "\"zarr_consolidated_format\":1}",
         "{\"metadata\":{\"v/.zarray\":{\"shape\":[16]},\"w/.zarray\":{\"shape\":[2]}},"
         "\"zarr_consolidated_format\":1}");
}

static void
test_names (void)
{
  /* variables and groups both writers defined: the union */
  check (".zgroup", "{\"_nczarr_group\":{\"vars\":[\"a\"],\"groups\":[]}}",
         "{\"_nczarr_group\":{\"vars\":[\"a\",\"mine\"],\"groups\":[\"g1\"]}}",
         "{\"_nczarr_group\":{\"vars\":[\"a\",\"theirs\"],\"groups\":[\"g2\"]}}",
         "{\"_nczarr_group\":{\"vars\":[\"a\",\"theirs\",\"mine\"],\"groups\":[\"g2\",\"g1\"]}}");
}

static void
test_conflicts (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *same = NULL;
  g_autofree char *other = NULL;

  /* one array defined by two writers at once: the same definition is
   * fine (the longer shape wins), another is a conflict */
  same = merge ("v/.zarray", NULL, "{\"shape\":[4],\"dtype\":\"<f4\"}",
                "{\"shape\":[6],\"dtype\":\"<f4\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (same, ==, "{\"shape\": [6], \"dtype\": \"<f4\"}");
  other = merge ("v/.zarray", NULL, "{\"shape\":[4],\"dtype\":\"<f4\"}",
                 "{\"shape\":[4],\"dtype\":\"<i2\"}", &error);
  g_assert_null (other);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_assert_nonnull (strstr (error->message, "v/.zarray"));
  g_clear_error (&error);
  /* nothing stored: this writer's object as it is */
  check ("v/.zarray", NULL, "{\"shape\":[4]}", NULL, "{\"shape\":[4]}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nczarr-merge/attributes", test_attributes);
  g_test_add_func ("/nczarr-merge/lengths", test_lengths);
  g_test_add_func ("/nczarr-merge/names", test_names);
  g_test_add_func ("/nczarr-merge/conflicts", test_conflicts);
  return g_test_run ();
}
