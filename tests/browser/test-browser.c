/* test-browser.c: Ncz Browser driven through its own GActions, in-process,
 * under Xvfb with the cairo renderer. Each test opens datasets (made here
 * with the library, or from the netcdf-c corpus), checks the structure
 * tree and the details against the model, and renders the window to a PNG
 * in NB_TEST_OUTPUT_DIR. */
#include <ncz/ncz.h>
#include <glib/gstdio.h>
#include <string.h>

#include "nb-application.h"
#include "nb-window.h"
#ifdef NB_HAVE_DATAVIEW
#include "nb-data-view.h"
#endif

static NbApplication *app;
static char *workdir;

/* ---- main loop helpers ---- */

static gboolean
timed_out_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main loop until cond is true; a guard of a minute turns a
 * hang into a failure (no test checks a duration) */
static void
wait_until (gboolean (*cond) (gpointer), gpointer data)
{
  gboolean timed_out = FALSE;
  guint guard = g_timeout_add_seconds (60, timed_out_cb, &timed_out);
  while (!cond (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (guard);
  g_assert_false (timed_out);
}

static gboolean
frames_done (gpointer data)
{
  return *(int *) data <= 0;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  int *left = data;
  if (--*left <= 0)
    return G_SOURCE_REMOVE;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

/* lets the window lay out and draw a few frames */
static void
settle (NbWindow *win)
{
  int left = 4;
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  gtk_widget_add_tick_callback (GTK_WIDGET (win), count_frame, &left, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (win));
  wait_until (frames_done, &left);
}

static void
activate (NbWindow *win, const char *action, GVariant *param)
{
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (win), action));
  g_action_group_activate_action (G_ACTION_GROUP (win), action, param);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
view_idle (gpointer data)
{
#ifdef NB_HAVE_DATAVIEW
  return !nb_data_view_is_loading (NB_DATA_VIEW (nb_window_get_data_view (data)));
#else
  return TRUE;
#endif
}

static char *
screenshot (NbWindow *win, const char *name)
{
  const char *dir = g_getenv ("NB_TEST_OUTPUT_DIR");
  char *path = g_strdup_printf ("%s/%s.png", dir ? dir : workdir, name);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;

  wait_until (view_idle, win);
  settle (win);
  g_remove (path);
  activate (win, "screenshot", g_variant_new_string (path));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  texture = gdk_texture_new_from_filename (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, gtk_widget_get_width (GTK_WIDGET (win)));
  g_assert_cmpint (gdk_texture_get_height (texture), ==, gtk_widget_get_height (GTK_WIDGET (win)));
  g_test_message ("window rendered to %s", path);
  return path;
}

/* ---- windows ---- */

static void
close_windows (void)
{
  GList *windows;
  while ((windows = gtk_application_get_windows (GTK_APPLICATION (app))))
    gtk_window_destroy (windows->data);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
is_mapped (gpointer win)
{
  return gtk_widget_get_mapped (win) && gtk_widget_get_width (win) > 0;
}

static NbWindow *
new_window_sized (int width, int height)
{
  NbWindow *win;
  close_windows ();
  win = nb_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (win), width, height);
  gtk_window_present (GTK_WINDOW (win));
  wait_until (is_mapped, win);
  return win;
}

static NbWindow *
new_window (void)
{
  /* room for the tree, the data and the details side by side */
  return new_window_sized (1720, 940);
}

typedef struct
{
  gboolean done;
  GError *error;
} OpenResult;

static void
on_open_finished (NbWindow *win, GError *error, OpenResult *r)
{
  r->done = TRUE;
  g_clear_error (&r->error);
  r->error = error ? g_error_copy (error) : NULL;
}

static gboolean
open_done (gpointer data)
{
  return ((OpenResult *) data)->done;
}

/* opens url through app.open and waits for the window's answer; returns
 * the window that opened it */
static NbWindow *
open_url_in (NbWindow *win, const char *url, GError **error)
{
  OpenResult r = { 0 };
  gulong id = g_signal_connect (win, "open-finished", G_CALLBACK (on_open_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (app), "open", g_variant_new_string (url));
  /* the active window shows no dataset: the app opens there */
  g_assert_true (gtk_application_get_active_window (GTK_APPLICATION (app)) == GTK_WINDOW (win));
  wait_until (open_done, &r);
  g_signal_handler_disconnect (win, id);
  if (r.error)
    g_propagate_error (error, r.error);
  return win;
}

static NbWindow *
open_url (const char *url, GError **error)
{
  return open_url_in (new_window (), url, error);
}

/* the full names of the tree's rows, one per line */
static char *
tree_rows (NbWindow *win)
{
  GListModel *model = nb_window_get_tree_model (win);
  GString *s = g_string_new (NULL);
  guint i, n = g_list_model_get_n_items (model);
  for (i = 0; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(GObject) node = gtk_tree_list_row_get_item (row);
      g_autofree char *name = NCZ_IS_GROUP (node) ? ncz_group_get_full_name (NCZ_GROUP (node))
                                                  : ncz_variable_get_full_name (NCZ_VARIABLE (node));
      g_string_append_printf (s, "%s\n", name);
    }
  return g_string_free (s, FALSE);
}

static void
assert_tree_has (NbWindow *win, const char *const *names)
{
  g_autofree char *rows = tree_rows (win);
  for (; *names; names++)
    {
      g_autofree char *line = g_strdup_printf ("%s\n", *names);
      if (!strstr (rows, line))
        g_error ("the tree has no row %s; it has:\n%s", *names, rows);
    }
}

static gboolean
details_idle (gpointer win)
{
  return !nb_details_is_busy (nb_window_get_details (win));
}

/* the text of a detail once the stored size has been counted */
static char *
detail (NbWindow *win, const char *key)
{
  wait_until (details_idle, win);
  return nb_details_dup_text (nb_window_get_details (win), key);
}

#define assert_detail(win, key, expected) G_STMT_START {        \
    g_autofree char *_t = detail (win, key);                    \
    g_assert_cmpstr (_t, ==, expected);                         \
  } G_STMT_END

#define assert_detail_contains(win, key, expected) G_STMT_START {       \
    g_autofree char *_t = detail (win, key);                            \
    if (!_t || !strstr (_t, expected))                                  \
      g_error ("detail %s is “%s”, without “%s”", key, _t, expected);   \
  } G_STMT_END

static void
select_node (NbWindow *win, const char *full_name)
{
  GObject *node;
  g_autofree char *got = NULL;
  activate (win, "select", g_variant_new_string (full_name));
  node = nb_window_get_selected (win);
  g_assert_nonnull (node);
  got = NCZ_IS_GROUP (node) ? ncz_group_get_full_name (NCZ_GROUP (node))
                            : ncz_variable_get_full_name (NCZ_VARIABLE (node));
  g_assert_cmpstr (got, ==, full_name);
}

/* ---- datasets made with the library ---- */

#define NT 4
#define NY 20
#define NX 30

/* root: dims time, y, x; temperature(time, y, x) float, lat(y) double;
 * group forecast: pressure(y, x) int with deflate, attributes */
static void
make_dataset (const char *url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root, *fc;
  NczDimension *dims[3];
  NczVariable *temp, *lat, *pres;
  guint64 chunks3[] = { 1, 10, 15 }, chunks2[] = { 10, 15 };
  g_autofree float *t = g_new (float, NT * NY * NX);
  g_autofree int *p = g_new (int, NY * NX);
  double latv[NY];
  guint64 start[3] = { 0 }, count[3] = { NT, NY, NX };
  float fill = -999.0f;
  g_autoptr(GBytes) fillb = g_bytes_new (&fill, sizeof fill);
  g_autoptr(NczAttribute) units = ncz_attribute_new_text ("units", "K", -1);
  g_autoptr(NczAttribute) title = ncz_attribute_new_text ("title", "Browser test dataset", -1);
  g_autoptr(NczAttribute) punits = ncz_attribute_new_text ("units", "hPa", -1);
  guint i;

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dims[0] = ncz_group_add_dimension (root, "time", NT, FALSE, &error);
  g_assert_no_error (error);
  dims[1] = ncz_group_add_dimension (root, "y", NY, FALSE, &error);
  g_assert_no_error (error);
  dims[2] = ncz_group_add_dimension (root, "x", NX, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_group_set_attribute (root, title, &error));

  temp = ncz_group_add_variable (root, "temperature", NCZ_DATA_TYPE_FLOAT, 3, dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (temp, chunks3, 3, &error));
  g_assert_true (ncz_variable_set_fill_value (temp, fillb, &error));
  g_assert_true (ncz_variable_set_attribute (temp, units, &error));
  lat = ncz_group_add_variable (root, "lat", NCZ_DATA_TYPE_DOUBLE, 1, &dims[1], &error);
  g_assert_no_error (error);

  fc = ncz_group_add_group (root, "forecast", &error);
  g_assert_no_error (error);
  pres = ncz_group_add_variable (fc, "pressure", NCZ_DATA_TYPE_INT, 2, &dims[1], &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (pres, chunks2, 2, &error));
  g_assert_true (ncz_variable_set_deflate (pres, TRUE, TRUE, 4, &error));
  g_assert_true (ncz_variable_set_attribute (pres, punits, &error));

  for (i = 0; i < NT * NY * NX; i++)
    t[i] = 250.0f + (float) (i % NX) + (float) ((i / NX) % NY) * 0.5f + (float) (i / (NX * NY));
  /* a block of missing values */
  for (i = 0; i < NT * NY * NX; i++)
    if ((i / NX) % NY >= 5 && (i / NX) % NY < 9 && i % NX >= 4 && i % NX < 10)
      t[i] = fill;
  for (i = 0; i < NY * NX; i++)
    p[i] = 1000 + (int) i;
  for (i = 0; i < NY; i++)
    latv[i] = -45.0 + 5.0 * i;
  g_assert_true (ncz_variable_read != NULL);
  g_assert_true (ncz_variable_write (temp, start, 3, count, 3, NULL, 0, t, sizeof (float) * NT * NY * NX, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_variable_write (lat, start, 1, &count[1], 1, NULL, 0, latv, sizeof latv, NULL, &error));
  g_assert_true (ncz_variable_write (pres, start, 2, &count[1], 2, NULL, 0, p, sizeof (int) * NY * NX, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

static const char *const made_names[] = {
  "/", "/forecast", "/forecast/pressure", "/temperature", "/lat", NULL
};

static void
check_made (NbWindow *win, const char *kind)
{
  g_autofree char *shot = g_strdup_printf ("made-%s", kind);
  g_autofree char *shot2 = g_strdup_printf ("made-%s-group", kind);
  g_autofree char *path = NULL;

  g_assert_nonnull (nb_window_get_dataset (win));
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "browser");
  assert_tree_has (win, made_names);

  /* the root group is selected on open */
  assert_detail (win, "kind", "Root group");
  assert_detail (win, "title", "Root Group");
  {
    g_autofree char *format = detail (win, "format");
    const char *expected = g_str_equal (kind, "zarr") ? "zarr" : g_str_equal (kind, "netcdf4") ? "hdf5" : "nczarr";
    g_assert_cmpstr (format, ==, expected);
  }
  assert_detail_contains (win, "attributes", "title = ");
  assert_detail_contains (win, "attributes", "Browser test dataset");
  assert_detail_contains (win, "dimension-list", "time");

  select_node (win, "/forecast/pressure");
  assert_detail (win, "title", "pressure");
  assert_detail (win, "type", "int");
  assert_detail (win, "shape", "20 × 30");
  assert_detail (win, "dimensions", "y = 20, x = 30");
  assert_detail (win, "chunks", "10 × 15");
  assert_detail (win, "elements", "600");
  assert_detail_contains (win, "attributes", "hPa");
  assert_detail_contains (win, "filters", "1");   /* deflate, HDF5 filter 1 */
  {
    /* 600 ints, as GLib writes sizes, in 4 chunks all written */
    g_autofree char *raw = g_format_size_full (600 * 4, G_FORMAT_SIZE_IEC_UNITS);
    g_autofree char *of_raw = g_strdup_printf (" of %s (", raw);
    g_autofree char *filters = detail (win, "filters");
    g_test_message ("pressure: filters %s", filters);
    assert_detail_contains (win, "storage", of_raw);
    assert_detail_contains (win, "storage", "4 of 4 chunks stored");
    /* shuffle then deflate, each provided by a plugin */
    assert_detail_contains (win, "filters", "HDF5 filter 2");
    assert_detail_contains (win, "filters", "HDF5 filter 1");
    g_assert_null (strstr (filters, "not available"));
  }

  select_node (win, "/temperature");
  assert_detail (win, "type", "float");
  assert_detail (win, "shape", "4 × 20 × 30");
  assert_detail (win, "chunks", "1 × 10 × 15");
  assert_detail (win, "fill-value", "-999");
  assert_detail_contains (win, "storage", "16 of 16 chunks stored");
  path = screenshot (win, shot);

  select_node (win, "/forecast");
  assert_detail (win, "kind", "Group");
  assert_detail (win, "contents", "1 variable, 0 groups");
  g_free (screenshot (win, shot2));
}

static void
test_made (gconstpointer data)
{
  const char *kind = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  NbWindow *win;

  if (g_str_equal (kind, "nczarr"))
    url = g_strdup_printf ("file://%s/test.nczarr#mode=nczarr,file", workdir);
  else if (g_str_equal (kind, "zarr"))
    url = g_strdup_printf ("file://%s/test.zarr#mode=zarr,file", workdir);
  else if (g_str_equal (kind, "zip"))
    url = g_strdup_printf ("file://%s/test.zip#mode=nczarr,zip", workdir);
  else
    url = g_strdup_printf ("%s/test.nc", workdir);
  make_dataset (url);
  win = open_url (url, &error);
  g_assert_no_error (error);
  check_made (win, kind);
  close_windows ();
}

/* ---- the netcdf-c corpus ---- */

static char *
corpus_path (const char *rel)
{
  const char *dir = g_getenv ("NCZ_CORPUS_DIR");
  char *path = g_build_filename (dir ? dir : ".", "netcdf-c", rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip_printf ("no %s", path);
      g_free (path);
      return NULL;
    }
  return path;
}

static char *
unzip_corpus (const char *rel, const char *subdir)
{
  g_autofree char *archive = corpus_path (rel);
  g_autofree char *dest = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  if (!archive)
    return NULL;
  dest = g_build_filename (workdir, "corpus", NULL);
  {
    const char *argv[] = { "unzip", "-q", "-o", archive, "-d", dest, NULL };
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error))
      {
        g_test_skip_printf ("cannot run unzip: %s", error->message);
        return NULL;
      }
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_build_filename (dest, subdir, NULL);
}

static void
test_corpus_nczarr (void)
{
  g_autofree char *dir = unzip_corpus ("v4.9.3/ref_oldformat.zip", "ref_oldformat");
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  const char *const names[] = { "/", "/g1", "/lat", "/g1/pos", NULL };
  NbWindow *win;
  if (!dir)
    return;
  url = g_strdup_printf ("file://%s#mode=nczarr,file", dir);
  win = open_url (url, &error);
  g_assert_no_error (error);
  assert_tree_has (win, names);
  select_node (win, "/g1/pos");
  assert_detail_contains (win, "dimensions", "_Anonymous_Dim_10");
  g_free (screenshot (win, "corpus-nczarr-oldformat"));
  close_windows ();
}

static void
test_corpus_zarr (void)
{
  g_autofree char *dir = unzip_corpus ("v4.9.3/ref_byte.zarr.zip", "ref_byte.zarr");
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  const char *const names[] = { "/", "/byte", NULL };
  NbWindow *win;
  if (!dir)
    return;
  url = g_strdup_printf ("file://%s#mode=zarr,file", dir);
  win = open_url (url, &error);
  g_assert_no_error (error);
  assert_tree_has (win, names);
  select_node (win, "/byte");
  assert_detail (win, "type", "ubyte");
  assert_detail (win, "shape", "20 × 20");
  g_free (screenshot (win, "corpus-zarr-byte"));
  close_windows ();
}

static void
test_corpus_netcdf4 (void)
{
  g_autofree char *path = corpus_path ("v4.9.3/ref_groups.h5");
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) direct = NULL;
  NbWindow *win;
  GPtrArray *groups;
  if (!path)
    return;
  win = open_url (path, &error);
  g_assert_no_error (error);
  /* every subgroup and variable of the root has its row */
  direct = ncz_dataset_open (path, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  groups = ncz_group_get_groups (ncz_dataset_get_root_group (direct));
  g_assert_cmpuint (groups->len, >, 0);
  for (guint i = 0; i < groups->len; i++)
    {
      g_autofree char *name = ncz_group_get_full_name (groups->pdata[i]);
      const char *const names[] = { name, NULL };
      assert_tree_has (win, names);
      if (i == 0)
        {
          select_node (win, name);
          assert_detail (win, "kind", "Group");
        }
    }
  g_ptr_array_unref (groups);
  g_free (screenshot (win, "corpus-netcdf4-groups"));
  close_windows ();
}

/* a pure Zarr store whose compressor no plugin provides: it opens (the
 * metadata are readable) and the details say which codec is missing */
static void
test_missing_codec (void)
{
  g_autofree char *dir = g_build_filename (workdir, "nocodec.zarr", NULL);
  g_autofree char *var = g_build_filename (dir, "v", NULL);
  g_autofree char *zgroup = g_build_filename (dir, ".zgroup", NULL);
  g_autofree char *zarray = g_build_filename (var, ".zarray", NULL);
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  NbWindow *win;

  g_assert_cmpint (g_mkdir_with_parents (var, 0755), ==, 0);
  g_assert_true (g_file_set_contents (zgroup, "{\"zarr_format\": 2}", -1, NULL));
  g_assert_true (g_file_set_contents (zarray,
                                      "{\"zarr_format\": 2, \"shape\": [6, 8], \"chunks\": [3, 4], "
                                      "\"dtype\": \"<f4\", \"compressor\": {\"id\": \"nosuchcodec\"}, "
                                      "\"fill_value\": \"NaN\", \"filters\": null, \"order\": \"C\"}", -1, NULL));
  url = g_strdup_printf ("file://%s#mode=zarr,file", dir);
  win = open_url (url, &error);
  g_assert_no_error (error);
  select_node (win, "/v");
  assert_detail_contains (win, "filters", "nosuchcodec");
  assert_detail_contains (win, "filters", "not available");
  assert_detail_contains (win, "storage", "nothing stored");
  g_free (screenshot (win, "missing-codec"));
  close_windows ();
}

/* ---- failures ---- */

static void
check_failure (const char *url, const char *shot)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) direct_error = NULL;
  g_autoptr(NczDataset) direct = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &direct_error);
  GListModel *toplevels;
  NbWindow *win = open_url (url, &error);
  guint i, n_windows = 0;

  g_assert_null (direct);
  g_assert_nonnull (error);
  /* the library's message, shown in the window and no modal dialog */
  g_assert_cmpstr (error->message, ==, direct_error->message);
  g_assert_cmpstr (nb_window_get_error_message (win), ==, direct_error->message);
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "error");
  g_assert_null (nb_window_get_dataset (win));
  toplevels = gtk_window_get_toplevels ();
  for (i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (gtk_widget_get_visible (w))
        n_windows++;
    }
  g_assert_cmpuint (n_windows, ==, 1);
  g_free (screenshot (win, shot));
}

