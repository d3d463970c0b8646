/* ncz-foreign-scan.c: foreign HDF5 filter and Codec libraries, paired
 *
 * See ncz-foreign-scan.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include <glib/gstdio.h>

#include "ncz-foreign-scan.h"
#include <ncz/ncz-filter-abi.h>
#include <ncz/ncz-json.h>

#ifndef NCZ_FOREIGN_DEFAULT_DIR
#define NCZ_FOREIGN_DEFAULT_DIR "/usr/local/hdf5/lib/plugin"
#endif

/* Sonames tried, in order, when libhdf5 must be provided to foreign
 * libraries (Debian, then plain builds of HDF5 1.10, 1.12, 1.14).
 * Packagers may override it with -D. */
#ifndef NCZ_FOREIGN_HDF5_LIBRARIES
#define NCZ_FOREIGN_HDF5_LIBRARIES \
  "libhdf5_serial.so.103:libhdf5.so.103:libhdf5.so.200:libhdf5.so.310:libhdf5.so"
#endif

#define HDF5_FILTER_MAX 65535
#define CODEC_ID_MAX 128
#define MAX_DEFAULTS 1024
#define MAX_HOST_LIBRARIES 16
#define MAX_PARAMS 4096
#define NCZ_MODULE_PREFIX "libncz-codec-"

typedef NczAbiCodec const *AbiCodecPtr;
typedef const char * const *(*NczCodecHostLibrariesFunc) (void);

/* One library found in the search path */
typedef struct {
  char *path;
  void *handle;
  char *broken;                  /* why it cannot be used, or NULL */
  char *load_error;              /* dlopen's error for an undefined symbol */
  gboolean retry;                /* failed for an undefined symbol: try again */
  gboolean lazy;                 /* opened lazily only to be listed */
  gboolean ncz_module;
  const NczH5ZClass2 *h5;        /* HDF5 part, or NULL */
  const NczAbiCodec *codec;      /* Codec part, or NULL */
  GPtrArray *defaults;           /* AbiCodecPtr, when a defaults library */
  NczCodecHostLibrariesFunc host_libraries;
} Candidate;

/* One filter id of the pairing table, while pairing */
typedef struct {
  guint id;
  guint order;                   /* when it was first seen */
  Candidate *first;
  Candidate *h5_lib;
  const NczH5ZClass2 *h5;
  Candidate *codec_lib;
  const NczAbiCodec *codec;
  gboolean codec_default;
} Slot;

typedef struct {
  NczForeignRow pub;
  const NczH5ZClass2 *h5;
  const NczAbiCodec *codec;
  gsize initialized;
} Row;

struct _NczForeignScan
{
  gint ref_count;
  GStringChunk *strings;
  GPtrArray *dirs;               /* char*, NULL-terminated */
  GPtrArray *sources;            /* const char* (static) */
  GArray *exists;                /* gboolean */
  GPtrArray *host_libraries;     /* char*, NULL-terminated */
  GPtrArray *rows;               /* Row*, owned */
};

/* Foreign libraries may share one libhdf5 that is not thread-safe, and
 * most were never written to be called from several threads. */
static GMutex foreign_lock;

/* Libraries made global, process-wide (they are never unloaded). */
static GMutex host_lock;
static GPtrArray *host_loaded;   /* char* sonames asked for, loaded or not */
static GPtrArray *host_loaded_ok;/* char* sonames actually loaded */

