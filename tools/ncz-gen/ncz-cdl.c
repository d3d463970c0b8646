/* ncz-cdl.c: a CDL lexer and parser that builds an Ncz dataset
 *
 * One pass over the text defines groups, dimensions, variables and
 * attributes as they come (so attribute order is kept, and errors of the
 * model are reported at the line that caused them); data sections are
 * collected and written once the whole text has been read, because an
 * unlimited dimension may be used by variables of several groups.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include <ncz/ncz-module.h>

G_DEFINE_QUARK (ncz-cdl-error-quark, ncz_cdl_error)

/* ---- tokens ---- */

typedef enum {
  TOK_EOF,
  TOK_IDENT,     /* a name (unescaped) or a /path/name */
  TOK_NUMBER,
  TOK_STRING,
  TOK_CHAR,      /* 'c' */
  TOK_FILL,      /* _ */
  TOK_NIL,       /* NIL */
  TOK_PUNCT,     /* { } ( ) , ; : = */
} TokKind;

typedef enum {
  VAL_NUMBER,
  VAL_STRING,
  VAL_CHAR,
  VAL_FILL,
  VAL_NIL,
} ValKind;

/* A constant of an attribute or data list. */
typedef struct {
  ValKind kind;
  guint line, col;
  NczDataType type;        /* VAL_NUMBER: the type its form gives it */
  gboolean is_real;
  double real;
  guint64 mag;         /* integer magnitude */
  gboolean neg;
  guint8 ch;           /* VAL_CHAR */
  char *str;           /* VAL_STRING: bytes, NUL-terminated, may hold NULs */
  gsize str_len;
} Value;

typedef struct {
  TokKind kind;
  guint line, col;
  char punct;
  GString *text;       /* TOK_IDENT, TOK_STRING */
  gboolean escaped;    /* an identifier written with backslashes */
  gboolean is_path;
  gboolean colon_follows;
  Value num;           /* TOK_NUMBER, TOK_CHAR */
} Token;

typedef struct {
  NczVariable *var;
  GArray *values;      /* Value */
  guint line, col;
} DataItem;

typedef struct {
  const char *text;
  gsize len;
  gsize pos;
  guint line;
  gsize line_start;
  const char *source;
  Token tok;
  NczDataset *ds;
  guint64 max_elements;
  GPtrArray *data;     /* DataItem */
  GError *error;
  guint depth;
} Cdl;

#define MAX_GROUP_DEPTH 256

static void
value_clear (gpointer p)
{
  Value *v = p;
  g_clear_pointer (&v->str, g_free);
}

static GArray *
value_list_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Value));
  g_array_set_clear_func (a, value_clear);
  return a;
}

static void
data_item_free (gpointer p)
{
  DataItem *d = p;
  g_object_unref (d->var);
  g_array_unref (d->values);
  g_free (d);
}

/* ---- errors ---- */

G_GNUC_PRINTF (5, 6) static gboolean
fail_at (Cdl *c, guint line, guint col, int code, const char *fmt, ...)
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

#define fail_tok(c, code, ...) fail_at ((c), (c)->tok.line, (c)->tok.col, (code), __VA_ARGS__)

/* A model error at a place in the text. */
static gboolean
fail_model (Cdl *c, guint line, guint col, GError *model_error)
{
  fail_at (c, line, col, NCZ_CDL_ERROR_INVALID, "%s",
           model_error ? model_error->message : "failed");
  g_clear_error (&model_error);
  return FALSE;
}

/* Describes the current token for messages. */
static char *
tok_describe (Cdl *c)
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

static gboolean
fail_expected (Cdl *c, const char *what, const char *context)
{
  g_autofree char *got = tok_describe (c);
  return fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "expected %s %s, found %s", what, context, got);
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

static gboolean
is_ident_start (int ch)
{
  return ch >= 0 && (g_ascii_isalpha (ch) || ch == '_' || ch >= 0x80 || ch == '\\');
}

static gboolean
is_ident_char (int ch)
{
  return ch >= 0 && (g_ascii_isalnum (ch) || ch == '_' || ch == '.' || ch == '@' ||
                     ch == '+' || ch == '-' || ch >= 0x80 || ch == '\\');
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
  int ch = peekc (c, 0);

  if (ch == -1)
    return fail_at (c, c->line, column (c), NCZ_CDL_ERROR_SYNTAX, "unterminated escape sequence");
  advance (c);
  switch (ch)
    {
    case 'n': *out = '\n'; return TRUE;
    case 't': *out = '\t'; return TRUE;
    case 'r': *out = '\r'; return TRUE;
    case 'b': *out = '\b'; return TRUE;
    case 'f': *out = '\f'; return TRUE;
    case 'v': *out = '\v'; return TRUE;
    case 'a': *out = '\a'; return TRUE;
    case 'x':
    case 'X':
      {
        guint v = 0, n = 0;
        while (n < 2 && peekc (c, 0) != -1 && g_ascii_isxdigit (peekc (c, 0)))
          {
            v = v * 16 + (guint) g_ascii_xdigit_value ((char) peekc (c, 0));
            advance (c);
            n++;
          }
        if (n == 0)
          return fail_at (c, c->line, column (c), NCZ_CDL_ERROR_SYNTAX,
                          "\\x must be followed by hexadecimal digits");
        *out = (guint8) v;
        return TRUE;
      }
    default:
      if (ch >= '0' && ch <= '7')
        {
          guint v = (guint) (ch - '0'), n = 1;
          while (n < 3 && peekc (c, 0) >= '0' && peekc (c, 0) <= '7')
            {
              v = v * 8 + (guint) (peekc (c, 0) - '0');
              advance (c);
              n++;
            }
          *out = (guint8) v;
          return TRUE;
        }
      *out = (guint8) ch;     /* \\ \" \' \? and any other character as itself */
      return TRUE;
    }
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
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unterminated string");
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
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad character constant");
  if (!lex_one_char (c, &b))
    return FALSE;
  if (peekc (c, 0) != '\'')
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
                    "character constant must hold one character");
  advance (c);
  t->kind = TOK_CHAR;
  memset (&t->num, 0, sizeof t->num);
  t->num.kind = VAL_CHAR;
  t->num.ch = b;
  return TRUE;
}

/* NaN, Infinity and their float forms, as identifiers spell them. */
static gboolean
special_real (const char *word, double *value, NczDataType *type)
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

