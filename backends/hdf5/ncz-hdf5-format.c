/* ncz-hdf5-format.c: the HDF5 (netCDF-4) format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "hdf5-private.h"

/*
 * NczHdf5Format:
 *
 * netCDF-4 files through libhdf5. A local file is opened with HDF5's own
 * POSIX driver, read-only or for update in place. A new file is written
 * to a staging file beside the target (`.NAME.ncz-hHOST-pPID-XXXXXX`) and
 * renamed over it at close, so a failed or discarded creation leaves what
 * was at the path as it was. A URL that is not a local file, or that has mode
 * `bytes`, is read through a store with ranged reads (hdf5-vfd.c).
 *
 * Every libhdf5 call is made with the module-wide lock held.
 */

enum {
  PROP_0,
  PROP_URL,
  PROP_STORE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void ncz_hdf5_format_iface_init (NczFormatInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczHdf5Format, ncz_hdf5_format, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT,
                                                      ncz_hdf5_format_iface_init))

static const char *
hdf5_get_name (NczFormat *format)
{
  return "hdf5";
}

static gboolean
is_bytes_url (NczHdf5Format *self)
{
  return (ncz_url_get_given_mode (self->url) & NCZ_URL_MODE_BYTES) != 0 ||
         ncz_url_get_local_path (self->url) == NULL;
}

static gboolean
hdf5_open (NczFormat *format, NczDataset *dataset, GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  gboolean ok;

  ncz_h5_init ();
  self->dataset = dataset;
  self->writable = ncz_dataset_is_writable (dataset);
  /* the store driver (hdf5-vfd.c) takes the current cancellable */
  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  ncz_h5_lock ();
  if (is_bytes_url (self))
    {
      if (self->writable)
        {
          ncz_h5_unlock ();
          if (cancellable != NULL)
            g_cancellable_pop_current (cancellable);
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY,
                       "%s: a netCDF-4 file read through a store (mode=bytes) is read-only",
                       ncz_url_get_original (self->url));
          return FALSE;
        }
      ok = ncz_h5_open_bytes (self, error);
    }
  else
    {
      hid_t fapl = ncz_h5_new_fapl ();
      gint64 wait_ms = 0, deadline = 0;
      gulong delay_ms = 1;
      gboolean busy = FALSE;

      self->path = g_strdup (ncz_url_get_local_path (self->url));
      /* a writer waits for another process's lock on the file (libhdf5's
       * flock, which the driver takes without waiting) up to lock.timeout */
      if (self->writable && !ncz_lock_timeout_for_url (self->url, &wait_ms, error))
        {
          H5Pclose (fapl);
          ncz_h5_unlock ();
          if (cancellable != NULL)
            g_cancellable_pop_current (cancellable);
          return FALSE;
        }
      deadline = wait_ms < 0 ? G_MAXINT64
                             : g_get_monotonic_time () + wait_ms * G_TIME_SPAN_MILLISECOND;
      for (;;)
        {
          ncz_h5_take_lock_busy ();
          if (fapl >= 0 && ncz_h5_set_posix_driver (fapl))
            self->file = H5Fopen (self->path,
                                  self->writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
          busy = self->file < 0 && ncz_h5_take_lock_busy ();
          if (self->file >= 0 || !self->writable || !busy ||
              g_get_monotonic_time () >= deadline ||
              g_cancellable_is_cancelled (cancellable))
            break;
          /* let the process's other HDF5 calls run meanwhile */
          ncz_h5_unlock ();
          g_usleep (delay_ms * 1000);
          delay_ms = MIN (delay_ms * 2, 50);
          ncz_h5_lock ();
        }
      ok = self->file >= 0;
      /* before any other HDF5 call, which would clear the error stack */
      if (!ok && busy && !self->writable)
        ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                          "%s: another process has the file open for writing, and libhdf5 "
                          "does not let it be read meanwhile; cannot open the netCDF-4/HDF5 "
                          "file", self->path);
      else if (!ok && busy)
        ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                          "%s: another process has the file open for writing (waited %.3g s, "
                          "lock.timeout); cannot open the netCDF-4/HDF5 file", self->path,
                          wait_ms < 0 ? 0.0 : wait_ms / 1000.0);
      else if (!ok)
        ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                          "%s: cannot open the netCDF-4/HDF5 file", self->path);
      H5Pclose (fapl);
    }
  if (ok && !self->writable)
    ncz_h5_open_raw_source (self);
  if (ok)
    ok = ncz_h5_load (self, dataset, error);
  ncz_h5_unlock ();
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);
  return ok;
}

