/* glib-tsan.c: makes GLib's synchronization visible to ThreadSanitizer.
 *
 * Debian's GLib is not built with -fsanitize=thread, and its GMutex and
 * GCond use futexes directly, its thread pools hand work over through
 * them, and GObject counts references with atomics inside libgobject:
 * ThreadSanitizer sees none of it and reports every object handed from
 * one thread to another as a race. Preloaded into the tests of the
 * ThreadSanitizer build (LD_PRELOAD), this library wraps the GLib calls
 * Ncz makes and tells ThreadSanitizer the happens-before edges they
 * create (__tsan_acquire / __tsan_release), then calls GLib's own
 * function. Races in Ncz's own memory accesses are still reported.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dlfcn.h>
#include <gio/gio.h>

/* functions here, macros in GLib's headers */
#undef g_once_init_enter
#undef g_once_init_leave

void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

/* the resolved function, read as atomically as it was stored */
#define CALL(name) (__atomic_load_n (&real_##name, __ATOMIC_ACQUIRE))

#define REAL(ret, name, args)                                                 \
  static ret (*real_##name) args;                                              \
  static void resolve_##name (void)                                            \
  {                                                                            \
    if (__atomic_load_n (&real_##name, __ATOMIC_ACQUIRE) == NULL)              \
      __atomic_store_n (&real_##name, dlsym (RTLD_NEXT, #name), __ATOMIC_RELEASE); \
  }

REAL (void, g_mutex_lock, (GMutex *))
REAL (void, g_mutex_unlock, (GMutex *))
REAL (gboolean, g_mutex_trylock, (GMutex *))
REAL (void, g_rec_mutex_lock, (GRecMutex *))
REAL (void, g_rec_mutex_unlock, (GRecMutex *))
REAL (gboolean, g_rec_mutex_trylock, (GRecMutex *))
REAL (void, g_rw_lock_writer_lock, (GRWLock *))
REAL (void, g_rw_lock_writer_unlock, (GRWLock *))
REAL (void, g_rw_lock_reader_lock, (GRWLock *))
REAL (void, g_rw_lock_reader_unlock, (GRWLock *))
REAL (void, g_cond_wait, (GCond *, GMutex *))
REAL (gboolean, g_cond_wait_until, (GCond *, GMutex *, gint64))
REAL (GThreadPool *, g_thread_pool_new, (GFunc, gpointer, gint, gboolean, GError **))
REAL (gboolean, g_thread_pool_push, (GThreadPool *, gpointer, GError **))
REAL (void, g_object_unref, (gpointer))
REAL (void, g_once_init_leave, (volatile void *, gsize))
REAL (gboolean, g_once_init_enter, (volatile void *))
REAL (void, g_object_set_qdata, (GObject *, GQuark, gpointer))
REAL (void, g_object_set_qdata_full, (GObject *, GQuark, gpointer, GDestroyNotify))
REAL (gpointer, g_object_get_qdata, (GObject *, GQuark))
REAL (void, g_object_set_data, (GObject *, const gchar *, gpointer))
REAL (void, g_object_set_data_full, (GObject *, const gchar *, gpointer, GDestroyNotify))
REAL (gpointer, g_object_get_data, (GObject *, const gchar *))
REAL (void, g_task_return_pointer, (GTask *, gpointer, GDestroyNotify))
REAL (void, g_task_return_boolean, (GTask *, gboolean))
REAL (void, g_task_return_int, (GTask *, gssize))
REAL (void, g_task_return_error, (GTask *, GError *))
REAL (gpointer, g_task_propagate_pointer, (GTask *, GError **))
REAL (gboolean, g_task_propagate_boolean, (GTask *, GError **))
REAL (gssize, g_task_propagate_int, (GTask *, GError **))

void
g_mutex_lock (GMutex *mutex)
{
  resolve_g_mutex_lock ();
  CALL (g_mutex_lock) (mutex);
  __tsan_acquire (mutex);
}

void
g_mutex_unlock (GMutex *mutex)
{
  resolve_g_mutex_unlock ();
  __tsan_release (mutex);
  CALL (g_mutex_unlock) (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  resolve_g_mutex_trylock ();
  if (!CALL (g_mutex_trylock) (mutex))
    return FALSE;
  __tsan_acquire (mutex);
  return TRUE;
}

void
g_rec_mutex_lock (GRecMutex *mutex)
{
  resolve_g_rec_mutex_lock ();
  CALL (g_rec_mutex_lock) (mutex);
  __tsan_acquire (mutex);
}

void
g_rec_mutex_unlock (GRecMutex *mutex)
{
  resolve_g_rec_mutex_unlock ();
  __tsan_release (mutex);
  CALL (g_rec_mutex_unlock) (mutex);
}

gboolean
g_rec_mutex_trylock (GRecMutex *mutex)
{
  resolve_g_rec_mutex_trylock ();
  if (!CALL (g_rec_mutex_trylock) (mutex))
    return FALSE;
  __tsan_acquire (mutex);
  return TRUE;
}

void
g_rw_lock_writer_lock (GRWLock *lock)
{
  resolve_g_rw_lock_writer_lock ();
  CALL (g_rw_lock_writer_lock) (lock);
  __tsan_acquire (lock);
}

void
g_rw_lock_writer_unlock (GRWLock *lock)
{
  resolve_g_rw_lock_writer_unlock ();
  __tsan_release (lock);
  CALL (g_rw_lock_writer_unlock) (lock);
}

/* readers see what writers released (and, more than needed, what other
 * readers did) */
void
g_rw_lock_reader_lock (GRWLock *lock)
{
  resolve_g_rw_lock_reader_lock ();
  CALL (g_rw_lock_reader_lock) (lock);
  __tsan_acquire (lock);
}

void
g_rw_lock_reader_unlock (GRWLock *lock)
{
  resolve_g_rw_lock_reader_unlock ();
  __tsan_release (lock);
  CALL (g_rw_lock_reader_unlock) (lock);
}

void
g_cond_wait (GCond *cond, GMutex *mutex)
{
  resolve_g_cond_wait ();
  __tsan_release (mutex);
  CALL (g_cond_wait) (cond, mutex);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond *cond, GMutex *mutex, gint64 end_time)
{
  gboolean ok;
  resolve_g_cond_wait_until ();
  __tsan_release (mutex);
  ok = CALL (g_cond_wait_until) (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return ok;
}

/* Thread pools: what the pusher did before g_thread_pool_push() happens
 * before the pool function runs on that item. */
typedef struct {
  GFunc func;
  gpointer user_data;
} PoolClosure;

static void
pool_trampoline (gpointer data, gpointer user_data)
{
  PoolClosure *c = user_data;
  __tsan_acquire (data);
  c->func (data, c->user_data);
}

GThreadPool *
g_thread_pool_new (GFunc func, gpointer user_data, gint max_threads,
                   gboolean exclusive, GError **error)
{
  PoolClosure *c = g_new (PoolClosure, 1);   /* lives as long as the pool */
  resolve_g_thread_pool_new ();
  c->func = func;
  c->user_data = user_data;
  return CALL (g_thread_pool_new) (pool_trampoline, c, max_threads, exclusive, error);
}

gboolean
g_thread_pool_push (GThreadPool *pool, gpointer data, GError **error)
{
  resolve_g_thread_pool_push ();
  __tsan_release (data);
  return CALL (g_thread_pool_push) (pool, data, error);
}

/* The thread that drops the last reference finalizes the object: what
 * every other holder did before its g_object_unref() happens before. */
void
g_object_unref (gpointer object)
{
  resolve_g_object_unref ();
  __tsan_release (object);
  __tsan_acquire (object);
  CALL (g_object_unref) (object);
}

/* Ncz's own reference-counted structures (NczCodecChain, NczJson) count
 * with g_atomic_ref_count_*(), functions inside libglib unless GLib's
 * checks are disabled: the last holder frees the structure after every
 * other holder's use, as for g_object_unref(). */
REAL (gboolean, g_atomic_ref_count_dec, (gatomicrefcount *))

gboolean
g_atomic_ref_count_dec (gatomicrefcount *arc)
{
  gboolean last;

  resolve_g_atomic_ref_count_dec ();
  __tsan_release (arc);
  last = CALL (g_atomic_ref_count_dec) (arc);
  if (last)
    __tsan_acquire (arc);
  return last;
}

void
g_once_init_leave (volatile void *location, gsize result)
{
  resolve_g_once_init_leave ();
  __tsan_release ((void *) location);
  CALL (g_once_init_leave) (location, result);
}

gboolean
g_once_init_enter (volatile void *location)
{
  gboolean first;
  resolve_g_once_init_enter ();
  first = CALL (g_once_init_enter) (location);
  if (!first)
    __tsan_acquire ((void *) location);
  return first;
}

/* Object data: GLib locks an object's data list with atomic bit locks. */
void
g_object_set_qdata (GObject *object, GQuark quark, gpointer data)
{
  resolve_g_object_set_qdata ();
  __tsan_release (object);
  CALL (g_object_set_qdata) (object, quark, data);
}

void
g_object_set_qdata_full (GObject *object, GQuark quark, gpointer data,
                         GDestroyNotify destroy)
{
  resolve_g_object_set_qdata_full ();
  __tsan_release (object);
  CALL (g_object_set_qdata_full) (object, quark, data, destroy);
}

gpointer
g_object_get_qdata (GObject *object, GQuark quark)
{
  gpointer data;
  resolve_g_object_get_qdata ();
  data = CALL (g_object_get_qdata) (object, quark);
  __tsan_acquire (object);
  return data;
}

void
g_object_set_data (GObject *object, const gchar *key, gpointer data)
{
  resolve_g_object_set_data ();
  __tsan_release (object);
  CALL (g_object_set_data) (object, key, data);
}

void
g_object_set_data_full (GObject *object, const gchar *key, gpointer data,
                        GDestroyNotify destroy)
{
  resolve_g_object_set_data_full ();
  __tsan_release (object);
  CALL (g_object_set_data_full) (object, key, data, destroy);
}

gpointer
g_object_get_data (GObject *object, const gchar *key)
{
  gpointer data;
  resolve_g_object_get_data ();
  data = CALL (g_object_get_data) (object, key);
  __tsan_acquire (object);
  return data;
}

/* GTask: what the task's thread did before returning its result happens
 * before the result is propagated (through the main context). */
void
g_task_return_pointer (GTask *task, gpointer result, GDestroyNotify destroy)
{
  resolve_g_task_return_pointer ();
  __tsan_release (task);
  CALL (g_task_return_pointer) (task, result, destroy);
}

void
g_task_return_boolean (GTask *task, gboolean result)
{
  resolve_g_task_return_boolean ();
  __tsan_release (task);
  CALL (g_task_return_boolean) (task, result);
}

void
g_task_return_int (GTask *task, gssize result)
{
  resolve_g_task_return_int ();
  __tsan_release (task);
  CALL (g_task_return_int) (task, result);
}

void
g_task_return_error (GTask *task, GError *error)
{
  resolve_g_task_return_error ();
  __tsan_release (task);
  CALL (g_task_return_error) (task, error);
}

gpointer
g_task_propagate_pointer (GTask *task, GError **error)
{
  resolve_g_task_propagate_pointer ();
  __tsan_acquire (task);
  return CALL (g_task_propagate_pointer) (task, error);
}

gboolean
g_task_propagate_boolean (GTask *task, GError **error)
{
  resolve_g_task_propagate_boolean ();
  __tsan_acquire (task);
  return CALL (g_task_propagate_boolean) (task, error);
}

gssize
g_task_propagate_int (GTask *task, GError **error)
{
  resolve_g_task_propagate_int ();
  __tsan_acquire (task);
  return CALL (g_task_propagate_int) (task, error);
}