static const char *
intern (NczForeignScan *self,
        const char     *str)
{
  return str != NULL ? g_string_chunk_insert_const (self->strings, str) : NULL;
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

const char *
ncz_foreign_status_to_string (NczForeignStatus status)
{
  switch (status)
    {
    case NCZ_FOREIGN_USABLE:
      return "usable";
    case NCZ_FOREIGN_HDF5_ONLY:
      return "hdf5-only";
    case NCZ_FOREIGN_CODEC_ONLY:
      return "codec-only";
    case NCZ_FOREIGN_DUPLICATE:
      return "duplicate";
    case NCZ_FOREIGN_BROKEN:
      return "broken";
    case NCZ_FOREIGN_NCZ_MODULE:
      return "ncz-module";
    default:
      return "unknown";
    }
}

/* Candidates */

static void
candidate_free (gpointer data)
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

static void
open_candidate (Candidate *c,
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
static gboolean
provide_host_libraries (NczForeignScan *self,
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

/* Scanning */

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
scan_directory (const char *dirname,
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
        open_candidate (c, FALSE);
    }
}

/* Pairing */

static Row *
row_new (NczForeignScan   *self,
         guint             filter_id,
         NczForeignStatus  status,
         const char       *library,
         const char       *reason)
{
  Row *row = g_new0 (Row, 1);

  row->pub.filter_id = filter_id;
  row->pub.status = status;
  row->pub.library = intern (self, library);
  row->pub.reason = intern (self, reason);
  return row;
}

static void
add_skipped_row (NczForeignScan   *self,
                 GPtrArray        *skipped,
                 Candidate        *c,
                 guint             filter_id,
                 const char       *codec_id,
                 NczForeignStatus  status,
                 const char       *reason)
{
  Row *row = row_new (self, filter_id, status, c->path, reason);

  row->pub.codec_id = intern (self, codec_id);
  if (c->h5 != NULL)
    {
      row->pub.hdf5_library = row->pub.library;
      row->pub.hdf5_name = intern (self, c->h5->name);
    }
  if (c->codec != NULL || c->defaults != NULL)
    row->pub.codec_library = row->pub.library;
  row->pub.codec_is_default = c->defaults != NULL;
  g_ptr_array_add (skipped, row);
}

static Slot *
get_slot (GHashTable *slots,
          guint       id,
          Candidate  *first)
{
  Slot *slot = g_hash_table_lookup (slots, GUINT_TO_POINTER (id));

  if (slot == NULL)
    {
      slot = g_new0 (Slot, 1);
      slot->id = id;
      slot->order = g_hash_table_size (slots);
      slot->first = first;
      g_hash_table_insert (slots, GUINT_TO_POINTER (id), slot);
    }
  return slot;
}

static gint
compare_slots (gconstpointer a,
               gconstpointer b)
{
  const Slot *sa = *(const Slot * const *) a;
  const Slot *sb = *(const Slot * const *) b;

  return sa->id < sb->id ? -1 : sa->id > sb->id;
}

static gint
compare_slots_by_order (gconstpointer a,
                        gconstpointer b)
{
  const Slot *sa = *(const Slot * const *) a;
  const Slot *sb = *(const Slot * const *) b;

  return sa->order < sb->order ? -1 : sa->order > sb->order;
}

static void
pair (NczForeignScan *self,
      GPtrArray      *candidates)
{
  g_autoptr(GHashTable) slots = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr(GPtrArray) skipped = g_ptr_array_new ();
  g_autoptr(GPtrArray) by_order = NULL;
  g_autoptr(GHashTable) codec_ids = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *dup_codec_rows = g_hash_table_new (g_direct_hash, g_direct_equal);
  GList *values;

  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = g_ptr_array_index (candidates, i);
      guint id;
      Slot *slot;
      gboolean took = FALSE;
      g_autofree char *reason = NULL;

      if (c->ncz_module)
        {
          /* Ncz's modules (codecs, stores, backends) on HDF5_PLUGIN_PATH */
          add_skipped_row (self, skipped, c,
                           c->h5 != NULL ? (guint) c->h5->id : c->codec != NULL ? c->codec->hdf5id : 0,
                           c->codec != NULL ? c->codec->codecid : NULL, NCZ_FOREIGN_NCZ_MODULE,
                           "one of Ncz's modules: served natively through NCZ_PLUGIN_PATH, "
                           "not paired here");
          continue;
        }
      if (c->broken != NULL)
        {
          add_skipped_row (self, skipped, c, 0, NULL, NCZ_FOREIGN_BROKEN, c->broken);
          continue;
        }
      if (c->defaults != NULL)
        continue;   /* attached after every directory is scanned */

      id = c->h5 != NULL ? (guint) c->h5->id : c->codec->hdf5id;
      slot = get_slot (slots, id, c);
      if (c->h5 != NULL && slot->h5 != NULL && slot->h5_lib->lazy && !c->lazy)
        {
          /* A whole library beats one that could only be listed. */
          g_autofree char *why = g_strdup_printf ("cannot be loaded whole: %s",
                                                  slot->h5_lib->load_error);

          add_skipped_row (self, skipped, slot->h5_lib, id, NULL, NCZ_FOREIGN_BROKEN, why);
          if (slot->first == slot->h5_lib)
            slot->first = c;
          slot->h5 = NULL;
          slot->h5_lib = NULL;
        }
      if (c->h5 != NULL && slot->h5 == NULL)
        {
          slot->h5 = c->h5;
          slot->h5_lib = c;
          took = TRUE;
        }
      if (c->codec != NULL && slot->codec == NULL)
        {
          slot->codec = c->codec;
          slot->codec_lib = c;
          took = TRUE;
        }
      if (took)
        continue;

      if (c->h5 != NULL && c->codec != NULL)
        reason = g_strdup_printf ("HDF5 filter %u is already provided by %s and its codec by %s",
                                  id, slot->h5_lib->path, slot->codec_lib->path);
      else if (c->h5 != NULL)
        reason = g_strdup_printf ("HDF5 filter %u is already provided by %s", id, slot->h5_lib->path);
      else
        reason = g_strdup_printf ("the codec of HDF5 filter %u is already provided by %s",
                                  id, slot->codec_lib->path);
      add_skipped_row (self, skipped, c, id, c->codec != NULL ? c->codec->codecid : NULL,
                       NCZ_FOREIGN_DUPLICATE, reason);
    }

  /* Defaults libraries fill only the Codec slots nothing else filled. */
  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = g_ptr_array_index (candidates, i);

      if (c->defaults == NULL || c->broken != NULL || c->ncz_module)
        continue;
      for (guint j = 0; j < c->defaults->len; j++)
        {
          const NczAbiCodec *codec = g_ptr_array_index (c->defaults, j);
          Slot *slot = get_slot (slots, codec->hdf5id, c);
          g_autofree char *reason = NULL;
          Row *row;

          if (slot->codec == NULL)
            {
              slot->codec = codec;
              slot->codec_lib = c;
              slot->codec_default = TRUE;
              continue;
            }
          reason = g_strdup_printf ("defaults codec '%s' not used: the codec of HDF5 filter %u "
                                    "is provided by %s", codec->codecid, codec->hdf5id,
                                    slot->codec_lib->path);
          row = row_new (self, codec->hdf5id, NCZ_FOREIGN_DUPLICATE, c->path, reason);
          row->pub.codec_id = intern (self, codec->codecid);
          row->pub.codec_library = row->pub.library;
          row->pub.codec_is_default = TRUE;
          g_ptr_array_add (skipped, row);
        }
    }

  /* Zarr codec ids must name one filter: the first found keeps it. */
  values = g_hash_table_get_values (slots);
  by_order = g_ptr_array_new ();
  for (GList *l = values; l != NULL; l = l->next)
    g_ptr_array_add (by_order, l->data);
  g_list_free (values);
  g_ptr_array_sort (by_order, compare_slots_by_order);
  for (guint i = 0; i < by_order->len; i++)
    {
      Slot *slot = g_ptr_array_index (by_order, i);

      if (slot->h5 == NULL || slot->codec == NULL || slot->h5_lib->lazy)
        continue;
      if (g_hash_table_contains (codec_ids, slot->codec->codecid))
        g_hash_table_add (dup_codec_rows, slot);
      else
        g_hash_table_insert (codec_ids, (gpointer) slot->codec->codecid, slot);
    }

  g_ptr_array_sort (by_order, compare_slots);
  for (guint i = 0; i < by_order->len; i++)
    {
      Slot *slot = g_ptr_array_index (by_order, i);
      g_autofree char *reason = NULL;
      NczForeignStatus status;
      Row *row;

      if (slot->h5 != NULL && slot->codec != NULL && slot->h5_lib->lazy)
        {
          status = NCZ_FOREIGN_BROKEN;
          reason = g_strdup_printf ("%s cannot be loaded whole: %s", slot->h5_lib->path,
                                    slot->h5_lib->load_error);
        }
      else if (slot->h5 != NULL && slot->codec != NULL)
        {
          if (g_hash_table_contains (dup_codec_rows, slot))
            {
              Slot *other = g_hash_table_lookup (codec_ids, slot->codec->codecid);

              status = NCZ_FOREIGN_DUPLICATE;
              reason = g_strdup_printf ("codec id '%s' already names HDF5 filter %u",
                                        slot->codec->codecid, other->id);
            }
          else
            status = NCZ_FOREIGN_USABLE;
        }
      else if (slot->h5 != NULL)
        {
          status = NCZ_FOREIGN_HDF5_ONLY;
          if (slot->h5_lib->lazy)
            reason = g_strdup_printf ("no Codec library for HDF5 filter %u: not usable for NCZarr "
                                      "(and %s cannot be loaded whole: %s)", slot->id,
                                      slot->h5_lib->path, slot->h5_lib->load_error);
          else
            reason = g_strdup_printf ("no Codec library for HDF5 filter %u: not usable for NCZarr",
                                      slot->id);
        }
      else
        {
          status = NCZ_FOREIGN_CODEC_ONLY;
          reason = g_strdup_printf ("no HDF5 library for filter %u: codec '%s' ignored",
                                    slot->id, slot->codec->codecid);
        }

      row = row_new (self, slot->id, status, slot->first->path, reason);
      if (slot->h5 != NULL)
        {
          row->pub.hdf5_library = intern (self, slot->h5_lib->path);
          row->pub.hdf5_name = intern (self, slot->h5->name);
        }
      if (slot->codec != NULL)
        {
          row->pub.codec_id = intern (self, slot->codec->codecid);
          row->pub.codec_library = intern (self, slot->codec_lib->path);
          row->pub.codec_is_default = slot->codec_default;
        }
      if (status == NCZ_FOREIGN_USABLE)
        {
          row->h5 = slot->h5;
          row->codec = slot->codec;
        }
      g_ptr_array_add (self->rows, row);
    }

  for (guint i = 0; i < skipped->len; i++)
    g_ptr_array_add (self->rows, g_ptr_array_index (skipped, i));

  g_hash_table_unref (dup_codec_rows);
}

