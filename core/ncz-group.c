/* ncz-group.c: groups
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"
#include "ncz-format-private.h"

/**
 * NczGroup:
 *
 * A group holds dimensions, variables, attributes and subgroups, in the
 * order they were defined. It is a #GListModel of its children: first
 * its subgroups, then its variables, so a browser can bind a tree to it.
 *
 * Names are compared in Unicode normalization form C (NFC), as netCDF
 * requires. A name given when defining a dimension, variable, subgroup or
 * attribute is stored in its NFC form; a name that is not UTF-8 is
 * refused. Every lookup by name normalises the name asked for, so the
 * NFC and the decomposed (NFD) spelling find the same object, and two
 * names that differ only in normalization are the same name (the second
 * definition is refused as a duplicate).
 *
 * Dimensions, variables and subgroups read from an existing dataset keep
 * the name as stored, since the names of variables and groups are the
 * keys of their objects and chunks in the store; a lookup by either the
 * NFC or the stored spelling finds them. Attribute names are NFC in
 * every case (see #NczAttribute).
 *
 * Lookups by name take constant time: each group keeps an index by NFC
 * name beside its lists, which keep definition order.
 *
 * Since: 1.0
 */
struct _NczGroup
{
  GObject parent_instance;
  char *name;
  NczNodeLink link;       /* to the parent, or to the dataset for the root */
  NczGroup *parent;       /* the owner (see NczNodeLink) */
  NczDataset *dataset;    /* alive while the group is */
  GPtrArray *dimensions;  /* NczDimension */
  GPtrArray *variables;   /* NczVariable */
  GPtrArray *groups;      /* NczGroup */
  NczAttrList attributes;
  /* NFC name -> the object in the list above */
  GHashTable *dimension_index;
  GHashTable *variable_index;
  GHashTable *group_index;
};

static void ncz_group_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczGroup, ncz_group, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      ncz_group_list_model_init))

static GType
ncz_group_get_item_type (GListModel *model)
{
  return G_TYPE_OBJECT;
}

static guint
ncz_group_get_n_items (GListModel *model)
{
  NczGroup *self = NCZ_GROUP (model);
  return self->groups->len + self->variables->len;
}

static gpointer
ncz_group_get_item (GListModel *model, guint position)
{
  NczGroup *self = NCZ_GROUP (model);
  if (position < self->groups->len)
    return g_object_ref (g_ptr_array_index (self->groups, position));
  position -= self->groups->len;
  if (position < self->variables->len)
    return g_object_ref (g_ptr_array_index (self->variables, position));
  return NULL;
}

static void
ncz_group_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = ncz_group_get_item_type;
  iface->get_n_items = ncz_group_get_n_items;
  iface->get_item = ncz_group_get_item;
}

/* ---- ownership of the model's objects (see NczNodeLink) ---- */

void
ncz_node_link_init (NczNodeLink *link, gpointer owner)
{
  g_mutex_init (&link->lock);
  link->owner = owner;
  link->holding = FALSE;
}

void
ncz_node_link_clear (NczNodeLink *link)
{
  /* a node holding its owner is referenced, so it cannot be finalized */
  g_warn_if_fail (!link->holding);
  g_mutex_clear (&link->lock);
}

static NczNodeLink *
node_link (GObject *node)
{
  if (NCZ_IS_GROUP (node))
    return &NCZ_GROUP (node)->link;
  if (NCZ_IS_VARIABLE (node))
    return ncz_variable_get_link (NCZ_VARIABLE (node));
  return ncz_dimension_get_link (NCZ_DIMENSION (node));
}

/* Called by GObject when the owner's toggle reference becomes the only
 * reference on @node or stops being it. The decision is taken again from
 * the reference count under the node's lock, so notifications that
 * threads deliver out of order still leave the right state. The owner is
 * referenced under the lock and released after it: the release can free
 * @node. */
