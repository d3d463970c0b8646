/* test-hdf5-vfd.c: netCDF-4 files read through a store (#mode=bytes)
 *
 * The "file" store is replaced, in the default registry, by one that
 * wraps the real file store and counts the requests that reach it, can
 * fail them on demand, and checks the GCancellable it is given. Through
 * it:
 * - opening a small file (metadata only) costs a bounded, small number
 *   of requests, far fewer than the reads HDF5 makes (the driver logs
 *   those at close; this program reads its own log);
 * - reading a variable of a few MiB gives the values a direct open gives,
 *   in a number of requests bounded by its size in blocks;
 * - a store that fails makes the open (or a later read) fail with a
 *   GError that keeps the store's message and names the URL and key;
 * - opening for writing is refused;
 * - a cancelled GCancellable current on the thread stops the open.
 *
 * Files are written by ncgen -4 (the tests skip without it).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef NCZ_ENABLE_MODULE_API
#define NCZ_ENABLE_MODULE_API
#endif
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <ncz/ncz.h>

static char *tmpdir;
static GType inner_file_type;

/* what the counting store saw since the last reset_counts() */
static gint n_reads;        /* ranged and whole reads, each range of read_ranges counted */
static gint n_read_calls;   /* read and read_ranges calls */
static gint n_lengths;
static gint fail_after = -1; /* reads allowed before every read fails; -1: never */
static gint saw_cancellable;
/* what the HDF5 driver logged at its last close */
static gint64 logged_hdf5_reads = -1;
static gint64 logged_requests = -1;

static void
reset_counts (void)
{
  g_atomic_int_set (&n_reads, 0);
  g_atomic_int_set (&n_read_calls, 0);
  g_atomic_int_set (&n_lengths, 0);
  g_atomic_int_set (&fail_after, -1);
  g_atomic_int_set (&saw_cancellable, 0);
  logged_hdf5_reads = logged_requests = -1;
}

/* ---- the counting store, registered as "file" ---- */

typedef struct {
  GObject parent_instance;
  NczUrl *url;
  guint flags;
  NczStore *inner;
} CountingStore;
typedef struct { GObjectClass parent_class; } CountingStoreClass;

static GType counting_store_get_type (void);
static void counting_store_iface_init (NczStoreInterface *iface);
static void counting_store_initable_init (GInitableIface *iface);
G_DEFINE_TYPE_WITH_CODE (CountingStore, counting_store, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE, counting_store_iface_init)
                         G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, counting_store_initable_init))

static gboolean
may_read (guint n, GCancellable *cancellable, GError **error)
{
  gint limit = g_atomic_int_get (&fail_after);
  gint before = g_atomic_int_add (&n_reads, (gint) n);

  g_atomic_int_inc (&n_read_calls);
  if (cancellable != NULL)
    g_atomic_int_set (&saw_cancellable, 1);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (limit >= 0 && before + (gint) n > limit)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "the counting store fails on purpose");
      return FALSE;
    }
  return TRUE;
}

static GBytes *
counting_read (NczStore *store, const char *key, guint64 offset, gint64 length,
               GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  if (!may_read (1, cancellable, error))
    return NULL;
  return ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
}

static GPtrArray *
counting_read_ranges (NczStore *store, const char *key, const NczStoreRange *ranges,
                      guint n_ranges, GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  if (!may_read (n_ranges, cancellable, error))
    return NULL;
  return ncz_store_read_ranges (self->inner, key, ranges, n_ranges, cancellable, error);
}

static gboolean
counting_get_length (NczStore *store, const char *key, guint64 *length,
                     GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) store;

  g_atomic_int_inc (&n_lengths);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  return ncz_store_get_length (self->inner, key, length, cancellable, error);
}

static char **
counting_list (NczStore *store, const char *prefix, GCancellable *cancellable, GError **error)
{
  return ncz_store_list (((CountingStore *) store)->inner, prefix, cancellable, error);
}

static gboolean
counting_write (NczStore *store, const char *key, GBytes *data, GCancellable *cancellable,
                GError **error)
{
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
               "the counting store is read-only");
  return FALSE;
}

static gboolean
counting_remove (NczStore *store, const char *key, GCancellable *cancellable, GError **error)
{
  return counting_write (store, key, NULL, cancellable, error);
}

static void
counting_store_iface_init (NczStoreInterface *iface)
{
  iface->read = counting_read;
  iface->read_ranges = counting_read_ranges;
  iface->get_length = counting_get_length;
  iface->list = counting_list;
  iface->write = counting_write;
  iface->remove = counting_remove;
}