/* Reads identifier characters (with backslash escapes) into t->text. */
static void
lex_ident_chars (Cdl *c, Token *t)
{
  while (is_ident_char (peekc (c, 0)))
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
  if (is_ident_start (peekc (c, 0)))
    {
      /* -Infinity, -NaNf, ... */
      g_string_truncate (t->text, 0);
      lex_ident_chars (c, t);
      if (!special_real (t->text->str, &v->real, &v->type))
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
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
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
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
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number suffix");
  suffix[n_suffix] = '\0';
  if (is_ident_char (peekc (c, 0)) && peekc (c, 0) != '-' && peekc (c, 0) != '+')
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number");
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
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
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
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "integer constant too large");
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
            return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "integer constant too large");
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
      static const struct { const char *s; NczDataType type; } suffixes[] = {
        { "b", NCZ_DATA_TYPE_BYTE }, { "ub", NCZ_DATA_TYPE_UBYTE }, { "s", NCZ_DATA_TYPE_SHORT },
        { "us", NCZ_DATA_TYPE_USHORT }, { "l", NCZ_DATA_TYPE_INT }, { "u", NCZ_DATA_TYPE_UINT },
        { "ul", NCZ_DATA_TYPE_UINT }, { "ll", NCZ_DATA_TYPE_INT64 }, { "ull", NCZ_DATA_TYPE_UINT64 },
        { "f", NCZ_DATA_TYPE_FLOAT }, { "d", NCZ_DATA_TYPE_DOUBLE },
      };
      v->type = NCZ_DATA_TYPE_NONE;
      for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
        if (strcmp (suffix, suffixes[i].s) == 0)
          v->type = suffixes[i].type;
      if (v->type == NCZ_DATA_TYPE_NONE)
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad number suffix '%s'", suffix);
      if (neg && v->neg && ncz_data_type_is_unsigned (v->type))
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX,
                        "unsigned integer constant cannot be negative");
    }
  t->kind = TOK_NUMBER;
  return TRUE;
}

/* Lexes the next token into c->tok. */
static gboolean
next (Cdl *c)
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
    return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "NUL byte in the text");
  if (ch == '"')
    return lex_string (c, t);
  if (ch == '\'')
    return lex_char (c, t);
  if (g_ascii_isdigit (ch) || ch == '.' ||
      ((ch == '-' || ch == '+') && (g_ascii_isdigit (peekc (c, 1)) || peekc (c, 1) == '.' ||
                                    is_ident_start (peekc (c, 1)))))
    return lex_number (c, t);
  if (ch == '/' && is_ident_start (peekc (c, 1)))
    {
      while (peekc (c, 0) == '/' && is_ident_start (peekc (c, 1)))
        {
          g_string_append_c (t->text, '/');
          advance (c);
          lex_ident_chars (c, t);
        }
      t->is_path = TRUE;
      t->kind = TOK_IDENT;
      if (!g_utf8_validate (t->text->str, (gssize) t->text->len, NULL))
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "a name that is not UTF-8");
    }
  else if (is_ident_start (ch))
    {
      lex_ident_chars (c, t);
      t->kind = TOK_IDENT;
      if (t->text->len == 0)
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "bad name");
      if (!g_utf8_validate (t->text->str, (gssize) t->text->len, NULL))
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "a name that is not UTF-8");
      if (!t->escaped)
        {
          double real;
          NczDataType type;
          if (strcmp (t->text->str, "_") == 0)
            t->kind = TOK_FILL;
          else if (strcmp (t->text->str, "NIL") == 0)
            t->kind = TOK_NIL;
          else if (special_real (t->text->str, &real, &type))
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
        return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unexpected character '%c'", ch);
      return fail_at (c, t->line, t->col, NCZ_CDL_ERROR_SYNTAX, "unexpected byte 0x%02x", (guint) ch);
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

static gboolean
is_punct (Cdl *c, char p)
{
  return c->tok.kind == TOK_PUNCT && c->tok.punct == p;
}

static gboolean
is_word (Cdl *c, const char *word)
{
  return c->tok.kind == TOK_IDENT && !c->tok.escaped && !c->tok.is_path &&
         strcmp (c->tok.text->str, word) == 0;
}

static gboolean
expect_punct (Cdl *c, char p, const char *context)
{
  char what[8];
  if (!is_punct (c, p))
    {
      g_snprintf (what, sizeof what, "'%c'", p);
      return fail_expected (c, what, context);
    }
  return next (c);
}

/* ---- types and values ---- */

static NczDataType
type_keyword (Cdl *c)
{
  static const struct { const char *word; NczDataType type; } words[] = {
    { "char", NCZ_DATA_TYPE_CHAR }, { "byte", NCZ_DATA_TYPE_BYTE }, { "ubyte", NCZ_DATA_TYPE_UBYTE },
    { "short", NCZ_DATA_TYPE_SHORT }, { "ushort", NCZ_DATA_TYPE_USHORT }, { "int", NCZ_DATA_TYPE_INT },
    { "integer", NCZ_DATA_TYPE_INT }, { "long", NCZ_DATA_TYPE_INT }, { "uint", NCZ_DATA_TYPE_UINT },
    { "int64", NCZ_DATA_TYPE_INT64 }, { "uint64", NCZ_DATA_TYPE_UINT64 }, { "float", NCZ_DATA_TYPE_FLOAT },
    { "real", NCZ_DATA_TYPE_FLOAT }, { "double", NCZ_DATA_TYPE_DOUBLE }, { "string", NCZ_DATA_TYPE_STRING },
  };
  if (c->tok.kind != TOK_IDENT || c->tok.escaped || c->tok.is_path)
    return NCZ_DATA_TYPE_NONE;
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (strcmp (c->tok.text->str, words[i].word) == 0)
      return words[i].type;
  return NCZ_DATA_TYPE_NONE;
}

static gboolean
is_user_type_keyword (Cdl *c)
{
  return is_word (c, "compound") || is_word (c, "enum") || is_word (c, "opaque");
}

/* The value's bits as a two's complement 64-bit integer. */
static guint64
value_bits (const Value *v)
{
  if (v->kind == VAL_CHAR)
    return v->ch;
  if (v->is_real)
    {
      double d = v->real;
      if (isnan (d))
        return 0;
      if (d >= 18446744073709551616.0)
        return G_MAXUINT64;
      if (d >= 9223372036854775808.0)
        return (guint64) d;
      if (d <= -9223372036854775808.0)
        return (guint64) G_MININT64;
      return (guint64) (gint64) d;
    }
  return v->neg ? (guint64) 0 - v->mag : v->mag;
}

static double
value_real (const Value *v)
{
  if (v->kind == VAL_CHAR)
    return v->ch;
  if (v->is_real)
    return v->real;
  return v->neg ? -(double) v->mag : (double) v->mag;
}

/* @v as a float, rounded once to nearest as C converts a value to float:
 * a double beyond FLT_MAX but below FLT_MAX + half a unit in the last
 * place is FLT_MAX, from there on it is Infinity (no undefined
 * conversion of an out-of-range double). */
static float
value_float (const Value *v)
{
  static const double overflow = 0x1.ffffffp+127;   /* FLT_MAX + half an ulp */
  double d;

  if (v->kind == VAL_CHAR)
    return v->ch;
  if (!v->is_real)
    return v->neg ? (float) (gint64) ((guint64) 0 - v->mag) : (float) v->mag;
  d = v->real;
  if (isnan (d) || isinf (d) || fabs (d) <= FLT_MAX)
    return (float) d;
  if (fabs (d) >= overflow)
    return d > 0 ? INFINITY : -INFINITY;
  return d > 0 ? FLT_MAX : -FLT_MAX;
}

/* Stores @v as one element of @type (numeric or char) at @out. */
static void
value_store (const Value *v, NczDataType type, guint8 *out)
{
  guint64 bits = value_bits (v);

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_CHAR:
      *out = (guint8) bits;
      break;
    case NCZ_DATA_TYPE_SHORT:
    case NCZ_DATA_TYPE_USHORT:
      {
        guint16 x = (guint16) bits;
        memcpy (out, &x, sizeof x);
        break;
      }
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UINT:
      {
        guint32 x = (guint32) bits;
        memcpy (out, &x, sizeof x);
        break;
      }
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
      memcpy (out, &bits, sizeof bits);
      break;
    case NCZ_DATA_TYPE_FLOAT:
      {
        float f = value_float (v);
        memcpy (out, &f, sizeof f);
        break;
      }
    case NCZ_DATA_TYPE_DOUBLE:
      {
        double d = value_real (v);
        memcpy (out, &d, sizeof d);
        break;
      }
    default:
      break;
    }
}

