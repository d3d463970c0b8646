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

#include "fuzz-standalone.h"

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

int
main (int argc, char **argv)
{
  static const guint8 interesting[] = { 0x00, 0xff, ',', '|', '-', '+', '.', 'e', 'E', '0', '9', 'b', 'u', 'U', 's', 'S',
    'f', 'd', 'l', 'L', ' ', 'z' };
  guint n_runs = 0;
  int status = ncz_fuzz_standalone_main (argc, argv, "fuzz-filter-spec", 20000, interesting,
                                         G_N_ELEMENTS (interesting), &n_runs);

  if (status == 0)
    g_print ("fuzz-filter-spec: %u inputs ran without a finding (%u lists parsed, "
             "%u constants parsed)\n", n_runs, n_lists_ok, n_constants_ok);
  return status;
}

#endif
