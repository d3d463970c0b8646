/* ncz-registry-loader.c: loading plugin modules
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-registry-private.h"

static char *
entry_point_name (const char *plugin_name)
{
  char *symbol = g_strdup_printf ("ncz_plugin_%s_describe", plugin_name);

  g_strdelimit (symbol, "-", '_');
  return symbol;
}

static void
remove_registrations_of (NczRegistry   *self,
                         NczPluginInfo *plugin)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->registrations);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GPtrArray *regs = value;

      for (guint i = regs->len; i > 0; i--)
        {
          NczRegistration *reg = g_ptr_array_index (regs, i - 1);

          if (reg->plugin == plugin)
            g_ptr_array_remove_index (regs, i - 1);
        }
      if (regs->len == 0)
        g_hash_table_iter_remove (&iter);
    }
  for (guint i = self->providers->len; i > 0; i--)
    {
      NczCodecProvider *provider = g_ptr_array_index (self->providers, i - 1);

      if (provider->plugin == plugin)
        g_ptr_array_remove_index (self->providers, i - 1);
    }
  g_ptr_array_set_size (plugin->registered, 0);
}

/* Loading (under the lock) */

typedef const NczPluginDesc *(*NczPluginDescribeFunc) (void);


static gboolean
load_module (NczRegistry    *self,
             NczPluginInfo  *info,
             GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *symbol = entry_point_name (info->name);
  NczPluginDescribeFunc describe = NULL;
  const NczPluginDesc *desc;
  NczPluginInfo *previous;
  GModule *module;
  gboolean ok;

  module = g_module_open_full (info->filename, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL,
                               &local_error);
  if (module == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "cannot load plugin '%s': %s", info->name, local_error->message);
      return FALSE;
    }

  if (!g_module_symbol (module, symbol, (gpointer *) &describe) || describe == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "plugin module %s has no entry point %s()", info->filename, symbol);
      g_module_close (module);
      return FALSE;
    }

  desc = describe ();
  if (desc == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "%s() of plugin module %s returned NULL", symbol, info->filename);
      g_module_close (module);
      return FALSE;
    }
  if (desc->abi != NCZ_PLUGIN_ABI)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_ABI,
                   "plugin module %s was built for plugin ABI %u but this Ncz uses ABI %d; "
                   "the plugin must be rebuilt",
                   info->filename, desc->abi, NCZ_PLUGIN_ABI);
      g_module_close (module);
      return FALSE;
    }
  if (desc->name == NULL || strcmp (desc->name, info->name) != 0)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "plugin module %s calls itself '%s' but %s names it '%s'",
                   info->filename, desc->name != NULL ? desc->name : "(null)",
                   info->manifest_path != NULL ? info->manifest_path : "its entry point",
                   info->name);
      g_module_close (module);
      return FALSE;
    }
  if (desc->register_func == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "plugin module %s has no register function", info->filename);
      g_module_close (module);
      return FALSE;
    }

  /* From here on the module may have registered types: it stays. */
  g_module_make_resident (module);
  info->module = module;

  /* Fill in what the manifest left out; never replace a string another
   * thread may be reading. */
  if (info->version == NULL)
    info->version = g_strdup (desc->version);
  if (info->license == NULL)
    info->license = g_strdup (desc->license);
  if (info->description == NULL)
    info->description = g_strdup (desc->description);

  previous = self->loading;
  self->loading = info;
  ok = desc->register_func (self, &local_error);
  self->loading = previous;

  if (!ok)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "plugin '%s' (%s) failed to initialize: %s", info->name, info->filename,
                   local_error != NULL ? local_error->message : "no reason given");
      return FALSE;
    }
  g_clear_error (&local_error);

  if (info->manifest_path != NULL)
    for (gsize i = 0; info->provides[i] != NULL; i++)
      if (!g_ptr_array_find_with_equal_func (info->registered, info->provides[i],
                                             g_str_equal, NULL))
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "manifest lies: %s claims %s but the module %s did not register it",
                       info->manifest_path, info->provides[i], info->filename);
          return FALSE;
        }

  return TRUE;
}