static int
type_rank (NczDataType t)
{
  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE: case NCZ_DATA_TYPE_UBYTE: return 1;
    case NCZ_DATA_TYPE_SHORT: case NCZ_DATA_TYPE_USHORT: return 2;
    case NCZ_DATA_TYPE_INT: case NCZ_DATA_TYPE_UINT: return 3;
    case NCZ_DATA_TYPE_INT64: case NCZ_DATA_TYPE_UINT64: return 4;
    case NCZ_DATA_TYPE_FLOAT: return 5;
    case NCZ_DATA_TYPE_DOUBLE: return 6;
    default: return 0;
    }
}

/* Parses one constant of an attribute or data list into @out. */
static gboolean
parse_value (Cdl *c, GArray *out, gboolean in_data)
{
  Value v = { 0 };
  Token *t = &c->tok;

  v.line = t->line;
  v.col = t->col;
  switch (t->kind)
    {
    case TOK_NUMBER:
    case TOK_CHAR:
      {
        guint line = v.line, col = v.col;
        v = t->num;
        v.line = line;
        v.col = col;
        v.str = NULL;
        break;
      }
    case TOK_STRING:
      v.kind = VAL_STRING;
      v.str_len = t->text->len;
      v.str = g_memdup2 (t->text->str, t->text->len + 1);
      break;
    case TOK_FILL:
      if (!in_data)
        return fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "the fill value '_' is only allowed in data");
      v.kind = VAL_FILL;
      break;
    case TOK_NIL:
      v.kind = VAL_NIL;
      break;
    case TOK_PUNCT:
      if (t->punct == '{')
        return fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "'{' groups values of user-defined types, which Ncz does not support");
      return fail_expected (c, "a value", in_data ? "in data" : "in attribute");
    default:
      return fail_expected (c, "a value", in_data ? "in data" : "in attribute");
    }
  g_array_append_val (out, v);
  return next (c);
}

/* value (',' value)* ';' */
static gboolean
parse_value_list (Cdl *c, GArray *out, gboolean in_data, const char *what)
{
  for (;;)
    {
      if (!parse_value (c, out, in_data))
        return FALSE;
      if (is_punct (c, ','))
        {
          if (!next (c))
            return FALSE;
          continue;
        }
      if (is_punct (c, ';'))
        return next (c);
      if (in_data && is_punct (c, '}'))
        return TRUE;   /* a group's closing brace may end its last data list */
      {
        g_autofree char *context = g_strdup_printf ("after a value of %s", what);
        return fail_expected (c, "',' or ';'", context);
      }
    }
}

/* ---- attributes ---- */

/* The text of a special attribute that takes one string. */
static gboolean
special_text (Cdl *c, const char *name, GArray *values, GString *out)
{
  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      if (v->kind != VAL_STRING)
        return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                        "%s takes a string value", name);
      g_string_append_len (out, v->str, (gssize) v->str_len);
    }
  return TRUE;
}

static gboolean
special_bool (Cdl *c, const char *name, GArray *values, gboolean *out)
{
  g_autoptr(GString) s = g_string_new (NULL);
  Value *v0 = &g_array_index (values, Value, 0);

  if (values->len == 1 && v0->kind == VAL_NUMBER && !v0->is_real)
    {
      *out = v0->mag != 0;
      return TRUE;
    }
  if (!special_text (c, name, values, s))
    return FALSE;
  if (g_ascii_strcasecmp (s->str, "true") == 0 || strcmp (s->str, "1") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (s->str, "false") == 0 || strcmp (s->str, "0") == 0)
    *out = FALSE;
  else
    return fail_at (c, v0->line, v0->col, NCZ_CDL_ERROR_INVALID,
                    "%s must be \"true\" or \"false\"", name);
  return TRUE;
}

/* Non-negative integers of a special attribute. */
static gboolean
special_integers (Cdl *c, const char *name, GArray *values, GArray *out)
{
  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      guint64 x;
      if (v->kind != VAL_NUMBER || (v->is_real && (v->real != floor (v->real) || v->real < 0)) ||
          (!v->is_real && v->neg))
        return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                        "%s takes non-negative integers", name);
      x = value_bits (v);
      g_array_append_val (out, x);
    }
  return TRUE;
}

