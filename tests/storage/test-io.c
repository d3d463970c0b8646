/* test-io.c: I/O depth of the chunk engine, batched chunk reads, the
 * format definition hooks, and the store properties
 *
 * A latency store (20 ms per request, counting the requests in flight)
 * wraps a memory store; an NCZarr variable of 256 chunks written to it
 * is read back through ncz_variable_read() with two CPU workers, and the
 * store must have seen at least 32 requests in flight at once. No test
 * here measures time.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>


#include <ncz/ncz-module.h>

#include "latency-store.h"
#include "ncz-cpu-limit-private.h"
#include "../core/test-format.h"

#define SIDE 64          /* a SIDE x SIDE float variable */
#define CHUNK 4          /* in CHUNK x CHUNK chunks: 256 of them */

static NczUrl *
nczarr_url (void)
{
  g_autoptr(GError) error = NULL;
  NczUrl *url = ncz_url_parse ("file:///unused#mode=nczarr,file", &error);

  g_assert_no_error (error);
  return url;
}

static float
value_at (guint i, guint j)
{
  return (float) (i * 1000 + j) + 0.25f;
}

/* An NCZarr dataset in @inner with one SIDE x SIDE float variable "v" in
 * CHUNK x CHUNK chunks, every chunk written. */
static void
write_dataset (NczStore *inner)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = nczarr_url ();
  g_autoptr(NczDataset) ds = ncz_dataset_create_in_store (inner, url, NULL, &error);
  g_autofree float *values = g_new (float, SIDE * SIDE);
  static const guint64 chunks[2] = { CHUNK, CHUNK };
  static const guint64 start[2] = { 0, 0 }, count[2] = { SIDE, SIDE };
  NczGroup *root;
  NczDimension *dims[2];
  NczVariable *v;

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dims[0] = ncz_group_add_dimension (root, "y", SIDE, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "x", SIDE, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < SIDE; i++)
    for (guint j = 0; j < SIDE; j++)
      values[i * SIDE + j] = value_at (i, j);
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, values,
                                     SIDE * SIDE * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* Reads all of "v" from @store with the given I/O depth (0: default) and
 * checks every value; with a @gate, the chunk requests of a latency store
 * wait until that many are in flight. */
static void
read_and_check (NczStore *store, guint io_depth, guint gate)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = nczarr_url ();
  g_autoptr(NczDataset) ds = ncz_dataset_open_store (store, url, NCZ_OPEN_READ, NULL, &error);
  g_autofree float *values = g_new0 (float, SIDE * SIDE);
  static const guint64 start[2] = { 0, 0 }, count[2] = { SIDE, SIDE };
  NczVariable *v;

  g_assert_no_error (error);
  if (io_depth != 0)
    ncz_dataset_set_io_depth (ds, io_depth);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  g_assert_nonnull (v);
  if (NCZ_IS_LATENCY_STORE (store))
    {
      ncz_latency_store_reset (NCZ_LATENCY_STORE (store));
      if (gate > 0)
        ncz_latency_store_set_gate (NCZ_LATENCY_STORE (store), gate, 10000);
    }
  g_assert_true (ncz_variable_read (v, start, 2, count, 2, NULL, 0, values,
                                    SIDE * SIDE * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < SIDE; i++)
    for (guint j = 0; j < SIDE; j++)
      if (values[i * SIDE + j] != value_at (i, j))
        g_error ("v[%u][%u] is %g, expected %g", i, j, values[i * SIDE + j], value_at (i, j));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* The acceptance case: 256 chunks, 20 ms per request, two CPU workers,
 * an I/O depth of 32: at least 32 requests in flight at once. */
static void
test_depth_256_chunks (void)
{
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 20);

  g_assert_cmpuint (ncz_parallel_get_n_workers (), ==, 2);
  write_dataset (NCZ_STORE (mem));

  /* the first chunk requests wait (up to 10 s) until 32 are in flight */
  read_and_check (NCZ_STORE (slow), 32, 32);
  g_test_message ("%u reads, at most %u in flight",
                  ncz_latency_store_get_n_reads (slow),
                  ncz_latency_store_get_max_in_flight (slow));
  g_assert_cmpuint (ncz_latency_store_get_n_reads (slow), >=, 256);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), >=, 32);
  /* the depth is shared among the workers, never exceeded */
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), <=, 32);
}

