/* ncz-blosc-plugin.c: libncz-codec-blosc.so's exports (Ncz, HDF5, netcdf-c)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include "ncz-blosc-codec.h"

NCZ_DEFINE_CODEC_MODULE (blosc, NczBloscCodec, ncz_blosc_codec_desc)
