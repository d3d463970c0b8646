/* write-all.c: writes a dataset using every feature other programs must read
 *
 * Usage: write-all URL MANIFEST [--profile=full|ncdump]
 *
 * Writes variables of every type (partly written multi-chunk variables
 * with partial edge chunks, fully written ones, scalars, strings, chars,
 * big-endian ones, user fill values including NaN, -Infinity, the largest
 * uint64 and a double needing 17 digits), nested groups, and attributes of
 * every type, then a JSON manifest describing what was written. The
 * element values follow the formula of interop_common.py so the checking
 * side computes them independently.
 *
 * The `ncdump` profile leaves out what netcdf-c 4.9.0 cannot read in
 * files written the way netcdf-c 4.9.1 and later write them: char and
 * string variables (4.9.0 crashes on `>S1` and `|Sn` dtypes), string
 * attributes and arrays holding NaN/Infinity as strings (4.9.0 fails to
 * open a pure Zarr whose attribute is an array of strings), big-endian
 * variables (4.9.0 never byte-swaps chunk data), and integer attribute
 * arrays: 4.9.0 reads the lower-case NCZarr 2.0.0 keys as pure Zarr, so
 * it infers an attribute's type from the first element of its array (the
 * smallest type holding it) and fails to open the whole file ("Numeric
 * conversion not representable") when a later element does not fit, as in
 * [120, 157, 194] read as byte.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>
#include "interop-values.h"

#define MAX_DIMS 4

typedef struct {
  GString *vars;
  GString *attrs;
  GString *dims;
  gboolean full;
  guint next_seed;
} Ctx;

static void
die (const char *what, GError *error)
{
  g_printerr ("write-all: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static const NczDataType numeric_types[] = {
  NCZ_DATA_TYPE_BYTE, NCZ_DATA_TYPE_UBYTE, NCZ_DATA_TYPE_SHORT, NCZ_DATA_TYPE_USHORT,
  NCZ_DATA_TYPE_INT, NCZ_DATA_TYPE_UINT, NCZ_DATA_TYPE_INT64, NCZ_DATA_TYPE_UINT64,
  NCZ_DATA_TYPE_FLOAT, NCZ_DATA_TYPE_DOUBLE,
};

static char *
string_at (guint64 n)
{
  static const char dashes[] = "---";
  return g_strdup_printf ("s%" G_GUINT64_FORMAT "%.*s", n, (int) (n % 4), dashes);
}

static void
append_u64_list (GString *s, const guint64 *v, guint n)
{
  g_string_append_c (s, '[');
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", v[i]);
  g_string_append_c (s, ']');
}

static void
append_json_string (GString *s, const char *str)
{
  g_string_append_c (s, '"');
  for (const char *p = str; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (s, "\\%c", *p);
      else if ((guchar) *p < 0x20)
        g_string_append_printf (s, "\\u%04x", (guchar) *p);
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

/* A JSON value for one element of type @t at @p. */
static void
append_value (GString *s, NczDataType t, gconstpointer p)
{
  double d;

  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE: g_string_append_printf (s, "%d", *(const gint8 *) p); return;
    case NCZ_DATA_TYPE_UBYTE: g_string_append_printf (s, "%u", *(const guint8 *) p); return;
    case NCZ_DATA_TYPE_SHORT: g_string_append_printf (s, "%d", *(const gint16 *) p); return;
    case NCZ_DATA_TYPE_USHORT: g_string_append_printf (s, "%u", *(const guint16 *) p); return;
    case NCZ_DATA_TYPE_INT: g_string_append_printf (s, "%d", *(const gint32 *) p); return;
    case NCZ_DATA_TYPE_UINT: g_string_append_printf (s, "%u", *(const guint32 *) p); return;
    case NCZ_DATA_TYPE_INT64:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, *(const gint64 *) p);
      return;
    case NCZ_DATA_TYPE_UINT64:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, *(const guint64 *) p);
      return;
    case NCZ_DATA_TYPE_FLOAT: d = *(const float *) p; break;
    case NCZ_DATA_TYPE_DOUBLE: d = *(const double *) p; break;
    default: g_assert_not_reached ();
    }
  if (isnan (d))
    g_string_append (s, "\"NaN\"");
  else if (isinf (d))
    g_string_append (s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else
    g_string_append_printf (s, "%.17g", d);
}

