/* ncz-inspect.c: show Ncz plugin modules; write their manifests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <ncz/ncz.h>

#include "ncz-registry-private.h"

#define PROGRAM "ncz-inspect-1.0"

static char *opt_manifest = NULL;
static char *opt_output = NULL;
static char *opt_name = NULL;
static char *opt_kind = NULL;
static gboolean opt_paths = FALSE;
static gboolean opt_failed = FALSE;
static gboolean opt_json = FALSE;
static gboolean opt_version = FALSE;
static char **opt_args = NULL;

static const GOptionEntry entries[] = {
  { "manifest", 0, 0, G_OPTION_ARG_FILENAME, &opt_manifest,
    "Load MODULE and write its .plugin manifest (with -o)", "MODULE" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
    "Where --manifest writes the manifest", "FILE" },
  { "name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
    "Plugin name for --manifest, instead of deriving it from the module file name", "NAME" },
  { "kind", 0, 0, G_OPTION_ARG_STRING, &opt_kind,
    "List only plugins providing this kind of feature (store, format, codec, hdf5-filter)", "KIND" },
  { "paths", 0, 0, G_OPTION_ARG_NONE, &opt_paths,
    "Show the plugin search path and where each directory comes from", NULL },
  { "failed", 0, 0, G_OPTION_ARG_NONE, &opt_failed,
    "Load every plugin and show those that cannot be used, with the reason", NULL },
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json,
    "Print JSON", NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version,
    "Print the Ncz version and plugin ABI", NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_args,
    NULL, "[NAME]" },
  G_OPTION_ENTRY_NULL
};

/* JSON output */

static void
json_string (GString    *out,
             const char *str)
{
  if (str == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) str; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

static void
json_strv (GString            *out,
           const char * const *strv)
{
  g_string_append_c (out, '[');
  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      json_string (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

/* Plugin helpers */

/* The kind shown for a plugin: that of its first feature other than an
 * HDF5 filter id. */
static const char *
plugin_kind (NczPluginInfo *info)
{
  const char * const *provides = ncz_plugin_info_get_provides (info);
  const char *fallback = "-";

  for (gsize i = 0; provides[i] != NULL; i++)
    {
      if (g_str_has_prefix (provides[i], "hdf5-filter:"))
        {
          fallback = "hdf5-filter";
          continue;
        }
      if (g_str_has_prefix (provides[i], "store:"))
        return "store";
      if (g_str_has_prefix (provides[i], "format:"))
        return "format";
      if (g_str_has_prefix (provides[i], "codec:"))
        return "codec";
    }
  return fallback;
}

static gboolean
plugin_has_kind (NczPluginInfo *info,
                 const char    *kind)
{
  const char * const *provides = ncz_plugin_info_get_provides (info);
  gsize len = strlen (kind);

  for (gsize i = 0; provides[i] != NULL; i++)
    if (strncmp (provides[i], kind, len) == 0 && provides[i][len] == ':')
      return TRUE;
  return FALSE;
}

static const char *
plugin_module (NczPluginInfo *info)
{
  const char *filename = ncz_plugin_info_get_filename (info);
  const char *slash;

  if (filename == NULL)
    return "-";
  slash = strrchr (filename, G_DIR_SEPARATOR);
  return slash != NULL ? slash + 1 : filename;
}

static void
json_plugin (GString       *out,
             NczPluginInfo *info)
{
  const GError *error = ncz_plugin_info_get_error (info);

  g_string_append (out, "{\"name\": ");
  json_string (out, ncz_plugin_info_get_name (info));
  g_string_append (out, ", \"kind\": ");
  json_string (out, plugin_kind (info));
  g_string_append (out, ", \"filename\": ");
  json_string (out, ncz_plugin_info_get_filename (info));
  g_string_append (out, ", \"manifest\": ");
  json_string (out, ncz_plugin_info_get_manifest_path (info));
  g_string_append (out, ", \"version\": ");
  json_string (out, ncz_plugin_info_get_version (info));
  g_string_append (out, ", \"license\": ");
  json_string (out, ncz_plugin_info_get_license (info));
  g_string_append (out, ", \"description\": ");
  json_string (out, ncz_plugin_info_get_description (info));
  g_string_append_printf (out, ", \"abi\": %u, \"provides\": ", ncz_plugin_info_get_abi (info));
  json_strv (out, ncz_plugin_info_get_provides (info));
  g_string_append (out, ", \"status\": ");
  json_string (out, ncz_plugin_status_to_string (ncz_plugin_info_get_status (info)));
  g_string_append (out, ", \"error\": ");
  json_string (out, error != NULL ? error->message : NULL);
  g_string_append_c (out, '}');
}

static void
print_plugin_list (GPtrArray *plugins,
                   gboolean   only_unusable)
{
  if (opt_json)
    {
      GString *out = g_string_new ("[");
      gboolean first = TRUE;

      for (guint i = 0; i < plugins->len; i++)
        {
          NczPluginInfo *info = g_ptr_array_index (plugins, i);

          if (only_unusable && ncz_plugin_info_get_error (info) == NULL)
            continue;
          g_string_append (out, first ? "\n  " : ",\n  ");
          json_plugin (out, info);
          first = FALSE;
        }
      g_string_append (out, first ? "]\n" : "\n]\n");
      fputs (out->str, stdout);
      g_string_free (out, TRUE);
      return;
    }

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      const GError *error = ncz_plugin_info_get_error (info);

      if (only_unusable)
        {
          if (error == NULL)
            continue;
          g_print ("%s  %s  %s\n  %s\n", ncz_plugin_info_get_name (info),
                   ncz_plugin_info_get_manifest_path (info),
                   ncz_plugin_status_to_string (ncz_plugin_info_get_status (info)),
                   error->message);
          continue;
        }
      g_print ("%-12s %-24s %-40s %s\n", plugin_kind (info), ncz_plugin_info_get_name (info),
               plugin_module (info),
               ncz_plugin_status_to_string (ncz_plugin_info_get_status (info)));
    }
}

static GPtrArray *
filter_by_kind (GPtrArray *plugins)
{
  GPtrArray *result = g_ptr_array_new ();

  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);

      if (opt_kind == NULL || plugin_has_kind (info, opt_kind))
        g_ptr_array_add (result, info);
    }
  return result;
}

