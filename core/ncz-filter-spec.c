/* ncz-filter-spec.c: the filter spec text of ncgen/nccopy/ncdump
 *
 * Grammar (filters.md Appendix D, with the typed constants of "Filter
 * Specification Syntax"):
 *
 *   speclist  := spec ('|' spec)*
 *   spec      := filterid (',' constant)*
 *   filterid  := unsigned decimal 1..65535 | filter name
 *   constant  := [+-] digits ['.' digits] [exponent] [tag]
 *   tag       := b | ub | s | us | u | f | d | l | ul   (any case)
 *
 * Untagged constants are 32-bit integers (signed when negative); an
 * untagged positive value above 2^32-1 is a 64-bit unsigned one. Byte and
 * short constants are truncated to 8/16 bits and sign- or zero-extended;
 * float constants travel as their IEEE bit pattern; double and 64-bit
 * integer constants as two parameters, the low 32 bits first (the
 * little-endian image of Appendix A, whatever the host).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ncz-core-private.h"
#include "ncz-filter-spec-private.h"

/* Longest part of the input quoted in an error message */
#define QUOTE_MAX 40

static const struct {
  const char *name;
  guint id;
} filter_names[] = {
  { "deflate", NCZ_FILTER_DEFLATE },
  { "zlib", NCZ_FILTER_DEFLATE },
  { "shuffle", NCZ_FILTER_SHUFFLE },
  { "fletcher32", NCZ_FILTER_FLETCHER32 },
  { "szip", NCZ_FILTER_SZIP },
  { "bzip2", NCZ_FILTER_BZIP2 },
  { "bz2", NCZ_FILTER_BZIP2 },
  { "lzf", 32000 },
  { "blosc", NCZ_FILTER_BLOSC },
  { "lz4", NCZ_FILTER_LZ4 },
  { "bitshuffle", 32008 },
  { "zfp", 32013 },
  { "zstd", NCZ_FILTER_ZSTD },
  { "zstandard", NCZ_FILTER_ZSTD },
};

guint
ncz_filter_id_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (filter_names); i++)
    if (g_ascii_strcasecmp (name, filter_names[i].name) == 0)
      return filter_names[i].id;
  return 0;
}

/* ---- 8-byte parameters ---- */

static void
reverse_bytes (guint8 *p, gsize n)
{
  for (gsize i = 0; i < n / 2; i++)
    {
      guint8 t = p[i];
      p[i] = p[n - 1 - i];
      p[n - 1 - i] = t;
    }
}

void
ncz_filter_params_fix8_for (guint8 mem8[8], gboolean decode, gboolean host_big_endian)
{
  g_return_if_fail (mem8 != NULL);
  if (!host_big_endian)
    return;
  if (!decode)
    {
      /* native (big-endian) image -> little-endian image, then each
       * 4-byte half as the host will read it */
      reverse_bytes (mem8, 8);
      reverse_bytes (mem8, 4);
      reverse_bytes (mem8 + 4, 4);
    }
  else
    {
      reverse_bytes (mem8, 4);
      reverse_bytes (mem8 + 4, 4);
      reverse_bytes (mem8, 8);
    }
}

void
ncz_filter_params_fix8 (guint8 mem8[8], gboolean decode)
{
  ncz_filter_params_fix8_for (mem8, decode, G_BYTE_ORDER == G_BIG_ENDIAN);
}

void
ncz_filter_params_from_uint64 (guint64 value, guint out[2])
{
  out[0] = (guint) (value & 0xffffffffu);
  out[1] = (guint) (value >> 32);
}

guint64
ncz_filter_params_to_uint64 (const guint in[2])
{
  return ((guint64) in[1] << 32) | (guint64) in[0];
}

void
ncz_filter_params_from_double (double value, guint out[2])
{
  guint64 bits;
  G_STATIC_ASSERT (sizeof bits == sizeof value);
  memcpy (&bits, &value, sizeof bits);
  ncz_filter_params_from_uint64 (bits, out);
}

double
ncz_filter_params_to_double (const guint in[2])
{
  guint64 bits = ncz_filter_params_to_uint64 (in);
  double value;
  memcpy (&value, &bits, sizeof value);
  return value;
}

/* ---- parsing ---- */

typedef struct {
  const char *text;   /* the whole input, for offsets */
} Parser;

