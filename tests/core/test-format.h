/* test-format.h: a format backend for the core tests (model, chunk
 * engine, filters, quantize): chunks go through the variable's codec
 * chain into a memory store, with no metadata.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/* Registers the format as "ftest" in the default registry. */
void filter_test_format_register (void);

/* A new dataset in a memory store (returned in @store when not NULL). */
NczDataset *filter_test_dataset_new (NczMemoryStore **store);

/* Number of metadata syncs so far (all datasets). */
guint filter_test_format_n_syncs (void);

/* Number of chunks that went through the codec chain so far. */
guint filter_test_format_n_encoded (void);

G_END_DECLS
