/* nb-image-view.c: a colour-mapped image with zoom, pan and hover
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The image is an RGB cairo surface whose pixel (i, j) covers the cells
 * [i * step_x, (i + 1) * step_x) x [j * step_y, (j + 1) * step_y) of an
 * extent of extent_w x extent_h cells in display order (u to the right,
 * v downwards): a decimated picture and the full one share the extent,
 * so replacing one by the other keeps zoom and pan. At zoom 1 the extent
 * fits the widget with square cells; scrolling (or pinching) zooms about
 * the pointer, dragging pans. "hover" gives the cell under the pointer.
 *
 * A detail picture may lie over part of the extent (a finer read of the
 * visible window when zoomed in): its pixel (i, j) covers the cells
 * [u0 + i * step, ...) x [v0 + j * step, ...). "view-changed" is emitted
 * whenever zoom or pan change, so that the owner can read such a window.
 */
#include "nb-image-view.h"
#include "nb-draw.h"

#include <math.h>

struct _NbImageView
{
  GtkWidget parent_instance;

  cairo_surface_t *surface;
  double extent_w, extent_h;
  double step_x, step_y;

  cairo_surface_t *detail;
  double detail_u0, detail_v0, detail_step;

  double zoom;
  double cu, cv;               /* the cell at the centre of the widget */
  double drag_cu, drag_cv;
  double pinch_zoom;
};

G_DEFINE_FINAL_TYPE (NbImageView, nb_image_view, GTK_TYPE_WIDGET)

enum { SIGNAL_HOVER, SIGNAL_VIEW_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

#define MAX_ZOOM 256.0
#define INSET 6.0

static double
base_scale (NbImageView *self, int width, int height)
{
  /* a margin of INSET pixels around the picture at zoom 1 */
  if (self->extent_w <= 0 || self->extent_h <= 0 || width <= 2 * INSET || height <= 2 * INSET)
    return 1.0;
  return MIN ((width - 2 * INSET) / self->extent_w, (height - 2 * INSET) / self->extent_h);
}

/* origin (widget coordinates of cell (0, 0)) and cell size */
static void
layout (NbImageView *self, int width, int height, double *ox, double *oy, double *scale)
{
  double s = base_scale (self, width, height) * self->zoom;

  *scale = s;
  *ox = width / 2.0 - self->cu * s;
  *oy = height / 2.0 - self->cv * s;
  /* whole pixels at zoom 1 so that the picture is crisp */
  if (self->zoom == 1.0)
    {
      *ox = floor (*ox);
      *oy = floor (*oy);
    }
}

gboolean
nb_image_view_data_to_widget (NbImageView *self, int width, int height,
                              double u, double v, double *x, double *y)
{
  double ox, oy, s;

  layout (self, width, height, &ox, &oy, &s);
  *x = ox + u * s;
  *y = oy + v * s;
  return self->surface != NULL;
}

gboolean
nb_image_view_widget_to_data (NbImageView *self, int width, int height,
                              double x, double y, double *u, double *v)
{
  double ox, oy, s;

  layout (self, width, height, &ox, &oy, &s);
  *u = (x - ox) / s;
  *v = (y - oy) / s;
  return self->surface != NULL && *u >= 0 && *v >= 0
         && *u < self->extent_w && *v < self->extent_h;
}

static void
clamp_center (NbImageView *self)
{
  self->cu = CLAMP (self->cu, 0, self->extent_w);
  self->cv = CLAMP (self->cv, 0, self->extent_h);
}

void
nb_image_view_draw (NbImageView *self, cairo_t *cr, int width, int height)
{
  double ox, oy, s;
  cairo_pattern_t *pattern;

  if (self->surface == NULL)
    return;

  layout (self, width, height, &ox, &oy, &s);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);

