/* ncz-store.c: the storage driver (zmap) interface
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz/ncz-error.h"
#include "ncz/ncz-store.h"
#include "ncz/ncz-lock-file.h"
#include "ncz/ncz-module.h"
#include "ncz/ncz-url.h"
#include "ncz-io-private.h"

/**
 * NczStore:
 *
 * A key/object store: the "zmap" of NCZarr.
 *
 * Objects are byte strings named by keys, `/`-separated relative paths
 * such as `.zgroup` or `grp/var/0.1`. A key names either an object or a
 * prefix of other keys; the empty key is the root prefix. Keys are checked
 * by [func@Ncz.Store.key_is_valid] before any driver sees them, so drivers
 * never receive `..`, `.`, empty segments, control characters, invalid
 * UTF-8 or keys longer than 1024 bytes.
 *
 * A key that holds no object gives %NCZ_STORAGE_ERROR_NOT_FOUND.
 *
 * Implementations must be safe to call from several threads at once.
 * Drivers opened from a URL are constructed with the construct-only
 * properties [property@Ncz.Store:url] and [property@Ncz.Store:flags]
 * and usually implement [iface@Gio.Initable].
 *
 * Every storage call has an asynchronous pair (`_async`/`_finish`) that
 * takes an I/O priority and a #GCancellable; unless the driver does its
 * own asynchronous I/O, it runs the synchronous call in a thread.
 *
 * Since: 1.0
 */

G_DEFINE_INTERFACE (NczStore, ncz_store, G_TYPE_OBJECT)

/**
 * ncz_store_range_get_type:
 *
 * Returns: the #GType of #NczStoreRange
 *
 * Since: 1.0
 */
G_DEFINE_BOXED_TYPE (NczStoreRange, ncz_store_range, ncz_store_range_copy, ncz_store_range_free)

/**
 * ncz_store_range_copy:
 * @range: a byte range
 *
 * Copies a byte range. Free the copy with ncz_store_range_free().
 *
 * Returns: (transfer full): a copy of @range
 * Since: 1.0
 */
NczStoreRange *
ncz_store_range_copy (const NczStoreRange *range)
{
  g_return_val_if_fail (range != NULL, NULL);
  return g_memdup2 (range, sizeof *range);
}

/**
 * ncz_store_range_free:
 * @range: a byte range from ncz_store_range_copy()
 *
 * Frees a range made by ncz_store_range_copy().
 *
 * Since: 1.0
 */
void
ncz_store_range_free (NczStoreRange *range)
{
  g_free (range);
}

#define NCZ_STORE_KEY_MAX 1024
#define NCZ_STORE_KEY_MESSAGE_MAX 200

