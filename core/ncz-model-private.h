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
G_GNUC_INTERNAL gboolean ncz_dataset_check_definable (NczDataset *self, GError **error);
G_GNUC_INTERNAL gboolean ncz_dataset_is_closed (NczDataset *self);

G_END_DECLS
