/* ncz-registry.c: finds storage drivers, format backends and codecs
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include <glib/gstdio.h>

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
 * Abi=1
 * Version=1.0.0
 * License=BSD-3-Clause
 * Description=Zstandard codec
 * Provides=codec:zstd;hdf5-filter:32015
 * ]|
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
 * register_func calls ncz_registry_add_store(), ncz_registry_add_format()
 * or ncz_registry_add_codec(). Programs can call those functions too, to
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

struct _NczRegistry
{
  GObject parent_instance;

  GRecMutex lock;

  char **search_path;
  char **search_path_sources;

  GHashTable *disabled;       /* name → itself */
  GHashTable *priorities;     /* name → GINT_TO_POINTER (priority) */
  gboolean priority_help;

  gboolean scanned;
  GPtrArray *plugins;         /* NczPluginInfo, in search order */
  GPtrArray *extra_plugins;   /* NczPluginInfo from ncz_registry_load_module() */
  GHashTable *provided_by;    /* feature key → GPtrArray of NczPluginInfo (unowned) */
  GHashTable *registrations;  /* feature key → GPtrArray of Registration */
  GHashTable *codecs;         /* GType → NczCodec */
  GPtrArray *providers;       /* CodecProvider, in registration order */
  GHashTable *provided_codecs;/* feature key → NczCodec from a provider */
  NczPluginInfo *loading;     /* whose register_func is running */
};

/* Reference-counted (g_atomic_rc_box) so a lookup can call it without the
 * lock while it is being replaced. */
typedef struct {
  char *name;
  NczCodecProviderFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
  int priority;
  NczPluginInfo *plugin;      /* NULL when registered without a module */
} CodecProvider;

typedef struct {
  NczFeatureKind kind;
  char *name;
  GType type;
  int priority;
  NczPluginInfo *plugin;      /* NULL when registered without a module */
} Registration;

enum {
  PROP_0,
  PROP_SEARCH_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (NczRegistry, ncz_registry, G_TYPE_OBJECT)

#define MANIFEST_GROUP "Plugin"
#define MANIFEST_SUFFIX ".plugin"
#define MANIFEST_MAX_SIZE (64 * 1024)
#define NAME_MAX_LENGTH 128
#define HDF5_FILTER_MAX 65535

/* Packagers may override these with -D. */
#ifndef NCZ_PLUGIN_INSTALL_COMMAND
#define NCZ_PLUGIN_INSTALL_COMMAND "apt install"
#endif
#ifndef NCZ_PLUGIN_PACKAGE_PREFIX
#define NCZ_PLUGIN_PACKAGE_PREFIX "ncz-plugin-"
#endif

/* Features Ncz knows of, to say which module and package to install when
 * nothing provides them. */
typedef struct {
  NczFeatureKind kind;
  const char *name;
  const char *module;         /* libncz-MODULE.so */
  const char *package;        /* NCZ_PLUGIN_PACKAGE_PREFIX PACKAGE */
} KnownFeature;

static const KnownFeature known_features[] = {
  { NCZ_FEATURE_STORE, "file", "store-file", "file" },
  { NCZ_FEATURE_STORE, "zip", "store-zip", "zip" },
  { NCZ_FEATURE_STORE, "s3", "store-s3", "s3" },
  { NCZ_FEATURE_FORMAT, "nczarr", "backend-nczarr", "nczarr" },
  { NCZ_FEATURE_FORMAT, "hdf5", "backend-hdf5", "hdf5" },
  { NCZ_FEATURE_CODEC, "zlib", "codec-deflate", "deflate" },
  { NCZ_FEATURE_CODEC, "shuffle", "codec-shuffle", "shuffle" },
  { NCZ_FEATURE_CODEC, "fletcher32", "codec-fletcher32", "fletcher32" },
  { NCZ_FEATURE_CODEC, "szip", "codec-szip", "szip" },
  { NCZ_FEATURE_CODEC, "bz2", "codec-bzip2", "bzip2" },
  { NCZ_FEATURE_CODEC, "zstd", "codec-zstd", "zstd" },
  { NCZ_FEATURE_CODEC, "blosc", "codec-blosc", "blosc" },
  { NCZ_FEATURE_CODEC, "lz4", "codec-lz4", "lz4" },
  { NCZ_FEATURE_HDF5_FILTER, "1", "codec-deflate", "deflate" },
  { NCZ_FEATURE_HDF5_FILTER, "2", "codec-shuffle", "shuffle" },
  { NCZ_FEATURE_HDF5_FILTER, "3", "codec-fletcher32", "fletcher32" },
  { NCZ_FEATURE_HDF5_FILTER, "4", "codec-szip", "szip" },
  { NCZ_FEATURE_HDF5_FILTER, "307", "codec-bzip2", "bzip2" },
  { NCZ_FEATURE_HDF5_FILTER, "32015", "codec-zstd", "zstd" },
  { NCZ_FEATURE_HDF5_FILTER, "32001", "codec-blosc", "blosc" },
  { NCZ_FEATURE_HDF5_FILTER, "32004", "codec-lz4", "lz4" },
};

static const struct {
  NczFeatureKind kind;
  const char *string;
  const char *label;
} feature_kinds[] = {
  { NCZ_FEATURE_STORE, "store", "storage driver" },
  { NCZ_FEATURE_FORMAT, "format", "format backend" },
  { NCZ_FEATURE_CODEC, "codec", "codec" },
  { NCZ_FEATURE_HDF5_FILTER, "hdf5-filter", "HDF5 filter" },
  { NCZ_FEATURE_CODEC_PROVIDER, "codec-provider", "codec provider" },
};

static const struct {
  const char *name;
  int priority;
} priority_names[] = {
  { "primary", NCZ_PRIORITY_PRIMARY },
  { "fallback", NCZ_PRIORITY_FALLBACK },
  { "none", NCZ_PRIORITY_NONE },
};

/* Helpers without state */

const char *
ncz_feature_kind_to_string (NczFeatureKind kind)
{
  for (gsize i = 0; i < G_N_ELEMENTS (feature_kinds); i++)
    if (feature_kinds[i].kind == kind)
      return feature_kinds[i].string;
  return "unknown";
}

gboolean
ncz_feature_kind_from_string (const char     *str,
                              NczFeatureKind *kind)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (gsize i = 0; i < G_N_ELEMENTS (feature_kinds); i++)
    if (strcmp (feature_kinds[i].string, str) == 0)
      {
        if (kind != NULL)
          *kind = feature_kinds[i].kind;
        return TRUE;
      }
  return FALSE;
}

