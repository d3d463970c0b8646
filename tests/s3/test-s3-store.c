/* test-s3-store.c: the S3 store against a real S3 server (Ceph radosgw
 * started by tests/s3/radosgw-run)
 *
 * Usage: test-s3-store [--tap] [GTest options]
 *        test-s3-store --has-s3-store   (exit 0 when the registry offers
 *                                         the "s3" store, 77 when not)
 *
 * Environment: NCZ_TEST_S3_ENDPOINT, NCZ_TEST_S3_SECRET_KEY (to check it
 * never shows in a message), NCZ_TEST_S3_BUCKET (a bucket name of this
 * run, created through the store; run-s3-tests.py removes it), and
 * AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE with the profiles
 * default, wrongsecret and unknownkey (s3common.py writes them).
 *
 * Only the public API: stores come from ncz_registry_open_store () or
 * ncz_dataset_get_store (), request counts from the store's `n-requests`
 * and `max-in-flight` properties.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../storage/store-checks.h"
#include <ncz/ncz-module.h>

static const char *endpoint;
static const char *bucket;

/* ENDPOINT/BUCKET/PREFIX#mode=MODE,s3[&EXTRA] */
static char *
s3_url (const char *prefix, const char *mode, const char *extra)
{
  return g_strdup_printf ("%s/%s/%s#mode=%s,s3%s%s", endpoint, bucket, prefix, mode,
                          extra ? "&" : "", extra ? extra : "");
}

static NczStore *
open_store_url (const char *text, guint flags, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse (text, &local_error);

  g_assert_no_error (local_error);
  return ncz_registry_open_store (ncz_registry_get_default (), url, flags, NULL, error);
}

static NczStore *
open_store (const char *prefix, guint flags)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = s3_url (prefix, "zarr", NULL);
  NczStore *store = open_store_url (text, flags, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (store), ==, "NczS3Store");
  return store;
}

static guint64
n_requests (NczStore *store)
{
  guint64 n = 0;

  g_object_get (store, "n-requests", &n, NULL);
  return n;
}

static guint
max_in_flight (NczStore *store)
{
  guint n = 0;

  g_object_get (store, "max-in-flight", &n, NULL);
  return n;
}

/* A message names what failed and never shows a secret. */
static void
assert_clean_message (const GError *error)
{
  const char *secret = g_getenv ("NCZ_TEST_S3_SECRET_KEY");

  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  if (secret != NULL && *secret)
    {
      /* the secret, and the changed secret of the wrongsecret profile */
      g_autofree char *head = g_strndup (secret, strlen (secret) - 4);
      g_assert_null (strstr (error->message, head));
    }
  g_assert_null (strstr (error->message, "Authorization"));
  g_assert_null (strstr (error->message, "Signature="));
}

/* -- the behaviour every store shows (tests/storage/store-checks.c) ---- */

typedef void (*CheckFunc) (NczStore *store);

static void
run_check (gconstpointer data)
{
  CheckFunc check = (CheckFunc) data;
  const char *name = g_test_get_path ();
  g_autofree char *prefix = g_strdup_printf ("checks%s", strrchr (name, '/'));
  g_autoptr(NczStore) store = open_store (prefix, NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) left = NULL;

  check (store);
  /* each check leaves the store empty: nothing is left in the bucket */
  left = ncz_store_list (store, "", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (left), ==, 0);
  g_assert_cmpuint (n_requests (store), >, 0);
}

/* -- addressing styles ------------------------------------------------- */

