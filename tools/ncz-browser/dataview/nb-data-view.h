/* nb-data-view.h: the data of a variable: image, plot, table, chunk map
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NB_TYPE_DATA_VIEW (nb_data_view_get_type ())
G_DECLARE_FINAL_TYPE (NbDataView, nb_data_view, NB, DATA_VIEW, GtkWidget)

GtkWidget   *nb_data_view_new (void);
void         nb_data_view_set_variable (NbDataView *self, NczVariable *variable);
NczVariable *nb_data_view_get_variable (NbDataView *self);
void         nb_data_view_set_axes (NbDataView *self, guint y_dim, guint x_dim);
void         nb_data_view_set_index (NbDataView *self, guint dim, guint64 index);
void         nb_data_view_set_page (NbDataView *self, const char *page);
void         nb_data_view_set_colormap (NbDataView *self, const char *name);
void         nb_data_view_set_range (NbDataView *self, gboolean automatic,
                                     double min, double max);
gboolean     nb_data_view_export_png (NbDataView *self, const char *path, GError **error);
gboolean     nb_data_view_is_loading (NbDataView *self);

/* beyond the shared interface: animation and what tests look at */
void         nb_data_view_set_playing (NbDataView *self, gboolean playing);
gboolean     nb_data_view_get_playing (NbDataView *self);
void         nb_data_view_set_play_dimension (NbDataView *self, guint dim);
const char  *nb_data_view_get_page (NbDataView *self);
void         nb_data_view_get_range (NbDataView *self, double *min, double *max);
GtkWidget   *nb_data_view_get_image_view (NbDataView *self);
GtkWidget   *nb_data_view_get_colorbar (NbDataView *self);
GtkWidget   *nb_data_view_get_table_view (NbDataView *self);
GtkWidget   *nb_data_view_get_chunk_map (NbDataView *self);
GtkWidget   *nb_data_view_get_plot_view (NbDataView *self);
gboolean     nb_data_view_get_y_flipped (NbDataView *self);
char        *nb_data_view_describe_point (NbDataView *self, guint64 y_index, guint64 x_index);
void         nb_data_view_get_export_image_origin (NbDataView *self, int *width, int *height);
void         nb_data_view_set_full_limit (NbDataView *self, guint64 max_values);
void         nb_data_view_get_read_counts (NbDataView *self, guint64 *n_reads, guint64 *n_values);

G_END_DECLS
