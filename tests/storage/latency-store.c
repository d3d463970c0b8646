/* latency-store.c: see latency-store.h
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "latency-store.h"

struct _NczLatencyStore
{
  GObject parent_instance;

  NczStore *inner;
  guint latency_ms;

  GMutex lock;
  GCond gate_cond;
  guint gate;          /* requests wait until this many are in flight */
  gint64 gate_wait_us; /* or this long */
  gboolean gate_open;
  guint in_flight;
  guint max_in_flight;
  guint n_requests;
  guint n_reads;
  guint n_lists;
};

static void ncz_latency_store_store_init (NczStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczLatencyStore, ncz_latency_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_latency_store_store_init))

/* Waits the latency as one request in flight; FALSE (with the error set)
 * if @cancellable was cancelled meanwhile. */
static gboolean
request (NczLatencyStore *self, gboolean is_read, GCancellable *cancellable, GError **error)
{
  gint64 end = g_get_monotonic_time () + (gint64) self->latency_ms * 1000;
  gboolean ok = TRUE;

  g_mutex_lock (&self->lock);
  self->in_flight++;
  self->max_in_flight = MAX (self->max_in_flight, self->in_flight);
  self->n_requests++;
  if (is_read)
    self->n_reads++;
  if (self->gate > 0 && !self->gate_open)
    {
      gint64 until = g_get_monotonic_time () + self->gate_wait_us;

      if (self->in_flight >= self->gate)
        {
          self->gate_open = TRUE;
          g_cond_broadcast (&self->gate_cond);
        }
      while (!self->gate_open)
        if (!g_cond_wait_until (&self->gate_cond, &self->lock, until))
          break;
    }
  g_mutex_unlock (&self->lock);

  /* in steps of a millisecond, so that a cancellation is seen soon */
  for (gint64 now = g_get_monotonic_time (); now < end; now = g_get_monotonic_time ())
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      g_usleep ((gulong) MIN (end - now, 1000));
    }

  g_mutex_lock (&self->lock);
  self->in_flight--;
  g_mutex_unlock (&self->lock);
  return ok;
}

static GBytes *
latency_read (NczStore *store, const char *key, guint64 offset, gint64 length,
              GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);

  if (!request (self, TRUE, cancellable, error))
    return NULL;
  return ncz_store_read_range (self->inner, key, offset, length, cancellable, error);
}

static gboolean
latency_write (NczStore *store, const char *key, GBytes *data, GCancellable *cancellable,
               GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);

  return request (self, FALSE, cancellable, error) &&
         ncz_store_write (self->inner, key, data, cancellable, error);
}

static gboolean
latency_remove (NczStore *store, const char *key, GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);

  return request (self, FALSE, cancellable, error) &&
         ncz_store_remove (self->inner, key, cancellable, error);
}

static gboolean
latency_get_length (NczStore *store, const char *key, guint64 *length,
                    GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);

  return request (self, FALSE, cancellable, error) &&
         ncz_store_get_length (self->inner, key, length, cancellable, error);
}

static char **
latency_list (NczStore *store, const char *prefix, GCancellable *cancellable, GError **error)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (store);

  if (!request (self, FALSE, cancellable, error))
    return NULL;
  g_mutex_lock (&self->lock);
  self->n_lists++;
  g_mutex_unlock (&self->lock);
  return ncz_store_list (self->inner, prefix, cancellable, error);
}

/* It stands for a server across a network. */
static gboolean
latency_is_remote (NczStore *store)
{
  return TRUE;
}

static void
ncz_latency_store_store_init (NczStoreInterface *iface)
{
  /* read_many, read_ranges, list_page and every async call keep the
   * interface's defaults: they come here request by request */
  iface->read = latency_read;
  iface->write = latency_write;
  iface->remove = latency_remove;
  iface->get_length = latency_get_length;
  iface->list = latency_list;
  iface->is_remote = latency_is_remote;
}

enum { PROP_0, PROP_URL, PROP_FLAGS };

static void
ncz_latency_store_get_property (GObject *object, guint prop_id, GValue *value,
                                GParamSpec *pspec)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (object);

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
ncz_latency_store_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  /* construct-only and taken from the inner store */
  if (prop_id != PROP_URL && prop_id != PROP_FLAGS)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_latency_store_finalize (GObject *object)
{
  NczLatencyStore *self = NCZ_LATENCY_STORE (object);

  g_clear_object (&self->inner);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->gate_cond);
  G_OBJECT_CLASS (ncz_latency_store_parent_class)->finalize (object);
}

static void
ncz_latency_store_class_init (NczLatencyStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_latency_store_finalize;
  object_class->get_property = ncz_latency_store_get_property;
  object_class->set_property = ncz_latency_store_set_property;
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
ncz_latency_store_init (NczLatencyStore *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->gate_cond);
}

NczLatencyStore *
ncz_latency_store_new (NczStore *inner, guint latency_ms)
{
  NczLatencyStore *self = g_object_new (NCZ_TYPE_LATENCY_STORE, NULL);

  self->inner = g_object_ref (inner);
  self->latency_ms = latency_ms;
  return self;
}

guint
ncz_latency_store_get_max_in_flight (NczLatencyStore *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->max_in_flight;
  g_mutex_unlock (&self->lock);
  return n;
}

guint
ncz_latency_store_get_n_requests (NczLatencyStore *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_requests;
  g_mutex_unlock (&self->lock);
  return n;
}

guint
ncz_latency_store_get_n_reads (NczLatencyStore *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_reads;
  g_mutex_unlock (&self->lock);
  return n;
}

void
ncz_latency_store_set_gate (NczLatencyStore *self, guint n, guint max_wait_ms)
{
  g_mutex_lock (&self->lock);
  self->gate = n;
  self->gate_wait_us = (gint64) max_wait_ms * 1000;
  self->gate_open = FALSE;
  g_mutex_unlock (&self->lock);
}

guint
ncz_latency_store_get_n_lists (NczLatencyStore *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->n_lists;
  g_mutex_unlock (&self->lock);
  return n;
}

void
ncz_latency_store_reset (NczLatencyStore *self)
{
  g_mutex_lock (&self->lock);
  self->n_lists = 0;
  self->max_in_flight = self->in_flight;
  self->n_requests = 0;
  self->n_reads = 0;
  g_mutex_unlock (&self->lock);
}
