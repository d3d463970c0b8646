/* test-nczarr-xarray.c: what netcdf-c versions, xarray and zarr-python
 * need from the metadata the backend writes: unlimited dimensions per
 * layout, fill values in pure Zarr, _ARRAY_DIMENSIONS in every group and
 * consolidated metadata (.zmetadata)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
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

  ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, (NczDimension *[]) { t, x }, &error);
  g_assert_no_error (error);
  ncz_group_add_variable (g, "w", NCZ_DATA_TYPE_SHORT, 2, (NczDimension *[]) { u, t }, &error);
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


/* ---- fill values in pure Zarr ---- */

/* What xarray writes: fill_value -9999 and "NaN" with no _FillValue
 * attribute are the _FillValue; null is no fill. */
static void
test_pure_fill_value_read (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczAttribute *a;
  gint16 i16[3] = { 1, -9999, 3 };

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "i/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<i2\", "
            "\"fill_value\": -9999, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  nczt_put (store, "i/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  nczt_put_bytes (store, "i/0", i16, sizeof i16);
  nczt_put (store, "f/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<f4\", "
            "\"fill_value\": \"NaN\", \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  nczt_put (store, "f/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  nczt_put (store, "n/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<i4\", "
            "\"fill_value\": null, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  a = ncz_variable_get_attribute (nczt_var (ds, "i"), "_FillValue");
  g_assert_nonnull (a);
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_SHORT);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, -9999);
  a = ncz_variable_get_attribute (nczt_var (ds, "f"), "_FillValue");
  g_assert_nonnull (a);
  g_assert_true (isnan (ncz_attribute_get_double (a, 0, NULL)));
  g_assert_null (ncz_variable_get_attribute (nczt_var (ds, "n"), "_FillValue"));
  g_assert_true (ncz_variable_get_no_fill (nczt_var (ds, "n")));
}

/* Pure Zarr arrays without _ARRAY_DIMENSIONS (what zarr-python writes
 * by default): "fill_value" fills unwritten chunks but is no _FillValue,
 * so real zeros stay data; a _FillValue in .zattrs still wins. */
