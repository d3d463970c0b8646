/* test-dataview.c: NbDataView in a window, on a dataset made here
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Run under Xvfb (GDK_BACKEND=x11, GSK_RENDERER=cairo). The PNGs are
 * kept in NB_ARTIFACT_DIR (the build directory of this folder).
 *
 * grad (t 4, y 30, x 40), float, fill -999: value = x + 10 y + 1000 t,
 *   a block y 10..14 x 20..29 holds the fill value, (2, 3) is NaN;
 *   coordinates y (increasing) and x = 0.5 x
 * big (t 3, y 1200, x 1600), float, chunks 1 x 100 x 100:
 *   value = x + y + 10000 t
 * line (n 200): a sine with NaN at 80..89
 * sparse (y 32, x 32), chunks 8 x 8, deflate: only 3 of 16 chunks written
 */
#include "nb-data-view.h"
#include "nb-colormap.h"
#include "nb-colorbar.h"
#include "nb-image-view.h"
#include "nb-table-view.h"
#include "nb-plot-view.h"
#include "nb-chunk-map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *scratch;
static char *dataset_url;
static NczDataset *dataset;
static GtkWidget *window;
static NbDataView *view;

static guint n_loaded, n_failed, n_preview, n_full, n_detail;
static GPtrArray *updates;

static void
on_loaded (NbDataView *v, gpointer data)
{
  n_loaded++;
}

static void
on_failed (NbDataView *v, GError *error, gpointer data)
{
  g_printerr ("load-failed: %s\n", error->message);
  n_failed++;
}

static void
on_detail (NbDataView *v, gpointer data)
{
  n_detail++;
}

static void
on_picture (NbDataView *v, gboolean full, gpointer data)
{
  if (full)
    n_full++;
  else
    n_preview++;
}

static void
reset_counts (void)
{
  n_loaded = n_failed = n_preview = n_full = 0;
}

static void spin (guint ms);

static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Runs the main loop until @n loaded signals (or a minute) */
static void
wait_loaded (guint n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  guint tick = g_timeout_add (20, wake, NULL);

  while ((n_loaded < n || nb_data_view_is_loading (view)) && n_failed == 0
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  /* let the frame be laid out and drawn */
  spin (100);
  g_assert_cmpuint (n_failed, ==, 0);
  g_assert_cmpuint (n_loaded, >=, n);
}

static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;
  guint tick = g_timeout_add (5, wake, NULL);

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
}

static char *
artifact (const char *name)
{
  const char *dir = g_getenv ("NB_ARTIFACT_DIR");
  return g_build_filename (dir != NULL ? dir : ".", name, NULL);
}

/* ------------------------------------------------------------------ */

static NczVariable *
add_var (NczGroup *root, const char *name, guint n, NczDimension **dims,
         const guint64 *chunks)
{
  g_autoptr(GError) error = NULL;
  NczVariable *v = ncz_group_add_variable (root, name, NCZ_DATA_TYPE_FLOAT, n, dims, &error);

  g_assert_no_error (error);
  if (chunks != NULL)
    g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, n, &error));
  g_assert_no_error (error);
  return v;
}

static void
write_all (NczVariable *v, const float *data, guint n, const guint64 *count)
{
  g_autoptr(GError) error = NULL;
  guint64 start[4] = { 0 };
  gsize size = sizeof (float);

  for (guint i = 0; i < n; i++)
    size *= count[i];
  g_assert_true (ncz_variable_write (v, start, n, count, n, NULL, 0, data, size, NULL, &error));
  g_assert_no_error (error);
}

