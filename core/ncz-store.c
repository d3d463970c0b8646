/* ncz-store.c: the storage driver (zmap) interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz/ncz-error.h"
#include "ncz/ncz-store.h"
#include "ncz-core-private.h"

/**
 * NczStore:
 *
 * A key/object store: the "zmap" of NCZarr.
 *
 * Objects are byte strings named by keys, `/`-separated relative paths
 * such as `.zgroup` or `grp/var/0.1`. A key names either an object or a
 * prefix of other keys; the empty key is the root prefix. Keys are checked
 * by [func@Ncz.store_key_is_valid] before any driver sees them, so drivers
 * never receive `..`, `.`, empty segments, control characters, invalid
 * UTF-8 or keys longer than 1024 bytes.
 *
 * A key that holds no object gives %NCZ_STORAGE_ERROR_NOT_FOUND.
 *
 * Implementations must be safe to call from several threads at once.
 * Drivers opened from a URL are constructed with the construct-only
 * properties "url" (an [class@Ncz.Url]) and "flags" (a `guint` of
 * [flags@Ncz.StoreFlags]) and usually implement [iface@Gio.Initable].
 *
 * Since: 1.0
 */

G_DEFINE_INTERFACE (NczStore, ncz_store, G_TYPE_OBJECT)

#define NCZ_STORE_KEY_MAX 1024
#define NCZ_STORE_KEY_MESSAGE_MAX 200

static void
ncz_store_default_init (NczStoreInterface *iface)
{
}

/* A printable form of @key for error messages: control characters and
 * invalid UTF-8 are escaped, overlong keys are shortened. */
static char *
key_for_message (const char *key)
{
  gsize len = strlen (key);
  gboolean plain = len <= NCZ_STORE_KEY_MESSAGE_MAX && g_utf8_validate (key, len, NULL);
  g_autofree char *head = NULL;
  char *escaped;

  if (plain)
    {
      for (const char *p = key; *p; p++)
        if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
          {
            plain = FALSE;
            break;
          }
    }
  if (plain)
    return g_strdup (key);

  head = g_strndup (key, MIN (len, NCZ_STORE_KEY_MESSAGE_MAX));
  escaped = g_strescape (head, NULL);
  if (len > NCZ_STORE_KEY_MESSAGE_MAX)
    {
      char *t = g_strconcat (escaped, "...", NULL);
      g_free (escaped);
      escaped = t;
    }
  return escaped;
}

G_GNUC_PRINTF (3, 4)
static gboolean
invalid_key (GError **error, const char *key, const char *format, ...)
{
  g_autofree char *shown = key_for_message (key);
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
               "invalid object key '%s': %s", shown, reason);
  return FALSE;
}

/**
 * ncz_store_key_is_valid:
 * @key: a key
 * @allow_root: whether the empty key (the root prefix) is acceptable
 * @error: return location for a #GError
 *
 * Checks that @key is a legal object key: a relative `/`-separated path of
 * at most 1024 bytes of UTF-8 without a leading `/`, without empty, `.` or
 * `..` segments and without control characters.
 *
 * Returns: %TRUE if @key is legal; otherwise %FALSE with @error set to
 *   %NCZ_STORAGE_ERROR_INVALID_KEY
 * Since: 1.0
 */
gboolean
ncz_store_key_is_valid (const char *key,
                        gboolean    allow_root,
                        GError    **error)
{
  gsize len;
  const char *seg;
  const char *p;

  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  len = strlen (key);
  if (len == 0)
    {
      if (allow_root)
        return TRUE;
      return invalid_key (error, key, "the empty key names no object");
    }
  if (len > NCZ_STORE_KEY_MAX)
    return invalid_key (error, key, "%" G_GSIZE_FORMAT " bytes long, the limit is %d",
                        len, NCZ_STORE_KEY_MAX);
  if (!g_utf8_validate (key, len, NULL))
    return invalid_key (error, key, "not valid UTF-8");

  for (p = key; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c))
        return invalid_key (error, key, "contains the control character U+%04X", c);
    }

  if (key[0] == '/')
    return invalid_key (error, key, "keys are relative and must not start with '/'");

  seg = key;
  for (;;)
    {
      const char *end = strchr (seg, '/');
      gsize seglen = end ? (gsize) (end - seg) : strlen (seg);

      if (seglen == 0)
        return invalid_key (error, key, end ? "empty path segment" : "trailing '/'");
      if ((seglen == 1 && seg[0] == '.') ||
          (seglen == 2 && seg[0] == '.' && seg[1] == '.'))
        return invalid_key (error, key, "'.' and '..' are not allowed as path segments");
      if (end == NULL)
        break;
      seg = end + 1;
    }

  return TRUE;
}