/* Builds an attribute of @type (NCZ_DATA_TYPE_NONE: inferred as ncgen does)
 * from @values. */
static NczAttribute *
make_attribute (Cdl *c, const char *name, NczDataType type, GArray *values)
{
  Value *v0 = &g_array_index (values, Value, 0);
  GError *err = NULL;
  NczAttribute *attr;

  for (guint i = 0; i < values->len; i++)
    {
      Value *v = &g_array_index (values, Value, i);
      if (v->kind == VAL_NIL && type != NCZ_DATA_TYPE_STRING)
        {
          fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID, "NIL is only a string value");
          return NULL;
        }
    }

  if (type == NCZ_DATA_TYPE_NONE)
    {
      gboolean any_string = FALSE, all_string = TRUE;
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          gboolean is_str = v->kind == VAL_STRING;
          any_string |= is_str;
          all_string &= is_str;
        }
      if (any_string && !all_string)
        {
          fail_at (c, v0->line, v0->col, NCZ_CDL_ERROR_INVALID,
                   "attribute '%s' mixes strings and numbers; give its type", name);
          return NULL;
        }
      if (all_string)
        type = NCZ_DATA_TYPE_CHAR;
      else
        {
          type = NCZ_DATA_TYPE_BYTE;
          for (guint i = 0; i < values->len; i++)
            {
              Value *v = &g_array_index (values, Value, i);
              NczDataType vt = v->kind == VAL_CHAR ? NCZ_DATA_TYPE_BYTE : v->type;
              if (type_rank (vt) >= type_rank (type))
                type = vt;
            }
        }
    }

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      g_autoptr(GString) s = g_string_new (NULL);
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          if (v->kind == VAL_STRING)
            g_string_append_len (s, v->str, (gssize) v->str_len);
          else
            g_string_append_c (s, (char) (guint8) value_bits (v));
        }
      return ncz_attribute_new_text (name, s->str, (gssize) s->len);
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      g_autoptr(GPtrArray) strs = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < values->len; i++)
        {
          Value *v = &g_array_index (values, Value, i);
          if (v->kind == VAL_STRING)
            g_ptr_array_add (strs, g_strdup (v->str));
          else if (v->kind == VAL_CHAR)
            g_ptr_array_add (strs, g_strndup ((const char *) &v->ch, 1));
          else if (v->kind == VAL_NIL)
            g_ptr_array_add (strs, g_strdup (""));
          else
            {
              fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                       "a number in string attribute '%s'", name);
              return NULL;
            }
        }
      g_ptr_array_add (strs, NULL);
      return ncz_attribute_new_strings (name, (const char * const *) strs->pdata,
                                        (gssize) values->len);
    }

  {
    gsize size = ncz_data_type_get_size (type);
    g_autofree guint8 *buf = g_malloc0 (size * values->len);
    for (guint i = 0; i < values->len; i++)
      {
        Value *v = &g_array_index (values, Value, i);
        if (v->kind == VAL_STRING)
          {
            fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                     "a string in %s attribute '%s'", ncz_data_type_get_name (type), name);
            return NULL;
          }
        value_store (v, type, buf + i * size);
      }
    attr = ncz_attribute_new_values (name, type, buf, values->len, &err);
    if (attr == NULL)
      fail_model (c, v0->line, v0->col, err);
    return attr;
  }
}

static gboolean
apply_filter_text (Cdl *c, NczVariable *var, const char *text, guint line, guint col)
{
  GError *err = NULL;
  g_autoptr(GPtrArray) specs = ncz_filter_spec_parse_list (text, &err);

  if (specs == NULL)
    return fail_model (c, line, col, err);
  for (guint i = 0; i < specs->len; i++)
    {
      NczFilterSpec *spec = g_ptr_array_index (specs, i);
      if (!ncz_variable_add_filter (var, spec->filter_id, (const guint *) spec->visible->data,
                                    spec->visible->len, &err))
        return fail_model (c, line, col, err);
    }
  return TRUE;
}

/* A special attribute of a variable; FALSE with *handled FALSE means an
 * ordinary attribute. */
