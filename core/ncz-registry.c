/* ncz-registry.c: finds storage drivers, format backends and codecs
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-registry-private.h"

/**
 * NczRegistry:
 *
 * Finds the storage drivers, format backends and codecs Ncz uses.
 *
 * Plugin modules live in the directories of `NCZ_PLUGIN_PATH`
 * (colon-separated), then in `NCZ_PLUGIN_SYSTEM_PATH` if it is set (even
 * to the empty string, which means no system directory), else in
 * `$libdir/ncz-1.0/plugins`. Directories are not searched recursively.
 * Beside each module `libncz-KIND-NAME.so` lies a `.plugin` manifest, a
 * key file written at build time by `ncz-inspect-1.0 --manifest`:
 *
 * |[
 * [Plugin]
 * Module=libncz-codec-zstd.so
 * Name=zstd
 * Abi=2
 * Version=1.0.0
 * License=BSD-3-Clause
 * Description=Zstandard codec
 * Provides=codec:zstd;hdf5-filter:32015
 * ]|
 *
 * `Abi` is the module SDK version (%NCZ_PLUGIN_ABI). A format module's
 * manifest also holds one `[Format NAME]` group per format, with what the
 * format claims (#NczFormatProbe: `Modes`, `Signature`,
 * `SignatureOffsets`, `Markers`, `NeedsStore`), from which
 * ncz_registry_choose_format() picks the format of a URL without loading
 * any module.
 *
 * The registry reads the manifests the first time it is asked anything,
 * and opens a module only when one of its features is first used, so
 * looking up a codec by id never loads an unrelated library. When the
 * same module file name appears in several directories, the first one
 * found wins. A loaded module is checked against its manifest (every
 * feature it claims must be registered) and stays resident; a module that
 * fails is remembered with its error and not tried again.
 *
 * A module exports one function, `ncz_plugin_NAME_describe` (with `-` in
 * the plugin name written `_`), returning an #NczPluginDesc whose
 * register_func calls ncz_registry_add_store(),
 * ncz_registry_add_format_with_probe() or ncz_registry_add_codec(). Programs can call those functions too, to
 * provide built-in implementations without any module.
 *
 * Codecs no module registers can come from codec providers
 * (ncz_registry_add_codec_provider()): when looking a codec up finds no
 * registration and no manifest claiming it, the registry loads every
 * module whose manifest provides `codec-provider:NAME` and asks the
 * providers, highest priority first. The codec-registry module is one:
 * it answers from the foreign HDF5 filter and Codec libraries of
 * `HDF5_PLUGIN_PATH`.
 *
 * When several implementations provide a feature, the one registered with
 * the highest #NczPriority wins. A module not loaded yet is assumed to be
 * %NCZ_PRIORITY_PRIMARY, so of several unloaded modules the first found is
 * tried first.
 *
 * Environment (ignored in setuid programs):
 *
 * - `NCZ_PLUGIN_DISABLE=s3,blosc`: plugins or features (the part after
 *   the colon in `store:s3`) that must not be used; looking them up gives
 *   %NCZ_PLUGIN_ERROR_DISABLED.
 * - `NCZ_PLUGIN_PRIORITY=blosc:primary,zstd-fast:none`: overrides the
 *   priority of a plugin (by plugin name, or by type name for an
 *   implementation registered without a module); `help` lists the choices
 *   on standard error.
 *
 * Since: 1.0
 */

