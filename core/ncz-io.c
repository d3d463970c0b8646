/* ncz-io.c: I/O threads, apart from the CPU workers
 *
 * Storage requests mostly wait (for a disk, for a server), so how many
 * are in flight is set apart from how many threads decode chunks: a
 * remote store wants dozens of requests in flight on a machine with two
 * cores. ncz_io_run() runs a function over a list of items on a pool of
 * I/O threads with at most a given number at once. The calling thread
 * works too, and items are claimed one at a time from a shared counter,
 * so a caller never waits for an item nobody has started, even when the
 * pool is busy with other callers.
 *
 * The pool is exclusive and grows to the largest number of helpers the
 * calls running at one time asked for (at most NCZ_STORE_MAX_IO_DEPTH
 * threads); idle threads wait for work and cost no CPU.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-io-private.h"

typedef struct {
  gatomicrefcount ref;
  gpointer *items;
  guint n;
  gint next;
  gint done;
  NczParallelFunc func;
  gpointer user_data;
  GMutex lock;
  GCond cond;
} IoJob;

static void
io_job_unref (IoJob *job)
{
  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

static void
io_job_work (IoJob *job)
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

static void
io_pool_func (gpointer data, gpointer user_data)
{
  IoJob *job = data;
  io_job_work (job);
  io_job_unref (job);
}

static GMutex io_pool_lock;
static GThreadPool *io_pool;
static guint io_pool_threads;
static gint io_demand;   /* helpers asked for by the calls running now */

/* An I/O pool of at least @threads threads. */
static GThreadPool *
ensure_io_pool (guint threads)
{
  GThreadPool *pool;

  g_mutex_lock (&io_pool_lock);
  if (io_pool == NULL)
    {
      io_pool = g_thread_pool_new (io_pool_func, NULL, (gint) threads, TRUE, NULL);
      io_pool_threads = threads;
    }
  else if (io_pool_threads < threads)
    {
      g_thread_pool_set_max_threads (io_pool, (gint) threads, NULL);
      io_pool_threads = threads;
    }
  pool = io_pool;
  g_mutex_unlock (&io_pool_lock);
  return pool;
}

void
ncz_io_run (gpointer        *items,
            guint            n,
            guint            depth,
            NczParallelFunc  func,
            gpointer         user_data)
{
  GThreadPool *pool;
  IoJob *job;
  guint helpers, demand;

  if (n == 0)
    return;
  depth = CLAMP (depth, 1, NCZ_STORE_MAX_IO_DEPTH);
  helpers = MIN (n, depth) - 1;
  if (helpers == 0)
    {
      for (guint i = 0; i < n; i++)
        func (items[i], user_data);
      return;
    }
  /* enough threads for every call running now, so that concurrent
   * callers (one per CPU worker) each get their depth */
  demand = (guint) (g_atomic_int_add (&io_demand, (gint) helpers) + (gint) helpers);
  pool = ensure_io_pool (CLAMP (demand, NCZ_STORE_DEFAULT_IO_DEPTH, NCZ_STORE_MAX_IO_DEPTH));

  job = g_new0 (IoJob, 1);
  g_atomic_ref_count_init (&job->ref);
  job->items = items;
  job->n = n;
  job->func = func;
  job->user_data = user_data;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  for (guint i = 0; i < helpers; i++)
    {
      g_atomic_ref_count_inc (&job->ref);
      g_thread_pool_push (pool, job, NULL);
    }
  io_job_work (job);
  g_mutex_lock (&job->lock);
  while (g_atomic_int_get (&job->done) < (gint) n)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
  g_atomic_int_add (&io_demand, - (gint) helpers);
  /* helpers that start late find nothing to claim; @items may go now */
  io_job_unref (job);
}

guint
ncz_io_depth_from_env (void)
{
  const char *env = g_getenv ("NCZ_IO_DEPTH");
  guint64 v;
  char *end = NULL;

  if (env == NULL || *env == '\0')
    return 0;
  v = g_ascii_strtoull (env, &end, 10);
  if (end == env || *end != '\0' || v == 0)
    return 0;
  return (guint) MIN (v, NCZ_STORE_MAX_IO_DEPTH);
}
