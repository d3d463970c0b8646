/* ncz-copy-data.c: copying the values of a variable, as a pipeline
 *
 * The values go from the input to the output in batches: boxes of the
 * variable made of whole chunks. Reader threads take the boxes in order
 * and read each one on every core (Ncz's worker pool decodes its
 * chunks); the calling thread, the writer, writes them in the same order,
 * encoding on every core too, while the readers read the next ones. A
 * box is read at most `window` boxes ahead of the one being written, so
 * the values held at once are window + 1 boxes at most (those being read
 * or waiting and the one being written; one more when boxes are assembled
 * for the output, below), each an equal share of -m, whatever the size
 * of the variable. A remote input (S3) has two readers, so that one has
 * its box's requests in flight while the other waits for its last ones.
 *
 * A box is read in one of two ways:
 *  - by chunks, when input and output share their chunk shape and the
 *    input's format hands out chunks (NCZarr, Zarr): its chunks are read
 *    with ncz_format_read_chunks(), shared among the workers in groups
 *    that keep the input's I/O depth of requests in flight; a chunk never
 *    written in the input is not written in the output;
 *  - by slabs, otherwise (HDF5 input, new chunking, strings): the box is
 *    a slab of whole output chunks, read with ncz_variable_read() (or
 *    ncz_variable_read_strings()).
 * The writer writes a slab with one ncz_variable_write() call: the
 * output's codecs then run on every core and its requests stay in flight
 * together. The chunks of a box read by chunks are assembled into one
 * buffer and written the same way when that pays: when the output has
 * codecs or quantization (work for every core) or is remote (requests to
 * keep in flight). Otherwise (a local output without codecs: the work is
 * copying bytes) they are written one by one straight from where they
 * were decoded, which saves the copy into the box and the box's memory;
 * so are the chunks of a box where some were never written. The model's
 * writes of one variable are not promised to be safe from several
 * threads at once: the writer makes one call at a time.
 *
 * The first failure, of a read or a write, stops the copy: the readers
 * take no more boxes, what they are reading is cancelled, and the error
 * reported is that first one, naming the URL and the variable.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

#include "ncz-copy-data.h"

/* A chunk up to this many times a box's share of the memory is still
 * copied whole. */
#define CHUNK_COPY_FACTOR 8

/* Boxes waiting for the writer besides those being read */
#define READ_AHEAD 1

/* Reader threads of a remote input: while one waits for the last
 * requests of its box, the other has a box's requests in flight. */
#define REMOTE_READERS 2

gboolean
copy_fail_in (const char *what, const char *name, const char *url, GError *local,
              GError **error)
{
  g_set_error (error, local->domain, local->code, "%s '%s' of '%s': %s", what, name, url,
               local->message);
  g_error_free (local);
  return FALSE;
}

static gboolean
fail_variable (NczVariable *v, const char *url, GError *local, GError **error)
{
  g_autofree char *name = ncz_variable_get_full_name (v);
  return copy_fail_in ("variable", name, url, local, error);
}

static gsize
element_size (NczVariable *v)
{
  if (ncz_variable_get_value_type (v) == NCZ_DATA_TYPE_STRING)
    return ncz_variable_get_storage_element_size (v);
  return ncz_data_type_get_size (ncz_variable_get_value_type (v));
}

guint64
copy_data_get_bytes (NczVariable *v)
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

/* The slab shape: whole output chunks, as many as @budget bytes hold
 * (growing the innermost dimensions first); within one chunk when a
 * chunk alone is larger. */
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

/* ---- the pipeline ---- */

/* One box on its way from a reader to the writer */
typedef struct
{
  guint64 seq;
  guint64 *start;         /* the box, in elements */
  guint64 *count;
  guint64 *lo;            /* ... and in units (chunks or slabs) */
  guint64 *hi;            /* (the last one, inclusive) */
  guint64 n_elements;
  /* read by chunks */
  guint n_chunks;
  guint64 *indices;       /* n_chunks chunk indices, one after another */
  GBytes **chunks;        /* decoded; NULL where never written */
  /* read by slabs */
  guint8 *values;
  char **strings;
  gboolean failed;        /* the read failed (Pipeline.error says why) */
} Batch;