static NczDimension *
add_dim (Ctx *ctx, NczGroup *grp, const char *gpath, const char *name,
         guint64 len)
{
  GError *error = NULL;
  NczDimension *d = ncz_group_add_dimension (grp, name, len, FALSE, &error);

  if (d == NULL)
    die (name, error);
  g_string_append_printf (ctx->dims, "%s{\"group\": \"%s\", \"name\": \"%s\", \"length\": %"
                          G_GUINT64_FORMAT "}", ctx->dims->len > 1 ? ",\n  " : "",
                          gpath, name, len);
  return d;
}

typedef struct {
  NczGroup *grp;
  const char *gpath;
  const char *name;
  NczDataType type;
  guint nd;
  const char *dims[MAX_DIMS];
  guint64 chunks[MAX_DIMS];       /* all 0: default chunking */
  guint64 start[MAX_DIMS];
  guint64 count[MAX_DIMS];        /* all 0 with nd>0: nothing written; see write_all */
  gboolean write_all;             /* write the whole variable */
  gboolean no_write;
  GBytes *fill;                   /* user fill value, native order */
  gboolean big_endian;
  guint maxstrlen;                /* strings: set _nczarr_maxstrlen */
} VarSpec;

/* Define, fill and write one variable; record it in the manifest. */
static NczVariable *
make_var (Ctx *ctx, VarSpec *vs)
{
  GError *error = NULL;
  NczDimension *dims[MAX_DIMS];
  guint64 shape[MAX_DIMS];
  guint64 chunks_set = 0;
  guint seed = ctx->next_seed++;
  NczVariable *v;
  char *path;
  gsize esize;
  guint64 total = 1, n_write = 1;

  path = vs->gpath[0] ? g_strconcat (vs->gpath, "/", vs->name, NULL) : g_strdup (vs->name);

  for (guint i = 0; i < vs->nd; i++)
    {
      dims[i] = ncz_group_lookup_dimension (vs->grp, vs->dims[i]);
      if (dims[i] == NULL)
        {
          g_printerr ("write-all: no dimension %s for %s\n", vs->dims[i], path);
          exit (1);
        }
      shape[i] = ncz_dimension_get_length (dims[i]);
      total *= shape[i];
      chunks_set |= vs->chunks[i];
    }

  v = ncz_group_add_variable (vs->grp, vs->name, vs->type, vs->nd, dims, &error);
  if (v == NULL)
    die (path, error);
  if (chunks_set && !ncz_variable_set_chunk_sizes (v, vs->chunks, vs->nd, &error))
    die (path, error);
  if (vs->fill && !ncz_variable_set_fill_value (v, vs->fill, &error))
    die (path, error);
  if (vs->big_endian && !ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error))
    die (path, error);
  if (vs->maxstrlen)
    {
      gint32 len = (gint32) vs->maxstrlen;
      g_autoptr (NczAttribute) a = ncz_attribute_new_values ("_nczarr_maxstrlen",
                                                             NCZ_DATA_TYPE_INT, &len, 1, &error);
      if (a == NULL || !ncz_variable_set_attribute (v, a, &error))
        die (path, error);
    }

  if (vs->write_all)
    for (guint i = 0; i < vs->nd; i++)
      {
        vs->start[i] = 0;
        vs->count[i] = shape[i];
      }
  for (guint i = 0; i < vs->nd; i++)
    n_write *= vs->count[i];
  if (vs->no_write)
    n_write = 0;

  if (n_write > 0)
    {
      /* Walk the hyperslab in C order, computing each element's index in
       * the whole variable. */
      guint64 idx[MAX_DIMS] = { 0 };
      char **strings = NULL;
      guint8 *buf = NULL;

      esize = vs->type == NCZ_DATA_TYPE_STRING ? sizeof (char *) : ncz_data_type_get_size (vs->type);
      if (vs->type == NCZ_DATA_TYPE_STRING)
        strings = g_new0 (char *, n_write + 1);
      else
        buf = g_malloc0 (n_write * esize);

      for (guint64 k = 0; k < n_write; k++)
        {
          guint64 flat = 0;

          for (guint i = 0; i < vs->nd; i++)
            flat = flat * shape[i] + vs->start[i] + idx[i];
          if (strings)
            strings[k] = string_at (flat + 31 * (guint64) seed);
          else
            interop_value_at (vs->type, flat + 31 * (guint64) seed, buf + k * esize);
          for (gint i = (gint) vs->nd - 1; i >= 0; i--)
            {
              if (++idx[i] < vs->count[i])
                break;
              idx[i] = 0;
            }
        }

      if (strings)
        {
          if (!ncz_variable_write_strings (v, vs->start, vs->nd, vs->count, vs->nd, NULL, 0,
                                           (const char * const *) strings, NULL, &error))
            die (path, error);
          g_strfreev (strings);
        }
      else
        {
          if (!ncz_variable_write (v, vs->start, vs->nd, vs->count, vs->nd, NULL, 0, buf,
                                   n_write * esize, NULL, &error))
            die (path, error);
          g_free (buf);
        }
    }

  /* Manifest entry */
  {
    GString *s = ctx->vars;
    guint n;
    const guint64 *cs = ncz_variable_get_chunk_sizes (v, &n);

    if (s->len > 1)
      g_string_append (s, ",\n  ");
    g_string_append_printf (s, "{\"path\": \"%s\", \"group\": \"%s\", \"name\": \"%s\", "
                            "\"type\": \"%s\", \"seed\": %u, \"shape\": ",
                            path, vs->gpath, vs->name, ncz_data_type_get_name (vs->type), seed);
    append_u64_list (s, shape, vs->nd);
    g_string_append (s, ", \"chunks\": ");
    if (chunks_set)
      append_u64_list (s, vs->chunks, vs->nd);
    else if (cs != NULL && n == vs->nd && vs->nd > 0)
      append_u64_list (s, cs, n);
    else
      g_string_append (s, "null");
    g_string_append (s, ", \"dims\": [");
    for (guint i = 0; i < vs->nd; i++)
      g_string_append_printf (s, "%s\"%s\"", i ? ", " : "", vs->dims[i]);
    g_string_append (s, "], \"start\": ");
    if (n_write > 0)
      {
        append_u64_list (s, vs->start, vs->nd);
        g_string_append (s, ", \"count\": ");
        append_u64_list (s, vs->count, vs->nd);
      }
    else
      g_string_append (s, "null, \"count\": null");
    g_string_append (s, ", \"fill\": ");
    if (vs->fill == NULL)
      g_string_append (s, "null");
    else if (vs->type == NCZ_DATA_TYPE_STRING)
      append_json_string (s, g_bytes_get_data (vs->fill, NULL));
    else
      append_value (s, vs->type, g_bytes_get_data (vs->fill, NULL));
    g_string_append_printf (s, ", \"endian\": \"%s\", \"maxstrlen\": %u}",
                            vs->big_endian ? "big" : "native", vs->maxstrlen);
    (void) total;
  }

  g_free (path);
  return v;
}

