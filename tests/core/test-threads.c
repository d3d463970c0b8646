/* test-threads.c: how many CPU workers a process gets
 *
 * The cgroup quota read from fake cgroup trees in a temporary directory
 * (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, parents
 * with smaller limits, malformed files), the affinity mask of a process
 * started by taskset, and ncz_set_max_threads() before and after the
 * worker pool exists.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <sched.h>
#include <string.h>

#include <glib/gstdio.h>
#include <ncz/ncz-module.h>

#include "ncz-cpu-limit-private.h"

/* ---- fake cgroup trees ---- */

typedef struct {
  char *dir;           /* the temporary directory */
  char *root;          /* dir/sys/fs/cgroup */
  char *proc_cgroup;   /* dir/proc-self-cgroup */
} Tree;

static void
tree_setup (Tree *t, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  t->dir = g_dir_make_tmp ("ncz-cgroup-XXXXXX", &error);
  g_assert_no_error (error);
  t->root = g_build_filename (t->dir, "sys", "fs", "cgroup", NULL);
  g_assert_cmpint (g_mkdir_with_parents (t->root, 0700), ==, 0);
  t->proc_cgroup = g_build_filename (t->dir, "proc-self-cgroup", NULL);
}

static void
remove_all (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *name;

      g_assert_nonnull (d);
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_all (child);
        }
      g_dir_close (d);
    }
  g_assert_cmpint (g_remove (path), ==, 0);
}

static void
tree_teardown (Tree *t, gconstpointer data)
{
  remove_all (t->dir);
  g_free (t->dir);
  g_free (t->root);
  g_free (t->proc_cgroup);
}

/* Writes @text to @relpath under the cgroup root, making directories */
static void
put (Tree *t, const char *relpath, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (t->root, relpath, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static void
put_proc (Tree *t, const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (t->proc_cgroup, text, -1, &error);
  g_assert_no_error (error);
}

static guint
limit_of (Tree *t)
{
  return ncz_cpu_cgroup_limit (t->proc_cgroup, t->root);
}

/* What the default is with @limit (0: none) */
static guint
count_with (guint limit)
{
  guint n = ncz_cpu_affinity_count ();

  return limit > 0 ? MIN (n, limit) : n;
}

/* cgroup v2 without a limit: "max PERIOD" */
static void
test_v2_max (Tree *t, gconstpointer data)
{
  put_proc (t, "0::/user.slice/job\n");
  put (t, "user.slice/job/cpu.max", "max 100000\n");
  put (t, "cpu.max", "max 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 0);
  g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==, ncz_cpu_affinity_count ());
}

/* cgroup v2 "QUOTA PERIOD", rounded up to whole CPUs */
static void
test_v2_quota (Tree *t, gconstpointer data)
{
  static const struct { const char *cpu_max; guint want; } cases[] = {
    { "150000 100000\n", 2 },
    { "100000 100000", 1 },
    { "50000 100000\n", 1 },
    { "1000 100000\n", 1 },
    { "400000 100000\n", 4 },
    { "200000 50000\n", 4 },
    { "6400000 100000\n", 64 },
  };

  put_proc (t, "0::/job\n");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = g_strescape (cases[i].cpu_max, NULL);

      g_test_message ("cpu.max \"%s\"", shown);
      put (t, "job/cpu.max", cases[i].cpu_max);
      g_assert_cmpuint (limit_of (t), ==, cases[i].want);
      g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==,
                        count_with (cases[i].want));
    }
  /* a quota of one CPU: one worker, whatever the affinity */
  put (t, "job/cpu.max", "100000 100000\n");
  g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==, 1);
}

