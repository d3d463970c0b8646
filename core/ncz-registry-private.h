/* ncz-registry-private.h: registry and plugin-info internals
 *
 * Shared by core/ncz-registry.c, core/ncz-plugin-info.c and the tools
 * (ncz-inspect); not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gmodule.h>
#include <ncz/ncz.h>

G_BEGIN_DECLS

/*
 * NczPluginStatus:
 * @NCZ_PLUGIN_STATUS_AVAILABLE: manifest read; the module is not loaded yet
 * @NCZ_PLUGIN_STATUS_LOADED: the module is loaded, checked and resident
 * @NCZ_PLUGIN_STATUS_FAILED: loading the module failed; it is not retried
 * @NCZ_PLUGIN_STATUS_SKIPPED: the manifest was rejected while scanning
 *   (unreadable, wrong Abi, duplicate module basename or plugin name)
 * @NCZ_PLUGIN_STATUS_DISABLED: the plugin is named in NCZ_PLUGIN_DISABLE
 *
 * Every status but AVAILABLE and LOADED comes with a GError.
 */
typedef enum {
  NCZ_PLUGIN_STATUS_AVAILABLE,
  NCZ_PLUGIN_STATUS_LOADED,
  NCZ_PLUGIN_STATUS_FAILED,
  NCZ_PLUGIN_STATUS_SKIPPED,
  NCZ_PLUGIN_STATUS_DISABLED,
} NczPluginStatus;

/* All fields are written by the registry under its lock. The status is
 * read with g_atomic_int_get(); a GError is set before the status says
 * there is one, and never changes afterwards. */
struct _NczPluginInfo
{
  GObject parent_instance;

  char *name;               /* manifest Name (or the manifest's file name if unreadable) */
  char *filename;           /* full path of the module; NULL if the manifest names none */
  char *manifest_path;      /* NULL for modules loaded without a manifest */
  char *version;
  char *license;
  char *description;
  char **provides;          /* "kind:name" from the manifest; never NULL */
  GPtrArray *registered;    /* "kind:name" the module registered, in order */
  guint abi;                /* manifest Abi */
  int status;               /* NczPluginStatus */
  gboolean loading;         /* register_func is running */
  GError *error;
  GModule *module;
};

G_GNUC_INTERNAL NczPluginInfo *ncz_plugin_info_new_internal (void);
G_GNUC_INTERNAL void ncz_plugin_info_set_status (NczPluginInfo *self,
                                                 NczPluginStatus status,
                                                 const GError *error);

NCZ_PRIVATE_API NczPluginStatus ncz_plugin_info_get_status (NczPluginInfo *self);
NCZ_PRIVATE_API const char *ncz_plugin_status_to_string (NczPluginStatus status);
NCZ_PRIVATE_API const char *ncz_plugin_info_get_license (NczPluginInfo *self);
NCZ_PRIVATE_API guint ncz_plugin_info_get_abi (NczPluginInfo *self);
/* The features the module registered when it was loaded ("kind:name"),
 * in order; a new NULL-terminated array, empty before loading. */
NCZ_PRIVATE_API char **ncz_plugin_info_dup_registered (NczPluginInfo *self);

/* "store", "format", "codec", "hdf5-filter" */
NCZ_PRIVATE_API const char *ncz_feature_kind_to_string (NczFeatureKind kind);
NCZ_PRIVATE_API gboolean ncz_feature_kind_from_string (const char *str,
                                                       NczFeatureKind *kind);

/* Loads the module at @filename (no manifest involved), calls
 * ncz_plugin_<name>_describe and its register_func into @self. The
 * returned info lists what the module registered. ncz-inspect --manifest
 * uses it on a scratch registry. */
NCZ_PRIVATE_API NczPluginInfo *ncz_registry_load_module (NczRegistry *self,
                                                         const char *filename,
                                                         const char *name,
                                                         GError **error);
/* Loads one plugin found in the search path now, unless it was loaded or
 * failed already. FALSE with the plugin's error if it is not usable. */
NCZ_PRIVATE_API gboolean ncz_registry_load_plugin (NczRegistry *self,
                                                   NczPluginInfo *info,
                                                   GError **error);
/* Parallel to ncz_registry_get_search_path(): where each directory came
 * from ("NCZ_PLUGIN_PATH", "NCZ_PLUGIN_SYSTEM_PATH", "built-in",
 * "explicit"). */
NCZ_PRIVATE_API char **ncz_registry_get_search_path_sources (NczRegistry *self);

G_END_DECLS