static int
cmd_list (NczRegistry *registry)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  g_autoptr(GPtrArray) shown = filter_by_kind (plugins);

  print_plugin_list (shown, FALSE);
  return 0;
}

static int
cmd_failed (NczRegistry *registry)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  g_autoptr(GPtrArray) shown = filter_by_kind (plugins);

  for (guint i = 0; i < shown->len; i++)
    ncz_registry_load_plugin (registry, g_ptr_array_index (shown, i), NULL);
  print_plugin_list (shown, TRUE);
  return 0;
}

static int
cmd_paths (NczRegistry *registry)
{
  g_auto(GStrv) path = ncz_registry_get_search_path (registry);
  g_auto(GStrv) sources = ncz_registry_get_search_path_sources (registry);
  GString *out = g_string_new (opt_json ? "[" : NULL);

  for (gsize i = 0; path[i] != NULL; i++)
    {
      gboolean exists = g_file_test (path[i], G_FILE_TEST_IS_DIR);

      if (opt_json)
        {
          g_string_append (out, i == 0 ? "\n  {\"path\": " : ",\n  {\"path\": ");
          json_string (out, path[i]);
          g_string_append (out, ", \"source\": ");
          json_string (out, sources[i]);
          g_string_append_printf (out, ", \"exists\": %s}", exists ? "true" : "false");
        }
      else
        g_string_append_printf (out, "%s  (%s%s)\n", path[i], sources[i],
                                exists ? "" : ", missing");
    }
  if (opt_json)
    g_string_append (out, path[0] != NULL ? "\n]\n" : "]\n");
  else if (path[0] == NULL)
    g_string_append (out, "(the plugin search path is empty)\n");
  fputs (out->str, stdout);
  g_string_free (out, TRUE);
  return 0;
}

