/* sdkdir-store.c: a storage driver module written outside Ncz's tree
 *
 * Built by tests/sdk/test-out-of-tree.py against the installed
 * ncz-1.0.pc only, as a third party builds one. Store "sdkdir": each
 * object is a file under the directory the URL's local path names (key
 * "v/.zarray" is the file ROOT/v/.zarray), written in place with
 * g_file_set_contents(). Keys reach a driver already checked by
 * ncz_store_key_is_valid() (no "..", no empty segment), so paths stay
 * under the root.
 *
 * Constructed with the properties "url" (NczUrl) and "flags"
 * (NczStoreFlags), which the NczStore interface declares and this type
 * overrides; initialised through GInitable: a store opened without
 * NCZ_STORE_CREATE needs its directory to exist.
 *
 * Only the synchronous calls are implemented: the asynchronous pairs,
 * read_ranges, read_many, write_many, list_page, commit and discard come
 * from the interface's defaults.
 *
 * The module file is libncz-store-sdkdir.so: its entry point is
 * ncz_plugin_sdkdir_describe.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define SDKDIR_TYPE_STORE (sdkdir_store_get_type ())
G_DECLARE_FINAL_TYPE (SdkdirStore, sdkdir_store, SDKDIR, STORE, GObject)

struct _SdkdirStore
{
  GObject parent_instance;
  NczUrl *url;
  NczStoreFlags flags;
  char *root;
};

enum { PROP_0, PROP_URL, PROP_FLAGS };

static void sdkdir_store_iface_init (NczStoreInterface *iface);
static void sdkdir_store_initable_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SdkdirStore, sdkdir_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE, sdkdir_store_iface_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, sdkdir_store_initable_init))

static char *
key_path (SdkdirStore *self, const char *key)
{
  return *key ? g_build_filename (self->root, key, NULL) : g_strdup (self->root);
}

static gboolean
set_errno_error (GError **error, int errsv, const char *what, const char *key)
{
  int code = errsv == ENOENT || errsv == ENOTDIR ? NCZ_STORAGE_ERROR_NOT_FOUND
           : errsv == EACCES || errsv == EPERM ? NCZ_STORAGE_ERROR_PERMISSION
           : NCZ_STORAGE_ERROR_IO;

  g_set_error (error, NCZ_STORAGE_ERROR, code, "sdkdir: %s '%s': %s", what, key,
               g_strerror (errsv));
  return FALSE;
}

static gboolean
check_writable (SdkdirStore *self, const char *key, GError **error)
{
  if (self->flags & NCZ_STORE_WRITE)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
               "sdkdir: '%s' not written: the store is read-only", key);
  return FALSE;
}

static GBytes *
sdkdir_read (NczStore *store, const char *key, guint64 offset, gint64 length,
             GCancellable *cancellable, GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (store);
  g_autofree char *path = key_path (self, key);
  g_autoptr(GBytes) whole = NULL;
  char *contents = NULL;
  gsize size = 0, n;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "sdkdir: no object '%s' (a prefix)", key);
      return NULL;
    }
  if (!g_file_get_contents (path, &contents, &size, NULL))
    {
      set_errno_error (error, errno, "cannot read", key);
      return NULL;
    }
  whole = g_bytes_new_take (contents, size);
  if (offset > size)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "sdkdir: '%s' is %" G_GSIZE_FORMAT " bytes long, read asked from byte %"
                   G_GUINT64_FORMAT, key, size, offset);
      return NULL;
    }
  n = size - (gsize) offset;
  if (length >= 0 && (guint64) length < n)
    n = (gsize) length;
  return g_bytes_new_from_bytes (whole, (gsize) offset, n);
}

static gboolean
sdkdir_write (NczStore *store, const char *key, GBytes *data, GCancellable *cancellable,
              GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (store);
  g_autofree char *path = key_path (self, key);
  g_autofree char *dir = g_path_get_dirname (path);
  gsize size = 0;
  const char *bytes = g_bytes_get_data (data, &size);
  GError *local = NULL;

  if (!check_writable (self, key, error))
    return FALSE;
  if (g_mkdir_with_parents (dir, 0777) != 0)
    return set_errno_error (error, errno, "cannot make the directory of", key);
  if (!g_file_set_contents (path, bytes ? bytes : "", (gssize) size, &local))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO, "sdkdir: '%s': %s", key,
                   local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      gboolean ok = TRUE;

      if (dir == NULL)
        return FALSE;
      while (ok && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          ok = remove_tree (child);
        }
      g_dir_close (dir);
      return ok && g_rmdir (path) == 0;
    }
  return g_remove (path) == 0 || errno == ENOENT;
}

static gboolean
sdkdir_remove (NczStore *store, const char *key, GCancellable *cancellable, GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (store);
  g_autofree char *path = key_path (self, key);

  if (!check_writable (self, key, error))
    return FALSE;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  if (*key == '\0')
    {
      /* everything: the root itself stays */
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;

      if (dir == NULL)
        return set_errno_error (error, errno, "cannot list", key);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          if (!remove_tree (child))
            {
              int errsv = errno;
              g_dir_close (dir);
              return set_errno_error (error, errsv, "cannot remove", name);
            }
        }
      g_dir_close (dir);
      return TRUE;
    }
  if (!remove_tree (path))
    return set_errno_error (error, errno, "cannot remove", key);
  return TRUE;
}

