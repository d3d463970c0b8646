/* test-nczarr.c: the NCZarr backend writing and reading in memory stores
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nczarr-test-util.h"
#include "ncz-nczarr-format.h"
#include "nczarr-private.h"

#define PROPS "\"_NCProperties\": \"version=2,ncz=" NCZ_VERSION ",nczarr=2.0.0\""

/* The small dataset every layout test writes: a global attribute, two
 * root dimensions, a float variable with a fill value, a scalar, and a
 * subgroup with its own dimension. */
static void
build_small (NczDataset *ds)
{
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *time, *lat, *x;
  NczVariable *tas, *scalarv, *d;
  NczGroup *sub;
  g_autoptr(NczAttribute) title = ncz_attribute_new_text ("title", "test", -1);
  g_autoptr(NczAttribute) units = ncz_attribute_new_text ("units", "K", -1);
  float fill = -999.0f;
  g_autoptr(GBytes) fillb = g_bytes_new (&fill, sizeof fill);
  float tasv[12];
  gint32 s = 7;
  double dv[2] = { 1.5, 2.5 };
  guint64 c1 = 1, start[2] = { 0, 0 }, count[2] = { 4, 3 };

  g_assert_true (ncz_group_set_attribute (root, title, &error));
  time = ncz_group_add_dimension (root, "time", 4, FALSE, &error);
  lat = ncz_group_add_dimension (root, "lat", 3, FALSE, &error);
  g_assert_no_error (error);
  tas = ncz_group_add_variable (root, "tas", NCZ_DATA_TYPE_FLOAT, 2,
                                (NczDimension *[]) { time, lat }, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_attribute (tas, units, &error));
  g_assert_true (ncz_variable_set_fill_value (tas, fillb, &error));
  scalarv = ncz_group_add_variable (root, "scalarv", NCZ_DATA_TYPE_INT, 0, NULL, &error);
  g_assert_no_error (error);
  sub = ncz_group_add_group (root, "sub", &error);
  x = ncz_group_add_dimension (sub, "x", 2, FALSE, &error);
  d = ncz_group_add_variable (sub, "d", NCZ_DATA_TYPE_DOUBLE, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (d, &c1, 1, &error));

  for (int i = 0; i < 12; i++)
    tasv[i] = i + 1;
  g_assert_true (ncz_variable_write (tas, start, 2, count, 2, NULL, 0, tasv, sizeof tasv, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (scalarv, NULL, 0, NULL, 0, NULL, 0, &s, sizeof s, NULL, &error));
  g_assert_no_error (error);
  count[0] = 2;
  g_assert_true (ncz_variable_write (d, start, 1, count, 1, NULL, 0, dv, sizeof dv, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_sync (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
assert_object (NczMemoryStore *store, const char *key, const char *expected)
{
  g_autofree char *text = nczt_get (store, key);
  if (expected == NULL)
    {
      if (text != NULL)
        g_error ("%s should not exist, holds %s", key, text);
      return;
    }
  if (text == NULL)
    g_error ("%s does not exist", key);
  g_assert_cmpstr (text, ==, expected);
}

/* Reads the small dataset back and checks the model and the data. */
static void
check_small (NczMemoryStore *store, const char *fragment, gboolean pure)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = nczt_open_mem (store, fragment, NCZ_OPEN_READ, &error);
  NczVariable *tas, *scalarv, *d;
  float tasv[12];
  gint32 s = 0;
  double dv[2];
  g_autofree char *title = NULL;
  g_autofree char *units = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  title = nczt_attr_text (ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "title"));
  g_assert_cmpstr (title, ==, "test");
  g_assert_null (ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "_NCProperties"));
  g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (ds, "/time")), ==, 4);
  g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (ds, "/lat")), ==, 3);

  tas = nczt_var (ds, "/tas");
  g_assert_cmpint (ncz_variable_get_value_type (tas), ==, NCZ_DATA_TYPE_FLOAT);
  g_assert_true (ncz_variable_get_dimension (tas, 0) == nczt_dim (ds, "/time"));
  units = nczt_attr_text (ncz_variable_get_attribute (tas, "units"));
  g_assert_cmpstr (units, ==, "K");
  g_assert_true (ncz_variable_has_user_fill_value (tas));
  g_assert_null (ncz_variable_get_attribute (tas, "_ARRAY_DIMENSIONS"));
  nczt_read_all (tas, tasv, sizeof tasv);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (tasv[i], ==, i + 1);

  scalarv = nczt_var (ds, "/scalarv");
  g_assert_cmpuint (ncz_variable_get_n_dimensions (scalarv), ==, 0);
  nczt_read_all (scalarv, &s, sizeof s);
  g_assert_cmpint (s, ==, 7);

  d = nczt_var (ds, "/sub/d");
  if (pure) /* named by _ARRAY_DIMENSIONS, written in every group */
    g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (d, 0)), ==, "x");
  else
    g_assert_true (ncz_variable_get_dimension (d, 0) == nczt_dim (ds, "/sub/x"));
  g_assert_cmpuint (ncz_variable_get_chunk_sizes (d, NULL)[0], ==, 1);
  nczt_read_all (d, dv, sizeof dv);
  g_assert_cmpfloat (dv[0], ==, 1.5);
  g_assert_cmpfloat (dv[1], ==, 2.5);
}

