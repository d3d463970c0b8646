/* store-checks.c: behaviour every NczStore must show
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "store-checks.h"

GBytes *
store_bytes (const char *text)
{
  return g_bytes_new (text, strlen (text));
}

void
store_put (NczStore   *store,
           const char *key,
           const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = store_bytes (text);

  g_assert_true (ncz_store_write (store, key, bytes, NULL, &error));
  g_assert_no_error (error);
}

static void
assert_bytes_equal (GBytes     *bytes,
                    const char *text)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  g_assert_nonnull (bytes);
  g_assert_cmpmem (data, size, text, strlen (text));
}

void
store_assert_content (NczStore   *store,
                      const char *key,
                      const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = ncz_store_read (store, key, NULL, &error);

  g_assert_no_error (error);
  assert_bytes_equal (bytes, text);
}

void
store_assert_list (NczStore   *store,
                   const char *prefix,
                   ...)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = ncz_store_list (store, prefix, NULL, &error);
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  g_autofree char *got = NULL;
  g_autofree char *want = NULL;
  const char *name;
  va_list args;

  g_assert_no_error (error);
  g_assert_nonnull (names);

  va_start (args, prefix);
  while ((name = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (expected, (gpointer) name);
  va_end (args);
  g_ptr_array_add (expected, NULL);

  got = g_strjoinv ("|", names);
  want = g_strjoinv ("|", (char **) expected->pdata);
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpuint (g_strv_length (names), ==, expected->len - 1);
}

static void
assert_not_found (NczStore   *store,
                  const char *key)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  guint64 length = 12345;

  bytes = ncz_store_read (store, key, NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (bytes);
  g_assert_nonnull (strstr (error->message, key));
  g_clear_error (&error);

  bytes = ncz_store_read_range (store, key, 1, 2, NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (bytes);
  g_clear_error (&error);

  g_assert_false (ncz_store_get_length (store, key, &length, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_cmpuint (length, ==, 12345);
  g_clear_error (&error);

  g_assert_false (ncz_store_exists (store, key, NULL, &error));
  g_assert_no_error (error);
}

void
store_check_basic (NczStore *store)
{
  g_autoptr(GError) error = NULL;
  guint64 length = 0;

  store_assert_list (store, "", NULL);
  assert_not_found (store, ".zgroup");

  store_put (store, ".zgroup", "{\"zarr_format\": 2}");
  store_assert_content (store, ".zgroup", "{\"zarr_format\": 2}");
  g_assert_true (ncz_store_get_length (store, ".zgroup", &length, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, strlen ("{\"zarr_format\": 2}"));
  g_assert_true (ncz_store_get_length (store, ".zgroup", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_store_exists (store, ".zgroup", NULL, &error));
  g_assert_no_error (error);

  /* Empty objects exist and read back empty. */
  store_put (store, "grp/var/0.0", "");
  store_assert_content (store, "grp/var/0.0", "");
  g_assert_true (ncz_store_get_length (store, "grp/var/0.0", &length, NULL, &error));
  g_assert_cmpuint (length, ==, 0);
  g_assert_true (ncz_store_exists (store, "grp/var/0.0", NULL, NULL));

  /* Binary content with NUL bytes and non-ASCII keys. */
  {
    static const guint8 raw[] = { 0, 1, 2, 0xff, 0, 0x80 };
    g_autoptr(GBytes) in = g_bytes_new_static (raw, sizeof raw);
    g_autoptr(GBytes) out = NULL;

    g_assert_true (ncz_store_write (store, "données/température/1.2", in, NULL, &error));
    g_assert_no_error (error);
    out = ncz_store_read (store, "données/température/1.2", NULL, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (in, out));
  }

  assert_not_found (store, "grp/var/0.1");
  assert_not_found (store, "nothing/here");

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", NULL);
}

