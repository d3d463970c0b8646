/* ncz-dataset.c: datasets
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"
#include "ncz-io-private.h"
#include "ncz-registry-private.h"

/**
 * NczDataset:
 *
 * An open dataset: a URL, the storage driver and format backend serving
 * it, and the root #NczGroup of its data model. Definitions and writes
 * are kept in memory and in chunk objects; metadata is stored by
 * ncz_dataset_sync() and ncz_dataset_close().
 *
 * Every object obtained from a dataset (a group, dimension or variable)
 * keeps the dataset open and working while the caller holds it, so
 * `ncz_group_get_variable (ncz_dataset_get_root_group (ds), "t")` stays
 * usable after the last reference on `ds` is dropped. A dataset that
 * nobody closed is closed (its metadata stored) when neither it nor any
 * of its objects is held any more, and everything is freed then.
 *
 * Since: 1.0
 */
struct _NczDataset
{
  GObject parent_instance;
  NczUrl *url;
  NczStore *store;
  NczFormat *format;
  NczGroup *root;
  gboolean writable;
  gboolean data_only; /* NCZ_OPEN_WRITE_DATA: chunks only, never metadata */
  gboolean loading;
  gboolean closed;
  gboolean created;   /* by ncz_dataset_create*(): the store commits on close */
  gboolean discarded; /* closed by ncz_dataset_discard() */
  gboolean disposing; /* closed because nobody holds it: nobody to notify */
  gint io_depth;      /* requests in flight; 0: NCZ_IO_DEPTH, else the store's hint */
  GMutex lock;
};

G_DEFINE_FINAL_TYPE (NczDataset, ncz_dataset, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_IO_DEPTH,
  PROP_URL,
  PROP_ROOT_GROUP,
  PROP_WRITABLE,
  PROP_CLOSED,
  PROP_FORMAT_NAME,
  N_PROPS
};

static GParamSpec *dataset_props[N_PROPS];