static void
test_open_missing (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/no-such-store.zarr#mode=nczarr,file", workdir);
  check_failure (url, "error-missing");
  close_windows ();
}

static void
test_open_unknown_mode (void)
{
  /* a storage mode the library does not know */
  g_autofree char *url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,nosuchstore", workdir);
  check_failure (url, "error-mode");
  close_windows ();
}

static void
test_open_bad_url (void)
{
  g_autofree char *url = g_strdup_printf ("nosuchscheme://%s/x.zarr#mode=nczarr,file", workdir);
  check_failure (url, "error-url");
  close_windows ();
}

static void
test_open_failed_keeps_dataset (void)
{
  /* a failed open in a window showing a dataset keeps the dataset and
   * says why in a toast */
  g_autofree char *good = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
  g_autofree char *bad = g_strdup_printf ("file://%s/absent.zarr#mode=nczarr,file", workdir);
  g_autoptr(GError) error = NULL;
  NbWindow *win = open_url (good, &error);
  OpenResult r = { 0 };
  NczDataset *before;
  g_assert_no_error (error);
  before = nb_window_get_dataset (win);
  g_signal_connect (win, "open-finished", G_CALLBACK (on_open_finished), &r);
  nb_window_open (win, bad);
  wait_until (open_done, &r);
  g_assert_nonnull (r.error);
  g_assert_true (nb_window_get_dataset (win) == before);
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "browser");
  g_assert_cmpstr (nb_window_get_error_message (win), ==, r.error->message);
  g_free (screenshot (win, "error-toast"));
  g_clear_error (&r.error);
  close_windows ();
}

