/* nb-window.c: a browser window. One dataset at a time: an empty state
 * with the ways to open one (and the recent ones), an opening state with
 * a cancel button, an error state with the library's message, and the
 * browser: the structure tree, the data of the selected variable and its
 * details. Everything the window does is a GAction, so the tests drive it
 * as a user would. */
#include "nb-window.h"
#include "nb-application.h"
#include "nb-tree.h"

#include <string.h>

#ifdef NB_HAVE_DATAVIEW
#include "nb-data-view.h"
#endif

struct _NbWindow
{
  AdwApplicationWindow parent_instance;

  NczDataset *dataset;
  GCancellable *open_cancellable;
  char *opening_url;
  char *error_message;

  GtkWidget *toasts;
  GtkWidget *title;
  GtkWidget *stack;
  GtkWidget *recent_group;
  GtkWidget *recent_list;
  GtkWidget *loading_page;
  GtkWidget *error_page;
  GtkWidget *tree;
  GtkWidget *details;
  GtkWidget *flap;
  GtkWidget *details_button;
  GtkWidget *data_stack;       /* "none" or "data" */
  GtkWidget *data_view;        /* NbDataView, or the placeholder page */
  GtkWidget *controls;
  GtkWidget *y_drop;
  GtkWidget *x_drop;
  GtkWidget *axes_box;
  GtkWidget *sliders_box;
  GtkWidget *play_button;
  GPtrArray *sliders;          /* GtkRange per dimension, NULL for the axes */

  NczVariable *variable;
  guint n_dims;
  guint y_dim, x_dim;
  gboolean updating;
  guint play_source;
};

G_DEFINE_FINAL_TYPE (NbWindow, nb_window, ADW_TYPE_APPLICATION_WINDOW)

enum { PROP_0, PROP_DATASET, PROP_LOADING, PROP_ERROR_MESSAGE, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_OPEN_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void show_variable (NbWindow *self, NczVariable *var);

/* ---- state pages ---- */

static void
set_error_message (NbWindow *self, const char *message)
{
  if (g_strcmp0 (self->error_message, message) == 0)
    return;
  g_free (self->error_message);
  self->error_message = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_ERROR_MESSAGE]);
}

static void
toast (NbWindow *self, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *t = adw_toast_new (escaped);
  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (self->toasts), t);
}

static void
update_title (NbWindow *self)
{
  if (self->dataset)
    {
      const char *url = ncz_dataset_get_url_string (self->dataset);
      g_autofree char *trimmed = g_strdup (url);
      char *hash = strchr (trimmed, '#');
      char *slash;
      if (hash)
        *hash = '\0';
      while ((slash = strrchr (trimmed, '/')) && slash[1] == '\0' && slash != trimmed)
        *slash = '\0';
      slash = strrchr (trimmed, '/');
      adw_window_title_set_title (ADW_WINDOW_TITLE (self->title), slash ? slash + 1 : trimmed);
      adw_window_title_set_subtitle (ADW_WINDOW_TITLE (self->title), url);
      gtk_window_set_title (GTK_WINDOW (self), slash ? slash + 1 : trimmed);
    }
  else
    {
      adw_window_title_set_title (ADW_WINDOW_TITLE (self->title), "Ncz Browser");
      adw_window_title_set_subtitle (ADW_WINDOW_TITLE (self->title), "");
      gtk_window_set_title (GTK_WINDOW (self), "Ncz Browser");
    }
}

static void
show_resting_page (NbWindow *self)
{
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), self->dataset ? "browser" : "empty");
}

static void
page_changed (GtkStack *stack, GParamSpec *pspec, NbWindow *self)
{
  gtk_widget_set_visible (self->details_button,
                          g_strcmp0 (gtk_stack_get_visible_child_name (stack), "browser") == 0);
}

/* ---- recent datasets ---- */

static void
recent_activated (GtkListBox *list, GtkListBoxRow *row, NbWindow *self)
{
  const char *url = g_object_get_data (G_OBJECT (row), "nb-url");
  if (url)
    nb_window_open (self, url);
}

static gint
recent_newer_first (gconstpointer a, gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *tb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);
  return g_date_time_compare (tb, ta);
}

static void
fill_recent (NbWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager), *l;
  GtkWidget *child;
  guint n = 0;

  while ((child = gtk_widget_get_first_child (self->recent_list)))
    gtk_list_box_remove (GTK_LIST_BOX (self->recent_list), child);
  items = g_list_sort (items, recent_newer_first);
  for (l = items; l && n < 6; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      GtkWidget *row;
      if (!gtk_recent_info_has_application (info, "ncz-browser"))
        continue;
      row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), gtk_recent_info_get_display_name (info));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), gtk_recent_info_get_uri (info));
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_object_set_data_full (G_OBJECT (row), "nb-url", g_strdup (gtk_recent_info_get_uri (info)), g_free);
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), row);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  gtk_widget_set_visible (self->recent_group, n > 0);
}