/* Staging files are named `.NAME.ncz-hHOST-pPID-XXXXXX`, with no kind
 * (<ncz/ncz-staging.h>; earlier versions wrote `.NAME.ncz-XXXXXX`). While
 * a writer lives it holds an open-file-description read lock on its
 * staging file; such locks are apart from the flock() libhdf5 takes on
 * the same file, they go with the process, and NFS forwards them to its
 * server. The next creation of the same path removes the staging files
 * that are leftovers by the rule of ncz_staging_remove_leftovers(): a
 * file of this host whose writer is dead and that nobody holds, or a
 * file of another host (or of an earlier version) unchanged for a day
 * and not held. */
static const NczStagingKind staging_kinds[] = {
  { "", FALSE, NCZ_STAGING_LOCK_OFD },
};

/* Removes the staging file, if any, and lets go of its lock. */
static void
drop_stage (NczHdf5Format *self)
{
  if (self->stage_path != NULL)
    g_unlink (self->stage_path);
  g_clear_pointer (&self->stage_path, g_free);
  if (self->stage_fd >= 0)
    close (self->stage_fd);
  self->stage_fd = -1;
}

/* A new file is written beside its target and renamed at close. */
static gboolean
hdf5_create (NczFormat *format, NczDataset *dataset, GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  const char *path = ncz_url_get_local_path (self->url);
  g_autofree char *dir = NULL;
  g_autofree char *template = NULL;
  gboolean ok;
  int fd;

  ncz_h5_init ();
  self->dataset = dataset;
  self->writable = TRUE;
  self->created = TRUE;
  if (path == NULL || (ncz_url_get_given_mode (self->url) & NCZ_URL_MODE_BYTES) != 0)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: netCDF-4 files are created on local paths only",
                   ncz_url_get_original (self->url));
      return FALSE;
    }
  self->path = g_strdup (path);
  dir = g_path_get_dirname (path);
  ncz_staging_remove_leftovers (path, staging_kinds, G_N_ELEMENTS (staging_kinds), NULL, NULL);
  template = ncz_staging_path_for (path, "");
  fd = g_mkstemp_full (template, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int e = errno;

      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "%s: cannot create a file in %s: %s", path, dir, g_strerror (e));
      return FALSE;
    }
  /* where the file system has no such locks the file is only ever
   * removed by this writer */
  if (!ncz_staging_hold_lock (fd, NCZ_STAGING_LOCK_OFD))
    g_debug ("%s: cannot lock the staging file %s: %s", path, template, g_strerror (errno));
  self->stage_fd = fd;
  self->stage_path = g_steal_pointer (&template);
  ncz_h5_lock ();
  ok = ncz_h5_create (self, dataset, error);
  ncz_h5_unlock ();
  if (!ok)
    drop_stage (self);
  return ok;
}

static gboolean
hdf5_sync (NczFormat *format, NczDataset *dataset, GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  gboolean ok;

  if (!self->writable || self->file < 0)
    return TRUE;
  ncz_h5_lock ();
  ok = ncz_h5_materialize (self, dataset, error) && ncz_h5_sync (self, dataset, error);
  if (ok && H5Fflush (self->file, H5F_SCOPE_GLOBAL) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: flushing the file",
                        self->path);
      ok = FALSE;
    }
  ncz_h5_unlock ();
  return ok;
}

static void
close_ids (NczHdf5Format *self)
{
  GHashTableIter iter;
  NczH5Node *node;

  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
    {
      if (node->scale >= 0 && node->scale != node->id && H5Iis_valid (node->scale) > 0)
        H5Oclose (node->scale);
      if (node->id >= 0 && H5Iis_valid (node->id) > 0)
        H5Oclose (node->id);
      node->id = node->scale = H5I_INVALID_HID;
    }
  H5Eclear2 (H5E_DEFAULT);
}

