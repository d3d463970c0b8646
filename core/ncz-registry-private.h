/* ncz-registry-private.h: registry and plugin-info internals
 *
 * Shared by the registry's files (ncz-registry*.c: the object and its
 * registrations, the search path, manifests, module loading, lookups and
 * priorities, the known-feature table, format probing) and
 * ncz-plugin-info.c; not installed, and used by no module or tool.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gmodule.h>
#include <ncz/ncz.h>

G_BEGIN_DECLS

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

/* What a format claims (NczFormatProbe as the registry keeps it).
 * Immutable once made; reference-counted (g_atomic_rc_box) so a probe can
 * use it without the registry's lock. */
typedef struct {
  char *format;
  char **modes;               /* never NULL */
  GBytes *signature;          /* NULL if the format has none */
  GArray *offsets;            /* guint64, increasing; never NULL */
  gboolean offsets_double;
  char **markers;             /* never NULL */
  gboolean needs_store;
  /* where the claim comes from */
  NczPluginInfo *plugin;      /* a manifest's plugin (unowned), else NULL */
  const char *module;         /* known table: libncz-MODULE.so, else NULL */
  const char *package;        /* known table: package name ("" if none), else NULL */
} NczFormatClaim;

G_GNUC_INTERNAL NczFormatClaim *_ncz_format_claim_new (const char *format,
                                                       const NczFormatProbe *probe);
G_GNUC_INTERNAL NczFormatClaim *_ncz_format_claim_ref (NczFormatClaim *claim);
G_GNUC_INTERNAL void _ncz_format_claim_unref (gpointer claim);
/* Reads the [Format NAME] group of a manifest; NULL with @error set if
 * a key is malformed. */
G_GNUC_INTERNAL NczFormatClaim *_ncz_format_claim_from_keyfile (GKeyFile *keyfile,
                                                                const char *format,
                                                                const char *where,
                                                                GError **error);
G_GNUC_INTERNAL char **_ncz_format_claim_describe (const NczFormatClaim *claim);

typedef struct {
  NczFeatureKind kind;
  char *name;
  GType type;
  int priority;
  NczPluginInfo *plugin;      /* NULL when registered without a module */
  NczFormatClaim *claim;      /* formats registered with a probe, else NULL */
} NczRegistration;

/* Reference-counted (g_atomic_rc_box) so a lookup can call it without the
 * lock while it is being replaced. */
typedef struct {
  char *name;
  NczCodecProviderFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
  int priority;
  NczPluginInfo *plugin;      /* NULL when registered without a module */
} NczCodecProvider;

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
  GPtrArray *manifest_claims; /* NczFormatClaim from manifests, in search order */
  GHashTable *registrations;  /* feature key → GPtrArray of NczRegistration */
  GHashTable *codecs;         /* GType → NczCodec */
  GPtrArray *providers;       /* NczCodecProvider, in registration order */
  GHashTable *provided_codecs;/* feature key → NczCodec from a provider */
  GHashTable *provided_codec_sources; /* feature key → NczCodecProvider that gave it */
  NczPluginInfo *loading;     /* whose register_func is running */
};

#define NCZ_MANIFEST_GROUP "Plugin"
#define NCZ_MANIFEST_FORMAT_GROUP_PREFIX "Format "
#define NCZ_REGISTRY_HDF5_FILTER_MAX 65535

/* ncz-registry-path.c */
G_GNUC_INTERNAL const char *_ncz_registry_getenv (const char *variable);
G_GNUC_INTERNAL void _ncz_registry_parse_environment (NczRegistry *self);
G_GNUC_INTERNAL NczRegistry *_ncz_registry_new_default (void);
G_GNUC_INTERNAL gboolean _ncz_registry_is_disabled (NczRegistry *self, const char *name);
G_GNUC_INTERNAL void _ncz_strv_dedup_into (GPtrArray *dirs, GPtrArray *sources,
                                           const char *dir, const char *source);

/* ncz-registry-manifest.c (under the lock) */
G_GNUC_INTERNAL char *_ncz_feature_key (NczFeatureKind kind, const char *name);
G_GNUC_INTERNAL char *_ncz_feature_display (NczFeatureKind kind, const char *name);
G_GNUC_INTERNAL gboolean _ncz_is_valid_plugin_name (const char *name);
G_GNUC_INTERNAL gboolean _ncz_is_valid_feature_name (const char *name);
G_GNUC_INTERNAL void _ncz_registry_ensure_scanned (NczRegistry *self);

/* ncz-registry-loader.c (under the lock) */
G_GNUC_INTERNAL gboolean _ncz_registry_load_plugin_locked (NczRegistry *self,
                                                           NczPluginInfo *info,
                                                           GError **error);

/* ncz-registry-lookup.c (under the lock) */
G_GNUC_INTERNAL NczRegistration *_ncz_registry_lookup_locked (NczRegistry *self,
                                                               NczFeatureKind kind,
                                                               const char *name,
                                                               GError **error);
G_GNUC_INTERNAL gboolean _ncz_registry_get_priority_override (NczRegistry *self,
                                                              const char *name,
                                                              int *priority);
G_GNUC_INTERNAL void _ncz_codec_provider_release (gpointer provider);

/* ncz-registry-known.c: the features Ncz knows of (generated from the
 * plugin list of meson.build) */
G_GNUC_INTERNAL void _ncz_registry_set_not_available_error (NczRegistry *self,
                                                            NczFeatureKind kind,
                                                            const char *name,
                                                            GError **error);
G_GNUC_INTERNAL void _ncz_registry_set_plugin_not_found_error (NczRegistry *self,
                                                               const char *name,
                                                               GError **error);
/* (element-type NczFormatClaim) (transfer none): the formats of the
 * known table with their probe claims, made once. */
G_GNUC_INTERNAL GPtrArray *_ncz_known_format_claims (void);

/* ncz-registry-probe.c */
G_GNUC_INTERNAL gboolean _ncz_url_is_plain_file (NczUrl *url);
/* ncz_registry_choose_format(), also saying what decided when it was
 * probed ("found .zgroup", "signature of format 'hdf5' at offset 512");
 * *found_out stays NULL when the URL named the format. */
G_GNUC_INTERNAL char *_ncz_registry_choose_format_full (NczRegistry *self, NczUrl *url,
                                                        NczStore *store,
                                                        GCancellable *cancellable,
                                                        char **found_out, GError **error);

G_GNUC_INTERNAL NczPluginInfo *ncz_plugin_info_new_internal (void);
G_GNUC_INTERNAL void ncz_plugin_info_set_status (NczPluginInfo *self,
                                                 NczPluginStatus status,
                                                 const GError *error);

G_END_DECLS