static const char *
feature_kind_label (NczFeatureKind kind)
{
  for (gsize i = 0; i < G_N_ELEMENTS (feature_kinds); i++)
    if (feature_kinds[i].kind == kind)
      return feature_kinds[i].label;
  return "feature";
}

static char *
feature_key (NczFeatureKind  kind,
             const char     *name)
{
  return g_strconcat (ncz_feature_kind_to_string (kind), ":", name, NULL);
}

/* "storage driver 'zip'", "HDF5 filter 32015" */
static char *
feature_display (NczFeatureKind  kind,
                 const char     *name)
{
  if (kind == NCZ_FEATURE_HDF5_FILTER)
    return g_strdup_printf ("%s %s", feature_kind_label (kind), name);
  return g_strdup_printf ("%s '%s'", feature_kind_label (kind), name);
}

static gboolean
is_valid_plugin_name (const char *name)
{
  gsize len = 0;

  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++, len++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      return FALSE;
  return len <= NAME_MAX_LENGTH;
}

static gboolean
is_valid_feature_name (const char *name)
{
  gsize len = 0;

  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++, len++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.' && *p != '+')
      return FALSE;
  return len <= NAME_MAX_LENGTH;
}

/* Parses "kind:name" into a normalised key ("hdf5-filter:0307" becomes
 * "hdf5-filter:307"). */
static char *
parse_feature (const char      *str,
               NczFeatureKind  *kind_out,
               char           **name_out,
               GError         **error)
{
  const char *colon = strchr (str, ':');
  g_autofree char *kind_str = NULL;
  g_autofree char *name = NULL;
  NczFeatureKind kind;

  if (colon == NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "feature '%s' is not of the form kind:name", str);
      return NULL;
    }
  kind_str = g_strndup (str, colon - str);
  if (!ncz_feature_kind_from_string (kind_str, &kind))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "feature '%s' has unknown kind '%s' (known: store, format, codec, hdf5-filter, codec-provider)",
                   str, kind_str);
      return NULL;
    }
  name = g_strdup (colon + 1);
  if (kind == NCZ_FEATURE_HDF5_FILTER)
    {
      guint64 id;

      if (!g_ascii_string_to_unsigned (name, 10, 1, HDF5_FILTER_MAX, &id, NULL))
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "feature '%s': an HDF5 filter id is a number from 1 to %d",
                       str, HDF5_FILTER_MAX);
          return NULL;
        }
      g_free (name);
      name = g_strdup_printf ("%" G_GUINT64_FORMAT, id);
    }
  else if (!is_valid_feature_name (name))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "feature '%s' has an invalid name (letters, digits and _-.+ only)",
                   str);
      return NULL;
    }

  if (kind_out != NULL)
    *kind_out = kind;
  if (name_out != NULL)
    *name_out = g_strdup (name);
  return feature_key (kind, name);
}