/* The smallest limit of the cgroup and of its parents wins */
static void
test_v2_nested (Tree *t, gconstpointer data)
{
  put_proc (t, "0::/a/b/c\n");
  put (t, "a/b/c/cpu.max", "max 100000\n");
  put (t, "a/b/cpu.max", "300000 100000\n");
  put (t, "a/cpu.max", "200000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 2);

  /* the cgroup's own limit is the smallest */
  put (t, "a/b/c/cpu.max", "100000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 1);

  /* a parent without the file, one without a limit */
  put (t, "a/b/c/cpu.max", "max 100000\n");
  {
    g_autofree char *f = g_build_filename (t->root, "a", "b", "cpu.max", NULL);
    g_assert_cmpint (g_remove (f), ==, 0);
  }
  put (t, "a/cpu.max", "max 100000\n");
  put (t, "cpu.max", "500000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 5);

  /* a container that sees its own cgroup as the root of the mount: the
   * path of /proc/self/cgroup is not there, the root's limit is found on
   * the way up */
  put_proc (t, "0::/system.slice/docker-1234.scope\n");
  g_assert_cmpuint (limit_of (t), ==, 5);
  /* a cgroup outside the namespace ("..") is not looked for */
  put_proc (t, "0::/../../elsewhere\n");
  g_assert_cmpuint (limit_of (t), ==, 5);
}

/* cgroup v1: cpu.cfs_quota_us / cpu.cfs_period_us of the hierarchy that
 * has the cpu controller, mounted as "cpu,cpuacct" or "cpu" */
static void
test_v1 (Tree *t, gconstpointer data)
{
  put_proc (t,
            "12:memory:/slurm/job1\n"
            "11:cpu,cpuacct:/slurm/job1\n"
            "10:cpuset:/slurm/job1\n"
            "1:name=systemd:/slurm/job1\n"
            "0::/slurm/job1\n");
  /* the memory hierarchy's files do not count */
  put (t, "memory/slurm/job1/cpu.cfs_quota_us", "100000\n");
  put (t, "memory/slurm/job1/cpu.cfs_period_us", "100000\n");
  put (t, "cpu,cpuacct/slurm/job1/cpu.cfs_quota_us", "-1\n");
  put (t, "cpu,cpuacct/slurm/job1/cpu.cfs_period_us", "100000\n");
  put (t, "cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  put (t, "cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  g_assert_cmpuint (limit_of (t), ==, 0);
  g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==, ncz_cpu_affinity_count ());

  put (t, "cpu,cpuacct/slurm/job1/cpu.cfs_quota_us", "250000\n");
  g_assert_cmpuint (limit_of (t), ==, 3);
  g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==, count_with (3));

  /* a parent with a smaller limit */
  put (t, "cpu,cpuacct/slurm/cpu.cfs_quota_us", "150000\n");
  put (t, "cpu,cpuacct/slurm/cpu.cfs_period_us", "100000\n");
  g_assert_cmpuint (limit_of (t), ==, 2);

  /* the controller mounted on its own, or reached by the "cpu" link */
  put_proc (t, "3:cpu:/j\n");
  put (t, "cpu/j/cpu.cfs_quota_us", "100000\n");
  put (t, "cpu/j/cpu.cfs_period_us", "100000\n");
  g_assert_cmpuint (limit_of (t), ==, 1);
  put_proc (t, "3:cpuacct,cpu:/j\n");
  g_assert_cmpuint (limit_of (t), ==, 1);
}

/* Both hierarchies (a hybrid host): the smaller limit */
static void
test_v1_and_v2 (Tree *t, gconstpointer data)
{
  put_proc (t, "2:cpu:/j\n0::/j\n");
  put (t, "cpu/j/cpu.cfs_quota_us", "300000\n");
  put (t, "cpu/j/cpu.cfs_period_us", "100000\n");
  put (t, "j/cpu.max", "700000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 3);
  put (t, "j/cpu.max", "200000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 2);
}

/* Files that are missing, unreadable or malformed say nothing: the
 * affinity count, or the limit of a parent whose file is good */
static void
test_malformed (Tree *t, gconstpointer data)
{
  static const char *const bad_cpu_max[] = {
    "", "\n", "max", "abc 100000", "100000", "0 100000", "100000 0", "-1 100000",
    "1e5 100000", "100000 100000 7", "100000  100000", "+100000 100000",
    "0x10 100000", "100000 max", "99999999999999999999999 100000",
  };
  static const struct { const char *quota, *period; } bad_v1[] = {
    { "abc", "100000" }, { "0", "100000" }, { "-2", "100000" }, { "100000", "0" },
    { "100000", "-1" }, { "100000", "" }, { "", "100000" }, { "100000", NULL },
  };
  static const char *const bad_proc[] = {
    "", "garbage\n", "0::relative/path\n", ":::\n", "0:/job\n", "x::/job\n",
    "3:cpu/evil:/job\n",
  };

  /* no /proc/self/cgroup at all */
  g_assert_cmpuint (limit_of (t), ==, 0);
  g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==, ncz_cpu_affinity_count ());
  /* no cgroup root */
  put_proc (t, "0::/job\n");
  g_assert_cmpuint (ncz_cpu_cgroup_limit (t->proc_cgroup, "/nonexistent/ncz/cgroup"), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (bad_cpu_max); i++)
    {
      g_autofree char *shown = g_strescape (bad_cpu_max[i], NULL);

      g_test_message ("cpu.max \"%s\"", shown);
      put (t, "job/cpu.max", bad_cpu_max[i]);
      g_assert_cmpuint (limit_of (t), ==, 0);
      g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==,
                        ncz_cpu_affinity_count ());
    }
  /* a malformed file of the cgroup, a good one of its parent */
  put_proc (t, "0::/job/step\n");
  put (t, "job/step/cpu.max", "lots 100000\n");
  put (t, "job/cpu.max", "200000 100000\n");
  g_assert_cmpuint (limit_of (t), ==, 2);
  /* cpu.max that cannot be read (a directory) */
  {
    g_autofree char *f = g_build_filename (t->root, "job", "step", "cpu.max", NULL);

    g_assert_cmpint (g_remove (f), ==, 0);
    put (t, "job/step/cpu.max/x", "100000 100000\n");
  }
  g_assert_cmpuint (limit_of (t), ==, 2);

  put_proc (t, "4:cpu:/v1job\n");
  for (guint i = 0; i < G_N_ELEMENTS (bad_v1); i++)
    {
      g_autofree char *period = g_build_filename (t->root, "cpu", "v1job", "cpu.cfs_period_us",
                                                  NULL);

      g_test_message ("cfs quota '%s' period '%s'", bad_v1[i].quota,
                      bad_v1[i].period ? bad_v1[i].period : "(none)");
      put (t, "cpu/v1job/cpu.cfs_quota_us", bad_v1[i].quota);
      if (bad_v1[i].period != NULL)
        put (t, "cpu/v1job/cpu.cfs_period_us", bad_v1[i].period);
      else
        g_remove (period);
      g_assert_cmpuint (limit_of (t), ==, 0);
    }

  put (t, "job/cpu.max", "100000 100000\n");
  put (t, "cpu.max", "100000 100000\n");
  for (guint i = 0; i < G_N_ELEMENTS (bad_proc); i++)
    {
      g_autofree char *shown = g_strescape (bad_proc[i], NULL);

      g_test_message ("/proc/self/cgroup \"%s\"", shown);
      put_proc (t, bad_proc[i]);
      g_assert_cmpuint (limit_of (t), ==, 0);
      g_assert_cmpuint (ncz_cpu_count_at (t->proc_cgroup, t->root), ==,
                        ncz_cpu_affinity_count ());
    }
}

/* ---- the affinity mask ---- */

/* A child started by the tests prints its number of workers and its
 * affinity count, and exits */
static int
print_threads (void)
{
  g_print ("%u %u\n", ncz_get_max_threads (), ncz_cpu_affinity_count ());
  return 0;
}

/* Runs this program under `taskset -c @cpus`, @threads_env as NCZ_THREADS
 * (NULL: unset); returns what it printed */
static char *
run_in_taskset (const char *taskset, const char *cpus, const char *threads_env)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  g_auto(GStrv) envp = g_get_environ ();
  const char *argv[] = { taskset, "-c", cpus, self, NULL };
  char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  g_assert_no_error (error);
  envp = g_environ_setenv (envp, "NCZ_TEST_PRINT_THREADS", "1", TRUE);
  if (threads_env != NULL)
    envp = g_environ_setenv (envp, "NCZ_THREADS", threads_env, TRUE);
  else
    envp = g_environ_unsetenv (envp, "NCZ_THREADS");
  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("taskset -c %s %s: %s\n%s", cpus, self, error->message, err);
  return g_strstrip (out);
}

/* A process bound to one CPU (an MPI rank bound to a core) gets one
 * worker by default; NCZ_THREADS still wins */
static void
test_taskset (void)
{
  g_autofree char *taskset = g_find_program_in_path ("taskset");
  cpu_set_t set;
  int first = -1, second = -1;

  if (taskset == NULL)
    {
      g_test_skip ("no taskset (util-linux)");
      return;
    }
  /* the first CPUs this process may use (CPU 0 may not be one of them) */
  CPU_ZERO (&set);
  g_assert_cmpint (sched_getaffinity (0, sizeof set, &set), ==, 0);
  for (int i = 0; i < CPU_SETSIZE && second < 0; i++)
    if (CPU_ISSET (i, &set))
      {
        if (first < 0)
          first = i;
        else
          second = i;
      }
  g_assert_cmpint (first, >=, 0);

  {
    g_autofree char *cpus = g_strdup_printf ("%d", first);
    g_autofree char *out = run_in_taskset (taskset, cpus, NULL);
    g_autofree char *out_env = run_in_taskset (taskset, cpus, "3");

    g_assert_cmpstr (out, ==, "1 1");
    g_assert_cmpstr (out_env, ==, "3 1");
  }
  if (second >= 0)
    {
      g_autofree char *cpus = g_strdup_printf ("%d,%d", first, second);
      g_autofree char *out = run_in_taskset (taskset, cpus, NULL);
      guint limit = ncz_cpu_cgroup_limit ("/proc/self/cgroup", "/sys/fs/cgroup");
      g_autofree char *want = g_strdup_printf ("%u 2", limit > 0 ? MIN (limit, 2) : 2);

      g_assert_cmpstr (out, ==, want);
    }
}

/* ---- ncz_set_max_threads() ---- */

/* Items of ncz_parallel_for() that note the threads they run on and how
 * many run at once; each waits (up to 10 s) until @gate of them have run
 * at the same time, so that every worker is seen working, never by luck
 * of timing. */
typedef struct {
  GMutex lock;
  GCond cond;
  guint gate;
  gboolean opened;
  gboolean timed_out;      /* then the others do not wait either */
  guint in_flight;
  guint max_in_flight;
  GHashTable *threads;
} Watch;

static void
watch_item (gpointer item, gpointer user_data)
{
  Watch *w = user_data;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&w->lock);
  g_hash_table_add (w->threads, g_thread_self ());
  w->in_flight++;
  w->max_in_flight = MAX (w->max_in_flight, w->in_flight);
  if (w->in_flight >= w->gate)
    {
      w->opened = TRUE;
      g_cond_broadcast (&w->cond);
    }
  while (!w->opened)
    if (!g_cond_wait_until (&w->cond, &w->lock, deadline))
      {
        w->timed_out = w->opened = TRUE;
        g_cond_broadcast (&w->cond);
      }
  g_mutex_unlock (&w->lock);
  g_usleep (1000);
  g_mutex_lock (&w->lock);
  w->in_flight--;
  g_mutex_unlock (&w->lock);
}

