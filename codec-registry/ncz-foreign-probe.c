/* ncz-foreign-probe.c: probing foreign libraries (loading them, asking for the HDF5 plugin and Codec ABIs)
 *
 * See ncz-foreign-scan.h and ncz-foreign-scan-private.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ncz-foreign-scan-private.h"

/* Candidates */

void
ncz_foreign_candidate_free (gpointer data)
{
  Candidate *c = data;

  /* Libraries that loaded whole stay loaded even when unused: unloading
   * third-party code (constructors, atexit handlers, memory its globals
   * hold) is a risk for little gain. One opened lazily only to be listed
   * is closed, so that a later scan cannot mistake it for a whole one. */
  if (c->handle != NULL && c->lazy)
    dlclose (c->handle);
  g_free (c->path);
  g_free (c->broken);
  g_free (c->load_error);
  if (c->defaults != NULL)
    g_ptr_array_unref (c->defaults);
  g_free (c);
}

static void G_GNUC_PRINTF (2, 3)
candidate_set_broken (Candidate  *c,
                      const char *format,
                      ...)
{
  va_list args;

  if (c->broken != NULL)
    return;
  va_start (args, format);
  c->broken = g_strdup_vprintf (format, args);
  va_end (args);
}

/* lib*.so, lib*.so.1, lib*.so.1.2 */
static gboolean
is_library_name (const char *name)
{
  const char *p;

  if (!g_str_has_prefix (name, "lib") || name[3] == '\0')
    return FALSE;
  for (p = strstr (name + 3, ".so"); p != NULL; p = strstr (p + 1, ".so"))
    if (p[3] == '\0' || p[3] == '.')
      return TRUE;
  return FALSE;
}

