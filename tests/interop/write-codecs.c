/* write-codecs.c: writes arrays through filter chains for other programs to read
 *
 * Usage: write-codecs [OPTION...] URL SPEC...
 *
 * Each SPEC is NAME:TYPE:SHAPE:CHUNKS:CHAIN and makes one variable NAME
 * of TYPE (byte ... double) in the root group, with its own dimensions
 * NAME_0, NAME_1, ... (the first one unlimited when NAME starts with
 * "u_"), chunked as CHUNKS ("4,8"), filtered by CHAIN, and writes all of
 * it with the values of interop_common.py, element i holding
 * value(TYPE, i + 31 * k) for the k-th SPEC (k from 1).
 *
 * Options (for every SPEC):
 *   --dims=A,B,...     use these dimensions, in the root group, shared by
 *                      the variables (made with the first shape using them)
 *   --group=NAME       put the variables in this group of the root group
 *   --values=ramp      element i holds i instead; ramp-half: i + 0.5;
 *                      a comma-separated list gives each SPEC its own
 *                      (the last one for the rest)
 *   --no-fill          ncz_variable_set_no_fill
 *   --fill-attr        give each variable its default fill value as a
 *                      _FillValue attribute (ncz_variable_set_fill_value)
 *
 * CHAIN is "none" or steps separated by '|', each one of
 *   {JSON}                codec JSON, ncz_variable_add_filter_json
 *   =ID[,P1,P2...]        HDF5 id and parameters, ncz_variable_add_filter
 *   @deflate:SHUF:LEVEL   ncz_variable_set_deflate (SHUF 0/1)
 *   @shuffle @fletcher32  ncz_variable_set_shuffle / _set_fletcher32
 *   @zstandard:LEVEL      ncz_variable_set_zstandard
 *   @bzip2:LEVEL          ncz_variable_set_bzip2
 *   @blosc:CNAME:LEVEL:BLOCKSIZE:SHUFFLE   ncz_variable_set_blosc
 *   @szip:MASK:PPB        ncz_variable_set_szip
 * applied in that order. Prints, for each variable, its filter ids as Ncz
 * reports them (ncz_variable_get_filter_ids) on one line:
 *   NAME: ID ID ...
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>
#include "interop-values.h"

#define MAX_DIMS 4

static char *opt_dims = NULL;
static char *opt_group = NULL;
static char *opt_values = NULL;
static gboolean opt_no_fill = FALSE;
static gboolean opt_fill_attr = FALSE;

static const GOptionEntry entries[] = {
  { "dims", 0, 0, G_OPTION_ARG_STRING, &opt_dims, "Shared dimension names", "A,B" },
  { "group", 0, 0, G_OPTION_ARG_STRING, &opt_group, "Group of the variables", "NAME" },
  { "values", 0, 0, G_OPTION_ARG_STRING, &opt_values, "formula, ramp or ramp-half", "KIND" },
  { "no-fill", 0, 0, G_OPTION_ARG_NONE, &opt_no_fill, "No fill", NULL },
  { "fill-attr", 0, 0, G_OPTION_ARG_NONE, &opt_fill_attr, "Explicit _FillValue", NULL },
  G_OPTION_ENTRY_NULL
};

static void
die (const char *what, GError *error)
{
  g_printerr ("write-codecs: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static guint
parse_sizes (const char *text, guint64 *out, const char *what)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  guint n = 0;

  for (; parts[n] != NULL; n++)
    {
      char *end;

      if (n == MAX_DIMS)
        die (what, NULL);
      out[n] = g_ascii_strtoull (parts[n], &end, 10);
      if (end == parts[n] || *end != '\0' || out[n] == 0)
        die (what, NULL);
    }
  return n;
}

static guint
arg_uint (char **args, guint i, const char *step)
{
  char *end;
  guint64 v;

  if (args[i] == NULL)
    die (step, NULL);
  v = g_ascii_strtoull (args[i], &end, 10);
  if (end == args[i] || *end != '\0' || v > G_MAXUINT)
    die (step, NULL);
  return (guint) v;
}

static void
apply_step (NczVariable *var, const char *step)
{
  GError *error = NULL;
  gboolean ok = FALSE;

  if (step[0] == '{')
    ok = ncz_variable_add_filter_json (var, step, &error);
  else if (step[0] == '=')
    {
      g_auto(GStrv) parts = g_strsplit (step + 1, ",", -1);
      guint n = g_strv_length (parts);
      g_autofree guint *params = g_new0 (guint, n + 1);

      for (guint i = 1; i < n; i++)
        params[i - 1] = arg_uint (parts, i, step);
      ok = ncz_variable_add_filter (var, arg_uint (parts, 0, step), params, n - 1, &error);
    }
  else if (step[0] == '@')
    {
      g_auto(GStrv) a = g_strsplit (step + 1, ":", -1);

      if (strcmp (a[0], "deflate") == 0)
        ok = ncz_variable_set_deflate (var, arg_uint (a, 1, step) != 0, TRUE,
                                       arg_uint (a, 2, step), &error);
      else if (strcmp (a[0], "shuffle") == 0)
        ok = ncz_variable_set_shuffle (var, &error);
      else if (strcmp (a[0], "fletcher32") == 0)
        ok = ncz_variable_set_fletcher32 (var, &error);
      else if (strcmp (a[0], "zstandard") == 0)
        ok = ncz_variable_set_zstandard (var, (int) arg_uint (a, 1, step), &error);
      else if (strcmp (a[0], "bzip2") == 0)
        ok = ncz_variable_set_bzip2 (var, arg_uint (a, 1, step), &error);
      else if (strcmp (a[0], "blosc") == 0 && a[1] != NULL)
        ok = ncz_variable_set_blosc (var, a[1], arg_uint (a, 2, step), arg_uint (a, 3, step),
                                     arg_uint (a, 4, step), &error);
      else if (strcmp (a[0], "szip") == 0)
        ok = ncz_variable_set_szip (var, arg_uint (a, 1, step), arg_uint (a, 2, step), &error);
      else
        die (step, NULL);
    }
  else
    die (step, NULL);
  if (!ok)
    die (step, error);
}

/* Element @i of the --values ramps, converted to @t. */
static void
ramp_at (NczDataType t, guint64 i, double add, gpointer out)
{
  double v = (double) i + add;

  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE: *(gint8 *) out = (gint8) v; break;
    case NCZ_DATA_TYPE_UBYTE: *(guint8 *) out = (guint8) v; break;
    case NCZ_DATA_TYPE_SHORT: *(gint16 *) out = (gint16) v; break;
    case NCZ_DATA_TYPE_USHORT: *(guint16 *) out = (guint16) v; break;
    case NCZ_DATA_TYPE_INT: *(gint32 *) out = (gint32) v; break;
    case NCZ_DATA_TYPE_UINT: *(guint32 *) out = (guint32) v; break;
    case NCZ_DATA_TYPE_INT64: *(gint64 *) out = (gint64) v; break;
    case NCZ_DATA_TYPE_UINT64: *(guint64 *) out = (guint64) v; break;
    case NCZ_DATA_TYPE_FLOAT: *(float *) out = (float) v; break;
    case NCZ_DATA_TYPE_DOUBLE: *(double *) out = v; break;
    default: die ("write-codecs", NULL);
    }
}