/* Checks a driver's result: a NULL/FALSE return must come with an error. */
static gboolean
check_failure (NczStore   *self,
               const char *what,
               GError     *local_error,
               GError    **error)
{
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  g_critical ("%s: %s() of %s failed without setting an error", G_STRLOC, what,
              G_OBJECT_TYPE_NAME (self));
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
               "%s failed in the %s storage driver", what, G_OBJECT_TYPE_NAME (self));
  return FALSE;
}

static gboolean
not_supported (NczStore   *self,
               const char *what,
               GError    **error)
{
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
               "the %s storage driver does not implement %s",
               G_OBJECT_TYPE_NAME (self), what);
  return FALSE;
}

/**
 * ncz_store_read_range:
 * @self: a store
 * @key: the object key
 * @offset: the first byte to read
 * @length: how many bytes to read, or -1 for all bytes to the end
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the bytes @offset to @offset + @length of the object at @key.
 *
 * A range running past the end of the object is cut short at the end; an
 * @offset equal to the object's length gives empty bytes, an @offset past
 * it fails with %NCZ_STORAGE_ERROR_FAILED. A missing object fails with
 * %NCZ_STORAGE_ERROR_NOT_FOUND.
 *
 * Returns: (transfer full): the bytes, or %NULL on error
 * Since: 1.0
 */
GBytes *
ncz_store_read_range (NczStore     *self,
                      const char   *key,
                      guint64       offset,
                      gint64        length,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  GBytes *result;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (length >= -1, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ncz_store_key_is_valid (key, FALSE, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read == NULL)
    {
      not_supported (self, "read", error);
      return NULL;
    }

  result = iface->read (self, key, offset, length, cancellable, &local_error);
  if (result == NULL)
    check_failure (self, "read", local_error, error);
  else if (local_error != NULL)
    {
      g_critical ("%s: read() of %s returned a value and set an error", G_STRLOC,
                  G_OBJECT_TYPE_NAME (self));
      g_clear_error (&local_error);
    }
  return result;
}

/**
 * ncz_store_read:
 * @self: a store
 * @key: the object key
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the whole object at @key. A missing object fails with
 * %NCZ_STORAGE_ERROR_NOT_FOUND.
 *
 * Returns: (transfer full): the bytes, or %NULL on error
 * Since: 1.0
 */
GBytes *
ncz_store_read (NczStore     *self,
                const char   *key,
                GCancellable *cancellable,
                GError      **error)
{
  return ncz_store_read_range (self, key, 0, -1, cancellable, error);
}

/**
 * ncz_store_read_many:
 * @self: a store
 * @keys: (array zero-terminated=1): the object keys
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads several whole objects at once. Drivers that talk to a network keep
 * many requests in flight; others read the objects one by one.
 *
 * The result holds one element per key, in order. A missing object is not
 * an error: its element is %NULL. Any other failure fails the whole call.
 *
 * Returns: (transfer full) (element-type GBytes): the objects' bytes, or
 *   %NULL on error
 * Since: 1.0
 */
GPtrArray *
ncz_store_read_many (NczStore            *self,
                     const char * const  *keys,
                     GCancellable        *cancellable,
                     GError             **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  g_autoptr(GPtrArray) result = NULL;
  guint n;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (keys != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (n = 0; keys[n] != NULL; n++)
    if (!ncz_store_key_is_valid (keys[n], FALSE, error))
      return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_many != NULL)
    {
      result = iface->read_many (self, keys, cancellable, &local_error);
      if (result == NULL)
        {
          check_failure (self, "read_many", local_error, error);
          return NULL;
        }
      g_clear_error (&local_error);
      if (result->len != n)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "the %s storage driver returned %u objects for %u keys",
                       G_OBJECT_TYPE_NAME (self), result->len, n);
          return NULL;
        }
      return g_steal_pointer (&result);
    }

  result = g_ptr_array_new_full (n, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < n; i++)
    {
      GBytes *bytes = ncz_store_read (self, keys[i], cancellable, &local_error);

      if (bytes == NULL &&
          !g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, local_error);
          return NULL;
        }
      g_clear_error (&local_error);
      g_ptr_array_add (result, bytes);
    }
  return g_steal_pointer (&result);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  GBytes *bytes;

  bytes = ncz_store_read (NCZ_STORE (source_object), task_data, cancellable, &error);
  if (bytes == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

/**
 * ncz_store_read_async:
 * @self: a store
 * @key: the object key
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the read is done
 * @user_data: data for @callback
 *
 * Reads the whole object at @key in a worker thread. Finish with
 * [method@Ncz.Store.read_finish].
 *
 * Since: 1.0
 */
void
ncz_store_read_async (NczStore            *self,
                      const char          *key,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_store_read_async);
  g_task_set_task_data (task, g_strdup (key), g_free);
  g_task_run_in_thread (task, read_thread);
}