static void
run_scan (NczForeignScan *self)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (candidate_free);

  for (guint i = 0; i + 1 < self->dirs->len; i++)
    scan_directory (g_ptr_array_index (self->dirs, i), candidates);

  /* Libraries that failed for an undefined symbol: again once their host
   * libraries are global, as long as that brings something new. */
  for (int round = 0; round < 4; round++)
    {
      gboolean pending = FALSE;

      for (guint i = 0; i < candidates->len && !pending; i++)
        pending = ((Candidate *) g_ptr_array_index (candidates, i))->retry;
      if (!pending || !provide_host_libraries (self, candidates))
        break;
      for (guint i = 0; i < candidates->len; i++)
        {
          Candidate *c = g_ptr_array_index (candidates, i);

          if (c->retry)
            open_candidate (c, FALSE);
        }
    }
  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = g_ptr_array_index (candidates, i);

      if (c->retry)
        open_candidate (c, TRUE);
    }

  pair (self, candidates);
}

static NczForeignScan *
scan_alloc (void)
{
  NczForeignScan *self = g_new0 (NczForeignScan, 1);

  self->ref_count = 1;
  self->strings = g_string_chunk_new (1024);
  self->dirs = g_ptr_array_new_with_free_func (g_free);
  self->sources = g_ptr_array_new ();
  self->exists = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->host_libraries = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->host_libraries, NULL);
  self->rows = g_ptr_array_new_with_free_func (g_free);
  return self;
}

