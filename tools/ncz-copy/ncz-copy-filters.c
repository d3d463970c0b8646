/* ncz-copy-filters.c: the -F, -d and -s options of ncz-copy
 *
 * Each -F names variables ('*' for all) and either "none" or a filter
 * chain. What a variable's copy gets (spec/filters.md "Using nccopy"):
 * the chain of a -F naming it, else the chain of a -F '*', else, unless
 * "-F none" was given, the input variable's own filters. A variable named
 * by several -F options gets their chains one after the other; "none"
 * clears what came before it. -d and -s then adjust deflate and shuffle.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include <string.h>

#include <ncz/ncz-module.h>

#include "ncz-copy-filters.h"

typedef struct
{
  gboolean none;       /* the filters were switched off */
  GPtrArray *chain;    /* CopyFilter, after the last "none" */
} Rule;

struct _CopyFilterRules
{
  Rule *all;                /* -F '*',...  and -F none */
  GHashTable *named;        /* fully qualified name -> Rule */
  GPtrArray *order;         /* the names, as given */
  int deflate_level;        /* -d; negative if not given */
  gboolean shuffle;         /* -s */
};

void
copy_filter_free (CopyFilter *filter)
{
  if (filter == NULL)
    return;
  g_clear_pointer (&filter->params, g_array_unref);
  g_free (filter->json);
  g_free (filter);
}

static CopyFilter *
copy_filter_new (guint id, const guint *params, gsize n_params)
{
  CopyFilter *f = g_new0 (CopyFilter, 1);
  f->id = id;
  f->params = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n_params);
  if (n_params)
    g_array_append_vals (f->params, params, (guint) n_params);
  return f;
}

static CopyFilter *
copy_filter_dup (const CopyFilter *src)
{
  CopyFilter *f = copy_filter_new (src->id, (const guint *) src->params->data, src->params->len);
  f->json = g_strdup (src->json);
  return f;
}

static GPtrArray *
chain_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) copy_filter_free);
}

static void
rule_free (Rule *rule)
{
  if (rule == NULL)
    return;
  g_clear_pointer (&rule->chain, g_ptr_array_unref);
  g_free (rule);
}

/* "none" clears the rule; a chain is appended to it. */
static void
rule_update (Rule *rule, gboolean none, GPtrArray *chain)
{
  if (none)
    {
      rule->none = TRUE;
      g_ptr_array_set_size (rule->chain, 0);
      return;
    }
  rule->none = FALSE;
  for (guint i = 0; i < chain->len; i++)
    g_ptr_array_add (rule->chain, copy_filter_dup (g_ptr_array_index (chain, i)));
}

static Rule *
rule_new (void)
{
  Rule *rule = g_new0 (Rule, 1);
  rule->chain = chain_new ();
  return rule;
}

CopyFilterRules *
copy_filter_rules_new (void)
{
  CopyFilterRules *rules = g_new0 (CopyFilterRules, 1);
  rules->named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) rule_free);
  rules->order = g_ptr_array_new_with_free_func (g_free);
  rules->deflate_level = -1;
  return rules;
}

void
copy_filter_rules_free (CopyFilterRules *rules)
{
  if (rules == NULL)
    return;
  rule_free (rules->all);
  g_hash_table_unref (rules->named);
  g_ptr_array_unref (rules->order);
  g_free (rules);
}

GPtrArray *
copy_split_escaped (const char *text, const char *separators)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  GString *cur = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        g_string_append_c (cur, *++p);
      else if (strchr (separators, *p) != NULL)
        {
          g_ptr_array_add (parts, g_string_free (cur, FALSE));
          cur = g_string_new (NULL);
        }
      else
        g_string_append_c (cur, *p);
    }
  g_ptr_array_add (parts, g_string_free (cur, FALSE));
  return parts;
}

char *
copy_normalize_name (const char *name)
{
  if (name[0] == '/')
    return g_strdup (name);
  return g_strconcat ("/", name, NULL);
}

/* The byte offset of the first comma not escaped by a backslash, or -1. */
static gssize
find_unescaped_comma (const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (*p == ',')
        return p - text;
    }
  return -1;
}

