/* ncz-blosc-codec.h: the Blosc codec descriptor (module-private)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-codec-module.h"

G_BEGIN_DECLS

/* HDF5 filter 32001, numcodecs "blosc". Visible parameters (as netcdf-c):
 *   [0, 0, 0, blocksize, clevel, shuffle, compcode]
 * Working parameters (as the HDF5 blosc filter's set_local makes them):
 *   [2, BLOSC_VERSION_FORMAT, typesize, chunk bytes, clevel, shuffle, compcode]
 * plus an eighth value, the blocksize, when it is not 0 (automatic). */
extern const NczCodecModuleDesc ncz_blosc_codec_desc;

G_END_DECLS