static void
add_dir (NczForeignScan *self,
         const char     *dir,
         const char     *source)
{
  gboolean exists;

  if (dir[0] == '\0')
    return;
  for (guint i = 0; i < self->dirs->len; i++)
    if (strcmp (g_ptr_array_index (self->dirs, i), dir) == 0)
      return;
  g_ptr_array_add (self->dirs, g_strdup (dir));
  g_ptr_array_add (self->sources, (gpointer) source);
  exists = g_file_test (dir, G_FILE_TEST_IS_DIR);
  g_array_append_val (self->exists, exists);
}

static NczForeignScan *
scan_finish (NczForeignScan *self)
{
  g_ptr_array_add (self->dirs, NULL);
  run_scan (self);
  return self;
}

NczForeignScan *
ncz_foreign_scan_new (const char * const *dirs)
{
  NczForeignScan *self = scan_alloc ();

  for (gsize i = 0; dirs != NULL && dirs[i] != NULL; i++)
    add_dir (self, dirs[i], "explicit");
  return scan_finish (self);
}

NczForeignScan *
ncz_foreign_scan_new_from_environment (void)
{
  NczForeignScan *self = scan_alloc ();
  const char *env = running_setuid () ? NULL : g_getenv ("HDF5_PLUGIN_PATH");

  if (env != NULL)
    {
      g_auto(GStrv) entries = g_strsplit (env, ":", -1);

      for (gsize i = 0; entries[i] != NULL; i++)
        add_dir (self, entries[i], "HDF5_PLUGIN_PATH");
    }
  add_dir (self, NCZ_FOREIGN_DEFAULT_DIR, "default");
  return scan_finish (self);
}

