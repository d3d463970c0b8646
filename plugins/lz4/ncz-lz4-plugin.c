/* ncz-lz4-plugin.c: libncz-codec-lz4.so's exports (Ncz, HDF5, netcdf-c)
 *
 * Through the HDF5 plugin ABI the shared frame runs the descriptor's
 * h5_encode / h5_decode: chunks use the HDF5 lz4 filter's framing (or
 * numcodecs' when netcdf-c passes the working parameters of a Zarr
 * variable), while Ncz's NczCodec always uses numcodecs' framing. See
 * ncz-lz4-codec.c.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#include "ncz-lz4-codec.h"

NCZ_DEFINE_CODEC_MODULE (lz4, NczLz4Codec, ncz_lz4_codec_desc)
