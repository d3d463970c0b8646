/* hdf5-contig.c: contiguous datasets of read-only files read without
 * libhdf5
 *
 * A contiguous dataset is one block of bytes in the file, elements in C
 * order. In a file opened read-only (see ncz_h5_open_raw_source(): not
 * one libhdf5 shares with a writable open), when the block exists (an
 * unallocated dataset reads as fill values, which libhdf5 gives), the
 * dataset has no filters and no external storage, and its type in the
 * file is the variable's in memory byte for byte, or but for the byte
 * order, a hyperslab is read here: the selection is cut into runs of
 * elements that are contiguous in the file and in the caller's buffer,
 * and each run is read with pread() on the file's own descriptor
 * straight into the caller's buffer (for #mode=bytes, with one ranged
 * read of the store, copied in), outside the HDF5 lock. Large reads are cut into pieces read on
 * the worker pool, so that several reads are in flight (a page-cache
 * copy on every core, or several requests to S3). Runs that are short
 * and close together in the file are read with the bytes between them,
 * into a small buffer, and copied out, as libhdf5's sieve buffer does.
 * The file's byte order is swapped in place after the read.
 *
 * Only the metadata (layout, address, type, extent) is asked of libhdf5,
 * once per variable, with the lock held. The dataset's block must lie
 * within the file as it was when opened: a damaged address or extent is
 * an error naming the file and the variable, never a read outside the
 * file (libhdf5 itself reads zeros, or fails, there).
 *
 * What stays with libhdf5 (hdf5-io.c's H5Dread): files open for writing,
 * strided selections, selections that run past the dataset's extent,
 * type conversions, strings, compact and external storage, unallocated
 * or empty datasets, and, through a store, selections whose runs are
 * shorter than the store driver's block (its cache serves them, with
 * fewer requests). NCZ_HDF5_DIRECT=0 turns this path off too.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <string.h>

#include "hdf5-private.h"

/* A read of a large selection is cut into at least this many pieces per
 * worker (so that a worker slowed by other load holds back little), and
 * pieces of at least PIECE_MIN bytes (a smaller read is one piece, read
 * by the calling thread). */
#define PIECES_PER_WORKER 4
#define PIECE_MIN ((guint64) 1 << 20)
/* Runs of at most SIEVE_RUN bytes at most SIEVE_GAP bytes apart are read
 * together, with what lies between them, through a buffer of at most
 * SIEVE_WINDOW bytes: a read call costs about what copying a few KiB
 * does. */
#define SIEVE_RUN ((guint64) 4096)
#define SIEVE_GAP ((guint64) 4096)
#define SIEVE_WINDOW ((guint64) 256 * 1024)
#define SIEVE_SEGMENTS 256

struct _NczH5Contiguous {
  gboolean eligible;    /* FALSE: libhdf5 reads it */
  guint rank;
  hsize_t dims[H5S_MAX_RANK];
  gsize element_size;
  gboolean swap;        /* the file's byte order is not the host's */
  guint64 offset;       /* where element 0 is in the file (user block included) */
  guint64 size;         /* the bytes of the whole extent */
};

void
ncz_h5_contiguous_free (struct _NczH5Contiguous *contiguous)
{
  g_free (contiguous);
}

/* NCZ_HDF5_DIRECT=0: libhdf5 reads every dataset (as hdf5-direct.c). */
static gboolean
enabled (void)
{
  static gsize once;
  static gboolean on;

  if (g_once_init_enter (&once))
    {
      const char *value = g_getenv ("NCZ_HDF5_DIRECT");

      on = value == NULL || g_strcmp0 (value, "0") != 0;
      g_once_init_leave (&once, 1);
    }
  return on;
}

/* Whether @file_type holds @type's values in memory byte for byte, or
 * byte for byte once swapped (*@swap). */
static gboolean
same_bytes (hid_t file_type, NczDataType type, gboolean *swap)
{
  H5T_class_t klass = H5Tget_class (file_type);
  gboolean same = FALSE;
  hid_t mem_type;

  *swap = FALSE;
  if (type == NCZ_DATA_TYPE_CHAR)
    return klass == H5T_STRING && H5Tget_size (file_type) == 1 &&
           H5Tis_variable_str (file_type) == 0;
  if (klass != H5T_INTEGER && klass != H5T_FLOAT)
    return FALSE;
  mem_type = ncz_h5_mem_type (type);
  if (mem_type < 0)
    return FALSE;
  if (H5Tequal (file_type, mem_type) > 0)
    same = TRUE;
  else if (H5Tset_order (mem_type, G_BYTE_ORDER == G_BIG_ENDIAN ? H5T_ORDER_LE : H5T_ORDER_BE)
           >= 0 && H5Tequal (file_type, mem_type) > 0)
    same = *swap = TRUE;
  H5Tclose (mem_type);
  /* one byte has no order */
  if (H5Tget_size (file_type) == 1)
    *swap = FALSE;
  return same;
}