static char *
quote (const char *p, gsize len)
{
  g_autofree char *part = g_strndup (p, MIN (len, QUOTE_MAX));
  g_autofree char *esc = g_strescape (part, NULL);
  return g_strdup_printf ("\"%s%s\"", esc, len > QUOTE_MAX ? "..." : "");
}

static gboolean fail (GError **error, const char *text, const char *p, gsize len,
                      const char *format, ...) G_GNUC_PRINTF (5, 6);

static gboolean
fail (GError **error, const char *text, const char *p, gsize len, const char *format, ...)
{
  g_autofree char *what = NULL;
  g_autofree char *q = quote (p, len);
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
               "filter spec at byte %" G_GSIZE_FORMAT " (%s): %s",
               (gsize) (p - text), q, what);
  return FALSE;
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Narrows [*p, *end) to its non-space part. */
static void
trim (const char **p, const char **end)
{
  while (*p < *end && is_space (**p))
    (*p)++;
  while (*end > *p && is_space ((*end)[-1]))
    (*end)--;
}

typedef enum {
  TAG_NONE, TAG_B, TAG_UB, TAG_S, TAG_US, TAG_U, TAG_F, TAG_D, TAG_L, TAG_UL, TAG_BAD
} Tag;

static Tag
parse_tag (const char *p, gsize n)
{
  char t[3] = { 0 };
  if (n > 2)
    return TAG_BAD;
  for (gsize i = 0; i < n; i++)
    t[i] = g_ascii_tolower (p[i]);
  if (n == 0)
    return TAG_NONE;
  if (n == 1)
    switch (t[0])
      {
      case 'b': return TAG_B;
      case 's': return TAG_S;
      case 'u': return TAG_U;
      case 'f': return TAG_F;
      case 'd': return TAG_D;
      case 'l': return TAG_L;
      default: return TAG_BAD;
      }
  if (t[0] != 'u')
    return TAG_BAD;
  switch (t[1])
    {
    case 'b': return TAG_UB;
    case 's': return TAG_US;
    case 'l': return TAG_UL;
    default: return TAG_BAD;
    }
}

