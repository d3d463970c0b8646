/* hdf5-io.c: hyperslab I/O of netCDF-4 variables
 *
 * Chunked variables go through hdf5-direct.c first (codecs on the worker
 * pool), then contiguous variables of read-only files through
 * hdf5-contig.c (pread outside libhdf5); everything else is read and
 * written here with H5Dread/H5Dwrite of hyperslab selections, under the
 * HDF5 lock.
 *
 * The buffers are the core's storage elements in native byte order
 * (strings: fixed-width, NUL-padded, of the variable's current string
 * width). Reading past the current extent of a dataset along an
 * unlimited dimension (another variable made the dimension longer) gives
 * fill values, as netcdf-c does; writing past it extends the dataset.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "hdf5-private.h"

typedef struct {
  guint rank;
  hsize_t start[H5S_MAX_RANK];
  hsize_t stride[H5S_MAX_RANK];
  hsize_t count[H5S_MAX_RANK];     /* the caller's counts */
  hsize_t in_count[H5S_MAX_RANK];  /* of those, within the dataset's extent */
  guint64 n;                       /* elements of the caller's selection */
  gboolean clipped;                /* some selected elements lie beyond the extent */
} Slab;

static char *
full_name (NczVariable *variable)
{
  return ncz_variable_get_full_name (variable);
}

/* Fills @n storage elements of @variable with its fill value. */
void
ncz_h5_fill_storage (NczVariable *variable, gpointer buffer, guint64 n)
{
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (variable);
  gsize width = ncz_variable_get_storage_element_size (variable);

  if (ncz_variable_get_value_type (variable) == NCZ_DATA_TYPE_STRING)
    {
      gsize len = 0;
      const char *text = fill != NULL ? g_bytes_get_data (fill, &len) : NULL;
      gsize used = text != NULL ? MIN (strnlen (text, len), width) : 0;

      memset (buffer, 0, n * width);
      if (used > 0)
        for (guint64 i = 0; i < n; i++)
          memcpy ((char *) buffer + i * width, text, used);
      return;
    }
  ncz_fill_buffer (buffer, width, n, fill);
}

/* The selection in the file's terms; the extent clips it. */
static gboolean
slab_init (Slab *slab, NczVariable *variable, hid_t space, const guint64 *start,
           const guint64 *count, const gint64 *stride, GError **error)
{
  hsize_t dims[H5S_MAX_RANK];
  int rank = H5Sget_simple_extent_ndims (space);
  g_autofree char *name = full_name (variable);

  if (rank < 0 || rank > H5S_MAX_RANK ||
      (guint) rank != ncz_variable_get_n_dimensions (variable))
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                   "variable '%s': the HDF5 dataset has rank %d, the variable %u",
                   name, rank, ncz_variable_get_n_dimensions (variable));
      return FALSE;
    }
  H5Sget_simple_extent_dims (space, dims, NULL);
  memset (slab, 0, sizeof *slab);
  slab->rank = (guint) rank;
  slab->n = 1;
  for (guint i = 0; i < slab->rank; i++)
    {
      slab->start[i] = start[i];
      slab->stride[i] = stride != NULL ? (hsize_t) stride[i] : 1;
      slab->count[i] = count[i];
      slab->n *= count[i];
      if (count[i] == 0 || start[i] >= dims[i])
        slab->in_count[i] = 0;
      else
        slab->in_count[i] = MIN (count[i], (dims[i] - start[i] - 1) / slab->stride[i] + 1);
      if (slab->in_count[i] != slab->count[i])
        slab->clipped = TRUE;
    }
  return TRUE;
}

static gboolean
slab_empty (const Slab *slab)
{
  for (guint i = 0; i < slab->rank; i++)
    if (slab->in_count[i] == 0)
      return TRUE;
  return FALSE;
}

/* File and memory dataspaces of the part of @slab within the extent. */
static gboolean
select_spaces (const Slab *slab, hid_t file_space, hid_t *mem_space)
{
  hsize_t zero[H5S_MAX_RANK] = { 0 };

  if (slab->rank == 0)
    {
      *mem_space = H5Screate (H5S_SCALAR);
      return *mem_space >= 0;
    }
  if (H5Sselect_hyperslab (file_space, H5S_SELECT_SET, slab->start, slab->stride,
                           slab->in_count, NULL) < 0)
    return FALSE;
  *mem_space = H5Screate_simple ((int) slab->rank, slab->count, NULL);
  if (*mem_space < 0)
    return FALSE;
  if (slab->clipped &&
      H5Sselect_hyperslab (*mem_space, H5S_SELECT_SET, zero, NULL, slab->in_count, NULL) < 0)
    return FALSE;
  return TRUE;
}