static gboolean
counting_store_initable (GInitable *initable, GCancellable *cancellable, GError **error)
{
  CountingStore *self = (CountingStore *) initable;

  self->inner = g_initable_new (inner_file_type, cancellable, error, "url", self->url,
                                "flags", self->flags, NULL);
  return self->inner != NULL;
}

static void
counting_store_initable_init (GInitableIface *iface)
{
  iface->init = counting_store_initable;
}

enum { PROP_0, PROP_URL, PROP_FLAGS };

static void
counting_store_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CountingStore *self = (CountingStore *) object;

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
counting_store_set_property (GObject *object, guint prop_id, const GValue *value,
                             GParamSpec *pspec)
{
  CountingStore *self = (CountingStore *) object;

  switch (prop_id)
    {
    case PROP_URL:
      self->url = g_value_dup_object (value);
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
counting_store_dispose (GObject *object)
{
  CountingStore *self = (CountingStore *) object;

  g_clear_object (&self->inner);
  g_clear_object (&self->url);
  G_OBJECT_CLASS (counting_store_parent_class)->dispose (object);
}

static void
counting_store_class_init (CountingStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = counting_store_dispose;
  object_class->get_property = counting_store_get_property;
  object_class->set_property = counting_store_set_property;
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
counting_store_init (CountingStore *self)
{
}

/* ---- the driver's own count, from its debug message at close ---- */

static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        domain = fields[i].value;
      else if (g_str_equal (fields[i].key, "MESSAGE"))
        message = fields[i].value;
    }
  if ((level & G_LOG_LEVEL_DEBUG) && g_strcmp0 (domain, "Ncz-hdf5") == 0 && message != NULL)
    {
      const char *p = strstr (message, "': ");

      if (p != NULL && strstr (p, " HDF5 reads, ") != NULL)
        {
          char *end = NULL;

          logged_hdf5_reads = g_ascii_strtoll (p + 3, &end, 10);
          logged_requests = g_ascii_strtoll (strstr (end, ", ") + 2, NULL, 10);
        }
      return G_LOG_WRITER_HANDLED;
    }
  if (level & G_LOG_LEVEL_DEBUG)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (level, fields, n_fields, user_data);
}

/* ---- files ---- */

/* Writes @text with ncgen -4 to TMPDIR/NAME.nc; NULL (test skipped)
 * without ncgen. */
static char *
make_file (const char *name, const char *text)
{
  g_autofree char *ncgen = g_find_program_in_path ("ncgen");
  g_autofree char *cdl_path = g_build_filename (tmpdir, "in.cdl", NULL);
  char *path = g_strdup_printf ("%s/%s.nc", tmpdir, name);
  g_autoptr(GError) error = NULL;
  const char *argv[] = { NULL, "-4", "-o", path, cdl_path, NULL };
  int status = 0;

  if (ncgen == NULL)
    {
      g_test_skip ("ncgen is not installed");
      g_free (path);
      return NULL;
    }
  argv[0] = ncgen;
  g_assert_true (g_file_set_contents (cdl_path, text, -1, &error));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  return path;
}

static const char small_cdl[] =
  "netcdf small {\n"
  "dimensions:\n"
  "  x = 3 ;\n"
  "  t = UNLIMITED ;\n"
  "variables:\n"
  "  float x(x) ;\n"
  "    x:units = \"m\" ;\n"
  "  string s(x) ;\n"
  "  int z(t, x) ;\n"
  "    z:_ChunkSizes = 1, 3 ;\n"
  "    z:_DeflateLevel = 4 ;\n"
  "  :title = \"small\" ;\n"
  "data:\n"
  "  x = 1, 2, 3 ;\n"
  "  s = \"a\", \"bb\", \"ccc\" ;\n"
  "  z = 1, 2, 3, 4, 5, 6 ;\n"
  "group: g {\n"
  "  dimensions:\n"
  "    y = 2 ;\n"
  "  variables:\n"
  "    int v(y, x) ;\n"
  "      v:long_name = \"v in g\" ;\n"
  "  data:\n"
  "    v = 1, 2, 3, 4, 5, 6 ;\n"
  "  group: h {\n"
  "    variables:\n"
  "      double w(x) ;\n"
  "    data:\n"
  "      w = 0.5, 1.5, 2.5 ;\n"
  "  }\n"
  "}\n"
  "}\n";

#define BIG_N 500000

/* A contiguous int variable of BIG_N values (2 MB) and a chunked,
 * deflated one, in a group. */
static char *
make_big_file (void)
{
  GString *cdl = g_string_new ("netcdf big {\ndimensions:\n  n = 500000 ;\nvariables:\n"
                               "  int a(n) ;\n    a:_Storage = \"contiguous\" ;\n"
                               "  :title = \"big\" ;\ndata:\n  a = ");
  char *path;

  for (guint i = 0; i < BIG_N; i++)
    g_string_append_printf (cdl, i ? ", %u" : "%u", (i * 2654435761u) % 1000003);
  g_string_append (cdl, " ;\ngroup: g {\n  variables:\n    int c(n) ;\n"
                        "      c:_ChunkSizes = 20000 ;\n      c:_DeflateLevel = 1 ;\n"
                        "  data:\n    c = ");
  for (guint i = 0; i < BIG_N; i++)
    g_string_append_printf (cdl, i ? ", %u" : "%u", i % 5000);
  g_string_append (cdl, " ;\n}\n}\n");
  path = make_file ("big", cdl->str);
  g_string_free (cdl, TRUE);
  return path;
}

static char *
bytes_url (const char *path)
{
  return g_strconcat (path, "#mode=bytes", NULL);
}

/* ---- tests ---- */

/* An open reads the metadata of a small file in very few requests, far
 * fewer than HDF5's reads. */
static void
test_header_requests (void)
{
  g_autofree char *path = make_file ("small", small_cdl);
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root, *g;
  guint64 size;

  if (path == NULL)
    return;
  url = bytes_url (path);
  {
    GStatBuf st;

    g_assert_cmpint (g_stat (path, &st), ==, 0);
    size = (guint64) st.st_size;
  }
  g_test_message ("%s: %" G_GUINT64_FORMAT " bytes", path, size);
  g_assert_cmpuint (size, <, 64 * 1024);

  reset_counts ();
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  g_assert_nonnull (ncz_group_get_variable (root, "z"));
  g = ncz_group_get_group (root, "g");
  g_assert_nonnull (g);
  g_assert_nonnull (ncz_group_get_variable (ncz_group_get_group (g, "h"), "w"));
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&ds);

  g_test_message ("open of a %" G_GUINT64_FORMAT "-byte file: %d length, %d reads in %d "
                  "calls; the driver logged %" G_GINT64_FORMAT " HDF5 reads, %"
                  G_GINT64_FORMAT " requests", size, n_lengths, n_reads, n_read_calls,
                  logged_hdf5_reads, logged_requests);
  /* the file went through the counting store */
  g_assert_cmpint (n_lengths, ==, 1);
  g_assert_cmpint (n_reads, >=, 1);
  /* one block holds the whole file: one read */
  g_assert_cmpint (n_reads, ==, 1);
  /* and HDF5 read it many times over */
  g_assert_cmpint (logged_hdf5_reads, >=, 10 * n_reads);
  g_assert_cmpint (logged_requests, ==, n_reads + n_lengths);
}

