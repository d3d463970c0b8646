/* ncz-copy-chunks.c: the -c option of ncz-copy
 *
 * As nccopy: a per-variable specification (the first one given for a
 * variable counts) wins over the per-dimension ones, except the bare "/"
 * which makes every variable contiguous. Dimensions a -c names take that
 * chunk length ("dim/" or "dim/0": the whole dimension); the others keep
 * the input variable's chunk length. Without any -c for a variable its
 * chunking is copied.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ncz-copy-chunks.h"
#include "ncz-copy-filters.h"

typedef struct
{
  gboolean contiguous;
  GArray *sizes;        /* guint64 */
} VarRule;

struct _CopyChunkRules
{
  gboolean all_contiguous;   /* -c / */
  GHashTable *dims;          /* dimension name -> guint64 * (0: full length) */
  GHashTable *vars;          /* fully qualified name -> VarRule */
  GPtrArray *var_order;
};

static void
var_rule_free (VarRule *rule)
{
  if (rule == NULL)
    return;
  g_clear_pointer (&rule->sizes, g_array_unref);
  g_free (rule);
}

CopyChunkRules *
copy_chunk_rules_new (void)
{
  CopyChunkRules *rules = g_new0 (CopyChunkRules, 1);
  rules->dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  rules->vars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) var_rule_free);
  rules->var_order = g_ptr_array_new_with_free_func (g_free);
  return rules;
}

void
copy_chunk_rules_free (CopyChunkRules *rules)
{
  if (rules == NULL)
    return;
  g_hash_table_unref (rules->dims);
  g_hash_table_unref (rules->vars);
  g_ptr_array_unref (rules->var_order);
  g_free (rules);
}

static gboolean
parse_length (const char *text, guint64 *value)
{
  char *end = NULL;
  guint64 v;

  if (text[0] == '\0')
    {
      *value = 0;
      return TRUE;
    }
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || *end != '\0')
    return FALSE;
  *value = v;
  return TRUE;
}

/* The byte offset of the last unescaped @c in @text, or -1. */
static gssize
find_unescaped_last (const char *text, char c)
{
  gssize found = -1;
  for (const char *p = text; *p; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (*p == c)
        found = p - text;
    }
  return found;
}

static gboolean
add_var_rule (CopyChunkRules *rules, const char *argument, gssize colon, GError **error)
{
  g_autofree char *raw = g_strndup (argument, (gsize) colon);
  g_autoptr(GPtrArray) unescaped = copy_split_escaped (raw, "");
  const char *sizes = argument + colon + 1;
  g_autofree char *fqn = NULL;
  VarRule *rule;

  if (((char *) g_ptr_array_index (unescaped, 0))[0] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "-c %s: no variable name before ':'", argument);
      return FALSE;
    }
  fqn = copy_normalize_name (g_ptr_array_index (unescaped, 0));
  rule = g_new0 (VarRule, 1);
  if (sizes[0] == '\0' || g_ascii_strcasecmp (sizes, "contiguous") == 0 ||
      g_ascii_strcasecmp (sizes, "compact") == 0)
    rule->contiguous = TRUE;
  else
    {
      g_auto(GStrv) parts = g_strsplit (sizes, ",", -1);
      rule->sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
      for (guint i = 0; parts[i]; i++)
        {
          guint64 v;
          if (!parse_length (parts[i], &v) || v == 0)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "-c %s: '%s' is not a chunk length (a positive integer)",
                           argument, parts[i]);
              var_rule_free (rule);
              return FALSE;
            }
          g_array_append_val (rule->sizes, v);
        }
    }
  if (g_hash_table_contains (rules->vars, fqn))
    {
      /* as nccopy: later specifications of the same variable are ignored */
      var_rule_free (rule);
      return TRUE;
    }
  g_ptr_array_add (rules->var_order, g_strdup (fqn));
  g_hash_table_insert (rules->vars, g_steal_pointer (&fqn), rule);
  return TRUE;
}

