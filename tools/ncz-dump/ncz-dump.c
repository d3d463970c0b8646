/* ncz-dump.c: print a dataset as CDL text, as ncdump does
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ncz/ncz.h>

#include "cdl-format.h"
#include "cdl-syntax.h"
#include "ncz-dump-cdl.h"

/* Largest block of a variable read at once while printing its data. */
#ifndef READ_BLOCK_BYTES
#define READ_BLOCK_BYTES (4u << 20)
#endif

/* Continuation indentation of wrapped data lines. */
#define CONTINUATION "    "

typedef struct
{
  /* options */
  gboolean header_only;
  gboolean coordinates_only;
  gboolean specials;
  gboolean kind_only;
  char **selected;          /* -v names, or NULL */
  const char *name;         /* -n */
  int max_line_length;      /* -l, less the two columns of the terminator */
  int float_digits;
  int double_digits;
  gboolean float_digits_set;   /* -p overrides C_format attributes */
  gboolean double_digits_set;

  /* state */
  NczDataset *dataset;
  FILE *out;
  int indent;               /* columns of group indentation */
  int line_position;        /* column in the data section, as ncdump counts */
  GString *scratch;
} Dump;

/* Values of one variable in C order, read block by block. */
typedef struct
{
  NczVariable *variable;
  NczDataType type;
  gsize element_size;
  guint rank;
  guint64 *shape;
  guint split;              /* blocks are taken along this dimension */
  guint64 block_length;     /* ... this many indices at a time */
  guint64 *next;            /* start of the next block */
  gboolean exhausted;
  guint8 *buffer;
  guint64 n_buffered;
  guint64 position;         /* next element of the buffer */
} ValueReader;

/* The fill value the data section prints as "_". */
typedef struct
{
  gboolean present;
  NczDataType type;
  union
  {
    gint64 i;
    guint64 u;
    float f;
    double d;
    char c;
  } value;
  char *string;
} FillValue;

static void
out_indent (Dump *d)
{
  for (int i = 0; i < d->indent; i++)
    fputc (' ', d->out);
}

static void
out_name (Dump *d, const char *name)
{
  g_string_truncate (d->scratch, 0);
  cdl_append_name (d->scratch, name);
  fputs (d->scratch->str, d->out);
}

/* Writes @text in the data section, first starting a continuation line
 * when it would not fit on the current one. */
static void
put_wrapped (Dump *d, const char *text)
{
  gsize n = strlen (text);

  if ((gssize) n + d->line_position > d->max_line_length && n > 2)
    {
      fputc ('\n', d->out);
      out_indent (d);
      fputs (CONTINUATION, d->out);
      d->line_position = (int) strlen (CONTINUATION) + d->indent;
    }
  fputs (text, d->out);
  if (n > 0 && text[n - 1] == '\n')
    d->line_position = d->indent;
  else
    d->line_position += (int) n;
}

/* ---------------------------------------------------------------- */
/* Attributes */

