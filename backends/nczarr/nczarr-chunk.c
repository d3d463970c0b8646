/* nczarr-chunk.c: chunk objects: keys, codec chains, byte order, F order
 *
 * Called from several threads at once: nothing here changes shared state.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "nczarr-dtype-private.h"

char *
nczarr_chunk_key (NczVariable *variable, const guint64 *chunk_index)
{
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  char sep = info ? info->separator : '.';
  guint n = ncz_variable_get_n_dimensions (variable);
  g_autofree char *akey = nczarr_variable_key (variable);
  GString *key = g_string_new (akey);

  g_string_append_c (key, '/');
  if (n == 0)
    g_string_append_c (key, '0');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (key, sep);
      g_string_append_printf (key, "%" G_GUINT64_FORMAT, chunk_index[i]);
    }
  return g_string_free (key, FALSE);
}

/* Bytes per element in the stored chunk and in the model's buffers
 * (fixed-width kinds; variable-length strings have no stored width). */
static void
element_sizes (NczVariable *variable, NczarrStored kind, gsize *stored, gsize *model)
{
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  *model = ncz_variable_get_storage_element_size (variable);
  *stored = *model;
  if (kind != NCZARR_STORED_PLAIN)
    *stored = nczarr_storage_stored_size (variable, kind);
  else if (ncz_variable_get_value_type (variable) == NCZ_DATA_TYPE_STRING && info && info->stored_width)
    *stored = info->stored_width;
}

/* Byte swapping of stored elements: numbers of 2 bytes or more, and the
 * UTF-32 code units of "U" strings. */
static gsize
swap_unit (NczVariable *variable, NczarrStored kind)
{
  NczDataType type = ncz_variable_get_value_type (variable);
  gsize unit;

  if (kind == NCZARR_STORED_HALF)
    unit = 2;
  else if (kind == NCZARR_STORED_UNICODE)
    unit = 4;
  else if (type == NCZ_DATA_TYPE_CHAR || type == NCZ_DATA_TYPE_STRING || kind != NCZARR_STORED_PLAIN)
    unit = 0;
  else
    unit = ncz_data_type_get_size (type);
  if (unit < 2 || !ncz_endianness_needs_swap (ncz_variable_get_endianness (variable)))
    return 0;
  return unit;
}

static gboolean
is_vlen (NczarrStored kind)
{
  return kind == NCZARR_STORED_VLEN_UTF8 || kind == NCZARR_STORED_VLEN_BYTES;
}

static gboolean
format_is_pure (NczNczarrFormat *self)
{
  return g_strcmp0 (ncz_format_get_name (NCZ_FORMAT (self)), "zarr") == 0;
}

static void
bad_chunk (GError **error, NczNczarrFormat *self, NczVariable *variable, const char *key,
           const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
bad_chunk (GError **error, NczNczarrFormat *self, NczVariable *variable, const char *key,
           const char *fmt, ...)
{
  g_autofree char *vname = ncz_variable_get_full_name (variable);
  g_autofree char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
               "%s: chunk '%s' of variable '%s': %s", nczarr_format_location (self),
               key, vname, msg);
}

static guint32
get_le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static void
put_le32 (guint8 *p, guint32 v)
{
  p[0] = (guint8) v;
  p[1] = (guint8) (v >> 8);
  p[2] = (guint8) (v >> 16);
  p[3] = (guint8) (v >> 24);
}

/* Variable-length strings ("vlen-utf8", "vlen-bytes"): a little-endian
 * uint32 item count, then for each item a uint32 byte length and the
 * bytes. Decoded into @n elements of @width bytes, NUL-padded. A string
 * longer than @width widens the variable in memory and fails: the core
 * reads again at the new width. */