static void
add_recent (const char *url)
{
  GtkRecentData data = { 0 };
  g_autofree char *uri = NULL;
  g_autofree char *display = NULL;
  const char *base;

  if (strstr (url, "://"))
    uri = g_strdup (url);
  else
    {
      /* a path, perhaps with #mode=...: keep the fragment after the URI */
      g_autofree char *path = g_strdup (url);
      char *hash = strchr (path, '#');
      g_autofree char *abs = NULL;
      g_autofree char *file_uri = NULL;
      if (hash)
        *hash++ = '\0';
      abs = g_canonicalize_filename (path, NULL);
      file_uri = g_filename_to_uri (abs, NULL, NULL);
      if (!file_uri)
        return;
      uri = hash ? g_strdup_printf ("%s#%s", file_uri, hash) : g_steal_pointer (&file_uri);
    }
  display = g_strdup (uri);
  if (strchr (display, '#'))
    *strchr (display, '#') = '\0';
  while (g_str_has_suffix (display, "/") && strlen (display) > 1)
    display[strlen (display) - 1] = '\0';
  base = strrchr (display, '/');
  data.display_name = g_uri_unescape_string (base ? base + 1 : display, NULL);
  data.mime_type = (char *) "application/x-netcdf";
  data.app_name = (char *) "ncz-browser";
  data.app_exec = (char *) "ncz-browser %u";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
  g_free (data.display_name);
}

/* ---- opening ---- */

static void
set_dataset (NbWindow *self, NczDataset *dataset)
{
  if (self->dataset == dataset)
    return;
  show_variable (self, NULL);
  nb_details_set_node (NB_DETAILS (self->details), NULL);
  nb_tree_set_root (NB_TREE (self->tree), NULL);
  g_set_object (&self->dataset, dataset);
  if (dataset)
    {
      nb_tree_set_root (NB_TREE (self->tree), ncz_dataset_get_root_group (dataset));
      nb_window_select (self, "/");
    }
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DATASET]);
}

typedef struct
{
  NbWindow *window;     /* weak */
  GCancellable *cancellable;
  char *url;
} OpenData;

static void
open_data_free (OpenData *data)
{
  g_clear_weak_pointer (&data->window);
  g_object_unref (data->cancellable);
  g_free (data->url);
  g_free (data);
}

static void
open_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OpenData *data = user_data;
  NbWindow *self = data->window;
  g_autoptr(GError) error = NULL;
  g_autoptr(NczDataset) dataset = ncz_dataset_open_finish (result, &error);

  /* superseded by a later open, or the window is gone */
  if (!self || self->open_cancellable != data->cancellable)
    {
      open_data_free (data);
      return;
    }
  g_clear_object (&self->open_cancellable);
  g_clear_pointer (&self->opening_url, g_free);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOADING]);

  if (dataset)
    {
      set_error_message (self, NULL);
      add_recent (data->url);
      fill_recent (self);
      set_dataset (self, dataset);
      show_resting_page (self);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_resting_page (self);
  else
    {
      g_autofree char *title = g_strdup_printf ("Could not open %s", data->url);
      set_error_message (self, error->message);
      if (self->dataset)
        {
          g_autofree char *text = g_strdup_printf ("%s: %s", title, error->message);
          toast (self, text);
          show_resting_page (self);
        }
      else
        {
          g_autofree char *escaped = g_markup_escape_text (error->message, -1);
          adw_status_page_set_description (ADW_STATUS_PAGE (self->error_page), escaped);
          gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "error");
        }
    }
  g_signal_emit (self, signals[SIGNAL_OPEN_FINISHED], 0, error);
  open_data_free (data);
}

/**
 * nb_window_open:
 * @self: the window
 * @url: a path or URL, with a `#mode=` fragment where needed
 *
 * Starts opening @url off the main loop; a previous open still under way
 * is cancelled. #NbWindow::open-finished tells the outcome.
 */
void
nb_window_open (NbWindow *self, const char *url)
{
  OpenData *data;
  g_return_if_fail (NB_IS_WINDOW (self));
  g_return_if_fail (url != NULL);

  if (self->open_cancellable)
    nb_window_cancel_open (self);
  self->open_cancellable = g_cancellable_new ();
  self->opening_url = g_strdup (url);
  data = g_new0 (OpenData, 1);
  g_set_weak_pointer (&data->window, self);
  data->cancellable = g_object_ref (self->open_cancellable);
  data->url = g_strdup (url);
  {
    g_autofree char *escaped = g_markup_escape_text (url, -1);
    adw_status_page_set_description (ADW_STATUS_PAGE (self->loading_page), escaped);
  }
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOADING]);
  ncz_dataset_open_async (url, NCZ_OPEN_READ, data->cancellable, open_done, data);
}

void
nb_window_cancel_open (NbWindow *self)
{
  g_return_if_fail (NB_IS_WINDOW (self));
  if (!self->open_cancellable)
    return;
  /* open_done sees the cancellable is no longer the window's and drops
   * whatever the open gives */
  g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  g_clear_pointer (&self->opening_url, g_free);
  show_resting_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOADING]);
  {
    g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Opening cancelled");
    g_signal_emit (self, signals[SIGNAL_OPEN_FINISHED], 0, error);
  }
}

/* ---- data: axes, indices, page ---- */

#ifdef NB_HAVE_DATAVIEW
#define VIEW(self) NB_DATA_VIEW ((self)->data_view)
#endif

static void
slider_changed (GtkRange *range, NbWindow *self)
{
  guint dim = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (range), "nb-dim"));
  if (self->updating)
    return;
