/* ncz-chunk-info.c: the chunk inventory of a variable (which chunks are
 * stored and their stored sizes), asked of the format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"

/* Chunks asked of the format in one call: bounds the memory of a query
 * over a huge grid and lets cancellation act between batches. */
#define QUERY_BATCH 4096

/**
 * NczChunkInfo:
 *
 * What is stored of one chunk of a variable: its index in the chunk grid,
 * whether it was ever written (a chunk that was not reads as the fill
 * value), its size as stored (after the filters) and its raw size (the
 * decoded chunk). Given by [method@Ncz.Variable.query_chunks]; the
 * properties are read-only and never change.
 *
 * Since: 1.0
 */
struct _NczChunkInfo
{
  GObject parent_instance;
  guint64 *index;
  guint n_dims;
  gboolean stored;
  guint64 stored_size;
  guint64 raw_size;
};

G_DEFINE_FINAL_TYPE (NczChunkInfo, ncz_chunk_info, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_INDEX,
  PROP_STORED,
  PROP_STORED_SIZE,
  PROP_RAW_SIZE,
  N_PROPS
};

static GParamSpec *chunk_info_props[N_PROPS];

static void
ncz_chunk_info_finalize (GObject *object)
{
  NczChunkInfo *self = NCZ_CHUNK_INFO (object);
  g_free (self->index);
  G_OBJECT_CLASS (ncz_chunk_info_parent_class)->finalize (object);
}