static void real_read_async (NczStore *self, const char *key, guint64 offset, gint64 length,
                             int io_priority, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
static GBytes *real_read_finish (NczStore *self, GAsyncResult *result, GError **error);
static void real_read_ranges_async (NczStore *self, const char *key,
                                    const NczStoreRange *ranges, guint n_ranges,
                                    int io_priority, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
static GPtrArray *real_read_ranges_finish (NczStore *self, GAsyncResult *result, GError **error);
static void real_read_many_async (NczStore *self, const char * const *keys, int io_priority,
                                  GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data);
static GPtrArray *real_read_many_finish (NczStore *self, GAsyncResult *result, GError **error);
static void real_write_async (NczStore *self, const char *key, GBytes *data, int io_priority,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data);
static gboolean real_write_finish (NczStore *self, GAsyncResult *result, GError **error);
static void real_remove_async (NczStore *self, const char *key, int io_priority,
                               GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data);
static gboolean real_remove_finish (NczStore *self, GAsyncResult *result, GError **error);
static void real_get_length_async (NczStore *self, const char *key, int io_priority,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
static gboolean real_get_length_finish (NczStore *self, GAsyncResult *result,
                                        guint64 *length, GError **error);
static void real_list_page_async (NczStore *self, const char *prefix, const char *token,
                                  guint max_names, int io_priority, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
static char **real_list_page_finish (NczStore *self, GAsyncResult *result,
                                     char **next_token, GError **error);

static void
ncz_store_default_init (NczStoreInterface *iface)
{
  /**
   * NczStore:url:
   *
   * The URL the store was opened from; %NULL for a store made in memory.
   *
   * Since: 1.0
   */
  g_object_interface_install_property (iface,
      g_param_spec_object ("url", NULL, NULL, NCZ_TYPE_URL,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  /**
   * NczStore:flags:
   *
   * How the store was opened.
   *
   * Since: 1.0
   */
  g_object_interface_install_property (iface,
      g_param_spec_flags ("flags", NULL, NULL, NCZ_TYPE_STORE_FLAGS, NCZ_STORE_READ,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  iface->read_async = real_read_async;
  iface->read_finish = real_read_finish;
  iface->read_ranges_async = real_read_ranges_async;
  iface->read_ranges_finish = real_read_ranges_finish;
  iface->read_many_async = real_read_many_async;
  iface->read_many_finish = real_read_many_finish;
  iface->write_async = real_write_async;
  iface->write_finish = real_write_finish;
  iface->remove_async = real_remove_async;
  iface->remove_finish = real_remove_finish;
  iface->get_length_async = real_get_length_async;
  iface->get_length_finish = real_get_length_finish;
  iface->list_page_async = real_list_page_async;
  iface->list_page_finish = real_list_page_finish;
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

/* one object of the default read_many */
typedef struct {
  NczStore *store;
  const char *key;
  GCancellable *cancellable;
  GBytes *bytes;
  GError *error;
} ReadItem;

static void
read_item (gpointer item, gpointer user_data)
{
  ReadItem *r = item;
  GError *local_error = NULL;

  if (g_cancellable_set_error_if_cancelled (r->cancellable, &r->error))
    return;
  r->bytes = ncz_store_read (r->store, r->key, r->cancellable, &local_error);
  if (r->bytes == NULL &&
      !g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    r->error = local_error;
  else
    g_clear_error (&local_error);
}

/**
 * ncz_store_read_many:
 * @self: a store
 * @keys: (array zero-terminated=1): the object keys
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads several whole objects at once, keeping up to one request per key
 * in flight (at most %NCZ_STORE_MAX_IO_DEPTH): a caller that wants a
 * given I/O depth passes that many keys at a time. Drivers that talk to
 * a network issue the requests their own way.
 *
 * Returns: (transfer container) (element-type GBytes): the objects, in the
 *   order of @keys, with a %NULL element for each key that holds no
 *   object; %NULL on error (any error other than a missing object)
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
  g_autofree ReadItem *items = NULL;
  g_autofree gpointer *ptrs = NULL;
  guint n;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (keys != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n = g_strv_length ((char **) keys);
  for (guint i = 0; i < n; i++)
    if (!ncz_store_key_is_valid (keys[i], FALSE, error))
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

  items = g_new0 (ReadItem, MAX (n, 1));
  ptrs = g_new (gpointer, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      items[i].store = self;
      items[i].key = keys[i];
      items[i].cancellable = cancellable;
      ptrs[i] = &items[i];
    }
  ncz_io_run (ptrs, n, n, read_item, NULL);

  result = g_ptr_array_new_full (n, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < n; i++)
    {
      if (items[i].error != NULL && local_error == NULL)
        local_error = g_steal_pointer (&items[i].error);
      g_clear_error (&items[i].error);
      g_ptr_array_add (result, items[i].bytes);
    }
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return NULL;
    }
  return g_steal_pointer (&result);
}

/**
 * ncz_store_read_ranges:
 * @self: a store
 * @key: the object key
 * @ranges: (array length=n_ranges): the byte ranges
 * @n_ranges: the number of ranges
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads several byte ranges of the object at @key in one call, as
 * [method@Ncz.Store.read_range] reads one: a range running past the end
 * is cut short there, one starting past the end fails. A driver may
 * fetch them in one request (an HTTP multi-range request) or merge
 * neighbours; the default reads them one by one.
 *
 * Returns: (transfer container) (element-type GBytes): one #GBytes per
 *   range, in the order of @ranges, or %NULL on error
 * Since: 1.0
 */
GPtrArray *
ncz_store_read_ranges (NczStore            *self,
                       const char          *key,
                       const NczStoreRange *ranges,
                       guint                n_ranges,
                       GCancellable        *cancellable,
                       GError             **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  g_autoptr(GPtrArray) result = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (n_ranges == 0 || ranges != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ncz_store_key_is_valid (key, FALSE, error))
    return NULL;
  for (guint i = 0; i < n_ranges; i++)
    if (ranges[i].length < -1)
      {
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "object '%s': range %u has the length %" G_GINT64_FORMAT,
                     key, i, ranges[i].length);
        return NULL;
      }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_ranges != NULL)
    {
      result = iface->read_ranges (self, key, ranges, n_ranges, cancellable, &local_error);
      if (result == NULL)
        {
          check_failure (self, "read_ranges", local_error, error);
          return NULL;
        }
      g_clear_error (&local_error);
      if (result->len != n_ranges)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "the %s storage driver returned %u ranges of object '%s' for %u",
                       G_OBJECT_TYPE_NAME (self), result->len, key, n_ranges);
          return NULL;
        }
      return g_steal_pointer (&result);
    }

  result = g_ptr_array_new_full (n_ranges, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < n_ranges; i++)
    {
      GBytes *bytes = ncz_store_read_range (self, key, ranges[i].offset, ranges[i].length,
                                            cancellable, error);
      if (bytes == NULL)
        return NULL;
      g_ptr_array_add (result, bytes);
    }
  return g_steal_pointer (&result);
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
  /* as read_many: on the I/O threads, every object in flight at once */
  ncz_io_run (ptrs, n, n, write_item, NULL);
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
 * @self: a store opened for writing
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Makes what was written through @self replace what was at its URL
 * before. Drivers that stage a replacement keep the previous dataset
 * readable, and intact, until this call; NczDataset calls it when a
 * writable dataset (created, or opened for writing) is closed
 * successfully. For a store opened without %NCZ_STORE_CREATE it stores
 * what a driver that stages updates holds back.
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


/**
 * ncz_store_list_page:
 * @self: a store
 * @prefix: a key prefix; the empty string for the root
 * @token: (nullable): where to continue: %NULL for the first page, else
 *   the @next_token of the page before
 * @max_names: the most names to return (at least 1)
 * @next_token: (out) (optional) (nullable) (transfer full): return
 *   location for the token of the next page, %NULL after the last page
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Lists the immediate children of @prefix as [method@Ncz.Store.list]
 * does, a page at a time, for a browser that shows a large store as it
 * comes in, or a driver whose server lists in pages (S3's continuation
 * tokens). The token is opaque: pass back what the page before gave.
 * Names are in byte order across pages, each exactly once, while the
 * store is not changed in between.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of this
 *   page (empty after the last), or %NULL on error
 * Since: 1.0
 */
char **
ncz_store_list_page (NczStore      *self,
                     const char    *prefix,
                     const char    *token,
                     guint          max_names,
                     char         **next_token,
                     GCancellable  *cancellable,
                     GError       **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  g_auto(GStrv) all = NULL;
  g_autofree char *next = NULL;
  char **names;
  guint n, first, count;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (prefix != NULL, NULL);
  g_return_val_if_fail (max_names > 0, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (next_token != NULL)
    *next_token = NULL;
  if (!ncz_store_key_is_valid (prefix, TRUE, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->list_page != NULL)
    {
      names = iface->list_page (self, prefix, token, max_names, &next, cancellable, &local_error);
      if (names == NULL)
        {
          g_free (g_steal_pointer (&next));
          if (g_error_matches (local_error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            {
              g_clear_error (&local_error);
              return g_new0 (char *, 1);
            }
          check_failure (self, "list_page", local_error, error);
          return NULL;
        }
      g_clear_error (&local_error);
      if (next_token != NULL)
        *next_token = g_steal_pointer (&next);
      return names;
    }

  /* the default: the whole (sorted) listing, cut after the name the
   * token holds */
  all = ncz_store_list (self, prefix, cancellable, error);
  if (all == NULL)
    return NULL;
  n = g_strv_length (all);
  first = 0;
  if (token != NULL)
    while (first < n && strcmp (all[first], token) <= 0)
      first++;
  count = MIN (n - first, max_names);
  names = g_new0 (char *, count + 1);
  for (guint i = 0; i < count; i++)
    names[i] = g_strdup (all[first + i]);
  if (first + count < n && next_token != NULL)
    *next_token = g_strdup (names[count - 1]);
  return names;
}

/**
 * ncz_store_get_io_depth_hint:
 * @self: a store
 *
 * Gets how many requests in flight suit @self: few for a local store
 * whose reads are copies from memory, dozens for a remote one. A
 * dataset's [property@Ncz.Dataset:io-depth] starts from it.
 *
 * Returns: the number of requests, 1 to %NCZ_STORE_MAX_IO_DEPTH
 * Since: 1.0
 */
guint
ncz_store_get_io_depth_hint (NczStore *self)
{
  NczStoreInterface *iface;
  guint depth;

  g_return_val_if_fail (NCZ_IS_STORE (self), NCZ_STORE_DEFAULT_IO_DEPTH);

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->get_io_depth_hint == NULL)
    return NCZ_STORE_DEFAULT_IO_DEPTH;
  depth = iface->get_io_depth_hint (self);
  return CLAMP (depth, 1, NCZ_STORE_MAX_IO_DEPTH);
}

/**
 * ncz_store_is_remote:
 * @self: a store
 *
 * Gets whether each request of @self crosses a network (S3, HTTP): a
 * listing or a small read then costs a round trip, and a format keeps
 * its requests few, for instance by writing consolidated metadata.
 *
 * Returns: %TRUE for a remote store
 * Since: 1.0
 */
gboolean
ncz_store_is_remote (NczStore *self)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);

  iface = NCZ_STORE_GET_IFACE (self);
  return iface->is_remote != NULL && iface->is_remote (self);
}

/**
 * ncz_store_lock_key:
 * @self: a store
 * @key: (nullable): the object whose read-modify-write the lock guards,
 *   or %NULL for the dataset's metadata lock
 * @timeout_ms: how long to wait for another holder: 0 to try once, -1
 *   without limit
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Takes, across threads and processes, the lock that guards @key (see
 * docs/concurrency.md). With the URL fragment key `lock.dir=DIR` the
 * lock is taken in a lock file in DIR named after the dataset, whatever
 * the store (the opt-in lock of every process that names the same
 * directory); otherwise the store's own. Stores without locks
 * (ncz_store_has_locks() says %FALSE) succeed at once. Every successful call is paired with
 * ncz_store_unlock_key().
 *
 * Returns: %TRUE with the lock held; %FALSE with @error set,
 * %NCZ_STORAGE_ERROR_LOCKED naming the holder when the time ran out
 * Since: 1.0
 */
/* The opt-in lock (URL key lock.dir=DIR): a lock file in a directory all
 * the writers share, named after the dataset, which serves as the
 * store's locks whatever the store is. Opened once per store. */
static GQuark
lock_dir_quark (void)
{
  return g_quark_from_static_string ("ncz-store-lock-dir");
}

G_LOCK_DEFINE_STATIC (lock_dir);

static const char *
lock_dir_of (NczStore *self)
{
  NczUrl *url = ncz_store_get_url (self);
  const char *dir = url != NULL ? ncz_url_get_fragment_value (url, "lock.dir") : NULL;

  return dir != NULL && *dir != '\0' ? dir : NULL;
}

/* The dataset a URL names, whatever its fragment: scheme, host, port and
 * path. */
static char *
dataset_identity (NczUrl *url)
{
  return g_strdup_printf ("%s://%s:%d%s", ncz_url_get_scheme (url) ? ncz_url_get_scheme (url) : "",
                          ncz_url_get_host (url) ? ncz_url_get_host (url) : "",
                          ncz_url_get_port (url),
                          ncz_url_get_path (url) ? ncz_url_get_path (url) : "");
}

static NczLockFile *
lock_dir_file (NczStore *self, GError **error)
{
  const char *dir = lock_dir_of (self);
  NczLockFile *lf;

  G_LOCK (lock_dir);
  lf = g_object_get_qdata (G_OBJECT (self), lock_dir_quark ());
  if (lf == NULL)
    {
      g_autofree char *id = dataset_identity (ncz_store_get_url (self));
      g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, id, -1);
      g_autofree char *name = g_strdup_printf ("%.32s.ncz-lock", sum);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GError) local = NULL;

      lf = ncz_lock_file_open (path, &local);
      if (lf == NULL)
        g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                    "URL '%s', key lock.dir: ",
                                    ncz_url_get_original (ncz_store_get_url (self)));
      else
        g_object_set_qdata_full (G_OBJECT (self), lock_dir_quark (), lf,
                                 (GDestroyNotify) ncz_lock_file_close);
    }
  G_UNLOCK (lock_dir);
  return lf;
}

gboolean
ncz_store_lock_key (NczStore     *self,
                    const char   *key,
                    gint64        timeout_ms,
                    GCancellable *cancellable,
                    GError      **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (key != NULL && !ncz_store_key_is_valid (key, FALSE, error))
    return FALSE;
  if (lock_dir_of (self) != NULL)
    {
      NczLockFile *lf = lock_dir_file (self, error);
      if (lf == NULL)
        return FALSE;
      if (ncz_lock_file_lock_key (lf, key, timeout_ms, cancellable, error))
        return TRUE;
      g_prefix_error (error, "URL '%s': ", ncz_url_get_original (ncz_store_get_url (self)));
      return FALSE;
    }
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->lock_key == NULL)
    return TRUE;
  return iface->lock_key (self, key, timeout_ms, cancellable, error);
}

/**
 * ncz_store_unlock_key:
 * @self: a store
 * @key: (nullable): what ncz_store_lock_key() locked
 *
 * Releases a lock ncz_store_lock_key() took.
 *
 * Since: 1.0
 */
void
ncz_store_unlock_key (NczStore *self, const char *key)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));

  if (lock_dir_of (self) != NULL)
    {
      NczLockFile *lf = g_object_get_qdata (G_OBJECT (self), lock_dir_quark ());
      if (lf != NULL)
        ncz_lock_file_unlock_key (lf, key);
      return;
    }
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->lock_key != NULL && iface->unlock_key != NULL)
    iface->unlock_key (self, key);
}

