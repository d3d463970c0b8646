/* hdf5-vfd.c: an HDF5 virtual file driver reading through an NczStore
 *
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `#mode=bytes` opens one netCDF-4/HDF5 file, read-only, through a store
 * that has ranged reads: an object in S3 (`s3://bucket/dir/f.nc`, or
 * `https://host:port/bucket/f.nc` path style), an entry of a zip archive
 * (`/d/a.zip#mode=bytes&key=f.nc`) or a file of a directory (a local path
 * with `#mode=bytes`, through the file store).
 *
 * Where the file is: with a `key=` fragment key, the URL names the store
 * and the key the file in it (a zip archive is always named so); without
 * one, the URL names the file, its last path segment is the key and its
 * parent is the store. The store's URL keeps the fragment keys the store
 * reads (`endpoint`, `aws.profile`, `s3.*`, ...) and says its storage
 * mode (`file`, `zip` or `s3`) instead of `bytes`.
 *
 * The driver (H5FD_class_t of libhdf5 1.10) is registered once, under
 * the module's HDF5 lock. What it reads through is handed to it in the
 * file access property list as its driver info: a reference-counted
 * VfdConfig holding the store, the key and the last store error, so that
 * the store's own message survives HDF5's error stack (it is also pushed
 * on that stack, innermost, so ncz_h5_set_error() names it whenever a
 * later read fails).
 *
 * Reads go through a block cache per open file: aligned blocks of
 * BLOCK_SIZE bytes, at most MAX_BLOCKS of them, least recently used
 * dropped first. The blocks one HDF5 read lacks are fetched with one
 * ranged read, or one ncz_store_read_ranges() call when they are not
 * contiguous. Reads of at least BYPASS_SIZE bytes, and raw-data reads of
 * a block or more, go to the store directly and are not cached. HDF5
 * calls the driver with the module's lock held; the stores' synchronous
 * calls wait for their own threads (the S3 store runs its requests on a
 * thread and main context of its own) and never take that lock, so they
 * cannot deadlock with it. Each read honours the GCancellable that is
 * current on the calling thread (g_cancellable_push_current()), if any.
 */
#include <string.h>

#include "hdf5-private.h"

#define BLOCK_SIZE NCZ_H5_STORE_BLOCK_SIZE
#define MAX_BLOCKS 64                            /* 4 MiB */
#define BYPASS_SIZE (4 * BLOCK_SIZE)
#define VFD_MAXADDR ((haddr_t) G_MAXINT64)

/* ---- what the file access property list carries ---- */

typedef struct {
  NczStore *store;
  char *key;
  char *url;          /* for messages */
  GMutex lock;        /* guards @error */
  GError *error;      /* the last store error */
} VfdConfig;

static void
vfd_config_clear (gpointer data)
{
  VfdConfig *config = data;

  g_clear_object (&config->store);
  g_free (config->key);
  g_free (config->url);
  g_clear_error (&config->error);
  g_mutex_clear (&config->lock);
}

static VfdConfig *
vfd_config_new (NczStore *store, const char *key, const char *url)
{
  VfdConfig *config = g_atomic_rc_box_new0 (VfdConfig);

  config->store = g_object_ref (store);
  config->key = g_strdup (key);
  config->url = g_strdup (url);
  g_mutex_init (&config->lock);
  return config;
}

