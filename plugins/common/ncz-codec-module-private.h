/* ncz-codec-module-private.h: what the parts of the codec module frame
 * share (ncz-codec-module-*.c); not for codec modules themselves.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-codec-module.h"

G_BEGIN_DECLS

/* Runs the codec's initialize function once per module, before the
 * first type registration or HDF5 filter call (Ncz and HDF5 never call
 * it themselves; netcdf-c does, through NCZ_codec_initialize). */
void ncz_codec_module_ensure_initialized (const NczCodecModuleDesc *desc);

/* Codec configuration -> visible parameters for @desc: checks "id" and
 * runs desc->from_json. Errors are prefixed "codec 'ID': ". */
GArray *ncz_codec_module_visible_from_json (const NczCodecModuleDesc *desc, JsonObject *dict,
                                            GError **error);
/* The same from JSON text, read as Zarr metadata is (bare NaN accepted). */
GArray *ncz_codec_module_visible_from_json_text (const NczCodecModuleDesc *desc,
                                                 const char *json, GError **error);
/* Visible parameters -> a new codec dict (desc->to_json, or {"id": ID}). */
JsonObject *ncz_codec_module_json_from_visible (const NczCodecModuleDesc *desc,
                                                const guint *params, gsize n_params,
                                                GError **error);
/* Runs desc->modify (or copies) on @visible; returns the working params. */
GArray *ncz_codec_module_working_from_visible (const NczCodecModuleDesc *desc,
                                               const NczCodecVarInfo *info, GArray *visible,
                                               GError **error);

gboolean ncz_codec_module_host_is_big_endian (void);
/* a * b, or G_MAXSIZE if that overflows */
gsize ncz_codec_module_mul_saturate (gsize a, guint64 b);

G_END_DECLS