static void
make_dataset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = NULL;
  NczGroup *root;
  NczDimension *t, *y, *x, *bt, *by, *bx, *n, *sy, *sx;
  NczVariable *v;
  float fill = -999;
  g_autoptr(GBytes) fill_bytes = g_bytes_new (&fill, sizeof fill);

  dataset_url = g_strdup_printf ("file://%s/view.zarr#mode=nczarr,file", scratch);
  ds = ncz_dataset_create (dataset_url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  t = ncz_group_add_dimension (root, "t", 4, FALSE, &error);
  y = ncz_group_add_dimension (root, "y", 30, FALSE, &error);
  x = ncz_group_add_dimension (root, "x", 40, FALSE, &error);
  bt = ncz_group_add_dimension (root, "bt", 3, FALSE, &error);
  by = ncz_group_add_dimension (root, "by", 1200, FALSE, &error);
  bx = ncz_group_add_dimension (root, "bx", 1600, FALSE, &error);
  n = ncz_group_add_dimension (root, "n", 200, FALSE, &error);
  sy = ncz_group_add_dimension (root, "sy", 32, FALSE, &error);
  sx = ncz_group_add_dimension (root, "sx", 32, FALSE, &error);
  g_assert_no_error (error);

  /* grad */
  {
    guint64 count[3] = { 4, 30, 40 }, chunks[3] = { 1, 10, 10 };
    g_autofree float *data = g_new (float, 4 * 30 * 40);
    float ycoord[30], xcoord[40];

    v = add_var (root, "grad", 3, (NczDimension *[]) { t, y, x }, chunks);
    g_assert_true (ncz_variable_set_fill_value (v, fill_bytes, &error));
    for (guint k = 0; k < 4; k++)
      for (guint j = 0; j < 30; j++)
        for (guint i = 0; i < 40; i++)
          {
            float value = i + 10 * j + 1000 * k;
            if (j >= 10 && j < 15 && i >= 20 && i < 30)
              value = fill;
            if (j == 2 && i == 3)
              value = NAN;
            data[(k * 30 + j) * 40 + i] = value;
          }
    write_all (v, data, 3, count);
    for (guint j = 0; j < 30; j++)
      ycoord[j] = -45.0f + 3.0f * j;
    for (guint i = 0; i < 40; i++)
      xcoord[i] = 0.5f * i;
    v = add_var (root, "y", 1, &y, NULL);
    write_all (v, ycoord, 1, (guint64[]) { 30 });
    v = add_var (root, "x", 1, &x, NULL);
    write_all (v, xcoord, 1, (guint64[]) { 40 });
  }

  /* big */
  {
    guint64 count[3] = { 1, 1200, 1600 }, chunks[3] = { 1, 100, 100 };
    g_autofree float *data = g_new (float, 1200 * 1600);

    v = add_var (root, "big", 3, (NczDimension *[]) { bt, by, bx }, chunks);
    for (guint k = 0; k < 3; k++)
      {
        guint64 start[3] = { k, 0, 0 };

        for (guint j = 0; j < 1200; j++)
          for (guint i = 0; i < 1600; i++)
            data[j * 1600 + i] = i + j + 10000.0f * k;
        g_assert_true (ncz_variable_write (v, start, 3, count, 3, NULL, 0, data,
                                           1200 * 1600 * sizeof (float), NULL, &error));
        g_assert_no_error (error);
      }
  }

  /* line */
  {
    float data[200];

    for (guint i = 0; i < 200; i++)
      data[i] = (i >= 80 && i < 90) ? NAN : (float) (10 * sin (i / 15.0));
    v = add_var (root, "line", 1, &n, (guint64[]) { 50 });
    write_all (v, data, 1, (guint64[]) { 200 });
  }

  /* sparse: chunks (0, 0), (1, 2) and (3, 3) only */
  {
    guint64 chunks[2] = { 8, 8 };
    float block[64];
    const guint64 written[3][2] = { { 0, 0 }, { 1, 2 }, { 3, 3 } };

    v = add_var (root, "sparse", 2, (NczDimension *[]) { sy, sx }, chunks);
    g_assert_true (ncz_variable_set_deflate (v, FALSE, TRUE, 5, &error));
    g_assert_no_error (error);
    for (guint c = 0; c < 3; c++)
      {
        guint64 start[2] = { written[c][0] * 8, written[c][1] * 8 }, count[2] = { 8, 8 };

        for (guint i = 0; i < 64; i++)
          block[i] = (float) (c + 1);
        g_assert_true (ncz_variable_write (v, start, 2, count, 2, NULL, 0, block, sizeof block,
                                           NULL, &error));
        g_assert_no_error (error);
      }
  }

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static NczVariable *
variable (const char *name)
{
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (dataset), name);
  g_assert_nonnull (v);
  return v;
}

/* ------------------------------------------------------------------ */

static gboolean
pixel_close (const guint8 *p, const guint8 rgb[3], int tolerance)
{
  return abs (p[0] - rgb[0]) <= tolerance && abs (p[1] - rgb[1]) <= tolerance
         && abs (p[2] - rgb[2]) <= tolerance;
}

