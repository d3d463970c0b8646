/* ncz-attr-list.c: ordered attribute lists and name checks
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

NczAttribute *
ncz_attr_list_find (GPtrArray *list, const char *name)
{
  for (guint i = 0; i < list->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (list, i);
      if (strcmp (ncz_attribute_get_name (a), name) == 0)
        return a;
    }
  return NULL;
}

void
ncz_attr_list_set (GPtrArray *list, NczAttribute *attribute)
{
  const char *name = ncz_attribute_get_name (attribute);
  for (guint i = 0; i < list->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (list, i);
      if (strcmp (ncz_attribute_get_name (a), name) == 0)
        {
          g_ptr_array_index (list, i) = g_object_ref (attribute);
          g_object_unref (a);
          return;
        }
    }
  g_ptr_array_add (list, g_object_ref (attribute));
}

gboolean
ncz_attr_list_remove (GPtrArray *list, const char *name)
{
  for (guint i = 0; i < list->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (list, i);
      if (strcmp (ncz_attribute_get_name (a), name) == 0)
        {
          g_ptr_array_remove_index (list, i);
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
ncz_attr_list_move (GPtrArray *list, const char *name, guint position)
{
  for (guint i = 0; i < list->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (list, i);
      if (strcmp (ncz_attribute_get_name (a), name) == 0)
        {
          g_ptr_array_steal_index (list, i);
          g_ptr_array_insert (list, MIN (position, list->len), a);
          return TRUE;
        }
    }
  return FALSE;
}