static void
node_toggled (gpointer data, GObject *node, gboolean is_last_ref)
{
  NczNodeLink *link = node_link (node);
  GObject *drop = NULL;
  gboolean held;

  g_mutex_lock (&link->lock);
  held = g_atomic_int_get (&node->ref_count) > 1;
  if (held && !link->holding)
    {
      g_object_ref (link->owner);
      link->holding = TRUE;
    }
  else if (!held && link->holding)
    {
      drop = link->owner;
      link->holding = FALSE;
    }
  g_mutex_unlock (&link->lock);
  if (drop)
    g_object_unref (drop);
}

void
ncz_node_adopt (gpointer node)
{
  g_object_add_toggle_ref (G_OBJECT (node), node_toggled, NULL);
  g_object_unref (node);
}

void
ncz_node_release (gpointer node)
{
  g_object_remove_toggle_ref (G_OBJECT (node), node_toggled, NULL);
}

static void
ncz_group_finalize (GObject *object)
{
  NczGroup *self = NCZ_GROUP (object);
  ncz_node_link_clear (&self->link);
  g_free (self->name);
  g_ptr_array_unref (self->variables);
  g_ptr_array_unref (self->groups);
  g_ptr_array_unref (self->dimensions);
  ncz_attr_list_clear (&self->attributes);
  g_hash_table_unref (self->dimension_index);
  g_hash_table_unref (self->variable_index);
  g_hash_table_unref (self->group_index);
  G_OBJECT_CLASS (ncz_group_parent_class)->finalize (object);
}

enum {
  PROP_0,
  PROP_NAME,
  PROP_FULL_NAME,
  PROP_PARENT,
  PROP_DATASET,
  PROP_ATTRIBUTES,
  PROP_DIMENSIONS,
  PROP_VARIABLES,
  PROP_GROUPS,
  N_PROPS
};

static GParamSpec *group_props[N_PROPS];

