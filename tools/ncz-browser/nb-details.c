/* nb-details.c: the details of the selected node, in the style of GNOME
 * settings panes: a group of property rows (type, shape, dimensions,
 * chunks, fill value, storage), the filters with the plugin providing
 * each, and the attributes, a list box bound to the node's attribute
 * list model */
#include "nb-details.h"

#include <string.h>

struct _NbDetails
{
  AdwBin parent_instance;

  GObject *node;
  GCancellable *cancellable;   /* the storage size query */
  gboolean busy;

  GtkWidget *title;            /* AdwStatusPage-like header: name + path */
  GtkWidget *subtitle;
  GtkWidget *summary_group;
  GHashTable *rows;            /* key -> GtkLabel of its value */
  GHashTable *row_widgets;     /* key -> AdwActionRow */
  GtkWidget *filters_group;
  GPtrArray *filter_rows;
  GtkWidget *attributes_group;
  GtkWidget *attributes_list;
  GtkWidget *dimensions_group;
  GtkWidget *dimensions_list;
};

G_DEFINE_FINAL_TYPE (NbDetails, nb_details, ADW_TYPE_BIN)

enum { PROP_0, PROP_BUSY, N_PROPS };
static GParamSpec *props[N_PROPS];

static const struct { const char *key; const char *title; } summary_keys[] = {
  { "kind", "Kind" },
  { "format", "Format" },
  { "type", "Data Type" },
  { "shape", "Shape" },
  { "dimensions", "Dimensions" },
  { "chunks", "Chunk Sizes" },
  { "fill-value", "Fill Value" },
  { "elements", "Elements" },
  { "storage", "Stored Size" },
  { "contents", "Contents" },
};

static void
set_value (NbDetails *self, const char *key, const char *text)
{
  GtkLabel *label = g_hash_table_lookup (self->rows, key);
  GtkWidget *row = g_hash_table_lookup (self->row_widgets, key);
  gtk_label_set_text (label, text ? text : "");
  gtk_widget_set_visible (row, text != NULL);
}

static GtkWidget *
value_label (void)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_RIGHT);
  gtk_label_set_width_chars (GTK_LABEL (label), 12);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_halign (label, GTK_ALIGN_END);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

static char *
format_size (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static char *
variant_list_text (GVariant *v)
{
  GString *s = g_string_new (NULL);
  GVariantIter iter;
  guint64 x;
  if (!v)
    return g_string_free (s, TRUE);
  g_variant_iter_init (&iter, v);
  while (g_variant_iter_next (&iter, "t", &x))
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, s->len ? " × " : "", x);
  return g_string_free (s, FALSE);
}

static char *
dimensions_text (NczVariable *var)
{
  GString *s = g_string_new (NULL);
  guint i, n = ncz_variable_get_n_dimensions (var);
  for (i = 0; i < n; i++)
    {
      NczDimension *dim = ncz_variable_get_dimension (var, i);
      g_string_append_printf (s, "%s%s = %" G_GUINT64_FORMAT "%s", i ? ", " : "",
                              dim ? ncz_dimension_get_name (dim) : "?",
                              dim ? ncz_dimension_get_length (dim) : 0,
                              dim && ncz_dimension_is_unlimited (dim) ? " (unlimited)" : "");
    }
  return g_string_free (s, FALSE);
}

static char *
fill_text (NczVariable *var)
{
  g_autoptr(GVariant) fill = ncz_variable_get_fill_value_variant (var);
  if (ncz_variable_get_no_fill (var))
    return g_strdup ("none (no fill)");
  if (!fill)
    return g_strdup ("none");
  if (g_variant_is_of_type (fill, G_VARIANT_TYPE_STRING))
    return g_strdup (g_variant_get_string (fill, NULL));
  if (g_variant_is_of_type (fill, G_VARIANT_TYPE_DOUBLE))
    return g_strdup_printf ("%.9g", g_variant_get_double (fill));
  if (g_variant_is_of_type (fill, G_VARIANT_TYPE_VARIANT))
    {
      g_autoptr(GVariant) inner = g_variant_get_variant (fill);
      return g_variant_print (inner, FALSE);
    }
  return g_variant_print (fill, FALSE);
}

