/* ncz-copy.c: copy a dataset, changing chunking and filters, as nccopy does
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
#include <ncz/ncz-module.h>

#include "ncz-copy-chunks.h"
#include "ncz-copy-data.h"
#include "ncz-copy-filters.h"
#include "ncz-copy-progress.h"

/* The values held at once, unless -m says otherwise: whatever the size
 * of the variables (see ncz-copy-data.c). */
#define DEFAULT_MEMORY_BYTES (64u * 1024 * 1024)

typedef struct
{
  NczVariable *input;
  NczVariable *output;
} VariablePair;

typedef struct
{
  /* options */
  CopyFilterRules *filters;
  CopyChunkRules *chunks;
  gboolean fix_unlimited;     /* -u */
  gsize memory_bytes;         /* -m */
  gboolean quiet;             /* -q */

  /* state */
  const char *in_url;
  const char *out_url;
  GHashTable *dimensions;     /* input NczDimension -> output NczDimension */
  GArray *variables;          /* VariablePair, in definition order */
} Copy;

/* ---- definitions ---- */

static NczAttribute *
attribute_copy (NczAttribute *attr, GError **error)
{
  const char *name = ncz_attribute_get_name (attr);
  NczDataType type = ncz_attribute_get_value_type (attr);
  g_autoptr(GBytes) data = NULL;

  if (type == NCZ_DATA_TYPE_STRING)
    return ncz_attribute_new_strings (name, ncz_attribute_get_strings (attr),
                                      (gssize) ncz_attribute_get_length (attr));
  data = ncz_attribute_get_data (attr);
  return ncz_attribute_new (name, type, data, error);
}

static gboolean
define_variable (Copy *c, NczVariable *in, NczGroup *out_group, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (in);
  g_autofree NczDimension **dims = g_new0 (NczDimension *, MAX (rank, 1));
  g_autofree char *fqn = ncz_variable_get_full_name (in);
  g_autoptr(GPtrArray) chain = NULL;
  g_autoptr(GPtrArray) attrs = NULL;
  GError *local = NULL;
  NczVariable *out;
  NczDataType type = ncz_variable_get_value_type (in);
  NczQuantizeMode quantize;
  guint n_digits = 0;
  gboolean fill_attribute = FALSE;
  VariablePair pair;

  for (guint i = 0; i < rank; i++)
    {
      dims[i] = g_hash_table_lookup (c->dimensions, ncz_variable_get_dimension (in, i));
      if (dims[i] == NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s' of '%s': dimension %u is not in scope", fqn,
                       c->in_url, i);
          return FALSE;
        }
    }
  out = ncz_group_add_variable (out_group, ncz_variable_get_name (in), type, rank, dims, &local);
  if (out == NULL)
    return copy_fail_in ("variable", fqn, c->out_url, local, error);

  if (!copy_chunk_rules_apply (c->chunks, in, out, &local))
    return copy_fail_in ("variable", fqn, c->out_url, local, error);

  chain = copy_filter_rules_resolve (c->filters, in, error);
  if (chain == NULL)
    return FALSE;
  if (!copy_filters_apply (chain, out, &local))
    {
      /* a string variable's own compression (plain Zarr strings stored
       * with their lengths take a compressor) cannot follow it where
       * strings take none (NCZarr, netCDF-4): the values are copied,
       * uncompressed; filters asked for with -F still fail */
      if (type != NCZ_DATA_TYPE_STRING || copy_filter_rules_has_rule (c->filters, in) ||
          !g_error_matches (local, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      if (!c->quiet)
        g_printerr ("ncz-copy: %s; the values are copied without compression\n",
                    local->message);
      g_clear_error (&local);
    }

  if (!ncz_variable_set_endianness (out, ncz_variable_get_endianness (in), &local) ||
      !ncz_variable_set_no_fill (out, ncz_variable_get_no_fill (in), &local))
    return copy_fail_in ("variable", fqn, c->out_url, local, error);

  if (type == NCZ_DATA_TYPE_STRING)
    ncz_variable_set_max_string_length (out, ncz_variable_get_max_string_length (in));
  /* "|b1", "f2": kept when the output is plain Zarr */
  ncz_variable_set_storage_dtype (out, ncz_variable_get_storage_dtype (in));

  quantize = ncz_variable_get_quantize (in, &n_digits);
  if (quantize != NCZ_QUANTIZE_NONE &&
      !ncz_variable_set_quantize (out, quantize, n_digits, &local))
    return copy_fail_in ("variable", fqn, c->out_url, local, error);

  attrs = ncz_variable_get_attributes (in);
  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      g_autoptr(NczAttribute) copy = attribute_copy (a, &local);
      if (g_str_equal (ncz_attribute_get_name (a), "_FillValue"))
        fill_attribute = TRUE;
      if (copy == NULL || !ncz_variable_set_attribute (out, copy, &local))
        {
          g_autofree char *what = g_strdup_printf ("%s:%s", fqn, ncz_attribute_get_name (a));
          return copy_fail_in ("attribute", what, c->out_url, local, error);
        }
    }
  /* a fill value the input stores without a _FillValue attribute (pure
   * Zarr's fill_value of an array without _ARRAY_DIMENSIONS) still
   * decides what unwritten elements read as, and stays no _FillValue:
   * values equal to it are data */
  if (!fill_attribute && ncz_variable_has_user_fill_value (in))
    {
      g_autoptr(GBytes) fill = ncz_variable_get_fill_value (in);
      g_autoptr(GBytes) standard = ncz_data_type_get_default_fill (type);
      if (!g_bytes_equal (fill, standard))
        ncz_variable_set_storage_fill_value (out, fill);
    }

  pair.input = in;
  pair.output = out;
  g_array_append_val (c->variables, pair);
  return TRUE;
}

