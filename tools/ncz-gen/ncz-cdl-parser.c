/* ncz-cdl-parser.c: CDL declarations to the Ncz model
 *
 * One pass over the tokens defines groups, dimensions, variables and
 * attributes as they come (so attribute order is kept, and errors of the
 * model are reported at the line that caused them); data sections are
 * collected in c->data, to be written once the whole text has been read
 * (ncz-cdl-data.c), because an unlimited dimension may be used by
 * variables of several groups.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl-private.h"

#include <math.h>
#include <string.h>

#include <ncz/ncz-module.h>

#include "cdl-syntax.h"

/* ---- types and values ---- */

static NczDataType
type_keyword (Cdl *c)
{
  if (c->tok.kind != TOK_IDENT || c->tok.escaped || c->tok.is_path)
    return NCZ_DATA_TYPE_NONE;
  return cdl_type_from_keyword (c->tok.text->str);
}

static gboolean
is_user_type_keyword (Cdl *c)
{
  return cdl_lex_is_word (c, "compound") || cdl_lex_is_word (c, "enum") || cdl_lex_is_word (c, "opaque");
}

static int
type_rank (NczDataType t)
{
  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE: case NCZ_DATA_TYPE_UBYTE: return 1;
    case NCZ_DATA_TYPE_SHORT: case NCZ_DATA_TYPE_USHORT: return 2;
    case NCZ_DATA_TYPE_INT: case NCZ_DATA_TYPE_UINT: return 3;
    case NCZ_DATA_TYPE_INT64: case NCZ_DATA_TYPE_UINT64: return 4;
    case NCZ_DATA_TYPE_FLOAT: return 5;
    case NCZ_DATA_TYPE_DOUBLE: return 6;
    default: return 0;
    }
}

/* Parses one constant of an attribute or data list into @out. */
static gboolean
parse_value (Cdl *c, GArray *out, gboolean in_data)
{
  Value v = { 0 };
  Token *t = &c->tok;

  v.line = t->line;
  v.col = t->col;
  switch (t->kind)
    {
    case TOK_NUMBER:
    case TOK_CHAR:
      {
        guint line = v.line, col = v.col;
        v = t->num;
        v.line = line;
        v.col = col;
        v.str = NULL;
        break;
      }
    case TOK_STRING:
      v.kind = VAL_STRING;
      v.str_len = t->text->len;
      v.str = g_memdup2 (t->text->str, t->text->len + 1);
      break;
    case TOK_FILL:
      if (!in_data)
        return cdl_fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "the fill value '_' is only allowed in data");
      v.kind = VAL_FILL;
      break;
    case TOK_NIL:
      v.kind = VAL_NIL;
      break;
    case TOK_PUNCT:
      if (t->punct == '{')
        return cdl_fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "'{' groups values of user-defined types, which Ncz does not support");
      return cdl_fail_expected (c, "a value", in_data ? "in data" : "in attribute");
    default:
      return cdl_fail_expected (c, "a value", in_data ? "in data" : "in attribute");
    }
  g_array_append_val (out, v);
  return cdl_lex_next (c);
}

/* value (',' value)* ';' */
static gboolean
parse_value_list (Cdl *c, GArray *out, gboolean in_data, const char *what)
{
  for (;;)
    {
      if (!parse_value (c, out, in_data))
        return FALSE;
      if (cdl_lex_is_punct (c, ','))
        {
          if (!cdl_lex_next (c))
            return FALSE;
          continue;
        }
      if (cdl_lex_is_punct (c, ';'))
        return cdl_lex_next (c);
      if (in_data && cdl_lex_is_punct (c, '}'))
        return TRUE;   /* a group's closing brace may end its last data list */
      {
        g_autofree char *context = g_strdup_printf ("after a value of %s", what);
        return cdl_fail_expected (c, "',' or ';'", context);
      }
    }
}

/* ---- attributes ---- */

