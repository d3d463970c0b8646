/* ncz-variable-io.c: hyperslab reads and writes of a variable
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-variable-private.h"
#include "ncz-format-private.h"
#include "ncz-filter-spec-private.h"
#include <ncz/ncz-json.h>
#include "ncz-quantize-private.h"

/* ---- hyperslab I/O ---- */

/* Checks that each array of a hyperslab has one value per dimension of
 * the variable (bindings pass every array with its own length); sets
 * *@n_dims to the rank. @n_stride does not count when @stride is NULL. */
static gboolean
check_rank (NczVariable *self, guint n_start, guint n_count,
            const gint64 *stride, guint n_stride, guint *n_dims, GError **error)
{
  guint rank = self->dimensions->len;

  if (n_start != rank || n_count != rank || (stride != NULL && n_stride != rank))
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_autofree char *strides = stride ? g_strdup_printf ("%u", n_stride) : g_strdup ("no");
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has %u dimension%s: the hyperslab has %u start, %u count "
                   "and %s stride values; nothing was read or written",
                   fqn, rank, rank == 1 ? "" : "s", n_start, n_count, strides);
      return FALSE;
    }
  *n_dims = rank;
  return TRUE;
}

/* Validates a hyperslab; fills the effective stride and the number of
 * selected elements. For writes, unlimited dimensions may grow. */
static gboolean
check_slab (NczVariable *self, guint n_dims, const guint64 *start,
            const guint64 *count, const gint64 *stride, gboolean for_write,
            gint64 *stride_out, guint64 *n_out, GError **error)
{
  guint64 n = 1;

  if (n_dims != self->dimensions->len)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' has rank %u, hyperslab has %u dimensions",
                   self->name, self->dimensions->len, n_dims);
      return FALSE;
    }
  for (guint i = 0; i < n_dims; i++)
    {
      NczDimension *d = g_ptr_array_index (self->dimensions, i);
      guint64 len = ncz_dimension_get_length (d);
      gint64 st = stride ? stride[i] : 1;
      if (st < 1)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': stride %" G_GINT64_FORMAT " along dimension %u must be positive",
                       self->name, st, i);
          return FALSE;
        }
      stride_out[i] = st;
      if (count[i] == 0)
        {
          n = 0;
          continue;
        }
      guint64 last;
      if ((count[i] - 1) > G_MAXUINT64 / (guint64) st ||
          start[i] > G_MAXUINT64 - (count[i] - 1) * (guint64) st)
        last = G_MAXUINT64;
      else
        last = start[i] + (count[i] - 1) * (guint64) st;
      if (last >= len && !(for_write && ncz_dimension_is_unlimited (d) && last < G_MAXUINT64 / 2))
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': hyperslab [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       "] is outside dimension '%s' of length %" G_GUINT64_FORMAT,
                       self->name, start[i], last, ncz_dimension_get_name (d), len);
          return FALSE;
        }
      if (n != 0 && count[i] > G_MAXUINT64 / n)
        n = G_MAXUINT64;
      else
        n *= count[i];
    }
  *n_out = n;
  return TRUE;
}

/* The format serving @self's data, or NULL with @error set when its
 * dataset is gone or was closed: a closed dataset's data can no longer be
 * read (@for_write: written). */
static NczFormat *
get_format (NczVariable *self, gboolean for_write, GError **error)
{
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of variable '%s' is gone", self->name);
      return NULL;
    }
  if (ncz_dataset_is_closed (ds))
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed: variable '%s' can no longer be %s",
                   ncz_url_get_original (ncz_dataset_get_url (ds)), fqn,
                   for_write ? "written" : "read");
      return NULL;
    }
  return ncz_dataset_get_format (ds);
}

static gboolean
slab_read_storage (NczVariable *self, guint n_dims, const guint64 *start,
                   const guint64 *count, const gint64 *stride, guint8 *storage,
                   GCancellable *cancellable, GError **error)
{
  NczFormat *format = get_format (self, FALSE, error);
  if (format == NULL)
    return FALSE;
  return ncz_format_read_slab (format, self, start, count, stride, storage, cancellable, error);
}

/* A write beyond an unlimited dimension's length grows it (never
 * shrinks it, whatever other threads write), except in a dataset open
 * for data only, whose metadata never changes. */