gboolean
copy_chunk_rules_add (CopyChunkRules *rules, const char *argument, GError **error)
{
  g_autoptr(GPtrArray) items = NULL;
  gssize colon = find_unescaped_last (argument, ':');

  if (colon >= 0)
    return add_var_rule (rules, argument, colon, error);
  if (g_str_equal (argument, "/"))
    {
      rules->all_contiguous = TRUE;
      return TRUE;
    }
  items = copy_split_escaped (argument, ",");
  for (guint i = 0; i < items->len; i++)
    {
      /* split again, this time keeping escapes out of the way: the slash
       * is the last unescaped one of the raw item */
      const char *item = g_ptr_array_index (items, i);
      const char *slash = strrchr (item, '/');
      g_autofree char *dim = NULL;
      guint64 length;

      if (slash == NULL || slash == item)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-c %s: expected DIMENSION/LENGTH, VARIABLE:LENGTHS or /",
                       argument);
          return FALSE;
        }
      if (!parse_length (slash + 1, &length))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-c %s: '%s' is not a chunk length", argument, slash + 1);
          return FALSE;
        }
      dim = g_strndup (item, (gsize) (slash - item));
      g_hash_table_insert (rules->dims, g_steal_pointer (&dim), g_memdup2 (&length, sizeof length));
    }
  return TRUE;
}

static gboolean
group_has_dimension (NczGroup *group, const char *name)
{
  g_autoptr(GPtrArray) groups = NULL;

  if (ncz_group_get_dimension (group, name) != NULL)
    return TRUE;
  groups = ncz_group_get_groups (group);
  for (guint i = 0; i < groups->len; i++)
    if (group_has_dimension (g_ptr_array_index (groups, i), name))
      return TRUE;
  return FALSE;
}

gboolean
copy_chunk_rules_check (CopyChunkRules *rules, NczGroup *root, const char *url,
                        GError **error)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, rules->dims);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!group_has_dimension (root, key))
      {
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND,
                     "-c: no dimension '%s' in '%s'", (const char *) key, url);
        return FALSE;
      }
  for (guint i = 0; i < rules->var_order->len; i++)
    {
      const char *fqn = g_ptr_array_index (rules->var_order, i);
      NczVariable *v = ncz_group_lookup_variable (root, fqn);
      VarRule *rule = g_hash_table_lookup (rules->vars, fqn);

      if (v == NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND,
                       "-c: no variable '%s' in '%s'", fqn, url);
          return FALSE;
        }
      if (rule->sizes && rule->sizes->len != ncz_variable_get_n_dimensions (v))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-c: variable '%s' has %u dimensions but %u chunk lengths were given",
                       fqn, ncz_variable_get_n_dimensions (v), rule->sizes->len);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
copy_chunk_rules_apply (CopyChunkRules *rules, NczVariable *input, NczVariable *output,
                        GError **error)
{
  g_autofree char *fqn = ncz_variable_get_full_name (input);
  VarRule *rule = g_hash_table_lookup (rules->vars, fqn);
  guint rank = ncz_variable_get_n_dimensions (input);
  g_autofree guint64 *sizes = NULL;
  gboolean named = FALSE;
  const guint64 *in_chunks;
  guint n;

  if (rank == 0)
    return TRUE;
  if (rules->all_contiguous)
    return ncz_variable_set_contiguous (output, TRUE, error);
  if (rule != NULL)
    {
      if (rule->contiguous)
        return ncz_variable_set_contiguous (output, TRUE, error);
      return ncz_variable_set_chunk_sizes (output, (const guint64 *) rule->sizes->data,
                                           rule->sizes->len, error);
    }

  in_chunks = ncz_variable_get_chunk_sizes (input, &n);
  sizes = g_new0 (guint64, rank);
  for (guint i = 0; i < rank; i++)
    {
      NczDimension *d = ncz_variable_get_dimension (input, i);
      const guint64 *len = g_hash_table_lookup (rules->dims, ncz_dimension_get_name (d));
      guint64 full = MAX (1, ncz_dimension_get_length (d));

      if (len != NULL)
        {
          sizes[i] = *len ? *len : full;
          named = TRUE;
        }
      else if (in_chunks != NULL && n == rank && in_chunks[i] > 0)
        sizes[i] = in_chunks[i];
      else
        sizes[i] = full;
    }
  if (!named && ncz_variable_get_contiguous (input))
    return ncz_variable_set_contiguous (output, TRUE, error);
  return ncz_variable_set_chunk_sizes (output, sizes, rank, error);
}
