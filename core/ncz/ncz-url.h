/* ncz-url.h: dataset URLs and their mode fragment
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib-object.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

/**
 * NczUrlMode:
 * @NCZ_URL_MODE_NONE: no mode given
 * @NCZ_URL_MODE_NCZARR: NCZarr format (`mode=nczarr`)
 * @NCZ_URL_MODE_ZARR: pure Zarr v2 (`mode=zarr`, implies nczarr)
 * @NCZ_URL_MODE_NOXARRAY: do not read or write `_ARRAY_DIMENSIONS`
 * @NCZ_URL_MODE_XARRAY: xarray convention requested explicitly
 * @NCZ_URL_MODE_FILE: directory-tree storage
 * @NCZ_URL_MODE_ZIP: zip-file storage
 * @NCZ_URL_MODE_S3: S3 storage
 * @NCZ_URL_MODE_BYTES: a single file (netCDF-4/HDF5) read with ranged
 *   reads through a store (`mode=bytes`): S3, http(s), or a zip archive
 *
 * The flags of a URL's `mode=` fragment key, after inference.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/ {
  NCZ_URL_MODE_NONE = 0,
  NCZ_URL_MODE_NCZARR = 1 << 0,
  NCZ_URL_MODE_ZARR = 1 << 1,
  NCZ_URL_MODE_NOXARRAY = 1 << 2,
  NCZ_URL_MODE_XARRAY = 1 << 3,
  NCZ_URL_MODE_FILE = 1 << 4,
  NCZ_URL_MODE_ZIP = 1 << 5,
  NCZ_URL_MODE_S3 = 1 << 6,
  NCZ_URL_MODE_BYTES = 1 << 7,
} NczUrlMode;

#define NCZ_TYPE_URL (ncz_url_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczUrl, ncz_url, NCZ, URL, GObject)

NCZ_AVAILABLE_IN_ALL
NczUrl *ncz_url_parse (const char *url, GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_url_to_string (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_original (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_scheme (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_host (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
int ncz_url_get_port (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_path (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_query (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_fragment_value (NczUrl *self, const char *key);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_url_has_fragment_key (NczUrl *self, const char *key);
NCZ_AVAILABLE_IN_ALL
char **ncz_url_get_fragment_keys (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
NczUrlMode ncz_url_get_mode (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
NczUrlMode ncz_url_get_given_mode (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_url_is_pure_zarr (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_url_use_xarray (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_storage (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_format_name (NczUrl *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_url_get_local_path (NczUrl *self);

G_END_DECLS
