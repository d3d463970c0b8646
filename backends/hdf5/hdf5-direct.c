/* hdf5-direct.c: chunked, filtered variables through HDF5's direct chunk
 * I/O and Ncz's codecs on the worker pool
 *
 * libhdf5 runs a dataset's filter pipeline inside H5Dread/H5Dwrite, one
 * chunk after another, with the HDF5 lock held. Here the chunks a
 * selection covers whole are moved raw instead (H5Dread_chunk,
 * H5Dwrite_chunk: the lock is held only for that), and their filters are
 * run by Ncz's codec modules on every core (ncz_parallel_for), with the
 * parameters the dataset stores (what HDF5 itself would hand the filter,
 * after set_local), in pipeline order on encode and in reverse order on
 * decode, skipping the filters a chunk's filter mask says were skipped.
 *
 * A chunk the selection covers only in part is read or written through
 * HDF5's pipeline (H5Dread/H5Dwrite of that part, under the lock), so its
 * read-modify-write uses HDF5's chunk cache; H5Dwrite_chunk evicts a
 * cached chunk it replaces, and H5Dread_chunk flushes a dirty one first,
 * so the two paths see each other's writes.
 *
 * "Covered whole" means every element of the chunk that lies within the
 * dataset's current extent is selected: an edge chunk that sticks out of
 * the extent is written whole, its outside filled with the fill value, as
 * HDF5 would store it.
 *
 * A variable qualifies when its dataset is chunked, its elements are
 * numbers or chars of the variable's storage size, and each of its
 * filters (if any) is one whose byte format Ncz's codec shares with
 * HDF5's filter (deflate, shuffle, fletcher32, bzip2, blosc, zstd) and is
 * available. Raw chunks without filters go this way too: one read or
 * write each, where HDF5 moves a chunk larger than its chunk cache row by
 * row. Anything else goes through hdf5-io.c's plain H5Dread/H5Dwrite.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "hdf5-private.h"

/* The filters whose encoded form Ncz's codec modules write exactly as
 * HDF5's own filter (or the HDF5 plugin registered for the id) does. */
static const guint direct_filter_ids[] = {
  1,      /* deflate */
  2,      /* shuffle */
  3,      /* fletcher32 */
  307,    /* bzip2 */
  32001,  /* blosc */
  32015,  /* zstd */
  /* not lz4 (32004): Ncz's lz4 codec frames a chunk as numcodecs does,
   * which is not the HDF5 lz4 filter's framing (the module's HDF5 filter
   * function does that one), so lz4 chunks go through HDF5's pipeline */
};

typedef struct {
  NczCodec *codec;
  guint filter_id;
  guint flags;          /* H5Z_FLAG_OPTIONAL ... */
  guint *cd_values;
  gsize n_cd_values;
  char *name;
} PipelineStep;

struct _NczH5Pipeline {
  gboolean eligible;    /* FALSE: plain I/O */
  guint rank;
  hsize_t chunk[H5S_MAX_RANK];
  gsize element_size;
  gsize chunk_bytes;
  gboolean swap;        /* the file's byte order is not the host's */
  guint n_steps;
  PipelineStep *steps;
};

void
ncz_h5_pipeline_free (struct _NczH5Pipeline *pipeline)
{
  if (pipeline == NULL)
    return;
  for (guint i = 0; i < pipeline->n_steps; i++)
    {
      g_clear_object (&pipeline->steps[i].codec);
      g_free (pipeline->steps[i].cd_values);
      g_free (pipeline->steps[i].name);
    }
  g_free (pipeline->steps);
  g_free (pipeline);
}

static gboolean
is_direct_filter (guint id)
{
  for (gsize i = 0; i < G_N_ELEMENTS (direct_filter_ids); i++)
    if (direct_filter_ids[i] == id)
      return TRUE;
  return FALSE;
}

/* NCZ_HDF5_DIRECT=0 in the environment turns direct chunk I/O off (every
 * chunk then goes through HDF5's pipeline): for comparisons, and as a way
 * around a codec that disagrees with a foreign filter. */
static gboolean
direct_enabled (void)
{
  static gsize once;
  static gboolean enabled;

  if (g_once_init_enter (&once))
    {
      const char *value = g_getenv ("NCZ_HDF5_DIRECT");

      enabled = value == NULL || g_strcmp0 (value, "0") != 0;
      g_once_init_leave (&once, 1);
    }
  return enabled;
}

