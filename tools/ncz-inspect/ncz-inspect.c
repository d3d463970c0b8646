/* ncz-inspect.c: show Ncz plugin modules and foreign filter libraries;
 * write the modules' manifests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <ncz/ncz.h>

#include <ncz/ncz-filter-abi.h>
#include "ncz-foreign-scan.h"

#define PROGRAM "ncz-inspect-1.0"

static char *opt_manifest = NULL;
static char *opt_output = NULL;
static char *opt_name = NULL;
static char *opt_kind = NULL;
static gboolean opt_paths = FALSE;
static gboolean opt_failed = FALSE;
static gboolean opt_json = FALSE;
static gboolean opt_version = FALSE;
static gboolean opt_foreign = FALSE;
static char *opt_exists = NULL;
static char *opt_atleast = NULL;
static char **opt_args = NULL;

static const GOptionEntry entries[] = {
  { "manifest", 0, 0, G_OPTION_ARG_FILENAME, &opt_manifest,
    "Load MODULE and write its .plugin manifest (with -o)", "MODULE" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
    "Where --manifest writes the manifest", "FILE" },
  { "name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
    "Plugin name for --manifest, instead of deriving it from the module file name", "NAME" },
  { "kind", 0, 0, G_OPTION_ARG_STRING, &opt_kind,
    "List only plugins providing this kind of feature (store, format, codec, hdf5-filter, "
    "codec-provider), or only the foreign libraries (foreign)", "KIND" },
  { "foreign", 0, 0, G_OPTION_ARG_NONE, &opt_foreign,
    "Show only the foreign filter libraries (HDF5_PLUGIN_PATH) and their pairing table", NULL },
  { "exists", 0, 0, G_OPTION_ARG_STRING, &opt_exists,
    "Exit with status 0 if NAME (a plugin, or a feature such as zstd or 32015) is usable, "
    "else 1; print nothing", "NAME" },
  { "atleast-version", 0, 0, G_OPTION_ARG_STRING, &opt_atleast,
    "With --exists: the plugin's version must be at least VERSION", "VERSION" },
  { "paths", 0, 0, G_OPTION_ARG_NONE, &opt_paths,
    "Show the search paths (Ncz modules, foreign libraries) and where each directory comes from",
    NULL },
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

static void
json_bool (GString  *out,
           gboolean  value)
{
  g_string_append (out, value ? "true" : "false");
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
      if (g_str_has_prefix (provides[i], "codec-provider:"))
        return "codec-provider";
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

/* The members of a plugin's JSON object, without the braces. */
static void
json_plugin_members (GString       *out,
                     NczPluginInfo *info)
{
  const GError *error = ncz_plugin_info_get_error (info);

  g_string_append (out, "\"name\": ");
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
}