NczForeignScan *
ncz_foreign_scan_get_default (void)
{
  static NczForeignScan *default_scan = NULL;

  if (g_once_init_enter (&default_scan))
    g_once_init_leave (&default_scan, ncz_foreign_scan_new_from_environment ());
  return default_scan;
}

NczForeignScan *
ncz_foreign_scan_ref (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
ncz_foreign_scan_unref (NczForeignScan *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  /* The libraries are not closed: codecs made from the rows may outlive
   * the scan. */
  g_ptr_array_unref (self->rows);
  g_ptr_array_unref (self->host_libraries);
  g_array_unref (self->exists);
  g_ptr_array_unref (self->sources);
  g_ptr_array_unref (self->dirs);
  g_string_chunk_free (self->strings);
  g_free (self);
}

const char * const *
ncz_foreign_scan_get_search_path (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->dirs->pdata;
}

const char *
ncz_foreign_scan_get_search_path_source (NczForeignScan *self,
                                         guint           index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->sources->len, NULL);
  return g_ptr_array_index (self->sources, index);
}

gboolean
ncz_foreign_scan_get_search_path_exists (NczForeignScan *self,
                                         guint           index)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (index < self->exists->len, FALSE);
  return g_array_index (self->exists, gboolean, index);
}

const char * const *
ncz_foreign_scan_get_host_libraries (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->host_libraries->pdata;
}

guint
ncz_foreign_scan_get_n_rows (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->rows->len;
}

const NczForeignRow *
ncz_foreign_scan_get_row (NczForeignScan *self,
                          guint           index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->rows->len, NULL);
  return &((Row *) g_ptr_array_index (self->rows, index))->pub;
}

const NczForeignRow *
ncz_foreign_scan_lookup (NczForeignScan *self,
                         guint           filter_id,
                         const char     *codec_id)
{
  const NczForeignRow *found = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (filter_id != 0 || codec_id != NULL, NULL);

  for (guint i = 0; i < self->rows->len && found == NULL; i++)
    {
      const NczForeignRow *row = &((Row *) g_ptr_array_index (self->rows, i))->pub;

      if (row->status != NCZ_FOREIGN_USABLE && row->status != NCZ_FOREIGN_HDF5_ONLY &&
          row->status != NCZ_FOREIGN_CODEC_ONLY)
        continue;
      if (filter_id != 0 ? row->filter_id == filter_id
                         : row->codec_id != NULL && strcmp (row->codec_id, codec_id) == 0)
        found = row;
    }
  /* A codec id is looked up among the usable rows first. */
  if (filter_id == 0 && found != NULL && found->status != NCZ_FOREIGN_USABLE)
    for (guint i = 0; i < self->rows->len; i++)
      {
        const NczForeignRow *row = &((Row *) g_ptr_array_index (self->rows, i))->pub;

        if (row->status == NCZ_FOREIGN_USABLE && strcmp (row->codec_id, codec_id) == 0)
          return row;
      }
  return found;
}

/* Working parameters */