static void
ncz_group_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  NczGroup *self = NCZ_GROUP (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_FULL_NAME:
      g_value_take_string (value, ncz_group_get_full_name (self));
      break;
    case PROP_PARENT:
      g_value_set_object (value, self->parent);
      break;
    case PROP_DATASET:
      g_value_set_object (value, self->dataset);
      break;
    case PROP_ATTRIBUTES:
      g_value_take_object (value, ncz_group_get_attribute_list (self));
      break;
    case PROP_DIMENSIONS:
      g_value_take_object (value, ncz_group_get_dimension_list (self));
      break;
    case PROP_VARIABLES:
      g_value_take_object (value, ncz_group_get_variable_list (self));
      break;
    case PROP_GROUPS:
      g_value_take_object (value, ncz_group_get_group_list (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_group_class_init (NczGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ncz_group_finalize;
  object_class->get_property = ncz_group_get_property;

  /**
   * NczGroup:name: (getter get_name)
   *
   * The group's name, "/" for the root group.
   *
   * Since: 1.0
   */
  group_props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  /**
   * NczGroup:full-name: (getter get_full_name)
   *
   * The fully qualified name: "/" for the root group, "/a/b" for subgroup
   * b of subgroup a.
   *
   * Since: 1.0
   */
  group_props[PROP_FULL_NAME] = g_param_spec_string ("full-name", NULL, NULL, NULL, ro);
  /**
   * NczGroup:parent: (getter get_parent)
   *
   * The parent group; %NULL for the root group.
   *
   * Since: 1.0
   */
  group_props[PROP_PARENT] = g_param_spec_object ("parent", NULL, NULL, NCZ_TYPE_GROUP, ro);
  /**
   * NczGroup:dataset: (getter get_dataset)
   *
   * The dataset the group belongs to.
   *
   * Since: 1.0
   */
  group_props[PROP_DATASET] = g_param_spec_object ("dataset", NULL, NULL, NCZ_TYPE_DATASET, ro);
  /**
   * NczGroup:attributes: (getter get_attribute_list)
   *
   * The group's attributes as a #GListModel of #NczAttribute, in
   * definition order. It stays current: setting, replacing or removing
   * an attribute emits #GListModel::items-changed on the thread that
   * made the change.
   *
   * Since: 1.0
   */
  group_props[PROP_ATTRIBUTES] = g_param_spec_object ("attributes", NULL, NULL,
                                                      G_TYPE_LIST_MODEL, ro);
  /**
   * NczGroup:dimensions: (getter get_dimension_list)
   *
   * The dimensions defined in the group as a #GListModel of
   * #NczDimension, in definition order; it stays current.
   *
   * Since: 1.0
   */
  group_props[PROP_DIMENSIONS] = g_param_spec_object ("dimensions", NULL, NULL,
                                                      G_TYPE_LIST_MODEL, ro);
  /**
   * NczGroup:variables: (getter get_variable_list)
   *
   * The variables of the group as a #GListModel of #NczVariable, in
   * definition order; it stays current.
   *
   * Since: 1.0
   */
  group_props[PROP_VARIABLES] = g_param_spec_object ("variables", NULL, NULL,
                                                     G_TYPE_LIST_MODEL, ro);
  /**
   * NczGroup:groups: (getter get_group_list)
   *
   * The subgroups as a #GListModel of #NczGroup, in definition order; it
   * stays current.
   *
   * Since: 1.0
   */
  group_props[PROP_GROUPS] = g_param_spec_object ("groups", NULL, NULL, G_TYPE_LIST_MODEL, ro);
  g_object_class_install_properties (object_class, N_PROPS, group_props);
}

static void
ncz_group_init (NczGroup *self)
{
  self->dimensions = g_ptr_array_new_with_free_func (ncz_node_release);
  self->variables = g_ptr_array_new_with_free_func (ncz_node_release);
  self->groups = g_ptr_array_new_with_free_func (ncz_node_release);
  ncz_attr_list_init (&self->attributes, self);
  self->dimension_index = ncz_name_index_new ();
  self->variable_index = ncz_name_index_new ();
  self->group_index = ncz_name_index_new ();
}

NczGroup *
ncz_group_new_internal (NczDataset *dataset, NczGroup *parent, const char *name)
{
  NczGroup *self = g_object_new (NCZ_TYPE_GROUP, NULL);
  self->name = g_strdup (name);
  self->dataset = dataset;
  self->parent = parent;
  ncz_node_link_init (&self->link, parent ? (gpointer) parent : (gpointer) dataset);
  return self;
}

NczDataset *
ncz_group_peek_dataset (NczGroup *self)
{
  return self->dataset;
}

/**
 * ncz_group_get_name:
 * @self: a group
 *
 * Gives the group's own name, without the names of its ancestors (see
 * ncz_group_get_full_name()). The string belongs to the group.
 *
 * Returns: the name ("/" for the root group)
 * Since: 1.0
 */
const char *
ncz_group_get_name (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return self->name;
}

/**
 * ncz_group_get_full_name:
 * @self: a group
 *
 * Gives the group's path from the root. Free the result with g_free().
 *
 * Returns: (transfer full): the fully qualified name, "/" for the root
 *   group, "/a/b" for subgroup b of subgroup a
 * Since: 1.0
 */
char *
ncz_group_get_full_name (NczGroup *self)
{
  GPtrArray *parts;
  char *result;

  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  if (self->parent == NULL)
    return g_strdup ("/");
  parts = g_ptr_array_new ();
  for (NczGroup *g = self; g && g->parent; g = g->parent)
    g_ptr_array_insert (parts, 0, g->name);
  g_ptr_array_insert (parts, 0, "");
  g_ptr_array_add (parts, NULL);
  result = g_strjoinv ("/", (char **) parts->pdata);
  g_ptr_array_unref (parts);
  return result;
}

/**
 * ncz_group_get_parent:
 * @self: a group
 *
 * Gives the group containing this one.
 *
 * Returns: (transfer none) (nullable): the parent group; %NULL for the root
 * Since: 1.0
 */
NczGroup *
ncz_group_get_parent (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return self->parent;
}

/**
 * ncz_group_get_dataset:
 * @self: a group
 *
 * Gives the dataset the group belongs to.
 *
 * Returns: (transfer none) (nullable): the dataset; it stays open while
 *   the group (or any object of the dataset) is held
 * Since: 1.0
 */
NczDataset *
ncz_group_get_dataset (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return self->dataset;
}

static GPtrArray *
copy_container (GPtrArray *a)
{
  GPtrArray *out = g_ptr_array_new_full (a->len, g_object_unref);
  for (guint i = 0; i < a->len; i++)
    g_ptr_array_add (out, g_object_ref (g_ptr_array_index (a, i)));
  return out;
}

/**
 * ncz_group_get_dimensions:
 * @self: a group
 *
 * Lists the dimensions defined in this group. Free the array with
 * g_ptr_array_unref(); it holds a reference on each dimension.
 *
 * Returns: (transfer container) (element-type NczDimension): the
 *   dimensions defined in this group, in definition order
 * Since: 1.0
 */
GPtrArray *
ncz_group_get_dimensions (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return copy_container (self->dimensions);
}

/**
 * ncz_group_get_variables:
 * @self: a group
 *
 * Lists the variables of this group. Free the array with
 * g_ptr_array_unref(); it holds a reference on each variable.
 *
 * Returns: (transfer container) (element-type NczVariable): the
 *   variables of this group, in definition order
 * Since: 1.0
 */
GPtrArray *
ncz_group_get_variables (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return copy_container (self->variables);
}

/**
 * ncz_group_get_groups:
 * @self: a group
 *
 * Lists the direct subgroups of this group, in definition order. Free the
 * array with g_ptr_array_unref(); it holds a reference on each group.
 *
 * Returns: (transfer container) (element-type NczGroup): the subgroups
 * Since: 1.0
 */
GPtrArray *
ncz_group_get_groups (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return copy_container (self->groups);
}

/**
 * ncz_group_get_dimension:
 * @self: a group
 * @name: a dimension name
 *
 * Looks up a dimension defined in this group (not in its ancestors: see
 * ncz_group_lookup_dimension()) by name, in Unicode normalization form C.
 *
 * Returns: (transfer none) (nullable): the dimension @name defined in
 *   this group
 * Since: 1.0
 */
NczDimension *
ncz_group_get_dimension (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return ncz_name_index_lookup (self->dimension_index, name);
}

/* For a fully qualified name "/g1/g2/leaf": the group "/g1/g2" in the
 * tree of @self, and in @leaf the last component; NULL when a group on
 * the way is missing or the name ends with '/'. */
static NczGroup *
walk_to_parent (NczGroup *self, const char *path, const char **leaf)
{
  NczGroup *g = self;
  const char *p = path + 1;
  const char *slash;

  while (g->parent)
    g = g->parent;
  while ((slash = strchr (p, '/')) != NULL)
    {
      g_autofree char *part = g_strndup (p, (gsize) (slash - p));
      g = ncz_group_get_group (g, part);
      if (g == NULL)
        return NULL;
      p = slash + 1;
    }
  if (*p == '\0')
    return NULL;
  *leaf = p;
  return g;
}

/**
 * ncz_group_lookup_dimension:
 * @self: a group
 * @name: a dimension name, or a fully qualified name such as "/sub/x"
 *
 * Finds a dimension visible from this group: defined here or in an
 * enclosing group, or by its fully qualified name.
 *
 * Returns: (transfer none) (nullable): the dimension
 * Since: 1.0
 */
NczDimension *
ncz_group_lookup_dimension (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (name[0] == '/')
    {
      const char *leaf = NULL;
      NczGroup *g = walk_to_parent (self, name, &leaf);
      return g ? ncz_group_get_dimension (g, leaf) : NULL;
    }
  for (NczGroup *g = self; g; g = g->parent)
    {
      NczDimension *d = ncz_group_get_dimension (g, name);
      if (d)
        return d;
    }
  return NULL;
}

/**
 * ncz_group_lookup_variable:
 * @self: a group
 * @name: a variable name in this group, or a fully qualified name such as
 *   "/sub/v" anywhere in the dataset
 *
 * Finds a variable by its name in this group or by its fully qualified
 * name (the form ncz_variable_get_full_name() returns).
 *
 * Returns: (transfer none) (nullable): the variable
 * Since: 1.0
 */
NczVariable *
ncz_group_lookup_variable (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (name[0] == '/')
    {
      const char *leaf = NULL;
      NczGroup *g = walk_to_parent (self, name, &leaf);
      return g ? ncz_group_get_variable (g, leaf) : NULL;
    }
  return ncz_group_get_variable (self, name);
}

/**
 * ncz_group_get_variable:
 * @self: a group
 * @name: a variable name
 *
 * Looks up a variable of this group (not of its ancestors: see
 * ncz_group_lookup_variable()) by name. Gives %NULL when there is none.
 *
 * Returns: (transfer none) (nullable): the variable @name of this group
 * Since: 1.0
 */
NczVariable *
ncz_group_get_variable (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return ncz_name_index_lookup (self->variable_index, name);
}

/**
 * ncz_group_get_group:
 * @self: a group
 * @name: a subgroup name
 *
 * Looks up a direct subgroup of this group by name. Gives %NULL when there
 * is none.
 *
 * Returns: (transfer none) (nullable): the subgroup @name
 * Since: 1.0
 */
NczGroup *
ncz_group_get_group (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return ncz_name_index_lookup (self->group_index, name);
}

static gboolean
check_define (NczGroup *self, GError **error)
{
  if (self->dataset == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of group '%s' is gone", self->name);
      return FALSE;
    }
  if (ncz_dataset_is_closed (self->dataset) && !ncz_dataset_is_loading (self->dataset))
    {
      g_autofree char *full = ncz_group_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "dataset '%s' is closed: group '%s' can no longer be changed",
                   ncz_url_get_original (ncz_dataset_get_url (self->dataset)), full);
      return FALSE;
    }
  return ncz_dataset_check_definable (self->dataset, error);
}

/* Checks @name for a definition of @kind ("dimension", "variable" or
 * "group") in @self. Returns its NFC form, the key of the new object in
 * the group's index, or NULL with @error set. In *@stored, the name the
 * new object gets: the NFC form, or @name itself while a backend loads a
 * dataset (the stored spelling, which names the object in the store). */
static char *
check_new_name (NczGroup *self, const char *kind, const char *name,
                const char **stored, GError **error)
{
  gboolean is_dim = g_str_equal (kind, "dimension");
  g_autofree char *key = NULL;
  gpointer clash;

  if (!check_define (self, error) || !ncz_check_object_name (kind, name, error))
    return NULL;
  key = ncz_name_normalize (name);
  /* netCDF: variables and subgroups share one namespace; dimensions have
   * their own. */
  if (is_dim)
    clash = g_hash_table_lookup (self->dimension_index, key);
  else if ((clash = g_hash_table_lookup (self->variable_index, key)) == NULL)
    clash = g_hash_table_lookup (self->group_index, key);
  if (clash)
    {
      g_autofree char *full = ncz_group_get_full_name (self);
      const char *existing = is_dim ? ncz_dimension_get_name (clash)
                             : NCZ_IS_GROUP (clash) ? ((NczGroup *) clash)->name
                                                    : ncz_variable_get_name (clash);
      if (g_str_equal (existing, name))
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS,
                     "group '%s' already has a %s named '%s'",
                     full, is_dim ? "dimension" : "group or variable", name);
      else
        g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_EXISTS,
                     "group '%s' already has a %s named '%s', the same name as '%s' "
                     "in Unicode normalization form C",
                     full, is_dim ? "dimension" : "group or variable", existing, name);
      return NULL;
    }
  *stored = ncz_dataset_is_loading (self->dataset) ? name : key;
  return g_steal_pointer (&key);
}