static void
record_attr (Ctx *ctx, const char *owner, gboolean is_var, const char *name,
             const char *body)
{
  if (ctx->attrs->len > 1)
    g_string_append (ctx->attrs, ",\n  ");
  g_string_append_printf (ctx->attrs, "{\"owner\": \"%s\", \"owner_kind\": \"%s\", "
                          "\"name\": \"%s\", %s}", owner, is_var ? "variable" : "group",
                          name, body);
}

static void
set_attr (NczGroup *grp, NczVariable *var, NczAttribute *a, const char *what)
{
  GError *error = NULL;
  gboolean ok = var ? ncz_variable_set_attribute (var, a, &error)
                    : ncz_group_set_attribute (grp, a, &error);
  if (!ok)
    die (what, error);
  g_object_unref (a);
}

/* A numeric attribute of @n values following the formula. */
static void
num_attr (Ctx *ctx, NczGroup *grp, NczVariable *var, const char *owner,
          const char *name, NczDataType t, guint n)
{
  GError *error = NULL;
  guint seed;
  gsize es = ncz_data_type_get_size (t);
  guint8 *buf;
  NczAttribute *a;
  char *body;

  if (!ctx->full && n > 1 && ncz_data_type_is_integer (t))
    return;
  seed = ctx->next_seed++;
  buf = g_malloc0 (n * es);

  for (guint i = 0; i < n; i++)
    interop_value_at (t, i + 31 * (guint64) seed, buf + i * es);
  a = ncz_attribute_new_values (name, t, buf, n, &error);
  if (a == NULL)
    die (name, error);
  set_attr (grp, var, a, name);
  body = g_strdup_printf ("\"type\": \"%s\", \"n\": %u, \"seed\": %u", ncz_data_type_get_name (t), n, seed);
  record_attr (ctx, owner, var != NULL, name, body);
  g_free (body);
  g_free (buf);
}

