/* ncz-registry-manifest.c: reading the .plugin manifests of the search path
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ncz-registry-private.h"

#define MANIFEST_SUFFIX ".plugin"
#define MANIFEST_MAX_SIZE (64 * 1024)
#define NAME_MAX_LENGTH 128

static void print_priority_help (NczRegistry *self);

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

/* Helpers without state */

/**
 * ncz_feature_kind_to_string:
 * @kind: a feature kind
 *
 * Gives the name of a feature kind as plugin manifests write it, `unknown`
 * for a value that is no kind. The string is static.
 *
 * Returns: the kind as manifests write it: `store`, `format`, `codec`,
 *   `hdf5-filter`, `codec-provider`
 * Since: 1.0
 */
const char *
ncz_feature_kind_to_string (NczFeatureKind kind)
{
  for (gsize i = 0; i < G_N_ELEMENTS (feature_kinds); i++)
    if (feature_kinds[i].kind == kind)
      return feature_kinds[i].string;
  return "unknown";
}

/**
 * ncz_feature_kind_from_string:
 * @str: a kind as manifests write it (`codec`)
 * @kind: (out) (optional): the kind
 *
 * Parses the kind part of a feature as plugin manifests write it in their
 * `Provides` key (`codec` in `codec:zstd`).
 *
 * Returns: %TRUE if @str names a feature kind
 * Since: 1.0
 */
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

char *
_ncz_feature_key (NczFeatureKind  kind,
             const char     *name)
{
  return g_strconcat (ncz_feature_kind_to_string (kind), ":", name, NULL);
}

/* "storage driver 'zip'", "HDF5 filter 32015" */
char *
_ncz_feature_display (NczFeatureKind  kind,
                 const char     *name)
{
  if (kind == NCZ_FEATURE_HDF5_FILTER)
    return g_strdup_printf ("%s %s", feature_kind_label (kind), name);
  return g_strdup_printf ("%s '%s'", feature_kind_label (kind), name);
}

gboolean
_ncz_is_valid_plugin_name (const char *name)
{
  gsize len = 0;

  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++, len++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      return FALSE;
  return len <= NAME_MAX_LENGTH;
}

gboolean
_ncz_is_valid_feature_name (const char *name)
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

      if (!g_ascii_string_to_unsigned (name, 10, 1, NCZ_REGISTRY_HDF5_FILTER_MAX, &id, NULL))
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "feature '%s': an HDF5 filter id is a number from 1 to %d",
                       str, NCZ_REGISTRY_HDF5_FILTER_MAX);
          return NULL;
        }
      g_free (name);
      name = g_strdup_printf ("%" G_GUINT64_FORMAT, id);
    }
  else if (!_ncz_is_valid_feature_name (name))
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
  return _ncz_feature_key (kind, name);
}

/* Scanning manifests (under the lock) */

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
  char *value = g_key_file_get_string (keyfile, NCZ_MANIFEST_GROUP, key, &local_error);

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
               GPtrArray      *claims,
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
  if (!g_key_file_has_group (keyfile, NCZ_MANIFEST_GROUP))
    {
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                   "manifest %s has no [%s] group", path, NCZ_MANIFEST_GROUP);
      return MANIFEST_BROKEN;
    }

  name = manifest_get_string (keyfile, "Name", TRUE, path, error);
  if (name == NULL)
    return MANIFEST_BROKEN;
  if (!_ncz_is_valid_plugin_name (name))
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

  abi = g_key_file_get_int64 (keyfile, NCZ_MANIFEST_GROUP, "Abi", &local_error);
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
  if (g_key_file_has_key (keyfile, NCZ_MANIFEST_GROUP, "Provides", NULL))
    {
      provides = g_key_file_get_string_list (keyfile, NCZ_MANIFEST_GROUP, "Provides",
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
  /* The probe of each format it provides: [Format NAME] */
  for (guint i = 0; i < features->len; i++)
    {
      const char *feature = g_ptr_array_index (features, i);
      g_autofree char *group = NULL;
      NczFormatClaim *claim;

      if (!g_str_has_prefix (feature, "format:"))
        continue;
      group = g_strconcat (NCZ_MANIFEST_FORMAT_GROUP_PREFIX, feature + strlen ("format:"), NULL);
      if (!g_key_file_has_group (keyfile, group))
        continue;
      claim = _ncz_format_claim_from_keyfile (keyfile, feature + strlen ("format:"),
                                              path, error);
      if (claim == NULL)
        {
          g_ptr_array_unref (features);
          return MANIFEST_BROKEN;
        }
      claim->plugin = info;
      g_ptr_array_add (claims, claim);
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
  g_autoptr(GPtrArray) claims = g_ptr_array_new_with_free_func (_ncz_format_claim_unref);
  NczPluginInfo *other;
  const char *module;

  info->manifest_path = g_build_filename (dir, entry, NULL);
  info->name = g_strndup (entry, strlen (entry) - strlen (MANIFEST_SUFFIX));
  g_ptr_array_add (self->plugins, info);

  switch (read_manifest (info, dir, claims, &error))
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
  for (guint i = 0; i < claims->len; i++)
    g_ptr_array_add (self->manifest_claims, _ncz_format_claim_ref (g_ptr_array_index (claims, i)));

  if (_ncz_registry_is_disabled (self, info->name))
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

void
_ncz_registry_ensure_scanned (NczRegistry *self)
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
          NczRegistration *reg = g_ptr_array_index (regs, i);

          if (reg->plugin == NULL)
            g_string_append_printf (out, "  %-20s %s [priority %d]\n",
                                    g_type_name (reg->type), (const char *) key,
                                    reg->priority);
        }
    }
  g_printerr ("%s", out->str);
  g_string_free (out, TRUE);
}
