/* nc-bench.c: the benchmark cases with netcdf-c's NCZarr (the peer)
 *
 * Usage: nc-bench data --dir=DIR [--shape=128,512,512] [--chunks=32,128,128]
 *        nc-bench hdf5 --dir=DIR [--shape=...] [--chunks=...]
 *                      [--form=chunked|contiguous|deflate|shuffle-deflate]
 *        nc-bench meta --dir=DIR [--meta=20,20,10]
 *
 * data: writes a 3-D float variable in one nc_put_var_float call to
 *   file://DIR/nc-data.zarr#mode=nczarr,file, closes, reopens and reads it
 *   whole, checks the values.
 * hdf5: the same in a netCDF-4 file, DIR/nc-data.nc (NC_NETCDF4), in one
 *   of the forms of --form: chunked (the data case's values and chunks,
 *   uncompressed), contiguous (the same values, NC_CONTIGUOUS), deflate
 *   (bench_smooth_fill's values, the data case's chunks, nc_def_var_deflate
 *   level 1) or shuffle-deflate (the same with shuffle). The file is
 *   fsync'd (and its directory) after nc_close, inside the timed write, as
 *   Ncz's HDF5 backend syncs a new file at close: both write times end
 *   with the file on disk ("fsync_s" is that part alone).
 * meta: creates G groups of V variables with A attributes each, closes,
 *   then opens and lists everything (names, types and attribute values).
 * Prints one JSON line with the times and the peak RSS.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <netcdf.h>

#include "bench-common.h"

#define CHECK(call) do { int _s = (call); if (_s != NC_NOERR) { \
  fprintf (stderr, "nc-bench: %s: %s\n", #call, nc_strerror (_s)); exit (1); } } while (0)

/* fsync of @path: 1, or 0 with a message. */
static int
sync_path (const char *path)
{
  int fd = open (path, O_RDONLY);

  if (fd < 0 || fsync (fd) != 0)
    {
      fprintf (stderr, "nc-bench: %s: fsync: %s\n", path, strerror (errno));
      if (fd >= 0)
        close (fd);
      return 0;
    }
  close (fd);
  return 1;
}

/* The data case (@hdf5 0: NCZarr in a directory) and the hdf5 case
 * (@hdf5 1: a netCDF-4 file, --form). */
