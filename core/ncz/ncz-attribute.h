/* ncz-attribute.h: a typed attribute value
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib-object.h>
#include <ncz/ncz-data-type.h>

G_BEGIN_DECLS

#define NCZ_TYPE_ATTRIBUTE (ncz_attribute_get_type ())
NCZ_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NczAttribute, ncz_attribute, NCZ, ATTRIBUTE, GObject)

NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new (const char *name, NczDataType type, GBytes *values,
                                 GError **error);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new_values (const char *name, NczDataType type,
                                        gconstpointer values, gsize n_values,
                                        GError **error);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new_text (const char *name, const char *text,
                                      gssize length);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new_strings (const char *name,
                                         const char * const *strings,
                                         gssize n_strings);
NCZ_AVAILABLE_IN_ALL
const char *ncz_attribute_get_name (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
NczDataType ncz_attribute_get_value_type (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
gsize ncz_attribute_get_length (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_attribute_get_data (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
gconstpointer ncz_attribute_peek_values (NczAttribute *self, gsize *n_values);
NCZ_AVAILABLE_IN_ALL
char *ncz_attribute_get_text (NczAttribute *self, gsize *length);
NCZ_AVAILABLE_IN_ALL
const char * const *ncz_attribute_get_strings (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
double ncz_attribute_get_double (NczAttribute *self, gsize index, GError **error);
NCZ_AVAILABLE_IN_ALL
gint64 ncz_attribute_get_int64 (NczAttribute *self, gsize index, GError **error);
NCZ_AVAILABLE_IN_ALL
guint64 ncz_attribute_get_uint64 (NczAttribute *self, gsize index,
                                  GError **error);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_attribute_equal (NczAttribute *a, NczAttribute *b);

NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new_utf8 (const char *name, const char *text, GError **error);
NCZ_AVAILABLE_IN_ALL
NczAttribute *ncz_attribute_new_from_variant (const char *name, GVariant *value,
                                              GError **error);
NCZ_AVAILABLE_IN_ALL
char *ncz_attribute_dup_text (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
char *ncz_attribute_dup_display_text (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
GVariant *ncz_attribute_get_value (NczAttribute *self);
NCZ_AVAILABLE_IN_ALL
double *ncz_attribute_get_double_values (NczAttribute *self, gsize *n_values,
                                         GError **error);
NCZ_AVAILABLE_IN_ALL
gint64 *ncz_attribute_get_int64_values (NczAttribute *self, gsize *n_values,
                                        GError **error);
NCZ_AVAILABLE_IN_ALL
guint64 *ncz_attribute_get_uint64_values (NczAttribute *self, gsize *n_values,
                                          GError **error);

G_END_DECLS