static guint8 *
vlen_decode (NczNczarrFormat *self, NczVariable *variable, const char *key,
             NczarrStored kind, const guint8 *src, gsize len, guint64 n, gsize width,
             GError **error)
{
  gsize pos = 4, longest = 0;
  guint8 *dst;

  if (len < 4 || get_le32 (src) != n)
    {
      bad_chunk (error, self, variable, key, "'%s' data holds %s items, expected %" G_GUINT64_FORMAT,
                 kind == NCZARR_STORED_VLEN_UTF8 ? "vlen-utf8" : "vlen-bytes",
                 len < 4 ? "no count of" : "another number of", n);
      return NULL;
    }
  dst = g_try_malloc0 (MAX (n * width, 1));
  if (dst == NULL)
    {
      bad_chunk (error, self, variable, key, "out of memory for %" G_GUINT64_FORMAT
                 " strings of %" G_GSIZE_FORMAT " bytes", n, width);
      return NULL;
    }
  for (guint64 i = 0; i < n; i++)
    {
      guint32 l;
      if (len - pos < 4 || len - pos - 4 < (l = get_le32 (src + pos)))
        {
          bad_chunk (error, self, variable, key, "item %" G_GUINT64_FORMAT
                     " runs past the end of the decoded data", i);
          g_free (dst);
          return NULL;
        }
      pos += 4;
      if (memchr (src + pos, 0, l) != NULL)
        {
          bad_chunk (error, self, variable, key, "item %" G_GUINT64_FORMAT " holds a NUL byte, "
                     "which a string value cannot hold", i);
          g_free (dst);
          return NULL;
        }
      if (kind == NCZARR_STORED_VLEN_UTF8 && !g_utf8_validate ((const char *) src + pos, l, NULL))
        {
          bad_chunk (error, self, variable, key, "item %" G_GUINT64_FORMAT
                     " is not valid UTF-8 ('vlen-utf8')", i);
          g_free (dst);
          return NULL;
        }
      if (l <= width)
        memcpy (dst + i * width, src + pos, l);
      longest = MAX (longest, l);
      pos += l;
    }
  if (pos != len)
    {
      bad_chunk (error, self, variable, key, "%" G_GSIZE_FORMAT " bytes follow the last item",
                 len - pos);
      g_free (dst);
      return NULL;
    }
  if (longest > width)
    {
      if (!ncz_variable_grow_string_width (variable, longest))
        bad_chunk (error, self, variable, key, "a string of %" G_GSIZE_FORMAT
                   " bytes is too long to hold", longest);
      else
        bad_chunk (error, self, variable, key, "a string of %" G_GSIZE_FORMAT
                   " bytes is wider than the %" G_GSIZE_FORMAT " bytes held per string",
                   longest, width);
      g_free (dst);
      return NULL;
    }
  return dst;
}

static GBytes *
vlen_encode (const guint8 *src, guint64 n, gsize width)
{
  GByteArray *out = g_byte_array_new ();
  guint8 word[4];

  put_le32 (word, (guint32) n);
  g_byte_array_append (out, word, 4);
  for (guint64 i = 0; i < n; i++)
    {
      const guint8 *s = src + i * width;
      gsize l = strnlen ((const char *) s, width);
      put_le32 (word, (guint32) l);
      g_byte_array_append (out, word, 4);
      g_byte_array_append (out, s, (guint) l);
    }
  return g_byte_array_free_to_bytes (out);
}

static gboolean
unicode_decode (NczNczarrFormat *self, NczVariable *variable, const char *key,
                const guint8 *src, guint64 n, gsize stored, guint8 *dst, gsize width,
                GError **error)
{
  for (guint64 i = 0; i < n; i++)
    {
      const guint8 *e = src + i * stored;
      gsize o = 0;
      for (gsize k = 0; k + 4 <= stored; k += 4)
        {
          guint32 c;
          char utf8[6];
          gint l;
          memcpy (&c, e + k, 4);
          if (c == 0)
            break;
          if (c > 0x10ffffu || (c >= 0xd800u && c <= 0xdfffu))
            {
              bad_chunk (error, self, variable, key, "element %" G_GUINT64_FORMAT
                         " holds U+%X, which is not a Unicode character", i, c);
              return FALSE;
            }
          l = g_unichar_to_utf8 ((gunichar) c, utf8);
          if (o + (gsize) l > width)
            {
              bad_chunk (error, self, variable, key, "element %" G_GUINT64_FORMAT
                         " is too long for %" G_GSIZE_FORMAT " bytes", i, width);
              return FALSE;
            }
          memcpy (dst + i * width + o, utf8, (gsize) l);
          o += (gsize) l;
        }
    }
  return TRUE;
}