/**
 * ncz_store_has_locks:
 * @self: a store
 *
 * Tells whether locks taken on the store keep out other processes, which
 * writers sharing a dataset need.
 *
 * Returns: whether ncz_store_lock_key() takes locks shared with other
 * processes: the store's own, or those of the lock directory the URL
 * names (`lock.dir`)
 * Since: 1.0
 */
gboolean
ncz_store_has_locks (NczStore *self)
{
  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  return lock_dir_of (self) != NULL || NCZ_STORE_GET_IFACE (self)->lock_key != NULL;
}

/**
 * ncz_store_read_tagged:
 * @self: a store
 * @key: the object key
 * @tag: (out) (optional) (nullable) (transfer full): the version of the
 *   object read, for ncz_store_write_if(); %NULL if the store has none
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the object at @key whole, with its version.
 *
 * Returns: (transfer full): the object's bytes, or %NULL with @error set
 * (%NCZ_STORAGE_ERROR_NOT_FOUND if there is none)
 * Since: 1.0
 */
GBytes *
ncz_store_read_tagged (NczStore     *self,
                       const char   *key,
                       char        **tag,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;
  GBytes *bytes;
  char *t = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (tag != NULL)
    *tag = NULL;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_tagged == NULL)
    return ncz_store_read (self, key, cancellable, error);
  if (!ncz_store_key_is_valid (key, FALSE, error) ||
      g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  bytes = iface->read_tagged (self, key, &t, cancellable, &local_error);
  if (bytes == NULL)
    {
      g_free (t);
      check_failure (self, "read", local_error, error);
      return NULL;
    }
  g_clear_error (&local_error);
  if (tag != NULL)
    *tag = t;
  else
    g_free (t);
  return bytes;
}