/**
 * ncz_store_read_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.read_async].
 *
 * Returns: (transfer full): the bytes, or %NULL on error
 * Since: 1.0
 */
GBytes *
ncz_store_read_finish (NczStore     *self,
                       GAsyncResult *result,
                       GError      **error)
{
  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_store_read_async, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ncz_store_write:
 * @self: a store
 * @key: the object key
 * @data: the object's bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the object at @key whole, replacing any object already there.
 * Drivers replace objects atomically where the storage allows it: a
 * failed write leaves the previous object intact.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_write (NczStore     *self,
                 const char   *key,
                 GBytes       *data,
                 GCancellable *cancellable,
                 GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ncz_store_key_is_valid (key, FALSE, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->write == NULL)
    return not_supported (self, "write", error);
  if (!iface->write (self, key, data, cancellable, &local_error))
    return check_failure (self, "write", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

typedef struct {
  NczStore *store;
  const char *key;
  GBytes *data;
  GCancellable *cancellable;
  GError *error;
} WriteItem;

static void
write_item (gpointer item, gpointer user_data)
{
  WriteItem *w = item;
  ncz_store_write (w->store, w->key, w->data, w->cancellable, &w->error);
}

/**
 * ncz_store_write_many:
 * @self: a store
 * @keys: (array length=n): the object keys
 * @data: (array length=n): the objects' bytes
 * @n: the number of objects
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes several objects, in no particular order and possibly at the
 * same time (a driver may keep many requests in flight). Every object is
 * attempted; the first failure is reported.
 *
 * Returns: %TRUE if every object was written
 * Since: 1.0
 */
gboolean
ncz_store_write_many (NczStore            *self,
                      const char * const  *keys,
                      GBytes * const      *data,
                      guint                n,
                      GCancellable        *cancellable,
                      GError             **error)
{
  NczStoreInterface *iface;
  g_autofree WriteItem *items = NULL;
  g_autofree gpointer *ptrs = NULL;
  gboolean ok = TRUE;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (n == 0 || (keys != NULL && data != NULL), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; i < n; i++)
    if (!ncz_store_key_is_valid (keys[i], FALSE, error))
      return FALSE;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->write_many != NULL)
    {
      GError *local_error = NULL;
      if (!iface->write_many (self, keys, data, n, cancellable, &local_error))
        return check_failure (self, "write", local_error, error);
      g_clear_error (&local_error);
      return TRUE;
    }

  items = g_new0 (WriteItem, n);
  ptrs = g_new (gpointer, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      items[i].store = self;
      items[i].key = keys[i];
      items[i].data = data[i];
      items[i].cancellable = cancellable;
      ptrs[i] = &items[i];
    }
  ncz_parallel_for (ptrs, n, write_item, NULL);
  for (guint i = 0; i < n; i++)
    if (items[i].error)
      {
        if (ok)
          g_propagate_error (error, g_steal_pointer (&items[i].error));
        else
          g_clear_error (&items[i].error);
        ok = FALSE;
      }
  return ok;
}

/**
 * ncz_store_remove:
 * @self: a store
 * @key: the object key or prefix; the empty string for everything
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Deletes the object at @key and every object whose key starts with
 * @key followed by `/`. Removing a key under which nothing is stored is
 * not an error.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_remove (NczStore     *self,
                  const char   *key,
                  GCancellable *cancellable,
                  GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ncz_store_key_is_valid (key, TRUE, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->remove == NULL)
    return not_supported (self, "remove", error);
  if (!iface->remove (self, key, cancellable, &local_error))
    {
      if (g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        {
          g_clear_error (&local_error);
          return TRUE;
        }
      return check_failure (self, "remove", local_error, error);
    }
  g_clear_error (&local_error);
  return TRUE;
}

/**
 * ncz_store_get_length:
 * @self: a store
 * @key: the object key
 * @length: (out) (optional): return location for the object's length in bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Gets the length of the object at @key. A missing object fails with
 * %NCZ_STORAGE_ERROR_NOT_FOUND.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_get_length (NczStore     *self,
                      const char   *key,
                      guint64      *length,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  guint64 len = 0;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ncz_store_key_is_valid (key, FALSE, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->get_length == NULL)
    return not_supported (self, "get_length", error);
  if (!iface->get_length (self, key, &len, cancellable, &local_error))
    return check_failure (self, "get_length", local_error, error);
  g_clear_error (&local_error);
  if (length != NULL)
    *length = len;
  return TRUE;
}

/**
 * ncz_store_commit:
 * @self: a store opened with %NCZ_STORE_CREATE
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Makes what was written through @self replace what was at its URL
 * before. Drivers that stage a replacement keep the previous dataset
 * readable, and intact, until this call; NczDataset calls it when a
 * created dataset is closed successfully.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_commit (NczStore     *self,
                  GCancellable *cancellable,
                  GError      **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->commit == NULL)
    return TRUE;
  return iface->commit (self, cancellable, error);
}

/**
 * ncz_store_discard:
 * @self: a store opened with %NCZ_STORE_CREATE
 *
 * Drops what was written through @self, not committed: where the driver
 * staged it, what was at the URL before stays as it was. Stores that
 * write in place keep what was written.
 *
 * Since: 1.0
 */
void
ncz_store_discard (NczStore *self)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->discard != NULL)
    iface->discard (self);
}