static NczPluginInfo *
find_plugin (GPtrArray  *plugins,
             const char *name)
{
  /* By plugin name first, then by a feature name (zstd, 32015, s3). */
  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);

      if (strcmp (ncz_plugin_info_get_name (info), name) == 0)
        return info;
    }
  for (guint i = 0; i < plugins->len; i++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, i);
      const char * const *provides = ncz_plugin_info_get_provides (info);

      for (gsize j = 0; provides[j] != NULL; j++)
        {
          const char *colon = strchr (provides[j], ':');

          if (colon != NULL && strcmp (colon + 1, name) == 0)
            return info;
        }
    }
  return NULL;
}

static int
cmd_details (NczRegistry *registry,
             const char  *name)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  NczPluginInfo *info = find_plugin (plugins, name);
  const GError *error;

  if (info == NULL)
    {
      g_printerr ("%s: no plugin named '%s' or providing '%s'\n", PROGRAM, name, name);
      return 1;
    }

  ncz_registry_load_plugin (registry, info, NULL);
  error = ncz_plugin_info_get_error (info);

  if (opt_json)
    {
      GString *out = g_string_new (NULL);

      json_plugin (out, info);
      g_string_append_c (out, '\n');
      fputs (out->str, stdout);
      g_string_free (out, TRUE);
    }
  else
    {
      g_autofree char *provides = g_strjoinv (" ", (char **) ncz_plugin_info_get_provides (info));

#define FIELD(label, value) g_print ("%-13s %s\n", label, (value) != NULL ? (value) : "-")
      FIELD ("Name", ncz_plugin_info_get_name (info));
      FIELD ("Module", ncz_plugin_info_get_filename (info));
      FIELD ("Manifest", ncz_plugin_info_get_manifest_path (info));
      FIELD ("Version", ncz_plugin_info_get_version (info));
      FIELD ("License", ncz_plugin_info_get_license (info));
      g_print ("%-13s %u\n", "ABI", ncz_plugin_info_get_abi (info));
      FIELD ("Description", ncz_plugin_info_get_description (info));
      FIELD ("Provides", provides);
      FIELD ("Status", ncz_plugin_status_to_string (ncz_plugin_info_get_status (info)));
      if (error != NULL)
        FIELD ("Error", error->message);
#undef FIELD
    }
  return error != NULL ? 1 : 0;
}

/* --manifest */

/* libncz-store-file.so → file, libncz-backend-nczarr.so → nczarr,
 * libncz-codec-zstd.so → zstd: strip "lib", "ncz-", one kind prefix and
 * the module suffix. */
static char *
name_from_module_filename (const char *filename)
{
  static const char * const kind_prefixes[] = {
    "store-", "backend-", "format-", "codec-", "plugin-",
  };
  g_autofree char *base = g_path_get_basename (filename);
  const char *start = base;
  char *suffix;

  suffix = g_strrstr (base, "." G_MODULE_SUFFIX);
  if (suffix != NULL)
    *suffix = '\0';
  if (g_str_has_prefix (start, "lib"))
    start += strlen ("lib");
  if (g_str_has_prefix (start, "ncz-"))
    start += strlen ("ncz-");
  for (gsize i = 0; i < G_N_ELEMENTS (kind_prefixes); i++)
    if (g_str_has_prefix (start, kind_prefixes[i]))
      {
        start += strlen (kind_prefixes[i]);
        break;
      }
  return g_strdup (start);
}

