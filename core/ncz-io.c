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
      io_pool = g_thread_pool_new (ncz_pool_job_func, NULL, (gint) threads, TRUE, NULL);
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

  ncz_pool_run (pool, helpers, items, n, func, user_data);
  g_atomic_int_add (&io_demand, - (gint) helpers);
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
