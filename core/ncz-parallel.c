/* ncz-parallel.c: a shared worker pool for chunk and object I/O
 *
 * ncz_parallel_for() runs a function over a list of items; ncz_pool_run()
 * is the job both it and the I/O threads (ncz-io.c) use. The calling
 * thread works too, and items are claimed one at a time from a shared
 * counter, so a caller never waits for an item nobody has started: nested
 * use (a chunk task that writes several objects) cannot deadlock even
 * when every pool thread is busy.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"
#include "ncz-cpu-limit-private.h"

/* The reference count uses the g_atomic_int_*() macros, which compile
 * to atomic builtins in this file, rather than gatomicrefcount, whose
 * functions run inside libglib: ThreadSanitizer sees only the former. */
typedef struct {
  gint ref;
  gpointer *items;
  guint n;
  gint next;
  gint done;
  NczParallelFunc func;
  gpointer user_data;
  GMutex lock;
  GCond cond;
} Job;

static void
job_unref (Job *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref))
    return;
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

static void
job_work (Job *job)
{
  while (TRUE)
    {
      gint i = g_atomic_int_add (&job->next, 1);
      if (i >= (gint) job->n)
        break;
      job->func (job->items[i], job->user_data);
      if (g_atomic_int_add (&job->done, 1) + 1 == (gint) job->n)
        {
          g_mutex_lock (&job->lock);
          g_cond_broadcast (&job->cond);
          g_mutex_unlock (&job->lock);
        }
    }
}

/* The thread function of every pool that runs ncz_pool_run() jobs */
void
ncz_pool_job_func (gpointer data, gpointer user_data)
{
  Job *job = data;
  job_work (job);
  job_unref (job);
}

/* Runs @func over the @n @items: the calling thread and @helpers threads
 * of @pool (made with ncz_pool_job_func) claim items one at a time from a
 * shared counter; returns when every item is done. Helpers that start
 * late find nothing to claim. */
void
ncz_pool_run (GThreadPool *pool, guint helpers, gpointer *items, guint n,
              NczParallelFunc func, gpointer user_data)
{
  Job *job;

  if (pool == NULL || helpers == 0 || n < 2)
    {
      for (guint i = 0; i < n; i++)
        func (items[i], user_data);
      return;
    }
  job = g_new0 (Job, 1);
  g_atomic_int_set (&job->ref, 1);
  job->items = items;
  job->n = n;
  job->func = func;
  job->user_data = user_data;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  for (guint i = 0; i < helpers; i++)
    {
      g_atomic_int_inc (&job->ref);
      g_thread_pool_push (pool, job, NULL);
    }
  job_work (job);
  g_mutex_lock (&job->lock);
  while (g_atomic_int_get (&job->done) < (gint) n)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
  /* @items may go now */
  job_unref (job);
}

/* More workers than this are taken as this (NCZ_THREADS,
 * ncz_set_max_threads()) */
#define NCZ_PARALLEL_MAX_WORKERS 64

/* The CPU workers: a shared (non-exclusive) GThreadPool of one thread
 * fewer than the workers, the calling thread being one of them. It is
 * made the first time more than one worker is asked for and resized by
 * ncz_set_max_threads(); it lives as long as the process. */
static GMutex pool_lock;
static GThreadPool *pool;
static guint max_threads_set;      /* ncz_set_max_threads(); 0: none */
static gboolean env_read;
static guint env_threads;          /* NCZ_THREADS; 0: unset */
static guint default_threads;      /* ncz_cpu_count(); 0: not asked yet */

/* NCZ_THREADS, as NCZ_IO_DEPTH: a whole number; unset, empty, 0 or
 * anything else gives 0 */
static guint
threads_from_env (void)
{
  const char *env = g_getenv ("NCZ_THREADS");
  guint64 n;
  char *end = NULL;

  if (env == NULL || *env == '\0')
    return 0;
  n = g_ascii_strtoull (env, &end, 10);
  if (end == env || *end != '\0')
    return 0;
  return (guint) MIN (n, NCZ_PARALLEL_MAX_WORKERS);
}

