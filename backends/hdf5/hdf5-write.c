/* hdf5-write.c: the model's objects written as netCDF-4 HDF5 objects
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "hdf5-private.h"

gboolean
ncz_h5_create (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "%s: writing netCDF-4 files is not written yet", self->path);
  return FALSE;
}

gboolean
ncz_h5_materialize (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  return TRUE;
}

gboolean
ncz_h5_sync (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  return TRUE;
}

gboolean
ncz_h5_group_defined (NczHdf5Format *self, NczGroup *group,
                      NczDefinitionChange change, GError **error)
{
  return TRUE;
}

gboolean
ncz_h5_dimension_defined (NczHdf5Format *self, NczDimension *dimension,
                          NczDefinitionChange change, GError **error)
{
  return TRUE;
}

gboolean
ncz_h5_variable_defined (NczHdf5Format *self, NczVariable *variable,
                         NczDefinitionChange change, GError **error)
{
  return TRUE;
}

gboolean
ncz_h5_attribute_defined (NczHdf5Format *self, GObject *owner, const char *name,
                          NczAttribute *attribute, NczDefinitionChange change,
                          GError **error)
{
  return TRUE;
}
