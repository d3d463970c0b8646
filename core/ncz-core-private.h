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
  GObject *owner;      /* the group or variable; its attribute list model is told of changes */
} NczAttrList;

void ncz_attr_list_init (NczAttrList *list, gpointer owner);
void ncz_attr_list_clear (NczAttrList *list);
GPtrArray *ncz_attr_list_copy (NczAttrList *list);
NczAttribute *ncz_attr_list_find (NczAttrList *list, const char *name);
void ncz_attr_list_set (NczAttrList *list, NczAttribute *attribute);
gboolean ncz_attr_list_remove (NczAttrList *list, const char *name);
gboolean ncz_attr_list_move (NczAttrList *list, const char *name, guint position);

/* Ownership in the model. A parent owns its children (a group its
 * dimensions, variables and subgroups; the dataset its root group)
 * through a toggle reference: while that is a child's only reference the
 * child holds nothing, and as soon as anyone else holds the child, the
 * child holds a strong reference on its owner. So an object a caller
 * holds keeps its parents and its dataset alive and working, there is no
 * reference cycle, and once nobody holds the dataset or any object of
 * it, the dataset is closed and everything is freed. Children point to
 * their owner without a weak pointer: the owner outlives them. */
typedef struct {
  GMutex lock;
  GObject *owner;      /* the parent group, or the dataset for a root group */
  gboolean holding;    /* a reference on @owner is held */
} NczNodeLink;

void ncz_node_link_init (NczNodeLink *link, gpointer owner);
void ncz_node_link_clear (NczNodeLink *link);
/* Makes the caller's reference on @node (a new group, dimension or
 * variable) its owner's toggle reference. */
void ncz_node_adopt (gpointer node);
/* Drops an owner's reference taken by ncz_node_adopt(); a GDestroyNotify
 * for the owner's arrays. */
void ncz_node_release (gpointer node);
NczNodeLink *ncz_variable_get_link (NczVariable *self);
NczNodeLink *ncz_dimension_get_link (NczDimension *self);

NczDimension *ncz_dimension_new_internal (NczGroup *group, const char *name,
                                          guint64 length, gboolean unlimited);
void ncz_dimension_set_length_internal (NczDimension *self, guint64 length);
void ncz_dimension_grow_internal (NczDimension *self, guint64 length);

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


/* The job runner of the CPU workers (ncz-parallel.c) and the I/O threads
 * (ncz-io.c): @func over @items on the calling thread and @helpers
 * threads of @pool, whose thread function is ncz_pool_job_func(). */
void ncz_pool_run (GThreadPool *pool, guint helpers, gpointer *items, guint n,
                   NczParallelFunc func, gpointer user_data);
void ncz_pool_job_func (gpointer data, gpointer user_data);

G_END_DECLS
