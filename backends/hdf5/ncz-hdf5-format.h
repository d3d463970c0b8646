/* ncz-hdf5-format.h: the HDF5 (netCDF-4) format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_HDF5_FORMAT (ncz_hdf5_format_get_type ())
G_DECLARE_FINAL_TYPE (NczHdf5Format, ncz_hdf5_format, NCZ, HDF5_FORMAT, GObject)

G_END_DECLS