static void
clear_filters (NbDetails *self)
{
  guint i;
  for (i = 0; i < self->filter_rows->len; i++)
    adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self->filters_group),
                                  g_ptr_array_index (self->filter_rows, i));
  g_ptr_array_set_size (self->filter_rows, 0);
}

static void
add_filter_row (NbDetails *self, const char *title, const char *subtitle, const char *provider)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = value_label ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (subtitle)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_label_set_text (GTK_LABEL (label), provider ? provider : "");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  g_object_set_data_full (G_OBJECT (row), "nb-text",
                          g_strdup_printf ("%s%s%s%s%s", title, subtitle ? " " : "", subtitle ? subtitle : "",
                                           provider ? " — " : "", provider ? provider : ""),
                          g_free);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->filters_group), row);
  g_ptr_array_add (self->filter_rows, row);
}

#include "nb-details-storage.inc"

static GtkWidget *
attribute_row (gpointer item, gpointer user_data)
{
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  g_object_bind_property (item, "name", row, "title", G_BINDING_SYNC_CREATE);
  g_object_bind_property (item, "display-text", row, "subtitle", G_BINDING_SYNC_CREATE);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 4);
  gtk_widget_add_css_class (row, "property");
  return row;
}

static gboolean
length_to_text (GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
  g_value_take_string (to, g_strdup_printf ("%" G_GUINT64_FORMAT, g_value_get_uint64 (from)));
  return TRUE;
}

static GtkWidget *
dimension_row (gpointer item, gpointer user_data)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = value_label ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  g_object_bind_property (item, "name", row, "title", G_BINDING_SYNC_CREATE);
  g_object_bind_property_full (item, "length", label, "label", G_BINDING_SYNC_CREATE,
                               length_to_text, NULL, NULL, NULL);
  if (ncz_dimension_is_unlimited (NCZ_DIMENSION (item)))
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "unlimited");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  return row;
}

static void
show_list (GtkWidget *group, GtkWidget *list, GListModel *model,
           GtkListBoxCreateWidgetFunc create)
{
  gtk_list_box_bind_model (GTK_LIST_BOX (list), model, create, NULL, NULL);
  gtk_widget_set_visible (group, model && g_list_model_get_n_items (model) > 0);
}

