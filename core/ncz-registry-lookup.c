/* ncz-registry-lookup.c: lookups, priorities and codec providers
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-registry-private.h"

static void
codec_provider_clear (gpointer data)
{
  NczCodecProvider *provider = data;

  if (provider->destroy != NULL)
    provider->destroy (provider->user_data);
  g_free (provider->name);
}

void
_ncz_codec_provider_release (gpointer data)
{
  g_atomic_rc_box_release_full (data, codec_provider_clear);
}

/* Lookups (under the lock) */

gboolean
_ncz_registry_get_priority_override (NczRegistry *self,
                       const char  *name,
                       int         *priority)
{
  gpointer value;

  if (name == NULL ||
      !g_hash_table_lookup_extended (self->priorities, name, NULL, &value))
    return FALSE;
  *priority = GPOINTER_TO_INT (value);
  return TRUE;
}

static int
registration_priority (NczRegistry  *self,
                       NczRegistration *reg)
{
  int priority = reg->priority;
  const char *name = reg->plugin != NULL ? reg->plugin->name : g_type_name (reg->type);

  _ncz_registry_get_priority_override (self, name, &priority);
  return priority;
}

/* Returns the winning registration, loading modules as needed. */
NczRegistration *
_ncz_registry_lookup_locked (NczRegistry     *self,
               NczFeatureKind   kind,
               const char      *name,
               GError         **error)
{
  g_autofree char *key = _ncz_feature_key (kind, name);

  _ncz_registry_ensure_scanned (self);

  if (_ncz_registry_is_disabled (self, name))
    {
      g_autofree char *display = _ncz_feature_display (kind, name);

      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED,
                   "%s is disabled by NCZ_PLUGIN_DISABLE", display);
      return NULL;
    }

  for (;;)
    {
      GPtrArray *regs = g_hash_table_lookup (self->registrations, key);
      GPtrArray *infos = g_hash_table_lookup (self->provided_by, key);
      NczRegistration *best = NULL;
      NczPluginInfo *candidate = NULL;
      int best_priority = G_MININT;
      int candidate_priority = G_MININT;

      for (guint i = 0; regs != NULL && i < regs->len; i++)
        {
          NczRegistration *reg = g_ptr_array_index (regs, i);
          int priority;

          /* A module that is still registering is not usable yet. */
          if (reg->plugin != NULL && reg->plugin->loading)
            continue;
          priority = registration_priority (self, reg);
          if (best == NULL || priority > best_priority)
            {
              best = reg;
              best_priority = priority;
            }
        }

      /* Unloaded modules count as primary unless overridden: the first
       * found is tried first, and only one that may beat what is already
       * registered is loaded. */
      for (guint i = 0; infos != NULL && i < infos->len; i++)
        {
          NczPluginInfo *info = g_ptr_array_index (infos, i);
          int priority = NCZ_PRIORITY_PRIMARY;

          if (ncz_plugin_info_get_status (info) != NCZ_PLUGIN_STATUS_AVAILABLE || info->loading)
            continue;
          _ncz_registry_get_priority_override (self, info->name, &priority);
          if (candidate == NULL || priority > candidate_priority)
            {
              candidate = info;
              candidate_priority = priority;
            }
        }

      if (candidate != NULL && (best == NULL || candidate_priority > best_priority))
        {
          /* Failures are recorded in the plugin info and explained below if
           * nothing else provides the feature. */
          _ncz_registry_load_plugin_locked (self, candidate, NULL);
          continue;
        }

      if (best != NULL)
        return best;
      break;
    }

  _ncz_registry_set_not_available_error (self, kind, name, error);
  return NULL;
}

static GType
lookup_type (NczRegistry     *self,
             NczFeatureKind   kind,
             const char      *name,
             GError         **error)
{
  NczRegistration *reg;
  GType type = G_TYPE_INVALID;

  g_rec_mutex_lock (&self->lock);
  reg = _ncz_registry_lookup_locked (self, kind, name, error);
  if (reg != NULL)
    type = reg->type;
  g_rec_mutex_unlock (&self->lock);

  return type;
}