static void
ncz_dataset_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  NczDataset *self = NCZ_DATASET (object);

  switch (prop_id)
    {
    case PROP_IO_DEPTH:
      g_value_set_uint (value, ncz_dataset_get_io_depth (self));
      break;
    case PROP_URL:
      g_value_set_string (value, ncz_dataset_get_url_string (self));
      break;
    case PROP_ROOT_GROUP:
      g_value_set_object (value, self->root);
      break;
    case PROP_WRITABLE:
      g_value_set_boolean (value, ncz_dataset_is_writable (self));
      break;
    case PROP_CLOSED:
      g_value_set_boolean (value, ncz_dataset_is_closed (self));
      break;
    case PROP_FORMAT_NAME:
      g_value_set_string (value, ncz_dataset_get_format_name (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_dataset_set_property (GObject *object, guint prop_id, const GValue *value,
                          GParamSpec *pspec)
{
  if (prop_id == PROP_IO_DEPTH)
    ncz_dataset_set_io_depth (NCZ_DATASET (object), g_value_get_uint (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_dataset_dispose (GObject *object)
{
  NczDataset *self = NCZ_DATASET (object);

  self->disposing = TRUE;
  if (!g_atomic_int_get (&self->closed) && self->format)
    {
      g_autoptr(GError) error = NULL;
      if (!ncz_dataset_close (self, NULL, &error))
        g_warning ("closing dataset '%s' failed: %s",
                   self->url ? ncz_url_get_original (self->url) : "?", error->message);
    }
  g_clear_pointer (&self->root, ncz_node_release);
  g_clear_object (&self->format);
  g_clear_object (&self->store);
  g_clear_object (&self->url);
  G_OBJECT_CLASS (ncz_dataset_parent_class)->dispose (object);
}

static void
ncz_dataset_finalize (GObject *object)
{
  g_mutex_clear (&NCZ_DATASET (object)->lock);
  G_OBJECT_CLASS (ncz_dataset_parent_class)->finalize (object);
}

static void
ncz_dataset_class_init (NczDatasetClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ncz_dataset_dispose;
  G_OBJECT_CLASS (klass)->finalize = ncz_dataset_finalize;
  G_OBJECT_CLASS (klass)->get_property = ncz_dataset_get_property;
  G_OBJECT_CLASS (klass)->set_property = ncz_dataset_set_property;

  /**
   * NczDataset:io-depth:
   *
   * How many storage requests the chunk engine keeps in flight when it
   * reads a selection, apart from the number of CPU workers that decode
   * chunks (a remote store wants dozens on two cores). Setting 0 goes
   * back to the default: the environment variable `NCZ_IO_DEPTH`, else
   * the store's [method@Ncz.Store.get_io_depth_hint]. Reading it gives
   * the depth in use.
   *
   * Since: 1.0
   */
  dataset_props[PROP_IO_DEPTH] =
      g_param_spec_uint ("io-depth", NULL, NULL, 0, NCZ_STORE_MAX_IO_DEPTH, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NczDataset:url: (getter get_url_string)
   *
   * The URL the dataset was opened or created with, as given.
   *
   * Since: 1.0
   */
  dataset_props[PROP_URL] = g_param_spec_string ("url", NULL, NULL, NULL,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczDataset:root-group: (getter get_root_group)
   *
   * The root group.
   *
   * Since: 1.0
   */
  dataset_props[PROP_ROOT_GROUP] = g_param_spec_object ("root-group", NULL, NULL, NCZ_TYPE_GROUP,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NczDataset:writable: (getter is_writable)
   *
   * Whether the dataset accepts definitions and writes; it becomes
   * %FALSE when the dataset is closed (#GObject::notify is emitted then,
   * on the thread that closed it).
   *
   * Since: 1.0
   */
  dataset_props[PROP_WRITABLE] = g_param_spec_boolean ("writable", NULL, NULL, FALSE,
                                                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                       G_PARAM_EXPLICIT_NOTIFY);
  /**
   * NczDataset:closed: (getter is_closed)
   *
   * Whether the dataset was closed or discarded; notified then, on the
   * thread that closed it.
   *
   * Since: 1.0
   */
  dataset_props[PROP_CLOSED] = g_param_spec_boolean ("closed", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                     G_PARAM_EXPLICIT_NOTIFY);
  /**
   * NczDataset:format-name: (getter get_format_name)
   *
   * The short name of the format serving the dataset ("nczarr", "zarr",
   * "hdf5").
   *
   * Since: 1.0
   */
  dataset_props[PROP_FORMAT_NAME] = g_param_spec_string ("format-name", NULL, NULL, NULL,
                                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (G_OBJECT_CLASS (klass), N_PROPS, dataset_props);
}

static void
ncz_dataset_init (NczDataset *self)
{
  g_mutex_init (&self->lock);
}

void
ncz_dataset_set_loading (NczDataset *self, gboolean loading)
{
  g_return_if_fail (NCZ_IS_DATASET (self));
  self->loading = loading;
}

gboolean
ncz_dataset_is_loading (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  return self->loading;
}

gboolean
ncz_dataset_check_writable (NczDataset *self, GError **error)
{
  if (self->loading)
    return TRUE;
  if (g_atomic_int_get (&self->closed))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed", ncz_url_get_original (self->url));
      return FALSE;
    }
  if (!self->writable)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY,
                   "dataset '%s' is open read-only", ncz_url_get_original (self->url));
      return FALSE;
    }
  return TRUE;
}

/**
 * ncz_dataset_is_closed: (get-property closed)
 * @self: a dataset
 *
 * Whether the dataset was closed (or discarded): its variables' data can
 * no longer be read or written.
 *
 * Returns: %TRUE once ncz_dataset_close() or ncz_dataset_discard() was
 *   called
 * Since: 1.0
 */
gboolean
ncz_dataset_is_closed (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), TRUE);
  return g_atomic_int_get (&self->closed);
}

static NczDataset *
dataset_new (NczUrl *url, NczStore *store, gboolean writable)
{
  NczDataset *self = g_object_new (NCZ_TYPE_DATASET, NULL);
  self->url = g_object_ref (url);
  self->store = store ? g_object_ref (store) : NULL;
  self->writable = writable;
  self->root = ncz_group_new_internal (self, NULL, "/");
  ncz_node_adopt (self->root);
  return self;
}

static NczDataset *
dataset_start (const char *format, NczStore *store, NczUrl *url, gboolean create,
               gboolean writable, GCancellable *cancellable, GError **error)
{
  NczRegistry *registry = ncz_registry_get_default ();
  g_autoptr(NczDataset) self = NULL;
  gboolean ok;

  self = dataset_new (url, store, writable);
  self->format = ncz_registry_create_format (registry, format, url, store, error);
  if (self->format == NULL)
    {
      if (create && store)
        ncz_store_discard (store);
      return NULL;
    }
  self->loading = TRUE;
  ok = create ? ncz_format_create (self->format, self, cancellable, error)
              : ncz_format_open (self->format, self, cancellable, error);
  self->loading = FALSE;
  if (!ok)
    {
      /* never write anything back for a dataset that failed to open; a
       * failed creation leaves what was at the URL as it was */
      g_atomic_int_set (&self->closed, TRUE);
      if (create && store)
        ncz_store_discard (store);
      return NULL;
    }
  self->created = create;
  return g_steal_pointer (&self);
}

static gboolean
opens_for_writing (NczOpenFlags flags)
{
  return (flags & (NCZ_OPEN_WRITE | NCZ_OPEN_WRITE_DATA)) != 0;
}

static NczDataset *
dataset_started (NczDataset *self, NczOpenFlags flags)
{
  if (self != NULL)
    self->data_only = (flags & NCZ_OPEN_WRITE_DATA) != 0 && (flags & NCZ_OPEN_WRITE) == 0;
  return self;
}

/* Whether definitions may change: the dataset is writable and not opened
 * with NCZ_OPEN_WRITE_DATA. */
gboolean
ncz_dataset_check_definable (NczDataset *self, GError **error)
{
  if (!ncz_dataset_check_writable (self, error))
    return FALSE;
  if (self->data_only && !self->loading)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY,
                   "dataset '%s' is open for writing data only (NCZ_OPEN_WRITE_DATA): its "
                   "dimensions, variables and attributes cannot change",
                   ncz_url_get_original (self->url));
      return FALSE;
    }
  return TRUE;
}

gboolean
ncz_dataset_is_data_only (NczDataset *self)
{
  return self->data_only;
}

/**
 * ncz_dataset_open_store:
 * @store: the store holding the dataset
 * @url: the dataset's URL (selects the format and mode)
 * @flags: #NczOpenFlags
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Opens a dataset held in a store the caller made, for example an
 * #NczMemoryStore.
 *
 * Returns: (transfer full): the dataset
 * Since: 1.0
 */
NczDataset *
ncz_dataset_open_store (NczStore *store, NczUrl *url, NczOpenFlags flags,
                        GCancellable *cancellable, GError **error)
{
  g_autofree char *format = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  format = ncz_registry_choose_format (ncz_registry_get_default (), url, store,
                                       cancellable, error);
  if (format == NULL)
    return NULL;
  return dataset_started (dataset_start (format, store, url, FALSE, opens_for_writing (flags),
                                        cancellable, error), flags);
}

/* Whether a local path names a netCDF-4/HDF5 file by its suffix. */
static gboolean
has_hdf5_suffix (const char *path)
{
  static const char * const suffixes[] = { ".nc", ".nc4", ".h5", ".hdf5", ".he5", NULL };

  if (path == NULL)
    return FALSE;
  for (guint i = 0; suffixes[i] != NULL; i++)
    if (g_str_has_suffix (path, suffixes[i]) && strlen (path) > strlen (suffixes[i]))
      return TRUE;
  return FALSE;
}

/* The format of a new dataset: the one the URL names, else hdf5 for a
 * local path ending in .nc (.nc4, .h5, .hdf5) given without any mode,
 * else nczarr. */
static char *
format_for_create (NczUrl *url)
{
  char *format = ncz_registry_format_from_url (ncz_registry_get_default (), url);

  if (format != NULL)
    return format;
  if (ncz_url_get_given_mode (url) == NCZ_URL_MODE_NONE &&
      g_strcmp0 (ncz_url_get_storage (url), "file") == 0 &&
      has_hdf5_suffix (ncz_url_get_local_path (url)))
    return g_strdup ("hdf5");
  return g_strdup ("nczarr");
}

/**
 * ncz_dataset_create_in_store:
 * @store: an empty store
 * @url: the dataset's URL (selects the format and mode)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Creates a dataset in a store the caller already has (an #NczMemoryStore,
 * or one opened through the registry). The format and mode come from
 * @url's fragment (`#mode=zarr`, ...), NCZarr if it names none. The
 * dataset keeps a reference on @store. Fails when the format backend is
 * not installed or cannot write to @store.
 *
 * Returns: (transfer full): a new, writable dataset
 * Since: 1.0
 */
NczDataset *
ncz_dataset_create_in_store (NczStore *store, NczUrl *url,
                             GCancellable *cancellable, GError **error)
{
  g_autofree char *format = NULL;

  g_return_val_if_fail (NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  format = format_for_create (url);
  return dataset_start (format, store, url, TRUE, TRUE, cancellable, error);
}

/**
 * ncz_dataset_open:
 * @url: a dataset URL or a plain path
 * @flags: #NczOpenFlags
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Opens an existing dataset, loading its metadata. The format is chosen
 * first (ncz_registry_choose_format()): the one the URL names
 * (`#mode=zarr`, `#format=hdf5`), else the one whose signature a local
 * file starts with (one read), else the one whose marker keys exist in
 * the store (`.zgroup`, `.zarray`: a few existence checks). A store is
 * opened only for a format that needs one. A URL no format claims is an
 * %NCZ_DATASET_ERROR_NOT_NCZ error saying what was looked for; a format
 * whose module is missing is %NCZ_PLUGIN_ERROR_NOT_INSTALLED naming the
 * package to install.
 *
 * Returns: (transfer full): the dataset
 * Since: 1.0
 */
NczDataset *
ncz_dataset_open (const char *url, NczOpenFlags flags,
                  GCancellable *cancellable, GError **error)
{
  g_autoptr(NczUrl) u = NULL;
  g_autoptr(NczStore) store = NULL;
  g_autofree char *format = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GError) local_error = NULL;
  NczDataset *ds;
  NczRegistry *registry = ncz_registry_get_default ();
  guint store_flags = opens_for_writing (flags) ? NCZ_STORE_WRITE : NCZ_STORE_READ;

  g_return_val_if_fail (url != NULL, NULL);
  u = ncz_url_parse (url, error);
  if (u == NULL)
    return NULL;

  /* The format first: named by the URL, else probed from a file's first
   * bytes, else from marker keys in the store (which is then kept). */
  format = ncz_registry_format_from_url (registry, u);
  if (format == NULL && !_ncz_url_is_plain_file (u))
    {
      store = ncz_registry_open_store (registry, u, store_flags, cancellable, error);
      if (store == NULL)
        return NULL;
    }
  if (format == NULL)
    {
      format = _ncz_registry_choose_format_full (registry, u, store, cancellable, &found, error);
      if (format == NULL)
        return NULL;
    }

  if (!ncz_registry_format_needs_store (registry, format))
    g_clear_object (&store);
  else if (store == NULL)
    {
      store = ncz_registry_open_store (registry, u, store_flags, cancellable, error);
      if (store == NULL)
        return NULL;
    }
  ds = dataset_start (format, store, u, FALSE, opens_for_writing (flags),
                      cancellable, &local_error);
  if (ds == NULL && found != NULL && local_error->domain == NCZ_PLUGIN_ERROR)
    {
      /* the format was recognised but cannot be used: say how it was
       * recognised ("format 'hdf5' ... is not installed (...); found the
       * signature of format 'hdf5' at offset 0") */
      g_set_error (error, local_error->domain, local_error->code, "%s; %s",
                   local_error->message, found);
      return NULL;
    }
  if (ds == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return dataset_started (ds, flags);
}

/* The worker thread of ncz_dataset_open_async() and
 * ncz_dataset_create_async(), told apart by the task's source tag; the
 * URL is the task data and the flags are kept on the task. */
static void
url_task_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  guint flags = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "flags"));
  GError *error = NULL;
  NczDataset *ds;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (g_task_get_source_tag (task) == ncz_dataset_create_async)
    ds = ncz_dataset_create (task_data, flags, cancellable, &error);
  else
    ds = ncz_dataset_open (task_data, flags, cancellable, &error);
  if (ds)
    g_task_return_pointer (task, ds, g_object_unref);
  else
    g_task_return_error (task, error);
}

static void
start_url_task (const char *url, guint flags, gpointer source_tag, GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, g_strdup (url), g_free);
  g_object_set_data (G_OBJECT (task), "flags", GUINT_TO_POINTER (flags));
  g_task_run_in_thread (task, url_task_thread);
}