/* A variable of a few MiB reads as it reads directly, in a number of
 * requests bounded by the file's size in blocks; metadata reads of a
 * second variable come from the cache. */
static void
test_big_read (void)
{
  g_autofree char *path = make_big_file ();
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) direct = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autofree gint32 *want = NULL;
  g_autofree gint32 *got = NULL;
  const char *names[] = { "a", "g/c" };
  guint64 start = 0, count = BIG_N, size, blocks;
  GStatBuf st;
  gint open_reads;

  if (path == NULL)
    return;
  url = bytes_url (path);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  size = (guint64) st.st_size;
  blocks = (size + 65535) / 65536;
  want = g_new (gint32, BIG_N);
  got = g_new (gint32, BIG_N);

  direct = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  reset_counts ();
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  open_reads = n_reads;
  g_test_message ("open: %d reads", open_reads);
  g_assert_cmpint (open_reads, <=, 4);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      NczGroup *g1 = ncz_dataset_get_root_group (direct);
      NczGroup *g2 = ncz_dataset_get_root_group (ds);
      const char *name = names[i];
      NczVariable *v1, *v2;

      if (g_str_has_prefix (name, "g/"))
        {
          g1 = ncz_group_get_group (g1, "g");
          g2 = ncz_group_get_group (g2, "g");
          name += 2;
        }
      v1 = ncz_group_get_variable (g1, name);
      v2 = ncz_group_get_variable (g2, name);
      g_assert_nonnull (v1);
      g_assert_nonnull (v2);
      memset (want, 0, BIG_N * sizeof (gint32));
      memset (got, 0xff, BIG_N * sizeof (gint32));
      g_assert_true (ncz_variable_read (v1, &start, 1, &count, 1, NULL, 0, want,
                                        BIG_N * sizeof (gint32), NULL, &error));
      g_assert_no_error (error);
      g_assert_true (ncz_variable_read (v2, &start, 1, &count, 1, NULL, 0, got,
                                        BIG_N * sizeof (gint32), NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (want, BIG_N * sizeof (gint32), got, BIG_N * sizeof (gint32));
      g_assert_cmpint (want[BIG_N - 1], ==, i == 0 ? (gint32) (((BIG_N - 1) * 2654435761u) % 1000003)
                                                   : (BIG_N - 1) % 5000);
    }
  g_test_message ("%" G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT " blocks): %d reads in "
                  "%d calls", size, blocks, n_reads, n_read_calls);
  /* each block at most once for the cached reads, plus the reads that
   * bypass the cache (one per chunk and one for the contiguous data) */
  g_assert_cmpint (n_reads, <=, (gint) blocks + BIG_N / 20000 + 8);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (logged_hdf5_reads, >, 0);
}