enum {
  PROP_0,
  PROP_SEARCH_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (NczRegistry, ncz_registry, G_TYPE_OBJECT)

static NczRegistration *
registration_new (NczFeatureKind  kind,
                  const char     *name,
                  GType           type,
                  int             priority,
                  NczPluginInfo  *plugin)
{
  NczRegistration *reg = g_new0 (NczRegistration, 1);

  reg->kind = kind;
  reg->name = g_strdup (name);
  reg->type = type;
  reg->priority = priority;
  reg->plugin = plugin;
  return reg;
}

static void
registration_free (gpointer data)
{
  NczRegistration *reg = data;

  g_clear_pointer (&reg->claim, _ncz_format_claim_unref);
  g_free (reg->name);
  g_free (reg);
}

/* Object lifecycle */

static void
ncz_registry_finalize (GObject *object)
{
  NczRegistry *self = NCZ_REGISTRY (object);

  g_strfreev (self->search_path);
  g_strfreev (self->search_path_sources);
  g_hash_table_unref (self->disabled);
  g_hash_table_unref (self->priorities);
  g_hash_table_unref (self->codecs);
  g_hash_table_unref (self->provided_codecs);
  g_hash_table_unref (self->provided_codec_sources);
  g_ptr_array_unref (self->providers);
  g_hash_table_unref (self->registrations);
  g_hash_table_unref (self->provided_by);
  g_ptr_array_unref (self->extra_plugins);
  g_ptr_array_unref (self->manifest_claims);
  g_ptr_array_unref (self->plugins);
  g_rec_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ncz_registry_parent_class)->finalize (object);
}