/**
 * ncz_dataset_open_async:
 * @url: a dataset URL or a plain path
 * @flags: #NczOpenFlags
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the dataset is open
 * @user_data: data for @callback
 *
 * Opens a dataset in a worker thread; the main loop is never blocked.
 *
 * Since: 1.0
 */
void
ncz_dataset_open_async (const char *url, NczOpenFlags flags,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data)
{
  g_return_if_fail (url != NULL);
  start_url_task (url, flags, ncz_dataset_open_async, cancellable, callback, user_data);
}

/**
 * ncz_dataset_open_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Completes a ncz_dataset_open_async() call. Gives the dataset, or %NULL
 * with the error ncz_dataset_open() would have set.
 *
 * Returns: (transfer full): the dataset
 * Since: 1.0
 */
NczDataset *
ncz_dataset_open_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_dataset_open_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ncz_dataset_create:
 * @url: a dataset URL or a plain path
 * @flags: #NczCreateFlags
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Creates a new dataset, replacing what was at @url unless
 * %NCZ_CREATE_NO_CLOBBER is given. Its format is the one the URL names
 * (`#mode=zarr`, `#format=NAME`), else `nczarr`: nothing is probed.
 *
 * Returns: (transfer full): the dataset, writable
 * Since: 1.0
 */
