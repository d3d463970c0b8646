/* ncz-error.h: error domains
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

/**
 * NczDatasetError:
 * @NCZ_DATASET_ERROR_FAILED: generic failure
 * @NCZ_DATASET_ERROR_NOT_FOUND: no such dimension, variable, group or attribute
 * @NCZ_DATASET_ERROR_EXISTS: an object of that name already exists
 * @NCZ_DATASET_ERROR_INVALID: invalid argument (bad name, shape, hyperslab, type)
 * @NCZ_DATASET_ERROR_READ_ONLY: the dataset was opened read-only
 * @NCZ_DATASET_ERROR_NOT_NCZ: the URL does not hold a dataset Ncz understands
 * @NCZ_DATASET_ERROR_BAD_URL: the URL could not be parsed
 * @NCZ_DATASET_ERROR_CLOSED: the dataset was closed
 *
 * Errors of the data model.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_DATASET_ERROR_FAILED,
  NCZ_DATASET_ERROR_NOT_FOUND,
  NCZ_DATASET_ERROR_EXISTS,
  NCZ_DATASET_ERROR_INVALID,
  NCZ_DATASET_ERROR_READ_ONLY,
  NCZ_DATASET_ERROR_NOT_NCZ,
  NCZ_DATASET_ERROR_BAD_URL,
  NCZ_DATASET_ERROR_CLOSED,
} NczDatasetError;

/**
 * NczStorageError:
 * @NCZ_STORAGE_ERROR_FAILED: generic failure
 * @NCZ_STORAGE_ERROR_NOT_FOUND: the key holds no object (netCDF's NC_EEMPTY)
 * @NCZ_STORAGE_ERROR_INVALID_KEY: the key is not legal (`..`, empty segment, control character)
 * @NCZ_STORAGE_ERROR_PERMISSION: access denied
 * @NCZ_STORAGE_ERROR_READ_ONLY: the store is read-only
 * @NCZ_STORAGE_ERROR_EXISTS: the store already exists
 * @NCZ_STORAGE_ERROR_IO: an I/O error
 * @NCZ_STORAGE_ERROR_LOCKED: another writer holds the lock asked for, and
 *   it was not released within the time allowed (the message names the
 *   holder where the store knows it)
 * @NCZ_STORAGE_ERROR_CONFLICT: the object was changed by another writer
 *   since it was read (a conditional write failed), or the dataset was
 *   replaced while it was open
 *
 * Errors of storage drivers.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_STORAGE_ERROR_FAILED,
  NCZ_STORAGE_ERROR_NOT_FOUND,
  NCZ_STORAGE_ERROR_INVALID_KEY,
  NCZ_STORAGE_ERROR_PERMISSION,
  NCZ_STORAGE_ERROR_READ_ONLY,
  NCZ_STORAGE_ERROR_EXISTS,
  NCZ_STORAGE_ERROR_IO,
  NCZ_STORAGE_ERROR_LOCKED,
  NCZ_STORAGE_ERROR_CONFLICT,
} NczStorageError;

/**
 * NczCodecError:
 * @NCZ_CODEC_ERROR_FAILED: generic failure
 * @NCZ_CODEC_ERROR_NOT_AVAILABLE: no implementation of the codec is available
 * @NCZ_CODEC_ERROR_BAD_PARAMETERS: the codec parameters are invalid
 * @NCZ_CODEC_ERROR_CORRUPT: the encoded data is corrupt
 * @NCZ_CODEC_ERROR_NOT_FOUND: the variable has no such filter
 *
 * Errors of codecs and filters.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_CODEC_ERROR_FAILED,
  NCZ_CODEC_ERROR_NOT_AVAILABLE,
  NCZ_CODEC_ERROR_BAD_PARAMETERS,
  NCZ_CODEC_ERROR_CORRUPT,
  NCZ_CODEC_ERROR_NOT_FOUND,
} NczCodecError;

/**
 * NczBackendError:
 * @NCZ_BACKEND_ERROR_FAILED: generic failure
 * @NCZ_BACKEND_ERROR_BAD_METADATA: a metadata object is malformed
 * @NCZ_BACKEND_ERROR_UNSUPPORTED: a feature of the dataset is not supported
 * @NCZ_BACKEND_ERROR_BAD_CHUNK: a chunk object is malformed (wrong length)
 *
 * Errors of format backends.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_BACKEND_ERROR_FAILED,
  NCZ_BACKEND_ERROR_BAD_METADATA,
  NCZ_BACKEND_ERROR_UNSUPPORTED,
  NCZ_BACKEND_ERROR_BAD_CHUNK,
} NczBackendError;

/**
 * NczPluginError:
 * @NCZ_PLUGIN_ERROR_FAILED: generic failure
 * @NCZ_PLUGIN_ERROR_NOT_INSTALLED: the feature is known but its module is not installed
 * @NCZ_PLUGIN_ERROR_NOT_FOUND: no module provides the feature
 * @NCZ_PLUGIN_ERROR_LOAD: the module could not be loaded
 * @NCZ_PLUGIN_ERROR_ABI: the module was built for another plugin ABI
 * @NCZ_PLUGIN_ERROR_MANIFEST: the module does not match its manifest
 * @NCZ_PLUGIN_ERROR_DISABLED: the module is disabled by `NCZ_PLUGIN_DISABLE`
 *
 * Errors of the plugin registry.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_PLUGIN_ERROR_FAILED,
  NCZ_PLUGIN_ERROR_NOT_INSTALLED,
  NCZ_PLUGIN_ERROR_NOT_FOUND,
  NCZ_PLUGIN_ERROR_LOAD,
  NCZ_PLUGIN_ERROR_ABI,
  NCZ_PLUGIN_ERROR_MANIFEST,
  NCZ_PLUGIN_ERROR_DISABLED,
} NczPluginError;

#define NCZ_DATASET_ERROR (ncz_dataset_error_quark ())
#define NCZ_STORAGE_ERROR (ncz_storage_error_quark ())
#define NCZ_CODEC_ERROR (ncz_codec_error_quark ())
#define NCZ_BACKEND_ERROR (ncz_backend_error_quark ())
#define NCZ_PLUGIN_ERROR (ncz_plugin_error_quark ())

NCZ_AVAILABLE_IN_ALL
GQuark ncz_dataset_error_quark (void);
NCZ_AVAILABLE_IN_ALL
GQuark ncz_storage_error_quark (void);
NCZ_AVAILABLE_IN_ALL
GQuark ncz_codec_error_quark (void);
NCZ_AVAILABLE_IN_ALL
GQuark ncz_backend_error_quark (void);
NCZ_AVAILABLE_IN_ALL
GQuark ncz_plugin_error_quark (void);

G_END_DECLS
