/* ncz-error.c: error domains
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <ncz/ncz.h>

/* Each quark is looked up once: G_DEFINE_QUARK caches it in a plain
 * variable that chunk workers could write at the same time. */

/**
 * ncz_dataset_error_quark:
 *
 * Gives the #GQuark of %NCZ_DATASET_ERROR, the domain of #NczDatasetError:
 * errors of the data model, such as a missing dataset, a name already
 * taken, a read-only or closed dataset, or invalid arguments.
 *
 * Returns: the error domain of the data model
 *
 * Since: 1.0
 */
GQuark
ncz_dataset_error_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-dataset-error-quark"));
  return (GQuark) quark;
}
/**
 * ncz_storage_error_quark:
 *
 * Gives the #GQuark of %NCZ_STORAGE_ERROR, the domain of #NczStorageError:
 * errors of storage drivers, such as a missing key, a permission refused
 * or an I/O failure.
 *
 * Returns: the error domain of storage drivers
 *
 * Since: 1.0
 */
GQuark
ncz_storage_error_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-storage-error-quark"));
  return (GQuark) quark;
}
/**
 * ncz_codec_error_quark:
 *
 * Gives the #GQuark of %NCZ_CODEC_ERROR, the domain of #NczCodecError:
 * errors of codecs and filter chains, such as an unavailable codec, bad
 * parameters or corrupt data.
 *
 * Returns: the error domain of codecs
 *
 * Since: 1.0
 */
GQuark
ncz_codec_error_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-codec-error-quark"));
  return (GQuark) quark;
}
/**
 * ncz_backend_error_quark:
 *
 * Gives the #GQuark of %NCZ_BACKEND_ERROR, the domain of #NczBackendError:
 * errors of format backends, such as metadata or chunks they cannot
 * understand.
 *
 * Returns: the error domain of format backends
 *
 * Since: 1.0
 */
GQuark
ncz_backend_error_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-backend-error-quark"));
  return (GQuark) quark;
}
/**
 * ncz_plugin_error_quark:
 *
 * Gives the #GQuark of %NCZ_PLUGIN_ERROR, the domain of #NczPluginError:
 * errors of the plugin registry, such as a plugin that is not installed,
 * fails to load or is disabled.
 *
 * Returns: the error domain of the plugin registry
 *
 * Since: 1.0
 */
GQuark
ncz_plugin_error_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-plugin-error-quark"));
  return (GQuark) quark;
}