static gboolean
grow_unlimited (NczVariable *self, NczDataset *ds, const guint64 *start, const guint64 *count,
                const gint64 *stride, GError **error)
{
  for (guint i = 0; i < self->dimensions->len; i++)
    {
      NczDimension *d = g_ptr_array_index (self->dimensions, i);
      if (count[i] == 0 || !ncz_dimension_is_unlimited (d))
        continue;
      guint64 last = start[i] + (count[i] - 1) * (guint64) stride[i];
      if (last < ncz_dimension_get_length (d))
        continue;
      if (ncz_dataset_is_data_only (ds))
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY,
                       "variable '%s': the write reaches index %" G_GUINT64_FORMAT
                       " of the unlimited dimension '%s', whose length is %" G_GUINT64_FORMAT
                       "; a dataset open for writing data only (NCZ_OPEN_WRITE_DATA) does not "
                       "change its metadata: set the length first "
                       "(ncz_dimension_set_length())", self->name, last,
                       ncz_dimension_get_name (d), ncz_dimension_get_length (d));
          return FALSE;
        }
      ncz_dimension_grow_internal (d, last + 1);
    }
  return TRUE;
}

static gboolean
slab_write_storage (NczVariable *self, guint n_dims, const guint64 *start,
                    const guint64 *count, const gint64 *stride,
                    const guint8 *storage, GCancellable *cancellable,
                    GError **error)
{
  NczFormat *format = get_format (self, TRUE, error);
  NczDataset *ds = ncz_variable_get_dataset (self);
  if (format == NULL || !ncz_dataset_check_writable (ds, error) ||
      !grow_unlimited (self, ds, start, count, stride, error))
    return FALSE;
  return ncz_format_write_slab (format, self, start, count, stride, storage, cancellable, error);
}

/* Checks a hyperslab and the caller's buffer; returns the effective
 * stride in @st and the number of selected elements in @n. */
static gboolean
prepare_slab (NczVariable *self, guint n_dims, const guint64 *start,
              const guint64 *count, const gint64 *stride, gboolean for_write,
              gsize buffer_size, gint64 *st, guint64 *n, GError **error)
{
  gsize tsize = ncz_data_type_get_size (self->type);

  if (!check_slab (self, n_dims, start, count, stride, for_write, st, n, error))
    return FALSE;
  if (*n > G_MAXSIZE / tsize || buffer_size < *n * tsize)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': buffer of %" G_GSIZE_FORMAT " bytes is too small for %"
                   G_GUINT64_FORMAT " values", self->name, buffer_size, *n);
      return FALSE;
    }
  return TRUE;
}

/* Fixed-width storage for @n strings of a string variable */
static guint8 *
alloc_string_storage (NczVariable *self, guint64 n, gsize *width, GError **error)
{
  guint8 *storage = NULL;

  *width = ncz_variable_get_storage_element_size (self);
  if (n <= G_MAXSIZE / *width)
    storage = g_try_malloc0 (n * *width);
  if (storage == NULL)
    g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                 "variable '%s': cannot hold %" G_GUINT64_FORMAT " strings of %"
                 G_GSIZE_FORMAT " bytes in memory", self->name, n, *width);
  return storage;
}

/**
 * ncz_variable_read: (skip)
 * @self: a variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @buffer: where the values go, C order, native byte order; for a string
 *   variable an array of `char *` the caller frees with g_free()
 * @buffer_size: size of @buffer in bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a hyperslab. Elements never written read as the fill value.
 * Once the variable's dataset is closed, reading fails with
 * %NCZ_DATASET_ERROR_CLOSED naming the dataset's URL.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_read (NczVariable *self,
                   const guint64 *start, guint n_start,
                   const guint64 *count, guint n_count,
                   const gint64 *stride, guint n_stride,
                   gpointer buffer, gsize buffer_size,
                   GCancellable *cancellable, GError **error)
{
  guint n_dims;
  g_autofree gint64 *st = NULL;
  g_autofree guint8 *storage = NULL;
  guint64 n;
  gsize width;
  char **out = buffer;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (n_start == 0 || start != NULL, FALSE);
  g_return_val_if_fail (n_count == 0 || count != NULL, FALSE);
  if (get_format (self, FALSE, error) == NULL ||
      !check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  st = g_new0 (gint64, MAX (n_dims, 1));
  if (!prepare_slab (self, n_dims, start, count, stride, FALSE, buffer_size, st, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  if (self->type != NCZ_DATA_TYPE_STRING)
    return slab_read_storage (self, n_dims, start, count, st, buffer, cancellable, error);

  /* Strings: read fixed-width storage, then make C strings; again with
   * the new width when a chunk held longer strings */
  for (;;)
    {
      g_autoptr(GError) local = NULL;
      storage = alloc_string_storage (self, n, &width, error);
      if (storage == NULL)
        return FALSE;
      if (slab_read_storage (self, n_dims, start, count, st, storage, cancellable, &local))
        break;
      if (ncz_variable_get_storage_element_size (self) <= width)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_pointer (&storage, g_free);
    }
  for (guint64 i = 0; i < n; i++)
    {
      const char *s = (const char *) storage + i * width;
      out[i] = g_strndup (s, strnlen (s, width));
    }
  return TRUE;
}