static void
ncz_registry_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  NczRegistry *self = NCZ_REGISTRY (object);

  switch (prop_id)
    {
    case PROP_SEARCH_PATH:
      {
        const char * const *path = g_value_get_boxed (value);
        GPtrArray *dirs = g_ptr_array_new ();
        GPtrArray *sources = g_ptr_array_new ();

        for (gsize i = 0; path != NULL && path[i] != NULL; i++)
          if (path[i][0] != '\0')
            _ncz_strv_dedup_into (dirs, sources, path[i], "explicit");
        g_ptr_array_add (dirs, NULL);
        g_ptr_array_add (sources, NULL);
        g_strfreev (self->search_path);
        g_strfreev (self->search_path_sources);
        self->search_path = (char **) g_ptr_array_free (dirs, FALSE);
        self->search_path_sources = (char **) g_ptr_array_free (sources, FALSE);
      }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_registry_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  NczRegistry *self = NCZ_REGISTRY (object);

  switch (prop_id)
    {
    case PROP_SEARCH_PATH:
      g_value_set_boxed (value, self->search_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_registry_constructed (GObject *object)
{
  NczRegistry *self = NCZ_REGISTRY (object);

  G_OBJECT_CLASS (ncz_registry_parent_class)->constructed (object);

  if (self->search_path == NULL)
    {
      self->search_path = g_new0 (char *, 1);
      self->search_path_sources = g_new0 (char *, 1);
    }
  _ncz_registry_parse_environment (self);
}

static void
ncz_registry_class_init (NczRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_registry_finalize;
  object_class->constructed = ncz_registry_constructed;
  object_class->set_property = ncz_registry_set_property;
  object_class->get_property = ncz_registry_get_property;

  /**
   * NczRegistry:search-path:
   *
   * The directories searched for plugin modules, in order.
   *
   * Since: 1.0
   */
  properties[PROP_SEARCH_PATH] =
    g_param_spec_boxed ("search-path", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                        G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ncz_registry_init (NczRegistry *self)
{
  g_rec_mutex_init (&self->lock);
  self->disabled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->priorities = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->plugins = g_ptr_array_new_with_free_func (g_object_unref);
  self->extra_plugins = g_ptr_array_new_with_free_func (g_object_unref);
  self->manifest_claims = g_ptr_array_new_with_free_func (_ncz_format_claim_unref);
  self->provided_by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
  self->registrations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_ptr_array_unref);
  self->codecs = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                        g_object_unref);
  self->providers = g_ptr_array_new_with_free_func (_ncz_codec_provider_release);
  self->provided_codecs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                 g_object_unref);
  self->provided_codec_sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        _ncz_codec_provider_release);
}

/**
 * ncz_registry_new:
 * @search_path: (nullable) (array zero-terminated=1) (element-type filename):
 *   the directories to search for plugin modules, in order; %NULL for none
 *
 * Creates a registry of its own, with an explicit search path: the
 * `NCZ_PLUGIN_PATH` and `NCZ_PLUGIN_SYSTEM_PATH` variables are not used
 * (`NCZ_PLUGIN_DISABLE` and `NCZ_PLUGIN_PRIORITY` are). Most programs use
 * ncz_registry_get_default() instead.
 *
 * Returns: (transfer full): a new registry
 * Since: 1.0
 */
NczRegistry *
ncz_registry_new (const char * const *search_path)
{
  return g_object_new (NCZ_TYPE_REGISTRY, "search-path", search_path, NULL);
}

/**
 * ncz_registry_get_default:
 *
 * The registry of the process, created the first time it is asked for,
 * from `NCZ_PLUGIN_PATH`, then `NCZ_PLUGIN_SYSTEM_PATH` or the built-in
 * plugin directory. Safe to call from any thread.
 *
 * Returns: (transfer none): the default registry
 * Since: 1.0
 */
NczRegistry *
ncz_registry_get_default (void)
{
  static NczRegistry *default_registry = NULL;

  if (g_once_init_enter (&default_registry))
    g_once_init_leave (&default_registry, _ncz_registry_new_default ());

  return default_registry;
}

/* Registrations (under the lock) */

static void
add_registration (NczRegistry          *self,
                  NczFeatureKind        kind,
                  const char           *name,
                  GType                 type,
                  int                   priority,
                  const NczFormatProbe *probe)
{
  g_autofree char *key = _ncz_feature_key (kind, name);
  NczPluginInfo *plugin;
  GPtrArray *regs;

  g_rec_mutex_lock (&self->lock);

  regs = g_hash_table_lookup (self->registrations, key);
  if (regs == NULL)
    {
      regs = g_ptr_array_new_with_free_func (registration_free);
      g_hash_table_insert (self->registrations, g_strdup (key), regs);
    }

  plugin = self->loading;
  for (guint i = 0; i < regs->len; i++)
    {
      NczRegistration *reg = g_ptr_array_index (regs, i);

      if (reg->type == type && reg->plugin == plugin)
        {
          reg->priority = priority;
          if (probe != NULL)
            {
              g_clear_pointer (&reg->claim, _ncz_format_claim_unref);
              reg->claim = _ncz_format_claim_new (name, probe);
            }
          goto out;
        }
    }
  g_ptr_array_add (regs, registration_new (kind, name, type, priority, plugin));
  if (probe != NULL)
    ((NczRegistration *) g_ptr_array_index (regs, regs->len - 1))->claim =
      _ncz_format_claim_new (name, probe);

out:
  if (plugin != NULL &&
      !g_ptr_array_find_with_equal_func (plugin->registered, key, g_str_equal, NULL))
    g_ptr_array_add (plugin->registered, g_strdup (key));

  g_rec_mutex_unlock (&self->lock);
}

/**
 * ncz_registry_add_store:
 * @self: a registry
 * @name: the storage driver name, as in a URL's mode (`file`, `zip`, `s3`)
 * @type: a type implementing #NczStore, with the construct properties
 *   "url" (#NczUrl) and "flags" (#NczStoreFlags); it may implement
 *   #GInitable
 * @priority: an #NczPriority (or a value in between)
 *
 * Registers a storage driver. Called by a plugin's register_func, or by a
 * program to provide one built in.
 *
 * Since: 1.0
 */
void
ncz_registry_add_store (NczRegistry *self,
                        const char  *name,
                        GType        type,
                        int          priority)
{
  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (_ncz_is_valid_feature_name (name));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_STORE));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));

  add_registration (self, NCZ_FEATURE_STORE, name, type, priority, NULL);
}

