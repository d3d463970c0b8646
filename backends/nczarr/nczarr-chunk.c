/* nczarr-chunk.c: chunk objects: keys, codec chains, byte order, F order
 *
 * Called from several threads at once: nothing here changes shared state.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "nczarr-private.h"

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

/* Bytes per element in the stored chunk and in the model's buffers. */
static void
element_sizes (NczVariable *variable, gsize *stored, gsize *model)
{
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  *model = ncz_variable_get_storage_element_size (variable);
  *stored = *model;
  if (ncz_variable_get_value_type (variable) == NCZ_TYPE_STRING && info && info->stored_width)
    *stored = info->stored_width;
}

static gboolean
needs_swap (NczVariable *variable)
{
  NczType type = ncz_variable_get_value_type (variable);
  if (type == NCZ_TYPE_CHAR || type == NCZ_TYPE_STRING || ncz_type_get_size (type) < 2)
    return FALSE;
  return ncz_endianness_needs_swap (ncz_variable_get_endianness (variable));
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

/* The working parameters of a filter for @variable, derived from its
 * visible ones (filters.md "Step 2") the first time a chunk goes through
 * the filter, then kept in the spec: the chain and the chunk shape are
 * fixed once data is written. Chunks are encoded on several threads at
 * once: a codec may rewrite the visible parameters it is given, so it
 * gets a copy, and the first result stored wins. */
static GArray *
working_params (NczFilterSpec *spec, NczCodec *codec, NczVariable *variable, GError **error)
{
  g_autoptr(GArray) visible = NULL;
  GArray *working = g_atomic_pointer_get (&spec->working);

  if (working != NULL)
    return g_array_ref (working);
  visible = g_array_new (FALSE, FALSE, sizeof (guint));
  if (spec->visible && spec->visible->len > 0)
    g_array_append_vals (visible, spec->visible->data, spec->visible->len);
  if (!ncz_codec_modify_parameters (codec, variable, visible, &working, error))
    return NULL;
  if (working == NULL)
    working = g_steal_pointer (&visible);
  if (!g_atomic_pointer_compare_and_exchange (&spec->working, NULL, working))
    {
      g_array_unref (working);
      working = g_atomic_pointer_get (&spec->working);
    }
  return g_array_ref (working);
}

static NczCodec *
spec_codec (NczFilterSpec *spec, NczVariable *variable, const char *key, GError **error)
{
  g_autofree char *vname = NULL;
  NczCodec *codec;

  if (spec->codec)
    return g_object_ref (spec->codec);
  codec = NULL;
  if (spec->codec_id)
    codec = ncz_registry_lookup_codec (ncz_registry_get_default (), spec->codec_id, NULL);
  if (codec == NULL && spec->filter_id != 0)
    codec = ncz_registry_lookup_codec_by_filter_id (ncz_registry_get_default (),
                                                    spec->filter_id, NULL);
  if (codec)
    return codec;
  vname = ncz_variable_get_full_name (variable);
  if (spec->codec_id)
    g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
                 "codec not available: %s (variable '%s', chunk '%s')",
                 spec->codec_id, vname, key);
  else
    g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
                 "codec not available: HDF5 filter %u (variable '%s', chunk '%s')",
                 spec->filter_id, vname, key);
  return NULL;
}

/* Runs one filter of the chain over a chunk, encoding or decoding */
static GBytes *
apply_filter (NczFilterSpec *spec, NczVariable *variable, const char *key,
              GBytes *input, gboolean encode, GError **error)
{
  g_autoptr(NczCodec) codec = spec_codec (spec, variable, key, error);
  g_autoptr(GArray) working = NULL;
  g_autoptr(GError) local = NULL;
  GBytes *out;

  if (codec == NULL)
    return NULL;
  working = working_params (spec, codec, variable, &local);
  if (working != NULL)
    {
      out = encode ? ncz_codec_encode (codec, (const guint *) working->data, working->len, input, &local)
                   : ncz_codec_decode (codec, (const guint *) working->data, working->len, input, &local);
      if (out != NULL)
        return out;
    }
  {
    g_autofree char *vname = ncz_variable_get_full_name (variable);
    g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                "variable '%s', chunk '%s': %s %s: ", vname, key,
                                working == NULL ? "codec" : encode ? "encoding with" : "decoding with",
                                ncz_codec_get_codec_id (codec));
  }
  return NULL;
}