/* The depth bounds the requests in flight: with a depth of 1 each of the
 * two workers has one request at a time. */
static void
test_depth_bounds (void)
{
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 2);

  write_dataset (NCZ_STORE (mem));
  read_and_check (NCZ_STORE (slow), 1, 0);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), >=, 1);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), <=, 2);

  read_and_check (NCZ_STORE (slow), 6, 0);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), <=, 6);

  /* straight from memory (depth 1 by the memory store's hint) */
  read_and_check (NCZ_STORE (mem), 0, 0);
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* Where the depth comes from: set > NCZ_IO_DEPTH > the store's hint. */
static void
test_depth_setting (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 0);
  g_autoptr(NczUrl) url = nczarr_url ();
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) ds_mem = NULL;
  guint notified = 0, depth = 0;

  write_dataset (NCZ_STORE (mem));
  ds = ncz_dataset_open_store (NCZ_STORE (slow), url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  ds_mem = ncz_dataset_open_store (NCZ_STORE (mem), url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (ncz_store_get_io_depth_hint (NCZ_STORE (slow)), ==, NCZ_STORE_DEFAULT_IO_DEPTH);
  g_assert_cmpuint (ncz_store_get_io_depth_hint (NCZ_STORE (mem)), ==, 1);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, NCZ_STORE_DEFAULT_IO_DEPTH);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds_mem), ==, 1);

  g_setenv ("NCZ_IO_DEPTH", "40", TRUE);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, 40);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds_mem), ==, 40);
  g_setenv ("NCZ_IO_DEPTH", "100000", TRUE);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, NCZ_STORE_MAX_IO_DEPTH);
  g_setenv ("NCZ_IO_DEPTH", "many", TRUE);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, NCZ_STORE_DEFAULT_IO_DEPTH);
  g_setenv ("NCZ_IO_DEPTH", "40", TRUE);

  g_signal_connect (ds, "notify::io-depth", G_CALLBACK (count_notify), &notified);
  ncz_dataset_set_io_depth (ds, 8);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, 8);
  g_object_get (ds, "io-depth", &depth, NULL);
  g_assert_cmpuint (depth, ==, 8);
  g_object_set (ds, "io-depth", 64, NULL);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, 64);
  ncz_dataset_set_io_depth (ds, 64);
  g_assert_cmpuint (notified, ==, 2);
  ncz_dataset_set_io_depth (ds, 0);
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, 40);
  g_unsetenv ("NCZ_IO_DEPTH");
  g_assert_cmpuint (ncz_dataset_get_io_depth (ds), ==, NCZ_STORE_DEFAULT_IO_DEPTH);
  g_assert_cmpuint (notified, ==, 3);
}

/* read_many keeps one request per key in flight. */
static void
test_read_many_in_flight (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 20);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) got = NULL;

  for (guint i = 0; i < 40; i++)
    {
      char *key = g_strdup_printf ("k/%u", i);
      g_autoptr(GBytes) b = g_bytes_new (key, strlen (key));
      if (i != 7)
        g_assert_true (ncz_store_write (NCZ_STORE (mem), key, b, NULL, &error));
      g_ptr_array_add (keys, key);
    }
  g_ptr_array_add (keys, NULL);

  ncz_latency_store_set_gate (slow, 32, 10000);
  got = ncz_store_read_many (NCZ_STORE (slow), (const char * const *) keys->pdata, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, 40);
  for (guint i = 0; i < 40; i++)
    {
      GBytes *b = g_ptr_array_index (got, i);
      const char *key = g_ptr_array_index (keys, i);
      if (i == 7)
        g_assert_null (b);
      else
        g_assert_cmpmem (g_bytes_get_data (b, NULL), g_bytes_get_size (b), key, strlen (key));
    }
  g_assert_cmpuint (ncz_latency_store_get_n_reads (slow), ==, 40);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), >=, 32);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), <=, 40);
}

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
  g_main_context_wakeup (NULL);
}

