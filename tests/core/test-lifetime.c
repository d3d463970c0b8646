/* Lifetime of the model's objects: an object obtained from a dataset
 * keeps working while the caller holds it, the dataset is closed when
 * nobody holds it or any of its objects, and nothing is left behind
 * (the AddressSanitizer build checks for leaks). Also the hyperslab
 * calls' per-array lengths. */
#include <string.h>

#include <ncz/ncz.h>
#include "test-format.h"

/* A dataset with /x(6), /v(x) int = 0..5 and /g/w(x) int = 10..15. */
static NczDataset *
make_dataset (NczMemoryStore **store)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = filter_test_dataset_new (store);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *x = ncz_group_add_dimension (root, "x", 6, FALSE, &error);
  NczVariable *v, *w;
  NczGroup *g;
  guint64 start = 0, count = 6;
  gint32 vals[6] = { 0, 1, 2, 3, 4, 5 }, wvals[6] = { 10, 11, 12, 13, 14, 15 };

  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g = ncz_group_add_group (root, "g", &error);
  g_assert_no_error (error);
  w = ncz_group_add_variable (g, "w", NCZ_DATA_TYPE_INT, 1, &x, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, vals, sizeof vals,
                                     NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (w, &start, 1, &count, 1, NULL, 0, wvals, sizeof wvals,
                                     NULL, &error));
  g_assert_no_error (error);
  return ds;
}

static void
assert_reads (NczVariable *v, gint32 first)
{
  g_autoptr(GError) error = NULL;
  guint64 start = 1, count = 3;
  g_autoptr(GBytes) b = ncz_variable_read_bytes (v, &start, 1, &count, 1, NULL, 0, NULL, &error);
  const gint32 *got;

  g_assert_no_error (error);
  g_assert_nonnull (b);
  g_assert_cmpuint (g_bytes_get_size (b), ==, 3 * sizeof (gint32));
  got = g_bytes_get_data (b, NULL);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (got[i], ==, first + 1 + i);
}

/* ncz_dataset_open(u) -> get_root_group -> get_variable -> read, with
 * nobody holding the dataset or the group: the variable keeps them. */
static void
test_chained (void)
{
  NczDataset *ds = make_dataset (NULL);
  NczGroup *root = g_object_ref (ncz_dataset_get_root_group (ds));
  NczVariable *v;
  GWeakRef wds, wroot, wv, wx;
  guint syncs = filter_test_format_n_syncs ();

  g_weak_ref_init (&wds, ds);
  g_weak_ref_init (&wroot, root);
  g_object_unref (ds);                       /* the group keeps the dataset */
  {
    g_autoptr(NczDataset) alive = g_weak_ref_get (&wds);
    g_assert_nonnull (alive);
    g_assert_true (ncz_group_get_dataset (root) == alive);
    g_assert_true (ncz_dataset_is_writable (alive));
  }
  v = g_object_ref (ncz_group_get_variable (root, "v"));
  g_object_unref (root);                     /* the variable keeps the group */
  g_weak_ref_init (&wv, v);
  g_weak_ref_init (&wx, ncz_variable_get_dimension (v, 0));
  {
    g_autoptr(NczGroup) r = g_weak_ref_get (&wroot);
    g_autofree char *fqn = ncz_variable_get_full_name (v);
    g_assert_nonnull (r);
    g_assert_true (ncz_variable_get_group (v) == r);
    g_assert_cmpstr (fqn, ==, "/v");
    g_assert_cmpstr (ncz_dimension_get_name (ncz_variable_get_dimension (v, 0)), ==, "x");
  }
  assert_reads (v, 0);
  /* nobody closed the dataset: the last holder's release does */
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs);
  g_object_unref (v);
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs + 1);
  g_assert_null (g_weak_ref_get (&wds));
  g_assert_null (g_weak_ref_get (&wroot));
  g_assert_null (g_weak_ref_get (&wv));
  g_assert_null (g_weak_ref_get (&wx));
  g_weak_ref_clear (&wds);
  g_weak_ref_clear (&wroot);
  g_weak_ref_clear (&wv);
  g_weak_ref_clear (&wx);
}

/* A subgroup held alone keeps its parent, its dataset and its siblings. */
static void
test_subgroup_held (void)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = make_dataset (NULL);
  NczGroup *g = g_object_ref (ncz_group_get_group (ncz_dataset_get_root_group (ds), "g"));
  GWeakRef wds;
  NczGroup *parent;
  g_autofree char *full = NULL;

  g_weak_ref_init (&wds, ds);
  g_object_unref (ds);
  parent = ncz_group_get_parent (g);
  g_assert_nonnull (parent);
  g_assert_cmpstr (ncz_group_get_name (parent), ==, "/");
  assert_reads (ncz_group_get_variable (g, "w"), 10);
  assert_reads (ncz_group_get_variable (parent, "v"), 0);
  full = ncz_variable_get_full_name (ncz_group_get_variable (g, "w"));
  g_assert_cmpstr (full, ==, "/g/w");
  /* still writable, and definitions still work */
  g_assert_nonnull (ncz_group_add_dimension (g, "y", 2, FALSE, &error));
  g_assert_no_error (error);
  g_object_unref (g);
  g_assert_null (g_weak_ref_get (&wds));
  g_weak_ref_clear (&wds);
}