  /* a soft frame around the extent */
  cairo_rectangle (cr, ox - 1, oy - 1, self->extent_w * s + 2, self->extent_h * s + 2);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.15);
  cairo_fill (cr);

  cairo_rectangle (cr, ox, oy, self->extent_w * s, self->extent_h * s);
  cairo_clip (cr);
  cairo_translate (cr, ox, oy);
  cairo_scale (cr, s * self->step_x, s * self->step_y);
  cairo_set_source_surface (cr, self->surface, 0, 0);
  pattern = cairo_get_source (cr);
  cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
  cairo_pattern_set_extend (pattern, CAIRO_EXTEND_NONE);
  cairo_paint (cr);
  cairo_restore (cr);

  if (self->detail != NULL)
    {
      cairo_save (cr);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_clip (cr);
      cairo_rectangle (cr, ox, oy, self->extent_w * s, self->extent_h * s);
      cairo_clip (cr);
      cairo_translate (cr, ox + self->detail_u0 * s, oy + self->detail_v0 * s);
      cairo_scale (cr, s * self->detail_step, s * self->detail_step);
      cairo_set_source_surface (cr, self->detail, 0, 0);
      pattern = cairo_get_source (cr);
      cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
      cairo_pattern_set_extend (pattern, CAIRO_EXTEND_NONE);
      cairo_paint (cr);
      cairo_restore (cr);
    }
}

static void
view_changed (NbImageView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
}

static void
draw_widget (GtkWidget *widget, cairo_t *cr, int width, int height)
{
  nb_image_view_draw (NB_IMAGE_VIEW (widget), cr, width, height);
}

static void
nb_image_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  if (NB_IMAGE_VIEW (widget)->surface != NULL)
    nb_draw_snapshot_cairo (widget, snapshot, draw_widget);
}

/* zoom to @zoom keeping the cell under widget point (x, y) there */
static void
zoom_about (NbImageView *self, double zoom, double x, double y)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double u, v, s;

  zoom = CLAMP (zoom, 1.0, MAX_ZOOM);
  nb_image_view_widget_to_data (self, width, height, x, y, &u, &v);
  self->zoom = zoom;
  s = base_scale (self, width, height) * zoom;
  /* x = width / 2 - cu * s + u * s */
  self->cu = u - (x - width / 2.0) / s;
  self->cv = v - (y - height / 2.0) / s;
  if (zoom == 1.0)
    {
      self->cu = self->extent_w / 2;
      self->cv = self->extent_h / 2;
    }
  clamp_center (self);
  view_changed (self);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, gpointer data)
{
  NbImageView *self = data;
  double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
  double y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));

  if (self->surface == NULL)
    return FALSE;
  if (event != NULL)
    {
      double ex, ey;
      graphene_point_t p;

      if (gdk_event_get_position (event, &ex, &ey)
          && gtk_widget_compute_point (GTK_WIDGET (gtk_widget_get_native (GTK_WIDGET (self))),
                                       GTK_WIDGET (self), &GRAPHENE_POINT_INIT (ex, ey), &p))
        {
          x = p.x;
          y = p.y;
        }
    }
  zoom_about (self, self->zoom * exp (-dy * 0.15), x, y);
  return TRUE;
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, gpointer data)
{
  NbImageView *self = data;
  self->pinch_zoom = self->zoom;
}

static void
on_pinch_scale (GtkGestureZoom *gesture, double scale, gpointer data)
{
  NbImageView *self = data;
  double x, y;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    {
      x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  zoom_about (self, self->pinch_zoom * scale, x, y);
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, gpointer data)
{
  NbImageView *self = data;
  self->drag_cu = self->cu;
  self->drag_cv = self->cv;
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, gpointer data)
{
  NbImageView *self = data;
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double s = base_scale (self, width, height) * self->zoom;

  if (self->surface == NULL)
    return;
  self->cu = self->drag_cu - dx / s;
  self->cv = self->drag_cv - dy / s;
  clamp_center (self);
  view_changed (self);
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, gpointer data)
{
  NbImageView *self = data;
  double u, v;
  gboolean inside = nb_image_view_widget_to_data (self, gtk_widget_get_width (GTK_WIDGET (self)),
                                                  gtk_widget_get_height (GTK_WIDGET (self)),
                                                  x, y, &u, &v);

  g_signal_emit (self, signals[SIGNAL_HOVER], 0, u, v, inside);
}

static void
on_leave (GtkEventControllerMotion *controller, gpointer data)
{
  g_signal_emit (data, signals[SIGNAL_HOVER], 0, -1.0, -1.0, FALSE);
}

static void
nb_image_view_finalize (GObject *object)
{
  NbImageView *self = NB_IMAGE_VIEW (object);

  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->detail, cairo_surface_destroy);
  G_OBJECT_CLASS (nb_image_view_parent_class)->finalize (object);
}

