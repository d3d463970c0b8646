/* nb-colormap.h: the colour maps of the data view
 *
 * Copyright 2026 The Ncz Authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void         nb_colormap_lookup      (const char *name, double t, guint8 rgb[3]);
void         nb_colormap_missing_rgb (guint8 rgb[3]);
gboolean     nb_colormap_is_known    (const char *name);
const char * const *nb_colormap_list_names (void);
void         nb_colormap_fill_table  (const char *name, guint8 table[256][3]);

G_END_DECLS
