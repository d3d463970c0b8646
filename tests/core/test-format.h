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

/* Its batched reads: ncz_format_read_chunks() calls so far, and in
 * @n_chunks (optional) the chunks they asked for. */
guint filter_test_format_n_read_chunks_calls (guint *n_chunks);

/* What the definition hooks heard since the last call, as
 * "dimension x added; variable v added; attribute v:units added; ...".
 * The hook refuses a dimension named "refused". */
char *filter_test_format_take_events (void);

/* "ftest-plain": keeps chunks in the format object (NCZ_FORMAT_NO_STORE),
 * has read_chunk only, no hooks. */
void filter_test_plain_format_register (void);
guint filter_test_format_n_plain_reads (void);

/* The GType of "ftest" or of "ftest-plain" */
GType filter_test_format_get_type (gboolean plain);

G_END_DECLS
