/* nb-colorbar.c: the colour bar of the image, with its range
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A horizontal gradient of the colour map between two labels, the
 * minimum on the left and the maximum on the right (GtkLabels, so that
 * the range can be read through the widget tree), the units under it.
 */
#include "nb-colorbar.h"
#include "nb-colormap.h"

#include <math.h>
#include <pango/pangocairo.h>

struct _NbColorbar
{
  GtkWidget parent_instance;

  GtkWidget *min_label;
  GtkWidget *gradient;
  GtkWidget *max_label;
  char *colormap;
};

G_DEFINE_FINAL_TYPE (NbColorbar, nb_colorbar, GTK_TYPE_WIDGET)

/* A value as the data view shows it: 4 significant digits, no trailing
 * noise, "NaN" / "missing" left to the caller */
char *
nb_format_value (double value)
{
  if (isnan (value))
    return g_strdup ("NaN");
  if (value == 0)
    return g_strdup ("0");
  if (fabs (value) >= 1e-3 && fabs (value) < 1e6)
    return g_strdup_printf ("%.6g", value);
  return g_strdup_printf ("%.4g", value);
}

static void
fill_gradient (cairo_t *cr, const char *colormap, double x, double y, double w, double h)
{
  cairo_pattern_t *pattern = cairo_pattern_create_linear (x, 0, x + w, 0);

  for (int i = 0; i <= 64; i++)
    {
      guint8 rgb[3];

      nb_colormap_lookup (colormap, i / 64.0, rgb);
      cairo_pattern_add_color_stop_rgb (pattern, i / 64.0, rgb[0] / 255.0,
                                        rgb[1] / 255.0, rgb[2] / 255.0);
    }
  cairo_rectangle (cr, x, y, w, h);
  cairo_set_source (cr, pattern);
  cairo_fill (cr);
  cairo_pattern_destroy (pattern);
}

static void
draw_gradient (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  NbColorbar *self = data;

  fill_gradient (cr, self->colormap, 0, 0, width, height);
}

static void
draw_text (cairo_t *cr, const char *text, double x, double y, double align)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Cantarell, Sans 10");
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - w * align, y - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

/* Draws the bar for a PNG: labels at both ends, the gradient between */
void
nb_colorbar_draw (NbColorbar *self, cairo_t *cr, int width, int height)
{
  double margin = 90, bar_h = MIN (16, height - 8);
  double y = (height - bar_h) / 2.0;

  cairo_save (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
  draw_text (cr, gtk_label_get_text (GTK_LABEL (self->min_label)), margin - 8, height / 2.0, 1.0);
  draw_text (cr, gtk_label_get_text (GTK_LABEL (self->max_label)), width - margin + 8, height / 2.0, 0.0);
  fill_gradient (cr, self->colormap, margin, y, width - 2 * margin, bar_h);
  cairo_rectangle (cr, margin + 0.5, y + 0.5, width - 2 * margin - 1, bar_h - 1);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.2);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
nb_colorbar_dispose (GObject *object)
{
  NbColorbar *self = NB_COLORBAR (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (nb_colorbar_parent_class)->dispose (object);
}

static void
nb_colorbar_finalize (GObject *object)
{
  g_free (NB_COLORBAR (object)->colormap);
  G_OBJECT_CLASS (nb_colorbar_parent_class)->finalize (object);
}

static void
nb_colorbar_class_init (NbColorbarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = nb_colorbar_dispose;
  object_class->finalize = nb_colorbar_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "nb-colorbar");
}

static void
nb_colorbar_init (NbColorbar *self)
{
  GtkLayoutManager *box = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (box), 8);
  self->colormap = g_strdup ("viridis");

  self->min_label = gtk_label_new ("");
  gtk_widget_set_name (self->min_label, "colorbar-min");
  gtk_label_set_xalign (GTK_LABEL (self->min_label), 1.0);
  gtk_label_set_width_chars (GTK_LABEL (self->min_label), 8);
  gtk_widget_add_css_class (self->min_label, "numeric");
  gtk_widget_add_css_class (self->min_label, "caption");
  gtk_widget_set_parent (self->min_label, GTK_WIDGET (self));

  self->gradient = gtk_drawing_area_new ();
  gtk_widget_set_hexpand (self->gradient, TRUE);
  gtk_widget_set_valign (self->gradient, GTK_ALIGN_CENTER);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->gradient), 14);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->gradient), draw_gradient, self, NULL);
  gtk_widget_add_css_class (self->gradient, "card");
  gtk_widget_set_overflow (self->gradient, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_parent (self->gradient, GTK_WIDGET (self));

  self->max_label = gtk_label_new ("");
  gtk_widget_set_name (self->max_label, "colorbar-max");
  gtk_label_set_xalign (GTK_LABEL (self->max_label), 0.0);
  gtk_label_set_width_chars (GTK_LABEL (self->max_label), 8);
  gtk_widget_add_css_class (self->max_label, "numeric");
  gtk_widget_add_css_class (self->max_label, "caption");
  gtk_widget_set_parent (self->max_label, GTK_WIDGET (self));
}

GtkWidget *
nb_colorbar_new (void)
{
  return g_object_new (NB_TYPE_COLORBAR, NULL);
}

void
nb_colorbar_set (NbColorbar *self, const char *colormap, double min, double max,
                 const char *units)
{
  g_autofree char *lo = nb_format_value (min);
  g_autofree char *hi = nb_format_value (max);
  g_autofree char *lo_text = NULL;
  g_autofree char *hi_text = NULL;

  if (units != NULL && *units != '\0')
    {
      lo_text = g_strdup_printf ("%s %s", lo, units);
      hi_text = g_strdup_printf ("%s %s", hi, units);
    }
  g_free (self->colormap);
  self->colormap = g_strdup (colormap != NULL ? colormap : "viridis");
  gtk_label_set_text (GTK_LABEL (self->min_label), lo_text != NULL ? lo_text : lo);
  gtk_label_set_text (GTK_LABEL (self->max_label), hi_text != NULL ? hi_text : hi);
  gtk_widget_queue_draw (self->gradient);
}

const char *
nb_colorbar_get_min_text (NbColorbar *self)
{
  return gtk_label_get_text (GTK_LABEL (self->min_label));
}

const char *
nb_colorbar_get_max_text (NbColorbar *self)
{
  return gtk_label_get_text (GTK_LABEL (self->max_label));
}
