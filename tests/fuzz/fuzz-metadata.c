/* fuzz-metadata.c: fuzz target for the Zarr/NCZarr metadata readers
 *
 * One input is up to five parts separated by the byte 0xFF:
 *
 *   .zgroup 0xFF .zattrs 0xFF v/.zarray 0xFF v/.zattrs 0xFF chunk bytes
 *
 * (the last part is taken whole, 0xFF bytes included). Every part is
 * parsed with ncz_json_parse; what parses is written back as text, which
 * must parse again and be written identically, and (when its strings are
 * UTF-8) in ASCII only, which must read back as the same tree. Then the parts are stored
 * in an NczMemoryStore (the chunk under the keys `v/0`, `v/0.0`,
 * `v/0.0.0`, `v/0/0`) and opened with ncz_dataset_open_store in NCZarr
 * and in pure Zarr mode, then once more with a `.zmetadata` made of the
 * parts' text (consolidated metadata); whatever opens is walked: every attribute read,
 * every small variable read whole. Errors are expected; crashes, hangs,
 * leaks and sanitizer reports are findings.
 *
 * Built as a libFuzzer target with clang (-Dfuzzing=enabled), and always
 * as a standalone program that runs the seed corpus, plus deterministic
 * truncations and byte mutations of each seed, so the target runs in
 * `meson test` with any compiler.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>
#include <ncz/ncz-json.h>

#define SEPARATOR 0xFF
#define N_PARTS 5
#define MAX_READ_BYTES (1u << 20)

/* What the inputs reached, reported by the standalone driver. */
static guint n_json_ok, n_opened, n_vars_read;

#include "fuzz-standalone.h"

static void
check_json_roundtrip (const uint8_t *text, size_t len)
{
  g_autoptr (NczJson) first = NULL;
  g_autoptr (NczJson) second = NULL;
  g_autoptr (NczJson) third = NULL;
  g_autoptr (NczJson) fourth = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *ascii = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *pretty = NULL;
  GError *error = NULL;

  first = ncz_json_parse ((const char *) text, (gssize) len, &error);
  if (first == NULL)
    {
      /* A parse failure must say why. */
      if (error == NULL || error->message == NULL || error->message[0] == '\0')
        abort ();
      g_clear_error (&error);
      return;
    }
  g_assert (error == NULL);
  n_json_ok++;

  t1 = ncz_json_to_string (first, FALSE);
  second = ncz_json_parse (t1, -1, &error);
  if (second == NULL)
    {
      g_printerr ("fuzz-metadata: written JSON does not parse: %s\n%s\n", error->message, t1);
      abort ();
    }
  t2 = ncz_json_to_string (second, FALSE);
  if (strcmp (t1, t2) != 0)
    {
      g_printerr ("fuzz-metadata: JSON written twice differs:\n%s\n%s\n", t1, t2);
      abort ();
    }
  pretty = ncz_json_to_string (second, TRUE);
  third = ncz_json_parse (pretty, -1, &error);
  if (third == NULL || !ncz_json_equal (second, third))
    {
      g_printerr ("fuzz-metadata: pretty JSON does not read back: %s\n",
                  error ? error->message : "differs");
      abort ();
    }
  g_clear_error (&error);

  /* the escaped form: ASCII only, the same tree when the strings are
   * UTF-8 (other bytes are written as Latin-1 characters) */
  ascii = ncz_json_to_ascii_string (second, FALSE);
  for (const char *p = ascii; *p; p++)
    if ((guchar) *p >= 0x80)
      {
        g_printerr ("fuzz-metadata: ASCII JSON is not ASCII:\n%s\n", ascii);
        abort ();
      }
  fourth = ncz_json_parse (ascii, -1, &error);
  if (fourth == NULL || (g_utf8_validate (t1, -1, NULL) && !ncz_json_equal (second, fourth)))
    {
      g_printerr ("fuzz-metadata: ASCII JSON does not read back: %s\n%s\n",
                  error ? error->message : "differs", ascii);
      abort ();
    }
  g_clear_error (&error);
}

