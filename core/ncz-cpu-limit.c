/* ncz-cpu-limit.c: how many CPUs this process may use
 *
 * The default number of CPU workers (ncz-parallel.c) is the number of
 * CPUs the process may run on, so that many processes on one host (MPI
 * ranks bound to cores, containers with a CPU quota) do not each start a
 * thread per core of the machine: the CPUs of its affinity mask, lowered
 * to the CPU quota of its cgroups when there is one.
 *
 * g_get_num_processors() does not do this. In GLib 2.74 (Debian 12) it
 * is sysconf (_SC_NPROCESSORS_ONLN) on Linux: every online CPU, whatever
 * the affinity (a process started by `taskset -c 0` is told 2 on a
 * machine with 2). Later GLib counts the calling thread's affinity mask,
 * but only among the first _SC_NPROCESSORS_ONLN CPU numbers. Neither
 * reads cgroups.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>
#include <unistd.h>
#endif

#include "ncz-cpu-limit-private.h"

guint
ncz_cpu_affinity_count (void)
{
#ifdef __linux__
  /* The mask of the main thread, the one the process was started with
   * (taskset, an MPI launcher's binding): a thread of the program that
   * pinned itself to one CPU and then calls Ncz does not make Ncz run on
   * one. The set grows until the kernel's fits (EINVAL: too small). */
  for (gsize n_cpus = CPU_SETSIZE; n_cpus <= 1024 * CPU_SETSIZE; n_cpus *= 2)
    {
      cpu_set_t *set = CPU_ALLOC (n_cpus);
      gsize size = CPU_ALLOC_SIZE (n_cpus);
      int r, saved_errno, count;

      if (set == NULL)
        break;
      CPU_ZERO_S (size, set);
      r = sched_getaffinity (getpid (), size, set);
      saved_errno = errno;
      count = r == 0 ? CPU_COUNT_S (size, set) : 0;
      CPU_FREE (set);
      if (count > 0)
        return (guint) count;
      if (r == 0 || saved_errno != EINVAL)
        break;
    }
#endif
  return MAX (g_get_num_processors (), 1);
}

/* Whole CPUs for @quota per @period (both positive), rounded up */
static guint
quota_to_cpus (guint64 quota, guint64 period)
{
  guint64 cpus = quota / period + (quota % period != 0);

  return (guint) MIN (cpus, G_MAXUINT);
}

/* The text of @dir/@name without surrounding white space, or NULL */
static char *
read_stripped (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

static gboolean
parse_positive (const char *text, guint64 *value)
{
  return text != NULL && g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT64, value, NULL);
}

/* cgroup v2: cpu.max is "max PERIOD" (no limit) or "QUOTA PERIOD" */
static guint
cgroup2_limit (const char *dir)
{
  g_autofree char *text = read_stripped (dir, "cpu.max");
  g_auto(GStrv) fields = NULL;
  guint64 quota, period;

  if (text == NULL)
    return 0;
  fields = g_strsplit (text, " ", -1);
  if (g_strv_length (fields) != 2
      || !parse_positive (fields[0], &quota)
      || !parse_positive (fields[1], &period))
    return 0;
  return quota_to_cpus (quota, period);
}

/* cgroup v1: cpu.cfs_quota_us is -1 (no limit) or the quota, in
 * microseconds per cpu.cfs_period_us */
static guint
cgroup1_limit (const char *dir)
{
  g_autofree char *quota_text = read_stripped (dir, "cpu.cfs_quota_us");
  g_autofree char *period_text = NULL;
  guint64 quota, period;

  if (!parse_positive (quota_text, &quota))
    return 0;
  period_text = read_stripped (dir, "cpu.cfs_period_us");
  if (!parse_positive (period_text, &period))
    return 0;
  return quota_to_cpus (quota, period);
}

/* Whether @path has a ".." component: a cgroup outside the cgroup
 * namespace of the process, not under the mount */
static gboolean
goes_up (const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      return TRUE;
  return FALSE;
}

typedef guint (*LimitFunc) (const char *dir);

/* The smaller of @best and the limits of cgroup @path under @mount and
 * of every parent of it up to the mount itself (0: none). A container
 * that sees its own cgroup as the mount's root finds it on the way up. */
static guint
smallest_up (const char *mount, const char *path, LimitFunc limit_of, guint best)
{
  g_autofree char *p = g_strdup (path);

  while (TRUE)
    {
      char *parent;

      if (!goes_up (p))
        {
          g_autofree char *dir = g_build_filename (mount, p, NULL);
          guint limit = limit_of (dir);

          if (limit > 0 && (best == 0 || limit < best))
            best = limit;
        }
      if (strcmp (p, "/") == 0)
        break;
      parent = g_path_get_dirname (p);
      g_free (p);
      p = parent;
    }
  return best;
}

static gboolean
has_cpu_controller (const char *controllers)
{
  g_auto(GStrv) names = g_strsplit (controllers, ",", -1);

  return g_strv_contains ((const char * const *) names, "cpu");
}

guint
ncz_cpu_cgroup_limit (const char *proc_cgroup, const char *cgroup_root)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint best = 0;

  g_return_val_if_fail (proc_cgroup != NULL, 0);
  g_return_val_if_fail (cgroup_root != NULL, 0);

  if (!g_file_get_contents (proc_cgroup, &text, NULL, NULL))
    return 0;
  /* one line per hierarchy, "ID:CONTROLLERS:PATH": "0::PATH" is the
   * cgroup v2 one, a v1 line names its controllers ("4:cpu,cpuacct:PATH")
   * and is mounted on a directory of that name or on "cpu" */
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], ":", 3);

      if (g_strv_length (fields) != 3 || fields[2][0] != '/')
        continue;
      if (strcmp (fields[0], "0") == 0 && fields[1][0] == '\0')
        best = smallest_up (cgroup_root, fields[2], cgroup2_limit, best);
      else if (has_cpu_controller (fields[1]) && strchr (fields[1], '/') == NULL)
        {
          g_autofree char *mount = g_build_filename (cgroup_root, fields[1], NULL);

          best = smallest_up (mount, fields[2], cgroup1_limit, best);
          if (strcmp (fields[1], "cpu") != 0)
            {
              g_autofree char *cpu_mount = g_build_filename (cgroup_root, "cpu", NULL);

              best = smallest_up (cpu_mount, fields[2], cgroup1_limit, best);
            }
        }
    }
  return best;
}

guint
ncz_cpu_count_at (const char *proc_cgroup, const char *cgroup_root)
{
  guint n = ncz_cpu_affinity_count ();
  guint limit = ncz_cpu_cgroup_limit (proc_cgroup, cgroup_root);

  if (limit > 0 && limit < n)
    n = limit;
  return MAX (n, 1);
}

guint
ncz_cpu_count (void)
{
  return ncz_cpu_count_at ("/proc/self/cgroup", "/sys/fs/cgroup");
}
