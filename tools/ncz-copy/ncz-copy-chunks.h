/* ncz-copy-chunks.h: the -c option of ncz-copy
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

typedef struct _CopyChunkRules CopyChunkRules;

CopyChunkRules *copy_chunk_rules_new (void);
void copy_chunk_rules_free (CopyChunkRules *rules);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CopyChunkRules, copy_chunk_rules_free)

/* Adds one -c argument: "dim/len,dim2/len2,...", "/", "var:n1,n2,...",
 * "var:", "var:contiguous" or "var:compact". */
gboolean copy_chunk_rules_add (CopyChunkRules *rules, const char *argument,
                               GError **error);

/* Checks that the variables and dimensions named exist under @root. */
gboolean copy_chunk_rules_check (CopyChunkRules *rules, NczGroup *root,
                                 const char *url, GError **error);

/* Defines the chunking of @output, the copy of @input. */
gboolean copy_chunk_rules_apply (CopyChunkRules *rules, NczVariable *input,
                                 NczVariable *output, GError **error);

G_END_DECLS
