/* nb-tree.h: the structure tree of a dataset (groups and variables) */
#pragma once

#include <gtk/gtk.h>
#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NB_TYPE_TREE (nb_tree_get_type ())
G_DECLARE_FINAL_TYPE (NbTree, nb_tree, NB, TREE, GtkWidget)

GtkWidget          *nb_tree_new (void);
void                nb_tree_set_root (NbTree *self, NczGroup *root);
GtkSingleSelection *nb_tree_get_selection (NbTree *self);
GObject            *nb_tree_get_selected (NbTree *self);
gboolean            nb_tree_select (NbTree *self, const char *full_name);
char               *nb_tree_dup_full_name (GObject *node);

G_END_DECLS
