/* hdf5-chunks.c: which chunks of a dataset are allocated in the file and
 * their stored sizes (the chunk inventory of NczFormatInterface.query_chunks)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "hdf5-private.h"

GArray *
ncz_h5_query_chunks (NczHdf5Format *self, NczVariable *variable, const guint64 *chunk_indices,
                     guint n_chunks, GCancellable *cancellable, GError **error)
{
  guint rank = ncz_variable_get_n_dimensions (variable);
  g_autofree char *name = ncz_variable_get_full_name (variable);
  g_autoptr(GArray) sizes = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n_chunks);
  NczH5Node *node;
  hsize_t chunk_dims[H5S_MAX_RANK];
  H5D_layout_t layout;
  hid_t dcpl;

  g_array_set_size (sizes, n_chunks);
  if (rank > H5S_MAX_RANK)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' has more dimensions than HDF5 allows", self->path, name);
      return NULL;
    }

  ncz_h5_lock ();
  node = ncz_h5_peek_node (self, variable);
  if (node == NULL || node->id < 0)
    {
      /* not in the file (yet): nothing stored */
      ncz_h5_unlock ();
      for (guint i = 0; i < n_chunks; i++)
        g_array_index (sizes, gint64, i) = -1;
      return g_steal_pointer (&sizes);
    }
  if (node->unsupported)
    {
      ncz_h5_unlock ();
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' has a type Ncz does not read: its chunks cannot be "
                   "listed", self->path, name);
      return NULL;
    }
  /* chunks still in the chunk cache of a file being written are not
   * allocated yet */
  if (self->writable && H5Dflush (node->id) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: variable '%s': flushing",
                        self->path, name);
      ncz_h5_unlock ();
      return NULL;
    }
  dcpl = H5Dget_create_plist (node->id);
  layout = dcpl >= 0 ? H5Pget_layout (dcpl) : H5D_LAYOUT_ERROR;
  if (layout == H5D_CHUNKED && H5Pget_chunk (dcpl, (int) rank, chunk_dims) != (int) rank)
    layout = H5D_LAYOUT_ERROR;
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (layout == H5D_LAYOUT_ERROR)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: variable '%s': reading the storage layout", self->path, name);
      ncz_h5_unlock ();
      return NULL;
    }

  for (guint i = 0; i < n_chunks; i++)
    {
      const guint64 *index = chunk_indices + (gsize) i * rank;
      gint64 size = -1;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ncz_h5_unlock ();
          return NULL;
        }
      if (layout == H5D_CHUNKED)
        {
          hsize_t coord[H5S_MAX_RANK];
          haddr_t addr = HADDR_UNDEF;
          hsize_t stored = 0;
          unsigned mask = 0;

          for (guint d = 0; d < rank; d++)
            coord[d] = index[d] * chunk_dims[d];
          if (H5Dget_chunk_info_by_coord (node->id, coord, &mask, &addr, &stored) < 0)
            {
              GString *where = g_string_new (NULL);
              for (guint d = 0; d < rank; d++)
                g_string_append_printf (where, "%s%" G_GUINT64_FORMAT, d ? "," : "", index[d]);
              ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_CHUNK,
                                "%s: variable '%s': finding chunk (%s)", self->path, name,
                                where->str);
              g_string_free (where, TRUE);
              ncz_h5_unlock ();
              return NULL;
            }
          if (addr != HADDR_UNDEF)
            size = (gint64) stored;
        }
      else
        {
          /* contiguous or compact: the whole variable is chunk 0 */
          gboolean first = TRUE;
          for (guint d = 0; d < rank; d++)
            first = first && index[d] == 0;
          if (first)
            {
              hsize_t stored = H5Dget_storage_size (node->id);
              if (stored > 0)
                size = (gint64) stored;
            }
        }
      g_array_index (sizes, gint64, i) = size;
    }
  ncz_h5_unlock ();
  return g_steal_pointer (&sizes);
}