static char *
entry_point_name (const char *plugin_name)
{
  char *symbol = g_strdup_printf ("ncz_plugin_%s_describe", plugin_name);

  g_strdelimit (symbol, "-", '_');
  return symbol;
}

static gboolean
running_setuid (void)
{
#if defined(__linux__) && defined(AT_SECURE)
  return getauxval (AT_SECURE) != 0;
#else
  return getuid () != geteuid () || getgid () != getegid ();
#endif
}

static const char *
registry_getenv (const char *variable)
{
  if (running_setuid ())
    return NULL;
  return g_getenv (variable);
}

static Registration *
registration_new (NczFeatureKind  kind,
                  const char     *name,
                  GType           type,
                  int             priority,
                  NczPluginInfo  *plugin)
{
  Registration *reg = g_new0 (Registration, 1);

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
  Registration *reg = data;

  g_free (reg->name);
  g_free (reg);
}

static void
codec_provider_clear (gpointer data)
{
  CodecProvider *provider = data;

  if (provider->destroy != NULL)
    provider->destroy (provider->user_data);
  g_free (provider->name);
}

static void
codec_provider_release (gpointer data)
{
  g_atomic_rc_box_release_full (data, codec_provider_clear);
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
  g_ptr_array_unref (self->providers);
  g_hash_table_unref (self->registrations);
  g_hash_table_unref (self->provided_by);
  g_ptr_array_unref (self->extra_plugins);
  g_ptr_array_unref (self->plugins);
  g_rec_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ncz_registry_parent_class)->finalize (object);
}

static void
strv_dedup_into (GPtrArray   *dirs,
                 GPtrArray   *sources,
                 const char  *dir,
                 const char  *source)
{
  for (guint i = 0; i < dirs->len; i++)
    if (strcmp (g_ptr_array_index (dirs, i), dir) == 0)
      return;
  g_ptr_array_add (dirs, g_strdup (dir));
  g_ptr_array_add (sources, g_strdup (source));
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
            strv_dedup_into (dirs, sources, path[i], "explicit");
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
parse_environment (NczRegistry *self)
{
  const char *disable = registry_getenv ("NCZ_PLUGIN_DISABLE");
  const char *priority = registry_getenv ("NCZ_PLUGIN_PRIORITY");

  if (disable != NULL)
    {
      g_auto(GStrv) names = g_strsplit (disable, ",", -1);

      for (gsize i = 0; names[i] != NULL; i++)
        {
          char *name = g_strstrip (names[i]);

          if (*name != '\0')
            g_hash_table_add (self->disabled, g_strdup (name));
        }
    }

  if (priority != NULL)
    {
      g_auto(GStrv) entries = g_strsplit (priority, ",", -1);

      for (gsize i = 0; entries[i] != NULL; i++)
        {
          char *entry = g_strstrip (entries[i]);
          char *colon;
          gboolean known = FALSE;

          if (*entry == '\0')
            continue;
          if (g_ascii_strcasecmp (entry, "help") == 0)
            {
              self->priority_help = TRUE;
              continue;
            }
          colon = strrchr (entry, ':');
          if (colon != NULL && colon != entry)
            {
              *colon = '\0';
              for (gsize j = 0; j < G_N_ELEMENTS (priority_names); j++)
                if (g_ascii_strcasecmp (colon + 1, priority_names[j].name) == 0)
                  {
                    g_hash_table_insert (self->priorities, g_strdup (g_strstrip (entry)),
                                         GINT_TO_POINTER (priority_names[j].priority));
                    known = TRUE;
                  }
              *colon = ':';
            }
          if (!known)
            g_warning ("NCZ_PLUGIN_PRIORITY: ignoring '%s': expected NAME:primary, "
                       "NAME:fallback or NAME:none (NCZ_PLUGIN_PRIORITY=help lists the names)",
                       entry);
        }
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
  parse_environment (self);
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
  self->provided_by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
  self->registrations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_ptr_array_unref);
  self->codecs = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                        g_object_unref);
  self->providers = g_ptr_array_new_with_free_func (codec_provider_release);
  self->provided_codecs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                 g_object_unref);
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

static void
add_path_list (GPtrArray  *dirs,
               GPtrArray  *sources,
               const char *list,
               const char *source)
{
  g_auto(GStrv) entries = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);

  for (gsize i = 0; entries[i] != NULL; i++)
    if (entries[i][0] != '\0')
      strv_dedup_into (dirs, sources, entries[i], source);
}

