/* ncz-s3-store.h: S3 storage driver (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_S3_STORE (ncz_s3_store_get_type ())
G_DECLARE_FINAL_TYPE (NczS3Store, ncz_s3_store, NCZ, S3_STORE, GObject)

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_s3_describe (void);

G_END_DECLS