GArray *
ncz_foreign_working_params (guint        filter_id,
                            const guint *visible,
                            gsize        n_visible,
                            gsize        type_size,
                            gsize        chunk_bytes)
{
  GArray *working = g_array_new (FALSE, TRUE, sizeof (guint));
  guint ts = (guint) MIN (type_size, G_MAXUINT);
  guint cb = (guint) MIN (chunk_bytes, G_MAXUINT);

  switch (filter_id)
    {
    case 2:       /* shuffle: the element size */
      g_array_append_val (working, ts);
      break;
    case 3:       /* fletcher32: nothing */
      break;
    case 32000:   /* LZF: filter version, LZF version, chunk bytes */
      {
        guint values[3] = { 4, 0x0105, cb };

        g_array_append_vals (working, values, 3);
      }
      break;
    case 32001:   /* blosc: [0, 0, 0, blocksize, clevel, shuffle, compcode] */
      {
        guint values[7] = { 2, 2, ts, cb, 5, 1, 0 };

        for (gsize i = 4; i < 7 && i < n_visible; i++)
          values[i] = visible[i];
        g_array_append_vals (working, values, 7);
      }
      break;
    case 32008:   /* bitshuffle: [major, minor, element size, block size, compression] */
      {
        guint values[5] = { 0, 0, ts, 0, 0 };
        gsize n = MAX (n_visible, 3);

        for (gsize i = 0; i < n_visible && i < 5; i++)
          if (i != 2)
            values[i] = visible[i];
        g_array_append_vals (working, values, MIN (n, 5));
      }
      break;
    default:
      if (n_visible > 0)
        g_array_append_vals (working, visible, (guint) n_visible);
      break;
    }
  return working;
}

/* Using a row */

static const char *
row_library (const Row *row)
{
  return row->pub.codec_library != NULL ? row->pub.codec_library : row->pub.library;
}

static gboolean
row_check_usable (const Row  *row,
                  GError    **error)
{
  if (row->pub.status == NCZ_FOREIGN_USABLE && row->h5 != NULL && row->codec != NULL)
    return TRUE;
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
               "HDF5 filter %u (%s) is not usable for NCZarr: %s", row->pub.filter_id,
               row->pub.library, row->pub.reason != NULL ? row->pub.reason : "unknown reason");
  return FALSE;
}

/* NCZ_codec_initialize runs once per codec and process, whatever the
 * number of scans using it. */
static void
row_initialize (Row *row)
{
  static GHashTable *initialized;   /* const NczAbiCodec* */

  if (g_once_init_enter (&row->initialized))
    {
      g_mutex_lock (&foreign_lock);
      if (initialized == NULL)
        initialized = g_hash_table_new (g_direct_hash, g_direct_equal);
      if (!g_hash_table_contains (initialized, row->codec))
        {
          g_hash_table_add (initialized, (gpointer) row->codec);
          if (row->codec->NCZ_codec_initialize != NULL)
            row->codec->NCZ_codec_initialize ();
        }
      g_mutex_unlock (&foreign_lock);
      g_once_init_leave (&row->initialized, 1);
    }
}

gboolean
ncz_foreign_row_params_from_json (const NczForeignRow  *pub,
                                  const char           *json,
                                  GArray              **params,
                                  GError              **error)
{
  Row *row = (Row *) pub;
  size_t n = 0;
  unsigned *values = NULL;
  int status;

  g_return_val_if_fail (pub != NULL, FALSE);
  g_return_val_if_fail (json != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  if (!row_check_usable (row, error))
    return FALSE;
  row_initialize (row);

  g_mutex_lock (&foreign_lock);
  status = row->codec->NCZ_codec_to_hdf5 (json, &n, &values);
  g_mutex_unlock (&foreign_lock);

  if (status != NCZ_ABI_NC_NOERR)
    {
      free (values);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s cannot read %s: NCZ_codec_to_hdf5 failed with error %d",
                   row->pub.codec_id, row_library (row), json, status);
      return FALSE;
    }
  if (n > MAX_PARAMS || (n > 0 && values == NULL))
    {
      free (values);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s read %s as %" G_GSIZE_FORMAT " parameters%s",
                   row->pub.codec_id, row_library (row), json, (gsize) n,
                   n > MAX_PARAMS ? " (too many)" : " without returning them");
      return FALSE;
    }
  *params = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n);
  if (n > 0)
    g_array_append_vals (*params, values, (guint) n);
  free (values);
  return TRUE;
}