/* Works out whether @node's dataset qualifies (lock held). An error only
 * for a dataset whose properties cannot be read. */
static struct _NczH5Pipeline *
pipeline_resolve (NczHdf5Format *self, NczVariable *variable, hid_t dset, GError **error)
{
  struct _NczH5Pipeline *pipe = g_new0 (struct _NczH5Pipeline, 1);
  NczDataType type = ncz_variable_get_value_type (variable);
  hid_t dcpl = H5I_INVALID_HID, file_type = H5I_INVALID_HID;
  int n_filters, rank;
  H5T_class_t klass;

  if (type == NCZ_DATA_TYPE_STRING)
    return pipe;
  dcpl = H5Dget_create_plist (dset);
  if (dcpl < 0)
    {
      g_autofree char *name = ncz_variable_get_full_name (variable);

      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its creation properties", self->path, name);
      ncz_h5_pipeline_free (pipe);
      return NULL;
    }
  if (H5Pget_layout (dcpl) != H5D_CHUNKED)
    goto out;
  rank = H5Pget_chunk (dcpl, H5S_MAX_RANK, pipe->chunk);
  n_filters = H5Pget_nfilters (dcpl);
  if (rank <= 0 || (guint) rank != ncz_variable_get_n_dimensions (variable) || n_filters < 0)
    goto out;
  pipe->rank = (guint) rank;
  file_type = H5Dget_type (dset);
  if (file_type < 0)
    goto out;
  klass = H5Tget_class (file_type);
  pipe->element_size = H5Tget_size (file_type);
  if (pipe->element_size == 0 || pipe->element_size != ncz_variable_get_storage_element_size (variable))
    goto out;
  if (klass == H5T_INTEGER || klass == H5T_FLOAT)
    {
      H5T_order_t order = H5Tget_order (file_type);

      if (pipe->element_size > 1)
        pipe->swap = (order == H5T_ORDER_BE) != (G_BYTE_ORDER == G_BIG_ENDIAN);
    }
  else if (!(klass == H5T_STRING && type == NCZ_DATA_TYPE_CHAR && pipe->element_size == 1))
    goto out;
  pipe->chunk_bytes = pipe->element_size;
  for (guint i = 0; i < pipe->rank; i++)
    {
      if (pipe->chunk[i] == 0 || pipe->chunk_bytes > G_MAXSIZE / pipe->chunk[i])
        goto out;
      pipe->chunk_bytes *= pipe->chunk[i];
    }
  pipe->steps = g_new0 (PipelineStep, MAX (n_filters, 1));
  for (int i = 0; i < n_filters; i++)
    {
      PipelineStep *step = &pipe->steps[pipe->n_steps];
      unsigned cd[64];
      size_t n_cd = G_N_ELEMENTS (cd);
      char name[64] = "";
      unsigned config = 0;
      H5Z_filter_t id;

      id = H5Pget_filter2 (dcpl, (unsigned) i, &step->flags, &n_cd, cd, sizeof name, name,
                           &config);
      if (id < 0 || n_cd > G_N_ELEMENTS (cd) || !is_direct_filter ((guint) id))
        goto out;
      step->filter_id = (guint) id;
      step->codec = ncz_registry_lookup_codec_by_filter_id (ncz_registry_get_default (),
                                                            (guint) id, NULL);
      pipe->n_steps++;
      if (step->codec == NULL)
        goto out;
      step->cd_values = g_memdup2 (cd, MAX (n_cd, 1) * sizeof (guint));
      step->n_cd_values = n_cd;
      step->name = g_strdup (ncz_codec_get_codec_id (step->codec) != NULL
                             ? ncz_codec_get_codec_id (step->codec) : name);
    }
  pipe->eligible = TRUE;

out:
  H5Eclear2 (H5E_DEFAULT);
  if (file_type >= 0)
    H5Tclose (file_type);
  H5Pclose (dcpl);
  return pipe;
}

/* ---- geometry ---- */

typedef struct {
  guint rank;
  guint64 start[H5S_MAX_RANK];
  guint64 stride[H5S_MAX_RANK];
  guint64 count[H5S_MAX_RANK];
  hsize_t extent[H5S_MAX_RANK];
  gboolean clipped;     /* some selected elements lie beyond the extent */
} Selection;

/* The selected indices k (element start + k * stride) within
 * [lo, hi): FALSE if none. */
