/* ncz-zip-store.h: zip-archive storage driver (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_ZIP_STORE (ncz_zip_store_get_type ())
G_DECLARE_FINAL_TYPE (NczZipStore, ncz_zip_store, NCZ, ZIP_STORE, GObject)

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_zip_describe (void);

/* tests only (the driver's sources compiled into the test) */
const char *ncz_zip_store_get_entry_prefix (NczZipStore *self);
gboolean ncz_zip_store_is_stored_entry (NczZipStore *self, const char *key,
                                        guint64 *data_offset);

G_END_DECLS
