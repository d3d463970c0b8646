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

/* NCZ_THREADS above this is taken as this */
#define NCZ_PARALLEL_MAX_WORKERS 64

static GThreadPool *pool;
static guint n_workers;

static void
ensure_pool (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      /* NCZ_THREADS, as NCZ_IO_DEPTH: a whole number; unset, empty, 0
       * or anything else gives the default */
      const char *env = g_getenv ("NCZ_THREADS");
      guint64 n = 0;

      if (env != NULL && *env != '\0')
        {
          char *end = NULL;

          n = g_ascii_strtoull (env, &end, 10);
          if (end == env || *end != '\0')
            n = 0;
        }
      if (n == 0)
        n = ncz_cpu_count ();
      n_workers = (guint) CLAMP (n, 1, NCZ_PARALLEL_MAX_WORKERS);
      /* the calling thread works too */
      if (n_workers > 1)
        pool = g_thread_pool_new (ncz_pool_job_func, NULL, n_workers - 1, FALSE, NULL);
      g_once_init_leave (&initialized, 1);
    }
}

/* The number of threads that work on one ncz_parallel_for() call
 * (NCZ_THREADS, else the CPUs the process may use: its affinity mask and
 * its cgroup quota; at most 64). */
guint
ncz_parallel_get_n_workers (void)
{
  ensure_pool ();
  return n_workers;
}

void
ncz_parallel_for (gpointer *items, guint n, NczParallelFunc func, gpointer user_data)
{
  if (n == 0)
    return;
  ensure_pool ();
  ncz_pool_run (pool, MIN (n - 1, n_workers - 1), items, n, func, user_data);
}
