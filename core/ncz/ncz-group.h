/* ncz-group.h: a group of dimensions, variables, attributes and subgroups
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-attribute.h>
#include <ncz/ncz-dimension.h>
#include <ncz/ncz-variable.h>

G_BEGIN_DECLS

typedef struct _NczDataset NczDataset;

#define NCZ_TYPE_GROUP (ncz_group_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczGroup, ncz_group, NCZ, GROUP, GObject)

NCZ_AVAILABLE_IN_ALL
const char *ncz_group_get_name (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
char *ncz_group_get_full_name (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_group_get_parent (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
NczDataset *ncz_group_get_dataset (NczGroup *self);

NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_group_get_dimensions (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_group_get_variables (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_group_get_groups (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
NczDimension *ncz_group_get_dimension (NczGroup *self, const char *name);
NCZ_AVAILABLE_IN_ALL
NczDimension *ncz_group_lookup_dimension (NczGroup *self, const char *name);
NCZ_AVAILABLE_IN_ALL
NczVariable *ncz_group_get_variable (NczGroup *self, const char *name);
NCZ_AVAILABLE_IN_ALL
NczVariable *ncz_group_lookup_variable (NczGroup *self, const char *name);
NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_group_get_group (NczGroup *self, const char *name);

NCZ_AVAILABLE_IN_ALL
NczDimension *ncz_group_add_dimension (NczGroup *self, const char *name,
                                       guint64 length, gboolean unlimited,
                                       GError **error);
NCZ_AVAILABLE_IN_ALL
NczVariable *ncz_group_add_variable (NczGroup *self, const char *name,
                                     NczDataType type, guint n_dims,
                                     NczDimension **dimensions,
                                     GError **error);
NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_group_add_group (NczGroup *self, const char *name,
                               GError **error);

NCZ_AVAILABLE_IN_ALL
GListModel *ncz_group_get_dimension_list (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_group_get_variable_list (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_group_get_group_list (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
GListModel *ncz_group_get_attribute_list (NczGroup *self);

NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_group_get_attributes (NczGroup *self);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_group_get_attribute (NczGroup *self, const char *name);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_group_set_attribute (NczGroup *self, NczAttribute *attribute,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_group_remove_attribute (NczGroup *self, const char *name,
                                     GError **error);

G_END_DECLS