#ifdef NB_HAVE_DATAVIEW
  nb_data_view_set_index (VIEW (self), dim, (guint64) gtk_range_get_value (range));
#else
  (void) dim;
#endif
}

static void
rebuild_sliders (NbWindow *self)
{
  GtkWidget *child;
  guint i;

  while ((child = gtk_widget_get_first_child (self->sliders_box)))
    gtk_box_remove (GTK_BOX (self->sliders_box), child);
  g_ptr_array_set_size (self->sliders, 0);
  for (i = 0; self->variable && i < self->n_dims; i++)
    {
      NczDimension *dim = ncz_variable_get_dimension (self->variable, i);
      guint64 len = dim ? ncz_dimension_get_length (dim) : 0;
      GtkWidget *row, *label, *scale, *spin;
      GtkAdjustment *adj;

      if ((self->n_dims >= 2 && (i == self->y_dim || i == self->x_dim)) ||
          (self->n_dims == 1))
        {
          g_ptr_array_add (self->sliders, NULL);
          continue;
        }
      row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      label = gtk_label_new (dim ? ncz_dimension_get_name (dim) : "?");
      gtk_label_set_width_chars (GTK_LABEL (label), 10);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      adj = gtk_adjustment_new (0, 0, len > 0 ? (double) (len - 1) : 0, 1, 10, 0);
      scale = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, adj);
      gtk_scale_set_digits (GTK_SCALE (scale), 0);
      gtk_widget_set_hexpand (scale, TRUE);
      gtk_widget_set_sensitive (scale, len > 1);
      spin = gtk_spin_button_new (adj, 1, 0);
      gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
      g_object_set_data (G_OBJECT (scale), "nb-dim", GUINT_TO_POINTER (i));
      g_signal_connect (scale, "value-changed", G_CALLBACK (slider_changed), self);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (GTK_BOX (row), scale);
      gtk_box_append (GTK_BOX (row), spin);
      gtk_box_append (GTK_BOX (self->sliders_box), row);
      g_ptr_array_add (self->sliders, scale);
    }
  gtk_widget_set_visible (self->sliders_box, gtk_widget_get_first_child (self->sliders_box) != NULL);
}

static void
apply_axes (NbWindow *self, guint y, guint x)
{
  if (!self->variable || self->n_dims < 2 || y >= self->n_dims || x >= self->n_dims || y == x)
    return;
  self->y_dim = y;
  self->x_dim = x;
  self->updating = TRUE;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->y_drop), y);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->x_drop), x);
  self->updating = FALSE;
  rebuild_sliders (self);
#ifdef NB_HAVE_DATAVIEW
  nb_data_view_set_axes (VIEW (self), y, x);
#endif
}

static void
axis_dropped (GObject *drop, GParamSpec *pspec, NbWindow *self)
{
  guint y, x;
  if (self->updating || !self->variable)
    return;
  y = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->y_drop));
  x = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->x_drop));
  if (y == x)
    {
      /* swap: the other axis takes the one given up */
      if (GTK_WIDGET (drop) == self->y_drop)
        x = self->y_dim;
      else
        y = self->x_dim;
    }
  apply_axes (self, y, x);
}

static void
show_variable (NbWindow *self, NczVariable *var)
{
  GtkStringList *names;
  guint i;

  if (self->play_source)
    {
      g_source_remove (self->play_source);
      self->play_source = 0;
      g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "play")),
                                 g_variant_new_boolean (FALSE));
    }
  g_set_object (&self->variable, var);
  self->n_dims = var ? ncz_variable_get_n_dimensions (var) : 0;
  self->y_dim = self->n_dims >= 2 ? self->n_dims - 2 : 0;
  self->x_dim = self->n_dims >= 2 ? self->n_dims - 1 : 0;

  names = gtk_string_list_new (NULL);
  for (i = 0; i < self->n_dims; i++)
    {
      NczDimension *dim = ncz_variable_get_dimension (var, i);
      gtk_string_list_append (names, dim ? ncz_dimension_get_name (dim) : "?");
    }
  self->updating = TRUE;
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->y_drop), G_LIST_MODEL (names));
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->x_drop), G_LIST_MODEL (names));
  if (self->n_dims >= 2)
    {
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->y_drop), self->y_dim);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->x_drop), self->x_dim);
    }
  self->updating = FALSE;
  g_object_unref (names);
  gtk_widget_set_visible (self->axes_box, self->n_dims >= 2);
  gtk_widget_set_visible (self->play_button, self->n_dims >= 3);
  rebuild_sliders (self);
#ifdef NB_HAVE_DATAVIEW
  /* the data view has its own controls, which call the same API */
  gtk_widget_set_visible (self->controls, FALSE);
#else
  gtk_widget_set_visible (self->controls, var != NULL);
#endif

#ifdef NB_HAVE_DATAVIEW
  nb_data_view_set_variable (VIEW (self), var);
#else
  if (var)
    {
      g_autofree char *shape = ncz_variable_get_shape_text (var);
      g_autofree char *desc = g_strdup_printf ("%s %s", ncz_data_type_get_name (ncz_variable_get_value_type (var)),
                                               shape && *shape ? shape : "scalar");
      adw_status_page_set_title (ADW_STATUS_PAGE (self->data_view), ncz_variable_get_name (var));
      adw_status_page_set_description (ADW_STATUS_PAGE (self->data_view), desc);
    }
