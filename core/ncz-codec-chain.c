/* ncz-codec-chain.c: a variable's codecs, resolved once
 *
 * See <ncz/ncz-codec-chain.h>. A chain is built in two steps so that a
 * variable can copy its filter list under its lock and resolve it (the
 * registry lookups and the codecs' modify_parameters, which read the
 * variable back) outside it. It records what its working parameters were
 * derived from; the variable rebuilds it when that no longer matches.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-core-private.h"
#include "ncz-filter-spec-private.h"

typedef struct {
  char *codec_id;        /* may be NULL */
  guint filter_id;       /* may be 0 */
  GArray *visible;       /* guint */
  NczCodec *codec;       /* NULL until resolved */
  GArray *working;       /* guint; NULL until resolved */
  NczCodecKind kind;
} ChainStep;

struct _NczCodecChain
{
  gatomicrefcount ref;
  guint n_steps;
  ChainStep *steps;
  guint generation;      /* the variable's filter list this was copied from */
  gboolean resolved;
  char *variable_name;
  /* what the working parameters were derived from */
  NczDataType type;
  gsize element_size;
  NczEndianness endianness;
  guint rank;
  guint64 *chunks;
};

NczCodecChain *
ncz_codec_chain_new_unresolved (GPtrArray *specs, guint generation)
{
  NczCodecChain *chain = g_new0 (NczCodecChain, 1);

  g_atomic_ref_count_init (&chain->ref);
  chain->generation = generation;
  chain->n_steps = specs != NULL ? specs->len : 0;
  chain->steps = g_new0 (ChainStep, MAX (chain->n_steps, 1));
  for (guint i = 0; i < chain->n_steps; i++)
    {
      const NczFilterSpec *spec = g_ptr_array_index (specs, i);
      ChainStep *step = &chain->steps[i];

      step->codec_id = g_strdup (spec->codec_id);
      step->filter_id = spec->filter_id;
      step->visible = g_array_new (FALSE, FALSE, sizeof (guint));
      if (spec->visible != NULL && spec->visible->len > 0)
        g_array_append_vals (step->visible, spec->visible->data, spec->visible->len);
      step->codec = spec->codec != NULL ? g_object_ref (spec->codec) : NULL;
      step->kind = NCZ_CODEC_KIND_BYTES_TO_BYTES;
    }
  return chain;
}

NczCodecChain *
ncz_codec_chain_ref (NczCodecChain *chain)
{
  g_return_val_if_fail (chain != NULL, NULL);
  g_atomic_ref_count_inc (&chain->ref);
  return chain;
}

void
ncz_codec_chain_unref (NczCodecChain *chain)
{
  if (chain == NULL || !g_atomic_ref_count_dec (&chain->ref))
    return;
  for (guint i = 0; i < chain->n_steps; i++)
    {
      ChainStep *step = &chain->steps[i];
      g_free (step->codec_id);
      g_clear_pointer (&step->visible, g_array_unref);
      g_clear_pointer (&step->working, g_array_unref);
      g_clear_object (&step->codec);
    }
  g_free (chain->steps);
  g_free (chain->variable_name);
  g_free (chain->chunks);
  g_free (chain);
}

guint
ncz_codec_chain_get_generation (NczCodecChain *chain)
{
  return chain->generation;
}

/* The variable's state the working parameters depend on. */
static void
snapshot_variable (NczCodecChain *chain, NczVariable *variable)
{
  const guint64 *chunks;
  guint rank = 0;

  chain->type = ncz_variable_get_value_type (variable);
  chain->element_size = ncz_variable_get_storage_element_size (variable);
  chain->endianness = ncz_variable_get_endianness (variable);
  chunks = ncz_variable_get_chunk_sizes (variable, &rank);
  chain->rank = chunks != NULL ? rank : 0;
  g_free (chain->chunks);
  chain->chunks = chain->rank > 0 ? g_memdup2 (chunks, chain->rank * sizeof (guint64)) : NULL;
}

gboolean
ncz_codec_chain_matches (NczCodecChain *chain, NczVariable *variable)
{
  const guint64 *chunks;
  guint rank = 0;

  if (!chain->resolved)
    return FALSE;
  if (chain->n_steps == 0)
    return TRUE;   /* nothing derived from the variable */
  if (chain->type != ncz_variable_get_value_type (variable)
      || chain->element_size != ncz_variable_get_storage_element_size (variable)
      || chain->endianness != ncz_variable_get_endianness (variable))
    return FALSE;
  chunks = ncz_variable_get_chunk_sizes (variable, &rank);
  if (chunks == NULL)
    rank = 0;
  if (rank != chain->rank)
    return FALSE;
  return rank == 0 || memcmp (chunks, chain->chunks, rank * sizeof (guint64)) == 0;
}

static NczCodec *
lookup_codec (const ChainStep *step)
{
  NczRegistry *registry = ncz_registry_get_default ();
  NczCodec *codec = NULL;

  if (step->codec_id != NULL)
    codec = ncz_registry_lookup_codec (registry, step->codec_id, NULL);
  if (codec == NULL && step->filter_id != 0)
    codec = ncz_registry_lookup_codec_by_filter_id (registry, step->filter_id, NULL);
  return codec;
}

