/* cdl-syntax.c: the words and characters of CDL, for the tools that read
 * it (ncz-gen) and write it (ncz-dump)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "cdl-syntax.h"

#include <math.h>
#include <string.h>

static const struct {
  const char *word;
  NczDataType type;
} type_keywords[] = {
  /* the keyword ncdump writes comes first for each type */
  { "char", NCZ_DATA_TYPE_CHAR }, { "byte", NCZ_DATA_TYPE_BYTE },
  { "ubyte", NCZ_DATA_TYPE_UBYTE }, { "short", NCZ_DATA_TYPE_SHORT },
  { "ushort", NCZ_DATA_TYPE_USHORT }, { "int", NCZ_DATA_TYPE_INT },
  { "integer", NCZ_DATA_TYPE_INT }, { "long", NCZ_DATA_TYPE_INT },
  { "uint", NCZ_DATA_TYPE_UINT }, { "int64", NCZ_DATA_TYPE_INT64 },
  { "uint64", NCZ_DATA_TYPE_UINT64 }, { "float", NCZ_DATA_TYPE_FLOAT },
  { "real", NCZ_DATA_TYPE_FLOAT }, { "double", NCZ_DATA_TYPE_DOUBLE },
  { "string", NCZ_DATA_TYPE_STRING },
};

NczDataType
cdl_type_from_keyword (const char *word)
{
  for (gsize i = 0; i < G_N_ELEMENTS (type_keywords); i++)
    if (strcmp (word, type_keywords[i].word) == 0)
      return type_keywords[i].type;
  return NCZ_DATA_TYPE_NONE;
}

const char *
cdl_type_keyword (NczDataType type)
{
  for (gsize i = 0; i < G_N_ELEMENTS (type_keywords); i++)
    if (type_keywords[i].type == type)
      return type_keywords[i].word;
  return NULL;
}

static const struct {
  const char *read;      /* as the reader matches it, lower case */
  NczDataType type;
  const char *written;   /* as ncdump writes it; NULL: never written */
} suffixes[] = {
  { "b", NCZ_DATA_TYPE_BYTE, "b" }, { "ub", NCZ_DATA_TYPE_UBYTE, "UB" },
  { "s", NCZ_DATA_TYPE_SHORT, "s" }, { "us", NCZ_DATA_TYPE_USHORT, "US" },
  { "l", NCZ_DATA_TYPE_INT, NULL }, { "u", NCZ_DATA_TYPE_UINT, "U" },
  { "ul", NCZ_DATA_TYPE_UINT, NULL }, { "ll", NCZ_DATA_TYPE_INT64, "LL" },
  { "ull", NCZ_DATA_TYPE_UINT64, "ULL" }, { "f", NCZ_DATA_TYPE_FLOAT, "f" },
  { "d", NCZ_DATA_TYPE_DOUBLE, NULL },
};

NczDataType
cdl_type_from_suffix (const char *suffix)
{
  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_ascii_strcasecmp (suffix, suffixes[i].read) == 0)
      return suffixes[i].type;
  return NCZ_DATA_TYPE_NONE;
}

const char *
cdl_type_suffix (NczDataType type)
{
  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (suffixes[i].type == type && suffixes[i].written != NULL)
      return suffixes[i].written;
  return "";
}

gboolean
cdl_special_real_from_word (const char *word, double *value, NczDataType *type)
{
  static const struct { const char *word; double value; NczDataType type; } words[] = {
    { "NaN", NAN, NCZ_DATA_TYPE_DOUBLE }, { "NaNf", NAN, NCZ_DATA_TYPE_FLOAT },
    { "nan", NAN, NCZ_DATA_TYPE_DOUBLE }, { "nanf", NAN, NCZ_DATA_TYPE_FLOAT },
    { "Infinity", INFINITY, NCZ_DATA_TYPE_DOUBLE }, { "Infinityf", INFINITY, NCZ_DATA_TYPE_FLOAT },
    { "Inf", INFINITY, NCZ_DATA_TYPE_DOUBLE }, { "Inff", INFINITY, NCZ_DATA_TYPE_FLOAT },
    { "inf", INFINITY, NCZ_DATA_TYPE_DOUBLE }, { "inff", INFINITY, NCZ_DATA_TYPE_FLOAT },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (strcmp (word, words[i].word) == 0)
      {
        *value = words[i].value;
        *type = words[i].type;
        return TRUE;
      }
  return FALSE;
}

void
cdl_append_special_real (GString *out, double value, const char *suffix)
{
  if (isnan (value))
    g_string_append (out, "NaN");
  else
    g_string_append (out, value < 0 ? "-Infinity" : "Infinity");
  g_string_append (out, suffix);
}

gboolean
cdl_is_name_start_char (int ch)
{
  return ch >= 0 && (g_ascii_isalpha (ch) || ch == '_' || ch >= 0x80 || ch == '\\');
}

gboolean
cdl_is_name_char (int ch)
{
  return ch >= 0 && (g_ascii_isalnum (ch) || ch == '_' || ch == '.' || ch == '@' ||
                     ch == '+' || ch == '-' || ch >= 0x80 || ch == '\\');
}

gboolean
cdl_is_keyword (const char *name)
{
  static const char * const keywords[] = {
    "variables", "dimensions", "data", "group", "types",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (keywords); i++)
    if (strcmp (name, keywords[i]) == 0)
      return TRUE;
  return FALSE;
}

gssize
cdl_decode_escape (const char *text, gsize length, guint8 *out)
{
  const guchar *p = (const guchar *) text;
  gsize n = 1;

  if (length == 0)
    return 0;
  switch (p[0])
    {
    case 'n': *out = '\n'; return 1;
    case 't': *out = '\t'; return 1;
    case 'r': *out = '\r'; return 1;
    case 'b': *out = '\b'; return 1;
    case 'f': *out = '\f'; return 1;
    case 'v': *out = '\v'; return 1;
    case 'a': *out = '\a'; return 1;
    case 'x':
    case 'X':
      {
        guint v = 0;
        while (n < 3 && n < length && g_ascii_isxdigit (p[n]))
          v = v * 16 + (guint) g_ascii_xdigit_value ((char) p[n++]);
        if (n == 1)
          return -1;
        *out = (guint8) v;
        return (gssize) n;
      }
    default:
      if (p[0] >= '0' && p[0] <= '7')
        {
          guint v = (guint) (p[0] - '0');
          while (n < 3 && n < length && p[n] >= '0' && p[n] <= '7')
            v = v * 8 + (guint) (p[n++] - '0');
          *out = (guint8) v;
          return (gssize) n;
        }
      *out = p[0];     /* \\ \" \' \? and any other character as itself */
      return 1;
    }
}