/* Everything dropped without a close: the dataset is closed once and
 * freed with every object of it. */
static void
test_dropped_without_close (void)
{
  g_autoptr(NczMemoryStore) store = NULL;
  NczDataset *ds = make_dataset (&store);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  GPtrArray *objects = g_ptr_array_new ();
  GWeakRef refs[6];
  guint syncs = filter_test_format_n_syncs ();

  g_ptr_array_add (objects, ds);
  g_ptr_array_add (objects, root);
  g_ptr_array_add (objects, ncz_group_get_group (root, "g"));
  g_ptr_array_add (objects, ncz_group_get_variable (root, "v"));
  g_ptr_array_add (objects, ncz_group_get_dimension (root, "x"));
  g_ptr_array_add (objects, ncz_group_get_variable (ncz_group_get_group (root, "g"), "w"));
  for (guint i = 0; i < objects->len; i++)
    g_weak_ref_init (&refs[i], g_ptr_array_index (objects, i));
  /* objects handed out and given back in between leave nothing held */
  for (guint i = 1; i < objects->len; i++)
    g_object_unref (g_object_ref (g_ptr_array_index (objects, i)));
  g_object_unref (ds);
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs + 1);
  for (guint i = 0; i < objects->len; i++)
    {
      g_assert_null (g_weak_ref_get (&refs[i]));
      g_weak_ref_clear (&refs[i]);
    }
  g_ptr_array_unref (objects);
  /* the chunks written stay in the store */
  g_assert_cmpuint (ncz_memory_store_get_n_objects (store), >, 0);
}

/* The group's list model hands out references: they keep the dataset too. */
static void
test_list_model_items (void)
{
  NczDataset *ds = make_dataset (NULL);
  GListModel *model = G_LIST_MODEL (ncz_dataset_get_root_group (ds));
  g_autoptr(GObject) first = NULL, second = NULL;
  GWeakRef wds;

  g_weak_ref_init (&wds, ds);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  first = g_list_model_get_item (model, 0);      /* the subgroup g */
  second = g_list_model_get_item (model, 1);     /* the variable v */
  g_object_unref (ds);
  g_assert_true (NCZ_IS_GROUP (first));
  assert_reads (NCZ_VARIABLE (second), 0);
  g_clear_object (&second);
  {
    g_autoptr(NczDataset) alive = g_weak_ref_get (&wds);
    g_assert_nonnull (alive);
  }
  g_clear_object (&first);
  g_assert_null (g_weak_ref_get (&wds));
  g_weak_ref_clear (&wds);
}

/* Threads take and drop references on the objects of a dataset and read
 * while the main thread drops the dataset: the last one closes it. */
typedef struct {
  NczVariable *v;
  NczVariable *w;
  gint failures;
} ThreadData;

static gpointer
holder_thread (gpointer data)
{
  ThreadData *td = data;
  for (int k = 0; k < 200; k++)
    {
      NczVariable *v = g_object_ref (k % 2 ? td->v : td->w);
      g_autoptr(GError) error = NULL;
      guint64 start = 0, count = 6;
      gint32 got[6];
      NczGroup *group = ncz_variable_get_group (v);
      if (group == NULL || ncz_group_get_dataset (group) == NULL ||
          !ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, got, sizeof got, NULL, &error) ||
          got[5] != (k % 2 ? 5 : 15))
        g_atomic_int_inc (&td->failures);
      g_object_unref (v);
    }
  g_object_unref (td->v);
  g_object_unref (td->w);
  return NULL;
}

static void
test_threads (void)
{
  NczDataset *ds = make_dataset (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  GThread *threads[4];
  ThreadData td[4];
  GWeakRef wds;
  guint syncs = filter_test_format_n_syncs ();

  g_weak_ref_init (&wds, ds);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      td[i].v = g_object_ref (ncz_group_get_variable (root, "v"));
      td[i].w = g_object_ref (ncz_group_get_variable (ncz_group_get_group (root, "g"), "w"));
      td[i].failures = 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("holder", holder_thread, &td[i]);
  g_object_unref (ds);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpint (td[i].failures, ==, 0);
    }
  g_assert_null (g_weak_ref_get (&wds));
  g_weak_ref_clear (&wds);
  g_assert_cmpuint (filter_test_format_n_syncs (), ==, syncs + 1);
}