static void
json_plugin (GString       *out,
             NczPluginInfo *info)
{
  g_string_append_c (out, '{');
  json_plugin_members (out, info);
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
      g_print ("%-14s %-24s %-40s %s\n", plugin_kind (info), ncz_plugin_info_get_name (info),
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

/* Foreign filter libraries (codec-registry/ncz-foreign-scan.h) */

static gboolean
row_in_pairing_table (const NczForeignRow *row)
{
  return row->status == NCZ_FOREIGN_USABLE || row->status == NCZ_FOREIGN_HDF5_ONLY ||
         row->status == NCZ_FOREIGN_CODEC_ONLY;
}

static const char *
basename_of (const char *path)
{
  const char *slash;

  if (path == NULL)
    return NULL;
  slash = strrchr (path, G_DIR_SEPARATOR);
  return slash != NULL ? slash + 1 : path;
}

static void
json_foreign_row (GString             *out,
                  const NczForeignRow *row)
{
  g_string_append (out, "{\"filter_id\": ");
  if (row->filter_id != 0)
    g_string_append_printf (out, "%u", row->filter_id);
  else
    g_string_append (out, "null");
  g_string_append (out, ", \"codec_id\": ");
  json_string (out, row->codec_id);
  g_string_append (out, ", \"status\": ");
  json_string (out, ncz_foreign_status_to_string (row->status));
  g_string_append (out, ", \"library\": ");
  json_string (out, row->library);
  g_string_append (out, ", \"hdf5_library\": ");
  json_string (out, row->hdf5_library);
  g_string_append (out, ", \"codec_library\": ");
  json_string (out, row->codec_library);
  g_string_append (out, ", \"hdf5_name\": ");
  json_string (out, row->hdf5_name);
  g_string_append (out, ", \"codec_is_default\": ");
  json_bool (out, row->codec_is_default);
  g_string_append (out, ", \"reason\": ");
  json_string (out, row->reason);
  g_string_append_c (out, '}');
}

static void
json_foreign_rows (GString        *out,
                   NczForeignScan *scan,
                   gboolean        pairing)
{
  guint n = ncz_foreign_scan_get_n_rows (scan);
  gboolean first = TRUE;

  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

      if (row_in_pairing_table (row) != pairing)
        continue;
      g_string_append (out, first ? "\n    " : ",\n    ");
      json_foreign_row (out, row);
      first = FALSE;
    }
  g_string_append (out, first ? "]" : "\n  ]");
}

static void
json_foreign_paths (GString        *out,
                    NczForeignScan *scan,
                    const char     *indent)
{
  const char * const *path = ncz_foreign_scan_get_search_path (scan);

  g_string_append_c (out, '[');
  for (guint i = 0; path[i] != NULL; i++)
    {
      g_string_append_printf (out, "%s\n%s  {\"path\": ", i == 0 ? "" : ",", indent);
      json_string (out, path[i]);
      g_string_append (out, ", \"source\": ");
      json_string (out, ncz_foreign_scan_get_search_path_source (scan, i));
      g_string_append (out, ", \"exists\": ");
      json_bool (out, ncz_foreign_scan_get_search_path_exists (scan, i));
      g_string_append_c (out, '}');
    }
  g_string_append_printf (out, path[0] != NULL ? "\n%s]" : "]", indent);
}

/* --foreign --json: {"search_path": [...], "host_libraries": [...],
 * "pairing": [rows], "skipped": [rows]} */
static void
print_foreign_json (NczForeignScan *scan)
{
  GString *out = g_string_new ("{\n  \"search_path\": ");

  json_foreign_paths (out, scan, "  ");
  g_string_append (out, ",\n  \"host_libraries\": ");
  json_strv (out, ncz_foreign_scan_get_host_libraries (scan));
  g_string_append (out, ",\n  \"pairing\": ");
  json_foreign_rows (out, scan, TRUE);
  g_string_append (out, ",\n  \"skipped\": ");
  json_foreign_rows (out, scan, FALSE);
  g_string_append (out, "\n}\n");
  fputs (out->str, stdout);
  g_string_free (out, TRUE);
}

static void
print_foreign_text (NczForeignScan *scan,
                    gboolean        always)
{
  const char * const *path = ncz_foreign_scan_get_search_path (scan);
  const char * const *hosts = ncz_foreign_scan_get_host_libraries (scan);
  guint n = ncz_foreign_scan_get_n_rows (scan);
  gboolean any_pairing = FALSE, any_skipped = FALSE;

  if (n == 0 && !always)
    return;

  g_print ("Foreign filter libraries (HDF5 plugin ABI, netcdf-c Codec ABI) in");
  for (guint i = 0; path[i] != NULL; i++)
    g_print ("%s %s (%s%s)", i == 0 ? "" : ",", path[i],
             ncz_foreign_scan_get_search_path_source (scan, i),
             ncz_foreign_scan_get_search_path_exists (scan, i) ? "" : ", missing");
  g_print (path[0] == NULL ? " no directory\n" : "\n");
  if (hosts != NULL && hosts[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) hosts);
      g_print ("Host libraries made global for them: %s\n", joined);
    }

  for (guint i = 0; i < n; i++)
    {
      const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

      if (!row_in_pairing_table (row))
        continue;
      if (!any_pairing)
        g_print ("%-7s %-12s %-11s %-26s %-26s %s\n", "filter", "codec", "status",
                 "HDF5 library", "Codec library", "HDF5 name");
      any_pairing = TRUE;
      g_print ("%-7u %-12s %-11s %-26s %-26s %s\n", row->filter_id,
               row->codec_id != NULL ? row->codec_id : "-",
               ncz_foreign_status_to_string (row->status),
               row->hdf5_library != NULL ? basename_of (row->hdf5_library) : "-",
               row->codec_library != NULL ? basename_of (row->codec_library) : "-",
               row->hdf5_name != NULL ? row->hdf5_name : "-");
      if (row->codec_is_default)
        g_print ("        (Codec part from a defaults library)\n");
      if (row->reason != NULL)
        g_print ("        %s\n", row->reason);
    }
  if (!any_pairing)
    g_print ("(no HDF5 filter or Codec library found)\n");

  for (guint i = 0; i < n; i++)
    {
      const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

      if (row_in_pairing_table (row))
        continue;
      if (!any_skipped)
        g_print ("Skipped:\n");
      any_skipped = TRUE;
      g_print ("  %s  %s", row->library, ncz_foreign_status_to_string (row->status));
      if (row->filter_id != 0)
        g_print (" (filter %u)", row->filter_id);
      g_print (": %s\n", row->reason != NULL ? row->reason : "-");
    }
}

