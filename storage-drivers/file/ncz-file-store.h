/* ncz-file-store.h: directory-tree storage driver (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_FILE_STORE (ncz_file_store_get_type ())
G_DECLARE_FINAL_TYPE (NczFileStore, ncz_file_store, NCZ, FILE_STORE, GObject)

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_file_describe (void);

/* tests only (the driver's sources compiled into the test) */
void ncz_file_store_set_use_openat2 (gboolean use);

G_END_DECLS