/* The caller's @n values, quantized, in a new buffer. */
static guint8 *
quantized_copy (NczVariable *self, gconstpointer buffer, guint64 n, GError **error)
{
  gsize tsize = ncz_data_type_get_size (self->type);
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (self);
  gsize fill_size = 0;
  gconstpointer fill_data = g_bytes_get_data (fill, &fill_size);
  guint8 *copy = g_try_malloc (MAX (n * tsize, 1));

  if (copy == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory quantizing %" G_GUINT64_FORMAT " values",
                   self->name, n);
      return NULL;
    }
  memcpy (copy, buffer, n * tsize);
  if (self->type == NCZ_DATA_TYPE_FLOAT)
    {
      float f;
      gboolean has_fill = fill_size == sizeof f;
      if (has_fill)
        memcpy (&f, fill_data, sizeof f);
      ncz_quantize_float ((float *) copy, n, self->quantize_mode, self->quantize_nsd,
                          has_fill ? &f : NULL);
    }
  else
    {
      double d;
      gboolean has_fill = fill_size == sizeof d;
      if (has_fill)
        memcpy (&d, fill_data, sizeof d);
      ncz_quantize_double ((double *) copy, n, self->quantize_mode, self->quantize_nsd,
                           has_fill ? &d : NULL);
    }
  return copy;
}

/**
 * ncz_variable_write: (skip)
 * @self: a variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @buffer: the values, C order, native byte order; for a string variable
 *   an array of `const char *` (a string longer than the variable's
 *   maximum string length is an error, unless the variable is stored with
 *   variable-length strings)
 * @buffer_size: size of @buffer in bytes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes a hyperslab; chunks partly covered are read, modified and written.
 * Once the variable's dataset is closed, writing fails with
 * %NCZ_DATASET_ERROR_CLOSED naming the dataset's URL.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write (NczVariable *self,
                    const guint64 *start, guint n_start,
                    const guint64 *count, guint n_count,
                    const gint64 *stride, guint n_stride,
                    gconstpointer buffer, gsize buffer_size,
                    GCancellable *cancellable, GError **error)
{
  guint n_dims;
  g_autofree gint64 *st = NULL;
  g_autofree guint8 *storage = NULL;
  guint64 n;
  gsize width;
  const char * const *in = buffer;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (n_start == 0 || start != NULL, FALSE);
  g_return_val_if_fail (n_count == 0 || count != NULL, FALSE);
  if (get_format (self, TRUE, error) == NULL ||
      !check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  st = g_new0 (gint64, MAX (n_dims, 1));
  if (!prepare_slab (self, n_dims, start, count, stride, TRUE, buffer_size, st, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  g_atomic_int_set (&self->data_written, TRUE);
  if (self->quantize_mode != NCZ_QUANTIZE_NONE &&
      (self->type == NCZ_DATA_TYPE_FLOAT || self->type == NCZ_DATA_TYPE_DOUBLE))
    {
      g_autofree guint8 *copy = quantized_copy (self, buffer, n, error);
      if (copy == NULL)
        return FALSE;
      return slab_write_storage (self, n_dims, start, count, st, copy, cancellable, error);
    }
  if (self->type != NCZ_DATA_TYPE_STRING)
    return slab_write_storage (self, n_dims, start, count, st, buffer, cancellable, error);

  /* Strings: NUL-padded to the width. A longer string widens a variable
   * stored with variable-length strings and is an error for one stored at
   * a fixed width: never cut. */
  {
    gsize longest = 0;
    guint64 where = 0;
    for (guint64 i = 0; i < n; i++)
      if (in[i])
        {
          gsize len = strlen (in[i]);
          if (len > longest)
            {
              longest = len;
              where = i;
            }
        }
    if (longest > ncz_variable_get_max_string_length (self) &&
        !(ncz_variable_has_variable_length_strings (self) &&
          ncz_variable_grow_string_width (self, longest)))
      {
        g_autofree char *fqn = ncz_variable_get_full_name (self);
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                     "variable '%s': string %" G_GUINT64_FORMAT " of the selection is %"
                     G_GSIZE_FORMAT " bytes long, longer than the variable's maximum string "
                     "length of %u bytes (_nczarr_maxstrlen); it is not truncated",
                     fqn, where, longest, ncz_variable_get_max_string_length (self));
        return FALSE;
      }
  }
  for (;;)
    {
      g_autoptr(GError) local = NULL;
      storage = alloc_string_storage (self, n, &width, error);
      if (storage == NULL)
        return FALSE;
      for (guint64 i = 0; i < n; i++)
        if (in[i])
          memcpy (storage + i * width, in[i], strlen (in[i]));
      if (slab_write_storage (self, n_dims, start, count, st, storage, cancellable, &local))
        return TRUE;
      /* a chunk read back for a partial write held longer strings */
      if (ncz_variable_get_storage_element_size (self) <= width)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_pointer (&storage, g_free);
    }
}

