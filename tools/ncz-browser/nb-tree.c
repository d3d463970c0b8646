/* nb-tree.c: the structure tree: a GtkTreeListModel over the dataset's
 * groups (each NczGroup is a GListModel of its subgroups and variables),
 * shown in a GtkColumnView whose cells are bound to the nodes' properties */
#include "nb-tree.h"

#include <string.h>

struct _NbTree
{
  GtkWidget parent_instance;
  GtkWidget *scrolled;
  GtkWidget *view;
  GListStore *roots;
  GtkTreeListModel *tree;
  GtkSingleSelection *selection;
};

G_DEFINE_FINAL_TYPE (NbTree, nb_tree, GTK_TYPE_WIDGET)

char *
nb_tree_dup_full_name (GObject *node)
{
  if (NCZ_IS_GROUP (node))
    return ncz_group_get_full_name (NCZ_GROUP (node));
  if (NCZ_IS_VARIABLE (node))
    return ncz_variable_get_full_name (NCZ_VARIABLE (node));
  return NULL;
}

static GListModel *
create_children (gpointer item, gpointer user_data)
{
  if (NCZ_IS_GROUP (item))
    return G_LIST_MODEL (g_object_ref (item));
  return NULL;
}

/* cells: one label, its text bound to a property of the row's node */

static void
setup_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer expander)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (GPOINTER_TO_INT (expander))
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *icon = gtk_image_new ();
      GtkWidget *exp = gtk_tree_expander_new ();
      gtk_box_append (GTK_BOX (box), icon);
      gtk_box_append (GTK_BOX (box), label);
      gtk_tree_expander_set_child (GTK_TREE_EXPANDER (exp), box);
      gtk_list_item_set_child (item, exp);
    }
  else
    {
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "numeric");
      gtk_list_item_set_child (item, label);
    }
}

static gboolean
type_to_text (GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
  g_value_set_string (to, ncz_data_type_get_name (g_value_get_enum (from)));
  return TRUE;
}

static gboolean
shape_to_text (GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
  const char *text = g_value_get_string (from);
  g_value_set_string (to, text && *text ? text : "scalar");
  return TRUE;
}

static GtkLabel *
cell_label (GtkListItem *item, gboolean expander)
{
  GtkWidget *child = gtk_list_item_get_child (item);
  if (expander)
    {
      GtkWidget *box = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
      return GTK_LABEL (gtk_widget_get_last_child (box));
    }
  return GTK_LABEL (child);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer column)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  g_autoptr(GObject) node = gtk_tree_list_row_get_item (row);
  int which = GPOINTER_TO_INT (column);
  GtkLabel *label = cell_label (item, which == 0);
  GBinding *binding = NULL;

  if (which == 0)
    {
      GtkWidget *exp = gtk_list_item_get_child (item);
      GtkWidget *icon = gtk_widget_get_first_child (gtk_tree_expander_get_child (GTK_TREE_EXPANDER (exp)));
      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (exp), row);
      if (NCZ_IS_GROUP (node) && ncz_group_get_parent (NCZ_GROUP (node)) == NULL)
        {
          gtk_image_set_from_icon_name (GTK_IMAGE (icon), "drive-harddisk-symbolic");
          gtk_label_set_text (label, "/");
          return;
        }
      gtk_image_set_from_icon_name (GTK_IMAGE (icon),
                                    NCZ_IS_GROUP (node) ? "folder-symbolic" : "view-grid-symbolic");
      binding = g_object_bind_property (node, "name", label, "label", G_BINDING_SYNC_CREATE);
    }
  else if (NCZ_IS_VARIABLE (node))
    {
      if (which == 1)
        binding = g_object_bind_property_full (node, "data-type", label, "label", G_BINDING_SYNC_CREATE,
                                               type_to_text, NULL, NULL, NULL);
      else
        binding = g_object_bind_property_full (node, "shape-text", label, "label", G_BINDING_SYNC_CREATE,
                                               shape_to_text, NULL, NULL, NULL);
    }
  else
    gtk_label_set_text (label, which == 1 ? "group" : "");
  if (binding)
    g_object_set_data (G_OBJECT (item), "nb-binding", binding);
}

static void
unbind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer column)
{
  GBinding *binding = g_object_steal_data (G_OBJECT (item), "nb-binding");
  if (binding)
    g_binding_unbind (binding);
}

static GtkColumnViewColumn *
make_column (const char *title, int which)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  g_signal_connect (factory, "setup", G_CALLBACK (setup_label), GINT_TO_POINTER (which == 0));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (which));
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cell), GINT_TO_POINTER (which));
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (which == 0)
    gtk_column_view_column_set_expand (column, TRUE);
  return column;
}

static void
nb_tree_dispose (GObject *object)
{
  NbTree *self = NB_TREE (object);
  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_object (&self->selection);
  g_clear_object (&self->tree);
  g_clear_object (&self->roots);
  G_OBJECT_CLASS (nb_tree_parent_class)->dispose (object);
}

static void
nb_tree_class_init (NbTreeClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = nb_tree_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "nbtree");
}

static void
nb_tree_init (NbTree *self)
{
  GtkColumnViewColumn *col;

  self->roots = g_list_store_new (NCZ_TYPE_GROUP);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->roots)), FALSE, TRUE,
                                        create_children, NULL, NULL);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->tree)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);

  self->view = gtk_column_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)));
  gtk_widget_add_css_class (self->view, "data-table");
  gtk_widget_add_css_class (self->view, "navigation-sidebar");
  col = make_column ("Name", 0);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);
  col = make_column ("Type", 1);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);
  col = make_column ("Shape", 2);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), col);
  g_object_unref (col);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), self->view);
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
}

GtkWidget *
nb_tree_new (void)
{
  return g_object_new (NB_TYPE_TREE, NULL);
}

void
nb_tree_set_root (NbTree *self, NczGroup *root)
{
  g_return_if_fail (NB_IS_TREE (self));
  g_list_store_remove_all (self->roots);
  if (root)
    g_list_store_append (self->roots, root);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
}

GtkSingleSelection *
nb_tree_get_selection (NbTree *self)
{
  return self->selection;
}

GObject *
nb_tree_get_selected (NbTree *self)
{
  GtkTreeListRow *row = gtk_single_selection_get_selected_item (self->selection);
  GObject *node;
  if (!row)
    return NULL;
  node = gtk_tree_list_row_get_item (row);
  g_object_unref (node); /* the row keeps it */
  return node;
}

/* Expands the ancestors of full_name (groups along the path) and selects
 * its row; returns FALSE when no node has that name */
gboolean
nb_tree_select (NbTree *self, const char *full_name)
{
  guint n, i;
  g_return_val_if_fail (NB_IS_TREE (self), FALSE);
  if (!full_name || !*full_name)
    return FALSE;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->tree));
  for (i = 0; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->tree), i);
      g_autoptr(GObject) node = gtk_tree_list_row_get_item (row);
      g_autofree char *name = nb_tree_dup_full_name (node);
      gsize len = strlen (name);
      if (g_str_equal (name, full_name))
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
      /* a group on the path: expand it so its children get rows */
      if (NCZ_IS_GROUP (node) &&
          (g_str_equal (name, "/") ||
           (g_str_has_prefix (full_name, name) && full_name[len] == '/')))
        {
          gtk_tree_list_row_set_expanded (row, TRUE);
          n = g_list_model_get_n_items (G_LIST_MODEL (self->tree));
        }
    }
  return FALSE;
}
