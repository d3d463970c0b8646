/* ncz-foreign-codec.h: a codec served by foreign HDF5 + Codec libraries
 *
 * Internal to the codec-registry module.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz-module.h>

#include "ncz-foreign-scan.h"

G_BEGIN_DECLS

#define NCZ_TYPE_FOREIGN_CODEC (ncz_foreign_codec_get_type ())
G_DECLARE_FINAL_TYPE (NczForeignCodec, ncz_foreign_codec, NCZ, FOREIGN_CODEC, GObject)

/* @row must be a USABLE row of @scan. */
NczCodec *ncz_foreign_codec_new (NczForeignScan *scan, const NczForeignRow *row);
const NczForeignRow *ncz_foreign_codec_get_row (NczForeignCodec *self);

G_END_DECLS
