/* ncz-plugin.h: what a plugin module exports
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-registry.h>

G_BEGIN_DECLS

/**
 * NCZ_PLUGIN_ABI:
 *
 * The plugin ABI version. A module built against another value is refused.
 *
 * Since: 1.0
 */
#define NCZ_PLUGIN_ABI NCZ_MODULE_SDK_VERSION

/**
 * NczPluginDesc:
 * @abi: must be %NCZ_PLUGIN_ABI
 * @name: the plugin name; the module's entry point is
 *   `ncz_plugin_<name>_describe`
 * @version: the plugin version
 * @license: SPDX license identifier
 * @description: one line describing the plugin
 * @register_func: registers the plugin's types with the registry
 *
 * Returned by a module's entry point.
 *
 * Since: 1.0
 */
typedef struct {
  guint abi;
  const char *name;
  const char *version;
  const char *license;
  const char *description;
  gboolean (*register_func) (NczRegistry *registry, GError **error);
  /*< private >*/
  gpointer padding[4];
} NczPluginDesc;

/**
 * NczPluginStatus:
 * @NCZ_PLUGIN_STATUS_AVAILABLE: manifest read; the module is not loaded yet
 * @NCZ_PLUGIN_STATUS_LOADED: the module is loaded, checked and resident
 * @NCZ_PLUGIN_STATUS_FAILED: loading the module failed; it is not retried
 * @NCZ_PLUGIN_STATUS_SKIPPED: the manifest was rejected while scanning
 *   (unreadable, wrong Abi, duplicate module file name or plugin name)
 * @NCZ_PLUGIN_STATUS_DISABLED: the plugin is named in `NCZ_PLUGIN_DISABLE`
 *
 * Where a plugin stands. Every status but AVAILABLE and LOADED comes with
 * an error (ncz_plugin_info_get_error()).
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_PLUGIN_STATUS_AVAILABLE,
  NCZ_PLUGIN_STATUS_LOADED,
  NCZ_PLUGIN_STATUS_FAILED,
  NCZ_PLUGIN_STATUS_SKIPPED,
  NCZ_PLUGIN_STATUS_DISABLED,
} NczPluginStatus;

NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_status_to_string (NczPluginStatus status);

/* NczPluginInfo: what the registry knows of one plugin module; documented
 * in ncz-plugin-info.c */
#define NCZ_TYPE_PLUGIN_INFO (ncz_plugin_info_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczPluginInfo, ncz_plugin_info, NCZ, PLUGIN_INFO, GObject)

NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_name (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_filename (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_manifest_path (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_version (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_description (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char * const *ncz_plugin_info_get_provides (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_plugin_info_is_loaded (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const GError *ncz_plugin_info_get_error (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
NczPluginStatus ncz_plugin_info_get_status (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
const char *ncz_plugin_info_get_license (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
guint ncz_plugin_info_get_abi (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
char **ncz_plugin_info_dup_registered (NczPluginInfo *self);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_plugin_info_lookup_symbol (NczPluginInfo *self, const char *symbol,
                                        gpointer *address);

/* Loading modules now rather than when a feature is first used
 * (ncz-inspect-1.0); documented in ncz-registry-loader.c */
NCZ_AVAILABLE_IN_ALL
gboolean ncz_registry_load_plugin (NczRegistry *self, NczPluginInfo *info,
                                   GError **error);
NCZ_AVAILABLE_IN_ALL
NczPluginInfo *ncz_registry_load_module (NczRegistry *self, const char *filename,
                                         const char *name, GError **error);

/* Finding one plugin by name (ncz-inspect-1.0 NAME); documented in
 * ncz-registry.c */
NCZ_AVAILABLE_IN_ALL
NczPluginInfo *ncz_registry_find_plugin (NczRegistry *self, const char *name,
                                         GError **error);

G_END_DECLS