static void
test_select_unknown (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
  g_autoptr(GError) error = NULL;
  NbWindow *win = open_url (url, &error);
  g_assert_no_error (error);
  select_node (win, "/temperature");
  activate (win, "select", g_variant_new_string ("/no/such/thing"));
  /* the selection stays, the failure is said */
  select_node (win, "/temperature");
  close_windows ();
}

/* ---- cancelling ---- */

static void
test_cancel_open (void)
{
  g_autofree char *url = NULL;
  NbWindow *win = new_window ();
  OpenResult r = { 0 };
  g_autoptr(NczDataset) probe = NULL;

  if (g_getenv ("NB_TEST_HAVE_LATENCY_STORE"))
    url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file&store=slowfile&latency_ms=400", workdir);
  else
    url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
  g_signal_connect (win, "open-finished", G_CALLBACK (on_open_finished), &r);
  activate (win, "cancel-open", NULL);          /* nothing to cancel: no effect */
  g_assert_false (r.done);
  nb_window_open (win, url);
  g_assert_true (nb_window_is_loading (win));
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "loading");
  /* with the slow store the open is still under way after the window has
   * drawn its opening page; without it, cancel at once (the main loop has
   * not run: the open cannot have been reported yet) */
  if (g_getenv ("NB_TEST_HAVE_LATENCY_STORE"))
    {
      g_free (screenshot (win, "opening"));
      g_assert_true (nb_window_is_loading (win));
    }
  activate (win, "cancel-open", NULL);
  g_assert_true (r.done);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&r.error);
  r.done = FALSE;
  /* whatever the cancelled open gives later is dropped: open the same
   * store again (it returns after the cancelled open's worker has had the
   * same time), then let the main loop deliver what is pending */
  probe = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, NULL);
  settle (win);
  g_assert_false (r.done);
  g_assert_false (nb_window_is_loading (win));
  g_assert_null (nb_window_get_dataset (win));
  g_assert_null (nb_window_get_error_message (win));
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "empty");
  g_free (screenshot (win, "cancelled"));
  close_windows ();
}