NczDataset *
ncz_dataset_create (const char *url, NczCreateFlags flags,
                    GCancellable *cancellable, GError **error)
{
  g_autoptr(NczUrl) u = NULL;
  g_autoptr(NczStore) store = NULL;
  g_autofree char *format = NULL;
  NczRegistry *registry = ncz_registry_get_default ();

  g_return_val_if_fail (url != NULL, NULL);
  u = ncz_url_parse (url, error);
  if (u == NULL)
    return NULL;
  format = format_for_create (u);
  if (!ncz_registry_format_needs_store (registry, format))
    {
      /* a format doing its own I/O (HDF5) creates its file itself */
      const char *path = ncz_url_get_local_path (u);

      if ((flags & NCZ_CREATE_NO_CLOBBER) && path != NULL &&
          g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS,
                       "dataset '%s' already exists", url);
          return NULL;
        }
      return dataset_start (format, NULL, u, TRUE, TRUE, cancellable, error);
    }
  if (flags & NCZ_CREATE_NO_CLOBBER)
    {
      g_autoptr(NczStore) existing = ncz_registry_open_store (registry, u, NCZ_STORE_READ,
                                                              cancellable, NULL);
      if (existing != NULL)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS,
                       "dataset '%s' already exists", url);
          return NULL;
        }
    }
  store = ncz_registry_open_store (registry, u, NCZ_STORE_CREATE | NCZ_STORE_WRITE,
                                   cancellable, error);
  if (store == NULL)
    return NULL;
  return dataset_start (format, store, u, TRUE, TRUE, cancellable, error);
}

