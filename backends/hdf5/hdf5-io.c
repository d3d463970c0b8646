/* hdf5-io.c: hyperslab I/O of netCDF-4 variables
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "hdf5-private.h"

gboolean
ncz_h5_read_slab (NczHdf5Format *self, NczVariable *variable,
                  const guint64 *start, const guint64 *count, const gint64 *stride,
                  gpointer buffer, GCancellable *cancellable, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "%s: variable '%s': reading is not written yet", self->path,
               ncz_variable_get_name (variable));
  return FALSE;
}

gboolean
ncz_h5_write_slab (NczHdf5Format *self, NczVariable *variable,
                   const guint64 *start, const guint64 *count, const gint64 *stride,
                   gconstpointer buffer, GCancellable *cancellable, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "%s: variable '%s': writing is not written yet", self->path,
               ncz_variable_get_name (variable));
  return FALSE;
}