static void
test_layout_keys (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file");
  g_autoptr(GError) error = NULL;

  build_small (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  assert_object (store, ".zgroup",
    "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
    "\"_nczarr_group\": {\"dims\": {\"time\": 4, \"lat\": 3}, \"vars\": [\"tas\",\"scalarv\"], "
    "\"groups\": [\"sub\"]}}");
  assert_object (store, ".zattrs",
    "{\"title\": \"test\", " PROPS ", \"_nczarr_attr\": {\"types\": {\"title\": \">S1\", "
    "\"_NCProperties\": \">S1\"}}}");
  assert_object (store, "tas/.zarray",
    "{\"zarr_format\": 2, \"shape\": [4,3], \"dtype\": \"<f4\", \"chunks\": [4,3], "
    "\"fill_value\": -999.0, \"order\": \"C\", \"compressor\": null, \"filters\": null, "
    "\"_nczarr_array\": {\"dimrefs\": [\"/time\",\"/lat\"], \"storage\": \"chunked\"}}");
  assert_object (store, "tas/.zattrs",
    "{\"units\": \"K\", \"_FillValue\": -999.0, \"_ARRAY_DIMENSIONS\": [\"time\",\"lat\"], "
    "\"_nczarr_attr\": {\"types\": {\"units\": \">S1\", \"_FillValue\": \"<f4\"}}}");
  assert_object (store, "scalarv/.zarray",
    "{\"zarr_format\": 2, \"shape\": [1], \"dtype\": \"<i4\", \"chunks\": [1], "
    "\"fill_value\": -2147483647, \"order\": \"C\", \"compressor\": null, \"filters\": null, "
    "\"_nczarr_array\": {\"dimrefs\": [], \"storage\": \"scalar\"}}");
  assert_object (store, "scalarv/.zattrs",
    "{\"_ARRAY_DIMENSIONS\": [\"_scalar_\"], \"_nczarr_attr\": {\"types\": {}}}");
  assert_object (store, "sub/.zgroup",
    "{\"zarr_format\": 2, \"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"d\"], "
    "\"groups\": []}}");
  assert_object (store, "sub/.zattrs", NULL);
  assert_object (store, "sub/d/.zarray",
    "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<f8\", \"chunks\": [1], "
    "\"fill_value\": 9.969209968386869e+36, \"order\": \"C\", \"compressor\": null, "
    "\"filters\": null, \"_nczarr_array\": {\"dimrefs\": [\"/sub/x\"], \"storage\": \"chunked\"}}");
  /* _ARRAY_DIMENSIONS in every group, so that xarray opens sub */
  assert_object (store, "sub/d/.zattrs",
    "{\"_ARRAY_DIMENSIONS\": [\"x\"], \"_nczarr_attr\": {\"types\": {}}}");
  {
    g_autoptr(GBytes) c = ncz_store_read (NCZ_STORE (store), "tas/0.0", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (c), ==, 48);
    c = ncz_store_read (NCZ_STORE (store), "scalarv/0", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (c), ==, 4);
    c = ncz_store_read (NCZ_STORE (store), "sub/d/1", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (c), ==, 8);
  }
  check_small (store, "mode=nczarr,file", FALSE);
}

static void
test_layout_attributes (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file&layout=attributes");
  g_autoptr(GError) error = NULL;

  build_small (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  assert_object (store, ".zgroup", "{\"zarr_format\": 2}");
  assert_object (store, ".zattrs",
    "{\"title\": \"test\", " PROPS ", \"_nczarr_group\": {\"dimensions\": {\"time\": 4, "
    "\"lat\": 3}, \"arrays\": [\"tas\",\"scalarv\"], \"groups\": [\"sub\"]}, "
    "\"_nczarr_superblock\": {\"version\": \"2.0.0\"}, \"_nczarr_attr\": {\"types\": "
    "{\"title\": \">S1\", \"_NCProperties\": \">S1\", \"_nczarr_group\": \"|J0\", "
    "\"_nczarr_superblock\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
  assert_object (store, "tas/.zarray",
    "{\"zarr_format\": 2, \"shape\": [4,3], \"dtype\": \"<f4\", \"chunks\": [4,3], "
    "\"fill_value\": -999.0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  assert_object (store, "tas/.zattrs",
    "{\"units\": \"K\", \"_FillValue\": -999.0, \"_ARRAY_DIMENSIONS\": [\"time\",\"lat\"], "
    "\"_nczarr_array\": {\"dimension_references\": [\"/time\",\"/lat\"], \"storage\": \"chunked\"}, "
    "\"_nczarr_attr\": {\"types\": {\"units\": \">S1\", \"_FillValue\": \"<f4\", "
    "\"_nczarr_array\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
  assert_object (store, "scalarv/.zattrs",
    "{\"_ARRAY_DIMENSIONS\": [\"_scalar_\"], \"_nczarr_array\": {\"dimension_references\": [], "
    "\"scalar\": 1, \"storage\": \"chunked\"}, \"_nczarr_attr\": {\"types\": "
    "{\"_nczarr_array\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
  assert_object (store, "sub/.zgroup", "{\"zarr_format\": 2}");
  assert_object (store, "sub/.zattrs",
    "{\"_nczarr_group\": {\"dimensions\": {\"x\": 2}, \"arrays\": [\"d\"], \"groups\": []}, "
    "\"_nczarr_attr\": {\"types\": {\"_nczarr_group\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
  assert_object (store, "sub/d/.zattrs",
    "{\"_ARRAY_DIMENSIONS\": [\"x\"], "
    "\"_nczarr_array\": {\"dimension_references\": [\"/sub/x\"], \"storage\": \"chunked\"}, "
    "\"_nczarr_attr\": {\"types\": {\"_nczarr_array\": \"|J0\", \"_nczarr_attr\": \"|J0\"}}}");
  check_small (store, "mode=nczarr,file", FALSE);
  /* the layout is detected when reading */
  {
    g_autoptr(NczDataset) again = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ncz_nczarr_format_get_layout (NCZ_NCZARR_FORMAT (ncz_dataset_get_format (again))),
                     ==, "attributes");
  }
}

/* The layout netcdf-c 4.9.0 reads: upper-case keys, "<U1" chars. */
static void
test_layout_keys_upper (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file&layout=keys-upper");
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  NczVariable *c = ncz_group_add_variable (root, "c", NCZ_DATA_TYPE_CHAR, 1, &x, &error);
  g_autoptr(NczAttribute) a = ncz_attribute_new_text ("units", "m", -1);
  guint64 start = 0, count = 2;

  g_assert_true (ncz_variable_set_attribute (c, a, &error));
  g_assert_true (ncz_variable_write (c, &start, 1, &count, 1, NULL, 0, "ab", 2, NULL, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  assert_object (store, ".zgroup",
    "{\"zarr_format\": 2, \"_NCZARR_SUPERBLOCK\": {\"version\": \"2.0.0\"}, "
    "\"_NCZARR_GROUP\": {\"dims\": {\"x\": 2}, \"vars\": [\"c\"], \"groups\": []}}");
  assert_object (store, ".zattrs",
    "{" PROPS ", \"_NCZARR_ATTR\": {\"types\": {\"_NCProperties\": \"<U1\"}}}");
  assert_object (store, "c/.zarray",
    "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<U1\", \"chunks\": [2], "
    "\"fill_value\": \"\", \"order\": \"C\", \"compressor\": null, \"filters\": null, "
    "\"_NCZARR_ARRAY\": {\"dimrefs\": [\"/x\"], \"storage\": \"chunked\"}}");
  assert_object (store, "c/.zattrs",
    "{\"units\": \"m\", \"_ARRAY_DIMENSIONS\": [\"x\"], \"_NCZARR_ATTR\": {\"types\": "
    "{\"units\": \"<U1\"}}}");
  {
    g_autoptr(NczDataset) back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
    char got[2];
    g_assert_no_error (error);
    g_assert_cmpint (ncz_variable_get_value_type (nczt_var (back, "c")), ==, NCZ_DATA_TYPE_CHAR);
    nczt_read_all (nczt_var (back, "c"), got, 2);
    g_assert_cmpmem (got, 2, "ab", 2);
  }
}

static void
test_layout_pure (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=zarr,file");
  g_autoptr(GError) error = NULL;

  build_small (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  assert_object (store, ".zgroup", "{\"zarr_format\": 2}");
  assert_object (store, ".zattrs", "{\"title\": \"test\", " PROPS "}");
  assert_object (store, "tas/.zarray",
    "{\"zarr_format\": 2, \"shape\": [4,3], \"dtype\": \"<f4\", \"chunks\": [4,3], "
    "\"fill_value\": -999.0, \"order\": \"C\", \"compressor\": null, \"filters\": null}");
  /* pure Zarr: the fill value is "fill_value" (xarray) and _FillValue (netcdf-c) */
  assert_object (store, "tas/.zattrs",
    "{\"units\": \"K\", \"_FillValue\": -999.0, \"_ARRAY_DIMENSIONS\": [\"time\",\"lat\"]}");
  assert_object (store, "scalarv/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"_scalar_\"]}");
  assert_object (store, "sub/.zgroup", "{\"zarr_format\": 2}");
  assert_object (store, "sub/.zattrs", NULL);
  assert_object (store, "sub/d/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  check_small (store, "mode=zarr,file", TRUE);
  /* without a superblock, mode=nczarr reads it as plain Zarr too */
  check_small (store, "mode=nczarr,file", TRUE);
}

static void
test_noxarray (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=zarr,noxarray,file");
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) back = NULL;

  build_small (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  assert_object (store, "tas/.zattrs", "{\"units\": \"K\", \"_FillValue\": -999.0}");
  assert_object (store, "scalarv/.zattrs", NULL);
  back = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (nczt_var (back, "/tas"), 0)),
                   ==, "_Anonymous_Dim_4");
  /* a scalar without the XArray marker is a 1-element array in plain Zarr */
  g_assert_cmpuint (ncz_variable_get_n_dimensions (nczt_var (back, "/scalarv")), ==, 1);
}

static gboolean
is_ascii (const char *text)
{
  for (const char *p = text; *p; p++)
    if ((guchar) *p >= 0x80)
      return FALSE;
  return TRUE;
}

/* Names and texts outside ASCII: pure Zarr escapes them in its metadata
 * (zarr-python before 2.14 reads ASCII only), NCZarr writes them as UTF-8
 * (netcdf-c does not decode \u escapes), `json=` chooses; both read back
 * the same. */
static void
test_json_text (void)
{
  static const struct {
    const char *fragment;
    gboolean ascii;
    gboolean pure;
  } cases[] = {
    { "mode=zarr,file", TRUE, TRUE },
    { "mode=zarr,file&json=utf-8", FALSE, TRUE },
    { "mode=nczarr,file", FALSE, FALSE },
    { "mode=nczarr,file&json=ascii", TRUE, FALSE },
    { "mode=nczarr,file&layout=attributes&consolidated=true", FALSE, FALSE },
    { "mode=nczarr,file&layout=attributes&json=ascii&consolidated=true", TRUE, FALSE },
    { "mode=nczarr,file&layout=keys-upper&json=ASCII", TRUE, FALSE },
  };
  /* Latin, Greek, Cyrillic, CJK and an emoji */
  const char *gname = "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9";
  const char *vname = "temp\xc3\xa9rature";
  const char *dname = "\xce\x94\xce\xb8";
  const char *aname = "\xcf\x88" "attr";
  const char *text = "\xd0\x9f\xd1\x80\xd0\xb8 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80";
  const char *escaped = "\\u041f\\u0440\\u0438 \\u4e2d\\u6587 \\ud83d\\ude00";
  const char *strings[] = { "\xc3\xa9t\xc3\xa9", "\xf0\x9f\x98\x80", NULL };
  const char *const keys[] = {
    ".zgroup", ".zattrs", ".zmetadata", "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9/.zgroup",
    "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9/.zattrs",
    "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9/temp\xc3\xa9rature/.zarray",
    "gr\xc3\xbcppe \xc3\xa9t\xc3\xa9/temp\xc3\xa9rature/.zattrs",
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, cases[c].fragment);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(NczAttribute) a = ncz_attribute_new_text (aname, text, -1);
      g_autoptr(NczAttribute) sa = ncz_attribute_new_strings ("s", strings, 2);
      g_autofree char *root_attrs = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczGroup *g;
      NczDimension *d;
      NczVariable *v;
      gint32 values[2] = { 1, 2 };
      guint64 start = 0, count = 2;
      guint n_objects = 0;

      g_test_message ("%s", cases[c].fragment);
      g_assert_true (ncz_group_set_attribute (root, a, &error));
      g_assert_true (ncz_group_set_attribute (root, sa, &error));
      d = ncz_group_add_dimension (root, dname, 2, FALSE, &error);
      g_assert_no_error (error);
      g = ncz_group_add_group (root, gname, &error);
      g_assert_no_error (error);
      v = ncz_group_add_variable (g, vname, NCZ_DATA_TYPE_INT, 1, &d, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_variable_set_attribute (v, a, &error));
      g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values, sizeof values,
                                         NULL, &error));
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);

      /* every metadata object in ASCII, or the root's text as UTF-8 */
      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        {
          g_autofree char *t = nczt_get (store, keys[k]);
          if (t == NULL)
            continue;
          n_objects++;
          if (cases[c].ascii && !is_ascii (t))
            g_error ("%s: %s is not ASCII: %s", cases[c].fragment, keys[k], t);
        }
      g_assert_cmpuint (n_objects, >=, 5);
      root_attrs = nczt_get (store, ".zattrs");
      g_assert_nonnull (strstr (root_attrs, cases[c].ascii ? escaped : text));

      back = nczt_open_mem (store, cases[c].pure ? "mode=zarr,file" : "mode=nczarr,file",
                            NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      root = ncz_dataset_get_root_group (back);
      g = ncz_group_get_group (root, gname);
      g_assert_nonnull (g);
      v = ncz_group_get_variable (g, vname);
      g_assert_nonnull (v);
      g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (v, 0)), ==, dname);
      {
        g_autofree char *t1 = nczt_attr_text (ncz_group_get_attribute (root, aname));
        g_autofree char *t2 = nczt_attr_text (ncz_variable_get_attribute (v, aname));
        NczAttribute *s = ncz_group_get_attribute (root, "s");
        g_assert_cmpstr (t1, ==, text);
        g_assert_cmpstr (t2, ==, text);
        g_assert_nonnull (s);
        if (cases[c].pure)
          {
            /* no attribute types in pure Zarr: the JSON array as text,
             * in UTF-8 whatever the metadata held */
            g_autofree char *t3 = nczt_attr_text (s);
            g_assert_cmpstr (t3, ==, "[\"\xc3\xa9t\xc3\xa9\",\"\xf0\x9f\x98\x80\"]");
          }
        else
          {
            const char *const *sv = ncz_attribute_get_strings (s);
            g_assert_cmpuint (ncz_attribute_get_length (s), ==, 2);
            g_assert_cmpstr (sv[0], ==, strings[0]);
            g_assert_cmpstr (sv[1], ==, strings[1]);
          }
      }
    }

  /* an unknown value names the key */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NczUrl) url = ncz_url_parse ("file:///unused#mode=zarr,file&json=latin-1", &error);
    g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
    g_autoptr(NczDataset) ds = NULL;

    g_assert_no_error (error);
    ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
    g_assert_null (ds);
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL);
    g_assert_nonnull (strstr (error->message, "json must be \"ascii\" or \"utf-8\", not \"latin-1\""));
  }
}