/**
 * ncz_dataset_get_root_group:
 * @self: a dataset
 *
 * Gives the root group (named `/`), from which every dimension, variable,
 * attribute and subgroup of the dataset is reached. It belongs to the
 * dataset; a reference taken on it keeps the dataset open.
 *
 * Returns: (transfer none): the root group
 * Since: 1.0
 */
NczGroup *
ncz_dataset_get_root_group (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->root;
}

/**
 * ncz_dataset_get_url:
 * @self: a dataset
 *
 * Gives the parsed URL the dataset was opened or created with, its
 * fragment keys included. It belongs to the dataset.
 *
 * Returns: (transfer none): the URL
 * Since: 1.0
 */
NczUrl *
ncz_dataset_get_url (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->url;
}

/**
 * ncz_dataset_get_url_string: (get-property url)
 * @self: a dataset
 *
 * Gets the [property@Ncz.Dataset:url]: the URL as it was given.
 *
 * Returns: (transfer none): the URL text
 * Since: 1.0
 */
const char *
ncz_dataset_get_url_string (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->url ? ncz_url_get_original (self->url) : NULL;
}

/**
 * ncz_dataset_get_format_name: (get-property format-name)
 * @self: a dataset
 *
 * Gets the [property@Ncz.Dataset:format-name].
 *
 * Returns: (transfer none) (nullable): the short name of the format
 *   ("nczarr", "zarr", "hdf5")
 * Since: 1.0
 */