#endif
  gtk_stack_set_visible_child_name (GTK_STACK (self->data_stack), var ? "data" : "none");
}

static void
selection_changed (GtkSingleSelection *selection, GParamSpec *pspec, NbWindow *self)
{
  GObject *node = nb_tree_get_selected (NB_TREE (self->tree));
  nb_details_set_node (NB_DETAILS (self->details), node);
  show_variable (self, NCZ_IS_VARIABLE (node) ? NCZ_VARIABLE (node) : NULL);
}

/* ---- actions ---- */

static void
file_chosen (GtkNativeDialog *dialog, int response, NbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *url = file ? nb_application_url_from_file (file) : NULL;
      if (url)
        nb_window_open (self, url);
    }
  g_object_unref (dialog);
}

static void
choose (NbWindow *self, gboolean folder)
{
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (folder ? "Open Dataset Folder" : "Open Dataset",
                                 GTK_WINDOW (self),
                                 folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                 "_Open", "_Cancel");
  if (!folder)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, "Datasets (netCDF-4, HDF5, Zarr zip)");
      gtk_file_filter_add_pattern (filter, "*.nc");
      gtk_file_filter_add_pattern (filter, "*.nc4");
      gtk_file_filter_add_pattern (filter, "*.h5");
      gtk_file_filter_add_pattern (filter, "*.hdf5");
      gtk_file_filter_add_pattern (filter, "*.zip");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
      filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, "All files");
      gtk_file_filter_add_pattern (filter, "*");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
    }
  g_signal_connect (dialog, "response", G_CALLBACK (file_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
act_open_file (GSimpleAction *a, GVariant *p, gpointer self)
{
  choose (self, FALSE);
}

static void
act_open_folder (GSimpleAction *a, GVariant *p, gpointer self)
{
  choose (self, TRUE);
}

static void
url_response (AdwMessageDialog *dialog, const char *response, NbWindow *self)
{
  GtkWidget *entry = adw_message_dialog_get_extra_child (dialog);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  if (g_str_equal (response, "open") && text && *text)
    nb_window_open (self, text);
}

static void
act_open_url (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), "Open URL",
                                              "A path or a URL: file://, s3:// or https://, "
                                              "with #mode=nczarr,zip and the like where the store needs it");
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "s3://bucket/dataset.zarr#mode=zarr,s3");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", "_Cancel", "open", "_Open", NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "open", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "open");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (url_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
act_cancel_open (GSimpleAction *a, GVariant *p, gpointer self)
{
  nb_window_cancel_open (self);
}

static void
act_select (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  const char *name = g_variant_get_string (p, NULL);
  if (!nb_window_select (self, name))
    {
      g_autofree char *text = g_strdup_printf ("No group or variable named “%s”", name);
      set_error_message (self, text);
      toast (self, text);
    }
}

static void
act_set_axes (GSimpleAction *a, GVariant *p, gpointer self)
{
  guint y, x;
  g_variant_get (p, "(uu)", &y, &x);
  apply_axes (self, y, x);
}

static void
act_set_index (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  guint dim;
  guint64 index;
  GtkRange *range;
  g_variant_get (p, "(ut)", &dim, &index);
  if (!self->variable || dim >= self->n_dims)
    return;
  if (dim < self->sliders->len && (range = g_ptr_array_index (self->sliders, dim)))
    gtk_range_set_value (range, (double) index);   /* slider_changed passes it on */
#ifdef NB_HAVE_DATAVIEW
  else
    nb_data_view_set_index (VIEW (self), dim, index);
#endif
}

static void
act_set_page (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  const char *page = g_variant_get_string (p, NULL);
  if (!g_strv_contains ((const char *[]) { "image", "plot", "table", "chunks", NULL }, page))
    return;
  g_simple_action_set_state (a, p);
#ifdef NB_HAVE_DATAVIEW
  nb_data_view_set_page (VIEW (self), page);
#else
  (void) self;
#endif
}

static void
act_set_colormap (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  const char *name = g_variant_get_string (p, NULL);
  if (!g_strv_contains ((const char *[]) { "viridis", "grey", "balance", NULL }, name))
    return;
  g_simple_action_set_state (a, p);
#ifdef NB_HAVE_DATAVIEW
  nb_data_view_set_colormap (VIEW (self), name);
#else
  (void) self;
#endif
}

static void
act_export (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  g_autoptr(GError) error = NULL;
#ifdef NB_HAVE_DATAVIEW
  if (!nb_data_view_export_png (VIEW (self), g_variant_get_string (p, NULL), &error))
#else
  g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "This build has no data view to export");
#endif
    {
      set_error_message (self, error->message);
      toast (self, error->message);
    }
}

static void
act_screenshot (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  if (!nb_window_screenshot (self, g_variant_get_string (p, NULL), &error))
    {
      set_error_message (self, error->message);
      g_warning ("%s", error->message);
    }
}

