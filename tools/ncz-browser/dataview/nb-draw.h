/* nb-draw.h: what the cairo-drawn widgets of the data view share
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Draws @widget's whole area with cairo: @draw gets a context and the
 * widget's size; nothing is drawn at size 0. */
typedef void (*NbDrawFunc) (GtkWidget *widget, cairo_t *cr, int width, int height);
void nb_draw_snapshot_cairo (GtkWidget *widget, GtkSnapshot *snapshot, NbDrawFunc draw);

/* @text in @font (a Pango font description) placed so that the point
 * (@ax, @ay) of its box, 0..1 from its top left, is at (@x, @y). */
void nb_draw_text (cairo_t *cr, const char *text, double x, double y, double ax, double ay,
                   const char *font);

G_END_DECLS
