/* test-nczarr-xarray.c: what netcdf-c versions, xarray and zarr-python
 * need from the metadata the backend writes: unlimited dimensions per
 * layout, fill values in pure Zarr, _ARRAY_DIMENSIONS in every group and
 * consolidated metadata (.zmetadata)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "nczarr-test-util.h"

/* ---- unlimited dimensions per layout ---- */

static NczDataset *
make_unlimited (NczMemoryStore **store, const char *fragment)
{
  NczDataset *ds = nczt_create_mem (store, fragment);
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *t = ncz_group_add_dimension (root, "t", 2, TRUE, &error);
  NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  NczGroup *g = ncz_group_add_group (root, "g", &error);
  NczDimension *u = ncz_group_add_dimension (g, "u", 4, TRUE, &error);

  ncz_group_add_variable (root, "v", NCZ_TYPE_INT, 2, (NczDimension *[]) { t, x }, &error);
  g_assert_no_error (error);
  ncz_group_add_variable (g, "w", NCZ_TYPE_SHORT, 2, (NczDimension *[]) { u, t }, &error);
  g_assert_no_error (error);
  return ds;
}

typedef struct {
  const char *fragment;
  const char *key;       /* where the group information is */
  const char *root_info; /* expected in the root group information */
  const char *g_info;    /* expected in group g's */
} UnlimitedCase;

static const UnlimitedCase unlimited_cases[] = {
  /* netcdf-c 4.9.1-4.9.2 and 4.9.0 read plain lengths only (the object
   * form makes 4.9.2 and 4.9.0 crash): Ncz lists the unlimited ones */
  { "mode=nczarr,file", ".zgroup",
    "\"dims\": {\"t\": 2, \"x\": 3}, \"vars\": [\"v\"], \"groups\": [\"g\"], \"ncz_unlimited\": [\"t\"]",
    "\"dims\": {\"u\": 4}, \"vars\": [\"w\"], \"groups\": [], \"ncz_unlimited\": [\"u\"]" },
  { "mode=nczarr,file&layout=keys-upper", ".zgroup",
    "\"_NCZARR_GROUP\": {\"dims\": {\"t\": 2, \"x\": 3}, \"vars\": [\"v\"], \"groups\": [\"g\"], \"ncz_unlimited\": [\"t\"]}",
    "\"dims\": {\"u\": 4}, \"vars\": [\"w\"], \"groups\": [], \"ncz_unlimited\": [\"u\"]" },
  /* netcdf-c 4.9.3+ has the object form */
  { "mode=nczarr,file&layout=attributes", ".zattrs",
    "\"dimensions\": {\"t\": {\"size\": 2, \"unlimited\": 1}, \"x\": 3}, \"arrays\": [\"v\"], \"groups\": [\"g\"]}",
    "\"dimensions\": {\"u\": {\"size\": 4, \"unlimited\": 1}}, \"arrays\": [\"w\"], \"groups\": []}" },
};

static void
test_unlimited_layouts (gconstpointer data)
{
  const UnlimitedCase *c = data;
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = make_unlimited (&store, c->fragment);
  g_autoptr(NczDataset) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root_text = NULL;
  g_autofree char *g_key = g_strconcat ("g/", c->key, NULL);
  g_autofree char *g_text = NULL;

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  root_text = nczt_get (store, c->key);
  g_text = nczt_get (store, g_key);
  g_assert_nonnull (strstr (root_text, c->root_info));
  g_assert_nonnull (strstr (g_text, c->g_info));
  if (strstr (c->fragment, "attributes") == NULL)
    g_assert_null (strstr (root_text, "\"unlimited\""));

  back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dimension_is_unlimited (nczt_dim (back, "t")));
  g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (back, "t")), ==, 2);
  g_assert_false (ncz_dimension_is_unlimited (nczt_dim (back, "x")));
  g_assert_true (ncz_dimension_is_unlimited (nczt_dim (back, "g/u")));
  g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (back, "g/u")), ==, 4);
}

/* An Ncz list naming something that is not a dimension of the group, or
 * that is not a list, is refused with the key and the list named. */
static void
test_unlimited_list_bad (void)
{
  static const char *const infos[] = {
    "\"ncz_unlimited\": [\"nope\"]",
    "\"ncz_unlimited\": [3]",
    "\"ncz_unlimited\": \"t\"",
  };

  for (guint i = 0; i < G_N_ELEMENTS (infos); i++)
    {
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;
      g_autofree char *zgroup = g_strdup_printf (
        "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
        "\"_nczarr_group\": {\"dims\": {\"t\": 2}, \"vars\": [], \"groups\": [], %s}}", infos[i]);

      nczt_put (store, ".zgroup", zgroup);
      ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
      g_assert_null (ds);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, ".zgroup"));
      g_assert_nonnull (strstr (error->message, "ncz_unlimited"));
    }
}

/* What netcdf-c 4.9.2 writes (no list) keeps every dimension fixed. */
static void
test_unlimited_list_absent (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  nczt_put (store, ".zgroup",
            "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
            "\"_nczarr_group\": {\"dims\": {\"t\": 2}, \"vars\": [], \"groups\": []}}");
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_dimension_is_unlimited (nczt_dim (ds, "t")));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  nczt_init ();

  for (guint i = 0; i < G_N_ELEMENTS (unlimited_cases); i++)
    {
      const char *layout = strstr (unlimited_cases[i].fragment, "layout=");
      g_autofree char *path = g_strdup_printf ("/nczarr-xarray/unlimited/%s",
                                               layout ? layout + 7 : "keys");
      g_test_add_data_func (path, &unlimited_cases[i], test_unlimited_layouts);
    }
  g_test_add_func ("/nczarr-xarray/unlimited/bad-list", test_unlimited_list_bad);
  g_test_add_func ("/nczarr-xarray/unlimited/no-list", test_unlimited_list_absent);
  return g_test_run ();
}
