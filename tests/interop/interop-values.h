/* interop-values.h: the value formula of the interop tests, the C twin
 * of interop_common.py
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

/* Writes value @n of a numeric or char variable of type @t to @out */
void interop_value_at (NczDataType t, guint64 n, gpointer out);
