/* ncz-dataset-refresh.c: an open dataset catches up with what other
 * writers stored
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"
#include "ncz-model-private.h"

/* Attributes of @owner (a group or variable) become those of @fresh's. */
typedef GPtrArray *(*GetAttributes) (gpointer owner);
typedef gboolean (*SetAttribute) (gpointer owner, NczAttribute *attribute, GError **error);
typedef gboolean (*RemoveAttribute) (gpointer owner, const char *name, GError **error);

static gboolean
sync_attributes (gpointer mine, gpointer fresh, GetAttributes get, SetAttribute set,
                 RemoveAttribute remove, GError **error)
{
  g_autoptr(GPtrArray) now = get (fresh);
  g_autoptr(GPtrArray) had = get (mine);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < now->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (now, i);
      const char *name = ncz_attribute_get_name (a);
      NczAttribute *old = NULL;

      g_hash_table_add (names, (gpointer) name);
      for (guint j = 0; j < had->len && old == NULL; j++)
        if (g_str_equal (ncz_attribute_get_name (g_ptr_array_index (had, j)), name))
          old = g_ptr_array_index (had, j);
      if (old != NULL && ncz_attribute_equal (old, a))
        continue;
      if (!set (mine, a, error))
        return FALSE;
    }
  for (guint j = 0; j < had->len; j++)
    {
      const char *name = ncz_attribute_get_name (g_ptr_array_index (had, j));
      if (!g_hash_table_contains (names, name) && !remove (mine, name, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
refresh_group (NczGroup *mine, NczGroup *fresh, guint *n_new, GError **error)
{
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (fresh);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (fresh);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (fresh);

  for (guint i = 0; i < dims->len; i++)
    {
      NczDimension *f = g_ptr_array_index (dims, i);
      NczDimension *d = ncz_group_get_dimension (mine, ncz_dimension_get_name (f));
      if (d == NULL)
        (*n_new)++;
      else if (ncz_dimension_is_unlimited (d))
        ncz_dimension_grow_internal (d, ncz_dimension_get_length (f));
    }
  if (!sync_attributes (mine, fresh, (GetAttributes) ncz_group_get_attributes,
                        (SetAttribute) ncz_group_set_attribute,
                        (RemoveAttribute) ncz_group_remove_attribute, error))
    return FALSE;
  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *f = g_ptr_array_index (vars, i);
      NczVariable *v = ncz_group_get_variable (mine, ncz_variable_get_name (f));
      if (v == NULL)
        (*n_new)++;
      else if (!sync_attributes (v, f, (GetAttributes) ncz_variable_get_attributes,
                                 (SetAttribute) ncz_variable_set_attribute,
                                 (RemoveAttribute) ncz_variable_remove_attribute, error))
        return FALSE;
    }
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *f = g_ptr_array_index (groups, i);
      NczGroup *g = ncz_group_get_group (mine, ncz_group_get_name (f));
      if (g == NULL)
        (*n_new)++;
      else if (!refresh_group (g, f, n_new, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * ncz_dataset_refresh:
 * @self: an open dataset
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the dataset's metadata again, so that a long-lived reader sees
 * what other writers stored since it opened the dataset: the lengths of
 * unlimited dimensions grow to the stored ones (the data appended becomes
 * readable) and the attributes become the stored ones. A writable dataset
 * first stores its own changes (ncz_dataset_sync()). Dimensions,
 * variables and groups defined by others since the open are not added:
 * open the dataset again to see them (the number of them is logged at
 * debug level).
 *
 * The objects you hold stay valid. Not for a dataset replaced as a whole
 * since the open (ncz-copy over it): a reader keeps reading the version
 * it opened; reopen to see the new one.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_refresh (NczDataset *self, GCancellable *cancellable, GError **error)
{
  g_autoptr(NczDataset) fresh = NULL;
  g_autoptr(GError) local = NULL;
  const char *url;
  guint n_new = 0;
  gboolean ok;

  g_return_val_if_fail (NCZ_IS_DATASET (self), FALSE);
  if (ncz_dataset_is_closed (self))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed", ncz_url_get_original (ncz_dataset_get_url (self)));
      return FALSE;
    }
  if (ncz_dataset_is_writable (self) && !ncz_dataset_is_data_only (self) &&
      !ncz_dataset_sync (self, cancellable, error))
    return FALSE;
  url = ncz_url_get_original (ncz_dataset_get_url (self));
  fresh = ncz_dataset_open (url, NCZ_OPEN_READ, cancellable, &local);
  if (fresh == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "refreshing '%s': ", url);
      return FALSE;
    }
  /* what was stored is taken as loaded, not as this writer's definitions */
  ncz_dataset_set_loading (self, TRUE);
  ok = refresh_group (ncz_dataset_get_root_group (self), ncz_dataset_get_root_group (fresh),
                      &n_new, &local);
  ncz_dataset_set_loading (self, FALSE);
  if (!ok)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "refreshing '%s': ", url);
      return FALSE;
    }
  if (n_new > 0)
    g_debug ("refreshing '%s': %u objects defined since the open are not added", url, n_new);
  return TRUE;
}

static const NczDatasetOp refresh_op = { ncz_dataset_refresh };

/**
 * ncz_dataset_refresh_async:
 * @self: an open dataset
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done, in the thread-default main
 *   context of the caller
 * @user_data: (closure): data for @callback
 *
 * Does ncz_dataset_refresh() in a worker thread.
 *
 * Since: 1.0
 */
void
ncz_dataset_refresh_async (NczDataset *self, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  ncz_dataset_op_async (self, &refresh_op, ncz_dataset_refresh_async, cancellable, callback,
                        user_data);
}

/**
 * ncz_dataset_refresh_finish:
 * @self: the dataset
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Completes a ncz_dataset_refresh_async() call, giving its result or its
 * error, as ncz_dataset_refresh() would.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_dataset_refresh_finish (NczDataset *self, GAsyncResult *result, GError **error)
{
  return ncz_dataset_op_finish (self, result, ncz_dataset_refresh_async, error);
}