/* Runs 32 items on the workers; checks that @n_workers of them ran at
 * once, each on its own thread, and never more: the calling thread
 * alone when @n_workers is 1 */
static void
check_workers (guint n_workers)
{
  Watch w = { .gate = n_workers };
  gpointer items[32] = { NULL };

  g_assert_cmpuint (ncz_get_max_threads (), ==, n_workers);
  g_assert_cmpuint (ncz_parallel_get_n_workers (), ==, n_workers);
  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  w.threads = g_hash_table_new (NULL, NULL);
  ncz_parallel_for (items, G_N_ELEMENTS (items), watch_item, &w);
  g_test_message ("%u workers: %u threads, at most %u at once", n_workers,
                  g_hash_table_size (w.threads), w.max_in_flight);
  g_assert_false (w.timed_out);
  g_assert_cmpuint (w.max_in_flight, ==, n_workers);
  g_assert_cmpuint (g_hash_table_size (w.threads), ==, n_workers);
  g_assert_true (g_hash_table_contains (w.threads, g_thread_self ()));
  g_hash_table_unref (w.threads);
  g_cond_clear (&w.cond);
  g_mutex_clear (&w.lock);
}

/* Set before the pool exists: the pool is made with that size. Runs in
 * a new process, whose pool has not started. */