static void
walk_variable (NczVariable *v)
{
  g_autoptr (GPtrArray) attrs = ncz_variable_get_attributes (v);
  g_autofree guint64 *shape = NULL;
  g_autofree guint64 *start = NULL;
  g_autoptr (GBytes) fill = NULL;
  GError *error = NULL;
  NczDataType type = ncz_variable_get_value_type (v);
  guint nd = 0;
  guint64 n;
  gsize es;

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      gsize len = 0;
      (void) ncz_attribute_peek_values (a, &len);
      if (ncz_attribute_get_value_type (a) == NCZ_DATA_TYPE_CHAR)
        g_free (ncz_attribute_get_text (a, &len));
    }
  fill = ncz_variable_get_fill_value (v);
  g_free (ncz_variable_get_codecs_json (v));
  (void) ncz_variable_get_chunk_sizes (v, &nd);

  shape = ncz_variable_get_shape (v, &nd);
  n = ncz_variable_get_n_elements (v);
  es = type == NCZ_DATA_TYPE_STRING ? ncz_variable_get_storage_element_size (v)
                               : ncz_data_type_get_size (type);
  if (es == 0 || n == 0 || n > MAX_READ_BYTES / es)
    return;
  start = g_new0 (guint64, nd + 1);
  if (type == NCZ_DATA_TYPE_STRING)
    {
      char **strv = ncz_variable_read_strings (v, start, nd, shape, nd, NULL, 0, NULL, &error);
      g_strfreev (strv);
    }
  else
    {
      gpointer buf = g_malloc (n * es);
      if (ncz_variable_read (v, start, nd, shape, nd, NULL, 0, buf, n * es, NULL, &error))
        n_vars_read++;
      g_free (buf);
    }
  g_clear_error (&error);
}

static void
walk_group (NczGroup *g, int depth)
{
  g_autoptr (GPtrArray) attrs = ncz_group_get_attributes (g);
  g_autoptr (GPtrArray) dims = ncz_group_get_dimensions (g);
  g_autoptr (GPtrArray) vars = ncz_group_get_variables (g);
  g_autoptr (GPtrArray) groups = ncz_group_get_groups (g);

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      gsize len = 0;
      (void) ncz_attribute_peek_values (a, &len);
    }
  for (guint i = 0; i < dims->len; i++)
    (void) ncz_dimension_get_length (g_ptr_array_index (dims, i));
  for (guint i = 0; i < vars->len; i++)
    walk_variable (g_ptr_array_index (vars, i));
  if (depth < 64)
    for (guint i = 0; i < groups->len; i++)
      walk_group (g_ptr_array_index (groups, i), depth + 1);
}

static void
open_and_walk (NczStore *store, const char *url_text)
{
  g_autoptr (NczUrl) url = NULL;
  g_autoptr (NczDataset) ds = NULL;
  GError *error = NULL;

  url = ncz_url_parse (url_text, &error);
  g_assert_no_error (error);
  ds = ncz_dataset_open_store (store, url, NCZ_OPEN_READ, NULL, &error);
  if (ds == NULL)
    {
      if (error == NULL)
        abort ();            /* NULL exactly when the error is set */
      g_clear_error (&error);
      return;
    }
  g_assert (error == NULL);
  n_opened++;
  walk_group (ncz_dataset_get_root_group (ds), 0);
  (void) ncz_dataset_close (ds, NULL, &error);
  g_clear_error (&error);
}

static void
put (NczStore *store, const char *key, const uint8_t *data, size_t len)
{
  g_autoptr (GBytes) b = g_bytes_new (data, len);
  GError *error = NULL;

  if (!ncz_store_write (store, key, b, NULL, &error))
    {
      g_printerr ("fuzz-metadata: memory store write %s: %s\n", key, error->message);
      abort ();
    }
}