static guint64
count_elements (guint n_dims, const guint64 *count)
{
  guint64 n = 1;
  for (guint i = 0; i < n_dims; i++)
    {
      if (count[i] != 0 && n > G_MAXUINT64 / count[i])
        return G_MAXUINT64;
      n *= count[i];
    }
  return n;
}

/**
 * ncz_variable_read_bytes:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a hyperslab of a numeric or char variable into a new #GBytes. The
 * slab starts at @start and has @count elements along each dimension,
 * taking every @stride'th element (every element when @stride is %NULL).
 * Elements never written read as the fill value. Fails with
 * %NCZ_DATASET_ERROR_INVALID for a string variable (use
 * ncz_variable_read_strings()), when the number of values in @start,
 * @count or @stride is not the rank, or when the slab lies outside the
 * variable; %NCZ_DATASET_ERROR_CLOSED once the dataset is closed; with a
 * storage, codec or backend error when a chunk cannot be read or decoded;
 * and with %G_IO_ERROR_CANCELLED when @cancellable is cancelled.
 *
 * Returns: (transfer full): the values, C order, native byte order
 * Since: 1.0
 */
GBytes *
ncz_variable_read_bytes (NczVariable *self,
                         const guint64 *start, guint n_start,
                         const guint64 *count, guint n_count,
                         const gint64 *stride, guint n_stride,
                         GCancellable *cancellable, GError **error)
{
  guint n_dims;
  guint64 n;
  gsize tsize, size;
  gpointer buf;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' holds strings: use ncz_variable_read_strings()",
                   self->name);
      return NULL;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return NULL;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), NULL);
  n = count_elements (n_dims, count);
  tsize = ncz_data_type_get_size (self->type);
  if (n > G_MAXSIZE / tsize)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': hyperslab too large", self->name);
      return NULL;
    }
  size = n * tsize;
  buf = g_try_malloc (MAX (size, 1));
  if (buf == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory for %" G_GSIZE_FORMAT " bytes",
                   self->name, size);
      return NULL;
    }
  if (!ncz_variable_read (self, start, n_dims, count, n_dims, stride, n_dims,
                          buf, size, cancellable, error))
    {
      g_free (buf);
      return NULL;
    }
  return g_bytes_new_take (buf, size);
}

typedef struct {
  guint n_dims;
  guint64 *start;
  guint64 *count;
  gint64 *stride;
} SlabArgs;

static void
slab_args_free (SlabArgs *a)
{
  g_free (a->start);
  g_free (a->count);
  g_free (a->stride);
  g_free (a);
}

