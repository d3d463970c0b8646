/* nb-data-view.c: the data of a variable: image, plot, table, chunk map
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pages: "image" (a colour-mapped 2-D slice with its colour bar, zoom,
 * pan and the value under the pointer), "plot" (1-D values as a line;
 * for more dimensions the profile along the x axis at the current y
 * index), "table" (the values of the current slice, or of the whole
 * variable below 1-D), "chunks" (the chunks the slice crosses).
 *
 * Orientation: the image is drawn with its y coordinate increasing
 * upwards, as ncview and Panoply do: row 0 at the bottom, unless the
 * y axis has a coordinate variable whose values decrease (a latitude
 * running from north to south), which puts row 0 at the top.
 *
 * Reads: every change (variable, axes, index, page) bumps a generation
 * number, cancels the GCancellable of the reads in flight and starts new
 * ones in worker threads (nb-slice-loader.c); a result whose generation
 * is not the current one is dropped, so a stale picture is never shown.
 * An image is first read decimated, with a stride that makes it about
 * the widget's size in pixels (only the chunks holding those points are
 * read), shown, then read at full resolution and replaced; "loaded" is
 * emitted when the full picture (or the page's content) is shown.
 *
 * Zoomed in: the whole slice is read at full resolution only when it
 * has at most full_limit values; otherwise (and whenever the picture
 * shown is coarser than the screen) the visible window is read with the
 * stride that makes it about one value per screen pixel, shown over the
 * picture, and read again (the previous read cancelled) as the user pans
 * or zooms; its results are generation-checked like the others.
 */
#include "nb-data-view.h"
#include "nb-colormap.h"
#include "nb-colorbar.h"
#include "nb-image-view.h"
#include "nb-plot-view.h"
#include "nb-table-view.h"
#include "nb-chunk-map.h"
#include "nb-slice-loader.h"

#include <math.h>
#include <string.h>

#define TABLE_MAX_VALUES (1u << 20)
#define PLOT_MAX_POINTS (1u << 16)
#define FULL_MAX_VALUES (1u << 25)
#define MAX_CHUNK_CELLS (1u << 16)
#define PLAY_INTERVAL_MS 200

struct _NbDataView
{
  GtkWidget parent_instance;

  /* widgets */
  GtkWidget *box;
  GtkWidget *toolbar;
  GtkWidget *switcher;
  GtkWidget *axes_box;
  GtkWidget *y_drop;
  GtkWidget *x_drop;
  GtkWidget *cmap_drop;
  GtkWidget *range_button;
  GtkWidget *auto_check;
  GtkWidget *min_spin;
  GtkWidget *max_spin;
  GtkWidget *stack;
  GtkWidget *image_view;
  GtkWidget *colorbar;
  GtkWidget *spinner;
  GtkWidget *readout;
  GtkWidget *plot_view;
  GtkWidget *table_view;
  GtkWidget *chunk_map;
  GtkWidget *sliders;
  GtkWidget *status;
  GtkWidget *placeholder;
  GPtrArray *slider_rows;       /* per dimension: the row's adjustment or NULL */
  GPtrArray *play_buttons;      /* per dimension: its play toggle or NULL */
  GPtrArray *dim_pool;          /* DimRow: the slider rows, made once */
  GtkStringList *dim_names;     /* the axis drop-downs' shared list */

  /* state */
  NczVariable *variable;
  guint n_dims;
  guint64 *shape;
  guint64 *index;
  guint y_dim, x_dim;
  char *page;
  char *colormap;
  gboolean auto_range;
  double range_min, range_max;
  gboolean loading;
  gboolean updating_controls;
  gboolean flip_y;
  gboolean flip_known;

  /* reads */
  guint generation;
  GCancellable *cancellable;
  guint reload_idle;

  /* the slice shown */
  NbSlice *slice;
  guint64 slice_h, slice_w;     /* full-resolution extent */
  guint64 step;                 /* stride of the slice shown */
  guint64 pic_h, pic_w;         /* its size */
  gboolean slice_full;
  gboolean y_before_x;

  /* the zoomed-in window */
  NbSlice *detail;
  guint64 detail_row0, detail_col0, detail_rows, detail_cols, detail_step;
  GCancellable *detail_cancellable;
  guint detail_gen;
  guint detail_timeout;
  guint64 full_limit;
  guint64 n_reads, n_read_values;

  /* animation */
  gboolean playing;
  guint play_dim;
  guint play_source;
};

G_DEFINE_FINAL_TYPE (NbDataView, nb_data_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_VARIABLE,
  PROP_PAGE,
  PROP_COLORMAP,
  PROP_LOADING,
  PROP_RANGE_MIN,
  PROP_RANGE_MAX,
  PROP_AUTO_RANGE,
  PROP_PLAYING,
  N_PROPS
};
static GParamSpec *props[N_PROPS];

enum { SIGNAL_LOADED, SIGNAL_LOAD_FAILED, SIGNAL_PICTURE_UPDATED, SIGNAL_DETAIL_SHOWN, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char * const page_names[] = { "image", "plot", "table", "chunks", NULL };

static void schedule_reload (NbDataView *self);
static void rebuild_controls (NbDataView *self);
static void render_picture (NbDataView *self);

/* ------------------------------------------------------------------ */

static void
set_loading (NbDataView *self, gboolean loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  /* the spinner keeps its place (it draws nothing when still): no
   * relayout of the toolbar when loading starts or stops */
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), loading);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOADING]);
}

static void
set_status (NbDataView *self, const char *text)
{
  gtk_label_set_text (GTK_LABEL (self->status), text != NULL ? text : "");
}

static const char *
dim_name (NbDataView *self, guint d)
{
  NczDimension *dim = ncz_variable_get_dimension (self->variable, d);
  return dim != NULL ? ncz_dimension_get_name (dim) : "?";
}

static char *
variable_units (NczVariable *variable)
{
  NczAttribute *attr = ncz_variable_get_attribute (variable, "units");

  if (attr == NULL || ncz_attribute_get_value_type (attr) != NCZ_DATA_TYPE_CHAR)
    return NULL;
  return ncz_attribute_dup_text (attr);
}

static void
clear_detail (NbDataView *self)
{
  self->detail_gen++;
  if (self->detail_cancellable != NULL)
    {
      g_cancellable_cancel (self->detail_cancellable);
      g_clear_object (&self->detail_cancellable);
    }
  g_clear_handle_id (&self->detail_timeout, g_source_remove);
  self->detail_rows = self->detail_cols = 0;
  if (self->detail != NULL)
    {
      g_clear_pointer (&self->detail, nb_slice_free);
      if (self->image_view != NULL)
        nb_image_view_set_detail (NB_IMAGE_VIEW (self->image_view), NULL, 0, 0, 1);
    }
}

static void
cancel_reads (NbDataView *self)
{
  clear_detail (self);
  self->generation++;
  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
  g_clear_handle_id (&self->reload_idle, g_source_remove);
}

static void
fail (NbDataView *self, const GError *error)
{
  set_loading (self, FALSE);
  set_status (self, error->message);
  g_signal_emit (self, signals[SIGNAL_LOAD_FAILED], 0, error);
}

static void
emit_loaded (NbDataView *self)
{
  set_loading (self, FALSE);
  g_signal_emit (self, signals[SIGNAL_LOADED], 0);
}

static gboolean
is_image_page (NbDataView *self)
{
  return g_strcmp0 (self->page, "image") == 0;
}

/* The page to show in the stack: the placeholder when the page cannot
 * show this variable */
static gboolean is_image_page (NbDataView *self);

static void
show_page (NbDataView *self, const char *message)
{
  /* colour map and range belong to the image */
  gtk_widget_set_visible (self->cmap_drop, is_image_page (self));
  gtk_widget_set_visible (self->range_button, is_image_page (self));

  if (message != NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->placeholder), message);
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
    }
  else
    gtk_stack_set_visible_child_name (GTK_STACK (self->stack), self->page);
}

/* The hyperslab of the current 2-D slice: full along the axes, one index
 * along the others */
static void
slice_geometry (NbDataView *self, guint64 *start, guint64 *count, gint64 *stride,
                guint64 step)
{
  for (guint d = 0; d < self->n_dims; d++)
    {
      start[d] = self->index[d];
      count[d] = 1;
      stride[d] = 1;
    }
  start[self->y_dim] = 0;
  start[self->x_dim] = 0;
  count[self->y_dim] = (self->shape[self->y_dim] + step - 1) / step;
  count[self->x_dim] = (self->shape[self->x_dim] + step - 1) / step;
  stride[self->y_dim] = step;
  stride[self->x_dim] = step;
}

/* ------------------------------------------------------------------ */
/* image */

typedef struct {
  NbDataView *self;             /* strong */
  guint generation;
  guint64 step;
  gboolean full;
  guint64 full_step;
  char *colormap;               /* what the worker's picture was made with */
  gboolean auto_range;
  double lo, hi;
} ImageJob;

static void start_image_read (NbDataView *self, guint64 step, gboolean full, guint64 full_step);
static void schedule_detail (NbDataView *self, guint delay_ms);
static void show_detail (NbDataView *self, cairo_surface_t *surface);

static void
update_range_from_slice (NbDataView *self)
{
  double lo, hi;

  if (!self->auto_range || self->slice == NULL)
    return;
  nb_slice_auto_range (self->slice, &lo, &hi);
  if (lo == self->range_min && hi == self->range_max)
    return;
  self->range_min = lo;
  self->range_max = hi;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_MIN]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_MAX]);
  self->updating_controls = TRUE;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->min_spin), lo);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->max_spin), hi);
  self->updating_controls = FALSE;
}