/* Parses the constant in [start, end) of @text (already trimmed). */
static gboolean
parse_constant_range (const char *text, const char *start, const char *end,
                      GArray *params, GError **error)
{
  const char *p = start;
  const char *digits, *digits_end, *num_end;
  gboolean negative = FALSE, fraction = FALSE;
  guint64 magnitude = 0;
  gboolean overflow = FALSE;
  gsize len = (gsize) (end - start);
  Tag tag;
  guint v;

  if (start == end)
    return fail (error, text, start, 0, "empty constant");
  if (*p == '-' || *p == '+')
    negative = *p++ == '-';
  digits = p;
  while (p < end && g_ascii_isdigit (*p))
    {
      guint d = (guint) (*p - '0');
      if (magnitude > (G_MAXUINT64 - d) / 10)
        overflow = TRUE;
      else
        magnitude = magnitude * 10 + d;
      p++;
    }
  digits_end = p;
  if (p < end && *p == '.')
    {
      fraction = TRUE;
      p++;
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  if ((digits_end == digits && !(fraction && p > digits_end + 1)))
    return fail (error, text, start, len, "not a number");
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      const char *e = p + 1;
      if (e < end && (*e == '+' || *e == '-'))
        e++;
      if (e < end && g_ascii_isdigit (*e))
        {
          fraction = TRUE;
          while (e < end && g_ascii_isdigit (*e))
            e++;
          p = e;
        }
      else
        return fail (error, text, start, len, "exponent without digits");
    }
  num_end = p;
  tag = parse_tag (p, (gsize) (end - p));
  if (tag == TAG_BAD)
    {
      g_autofree char *t = quote (p, (gsize) (end - p));
      return fail (error, text, start, len,
                   "unknown type tag %s (expected b, ub, s, us, u, f, d, l or ul)", t);
    }

  if (tag == TAG_F || tag == TAG_D)
    {
      g_autofree char *num = g_strndup (start, (gsize) (num_end - start));
      char *stop = NULL;
      double d = g_ascii_strtod (num, &stop);
      if (stop == NULL || *stop != '\0')
        return fail (error, text, start, len, "not a number");
      if (!isfinite (d))
        return fail (error, text, start, len, "out of range for a double");
      if (tag == TAG_F)
        {
          float f;
          if (fabs (d) > FLT_MAX)
            return fail (error, text, start, len, "out of range for a float");
          f = (float) d;
          G_STATIC_ASSERT (sizeof f == sizeof v);
          memcpy (&v, &f, sizeof v);
          g_array_append_val (params, v);
        }
      else
        {
          guint two[2];
          ncz_filter_params_from_double (d, two);
          g_array_append_vals (params, two, 2);
        }
      return TRUE;
    }

  if (fraction)
    return fail (error, text, start, len,
                 "a constant with a fraction or an exponent needs the tag f or d");
  if (overflow)
    return fail (error, text, start, len, "too large for 64 bits");
  if (negative && (tag == TAG_UB || tag == TAG_US || tag == TAG_U || tag == TAG_UL))
    return fail (error, text, start, len, "a negative constant cannot have an unsigned tag");

  switch (tag)
    {
    case TAG_B:
    case TAG_S:
      {
        guint64 bits;
        if (negative && magnitude > (guint64) G_MAXINT64 + 1)
          return fail (error, text, start, len, "too large for 64 bits");
        bits = negative ? (guint64) 0 - magnitude : magnitude;
        /* truncate, then sign-extend to 32 bits */
        if (tag == TAG_B)
          v = (guint) (gint32) (gint8) (guint8) (bits & 0xff);
        else
          v = (guint) (gint32) (gint16) (guint16) (bits & 0xffff);
        g_array_append_val (params, v);
        return TRUE;
      }
    case TAG_UB:
      v = (guint) (magnitude & 0xff);
      g_array_append_val (params, v);
      return TRUE;
    case TAG_US:
      v = (guint) (magnitude & 0xffff);
      g_array_append_val (params, v);
      return TRUE;
    case TAG_U:
      if (magnitude > G_MAXUINT32)
        return fail (error, text, start, len, "too large for an unsigned 32-bit constant");
      v = (guint) magnitude;
      g_array_append_val (params, v);
      return TRUE;
    case TAG_NONE:
      if (negative)
        {
          if (magnitude > (guint64) G_MAXINT32 + 1)
            return fail (error, text, start, len,
                         "too small for a signed 32-bit constant (use the tag L)");
          v = (guint) (gint32) (0 - (gint64) magnitude);
          g_array_append_val (params, v);
          return TRUE;
        }
      if (magnitude <= G_MAXUINT32)
        {
          v = (guint) magnitude;
          g_array_append_val (params, v);
          return TRUE;
        }
      G_GNUC_FALLTHROUGH;
    case TAG_UL:
      {
        guint two[2];
        ncz_filter_params_from_uint64 (magnitude, two);
        g_array_append_vals (params, two, 2);
        return TRUE;
      }
    case TAG_L:
      {
        guint two[2];
        guint64 bits;
        if (magnitude > (guint64) G_MAXINT64 + (negative ? 1 : 0))
          return fail (error, text, start, len, "out of range for a signed 64-bit constant");
        bits = negative ? (guint64) 0 - magnitude : magnitude;
        ncz_filter_params_from_uint64 (bits, two);
        g_array_append_vals (params, two, 2);
        return TRUE;
      }
    case TAG_F:
    case TAG_D:
    case TAG_BAD:
    default:
      break;
    }
  g_assert_not_reached ();
  return FALSE;
}

gboolean
ncz_filter_spec_parse_constant (const char *text, gssize length, GArray *params,
                                GError **error)
{
  const char *start, *end;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);
  start = text;
  end = text + (length < 0 ? strlen (text) : (gsize) length);
  if (memchr (text, '\0', (gsize) (end - text)) != NULL)
    return fail (error, text, text, (gsize) (end - text), "NUL byte in a constant");
  trim (&start, &end);
  return parse_constant_range (text, start, end, params, error);
}