/* Every atomic type, both byte orders, strings and chars. */
static void
test_types_roundtrip (void)
{
  static const char *const fragments[] = {
    "mode=nczarr,file", "mode=nczarr,file&layout=attributes", "mode=zarr,file",
  };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczDimension *n = ncz_group_add_dimension (root, "n", 3, FALSE, &error);
      NczDataType types[] = { NCZ_DATA_TYPE_BYTE, NCZ_DATA_TYPE_UBYTE, NCZ_DATA_TYPE_SHORT, NCZ_DATA_TYPE_USHORT,
                          NCZ_DATA_TYPE_INT, NCZ_DATA_TYPE_UINT, NCZ_DATA_TYPE_INT64, NCZ_DATA_TYPE_UINT64,
                          NCZ_DATA_TYPE_FLOAT, NCZ_DATA_TYPE_DOUBLE };
      guint64 start = 0, count = 3;
      gboolean pure = g_str_has_prefix (fragments[f], "mode=zarr");

      for (guint t = 0; t < G_N_ELEMENTS (types); t++)
        for (int big = 0; big < 2; big++)
          {
            g_autofree char *name = g_strdup_printf ("v_%s_%s", ncz_data_type_get_name (types[t]),
                                                     big ? "be" : "le");
            NczVariable *v = ncz_group_add_variable (root, name, types[t], 1, &n, &error);
            guint8 buf[24];
            gsize ts = ncz_data_type_get_size (types[t]);
            g_assert_no_error (error);
            if (big)
              g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
            for (guint i = 0; i < 3; i++)
              for (gsize b = 0; b < ts; b++)
                buf[i * ts + b] = (guint8) (i * 16 + b + 1);
            if (types[t] == NCZ_DATA_TYPE_FLOAT)
              {
                float fv[3] = { 1.5f, -2.25f, 1e30f };
                memcpy (buf, fv, sizeof fv);
              }
            if (types[t] == NCZ_DATA_TYPE_DOUBLE)
              {
                double dv[3] = { 0.1, -1e300, 3.0 };
                memcpy (buf, dv, sizeof dv);
              }
            g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, buf, 3 * ts, NULL, &error));
            g_assert_no_error (error);
          }
      {
        NczVariable *c = ncz_group_add_variable (root, "chars", NCZ_DATA_TYPE_CHAR, 1, &n, &error);
        NczVariable *s = ncz_group_add_variable (root, "strs", NCZ_DATA_TYPE_STRING, 1, &n, &error);
        const char *sv[] = { "a", "bb", "a str", NULL };
        g_autoptr(NczAttribute) w = NULL;
        gint32 five = 5;
        g_assert_no_error (error);
        w = ncz_attribute_new_values ("_nczarr_maxstrlen", NCZ_DATA_TYPE_INT, &five, 1, &error);
        g_assert_true (ncz_variable_set_attribute (s, w, &error));
        g_assert_true (ncz_variable_write (c, &start, 1, &count, 1, NULL, 0, "xyz", 3, NULL, &error));
        g_assert_true (ncz_variable_write_strings (s, &start, 1, &count, 1, NULL, 0, sv, NULL, &error));
        g_assert_no_error (error);
      }
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);

      /* big-endian data really is big-endian in the store */
      {
        g_autofree char *za = nczt_get (store, "v_int_be/.zarray");
        g_autoptr(GBytes) chunk = ncz_store_read (NCZ_STORE (store), "v_int_be/0", NULL, &error);
        const guint8 *p = g_bytes_get_data (chunk, NULL);
        g_assert_nonnull (strstr (za, "\"dtype\": \">i4\""));
        g_assert_cmpuint (p[0], ==, 4);
        g_assert_cmpuint (p[3], ==, 1);
        g_free (za);
        za = nczt_get (store, "strs/.zarray");
        /* plain Zarr stores strings with their lengths (test-nczarr-dtypes.c) */
        g_assert_nonnull (strstr (za, pure ? "\"dtype\": \"|O\"" : "\"dtype\": \"|S5\""));
        g_free (za);
        za = nczt_get (store, "chars/.zarray");
        g_assert_nonnull (strstr (za, "\"dtype\": \">S1\""));
        g_bytes_unref (chunk);
        chunk = ncz_store_read (NCZ_STORE (store), "strs/0", NULL, &error);
        if (pure)
          g_assert_cmpmem (g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk),
                           "\3\0\0\0\1\0\0\0a\2\0\0\0bb\5\0\0\0a str", 24);
        else
          g_assert_cmpmem (g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk),
                           "a\0\0\0\0bb\0\0\0a str", 15);
      }

      back = nczt_open_mem (store, fragments[f], NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      for (guint t = 0; t < G_N_ELEMENTS (types); t++)
        for (int big = 0; big < 2; big++)
          {
            g_autofree char *name = g_strdup_printf ("v_%s_%s", ncz_data_type_get_name (types[t]),
                                                     big ? "be" : "le");
            NczVariable *v = nczt_var (back, name);
            gsize ts = ncz_data_type_get_size (types[t]);
            guint8 buf[24], expect[24];
            g_assert_cmpint (ncz_variable_get_value_type (v), ==, types[t]);
            if (big && ts > 1)
              g_assert_cmpint (ncz_variable_get_endianness (v), ==, NCZ_ENDIANNESS_BIG);
            for (guint i = 0; i < 3; i++)
              for (gsize b = 0; b < ts; b++)
                expect[i * ts + b] = (guint8) (i * 16 + b + 1);
            if (types[t] == NCZ_DATA_TYPE_FLOAT)
              {
                float fv[3] = { 1.5f, -2.25f, 1e30f };
                memcpy (expect, fv, sizeof fv);
              }
            if (types[t] == NCZ_DATA_TYPE_DOUBLE)
              {
                double dv[3] = { 0.1, -1e300, 3.0 };
                memcpy (expect, dv, sizeof dv);
              }
            nczt_read_all (v, buf, 3 * ts);
            g_assert_cmpmem (buf, 3 * ts, expect, 3 * ts);
          }
      {
        NczVariable *c = nczt_var (back, "chars");
        NczVariable *s = nczt_var (back, "strs");
        g_auto(GStrv) got = nczt_read_strings (s);
        g_assert_cmpint (ncz_variable_get_value_type (s), ==, NCZ_DATA_TYPE_STRING);
        if (!pure)
          g_assert_cmpuint (ncz_variable_get_max_string_length (s), ==, 5);
        g_assert_cmpstr (got[0], ==, "a");
        g_assert_cmpstr (got[1], ==, "bb");
        g_assert_cmpstr (got[2], ==, "a str");
        if (pure)
          /* plain Zarr has no char type: ">S1" is a string of width 1 */
          g_assert_cmpint (ncz_variable_get_value_type (c), ==, NCZ_DATA_TYPE_STRING);
        else
          {
            char cb[3];
            g_assert_cmpint (ncz_variable_get_value_type (c), ==, NCZ_DATA_TYPE_CHAR);
            nczt_read_all (c, cb, 3);
            g_assert_cmpmem (cb, 3, "xyz", 3);
          }
      }
    }
}

