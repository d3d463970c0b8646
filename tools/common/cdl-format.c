/* cdl-format.c: CDL text as ncdump writes it: names, quoted text,
 * attribute values and the values of data sections
 *
 * The rules reproduce the output of netCDF's ncdump, so that dumps made
 * by either tool can be compared byte for byte; what ncz-gen reads back
 * (names, escapes, suffixes, NaN and the infinities) is in cdl-syntax.c.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "cdl-format.h"
#include "cdl-syntax.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Character classes of the "C" locale, independent of the process locale. */
static gboolean
c_is_control (guchar c)
{
  return c < 0x20 || c == 0x7f;
}

static gboolean
c_is_printable (guchar c)
{
  return c >= 0x20 && c < 0x7f;
}

void
cdl_append_name (GString *out, const char *name)
{
  static const char special[] = " !\"#$&'()*,:;<=>?[\\]^`{|}~";
  const guchar *p = (const guchar *) name;

  if (*p >= '0' && *p <= '9')
    g_string_append_c (out, '\\');
  for (; *p; p++)
    {
      if (*p >= 0x80)
        g_string_append_c (out, (char) *p);
      else if (c_is_control (*p))
        g_string_append_printf (out, "\\%%%.2x", (unsigned) *p);
      else if (strchr (special, *p) != NULL)
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) *p);
        }
      else
        g_string_append_c (out, (char) *p);
    }
}

/* Length of @text once trailing NULs are removed. */
static gsize
trimmed_length (const char *text, gsize length)
{
  while (length > 0 && text[length - 1] == '\0')
    length--;
  return length;
}

/* The escapes shared by every kind of quoted value; returns FALSE if
 * @c is not one of them. */
static gboolean
append_common_escape (GString *out, guchar c)
{
  const char *esc;

  switch (c)
    {
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    case '\\': esc = "\\\\"; break;
    case '\'': esc = "\\'"; break;
    case '"': esc = "\\\""; break;
    default: return FALSE;
    }
  g_string_append (out, esc);
  return TRUE;
}

