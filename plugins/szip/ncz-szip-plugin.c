/* ncz-szip-plugin.c: libncz-codec-szip.so's exports (Ncz, HDF5, netcdf-c)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include "ncz-szip-codec.h"

NCZ_DEFINE_CODEC_MODULE (szip, NczSzipCodec, ncz_szip_codec_desc)