const char *
ncz_dataset_get_format_name (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->format ? ncz_format_get_name (self->format) : NULL;
}

/**
 * ncz_dataset_get_store:
 * @self: a dataset
 *
 * Gives the store the dataset's objects are read from and written to. A
 * backend that does its own I/O (HDF5 on a local file) has none. It
 * belongs to the dataset.
 *
 * Returns: (transfer none) (nullable): the store, %NULL for formats that
 *   do their own I/O
 * Since: 1.0
 */
NczStore *
ncz_dataset_get_store (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->store;
}

/**
 * ncz_dataset_get_io_depth:
 * @self: a dataset
 *
 * Gets the [property@Ncz.Dataset:io-depth] in use.
 *
 * Returns: the number of storage requests kept in flight, at least 1
 * Since: 1.0
 */
guint
ncz_dataset_get_io_depth (NczDataset *self)
{
  guint depth;

  g_return_val_if_fail (NCZ_IS_DATASET (self), NCZ_STORE_DEFAULT_IO_DEPTH);
  depth = (guint) g_atomic_int_get (&self->io_depth);
  if (depth == 0)
    depth = ncz_io_depth_from_env ();
  if (depth == 0)
    depth = self->store ? ncz_store_get_io_depth_hint (self->store) : NCZ_STORE_DEFAULT_IO_DEPTH;
  return depth;
}

/**
 * ncz_dataset_set_io_depth:
 * @self: a dataset
 * @io_depth: the number of storage requests to keep in flight, up to
 *   %NCZ_STORE_MAX_IO_DEPTH; 0 for the default
 *
 * Sets the [property@Ncz.Dataset:io-depth]: how many storage requests
 * the chunk engine keeps in flight when it reads a selection of this
 * dataset. 0 goes back to the default (`NCZ_IO_DEPTH`, else the store's
 * hint); values above %NCZ_STORE_MAX_IO_DEPTH are lowered to it.
 *
 * Since: 1.0
 */
void
ncz_dataset_set_io_depth (NczDataset *self, guint io_depth)
{
  g_return_if_fail (NCZ_IS_DATASET (self));
  io_depth = MIN (io_depth, NCZ_STORE_MAX_IO_DEPTH);
  if ((guint) g_atomic_int_exchange (&self->io_depth, (gint) io_depth) != io_depth)
    g_object_notify_by_pspec (G_OBJECT (self), dataset_props[PROP_IO_DEPTH]);
}

/**
 * ncz_dataset_get_format:
 * @self: a dataset
 *
 * Gives the format backend serving the dataset (the NCZarr or HDF5 backend
 * module, chosen when the dataset was opened or created). It belongs to
 * the dataset.
 *
 * Returns: (transfer none): the format backend
 * Since: 1.0
 */
NczFormat *
ncz_dataset_get_format (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), NULL);
  return self->format;
}