static void
ncz_chunk_info_get_property (GObject *object, guint prop_id, GValue *value,
                             GParamSpec *pspec)
{
  NczChunkInfo *self = NCZ_CHUNK_INFO (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      g_value_take_variant (value, ncz_chunk_info_get_index_variant (self));
      break;
    case PROP_STORED:
      g_value_set_boolean (value, self->stored);
      break;
    case PROP_STORED_SIZE:
      g_value_set_uint64 (value, self->stored_size);
      break;
    case PROP_RAW_SIZE:
      g_value_set_uint64 (value, self->raw_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_chunk_info_class_init (NczChunkInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ncz_chunk_info_finalize;
  object_class->get_property = ncz_chunk_info_get_property;

  /**
   * NczChunkInfo:index: (getter get_index_variant)
   *
   * The chunk's index in the chunk grid, one value per dimension, as a
   * #GVariant of type "at" (empty for a scalar variable).
   *
   * Since: 1.0
   */
  chunk_info_props[PROP_INDEX] =
    g_param_spec_variant ("index", NULL, NULL, G_VARIANT_TYPE ("at"), NULL, ro);
  /**
   * NczChunkInfo:stored: (getter get_stored)
   *
   * Whether the chunk is stored; one that is not was never written and
   * reads as the fill value.
   *
   * Since: 1.0
   */
  chunk_info_props[PROP_STORED] = g_param_spec_boolean ("stored", NULL, NULL, FALSE, ro);
  /**
   * NczChunkInfo:stored-size: (getter get_stored_size)
   *
   * The size in bytes of the chunk as stored (after compression and the
   * other filters), 0 when it is not stored.
   *
   * Since: 1.0
   */
  chunk_info_props[PROP_STORED_SIZE] =
    g_param_spec_uint64 ("stored-size", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  /**
   * NczChunkInfo:raw-size: (getter get_raw_size)
   *
   * The size in bytes of the decoded chunk: the elements of the full
   * chunk shape times the size of the variable's data type.
   *
   * Since: 1.0
   */
  chunk_info_props[PROP_RAW_SIZE] =
    g_param_spec_uint64 ("raw-size", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  g_object_class_install_properties (object_class, N_PROPS, chunk_info_props);
}

static void
ncz_chunk_info_init (NczChunkInfo *self)
{
}

/**
 * ncz_chunk_info_new:
 * @index: (array length=n_dims) (nullable): the chunk's index in the grid
 * @n_dims: the number of values in @index (the variable's rank)
 * @stored: whether the chunk is stored
 * @stored_size: its size as stored in bytes (ignored when not @stored)
 * @raw_size: the size in bytes of the decoded chunk
 *
 * Makes the description of one chunk, as [method@Ncz.Variable.query_chunks]
 * gives them (for views to show made-up inventories).
 *
 * Returns: (transfer full): a new #NczChunkInfo
 * Since: 1.0
 */
NczChunkInfo *
ncz_chunk_info_new (const guint64 *index, guint n_dims, gboolean stored,
                    guint64 stored_size, guint64 raw_size)
{
  NczChunkInfo *self;

  g_return_val_if_fail (n_dims == 0 || index != NULL, NULL);
  self = g_object_new (NCZ_TYPE_CHUNK_INFO, NULL);
  self->n_dims = n_dims;
  self->index = n_dims ? g_memdup2 (index, sizeof (guint64) * n_dims) : NULL;
  self->stored = stored != FALSE;
  self->stored_size = stored ? stored_size : 0;
  self->raw_size = raw_size;
  return self;
}

/**
 * ncz_chunk_info_get_index:
 * @self: a chunk description
 * @n_dims: (out) (optional): the number of values returned
 *
 * Gives the chunk's index in the chunk grid of its variable.
 *
 * Returns: (array length=n_dims) (transfer none) (nullable): the index,
 *   one value per dimension (%NULL for a scalar variable)
 * Since: 1.0
 */
const guint64 *
ncz_chunk_info_get_index (NczChunkInfo *self, guint *n_dims)
{
  g_return_val_if_fail (NCZ_IS_CHUNK_INFO (self), NULL);
  if (n_dims)
    *n_dims = self->n_dims;
  return self->index;
}

/**
 * ncz_chunk_info_get_index_variant:
 * @self: a chunk description
 *
 * Gives the chunk's index as a #GVariant of type "at".
 *
 * Returns: (transfer full): the index
 * Since: 1.0
 */
GVariant *
ncz_chunk_info_get_index_variant (NczChunkInfo *self)
{
  g_return_val_if_fail (NCZ_IS_CHUNK_INFO (self), NULL);
  return g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, self->index,
                                                        self->n_dims, sizeof (guint64)));
}

/**
 * ncz_chunk_info_get_stored:
 * @self: a chunk description
 *
 * Tells whether the chunk is stored, or was never written (and reads as
 * the fill value).
 *
 * Returns: %TRUE when stored
 * Since: 1.0
 */
gboolean
ncz_chunk_info_get_stored (NczChunkInfo *self)
{
  g_return_val_if_fail (NCZ_IS_CHUNK_INFO (self), FALSE);
  return self->stored;
}

/**
 * ncz_chunk_info_get_stored_size:
 * @self: a chunk description
 *
 * Gives the chunk's size as stored, after the filters.
 *
 * Returns: the size in bytes, 0 for a chunk not stored
 * Since: 1.0
 */
guint64
ncz_chunk_info_get_stored_size (NczChunkInfo *self)
{
  g_return_val_if_fail (NCZ_IS_CHUNK_INFO (self), 0);
  return self->stored_size;
}

/**
 * ncz_chunk_info_get_raw_size:
 * @self: a chunk description
 *
 * Gives the size of the decoded chunk (full chunk shape times the size
 * of the data type), to compare with its stored size.
 *
 * Returns: the size in bytes
 * Since: 1.0
 */
guint64
ncz_chunk_info_get_raw_size (NczChunkInfo *self)
{
  g_return_val_if_fail (NCZ_IS_CHUNK_INFO (self), 0);
  return self->raw_size;
}

/* The chunk shape of @self used for the grid: the declared chunk sizes,
 * or the full shape for a contiguous variable (one chunk). */
static guint64 *
grid_chunk_shape (NczVariable *self, const guint64 *shape, guint n_dims)
{
  const guint64 *chunks = ncz_variable_get_chunk_sizes (self, NULL);
  guint64 *out = g_new0 (guint64, MAX (n_dims, 1));

  for (guint i = 0; i < n_dims; i++)
    {
      if (ncz_variable_get_contiguous (self) || chunks == NULL || chunks[i] == 0)
        out[i] = MAX (shape[i], 1);
      else
        out[i] = chunks[i];
    }
  return out;
}

/**
 * ncz_variable_get_chunk_grid:
 * @self: a variable
 * @n_dims: (out) (optional): the rank
 *
 * Gives the number of chunks along each dimension: the dimension's
 * current length divided by the chunk size, rounded up (0 along an empty
 * unlimited dimension). A contiguous variable has one chunk.
 *
 * Returns: (array length=n_dims) (transfer full) (nullable): the number
 *   of chunks per dimension (%NULL for a scalar variable, which has one
 *   chunk)
 * Since: 1.0
 */
guint64 *
ncz_variable_get_chunk_grid (NczVariable *self, guint *n_dims)
{
  guint n = 0;
  g_autofree guint64 *shape = NULL;
  g_autofree guint64 *chunk = NULL;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  shape = ncz_variable_get_shape (self, &n);
  if (n_dims)
    *n_dims = n;
  if (n == 0)
    return NULL;
  chunk = grid_chunk_shape (self, shape, n);
  for (guint i = 0; i < n; i++)
    shape[i] = shape[i] / chunk[i] + (shape[i] % chunk[i] != 0);
  return g_steal_pointer (&shape);
}

static NczFormat *
query_format (NczVariable *self, GError **error)
{
  NczDataset *ds = ncz_variable_get_dataset (self);
  g_autofree char *fqn = ncz_variable_get_full_name (self);

  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of variable '%s' is gone", fqn);
      return NULL;
    }
  if (ncz_dataset_is_closed (ds))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed: the chunks of variable '%s' can no longer "
                   "be listed", ncz_url_get_original (ncz_dataset_get_url (ds)), fqn);
      return NULL;
    }
  if (ncz_dataset_get_format (ds) == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "dataset '%s' has no format: the chunks of variable '%s' cannot be "
                   "listed", ncz_url_get_original (ncz_dataset_get_url (ds)), fqn);
      return NULL;
    }
  return ncz_dataset_get_format (ds);
}