/* A foreign row by filter id ("32000"), codec id or library file name. */
static const NczForeignRow *
find_foreign (NczForeignScan *scan,
              const char     *name)
{
  guint64 id;
  const NczForeignRow *row = NULL;
  guint n = ncz_foreign_scan_get_n_rows (scan);

  if (g_ascii_string_to_unsigned (name, 10, 1, G_MAXUINT, &id, NULL))
    row = ncz_foreign_scan_lookup (scan, (guint) id, NULL);
  if (row == NULL)
    row = ncz_foreign_scan_lookup (scan, 0, name);
  for (guint i = 0; row == NULL && i < n; i++)
    {
      const NczForeignRow *r = ncz_foreign_scan_get_row (scan, i);

      if (g_strcmp0 (r->library, name) == 0 || g_strcmp0 (basename_of (r->library), name) == 0)
        row = r;
    }
  return row;
}

static int
cmd_foreign (void)
{
  NczForeignScan *scan = ncz_foreign_scan_get_default ();

  if (opt_json)
    print_foreign_json (scan);
  else
    print_foreign_text (scan, TRUE);
  return 0;
}

static char *codec_example (NczCodec *codec, GError **error);

/* The codec JSON example of a usable foreign filter, through the codec
 * provider that serves it (the codec-registry module), or NULL. */
static char *
foreign_example (NczRegistry         *registry,
                 const NczForeignRow *row)
{
  g_autoptr(NczCodec) codec = NULL;

  if (row->status != NCZ_FOREIGN_USABLE || row->codec_id == NULL)
    return NULL;
  codec = ncz_registry_lookup_codec (registry, row->codec_id, NULL);
  return codec != NULL ? codec_example (codec, NULL) : NULL;
}

static int
details_foreign (NczRegistry         *registry,
                 const NczForeignRow *row)
{
  g_autofree char *example = foreign_example (registry, row);

  if (opt_json)
    {
      GString *out = g_string_new (NULL);

      json_foreign_row (out, row);
      /* add the example to the row's object */
      g_string_truncate (out, out->len - 1);
      g_string_append_printf (out, ", \"example\": %s}", example != NULL ? example : "null");
      g_string_append_c (out, '\n');
      fputs (out->str, stdout);
      g_string_free (out, TRUE);
    }
  else
    {
#define FIELD(label, value) g_print ("%-13s %s\n", label, (value) != NULL ? (value) : "-")
      g_autofree char *id = row->filter_id != 0 ? g_strdup_printf ("%u", row->filter_id) : NULL;

      FIELD ("Library", row->library);
      FIELD ("Kind", "foreign filter library (HDF5_PLUGIN_PATH)");
      FIELD ("HDF5 filter", id);
      FIELD ("HDF5 name", row->hdf5_name);
      FIELD ("Codec", row->codec_id);
      FIELD ("HDF5 library", row->hdf5_library);
      FIELD ("Codec library", row->codec_library);
      if (row->codec_is_default)
        FIELD ("Codec from", "a defaults library (NCZ_codec_info_defaults)");
      FIELD ("Status", ncz_foreign_status_to_string (row->status));
      if (row->reason != NULL)
        FIELD ("Reason", row->reason);
      if (example != NULL)
        g_print ("%-13s %s  (default parameters)\n", "Codec JSON", example);
#undef FIELD
    }
  return row->status == NCZ_FOREIGN_USABLE ? 0 : 1;
}