static void
test_pure_fill_value_plain (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczAttribute *a;
  float f32[2] = { 0.f, 0.5f };
  float fout[4];
  gint32 i32[2] = { 0, 1 };
  gint32 iout[2];
  g_auto(GStrv) strs = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  /* two chunks, the second never written: it reads as fill_value 0 */
  nczt_put (store, "z/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<f4\", "
            "\"fill_value\": 0.0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  nczt_put_bytes (store, "z/0", f32, sizeof f32);
  /* fill_value 7 fills the unwritten chunk */
  nczt_put (store, "s/.zarray", "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<f4\", "
            "\"fill_value\": 7.0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  nczt_put_bytes (store, "s/0", f32, sizeof f32);
  /* an attribute _FillValue wins */
  nczt_put (store, "w/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": \"<i4\", "
            "\"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  nczt_put (store, "w/.zattrs", "{\"_FillValue\": 1}");
  nczt_put_bytes (store, "w/0", i32, sizeof i32);
  /* variable-length strings: a non-empty fill_value is no _FillValue either */
  nczt_put (store, "t/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [1], \"dtype\": \"|O\", "
            "\"fill_value\": \"none\", \"order\": \"C\", \"compressor\": null, "
            "\"filters\": [{\"id\": \"vlen-utf8\"}]}");
  nczt_put_bytes (store, "t/0", "\x01\x00\x00\x00\x02\x00\x00\x00" "ab", 10);
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);

  g_assert_null (ncz_variable_get_attribute (nczt_var (ds, "z"), "_FillValue"));
  nczt_read_all (nczt_var (ds, "z"), fout, sizeof fout);
  g_assert_cmpfloat (fout[0], ==, 0.f);
  g_assert_cmpfloat (fout[1], ==, 0.5f);
  g_assert_cmpfloat (fout[2], ==, 0.f);
  g_assert_cmpfloat (fout[3], ==, 0.f);

  g_assert_null (ncz_variable_get_attribute (nczt_var (ds, "s"), "_FillValue"));
  nczt_read_all (nczt_var (ds, "s"), fout, sizeof fout);
  g_assert_cmpfloat (fout[0], ==, 0.f);
  g_assert_cmpfloat (fout[2], ==, 7.f);
  g_assert_cmpfloat (fout[3], ==, 7.f);

  a = ncz_variable_get_attribute (nczt_var (ds, "w"), "_FillValue");
  g_assert_nonnull (a);
  g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, 1);
  nczt_read_all (nczt_var (ds, "w"), iout, sizeof iout);
  g_assert_cmpint (iout[0], ==, 0);
  g_assert_cmpint (iout[1], ==, 1);

  g_assert_null (ncz_variable_get_attribute (nczt_var (ds, "t"), "_FillValue"));
  strs = nczt_read_strings (nczt_var (ds, "t"));
  g_assert_cmpstr (strs[0], ==, "ab");
  g_assert_cmpstr (strs[1], ==, "none");
}

/* Writing pure Zarr: _FillValue only as fill_value, as xarray does;
 * NCZarr keeps both. */
static void
test_pure_fill_value_write (void)
{
  static const char *const fragments[] = { "mode=zarr,file", "mode=nczarr,file" };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
      NczVariable *v = ncz_group_add_variable (root, "i", NCZ_DATA_TYPE_SHORT, 1, &x, &error);
      gint16 fill = -9999;
      g_autoptr(GBytes) b = g_bytes_new (&fill, sizeof fill);
      g_autofree char *zarray = NULL;
      g_autofree char *zattrs = NULL;

      g_assert_true (ncz_variable_set_fill_value (v, b, &error));
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      zarray = nczt_get (store, "i/.zarray");
      zattrs = nczt_get (store, "i/.zattrs");
      g_assert_nonnull (strstr (zarray, "\"fill_value\": -9999,"));
      /* in pure Zarr too, for netcdf-c, which reads only the attribute */
      g_assert_nonnull (strstr (zattrs, "\"_FillValue\": -9999"));
      back = nczt_open_mem (store, fragments[f], NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      g_assert_cmpint (ncz_attribute_get_int64 (ncz_variable_get_attribute (nczt_var (back, "i"),
                                                                           "_FillValue"),
                                                0, NULL), ==, -9999);
    }
}

/* ---- _ARRAY_DIMENSIONS in every group ---- */

static void
test_array_dimensions_in_groups (void)
{
  static const char *const fragments[] = { "mode=zarr,file", "mode=nczarr,file",
                                           "mode=nczarr,file&layout=attributes",
                                           "mode=nczarr,noxarray,file" };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczDimension *t = ncz_group_add_dimension (root, "time", 2, TRUE, &error);
      NczGroup *g = ncz_group_add_group (root, "g", &error);
      NczGroup *h = ncz_group_add_group (g, "h", &error);
      NczDimension *m = ncz_group_add_dimension (g, "m", 3, FALSE, &error);
      g_autofree char *w = NULL;
      g_autofree char *z = NULL;

      ncz_group_add_variable (g, "w", NCZ_DATA_TYPE_INT, 2, (NczDimension *[]) { t, m }, &error);
      ncz_group_add_variable (h, "z", NCZ_DATA_TYPE_INT, 1, &m, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      w = nczt_get (store, "g/w/.zattrs");
      z = nczt_get (store, "g/h/z/.zattrs");
      if (strstr (fragments[f], "noxarray"))
        {
          g_assert_true (w == NULL || strstr (w, "_ARRAY_DIMENSIONS") == NULL);
          continue;
        }
      /* the plain names, a parent group's dimension included */
      g_assert_nonnull (strstr (w, "\"_ARRAY_DIMENSIONS\": [\"time\",\"m\"]"));
      g_assert_nonnull (strstr (z, "\"_ARRAY_DIMENSIONS\": [\"m\"]"));
    }
}

/* ---- consolidated metadata ---- */

static void
test_consolidated_write (void)
{
  static const struct { const char *fragment; gboolean expect; } cases[] = {
    { "mode=zarr,file", TRUE },
    { "mode=zarr,file&consolidated=false", FALSE },
    { "mode=nczarr,file", FALSE },
    { "mode=nczarr,file&consolidated=true", TRUE },
    { "mode=nczarr,file&layout=attributes&consolidated=true", TRUE },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, cases[c].fragment);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
      NczGroup *g = ncz_group_add_group (root, "g", &error);
      g_autofree char *zm = NULL;
      g_autofree char *zarray = NULL;

      ncz_group_add_variable (g, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      zm = nczt_get (store, ".zmetadata");
      if (!cases[c].expect)
        {
          g_assert_null (zm);
          continue;
        }
      g_assert_nonnull (zm);
      g_assert_true (g_str_has_suffix (zm, ", \"zarr_consolidated_format\": 1}"));
      /* the same objects as the store holds */
      zarray = nczt_get (store, "g/v/.zarray");
      {
        g_autofree char *entry = g_strdup_printf ("\"g/v/.zarray\": %s", zarray);
        g_assert_nonnull (strstr (zm, entry));
      }
      g_assert_nonnull (strstr (zm, "\".zgroup\": "));
      g_assert_nonnull (strstr (zm, "\"g/.zgroup\": "));
      back = nczt_open_mem (store, cases[c].fragment, NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      g_assert_nonnull (nczt_var (back, "g/v"));
    }
}

/* Reading takes the objects from .zmetadata: per-object metadata that
 * it replaces is not read. */
static void
test_consolidated_read_used (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) plain = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<i4\", "
            "\"fill_value\": null, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  /* the per-object .zattrs says "old"; .zmetadata (consolidated later)
   * says "new" */
  nczt_put (store, "v/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"], \"title\": \"old\"}");
  nczt_put (store, ".zmetadata",
            "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, "
            "\"v/.zarray\": {\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<i4\", "
            "\"fill_value\": null, \"order\": \"C\", \"compressor\": null, \"filters\": null}, "
            "\"v/.zattrs\": {\"_ARRAY_DIMENSIONS\": [\"y\"], \"title\": \"new\"}}, "
            "\"zarr_consolidated_format\": 1}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nczt_dim (ds, "y"));
  {
    g_autofree char *t = nczt_attr_text (ncz_variable_get_attribute (nczt_var (ds, "v"), "title"));
    g_assert_cmpstr (t, ==, "new");
  }
  /* a .zarray rewritten after the consolidation (zarr-python's append)
   * is read from the store */
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [5], \"chunks\": [3], \"dtype\": \"<i4\", "
            "\"fill_value\": null, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  {
    g_autoptr(NczDataset) grown = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (grown, "y")), ==, 5);
  }
  /* consolidated=false: the objects themselves */
  plain = nczt_open_mem (store, "mode=zarr,file&consolidated=false", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nczt_dim (plain, "x"));
}

