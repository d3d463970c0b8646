/* hdf5-read.c: loading a netCDF-4 file into the model
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "hdf5-private.h"

gboolean
ncz_h5_load (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "%s: reading netCDF-4 files is not written yet", self->path);
  return FALSE;
}

GPtrArray *
ncz_h5_describe_variable (NczHdf5Format *self, NczVariable *variable)
{
  return NULL;
}

GPtrArray *
ncz_h5_describe_dataset (NczHdf5Format *self, NczDataset *dataset)
{
  return NULL;
}
