/* ncz-dimension.h: a shared (named) dimension
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib-object.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

typedef struct _NczGroup NczGroup;

#define NCZ_TYPE_DIMENSION (ncz_dimension_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczDimension, ncz_dimension, NCZ, DIMENSION, GObject)

NCZ_AVAILABLE_IN_ALL
const char *ncz_dimension_get_name (NczDimension *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dimension_set_length (NczDimension *self, guint64 length, GError **error);
NCZ_AVAILABLE_IN_ALL
guint64 ncz_dimension_get_length (NczDimension *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_dimension_is_unlimited (NczDimension *self);
NCZ_AVAILABLE_IN_ALL
NczGroup *ncz_dimension_get_group (NczDimension *self);
NCZ_AVAILABLE_IN_ALL
char *ncz_dimension_get_full_name (NczDimension *self);

G_END_DECLS