/* ---- data controls ---- */

static void
test_data_actions (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
  g_autoptr(GError) error = NULL;
  NbWindow *win = open_url (url, &error);
  g_autoptr(GVariant) state = NULL;
  g_assert_no_error (error);

  select_node (win, "/temperature");
  activate (win, "set-page", g_variant_new_string ("table"));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "set-page");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "table");
  g_clear_pointer (&state, g_variant_unref);
  activate (win, "set-page", g_variant_new_string ("no-such-page"));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "set-page");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "table");
  g_clear_pointer (&state, g_variant_unref);
  activate (win, "set-page", g_variant_new_string ("image"));

  activate (win, "set-colormap", g_variant_new_string ("balance"));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "set-colormap");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "balance");
  g_clear_pointer (&state, g_variant_unref);

  activate (win, "set-axes", g_variant_new ("(uu)", 2, 1));   /* transposed */
  activate (win, "set-axes", g_variant_new ("(uu)", 1, 1));   /* invalid: ignored */
  activate (win, "set-axes", g_variant_new ("(uu)", 7, 0));   /* invalid: ignored */
  activate (win, "set-index", g_variant_new ("(ut)", 0, (guint64) 2));
  activate (win, "set-index", g_variant_new ("(ut)", 9, (guint64) 2));  /* no such slider */
