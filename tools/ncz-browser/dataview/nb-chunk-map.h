/* nb-chunk-map.h: the chunks a slice crosses
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NB_TYPE_CHUNK_MAP (nb_chunk_map_get_type ())
G_DECLARE_FINAL_TYPE (NbChunkMap, nb_chunk_map, NB, CHUNK_MAP, GtkWidget)

/* One cell: a chunk, stored or not, with stored / raw bytes */
typedef struct {
  gboolean stored;
  double ratio;
} NbChunkCell;

GtkWidget *nb_chunk_map_new      (void);
void       nb_chunk_map_set_grid (NbChunkMap *self, guint n_rows, guint n_cols,
                                  guint64 first_row, guint64 first_col,
                                  const NbChunkCell *cells, gboolean flip_y,
                                  const char *title);
void       nb_chunk_map_clear    (NbChunkMap *self);
void       nb_chunk_map_get_counts (NbChunkMap *self, guint *n_stored, guint *n_missing);
gboolean   nb_chunk_map_get_cell (NbChunkMap *self, guint row, guint col, NbChunkCell *cell);
void       nb_chunk_map_cell_rgb (const NbChunkCell *cell, guint8 rgb[3]);
void       nb_chunk_map_draw     (NbChunkMap *self, cairo_t *cr, int width, int height);
gboolean   nb_chunk_map_cell_center (NbChunkMap *self, int width, int height,
                                     guint row, guint col, double *x, double *y);

G_END_DECLS