static gboolean
variable_special (Cdl *c, NczVariable *var, const char *name, GArray *values,
                  gboolean *handled)
{
  Value *v0 = &g_array_index (values, Value, 0);
  guint line = v0->line, col = v0->col;
  GError *err = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  *handled = TRUE;
  if (strcmp (name, "_Storage") == 0)
    {
      if (!special_text (c, name, values, s))
        return FALSE;
      if (strcmp (s->str, "contiguous") == 0 || strcmp (s->str, "compact") == 0)
        {
          if (!ncz_variable_set_contiguous (var, TRUE, &err))
            return fail_model (c, line, col, err);
        }
      else if (strcmp (s->str, "chunked") == 0)
        {
          if (!ncz_variable_set_contiguous (var, FALSE, &err))
            return fail_model (c, line, col, err);
        }
      else
        return fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_Storage must be \"contiguous\", \"compact\" or \"chunked\"");
      return TRUE;
    }
  if (strcmp (name, "_ChunkSizes") == 0)
    {
      g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
      if (!special_integers (c, name, values, sizes))
        return FALSE;
      if (sizes->len != ncz_variable_get_n_dimensions (var))
        return fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_ChunkSizes of variable '%s' has %u values for %u dimensions",
                        ncz_variable_get_name (var), sizes->len,
                        ncz_variable_get_n_dimensions (var));
      if (sizes->len > 0 &&
          !ncz_variable_set_chunk_sizes (var, (const guint64 *) sizes->data, sizes->len, &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Endianness") == 0)
    {
      NczEndianness e;
      if (!special_text (c, name, values, s))
        return FALSE;
      if (strcmp (s->str, "little") == 0)
        e = NCZ_ENDIANNESS_LITTLE;
      else if (strcmp (s->str, "big") == 0)
        e = NCZ_ENDIANNESS_BIG;
      else if (strcmp (s->str, "native") == 0)
        e = NCZ_ENDIANNESS_NATIVE;
      else
        return fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_Endianness must be \"little\", \"big\" or \"native\"");
      if (!ncz_variable_set_endianness (var, e, &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_NoFill") == 0)
    {
      gboolean b;
      if (!special_bool (c, name, values, &b))
        return FALSE;
      if (!ncz_variable_set_no_fill (var, b, &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Shuffle") == 0 || strcmp (name, "_Fletcher32") == 0)
    {
      gboolean b;
      if (!special_bool (c, name, values, &b))
        return FALSE;
      if (b && name[1] == 'S' && !ncz_variable_set_shuffle (var, &err))
        return fail_model (c, line, col, err);
      if (b && name[1] == 'F' && !ncz_variable_set_fletcher32 (var, &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_DeflateLevel") == 0)
    {
      g_autoptr(GArray) level = g_array_new (FALSE, FALSE, sizeof (guint64));
      if (!special_integers (c, name, values, level))
        return FALSE;
      if (level->len != 1 || g_array_index (level, guint64, 0) > 9)
        return fail_at (c, line, col, NCZ_CDL_ERROR_INVALID,
                        "_DeflateLevel takes one level from 0 to 9");
      if (!ncz_variable_set_deflate (var, FALSE, TRUE, (guint) g_array_index (level, guint64, 0), &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }
  if (strcmp (name, "_Filter") == 0)
    {
      if (!special_text (c, name, values, s))
        return FALSE;
      return apply_filter_text (c, var, s->str, line, col);
    }
  if (strcmp (name, "_Codecs") == 0)
    return TRUE;   /* read-only: the codecs follow from _Filter */
  *handled = FALSE;
  return TRUE;
}

static gboolean
global_special (const char *name)
{
  return strcmp (name, "_Format") == 0 || strcmp (name, "_IsNetcdf4") == 0 ||
         strcmp (name, "_SuperblockVersion") == 0 || strcmp (name, "_NCProperties") == 0;
}

/* After "[type] [var]:": name '=' values ';'. @var NULL for a group
 * attribute. */
static gboolean
parse_attribute_rest (Cdl *c, NczGroup *group, NczVariable *var, NczDataType type)
{
  g_autofree char *name = NULL;
  g_autoptr(GArray) values = value_list_new ();
  g_autoptr(NczAttribute) attr = NULL;
  guint line, col;
  GError *err = NULL;

  if (c->tok.kind != TOK_IDENT || c->tok.is_path)
    return fail_expected (c, "an attribute name", "after ':'");
  name = g_strdup (c->tok.text->str);
  line = c->tok.line;
  col = c->tok.col;
  if (!next (c) || !expect_punct (c, '=', "after the attribute name"))
    return FALSE;
  if (!parse_value_list (c, values, FALSE, "an attribute"))
    return FALSE;

  if (var == NULL)
    {
      if (global_special (name))
        return TRUE;
      attr = make_attribute (c, name, type, values);
      if (attr == NULL)
        return FALSE;
      if (!ncz_group_set_attribute (group, attr, &err))
        return fail_model (c, line, col, err);
      return TRUE;
    }

  {
    gboolean handled;
    if (!variable_special (c, var, name, values, &handled))
      return FALSE;
    if (handled)
      return TRUE;
  }
  if (strcmp (name, "_FillValue") == 0 && type == NCZ_DATA_TYPE_NONE)
    type = ncz_variable_get_value_type (var);
  attr = make_attribute (c, name, type, values);
  if (attr == NULL)
    return FALSE;
  if (!ncz_variable_set_attribute (var, attr, &err))
    return fail_model (c, line, col, err);
  return TRUE;
}

/* ---- declarations ---- */

static NczGroup *
root_of (NczGroup *group)
{
  while (ncz_group_get_parent (group) != NULL)
    group = ncz_group_get_parent (group);
  return group;
}

/* Splits "/a/b/name" into the group /a/b and "name". */
static NczGroup *
resolve_path_group (NczGroup *group, const char *path, const char **leaf)
{
  g_auto(GStrv) parts = g_strsplit (path + 1, "/", -1);
  guint n = g_strv_length (parts);
  NczGroup *g = root_of (group);

  for (guint i = 0; i + 1 < n; i++)
    {
      g = ncz_group_get_group (g, parts[i]);
      if (g == NULL)
        return NULL;
    }
  *leaf = strrchr (path, '/') + 1;
  return g;
}

static NczDimension *
lookup_dimension (NczGroup *group, Token *t)
{
  if (t->is_path)
    {
      const char *leaf;
      NczGroup *g = resolve_path_group (group, t->text->str, &leaf);
      return g ? ncz_group_get_dimension (g, leaf) : NULL;
    }
  return ncz_group_lookup_dimension (group, t->text->str);
}

static NczVariable *
lookup_variable (NczGroup *group, Token *t)
{
  if (t->is_path)
    {
      const char *leaf;
      NczGroup *g = resolve_path_group (group, t->text->str, &leaf);
      return g ? ncz_group_get_variable (g, leaf) : NULL;
    }
  return ncz_group_get_variable (group, t->text->str);
}

/* name '=' (N | UNLIMITED) (',' ...)* ';' */
static gboolean
parse_dimensions (Cdl *c, NczGroup *group)
{
  for (;;)
    {
      g_autofree char *name = NULL;
      guint line = c->tok.line, col = c->tok.col;
      guint64 length = 0;
      gboolean unlimited = FALSE;
      GError *err = NULL;

      if (c->tok.kind != TOK_IDENT || c->tok.is_path)
        return fail_expected (c, "a dimension name", "in dimensions");
      name = g_strdup (c->tok.text->str);
      if (!next (c) || !expect_punct (c, '=', "after the dimension name"))
        return FALSE;
      if (c->tok.kind == TOK_IDENT && !c->tok.escaped &&
          g_ascii_strcasecmp (c->tok.text->str, "unlimited") == 0)
        unlimited = TRUE;
      else if (c->tok.kind == TOK_NUMBER && !c->tok.num.is_real && !c->tok.num.neg &&
               ncz_data_type_is_integer (c->tok.num.type))
        length = c->tok.num.mag;
      else if (c->tok.kind == TOK_NUMBER && c->tok.num.is_real && c->tok.num.real >= 0 &&
               c->tok.num.real == floor (c->tok.num.real) && c->tok.num.real < 9.0e18)
        length = (guint64) c->tok.num.real;
      else
        return fail_expected (c, "a length or UNLIMITED", "for the dimension");
      if (!next (c))
        return FALSE;
      if (ncz_group_add_dimension (group, name, length, unlimited, &err) == NULL)
        return fail_model (c, line, col, err);
      if (is_punct (c, ','))
        {
          if (!next (c))
            return FALSE;
          continue;
        }
      return expect_punct (c, ';', "after a dimension");
    }
}

/* After the type: name ['(' dims ')'] (',' ...)* ';' */
static gboolean
parse_variables_rest (Cdl *c, NczGroup *group, NczDataType type, char *first_name,
                      guint first_line, guint first_col)
{
  g_autofree char *name = first_name;
  guint line = first_line, col = first_col;

  for (;;)
    {
      g_autoptr(GPtrArray) dims = g_ptr_array_new ();
      GError *err = NULL;

      if (is_punct (c, '('))
        {
          if (!next (c))
            return FALSE;
          for (;;)
            {
              NczDimension *d;
              if (c->tok.kind != TOK_IDENT)
                return fail_expected (c, "a dimension name", "in the variable's shape");
              d = lookup_dimension (group, &c->tok);
              if (d == NULL)
                return fail_tok (c, NCZ_CDL_ERROR_INVALID, "no dimension '%s'", c->tok.text->str);
              g_ptr_array_add (dims, d);
              if (!next (c))
                return FALSE;
              if (is_punct (c, ','))
                {
                  if (!next (c))
                    return FALSE;
                  continue;
                }
              if (!expect_punct (c, ')', "after the dimensions of a variable"))
                return FALSE;
              break;
            }
        }
      if (ncz_group_add_variable (group, name, type, dims->len,
                                  (NczDimension **) dims->pdata, &err) == NULL)
        return fail_model (c, line, col, err);
      if (is_punct (c, ','))
        {
          if (!next (c))
            return FALSE;
          if (c->tok.kind != TOK_IDENT || c->tok.is_path)
            return fail_expected (c, "a variable name", "after ','");
          g_free (name);
          name = g_strdup (c->tok.text->str);
          line = c->tok.line;
          col = c->tok.col;
          if (!next (c))
            return FALSE;
          continue;
        }
      return expect_punct (c, ';', "after a variable declaration");
    }
}

/* A declaration that starts with a type: a variable or a typed attribute. */
static gboolean
parse_typed (Cdl *c, NczGroup *group, NczDataType type)
{
  g_autofree char *name = NULL;
  guint line, col;
  NczVariable *var;

  if (!next (c))
    return FALSE;
  if (is_punct (c, ':'))
    return next (c) && parse_attribute_rest (c, group, NULL, type);
  if (c->tok.kind != TOK_IDENT)
    return fail_expected (c, "a variable name", "after the type");
  if (c->tok.colon_follows)
    {
      var = lookup_variable (group, &c->tok);
      if (var == NULL)
        return fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
      if (!next (c) || !expect_punct (c, ':', "after the variable name"))
        return FALSE;
      return parse_attribute_rest (c, group, var, type);
    }
  if (c->tok.is_path)
    return fail_tok (c, NCZ_CDL_ERROR_SYNTAX, "a new variable's name cannot be a path");
  name = g_strdup (c->tok.text->str);
  line = c->tok.line;
  col = c->tok.col;
  if (!next (c))
    return FALSE;
  return parse_variables_rest (c, group, type, g_steal_pointer (&name), line, col);
}

/* name '=' values ';' in a data section */
static gboolean
parse_data_item (Cdl *c, NczGroup *group)
{
  DataItem *item;
  NczVariable *var;

  if (c->tok.kind != TOK_IDENT)
    return fail_expected (c, "a variable name", "in data");
  var = lookup_variable (group, &c->tok);
  if (var == NULL)
    return fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
  item = g_new0 (DataItem, 1);
  item->var = g_object_ref (var);
  item->values = value_list_new ();
  item->line = c->tok.line;
  item->col = c->tok.col;
  g_ptr_array_add (c->data, item);
  if (!next (c) || !expect_punct (c, '=', "after the variable name in data"))
    return FALSE;
  return parse_value_list (c, item->values, TRUE, "data");
}

typedef enum { SEC_NONE, SEC_DIMENSIONS, SEC_VARIABLES, SEC_DATA } Section;

static gboolean parse_group_body (Cdl *c, NczGroup *group);

/* Is the current token "word:" (a section keyword)? Consumes both. */
static gboolean
take_section (Cdl *c, const char *word, gboolean *ok)
{
  if (!is_word (c, word) || !c->tok.colon_follows)
    return FALSE;
  *ok = next (c) && next (c);
  return TRUE;
}

static gboolean
parse_group_body (Cdl *c, NczGroup *group)
{
  Section section = SEC_NONE;
  gboolean ok;

  for (;;)
    {
      NczDataType type;

      if (c->error)
        return FALSE;
      if (is_punct (c, '}'))
        return TRUE;
      if (c->tok.kind == TOK_EOF)
        return fail_expected (c, "'}'", "to close the group");
      if (take_section (c, "dimensions", &ok))
        {
          section = SEC_DIMENSIONS;
          if (!ok)
            return FALSE;
          continue;
        }
      if (take_section (c, "variables", &ok))
        {
          section = SEC_VARIABLES;
          if (!ok)
            return FALSE;
          continue;
        }
      if (take_section (c, "data", &ok))
        {
          section = SEC_DATA;
          if (!ok)
            return FALSE;
          continue;
        }
      if (is_word (c, "types") && c->tok.colon_follows)
        return fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "user-defined types (types:) are not supported by Ncz");
      if (is_word (c, "group") && c->tok.colon_follows)
        {
          g_autofree char *name = NULL;
          NczGroup *sub;
          GError *err = NULL;
          guint line, col;

          if (!next (c) || !next (c))
            return FALSE;
          if (c->tok.kind != TOK_IDENT || c->tok.is_path)
            return fail_expected (c, "a group name", "after 'group:'");
          name = g_strdup (c->tok.text->str);
          line = c->tok.line;
          col = c->tok.col;
          if (!next (c) || !expect_punct (c, '{', "after the group name"))
            return FALSE;
          if (++c->depth > MAX_GROUP_DEPTH)
            return fail_at (c, line, col, NCZ_CDL_ERROR_LIMIT, "groups nested too deeply");
          sub = ncz_group_add_group (group, name, &err);
          if (sub == NULL)
            return fail_model (c, line, col, err);
          if (!parse_group_body (c, sub) || !expect_punct (c, '}', "to close the group"))
            return FALSE;
          c->depth--;
          section = SEC_NONE;
          continue;
        }

      if (section == SEC_DATA)
        {
          if (!parse_data_item (c, group))
            return FALSE;
          continue;
        }
      /* group attributes anywhere outside data */
      if (is_punct (c, ':'))
        {
          if (!next (c) || !parse_attribute_rest (c, group, NULL, NCZ_DATA_TYPE_NONE))
            return FALSE;
          continue;
        }
      if (section == SEC_DIMENSIONS)
        {
          if (!parse_dimensions (c, group))
            return FALSE;
          continue;
        }
      type = type_keyword (c);
      if (type != NCZ_DATA_TYPE_NONE)
        {
          if (!parse_typed (c, group, type))
            return FALSE;
          continue;
        }
      if (is_user_type_keyword (c))
        return fail_tok (c, NCZ_CDL_ERROR_UNSUPPORTED,
                         "user-defined types are not supported by Ncz");
      if (c->tok.kind == TOK_IDENT && c->tok.colon_follows)
        {
          NczVariable *var = lookup_variable (group, &c->tok);
          if (var == NULL)
            return fail_tok (c, NCZ_CDL_ERROR_INVALID, "no variable '%s'", c->tok.text->str);
          if (!next (c) || !next (c) || !parse_attribute_rest (c, group, var, NCZ_DATA_TYPE_NONE))
            return FALSE;
          continue;
        }
      if (c->tok.kind == TOK_IDENT && section == SEC_VARIABLES)
        return fail_tok (c, NCZ_CDL_ERROR_INVALID, "unknown type '%s'", c->tok.text->str);
      {
        g_autofree char *got = tok_describe (c);
        return fail_tok (c, NCZ_CDL_ERROR_SYNTAX,
                         "expected a section, a declaration or an attribute, found %s", got);
      }
    }
}

/* ---- data ---- */

/* The fill value used for '_' and for padding, @size bytes (zeros if the
 * variable has none). */
static void
fill_bytes (NczVariable *var, guint8 *out, gsize size)
{
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);
  memset (out, 0, size);
  if (fill && g_bytes_get_size (fill) == size)
    memcpy (out, g_bytes_get_data (fill, NULL), size);
}

static char *
fill_string (NczVariable *var)
{
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);
  gsize n = 0;
  const char *s = fill ? g_bytes_get_data (fill, &n) : NULL;
  return g_strndup (s ? s : "", n);
}

/* Writes the first @n elements (row-major) of @buffer: at most one
 * hyperslab per dimension. */
static gboolean
write_prefix (NczVariable *var, guint rank, const guint64 *shape, const guint8 *buffer,
              gsize elem_size, guint64 n, GError **error)
{
  g_autofree guint64 *start = g_new0 (guint64, MAX (rank, 1));
  g_autofree guint64 *count = g_new0 (guint64, MAX (rank, 1));
  guint64 offset = 0;

  if (rank == 0)
    return n == 0 || ncz_variable_write (var, 0, NULL, NULL, NULL, buffer, elem_size, NULL, error);
  for (guint d = 0; d < rank && offset < n; d++)
    {
      guint64 inner = 1, q;
      for (guint k = d + 1; k < rank; k++)
        inner *= shape[k];
      q = (n - offset) / inner;
      if (q > 0)
        {
          start[d] = 0;
          count[d] = q;
          for (guint k = d + 1; k < rank; k++)
            {
              start[k] = 0;
              count[k] = shape[k];
            }
          if (!ncz_variable_write (var, rank, start, count, NULL, buffer + offset * elem_size,
                                   (gsize) (q * inner) * elem_size, NULL, error))
            return FALSE;
          offset += q * inner;
        }
      start[d] = q;
      count[d] = 1;
    }
  return TRUE;
}

static gboolean
write_data_item (Cdl *c, DataItem *item)
{
  NczVariable *var = item->var;
  NczDataType type = ncz_variable_get_value_type (var);
  guint rank = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (var, &rank);
  gboolean first_unlimited = rank > 0 && ncz_dimension_is_unlimited (ncz_variable_get_dimension (var, 0));
  guint64 capacity = 1, inner = 1;
  gsize elem_size = type == NCZ_DATA_TYPE_STRING ? sizeof (char *) : ncz_data_type_get_size (type);
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  guint64 n = 0;
  GError *err = NULL;
  const char *vname = ncz_variable_get_name (var);

  for (guint k = 1; k < rank; k++)
    {
      if (shape[k] == 0)
        return fail_at (c, item->line, item->col, NCZ_CDL_ERROR_INVALID,
                        "variable '%s' has a dimension of length 0: no room for data", vname);
      inner = inner > G_MAXUINT64 / shape[k] ? G_MAXUINT64 : inner * shape[k];
    }
  if (rank == 0)
    capacity = 1;
  else if (first_unlimited)
    capacity = G_MAXUINT64;
  else
    capacity = shape[0] == 0 ? 0 : (inner > G_MAXUINT64 / shape[0] ? G_MAXUINT64 : inner * shape[0]);

  if (c->max_elements > 0 && ncz_variable_get_chunk_n_elements (var) > c->max_elements)
    return fail_at (c, item->line, item->col, NCZ_CDL_ERROR_LIMIT,
                    "variable '%s': chunks larger than the limit of %" G_GUINT64_FORMAT " elements",
                    vname, c->max_elements);

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      /* As ncgen lays char data out: a string starts on a row (the last
       * dimension, when it is not unlimited) and takes whole rows, an
       * empty one a row of its own; consecutive single characters run on.
       * What a string does not fill is the fill value, as are the
       * elements after the data, which are not written. */
      guint64 row = 1;
      guint8 fill;
      fill_bytes (var, &fill, 1);
      if (rank > 0 && !ncz_dimension_is_unlimited (ncz_variable_get_dimension (var, rank - 1)))
        row = shape[rank - 1];
      for (guint i = 0; i < item->values->len; i++)
        {
          Value *v = &g_array_index (item->values, Value, i);
          guint64 at = buf->len, want;
          if (v->kind == VAL_NIL)
            return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID, "NIL in char data");
          if (v->kind == VAL_STRING)
            {
              guint64 len = MAX (v->str_len, 1);
              if (row > 1)
                {
                  at = (at + row - 1) / row * row;
                  len = (len + row - 1) / row * row;
                }
              want = at + len;
            }
          else
            want = at + 1;
          if (want > capacity)
            want = capacity;
          if (c->max_elements > 0 && want > c->max_elements)
            return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_LIMIT,
                            "data of '%s' longer than the limit of %" G_GUINT64_FORMAT " elements",
                            vname, c->max_elements);
          if (want > G_MAXUINT32)
            return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_LIMIT, "data of '%s' too long", vname);
          if (at >= capacity)
            break;
          if (v->kind == VAL_STRING)
            {
              gsize old = buf->len;
              g_byte_array_set_size (buf, (guint) want);
              memset (buf->data + old, fill, buf->len - old);
              memcpy (buf->data + at, v->str, MIN (v->str_len, buf->len - at));
            }
          else
            {
              guint8 b = v->kind == VAL_FILL ? fill : (guint8) value_bits (v);
              g_byte_array_append (buf, &b, 1);
            }
        }
      n = buf->len;
    }
  else
    {
      if (item->values->len > capacity)
        {
          Value *v = &g_array_index (item->values, Value, (guint) MIN (capacity, G_MAXUINT));
          return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                          "too many values for variable '%s' (it holds %" G_GUINT64_FORMAT ")",
                          vname, capacity);
        }
      if (c->max_elements > 0 && item->values->len > c->max_elements)
        return fail_at (c, item->line, item->col, NCZ_CDL_ERROR_LIMIT,
                        "data of '%s' longer than the limit of %" G_GUINT64_FORMAT " elements",
                        vname, c->max_elements);
      n = item->values->len;
      g_byte_array_set_size (buf, (guint) (n * elem_size));
      for (guint i = 0; i < item->values->len; i++)
        {
          Value *v = &g_array_index (item->values, Value, i);
          guint8 *out = buf->data + i * elem_size;
          if (type == NCZ_DATA_TYPE_STRING)
            {
              if (v->kind == VAL_STRING)
                g_ptr_array_add (strings, g_strdup (v->str));
              else if (v->kind == VAL_NIL)
                g_ptr_array_add (strings, g_strdup (""));
              else if (v->kind == VAL_FILL)
                g_ptr_array_add (strings, fill_string (var));
              else if (v->kind == VAL_CHAR)
                g_ptr_array_add (strings, g_strndup ((const char *) &v->ch, 1));
              else
                return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                                "a number in data of string variable '%s'", vname);
              memcpy (out, &strings->pdata[strings->len - 1], sizeof (char *));
              continue;
            }
          if (v->kind == VAL_STRING)
            return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                            "a string in data of %s variable '%s'", ncz_data_type_get_name (type), vname);
          if (v->kind == VAL_NIL)
            return fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                            "NIL in data of %s variable '%s'", ncz_data_type_get_name (type), vname);
          if (v->kind == VAL_FILL)
            fill_bytes (var, out, elem_size);
          else
            value_store (v, type, out);
        }
    }

  if (n == 0)
    return TRUE;
  if (!write_prefix (var, rank, shape, buf->data, elem_size, n, &err))
    return fail_model (c, item->line, item->col, err);
  return TRUE;
}