static NczRegistry *
registry_new_default (void)
{
  NczRegistry *self;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *sources = g_ptr_array_new ();
  const char *env;

  env = registry_getenv ("NCZ_PLUGIN_PATH");
  if (env != NULL)
    add_path_list (dirs, sources, env, "NCZ_PLUGIN_PATH");

  env = registry_getenv ("NCZ_PLUGIN_SYSTEM_PATH");
  if (env != NULL)
    add_path_list (dirs, sources, env, "NCZ_PLUGIN_SYSTEM_PATH");
  else
    strv_dedup_into (dirs, sources, NCZ_PLUGINS_DIR, "built-in");

  g_ptr_array_add (dirs, NULL);
  g_ptr_array_add (sources, NULL);

  self = ncz_registry_new ((const char * const *) dirs->pdata);
  g_strfreev (self->search_path_sources);
  self->search_path_sources = (char **) g_ptr_array_free (sources, FALSE);
  return self;
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
    g_once_init_leave (&default_registry, registry_new_default ());

  return default_registry;
}

/* Scanning manifests (under the lock) */

static gboolean
is_disabled_name (NczRegistry *self,
                  const char  *name)
{
  return name != NULL && g_hash_table_contains (self->disabled, name);
}

static void
index_provides (NczRegistry   *self,
                NczPluginInfo *info)
{
  for (gsize i = 0; info->provides[i] != NULL; i++)
    {
      GPtrArray *infos = g_hash_table_lookup (self->provided_by, info->provides[i]);

      if (infos == NULL)
        {
          infos = g_ptr_array_new ();
          g_hash_table_insert (self->provided_by, g_strdup (info->provides[i]), infos);
        }
      g_ptr_array_add (infos, info);
    }
}

typedef enum {
  MANIFEST_OK,
  MANIFEST_WRONG_ABI,   /* fields are filled, but the Abi differs */
  MANIFEST_BROKEN,
} ManifestResult;

static char *
manifest_get_string (GKeyFile    *keyfile,
                     const char  *key,
                     gboolean     required,
                     const char  *manifest_path,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  char *value = g_key_file_get_string (keyfile, MANIFEST_GROUP, key, &local_error);

  if (value == NULL)
    {
      if (!required && g_error_matches (local_error, G_KEY_FILE_ERROR,
                                        G_KEY_FILE_ERROR_KEY_NOT_FOUND))
        return NULL;
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s: key %s: %s", manifest_path, key, local_error->message);
      return NULL;
    }
  return value;
}

static ManifestResult
read_manifest (NczPluginInfo  *info,
               const char     *dir,
               GError        **error)
{
  const char *path = info->manifest_path;
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *module = NULL;
  g_autofree char *name = NULL;
  g_auto(GStrv) provides = NULL;
  GPtrArray *features;
  GStatBuf st;
  gsize length;
  gint64 abi;

  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "cannot read manifest %s: %s", path, g_strerror (saved_errno));
      return MANIFEST_BROKEN;
    }
  if (!S_ISREG (st.st_mode) || st.st_size > MANIFEST_MAX_SIZE)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s is not a regular file of at most %d bytes",
                   path, MANIFEST_MAX_SIZE);
      return MANIFEST_BROKEN;
    }
  if (!g_file_get_contents (path, &contents, &length, &local_error) ||
      !g_key_file_load_from_data (keyfile, contents, length, G_KEY_FILE_NONE, &local_error))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "cannot read manifest %s: %s", path, local_error->message);
      return MANIFEST_BROKEN;
    }
  if (!g_key_file_has_group (keyfile, MANIFEST_GROUP))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s has no [%s] group", path, MANIFEST_GROUP);
      return MANIFEST_BROKEN;
    }

  name = manifest_get_string (keyfile, "Name", TRUE, path, error);
  if (name == NULL)
    return MANIFEST_BROKEN;
  if (!is_valid_plugin_name (name))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s: key Name: '%s' is not a plugin name (letters, digits, _ and - only)",
                   path, name);
      return MANIFEST_BROKEN;
    }
  g_free (info->name);
  info->name = g_steal_pointer (&name);

  module = manifest_get_string (keyfile, "Module", TRUE, path, error);
  if (module == NULL)
    return MANIFEST_BROKEN;
  if (*module == '\0' || *module == '.' || strchr (module, '/') != NULL ||
      strchr (module, '\\') != NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s: key Module: '%s' is not a file name in the manifest's directory",
                   path, module);
      return MANIFEST_BROKEN;
    }
  info->filename = g_build_filename (dir, module, NULL);

  abi = g_key_file_get_int64 (keyfile, MANIFEST_GROUP, "Abi", &local_error);
  if (local_error != NULL || abi < 0 || abi > G_MAXINT)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s: key Abi: %s", path,
                   local_error != NULL ? local_error->message : "out of range");
      return MANIFEST_BROKEN;
    }
  info->abi = (guint) abi;

  info->version = manifest_get_string (keyfile, "Version", FALSE, path, NULL);
  info->license = manifest_get_string (keyfile, "License", FALSE, path, NULL);
  info->description = manifest_get_string (keyfile, "Description", FALSE, path, NULL);

  features = g_ptr_array_new_with_free_func (g_free);
  if (g_key_file_has_key (keyfile, MANIFEST_GROUP, "Provides", NULL))
    {
      provides = g_key_file_get_string_list (keyfile, MANIFEST_GROUP, "Provides",
                                             NULL, &local_error);
      if (provides == NULL)
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "manifest %s: key Provides: %s", path, local_error->message);
          g_ptr_array_unref (features);
          return MANIFEST_BROKEN;
        }
    }
  for (gsize i = 0; provides != NULL && provides[i] != NULL; i++)
    {
      const char *entry = g_strstrip (provides[i]);
      char *key;

      if (*entry == '\0')
        continue;
      key = parse_feature (entry, NULL, NULL, &local_error);
      if (key == NULL)
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "manifest %s: key Provides: %s", path, local_error->message);
          g_ptr_array_unref (features);
          return MANIFEST_BROKEN;
        }
      if (!g_ptr_array_find_with_equal_func (features, key, g_str_equal, NULL))
        g_ptr_array_add (features, key);
      else
        g_free (key);
    }
  g_ptr_array_add (features, NULL);
  g_strfreev (info->provides);
  info->provides = (char **) g_ptr_array_free (features, FALSE);

  if (info->abi != NCZ_PLUGIN_ABI)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_ABI,
                   "manifest %s is for plugin ABI %u but this Ncz uses ABI %d; "
                   "the plugin must be rebuilt",
                   path, info->abi, NCZ_PLUGIN_ABI);
      return MANIFEST_WRONG_ABI;
    }
  return MANIFEST_OK;
}

