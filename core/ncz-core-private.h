/* ncz-core-private.h: internals of libncz, not exported
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>
#include "ncz-model-private.h"

G_BEGIN_DECLS

gboolean ncz_check_object_name (const char *kind, const char *name, GError **error);

/* Ordered attribute lists shared by groups and variables */
NczAttribute *ncz_attr_list_find (GPtrArray *list, const char *name);
void ncz_attr_list_set (GPtrArray *list, NczAttribute *attribute);
gboolean ncz_attr_list_remove (GPtrArray *list, const char *name);
gboolean ncz_attr_list_move (GPtrArray *list, const char *name, guint position);

NczDimension *ncz_dimension_new_internal (NczGroup *group, const char *name,
                                          guint64 length, gboolean unlimited);
void ncz_dimension_set_length_internal (NczDimension *self, guint64 length);

NczVariable *ncz_variable_new_internal (NczGroup *group, const char *name,
                                        NczType type, guint n_dims,
                                        NczDimension **dimensions);
NczGroup *ncz_group_new_internal (NczDataset *dataset, NczGroup *parent,
                                  const char *name);
NczDataset *ncz_group_peek_dataset (NczGroup *self);

/* The chunk engine (ncz-slab.c). Buffers hold storage elements
 * (ncz_variable_get_storage_element_size bytes each) in C order of @count. */
gboolean ncz_slab_read (NczVariable *variable, NczFormat *format,
                        const guint64 *start, const guint64 *count,
                        const gint64 *stride, guint8 *buffer,
                        GCancellable *cancellable, GError **error);
gboolean ncz_slab_write (NczVariable *variable, NczFormat *format,
                         const guint64 *start, const guint64 *count,
                         const gint64 *stride, const guint8 *buffer,
                         GCancellable *cancellable, GError **error);


G_END_DECLS