static int
cmd_list (NczRegistry *registry)
{
  g_autoptr(GPtrArray) plugins = ncz_registry_list_plugins (registry);
  g_autoptr(GPtrArray) shown = filter_by_kind (plugins);

  print_plugin_list (shown, FALSE);
  /* The foreign libraries follow the modules in the text listing (when
   * there are any); --foreign --json gives them to scripts. */
  if (!opt_json && opt_kind == NULL)
    {
      NczForeignScan *scan = ncz_foreign_scan_get_default ();

      if (ncz_foreign_scan_get_n_rows (scan) > 0)
        {
          g_print ("\n");
          print_foreign_text (scan, FALSE);
        }
    }
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
  /* and the foreign libraries that were skipped as unusable */
  if (!opt_json && opt_kind == NULL)
    {
      NczForeignScan *scan = ncz_foreign_scan_get_default ();
      guint n = ncz_foreign_scan_get_n_rows (scan);

      for (guint i = 0; i < n; i++)
        {
          const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

          if (row->status == NCZ_FOREIGN_BROKEN)
            g_print ("%s  (foreign library)  broken\n  %s\n", row->library,
                     row->reason != NULL ? row->reason : "-");
        }
    }
  return 0;
}

static int
cmd_paths (NczRegistry *registry)
{
  g_auto(GStrv) path = ncz_registry_get_search_path (registry);
  g_auto(GStrv) sources = ncz_registry_get_search_path_sources (registry);
  NczForeignScan *scan = ncz_foreign_scan_get_default ();
  const char * const *foreign = ncz_foreign_scan_get_search_path (scan);
  GString *out = g_string_new (opt_json ? "[" : "Ncz plugin modules (.plugin manifests):\n");
  gboolean first = TRUE;

  for (gsize i = 0; path[i] != NULL; i++)
    {
      gboolean exists = g_file_test (path[i], G_FILE_TEST_IS_DIR);

      if (opt_json)
        {
          g_string_append (out, first ? "\n  {\"path\": " : ",\n  {\"path\": ");
          json_string (out, path[i]);
          g_string_append (out, ", \"source\": ");
          json_string (out, sources[i]);
          g_string_append_printf (out, ", \"exists\": %s, \"for\": \"modules\"}",
                                  exists ? "true" : "false");
          first = FALSE;
        }
      else
        g_string_append_printf (out, "  %s  (%s%s)\n", path[i], sources[i],
                                exists ? "" : ", missing");
    }
  if (!opt_json && path[0] == NULL)
    g_string_append (out, "  (the plugin search path is empty)\n");

  if (!opt_json)
    g_string_append (out, "Foreign filter libraries (HDF5 plugins, netcdf-c Codec libraries):\n");
  for (guint i = 0; foreign[i] != NULL; i++)
    {
      gboolean exists = ncz_foreign_scan_get_search_path_exists (scan, i);
      const char *source = ncz_foreign_scan_get_search_path_source (scan, i);

      if (opt_json)
        {
          g_string_append (out, first ? "\n  {\"path\": " : ",\n  {\"path\": ");
          json_string (out, foreign[i]);
          g_string_append (out, ", \"source\": ");
          json_string (out, source);
          g_string_append_printf (out, ", \"exists\": %s, \"for\": \"foreign-libraries\"}",
                                  exists ? "true" : "false");
          first = FALSE;
        }
      else
        g_string_append_printf (out, "  %s  (%s%s)\n", foreign[i], source,
                                exists ? "" : ", missing");
    }
  if (!opt_json && foreign[0] == NULL)
    g_string_append (out, "  (none)\n");
  if (opt_json)
    g_string_append (out, first ? "]\n" : "\n]\n");
  fputs (out->str, stdout);
  g_string_free (out, TRUE);
  return 0;
}