static void
test_styles (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) path_style = open_store ("styles", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autofree char *hostport = g_strdup (strstr (endpoint, "://") + 3);
  g_autofree char *port = g_strdup (strrchr (hostport, ':') + 1);
  g_autofree char *vhost = g_strdup_printf ("http://%s.localhost:%s/styles#mode=zarr,s3",
                                            bucket, port);
  g_autofree char *s3 = g_strdup_printf ("s3://%s/styles#mode=zarr,s3&endpoint=%s",
                                         bucket, endpoint);
  const char *urls[] = { vhost, s3 };

  store_put (path_style, "a/.zgroup", "{\"zarr_format\": 2}");
  store_put (path_style, "a/b/0.0", "chunk bytes");
  /* a store opened with CREATE holds metadata back until its commit */
  g_assert_true (ncz_store_commit (path_style, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_autoptr(NczStore) other = NULL;
      g_autofree char *key = g_strdup_printf ("from-%u", i);

      g_test_message ("%s", urls[i]);
      other = open_store_url (urls[i], NCZ_STORE_WRITE, &error);
      g_assert_no_error (error);
      g_assert_nonnull (other);
      /* the same objects, whichever way the bucket is addressed */
      store_assert_content (other, "a/b/0.0", "chunk bytes");
      store_assert_list (other, "a", ".zgroup", "b", NULL);
      store_put (other, key, urls[i]);
      store_assert_content (path_style, key, urls[i]);
      g_assert_true (ncz_store_remove (other, key, NULL, &error));
      g_assert_no_error (error);
    }
  g_assert_true (ncz_store_remove (path_style, "", NULL, &error));
  g_assert_no_error (error);
}

/* -- credentials ------------------------------------------------------- */

/* Opens PREFIX with PROFILE and reads an object that exists: the first
 * request that fails must fail with PERMISSION and the server's code. */
static void
assert_rejected (const char *profile, const char *code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) good = open_store ("auth", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autofree char *extra = g_strdup_printf ("aws.profile=%s", profile);
  g_autofree char *text = s3_url ("auth", "zarr", extra);
  g_autoptr(NczStore) bad = NULL;
  g_autoptr(GBytes) got = NULL;
  g_auto(GStrv) names = NULL;

  store_put (good, "v/.zarray", "{}");

  bad = open_store_url (text, NCZ_STORE_READ, &error);
  if (bad != NULL)
    {
      g_assert_no_error (error);
      got = ncz_store_read (bad, "v/.zarray", NULL, &error);
      g_assert_null (got);
    }
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_assert_nonnull (strstr (error->message, code));
  g_assert_nonnull (strstr (error->message, bucket));
  assert_clean_message (error);
  g_clear_error (&error);

  if (bad != NULL)
    {
      /* writing and listing are refused as well, and change nothing */
      g_autoptr(GBytes) bytes = store_bytes ("not written");
      g_assert_false (ncz_store_write (bad, "v/.zarray", bytes, NULL, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, code));
      assert_clean_message (error);
      g_clear_error (&error);
      names = ncz_store_list (bad, "v", NULL, &error);
      g_assert_null (names);
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
      assert_clean_message (error);
      g_clear_error (&error);
    }
  store_assert_content (good, "v/.zarray", "{}");
  g_assert_true (ncz_store_remove (good, "", NULL, &error));
  g_assert_no_error (error);
}

static void
test_wrong_secret (void)
{
  assert_rejected ("wrongsecret", "SignatureDoesNotMatch");
}

static void
test_unknown_key (void)
{
  assert_rejected ("unknownkey", "InvalidAccessKeyId");
}

/* Unsigned requests (profile none) to a private bucket are refused. */
static void
test_unsigned_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) good = open_store ("anon", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autofree char *text = s3_url ("anon", "zarr", "aws.profile=none");
  g_autoptr(NczStore) anon = NULL;
  g_autoptr(GBytes) got = NULL;

  store_put (good, "x", "private");
  anon = open_store_url (text, NCZ_STORE_READ, &error);
  if (anon != NULL)
    got = ncz_store_read (anon, "x", NULL, &error);
  g_assert_null (got);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  assert_clean_message (error);
  g_assert_true (ncz_store_remove (good, "", NULL, NULL));
}

/* -- listings longer than one page (S3 returns at most 1000 keys) ------ */

#define N_MANY 1100

static void
test_many_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) store = open_store ("many", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) data = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) top = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 before, pages = 0, listed = 0;
  char *token = NULL;

  for (guint i = 0; i < N_MANY; i++)
    {
      g_ptr_array_add (keys, g_strdup_printf ("v/%u.%u", i / 100, i % 100));
      g_ptr_array_add (data, store_bytes (g_ptr_array_index (keys, i)));
    }
  store_put (store, "v/.zarray", "{}");
  g_ptr_array_add (keys, NULL);
  g_assert_true (ncz_store_write_many (store, (const char * const *) keys->pdata,
                                       (GBytes * const *) data->pdata, N_MANY, NULL, &error));
  g_assert_no_error (error);

  before = n_requests (store);
  names = ncz_store_list (store, "v", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, N_MANY + 1);
  /* more than one page was asked for */
  g_assert_cmpuint (n_requests (store) - before, >=, 2);
  for (guint i = 0; names[i]; i++)
    {
      g_assert_false (g_hash_table_contains (seen, names[i]));
      g_hash_table_add (seen, names[i]);
      if (i > 0)
        g_assert_cmpint (strcmp (names[i - 1], names[i]), <, 0);
    }
  for (guint i = 0; i < N_MANY; i++)
    g_assert_true (g_hash_table_contains (seen, (char *) g_ptr_array_index (keys, i) + 2));

  /* the store's own pages, continued with its tokens */
  do
    {
      char *next = NULL;
      g_auto(GStrv) page = ncz_store_list_page (store, "v", token, 400, &next, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (page);
      g_assert_cmpuint (g_strv_length (page), <=, 400);
      for (guint i = 0; page[i]; i++)
        g_assert_cmpstr (page[i], ==, names[listed + i]);
      listed += g_strv_length (page);
      pages++;
      g_free (token);
      token = next;
    }
  while (token != NULL);
  g_assert_cmpuint (listed, ==, N_MANY + 1);
  g_assert_cmpuint (pages, >=, 3);

  top = ncz_store_list (store, "", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (top), ==, 1);
  g_assert_cmpstr (top[0], ==, "v");

  /* removing the prefix removes all (multi-object delete in pages) */
  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
  g_strfreev (names);
  names = ncz_store_list (store, "v", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 0);
}