/**
 * ncz_registry_add_format:
 * @self: a registry
 * @name: the format name (`nczarr`, `hdf5`)
 * @type: a type implementing #NczFormat, with the construct properties
 *   "url" (#NczUrl) and "store" (#NczStore); it may implement #GInitable
 * @priority: an #NczPriority (or a value in between)
 *
 * Registers a format backend. Called by a plugin's register_func, or by a
 * program to provide one built in.
 *
 * Since: 1.0
 */
void
ncz_registry_add_format (NczRegistry *self,
                         const char  *name,
                         GType        type,
                         int          priority)
{
  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (_ncz_is_valid_feature_name (name));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_FORMAT));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));

  add_registration (self, NCZ_FEATURE_FORMAT, name, type, priority, NULL);
}

/**
 * ncz_registry_add_format_with_probe: (skip)
 * @self: a registry
 * @name: the format name (`nczarr`, `hdf5`)
 * @type: a type implementing #NczFormat, as for ncz_registry_add_format()
 * @priority: an #NczPriority (or a value in between)
 * @probe: what the format claims: URL modes, file signatures, store
 *   markers, whether it needs a store; copied
 *
 * Registers a format backend with its probe. `ncz-inspect-1.0 --manifest`
 * writes the probe into the module's manifest, from which the registry
 * chooses the format of a URL without loading the module (see
 * ncz_registry_choose_format()). A format registered without a probe is
 * chosen only by name (`#format=NAME`) or by the probe of the known
 * formats table.
 *
 * Since: 1.0
 */
void
ncz_registry_add_format_with_probe (NczRegistry          *self,
                                    const char           *name,
                                    GType                 type,
                                    int                   priority,
                                    const NczFormatProbe *probe)
{
  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (_ncz_is_valid_feature_name (name));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_FORMAT));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));
  g_return_if_fail (probe != NULL);
  g_return_if_fail (probe->signature_length <= 64);
  g_return_if_fail (probe->signature_length == 0 || probe->n_signature_offsets > 0);

  add_registration (self, NCZ_FEATURE_FORMAT, name, type, priority, probe);
}

/**
 * ncz_registry_add_codec:
 * @self: a registry
 * @type: a type implementing #NczCodec; instances are stateless and
 *   shared
 * @codec_id: (nullable): the Zarr (numcodecs) codec id, e.g. `zstd`
 * @filter_id: the HDF5 filter id, e.g. 32015, or 0 if it has none
 * @priority: an #NczPriority (or a value in between)
 *
 * Registers a codec under its Zarr id and its HDF5 filter id. Called by a
 * plugin's register_func, or by a program to provide one built in.
 *
 * Since: 1.0
 */
void
ncz_registry_add_codec (NczRegistry *self,
                        GType        type,
                        const char  *codec_id,
                        guint        filter_id,
                        int          priority)
{
  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_CODEC));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));
  g_return_if_fail (codec_id == NULL || _ncz_is_valid_feature_name (codec_id));
  g_return_if_fail (codec_id != NULL || filter_id != 0);
  g_return_if_fail (filter_id <= NCZ_REGISTRY_HDF5_FILTER_MAX);

  g_rec_mutex_lock (&self->lock);
  if (codec_id != NULL)
    add_registration (self, NCZ_FEATURE_CODEC, codec_id, type, priority, NULL);
  if (filter_id != 0)
    {
      char name[16];

      g_snprintf (name, sizeof name, "%u", filter_id);
      add_registration (self, NCZ_FEATURE_HDF5_FILTER, name, type, priority, NULL);
    }
  g_rec_mutex_unlock (&self->lock);
}

/**
 * ncz_registry_add_codec_provider:
 * @self: a registry
 * @name: the provider's name (`foreign`); a plugin's manifest claims it
 *   as `codec-provider:NAME`
 * @func: (scope notified) (closure user_data) (destroy destroy): asked for
 *   codecs no module registers
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the provider is replaced or
 *   the registry finalized
 * @priority: an #NczPriority (or a value in between): providers are asked
 *   highest first
 *
 * Registers a codec provider: ncz_registry_lookup_codec() and
 * ncz_registry_lookup_codec_by_filter_id() ask it, after the codecs that
 * modules register, for codecs nothing else provides. The codec it
 * returns is kept and given out again for the same id. A provider of the
 * same name registered by the same plugin (or without one) is replaced.
 * Called by a plugin's register_func, or by a program.
 *
 * Since: 1.0
 */
