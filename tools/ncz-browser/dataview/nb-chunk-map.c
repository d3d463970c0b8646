/* nb-chunk-map.c: the chunks a slice crosses
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The grid of chunks along the two image axes, chunk row 0 at the bottom
 * like the image. A stored chunk is coloured by its compression ratio
 * (stored bytes / raw bytes) on the grey-to-blue scale of the legend,
 * from 0 (dark, compresses well) to 1 or more (light, incompressible); a
 * chunk never written (read as the fill value) is the missing colour of
 * the image with a diagonal hatch. The legend is drawn under the grid.
 */
#include "nb-chunk-map.h"
#include "nb-draw.h"
#include "nb-colormap.h"

#include <math.h>
#include <pango/pangocairo.h>

struct _NbChunkMap
{
  GtkWidget parent_instance;
  guint n_rows, n_cols;
  guint64 first_row, first_col;
  NbChunkCell *cells;
  gboolean flip_y;
  char *title;
};

G_DEFINE_FINAL_TYPE (NbChunkMap, nb_chunk_map, GTK_TYPE_WIDGET)

#define LEGEND_H 44.0
#define MARGIN 12.0

/* ratio 0 -> deep blue, 1 -> pale blue-grey */
void
nb_chunk_map_cell_rgb (const NbChunkCell *cell, guint8 rgb[3])
{
  static const double lo[3] = { 0x1a, 0x5f, 0xb4 }, hi[3] = { 0xdd, 0xe6, 0xf0 };
  double t;

  if (!cell->stored)
    {
      nb_colormap_missing_rgb (rgb);
      return;
    }
  t = isfinite (cell->ratio) ? CLAMP (cell->ratio, 0.0, 1.0) : 1.0;
  for (int c = 0; c < 3; c++)
    rgb[c] = (guint8) lround (lo[c] + (hi[c] - lo[c]) * t);
}

static void
text_at (cairo_t *cr, const char *text, double x, double y, double ax, double ay, int size)
{
  g_autofree char *font = g_strdup_printf ("Cantarell, Sans %d", size);

  nb_draw_text (cr, text, x, y, ax, ay, font);
}

static void
grid_layout (NbChunkMap *self, int width, int height, double *ox, double *oy, double *cell)
{
  double gw = width - 2 * MARGIN - 40, gh = height - 2 * MARGIN - LEGEND_H - 20;
  double s = MIN (gw / MAX (self->n_cols, 1), gh / MAX (self->n_rows, 1));

  s = MIN (s, 96);
  *cell = s;
  *ox = floor (MARGIN + 40 + (gw - s * self->n_cols) / 2);
  *oy = floor (MARGIN + 20 + (gh - s * self->n_rows) / 2);
}

gboolean
nb_chunk_map_cell_center (NbChunkMap *self, int width, int height, guint row, guint col,
                          double *x, double *y)
{
  double ox, oy, s;
  guint drow;

  if (row >= self->n_rows || col >= self->n_cols)
    return FALSE;
  grid_layout (self, width, height, &ox, &oy, &s);
  drow = self->flip_y ? self->n_rows - 1 - row : row;
  *x = ox + (col + 0.5) * s;
  *y = oy + (drow + 0.5) * s;
  return TRUE;
}

