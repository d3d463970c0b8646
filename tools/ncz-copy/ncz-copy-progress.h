/* ncz-copy-progress.h: a progress bar on standard error
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _CopyProgress CopyProgress;

/* A disabled progress prints nothing. */
CopyProgress *copy_progress_new (FILE *out, gboolean enabled, guint64 total_bytes);
void copy_progress_free (CopyProgress *progress);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CopyProgress, copy_progress_free)

void copy_progress_begin_variable (CopyProgress *progress, const char *name);
/* @bytes more were copied; redraws at most ten times a second. */
void copy_progress_add (CopyProgress *progress, guint64 bytes);
/* Draws the final bar and the summary line. */
void copy_progress_finish (CopyProgress *progress, guint n_variables);

G_END_DECLS