/**
 * ncz_registry_lookup_store:
 * @self: a registry
 * @name: a storage driver name (`file`, `zip`, `s3`)
 * @error: return location for a #GError
 *
 * Finds the storage driver @name, loading the module that provides it if
 * needed.
 *
 * Returns: the type implementing #NczStore, or %G_TYPE_INVALID with
 *   @error set (%NCZ_PLUGIN_ERROR_NOT_INSTALLED for a driver Ncz knows of
 *   whose module is missing, %NCZ_PLUGIN_ERROR_NOT_FOUND, or why the
 *   module could not be used)
 * Since: 1.0
 */
GType
ncz_registry_lookup_store (NczRegistry  *self,
                           const char   *name,
                           GError      **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), G_TYPE_INVALID);
  g_return_val_if_fail (name != NULL, G_TYPE_INVALID);
  g_return_val_if_fail (error == NULL || *error == NULL, G_TYPE_INVALID);

  return lookup_type (self, NCZ_FEATURE_STORE, name, error);
}

/**
 * ncz_registry_lookup_format:
 * @self: a registry
 * @name: a format name (`nczarr`, `hdf5`)
 * @error: return location for a #GError
 *
 * Finds the format backend @name, loading the module that provides it if
 * needed.
 *
 * Returns: the type implementing #NczFormat, or %G_TYPE_INVALID with
 *   @error set, as for ncz_registry_lookup_store()
 * Since: 1.0
 */
GType
ncz_registry_lookup_format (NczRegistry  *self,
                            const char   *name,
                            GError      **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), G_TYPE_INVALID);
  g_return_val_if_fail (name != NULL, G_TYPE_INVALID);
  g_return_val_if_fail (error == NULL || *error == NULL, G_TYPE_INVALID);

  return lookup_type (self, NCZ_FEATURE_FORMAT, name, error);
}

/* Loads every module whose manifest claims a codec provider, then
 * returns the providers, highest priority first (references). */
static GPtrArray *
collect_providers_locked (NczRegistry *self)
{
  static const char prefix[] = "codec-provider:";
  GPtrArray *result = g_ptr_array_new_with_free_func (_ncz_codec_provider_release);
  g_autoptr(GPtrArray) to_load = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->provided_by);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *infos = value;

      if (!g_str_has_prefix (key, prefix))
        continue;
      for (guint i = 0; i < infos->len; i++)
        if (!g_ptr_array_find (to_load, g_ptr_array_index (infos, i), NULL))
          g_ptr_array_add (to_load, g_ptr_array_index (infos, i));
    }
  /* Loading may change the tables iterated above, hence two steps;
   * failures stay recorded in the plugin infos. */
  for (guint i = 0; i < to_load->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (to_load, i);

      if (ncz_plugin_info_get_status (info) == NCZ_PLUGIN_STATUS_AVAILABLE && !info->loading)
        _ncz_registry_load_plugin_locked (self, info, NULL);
    }

  for (guint i = 0; i < self->providers->len; i++)
    {
      NczCodecProvider *provider = g_ptr_array_index (self->providers, i);
      int priority = provider->priority;
      guint pos = result->len;

      if (provider->plugin != NULL && provider->plugin->loading)
        continue;
      if (_ncz_registry_is_disabled (self, provider->name))
        continue;
      _ncz_registry_get_priority_override (self, provider->plugin != NULL ? provider->plugin->name
                                                            : provider->name, &priority);
      provider->priority = priority;
      /* Insertion keeps registration order among equal priorities. */
      while (pos > 0 &&
             ((NczCodecProvider *) g_ptr_array_index (result, pos - 1))->priority < priority)
        pos--;
      g_ptr_array_insert (result, pos, g_atomic_rc_box_acquire (provider));
    }
  return result;
}

