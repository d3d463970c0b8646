/* ncz-io-private.h: I/O scheduling inside libncz, not installed
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-core-private.h"

G_BEGIN_DECLS

/* Runs @func over @items on Ncz's I/O threads, at most @depth at once
 * (the calling thread is one of them), and returns when every item is
 * done. The I/O threads are apart from the CPU workers of
 * ncz_parallel_for(): they mostly wait for storage. @depth is clamped to
 * 1..NCZ_STORE_MAX_IO_DEPTH. */
G_GNUC_INTERNAL void ncz_io_run (gpointer *items, guint n, guint depth,
                                 NczParallelFunc func, gpointer user_data);

/* NCZ_IO_DEPTH from the environment (clamped to 1..NCZ_STORE_MAX_IO_DEPTH),
 * or 0 when it is unset or not a number. */
G_GNUC_INTERNAL guint ncz_io_depth_from_env (void);

G_END_DECLS
