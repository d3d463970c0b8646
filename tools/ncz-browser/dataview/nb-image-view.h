/* nb-image-view.h: a colour-mapped image with zoom, pan and hover
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NB_TYPE_IMAGE_VIEW (nb_image_view_get_type ())
G_DECLARE_FINAL_TYPE (NbImageView, nb_image_view, NB, IMAGE_VIEW, GtkWidget)

GtkWidget *nb_image_view_new        (void);
void       nb_image_view_set_image  (NbImageView *self, cairo_surface_t *surface,
                                     double extent_w, double extent_h,
                                     double step_x, double step_y);
void       nb_image_view_clear      (NbImageView *self);
void       nb_image_view_set_detail (NbImageView *self, cairo_surface_t *surface,
                                     double u0, double v0, double step);
gboolean   nb_image_view_has_detail (NbImageView *self);
gboolean   nb_image_view_get_visible (NbImageView *self, double *u0, double *v0,
                                      double *u1, double *v1);
gboolean   nb_image_view_has_image  (NbImageView *self);
void       nb_image_view_reset_zoom (NbImageView *self);
void       nb_image_view_set_zoom   (NbImageView *self, double zoom,
                                     double center_u, double center_v);
double     nb_image_view_get_zoom   (NbImageView *self);
void       nb_image_view_draw       (NbImageView *self, cairo_t *cr,
                                     int width, int height);
gboolean   nb_image_view_data_to_widget (NbImageView *self, int width, int height,
                                         double u, double v, double *x, double *y);
gboolean   nb_image_view_widget_to_data (NbImageView *self, int width, int height,
                                         double x, double y, double *u, double *v);

G_END_DECLS
