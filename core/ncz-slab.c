/* ncz-slab.c: the chunk engine: hyperslabs in terms of whole chunks
 *
 * A hyperslab (start, count, stride) is split into the chunks it touches.
 * Each chunk is handled by one task: on read, the decoded chunk (or the
 * fill value when it was never written) is scattered into the caller's
 * buffer; on write, a fully covered chunk is built from the caller's
 * values and written, a partly covered one is read, modified and
 * written. Every worker of the shared pool takes the next chunk as soon
 * as it is done with one, so memory stays one chunk (and its encoded
 * form) per worker whatever the selection size.
 *
 * Reads keep the dataset's I/O depth of storage requests in flight, set
 * apart from the number of CPU workers: when the depth is larger than the
 * number of workers, each worker takes a batch of chunks (the depth
 * shared among the workers) and reads it with one
 * ncz_format_read_chunks() call, which keeps the batch's requests in
 * flight together on the I/O threads (or the store's own asynchronous
 * I/O); the worker then scatters the decoded chunks. Memory stays about
 * one batch per worker: the I/O depth in all. Writes go in batches the
 * same way: the chunks a worker claims that the selection covers whole
 * are built and stored with one ncz_format_write_chunks() call; a chunk
 * covered in part is read, modified and written on its own, under its
 * lock.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-io-private.h"

typedef struct {
  NczVariable *var;
  NczFormat *format;
  guint rank;
  guint64 *shape;
  const guint64 *chunks;
  const guint64 *start;
  const guint64 *count;
  const gint64 *stride;
  gsize esize;
  gsize chunk_bytes;
  guint64 *chunk_strides;   /* element strides inside a chunk, C order */
  guint64 *out_strides;     /* element strides in the caller's buffer */
  guint8 *out;              /* read destination */
  const guint8 *in;         /* write source */
  GBytes *fill;
  GCancellable *cancellable;
  guint batch;              /* chunks per ncz_format_read_chunks() or
                             * ncz_format_write_chunks() call */
} Slab;

typedef struct {
  Slab *slab;
  guint64 *index;           /* chunk index */
  guint64 *lo;              /* first selected point (i) in this chunk, per dim */
  guint64 *hi;              /* last selected point (i), per dim */
  gboolean full;            /* (write) selection covers every in-bounds element */
  GError *error;
} ChunkTask;

/* ---- locking for read-modify-write of one chunk ---- */

#define N_CHUNK_LOCKS 64
static GMutex chunk_locks[N_CHUNK_LOCKS];

static GMutex *
chunk_lock_for (NczVariable *var, const guint64 *index, guint rank)
{
  guint64 h = GPOINTER_TO_SIZE (var);
  for (guint i = 0; i < rank; i++)
    h = h * 1000003u ^ index[i];
  return &chunk_locks[h % N_CHUNK_LOCKS];
}

/* ---- selection geometry ---- */

/* Selected points i (0..count-1) of dimension d falling in chunk c:
 * position p = start + i*stride in [c*ch, min((c+1)*ch, shape)). */
static gboolean
points_in_chunk (Slab *s, guint d, guint64 c, guint64 *lo, guint64 *hi)
{
  guint64 ch = s->chunks[d];
  guint64 cstart = c * ch;
  guint64 cend = cstart + ch;   /* exclusive */
  guint64 st = (guint64) s->stride[d];
  guint64 start = s->start[d];
  guint64 i_lo, i_hi;

  if (cstart > start)
    i_lo = (cstart - start + st - 1) / st;
  else
    i_lo = 0;
  if (cend <= start)
    return FALSE;
  i_hi = (cend - 1 - start) / st;
  if (i_hi > s->count[d] - 1)
    i_hi = s->count[d] - 1;
  if (i_lo > i_hi)
    return FALSE;
  *lo = i_lo;
  *hi = i_hi;
  return TRUE;
}

static gboolean
chunk_fully_covered (Slab *s, const guint64 *index, const guint64 *lo, const guint64 *hi)
{
  for (guint d = 0; d < s->rank; d++)
    {
      guint64 ch = s->chunks[d];
      guint64 cstart = index[d] * ch;
      guint64 cend = MIN (cstart + ch, s->shape[d]);
      if (s->stride[d] != 1 && hi[d] > lo[d])
        return FALSE;
      guint64 first = s->start[d] + lo[d] * (guint64) s->stride[d];
      guint64 last = s->start[d] + hi[d] * (guint64) s->stride[d];
      if (first != cstart || last != cend - 1)
        return FALSE;
      if (s->stride[d] != 1 && cend - cstart > 1)
        return FALSE;
    }
  return TRUE;
}