/**
 * ncz_dataset_is_writable:
 * @self: a dataset
 *
 * Tells whether the dataset was opened or created for writing and is
 * still open. Otherwise definitions, attribute changes and writes fail
 * with %NCZ_DATASET_ERROR_READ_ONLY.
 *
 * Returns: whether the dataset accepts definitions and writes
 * Since: 1.0
 */
gboolean
ncz_dataset_is_writable (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  return self->writable && !g_atomic_int_get (&self->closed);
}

/**
 * ncz_dataset_sync:
 * @self: a dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Stores the metadata of a writable dataset. Nothing happens for a
 * read-only one.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_sync (NczDataset *self, GCancellable *cancellable, GError **error)
{
  gboolean ok;
  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  if (g_atomic_int_get (&self->closed))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed", ncz_url_get_original (self->url));
      return FALSE;
    }
  if (!self->writable)
    return TRUE;
  g_mutex_lock (&self->lock);
  ok = ncz_format_sync (self->format, self, cancellable, error);
  g_mutex_unlock (&self->lock);
  return ok;
}

/* The dataset was just closed: its properties and its variables'
 * writable say so. Not while it is being disposed: nobody holds it. */
static void
notify_closed (NczDataset *self)
{
  if (self->disposing)
    return;
  g_object_notify_by_pspec (G_OBJECT (self), dataset_props[PROP_CLOSED]);
  if (self->writable)
    {
      g_object_notify_by_pspec (G_OBJECT (self), dataset_props[PROP_WRITABLE]);
      if (self->root)
        ncz_group_notify_closed (self->root);
    }
}

/**
 * ncz_dataset_close:
 * @self: a dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Stores the metadata of a writable dataset and releases the backend.
 * For a dataset made by ncz_dataset_create(), this is when it replaces
 * what was at its URL: on stores that stage a replacement (the file
 * store does) the previous dataset stays intact until then, and stays if
 * the close fails. Closing twice is harmless.
 *
 * Afterwards the groups, dimensions, variables and attributes you hold
 * still describe the dataset, but no data goes through them any more:
 * reading or writing a variable, synchronously or not, fails with
 * %NCZ_DATASET_ERROR_CLOSED naming the dataset's URL, as does any
 * definition.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_close (NczDataset *self, GCancellable *cancellable, GError **error)
{
  gboolean ok = TRUE;
  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  if (g_atomic_int_get (&self->closed))
    return TRUE;
  if (self->writable)
    ok = ncz_dataset_sync (self, cancellable, error);
  g_atomic_int_set (&self->closed, TRUE);
  notify_closed (self);
  if (self->format)
    {
      if (ok)
        ok = ncz_format_close (self->format, self, cancellable, error);
      else
        ncz_format_close (self->format, self, cancellable, NULL);
    }
  /* a created dataset replaces what was at the URL only now; an opened
   * one is committed too, so that a store that stages updates (a zip
   * archive rewritten beside the old one) reports its failure here */
  if (self->created && self->store)
    {
      if (ok)
        ok = ncz_store_commit (self->store, cancellable, error);
      else
        ncz_store_discard (self->store);
    }
  else if (self->writable && self->store && ok)
    ok = ncz_store_commit (self->store, cancellable, error);
  return ok;
}

/**
 * ncz_dataset_discard:
 * @self: a dataset
 *
 * Releases a dataset without storing anything more: call it when
 * building or changing a dataset failed. For a dataset made by
 * ncz_dataset_create(), what was written is dropped where the store
 * staged it (the file store writes a replacement beside the previous
 * dataset and swaps it in only at ncz_dataset_close()), so what was at
 * the URL before stays as it was. For an opened dataset, definitions not
 * yet synced are lost; chunks already written stay. Afterwards the
 * dataset is closed; closing or discarding again is harmless.
 *
 * Since: 1.0
 */
