/* nb-plot-view.c: a line plot of 1-D values
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Drawn with cairo: axes with "nice" ticks (1, 2, 5 x 10^k) and their
 * labels, the values as a line broken at missing values (NaN), which
 * are gaps; isolated valid points are drawn as dots.
 */
#include "nb-plot-view.h"
#include "nb-draw.h"
#include "nb-colorbar.h"

#include <math.h>
#include <pango/pangocairo.h>

struct _NbPlotView
{
  GtkWidget parent_instance;

  double *x;
  double *y;
  gsize n;
  char *x_label;
  char *y_label;
};

G_DEFINE_FINAL_TYPE (NbPlotView, nb_plot_view, GTK_TYPE_WIDGET)

static double
nice_step (double span, int target)
{
  double raw = span / MAX (target, 1);
  double mag = pow (10, floor (log10 (raw)));
  double f = raw / mag;

  if (f < 1.5)
    return mag;
  if (f < 3.5)
    return 2 * mag;
  if (f < 7.5)
    return 5 * mag;
  return 10 * mag;
}

static void
text_at (cairo_t *cr, const char *text, double x, double y, double ax, double ay,
         gboolean bold)
{
  nb_draw_text (cr, text, x, y, ax, ay, bold ? "Cantarell, Sans Bold 10" : "Cantarell, Sans 9");
}

static gboolean
data_range (const double *v, gsize n, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (gsize i = 0; i < n; i++)
    if (isfinite (v[i]))
      {
        *lo = MIN (*lo, v[i]);
        *hi = MAX (*hi, v[i]);
      }
  if (*lo > *hi)
    return FALSE;
  if (*lo == *hi)
    {
      double pad = *lo == 0 ? 1 : fabs (*lo) * 0.05;
      *lo -= pad;
      *hi += pad;
    }
  return TRUE;
}

void
nb_plot_view_draw (NbPlotView *self, cairo_t *cr, int width, int height)
{
  double x0, x1, y0, y1, left = 72, right = 24, top = 20, bottom = 52;
  double pw = width - left - right, ph = height - top - bottom;
  double step;
  gboolean pen = FALSE;

  if (self->n == 0 || pw < 10 || ph < 10)
    return;
  if (self->x != NULL)
    data_range (self->x, self->n, &x0, &x1);
  else
    {
      x0 = 0;
      x1 = MAX (self->n - 1, 1);
    }
  if (!data_range (self->y, self->n, &y0, &y1))
    {
      y0 = 0;
      y1 = 1;
    }
  /* a little room above and below */
  {
    double pad = (y1 - y0) * 0.05;
    y0 -= pad;
    y1 += pad;
  }

#define PX(v) (left + ((v) - x0) / (x1 - x0) * pw)
#define PY(v) (top + ph - ((v) - y0) / (y1 - y0) * ph)

  cairo_save (cr);
  cairo_set_line_width (cr, 1);

  /* grid and ticks */
  step = nice_step (y1 - y0, 6);
  for (double t = ceil (y0 / step) * step; t <= y1 + step * 1e-9; t += step)
    {
      g_autofree char *label = nb_format_value (fabs (t) < step * 1e-9 ? 0 : t);
      double py = round (PY (t)) + 0.5;

      cairo_set_source_rgba (cr, 0, 0, 0, 0.08);
      cairo_move_to (cr, left, py);
      cairo_line_to (cr, left + pw, py);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 0, 0, 0, 0.7);
      text_at (cr, label, left - 6, py, 1.0, 0.5, FALSE);
    }
  step = nice_step (x1 - x0, 8);
  for (double t = ceil (x0 / step) * step; t <= x1 + step * 1e-9; t += step)
    {
      g_autofree char *label = nb_format_value (fabs (t) < step * 1e-9 ? 0 : t);
      double px = round (PX (t)) + 0.5;

      cairo_set_source_rgba (cr, 0, 0, 0, 0.08);
      cairo_move_to (cr, px, top);
      cairo_line_to (cr, px, top + ph);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 0, 0, 0, 0.7);
      text_at (cr, label, px, top + ph + 4, 0.5, 0.0, FALSE);
    }

  /* axes */
  cairo_set_source_rgba (cr, 0, 0, 0, 0.5);
  cairo_move_to (cr, left + 0.5, top);
  cairo_line_to (cr, left + 0.5, top + ph + 0.5);
  cairo_line_to (cr, left + pw, top + ph + 0.5);
  cairo_stroke (cr);
  if (self->x_label != NULL)
    text_at (cr, self->x_label, left + pw / 2, height - 4, 0.5, 1.0, TRUE);
  if (self->y_label != NULL)
    {
      cairo_save (cr);
      cairo_translate (cr, 14, top + ph / 2);
      cairo_rotate (cr, -G_PI / 2);
      text_at (cr, self->y_label, 0, 0, 0.5, 0.5, TRUE);
      cairo_restore (cr);
    }

  /* the line, with gaps at missing values */
  cairo_rectangle (cr, left, top, pw, ph);
  cairo_clip (cr);
  cairo_set_source_rgb (cr, 0x1c / 255.0, 0x71 / 255.0, 0xd8 / 255.0);
  cairo_set_line_width (cr, 2);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (gsize i = 0; i < self->n; i++)
    {
      double xv = self->x != NULL ? self->x[i] : (double) i;
      double yv = self->y[i];

      if (!isfinite (yv) || !isfinite (xv))
        {
          pen = FALSE;
          continue;
        }
      if (!pen)
        {
          gboolean alone = (i + 1 >= self->n || !isfinite (self->y[i + 1]));

          cairo_move_to (cr, PX (xv), PY (yv));
          if (alone)
            cairo_line_to (cr, PX (xv), PY (yv));
        }
      else
        cairo_line_to (cr, PX (xv), PY (yv));
      pen = TRUE;
    }
  cairo_stroke (cr);
  cairo_restore (cr);