/**
 * ncz_store_exists:
 * @self: a store
 * @key: the object key
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Tests whether an object is stored at @key. A key that is only a prefix
 * of other keys holds no object.
 *
 * Returns: %TRUE if the object exists; %FALSE without an error if it does
 *   not, %FALSE with @error set if the store could not tell
 * Since: 1.0
 */
gboolean
ncz_store_exists (NczStore     *self,
                  const char   *key,
                  GCancellable *cancellable,
                  GError      **error)
{
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (ncz_store_get_length (self, key, NULL, cancellable, &local_error))
    return TRUE;
  if (g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    {
      g_error_free (local_error);
      return FALSE;
    }
  g_propagate_error (error, local_error);
  return FALSE;
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * ncz_store_list:
 * @self: a store
 * @prefix: a key prefix; the empty string for the root
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Lists the immediate children of @prefix: every name such that
 * `prefix/name` (or `name` for the root) is a key or a prefix of a key.
 * A prefix with no children gives an empty array, not an error.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names in byte
 *   order, or %NULL on error
 * Since: 1.0
 */
char **
ncz_store_list (NczStore     *self,
                const char   *prefix,
                GCancellable *cancellable,
                GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  char **names;
  guint n, i, j;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (prefix != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ncz_store_key_is_valid (prefix, TRUE, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->list == NULL)
    {
      not_supported (self, "list", error);
      return NULL;
    }

  names = iface->list (self, prefix, cancellable, &local_error);
  if (names == NULL)
    {
      if (g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        {
          g_clear_error (&local_error);
          return g_new0 (char *, 1);
        }
      check_failure (self, "list", local_error, error);
      return NULL;
    }
  g_clear_error (&local_error);

  /* Sorted and without duplicates, whatever the driver did. */
  n = g_strv_length (names);
  g_qsort_with_data (names, (gint) n, sizeof (char *), compare_names, NULL);
  for (i = 0, j = 0; i < n; i++)
    {
      if (j > 0 && strcmp (names[j - 1], names[i]) == 0)
        g_free (names[i]);
      else
        names[j++] = names[i];
    }
  names[j] = NULL;
  return names;
}
