/* nb-plot-view.h: a line plot of 1-D values
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NB_TYPE_PLOT_VIEW (nb_plot_view_get_type ())
G_DECLARE_FINAL_TYPE (NbPlotView, nb_plot_view, NB, PLOT_VIEW, GtkWidget)

GtkWidget *nb_plot_view_new      (void);
void       nb_plot_view_set_data (NbPlotView *self, const double *x, const double *y,
                                  gsize n, const char *x_label, const char *y_label);
void       nb_plot_view_clear    (NbPlotView *self);
gsize      nb_plot_view_get_n_points (NbPlotView *self);
void       nb_plot_view_draw     (NbPlotView *self, cairo_t *cr, int width, int height);

G_END_DECLS
