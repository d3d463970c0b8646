/* nb-table-view.h: the values of a slice as a table
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NB_TYPE_VALUE_ROW (nb_value_row_get_type ())
G_DECLARE_FINAL_TYPE (NbValueRow, nb_value_row, NB, VALUE_ROW, GObject)

const char *nb_value_row_get_index_text (NbValueRow *self);
const char *nb_value_row_get_value_text (NbValueRow *self);
double      nb_value_row_get_value      (NbValueRow *self);

#define NB_TYPE_TABLE_VIEW (nb_table_view_get_type ())
G_DECLARE_FINAL_TYPE (NbTableView, nb_table_view, NB, TABLE_VIEW, GtkWidget)

GtkWidget  *nb_table_view_new        (void);
void        nb_table_view_set_values (NbTableView *self, const double *values,
                                      guint64 n_values, guint n_dims,
                                      const guint64 *start, const guint64 *count,
                                      const gint64 *stride, gboolean truncated);
void        nb_table_view_clear      (NbTableView *self);
GListModel *nb_table_view_get_model  (NbTableView *self);

G_END_DECLS