typedef struct
{
  CopyData *data;
  NczVariable *in;
  NczVariable *out;
  NczFormat *format;          /* the input's */
  guint rank;
  gsize es;
  gboolean by_chunks;
  gboolean strings;
  guint64 *shape;
  const guint64 *chunk;       /* by chunks: the chunk shape */
  gsize chunk_bytes;
  guint64 *unit;              /* what boxes are made of: a chunk or a slab */
  guint64 *grid;              /* units along each dimension */
  guint k;                    /* a box spans dimensions k.. whole and */
  guint64 span;               /* dimension k-1 by @span units */
  guint group;                /* chunks per ncz_format_read_chunks() call */
  guint n_readers;
  guint window;               /* boxes read ahead of the writer */
  gboolean assemble;          /* boxes read by chunks are written whole */

  GMutex lock;
  GCond cond;
  guint64 *next_lo;           /* the next box's first unit */
  gboolean walked;            /* every box handed out */
  guint64 next_seq;           /* the next box to hand out */
  guint64 next_write;         /* the next box for the writer */
  Batch **ring;               /* boxes read, at seq % window */
  gboolean stop;              /* something failed */
  GError *error;              /* the first failure */
  gboolean read_failed;       /* ... which was a read */
  GCancellable *cancellable;  /* cancelled at the first failure */
  guint64 written;            /* boxes written */

  /* the writer's */
  guint8 *box;                /* a box assembled from its chunks */
  gsize box_size;
} Pipeline;

static void
batch_free (Batch *b)
{
  if (b == NULL)
    return;
  for (guint i = 0; b->chunks != NULL && i < b->n_chunks; i++)
    g_clear_pointer (&b->chunks[i], g_bytes_unref);
  g_free (b->chunks);
  g_free (b->indices);
  g_free (b->values);
  g_strfreev (b->strings);
  g_free (b->start);
  g_free (b->count);
  g_free (b->lo);
  g_free (b->hi);
  g_free (b);
}

/* Records the first failure (taking @local) and stops the copy; lock
 * held. Returns whether the copy was running, in which case the caller
 * cancels what is in flight once it has let go of the lock. */
static gboolean
fail_locked (Pipeline *p, GError *local, gboolean reading)
{
  gboolean first = !p->stop;

  if (p->error == NULL)
    {
      p->error = local;
      p->read_failed = reading;
    }
  else
    g_error_free (local);
  p->stop = TRUE;
  g_cond_broadcast (&p->cond);
  return first;
}

/* Hands out the next box as @b (lock held). */
static void
walk_next_locked (Pipeline *p, Batch *b)
{
  guint rank = p->rank;
  gint d;

  b->seq = p->next_seq++;
  b->start = g_new0 (guint64, rank);
  b->count = g_new0 (guint64, rank);
  b->lo = g_new0 (guint64, rank);
  b->hi = g_new0 (guint64, rank);
  b->n_elements = 1;
  for (guint i = 0; i < rank; i++)
    {
      b->lo[i] = p->next_lo[i];
      if (i + 1 < p->k)
        b->hi[i] = b->lo[i];
      else if (i + 1 == p->k)
        b->hi[i] = MIN (b->lo[i] + p->span, p->grid[i]) - 1;
      else
        b->hi[i] = p->grid[i] - 1;
      b->start[i] = b->lo[i] * p->unit[i];
      b->count[i] = MIN ((b->hi[i] + 1) * p->unit[i], p->shape[i]) - b->start[i];
      b->n_elements *= b->count[i];
    }
  /* the next box: odometer over dimensions 0..k-1, dimension k-1 by @span */
  for (d = (gint) p->k - 1; d >= 0; d--)
    {
      p->next_lo[d] += (guint) d + 1 == p->k ? p->span : 1;
      if (p->next_lo[d] < p->grid[d])
        break;
      p->next_lo[d] = 0;
    }
  if (d < 0)
    p->walked = TRUE;
}

/* Some chunks read with one ncz_format_read_chunks() call */
typedef struct
{
  Pipeline *p;
  const guint64 *indices;
  guint n;
  GPtrArray *chunks;
  GError *error;
} ReadGroup;

static void
read_group_run (gpointer item, gpointer user_data)
{
  ReadGroup *g = item;
  Pipeline *p = g->p;

  g->chunks = ncz_format_read_chunks (p->format, p->in, g->indices, (gsize) g->n * p->rank,
                                      g->n, p->cancellable, &g->error);
}

/* Reads the chunks of @b, in groups shared among the workers: as many
 * groups as workers at least, and groups of at most p->group chunks, so
 * that their requests in flight make the input's I/O depth. */