static void
nb_image_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                       int *minimum, int *natural, int *minimum_baseline,
                       int *natural_baseline)
{
  *minimum = 64;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 360;
}

static void
nb_image_view_class_init (NbImageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = nb_image_view_finalize;
  widget_class->snapshot = nb_image_view_snapshot;
  widget_class->measure = nb_image_view_measure;

  /* hover (u, v, inside): the cell under the pointer in display order */
  signals[SIGNAL_HOVER] = g_signal_new ("hover", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                        G_TYPE_BOOLEAN);
  /* view-changed: zoom or pan changed */
  signals[SIGNAL_VIEW_CHANGED] = g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 0);
  gtk_widget_class_set_css_name (widget_class, "nb-image-view");
}

static void
nb_image_view_init (NbImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->zoom = 1.0;
  self->step_x = self->step_y = 1.0;
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_pinch_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

GtkWidget *
nb_image_view_new (void)
{
  return g_object_new (NB_TYPE_IMAGE_VIEW, NULL);
}

/* Shows @surface (an RGB24 image, referenced) over the extent; keeps zoom
 * and pan when the extent is the same as before */
void
nb_image_view_set_image (NbImageView *self, cairo_surface_t *surface,
                         double extent_w, double extent_h, double step_x, double step_y)
{
  gboolean same = self->surface != NULL && extent_w == self->extent_w
                  && extent_h == self->extent_h;

  g_clear_pointer (&self->surface, cairo_surface_destroy);
  self->surface = surface != NULL ? cairo_surface_reference (surface) : NULL;
  self->extent_w = extent_w;
  self->extent_h = extent_h;
  self->step_x = step_x > 0 ? step_x : 1;
  self->step_y = step_y > 0 ? step_y : 1;
  if (!same)
    nb_image_view_reset_zoom (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
nb_image_view_clear (NbImageView *self)
{
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->detail, cairo_surface_destroy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
nb_image_view_has_image (NbImageView *self)
{
  return self->surface != NULL;
}

void
nb_image_view_reset_zoom (NbImageView *self)
{
  self->zoom = 1.0;
  self->cu = self->extent_w / 2;
  self->cv = self->extent_h / 2;
  view_changed (self);
}

void
nb_image_view_set_zoom (NbImageView *self, double zoom, double center_u, double center_v)
{
  self->zoom = CLAMP (zoom, 1.0, MAX_ZOOM);
  self->cu = center_u;
  self->cv = center_v;
  clamp_center (self);
  view_changed (self);
}

double
nb_image_view_get_zoom (NbImageView *self)
{
  return self->zoom;
}

/* Shows @surface (referenced; %NULL removes it) over the cells from
 * (u0, v0), one pixel per @step x @step cells */
void
nb_image_view_set_detail (NbImageView *self, cairo_surface_t *surface,
                          double u0, double v0, double step)
{
  g_clear_pointer (&self->detail, cairo_surface_destroy);
  self->detail = surface != NULL ? cairo_surface_reference (surface) : NULL;
  self->detail_u0 = u0;
  self->detail_v0 = v0;
  self->detail_step = step > 0 ? step : 1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
nb_image_view_has_detail (NbImageView *self)
{
  return self->detail != NULL;
}

/* The visible part of the extent, in cells (clamped to the extent) */
gboolean
nb_image_view_get_visible (NbImageView *self, double *u0, double *v0, double *u1, double *v1)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double ox, oy, s;

  if (width <= 0 || height <= 0 || self->extent_w <= 0 || self->extent_h <= 0)
    return FALSE;
  layout (self, width, height, &ox, &oy, &s);
  *u0 = CLAMP (-ox / s, 0, self->extent_w);
  *v0 = CLAMP (-oy / s, 0, self->extent_h);
  *u1 = CLAMP ((width - ox) / s, 0, self->extent_w);
  *v1 = CLAMP ((height - oy) / s, 0, self->extent_h);
  return *u1 > *u0 && *v1 > *v0;
}