char *
ncz_foreign_row_params_to_json (const NczForeignRow  *pub,
                                const guint          *params,
                                gsize                 n_params,
                                GError              **error)
{
  Row *row = (Row *) pub;
  static const unsigned no_params[1] = { 0 };
  g_autoptr(NczJson) node = NULL;
  g_autoptr(GError) local_error = NULL;
  const NczJson *id;
  char *text = NULL;
  int status;

  g_return_val_if_fail (pub != NULL, NULL);
  g_return_val_if_fail (params != NULL || n_params == 0, NULL);

  if (!row_check_usable (row, error))
    return NULL;
  row_initialize (row);

  g_mutex_lock (&foreign_lock);
  status = row->codec->NCZ_hdf5_to_codec (n_params, n_params > 0 ? params : no_params, &text);
  g_mutex_unlock (&foreign_lock);

  if (status != NCZ_ABI_NC_NOERR || text == NULL)
    {
      free (text);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s cannot write its JSON for %" G_GSIZE_FORMAT
                   " parameters: NCZ_hdf5_to_codec failed with error %d",
                   row->pub.codec_id, row_library (row), n_params, status);
      return NULL;
    }
  node = ncz_json_parse (text, -1, &local_error);
  id = node != NULL && ncz_json_get_kind (node) == NCZ_JSON_OBJECT
       ? ncz_json_object_get (node, "id") : NULL;
  if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "codec '%s' of %s wrote %s, not a JSON object with a string \"id\"%s%s",
                   row->pub.codec_id, row_library (row), text,
                   local_error != NULL ? ": " : "",
                   local_error != NULL ? local_error->message : "");
      free (text);
      return NULL;
    }
  free (text);
  return ncz_json_to_string (node, FALSE);
}

GBytes *
ncz_foreign_row_filter (const NczForeignRow  *pub,
                        gboolean              reverse,
                        const guint          *working,
                        gsize                 n_working,
                        GBytes               *input,
                        GError              **error)
{
  Row *row = (Row *) pub;
  static const unsigned no_params[1] = { 0 };
  const guint8 *data;
  gsize nbytes;
  size_t buf_size;
  void *buf;
  size_t produced;

  g_return_val_if_fail (pub != NULL, NULL);
  g_return_val_if_fail (working != NULL || n_working == 0, NULL);
  g_return_val_if_fail (input != NULL, NULL);

  if (!row_check_usable (row, error))
    return NULL;
  row_initialize (row);

  data = g_bytes_get_data (input, &nbytes);
  buf_size = MAX (nbytes, 1);
  buf = malloc (buf_size);
  if (buf == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "out of memory for a %" G_GSIZE_FORMAT "-byte chunk", nbytes);
      return NULL;
    }
  if (nbytes > 0)
    memcpy (buf, data, nbytes);

  g_mutex_lock (&foreign_lock);
  produced = row->h5->filter (reverse ? NCZ_H5Z_FLAG_REVERSE : 0, n_working,
                              n_working > 0 ? working : no_params, nbytes, &buf_size, &buf);
  g_mutex_unlock (&foreign_lock);

  if (produced == 0 || buf == NULL || produced > buf_size)
    {
      free (buf);
      g_set_error (error, NCZ_CODEC_ERROR,
                   reverse && produced == 0 ? NCZ_CODEC_ERROR_CORRUPT : NCZ_CODEC_ERROR_FAILED,
                   "HDF5 filter %u (%s) failed to %s a %" G_GSIZE_FORMAT "-byte chunk%s",
                   row->pub.filter_id, row->pub.hdf5_library, reverse ? "decode" : "encode",
                   nbytes,
                   produced == 0 ? "" : buf == NULL ? ": it returned no buffer"
                                                    : ": it claims more bytes than its buffer holds");
      return NULL;
    }
  if (produced < buf_size / 2)
    {
      void *smaller = realloc (buf, produced);

      if (smaller != NULL)
        buf = smaller;
    }
  return g_bytes_new_with_free_func (buf, produced, free, buf);
}
