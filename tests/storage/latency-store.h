/* latency-store.h: a store that forwards to another after a fixed delay
 * per request and counts the requests in flight (test-only, not
 * installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_LATENCY_STORE (ncz_latency_store_get_type ())
G_DECLARE_FINAL_TYPE (NczLatencyStore, ncz_latency_store, NCZ, LATENCY_STORE, GObject)

/* Every request (a read, each key of a read_many, a write, a remove, a
 * get_length, a list) waits @latency_ms before it goes to @inner, as a
 * request to a remote server would; a cancelled request stops waiting.
 * The store says it is remote (ncz_store_is_remote()). */
NczLatencyStore *ncz_latency_store_new (NczStore *inner, guint latency_ms);
/* The most requests that were waiting at one time since the last reset */
guint ncz_latency_store_get_max_in_flight (NczLatencyStore *self);
/* Requests and reads (whole or ranged objects) since the last reset */
guint ncz_latency_store_get_n_requests (NczLatencyStore *self);
guint ncz_latency_store_get_n_reads (NczLatencyStore *self);
guint ncz_latency_store_get_n_lists (NczLatencyStore *self);
/* Holds the requests until @n are in flight at once (then lets every
 * request through from then on), each at most @max_wait_ms: how many
 * requests a caller keeps in flight is then seen whatever the machine's
 * load, never by luck of timing. */
void ncz_latency_store_set_gate (NczLatencyStore *self, guint n, guint max_wait_ms);
void ncz_latency_store_reset (NczLatencyStore *self);

G_END_DECLS