void
ncz_dataset_discard (NczDataset *self)
{
  g_return_if_fail (NCZ_IS_DATASET (self));
  if (g_atomic_int_get (&self->closed))
    return;
  g_atomic_int_set (&self->closed, TRUE);
  self->discarded = TRUE;
  notify_closed (self);
  if (self->format)
    ncz_format_close (self->format, self, NULL, NULL);
  if (self->created && self->store)
    ncz_store_discard (self->store);
}

/* Whether the dataset is being or was closed by ncz_dataset_discard(): a
 * format that stages a new file (HDF5) drops it rather than keeping it. */
gboolean
ncz_dataset_is_discarded (NczDataset *self)
{
  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  return self->discarded;
}

/* ---- asynchronous forms ---- */

/**
 * ncz_dataset_create_async:
 * @url: a dataset URL or a plain path
 * @flags: #NczCreateFlags
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the dataset is created, in the
 *   thread-default main context of the caller
 * @user_data: (closure): data for @callback
 *
 * Does ncz_dataset_create() in a worker thread; the main loop is never
 * blocked. Cancelled before it starts, it creates nothing and fails
 * with %G_IO_ERROR_CANCELLED.
 *
 * Since: 1.0
 */
void
ncz_dataset_create_async (const char *url, NczCreateFlags flags,
                          GCancellable *cancellable, GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_return_if_fail (url != NULL);
  start_url_task (url, flags, ncz_dataset_create_async, cancellable, callback, user_data);
}

/**
 * ncz_dataset_create_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes ncz_dataset_create_async().
 *
 * Returns: (transfer full): the dataset, writable
 * Since: 1.0
 */
NczDataset *
ncz_dataset_create_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ncz_dataset_create_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The _async of sync, close and refresh: @op runs on the dataset in a
 * worker thread, unless the task was cancelled before it started. */
static void
dataset_op_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  const NczDatasetOp *op = task_data;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (op->run (NCZ_DATASET (source), cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ncz_dataset_op_async (NczDataset *self, const NczDatasetOp *op, gpointer source_tag,
                      GCancellable *cancellable, GAsyncReadyCallback callback,
                      gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NCZ_IS_DATASET (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, (gpointer) op, NULL);
  g_task_run_in_thread (task, dataset_op_thread);
}

gboolean
ncz_dataset_op_finish (NczDataset *self, GAsyncResult *result, gpointer source_tag,
                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static const NczDatasetOp sync_op = { ncz_dataset_sync };
static const NczDatasetOp close_op = { ncz_dataset_close };

/**
 * ncz_dataset_sync_async:
 * @self: a dataset
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done, in the thread-default main
 *   context of the caller
 * @user_data: (closure): data for @callback
 *
 * Does ncz_dataset_sync() in a worker thread. Do not define or write
 * anything in the dataset until it finishes.
 *
 * Since: 1.0
 */
void
ncz_dataset_sync_async (NczDataset *self, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  ncz_dataset_op_async (self, &sync_op, ncz_dataset_sync_async, cancellable, callback, user_data);
}

/**
 * ncz_dataset_sync_finish:
 * @self: the dataset
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes ncz_dataset_sync_async().
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_sync_finish (NczDataset *self, GAsyncResult *result, GError **error)
{
  return ncz_dataset_op_finish (self, result, ncz_dataset_sync_async, error);
}

/**
 * ncz_dataset_close_async:
 * @self: a dataset
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done, in the thread-default main
 *   context of the caller
 * @user_data: (closure): data for @callback
 *
 * Does ncz_dataset_close() in a worker thread. Cancelled before it
 * starts, the dataset stays open and the close fails with
 * %G_IO_ERROR_CANCELLED. The [property@Ncz.Dataset:closed] notification
 * comes from the worker thread.
 *
 * Since: 1.0
 */
void
ncz_dataset_close_async (NczDataset *self, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  ncz_dataset_op_async (self, &close_op, ncz_dataset_close_async, cancellable, callback, user_data);
}

/**
 * ncz_dataset_close_finish:
 * @self: the dataset
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes ncz_dataset_close_async().
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_close_finish (NczDataset *self, GAsyncResult *result, GError **error)
{
  return ncz_dataset_op_finish (self, result, ncz_dataset_close_async, error);
}