void
nb_details_set_node (NbDetails *self, GObject *node)
{
  g_return_if_fail (NB_IS_DETAILS (self));
  g_return_if_fail (node == NULL || NCZ_IS_GROUP (node) || NCZ_IS_VARIABLE (node));

  if (self->cancellable)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
  if (self->busy)
    {
      self->busy = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
  g_set_object (&self->node, node);
  clear_filters (self);
  for (guint i = 0; i < G_N_ELEMENTS (summary_keys); i++)
    set_value (self, summary_keys[i].key, NULL);
  gtk_widget_set_visible (self->filters_group, FALSE);

  if (node == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->title), "");
      gtk_label_set_text (GTK_LABEL (self->subtitle), "");
      show_list (self->attributes_group, self->attributes_list, NULL, attribute_row);
      show_list (self->dimensions_group, self->dimensions_list, NULL, dimension_row);
      return;
    }

  if (NCZ_IS_VARIABLE (node))
    {
      NczVariable *var = NCZ_VARIABLE (node);
      g_autofree char *full = ncz_variable_get_full_name (var);
      g_autofree char *shape = ncz_variable_get_shape_text (var);
      g_autofree char *dims = dimensions_text (var);
      g_autoptr(GVariant) chunks = ncz_variable_get_chunk_sizes_variant (var);
      g_autofree char *chunk_text = NULL;
      g_autofree char *fill = fill_text (var);
      g_autofree char *elements = g_strdup_printf ("%" G_GUINT64_FORMAT, ncz_variable_get_n_elements (var));
      g_autoptr(GVariant) shape_v = ncz_variable_get_shape_variant (var);
      g_autofree char *shape_x = variant_list_text (shape_v);

      if (ncz_variable_get_contiguous (var))
        chunk_text = g_strdup ("contiguous");
      else
        chunk_text = variant_list_text (chunks);
      gtk_label_set_text (GTK_LABEL (self->title), ncz_variable_get_name (var));
      gtk_label_set_text (GTK_LABEL (self->subtitle), full);
      set_value (self, "kind", "Variable");
      set_value (self, "type", ncz_data_type_get_name (ncz_variable_get_value_type (var)));
      set_value (self, "shape", shape && *shape ? shape_x : "scalar");
      set_value (self, "dimensions", *dims ? dims : "none");
      set_value (self, "chunks", chunk_text && *chunk_text ? chunk_text : "—");
      set_value (self, "fill-value", fill);
      set_value (self, "elements", elements);
      nb_details_show_filters (self, var);
      nb_details_query_storage (self, var);
      show_list (self->attributes_group, self->attributes_list,
                 ncz_variable_get_attribute_list (var), attribute_row);
      show_list (self->dimensions_group, self->dimensions_list, NULL, dimension_row);
    }
  else
    {
      NczGroup *group = NCZ_GROUP (node);
      g_autofree char *full = ncz_group_get_full_name (group);
      g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
      g_autoptr(GPtrArray) groups = ncz_group_get_groups (group);
      g_autofree char *contents = g_strdup_printf ("%u variable%s, %u group%s",
                                                   vars->len, vars->len == 1 ? "" : "s",
                                                   groups->len, groups->len == 1 ? "" : "s");
      NczDataset *dataset = ncz_group_get_dataset (group);
      gboolean root = ncz_group_get_parent (group) == NULL;
      gtk_label_set_text (GTK_LABEL (self->title), root ? "Root Group" : ncz_group_get_name (group));
      gtk_label_set_text (GTK_LABEL (self->subtitle), root && dataset ? ncz_dataset_get_url_string (dataset) : full);
      set_value (self, "kind", root ? "Root group" : "Group");
      if (root && dataset)
        set_value (self, "format", ncz_dataset_get_format_name (dataset));
      set_value (self, "contents", contents);
      show_list (self->attributes_group, self->attributes_list,
                 ncz_group_get_attribute_list (group), attribute_row);
      show_list (self->dimensions_group, self->dimensions_list,
                 ncz_group_get_dimension_list (group), dimension_row);
    }
}

char *
nb_details_dup_text (NbDetails *self, const char *key)
{
  g_return_val_if_fail (NB_IS_DETAILS (self), NULL);
  if (g_str_equal (key, "filters"))
    {
      GString *s = g_string_new (NULL);
      for (guint i = 0; i < self->filter_rows->len; i++)
        g_string_append_printf (s, "%s\n", (const char *) g_object_get_data (g_ptr_array_index (self->filter_rows, i), "nb-text"));
      return g_string_free (s, FALSE);
    }
  if (g_str_equal (key, "attributes") || g_str_equal (key, "dimension-list"))
    {
      GString *s = g_string_new (NULL);
      GtkWidget *list = g_str_equal (key, "attributes") ? self->attributes_list : self->dimensions_list;
      GtkWidget *child;
      for (child = gtk_widget_get_first_child (list); child; child = gtk_widget_get_next_sibling (child))
        {
          if (!ADW_IS_ACTION_ROW (child))
            continue;
          if (list == self->attributes_list)
            g_string_append_printf (s, "%s = %s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)),
                                    adw_action_row_get_subtitle (ADW_ACTION_ROW (child)));
          else
            g_string_append_printf (s, "%s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)));
        }
      return g_string_free (s, FALSE);
    }
  if (g_str_equal (key, "title"))
    return g_strdup (gtk_label_get_text (GTK_LABEL (self->title)));
  {
    GtkLabel *label = g_hash_table_lookup (self->rows, key);
    GtkWidget *row = g_hash_table_lookup (self->row_widgets, key);
    if (!label || !gtk_widget_get_visible (row))
      return NULL;
    return g_strdup (gtk_label_get_text (label));
  }
}

gboolean
nb_details_is_busy (NbDetails *self)
{
  return self->busy;
}

static void
nb_details_dispose (GObject *object)
{
  NbDetails *self = NB_DETAILS (object);
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->node);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->row_widgets, g_hash_table_unref);
  g_clear_pointer (&self->filter_rows, g_ptr_array_unref);
  G_OBJECT_CLASS (nb_details_parent_class)->dispose (object);
}