/* Attributes of every type and the JSON convention for char text. */
static void
test_attributes_roundtrip (void)
{
  static const char *const fragments[] = {
    "mode=nczarr,file", "mode=nczarr,file&layout=attributes",
  };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      gint8 b[] = { 1, -2 };
      guint8 ub = 255;
      gint16 sh = -300;
      guint16 us = 65535;
      gint32 in[] = { 70000, 2 };
      guint32 ui = 4000000000u;
      gint64 i64 = -9000000000000;
      guint64 u64 = G_GUINT64_CONSTANT (18000000000000000000);
      float fl[] = { 1.5f, NAN, 0.1f };
      double db[] = { 3.14159265358979, INFINITY, -INFINITY };
      const char *strs[] = { "abc", "def", NULL };
      static const char *const texts[][2] = {
        { "t_plain", "hello" },
        { "t_empty", "" },
        { "t_num", "42" },
        { "t_flat", "[1, 2, 3]" },
        { "t_dict", "{\"key1\": [1,2,3], \"key2\": {\"key3\": \"abc\"}}" },
        { "t_nested", "[[1.0,0.0],[0.0,1.0]]" },
        { "t_bad", "[ [ 1.0, 0.0 " },
        { "t_true", "true" },
      };
#define SETA(a) G_STMT_START { g_autoptr(NczAttribute) _a = (a); g_assert_nonnull (_a); \
        g_assert_true (ncz_group_set_attribute (root, _a, &error)); g_assert_no_error (error); } G_STMT_END

      SETA (ncz_attribute_new_values ("a_byte", NCZ_DATA_TYPE_BYTE, b, 2, &error));
      SETA (ncz_attribute_new_values ("a_ubyte", NCZ_DATA_TYPE_UBYTE, &ub, 1, &error));
      SETA (ncz_attribute_new_values ("a_short", NCZ_DATA_TYPE_SHORT, &sh, 1, &error));
      SETA (ncz_attribute_new_values ("a_ushort", NCZ_DATA_TYPE_USHORT, &us, 1, &error));
      SETA (ncz_attribute_new_values ("a_int", NCZ_DATA_TYPE_INT, in, 2, &error));
      SETA (ncz_attribute_new_values ("a_uint", NCZ_DATA_TYPE_UINT, &ui, 1, &error));
      SETA (ncz_attribute_new_values ("a_int64", NCZ_DATA_TYPE_INT64, &i64, 1, &error));
      SETA (ncz_attribute_new_values ("a_uint64", NCZ_DATA_TYPE_UINT64, &u64, 1, &error));
      SETA (ncz_attribute_new_values ("a_float", NCZ_DATA_TYPE_FLOAT, fl, 3, &error));
      SETA (ncz_attribute_new_values ("a_double", NCZ_DATA_TYPE_DOUBLE, db, 3, &error));
      SETA (ncz_attribute_new_strings ("a_strings", strs, 2));
      SETA (ncz_attribute_new_strings ("a_string1", strs, 1));
      SETA (ncz_attribute_new_text ("a_nul", "\0", 1));
      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        SETA (ncz_attribute_new_text (texts[i][0], texts[i][1], -1));
#undef SETA
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);

      {
        g_autofree char *za = nczt_get (store, ".zattrs");
        /* numbers as JSON numbers, floats with the digits they need */
        g_assert_nonnull (strstr (za, "\"a_byte\": [1,-2]"));
        g_assert_nonnull (strstr (za, "\"a_uint64\": 18000000000000000000"));
        g_assert_nonnull (strstr (za, "\"a_float\": [1.5,\"NaN\",0.1]"));
        g_assert_nonnull (strstr (za, "\"a_double\": [3.14159265358979,\"Infinity\",\"-Infinity\"]"));
        g_assert_nonnull (strstr (za, "\"a_strings\": [\"abc\",\"def\"]"));
        g_assert_nonnull (strstr (za, "\"a_string1\": \"abc\""));
        /* text that only looks like a number or a flat array stays a string */
        g_assert_nonnull (strstr (za, "\"t_num\": \"42\""));
        g_assert_nonnull (strstr (za, "\"t_flat\": \"[1, 2, 3]\""));
        g_assert_nonnull (strstr (za, "\"t_true\": \"true\""));
        /* objects and nested arrays are stored as JSON */
        g_assert_nonnull (strstr (za, "\"t_dict\": {\"key1\": [1,2,3], \"key2\": {\"key3\": \"abc\"}}"));
        g_assert_nonnull (strstr (za, "\"t_nested\": [[1.0,0.0],[0.0,1.0]]"));
        g_assert_nonnull (strstr (za, "\"t_bad\": \"[ [ 1.0, 0.0 \""));
        g_assert_nonnull (strstr (za, "\"a_strings\": \"|S128\""));
        g_assert_nonnull (strstr (za, "\"a_uint64\": \"<u8\""));
        g_assert_nonnull (strstr (za, "\"t_dict\": \">S1\""));
      }

      back = nczt_open_mem (store, fragments[f], NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      root = ncz_dataset_get_root_group (back);
      {
        NczAttribute *a;
        a = ncz_group_get_attribute (root, "a_byte");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_BYTE);
        g_assert_cmpint (ncz_attribute_get_int64 (a, 1, NULL), ==, -2);
        a = ncz_group_get_attribute (root, "a_ubyte");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UBYTE);
        a = ncz_group_get_attribute (root, "a_ushort");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_USHORT);
        g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, 65535);
        a = ncz_group_get_attribute (root, "a_uint");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UINT);
        a = ncz_group_get_attribute (root, "a_int64");
        g_assert_cmpint (ncz_attribute_get_int64 (a, 0, NULL), ==, i64);
        a = ncz_group_get_attribute (root, "a_uint64");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UINT64);
        g_assert_cmpuint (ncz_attribute_get_uint64 (a, 0, NULL), ==, u64);
        a = ncz_group_get_attribute (root, "a_float");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_FLOAT);
        g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==, 1.5);
        g_assert_true (isnan (ncz_attribute_get_double (a, 1, NULL)));
        g_assert_cmpfloat (ncz_attribute_get_double (a, 2, NULL), ==, (double) 0.1f);
        a = ncz_group_get_attribute (root, "a_double");
        g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==, 3.14159265358979);
        g_assert_true (isinf (ncz_attribute_get_double (a, 2, NULL)) && ncz_attribute_get_double (a, 2, NULL) < 0);
        a = ncz_group_get_attribute (root, "a_strings");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_STRING);
        g_assert_cmpuint (ncz_attribute_get_length (a), ==, 2);
        g_assert_cmpstr (ncz_attribute_get_strings (a)[1], ==, "def");
        a = ncz_group_get_attribute (root, "a_string1");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_STRING);
        g_assert_cmpuint (ncz_attribute_get_length (a), ==, 1);
        a = ncz_group_get_attribute (root, "a_nul");
        g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_CHAR);
        g_assert_cmpuint (ncz_attribute_get_length (a), ==, 1);
        for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
          {
            g_autofree char *t = nczt_attr_text (ncz_group_get_attribute (root, texts[i][0]));
            g_assert_cmpstr (t, ==, texts[i][1]);
          }
      }
    }
}

