/* nb-table-view.c: the values of a slice as a table
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A GtkColumnView (index, value) over a list model whose rows are made
 * when asked for: a million values cost one array of doubles, and only
 * the rows on screen exist as objects.
 */
#include "nb-table-view.h"
#include "nb-colorbar.h"

#include <math.h>

/* --- one row --- */

struct _NbValueRow
{
  GObject parent_instance;
  char *index_text;
  char *value_text;
  double value;
};

enum { ROW_PROP_0, ROW_PROP_INDEX_TEXT, ROW_PROP_VALUE_TEXT, ROW_N_PROPS };
static GParamSpec *row_props[ROW_N_PROPS];

G_DEFINE_FINAL_TYPE (NbValueRow, nb_value_row, G_TYPE_OBJECT)

static void
nb_value_row_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  NbValueRow *self = NB_VALUE_ROW (object);

  switch (id)
    {
    case ROW_PROP_INDEX_TEXT:
      g_value_set_string (value, self->index_text);
      break;
    case ROW_PROP_VALUE_TEXT:
      g_value_set_string (value, self->value_text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
nb_value_row_finalize (GObject *object)
{
  NbValueRow *self = NB_VALUE_ROW (object);

  g_free (self->index_text);
  g_free (self->value_text);
  G_OBJECT_CLASS (nb_value_row_parent_class)->finalize (object);
}

static void
nb_value_row_class_init (NbValueRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = nb_value_row_get_property;
  object_class->finalize = nb_value_row_finalize;
  row_props[ROW_PROP_INDEX_TEXT] = g_param_spec_string ("index-text", NULL, NULL, NULL,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  row_props[ROW_PROP_VALUE_TEXT] = g_param_spec_string ("value-text", NULL, NULL, NULL,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, ROW_N_PROPS, row_props);
}

static void
nb_value_row_init (NbValueRow *self)
{
}

const char *
nb_value_row_get_index_text (NbValueRow *self)
{
  return self->index_text;
}

const char *
nb_value_row_get_value_text (NbValueRow *self)
{
  return self->value_text;
}

double
nb_value_row_get_value (NbValueRow *self)
{
  return self->value;
}

/* --- the list model --- */

#define NB_TYPE_VALUE_LIST (nb_value_list_get_type ())
G_DECLARE_FINAL_TYPE (NbValueList, nb_value_list, NB, VALUE_LIST, GObject)

struct _NbValueList
{
  GObject parent_instance;
  double *values;
  guint n_values;
  guint n_dims;
  guint64 *start;
  guint64 *count;
  gint64 *stride;
};

static GType
nb_value_list_get_item_type (GListModel *model)
{
  return NB_TYPE_VALUE_ROW;
}

static guint
nb_value_list_get_n_items (GListModel *model)
{
  return NB_VALUE_LIST (model)->n_values;
}

static gpointer
nb_value_list_get_item (GListModel *model, guint position)
{
  NbValueList *self = NB_VALUE_LIST (model);
  NbValueRow *row;
  GString *index;
  guint64 rest = position;
  guint64 *at;

  if (position >= self->n_values)
    return NULL;
  row = g_object_new (NB_TYPE_VALUE_ROW, NULL);
  row->value = self->values[position];
  row->value_text = isnan (row->value) ? g_strdup ("missing") : nb_format_value (row->value);

  /* row-major position -> indices in the variable */
  at = g_newa (guint64, MAX (self->n_dims, 1));
  for (guint d = self->n_dims; d-- > 0;)
    {
      guint64 c = MAX (self->count[d], 1);
      at[d] = self->start[d] + (rest % c) * self->stride[d];
      rest /= c;
    }
  index = g_string_new ("[");
  for (guint d = 0; d < self->n_dims; d++)
    g_string_append_printf (index, "%s%" G_GUINT64_FORMAT, d > 0 ? ", " : "", at[d]);
  g_string_append_c (index, ']');
  row->index_text = g_string_free (index, FALSE);
  return row;
}

static void
nb_value_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = nb_value_list_get_item_type;
  iface->get_n_items = nb_value_list_get_n_items;
  iface->get_item = nb_value_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (NbValueList, nb_value_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, nb_value_list_model_init))

static void
nb_value_list_clear (NbValueList *self)
{
  g_clear_pointer (&self->values, g_free);
  g_clear_pointer (&self->start, g_free);
  g_clear_pointer (&self->count, g_free);
  g_clear_pointer (&self->stride, g_free);
  self->n_values = 0;
  self->n_dims = 0;
}

static void
nb_value_list_finalize (GObject *object)
{
  nb_value_list_clear (NB_VALUE_LIST (object));
  G_OBJECT_CLASS (nb_value_list_parent_class)->finalize (object);
}

static void
nb_value_list_class_init (NbValueListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = nb_value_list_finalize;
}

static void
nb_value_list_init (NbValueList *self)
{
}

/* --- the widget --- */

struct _NbTableView
{
  GtkWidget parent_instance;
  GtkWidget *scrolled;
  GtkWidget *column_view;
  NbValueList *list;
};

G_DEFINE_FINAL_TYPE (NbTableView, nb_table_view, GTK_TYPE_WIDGET)

static void
setup_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (data) ? 1.0 : 0.0);
  gtk_widget_add_css_class (label, "numeric");
  if (!GPOINTER_TO_INT (data))
    gtk_widget_add_css_class (label, "dim-label");
  gtk_list_item_set_child (item, label);
}