void
ncz_registry_add_codec_provider (NczRegistry          *self,
                                 const char           *name,
                                 NczCodecProviderFunc  func,
                                 gpointer              user_data,
                                 GDestroyNotify        destroy,
                                 int                   priority)
{
  g_autofree char *key = NULL;
  NczCodecProvider *provider;
  NczPluginInfo *plugin;

  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (_ncz_is_valid_feature_name (name));
  g_return_if_fail (func != NULL);

  provider = g_atomic_rc_box_new0 (NczCodecProvider);
  provider->name = g_strdup (name);
  provider->func = func;
  provider->user_data = user_data;
  provider->destroy = destroy;
  provider->priority = priority;

  key = _ncz_feature_key (NCZ_FEATURE_CODEC_PROVIDER, name);

  g_rec_mutex_lock (&self->lock);
  plugin = self->loading;
  provider->plugin = plugin;
  for (guint i = 0; i < self->providers->len; i++)
    {
      NczCodecProvider *other = g_ptr_array_index (self->providers, i);

      if (other->plugin == plugin && strcmp (other->name, name) == 0)
        {
          g_ptr_array_remove_index (self->providers, i);
          break;
        }
    }
  g_ptr_array_add (self->providers, provider);
  if (plugin != NULL &&
      !g_ptr_array_find_with_equal_func (plugin->registered, key, g_str_equal, NULL))
    g_ptr_array_add (plugin->registered, g_strdup (key));
  g_rec_mutex_unlock (&self->lock);
}

/* Creating instances */

static gboolean
convert_property_value (const GValue *src,
                        GValue       *dest)
{
  GType dest_type = G_VALUE_TYPE (dest);

  if (g_value_type_compatible (G_VALUE_TYPE (src), dest_type))
    {
      g_value_copy (src, dest);
      return TRUE;
    }
  if (G_VALUE_HOLDS_UINT (src) && G_TYPE_IS_FLAGS (dest_type))
    {
      g_value_set_flags (dest, g_value_get_uint (src));
      return TRUE;
    }
  if (g_value_type_transformable (G_VALUE_TYPE (src), dest_type))
    return g_value_transform (src, dest);
  return FALSE;
}

/* Creates an instance with those of the given properties its class has,
 * then initializes it if it is a GInitable. */
static GObject *
construct_object (GType          type,
                  guint          n_properties,
                  const char    *names[],
                  const GValue   values[],
                  GCancellable  *cancellable,
                  GError       **error)
{
  GObjectClass *klass = g_type_class_ref (type);
  const char *use_names[4];
  GValue use_values[4] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };
  guint n_use = 0;
  GObject *object;

  g_assert (n_properties <= G_N_ELEMENTS (use_names));

  for (guint i = 0; i < n_properties; i++)
    {
      GParamSpec *pspec = g_object_class_find_property (klass, names[i]);

      if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE))
        continue;
      g_value_init (&use_values[n_use], G_PARAM_SPEC_VALUE_TYPE (pspec));
      if (!convert_property_value (&values[i], &use_values[n_use]))
        {
          g_value_unset (&use_values[n_use]);
          continue;
        }
      use_names[n_use++] = names[i];
    }

  object = g_object_new_with_properties (type, n_use, use_names, use_values);

  for (guint i = 0; i < n_use; i++)
    g_value_unset (&use_values[i]);
  g_type_class_unref (klass);

  if (G_IS_INITABLE (object) && !g_initable_init (G_INITABLE (object), cancellable, error))
    {
      g_object_unref (object);
      return NULL;
    }
  return object;
}