gboolean
_ncz_registry_load_plugin_locked (NczRegistry    *self,
                    NczPluginInfo  *info,
                    GError        **error)
{
  g_autoptr(GError) local_error = NULL;

  switch (ncz_plugin_info_get_status (info))
    {
    case NCZ_PLUGIN_STATUS_LOADED:
      return TRUE;
    case NCZ_PLUGIN_STATUS_AVAILABLE:
      break;
    default:
      if (error != NULL)
        *error = g_error_copy (info->error);
      return FALSE;
    }

  if (info->loading)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_FAILED,
                   "plugin '%s' is being loaded", info->name);
      return FALSE;
    }

  info->loading = TRUE;
  if (!load_module (self, info, &local_error))
    {
      info->loading = FALSE;
      remove_registrations_of (self, info);
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_FAILED, local_error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  info->loading = FALSE;
  ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_LOADED, NULL);
  return TRUE;
}

/**
 * ncz_registry_load_plugin:
 * @self: a registry
 * @info: a plugin of @self (ncz_registry_list_plugins())
 * @error: return location for a #GError
 *
 * Loads the plugin's module now, rather than when one of its features is
 * first used, unless it is loaded already or failed before.
 *
 * Returns: %TRUE if the plugin is loaded; %FALSE with the plugin's error
 *   (ncz_plugin_info_get_error()) if it is not usable
 * Since: 1.0
 */
gboolean
ncz_registry_load_plugin (NczRegistry    *self,
                          NczPluginInfo  *info,
                          GError        **error)
{
  gboolean ok;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (NCZ_IS_PLUGIN_INFO (info), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_rec_mutex_lock (&self->lock);
  _ncz_registry_ensure_scanned (self);
  if (!g_ptr_array_find (self->plugins, info, NULL) &&
      !g_ptr_array_find (self->extra_plugins, info, NULL))
    {
      g_rec_mutex_unlock (&self->lock);
      g_return_val_if_reached (FALSE);
    }
  ok = _ncz_registry_load_plugin_locked (self, info, error);
  g_rec_mutex_unlock (&self->lock);

  return ok;
}

/**
 * ncz_registry_load_module:
 * @self: a registry
 * @filename: (type filename): the module file
 * @name: the plugin name: the module's entry point is
 *   `ncz_plugin_NAME_describe`
 * @error: return location for a #GError
 *
 * Loads a module without any manifest and calls its register function
 * into @self; `ncz-inspect-1.0 --manifest` does this on a registry of its
 * own to learn what a module provides (ncz_plugin_info_dup_registered(),
 * ncz_registry_describe_format_probe()).
 *
 * Returns: (transfer full): the module's plugin info, or %NULL with
 *   @error set
 * Since: 1.0
 */
NczPluginInfo *
ncz_registry_load_module (NczRegistry  *self,
                          const char   *filename,
                          const char   *name,
                          GError      **error)
{
  NczPluginInfo *info;
  gboolean ok;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (filename != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_ncz_is_valid_plugin_name (name))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "'%s' is not a plugin name (letters, digits, _ and - only)", name);
      return NULL;
    }

  info = ncz_plugin_info_new_internal ();
  info->name = g_strdup (name);
  info->filename = g_path_is_absolute (filename)
                   ? g_strdup (filename)
                   : g_canonicalize_filename (filename, NULL);
  info->abi = NCZ_PLUGIN_ABI;

  g_rec_mutex_lock (&self->lock);
  g_ptr_array_add (self->extra_plugins, info);
  ok = _ncz_registry_load_plugin_locked (self, info, error);
  g_rec_mutex_unlock (&self->lock);

  return ok ? g_object_ref (info) : NULL;
}