static gboolean
is_valid_codec_id (const char *id)
{
  gsize len;

  if (id == NULL)
    return FALSE;
  len = strnlen (id, CODEC_ID_MAX + 1);
  if (len == 0 || len > CODEC_ID_MAX)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (id[i]) && strchr ("_-.+", id[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* The entry point an Ncz module of this file name would export:
 * libncz-codec-zstd.so → ncz_plugin_zstd_describe,
 * libncz-store-file.so → ncz_plugin_file_describe */
static char *
ncz_entry_point_for (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  char *start = base + 3;
  char *dot = strstr (start, ".so");

  if (dot != NULL)
    *dot = '\0';
  if (g_str_has_prefix (start, "ncz-"))
    start += 4;
  /* the naming rule of ncz-inspect-1.0 --manifest */
  for (const char * const *kind = (const char * const[]) { "store-", "backend-", "format-",
                                                           "codec-", "plugin-", NULL };
       *kind != NULL; kind++)
    if (g_str_has_prefix (start, *kind))
      {
        start += strlen (*kind);
        break;
      }
  g_strdelimit (start, "-", '_');
  return g_strdup_printf ("ncz_plugin_%s_describe", start);
}

static gboolean
check_codec_struct (Candidate          *c,
                    const NczAbiCodec  *codec,
                    const char         *where)
{
  if (codec == NULL)
    {
      candidate_set_broken (c, "%s returned NULL", where);
      return FALSE;
    }
  if (codec->version != NCZ_ABI_CODEC_CLASS_VER)
    {
      candidate_set_broken (c, "%s: NCZ_codec_t version %d, expected %d",
                            where, codec->version, NCZ_ABI_CODEC_CLASS_VER);
      return FALSE;
    }
  if (codec->sort != NCZ_ABI_CODEC_HDF5)
    {
      candidate_set_broken (c, "%s: NCZ_codec_t sort %d, expected %d (NCZ_CODEC_HDF5)",
                            where, codec->sort, NCZ_ABI_CODEC_HDF5);
      return FALSE;
    }
  if (!is_valid_codec_id (codec->codecid))
    {
      candidate_set_broken (c, "%s: the codec id is missing or not a plain name "
                            "(letters, digits, _-.+, at most %d)", where, CODEC_ID_MAX);
      return FALSE;
    }
  if (codec->hdf5id == 0 || codec->hdf5id > HDF5_FILTER_MAX)
    {
      candidate_set_broken (c, "%s: codec '%s' has HDF5 id %u, not from 1 to %d",
                            where, codec->codecid, codec->hdf5id, HDF5_FILTER_MAX);
      return FALSE;
    }
  if (codec->NCZ_codec_to_hdf5 == NULL || codec->NCZ_hdf5_to_codec == NULL)
    {
      candidate_set_broken (c, "%s: codec '%s' lacks NCZ_codec_to_hdf5 or NCZ_hdf5_to_codec",
                            where, codec->codecid);
      return FALSE;
    }
  return TRUE;
}

/* Asks an opened library what it is. */
static void
interrogate (Candidate *c)
{
  NczH5PLGetPluginTypeFunc type_func = dlsym (c->handle, "H5PLget_plugin_type");
  NczH5PLGetPluginInfoFunc info_func = dlsym (c->handle, "H5PLget_plugin_info");
  NczGetCodecInfoFunc codec_func = dlsym (c->handle, "NCZ_get_codec_info");
  NczCodecInfoDefaultsFunc defaults_func = dlsym (c->handle, "NCZ_codec_info_defaults");
  g_autofree char *entry_point = ncz_entry_point_for (c->path);
  g_autofree char *base = g_path_get_basename (c->path);

  c->ncz_module = g_str_has_prefix (base, NCZ_MODULE_PREFIX) ||
                  dlsym (c->handle, entry_point) != NULL;

  if (defaults_func != NULL)
    {
      /* A defaults library: its other entry points are not used. */
      const NczAbiCodec * const *vector = defaults_func ();

      c->defaults = g_ptr_array_new ();
      if (vector == NULL)
        {
          candidate_set_broken (c, "NCZ_codec_info_defaults () returned NULL");
          return;
        }
      for (gsize i = 0; vector[i] != NULL; i++)
        {
          g_autofree char *where = g_strdup_printf ("NCZ_codec_info_defaults ()[%" G_GSIZE_FORMAT "]", i);

          if (i >= MAX_DEFAULTS)
            {
              candidate_set_broken (c, "NCZ_codec_info_defaults () returned more than %d codecs "
                                    "(is the vector NULL-terminated?)", MAX_DEFAULTS);
              return;
            }
          if (!check_codec_struct (c, vector[i], where))
            return;
          g_ptr_array_add (c->defaults, (gpointer) vector[i]);
        }
      return;
    }

  if ((type_func == NULL) != (info_func == NULL))
    {
      candidate_set_broken (c, "exports %s but not %s",
                            type_func != NULL ? "H5PLget_plugin_type" : "H5PLget_plugin_info",
                            type_func != NULL ? "H5PLget_plugin_info" : "H5PLget_plugin_type");
      return;
    }
  if (type_func == NULL && codec_func == NULL)
    {
      candidate_set_broken (c, "exports neither the HDF5 plugin ABI (H5PLget_plugin_type, "
                            "H5PLget_plugin_info) nor the Codec ABI (NCZ_get_codec_info)");
      return;
    }

  if (type_func != NULL)
    {
      NczH5PLType type = type_func ();
      const NczH5ZClass2 *klass;

      if (type != NCZ_H5PL_TYPE_FILTER)
        {
          candidate_set_broken (c, "H5PLget_plugin_type () returned %d, not H5PL_TYPE_FILTER (%d): "
                                "not a filter plugin", (int) type, (int) NCZ_H5PL_TYPE_FILTER);
          return;
        }
      klass = info_func ();
      if (klass == NULL)
        {
          candidate_set_broken (c, "H5PLget_plugin_info () returned NULL");
          return;
        }
      /* Only the version is read before it is known to be an H5Z_class2_t. */
      if (klass->version != NCZ_H5Z_CLASS_T_VERS)
        {
          candidate_set_broken (c, "H5PLget_plugin_info (): H5Z_class2_t version %d, expected %d",
                                klass->version, NCZ_H5Z_CLASS_T_VERS);
          return;
        }
      if (klass->id <= 0 || klass->id > HDF5_FILTER_MAX)
        {
          candidate_set_broken (c, "H5PLget_plugin_info (): filter id %d is not from 1 to %d",
                                klass->id, HDF5_FILTER_MAX);
          return;
        }
      if (klass->filter == NULL)
        {
          candidate_set_broken (c, "H5PLget_plugin_info (): filter %d has no filter function",
                                klass->id);
          return;
        }
      c->h5 = klass;
    }

  if (codec_func != NULL)
    {
      const NczAbiCodec *codec = codec_func ();

      if (!check_codec_struct (c, codec, "NCZ_get_codec_info ()"))
        {
          c->h5 = NULL;
          return;
        }
      c->codec = codec;
      c->host_libraries = (NczCodecHostLibrariesFunc) dlsym (c->handle, "ncz_codec_host_libraries");
    }

  if (c->h5 != NULL && c->codec != NULL && (guint) c->h5->id != c->codec->hdf5id)
    {
      candidate_set_broken (c, "its HDF5 filter id %d and its codec '%s' HDF5 id %u differ",
                            c->h5->id, c->codec->codecid, c->codec->hdf5id);
      c->h5 = NULL;
      c->codec = NULL;
    }
}

/* dlopen's message for a library that needs symbols nothing provides */
static gboolean
is_undefined_symbol_error (const char *message)
{
  return message != NULL && strstr (message, "undefined symbol") != NULL;
}

void
ncz_foreign_candidate_open (Candidate *c,
                gboolean   last_chance)
{
  const char *message;

  dlerror ();
  c->handle = dlopen (c->path, RTLD_NOW | RTLD_LOCAL);
  if (c->handle != NULL)
    {
      c->retry = FALSE;
      g_clear_pointer (&c->load_error, g_free);
      interrogate (c);
      return;
    }

  message = dlerror ();
  if (is_undefined_symbol_error (message) && !last_chance)
    {
      g_free (c->load_error);
      c->load_error = g_strdup (message);
      c->retry = TRUE;
      return;
    }
  c->retry = FALSE;
  if (is_undefined_symbol_error (message))
    {
      g_free (c->load_error);
      c->load_error = g_strdup (message);
      /* Opened lazily only to be listed; its HDF5 part is never run. */
      c->handle = dlopen (c->path, RTLD_LAZY | RTLD_LOCAL);
      if (c->handle != NULL)
        {
          c->lazy = TRUE;
          interrogate (c);
          if (c->codec != NULL || c->defaults != NULL)
            {
              /* A Codec library must be whole to be used. */
              candidate_set_broken (c, "cannot be loaded: %s", c->load_error);
              c->codec = NULL;
              c->h5 = NULL;
            }
          return;
        }
      message = dlerror ();
    }
  candidate_set_broken (c, "cannot be loaded: %s", message != NULL ? message : "unknown error");
}

/* Scanning */

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

void
ncz_foreign_scan_directory (const char *dirname,
                GPtrArray  *candidates)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open (dirname, 0, NULL);
  const char *entry;

  if (dir == NULL)
    return;
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (is_library_name (entry))
      g_ptr_array_add (names, g_strdup (entry));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dirname, g_ptr_array_index (names, i), NULL);
      GStatBuf st;
      Candidate *c;
      int saved_errno = 0;
      gboolean ok;

      /* Directories (a build tree's libx.so.p) are not libraries; other
       * special files are never opened (a FIFO would block). */
      ok = g_stat (path, &st) == 0;
      if (!ok)
        saved_errno = errno;
      else if (S_ISDIR (st.st_mode))
        continue;

      c = g_new0 (Candidate, 1);
      c->path = g_steal_pointer (&path);
      g_ptr_array_add (candidates, c);
      if (!ok)
        candidate_set_broken (c, "cannot be read: %s", g_strerror (saved_errno));
      else if (!S_ISREG (st.st_mode))
        candidate_set_broken (c, "not a regular file");
      else
        ncz_foreign_candidate_open (c, FALSE);
    }
}
