/* ncz-cdl-lexer.c: CDL text to tokens, and errors at a line and column
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl-private.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "cdl-syntax.h"

/* ---- errors ---- */

gboolean
cdl_fail_at (Cdl *c, guint line, guint col, int code, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *raw = NULL;
  g_autofree char *msg = NULL;

  if (c->error != NULL)
    return FALSE;
  va_start (ap, fmt);
  raw = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  msg = g_utf8_make_valid (raw, -1);
  g_set_error (&c->error, NCZ_CDL_ERROR, code, "%s:%u:%u: %s", c->source, line, col, msg);
  return FALSE;
}

gboolean
cdl_fail_model (Cdl *c, guint line, guint col, GError *model_error)
{
  cdl_fail_at (c, line, col, NCZ_CDL_ERROR_INVALID, "%s",
           model_error ? model_error->message : "failed");
  g_clear_error (&model_error);
  return FALSE;
}

char *
cdl_lex_describe (Cdl *c)
{
  Token *t = &c->tok;
  switch (t->kind)
    {
    case TOK_EOF: return g_strdup ("end of file");
    case TOK_IDENT: return g_strdup_printf ("'%s'", g_utf8_validate (t->text->str, -1, NULL) ? t->text->str : "?");
    case TOK_NUMBER: return g_strdup ("a number");
    case TOK_STRING: return g_strdup ("a string");
    case TOK_CHAR: return g_strdup ("a character constant");
    case TOK_FILL: return g_strdup ("'_'");
    case TOK_NIL: return g_strdup ("NIL");
    case TOK_PUNCT: return g_strdup_printf ("'%c'", t->punct);
    default: return g_strdup ("?");
    }
}

gboolean
cdl_fail_expected (Cdl *c, const char *what, const char *context)
{
  g_autofree char *got = cdl_lex_describe (c);
  return cdl_fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "expected %s %s, found %s", what, context, got);
}

/* ---- lexer ---- */

static int
peekc (Cdl *c, gsize ahead)
{
  return c->pos + ahead < c->len ? (guchar) c->text[c->pos + ahead] : -1;
}

static void
advance (Cdl *c)
{
  if (c->pos < c->len)
    {
      if (c->text[c->pos] == '\n')
        {
          c->line++;
          c->line_start = c->pos + 1;
        }
      c->pos++;
    }
}

static guint
column (Cdl *c)
{
  return (guint) (c->pos - c->line_start) + 1;
}

static void
skip_space (Cdl *c)
{
  for (;;)
    {
      int ch = peekc (c, 0);
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v')
        advance (c);
      else if (ch == '/' && peekc (c, 1) == '/')
        {
          while (peekc (c, 0) != -1 && peekc (c, 0) != '\n')
            advance (c);
        }
      else
        return;
    }
}

/* One escape sequence after a backslash, inside a string or character
 * constant; the backslash has been consumed. */
static gboolean
lex_escape (Cdl *c, guint8 *out)
{
  gssize used;

  if (peekc (c, 0) == -1)
    return cdl_fail_at (c, c->line, column (c), NCZ_CDL_ERROR_SYNTAX, "unterminated escape sequence");
  used = cdl_decode_escape (c->text + c->pos, c->len - c->pos, out);
  if (used < 0)
    {
      advance (c);   /* the x */
      return cdl_fail_at (c, c->line, column (c), NCZ_CDL_ERROR_SYNTAX,
                          "\\x must be followed by hexadecimal digits");
    }
  for (gssize i = 0; i < used; i++)
    advance (c);
  return TRUE;
}

/* One character of a string or character constant, escaped or not */
static gboolean
lex_one_char (Cdl *c, guint8 *b)
{
  if (peekc (c, 0) == '\\')
    {
      advance (c);
      return lex_escape (c, b);
    }
  *b = (guint8) peekc (c, 0);
  advance (c);
  return TRUE;
}

static gboolean
lex_string (Cdl *c, Token *t)
{
  advance (c);   /* opening quote */
  for (;;)
    {
      int ch = peekc (c, 0);
      guint8 b;
      if (ch == -1 || ch == '\n')
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unterminated string");
      if (ch == '"')
        {
          advance (c);
          break;
        }
      if (!lex_one_char (c, &b))
        return FALSE;
      g_string_append_c (t->text, (char) b);
    }
  t->kind = TOK_STRING;
  return TRUE;
}

static gboolean
lex_char (Cdl *c, Token *t)
{
  int ch;
  guint8 b;

  advance (c);
  ch = peekc (c, 0);
  if (ch == -1 || ch == '\n' || ch == '\'')
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad character constant");
  if (!lex_one_char (c, &b))
    return FALSE;
  if (peekc (c, 0) != '\'')
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
                    "character constant must hold one character");
  advance (c);
  t->kind = TOK_CHAR;
  memset (&t->num, 0, sizeof t->num);
  t->num.kind = VAL_CHAR;
  t->num.ch = b;
  return TRUE;
}