static void
append_attribute_values (Dump *d, GString *s, NczAttribute *attr,
                         gboolean plain_numbers)
{
  NczDataType type = ncz_attribute_get_value_type (attr);
  gsize n = 0;
  gconstpointer values = ncz_attribute_peek_values (attr, &n);
  /* integers carry their type in a suffix (floats in cdl_append_attribute_float) */
  const char *suffix = plain_numbers || !ncz_data_type_is_integer (type)
                         ? "" : cdl_type_suffix (type);

  if (n == 0 || values == NULL)
    {
      g_string_append (s, "\"\"");
      return;
    }
  if (type == NCZ_DATA_TYPE_CHAR)
    {
      cdl_append_attribute_text (s, values, n);
      return;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, ", ");
      switch (type)
        {
        case NCZ_DATA_TYPE_BYTE:
          g_string_append_printf (s, "%d", ((const gint8 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_SHORT:
          g_string_append_printf (s, "%d", ((const gint16 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_INT:
          g_string_append_printf (s, "%d", ((const gint32 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_UBYTE:
          g_string_append_printf (s, "%u", ((const guint8 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_USHORT:
          g_string_append_printf (s, "%u", ((const guint16 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_UINT:
          g_string_append_printf (s, "%u", ((const guint32 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_INT64:
          g_string_append_printf (s, "%" G_GINT64_FORMAT, ((const gint64 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_UINT64:
          g_string_append_printf (s, "%" G_GUINT64_FORMAT, ((const guint64 *) values)[i]);
          break;
        case NCZ_DATA_TYPE_FLOAT:
          cdl_append_attribute_float (s, ((const float *) values)[i],
                                      d->float_digits);
          break;
        case NCZ_DATA_TYPE_DOUBLE:
          cdl_append_attribute_double (s, ((const double *) values)[i],
                                       d->double_digits);
          break;
        case NCZ_DATA_TYPE_STRING:
          {
            const char *str = ((const char * const *) values)[i];
            if (str)
              cdl_append_attribute_text (s, str, strlen (str));
            else
              g_string_append (s, "NIL");
          }
          break;
        case NCZ_DATA_TYPE_CHAR:
        case NCZ_DATA_TYPE_NONE:
        default:
          g_string_append (s, "?");
          break;
        }
      g_string_append (s, suffix);
    }
}

/* One attribute line; @owner is the variable name, "" for a group. Virtual
 * attributes (@special) print numbers without type suffixes. */
static void
print_attribute (Dump *d, const char *owner, NczAttribute *attr,
                 gboolean special)
{
  g_autoptr(GString) s = g_string_new (NULL);

  if (ncz_attribute_get_value_type (attr) == NCZ_DATA_TYPE_STRING && !special)
    g_string_append (s, "string ");
  cdl_append_name (s, owner);
  /* ncdump separates a keyword from the colon in ordinary attributes only */
  if (cdl_is_keyword (owner) && !special)
    g_string_append_c (s, ' ');
  g_string_append_c (s, ':');
  cdl_append_name (s, ncz_attribute_get_name (attr));
  g_string_append (s, " = ");
  append_attribute_values (d, s, attr, special);
  g_string_append (s, " ;\n");
  out_indent (d);
  fputs ("\t\t", d->out);
  fputs (s->str, d->out);
}

static NczAttribute *
find_attribute (GPtrArray *list, const char *name)
{
  if (list == NULL)
    return NULL;
  for (guint i = 0; i < list->len; i++)
    if (strcmp (ncz_attribute_get_name (g_ptr_array_index (list, i)), name) == 0)
      return g_ptr_array_index (list, i);
  return NULL;
}

/* A list of its own, holding a reference to each attribute, whatever the
 * element free function of @list. */
static GPtrArray *
copy_attribute_list (GPtrArray *list)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; list && i < list->len; i++)
    if (NCZ_IS_ATTRIBUTE (g_ptr_array_index (list, i)))
      g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (list, i)));
  return copy;
}

static NczAttribute *
text_attribute (const char *name, const char *text)
{
  return ncz_attribute_new_text (name, text, -1);
}

/* The virtual attributes of a variable: storage and chunking from the
 * model, then what the format backend adds (filters, codecs), then byte
 * order and the no-fill flag. Names the backend provides win. */
static void
print_variable_specials (Dump *d, NczVariable *var)
{
  NczFormat *format = ncz_dataset_get_format (d->dataset);
  g_autoptr(GPtrArray) described = NULL;
  g_autoptr(GPtrArray) backend = NULL;
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  const char *name = ncz_variable_get_name (var);
  NczDataType type = ncz_variable_get_value_type (var);

  if (format)
    described = ncz_format_describe_variable (format, var);
  backend = copy_attribute_list (described);

  if (find_attribute (backend, "_Storage") == NULL)
    {
      guint rank = 0;
      const guint64 *chunks = ncz_variable_get_chunk_sizes (var, &rank);
      gboolean contiguous = ncz_variable_get_contiguous (var);

      g_ptr_array_add (all, text_attribute ("_Storage",
                                            contiguous ? "contiguous" : "chunked"));
      if (!contiguous && rank > 0 && chunks && find_attribute (backend, "_ChunkSizes") == NULL)
        {
          g_autofree gint64 *v = g_new (gint64, rank);
          for (guint i = 0; i < rank; i++)
            v[i] = (gint64) chunks[i];
          g_ptr_array_add (all, ncz_attribute_new_values ("_ChunkSizes", NCZ_DATA_TYPE_INT64,
                                                          v, rank, NULL));
        }
    }
  for (guint i = 0; i < backend->len; i++)
    g_ptr_array_add (all, g_object_ref (g_ptr_array_index (backend, i)));

  if (find_attribute (backend, "_Endianness") == NULL && type != NCZ_DATA_TYPE_STRING &&
      ncz_data_type_get_size (type) > 1)
    {
      NczEndianness e = ncz_variable_get_endianness (var);
      if (e == NCZ_ENDIANNESS_LITTLE)
        g_ptr_array_add (all, text_attribute ("_Endianness", "little"));
      else if (e == NCZ_ENDIANNESS_BIG)
        g_ptr_array_add (all, text_attribute ("_Endianness", "big"));
    }
  if (find_attribute (backend, "_NoFill") == NULL && ncz_variable_get_no_fill (var))
    g_ptr_array_add (all, text_attribute ("_NoFill", "true"));

  for (guint i = 0; i < all->len; i++)
    if (g_ptr_array_index (all, i) != NULL)
      print_attribute (d, name, g_ptr_array_index (all, i), TRUE);
}

/* The dataset's virtual attributes, from the format backend. */
static GPtrArray *
dataset_specials (Dump *d)
{
  NczFormat *format = ncz_dataset_get_format (d->dataset);
  g_autoptr(GPtrArray) list = format ? ncz_format_describe_dataset (format, d->dataset) : NULL;
  return copy_attribute_list (list);
}

/* The kind ncdump -k prints. */
static char *
dataset_kind (Dump *d)
{
  g_autoptr(GPtrArray) specials = dataset_specials (d);
  NczAttribute *format = find_attribute (specials, "_Format");

  if (format && ncz_attribute_get_value_type (format) == NCZ_DATA_TYPE_CHAR)
    return ncz_attribute_get_text (format, NULL);
  return g_strdup ("netCDF-4");
}

/* ---------------------------------------------------------------- */
/* Header */

static void
print_dimension_reference (Dump *d, NczGroup *group, NczDimension *dim)
{
  const char *name = ncz_dimension_get_name (dim);
  NczGroup *from = group;

  /* The plain name is enough when it finds this dimension from here;
   * otherwise qualify it by the nearest enclosing group it is found from. */
  while (from && ncz_group_lookup_dimension (from, name) != dim)
    from = ncz_group_get_parent (from);
  if (from == NULL)
    from = ncz_dimension_get_group (dim);
  if (from && from != group)
    {
      g_autofree char *path = ncz_group_get_full_name (from);
      out_name (d, path);
      if (strcmp (path, "/") != 0)
        fputc ('/', d->out);
    }
  out_name (d, name);
}

static void
print_variable_header (Dump *d, NczGroup *group, NczVariable *var)
{
  guint rank = ncz_variable_get_n_dimensions (var);
  g_autoptr(GPtrArray) attrs = ncz_variable_get_attributes (var);
  const char *name = ncz_variable_get_name (var);

  out_indent (d);
  fputc ('\t', d->out);
  fputs (cdl_type_keyword (ncz_variable_get_value_type (var)), d->out);
  fputc (' ', d->out);
  out_name (d, name);
  if (rank > 0)
    {
      fputc ('(', d->out);
      for (guint i = 0; i < rank; i++)
        {
          if (i > 0)
            fputs (", ", d->out);
          print_dimension_reference (d, group, ncz_variable_get_dimension (var, i));
        }
      fputc (')', d->out);
    }
  fputs (" ;\n", d->out);
  for (guint i = 0; attrs && i < attrs->len; i++)
    print_attribute (d, name, g_ptr_array_index (attrs, i), FALSE);
  if (d->specials)
    print_variable_specials (d, var);
}

/* ---------------------------------------------------------------- */
/* Variable selection (-v, -c) */

static gboolean
string_ends_with (const char *s, const char *suffix)
{
  gsize a = strlen (s), b = strlen (suffix);
  return a >= b && strcmp (s + a - b, suffix) == 0;
}

/* Whether @spec names @var: "v" names every variable v; "g/h/v" every v
 * in a group whose full name ends with "g/h"; "/g/h/v" only v in /g/h. */
static gboolean
spec_matches (const char *spec, NczGroup *group, NczVariable *var)
{
  const char *slash = strrchr (spec, '/');
  g_autofree char *group_part = NULL;
  g_autofree char *full = NULL;

  if (slash == NULL)
    return strcmp (spec, ncz_variable_get_name (var)) == 0;
  if (strcmp (slash + 1, ncz_variable_get_name (var)) != 0)
    return FALSE;
  group_part = g_strndup (spec, (gsize) (slash - spec));
  full = ncz_group_get_full_name (group);
  if (spec[0] == '/')
    return strcmp (full, group_part[0] ? group_part : "/") == 0;
  return string_ends_with (full, group_part);
}

static gboolean
variable_selected (Dump *d, NczGroup *group, NczVariable *var)
{
  if (d->selected == NULL)
    return TRUE;
  for (guint i = 0; d->selected[i]; i++)
    if (spec_matches (d->selected[i], group, var))
      return TRUE;
  return FALSE;
}

static gboolean
spec_matches_any (const char *spec, NczGroup *group)
{
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (group);

  for (guint i = 0; i < vars->len; i++)
    if (spec_matches (spec, group, g_ptr_array_index (vars, i)))
      return TRUE;
  for (guint i = 0; i < groups->len; i++)
    if (spec_matches_any (spec, g_ptr_array_index (groups, i)))
      return TRUE;
  return FALSE;
}

static gboolean
is_coordinate_variable (NczGroup *group, NczVariable *var)
{
  return ncz_variable_get_n_dimensions (var) == 1 &&
         ncz_group_lookup_dimension (group, ncz_variable_get_name (var)) != NULL;
}

/* ---------------------------------------------------------------- */
/* Data */

static void
value_reader_clear (ValueReader *r)
{
  if (r->buffer && r->type == NCZ_DATA_TYPE_STRING)
    for (guint64 i = 0; i < r->n_buffered; i++)
      g_free (((char **) r->buffer)[i]);
  g_clear_pointer (&r->buffer, g_free);
  g_clear_pointer (&r->shape, g_free);
  g_clear_pointer (&r->next, g_free);
}

static void
value_reader_init (ValueReader *r, NczVariable *var)
{
  guint64 max_elements;
  guint64 inner = 1;

  memset (r, 0, sizeof *r);
  r->variable = var;
  r->type = ncz_variable_get_value_type (var);
  r->element_size = MAX (ncz_data_type_get_size (r->type), 1);
  r->shape = ncz_variable_get_shape (var, &r->rank);
  r->next = g_new0 (guint64, MAX (r->rank, 1));
  if (r->rank == 0)
    return;

  /* Blocks are taken along the outermost dimension one index of which
   * (the subarray of the dimensions after it) fits in a block */
  max_elements = MAX (READ_BLOCK_BYTES / r->element_size, 1);
  r->split = r->rank - 1;
  for (guint k = r->rank; k-- > 0;)
    {
      if (inner > max_elements)
        break;
      r->split = k;
      inner = r->shape[k] > 0 && inner <= G_MAXUINT64 / r->shape[k]
              ? inner * r->shape[k] : G_MAXUINT64;
    }
  inner = 1;
  for (guint k = r->split + 1; k < r->rank; k++)
    inner *= r->shape[k];
  r->block_length = MAX (1, max_elements / MAX (inner, 1));
}

static gboolean
value_reader_fill (ValueReader *r, GError **error)
{
  g_autofree guint64 *start = g_new0 (guint64, MAX (r->rank, 1));
  g_autofree guint64 *count = g_new0 (guint64, MAX (r->rank, 1));
  guint64 n = 1;

  if (r->buffer && r->type == NCZ_DATA_TYPE_STRING)
    for (guint64 i = 0; i < r->n_buffered; i++)
      g_free (((char **) r->buffer)[i]);
  g_clear_pointer (&r->buffer, g_free);
  r->n_buffered = r->position = 0;

  if (r->exhausted)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': read past its end", ncz_variable_get_name (r->variable));
      return FALSE;
    }
  for (guint k = 0; k < r->rank; k++)
    {
      start[k] = r->next[k];
      if (k < r->split)
        count[k] = 1;
      else if (k == r->split)
        count[k] = MIN (r->block_length, r->shape[k] - r->next[k]);
      else
        count[k] = r->shape[k];
      n *= count[k];
    }
  r->buffer = g_try_malloc0 (MAX (n, 1) * r->element_size);
  if (r->buffer == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory", ncz_variable_get_name (r->variable));
      return FALSE;
    }
  if (!ncz_variable_read (r->variable, start, r->rank, count, r->rank, NULL, 0, r->buffer,
                          n * r->element_size, NULL, error))
    return FALSE;
  r->n_buffered = n;

  /* Advance to the next block, odometer style */
  if (r->rank == 0)
    {
      r->exhausted = TRUE;
      return TRUE;
    }
  r->next[r->split] += count[r->split];
  for (guint k = r->split; r->next[k] >= r->shape[k];)
    {
      r->next[k] = 0;
      if (k == 0)
        {
          r->exhausted = TRUE;
          break;
        }
      k--;
      r->next[k]++;
    }
  return TRUE;
}

/* Pointer to the next value, valid until the following call. */
static gconstpointer
value_reader_next (ValueReader *r, GError **error)
{
  if (r->position >= r->n_buffered && !value_reader_fill (r, error))
    return NULL;
  return r->buffer + (r->position++) * r->element_size;
}

static void
fill_value_clear (FillValue *f)
{
  g_clear_pointer (&f->string, g_free);
}

/* The value printed as "_": the _FillValue attribute when it has the
 * variable's type and one value, otherwise the type's default fill
 * (none for byte and ubyte). */
static void
fill_value_init (FillValue *f, NczVariable *var)
{
  NczDataType type = ncz_variable_get_value_type (var);
  NczAttribute *attr = ncz_variable_get_attribute (var, "_FillValue");

  memset (f, 0, sizeof *f);
  f->type = type;
  if (attr && ncz_attribute_get_value_type (attr) == type &&
      ncz_attribute_get_length (attr) == 1)
    {
      gconstpointer v = ncz_attribute_peek_values (attr, NULL);
      f->present = TRUE;
      switch (type)
        {
        case NCZ_DATA_TYPE_BYTE: f->value.i = *(const gint8 *) v; break;
        case NCZ_DATA_TYPE_SHORT: f->value.i = *(const gint16 *) v; break;
        case NCZ_DATA_TYPE_INT: f->value.i = *(const gint32 *) v; break;
        case NCZ_DATA_TYPE_INT64: f->value.i = *(const gint64 *) v; break;
        case NCZ_DATA_TYPE_UBYTE: f->value.u = *(const guint8 *) v; break;
        case NCZ_DATA_TYPE_USHORT: f->value.u = *(const guint16 *) v; break;
        case NCZ_DATA_TYPE_UINT: f->value.u = *(const guint32 *) v; break;
        case NCZ_DATA_TYPE_UINT64: f->value.u = *(const guint64 *) v; break;
        case NCZ_DATA_TYPE_FLOAT: f->value.f = *(const float *) v; break;
        case NCZ_DATA_TYPE_DOUBLE: f->value.d = *(const double *) v; break;
        case NCZ_DATA_TYPE_CHAR: f->value.c = *(const char *) v; break;
        case NCZ_DATA_TYPE_STRING:
          f->string = g_strdup (((const char * const *) v)[0] ? ((const char * const *) v)[0] : "");
          break;
        case NCZ_DATA_TYPE_NONE:
        default:
          f->present = FALSE;
          break;
        }
      return;
    }
  f->present = TRUE;
  switch (type)
    {
    case NCZ_DATA_TYPE_SHORT: f->value.i = -32767; break;
    case NCZ_DATA_TYPE_INT: f->value.i = -2147483647; break;
    case NCZ_DATA_TYPE_INT64: f->value.i = G_GINT64_CONSTANT (-9223372036854775806); break;
    case NCZ_DATA_TYPE_USHORT: f->value.u = 65535; break;
    case NCZ_DATA_TYPE_UINT: f->value.u = 4294967295u; break;
    case NCZ_DATA_TYPE_UINT64: f->value.u = G_GUINT64_CONSTANT (18446744073709551614); break;
    case NCZ_DATA_TYPE_FLOAT: f->value.f = 9.9692099683868690e+36f; break;
    case NCZ_DATA_TYPE_DOUBLE: f->value.d = 9.9692099683868690e+36; break;
    case NCZ_DATA_TYPE_CHAR: f->value.c = '\0'; break;
    case NCZ_DATA_TYPE_STRING: f->string = g_strdup (""); break;
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_NONE:
    default:
      f->present = FALSE;
      break;
    }
}

static gboolean
is_fill (const FillValue *f, gconstpointer v)
{
  if (!f->present)
    return FALSE;
  switch (f->type)
    {
    case NCZ_DATA_TYPE_BYTE: return *(const gint8 *) v == f->value.i;
    case NCZ_DATA_TYPE_SHORT: return *(const gint16 *) v == f->value.i;
    case NCZ_DATA_TYPE_INT: return *(const gint32 *) v == f->value.i;
    case NCZ_DATA_TYPE_INT64: return *(const gint64 *) v == f->value.i;
    case NCZ_DATA_TYPE_UBYTE: return *(const guint8 *) v == f->value.u;
    case NCZ_DATA_TYPE_USHORT: return *(const guint16 *) v == f->value.u;
    case NCZ_DATA_TYPE_UINT: return *(const guint32 *) v == f->value.u;
    case NCZ_DATA_TYPE_UINT64: return *(const guint64 *) v == f->value.u;
    case NCZ_DATA_TYPE_FLOAT: return cdl_float_equals (*(const float *) v, f->value.f);
    case NCZ_DATA_TYPE_DOUBLE: return cdl_double_equals (*(const double *) v, f->value.d);
    case NCZ_DATA_TYPE_CHAR: return *(const char *) v == f->value.c;
    case NCZ_DATA_TYPE_STRING:
      {
        const char *s = *(const char * const *) v;
        return s != NULL && f->string != NULL && strcmp (s, f->string) == 0;
      }
    case NCZ_DATA_TYPE_NONE:
    default:
      return FALSE;
    }
}

/* The format of a variable's values: the default of its type, or its
 * C_format attribute as ncdump honours it. */
static void
value_format_init (Dump *d, CdlValueFormat *vf, NczVariable *var)
{
  NczDataType type = ncz_variable_get_value_type (var);
  NczAttribute *c_format = ncz_variable_get_attribute (var, "C_format");
  gboolean precision_set = FALSE;
  CdlArgKind kind;
  int digits = 0;

  switch (type)
    {
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_USHORT:
    case NCZ_DATA_TYPE_UINT:
      kind = CDL_ARG_UINT;
      break;
    case NCZ_DATA_TYPE_INT64: kind = CDL_ARG_INT64; break;
    case NCZ_DATA_TYPE_UINT64: kind = CDL_ARG_UINT64; break;
    case NCZ_DATA_TYPE_FLOAT:
      kind = CDL_ARG_FLOAT;
      digits = d->float_digits;
      precision_set = d->float_digits_set;
      break;
    case NCZ_DATA_TYPE_DOUBLE:
      kind = CDL_ARG_DOUBLE;
      digits = d->double_digits;
      precision_set = d->double_digits_set;
      break;
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_SHORT:
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_CHAR:
    case NCZ_DATA_TYPE_STRING:
    case NCZ_DATA_TYPE_NONE:
    default:
      kind = CDL_ARG_INT;
      break;
    }
  cdl_value_format_init (vf, kind, digits);
  if (c_format && !precision_set &&
      ncz_attribute_get_value_type (c_format) == NCZ_DATA_TYPE_CHAR &&
      ncz_attribute_get_length (c_format) > 0 && ncz_attribute_get_length (c_format) < 100)
    {
      g_autofree char *text = ncz_attribute_get_text (c_format, NULL);
      if (text && !cdl_value_format_set_c_format (vf, text))
        g_debug ("variable '%s': C_format \"%s\" not usable, ignored",
                 ncz_variable_get_name (var), text);
    }
}

static void
append_value (GString *s, const CdlValueFormat *vf, NczDataType type, gconstpointer v)
{
  gint32 i;
  guint32 u;

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: i = *(const gint8 *) v; cdl_value_format_append (vf, s, &i); break;
    case NCZ_DATA_TYPE_SHORT: i = *(const gint16 *) v; cdl_value_format_append (vf, s, &i); break;
    case NCZ_DATA_TYPE_UBYTE: u = *(const guint8 *) v; cdl_value_format_append (vf, s, &u); break;
    case NCZ_DATA_TYPE_USHORT: u = *(const guint16 *) v; cdl_value_format_append (vf, s, &u); break;
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UINT:
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
    case NCZ_DATA_TYPE_FLOAT:
    case NCZ_DATA_TYPE_DOUBLE:
      cdl_value_format_append (vf, s, v);
      break;
    case NCZ_DATA_TYPE_STRING: cdl_append_data_string (s, *(const char * const *) v); break;
    case NCZ_DATA_TYPE_CHAR: g_string_append_c (s, *(const char *) v); break;
    case NCZ_DATA_TYPE_NONE:
    default:
      g_string_append_c (s, '?');
      break;
    }
}

typedef struct
{
  Dump *dump;
  NczVariable *variable;
  guint rank;
  guint64 *shape;
  gboolean *unlimited;
  ValueReader reader;
  FillValue fill;
  CdlValueFormat format;
  GString *text;
  char *row;                /* one row of a char variable, else NULL */
} DataPrinter;

/* Prints the rows below @level; @last tells, per level, whether every
 * enclosing index is the last one, @pending how many "}" close them. */
static gboolean
print_rows (DataPrinter *p, guint level, gboolean last, guint pending,
            GError **error)
{
  Dump *d = p->dump;
  guint64 length = p->rank > 0 ? p->shape[level] : 1;

  if (level > 0 && p->unlimited[level])
    {
      put_wrapped (d, "{");
      pending++;
    }
  if (p->rank > 0 && level + 1 < p->rank)
    {
      for (guint64 i = 0; i < length; i++)
        {
          gboolean is_last = i + 1 == length;
          if (!print_rows (p, level + 1, last && is_last, is_last ? pending : 0, error))
            return FALSE;
        }
      return TRUE;
    }

  /* One row along the last dimension */
  if (ncz_variable_get_value_type (p->variable) == NCZ_DATA_TYPE_CHAR)
    {
      for (guint64 i = 0; i < length; i++)
        {
          gconstpointer v = value_reader_next (&p->reader, error);
          if (v == NULL)
            return FALSE;
          p->row[i] = *(const char *) v;
        }
      g_string_truncate (p->text, 0);
      cdl_append_data_chars (p->text, p->row, length);
      fputs (p->text->str, d->out);
      g_string_truncate (p->text, 0);
    }
  else
    {
      for (guint64 i = 0; i < length; i++)
        {
          gconstpointer v = value_reader_next (&p->reader, error);
          if (v == NULL)
            return FALSE;
          g_string_truncate (p->text, 0);
          if (is_fill (&p->fill, v))
            g_string_append_c (p->text, '_');
          else
            append_value (p->text, &p->format, p->reader.type, v);
          if (i + 1 < length)
            {
              g_string_append (p->text, ", ");
              put_wrapped (d, p->text->str);
            }
        }
    }
  for (guint j = 0; j < pending; j++)
    g_string_append_c (p->text, '}');
  put_wrapped (d, p->text->str);
  if (last)
    {
      put_wrapped (d, " ;");
      put_wrapped (d, "\n");
    }
  else
    {
      put_wrapped (d, ",\n");
      put_wrapped (d, "  ");
    }
  return TRUE;
}

static gboolean
print_variable_data (Dump *d, NczVariable *var, GError **error)
{
  DataPrinter p = { 0 };
  const char *name = ncz_variable_get_name (var);
  gboolean ok;

  p.dump = d;
  p.variable = var;
  p.shape = ncz_variable_get_shape (var, &p.rank);
  for (guint i = 0; i < p.rank; i++)
    if (p.shape[i] == 0)
      {
        g_free (p.shape);
        return TRUE;    /* nothing written yet: no data lines */
      }
  if (ncz_variable_get_value_type (var) == NCZ_DATA_TYPE_CHAR)
    {
      /* a char variable is printed a whole row (string) at a time */
      guint64 row_length = p.rank > 0 ? p.shape[p.rank - 1] : 1;
      p.row = row_length <= G_MAXSIZE ? g_try_malloc (MAX (row_length, 1)) : NULL;
      if (p.row == NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "variable '%s': out of memory for a row of %" G_GUINT64_FORMAT
                       " characters", name, row_length);
          g_free (p.shape);
          return FALSE;
        }
    }
  p.unlimited = g_new0 (gboolean, MAX (p.rank, 1));
  for (guint i = 0; i < p.rank; i++)
    p.unlimited[i] = ncz_dimension_is_unlimited (ncz_variable_get_dimension (var, i));
  value_reader_init (&p.reader, var);
  fill_value_init (&p.fill, var);
  value_format_init (d, &p.format, var);
  p.text = g_string_new (NULL);

  fputc ('\n', d->out);
  out_indent (d);
  fputc (' ', d->out);
  out_name (d, name);
  if (p.rank <= 1)
    {
      fputs (" = ", d->out);
      d->line_position = (int) strlen (name) + 4 + d->indent;
    }
  else
    {
      fputs (" =\n  ", d->out);
      d->line_position = 2 + d->indent;
    }
  ok = print_rows (&p, 0, TRUE, 0, error);

  g_free (p.row);
  g_string_free (p.text, TRUE);
  fill_value_clear (&p.fill);
  value_reader_clear (&p.reader);
  g_free (p.unlimited);
  g_free (p.shape);
  return ok;
}

/* ---------------------------------------------------------------- */
/* Groups */

static gboolean
print_group (Dump *d, NczGroup *group, GError **error)
{
  gboolean is_root = ncz_group_get_parent (group) == NULL;
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (group);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (group);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (group);
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      /* The provenance attribute is printed with the virtual ones */
      if (is_root && strcmp (ncz_attribute_get_name (a), "_NCProperties") == 0)
        continue;
      g_ptr_array_add (shown, a);
    }

  if (dims->len > 0)
    {
      out_indent (d);
      fputs ("dimensions:\n", d->out);
    }
  for (guint i = 0; i < dims->len; i++)
    {
      NczDimension *dim = g_ptr_array_index (dims, i);
      out_indent (d);
      fputc ('\t', d->out);
      out_name (d, ncz_dimension_get_name (dim));
      if (ncz_dimension_is_unlimited (dim))
        fprintf (d->out, " = UNLIMITED ; // (%" G_GUINT64_FORMAT " currently)\n",
                 ncz_dimension_get_length (dim));
      else
        fprintf (d->out, " = %" G_GUINT64_FORMAT " ;\n", ncz_dimension_get_length (dim));
    }

  if (vars->len > 0)
    {
      out_indent (d);
      fputs ("variables:\n", d->out);
    }
  for (guint i = 0; i < vars->len; i++)
    print_variable_header (d, group, g_ptr_array_index (vars, i));

  if (shown->len > 0 || d->specials)
    {
      fputc ('\n', d->out);
      out_indent (d);
      fputs (is_root ? "// global attributes:\n" : "// group attributes:\n", d->out);
    }
  for (guint i = 0; i < shown->len; i++)
    print_attribute (d, "", g_ptr_array_index (shown, i), FALSE);
  if (is_root && d->specials)
    {
      g_autoptr(GPtrArray) specials = dataset_specials (d);
      NczAttribute *props = ncz_group_get_attribute (group, "_NCProperties");
      gboolean have_format = FALSE;

      /* A provenance attribute the backend keeps as an ordinary one */
      if (props && find_attribute (specials, "_NCProperties") == NULL)
        g_ptr_array_insert (specials, 0, g_object_ref (props));
      for (guint i = 0; i < specials->len; i++)
        {
          NczAttribute *a = g_ptr_array_index (specials, i);
          have_format |= strcmp (ncz_attribute_get_name (a), "_Format") == 0;
          print_attribute (d, "", a, TRUE);
        }
      if (!have_format)
        {
          g_autoptr(NczAttribute) a = text_attribute ("_Format", "netCDF-4");
          print_attribute (d, "", a, TRUE);
        }
    }
  fflush (d->out);

  if (!d->header_only)
    {
      if (vars->len > 0)
        {
          out_indent (d);
          fputs ("data:\n", d->out);
        }
      for (guint i = 0; i < vars->len; i++)
        {
          NczVariable *var = g_ptr_array_index (vars, i);
          if (!variable_selected (d, group, var))
            continue;
          if (d->coordinates_only && !is_coordinate_variable (group, var))
            continue;
          if (!print_variable_data (d, var, error))
            return FALSE;
        }
    }

  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *sub = g_ptr_array_index (groups, i);
      gboolean ok;

      fputc ('\n', d->out);
      out_indent (d);
      fputs ("group: ", d->out);
      out_name (d, ncz_group_get_name (sub));
      fputs (" {\n", d->out);
      d->indent += 2;
      ok = print_group (d, sub, error);
      if (ok)
        {
          out_indent (d);
          fputs ("} // group ", d->out);
          out_name (d, ncz_group_get_name (sub));
          fputc ('\n', d->out);
        }
      d->indent -= 2;
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* ---------------------------------------------------------------- */
/* Command line */

static void
usage (FILE *to, const char *prog)
{
  fprintf (to,
           "%s [-c|-h] [-v ...] [-l len] [-n name] [-p n[,n]] [-k] [-s] file\n"
           "  [-c]             Coordinate variable data and header information\n"
           "  [-h]             Header information only, no data\n"
           "  [-v var1[,...]]  Data for variable(s) <var1>,... only\n"
           "  [-l len]         Line length maximum in data section (default 80)\n"
           "  [-n name]        Name for netCDF (default derived from file name)\n"
           "  [-p n[,n]]       Display floating-point values with less precision\n"
           "  [-k]             Output kind of netCDF file\n"
           "  [-s]             Output special (virtual) attributes\n"
           "  file             Path or URL of the dataset (e.g. file:///data/x.zarr#mode=nczarr,file)\n"
           "  --help           Show this help and exit\n"
           "  --version        Show the version and exit\n"
           "ncz library version %s\n",
           prog, NCZ_VERSION_STRING);
}

static gboolean
parse_precision (const char *arg, int *float_digits, int *double_digits,
                 gboolean *float_set, gboolean *double_set)
{
  char *end = NULL;
  const char *p = arg;

  if (*p != ',')
    {
      long v;
      errno = 0;
      v = strtol (p, &end, 10);
      if (end == p || errno || v < 1 || v > 20)
        return FALSE;
      *float_digits = (int) v;
      *float_set = TRUE;
      p = end;
    }
  if (*p == ',')
    {
      long v;
      p++;
      errno = 0;
      v = strtol (p, &end, 10);
      if (end == p || errno || v < 1 || v > 20)
        return FALSE;
      *double_digits = (int) v;
      *double_set = TRUE;
      p = end;
    }
  return *p == '\0';
}

static void
fail (const char *prog, const char *message)
{
  fflush (stdout);
  fprintf (stderr, "%s: %s\n", prog, message);
  exit (EXIT_FAILURE);
}

int
main (int argc, char *argv[])
{
  Dump d = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) dataset = NULL;
  g_autofree char *derived_name = NULL;
  g_autoptr(GString) vars_arg = NULL;
  const char *prog = "ncz-dump";
  const char *location;
  long line_length = 80;
  int c;

  d.float_digits = CDL_FLOAT_DIGITS;
  d.double_digits = CDL_DOUBLE_DIGITS;
  d.out = stdout;

  static const struct option long_options[] = {
    { "help", no_argument, NULL, 'H' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };

  if (argc <= 1)
    {
      usage (stderr, prog);
      return EXIT_SUCCESS;
    }
  while ((c = getopt_long (argc, argv, "chkl:n:p:sv:", long_options, NULL)) != -1)
    {
      switch (c)
        {
        case 'H':
          usage (stdout, prog);
          return EXIT_SUCCESS;
        case 'V':
          printf ("%s (Ncz) %s\n", prog, NCZ_VERSION_STRING);
          return EXIT_SUCCESS;
        case 'c': d.coordinates_only = TRUE; break;
        case 'h': d.header_only = TRUE; break;
        case 'k': d.kind_only = TRUE; break;
        case 's': d.specials = TRUE; break;
        case 'n': d.name = optarg; break;
        case 'l':
          {
            char *end = NULL;
            errno = 0;
            line_length = strtol (optarg, &end, 0);
            if (end == optarg || *end != '\0' || errno || line_length < 10 ||
                line_length > G_MAXINT / 2)
              {
                g_autofree char *m = g_strdup_printf ("unreasonably small line length specified: %s", optarg);
                fail (prog, m);
              }
          }
          break;
        case 'p':
          if (!parse_precision (optarg, &d.float_digits, &d.double_digits,
                                &d.float_digits_set, &d.double_digits_set))
            {
              g_autofree char *m = g_strdup_printf ("invalid precision specification: %s", optarg);
              fail (prog, m);
            }
          break;
        case 'v':
          if (vars_arg == NULL)
            vars_arg = g_string_new (optarg);
          else
            g_string_append_printf (vars_arg, ",%s", optarg);
          break;
        default:
          usage (stderr, prog);
          return EXIT_FAILURE;
        }
    }
  if (argc - optind != 1)
    {
      usage (stderr, prog);
      return EXIT_FAILURE;
    }
  location = argv[optind];
  d.max_line_length = (int) line_length - 2;
  if (vars_arg)
    {
      g_auto(GStrv) parts = g_strsplit (vars_arg->str, ",", -1);
      GPtrArray *names = g_ptr_array_new ();
      for (guint i = 0; parts[i]; i++)
        if (parts[i][0] != '\0')
          g_ptr_array_add (names, g_strdup (parts[i]));
      g_ptr_array_add (names, NULL);
      d.selected = (char **) g_ptr_array_free (names, FALSE);
    }

  dataset = ncz_dataset_open (location, NCZ_OPEN_READ, NULL, &error);
  if (dataset == NULL)
    {
      fail (prog, error->message);
    }
  d.dataset = dataset;
  d.scratch = g_string_new (NULL);

  if (d.kind_only)
    {
      g_autofree char *kind = dataset_kind (&d);
      printf ("%s\n", kind);
    }
  else
    {
      NczGroup *root = ncz_dataset_get_root_group (dataset);

      for (guint i = 0; d.selected && d.selected[i]; i++)
        if (!spec_matches_any (d.selected[i], root))
          {
            g_autofree char *m = g_strdup_printf ("%s: No such variable", d.selected[i]);
            fail (prog, m);
          }
      if (d.name == NULL)
        d.name = derived_name = cdl_dataset_name_from_location (location);
      fputs ("netcdf ", stdout);
      out_name (&d, d.name);
      fputs (" {\n", stdout);
      if (!print_group (&d, root, &error))
        fail (prog, error->message);
      fputs ("}\n", stdout);
    }

  if (!ncz_dataset_close (dataset, NULL, &error))
    fail (prog, error->message);
  g_string_free (d.scratch, TRUE);
  g_strfreev (d.selected);
  if (fflush (stdout) != 0 || ferror (stdout))
    fail (prog, "error writing standard output");
  return EXIT_SUCCESS;
}