/* Metadata is written only when it changed. */
static void
test_sync_only_changes (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file");
  g_autoptr(NczDataset) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczAttribute) a = ncz_attribute_new_text ("history", "edited", -1);
  g_autofree char *text = NULL;

  build_small (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  /* mark objects so that a rewrite shows */
  nczt_put (store, "tas/.zarray", "{\"zarr_format\": 2, \"shape\": [4,3], \"dtype\": \"<f4\", "
            "\"chunks\": [4,3], \"fill_value\": -999, \"order\": \"C\", \"compressor\": null, "
            "\"filters\": null, \"_nczarr_array\": {\"dimrefs\": [\"/time\",\"/lat\"]}}");

  again = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_sync (again, NULL, &error));
  g_assert_no_error (error);
  text = nczt_get (store, "tas/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": -999,"));
  g_clear_pointer (&text, g_free);

  /* changing a group attribute rewrites that group's .zattrs only */
  g_assert_true (ncz_group_set_attribute (ncz_dataset_get_root_group (again), a, &error));
  g_assert_true (ncz_dataset_sync (again, NULL, &error));
  g_assert_no_error (error);
  text = nczt_get (store, ".zattrs");
  g_assert_nonnull (strstr (text, "\"history\": \"edited\""));
  g_clear_pointer (&text, g_free);
  text = nczt_get (store, "tas/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": -999,"));
  g_assert_true (ncz_dataset_close (again, NULL, &error));
}

/* An old-layout store opened for writing is rewritten in the new layout
 * as soon as something changes. */
static void
test_convert_on_write (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczAttribute) a = ncz_attribute_new_text ("history", "edited", -1);
  g_autofree char *zgroup = NULL;
  g_autofree char *zarray = NULL;
  gint32 v[2];

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2, \"_NCZARR_SUPERBLOCK\": {\"version\": \"2.0.0\"}, "
            "\"_NCZARR_GROUP\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\"], \"groups\": []}}");
  nczt_put (store, ".zattrs", "{\"_NCProperties\": \"version=2,netcdf=4.9.0,nczarr=2.0.0\", "
            "\"_NCZARR_ATTR\": {\"types\": {\"_NCProperties\": \"<U1\"}}}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", "
            "\"chunks\": [2], \"fill_value\": -2147483647, \"order\": \"C\", \"compressor\": null, "
            "\"filters\": null, \"_NCZARR_ARRAY\": {\"dimrefs\": [\"/x\"], \"storage\": \"chunked\"}}");
  nczt_put_bytes (store, "v/0", "\1\0\0\0\2\0\0\0", 8);

  ds = nczt_open_mem (store, "mode=nczarr,file&layout=keys", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_nczarr_format_get_layout (NCZ_NCZARR_FORMAT (ncz_dataset_get_format (ds))),
                   ==, "keys-upper");
  g_assert_true (ncz_group_set_attribute (ncz_dataset_get_root_group (ds), a, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  zgroup = nczt_get (store, ".zgroup");
  g_assert_cmpstr (zgroup, ==, "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
                   "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\"], \"groups\": []}}");
  zarray = nczt_get (store, "v/.zarray");
  g_assert_nonnull (strstr (zarray, "\"_nczarr_array\": {\"dimrefs\": [\"/x\"]"));
  g_assert_null (strstr (zarray, "_NCZARR"));
  g_clear_object (&ds);
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  nczt_read_all (nczt_var (ds, "v"), v, sizeof v);
  g_assert_cmpint (v[1], ==, 2);
}

static void
test_fill_values (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  g_autoptr(NczDataset) ds = nczt_create_mem (&store, "mode=nczarr,file");
  g_autoptr(NczDataset) back = NULL;
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  NczVariable *nan = ncz_group_add_variable (root, "nan", NCZ_DATA_TYPE_DOUBLE, 1, &x, &error);
  NczVariable *prec = ncz_group_add_variable (root, "prec", NCZ_DATA_TYPE_DOUBLE, 1, &x, &error);
  NczVariable *nofill = ncz_group_add_variable (root, "nofill", NCZ_DATA_TYPE_INT, 1, &x, &error);
  NczVariable *big = ncz_group_add_variable (root, "big", NCZ_DATA_TYPE_UINT64, 1, &x, &error);
  NczVariable *ch = ncz_group_add_variable (root, "ch", NCZ_DATA_TYPE_CHAR, 1, &x, &error);
  double dn = NAN, dp = 1.23456789012;
  guint64 u = G_MAXUINT64 - 1;
  char c = 'x';
  g_autofree char *text = NULL;
  double got[2];
  guint64 start = 0, one = 1;

  g_assert_no_error (error);
  g_autoptr(GBytes) bn = g_bytes_new (&dn, 8);
  g_autoptr(GBytes) bp = g_bytes_new (&dp, 8);
  g_autoptr(GBytes) bu = g_bytes_new (&u, 8);
  g_autoptr(GBytes) bc = g_bytes_new (&c, 1);
  g_assert_true (ncz_variable_set_fill_value (nan, bn, &error));
  g_assert_true (ncz_variable_set_fill_value (prec, bp, &error));
  g_assert_true (ncz_variable_set_no_fill (nofill, TRUE, &error));
  g_assert_true (ncz_variable_set_fill_value (big, bu, &error));
  g_assert_true (ncz_variable_set_fill_value (ch, bc, &error));
  g_assert_true (ncz_variable_write (prec, &start, 1, &one, 1, NULL, 0, &dn, 8, NULL, &error));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  text = nczt_get (store, "nan/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": \"NaN\""));
  g_free (text);
  text = nczt_get (store, "prec/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": 1.23456789012,"));
  g_free (text);
  text = nczt_get (store, "nofill/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": null"));
  g_free (text);
  text = nczt_get (store, "big/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": 18446744073709551614,"));
  g_free (text);
  /* Zarr keeps "S" fill values in base64 */
  text = nczt_get (store, "ch/.zarray");
  g_assert_nonnull (strstr (text, "\"fill_value\": \"eA==\""));

  back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_get_no_fill (nczt_var (back, "nofill")));
  nczt_read_all (nczt_var (back, "prec"), got, sizeof got);
  g_assert_true (isnan (got[0]));
  /* the unwritten element holds the exact fill value */
  g_assert_cmpfloat (got[1], ==, 1.23456789012);
  nczt_read_all (nczt_var (back, "nan"), got, sizeof got);
  g_assert_true (isnan (got[0]) && isnan (got[1]));
  {
    guint64 b[2];
    char cc[2];
    nczt_read_all (nczt_var (back, "big"), b, sizeof b);
    g_assert_cmpuint (b[0], ==, G_MAXUINT64 - 1);
    nczt_read_all (nczt_var (back, "ch"), cc, sizeof cc);
    g_assert_cmpint (cc[0], ==, 'x');
  }
}

/* Fortran order, "/" separators and a missing separator key. */
static void
test_forder_and_separator (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  gint32 f[6] = { 0, 3, 1, 4, 2, 5 };  /* [[0,1,2],[3,4,5]] in F order */
  gint32 got[6], more[6] = { 10, 11, 12, 13, 14, 15 };
  guint64 start[2] = { 0, 0 }, count[2] = { 2, 3 };

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "f/.zarray", "{\"zarr_format\": 2, \"shape\": [2,3], \"dtype\": \"<i4\", "
            "\"chunks\": [2,3], \"fill_value\": 0, \"order\": \"F\", \"compressor\": null, "
            "\"filters\": null}");
  nczt_put_bytes (store, "f/0.0", f, sizeof f);
  nczt_put (store, "s/.zarray", "{\"zarr_format\": 2, \"shape\": [2,2], \"dtype\": \"<i4\", "
            "\"chunks\": [1,1], \"fill_value\": 0, \"order\": \"C\", \"compressor\": null, "
            "\"filters\": null, \"dimension_separator\": \"/\"}");
  nczt_put_bytes (store, "s/1/0", "\x07\0\0\0", 4);

  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  nczt_read_all (nczt_var (ds, "f"), got, sizeof got);
  for (int i = 0; i < 6; i++)
    g_assert_cmpint (got[i], ==, i);
  nczt_read_all (nczt_var (ds, "s"), got, 16);
  g_assert_cmpint (got[0], ==, 0);
  g_assert_cmpint (got[2], ==, 7);

  /* writing an F-order array stores F order */
  g_assert_true (ncz_variable_write (nczt_var (ds, "f"), start, 2, count, 2, NULL, 0, more, sizeof more,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  {
    g_autoptr(GBytes) b = ncz_store_read (NCZ_STORE (store), "f/0.0", NULL, &error);
    const gint32 *p = g_bytes_get_data (b, NULL);
    g_assert_cmpint (p[1], ==, 13);
    g_assert_cmpint (p[2], ==, 11);
  }
  {
    g_autofree char *za = nczt_get (store, "f/.zarray");
    g_assert_nonnull (strstr (za, "\"order\": \"F\""));
    g_free (za);
    za = nczt_get (store, "s/.zarray");
    g_assert_nonnull (strstr (za, "\"dimension_separator\": \"/\""));
  }
}

/* A true 0-d array (shape []) is a scalar with chunk key "0". */
static void
test_zero_dim (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  gint32 v = 0, w = 99;
  g_autofree char *za = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "s0/.zarray", "{\"chunks\": [], \"compressor\": null, \"dtype\": \"<i4\", "
            "\"fill_value\": 0, \"filters\": null, \"order\": \"C\", \"shape\": [], \"zarr_format\": 2}");
  nczt_put_bytes (store, "s0/0", "\x2a\0\0\0", 4);
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_WRITE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_variable_get_n_dimensions (nczt_var (ds, "s0")), ==, 0);
  nczt_read_all (nczt_var (ds, "s0"), &v, sizeof v);
  g_assert_cmpint (v, ==, 42);
  g_assert_true (ncz_variable_write (nczt_var (ds, "s0"), NULL, 0, NULL, 0, NULL, 0, &w, 4, NULL, &error));
  {
    g_autoptr(NczAttribute) xa = ncz_attribute_new_text ("x", "y", -1);
    g_assert_true (ncz_group_set_attribute (ncz_dataset_get_root_group (ds), xa, &error));
  }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  za = nczt_get (store, "s0/.zarray");
  g_assert_nonnull (strstr (za, "\"shape\": [], "));
  g_assert_nonnull (strstr (za, "\"chunks\": [], "));
}

/* Strings wider in the store than the model's default width. */
static void
test_wide_strings (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_auto(GStrv) s = NULL;
  char data[400] = { 0 };

  memset (data, 'a', 200);
  memcpy (data + 200, "short", 5);
  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "w/.zarray", "{\"chunks\": [2], \"compressor\": null, \"dtype\": \"|S200\", "
            "\"fill_value\": \"\", \"filters\": null, \"order\": \"C\", \"shape\": [2], \"zarr_format\": 2}");
  nczt_put_bytes (store, "w/0", data, 400);
  nczt_put (store, "n/.zarray", "{\"chunks\": [2], \"compressor\": null, \"dtype\": \"|S5\", "
            "\"fill_value\": \"\", \"filters\": null, \"order\": \"C\", \"shape\": [2], \"zarr_format\": 2}");
  nczt_put_bytes (store, "n/0", "hello\0\0\0\0\0", 10);
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  s = nczt_read_strings (nczt_var (ds, "w"));
  g_assert_cmpuint (strlen (s[0]), ==, 200);
  g_assert_cmpstr (s[1], ==, "short");
  g_strfreev (s);
  s = nczt_read_strings (nczt_var (ds, "n"));
  g_assert_cmpstr (s[0], ==, "hello");
  g_assert_cmpstr (s[1], ==, "");
}