gboolean
copy_filter_rules_add (CopyFilterRules *rules, const char *argument, GError **error)
{
  g_autofree char *vars = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) chain = chain_new ();
  const char *spec;
  gboolean none = FALSE;
  gssize comma;

  if (g_ascii_strcasecmp (argument, "none") == 0)
    {
      if (rules->all == NULL)
        rules->all = rule_new ();
      rule_update (rules->all, TRUE, NULL);
      return TRUE;
    }
  comma = find_unescaped_comma (argument);
  if (comma <= 0 || argument[comma + 1] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "-F %s: expected VARIABLES,FILTER-ID[,PARAMETER...] or VARIABLES,none",
                   argument);
      return FALSE;
    }
  vars = g_strndup (argument, (gsize) comma);
  spec = argument + comma + 1;

  if (g_ascii_strcasecmp (spec, "none") == 0)
    none = TRUE;
  else
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(GPtrArray) specs = ncz_filter_spec_parse_list (spec, &local);
      if (specs == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-F %s: bad filter specification: %s", argument, local->message);
          return FALSE;
        }
      for (guint i = 0; i < specs->len; i++)
        {
          NczFilterSpec *s = g_ptr_array_index (specs, i);
          g_ptr_array_add (chain, copy_filter_new (s->filter_id, (const guint *) s->visible->data,
                                                   s->visible->len));
        }
    }

  names = copy_split_escaped (vars, "&|");
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      Rule *rule;

      if (name[0] == '\0')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "-F %s: empty variable name", argument);
          return FALSE;
        }
      if (g_str_equal (name, "*"))
        {
          if (rules->all == NULL)
            rules->all = rule_new ();
          rule = rules->all;
        }
      else
        {
          g_autofree char *fqn = copy_normalize_name (name);
          rule = g_hash_table_lookup (rules->named, fqn);
          if (rule == NULL)
            {
              rule = rule_new ();
              g_ptr_array_add (rules->order, g_strdup (fqn));
              g_hash_table_insert (rules->named, g_steal_pointer (&fqn), rule);
            }
        }
      rule_update (rule, none, chain);
    }
  return TRUE;
}

void
copy_filter_rules_set_deflate (CopyFilterRules *rules, int level, gboolean shuffle)
{
  rules->deflate_level = level;
  rules->shuffle = shuffle;
}