static void
show_surface (NbDataView *self, cairo_surface_t *surface)
{
  g_autofree char *units = NULL;

  nb_image_view_set_image (NB_IMAGE_VIEW (self->image_view), surface,
                           (double) self->slice_w, (double) self->slice_h,
                           (double) self->step, (double) self->step);
  units = variable_units (self->variable);
  nb_colorbar_set (NB_COLORBAR (self->colorbar), self->colormap, self->range_min,
                   self->range_max, units);
}

static void
show_detail (NbDataView *self, cairo_surface_t *surface)
{
  double v0 = self->flip_y
    ? (double) self->slice_h - (double) (self->detail_row0 + self->detail_rows * self->detail_step)
    : (double) self->detail_row0;

  nb_image_view_set_detail (NB_IMAGE_VIEW (self->image_view), surface,
                            (double) self->detail_col0, v0, (double) self->detail_step);
}

/* Colour-maps the slice shown again (another colour map or range) */
static void
render_picture (NbDataView *self)
{
  guint8 table[256][3], missing[3];
  cairo_surface_t *surface;

  if (self->slice == NULL || self->pic_h == 0 || self->pic_w == 0)
    {
      nb_image_view_clear (NB_IMAGE_VIEW (self->image_view));
      return;
    }
  nb_colormap_fill_table (self->colormap, table);
  nb_colormap_missing_rgb (missing);
  surface = nb_render_rgb (self->slice->values, self->pic_h, self->pic_w, self->y_before_x,
                           self->flip_y, self->range_min, self->range_max, table, missing);
  show_surface (self, surface);
  cairo_surface_destroy (surface);
  if (self->detail != NULL)
    {
      surface = nb_render_rgb (self->detail->values, self->detail_rows, self->detail_cols,
                               self->y_before_x, self->flip_y, self->range_min, self->range_max,
                               table, missing);
      show_detail (self, surface);
      cairo_surface_destroy (surface);
    }
}

static void
image_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  ImageJob *job = data;
  NbDataView *self = job->self;
  g_autoptr(GError) error = NULL;
  NbSlice *slice = nb_slice_loader_read_finish (result, &error);

  if (job->generation != self->generation)
    {
      /* stale: a newer selection replaced this read */
      nb_slice_free (slice);
      goto out;
    }
  if (slice == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fail (self, error);
      goto out;
    }

  nb_slice_free (self->slice);
  self->slice = slice;
  self->step = job->step;
  self->pic_h = (self->slice_h + job->step - 1) / job->step;
  self->pic_w = (self->slice_w + job->step - 1) / job->step;
  self->slice_full = job->full;

  /* orientation from the y coordinate, once per variable and axes */
  if (!self->flip_known)
    {
      self->flip_y = slice->flip_y;
      self->flip_known = TRUE;
    }
  update_range_from_slice (self);
  /* the worker's picture, unless the colours changed since the request */
  if (slice->surface != NULL && slice->flip_y == self->flip_y
      && g_strcmp0 (job->colormap, self->colormap) == 0
      && slice->lo == self->range_min && slice->hi == self->range_max)
    show_surface (self, slice->surface);
  else
    render_picture (self);
  g_signal_emit (self, signals[SIGNAL_PICTURE_UPDATED], 0, job->full);

  if (job->full)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " \xc3\x97 %" G_GUINT64_FORMAT
                                               "%s, read in %.0f ms",
                                               self->slice_h, self->slice_w,
                                               job->step > 1 ? " (decimated)" : "",
                                               slice->elapsed_us / 1000.0);
      set_status (self, text);
      emit_loaded (self);
      schedule_detail (self, 0);
    }
  else
    {
      g_autofree char *text = g_strdup_printf ("Preview 1:%" G_GUINT64_FORMAT ", loading full resolution\xe2\x80\xa6",
                                               job->step);
      set_status (self, text);
      start_image_read (self, job->full_step, TRUE, job->full_step);
    }

out:
  g_object_unref (job->self);
  g_free (job->colormap);
  g_free (job);
}

static void
start_image_read (NbDataView *self, guint64 step, gboolean full, guint64 full_step)
{
  guint64 *start = g_newa (guint64, self->n_dims);
  guint64 *count = g_newa (guint64, self->n_dims);
  gint64 *stride = g_newa (gint64, self->n_dims);
  NbSliceRequest *request;
  ImageJob *job;

  slice_geometry (self, start, count, stride, step);
  request = nb_slice_request_new (self->variable, start, count, stride);
  nb_slice_request_set_coordinate (request, 0, self->y_dim,
                                   nb_find_coordinate_variable (self->variable, self->y_dim));
  nb_slice_request_set_coordinate (request, 1, self->x_dim,
                                   nb_find_coordinate_variable (self->variable, self->x_dim));
  job = g_new0 (ImageJob, 1);
  job->self = g_object_ref (self);
  job->generation = self->generation;
  job->step = step;
  job->full = full;
  job->full_step = full_step;
  job->colormap = g_strdup (self->colormap);

  request->render = TRUE;
  request->y_before_x = self->y_dim < self->x_dim;
  request->height = count[self->y_dim];
  request->width = count[self->x_dim];
  request->flip_known = self->flip_known;
  request->flip_y = self->flip_y;
  request->auto_range = self->auto_range;
  request->lo = self->range_min;
  request->hi = self->range_max;
  nb_colormap_fill_table (self->colormap, request->table);
  nb_colormap_missing_rgb (request->missing_rgb);
  self->n_reads++;
  self->n_read_values += count[self->y_dim] * count[self->x_dim];
  nb_slice_loader_read_async (request, self->cancellable, image_read_done, job);
}

/* ------------------------------------------------------------------ */
/* the zoomed-in window */

typedef struct {
  NbDataView *self;             /* strong */
  guint generation, detail_gen;
  guint64 row0, col0, rows, cols, step;
  char *colormap;
  double lo, hi;
} DetailJob;

static void
detail_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  DetailJob *job = data;
  NbDataView *self = job->self;
  g_autoptr(GError) error = NULL;
  NbSlice *slice = nb_slice_loader_read_finish (result, &error);

  if (job->generation != self->generation || job->detail_gen != self->detail_gen)
    {
      nb_slice_free (slice);
      goto out;
    }
  if (slice == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_status (self, error->message);
      self->detail_rows = self->detail_cols = 0;
      goto out;
    }
  g_clear_object (&self->detail_cancellable);
  nb_slice_free (self->detail);
  self->detail = slice;
  if (slice->surface != NULL && g_strcmp0 (job->colormap, self->colormap) == 0
      && job->lo == self->range_min && job->hi == self->range_max)
    show_detail (self, slice->surface);
  else
    render_picture (self);
  {
    g_autofree char *text = g_strdup_printf ("Zoomed in: %" G_GUINT64_FORMAT " \xc3\x97 %" G_GUINT64_FORMAT
                                             " values at 1:%" G_GUINT64_FORMAT ", read in %.0f ms",
                                             job->rows, job->cols, job->step, slice->elapsed_us / 1000.0);
    set_status (self, text);
  }
  g_signal_emit (self, signals[SIGNAL_DETAIL_SHOWN], 0);
out:
  g_object_unref (job->self);
  g_free (job->colormap);
  g_free (job);
}

/* Reads the visible window when the picture shown is coarser than the
 * screen there */
static gboolean
update_detail (gpointer data)
{
  NbDataView *self = data;
  double u0, v0, u1, v1, r_lo, r_hi, per_px;
  int width = gtk_widget_get_width (self->image_view);
  int height = gtk_widget_get_height (self->image_view);
  guint64 st, row0, row1, col0, col1, rows, cols;
  guint64 *start, *count;
  gint64 *stride;
  NbSliceRequest *request;
  DetailJob *job;

  self->detail_timeout = 0;
  if (self->slice == NULL || !is_image_page (self) || self->n_dims < 2 || width <= 0 || height <= 0
      || nb_image_view_get_zoom (NB_IMAGE_VIEW (self->image_view)) <= 1.0
      || !nb_image_view_get_visible (NB_IMAGE_VIEW (self->image_view), &u0, &v0, &u1, &v1))
    {
      clear_detail (self);
      return G_SOURCE_REMOVE;
    }
  per_px = MAX ((u1 - u0) / width, (v1 - v0) / height);
  st = per_px < 1 ? 1 : (guint64) floor (per_px);
  if (st >= self->step)
    {
      /* the picture shown is as fine as the screen there */
      clear_detail (self);
      return G_SOURCE_REMOVE;
    }
  r_lo = self->flip_y ? (double) self->slice_h - v1 : v0;
  r_hi = self->flip_y ? (double) self->slice_h - v0 : v1;
  row0 = (guint64) MAX (floor (r_lo), 0) / st * st;
  row1 = MIN ((guint64) ceil (r_hi), self->slice_h);
  col0 = (guint64) floor (u0) / st * st;
  col1 = MIN ((guint64) ceil (u1), self->slice_w);
  if (row1 <= row0 || col1 <= col0)
    return G_SOURCE_REMOVE;
  rows = (row1 - row0 + st - 1) / st;
  cols = (col1 - col0 + st - 1) / st;
  if (rows == self->detail_rows && cols == self->detail_cols && st == self->detail_step
      && row0 == self->detail_row0 && col0 == self->detail_col0)
    return G_SOURCE_REMOVE;     /* shown or being read */

  /* a new window: the read of the last one is dropped */
  self->detail_gen++;
  if (self->detail_cancellable != NULL)
    g_cancellable_cancel (self->detail_cancellable);
  g_clear_object (&self->detail_cancellable);
  self->detail_cancellable = g_cancellable_new ();
  self->detail_row0 = row0;
  self->detail_col0 = col0;
  self->detail_rows = rows;
  self->detail_cols = cols;
  self->detail_step = st;
  g_clear_pointer (&self->detail, nb_slice_free);
  nb_image_view_set_detail (NB_IMAGE_VIEW (self->image_view), NULL, 0, 0, 1);

  start = g_newa (guint64, self->n_dims);
  count = g_newa (guint64, self->n_dims);
  stride = g_newa (gint64, self->n_dims);
  slice_geometry (self, start, count, stride, st);
  start[self->y_dim] = row0;
  start[self->x_dim] = col0;
  count[self->y_dim] = rows;
  count[self->x_dim] = cols;
  request = nb_slice_request_new (self->variable, start, count, stride);
  request->want_percentiles = FALSE;
  request->render = TRUE;
  request->y_before_x = self->y_before_x;
  request->height = rows;
  request->width = cols;
  request->flip_known = TRUE;
  request->flip_y = self->flip_y;
  request->auto_range = FALSE;
  request->lo = self->range_min;
  request->hi = self->range_max;
  nb_colormap_fill_table (self->colormap, request->table);
  nb_colormap_missing_rgb (request->missing_rgb);

  job = g_new0 (DetailJob, 1);
  job->self = g_object_ref (self);
  job->generation = self->generation;
  job->detail_gen = self->detail_gen;
  job->row0 = row0;
  job->col0 = col0;
  job->rows = rows;
  job->cols = cols;
  job->step = st;
  job->colormap = g_strdup (self->colormap);
  job->lo = self->range_min;
  job->hi = self->range_max;
  self->n_reads++;
  self->n_read_values += rows * cols;
  nb_slice_loader_read_async (request, self->detail_cancellable, detail_read_done, job);
  return G_SOURCE_REMOVE;
}

