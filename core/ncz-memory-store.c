/* ncz-memory-store.c: a store held in memory
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz/ncz-error.h"
#include "ncz/ncz-memory-store.h"

/**
 * NczMemoryStore:
 *
 * A [iface@Ncz.Store] that keeps its objects in memory, for tests and for
 * datasets that live only inside a program. It is safe to use from several
 * threads at once.
 *
 * Unlike a directory tree, a memory store lets a key be both an object and
 * a prefix of other keys.
 *
 * Since: 1.0
 */
struct _NczMemoryStore
{
  GObject parent_instance;

  GMutex lock;
  GTree *objects;   /* char* key → GBytes*, in byte order of the keys */
  NczUrl *url;
  NczStoreFlags flags;
};

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
};

static void ncz_memory_store_store_init (NczStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczMemoryStore, ncz_memory_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_memory_store_store_init))

static int
compare_keys (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  return strcmp (a, b);
}

/* Whether @key lies under @prefix ("" or "a/b"); on success *rest is the
 * part after "prefix/". */
static gboolean
key_has_prefix (const char  *key,
                const char  *prefix,
                gsize        prefix_len,
                const char **rest)
{
  if (prefix_len == 0)
    {
      *rest = key;
      return TRUE;
    }
  if (strncmp (key, prefix, prefix_len) != 0 || key[prefix_len] != '/')
    return FALSE;
  *rest = key + prefix_len + 1;
  return TRUE;
}

/* The first node whose key could lie under @prefix. */
static GTreeNode *
first_under (GTree      *tree,
             const char *prefix)
{
  g_autofree char *start = NULL;

  if (prefix[0] == '\0')
    return g_tree_node_first (tree);
  start = g_strconcat (prefix, "/", NULL);
  return g_tree_lower_bound (tree, start);
}

static GBytes *
ncz_memory_store_read (NczStore     *store,
                       const char   *key,
                       guint64       offset,
                       gint64        length,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (store);
  g_autoptr(GBytes) bytes = NULL;
  gsize size, n;

  g_mutex_lock (&self->lock);
  bytes = g_tree_lookup (self->objects, key);
  if (bytes != NULL)
    g_bytes_ref (bytes);
  g_mutex_unlock (&self->lock);

  if (bytes == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object '%s' in the memory store", key);
      return NULL;
    }

  size = g_bytes_get_size (bytes);
  if (offset == 0 && length < 0)
    return g_steal_pointer (&bytes);
  if (offset > size)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "range beyond end: object '%s' is %" G_GSIZE_FORMAT
                   " bytes long, read asked from byte %" G_GUINT64_FORMAT,
                   key, size, offset);
      return NULL;
    }
  n = size - (gsize) offset;
  if (length >= 0 && (guint64) length < n)
    n = (gsize) length;
  return g_bytes_new_from_bytes (bytes, (gsize) offset, n);
}

static gboolean
ncz_memory_store_write (NczStore     *store,
                        const char   *key,
                        GBytes       *data,
                        GCancellable *cancellable,
                        GError      **error)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (store);

  g_mutex_lock (&self->lock);
  g_tree_replace (self->objects, g_strdup (key), g_bytes_ref (data));
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
ncz_memory_store_remove (NczStore     *store,
                         const char   *key,
                         GCancellable *cancellable,
                         GError      **error)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (store);
  g_autoptr(GPtrArray) doomed = g_ptr_array_new ();
  gsize key_len = strlen (key);
  GTreeNode *node;

  g_mutex_lock (&self->lock);
  if (key_len == 0)
    {
      g_tree_remove_all (self->objects);
      g_mutex_unlock (&self->lock);
      return TRUE;
    }

  for (node = first_under (self->objects, key); node != NULL; node = g_tree_node_next (node))
    {
      const char *rest;

      if (!key_has_prefix (g_tree_node_key (node), key, key_len, &rest))
        break;
      g_ptr_array_add (doomed, g_tree_node_key (node));
    }
  for (guint i = doomed->len; i > 0; i--)
    g_tree_remove (self->objects, g_ptr_array_index (doomed, i - 1));
  g_tree_remove (self->objects, key);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