static gboolean
unicode_encode (NczNczarrFormat *self, NczVariable *variable, const char *key,
                const guint8 *src, guint64 n, gsize width, guint8 *dst, gsize stored,
                GError **error)
{
  for (guint64 i = 0; i < n; i++)
    {
      const char *s = (const char *) src + i * width;
      glong count = 0;
      g_autofree gunichar *u = g_utf8_to_ucs4 (s, (glong) strnlen (s, width), NULL, &count, NULL);
      if (u == NULL || (gsize) count > stored / 4)
        {
          bad_chunk (error, self, variable, key, u == NULL
                     ? "element %" G_GUINT64_FORMAT " is not valid UTF-8"
                     : "element %" G_GUINT64_FORMAT " has more characters than the dtype's "
                       "%" G_GSIZE_FORMAT, i, stored / 4);
          return FALSE;
        }
      for (glong k = 0; k < count; k++)
        {
          guint32 c = u[k];
          memcpy (dst + i * stored + (gsize) k * 4, &c, 4);
        }
    }
  return TRUE;
}

/* Between Fortran (first index fastest) and C element order. */
static void
transpose (const guint8 *src, guint8 *dst, const guint64 *shape, guint rank,
           gsize es, gboolean f_to_c)
{
  g_autofree guint64 *idx = g_new0 (guint64, MAX (rank, 1));
  g_autofree guint64 *fstride = g_new0 (guint64, MAX (rank, 1));
  guint64 total = 1, foff = 0;

  for (guint k = 0; k < rank; k++)
    {
      fstride[k] = total;
      total *= shape[k];
    }
  for (guint64 c = 0; c < total; c++)
    {
      if (f_to_c)
        memcpy (dst + c * es, src + foff * es, es);
      else
        memcpy (dst + foff * es, src + c * es, es);
      for (guint k = rank; k-- > 0;)
        {
          idx[k]++;
          foff += fstride[k];
          if (idx[k] < shape[k])
            break;
          foff -= fstride[k] * shape[k];
          idx[k] = 0;
        }
    }
}

/* Copies fixed-width strings from one width to another (truncating or
 * NUL-padding). */
static guint8 *
rewidth (const guint8 *src, guint64 n, gsize from, gsize to)
{
  guint8 *dst = g_malloc0 (MAX (n * to, 1));
  for (guint64 i = 0; i < n; i++)
    memcpy (dst + i * to, src + i * from, MIN (from, to));
  return dst;
}

/* Runs a chunk through the variable's codec chain (resolved once and
 * kept on the variable), encoding or decoding. */
static GBytes *
run_codec_chain (NczNczarrFormat *self, NczVariable *variable, const char *key,
                 GBytes *input, gboolean encode, GError **error)
{
  g_autoptr(NczCodecChain) chain = ncz_variable_get_codec_chain (variable, error);
  GBytes *out;

  if (chain == NULL)
    {
      g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
      return NULL;
    }
  out = encode ? ncz_codec_chain_encode (chain, input, error)
               : ncz_codec_chain_decode (chain, input, error);
  if (out == NULL)
    g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
  return out;
}

/* Decodes the chunk object at @key: @raw (taken) when it was read
 * already, else read from the store now. */
