/* ncz-dump-cdl.h: what ncz-dump needs beyond writing CDL text
 * (cdl-format.h of tools/common)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The fill value comparison of the data section: equal, or within a
 * machine epsilon relative to @value; all NaNs are equal, and so are
 * all infinities (of either sign when the signs agree as "> 0"). */
gboolean cdl_float_equals (float value, float fill);
gboolean cdl_double_equals (double value, double fill);

/* The dataset name derived from a path or URL: the last component of
 * the path without its extension. */
char *cdl_dataset_name_from_location (const char *location);

G_END_DECLS
