/* nb-colorbar.h: the colour bar of the image, with its range
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NB_TYPE_COLORBAR (nb_colorbar_get_type ())
G_DECLARE_FINAL_TYPE (NbColorbar, nb_colorbar, NB, COLORBAR, GtkWidget)

GtkWidget  *nb_colorbar_new       (void);
void        nb_colorbar_set       (NbColorbar *self, const char *colormap,
                                   double min, double max, const char *units);
const char *nb_colorbar_get_min_text (NbColorbar *self);
const char *nb_colorbar_get_max_text (NbColorbar *self);
void        nb_colorbar_draw      (NbColorbar *self, cairo_t *cr, int width, int height);
char       *nb_format_value       (double value);

G_END_DECLS
