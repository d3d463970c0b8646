/* ncz-szip-codec.h: the SZIP codec descriptor (module-private)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-codec-module.h"

G_BEGIN_DECLS

/* HDF5 filter 4, codec "szip" (netcdf-c's; numcodecs has none), through
 * libaec's szip-compatible API. Visible parameters [options mask, pixels
 * per block]; working [mask | K13 | RAW | LSB or MSB, pixels per block,
 * bits per pixel, pixels per scanline], derived as HDF5's szip filter
 * does for a chunk. */
extern const NczCodecModuleDesc ncz_szip_codec_desc;

G_END_DECLS