static gboolean
sync_path (const char *path, GError **error)
{
  int fd = open (path, O_RDONLY);

  if (fd < 0 || fsync (fd) != 0)
    {
      int e = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "%s: syncing to disk: %s", path, g_strerror (e));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

static gboolean
hdf5_close (NczFormat *format, NczDataset *dataset, GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  gboolean discard = ncz_dataset_is_discarded (dataset);
  gboolean ok = TRUE;

  ncz_h5_lock ();
  close_ids (self);
  if (self->file >= 0 && H5Fclose (self->file) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: closing the file",
                        self->path);
      ok = FALSE;
    }
  self->file = H5I_INVALID_HID;
  ncz_h5_unlock ();
  self->raw_source = FALSE;
  if (self->raw_fd >= 0)
    close (self->raw_fd);
  self->raw_fd = -1;
  g_clear_object (&self->bytes_store);

  if (self->stage_path == NULL)
    return ok;
  if (discard || !ok)
    {
      drop_stage (self);
      return ok;
    }
  /* the new file replaces what was at the path only now */
  if (!sync_path (self->stage_path, error))
    ok = FALSE;
  else if (g_rename (self->stage_path, self->path) != 0)
    {
      int e = errno;

      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "%s: replacing it with the new file: %s", self->path, g_strerror (e));
      ok = FALSE;
    }
  else
    {
      g_autofree char *dir = g_path_get_dirname (self->path);

      sync_path (dir, NULL);
      /* renamed: nothing is left to remove */
      g_clear_pointer (&self->stage_path, g_free);
    }
  drop_stage (self);
  return ok;
}

static gboolean
ensure_objects (NczHdf5Format *self, GError **error)
{
  gboolean ok;

  if (!self->writable)
    return TRUE;
  ncz_h5_lock ();
  ok = ncz_h5_materialize (self, self->dataset, error);
  ncz_h5_unlock ();
  return ok;
}

static gboolean
hdf5_read_slab (NczFormat *format, NczVariable *variable, const guint64 *start,
                const guint64 *count, const gint64 *stride, gpointer buffer,
                GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  gboolean ok;

  /* the store driver (hdf5-vfd.c) takes the current cancellable */
  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  ok = ensure_objects (self, error) &&
       ncz_h5_read_slab (self, variable, start, count, stride, buffer, cancellable, error);
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);
  return ok;
}

static gboolean
hdf5_write_slab (NczFormat *format, NczVariable *variable, const guint64 *start,
                 const guint64 *count, const gint64 *stride, gconstpointer buffer,
                 GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);

  return ensure_objects (self, error) &&
         ncz_h5_write_slab (self, variable, start, count, stride, buffer, cancellable, error);
}

static GArray *
hdf5_query_chunks (NczFormat *format, NczVariable *variable, const guint64 *chunk_indices,
                   guint n_chunks, GCancellable *cancellable, GError **error)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);

  if (!ensure_objects (self, error))
    return NULL;
  return ncz_h5_query_chunks (self, variable, chunk_indices, n_chunks, cancellable, error);
}

/* Chunk access is not used: the backend does its own slab I/O. */
static GBytes *
hdf5_read_chunk (NczFormat *format, NczVariable *variable, const guint64 *chunk_index,
                 GCancellable *cancellable, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "variable '%s': the hdf5 format reads hyperslabs, not single chunks",
               ncz_variable_get_name (variable));
  return NULL;
}

static gboolean
hdf5_write_chunk (NczFormat *format, NczVariable *variable, const guint64 *chunk_index,
                  GBytes *data, GCancellable *cancellable, GError **error)
{
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
               "variable '%s': the hdf5 format writes hyperslabs, not single chunks",
               ncz_variable_get_name (variable));
  return FALSE;
}

static GPtrArray *
hdf5_describe_variable (NczFormat *format, NczVariable *variable)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  GPtrArray *result;

  ncz_h5_lock ();
  result = ncz_h5_describe_variable (self, variable);
  ncz_h5_unlock ();
  return result;
}

static GPtrArray *
hdf5_describe_dataset (NczFormat *format, NczDataset *dataset)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format);
  GPtrArray *result;

  ncz_h5_lock ();
  result = ncz_h5_describe_dataset (self, dataset);
  ncz_h5_unlock ();
  return result;
}