/* Reads the window after @delay_ms of no further zoom or pan */
static void
schedule_detail (NbDataView *self, guint delay_ms)
{
  g_clear_handle_id (&self->detail_timeout, g_source_remove);
  if (self->slice == NULL || self->loading)
    return;
  if (delay_ms == 0)
    update_detail (self);
  else
    self->detail_timeout = g_timeout_add (delay_ms, update_detail, self);
}

static void
on_view_changed (NbImageView *view, gpointer data)
{
  schedule_detail (NB_DATA_VIEW (data), 80);
}

static void
load_image (NbDataView *self)
{
  int width = gtk_widget_get_width (self->image_view);
  int height = gtk_widget_get_height (self->image_view);
  guint64 step, full_step = 1;

  if (self->n_dims < 2)
    {
      show_page (self, "An image needs a variable of two or more dimensions");
      emit_loaded (self);
      return;
    }
  self->slice_h = self->shape[self->y_dim];
  self->slice_w = self->shape[self->x_dim];
  self->y_before_x = self->y_dim < self->x_dim;
  if (self->slice_h == 0 || self->slice_w == 0)
    {
      show_page (self, "The slice is empty");
      emit_loaded (self);
      return;
    }
  show_page (self, NULL);

  if (width < 16 || height < 16)
    {
      width = 640;
      height = 480;
    }
  /* the decimation that makes the slice about the widget's size */
  step = MAX ((self->slice_w + width - 1) / width, (self->slice_h + height - 1) / height);
  step = MAX (step, 1);
  /* a full picture of at most FULL_MAX_VALUES values */
  while ((self->slice_h / full_step) * (self->slice_w / full_step) > self->full_limit)
    full_step++;
  if (step > full_step)
    start_image_read (self, step, FALSE, full_step);
  else
    start_image_read (self, full_step, TRUE, full_step);
}

/* ------------------------------------------------------------------ */
/* plot and table */

typedef struct {
  NbDataView *self;
  guint generation;
  char *page;
  guint n_dims;
  guint64 *start, *count;
  gint64 *stride;
  gboolean truncated;
  int plot_dim;
} PageJob;

static void
page_job_free (PageJob *job)
{
  g_object_unref (job->self);
  g_free (job->page);
  g_free (job->start);
  g_free (job->count);
  g_free (job->stride);
  g_free (job);
}

static void
page_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  PageJob *job = data;
  NbDataView *self = job->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(NbSlice) slice = nb_slice_loader_read_finish (result, &error);

  if (job->generation != self->generation)
    goto out;
  if (slice == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fail (self, error);
      goto out;
    }

  if (strcmp (job->page, "table") == 0)
    {
      g_autofree char *text = NULL;

      nb_table_view_set_values (NB_TABLE_VIEW (self->table_view), slice->values,
                                slice->n_values, job->n_dims, job->start, job->count,
                                job->stride, job->truncated);
      text = g_strdup_printf ("%" G_GUINT64_FORMAT " values%s", slice->n_values,
                              job->truncated ? " (the first ones of the slice)" : "");
      set_status (self, text);
    }
  else
    {
      g_autofree char *units = variable_units (self->variable);
      g_autofree char *y_label = units != NULL
        ? g_strdup_printf ("%s (%s)", ncz_variable_get_name (self->variable), units)
        : g_strdup (ncz_variable_get_name (self->variable));
      const char *x_label = job->plot_dim >= 0 ? dim_name (self, job->plot_dim) : "index";
      double *x = NULL;

      if (slice->coord[0] != NULL && slice->n_coord[0] == slice->n_values)
        x = slice->coord[0];
      if (x == NULL)
        {
          x = g_newa (double, MAX (slice->n_values, 1));
          for (guint64 i = 0; i < slice->n_values; i++)
            x[i] = job->start[job->plot_dim] + (double) i * job->stride[job->plot_dim];
        }
      nb_plot_view_set_data (NB_PLOT_VIEW (self->plot_view), x, slice->values,
                             slice->n_values, x_label, y_label);
      set_status (self, NULL);
    }
  emit_loaded (self);

out:
  page_job_free (job);
}

static void
load_plot_or_table (NbDataView *self)
{
  PageJob *job;
  NbSliceRequest *request;
  guint n = self->n_dims;
  gboolean table = strcmp (self->page, "table") == 0;

  if (!table && n == 0)
    {
      show_page (self, "A plot needs a variable of one or more dimensions");
      emit_loaded (self);
      return;
    }
  show_page (self, NULL);

  job = g_new0 (PageJob, 1);
  job->self = g_object_ref (self);
  job->generation = self->generation;
  job->page = g_strdup (self->page);
  job->n_dims = n;
  job->start = g_new0 (guint64, MAX (n, 1));
  job->count = g_new0 (guint64, MAX (n, 1));
  job->stride = g_new0 (gint64, MAX (n, 1));
  job->plot_dim = -1;

  if (n == 1)
    {
      guint64 len = self->shape[0];
      guint64 limit = table ? TABLE_MAX_VALUES : PLOT_MAX_POINTS;

      job->stride[0] = 1;
      if (table)
        {
          job->count[0] = MIN (len, limit);
          job->truncated = len > limit;
        }
      else
        {
          job->stride[0] = MAX ((len + limit - 1) / limit, 1);
          job->count[0] = (len + job->stride[0] - 1) / job->stride[0];
        }
      job->plot_dim = 0;
    }
  else if (n >= 2 && table)
    {
      guint64 rows;

      slice_geometry (self, job->start, job->count, job->stride, 1);
      rows = self->shape[self->y_dim];
      while (rows > 1 && rows * self->shape[self->x_dim] > TABLE_MAX_VALUES)
        rows /= 2;
      job->truncated = rows < self->shape[self->y_dim];
      job->count[self->y_dim] = rows;
    }
  else if (n >= 2)
    {
      /* the profile along x at the current y index */
      guint64 len = self->shape[self->x_dim];

      for (guint d = 0; d < n; d++)
        {
          job->start[d] = self->index[d];
          job->count[d] = 1;
          job->stride[d] = 1;
        }
      job->stride[self->x_dim] = MAX ((len + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS, 1);
      job->start[self->x_dim] = 0;
      job->count[self->x_dim] = (len + job->stride[self->x_dim] - 1) / job->stride[self->x_dim];
      job->plot_dim = self->x_dim;
    }

  request = nb_slice_request_new (self->variable, job->start, job->count, job->stride);
  request->want_percentiles = FALSE;
  if (job->plot_dim >= 0 && !table)
    nb_slice_request_set_coordinate (request, 0, job->plot_dim,
                                     nb_find_coordinate_variable (self->variable, job->plot_dim));
  nb_slice_loader_read_async (request, self->cancellable, page_read_done, job);
}

/* ------------------------------------------------------------------ */
/* chunk map */

typedef struct {
  NbDataView *self;
  guint generation;
  guint n_rows, n_cols;
  guint64 chunk_h, chunk_w;
} ChunkJob;

static void
chunks_done (GObject *source, GAsyncResult *result, gpointer data)
{
  ChunkJob *job = data;
  NbDataView *self = job->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) chunks = ncz_variable_query_chunks_finish (NCZ_VARIABLE (source), result, &error);
  g_autofree NbChunkCell *cells = NULL;
  g_autofree char *title = NULL;
  guint n_items;

  if (job->generation != self->generation)
    goto out;
  if (chunks == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fail (self, error);
      goto out;
    }
  cells = g_new0 (NbChunkCell, (gsize) job->n_rows * job->n_cols);
  n_items = g_list_model_get_n_items (chunks);
  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(NczChunkInfo) info = g_list_model_get_item (chunks, i);
      guint nd = 0;
      const guint64 *at = ncz_chunk_info_get_index (info, &nd);
      guint64 r, c;
      NbChunkCell *cell;

      if (nd != self->n_dims || at == NULL)
        continue;
      r = at[self->y_dim];
      c = at[self->x_dim];
      if (r >= job->n_rows || c >= job->n_cols)
        continue;
      cell = &cells[r * job->n_cols + c];
      cell->stored = ncz_chunk_info_get_stored (info);
      cell->ratio = ncz_chunk_info_get_raw_size (info) > 0
        ? (double) ncz_chunk_info_get_stored_size (info) / (double) ncz_chunk_info_get_raw_size (info)
        : 0;
    }
  title = g_strdup_printf ("%u \xc3\x97 %u chunks of %" G_GUINT64_FORMAT " \xc3\x97 %" G_GUINT64_FORMAT
                           " (%s \xc3\x97 %s)", job->n_rows, job->n_cols, job->chunk_h, job->chunk_w,
                           dim_name (self, self->y_dim), dim_name (self, self->x_dim));
  nb_chunk_map_set_grid (NB_CHUNK_MAP (self->chunk_map), job->n_rows, job->n_cols, 0, 0,
                         cells, self->flip_y, title);
  {
    guint n_stored, n_missing;
    g_autofree char *text = NULL;

    nb_chunk_map_get_counts (NB_CHUNK_MAP (self->chunk_map), &n_stored, &n_missing);
    text = g_strdup_printf ("%u chunks stored, %u missing (read as the fill value)", n_stored, n_missing);
    set_status (self, text);
  }
  emit_loaded (self);
