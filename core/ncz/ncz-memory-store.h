/* ncz-memory-store.h: a store held in memory
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <ncz/ncz-store.h>

G_BEGIN_DECLS

#define NCZ_TYPE_MEMORY_STORE (ncz_memory_store_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczMemoryStore, ncz_memory_store, NCZ, MEMORY_STORE, GObject)

NCZ_AVAILABLE_IN_ALL
NczMemoryStore *ncz_memory_store_new (void);
NCZ_AVAILABLE_IN_ALL
guint ncz_memory_store_get_n_objects (NczMemoryStore *self);

G_END_DECLS
