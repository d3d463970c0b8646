/* nb-slice-loader.c: hyperslab reads off the main loop, as doubles
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A read runs in a GTask worker thread (ncz_variable_read with a stride:
 * a decimated read touches only the chunks holding the strided points)
 * and hands back doubles, missing values replaced by NaN, with the range
 * and the 2nd / 98th percentiles of the valid values, computed there so
 * that the main loop only maps colours.
 */
#include "nb-slice-loader.h"

#include <math.h>
#include <string.h>

/* The variable's 1-D coordinate variable along dimension @dim: a variable
 * of the variable's group (or an ancestor's) named like the dimension,
 * with that one dimension, numeric. NULL when there is none. */
NczVariable *
nb_find_coordinate_variable (NczVariable *variable, guint dim)
{
  NczDimension *d;
  NczVariable *coord;
  NczDataType type;

  if (dim >= ncz_variable_get_n_dimensions (variable))
    return NULL;
  d = ncz_variable_get_dimension (variable, dim);
  if (d == NULL)
    return NULL;
  coord = ncz_group_lookup_variable (ncz_variable_get_group (variable),
                                     ncz_dimension_get_name (d));
  if (coord == NULL || coord == variable
      || ncz_variable_get_n_dimensions (coord) != 1
      || ncz_variable_get_dimension (coord, 0) != d)
    return NULL;
  type = ncz_variable_get_value_type (coord);
  if (type == NCZ_DATA_TYPE_STRING || type == NCZ_DATA_TYPE_CHAR
      || type == NCZ_DATA_TYPE_NONE || ncz_data_type_get_size (type) == 0)
    return NULL;
  return coord;
}

void
nb_convert_to_double (NczDataType type, gconstpointer src, double *dst, guint64 n)
{
  guint64 i;

#define CONVERT(ctype) \
  for (i = 0; i < n; i++) dst[i] = (double) ((const ctype *) src)[i]; \
  break

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: CONVERT (gint8);
    case NCZ_DATA_TYPE_CHAR:
    case NCZ_DATA_TYPE_UBYTE: CONVERT (guint8);
    case NCZ_DATA_TYPE_SHORT: CONVERT (gint16);
    case NCZ_DATA_TYPE_USHORT: CONVERT (guint16);
    case NCZ_DATA_TYPE_INT: CONVERT (gint32);
    case NCZ_DATA_TYPE_UINT: CONVERT (guint32);
    case NCZ_DATA_TYPE_INT64: CONVERT (gint64);
    case NCZ_DATA_TYPE_UINT64: CONVERT (guint64);
    case NCZ_DATA_TYPE_FLOAT: CONVERT (float);
    case NCZ_DATA_TYPE_DOUBLE: CONVERT (double);
    case NCZ_DATA_TYPE_NONE:
    case NCZ_DATA_TYPE_STRING:
    default:
      for (i = 0; i < n; i++)
        dst[i] = NAN;
      break;
    }
#undef CONVERT
}

static double *
attribute_doubles (NczVariable *variable, const char *name, gsize *n)
{
  NczAttribute *attr = ncz_variable_get_attribute (variable, name);
  NczDataType type;

  *n = 0;
  if (attr == NULL)
    return NULL;
  type = ncz_attribute_get_value_type (attr);
  if (type == NCZ_DATA_TYPE_STRING || type == NCZ_DATA_TYPE_CHAR)
    return NULL;
  return ncz_attribute_get_double_values (attr, n, NULL);
}

void
nb_missing_spec_init (NbMissingSpec *spec, NczVariable *variable)
{
  NczDataType type = ncz_variable_get_value_type (variable);
  g_autofree double *range = NULL;
  g_autofree double *vmin = NULL;
  g_autofree double *vmax = NULL;
  gsize n;

  memset (spec, 0, sizeof *spec);
  spec->valid_min = -INFINITY;
  spec->valid_max = INFINITY;

  if (!ncz_variable_get_no_fill (variable))
    {
      g_autoptr(GBytes) fill = ncz_variable_get_fill_value (variable);
      gsize size = 0;
      gconstpointer data = fill != NULL ? g_bytes_get_data (fill, &size) : NULL;

      if (data != NULL && size == ncz_data_type_get_size (type) && size > 0)
        {
          nb_convert_to_double (type, data, &spec->fill, 1);
          spec->has_fill = !isnan (spec->fill);
        }
    }

  range = attribute_doubles (variable, "valid_range", &n);
  if (range != NULL && n == 2)
    {
      spec->valid_min = range[0];
      spec->valid_max = range[1];
    }
  else
    {
      vmin = attribute_doubles (variable, "valid_min", &n);
      if (vmin != NULL && n >= 1)
        spec->valid_min = vmin[0];
      vmax = attribute_doubles (variable, "valid_max", &n);
      if (vmax != NULL && n >= 1)
        spec->valid_max = vmax[0];
    }

  spec->missing = attribute_doubles (variable, "missing_value", &n);
  spec->n_missing = (guint) n;
}