static gboolean
read_chunks (Pipeline *p, Batch *b, GError **error)
{
  guint rank = p->rank;
  guint n = 0, n_groups, done = 0;
  g_autofree guint64 *idx = g_new0 (guint64, rank);
  g_autofree ReadGroup *groups = NULL;
  g_autofree gpointer *items = NULL;
  GError *first = NULL;

  for (guint i = 0; i < rank; i++)
    idx[i] = b->lo[i];
  b->n_chunks = 1;
  for (guint i = 0; i < rank; i++)
    b->n_chunks *= (guint) (b->hi[i] - b->lo[i] + 1);
  b->indices = g_new (guint64, (gsize) b->n_chunks * rank);
  b->chunks = g_new0 (GBytes *, b->n_chunks);
  /* the chunks of the box, in C order */
  for (;;)
    {
      gint d;

      memcpy (b->indices + (gsize) n++ * rank, idx, rank * sizeof (guint64));
      for (d = (gint) rank - 1; d >= 0; d--)
        {
          if (++idx[d] <= b->hi[d])
            break;
          idx[d] = b->lo[d];
        }
      if (d < 0)
        break;
    }

  n_groups = MAX (ncz_parallel_get_n_workers (), (n + p->group - 1) / p->group);
  n_groups = MIN (n_groups, n);
  groups = g_new0 (ReadGroup, n_groups);
  items = g_new (gpointer, n_groups);
  for (guint g = 0; g < n_groups; g++)
    {
      groups[g].p = p;
      groups[g].indices = b->indices + (gsize) done * rank;
      groups[g].n = n / n_groups + (g < n % n_groups ? 1 : 0);
      done += groups[g].n;
      items[g] = &groups[g];
    }
  ncz_parallel_for (items, n_groups, read_group_run, NULL);

  done = 0;
  for (guint g = 0; g < n_groups; g++)
    {
      ReadGroup *group = &groups[g];

      if (group->chunks == NULL)
        {
          if (first == NULL)
            first = g_steal_pointer (&group->error);
          g_clear_error (&group->error);
        }
      for (guint j = 0; group->chunks != NULL && j < group->n; j++)
        {
          GBytes *chunk = g_steal_pointer (&g_ptr_array_index (group->chunks, j));

          b->chunks[done + j] = chunk;
          if (chunk != NULL && g_bytes_get_size (chunk) != p->chunk_bytes && first == NULL)
            {
              g_autofree char *name = ncz_variable_get_full_name (p->in);
              g_set_error (&first, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                           "variable '%s': chunk has %" G_GSIZE_FORMAT " bytes, expected %"
                           G_GSIZE_FORMAT, name, g_bytes_get_size (chunk), p->chunk_bytes);
            }
        }
      g_clear_pointer (&group->chunks, g_ptr_array_unref);
      done += group->n;
    }
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_batch (Pipeline *p, Batch *b, GError **error)
{
  GError *local = NULL;
  gboolean ok;

  if (p->by_chunks)
    ok = read_chunks (p, b, &local);
  else if (p->strings)
    {
      b->strings = ncz_variable_read_strings (p->in, b->start, p->rank, b->count, p->rank,
                                              NULL, 0, p->cancellable, &local);
      ok = b->strings != NULL;
    }
  else
    {
      gsize size = (gsize) b->n_elements * p->es;

      b->values = g_try_malloc (MAX (size, 1));
      if (b->values == NULL)
        {
          g_set_error (&local, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "out of memory for %" G_GSIZE_FORMAT " bytes (see -m)", size);
          ok = FALSE;
        }
      else
        ok = ncz_variable_read (p->in, b->start, p->rank, b->count, p->rank, NULL, 0,
                                b->values, size, p->cancellable, &local);
    }
  if (!ok)
    return fail_variable (p->in, p->data->in_url, local, error);
  return TRUE;
}

static gpointer
reader_run (gpointer user_data)
{
  Pipeline *p = user_data;

  g_mutex_lock (&p->lock);
  for (;;)
    {
      GError *local = NULL;
      gboolean cancel = FALSE;
      Batch *b;

      while (!p->stop && !p->walked && p->next_seq >= p->next_write + p->window)
        g_cond_wait (&p->cond, &p->lock);
      if (p->stop || p->walked)
        break;
      b = g_new0 (Batch, 1);
      walk_next_locked (p, b);
      g_mutex_unlock (&p->lock);

      b->failed = !read_batch (p, b, &local);

      g_mutex_lock (&p->lock);
      if (b->failed)
        cancel = fail_locked (p, local, TRUE);
      p->ring[b->seq % p->window] = b;
      g_cond_broadcast (&p->cond);
      if (cancel)
        {
          g_mutex_unlock (&p->lock);
          g_cancellable_cancel (p->cancellable);
          g_mutex_lock (&p->lock);
        }
    }
  g_mutex_unlock (&p->lock);
  return NULL;
}

/* Writes the chunk @index of @p->out from @data, as decoded (the full
 * chunk shape): the part inside the variable. */
static gboolean
write_chunk (Pipeline *p, const guint64 *index, GBytes *data, GError **error)
{
  guint rank = p->rank;
  g_autofree guint64 *start = g_new0 (guint64, rank);
  g_autofree guint64 *count = g_new0 (guint64, rank);
  g_autofree guint64 *at = g_new0 (guint64, rank);
  g_autofree guint8 *buffer = NULL;
  guint64 n = chunk_extent (index, p->chunk, p->shape, rank, start, count);
  gboolean whole = TRUE;

  for (guint i = 0; i < rank; i++)
    whole = whole && count[i] == p->chunk[i];
  if (whole)
    return ncz_variable_write (p->out, start, rank, count, rank, NULL, 0,
                               g_bytes_get_data (data, NULL), g_bytes_get_size (data),
                               p->cancellable, error);
  /* an edge chunk */
  buffer = g_malloc (MAX (n * p->es, 1));
  place_chunk (g_bytes_get_data (data, NULL), p->chunk, count, rank, p->es, buffer, count, at);
  return ncz_variable_write (p->out, start, rank, count, rank, NULL, 0, buffer, n * p->es,
                             p->cancellable, error);
}

/* Writes a box read by chunks: assembled (in p->box) and written with
 * one call when all its chunks exist and p->assemble says it pays; else
 * the chunks that exist one by one. */
static gboolean
write_chunks (Pipeline *p, Batch *b, GError **error)
{
  guint rank = p->rank;
  gboolean all_present = TRUE;

  for (guint j = 0; j < b->n_chunks; j++)
    all_present = all_present && b->chunks[j] != NULL;

  if (p->assemble && all_present && b->n_chunks > 1)
    {
      g_autofree guint64 *start = g_new0 (guint64, rank);
      g_autofree guint64 *count = g_new0 (guint64, rank);
      g_autofree guint64 *at = g_new0 (guint64, rank);
      gsize size = (gsize) b->n_elements * p->es;

      if (p->box_size < size)
        {
          g_free (p->box);
          p->box = g_malloc (size);
          p->box_size = size;
        }
      for (guint j = 0; j < b->n_chunks; j++)
        {
          chunk_extent (b->indices + (gsize) j * rank, p->chunk, p->shape, rank, start, count);
          for (guint i = 0; i < rank; i++)
            at[i] = start[i] - b->start[i];
          place_chunk (g_bytes_get_data (b->chunks[j], NULL), p->chunk, count, rank, p->es,
                       p->box, b->count, at);
          g_clear_pointer (&b->chunks[j], g_bytes_unref);
        }
      return ncz_variable_write (p->out, b->start, rank, b->count, rank, NULL, 0, p->box, size,
                                 p->cancellable, error);
    }

  for (guint j = 0; j < b->n_chunks; j++)
    if (b->chunks[j] != NULL &&
        !write_chunk (p, b->indices + (gsize) j * rank, b->chunks[j], error))
      return FALSE;
  return TRUE;
}

static gboolean
write_batch (Pipeline *p, Batch *b, GError **error)
{
  GError *local = NULL;
  gboolean ok;

  if (p->by_chunks)
    ok = write_chunks (p, b, &local);
  else if (p->strings)
    ok = ncz_variable_write_strings (p->out, b->start, p->rank, b->count, p->rank, NULL, 0,
                                     (const char * const *) b->strings, p->cancellable, &local);
  else
    ok = ncz_variable_write (p->out, b->start, p->rank, b->count, p->rank, NULL, 0, b->values,
                             (gsize) b->n_elements * p->es, p->cancellable, &local);
  if (!ok)
    return fail_variable (p->out, p->data->out_url, local, error);
  return TRUE;
}

static gboolean
is_remote (NczDataset *dataset)
{
  NczStore *store = ncz_dataset_get_store (dataset);
  return store != NULL && ncz_store_is_remote (store);
}

/* Whether the chunks of a box read by chunks are best assembled and
 * written with one call (see the top of the file). */
static gboolean
assemble_boxes (NczVariable *out)
{
  return ncz_variable_get_n_codecs (out) > 0 ||
         ncz_variable_get_quantize (out, NULL) != NCZ_QUANTIZE_NONE ||
         is_remote (ncz_variable_get_dataset (out));
}

/* The share of the memory each box takes: the boxes being read or
 * waiting (@window of them, read by @n_readers threads), the one being
 * written and, when boxes are assembled (@assemble), the buffer it is
 * assembled in. */
static gsize
box_budget (CopyData *data, gboolean assemble, guint *n_readers, guint *window)
{
  *n_readers = is_remote (data->in) ? REMOTE_READERS : 1;
  *window = *n_readers + READ_AHEAD;
  return MAX (data->memory_bytes / (*window + 1 + (assemble ? 1 : 0)), 1);
}

/* Sets up the copy of @in to @out by chunks (@chunk: their shared chunk
 * shape) or, with @chunk NULL, by slabs. */
static void
pipeline_init (Pipeline *p, CopyData *data, NczVariable *in, NczVariable *out,
               const guint64 *chunk)
{
  guint rank = ncz_variable_get_n_dimensions (in);
  guint n_workers = ncz_parallel_get_n_workers ();
  guint io_depth = MAX (ncz_dataset_get_io_depth (data->in), 1);
  gsize box_bytes;
  guint64 tail = 1, per_box = 1;

  memset (p, 0, sizeof *p);
  p->data = data;
  p->in = in;
  p->out = out;
  p->format = ncz_dataset_get_format (data->in);
  p->shape = ncz_variable_get_shape (in, &p->rank);
  p->es = element_size (in);
  p->strings = ncz_variable_get_value_type (in) == NCZ_DATA_TYPE_STRING;
  p->unit = g_new0 (guint64, rank);
  p->grid = g_new0 (guint64, rank);
  p->next_lo = g_new0 (guint64, rank);

  p->assemble = chunk != NULL && assemble_boxes (out);
  box_bytes = box_budget (data, p->assemble, &p->n_readers, &p->window);

  if (chunk != NULL)
    {
      p->by_chunks = TRUE;
      p->chunk = chunk;
      p->chunk_bytes = p->es;
      for (guint i = 0; i < rank; i++)
        {
          p->unit[i] = chunk[i];
          p->chunk_bytes *= chunk[i];
        }
      /* enough chunks for every worker, and for the input's I/O depth */
      per_box = CLAMP (box_bytes / MAX (p->chunk_bytes, 1), 1,
                       MAX (4 * n_workers, io_depth / p->n_readers));
      p->group = MAX (1, io_depth / n_workers);
    }
  else
    {
      guint n_out = 0;
      const guint64 *out_chunk = ncz_variable_get_chunk_sizes (out, &n_out);

      slab_shape (p->shape, n_out == rank ? out_chunk : NULL, rank, p->es, box_bytes, p->unit);
    }
  for (guint i = 0; i < rank; i++)
    p->grid[i] = (p->shape[i] + p->unit[i] - 1) / p->unit[i];
  /* a box holds up to @per_box units: dimensions k.. spanned whole,
   * dimension k-1 by @span units, the others by one */
  p->k = rank;
  while (p->k > 0 && p->grid[p->k - 1] <= per_box / tail)
    tail *= p->grid[--p->k];
  p->span = MAX (1, per_box / tail);

  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->ring = g_new0 (Batch *, p->window);
  p->cancellable = g_cancellable_new ();
}

static void
pipeline_clear (Pipeline *p)
{
  for (guint i = 0; i < p->window; i++)
    batch_free (p->ring[i]);
  g_free (p->ring);
  g_clear_object (&p->cancellable);
  g_clear_error (&p->error);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p->shape);
  g_free (p->unit);
  g_free (p->grid);
  g_free (p->next_lo);
  g_free (p->box);
}