/**
 * ncz_registry_open_store:
 * @self: a registry
 * @url: a dataset URL
 * @flags: #NczStoreFlags
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Opens the store @url names with the storage driver of its mode
 * (ncz_url_get_storage()), loading the driver's module if needed.
 *
 * Returns: (transfer full): the store, or %NULL with @error set
 * Since: 1.0
 */
NczStore *
ncz_registry_open_store (NczRegistry   *self,
                         NczUrl        *url,
                         guint          flags,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *names[] = { "url", "flags" };
  GValue values[2] = { G_VALUE_INIT, G_VALUE_INIT };
  const char *storage;
  GObject *object;
  GType type;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  storage = ncz_url_get_storage (url);
  if (storage == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "%s: the URL names no storage driver", ncz_url_get_original (url));
      return NULL;
    }

  type = ncz_registry_lookup_store (self, storage, &local_error);
  if (type == G_TYPE_INVALID)
    {
      g_prefix_error (&local_error, "%s: ", ncz_url_get_original (url));
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  g_value_init (&values[0], G_TYPE_FROM_INSTANCE (url));
  g_value_set_object (&values[0], url);
  g_value_init (&values[1], G_TYPE_UINT);
  g_value_set_uint (&values[1], flags);

  object = construct_object (type, 2, names, values, cancellable, error);

  g_value_unset (&values[0]);
  g_value_unset (&values[1]);

  return (NczStore *) object;
}

/**
 * ncz_registry_new_format:
 * @self: a registry
 * @url: a dataset URL
 * @store: (nullable): the dataset's store, %NULL for formats that do their
 *   own I/O
 * @error: return location for a #GError
 *
 * Creates the format backend @url names (ncz_registry_format_from_url()),
 * or `nczarr` when it names none: the default for creating datasets.
 * Opening an existing dataset chooses the format with
 * ncz_registry_choose_format() instead.
 *
 * Returns: (transfer full): a new format backend instance, or %NULL with
 *   @error set
 * Since: 1.0
 */