/**
 * ncz_group_add_dimension:
 * @self: a group
 * @name: the new dimension's name
 * @length: its length (the current length for an unlimited dimension)
 * @unlimited: whether the dimension is unlimited
 * @error: return location for a #GError
 *
 * Defines a dimension in the group. Fails with
 * %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable (or was
 * opened with %NCZ_OPEN_WRITE_DATA), %NCZ_DATASET_ERROR_EXISTS when the
 * group already has a dimension of that name (compared in Unicode
 * normalization form C), or with the backend's error when it refuses the
 * definition. The group owns the new dimension.
 *
 * Returns: (transfer none): the new dimension
 * Since: 1.0
 */
NczDimension *
ncz_group_add_dimension (NczGroup *self, const char *name, guint64 length,
                         gboolean unlimited, GError **error)
{
  NczDimension *dim;
  const char *stored = NULL;
  char *key;

  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  if ((key = check_new_name (self, "dimension", name, &stored, error)) == NULL)
    return NULL;
  dim = ncz_dimension_new_internal (self, stored, length, unlimited);
  ncz_node_adopt (dim);
  g_ptr_array_add (self->dimensions, dim);
  g_hash_table_insert (self->dimension_index, key, dim);
  ncz_model_list_changed (G_OBJECT (self), NCZ_MODEL_LIST_DIMENSIONS,
                          self->dimensions->len - 1, 0, 1);
  return ncz_format_notify_dimension (dim, NCZ_DEFINITION_ADDED, error) ? dim : NULL;
}

