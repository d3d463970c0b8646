/* ncz-foreign-host.c: host libraries (libhdf5, and those Codec libraries name) made global so that foreign libraries load
 *
 * See ncz-foreign-scan.h and ncz-foreign-scan-private.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dlfcn.h>
#include <string.h>

#include "ncz-foreign-scan-private.h"

/* Libraries made global, process-wide (they are never unloaded). */
static GMutex host_lock;
static GPtrArray *host_loaded;   /* char* sonames asked for, loaded or not */
static GPtrArray *host_loaded_ok;/* char* sonames actually loaded */

/* Host libraries */

static gboolean
is_valid_soname (const char *name)
{
  gsize len;

  if (name == NULL)
    return FALSE;
  len = strnlen (name, 256);
  return len > 0 && len < 256 && strchr (name, '/') == NULL && name[0] != '.';
}

/* Makes @soname global once per process; TRUE if it is loaded. */
static gboolean
load_host_library (const char *soname)
{
  gboolean ok = FALSE;

  g_mutex_lock (&host_lock);
  if (host_loaded == NULL)
    {
      host_loaded = g_ptr_array_new ();
      host_loaded_ok = g_ptr_array_new ();
    }
  if (g_ptr_array_find_with_equal_func (host_loaded, soname, g_str_equal, NULL))
    ok = g_ptr_array_find_with_equal_func (host_loaded_ok, soname, g_str_equal, NULL);
  else
    {
      char *copy = g_strdup (soname);

      g_ptr_array_add (host_loaded, copy);
      /* Never closed: the libraries that needed it stay loaded. */
      if (dlopen (soname, RTLD_NOW | RTLD_GLOBAL) != NULL)
        {
          g_ptr_array_add (host_loaded_ok, copy);
          ok = TRUE;
        }
      else
        g_debug ("host library %s: %s", soname, dlerror ());
    }
  g_mutex_unlock (&host_lock);
  return ok;
}

static void
note_host_library (NczForeignScan *self,
                   const char     *soname)
{
  for (guint i = 0; i + 1 < self->host_libraries->len; i++)
    if (strcmp (g_ptr_array_index (self->host_libraries, i), soname) == 0)
      return;
  g_ptr_array_insert (self->host_libraries, self->host_libraries->len - 1, g_strdup (soname));
}

/* Provides libhdf5 and what the loaded Codec libraries ask for; TRUE if
 * something new was loaded. */
gboolean
ncz_foreign_provide_host_libraries (NczForeignScan *self,
                        GPtrArray      *candidates)
{
  gboolean changed = FALSE;
  gboolean have_hdf5 = FALSE;
  g_auto(GStrv) hdf5_names = g_strsplit (NCZ_FOREIGN_HDF5_LIBRARIES, ":", -1);

  for (gsize i = 0; hdf5_names[i] != NULL && !have_hdf5; i++)
    {
      gboolean known;

      if (!is_valid_soname (hdf5_names[i]))
        continue;
      g_mutex_lock (&host_lock);
      known = host_loaded != NULL &&
              g_ptr_array_find_with_equal_func (host_loaded, hdf5_names[i], g_str_equal, NULL);
      g_mutex_unlock (&host_lock);
      if (load_host_library (hdf5_names[i]))
        {
          have_hdf5 = TRUE;
          note_host_library (self, hdf5_names[i]);
          changed |= !known;
        }
    }

  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = g_ptr_array_index (candidates, i);
      const char * const *names;

      if (c->host_libraries == NULL || c->broken != NULL || c->lazy)
        continue;
      names = c->host_libraries ();
      for (gsize j = 0; names != NULL && names[j] != NULL && j < MAX_HOST_LIBRARIES; j++)
        {
          gboolean known;

          if (!is_valid_soname (names[j]))
            continue;
          g_mutex_lock (&host_lock);
          known = host_loaded != NULL &&
                  g_ptr_array_find_with_equal_func (host_loaded, names[j], g_str_equal, NULL);
          g_mutex_unlock (&host_lock);
          if (load_host_library (names[j]))
            {
              note_host_library (self, names[j]);
              changed |= !known;
            }
        }
    }
  return changed;
}
