/* ncz-model-private.h: model internals of libncz, not installed
 *
 * What modules may use is in the module SDK, <ncz/ncz-module.h>.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz-module.h>

G_BEGIN_DECLS

G_GNUC_INTERNAL gboolean ncz_dataset_check_writable (NczDataset *self, GError **error);

/* A dataset operation run by the _async functions of sync, close and
 * refresh in a worker thread (ncz-dataset.c) */
typedef struct {
  gboolean (*run) (NczDataset *self, GCancellable *cancellable, GError **error);
} NczDatasetOp;
G_GNUC_INTERNAL void ncz_dataset_op_async (NczDataset *self, const NczDatasetOp *op,
                                           gpointer source_tag, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
G_GNUC_INTERNAL gboolean ncz_dataset_op_finish (NczDataset *self, GAsyncResult *result,
                                                gpointer source_tag, GError **error);
G_GNUC_INTERNAL gboolean ncz_dataset_check_definable (NczDataset *self, GError **error);

/* Live list models of the model's lists (ncz-attr-list.c).
 *
 * A group or variable (the owner) hands out a GListModel per list; the
 * model reads the owner's array when asked, holds a reference on the
 * owner, and is cached by the owner through a weak reference, so one
 * model is shared while anybody holds it and none costs anything while
 * nobody does. The owner calls ncz_model_list_changed() after each
 * change of the list, on the thread that made it. */
typedef enum {
  NCZ_MODEL_LIST_ATTRIBUTES,
  NCZ_MODEL_LIST_DIMENSIONS,
  NCZ_MODEL_LIST_VARIABLES,
  NCZ_MODEL_LIST_GROUPS,
  NCZ_MODEL_LIST_N_KINDS
} NczModelListKind;

/* The array a model of @kind of @owner reads (not a copy). */
typedef GPtrArray *(*NczModelListPeek) (GObject *owner, NczModelListKind kind);

G_GNUC_INTERNAL GListModel *ncz_model_list_get (GObject *owner, NczModelListKind kind,
                                                GType item_type, NczModelListPeek peek);
G_GNUC_INTERNAL void ncz_model_list_changed (GObject *owner, NczModelListKind kind,
                                             guint position, guint removed, guint added);

G_GNUC_INTERNAL GPtrArray *ncz_group_peek_list (GObject *group, NczModelListKind kind);
G_GNUC_INTERNAL GPtrArray *ncz_variable_peek_list (GObject *variable, NczModelListKind kind);

/* Property notifications the model objects send one another */
G_GNUC_INTERNAL void ncz_group_notify_dimension_grown (NczGroup *group, NczDimension *dimension);
G_GNUC_INTERNAL void ncz_variable_notify_shape (NczVariable *self);
/* @dimension grew: @self notifies its shape if it uses it and is watched */
G_GNUC_INTERNAL void ncz_variable_dimension_grown (NczVariable *self, NczDimension *dimension);
G_GNUC_INTERNAL void ncz_variable_notify_filters (NczVariable *self);
G_GNUC_INTERNAL void ncz_variable_notify_writable (NczVariable *self);
G_GNUC_INTERNAL void ncz_group_notify_closed (NczGroup *group);

/* Values as GVariants (ncz-attribute.c): the element type of @type
 * ("y" for byte, ubyte and char, "n", "q", "i", "u", "x", "t", "d" for
 * float and double, "s" for string), NULL for an invalid type. */
G_GNUC_INTERNAL const GVariantType *ncz_data_type_variant_element (NczDataType type);
/* @n_values packed native values of @type as an array GVariant, floating */
G_GNUC_INTERNAL GVariant *ncz_packed_values_to_variant (NczDataType type, gconstpointer data,
                                                       gsize n_values);
/* One packed native value of @type as a scalar GVariant, floating */
G_GNUC_INTERNAL GVariant *ncz_packed_value_to_variant (NczDataType type, gconstpointer data);

G_END_DECLS