static gboolean
selected_range (const Selection *sel, guint d, guint64 lo, guint64 hi,
                guint64 *k_lo, guint64 *k_hi)
{
  guint64 s = sel->start[d], st = sel->stride[d], c = sel->count[d];
  guint64 first, last;

  if (c == 0 || hi <= lo)
    return FALSE;
  first = lo <= s ? 0 : (lo - s + st - 1) / st;
  if (hi <= s)
    return FALSE;
  last = (hi - 1 - s) / st;
  if (last >= c)
    last = c - 1;
  if (first > last)
    return FALSE;
  *k_lo = first;
  *k_hi = last + 1;
  return TRUE;
}

typedef struct {
  hsize_t origin[H5S_MAX_RANK];      /* the chunk's first element */
  guint64 k_lo[H5S_MAX_RANK];        /* the selected indices it holds */
  guint64 k_hi[H5S_MAX_RANK];
  gboolean whole;                    /* every in-extent element selected */
} ChunkTask;

/* The chunks holding selected elements within the extent. */
static GPtrArray *
plan_chunks (const Selection *sel, const struct _NczH5Pipeline *pipe)
{
  GPtrArray *tasks = g_ptr_array_new_with_free_func (g_free);
  guint64 c_lo[H5S_MAX_RANK], c_hi[H5S_MAX_RANK], idx[H5S_MAX_RANK];
  guint rank = sel->rank;

  for (guint d = 0; d < rank; d++)
    {
      guint64 last;

      if (sel->count[d] == 0 || sel->start[d] >= sel->extent[d])
        return tasks;
      last = sel->start[d] + (sel->count[d] - 1) * sel->stride[d];
      if (last >= sel->extent[d])
        last = sel->extent[d] - 1;
      c_lo[d] = sel->start[d] / pipe->chunk[d];
      c_hi[d] = last / pipe->chunk[d] + 1;
      idx[d] = c_lo[d];
    }
  for (;;)
    {
      ChunkTask task;
      gboolean any = TRUE;

      memset (&task, 0, sizeof task);
      task.whole = TRUE;
      for (guint d = 0; d < rank && any; d++)
        {
          guint64 lo = idx[d] * pipe->chunk[d];
          guint64 hi = MIN (lo + pipe->chunk[d], (guint64) sel->extent[d]);

          task.origin[d] = lo;
          if (!selected_range (sel, d, lo, hi, &task.k_lo[d], &task.k_hi[d]))
            any = FALSE;
          else if (sel->stride[d] != 1 && hi - lo > 1)
            task.whole = FALSE;
          else if (task.k_hi[d] - task.k_lo[d] != hi - lo)
            task.whole = FALSE;
        }
      if (any)
        g_ptr_array_add (tasks, g_memdup2 (&task, sizeof task));
      /* next chunk, last dimension fastest */
      guint d = rank;
      while (d > 0)
        {
          d--;
          if (++idx[d] < c_hi[d])
            break;
          idx[d] = c_lo[d];
          if (d == 0)
            return tasks;
        }
    }
}

/* Copies the selected elements of one chunk between the chunk's buffer
 * and the caller's (to_chunk: caller → chunk). */
static void
copy_chunk (const Selection *sel, const struct _NczH5Pipeline *pipe, const ChunkTask *task,
            guint8 *chunk, guint8 *user, gboolean to_chunk)
{
  guint rank = sel->rank;
  gsize es = pipe->element_size;
  guint64 k[H5S_MAX_RANK];
  guint64 user_pitch[H5S_MAX_RANK], chunk_pitch[H5S_MAX_RANK];
  guint inner = rank - 1;
  guint64 run = task->k_hi[inner] - task->k_lo[inner];
  gboolean contiguous = sel->stride[inner] == 1;

  user_pitch[inner] = 1;
  chunk_pitch[inner] = 1;
  for (guint d = inner; d > 0; d--)
    {
      user_pitch[d - 1] = user_pitch[d] * sel->count[d];
      chunk_pitch[d - 1] = chunk_pitch[d] * pipe->chunk[d];
    }
  for (guint d = 0; d < rank; d++)
    k[d] = task->k_lo[d];
  for (;;)
    {
      guint64 u = 0, c = 0;

      for (guint d = 0; d < rank; d++)
        {
          u += k[d] * user_pitch[d];
          c += (sel->start[d] + k[d] * sel->stride[d] - task->origin[d]) * chunk_pitch[d];
        }
      if (contiguous)
        {
          if (to_chunk)
            memcpy (chunk + c * es, user + u * es, run * es);
          else
            memcpy (user + u * es, chunk + c * es, run * es);
        }
      else
        for (guint64 i = 0; i < run; i++)
          {
            guint64 ci = c + i * sel->stride[inner];

            if (to_chunk)
              memcpy (chunk + ci * es, user + (u + i) * es, es);
            else
              memcpy (user + (u + i) * es, chunk + ci * es, es);
          }
      /* next row */
      guint d = inner;
      for (;;)
        {
          if (d == 0)
            return;
          d--;
          if (++k[d] < task->k_hi[d])
            break;
          k[d] = task->k_lo[d];
        }
    }
}