static void
bind_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  NbValueRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);

  gtk_label_set_text (GTK_LABEL (label), GPOINTER_TO_INT (data) ? row->value_text : row->index_text);
}

static GtkColumnViewColumn *
make_column (const char *title, gboolean value_column)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_label), GINT_TO_POINTER (value_column));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_label), GINT_TO_POINTER (value_column));
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_fixed_width (column, value_column ? 220 : 160);
  gtk_column_view_column_set_resizable (column, TRUE);
  return column;
}

static void
nb_table_view_dispose (GObject *object)
{
  NbTableView *self = NB_TABLE_VIEW (object);

  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_object (&self->list);
  G_OBJECT_CLASS (nb_table_view_parent_class)->dispose (object);
}

static void
nb_table_view_class_init (NbTableViewClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = nb_table_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "nb-table-view");
}

static void
nb_table_view_init (NbTableView *self)
{
  GtkSelectionModel *selection;
  GtkColumnViewColumn *column;

  self->list = g_object_new (NB_TYPE_VALUE_LIST, NULL);
  selection = GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->list))));
  self->column_view = gtk_column_view_new (selection);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->column_view), TRUE);
  gtk_widget_add_css_class (self->column_view, "data-table");
  column = make_column ("Index", FALSE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->column_view), column);
  g_object_unref (column);
  column = make_column ("Value", TRUE);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->column_view), column);
  g_object_unref (column);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), self->column_view);
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
}

GtkWidget *
nb_table_view_new (void)
{
  return g_object_new (NB_TYPE_TABLE_VIEW, NULL);
}

/* Shows @values, the row-major hyperslab (start, count, stride) of a
 * variable of @n_dims dimensions; rows are made when shown */
void
nb_table_view_set_values (NbTableView *self, const double *values, guint64 n_values,
                          guint n_dims, const guint64 *start, const guint64 *count,
                          const gint64 *stride, gboolean truncated)
{
  guint old = self->list->n_values;
  NbValueList *l = self->list;

  nb_value_list_clear (l);
  l->n_values = (guint) MIN (n_values, G_MAXUINT);
  l->values = g_memdup2 (values, l->n_values * sizeof (double));
  l->n_dims = n_dims;
  l->start = g_memdup2 (start, MAX (n_dims, 1) * sizeof (guint64));
  l->count = g_memdup2 (count, MAX (n_dims, 1) * sizeof (guint64));
  l->stride = g_memdup2 (stride, MAX (n_dims, 1) * sizeof (gint64));
  g_list_model_items_changed (G_LIST_MODEL (l), 0, old, l->n_values);
}

void
nb_table_view_clear (NbTableView *self)
{
  guint old = self->list->n_values;

  nb_value_list_clear (self->list);
  if (old > 0)
    g_list_model_items_changed (G_LIST_MODEL (self->list), 0, old, 0);
}

/**
 * nb_table_view_get_model:
 *
 * Returns: (transfer none): the rows (NbValueRow)
 */
GListModel *
nb_table_view_get_model (NbTableView *self)
{
  return G_LIST_MODEL (self->list);
}
