/* ncz-registry-known.c: the features Ncz knows of, for the "not installed" hint
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-registry-private.h"

/* Packagers may override these with -D. */
#ifndef NCZ_PLUGIN_INSTALL_COMMAND
#define NCZ_PLUGIN_INSTALL_COMMAND "apt install"
#endif
#ifndef NCZ_PLUGIN_PACKAGE_PREFIX
#define NCZ_PLUGIN_PACKAGE_PREFIX "ncz-plugin-"
#endif

/* The features Ncz knows of, to say which module and package to install
 * when nothing provides them; formats carry their probe, so that a file
 * is recognised even when its format's module is missing. The table is
 * generated from the plugin list of meson.build (ncz_known_plugins). */
#include "ncz-known-plugins.h"

/* The known plugin providing @kind:@name, or NULL. */
static const NczKnownPlugin *
find_known_feature (NczFeatureKind  kind,
                    const char     *name)
{
  g_autofree char *key = _ncz_feature_key (kind, name);

  for (gsize i = 0; i < G_N_ELEMENTS (ncz_known_plugins); i++)
    {
      g_auto(GStrv) provides = g_strsplit (ncz_known_plugins[i].provides, ";", -1);

      if (g_strv_contains ((const char * const *) provides, key))
        return &ncz_known_plugins[i];
    }
  return NULL;
}

/* The codec id a known plugin provides, for "HDF5 filter 307 (bz2)". */
static char *
known_codec_id (const NczKnownPlugin *known)
{
  g_auto(GStrv) provides = g_strsplit (known->provides, ";", -1);

  for (gsize i = 0; provides[i] != NULL; i++)
    if (g_str_has_prefix (provides[i], "codec:"))
      return g_strdup (provides[i] + strlen ("codec:"));
  return NULL;
}

static GPtrArray *
make_known_format_claims (void)
{
  GPtrArray *claims = g_ptr_array_new_with_free_func (_ncz_format_claim_unref);

  for (gsize i = 0; i < G_N_ELEMENTS (ncz_known_plugins); i++)
    {
      const NczKnownPlugin *known = &ncz_known_plugins[i];
      g_autoptr(GKeyFile) keyfile = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) groups = NULL;

      if (known->probe == NULL)
        continue;
      keyfile = g_key_file_new ();
      if (!g_key_file_load_from_data (keyfile, known->probe, -1, G_KEY_FILE_NONE, &error))
        g_error ("known plugin %s: bad probe: %s", known->name, error->message);
      groups = g_key_file_get_groups (keyfile, NULL);
      for (gsize j = 0; groups[j] != NULL; j++)
        {
          NczFormatClaim *claim;

          if (!g_str_has_prefix (groups[j], NCZ_MANIFEST_FORMAT_GROUP_PREFIX))
            continue;
          claim = _ncz_format_claim_from_keyfile (keyfile,
                                                  groups[j] + strlen (NCZ_MANIFEST_FORMAT_GROUP_PREFIX),
                                                  "the known formats table", &error);
          if (claim == NULL)
            g_error ("known plugin %s: %s", known->name, error->message);
          claim->module = known->module;
          claim->package = known->package;
          g_ptr_array_add (claims, claim);
        }
    }
  return claims;
}

GPtrArray *
_ncz_known_format_claims (void)
{
  static GPtrArray *claims = NULL;

  if (g_once_init_enter (&claims))
    g_once_init_leave (&claims, make_known_format_claims ());
  return claims;
}

void
_ncz_registry_set_not_available_error (NczRegistry     *self,
                         NczFeatureKind   kind,
                         const char      *name,
                         GError         **error)
{
  g_autofree char *key = _ncz_feature_key (kind, name);
  g_autofree char *display = _ncz_feature_display (kind, name);
  GPtrArray *infos = g_hash_table_lookup (self->provided_by, key);
  NczPluginInfo *best = NULL;
  const NczKnownPlugin *known;

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
  if (known != NULL && *known->module == '\0')
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "%s is known but no Ncz module implements it yet", display);
      return;
    }
  if (known != NULL)
    {
      if (kind == NCZ_FEATURE_HDF5_FILTER)
        {
          g_autofree char *codec = known_codec_id (known);

          if (codec != NULL)
            {
              g_free (display);
              display = g_strdup_printf ("HDF5 filter %s (%s)", name, codec);
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

/* The error for @name, a plugin name or the name of a feature, when no
 * manifest of the search path matches it: a plugin Ncz knows of is
 * reported as its first feature would be, and a known feature as itself
 * (both "known but libncz-....so is not installed", with the package,
 * as when opening a dataset needs it); anything else is not found. */
void
_ncz_registry_set_plugin_not_found_error (NczRegistry  *self,
                                          const char   *name,
                                          GError      **error)
{
  static const NczFeatureKind kinds[] = {
    NCZ_FEATURE_STORE, NCZ_FEATURE_FORMAT, NCZ_FEATURE_CODEC,
    NCZ_FEATURE_HDF5_FILTER, NCZ_FEATURE_CODEC_PROVIDER,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (ncz_known_plugins); i++)
    {
      const NczKnownPlugin *known = &ncz_known_plugins[i];
      g_auto(GStrv) provides = NULL;
      const char *colon;
      g_autofree char *kind_name = NULL;
      NczFeatureKind kind;

      if (strcmp (known->name, name) != 0)
        continue;
      provides = g_strsplit (known->provides, ";", 2);
      colon = provides[0] != NULL ? strchr (provides[0], ':') : NULL;
      if (colon == NULL)
        break;
      kind_name = g_strndup (provides[0], (gsize) (colon - provides[0]));
      if (!ncz_feature_kind_from_string (kind_name, &kind))
        break;
      _ncz_registry_set_not_available_error (self, kind, colon + 1, error);
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (find_known_feature (kinds[i], name) != NULL)
      {
        _ncz_registry_set_not_available_error (self, kinds[i], name, error);
        return;
      }

  if (self->search_path[0] == NULL)
    g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                 "no plugin named or providing '%s' (the plugin search path is empty)", name);
  else
    {
      g_autofree char *path = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, self->search_path);

      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "no plugin named or providing '%s' (searched %s)", name, path);
    }
}