/* A request cancelled while in flight ends with G_IO_ERROR_CANCELLED. */
static void
test_cancel_in_flight (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 60000);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) b = g_bytes_new_static ("x", 1);
  static const char * const keys[] = { "a", "b", NULL };
  GAsyncResult *result = NULL;
  GAsyncResult *many_result = NULL;

  g_assert_true (ncz_store_write (NCZ_STORE (mem), "a", b, NULL, &error));
  ncz_store_read_async (NCZ_STORE (slow), "a", G_PRIORITY_DEFAULT, cancellable, async_done,
                        &result);
  ncz_store_read_many_async (NCZ_STORE (slow), keys, G_PRIORITY_LOW, cancellable, async_done,
                             &many_result);
  /* both wait in the store (for a minute) until cancelled */
  while (ncz_latency_store_get_n_requests (slow) < 3)
    g_usleep (1000);
  g_cancellable_cancel (cancellable);
  while (result == NULL || many_result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (ncz_store_read_finish (NCZ_STORE (slow), result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_null (ncz_store_read_many_finish (NCZ_STORE (slow), many_result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_object_unref (result);
  g_object_unref (many_result);
}

/* The url and flags properties of the interface, on the memory store and
 * on stores that forward them. */
static void
test_store_properties (void)
{
  g_autoptr(NczUrl) url = nczarr_url ();
  g_autoptr(NczMemoryStore) plain = ncz_memory_store_new ();
  g_autoptr(NczMemoryStore) mem = g_object_new (NCZ_TYPE_MEMORY_STORE, "url", url,
                                                "flags", NCZ_STORE_WRITE | NCZ_STORE_CREATE,
                                                NULL);
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 0);
  g_autoptr(NczUrl) got = NULL;
  NczStoreFlags flags = 0;
  GParamSpec *pspec;

  g_assert_null (ncz_store_get_url (NCZ_STORE (plain)));
  g_assert_cmpuint (ncz_store_get_flags (NCZ_STORE (plain)), ==, NCZ_STORE_READ);
  g_assert_true (ncz_store_get_url (NCZ_STORE (mem)) == url);
  g_assert_cmpuint (ncz_store_get_flags (NCZ_STORE (mem)), ==, NCZ_STORE_WRITE | NCZ_STORE_CREATE);
  g_object_get (mem, "url", &got, "flags", &flags, NULL);
  g_assert_true (got == url);
  g_assert_cmpuint (flags, ==, NCZ_STORE_WRITE | NCZ_STORE_CREATE);
  g_assert_true (ncz_store_get_url (NCZ_STORE (slow)) == url);
  g_assert_cmpuint (ncz_store_get_flags (NCZ_STORE (slow)), ==, NCZ_STORE_WRITE | NCZ_STORE_CREATE);

  pspec = g_object_interface_find_property (g_type_default_interface_peek (NCZ_TYPE_STORE), "flags");
  g_assert_nonnull (pspec);
  g_assert_true (G_PARAM_SPEC_VALUE_TYPE (pspec) == NCZ_TYPE_STORE_FLAGS);
  pspec = g_object_interface_find_property (g_type_default_interface_peek (NCZ_TYPE_STORE), "url");
  g_assert_true (G_PARAM_SPEC_VALUE_TYPE (pspec) == NCZ_TYPE_URL);
  g_assert_true ((pspec->flags & G_PARAM_CONSTRUCT_ONLY) != 0);
}

/* ---- the format: read_chunks and the definition hooks ---- */

static NczDataset *
new_test_dataset (const char *format, NczMemoryStore **store_out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("file:///unused#mode=nczarr,file&format=%s", format);
  g_autoptr(NczUrl) url = ncz_url_parse (text, &error);
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  NczDataset *ds;

  g_assert_no_error (error);
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, &error);
  g_assert_no_error (error);
  if (store_out)
    *store_out = g_steal_pointer (&store);
  return ds;
}

static NczVariable *
grid_variable (NczDataset *ds, guint side, guint chunk)
{
  g_autoptr(GError) error = NULL;
  NczGroup *root = ncz_dataset_get_root_group (ds);
  const guint64 chunks[2] = { chunk, chunk };
  NczDimension *dims[2];
  NczVariable *v;

  dims[0] = ncz_group_add_dimension (root, "y", side, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "x", side, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_INT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_no_error (error);
  return v;
}

static void
write_some (NczVariable *v, guint side)
{
  g_autoptr(GError) error = NULL;
  g_autofree gint32 *values = g_new (gint32, side * side);
  const guint64 start[2] = { 0, 0 }, count[2] = { side, side / 2 };

  /* the left half only: the chunks of the right half stay unwritten */
  for (guint i = 0; i < side * side / 2; i++)
    values[i] = (gint32) i;
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, values,
                                     side * side / 2 * sizeof (gint32), NULL, &error));
  g_assert_no_error (error);
}

static void
check_read (NczVariable *v, guint side)
{
  g_autoptr(GError) error = NULL;
  g_autofree gint32 *values = g_new (gint32, side * side);
  const guint64 start[2] = { 0, 0 }, count[2] = { side, side };
  gint32 fill = 0;
  g_autoptr(GBytes) fill_bytes = ncz_variable_get_fill_value (v);

  g_assert_nonnull (fill_bytes);
  memcpy (&fill, g_bytes_get_data (fill_bytes, NULL), sizeof fill);
  g_assert_true (ncz_variable_read (v, start, 2, count, 2, NULL, 0, values,
                                    side * side * sizeof (gint32), NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < side; i++)
    for (guint j = 0; j < side; j++)
      g_assert_cmpint (values[i * side + j], ==, j < side / 2 ? (gint32) (i * (side / 2) + j) : fill);
}

static void
test_format_read_chunks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_test_dataset ("ftest", NULL);
  NczVariable *v = grid_variable (ds, 16, 2);   /* 8 x 8 = 64 chunks */
  NczFormat *format = ncz_dataset_get_format (ds);
  static const guint64 idx[] = { 0, 0, 7, 7, 3, 1 };
  g_autoptr(GPtrArray) chunks = NULL;
  guint calls_before, calls, n_before, n;

  write_some (v, 16);

  /* the wrapper, directly: written, unwritten (NULL), written */
  chunks = ncz_format_read_chunks (format, v, idx, G_N_ELEMENTS (idx), 3, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (chunks->len, ==, 3);
  g_assert_nonnull (g_ptr_array_index (chunks, 0));
  g_assert_null (g_ptr_array_index (chunks, 1));
  g_assert_nonnull (g_ptr_array_index (chunks, 2));
  g_assert_cmpuint (g_bytes_get_size (g_ptr_array_index (chunks, 0)), ==, 4 * sizeof (gint32));
  g_clear_pointer (&chunks, g_ptr_array_unref);

  /* index values that do not match the rank */
  g_assert_null (ncz_format_read_chunks (format, v, idx, 5, 3, NULL, &error));
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID);
  g_clear_error (&error);

  /* the chunk engine batches: 64 chunks at a depth of 16 on 2 workers
   * are batches of 8 */
  ncz_dataset_set_io_depth (ds, 16);
  calls_before = filter_test_format_n_read_chunks_calls (&n_before);
  check_read (v, 16);
  calls = filter_test_format_n_read_chunks_calls (&n) - calls_before;
  g_assert_cmpuint (n - n_before, ==, 64);
  g_assert_cmpuint (calls, ==, 64 / 8);

  /* a depth of 1: a chunk at a time, through read_chunk */
  ncz_dataset_set_io_depth (ds, 1);
  calls_before = filter_test_format_n_read_chunks_calls (NULL);
  check_read (v, 16);
  g_assert_cmpuint (filter_test_format_n_read_chunks_calls (NULL), ==, calls_before);
}

/* A format without read_chunks: the default reads chunk by chunk. */
static void
test_format_default_read_chunks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_test_dataset ("ftest-plain", NULL);
  NczVariable *v = grid_variable (ds, 8, 2);   /* 16 chunks */
  NczFormat *format = ncz_dataset_get_format (ds);
  static const guint64 idx[] = { 0, 0, 3, 3, 1, 1 };
  g_autoptr(GPtrArray) chunks = NULL;
  guint before;

  g_assert_cmpstr (ncz_format_get_name (format), ==, "ftest-plain");
  write_some (v, 8);

  before = filter_test_format_n_plain_reads ();
  chunks = ncz_format_read_chunks (format, v, idx, G_N_ELEMENTS (idx), 3, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (filter_test_format_n_plain_reads () - before, ==, 3);
  g_assert_nonnull (g_ptr_array_index (chunks, 0));
  g_assert_null (g_ptr_array_index (chunks, 1));
  g_assert_nonnull (g_ptr_array_index (chunks, 2));

  ncz_dataset_set_io_depth (ds, 16);
  before = filter_test_format_n_plain_reads ();
  check_read (v, 8);
  g_assert_cmpuint (filter_test_format_n_plain_reads () - before, ==, 16);
}

static void
test_format_flags (void)
{
  g_autoptr(NczDataset) ds = new_test_dataset ("ftest-plain", NULL);
  g_autoptr(NczDataset) ds2 = new_test_dataset ("ftest", NULL);

  g_assert_cmpuint (ncz_format_type_get_flags (filter_test_format_get_type (TRUE)), ==,
                    NCZ_FORMAT_NO_STORE);
  g_assert_cmpuint (ncz_format_type_get_flags (filter_test_format_get_type (FALSE)), ==,
                    NCZ_FORMAT_FLAGS_NONE);
  g_assert_cmpuint (ncz_format_get_flags (ncz_dataset_get_format (ds)), ==, NCZ_FORMAT_NO_STORE);
  g_assert_cmpuint (ncz_format_get_flags (ncz_dataset_get_format (ds2)), ==, NCZ_FORMAT_FLAGS_NONE);
  g_assert_true (g_type_is_a (NCZ_TYPE_FORMAT_FLAGS, G_TYPE_FLAGS));
  g_assert_true (g_type_is_a (NCZ_TYPE_DEFINITION_CHANGE, G_TYPE_ENUM));
}

static void
test_format_hooks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = new_test_dataset ("ftest", NULL);
  g_autofree char *events = filter_test_format_take_events ();   /* earlier tests' */
  NczGroup *root = ncz_dataset_get_root_group (ds);
  g_autoptr(NczAttribute) units = ncz_attribute_new_text ("units", "m", -1);
  g_autoptr(NczAttribute) title = ncz_attribute_new_text ("title", "t", -1);
  NczVariable *v;
  NczGroup *sub;

  g_clear_pointer (&events, g_free);
  v = grid_variable (ds, 4, 2);
  events = filter_test_format_take_events ();
  g_assert_cmpstr (events, ==, "dimension y added; dimension x added; variable v added; "
                               "variable v changed");
  g_clear_pointer (&events, g_free);

  sub = ncz_group_add_group (root, "sub", &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_attribute (v, units, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_group_set_attribute (sub, title, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_group_remove_attribute (sub, "title", &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_fill_value (v, NULL, &error));
  g_assert_no_error (error);
  events = filter_test_format_take_events ();
  g_assert_cmpstr (events, ==, "group sub added; attribute v:units added; "
                               "attribute sub:title added; attribute sub:title removed; "
                               "variable v changed");
  g_clear_pointer (&events, g_free);

  /* a refused definition fails the defining call with the format's error */
  g_assert_null (ncz_group_add_dimension (root, "refused", 3, FALSE, &error));
  g_assert_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  events = filter_test_format_take_events ();
  g_assert_cmpstr (events, ==, "dimension refused added");
  g_clear_pointer (&events, g_free);

  /* writing data is no definition */
  write_some (v, 4);
  events = filter_test_format_take_events ();
  g_assert_cmpstr (events, ==, "");
}

/* On a remote store the metadata are consolidated by default, for NCZarr
 * as for pure Zarr, and an open then costs one read and no listing; the
 * variables of every group are found and read. */
static void
test_remote_consolidated (void)
{
  static const char * const urls[] = { "file:///unused#mode=nczarr,file",
                                       "file:///unused#mode=zarr,file" };

  for (guint u = 0; u < G_N_ELEMENTS (urls); u++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczUrl) url = ncz_url_parse (urls[u], &error);
      g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
      g_autoptr(NczLatencyStore) remote = ncz_latency_store_new (NCZ_STORE (mem), 0);
      g_autoptr(NczDataset) ds = NULL;
      g_autoptr(GBytes) zmetadata = NULL;
      static const gint32 values[3] = { 7, 8, 9 };
      gint32 got[3] = { 0 };
      guint64 start = 0, count = 3;
      NczGroup *root, *sub;
      NczDimension *x;
      NczVariable *v;

      g_assert_no_error (error);
      g_assert_true (ncz_store_is_remote (NCZ_STORE (remote)));
      g_assert_false (ncz_store_is_remote (NCZ_STORE (mem)));
      ds = ncz_dataset_create_in_store (NCZ_STORE (remote), url, NULL, &error);
      g_assert_no_error (error);
      root = ncz_dataset_get_root_group (ds);
      x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
      g_assert_no_error (error);
      sub = ncz_group_add_group (root, "sub", &error);
      g_assert_no_error (error);
      v = ncz_group_add_variable (sub, "v", NCZ_DATA_TYPE_INT, 1, &x, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_variable_write (v, &start, 1, &count, 1, NULL, 0, values,
                                         sizeof values, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
      g_clear_object (&ds);

      zmetadata = ncz_store_read (NCZ_STORE (mem), ".zmetadata", NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (zmetadata);

      ncz_latency_store_reset (remote);
      ds = ncz_dataset_open_store (NCZ_STORE (remote), url, NCZ_OPEN_READ, NULL, &error);
      g_assert_no_error (error);
      g_test_message ("%s: open made %u requests, %u reads, %u listings", urls[u],
                      ncz_latency_store_get_n_requests (remote),
                      ncz_latency_store_get_n_reads (remote),
                      ncz_latency_store_get_n_lists (remote));
      g_assert_cmpuint (ncz_latency_store_get_n_lists (remote), ==, 0);
      g_assert_cmpuint (ncz_latency_store_get_n_reads (remote), ==, 1);
      sub = ncz_group_get_group (ncz_dataset_get_root_group (ds), "sub");
      g_assert_nonnull (sub);
      v = ncz_group_get_variable (sub, "v");
      g_assert_nonnull (v);
      g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, got, sizeof got,
                                        NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (got, sizeof got, values, sizeof values);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_no_error (error);
    }
}

/* NCZarr without .zmetadata on a remote store: the open lists nothing and
 * reads each metadata object at most once. */
static void
test_remote_nczarr_open_cost (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///unused#mode=nczarr,file&consolidated=false",
                                         &error);
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) remote = ncz_latency_store_new (NCZ_STORE (mem), 0);
  g_autoptr(NczDataset) ds = NULL;
  guint n_meta = 0;
  NczGroup *root;
  NczDimension *x;

  g_assert_no_error (error);
  ds = ncz_dataset_create_in_store (NCZ_STORE (remote), url, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  x = ncz_group_add_dimension (root, "x", 3, FALSE, &error);
  g_assert_no_error (error);
  for (guint g = 0; g < 3; g++)
    {
      g_autofree char *gname = g_strdup_printf ("g%u", g);
      NczGroup *sub = ncz_group_add_group (root, gname, &error);

      g_assert_no_error (error);
      for (guint v = 0; v < 4; v++)
        {
          g_autofree char *vname = g_strdup_printf ("v%u", v);
          NczVariable *var = ncz_group_add_variable (sub, vname, NCZ_DATA_TYPE_INT, 1, &x,
                                                     &error);
          g_assert_no_error (error);
          g_autoptr(NczAttribute) units = ncz_attribute_new_text ("units", "m", -1);

          g_assert_true (ncz_variable_set_attribute (var, units, &error));
          g_assert_no_error (error);
        }
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&ds);
  g_assert_false (ncz_store_exists (NCZ_STORE (mem), ".zmetadata", NULL, NULL));
  /* the metadata objects: the root's, three groups', twelve variables' */
  n_meta = 3 + 3 * 3 + 12 * 3;

  ncz_latency_store_reset (remote);
  ds = ncz_dataset_open_store (NCZ_STORE (remote), url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("NCZarr open: %u requests, %u reads, %u listings (at most %u metadata objects)",
                  ncz_latency_store_get_n_requests (remote),
                  ncz_latency_store_get_n_reads (remote),
                  ncz_latency_store_get_n_lists (remote), n_meta);
  g_assert_cmpuint (ncz_latency_store_get_n_lists (remote), ==, 0);
  g_assert_cmpuint (ncz_latency_store_get_n_requests (remote), <=, n_meta);
  g_assert_nonnull (ncz_group_get_variable (ncz_group_get_group (ncz_dataset_get_root_group (ds),
                                                                 "g2"), "v3"));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* Writes go in batches too: writing every chunk of "v" through a store
 * with 20 ms per request keeps the I/O depth of requests in flight
 * (behind a gate, as the reads), and what was written reads back. */
static void
test_write_depth (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = nczarr_url ();
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 20);
  g_autoptr(NczDataset) ds = ncz_dataset_create_in_store (NCZ_STORE (slow), url, NULL, &error);
  g_autofree float *values = g_new (float, SIDE * SIDE);
  static const guint64 chunks[2] = { CHUNK, CHUNK };
  static const guint64 start[2] = { 0, 0 }, count[2] = { SIDE, SIDE };
  NczGroup *root;
  NczDimension *dims[2];
  NczVariable *v;

  g_assert_no_error (error);
  ncz_dataset_set_io_depth (ds, 32);
  root = ncz_dataset_get_root_group (ds);
  dims[0] = ncz_group_add_dimension (root, "y", SIDE, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "x", SIDE, FALSE, &error);
  g_assert_no_error (error);
  v = ncz_group_add_variable (root, "v", NCZ_DATA_TYPE_FLOAT, 2, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 2, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < SIDE; i++)
    for (guint j = 0; j < SIDE; j++)
      values[i * SIDE + j] = value_at (i, j);
  ncz_latency_store_reset (slow);
  ncz_latency_store_set_gate (slow, 32, 10000);
  g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, values,
                                     SIDE * SIDE * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  g_test_message ("%u requests, at most %u in flight", ncz_latency_store_get_n_requests (slow),
                  ncz_latency_store_get_max_in_flight (slow));
  g_assert_cmpuint (ncz_latency_store_get_n_requests (slow), >=, 256);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), >=, 32);
  g_assert_cmpuint (ncz_latency_store_get_max_in_flight (slow), <=, 32);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);

  read_and_check (NCZ_STORE (mem), 0, 0);
}

/* NCZ_THREADS as NCZ_IO_DEPTH: a whole number, at most 64; unset, empty,
 * 0 or anything else is the default, the CPUs the process may use (its
 * affinity mask and its cgroup quota). Each case runs in a new process,
 * whose pool has not started yet. */
static void
test_threads_env (void)
{
  static const struct { const char *value; guint want; } cases[] = {
    { "3", 3 }, { "1", 1 }, { "1000", 64 }, { "0", 0 }, { "", 0 }, { "many", 0 }, { "2x", 0 },
  };

  if (g_test_subprocess ())
    {
      const char *want = g_getenv ("NCZ_TEST_WANT_WORKERS");
      guint n = (guint) g_ascii_strtoull (want, NULL, 10);

      if (n == 0)
        n = MIN (ncz_cpu_count_at ("/proc/self/cgroup", "/sys/fs/cgroup"), 64);
      g_assert_cmpuint (ncz_parallel_get_n_workers (), ==, n);
      return;
    }
  /* the subprocesses inherit the environment (GLib 2.74 has no
   * g_test_trap_subprocess_with_envp()); this process's pool has its
   * size already */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *want = g_strdup_printf ("%u", cases[i].want);

      g_setenv ("NCZ_THREADS", cases[i].value, TRUE);
      g_setenv ("NCZ_TEST_WANT_WORKERS", want, TRUE);
      g_test_message ("NCZ_THREADS='%s'", cases[i].value);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
    }
  g_setenv ("NCZ_THREADS", "2", TRUE);
  g_unsetenv ("NCZ_TEST_WANT_WORKERS");
}

/* Reads after ncz_set_max_threads() grew or shrank the CPU workers, and
 * while another thread changes them */
typedef struct {
  NczStore *store;
  gint done;
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *r = data;

  for (guint i = 0; i < 3; i++)
    read_and_check (r->store, 8, 0);
  g_atomic_int_set (&r->done, 1);
  return NULL;
}

static void
test_set_max_threads (void)
{
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczLatencyStore) slow = ncz_latency_store_new (NCZ_STORE (mem), 1);
  Reader r = { .store = NCZ_STORE (slow) };
  GThread *thread;
  guint changes = 0;

  write_dataset (NCZ_STORE (mem));
  /* NCZ_THREADS (main()); a read makes the pool if no test did */
  g_assert_cmpuint (ncz_get_max_threads (), ==, 2);
  read_and_check (NCZ_STORE (slow), 8, 0);

  ncz_set_max_threads (4);
  g_assert_cmpuint (ncz_get_max_threads (), ==, 4);
  g_assert_cmpuint (ncz_parallel_get_n_workers (), ==, 4);
  read_and_check (NCZ_STORE (slow), 8, 0);

  /* shrunk to the calling thread alone, then to two */
  ncz_set_max_threads (1);
  g_assert_cmpuint (ncz_get_max_threads (), ==, 1);
  g_assert_cmpuint (ncz_parallel_get_n_workers (), ==, 1);
  read_and_check (NCZ_STORE (slow), 8, 0);
  read_and_check (NCZ_STORE (mem), 0, 0);
  ncz_set_max_threads (2);
  g_assert_cmpuint (ncz_get_max_threads (), ==, 2);
  read_and_check (NCZ_STORE (slow), 8, 0);

  /* changed again and again while reads run in another thread */
  thread = g_thread_new ("reader", reader_thread, &r);
  while (!g_atomic_int_get (&r.done))
    {
      ncz_set_max_threads (1 + changes++ % 4);
      g_usleep (2000);
    }
  g_thread_join (thread);
  g_test_message ("%u changes during the reads", changes);

  /* back to NCZ_THREADS */
  ncz_set_max_threads (0);
  g_assert_cmpuint (ncz_get_max_threads (), ==, 2);
  read_and_check (NCZ_STORE (slow), 8, 0);
}