/* Runs the copy: the readers in threads of their own, the writer here.
 * *@unsupported is set, with no error, when the input's format cannot
 * hand out chunks (nothing was written then). */
static gboolean
pipeline_run (Pipeline *p, gboolean *unsupported, GError **error)
{
  g_autofree GThread **readers = g_new0 (GThread *, p->n_readers);

  *unsupported = FALSE;
  for (guint i = 0; i < p->n_readers; i++)
    readers[i] = g_thread_new ("ncz-copy-read", reader_run, p);

  g_mutex_lock (&p->lock);
  for (;;)
    {
      guint slot = (guint) (p->next_write % p->window);
      GError *local = NULL;
      gboolean stop;
      Batch *b;

      while (p->ring[slot] == NULL &&
             !(p->next_write == p->next_seq && (p->walked || p->stop)))
        g_cond_wait (&p->cond, &p->lock);
      b = g_steal_pointer (&p->ring[slot]);
      if (b == NULL)
        break;
      p->next_write++;
      g_cond_broadcast (&p->cond);
      stop = p->stop;
      g_mutex_unlock (&p->lock);

      if (!stop && !b->failed)
        {
          if (write_batch (p, b, &local))
            {
              p->written++;
              copy_progress_add (p->data->progress, b->n_elements * p->es);
            }
          else
            {
              gboolean cancel;

              g_mutex_lock (&p->lock);
              cancel = fail_locked (p, local, FALSE);
              g_mutex_unlock (&p->lock);
              if (cancel)
                g_cancellable_cancel (p->cancellable);
            }
        }
      batch_free (b);
      g_mutex_lock (&p->lock);
    }
  g_mutex_unlock (&p->lock);
  for (guint i = 0; i < p->n_readers; i++)
    g_thread_join (readers[i]);

  if (p->error == NULL)
    return TRUE;
  if (p->by_chunks && p->read_failed && p->written == 0 &&
      g_error_matches (p->error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED))
    {
      *unsupported = TRUE;
      return FALSE;
    }
  g_propagate_error (error, g_steal_pointer (&p->error));
  return FALSE;
}