/* Parses the filter id token [start, end) (trimmed). */
static gboolean
parse_filter_id (const char *text, const char *start, const char *end, guint *id,
                 GError **error)
{
  gsize len = (gsize) (end - start);
  const char *p = start;
  guint64 v = 0;

  if (start == end)
    return fail (error, text, start, 0, "missing filter id");
  if (g_ascii_isdigit (*p))
    {
      while (p < end && g_ascii_isdigit (*p))
        {
          v = v * 10 + (guint64) (*p - '0');
          if (v > G_MAXUINT32)
            return fail (error, text, start, len, "filter id out of range (1 to 65535)");
          p++;
        }
      if (p < end && (*p == 'u' || *p == 'U'))
        p++;
      if (p != end)
        return fail (error, text, start, len, "a filter id is an unsigned number or a filter name");
      if (v == 0 || v > 65535)
        return fail (error, text, start, len, "filter id out of range (1 to 65535)");
      *id = (guint) v;
      return TRUE;
    }
  for (p = start; p < end; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      return fail (error, text, start, len, "a filter id is an unsigned number or a filter name");
  {
    g_autofree char *name = g_strndup (start, len);
    *id = ncz_filter_id_from_name (name);
  }
  if (*id == 0)
    return fail (error, text, start, len, "unknown filter name");
  return TRUE;
}

/* Parses one spec in [start, end) of @text. */
static NczFilterSpec *
parse_spec_range (const char *text, const char *start, const char *end, GError **error)
{
  g_autoptr(NczFilterSpec) spec = NULL;
  const char *p = start;
  const char *tok_end;
  const char *a, *b;
  guint id = 0;

  a = start;
  b = end;
  trim (&a, &b);
  if (a == b)
    {
      fail (error, text, start, (gsize) (end - start), "empty filter spec");
      return NULL;
    }
  tok_end = memchr (p, ',', (gsize) (end - p));
  if (tok_end == NULL)
    tok_end = end;
  a = p;
  b = tok_end;
  trim (&a, &b);
  if (!parse_filter_id (text, a, b, &id, error))
    return NULL;
  spec = ncz_filter_spec_new (NULL, id, NULL);
  p = tok_end;
  while (p < end)
    {
      p++;   /* the comma */
      tok_end = memchr (p, ',', (gsize) (end - p));
      if (tok_end == NULL)
        tok_end = end;
      a = p;
      b = tok_end;
      trim (&a, &b);
      if (a == b)
        {
          fail (error, text, p, (gsize) (tok_end - p), "empty parameter");
          return NULL;
        }
      if (!parse_constant_range (text, a, b, spec->visible, error))
        return NULL;
      p = tok_end;
    }
  return g_steal_pointer (&spec);
}

NczFilterSpec *
ncz_filter_spec_parse (const char *text, GError **error)
{
  const char *end;

  g_return_val_if_fail (text != NULL, NULL);
  end = text + strlen (text);
  if (memchr (text, '|', (gsize) (end - text)) != NULL)
    {
      const char *bar = strchr (text, '|');
      fail (error, text, bar, 1, "one filter expected, '|' separates a list");
      return NULL;
    }
  return parse_spec_range (text, text, end, error);
}

GPtrArray *
ncz_filter_spec_parse_list (const char *text, GError **error)
{
  g_autoptr(GPtrArray) specs = NULL;
  const char *p, *end;

  g_return_val_if_fail (text != NULL, NULL);
  specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  end = text + strlen (text);
  p = text;
  for (;;)
    {
      const char *bar = memchr (p, '|', (gsize) (end - p));
      const char *spec_end = bar ? bar : end;
      NczFilterSpec *spec = parse_spec_range (text, p, spec_end, error);
      if (spec == NULL)
        return NULL;
      g_ptr_array_add (specs, spec);
      if (bar == NULL)
        break;
      p = bar + 1;
    }
  return g_steal_pointer (&specs);
}

char *
ncz_filter_spec_to_text (guint filter_id, const guint *params, gsize n_params)
{
  GString *s = g_string_new (NULL);
  g_return_val_if_fail (params != NULL || n_params == 0, NULL);
  g_string_append_printf (s, "%u", filter_id);
  for (gsize i = 0; i < n_params; i++)
    g_string_append_printf (s, ",%u", params[i]);
  return g_string_free (s, FALSE);
}

char *
ncz_filter_spec_list_to_text (GPtrArray *specs)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; specs && i < specs->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (specs, i);
      g_autofree char *one = NULL;
      if (f->filter_id == 0)
        continue;
      one = ncz_filter_spec_to_text (f->filter_id,
                                     f->visible ? (const guint *) f->visible->data : NULL,
                                     f->visible ? f->visible->len : 0);
      if (s->len > 0)
        g_string_append_c (s, '|');
      g_string_append (s, one);
    }
  return g_string_free (s, FALSE);
}