/**
 * ncz_group_add_variable:
 * @self: a group
 * @name: the new variable's name
 * @type: its type
 * @n_dims: number of dimensions (0 for a scalar)
 * @dimensions: (array length=n_dims) (nullable): the dimensions, outermost first
 * @error: return location for a #GError
 *
 * Defines a variable of @type over @dimensions (none for a scalar). The
 * dimensions may belong to this group or to any group of the same dataset.
 * The variable starts with the backend's default chunking, no filters and
 * the default fill value of @type; set those before writing data. Fails
 * with %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable,
 * %NCZ_DATASET_ERROR_EXISTS when the name is taken by a group or variable,
 * %NCZ_DATASET_ERROR_INVALID for an invalid type, more than 1024
 * dimensions, or a dimension of another dataset. The group owns the new
 * variable.
 *
 * Returns: (transfer none): the new variable
 * Since: 1.0
 */
NczVariable *
ncz_group_add_variable (NczGroup *self, const char *name, NczDataType type,
                        guint n_dims, NczDimension **dimensions, GError **error)
{
  NczVariable *var;
  const char *stored = NULL;
  g_autofree char *key = NULL;

  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (n_dims == 0 || dimensions != NULL, NULL);
  if ((key = check_new_name (self, "variable", name, &stored, error)) == NULL)
    return NULL;
  if (ncz_data_type_get_size (type) == 0)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': invalid type %d", name, type);
      return NULL;
    }
  if (n_dims > 1024)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "variable '%s': %u dimensions is too many", name, n_dims);
      return NULL;
    }
  for (guint i = 0; i < n_dims; i++)
    {
      NczGroup *dg;
      if (!NCZ_IS_DIMENSION (dimensions[i]))
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': dimension %u is not a dimension", name, i);
          return NULL;
        }
      dg = ncz_dimension_get_group (dimensions[i]);
      if (dg == NULL || ncz_group_peek_dataset (dg) != self->dataset)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                       "variable '%s': dimension '%s' belongs to another dataset",
                       name, ncz_dimension_get_name (dimensions[i]));
          return NULL;
        }
    }
  var = ncz_variable_new_internal (self, stored, type, n_dims, dimensions);
  ncz_node_adopt (var);
  g_ptr_array_add (self->variables, var);
  g_hash_table_insert (self->variable_index, g_steal_pointer (&key), var);
  g_list_model_items_changed (G_LIST_MODEL (self),
                              self->groups->len + self->variables->len - 1, 0, 1);
  ncz_model_list_changed (G_OBJECT (self), NCZ_MODEL_LIST_VARIABLES,
                          self->variables->len - 1, 0, 1);
  return ncz_format_notify_variable (var, NCZ_DEFINITION_ADDED, error) ? var : NULL;
}