NczFormat *
ncz_registry_new_format (NczRegistry  *self,
                         NczUrl       *url,
                         NczStore     *store,
                         GError      **error)
{
  g_autofree char *format = NULL;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  g_return_val_if_fail (store == NULL || NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  format = ncz_registry_format_from_url (self, url);
  return ncz_registry_create_format (self, format != NULL ? format : "nczarr",
                                     url, store, error);
}

/**
 * ncz_registry_create_format:
 * @self: a registry
 * @name: the format name (`nczarr`, `hdf5`)
 * @url: a dataset URL
 * @store: (nullable): the dataset's store, %NULL for formats that do their
 *   own I/O (ncz_registry_format_needs_store())
 * @error: return location for a #GError
 *
 * Creates an instance of the format backend @name, loading its module if
 * needed.
 *
 * Returns: (transfer full): a new format backend instance, or %NULL with
 *   @error set (%NCZ_PLUGIN_ERROR_NOT_INSTALLED with the package to
 *   install for a format Ncz knows of whose module is missing)
 * Since: 1.0
 */
NczFormat *
ncz_registry_create_format (NczRegistry  *self,
                            const char   *name,
                            NczUrl       *url,
                            NczStore     *store,
                            GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *names[] = { "url", "store" };
  GValue values[2] = { G_VALUE_INIT, G_VALUE_INIT };
  guint n_values = 1;
  GObject *object;
  GType type;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  g_return_val_if_fail (store == NULL || NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  type = ncz_registry_lookup_format (self, name, &local_error);
  if (type == G_TYPE_INVALID)
    {
      g_prefix_error (&local_error, "%s: ", ncz_url_get_original (url));
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  g_value_init (&values[0], G_TYPE_FROM_INSTANCE (url));
  g_value_set_object (&values[0], url);
  if (store != NULL)
    {
      g_value_init (&values[1], G_TYPE_FROM_INSTANCE (store));
      g_value_set_object (&values[1], store);
      n_values = 2;
    }

  object = construct_object (type, n_values, names, values, NULL, error);

  for (guint i = 0; i < n_values; i++)
    g_value_unset (&values[i]);

  return (NczFormat *) object;
}

/**
 * ncz_registry_get_search_path:
 * @self: a registry
 *
 * Lists the directories the registry looked in for plugin manifests: those
 * of `NCZ_PLUGIN_PATH`, then those of `NCZ_PLUGIN_SYSTEM_PATH` or else the
 * installed plugin directory. Free the result with g_strfreev().
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the directories searched for plugin modules, in order
 * Since: 1.0
 */
char **
ncz_registry_get_search_path (NczRegistry *self)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  return g_strdupv (self->search_path);
}

/**
 * ncz_registry_list_plugins:
 * @self: a registry
 *
 * Every plugin manifest found in the search path, in search order,
 * including those skipped (unreadable manifest, wrong ABI, shadowed by an
 * earlier module of the same file name), disabled, or that failed to
 * load; ncz_plugin_info_get_error() says why. Modules are not loaded.
 *
 * Returns: (transfer container) (element-type NczPluginInfo): the plugins,
 *   owned by @self
 * Since: 1.0
 */
GPtrArray *
ncz_registry_list_plugins (NczRegistry *self)
{
  GPtrArray *result;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);

  g_rec_mutex_lock (&self->lock);
  _ncz_registry_ensure_scanned (self);
  result = g_ptr_array_new_full (self->plugins->len, NULL);
  for (guint i = 0; i < self->plugins->len; i++)
    g_ptr_array_add (result, g_ptr_array_index (self->plugins, i));
  g_rec_mutex_unlock (&self->lock);

  return result;
}

/**
 * ncz_registry_find_plugin:
 * @self: a registry
 * @name: a plugin name (`zstd`), or the name of a feature a plugin
 *   provides (`zlib`, `32015`, `s3`)
 * @error: return location for a #GError
 *
 * Finds a plugin among the manifests of the search path, by its name
 * first, then by the name of a feature it provides, as
 * `ncz-inspect-1.0 NAME` does. The module is not loaded, and the plugin
 * found may be one that cannot be used: see ncz_plugin_info_get_status().
 *
 * When no manifest matches, a plugin or feature Ncz knows of gives
 * %NCZ_PLUGIN_ERROR_NOT_INSTALLED with the message opening a dataset
 * that needs it gives ("storage driver 'zip' is known but
 * libncz-store-zip.so is not installed (apt install ncz-plugin-zip)");
 * any other name gives %NCZ_PLUGIN_ERROR_NOT_FOUND naming the search path.
 *
 * Returns: (transfer none): the plugin, owned by @self, or %NULL with
 *   @error set
 * Since: 1.0
 */
NczPluginInfo *
ncz_registry_find_plugin (NczRegistry  *self,
                          const char   *name,
                          GError      **error)
{
  NczPluginInfo *found = NULL;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  g_rec_mutex_lock (&self->lock);
  _ncz_registry_ensure_scanned (self);
  for (guint i = 0; found == NULL && i < self->plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (self->plugins, i);

      if (strcmp (ncz_plugin_info_get_name (info), name) == 0)
        found = info;
    }
  for (guint i = 0; found == NULL && i < self->plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (self->plugins, i);
      const char * const *provides = ncz_plugin_info_get_provides (info);

      for (gsize j = 0; found == NULL && provides[j] != NULL; j++)
        {
          const char *colon = strchr (provides[j], ':');

          if (colon != NULL && strcmp (colon + 1, name) == 0)
            found = info;
        }
    }
  if (found == NULL)
    _ncz_registry_set_plugin_not_found_error (self, name, error);
  g_rec_mutex_unlock (&self->lock);

  return found;
}