static void
text_attr (Ctx *ctx, NczGroup *grp, NczVariable *var, const char *owner,
           const char *name, const char *text)
{
  GString *body = g_string_new ("\"type\": \"char\", \"text\": ");

  set_attr (grp, var, ncz_attribute_new_text (name, text, -1), name);
  append_json_string (body, text);
  record_attr (ctx, owner, var != NULL, name, body->str);
  g_string_free (body, TRUE);
}

static void
strings_attr (Ctx *ctx, NczGroup *grp, NczVariable *var, const char *owner,
              const char *name, const char * const *strings, gssize n)
{
  GString *body = g_string_new ("\"type\": \"string\", \"strings\": [");

  set_attr (grp, var, ncz_attribute_new_strings (name, strings, n), name);
  for (gssize i = 0; i < n; i++)
    {
      if (i)
        g_string_append (body, ", ");
      append_json_string (body, strings[i]);
    }
  g_string_append (body, "]");
  record_attr (ctx, owner, var != NULL, name, body->str);
  g_string_free (body, TRUE);
}

static void
special_attr (Ctx *ctx, NczGroup *grp, const char *name)
{
  GError *error = NULL;
  double v[3] = { NAN, INFINITY, -INFINITY };
  NczAttribute *a = ncz_attribute_new_values (name, NCZ_DATA_TYPE_DOUBLE, v, 3, &error);

  if (a == NULL)
    die (name, error);
  set_attr (grp, NULL, a, name);
  record_attr (ctx, "", FALSE, name,
               "\"type\": \"double\", \"values\": [\"NaN\", \"Infinity\", \"-Infinity\"]");
}

static GBytes *
fill_bytes (NczDataType t, gconstpointer value)
{
  return g_bytes_new (value, ncz_data_type_get_size (t));
}