static gboolean
play_tick (gpointer user_data)
{
  NbWindow *self = user_data;
  guint i;
#ifdef NB_HAVE_DATAVIEW
  /* advance once the current slice is shown: never queue reads */
  if (nb_data_view_is_loading (VIEW (self)))
    return G_SOURCE_CONTINUE;
#endif
  for (i = 0; i < self->sliders->len; i++)
    {
      GtkRange *range = g_ptr_array_index (self->sliders, i);
      GtkAdjustment *adj;
      double next;
      if (!range)
        continue;
      adj = gtk_range_get_adjustment (range);
      next = gtk_adjustment_get_value (adj) + 1;
      if (next > gtk_adjustment_get_upper (adj))
        next = gtk_adjustment_get_lower (adj);
      gtk_range_set_value (range, next);
      return G_SOURCE_CONTINUE;
    }
  self->play_source = 0;
  return G_SOURCE_REMOVE;
}

static void
act_play (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  NbWindow *self = user_data;
  gboolean play = g_variant_get_boolean (p);
#ifdef NB_HAVE_DATAVIEW
  /* the view animates, one slice after the other is shown */
  nb_data_view_set_playing (VIEW (self), play);
  g_simple_action_set_state (a, g_variant_new_boolean (nb_data_view_get_playing (VIEW (self))));
  return;
#endif
  if (play && self->n_dims < 3)
    play = FALSE;
  g_simple_action_set_state (a, g_variant_new_boolean (play));
  if (play && !self->play_source)
    self->play_source = g_timeout_add (200, play_tick, self);
  else if (!play && self->play_source)
    {
      g_source_remove (self->play_source);
      self->play_source = 0;
    }
  self->updating = TRUE;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->play_button), play);
  self->updating = FALSE;
}

static void
play_toggled (GtkToggleButton *button, NbWindow *self)
{
  if (self->updating)
    return;
  g_action_group_activate_action (G_ACTION_GROUP (self), "play",
                                  g_variant_new_boolean (gtk_toggle_button_get_active (button)));
}

static const GActionEntry win_actions[] = {
  { "open-file", act_open_file },
  { "open-folder", act_open_folder },
  { "open-url", act_open_url },
  { "cancel-open", act_cancel_open },
  { "select", act_select, "s" },
  { "set-axes", act_set_axes, "(uu)" },
  { "set-index", act_set_index, "(ut)" },
  { "set-page", act_set_page, "s", "'image'" },
  { "set-colormap", act_set_colormap, "s", "'viridis'" },
  { "export", act_export, "s" },
  { "screenshot", act_screenshot, "s" },
  { "play", act_play, "b", "false" },
};

/* ---- drag and drop ---- */

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, NbWindow *self)
{
  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = g_value_get_boxed (value);
      g_autofree char *url = files ? nb_application_url_from_file (files->data) : NULL;
      if (!url)
        return FALSE;
      nb_window_open (self, url);
      return TRUE;
    }
  if (G_VALUE_HOLDS (value, G_TYPE_STRING))
    {
      g_autofree char *text = g_strstrip (g_value_dup_string (value));
      if (!*text)
        return FALSE;
      nb_window_open (self, text);
      return TRUE;
    }
  return FALSE;
}

#ifdef NB_HAVE_DATAVIEW
static void
view_state_changed (GObject *view, GParamSpec *pspec, NbWindow *self)
{
  GAction *action;
  if (g_str_equal (pspec->name, "playing"))
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
      g_simple_action_set_state (G_SIMPLE_ACTION (action),
                                 g_variant_new_boolean (nb_data_view_get_playing (NB_DATA_VIEW (view))));
    }
  else
    {
      g_autofree char *value = NULL;
      g_object_get (view, pspec->name, &value, NULL);
      action = g_action_map_lookup_action (G_ACTION_MAP (self),
                                           g_str_equal (pspec->name, "page") ? "set-page" : "set-colormap");
      if (value)
        g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_string (value));
    }
}
#endif

/* ---- construction ---- */

static GtkWidget *
pill_button (const char *label, const char *action, gboolean suggested)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_widget_add_css_class (button, "pill");
  if (suggested)
    gtk_widget_add_css_class (button, "suggested-action");
  gtk_widget_set_halign (button, GTK_ALIGN_CENTER);
  return button;
}

static GtkWidget *
build_empty_page (NbWindow *self)
{
  GtkWidget *page = adw_status_page_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *clamp = adw_clamp_new ();

  adw_status_page_set_icon_name (ADW_STATUS_PAGE (page), "org.ncz.Browser-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (page), "Open a Dataset");
  adw_status_page_set_description (ADW_STATUS_PAGE (page),
                                   "A Zarr or NCZarr store, a zipped store or a netCDF-4 file, "
                                   "on disk or at an s3:// or https:// URL. "
                                   "You can also drop one here.");
  gtk_widget_set_halign (buttons, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (buttons), pill_button ("_Open File…", "win.open-file", TRUE));
  gtk_box_append (GTK_BOX (buttons), pill_button ("Open _Folder…", "win.open-folder", FALSE));
  gtk_box_append (GTK_BOX (buttons), pill_button ("Open _URL…", "win.open-url", FALSE));
  gtk_box_append (GTK_BOX (box), buttons);

  self->recent_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->recent_list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (self->recent_list, "boxed-list");
  g_signal_connect (self->recent_list, "row-activated", G_CALLBACK (recent_activated), self);
  self->recent_group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (self->recent_group), "Recent Datasets");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->recent_group), self->recent_list);
  gtk_widget_set_margin_top (self->recent_group, 24);
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 560);
  adw_clamp_set_child (ADW_CLAMP (clamp), self->recent_group);
  gtk_box_append (GTK_BOX (box), clamp);
  adw_status_page_set_child (ADW_STATUS_PAGE (page), box);
  return page;
}