static NczDimension *
shared_dimension (NczGroup *root, const char *name, guint64 length)
{
  GError *error = NULL;
  NczDimension *dim = ncz_group_get_dimension (root, name);

  if (dim == NULL && (dim = ncz_group_add_dimension (root, name, length, FALSE, &error)) == NULL)
    die (name, error);
  return dim;
}

static void
add_variable (NczGroup *root, NczGroup *grp, const char *spec, guint seed)
{
  GError *error = NULL;
  g_auto(GStrv) f = g_strsplit (spec, ":", 5);
  guint64 shape[MAX_DIMS], chunks[MAX_DIMS], start[MAX_DIMS] = { 0 };
  NczDimension *dims[MAX_DIMS];
  guint nd, nc;
  NczDataType type;
  NczVariable *var;
  guint64 n = 1;
  gsize es;
  g_autofree guint8 *buf = NULL;
  g_autoptr(GArray) ids = NULL;
  g_auto(GStrv) shared = opt_dims != NULL ? g_strsplit (opt_dims, ",", -1) : NULL;
  g_auto(GStrv) kinds = g_strsplit (opt_values != NULL ? opt_values : "formula", ",", -1);
  const char *kind;

  if (g_strv_length (f) != 5)
    die (spec, NULL);
  type = ncz_data_type_from_name (f[1]);
  if (!ncz_data_type_is_integer (type) && !ncz_data_type_is_float (type))
    die (f[1], NULL);
  nd = parse_sizes (f[2], shape, spec);
  nc = parse_sizes (f[3], chunks, spec);
  if (nc != nd)
    die (spec, NULL);
  if (shared != NULL && g_strv_length (shared) != nd)
    die (spec, NULL);
  for (guint i = 0; i < nd && shared != NULL; i++)
    {
      dims[i] = shared_dimension (root, shared[i], shape[i]);
      n *= shape[i];
    }
  for (guint i = 0; i < nd && shared == NULL; i++)
    {
      g_autofree char *dname = g_strdup_printf ("%s_%u", f[0], i);
      gboolean unlimited = i == 0 && g_str_has_prefix (f[0], "u_");

      dims[i] = ncz_group_add_dimension (grp, dname, unlimited ? 0 : shape[i], unlimited,
                                         &error);
      if (dims[i] == NULL)
        die (dname, error);
      n *= shape[i];
    }
  var = ncz_group_add_variable (grp, f[0], type, nd, dims, &error);
  if (var == NULL || !ncz_variable_set_chunk_sizes (var, chunks, nc, &error))
    die (f[0], error);
  if (opt_no_fill && !ncz_variable_set_no_fill (var, TRUE, &error))
    die (f[0], error);
  if (opt_fill_attr)
    {
      g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);

      if (fill == NULL || !ncz_variable_set_fill_value (var, fill, &error))
        die (f[0], error);
    }
  if (strcmp (f[4], "none") != 0)
    {
      g_auto(GStrv) steps = g_strsplit (f[4], "|", -1);

      for (guint i = 0; steps[i] != NULL; i++)
        apply_step (var, steps[i]);
    }

  kind = kinds[MIN (seed, g_strv_length (kinds)) - 1];
  es = ncz_data_type_get_size (type);
  buf = g_malloc (n * es);
  for (guint64 i = 0; i < n; i++)
    if (strcmp (kind, "formula") == 0)
      interop_value_at (type, i + 31 * (guint64) seed, buf + i * es);
    else if (strcmp (kind, "ramp") == 0)
      ramp_at (type, i, 0.0, buf + i * es);
    else if (strcmp (kind, "ramp-half") == 0)
      ramp_at (type, i, 0.5, buf + i * es);
    else
      die (kind, NULL);
  if (!ncz_variable_write (var, start, nd, shape, nd, NULL, 0, buf, n * es, NULL, &error))
    die (f[0], error);

  ids = ncz_variable_get_filter_ids (var);
  g_print ("%s:", f[0]);
  for (guint i = 0; ids != NULL && i < ids->len; i++)
    g_print (" %u", g_array_index (ids, guint, i));
  g_print ("\n");
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  GOptionContext *context = g_option_context_new ("URL NAME:TYPE:SHAPE:CHUNKS:CHAIN...");
  NczDataset *ds;
  NczGroup *root, *grp;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("options", error);
  g_option_context_free (context);
  if (argc < 3)
    {
      g_printerr ("usage: write-codecs [OPTION...] URL NAME:TYPE:SHAPE:CHUNKS:CHAIN...\n");
      return 2;
    }
  ds = ncz_dataset_create (argv[1], NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (argv[1], error);
  root = grp = ncz_dataset_get_root_group (ds);
  if (opt_group != NULL && (grp = ncz_group_add_group (root, opt_group, &error)) == NULL)
    die (opt_group, error);
  for (int i = 2; i < argc; i++)
    add_variable (root, grp, argv[i], (guint) (i - 1));
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);
  return 0;
}