static void
scan_manifest (NczRegistry *self,
               const char  *dir,
               const char  *entry,
               GHashTable  *by_module,
               GHashTable  *by_name)
{
  NczPluginInfo *info = ncz_plugin_info_new_internal ();
  g_autoptr(GError) error = NULL;
  NczPluginInfo *other;
  const char *module;

  info->manifest_path = g_build_filename (dir, entry, NULL);
  info->name = g_strndup (entry, strlen (entry) - strlen (MANIFEST_SUFFIX));
  g_ptr_array_add (self->plugins, info);

  switch (read_manifest (info, dir, &error))
    {
    case MANIFEST_BROKEN:
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_SKIPPED, error);
      return;
    case MANIFEST_WRONG_ABI:
      /* Indexed so that looking its features up explains the problem. */
      index_provides (self, info);
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_SKIPPED, error);
      return;
    case MANIFEST_OK:
    default:
      break;
    }

  module = strrchr (info->filename, G_DIR_SEPARATOR) + 1;
  other = g_hash_table_lookup (by_module, module);
  if (other != NULL)
    {
      g_set_error (&error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_FAILED,
                   "%s is skipped: %s, found earlier in the plugin search path, has the same file name",
                   info->filename, other->filename);
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_SKIPPED, error);
      return;
    }
  other = g_hash_table_lookup (by_name, info->name);
  if (other != NULL)
    {
      g_set_error (&error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_FAILED,
                   "%s is skipped: the plugin name '%s' is already used by %s",
                   info->filename, info->name, other->filename);
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_SKIPPED, error);
      return;
    }
  g_hash_table_insert (by_module, (gpointer) module, info);
  g_hash_table_insert (by_name, info->name, info);
  index_provides (self, info);

  if (is_disabled_name (self, info->name))
    {
      g_set_error (&error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED,
                   "plugin '%s' (%s) is disabled by NCZ_PLUGIN_DISABLE",
                   info->name, info->filename);
      ncz_plugin_info_set_status (info, NCZ_PLUGIN_STATUS_DISABLED, error);
    }
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void print_priority_help (NczRegistry *self);

static void
ensure_scanned (NczRegistry *self)
{
  g_autoptr(GHashTable) by_module = NULL;
  g_autoptr(GHashTable) by_name = NULL;

  if (self->scanned)
    return;
  self->scanned = TRUE;

  by_module = g_hash_table_new (g_str_hash, g_str_equal);
  by_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; self->search_path[i] != NULL; i++)
    {
      const char *dirname = self->search_path[i];
      g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);
      GDir *dir = g_dir_open (dirname, 0, NULL);
      const char *entry;

      if (dir == NULL)
        continue;
      while ((entry = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (entry, MANIFEST_SUFFIX) &&
            strlen (entry) > strlen (MANIFEST_SUFFIX))
          g_ptr_array_add (entries, g_strdup (entry));
      g_dir_close (dir);

      g_ptr_array_sort (entries, compare_strings);
      for (guint j = 0; j < entries->len; j++)
        scan_manifest (self, dirname, g_ptr_array_index (entries, j), by_module, by_name);
    }

  if (self->priority_help)
    print_priority_help (self);
}

