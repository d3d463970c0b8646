/* nb-draw.c: what the cairo-drawn widgets of the data view share
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "nb-draw.h"

void
nb_draw_snapshot_cairo (GtkWidget *widget, GtkSnapshot *snapshot, NbDrawFunc draw)
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  draw (widget, cr, width, height);
  cairo_destroy (cr);
}

void
nb_draw_text (cairo_t *cr, const char *text, double x, double y, double ax, double ay,
              const char *font)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string (font);
  int w, h;

  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - w * ax, y - h * ay);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (desc);
  g_object_unref (layout);
}