/* Asks the codec providers for @name; called without the lock. */
static NczCodec *
lookup_provided_codec (NczRegistry     *self,
                       NczFeatureKind   kind,
                       const char      *name,
                       GError         **error)
{
  g_autofree char *key = _ncz_feature_key (kind, name);
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) why = NULL;
  NczCodec *codec = NULL;
  NczCodecProvider *source = NULL;
  guint filter_id = 0;

  g_rec_mutex_lock (&self->lock);
  codec = g_hash_table_lookup (self->provided_codecs, key);
  if (codec != NULL)
    {
      g_object_ref (codec);
      g_rec_mutex_unlock (&self->lock);
      return codec;
    }
  if (_ncz_registry_is_disabled (self, name))
    {
      g_rec_mutex_unlock (&self->lock);
      return NULL;
    }
  providers = collect_providers_locked (self);
  g_rec_mutex_unlock (&self->lock);

  if (kind == NCZ_FEATURE_HDF5_FILTER)
    filter_id = (guint) g_ascii_strtoull (name, NULL, 10);

  for (guint i = 0; codec == NULL && i < providers->len; i++)
    {
      NczCodecProvider *provider = g_ptr_array_index (providers, i);
      g_autoptr(GError) local_error = NULL;

      codec = provider->func (self, kind == NCZ_FEATURE_CODEC ? name : NULL, filter_id,
                              provider->user_data, &local_error);
      if (codec != NULL && !NCZ_IS_CODEC (codec))
        {
          g_critical ("codec provider '%s' returned a %s, not an NczCodec",
                      provider->name, G_OBJECT_TYPE_NAME (codec));
          g_clear_object (&codec);
        }
      if (codec != NULL)
        source = provider;
      if (codec == NULL && local_error != NULL && why == NULL)
        why = g_steal_pointer (&local_error);
    }

  if (codec != NULL)
    {
      NczCodec *cached;

      g_rec_mutex_lock (&self->lock);
      cached = g_hash_table_lookup (self->provided_codecs, key);
      if (cached != NULL)
        {
          g_object_unref (codec);
          codec = g_object_ref (cached);
        }
      else
        {
          g_hash_table_insert (self->provided_codecs, g_strdup (key), g_object_ref (codec));
          g_hash_table_insert (self->provided_codec_sources, g_strdup (key),
                               g_atomic_rc_box_acquire (source));
        }
      g_rec_mutex_unlock (&self->lock);
      return codec;
    }

  if (why != NULL)
    g_propagate_error (error, g_steal_pointer (&why));
  return NULL;
}

static NczCodec *
lookup_codec (NczRegistry     *self,
              NczFeatureKind   kind,
              const char      *name,
              GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) provider_error = NULL;
  NczCodec *codec = NULL;
  NczRegistration *reg;

  g_rec_mutex_lock (&self->lock);
  reg = _ncz_registry_lookup_locked (self, kind, name, &local_error);
  if (reg != NULL)
    {
      codec = g_hash_table_lookup (self->codecs, GSIZE_TO_POINTER (reg->type));
      if (codec == NULL)
        {
          codec = g_object_new (reg->type, NULL);
          g_hash_table_insert (self->codecs, GSIZE_TO_POINTER (reg->type), codec);
        }
      g_object_ref (codec);
    }
  g_rec_mutex_unlock (&self->lock);

  if (codec == NULL)
    codec = lookup_provided_codec (self, kind, name, &provider_error);

  if (codec == NULL)
    {
      /* A provider that knows the codec explains best why it cannot be
       * used; the registry's own reason (and error code) follows. */
      if (provider_error != NULL)
        {
          g_set_error (error, local_error->domain, local_error->code,
                       "codec not available: %s: %s; %s", name, provider_error->message,
                       local_error->message);
          return NULL;
        }
      g_prefix_error (&local_error, "codec not available: %s: ", name);
      g_propagate_error (error, g_steal_pointer (&local_error));
    }
  return codec;
}