/* Variable-length (or fixed-length, h5py's "S10") strings read into the
 * core's fixed-width storage. */
static gboolean
read_strings (NczHdf5Format *self, NczVariable *variable, hid_t dset, hid_t file_type,
              hid_t file_space, hid_t mem_space, const Slab *slab, guint8 *buffer,
              GError **error)
{
  gsize width = ncz_variable_get_storage_element_size (variable);
  htri_t is_vlen = H5Tis_variable_str (file_type);
  g_autofree char *name = full_name (variable);
  hid_t mem_type;
  gsize longest = 0;
  gboolean ok = TRUE;

  if (is_vlen < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its string type", self->path, name);
      return FALSE;
    }
  mem_type = H5Tcopy (H5T_C_S1);
  /* libhdf5 converts no string between character sets: read in the
   * file's own (UTF-8 or ASCII, the bytes are the same) */
  H5Tset_cset (mem_type, H5Tget_cset (file_type));
  if (is_vlen)
    {
      char **ptrs = g_try_new0 (char *, MAX (slab->n, 1));

      if (ptrs == NULL)
        {
          H5Tclose (mem_type);
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "variable '%s': cannot hold %" G_GUINT64_FORMAT " strings", name,
                       slab->n);
          return FALSE;
        }
      H5Tset_size (mem_type, H5T_VARIABLE);
      if (ncz_h5_read_dataset (dset, mem_type, mem_space, file_space, ptrs) < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK,
                            "%s: reading variable '%s'", self->path, name);
          ok = FALSE;
        }
      for (guint64 i = 0; ok && i < slab->n; i++)
        if (ptrs[i] != NULL)
          longest = MAX (longest, strlen (ptrs[i]));
      if (ok && longest <= width)
        for (guint64 i = 0; i < slab->n; i++)
          if (ptrs[i] != NULL)
            {
              memset (buffer + i * width, 0, width);
              memcpy (buffer + i * width, ptrs[i], strlen (ptrs[i]));
            }
      /* after a failed read too: libhdf5 may have converted some strings
       * (the array started zeroed, so the rest are NULL) */
      H5Dvlen_reclaim (mem_type, mem_space, H5P_DEFAULT, ptrs);
      H5Eclear2 (H5E_DEFAULT);
      g_free (ptrs);
    }
  else
    {
      gsize size = H5Tget_size (file_type);
      g_autofree guint8 *tmp = NULL;

      if (size == 0 || (slab->n > 0 && size > G_MAXSIZE / slab->n))
        ok = FALSE;
      else
        tmp = g_try_malloc0 (MAX (slab->n * size, 1));
      if (tmp == NULL)
        {
          H5Tclose (mem_type);
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "variable '%s': cannot hold %" G_GUINT64_FORMAT " strings of %"
                       G_GSIZE_FORMAT " bytes", name, slab->n, size);
          return FALSE;
        }
      H5Tset_size (mem_type, size);
      H5Tset_strpad (mem_type, H5T_STR_NULLPAD);
      ncz_h5_raw_reads_begin ();
      ok = H5Dread (dset, mem_type, mem_space, file_space, H5P_DEFAULT, tmp) >= 0;
      ncz_h5_raw_reads_end ();
      if (!ok)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK,
                            "%s: reading variable '%s'", self->path, name);
          ok = FALSE;
        }
      for (guint64 i = 0; ok && i < slab->n; i++)
        longest = MAX (longest, strnlen ((char *) tmp + i * size, size));
      if (ok && longest <= width)
        for (guint64 i = 0; i < slab->n; i++)
          {
            const char *s = (const char *) tmp + i * size;
            gsize len = strnlen (s, size);

            if (len > 0 || !slab->clipped)
              {
                memset (buffer + i * width, 0, width);
                memcpy (buffer + i * width, s, len);
              }
          }
    }
  H5Tclose (mem_type);
  if (ok && longest > width)
    {
      /* the core reads again with storage this wide */
      if (!ncz_variable_grow_string_width (variable, longest))
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                     "variable '%s': a string of %" G_GSIZE_FORMAT " bytes is too long",
                     name, longest);
      else
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                     "variable '%s': strings wider than %" G_GSIZE_FORMAT " bytes", name,
                     width);
      return FALSE;
    }
  return ok;
}