/* Works out (lock held) whether @dset is one this file reads here. Never
 * an error: what does not qualify goes to libhdf5, which says what is
 * wrong with it. */
static struct _NczH5Contiguous *
resolve (NczHdf5Format *self, NczVariable *variable, hid_t dset)
{
  struct _NczH5Contiguous *c = g_new0 (struct _NczH5Contiguous, 1);
  NczDataType type = ncz_variable_get_value_type (variable);
  hid_t dcpl = H5I_INVALID_HID, file_type = H5I_INVALID_HID, space = H5I_INVALID_HID;
  H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
  H5S_class_t space_class;
  haddr_t offset;
  guint64 n = 1;
  int rank;

  if (!self->raw_source || type == NCZ_DATA_TYPE_STRING)
    return c;
  dcpl = H5Dget_create_plist (dset);
  if (dcpl < 0 || H5Pget_layout (dcpl) != H5D_CONTIGUOUS || H5Pget_nfilters (dcpl) != 0 ||
      H5Pget_external_count (dcpl) != 0)
    goto out;
  file_type = H5Dget_type (dset);
  if (file_type < 0 || !same_bytes (file_type, type, &c->swap))
    goto out;
  c->element_size = H5Tget_size (file_type);
  if (c->element_size == 0 ||
      c->element_size != ncz_variable_get_storage_element_size (variable))
    goto out;
  space = H5Dget_space (dset);
  if (space < 0)
    goto out;
  space_class = H5Sget_simple_extent_type (space);
  rank = H5Sget_simple_extent_ndims (space);
  if ((space_class != H5S_SIMPLE && space_class != H5S_SCALAR) || rank < 0 ||
      rank > H5S_MAX_RANK || (guint) rank != ncz_variable_get_n_dimensions (variable))
    goto out;
  c->rank = (guint) rank;
  if (rank > 0 && H5Sget_simple_extent_dims (space, c->dims, NULL) != rank)
    goto out;
  for (guint d = 0; d < c->rank; d++)
    {
      if (c->dims[d] == 0 || n > G_MAXUINT64 / c->dims[d])
        goto out;
      n *= c->dims[d];
    }
  if (n > G_MAXUINT64 / c->element_size)
    goto out;
  c->size = n * c->element_size;
  /* never written: fill values, as libhdf5 gives them (H5Dget_offset()
   * is not enough to tell: libhdf5 1.10 adds the user block's size to an
   * undefined address) */
  if (H5Dget_space_status (dset, &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED)
    goto out;
  offset = H5Dget_offset (dset);
  if (offset == HADDR_UNDEF || offset < self->base_addr)
    goto out;
  c->offset = offset;
  c->eligible = TRUE;

out:
  H5Eclear2 (H5E_DEFAULT);
  if (space >= 0)
    H5Sclose (space);
  if (file_type >= 0)
    H5Tclose (file_type);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  return c;
}

/* ---- the plan: runs, pieces ---- */

typedef struct {
  NczHdf5Format *self;
  const struct _NczH5Contiguous *c;
  char *name;
  guint8 *user;
  GCancellable *cancellable;
  /* the selection: runs of run_bytes bytes, one per index of the outer
   * dimensions 0 .. outer - 1 */
  guint outer;
  guint64 start[H5S_MAX_RANK];
  guint64 count[H5S_MAX_RANK];
  guint64 pitch[H5S_MAX_RANK];  /* bytes in the file from one index to the next */
  guint64 first;                /* file offset of the first run */
  guint64 run_bytes;
  guint64 total;                /* bytes of the selection */
  GMutex lock;
  GError *error;
} Plan;

typedef struct {
  guint64 begin;                /* bytes of the caller's buffer */
  guint64 end;
} Piece;

/* The file offset of run @r. */
static guint64
run_offset (const Plan *plan, guint64 r)
{
  guint64 offset = plan->first;

  for (guint d = plan->outer; d > 0; d--)
    {
      offset += (r % plan->count[d - 1]) * plan->pitch[d - 1];
      r /= plan->count[d - 1];
    }
  return offset;
}

static gboolean
plan_failed (Plan *plan)
{
  gboolean failed;

  g_mutex_lock (&plan->lock);
  failed = plan->error != NULL;
  g_mutex_unlock (&plan->lock);
  return failed || g_cancellable_is_cancelled (plan->cancellable);
}

static void
plan_fail (Plan *plan, GError *error)
{
  g_mutex_lock (&plan->lock);
  if (plan->error == NULL)
    plan->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&plan->lock);
}