out:
  g_object_unref (job->self);
  g_free (job);
}

static void
load_chunks (NbDataView *self)
{
  guint n = self->n_dims;
  guint64 *start, *count;
  gint64 *stride;
  guint n_cs = 0;
  const guint64 *cs = ncz_variable_get_chunk_sizes (self->variable, &n_cs);
  ChunkJob *job;

  if (n < 2 || cs == NULL || n_cs != n)
    {
      show_page (self, n < 2 ? "The chunk map needs a variable of two or more dimensions"
                             : "The variable is not chunked");
      emit_loaded (self);
      return;
    }
  job = g_new0 (ChunkJob, 1);
  job->chunk_h = MAX (cs[self->y_dim], 1);
  job->chunk_w = MAX (cs[self->x_dim], 1);
  job->n_rows = (self->shape[self->y_dim] + job->chunk_h - 1) / job->chunk_h;
  job->n_cols = (self->shape[self->x_dim] + job->chunk_w - 1) / job->chunk_w;
  if ((guint64) job->n_rows * job->n_cols > MAX_CHUNK_CELLS || job->n_rows == 0 || job->n_cols == 0)
    {
      g_autofree char *text = g_strdup_printf ("The slice crosses %u \xc3\x97 %u chunks, too many to map",
                                               job->n_rows, job->n_cols);
      g_free (job);
      show_page (self, text);
      emit_loaded (self);
      return;
    }
  show_page (self, NULL);
  start = g_newa (guint64, n);
  count = g_newa (guint64, n);
  stride = g_newa (gint64, n);
  /* the box of the chunk grid the slice crosses */
  slice_geometry (self, start, count, stride, 1);
  for (guint d = 0; d < n; d++)
    {
      guint64 c = MAX (cs[d], 1), first = start[d] / c;
      guint64 last = (start[d] + MAX (count[d], 1) - 1) / c;

      start[d] = first;
      count[d] = last - first + 1;
    }
  job->self = g_object_ref (self);
  job->generation = self->generation;
  ncz_variable_query_chunks_async (self->variable, start, n, count, n, self->cancellable,
                                   chunks_done, job);
}

/* ------------------------------------------------------------------ */

static gboolean
reload_now (gpointer data)
{
  NbDataView *self = data;

  self->reload_idle = 0;
  if (self->variable == NULL)
    return G_SOURCE_REMOVE;
  if (is_image_page (self))
    load_image (self);
  else if (strcmp (self->page, "chunks") == 0)
    load_chunks (self);
  else
    load_plot_or_table (self);
  return G_SOURCE_REMOVE;
}

/* Cancels what is being read and reads the current selection */
static void
schedule_reload (NbDataView *self)
{
  cancel_reads (self);
  if (self->variable == NULL)
    {
      set_loading (self, FALSE);
      return;
    }
  self->cancellable = g_cancellable_new ();
  set_loading (self, TRUE);
  reload_now (self);
}

/* ------------------------------------------------------------------ */
/* hover readout */

static char *
coordinate_text (NbDataView *self, guint dim, guint64 index)
{
  double *c;
  guint64 n_coord;
  guint w = dim == self->y_dim ? 0 : 1;
  g_autofree char *value = NULL;

  if (self->slice == NULL || self->slice->coord[w] == NULL)
    return g_strdup_printf ("%s %" G_GUINT64_FORMAT, dim_name (self, dim), index);
  c = self->slice->coord[w];
  n_coord = self->slice->n_coord[w];
  if (index / self->step >= n_coord)
    return g_strdup_printf ("%s %" G_GUINT64_FORMAT, dim_name (self, dim), index);
  value = nb_format_value (c[index / self->step]);
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT " (%s)", dim_name (self, dim), index, value);
}

/* The readout of the cell (y_index, x_index) of the slice shown */
char *
nb_data_view_describe_point (NbDataView *self, guint64 y_index, guint64 x_index)
{
  g_autofree char *ytext = NULL;
  g_autofree char *xtext = NULL;
  g_autofree char *value = NULL;
  guint64 r, c;
  double v;

  if (self->slice == NULL || y_index >= self->slice_h || x_index >= self->slice_w)
    return NULL;
  if (self->detail != NULL && y_index >= self->detail_row0 && x_index >= self->detail_col0
      && (y_index - self->detail_row0) / self->detail_step < self->detail_rows
      && (x_index - self->detail_col0) / self->detail_step < self->detail_cols)
    {
      /* the finer values of the zoomed-in window */
      r = (y_index - self->detail_row0) / self->detail_step;
      c = (x_index - self->detail_col0) / self->detail_step;
      v = self->detail->values[self->y_before_x ? r * self->detail_cols + c : c * self->detail_rows + r];
    }
  else
    {
      r = y_index / self->step;
      c = x_index / self->step;
      v = self->slice->values[self->y_before_x ? r * self->pic_w + c : c * self->pic_h + r];
    }
  value = isnan (v) ? g_strdup ("missing") : nb_format_value (v);
  ytext = coordinate_text (self, self->y_dim, y_index);
  xtext = coordinate_text (self, self->x_dim, x_index);
  return g_strdup_printf ("%s = %s    %s, %s", ncz_variable_get_name (self->variable),
                          value, ytext, xtext);
}

static void
on_hover (NbImageView *view, double u, double v, gboolean inside, gpointer data)
{
  NbDataView *self = data;
  g_autofree char *text = NULL;

  if (inside && self->slice != NULL)
    {
      guint64 col = (guint64) u;
      guint64 row = (guint64) v;

      if (self->flip_y)
        row = self->slice_h - 1 - MIN (row, self->slice_h - 1);
      text = nb_data_view_describe_point (self, row, col);
    }
  gtk_label_set_text (GTK_LABEL (self->readout), text != NULL ? text : "");
}

/* ------------------------------------------------------------------ */
/* controls */

static void
on_page_changed (GtkStack *stack, GParamSpec *pspec, gpointer data)
{
  NbDataView *self = data;
  const char *name = gtk_stack_get_visible_child_name (stack);

  if (self->updating_controls || name == NULL || strcmp (name, "empty") == 0)
    return;
  nb_data_view_set_page (self, name);
}

static void
on_axis_selected (GtkDropDown *drop, GParamSpec *pspec, gpointer data)
{
  NbDataView *self = data;
  guint y = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->y_drop));
  guint x = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->x_drop));

  if (self->updating_controls || y == GTK_INVALID_LIST_POSITION || x == GTK_INVALID_LIST_POSITION)
    return;
  if (x == y)
    {
      /* choosing the other axis' dimension swaps them */
      if (GTK_WIDGET (drop) == self->y_drop)
        x = self->y_dim;
      else
        y = self->x_dim;
    }
  nb_data_view_set_axes (self, y, x);
}

static void
on_colormap_selected (GtkDropDown *drop, GParamSpec *pspec, gpointer data)
{
  NbDataView *self = data;
  guint i = gtk_drop_down_get_selected (drop);

  if (self->updating_controls || i >= g_strv_length ((char **) nb_colormap_list_names ()))
    return;
  nb_data_view_set_colormap (self, nb_colormap_list_names ()[i]);
}

static void
on_range_edited (GtkWidget *widget, gpointer data)
{
  NbDataView *self = data;
  gboolean automatic = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->auto_check));

  if (self->updating_controls)
    return;
  nb_data_view_set_range (self, automatic,
                          gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->min_spin)),
                          gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->max_spin)));
}

static void
on_slider_changed (GtkAdjustment *adjustment, gpointer data)
{
  NbDataView *self = data;
  guint dim = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (adjustment), "nb-dim"));

  if (self->updating_controls)
    return;
  nb_data_view_set_index (self, dim, (guint64) gtk_adjustment_get_value (adjustment));
}

static void
on_play_toggled (GtkToggleButton *button, gpointer data)
{
  NbDataView *self = data;
  guint dim = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "nb-dim"));

  if (self->updating_controls)
    return;
  if (gtk_toggle_button_get_active (button))
    {
      nb_data_view_set_play_dimension (self, dim);
      nb_data_view_set_playing (self, TRUE);
    }
  else if (dim == self->play_dim)
    nb_data_view_set_playing (self, FALSE);
}