static void
print_priority_help (NczRegistry *self)
{
  GString *out = g_string_new (NULL);
  GHashTableIter iter;
  gpointer key, value;

  g_string_append (out,
                   "NCZ_PLUGIN_PRIORITY=NAME:PRIORITY[,NAME:PRIORITY...]\n"
                   "  PRIORITY is primary, fallback or none (used only when nothing else\n"
                   "  provides the feature). NAME is a plugin name, or the type name of an\n"
                   "  implementation the program registered itself.\n"
                   "Plugins:\n");
  for (guint i = 0; i < self->plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (self->plugins, i);
      g_autofree char *provides = g_strjoinv (" ", info->provides);
      gpointer prio;

      g_string_append_printf (out, "  %-20s %s", info->name, provides);
      if (g_hash_table_lookup_extended (self->priorities, info->name, NULL, &prio))
        g_string_append_printf (out, " [priority %d]", GPOINTER_TO_INT (prio));
      if (ncz_plugin_info_get_status (info) >= NCZ_PLUGIN_STATUS_FAILED)
        g_string_append_printf (out, " (%s)",
                                ncz_plugin_status_to_string (ncz_plugin_info_get_status (info)));
      g_string_append_c (out, '\n');
    }
  g_string_append (out, "Implementations registered without a module:\n");
  g_hash_table_iter_init (&iter, self->registrations);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *regs = value;

      for (guint i = 0; i < regs->len; i++)
        {
          Registration *reg = g_ptr_array_index (regs, i);

          if (reg->plugin == NULL)
            g_string_append_printf (out, "  %-20s %s [priority %d]\n",
                                    g_type_name (reg->type), (const char *) key,
                                    reg->priority);
        }
    }
  g_printerr ("%s", out->str);
  g_string_free (out, TRUE);
}

/* Registrations (under the lock) */

static void
add_registration (NczRegistry    *self,
                  NczFeatureKind  kind,
                  const char     *name,
                  GType           type,
                  int             priority)
{
  g_autofree char *key = feature_key (kind, name);
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
      Registration *reg = g_ptr_array_index (regs, i);

      if (reg->type == type && reg->plugin == plugin)
        {
          reg->priority = priority;
          goto out;
        }
    }
  g_ptr_array_add (regs, registration_new (kind, name, type, priority, plugin));