/**
 * ncz_group_add_group:
 * @self: a group
 * @name: the new subgroup's name
 * @error: return location for a #GError
 *
 * Defines a subgroup of the group. Fails with %NCZ_DATASET_ERROR_READ_ONLY
 * when the dataset is not writable and %NCZ_DATASET_ERROR_EXISTS when the
 * group already has a group or variable of that name. The group owns the
 * new subgroup.
 *
 * Returns: (transfer none): the new group
 * Since: 1.0
 */
NczGroup *
ncz_group_add_group (NczGroup *self, const char *name, GError **error)
{
  NczGroup *g;
  const char *stored = NULL;
  char *key;

  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  if ((key = check_new_name (self, "group", name, &stored, error)) == NULL)
    return NULL;
  g = ncz_group_new_internal (self->dataset, self, stored);
  ncz_node_adopt (g);
  g_ptr_array_add (self->groups, g);
  g_hash_table_insert (self->group_index, key, g);
  g_list_model_items_changed (G_LIST_MODEL (self), self->groups->len - 1, 0, 1);
  ncz_model_list_changed (G_OBJECT (self), NCZ_MODEL_LIST_GROUPS, self->groups->len - 1, 0, 1);
  return ncz_format_notify_group (g, NCZ_DEFINITION_ADDED, error) ? g : NULL;
}