/* ---- entry points ---- */

gboolean
ncz_cdl_generate_into (const char *text, gssize length, const char *source_name,
                       NczDataset *dataset, guint64 max_data_elements, char **dataset_name,
                       GError **error)
{
  Cdl c = { 0 };
  gboolean ok = FALSE;

  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_return_val_if_fail (NCZ_IS_DATASET (dataset), FALSE);

  c.text = text ? text : "";
  c.len = length < 0 ? strlen (text) : (gsize) length;
  c.line = 1;
  c.source = source_name ? source_name : "<stdin>";
  c.ds = dataset;
  c.max_elements = max_data_elements;
  c.tok.text = g_string_new (NULL);
  c.data = g_ptr_array_new_with_free_func (data_item_free);

  /* a UTF-8 byte order mark */
  if (c.len >= 3 && memcmp (c.text, "\xef\xbb\xbf", 3) == 0)
    c.pos = c.line_start = 3;

  if (!next (&c))
    goto out;
  if (!is_word (&c, "netcdf"))
    {
      fail_expected (&c, "'netcdf'", "at the start");
      goto out;
    }
  if (!next (&c))
    goto out;
  if (c.tok.kind != TOK_IDENT)
    {
      fail_expected (&c, "a dataset name", "after 'netcdf'");
      goto out;
    }
  if (dataset_name)
    *dataset_name = g_strdup (c.tok.text->str);
  if (!next (&c) || !expect_punct (&c, '{', "after the dataset name"))
    goto out;
  if (!parse_group_body (&c, ncz_dataset_get_root_group (dataset)) ||
      !expect_punct (&c, '}', "to close the dataset"))
    goto out;
  if (c.tok.kind != TOK_EOF)
    {
      fail_expected (&c, "end of file", "after the dataset's closing '}'");
      goto out;
    }
  for (guint i = 0; i < c.data->len; i++)
    if (!write_data_item (&c, g_ptr_array_index (c.data, i)))
      goto out;
  ok = TRUE;

out:
  if (!ok)
    {
      if (c.error == NULL)
        g_set_error (&c.error, NCZ_CDL_ERROR, NCZ_CDL_ERROR_SYNTAX, "%s: failed", c.source);
      g_propagate_error (error, c.error);
      if (dataset_name)
        g_clear_pointer (dataset_name, g_free);
    }
  g_string_free (c.tok.text, TRUE);
  g_ptr_array_unref (c.data);
  return ok;
}

