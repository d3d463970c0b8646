/* ncz-filter.c: filter chain helpers for the variable filter API
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"
#include "ncz-filter-spec-private.h"

/* set_blosc() takes a c-blosc compressor name; the blosc codec checks
 * the code like its other parameters. */
static const char *const blosc_names[] = {
  "blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd",
};

int
ncz_blosc_compcode_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, -1);
  for (guint i = 0; i < G_N_ELEMENTS (blosc_names); i++)
    if (g_ascii_strcasecmp (name, blosc_names[i]) == 0)
      return (int) i;
  return -1;
}

static gboolean
same_filter (const NczFilterSpec *a, const NczFilterSpec *b)
{
  if (a->filter_id != 0 || b->filter_id != 0)
    return a->filter_id == b->filter_id;
  return a->codec_id != NULL && b->codec_id != NULL && g_str_equal (a->codec_id, b->codec_id);
}

NczFilterSpec *
ncz_filter_chain_find (GPtrArray *chain, guint filter_id)
{
  for (guint i = 0; chain && filter_id != 0 && i < chain->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (chain, i);
      if (f->filter_id == filter_id)
        return f;
    }
  return NULL;
}

void
ncz_filter_chain_insert (GPtrArray *chain, NczFilterSpec *spec)
{
  guint pos;

  g_return_if_fail (chain != NULL && spec != NULL);

  for (guint i = 0; i < chain->len; i++)
    {
      NczFilterSpec *old = g_ptr_array_index (chain, i);
      if (same_filter (old, spec))
        {
          /* keeps its place, takes the new parameters */
          chain->pdata[i] = spec;
          ncz_filter_spec_free (old);
          return;
        }
    }

  if (spec->filter_id == NCZ_FILTER_FLETCHER32)
    pos = 0;
  else if (spec->filter_id == NCZ_FILTER_SHUFFLE)
    {
      pos = 0;
      while (pos < chain->len &&
             ((NczFilterSpec *) g_ptr_array_index (chain, pos))->filter_id == NCZ_FILTER_FLETCHER32)
        pos++;
    }
  else
    pos = chain->len;
  g_ptr_array_insert (chain, (gint) pos, spec);
}

NczFilterSpec *
ncz_filter_spec_new_for_codec (NczCodec *codec, const guint *params, gsize n_params,
                               GError **error)
{
  g_autofree char *json = NULL;
  GError *local = NULL;
  NczFilterSpec *spec;

  g_return_val_if_fail (NCZ_IS_CODEC (codec), NULL);
  g_return_val_if_fail (params != NULL || n_params == 0, NULL);

  json = ncz_codec_params_to_json_text (codec, params, n_params, &local);
  if (json == NULL)
    {
      if (local == NULL)
        g_set_error (&local, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                     "codec '%s' rejected its parameters", ncz_codec_get_codec_id (codec));
      g_propagate_error (error, local);
      return NULL;
    }
  spec = ncz_filter_spec_new (ncz_codec_get_codec_id (codec),
                              ncz_codec_get_filter_id (codec), json);
  if (n_params > 0)
    g_array_append_vals (spec->visible, params, (guint) n_params);
  spec->codec = g_object_ref (codec);
  return spec;
}