/**
 * ncz_group_get_attributes:
 * @self: a group
 *
 * Lists the group's attributes. Free the array with g_ptr_array_unref();
 * the attributes themselves belong to the group.
 *
 * Returns: (transfer container) (element-type NczAttribute): the
 *   attributes, in definition order
 * Since: 1.0
 */
GPtrArray *
ncz_group_get_attributes (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return ncz_attr_list_copy (&self->attributes);
}

/**
 * ncz_group_get_attribute:
 * @self: a group
 * @name: an attribute name
 *
 * Looks up an attribute of the group by name. Gives %NULL when there is
 * none. The attribute belongs to the group; attributes are immutable, a
 * change replaces them.
 *
 * Returns: (transfer none) (nullable): the attribute
 * Since: 1.0
 */
NczAttribute *
ncz_group_get_attribute (NczGroup *self, const char *name)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return ncz_attr_list_find (&self->attributes, name);
}

/**
 * ncz_group_set_attribute:
 * @self: a group
 * @attribute: the attribute; replaces one of the same name, keeping its place
 * @error: return location for a #GError
 *
 * Adds an attribute to the group, or replaces the one of the same name.
 * The group takes a reference on @attribute. Fails with
 * %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable, or with
 * the backend's error when it refuses the attribute.
 *
 * Returns: %TRUE on success
 * Since: 1.0
 */
gboolean
ncz_group_set_attribute (NczGroup *self, NczAttribute *attribute, GError **error)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), FALSE);
  g_return_val_if_fail (NCZ_IS_ATTRIBUTE (attribute), FALSE);
  if (!check_define (self, error))
    return FALSE;
  ncz_attr_list_set (&self->attributes, attribute);
  return ncz_format_notify_attribute (self, ncz_attribute_get_name (attribute), attribute, NCZ_DEFINITION_ADDED, error);
}

/**
 * ncz_group_remove_attribute:
 * @self: a group
 * @name: an attribute name
 * @error: return location for a #GError
 *
 * Deletes an attribute of the group. Fails with
 * %NCZ_DATASET_ERROR_READ_ONLY when the dataset is not writable and
 * %NCZ_DATASET_ERROR_NOT_FOUND when the group has no attribute @name.
 *
 * Returns: %TRUE on success; %NCZ_DATASET_ERROR_NOT_FOUND if absent
 * Since: 1.0
 */
