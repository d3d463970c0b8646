/* ncz-filter-providers.c: which plugin module provides each filter of a
 * variable
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-variable-private.h"
#include "ncz-registry-private.h"

/* Label of a codec registered by the library itself, not by a module */
#define BUILT_IN "built in"

typedef struct {
  char *codec_id;
  guint filter_id;
} FilterRef;

static void
describe_one (NczRegistry *registry, const FilterRef *ref, GVariantBuilder *builder)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczCodec) codec = NULL;
  NczFeatureKind kind;
  g_autofree char *name = NULL;
  g_autofree char *key = NULL;
  const char *plugin_name = "";
  const char *plugin_path = "";
  const char *codec_id = ref->codec_id;
  guint filter_id = ref->filter_id;

  if (ref->codec_id != NULL)
    {
      kind = NCZ_FEATURE_CODEC;
      name = g_strdup (ref->codec_id);
      codec = ncz_registry_lookup_codec (registry, ref->codec_id, &error);
    }
  else
    {
      kind = NCZ_FEATURE_HDF5_FILTER;
      name = g_strdup_printf ("%u", ref->filter_id);
      codec = ncz_registry_lookup_codec_by_filter_id (registry, ref->filter_id, &error);
    }
  if (codec != NULL)
    {
      NczRegistration *reg;
      NczPluginInfo *plugin = NULL;
      const char *provider_name = NULL;

      if (codec_id == NULL)
        codec_id = ncz_codec_get_codec_id (codec);
      if (filter_id == 0)
        filter_id = ncz_codec_get_filter_id (codec);

      key = _ncz_feature_key (kind, name);
      g_rec_mutex_lock (&registry->lock);
      reg = _ncz_registry_lookup_locked (registry, kind, name, NULL);
      if (reg != NULL)
        plugin = reg->plugin;
      else
        {
          NczCodecProvider *source = g_hash_table_lookup (registry->provided_codec_sources, key);
          if (source != NULL)
            {
              plugin = source->plugin;
              provider_name = source->name;
            }
        }
      if (plugin != NULL)
        {
          plugin_name = ncz_plugin_info_get_name (plugin);
          plugin_path = ncz_plugin_info_get_filename (plugin);
          if (plugin_path == NULL)
            plugin_path = BUILT_IN;
        }
      else
        {
          plugin_name = provider_name ? provider_name : BUILT_IN;
          plugin_path = BUILT_IN;
        }
      g_variant_builder_add (builder, "(sussbs)", codec_id ? codec_id : "", filter_id,
                             plugin_name, plugin_path, TRUE, "");
      g_rec_mutex_unlock (&registry->lock);
      return;
    }
  g_variant_builder_add (builder, "(sussbs)", codec_id ? codec_id : "", filter_id, "", "",
                         FALSE, error ? error->message : "");
}

/**
 * ncz_variable_get_filter_providers:
 * @self: a variable
 *
 * Tells, for each filter of the variable in chain order, which plugin
 * module implements it, as a #GVariant of type "a(sussbs)": for each
 * filter the codec id ("" if only the HDF5 id is known and no codec
 * provides it), the HDF5 filter id (0 if none), the name of the plugin
 * providing it (as [method@Ncz.PluginInfo.get_name] gives it, the name
 * of the codec provider, or "built in"), the module's file ("built in"
 * for a codec that is part of the library), whether the codec is
 * available, and when it is not the reason (the registry's message,
 * naming the package to install where known), else "". The registry
 * loads the modules it needs to tell.
 *
 * Returns: (transfer full): the providers, a floating-free #GVariant
 * Since: 1.0
 */
GVariant *
ncz_variable_get_filter_providers (NczVariable *self)
{
  NczRegistry *registry;
  g_autoptr(GArray) refs = NULL;
  GVariantBuilder builder;

  g_return_val_if_fail (NCZ_IS_VARIABLE (self), NULL);

  refs = g_array_new (FALSE, TRUE, sizeof (FilterRef));
  g_mutex_lock (&self->lock);
  for (guint i = 0; self->filters && i < self->filters->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (self->filters, i);
      FilterRef ref = { g_strdup (f->codec_id), f->filter_id };
      if (ref.codec_id == NULL && ref.filter_id == 0)
        continue;
      g_array_append_val (refs, ref);
    }
  g_mutex_unlock (&self->lock);

  registry = ncz_registry_get_default ();
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sussbs)"));
  for (guint i = 0; i < refs->len; i++)
    {
      FilterRef *ref = &g_array_index (refs, FilterRef, i);
      describe_one (registry, ref, &builder);
      g_free (ref->codec_id);
    }
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}