static GtkWidget *
build_loading_page (NbWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *cancel = pill_button ("_Cancel", "win.cancel-open", FALSE);
  self->loading_page = adw_status_page_new ();
  adw_status_page_set_title (ADW_STATUS_PAGE (self->loading_page), "Opening…");
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_size_request (spinner, 48, 48);
  gtk_box_append (GTK_BOX (box), spinner);
  gtk_box_append (GTK_BOX (box), cancel);
  adw_status_page_set_child (ADW_STATUS_PAGE (self->loading_page), box);
  return self->loading_page;
}

static GtkWidget *
build_error_page (NbWindow *self)
{
  self->error_page = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (self->error_page), "dialog-warning-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (self->error_page), "Could Not Open the Dataset");
  adw_status_page_set_child (ADW_STATUS_PAGE (self->error_page),
                             pill_button ("_Open Another…", "win.open-file", TRUE));
  return self->error_page;
}

static GtkWidget *
toggle (const char *icon, const char *tooltip, const char *action, const char *target)
{
  GtkWidget *button = gtk_toggle_button_new ();
  gtk_button_set_icon_name (GTK_BUTTON (button), icon);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", target);
  return button;
}

static GtkWidget *
build_data_area (NbWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *pages = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *cmap = gtk_menu_button_new ();
  GMenu *menu = g_menu_new ();
  GtkWidget *none = adw_status_page_new ();
  GtkWidget *label;

  self->controls = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (self->controls, "toolbar");
  gtk_widget_add_css_class (self->controls, "nb-controls");

  gtk_widget_add_css_class (pages, "linked");
  gtk_box_append (GTK_BOX (pages), toggle ("image-x-generic-symbolic", "Image", "win.set-page", "image"));
  gtk_box_append (GTK_BOX (pages), toggle ("org.ncz.Browser-plot-symbolic", "Line Plot", "win.set-page", "plot"));
  gtk_box_append (GTK_BOX (pages), toggle ("view-list-symbolic", "Table of Values", "win.set-page", "table"));
  gtk_box_append (GTK_BOX (pages), toggle ("view-app-grid-symbolic", "Chunk Map", "win.set-page", "chunks"));
  gtk_box_append (GTK_BOX (bar), pages);

  self->axes_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new ("Rows");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (self->axes_box), label);
  self->y_drop = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->y_drop, "Dimension along the vertical axis");
  gtk_box_append (GTK_BOX (self->axes_box), self->y_drop);
  label = gtk_label_new ("Columns");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_margin_start (label, 6);
  gtk_box_append (GTK_BOX (self->axes_box), label);
  self->x_drop = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->x_drop, "Dimension along the horizontal axis");
  gtk_box_append (GTK_BOX (self->axes_box), self->x_drop);
  g_signal_connect (self->y_drop, "notify::selected", G_CALLBACK (axis_dropped), self);
  g_signal_connect (self->x_drop, "notify::selected", G_CALLBACK (axis_dropped), self);
  gtk_box_append (GTK_BOX (bar), self->axes_box);

  label = gtk_label_new (NULL);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (bar), label);

  self->play_button = gtk_toggle_button_new ();
  gtk_button_set_icon_name (GTK_BUTTON (self->play_button), "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (self->play_button, "Play Along the First Slider");
  g_signal_connect (self->play_button, "toggled", G_CALLBACK (play_toggled), self);
  gtk_box_append (GTK_BOX (bar), self->play_button);

  g_menu_append (menu, "Viridis", "win.set-colormap::viridis");
  g_menu_append (menu, "Grey", "win.set-colormap::grey");
  g_menu_append (menu, "Balance (diverging)", "win.set-colormap::balance");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (cmap), G_MENU_MODEL (menu));
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (cmap), "color-select-symbolic");
  gtk_widget_set_tooltip_text (cmap, "Colour Map");
  g_object_unref (menu);
  gtk_box_append (GTK_BOX (bar), cmap);

  gtk_box_append (GTK_BOX (self->controls), bar);
  self->sliders_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->controls), self->sliders_box);
  gtk_box_append (GTK_BOX (self->controls), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (box), self->controls);

  self->data_stack = gtk_stack_new ();
  gtk_widget_set_vexpand (self->data_stack, TRUE);
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (none), "view-grid-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (none), "No Variable Selected");
  adw_status_page_set_description (ADW_STATUS_PAGE (none), "Choose a variable in the tree to see its data");
  gtk_stack_add_named (GTK_STACK (self->data_stack), none, "none");
#ifdef NB_HAVE_DATAVIEW
  self->data_view = nb_data_view_new ();
  g_signal_connect_object (self->data_view, "notify::page", G_CALLBACK (view_state_changed), self, 0);
  g_signal_connect_object (self->data_view, "notify::colormap", G_CALLBACK (view_state_changed), self, 0);
  g_signal_connect_object (self->data_view, "notify::playing", G_CALLBACK (view_state_changed), self, 0);
