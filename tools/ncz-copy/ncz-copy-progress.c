/* ncz-copy-progress.c: a progress bar on standard error
 *
 *   [##########..........]  50%   12.0/24.0 MB   35.2 MB/s  /g1/temperature
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include <string.h>

#include "ncz-copy-progress.h"

#define BAR_WIDTH 24
#define REDRAW_INTERVAL_US (G_USEC_PER_SEC / 10)
#define MEGABYTE 1e6

struct _CopyProgress
{
  FILE *out;
  gboolean enabled;
  guint64 total;
  guint64 done;
  gint64 started;       /* monotonic µs */
  gint64 last_draw;     /* 0: never */
  char *variable;
};

CopyProgress *
copy_progress_new (FILE *out, gboolean enabled, guint64 total_bytes)
{
  CopyProgress *p = g_new0 (CopyProgress, 1);
  p->out = out;
  p->enabled = enabled;
  p->total = total_bytes;
  p->started = g_get_monotonic_time ();
  return p;
}

void
copy_progress_free (CopyProgress *progress)
{
  if (progress == NULL)
    return;
  g_free (progress->variable);
  g_free (progress);
}

static double
rate (CopyProgress *p, gint64 now)
{
  double seconds = (double) (now - p->started) / G_USEC_PER_SEC;
  return seconds > 0 ? (double) p->done / MEGABYTE / seconds : 0.0;
}

static void
draw (CopyProgress *p, gint64 now)
{
  double fraction = p->total ? (double) p->done / (double) p->total : 1.0;
  char bar[BAR_WIDTH + 1];
  guint filled;

  if (fraction > 1.0)
    fraction = 1.0;
  filled = (guint) (fraction * BAR_WIDTH);
  memset (bar, '#', filled);
  memset (bar + filled, '.', BAR_WIDTH - filled);
  bar[BAR_WIDTH] = '\0';
  /* \r back to column 0, \033[K clears what a longer line left */
  fprintf (p->out, "\r[%s] %3d%% %9.1f/%.1f MB %8.1f MB/s  %s\033[K",
           bar, (int) (fraction * 100), (double) p->done / MEGABYTE,
           (double) p->total / MEGABYTE, rate (p, now),
           p->variable ? p->variable : "");
  fflush (p->out);
  p->last_draw = now;
}

void
copy_progress_begin_variable (CopyProgress *progress, const char *name)
{
  gint64 now;

  g_free (progress->variable);
  progress->variable = g_strdup (name);
  if (!progress->enabled)
    return;
  now = g_get_monotonic_time ();
  if (progress->last_draw == 0 || now - progress->last_draw >= REDRAW_INTERVAL_US)
    draw (progress, now);
}

void
copy_progress_add (CopyProgress *progress, guint64 bytes)
{
  gint64 now;

  progress->done += bytes;
  if (!progress->enabled)
    return;
  now = g_get_monotonic_time ();
  if (now - progress->last_draw >= REDRAW_INTERVAL_US)
    draw (progress, now);
}

void
copy_progress_finish (CopyProgress *progress, guint n_variables)
{
  gint64 now;

  if (!progress->enabled)
    return;
  now = g_get_monotonic_time ();
  g_clear_pointer (&progress->variable, g_free);
  draw (progress, now);
  fprintf (progress->out, "\ncopied %u variable%s, %.1f MB in %.2f s (%.1f MB/s)\n",
           n_variables, n_variables == 1 ? "" : "s", (double) progress->done / MEGABYTE,
           (double) (now - progress->started) / G_USEC_PER_SEC, rate (progress, now));
  fflush (progress->out);
}