void
nb_missing_spec_clear (NbMissingSpec *spec)
{
  g_clear_pointer (&spec->missing, g_free);
  spec->n_missing = 0;
}

gboolean
nb_slice_is_missing (const NbMissingSpec *spec, double value)
{
  if (isnan (value))
    return TRUE;
  if (spec->has_fill && value == spec->fill)
    return TRUE;
  if (value < spec->valid_min || value > spec->valid_max)
    return TRUE;
  for (guint i = 0; i < spec->n_missing; i++)
    if (value == spec->missing[i])
      return TRUE;
  return FALSE;
}

NbSliceRequest *
nb_slice_request_new (NczVariable *variable, const guint64 *start,
                      const guint64 *count, const gint64 *stride)
{
  NbSliceRequest *self = g_new0 (NbSliceRequest, 1);
  guint n = ncz_variable_get_n_dimensions (variable);

  self->variable = g_object_ref (variable);
  self->n_dims = n;
  self->start = g_new0 (guint64, MAX (n, 1));
  self->count = g_new0 (guint64, MAX (n, 1));
  self->stride = g_new0 (gint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      self->start[i] = start[i];
      self->count[i] = count[i];
      self->stride[i] = stride != NULL ? MAX (stride[i], 1) : 1;
    }
  self->coord_dim[0] = self->coord_dim[1] = -1;
  nb_missing_spec_init (&self->missing, variable);
  self->want_percentiles = TRUE;
  return self;
}

void
nb_slice_request_set_coordinate (NbSliceRequest *self, guint which, int dim,
                                 NczVariable *coord)
{
  g_return_if_fail (which < 2);
  g_clear_object (&self->coord[which]);
  self->coord_dim[which] = coord != NULL ? dim : -1;
  self->coord[which] = coord != NULL ? g_object_ref (coord) : NULL;
}

void
nb_slice_request_free (NbSliceRequest *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->variable);
  g_clear_object (&self->coord[0]);
  g_clear_object (&self->coord[1]);
  g_free (self->start);
  g_free (self->count);
  g_free (self->stride);
  nb_missing_spec_clear (&self->missing);
  g_free (self);
}

void
nb_slice_free (NbSlice *self)
{
  if (self == NULL)
    return;
  g_free (self->values);
  g_free (self->coord[0]);
  g_free (self->coord[1]);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_free (self);
}

/* The automatic colour range of a slice: its 2nd and 98th percentiles,
 * its extremes when those are equal, a unit interval around a constant */
void
nb_slice_auto_range (const NbSlice *slice, double *lo, double *hi)
{
  *lo = slice->p02;
  *hi = slice->p98;
  if (isnan (*lo) || isnan (*hi))
    {
      *lo = 0;
      *hi = 1;
    }
  if (!(*hi > *lo))
    {
      *lo = slice->min;
      *hi = slice->max;
    }
  if (!(*hi > *lo))
    {
      *lo = (isnan (*lo) ? 0 : *lo) - 0.5;
      *hi = *lo + 1.0;
    }
}

/* Colour-maps a slice (row-major over its two dimensions, y first when
 * @y_before_x) into an RGB24 surface in display order (row 0 at the
 * bottom when @flip_y): a value at position t of the range takes table
 * entry MIN (floor (t * 256), 255), NaN the missing colour */
