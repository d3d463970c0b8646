/* ncz-copy-data.h: copying the values of a variable
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

#include "ncz-copy-progress.h"

G_BEGIN_DECLS

/* What the copy of every variable shares. */
typedef struct
{
  const char *in_url;
  const char *out_url;
  NczDataset *in;
  CopyProgress *progress;
  gsize memory_bytes;   /* the values held at once (-m) */
} CopyData;

/* Sets @error to @local's domain and code with a message naming @what
 * (variable, attribute...) @name of @url; frees @local. Returns FALSE. */
gboolean copy_fail_in (const char *what, const char *name, const char *url, GError *local,
                       GError **error);

/* The bytes of @v's values, as the progress counts them. */
guint64 copy_data_get_bytes (NczVariable *v);

/* Copies the values of @in (a variable of @data->in) to @out, its copy. */
gboolean copy_data (CopyData *data, NczVariable *in, NczVariable *out, GError **error);

G_END_DECLS