ncz_memory_store_get_length (NczStore     *store,
                             const char   *key,
                             guint64      *length,
                             GCancellable *cancellable,
                             GError      **error)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (store);
  GBytes *bytes;

  g_mutex_lock (&self->lock);
  bytes = g_tree_lookup (self->objects, key);
  if (bytes != NULL)
    *length = g_bytes_get_size (bytes);
  g_mutex_unlock (&self->lock);

  if (bytes == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no object '%s' in the memory store", key);
      return FALSE;
    }
  return TRUE;
}

static char **
ncz_memory_store_list (NczStore     *store,
                       const char   *prefix,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (store);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gsize prefix_len = strlen (prefix);
  const char *last = NULL;
  GTreeNode *node;

  g_mutex_lock (&self->lock);
  for (node = first_under (self->objects, prefix); node != NULL; node = g_tree_node_next (node))
    {
      const char *key = g_tree_node_key (node);
      const char *rest;
      gsize n;

      if (!key_has_prefix (key, prefix, prefix_len, &rest))
        break;
      n = strcspn (rest, "/");
      /* Keys sharing a first segment are adjacent, except that an object
       * named like the segment itself may sort apart ("a" < "a.b" <
       * "a/c"); ncz_store_list() sorts and removes those duplicates. */
      if (last != NULL && strlen (last) == n && strncmp (last, rest, n) == 0)
        continue;
      g_ptr_array_add (names, g_strndup (rest, n));
      last = g_ptr_array_index (names, names->len - 1);
    }
  g_mutex_unlock (&self->lock);

  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* reads are copies from memory: more than one in flight gains nothing */
static guint
ncz_memory_store_get_io_depth_hint (NczStore *store)
{
  return 1;
}

static void
ncz_memory_store_store_init (NczStoreInterface *iface)
{
  iface->get_io_depth_hint = ncz_memory_store_get_io_depth_hint;
  iface->read = ncz_memory_store_read;
  iface->write = ncz_memory_store_write;
  iface->remove = ncz_memory_store_remove;
  iface->get_length = ncz_memory_store_get_length;
  iface->list = ncz_memory_store_list;
}

static void
ncz_memory_store_finalize (GObject *object)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (object);

  g_tree_unref (self->objects);
  g_mutex_clear (&self->lock);
  g_clear_object (&self->url);

  G_OBJECT_CLASS (ncz_memory_store_parent_class)->finalize (object);
}

static void
ncz_memory_store_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_set_object (&self->url, g_value_get_object (value));
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_memory_store_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  NczMemoryStore *self = NCZ_MEMORY_STORE (object);

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
ncz_memory_store_class_init (NczMemoryStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_memory_store_finalize;
  object_class->set_property = ncz_memory_store_set_property;
  object_class->get_property = ncz_memory_store_get_property;
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
ncz_memory_store_init (NczMemoryStore *self)
{
  g_mutex_init (&self->lock);
  self->objects = g_tree_new_full (compare_keys, NULL, g_free,
                                   (GDestroyNotify) g_bytes_unref);
}

/**
 * ncz_memory_store_new:
 *
 * Creates an empty memory store.
 *
 * Returns: (transfer full): a new memory store
 * Since: 1.0
 */
NczMemoryStore *
ncz_memory_store_new (void)
{
  return g_object_new (NCZ_TYPE_MEMORY_STORE, NULL);
}

/**
 * ncz_memory_store_get_n_objects:
 * @self: a memory store
 *
 * Gets the number of objects in the store.
 *
 * Returns: the number of objects
 * Since: 1.0
 */
guint
ncz_memory_store_get_n_objects (NczMemoryStore *self)
{
  guint n;

  g_return_val_if_fail (NCZ_IS_MEMORY_STORE (self), 0);

  g_mutex_lock (&self->lock);
  n = (guint) g_tree_nnodes (self->objects);
  g_mutex_unlock (&self->lock);
  return n;
}
