/* fault-store.h: a store that forwards to another and fails one chosen
 * operation (test-only, not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/**
 * NczFaultKind:
 * @NCZ_FAULT_NONE: no fault: only count the operations
 * @NCZ_FAULT_ENOSPC: the operation fails as a full disk would
 *   (%NCZ_STORAGE_ERROR_IO)
 * @NCZ_FAULT_EIO: the operation fails with an I/O error
 *   (%NCZ_STORAGE_ERROR_IO)
 * @NCZ_FAULT_EACCES: the operation fails as denied
 *   (%NCZ_STORAGE_ERROR_PERMISSION)
 * @NCZ_FAULT_SHORT_READ: a read succeeds but gives fewer bytes than the
 *   object holds (the first half of them); counts reads only
 * @NCZ_FAULT_ZERO_WRITE: a write reports success but stores an empty
 *   object; counts writes only
 *
 * How the armed operation fails.
 */
typedef enum {
  NCZ_FAULT_NONE,
  NCZ_FAULT_ENOSPC,
  NCZ_FAULT_EIO,
  NCZ_FAULT_EACCES,
  NCZ_FAULT_SHORT_READ,
  NCZ_FAULT_ZERO_WRITE,
} NczFaultKind;

#define NCZ_TYPE_FAULT_STORE (ncz_fault_store_get_type ())
G_DECLARE_FINAL_TYPE (NczFaultStore, ncz_fault_store, NCZ, FAULT_STORE, GObject)

NczFaultStore *ncz_fault_store_new (NczStore *inner);
NczStore *ncz_fault_store_get_inner (NczFaultStore *self);
void ncz_fault_store_arm (NczFaultStore *self, NczFaultKind kind, guint n);
guint ncz_fault_store_get_n_ops (NczFaultStore *self);
guint ncz_fault_store_get_n_reads (NczFaultStore *self);
guint ncz_fault_store_get_n_writes (NczFaultStore *self);
gboolean ncz_fault_store_has_fired (NczFaultStore *self);
char *ncz_fault_store_dup_fired_op (NczFaultStore *self);

const char *ncz_fault_kind_to_string (NczFaultKind kind);

G_END_DECLS