static GBytes *
chunk_read_decode (NczNczarrFormat *self, NczVariable *variable, const char *key,
                   GBytes *raw, GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  g_autoptr(GBytes) data = raw;
  guint64 n_elements = ncz_variable_get_chunk_n_elements (variable);
  NczarrStored kind = nczarr_storage_kind (variable, format_is_pure (self));
  const char *unsupported = nczarr_storage_unsupported (variable);
  gboolean fortran = info && info->fortran_order && ncz_variable_get_n_dimensions (variable) > 1;
  gsize stored, model, expected, len, swap;
  guint8 *buf;

  if (unsupported)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_autofree char *akey = nczarr_variable_key (variable);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' ('%s/.zarray'): %s", nczarr_format_location (self),
                   vname, akey, unsupported);
      return NULL;
    }
  if (data == NULL)
    data = ncz_store_read (store, key, cancellable, error);
  if (data == NULL)
    {
      g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
      return NULL;
    }

  {
    GBytes *out = run_codec_chain (self, variable, key, data, FALSE, error);
    if (out == NULL)
      return NULL;
    g_bytes_unref (data);
    data = out;
  }

  element_sizes (variable, kind, &stored, &model);
  len = g_bytes_get_size (data);
  if (n_elements != G_MAXUINT64 && is_vlen (kind) && n_elements <= G_MAXSIZE / MAX (model, 1))
    {
      buf = vlen_decode (self, variable, key, kind, g_bytes_get_data (data, NULL), len,
                         n_elements, model, error);
      if (buf == NULL)
        return NULL;
      len = n_elements * model;
      stored = model;
      goto order;
    }
  if (n_elements == G_MAXUINT64 || n_elements > G_MAXSIZE / MAX (stored, model))
    expected = G_MAXSIZE;
  else
    expected = n_elements * stored;
  if (len != expected)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_CHUNK,
                   "%s: chunk '%s' of variable '%s' holds %" G_GSIZE_FORMAT
                   " bytes after decoding, expected %" G_GSIZE_FORMAT,
                   nczarr_format_location (self), key, vname, len, expected);
      return NULL;
    }

  swap = swap_unit (variable, kind);
  if (swap == 0 && stored == model && !fortran && kind == NCZARR_STORED_PLAIN)
    return g_steal_pointer (&data);   /* stored as the model wants it: no copy */
  buf = g_bytes_unref_to_data (g_steal_pointer (&data), &len);
  if (swap)
    ncz_byteswap_buffer (buf, swap, len / swap);
  switch (kind)
    {
    case NCZARR_STORED_BOOL:
      for (gsize i = 0; i < len; i++)
        buf[i] = buf[i] != 0;
      break;
    case NCZARR_STORED_HALF:
      {
        float *f = g_malloc (MAX (n_elements * sizeof (float), 1));
        for (guint64 i = 0; i < n_elements; i++)
          {
            guint16 h;
            memcpy (&h, buf + i * 2, 2);
            f[i] = nczarr_half_to_float (h);
          }
        g_free (buf);
        buf = (guint8 *) f;
        len = n_elements * sizeof (float);
        break;
      }
    case NCZARR_STORED_UNICODE:
      {
        guint8 *w = g_malloc0 (MAX (n_elements * model, 1));
        if (!unicode_decode (self, variable, key, buf, n_elements, stored, w, model, error))
          {
            g_free (w);
            g_free (buf);
            return NULL;
          }
        g_free (buf);
        buf = w;
        len = n_elements * model;
        break;
      }
    case NCZARR_STORED_PLAIN:
    case NCZARR_STORED_VLEN_UTF8:
    case NCZARR_STORED_VLEN_BYTES:
    default:
      if (stored != model)
        {
          guint8 *w = rewidth (buf, n_elements, stored, model);
          g_free (buf);
          buf = w;
          len = n_elements * model;
        }
      break;
    }
order:
  /* every element now has the model's width */
  if (fortran)
    {
      guint rank;
      const guint64 *cs = ncz_variable_get_chunk_sizes (variable, &rank);
      guint8 *c = g_malloc (MAX (len, 1));
      transpose (buf, c, cs, rank, model, TRUE);
      g_free (buf);
      buf = c;
    }
  return g_bytes_new_take (buf, len);
}

GBytes *
nczarr_chunk_read (NczNczarrFormat *self, NczVariable *variable,
                   const guint64 *chunk_index, GCancellable *cancellable,
                   GError **error)
{
  g_autofree char *key = nczarr_chunk_key (variable, chunk_index);

  return chunk_read_decode (self, variable, key, NULL, cancellable, error);
}

/* Several chunks: their objects are read in one ncz_store_read_many()
 * call, which keeps them all in flight, then decoded here one by one. */
GPtrArray *
nczarr_chunk_read_many (NczNczarrFormat *self, NczVariable *variable,
                        const guint64 *chunk_indices, guint n_chunks,
                        GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  guint rank = ncz_variable_get_n_dimensions (variable);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_full (n_chunks + 1, g_free);
  g_autoptr(GPtrArray) raw = NULL;
  g_autoptr(GPtrArray) result = NULL;

  for (guint i = 0; i < n_chunks; i++)
    g_ptr_array_add (keys, nczarr_chunk_key (variable, chunk_indices + (gsize) i * rank));
  g_ptr_array_add (keys, NULL);

  if (nczarr_storage_unsupported (variable) == NULL)
    {
      raw = ncz_store_read_many (store, (const char * const *) keys->pdata, cancellable, error);
      if (raw == NULL)
        {
          g_autofree char *vname = ncz_variable_get_full_name (variable);
          g_prefix_error (error, "%s: chunks of variable '%s': ", nczarr_format_location (self),
                          vname);
          return NULL;
        }
    }

  result = g_ptr_array_new_full (n_chunks, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < n_chunks; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      GBytes *chunk;

      if (raw != NULL && g_ptr_array_index (raw, i) == NULL)
        {
          g_ptr_array_add (result, NULL);   /* never written */
          continue;
        }
      /* an unsupported variable fails here, naming why */
      chunk = chunk_read_decode (self, variable, key,
                                 raw ? g_steal_pointer (&g_ptr_array_index (raw, i)) : NULL,
                                 cancellable, error);
      if (chunk == NULL)
        return NULL;
      g_ptr_array_add (result, chunk);
    }
  return g_steal_pointer (&result);
}