/**
 * ncz_store_write_if:
 * @self: a store
 * @key: the object key
 * @data: the object's bytes
 * @tag: (nullable): the version ncz_store_read_tagged() gave, or %NULL
 *   to write only if no object exists
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the object at @key if nobody changed it since it was read
 * (compare and swap). Stores without conditional writes
 * (ncz_store_has_conditional_writes() says %FALSE) write it
 * unconditionally; their writers share ncz_store_lock_key() instead.
 *
 * Returns: %TRUE on success; %FALSE with @error set,
 * %NCZ_STORAGE_ERROR_CONFLICT if the object changed meanwhile
 * Since: 1.0
 */
gboolean
ncz_store_write_if (NczStore     *self,
                    const char   *key,
                    GBytes       *data,
                    const char   *tag,
                    GCancellable *cancellable,
                    GError      **error)
{
  NczStoreInterface *iface;
  GError *local_error = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->write_if == NULL)
    return ncz_store_write (self, key, data, cancellable, error);
  if (!ncz_store_key_is_valid (key, FALSE, error) ||
      g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (!iface->write_if (self, key, data, tag, cancellable, &local_error))
    return check_failure (self, "write", local_error, error);
  g_clear_error (&local_error);
  return TRUE;
}

/**
 * ncz_store_has_conditional_writes:
 * @self: a store
 *
 * Tells whether the store can write an object only if its version is still
 * the one read before (compare and swap). Stores without it write
 * unconditionally in ncz_store_write_if(), and their writers share
 * ncz_store_lock_key() instead.
 *
 * Returns: whether ncz_store_write_if() compares versions
 * Since: 1.0
 */
gboolean
ncz_store_has_conditional_writes (NczStore *self)
{
  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  return NCZ_STORE_GET_IFACE (self)->write_if != NULL;
}

/**
 * ncz_store_get_url:
 * @self: a store
 *
 * Gets the [property@Ncz.Store:url] property.
 *
 * Returns: (transfer none) (nullable): the URL the store was opened from
 * Since: 1.0
 */