/* -- keys, objects --------------------------------------------------- */

static void
test_long_key (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) store = open_store ("long", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autoptr(GBytes) bytes = store_bytes ("x");
  GString *key = g_string_new ("v/");
  g_autofree char *head = NULL;

  while (key->len < 1025)
    g_string_append (key, "abcdefghij");
  g_string_truncate (key, 1025);
  head = g_strndup (key->str, 40);
  g_assert_false (ncz_store_write (store, key->str, bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_nonnull (strstr (error->message, head));
  g_string_free (key, TRUE);
}

static void
test_missing (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) store = open_store ("missing", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_autoptr(GBytes) got = ncz_store_read (store, "no/such/key", NULL, &error);
  guint64 length = 0;

  g_assert_null (got);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no/such/key"));
  g_clear_error (&error);
  g_assert_false (ncz_store_exists (store, "no/such/key", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_store_get_length (store, "no/such/key", &length, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
}

/* An object above the multipart threshold (parts of at least 5 MiB) and
 * an empty one; whole and ranged reads. */
static void
test_large_object (void)
{
  const gsize size = 13 * 1024 * 1024 + 12345;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) store = open_store ("large", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  guint8 *buf = g_malloc (size);
  g_autoptr(GBytes) data = NULL;
  g_autoptr(GBytes) got = NULL;
  g_autoptr(GBytes) range = NULL;
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GBytes) got_empty = NULL;
  guint64 length = 0;
  gsize n;
  const guint8 *p;

  for (gsize i = 0; i < size; i++)
    buf[i] = (guint8) ((i * 2654435761u) >> 13);
  data = g_bytes_new_take (buf, size);
  g_assert_true (ncz_store_write (store, "big", data, NULL, &error));
  g_assert_no_error (error);
  got = ncz_store_read (store, "big", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (got, data));
  g_assert_true (ncz_store_get_length (store, "big", &length, NULL, &error));
  g_assert_cmpuint (length, ==, size);

  range = ncz_store_read_range (store, "big", 5 * 1024 * 1024 - 7, 100, NULL, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (range, &n);
  g_assert_cmpuint (n, ==, 100);
  g_assert_cmpmem (p, n, (const guint8 *) g_bytes_get_data (data, NULL) + 5 * 1024 * 1024 - 7, 100);
  g_clear_pointer (&range, g_bytes_unref);
  /* to the end */
  range = ncz_store_read_range (store, "big", size - 10, -1, NULL, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (range, &n);
  g_assert_cmpuint (n, ==, 10);
  g_assert_cmpmem (p, n, (const guint8 *) g_bytes_get_data (data, NULL) + size - 10, 10);

  g_assert_true (ncz_store_write (store, "empty", empty, NULL, &error));
  g_assert_no_error (error);
  got_empty = ncz_store_read (store, "empty", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (got_empty), ==, 0);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* -- datasets ---------------------------------------------------------- */

static float
value_at (guint64 i)
{
  return (float) (i % 1000003) * 0.5f - 7.0f;
}

/* A 3-D float variable in SHAPE / CHUNKS, written whole. */
static void
write_cube (const char *url, const guint64 shape[3], const guint64 chunks[3])
{
  static const char *const names[3] = { "z", "y", "x" };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[3];
  NczVariable *var;
  guint64 start[3] = { 0, 0, 0 };
  gsize total = shape[0] * shape[1] * shape[2];
  g_autofree float *data = g_new (float, total);

  g_assert_no_error (error);
  for (gsize i = 0; i < total; i++)
    data[i] = value_at (i);
  for (int i = 0; i < 3; i++)
    {
      dims[i] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), names[i],
                                         shape[i], FALSE, &error);
      g_assert_no_error (error);
    }
  var = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "data",
                                NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (var, chunks, 3, &error));
  g_assert_true (ncz_variable_write (var, start, 3, shape, 3, NULL, 0, data,
                                     total * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static void
read_cube (NczDataset *ds, const guint64 shape[3])
{
  g_autoptr(GError) error = NULL;
  NczVariable *var = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "data");
  guint64 start[3] = { 0, 0, 0 };
  gsize total = shape[0] * shape[1] * shape[2];
  g_autofree float *data = g_new0 (float, total);

  g_assert_nonnull (var);
  g_assert_true (ncz_variable_read (var, start, 3, shape, 3, NULL, 0, data,
                                    total * sizeof (float), NULL, &error));
  g_assert_no_error (error);
  for (gsize i = 0; i < total; i++)
    if (data[i] != value_at (i))
      g_error ("element %" G_GSIZE_FORMAT ": %g, not %g", i, data[i], value_at (i));
}

/* Chunk keys with '/' between the indices (dimension_separator=/): the
 * store holds them as nested keys and lists them level by level. */
static void
test_nested_keys (void)
{
  static const char *const modes[] = { "zarr", "nczarr" };
  const guint64 shape[3] = { 4, 6, 10 }, chunks[3] = { 2, 3, 4 };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *prefix = g_strdup_printf ("nested-%s", modes[m]);
      g_autofree char *url = s3_url (prefix, modes[m], "dimension_separator=/");
      g_autofree char *open_url = s3_url (prefix, modes[m], NULL);
      g_autoptr(NczDataset) ds = NULL;
      g_autoptr(NczStore) store = NULL;
      g_autoptr(GBytes) chunk = NULL;

      write_cube (url, shape, chunks);
      store = open_store (prefix, NCZ_STORE_WRITE);
      /* 2 x 2 x 3 chunks: data/0/0/0 ... data/1/1/2 */
      store_assert_list (store, "data/1", "0", "1", NULL);
      store_assert_list (store, "data/1/1", "0", "1", "2", NULL);
      chunk = ncz_store_read (store, "data/1/1/2", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g_bytes_get_size (chunk), ==, 2 * 3 * 4 * sizeof (float));
      g_assert_false (ncz_store_exists (store, "data/1.1.2", NULL, &error));
      g_assert_no_error (error);

      ds = ncz_dataset_open (open_url, NCZ_OPEN_READ, NULL, &error);
      g_assert_no_error (error);
      read_cube (ds, shape);
      g_assert_true (ncz_dataset_close (ds, NULL, &error));
      g_assert_true (ncz_store_remove (store, "", NULL, &error));
      g_assert_no_error (error);
    }
}

/* Reading a variable of 64 chunks keeps requests in flight together
 * (the store's io-depth hint is 32) and reads each chunk once. */
static void
test_read_in_flight (void)
{
  g_autoptr(GError) error = NULL;
  const guint64 shape[3] = { 16, 64, 64 }, chunks[3] = { 4, 16, 16 };
  g_autofree char *url = s3_url ("flight", "nczarr", NULL);
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczStore) cleanup = NULL;
  NczStore *store;
  guint64 before;

  write_cube (url, shape, chunks);
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  store = ncz_dataset_get_store (ds);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (store), ==, "NczS3Store");
  g_assert_cmpuint (ncz_store_get_io_depth_hint (store), ==, 32);
  before = n_requests (store);
  read_cube (ds, shape);
  g_test_message ("64 chunks: %" G_GUINT64_FORMAT " requests, at most %u in flight",
                  n_requests (store) - before, max_in_flight (store));
  g_assert_cmpuint (n_requests (store) - before, >=, 64);
  g_assert_cmpuint (n_requests (store) - before, <=, 64 + 4);
  g_assert_cmpuint (max_in_flight (store), >=, 2);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));

  cleanup = open_store ("flight", NCZ_STORE_WRITE);
  g_assert_true (ncz_store_remove (cleanup, "", NULL, &error));
  g_assert_no_error (error);
}

/* G groups of V variables */
static guint
write_tree (const char *url, guint n_groups, guint n_vars)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *dim;

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "n", 5, FALSE, &error);
  g_assert_no_error (error);
  for (guint g = 0; g < n_groups; g++)
    {
      g_autofree char *gname = g_strdup_printf ("g%u", g);
      NczGroup *group = ncz_group_add_group (root, gname, &error);

      g_assert_no_error (error);
      for (guint v = 0; v < n_vars; v++)
        {
          g_autofree char *vname = g_strdup_printf ("v%u", v);
          ncz_group_add_variable (group, vname, NCZ_DATA_TYPE_DOUBLE, 1, &dim, &error);
          g_assert_no_error (error);
        }
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  return n_groups * (n_vars + 1) + 1;
}