static int
cmd_manifest (void)
{
  g_autoptr(NczRegistry) scratch = NULL;
  g_autoptr(NczPluginInfo) info = NULL;
  g_autoptr(GKeyFile) keyfile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *module = NULL;
  g_autofree char *provides = NULL;
  g_autofree char *data = NULL;
  g_auto(GStrv) registered = NULL;
  gsize length;

  if (opt_output == NULL)
    {
      g_printerr ("%s: --manifest needs -o FILE\n", PROGRAM);
      return 2;
    }

  name = opt_name != NULL ? g_strdup (opt_name) : name_from_module_filename (opt_manifest);
  module = g_path_get_basename (opt_manifest);

  scratch = ncz_registry_new (NULL);
  info = ncz_registry_load_module (scratch, opt_manifest, name, &error);
  if (info == NULL)
    {
      g_printerr ("%s: %s\n", PROGRAM, error->message);
      if (opt_name == NULL && strstr (error->message, "no entry point") != NULL)
        g_printerr ("%s: the entry point ncz_plugin_NAME_describe was looked up with NAME "
                    "'%s', derived from the file name; use --name to give another\n",
                    PROGRAM, name);
      return 1;
    }

  registered = ncz_plugin_info_dup_registered (info);
  if (registered[0] == NULL)
    {
      g_printerr ("%s: %s registered no storage driver, format backend or codec\n",
                  PROGRAM, opt_manifest);
      return 1;
    }

  keyfile = g_key_file_new ();
  g_key_file_set_string (keyfile, "Plugin", "Module", module);
  g_key_file_set_string (keyfile, "Plugin", "Name", name);
  g_key_file_set_integer (keyfile, "Plugin", "Abi", NCZ_PLUGIN_ABI);
  if (ncz_plugin_info_get_version (info) != NULL)
    g_key_file_set_string (keyfile, "Plugin", "Version", ncz_plugin_info_get_version (info));
  if (ncz_plugin_info_get_license (info) != NULL)
    g_key_file_set_string (keyfile, "Plugin", "License", ncz_plugin_info_get_license (info));
  if (ncz_plugin_info_get_description (info) != NULL)
    g_key_file_set_string (keyfile, "Plugin", "Description",
                           ncz_plugin_info_get_description (info));
  provides = g_strjoinv (";", registered);
  g_key_file_set_value (keyfile, "Plugin", "Provides", provides);
  g_key_file_set_comment (keyfile, NULL, NULL,
                          " Written by " PROGRAM " --manifest; do not edit.", NULL);

  data = g_key_file_to_data (keyfile, &length, NULL);
  if (!g_file_set_contents (opt_output, data, length, &error))
    {
      g_printerr ("%s: %s\n", PROGRAM, error->message);
      return 1;
    }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  NczRegistry *registry;
  int status;

  setlocale (LC_ALL, "");

  context = g_option_context_new ("- show Ncz plugins");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Without arguments, lists every plugin found (kind, name, module, status).\n"
    "With NAME (a plugin name, or a feature such as zstd or 32015), loads that\n"
    "plugin and shows its details.\n"
    "\n"
    "--manifest derives the plugin name from the module file name by removing\n"
    "\"lib\", \"ncz-\", a kind prefix (store-, backend-, format-, codec-, plugin-)\n"
    "and the suffix: libncz-codec-zstd.so exports ncz_plugin_zstd_describe.\n"
    "A '-' in the name is written '_' in the entry point.\n"
    "\n"
    "Environment: NCZ_PLUGIN_PATH, NCZ_PLUGIN_SYSTEM_PATH, NCZ_PLUGIN_DISABLE,\n"
    "NCZ_PLUGIN_PRIORITY (=help lists the choices).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s: %s\n", PROGRAM, error->message);
      return 2;
    }

  if (opt_version)
    {
      g_print ("%s %s (plugin ABI %d)\n", PROGRAM, NCZ_VERSION, NCZ_PLUGIN_ABI);
      return 0;
    }
  if (opt_kind != NULL && !ncz_feature_kind_from_string (opt_kind, NULL))
    {
      g_printerr ("%s: unknown kind '%s' (store, format, codec, hdf5-filter)\n",
                  PROGRAM, opt_kind);
      return 2;
    }
  if (opt_args != NULL && opt_args[0] != NULL && opt_args[1] != NULL)
    {
      g_printerr ("%s: give at most one NAME\n", PROGRAM);
      return 2;
    }

  if (opt_manifest != NULL)
    status = cmd_manifest ();
  else
    {
      registry = ncz_registry_get_default ();
      if (opt_paths)
        status = cmd_paths (registry);
      else if (opt_failed)
        status = cmd_failed (registry);
      else if (opt_args != NULL && opt_args[0] != NULL)
        status = cmd_details (registry, opt_args[0]);
      else
        status = cmd_list (registry);
    }

  g_free (opt_manifest);
  g_free (opt_output);
  g_free (opt_name);
  g_free (opt_kind);
  g_strfreev (opt_args);
  return status;
}