static gboolean
plain_read (NczHdf5Format *self, NczVariable *variable, NczH5Node *node,
            const guint64 *start, const guint64 *count, const gint64 *stride,
            gpointer buffer, GError **error)
{
  NczDataType type = ncz_variable_get_value_type (variable);
  g_autofree char *name = full_name (variable);
  hid_t file_space = H5I_INVALID_HID, mem_space = H5I_INVALID_HID;
  hid_t file_type = H5I_INVALID_HID, mem_type = H5I_INVALID_HID;
  gboolean ok = FALSE;
  Slab slab;

  file_space = H5Dget_space (node->id);
  if (file_space < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its dataspace", self->path, name);
      return FALSE;
    }
  if (!slab_init (&slab, variable, file_space, start, count, stride, error))
    goto out;
  if (slab.clipped || type == NCZ_DATA_TYPE_STRING)
    ncz_h5_fill_storage (variable, buffer, slab.n);
  if (slab_empty (&slab) && slab.rank > 0)
    {
      ok = TRUE;
      goto out;
    }
  if (!select_spaces (&slab, file_space, &mem_space))
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: variable '%s': selecting the hyperslab", self->path, name);
      goto out;
    }
  file_type = H5Dget_type (node->id);
  if (file_type < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its type", self->path, name);
      goto out;
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      ok = read_strings (self, variable, node->id, file_type, file_space, mem_space, &slab,
                         buffer, error);
      goto out;
    }
  /* char: the file's own one-byte string type, so that no string
   * conversion (which would make the byte a terminator) happens */
  mem_type = type == NCZ_DATA_TYPE_CHAR ? H5Tcopy (file_type) : ncz_h5_mem_type (type);
  ncz_h5_raw_reads_begin ();
  ok = H5Dread (node->id, mem_type, mem_space, file_space, H5P_DEFAULT, buffer) >= 0;
  ncz_h5_raw_reads_end ();
  if (!ok)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK, "%s: reading variable '%s'",
                        self->path, name);
      goto out;
    }
  ok = TRUE;

out:
  if (mem_type >= 0)
    H5Tclose (mem_type);
  if (file_type >= 0)
    H5Tclose (file_type);
  if (mem_space >= 0)
    H5Sclose (mem_space);
  if (file_space >= 0)
    H5Sclose (file_space);
  return ok;
}

gboolean
ncz_h5_read_slab (NczHdf5Format *self, NczVariable *variable,
                  const guint64 *start, const guint64 *count, const gint64 *stride,
                  gpointer buffer, GCancellable *cancellable, GError **error)
{
  gboolean handled = FALSE;
  NczH5Node *node;
  gboolean ok;

  if (!ncz_h5_direct_read (self, variable, start, count, stride, buffer, &handled,
                           cancellable, error))
    return FALSE;
  if (handled)
    return TRUE;
  if (!ncz_h5_contiguous_read (self, variable, start, count, stride, buffer, &handled,
                               cancellable, error))
    return FALSE;
  if (handled)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  ncz_h5_lock ();
  node = ncz_h5_peek_node (self, variable);
  if (node != NULL && node->unsupported)
    {
      g_autofree char *name = full_name (variable);

      ncz_h5_unlock ();
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' is of a type Ncz does not read", self->path, name);
      return FALSE;
    }
  if (node == NULL || node->id < 0)
    {
      /* defined, not yet in the file: all fill */
      guint64 n = 1;

      for (guint i = 0; i < ncz_variable_get_n_dimensions (variable); i++)
        n *= count[i];
      ncz_h5_unlock ();
      ncz_h5_fill_storage (variable, buffer, n);
      return TRUE;
    }
  ok = plain_read (self, variable, node, start, count, stride, buffer, error);
  ncz_h5_unlock ();
  return ok;
}