/* ---- the work shared by the chunk tasks ---- */

typedef struct {
  NczHdf5Format *self;
  NczVariable *variable;
  hid_t dset;
  const struct _NczH5Pipeline *pipe;
  Selection sel;
  guint8 *user;
  GCancellable *cancellable;
  GMutex lock;
  GError *error;        /* the first failure */
  char *name;
} Work;

static gboolean
work_failed (Work *work)
{
  gboolean failed;

  g_mutex_lock (&work->lock);
  failed = work->error != NULL;
  g_mutex_unlock (&work->lock);
  return failed || g_cancellable_is_cancelled (work->cancellable);
}

static void
work_fail (Work *work, GError *error)
{
  g_mutex_lock (&work->lock);
  if (work->error == NULL)
    work->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&work->lock);
}

static char *
chunk_text (const Work *work, const ChunkTask *task)
{
  GString *s = g_string_new ("(");

  for (guint d = 0; d < work->sel.rank; d++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, d > 0 ? "," : "",
                            (guint64) (task->origin[d] / work->pipe->chunk[d]));
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* The part of the selection in @task, as file and memory dataspaces. */
static gboolean
select_part (const Work *work, const ChunkTask *task, hid_t file_space, hid_t *mem_space)
{
  hsize_t f_start[H5S_MAX_RANK], f_stride[H5S_MAX_RANK], n[H5S_MAX_RANK];
  hsize_t m_start[H5S_MAX_RANK], m_dims[H5S_MAX_RANK];
  guint rank = work->sel.rank;

  for (guint d = 0; d < rank; d++)
    {
      f_start[d] = work->sel.start[d] + task->k_lo[d] * work->sel.stride[d];
      f_stride[d] = work->sel.stride[d];
      n[d] = task->k_hi[d] - task->k_lo[d];
      m_start[d] = task->k_lo[d];
      m_dims[d] = work->sel.count[d];
    }
  if (H5Sselect_hyperslab (file_space, H5S_SELECT_SET, f_start, f_stride, n, NULL) < 0)
    return FALSE;
  *mem_space = H5Screate_simple ((int) rank, m_dims, NULL);
  if (*mem_space < 0)
    return FALSE;
  return H5Sselect_hyperslab (*mem_space, H5S_SELECT_SET, m_start, NULL, n, NULL) >= 0;
}

static hid_t
memory_type (const Work *work)
{
  NczDataType type = ncz_variable_get_value_type (work->variable);

  /* char: the file's one-byte string type, so no string conversion */
  return type == NCZ_DATA_TYPE_CHAR ? H5Dget_type (work->dset) : ncz_h5_mem_type (type);
}

/* A chunk covered in part: HDF5's own pipeline, under the lock. */
static void
part_io (Work *work, const ChunkTask *task, gboolean write)
{
  hid_t file_space, mem_space = H5I_INVALID_HID, mem_type = H5I_INVALID_HID;
  gboolean ok = FALSE;

  ncz_h5_lock ();
  file_space = H5Dget_space (work->dset);
  if (file_space >= 0 && select_part (work, task, file_space, &mem_space))
    {
      mem_type = memory_type (work);
      if (write)
        ok = H5Dwrite (work->dset, mem_type, mem_space, file_space, H5P_DEFAULT,
                       work->user) >= 0;
      else
        {
          ncz_h5_raw_reads_begin ();
          ok = H5Dread (work->dset, mem_type, mem_space, file_space, H5P_DEFAULT,
                        work->user) >= 0;
          ncz_h5_raw_reads_end ();
        }
    }
  if (!ok)
    {
      g_autofree char *where = chunk_text (work, task);
      GError *error = NULL;

      ncz_h5_set_error (&error, write ? NCZ_BACKEND_ERROR_FAILED : NCZ_BACKEND_ERROR_BAD_CHUNK,
                        "%s: %s variable '%s' in chunk %s", work->self->path,
                        write ? "writing" : "reading", work->name, where);
      work_fail (work, error);
    }
  if (mem_type >= 0)
    H5Tclose (mem_type);
  if (mem_space >= 0)
    H5Sclose (mem_space);
  if (file_space >= 0)
    H5Sclose (file_space);
  ncz_h5_unlock ();
}

/* Runs the pipeline backwards over a raw chunk. Returns the decoded
 * chunk (chunk_bytes long) or NULL with @error set. */
static GBytes *
decode_chunk (Work *work, const ChunkTask *task, GBytes *raw, guint32 mask, GError **error)
{
  const struct _NczH5Pipeline *pipe = work->pipe;
  g_autoptr(GBytes) data = g_bytes_ref (raw);

  for (guint i = pipe->n_steps; i > 0; i--)
    {
      const PipelineStep *step = &pipe->steps[i - 1];
      GError *local = NULL;
      GBytes *out;

      if (mask & (1u << (i - 1)))
        continue;
      out = ncz_codec_decode (step->codec, step->cd_values, step->n_cd_values, data, &local);
      if (out == NULL)
        {
          g_autofree char *where = chunk_text (work, task);

          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                       "%s: variable '%s': decoding chunk %s with %s: %s", work->self->path,
                       work->name, where, step->name, local->message);
          g_error_free (local);
          return NULL;
        }
      g_bytes_unref (data);
      data = out;
    }
  if (g_bytes_get_size (data) != pipe->chunk_bytes)
    {
      g_autofree char *where = chunk_text (work, task);

      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "%s: variable '%s': chunk %s decodes to %" G_GSIZE_FORMAT
                   " bytes, not %" G_GSIZE_FORMAT, work->self->path, work->name, where,
                   g_bytes_get_size (data), pipe->chunk_bytes);
      return NULL;
    }
  return g_steal_pointer (&data);
}

