/* ncz-dimension.c: a shared (named) dimension
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"

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
  guint64 length;       /* unlimited dimensions grow on write */
  gboolean unlimited;
  NczNodeLink link;     /* to the group, the owner */
  NczGroup *group;
};

G_DEFINE_FINAL_TYPE (NczDimension, ncz_dimension, G_TYPE_OBJECT)

static void
ncz_dimension_finalize (GObject *object)
{
  NczDimension *self = NCZ_DIMENSION (object);
  ncz_node_link_clear (&self->link);
  g_free (self->name);
  G_OBJECT_CLASS (ncz_dimension_parent_class)->finalize (object);
}

static void
ncz_dimension_class_init (NczDimensionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ncz_dimension_finalize;
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

void
ncz_dimension_set_length_internal (NczDimension *self, guint64 length)
{
  self->length = length;
}

void
ncz_dimension_grow (NczDimension *self, guint64 length)
{
  g_return_if_fail (NCZ_IS_DIMENSION (self));
  if (self->unlimited && length > self->length)
    self->length = length;
}

/**
 * ncz_dimension_get_name:
 * @self: a dimension
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
 * Returns: the current length (for an unlimited dimension, the largest
 *   length written so far)
 * Since: 1.0
 */
guint64
ncz_dimension_get_length (NczDimension *self)
{
  g_return_val_if_fail (NCZ_IS_DIMENSION (self), 0);
  return self->length;
}

/**
 * ncz_dimension_is_unlimited:
 * @self: a dimension
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
