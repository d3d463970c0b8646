/* ncz-format-private.h: the model's calls of the format definition
 * hooks, not installed
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-core-private.h"

G_BEGIN_DECLS

/* Tell the format of the dataset that @object was defined or changed.
 * Nothing happens while the dataset is being loaded or when it has no
 * format; otherwise the hook's result (and error) is returned. */
G_GNUC_INTERNAL gboolean ncz_format_notify_group (NczGroup *group, NczDefinitionChange change,
                                                  GError **error);
G_GNUC_INTERNAL gboolean ncz_format_notify_dimension (NczDimension *dimension,
                                                      NczDefinitionChange change,
                                                      GError **error);
G_GNUC_INTERNAL gboolean ncz_format_notify_variable (NczVariable *variable,
                                                     NczDefinitionChange change,
                                                     GError **error);
/* @owner: an NczGroup or NczVariable; @attribute NULL when removed */
G_GNUC_INTERNAL gboolean ncz_format_notify_attribute (gpointer owner, const char *name,
                                                      NczAttribute *attribute,
                                                      NczDefinitionChange change,
                                                      GError **error);

G_END_DECLS
