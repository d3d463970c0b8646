/* ncz-registry.h: finds storage drivers, format backends and codecs
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <gio/gio.h>
#include <ncz/ncz-codec.h>
#include <ncz/ncz-format.h>
#include <ncz/ncz-store.h>
#include <ncz/ncz-url.h>

G_BEGIN_DECLS

/**
 * NczFeatureKind:
 * @NCZ_FEATURE_STORE: a storage driver ("store:file")
 * @NCZ_FEATURE_FORMAT: a format backend ("format:nczarr")
 * @NCZ_FEATURE_CODEC: a codec by Zarr id ("codec:zstd")
 * @NCZ_FEATURE_HDF5_FILTER: a codec by HDF5 filter id ("hdf5-filter:32015")
 * @NCZ_FEATURE_CODEC_PROVIDER: a codec provider, asked for the codecs no
 *   module registers ("codec-provider:foreign"); see
 *   ncz_registry_add_codec_provider()
 *
 * Kinds of feature a plugin provides.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_FEATURE_STORE,
  NCZ_FEATURE_FORMAT,
  NCZ_FEATURE_CODEC,
  NCZ_FEATURE_HDF5_FILTER,
  NCZ_FEATURE_CODEC_PROVIDER,
} NczFeatureKind;

/**
 * NczPriority:
 * @NCZ_PRIORITY_NONE: used only when nothing else provides the feature
 * @NCZ_PRIORITY_FALLBACK: below the primary implementation
 * @NCZ_PRIORITY_PRIMARY: the normal implementation
 *
 * Ranking between implementations of the same feature.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_PRIORITY_NONE = 0,
  NCZ_PRIORITY_FALLBACK = 64,
  NCZ_PRIORITY_PRIMARY = 256,
} NczPriority;

#define NCZ_TYPE_REGISTRY (ncz_registry_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczRegistry, ncz_registry, NCZ, REGISTRY, GObject)

NCZ_AVAILABLE_IN_ALL
NczRegistry *ncz_registry_get_default (void);
NCZ_AVAILABLE_IN_ALL
NczRegistry *ncz_registry_new (const char * const *search_path);

NCZ_AVAILABLE_IN_ALL
void ncz_registry_add_store (NczRegistry *self, const char *name, GType type,
                             int priority);
NCZ_AVAILABLE_IN_ALL
void ncz_registry_add_format (NczRegistry *self, const char *name, GType type,
                              int priority);
/**
 * NczFormatProbe:
 * @modes: (nullable) (array zero-terminated=1): the URL mode words that
 *   select this format (`nczarr`, `zarr`); a URL's `format=NAME` key
 *   always selects format NAME
 * @signature: (nullable) (array length=signature_length): bytes a file of
 *   this format holds at one of @signature_offsets
 * @signature_length: the length of @signature (at most 64)
 * @signature_offsets: (nullable) (array length=n_signature_offsets): the
 *   offsets where @signature may lie, in increasing order
 * @n_signature_offsets: the number of @signature_offsets
 * @signature_offsets_double: after the last offset, keep doubling it
 *   (HDF5: 0, 512, 1024, 2048, ...) within the first bytes read
 * @markers: (nullable) (array zero-terminated=1): keys whose existence at
 *   the root of a store marks this format (`.zgroup`, `zarr.json`)
 * @needs_store: whether the format reads and writes through an #NczStore
 *   (%FALSE: it opens its file itself)
 *
 * What a format backend claims, so that the registry can choose the
 * format of a URL before any store is opened or any module loaded. A
 * format module passes it to ncz_registry_add_format_with_probe();
 * `ncz-inspect-1.0 --manifest` writes it into the module's manifest
 * (`[Format NAME]` group), where the registry reads it.
 *
 * Since: 1.0
 */
typedef struct {
  const char * const *modes;
  const guint8 *signature;
  gsize signature_length;
  const guint64 *signature_offsets;
  gsize n_signature_offsets;
  gboolean signature_offsets_double;
  const char * const *markers;
  gboolean needs_store;
  /*< private >*/
  gpointer padding[4];
} NczFormatProbe;

