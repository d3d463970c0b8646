/* ncz-lz4-codec.h: the LZ4 codec descriptor (module-private)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-codec-module.h"

G_BEGIN_DECLS

/* HDF5 filter 32004, numcodecs "lz4"; see ncz-lz4-codec.c for the two
 * framings and the parameters. */
extern const NczCodecModuleDesc ncz_lz4_codec_desc;

G_END_DECLS