static void
sync_play_buttons (NbDataView *self)
{
  self->updating_controls = TRUE;
  for (guint d = 0; d < self->play_buttons->len; d++)
    {
      GtkWidget *b = g_ptr_array_index (self->play_buttons, d);

      if (b == NULL)
        continue;
      gboolean on = self->playing && d == self->play_dim;
      const char *icon = on ? "media-playback-pause-symbolic" : "media-playback-start-symbolic";

      if (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (b)) != on)
        gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (b), on);
      if (g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (b)), icon) != 0)
        gtk_button_set_icon_name (GTK_BUTTON (b), icon);
    }
  self->updating_controls = FALSE;
}

/* One row of the pool of slider rows: row i serves dimension i; rows are
 * made once and shown or hidden, never destroyed while the view lives */
typedef struct {
  GtkWidget *row;
  GtkWidget *label;
  GtkWidget *play;
  GtkAdjustment *adj;
} DimRow;

static DimRow *
dim_row_get (NbDataView *self, guint d)
{
  while (self->dim_pool->len <= d)
    {
      DimRow *r = g_new0 (DimRow, 1);
      guint i = self->dim_pool->len;
      GtkWidget *scale, *spin;

      r->row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      r->label = gtk_label_new ("");
      gtk_label_set_width_chars (GTK_LABEL (r->label), 8);
      gtk_label_set_max_width_chars (GTK_LABEL (r->label), 8);
      gtk_label_set_ellipsize (GTK_LABEL (r->label), PANGO_ELLIPSIZE_END);
      gtk_label_set_xalign (GTK_LABEL (r->label), 0);
      gtk_widget_add_css_class (r->label, "dim-label");
      r->adj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 1, 10, 0));
      g_object_set_data (G_OBJECT (r->adj), "nb-dim", GUINT_TO_POINTER (i));
      g_signal_connect (r->adj, "value-changed", G_CALLBACK (on_slider_changed), self);
      scale = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, r->adj);
      gtk_scale_set_digits (GTK_SCALE (scale), 0);
      gtk_widget_set_hexpand (scale, TRUE);
      spin = gtk_spin_button_new (r->adj, 1, 0);
      gtk_widget_add_css_class (spin, "numeric");
      /* a fixed width: the row's size does not follow the dimension */
      gtk_editable_set_width_chars (GTK_EDITABLE (spin), 7);
      r->play = gtk_toggle_button_new ();
      gtk_button_set_icon_name (GTK_BUTTON (r->play), "media-playback-start-symbolic");
      gtk_widget_set_tooltip_text (r->play, "Play along this dimension");
      gtk_widget_add_css_class (r->play, "flat");
      g_object_set_data (G_OBJECT (r->play), "nb-dim", GUINT_TO_POINTER (i));
      g_signal_connect (r->play, "toggled", G_CALLBACK (on_play_toggled), self);
      gtk_box_append (GTK_BOX (r->row), r->label);
      gtk_box_append (GTK_BOX (r->row), r->play);
      gtk_box_append (GTK_BOX (r->row), scale);
      gtk_box_append (GTK_BOX (r->row), spin);
      gtk_widget_set_visible (r->row, FALSE);
      gtk_box_append (GTK_BOX (self->sliders), r->row);
      g_ptr_array_add (self->dim_pool, r);
    }
  return g_ptr_array_index (self->dim_pool, d);
}

static void
dim_row_free (gpointer data)
{
  DimRow *r = data;

  g_object_unref (r->adj);
  g_free (r);
}

static void
set_text_if_changed (GtkWidget *label, const char *text)
{
  if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) != 0)
    gtk_label_set_text (GTK_LABEL (label), text);
}

/* Axis drop-downs and one slider per other dimension: the drop-downs'
 * shared list is spliced in place and the pool's rows are reconfigured,
 * so selecting a variable creates no widget once the pool is big enough */
static void
rebuild_controls (NbDataView *self)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->dim_names));
  gboolean same = n_old == self->n_dims;
  gboolean any = FALSE;

  self->updating_controls = TRUE;
  g_ptr_array_set_size (self->slider_rows, 0);
  g_ptr_array_set_size (self->play_buttons, 0);

  for (guint d = 0; d < self->n_dims; d++)
    {
      char *item = g_strdup_printf ("%s (%" G_GUINT64_FORMAT ")", dim_name (self, d),
                                    self->shape[d]);
      if (same && g_strcmp0 (item, gtk_string_list_get_string (self->dim_names, d)) != 0)
        same = FALSE;
      g_ptr_array_add (items, item);
    }
  g_ptr_array_add (items, NULL);
  if (!same)
    gtk_string_list_splice (self->dim_names, 0, n_old, (const char * const *) items->pdata);
  gtk_widget_set_visible (self->axes_box, self->n_dims >= 2);
  if (self->n_dims >= 2)
    {
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->y_drop), self->y_dim);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->x_drop), self->x_dim);
    }

  for (guint d = 0; d < MAX (self->n_dims, self->dim_pool->len); d++)
    {
      gboolean shown = d < self->n_dims && self->n_dims >= 2
                       && d != self->y_dim && d != self->x_dim;
      DimRow *r;

      if (!shown)
        {
          if (d < self->dim_pool->len)
            {
              r = g_ptr_array_index (self->dim_pool, d);
              if (gtk_widget_get_visible (r->row))
                gtk_widget_set_visible (r->row, FALSE);
            }
          if (d < self->n_dims)
            {
              g_ptr_array_add (self->slider_rows, NULL);
              g_ptr_array_add (self->play_buttons, NULL);
            }
          continue;
        }
      r = dim_row_get (self, d);
      set_text_if_changed (r->label, dim_name (self, d));
      gtk_widget_set_tooltip_text (r->label, dim_name (self, d));
      gtk_adjustment_configure (r->adj, (double) self->index[d], 0,
                                (double) (MAX (self->shape[d], 1) - 1), 1, 10, 0);
      if (!gtk_widget_get_visible (r->row))
        gtk_widget_set_visible (r->row, TRUE);
      g_ptr_array_add (self->slider_rows, r->adj);
      g_ptr_array_add (self->play_buttons, r->play);
      any = TRUE;
    }
  if (gtk_widget_get_visible (self->sliders) != any)
    gtk_widget_set_visible (self->sliders, any);
  self->updating_controls = FALSE;
  sync_play_buttons (self);
}

/* ------------------------------------------------------------------ */

static gboolean
play_tick (gpointer data)
{
  NbDataView *self = data;
  guint d = self->play_dim;

  if (self->variable == NULL || d >= self->n_dims || self->shape[d] == 0)
    {
      self->play_source = 0;
      self->playing = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PLAYING]);
      sync_play_buttons (self);
      return G_SOURCE_REMOVE;
    }
  nb_data_view_set_index (self, d, (self->index[d] + 1) % self->shape[d]);
  return G_SOURCE_CONTINUE;
}

static void
nb_data_view_dispose (GObject *object)
{
  NbDataView *self = NB_DATA_VIEW (object);

  cancel_reads (self);
  g_clear_handle_id (&self->play_source, g_source_remove);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->variable);
  G_OBJECT_CLASS (nb_data_view_parent_class)->dispose (object);
}

static void
nb_data_view_finalize (GObject *object)
{
  NbDataView *self = NB_DATA_VIEW (object);

  g_free (self->shape);
  g_free (self->index);
  g_free (self->page);
  g_free (self->colormap);
  nb_slice_free (self->slice);
  g_ptr_array_unref (self->slider_rows);
  g_ptr_array_unref (self->play_buttons);
  g_ptr_array_unref (self->dim_pool);
  g_object_unref (self->dim_names);
  G_OBJECT_CLASS (nb_data_view_parent_class)->finalize (object);
}