/* An array written after the consolidation makes .zmetadata stale: the
 * per-object metadata wins. */
static void
test_consolidated_stale (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "g/.zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "g/added/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], "
            "\"dtype\": \"<i4\", \"fill_value\": null, \"order\": \"C\", \"compressor\": null, "
            "\"filters\": null}");
  nczt_put (store, ".zattrs", "{\"title\": \"now\"}");
  nczt_put (store, ".zmetadata",
            "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \".zattrs\": {\"title\": \"then\"}, "
            "\"g/.zgroup\": {\"zarr_format\": 2}}, \"zarr_consolidated_format\": 1}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nczt_var (ds, "g/added"));
  {
    g_autofree char *t = nczt_attr_text (ncz_group_get_attribute (ncz_dataset_get_root_group (ds),
                                                                   "title"));
    g_assert_cmpstr (t, ==, "now");
  }
}

/* A malformed .zmetadata is ignored: the objects are read one by one. */
static void
test_consolidated_malformed (void)
{
  static const char *const bad[] = {
    "", "[]", "{", "null", "{\"metadata\": {}}",
    "{\"metadata\": [], \"zarr_consolidated_format\": 1}",
    "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}}, \"zarr_consolidated_format\": 2}",
    "{\"metadata\": {\".zgroup\": 3}, \"zarr_consolidated_format\": 1}",
    "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"v/.zarray\": \"x\"}, \"zarr_consolidated_format\": 1}",
    "{\"metadata\": {\"v/.zarray\": {}}, \"zarr_consolidated_format\": 1}",
    ("{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"v/.zarray\": {\"shape\": \"x\"}}, "
     "\"zarr_consolidated_format\": 1}"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(NczDataset) ds = NULL;

      nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
      nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], "
                "\"dtype\": \"<i4\", \"fill_value\": null, \"order\": \"C\", \"compressor\": null, "
                "\"filters\": null}");
      nczt_put (store, ".zmetadata", bad[i]);
      ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
      /* the last one is well formed, with a bad .zarray in it: .zarray
       * objects are read from the store */
      g_assert_no_error (error);
      g_assert_nonnull (nczt_var (ds, "v"));
    }
}

static void
test_consolidated_bad_url (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  ds = nczt_open_mem (store, "mode=zarr,file&consolidated=maybe", NCZ_OPEN_READ, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL);
  g_assert_nonnull (strstr (error->message, "'maybe'"));
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
  g_test_add_func ("/nczarr-xarray/fill/pure-read", test_pure_fill_value_read);
  g_test_add_func ("/nczarr-xarray/fill/pure-plain", test_pure_fill_value_plain);
  g_test_add_func ("/nczarr-xarray/fill/pure-write", test_pure_fill_value_write);
  g_test_add_func ("/nczarr-xarray/groups/array-dimensions", test_array_dimensions_in_groups);
  g_test_add_func ("/nczarr-xarray/consolidated/write", test_consolidated_write);
  g_test_add_func ("/nczarr-xarray/consolidated/read-used", test_consolidated_read_used);
  g_test_add_func ("/nczarr-xarray/consolidated/stale", test_consolidated_stale);
  g_test_add_func ("/nczarr-xarray/consolidated/malformed", test_consolidated_malformed);
  g_test_add_func ("/nczarr-xarray/consolidated/bad-url", test_consolidated_bad_url);
  return g_test_run ();
}