/* Reads @size bytes at file offset @offset into @buffer, from the local
 * file or the store of a #mode=bytes file. */
static gboolean
read_at (Plan *plan, guint64 offset, guint64 size, guint8 *buffer, GError **error)
{
  NczHdf5Format *self = plan->self;
  g_autoptr(GError) local = NULL;
  const char *reason = "the file ends before them";

  if (self->bytes_store != NULL)
    {
      g_autoptr(GBytes) bytes = ncz_store_read_range (self->bytes_store, self->bytes_key,
                                                      offset, (gint64) size,
                                                      plan->cancellable, &local);

      if (bytes != NULL && g_bytes_get_size (bytes) == size)
        {
          memcpy (buffer, g_bytes_get_data (bytes, NULL), size);
          return TRUE;
        }
      if (local != NULL)
        reason = local->message;
    }
  else
    {
      gssize n = ncz_h5_pread_all (self->raw_fd, buffer, size, offset);

      if (n == (gssize) size)
        return TRUE;
      if (n < 0)
        reason = g_strerror (errno);
    }
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
               "%s: variable '%s': reading %" G_GUINT64_FORMAT " bytes at offset %"
               G_GUINT64_FORMAT ": %s", self->path, plan->name, size, offset, reason);
  return FALSE;
}

/* One part of a run: @length bytes at file offset @offset, for the
 * caller's buffer at @at. */
typedef struct {
  guint64 offset;
  guint64 length;
  guint64 at;
} Segment;

/* Reads the segments [@first, @first + @n) of @segs: one read straight
 * into the caller's buffer for one, one read through @window and copies
 * for more (they lie within SIEVE_WINDOW bytes of the file). */