static void
nb_details_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  switch (id)
    {
    case PROP_BUSY: g_value_set_boolean (value, NB_DETAILS (object)->busy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
nb_details_class_init (NbDetailsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = nb_details_dispose;
  G_OBJECT_CLASS (klass)->get_property = nb_details_get_property;
  /* whether the stored size is still being counted */
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (G_OBJECT_CLASS (klass), N_PROPS, props);
}

static GtkWidget *
boxed_list (void)
{
  GtkWidget *list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  return list;
}

static GtkWidget *
titled_group (const char *title, GtkWidget *child)
{
  GtkWidget *group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (child)
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), child);
  return group;
}

static void
nb_details_init (NbDetails *self)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  self->rows = g_hash_table_new (g_str_hash, g_str_equal);
  self->row_widgets = g_hash_table_new (g_str_hash, g_str_equal);
  self->filter_rows = g_ptr_array_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 520);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);

  self->title = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (self->title, "title-2");
  self->subtitle = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->subtitle), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->subtitle), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_selectable (GTK_LABEL (self->subtitle), TRUE);
  gtk_widget_add_css_class (self->subtitle, "dim-label");
  gtk_box_append (GTK_BOX (header), self->title);
  gtk_box_append (GTK_BOX (header), self->subtitle);
  gtk_box_append (GTK_BOX (box), header);

  self->summary_group = titled_group ("Properties", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (summary_keys); i++)
    {
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *label = value_label ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), summary_keys[i].title);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->summary_group), row);
      g_hash_table_insert (self->rows, (gpointer) summary_keys[i].key, label);
      g_hash_table_insert (self->row_widgets, (gpointer) summary_keys[i].key, row);
      gtk_widget_set_visible (row, FALSE);
    }
  gtk_box_append (GTK_BOX (box), self->summary_group);

  self->filters_group = titled_group ("Filters", NULL);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->filters_group),
                                         "In the order applied when writing, with the plugin providing each");
  gtk_widget_set_visible (self->filters_group, FALSE);
  gtk_box_append (GTK_BOX (box), self->filters_group);

  self->dimensions_list = boxed_list ();
  self->dimensions_group = titled_group ("Dimensions", self->dimensions_list);
  gtk_widget_set_visible (self->dimensions_group, FALSE);
  gtk_box_append (GTK_BOX (box), self->dimensions_group);

  self->attributes_list = boxed_list ();
  self->attributes_group = titled_group ("Attributes", self->attributes_list);
  gtk_widget_set_visible (self->attributes_group, FALSE);
  gtk_box_append (GTK_BOX (box), self->attributes_group);

  adw_clamp_set_child (ADW_CLAMP (clamp), box);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), clamp);
  adw_bin_set_child (ADW_BIN (self), scrolled);
}

GtkWidget *
nb_details_new (void)
{
  return g_object_new (NB_TYPE_DETAILS, NULL);
}
