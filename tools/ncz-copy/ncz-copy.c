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
#include "ncz-copy-filters.h"
#include "ncz-copy-progress.h"

/* Default size of the pieces data is copied in (nccopy's -m default). */
#define DEFAULT_BUFFER_BYTES 5000000u

/* Chunks read at once take at most this much memory (or -m if larger),
 * and as much again for the box they are written as. */
#define WINDOW_BUDGET_BYTES (32u * 1024 * 1024)

/* A chunk up to this many times the copy buffer is still copied whole. */
#define CHUNK_COPY_FACTOR 8

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
  gsize buffer_bytes;         /* -m */
  guint window;               /* chunks read at once */
  gboolean quiet;             /* -q */

  /* state */
  const char *in_url;
  const char *out_url;
  NczDataset *in;
  GHashTable *dimensions;     /* input NczDimension -> output NczDimension */
  GArray *variables;          /* VariablePair, in definition order */
  CopyProgress *progress;
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
fail_in (const char *what, const char *name, const char *url, GError *local, GError **error)
{
  g_set_error (error, local->domain, local->code, "%s '%s' of '%s': %s", what, name, url,
               local->message);
  g_error_free (local);
  return FALSE;
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
    return fail_in ("variable", fqn, c->out_url, local, error);

  if (!copy_chunk_rules_apply (c->chunks, in, out, &local))
    return fail_in ("variable", fqn, c->out_url, local, error);

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
    return fail_in ("variable", fqn, c->out_url, local, error);

  if (type == NCZ_DATA_TYPE_STRING)
    ncz_variable_set_max_string_length (out, ncz_variable_get_max_string_length (in));
  /* "|b1", "f2": kept when the output is plain Zarr */
  ncz_variable_set_storage_dtype (out, ncz_variable_get_storage_dtype (in));

  quantize = ncz_variable_get_quantize (in, &n_digits);
  if (quantize != NCZ_QUANTIZE_NONE &&
      !ncz_variable_set_quantize (out, quantize, n_digits, &local))
    return fail_in ("variable", fqn, c->out_url, local, error);

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
          return fail_in ("attribute", what, c->out_url, local, error);
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
          return fail_in ("attribute", what, c->out_url, local, error);
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
          return fail_in ("dimension", dname, c->out_url, local, error);
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
          return fail_in ("group", sname, c->out_url, local, error);
        }
      if (!define_group (c, sub, copy, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- data ---- */

static gsize
element_size (NczVariable *v)
{
  if (ncz_variable_get_value_type (v) == NCZ_DATA_TYPE_STRING)
    return ncz_variable_get_storage_element_size (v);
  return ncz_data_type_get_size (ncz_variable_get_value_type (v));
}

static guint64
variable_bytes (NczVariable *v)
{
  return ncz_variable_get_n_elements (v) * element_size (v);
}

/* Copies the first @count elements along each dimension of a chunk laid
 * out with lengths @chunk (C order) into @dst, an array of lengths
 * @dst_count, at element position @at. */
static void
place_chunk (const guint8 *src, const guint64 *chunk, const guint64 *count, guint rank,
             gsize es, guint8 *dst, const guint64 *dst_count, const guint64 *at)
{
  g_autofree guint64 *idx = g_new0 (guint64, rank);
  gsize row = (gsize) count[rank - 1] * es;

  for (;;)
    {
      guint64 from = 0, to = 0;
      gint d;

      for (guint i = 0; i < rank; i++)
        {
          from = from * chunk[i] + idx[i];
          to = to * dst_count[i] + at[i] + idx[i];
        }
      memcpy (dst + to * es, src + from * es, row);
      for (d = (gint) rank - 2; d >= 0; d--)
        {
          if (++idx[d] < count[d])
            break;
          idx[d] = 0;
        }
      if (d < 0)
        break;
    }
}

static gboolean
write_piece (Copy *c, NczVariable *out, guint rank, const guint64 *start,
             const guint64 *count, gconstpointer data, gsize size, GError **error)
{
  GError *local = NULL;
  if (!ncz_variable_write (out, start, rank, count, rank, NULL, 0, data, size, NULL, &local))
    {
      g_autofree char *name = ncz_variable_get_full_name (out);
      return fail_in ("variable", name, c->out_url, local, error);
    }
  return TRUE;
}

/* One chunk read on Ncz's worker pool */
typedef struct
{
  NczFormat *format;
  NczVariable *variable;
  guint64 *index;
  GBytes *data;          /* decoded; NULL when never written or on error */
  GError *error;
} ChunkRead;

static void
chunk_read_run (gpointer item, gpointer user_data)
{
  ChunkRead *r = item;

  r->data = ncz_format_read_chunk (r->format, r->variable, r->index, NULL, &r->error);
}

/* Reads the chunks of @reads at once (reads of one dataset are safe
 * from several threads) and waits for all of them. */
static void
read_chunks (ChunkRead *reads, guint n)
{
  g_autofree gpointer *items = g_new (gpointer, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    items[i] = &reads[i];
  ncz_parallel_for (items, n, chunk_read_run, NULL);
}

/* The elements of chunk @index inside the variable: where they start and
 * how many along each dimension; returns their number. */
static guint64
chunk_extent (const guint64 *index, const guint64 *chunk, const guint64 *shape, guint rank,
              guint64 *start, guint64 *count)
{
  guint64 n = 1;
  for (guint i = 0; i < rank; i++)
    {
      start[i] = index[i] * chunk[i];
      count[i] = MIN (chunk[i], shape[i] - start[i]);
      n *= count[i];
    }
  return n;
}

/* Copies chunk by chunk when input and output share their chunk shape:
 * chunks never written in the input are not written in the output. The
 * chunks are taken a box at a time (up to c->window of them, whole
 * trailing rows of the chunk grid first), read on the thread pool, and a
 * box whose chunks all exist is written with one call, so the output's
 * codecs run on every core too; in a box with unwritten chunks the
 * others are written one by one. *@unsupported is set when the input
 * format cannot hand out chunks. */
static gboolean
copy_by_chunks (Copy *c, NczVariable *in, NczVariable *out, const guint64 *shape,
                const guint64 *chunk, gboolean *unsupported, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (in);
  gsize es = element_size (in);
  NczFormat *format = ncz_dataset_get_format (c->in);
  g_autofree guint64 *grid = g_new0 (guint64, rank);
  g_autofree guint64 *lo = g_new0 (guint64, rank);
  g_autofree guint64 *hi = g_new0 (guint64, rank);
  g_autofree guint64 *idx = g_new0 (guint64, rank);
  g_autofree guint64 *start = g_new0 (guint64, rank);
  g_autofree guint64 *count = g_new0 (guint64, rank);
  g_autofree guint64 *box_start = g_new0 (guint64, rank);
  g_autofree guint64 *box_count = g_new0 (guint64, rank);
  g_autofree guint64 *at = g_new0 (guint64, rank);
  g_autofree ChunkRead *reads = g_new0 (ChunkRead, c->window);
  g_autofree guint8 *buffer = NULL;
  gsize buffer_size = 0;
  guint64 tail = 1, span, chunk_bytes = es;
  guint k = rank, window;
  gboolean first = TRUE;
  gboolean ok = TRUE;

  *unsupported = FALSE;
  for (guint i = 0; i < rank; i++)
    {
      grid[i] = (shape[i] + chunk[i] - 1) / chunk[i];
      chunk_bytes *= chunk[i];
    }
  /* the chunks read and the box built from them stay within the budget */
  window = (guint) CLAMP (MAX (c->buffer_bytes, WINDOW_BUDGET_BYTES) / MAX (chunk_bytes, 1),
                          1, c->window);
  /* dimensions k.. are spanned whole, dimension k-1 by @span chunks */
  while (k > 0 && tail * grid[k - 1] <= window)
    tail *= grid[--k];
  span = MAX (1, window / tail);

  while (ok)
    {
      guint n = 0;
      gboolean all_present = TRUE;
      guint64 box_n = 1;

      for (guint i = 0; i < rank; i++)
        {
          if (i + 1 < k)
            hi[i] = lo[i];
          else if (i + 1 == k)
            hi[i] = MIN (lo[i] + span, grid[i]) - 1;
          else
            hi[i] = grid[i] - 1;
          idx[i] = lo[i];
          box_start[i] = lo[i] * chunk[i];
          box_count[i] = MIN ((hi[i] + 1) * chunk[i], shape[i]) - box_start[i];
          box_n *= box_count[i];
        }

      /* the chunks of the box, in C order */
      for (;;)
        {
          ChunkRead *r = &reads[n++];
          r->format = format;
          r->variable = in;
          r->index = g_memdup2 (idx, rank * sizeof (guint64));
          gint d;
          for (d = (gint) rank - 1; d >= 0; d--)
            {
              if (++idx[d] <= hi[d])
                break;
              idx[d] = lo[d];
            }
          if (d < 0)
            break;
        }
      read_chunks (reads, n);

      for (guint j = 0; j < n && ok; j++)
        {
          ChunkRead *r = &reads[j];
          if (r->data != NULL)
            continue;
          all_present = FALSE;
          if (first && g_error_matches (r->error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED))
            {
              *unsupported = TRUE;
              ok = FALSE;
            }
          else if (!g_error_matches (r->error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            {
              g_autofree char *name = ncz_variable_get_full_name (in);
              ok = fail_in ("variable", name, c->in_url, g_steal_pointer (&r->error), error);
            }
        }
      first = FALSE;

      if (ok && all_present && n > 1)
        {
          if (buffer_size < box_n * es)
            {
              g_free (buffer);
              buffer_size = box_n * es;
              buffer = g_malloc (buffer_size);
            }
          for (guint j = 0; j < n; j++)
            {
              guint64 cn = chunk_extent (reads[j].index, chunk, shape, rank, start, count);
              for (guint i = 0; i < rank; i++)
                at[i] = start[i] - box_start[i];
              place_chunk (g_bytes_get_data (reads[j].data, NULL), chunk, count, rank, es,
                           buffer, box_count, at);
              copy_progress_add (c->progress, cn * es);
            }
          ok = write_piece (c, out, rank, box_start, box_count, buffer, box_n * es, error);
        }
      else
        for (guint j = 0; j < n && ok; j++)
          {
            ChunkRead *r = &reads[j];
            guint64 cn = chunk_extent (r->index, chunk, shape, rank, start, count);
            gboolean whole = TRUE;

            for (guint i = 0; i < rank; i++)
              whole = whole && count[i] == chunk[i];
            if (r->data != NULL && whole)
              ok = write_piece (c, out, rank, start, count, g_bytes_get_data (r->data, NULL),
                                g_bytes_get_size (r->data), error);
            else if (r->data != NULL)
              {
                if (buffer_size < cn * es)
                  {
                    g_free (buffer);
                    buffer_size = cn * es;
                    buffer = g_malloc (buffer_size);
                  }
                for (guint i = 0; i < rank; i++)
                  at[i] = 0;
                place_chunk (g_bytes_get_data (r->data, NULL), chunk, count, rank, es, buffer,
                             count, at);
                ok = write_piece (c, out, rank, start, count, buffer, cn * es, error);
              }
            if (ok)
              copy_progress_add (c->progress, cn * es);
          }

      for (guint j = 0; j < n; j++)
        {
          g_clear_pointer (&reads[j].index, g_free);
          g_clear_pointer (&reads[j].data, g_bytes_unref);
          g_clear_error (&reads[j].error);
        }

      /* next box: odometer over dimensions 0..k-1, dimension k-1 by @span */
      gint d;
      for (d = (gint) k - 1; d >= 0; d--)
        {
          lo[d] += (guint) d + 1 == k ? span : 1;
          if (lo[d] < grid[d])
            break;
          lo[d] = 0;
        }
      if (d < 0)
        break;
    }
  return ok;
}

/* The slab shape: whole output chunks, as many as the buffer holds
 * (growing the innermost dimensions first); within one chunk when a
 * chunk alone is larger than the buffer. */
static void
slab_shape (const guint64 *shape, const guint64 *chunk, guint rank, gsize es,
            gsize budget, guint64 *count)
{
  double bytes = (double) es;

  for (guint i = 0; i < rank; i++)
    {
      count[i] = MAX (1, MIN (chunk ? chunk[i] : shape[i], shape[i]));
      bytes *= (double) count[i];
    }
  if (bytes > (double) budget)
    {
      for (guint i = 0; i < rank && bytes > (double) budget; i++)
        {
          double others = bytes / (double) count[i];
          guint64 fit = (guint64) ((double) budget / others);
          count[i] = MAX (1, fit);
          bytes = others * (double) count[i];
        }
      return;
    }
  for (gint i = (gint) rank - 1; i >= 0; i--)
    {
      guint64 unit = count[i];
      guint64 units = (shape[i] + unit - 1) / unit;
      guint64 fit = (guint64) ((double) budget / bytes);
      guint64 k = MIN (units, fit);

      if (k > 1)
        {
          count[i] = MIN (shape[i], unit * k);
          bytes = bytes / (double) unit * (double) count[i];
        }
      if (count[i] < shape[i])
        break;
    }
}

static gboolean
copy_by_slabs (Copy *c, NczVariable *in, NczVariable *out, const guint64 *shape,
               GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (in);
  gsize es = element_size (in);
  gboolean strings = ncz_variable_get_value_type (in) == NCZ_DATA_TYPE_STRING;
  guint n_chunk = 0;
  const guint64 *chunk = ncz_variable_get_chunk_sizes (out, &n_chunk);
  g_autofree guint64 *slab = g_new0 (guint64, rank);
  g_autofree guint64 *start = g_new0 (guint64, rank);
  g_autofree guint64 *count = g_new0 (guint64, rank);
  g_autofree guint8 *buffer = NULL;
  gsize capacity;

  slab_shape (shape, n_chunk == rank ? chunk : NULL, rank, es, c->buffer_bytes, slab);
  capacity = es;
  for (guint i = 0; i < rank; i++)
    capacity *= slab[i];
  if (!strings)
    buffer = g_malloc (MAX (capacity, 1));

  for (;;)
    {
      GError *local = NULL;
      guint64 n = 1;
      gint d;

      for (guint i = 0; i < rank; i++)
        {
          count[i] = MIN (slab[i], shape[i] - start[i]);
          n *= count[i];
        }
      if (strings)
        {
          g_auto(GStrv) values = ncz_variable_read_strings (in, start, rank, count, rank, NULL, 0, NULL,
                                                            &local);
          if (values == NULL)
            {
              g_autofree char *name = ncz_variable_get_full_name (in);
              return fail_in ("variable", name, c->in_url, local, error);
            }
          if (!ncz_variable_write_strings (out, start, rank, count, rank, NULL, 0,
                                           (const char * const *) values, NULL, &local))
            {
              g_autofree char *name = ncz_variable_get_full_name (out);
              return fail_in ("variable", name, c->out_url, local, error);
            }
        }
      else
        {
          if (!ncz_variable_read (in, start, rank, count, rank, NULL, 0, buffer, n * es, NULL, &local))
            {
              g_autofree char *name = ncz_variable_get_full_name (in);
              return fail_in ("variable", name, c->in_url, local, error);
            }
          if (!write_piece (c, out, rank, start, count, buffer, n * es, error))
            return FALSE;
        }
      copy_progress_add (c->progress, n * es);

      for (d = (gint) rank - 1; d >= 0; d--)
        {
          start[d] += slab[d];
          if (start[d] < shape[d])
            break;
          start[d] = 0;
        }
      if (d < 0)
        break;
    }
  return TRUE;
}

static gboolean
copy_scalar (Copy *c, NczVariable *in, NczVariable *out, GError **error)
{
  GError *local = NULL;

  if (ncz_variable_get_value_type (in) == NCZ_DATA_TYPE_STRING)
    {
      g_auto(GStrv) values = ncz_variable_read_strings (in, NULL, 0, NULL, 0, NULL, 0, NULL, &local);
      if (values == NULL)
        {
          g_autofree char *name = ncz_variable_get_full_name (in);
          return fail_in ("variable", name, c->in_url, local, error);
        }
      if (!ncz_variable_write_strings (out, NULL, 0, NULL, 0, NULL, 0, (const char * const *) values,
                                       NULL, &local))
        {
          g_autofree char *name = ncz_variable_get_full_name (out);
          return fail_in ("variable", name, c->out_url, local, error);
        }
    }
  else
    {
      g_autoptr(GBytes) value = ncz_variable_read_bytes (in, NULL, 0, NULL, 0, NULL, 0, NULL, &local);
      if (value == NULL)
        {
          g_autofree char *name = ncz_variable_get_full_name (in);
          return fail_in ("variable", name, c->in_url, local, error);
        }
      if (!ncz_variable_write_bytes (out, NULL, 0, NULL, 0, NULL, 0, value, NULL, &local))
        {
          g_autofree char *name = ncz_variable_get_full_name (out);
          return fail_in ("variable", name, c->out_url, local, error);
        }
    }
  copy_progress_add (c->progress, element_size (in));
  return TRUE;
}

static gboolean
copy_data (Copy *c, NczVariable *in, NczVariable *out, GError **error)
{
  guint rank = 0, n_in = 0, n_out = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (in, &rank);
  const guint64 *in_chunk = ncz_variable_get_chunk_sizes (in, &n_in);
  const guint64 *out_chunk = ncz_variable_get_chunk_sizes (out, &n_out);
  gboolean same = rank > 0 && n_in == rank && n_out == rank &&
                  memcmp (in_chunk, out_chunk, rank * sizeof (guint64)) == 0;
  guint64 chunk_bytes = element_size (in);

  if (rank == 0)
    return copy_scalar (c, in, out, error);
  if (ncz_variable_get_n_elements (in) == 0)
    return TRUE;
  for (guint i = 0; same && i < rank; i++)
    chunk_bytes *= in_chunk[i];
  if (same && ncz_variable_get_value_type (in) != NCZ_DATA_TYPE_STRING &&
      chunk_bytes <= (guint64) c->buffer_bytes * CHUNK_COPY_FACTOR)
    {
      gboolean unsupported = FALSE;
      if (copy_by_chunks (c, in, out, shape, in_chunk, &unsupported, error))
        return TRUE;
      if (!unsupported)
        return FALSE;
    }
  return copy_by_slabs (c, in, out, shape, error);
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
           "  -m SIZE          copy buffer size in bytes (suffix K, M, G; default 5M)\n"
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
  gboolean quiet = FALSE, no_clobber = FALSE, shuffle = FALSE;
  int deflate = -1;
  guint64 total = 0;
  int opt;

  c.buffer_bytes = DEFAULT_BUFFER_BYTES;
  c.window = MAX (2, 2 * ncz_parallel_get_n_workers ());
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
          if (!parse_size (optarg, &c.buffer_bytes))
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
  c.in = in;
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
    total += variable_bytes (g_array_index (variables, VariablePair, i).input);
  progress = copy_progress_new (stderr, !quiet && isatty (STDERR_FILENO), total);
  c.progress = progress;
  for (guint i = 0; i < variables->len; i++)
    {
      VariablePair *p = &g_array_index (variables, VariablePair, i);
      g_autofree char *name = ncz_variable_get_full_name (p->input);
      copy_progress_begin_variable (progress, name);
      if (!copy_data (&c, p->input, p->output, &error))
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