static void
vfd_config_unref (VfdConfig *config)
{
  g_atomic_rc_box_release_full (config, vfd_config_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (VfdConfig, vfd_config_unref)

/* Takes @error: keeps it as the config's last error, and pushes its
 * message on HDF5's error stack. */
static void
vfd_fail_with (VfdConfig *config, const char *func, H5E_minor_t minor, GError *error)
{
  H5Epush2 (H5E_DEFAULT, __FILE__, func, __LINE__, H5E_ERR_CLS, H5E_VFL, minor,
            "%s", error->message);
  g_mutex_lock (&config->lock);
  g_clear_error (&config->error);
  config->error = error;
  g_mutex_unlock (&config->lock);
}

static void
vfd_fail (VfdConfig *config, const char *func, H5E_minor_t minor, gint code,
          const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
vfd_fail (VfdConfig *config, const char *func, H5E_minor_t minor, gint code,
          const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  vfd_fail_with (config, func, minor,
                 g_error_new (NCZ_STORAGE_ERROR, code, "%s: key '%s': %s", config->url,
                              config->key, message));
}

static GError *
vfd_config_take_error (VfdConfig *config)
{
  GError *error;

  g_mutex_lock (&config->lock);
  error = g_steal_pointer (&config->error);
  g_mutex_unlock (&config->lock);
  return error;
}

static void *
vfd_fapl_copy (const void *info)
{
  return g_atomic_rc_box_acquire ((VfdConfig *) info);
}

static herr_t
vfd_fapl_free (void *info)
{
  vfd_config_unref (info);
  return 0;
}

/* ---- an open file ---- */

typedef struct {
  guint64 index;
  GBytes *data;       /* BLOCK_SIZE bytes, fewer for the last block */
  GList link;         /* in VfdFile.lru, data = this block */
} Block;

typedef struct {
  NczH5DriverFile base; /* first */
  VfdConfig *config;
  GHashTable *blocks; /* &index → Block */
  GQueue lru;         /* most recently used first */
  /* statistics, logged at close */
  guint64 n_reads;
  guint64 n_requests;
  guint64 n_bytes;
} VfdFile;

static void
block_free (gpointer data)
{
  Block *block = data;

  g_bytes_unref (block->data);
  g_free (block);
}

static H5FD_t *vfd_open (const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr);
static herr_t vfd_close (H5FD_t *file);
static void *vfd_fapl_get (H5FD_t *file);
static herr_t vfd_read (H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                        void *buffer);
static herr_t vfd_write (H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                         const void *buffer);
static herr_t vfd_truncate (H5FD_t *file, hid_t dxpl, hbool_t closing);

static const H5FD_class_t vfd_class = {
  .name = "ncz-store",
  .maxaddr = VFD_MAXADDR,
  .fc_degree = H5F_CLOSE_STRONG,
  .fapl_size = sizeof (VfdConfig),
  .fapl_get = vfd_fapl_get,
  .fapl_copy = vfd_fapl_copy,
  .fapl_free = vfd_fapl_free,
  .open = vfd_open,
  .close = vfd_close,
  .query = ncz_h5_driver_query,
  .get_eoa = ncz_h5_driver_get_eoa,
  .set_eoa = ncz_h5_driver_set_eoa,
  .get_eof = ncz_h5_driver_get_eof,
  .read = vfd_read,
  .write = vfd_write,
  .truncate = vfd_truncate,
  .get_handle = ncz_h5_driver_get_handle,
  .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static hid_t vfd_id = H5I_INVALID_HID;

/* The driver's id, registering it the first time. Lock held. */
static hid_t
vfd_get_id (void)
{
  if (vfd_id < 0 || H5Iis_valid (vfd_id) <= 0)
    vfd_id = H5FDregister (&vfd_class);
  return vfd_id;
}

static H5FD_t *
vfd_open (const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
  VfdConfig *config = (VfdConfig *) H5Pget_driver_info (fapl);
  g_autoptr(GError) local_error = NULL;
  VfdFile *file;
  guint64 length;

  if (config == NULL)
    {
      H5Epush2 (H5E_DEFAULT, __FILE__, G_STRFUNC, __LINE__, H5E_ERR_CLS, H5E_VFL,
                H5E_BADVALUE, "%s: the store driver was given no store", name);
      return NULL;
    }
  if ((flags & (H5F_ACC_RDWR | H5F_ACC_TRUNC | H5F_ACC_CREAT | H5F_ACC_EXCL)) != 0)
    {
      vfd_fail (config, G_STRFUNC, H5E_CANTOPENFILE, NCZ_STORAGE_ERROR_READ_ONLY,
                "a file read through a store is read-only");
      return NULL;
    }
  if (!ncz_store_get_length (config->store, config->key, &length,
                             g_cancellable_get_current (), &local_error))
    {
      vfd_fail_with (config, G_STRFUNC, H5E_CANTOPENFILE, g_steal_pointer (&local_error));
      return NULL;
    }
  if (length > VFD_MAXADDR)
    {
      vfd_fail (config, G_STRFUNC, H5E_CANTOPENFILE, NCZ_STORAGE_ERROR_FAILED,
                "%" G_GUINT64_FORMAT " bytes is too large", length);
      return NULL;
    }

  file = g_new0 (VfdFile, 1);
  ncz_h5_driver_file_init (&file->base, length, TRUE);
  file->config = g_atomic_rc_box_acquire (config);
  file->n_requests = 1; /* the length */
  file->blocks = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, block_free);
  g_queue_init (&file->lru);
  return &file->base.pub;
}

static herr_t
vfd_close (H5FD_t *_file)
{
  VfdFile *file = (VfdFile *) _file;

  g_debug ("%s: key '%s': %" G_GUINT64_FORMAT " HDF5 reads, %" G_GUINT64_FORMAT
           " store requests, %" G_GUINT64_FORMAT " bytes read of %" G_GUINT64_FORMAT,
           file->config->url, file->config->key, file->n_reads, file->n_requests,
           file->n_bytes, file->base.eof);
  ncz_h5_driver_file_clear (&file->base);
  g_hash_table_unref (file->blocks);
  vfd_config_unref (file->config);
  g_free (file);
  return 0;
}

static void *
vfd_fapl_get (H5FD_t *_file)
{
  VfdFile *file = (VfdFile *) _file;

  return g_atomic_rc_box_acquire (file->config);
}

static herr_t
vfd_write (H5FD_t *_file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
           const void *buffer)
{
  VfdFile *file = (VfdFile *) _file;

  vfd_fail (file->config, G_STRFUNC, H5E_WRITEERROR, NCZ_STORAGE_ERROR_READ_ONLY,
            "a file read through a store is read-only");
  return -1;
}

/* Nothing is ever written: truncating to where the file ends already is
 * fine, anything else is refused. */
static herr_t
vfd_truncate (H5FD_t *_file, hid_t dxpl, hbool_t closing)
{
  VfdFile *file = (VfdFile *) _file;

  if (file->base.eoa == file->base.eof)
    return 0;
  vfd_fail (file->config, G_STRFUNC, H5E_CANTUPDATE, NCZ_STORAGE_ERROR_READ_ONLY,
            "a file read through a store is read-only: it cannot be truncated to %"
            G_GUINT64_FORMAT " bytes", (guint64) file->base.eoa);
  return -1;
}

/* Checks that the store gave @expected bytes at @offset. */
static gboolean
check_length (VfdFile *file, GBytes *bytes, guint64 offset, guint64 expected)
{
  if (g_bytes_get_size (bytes) == expected)
    return TRUE;
  vfd_fail (file->config, G_STRFUNC, H5E_READERROR, NCZ_STORAGE_ERROR_IO,
            "the store gave %" G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT
            " where %" G_GUINT64_FORMAT " were asked for (did the object change?)",
            g_bytes_get_size (bytes), offset, expected);
  return FALSE;
}

/* Reads @length bytes at @offset straight from the store into @buffer. */
static gboolean
read_direct (VfdFile *file, guint64 offset, guint64 length, guint8 *buffer)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  file->n_requests++;
  bytes = ncz_store_read_range (file->config->store, file->config->key, offset,
                                (gint64) length, g_cancellable_get_current (), &local_error);
  if (bytes == NULL)
    {
      vfd_fail_with (file->config, G_STRFUNC, H5E_READERROR, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (!check_length (file, bytes, offset, length))
    return FALSE;
  file->n_bytes += length;
  memcpy (buffer, g_bytes_get_data (bytes, NULL), length);
  return TRUE;
}

static guint64
block_length (VfdFile *file, guint64 index)
{
  guint64 start = index * BLOCK_SIZE;

  return MIN (BLOCK_SIZE, file->base.eof - start);
}

static void
cache_insert (VfdFile *file, guint64 index, GBytes *data)
{
  Block *block = g_new0 (Block, 1);

  block->index = index;
  block->data = g_bytes_ref (data);
  block->link.data = block;
  g_queue_push_head_link (&file->lru, &block->link);
  g_hash_table_insert (file->blocks, &block->index, block);
  while (file->lru.length > MAX_BLOCKS)
    {
      GList *last = g_queue_pop_tail_link (&file->lru);

      g_hash_table_remove (file->blocks, &((Block *) last->data)->index);
    }
}

/* Reads [@offset, @offset + @length) (within the file) through the
 * block cache. */
static gboolean
read_cached (VfdFile *file, guint64 offset, guint64 length, guint8 *buffer)
{
  guint64 first = offset / BLOCK_SIZE;
  guint64 last = (offset + length - 1) / BLOCK_SIZE;
  guint n = (guint) (last - first + 1);
  g_autoptr(GPtrArray) data = g_ptr_array_new_full (n, (GDestroyNotify) g_bytes_unref);
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (NczStoreRange));
  g_autoptr(GArray) range_first = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GPtrArray) fetched = NULL;
  g_autoptr(GError) local_error = NULL;

  /* the blocks at hand, and runs of missing ones */
  for (guint64 b = first; b <= last; b++)
    {
      Block *block = g_hash_table_lookup (file->blocks, &b);

      if (block != NULL)
        {
          g_queue_unlink (&file->lru, &block->link);
          g_queue_push_head_link (&file->lru, &block->link);
          g_ptr_array_add (data, g_bytes_ref (block->data));
          continue;
        }
      g_ptr_array_add (data, NULL);
      if (b > first && g_ptr_array_index (data, b - first - 1) == NULL && ranges->len > 0)
        {
          NczStoreRange *r = &g_array_index (ranges, NczStoreRange, ranges->len - 1);

          r->length += (gint64) block_length (file, b);
        }
      else
        {
          NczStoreRange r = { b * BLOCK_SIZE, (gint64) block_length (file, b) };

          g_array_append_val (ranges, r);
          g_array_append_val (range_first, b);
        }
    }

  if (ranges->len == 1)
    {
      NczStoreRange *r = &g_array_index (ranges, NczStoreRange, 0);
      GBytes *bytes;

      file->n_requests++;
      bytes = ncz_store_read_range (file->config->store, file->config->key, r->offset,
                                    r->length, g_cancellable_get_current (), &local_error);
      if (bytes != NULL)
        {
          fetched = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
          g_ptr_array_add (fetched, bytes);
        }
    }
  else if (ranges->len > 1)
    {
      file->n_requests += ranges->len;
      fetched = ncz_store_read_ranges (file->config->store, file->config->key,
                                       (const NczStoreRange *) ranges->data, ranges->len,
                                       g_cancellable_get_current (), &local_error);
    }
  if (ranges->len > 0 && fetched == NULL)
    {
      vfd_fail_with (file->config, G_STRFUNC, H5E_READERROR, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (fetched != NULL && fetched->len != ranges->len)
    {
      vfd_fail (file->config, G_STRFUNC, H5E_READERROR, NCZ_STORAGE_ERROR_IO,
                "the store gave %u byte ranges where %u were asked for", fetched->len,
                ranges->len);
      return FALSE;
    }

  /* cut what came into blocks, and cache them */
  for (guint i = 0; i < ranges->len; i++)
    {
      NczStoreRange *r = &g_array_index (ranges, NczStoreRange, i);
      GBytes *bytes = g_ptr_array_index (fetched, i);
      guint64 b = g_array_index (range_first, guint64, i);
      gsize at = 0;

      if (!check_length (file, bytes, r->offset, (guint64) r->length))
        return FALSE;
      file->n_bytes += (guint64) r->length;
      for (; at < (gsize) r->length; b++)
        {
          gsize len = (gsize) block_length (file, b);
          GBytes *slice = g_bytes_new_from_bytes (bytes, at, len);

          g_ptr_array_index (data, b - first) = slice;
          cache_insert (file, b, slice);
          at += len;
        }
    }

  for (guint64 b = first; b <= last; b++)
    {
      GBytes *block = g_ptr_array_index (data, b - first);
      guint64 start = b * BLOCK_SIZE;
      guint64 from = MAX (offset, start);
      guint64 to = MIN (offset + length, start + g_bytes_get_size (block));

      g_assert (to > from);
      memcpy (buffer + (from - offset), (const guint8 *) g_bytes_get_data (block, NULL) +
              (from - start), to - from);
    }
  return TRUE;
}

static herr_t
vfd_read (H5FD_t *_file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buffer)
{
  VfdFile *file = (VfdFile *) _file;
  g_autofree char *why = NULL;
  guint64 end, within;
  gboolean ok;

  if (!ncz_h5_driver_check_range (&file->base, addr, size, &why))
    {
      vfd_fail (file->config, G_STRFUNC, H5E_OVERFLOW, NCZ_STORAGE_ERROR_FAILED, "%s", why);
      return -1;
    }
  file->n_reads++;
  if (size == 0)
    return 0;

  /* what lies beyond the end of the object reads as zeros, as the POSIX
   * driver reads it */
  end = MIN ((guint64) addr + size, file->base.eof);
  within = end > addr ? end - addr : 0;
  if (within < size)
    memset ((guint8 *) buffer + within, 0, size - within);
  if (within == 0)
    return 0;

  if (within >= BYPASS_SIZE || (type == H5FD_MEM_DRAW && within >= BLOCK_SIZE))
    ok = read_direct (file, addr, within, buffer);
  else
    ok = read_cached (file, addr, within, buffer);
  if (!ok)
    return -1;
  if (!ncz_h5_driver_check_read (&file->base, type, buffer, size, addr, &why))
    {
      vfd_fail (file->config, G_STRFUNC, H5E_BADVALUE, NCZ_STORAGE_ERROR_FAILED, "%s", why);
      return -1;
    }
  return 0;
}

/* ---- from the URL to the store and key ---- */

static gboolean
is_store_fragment_key (const char *key)
{
  return !g_str_equal (key, "mode") && !g_str_equal (key, "key") &&
         !g_str_equal (key, "format");
}

/* The store's URL: @base (its scheme, host and path), `#mode=STORAGE`, and
 * the fragment keys of @url the store may read. */
static char *
store_url_string (NczUrl *url, const char *base, const char *storage)
{
  static const char key_allowed[] = "!$'()*+,;:@/?";
  static const char value_allowed[] = "!$'()*+,;:@/?=";
  g_auto(GStrv) keys = ncz_url_get_fragment_keys (url);
  GString *s = g_string_new (base);

  g_string_append_printf (s, "#mode=%s", storage);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      const char *value;

      if (!is_store_fragment_key (keys[i]))
        continue;
      value = ncz_url_get_fragment_value (url, keys[i]);
      g_string_append_c (s, '&');
      g_string_append_uri_escaped (s, keys[i], key_allowed, FALSE);
      if (value != NULL && *value != '\0')
        {
          g_string_append_c (s, '=');
          g_string_append_uri_escaped (s, value, value_allowed, FALSE);
        }
    }
  return g_string_free (s, FALSE);
}

/* Works out the store (as a URL string) and the key of a #mode=bytes URL. */
static gboolean
bytes_location (NczUrl *url, char **store_url, char **key, GError **error)
{
  const char *original = ncz_url_get_original (url);
  const char *storage = ncz_url_get_storage (url);
  const char *given_key = ncz_url_get_fragment_value (url, "key");
  const char *local = ncz_url_get_local_path (url);

  if (given_key != NULL && *given_key == '\0')
    given_key = NULL;
  if (storage == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "%s: the URL names no store to read the file through (mode=bytes takes "
                   "s3:// and http(s):// URLs, zip archives and local paths)", original);
      return FALSE;
    }

  if (local != NULL)
    {
      g_autofree char *dir = NULL;
      g_autofree char *uri = NULL;

      if (g_str_equal (storage, "zip") || given_key != NULL)
        {
          /* the URL is the store: an archive, or a directory */
          if (given_key == NULL)
            {
              g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                           "%s: name the file inside the zip archive with the fragment key "
                           "'key' (#mode=bytes&key=NAME)", original);
              return FALSE;
            }
          uri = g_filename_to_uri (local, NULL, error);
          *key = g_strdup (given_key);
        }
      else
        {
          dir = g_path_get_dirname (local);
          uri = g_filename_to_uri (dir, NULL, error);
          *key = g_path_get_basename (local);
        }
      if (uri == NULL)
        return FALSE;
      *store_url = store_url_string (url, uri, storage);
      return TRUE;
    }

  {
    const char *scheme = ncz_url_get_scheme (url);
    const char *host = ncz_url_get_host (url);
    const char *path = ncz_url_get_path (url);
    int port = ncz_url_get_port (url);
    g_autofree char *parent = NULL;
    g_autofree char *base = NULL;
    GString *b;

    if (path == NULL)
      path = "";
    if (g_str_has_suffix (path, "/") && given_key == NULL)
      {
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                     "%s: the URL ends in '/': it names no file (or give its name with "
                     "#mode=bytes&key=NAME)", original);
        return FALSE;
      }
    if (given_key != NULL)
      {
        parent = g_strdup (path);
        *key = g_strdup (given_key);
      }
    else
      {
        const char *slash = strrchr (path, '/');
        const char *last = slash != NULL ? slash + 1 : path;

        *key = g_uri_unescape_string (last, NULL);
        if (*key == NULL || **key == '\0')
          {
            g_clear_pointer (key, g_free);
            g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                         "%s: the URL names no file", original);
            return FALSE;
          }
        parent = g_strndup (path, slash != NULL ? (gsize) (slash - path) : 0);
      }
    b = g_string_new (scheme);
    g_string_append (b, "://");
    if (host != NULL)
      g_string_append_printf (b, strchr (host, ':') != NULL ? "[%s]" : "%s", host);
    if (port > 0)
      g_string_append_printf (b, ":%d", port);
    g_string_append (b, parent);
    base = g_string_free (b, FALSE);
    *store_url = store_url_string (url, base, storage);
    return TRUE;
  }
}

