/* hdf5-vfd.c: an HDF5 virtual file driver reading through an NczStore
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "hdf5-private.h"

gboolean
ncz_h5_open_bytes (NczHdf5Format *self, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "%s: reading netCDF-4 files through a store is not written yet",
               ncz_url_get_original (self->url));
  return FALSE;
}