static void
read_bytes_thread (GTask *task, gpointer source, gpointer task_data,
                   GCancellable *cancellable)
{
  SlabArgs *a = task_data;
  GError *error = NULL;
  GBytes *b = ncz_variable_read_bytes (NCZ_VARIABLE (source), a->start, a->n_dims,
                                       a->count, a->n_dims, a->stride, a->n_dims,
                                       cancellable, &error);
  if (b)
    g_task_return_pointer (task, b, (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_error (task, error);
}

/**
 * ncz_variable_read_bytes_async:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Reads a hyperslab in a worker thread.
 *
 * Since: 1.0
 */
void
ncz_variable_read_bytes_async (NczVariable *self,
                               const guint64 *start, guint n_start,
                               const guint64 *count, guint n_count,
                               const gint64 *stride, guint n_stride,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  guint n_dims;
  SlabArgs *a;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_return_if_fail (n_start == 0 || start != NULL);
  g_return_if_fail (n_count == 0 || count != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_variable_read_bytes_async);
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  a = g_new0 (SlabArgs, 1);
  a->n_dims = n_dims;
  a->start = g_memdup2 (start, sizeof (guint64) * n_dims);
  a->count = g_memdup2 (count, sizeof (guint64) * n_dims);
  a->stride = stride ? g_memdup2 (stride, sizeof (gint64) * n_dims) : NULL;
  g_task_set_task_data (task, a, (GDestroyNotify) slab_args_free);
  g_task_run_in_thread (task, read_bytes_thread);
}

/**
 * ncz_variable_read_bytes_finish:
 * @self: a variable
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Completes a ncz_variable_read_bytes_async() call, giving the values it
 * read or the error it met.
 *
 * Returns: (transfer full): the values, as ncz_variable_read_bytes()
 * Since: 1.0
 */
GBytes *
ncz_variable_read_bytes_finish (NczVariable *self, GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_variable_read_bytes_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ncz_variable_write_bytes:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @data: the values, C order, native byte order
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes a hyperslab of a numeric or char variable from a #GBytes of
 * packed native values, one per element of the slab chosen by @start,
 * @count and @stride (as in ncz_variable_read_bytes()). Writing past the
 * end of an unlimited dimension grows it. Fails with
 * %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable,
 * %NCZ_DATASET_ERROR_INVALID for a string variable (use
 * ncz_variable_write_strings()), a size of @data that does not match the
 * slab, or a slab outside the fixed dimensions; and with a storage, codec
 * or backend error when a chunk cannot be encoded or stored.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write_bytes (NczVariable *self,
                          const guint64 *start, guint n_start,
                          const guint64 *count, guint n_count,
                          const gint64 *stride, guint n_stride,
                          GBytes *data, GCancellable *cancellable, GError **error)
{
  guint n_dims;
  gsize size;
  gconstpointer p;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  if (self->type == NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' holds strings: use ncz_variable_write_strings()",
                   self->name);
      return FALSE;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), FALSE);
  p = g_bytes_get_data (data, &size);
  if (size != count_elements (n_dims, count) * ncz_data_type_get_size (self->type))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %" G_GSIZE_FORMAT " bytes given for %" G_GUINT64_FORMAT " values",
                   self->name, size, count_elements (n_dims, count));
      return FALSE;
    }
  return ncz_variable_write (self, start, n_dims, count, n_dims, stride, n_dims,
                             p ? p : "", size, cancellable, error);
}

typedef struct {
  SlabArgs slab;
  GBytes *data;
} WriteArgs;

static void
write_args_free (WriteArgs *a)
{
  g_free (a->slab.start);
  g_free (a->slab.count);
  g_free (a->slab.stride);
  g_bytes_unref (a->data);
  g_free (a);
}