out:
  if (plugin != NULL &&
      !g_ptr_array_find_with_equal_func (plugin->registered, key, g_str_equal, NULL))
    g_ptr_array_add (plugin->registered, g_strdup (key));

  g_rec_mutex_unlock (&self->lock);
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
          Registration *reg = g_ptr_array_index (regs, i - 1);

          if (reg->plugin == plugin)
            g_ptr_array_remove_index (regs, i - 1);
        }
      if (regs->len == 0)
        g_hash_table_iter_remove (&iter);
    }
  for (guint i = self->providers->len; i > 0; i--)
    {
      CodecProvider *provider = g_ptr_array_index (self->providers, i - 1);

      if (provider->plugin == plugin)
        g_ptr_array_remove_index (self->providers, i - 1);
    }
  g_ptr_array_set_size (plugin->registered, 0);
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
  g_return_if_fail (is_valid_feature_name (name));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_STORE));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));

  add_registration (self, NCZ_FEATURE_STORE, name, type, priority);
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
  g_return_if_fail (is_valid_feature_name (name));
  g_return_if_fail (g_type_is_a (type, NCZ_TYPE_FORMAT));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));

  add_registration (self, NCZ_FEATURE_FORMAT, name, type, priority);
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
  g_return_if_fail (codec_id == NULL || is_valid_feature_name (codec_id));
  g_return_if_fail (codec_id != NULL || filter_id != 0);
  g_return_if_fail (filter_id <= HDF5_FILTER_MAX);

  g_rec_mutex_lock (&self->lock);
  if (codec_id != NULL)
    add_registration (self, NCZ_FEATURE_CODEC, codec_id, type, priority);
  if (filter_id != 0)
    {
      char name[16];

      g_snprintf (name, sizeof name, "%u", filter_id);
      add_registration (self, NCZ_FEATURE_HDF5_FILTER, name, type, priority);
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
  CodecProvider *provider;
  NczPluginInfo *plugin;

  g_return_if_fail (NCZ_IS_REGISTRY (self));
  g_return_if_fail (is_valid_feature_name (name));
  g_return_if_fail (func != NULL);

  provider = g_atomic_rc_box_new0 (CodecProvider);
  provider->name = g_strdup (name);
  provider->func = func;
  provider->user_data = user_data;
  provider->destroy = destroy;
  provider->priority = priority;

  key = feature_key (NCZ_FEATURE_CODEC_PROVIDER, name);

  g_rec_mutex_lock (&self->lock);
  plugin = self->loading;
  provider->plugin = plugin;
  for (guint i = 0; i < self->providers->len; i++)
    {
      CodecProvider *other = g_ptr_array_index (self->providers, i);

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

static gboolean
load_plugin_locked (NczRegistry    *self,
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

/* Lookups (under the lock) */

static gboolean
get_priority_override (NczRegistry *self,
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
                       Registration *reg)
{
  int priority = reg->priority;
  const char *name = reg->plugin != NULL ? reg->plugin->name : g_type_name (reg->type);

  get_priority_override (self, name, &priority);
  return priority;
}

static const KnownFeature *
find_known_feature (NczFeatureKind  kind,
                    const char     *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (known_features); i++)
    if (known_features[i].kind == kind && strcmp (known_features[i].name, name) == 0)
      return &known_features[i];
  return NULL;
}

static void
set_not_available_error (NczRegistry     *self,
                         NczFeatureKind   kind,
                         const char      *name,
                         GError         **error)
{
  g_autofree char *key = feature_key (kind, name);
  g_autofree char *display = feature_display (kind, name);
  GPtrArray *infos = g_hash_table_lookup (self->provided_by, key);
  NczPluginInfo *best = NULL;
  const KnownFeature *known;

  /* Prefer a module that was tried and failed, then a rejected manifest,
   * then a disabled plugin. */
  for (guint i = 0; infos != NULL && i < infos->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (infos, i);
      NczPluginStatus status = ncz_plugin_info_get_status (info);

      if (status < NCZ_PLUGIN_STATUS_FAILED || info->error == NULL)
        continue;
      if (best == NULL || status < ncz_plugin_info_get_status (best))
        best = info;
    }
  if (best != NULL)
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, best->error->code,
                   "%s is not available: %s", display, best->error->message);
      return;
    }

  known = find_known_feature (kind, name);
  if (known != NULL)
    {
      if (kind == NCZ_FEATURE_HDF5_FILTER)
        {
          const KnownFeature *codec = NULL;

          for (gsize i = 0; i < G_N_ELEMENTS (known_features); i++)
            if (known_features[i].kind == NCZ_FEATURE_CODEC &&
                strcmp (known_features[i].module, known->module) == 0)
              codec = &known_features[i];
          if (codec != NULL)
            {
              g_free (display);
              display = g_strdup_printf ("HDF5 filter %s (%s)", name, codec->name);
            }
        }
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_INSTALLED,
                   "%s is known but libncz-%s%s is not installed (%s %s%s)",
                   display, known->module, "." G_MODULE_SUFFIX,
                   NCZ_PLUGIN_INSTALL_COMMAND, NCZ_PLUGIN_PACKAGE_PREFIX, known->package);
      return;
    }

  if (self->search_path[0] == NULL)
    g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                 "no plugin provides %s (the plugin search path is empty)", display);
  else
    {
      g_autofree char *path = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, self->search_path);

      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "no plugin provides %s (searched %s)", display, path);
    }
}

/* Returns the winning registration, loading modules as needed. */
static Registration *
lookup_locked (NczRegistry     *self,
               NczFeatureKind   kind,
               const char      *name,
               GError         **error)
{
  g_autofree char *key = feature_key (kind, name);

  ensure_scanned (self);

  if (is_disabled_name (self, name))
    {
      g_autofree char *display = feature_display (kind, name);

      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_DISABLED,
                   "%s is disabled by NCZ_PLUGIN_DISABLE", display);
      return NULL;
    }

  for (;;)
    {
      GPtrArray *regs = g_hash_table_lookup (self->registrations, key);
      GPtrArray *infos = g_hash_table_lookup (self->provided_by, key);
      Registration *best = NULL;
      NczPluginInfo *candidate = NULL;
      int best_priority = G_MININT;
      int candidate_priority = G_MININT;

      for (guint i = 0; regs != NULL && i < regs->len; i++)
        {
          Registration *reg = g_ptr_array_index (regs, i);
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
          get_priority_override (self, info->name, &priority);
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
          load_plugin_locked (self, candidate, NULL);
          continue;
        }

      if (best != NULL)
        return best;
      break;
    }

  set_not_available_error (self, kind, name, error);
  return NULL;
}