static void
assert_tree (NczDataset *ds, guint n_groups, guint n_vars)
{
  GPtrArray *groups = ncz_group_get_groups (ncz_dataset_get_root_group (ds));

  g_assert_cmpuint (groups->len, ==, n_groups);
  for (guint g = 0; g < groups->len; g++)
    {
      GPtrArray *vars = ncz_group_get_variables (g_ptr_array_index (groups, g));
      g_assert_cmpuint (vars->len, ==, n_vars);
      g_ptr_array_unref (vars);
    }
  g_ptr_array_unref (groups);
}

/* Opening a dataset with consolidated metadata (.zmetadata) is one GET
 * and nothing else; writing it is on by default on S3. */
static void
test_consolidated_open (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = s3_url ("cmeta", "zarr", NULL);
  g_autofree char *open_url = s3_url ("cmeta", "zarr", "consolidated=true");
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczStore) store = NULL;

  write_tree (url, 3, 4);
  store = open_store ("cmeta", NCZ_STORE_WRITE);
  g_assert_true (ncz_store_exists (store, ".zmetadata", NULL, &error));
  g_assert_no_error (error);

  ds = ncz_dataset_open (open_url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  assert_tree (ds, 3, 4);
  g_test_message ("consolidated open: %" G_GUINT64_FORMAT " requests",
                  n_requests (ncz_dataset_get_store (ds)));
  /* the dataset's generation object (docs/s3.md), then .zmetadata */
  g_assert_cmpuint (n_requests (ncz_dataset_get_store (ds)), ==, 2);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* -- conditional writes (many writers, one dataset) -------------------- */

/* A store on PREFIX that is not replacing anything: the bucket is made
 * by a store opened with CREATE and committed at once. */
static NczStore *
open_shared_store (const char *prefix)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) creator = open_store (prefix, NCZ_STORE_CREATE | NCZ_STORE_WRITE);

  g_assert_true (ncz_store_commit (creator, NULL, &error));
  g_assert_no_error (error);
  return open_store (prefix, NCZ_STORE_WRITE);
}