#ifdef NB_HAVE_DATAVIEW
  g_assert_true (nb_data_view_get_variable (NB_DATA_VIEW (nb_window_get_data_view (win))) ==
                 NCZ_VARIABLE (nb_window_get_selected (win)));
#endif
  g_free (screenshot (win, "temperature-transposed"));
  activate (win, "set-axes", g_variant_new ("(uu)", 1, 2));
  activate (win, "set-colormap", g_variant_new_string ("viridis"));

  activate (win, "play", g_variant_new_boolean (TRUE));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "play");
  g_assert_true (g_variant_get_boolean (state));
  g_clear_pointer (&state, g_variant_unref);
  activate (win, "play", g_variant_new_boolean (FALSE));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "play");
  g_assert_false (g_variant_get_boolean (state));
  g_clear_pointer (&state, g_variant_unref);

  /* a 2-D variable cannot play */
  select_node (win, "/forecast/pressure");
  activate (win, "play", g_variant_new_boolean (TRUE));
  state = g_action_group_get_action_state (G_ACTION_GROUP (win), "play");
  g_assert_false (g_variant_get_boolean (state));
  g_clear_pointer (&state, g_variant_unref);
  g_free (screenshot (win, "pressure"));
  close_windows ();
}

/* a 1280x800 window, a common laptop size: the tree, the data view and
 * the details are all shown, side by side and not overlapping */
