/* ncz-foreign-pair.c: the pairing table of filters.md ("Using Plugin Libraries")
 *
 * See ncz-foreign-scan.h and ncz-foreign-scan-private.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "ncz-foreign-scan-private.h"

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
  row->pub.library = ncz_foreign_intern (self, library);
  row->pub.reason = ncz_foreign_intern (self, reason);
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

  row->pub.codec_id = ncz_foreign_intern (self, codec_id);
  if (c->h5 != NULL)
    {
      row->pub.hdf5_library = row->pub.library;
      row->pub.hdf5_name = ncz_foreign_intern (self, c->h5->name);
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

void
ncz_foreign_pair (NczForeignScan *self,
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
          row->pub.codec_id = ncz_foreign_intern (self, codec->codecid);
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
          row->pub.hdf5_library = ncz_foreign_intern (self, slot->h5_lib->path);
          row->pub.hdf5_name = ncz_foreign_intern (self, slot->h5->name);
        }
      if (slot->codec != NULL)
        {
          row->pub.codec_id = ncz_foreign_intern (self, slot->codec->codecid);
          row->pub.codec_library = ncz_foreign_intern (self, slot->codec_lib->path);
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