static void
nb_data_view_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  NbDataView *self = NB_DATA_VIEW (object);

  switch (id)
    {
    case PROP_VARIABLE:
      g_value_set_object (value, self->variable);
      break;
    case PROP_PAGE:
      g_value_set_string (value, self->page);
      break;
    case PROP_COLORMAP:
      g_value_set_string (value, self->colormap);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_RANGE_MIN:
      g_value_set_double (value, self->range_min);
      break;
    case PROP_RANGE_MAX:
      g_value_set_double (value, self->range_max);
      break;
    case PROP_AUTO_RANGE:
      g_value_set_boolean (value, self->auto_range);
      break;
    case PROP_PLAYING:
      g_value_set_boolean (value, self->playing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
nb_data_view_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  NbDataView *self = NB_DATA_VIEW (object);

  switch (id)
    {
    case PROP_VARIABLE:
      nb_data_view_set_variable (self, g_value_get_object (value));
      break;
    case PROP_PAGE:
      nb_data_view_set_page (self, g_value_get_string (value));
      break;
    case PROP_COLORMAP:
      nb_data_view_set_colormap (self, g_value_get_string (value));
      break;
    case PROP_RANGE_MIN:
      nb_data_view_set_range (self, FALSE, g_value_get_double (value), self->range_max);
      break;
    case PROP_RANGE_MAX:
      nb_data_view_set_range (self, FALSE, self->range_min, g_value_get_double (value));
      break;
    case PROP_AUTO_RANGE:
      nb_data_view_set_range (self, g_value_get_boolean (value), self->range_min, self->range_max);
      break;
    case PROP_PLAYING:
      nb_data_view_set_playing (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
nb_data_view_class_init (NbDataViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = nb_data_view_dispose;
  object_class->finalize = nb_data_view_finalize;
  object_class->get_property = nb_data_view_get_property;
  object_class->set_property = nb_data_view_set_property;

  /**
   * NbDataView:variable:
   *
   * The variable shown, or %NULL.
   */
  props[PROP_VARIABLE] = g_param_spec_object ("variable", NULL, NULL, NCZ_TYPE_VARIABLE,
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:page:
   *
   * "image", "plot", "table" or "chunks".
   */
  props[PROP_PAGE] = g_param_spec_string ("page", NULL, NULL, "image",
                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:colormap:
   *
   * "viridis", "grey" or "balance".
   */
  props[PROP_COLORMAP] = g_param_spec_string ("colormap", NULL, NULL, "viridis",
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:loading:
   *
   * Whether reads of the current selection are under way.
   */
  props[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:range-min:
   *
   * The value drawn with the first colour of the map.
   */
  props[PROP_RANGE_MIN] = g_param_spec_double ("range-min", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:range-max:
   *
   * The value drawn with the last colour of the map.
   */
  props[PROP_RANGE_MAX] = g_param_spec_double ("range-max", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 1,
                                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:auto-range:
   *
   * Whether the range is the 2nd to 98th percentile of the slice's
   * valid values.
   */
  props[PROP_AUTO_RANGE] = g_param_spec_boolean ("auto-range", NULL, NULL, TRUE,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NbDataView:playing:
   *
   * Whether the index of the play dimension advances by itself.
   */
  props[PROP_PLAYING] = g_param_spec_boolean ("playing", NULL, NULL, FALSE,
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /**
   * NbDataView::loaded:
   *
   * The full-resolution picture of the current slice (or the current
   * page's content) is shown.
   */
  signals[SIGNAL_LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NbDataView::load-failed:
   * @error: what went wrong
   *
   * Reading the current selection failed.
   */
  signals[SIGNAL_LOAD_FAILED] = g_signal_new ("load-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /**
   * NbDataView::picture-updated:
   * @full: whether the picture is the full-resolution one
   *
   * A picture of the current slice is shown: first the decimated one,
   * then the full one.
   */
  signals[SIGNAL_PICTURE_UPDATED] = g_signal_new ("picture-updated", G_TYPE_FROM_CLASS (klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  /**
   * NbDataView::detail-shown:
   *
   * Zoomed in, the visible window of the slice was read at about the
   * screen's resolution and is shown over the picture.
   */
  signals[SIGNAL_DETAIL_SHOWN] = g_signal_new ("detail-shown", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 0);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "nb-data-view");
}

static GtkWidget *
labeled (const char *text, GtkWidget *widget)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), widget);
  return box;
}

/* The drop-down's button shows the dimension's name (ellipsized), its
 * list the name and length */
static void
compact_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 8);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
compact_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkStringObject *obj = gtk_list_item_get_item (item);
  const char *text = obj != NULL ? gtk_string_object_get_string (obj) : "";
  const char *paren = strstr (text, " (");
  g_autofree char *name = paren != NULL ? g_strndup (text, paren - text) : g_strdup (text);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), name);
}

static void
full_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
full_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkStringObject *obj = gtk_list_item_get_item (item);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)),
                      obj != NULL ? gtk_string_object_get_string (obj) : "");
}

static void
compact_drop_down (GtkWidget *drop)
{
  GtkListItemFactory *button = gtk_signal_list_item_factory_new ();
  GtkListItemFactory *list = gtk_signal_list_item_factory_new ();

  g_signal_connect (button, "setup", G_CALLBACK (compact_setup), NULL);
  g_signal_connect (button, "bind", G_CALLBACK (compact_bind), NULL);
  g_signal_connect (list, "setup", G_CALLBACK (full_setup), NULL);
  g_signal_connect (list, "bind", G_CALLBACK (full_bind), NULL);
  gtk_drop_down_set_factory (GTK_DROP_DOWN (drop), button);
  gtk_drop_down_set_list_factory (GTK_DROP_DOWN (drop), list);
  g_object_unref (button);
  g_object_unref (list);
}

/* Icons for the page switcher (titles become its tooltips) */
static void
set_page_icons (NbDataView *self)
{
  GdkDisplay *display = gdk_display_get_default ();
  const char *plot = "org.ncz.Browser-plot-symbolic";
  const char *icons[][2] = {
    { "image", "image-x-generic-symbolic" },
    { "plot", NULL },
    { "table", "view-list-symbolic" },
    { "chunks", "view-app-grid-symbolic" },
  };

  if (display == NULL || !gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (display), plot))
    plot = "network-cellular-signal-excellent-symbolic";
  icons[1][1] = plot;
  for (guint i = 0; i < G_N_ELEMENTS (icons); i++)
    {
      GtkWidget *child = gtk_stack_get_child_by_name (GTK_STACK (self->stack), icons[i][0]);
      gtk_stack_page_set_icon_name (gtk_stack_get_page (GTK_STACK (self->stack), child), icons[i][1]);
    }
}

static void
nb_data_view_init (NbDataView *self)
{
  GtkWidget *image_page, *overlay, *bottom, *range_box;

  self->page = g_strdup ("image");
  self->colormap = g_strdup ("viridis");
  self->auto_range = TRUE;
  self->range_min = 0;
  self->range_max = 1;
  self->step = 1;
  self->full_limit = FULL_MAX_VALUES;
  self->flip_y = TRUE;
  self->slider_rows = g_ptr_array_new ();
  self->play_buttons = g_ptr_array_new ();
  self->dim_pool = g_ptr_array_new_with_free_func (dim_row_free);
  self->dim_names = gtk_string_list_new (NULL);

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  /* toolbar: about 400 px wide, so that the view fits beside the tree
   * and the details in a 1280-px window; page switcher with icons,
   * compact axis choosers, colour map and range in one popover */
  self->toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (self->toolbar, "toolbar");
  self->stack = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->stack), GTK_STACK_TRANSITION_TYPE_NONE);
  self->switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (self->switcher), GTK_STACK (self->stack));
  gtk_box_append (GTK_BOX (self->toolbar), self->switcher);

  self->axes_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->y_drop = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (self->dim_names)), NULL);
  self->x_drop = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (self->dim_names)), NULL);
  compact_drop_down (self->y_drop);
  compact_drop_down (self->x_drop);
  gtk_widget_set_tooltip_text (self->y_drop, "Vertical axis");
  gtk_widget_set_tooltip_text (self->x_drop, "Horizontal axis");
  gtk_box_append (GTK_BOX (self->axes_box), labeled ("Y", self->y_drop));
  gtk_box_append (GTK_BOX (self->axes_box), labeled ("X", self->x_drop));
  gtk_box_append (GTK_BOX (self->toolbar), self->axes_box);
  g_signal_connect (self->y_drop, "notify::selected", G_CALLBACK (on_axis_selected), self);
  g_signal_connect (self->x_drop, "notify::selected", G_CALLBACK (on_axis_selected), self);

  self->cmap_drop = gtk_drop_down_new_from_strings ((const char * const[]) { "Viridis", "Grey", "Balance", NULL });
  gtk_widget_set_tooltip_text (self->cmap_drop, "Colour map");
  g_signal_connect (self->cmap_drop, "notify::selected", G_CALLBACK (on_colormap_selected), self);

  /* colour map and range, in a popover */
  {
    GtkWidget *grid = gtk_grid_new ();
    GtkWidget *popover = gtk_popover_new ();
    GtkWidget *cmap_label = gtk_label_new ("Colour map");
    GtkWidget *min_label = gtk_label_new ("Minimum");
    GtkWidget *max_label = gtk_label_new ("Maximum");

    self->auto_check = gtk_check_button_new_with_label ("Automatic (2nd\u201398th percentile)");
    gtk_check_button_set_active (GTK_CHECK_BUTTON (self->auto_check), TRUE);
    self->min_spin = gtk_spin_button_new_with_range (-1e300, 1e300, 1);
    self->max_spin = gtk_spin_button_new_with_range (-1e300, 1e300, 1);
    gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->min_spin), 3);
    gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->max_spin), 3);
    gtk_editable_set_width_chars (GTK_EDITABLE (self->min_spin), 10);
    gtk_editable_set_width_chars (GTK_EDITABLE (self->max_spin), 10);
    gtk_widget_set_sensitive (self->min_spin, FALSE);
    gtk_widget_set_sensitive (self->max_spin, FALSE);
    gtk_label_set_xalign (GTK_LABEL (cmap_label), 0);
    gtk_label_set_xalign (GTK_LABEL (min_label), 0);
    gtk_label_set_xalign (GTK_LABEL (max_label), 0);
    gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
    gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
    gtk_widget_set_margin_start (grid, 6);
    gtk_widget_set_margin_end (grid, 6);
    gtk_widget_set_margin_top (grid, 6);
    gtk_widget_set_margin_bottom (grid, 6);
    gtk_grid_attach (GTK_GRID (grid), cmap_label, 0, 0, 1, 1);
    gtk_grid_attach (GTK_GRID (grid), self->cmap_drop, 1, 0, 1, 1);
    gtk_grid_attach (GTK_GRID (grid), self->auto_check, 0, 1, 2, 1);
    gtk_grid_attach (GTK_GRID (grid), min_label, 0, 2, 1, 1);
    gtk_grid_attach (GTK_GRID (grid), self->min_spin, 1, 2, 1, 1);
    gtk_grid_attach (GTK_GRID (grid), max_label, 0, 3, 1, 1);
    gtk_grid_attach (GTK_GRID (grid), self->max_spin, 1, 3, 1, 1);
    gtk_popover_set_child (GTK_POPOVER (popover), grid);
    range_box = gtk_menu_button_new ();
    gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (range_box), "color-select-symbolic");
    gtk_menu_button_set_popover (GTK_MENU_BUTTON (range_box), popover);
    gtk_widget_set_tooltip_text (range_box, "Colour map and range");
    gtk_box_append (GTK_BOX (self->toolbar), range_box);
    self->range_button = range_box;
  }
  {
    GtkWidget *spacer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_set_hexpand (spacer, TRUE);
    gtk_box_append (GTK_BOX (self->toolbar), spacer);
  }
  g_signal_connect (self->auto_check, "toggled", G_CALLBACK (on_range_edited), self);
  g_signal_connect (self->min_spin, "value-changed", G_CALLBACK (on_range_edited), self);
  g_signal_connect (self->max_spin, "value-changed", G_CALLBACK (on_range_edited), self);

  self->spinner = gtk_spinner_new ();
  gtk_box_append (GTK_BOX (self->toolbar), self->spinner);
  gtk_box_append (GTK_BOX (self->box), self->toolbar);
  gtk_box_append (GTK_BOX (self->box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  /* image page: picture, colour bar, readout */
  image_page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (image_page, 12);
  gtk_widget_set_margin_end (image_page, 12);
  gtk_widget_set_margin_top (image_page, 12);
  gtk_widget_set_margin_bottom (image_page, 6);
  overlay = gtk_overlay_new ();
  self->image_view = nb_image_view_new ();
  gtk_widget_set_vexpand (self->image_view, TRUE);
  gtk_widget_set_hexpand (self->image_view, TRUE);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), self->image_view);
  g_signal_connect (self->image_view, "hover", G_CALLBACK (on_hover), self);
  g_signal_connect (self->image_view, "view-changed", G_CALLBACK (on_view_changed), self);
  gtk_box_append (GTK_BOX (image_page), overlay);
  self->colorbar = nb_colorbar_new ();
  gtk_widget_set_margin_start (self->colorbar, 48);
  gtk_widget_set_margin_end (self->colorbar, 48);
  gtk_box_append (GTK_BOX (image_page), self->colorbar);
  self->readout = gtk_label_new ("");
  gtk_label_set_ellipsize (GTK_LABEL (self->readout), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (self->readout, "numeric");
  gtk_widget_add_css_class (self->readout, "caption");
  gtk_box_append (GTK_BOX (image_page), self->readout);

  gtk_stack_add_titled (GTK_STACK (self->stack), image_page, "image", "Image");
  self->plot_view = nb_plot_view_new ();
  gtk_stack_add_titled (GTK_STACK (self->stack), self->plot_view, "plot", "Plot");
  self->table_view = nb_table_view_new ();
  gtk_stack_add_titled (GTK_STACK (self->stack), self->table_view, "table", "Table");
  self->chunk_map = nb_chunk_map_new ();
  gtk_stack_add_titled (GTK_STACK (self->stack), self->chunk_map, "chunks", "Chunks");
  set_page_icons (self);
  self->placeholder = gtk_label_new ("No variable selected");
  gtk_widget_add_css_class (self->placeholder, "dim-label");
  gtk_widget_add_css_class (self->placeholder, "title-4");
  gtk_widget_set_vexpand (self->placeholder, TRUE);
  gtk_stack_add_named (GTK_STACK (self->stack), self->placeholder, "empty");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
  gtk_widget_set_vexpand (self->stack, TRUE);
  g_signal_connect (self->stack, "notify::visible-child-name", G_CALLBACK (on_page_changed), self);
  gtk_box_append (GTK_BOX (self->box), self->stack);

  /* sliders and status */
  bottom = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (bottom, 12);
  gtk_widget_set_margin_end (bottom, 12);
  gtk_widget_set_margin_bottom (bottom, 8);
  self->sliders = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_visible (self->sliders, FALSE);
  gtk_box_append (GTK_BOX (bottom), self->sliders);
  /* two rows made now (hidden), enough for the usual 3-D and 4-D
   * variables: selecting one then only shows and configures them */
  dim_row_get (self, 1);
  self->status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->status), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (self->status, "dim-label");
  gtk_widget_add_css_class (self->status, "caption");
  gtk_box_append (GTK_BOX (bottom), self->status);
  gtk_box_append (GTK_BOX (self->box), bottom);

  gtk_widget_set_sensitive (self->toolbar, FALSE);
}