int
main (int argc, char **argv)
{
  /* two CPU workers, whatever the machine: before the pool starts (a
   * subprocess of /storage/io/threads-env sets its own) */
  if (g_getenv ("NCZ_TEST_WANT_WORKERS") == NULL)
    g_setenv ("NCZ_THREADS", "2", TRUE);
  g_unsetenv ("NCZ_IO_DEPTH");
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  filter_test_format_register ();
  filter_test_plain_format_register ();

  g_test_add_func ("/storage/io/depth/256-chunks", test_depth_256_chunks);
  g_test_add_func ("/storage/io/depth/bounds", test_depth_bounds);
  g_test_add_func ("/storage/io/depth/write", test_write_depth);
  g_test_add_func ("/storage/io/depth/setting", test_depth_setting);
  g_test_add_func ("/storage/io/read-many-in-flight", test_read_many_in_flight);
  g_test_add_func ("/storage/io/cancel-in-flight", test_cancel_in_flight);
  g_test_add_func ("/storage/io/store-properties", test_store_properties);
  g_test_add_func ("/storage/io/remote-consolidated", test_remote_consolidated);
  g_test_add_func ("/storage/io/remote-nczarr-open-cost", test_remote_nczarr_open_cost);
  g_test_add_func ("/storage/io/format/read-chunks", test_format_read_chunks);
  g_test_add_func ("/storage/io/format/default-read-chunks", test_format_default_read_chunks);
  g_test_add_func ("/storage/io/format/flags", test_format_flags);
  g_test_add_func ("/storage/io/format/hooks", test_format_hooks);
  g_test_add_func ("/storage/io/threads-env", test_threads_env);
  g_test_add_func ("/storage/io/set-max-threads", test_set_max_threads);

  return g_test_run ();
}