static int
run_data (const char *dir, int argc, char **argv, int hdf5)
{
  size_t shape[3], chunks[3], total = 1;
  char url[4096];
  int ncid, varid, dimids[3];
  float *data, *expected = NULL;
  double t0, t_write, t_read, t_sync = 0.0;
  const char *form = bench_arg (argc, argv, "--form", "chunked");
  int contiguous = 0, deflate = 0, shuffle = 0;
  long long stored = -1;
  static const char *const names[3] = { "z", "y", "x" };

  if (bench_parse_sizes (bench_arg (argc, argv, "--shape", "128,512,512"), shape, 3) != 3 ||
      bench_parse_sizes (bench_arg (argc, argv, "--chunks", "32,128,128"), chunks, 3) != 3)
    return 2;
  if (hdf5)
    {
      if (strcmp (form, "contiguous") == 0)
        contiguous = 1;
      else if (strcmp (form, "deflate") == 0)
        deflate = 1;
      else if (strcmp (form, "shuffle-deflate") == 0)
        deflate = shuffle = 1;
      else if (strcmp (form, "chunked") != 0)
        {
          fprintf (stderr, "nc-bench: unknown form '%s' (chunked, contiguous, deflate, "
                   "shuffle-deflate)\n", form);
          return 2;
        }
    }
  for (int i = 0; i < 3; i++)
    total *= shape[i];
  data = malloc (total * sizeof (float));
  if (data == NULL)
    return 1;
  if (deflate)
    {
      /* the compressed forms take the codec cases' values */
      bench_smooth_fill (data, shape);
      expected = malloc (total * sizeof (float));
      if (expected == NULL)
        return 1;
      memcpy (expected, data, total * sizeof (float));
    }
  else
    for (size_t i = 0; i < total; i++)
      data[i] = bench_value (i);
  if (hdf5)
    snprintf (url, sizeof url, "%s/nc-data.nc", dir);
  else
    snprintf (url, sizeof url, "file://%s/nc-data.zarr#mode=nczarr,file", dir);

  t0 = bench_now ();
  CHECK (nc_create (url, NC_NETCDF4 | NC_CLOBBER, &ncid));
  for (int i = 0; i < 3; i++)
    CHECK (nc_def_dim (ncid, names[i], shape[i], &dimids[i]));
  CHECK (nc_def_var (ncid, "data", NC_FLOAT, 3, dimids, &varid));
  if (contiguous)
    CHECK (nc_def_var_chunking (ncid, varid, NC_CONTIGUOUS, NULL));
  else
    CHECK (nc_def_var_chunking (ncid, varid, NC_CHUNKED, chunks));
  if (deflate)
    CHECK (nc_def_var_deflate (ncid, varid, shuffle, 1, 1));
  CHECK (nc_enddef (ncid));
  CHECK (nc_put_var_float (ncid, varid, data));
  CHECK (nc_close (ncid));
  if (hdf5)
    {
      double t1 = bench_now ();
      if (!sync_path (url) || !sync_path (dir))
        return 1;
      t_sync = bench_now () - t1;
    }
  t_write = bench_now () - t0;
  if (hdf5)
    {
      struct stat st;
      if (stat (url, &st) == 0)
        stored = (long long) st.st_size;
    }

  memset (data, 0, total * sizeof (float));
  t0 = bench_now ();
  CHECK (nc_open (url, NC_NOWRITE, &ncid));
  CHECK (nc_inq_varid (ncid, "data", &varid));
  CHECK (nc_get_var_float (ncid, varid, data));
  CHECK (nc_close (ncid));
  t_read = bench_now () - t0;

  if (expected != NULL)
    {
      if (memcmp (data, expected, total * sizeof (float)) != 0)
        {
          fprintf (stderr, "nc-bench: read back different values\n");
          return 1;
        }
    }
  else
    for (size_t i = 0; i < total; i += 997)
      if (data[i] != bench_value (i))
        {
          fprintf (stderr, "nc-bench: wrong value at %zu\n", i);
          return 1;
        }
  if (hdf5)
    printf ("{\"tool\": \"netcdf-c\", \"case\": \"hdf5\", \"form\": \"%s\", "
            "\"bytes\": %zu, \"stored_bytes\": %lld, \"write_s\": %.6f, \"fsync_s\": %.6f, "
            "\"read_s\": %.6f, \"peak_rss_kib\": %ld}\n",
            form, total * sizeof (float), stored, t_write, t_sync, t_read,
            bench_peak_rss_kib ());
  else
    printf ("{\"tool\": \"netcdf-c\", \"case\": \"data\", \"bytes\": %zu, \"write_s\": %.6f, "
            "\"read_s\": %.6f, \"peak_rss_kib\": %ld}\n",
            total * sizeof (float), t_write, t_read, bench_peak_rss_kib ());
  free (data);
  free (expected);
  return 0;
}