NCZ_AVAILABLE_IN_ALL
void ncz_registry_add_format_with_probe (NczRegistry *self, const char *name,
                                         GType type, int priority,
                                         const NczFormatProbe *probe);
NCZ_AVAILABLE_IN_ALL
void ncz_registry_add_codec (NczRegistry *self, GType type,
                             const char *codec_id, guint filter_id,
                             int priority);

/**
 * NczCodecProviderFunc:
 * @registry: the registry asking
 * @codec_id: (nullable): the Zarr codec id looked up, or %NULL when
 *   looking up by HDF5 filter id
 * @filter_id: the HDF5 filter id looked up, or 0 when looking up by
 *   codec id
 * @user_data: the data given to ncz_registry_add_codec_provider()
 * @error: return location for a #GError
 *
 * Asked for a codec no module registers. Returns %NULL without setting
 * @error when it does not provide it, or %NULL with @error set to say why
 * a codec it knows of cannot be used (the registry puts the message in
 * its own "codec not available" error). Called without the registry's lock
 * held, from any thread.
 *
 * Returns: (transfer full) (nullable): the codec
 *
 * Since: 1.0
 */
typedef NczCodec *(*NczCodecProviderFunc) (NczRegistry  *registry,
                                           const char   *codec_id,
                                           guint         filter_id,
                                           gpointer      user_data,
                                           GError      **error);

NCZ_AVAILABLE_IN_ALL
void ncz_registry_add_codec_provider (NczRegistry          *self,
                                      const char           *name,
                                      NczCodecProviderFunc  func,
                                      gpointer              user_data,
                                      GDestroyNotify        destroy,
                                      int                   priority);

NCZ_AVAILABLE_IN_ALL
GType ncz_registry_lookup_store (NczRegistry *self, const char *name,
                                 GError **error);
NCZ_AVAILABLE_IN_ALL
GType ncz_registry_lookup_format (NczRegistry *self, const char *name,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
NczCodec *ncz_registry_lookup_codec (NczRegistry *self, const char *codec_id,
                                     GError **error);
NCZ_AVAILABLE_IN_ALL
NczCodec *ncz_registry_lookup_codec_by_filter_id (NczRegistry *self,
                                                  guint filter_id,
                                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_registry_has_feature (NczRegistry *self, NczFeatureKind kind,
                                   const char *name);

NCZ_AVAILABLE_IN_ALL
NczStore *ncz_registry_open_store (NczRegistry *self, NczUrl *url,
                                   guint flags, GCancellable *cancellable,
                                   GError **error);
NCZ_AVAILABLE_IN_ALL
NczFormat *ncz_registry_new_format (NczRegistry *self, NczUrl *url,
                                    NczStore *store, GError **error);

NCZ_AVAILABLE_IN_ALL
NczFormat *ncz_registry_create_format (NczRegistry *self, const char *name,
                                       NczUrl *url, NczStore *store,
                                       GError **error);

NCZ_AVAILABLE_IN_ALL
char *ncz_registry_format_from_url (NczRegistry *self, NczUrl *url);
NCZ_AVAILABLE_IN_ALL
char *ncz_registry_choose_format (NczRegistry *self, NczUrl *url,
                                  NczStore *store, GCancellable *cancellable,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_registry_probe_store (NczRegistry *self, NczStore *store,
                                const char *url, GCancellable *cancellable,
                                GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_registry_probe_stream (NczRegistry *self, GInputStream *stream,
                                 const char *url, GCancellable *cancellable,
                                 GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_registry_format_needs_store (NczRegistry *self, const char *name);
NCZ_AVAILABLE_IN_ALL
char **ncz_registry_describe_format_probe (NczRegistry *self, const char *name);

NCZ_AVAILABLE_IN_ALL
const char *ncz_feature_kind_to_string (NczFeatureKind kind);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_feature_kind_from_string (const char *str, NczFeatureKind *kind);

NCZ_AVAILABLE_IN_ALL
char **ncz_registry_get_search_path (NczRegistry *self);
NCZ_AVAILABLE_IN_ALL
char **ncz_registry_get_search_path_sources (NczRegistry *self);
NCZ_AVAILABLE_IN_ALL
GPtrArray *ncz_registry_list_plugins (NczRegistry *self);

G_END_DECLS