/* The stored form of the chunk @data at @key: element conversion, order
 * and the codec chain; %NULL on error. */
static GBytes *
chunk_encode (NczNczarrFormat *self, NczVariable *variable, const char *key, GBytes *data,
              GError **error)
{
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  guint64 n_elements = ncz_variable_get_chunk_n_elements (variable);
  g_autoptr(GBytes) out = NULL;
  NczarrStored kind = nczarr_storage_kind (variable, format_is_pure (self));
  const char *unsupported = nczarr_storage_unsupported (variable);
  gsize stored, model, len, swap;
  const guint8 *src;
  guint8 *buf;

  if (unsupported)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_autofree char *akey = nczarr_variable_key (variable);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' ('%s/.zarray'): %s", nczarr_format_location (self),
                   vname, akey, unsupported);
      return NULL;
    }
  element_sizes (variable, kind, &stored, &model);
  src = g_bytes_get_data (data, &len);
  if (n_elements == G_MAXUINT64 || n_elements > G_MAXSIZE / MAX (stored, model) ||
      len != n_elements * model)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: chunk '%s' of variable '%s': %" G_GSIZE_FORMAT
                   " bytes given for a chunk of %" G_GUINT64_FORMAT " elements",
                   nczarr_format_location (self), key, vname, len, n_elements);
      return NULL;
    }

  gboolean fortran = info && info->fortran_order && ncz_variable_get_n_dimensions (variable) > 1;
  swap = swap_unit (variable, kind);
  if (stored == model && !fortran && swap == 0 && kind == NCZARR_STORED_PLAIN)
    out = g_bytes_ref (data);   /* stored as given: no copy */
  else
    {
      g_autofree guint8 *ordered = NULL;
      const guint8 *m = src;   /* model elements in stored order */
      if (fortran)
        {
          guint rank;
          const guint64 *cs = ncz_variable_get_chunk_sizes (variable, &rank);
          ordered = g_malloc (MAX (len, 1));
          transpose (src, ordered, cs, rank, model, FALSE);
          m = ordered;
        }
      switch (kind)
        {
        case NCZARR_STORED_VLEN_UTF8:
        case NCZARR_STORED_VLEN_BYTES:
          for (guint64 i = 0; kind == NCZARR_STORED_VLEN_UTF8 && i < n_elements; i++)
            if (!g_utf8_validate ((const char *) m + i * model,
                                  (gssize) strnlen ((const char *) m + i * model, model), NULL))
              {
                bad_chunk (error, self, variable, key, "element %" G_GUINT64_FORMAT
                           " is not valid UTF-8, which 'vlen-utf8' stores", i);
                return NULL;
              }
          out = vlen_encode (m, n_elements, model);
          break;
        case NCZARR_STORED_BOOL:
          buf = g_malloc (MAX (len, 1));
          for (gsize i = 0; i < len; i++)
            {
              if (m[i] > 1)
                {
                  bad_chunk (error, self, variable, key, "element %" G_GSIZE_FORMAT
                             " is %u: a '|b1' boolean is 0 or 1", i, m[i]);
                  g_free (buf);
                  return NULL;
                }
              buf[i] = m[i];
            }
          out = g_bytes_new_take (buf, len);
          break;
        case NCZARR_STORED_HALF:
          buf = g_malloc (MAX (n_elements * 2, 1));
          for (guint64 i = 0; i < n_elements; i++)
            {
              float f;
              guint16 h;
              memcpy (&f, m + i * sizeof f, sizeof f);
              h = nczarr_float_to_half (f);
              memcpy (buf + i * 2, &h, 2);
            }
          len = n_elements * 2;
          if (swap)
            ncz_byteswap_buffer (buf, swap, len / swap);
          out = g_bytes_new_take (buf, len);
          break;
        case NCZARR_STORED_UNICODE:
          buf = g_malloc0 (MAX (n_elements * stored, 1));
          if (!unicode_encode (self, variable, key, m, n_elements, model, buf, stored, error))
            {
              g_free (buf);
              return NULL;
            }
          len = n_elements * stored;
          if (swap)
            ncz_byteswap_buffer (buf, swap, len / swap);
          out = g_bytes_new_take (buf, len);
          break;
        case NCZARR_STORED_PLAIN:
        default:
          if (stored != model)
            buf = rewidth (m, n_elements, model, stored);
          else
            buf = g_memdup2 (m, MAX (len, 1));
          len = n_elements * stored;
          if (swap)
            ncz_byteswap_buffer (buf, swap, len / swap);
          out = g_bytes_new_take (buf, len);
          break;
        }
    }

  return run_codec_chain (self, variable, key, out, TRUE, error);
}