/* RGB of pixel (x, y) of an RGB24/ARGB32 cairo surface */
static void
get_pixel (cairo_surface_t *s, int x, int y, guint8 out[3])
{
  guint8 *data = cairo_image_surface_get_data (s);
  guint32 p = *(guint32 *) (data + y * cairo_image_surface_get_stride (s) + x * 4);

  out[0] = (p >> 16) & 0xff;
  out[1] = (p >> 8) & 0xff;
  out[2] = p & 0xff;
}

/* Where cell (row, col) of the slice lands in an exported PNG */
static void
cell_position (guint64 rows, guint64 row, guint64 col, int *px, int *py)
{
  NbImageView *image = NB_IMAGE_VIEW (nb_data_view_get_image_view (view));
  int w, h;
  double u = col + 0.5, v, x, y;

  nb_data_view_get_export_image_origin (view, &w, &h);
  v = (nb_data_view_get_y_flipped (view) ? rows - 1 - row : row) + 0.5;
  g_assert_true (nb_image_view_data_to_widget (image, w, h, u, v, &x, &y));
  *px = (int) floor (x);
  *py = (int) floor (y);
}

static void
expected_rgb (double value, guint8 rgb[3])
{
  double lo, hi;

  nb_data_view_get_range (view, &lo, &hi);
  nb_colormap_lookup ("viridis", (value - lo) / (hi - lo), rgb);
}