static gboolean
chunk_inside_shape (Slab *s, const guint64 *index)
{
  for (guint d = 0; d < s->rank; d++)
    if ((index[d] + 1) * s->chunks[d] > s->shape[d])
      return FALSE;
  return TRUE;
}

/* Walks the selected points of one chunk; for each innermost run calls
 * copy with element offsets in the chunk and in the caller's buffer. */
static void
walk_chunk (Slab *s, ChunkTask *t, guint8 *chunk, gboolean to_chunk)
{
  guint rank = s->rank;
  gsize es = s->esize;

  if (rank == 0)
    {
      if (to_chunk)
        memcpy (chunk, s->in, es);
      else
        memcpy (s->out, chunk, es);
      return;
    }

  g_autofree guint64 *i = g_new (guint64, rank);
  for (guint d = 0; d < rank; d++)
    i[d] = t->lo[d];

  guint last = rank - 1;
  guint64 n_inner = t->hi[last] - t->lo[last] + 1;
  guint64 st_inner = (guint64) s->stride[last];

  while (TRUE)
    {
      guint64 coff = 0, ooff = 0;
      for (guint d = 0; d < rank; d++)
        {
          guint64 p = s->start[d] + i[d] * (guint64) s->stride[d];
          coff += (p - t->index[d] * s->chunks[d]) * s->chunk_strides[d];
          ooff += i[d] * s->out_strides[d];
        }
      if (st_inner == 1)
        {
          if (to_chunk)
            memcpy (chunk + coff * es, s->in + ooff * es, n_inner * es);
          else
            memcpy (s->out + ooff * es, chunk + coff * es, n_inner * es);
        }
      else
        {
          for (guint64 k = 0; k < n_inner; k++)
            {
              guint64 c = coff + k * st_inner;
              guint64 o = ooff + k;
              if (to_chunk)
                memcpy (chunk + c * es, s->in + o * es, es);
              else
                memcpy (s->out + o * es, chunk + c * es, es);
            }
        }
      /* odometer over all but the innermost dimension */
      gint d = (gint) rank - 2;
      while (d >= 0)
        {
          if (i[d] < t->hi[d])
            {
              i[d]++;
              break;
            }
          i[d] = t->lo[d];
          d--;
        }
      if (d < 0)
        break;
    }
}

/* Scatters one chunk read by the format (@data, taken; NULL when it was
 * never written: the fill value) into the caller's buffer. */
static void
scatter_chunk (ChunkTask *t, GBytes *data_in)
{
  Slab *s = t->slab;
  g_autoptr(GBytes) data = data_in;

  if (data == NULL)
    {
      gsize capacity;
      guint8 *buf = ncz_buffer_alloc (s->chunk_bytes, &capacity);
      if (buf == NULL)
        {
          g_set_error (&t->error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "out of memory for a chunk of %" G_GSIZE_FORMAT " bytes", s->chunk_bytes);
          return;
        }
      ncz_fill_buffer (buf, s->esize, s->chunk_bytes / MAX (s->esize, 1), s->fill);
      data = ncz_buffer_new_bytes (buf, s->chunk_bytes, capacity);
    }
  if (g_bytes_get_size (data) != s->chunk_bytes)
    {
      g_autofree char *name = ncz_variable_get_full_name (s->var);
      g_set_error (&t->error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "variable '%s': chunk has %" G_GSIZE_FORMAT " bytes, expected %" G_GSIZE_FORMAT,
                   name, g_bytes_get_size (data), s->chunk_bytes);
      return;
    }
  walk_chunk (s, t, (guint8 *) g_bytes_get_data (data, NULL), FALSE);
}

