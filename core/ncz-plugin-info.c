/* ncz-plugin-info.c: what the registry knows of one plugin module
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-registry-private.h"

/**
 * NczPluginInfo:
 *
 * One plugin module as the registry sees it: what its `.plugin` manifest
 * says, whether the module has been loaded, and why it is unusable if it
 * is. Instances are owned by their [class@Ncz.Registry] and listed by
 * [method@Ncz.Registry.list_plugins].
 *
 * Since: 1.0
 */

enum {
  PROP_0,
  PROP_NAME,
  PROP_FILENAME,
  PROP_MANIFEST_PATH,
  PROP_VERSION,
  PROP_DESCRIPTION,
  PROP_LOADED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (NczPluginInfo, ncz_plugin_info, G_TYPE_OBJECT)

static void
ncz_plugin_info_finalize (GObject *object)
{
  NczPluginInfo *self = NCZ_PLUGIN_INFO (object);

  g_free (self->name);
  g_free (self->filename);
  g_free (self->manifest_path);
  g_free (self->version);
  g_free (self->license);
  g_free (self->description);
  g_strfreev (self->provides);
  g_ptr_array_unref (self->registered);
  g_clear_error (&self->error);
  /* Loaded modules are resident: closing only drops our reference. */
  g_clear_pointer (&self->module, g_module_close);

  G_OBJECT_CLASS (ncz_plugin_info_parent_class)->finalize (object);
}

static void
ncz_plugin_info_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NczPluginInfo *self = NCZ_PLUGIN_INFO (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_FILENAME:
      g_value_set_string (value, self->filename);
      break;
    case PROP_MANIFEST_PATH:
      g_value_set_string (value, self->manifest_path);
      break;
    case PROP_VERSION:
      g_value_set_string (value, self->version);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_LOADED:
      g_value_set_boolean (value, ncz_plugin_info_is_loaded (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_plugin_info_class_init (NczPluginInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_plugin_info_finalize;
  object_class->get_property = ncz_plugin_info_get_property;

  /**
   * NczPluginInfo:name:
   *
   * The plugin name.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczPluginInfo:filename:
   *
   * The full path of the module.
   *
   * Since: 1.0
   */
  properties[PROP_FILENAME] =
    g_param_spec_string ("filename", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczPluginInfo:manifest-path:
   *
   * The full path of the `.plugin` manifest.
   *
   * Since: 1.0
   */
  properties[PROP_MANIFEST_PATH] =
    g_param_spec_string ("manifest-path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczPluginInfo:version:
   *
   * The plugin version.
   *
   * Since: 1.0
   */
  properties[PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczPluginInfo:description:
   *
   * One line describing the plugin.
   *
   * Since: 1.0
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczPluginInfo:loaded:
   *
   * Whether the module has been loaded.
   *
   * Since: 1.0
   */
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ncz_plugin_info_init (NczPluginInfo *self)
{
  self->provides = g_new0 (char *, 1);
  self->registered = g_ptr_array_new_with_free_func (g_free);
  self->status = NCZ_PLUGIN_STATUS_AVAILABLE;
}

NczPluginInfo *
ncz_plugin_info_new_internal (void)
{
  return g_object_new (NCZ_TYPE_PLUGIN_INFO, NULL);
}

/* Called under the registry lock. The error is copied. */
void
ncz_plugin_info_set_status (NczPluginInfo   *self,
                            NczPluginStatus  status,
                            const GError    *error)
{
  gboolean was_loaded = ncz_plugin_info_is_loaded (self);

  if (error != NULL && self->error == NULL)
    self->error = g_error_copy (error);
  g_atomic_int_set (&self->status, status);

  if (was_loaded != (status == NCZ_PLUGIN_STATUS_LOADED))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
}

/**
 * ncz_plugin_info_get_name:
 * @self: a plugin info
 *
 * Gives the plugin's name: the one `NCZ_PLUGIN_DISABLE`,
 * `NCZ_PLUGIN_PRIORITY` and `ncz-inspect-1.0` use. The string belongs to
 * the plugin info.
 *
 * Returns: the plugin name (the `Name` key of its manifest)
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_name (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->name;
}

/**
 * ncz_plugin_info_get_filename:
 * @self: a plugin info
 *
 * Gives where the plugin's shared module is on disk. The string belongs to
 * the plugin info.
 *
 * Returns: (nullable) (type filename): the full path of the module, or
 *   %NULL if its manifest could not be read
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_filename (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->filename;
}

/**
 * ncz_plugin_info_get_manifest_path:
 * @self: a plugin info
 *
 * Gives the manifest the registry read this plugin's name, version and
 * features from, without loading the module. The string belongs to the
 * plugin info.
 *
 * Returns: (nullable) (type filename): the full path of the `.plugin`
 *   manifest, or %NULL for a module loaded without one
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_manifest_path (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->manifest_path;
}

/**
 * ncz_plugin_info_get_version:
 * @self: a plugin info
 *
 * Gives the plugin's version, from its manifest. The string belongs to the
 * plugin info.
 *
 * Returns: (nullable): the plugin version
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_version (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->version;
}

/**
 * ncz_plugin_info_get_description:
 * @self: a plugin info
 *
 * Gives the plugin's one-line description, from its manifest. The string
 * belongs to the plugin info.
 *
 * Returns: (nullable): one line describing the plugin
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_description (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->description;
}

/**
 * ncz_plugin_info_get_provides:
 * @self: a plugin info
 *
 * The features the manifest says the module provides, each as
 * `kind:name`: `store:file`, `format:nczarr`, `codec:zstd`,
 * `hdf5-filter:32015`.
 *
 * Returns: (transfer none) (array zero-terminated=1): the features
 * Since: 1.0
 */
const char * const *
ncz_plugin_info_get_provides (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return (const char * const *) self->provides;
}

/**
 * ncz_plugin_info_is_loaded:
 * @self: a plugin info
 *
 * Modules are loaded the first time one of their features is looked up.
 *
 * Returns: whether the module is loaded and usable
 * Since: 1.0
 */
gboolean
ncz_plugin_info_is_loaded (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), FALSE);
  return g_atomic_int_get (&self->status) == NCZ_PLUGIN_STATUS_LOADED;
}

/**
 * ncz_plugin_info_get_error:
 * @self: a plugin info
 *
 * Why the plugin is not usable: its manifest was rejected, the module
 * failed to load or did not match its manifest (it is then not tried
 * again), or it is disabled by `NCZ_PLUGIN_DISABLE`. The error is in the
 * %NCZ_PLUGIN_ERROR domain.
 *
 * Returns: (nullable) (transfer none): the error, or %NULL if the plugin
 *   is loaded or not tried yet
 * Since: 1.0
 */
const GError *
ncz_plugin_info_get_error (NczPluginInfo *self)
{
  int status;

  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);

  status = g_atomic_int_get (&self->status);
  if (status == NCZ_PLUGIN_STATUS_AVAILABLE || status == NCZ_PLUGIN_STATUS_LOADED)
    return NULL;
  return self->error;
}

/**
 * ncz_plugin_info_get_status:
 * @self: a plugin info
 *
 * Gives the plugin's state in the registry. It changes from available to
 * loaded or failed when one of its features is first used; the failure
 * itself is in ncz_plugin_info_get_error().
 *
 * Returns: where the plugin stands: available (not loaded yet), loaded,
 *   failed, skipped or disabled
 * Since: 1.0
 */
NczPluginStatus
ncz_plugin_info_get_status (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NCZ_PLUGIN_STATUS_FAILED);
  return (NczPluginStatus) g_atomic_int_get (&self->status);
}

/**
 * ncz_plugin_status_to_string:
 * @status: a plugin status
 *
 * Gives a short name of a plugin status, `unknown` for a value that is no
 * status. The string is static.
 *
 * Returns: the status as `ncz-inspect-1.0` shows it: `available`,
 *   `loaded`, `failed`, `skipped`, `disabled`
 * Since: 1.0
 */
const char *
ncz_plugin_status_to_string (NczPluginStatus status)
{
  switch (status)
    {
    case NCZ_PLUGIN_STATUS_AVAILABLE:
      return "available";
    case NCZ_PLUGIN_STATUS_LOADED:
      return "loaded";
    case NCZ_PLUGIN_STATUS_FAILED:
      return "failed";
    case NCZ_PLUGIN_STATUS_SKIPPED:
      return "skipped";
    case NCZ_PLUGIN_STATUS_DISABLED:
      return "disabled";
    default:
      return "unknown";
    }
}

/**
 * ncz_plugin_info_get_license:
 * @self: a plugin info
 *
 * Gives the plugin's license, as its manifest states it. The string
 * belongs to the plugin info.
 *
 * Returns: (nullable): the SPDX license identifier of the plugin
 * Since: 1.0
 */
const char *
ncz_plugin_info_get_license (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);
  return self->license;
}

/**
 * ncz_plugin_info_get_abi:
 * @self: a plugin info
 *
 * Gives the plugin ABI version the module was built for, as its manifest
 * records it. The registry loads only modules whose ABI equals
 * %NCZ_PLUGIN_ABI; others are listed with status
 * %NCZ_PLUGIN_STATUS_SKIPPED.
 *
 * Returns: the plugin ABI its manifest names (%NCZ_PLUGIN_ABI, the module
 *   SDK version, for a usable plugin)
 * Since: 1.0
 */
guint
ncz_plugin_info_get_abi (NczPluginInfo *self)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), 0);
  return self->abi;
}