static void
test_unlimited (void)
{
  static const char *const fragments[] = { "mode=nczarr,file", "mode=nczarr,file&layout=attributes" };
  static const char *const expect[] = {
    /* netcdf-c 4.9.2 reads plain lengths only; Ncz keeps its own list */
    "\"dims\": {\"t\": 2, \"x\": 3}, \"vars\": [\"v\"], \"groups\": [], \"ncz_unlimited\": [\"t\"]",
    "\"dimensions\": {\"t\": {\"size\": 2, \"unlimited\": 1}, \"x\": 3}",
  };

  for (guint f = 0; f < G_N_ELEMENTS (fragments); f++)
    {
      g_autoptr(NczMemoryStore) store = NULL;
      g_autoptr(NczDataset) ds = nczt_create_mem (&store, fragments[f]);
      g_autoptr(NczDataset) back = NULL;
      g_autoptr(GError) error = NULL;
      NczGroup *root = ncz_dataset_get_root_group (ds);
      NczDimension *t = ncz_group_add_dimension (root, "t", 2, TRUE, &error);
      NczDimension *x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
      g_autofree char *text = NULL;

      ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, (NczDimension *[]) { t, x }, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      text = nczt_get (store, f == 0 ? ".zgroup" : ".zattrs");
      g_assert_nonnull (strstr (text, expect[f]));
      back = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_dimension_is_unlimited (nczt_dim (back, "t")));
      g_assert_cmpuint (ncz_dimension_get_length (nczt_dim (back, "t")), ==, 2);
      g_assert_false (ncz_dimension_is_unlimited (nczt_dim (back, "x")));
    }
}

/* Chunks are read from several threads at once. */
typedef struct {
  NczVariable *var;
  gint failures;
} ThreadData;

static gpointer
reader_thread (gpointer data)
{
  ThreadData *td = data;
  for (int k = 0; k < 200; k++)
    {
      gint32 got[12];
      guint64 start[2] = { 0, 0 }, count[2] = { 4, 3 };
      g_autoptr(GError) error = NULL;
      if (!ncz_variable_read (td->var, start, 2, count, 2, NULL, 0, got, sizeof got, NULL, &error))
        g_atomic_int_inc (&td->failures);
      else
        for (int i = 0; i < 12; i++)
          if (got[i] != i)
            {
              g_atomic_int_inc (&td->failures);
              break;
            }
    }
  return NULL;
}

static void
test_concurrent_reads (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  GThread *threads[4];
  ThreadData td = { 0 };
  /* F-order, big-endian 2x2 chunks of a 4x3 array holding 0..11 */
  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [4,3], \"dtype\": \">i4\", "
            "\"chunks\": [2,2], \"fill_value\": 0, \"order\": \"F\", \"compressor\": null, "
            "\"filters\": null}");
  for (int ci = 0; ci < 2; ci++)
    for (int cj = 0; cj < 2; cj++)
      {
        guint8 buf[16] = { 0 };
        g_autofree char *key = g_strdup_printf ("v/%d.%d", ci, cj);
        for (int j = 0; j < 2; j++)
          for (int i = 0; i < 2; i++)
            {
              int r = ci * 2 + i, c = cj * 2 + j;
              int v = c < 3 ? r * 3 + c : 0;
              buf[(j * 2 + i) * 4 + 3] = (guint8) v;   /* F order, big-endian */
            }
        nczt_put_bytes (store, key, buf, sizeof buf);
      }
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  td.var = nczt_var (ds, "v");
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("reader", reader_thread, &td);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpint (td.failures, ==, 0);
}