/**
 * nb_data_view_new:
 *
 * Returns: (transfer floating): a data view showing nothing
 */
GtkWidget *
nb_data_view_new (void)
{
  return g_object_new (NB_TYPE_DATA_VIEW, NULL);
}

static const char *
default_page (guint n_dims)
{
  return n_dims >= 2 ? "image" : n_dims == 1 ? "plot" : "table";
}

/**
 * nb_data_view_set_variable:
 * @variable: (nullable): the variable to show; %NULL clears the view
 *
 * Shows @variable: an image of its last two dimensions (index 0 along
 * the others) for two or more dimensions, a plot for one, a table of
 * its value for none.
 */
void
nb_data_view_set_variable (NbDataView *self, NczVariable *variable)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));
  g_return_if_fail (variable == NULL || NCZ_IS_VARIABLE (variable));

  if (variable == self->variable && variable != NULL)
    return;
  cancel_reads (self);
  nb_data_view_set_playing (self, FALSE);
  g_set_object (&self->variable, variable);
  g_clear_pointer (&self->shape, g_free);
  g_clear_pointer (&self->index, g_free);
  g_clear_pointer (&self->slice, nb_slice_free);
  self->n_dims = 0;
  self->flip_known = FALSE;
  self->flip_y = TRUE;
  nb_image_view_clear (NB_IMAGE_VIEW (self->image_view));
  nb_plot_view_clear (NB_PLOT_VIEW (self->plot_view));
  nb_table_view_clear (NB_TABLE_VIEW (self->table_view));
  nb_chunk_map_clear (NB_CHUNK_MAP (self->chunk_map));
  gtk_label_set_text (GTK_LABEL (self->readout), "");
  set_status (self, NULL);

  if (variable != NULL)
    {
      self->shape = ncz_variable_get_shape (variable, &self->n_dims);
      self->index = g_new0 (guint64, MAX (self->n_dims, 1));
      self->y_dim = self->n_dims >= 2 ? self->n_dims - 2 : 0;
      self->x_dim = self->n_dims >= 2 ? self->n_dims - 1 : 0;
      self->play_dim = 0;
      g_free (self->page);
      self->page = g_strdup (default_page (self->n_dims));
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PAGE]);
      self->updating_controls = TRUE;
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), self->page);
      self->updating_controls = FALSE;
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (self->placeholder), "No variable selected");
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
    }
  gtk_widget_set_sensitive (self->toolbar, variable != NULL);
  rebuild_controls (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_VARIABLE]);
  schedule_reload (self);
}

/**
 * nb_data_view_get_variable:
 *
 * Returns: (transfer none) (nullable): the variable shown
 */
NczVariable *
nb_data_view_get_variable (NbDataView *self)
{
  g_return_val_if_fail (NB_IS_DATA_VIEW (self), NULL);
  return self->variable;
}

/**
 * nb_data_view_set_axes:
 * @y_dim: the dimension drawn vertically
 * @x_dim: the dimension drawn horizontally
 *
 * Chooses the two dimensions of the image; ignored unless both are
 * dimensions of the variable and differ.
 */
void
nb_data_view_set_axes (NbDataView *self, guint y_dim, guint x_dim)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (self->variable == NULL || y_dim >= self->n_dims || x_dim >= self->n_dims || y_dim == x_dim)
    return;
  if (y_dim == self->y_dim && x_dim == self->x_dim)
    return;
  self->y_dim = y_dim;
  self->x_dim = x_dim;
  self->flip_known = FALSE;
  if (self->playing && (self->play_dim == y_dim || self->play_dim == x_dim))
    nb_data_view_set_playing (self, FALSE);
  g_clear_pointer (&self->slice, nb_slice_free);
  nb_image_view_clear (NB_IMAGE_VIEW (self->image_view));
  rebuild_controls (self);
  schedule_reload (self);
}

/**
 * nb_data_view_set_index:
 * @dim: a dimension other than the image axes
 * @index: its index, clamped to the dimension's length
 *
 * Chooses the slice along @dim; what is being read is cancelled and the
 * new slice read.
 */
void
nb_data_view_set_index (NbDataView *self, guint dim, guint64 index)
{
  GtkAdjustment *adj;

  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (self->variable == NULL || dim >= self->n_dims || self->shape[dim] == 0)
    return;
  index = MIN (index, self->shape[dim] - 1);
  if (self->index[dim] == index)
    return;
  self->index[dim] = index;
  adj = dim < self->slider_rows->len ? g_ptr_array_index (self->slider_rows, dim) : NULL;
  if (adj != NULL)
    {
      self->updating_controls = TRUE;
      gtk_adjustment_set_value (adj, (double) index);
      self->updating_controls = FALSE;
    }
  /* the axes' own indices matter to the plot's profile only */
  if (self->n_dims >= 2 && (dim == self->x_dim || (dim == self->y_dim && is_image_page (self))))
    return;
  schedule_reload (self);
}

/**
 * nb_data_view_set_page:
 * @page: "image", "plot", "table" or "chunks"
 *
 * Shows a page; an unknown name is ignored.
 */
void
nb_data_view_set_page (NbDataView *self, const char *page)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (page == NULL || !g_strv_contains (page_names, page))
    return;
  if (g_strcmp0 (self->page, page) == 0)
    return;
  g_free (self->page);
  self->page = g_strdup (page);
  self->updating_controls = TRUE;
  if (self->variable != NULL)
    gtk_stack_set_visible_child_name (GTK_STACK (self->stack), page);
  self->updating_controls = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PAGE]);
  schedule_reload (self);
}

/**
 * nb_data_view_get_page:
 *
 * Returns: the name of the page shown
 */