static void
test_layout_1280 (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
  g_autoptr(GError) error = NULL;
  NbWindow *win = open_url_in (new_window_sized (1280, 800), url, &error);
  GtkWidget *details, *view;
  graphene_rect_t d, v;

  g_assert_no_error (error);
  select_node (win, "/temperature");
  details = GTK_WIDGET (nb_window_get_details (win));
  view = nb_window_get_data_view (win);
  g_assert_true (gtk_widget_get_mapped (details));
  g_assert_true (gtk_widget_get_mapped (view));
  g_assert_true (gtk_widget_compute_bounds (details, GTK_WIDGET (win), &d));
  g_assert_true (gtk_widget_compute_bounds (view, GTK_WIDGET (win), &v));
  g_assert_cmpfloat (v.size.width, >=, 380);
  g_assert_cmpfloat (d.size.width, >=, 300);
  g_assert_cmpfloat (v.origin.x + v.size.width, <=, d.origin.x + 1);
  g_assert_cmpfloat (d.origin.x + d.size.width, <=, gtk_widget_get_width (GTK_WIDGET (win)) + 1);
  g_free (screenshot (win, "layout-1280"));
  close_windows ();
}

#ifdef NB_HAVE_DATAVIEW
static void
count_failed (GtkWidget *view, GError *error, int *n)
{
  (*n)++;
}

/* the selection changes while the view is reading from a slow store: the
 * first read is dropped, the second variable's picture is shown, and
 * nothing reports an error */
static void
test_select_during_slow_read (void)
{
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  NbWindow *win;
  NbDataView *view;
  int failed = 0;

  if (!g_getenv ("NB_TEST_HAVE_LATENCY_STORE"))
    {
      g_test_skip ("no slow store in this build");
      return;
    }
  url = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file&store=slowfile&latency_ms=300&latency_data_only=1", workdir);
  win = open_url (url, &error);
  g_assert_no_error (error);
  view = NB_DATA_VIEW (nb_window_get_data_view (win));
  g_signal_connect (view, "load-failed", G_CALLBACK (count_failed), &failed);
  /* both selections without the main loop running between them: the
   * first read cannot have been delivered when the second replaces it */
  g_action_group_activate_action (G_ACTION_GROUP (win), "select", g_variant_new_string ("/temperature"));
  g_assert_true (nb_data_view_is_loading (view));
  g_action_group_activate_action (G_ACTION_GROUP (win), "select", g_variant_new_string ("/forecast/pressure"));
  g_assert_true (nb_data_view_is_loading (view));
  g_assert_true (nb_data_view_get_variable (view) == NCZ_VARIABLE (nb_window_get_selected (win)));
  wait_until (view_idle, win);
  g_assert_true (nb_data_view_get_variable (view) == NCZ_VARIABLE (nb_window_get_selected (win)));
  g_assert_cmpint (failed, ==, 0);
  g_assert_null (nb_window_get_error_message (win));
  g_free (screenshot (win, "slow-reselected"));
  /* the current view exported */
  out = g_build_filename (workdir, "export.png", NULL);
  activate (win, "export", g_variant_new_string (out));
  g_assert_null (nb_window_get_error_message (win));
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
  close_windows ();
}
#endif

/* ---- drag and drop ---- */

static GtkDropTarget *
find_drop_target (NbWindow *win)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (win));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (c))
        return GTK_DROP_TARGET (c);
    }
  return NULL;
}

static void
drop_and_wait (NbWindow *win, const GValue *value, OpenResult *r)
{
  GtkDropTarget *target = find_drop_target (win);
  gboolean accepted = FALSE;
  g_assert_nonnull (target);
  r->done = FALSE;
  g_signal_emit_by_name (target, "drop", value, 10.0, 10.0, &accepted);
  g_assert_true (accepted);
  wait_until (open_done, r);
}

static void
test_drop (void)
{
  g_autofree char *dir = g_build_filename (workdir, "made.nczarr", NULL);
  g_autofree char *url = g_strdup_printf ("file://%s/made.zarr#mode=zarr,file", workdir);
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  NbWindow *win = new_window ();
  OpenResult r = { 0 };
  GValue value = G_VALUE_INIT;
  GSList *files = g_slist_prepend (NULL, file);

  g_signal_connect (win, "open-finished", G_CALLBACK (on_open_finished), &r);
  /* a folder from the file manager: the library finds the store in it */
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_set_boxed (&value, files);
  drop_and_wait (win, &value, &r);
  g_value_unset (&value);
  g_slist_free (files);
  g_assert_no_error (r.error);
  g_assert_nonnull (nb_window_get_dataset (win));
  assert_tree_has (win, made_names);

  /* a URL as text */
  g_value_init (&value, G_TYPE_STRING);
  g_value_set_string (&value, url);
  drop_and_wait (win, &value, &r);
  g_value_unset (&value);
  g_assert_no_error (r.error);
  g_assert_cmpstr (ncz_dataset_get_url_string (nb_window_get_dataset (win)), ==, url);
  close_windows ();
}

/* ---- the URL dialog ---- */

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (w))
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

static gboolean
has_dialog (gpointer data)
{
  return find_message_dialog () != NULL;
}