cairo_surface_t *
nb_render_rgb (const double *values, guint64 h, guint64 w, gboolean y_before_x,
               gboolean flip_y, double lo, double hi, const guint8 table[256][3],
               const guint8 missing[3])
{
  cairo_surface_t *surface;
  guint8 *pixels;
  int stride_bytes;
  guint64 row_stride = y_before_x ? w : 1, col_stride = y_before_x ? 1 : h;
  double span = hi - lo;
  guint32 missing_px = 0xff000000u | ((guint32) missing[0] << 16) | ((guint32) missing[1] << 8) | missing[2];
  guint32 lut[256];

  if (!(span > 0))
    span = 1;
  for (int i = 0; i < 256; i++)
    lut[i] = 0xff000000u | ((guint32) table[i][0] << 16) | ((guint32) table[i][1] << 8) | table[i][2];
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    return surface;
  cairo_surface_flush (surface);
  pixels = cairo_image_surface_get_data (surface);
  stride_bytes = cairo_image_surface_get_stride (surface);
  for (guint64 v = 0; v < h; v++)
    {
      guint64 row = flip_y ? h - 1 - v : v;
      guint32 *out = (guint32 *) (pixels + v * stride_bytes);
      const double *in = values + row * row_stride;

      for (guint64 u = 0; u < w; u++)
        {
          double value = in[u * col_stride];

          if (isnan (value))
            out[u] = missing_px;
          else
            {
              double t = (value - lo) / span * 256.0;
              out[u] = lut[t <= 0 ? 0 : t >= 255 ? 255 : (int) t];
            }
        }
    }
  cairo_surface_mark_dirty (surface);
  return surface;
}

/* The element of rank k (0-based) of values[0..n), reordering them */
static double
select_rank (double *v, guint64 n, guint64 k)
{
  guint64 lo = 0, hi = n - 1;

  while (lo < hi)
    {
      double pivot = v[lo + (hi - lo) / 2];
      guint64 i = lo, j = hi;

      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              double t = v[i];
              v[i] = v[j];
              v[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return v[k];
    }
  return v[k];
}

/* The q-quantile (0..1) of values[0..n) by linear interpolation between
 * ranks, reordering them; NaN when n is 0 */
double
nb_percentile (double *values, guint64 n, double q)
{
  double pos, lo, hi;
  guint64 k;

  if (n == 0)
    return NAN;
  pos = q * (double) (n - 1);
  k = (guint64) floor (pos);
  lo = select_rank (values, n, k);
  if (k + 1 >= n || pos == (double) k)
    return lo;
  hi = select_rank (values, n, k + 1);
  return lo + (hi - lo) * (pos - (double) k);
}

static gboolean
read_doubles (NczVariable *variable, guint n_dims, const guint64 *start,
              const guint64 *count, const gint64 *stride, double *out,
              guint64 n_values, GCancellable *cancellable, GError **error)
{
  NczDataType type = ncz_variable_get_value_type (variable);
  gsize size = ncz_data_type_get_size (type);
  gpointer raw;
  gboolean ok;

  if (type == NCZ_DATA_TYPE_STRING || type == NCZ_DATA_TYPE_NONE || size == 0)
    {
      g_autofree char *name = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "variable '%s' holds %s values, which are not drawn",
                   name, ncz_data_type_get_name (type));
      return FALSE;
    }
  if (type == NCZ_DATA_TYPE_DOUBLE)
    return ncz_variable_read (variable, start, n_dims, count, n_dims, stride, n_dims,
                              out, n_values * sizeof (double), cancellable, error);

  raw = g_try_malloc (MAX (n_values * size, 1));
  if (raw == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "no memory for %" G_GUINT64_FORMAT " values", n_values);
      return FALSE;
    }
  ok = ncz_variable_read (variable, start, n_dims, count, n_dims, stride, n_dims,
                          raw, n_values * size, cancellable, error);
  if (ok)
    nb_convert_to_double (type, raw, out, n_values);
  g_free (raw);
  return ok;
}

/**
 * nb_slice_loader_read:
 * @request: what to read
 * @cancellable: (nullable): cancels the read
 * @error: the error
 *
 * Reads @request on the calling thread (the worker of
 * nb_slice_loader_read_async()).
 *
 * Returns: (transfer full) (nullable): the values, NULL on error
 */