/* Renders the whole window to a PNG in the artifact folder */
static void
screenshot (const char *name)
{
  g_autofree char *path = artifact (name);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  int w = gtk_widget_get_width (window), h = gtk_widget_get_height (window);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  g_assert_nonnull (renderer);
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static GtkWidget *
find_by_name (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_by_name (c, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_image (void)
{
  g_autofree char *png = artifact ("dataview-image.png");
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  guint8 got[3], want[3], missing[3];
  double lo, hi;
  int px, py, w, h;
  GtkWidget *min_label, *max_label;
  g_autofree char *lo_text = NULL;
  g_autofree char *hi_text = NULL;
  g_autofree char *readout = NULL;

  reset_counts ();
  nb_data_view_set_variable (view, variable ("grad"));
  wait_loaded (1);
  g_assert_cmpstr (nb_data_view_get_page (view), ==, "image");
  /* y increases: row 0 at the bottom */
  g_assert_true (nb_data_view_get_y_flipped (view));

  /* automatic range: 2nd-98th percentile of the valid values of t = 0 */
  nb_data_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat (lo, >, 0);
  g_assert_cmpfloat (lo, <, 20);
  g_assert_cmpfloat (hi, >, 300);
  g_assert_cmpfloat (hi, <, 329);

  screenshot ("dataview-window-image.png");
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  nb_data_view_get_export_image_origin (view, &w, &h);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (surface), >, h);

  /* colours at known points */
  {
    const guint pts[][2] = { { 0, 0 }, { 0, 39 }, { 29, 0 }, { 29, 39 }, { 15, 17 }, { 5, 30 }, { 20, 8 } };

    for (guint i = 0; i < G_N_ELEMENTS (pts); i++)
      {
        double value = pts[i][1] + 10.0 * pts[i][0];

        cell_position (30, pts[i][0], pts[i][1], &px, &py);
        get_pixel (surface, px, py, got);
        expected_rgb (value, want);
        if (!pixel_close (got, want, 2))
          g_error ("cell (%u, %u) value %g at (%d, %d): got %d,%d,%d, want %d,%d,%d",
                   pts[i][0], pts[i][1], value, px, py, got[0], got[1], got[2], want[0], want[1], want[2]);
      }
  }
  /* row 0 is below row 29 */
  {
    int py0, py29;
    cell_position (30, 0, 0, &px, &py0);
    cell_position (30, 29, 0, &px, &py29);
    g_assert_cmpint (py0, >, py29);
  }

  /* the fill block and the NaN are the missing colour */
  nb_colormap_missing_rgb (missing);
  for (guint j = 10; j < 15; j++)
    for (guint i = 20; i < 30; i++)
      {
        cell_position (30, j, i, &px, &py);
        get_pixel (surface, px, py, got);
        g_assert_true (pixel_close (got, missing, 0));
      }
  cell_position (30, 2, 3, &px, &py);
  get_pixel (surface, px, py, got);
  g_assert_true (pixel_close (got, missing, 0));

  /* the colour bar: its ends are the colours of the range's ends */
  get_pixel (surface, 92, h + 22, got);
  nb_colormap_lookup ("viridis", 0, want);
  g_assert_true (pixel_close (got, want, 3));
  get_pixel (surface, w - 93, h + 22, got);
  nb_colormap_lookup ("viridis", 1, want);
  g_assert_true (pixel_close (got, want, 3));
  cairo_surface_destroy (surface);

  /* and its labels show the range */
  min_label = find_by_name (window, "colorbar-min");
  max_label = find_by_name (window, "colorbar-max");
  g_assert_nonnull (min_label);
  g_assert_nonnull (max_label);
  g_assert_true (GTK_IS_LABEL (min_label));
  lo_text = nb_format_value (lo);
  hi_text = nb_format_value (hi);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (min_label)), ==, lo_text);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (max_label)), ==, hi_text);

  /* zoomed 4 times about cell (16, 18): cells are 4 times wider and
   * still drawn in their colour */
  {
    NbImageView *image = NB_IMAGE_VIEW (nb_data_view_get_image_view (view));
    g_autofree char *zpng = artifact ("dataview-image-zoom.png");
    int x0, x1, y0, z0, z1;
    cairo_surface_t *zoomed;

    cell_position (30, 16, 18, &x0, &y0);
    cell_position (30, 16, 19, &x1, &y0);
    nb_image_view_set_zoom (image, 4.0, 18.5, 30 - 16 - 0.5);
    cell_position (30, 16, 18, &z0, &y0);
    cell_position (30, 16, 19, &z1, &y0);
    g_assert_cmpint (abs ((z1 - z0) - 4 * (x1 - x0)), <=, 2);
    g_assert_true (nb_data_view_export_png (view, zpng, &error));
    zoomed = cairo_image_surface_create_from_png (zpng);
    for (guint i = 17; i <= 20; i++)
      {
        cell_position (30, 16, i, &px, &py);
        get_pixel (zoomed, px, py, got);
        expected_rgb (i + 160.0, want);
        g_assert_true (pixel_close (got, want, 2));
      }
    cairo_surface_destroy (zoomed);
    nb_image_view_reset_zoom (image);
  }

  /* the readout: value, indices and coordinates */
  readout = nb_data_view_describe_point (view, 4, 6);
  g_assert_nonnull (strstr (readout, "grad = 46"));
  g_assert_nonnull (strstr (readout, "y 4 (-33)"));
  g_assert_nonnull (strstr (readout, "x 6 (3)"));
  g_free (readout);
  readout = nb_data_view_describe_point (view, 12, 22);
  g_assert_nonnull (strstr (readout, "missing"));

  /* a range set by hand and another colour map */
  reset_counts ();
  nb_data_view_set_range (view, FALSE, 100, 200);
  nb_data_view_set_colormap (view, "balance");
  spin (50);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (min_label)), ==, "100");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (max_label)), ==, "200");
  {
    g_autofree char *png2 = artifact ("dataview-image-balance.png");

    g_assert_true (nb_data_view_export_png (view, png2, &error));
    surface = cairo_image_surface_create_from_png (png2);
    cell_position (30, 15, 0, &px, &py);          /* 150: the middle */
    get_pixel (surface, px, py, got);
    nb_colormap_lookup ("balance", 0.5, want);
    g_assert_true (pixel_close (got, want, 3));
    cell_position (30, 25, 5, &px, &py);          /* 255: above the range */
    get_pixel (surface, px, py, got);
    nb_colormap_lookup ("balance", 1, want);
    g_assert_true (pixel_close (got, want, 3));
    cairo_surface_destroy (surface);
  }
  nb_data_view_set_range (view, TRUE, 0, 0);
  nb_data_view_set_colormap (view, "viridis");

  /* another slice along t */
  reset_counts ();
  nb_data_view_set_index (view, 0, 2);
  wait_loaded (1);
  readout = nb_data_view_describe_point (view, 1, 1);
  g_assert_nonnull (strstr (readout, "grad = 2011"));
  g_free (readout);

  /* axes (t, x): a slice at y = 0 */
  reset_counts ();
  nb_data_view_set_axes (view, 0, 2);
  wait_loaded (1);
  readout = nb_data_view_describe_point (view, 3, 7);
  g_assert_nonnull (strstr (readout, "grad = 3007"));
}

