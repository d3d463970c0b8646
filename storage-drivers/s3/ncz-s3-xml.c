/* ncz-s3-xml.c: the few S3 XML replies the store reads, with GMarkup
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-s3-xml.h"

#include <string.h>

#define MAX_DEPTH 32

typedef struct
{
  GPtrArray *leaves;
  GString *path;
  GString *text;
  gsize stack[MAX_DEPTH];
  guint depth;
  gboolean has_child[MAX_DEPTH];
} Parse;

static void
start_element (GMarkupParseContext *context,
               const char          *name,
               const char         **attribute_names,
               const char         **attribute_values,
               gpointer             user_data,
               GError             **error)
{
  Parse *p = user_data;
  const char *colon = strchr (name, ':');

  if (p->depth >= MAX_DEPTH)
    {
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "nested too deep");
      return;
    }
  if (p->depth > 0)
    p->has_child[p->depth - 1] = TRUE;
  p->stack[p->depth] = p->path->len;
  p->has_child[p->depth] = FALSE;
  p->depth++;
  if (p->path->len > 0)
    g_string_append_c (p->path, '/');
  g_string_append (p->path, colon != NULL ? colon + 1 : name);
  g_string_truncate (p->text, 0);
}

static void
end_element (GMarkupParseContext *context,
             const char          *name,
             gpointer             user_data,
             GError             **error)
{
  Parse *p = user_data;

  p->depth--;
  if (!p->has_child[p->depth])
    {
      g_ptr_array_add (p->leaves, g_strdup (p->path->str));
      g_ptr_array_add (p->leaves, g_strdup (p->text->str));
    }
  g_string_truncate (p->path, p->stack[p->depth]);
  g_string_truncate (p->text, 0);
}

static void
text (GMarkupParseContext *context,
      const char          *text,
      gsize                text_len,
      gpointer             user_data,
      GError             **error)
{
  Parse *p = user_data;

  g_string_append_len (p->text, text, text_len);
}

GPtrArray *
ncz_s3_xml_leaves (const char *data,
                   gsize       length)
{
  static const GMarkupParser parser = { start_element, end_element, text, NULL, NULL };
  g_autoptr(GMarkupParseContext) context = NULL;
  Parse p = { 0 };
  gboolean ok;

  if (data == NULL || length == 0)
    return NULL;
  p.leaves = g_ptr_array_new_with_free_func (g_free);
  p.path = g_string_new (NULL);
  p.text = g_string_new (NULL);
  context = g_markup_parse_context_new (&parser, 0, &p, NULL);
  ok = g_markup_parse_context_parse (context, data, (gssize) length, NULL)
       && g_markup_parse_context_end_parse (context, NULL);
  g_string_free (p.path, TRUE);
  g_string_free (p.text, TRUE);
  if (!ok)
    {
      g_ptr_array_unref (p.leaves);
      return NULL;
    }
  return p.leaves;
}

const char *
ncz_s3_xml_find (GPtrArray  *leaves,
                 const char *path)
{
  for (guint i = 0; leaves != NULL && i + 1 < leaves->len; i += 2)
    if (strcmp (g_ptr_array_index (leaves, i), path) == 0)
      return g_ptr_array_index (leaves, i + 1);
  return NULL;
}

char *
ncz_s3_xml_escape (const char *text)
{
  return g_markup_escape_text (text, -1);
}