const char *
nb_data_view_get_page (NbDataView *self)
{
  g_return_val_if_fail (NB_IS_DATA_VIEW (self), NULL);
  return self->page;
}

/**
 * nb_data_view_set_colormap:
 * @name: "viridis", "grey" or "balance"; anything else is ignored
 *
 * Redraws the picture with another colour map (no read).
 */
void
nb_data_view_set_colormap (NbDataView *self, const char *name)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (!nb_colormap_is_known (name) || g_strcmp0 (self->colormap, name) == 0)
    return;
  g_free (self->colormap);
  self->colormap = g_strdup (name);
  self->updating_controls = TRUE;
  for (guint i = 0; nb_colormap_list_names ()[i] != NULL; i++)
    if (strcmp (nb_colormap_list_names ()[i], name) == 0)
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->cmap_drop), i);
  self->updating_controls = FALSE;
  render_picture (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_COLORMAP]);
}

/**
 * nb_data_view_set_range:
 * @automatic: whether the range follows the slice (2nd to 98th percentile
 *   of its valid values)
 * @min: the value of the first colour, when not @automatic
 * @max: the value of the last colour, when not @automatic
 *
 * Sets the colour range and redraws (no read).
 */
void
nb_data_view_set_range (NbDataView *self, gboolean automatic, double min, double max)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (!automatic && (!isfinite (min) || !isfinite (max) || !(max > min)))
    return;
  self->auto_range = automatic;
  if (!automatic)
    {
      self->range_min = min;
      self->range_max = max;
    }
  self->updating_controls = TRUE;
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->auto_check), automatic);
  gtk_widget_set_sensitive (self->min_spin, !automatic);
  gtk_widget_set_sensitive (self->max_spin, !automatic);
  if (!automatic)
    {
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->min_spin), min);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->max_spin), max);
    }
  self->updating_controls = FALSE;
  update_range_from_slice (self);
  render_picture (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_AUTO_RANGE]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_MIN]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_MAX]);
}

/**
 * nb_data_view_get_range:
 * @min: (out): the value of the first colour
 * @max: (out): the value of the last colour
 */
void
nb_data_view_get_range (NbDataView *self, double *min, double *max)
{
  *min = self->range_min;
  *max = self->range_max;
}

/**
 * nb_data_view_is_loading:
 *
 * Returns: whether reads of the current selection are under way
 */
gboolean
nb_data_view_is_loading (NbDataView *self)
{
  g_return_val_if_fail (NB_IS_DATA_VIEW (self), FALSE);
  return self->loading;
}

/**
 * nb_data_view_set_play_dimension:
 * @dim: the dimension to play along (not an image axis)
 */
void
nb_data_view_set_play_dimension (NbDataView *self, guint dim)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));
  if (dim >= self->n_dims)
    return;
  self->play_dim = dim;
  sync_play_buttons (self);
}

/**
 * nb_data_view_set_playing:
 * @playing: whether to advance the index of the play dimension (by
 *   default the first dimension that is not an image axis) five times a
 *   second, wrapping around; each step cancels the reads of the last
 *
 * Starts or stops the animation.
 */
void
nb_data_view_set_playing (NbDataView *self, gboolean playing)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));

  if (playing && self->n_dims >= 2
      && (self->play_dim == self->y_dim || self->play_dim == self->x_dim))
    {
      /* the first dimension that is not an axis */
      guint d;
      for (d = 0; d < self->n_dims; d++)
        if (d != self->y_dim && d != self->x_dim)
          break;
      if (d >= self->n_dims)
        playing = FALSE;
      else
        self->play_dim = d;
    }
  if (playing && (self->variable == NULL || self->n_dims < 2))
    playing = FALSE;
  if (playing == self->playing)
    {
      sync_play_buttons (self);
      return;
    }
  self->playing = playing;
  if (playing)
    self->play_source = g_timeout_add (PLAY_INTERVAL_MS, play_tick, self);
  else
    g_clear_handle_id (&self->play_source, g_source_remove);
  sync_play_buttons (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PLAYING]);
}

/**
 * nb_data_view_get_playing:
 *
 * Returns: whether the animation runs
 */
gboolean
nb_data_view_get_playing (NbDataView *self)
{
  return self->playing;
}

/**
 * nb_data_view_get_image_view:
 *
 * Returns: (transfer none): the image widget (NbImageView)
 */
GtkWidget *
nb_data_view_get_image_view (NbDataView *self)
{
  return self->image_view;
}

/**
 * nb_data_view_get_colorbar:
 *
 * Returns: (transfer none): the colour bar (NbColorbar)
 */
GtkWidget *
nb_data_view_get_colorbar (NbDataView *self)
{
  return self->colorbar;
}

/**
 * nb_data_view_get_table_view:
 *
 * Returns: (transfer none): the table (NbTableView)
 */
GtkWidget *
nb_data_view_get_table_view (NbDataView *self)
{
  return self->table_view;
}

/**
 * nb_data_view_get_chunk_map:
 *
 * Returns: (transfer none): the chunk map (NbChunkMap)
 */
GtkWidget *
nb_data_view_get_chunk_map (NbDataView *self)
{
  return self->chunk_map;
}

/**
 * nb_data_view_get_plot_view:
 *
 * Returns: (transfer none): the plot (NbPlotView)
 */
GtkWidget *
nb_data_view_get_plot_view (NbDataView *self)
{
  return self->plot_view;
}

/**
 * nb_data_view_get_y_flipped:
 *
 * Returns: whether row 0 of the image is at the bottom
 */
gboolean
nb_data_view_get_y_flipped (NbDataView *self)
{
  return self->flip_y;
}

#define COLORBAR_STRIP 44

/**
 * nb_data_view_get_export_image_origin:
 * @width: (out): the width of the image area of an exported PNG
 * @height: (out): its height; the colour bar strip is under it
 *
 * The image area of nb_data_view_export_png() on the image page has the
 * size of the image widget (640 x 480 when it has none), at (0, 0), laid
 * out as the widget draws it.
 */
void
nb_data_view_get_export_image_origin (NbDataView *self, int *width, int *height)
{
  *width = gtk_widget_get_width (self->image_view);
  *height = gtk_widget_get_height (self->image_view);
  if (*width < 16 || *height < 16)
    {
      *width = 640;
      *height = 480;
    }
}

static gboolean
export_widget (GtkWidget *widget, const char *path, GError **error)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = NULL;
  GtkSnapshot *snapshot;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  if (renderer == NULL || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                   "the table is not on screen, nothing to export to '%s'", path);
      return FALSE;
    }
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 }, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "nothing drawn to export to '%s'", path);
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "could not write the PNG '%s'", path);
      return FALSE;
    }
  return TRUE;
}

/**
 * nb_data_view_export_png:
 * @path: (type filename): the PNG to write
 * @error: the error
 *
 * Writes the current view as a PNG: on the image page the picture as
 * zoomed and panned with the colour bar and its range under it; on the
 * plot and chunk pages their drawing; on the table page what is on screen.
 *
 * Returns: %TRUE on success
 */
gboolean
nb_data_view_export_png (NbDataView *self, const char *path, GError **error)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;
  int width, height, total;

  g_return_val_if_fail (NB_IS_DATA_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (self->variable == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                   "no variable is shown, nothing to export to '%s'", path);
      return FALSE;
    }
  if (strcmp (self->page, "table") == 0)
    return export_widget (self->table_view, path, error);

  if (is_image_page (self))
    nb_data_view_get_export_image_origin (self, &width, &height);
  else
    {
      GtkWidget *w = strcmp (self->page, "plot") == 0 ? self->plot_view : self->chunk_map;
      width = gtk_widget_get_width (w);
      height = gtk_widget_get_height (w);
      if (width < 16 || height < 16)
        {
          width = 640;
          height = 400;
        }
    }
  total = is_image_page (self) ? height + COLORBAR_STRIP : height;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, total);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 0xfa / 255.0, 0xfa / 255.0, 0xfa / 255.0);
  cairo_paint (cr);
  if (is_image_page (self))
    {
      nb_image_view_draw (NB_IMAGE_VIEW (self->image_view), cr, width, height);
      cairo_translate (cr, 0, height);
      nb_colorbar_draw (NB_COLORBAR (self->colorbar), cr, width, COLORBAR_STRIP);
    }
  else if (strcmp (self->page, "plot") == 0)
    nb_plot_view_draw (NB_PLOT_VIEW (self->plot_view), cr, width, height);
  else
    nb_chunk_map_draw (NB_CHUNK_MAP (self->chunk_map), cr, width, height);
  cairo_destroy (cr);
  status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "could not write the PNG '%s': %s",
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

/**
 * nb_data_view_set_full_limit:
 * @max_values: the most values of a full-resolution read of the whole
 *   slice (at least 1)
 *
 * A slice with more values is shown decimated; zoomed in, the visible
 * window is read at the screen's resolution. The default is 2^25.
 */
void
nb_data_view_set_full_limit (NbDataView *self, guint64 max_values)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));
  self->full_limit = MAX (max_values, 1);
}

/**
 * nb_data_view_get_read_counts:
 * @n_reads: (out) (optional): how many image reads were started
 * @n_values: (out) (optional): how many values they asked for
 *
 * Counts of the image page's reads (whole slice, decimated or not, and
 * zoomed-in windows) since the view was made.
 */
void
nb_data_view_get_read_counts (NbDataView *self, guint64 *n_reads, guint64 *n_values)
{
  g_return_if_fail (NB_IS_DATA_VIEW (self));
  if (n_reads != NULL)
    *n_reads = self->n_reads;
  if (n_values != NULL)
    *n_values = self->n_read_values;
}
