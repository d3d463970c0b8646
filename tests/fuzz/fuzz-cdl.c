/* fuzz-cdl.c: fuzz target for the CDL parser of ncz-gen
 *
 * The input is read as CDL and defined in a dataset held in memory
 * (ncz_cdl_check: data sections and chunks limited in size, nothing
 * written to disk). A failure must come with an NCZ_CDL_ERROR whose
 * message is valid UTF-8 and starts with "source:line:column: ".
 * Crashes, hangs, leaks and sanitizer reports are findings.
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
#include "ncz-cdl.h"

#define MAX_INPUT_BYTES 8192
#define MAX_DATA_ELEMENTS 65536

static guint n_ok, n_errors;

#include "fuzz-standalone.h"

static gboolean
proper_location (const char *message)
{
  const char *p;

  if (!g_str_has_prefix (message, "fuzz.cdl:"))
    return FALSE;
  p = message + strlen ("fuzz.cdl:");
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  if (*p++ != ':' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  return g_str_has_prefix (p, ": ");
}

/* A critical means a library function was misused on the way. */
static GLogWriterOutput
abort_on_critical (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                   gpointer user_data)
{
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    {
      g_log_writer_default (level, fields, n_fields, user_data);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static gboolean initialized;
  GError *error = NULL;

  if (!initialized)
    {
      g_log_set_writer_func (abort_on_critical, NULL, NULL);
      initialized = TRUE;
    }
  if (size > MAX_INPUT_BYTES)
    size = MAX_INPUT_BYTES;
  if (ncz_cdl_check ((const char *) data, (gssize) size, "fuzz.cdl", MAX_DATA_ELEMENTS, &error))
    {
      if (error != NULL)
        abort ();
      n_ok++;
      return 0;
    }
  if (error == NULL || error->message == NULL || !g_utf8_validate (error->message, -1, NULL) ||
      (error->domain == NCZ_CDL_ERROR && !proper_location (error->message)))
    {
      g_printerr ("fuzz-cdl: failed without a proper error: %s\n",
                  error && error->message ? error->message : "(none)");
      abort ();
    }
  n_errors++;
  g_error_free (error);
  return 0;
}

#ifndef NCZ_LIBFUZZER

int
main (int argc, char **argv)
{
  static const guint8 interesting[] = { 0x00, 0xff, 0x80, ',', ';', ':', '=', '{', '}', '(', ')',
    '"', '\'', '\\', '_', '-', '.', 'e', '0', '9', 'b', 'U', 'L', 'f', '/', '\n', ' ' };
  guint n_runs = 0;
  int status = ncz_fuzz_standalone_main (argc, argv, "fuzz-cdl", 3000, interesting,
                                         G_N_ELEMENTS (interesting), &n_runs);

  if (status == 0)
    g_print ("fuzz-cdl: %u inputs ran without a finding (%u defined a dataset, %u errors)\n",
             n_runs, n_ok, n_errors);
  return status;
}

#endif