/* NCZarr V1 with decimal nc_type codes in .nczattrs */
static void
test_v1_numeric_types (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczAttribute *a;

  nczt_put (store, ".nczarr", "{\"zarr_format\": 2,\"nczarr_version\": \"1.0.0\"}");
  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, ".nczgroup", "{\"dims\": {\"lat\": 2},\"vars\": [\"v\"],\"groups\": []}");
  nczt_put (store, ".zattrs", "{\"n\": 7, \"t\": \"x\", \"_NCProperties\": \"version=2,netcdf=4.8.0,nczarr=1.0.0\"}");
  nczt_put (store, ".nczattrs", "{\"types\": {\"n\": \"3\", \"t\": \"2\", \"_NCProperties\": \"2\"}}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2,\"shape\": [2],\"dtype\": \"<f8\",\"chunks\": [2],"
            "\"fill_value\": null,\"order\": \"C\",\"compressor\": null,\"filters\": null}");
  nczt_put (store, "v/.nczarray", "{\"dimension_references\": [\"/lat\"],\"storage\": \"chunked\"}");
  nczt_put (store, "v/.zattrs", "{\"u\": 5}");
  nczt_put (store, "v/.nczattr", "{\"types\": {\"u\": \"11\"}}");
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  a = ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "n");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_SHORT);
  a = ncz_group_get_attribute (ncz_dataset_get_root_group (ds), "t");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_CHAR);
  a = ncz_variable_get_attribute (nczt_var (ds, "v"), "u");
  g_assert_cmpint (ncz_attribute_get_value_type (a), ==, NCZ_DATA_TYPE_UINT64);
  g_assert_true (ncz_variable_get_dimension (nczt_var (ds, "v"), 0) == nczt_dim (ds, "lat"));
  g_assert_true (ncz_variable_get_no_fill (nczt_var (ds, "v")));
}

/* ---- bad input: one store each, all failing with a precise error ---- */

typedef struct {
  const char *name;
  const char *key;        /* the object replaced */
  const char *text;       /* its content */
  GQuark domain_dummy;
  int code;               /* NczBackendError code (domain NCZ_BACKEND_ERROR) */
  const char *needle1;    /* substrings the message must contain */
  const char *needle2;
} BadCase;

static const char *const base_zarray =
  "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], \"fill_value\": 0, "
  "\"order\": \"C\", \"compressor\": null, \"filters\": null, "
  "\"_nczarr_array\": {\"dimrefs\": [\"/x\"], \"storage\": \"chunked\"}}";

static void
put_base (NczMemoryStore *store)
{
  nczt_put (store, ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
            "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\"], \"groups\": []}}");
  nczt_put (store, "v/.zarray", base_zarray);
}

static const BadCase bad_cases[] = {
  { "truncated-json", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "line 1" },
  { "not-an-object", "v/.zarray", "[1,2]", 0, NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "not an object" },
  { "shape-not-array", "v/.zarray", "{\"zarr_format\": 2, \"shape\": 2, \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"shape\"" },
  { "chunk-string", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [\"2\"], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"chunks\"[0]" },
  { "dtype-number", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": 4, \"chunks\": [2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"dtype\"" },
  { "negative-shape", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [-2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"shape\"[0]" },
  { "overflow-shape", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [4294967296,4294967296], \"dtype\": \"<i4\", "
    "\"chunks\": [1,1], \"fill_value\": 0}", 0, NCZ_BACKEND_ERROR_UNSUPPORTED, "v/.zarray", "2^53" },
  { "zero-chunk", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [0], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"chunks\"[0] is 0" },
  { "huge-chunk", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", "
    "\"chunks\": [9007199254740992], \"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "too large" },
  { "chunk-rank", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2,2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"chunks\" has 2 entries" },
  /* dtypes that are not supported open; reading fails (test-nczarr-dtypes.c) */
  { "zarr-format-3", "v/.zarray", "{\"zarr_format\": 3, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0}", 0, NCZ_BACKEND_ERROR_UNSUPPORTED, "v/.zarray", "\"zarr_format\" is 3" },
  { "missing-dimref", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/nope\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"/nope\"" },
  { "dimref-count", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2,2], \"dtype\": \"<i4\", \"chunks\": [2,2], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"dimrefs\" names 1 dimensions" },
  { "dim-length", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"dtype\": \"<i4\", \"chunks\": [3], "
    "\"fill_value\": 0, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "length 2" },
  { "bad-fill", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": \"abc\", \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"fill_value\"" },
  { "bad-separator", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0, \"dimension_separator\": \"-\", \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "dimension_separator" },
  { "bad-codec", "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
    "\"fill_value\": 0, \"compressor\": {\"level\": 1}, \"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "v/.zarray", "\"id\"" },
  { "dotdot-name", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
    "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"..\"], \"groups\": []}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, ".zgroup", "\"..\"" },
  { "slash-name", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
    "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\"], \"groups\": [\"a/b\"]}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, ".zgroup", "\"a/b\"" },
  { "missing-array", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
    "\"_nczarr_group\": {\"dims\": {\"x\": 2}, \"vars\": [\"v\", \"w\"], \"groups\": []}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, "w/.zarray", "does not exist" },
  { "bad-dim-length", ".zgroup", "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
    "\"_nczarr_group\": {\"dims\": {\"x\": -1}, \"vars\": [], \"groups\": []}}", 0,
    NCZ_BACKEND_ERROR_BAD_METADATA, ".zgroup", "dimension \"x\"" },
};

static void
test_bad_input (gconstpointer data)
{
  const BadCase *c = data;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  put_base (store);
  nczt_put (store, c->key, c->text);
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_BACKEND_ERROR, c->code);
  if (!strstr (error->message, c->needle1) || !strstr (error->message, c->needle2))
    g_error ("message \"%s\" lacks \"%s\" or \"%s\"", error->message, c->needle1, c->needle2);
}

static void
test_bad_chunk (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  gint32 v[2];
  guint64 start = 0, count = 2;

  put_base (store);
  nczt_put_bytes (store, "v/0", "\1\0\0\0\2\0", 6);
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_false (ncz_variable_read (nczt_var (ds, "v"), &start, 1, &count, 1, NULL, 0, v, sizeof v,
                                     NULL, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK);
  g_assert_nonnull (strstr (error->message, "v/0"));
  g_assert_nonnull (strstr (error->message, "6 bytes"));
  g_assert_nonnull (strstr (error->message, "expected 8"));
}

static void
test_missing_codec (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  gint32 v[2];
  guint64 start = 0, count = 2;
  g_autofree char *codecs = NULL;

  put_base (store);
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
            "\"fill_value\": 0, \"compressor\": {\"id\": \"no-such-codec\", \"level\": \"5\"}, "
            "\"_nczarr_array\": {\"dimrefs\": [\"/x\"]}}");
  nczt_put_bytes (store, "v/0", "\1\0\0\0\2\0\0\0", 8);
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  /* the metadata opens; reading data names the codec, variable and key */
  codecs = ncz_variable_get_codecs_json (nczt_var (ds, "v"));
  g_assert_nonnull (strstr (codecs, "no-such-codec"));
  g_assert_false (ncz_variable_read (nczt_var (ds, "v"), &start, 1, &count, 1, NULL, 0, v, sizeof v,
                                     NULL, &error));
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "codec not available: no-such-codec"));
  g_assert_nonnull (strstr (error->message, "v/0"));
}

static void
test_codec_json_normalize (void)
{
  g_autofree char *a = nczarr_codec_json_normalize ("{\"id\": \"zlib\", \"level\": \"5\"}", 4);
  g_autofree char *b = nczarr_codec_json_normalize ("{\"id\": \"shuffle\", \"elementsize\": \"0\"}", 4);
  g_autofree char *c = nczarr_codec_json_normalize ("{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5}", 8);
  g_assert_cmpstr (a, ==, "{\"id\": \"zlib\", \"level\": 5}");
  g_assert_cmpstr (b, ==, "{\"id\": \"shuffle\", \"elementsize\": 4}");
  g_assert_cmpstr (c, ==, "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5}");
}

static void
test_not_zarr (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
  g_assert_nonnull (strstr (error->message, "Unknown file format"));
  g_clear_error (&error);
  nczt_put (store, "notzarr.txt", "hello");
  ds = nczt_open_mem (store, "mode=nczarr,file", NCZ_OPEN_READ, &error);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ);
}

static void
test_xarray_conflict (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
            "\"fill_value\": 0}");
  nczt_put (store, "v/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  nczt_put (store, "w/.zarray", "{\"zarr_format\": 2, \"shape\": [3], \"dtype\": \"<i4\", \"chunks\": [3], "
            "\"fill_value\": 0}");
  nczt_put (store, "w/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA);
  g_assert_nonnull (strstr (error->message, "\"v\""));
  g_assert_nonnull (strstr (error->message, "w/.zattrs"));
  g_clear_error (&error);
  /* without the XArray convention the arrays get anonymous dimensions */
  g_clear_object (&ds);
  ds = nczt_open_mem (store, "mode=zarr,noxarray,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (nczt_var (ds, "w"), 0)),
                   ==, "_Anonymous_Dim_3");
}

static void
test_anonymous_prefix (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, "v/.zarray", "{\"zarr_format\": 2, \"shape\": [2], \"dtype\": \"<i4\", \"chunks\": [2], "
            "\"fill_value\": 0}");
  ds = nczt_open_mem (store, "mode=zarr,file&anonymous_dim_prefix=_zdim_", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nczt_dim (ds, "/_zdim_2"));
}

static void
test_pure_attribute_inference (void)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root;
  static const struct { const char *name; NczDataType type; const char *text; } expect[] = {
    { "small", NCZ_DATA_TYPE_INT, NULL },
    { "big", NCZ_DATA_TYPE_INT64, NULL },
    { "uint", NCZ_DATA_TYPE_UINT, NULL },
    { "u64", NCZ_DATA_TYPE_UINT64, NULL },
    { "real", NCZ_DATA_TYPE_DOUBLE, NULL },
    { "mixednum", NCZ_DATA_TYPE_DOUBLE, NULL },
    { "flag", NCZ_DATA_TYPE_UBYTE, NULL },
    { "nan", NCZ_DATA_TYPE_DOUBLE, NULL },
    { "str", NCZ_DATA_TYPE_CHAR, "abc" },
    { "dict", NCZ_DATA_TYPE_CHAR, "{\"x\": 1}" },
    { "strs", NCZ_DATA_TYPE_CHAR, "[\"a\",\"bc\"]" },
    { "mixed", NCZ_DATA_TYPE_CHAR, "[1,\"a\"]" },
    { "nested", NCZ_DATA_TYPE_CHAR, "[[1,2],[3]]" },
    { "none", NCZ_DATA_TYPE_CHAR, "null" },
    { "empty", NCZ_DATA_TYPE_CHAR, "" },
  };

  nczt_put (store, ".zgroup", "{\"zarr_format\": 2}");
  nczt_put (store, ".zattrs", "{\"small\": 7, \"big\": 5000000000, \"uint\": 4000000000, "
            "\"u64\": 18446744073709551615, \"real\": 1.5, \"mixednum\": [1, 2.5], \"flag\": true, "
            "\"nan\": NaN, \"str\": \"abc\", \"dict\": {\"x\": 1}, \"strs\": [\"a\", \"bc\"], "
            "\"mixed\": [1, \"a\"], \"nested\": [[1, 2], [3]], \"none\": null, \"empty\": []}");
  ds = nczt_open_mem (store, "mode=zarr,file", NCZ_OPEN_READ, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      NczAttribute *a = ncz_group_get_attribute (root, expect[i].name);
      g_assert_nonnull (a);
      if (ncz_attribute_get_value_type (a) != expect[i].type)
        g_error ("%s: type %d, expected %d", expect[i].name,
                 ncz_attribute_get_value_type (a), expect[i].type);
      if (expect[i].text)
        {
          g_autofree char *t = nczt_attr_text (a);
          g_assert_cmpstr (t, ==, expect[i].text);
        }
    }
  g_assert_cmpfloat (ncz_attribute_get_double (ncz_group_get_attribute (root, "mixednum"), 1, NULL), ==, 2.5);
  g_assert_cmpuint (ncz_attribute_get_uint64 (ncz_group_get_attribute (root, "u64"), 0, NULL), ==, G_MAXUINT64);
}


