/* ncz-cdl-private.h: the pieces of ncz-gen's CDL reader
 *
 * ncz-cdl-lexer.c turns the text into tokens and reports errors at a
 * line and column; ncz-cdl-value.c converts the constants of attribute
 * and data lists; ncz-cdl-parser.c defines groups, dimensions, variables
 * and attributes as they come and collects the data sections;
 * ncz-cdl-data.c writes those once the whole text has been read;
 * ncz-cdl.c holds the entry points of ncz-cdl.h. The words and
 * characters of CDL that ncz-dump writes are shared with it in
 * tools/common/cdl-syntax.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-cdl.h"

G_BEGIN_DECLS

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

/* ---- errors (ncz-cdl-lexer.c) ---- */

/* Sets c->error (the first error only) to "source:line:col: message";
 * returns FALSE. */
G_GNUC_INTERNAL G_GNUC_PRINTF (5, 6)
gboolean cdl_fail_at (Cdl *c, guint line, guint col, int code, const char *fmt, ...);
#define cdl_fail_tok(c, code, ...) cdl_fail_at ((c), (c)->tok.line, (c)->tok.col, (code), __VA_ARGS__)
/* A model error at a place in the text; takes @model_error. */
G_GNUC_INTERNAL gboolean cdl_fail_model (Cdl *c, guint line, guint col, GError *model_error);
/* "expected WHAT CONTEXT, found <the current token>" */
G_GNUC_INTERNAL gboolean cdl_fail_expected (Cdl *c, const char *what, const char *context);

/* ---- tokens (ncz-cdl-lexer.c) ---- */

/* Lexes the next token into c->tok. */
G_GNUC_INTERNAL gboolean cdl_lex_next (Cdl *c);
/* The current token described for messages. */
G_GNUC_INTERNAL char *cdl_lex_describe (Cdl *c);
G_GNUC_INTERNAL gboolean cdl_lex_is_punct (Cdl *c, char p);
/* An unescaped plain name equal to @word */
G_GNUC_INTERNAL gboolean cdl_lex_is_word (Cdl *c, const char *word);
/* The punctuation @p, then the next token; an error otherwise. */
G_GNUC_INTERNAL gboolean cdl_lex_expect_punct (Cdl *c, char p, const char *context);

/* ---- constants (ncz-cdl-value.c) ---- */

/* An array of Value that frees their strings. */
G_GNUC_INTERNAL GArray *cdl_value_list_new (void);
/* The value's bits as a two's complement 64-bit integer. */
G_GNUC_INTERNAL guint64 cdl_value_bits (const Value *v);
/* Stores @v as one element of @type (numeric or char) at @out. */
G_GNUC_INTERNAL void cdl_value_store (const Value *v, NczDataType type, guint8 *out);

/* ---- definitions (ncz-cdl-parser.c) ---- */

/* Parses the whole text into c->ds: "netcdf NAME { ... }", then the end
 * of the text. The data sections are left in c->data. */
G_GNUC_INTERNAL gboolean cdl_parse_dataset (Cdl *c, char **dataset_name);

/* ---- data (ncz-cdl-data.c) ---- */

G_GNUC_INTERNAL void cdl_data_item_free (gpointer item);
/* Writes the values of one data section to its variable. */
G_GNUC_INTERNAL gboolean cdl_data_write_item (Cdl *c, DataItem *item);

G_END_DECLS