/**
 * ncz_registry_lookup_codec:
 * @self: a registry
 * @codec_id: a Zarr (numcodecs) codec id, e.g. `zstd`
 * @error: return location for a #GError
 *
 * Finds the codec @codec_id, loading only the module whose manifest
 * provides it; if none does, asks the codec providers
 * (ncz_registry_add_codec_provider()). Codecs are stateless: the same
 * instance is shared.
 *
 * Returns: (transfer full): the codec, or %NULL with @error set in the
 *   %NCZ_PLUGIN_ERROR domain, its message starting with
 *   `codec not available: ID`
 * Since: 1.0
 */
NczCodec *
ncz_registry_lookup_codec (NczRegistry  *self,
                           const char   *codec_id,
                           GError      **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (codec_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return lookup_codec (self, NCZ_FEATURE_CODEC, codec_id, error);
}

/**
 * ncz_registry_lookup_codec_by_filter_id:
 * @self: a registry
 * @filter_id: an HDF5 filter id, e.g. 32015
 * @error: return location for a #GError
 *
 * Finds the codec for HDF5 filter @filter_id, loading only the module
 * whose manifest provides it; if none does, asks the codec providers
 * (ncz_registry_add_codec_provider()).
 *
 * Returns: (transfer full): the codec, or %NULL with @error set in the
 *   %NCZ_PLUGIN_ERROR domain, its message starting with
 *   `codec not available: ID`
 * Since: 1.0
 */
NczCodec *
ncz_registry_lookup_codec_by_filter_id (NczRegistry  *self,
                                        guint         filter_id,
                                        GError      **error)
{
  char name[16];

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_snprintf (name, sizeof name, "%u", filter_id);
  return lookup_codec (self, NCZ_FEATURE_HDF5_FILTER, name, error);
}

/**
 * ncz_registry_has_feature:
 * @self: a registry
 * @kind: the kind of feature
 * @name: its name; for %NCZ_FEATURE_HDF5_FILTER the filter id in decimal
 *
 * Whether something provides the feature: an implementation already
 * registered, or a plugin whose manifest claims it and that has not
 * failed. No module is loaded, and codec providers are not asked (a
 * codec they would give is not counted; %NCZ_FEATURE_CODEC_PROVIDER asks
 * for the providers themselves).
 *
 * Returns: %TRUE if the feature is provided and not disabled
 * Since: 1.0
 */
gboolean
ncz_registry_has_feature (NczRegistry    *self,
                          NczFeatureKind  kind,
                          const char     *name)
{
  g_autofree char *key = NULL;
  g_autofree char *normalized = NULL;
  gboolean found = FALSE;
  GPtrArray *regs, *infos;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (kind == NCZ_FEATURE_HDF5_FILTER)
    {
      guint64 id;

      if (!g_ascii_string_to_unsigned (name, 10, 1, NCZ_REGISTRY_HDF5_FILTER_MAX, &id, NULL))
        return FALSE;
      normalized = g_strdup_printf ("%" G_GUINT64_FORMAT, id);
      name = normalized;
    }
  key = _ncz_feature_key (kind, name);

  g_rec_mutex_lock (&self->lock);
  _ncz_registry_ensure_scanned (self);
  if (!_ncz_registry_is_disabled (self, name))
    {
      regs = g_hash_table_lookup (self->registrations, key);
      infos = g_hash_table_lookup (self->provided_by, key);
      found = regs != NULL && regs->len > 0;
      for (guint i = 0; !found && kind == NCZ_FEATURE_CODEC_PROVIDER &&
                        i < self->providers->len; i++)
        {
          NczCodecProvider *provider = g_ptr_array_index (self->providers, i);

          found = strcmp (provider->name, name) == 0 &&
                  (provider->plugin == NULL || !provider->plugin->loading);
        }
      for (guint i = 0; !found && infos != NULL && i < infos->len; i++)
        {
          NczPluginStatus status = ncz_plugin_info_get_status (g_ptr_array_index (infos, i));

          found = status == NCZ_PLUGIN_STATUS_AVAILABLE || status == NCZ_PLUGIN_STATUS_LOADED;
        }
    }
  g_rec_mutex_unlock (&self->lock);

  return found;
}