/* Format probes: what each format the plugin provides claims, as the
 * lines of its manifest's [Format NAME] group */

static void
json_probes (GString       *out,
             NczRegistry   *registry,
             NczPluginInfo *info)
{
  const char * const *provides = ncz_plugin_info_get_provides (info);
  gboolean first = TRUE;

  g_string_append (out, ", \"probes\": {");
  for (gsize i = 0; provides[i] != NULL; i++)
    {
      g_auto(GStrv) lines = NULL;

      if (!g_str_has_prefix (provides[i], "format:"))
        continue;
      lines = ncz_registry_describe_format_probe (registry, provides[i] + strlen ("format:"));
      if (lines == NULL)
        continue;
      if (!first)
        g_string_append (out, ", ");
      json_string (out, provides[i] + strlen ("format:"));
      g_string_append (out, ": ");
      json_strv (out, (const char * const *) lines);
      first = FALSE;
    }
  g_string_append_c (out, '}');
}

static void
print_probes (NczRegistry   *registry,
              NczPluginInfo *info)
{
  const char * const *provides = ncz_plugin_info_get_provides (info);

  for (gsize i = 0; provides[i] != NULL; i++)
    {
      g_auto(GStrv) lines = NULL;
      g_autofree char *joined = NULL;

      if (!g_str_has_prefix (provides[i], "format:"))
        continue;
      lines = ncz_registry_describe_format_probe (registry, provides[i] + strlen ("format:"));
      if (lines == NULL)
        continue;
      joined = g_strjoinv ("  ", lines);
      g_print ("%-13s %s: %s\n", "Probe", provides[i] + strlen ("format:"), joined);
    }
}

/* Codec details */

typedef struct {
  char *codec_id;
  guint filter_id;
  char *example;            /* codec JSON of the default parameters, or NULL */
  char *example_error;
  gboolean has_h5;          /* the module exports the HDF5 plugin ABI */
  int h5_id;
  char *h5_name;
  gboolean has_codec_abi;   /* the module exports the netcdf-c Codec ABI */
  char *abi_codec_id;
  guint abi_filter_id;
} CodecDetails;

static void
codec_details_free (CodecDetails *d)
{
  g_free (d->codec_id);
  g_free (d->example);
  g_free (d->example_error);
  g_free (d->h5_name);
  g_free (d->abi_codec_id);
  g_free (d);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CodecDetails, codec_details_free)

/* The codec JSON of @codec's default parameters: those it reads from a
 * dict holding only the id, written back. */
