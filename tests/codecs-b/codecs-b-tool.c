/* codecs-b-tool.c: encodes and decodes files with Ncz's codecs, for the
 * interoperability scripts.
 *
 *   codecs-b-tool BATCH
 *
 * Each line of BATCH holds six tab-separated fields:
 *   OPERATION  CODEC  ELEMENT-SIZE  SHAPE  INPUT  OUTPUT
 * OPERATION encode, decode or modify: CODEC is codec JSON; the codec
 *   comes from the registry by its "id", and its working parameters are
 *   those of a variable of unsigned integers of ELEMENT-SIZE bytes whose
 *   dimensions and single chunk are SHAPE ("1000" or "50x100"), the way
 *   the NCZarr backend derives them. modify writes the working
 *   parameters to OUTPUT as comma-separated text (INPUT is unused).
 * OPERATION encode-working or decode-working: CODEC is "ID:P1,P2,..",
 *   the working parameters given as they are (an HDF5 file's cd_values).
 * Prints one line per failure; the exit status is the number of failures
 * (at most 100).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <ncz/ncz.h>
#include <ncz/ncz-json.h>

static NczDataType
type_for_size (guint64 size)
{
  switch (size)
    {
    case 1: return NCZ_DATA_TYPE_UBYTE;
    case 2: return NCZ_DATA_TYPE_USHORT;
    case 4: return NCZ_DATA_TYPE_UINT;
    case 8: return NCZ_DATA_TYPE_UINT64;
    default: return NCZ_DATA_TYPE_NONE;
    }
}

static gboolean
working_from_text (const char *text, NczCodec **codec, GArray **working, GError **error)
{
  const char *colon = strchr (text, ':');
  g_autofree char *id = NULL;
  g_auto (GStrv) values = NULL;

  if (colon == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected ID:P1,P2,...");
      return FALSE;
    }
  id = g_strndup (text, colon - text);
  *codec = ncz_registry_lookup_codec (ncz_registry_get_default (), id, error);
  if (*codec == NULL)
    return FALSE;
  *working = g_array_new (FALSE, FALSE, sizeof (guint));
  values = g_strsplit (colon + 1, ",", -1);
  for (guint i = 0; values[i] != NULL; i++)
    {
      guint64 v;

      if (values[i][0] == '\0')
        continue;
      if (!g_ascii_string_to_unsigned (values[i], 10, 0, G_MAXUINT, &v, error))
        return FALSE;
      g_array_append_vals (*working, &(guint) { (guint) v }, 1);
    }
  return TRUE;
}

static gboolean
working_from_json (const char *json_text, guint64 esize, const char *shape, NczCodec **codec,
                   NczDataset **dataset, GArray **working, GError **error)
{
  g_autoptr (NczJson) json = NULL;
  NczJson *id;
  g_autoptr (NczUrl) url = NULL;
  g_autoptr (NczMemoryStore) store = NULL;
  g_autoptr (GArray) visible = NULL;
  g_auto (GStrv) lengths = g_strsplit (shape, "x", -1);
  NczDimension *dims[32];
  guint64 chunks[32];
  guint rank = g_strv_length (lengths);
  NczVariable *var;

  json = ncz_json_parse (json_text, -1, error);
  if (json == NULL)
    return FALSE;
  id = ncz_json_object_get (json, "id");
  if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "no codec id");
      return FALSE;
    }
  if (type_for_size (esize) == NCZ_DATA_TYPE_NONE || rank == 0 || rank > G_N_ELEMENTS (dims))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "bad element size or shape");
      return FALSE;
    }
  *codec = ncz_registry_lookup_codec (ncz_registry_get_default (), ncz_json_get_string (id, NULL), error);
  if (*codec == NULL)
    return FALSE;

  url = ncz_url_parse ("file:///unused#mode=nczarr,file", error);
  if (url == NULL)
    return FALSE;
  store = ncz_memory_store_new ();
  *dataset = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, error);
  if (*dataset == NULL)
    return FALSE;
  for (guint i = 0; i < rank; i++)
    {
      g_autofree char *name = g_strdup_printf ("d%u", i);

      if (!g_ascii_string_to_unsigned (lengths[i], 10, 1, G_MAXUINT32, &chunks[i], error))
        return FALSE;
      dims[i] = ncz_group_add_dimension (ncz_dataset_get_root_group (*dataset), name, chunks[i], FALSE, error);
      if (dims[i] == NULL)
        return FALSE;
    }
  var = ncz_group_add_variable (ncz_dataset_get_root_group (*dataset), "v", type_for_size (esize), rank, dims, error);
  if (var == NULL || !ncz_variable_set_chunk_sizes (var, chunks, rank, error))
    return FALSE;
  return ncz_codec_params_from_json_text (*codec, json_text, &visible, error)
         && ncz_codec_modify_parameters (*codec, var, visible, working, error);
}

static gboolean
run_line (const char *line, GError **error)
{
  g_auto (GStrv) f = g_strsplit (line, "\t", -1);
  g_autoptr (NczCodec) codec = NULL;
  g_autoptr (NczDataset) dataset = NULL;
  g_autoptr (GArray) working = NULL;
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) output = NULL;
  g_autofree char *contents = NULL;
  guint64 esize;
  gsize length;
  gboolean encode, given;

  if (g_strv_length (f) != 6)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "expected 6 fields");
      return FALSE;
    }
  encode = g_str_has_prefix (f[0], "encode");
  given = g_str_has_suffix (f[0], "-working");
  if (!g_ascii_string_to_unsigned (f[2], 10, 1, 8, &esize, error))
    return FALSE;
  if (g_str_equal (f[0], "modify"))
    {
      GString *text = g_string_new (NULL);

      if (!working_from_json (f[1], esize, f[3], &codec, &dataset, &working, error))
        {
          g_string_free (text, TRUE);
          return FALSE;
        }
      for (guint i = 0; i < working->len; i++)
        g_string_append_printf (text, "%s%u", i ? "," : "", g_array_index (working, guint, i));
      g_string_append_c (text, '\n');
      if (!g_file_set_contents (f[5], text->str, text->len, error))
        {
          g_string_free (text, TRUE);
          return FALSE;
        }
      g_string_free (text, TRUE);
      return TRUE;
    }
  if (!g_str_equal (f[0], "encode") && !g_str_equal (f[0], "decode")
      && !g_str_equal (f[0], "encode-working") && !g_str_equal (f[0], "decode-working"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "unknown operation %s", f[0]);
      return FALSE;
    }
  if (given ? !working_from_text (f[1], &codec, &working, error)
            : !working_from_json (f[1], esize, f[3], &codec, &dataset, &working, error))
    return FALSE;

  if (!g_file_get_contents (f[4], &contents, &length, error))
    return FALSE;
  input = g_bytes_new_take (g_steal_pointer (&contents), length);
  if (encode)
    output = ncz_codec_encode (codec, (const guint *) working->data, working->len, input, error);
  else
    output = ncz_codec_decode (codec, (const guint *) working->data, working->len, input, error);
  if (output == NULL)
    return FALSE;
  return g_file_set_contents (f[5], g_bytes_get_data (output, NULL), g_bytes_get_size (output), error);
}

int
main (int argc, char **argv)
{
  g_autofree char *batch = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  int failures = 0;

  if (argc != 2)
    {
      g_printerr ("usage: %s BATCH\n", argv[0]);
      return 2;
    }
  if (!g_file_get_contents (argv[1], &batch, NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  lines = g_strsplit (batch, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr (GError) line_error = NULL;

      if (lines[i][0] == '\0')
        continue;
      if (!run_line (lines[i], &line_error))
        {
          g_print ("line %u: %s\n", i + 1, line_error->message);
          failures++;
        }
    }
  return MIN (failures, 100);
}
