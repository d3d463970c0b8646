/* fault-store.c: a store that forwards to another and fails one chosen
 * operation (test-only, not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <string.h>

#include "fault-store.h"

/**
 * NczFaultStore:
 *
 * Wraps an inner [iface@Ncz.Store] and forwards every call to it,
 * commit and discard included; the asynchronous read of the interface
 * runs the synchronous one in a thread, so it comes here too. Each
 * operation gets a number, counting from 1: a read, a range read, every
 * key of a read_many or a write_many, a write, a remove, a get_length, a
 * list and a commit are one operation each (discard cannot fail and is
 * not counted). Reads and writes are also numbered among themselves.
 *
 * ncz_fault_store_arm() chooses the operation that fails and how: the
 * error kinds fail the Nth operation of any sort without calling the
 * inner store; %NCZ_FAULT_SHORT_READ cuts the Nth read short;
 * %NCZ_FAULT_ZERO_WRITE stores empty bytes for the Nth write and reports
 * success. Every other operation passes through unchanged.
 */
struct _NczFaultStore
{
  GObject parent_instance;

  NczStore *inner;

  GMutex lock;
  NczFaultKind kind;
  guint fail_at;       /* 1-based; 0: never */
  guint n_ops;
  guint n_reads;
  guint n_writes;
  gboolean fired;
  char *fired_op;      /* "write 'g/v/0.0'" */
};

static void ncz_fault_store_store_init (NczStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczFaultStore, ncz_fault_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_fault_store_store_init))

typedef enum {
  OP_READ,
  OP_WRITE,
  OP_OTHER,
} OpClass;

const char *
ncz_fault_kind_to_string (NczFaultKind kind)
{
  switch (kind)
    {
    case NCZ_FAULT_NONE: return "none";
    case NCZ_FAULT_ENOSPC: return "ENOSPC";
    case NCZ_FAULT_EIO: return "EIO";
    case NCZ_FAULT_EACCES: return "EACCES";
    case NCZ_FAULT_SHORT_READ: return "short-read";
    case NCZ_FAULT_ZERO_WRITE: return "zero-write";
    default: return "?";
    }
}

static gboolean
kind_is_error (NczFaultKind kind)
{
  return kind == NCZ_FAULT_ENOSPC || kind == NCZ_FAULT_EIO || kind == NCZ_FAULT_EACCES;
}

/* Numbers @n operations of @klass. Returns the index among them of the
 * one armed to fail, or -1; the caller records with fired() whether the
 * fault took effect. */
static gint
take_ops (NczFaultStore      *self,
          OpClass             klass,
          guint               n)
{
  gint hit = -1;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < n; i++)
    {
      guint number;

      self->n_ops++;
      if (klass == OP_READ)
        self->n_reads++;
      else if (klass == OP_WRITE)
        self->n_writes++;

      if (self->fail_at == 0 || self->fired || hit >= 0)
        continue;
      if (kind_is_error (self->kind))
        number = self->n_ops;
      else if (self->kind == NCZ_FAULT_SHORT_READ && klass == OP_READ)
        number = self->n_reads;
      else if (self->kind == NCZ_FAULT_ZERO_WRITE && klass == OP_WRITE)
        number = self->n_writes;
      else
        continue;
      if (number == self->fail_at)
        hit = (gint) i;
    }
  g_mutex_unlock (&self->lock);
  return hit;
}

static void
fired (NczFaultStore *self,
       const char    *op,
       const char    *key)
{
  g_mutex_lock (&self->lock);
  self->fired = TRUE;
  g_free (self->fired_op);
  self->fired_op = g_strdup_printf ("%s '%s'", op, key);
  g_mutex_unlock (&self->lock);
}

/* Fails @op of @key as the armed error kind. */
static void
set_fault_error (NczFaultStore *self,
                 const char    *op,
                 const char    *key,
                 GError       **error)
{
  int errsv;
  int code;

  switch (self->kind)
    {
    case NCZ_FAULT_ENOSPC:
      errsv = ENOSPC;
      code = NCZ_STORAGE_ERROR_IO;
      break;
    case NCZ_FAULT_EACCES:
      errsv = EACCES;
      code = NCZ_STORAGE_ERROR_PERMISSION;
      break;
    case NCZ_FAULT_EIO:
    default:
      errsv = EIO;
      code = NCZ_STORAGE_ERROR_IO;
      break;
    }
  fired (self, op, key);
  g_set_error (error, NCZ_STORAGE_ERROR, code,
               "cannot %s '%s' in the fault store: %s (injected fault)",
               op, key, g_strerror (errsv));
}

/* The first half of @bytes: fewer bytes than the object holds. */
static GBytes *
cut_short (GBytes *bytes)
{
  gsize size = g_bytes_get_size (bytes);
  return g_bytes_new_from_bytes (bytes, 0, size / 2);
}