static void
test_open_url_dialog (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/made.zarr#mode=zarr,file", workdir);
  NbWindow *win = new_window ();
  OpenResult r = { 0 };
  AdwMessageDialog *dialog;
  GtkWidget *entry;

  g_signal_connect (win, "open-finished", G_CALLBACK (on_open_finished), &r);
  activate (win, "open-url", NULL);
  wait_until (has_dialog, NULL);
  dialog = find_message_dialog ();
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (win));
  entry = adw_message_dialog_get_extra_child (dialog);
  g_assert_true (GTK_IS_ENTRY (entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), url);
  settle (win);
  /* what its Open button does: the response, then the dialog closes */
  adw_message_dialog_response (dialog, "open");
  gtk_window_destroy (GTK_WINDOW (dialog));
  wait_until (open_done, &r);
  g_assert_no_error (r.error);
  g_assert_nonnull (nb_window_get_dataset (win));
  g_assert_cmpstr (ncz_dataset_get_url_string (nb_window_get_dataset (win)), ==, url);
  g_assert_null (find_message_dialog ());

  /* cancelled: nothing is opened */
  r.done = FALSE;
  activate (win, "open-url", NULL);
  wait_until (has_dialog, NULL);
  dialog = find_message_dialog ();
  adw_message_dialog_response (dialog, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  settle (win);
  g_assert_false (r.done);
  g_assert_null (find_message_dialog ());
  close_windows ();
}

/* ---- recent datasets ---- */

static void
test_recent (void)
{
  g_autofree char *url = g_strdup_printf ("file://%s/made.zarr#mode=zarr,file", workdir);
  g_autoptr(GError) error = NULL;
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items, *l;
  gboolean found = FALSE;
  NbWindow *win = open_url (url, &error);
  g_assert_no_error (error);
  items = gtk_recent_manager_get_items (manager);
  for (l = items; l; l = l->next)
    if (g_str_equal (gtk_recent_info_get_uri (l->data), url) &&
        gtk_recent_info_has_application (l->data, "ncz-browser"))
      found = TRUE;
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  g_assert_true (found);
  (void) win;
  /* a new window lists it on its empty page */
  win = new_window ();
  g_assert_cmpstr (nb_window_get_visible_page (win), ==, "empty");
  g_free (screenshot (win, "empty"));
  close_windows ();
}

/* ---- remote datasets (S3, HTTPS): named by the environment ---- */

/* the first variable of two dimensions among the tree's rows */
static char *
first_2d_variable (NbWindow *win)
{
  GListModel *model = nb_window_get_tree_model (win);
  guint i, n = g_list_model_get_n_items (model);
  for (i = 0; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(GObject) node = gtk_tree_list_row_get_item (row);
      guint n_dims = 0;
      g_autofree guint64 *shape = NULL;
      if (!NCZ_IS_VARIABLE (node))
        continue;
      shape = ncz_variable_get_shape (NCZ_VARIABLE (node), &n_dims);
      if (n_dims == 2)
        return ncz_variable_get_full_name (NCZ_VARIABLE (node));
    }
  return NULL;
}

#ifdef NB_HAVE_DATAVIEW
static void
count_loaded (GtkWidget *view, int *n)
{
  (*n)++;
}

static void
remember_failure (GtkWidget *view, GError *error, char **message)
{
  g_free (*message);
  *message = g_strdup (error ? error->message : "(no message)");
}

static gboolean
loaded_or_failed (gpointer data)
{
  gpointer *p = data;
  return *(int *) p[0] > 0 || *(char **) p[1] != NULL;
}
#endif

/* NCZ_BROWSER_TEST_URLS: remote URLs (one a line, or separated by
 * spaces), each opened through app.open; the tree must show every full
 * name of NCZ_BROWSER_TEST_VARIABLES (comma-separated, optional); the
 * variable NCZ_BROWSER_TEST_SELECT (or the first 2-D one of the tree) is
 * selected and its picture read; the window is rendered to
 * remote-N.png. tests/s3/test-s3-browser.py sets them. */