typedef struct {
  guint n_dims;
  guint64 *start;   /* in chunks */
  guint64 *count;
} Box;

static void
box_free (Box *b)
{
  g_free (b->start);
  g_free (b->count);
  g_free (b);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Box, box_free)

/* Checks the box (@n_start == @n_count == 0: the whole grid) against the
 * grid of @self and returns it, or NULL with @error set. */
static Box *
make_box (NczVariable *self, const guint64 *start, guint n_start, const guint64 *count,
          guint n_count, GError **error)
{
  guint n = 0;
  g_autofree guint64 *grid = ncz_variable_get_chunk_grid (self, &n);
  g_autofree char *fqn = ncz_variable_get_full_name (self);
  Box *b;

  if (n_start == 0 && n_count == 0)
    {
      b = g_new0 (Box, 1);
      b->n_dims = n;
      b->start = g_new0 (guint64, MAX (n, 1));
      b->count = g_new0 (guint64, MAX (n, 1));
      for (guint i = 0; i < n; i++)
        b->count[i] = grid[i];
      return b;
    }
  if (n_start != n || n_count != n)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has %u dimensions: a box of chunks with %u start and "
                   "%u count values does not fit it", fqn, n, n_start, n_count);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    if (start[i] > grid[i] || count[i] > grid[i] - start[i])
      {
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                     "variable '%s': chunks %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                     " (count %" G_GUINT64_FORMAT ") along dimension %u are outside its "
                     "grid of %" G_GUINT64_FORMAT " chunks", fqn, start[i],
                     start[i] + count[i], count[i], i, grid[i]);
        return NULL;
      }
  b = g_new0 (Box, 1);
  b->n_dims = n;
  b->start = g_memdup2 (start, sizeof (guint64) * MAX (n, 1));
  b->count = g_memdup2 (count, sizeof (guint64) * MAX (n, 1));
  return b;
}

static guint64
raw_chunk_size (NczVariable *self)
{
  guint n = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (self, &n);
  g_autofree guint64 *chunk = grid_chunk_shape (self, shape, n);
  guint64 size = ncz_data_type_get_size (ncz_variable_get_value_type (self));

  for (guint i = 0; i < n; i++)
    size *= chunk[i];
  return size;
}

/* Calls @func on each batch of chunk indices of @box in C order with
 * the sizes the format gave (-1: not stored). */
typedef void (*BatchFunc) (const guint64 *indices, guint rank, guint n,
                           const gint64 *sizes, gpointer user_data);