gboolean
ncz_codec_chain_resolve (NczCodecChain *chain, NczVariable *variable, GError **error)
{
  g_return_val_if_fail (chain != NULL && !chain->resolved, FALSE);
  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), FALSE);

  chain->variable_name = ncz_variable_get_full_name (variable);
  snapshot_variable (chain, variable);

  /* every codec first, so that the error names all that are missing */
  {
    g_autoptr(GString) missing = NULL;

    for (guint i = 0; i < chain->n_steps; i++)
      {
        ChainStep *step = &chain->steps[i];

        if (step->codec == NULL)
          step->codec = lookup_codec (step);
        if (step->codec != NULL)
          continue;
        if (missing == NULL)
          missing = g_string_new (NULL);
        else
          g_string_append (missing, ", ");
        if (step->codec_id != NULL)
          g_string_append (missing, step->codec_id);
        else
          g_string_append_printf (missing, "HDF5 filter %u", step->filter_id);
      }
    if (missing != NULL)
      {
        g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
                     "codec not available: %s (variable '%s')", missing->str,
                     chain->variable_name);
        return FALSE;
      }
  }

  for (guint i = 0; i < chain->n_steps; i++)
    {
      ChainStep *step = &chain->steps[i];
      g_autoptr(GArray) visible = NULL;
      g_autoptr(GError) local = NULL;
      GArray *working = NULL;

      step->kind = ncz_codec_get_kind (step->codec);
      /* a codec may rewrite the visible parameters it is given */
      visible = g_array_copy (step->visible);
      if (!ncz_codec_modify_parameters (step->codec, variable, visible, &working, &local))
        {
          if (local == NULL)
            g_set_error (&local, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                         "invalid parameters");
          g_set_error (error, local->domain, local->code, "variable '%s': codec %s: %s",
                       chain->variable_name, ncz_codec_get_codec_id (step->codec),
                       local->message);
          return FALSE;
        }
      step->working = working != NULL ? working : g_steal_pointer (&visible);
    }
  chain->resolved = TRUE;
  return TRUE;
}

NczCodecChain *
ncz_codec_chain_new (NczVariable *variable, GPtrArray *specs, GError **error)
{
  NczCodecChain *chain;

  g_return_val_if_fail (NCZ_IS_VARIABLE (variable), NULL);
  chain = ncz_codec_chain_new_unresolved (specs, 0);
  if (!ncz_codec_chain_resolve (chain, variable, error))
    {
      ncz_codec_chain_unref (chain);
      return NULL;
    }
  return chain;
}

guint
ncz_codec_chain_get_length (NczCodecChain *chain)
{
  g_return_val_if_fail (chain != NULL, 0);
  return chain->n_steps;
}

NczCodec *
ncz_codec_chain_get_codec (NczCodecChain *chain, guint index)
{
  g_return_val_if_fail (chain != NULL && index < chain->n_steps, NULL);
  return chain->steps[index].codec;
}

NczCodecKind
ncz_codec_chain_get_kind (NczCodecChain *chain, guint index)
{
  g_return_val_if_fail (chain != NULL && index < chain->n_steps, NCZ_CODEC_KIND_BYTES_TO_BYTES);
  return chain->steps[index].kind;
}

const GArray *
ncz_codec_chain_get_working (NczCodecChain *chain, guint index)
{
  g_return_val_if_fail (chain != NULL && index < chain->n_steps, NULL);
  return chain->steps[index].working;
}

gboolean
ncz_codec_chain_is_ordered (NczCodecChain *chain)
{
  guint n_array_to_bytes = 0;

  g_return_val_if_fail (chain != NULL, FALSE);
  for (guint i = 0; i < chain->n_steps; i++)
    {
      NczCodecKind kind = chain->steps[i].kind;
      if (i > 0 && kind < chain->steps[i - 1].kind)
        return FALSE;
      if (kind == NCZ_CODEC_KIND_ARRAY_TO_BYTES && ++n_array_to_bytes > 1)
        return FALSE;
    }
  return TRUE;
}

static GBytes *
run_step (NczCodecChain *chain, guint index, gboolean encode, GBytes *input, GError **error)
{
  ChainStep *step = &chain->steps[index];
  g_autoptr(GError) local = NULL;
  const guint *working = (const guint *) step->working->data;
  GBytes *out;

  out = encode ? ncz_codec_encode (step->codec, working, step->working->len, input, &local)
               : ncz_codec_decode (step->codec, working, step->working->len, input, &local);
  if (out != NULL)
    return out;
  if (local == NULL)
    g_set_error (&local, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED, "failed");
  g_propagate_prefixed_error (error, g_steal_pointer (&local), "variable '%s': %s %s: ",
                              chain->variable_name, encode ? "encoding with" : "decoding with",
                              ncz_codec_get_codec_id (step->codec));
  return NULL;
}

GBytes *
ncz_codec_chain_encode (NczCodecChain *chain, GBytes *input, GError **error)
{
  g_autoptr(GBytes) data = NULL;

  g_return_val_if_fail (chain != NULL && chain->resolved, NULL);
  g_return_val_if_fail (input != NULL, NULL);
  data = g_bytes_ref (input);
  for (guint i = 0; i < chain->n_steps; i++)
    {
      GBytes *out = run_step (chain, i, TRUE, data, error);
      if (out == NULL)
        return NULL;
      g_bytes_unref (data);
      data = out;
    }
  return g_steal_pointer (&data);
}

GBytes *
ncz_codec_chain_decode (NczCodecChain *chain, GBytes *input, GError **error)
{
  g_autoptr(GBytes) data = NULL;

  g_return_val_if_fail (chain != NULL && chain->resolved, NULL);
  g_return_val_if_fail (input != NULL, NULL);
  data = g_bytes_ref (input);
  for (guint i = chain->n_steps; i-- > 0;)
    {
      GBytes *out = run_step (chain, i, FALSE, data, error);
      if (out == NULL)
        return NULL;
      g_bytes_unref (data);
      data = out;
    }
  return g_steal_pointer (&data);
}
