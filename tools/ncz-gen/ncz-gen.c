/* ncz-gen.c: create an Ncz dataset from CDL text, as netCDF's
 * `ncgen -4 -lb -o URL file.cdl` does
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ncz/ncz.h>
#include "ncz-cdl.h"

static void
usage (FILE *to)
{
  fprintf (to,
           "Usage: ncz-gen [-4] [-k kind] [-l b] [-b] [-x] -o URL [file.cdl]\n"
           "Create the dataset that CDL text describes, as ncgen -4 -lb does.\n"
           "\n"
           "  -o URL       the dataset to create (file:///abs/dir#mode=nczarr,file,\n"
           "               file:///abs/dir#mode=zarr,file, a plain path, ...)\n"
           "  file.cdl     the CDL text; standard input when absent or '-'\n"
           "  -4, -k nc4|netCDF-4|4|nc7|7, -l b, -b, -x, -v N\n"
           "               accepted for compatibility with ncgen; Ncz always writes\n"
           "               the netCDF-4 data model\n"
           "  -h, --help   show this help and exit\n"
           "  --version    show the version and exit\n");
}

static int
fail (const char *message)
{
  fflush (stdout);
  fprintf (stderr, "ncz-gen: %s\n", message);
  return EXIT_FAILURE;
}

static gboolean
kind_supported (const char *kind)
{
  static const char * const kinds[] = {
    "nc4", "netCDF-4", "netcdf-4", "4", "hdf5", "enhanced", "nc7", "7",
    "netCDF-4 classic model", "netCDF-4-classic", "classic model",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_ascii_strcasecmp (kind, kinds[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Reads all of @path ("-" for standard input). */
static char *
read_input (const char *path, gsize *length, GError **error)
{
  char *contents = NULL;
  GString *s;
  char buf[65536];
  size_t n;

  if (strcmp (path, "-") != 0)
    {
      if (!g_file_get_contents (path, &contents, length, error))
        return NULL;
      return contents;
    }
  s = g_string_new (NULL);
  while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
    g_string_append_len (s, buf, (gssize) n);
  if (ferror (stdin))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot read standard input");
      g_string_free (s, TRUE);
      return NULL;
    }
  *length = s->len;
  return g_string_free (s, FALSE);
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *output = NULL;
  const char *input = "-";
  const char *source;
  gsize length = 0;
  int opt;

  static const struct option long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };

  while ((opt = getopt_long (argc, argv, "34567bcfhk:l:no:xv:L:M:N:D:", long_options, NULL)) != -1)
    {
      switch (opt)
        {
        case 'V':
          printf ("ncz-gen (Ncz) %s\n", NCZ_VERSION_STRING);
          return EXIT_SUCCESS;
        case '3': case '5': case '6':
          return fail ("only the netCDF-4 data model is written (use -4)");
        case '4': case '7': case 'b': case 'x': case 'n': case 'v': case 'L':
        case 'M': case 'N': case 'D':
          break;
        case 'c': case 'f':
          return fail ("only binary output is produced (-lb)");
        case 'h':
          usage (stdout);
          return EXIT_SUCCESS;
        case 'k':
          if (!kind_supported (optarg))
            {
              g_autofree char *m = g_strdup_printf ("kind '%s' is not written; Ncz writes "
                                                    "the netCDF-4 data model (-k nc4)", optarg);
              return fail (m);
            }
          break;
        case 'l':
          if (strcmp (optarg, "b") != 0 && strcmp (optarg, "binary") != 0)
            {
              g_autofree char *m = g_strdup_printf ("language '%s' is not produced; only "
                                                    "binary output (-lb)", optarg);
              return fail (m);
            }
          break;
        case 'o':
          output = optarg;
          break;
        default:
          fprintf (stderr, "Try 'ncz-gen --help' for more information.\n");
          return EXIT_FAILURE;
        }
    }
  if (optind < argc)
    input = argv[optind++];
  if (optind < argc)
    {
      g_autofree char *m = g_strdup_printf ("one CDL file at most ('%s' is one too many); "
                                            "try 'ncz-gen --help'", argv[optind]);
      return fail (m);
    }
  if (output == NULL)
    return fail ("no output dataset given (-o URL)");

  text = read_input (input, &length, &error);
  if (text == NULL)
    return fail (error->message);
  source = strcmp (input, "-") == 0 ? "<stdin>" : input;
  if (!ncz_cdl_generate (text, (gssize) length, source, output, NCZ_CREATE_DEFAULT, &error))
    return fail (error->message);
  return EXIT_SUCCESS;
}