static GBytes *
ncz_fault_store_read (NczStore     *store,
                      const char   *key,
                      guint64       offset,
                      gint64        length,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);
  g_autoptr(GBytes) bytes = NULL;

  if (take_ops (self, OP_READ, 1) < 0)
    return ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
  if (kind_is_error (self->kind))
    {
      set_fault_error (self, "read", key, error);
      return NULL;
    }

  bytes = ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return g_steal_pointer (&bytes);   /* nothing to cut: the fault has no effect */
  fired (self, "read", key);
  return cut_short (bytes);
}

static GPtrArray *
ncz_fault_store_read_many (NczStore           *store,
                           const char * const *keys,
                           GCancellable       *cancellable,
                           GError            **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);
  g_autoptr(GPtrArray) result = NULL;
  GBytes *bytes;
  guint n = g_strv_length ((char **) keys);
  gint hit = take_ops (self, OP_READ, n);

  if (hit >= 0 && kind_is_error (self->kind))
    {
      set_fault_error (self, "read", keys[hit], error);
      return NULL;
    }
  result = ncz_store_read_many (self->inner, keys, cancellable, error);
  if (result == NULL || hit < 0)
    return g_steal_pointer (&result);

  bytes = g_ptr_array_index (result, hit);
  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      fired (self, "read", keys[hit]);
      result->pdata[hit] = cut_short (bytes);
      g_bytes_unref (bytes);
    }
  return g_steal_pointer (&result);
}

static gboolean
ncz_fault_store_write (NczStore     *store,
                       const char   *key,
                       GBytes       *data,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);
  g_autoptr(GBytes) empty = NULL;

  if (take_ops (self, OP_WRITE, 1) < 0)
    return ncz_store_write (self->inner, key, data, cancellable, error);
  if (kind_is_error (self->kind))
    {
      set_fault_error (self, "write", key, error);
      return FALSE;
    }
  fired (self, "write", key);
  empty = g_bytes_new (NULL, 0);
  return ncz_store_write (self->inner, key, empty, cancellable, error);
}

static gboolean
ncz_fault_store_write_many (NczStore           *store,
                            const char * const *keys,
                            GBytes * const     *data,
                            guint               n,
                            GCancellable       *cancellable,
                            GError            **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);
  g_autofree GBytes **changed = NULL;
  g_autoptr(GBytes) empty = NULL;
  gint hit = take_ops (self, OP_WRITE, n);

  if (hit < 0)
    return ncz_store_write_many (self->inner, keys, data, n, cancellable, error);
  if (kind_is_error (self->kind))
    {
      /* the objects before the failing one were written, as a store
       * that fails half-way would have done */
      if (hit > 0 && !ncz_store_write_many (self->inner, keys, data, (guint) hit,
                                            cancellable, error))
        return FALSE;
      set_fault_error (self, "write", keys[hit], error);
      return FALSE;
    }

  fired (self, "write", keys[hit]);
  empty = g_bytes_new (NULL, 0);
  changed = g_memdup2 (data, n * sizeof (GBytes *));
  changed[hit] = empty;
  return ncz_store_write_many (self->inner, keys, changed, n, cancellable, error);
}

static gboolean
ncz_fault_store_remove (NczStore     *store,
                        const char   *key,
                        GCancellable *cancellable,
                        GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);

  if (take_ops (self, OP_OTHER, 1) >= 0)
    {
      set_fault_error (self, "remove", key, error);
      return FALSE;
    }
  return ncz_store_remove (self->inner, key, cancellable, error);
}

static gboolean
ncz_fault_store_get_length (NczStore     *store,
                            const char   *key,
                            guint64      *length,
                            GCancellable *cancellable,
                            GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);

  if (take_ops (self, OP_OTHER, 1) >= 0)
    {
      set_fault_error (self, "get the length of", key, error);
      return FALSE;
    }
  return ncz_store_get_length (self->inner, key, length, cancellable, error);
}

static char **
ncz_fault_store_list (NczStore     *store,
                      const char   *prefix,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);

  if (take_ops (self, OP_OTHER, 1) >= 0)
    {
      set_fault_error (self, "list", prefix, error);
      return NULL;
    }
  return ncz_store_list (self->inner, prefix, cancellable, error);
}

static gboolean
ncz_fault_store_commit (NczStore     *store,
                        GCancellable *cancellable,
                        GError      **error)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);

  if (take_ops (self, OP_OTHER, 1) >= 0)
    {
      set_fault_error (self, "commit", "", error);
      return FALSE;
    }
  return ncz_store_commit (self->inner, cancellable, error);
}

static void
ncz_fault_store_discard (NczStore *store)
{
  NczFaultStore *self = NCZ_FAULT_STORE (store);

  ncz_store_discard (self->inner);
}