static void
test_set_before_pool (void)
{
  if (g_test_subprocess ())
    {
      ncz_set_max_threads (3);
      g_assert_cmpuint (ncz_get_max_threads (), ==, 3);
      check_workers (3);
      /* back to NCZ_THREADS (2, set by main()) */
      ncz_set_max_threads (0);
      check_workers (2);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Set after the pool exists: it grows and shrinks */
static void
test_set_resizes_pool (void)
{
  /* NCZ_THREADS=2 (main()) until something is set */
  check_workers (2);
  ncz_set_max_threads (4);
  check_workers (4);
  ncz_set_max_threads (2);
  check_workers (2);
  ncz_set_max_threads (1);
  check_workers (1);
  ncz_set_max_threads (3);
  check_workers (3);
  ncz_set_max_threads (1000);
  g_assert_cmpuint (ncz_get_max_threads (), ==, 64);
  ncz_set_max_threads (0);
  check_workers (2);
}

int
main (int argc, char **argv)
{
  if (g_getenv ("NCZ_TEST_PRINT_THREADS") != NULL)
    return print_threads ();
  /* a known number of workers until the tests set one, whatever the
   * machine */
  g_setenv ("NCZ_THREADS", "2", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add ("/threads/cgroup/v2-max", Tree, NULL, tree_setup, test_v2_max, tree_teardown);
  g_test_add ("/threads/cgroup/v2-quota", Tree, NULL, tree_setup, test_v2_quota, tree_teardown);
  g_test_add ("/threads/cgroup/v2-nested", Tree, NULL, tree_setup, test_v2_nested,
              tree_teardown);
  g_test_add ("/threads/cgroup/v1", Tree, NULL, tree_setup, test_v1, tree_teardown);
  g_test_add ("/threads/cgroup/v1-and-v2", Tree, NULL, tree_setup, test_v1_and_v2,
              tree_teardown);
  g_test_add ("/threads/cgroup/malformed", Tree, NULL, tree_setup, test_malformed,
              tree_teardown);
  g_test_add_func ("/threads/affinity/taskset", test_taskset);
  g_test_add_func ("/threads/set-max/before-pool", test_set_before_pool);
  g_test_add_func ("/threads/set-max/resizes-pool", test_set_resizes_pool);

  return g_test_run ();
}
