/* ncz-core-private.h: internals of libncz, not exported
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>
#include "ncz-model-private.h"

G_BEGIN_DECLS

gboolean ncz_check_object_name (const char *kind, const char *name, GError **error);

/* Names. netCDF names are compared in Unicode NFC: every name index of
 * the model is keyed by the NFC form, and every lookup normalises the
 * name asked for. */
/* The NFC form of @name, newly allocated; NULL if @name is not UTF-8. */
char *ncz_name_normalize (const char *name);
/* The index key for looking up @name: @name itself when it is already
 * NFC (ASCII), else the NFC form, returned in *@normalized for the caller
 * to free; NULL if @name is not UTF-8. */
const char *ncz_name_key (const char *name, char **normalized);
/* A table of NFC name (owned) -> object (not owned) */
GHashTable *ncz_name_index_new (void);
gpointer ncz_name_index_lookup (GHashTable *index, const char *name);

/* Ordered attribute lists shared by groups and variables: the attributes
 * in definition order, and an index by name beside them. */
typedef struct {
  GPtrArray *items;    /* NczAttribute, in definition order */
  GHashTable *index;   /* the attribute's (NFC) name -> NczAttribute in items */
} NczAttrList;

void ncz_attr_list_init (NczAttrList *list);
void ncz_attr_list_clear (NczAttrList *list);
GPtrArray *ncz_attr_list_copy (NczAttrList *list);
NczAttribute *ncz_attr_list_find (NczAttrList *list, const char *name);
void ncz_attr_list_set (NczAttrList *list, NczAttribute *attribute);
gboolean ncz_attr_list_remove (NczAttrList *list, const char *name);
gboolean ncz_attr_list_move (NczAttrList *list, const char *name, guint position);

NczDimension *ncz_dimension_new_internal (NczGroup *group, const char *name,
                                          guint64 length, gboolean unlimited);
void ncz_dimension_set_length_internal (NczDimension *self, guint64 length);

NczVariable *ncz_variable_new_internal (NczGroup *group, const char *name,
                                        NczDataType type, guint n_dims,
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