gboolean
copy_filter_rules_check (CopyFilterRules *rules, NczGroup *root, const char *url,
                         GError **error)
{
  for (guint i = 0; i < rules->order->len; i++)
    {
      const char *fqn = g_ptr_array_index (rules->order, i);
      if (ncz_group_lookup_variable (root, fqn) == NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND,
                       "-F: no variable '%s' in '%s'", fqn, url);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
can_filter (NczVariable *v)
{
  return ncz_variable_get_n_dimensions (v) > 0 &&
         ncz_variable_get_value_type (v) != NCZ_DATA_TYPE_STRING;
}

/* The input variable's chain: HDF5 ids and parameters, or codec JSON
 * when some codec has no HDF5 id. */
static GPtrArray *
input_chain (NczVariable *input, GError **error)
{
  g_autoptr(GPtrArray) chain = chain_new ();
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (input);
  guint n_codecs = ncz_variable_get_n_codecs (input);

  if (ids != NULL && ids->len == n_codecs)
    {
      for (guint i = 0; i < ids->len; i++)
        {
          guint id = g_array_index (ids, guint, i);
          g_autoptr(GArray) params = ncz_variable_get_filter_params (input, id, error);
          if (params == NULL)
            return NULL;
          g_ptr_array_add (chain, copy_filter_new (id, (const guint *) params->data, params->len));
        }
    }
  else if (n_codecs > 0)
    {
      g_autofree char *text = ncz_variable_get_codecs_json (input);
      g_autoptr(NczJson) root = text ? ncz_json_parse (text, -1, error) : NULL;
      if (root == NULL || ncz_json_get_kind (root) != NCZ_JSON_ARRAY)
        {
          g_autofree char *name = ncz_variable_get_full_name (input);
          g_clear_error (error);
          g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                       "variable '%s': cannot read its codecs", name);
          return NULL;
        }
      for (gsize i = 0; i < ncz_json_array_get_length (root); i++)
        {
          CopyFilter *f = copy_filter_new (0, NULL, 0);
          f->json = ncz_json_to_string (ncz_json_array_get (root, i), FALSE);
          g_ptr_array_add (chain, f);
        }
    }
  return g_steal_pointer (&chain);
}

static void
chain_remove_id (GPtrArray *chain, guint id)
{
  for (guint i = chain->len; i-- > 0;)
    if (((CopyFilter *) g_ptr_array_index (chain, i))->id == id)
      g_ptr_array_remove_index (chain, i);
}

/* The -F rule for @input, or NULL when it keeps its own filters. */
static Rule *
rule_for (CopyFilterRules *rules, NczVariable *input)
{
  g_autofree char *fqn = ncz_variable_get_full_name (input);
  Rule *rule = g_hash_table_lookup (rules->named, fqn);

  if (rule == NULL && rules->all != NULL && (can_filter (input) || rules->all->none))
    rule = rules->all;
  return rule;
}

gboolean
copy_filter_rules_has_rule (CopyFilterRules *rules, NczVariable *input)
{
  return rule_for (rules, input) != NULL;
}

GPtrArray *
copy_filter_rules_resolve (CopyFilterRules *rules, NczVariable *input, GError **error)
{
  Rule *rule = rule_for (rules, input);
  g_autoptr(GPtrArray) chain = NULL;

  if (rule != NULL)
    {
      chain = chain_new ();
      for (guint i = 0; i < rule->chain->len; i++)
        g_ptr_array_add (chain, copy_filter_dup (g_ptr_array_index (rule->chain, i)));
    }
  else
    {
      chain = input_chain (input, error);
      if (chain == NULL)
        return NULL;
    }

  if (rules->deflate_level >= 0 && can_filter (input))
    {
      if (rules->deflate_level == 0)
        {
          /* -d 0 switches deflate off, and the shuffle that goes with it */
          chain_remove_id (chain, NCZ_FILTER_DEFLATE);
          chain_remove_id (chain, NCZ_FILTER_SHUFFLE);
        }
      else
        {
          guint level = (guint) rules->deflate_level;
          gboolean replaced = FALSE;
          for (guint i = 0; i < chain->len; i++)
            {
              CopyFilter *f = g_ptr_array_index (chain, i);
              if (f->id == NCZ_FILTER_DEFLATE)
                {
                  g_array_set_size (f->params, 0);
                  g_array_append_val (f->params, level);
                  replaced = TRUE;
                }
            }
          if (rules->shuffle)
            {
              chain_remove_id (chain, NCZ_FILTER_SHUFFLE);
              g_ptr_array_add (chain, copy_filter_new (NCZ_FILTER_SHUFFLE, NULL, 0));
            }
          if (!replaced)
            g_ptr_array_add (chain, copy_filter_new (NCZ_FILTER_DEFLATE, &level, 1));
        }
    }
  return g_steal_pointer (&chain);
}

gboolean
copy_filters_apply (GPtrArray *chain, NczVariable *output, GError **error)
{
  for (guint i = 0; i < chain->len; i++)
    {
      CopyFilter *f = g_ptr_array_index (chain, i);
      g_autoptr(GError) local = NULL;
      gboolean ok;

      if (f->json != NULL)
        ok = ncz_variable_add_filter_json (output, f->json, &local);
      else
        ok = ncz_variable_add_filter (output, f->id, (const guint *) f->params->data,
                                      f->params->len, &local);
      if (!ok)
        {
          g_autofree char *name = ncz_variable_get_full_name (output);
          g_autofree char *what = f->json ? g_strdup (f->json)
            : ncz_filter_spec_to_text (f->id, (const guint *) f->params->data, f->params->len);
          g_set_error (error, local->domain, local->code,
                       "variable '%s': cannot apply filter %s: %s", name, what, local->message);
          return FALSE;
        }
    }
  return TRUE;
}