GBytes *
nczarr_chunk_read (NczNczarrFormat *self, NczVariable *variable,
                   const guint64 *chunk_index, GCancellable *cancellable,
                   GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  g_autofree char *key = nczarr_chunk_key (variable, chunk_index);
  g_autoptr(GBytes) data = NULL;
  GPtrArray *filters = ncz_variable_peek_filters (variable);
  guint64 n_elements = ncz_variable_get_chunk_n_elements (variable);
  gsize stored, model, expected, len;
  guint8 *buf;

  data = ncz_store_read (store, key, cancellable, error);
  if (data == NULL)
    {
      g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
      return NULL;
    }

  for (guint i = filters ? filters->len : 0; i-- > 0;)
    {
      GBytes *out = apply_filter (g_ptr_array_index (filters, i), variable, key, data,
                                  FALSE, error);
      if (out == NULL)
        {
          g_prefix_error (error, "%s: ", nczarr_format_location (self));
          return NULL;
        }
      g_bytes_unref (data);
      data = out;
    }

  element_sizes (variable, &stored, &model);
  len = g_bytes_get_size (data);
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

  if (!needs_swap (variable) && stored == model &&
      !(info && info->fortran_order && ncz_variable_get_n_dimensions (variable) > 1))
    return g_steal_pointer (&data);   /* stored as the model wants it: no copy */
  buf = g_bytes_unref_to_data (g_steal_pointer (&data), &len);
  if (needs_swap (variable))
    ncz_byteswap_buffer (buf, stored, n_elements);
  if (info && info->fortran_order && ncz_variable_get_n_dimensions (variable) > 1)
    {
      guint rank;
      const guint64 *cs = ncz_variable_get_chunk_sizes (variable, &rank);
      guint8 *c = g_malloc (MAX (len, 1));
      transpose (buf, c, cs, rank, stored, TRUE);
      g_free (buf);
      buf = c;
    }
  if (stored != model)
    {
      guint8 *w = rewidth (buf, n_elements, stored, model);
      g_free (buf);
      buf = w;
      len = n_elements * model;
    }
  return g_bytes_new_take (buf, len);
}

gboolean
nczarr_chunk_write (NczNczarrFormat *self, NczVariable *variable,
                    const guint64 *chunk_index, GBytes *data,
                    GCancellable *cancellable, GError **error)
{
  NczStore *store = nczarr_format_peek_store (self);
  NczarrVarInfo *info = nczarr_var_info_peek (variable);
  g_autofree char *key = nczarr_chunk_key (variable, chunk_index);
  GPtrArray *filters = ncz_variable_peek_filters (variable);
  guint64 n_elements = ncz_variable_get_chunk_n_elements (variable);
  g_autoptr(GBytes) out = NULL;
  gsize stored, model, len;
  const guint8 *src;
  guint8 *buf;

  element_sizes (variable, &stored, &model);
  src = g_bytes_get_data (data, &len);
  if (n_elements == G_MAXUINT64 || n_elements > G_MAXSIZE / MAX (stored, model) ||
      len != n_elements * model)
    {
      g_autofree char *vname = ncz_variable_get_full_name (variable);
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: chunk '%s' of variable '%s': %" G_GSIZE_FORMAT
                   " bytes given for a chunk of %" G_GUINT64_FORMAT " elements",
                   nczarr_format_location (self), key, vname, len, n_elements);
      return FALSE;
    }

  gboolean fortran = info && info->fortran_order && ncz_variable_get_n_dimensions (variable) > 1;
  gboolean swap = needs_swap (variable);
  if (stored == model && !fortran && !swap)
    out = g_bytes_ref (data);   /* stored as given: no copy */
  else
    {
      if (stored != model)
        buf = rewidth (src, n_elements, model, stored);
      else
        buf = g_memdup2 (src, MAX (len, 1));
      len = n_elements * stored;
      if (fortran)
        {
          guint rank;
          const guint64 *cs = ncz_variable_get_chunk_sizes (variable, &rank);
          guint8 *f = g_malloc (MAX (len, 1));
          transpose (buf, f, cs, rank, stored, FALSE);
          g_free (buf);
          buf = f;
        }
      if (swap)
        ncz_byteswap_buffer (buf, stored, n_elements);
      out = g_bytes_new_take (buf, len);
    }

  for (guint i = 0; filters && i < filters->len; i++)
    {
      GBytes *enc = apply_filter (g_ptr_array_index (filters, i), variable, key, out,
                                  TRUE, error);
      if (enc == NULL)
        {
          g_prefix_error (error, "%s: ", nczarr_format_location (self));
          return FALSE;
        }
      g_bytes_unref (out);
      out = enc;
    }
  if (!ncz_store_write (store, key, out, cancellable, error))
    {
      g_prefix_error (error, "%s: chunk '%s': ", nczarr_format_location (self), key);
      return FALSE;
    }
  return TRUE;
}
