/* Tests of what bindings see of the data model: GObject properties and
 * their notifications, the live list models, attribute values as
 * strings, GVariants and arrays, GErrors for misuse, and the
 * asynchronous create, write, sync and close. Datasets are NCZarr in a
 * scratch directory, through the plugins of the build. */
#include <string.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

static char *scratch;

static char *
dataset_url (const char *name)
{
  return g_strdup_printf ("file://%s/%s#mode=nczarr,file", scratch, name);
}

static NczDataset *
create_dataset (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = dataset_url (name);
  NczDataset *ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

/* Counts notifications of one property */
static void
count_notify (GObject *object, GParamSpec *pspec, gpointer data)
{
  (*(guint *) data)++;
}

typedef struct {
  guint n;
  guint position, removed, added;
} ItemsChanged;

static void
on_items_changed (GListModel *model, guint position, guint removed, guint added, gpointer data)
{
  ItemsChanged *c = data;
  c->n++;
  c->position = position;
  c->removed = removed;
  c->added = added;
}

static void
test_dataset_props (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("props.file");
  g_autofree char *url = NULL;
  g_autofree char *format = NULL;
  g_autoptr(NczGroup) root = NULL;
  gboolean writable = FALSE, closed = TRUE;
  guint n_closed = 0, n_writable = 0, n_var_writable = 0;
  g_autofree char *expect = dataset_url ("props.file");
  NczDimension *x;
  NczVariable *v;

  g_object_get (ds, "url", &url, "format-name", &format, "root-group", &root,
                "writable", &writable, "closed", &closed, NULL);
  g_assert_cmpstr (url, ==, expect);
  g_assert_cmpstr (format, ==, "nczarr");
  g_assert_true (root == ncz_dataset_get_root_group (ds));
  g_assert_true (writable);
  g_assert_false (closed);

  x = ncz_group_add_dimension (root, "x", 2, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_object_get (v, "writable", &writable, NULL);
  g_assert_true (writable);

  g_signal_connect (ds, "notify::closed", G_CALLBACK (count_notify), &n_closed);
  g_signal_connect (ds, "notify::writable", G_CALLBACK (count_notify), &n_writable);
  g_signal_connect (v, "notify::writable", G_CALLBACK (count_notify), &n_var_writable);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_closed, ==, 1);
  g_assert_cmpuint (n_writable, ==, 1);
  g_assert_cmpuint (n_var_writable, ==, 1);
  g_object_get (ds, "writable", &writable, "closed", &closed, NULL);
  g_assert_false (writable);
  g_assert_true (closed);
  g_object_get (v, "writable", &writable, NULL);
  g_assert_false (writable);
  /* closing again changes nothing and says nothing */
  g_assert_true (ncz_dataset_close (ds, NULL, NULL));
  g_assert_cmpuint (n_closed, ==, 1);
}

static void
test_variable_props (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("var.file");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  NczVariable *v;
  g_autofree char *name = NULL, *full = NULL, *shape_text = NULL, *filters = NULL;
  g_autoptr(NczGroup) group = NULL;
  g_autoptr(GVariant) shape = NULL, chunks = NULL, fill = NULL;
  g_autoptr(GListModel) dim_list = NULL;
  g_autoptr(NczDimension) first = NULL;
  NczDataType type = NCZ_DATA_TYPE_NONE;
  guint64 n_elements = 0;
  guint n_fill = 0, n_chunks = 0;
  const guint64 chunk_sizes[] = { 2, 5 };
  gint16 fv = -7;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fv, sizeof fv);
  NczGroup *sub;

  dims[0] = ncz_group_add_dimension (root, "y", 4, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "x", 10, FALSE, &error);
  g_assert_no_error (error);
  sub = ncz_group_add_group (root, "g", &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (sub, "t", NCZ_DATA_TYPE_SHORT, 2, dims, &error);
  g_assert_no_error (error);

  g_object_get (v, "name", &name, "full-name", &full, "group", &group, "data-type", &type,
                "shape", &shape, "shape-text", &shape_text, "dimensions", &dim_list,
                "n-elements", &n_elements, "filters", &filters, NULL);
  g_assert_cmpstr (name, ==, "t");
  g_assert_cmpstr (full, ==, "/g/t");
  g_assert_true (group == sub);
  g_assert_cmpint (type, ==, NCZ_DATA_TYPE_SHORT);
  g_assert_cmpstr (g_variant_get_type_string (shape), ==, "at");
  g_assert_cmpuint (g_variant_n_children (shape), ==, 2);
  {
    guint64 y, x;
    g_variant_get_child (shape, 0, "t", &y);
    g_variant_get_child (shape, 1, "t", &x);
    g_assert_cmpuint (y, ==, 4);
    g_assert_cmpuint (x, ==, 10);
  }
  g_assert_cmpstr (shape_text, ==, "(4, 10)");
  g_assert_cmpuint (n_elements, ==, 40);
  g_assert_cmpstr (filters, ==, "[]");
  g_assert_true (g_list_model_get_item_type (dim_list) == NCZ_TYPE_DIMENSION);
  g_assert_cmpuint (g_list_model_get_n_items (dim_list), ==, 2);
  first = g_list_model_get_item (dim_list, 0);
  g_assert_true (first == dims[0]);
  g_assert_null (g_list_model_get_item (dim_list, 2));

  /* chunk sizes: set, notified; contiguous gives none */
  g_signal_connect (v, "notify::chunk-sizes", G_CALLBACK (count_notify), &n_chunks);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunk_sizes, 2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_chunks, ==, 1);
  g_object_get (v, "chunk-sizes", &chunks, NULL);
  g_assert_nonnull (chunks);
  {
    gsize n = 0;
    const guint64 *c = g_variant_get_fixed_array (chunks, &n, sizeof (guint64));
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (c[0], ==, 2);
    g_assert_cmpuint (c[1], ==, 5);
  }
  g_clear_pointer (&chunks, g_variant_unref);
  g_assert_true (ncz_variable_set_contiguous (v, TRUE, &error));
  g_assert_cmpuint (n_chunks, ==, 2);
  g_object_get (v, "chunk-sizes", &chunks, NULL);
  g_assert_null (chunks);

  /* fill value: the default, then a set one, notified */
  g_object_get (v, "fill-value", &fill, NULL);
  g_assert_cmpstr (g_variant_get_type_string (fill), ==, "n");
  g_assert_cmpint (g_variant_get_int16 (fill), ==, -32767);
  g_clear_pointer (&fill, g_variant_unref);
  g_signal_connect (v, "notify::fill-value", G_CALLBACK (count_notify), &n_fill);
  g_assert_true (ncz_variable_set_fill_value (v, fill_bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_fill, ==, 1);
  g_object_get (v, "fill-value", &fill, NULL);
  g_assert_cmpint (g_variant_get_int16 (fill), ==, -7);
  g_clear_pointer (&fill, g_variant_unref);
  g_assert_true (ncz_variable_set_no_fill (v, TRUE, &error));
  g_assert_cmpuint (n_fill, ==, 2);
  g_object_get (v, "fill-value", &fill, NULL);
  g_assert_null (fill);

  /* a filter added is notified and shown */
  {
    guint n_filters = 0;
    g_autofree char *json = NULL;

    g_signal_connect (v, "notify::filters", G_CALLBACK (count_notify), &n_filters);
    g_assert_true (ncz_variable_set_shuffle (v, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (n_filters, ==, 1);
    g_object_get (v, "filters", &json, NULL);
    g_assert_nonnull (strstr (json, "shuffle"));
  }

  ncz_dataset_discard (ds);
}

static void
test_dimension_growth (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("grow.file");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  NczVariable *v, *other;
  guint n_length = 0, n_shape = 0, n_shape_text = 0, n_other = 0, n_x = 0;
  gint32 values[6] = { 1, 2, 3, 4, 5, 6 };
  const guint64 start[] = { 0, 0 }, count[] = { 2, 3 };
  guint64 length = 0;
  gboolean unlimited = FALSE;
  g_autofree char *dname = NULL, *dfull = NULL, *shape_text = NULL;
  g_autoptr(NczGroup) dgroup = NULL;

  dims[0] = ncz_group_add_dimension (root, "time", 0, TRUE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, dims, &error);
  g_assert_no_error (error);
  other = ncz_group_add_variable (root, "o", NCZ_DATA_TYPE_INT, 1, &dims[1], &error);
  g_assert_no_error (error);

  g_object_get (dims[0], "name", &dname, "full-name", &dfull, "group", &dgroup,
                "length", &length, "unlimited", &unlimited, NULL);
  g_assert_cmpstr (dname, ==, "time");
  g_assert_cmpstr (dfull, ==, "/time");
  g_assert_true (dgroup == root);
  g_assert_cmpuint (length, ==, 0);
  g_assert_true (unlimited);

  g_signal_connect (dims[0], "notify::length", G_CALLBACK (count_notify), &n_length);
  g_signal_connect (dims[1], "notify::length", G_CALLBACK (count_notify), &n_x);
  g_signal_connect (v, "notify::shape", G_CALLBACK (count_notify), &n_shape);
  g_signal_connect (v, "notify::shape-text", G_CALLBACK (count_notify), &n_shape_text);
  g_signal_connect (other, "notify::shape", G_CALLBACK (count_notify), &n_other);

  /* a write beyond the end grows the dimension: both say so */
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_length, ==, 1);
  g_assert_cmpuint (n_shape, ==, 1);
  g_assert_cmpuint (n_shape_text, ==, 1);
  g_assert_cmpuint (n_other, ==, 0);
  g_assert_cmpuint (n_x, ==, 0);
  g_object_get (v, "shape-text", &shape_text, NULL);
  g_assert_cmpstr (shape_text, ==, "(2, 3)");

  /* writing inside the length changes nothing */
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, values, sizeof values,
                                     NULL, &error));
  g_assert_cmpuint (n_length, ==, 1);

  /* setting the length notifies; setting the same length does not */
  g_assert_true (ncz_dimension_set_length (dims[0], 5, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_length, ==, 2);
  g_assert_cmpuint (n_shape, ==, 2);
  g_assert_true (ncz_dimension_set_length (dims[0], 5, &error));
  g_assert_cmpuint (n_length, ==, 2);
  g_object_get (dims[0], "length", &length, NULL);
  g_assert_cmpuint (length, ==, 5);

  ncz_dataset_discard (ds);
}

/* A refresh that finds a longer dimension and new attributes tells the
 * reader's objects */
static void
test_refresh_notifies (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = dataset_url ("refresh.file");
  g_autoptr(NczDataset) writer = create_dataset ("refresh.file");
  g_autoptr(NczDataset) reader = NULL, again = NULL;
  g_autoptr(NczAttribute) units = ncz_attribute_new_utf8 ("units", "K", NULL);
  g_autoptr(GListModel) attrs = NULL;
  NczDimension *t;
  NczVariable *v;
  gint32 values[4] = { 1, 2, 3, 4 };
  const guint64 start0[] = { 0 }, start2[] = { 2 }, count[] = { 2 };
  guint n_length = 0, n_shape = 0;
  ItemsChanged ca = { 0 };

  t = ncz_group_add_dimension (ncz_dataset_get_root_group (writer), "t", 0, TRUE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (writer), "v", NCZ_DATA_TYPE_INT, 1,
                              &t, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (v, start0, 1, count, 1, NULL, 0, values, 8, NULL, &error));
  g_assert_true (ncz_dataset_close (writer, NULL, &error));
  g_assert_no_error (error);

  reader = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  t = ncz_group_get_dimension (ncz_dataset_get_root_group (reader), "t");
  v = ncz_group_get_variable (ncz_dataset_get_root_group (reader), "v");
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 2);
  g_signal_connect (t, "notify::length", G_CALLBACK (count_notify), &n_length);
  g_signal_connect (v, "notify::shape", G_CALLBACK (count_notify), &n_shape);
  attrs = ncz_variable_get_attribute_list (v);
  g_signal_connect (attrs, "items-changed", G_CALLBACK (on_items_changed), &ca);

  /* another writer appends two values and an attribute */
  again = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_no_error (error);
  {
    NczVariable *w = ncz_group_get_variable (ncz_dataset_get_root_group (again), "v");
    g_assert_true (ncz_variable_write (w, start2, 1, count, 1, NULL, 0, values + 2, 8, NULL,
                                       &error));
    g_assert_true (ncz_variable_set_attribute (w, units, &error));
    g_assert_true (ncz_dataset_close (again, NULL, &error));
    g_assert_no_error (error);
  }

  g_assert_true (ncz_dataset_refresh (reader, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 4);
  g_assert_cmpuint (n_length, ==, 1);
  g_assert_cmpuint (n_shape, ==, 1);
  g_assert_cmpuint (ca.n, >=, 1);
  g_assert_nonnull (ncz_variable_get_attribute (v, "units"));
  {
    g_autoptr(GPtrArray) all = ncz_variable_get_attributes (v);
    g_assert_cmpuint (g_list_model_get_n_items (attrs), ==, all->len);
  }
}

/* Writers on several threads grow one unlimited dimension: the length
 * ends as the longest write, notified from the writers' threads at most
 * once per growth, while the main thread reads the properties. */
typedef struct {
  NczVariable *v;
  guint row;
} RowWrite;

static volatile gint n_threaded_notify;

static void
count_notify_atomic (GObject *object, GParamSpec *pspec, gpointer data)
{
  g_atomic_int_inc (&n_threaded_notify);
}

static gpointer
write_row (gpointer data)
{
  RowWrite *w = data;
  g_autoptr(GError) error = NULL;
  const guint64 start[] = { w->row, 0 }, count[] = { 1, 4 };
  gint32 values[4] = { (gint32) w->row, 1, 2, 3 };

  if (!ncz_variable_write (w->v, start, 2, count, 2, NULL, 0, values, sizeof values, NULL,
                           &error))
    g_error ("row %u: %s", w->row, error->message);
  return NULL;
}

static void
test_threaded_growth (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("threads.file");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  NczVariable *v;
  const guint64 chunks[] = { 1, 4 };
  enum { N_THREADS = 8 };
  GThread *threads[N_THREADS];
  RowWrite rows[N_THREADS];
  guint64 length = 0;

  dims[0] = ncz_group_add_dimension (root, "t", 0, TRUE, &error);
  dims[1] = ncz_group_add_dimension (root, "x", 4, FALSE, &error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_signal_connect (dims[0], "notify::length", G_CALLBACK (count_notify_atomic), NULL);
  g_atomic_int_set (&n_threaded_notify, 0);

  for (guint i = 0; i < N_THREADS; i++)
    {
      rows[i].v = v;
      rows[i].row = i;
      threads[i] = g_thread_new ("writer", write_row, &rows[i]);
    }
  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(GVariant) shape = NULL;
      g_object_get (v, "shape", &shape, NULL);
      g_assert_cmpuint (g_variant_n_children (shape), ==, 2);
    }
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  g_object_get (dims[0], "length", &length, NULL);
  g_assert_cmpuint (length, ==, N_THREADS);
  g_assert_cmpint (g_atomic_int_get (&n_threaded_notify), >=, 1);
  g_assert_cmpint (g_atomic_int_get (&n_threaded_notify), <=, N_THREADS);
  ncz_dataset_discard (ds);
}

static void
test_attribute_props (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczAttribute) text = ncz_attribute_new_utf8 ("units", "K", &error);
  g_autoptr(NczAttribute) nums = NULL, strs = NULL, back = NULL, i16 = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autofree char *s = NULL, *display = NULL, *name = NULL;
  g_autofree double *doubles = NULL;
  g_autofree gint64 *ints = NULL;
  g_autofree guint64 *uints = NULL;
  const char *names[] = { "a", "b\"c", NULL };
  const gint32 packed[] = { -1, 2, 300 };
  NczDataType type = NCZ_DATA_TYPE_NONE;
  guint64 length = 0;
  gsize n = 0;

  g_assert_no_error (error);
  s = ncz_attribute_dup_text (text);
  g_assert_cmpstr (s, ==, "K");
  g_clear_pointer (&s, g_free);
  g_object_get (text, "name", &name, "data-type", &type, "length", &length, "value", &value,
                "text", &s, "display-text", &display, NULL);
  g_assert_cmpstr (name, ==, "units");
  g_assert_cmpint (type, ==, NCZ_DATA_TYPE_CHAR);
  g_assert_cmpuint (length, ==, 1);
  g_assert_cmpstr (g_variant_get_type_string (value), ==, "s");
  g_assert_cmpstr (g_variant_get_string (value, NULL), ==, "K");
  g_assert_cmpstr (s, ==, "K");
  g_assert_cmpstr (display, ==, "K");
  g_clear_pointer (&value, g_variant_unref);
  g_clear_pointer (&display, g_free);
  g_clear_pointer (&s, g_free);

  /* a bad name is an error, not a critical */
  g_assert_null (ncz_attribute_new_utf8 ("", "x", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  nums = ncz_attribute_new_values ("n", NCZ_DATA_TYPE_INT, packed, 3, &error);
  g_assert_no_error (error);
  value = ncz_attribute_get_value (nums);
  g_assert_cmpstr (g_variant_get_type_string (value), ==, "ai");
  g_assert_cmpuint (g_variant_n_children (value), ==, 3);
  {
    gint32 third;
    g_variant_get_child (value, 2, "i", &third);
    g_assert_cmpint (third, ==, 300);
  }
  back = ncz_attribute_new_from_variant ("n", g_variant_ref (value), &error);
  g_assert_no_error (error);
  g_assert_true (ncz_attribute_equal (nums, back));
  g_clear_pointer (&value, g_variant_unref);
  display = ncz_attribute_dup_display_text (nums);
  g_assert_cmpstr (display, ==, "-1, 2, 300");
  g_clear_pointer (&display, g_free);
  g_assert_null (ncz_attribute_dup_text (nums));

  doubles = ncz_attribute_get_double_values (nums, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (doubles[0], ==, -1.0);
  ints = ncz_attribute_get_int64_values (nums, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ints[2], ==, 300);
  /* -1 is no unsigned number */
  uints = ncz_attribute_get_uint64_values (nums, &n, &error);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_null (uints);
  g_assert_cmpuint (n, ==, 0);
  g_clear_error (&error);
  g_assert_null (ncz_attribute_get_double_values (text, &n, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* an index beyond the values is an error */
  g_assert_cmpint (ncz_attribute_get_int64 (nums, 3, &error), ==, 0);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'n'"));
  g_clear_error (&error);

  strs = ncz_attribute_new_strings ("s", names, -1);
  value = ncz_attribute_get_value (strs);
  g_assert_cmpstr (g_variant_get_type_string (value), ==, "as");
  g_clear_pointer (&back, g_object_unref);
  back = ncz_attribute_new_from_variant ("s", g_variant_ref (value), &error);
  g_assert_no_error (error);
  g_assert_true (ncz_attribute_equal (strs, back));
  g_clear_pointer (&value, g_variant_unref);
  display = ncz_attribute_dup_display_text (strs);
  g_assert_cmpstr (display, ==, "\"a\", \"b\\\"c\"");
  g_clear_pointer (&display, g_free);

  /* a floating scalar is consumed; its type picks the attribute's */
  i16 = ncz_attribute_new_from_variant ("h", g_variant_new_int16 (-5), &error);
  g_assert_no_error (error);
  g_assert_cmpint (ncz_attribute_get_value_type (i16), ==, NCZ_DATA_TYPE_SHORT);
  g_assert_cmpint (ncz_attribute_get_int64 (i16, 0, NULL), ==, -5);
  g_clear_pointer (&back, g_object_unref);
  back = ncz_attribute_new_from_variant ("t", g_variant_new_string ("K"), &error);
  g_assert_no_error (error);
  g_assert_cmpint (ncz_attribute_get_value_type (back), ==, NCZ_DATA_TYPE_CHAR);
  g_clear_pointer (&back, g_object_unref);
  g_assert_null (ncz_attribute_new_from_variant ("b", g_variant_new_boolean (TRUE), &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
}

static void
test_list_models (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("lists.file");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  g_autoptr(GListModel) attrs = NULL, vattrs = NULL, dims = NULL, vars = NULL, groups = NULL;
  g_autoptr(GListModel) again = NULL;
  g_autoptr(NczAttribute) a1 = ncz_attribute_new_utf8 ("a1", "one", NULL);
  g_autoptr(NczAttribute) a2 = ncz_attribute_new_utf8 ("a2", "two", NULL);
  g_autoptr(NczAttribute) a1b = ncz_attribute_new_utf8 ("a1", "uno", NULL);
  g_autoptr(NczAttribute) got = NULL;
  ItemsChanged ca = { 0 }, cv = { 0 }, cd = { 0 }, cvar = { 0 }, cg = { 0 }, croot = { 0 };
  NczDimension *x;
  NczVariable *v;
  gint16 fv = 3;
  g_autoptr(GBytes) fill = g_bytes_new (&fv, sizeof fv);

  attrs = ncz_group_get_attribute_list (root);
  g_object_get (root, "attributes", &again, "dimensions", &dims, "variables", &vars,
                "groups", &groups, NULL);
  /* one model per list while it is held */
  g_assert_true (again == attrs);
  g_assert_true (g_list_model_get_item_type (attrs) == NCZ_TYPE_ATTRIBUTE);
  g_assert_true (g_list_model_get_item_type (vars) == NCZ_TYPE_VARIABLE);
  g_assert_true (g_list_model_get_item_type (groups) == NCZ_TYPE_GROUP);
  g_signal_connect (attrs, "items-changed", G_CALLBACK (on_items_changed), &ca);
  g_signal_connect (dims, "items-changed", G_CALLBACK (on_items_changed), &cd);
  g_signal_connect (vars, "items-changed", G_CALLBACK (on_items_changed), &cvar);
  g_signal_connect (groups, "items-changed", G_CALLBACK (on_items_changed), &cg);
  g_signal_connect (root, "items-changed", G_CALLBACK (on_items_changed), &croot);

  /* attributes: added, added, replaced in place, removed */
  g_assert_true (ncz_group_set_attribute (root, a1, &error));
  g_assert_true (ncz_group_set_attribute (root, a2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ca.n, ==, 2);
  g_assert_cmpuint (ca.position, ==, 1);
  g_assert_cmpuint (ca.removed, ==, 0);
  g_assert_cmpuint (ca.added, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (attrs), ==, 2);
  g_assert_true (ncz_group_set_attribute (root, a1b, &error));
  g_assert_cmpuint (ca.n, ==, 3);
  g_assert_cmpuint (ca.position, ==, 0);
  g_assert_cmpuint (ca.removed, ==, 1);
  g_assert_cmpuint (ca.added, ==, 1);
  got = g_list_model_get_item (attrs, 0);
  g_assert_true (got == a1b);
  g_clear_object (&got);
  g_assert_true (ncz_group_remove_attribute (root, "a1", &error));
  g_assert_cmpuint (ca.n, ==, 4);
  g_assert_cmpuint (ca.position, ==, 0);
  g_assert_cmpuint (ca.removed, ==, 1);
  g_assert_cmpuint (ca.added, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (attrs), ==, 1);
  got = g_list_model_get_item (attrs, 0);
  g_assert_true (got == a2);
  g_clear_object (&got);

  /* dimensions, variables and groups */
  x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cd.n, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (dims), ==, 1);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_SHORT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cvar.n, ==, 1);
  g_assert_cmpuint (cvar.position, ==, 0);
  g_assert_cmpuint (cvar.added, ==, 1);
  g_assert_nonnull (ncz_group_add_group (root, "sub", &error));
  g_assert_cmpuint (cg.n, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (groups), ==, 1);
  /* the group itself is still the list of its subgroups, then variables */
  g_assert_cmpuint (croot.n, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (root)), ==, 2);

  /* a variable's attributes, the fill value among them */
  vattrs = ncz_variable_get_attribute_list (v);
  g_signal_connect (vattrs, "items-changed", G_CALLBACK (on_items_changed), &cv);
  g_assert_true (ncz_variable_set_attribute (v, a2, &error));
  g_assert_cmpuint (cv.n, ==, 1);
  g_assert_true (ncz_variable_set_fill_value (v, fill, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cv.n, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (vattrs), ==, 2);
  g_assert_true (ncz_variable_remove_attribute (v, "_FillValue", &error));
  g_assert_cmpuint (cv.n, ==, 3);
  g_assert_cmpuint (cv.removed, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (vattrs), ==, 1);

  ncz_dataset_discard (ds);
}

static void
test_misuse_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = create_dataset ("misuse.file");
  NczGroup *root = ncz_dataset_get_root_group (ds);
  g_autoptr(NczAttribute) a = ncz_attribute_new_utf8 ("a", "b", NULL);
  NczDimension *x;
  NczVariable *v;
  gint32 values[3] = { 1, 2, 3 };
  const guint64 start[] = { 0 }, count[] = { 3 };
  gint32 out[3];

  x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);

  /* an index beyond the rank: NULL, with an error naming the variable */
  g_assert_true (ncz_variable_get_dimension_at (v, 0, &error) == x);
  g_assert_null (ncz_variable_get_dimension (v, 1));
  g_assert_null (ncz_variable_get_dimension_at (v, 1, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  /* after the close: errors naming the variable or group */
  g_assert_false (ncz_variable_set_attribute (v, a, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_remove_attribute (v, "a", &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_clear_error (&error);
  g_assert_false (ncz_group_set_attribute (root, a, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_assert_nonnull (strstr (error->message, "group '/'"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_write (v, start, 1, count, 1, NULL, 0, values, sizeof values,
                                      NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_clear_error (&error);
  g_assert_false (ncz_variable_read (v, start, 1, count, 1, NULL, 0, out, sizeof out,
                                     NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_clear_error (&error);
  g_assert_null (ncz_group_add_dimension (root, "y", 1, FALSE, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
}

/* ---- asynchronous calls, each finished from a main loop ---- */

typedef struct {
  GMainLoop *loop;
  GAsyncResult *result;
} AsyncWait;

static void
got_result (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncWait *w = data;
  w->result = g_object_ref (result);
  g_main_loop_quit (w->loop);
}

static GAsyncResult *
wait_for (AsyncWait *w)
{
  g_main_loop_run (w->loop);
  g_assert_nonnull (w->result);
  return w->result;
}

static void
test_async (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *url = dataset_url ("async.file");
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) reopened = NULL;
  g_autoptr(GBytes) data = NULL, back = NULL;
  AsyncWait w = { loop, NULL };
  const gint32 values[4] = { 10, 20, 30, 40 };
  const guint64 start[] = { 0 }, count[] = { 4 };
  guint n_length = 0;
  NczDimension *t;
  NczVariable *v;

  ncz_dataset_create_async (url, NCZ_CREATE_DEFAULT, NULL, got_result, &w);
  ds = ncz_dataset_create_finish (wait_for (&w), &error);
  g_clear_object (&w.result);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_is_writable (ds));

  t = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "t", 0, TRUE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &t,
                              &error);
  g_assert_no_error (error);
  g_signal_connect (t, "notify::length", G_CALLBACK (count_notify), &n_length);

  data = g_bytes_new (values, sizeof values);
  ncz_variable_write_bytes_async (v, start, 1, count, 1, NULL, 0, data, NULL, got_result, &w);
  g_assert_true (ncz_variable_write_bytes_finish (v, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 4);
  g_assert_cmpuint (n_length, ==, 1);

  /* a wrong size is an error from the finish */
  {
    g_autoptr(GBytes) short_data = g_bytes_new (values, 3);
    ncz_variable_write_bytes_async (v, start, 1, count, 1, NULL, 0, short_data, NULL,
                                    got_result, &w);
    g_assert_false (ncz_variable_write_bytes_finish (v, wait_for (&w), &error));
    g_clear_object (&w.result);
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_clear_error (&error);
  }

  ncz_dataset_sync_async (ds, NULL, got_result, &w);
  g_assert_true (ncz_dataset_sync_finish (ds, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_no_error (error);

  ncz_dataset_close_async (ds, NULL, got_result, &w);
  g_assert_true (ncz_dataset_close_finish (ds, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_is_closed (ds));

  /* what was written asynchronously is there */
  reopened = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (reopened), "v");
  g_assert_nonnull (v);
  back = ncz_variable_read_bytes (v, start, 1, count, 1, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (back, data));
}

static void
test_async_cancelled (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autofree char *url = dataset_url ("cancel.file");
  g_autofree char *never = dataset_url ("never.file");
  g_autofree char *never_path = g_build_filename (scratch, "never.file", NULL);
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GBytes) data = NULL;
  AsyncWait w = { loop, NULL };
  const gint32 values[2] = { 1, 2 };
  const guint64 start[] = { 0 }, count[] = { 2 };
  NczDimension *t;
  NczVariable *v;

  g_cancellable_cancel (cancelled);

  /* a creation cancelled before it starts creates nothing */
  ncz_dataset_create_async (never, NCZ_CREATE_DEFAULT, cancelled, got_result, &w);
  g_assert_null (ncz_dataset_create_finish (wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_false (g_file_test (never_path, G_FILE_TEST_EXISTS));

  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  t = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "t", 0, TRUE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_INT, 1, &t,
                              &error);
  g_assert_no_error (error);

  /* a write cancelled before it starts writes nothing */
  data = g_bytes_new (values, sizeof values);
  ncz_variable_write_bytes_async (v, start, 1, count, 1, NULL, 0, data, cancelled,
                                  got_result, &w);
  g_assert_false (ncz_variable_write_bytes_finish (v, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpuint (ncz_dimension_get_length (t), ==, 0);

  ncz_dataset_sync_async (ds, cancelled, got_result, &w);
  g_assert_false (ncz_dataset_sync_finish (ds, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* a close cancelled before it starts leaves the dataset open */
  ncz_dataset_close_async (ds, cancelled, got_result, &w);
  g_assert_false (ncz_dataset_close_finish (ds, wait_for (&w), &error));
  g_clear_object (&w.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_false (ncz_dataset_is_closed (ds));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  scratch = g_dir_make_tmp ("ncz-model-props-XXXXXX", NULL);
  g_assert_nonnull (scratch);

  g_test_add_func ("/model-props/dataset", test_dataset_props);
  g_test_add_func ("/model-props/variable", test_variable_props);
  g_test_add_func ("/model-props/dimension-growth", test_dimension_growth);
  g_test_add_func ("/model-props/refresh-notifies", test_refresh_notifies);
  g_test_add_func ("/model-props/threaded-growth", test_threaded_growth);
  g_test_add_func ("/model-props/attribute", test_attribute_props);
  g_test_add_func ("/model-props/list-models", test_list_models);
  g_test_add_func ("/model-props/misuse-errors", test_misuse_errors);
  g_test_add_func ("/model-props/async", test_async);
  g_test_add_func ("/model-props/async-cancelled", test_async_cancelled);
  ret = g_test_run ();
  remove_tree (scratch);
  g_free (scratch);
  return ret;
}