/* Copies @in to @out by chunks (@chunk: their shared chunk shape), or
 * with @chunk NULL by slabs. */
static gboolean
copy_values (CopyData *data, NczVariable *in, NczVariable *out, const guint64 *chunk,
             gboolean *unsupported, GError **error)
{
  Pipeline p;
  gboolean ok;

  pipeline_init (&p, data, in, out, chunk);
  ok = pipeline_run (&p, unsupported, error);
  pipeline_clear (&p);
  return ok;
}

static gboolean
copy_scalar (CopyData *data, NczVariable *in, NczVariable *out, GError **error)
{
  GError *local = NULL;

  if (ncz_variable_get_value_type (in) == NCZ_DATA_TYPE_STRING)
    {
      g_auto(GStrv) values = ncz_variable_read_strings (in, NULL, 0, NULL, 0, NULL, 0, NULL,
                                                        &local);
      if (values == NULL)
        return fail_variable (in, data->in_url, local, error);
      if (!ncz_variable_write_strings (out, NULL, 0, NULL, 0, NULL, 0,
                                       (const char * const *) values, NULL, &local))
        return fail_variable (out, data->out_url, local, error);
    }
  else
    {
      g_autoptr(GBytes) value = ncz_variable_read_bytes (in, NULL, 0, NULL, 0, NULL, 0, NULL,
                                                         &local);
      if (value == NULL)
        return fail_variable (in, data->in_url, local, error);
      if (!ncz_variable_write_bytes (out, NULL, 0, NULL, 0, NULL, 0, value, NULL, &local))
        return fail_variable (out, data->out_url, local, error);
    }
  copy_progress_add (data->progress, element_size (in));
  return TRUE;
}