static gboolean
read_segments (Plan *plan, const Segment *segs, guint n, guint8 **window, GError **error)
{
  guint64 begin = segs[0].offset;
  guint64 end = segs[n - 1].offset + segs[n - 1].length;

  if (n == 1)
    return read_at (plan, segs[0].offset, segs[0].length, plan->user + segs[0].at, error);
  if (*window == NULL)
    *window = g_malloc (SIEVE_WINDOW);
  if (!read_at (plan, begin, end - begin, *window, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    memcpy (plan->user + segs[i].at, *window + (segs[i].offset - begin), segs[i].length);
  return TRUE;
}

static void
read_piece (gpointer item, gpointer user_data)
{
  Piece *piece = item;
  Plan *plan = user_data;
  g_autofree guint8 *window = NULL;
  Segment segs[SIEVE_SEGMENTS];
  guint n_segs = 0;
  guint64 at = piece->begin;
  GError *error = NULL;

  if (plan_failed (plan))
    return;
  while (at < piece->end)
    {
      guint64 r = at / plan->run_bytes, within = at % plan->run_bytes;
      Segment s;

      s.offset = run_offset (plan, r) + within;
      s.length = MIN (plan->run_bytes - within, piece->end - at);
      s.at = at;
      at += s.length;
      /* joins the segments before it when all are short and close */
      if (n_segs > 0)
        {
          const Segment *last = &segs[n_segs - 1];
          guint64 last_end = last->offset + last->length;

          if (n_segs < G_N_ELEMENTS (segs) && s.length <= SIEVE_RUN &&
              last->length <= SIEVE_RUN && s.offset >= last_end &&
              s.offset - last_end <= SIEVE_GAP &&
              s.offset + s.length - segs[0].offset <= SIEVE_WINDOW)
            {
              segs[n_segs++] = s;
              continue;
            }
          if (!read_segments (plan, segs, n_segs, &window, &error))
            {
              plan_fail (plan, error);
              return;
            }
          n_segs = 0;
          if (plan_failed (plan))
            return;
        }
      segs[n_segs++] = s;
    }
  if (n_segs > 0 && !read_segments (plan, segs, n_segs, &window, &error))
    {
      plan_fail (plan, error);
      return;
    }
  if (plan->c->swap)
    ncz_byteswap_buffer (plan->user + piece->begin, plan->c->element_size,
                         (piece->end - piece->begin) / plan->c->element_size);
}

/* The selection's runs; FALSE if libhdf5 must read it (strided, or past
 * the extent). */
static gboolean
plan_runs (Plan *plan, const guint64 *start, const guint64 *count, const gint64 *stride)
{
  const struct _NczH5Contiguous *c = plan->c;
  guint rank = c->rank;
  guint64 pitch = c->element_size;
  guint64 total = c->element_size;
  int inner;

  for (guint d = 0; d < rank; d++)
    {
      if (count[d] == 0 || start[d] >= c->dims[d] || count[d] > c->dims[d] - start[d])
        return FALSE;
      if (stride != NULL && stride[d] != 1 && count[d] > 1)
        return FALSE;
      total *= count[d];
    }
  /* the run spans the innermost dimensions selected whole and the one
   * outside them */
  plan->first = c->offset;
  plan->run_bytes = c->element_size;
  inner = (int) rank - 1;
  for (int d = (int) rank - 1; d >= 0; d--)
    {
      plan->pitch[d] = pitch;
      plan->start[d] = start[d];
      plan->count[d] = count[d];
      plan->first += start[d] * pitch;
      pitch *= c->dims[d];
    }
  while (inner > 0 && start[inner] == 0 && count[inner] == c->dims[inner])
    inner--;
  for (int d = (int) rank - 1; d >= inner && d >= 0; d--)
    plan->run_bytes *= count[d];
  plan->outer = inner > 0 ? (guint) inner : 0;
  plan->total = total;
  return TRUE;
}

gboolean
ncz_h5_contiguous_read (NczHdf5Format *self, NczVariable *variable,
                        const guint64 *start, const guint64 *count, const gint64 *stride,
                        gpointer buffer, gboolean *handled,
                        GCancellable *cancellable, GError **error)
{
  NczH5Node *node;
  Plan plan;
  g_autofree Piece *pieces = NULL;
  g_autofree gpointer *items = NULL;
  guint64 piece_bytes;
  guint n_pieces;

  *handled = FALSE;
  if (!self->raw_source || !enabled ())
    return TRUE;
  ncz_h5_lock ();
  node = ncz_h5_peek_node (self, variable);
  if (node == NULL || node->id < 0 || node->unsupported)
    {
      ncz_h5_unlock ();
      return TRUE;
    }
  if (node->contiguous == NULL)
    node->contiguous = resolve (self, variable, node->id);
  ncz_h5_unlock ();
  /* resolved once, never changed in a read-only file */
  if (!node->contiguous->eligible)
    return TRUE;

  memset (&plan, 0, sizeof plan);
  plan.c = node->contiguous;
  if (!plan_runs (&plan, start, count, stride))
    return TRUE;
  *handled = TRUE;
  plan.self = self;
  plan.name = ncz_variable_get_full_name (variable);
  plan.user = buffer;
  plan.cancellable = cancellable;
  if (plan.c->offset > self->raw_end || plan.c->size > self->raw_end - plan.c->offset)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "%s: variable '%s': its data (%" G_GUINT64_FORMAT " bytes at offset %"
                   G_GUINT64_FORMAT ") runs past the end of the file (%" G_GUINT64_FORMAT
                   " bytes)", self->path, plan.name, plan.c->size, plan.c->offset,
                   self->raw_end);
      g_free (plan.name);
      return FALSE;
    }

  /* through a store, runs shorter than the store driver's block are left
   * to libhdf5 and the driver's block cache, where the data of a small
   * file often is already and the runs of a sparse selection share
   * requests (the driver sends raw data reads of a block or more to the
   * store itself): one request per run would cost more */
  if (self->bytes_store != NULL && plan.run_bytes < NCZ_H5_STORE_BLOCK_SIZE)
    {
      *handled = FALSE;
      g_free (plan.name);
      return TRUE;
    }

  /* pieces of whole elements, so that each swaps its own */
  piece_bytes = MAX (plan.total / (PIECES_PER_WORKER * ncz_parallel_get_n_workers ()),
                     PIECE_MIN);
  piece_bytes -= piece_bytes % plan.c->element_size;
  n_pieces = (guint) ((plan.total + piece_bytes - 1) / piece_bytes);
  pieces = g_new (Piece, n_pieces);
  items = g_new (gpointer, n_pieces);
  for (guint i = 0; i < n_pieces; i++)
    {
      pieces[i].begin = i * piece_bytes;
      pieces[i].end = MIN (pieces[i].begin + piece_bytes, plan.total);
      items[i] = &pieces[i];
    }
  g_mutex_init (&plan.lock);
  /* the tests count these */
  g_debug ("%s: variable '%s': reading %" G_GUINT64_FORMAT " bytes of contiguous data "
           "raw, in %u pieces", self->path, plan.name, plan.total, n_pieces);
  ncz_parallel_for (items, n_pieces, read_piece, &plan);
  g_mutex_clear (&plan.lock);
  g_free (plan.name);
  if (plan.error != NULL)
    {
      g_propagate_error (error, plan.error);
      return FALSE;
    }
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}
