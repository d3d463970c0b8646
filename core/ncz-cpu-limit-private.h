/* ncz-cpu-limit-private.h: how many CPUs this process may use
 *
 * Exported for Ncz's tests; not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/* The number of CPUs in the process's affinity mask (sched_getaffinity()
 * of the main thread), at least 1; g_get_num_processors() where there is
 * no such call or it fails. */
NCZ_PRIVATE_API guint ncz_cpu_affinity_count (void);

/* The CPU quota of the process's cgroups, rounded up to whole CPUs, or 0
 * when there is none. @proc_cgroup is a file in the format of
 * /proc/self/cgroup and @cgroup_root the directory the cgroup hierarchies
 * are mounted on (/sys/fs/cgroup). The smallest limit wins, among
 * cgroup v2 cpu.max and cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us,
 * of the process's own cgroups and every parent of them. Files that are
 * missing, unreadable or malformed are ignored. */
NCZ_PRIVATE_API guint ncz_cpu_cgroup_limit (const char *proc_cgroup,
                                            const char *cgroup_root);

/* The default number of CPU workers: the affinity count, lowered to the
 * cgroup limit read from @proc_cgroup and @cgroup_root; at least 1. */
NCZ_PRIVATE_API guint ncz_cpu_count_at (const char *proc_cgroup,
                                        const char *cgroup_root);

/* ncz_cpu_count_at() on /proc/self/cgroup and /sys/fs/cgroup */
G_GNUC_INTERNAL guint ncz_cpu_count (void);

G_END_DECLS
