/* ncz-copy-filters.h: the -F, -d and -s options of ncz-copy
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

typedef struct _CopyFilterRules CopyFilterRules;

/* One filter of an output variable's chain: an HDF5 filter id with its
 * visible parameters, or (id 0) a codec given as Zarr codec JSON. */
typedef struct
{
  guint id;
  GArray *params;   /* guint */
  char *json;       /* codec JSON when id is 0 */
} CopyFilter;

void copy_filter_free (CopyFilter *filter);

CopyFilterRules *copy_filter_rules_new (void);
void copy_filter_rules_free (CopyFilterRules *rules);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CopyFilterRules, copy_filter_rules_free)

/* Adds one -F argument: "none", "VARS,none" or "VARS,SPEC[|SPEC...]"
 * where VARS is "*" or variable names separated by '&' (or '|'). */
gboolean copy_filter_rules_add (CopyFilterRules *rules, const char *argument,
                                GError **error);

/* -d LEVEL (negative: not given) and -s. */
void copy_filter_rules_set_deflate (CopyFilterRules *rules, int level, gboolean shuffle);

/* Checks that every variable named by a -F option exists under @root. */
gboolean copy_filter_rules_check (CopyFilterRules *rules, NczGroup *root,
                                  const char *url, GError **error);

/* The filter chain of the copy of @input (element-type CopyFilter). */
/* Whether a -F rule (rather than the input's own filters) decides. */
gboolean copy_filter_rules_has_rule (CopyFilterRules *rules, NczVariable *input);
GPtrArray *copy_filter_rules_resolve (CopyFilterRules *rules, NczVariable *input,
                                      GError **error);

/* Defines @chain on @output; errors name the variable and the filter. */
gboolean copy_filters_apply (GPtrArray *chain, NczVariable *output, GError **error);

/* The fully qualified form of a variable name given on the command line:
 * a name without a leading '/' is one of the root group. */
char *copy_normalize_name (const char *name);

/* Splits @text at unescaped @separators, removing backslash escapes. */
GPtrArray *copy_split_escaped (const char *text, const char *separators);

G_END_DECLS
