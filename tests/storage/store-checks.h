/* store-checks.h: behaviour every NczStore must show
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/* Each check takes an empty, writable store and leaves it empty. */
void store_check_basic (NczStore *store);
void store_check_range (NczStore *store);
void store_check_replace (NczStore *store);
void store_check_prefix_is_not_object (NczStore *store);
void store_check_list (NczStore *store);
void store_check_remove (NczStore *store);
void store_check_invalid_keys (NczStore *store);
void store_check_read_many (NczStore *store);
void store_check_read_async (NczStore *store);
void store_check_cancelled (NczStore *store);
void store_check_concurrent_reads (NczStore *store);
/* the same with fewer rounds (3072 requests), for stores over a network */
void store_check_concurrent_reads_remote (NczStore *store);
void store_check_read_ranges (NczStore *store);
void store_check_list_pages (NczStore *store);
void store_check_async_calls (NczStore *store);

/* Asserts that ncz_store_list (@prefix) gives exactly the names that follow. */
void store_assert_list (NczStore *store, const char *prefix, ...) G_GNUC_NULL_TERMINATED;

GBytes *store_bytes (const char *text);
void store_put (NczStore *store, const char *key, const char *text);
void store_assert_content (NczStore *store, const char *key, const char *text);

/* Drops the test's reference to *@store and waits until the store is
 * finalized: an async call's worker thread may hold the last reference a
 * moment after its callback ran, and a store finalized there (a zip
 * store removing its staging directory) would race the caller's clean-up. */
void store_release (NczStore **store);

/* File system helpers: remove a tree (asserting), a directory's entries
 * sorted, and joined with "|". */
void rm_rf (const char *path);
GPtrArray *sorted_entries (const char *path);
char *dir_entries (const char *path);

G_END_DECLS
