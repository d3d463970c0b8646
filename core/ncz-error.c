/* ncz-error.c: error domains
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <ncz/ncz.h>

/**
 * ncz_dataset_error_quark:
 *
 * Returns: the error domain of the data model
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (ncz-dataset-error-quark, ncz_dataset_error)
/**
 * ncz_storage_error_quark:
 *
 * Returns: the error domain of storage drivers
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (ncz-storage-error-quark, ncz_storage_error)
/**
 * ncz_codec_error_quark:
 *
 * Returns: the error domain of codecs
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (ncz-codec-error-quark, ncz_codec_error)
/**
 * ncz_backend_error_quark:
 *
 * Returns: the error domain of format backends
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (ncz-backend-error-quark, ncz_backend_error)
/**
 * ncz_plugin_error_quark:
 *
 * Returns: the error domain of the plugin registry
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (ncz-plugin-error-quark, ncz_plugin_error)
