/* ncz-attr-list.c: ordered attribute lists, names and their NFC keys
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"

gboolean
ncz_check_object_name (const char *kind, const char *name, GError **error)
{
  gboolean ok = name != NULL && *name != '\0' && g_utf8_validate (name, -1, NULL) &&
                strchr (name, '/') == NULL && strcmp (name, ".") != 0 &&
                strcmp (name, "..") != 0;

  for (const char *p = name; ok && *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      ok = FALSE;
  if (!ok)
    {
      g_autofree char *escaped = name ? g_strescape (name, NULL) : g_strdup ("(null)");
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "invalid %s name '%s'", kind, escaped);
    }
  return ok;
}

static gboolean
is_ascii (const char *name)
{
  for (const char *p = name; *p; p++)
    if ((guchar) *p >= 0x80)
      return FALSE;
  return TRUE;
}

char *
ncz_name_normalize (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  /* ASCII text is its own NFC form; most names are ASCII */
  if (is_ascii (name))
    return g_strdup (name);
  if (!g_utf8_validate (name, -1, NULL))
    return NULL;
  return g_utf8_normalize (name, -1, G_NORMALIZE_NFC);
}

const char *
ncz_name_key (const char *name, char **normalized)
{
  *normalized = NULL;
  if (name == NULL || is_ascii (name))
    return name;
  if (!g_utf8_validate (name, -1, NULL))
    return NULL;
  *normalized = g_utf8_normalize (name, -1, G_NORMALIZE_NFC);
  return *normalized;
}

GHashTable *
ncz_name_index_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

gpointer
ncz_name_index_lookup (GHashTable *index, const char *name)
{
  g_autofree char *normalized = NULL;
  const char *key = ncz_name_key (name, &normalized);
  return key ? g_hash_table_lookup (index, key) : NULL;
}

/* Attribute names are NFC from ncz_attribute_new() on, so an attribute's
 * own name is its key in the index; the list holds a reference to every
 * attribute the index points to. */

void
ncz_attr_list_init (NczAttrList *list)
{
  list->items = g_ptr_array_new_with_free_func (g_object_unref);
  list->index = g_hash_table_new (g_str_hash, g_str_equal);
}

void
ncz_attr_list_clear (NczAttrList *list)
{
  g_clear_pointer (&list->index, g_hash_table_unref);
  g_clear_pointer (&list->items, g_ptr_array_unref);
}

GPtrArray *
ncz_attr_list_copy (NczAttrList *list)
{
  GPtrArray *out = g_ptr_array_new_full (list->items->len, g_object_unref);
  for (guint i = 0; i < list->items->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (list->items, i)));
  return out;
}

NczAttribute *
ncz_attr_list_find (NczAttrList *list, const char *name)
{
  return ncz_name_index_lookup (list->index, name);
}

static guint
position_of (NczAttrList *list, NczAttribute *a)
{
  guint i = 0;
  gboolean found = g_ptr_array_find (list->items, a, &i);
  g_assert (found);
  return i;
}

void
ncz_attr_list_set (NczAttrList *list, NczAttribute *attribute)
{
  const char *name = ncz_attribute_get_name (attribute);
  NczAttribute *old = g_hash_table_lookup (list->index, name);

  if (old == attribute)
    return;
  g_object_ref (attribute);
  if (old)
    {
      guint i = position_of (list, old);
      g_hash_table_remove (list->index, name);
      g_ptr_array_index (list->items, i) = attribute;
      g_object_unref (old);
    }
  else
    g_ptr_array_add (list->items, attribute);
  g_hash_table_insert (list->index, (gpointer) name, attribute);
}

gboolean
ncz_attr_list_remove (NczAttrList *list, const char *name)
{
  NczAttribute *a = ncz_attr_list_find (list, name);

  if (a == NULL)
    return FALSE;
  g_hash_table_remove (list->index, ncz_attribute_get_name (a));
  g_ptr_array_remove_index (list->items, position_of (list, a));
  return TRUE;
}

gboolean
ncz_attr_list_move (NczAttrList *list, const char *name, guint position)
{
  NczAttribute *a = ncz_attr_list_find (list, name);

  if (a == NULL)
    return FALSE;
  g_ptr_array_steal_index (list->items, position_of (list, a));
  g_ptr_array_insert (list->items, MIN (position, list->items->len), a);
  return TRUE;
}
