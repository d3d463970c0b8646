/* Tests of names in the model: Unicode NFC normalization when names are
 * defined and looked up, duplicates, invalid UTF-8, and the name indexes
 * of groups and attribute lists with many objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>
#include <ncz/ncz-json.h>
#include "test-format.h"

/* "café" composed (NFC: U+00E9) and decomposed (NFD: e + U+0301) */
#define CAFE_NFC "caf\xc3\xa9"
#define CAFE_NFD "cafe\xcc\x81"
/* "Å" as U+00C5 (NFC), A + U+030A (NFD) */
#define ANG_NFC "\xc3\x85ngstr\xc3\xb6m"
#define ANG_NFD "A\xcc\x8angstro\xcc\x88m"

static NczAttribute *
double_attr (const char *name, double value)
{
  g_autoptr(GError) error = NULL;
  NczAttribute *a = ncz_attribute_new_values (name, NCZ_DATA_TYPE_DOUBLE, &value, 1, &error);
  g_assert_no_error (error);
  return a;
}

static void
test_define_nfd (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  g_autoptr(NczAttribute) ga = NULL;
  g_autoptr(NczAttribute) va = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dim;
  NczGroup *sub;
  NczVariable *var;

  g_assert_cmpstr (CAFE_NFD, !=, CAFE_NFC);
  dim = ncz_group_add_dimension (root, CAFE_NFD, 3, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_dimension_get_name (dim), ==, CAFE_NFC);
  sub = ncz_group_add_group (root, ANG_NFD, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_group_get_name (sub), ==, ANG_NFC);
  var = ncz_group_add_variable (sub, CAFE_NFD, NCZ_DATA_TYPE_INT, 1, &dim, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_variable_get_name (var), ==, CAFE_NFC);
  {
    g_autofree char *full = ncz_variable_get_full_name (var);
    g_assert_cmpstr (full, ==, "/" ANG_NFC "/" CAFE_NFC);
  }

  /* found by either spelling, directly and by path */
  g_assert_true (ncz_group_get_dimension (root, CAFE_NFC) == dim);
  g_assert_true (ncz_group_get_dimension (root, CAFE_NFD) == dim);
  g_assert_true (ncz_group_lookup_dimension (sub, CAFE_NFD) == dim);
  g_assert_true (ncz_group_lookup_dimension (sub, "/" CAFE_NFD) == dim);
  g_assert_true (ncz_group_get_group (root, ANG_NFC) == sub);
  g_assert_true (ncz_group_get_group (root, ANG_NFD) == sub);
  g_assert_true (ncz_group_get_variable (sub, CAFE_NFC) == var);
  g_assert_true (ncz_group_get_variable (sub, CAFE_NFD) == var);
  g_assert_true (ncz_group_lookup_variable (root, "/" ANG_NFD "/" CAFE_NFD) == var);
  g_assert_true (ncz_group_lookup_variable (root, "/" ANG_NFC "/" CAFE_NFD) == var);
  g_assert_true (ncz_group_lookup_variable (sub, "/" ANG_NFD "/" CAFE_NFC) == var);
  g_assert_null (ncz_group_get_variable (sub, "cafe"));
  /* lookups of names that are not UTF-8 find nothing */
  g_assert_null (ncz_group_get_variable (sub, "caf\xff"));
  g_assert_null (ncz_group_get_dimension (root, "\xc3"));

  /* attributes: the name is NFC, found by either spelling */
  ga = double_attr (ANG_NFD, 1.0);
  g_assert_cmpstr (ncz_attribute_get_name (ga), ==, ANG_NFC);
  g_assert_true (ncz_group_set_attribute (root, ga, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_group_get_attribute (root, ANG_NFC) == ga);
  g_assert_true (ncz_group_get_attribute (root, ANG_NFD) == ga);
  va = ncz_attribute_new_text (CAFE_NFD, "text", -1);
  g_assert_cmpstr (ncz_attribute_get_name (va), ==, CAFE_NFC);
  g_assert_true (ncz_variable_set_attribute (var, va, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_get_attribute (var, CAFE_NFC) == va);
  g_assert_true (ncz_variable_get_attribute (var, CAFE_NFD) == va);
  {
    const char *const strs[] = { "a", "b", NULL };
    g_autoptr(NczAttribute) sa = ncz_attribute_new_strings (ANG_NFD, strs, -1);
    g_assert_cmpstr (ncz_attribute_get_name (sa), ==, ANG_NFC);
  }
  /* removal by the other spelling */
  g_assert_true (ncz_variable_remove_attribute (var, CAFE_NFD, &error));
  g_assert_no_error (error);
  g_assert_null (ncz_variable_get_attribute (var, CAFE_NFC));
  g_assert_false (ncz_variable_remove_attribute (var, CAFE_NFC, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND);
  g_clear_error (&error);
}

static void
test_duplicates (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dim;

  dim = ncz_group_add_dimension (root, CAFE_NFC, 3, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (ncz_group_add_dimension (root, CAFE_NFD, 3, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "normalization"));
  g_clear_error (&error);

  /* variables and groups share a namespace, in NFC */
  g_assert_nonnull (ncz_group_add_variable (root, CAFE_NFD, NCZ_DATA_TYPE_INT, 1, &dim, &error));
  g_assert_no_error (error);
  g_assert_null (ncz_group_add_variable (root, CAFE_NFC, NCZ_DATA_TYPE_INT, 1, &dim, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_group (root, CAFE_NFD, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_nonnull (ncz_group_add_group (root, ANG_NFC, &error));
  g_assert_no_error (error);
  g_assert_null (ncz_group_add_group (root, ANG_NFD, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_variable (root, ANG_NFD, NCZ_DATA_TYPE_INT, 1, &dim, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (root)), ==, 2);

  /* an attribute of the same NFC name replaces the first, in its place */
  {
    g_autoptr(NczAttribute) a1 = double_attr ("first", 1.0);
    g_autoptr(NczAttribute) a2 = double_attr (CAFE_NFC, 2.0);
    g_autoptr(NczAttribute) a3 = double_attr ("last", 3.0);
    g_autoptr(NczAttribute) a4 = double_attr (CAFE_NFD, 4.0);
    g_autoptr(GPtrArray) attrs = NULL;

    g_assert_true (ncz_group_set_attribute (root, a1, &error));
    g_assert_true (ncz_group_set_attribute (root, a2, &error));
    g_assert_true (ncz_group_set_attribute (root, a3, &error));
    g_assert_true (ncz_group_set_attribute (root, a4, &error));
    g_assert_no_error (error);
    attrs = ncz_group_get_attributes (root);
    g_assert_cmpuint (attrs->len, ==, 3);
    g_assert_true (g_ptr_array_index (attrs, 1) == a4);
    g_assert_true (ncz_group_get_attribute (root, CAFE_NFC) == a4);
    g_assert_cmpfloat (ncz_attribute_get_double (ncz_group_get_attribute (root, CAFE_NFD), 0, NULL),
                       ==, 4.0);
  }
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  static const char *const bad[] = { "caf\xe9", "\xff", "a\xc3", "\xed\xa0\x80" };
  double one = 1;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_null (ncz_group_add_dimension (root, bad[i], 1, FALSE, &error));
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
      g_clear_error (&error);
      g_assert_null (ncz_group_add_variable (root, bad[i], NCZ_DATA_TYPE_INT, 0, NULL, &error));
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
      g_clear_error (&error);
      g_assert_null (ncz_group_add_group (root, bad[i], &error));
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
      g_clear_error (&error);
      g_assert_null (ncz_attribute_new_values (bad[i], NCZ_DATA_TYPE_DOUBLE, &one, 1, &error));
      g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
      g_clear_error (&error);
      g_assert_null (ncz_attribute_new_text (bad[i], "x", -1));
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (root)), ==, 0);
}

/* Many objects in one group: order, lookups, duplicates, removal */
#define MANY 20000
/* fewer dimensions (each child holds a weak pointer to its group, which
 * sanitizer builds make slow to add) and attributes (a removal moves the
 * later ones up) */
#define MANY_DIMS 5000
#define MANY_ATTRS 5000

static void
test_many (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  g_autoptr(GPtrArray) vars = NULL;
  g_autoptr(GPtrArray) attrs = NULL;
  g_autoptr(GPtrArray) dims = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dim;
  NczGroup *sub;
  char name[64];

  dim = ncz_group_add_dimension (root, "n", 2, FALSE, &error);
  g_assert_no_error (error);
  sub = ncz_group_add_group (root, "g", &error);
  g_assert_no_error (error);
  /* names in an order a sort would change: v19999 ... v0 */
  for (guint i = 0; i < MANY; i++)
    {
      g_snprintf (name, sizeof name, "v%u", MANY - 1 - i);
      g_assert_nonnull (ncz_group_add_variable (sub, name, NCZ_DATA_TYPE_DOUBLE, 1, &dim, &error));
      g_assert_no_error (error);
    }
  for (guint i = 0; i < MANY_DIMS; i++)
    {
      g_snprintf (name, sizeof name, "d%u", MANY_DIMS - 1 - i);
      g_assert_nonnull (ncz_group_add_dimension (sub, name, i + 1, FALSE, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (sub)), ==, MANY);
  vars = ncz_group_get_variables (sub);
  dims = ncz_group_get_dimensions (sub);
  g_assert_cmpuint (vars->len, ==, MANY);
  g_assert_cmpuint (dims->len, ==, MANY_DIMS);
  for (guint i = 0; i < MANY; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (sub), i);
      NczVariable *v = g_ptr_array_index (vars, i);
      g_snprintf (name, sizeof name, "v%u", MANY - 1 - i);
      g_assert_cmpstr (ncz_variable_get_name (v), ==, name);
      g_assert_true (item == G_OBJECT (v));
      g_assert_true (ncz_group_get_variable (sub, name) == v);
    }
  for (guint i = 0; i < MANY_DIMS; i++)
    {
      g_snprintf (name, sizeof name, "d%u", MANY_DIMS - 1 - i);
      g_assert_true (ncz_group_get_dimension (sub, name) == g_ptr_array_index (dims, i));
      g_assert_cmpuint (ncz_dimension_get_length (g_ptr_array_index (dims, i)), ==, i + 1);
    }
  g_assert_null (ncz_group_get_variable (sub, "v20000"));
  g_assert_null (ncz_group_add_variable (sub, "v12345", NCZ_DATA_TYPE_DOUBLE, 1, &dim, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_group (sub, "v0", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_dimension (sub, "d7", 1, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (sub)), ==, MANY);

  /* attributes of one variable: set, replace, remove, in order */
  {
    NczVariable *v = g_ptr_array_index (vars, 0);
    for (guint i = 0; i < MANY_ATTRS; i++)
      {
        g_autoptr(NczAttribute) a = NULL;
        g_snprintf (name, sizeof name, "a%u", MANY_ATTRS - 1 - i);
        a = double_attr (name, i);
        g_assert_true (ncz_variable_set_attribute (v, a, &error));
        g_assert_no_error (error);
      }
    /* remove every third, replace every fifth */
    for (guint i = 0; i < MANY_ATTRS; i += 3)
      {
        g_snprintf (name, sizeof name, "a%u", MANY_ATTRS - 1 - i);
        g_assert_true (ncz_variable_remove_attribute (v, name, &error));
        g_assert_no_error (error);
      }
    for (guint i = 0; i < MANY_ATTRS; i += 5)
      {
        g_autoptr(NczAttribute) a = NULL;
        g_snprintf (name, sizeof name, "a%u", MANY_ATTRS - 1 - i);
        a = double_attr (name, -(double) i);
        g_assert_true (ncz_variable_set_attribute (v, a, &error));
        g_assert_no_error (error);
      }
    attrs = ncz_variable_get_attributes (v);
    {
      guint k = 0;
      for (guint i = 0; i < MANY_ATTRS; i++)
        {
          NczAttribute *a;
          g_snprintf (name, sizeof name, "a%u", MANY_ATTRS - 1 - i);
          a = ncz_variable_get_attribute (v, name);
          if (i % 3 == 0 && i % 5 != 0)
            {
              g_assert_null (a);
              continue;
            }
          g_assert_nonnull (a);
          if (i % 3 == 0)
            {
              /* removed, then set again: at the end */
              g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==, -(double) i);
              continue;
            }
          /* kept, or replaced in place */
          g_assert_true (g_ptr_array_index (attrs, k) == a);
          g_assert_cmpfloat (ncz_attribute_get_double (a, 0, NULL), ==,
                             i % 5 == 0 ? -(double) i : (double) i);
          k++;
        }
      g_assert_cmpuint (attrs->len, ==, k + (MANY_ATTRS + 14) / 15);
    }
  }
}

/* Large JSON objects (a .zattrs with many attributes) keep their member
 * order through replacement and removal, and lookups stay right. */
static void
test_json_many (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczJson) o = ncz_json_new_object ();
  g_autoptr(GString) text = g_string_new ("{");
  g_autoptr(NczJson) parsed = NULL;
  char key[32];
  gint64 v = 0;

  for (guint i = 0; i < MANY; i++)
    {
      g_snprintf (key, sizeof key, "k%u", MANY - 1 - i);
      ncz_json_object_set (o, key, ncz_json_new_int64 (i));
      g_string_append_printf (text, "%s\"%s\": %u", i ? ", " : "", key, i);
    }
  g_string_append (text, ", \"k5\": -1}");
  /* replace in place, remove a few (the later ones move up) */
  ncz_json_object_set (o, "k7", ncz_json_new_int64 (-7));
  g_assert_true (ncz_json_object_remove (o, "k19999"));
  g_assert_true (ncz_json_object_remove (o, "k100"));
  g_assert_false (ncz_json_object_remove (o, "k100"));
  g_assert_cmpuint (ncz_json_object_get_size (o), ==, MANY - 2);
  for (guint i = 1; i < MANY; i++)
    {
      guint pos = i - 1 - (MANY - 1 - i < 100 ? 1 : 0);
      g_snprintf (key, sizeof key, "k%u", MANY - 1 - i);
      if (MANY - 1 - i == 100)
        {
          g_assert_null (ncz_json_object_get (o, key));
          continue;
        }
      g_assert_cmpstr (ncz_json_object_get_key (o, pos), ==, key);
      g_assert_true (ncz_json_get_int64 (ncz_json_object_get (o, key), &v));
      g_assert_cmpint (v, ==, MANY - 1 - i == 7 ? -7 : (gint64) i);
    }
  ncz_json_object_set (o, "k19999", ncz_json_new_int64 (1));
  g_assert_cmpstr (ncz_json_object_get_key (o, MANY - 2), ==, "k19999");
  g_assert_nonnull (ncz_json_object_get (o, "k19999"));

  /* a parsed object: a repeated key keeps its first place, last value */
  parsed = ncz_json_parse (text->str, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_json_object_get_size (parsed), ==, MANY);
  g_assert_cmpstr (ncz_json_object_get_key (parsed, MANY - 1 - 5), ==, "k5");
  g_assert_true (ncz_json_get_int64 (ncz_json_object_get (parsed, "k5"), &v));
  g_assert_cmpint (v, ==, -1);
  g_assert_true (ncz_json_get_int64 (ncz_json_object_get (parsed, "k12345"), &v));
  g_assert_cmpint (v, ==, MANY - 1 - 12345);
}

/* ---- names in a store ---- */

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
test_stored_nfc (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-names-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "names.zarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=nczarr,file", path);
  g_autoptr(NczAttribute) a = double_attr (ANG_NFD, 5.0);
  NczDataset *ds;
  NczGroup *root, *sub;
  NczDimension *dim;
  NczVariable *var;

  g_assert_no_error (error);
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, ANG_NFD, 2, FALSE, &error);
  g_assert_no_error (error);
  sub = ncz_group_add_group (root, ANG_NFD, &error);
  g_assert_no_error (error);
  var = ncz_group_add_variable (sub, CAFE_NFD, NCZ_DATA_TYPE_INT, 1, &dim, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_attribute (var, a, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);

  /* the keys on disk are NFC */
  {
    g_autofree char *nfc = g_build_filename (path, ANG_NFC, CAFE_NFC, ".zarray", NULL);
    g_autofree char *nfd = g_build_filename (path, ANG_NFD, NULL);
    g_autofree char *nfd2 = g_build_filename (path, ANG_NFC, CAFE_NFD, NULL);
    g_autofree char *zattrs = g_build_filename (path, ANG_NFC, CAFE_NFC, ".zattrs", NULL);
    g_autofree char *zgroup = g_build_filename (path, ".zgroup", NULL);
    g_autofree char *text = read_text (zattrs);
    g_autofree char *gtext = read_text (zgroup);

    g_assert_true (g_file_test (nfc, G_FILE_TEST_IS_REGULAR));
    g_assert_false (g_file_test (nfd, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (nfd2, G_FILE_TEST_EXISTS));
    g_assert_nonnull (strstr (text, "\"" ANG_NFC "\""));
    g_assert_null (strstr (text, ANG_NFD));
    /* the dimension, in the root's metadata */
    g_assert_nonnull (strstr (gtext, ANG_NFC));
    g_assert_null (strstr (gtext, ANG_NFD));
  }

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  var = ncz_group_lookup_variable (root, "/" ANG_NFD "/" CAFE_NFD);
  g_assert_nonnull (var);
  g_assert_true (var == ncz_group_lookup_variable (root, "/" ANG_NFC "/" CAFE_NFC));
  g_assert_cmpstr (ncz_variable_get_name (var), ==, CAFE_NFC);
  g_assert_nonnull (ncz_variable_get_attribute (var, ANG_NFD));
  g_assert_nonnull (ncz_group_get_dimension (root, ANG_NFD));
  g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (var, 0)), ==, ANG_NFC);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_object_unref (ds);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* A name stored in NFD by another program keeps its stored spelling (it
 * names the objects in the store), and is found by either spelling. */
static void
test_stored_nfd (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-names-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "nfd.zarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s#mode=zarr,file", path);
  g_autofree char *nfc = g_build_filename (path, CAFE_NFC, NULL);
  g_autofree char *nfd = g_build_filename (path, CAFE_NFD, NULL);
  const gint32 values[2] = { 7, 8 };
  gint32 back[2] = { 0, 0 };
  const guint64 start[1] = { 0 }, count[1] = { 2 };
  NczDataset *ds;
  NczGroup *root;
  NczDimension *dim;
  NczVariable *var;

  g_assert_no_error (error);
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  g_assert_no_error (error);
  var = ncz_group_add_variable (root, CAFE_NFC, NCZ_DATA_TYPE_INT, 1, &dim, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (var, start, 1, count, 1, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);

  /* as another program might have written it */
  g_assert_cmpint (g_rename (nfc, nfd), ==, 0);

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  var = ncz_group_get_variable (root, CAFE_NFD);
  g_assert_nonnull (var);
  g_assert_true (var == ncz_group_get_variable (root, CAFE_NFC));
  g_assert_true (var == ncz_group_lookup_variable (root, "/" CAFE_NFC));
  g_assert_cmpstr (ncz_variable_get_name (var), ==, CAFE_NFD);
  g_assert_true (ncz_variable_read (var, start, 1, count, 1, NULL, 0, back, sizeof back, NULL,
                                    &error));
  g_assert_no_error (error);
  g_assert_cmpint (back[0], ==, 7);
  g_assert_cmpint (back[1], ==, 8);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_object_unref (ds);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  filter_test_format_register ();
  g_test_add_func ("/names/define-nfd", test_define_nfd);
  g_test_add_func ("/names/duplicates", test_duplicates);
  g_test_add_func ("/names/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/names/many", test_many);
  g_test_add_func ("/names/json-many", test_json_many);
  g_test_add_func ("/names/stored-nfc", test_stored_nfc);
  g_test_add_func ("/names/stored-nfd", test_stored_nfd);
  return g_test_run ();
}