void
store_check_range (NczStore *store)
{
  static const struct {
    guint64 offset;
    gint64 length;
    const char *expected;
  } ranges[] = {
    { 0, -1, "0123456789" },
    { 0, 10, "0123456789" },
    { 2, 3, "234" },
    { 0, 0, "" },
    { 9, 1, "9" },
    { 8, -1, "89" },
    { 8, 100, "89" },               /* cut short at the end */
    { 8, G_MAXINT64, "89" },
    { 10, -1, "" },                 /* offset at the end: empty */
    { 10, 5, "" },
  };
  g_autoptr(GError) error = NULL;
  GBytes *bytes;

  store_put (store, "v/0", "0123456789");
  for (gsize i = 0; i < G_N_ELEMENTS (ranges); i++)
    {
      bytes = ncz_store_read_range (store, "v/0", ranges[i].offset, ranges[i].length,
                                    NULL, &error);
      g_assert_no_error (error);
      assert_bytes_equal (bytes, ranges[i].expected);
      g_bytes_unref (bytes);
    }

  bytes = ncz_store_read_range (store, "v/0", 11, -1, NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_null (bytes);
  g_assert_nonnull (strstr (error->message, "v/0"));
  g_clear_error (&error);

  bytes = ncz_store_read_range (store, "v/0", G_MAXUINT64, 1, NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_null (bytes);
  g_clear_error (&error);

  g_assert_true (ncz_store_remove (store, "v", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", NULL);
}

void
store_check_replace (NczStore *store)
{
  g_autoptr(GError) error = NULL;

  store_put (store, "a/.zattrs", "{\"first\": 1}");
  store_put (store, "a/.zattrs", "{}");
  store_assert_content (store, "a/.zattrs", "{}");
  store_put (store, "a/.zattrs", "{\"third\": \"a longer value than before\"}");
  store_assert_content (store, "a/.zattrs", "{\"third\": \"a longer value than before\"}");
  store_assert_list (store, "a", ".zattrs", NULL);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_prefix_is_not_object (NczStore *store)
{
  g_autoptr(GError) error = NULL;

  store_put (store, "g/v/.zarray", "{}");
  assert_not_found (store, "g");
  assert_not_found (store, "g/v");
  store_assert_list (store, "", "g", NULL);
  store_assert_list (store, "g", "v", NULL);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_list (NczStore *store)
{
  g_autoptr(GError) error = NULL;
  char **names;

  store_put (store, ".zgroup", "{}");
  store_put (store, ".zattrs", "{}");
  store_put (store, "a/.zgroup", "{}");
  store_put (store, "a/b/.zarray", "{}");
  store_put (store, "a/b/0.0", "x");
  store_put (store, "a/b/0.1", "y");
  store_put (store, "a/b/c/d/e/.zarray", "{}");
  store_put (store, "a-x/.zgroup", "{}");
  store_put (store, "a.y", "{}");
  store_put (store, "c/.zarray", "{}");

  store_assert_list (store, "", ".zattrs", ".zgroup", "a", "a-x", "a.y", "c", NULL);
  store_assert_list (store, "a", ".zgroup", "b", NULL);
  store_assert_list (store, "a/b", ".zarray", "0.0", "0.1", "c", NULL);
  store_assert_list (store, "a/b/c", "d", NULL);
  store_assert_list (store, "a/b/c/d/e", ".zarray", NULL);
  store_assert_list (store, "c", ".zarray", NULL);

  /* No children: an empty array, not an error or NULL. */
  store_assert_list (store, "missing", NULL);
  store_assert_list (store, "a/missing/deeper", NULL);
  store_assert_list (store, "a/b/0.0", NULL);
  store_assert_list (store, "a/b/0", NULL);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
  names = ncz_store_list (store, "", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (names);
  g_assert_null (names[0]);
  g_strfreev (names);
}

void
store_check_remove (NczStore *store)
{
  g_autoptr(GError) error = NULL;

  store_put (store, ".zgroup", "{}");
  store_put (store, "a/.zgroup", "{}");
  store_put (store, "a/b/.zarray", "{}");
  store_put (store, "a/b/0.0", "x");
  store_put (store, "a/b/0.1", "y");
  store_put (store, "ab/.zarray", "{}");

  /* One object. */
  g_assert_true (ncz_store_remove (store, "a/b/0.0", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_store_exists (store, "a/b/0.0", NULL, NULL));
  store_assert_list (store, "a/b", ".zarray", "0.1", NULL);

  /* Nothing there: not an error. */
  g_assert_true (ncz_store_remove (store, "a/b/0.0", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_store_remove (store, "no/such/prefix", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_store_remove (store, "a/b/0.1/below", NULL, &error));
  g_assert_no_error (error);
  store_assert_content (store, "a/b/0.1", "y");

  /* A subtree, and only it ("ab" shares the first letter). */
  g_assert_true (ncz_store_remove (store, "a/b", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ncz_store_exists (store, "a/b/.zarray", NULL, NULL));
  g_assert_false (ncz_store_exists (store, "a/b/0.1", NULL, NULL));
  store_assert_list (store, "a", ".zgroup", NULL);
  store_assert_list (store, "", ".zgroup", "a", "ab", NULL);
  store_assert_content (store, "ab/.zarray", "{}");

  /* Removing the last object under a prefix removes the prefix. */
  g_assert_true (ncz_store_remove (store, "a/.zgroup", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", ".zgroup", "ab", NULL);

  /* Everything. */
  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", NULL);
  g_assert_false (ncz_store_exists (store, ".zgroup", NULL, NULL));

  /* Removing from an empty store. */
  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* Keys no store may accept. */
static const char *const bad_keys[] = {
  "/a",
  "/",
  "a/",
  "a//b",
  "//",
  ".",
  "..",
  "../a",
  "a/..",
  "a/../b",
  "a/./b",
  "./a",
  "../../../../../../../tmp/ncz-escape",
  "a\nb",
  "a\tb",
  "\x01",
  "a\x7f",
  "a\xc2\x85\x62",     /* "a", U+0085 (a C1 control character), "b" */
  "\xff",
  "a\xc3",
  "\xc0\xae\xc0\xae/x", /* overlong ".." */
};

static char *
long_key (gsize length)
{
  GString *s = g_string_new (NULL);

  while (s->len < length)
    g_string_append (s, "segment/");
  g_string_truncate (s, length);
  if (s->str[s->len - 1] == '/')
    s->str[s->len - 1] = 'x';
  return g_string_free (s, FALSE);
}

void
store_check_invalid_keys (NczStore *store)
{
  g_autofree char *too_long = long_key (1025);
  g_autofree char *longest = long_key (1024);
  g_autoptr(GBytes) bytes = store_bytes ("evil");
  GError *error = NULL;

  g_assert_true (ncz_store_key_is_valid (longest, FALSE, NULL));

  store_put (store, ".zgroup", "{}");

  for (gsize i = 0; i <= G_N_ELEMENTS (bad_keys); i++)
    {
      const char *key = i < G_N_ELEMENTS (bad_keys) ? bad_keys[i] : too_long;
      GBytes *got;
      char **names;
      guint64 length;

      g_test_message ("bad key %" G_GSIZE_FORMAT, i);

      g_assert_false (ncz_store_key_is_valid (key, FALSE, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      for (const char *p = error->message; *p; p++)
        g_assert_cmpint ((guchar) *p, >=, 0x20);
      g_clear_error (&error);
      g_assert_false (ncz_store_key_is_valid (key, TRUE, NULL));

      g_assert_false (ncz_store_write (store, key, bytes, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);

      got = ncz_store_read (store, key, NULL, &error);
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_assert_null (got);
      g_clear_error (&error);

      got = ncz_store_read_range (store, key, 0, 1, NULL, &error);
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_assert_null (got);
      g_clear_error (&error);

      g_assert_false (ncz_store_get_length (store, key, &length, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);

      g_assert_false (ncz_store_exists (store, key, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);

      g_assert_false (ncz_store_remove (store, key, NULL, &error));
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_clear_error (&error);

      names = ncz_store_list (store, key, NULL, &error);
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_assert_null (names);
      g_clear_error (&error);

      {
        const char *keys[] = { ".zgroup", key, NULL };
        GPtrArray *many = ncz_store_read_many (store, keys, NULL, &error);

        g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
        g_assert_null (many);
        g_clear_error (&error);
      }
    }

  /* The empty key is the root prefix: not an object. */
  g_assert_false (ncz_store_key_is_valid ("", FALSE, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_clear_error (&error);
  g_assert_true (ncz_store_key_is_valid ("", TRUE, NULL));
  g_assert_false (ncz_store_write (store, "", bytes, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_clear_error (&error);
  g_assert_null (ncz_store_read (store, "", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_clear_error (&error);

  /* Nothing was written. */
  store_assert_list (store, "", ".zgroup", NULL);
  store_assert_content (store, ".zgroup", "{}");

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_read_many (NczStore *store)
{
  const char *keys[] = { "a/.zarray", "a/0", "missing", "a/1", "a", NULL };
  const char *none[] = { NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) result = NULL;

  store_put (store, "a/.zarray", "{}");
  store_put (store, "a/0", "zero");
  store_put (store, "a/1", "one");

  result = ncz_store_read_many (store, keys, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpuint (result->len, ==, 5);
  assert_bytes_equal (g_ptr_array_index (result, 0), "{}");
  assert_bytes_equal (g_ptr_array_index (result, 1), "zero");
  g_assert_null (g_ptr_array_index (result, 2));
  assert_bytes_equal (g_ptr_array_index (result, 3), "one");
  g_assert_null (g_ptr_array_index (result, 4));
  g_clear_pointer (&result, g_ptr_array_unref);

  result = ncz_store_read_many (store, none, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpuint (result->len, ==, 0);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

static void
async_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
  g_main_context_wakeup (NULL);
}

static GBytes *
read_async_sync (NczStore    *store,
                 const char  *key,
                 GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  ncz_store_read_async (store, key, G_PRIORITY_DEFAULT, NULL, async_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return ncz_store_read_finish (store, result, error);
}

void
store_check_read_async (NczStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  store_put (store, "v/.zarray", "{\"shape\": []}");

  bytes = read_async_sync (store, "v/.zarray", &error);
  g_assert_no_error (error);
  assert_bytes_equal (bytes, "{\"shape\": []}");
  g_clear_pointer (&bytes, g_bytes_unref);

  bytes = read_async_sync (store, "v/0", &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_assert_null (bytes);
  g_clear_error (&error);

  bytes = read_async_sync (store, "v/../v/.zarray", &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_null (bytes);
  g_clear_error (&error);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_cancelled (NczStore *store)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) bytes = store_bytes ("data");
  g_autoptr(GError) error = NULL;
  GBytes *got;

  store_put (store, "k", "old");
  g_cancellable_cancel (cancellable);

  got = ncz_store_read (store, "k", cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (got);
  g_clear_error (&error);

  g_assert_false (ncz_store_write (store, "k", bytes, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  store_assert_content (store, "k", "old");

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

#define N_OBJECTS 64
#define N_THREADS 8
#define N_ROUNDS 20

static char *
object_text (guint i)
{
  /* Objects of different lengths, some larger than a page. */
  GString *s = g_string_new (NULL);

  for (guint j = 0; j < (i * 37) % 700 + 1; j++)
    g_string_append_printf (s, "%u:%u;", i, j);
  return g_string_free (s, FALSE);
}

/* The objects' texts, made once: the readers compare with them (making
 * them in every thread would be most of the work, and most of it under
 * AddressSanitizer). */
static char *concurrent_texts[N_OBJECTS];

static guint concurrent_rounds;

static gpointer
reader_thread (gpointer data)
{
  NczStore *store = data;

  for (guint round = 0; round < concurrent_rounds; round++)
    for (guint i = 0; i < N_OBJECTS; i++)
      {
        guint k = (i + round * 7) % N_OBJECTS;
        const char *text = concurrent_texts[k];
        char key[32];
        g_autoptr(GError) error = NULL;
        g_autoptr(GBytes) bytes = NULL;
        g_autoptr(GBytes) part = NULL;

        g_snprintf (key, sizeof key, "v/%u.0", k);
        bytes = ncz_store_read (store, key, NULL, &error);
        g_assert_no_error (error);
        assert_bytes_equal (bytes, text);
        part = ncz_store_read_range (store, key, 1, 3, NULL, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (g_bytes_get_size (part), ==, MIN (3, strlen (text) - 1));
        g_assert_true (ncz_store_exists (store, key, NULL, NULL));
      }
  return NULL;
}

static void
concurrent_reads (NczStore *store, guint rounds)
{
  GThread *threads[N_THREADS];
  g_autoptr(GError) error = NULL;

  concurrent_rounds = rounds;
  for (guint i = 0; i < N_OBJECTS; i++)
    {
      g_autofree char *key = g_strdup_printf ("v/%u.0", i);

      concurrent_texts[i] = object_text (i);
      store_put (store, key, concurrent_texts[i]);
    }

  for (guint t = 0; t < N_THREADS; t++)
    threads[t] = g_thread_new ("reader", reader_thread, store);
  for (guint t = 0; t < N_THREADS; t++)
    g_thread_join (threads[t]);
  for (guint i = 0; i < N_OBJECTS; i++)
    g_clear_pointer (&concurrent_texts[i], g_free);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_concurrent_reads (NczStore *store)
{
  concurrent_reads (store, N_ROUNDS);
}

void
store_check_concurrent_reads_remote (NczStore *store)
{
  concurrent_reads (store, 2);
}

/* File system helpers of the file store's tests. */

void
rm_rf (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GPtrArray) names = NULL;

      g_chmod (path, 0755);
      names = sorted_entries (path);
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *child = g_build_filename (path, g_ptr_array_index (names, i), NULL);

          rm_rf (child);
        }
      g_assert_cmpint (g_rmdir (path), ==, 0);
    }
  else
    g_assert_cmpint (g_unlink (path), ==, 0);
}

static void
note_finalized (gpointer data)
{
  g_atomic_int_set ((gint *) data, 1);
}

void
store_release (NczStore **store)
{
  gint finalized = 0;
  gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  if (*store == NULL)
    return;
  /* object data is let go by GObject's own finalize, after the store's
   * (a weak reference is told earlier, at dispose) */
  g_object_set_data_full (G_OBJECT (*store), "store-checks-finalized", &finalized,
                          note_finalized);
  g_clear_object (store);
  while (!g_atomic_int_get (&finalized))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
sorted_entries (const char *path)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_names);
  return names;
}

char *
dir_entries (const char *path)
{
  g_autoptr(GPtrArray) names = sorted_entries (path);

  g_ptr_array_add (names, NULL);
  return g_strjoinv ("|", (char **) names->pdata);
}

/* Waits in the main context until an async call's callback stored its
 * result in *@slot. */
static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return g_steal_pointer (slot);
}

static void
assert_array_texts (GPtrArray *array, ...)
{
  va_list ap;
  guint i = 0;
  const char *text;

  va_start (ap, array);
  while ((text = va_arg (ap, const char *)) != NULL)
    {
      g_assert_cmpuint (i, <, array->len);
      if (strcmp (text, "(missing)") == 0)
        g_assert_null (g_ptr_array_index (array, i));
      else
        assert_bytes_equal (g_ptr_array_index (array, i), text);
      i++;
    }
  va_end (ap);
  g_assert_cmpuint (array->len, ==, i);
}

void
store_check_read_ranges (NczStore *store)
{
  static const NczStoreRange ranges[] = {
    { 0, 3 }, { 5, -1 }, { 9, 5 }, { 10, 0 }, { 2, 0 }, { 4, 2 }, { 0, -1 },
  };
  static const NczStoreRange past[] = { { 1, 1 }, { 11, 1 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  GAsyncResult *slot = NULL;

  store_put (store, "v/r", "0123456789");

  got = ncz_store_read_ranges (store, "v/r", ranges, G_N_ELEMENTS (ranges), NULL, &error);
  g_assert_no_error (error);
  assert_array_texts (got, "012", "56789", "9", "", "", "45", "0123456789", NULL);
  g_clear_pointer (&got, g_ptr_array_unref);

  /* no ranges: no bytes, but the key is still checked */
  got = ncz_store_read_ranges (store, "v/r", NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, 0);
  g_clear_pointer (&got, g_ptr_array_unref);
  g_assert_null (ncz_store_read_ranges (store, "v/../r", NULL, 0, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_clear_error (&error);

  /* a range starting past the end fails the call */
  g_assert_null (ncz_store_read_ranges (store, "v/r", past, G_N_ELEMENTS (past), NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_clear_error (&error);

  g_assert_null (ncz_store_read_ranges (store, "v/none", ranges, 1, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* the same through the async pair */
  ncz_store_read_ranges_async (store, "v/r", ranges, G_N_ELEMENTS (ranges), G_PRIORITY_LOW,
                               NULL, async_done, &slot);
  result = wait_result (&slot);
  got = ncz_store_read_ranges_finish (store, result, &error);
  g_assert_no_error (error);
  assert_array_texts (got, "012", "56789", "9", "", "", "45", "0123456789", NULL);
  g_clear_pointer (&got, g_ptr_array_unref);
  g_clear_object (&result);

  ncz_store_read_ranges_async (store, "v/none", ranges, 1, G_PRIORITY_DEFAULT, NULL,
                               async_done, &slot);
  result = wait_result (&slot);
  g_assert_null (ncz_store_read_ranges_finish (store, result, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

/* Every page of @prefix, @page_size names at a time, synchronously or
 * through the async pair; asserts that only the last page has no next
 * token and returns all names in order and the number of pages. */
static GPtrArray *
list_all_pages (NczStore *store, const char *prefix, guint page_size, gboolean async,
                guint *n_pages)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *token = NULL;

  *n_pages = 0;
  do
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) names = NULL;
      char *next = NULL;

      if (async)
        {
          GAsyncResult *slot = NULL;
          g_autoptr(GAsyncResult) result = NULL;

          ncz_store_list_page_async (store, prefix, token, page_size, G_PRIORITY_DEFAULT,
                                     NULL, async_done, &slot);
          result = wait_result (&slot);
          names = ncz_store_list_page_finish (store, result, &next, &error);
        }
      else
        names = ncz_store_list_page (store, prefix, token, page_size, &next, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (names);
      g_assert_cmpuint (g_strv_length (names), <=, page_size);
      /* a page that says more follows is full */
      if (next != NULL)
        g_assert_cmpuint (g_strv_length (names), ==, page_size);
      for (guint i = 0; names[i]; i++)
        g_ptr_array_add (all, g_strdup (names[i]));
      g_free (token);
      token = next;
      (*n_pages)++;
      g_assert_cmpuint (*n_pages, <=, 1000);
    }
  while (token != NULL);
  return all;
}

void
store_check_list_pages (NczStore *store)
{
  static const guint sizes[] = { 1, 2, 3, 11, 12, 1000 };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) expected = NULL;

  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *key = g_strdup_printf ("p/n%02u", i);
      store_put (store, key, "x");
    }
  store_put (store, "p/sub/x", "x");
  store_put (store, "q", "x");
  expected = ncz_store_list (store, "p", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (expected), ==, 11);

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int async = 0; async <= 1; async++)
      {
        guint n_pages;
        g_autoptr(GPtrArray) all = list_all_pages (store, "p", sizes[k], async, &n_pages);

        g_assert_cmpuint (all->len, ==, 11);
        for (guint i = 0; i < all->len; i++)
          g_assert_cmpstr (g_ptr_array_index (all, i), ==, expected[i]);
        /* full pages, then the rest (an empty last page only when the
         * names fill the pages exactly, and a driver may end early) */
        g_assert_cmpuint (n_pages, >=, (11 + sizes[k] - 1) / sizes[k]);
        g_assert_cmpuint (n_pages, <=, 11 / sizes[k] + 1);
      }

  /* nothing under a prefix: one empty page */
  {
    guint n_pages;
    g_autoptr(GPtrArray) none = list_all_pages (store, "p/n00/zz", 2, FALSE, &n_pages);
    g_assert_cmpuint (none->len, ==, 0);
    g_assert_cmpuint (n_pages, ==, 1);
  }

  g_assert_true (ncz_store_remove (store, "", NULL, &error));
  g_assert_no_error (error);
}

void
store_check_async_calls (NczStore *store)
{
  static const char * const keys[] = { "a/1", "a/none", "a/2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) one = store_bytes ("one");
  g_autoptr(GBytes) two = store_bytes ("two!");
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  GAsyncResult *slot = NULL;
  GAsyncResult *result;
  g_autoptr(GPtrArray) many = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_auto(GStrv) names = NULL;
  char *next = NULL;
  guint64 length = 0;

  ncz_store_write_async (store, "a/1", one, G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_true (ncz_store_write_finish (store, result, &error));
  g_assert_no_error (error);
  g_object_unref (result);
  ncz_store_write_async (store, "a/2", two, G_PRIORITY_HIGH, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_true (ncz_store_write_finish (store, result, &error));
  g_assert_no_error (error);
  g_object_unref (result);
  store_assert_content (store, "a/2", "two!");

  ncz_store_get_length_async (store, "a/2", G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_true (ncz_store_get_length_finish (store, result, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, 4);
  g_object_unref (result);
  ncz_store_get_length_async (store, "a/none", G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_false (ncz_store_get_length_finish (store, result, &length, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_object_unref (result);

  ncz_store_read_range_async (store, "a/2", 1, 2, G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  bytes = ncz_store_read_range_finish (store, result, &error);
  g_assert_no_error (error);
  assert_bytes_equal (bytes, "wo");
  g_clear_pointer (&bytes, g_bytes_unref);
  g_object_unref (result);

  ncz_store_read_many_async (store, keys, G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  many = ncz_store_read_many_finish (store, result, &error);
  g_assert_no_error (error);
  assert_array_texts (many, "one", "(missing)", "two!", NULL);
  g_clear_pointer (&many, g_ptr_array_unref);
  g_object_unref (result);

  ncz_store_list_page_async (store, "a", NULL, 1, G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  names = ncz_store_list_page_finish (store, result, &next, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 1);
  g_assert_cmpstr (names[0], ==, "1");
  g_assert_nonnull (next);
  g_clear_pointer (&next, g_free);
  g_clear_pointer (&names, g_strfreev);
  g_object_unref (result);

  /* a cancelled call fails with G_IO_ERROR_CANCELLED and changes nothing */
  g_cancellable_cancel (cancelled);
  ncz_store_read_async (store, "a/1", G_PRIORITY_DEFAULT, cancelled, async_done, &slot);
  result = wait_result (&slot);
  g_assert_null (ncz_store_read_finish (store, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_object_unref (result);
  ncz_store_write_async (store, "a/1", two, G_PRIORITY_DEFAULT, cancelled, async_done, &slot);
  result = wait_result (&slot);
  g_assert_false (ncz_store_write_finish (store, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_object_unref (result);
  store_assert_content (store, "a/1", "one");
  ncz_store_read_many_async (store, keys, G_PRIORITY_DEFAULT, cancelled, async_done, &slot);
  result = wait_result (&slot);
  g_assert_null (ncz_store_read_many_finish (store, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_object_unref (result);
  ncz_store_list_page_async (store, "a", NULL, 5, G_PRIORITY_DEFAULT, cancelled, async_done,
                             &slot);
  result = wait_result (&slot);
  g_assert_null (ncz_store_list_page_finish (store, result, &next, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (next);
  g_clear_error (&error);
  g_object_unref (result);
  ncz_store_remove_async (store, "a", G_PRIORITY_DEFAULT, cancelled, async_done, &slot);
  result = wait_result (&slot);
  g_assert_false (ncz_store_remove_finish (store, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_object_unref (result);
  store_assert_content (store, "a/2", "two!");

  /* bad keys are reported through the callback too */
  ncz_store_get_length_async (store, "/abs", G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_false (ncz_store_get_length_finish (store, result, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_clear_error (&error);
  g_object_unref (result);

  ncz_store_remove_async (store, "a", G_PRIORITY_DEFAULT, NULL, async_done, &slot);
  result = wait_result (&slot);
  g_assert_true (ncz_store_remove_finish (store, result, &error));
  g_assert_no_error (error);
  g_object_unref (result);
  g_assert_false (ncz_store_exists (store, "a/1", NULL, &error));
  g_assert_no_error (error);
}