static void
write_dataset (Ctx *ctx, NczDataset *ds)
{
  NczGroup *root = ncz_dataset_get_root_group (ds);
  NczGroup *g1, *g2, *g3;
  GError *error = NULL;
  char name[64];

  add_dim (ctx, root, "", "x", 7);
  add_dim (ctx, root, "", "y", 5);
  add_dim (ctx, root, "", "n", 6);
  add_dim (ctx, root, "", "s", 3);
  add_dim (ctx, root, "", "c", 4);

  /* Every numeric type: a 7x5 variable in 3x2 chunks (partial edge
   * chunks), rows 1..5 and columns 0..2 written; unwritten chunks and
   * elements read as the default fill. */
  for (guint t = 0; t < G_N_ELEMENTS (numeric_types); t++)
    {
      VarSpec vs = { root, "", NULL, numeric_types[t], 2, { "x", "y" }, { 3, 2 },
                     { 1, 0 }, { 5, 3 }, FALSE, FALSE, NULL, FALSE, 0 };
      g_snprintf (name, sizeof name, "t_%s", ncz_data_type_get_name (numeric_types[t]));
      vs.name = name;
      make_var (ctx, &vs);
    }

  /* Every numeric type, 1-D, written whole, two chunks (the last partial). */
  for (guint t = 0; t < G_N_ELEMENTS (numeric_types); t++)
    {
      VarSpec vs = { root, "", NULL, numeric_types[t], 1, { "n" }, { 4 },
                     { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
      NczVariable *v;
      g_snprintf (name, sizeof name, "f_%s", ncz_data_type_get_name (numeric_types[t]));
      vs.name = name;
      v = make_var (ctx, &vs);
      if (numeric_types[t] == NCZ_DATA_TYPE_DOUBLE)
        {
          /* a variable carrying an attribute of every type */
          for (guint a = 0; a < G_N_ELEMENTS (numeric_types); a++)
            {
              char an[64];
              g_snprintf (an, sizeof an, "va_%s", ncz_data_type_get_name (numeric_types[a]));
              num_attr (ctx, root, v, "f_double", an, numeric_types[a], 1);
              g_snprintf (an, sizeof an, "vv_%s", ncz_data_type_get_name (numeric_types[a]));
              num_attr (ctx, root, v, "f_double", an, numeric_types[a], 3);
            }
          text_attr (ctx, root, v, "f_double", "long_name", "a double variable");
          if (ctx->full)
            {
              static const char *const s[] = { "one", "two words", "" };
              strings_attr (ctx, root, v, "f_double", "labels", s, 3);
            }
        }
      if (numeric_types[t] == NCZ_DATA_TYPE_INT)
        {
          text_attr (ctx, root, v, "f_int", "units", "m s-1");
          num_attr (ctx, root, v, "f_int", "valid_range", NCZ_DATA_TYPE_INT, 2);
        }
    }

  /* User fill values */
  {
    float fnan = NAN, f15 = 1.5e-3f, fsc = 7.5f;
    double dninf = -INFINITY, dprec = 1.23456789012345;
    guint64 umax = G_MAXUINT64;
    gint8 bfill = -5;
    gint32 ibe = 42;
    struct { const char *name; NczDataType t; gconstpointer fill; } fills[] = {
      { "fill_nan", NCZ_DATA_TYPE_FLOAT, &fnan },
      { "fill_ninf", NCZ_DATA_TYPE_DOUBLE, &dninf },
      { "fill_u64max", NCZ_DATA_TYPE_UINT64, &umax },
      { "fill_d", NCZ_DATA_TYPE_DOUBLE, &dprec },
      { "fill_b", NCZ_DATA_TYPE_BYTE, &bfill },
      { "fill_f", NCZ_DATA_TYPE_FLOAT, &f15 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (fills); i++)
      {
        VarSpec vs = { root, "", fills[i].name, fills[i].t, 2, { "x", "y" }, { 3, 2 },
                       { 2, 1 }, { 3, 3 }, FALSE, FALSE, NULL, FALSE, 0 };
        vs.fill = fill_bytes (fills[i].t, fills[i].fill);
        make_var (ctx, &vs);
        g_bytes_unref (vs.fill);
      }

    /* Big-endian variables */
    if (ctx->full)
      {
        static const NczDataType be[] = { NCZ_DATA_TYPE_SHORT, NCZ_DATA_TYPE_USHORT, NCZ_DATA_TYPE_INT,
                                      NCZ_DATA_TYPE_UINT, NCZ_DATA_TYPE_INT64, NCZ_DATA_TYPE_UINT64,
                                      NCZ_DATA_TYPE_FLOAT, NCZ_DATA_TYPE_DOUBLE };
        for (guint i = 0; i < G_N_ELEMENTS (be); i++)
          {
            VarSpec vs = { root, "", NULL, be[i], 2, { "x", "y" }, { 3, 2 },
                           { 1, 1 }, { 4, 4 }, FALSE, FALSE, NULL, TRUE, 0 };
            g_snprintf (name, sizeof name, "be_%s", ncz_data_type_get_name (be[i]));
            vs.name = name;
            if (be[i] == NCZ_DATA_TYPE_INT)
              vs.fill = fill_bytes (NCZ_DATA_TYPE_INT, &ibe);
            make_var (ctx, &vs);
            if (vs.fill)
              g_bytes_unref (vs.fill);
          }
      }

    /* Scalars */
    {
      static const NczDataType sc[] = { NCZ_DATA_TYPE_INT, NCZ_DATA_TYPE_DOUBLE, NCZ_DATA_TYPE_UBYTE,
                                    NCZ_DATA_TYPE_UINT64 };
      for (guint i = 0; i < G_N_ELEMENTS (sc); i++)
        {
          VarSpec vs = { root, "", NULL, sc[i], 0, { NULL }, { 0 },
                         { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
          g_snprintf (name, sizeof name, "sc_%s", ncz_data_type_get_name (sc[i]));
          vs.name = name;
          make_var (ctx, &vs);
        }
      {
        VarSpec vs = { root, "", "sc_fill", NCZ_DATA_TYPE_FLOAT, 0, { NULL }, { 0 },
                       { 0 }, { 0 }, FALSE, TRUE, NULL, FALSE, 0 };
        vs.fill = fill_bytes (NCZ_DATA_TYPE_FLOAT, &fsc);
        make_var (ctx, &vs);
        g_bytes_unref (vs.fill);
      }
    }
  }

  /* Strings and chars */
  if (ctx->full)
    {
      VarSpec str = { root, "", "str", NCZ_DATA_TYPE_STRING, 1, { "s" }, { 0 },
                      { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
      VarSpec str8 = { root, "", "str8", NCZ_DATA_TYPE_STRING, 2, { "x", "y" }, { 3, 2 },
                       { 1, 0 }, { 5, 3 }, FALSE, FALSE, NULL, FALSE, 8 };
      VarSpec scs = { root, "", "sc_string", NCZ_DATA_TYPE_STRING, 0, { NULL }, { 0 },
                      { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
      VarSpec chars = { root, "", "chars", NCZ_DATA_TYPE_CHAR, 2, { "s", "c" }, { 0 },
                        { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
      VarSpec chars2 = { root, "", "chars2", NCZ_DATA_TYPE_CHAR, 2, { "x", "y" }, { 3, 2 },
                         { 1, 0 }, { 5, 3 }, FALSE, FALSE, NULL, FALSE, 0 };
      make_var (ctx, &str);
      make_var (ctx, &str8);
      make_var (ctx, &scs);
      make_var (ctx, &chars);
      make_var (ctx, &chars2);
    }

  /* Global attributes of every type, scalars and vectors */
  for (guint t = 0; t < G_N_ELEMENTS (numeric_types); t++)
    {
      g_snprintf (name, sizeof name, "a_%s", ncz_data_type_get_name (numeric_types[t]));
      num_attr (ctx, root, NULL, "", name, numeric_types[t], 1);
      g_snprintf (name, sizeof name, "av_%s", ncz_data_type_get_name (numeric_types[t]));
      num_attr (ctx, root, NULL, "", name, numeric_types[t], 3);
    }
  text_attr (ctx, root, NULL, "", "title", "Ncz interoperability test");
  if (ctx->full)
    {
      static const char *const s[] = { "alpha", "beta gamma", "" };
      static const char *const one[] = { "single" };
      strings_attr (ctx, root, NULL, "", "a_strings", s, 3);
      strings_attr (ctx, root, NULL, "", "a_string1", one, 1);
      special_attr (ctx, root, "a_special");
    }

  /* Nested groups */
  g1 = ncz_group_add_group (root, "g1", &error);
  if (g1 == NULL)
    die ("g1", error);
  add_dim (ctx, g1, "g1", "z", 4);
  {
    VarSpec v = { g1, "g1", "v", NCZ_DATA_TYPE_INT, 2, { "x", "z" }, { 3, 3 },
                  { 0, 1 }, { 4, 2 }, FALSE, FALSE, NULL, FALSE, 0 };
    VarSpec d = { g1, "g1", "d", NCZ_DATA_TYPE_DOUBLE, 1, { "z" }, { 0 },
                  { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
    NczVariable *dv;
    make_var (ctx, &v);
    dv = make_var (ctx, &d);
    text_attr (ctx, g1, dv, "g1/d", "units", "K");
  }
  num_attr (ctx, g1, NULL, "g1", "g_int", NCZ_DATA_TYPE_INT, 1);
  text_attr (ctx, g1, NULL, "g1", "g_text", "group one");

  g2 = ncz_group_add_group (g1, "g2", &error);
  if (g2 == NULL)
    die ("g1/g2", error);
  {
    VarSpec w = { g2, "g1/g2", "w", NCZ_DATA_TYPE_SHORT, 2, { "z", "y" }, { 2, 2 },
                  { 1, 1 }, { 3, 3 }, FALSE, FALSE, NULL, FALSE, 0 };
    make_var (ctx, &w);
    if (ctx->full)
      {
        VarSpec s = { g2, "g1/g2", "s", NCZ_DATA_TYPE_STRING, 1, { "z" }, { 0 },
                      { 0 }, { 0 }, TRUE, FALSE, NULL, FALSE, 0 };
        make_var (ctx, &s);
      }
  }
  num_attr (ctx, g2, NULL, "g1/g2", "g2_double", NCZ_DATA_TYPE_DOUBLE, 2);

  g3 = ncz_group_add_group (root, "g3", &error);
  if (g3 == NULL)
    die ("g3", error);
  text_attr (ctx, g3, NULL, "g3", "comment", "a group holding only an attribute");
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  NczDataset *ds;
  Ctx ctx = { 0 };
  GString *out;
  const char *url, *manifest;
  NczUrl *u;

  if (argc < 3)
    {
      g_printerr ("usage: write-all URL MANIFEST [--profile=full|ncdump]\n");
      return 2;
    }
  url = argv[1];
  manifest = argv[2];
  ctx.full = !(argc > 3 && g_str_equal (argv[3], "--profile=ncdump"));
  ctx.vars = g_string_new ("[");
  ctx.attrs = g_string_new ("[");
  ctx.dims = g_string_new ("[");

  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  if (ds == NULL)
    die (url, error);
  write_dataset (&ctx, ds);
  if (!ncz_dataset_close (ds, NULL, &error))
    die ("close", error);
  g_object_unref (ds);

  u = ncz_url_parse (url, &error);
  if (u == NULL)
    die (url, error);

  out = g_string_new ("{\n\"url\": ");
  append_json_string (out, url);
  g_string_append (out, ",\n\"path\": ");
  append_json_string (out, ncz_url_get_local_path (u) ? ncz_url_get_local_path (u) : "");
  g_string_append_printf (out, ",\n\"mode\": \"%s\",\n\"profile\": \"%s\",\n",
                          ncz_url_is_pure_zarr (u) ? "zarr" : "nczarr",
                          ctx.full ? "full" : "ncdump");
  g_string_append_printf (out, "\"dimensions\": %s],\n\"variables\": %s],\n"
                          "\"attributes\": %s]\n}\n",
                          ctx.dims->str, ctx.vars->str, ctx.attrs->str);
  if (!g_file_set_contents (manifest, out->str, (gssize) out->len, &error))
    die (manifest, error);

  g_object_unref (u);
  g_string_free (out, TRUE);
  g_string_free (ctx.vars, TRUE);
  g_string_free (ctx.attrs, TRUE);
  g_string_free (ctx.dims, TRUE);
  return 0;
}