static void
write_bytes_thread (GTask *task, gpointer source, gpointer task_data,
                    GCancellable *cancellable)
{
  WriteArgs *a = task_data;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (ncz_variable_write_bytes (NCZ_VARIABLE (source), a->slab.start, a->slab.n_dims,
                                a->slab.count, a->slab.n_dims, a->slab.stride,
                                a->slab.n_dims, a->data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * ncz_variable_write_bytes_async:
 * @self: a numeric or char variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @data: the values, C order, native byte order
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done, in the thread-default main
 *   context of the caller
 * @user_data: (closure): data for @callback
 *
 * Does ncz_variable_write_bytes() in a worker thread; @data is kept
 * until then. Cancelled before it starts, nothing is written and it
 * fails with %G_IO_ERROR_CANCELLED. A write growing an unlimited
 * dimension notifies its [property@Ncz.Dimension:length] from the worker
 * thread.
 *
 * Since: 1.0
 */
void
ncz_variable_write_bytes_async (NczVariable *self,
                                const guint64 *start, guint n_start,
                                const guint64 *count, guint n_count,
                                const gint64 *stride, guint n_stride,
                                GBytes *data, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  guint n_dims;
  WriteArgs *a;

  g_return_if_fail (NCZ_IS_VARIABLE (self));
  g_return_if_fail (data != NULL);
  g_return_if_fail (n_start == 0 || start != NULL);
  g_return_if_fail (n_count == 0 || count != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ncz_variable_write_bytes_async);
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  a = g_new0 (WriteArgs, 1);
  a->slab.n_dims = n_dims;
  a->slab.start = g_memdup2 (start, sizeof (guint64) * n_dims);
  a->slab.count = g_memdup2 (count, sizeof (guint64) * n_dims);
  a->slab.stride = stride ? g_memdup2 (stride, sizeof (gint64) * n_dims) : NULL;
  a->data = g_bytes_ref (data);
  g_task_set_task_data (task, a, (GDestroyNotify) write_args_free);
  g_task_run_in_thread (task, write_bytes_thread);
}

/**
 * ncz_variable_write_bytes_finish:
 * @self: a variable
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes ncz_variable_write_bytes_async().
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write_bytes_finish (NczVariable *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_variable_write_bytes_async,
                        FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * ncz_variable_read_strings:
 * @self: a string variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a hyperslab of a string variable. The slab is chosen with @start,
 * @count and @stride as in ncz_variable_read_bytes(); elements never
 * written read as the fill value. Fails with %NCZ_DATASET_ERROR_INVALID
 * for a variable that does not hold strings, and as
 * ncz_variable_read_bytes() does otherwise. Free the result with
 * g_strfreev().
 *
 * Returns: (transfer full) (array zero-terminated=1): the strings
 * Since: 1.0
 */
char **
ncz_variable_read_strings (NczVariable *self,
                           const guint64 *start, guint n_start,
                           const guint64 *count, guint n_count,
                           const gint64 *stride, guint n_stride,
                           GCancellable *cancellable, GError **error)
{
  guint n_dims;
  guint64 n;
  char **out;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);
  if (self->type != NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' does not hold strings: use ncz_variable_read_bytes()",
                   self->name);
      return NULL;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return NULL;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), NULL);
  n = count_elements (n_dims, count);
  if (n >= G_MAXSIZE / sizeof (char *))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': hyperslab too large", self->name);
      return NULL;
    }
  out = g_try_new0 (char *, n + 1);
  if (out == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s': out of memory", self->name);
      return NULL;
    }
  if (!ncz_variable_read (self, start, n_dims, count, n_dims, stride, n_dims, out,
                          n * sizeof (char *), cancellable, error))
    {
      g_free (out);
      return NULL;
    }
  return out;
}

/**
 * ncz_variable_write_strings:
 * @self: a string variable
 * @start: (array length=n_start): first index along each dimension
 * @n_start: the number of values in @start: the rank of the variable
 * @count: (array length=n_count): number of elements along each dimension
 * @n_count: the number of values in @count: the rank of the variable
 * @stride: (array length=n_stride) (nullable): step along each dimension, %NULL for 1
 * @n_stride: the number of values in @stride: the rank of the variable
 *   (ignored when @stride is %NULL)
 * @strings: (array zero-terminated=1): the strings, one per element
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes a hyperslab of strings. @strings must hold exactly one string
 * per selected element: fewer or more is %NCZ_DATASET_ERROR_INVALID and
 * nothing is written.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_variable_write_strings (NczVariable *self,
                            const guint64 *start, guint n_start,
                            const guint64 *count, guint n_count,
                            const gint64 *stride, guint n_stride,
                            const char * const *strings, GCancellable *cancellable,
                            GError **error)
{
  guint n_dims;
  guint64 n;
  guint n_strings;
  g_return_val_if_fail (NCZ_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (strings != NULL, FALSE);
  if (self->type != NCZ_DATA_TYPE_STRING)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s' does not hold strings: use ncz_variable_write_bytes()",
                   self->name);
      return FALSE;
    }
  if (!check_rank (self, n_start, n_count, stride, n_stride, &n_dims, error))
    return FALSE;
  g_return_val_if_fail (n_dims == 0 || (start != NULL && count != NULL), FALSE);
  n = count_elements (n_dims, count);
  n_strings = g_strv_length ((char **) strings);
  if (n_strings != n)
    {
      g_autofree char *fqn = ncz_variable_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %u strings given for a selection of %" G_GUINT64_FORMAT
                   " elements; nothing was written", fqn, n_strings, n);
      return FALSE;
    }
  return ncz_variable_write (self, start, n_dims, count, n_dims, stride, n_dims,
                             strings, n * sizeof (char *), cancellable, error);
}