static void
read_task (ChunkTask *t)
{
  Slab *s = t->slab;
  GError *error = NULL;
  GBytes *data;

  if (g_cancellable_set_error_if_cancelled (s->cancellable, &t->error))
    return;
  data = ncz_format_read_chunk (s->format, s->var, t->index, s->cancellable, &error);
  if (data == NULL && !g_error_matches (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    {
      t->error = error;
      return;
    }
  g_clear_error (&error);
  scatter_chunk (t, data);
}

/* Reads the @n chunks of @tasks with one ncz_format_read_chunks() call
 * and scatters them; the first failure goes to tasks[0].error. */
static void
read_batch (ChunkTask *tasks, guint n)
{
  Slab *s = tasks[0].slab;
  guint rank = s->rank;
  g_autofree guint64 *indices = g_new (guint64, (gsize) n * MAX (rank, 1));
  g_autoptr(GPtrArray) chunks = NULL;

  if (g_cancellable_set_error_if_cancelled (s->cancellable, &tasks[0].error))
    return;
  for (guint i = 0; i < n; i++)
    memcpy (indices + (gsize) i * rank, tasks[i].index, sizeof (guint64) * rank);
  chunks = ncz_format_read_chunks (s->format, s->var, indices, (gsize) n * rank, n,
                                   s->cancellable, &tasks[0].error);
  if (chunks == NULL)
    return;
  for (guint i = 0; i < n && tasks[0].error == NULL; i++)
    {
      scatter_chunk (&tasks[i], g_steal_pointer (&g_ptr_array_index (chunks, i)));
      if (tasks[i].error != NULL && i > 0)
        tasks[0].error = g_steal_pointer (&tasks[i].error);
    }
}

/* The new bytes of the chunk of @t: @old (its stored values, or %NULL)
 * with the caller's values of the selection written over them; %NULL
 * when memory runs out (t->error set). */
static GBytes *
chunk_from_caller (ChunkTask *t, GBytes *old)
{
  Slab *s = t->slab;
  gsize capacity = 0;
  guint8 *buf = ncz_buffer_alloc (s->chunk_bytes, &capacity);

  if (buf == NULL)
    {
      g_set_error (&t->error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "out of memory for a chunk of %" G_GSIZE_FORMAT " bytes", s->chunk_bytes);
      return NULL;
    }
  if (old)
    memcpy (buf, g_bytes_get_data (old, NULL), s->chunk_bytes);
  else if (!t->full || !chunk_inside_shape (s, t->index))
    /* a fully covered chunk inside the shape is overwritten whole; edge
     * chunks keep the fill value beyond the shape */
    ncz_fill_buffer (buf, s->esize, s->chunk_bytes / MAX (s->esize, 1), s->fill);
  walk_chunk (s, t, buf, TRUE);
  return ncz_buffer_new_bytes (buf, s->chunk_bytes, capacity);
}

/* The read-modify-write of a chunk written in part, as the format calls
 * it (maybe more than once, when another writer got there first). */
static GBytes *
update_from_caller (GBytes *old, gpointer data, GError **error)
{
  ChunkTask *t = data;
  Slab *s = t->slab;
  GBytes *out;

  if (old && g_bytes_get_size (old) != s->chunk_bytes)
    {
      g_autofree char *name = ncz_variable_get_full_name (s->var);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "variable '%s': chunk has %" G_GSIZE_FORMAT " bytes, expected %" G_GSIZE_FORMAT,
                   name, g_bytes_get_size (old), s->chunk_bytes);
      return NULL;
    }
  out = chunk_from_caller (t, old);
  if (out == NULL)
    g_propagate_error (error, g_steal_pointer (&t->error));
  return out;
}

static void
write_task (ChunkTask *t)
{
  Slab *s = t->slab;
  GError *error = NULL;
  GMutex *lock;
  g_autoptr(GBytes) out = NULL;

  if (g_cancellable_set_error_if_cancelled (s->cancellable, &t->error))
    return;
  if (t->full)
    {
      out = chunk_from_caller (t, NULL);
      if (out != NULL &&
          !ncz_format_write_chunk (s->format, s->var, t->index, out, s->cancellable, &error))
        t->error = error;
      return;
    }
  /* threads of this process first, then the format guards against other
   * processes */
  lock = chunk_lock_for (s->var, t->index, s->rank);
  g_mutex_lock (lock);
  if (!ncz_format_update_chunk (s->format, s->var, t->index, update_from_caller, t,
                                s->cancellable, &error))
    {
      g_clear_error (&t->error);
      t->error = error;
    }
  g_mutex_unlock (lock);
}

/* ---- chunks claimed one at a time by every worker ---- */

/* The chunks a selection touches, in C order of their indices. Workers
 * take the next one under a lock (a few index increments), so no worker
 * waits for another between chunks, and at most one chunk per worker is
 * in flight: memory stays bounded whatever the selection size. */
typedef struct {
  Slab *slab;
  gboolean is_write;
  GMutex lock;
  guint64 *c_lo;
  guint64 *c_hi;
  guint64 *c;              /* next chunk index to hand out */
  gboolean done;           /* every chunk handed out, or stopped */
  GError *error;           /* the first failure; stops the others */
} ChunkCursor;

static void
chunk_task_clear (ChunkTask *t)
{
  g_clear_pointer (&t->index, g_free);
  g_clear_pointer (&t->lo, g_free);
  g_clear_pointer (&t->hi, g_free);
  g_clear_error (&t->error);
}

/* Fills @t with the next chunk that holds selected points; FALSE when
 * there is none left. Called with the cursor locked. */
static gboolean
cursor_next_locked (ChunkCursor *cur, ChunkTask *t)
{
  Slab *s = cur->slab;
  guint rank = s->rank;

  while (!cur->done)
    {
      gboolean empty = FALSE;
      for (guint d = 0; d < rank && !empty; d++)
        if (!points_in_chunk (s, d, cur->c[d], &t->lo[d], &t->hi[d]))
          empty = TRUE;
      if (!empty)
        memcpy (t->index, cur->c, sizeof (guint64) * MAX (rank, 1));

      /* advance the odometer */
      gint d = (gint) rank - 1;
      while (d >= 0)
        {
          if (cur->c[d] < cur->c_hi[d])
            {
              cur->c[d]++;
              break;
            }
          cur->c[d] = cur->c_lo[d];
          d--;
        }
      if (d < 0)
        cur->done = TRUE;
      if (!empty)
        {
          if (cur->is_write)
            t->full = chunk_fully_covered (s, t->index, t->lo, t->hi);
          return TRUE;
        }
    }
  return FALSE;
}

static void
cursor_fail (ChunkCursor *cur, ChunkTask *t)
{
  g_mutex_lock (&cur->lock);
  if (cur->error == NULL)
    cur->error = g_steal_pointer (&t->error);
  cur->done = TRUE;
  g_mutex_unlock (&cur->lock);
  g_clear_error (&t->error);
}

/* Gives each of @n tasks its slab and index arrays. */
static void
chunk_tasks_init (ChunkTask *tasks, guint n, Slab *s)
{
  for (guint i = 0; i < n; i++)
    {
      tasks[i].slab = s;
      tasks[i].index = g_new0 (guint64, MAX (s->rank, 1));
      tasks[i].lo = g_new0 (guint64, MAX (s->rank, 1));
      tasks[i].hi = g_new0 (guint64, MAX (s->rank, 1));
    }
}

/* A worker's loop when reads go in batches: claim up to slab->batch
 * chunks, read them in one call, scatter them, again. */
static void
cursor_work_batched (ChunkCursor *cur)
{
  Slab *s = cur->slab;
  guint batch = s->batch;
  g_autofree ChunkTask *tasks = g_new0 (ChunkTask, batch);

  chunk_tasks_init (tasks, batch, s);
  while (TRUE)
    {
      guint n = 0;

      g_mutex_lock (&cur->lock);
      while (n < batch && cur->error == NULL && cursor_next_locked (cur, &tasks[n]))
        n++;
      g_mutex_unlock (&cur->lock);
      if (n == 0)
        break;
      read_batch (tasks, n);
      if (tasks[0].error)
        cursor_fail (cur, &tasks[0]);
    }
  for (guint i = 0; i < batch; i++)
    chunk_task_clear (&tasks[i]);
}

/* A worker's loop when writes go in batches: claim up to slab->batch
 * chunks; those the selection covers whole are built and stored with one
 * ncz_format_write_chunks() call (their requests in flight together),
 * the others are read, modified and written one by one under their
 * chunk lock, as without batches (a batch never holds two locks). */
static void
cursor_work_write_batched (ChunkCursor *cur)
{
  Slab *s = cur->slab;
  guint rank = s->rank;
  guint batch = s->batch;
  g_autofree ChunkTask *tasks = g_new0 (ChunkTask, batch);
  g_autofree guint64 *indices = g_new0 (guint64, (gsize) batch * MAX (rank, 1));
  g_autofree GBytes **data = g_new0 (GBytes *, batch);

  chunk_tasks_init (tasks, batch, s);
  while (TRUE)
    {
      GError *error = NULL;
      guint n = 0, n_full = 0;

      g_mutex_lock (&cur->lock);
      while (n < batch && cur->error == NULL && cursor_next_locked (cur, &tasks[n]))
        n++;
      g_mutex_unlock (&cur->lock);
      if (n == 0)
        break;
      for (guint i = 0; i < n && error == NULL; i++)
        {
          ChunkTask *t = &tasks[i];

          if (g_cancellable_set_error_if_cancelled (s->cancellable, &error))
            break;
          if (!t->full)
            {
              write_task (t);
              if (t->error)
                error = g_steal_pointer (&t->error);
              continue;
            }
          data[n_full] = chunk_from_caller (t, NULL);
          if (data[n_full] == NULL)
            {
              error = g_steal_pointer (&t->error);
              break;
            }
          memcpy (indices + (gsize) n_full * rank, t->index, sizeof (guint64) * rank);
          n_full++;
        }
      if (error == NULL && n_full > 0)
        ncz_format_write_chunks (s->format, s->var, indices, (gsize) n_full * rank,
                                 data, n_full, s->cancellable, &error);
      for (guint i = 0; i < n_full; i++)
        g_clear_pointer (&data[i], g_bytes_unref);
      if (error != NULL)
        {
          tasks[0].error = error;
          cursor_fail (cur, &tasks[0]);
        }
    }
  for (guint i = 0; i < batch; i++)
    chunk_task_clear (&tasks[i]);
}

static void
cursor_work (gpointer item, gpointer user_data)
{
  ChunkCursor *cur = user_data;
  guint rank = cur->slab->rank;
  ChunkTask t = { 0 };

  if (cur->slab->batch > 1)
    {
      if (cur->is_write)
        cursor_work_write_batched (cur);
      else
        cursor_work_batched (cur);
      return;
    }

  t.slab = cur->slab;
  t.index = g_new0 (guint64, MAX (rank, 1));
  t.lo = g_new0 (guint64, MAX (rank, 1));
  t.hi = g_new0 (guint64, MAX (rank, 1));
  while (TRUE)
    {
      gboolean more;

      g_mutex_lock (&cur->lock);
      more = cur->error == NULL && cursor_next_locked (cur, &t);
      g_mutex_unlock (&cur->lock);
      if (!more)
        break;
      if (cur->is_write)
        write_task (&t);
      else
        read_task (&t);
      if (t.error)
        cursor_fail (cur, &t);
    }
  chunk_task_clear (&t);
}

static gboolean
run_slab (Slab *s, gboolean is_write, GError **error)
{
  guint rank = s->rank;
  guint n_workers = ncz_parallel_get_n_workers ();
  ChunkCursor cur = { 0 };
  g_autofree gpointer *items = g_new0 (gpointer, n_workers);

  cur.slab = s;
  cur.is_write = is_write;
  g_mutex_init (&cur.lock);
  cur.c_lo = g_new0 (guint64, MAX (rank, 1));
  cur.c_hi = g_new0 (guint64, MAX (rank, 1));
  cur.c = g_new0 (guint64, MAX (rank, 1));
  for (guint d = 0; d < rank; d++)
    {
      guint64 last = s->start[d] + (s->count[d] - 1) * (guint64) s->stride[d];
      cur.c_lo[d] = s->start[d] / s->chunks[d];
      cur.c_hi[d] = last / s->chunks[d];
      cur.c[d] = cur.c_lo[d];
    }

  /* the I/O depth shared among the workers, in batches, but no batch
   * larger than the worker's share of the chunks */
  s->batch = 1;
  {
      NczDataset *ds = ncz_variable_get_dataset (s->var);
      guint depth = ds ? ncz_dataset_get_io_depth (ds) : NCZ_STORE_DEFAULT_IO_DEPTH;
      guint64 n_chunks = 1;

      for (guint d = 0; d < rank; d++)
        {
          guint64 along = cur.c_hi[d] - cur.c_lo[d] + 1;
          n_chunks = along > G_MAXUINT / n_chunks ? G_MAXUINT : n_chunks * along;
        }
      s->batch = (depth + n_workers - 1) / n_workers;
      s->batch = (guint) MIN ((guint64) s->batch, (n_chunks + n_workers - 1) / n_workers);
      s->batch = MAX (s->batch, 1);
    }

  /* one item per worker, each draining the cursor; a worker that starts
   * late (the pool busy elsewhere) finds nothing left and returns */
  ncz_parallel_for (items, n_workers, cursor_work, &cur);

  g_free (cur.c_lo);
  g_free (cur.c_hi);
  g_free (cur.c);
  g_mutex_clear (&cur.lock);
  if (cur.error)
    {
      g_propagate_error (error, cur.error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
slab_setup (Slab *s, NczVariable *var, NczFormat *format, const guint64 *start,
            const guint64 *count, const gint64 *stride, GCancellable *cancellable,
            GError **error)
{
  guint rank;

  memset (s, 0, sizeof *s);
  s->var = var;
  s->format = format;
  s->start = start;
  s->count = count;
  s->stride = stride;
  s->cancellable = cancellable;
  s->shape = ncz_variable_get_shape (var, &rank);
  s->rank = rank;
  s->chunks = ncz_variable_get_chunk_sizes (var, NULL);
  s->esize = ncz_variable_get_storage_element_size (var);
  s->chunk_bytes = ncz_variable_get_chunk_n_bytes (var);
  s->fill = ncz_variable_get_fill_value (var);
  if (s->chunk_bytes == G_MAXSIZE || s->chunk_bytes > G_MAXSIZE / 4)
    {
      g_autofree char *name = ncz_variable_get_full_name (var);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': chunks are too large to hold in memory", name);
      return FALSE;
    }
  if (s->fill && s->esize > 0 && ncz_variable_get_value_type (var) == NCZ_DATA_TYPE_STRING)
    {
      /* string fill: the text NUL-padded to the storage width */
      gsize n;
      const char *f = g_bytes_get_data (s->fill, &n);
      guint8 *w = g_malloc0 (s->esize);
      memcpy (w, f, MIN (n, s->esize));
      g_bytes_unref (s->fill);
      s->fill = g_bytes_new_take (w, s->esize);
    }
  s->chunk_strides = g_new (guint64, MAX (rank, 1));
  s->out_strides = g_new (guint64, MAX (rank, 1));
  if (rank > 0)
    {
      s->chunk_strides[rank - 1] = 1;
      s->out_strides[rank - 1] = 1;
      for (gint d = (gint) rank - 2; d >= 0; d--)
        {
          s->chunk_strides[d] = s->chunk_strides[d + 1] * s->chunks[d + 1];
          s->out_strides[d] = s->out_strides[d + 1] * count[d + 1];
        }
    }
  return TRUE;
}

static void
slab_clear (Slab *s)
{
  g_free (s->shape);
  g_free (s->chunk_strides);
  g_free (s->out_strides);
  g_clear_pointer (&s->fill, g_bytes_unref);
}

gboolean
ncz_slab_read (NczVariable *variable, NczFormat *format, const guint64 *start,
               const guint64 *count, const gint64 *stride, guint8 *buffer,
               GCancellable *cancellable, GError **error)
{
  Slab s;
  gboolean ok;

  if (!slab_setup (&s, variable, format, start, count, stride, cancellable, error))
    {
      slab_clear (&s);
      return FALSE;
    }
  s.out = buffer;
  ok = run_slab (&s, FALSE, error);
  slab_clear (&s);
  return ok;
}

gboolean
ncz_slab_write (NczVariable *variable, NczFormat *format, const guint64 *start,
                const guint64 *count, const gint64 *stride, const guint8 *buffer,
                GCancellable *cancellable, GError **error)
{
  Slab s;
  gboolean ok;

  if (!slab_setup (&s, variable, format, start, count, stride, cancellable, error))
    {
      slab_clear (&s);
      return FALSE;
    }
  s.in = buffer;
  ok = run_slab (&s, TRUE, error);
  slab_clear (&s);
  return ok;
}