gboolean
ncz_h5_open_bytes (NczHdf5Format *self, GError **error)
{
  const char *original = ncz_url_get_original (self->url);
  g_autofree char *store_url = NULL;
  g_autofree char *key = NULL;
  g_autoptr(NczUrl) parsed = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(VfdConfig) config = NULL;
  GError *store_error;
  hid_t fapl, driver;

  if (!bytes_location (self->url, &store_url, &key, error))
    return FALSE;
  parsed = ncz_url_parse (store_url, &local_error);
  if (parsed == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "%s: the URL of the store holding '%s': ", original, key);
      return FALSE;
    }
  if (!ncz_store_key_is_valid (key, FALSE, &local_error))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", original);
      return FALSE;
    }
  self->bytes_store = ncz_registry_open_store (ncz_registry_get_default (), parsed,
                                               NCZ_STORE_READ, g_cancellable_get_current (),
                                               &local_error);
  if (self->bytes_store == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "%s: opening the store holding '%s': ", original, key);
      return FALSE;
    }
  g_free (self->bytes_key);
  self->bytes_key = g_strdup (key);
  if (self->path == NULL)
    self->path = g_strdup (original);

  driver = vfd_get_id ();
  if (driver < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: registering the store file driver with HDF5", original);
      return FALSE;
    }
  config = vfd_config_new (self->bytes_store, key, original);
  fapl = ncz_h5_new_fapl ();
  if (fapl < 0 || H5Pset_driver (fapl, driver, config) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: setting up the store file driver", original);
      if (fapl >= 0)
        H5Pclose (fapl);
      return FALSE;
    }
  self->file = H5Fopen (original, H5F_ACC_RDONLY, fapl);
  if (self->file >= 0)
    {
      H5Pclose (fapl);
      return TRUE;
    }

  store_error = vfd_config_take_error (config);
  if (store_error == NULL)
    {
      /* before any other HDF5 call, which would clear the error stack */
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: key '%s': cannot open it as a netCDF-4/HDF5 file", original, key);
      H5Pclose (fapl);
      return FALSE;
    }
  /* the store's own error says more than HDF5's stack */
  H5Eclear2 (H5E_DEFAULT);
  H5Pclose (fapl);
  if (store_error->domain == NCZ_STORAGE_ERROR && g_str_has_prefix (store_error->message, original))
    g_propagate_error (error, store_error);
  else
    g_propagate_prefixed_error (error, store_error, "%s: cannot read '%s' through its store: ",
                                original, key);
  return FALSE;
}