NczUrl *
ncz_store_get_url (NczStore *self)
{
  NczUrl *url = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_object_get (self, "url", &url, NULL);
  /* the store holds its own reference */
  if (url != NULL)
    g_object_unref (url);
  return url;
}

/**
 * ncz_store_get_flags:
 * @self: a store
 *
 * Gets the [property@Ncz.Store:flags] property.
 *
 * Returns: how the store was opened
 * Since: 1.0
 */
NczStoreFlags
ncz_store_get_flags (NczStore *self)
{
  NczStoreFlags flags = NCZ_STORE_READ;

  g_return_val_if_fail (NCZ_IS_STORE (self), NCZ_STORE_READ);
  g_object_get (self, "flags", &flags, NULL);
  return flags;
}

/* ---- asynchronous calls ----
 *
 * Each public *_async wrapper checks its arguments (reporting a bad key
 * or a cancelled call through the callback, tagged with itself) and calls
 * the driver's vfunc; the interface's defaults run the synchronous call
 * in a GTask thread at @io_priority. */

typedef enum {
  OP_READ,
  OP_READ_RANGES,
  OP_READ_MANY,
  OP_WRITE,
  OP_REMOVE,
  OP_GET_LENGTH,
  OP_LIST_PAGE,
} OpKind;

typedef struct {
  OpKind kind;
  char *key;                /* key, or prefix for OP_LIST_PAGE */
  guint64 offset;
  gint64 length;
  NczStoreRange *ranges;
  guint n_ranges;
  char **keys;
  GBytes *data;
  char *token;
  guint max_names;
} Op;

typedef struct {
  char **names;
  char *next_token;
} Page;

static void
op_free (Op *op)
{
  g_free (op->key);
  g_free (op->ranges);
  g_strfreev (op->keys);
  g_clear_pointer (&op->data, g_bytes_unref);
  g_free (op->token);
  g_free (op);
}

static void
page_free (Page *page)
{
  g_strfreev (page->names);
  g_free (page->next_token);
  g_free (page);
}

static void
op_thread (GTask        *task,
           gpointer      source_object,
           gpointer      task_data,
           GCancellable *cancellable)
{
  NczStore *self = source_object;
  Op *op = task_data;
  GError *error = NULL;

  switch (op->kind)
    {
    case OP_READ:
      {
        GBytes *bytes = ncz_store_read_range (self, op->key, op->offset, op->length,
                                              cancellable, &error);
        if (bytes == NULL)
          g_task_return_error (task, error);
        else
          g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
        break;
      }
    case OP_READ_RANGES:
    case OP_READ_MANY:
      {
        GPtrArray *array = op->kind == OP_READ_MANY
          ? ncz_store_read_many (self, (const char * const *) op->keys, cancellable, &error)
          : ncz_store_read_ranges (self, op->key, op->ranges, op->n_ranges, cancellable, &error);
        if (array == NULL)
          g_task_return_error (task, error);
        else
          g_task_return_pointer (task, array, (GDestroyNotify) g_ptr_array_unref);
        break;
      }
    case OP_WRITE:
      if (!ncz_store_write (self, op->key, op->data, cancellable, &error))
        g_task_return_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      break;
    case OP_REMOVE:
      if (!ncz_store_remove (self, op->key, cancellable, &error))
        g_task_return_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      break;
    case OP_GET_LENGTH:
      {
        guint64 length = 0;
        if (!ncz_store_get_length (self, op->key, &length, cancellable, &error))
          g_task_return_error (task, error);
        else
          g_task_return_pointer (task, g_memdup2 (&length, sizeof length), g_free);
        break;
      }
    case OP_LIST_PAGE:
      {
        Page *page = g_new0 (Page, 1);
        page->names = ncz_store_list_page (self, op->key, op->token, op->max_names,
                                           &page->next_token, cancellable, &error);
        if (page->names == NULL)
          {
            page_free (page);
            g_task_return_error (task, error);
          }
        else
          g_task_return_pointer (task, page, (GDestroyNotify) page_free);
        break;
      }
    default:
      g_assert_not_reached ();
    }
}

static void
run_op (NczStore            *self,
        Op                  *op,
        gpointer             source_tag,
        int                  io_priority,
        GCancellable        *cancellable,
        GAsyncReadyCallback  callback,
        gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_priority (task, io_priority);
  g_task_set_task_data (task, op, (GDestroyNotify) op_free);
  g_task_run_in_thread (task, op_thread);
}

static Op *
op_new (OpKind kind, const char *key)
{
  Op *op = g_new0 (Op, 1);
  op->kind = kind;
  op->key = g_strdup (key);
  return op;
}

static void
real_read_async (NczStore *self, const char *key, guint64 offset, gint64 length,
                 int io_priority, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_READ, key);
  op->offset = offset;
  op->length = length;
  run_op (self, op, real_read_async, io_priority, cancellable, callback, user_data);
}

static GBytes *
real_read_finish (NczStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
real_read_ranges_async (NczStore *self, const char *key, const NczStoreRange *ranges,
                        guint n_ranges, int io_priority, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_READ_RANGES, key);
  op->ranges = g_memdup2 (ranges, sizeof (NczStoreRange) * n_ranges);
  op->n_ranges = n_ranges;
  run_op (self, op, real_read_ranges_async, io_priority, cancellable, callback, user_data);
}