/* Runs the pipeline over a chunk; optional filters that fail, or that
 * deflate would make larger, are skipped and marked in @mask, as HDF5
 * does. */
static GBytes *
encode_chunk (Work *work, const ChunkTask *task, GBytes *chunk, guint32 *mask, GError **error)
{
  const struct _NczH5Pipeline *pipe = work->pipe;
  g_autoptr(GBytes) data = g_bytes_ref (chunk);

  *mask = 0;
  for (guint i = 0; i < pipe->n_steps; i++)
    {
      const PipelineStep *step = &pipe->steps[i];
      GError *local = NULL;
      GBytes *out;

      out = ncz_codec_encode (step->codec, step->cd_values, step->n_cd_values, data, &local);
      if (out != NULL && (step->flags & H5Z_FLAG_OPTIONAL) && step->filter_id == H5Z_FILTER_DEFLATE
          && g_bytes_get_size (out) > g_bytes_get_size (data))
        g_clear_pointer (&out, g_bytes_unref);
      if (out == NULL && (step->flags & H5Z_FLAG_OPTIONAL))
        {
          g_clear_error (&local);
          *mask |= 1u << i;
          continue;
        }
      if (out == NULL)
        {
          g_autofree char *where = chunk_text (work, task);

          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                       "%s: variable '%s': encoding chunk %s with %s: %s", work->self->path,
                       work->name, where, step->name, local->message);
          g_error_free (local);
          return NULL;
        }
      g_bytes_unref (data);
      data = out;
    }
  return g_steal_pointer (&data);
}

void
ncz_h5_open_raw_source (NczHdf5Format *self)
{
  hid_t fcpl;
  hsize_t user_block = 0;
  unsigned intent = 0;
  const NczH5DriverFile *driver_file;

  /* the file libhdf5 holds may be shared with a writable open of the
   * same file in this process, whose cache may hold unwritten chunks */
  if (H5Fget_intent (self->file, &intent) < 0 || (intent & H5F_ACC_RDWR) != 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      return;
    }
  fcpl = H5Fget_create_plist (self->file);
  if (fcpl < 0 || H5Pget_userblock (fcpl, &user_block) < 0)
    {
      if (fcpl >= 0)
        H5Pclose (fcpl);
      H5Eclear2 (H5E_DEFAULT);
      return;
    }
  H5Pclose (fcpl);
  /* the file's length as its driver (local or store) found it at open */
  driver_file = ncz_h5_driver_file_of (self->file);
  if (driver_file == NULL)
    return;
  self->raw_end = driver_file->eof;
  self->base_addr = user_block;
  if (self->bytes_store != NULL)
    self->raw_source = TRUE;
  else if (self->path != NULL)
    {
      self->raw_fd = open (self->path, O_RDONLY | O_CLOEXEC);
      self->raw_source = self->raw_fd >= 0;
    }
}

