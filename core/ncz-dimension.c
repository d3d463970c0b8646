/* ncz-dimension.c: a shared (named) dimension
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"
#include "ncz-format-private.h"
#include "ncz-model-private.h"

/**
 * NczDimension:
 *
 * A named dimension defined in a group. Variables of that group and of
 * its subgroups refer to it by name.
 *
 * Since: 1.0
 */
struct _NczDimension
{
  GObject parent_instance;
  char *name;
  guint64 length;       /* unlimited dimensions grow on write; atomic:
                           writers on several threads grow it at once */
  gboolean unlimited;
  NczNodeLink link;     /* to the group, the owner */
  NczGroup *group;
};

G_DEFINE_FINAL_TYPE (NczDimension, ncz_dimension, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_FULL_NAME,
  PROP_GROUP,
  PROP_LENGTH,
  PROP_UNLIMITED,
  N_PROPS
};

static GParamSpec *dimension_props[N_PROPS];

static void
ncz_dimension_finalize (GObject *object)
{
  NczDimension *self = NCZ_DIMENSION (object);
  ncz_node_link_clear (&self->link);
  g_free (self->name);
  G_OBJECT_CLASS (ncz_dimension_parent_class)->finalize (object);
}

static void
ncz_dimension_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  NczDimension *self = NCZ_DIMENSION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_FULL_NAME:
      g_value_take_string (value, ncz_dimension_get_full_name (self));
      break;
    case PROP_GROUP:
      g_value_set_object (value, self->group);
      break;
    case PROP_LENGTH:
      g_value_set_uint64 (value, ncz_dimension_get_length (self));
      break;
    case PROP_UNLIMITED:
      g_value_set_boolean (value, self->unlimited);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_dimension_class_init (NczDimensionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ncz_dimension_finalize;
  object_class->get_property = ncz_dimension_get_property;

  /**
   * NczDimension:name: (getter get_name)
   *
   * The dimension's name.
   *
   * Since: 1.0
   */
  dimension_props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  /**
   * NczDimension:full-name: (getter get_full_name)
   *
   * The fully qualified name, e.g. "/sub/x".
   *
   * Since: 1.0
   */
  dimension_props[PROP_FULL_NAME] = g_param_spec_string ("full-name", NULL, NULL, NULL, ro);
  /**
   * NczDimension:group: (getter get_group)
   *
   * The group defining the dimension.
   *
   * Since: 1.0
   */
  dimension_props[PROP_GROUP] = g_param_spec_object ("group", NULL, NULL, NCZ_TYPE_GROUP, ro);
  /**
   * NczDimension:length: (getter get_length)
   *
   * The current length. An unlimited dimension grows when data is
   * written beyond it, when its length is set
   * (ncz_dimension_set_length()) and when a refresh finds a longer stored
   * length; #GObject::notify is emitted each time, on the thread that
   * made the change (a write in a worker thread notifies there, as GIO
   * objects do), and the variables using the dimension notify their
   * [property@Ncz.Variable:shape] then.
   *
   * Since: 1.0
   */
  dimension_props[PROP_LENGTH] = g_param_spec_uint64 ("length", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  /**
   * NczDimension:unlimited: (getter is_unlimited)
   *
   * Whether the dimension is unlimited.
   *
   * Since: 1.0
   */
  dimension_props[PROP_UNLIMITED] = g_param_spec_boolean ("unlimited", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, dimension_props);
}

static void
ncz_dimension_init (NczDimension *self)
{
}

NczDimension *
ncz_dimension_new_internal (NczGroup *group, const char *name, guint64 length,
                            gboolean unlimited)
{
  NczDimension *self = g_object_new (NCZ_TYPE_DIMENSION, NULL);
  self->name = g_strdup (name);
  self->length = length;
  self->unlimited = unlimited;
  self->group = group;
  ncz_node_link_init (&self->link, group);
  return self;
}

NczNodeLink *
ncz_dimension_get_link (NczDimension *self)
{
  return &self->link;
}

/* The length changed: the dimension and the variables using it say so */
static void
length_changed (NczDimension *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), dimension_props[PROP_LENGTH]);
  if (self->group != NULL)
    ncz_group_notify_dimension_grown (self->group, self);
}

void
ncz_dimension_set_length_internal (NczDimension *self, guint64 length)
{
  if (__atomic_exchange_n (&self->length, length, __ATOMIC_ACQ_REL) != length)
    length_changed (self);
}