/* The text of a special attribute that takes one string. */
static gboolean
special_text (Cdl *c, const char *name, GArray *values, GString *out)
{
  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      if (v->kind != VAL_STRING)
        return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                        "%s takes a string value", name);
      g_string_append_len (out, v->str, (gssize) v->str_len);
    }
  return TRUE;
}

static gboolean
special_bool (Cdl *c, const char *name, GArray *values, gboolean *out)
{
  g_autoptr(GString) s = g_string_new (NULL);
  Value *v0 = &g_array_index (values, Value, 0);

  if (values->len == 1 && v0->kind == VAL_NUMBER && !v0->is_real)
    {
      *out = v0->mag != 0;
      return TRUE;
    }
  if (!special_text (c, name, values, s))
    return FALSE;
  if (g_ascii_strcasecmp (s->str, "true") == 0 || strcmp (s->str, "1") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (s->str, "false") == 0 || strcmp (s->str, "0") == 0)
    *out = FALSE;
  else
    return cdl_fail_at (c, v0->line, v0->col, NCZ_CDL_ERROR_INVALID,
                    "%s must be \"true\" or \"false\"", name);
  return TRUE;
}

/* Non-negative integers of a special attribute. */
static gboolean
special_integers (Cdl *c, const char *name, GArray *values, GArray *out)
{
  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      guint64 x;
      if (v->kind != VAL_NUMBER || (v->is_real && (v->real != floor (v->real) || v->real < 0)) ||
          (!v->is_real && v->neg))
        return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                        "%s takes non-negative integers", name);
      x = cdl_value_bits (v);
      g_array_append_val (out, x);
    }
  return TRUE;
}

/* Builds an attribute of @type (NCZ_DATA_TYPE_NONE: inferred as ncgen does)
 * from @values. */
static NczAttribute *
make_attribute (Cdl *c, const char *name, NczDataType type, GArray *values)
{
  Value *v0 = &g_array_index (values, Value, 0);
  GError *err = NULL;
  NczAttribute *attr;

  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      if (v->kind == VAL_NIL && type != NCZ_DATA_TYPE_STRING)
        {
          cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID, "NIL is only a string value");
          return NULL;
        }
    }

  if (type == NCZ_DATA_TYPE_NONE)
    {
      gboolean any_string = FALSE, all_string = TRUE;
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          gboolean is_str = v->kind == VAL_STRING;
          any_string |= is_str;
          all_string &= is_str;
        }
      if (any_string && !all_string)
        {
          cdl_fail_at (c, v0->line, v0->col, NCZ_CDL_ERROR_INVALID,
                   "attribute '%s' mixes strings and numbers; give its type", name);
          return NULL;
        }
      if (all_string)
        type = NCZ_DATA_TYPE_CHAR;
      else
        {
          type = NCZ_DATA_TYPE_BYTE;
          for (guint i = 0; i < values->len; i++)
            {
              Value *v = &g_array_index (values, Value, i);
              NczDataType vt = v->kind == VAL_CHAR ? NCZ_DATA_TYPE_BYTE : v->type;
              if (type_rank (vt) >= type_rank (type))
                type = vt;
            }
        }
    }

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      g_autoptr(GString) s = g_string_new (NULL);
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          if (v->kind == VAL_STRING)
            g_string_append_len (s, v->str, (gssize) v->str_len);
          else
            g_string_append_c (s, (char) (guint8) cdl_value_bits (v));
        }
      return ncz_attribute_new_text (name, s->str, (gssize) s->len);
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      g_autoptr(GPtrArray) strs = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          if (v->kind == VAL_STRING)
            g_ptr_array_add (strs, g_strdup (v->str));
          else if (v->kind == VAL_CHAR)
            g_ptr_array_add (strs, g_strndup ((const char *) &v->ch, 1));
          else if (v->kind == VAL_NIL)
            g_ptr_array_add (strs, g_strdup (""));
          else
            {
              cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                       "a number in string attribute '%s'", name);
              return NULL;
            }
        }
      g_ptr_array_add (strs, NULL);
      return ncz_attribute_new_strings (name, (const char * const *) strs->pdata,
                                        (gssize) values->len);
    }

  {
    gsize size = ncz_data_type_get_size (type);
    g_autofree guint8 *buf = g_malloc0 (size * values->len);
    for (guint i = 0; i < values->len; i++)
      {
        Value *v = &g_array_index (values, Value, i);
        if (v->kind == VAL_STRING)
          {
            cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                     "a string in %s attribute '%s'", ncz_data_type_get_name (type), name);
            return NULL;
          }
        cdl_value_store (v, type, buf + i * size);
      }
    attr = ncz_attribute_new_values (name, type, buf, values->len, &err);
    if (attr == NULL)
      cdl_fail_model (c, v0->line, v0->col, err);
    return attr;
  }
}