static char *
md5_hex (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_MD5, text, -1);
}

static void
assert_tag_is (const char *tag, const char *text)
{
  g_autofree char *md5 = md5_hex (text);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", md5);

  /* the ETag of a single PUT, quoted as the server gives it */
  g_assert_cmpstr (tag, ==, quoted);
}

/* read_tagged gives the ETag; write_if with it succeeds, with a stale
 * one or NULL over an existing object fails with CONFLICT and changes
 * nothing; NULL over a missing object creates it. */
static void
test_conditional (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) store = open_shared_store ("cond");
  g_autoptr(GBytes) got = NULL;
  g_autoptr(GBytes) two = store_bytes ("two");
  g_autoptr(GBytes) three = store_bytes ("three");
  g_autoptr(GBytes) four = store_bytes ("four");
  g_autoptr(GBytes) created = store_bytes ("created");
  g_autoptr(GBytes) five = store_bytes ("five");
  g_autofree char *tag1 = NULL;
  g_autofree char *tag2 = NULL;
  g_autofree char *tag3 = NULL;
  char *missing_tag = (char *) "untouched";
  guint64 before;

  g_assert_true (ncz_store_has_conditional_writes (store));
  store_put (store, "obj", "one");

  got = ncz_store_read_tagged (store, "obj", &tag1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got), "one", 3);
  assert_tag_is (tag1, "one");

  /* the current tag: written (radosgw needs it unquoted: learnt here) */
  g_assert_true (ncz_store_write_if (store, "obj", two, tag1, NULL, &error));
  g_assert_no_error (error);
  store_assert_content (store, "obj", "two");
  g_clear_pointer (&got, g_bytes_unref);
  got = ncz_store_read_tagged (store, "obj", &tag2, NULL, &error);
  g_assert_no_error (error);
  assert_tag_is (tag2, "two");

  /* a stale tag: CONFLICT naming the URL and the key, nothing changed */
  g_assert_false (ncz_store_write_if (store, "obj", three, tag1, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_assert_nonnull (strstr (error->message, "changed by another writer"));
  g_assert_nonnull (strstr (error->message, "'obj'"));
  g_assert_nonnull (strstr (error->message, bucket));
  assert_clean_message (error);
  g_clear_error (&error);
  store_assert_content (store, "obj", "two");

  /* only if missing, over an existing object: CONFLICT, nothing changed */
  g_assert_false (ncz_store_write_if (store, "obj", four, NULL, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_assert_nonnull (strstr (error->message, "'obj'"));
  g_clear_error (&error);
  store_assert_content (store, "obj", "two");

  /* only if missing, over nothing: created; a second time: CONFLICT */
  g_assert_true (ncz_store_write_if (store, "new/obj", created, NULL, NULL, &error));
  g_assert_no_error (error);
  store_assert_content (store, "new/obj", "created");
  g_assert_false (ncz_store_write_if (store, "new/obj", four, NULL, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_clear_error (&error);
  store_assert_content (store, "new/obj", "created");

  /* the form of If-Match the server takes is remembered: one request */
  before = n_requests (store);
  g_assert_true (ncz_store_write_if (store, "obj", five, tag2, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_requests (store) - before, ==, 1);
  g_clear_pointer (&got, g_bytes_unref);
  got = ncz_store_read_tagged (store, "obj", &tag3, NULL, &error);
  g_assert_no_error (error);
  assert_tag_is (tag3, "five");

  /* a missing object: NOT_FOUND, no tag */
  g_clear_pointer (&got, g_bytes_unref);
  got = ncz_store_read_tagged (store, "no/such", &missing_tag, NULL, &error);
  g_assert_null (got);
  g_assert_null (missing_tag);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* Two stores (two writers) read one version: one write lands, the other
 * gets CONFLICT, and the object is the one that landed. */
static void
test_conditional_two_writers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) a = open_shared_store ("cond2");
  g_autoptr(NczStore) b = open_store ("cond2", NCZ_STORE_WRITE);
  g_autoptr(GBytes) ga = NULL;
  g_autoptr(GBytes) gb = NULL;
  g_autoptr(GBytes) from_a = store_bytes ("from a");
  g_autoptr(GBytes) from_b = store_bytes ("from b");
  g_autofree char *ta = NULL;
  g_autofree char *tb = NULL;

  store_put (a, "x", "base");
  ga = ncz_store_read_tagged (a, "x", &ta, NULL, &error);
  g_assert_no_error (error);
  gb = ncz_store_read_tagged (b, "x", &tb, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ta, ==, tb);
  g_assert_true (ncz_store_write_if (b, "x", from_b, tb, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_store_write_if (a, "x", from_a, ta, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_clear_error (&error);
  store_assert_content (a, "x", "from b");
  g_assert_true (ncz_store_remove (a, "", NULL, &error));
  g_assert_no_error (error);
}

/* Read-modify-write with write_if from threads with a store each: every
 * increment of a counter lands exactly once. */
#define N_COUNTERS 6
#define N_INCREMENTS 5

static gpointer
increment_thread (gpointer data)
{
  NczStore *store = data;

  for (guint i = 0; i < N_INCREMENTS; i++)
    for (guint attempt = 0;; attempt++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *tag = NULL;
        g_autoptr(GBytes) now = ncz_store_read_tagged (store, "counter", &tag, NULL, &error);
        g_autofree char *text = NULL;
        g_autofree char *incremented = NULL;
        g_autoptr(GBytes) next = NULL;

        g_assert_no_error (error);
        text = g_strndup (g_bytes_get_data (now, NULL), g_bytes_get_size (now));
        incremented = g_strdup_printf ("%d", atoi (text) + 1);
        next = store_bytes (incremented);
        if (ncz_store_write_if (store, "counter", next, tag, NULL, &error))
          break;
        g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
        g_assert_cmpuint (attempt, <, 200);
        g_usleep (g_random_int_range (500, 5000));
      }
  return NULL;
}

static void
test_conditional_counter (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) first = open_shared_store ("counter");
  NczStore *stores[N_COUNTERS];
  GThread *threads[N_COUNTERS];
  g_autofree char *expected = g_strdup_printf ("%d", N_COUNTERS * N_INCREMENTS);

  store_put (first, "counter", "0");
  for (guint i = 0; i < N_COUNTERS; i++)
    stores[i] = open_store ("counter", NCZ_STORE_WRITE);
  for (guint i = 0; i < N_COUNTERS; i++)
    threads[i] = g_thread_new ("increment", increment_thread, stores[i]);
  for (guint i = 0; i < N_COUNTERS; i++)
    {
      g_thread_join (threads[i]);
      g_object_unref (stores[i]);
    }
  store_assert_content (first, "counter", expected);
  g_assert_true (ncz_store_remove (first, "", NULL, &error));
  g_assert_no_error (error);
}

/* A store replacing a dataset (opened with CREATE) is its writer's alone
 * until commit: write_if is a plain write there, metadata held back as
 * write holds it. A store that read the old dataset's metadata before the
 * replacement cannot open it while it runs, and its reads of chunks fail
 * after it; a store opened after the commit reads the new dataset. */
static void
test_conditional_replacing (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) old = open_shared_store ("cond-replace");
  g_autoptr(NczStore) store = NULL;
  g_autoptr(NczStore) other = NULL;
  g_autoptr(GBytes) zgroup = store_bytes ("{\"zarr_format\": 2}");
  g_autoptr(GBytes) chunk = store_bytes ("new chunk");
  g_autoptr(GBytes) got = NULL;
  g_autofree char *tag = NULL;

  store_put (old, ".zgroup", "{}");
  store_put (old, "v/0", "old chunk");

  store = open_store ("cond-replace", NCZ_STORE_CREATE | NCZ_STORE_WRITE);
  g_assert_true (ncz_store_write_if (store, ".zgroup", zgroup, NULL, NULL, &error));
  g_assert_no_error (error);
  /* held back: this store reads it (without a version), others do not */
  got = ncz_store_read_tagged (store, ".zgroup", &tag, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (got, zgroup));
  g_assert_null (tag);
  other = open_store ("cond-replace", NCZ_STORE_READ);
  store_assert_content (other, ".zgroup", "{}");
  /* a stale tag does not matter either */
  g_assert_true (ncz_store_write_if (store, "v/0", chunk, "\"0000\"", NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(NczStore) during = open_store ("cond-replace", NCZ_STORE_READ);
    g_autoptr(GBytes) none = ncz_store_read (during, ".zgroup", NULL, &error);

    g_assert_null (none);
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
    g_assert_nonnull (strstr (error->message, "is being replaced"));
    g_clear_error (&error);
  }
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (ncz_store_read (other, "v/0", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_assert_nonnull (strstr (error->message, "replaced while it was being read"));
  g_clear_error (&error);
  g_clear_object (&other);
  other = open_store ("cond-replace", NCZ_STORE_READ);
  store_assert_content (other, ".zgroup", "{\"zarr_format\": 2}");
  store_assert_content (other, "v/0", "new chunk");
  /* after commit, conditional again */
  g_assert_false (ncz_store_write_if (store, "v/0", chunk, NULL, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT);
  g_clear_error (&error);
  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* -- replacing a dataset: the generation object (docs/s3.md) ---------- */

/* The generation record of PREFIX as JSON (NULL when there is none),
 * read as a plain object. */
static NczJson *
read_record (const char *prefix)
{
  g_autoptr(NczStore) store = open_store (prefix, NCZ_STORE_READ);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = ncz_store_read (store, ".ncz-generation", NULL, &error);
  gsize len;
  const char *text;
  NczJson *json;

  if (bytes == NULL)
    {
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
      return NULL;
    }
  text = g_bytes_get_data (bytes, &len);
  json = ncz_json_parse (text, (gssize) len, &error);
  g_assert_no_error (error);
  return json;
}

static const char *
record_string (NczJson *record, const char *name)
{
  NczJson *v = ncz_json_object_get (record, name);

  g_assert_nonnull (v);
  g_assert_cmpint (ncz_json_get_kind (v), ==, NCZ_JSON_STRING);
  return ncz_json_get_string (v, NULL);
}

/* A replacement that writes CHUNK at KEY and a root .zgroup, then commits
 * (TRUE) or discards. */
static void
replace_with (const char *prefix, const char *extra, const char *key, GBytes *chunk,
              gboolean commit)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = s3_url (prefix, "zarr", extra);
  g_autoptr(NczStore) store = open_store_url (text, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_autoptr(GBytes) zgroup = store_bytes ("{\"zarr_format\": 2}");

  g_assert_no_error (error);
  g_assert_true (ncz_store_write (store, key, chunk, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_store_write (store, ".zgroup", zgroup, NULL, &error));
  g_assert_no_error (error);
  if (commit)
    {
      g_assert_true (ncz_store_commit (store, NULL, &error));
      g_assert_no_error (error);
    }
  else
    ncz_store_discard (store);
}

/* A replacement claims the generation object and leaves it "complete";
 * listings do not show it; the next replacement's removal of stale
 * objects keeps it; a discarded replacement leaves it "discarded", which
 * the next one takes over at once (lock.timeout=0). */
static void
test_replace_generation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) chunk = store_bytes ("chunk");
  g_autoptr(NczJson) first = NULL;
  g_autoptr(NczJson) second = NULL;
  g_autoptr(NczJson) discarded = NULL;
  g_autoptr(NczJson) third = NULL;
  g_autoptr(NczStore) reader = NULL;
  g_auto(GStrv) names = NULL;
  NczJson *v;
  gint64 n = 0;

  g_assert_null (read_record ("gen"));
  replace_with ("gen", NULL, "v/0", chunk, TRUE);
  first = read_record ("gen");
  g_assert_nonnull (first);
  g_assert_cmpstr (record_string (first, "state"), ==, "complete");
  g_assert_cmpstr (record_string (first, "host"), ==, g_get_host_name ());
  g_assert_nonnull (record_string (first, "generation"));
  g_assert_nonnull (record_string (first, "since"));
  g_assert_nonnull (record_string (first, "heartbeat"));
  v = ncz_json_object_get (first, "pid");
  g_assert_true (v != NULL && ncz_json_get_int64 (v, &n));
  g_assert_cmpint (n, ==, getpid ());
  v = ncz_json_object_get (first, "stale_after");
  g_assert_true (v != NULL && ncz_json_get_int64 (v, &n));
  g_assert_cmpint (n, ==, 300);

  reader = open_store ("gen", NCZ_STORE_READ);
  names = ncz_store_list (reader, "", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, ".zgroup");
  g_assert_cmpstr (names[1], ==, "v");

  /* the next replacement removes v/0, keeps the record, with a new id */
  replace_with ("gen", NULL, "w/0", chunk, TRUE);
  second = read_record ("gen");
  g_assert_nonnull (second);
  g_assert_cmpstr (record_string (second, "state"), ==, "complete");
  g_assert_cmpstr (record_string (second, "generation"), !=, record_string (first, "generation"));
  g_clear_object (&reader);
  reader = open_store ("gen", NCZ_STORE_READ);
  g_assert_false (ncz_store_exists (reader, "v/0", NULL, &error));
  g_assert_no_error (error);
  store_assert_content (reader, "w/0", "chunk");

  /* discarded after a write: "discarded", the chunk gone, the next one
   * starts at once */
  replace_with ("gen", NULL, "x/0", chunk, FALSE);
  discarded = read_record ("gen");
  g_assert_cmpstr (record_string (discarded, "state"), ==, "discarded");
  g_assert_false (ncz_store_exists (reader, "x/0", NULL, &error));
  g_assert_no_error (error);
  replace_with ("gen", "lock.timeout=0", "y/0", chunk, TRUE);
  third = read_record ("gen");
  g_assert_cmpstr (record_string (third, "state"), ==, "complete");
  g_clear_object (&reader);
  reader = open_store ("gen", NCZ_STORE_READ);
  store_assert_content (reader, "y/0", "chunk");
  g_assert_false (ncz_store_exists (reader, "w/0", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_store_remove (reader, "", NULL, &error));
  g_assert_no_error (error);
}

/* A chunk above the multipart threshold: the replacement's commit knows
 * the object is as it wrote it (radosgw gives no ETag for a multipart
 * upload; the store works it out from the parts'). */
static void
test_replace_large_chunk (void)
{
  const gsize size = 17 * 1024 * 1024 + 321;
  g_autoptr(GError) error = NULL;
  guint8 *buf = g_malloc (size);
  g_autoptr(GBytes) data = NULL;
  g_autoptr(NczStore) reader = NULL;
  g_autoptr(GBytes) got = NULL;

  for (gsize i = 0; i < size; i++)
    buf[i] = (guint8) ((i * 2654435761u) >> 11);
  data = g_bytes_new_take (buf, size);
  replace_with ("large-replace", NULL, "v/0", data, TRUE);
  replace_with ("large-replace", NULL, "v/0", data, TRUE);
  reader = open_store ("large-replace", NCZ_STORE_READ);
  got = ncz_store_read (reader, "v/0", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (got, data));
  g_assert_true (ncz_store_remove (reader, "", NULL, &error));
  g_assert_no_error (error);
}

static void
add_check (const char *name, CheckFunc func)
{
  g_autofree char *path = g_strdup_printf ("/s3/store-checks/%s", name);
  g_test_add_data_func (path, (gconstpointer) func, run_check);
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--has-s3-store") == 0)
    return ncz_registry_has_feature (ncz_registry_get_default (), NCZ_FEATURE_STORE, "s3")
             ? 0 : 77;

  g_test_init (&argc, &argv, NULL);
  endpoint = g_getenv ("NCZ_TEST_S3_ENDPOINT");
  bucket = g_getenv ("NCZ_TEST_S3_BUCKET");
  if (endpoint == NULL || bucket == NULL)
    {
      g_test_skip ("no S3 server: run by tests/s3/radosgw-run and run-s3-tests.py");
      return 77;
    }

  add_check ("basic", store_check_basic);
  add_check ("range", store_check_range);
  add_check ("replace", store_check_replace);
  add_check ("prefix-is-not-object", store_check_prefix_is_not_object);
  add_check ("list", store_check_list);
  add_check ("remove", store_check_remove);
  add_check ("invalid-keys", store_check_invalid_keys);
  add_check ("read-many", store_check_read_many);
  add_check ("read-async", store_check_read_async);
  add_check ("cancelled", store_check_cancelled);
  add_check ("concurrent-reads", store_check_concurrent_reads_remote);
  add_check ("read-ranges", store_check_read_ranges);
  add_check ("list-pages", store_check_list_pages);
  add_check ("async-calls", store_check_async_calls);
  g_test_add_func ("/s3/styles", test_styles);
  g_test_add_func ("/s3/auth/wrong-secret", test_wrong_secret);
  g_test_add_func ("/s3/auth/unknown-key-id", test_unknown_key);
  g_test_add_func ("/s3/auth/unsigned-refused", test_unsigned_refused);
  g_test_add_func ("/s3/list/more-than-one-page", test_many_keys);
  g_test_add_func ("/s3/keys/longer-than-1024", test_long_key);
  g_test_add_func ("/s3/keys/missing", test_missing);
  g_test_add_func ("/s3/objects/large-and-empty", test_large_object);
  g_test_add_func ("/s3/dataset/nested-chunk-keys", test_nested_keys);
  g_test_add_func ("/s3/dataset/read-in-flight", test_read_in_flight);
  g_test_add_func ("/s3/dataset/consolidated-open", test_consolidated_open);
  g_test_add_func ("/s3/conditional/tags", test_conditional);
  g_test_add_func ("/s3/conditional/two-writers", test_conditional_two_writers);
  g_test_add_func ("/s3/conditional/counter", test_conditional_counter);
  g_test_add_func ("/s3/conditional/replacing", test_conditional_replacing);
  g_test_add_func ("/s3/replace/generation", test_replace_generation);
  g_test_add_func ("/s3/replace/large-chunk", test_replace_large_chunk);

  return g_test_run ();
}