/* Creating over an existing dataset on the file store: the previous one
 * stays readable and intact until the new one is closed; a discarded or
 * failed creation leaves it as it was. */
static NczDataset *
make_file_dataset (const char *url, const char *var_name, gint32 value)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  NczVariable *v = ncz_group_add_variable (root, var_name, NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  gint32 vals[4] = { value, value, value, value };
  guint64 start = 0, count = 4;
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, vals, sizeof vals, NULL, &error));
  g_assert_no_error (error);
  return ds;
}

static gint32
first_value (const char *url, const char *var_name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), var_name);
  gint32 vals[4];
  if (v == NULL)
    return G_MININT32;
  nczt_read_all (v, vals, sizeof vals);
  return vals[0];
}

static void
test_create_replaces_on_close (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ncz-replace-XXXXXX", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s/d.zarr#mode=nczarr,file", dir);
  g_autoptr(GError) error = NULL;
  NczDataset *ds;

  ds = make_file_dataset (url, "old", 1);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_object_unref (ds);
  g_assert_cmpint (first_value (url, "old"), ==, 1);

  /* while the new one is written, the old one is what readers see */
  ds = make_file_dataset (url, "new", 2);
  g_assert_cmpint (first_value (url, "old"), ==, 1);
  g_assert_cmpint (first_value (url, "new"), ==, G_MININT32);
  /* discarded: the old one stays, nothing is left beside it */
  ncz_dataset_discard (ds);
  ncz_dataset_discard (ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_object_unref (ds);
  g_assert_cmpint (first_value (url, "old"), ==, 1);
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    guint n = 0;
    while ((name = g_dir_read_name (d)) != NULL)
      {
        g_assert_cmpstr (name, ==, "d.zarr");
        n++;
      }
    g_assert_cmpuint (n, ==, 1);
  }

  /* a failed creation (no such format) leaves it too */
  {
    g_autofree char *bad = g_strdup_printf ("file://%s/d.zarr#mode=nczarr,file&format=nope", dir);
    g_assert_null (ncz_dataset_create (bad, NCZ_CREATE_DEFAULT, NULL, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
    g_assert_cmpint (first_value (url, "old"), ==, 1);
  }

  /* closed: the new one replaces the old one whole */
  ds = make_file_dataset (url, "new", 2);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
  g_assert_cmpint (first_value (url, "new"), ==, 2);
  g_assert_cmpint (first_value (url, "old"), ==, G_MININT32);

  /* dropped without close: closed (and committed) by dispose, as before */
  ds = make_file_dataset (url, "third", 3);
  g_object_unref (ds);
  g_assert_cmpint (first_value (url, "third"), ==, 3);

  nczt_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  nczt_init ();

  g_test_add_func ("/nczarr/write/layout-keys", test_layout_keys);
  g_test_add_func ("/nczarr/write/layout-attributes", test_layout_attributes);
  g_test_add_func ("/nczarr/write/layout-keys-upper", test_layout_keys_upper);
  g_test_add_func ("/nczarr/write/layout-pure-zarr", test_layout_pure);
  g_test_add_func ("/nczarr/write/noxarray", test_noxarray);
  g_test_add_func ("/nczarr/write/json-text", test_json_text);
  g_test_add_func ("/nczarr/write/sync-only-changes", test_sync_only_changes);
  g_test_add_func ("/nczarr/write/convert-old-layout", test_convert_on_write);
  g_test_add_func ("/nczarr/roundtrip/types", test_types_roundtrip);
  g_test_add_func ("/nczarr/roundtrip/attributes", test_attributes_roundtrip);
  g_test_add_func ("/nczarr/roundtrip/fill-values", test_fill_values);
  g_test_add_func ("/nczarr/read/forder-separator", test_forder_and_separator);
  g_test_add_func ("/nczarr/read/zero-dim", test_zero_dim);
  g_test_add_func ("/nczarr/roundtrip/unlimited", test_unlimited);
  g_test_add_func ("/nczarr/write/create-replaces-on-close", test_create_replaces_on_close);
  g_test_add_func ("/nczarr/read/concurrent", test_concurrent_reads);
  g_test_add_func ("/nczarr/read/v1-numeric-types", test_v1_numeric_types);
  g_test_add_func ("/nczarr/read/wide-strings", test_wide_strings);
  g_test_add_func ("/nczarr/read/pure-attribute-inference", test_pure_attribute_inference);
  g_test_add_func ("/nczarr/read/anonymous-prefix", test_anonymous_prefix);
  g_test_add_func ("/nczarr/codec-json-normalize", test_codec_json_normalize);
  g_test_add_func ("/nczarr/bad/not-zarr", test_not_zarr);
  g_test_add_func ("/nczarr/bad/xarray-conflict", test_xarray_conflict);
  g_test_add_func ("/nczarr/bad/chunk-length", test_bad_chunk);
  g_test_add_func ("/nczarr/bad/missing-codec", test_missing_codec);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/nczarr/bad/%s", bad_cases[i].name);
      g_test_add_data_func (path, &bad_cases[i], test_bad_input);
    }
  return g_test_run ();
}