/* Extends @dset along its unlimited dimensions to hold the selection. */
gboolean
ncz_h5_extend_for (NczHdf5Format *self, NczVariable *variable, hid_t dset, const guint64 *start,
            const guint64 *count, const gint64 *stride, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (variable);
  hsize_t dims[H5S_MAX_RANK], maxdims[H5S_MAX_RANK];
  gboolean grow = FALSE;
  hid_t space;

  if (rank == 0)
    return TRUE;
  space = H5Dget_space (dset);
  if (space < 0 || H5Sget_simple_extent_ndims (space) != (int) rank)
    {
      g_autofree char *name = full_name (variable);

      if (space >= 0)
        H5Sclose (space);
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its dataspace", self->path, name);
      return FALSE;
    }
  H5Sget_simple_extent_dims (space, dims, maxdims);
  H5Sclose (space);
  for (guint i = 0; i < rank; i++)
    {
      guint64 last;

      if (count[i] == 0)
        return TRUE;
      last = start[i] + (count[i] - 1) * (guint64) (stride != NULL ? stride[i] : 1);
      if (last >= dims[i])
        {
          if (maxdims[i] != H5S_UNLIMITED && last >= maxdims[i])
            {
              g_autofree char *name = full_name (variable);

              g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                           "%s: variable '%s': index %" G_GUINT64_FORMAT
                           " is beyond its dataset's length %" G_GUINT64_FORMAT
                           " along dimension %u", self->path, name, last,
                           (guint64) dims[i], i);
              return FALSE;
            }
          dims[i] = last + 1;
          grow = TRUE;
        }
    }
  if (grow && H5Dset_extent (dset, dims) < 0)
    {
      g_autofree char *name = full_name (variable);

      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: extending variable '%s'",
                        self->path, name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
plain_write (NczHdf5Format *self, NczVariable *variable, NczH5Node *node,
             const guint64 *start, const guint64 *count, const gint64 *stride,
             gconstpointer buffer, GError **error)
{
  NczDataType type = ncz_variable_get_value_type (variable);
  g_autofree char *name = full_name (variable);
  hid_t file_space = H5I_INVALID_HID, mem_space = H5I_INVALID_HID;
  hid_t mem_type = H5I_INVALID_HID;
  g_autofree char **ptrs = NULL;
  g_autofree char *strings = NULL;
  gboolean ok = FALSE;
  Slab slab;

  if (!ncz_h5_extend_for (self, variable, node->id, start, count, stride, error))
    return FALSE;
  file_space = H5Dget_space (node->id);
  if (file_space < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading its dataspace", self->path, name);
      return FALSE;
    }
  if (!slab_init (&slab, variable, file_space, start, count, stride, error))
    goto out;
  if (slab.clipped)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: variable '%s': the hyperslab is outside the dataset", self->path,
                   name);
      goto out;
    }
  if (!select_spaces (&slab, file_space, &mem_space))
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: variable '%s': selecting the hyperslab", self->path, name);
      goto out;
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      /* fixed-width storage to NUL-terminated strings */
      gsize width = ncz_variable_get_storage_element_size (variable);

      ptrs = g_try_new0 (char *, MAX (slab.n, 1));
      if (slab.n <= G_MAXSIZE / (width + 1))
        strings = g_try_malloc0 (MAX (slab.n * (width + 1), 1));
      if (ptrs == NULL || strings == NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                       "variable '%s': cannot hold %" G_GUINT64_FORMAT " strings", name,
                       slab.n);
          goto out;
        }
      for (guint64 i = 0; i < slab.n; i++)
        {
          ptrs[i] = strings + i * (width + 1);
          memcpy (ptrs[i], (const char *) buffer + i * width, width);
        }
      mem_type = ncz_h5_mem_type (type);
      /* in the dataset's own character set: libhdf5 converts none */
      {
        hid_t file_type = H5Dget_type (node->id);

        if (file_type >= 0 && mem_type >= 0)
          H5Tset_cset (mem_type, H5Tget_cset (file_type));
        if (file_type >= 0)
          H5Tclose (file_type);
      }
      buffer = ptrs;
    }
  else if (type == NCZ_DATA_TYPE_CHAR)
    mem_type = H5Dget_type (node->id);
  else
    mem_type = ncz_h5_mem_type (type);
  if (H5Dwrite (node->id, mem_type, mem_space, file_space, H5P_DEFAULT, buffer) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: writing variable '%s'",
                        self->path, name);
      goto out;
    }
  ok = TRUE;

out:
  if (mem_type >= 0)
    H5Tclose (mem_type);
  if (mem_space >= 0)
    H5Sclose (mem_space);
  if (file_space >= 0)
    H5Sclose (file_space);
  return ok;
}

gboolean
ncz_h5_write_slab (NczHdf5Format *self, NczVariable *variable,
                   const guint64 *start, const guint64 *count, const gint64 *stride,
                   gconstpointer buffer, GCancellable *cancellable, GError **error)
{
  gboolean handled = FALSE;
  NczH5Node *node;
  gboolean ok;

  if (!ncz_h5_direct_write (self, variable, start, count, stride, buffer, &handled,
                            cancellable, error))
    return FALSE;
  if (handled)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  ncz_h5_lock ();
  node = ncz_h5_peek_node (self, variable);
  if (node == NULL || node->id < 0 || node->unsupported)
    {
      g_autofree char *name = full_name (variable);

      ncz_h5_unlock ();
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                   "%s: variable '%s' has no HDF5 dataset to write to", self->path, name);
      return FALSE;
    }
  ok = plain_write (self, variable, node, start, count, stride, buffer, error);
  ncz_h5_unlock ();
  return ok;
}