static void
test_remote (void)
{
  const char *urls_text = g_getenv ("NCZ_BROWSER_TEST_URLS");
  const char *vars_text = g_getenv ("NCZ_BROWSER_TEST_VARIABLES");
  const char *select_text = g_getenv ("NCZ_BROWSER_TEST_SELECT");
  g_auto(GStrv) urls = NULL;
  g_auto(GStrv) vars = NULL;
  guint i, n_opened = 0;

  if (!urls_text || !*urls_text)
    {
      g_test_skip ("no remote URLs (NCZ_BROWSER_TEST_URLS is not set)");
      return;
    }
  urls = g_regex_split_simple ("\\s+", urls_text, 0, 0);
  if (vars_text && *vars_text)
    vars = g_strsplit (vars_text, ",", -1);
  for (i = 0; urls[i]; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *shot = NULL;
      g_autofree char *name = NULL;
      g_autofree char *format = NULL;
      NbWindow *win;

      if (!*urls[i])
        continue;
      g_test_message ("opening %s", urls[i]);
      win = open_url (urls[i], &error);
      g_assert_no_error (error);
      g_assert_nonnull (nb_window_get_dataset (win));
      g_assert_cmpstr (nb_window_get_visible_page (win), ==, "browser");
      g_assert_null (nb_window_get_error_message (win));
      if (vars)
        assert_tree_has (win, (const char *const *) vars);
      /* the format the URL's mode asks for */
      format = detail (win, "format");
      if (strstr (urls[i], "mode=zarr"))
        g_assert_cmpstr (format, ==, "zarr");
      else if (strstr (urls[i], "mode=nczarr"))
        g_assert_cmpstr (format, ==, "nczarr");

      name = select_text && *select_text ? g_strdup (select_text) : first_2d_variable (win);
      if (!name)
        {
          g_autofree char *rows = tree_rows (win);
          g_error ("%s has no variable of two dimensions; the tree has:\n%s", urls[i], rows);
        }
#ifdef NB_HAVE_DATAVIEW
      {
        NbDataView *view = NB_DATA_VIEW (nb_window_get_data_view (win));
        int loaded = 0;
        g_autofree char *failure = NULL;
        gpointer both[2] = { &loaded, &failure };
        gulong a = g_signal_connect (view, "loaded", G_CALLBACK (count_loaded), &loaded);
        gulong b = g_signal_connect (view, "load-failed", G_CALLBACK (remember_failure), &failure);
        select_node (win, name);
        wait_until (loaded_or_failed, both);
        g_signal_handler_disconnect (view, a);
        g_signal_handler_disconnect (view, b);
        if (failure)
          g_error ("reading %s of %s failed: %s", name, urls[i], failure);
        g_assert_true (nb_data_view_get_variable (view) == NCZ_VARIABLE (nb_window_get_selected (win)));
      }
#else
      select_node (win, name);
#endif
      g_assert_null (nb_window_get_error_message (win));
      assert_detail_contains (win, "title", strrchr (name, '/') + 1);
      shot = g_strdup_printf ("remote-%u", n_opened);
      g_free (screenshot (win, shot));
      n_opened++;
    }
  g_assert_cmpuint (n_opened, >, 0);
  close_windows ();
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  if ((argc > 1 && g_str_equal (argv[1], "--no-display")) ||
      (!g_getenv ("DISPLAY") && !g_getenv ("WAYLAND_DISPLAY")))
    {
      g_print ("no display (xvfb-run not found): skipped\n");
      return 77;
    }
  g_test_init (&argc, &argv, NULL);
  workdir = g_dir_make_tmp ("ncz-browser-XXXXXX", &error);
  g_assert_no_error (error);
  /* private home and XDG user directories: the recent files, settings
   * and caches of the test are not the user's. XDG_DATA_DIRS stays: the
   * system's MIME database and icons are needed to draw. */
  {
    const char *vars[][2] = {
      { "HOME", "home" }, { "XDG_DATA_HOME", "home/.local/share" },
      { "XDG_CONFIG_HOME", "home/.config" }, { "XDG_CACHE_HOME", "home/.cache" },
      { "XDG_STATE_HOME", "home/.local/state" }, { "XDG_RUNTIME_DIR", "runtime" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
      {
        g_autofree char *dir = g_build_filename (workdir, vars[i][1], NULL);
        g_mkdir_with_parents (dir, 0700);
        g_setenv (vars[i][0], dir, TRUE);
      }
  }
  adw_init ();
  app = nb_application_new (G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));
  /* the stores the tests below share */
  {
    g_autofree char *nczarr = g_strdup_printf ("file://%s/made.nczarr#mode=nczarr,file", workdir);
    g_autofree char *zarr = g_strdup_printf ("file://%s/made.zarr#mode=zarr,file", workdir);
    make_dataset (nczarr);
    make_dataset (zarr);
  }

  g_test_add_data_func ("/browser/made/nczarr", "nczarr", test_made);
  g_test_add_data_func ("/browser/made/zarr", "zarr", test_made);
  g_test_add_data_func ("/browser/made/zip", "zip", test_made);
  g_test_add_data_func ("/browser/made/netcdf4", "netcdf4", test_made);
  g_test_add_func ("/browser/corpus/nczarr", test_corpus_nczarr);
  g_test_add_func ("/browser/corpus/zarr", test_corpus_zarr);
  g_test_add_func ("/browser/corpus/netcdf4", test_corpus_netcdf4);
  g_test_add_func ("/browser/error/missing", test_open_missing);
  g_test_add_func ("/browser/error/mode", test_open_unknown_mode);
  g_test_add_func ("/browser/error/url", test_open_bad_url);
  g_test_add_func ("/browser/error/keeps-dataset", test_open_failed_keeps_dataset);
  g_test_add_func ("/browser/select-unknown", test_select_unknown);
  g_test_add_func ("/browser/missing-codec", test_missing_codec);
  g_test_add_func ("/browser/cancel-open", test_cancel_open);
  g_test_add_func ("/browser/data-actions", test_data_actions);
  g_test_add_func ("/browser/layout-1280", test_layout_1280);
  g_test_add_func ("/browser/recent", test_recent);
  g_test_add_func ("/browser/open-url-dialog", test_open_url_dialog);
  g_test_add_func ("/browser/drop", test_drop);
  g_test_add_func ("/browser/remote", test_remote);
#ifdef NB_HAVE_DATAVIEW
  g_test_add_func ("/browser/select-during-slow-read", test_select_during_slow_read);
#endif
  status = g_test_run ();

  close_windows ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  {
    g_autoptr(GFile) dir = g_file_new_for_path (workdir);
    const char *argv_rm[] = { "rm", "-rf", workdir, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (workdir);
  return status;
}