/* Reads identifier characters (with backslash escapes) into t->text. */
static void
lex_ident_chars (Cdl *c, Token *t)
{
  while (cdl_is_name_char (peekc (c, 0)))
    {
      int ch = peekc (c, 0);
      if (ch == '\\')
        {
          advance (c);
          if (peekc (c, 0) == -1)
            break;
          ch = peekc (c, 0);
          t->escaped = TRUE;
        }
      g_string_append_c (t->text, (char) ch);
      advance (c);
    }
}

/* strtof of @digits (digits, '.', an exponent) whatever the locale's
 * decimal point. */
static float
ascii_strtof (const char *digits)
{
  static locale_t c_locale;
  static gsize once;
  locale_t old;
  float f;

  if (g_once_init_enter (&once))
    {
      c_locale = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
      g_once_init_leave (&once, 1);
    }
  if (c_locale == (locale_t) 0)
    return (float) g_ascii_strtod (digits, NULL);   /* no C locale: rounded twice */
  old = uselocale (c_locale);
  f = strtof (digits, NULL);
  uselocale (old);
  return f;
}

static gboolean
lex_number (Cdl *c, Token *t)
{
  gsize begin = c->pos;
  gboolean neg = FALSE, is_real = FALSE, hex = FALSE;
  gsize digits_begin, digits_end;
  g_autofree char *digits = NULL;
  char suffix[8];
  gsize n_suffix = 0;
  Value *v = &t->num;

  memset (v, 0, sizeof *v);
  v->kind = VAL_NUMBER;
  if (peekc (c, 0) == '-' || peekc (c, 0) == '+')
    {
      neg = peekc (c, 0) == '-';
      advance (c);
    }
  if (cdl_is_name_start_char (peekc (c, 0)))
    {
      /* -Infinity, -NaNf, ... */
      g_string_truncate (t->text, 0);
      lex_ident_chars (c, t);
      if (!cdl_special_real_from_word (t->text->str, &v->real, &v->type))
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
      if (neg)
        v->real = -v->real;
      v->is_real = TRUE;
      t->kind = TOK_NUMBER;
      return TRUE;
    }
  digits_begin = c->pos;
  if (peekc (c, 0) == '0' && (peekc (c, 1) == 'x' || peekc (c, 1) == 'X') &&
      peekc (c, 2) != -1 && g_ascii_isxdigit (peekc (c, 2)))
    {
      hex = TRUE;
      advance (c);
      advance (c);
      digits_begin = c->pos;
      while (peekc (c, 0) != -1 && g_ascii_isxdigit (peekc (c, 0)))
        advance (c);
    }
  else
    {
      gboolean any = FALSE;
      while (peekc (c, 0) != -1 && g_ascii_isdigit (peekc (c, 0)))
        {
          advance (c);
          any = TRUE;
        }
      if (peekc (c, 0) == '.')
        {
          is_real = TRUE;
          advance (c);
          while (peekc (c, 0) != -1 && g_ascii_isdigit (peekc (c, 0)))
            {
              advance (c);
              any = TRUE;
            }
        }
      if (!any)
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
      if ((peekc (c, 0) == 'e' || peekc (c, 0) == 'E') &&
          (g_ascii_isdigit (peekc (c, 1)) ||
           ((peekc (c, 1) == '+' || peekc (c, 1) == '-') && g_ascii_isdigit (peekc (c, 2)))))
        {
          is_real = TRUE;
          advance (c);
          if (peekc (c, 0) == '+' || peekc (c, 0) == '-')
            advance (c);
          while (peekc (c, 0) != -1 && g_ascii_isdigit (peekc (c, 0)))
            advance (c);
        }
    }
  digits_end = c->pos;
  while (peekc (c, 0) != -1 && g_ascii_isalpha (peekc (c, 0)) && !hex)
    {
      if (n_suffix < sizeof suffix - 1)
        suffix[n_suffix] = g_ascii_tolower ((char) peekc (c, 0));
      n_suffix++;
      advance (c);
    }
  if (n_suffix >= sizeof suffix)
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number suffix");
  suffix[n_suffix] = '\0';
  if (cdl_is_name_char (peekc (c, 0)) && peekc (c, 0) != '-' && peekc (c, 0) != '+')
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
  digits = g_strndup (c->text + digits_begin, digits_end - digits_begin);
  (void) begin;

  /* A real number, or an integer with the suffix f or d: rounded once,
   * from its decimal text, as strtof and strtod round it (so 3.4028235e+38f
   * is FLT_MAX, 1e-45f the smallest denormal, 3.5e+38f Infinity). */
  if (is_real || (!hex && (strcmp (suffix, "f") == 0 || strcmp (suffix, "d") == 0)))
    {
      if (strcmp (suffix, "f") == 0)
        v->type = NCZ_DATA_TYPE_FLOAT;
      else if (strcmp (suffix, "d") == 0 || n_suffix == 0)
        v->type = NCZ_DATA_TYPE_DOUBLE;
      else
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
                        "bad suffix '%s' for a real number", suffix);
      v->is_real = TRUE;
      v->real = v->type == NCZ_DATA_TYPE_FLOAT ? (double) ascii_strtof (digits) : g_ascii_strtod (digits, NULL);
      if (neg)
        v->real = -v->real;
      t->kind = TOK_NUMBER;
      return TRUE;
    }

  errno = 0;
  v->mag = g_ascii_strtoull (digits, NULL, hex ? 16 : 10);
  if (errno == ERANGE)
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "integer constant too large");
  v->neg = neg && v->mag != 0;
  if (n_suffix == 0)
    {
      if (neg)
        {
          if (v->mag <= (guint64) G_MAXINT32 + 1)
            v->type = NCZ_DATA_TYPE_INT;
          else if (v->mag <= (guint64) G_MAXINT64 + 1)
            v->type = NCZ_DATA_TYPE_INT64;
          else
            return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "integer constant too large");
        }
      else if (v->mag <= G_MAXINT32)
        v->type = NCZ_DATA_TYPE_INT;
      else if (v->mag <= G_MAXUINT32)
        v->type = NCZ_DATA_TYPE_UINT;
      else
        v->type = NCZ_DATA_TYPE_UINT64;
    }
  else
    {
      v->type = cdl_type_from_suffix (suffix);
      if (v->type == NCZ_DATA_TYPE_NONE)
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number suffix '%s'", suffix);
      if (neg && v->neg && ncz_data_type_is_unsigned (v->type))
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
                        "unsigned integer constant cannot be negative");
    }
  t->kind = TOK_NUMBER;
  return TRUE;
}