gboolean
ncz_cdl_generate (const char *text, gssize length, const char *source_name,
                  const char *url, NczCreateFlags flags, GError **error)
{
  g_autoptr(NczDataset) ds = NULL;

  g_return_val_if_fail (url != NULL, FALSE);
  /* Text that fails leaves nothing at @url: ncz_dataset_discard() drops
   * what was written (the file store writes a new dataset beside the
   * path and puts it there only when it is closed). */
  ds = ncz_dataset_create (url, flags, NULL, error);
  if (ds == NULL)
    return FALSE;
  if (!ncz_cdl_generate_into (text, length, source_name, ds, 0, NULL, error))
    {
      /* what was at the URL before stays as it was */
      ncz_dataset_discard (ds);
      return FALSE;
    }
  return ncz_dataset_close (ds, NULL, error);
}

gboolean
ncz_cdl_check (const char *text, gssize length, const char *source_name,
               guint64 max_data_elements, GError **error)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///ncz-cdl-check#mode=nczarr,file", error);
  g_autoptr(NczDataset) ds = NULL;
  gboolean ok;

  if (url == NULL)
    return FALSE;
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, error);
  if (ds == NULL)
    return FALSE;
  ok = ncz_cdl_generate_into (text, length, source_name, ds, max_data_elements, NULL, error);
  if (!ncz_dataset_close (ds, NULL, ok ? error : NULL))
    ok = FALSE;
  return ok;
}
