/* nb-window.h: a browser window: one dataset, its tree, details and data */
#pragma once

#include <adwaita.h>
#include <ncz/ncz.h>
#include "nb-details.h"

G_BEGIN_DECLS

#define NB_TYPE_WINDOW (nb_window_get_type ())
G_DECLARE_FINAL_TYPE (NbWindow, nb_window, NB, WINDOW, AdwApplicationWindow)

NbWindow    *nb_window_new (GtkApplication *application);
void         nb_window_open (NbWindow *self, const char *url);
void         nb_window_cancel_open (NbWindow *self);
NczDataset  *nb_window_get_dataset (NbWindow *self);
gboolean     nb_window_is_loading (NbWindow *self);
const char  *nb_window_get_error_message (NbWindow *self);
GListModel  *nb_window_get_tree_model (NbWindow *self);
GObject     *nb_window_get_selected (NbWindow *self);
gboolean     nb_window_select (NbWindow *self, const char *full_name);
NbDetails   *nb_window_get_details (NbWindow *self);
GtkWidget   *nb_window_get_data_view (NbWindow *self);
const char  *nb_window_get_visible_page (NbWindow *self);
gboolean     nb_window_screenshot (NbWindow *self, const char *path, GError **error);

G_END_DECLS
