/* read-values.c: prints every variable and attribute of a dataset as JSON
 *
 * Usage: read-values URL [OUTPUT]
 *
 * Opens URL read-only and writes one JSON object:
 *   {"groups": ["", "g", ...],
 *    "variables": {"g/v": {"type": "int", "shape": [..], "chunks": [..],
 *                          "dims": [..], "fill": v|null, "values": [..]}},
 *    "attributes": {"": {"name": value, ...}, "g/v": {...}}}
 * Values are flattened in C order. Floating-point values are printed with
 * 17 significant digits; NaN and infinities as the strings "NaN",
 * "Infinity", "-Infinity"; 64-bit integers exactly; char variables as one
 * string per element, string variables as strings. The comparison with
 * what other programs wrote is done by the calling script.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>

static void
die (const char *what, GError *error)
{
  g_printerr ("read-values: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static void
append_json_string_len (GString *s, const char *str, gsize len)
{
  g_string_append_c (s, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) str[i];
      if (c == '"' || c == '\\')
        g_string_append_printf (s, "\\%c", c);
      else if (c < 0x20 || c >= 0x7f)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_c (s, (char) c);
    }
  g_string_append_c (s, '"');
}

static void
append_json_string (GString *s, const char *str)
{
  append_json_string_len (s, str, strlen (str));
}

static void
append_double (GString *s, double d)
{
  if (isnan (d))
    g_string_append (s, "\"NaN\"");
  else if (isinf (d))
    g_string_append (s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else
    g_string_append_printf (s, "%.17g", d);
}

static void
append_value (GString *s, NczDataType t, const guint8 *p)
{
  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE: g_string_append_printf (s, "%d", *(const gint8 *) p); break;
    case NCZ_DATA_TYPE_UBYTE: g_string_append_printf (s, "%u", *p); break;
    case NCZ_DATA_TYPE_SHORT:
      { gint16 v; memcpy (&v, p, 2); g_string_append_printf (s, "%d", v); }
      break;
    case NCZ_DATA_TYPE_USHORT:
      { guint16 v; memcpy (&v, p, 2); g_string_append_printf (s, "%u", v); }
      break;
    case NCZ_DATA_TYPE_INT:
      { gint32 v; memcpy (&v, p, 4); g_string_append_printf (s, "%d", v); }
      break;
    case NCZ_DATA_TYPE_UINT:
      { guint32 v; memcpy (&v, p, 4); g_string_append_printf (s, "%u", v); }
      break;
    case NCZ_DATA_TYPE_INT64:
      { gint64 v; memcpy (&v, p, 8); g_string_append_printf (s, "%" G_GINT64_FORMAT, v); }
      break;
    case NCZ_DATA_TYPE_UINT64:
      { guint64 v; memcpy (&v, p, 8); g_string_append_printf (s, "%" G_GUINT64_FORMAT, v); }
      break;
    case NCZ_DATA_TYPE_FLOAT:
      { float v; memcpy (&v, p, 4); append_double (s, v); }
      break;
    case NCZ_DATA_TYPE_DOUBLE:
      { double v; memcpy (&v, p, 8); append_double (s, v); }
      break;
    case NCZ_DATA_TYPE_CHAR:
      append_json_string_len (s, (const char *) p, *p ? 1 : 0);
      break;
    default:
      g_string_append (s, "null");
    }
}

static char *
join_path (const char *parent, const char *name)
{
  return parent[0] ? g_strconcat (parent, "/", name, NULL) : g_strdup (name);
}

static void
append_attributes (GString *s, GPtrArray *attrs)
{
  g_string_append_c (s, '{');
  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      NczDataType t = ncz_attribute_get_value_type (a);

      if (i)
        g_string_append (s, ", ");
      append_json_string (s, ncz_attribute_get_name (a));
      g_string_append (s, ": ");
      if (t == NCZ_DATA_TYPE_CHAR)
        {
          gsize len = 0;
          char *text = ncz_attribute_get_text (a, &len);
          g_string_append (s, "{\"type\": \"char\", \"value\": ");
          append_json_string_len (s, text ? text : "", text ? len : 0);
          g_string_append_c (s, '}');
          g_free (text);
        }
      else if (t == NCZ_DATA_TYPE_STRING)
        {
          const char * const *strv = ncz_attribute_get_strings (a);
          g_string_append (s, "{\"type\": \"string\", \"value\": [");
          for (guint k = 0; strv && strv[k]; k++)
            {
              if (k)
                g_string_append (s, ", ");
              append_json_string (s, strv[k]);
            }
          g_string_append (s, "]}");
        }
      else
        {
          gsize n = 0;
          const guint8 *p = ncz_attribute_peek_values (a, &n);
          gsize es = ncz_data_type_get_size (t);
          g_string_append_printf (s, "{\"type\": \"%s\", \"value\": [", ncz_data_type_get_name (t));
          for (gsize k = 0; k < n; k++)
            {
              if (k)
                g_string_append (s, ", ");
              append_value (s, t, p + k * es);
            }
          g_string_append (s, "]}");
        }
    }
  g_string_append_c (s, '}');
}

typedef struct {
  GString *groups;
  GString *vars;
  GString *attrs;
} Out;

static void
dump_variable (Out *out, NczVariable *v, const char *path)
{
  GError *error = NULL;
  GString *s = out->vars;
  NczDataType t = ncz_variable_get_value_type (v);
  guint nd = 0, nc = 0;
  guint64 *shape = ncz_variable_get_shape (v, &nd);
  const guint64 *chunks = ncz_variable_get_chunk_sizes (v, &nc);
  guint64 n = ncz_variable_get_n_elements (v);
  guint64 *start = g_new0 (guint64, nd + 1);
  GBytes *fill;
  g_autoptr (GPtrArray) attrs = NULL;

  if (s->len > 1)
    g_string_append (s, ",\n ");
  append_json_string (s, path);
  g_string_append_printf (s, ": {\"type\": \"%s\", \"shape\": [", ncz_data_type_get_name (t));
  for (guint i = 0; i < nd; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append (s, "], \"chunks\": [");
  for (guint i = 0; chunks && i < nc; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", chunks[i]);
  g_string_append (s, "], \"dims\": [");
  for (guint i = 0; i < nd; i++)
    {
      NczDimension *d = ncz_variable_get_dimension (v, i);
      char *full = d ? ncz_dimension_get_full_name (d) : g_strdup ("");
      if (i)
        g_string_append (s, ", ");
      append_json_string (s, full ? full : "");
      g_free (full);
    }
  g_string_append (s, "], \"fill\": ");
  fill = ncz_variable_get_fill_value (v);
  if (fill == NULL || ncz_variable_get_no_fill (v))
    g_string_append (s, "null");
  else if (t == NCZ_DATA_TYPE_STRING)
    {
      gsize len;
      const char *p = g_bytes_get_data (fill, &len);
      append_json_string_len (s, p ? p : "", p ? strnlen (p, len) : 0);
    }
  else if (g_bytes_get_size (fill) >= ncz_data_type_get_size (t))
    append_value (s, t, g_bytes_get_data (fill, NULL));
  else
    g_string_append (s, "null");
  if (fill)
    g_bytes_unref (fill);

  g_string_append (s, ", \"values\": [");
  if (t == NCZ_DATA_TYPE_STRING)
    {
      char **strv = ncz_variable_read_strings (v, start, nd, shape, nd, NULL, 0, NULL, &error);
      if (strv == NULL)
        die (path, error);
      for (guint64 i = 0; i < n; i++)
        {
          if (i)
            g_string_append (s, ", ");
          append_json_string (s, strv[i] ? strv[i] : "");
        }
      g_strfreev (strv);
    }
  else if (n > 0)
    {
      gsize es = ncz_data_type_get_size (t);
      guint8 *buf = g_malloc0 (n * es);
      if (!ncz_variable_read (v, start, nd, shape, nd, NULL, 0, buf, n * es, NULL, &error))
        die (path, error);
      for (guint64 i = 0; i < n; i++)
        {
          if (i)
            g_string_append (s, ", ");
          append_value (s, t, buf + i * es);
        }
      g_free (buf);
    }
  g_string_append (s, "]}");

  attrs = ncz_variable_get_attributes (v);
  if (out->attrs->len > 1)
    g_string_append (out->attrs, ",\n ");
  append_json_string (out->attrs, path);
  g_string_append (out->attrs, ": ");
  append_attributes (out->attrs, attrs);

  g_free (shape);
  g_free (start);
}

static void
dump_group (Out *out, NczGroup *g, const char *path)
{
  g_autoptr (GPtrArray) vars = ncz_group_get_variables (g);
  g_autoptr (GPtrArray) groups = ncz_group_get_groups (g);
  g_autoptr (GPtrArray) attrs = ncz_group_get_attributes (g);

  if (out->groups->len > 1)
    g_string_append (out->groups, ", ");
  append_json_string (out->groups, path);

  if (out->attrs->len > 1)
    g_string_append (out->attrs, ",\n ");
  append_json_string (out->attrs, path);
  g_string_append (out->attrs, ": ");
  append_attributes (out->attrs, attrs);

  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *v = g_ptr_array_index (vars, i);
      char *p = join_path (path, ncz_variable_get_name (v));
      dump_variable (out, v, p);
      g_free (p);
    }
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *sub = g_ptr_array_index (groups, i);
      char *p = join_path (path, ncz_group_get_name (sub));
      dump_group (out, sub, p);
      g_free (p);
    }
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  NczDataset *ds;
  Out out;
  GString *all;

  if (argc < 2)
    {
      g_printerr ("usage: read-values URL [OUTPUT]\n");
      return 2;
    }
  ds = ncz_dataset_open (argv[1], NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    die (argv[1], error);

  out.groups = g_string_new ("[");
  out.vars = g_string_new ("{");
  out.attrs = g_string_new ("{");
  dump_group (&out, ncz_dataset_get_root_group (ds), "");

  all = g_string_new (NULL);
  g_string_append_printf (all, "{\"groups\": %s],\n\"variables\": %s},\n\"attributes\": %s}}\n",
                          out.groups->str, out.vars->str, out.attrs->str);
  if (argc > 2)
    {
      if (!g_file_set_contents (argv[2], all->str, (gssize) all->len, &error))
        die (argv[2], error);
    }
  else
    fputs (all->str, stdout);

  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  g_string_free (out.groups, TRUE);
  g_string_free (out.vars, TRUE);
  g_string_free (out.attrs, TRUE);
  g_string_free (all, TRUE);
  return 0;
}
