/* ncz-variable-private.h: what the files of NczVariable share
 *
 * ncz-variable.c (the object, its shape, chunking, fill value, strings
 * and attributes), ncz-variable-filters.c (the filter API and quantize)
 * and ncz-variable-io.c (hyperslab reads and writes). Not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-core-private.h"

G_BEGIN_DECLS

struct _NczVariable
{
  GObject parent_instance;
  char *name;
  NczNodeLink link;       /* to the group, the owner */
  NczGroup *group;
  NczDataType type;
  GPtrArray *dimensions;  /* NczDimension, strong */
  guint64 *chunks;        /* NULL until set or defaulted */
  gboolean contiguous;
  gboolean chunking_set;  /* chunk sizes set or chunked storage asked for, not defaulted */
  GBytes *fill;           /* user fill value (storage element bytes), or NULL */
  gboolean no_fill;
  NczEndianness endianness;
  gboolean zero_dim;
  guint string_width;     /* set directly; 0 = from attributes (atomic) */
  int vlen_strings;       /* -1: the dataset's default, 0: fixed width, 1: variable length */
  char *storage_dtype;    /* the stored data type to keep (e.g. "|b1"), or NULL */
  NczAttrList attributes;
  GPtrArray *filters;     /* NczFilterSpec */
  guint filters_generation; /* bumped whenever @filters changes (under lock) */
  NczCodecChain *chain;   /* resolved chain, or NULL (under lock) */
  NczQuantizeMode quantize_mode;
  guint quantize_nsd;
  gboolean loaded;        /* read from an existing dataset */
  gboolean data_written;  /* values were written since it was defined */
  GMutex lock;
};

/* FALSE with an error when the variable can no longer be defined (its
 * dataset is gone, read-only, or data was written). */
G_GNUC_INTERNAL gboolean ncz_variable_check_define (NczVariable *self, GError **error);
/* The integer value of a one-element integer attribute, -1 otherwise. */
G_GNUC_INTERNAL gint64 ncz_variable_int_attribute (NczAttribute *a);

G_END_DECLS