static gboolean
sdkdir_get_length (NczStore *store, const char *key, guint64 *length,
                   GCancellable *cancellable, GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (store);
  g_autofree char *path = key_path (self, key);
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return set_errno_error (error, errno, "no object", key);
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "sdkdir: no object '%s' (a prefix)", key);
      return FALSE;
    }
  *length = (guint64) st.st_size;
  return TRUE;
}

static char **
sdkdir_list (NczStore *store, const char *prefix, GCancellable *cancellable, GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (store);
  g_autofree char *path = key_path (self, prefix);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_new0 (char *, 1);   /* no children */
  dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    {
      set_errno_error (error, errno, "cannot list", prefix);
      return NULL;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

static void
sdkdir_store_iface_init (NczStoreInterface *iface)
{
  iface->read = sdkdir_read;
  iface->write = sdkdir_write;
  iface->remove = sdkdir_remove;
  iface->get_length = sdkdir_get_length;
  iface->list = sdkdir_list;
  /* the rest (asynchronous pairs, read_ranges, read_many, write_many,
   * list_page, get_io_depth_hint, commit, discard): Ncz's defaults */
}

static gboolean
sdkdir_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  SdkdirStore *self = SDKDIR_STORE (initable);
  const char *local;

  local = self->url ? ncz_url_get_local_path (self->url) : NULL;
  if (local == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "sdkdir: the URL names no local directory");
      return FALSE;
    }
  self->root = g_strdup (local);
  if (self->flags & NCZ_STORE_CREATE)
    {
      if (g_mkdir_with_parents (self->root, 0777) != 0)
        return set_errno_error (error, errno, "cannot make the directory", self->root);
    }
  else if (!g_file_test (self->root, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "sdkdir: no directory '%s'", self->root);
      return FALSE;
    }
  return TRUE;
}

static void
sdkdir_store_initable_init (GInitableIface *iface)
{
  iface->init = sdkdir_initable_init;
}

static void
sdkdir_store_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  SdkdirStore *self = SDKDIR_STORE (object);

  switch (id)
    {
    case PROP_URL:
      self->url = g_value_dup_object (value);
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
sdkdir_store_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  SdkdirStore *self = SDKDIR_STORE (object);

  switch (id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
sdkdir_store_finalize (GObject *object)
{
  SdkdirStore *self = SDKDIR_STORE (object);

  g_clear_object (&self->url);
  g_free (self->root);
  G_OBJECT_CLASS (sdkdir_store_parent_class)->finalize (object);
}

static void
sdkdir_store_class_init (SdkdirStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = sdkdir_store_set_property;
  object_class->get_property = sdkdir_store_get_property;
  object_class->finalize = sdkdir_store_finalize;
  /* declared by the NczStore interface */
  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
}

static void
sdkdir_store_init (SdkdirStore *self)
{
}

/* ---- the module ---- */

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_sdkdir_describe (void);

static gboolean
register_sdkdir (NczRegistry *registry, GError **error)
{
  ncz_registry_add_store (registry, "sdkdir", SDKDIR_TYPE_STORE, NCZ_PRIORITY_PRIMARY);
  return TRUE;
}

static const NczPluginDesc sdkdir_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "sdkdir",
  .version = "0.1.0",
  .license = "BSD-3-Clause",
  .description = "Directory store built out of tree",
  .register_func = register_sdkdir,
};

const NczPluginDesc *
ncz_plugin_sdkdir_describe (void)
{
  return &sdkdir_desc;
}