static gboolean
define_group (Copy *c, NczGroup *in, NczGroup *out, GError **error)
{
  g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (in);
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (in);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (in);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (in);
  g_autofree char *gname = ncz_group_get_full_name (in);
  GError *local = NULL;

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      g_autoptr(NczAttribute) copy = attribute_copy (a, &local);
      if (copy == NULL || !ncz_group_set_attribute (out, copy, &local))
        {
          g_autofree char *what = g_strdup_printf ("%s:%s", gname, ncz_attribute_get_name (a));
          return copy_fail_in ("attribute", what, c->out_url, local, error);
        }
    }
  for (guint i = 0; i < dims->len; i++)
    {
      NczDimension *d = g_ptr_array_index (dims, i);
      gboolean unlimited = ncz_dimension_is_unlimited (d) && !c->fix_unlimited;
      NczDimension *copy = ncz_group_add_dimension (out, ncz_dimension_get_name (d),
                                                    ncz_dimension_get_length (d),
                                                    unlimited, &local);
      if (copy == NULL)
        {
          g_autofree char *dname = ncz_dimension_get_full_name (d);
          return copy_fail_in ("dimension", dname, c->out_url, local, error);
        }
      g_hash_table_insert (c->dimensions, d, copy);
    }
  for (guint i = 0; i < vars->len; i++)
    if (!define_variable (c, g_ptr_array_index (vars, i), out, error))
      return FALSE;
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *sub = g_ptr_array_index (groups, i);
      NczGroup *copy = ncz_group_add_group (out, ncz_group_get_name (sub), &local);
      if (copy == NULL)
        {
          g_autofree char *sname = ncz_group_get_full_name (sub);
          return copy_fail_in ("group", sname, c->out_url, local, error);
        }
      if (!define_group (c, sub, copy, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- main ---- */

static gboolean
same_dataset (const char *a, const char *b)
{
  g_autoptr(NczUrl) ua = ncz_url_parse (a, NULL);
  g_autoptr(NczUrl) ub = ncz_url_parse (b, NULL);
  const char *pa, *pb;

  if (ua == NULL || ub == NULL)
    return g_str_equal (a, b);
  pa = ncz_url_get_local_path (ua);
  pb = ncz_url_get_local_path (ub);
  if (pa != NULL && pb != NULL)
    {
      g_autofree char *ca = g_canonicalize_filename (pa, NULL);
      g_autofree char *cb = g_canonicalize_filename (pb, NULL);
      return g_str_equal (ca, cb);
    }
  return g_strcmp0 (ncz_url_get_scheme (ua), ncz_url_get_scheme (ub)) == 0 &&
         g_strcmp0 (ncz_url_get_host (ua), ncz_url_get_host (ub)) == 0 &&
         ncz_url_get_port (ua) == ncz_url_get_port (ub) &&
         g_strcmp0 (ncz_url_get_path (ua), ncz_url_get_path (ub)) == 0;
}

static void
usage (FILE *out, const char *prog)
{
  fprintf (out,
           "Usage: %s [OPTION...] IN OUT\n"
           "Copy the dataset at URL IN to a new dataset at URL OUT, as nccopy does.\n"
           "\n"
           "  -F FILTERSPEC    filters of the output variables: VARS,ID[,PARAMS][|ID,...],\n"
           "                   VARS,none or none; VARS is '*' or names joined by '&'\n"
           "  -d LEVEL         deflate every variable at LEVEL (0: no deflate, no shuffle)\n"
           "  -s               shuffle before deflating (with -d LEVEL > 0)\n"
           "  -c CHUNKSPEC     chunking: DIM/LEN,DIM2/LEN2,...  VAR:LEN,LEN,...  VAR:  /\n"
           "  -u               make unlimited dimensions fixed size\n"
           "  -m SIZE          memory for data in flight (suffix K, M, G; default 64 MiB)\n"
           "  -k KIND          output kind: only nc4 / netCDF-4 (the URL picks the format)\n"
           "  -N               refuse to replace an existing dataset at OUT\n"
           "  -q               no progress bar\n"
           "  -w -r -h N -e N -M N -L N   accepted for nccopy compatibility; no effect\n"
           "  --help           show this help and exit\n"
           "  --version        show the version and exit\n",
           prog);
}

static gboolean
parse_size (const char *text, gsize *value)
{
  char *end = NULL;
  double v;

  errno = 0;
  v = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || v <= 0)
    return FALSE;
  switch (g_ascii_toupper (*end))
    {
    case '\0': break;
    case 'K': v *= 1e3; end++; break;
    case 'M': v *= 1e6; end++; break;
    case 'G': v *= 1e9; end++; break;
    case 'T': v *= 1e12; end++; break;
    default: return FALSE;
    }
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end != '\0' || v < 1 || v > (double) (G_MAXSIZE / 2))
    return FALSE;
  *value = (gsize) v;
  return TRUE;
}