static guint
ncz_fault_store_get_io_depth_hint (NczStore *store)
{
  return ncz_store_get_io_depth_hint (NCZ_FAULT_STORE (store)->inner);
}

static void
ncz_fault_store_store_init (NczStoreInterface *iface)
{
  iface->get_io_depth_hint = ncz_fault_store_get_io_depth_hint;
  iface->read = ncz_fault_store_read;
  iface->read_many = ncz_fault_store_read_many;
  iface->write = ncz_fault_store_write;
  iface->write_many = ncz_fault_store_write_many;
  iface->remove = ncz_fault_store_remove;
  iface->get_length = ncz_fault_store_get_length;
  iface->list = ncz_fault_store_list;
  iface->commit = ncz_fault_store_commit;
  iface->discard = ncz_fault_store_discard;
}

static void
ncz_fault_store_finalize (GObject *object)
{
  NczFaultStore *self = NCZ_FAULT_STORE (object);

  g_clear_object (&self->inner);
  g_free (self->fired_op);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ncz_fault_store_parent_class)->finalize (object);
}

enum { PROP_0, PROP_URL, PROP_FLAGS };

/* "url" and "flags" are the inner store's */
static void
ncz_fault_store_get_property (GObject *object, guint prop_id, GValue *value,
                              GParamSpec *pspec)
{
  NczFaultStore *self = NCZ_FAULT_STORE (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->inner ? ncz_store_get_url (self->inner) : NULL);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->inner ? ncz_store_get_flags (self->inner) : NCZ_STORE_READ);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_fault_store_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  /* construct-only and taken from the inner store: nothing to keep */
  if (prop_id != PROP_URL && prop_id != PROP_FLAGS)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_fault_store_class_init (NczFaultStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_fault_store_finalize;
  object_class->get_property = ncz_fault_store_get_property;
  object_class->set_property = ncz_fault_store_set_property;
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
ncz_fault_store_init (NczFaultStore *self)
{
  g_mutex_init (&self->lock);
}

/**
 * ncz_fault_store_new:
 * @inner: the store every call goes to
 *
 * Returns: (transfer full): a fault store, not armed: it only counts
 */
NczFaultStore *
ncz_fault_store_new (NczStore *inner)
{
  NczFaultStore *self;

  g_return_val_if_fail (NCZ_IS_STORE (inner), NULL);

  self = g_object_new (NCZ_TYPE_FAULT_STORE, NULL);
  self->inner = g_object_ref (inner);
  return self;
}

NczStore *
ncz_fault_store_get_inner (NczFaultStore *self)
{
  g_return_val_if_fail (NCZ_IS_FAULT_STORE (self), NULL);
  return self->inner;
}

/**
 * ncz_fault_store_arm:
 * @self: a fault store
 * @kind: how the operation fails
 * @n: which operation, from 1 (0 or %NCZ_FAULT_NONE: none); among all
 *   operations for the error kinds, among reads for
 *   %NCZ_FAULT_SHORT_READ, among writes for %NCZ_FAULT_ZERO_WRITE
 *
 * Restarts the counts and chooses the operation that fails.
 */
void
ncz_fault_store_arm (NczFaultStore *self,
                     NczFaultKind   kind,
                     guint          n)
{
  g_return_if_fail (NCZ_IS_FAULT_STORE (self));

  g_mutex_lock (&self->lock);
  self->kind = kind;
  self->fail_at = kind == NCZ_FAULT_NONE ? 0 : n;
  self->n_ops = self->n_reads = self->n_writes = 0;
  self->fired = FALSE;
  g_clear_pointer (&self->fired_op, g_free);
  g_mutex_unlock (&self->lock);
}

#define GETTER(field)                                   \
  guint                                                 \
  ncz_fault_store_get_##field (NczFaultStore *self)     \
  {                                                     \
    guint v;                                            \
    g_return_val_if_fail (NCZ_IS_FAULT_STORE (self), 0); \
    g_mutex_lock (&self->lock);                         \
    v = self->field;                                    \
    g_mutex_unlock (&self->lock);                       \
    return v;                                           \
  }

GETTER (n_ops)
GETTER (n_reads)
GETTER (n_writes)

gboolean
ncz_fault_store_has_fired (NczFaultStore *self)
{
  gboolean v;

  g_return_val_if_fail (NCZ_IS_FAULT_STORE (self), FALSE);
  g_mutex_lock (&self->lock);
  v = self->fired;
  g_mutex_unlock (&self->lock);
  return v;
}

/* Returns: (transfer full) (nullable): the operation the fault hit */
char *
ncz_fault_store_dup_fired_op (NczFaultStore *self)
{
  char *v;

  g_return_val_if_fail (NCZ_IS_FAULT_STORE (self), NULL);
  g_mutex_lock (&self->lock);
  v = g_strdup (self->fired_op);
  g_mutex_unlock (&self->lock);
  return v;
}