NbSlice *
nb_slice_loader_read (NbSliceRequest *request, GCancellable *cancellable,
                      GError **error)
{
  g_autoptr(NbSlice) slice = g_new0 (NbSlice, 1);
  gint64 t0 = g_get_monotonic_time ();
  guint64 n = 1;

  for (guint i = 0; i < request->n_dims; i++)
    n *= request->count[i];
  if (n > G_MAXSIZE / sizeof (double) / 2)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "a slice of %" G_GUINT64_FORMAT " values is too large", n);
      return NULL;
    }
  slice->n_values = n;
  slice->values = g_try_new (double, MAX (n, 1));
  if (slice->values == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "no memory for a slice of %" G_GUINT64_FORMAT " values", n);
      return NULL;
    }
  if (n > 0 && !read_doubles (request->variable, request->n_dims, request->start,
                              request->count, request->stride, slice->values, n,
                              cancellable, error))
    return NULL;

  /* the coordinates along the same strided points */
  for (guint w = 0; w < 2; w++)
    {
      int d = request->coord_dim[w];
      guint64 cstart, ccount;
      gint64 cstride;

      if (request->coord[w] == NULL || d < 0 || (guint) d >= request->n_dims)
        continue;
      cstart = request->start[d];
      ccount = request->count[d];
      cstride = request->stride[d];
      slice->coord[w] = g_new (double, MAX (ccount, 1));
      slice->n_coord[w] = ccount;
      if (ccount > 0 && !read_doubles (request->coord[w], 1, &cstart, &ccount, &cstride,
                                       slice->coord[w], ccount, cancellable, NULL))
        {
          /* coordinates are a help, not a requirement */
          g_clear_pointer (&slice->coord[w], g_free);
          slice->n_coord[w] = 0;
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  /* missing values become NaN; range and percentiles of the others */
  {
    double lo = INFINITY, hi = -INFINITY;
    guint64 n_valid = 0;
    double *valid = request->want_percentiles ? g_try_new (double, MAX (n, 1)) : NULL;

    for (guint64 i = 0; i < n; i++)
      {
        double v = slice->values[i];

        if (nb_slice_is_missing (&request->missing, v))
          {
            slice->values[i] = NAN;
            continue;
          }
        if (v < lo)
          lo = v;
        if (v > hi)
          hi = v;
        if (valid != NULL)
          valid[n_valid] = v;
        n_valid++;
      }
    slice->n_valid = n_valid;
    slice->min = n_valid > 0 ? lo : NAN;
    slice->max = n_valid > 0 ? hi : NAN;
    slice->p02 = slice->p98 = NAN;
    if (valid != NULL && n_valid > 0)
      {
        slice->p02 = nb_percentile (valid, n_valid, 0.02);
        slice->p98 = nb_percentile (valid, n_valid, 0.98);
      }
    g_free (valid);
  }

  if (request->render && request->height * request->width == n && n > 0)
    {
      slice->flip_y = request->flip_y;
      if (!request->flip_known)
        slice->flip_y = !(slice->coord[0] != NULL && slice->n_coord[0] >= 2
                          && slice->coord[0][slice->n_coord[0] - 1] < slice->coord[0][0]);
      if (request->auto_range)
        nb_slice_auto_range (slice, &slice->lo, &slice->hi);
      else
        {
          slice->lo = request->lo;
          slice->hi = request->hi;
        }
      slice->surface = nb_render_rgb (slice->values, request->height, request->width,
                                      request->y_before_x, slice->flip_y, slice->lo, slice->hi,
                                      request->table, request->missing_rgb);
    }

  slice->elapsed_us = g_get_monotonic_time () - t0;
  return g_steal_pointer (&slice);
}

static void
read_thread (GTask *task, gpointer source, gpointer task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  NbSlice *slice = nb_slice_loader_read (task_data, cancellable, &error);

  if (slice == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, slice, (GDestroyNotify) nb_slice_free);
}

/**
 * nb_slice_loader_read_async:
 * @request: (transfer full): what to read
 * @cancellable: (nullable): cancels the read
 * @callback: called on the thread-default main context of the caller
 * @user_data: for @callback
 *
 * Reads @request in a worker thread.
 */
void
nb_slice_loader_read_async (NbSliceRequest *request, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, nb_slice_loader_read_async);
  g_task_set_task_data (task, request, (GDestroyNotify) nb_slice_request_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, read_thread);
}

/**
 * nb_slice_loader_read_finish:
 * @result: the result given to the callback
 * @error: the error
 *
 * Returns: (transfer full) (nullable): the values, NULL on error
 */
NbSlice *
nb_slice_loader_read_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
