/* fuzz-standalone.c: see fuzz-standalone.h
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "fuzz-standalone.h"

typedef struct {
  guint n_mutations;
  const guint8 *interesting;
  gsize n_interesting;
  guint n_runs;
} Driver;

static void
run_one (Driver *d, const uint8_t *data, size_t size)
{
  LLVMFuzzerTestOneInput (data, size);
  d->n_runs++;
}

static void
run_mutations (Driver *d, const uint8_t *data, size_t size, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  guint8 *copy = g_memdup2 (data, size ? size : 1);

  run_one (d, data, size);
  for (guint i = 1; i <= 8 && size > 0; i++)
    run_one (d, data, size * i / 9);
  for (guint m = 0; m < d->n_mutations && size > 0; m++)
    {
      gsize pos = (gsize) g_rand_int_range (rand, 0, (gint32) MIN (size, G_MAXINT32));
      guint8 saved = copy[pos];
      if (g_rand_boolean (rand))
        copy[pos] = d->interesting[g_rand_int_range (rand, 0, (gint32) d->n_interesting)];
      else
        copy[pos] ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
      run_one (d, copy, size);
      copy[pos] = saved;
    }
  g_free (copy);
}

static void
run_path (Driver *d, const char *path)
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
        run_path (d, g_ptr_array_index (names, i));
      g_ptr_array_unref (names);
      return;
    }
  {
    char *contents = NULL;
    gsize size = 0;
    if (!g_file_get_contents (path, &contents, &size, &error))
      g_error ("%s", error->message);
    run_mutations (d, (const uint8_t *) contents, size, g_str_hash (path));
    g_free (contents);
  }
}

int
ncz_fuzz_standalone_main (int argc, char **argv, const char *name, guint default_mutations,
                          const guint8 *interesting, gsize n_interesting, guint *n_runs)
{
  Driver d = { default_mutations, interesting, n_interesting, 0 };
  const char *env = g_getenv ("NCZ_FUZZ_MUTATIONS");
  guint n_paths = 0;

  g_return_val_if_fail (n_interesting > 0, 2);
  if (env != NULL)
    d.n_mutations = (guint) g_ascii_strtoull (env, NULL, 10);
  for (int i = 1; i < argc; i++)
    {
      if (argv[i][0] == '-')
        continue;            /* libFuzzer-style flags are ignored */
      run_path (&d, argv[i]);
      n_paths++;
    }
  *n_runs = d.n_runs;
  if (n_paths == 0)
    {
      g_printerr ("usage: %s-standalone CORPUS_DIR_OR_FILE...\n", name);
      return 2;
    }
  return d.n_runs > 0 ? 0 : 1;
}