void
cdl_append_attribute_text (GString *out, const char *text, gsize length)
{
  length = trimmed_length (text, length);
  g_string_append_c (out, '"');
  for (gsize i = 0; i < length; i++)
    {
      guchar c = (guchar) text[i];

      if (append_common_escape (out, c))
        continue;
      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\v')
        g_string_append (out, "\\v");
      else if (c_is_control (c))
        g_string_append_printf (out, "\\%03o", (unsigned) c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

void
cdl_append_data_chars (GString *out, const char *text, gsize length)
{
  length = trimmed_length (text, length);
  g_string_append_c (out, '"');
  for (gsize i = 0; i < length; i++)
    {
      guchar c = (guchar) text[i];

      if (append_common_escape (out, c))
        continue;
      if (c == '\n')
        g_string_append (out, "\\n\",\n    \"");
      else if (c == '\v')
        g_string_append (out, "\\v");
      else if (c_is_printable (c))
        g_string_append_c (out, (char) c);
      else
        g_string_append_printf (out, "\\%.3o", (unsigned) c);
    }
  g_string_append_c (out, '"');
}

void
cdl_append_data_string (GString *out, const char *text)
{
  if (text == NULL)
    {
      g_string_append (out, "NIL");
      return;
    }
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      if (append_common_escape (out, *p))
        continue;
      /* ncdump writes a vertical tab in string data as \n */
      if (*p == '\n' || *p == '\v')
        g_string_append (out, "\\n");
      else if (c_is_control (*p))
        g_string_append_printf (out, "\\%03o", (unsigned) *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

/* Removes the zeros that end the fraction of a "%#g"-formatted number,
 * keeping the decimal point and any exponent: "1.500000e+30" becomes
 * "1.5e+30", "2.000000" becomes "2.". */
static void
trim_fraction_zeros (char *s)
{
  char *mantissa_end;
  char *last;
  char *p = s;

  if (*p == '-')
    p++;
  while (g_ascii_isdigit (*p) || *p == '.')
    p++;
  mantissa_end = p;
  if (memchr (s, '.', (gsize) (mantissa_end - s)) == NULL)
    return;
  last = mantissa_end - 1;
  while (*last == '0')
    last--;
  last++;
  if (last != mantissa_end)
    memmove (last, mantissa_end, strlen (mantissa_end) + 1);
}


static void
append_attribute_real (GString *out, double value, int digits,
                       const char *suffix)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 64];

  if (!isfinite (value))
    {
      cdl_append_special_real (out, value, suffix);
      return;
    }
  g_snprintf (buf, sizeof buf, "%#.*g", digits, value);
  trim_fraction_zeros (buf);
  g_string_append (out, buf);
  g_string_append (out, suffix);
}

void
cdl_append_attribute_float (GString *out, float value, int digits)
{
  append_attribute_real (out, value, digits, "f");
}

void
cdl_append_attribute_double (GString *out, double value, int digits)
{
  append_attribute_real (out, value, digits, "");
}

void
cdl_value_format_init (CdlValueFormat *vf, CdlArgKind kind, int digits)
{
  vf->kind = kind;
  vf->custom = FALSE;
  switch (kind)
    {
    case CDL_ARG_INT: g_strlcpy (vf->format, "%d", sizeof vf->format); break;
    case CDL_ARG_UINT: g_strlcpy (vf->format, "%u", sizeof vf->format); break;
    case CDL_ARG_INT64: g_strlcpy (vf->format, "%lld", sizeof vf->format); break;
    case CDL_ARG_UINT64: g_strlcpy (vf->format, "%llu", sizeof vf->format); break;
    case CDL_ARG_FLOAT:
    case CDL_ARG_DOUBLE:
    default:
      g_snprintf (vf->format, sizeof vf->format, "%%.%dg", CLAMP (digits, 1, 40));
      break;
    }
}

/* Copies literal text, which may hold "%%" but no conversion. */
static gboolean
copy_literal (GString *out, const char *start, const char *end)
{
  for (const char *p = start; p < end; p++)
    {
      if (*p == '%')
        {
          if (p + 1 >= end || p[1] != '%')
            return FALSE;
          g_string_append (out, "%%");
          p++;
          continue;
        }
      g_string_append_c (out, *p);
    }
  return TRUE;
}

gboolean
cdl_value_format_set_c_format (CdlValueFormat *vf, const char *c_format)
{
  g_autoptr(GString) f = g_string_new (NULL);
  const char *p = c_format;
  const char *spec = NULL;
  const char *conversions;
  char conversion;

  /* find the one conversion */
  for (const char *q = c_format; *q; q++)
    if (*q == '%')
      {
        if (q[1] == '%')
          {
            q++;
            continue;
          }
        if (spec)
          return FALSE;
        spec = q;
      }
  if (spec == NULL || !copy_literal (f, c_format, spec))
    return FALSE;

  g_string_append_c (f, '%');
  p = spec + 1;
  while (*p && strchr ("-+ #0", *p))
    g_string_append_c (f, *p++);
  for (int n = 0; g_ascii_isdigit (*p); n++)
    {
      if (n >= 3)
        return FALSE;
      g_string_append_c (f, *p++);
    }
  if (*p == '.')
    {
      g_string_append_c (f, *p++);
      for (int n = 0; g_ascii_isdigit (*p); n++)
        {
          if (n >= 2)
            return FALSE;
          g_string_append_c (f, *p++);
        }
    }
  /* the length modifier follows from the value's type, not the text */
  while (*p && strchr ("hlLqjzt", *p))
    p++;
  conversion = *p++;
  switch (vf->kind)
    {
    case CDL_ARG_FLOAT:
    case CDL_ARG_DOUBLE:
      conversions = "eEfFgGaA";
      break;
    case CDL_ARG_INT64:
    case CDL_ARG_UINT64:
      conversions = "diouxX";
      g_string_append (f, "ll");
      break;
    case CDL_ARG_INT:
    case CDL_ARG_UINT:
    default:
      conversions = "diouxXc";
      break;
    }
  if (conversion == '\0' || strchr (conversions, conversion) == NULL)
    return FALSE;
  g_string_append_c (f, conversion);
  if (!copy_literal (f, p, p + strlen (p)) || f->len >= sizeof vf->format)
    return FALSE;
  g_strlcpy (vf->format, f->str, sizeof vf->format);
  vf->custom = TRUE;
  return TRUE;
}

/* Formats with the checked format of @vf; the argument has the type the
 * format's conversion and length modifier expect. */
static void
append_formatted (GString *out, gboolean custom, const char *format, ...)
{
  char buf[128];
  va_list args;
  int n;

  va_start (args, format);
  if (custom)
    g_string_append_vprintf (out, format, args);   /* any width */
  else
    {
      n = g_vsnprintf (buf, sizeof buf, format, args);
      if (n > 0)
        g_string_append_len (out, buf, MIN ((gsize) n, sizeof buf - 1));
    }
  va_end (args);
}

void
cdl_value_format_append (const CdlValueFormat *vf, GString *out, gconstpointer value)
{
  switch (vf->kind)
    {
    case CDL_ARG_INT:
      append_formatted (out, vf->custom, vf->format, (int) *(const gint32 *) value);
      break;
    case CDL_ARG_UINT:
      append_formatted (out, vf->custom, vf->format, (unsigned) *(const guint32 *) value);
      break;
    case CDL_ARG_INT64:
      append_formatted (out, vf->custom, vf->format, (long long) *(const gint64 *) value);
      break;
    case CDL_ARG_UINT64:
      append_formatted (out, vf->custom, vf->format,
                        (unsigned long long) *(const guint64 *) value);
      break;
    case CDL_ARG_FLOAT:
      {
        float f = *(const float *) value;
        if (isfinite (f))
          append_formatted (out, vf->custom, vf->format, (double) f);
        else
          cdl_append_special_real (out, f, "f");
      }
      break;
    case CDL_ARG_DOUBLE:
    default:
      {
        double x = *(const double *) value;
        if (isfinite (x))
          append_formatted (out, vf->custom, vf->format, x);
        else
          cdl_append_special_real (out, x, "");
      }
      break;
    }
}
