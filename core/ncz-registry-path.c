/* ncz-registry-path.c: the plugin search path and the environment
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include "ncz-registry-private.h"

static const struct {
  const char *name;
  int priority;
} priority_names[] = {
  { "primary", NCZ_PRIORITY_PRIMARY },
  { "fallback", NCZ_PRIORITY_FALLBACK },
  { "none", NCZ_PRIORITY_NONE },
};

static gboolean
running_setuid (void)
{
#if defined(__linux__) && defined(AT_SECURE)
  return getauxval (AT_SECURE) != 0;
#else
  return getuid () != geteuid () || getgid () != getegid ();
#endif
}

const char *
_ncz_registry_getenv (const char *variable)
{
  if (running_setuid ())
    return NULL;
  return g_getenv (variable);
}

void
_ncz_strv_dedup_into (GPtrArray   *dirs,
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

void
_ncz_registry_parse_environment (NczRegistry *self)
{
  const char *disable = _ncz_registry_getenv ("NCZ_PLUGIN_DISABLE");
  const char *priority = _ncz_registry_getenv ("NCZ_PLUGIN_PRIORITY");

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
add_path_list (GPtrArray  *dirs,
               GPtrArray  *sources,
               const char *list,
               const char *source)
{
  g_auto(GStrv) entries = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);

  for (gsize i = 0; entries[i] != NULL; i++)
    if (entries[i][0] != '\0')
      _ncz_strv_dedup_into (dirs, sources, entries[i], source);
}

NczRegistry *
_ncz_registry_new_default (void)
{
  NczRegistry *self;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *sources = g_ptr_array_new ();
  const char *env;

  env = _ncz_registry_getenv ("NCZ_PLUGIN_PATH");
  if (env != NULL)
    add_path_list (dirs, sources, env, "NCZ_PLUGIN_PATH");

  env = _ncz_registry_getenv ("NCZ_PLUGIN_SYSTEM_PATH");
  if (env != NULL)
    add_path_list (dirs, sources, env, "NCZ_PLUGIN_SYSTEM_PATH");
  else
    _ncz_strv_dedup_into (dirs, sources, NCZ_PLUGINS_DIR, "built-in");

  g_ptr_array_add (dirs, NULL);
  g_ptr_array_add (sources, NULL);

  self = ncz_registry_new ((const char * const *) dirs->pdata);
  g_strfreev (self->search_path_sources);
  self->search_path_sources = (char **) g_ptr_array_free (sources, FALSE);
  return self;
}

gboolean
_ncz_registry_is_disabled (NczRegistry *self,
                  const char  *name)
{
  return name != NULL && g_hash_table_contains (self->disabled, name);
}

/**
 * ncz_registry_get_search_path_sources:
 * @self: a registry
 *
 * Where each directory of ncz_registry_get_search_path() comes from:
 * `NCZ_PLUGIN_PATH`, `NCZ_PLUGIN_SYSTEM_PATH`, `built-in` (the plugin
 * directory of the installation) or `explicit` (ncz_registry_new()).
 *
 * Returns: (transfer full) (array zero-terminated=1): the sources, in the
 *   order of the search path
 * Since: 1.0
 */
char **
ncz_registry_get_search_path_sources (NczRegistry *self)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  return g_strdupv (self->search_path_sources);
}