/* An explicit close still works while objects are held; they are freed
 * with the last holder. */
static void
test_close_then_drop (void)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = make_dataset (NULL);
  NczVariable *v = g_object_ref (ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v"));
  GWeakRef wds;
  guint64 start = 0, count = 1;
  gint32 one = 7;

  g_weak_ref_init (&wds, ds);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
  g_assert_false (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, &one, sizeof one,
                                      NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED);
  g_object_unref (v);
  g_assert_null (g_weak_ref_get (&wds));
  g_weak_ref_clear (&wds);
}

/* Each array of a hyperslab has its own length; one that is not the
 * variable's rank is an error and nothing is read or written. */
static void
test_slab_lengths (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = filter_test_dataset_new (NULL);
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczDimension *dims[2];
  NczVariable *v, *s;
  guint64 start[3] = { 0, 0, 0 }, count[3] = { 2, 3, 1 };
  gint64 stride[3] = { 1, 1, 1 };
  gint32 buf[6], vals[6] = { 1, 2, 3, 4, 5, 6 };
  const char *strs[] = { "a", "b", "c", "d", "e", "f", NULL };
  g_autoptr(GBytes) data = g_bytes_new (vals, sizeof vals);

  dims[0] = ncz_group_add_dimension (root, "y", 2, FALSE, &error);
  dims[1] = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, dims, &error);
  s = ncz_group_add_variable (root, "s", NCZ_DATA_TYPE_STRING, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write_bytes (v, start, 2, count, 2, stride, 2, data, NULL, &error));
  g_assert_no_error (error);

  /* start shorter than count */
  memset (buf, 0x55, sizeof buf);
  g_assert_false (ncz_variable_read (v, start, 1, count, 2, NULL, 0, buf, sizeof buf, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'/v'"));
  g_assert_nonnull (strstr (error->message, "1 start, 2 count"));
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (buf); i++)
    g_assert_cmpint (buf[i], ==, 0x55555555);
  /* count longer than the rank */
  g_assert_null (ncz_variable_read_bytes (v, start, 2, count, 3, NULL, 0, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  /* stride of the wrong length; a NULL stride's length does not count */
  g_assert_null (ncz_variable_read_bytes (v, start, 2, count, 2, stride, 1, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "1 stride"));
  g_clear_error (&error);
  {
    g_autoptr(GBytes) b = ncz_variable_read_bytes (v, start, 2, count, 2, NULL, 7, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (b, NULL), g_bytes_get_size (b), vals, sizeof vals);
  }
  /* writes: nothing written */
  {
    g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (sizeof vals), sizeof vals);
    g_autoptr(GBytes) b = NULL;
    g_assert_false (ncz_variable_write_bytes (v, start, 3, count, 2, NULL, 0, zeros, NULL, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_false (ncz_variable_write (v, start, 2, count, 1, NULL, 0, buf, sizeof buf, NULL, &error));
    g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
    g_clear_error (&error);
    b = ncz_variable_read_bytes (v, start, 2, count, 2, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (b, NULL), g_bytes_get_size (b), vals, sizeof vals);
  }
  /* strings */
  g_assert_false (ncz_variable_write_strings (s, start, 2, count, 1, NULL, 0, strs, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (ncz_variable_write_strings (s, start, 2, count, 2, NULL, 0, strs, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (ncz_variable_read_strings (s, start, 1, count, 2, NULL, 0, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  {
    g_auto(GStrv) back = ncz_variable_read_strings (s, start, 2, count, 2, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstrv (back, strs);
  }
}

static void
on_read (GObject *source, GAsyncResult *res, gpointer data)
{
  GError **error = data;
  g_assert_null (ncz_variable_read_bytes_finish (NCZ_VARIABLE (source), res, error));
}

/* the async read reports a length mismatch through its callback */
static void
test_slab_lengths_async (void)
{
  NczDataset *ds = make_dataset (NULL);
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  guint64 start[2] = { 0, 0 }, count = 1;
  GError *error = NULL;

  ncz_variable_read_bytes_async (v, start, 2, &count, 1, NULL, 0, NULL, on_read, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);
  g_object_unref (ds);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  filter_test_format_register ();
  g_test_add_func ("/lifetime/chained", test_chained);
  g_test_add_func ("/lifetime/subgroup-held", test_subgroup_held);
  g_test_add_func ("/lifetime/dropped-without-close", test_dropped_without_close);
  g_test_add_func ("/lifetime/list-model-items", test_list_model_items);
  g_test_add_func ("/lifetime/threads", test_threads);
  g_test_add_func ("/lifetime/close-then-drop", test_close_then_drop);
  g_test_add_func ("/slab/lengths", test_slab_lengths);
  g_test_add_func ("/slab/lengths-async", test_slab_lengths_async);
  return g_test_run ();
}