/* A failing store: its message survives, with the URL and the key. */
static void
test_store_fails (void)
{
  g_autofree char *path = make_big_file ();
  g_autofree char *url = NULL;
  g_autofree char *base = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autofree gint32 *buf = NULL;
  guint64 start = 0, count = BIG_N;
  NczVariable *v;

  if (path == NULL)
    return;
  url = bytes_url (path);
  base = g_path_get_basename (path);

  /* the very first read fails */
  reset_counts ();
  g_atomic_int_set (&fail_after, 0);
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "the counting store fails on purpose"));
  g_assert_nonnull (strstr (error->message, url));
  g_assert_nonnull (strstr (error->message, base));
  g_clear_error (&error);

  /* the open works, reading the data fails */
  reset_counts ();
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  g_atomic_int_set (&fail_after, n_reads);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "a");
  buf = g_new (gint32, BIG_N);
  g_assert_false (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, buf,
                                     BIG_N * sizeof (gint32), NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "the counting store fails on purpose"));
  g_assert_nonnull (strstr (error->message, base));
  g_clear_error (&error);
  /* the store works again: so does the read */
  g_atomic_int_set (&fail_after, -1);
  g_assert_true (ncz_variable_read (v, &start, 1, &count, 1, NULL, 0, buf,
                                    BIG_N * sizeof (gint32), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
test_read_only (void)
{
  g_autofree char *path = make_file ("ro", small_cdl);
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  if (path == NULL)
    return;
  url = bytes_url (path);
  reset_counts ();
  ds = ncz_dataset_open (url, NCZ_OPEN_WRITE, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY);
  g_assert_nonnull (strstr (error->message, url));
  /* nothing was read */
  g_assert_cmpint (n_reads, ==, 0);
}

static void
test_missing_key (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "no-such-file.nc", NULL);
  g_autofree char *url = bytes_url (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;

  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_null (ds);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, url));
  g_assert_nonnull (strstr (error->message, "no-such-file.nc"));
}

/* The driver hands the store the thread's current GCancellable. */
static void
test_cancelled (void)
{
  g_autofree char *path = make_file ("cancel", small_cdl);
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  if (path == NULL)
    return;
  url = bytes_url (path);
  reset_counts ();
  g_cancellable_cancel (cancellable);
  g_cancellable_push_current (cancellable);
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_cancellable_pop_current (cancellable);
  g_assert_null (ds);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, url));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  NczRegistry *registry;
  int status;

  g_log_set_writer_func (log_writer, NULL, NULL);
  g_test_init (&argc, &argv, NULL);

  registry = ncz_registry_get_default ();
  inner_file_type = ncz_registry_lookup_store (registry, "file", &error);
  g_assert_no_error (error);
  ncz_registry_add_store (registry, "file", counting_store_get_type (),
                          NCZ_PRIORITY_PRIMARY + 100);

  tmpdir = g_dir_make_tmp ("ncz-vfd-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/hdf5/vfd/header-requests", test_header_requests);
  g_test_add_func ("/hdf5/vfd/big-read", test_big_read);
  g_test_add_func ("/hdf5/vfd/store-fails", test_store_fails);
  g_test_add_func ("/hdf5/vfd/read-only", test_read_only);
  g_test_add_func ("/hdf5/vfd/missing-key", test_missing_key);
  g_test_add_func ("/hdf5/vfd/cancelled", test_cancelled);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmpdir, name, NULL);

        g_unlink (p);
      }
    g_rmdir (tmpdir);
  }
  g_free (tmpdir);
  return status;
}