static gboolean
query_box (NczVariable *self, const Box *box, BatchFunc func, gpointer user_data,
           GCancellable *cancellable, GError **error)
{
  NczFormat *format = query_format (self, error);
  guint rank = box->n_dims;
  guint64 total = 1;
  g_autofree guint64 *pos = NULL;
  g_autofree guint64 *indices = NULL;

  if (format == NULL)
    return FALSE;
  for (guint i = 0; i < rank; i++)
    total *= box->count[i];
  if (total == 0)
    return TRUE;
  pos = g_memdup2 (box->start, sizeof (guint64) * MAX (rank, 1));
  indices = g_new (guint64, (gsize) QUERY_BATCH * MAX (rank, 1));

  for (guint64 done = 0; done < total;)
    {
      guint n = (guint) MIN ((guint64) QUERY_BATCH, total - done);
      g_autoptr(GArray) sizes = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      for (guint k = 0; k < n; k++)
        {
          memcpy (indices + (gsize) k * rank, pos, sizeof (guint64) * rank);
          for (guint d = rank; d-- > 0;)
            {
              if (++pos[d] < box->start[d] + box->count[d])
                break;
              pos[d] = box->start[d];
            }
        }
      sizes = ncz_format_query_chunks (format, self, indices, (gsize) n * rank, n,
                                       cancellable, error);
      if (sizes == NULL)
        return FALSE;
      func (indices, rank, n, (const gint64 *) sizes->data, user_data);
      done += n;
    }
  return TRUE;
}

typedef struct {
  GListStore *list;
  guint64 raw_size;
} ListAcc;

static void
list_batch (const guint64 *indices, guint rank, guint n, const gint64 *sizes,
            gpointer user_data)
{
  ListAcc *acc = user_data;
  g_autoptr(GPtrArray) items = g_ptr_array_new_full (n, g_object_unref);

  for (guint k = 0; k < n; k++)
    g_ptr_array_add (items, ncz_chunk_info_new (indices + (gsize) k * rank, rank, sizes[k] >= 0,
                                                sizes[k] >= 0 ? (guint64) sizes[k] : 0,
                                                acc->raw_size));
  g_list_store_splice (acc->list, g_list_model_get_n_items (G_LIST_MODEL (acc->list)), 0,
                       items->pdata, items->len);
}

static GListModel *
query_chunks_box (NczVariable *self, const Box *box, GCancellable *cancellable, GError **error)
{
  ListAcc acc;
  g_autoptr(GListStore) list = g_list_store_new (NCZ_TYPE_CHUNK_INFO);

  acc.list = list;
  acc.raw_size = raw_chunk_size (self);
  if (!query_box (self, box, list_batch, &acc, cancellable, error))
    return NULL;
  return G_LIST_MODEL (g_steal_pointer (&list));
}

/**
 * ncz_variable_query_chunks:
 * @self: a variable
 * @start: (array length=n_start) (nullable): the first chunk index along
 *   each dimension, in chunks
 * @n_start: the number of values in @start: the rank of the variable, or
 *   0 with @n_count 0 for the whole variable
 * @count: (array length=n_count) (nullable): the number of chunks along
 *   each dimension
 * @n_count: the number of values in @count
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Lists what is stored of the chunks in a box of the variable's chunk
 * grid (see [method@Ncz.Variable.get_chunk_grid]): for each chunk, in C
 * order, whether it is stored or was never written (reads as the fill
 * value), its size as stored and its decoded size. The format backend
 * asks the storage for the sizes without reading the chunks (several
 * requests in flight on a remote store). A format that cannot tell fails
 * with %NCZ_BACKEND_ERROR_UNSUPPORTED; a box outside the grid with
 * %NCZ_DATASET_ERROR_INVALID.
 *
 * Returns: (transfer full): a #GListModel of #NczChunkInfo, or %NULL on
 *   error
 * Since: 1.0
 */