static GPtrArray *
real_read_ranges_finish (NczStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
real_read_many_async (NczStore *self, const char * const *keys, int io_priority,
                      GCancellable *cancellable, GAsyncReadyCallback callback,
                      gpointer user_data)
{
  Op *op = op_new (OP_READ_MANY, NULL);
  op->keys = g_strdupv ((char **) keys);
  run_op (self, op, real_read_many_async, io_priority, cancellable, callback, user_data);
}

static GPtrArray *
real_read_many_finish (NczStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
real_write_async (NczStore *self, const char *key, GBytes *data, int io_priority,
                  GCancellable *cancellable, GAsyncReadyCallback callback,
                  gpointer user_data)
{
  Op *op = op_new (OP_WRITE, key);
  op->data = g_bytes_ref (data);
  run_op (self, op, real_write_async, io_priority, cancellable, callback, user_data);
}

static gboolean
real_write_finish (NczStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
real_remove_async (NczStore *self, const char *key, int io_priority,
                   GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  run_op (self, op_new (OP_REMOVE, key), real_remove_async, io_priority, cancellable,
          callback, user_data);
}

static gboolean
real_remove_finish (NczStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
real_get_length_async (NczStore *self, const char *key, int io_priority,
                       GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  run_op (self, op_new (OP_GET_LENGTH, key), real_get_length_async, io_priority,
          cancellable, callback, user_data);
}

static gboolean
real_get_length_finish (NczStore *self, GAsyncResult *result, guint64 *length,
                        GError **error)
{
  g_autofree guint64 *value = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  value = g_task_propagate_pointer (G_TASK (result), error);
  if (value == NULL)
    return FALSE;
  if (length != NULL)
    *length = *value;
  return TRUE;
}

static void
real_list_page_async (NczStore *self, const char *prefix, const char *token,
                      guint max_names, int io_priority, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_LIST_PAGE, prefix);
  op->token = g_strdup (token);
  op->max_names = max_names;
  run_op (self, op, real_list_page_async, io_priority, cancellable, callback, user_data);
}

static char **
real_list_page_finish (NczStore *self, GAsyncResult *result, char **next_token,
                       GError **error)
{
  Page *page;
  char **names;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  page = g_task_propagate_pointer (G_TASK (result), error);
  if (page == NULL)
    return NULL;
  names = g_steal_pointer (&page->names);
  if (next_token != NULL)
    *next_token = g_steal_pointer (&page->next_token);
  page_free (page);
  return names;
}

/* Reports a failure found before the driver is called, tagged with the
 * public wrapper so that its finish function recognises it. */
static gboolean
report_early (NczStore            *self,
              gpointer             source_tag,
              const char          *key,
              gboolean             allow_root,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GError *error = NULL;

  if ((key == NULL || ncz_store_key_is_valid (key, allow_root, &error)) &&
      !g_cancellable_set_error_if_cancelled (cancellable, &error))
    return FALSE;
  g_task_report_error (self, callback, user_data, source_tag, error);
  return TRUE;
}

/**
 * ncz_store_read_range_async:
 * @self: a store
 * @key: the object key
 * @offset: the first byte to read
 * @length: how many bytes to read, or -1 for all bytes to the end
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the read is done
 * @user_data: data for @callback
 *
 * Starts reading a byte range of an object, as
 * [method@Ncz.Store.read_range] does. Finish with
 * [method@Ncz.Store.read_range_finish].
 *
 * Since: 1.0
 */
void
ncz_store_read_range_async (NczStore            *self,
                            const char          *key,
                            guint64              offset,
                            gint64               length,
                            int                  io_priority,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (length >= -1);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_read_range_async, key, FALSE, cancellable,
                    callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_async != NULL && iface->read_finish != NULL)
    iface->read_async (self, key, offset, length, io_priority, cancellable, callback, user_data);
  else
    real_read_async (self, key, offset, length, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_read_range_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.read_range_async]: gives what
 * [method@Ncz.Store.read_range] would have given, or sets the error it would
 * have set.
 *
 * Returns: (transfer full): the bytes, or %NULL on error
 * Since: 1.0
 */
GBytes *
ncz_store_read_range_finish (NczStore      *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_async_result_is_tagged (result, ncz_store_read_range_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_async != NULL && iface->read_finish != NULL)
    return iface->read_finish (self, result, error);
  return real_read_finish (self, result, error);
}

/**
 * ncz_store_read_async:
 * @self: a store
 * @key: the object key
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the read is done
 * @user_data: data for @callback
 *
 * Starts reading the whole object at @key. Finish with
 * [method@Ncz.Store.read_finish].
 *
 * Since: 1.0
 */
void
ncz_store_read_async (NczStore            *self,
                      const char          *key,
                      int                  io_priority,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  ncz_store_read_range_async (self, key, 0, -1, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_read_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.read_async]: gives what
 * [method@Ncz.Store.read] would have given, or sets the error it would
 * have set.
 *
 * Returns: (transfer full): the bytes, or %NULL on error
 * Since: 1.0
 */
GBytes *
ncz_store_read_finish (NczStore      *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  return ncz_store_read_range_finish (self, result, error);
}

/**
 * ncz_store_read_ranges_async:
 * @self: a store
 * @key: the object key
 * @ranges: (array length=n_ranges): the byte ranges
 * @n_ranges: the number of ranges
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the read is done
 * @user_data: data for @callback
 *
 * Starts reading several byte ranges of one object, as
 * [method@Ncz.Store.read_ranges] does. Finish with
 * [method@Ncz.Store.read_ranges_finish].
 *
 * Since: 1.0
 */
void
ncz_store_read_ranges_async (NczStore            *self,
                             const char          *key,
                             const NczStoreRange *ranges,
                             guint                n_ranges,
                             int                  io_priority,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (n_ranges == 0 || ranges != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_read_ranges_async, key, FALSE, cancellable,
                    callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_ranges_async != NULL && iface->read_ranges_finish != NULL)
    iface->read_ranges_async (self, key, ranges, n_ranges, io_priority, cancellable,
                              callback, user_data);
  else
    real_read_ranges_async (self, key, ranges, n_ranges, io_priority, cancellable,
                            callback, user_data);
}

/**
 * ncz_store_read_ranges_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.read_ranges_async]: gives what
 * [method@Ncz.Store.read_ranges] would have given, or sets the error it would
 * have set.
 *
 * Returns: (transfer container) (element-type GBytes): one #GBytes per
 *   range, or %NULL on error
 * Since: 1.0
 */
GPtrArray *
ncz_store_read_ranges_finish (NczStore      *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_async_result_is_tagged (result, ncz_store_read_ranges_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_ranges_async != NULL && iface->read_ranges_finish != NULL)
    return iface->read_ranges_finish (self, result, error);
  return real_read_ranges_finish (self, result, error);
}

/**
 * ncz_store_read_many_async:
 * @self: a store
 * @keys: (array zero-terminated=1): the object keys
 * @io_priority: the I/O priority of the requests (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when every object is read
 * @user_data: data for @callback
 *
 * Starts reading several whole objects, as [method@Ncz.Store.read_many]
 * does. Finish with [method@Ncz.Store.read_many_finish].
 *
 * Since: 1.0
 */
void
ncz_store_read_many_async (NczStore            *self,
                           const char * const  *keys,
                           int                  io_priority,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (keys != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  for (guint i = 0; keys[i] != NULL; i++)
    if (report_early (self, ncz_store_read_many_async, keys[i], FALSE, NULL,
                      callback, user_data))
      return;
  if (report_early (self, ncz_store_read_many_async, NULL, FALSE, cancellable,
                    callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_many_async != NULL && iface->read_many_finish != NULL)
    iface->read_many_async (self, keys, io_priority, cancellable, callback, user_data);
  else
    real_read_many_async (self, keys, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_read_many_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.read_many_async]: gives what
 * [method@Ncz.Store.read_many] would have given, or sets the error it would
 * have set.
 *
 * Returns: (transfer container) (element-type GBytes): the objects in the
 *   order of the keys, %NULL elements for missing ones; %NULL on error
 * Since: 1.0
 */
GPtrArray *
ncz_store_read_many_finish (NczStore      *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_async_result_is_tagged (result, ncz_store_read_many_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->read_many_async != NULL && iface->read_many_finish != NULL)
    return iface->read_many_finish (self, result, error);
  return real_read_many_finish (self, result, error);
}

/**
 * ncz_store_write_async:
 * @self: a store
 * @key: the object key
 * @data: the object's bytes
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the write is done
 * @user_data: data for @callback
 *
 * Starts writing an object whole, as [method@Ncz.Store.write] does.
 * Finish with [method@Ncz.Store.write_finish].
 *
 * Since: 1.0
 */
void
ncz_store_write_async (NczStore            *self,
                       const char          *key,
                       GBytes              *data,
                       int                  io_priority,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_write_async, key, FALSE, cancellable, callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->write_async != NULL && iface->write_finish != NULL)
    iface->write_async (self, key, data, io_priority, cancellable, callback, user_data);
  else
    real_write_async (self, key, data, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_write_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.write_async]: gives what
 * [method@Ncz.Store.write] would have given, or sets the error it would
 * have set.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_write_finish (NczStore      *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_async_result_is_tagged (result, ncz_store_write_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->write_async != NULL && iface->write_finish != NULL)
    return iface->write_finish (self, result, error);
  return real_write_finish (self, result, error);
}

/**
 * ncz_store_remove_async:
 * @self: a store
 * @key: the object key or prefix; the empty string for everything
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the removal is done
 * @user_data: data for @callback
 *
 * Starts deleting objects, as [method@Ncz.Store.remove] does. Finish
 * with [method@Ncz.Store.remove_finish].
 *
 * Since: 1.0
 */
void
ncz_store_remove_async (NczStore            *self,
                        const char          *key,
                        int                  io_priority,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_remove_async, key, TRUE, cancellable, callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->remove_async != NULL && iface->remove_finish != NULL)
    iface->remove_async (self, key, io_priority, cancellable, callback, user_data);
  else
    real_remove_async (self, key, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_remove_finish:
 * @self: a store
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.remove_async]: gives what
 * [method@Ncz.Store.remove] would have given, or sets the error it would
 * have set.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_remove_finish (NczStore      *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_async_result_is_tagged (result, ncz_store_remove_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->remove_async != NULL && iface->remove_finish != NULL)
    return iface->remove_finish (self, result, error);
  return real_remove_finish (self, result, error);
}

/**
 * ncz_store_get_length_async:
 * @self: a store
 * @key: the object key
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the length is known
 * @user_data: data for @callback
 *
 * Starts getting the length of an object, as
 * [method@Ncz.Store.get_length] does. Finish with
 * [method@Ncz.Store.get_length_finish].
 *
 * Since: 1.0
 */
void
ncz_store_get_length_async (NczStore            *self,
                            const char          *key,
                            int                  io_priority,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_get_length_async, key, FALSE, cancellable,
                    callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->get_length_async != NULL && iface->get_length_finish != NULL)
    iface->get_length_async (self, key, io_priority, cancellable, callback, user_data);
  else
    real_get_length_async (self, key, io_priority, cancellable, callback, user_data);
}

/**
 * ncz_store_get_length_finish:
 * @self: a store
 * @result: the result given to the callback
 * @length: (out) (optional): return location for the object's length
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.get_length_async]: gives what
 * [method@Ncz.Store.get_length] would have given, or sets the error it would
 * have set.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_store_get_length_finish (NczStore      *self,
                             GAsyncResult  *result,
                             guint64       *length,
                             GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), FALSE);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_async_result_is_tagged (result, ncz_store_get_length_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->get_length_async != NULL && iface->get_length_finish != NULL)
    return iface->get_length_finish (self, result, length, error);
  return real_get_length_finish (self, result, length, error);
}

/**
 * ncz_store_list_page_async:
 * @self: a store
 * @prefix: a key prefix; the empty string for the root
 * @token: (nullable): %NULL for the first page, else the token the page
 *   before gave
 * @max_names: the most names to return (at least 1)
 * @io_priority: the I/O priority of the request (%G_PRIORITY_DEFAULT)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the page is listed
 * @user_data: data for @callback
 *
 * Starts listing one page of names, as [method@Ncz.Store.list_page]
 * does. Finish with [method@Ncz.Store.list_page_finish].
 *
 * Since: 1.0
 */
void
ncz_store_list_page_async (NczStore            *self,
                           const char          *prefix,
                           const char          *token,
                           guint                max_names,
                           int                  io_priority,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  NczStoreInterface *iface;

  g_return_if_fail (NCZ_IS_STORE (self));
  g_return_if_fail (prefix != NULL);
  g_return_if_fail (max_names > 0);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (report_early (self, ncz_store_list_page_async, prefix, TRUE, cancellable,
                    callback, user_data))
    return;
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->list_page_async != NULL && iface->list_page_finish != NULL)
    iface->list_page_async (self, prefix, token, max_names, io_priority, cancellable,
                            callback, user_data);
  else
    real_list_page_async (self, prefix, token, max_names, io_priority, cancellable,
                          callback, user_data);
}

/**
 * ncz_store_list_page_finish:
 * @self: a store
 * @result: the result given to the callback
 * @next_token: (out) (optional) (nullable) (transfer full): return
 *   location for the token of the next page, %NULL after the last page
 * @error: return location for a #GError
 *
 * Finishes [method@Ncz.Store.list_page_async]: gives what
 * [method@Ncz.Store.list_page] would have given, or sets the error it would
 * have set.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   page, or %NULL on error
 * Since: 1.0
 */
char **
ncz_store_list_page_finish (NczStore      *self,
                            GAsyncResult  *result,
                            char         **next_token,
                            GError       **error)
{
  NczStoreInterface *iface;

  g_return_val_if_fail (NCZ_IS_STORE (self), NULL);
  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (next_token != NULL)
    *next_token = NULL;
  if (g_async_result_is_tagged (result, ncz_store_list_page_async))
    return g_task_propagate_pointer (G_TASK (result), error);
  iface = NCZ_STORE_GET_IFACE (self);
  if (iface->list_page_async != NULL && iface->list_page_finish != NULL)
    return iface->list_page_finish (self, result, next_token, error);
  return real_list_page_finish (self, result, next_token, error);
}

/* ---- module SDK: the construct properties of a store ---- */

/**
 * ncz_store_class_override_properties:
 * @object_class: the class of a type that implements #NczStore
 * @url_id: the property id the type gives "url"
 * @flags_id: the property id the type gives "flags"
 *
 * Overrides the interface's properties "url" and "flags" in @object_class
 * (g_object_class_override_property()).
 */
void
ncz_store_class_override_properties (GObjectClass *object_class,
                                     guint         url_id,
                                     guint         flags_id)
{
  g_return_if_fail (G_IS_OBJECT_CLASS (object_class));
  g_return_if_fail (url_id != 0 && flags_id != 0 && url_id != flags_id);

  g_object_class_override_property (object_class, url_id, "url");
  g_object_class_override_property (object_class, flags_id, "flags");
}

/* Which of the interface's two properties @pspec is: 1 "url", 2 "flags",
 * 0 neither. GObject hands an implementation the interface's own
 * GParamSpec for a property it overrides. */
static int
construct_property (GParamSpec *pspec)
{
  if (pspec == NULL || pspec->owner_type != NCZ_TYPE_STORE)
    return 0;
  if (strcmp (pspec->name, "url") == 0)
    return 1;
  if (strcmp (pspec->name, "flags") == 0)
    return 2;
  return 0;
}

/**
 * ncz_store_get_construct_property:
 * @pspec: the property asked for, as get_property receives it
 * @value: where the value goes
 * @url: (nullable): the store's URL
 * @flags: the store's flags
 *
 * For a store's get_property: gives "url" or "flags".
 *
 * Returns: %TRUE if @pspec is one of them (and @value is set)
 */
gboolean
ncz_store_get_construct_property (GParamSpec   *pspec,
                                  GValue       *value,
                                  NczUrl       *url,
                                  NczStoreFlags flags)
{
  switch (construct_property (pspec))
    {
    case 1:
      g_value_set_object (value, url);
      return TRUE;
    case 2:
      g_value_set_flags (value, flags);
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * ncz_store_set_construct_property:
 * @pspec: the property set, as set_property receives it
 * @value: the value
 * @url: (inout): the store's URL field: takes a reference on the new
 *   URL, drops the one it held
 * @flags: (inout): the store's flags field
 *
 * For a store's set_property: stores "url" or "flags".
 *
 * Returns: %TRUE if @pspec is one of them (and its field is set)
 */
gboolean
ncz_store_set_construct_property (GParamSpec    *pspec,
                                  const GValue  *value,
                                  NczUrl       **url,
                                  NczStoreFlags *flags)
{
  switch (construct_property (pspec))
    {
    case 1:
      g_set_object (url, g_value_get_object (value));
      return TRUE;
    case 2:
      *flags = g_value_get_flags (value);
      return TRUE;
    default:
      return FALSE;
    }
}