gboolean
cdl_lex_next (Cdl *c)
{
  Token *t = &c->tok;
  int ch;

  if (c->error)
    return FALSE;
  skip_space (c);
  g_string_truncate (t->text, 0);
  t->escaped = FALSE;
  t->is_path = FALSE;
  t->colon_follows = FALSE;
  t->line = c->line;
  t->col = column (c);
  ch = peekc (c, 0);
  if (ch == -1)
    {
      t->kind = TOK_EOF;
      return TRUE;
    }
  if (ch == '\0')
    return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "NUL byte in the text");
  if (ch == '"')
    return lex_string (c, t);
  if (ch == '\'')
    return lex_char (c, t);
  if (g_ascii_isdigit (ch) || ch == '.' ||
      ((ch == '-' || ch == '+') && (g_ascii_isdigit (peekc (c, 1)) || peekc (c, 1) == '.' ||
                                    cdl_is_name_start_char (peekc (c, 1)))))
    return lex_number (c, t);
  if (ch == '/' && cdl_is_name_start_char (peekc (c, 1)))
    {
      while (peekc (c, 0) == '/' && cdl_is_name_start_char (peekc (c, 1)))
        {
          g_string_append_c (t->text, '/');
          advance (c);
          lex_ident_chars (c, t);
        }
      t->is_path = TRUE;
      t->kind = TOK_IDENT;
      if (!g_utf8_validate (t->text->str, (gssize) t->text->len, NULL))
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "a name that is not UTF-8");
    }
  else if (cdl_is_name_start_char (ch))
    {
      lex_ident_chars (c, t);
      t->kind = TOK_IDENT;
      if (t->text->len == 0)
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad name");
      if (!g_utf8_validate (t->text->str, (gssize) t->text->len, NULL))
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "a name that is not UTF-8");
      if (!t->escaped)
        {
          double real;
          NczDataType type;
          if (strcmp (t->text->str, "_") == 0)
            t->kind = TOK_FILL;
          else if (strcmp (t->text->str, "NIL") == 0)
            t->kind = TOK_NIL;
          else if (cdl_special_real_from_word (t->text->str, &real, &type))
            {
              memset (&t->num, 0, sizeof t->num);
              t->num.kind = VAL_NUMBER;
              t->num.is_real = TRUE;
              t->num.real = real;
              t->num.type = type;
              t->kind = TOK_NUMBER;
            }
        }
    }
  else if (strchr ("{}(),;:=", ch) != NULL)
    {
      t->kind = TOK_PUNCT;
      t->punct = (char) ch;
      advance (c);
      return TRUE;
    }
  else
    {
      if (ch >= 0x20 && ch < 0x7f)
        return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unexpected character '%c'", ch);
      return cdl_fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unexpected byte 0x%02x", (guint) ch);
    }
  if (t->kind == TOK_IDENT)
    {
      gsize p = c->pos;
      while (p < c->len && (c->text[p] == ' ' || c->text[p] == '\t'))
        p++;
      t->colon_follows = p < c->len && c->text[p] == ':';
    }
  return TRUE;
}

gboolean
cdl_lex_is_punct (Cdl *c, char p)
{
  return c->tok.kind == TOK_PUNCT && c->tok.punct == p;
}

gboolean
cdl_lex_is_word (Cdl *c, const char *word)
{
  return c->tok.kind == TOK_IDENT && !c->tok.escaped && !c->tok.is_path &&
         strcmp (c->tok.text->str, word) == 0;
}

gboolean
cdl_lex_expect_punct (Cdl *c, char p, const char *context)
{
  char what[8];
  if (!cdl_lex_is_punct (c, p))
    {
      g_snprintf (what, sizeof what, "'%c'", p);
      return cdl_fail_expected (c, what, context);
    }
  return cdl_lex_next (c);
}