GListModel *
ncz_variable_query_chunks (NczVariable *self,
                           const guint64 *start, guint n_start,
                           const guint64 *count, guint n_count,
                           GCancellable *cancellable, GError **error)
{
  g_autoptr(Box) box = NULL;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  g_return_val_if_fail (n_start == 0 || start != NULL, NULL);
  g_return_val_if_fail (n_count == 0 || count != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  box = make_box (self, start, n_start, count, n_count, error);
  if (box == NULL)
    return NULL;
  return query_chunks_box (self, box, cancellable, error);
}

static void
query_chunks_thread (GTask *task, gpointer source, gpointer task_data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  GListModel *model = query_chunks_box (NCZ_VARIABLE (source), task_data, cancellable, &error);

  if (model)
    g_task_return_pointer (task, model, g_object_unref);
  else
    g_task_return_error (task, error);
}

/**
 * ncz_variable_query_chunks_async:
 * @self: a variable
 * @start: (array length=n_start) (nullable): the first chunk index along
 *   each dimension, in chunks
 * @n_start: the number of values in @start: the rank of the variable, or
 *   0 with @n_count 0 for the whole variable
 * @count: (array length=n_count) (nullable): the number of chunks along
 *   each dimension
 * @n_count: the number of values in @count
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Lists what is stored of a box of chunks, as
 * [method@Ncz.Variable.query_chunks], in a worker thread.
 *
 * Since: 1.0
 */
void
ncz_variable_query_chunks_async (NczVariable *self,
                                 const guint64 *start, guint n_start,
                                 const guint64 *count, guint n_count,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  Box *box;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_return_if_fail (n_start == 0 || start != NULL);
  g_return_if_fail (n_count == 0 || count != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_variable_query_chunks_async);
  box = make_box (self, start, n_start, count, n_count, &error);
  if (box == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, box, (GDestroyNotify) box_free);
  g_task_run_in_thread (task, query_chunks_thread);
}

/**
 * ncz_variable_query_chunks_finish:
 * @self: a variable
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Completes a [method@Ncz.Variable.query_chunks_async] call.
 *
 * Returns: (transfer full): a #GListModel of #NczChunkInfo, or %NULL on
 *   error
 * Since: 1.0
 */
GListModel *
ncz_variable_query_chunks_finish (NczVariable *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        ncz_variable_query_chunks_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct {
  guint64 stored_size;
  guint64 raw_size;
  guint64 n_stored;
  guint64 n_chunks;
} SizeAcc;

static void
size_batch (const guint64 *indices, guint rank, guint n, const gint64 *sizes,
            gpointer user_data)
{
  SizeAcc *acc = user_data;

  acc->n_chunks += n;
  for (guint k = 0; k < n; k++)
    if (sizes[k] >= 0)
      {
        acc->n_stored++;
        acc->stored_size += (guint64) sizes[k];
      }
}

static gboolean
storage_size (NczVariable *self, SizeAcc *acc, GCancellable *cancellable, GError **error)
{
  g_autoptr(Box) box = make_box (self, NULL, 0, NULL, 0, error);

  memset (acc, 0, sizeof *acc);
  if (box == NULL || !query_box (self, box, size_batch, acc, cancellable, error))
    return FALSE;
  acc->raw_size = acc->n_chunks * raw_chunk_size (self);
  return TRUE;
}

/**
 * ncz_variable_get_storage_size:
 * @self: a variable
 * @stored_size: (out) (optional): the bytes stored, summed over the
 *   stored chunks
 * @raw_size: (out) (optional): the decoded size of all chunks of the
 *   grid, stored or not
 * @n_stored: (out) (optional): the number of chunks stored
 * @n_chunks: (out) (optional): the number of chunks of the grid
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Sums what [method@Ncz.Variable.query_chunks] gives for the whole
 * variable without making an object per chunk: how much the variable
 * takes in storage against its decoded size.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 * Since: 1.0
 */
gboolean
ncz_variable_get_storage_size (NczVariable *self, guint64 *stored_size, guint64 *raw_size,
                               guint64 *n_stored, guint64 *n_chunks,
                               GCancellable *cancellable, GError **error)
{
  SizeAcc acc;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!storage_size (self, &acc, cancellable, error))
    return FALSE;
  if (stored_size)
    *stored_size = acc.stored_size;
  if (raw_size)
    *raw_size = acc.raw_size;
  if (n_stored)
    *n_stored = acc.n_stored;
  if (n_chunks)
    *n_chunks = acc.n_chunks;
  return TRUE;
}

static void
storage_size_thread (GTask *task, gpointer source, gpointer task_data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  SizeAcc *acc = g_new0 (SizeAcc, 1);

  if (storage_size (NCZ_VARIABLE (source), acc, cancellable, &error))
    g_task_return_pointer (task, acc, g_free);
  else
    {
      g_free (acc);
      g_task_return_error (task, error);
    }
}

/**
 * ncz_variable_get_storage_size_async:
 * @self: a variable
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Sums the stored and decoded sizes of the variable's chunks, as
 * [method@Ncz.Variable.get_storage_size], in a worker thread.
 *
 * Since: 1.0
 */
void
ncz_variable_get_storage_size_async (NczVariable *self, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_variable_get_storage_size_async);
  g_task_run_in_thread (task, storage_size_thread);
}

