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
ncz_attr_list_init (NczAttrList *list, gpointer owner)
{
  list->items = g_ptr_array_new_with_free_func (g_object_unref);
  list->index = g_hash_table_new (g_str_hash, g_str_equal);
  list->owner = owner;
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

  guint i;

  if (old == attribute)
    return;
  g_object_ref (attribute);
  if (old)
    {
      i = position_of (list, old);
      g_hash_table_remove (list->index, name);
      g_ptr_array_index (list->items, i) = attribute;
      g_object_unref (old);
    }
  else
    {
      i = list->items->len;
      g_ptr_array_add (list->items, attribute);
    }
  g_hash_table_insert (list->index, (gpointer) name, attribute);
  if (list->owner)
    ncz_model_list_changed (list->owner, NCZ_MODEL_LIST_ATTRIBUTES, i, old ? 1 : 0, 1);
}

gboolean
ncz_attr_list_remove (NczAttrList *list, const char *name)
{
  NczAttribute *a = ncz_attr_list_find (list, name);

  guint i;

  if (a == NULL)
    return FALSE;
  i = position_of (list, a);
  g_hash_table_remove (list->index, ncz_attribute_get_name (a));
  g_ptr_array_remove_index (list->items, i);
  if (list->owner)
    ncz_model_list_changed (list->owner, NCZ_MODEL_LIST_ATTRIBUTES, i, 1, 0);
  return TRUE;
}

gboolean
ncz_attr_list_move (NczAttrList *list, const char *name, guint position)
{
  NczAttribute *a = ncz_attr_list_find (list, name);

  guint from, to;

  if (a == NULL)
    return FALSE;
  from = position_of (list, a);
  g_ptr_array_steal_index (list->items, from);
  to = MIN (position, list->items->len);
  g_ptr_array_insert (list->items, to, a);
  if (list->owner && from != to)
    {
      guint first = MIN (from, to);
      guint n = MAX (from, to) - first + 1;
      ncz_model_list_changed (list->owner, NCZ_MODEL_LIST_ATTRIBUTES, first, n, n);
    }
  return TRUE;
}

/* ---- live list models of the model's lists ---- */

#define NCZ_TYPE_MODEL_LIST (ncz_model_list_get_type ())
G_DECLARE_FINAL_TYPE (NczModelList, ncz_model_list, NCZ, MODEL_LIST, GObject)

struct _NczModelList
{
  GObject parent_instance;
  GObject *owner;           /* strong: the model keeps its group or variable */
  NczModelListKind kind;
  GType item_type;
  NczModelListPeek peek;
};

static GType
ncz_model_list_get_item_type (GListModel *model)
{
  return NCZ_MODEL_LIST (model)->item_type;
}

static guint
ncz_model_list_get_n_items (GListModel *model)
{
  NczModelList *self = NCZ_MODEL_LIST (model);
  GPtrArray *a = self->peek (self->owner, self->kind);
  return a ? a->len : 0;
}

static gpointer
ncz_model_list_get_item (GListModel *model, guint position)
{
  NczModelList *self = NCZ_MODEL_LIST (model);
  GPtrArray *a = self->peek (self->owner, self->kind);

  if (a == NULL || position >= a->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (a, position));
}

static void
ncz_model_list_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = ncz_model_list_get_item_type;
  iface->get_n_items = ncz_model_list_get_n_items;
  iface->get_item = ncz_model_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (NczModelList, ncz_model_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      ncz_model_list_iface_init))

static void
ncz_model_list_finalize (GObject *object)
{
  g_clear_object (&NCZ_MODEL_LIST (object)->owner);
  G_OBJECT_CLASS (ncz_model_list_parent_class)->finalize (object);
}

static void
ncz_model_list_class_init (NczModelListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ncz_model_list_finalize;
}

static void
ncz_model_list_init (NczModelList *self)
{
}

/* The owner keeps a weak reference to each of its models in its qdata */
static GQuark
model_list_quark (NczModelListKind kind)
{
  static const char * const names[NCZ_MODEL_LIST_N_KINDS] = {
    "ncz-model-list-attributes", "ncz-model-list-dimensions",
    "ncz-model-list-variables", "ncz-model-list-groups",
  };

  return g_quark_from_static_string (names[kind]);
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static GMutex model_list_lock;

GListModel *
ncz_model_list_get (GObject *owner, NczModelListKind kind, GType item_type,
                    NczModelListPeek peek)
{
  GQuark q = model_list_quark (kind);
  GWeakRef *ref;
  NczModelList *model;

  g_mutex_lock (&model_list_lock);
  ref = g_object_get_qdata (owner, q);
  if (ref == NULL)
    {
      ref = g_new0 (GWeakRef, 1);
      g_weak_ref_init (ref, NULL);
      g_object_set_qdata_full (owner, q, ref, weak_ref_free);
    }
  model = g_weak_ref_get (ref);
  if (model == NULL)
    {
      model = g_object_new (NCZ_TYPE_MODEL_LIST, NULL);
      model->owner = g_object_ref (owner);
      model->kind = kind;
      model->item_type = item_type;
      model->peek = peek;
      g_weak_ref_set (ref, model);
    }
  g_mutex_unlock (&model_list_lock);
  return G_LIST_MODEL (model);
}

void
ncz_model_list_changed (GObject *owner, NczModelListKind kind, guint position,
                        guint removed, guint added)
{
  GWeakRef *ref;
  GListModel *model;

  /* models exist only once asked for: most lists never have one */
  ref = g_object_get_qdata (owner, model_list_quark (kind));
  if (ref == NULL)
    return;
  model = g_weak_ref_get (ref);
  if (model == NULL)
    return;
  g_list_model_items_changed (model, position, removed, added);
  g_object_unref (model);
}