/* The number of workers: set by ncz_set_max_threads(), else NCZ_THREADS
 * (read once), else the CPUs the process may use (found once). Called
 * with pool_lock held. */
static guint
n_workers_locked (void)
{
  guint n = max_threads_set;

  if (n == 0)
    {
      if (!env_read)
        {
          env_threads = threads_from_env ();
          env_read = TRUE;
        }
      n = env_threads;
    }
  if (n == 0)
    {
      if (default_threads == 0)
        default_threads = ncz_cpu_count ();
      n = default_threads;
    }
  return CLAMP (n, 1, NCZ_PARALLEL_MAX_WORKERS);
}

/* The pool (NULL for one worker) and in @n_workers the number of workers */
static GThreadPool *
get_pool (guint *n_workers)
{
  GThreadPool *p;

  g_mutex_lock (&pool_lock);
  *n_workers = n_workers_locked ();
  if (*n_workers > 1 && pool == NULL)
    pool = g_thread_pool_new (ncz_pool_job_func, NULL, (gint) *n_workers - 1, FALSE, NULL);
  p = *n_workers > 1 ? pool : NULL;
  g_mutex_unlock (&pool_lock);
  return p;
}

/* The number of threads that work on one ncz_parallel_for() call: as
 * ncz_get_max_threads(). */
guint
ncz_parallel_get_n_workers (void)
{
  guint n;

  g_mutex_lock (&pool_lock);
  n = n_workers_locked ();
  g_mutex_unlock (&pool_lock);
  return n;
}

void
ncz_parallel_for (gpointer *items, guint n, NczParallelFunc func, gpointer user_data)
{
  GThreadPool *p;
  guint n_workers;

  if (n == 0)
    return;
  p = get_pool (&n_workers);
  ncz_pool_run (p, MIN (n - 1, n_workers - 1), items, n, func, user_data);
}

/**
 * ncz_set_max_threads:
 * @n_threads: the number of threads, from 1 to 64 (more is taken as 64);
 *   0 for the default
 *
 * Sets how many threads of this process encode and decode the chunks of
 * one read or write, the calling thread counting as one. It wins over the
 * `NCZ_THREADS` environment variable. The default (0) is `NCZ_THREADS`
 * when it is set, else the number of CPUs the process may run on: those
 * of its CPU affinity mask (`taskset`, the binding of an MPI launcher),
 * fewer if the CPU quota of its cgroup (`cpu.max`, `cpu.cfs_quota_us`)
 * allows fewer.
 *
 * Many processes on one host (MPI ranks, say) can each ask for one
 * thread, or for their share of the cores. It can be called at any time,
 * before the threads have started or while reads run: the calls that
 * start after it get the new number, those already running finish with
 * the threads already working on them. The storage requests kept in
 * flight are set apart, by [property@Ncz.Dataset:io-depth].
 *
 * Since: 1.0
 */
void
ncz_set_max_threads (guint n_threads)
{
  guint n;

  g_mutex_lock (&pool_lock);
  max_threads_set = MIN (n_threads, NCZ_PARALLEL_MAX_WORKERS);
  n = n_workers_locked ();
  /* a pool keeps at least one thread; with one worker nothing is pushed
   * to it */
  if (pool != NULL)
    g_thread_pool_set_max_threads (pool, (gint) MAX (n - 1, 1), NULL);
  g_mutex_unlock (&pool_lock);
}

/**
 * ncz_get_max_threads:
 *
 * Gets how many threads of this process encode and decode the chunks of
 * one read or write, the calling thread counting as one: the number set
 * by ncz_set_max_threads(), else the default it describes.
 *
 * Returns: the number of threads, from 1 to 64
 * Since: 1.0
 */
guint
ncz_get_max_threads (void)
{
  return ncz_parallel_get_n_workers ();
}