/* The length becomes at least @length, whatever other threads do. */
static void
grow_to (NczDimension *self, guint64 length)
{
  guint64 cur = __atomic_load_n (&self->length, __ATOMIC_ACQUIRE);

  while (length > cur)
    if (__atomic_compare_exchange_n (&self->length, &cur, length, FALSE, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      {
        length_changed (self);
        return;
      }
}

void
ncz_dimension_grow (NczDimension *self, guint64 length)
{
  g_return_if_fail (NCZ_IS_DIMENSION (self));
  if (self->unlimited)
    grow_to (self, length);
}

void
ncz_dimension_grow_internal (NczDimension *self, guint64 length)
{
  grow_to (self, length);
}

/**
 * ncz_dimension_set_length:
 * @self: an unlimited dimension
 * @length: its new length, at least the current one
 * @error: return location for a #GError
 *
 * Sets the length of an unlimited dimension without writing data, as the
 * coordinator of a job does before its workers write their regions
 * (xarray's `region=` pattern; see docs/concurrency.md). Elements not
 * written read as the variables' fill values. The length is stored at
 * the next sync; writers that share the dataset keep the longest length
 * any of them stored.
 *
 * Returns: %TRUE on success; %FALSE with @error set if the dimension is
 * not unlimited (%NCZ_DATASET_ERROR_INVALID), @length is shorter than
 * the current length (data would be hidden), or the dataset is read-only
 * or open with %NCZ_OPEN_WRITE_DATA (%NCZ_DATASET_ERROR_READ_ONLY)
 * Since: 1.0
 */
gboolean
ncz_dimension_set_length (NczDimension *self, guint64 length, GError **error)
{
  NczDataset *ds;
  guint64 cur;

  g_return_val_if_fail (NCZ_IS_DIMENSION (self), FALSE);
  ds = self->group != NULL ? ncz_group_peek_dataset (self->group) : NULL;
  if (ds == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_CLOSED,
                   "the dataset of dimension '%s' is gone", self->name);
      return FALSE;
    }
  if (!ncz_dataset_check_definable (ds, error))
    return FALSE;
  cur = ncz_dimension_get_length (self);
  if (!self->unlimited)
    {
      if (length == cur)
        return TRUE;
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "dimension '%s' has the fixed length %" G_GUINT64_FORMAT
                   "; only an unlimited dimension's length can be set", self->name, cur);
      return FALSE;
    }
  if (length < cur)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "dimension '%s': its length is %" G_GUINT64_FORMAT ", and setting it to %"
                   G_GUINT64_FORMAT " would hide data; it can only grow", self->name, cur,
                   length);
      return FALSE;
    }
  grow_to (self, length);
  return ncz_format_notify_dimension (self, NCZ_DEFINITION_CHANGED, error);
}

/**
 * ncz_dimension_get_name:
 * @self: a dimension
 *
 * Gives the dimension's name, without its group's path (see
 * ncz_dimension_get_full_name()). The string belongs to the dimension.
 *
 * Returns: the name
 * Since: 1.0
 */
const char *
ncz_dimension_get_name (NczDimension *self)
{
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), NULL);
  return self->name;
}

/**
 * ncz_dimension_get_length:
 * @self: a dimension
 *
 * Gives the dimension's length. An unlimited dimension grows as data are
 * written along it: its length is the largest extent written so far, and
 * may change while it is read from another thread.
 *
 * Returns: the current length (for an unlimited dimension, the largest
 *   length written so far)
 * Since: 1.0
 */
guint64
ncz_dimension_get_length (NczDimension *self)
{
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), 0);
  return __atomic_load_n (&self->length, __ATOMIC_ACQUIRE);
}

/**
 * ncz_dimension_is_unlimited:
 * @self: a dimension
 *
 * Tells whether the dimension is unlimited: its length is the largest
 * extent written along it rather than fixed at definition.
 *
 * Returns: whether the dimension is unlimited
 * Since: 1.0
 */
gboolean
ncz_dimension_is_unlimited (NczDimension *self)
{
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), FALSE);
  return self->unlimited;
}

/**
 * ncz_dimension_get_group:
 * @self: a dimension
 *
 * Gives the group that defines the dimension.
 *
 * Returns: (transfer none) (nullable): the group defining the dimension
 * Since: 1.0
 */
NczGroup *
ncz_dimension_get_group (NczDimension *self)
{
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), NULL);
  return self->group;
}

/**
 * ncz_dimension_get_full_name:
 * @self: a dimension
 *
 * Gives the dimension's name qualified by the path of its group: `/x` for
 * a dimension of the root group, `/sub/x` for one of group `sub`. Free the
 * result with g_free().
 *
 * Returns: (transfer full): the fully qualified name, e.g. "/sub/x"
 * Since: 1.0
 */
char *
ncz_dimension_get_full_name (NczDimension *self)
{
  g_autofree char *gname = NULL;
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), NULL);
  if (self->group == NULL)
    return g_strconcat ("/", self->name, NULL);
  gname = ncz_group_get_full_name (self->group);
  if (g_str_equal (gname, "/"))
    return g_strconcat ("/", self->name, NULL);
  return g_strconcat (gname, "/", self->name, NULL);
}