static int
run_meta (const char *dir, int argc, char **argv)
{
  size_t m[3];
  char url[4096], name[64];
  int ncid, dimid;
  double t0, t_create, t_open;
  long n_attrs = 0, n_vars = 0, n_groups = 0;

  if (bench_parse_sizes (bench_arg (argc, argv, "--meta", "20,20,10"), m, 3) != 3)
    return 2;
  snprintf (url, sizeof url, "file://%s/nc-meta.zarr#mode=nczarr,file", dir);

  t0 = bench_now ();
  CHECK (nc_create (url, NC_NETCDF4 | NC_CLOBBER, &ncid));
  CHECK (nc_def_dim (ncid, "n", 10, &dimid));
  for (size_t g = 0; g < m[0]; g++)
    {
      int gid;
      snprintf (name, sizeof name, "group%zu", g);
      CHECK (nc_def_grp (ncid, name, &gid));
      for (size_t v = 0; v < m[1]; v++)
        {
          int varid;
          snprintf (name, sizeof name, "var%zu", v);
          CHECK (nc_def_var (gid, name, NC_DOUBLE, 1, &dimid, &varid));
          for (size_t a = 0; a < m[2]; a++)
            {
              double value = (double) (g * 1000 + v * 10 + a);
              snprintf (name, sizeof name, "attr%zu", a);
              if (a % 2)
                CHECK (nc_put_att_text (gid, varid, name, 10, "some text."));
              else
                CHECK (nc_put_att_double (gid, varid, name, NC_DOUBLE, 1, &value));
            }
        }
    }
  CHECK (nc_close (ncid));
  t_create = bench_now () - t0;

  t0 = bench_now ();
  CHECK (nc_open (url, NC_NOWRITE, &ncid));
  {
    /* Sized by asking first: a group may hold any number of children. */
    int ngrps, *grpids;
    CHECK (nc_inq_grps (ncid, &ngrps, NULL));
    grpids = malloc ((ngrps > 0 ? (size_t) ngrps : 1) * sizeof *grpids);
    CHECK (nc_inq_grps (ncid, &ngrps, grpids));
    for (int g = 0; g < ngrps; g++)
      {
        int nvars, *varids;
        CHECK (nc_inq_grpname (grpids[g], name));
        n_groups++;
        CHECK (nc_inq_varids (grpids[g], &nvars, NULL));
        varids = malloc ((nvars > 0 ? (size_t) nvars : 1) * sizeof *varids);
        CHECK (nc_inq_varids (grpids[g], &nvars, varids));
        for (int v = 0; v < nvars; v++)
          {
            int natts;
            nc_type type;
            CHECK (nc_inq_var (grpids[g], varids[v], name, &type, NULL, NULL, &natts));
            n_vars++;
            for (int a = 0; a < natts; a++)
              {
                nc_type atype;
                size_t len;
                char buf[256];
                CHECK (nc_inq_attname (grpids[g], varids[v], a, name));
                CHECK (nc_inq_att (grpids[g], varids[v], name, &atype, &len));
                if (len * 8 <= sizeof buf)
                  CHECK (nc_get_att (grpids[g], varids[v], name, buf));
                n_attrs++;
              }
          }
        free (varids);
      }
    free (grpids);
  }
  CHECK (nc_close (ncid));
  t_open = bench_now () - t0;

  printf ("{\"tool\": \"netcdf-c\", \"case\": \"meta\", \"groups\": %ld, \"variables\": %ld, "
          "\"attributes\": %ld, \"create_s\": %.6f, \"open_s\": %.6f, \"peak_rss_kib\": %ld}\n",
          n_groups, n_vars, n_attrs, t_create, t_open, bench_peak_rss_kib ());
  return 0;
}

int
main (int argc, char **argv)
{
  const char *dir = bench_arg (argc, argv, "--dir", NULL);
  if (argc < 2 || dir == NULL)
    {
      fprintf (stderr, "usage: nc-bench {data|hdf5|meta} --dir=DIR [options]\n");
      return 2;
    }
  if (mkdir (dir, 0755) != 0 && errno != EEXIST)
    {
      fprintf (stderr, "nc-bench: cannot create %s: %s\n", dir, strerror (errno));
      return 1;
    }
  if (strcmp (argv[1], "data") == 0)
    return run_data (dir, argc, argv, 0);
  if (strcmp (argv[1], "hdf5") == 0)
    return run_data (dir, argc, argv, 1);
  if (strcmp (argv[1], "meta") == 0)
    return run_meta (dir, argc, argv);
  fprintf (stderr, "nc-bench: unknown case %s\n", argv[1]);
  return 2;
}