/* A critical means a library function was misused on the way: bad input
 * must give a GError instead. abort() (not G_BREAKPOINT's SIGTRAP) so
 * libFuzzer saves the input. */
static GLogWriterOutput
abort_on_critical (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                   gpointer user_data)
{
  GLogWriterOutput out = g_log_writer_default (level, fields, n_fields, user_data);
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    abort ();
  return out;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const keys[N_PARTS - 1] = {
    ".zgroup", ".zattrs", "v/.zarray", "v/.zattrs",
  };
  static const char *const chunk_keys[] = { "v/0", "v/0.0", "v/0.0.0", "v/0/0" };
  const uint8_t *part[N_PARTS] = { NULL };
  size_t len[N_PARTS] = { 0 };
  size_t n_parts = 0, begin = 0;
  g_autoptr (NczMemoryStore) store = NULL;
  static gboolean initialized;

  if (!initialized)
    {
      g_log_set_writer_func (abort_on_critical, NULL, NULL);
      initialized = TRUE;
    }

  for (size_t i = 0; i <= size && n_parts < N_PARTS; i++)
    {
      if (i == size || (data[i] == SEPARATOR && n_parts < N_PARTS - 1))
        {
          part[n_parts] = data + begin;
          len[n_parts] = i - begin;
          n_parts++;
          begin = i + 1;
        }
    }

  for (size_t i = 0; i < n_parts && i < N_PARTS - 1; i++)
    check_json_roundtrip (part[i], len[i]);

  store = ncz_memory_store_new ();
  for (size_t i = 0; i < n_parts && i < N_PARTS - 1; i++)
    put (NCZ_STORE (store), keys[i], part[i], len[i]);
  if (n_parts == N_PARTS)
    for (size_t k = 0; k < G_N_ELEMENTS (chunk_keys); k++)
      put (NCZ_STORE (store), chunk_keys[k], part[N_PARTS - 1], len[N_PARTS - 1]);

  open_and_walk (NCZ_STORE (store), "file:///fuzz#mode=nczarr,file");
  open_and_walk (NCZ_STORE (store), "file:///fuzz#mode=zarr,file");

  /* the same metadata consolidated in a .zmetadata made of the parts'
   * raw text (so it is as broken as they are), read in place of them */
  {
    static const char *const names[N_PARTS - 1] = {
      "\".zgroup\": ", ", \".zattrs\": ", ", \"v/.zarray\": ", ", \"v/.zattrs\": ",
    };
    GString *z = g_string_new ("{\"zarr_consolidated_format\": 1, \"metadata\": {");

    for (size_t i = 0; i < n_parts && i < N_PARTS - 1; i++)
      {
        g_string_append (z, names[i]);
        g_string_append_len (z, (const char *) part[i], (gssize) len[i]);
      }
    g_string_append (z, "}}");
    put (NCZ_STORE (store), ".zmetadata", (const uint8_t *) z->str, z->len);
    g_string_free (z, TRUE);
    open_and_walk (NCZ_STORE (store), "file:///fuzz#mode=zarr,file");
    open_and_walk (NCZ_STORE (store), "file:///fuzz#mode=nczarr,file&consolidated=true");
  }
  return 0;
}

#ifndef NCZ_LIBFUZZER

int
main (int argc, char **argv)
{
  static const guint8 interesting[] = { 0x00, 0xff, '"', '\\', '[', ']', '{', '}', ',', ':', '-', '0', '9', 'e', 'N' };
  guint n_runs = 0;
  int status = ncz_fuzz_standalone_main (argc, argv, "fuzz-metadata", 1000, interesting,
                                         G_N_ELEMENTS (interesting), &n_runs);

  if (status == 0)
    g_print ("fuzz-metadata: %u inputs ran without a finding (%u JSON parts parsed, "
             "%u datasets opened, %u variables read)\n",
             n_runs, n_json_ok, n_opened, n_vars_read);
  return status;
}

#endif