/* Reads @size bytes at HDF5 address @addr without libhdf5 (lock not
 * held): from the store of a #mode=bytes file, or the local file. */
static gboolean
read_raw_outside (Work *work, const ChunkTask *task, haddr_t addr, hsize_t size,
                  guint8 *raw, GError **error)
{
  NczHdf5Format *self = work->self;
  guint64 offset = self->base_addr + addr;
  g_autoptr(GError) local = NULL;
  const char *reason = "the file ends before it";

  if (self->bytes_store != NULL)
    {
      g_autoptr(GBytes) bytes = ncz_store_read_range (self->bytes_store, self->bytes_key,
                                                      offset, (gint64) size,
                                                      work->cancellable, &local);

      if (bytes != NULL && g_bytes_get_size (bytes) == size)
        {
          memcpy (raw, g_bytes_get_data (bytes, NULL), size);
          return TRUE;
        }
      if (local != NULL)
        reason = local->message;
    }
  else
    {
      gssize n = ncz_h5_pread_all (self->raw_fd, raw, size, offset);

      if (n == (gssize) size)
        return TRUE;
      if (n < 0)
        reason = g_strerror (errno);
    }
  {
    g_autofree char *where = chunk_text (work, task);

    g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                 "%s: variable '%s': reading chunk %s (%" G_GUINT64_FORMAT
                 " bytes at %" G_GUINT64_FORMAT "): %s", self->path, work->name, where,
                 (guint64) size, offset, reason);
  }
  return FALSE;
}

/* Reads @task's raw chunk: NULL with no error when it was never written. */
static GBytes *
read_raw (Work *work, const ChunkTask *task, guint32 *mask, GError **error)
{
  haddr_t addr = HADDR_UNDEF;
  hsize_t size = 0;
  unsigned filter_mask = 0;
  gpointer raw;
  gboolean ok;

  ncz_h5_lock ();
  if (H5Dget_chunk_info_by_coord (work->dset, task->origin, &filter_mask, &addr, &size) < 0)
    {
      g_autofree char *where = chunk_text (work, task);

      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK,
                        "%s: variable '%s': finding chunk %s", work->self->path, work->name,
                        where);
      ncz_h5_unlock ();
      return NULL;
    }
  if (addr == HADDR_UNDEF)
    {
      ncz_h5_unlock ();
      return NULL;
    }
  /* a chunk can hold at most what its filters make of chunk_bytes; a
   * stored size far beyond that is damage, not data */
  if (size == 0 || size > (hsize_t) work->pipe->chunk_bytes * 2 + (1u << 20))
    {
      g_autofree char *where = chunk_text (work, task);

      ncz_h5_unlock ();
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "%s: variable '%s': chunk %s is stored as %" G_GUINT64_FORMAT
                   " bytes, which cannot hold %" G_GSIZE_FORMAT " bytes of data",
                   work->self->path, work->name, where, (guint64) size,
                   work->pipe->chunk_bytes);
      return NULL;
    }
  raw = g_malloc (size);
  if (work->self->raw_source)
    {
      /* a read-only file: the bytes are where libhdf5 says, and no
       * unwritten chunk can be in its cache */
      ncz_h5_unlock ();
      if (!read_raw_outside (work, task, addr, size, raw, error))
        {
          g_free (raw);
          return NULL;
        }
      *mask = filter_mask;
      return g_bytes_new_take (raw, size);
    }
  ncz_h5_raw_reads_begin ();
  ok = H5Dread_chunk (work->dset, H5P_DEFAULT, task->origin, &filter_mask, raw) >= 0;
  ncz_h5_raw_reads_end ();
  if (!ok)
    {
      g_autofree char *where = chunk_text (work, task);

      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK,
                        "%s: variable '%s': reading chunk %s", work->self->path, work->name,
                        where);
      ncz_h5_unlock ();
      g_free (raw);
      return NULL;
    }
  ncz_h5_unlock ();
  *mask = filter_mask;
  return g_bytes_new_take (raw, size);
}