gboolean
nczarr_chunk_write (NczNczarrFormat *self, NczVariable *variable,
                    const guint64 *chunk_index, GBytes *data,
                    GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  g_autofree char *key = nczarr_chunk_key (variable, chunk_index);
  g_autoptr(GBytes) out = chunk_encode (self, variable, key, data, error);

  if (out == NULL)
    return FALSE;
  if (!ncz_store_write (store, key, out, cancellable, error))
    {
      g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
      return FALSE;
    }
  return TRUE;
}

/* The read-modify-write of one chunk. A writer of a dataset others may
 * write too (@shared) guards it: under the store's lock of the chunk's
 * key where it has locks; otherwise, with conditional writes, the chunk
 * is read with its version and written only if still that version, again
 * until it is. */
gboolean
nczarr_chunk_update (NczNczarrFormat *self, NczVariable *variable, const guint64 *chunk_index,
                     NczChunkUpdateFunc func, gpointer user_data, gboolean shared,
                     gint64 timeout_ms, GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  g_autofree char *key = nczarr_chunk_key (variable, chunk_index);
  /* a lock where there is one (the store's, or the opt-in lock.dir),
   * else a conditional write */
  gboolean locked = shared && ncz_store_has_locks (store);
  gboolean conditional = shared && !locked && ncz_store_has_conditional_writes (store);
  g_autoptr(GError) local = NULL;
  gboolean ok = FALSE;
  gboolean held = FALSE;

  if (locked)
    {
      if (!ncz_store_lock_key (store, key, timeout_ms, cancellable, &local))
        goto out;
      held = TRUE;
    }
  for (guint attempt = 0;; attempt++)
    {
      g_autofree char *tag = NULL;
      g_autoptr(GBytes) raw = NULL;
      g_autoptr(GBytes) old = NULL;
      g_autoptr(GBytes) updated = NULL;
      g_autoptr(GBytes) encoded = NULL;

      if (conditional)
        {
          raw = ncz_store_read_tagged (store, key, &tag, cancellable, &local);
          if (raw != NULL)
            old = chunk_read_decode (self, variable, key, g_steal_pointer (&raw), cancellable,
                                     &local);
        }
      else
        old = chunk_read_decode (self, variable, key, NULL, cancellable, &local);
      if (old == NULL)
        {
          if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            goto out;
          g_clear_error (&local);
        }
      updated = func (old, user_data, &local);
      if (updated == NULL)
        goto out;
      encoded = chunk_encode (self, variable, key, updated, &local);
      if (encoded == NULL)
        goto out;
      if (!conditional)
        {
          ok = ncz_store_write (store, key, encoded, cancellable, &local);
          goto out;
        }
      if (ncz_store_write_if (store, key, encoded, tag, cancellable, &local))
        {
          ok = TRUE;
          goto out;
        }
      if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT) ||
          attempt >= 100)
        goto out;
      /* another writer stored the chunk between the read and the write */
      g_clear_error (&local);
      nczarr_conflict_backoff (attempt);
    }
out:
  if (held)
    ncz_store_unlock_key (store, key);
  if (!ok)
    g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: chunk '%s': ",
                                nczarr_format_location (self), key);
  return ok;
}