gboolean
ncz_group_remove_attribute (NczGroup *self, const char *name, GError **error)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  if (!check_define (self, error))
    return FALSE;
  if (!ncz_attr_list_remove (&self->attributes, name))
    {
      g_autofree char *full = ncz_group_get_full_name (self);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_FOUND,
                   "group '%s' has no attribute '%s'", full, name);
      return FALSE;
    }
  return ncz_format_notify_attribute (self, name, NULL, NCZ_DEFINITION_REMOVED, error);
}

GPtrArray *
ncz_group_peek_list (GObject *group, NczModelListKind kind)
{
  NczGroup *self = NCZ_GROUP (group);

  switch (kind)
    {
    case NCZ_MODEL_LIST_ATTRIBUTES: return self->attributes.items;
    case NCZ_MODEL_LIST_DIMENSIONS: return self->dimensions;
    case NCZ_MODEL_LIST_VARIABLES: return self->variables;
    case NCZ_MODEL_LIST_GROUPS: return self->groups;
    case NCZ_MODEL_LIST_N_KINDS: break;
    }
  return NULL;
}

/**
 * ncz_group_get_attribute_list: (get-property attributes)
 * @self: a group
 *
 * Gets the [property@Ncz.Group:attributes] list model: the group's
 * attributes, kept current as attributes are set and removed.
 *
 * Returns: (transfer full): a #GListModel of #NczAttribute
 * Since: 1.0
 */
GListModel *
ncz_group_get_attribute_list (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_ATTRIBUTES,
                             NCZ_TYPE_ATTRIBUTE, ncz_group_peek_list);
}

/**
 * ncz_group_get_dimension_list: (get-property dimensions)
 * @self: a group
 *
 * Gets the [property@Ncz.Group:dimensions] list model: the dimensions
 * defined in this group, kept current as dimensions are added.
 *
 * Returns: (transfer full): a #GListModel of #NczDimension
 * Since: 1.0
 */
GListModel *
ncz_group_get_dimension_list (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_DIMENSIONS,
                             NCZ_TYPE_DIMENSION, ncz_group_peek_list);
}

/**
 * ncz_group_get_variable_list: (get-property variables)
 * @self: a group
 *
 * Gets the [property@Ncz.Group:variables] list model: the variables of
 * this group, kept current as variables are added.
 *
 * Returns: (transfer full): a #GListModel of #NczVariable
 * Since: 1.0
 */
GListModel *
ncz_group_get_variable_list (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_VARIABLES,
                             NCZ_TYPE_VARIABLE, ncz_group_peek_list);
}

/**
 * ncz_group_get_group_list: (get-property groups)
 * @self: a group
 *
 * Gets the [property@Ncz.Group:groups] list model: the subgroups of this
 * group, kept current as subgroups are added.
 *
 * Returns: (transfer full): a #GListModel of #NczGroup
 * Since: 1.0
 */
GListModel *
ncz_group_get_group_list (NczGroup *self)
{
  g_return_val_if_fail (NCZ_IS_GROUP (self), NULL);
  return ncz_model_list_get (G_OBJECT (self), NCZ_MODEL_LIST_GROUPS,
                             NCZ_TYPE_GROUP, ncz_group_peek_list);
}

/* The length of @dimension grew: the variables using it, in @group and
 * in the subgroups that see it, tell their shape changed. */
void
ncz_group_notify_dimension_grown (NczGroup *group, NczDimension *dimension)
{
  for (guint i = 0; i < group->variables->len; i++)
    ncz_variable_dimension_grown (g_ptr_array_index (group->variables, i), dimension);
  for (guint i = 0; i < group->groups->len; i++)
    ncz_group_notify_dimension_grown (g_ptr_array_index (group->groups, i), dimension);
}

/* The dataset was closed: every variable tells it is no longer writable */
void
ncz_group_notify_closed (NczGroup *group)
{
  for (guint i = 0; i < group->variables->len; i++)
    ncz_variable_notify_writable (g_ptr_array_index (group->variables, i));
  for (guint i = 0; i < group->groups->len; i++)
    ncz_group_notify_closed (g_ptr_array_index (group->groups, i));
}