static char *
codec_example (NczCodec  *codec,
               GError   **error)
{
  g_autofree char *bare = g_strdup_printf ("{\"id\": \"%s\"}", ncz_codec_get_codec_id (codec));
  g_autoptr(GArray) params = NULL;
  g_autoptr(GError) local_error = NULL;
  char *json;

  if (ncz_codec_params_from_json_text (codec, bare, &params, &local_error))
    return ncz_codec_params_to_json_text (codec, (const guint *) params->data, params->len, error);
  json = ncz_codec_params_to_json_text (codec, NULL, 0, NULL);
  if (json == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return json;
}

/* The HDF5 and netcdf-c ABIs the module exports beside Ncz's entry point
 * (the same .so serves the three hosts). */
static void
codec_abis (NczPluginInfo *info,
            CodecDetails  *d)
{
  gpointer type_func = NULL, info_func = NULL, codec_func = NULL;

  if (!ncz_plugin_info_is_loaded (info))
    return;
  if (ncz_plugin_info_lookup_symbol (info, "H5PLget_plugin_type", &type_func) &&
      ncz_plugin_info_lookup_symbol (info, "H5PLget_plugin_info", &info_func) &&
      ((NczH5PLGetPluginTypeFunc) type_func) () == NCZ_H5PL_TYPE_FILTER)
    {
      const NczH5ZClass2 *cls = ((NczH5PLGetPluginInfoFunc) info_func) ();

      if (cls != NULL && cls->version == NCZ_H5Z_CLASS_T_VERS)
        {
          d->has_h5 = TRUE;
          d->h5_id = cls->id;
          d->h5_name = g_strdup (cls->name);
        }
    }
  if (ncz_plugin_info_lookup_symbol (info, "NCZ_get_codec_info", &codec_func))
    {
      const NczAbiCodec *c = ((const void *(*) (void)) codec_func) ();

      if (c != NULL && c->version == NCZ_ABI_CODEC_CLASS_VER && c->sort == NCZ_ABI_CODEC_HDF5)
        {
          d->has_codec_abi = TRUE;
          d->abi_codec_id = g_strdup (c->codecid);
          d->abi_filter_id = c->hdf5id;
        }
    }
}

/* One entry per codec the (loaded) plugin registered. */
static GPtrArray *
plugin_codecs (NczRegistry   *registry,
               NczPluginInfo *info)
{
  g_auto(GStrv) registered = ncz_plugin_info_dup_registered (info);
  GPtrArray *codecs = g_ptr_array_new_with_free_func ((GDestroyNotify) codec_details_free);

  for (gsize i = 0; registered[i] != NULL; i++)
    {
      g_autoptr(NczCodec) codec = NULL;
      g_autoptr(GError) error = NULL;
      CodecDetails *d;

      if (!g_str_has_prefix (registered[i], "codec:"))
        continue;
      d = g_new0 (CodecDetails, 1);
      d->codec_id = g_strdup (registered[i] + strlen ("codec:"));
      codec = ncz_registry_lookup_codec (registry, d->codec_id, &error);
      if (codec != NULL)
        {
          d->filter_id = ncz_codec_get_filter_id (codec);
          d->example = codec_example (codec, &error);
        }
      if (d->example == NULL)
        d->example_error = g_strdup (error != NULL ? error->message : "no example");
      codec_abis (info, d);
      g_ptr_array_add (codecs, d);
    }
  return codecs;
}

static void
json_codec_details (GString      *out,
                    CodecDetails *d)
{
  g_string_append (out, "{\"codec_id\": ");
  json_string (out, d->codec_id);
  g_string_append_printf (out, ", \"filter_id\": %u, \"example\": ", d->filter_id);
  /* the codec's own JSON text, embedded as it is */
  g_string_append (out, d->example != NULL ? d->example : "null");
  g_string_append (out, ", \"example_error\": ");
  json_string (out, d->example_error);
  g_string_append (out, ", \"hdf5_abi\": ");
  if (d->has_h5)
    {
      g_string_append_printf (out, "{\"filter_id\": %d, \"name\": ", d->h5_id);
      json_string (out, d->h5_name);
      g_string_append_c (out, '}');
    }
  else
    g_string_append (out, "null");
  g_string_append (out, ", \"codec_abi\": ");
  if (d->has_codec_abi)
    {
      g_string_append (out, "{\"codec_id\": ");
      json_string (out, d->abi_codec_id);
      g_string_append_printf (out, ", \"filter_id\": %u}", d->abi_filter_id);
    }
  else
    g_string_append (out, "null");
  g_string_append_c (out, '}');
}

static void
print_codec_details (CodecDetails *d)
{
  g_print ("%-13s %s\n", "Codec", d->codec_id);
  if (d->filter_id != 0)
    g_print ("%-13s %u\n", "HDF5 filter", d->filter_id);
  else
    g_print ("%-13s %s\n", "HDF5 filter", "-");
  if (d->example != NULL)
    g_print ("%-13s %s  (default parameters)\n", "Codec JSON", d->example);
  else
    g_print ("%-13s - (%s)\n", "Codec JSON", d->example_error);
  if (d->has_h5)
    g_print ("%-13s H5PLget_plugin_info: filter %d \"%s\"\n", "HDF5 ABI", d->h5_id,
             d->h5_name != NULL ? d->h5_name : "");
  if (d->has_codec_abi)
    g_print ("%-13s NCZ_get_codec_info: \"%s\" <-> %u\n", "Codec ABI",
             d->abi_codec_id != NULL ? d->abi_codec_id : "", d->abi_filter_id);
}

static int
cmd_details (NczRegistry *registry,
             const char  *name)
{
  g_autoptr(GPtrArray) codecs = NULL;
  g_autoptr(GError) not_found = NULL;
  NczPluginInfo *info = ncz_registry_find_plugin (registry, name, &not_found);
  const GError *error;

  if (info == NULL)
    {
      const NczForeignRow *row = find_foreign (ncz_foreign_scan_get_default (), name);

      if (row != NULL)
        return details_foreign (registry, row);
      /* a plugin Ncz knows of but is not installed names the package */
      if (g_error_matches (not_found, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND))
        g_printerr ("%s: %s; no foreign filter library is named '%s' either\n",
                    PROGRAM, not_found->message, name);
      else
        g_printerr ("%s: %s\n", PROGRAM, not_found->message);
      return 1;
    }

  ncz_registry_load_plugin (registry, info, NULL);
  error = ncz_plugin_info_get_error (info);
  codecs = plugin_codecs (registry, info);

  if (opt_json)
    {
      GString *out = g_string_new ("{");

      json_plugin_members (out, info);
      g_string_append (out, ", \"codecs\": [");
      for (guint i = 0; i < codecs->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          json_codec_details (out, g_ptr_array_index (codecs, i));
        }
      g_string_append_c (out, ']');
      json_probes (out, registry, info);
      g_string_append (out, "}\n");
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
      print_probes (registry, info);
      if (plugin_has_kind (info, "codec-provider"))
        {
          NczForeignScan *scan = ncz_foreign_scan_get_default ();
          guint n = ncz_foreign_scan_get_n_rows (scan), usable = 0, hdf5_only = 0, skipped = 0;

          for (guint i = 0; i < n; i++)
            {
              const NczForeignRow *row = ncz_foreign_scan_get_row (scan, i);

              usable += row->status == NCZ_FOREIGN_USABLE;
              hdf5_only += row->status == NCZ_FOREIGN_HDF5_ONLY;
              skipped += !row_in_pairing_table (row);
            }
          g_print ("%-13s %u usable, %u HDF5-only filters; %u libraries skipped "
                   "(" PROGRAM " --foreign)\n", "Foreign", usable, hdf5_only, skipped);
        }
      for (guint i = 0; i < codecs->len; i++)
        {
          CodecDetails *d = g_ptr_array_index (codecs, i);
          const NczForeignRow *row;

          print_codec_details (d);
          row = d->filter_id != 0
                ? ncz_foreign_scan_lookup (ncz_foreign_scan_get_default (), d->filter_id, NULL)
                : NULL;
          if (row != NULL)
            g_print ("%-13s %s also provides filter %u (%s); this module is used\n", "Foreign",
                     basename_of (row->library), row->filter_id,
                     ncz_foreign_status_to_string (row->status));
        }
    }
  return error != NULL ? 1 : 0;
}

/* --exists NAME [--atleast-version V] */

/* Compares dotted version strings number by number ("1.10" > "1.9");
 * a missing number counts as 0. */
static int
compare_versions (const char *a,
                  const char *b)
{
  while (*a != '\0' || *b != '\0')
    {
      guint64 x = g_ascii_strtoull (a, (char **) &a, 10);
      guint64 y = g_ascii_strtoull (b, (char **) &b, 10);

      if (x != y)
        return x < y ? -1 : 1;
      while (*a != '\0' && *a != '.')
        a++;
      while (*b != '\0' && *b != '.')
        b++;
      if (*a == '.')
        a++;
      if (*b == '.')
        b++;
    }
  return 0;
}

static int
cmd_exists (NczRegistry *registry,
            const char  *name)
{
  NczPluginInfo *info = ncz_registry_find_plugin (registry, name, NULL);
  const NczForeignRow *row;

  if (info != NULL)
    {
      const char *version = ncz_plugin_info_get_version (info);

      if (!ncz_registry_load_plugin (registry, info, NULL))
        return 1;
      if (opt_atleast != NULL && (version == NULL || compare_versions (version, opt_atleast) < 0))
        return 1;
      return 0;
    }
  /* A foreign filter usable for NCZarr has no version to compare. */
  row = find_foreign (ncz_foreign_scan_get_default (), name);
  return row != NULL && row->status == NCZ_FOREIGN_USABLE && opt_atleast == NULL ? 0 : 1;
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
  /* What each format claims, for choosing the format of a URL without
   * loading the module: [Format NAME] */
  for (gsize i = 0; registered[i] != NULL; i++)
    {
      g_auto(GStrv) probe = NULL;
      g_autofree char *group = NULL;

      if (!g_str_has_prefix (registered[i], "format:"))
        continue;
      probe = ncz_registry_describe_format_probe (scratch, registered[i] + strlen ("format:"));
      if (probe == NULL)
        continue;
      group = g_strconcat ("Format ", registered[i] + strlen ("format:"), NULL);
      for (gsize j = 0; probe[j] != NULL; j++)
        {
          const char *eq = strchr (probe[j], '=');
          g_autofree char *key = NULL;

          if (eq == NULL)
            continue;
          key = g_strndup (probe[j], eq - probe[j]);
          g_key_file_set_value (keyfile, group, key, eq + 1);
        }
    }
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

  context = g_option_context_new ("[NAME] - show Ncz plugins and foreign filter libraries");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Without arguments, lists every plugin found (kind, name, module, status),\n"
    "then the foreign filter libraries found in HDF5_PLUGIN_PATH (or else\n"
    "/usr/local/hdf5/lib/plugin) with their row of the pairing table: HDF5\n"
    "filter id, Codec id, the HDF5 and Codec libraries, and whether the filter\n"
    "is usable for NCZarr (usable: both parts; hdf5-only: not until a Codec\n"
    "library for the same id is present; codec-only: ignored), and the\n"
    "libraries that were skipped, with the reason.\n"
    "With NAME (a plugin name, a feature such as zstd or 32015, or a foreign\n"
    "library or filter id), loads that plugin and shows its details; for a\n"
    "codec, its HDF5 id, an example of its codec JSON and the HDF5 and\n"
    "netcdf-c ABIs the module exports.\n"
    "--json prints a plugin list (or one plugin) as JSON; with --foreign, an\n"
    "object {search_path, host_libraries, pairing, skipped}.\n"
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
      g_printerr ("%s: %s\nTry '%s --help' for more information.\n", PROGRAM, error->message,
                  PROGRAM);
      return 2;
    }

  if (opt_version)
    {
      g_print ("%s (Ncz) %s\nplugin ABI %d\n", PROGRAM, NCZ_VERSION, NCZ_PLUGIN_ABI);
      return 0;
    }
  if (g_strcmp0 (opt_kind, "foreign") == 0)
    {
      opt_foreign = TRUE;
      g_clear_pointer (&opt_kind, g_free);
    }
  if (opt_kind != NULL && !ncz_feature_kind_from_string (opt_kind, NULL))
    {
      g_printerr ("%s: unknown kind '%s' (store, format, codec, hdf5-filter, codec-provider, "
                  "foreign)\n", PROGRAM, opt_kind);
      return 2;
    }
  if (opt_atleast != NULL && opt_exists == NULL)
    {
      g_printerr ("%s: --atleast-version needs --exists NAME\n", PROGRAM);
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
      if (opt_exists != NULL)
        status = cmd_exists (registry, opt_exists);
      else if (opt_paths)
        status = cmd_paths (registry);
      else if (opt_foreign)
        status = cmd_foreign ();
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
  g_free (opt_exists);
  g_free (opt_atleast);
  g_strfreev (opt_args);
  return status;
}