static void
test_progressive (void)
{
  g_autofree char *png = artifact ("dataview-big.png");
  g_autoptr(GError) error = NULL;
  g_autofree char *readout = NULL;
  cairo_surface_t *surface;
  guint8 got[3], want[3];
  int px, py;

  /* decimated first, then the full picture */
  reset_counts ();
  nb_data_view_set_variable (view, variable ("big"));
  g_assert_true (nb_data_view_is_loading (view));
  wait_loaded (1);
  g_assert_cmpuint (n_loaded, ==, 1);
  g_assert_cmpuint (n_preview, ==, 1);
  g_assert_cmpuint (n_full, ==, 1);

  /* the slice changes twice while the reads run: only the last one is
   * shown, once */
  reset_counts ();
  nb_data_view_set_index (view, 0, 1);
  g_assert_true (nb_data_view_is_loading (view));
  spin (2);
  nb_data_view_set_index (view, 0, 2);
  wait_loaded (1);
  spin (200);
  g_assert_cmpuint (n_loaded, ==, 1);
  g_assert_cmpuint (n_failed, ==, 0);
  g_assert_cmpuint (n_full, ==, 1);
  readout = nb_data_view_describe_point (view, 600, 700);
  g_assert_nonnull (strstr (readout, "big = 21300"));

  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  cell_position (1200, 600, 700, &px, &py);
  get_pixel (surface, px, py, got);
  expected_rgb (21300, want);
  g_assert_true (pixel_close (got, want, 3));
  cairo_surface_destroy (surface);

  /* play: the index moves on by itself, the reads follow */
  reset_counts ();
  nb_data_view_set_playing (view, TRUE);
  g_assert_true (nb_data_view_get_playing (view));
  spin (700);
  nb_data_view_set_playing (view, FALSE);
  wait_loaded (1);
  g_assert_cmpuint (n_failed, ==, 0);
}

/* A store that waits before each read: the slice changes while the
 * reads of the previous ones are in flight */
static void
test_slow_store (void)
{
#ifdef NB_HAVE_LATENCY_STORE
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("file://%s/view.zarr#mode=nczarr,file&store=slowfile&latency_ms=40",
                                          scratch);
  g_autoptr(NczDataset) slow = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_autofree char *readout = NULL;
  g_autofree char *png = artifact ("dataview-slow.png");
  cairo_surface_t *surface;
  guint8 got[3], want[3];
  int px, py;

  g_assert_no_error (error);
  reset_counts ();
  nb_data_view_set_variable (view, ncz_group_get_variable (ncz_dataset_get_root_group (slow), "grad"));
  spin (30);
  g_assert_true (nb_data_view_is_loading (view));
  nb_data_view_set_index (view, 0, 1);
  spin (30);
  nb_data_view_set_index (view, 0, 3);
  wait_loaded (1);
  spin (300);
  /* one picture, of t = 3, and no error */
  g_assert_cmpuint (n_loaded, ==, 1);
  g_assert_cmpuint (n_full, ==, 1);
  g_assert_cmpuint (n_failed, ==, 0);
  readout = nb_data_view_describe_point (view, 5, 5);
  g_assert_nonnull (strstr (readout, "grad = 3055"));
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  cell_position (30, 5, 5, &px, &py);
  get_pixel (surface, px, py, got);
  expected_rgb (3055, want);
  g_assert_true (pixel_close (got, want, 2));
  cairo_surface_destroy (surface);
  nb_data_view_set_variable (view, NULL);
#else
  g_test_skip ("no latency store in this build");
#endif
}

static void
test_plot (void)
{
  g_autofree char *png = artifact ("dataview-plot.png");
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  guint n_blue = 0;

  reset_counts ();
  nb_data_view_set_variable (view, variable ("line"));
  wait_loaded (1);
  g_assert_cmpstr (nb_data_view_get_page (view), ==, "plot");
  g_assert_cmpuint (nb_plot_view_get_n_points (NB_PLOT_VIEW (nb_data_view_get_plot_view (view))), ==, 200);
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  for (int y = 0; y < cairo_image_surface_get_height (surface); y++)
    for (int x = 0; x < cairo_image_surface_get_width (surface); x++)
      {
        guint8 p[3];
        get_pixel (surface, x, y, p);
        if (p[2] > 180 && p[0] < 80)
          n_blue++;
      }
  /* a line was drawn */
  g_assert_cmpuint (n_blue, >, 300);
  cairo_surface_destroy (surface);
}

