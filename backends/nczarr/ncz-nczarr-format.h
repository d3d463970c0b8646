/* ncz-nczarr-format.h: the NCZarr / Zarr v2 format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_TYPE_NCZARR_FORMAT (ncz_nczarr_format_get_type ())
G_DECLARE_FINAL_TYPE (NczNczarrFormat, ncz_nczarr_format, NCZ, NCZARR_FORMAT, GObject)

/* The layout detected when the dataset was opened ("pure-zarr", "v1",
 * "keys-upper", "keys", "attributes"), or the one being written. */
const char *ncz_nczarr_format_get_layout (NczNczarrFormat *self);

G_END_DECLS