/**
 * ncz_variable_get_storage_size_finish:
 * @self: a variable
 * @result: the #GAsyncResult
 * @stored_size: (out) (optional): the bytes stored
 * @raw_size: (out) (optional): the decoded size of all chunks
 * @n_stored: (out) (optional): the number of chunks stored
 * @n_chunks: (out) (optional): the number of chunks of the grid
 * @error: return location for a #GError
 *
 * Completes a [method@Ncz.Variable.get_storage_size_async] call.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 * Since: 1.0
 */
gboolean
ncz_variable_get_storage_size_finish (NczVariable *self, GAsyncResult *result,
                                      guint64 *stored_size, guint64 *raw_size,
                                      guint64 *n_stored, guint64 *n_chunks, GError **error)
{
  g_autofree SizeAcc *acc = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        ncz_variable_get_storage_size_async, FALSE);
  acc = g_task_propagate_pointer (G_TASK (result), error);
  if (acc == NULL)
    return FALSE;
  if (stored_size)
    *stored_size = acc->stored_size;
  if (raw_size)
    *raw_size = acc->raw_size;
  if (n_stored)
    *n_stored = acc->n_stored;
  if (n_chunks)
    *n_chunks = acc->n_chunks;
  return TRUE;
}

/**
 * ncz_format_query_chunks:
 * @self: a format backend
 * @variable: a variable
 * @chunk_indices: (array length=n_values): the indices of the chunks, one
 *   after another (@n_chunks times the variable's rank values)
 * @n_values: the number of values in @chunk_indices
 * @n_chunks: the number of chunks
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Asks the format what is stored of several chunks without reading them
 * (#NczFormatInterface.query_chunks). Most callers want
 * [method@Ncz.Variable.query_chunks].
 *
 * Returns: (transfer full) (element-type gint64): for each chunk its
 *   size as stored in bytes, or -1 when it was never written; %NULL on
 *   error (%NCZ_BACKEND_ERROR_UNSUPPORTED from a format that cannot tell)
 * Since: 1.0
 */
GArray *
ncz_format_query_chunks (NczFormat *self, NczVariable *variable,
                         const guint64 *chunk_indices, gsize n_values, guint n_chunks,
                         GCancellable *cancellable, GError **error)
{
  NczFormatInterface *iface;
  guint rank = ncz_variable_get_n_dimensions (variable);
  GArray *out;

  g_return_val_if_fail (NCZ_IS_FORMAT (self), NULL);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), NULL);
  g_return_val_if_fail (n_values == 0 || chunk_indices != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n_values != (gsize) n_chunks * rank)
    {
      g_autofree char *name = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %" G_GSIZE_FORMAT " index values given for %u chunks "
                   "of rank %u", name, n_values, n_chunks, rank);
      return NULL;
    }
  iface = NCZ_FORMAT_GET_IFACE (self);
  if (iface->query_chunks == NULL)
    {
      g_autofree char *name = ncz_variable_get_full_name (variable);
      NczDataset *ds = ncz_variable_get_dataset (variable);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: the '%s' format cannot tell which chunks of variable '%s' are "
                   "stored", ds ? ncz_url_get_original (ncz_dataset_get_url (ds)) : "(dataset)",
                   ncz_format_get_name (self), name);
      return NULL;
    }
  if (n_chunks == 0)
    return g_array_new (FALSE, FALSE, sizeof (gint64));
  out = iface->query_chunks (self, variable, chunk_indices, n_chunks, cancellable, error);
  g_return_val_if_fail (out == NULL || out->len == n_chunks, out);
  return out;
}
