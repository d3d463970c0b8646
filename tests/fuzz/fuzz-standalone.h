/* fuzz-standalone.h: the driver that runs a fuzz target without libFuzzer
 *
 * Runs the files and directories given on the command line: each seed as
 * it is, cut at several lengths, and with a fixed series of byte
 * mutations (NCZ_FUZZ_MUTATIONS per seed, else @default_mutations), some
 * of them set to @interesting bytes. Returns the exit status: 0 when the
 * target ran and nothing crashed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <stdint.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int ncz_fuzz_standalone_main (int argc, char **argv, const char *name,
                              guint default_mutations,
                              const guint8 *interesting, gsize n_interesting,
                              guint *n_runs);