static void
hatch (cairo_t *cr, double x, double y, double w, double h)
{
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.18);
  cairo_set_line_width (cr, 1);
  for (double d = -h; d < w; d += 6)
    {
      cairo_move_to (cr, x + d, y + h);
      cairo_line_to (cr, x + d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
nb_chunk_map_draw (NbChunkMap *self, cairo_t *cr, int width, int height)
{
  double ox, oy, s, ly;
  guint n_stored = 0, n_missing = 0;

  if (self->n_rows == 0 || self->n_cols == 0)
    return;
  grid_layout (self, width, height, &ox, &oy, &s);
  cairo_save (cr);

  if (self->title != NULL)
    {
      cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
      text_at (cr, self->title, width / 2.0, MARGIN, 0.5, 0.0, 10);
    }

  for (guint r = 0; r < self->n_rows; r++)
    for (guint c = 0; c < self->n_cols; c++)
      {
        const NbChunkCell *cell = &self->cells[(gsize) r * self->n_cols + c];
        guint drow = self->flip_y ? self->n_rows - 1 - r : r;
        double x = ox + c * s, y = oy + drow * s;
        guint8 rgb[3];

        nb_chunk_map_cell_rgb (cell, rgb);
        cairo_rectangle (cr, x, y, s, s);
        cairo_set_source_rgb (cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
        cairo_fill (cr);
        if (!cell->stored)
          {
            n_missing++;
            if (s >= 6)
              hatch (cr, x, y, s, s);
          }
        else
          n_stored++;
        if (s >= 40 && cell->stored)
          {
            g_autofree char *t = g_strdup_printf ("%.2f", cell->ratio);
            cairo_set_source_rgba (cr, cell->ratio < 0.5 ? 1 : 0, cell->ratio < 0.5 ? 1 : 0,
                                   cell->ratio < 0.5 ? 1 : 0, 0.85);
            text_at (cr, t, x + s / 2, y + s / 2, 0.5, 0.5, 8);
          }
      }
  /* cell borders */
  if (s >= 4)
    {
      cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
      cairo_set_line_width (cr, 1);
      for (guint c = 0; c <= self->n_cols; c++)
        {
          cairo_move_to (cr, ox + c * s + 0.5, oy);
          cairo_line_to (cr, ox + c * s + 0.5, oy + self->n_rows * s);
        }
      for (guint r = 0; r <= self->n_rows; r++)
        {
          cairo_move_to (cr, ox, oy + r * s + 0.5);
          cairo_line_to (cr, ox + self->n_cols * s, oy + r * s + 0.5);
        }
      cairo_stroke (cr);
    }

  /* chunk indices of the first row and column */
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  {
    g_autofree char *first = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_col);
    g_autofree char *last = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_col + self->n_cols - 1);
    g_autofree char *rfirst = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_row);
    g_autofree char *rlast = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_row + self->n_rows - 1);
    double ybottom = oy + self->n_rows * s;

    text_at (cr, first, ox + s / 2, ybottom + 2, 0.5, 0.0, 8);
    if (self->n_cols > 1)
      text_at (cr, last, ox + (self->n_cols - 0.5) * s, ybottom + 2, 0.5, 0.0, 8);
    text_at (cr, rfirst, ox - 4, self->flip_y ? ybottom - s / 2 : oy + s / 2, 1.0, 0.5, 8);
    if (self->n_rows > 1)
      text_at (cr, rlast, ox - 4, self->flip_y ? oy + s / 2 : ybottom - s / 2, 1.0, 0.5, 8);
  }

  /* legend: missing swatch, then the ratio scale */
  ly = height - MARGIN - LEGEND_H + 14;
  {
    NbChunkCell missing = { FALSE, 0 };
    guint8 rgb[3];
    double lx = MAX (MARGIN, width / 2.0 - 230);
    g_autofree char *counts = NULL;
    cairo_pattern_t *pattern;

    nb_chunk_map_cell_rgb (&missing, rgb);
    cairo_rectangle (cr, lx, ly, 16, 16);
    cairo_set_source_rgb (cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
    cairo_fill (cr);
    hatch (cr, lx, ly, 16, 16);
    cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
    counts = g_strdup_printf ("missing (fill): %u", n_missing);
    text_at (cr, counts, lx + 22, ly + 8, 0.0, 0.5, 9);

    lx += 170;
    cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
    text_at (cr, "stored / raw  0", lx, ly + 8, 0.0, 0.5, 9);
    pattern = cairo_pattern_create_linear (lx + 100, 0, lx + 260, 0);
    for (int i = 0; i <= 8; i++)
      {
        NbChunkCell c = { TRUE, i / 8.0 };
        nb_chunk_map_cell_rgb (&c, rgb);
        cairo_pattern_add_color_stop_rgb (pattern, i / 8.0, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
      }
    cairo_rectangle (cr, lx + 100, ly, 160, 16);
    cairo_set_source (cr, pattern);
    cairo_fill (cr);
    cairo_pattern_destroy (pattern);
    cairo_set_source_rgba (cr, 0, 0, 0, 0.8);
    text_at (cr, "\xe2\x89\xa5 1", lx + 266, ly + 8, 0.0, 0.5, 9);
    g_free (counts);
    counts = g_strdup_printf ("stored: %u", n_stored);
    text_at (cr, counts, lx + 300, ly + 8, 0.0, 0.5, 9);
  }
  cairo_restore (cr);
}

static void
draw_widget (GtkWidget *widget, cairo_t *cr, int width, int height)
{
  nb_chunk_map_draw (NB_CHUNK_MAP (widget), cr, width, height);
}

static void
nb_chunk_map_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  nb_draw_snapshot_cairo (widget, snapshot, draw_widget);
}

static void
nb_chunk_map_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                      int *minimum, int *natural, int *minimum_baseline,
                      int *natural_baseline)
{
  *minimum = 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 360;
}

static void
nb_chunk_map_finalize (GObject *object)
{
  NbChunkMap *self = NB_CHUNK_MAP (object);

  g_free (self->cells);
  g_free (self->title);
  G_OBJECT_CLASS (nb_chunk_map_parent_class)->finalize (object);
}

static void
nb_chunk_map_class_init (NbChunkMapClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = nb_chunk_map_finalize;
  widget_class->snapshot = nb_chunk_map_snapshot;
  widget_class->measure = nb_chunk_map_measure;
  gtk_widget_class_set_css_name (widget_class, "nb-chunk-map");
}

static void
nb_chunk_map_init (NbChunkMap *self)
{
}

GtkWidget *
nb_chunk_map_new (void)
{
  return g_object_new (NB_TYPE_CHUNK_MAP, NULL);
}

void
nb_chunk_map_set_grid (NbChunkMap *self, guint n_rows, guint n_cols, guint64 first_row,
                       guint64 first_col, const NbChunkCell *cells, gboolean flip_y,
                       const char *title)
{
  g_free (self->cells);
  g_free (self->title);
  self->n_rows = n_rows;
  self->n_cols = n_cols;
  self->first_row = first_row;
  self->first_col = first_col;
  self->cells = g_memdup2 (cells, (gsize) n_rows * n_cols * sizeof (NbChunkCell));
  self->flip_y = flip_y;
  self->title = g_strdup (title);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
nb_chunk_map_clear (NbChunkMap *self)
{
  g_clear_pointer (&self->cells, g_free);
  self->n_rows = self->n_cols = 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
nb_chunk_map_get_counts (NbChunkMap *self, guint *n_stored, guint *n_missing)
{
  *n_stored = *n_missing = 0;
  for (gsize i = 0; i < (gsize) self->n_rows * self->n_cols; i++)
    (*(self->cells[i].stored ? n_stored : n_missing))++;
}

gboolean
nb_chunk_map_get_cell (NbChunkMap *self, guint row, guint col, NbChunkCell *cell)
{
  if (row >= self->n_rows || col >= self->n_cols)
    return FALSE;
  *cell = self->cells[(gsize) row * self->n_cols + col];
  return TRUE;
}