#else
  self->data_view = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (self->data_view), "image-missing-symbolic");
#endif
  gtk_stack_add_named (GTK_STACK (self->data_stack), self->data_view, "data");
  gtk_box_append (GTK_BOX (box), self->data_stack);
  gtk_widget_set_visible (self->controls, FALSE);
  return box;
}

static GtkWidget *
build_browser (NbWindow *self)
{
  GtkWidget *outer = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *inner = adw_flap_new ();
  GtkWidget *sidebar = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  self->tree = nb_tree_new ();
  gtk_widget_set_vexpand (self->tree, TRUE);
  gtk_box_append (GTK_BOX (sidebar), self->tree);
  gtk_widget_add_css_class (sidebar, "nb-sidebar");
  g_signal_connect (nb_tree_get_selection (NB_TREE (self->tree)), "notify::selected",
                    G_CALLBACK (selection_changed), self);

  self->details = nb_details_new ();
  gtk_widget_add_css_class (self->details, "nb-details");

  /* the details beside the data, folded over it when the window is too
   * narrow for both; the header's details button shows or hides them */
  self->flap = inner;
  adw_flap_set_content (ADW_FLAP (inner), build_data_area (self));
  {
    /* the flap takes its natural width, the data the rest: the details
     * (a preferences page, naturally as wide as its 600-px clamp) are
     * kept to a sidebar's width */
    GtkWidget *clamp = adw_clamp_new ();

    adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 380);
    adw_clamp_set_tightening_threshold (ADW_CLAMP (clamp), 380);
    adw_clamp_set_child (ADW_CLAMP (clamp), self->details);
    gtk_widget_set_hexpand (clamp, FALSE);
    adw_flap_set_flap (ADW_FLAP (inner), clamp);
    gtk_widget_set_hexpand (adw_flap_get_content (ADW_FLAP (inner)), TRUE);
  }
  adw_flap_set_separator (ADW_FLAP (inner), gtk_separator_new (GTK_ORIENTATION_VERTICAL));
  adw_flap_set_flap_position (ADW_FLAP (inner), GTK_PACK_END);
  adw_flap_set_fold_policy (ADW_FLAP (inner), ADW_FLAP_FOLD_POLICY_AUTO);
  adw_flap_set_swipe_to_open (ADW_FLAP (inner), FALSE);
  gtk_widget_set_size_request (self->details, 330, -1);

  gtk_paned_set_start_child (GTK_PANED (outer), sidebar);
  gtk_paned_set_end_child (GTK_PANED (outer), inner);
  gtk_paned_set_resize_start_child (GTK_PANED (outer), FALSE);
  gtk_paned_set_shrink_start_child (GTK_PANED (outer), FALSE);
  gtk_widget_set_size_request (sidebar, 300, -1);
  return outer;
}

static void
nb_window_init (NbWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *open = adw_split_button_new ();
  GtkWidget *menu_button = gtk_menu_button_new ();
  GMenu *open_menu = g_menu_new ();
  GMenu *primary = g_menu_new ();
  GMenu *section = g_menu_new ();
  GtkDropTarget *drop;
  GType drop_types[] = { GDK_TYPE_FILE_LIST, G_TYPE_STRING };

  self->sliders = g_ptr_array_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);

  gtk_window_set_default_size (GTK_WINDOW (self), 1500, 900);
  gtk_window_set_icon_name (GTK_WINDOW (self), NB_APPLICATION_ID);

  self->title = adw_window_title_new ("Ncz Browser", NULL);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), self->title);
  adw_split_button_set_label (ADW_SPLIT_BUTTON (open), "_Open");
  adw_split_button_set_use_underline (ADW_SPLIT_BUTTON (open), TRUE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.open-file");
  gtk_widget_set_tooltip_text (open, "Open a Dataset File");
  g_menu_append (open_menu, "Open _Folder…", "win.open-folder");
  g_menu_append (open_menu, "Open _URL…", "win.open-url");
  adw_split_button_set_menu_model (ADW_SPLIT_BUTTON (open), G_MENU_MODEL (open_menu));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), open);

  g_menu_append (section, "_New Window", "app.new-window");
  g_menu_append_section (primary, NULL, G_MENU_MODEL (section));
  g_object_unref (section);
  section = g_menu_new ();
  g_menu_append (section, "_About Ncz Browser", "app.about");
  g_menu_append_section (primary, NULL, G_MENU_MODEL (section));
  g_object_unref (section);
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), G_MENU_MODEL (primary));
  gtk_menu_button_set_primary (GTK_MENU_BUTTON (menu_button), TRUE);
  gtk_widget_set_tooltip_text (menu_button, "Main Menu");
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), menu_button);
  self->details_button = gtk_toggle_button_new ();
  gtk_button_set_icon_name (GTK_BUTTON (self->details_button), "sidebar-show-right-symbolic");
  gtk_widget_set_tooltip_text (self->details_button, "Show Details");
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), self->details_button);
  g_object_unref (open_menu);
  g_object_unref (primary);

  self->stack = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->stack), GTK_STACK_TRANSITION_TYPE_NONE);
  gtk_widget_set_vexpand (self->stack, TRUE);
  gtk_stack_add_named (GTK_STACK (self->stack), build_empty_page (self), "empty");
  gtk_stack_add_named (GTK_STACK (self->stack), build_loading_page (self), "loading");
  gtk_stack_add_named (GTK_STACK (self->stack), build_error_page (self), "error");
  gtk_stack_add_named (GTK_STACK (self->stack), build_browser (self), "browser");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->details_button), TRUE);
  g_object_bind_property (self->details_button, "active", self->flap, "reveal-flap",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
  g_signal_connect (self->stack, "notify::visible-child-name", G_CALLBACK (page_changed), self);
  page_changed (GTK_STACK (self->stack), NULL, self);

  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), self->stack);
  self->toasts = adw_toast_overlay_new ();
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (self->toasts), box);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), self->toasts);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, drop_types, G_N_ELEMENTS (drop_types));
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  fill_recent (self);
  update_title (self);
}

