/* cdl-format.h: CDL text as ncdump writes it, shared by the tools
 *
 * Names, quoted text, attribute values and the values of data sections,
 * byte for byte as netCDF's ncdump writes them. What ncz-gen reads back
 * is in cdl-syntax.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Default significant digits of float and double data values. */
#define CDL_FLOAT_DIGITS 7
#define CDL_DOUBLE_DIGITS 15

/* A name (dimension, variable, attribute, group, dataset) with the
 * characters special to CDL escaped by a backslash, control characters
 * written as \%xx and a leading digit escaped. */
void cdl_append_name (GString *out, const char *name);

/* A char or string attribute value in double quotes. Trailing NULs are
 * dropped; control characters become C escapes or \ooo octal; other
 * bytes, including non-ASCII ones, are copied. */
void cdl_append_attribute_text (GString *out, const char *text, gsize length);

/* A row of a char variable in double quotes. Trailing NULs are dropped;
 * a newline also breaks the string onto a new line; non-printable bytes
 * (and every byte >= 0x80) are written in octal. */
void cdl_append_data_chars (GString *out, const char *text, gsize length);

/* One value of a string variable in double quotes; NULL is written NIL. */
void cdl_append_data_string (GString *out, const char *text);

/* Attribute values: "%#.<digits>g" with trailing zeros after the
 * decimal point removed; NaN and the infinities by name. Floats get the
 * "f" suffix. */
void cdl_append_attribute_float (GString *out, float value, int digits);
void cdl_append_attribute_double (GString *out, double value, int digits);

/* How the data section prints the values of one variable. */
typedef enum
{
  CDL_ARG_INT,              /* byte, short, int */
  CDL_ARG_UINT,             /* ubyte, ushort, uint */
  CDL_ARG_INT64,
  CDL_ARG_UINT64,
  CDL_ARG_FLOAT,
  CDL_ARG_DOUBLE,
} CdlArgKind;

typedef struct
{
  CdlArgKind kind;
  gboolean custom;          /* from a C_format attribute */
  char format[128];         /* printf format for one value */
} CdlValueFormat;

/* The default format of a numeric value: "%d", "%u", "%lld", "%llu", or
 * "%.<digits>g" for floats and doubles. */
void cdl_value_format_init (CdlValueFormat *vf, CdlArgKind kind, int digits);

/* Replaces the format by a variable's C_format attribute when it holds
 * exactly one conversion suitable for the kind of value ("%d", "%5.2f",
 * "x=%g units", ...). Returns FALSE, leaving @vf alone, otherwise. */
gboolean cdl_value_format_set_c_format (CdlValueFormat *vf, const char *c_format);

/* Appends one value: @value points to a gint32/guint32-widened integer
 * (see CdlArgKind), a gint64, a guint64, a float or a double. */
void cdl_value_format_append (const CdlValueFormat *vf, GString *out,
                              gconstpointer value);

G_END_DECLS
