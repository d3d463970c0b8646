/* nb-slice-loader.h: hyperslab reads off the main loop, as doubles
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <ncz/ncz.h>
#include <cairo.h>

G_BEGIN_DECLS

/* What marks a value as missing: the fill value, NaN, values outside
 * valid_range / valid_min / valid_max, and the missing_value values */
typedef struct {
  gboolean has_fill;
  double fill;
  double valid_min, valid_max;  /* -inf / +inf when absent */
  double *missing;
  guint n_missing;
} NbMissingSpec;

/* One strided hyperslab of a variable, with the 1-D coordinate values of
 * up to two of its dimensions along the same points */
typedef struct {
  NczVariable *variable;
  guint n_dims;
  guint64 *start;
  guint64 *count;
  gint64 *stride;
  NczVariable *coord[2];        /* nullable: coordinate variables of ... */
  int coord_dim[2];             /* ... these dimensions (-1: none) */
  NbMissingSpec missing;
  gboolean want_percentiles;

  /* colour-map the values in the worker too (a 2-D slice): */
  gboolean render;
  gboolean y_before_x;          /* the y dimension comes first in memory */
  guint64 height, width;        /* the picture's size */
  gboolean flip_known, flip_y;  /* orientation; decided from coord[0] if unknown */
  gboolean auto_range;
  double lo, hi;                /* the range when not automatic */
  guint8 table[256][3];
  guint8 missing_rgb[3];
} NbSliceRequest;

/* The values read, missing ones as NaN */
typedef struct {
  guint64 n_values;
  double *values;
  guint64 n_valid;
  double min, max;              /* of the valid values (NaN when none) */
  double p02, p98;              /* 2nd and 98th percentiles (NaN when none) */
  double *coord[2];             /* the coordinate values, or NULL */
  guint64 n_coord[2];
  gint64 elapsed_us;            /* time of the read in the worker */
  cairo_surface_t *surface;     /* the picture, when asked for */
  double lo, hi;                /* its range */
  gboolean flip_y;              /* its orientation */
} NbSlice;

NbSliceRequest *nb_slice_request_new  (NczVariable *variable,
                                       const guint64 *start,
                                       const guint64 *count,
                                       const gint64 *stride);
void            nb_slice_request_set_coordinate (NbSliceRequest *self, guint which,
                                                 int dim, NczVariable *coord);
void            nb_slice_request_free (NbSliceRequest *self);

void            nb_slice_free         (NbSlice *self);
gboolean        nb_slice_is_missing   (const NbMissingSpec *spec, double value);
void            nb_missing_spec_init  (NbMissingSpec *spec, NczVariable *variable);
void            nb_missing_spec_clear (NbMissingSpec *spec);
void            nb_convert_to_double  (NczDataType type, gconstpointer src,
                                       double *dst, guint64 n);
double          nb_percentile         (double *values, guint64 n, double q);

void            nb_slice_auto_range   (const NbSlice *slice, double *lo, double *hi);
cairo_surface_t *nb_render_rgb        (const double *values, guint64 height, guint64 width,
                                       gboolean y_before_x, gboolean flip_y,
                                       double lo, double hi,
                                       const guint8 table[256][3],
                                       const guint8 missing_rgb[3]);

NczVariable    *nb_find_coordinate_variable (NczVariable *variable, guint dim);

void            nb_slice_loader_read_async  (NbSliceRequest *request,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
NbSlice        *nb_slice_loader_read_finish (GAsyncResult *result, GError **error);
NbSlice        *nb_slice_loader_read        (NbSliceRequest *request,
                                             GCancellable *cancellable,
                                             GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NbSlice, nb_slice_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NbSliceRequest, nb_slice_request_free)

G_END_DECLS