/**
 * ncz_plugin_info_dup_registered:
 * @self: a plugin info
 *
 * The features the module registered when it was loaded, each as
 * `kind:name`, in order; `ncz-inspect-1.0 --manifest` writes them as the
 * manifest's `Provides`.
 *
 * Returns: (transfer full) (array zero-terminated=1): the features, empty
 *   before the module is loaded
 * Since: 1.0
 */
char **
ncz_plugin_info_dup_registered (NczPluginInfo *self)
{
  GStrvBuilder *builder;
  char **result;

  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), NULL);

  builder = g_strv_builder_new ();
  /* Only written while loading, under the registry lock, before the
   * status says LOADED. */
  if (ncz_plugin_info_is_loaded (self))
    for (guint i = 0; i < self->registered->len; i++)
      g_strv_builder_add (builder, g_ptr_array_index (self->registered, i));
  result = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return result;
}

/**
 * ncz_plugin_info_lookup_symbol: (skip)
 * @self: a plugin info
 * @symbol: a symbol name
 * @address: (out): where to store the symbol's address
 *
 * Looks a symbol up in the loaded module, for example the HDF5 plugin ABI
 * a codec module exports beside its entry point.
 *
 * Returns: %TRUE if the module is loaded and exports @symbol
 * Since: 1.0
 */
gboolean
ncz_plugin_info_lookup_symbol (NczPluginInfo *self,
                               const char    *symbol,
                               gpointer      *address)
{
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (self), FALSE);
  g_return_val_if_fail (symbol != NULL, FALSE);
  g_return_val_if_fail (address != NULL, FALSE);

  *address = NULL;
  /* The module pointer is set once, before the status says LOADED. */
  if (!ncz_plugin_info_is_loaded (self) || self->module == NULL)
    return FALSE;
  return g_module_symbol (self->module, symbol, address) && *address != NULL;
}
