/* test-memory-store.c: NczMemoryStore and the NczStore wrappers
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "store-checks.h"

typedef void (*StoreCheck) (NczStore *store);

static void
run_check (gconstpointer data)
{
  StoreCheck check = (StoreCheck) data;
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();

  g_assert_true (NCZ_IS_STORE (store));
  check (NCZ_STORE (store));
  g_assert_cmpuint (ncz_memory_store_get_n_objects (store), ==, 0);
}

static void
test_n_objects (void)
{
  g_autoptr(NczMemoryStore) self = ncz_memory_store_new ();
  NczStore *store = NCZ_STORE (self);
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (ncz_memory_store_get_n_objects (self), ==, 0);
  store_put (store, "a/.zarray", "{}");
  store_put (store, "a/0", "0");
  store_put (store, "a/0", "replaced");
  g_assert_cmpuint (ncz_memory_store_get_n_objects (self), ==, 2);
  g_assert_true (ncz_store_remove (store, "a/0", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_memory_store_get_n_objects (self), ==, 1);
}

/* In memory a key may be an object and a prefix at once. */
static void
test_object_and_prefix (void)
{
  g_autoptr(NczMemoryStore) self = ncz_memory_store_new ();
  NczStore *store = NCZ_STORE (self);
  g_autoptr(GError) error = NULL;

  store_put (store, "a", "object");
  store_put (store, "a-b", "sorts between");
  store_put (store, "a.c", "sorts between");
  store_put (store, "a/child", "below");
  store_put (store, "a/grand/child", "further below");
  store_put (store, "b", "after");

  store_assert_list (store, "", "a", "a-b", "a.c", "b", NULL);
  store_assert_list (store, "a", "child", "grand", NULL);
  store_assert_content (store, "a", "object");

  g_assert_true (ncz_store_remove (store, "a", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", "a-b", "a.c", "b", NULL);
  g_assert_cmpuint (ncz_memory_store_get_n_objects (self), ==, 3);
}

/* The stored bytes are independent of later reads' lifetimes. */
static void
test_bytes_lifetime (void)
{
  g_autoptr(NczMemoryStore) self = ncz_memory_store_new ();
  NczStore *store = NCZ_STORE (self);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) part = NULL;
  g_autoptr(GBytes) in = NULL;

  in = g_bytes_new_take (g_strdup ("abcdef"), 6);
  g_assert_true (ncz_store_write (store, "k", in, NULL, &error));
  g_clear_pointer (&in, g_bytes_unref);

  part = ncz_store_read_range (store, "k", 2, 2, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_store_remove (store, "k", NULL, &error));
  g_assert_cmpmem (g_bytes_get_data (part, NULL), g_bytes_get_size (part), "cd", 2);
}

static void
test_key_messages (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *huge = g_strnfill (5000, 'k');

  g_assert_false (ncz_store_key_is_valid ("grp/a\nb", FALSE, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_nonnull (strstr (error->message, "grp/a\\nb"));
  g_clear_error (&error);

  g_assert_false (ncz_store_key_is_valid ("grp/../x", FALSE, &error));
  g_assert_nonnull (strstr (error->message, "grp/../x"));
  g_clear_error (&error);

  g_assert_false (ncz_store_key_is_valid ("bad\xff", FALSE, &error));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_assert_nonnull (strstr (error->message, "bad\\377"));
  g_clear_error (&error);

  /* An overlong key is shown shortened. */
  g_assert_false (ncz_store_key_is_valid (huge, FALSE, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_nonnull (strstr (error->message, "5000"));
  g_assert_cmpuint (strlen (error->message), <, 400);
  g_clear_error (&error);

  g_assert_true (ncz_store_key_is_valid ("grp/var/.zarray", FALSE, NULL));
  g_assert_true (ncz_store_key_is_valid ("a b/c-d_e/..x/x../...", FALSE, NULL));
  g_assert_true (ncz_store_key_is_valid ("données/変数/0.0", FALSE, NULL));
  g_assert_true (ncz_store_key_is_valid ("back\\slash", FALSE, NULL));
}

static void
add_check (const char *name,
           StoreCheck  check)
{
  g_autofree char *path = g_strconcat ("/storage/memory/", name, NULL);

  g_test_add_data_func (path, (gconstpointer) check, run_check);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

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
  add_check ("concurrent-reads", store_check_concurrent_reads);
  add_check ("read-ranges", store_check_read_ranges);
  add_check ("list-pages", store_check_list_pages);
  add_check ("async-calls", store_check_async_calls);
  g_test_add_func ("/storage/memory/n-objects", test_n_objects);
  g_test_add_func ("/storage/memory/object-and-prefix", test_object_and_prefix);
  g_test_add_func ("/storage/memory/bytes-lifetime", test_bytes_lifetime);
  g_test_add_func ("/storage/key/messages", test_key_messages);

  return g_test_run ();
}