#undef PX
#undef PY
}

static void
draw_widget (GtkWidget *widget, cairo_t *cr, int width, int height)
{
  nb_plot_view_draw (NB_PLOT_VIEW (widget), cr, width, height);
}

static void
nb_plot_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  nb_draw_snapshot_cairo (widget, snapshot, draw_widget);
}

static void
nb_plot_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                      int *minimum, int *natural, int *minimum_baseline,
                      int *natural_baseline)
{
  *minimum = 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 320;
}

static void
nb_plot_view_finalize (GObject *object)
{
  nb_plot_view_clear (NB_PLOT_VIEW (object));
  G_OBJECT_CLASS (nb_plot_view_parent_class)->finalize (object);
}

static void
nb_plot_view_class_init (NbPlotViewClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = nb_plot_view_finalize;
  widget_class->snapshot = nb_plot_view_snapshot;
  widget_class->measure = nb_plot_view_measure;
  gtk_widget_class_set_css_name (widget_class, "nb-plot-view");
}

static void
nb_plot_view_init (NbPlotView *self)
{
}

GtkWidget *
nb_plot_view_new (void)
{
  return g_object_new (NB_TYPE_PLOT_VIEW, NULL);
}

/* Plots y[i] against x[i] (or i when @x is NULL); NaN values are gaps */
void
nb_plot_view_set_data (NbPlotView *self, const double *x, const double *y, gsize n,
                       const char *x_label, const char *y_label)
{
  nb_plot_view_clear (self);
  self->n = n;
  self->y = g_memdup2 (y, n * sizeof (double));
  self->x = x != NULL ? g_memdup2 (x, n * sizeof (double)) : NULL;
  self->x_label = g_strdup (x_label);
  self->y_label = g_strdup (y_label);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
nb_plot_view_clear (NbPlotView *self)
{
  g_clear_pointer (&self->x, g_free);
  g_clear_pointer (&self->y, g_free);
  g_clear_pointer (&self->x_label, g_free);
  g_clear_pointer (&self->y_label, g_free);
  self->n = 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gsize
nb_plot_view_get_n_points (NbPlotView *self)
{
  return self->n;
}