gboolean
copy_data (CopyData *data, NczVariable *in, NczVariable *out, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (in), n_in = 0, n_out = 0;
  const guint64 *in_chunk = ncz_variable_get_chunk_sizes (in, &n_in);
  const guint64 *out_chunk = ncz_variable_get_chunk_sizes (out, &n_out);
  gboolean unsupported = FALSE;
  guint64 chunk_bytes = element_size (in);
  guint n_readers, window;
  gsize box_bytes = box_budget (data, assemble_boxes (out), &n_readers, &window);
  gboolean same = rank > 0 && n_in == rank && n_out == rank &&
                  memcmp (in_chunk, out_chunk, rank * sizeof (guint64)) == 0;

  if (rank == 0)
    return copy_scalar (data, in, out, error);
  if (ncz_variable_get_n_elements (in) == 0)
    return TRUE;
  for (guint i = 0; same && i < rank; i++)
    chunk_bytes *= in_chunk[i];
  /* a chunk far larger than a box's share of the memory is copied in
   * slabs within it */
  if (same && ncz_variable_get_value_type (in) != NCZ_DATA_TYPE_STRING &&
      chunk_bytes <= (guint64) box_bytes * CHUNK_COPY_FACTOR)
    {
      if (copy_values (data, in, out, in_chunk, &unsupported, error))
        return TRUE;
      if (!unsupported)
        return FALSE;
    }
  return copy_values (data, in, out, NULL, &unsupported, error);
}