static void
read_task (gpointer item, gpointer user_data)
{
  ChunkTask *task = item;
  Work *work = user_data;
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GBytes) chunk = NULL;
  GError *error = NULL;
  guint32 mask = 0;

  if (work_failed (work))
    return;
  if (!task->whole)
    {
      part_io (work, task, FALSE);
      return;
    }
  raw = read_raw (work, task, &mask, &error);
  if (raw == NULL && error != NULL)
    {
      work_fail (work, error);
      return;
    }
  if (raw == NULL)
    {
      /* never written: fill values */
      gsize capacity = 0;
      guint8 *fill = ncz_buffer_alloc (work->pipe->chunk_bytes, &capacity);

      ncz_h5_fill_storage (work->variable, fill,
                           work->pipe->chunk_bytes / work->pipe->element_size);
      copy_chunk (&work->sel, work->pipe, task, fill, work->user, FALSE);
      ncz_buffer_release (fill, capacity);
      return;
    }
  chunk = decode_chunk (work, task, raw, mask, &error);
  if (chunk == NULL)
    {
      work_fail (work, error);
      return;
    }
  if (work->pipe->swap)
    {
      gsize len;
      guint8 *data = g_bytes_unref_to_data (g_steal_pointer (&chunk), &len);

      ncz_byteswap_buffer (data, work->pipe->element_size, len / work->pipe->element_size);
      copy_chunk (&work->sel, work->pipe, task, data, work->user, FALSE);
      g_free (data);
      return;
    }
  copy_chunk (&work->sel, work->pipe, task, (guint8 *) g_bytes_get_data (chunk, NULL),
              work->user, FALSE);
}

static void
write_task (gpointer item, gpointer user_data)
{
  ChunkTask *task = item;
  Work *work = user_data;
  const struct _NczH5Pipeline *pipe = work->pipe;
  g_autoptr(GBytes) chunk = NULL;
  g_autoptr(GBytes) encoded = NULL;
  GError *error = NULL;
  guint32 mask = 0;
  gsize capacity = 0;
  guint8 *data;
  gboolean ok;

  if (work_failed (work))
    return;
  if (!task->whole)
    {
      part_io (work, task, TRUE);
      return;
    }
  data = ncz_buffer_alloc (pipe->chunk_bytes, &capacity);
  /* an edge chunk's part beyond the extent holds fill values */
  for (guint d = 0; d < work->sel.rank; d++)
    if (task->origin[d] + pipe->chunk[d] > work->sel.extent[d])
      {
        ncz_h5_fill_storage (work->variable, data, pipe->chunk_bytes / pipe->element_size);
        break;
      }
  copy_chunk (&work->sel, pipe, task, data, work->user, TRUE);
  if (pipe->swap)
    ncz_byteswap_buffer (data, pipe->element_size, pipe->chunk_bytes / pipe->element_size);
  chunk = ncz_buffer_new_bytes (data, pipe->chunk_bytes, capacity);
  encoded = encode_chunk (work, task, chunk, &mask, &error);
  g_clear_pointer (&chunk, g_bytes_unref);
  if (encoded == NULL)
    {
      work_fail (work, error);
      return;
    }
  ncz_h5_lock ();
  ok = H5Dwrite_chunk (work->dset, H5P_DEFAULT, mask, task->origin, g_bytes_get_size (encoded),
                       g_bytes_get_data (encoded, NULL)) >= 0;
  if (!ok)
    {
      g_autofree char *where = chunk_text (work, task);

      ncz_h5_set_error (&error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: variable '%s': writing chunk %s", work->self->path, work->name,
                        where);
      work_fail (work, error);
    }
  ncz_h5_unlock ();
}

/* Looks up (lock held) the dataset and its pipeline; FALSE with no error
 * when the variable is not one this file does. */