static void
test_table (void)
{
  GListModel *model;
  g_autoptr(NbValueRow) row = NULL;
  g_autoptr(NbValueRow) nan_row = NULL;
  g_autofree char *png = artifact ("dataview-table.png");
  g_autoptr(GError) error = NULL;

  reset_counts ();
  nb_data_view_set_variable (view, variable ("grad"));
  wait_loaded (1);
  reset_counts ();
  nb_data_view_set_index (view, 0, 1);
  nb_data_view_set_page (view, "table");
  wait_loaded (1);
  model = nb_table_view_get_model (NB_TABLE_VIEW (nb_data_view_get_table_view (view)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 30 * 40);
  screenshot ("dataview-window-table.png");
  row = g_list_model_get_item (model, 10 * 40 + 5);
  g_assert_cmpstr (nb_value_row_get_index_text (row), ==, "[1, 10, 5]");
  g_assert_cmpstr (nb_value_row_get_value_text (row), ==, "1105");
  nan_row = g_list_model_get_item (model, 2 * 40 + 3);
  g_assert_cmpstr (nb_value_row_get_value_text (nan_row), ==, "missing");
  g_assert_null (g_list_model_get_item (model, 30 * 40));
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
}

static void
test_chunks (void)
{
  g_autofree char *png = artifact ("dataview-chunks.png");
  g_autoptr(GError) error = NULL;
  NbChunkMap *map = NB_CHUNK_MAP (nb_data_view_get_chunk_map (view));
  NbChunkCell cell;
  guint n_stored, n_missing;

  reset_counts ();
  nb_data_view_set_variable (view, variable ("sparse"));
  wait_loaded (1);
  reset_counts ();
  nb_data_view_set_page (view, "chunks");
  wait_loaded (1);
  screenshot ("dataview-window-chunks.png");
  nb_chunk_map_get_counts (map, &n_stored, &n_missing);
  g_assert_cmpuint (n_stored, ==, 3);
  g_assert_cmpuint (n_missing, ==, 13);
  g_assert_true (nb_chunk_map_get_cell (map, 1, 2, &cell));
  g_assert_true (cell.stored);
  /* a constant chunk compresses */
  g_assert_cmpfloat (cell.ratio, >, 0);
  g_assert_cmpfloat (cell.ratio, <, 0.5);
  g_assert_true (nb_chunk_map_get_cell (map, 2, 2, &cell));
  g_assert_false (cell.stored);
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
}


/* Zoomed in 8x on a slice shown decimated (the whole slice is above the
 * view's full-resolution limit): only the visible window is read, at
 * one value per cell, and drawn over the picture */
static void
test_zoom_window (void)
{
  g_autofree char *png = artifact ("dataview-zoom.png");
  g_autoptr(GError) error = NULL;
  g_autofree char *readout = NULL;
  NbImageView *image = NB_IMAGE_VIEW (nb_data_view_get_image_view (view));
  guint64 reads0, values0, reads1, values1;
  gint64 deadline;
  cairo_surface_t *surface;
  guint8 got[3], want[3];
  int px, py;

  reset_counts ();
  n_detail = 0;
  nb_data_view_set_full_limit (view, 65536);
  nb_data_view_set_variable (view, variable ("big"));
  wait_loaded (1);
  g_assert_false (nb_image_view_has_detail (image));
  /* the picture is decimated: a value is that of its block's corner */
  readout = nb_data_view_describe_point (view, 1151, 53);
  g_assert_null (strstr (readout, "big = 1204 "));
  g_clear_pointer (&readout, g_free);
  nb_data_view_get_read_counts (view, &reads0, &values0);

  /* 8x into the top-left corner (rows near the top, as y is drawn
   * upwards) */
  nb_image_view_set_zoom (image, 8, 1600 / 16.0, 1200 / 16.0);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (n_detail == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  spin (100);
  g_assert_cmpuint (n_detail, ==, 1);
  g_assert_true (nb_image_view_has_detail (image));
  nb_data_view_get_read_counts (view, &reads1, &values1);
  g_assert_cmpuint (reads1 - reads0, ==, 1);
  /* about the visible eighth of each side: far fewer values than the
   * slice's 1200 x 1600 */
  g_assert_cmpuint (values1 - values0, >, 0);
  g_assert_cmpuint (values1 - values0, <=, 1200 * 1600 / 32);

  /* full resolution there: every cell has its own value */
  for (guint64 row = 1140; row < 1160; row += 7)
    for (guint64 col = 40; col < 70; col += 9)
      {
        g_autofree char *want_text = g_strdup_printf ("big = %" G_GUINT64_FORMAT " ", row + col);
        g_autofree char *text = nb_data_view_describe_point (view, row, col);
        g_assert_nonnull (strstr (text, want_text));
      }
  g_assert_true (nb_data_view_export_png (view, png, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (png);
  for (guint64 row = 1150; row < 1190; row += 13)
    for (guint64 col = 20; col < 100; col += 17)
      {
        cell_position (1200, row, col, &px, &py);
        get_pixel (surface, px, py, got);
        expected_rgb ((double) (row + col), want);
        g_assert_true (pixel_close (got, want, 3));
      }
  cairo_surface_destroy (surface);

  /* panning reads the new window instead, the old one is dropped */
  n_detail = 0;
  nb_image_view_set_zoom (image, 8, 1600 / 16.0 + 100, 1200 / 16.0);
  nb_image_view_set_zoom (image, 8, 1600 / 16.0 + 200, 1200 / 16.0);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (n_detail == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  spin (200);
  g_assert_cmpuint (n_detail, ==, 1);
  readout = nb_data_view_describe_point (view, 1151, 253);
  g_assert_nonnull (strstr (readout, "big = 1404 "));

  /* back to zoom 1: no window */
  nb_image_view_reset_zoom (image);
  spin (200);
  g_assert_false (nb_image_view_has_detail (image));
  nb_data_view_set_full_limit (view, 1u << 25);
  nb_data_view_set_variable (view, NULL);
}

/* The view fits in a narrow pane: its minimum width with a 3-D variable
 * (axis choosers and a slider shown) is at most 640 px; in a 600-px
 * window nothing is cut */
static void
test_narrow (void)
{
  g_autofree char *png = NULL;
  int min = 0, nat = 0;

  reset_counts ();
  nb_data_view_set_variable (view, variable ("grad"));
  wait_loaded (1);
  gtk_widget_measure (GTK_WIDGET (view), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_test_message ("data view: minimum width %d, natural %d", min, nat);
  g_assert_cmpint (min, <=, 640);

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 520);
  spin (400);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), <=, 600);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), >=, min);
  png = artifact ("dataview-narrow.png");
  screenshot ("dataview-narrow.png");
  g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  spin (300);
  nb_data_view_set_variable (view, NULL);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GDK_BACKEND", "x11", FALSE);
  g_setenv ("GTK_A11Y", "none", FALSE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* GTK warns when there is no session bus under Xvfb: criticals stay
   * fatal, warnings do not */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_FATAL_MASK);
  if (!gtk_init_check ())
    {
      g_printerr ("no display\n");
      return 77;
    }
  scratch = g_dir_make_tmp ("nb-dataview-XXXXXX", &error);
  g_assert_no_error (error);
  make_dataset ();
  dataset = ncz_dataset_open (dataset_url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);

  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  view = NB_DATA_VIEW (nb_data_view_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  g_signal_connect (view, "loaded", G_CALLBACK (on_loaded), NULL);
  g_signal_connect (view, "load-failed", G_CALLBACK (on_failed), NULL);
  g_signal_connect (view, "picture-updated", G_CALLBACK (on_picture), NULL);
  g_signal_connect (view, "detail-shown", G_CALLBACK (on_detail), NULL);
  gtk_window_present (GTK_WINDOW (window));
  spin (300);
  updates = g_ptr_array_new ();

  g_test_add_func ("/browser-dataview/image", test_image);
  g_test_add_func ("/browser-dataview/progressive", test_progressive);
  g_test_add_func ("/browser-dataview/slow-store", test_slow_store);
  g_test_add_func ("/browser-dataview/plot", test_plot);
  g_test_add_func ("/browser-dataview/table", test_table);
  g_test_add_func ("/browser-dataview/chunks", test_chunks);
  g_test_add_func ("/browser-dataview/zoom-window", test_zoom_window);
  g_test_add_func ("/browser-dataview/narrow", test_narrow);
  status = g_test_run ();

  nb_data_view_set_variable (view, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (100);
  g_clear_object (&dataset);
  g_ptr_array_unref (updates);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", scratch);
    g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL));
  }
  g_free (scratch);
  g_free (dataset_url);
  return status;
}