gboolean
nczarr_chunk_write_many (NczNczarrFormat *self, NczVariable *variable,
                         const guint64 *chunk_indices, guint n_chunks, GBytes * const *data,
                         GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  guint rank = ncz_variable_get_n_dimensions (variable);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_full (n_chunks + 1, g_free);
  g_autoptr(GPtrArray) encoded = g_ptr_array_new_full (n_chunks, (GDestroyNotify) g_bytes_unref);

  for (guint i = 0; i < n_chunks; i++)
    {
      char *key = nczarr_chunk_key (variable, chunk_indices + (gsize) i * rank);
      GBytes *out;

      g_ptr_array_add (keys, key);
      out = chunk_encode (self, variable, key, data[i], error);
      if (out == NULL)
        return FALSE;
      g_ptr_array_add (encoded, out);
    }
  g_ptr_array_add (keys, NULL);
  if (!ncz_store_write_many (store, (const char * const *) keys->pdata,
                             (GBytes * const *) encoded->pdata, n_chunks, cancellable, error))
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_prefix_error (error, "%s: chunks of variable '%s': ", nczarr_format_location (self),
                      vname);
      return FALSE;
    }
  return TRUE;
}

/* The stored sizes of several chunks (-1: never written), asked of the
 * store with get_length, up to its I/O depth of requests in flight: the
 * calls are started on a context private to this thread and it iterates
 * until every answer is in. */
typedef struct {
  GArray *sizes;       /* gint64 */
  GPtrArray *keys;
  guint next;          /* next key to ask */
  guint pending;
  GError *error;       /* the first failure */
  GCancellable *cancellable;
  NczStore *store;
} LengthQuery;

static void length_query_start (LengthQuery *q);

typedef struct {
  LengthQuery *q;
  guint i;
} LengthCall;

static void
length_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LengthCall *call = user_data;
  LengthQuery *q = call->q;
  GError *local = NULL;
  guint64 len = 0;

  if (ncz_store_get_length_finish (NCZ_STORE (source), result, &len, &local))
    g_array_index (q->sizes, gint64, call->i) = (gint64) MIN (len, (guint64) G_MAXINT64);
  else if (g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    g_clear_error (&local);
  else if (q->error == NULL)
    q->error = local;
  else
    g_clear_error (&local);
  q->pending--;
  g_free (call);
  length_query_start (q);
}

static void
length_query_start (LengthQuery *q)
{
  guint depth = MAX (ncz_store_get_io_depth_hint (q->store), 1);

  while (q->error == NULL && q->pending < depth && q->next < q->keys->len)
    {
      LengthCall *call = g_new (LengthCall, 1);
      call->q = q;
      call->i = q->next++;
      q->pending++;
      ncz_store_get_length_async (q->store, g_ptr_array_index (q->keys, call->i),
                                  G_PRIORITY_DEFAULT, q->cancellable, length_done, call);
    }
}

GArray *
nczarr_chunk_query_many (NczNczarrFormat *self, NczVariable *variable,
                         const guint64 *chunk_indices, guint n_chunks,
                         GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  guint rank = ncz_variable_get_n_dimensions (variable);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_full (n_chunks, g_free);
  g_autoptr(GMainContext) context = NULL;
  const char *why;
  LengthQuery q = { 0 };

  why = nczarr_storage_unsupported (variable);
  if (why != NULL || store == NULL)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: the chunks of variable '%s' cannot be listed: %s",
                   nczarr_format_location (self), vname, why ? why : "no store");
      return NULL;
    }
  for (guint i = 0; i < n_chunks; i++)
    g_ptr_array_add (keys, nczarr_chunk_key (variable, chunk_indices + (gsize) i * rank));

  q.sizes = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n_chunks);
  g_array_set_size (q.sizes, n_chunks);
  for (guint i = 0; i < n_chunks; i++)
    g_array_index (q.sizes, gint64, i) = -1;
  q.keys = keys;
  q.cancellable = cancellable;
  q.store = store;

  context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  length_query_start (&q);
  while (q.pending > 0)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  if (q.error != NULL)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_propagate_prefixed_error (error, q.error, "%s: chunks of variable '%s': ",
                                  nczarr_format_location (self), vname);
      g_array_unref (q.sizes);
      return NULL;
    }
  return q.sizes;
}