static gboolean
prepare (NczHdf5Format *self, NczVariable *variable, const guint64 *start,
         const guint64 *count, const gint64 *stride, gboolean write, Work *work,
         GError **error)
{
  NczH5Node *node = ncz_h5_peek_node (self, variable);
  guint rank = ncz_variable_get_n_dimensions (variable);
  hid_t space;

  if (node == NULL || node->id < 0 || node->unsupported || rank == 0 || rank > H5S_MAX_RANK ||
      !direct_enabled ())
    return FALSE;
  if (node->pipeline == NULL)
    {
      node->pipeline = pipeline_resolve (self, variable, node->id, error);
      if (node->pipeline == NULL)
        return FALSE;
    }
  if (!node->pipeline->eligible || node->pipeline->rank != rank)
    return FALSE;
  if (write && !ncz_h5_extend_for (self, variable, node->id, start, count, stride, error))
    return FALSE;
  space = H5Dget_space (node->id);
  if (space < 0 || H5Sget_simple_extent_ndims (space) != (int) rank)
    {
      if (space >= 0)
        H5Sclose (space);
      H5Eclear2 (H5E_DEFAULT);
      return FALSE;
    }
  memset (work, 0, sizeof *work);
  work->sel.rank = rank;
  H5Sget_simple_extent_dims (space, work->sel.extent, NULL);
  H5Sclose (space);
  for (guint d = 0; d < rank; d++)
    {
      work->sel.start[d] = start[d];
      work->sel.count[d] = count[d];
      work->sel.stride[d] = stride != NULL ? (guint64) stride[d] : 1;
      if (work->sel.stride[d] == 0)
        return FALSE;
      if (count[d] > 0 && start[d] + (count[d] - 1) * work->sel.stride[d] >= work->sel.extent[d])
        work->sel.clipped = TRUE;
    }
  work->self = self;
  work->variable = variable;
  work->dset = node->id;
  work->pipe = node->pipeline;
  work->name = ncz_variable_get_full_name (variable);
  g_mutex_init (&work->lock);
  return TRUE;
}

static gboolean
run_tasks (Work *work, GPtrArray *tasks, NczParallelFunc func, GError **error)
{
  guint whole = 0;

  for (guint i = 0; i < tasks->len; i++)
    if (((ChunkTask *) tasks->pdata[i])->whole)
      whole++;
  /* the tests count these */
  g_debug ("%s: variable '%s': %s %u chunks raw, %u through HDF5's pipeline",
           work->self->path, work->name, func == read_task ? "reading" : "writing", whole,
           tasks->len - whole);
  ncz_parallel_for (tasks->pdata, tasks->len, func, work);
  g_mutex_clear (&work->lock);
  g_free (work->name);
  if (work->error != NULL)
    {
      g_propagate_error (error, work->error);
      return FALSE;
    }
  return !g_cancellable_set_error_if_cancelled (work->cancellable, error);
}

/* The shared body of the two entry points. */
static gboolean
direct_io (NczHdf5Format *self, NczVariable *variable, const guint64 *start,
           const guint64 *count, const gint64 *stride, guint8 *buffer, gboolean write,
           gboolean *handled, GCancellable *cancellable, GError **error)
{
  g_autoptr(GPtrArray) tasks = NULL;
  GError *local = NULL;
  Work work;
  gboolean ok;

  *handled = FALSE;
  ncz_h5_lock ();
  ok = prepare (self, variable, start, count, stride, write, &work, &local);
  ncz_h5_unlock ();
  if (!ok)
    {
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      return TRUE;
    }
  *handled = TRUE;
  work.user = buffer;
  work.cancellable = cancellable;
  if (work.sel.clipped && write)
    {
      /* the extent was grown to hold the selection: never here */
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: variable '%s': the hyperslab is outside the dataset", self->path,
                   work.name);
      g_mutex_clear (&work.lock);
      g_free (work.name);
      return FALSE;
    }
  if (work.sel.clipped)
    {
      /* what lies beyond the extent reads as fill */
      guint64 n = 1;

      for (guint d = 0; d < work.sel.rank; d++)
        n *= count[d];
      ncz_h5_fill_storage (variable, buffer, n);
    }
  tasks = plan_chunks (&work.sel, work.pipe);
  return run_tasks (&work, tasks, write ? write_task : read_task, error);
}

gboolean
ncz_h5_direct_read (NczHdf5Format *self, NczVariable *variable,
                    const guint64 *start, const guint64 *count, const gint64 *stride,
                    gpointer buffer, gboolean *handled,
                    GCancellable *cancellable, GError **error)
{
  return direct_io (self, variable, start, count, stride, buffer, FALSE, handled,
                    cancellable, error);
}

gboolean
ncz_h5_direct_write (NczHdf5Format *self, NczVariable *variable,
                     const guint64 *start, const guint64 *count, const gint64 *stride,
                     gconstpointer buffer, gboolean *handled,
                     GCancellable *cancellable, GError **error)
{
  /* the buffer is only read (write_task copies from it) */
  return direct_io (self, variable, start, count, stride, (guint8 *) buffer, TRUE, handled,
                    cancellable, error);
}