static int
die (const char *prog, const char *message)
{
  fflush (stdout);
  fprintf (stderr, "%s: %s\n", prog, message);
  return EXIT_FAILURE;
}

static gboolean
kind_is_netcdf4 (const char *kind)
{
  static const char *const ok[] = { "nc4", "netCDF-4", "netcdf-4", "4", "enhanced", NULL };
  return g_strv_contains (ok, kind);
}

int
main (int argc, char *argv[])
{
  static const struct option long_options[] = {
    { "help", no_argument, NULL, 'H' },
    { "version", no_argument, NULL, 'I' },
    { "quiet", no_argument, NULL, 'q' },
    { "no-clobber", no_argument, NULL, 'N' },
    { NULL, 0, NULL, 0 },
  };
  const char *prog = "ncz-copy";
  g_autoptr(CopyFilterRules) filters = copy_filter_rules_new ();
  g_autoptr(CopyChunkRules) chunks = copy_chunk_rules_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) in = NULL;
  g_autoptr(NczDataset) out = NULL;
  g_autoptr(GHashTable) dimensions = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) variables = g_array_new (FALSE, FALSE, sizeof (VariablePair));
  g_autoptr(CopyProgress) progress = NULL;
  Copy c = { 0 };
  CopyData data = { 0 };
  gboolean quiet = FALSE, no_clobber = FALSE, shuffle = FALSE;
  int deflate = -1;
  guint64 total = 0;
  int opt;

  c.memory_bytes = DEFAULT_MEMORY_BYTES;
  opterr = 0;
  while ((opt = getopt_long (argc, argv, ":F:d:sc:um:k:Nqwrh:e:M:L:v:V:g:G:34679",
                             long_options, NULL)) != -1)
    {
      switch (opt)
        {
        case 'F':
          if (!copy_filter_rules_add (filters, optarg, &error))
            return die (prog, error->message);
          break;
        case 'c':
          if (!copy_chunk_rules_add (chunks, optarg, &error))
            return die (prog, error->message);
          break;
        case 'd':
          {
            char *end = NULL;
            long level;
            errno = 0;
            level = strtol (optarg, &end, 10);
            if (errno || end == optarg || *end != '\0' || level < 0 || level > 9)
              {
                g_autofree char *m = g_strdup_printf ("-d %s: the deflate level is 0 to 9", optarg);
                return die (prog, m);
              }
            deflate = (int) level;
          }
          break;
        case 's': shuffle = TRUE; break;
        case 'u': c.fix_unlimited = TRUE; break;
        case 'm':
          if (!parse_size (optarg, &c.memory_bytes))
            {
              g_autofree char *m = g_strdup_printf ("-m %s: not a buffer size", optarg);
              return die (prog, m);
            }
          break;
        case 'k':
          if (!kind_is_netcdf4 (optarg))
            {
              g_autofree char *m = g_strdup_printf (
                "-k %s: only netCDF-4 (nc4) output is possible; the output URL's mode "
                "chooses NCZarr or Zarr", optarg);
              return die (prog, m);
            }
          break;
        case '4': break;
        case '3': case '6': case '7': case '9':
          {
            g_autofree char *m = g_strdup_printf (
              "-%c: only netCDF-4 (-4) output is possible", opt);
            return die (prog, m);
          }
        case 'N': no_clobber = TRUE; break;
        case 'q': quiet = TRUE; break;
        case 'w': case 'r': case 'h': case 'e': case 'M': case 'L':
          break;   /* tuning options of netCDF's library: nothing to do here */
        case 'v': case 'V': case 'g': case 'G':
          {
            g_autofree char *m = g_strdup_printf (
              "-%c: copying a selection of variables or groups is not supported", opt);
            return die (prog, m);
          }
        case 'H':
          usage (stdout, prog);
          return EXIT_SUCCESS;
        case 'I':
          printf ("%s (Ncz) %s\n", prog, NCZ_VERSION_STRING);
          return EXIT_SUCCESS;
        case ':':
          {
            g_autofree char *m = g_strdup_printf ("option -%c needs an argument", optopt);
            usage (stderr, prog);
            return die (prog, m);
          }
        default:
          {
            g_autofree char *m = optopt ? g_strdup_printf ("unknown option -%c", optopt)
                                        : g_strdup_printf ("unknown option %s", argv[optind - 1]);
            usage (stderr, prog);
            return die (prog, m);
          }
        }
    }
  if (argc - optind != 2)
    {
      usage (stderr, prog);
      return EXIT_FAILURE;
    }
  copy_filter_rules_set_deflate (filters, deflate, shuffle);
  c.in_url = argv[optind];
  c.out_url = argv[optind + 1];
  c.filters = filters;
  c.quiet = quiet;
  c.chunks = chunks;
  c.dimensions = dimensions;
  c.variables = variables;

  if (same_dataset (c.in_url, c.out_url))
    {
      g_autofree char *m = g_strdup_printf ("'%s' and '%s' are the same dataset", c.in_url,
                                            c.out_url);
      return die (prog, m);
    }

  in = ncz_dataset_open (c.in_url, NCZ_OPEN_READ, NULL, &error);
  if (in == NULL)
    return die (prog, error->message);
  if (!copy_filter_rules_check (filters, ncz_dataset_get_root_group (in), c.in_url, &error) ||
      !copy_chunk_rules_check (chunks, ncz_dataset_get_root_group (in), c.in_url, &error))
    return die (prog, error->message);

  out = ncz_dataset_create (c.out_url, no_clobber ? NCZ_CREATE_NO_CLOBBER : NCZ_CREATE_DEFAULT,
                            NULL, &error);
  if (out == NULL)
    return die (prog, error->message);
  /* from here on a failure discards the output: a dataset that was at
   * OUT before stays as it was (on stores that stage a replacement) */
  if (!define_group (&c, ncz_dataset_get_root_group (in), ncz_dataset_get_root_group (out),
                     &error))
    {
      ncz_dataset_discard (out);
      return die (prog, error->message);
    }

  for (guint i = 0; i < variables->len; i++)
    total += copy_data_get_bytes (g_array_index (variables, VariablePair, i).input);
  progress = copy_progress_new (stderr, !quiet && isatty (STDERR_FILENO), total);
  data.in_url = c.in_url;
  data.out_url = c.out_url;
  data.in = in;
  data.progress = progress;
  data.memory_bytes = c.memory_bytes;
  for (guint i = 0; i < variables->len; i++)
    {
      VariablePair *p = &g_array_index (variables, VariablePair, i);
      g_autofree char *name = ncz_variable_get_full_name (p->input);
      copy_progress_begin_variable (progress, name);
      if (!copy_data (&data, p->input, p->output, &error))
        {
          if (!quiet && isatty (STDERR_FILENO))
            fputc ('\n', stderr);
          ncz_dataset_discard (out);
          return die (prog, error->message);
        }
    }

  if (!ncz_dataset_close (out, NULL, &error))
    return die (prog, error->message);
  copy_progress_finish (progress, variables->len);
  if (!ncz_dataset_close (in, NULL, &error))
    return die (prog, error->message);
  return EXIT_SUCCESS;
}