static GType
lookup_type (NczRegistry     *self,
             NczFeatureKind   kind,
             const char      *name,
             GError         **error)
{
  Registration *reg;
  GType type = G_TYPE_INVALID;

  g_rec_mutex_lock (&self->lock);
  reg = lookup_locked (self, kind, name, error);
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
  GPtrArray *result = g_ptr_array_new_with_free_func (codec_provider_release);
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
        load_plugin_locked (self, info, NULL);
    }

  for (guint i = 0; i < self->providers->len; i++)
    {
      CodecProvider *provider = g_ptr_array_index (self->providers, i);
      int priority = provider->priority;
      guint pos = result->len;

      if (provider->plugin != NULL && provider->plugin->loading)
        continue;
      if (is_disabled_name (self, provider->name))
        continue;
      get_priority_override (self, provider->plugin != NULL ? provider->plugin->name
                                                            : provider->name, &priority);
      provider->priority = priority;
      /* Insertion keeps registration order among equal priorities. */
      while (pos > 0 &&
             ((CodecProvider *) g_ptr_array_index (result, pos - 1))->priority < priority)
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
  g_autofree char *key = feature_key (kind, name);
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) why = NULL;
  NczCodec *codec = NULL;
  guint filter_id = 0;

  g_rec_mutex_lock (&self->lock);
  codec = g_hash_table_lookup (self->provided_codecs, key);
  if (codec != NULL)
    {
      g_object_ref (codec);
      g_rec_mutex_unlock (&self->lock);
      return codec;
    }
  if (is_disabled_name (self, name))
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
      CodecProvider *provider = g_ptr_array_index (providers, i);
      g_autoptr(GError) local_error = NULL;

      codec = provider->func (self, kind == NCZ_FEATURE_CODEC ? name : NULL, filter_id,
                              provider->user_data, &local_error);
      if (codec != NULL && !NCZ_IS_CODEC (codec))
        {
          g_critical ("codec provider '%s' returned a %s, not an NczCodec",
                      provider->name, G_OBJECT_TYPE_NAME (codec));
          g_clear_object (&codec);
        }
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
        g_hash_table_insert (self->provided_codecs, g_strdup (key), g_object_ref (codec));
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
  Registration *reg;

  g_rec_mutex_lock (&self->lock);
  reg = lookup_locked (self, kind, name, &local_error);
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

      if (!g_ascii_string_to_unsigned (name, 10, 1, HDF5_FILTER_MAX, &id, NULL))
        return FALSE;
      normalized = g_strdup_printf ("%" G_GUINT64_FORMAT, id);
      name = normalized;
    }
  key = feature_key (kind, name);

  g_rec_mutex_lock (&self->lock);
  ensure_scanned (self);
  if (!is_disabled_name (self, name))
    {
      regs = g_hash_table_lookup (self->registrations, key);
      infos = g_hash_table_lookup (self->provided_by, key);
      found = regs != NULL && regs->len > 0;
      for (guint i = 0; !found && kind == NCZ_FEATURE_CODEC_PROVIDER &&
                        i < self->providers->len; i++)
        {
          CodecProvider *provider = g_ptr_array_index (self->providers, i);

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
 * Creates the format backend @url asks for (ncz_url_get_format_name(),
 * `nczarr` when it names none), loading its module if needed.
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
  g_autoptr(GError) local_error = NULL;
  const char *names[] = { "url", "store" };
  GValue values[2] = { G_VALUE_INIT, G_VALUE_INIT };
  guint n_values = 1;
  const char *format;
  GObject *object;
  GType type;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  g_return_val_if_fail (store == NULL || NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  format = ncz_url_get_format_name (url);
  if (format == NULL)
    format = "nczarr";

  type = ncz_registry_lookup_format (self, format, &local_error);
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
  ensure_scanned (self);
  result = g_ptr_array_new_full (self->plugins->len, NULL);
  for (guint i = 0; i < self->plugins->len; i++)
    g_ptr_array_add (result, g_ptr_array_index (self->plugins, i));
  g_rec_mutex_unlock (&self->lock);

  return result;
}

/* Private API for the tools */

char **
ncz_registry_get_search_path_sources (NczRegistry *self)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  return g_strdupv (self->search_path_sources);
}

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
  ensure_scanned (self);
  if (!g_ptr_array_find (self->plugins, info, NULL) &&
      !g_ptr_array_find (self->extra_plugins, info, NULL))
    {
      g_rec_mutex_unlock (&self->lock);
      g_return_val_if_reached (FALSE);
    }
  ok = load_plugin_locked (self, info, error);
  g_rec_mutex_unlock (&self->lock);

  return ok;
}

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

  if (!is_valid_plugin_name (name))
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
  ok = load_plugin_locked (self, info, error);
  g_rec_mutex_unlock (&self->lock);

  return ok ? g_object_ref (info) : NULL;
}