#define HOOK_BODY(call)                 \
  NczHdf5Format *self = NCZ_HDF5_FORMAT (format); \
  gboolean ok;                          \
  ncz_h5_lock ();                       \
  ok = (call);                          \
  ncz_h5_unlock ();                     \
  return ok;

static gboolean
hdf5_group_defined (NczFormat *format, NczGroup *group, NczDefinitionChange change,
                    GError **error)
{
  HOOK_BODY (ncz_h5_group_defined (self, group, change, error))
}

static gboolean
hdf5_dimension_defined (NczFormat *format, NczDimension *dimension,
                        NczDefinitionChange change, GError **error)
{
  HOOK_BODY (ncz_h5_dimension_defined (self, dimension, change, error))
}

static gboolean
hdf5_variable_defined (NczFormat *format, NczVariable *variable, NczDefinitionChange change,
                       GError **error)
{
  HOOK_BODY (ncz_h5_variable_defined (self, variable, change, error))
}

static gboolean
hdf5_attribute_defined (NczFormat *format, GObject *owner, const char *name,
                        NczAttribute *attribute, NczDefinitionChange change, GError **error)
{
  HOOK_BODY (ncz_h5_attribute_defined (self, owner, name, attribute, change, error))
}

static void
ncz_hdf5_format_iface_init (NczFormatInterface *iface)
{
  iface->get_name = hdf5_get_name;
  iface->open = hdf5_open;
  iface->create = hdf5_create;
  iface->sync = hdf5_sync;
  iface->close = hdf5_close;
  iface->read_chunk = hdf5_read_chunk;
  iface->write_chunk = hdf5_write_chunk;
  iface->read_slab = hdf5_read_slab;
  iface->query_chunks = hdf5_query_chunks;
  iface->write_slab = hdf5_write_slab;
  iface->describe_variable = hdf5_describe_variable;
  iface->describe_dataset = hdf5_describe_dataset;
  iface->group_defined = hdf5_group_defined;
  iface->dimension_defined = hdf5_dimension_defined;
  iface->variable_defined = hdf5_variable_defined;
  iface->attribute_defined = hdf5_attribute_defined;
  iface->flags = NCZ_FORMAT_NO_STORE;
}

static void
node_free (gpointer data)
{
  NczH5Node *node = data;

  ncz_h5_pipeline_free (node->pipeline);
  ncz_h5_contiguous_free (node->contiguous);
  g_free (node->data);
  g_free (node);
}

static void
ncz_hdf5_format_set_property (GObject *object, guint prop_id,
                              const GValue *value, GParamSpec *pspec)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_set_object (&self->url, g_value_get_object (value));
      break;
    case PROP_STORE:
      g_set_object (&self->store, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_hdf5_format_get_property (GObject *object, guint prop_id,
                              GValue *value, GParamSpec *pspec)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_STORE:
      g_value_set_object (value, self->store);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_hdf5_format_finalize (GObject *object)
{
  NczHdf5Format *self = NCZ_HDF5_FORMAT (object);

  if (self->file >= 0)
    {
      ncz_h5_lock ();
      close_ids (self);
      H5Fclose (self->file);
      H5Eclear2 (H5E_DEFAULT);
      ncz_h5_unlock ();
    }
  drop_stage (self);
  if (self->raw_fd >= 0)
    close (self->raw_fd);
  g_free (self->path);
  g_free (self->bytes_key);
  g_free (self->nc_properties);
  g_hash_table_unref (self->nodes);
  g_clear_object (&self->bytes_store);
  g_clear_object (&self->store);
  g_clear_object (&self->url);
  G_OBJECT_CLASS (ncz_hdf5_format_parent_class)->finalize (object);
}

static void
ncz_hdf5_format_class_init (NczHdf5FormatClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = ncz_hdf5_format_set_property;
  object_class->get_property = ncz_hdf5_format_get_property;
  object_class->finalize = ncz_hdf5_format_finalize;

  properties[PROP_URL] =
    g_param_spec_object ("url", NULL, NULL, NCZ_TYPE_URL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STORE] =
    g_param_spec_object ("store", NULL, NULL, NCZ_TYPE_STORE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ncz_hdf5_format_init (NczHdf5Format *self)
{
  self->file = H5I_INVALID_HID;
  self->stage_fd = -1;
  self->raw_fd = -1;
  self->nodes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, node_free);
}