static gboolean
apply_filter_text (Cdl *c, NczVariable *var, const char *text, guint line, guint col)
{
  GError *err = NULL;
  g_autoptr(GPtrArray) specs = ncz_filter_spec_parse_list (text, &err);

  if (specs == NULL)
    return cdl_fail_model (c, line, col, err);
  for (guint i = 0; i < specs->len; i++)
    {
      NczFilterSpec *spec = g_ptr_array_index (specs, i);
      if (!ncz_variable_add_filter (var, spec->filter_id, (const guint *) spec->visible->data,
                                    spec->visible->len, &err))
        return cdl_fail_model (c, line, col, err);
    }
  return TRUE;
}

/* A special attribute of a variable; FALSE with *handled FALSE means an
 * ordinary attribute. */
static gboolean
variable_special (Cdl *c, NczVariable *var, const char *name, GArray *values,
                  gboolean *handled)
{
  Value *v0 = &g_array_index (values, Value, 0);
  guint line = v0->line, col = v0->col;
  GError *err = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  *handled = TRUE;
  if (strcmp (name, "_Storage") == 0)
    {
      if (!special_text (c, name, values, s))
        return FALSE;
      if (strcmp (s->str, "contiguous") == 0 || strcmp (s->str, "compact") == 0)
        {
          if (!ncz_variable_set_contiguous (var, TRUE, &err))
            return cdl_fail_model (c, line, col, err);
        }
      else if (strcmp (s->str, "chunked") == 0)
        {
          if (!ncz_variable_set_contiguous (var, FALSE, &err))
            return cdl_fail_model (c, line, col, err);
        }
      else
        return cdl_fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_Storage must be \"contiguous\", \"compact\" or \"chunked\"");
      return TRUE;
    }
  if (strcmp (name, "_ChunkSizes") == 0)
    {
      g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
      if (!special_integers (c, name, values, sizes))
        return FALSE;
      if (sizes->len != ncz_variable_get_n_dimensions (var))
        return cdl_fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_ChunkSizes of variable '%s' has %u values for %u dimensions",
                        ncz_variable_get_name (var), sizes->len,
                        ncz_variable_get_n_dimensions (var));
      if (sizes->len > 0 &&
          !ncz_variable_set_chunk_sizes (var, (const guint64 *) sizes->data, sizes->len, &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Endianness") == 0)
    {
      NczEndianness e;
      if (!special_text (c, name, values, s))
        return FALSE;
      if (strcmp (s->str, "little") == 0)
        e = NCZ_ENDIANNESS_LITTLE;
      else if (strcmp (s->str, "big") == 0)
        e = NCZ_ENDIANNESS_BIG;
      else if (strcmp (s->str, "native") == 0)
        e = NCZ_ENDIANNESS_NATIVE;
      else
        return cdl_fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_Endianness must be \"little\", \"big\" or \"native\"");
      if (!ncz_variable_set_endianness (var, e, &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_NoFill") == 0)
    {
      gboolean b;
      if (!special_bool (c, name, values, &b))
        return FALSE;
      if (!ncz_variable_set_no_fill (var, b, &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Shuffle") == 0 || strcmp (name, "_Fletcher32") == 0)
    {
      gboolean b;
      if (!special_bool (c, name, values, &b))
        return FALSE;
      if (b && name[1] == 'S' && !ncz_variable_set_shuffle (var, &err))
        return cdl_fail_model (c, line, col, err);
      if (b && name[1] == 'F' && !ncz_variable_set_fletcher32 (var, &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_DeflateLevel") == 0)
    {
      g_autoptr(GArray) level = g_array_new (FALSE, FALSE, sizeof (guint64));
      if (!special_integers (c, name, values, level))
        return FALSE;
      if (level->len != 1 || g_array_index (level, guint64, 0) > 9)
        return cdl_fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_DeflateLevel takes one level from 0 to 9");
      if (!ncz_variable_set_deflate (var, FALSE, TRUE, (guint) g_array_index (level, guint64, 0), &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Filter") == 0)
    {
      if (!special_text (c, name, values, s))
        return FALSE;
      return apply_filter_text (c, var, s->str, line, col);
    }
  if (strcmp (name, "_Codecs") == 0)
    return TRUE;   /* read-only: the codecs follow from _Filter */
  *handled = FALSE;
  return TRUE;
}

static gboolean
global_special (const char *name)
{
  return strcmp (name, "_Format") == 0 || strcmp (name, "_IsNetcdf4") == 0 ||
         strcmp (name, "_SuperblockVersion") == 0 || strcmp (name, "_NCProperties") == 0;
}

/* After "[type] [var]:": name '=' values ';'. @var NULL for a group
 * attribute. */
static gboolean
parse_attribute_rest (Cdl *c, NczGroup *group, NczVariable *var, NczDataType type)
{
  g_autofree char *name = NULL;
  g_autoptr(GArray) values = cdl_value_list_new ();
  g_autoptr(NczAttribute) attr = NULL;
  guint line, col;
  GError *err = NULL;

  if (c->tok.kind != TOK_IDENT || c->tok.is_path)
    return cdl_fail_expected (c, "an attribute name", "after ':'");
  name = g_strdup (c->tok.text->str);
  line = c->tok.line;
  col = c->tok.col;
  if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, '=', "after the attribute name"))
    return FALSE;
  if (!parse_value_list (c, values, FALSE, "an attribute"))
    return FALSE;

  if (var == NULL)
    {
      if (global_special (name))
        return TRUE;
      attr = make_attribute (c, name, type, values);
      if (attr == NULL)
        return FALSE;
      if (!ncz_group_set_attribute (group, attr, &err))
        return cdl_fail_model (c, line, col, err);
      return TRUE;
    }

  {
    gboolean handled;
    if (!variable_special (c, var, name, values, &handled))
      return FALSE;
    if (handled)
      return TRUE;
  }
  if (strcmp (name, "_FillValue") == 0 && type == NCZ_DATA_TYPE_NONE)
    type = ncz_variable_get_value_type (var);
  attr = make_attribute (c, name, type, values);
  if (attr == NULL)
    return FALSE;
  if (!ncz_variable_set_attribute (var, attr, &err))
    return cdl_fail_model (c, line, col, err);
  return TRUE;
}

/* ---- declarations ---- */

static NczGroup *
root_of (NczGroup *group)
{
  while (ncz_group_get_parent (group) != NULL)
    group = ncz_group_get_parent (group);
  return group;
}

/* Splits "/a/b/name" into the group /a/b and "name". */
static NczGroup *
resolve_path_group (NczGroup *group, const char *path, const char **leaf)
{
  g_auto(GStrv) parts = g_strsplit (path + 1, "/", -1);
  guint n = g_strv_length (parts);
  NczGroup *g = root_of (group);

  for (guint i = 0; i + 1 < n; i++)
    {
      g = ncz_group_get_group (g, parts[i]);
      if (g == NULL)
        return NULL;
    }
  *leaf = strrchr (path, '/') + 1;
  return g;
}

static NczDimension *
lookup_dimension (NczGroup *group, Token *t)
{
  if (t->is_path)
    {
      const char *leaf;
      NczGroup *g = resolve_path_group (group, t->text->str, &leaf);
      return g ? ncz_group_get_dimension (g, leaf) : NULL;
    }
  return ncz_group_lookup_dimension (group, t->text->str);
}

static NczVariable *
lookup_variable (NczGroup *group, Token *t)
{
  if (t->is_path)
    {
      const char *leaf;
      NczGroup *g = resolve_path_group (group, t->text->str, &leaf);
      return g ? ncz_group_get_variable (g, leaf) : NULL;
    }
  return ncz_group_get_variable (group, t->text->str);
}

/* name '=' (N | UNLIMITED) (',' ...)* ';' */
static gboolean
parse_dimensions (Cdl *c, NczGroup *group)
{
  for (;;)
    {
      g_autofree char *name = NULL;
      guint line = c->tok.line, col = c->tok.col;
      guint64 length = 0;
      gboolean unlimited = FALSE;
      GError *err = NULL;

      if (c->tok.kind != TOK_IDENT || c->tok.is_path)
        return cdl_fail_expected (c, "a dimension name", "in dimensions");
      name = g_strdup (c->tok.text->str);
      if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, '=', "after the dimension name"))
        return FALSE;
      if (c->tok.kind == TOK_IDENT && !c->tok.escaped &&
          g_ascii_strcasecmp (c->tok.text->str, "unlimited") == 0)
        unlimited = TRUE;
      else if (c->tok.kind == TOK_NUMBER && !c->tok.num.is_real && !c->tok.num.neg &&
               ncz_data_type_is_integer (c->tok.num.type))
        length = c->tok.num.mag;
      else if (c->tok.kind == TOK_NUMBER && c->tok.num.is_real && c->tok.num.real >= 0 &&
               c->tok.num.real == floor (c->tok.num.real) && c->tok.num.real < 9.0e18)
        length = (guint64) c->tok.num.real;
      else
        return cdl_fail_expected (c, "a length or UNLIMITED", "for the dimension");
      if (!cdl_lex_next (c))
        return FALSE;
      if (ncz_group_add_dimension (group, name, length, unlimited, &err) == NULL)
        return cdl_fail_model (c, line, col, err);
      if (cdl_lex_is_punct (c, ','))
        {
          if (!cdl_lex_next (c))
            return FALSE;
          continue;
        }
      return cdl_lex_expect_punct (c, ';', "after a dimension");
    }
}

/* After the type: name ['(' dims ')'] (',' ...)* ';' */
static gboolean
parse_variables_rest (Cdl *c, NczGroup *group, NczDataType type, char *first_name,
                      guint first_line, guint first_col)
{
  g_autofree char *name = first_name;
  guint line = first_line, col = first_col;

  for (;;)
    {
      g_autoptr(GPtrArray) dims = g_ptr_array_new ();
      GError *err = NULL;

      if (cdl_lex_is_punct (c, '('))
        {
          if (!cdl_lex_next (c))
            return FALSE;
          for (;;)
            {
              NczDimension *d;
              if (c->tok.kind != TOK_IDENT)
                return cdl_fail_expected (c, "a dimension name", "in the variable's shape");
              d = lookup_dimension (group, &c->tok);
              if (d == NULL)
                return cdl_fail_tok (c, NCZ_CDL_ERROR_INVALID, "no dimension '%s'", c->tok.text->str);
              g_ptr_array_add (dims, d);
              if (!cdl_lex_next (c))
                return FALSE;
              if (cdl_lex_is_punct (c, ','))
                {
                  if (!cdl_lex_next (c))
                    return FALSE;
                  continue;
                }
              if (!cdl_lex_expect_punct (c, ')', "after the dimensions of a variable"))
                return FALSE;
              break;
            }
        }
      if (ncz_group_add_variable (group, name, type, dims->len,
                                  (NczDimension **) dims->pdata, &err) == NULL)
        return cdl_fail_model (c, line, col, err);
      if (cdl_lex_is_punct (c, ','))
        {
          if (!cdl_lex_next (c))
            return FALSE;
          if (c->tok.kind != TOK_IDENT || c->tok.is_path)
            return cdl_fail_expected (c, "a variable name", "after ','");
          g_free (name);
          name = g_strdup (c->tok.text->str);
          line = c->tok.line;
          col = c->tok.col;
          if (!cdl_lex_next (c))
            return FALSE;
          continue;
        }
      return cdl_lex_expect_punct (c, ';', "after a variable declaration");
    }
}

/* A declaration that starts with a type: a variable or a typed attribute. */
static gboolean
parse_typed (Cdl *c, NczGroup *group, NczDataType type)
{
  g_autofree char *name = NULL;
  guint line, col;
  NczVariable *var;

  if (!cdl_lex_next (c))
    return FALSE;
  if (cdl_lex_is_punct (c, ':'))
    return cdl_lex_next (c) && parse_attribute_rest (c, group, NULL, type);
  if (c->tok.kind != TOK_IDENT)
    return cdl_fail_expected (c, "a variable name", "after the type");
  if (c->tok.colon_follows)
    {
      var = lookup_variable (group, &c->tok);
      if (var == NULL)
        return cdl_fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
      if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, ':', "after the variable name"))
        return FALSE;
      return parse_attribute_rest (c, group, var, type);
    }
  if (c->tok.is_path)
    return cdl_fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "a new variable's name cannot be a path");
  name = g_strdup (c->tok.text->str);
  line = c->tok.line;
  col = c->tok.col;
  if (!cdl_lex_next (c))
    return FALSE;
  return parse_variables_rest (c, group, type, g_steal_pointer (&name), line, col);
}

/* name '=' values ';' in a data section */
static gboolean
parse_data_item (Cdl *c, NczGroup *group)
{
  DataItem *item;
  NczVariable *var;

  if (c->tok.kind != TOK_IDENT)
    return cdl_fail_expected (c, "a variable name", "in data");
  var = lookup_variable (group, &c->tok);
  if (var == NULL)
    return cdl_fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
  item = g_new0 (DataItem, 1);
  item->var = g_object_ref (var);
  item->values = cdl_value_list_new ();
  item->line = c->tok.line;
  item->col = c->tok.col;
  g_ptr_array_add (c->data, item);
  if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, '=', "after the variable name in data"))
    return FALSE;
  return parse_value_list (c, item->values, TRUE, "data");
}

typedef enum { SEC_NONE, SEC_DIMENSIONS, SEC_VARIABLES, SEC_DATA } Section;

static gboolean parse_group_body (Cdl *c, NczGroup *group);

/* Is the current token "word:" (a section keyword)? Consumes both. */
static gboolean
take_section (Cdl *c, const char *word, gboolean *ok)
{
  if (!cdl_lex_is_word (c, word) || !c->tok.colon_follows)
    return FALSE;
  *ok = cdl_lex_next (c) && cdl_lex_next (c);
  return TRUE;
}

static gboolean
parse_group_body (Cdl *c, NczGroup *group)
{
  Section section = SEC_NONE;
  gboolean ok;

  for (;;)
    {
      NczDataType type;

      if (c->error)
        return FALSE;
      if (cdl_lex_is_punct (c, '}'))
        return TRUE;
      if (c->tok.kind == TOK_EOF)
        return cdl_fail_expected (c, "'}'", "to close the group");
      if (take_section (c, "dimensions", &ok))
        {
          section = SEC_DIMENSIONS;
          if (!ok)
            return FALSE;
          continue;
        }
      if (take_section (c, "variables", &ok))
        {
          section = SEC_VARIABLES;
          if (!ok)
            return FALSE;
          continue;
        }
      if (take_section (c, "data", &ok))
        {
          section = SEC_DATA;
          if (!ok)
            return FALSE;
          continue;
        }
      if (cdl_lex_is_word (c, "types") && c->tok.colon_follows)
        return cdl_fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "user-defined types (types:) are not supported by Ncz");
      if (cdl_lex_is_word (c, "group") && c->tok.colon_follows)
        {
          g_autofree char *name = NULL;
          NczGroup *sub;
          GError *err = NULL;
          guint line, col;

          if (!cdl_lex_next (c) || !cdl_lex_next (c))
            return FALSE;
          if (c->tok.kind != TOK_IDENT || c->tok.is_path)
            return cdl_fail_expected (c, "a group name", "after 'group:'");
          name = g_strdup (c->tok.text->str);
          line = c->tok.line;
          col = c->tok.col;
          if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, '{', "after the group name"))
            return FALSE;
          if (++c->depth > MAX_GROUP_DEPTH)
            return cdl_fail_at (c, line, col, NCZ_CDL_ERROR_LIMIT, "groups nested too deeply");
          sub = ncz_group_add_group (group, name, &err);
          if (sub == NULL)
            return cdl_fail_model (c, line, col, err);
          if (!parse_group_body (c, sub) || !cdl_lex_expect_punct (c, '}', "to close the group"))
            return FALSE;
          c->depth--;
          section = SEC_NONE;
          continue;
        }

      if (section == SEC_DATA)
        {
          if (!parse_data_item (c, group))
            return FALSE;
          continue;
        }
      /* group attributes anywhere outside data */
      if (cdl_lex_is_punct (c, ':'))
        {
          if (!cdl_lex_next (c) || !parse_attribute_rest (c, group, NULL, NCZ_DATA_TYPE_NONE))
            return FALSE;
          continue;
        }
      if (section == SEC_DIMENSIONS)
        {
          if (!parse_dimensions (c, group))
            return FALSE;
          continue;
        }
      type = type_keyword (c);
      if (type != NCZ_DATA_TYPE_NONE)
        {
          if (!parse_typed (c, group, type))
            return FALSE;
          continue;
        }
      if (is_user_type_keyword (c))
        return cdl_fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "user-defined types are not supported by Ncz");
      if (c->tok.kind == TOK_IDENT && c->tok.colon_follows)
        {
          NczVariable *var = lookup_variable (group, &c->tok);
          if (var == NULL)
            return cdl_fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
          if (!cdl_lex_next (c) || !cdl_lex_next (c) || !parse_attribute_rest (c, group, var, NCZ_DATA_TYPE_NONE))
            return FALSE;
          continue;
        }
      if (c->tok.kind == TOK_IDENT && section == SEC_VARIABLES)
        return cdl_fail_tok (c, NCZ_CDL_ERROR_INVALID, "unknown type '%s'", c->tok.text->str);
      {
        g_autofree char *got = cdl_lex_describe (c);
        return cdl_fail_tok (c, NCZ_CDL_ERROR_SYNTAX,
                         "expected a section, a declaration or an attribute, found %s", got);
      }
    }
}

/* ---- the dataset ---- */

gboolean
cdl_parse_dataset (Cdl *c, char **dataset_name)
{
  if (!cdl_lex_next (c))
    return FALSE;
  if (!cdl_lex_is_word (c, "netcdf"))
    return cdl_fail_expected (c, "'netcdf'", "at the start");
  if (!cdl_lex_next (c))
    return FALSE;
  if (c->tok.kind != TOK_IDENT)
    return cdl_fail_expected (c, "a dataset name", "after 'netcdf'");
  if (dataset_name)
    *dataset_name = g_strdup (c->tok.text->str);
  if (!cdl_lex_next (c) || !cdl_lex_expect_punct (c, '{', "after the dataset name"))
    return FALSE;
  if (!parse_group_body (c, ncz_dataset_get_root_group (c->ds)) ||
      !cdl_lex_expect_punct (c, '}', "to close the dataset"))
    return FALSE;
  if (c->tok.kind != TOK_EOF)
    return cdl_fail_expected (c, "end of file", "after the dataset's closing '}'");
  return TRUE;
}
