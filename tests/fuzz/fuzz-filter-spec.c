/* fuzz-filter-spec.c: fuzz target for the filter spec text parser
 *
 * The input is parsed as a '|'-separated list of filter specs, as one
 * spec, and each ','-separated piece as one constant (with its length,
 * embedded NULs included). What parses is written back as text, which
 * must parse again to the same filters. A failure must come with a
 * GError whose message is valid UTF-8 and says where. Crashes, hangs,
 * leaks and sanitizer reports are findings.
 *
 * Built as a libFuzzer target with clang (-Dfuzzing=enabled), and always
 * as a standalone program that runs the seed corpus plus deterministic
 * truncations and byte mutations of each seed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz.h>
#include "ncz-filter-spec-private.h"

#define MAX_INPUT_BYTES 4096

static guint n_lists_ok, n_constants_ok;

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_error (GError *error, const char *what)
{
  if (error == NULL || error->message == NULL ||
      !g_str_has_prefix (error->message, "filter spec at byte ") ||
      !g_utf8_validate (error->message, -1, NULL))
    {
      g_printerr ("fuzz-filter-spec: %s failed without a proper error\n", what);
      abort ();
    }
}

static gboolean
same_specs (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      NczFilterSpec *x = g_ptr_array_index (a, i);
      NczFilterSpec *y = g_ptr_array_index (b, i);
      if (x->filter_id != y->filter_id || x->visible->len != y->visible->len)
        return FALSE;
      if (x->visible->len > 0 &&
          memcmp (x->visible->data, y->visible->data, x->visible->len * sizeof (guint)) != 0)
        return FALSE;
    }
  return TRUE;
}

static void
check_list (const char *text)
{
  GError *error = NULL;
  GPtrArray *list = ncz_filter_spec_parse_list (text, &error);
  NczFilterSpec *one;

  if (list == NULL)
    {
      check_error (error, "parse_list");
      g_clear_error (&error);
    }
  else
    {
      char *again_text;
      GPtrArray *again;

      if (error != NULL || list->len == 0)
        abort ();
      n_lists_ok++;
      again_text = ncz_filter_spec_list_to_text (list);
      again = ncz_filter_spec_parse_list (again_text, &error);
      if (again == NULL || !same_specs (list, again))
        {
          g_printerr ("fuzz-filter-spec: '%s' written as '%s' does not parse the same\n",
                      text, again_text);
          abort ();
        }
      g_ptr_array_unref (again);
      g_free (again_text);
      g_ptr_array_unref (list);
    }

  one = ncz_filter_spec_parse (text, &error);
  if (one == NULL)
    {
      check_error (error, "parse");
      g_clear_error (&error);
    }
  else
    ncz_filter_spec_free (one);
}

static void
check_constants (const uint8_t *data, size_t size)
{
  GArray *params = g_array_new (FALSE, FALSE, sizeof (guint));
  size_t begin = 0;

  for (size_t i = 0; i <= size; i++)
    {
      if (i < size && data[i] != ',' && data[i] != '|')
        continue;
      {
        GError *error = NULL;
        guint before = params->len;
        if (ncz_filter_spec_parse_constant ((const char *) data + begin, (gssize) (i - begin),
                                            params, &error))
          {
            if (error != NULL || params->len < before + 1 || params->len > before + 2)
              abort ();
            n_constants_ok++;
          }
        else
          {
            check_error (error, "parse_constant");
            if (params->len != before)
              abort ();
            g_clear_error (&error);
          }
      }
      begin = i + 1;
    }
  g_array_unref (params);
}

/* A critical means a library function was misused on the way. */
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
  static gboolean initialized;
  char *text;

  if (!initialized)
    {
      g_log_set_writer_func (abort_on_critical, NULL, NULL);
      initialized = TRUE;
    }
  if (size > MAX_INPUT_BYTES)
    size = MAX_INPUT_BYTES;
  text = g_strndup ((const char *) data, size);   /* up to a NUL */
  check_list (text);
  g_free (text);
  check_constants (data, size);
  return 0;
}

#ifndef NCZ_LIBFUZZER

static guint n_runs;

static void
run_one (const uint8_t *data, size_t size)
{
  LLVMFuzzerTestOneInput (data, size);
  n_runs++;
}

static void
run_mutations (const uint8_t *data, size_t size, guint32 seed, guint n_mutations)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *copy = g_memdup2 (data, size ? size : 1);
  static const guint8 interesting[] = {
    0x00, 0xff, ',', '|', '-', '+', '.', 'e', 'E', '0', '9', 'b', 'u', 'U', 's', 'S',
    'f', 'd', 'l', 'L', ' ', 'z',
  };

  run_one (data, size);
  for (guint i = 1; i <= 8 && size > 0; i++)
    run_one (data, size * i / 9);
  for (guint m = 0; m < n_mutations && size > 0; m++)
    {
      gsize pos = (gsize) g_rand_int_range (rand, 0, (gint32) MIN (size, G_MAXINT32));
      guint8 saved = copy[pos];
      if (g_rand_boolean (rand))
        copy[pos] = interesting[g_rand_int_range (rand, 0, G_N_ELEMENTS (interesting))];
      else
        copy[pos] ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
      run_one (copy, size);
      copy[pos] = saved;
    }
  g_free (copy);
  g_rand_free (rand);
}

static void
run_path (const char *path, guint n_mutations)
{
  GError *error = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *dir = g_dir_open (path, 0, &error);
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        g_error ("%s", error->message);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.')
          g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_dir_close (dir);
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < names->len; i++)
        run_path (g_ptr_array_index (names, i), n_mutations);
      g_ptr_array_unref (names);
      return;
    }
  {
    char *contents = NULL;
    gsize size = 0;
    if (!g_file_get_contents (path, &contents, &size, &error))
      g_error ("%s", error->message);
    run_mutations ((const uint8_t *) contents, size, g_str_hash (path), n_mutations);
    g_free (contents);
  }
}

int
main (int argc, char **argv)
{
  guint n_mutations = 20000;
  const char *env = g_getenv ("NCZ_FUZZ_MUTATIONS");
  guint n_paths = 0;

  if (env != NULL)
    n_mutations = (guint) g_ascii_strtoull (env, NULL, 10);
  for (int i = 1; i < argc; i++)
    {
      if (argv[i][0] == '-')
        continue;            /* libFuzzer-style flags are ignored */
      run_path (argv[i], n_mutations);
      n_paths++;
    }
  if (n_paths == 0)
    {
      g_printerr ("usage: fuzz-filter-spec-standalone CORPUS_DIR_OR_FILE...\n");
      return 2;
    }
  g_print ("fuzz-filter-spec: %u inputs ran without a finding (%u lists parsed, "
           "%u constants parsed)\n", n_runs, n_lists_ok, n_constants_ok);
  return n_runs > 0 ? 0 : 1;
}
#endif