static void
nb_window_dispose (GObject *object)
{
  NbWindow *self = NB_WINDOW (object);
  if (self->play_source)
    {
      g_source_remove (self->play_source);
      self->play_source = 0;
    }
  if (self->open_cancellable)
    g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  g_clear_object (&self->variable);
  g_clear_object (&self->dataset);
  g_clear_pointer (&self->sliders, g_ptr_array_unref);
  G_OBJECT_CLASS (nb_window_parent_class)->dispose (object);
}

static void
nb_window_finalize (GObject *object)
{
  NbWindow *self = NB_WINDOW (object);
  g_free (self->opening_url);
  g_free (self->error_message);
  G_OBJECT_CLASS (nb_window_parent_class)->finalize (object);
}

static void
nb_window_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  NbWindow *self = NB_WINDOW (object);
  switch (id)
    {
    case PROP_DATASET: g_value_set_object (value, self->dataset); break;
    case PROP_LOADING: g_value_set_boolean (value, self->open_cancellable != NULL); break;
    case PROP_ERROR_MESSAGE: g_value_set_string (value, self->error_message); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
nb_window_class_init (NbWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = nb_window_dispose;
  object_class->finalize = nb_window_finalize;
  object_class->get_property = nb_window_get_property;

  /* the open dataset, or NULL */
  props[PROP_DATASET] = g_param_spec_object ("dataset", NULL, NULL, NCZ_TYPE_DATASET,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* whether an open is under way */
  props[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* the message of the last failure shown (an open, a select, an export) */
  props[PROP_ERROR_MESSAGE] = g_param_spec_string ("error-message", NULL, NULL, NULL,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /* NbWindow::open-finished: (error) NULL on success, else why */
  signals[SIGNAL_OPEN_FINISHED] = g_signal_new ("open-finished", G_TYPE_FROM_CLASS (klass),
                                                G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 1, G_TYPE_ERROR);
}

NbWindow *
nb_window_new (GtkApplication *application)
{
  return g_object_new (NB_TYPE_WINDOW, "application", application, NULL);
}

NczDataset *
nb_window_get_dataset (NbWindow *self)
{
  return self->dataset;
}

gboolean
nb_window_is_loading (NbWindow *self)
{
  return self->open_cancellable != NULL;
}

const char *
nb_window_get_error_message (NbWindow *self)
{
  return self->error_message;
}

GListModel *
nb_window_get_tree_model (NbWindow *self)
{
  return G_LIST_MODEL (nb_tree_get_selection (NB_TREE (self->tree)));
}

GObject *
nb_window_get_selected (NbWindow *self)
{
  return nb_tree_get_selected (NB_TREE (self->tree));
}

gboolean
nb_window_select (NbWindow *self, const char *full_name)
{
  return nb_tree_select (NB_TREE (self->tree), full_name);
}

NbDetails *
nb_window_get_details (NbWindow *self)
{
  return NB_DETAILS (self->details);
}

GtkWidget *
nb_window_get_data_view (NbWindow *self)
{
  return self->data_view;
}

const char *
nb_window_get_visible_page (NbWindow *self)
{
  return gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
}

/* Renders the whole window (its current frame, as the compositor would
 * get it) to a PNG */
gboolean
nb_window_screenshot (NbWindow *self, const char *path, GError **error)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkPaintable *paintable;
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  GskRenderer *renderer;
  GdkTexture *texture;
  graphene_rect_t bounds;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  gboolean ok;

  if (!gtk_widget_get_realized (widget) || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                   "The window is not shown: nothing to render to %s", path);
      return FALSE;
    }
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_object_unref (paintable);
  if (!node)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The window drew nothing to render to %s", path);
      return FALSE;
    }
  gsk_render_node_get_bounds (node, &bounds);
  graphene_rect_intersection (&bounds, &GRAPHENE_RECT_INIT (0, 0, width, height), &bounds);
  renderer = gtk_native_get_renderer (GTK_NATIVE (self));
  texture = gsk_renderer_render_texture (renderer, node, &bounds);
  gsk_render_node_unref (node);
  ok = gdk_texture_save_to_png (texture, path);
  g_object_unref (texture);
  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not write the window's picture to %s", path);
  return ok;
}
