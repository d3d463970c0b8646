/* nb-details.h: the details of the selected group or variable */
#pragma once

#include <adwaita.h>
#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NB_TYPE_DETAILS (nb_details_get_type ())
G_DECLARE_FINAL_TYPE (NbDetails, nb_details, NB, DETAILS, AdwBin)

GtkWidget  *nb_details_new (void);
void        nb_details_set_node (NbDetails *self, GObject *node);
/* The text shown for a detail: "type", "shape", "dimensions", "chunks",
 * "fill-value", "elements", "storage", "filters" (one line per filter),
 * "attributes" (one "name = value" line per attribute), "kind" */
char       *nb_details_dup_text (NbDetails *self, const char *key);
gboolean    nb_details_is_busy (NbDetails *self);

G_END_DECLS
