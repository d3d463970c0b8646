/* test-hdf5-io.c: slab I/O of netCDF-4 files, with HDF5's direct chunk
 * I/O and Ncz's codecs for filtered chunked variables
 *
 * What Ncz writes is read back by libhdf5's own pipeline (H5Dread) in this
 * process, and what libhdf5 writes (including chunks whose optional
 * deflate was skipped, and chunks never written) is read by Ncz; both are
 * compared with the values kept here. Whole, partial, strided and
 * out-of-extent selections, every edge chunk, big-endian storage,
 * unlimited dimensions, damaged chunks, and which chunks went the direct
 * way (the backend's debug messages are counted). Contiguous datasets
 * libhdf5 writes (every type, both byte orders, with a user block, never
 * written, empty, scalar, damaged addresses, a file cut short), read
 * without libhdf5 from the file or through a store (#mode=bytes).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <ncz/ncz.h>

#define D0 10
#define D1 13
#define D2 7

/* ---- the backend's debug messages: chunks moved raw / through HDF5 ---- */

static GMutex log_lock;
static guint raw_chunks, pipeline_chunks;
static guint contiguous_reads;    /* contiguous selections read without libhdf5 */

static GLogWriterOutput
count_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0)
        domain = fields[i].value;
      else if (g_strcmp0 (fields[i].key, "MESSAGE") == 0)
        message = fields[i].value;
    }
  if (g_strcmp0 (domain, "Ncz-hdf5") == 0 && message != NULL)
    {
      const char *p = strstr (message, "chunks raw");
      unsigned raw = 0, pipe = 0;

      if (p != NULL)
        {
          while (p > message && p[-1] != ' ')
            p--;
          while (p > message && p[-1] == ' ')
            p--;
          while (p > message && p[-1] != ' ')
            p--;
          if (sscanf (p, "%u chunks raw, %u through", &raw, &pipe) == 2)
            {
              g_mutex_lock (&log_lock);
              raw_chunks += raw;
              pipeline_chunks += pipe;
              g_mutex_unlock (&log_lock);
            }
        }
      if (strstr (message, "bytes of contiguous data raw") != NULL)
        {
          g_mutex_lock (&log_lock);
          contiguous_reads++;
          g_mutex_unlock (&log_lock);
        }
      if (level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO))
        return G_LOG_WRITER_HANDLED;
    }
  if (level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO))
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (level, fields, n_fields, data);
}

static void
reset_counts (void)
{
  g_mutex_lock (&log_lock);
  raw_chunks = pipeline_chunks = contiguous_reads = 0;
  g_mutex_unlock (&log_lock);
}

/* ---- helpers ---- */

static char *
temp_path (const char *name)
{
  g_assert_cmpint (g_mkdir_with_parents (g_get_user_cache_dir (), 0700), ==, 0);
  return g_build_filename (g_get_user_cache_dir (), name, NULL);
}

static void
close_dataset (NczDataset *ds)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (ds);
}

static NczDataset *
open_dataset (const char *path, NczOpenFlags flags)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_open (path, flags, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

/* A value for element @i: varied, partly compressible. */
static double
value_at (guint64 i)
{
  return (double) ((i * 2654435761u) % 1000) / 8.0 + (double) (i % 7);
}

typedef struct {
  const char *name;
  NczDataType type;
  gsize size;
} TypeCase;

static const TypeCase types[] = {
  { "f32", NCZ_DATA_TYPE_FLOAT, 4 },
  { "f64", NCZ_DATA_TYPE_DOUBLE, 8 },
  { "i16", NCZ_DATA_TYPE_SHORT, 2 },
  { "i64", NCZ_DATA_TYPE_INT64, 8 },
  { "u8", NCZ_DATA_TYPE_UBYTE, 1 },
  { "c", NCZ_DATA_TYPE_CHAR, 1 },
};

/* @n elements of @type with the reference values, from @first. */
static guint8 *
make_values (NczDataType type, guint64 n, guint64 first)
{
  guint8 *b = g_malloc0 (MAX (n, 1) * 8);

  for (guint64 i = 0; i < n; i++)
    {
      double v = value_at (first + i);

      switch (type)
        {
        case NCZ_DATA_TYPE_FLOAT: ((float *) b)[i] = (float) v; break;
        case NCZ_DATA_TYPE_DOUBLE: ((double *) b)[i] = v; break;
        case NCZ_DATA_TYPE_SHORT: ((gint16 *) b)[i] = (gint16) (v * 10); break;
        case NCZ_DATA_TYPE_INT64: ((gint64 *) b)[i] = (gint64) (v * 1e6) - 5000; break;
        case NCZ_DATA_TYPE_UBYTE: ((guint8 *) b)[i] = (guint8) v; break;
        case NCZ_DATA_TYPE_CHAR: ((guint8 *) b)[i] = (guint8) ('a' + (first + i) % 26); break;
        default: g_assert_not_reached ();
        }
    }
  return b;
}

static hid_t
native_type (NczDataType type)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_FLOAT: return H5T_NATIVE_FLOAT;
    case NCZ_DATA_TYPE_DOUBLE: return H5T_NATIVE_DOUBLE;
    case NCZ_DATA_TYPE_SHORT: return H5T_NATIVE_SHORT;
    case NCZ_DATA_TYPE_INT64: return H5T_NATIVE_LLONG;
    case NCZ_DATA_TYPE_UBYTE: return H5T_NATIVE_UCHAR;
    case NCZ_DATA_TYPE_INT: return H5T_NATIVE_UINT;
    default: g_assert_not_reached ();
    }
}

/* The whole dataset @name of @path, read by libhdf5's own pipeline. */
static guint8 *
h5_read_all (const char *path, const char *name, NczDataType type, gsize size, guint64 n)
{
  hid_t f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d, t;
  guint8 *b = g_malloc0 (n * size);

  g_assert_cmpint (f, >=, 0);
  d = H5Dopen2 (f, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  t = type == NCZ_DATA_TYPE_CHAR ? H5Dget_type (d) : H5Tcopy (native_type (type));
  if (H5Dread (d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) < 0)
    {
      H5Eprint2 (H5E_DEFAULT, stderr);
      g_error ("libhdf5 cannot read dataset %s of %s", name, path);
    }
  H5Tclose (t);
  H5Dclose (d);
  H5Fclose (f);
  return b;
}

typedef enum {
  F_NONE,
  F_DEFLATE,
  F_SHUFFLE_DEFLATE,
  F_FLETCHER_SHUFFLE_DEFLATE,
  F_ZSTD,
  F_SHUFFLE_ZSTD,
  F_BZIP2,
  F_LZ4,
  F_BLOSC,
} Filters;

static const char *filter_names[] = {
  "none", "deflate", "shuffle+deflate", "fletcher32+shuffle+deflate", "zstd", "shuffle+zstd",
  "bzip2", "lz4", "blosc",
};

static void
set_filters (NczVariable *v, Filters f)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;

  switch (f)
    {
    case F_NONE:
      break;
    case F_DEFLATE:
      ok = ncz_variable_set_deflate (v, FALSE, TRUE, 1, &error);
      break;
    case F_SHUFFLE_DEFLATE:
      ok = ncz_variable_set_deflate (v, TRUE, TRUE, 1, &error);
      break;
    case F_FLETCHER_SHUFFLE_DEFLATE:
      ok = ncz_variable_set_fletcher32 (v, &error) && ncz_variable_set_deflate (v, TRUE, TRUE, 3, &error);
      break;
    case F_ZSTD:
      ok = ncz_variable_set_zstandard (v, 3, &error);
      break;
    case F_SHUFFLE_ZSTD:
      ok = ncz_variable_set_shuffle (v, &error) && ncz_variable_set_zstandard (v, 1, &error);
      break;
    case F_BZIP2:
      {
        guint p[] = { 9 };
        ok = ncz_variable_add_filter (v, 307, p, 1, &error);
      }
      break;
    case F_LZ4:
      ok = ncz_variable_add_filter (v, 32004, NULL, 0, &error);
      break;
    case F_BLOSC:
      ok = ncz_variable_add_filter_json (v, "{\"id\": \"blosc\", \"cname\": \"lz4\", "
                                         "\"clevel\": 5, \"shuffle\": 1}", &error);
      break;
    }
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* Compares the slab @start/@count/@stride of the reference (the whole
 * D0×D1×D2 array @ref) with @got. */
static void
assert_slab (const guint8 *ref, const guint8 *got, gsize size, const guint64 *start,
             const guint64 *count, const gint64 *stride)
{
  guint64 n = 0;

  for (guint64 a = 0; a < count[0]; a++)
    for (guint64 b = 0; b < count[1]; b++)
      for (guint64 c = 0; c < count[2]; c++, n++)
        {
          guint64 i = start[0] + a * (stride ? stride[0] : 1);
          guint64 j = start[1] + b * (stride ? stride[1] : 1);
          guint64 k = start[2] + c * (stride ? stride[2] : 1);
          guint64 at = (i * D1 + j) * D2 + k;

          if (memcmp (ref + at * size, got + n * size, size) != 0)
            g_error ("element (%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                     ") differs", i, j, k);
        }
}

static void
read_and_check (NczVariable *v, const guint8 *ref, gsize size, const guint64 *start,
                const guint64 *count, const gint64 *stride)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) got = ncz_variable_read_bytes (v, start, 3, count, 3, stride,
                                                   stride ? 3 : 0, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (got), ==, count[0] * count[1] * count[2] * size);
  assert_slab (ref, g_bytes_get_data (got, NULL), size, start, count, stride);
}

/* Every type, every filter set: a 10×13×7 variable in 4×5×3 chunks (edge
 * chunks on every side) written whole in one call goes raw (45 chunks);
 * libhdf5 reads the same values; Ncz reads whole, part and strided
 * selections back. */
static void
test_round_trip (gconstpointer data)
{
  Filters f = GPOINTER_TO_INT (data);
  g_autofree char *path = temp_path ("round-trip.nc");
  g_autoptr(GError) error = NULL;
  guint64 total = D0 * D1 * D2;
  const guint64 chunks[] = { 4, 5, 3 };
  const guint64 zero[] = { 0, 0, 0 }, all[] = { D0, D1, D2 };
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[3];
  g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", D0, FALSE, &error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", D1, FALSE, &error);
  dims[2] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "z", D2, FALSE, &error);
  g_assert_no_error (error);
  for (gsize t = 0; t < G_N_ELEMENTS (types); t++)
    {
      NczVariable *v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), types[t].name,
                                               types[t].type, 3, dims, &error);
      guint8 *ref = make_values (types[t].type, total, t * 1000);

      g_assert_no_error (error);
      g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
      set_filters (v, f);
      reset_counts ();
      g_assert_true (ncz_variable_write (v, zero, 3, all, 3, NULL, 0, ref,
                                         total * types[t].size, NULL, &error));
      g_assert_no_error (error);
      if (f == F_LZ4)
        g_assert_cmpuint (raw_chunks, ==, 0);   /* HDF5's lz4 framing: pipeline */
      else
        {
          g_assert_cmpuint (raw_chunks, ==, 3 * 3 * 3);
          g_assert_cmpuint (pipeline_chunks, ==, 0);
        }
      g_ptr_array_add (refs, ref);
    }
  close_dataset (ds);

  for (gsize t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autofree guint8 *h5 = h5_read_all (path, types[t].name, types[t].type, types[t].size,
                                           total);

      g_assert_cmpmem (h5, total * types[t].size, refs->pdata[t], total * types[t].size);
    }

  ds = open_dataset (path, NCZ_OPEN_READ);
  for (gsize t = 0; t < G_N_ELEMENTS (types); t++)
    {
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), types[t].name);
      const guint8 *ref = refs->pdata[t];
      const guint64 s1[] = { 1, 2, 1 }, c1[] = { 5, 7, 4 };
      const guint64 s2[] = { 0, 1, 0 }, c2[] = { 5, 4, 4 };
      const gint64 st2[] = { 2, 3, 2 };
      const guint64 s3[] = { 4, 5, 3 }, c3[] = { 4, 5, 3 };

      reset_counts ();
      read_and_check (v, ref, types[t].size, zero, all, NULL);
      g_assert_cmpuint (raw_chunks, ==, f == F_LZ4 ? 0 : 27);
      g_assert_cmpuint (pipeline_chunks, ==, 0);
      reset_counts ();
      read_and_check (v, ref, types[t].size, s1, c1, NULL);
      if (f != F_LZ4)
        g_assert_cmpuint (raw_chunks + pipeline_chunks, ==, 2 * 2 * 2);
      read_and_check (v, ref, types[t].size, s2, c2, st2);
      reset_counts ();
      read_and_check (v, ref, types[t].size, s3, c3, NULL);   /* exactly one chunk */
      g_assert_cmpuint (raw_chunks, ==, f == F_LZ4 ? 0 : 1);
      g_assert_cmpuint (pipeline_chunks, ==, 0);
    }
  close_dataset (ds);
  g_unlink (path);
}

/* Writes that cover chunks in part go through HDF5's pipeline beside raw
 * chunk writes of the same file; strided writes; a file opened for
 * writing. */
static void
test_partial_writes (void)
{
  g_autofree char *path = temp_path ("partial.nc");
  g_autoptr(GError) error = NULL;
  guint64 total = D0 * D1 * D2;
  const guint64 chunks[] = { 4, 5, 3 };
  g_autofree guint8 *ref = g_malloc0 (total * 4);
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[3];
  NczVariable *v;
  float fill = -1.0f;

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", D0, FALSE, &error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", D1, FALSE, &error);
  dims[2] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "z", D2, FALSE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_FLOAT, 3,
                              dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
  set_filters (v, F_SHUFFLE_DEFLATE);
  {
    g_autoptr(GBytes) fb = g_bytes_new (&fill, sizeof fill);
    g_assert_true (ncz_variable_set_fill_value (v, fb, &error));
  }
  g_assert_no_error (error);
  for (guint64 i = 0; i < total; i++)
    ((float *) ref)[i] = fill;

  /* a block of chunks exactly, then a block straddling chunks */
  {
    const guint64 s[] = { 0, 0, 0 }, c[] = { 4, 10, 6 };
    const guint64 s2[] = { 3, 4, 2 }, c2[] = { 5, 6, 4 };
    const guint64 *ss[] = { s, s2 }, *cc[] = { c, c2 };

    for (int w = 0; w < 2; w++)
      {
        guint64 n = cc[w][0] * cc[w][1] * cc[w][2], m = 0;
        g_autofree float *vals = g_new (float, n);

        for (guint64 a = 0; a < cc[w][0]; a++)
          for (guint64 b = 0; b < cc[w][1]; b++)
            for (guint64 c3 = 0; c3 < cc[w][2]; c3++, m++)
              {
                guint64 at = ((ss[w][0] + a) * D1 + ss[w][1] + b) * D2 + ss[w][2] + c3;

                vals[m] = (float) value_at (at + w * 7);
                ((float *) ref)[at] = vals[m];
              }
        reset_counts ();
        g_assert_true (ncz_variable_write (v, ss[w], 3, cc[w], 3, NULL, 0, vals, n * 4, NULL,
                                           &error));
        g_assert_no_error (error);
        if (w == 0)
          {
            g_assert_cmpuint (raw_chunks, ==, 4);
            g_assert_cmpuint (pipeline_chunks, ==, 0);
          }
        else
          g_assert_cmpuint (pipeline_chunks, >, 0);
      }
  }
  close_dataset (ds);

  /* reopened for writing: a strided write */
  ds = open_dataset (path, NCZ_OPEN_WRITE);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  {
    const guint64 s[] = { 1, 0, 0 }, c[] = { 4, 5, 4 };
    const gint64 st[] = { 2, 3, 2 };
    guint64 n = 4 * 5 * 4, m = 0;
    g_autofree float *vals = g_new (float, n);

    for (guint64 a = 0; a < c[0]; a++)
      for (guint64 b = 0; b < c[1]; b++)
        for (guint64 c3 = 0; c3 < c[2]; c3++, m++)
          {
            guint64 at = ((s[0] + a * st[0]) * D1 + s[1] + b * st[1]) * D2 + s[2] + c3 * st[2];

            vals[m] = 1000.0f + (float) m;
            ((float *) ref)[at] = vals[m];
          }
    g_assert_true (ncz_variable_write (v, s, 3, c, 3, st, 3, vals, n * 4, NULL, &error));
    g_assert_no_error (error);
  }
  close_dataset (ds);

  {
    g_autofree guint8 *h5 = h5_read_all (path, "v", NCZ_DATA_TYPE_FLOAT, 4, total);
    const guint64 zero[] = { 0, 0, 0 }, all[] = { D0, D1, D2 };

    g_assert_cmpmem (h5, total * 4, ref, total * 4);
    ds = open_dataset (path, NCZ_OPEN_READ);
    v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
    read_and_check (v, ref, 4, zero, all, NULL);
    close_dataset (ds);
  }
  g_unlink (path);
}

/* Big-endian storage: the raw chunks hold big-endian values. */
static void
test_big_endian (void)
{
  g_autofree char *path = temp_path ("big.nc");
  g_autoptr(GError) error = NULL;
  guint64 total = D0 * D1 * D2;
  const guint64 chunks[] = { 4, 5, 3 }, zero[] = { 0, 0, 0 }, all[] = { D0, D1, D2 };
  g_autofree guint8 *ref = make_values (NCZ_DATA_TYPE_DOUBLE, total, 3);
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[3];
  NczVariable *v;

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", D0, FALSE, &error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", D1, FALSE, &error);
  dims[2] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "z", D2, FALSE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_DOUBLE, 3,
                              dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
  set_filters (v, F_SHUFFLE_ZSTD);
  reset_counts ();
  g_assert_true (ncz_variable_write (v, zero, 3, all, 3, NULL, 0, ref, total * 8, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (raw_chunks, ==, 27);
  close_dataset (ds);

  {
    g_autofree guint8 *h5 = h5_read_all (path, "v", NCZ_DATA_TYPE_DOUBLE, 8, total);
    hid_t f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2 (f, "v", H5P_DEFAULT);
    hid_t t = H5Dget_type (d);

    g_assert_cmpint (H5Tget_order (t), ==, H5T_ORDER_BE);
    H5Tclose (t);
    H5Dclose (d);
    H5Fclose (f);
    g_assert_cmpmem (h5, total * 8, ref, total * 8);
  }
  ds = open_dataset (path, NCZ_OPEN_READ);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  read_and_check (v, ref, 8, zero, all, NULL);
  close_dataset (ds);
  g_unlink (path);
}

/* A record variable shorter than its unlimited dimension reads fill
 * values past its own records; records are appended raw. */
static void
test_unlimited (void)
{
  g_autofree char *path = temp_path ("records.nc");
  g_autoptr(GError) error = NULL;
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[2];
  NczVariable *a, *b;
  const guint64 chunks[] = { 2, 8 };
  float fill = 9.5f;

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "t", 0, TRUE, &error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", 8, FALSE, &error);
  a = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "a", NCZ_DATA_TYPE_FLOAT, 2,
                              dims, &error);
  b = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "b", NCZ_DATA_TYPE_FLOAT, 2,
                              dims, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_variable_set_chunk_sizes (a, chunks, 2, &error));
  g_assert_true (ncz_variable_set_chunk_sizes (b, chunks, 2, &error));
  set_filters (a, F_DEFLATE);
  set_filters (b, F_DEFLATE);
  {
    g_autoptr(GBytes) fb = g_bytes_new (&fill, sizeof fill);
    g_assert_true (ncz_variable_set_fill_value (a, fb, &error));
  }
  g_assert_no_error (error);
  {
    float va[4 * 8], vb[10 * 8];
    const guint64 s[] = { 0, 0 }, ca[] = { 4, 8 }, cb[] = { 10, 8 };

    for (int i = 0; i < 4 * 8; i++)
      va[i] = (float) i;
    for (int i = 0; i < 10 * 8; i++)
      vb[i] = (float) -i;
    reset_counts ();
    g_assert_true (ncz_variable_write (a, s, 2, ca, 2, NULL, 0, va, sizeof va, NULL, &error));
    g_assert_true (ncz_variable_write (b, s, 2, cb, 2, NULL, 0, vb, sizeof vb, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (raw_chunks, ==, 2 + 5);
  }
  close_dataset (ds);

  ds = open_dataset (path, NCZ_OPEN_READ);
  a = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "a");
  {
    const guint64 s[] = { 2, 0 }, c[] = { 8, 8 };
    g_autoptr(GBytes) got = ncz_variable_read_bytes (a, s, 2, c, 2, NULL, 0, NULL, &error);
    const float *f;

    g_assert_no_error (error);
    f = g_bytes_get_data (got, NULL);
    for (int r = 0; r < 8; r++)
      for (int x = 0; x < 8; x++)
        g_assert_cmpfloat (f[r * 8 + x], ==, r < 2 ? (float) ((r + 2) * 8 + x) : fill);
  }
  close_dataset (ds);
  g_unlink (path);
}

/* A file libhdf5 wrote through its own pipeline (shuffle, then an
 * optional deflate, as netcdf-c sets them), with chunks whose filter mask
 * says deflate, or deflate and shuffle, were skipped (libhdf5 skips an
 * optional filter that fails), and chunks never written. */
static void
test_foreign_file (void)
{
  g_autofree char *path = temp_path ("foreign.nc");
  g_autoptr(GError) error = NULL;
  const hsize_t dims[] = { 16, 16 }, chunk[] = { 4, 8 };
  g_autofree guint32 *ref = g_new0 (guint32, 16 * 16);
  hid_t f, space, dcpl, d;

  for (int i = 0; i < 16 * 16; i++)
    ref[i] = 77;   /* the fill value */
  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  space = H5Screate_simple (2, dims, NULL);
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 2, chunk);
  H5Pset_shuffle (dcpl);
  H5Pset_deflate (dcpl, 6);
  {
    guint32 fv = 77;
    H5Pset_fill_value (dcpl, H5T_NATIVE_UINT, &fv);
  }
  d = H5Dcreate2 (f, "u", H5T_STD_U32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  {
    /* rows 0-7 through the pipeline */
    const hsize_t start[] = { 0, 0 }, count[] = { 8, 16 };
    hid_t mem = H5Screate_simple (2, count, NULL);

    for (int i = 0; i < 8 * 16; i++)
      ref[i] = (guint32) (i * 37 % 1000);
    H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL);
    g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_UINT, mem, space, H5P_DEFAULT, ref), >=, 0);
    H5Sclose (mem);
  }
  {
    /* chunk (2,0): deflate skipped (mask bit 1), shuffled bytes;
     * chunk (2,1): both skipped, plain bytes; rows 12-15 never written */
    guint32 plain[4 * 8];
    guint8 shuffled[sizeof plain];
    const hsize_t off0[] = { 8, 0 }, off1[] = { 8, 8 };

    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 8; c++)
        plain[r * 8 + c] = 0x01020304u * (guint32) (r + 1) + (guint32) c;
    for (gsize e = 0; e < 32; e++)
      for (gsize b = 0; b < 4; b++)
        shuffled[b * 32 + e] = ((const guint8 *) plain)[e * 4 + b];
    g_assert_cmpint (H5Dwrite_chunk (d, H5P_DEFAULT, 1u << 1, off0, sizeof shuffled, shuffled),
                     >=, 0);
    g_assert_cmpint (H5Dwrite_chunk (d, H5P_DEFAULT, 3u, off1, sizeof plain, plain), >=, 0);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 8; c++)
        {
          ref[(8 + r) * 16 + c] = plain[r * 8 + c];
          ref[(8 + r) * 16 + 8 + c] = plain[r * 8 + c];
        }
  }
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Fclose (f);
  {
    /* libhdf5 itself reads what the reference says */
    g_autofree guint8 *h5 = h5_read_all (path, "u", NCZ_DATA_TYPE_INT, 4, 16 * 16);

    g_assert_cmpmem (h5, 16 * 16 * 4, ref, 16 * 16 * 4);
  }
  {
    NczDataset *ds = open_dataset (path, NCZ_OPEN_READ);
    NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "u");
    const guint64 s[] = { 0, 0 }, c[] = { 16, 16 };
    g_autoptr(GBytes) got = NULL;

    g_assert_nonnull (v);
    reset_counts ();
    got = ncz_variable_read_bytes (v, s, 2, c, 2, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (raw_chunks, ==, 8);
    g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got), ref, 16 * 16 * 4);
    close_dataset (ds);
  }
  g_unlink (path);
}

/* A chunk whose bytes were damaged: an error naming the file, the
 * variable and the chunk, whichever codec notices. */
static void
test_damaged_chunk (void)
{
  g_autofree char *path = temp_path ("damaged.nc");
  g_autoptr(GError) error = NULL;
  const guint64 chunks[] = { 4, 5, 3 }, zero[] = { 0, 0, 0 }, all[] = { D0, D1, D2 };
  guint64 total = D0 * D1 * D2;
  g_autofree guint8 *ref = make_values (NCZ_DATA_TYPE_FLOAT, total, 0);
  NczDataset *ds = ncz_dataset_create (path, NCZ_CREATE_DEFAULT, NULL, &error);
  NczDimension *dims[3];
  NczVariable *v;
  haddr_t addr = 0;
  hsize_t size = 0;

  g_assert_no_error (error);
  dims[0] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "x", D0, FALSE, &error);
  dims[1] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "y", D1, FALSE, &error);
  dims[2] = ncz_group_add_dimension (ncz_dataset_get_root_group (ds), "z", D2, FALSE, &error);
  v = ncz_group_add_variable (ncz_dataset_get_root_group (ds), "v", NCZ_DATA_TYPE_FLOAT, 3,
                              dims, &error);
  g_assert_true (ncz_variable_set_chunk_sizes (v, chunks, 3, &error));
  set_filters (v, F_DEFLATE);
  g_assert_true (ncz_variable_write (v, zero, 3, all, 3, NULL, 0, ref, total * 4, NULL, &error));
  g_assert_no_error (error);
  close_dataset (ds);

  {
    hid_t f = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2 (f, "v", H5P_DEFAULT);
    const hsize_t off[] = { 4, 5, 3 };
    unsigned mask;

    g_assert_cmpint (H5Dget_chunk_info_by_coord (d, off, &mask, &addr, &size), >=, 0);
    H5Dclose (d);
    H5Fclose (f);
  }
  {
    FILE *fp = fopen (path, "r+b");
    guint8 junk[16];

    memset (junk, 0x5a, sizeof junk);
    g_assert_nonnull (fp);
    g_assert_cmpint (fseek (fp, (long) addr + 2, SEEK_SET), ==, 0);
    g_assert_cmpuint (fwrite (junk, 1, MIN (sizeof junk, size - 2), fp), >, 0);
    fclose (fp);
  }
  ds = open_dataset (path, NCZ_OPEN_READ);
  v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");
  {
    g_autoptr(GBytes) got = ncz_variable_read_bytes (v, zero, 3, all, 3, NULL, 0, NULL, &error);

    g_assert_null (got);
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, path));
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "variable '/v'"));
    g_assert_nonnull (strstr (error->message, "chunk (1,1,1)"));
    g_clear_error (&error);
  }
  {
    /* the chunks around it still read */
    const guint64 c[] = { 4, 5, 3 };
    read_and_check (v, ref, 4, zero, c, NULL);
  }
  close_dataset (ds);
  g_unlink (path);
}

/* ---- contiguous datasets of read-only files (hdf5-contig.c) ---- */

static const NczDataType contiguous_types[] = {
  NCZ_DATA_TYPE_BYTE, NCZ_DATA_TYPE_UBYTE, NCZ_DATA_TYPE_SHORT, NCZ_DATA_TYPE_USHORT,
  NCZ_DATA_TYPE_INT, NCZ_DATA_TYPE_UINT, NCZ_DATA_TYPE_INT64, NCZ_DATA_TYPE_UINT64,
  NCZ_DATA_TYPE_FLOAT, NCZ_DATA_TYPE_DOUBLE, NCZ_DATA_TYPE_CHAR,
};

/* The memory type of @type (char: a one-byte string). H5Tclose() it. */
static hid_t
contiguous_mem_type (NczDataType type)
{
  hid_t t;

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: return H5Tcopy (H5T_NATIVE_SCHAR);
    case NCZ_DATA_TYPE_UBYTE: return H5Tcopy (H5T_NATIVE_UCHAR);
    case NCZ_DATA_TYPE_SHORT: return H5Tcopy (H5T_NATIVE_SHORT);
    case NCZ_DATA_TYPE_USHORT: return H5Tcopy (H5T_NATIVE_USHORT);
    case NCZ_DATA_TYPE_INT: return H5Tcopy (H5T_NATIVE_INT);
    case NCZ_DATA_TYPE_UINT: return H5Tcopy (H5T_NATIVE_UINT);
    case NCZ_DATA_TYPE_INT64: return H5Tcopy (H5T_NATIVE_LLONG);
    case NCZ_DATA_TYPE_UINT64: return H5Tcopy (H5T_NATIVE_ULLONG);
    case NCZ_DATA_TYPE_FLOAT: return H5Tcopy (H5T_NATIVE_FLOAT);
    case NCZ_DATA_TYPE_DOUBLE: return H5Tcopy (H5T_NATIVE_DOUBLE);
    case NCZ_DATA_TYPE_CHAR:
      t = H5Tcopy (H5T_C_S1);
      H5Tset_size (t, 1);
      return t;
    default: g_assert_not_reached ();
    }
}

/* The type of @type in a file, little- or big-endian. H5Tclose() it. */
static hid_t
contiguous_file_type (NczDataType type, gboolean big)
{
  hid_t t = contiguous_mem_type (type);

  if (type != NCZ_DATA_TYPE_CHAR)
    g_assert_cmpint (H5Tset_order (t, big ? H5T_ORDER_BE : H5T_ORDER_LE), >=, 0);
  return t;
}

/* @n values of @type in memory, every byte of each varied. */
static guint8 *
contiguous_values (NczDataType type, guint64 n, guint64 seed)
{
  gsize size = ncz_data_type_get_size (type);
  guint8 *b = g_malloc0 (MAX (n, 1) * size);

  for (guint64 i = 0; i < n; i++)
    {
      guint64 bits = (i + seed + 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
      double v = value_at (i + seed) * ((i & 1) ? -1.0 : 1.0);

      switch (type)
        {
        case NCZ_DATA_TYPE_FLOAT: ((float *) b)[i] = (float) (v * 1e3); break;
        case NCZ_DATA_TYPE_DOUBLE: ((double *) b)[i] = v * 1e10; break;
        case NCZ_DATA_TYPE_CHAR: b[i] = (guint8) ('A' + (i + seed) % 58); break;
        default: memcpy (b + i * size, &bits, size); break;  /* little-endian hosts */
        }
    }
  return b;
}

static char *
contiguous_name (NczDataType type, gboolean big)
{
  return g_strdup_printf ("%s_%s", ncz_data_type_get_name (type), big ? "be" : "le");
}

/* A file libhdf5 writes: every type in both byte orders as a contiguous
 * D0×D1×D2 dataset, after a user block of @user_block bytes (0: none). */
static void
write_contiguous_file (const char *path, hsize_t user_block)
{
  const hsize_t dims[] = { D0, D1, D2 };
  hid_t fcpl = H5Pcreate (H5P_FILE_CREATE);
  hid_t f, space;

  if (user_block > 0)
    g_assert_cmpint (H5Pset_userblock (fcpl, user_block), >=, 0);
  f = H5Fcreate (path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  space = H5Screate_simple (3, dims, NULL);
  for (gsize t = 0; t < G_N_ELEMENTS (contiguous_types); t++)
    for (int big = 0; big < 2; big++)
      {
        NczDataType type = contiguous_types[t];
        g_autofree char *name = contiguous_name (type, big);
        g_autofree guint8 *values = contiguous_values (type, D0 * D1 * D2, t * 100 + big);
        hid_t ft = contiguous_file_type (type, big), mt = contiguous_mem_type (type);
        hid_t d = H5Dcreate2 (f, name, ft, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

        g_assert_cmpint (d, >=, 0);
        g_assert_cmpint (H5Dwrite (d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
        H5Dclose (d);
        H5Tclose (ft);
        H5Tclose (mt);
      }
  H5Sclose (space);
  H5Pclose (fcpl);
  g_assert_cmpint (H5Fclose (f), >=, 0);
}

/* Every type in both byte orders, with and without a user block, from
 * the local file and through a store (#mode=bytes): whole reads and
 * hyperslabs (one run, runs of a few elements read together, single
 * elements) are read without libhdf5 (locally; through a store these
 * small runs go through libhdf5 and the driver's block cache) and give
 * what libhdf5 wrote; strided selections go through libhdf5 and give the
 * same. */
static void
test_contiguous_types (gconstpointer data)
{
  hsize_t user_block = GPOINTER_TO_UINT (data);
  g_autofree char *path = temp_path ("contiguous.h5");
  g_autofree char *bytes_url = g_strconcat (path, "#mode=bytes", NULL);
  const char *urls[] = { path, bytes_url };
  const guint64 zero[] = { 0, 0, 0 }, all[] = { D0, D1, D2 };
  const guint64 s1[] = { 2, 3, 1 }, c1[] = { 5, 7, 4 };      /* runs of 4 */
  const guint64 s2[] = { 3, 0, 0 }, c2[] = { 4, D1, D2 };    /* one run */
  const guint64 s3[] = { 0, 4, 0 }, c3[] = { D0, 2, D2 };    /* runs of 2 rows */
  const guint64 s4[] = { D0 - 1, D1 - 1, D2 - 1 }, c4[] = { 1, 1, 1 };
  const guint64 s5[] = { 1, 0, 2 }, c5[] = { 4, 4, 3 };
  const gint64 st5[] = { 2, 3, 2 };
  const guint64 *starts[] = { zero, s1, s2, s3, s4 }, *counts[] = { all, c1, c2, c3, c4 };

  write_contiguous_file (path, user_block);
  for (gsize u = 0; u < G_N_ELEMENTS (urls); u++)
    {
      NczDataset *ds = open_dataset (urls[u], NCZ_OPEN_READ);

      for (gsize t = 0; t < G_N_ELEMENTS (contiguous_types); t++)
        for (int big = 0; big < 2; big++)
          {
            NczDataType type = contiguous_types[t];
            g_autofree char *name = contiguous_name (type, big);
            g_autofree guint8 *ref = contiguous_values (type, D0 * D1 * D2, t * 100 + big);
            NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
            gsize size = ncz_data_type_get_size (type);

            g_assert_nonnull (v);
            g_assert_cmpint (ncz_variable_get_value_type (v), ==, type);
            for (gsize k = 0; k < G_N_ELEMENTS (starts); k++)
              {
                reset_counts ();
                read_and_check (v, ref, size, starts[k], counts[k], NULL);
                g_assert_cmpuint (contiguous_reads, ==, urls[u] == path ? 1 : 0);
              }
            reset_counts ();
            read_and_check (v, ref, size, s5, c5, st5);
            g_assert_cmpuint (contiguous_reads, ==, 0);
          }
      close_dataset (ds);
    }

  /* a file open for writing reads through libhdf5, with the same values */
  {
    NczDataset *ds = open_dataset (path, NCZ_OPEN_WRITE);
    g_autofree char *name = contiguous_name (NCZ_DATA_TYPE_DOUBLE, TRUE);
    g_autofree guint8 *ref = NULL;
    NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
    gsize t = 0;

    while (contiguous_types[t] != NCZ_DATA_TYPE_DOUBLE)
      t++;
    ref = contiguous_values (NCZ_DATA_TYPE_DOUBLE, D0 * D1 * D2, t * 100 + 1);
    reset_counts ();
    read_and_check (v, ref, 8, zero, all, NULL);
    read_and_check (v, ref, 8, s1, c1, NULL);
    g_assert_cmpuint (contiguous_reads, ==, 0);
    close_dataset (ds);
  }
  g_unlink (path);
}

/* A big-endian variable of several MiB is read in pieces on the worker
 * pool, cut inside runs; runs far apart are read one by one, runs short
 * and close together through the sieve window. Through a store, only the
 * selections whose runs are a block (64 KiB) or more. */
static void
test_contiguous_large (void)
{
  enum { R = 1200, C = 1000 };
  g_autofree char *path = temp_path ("contiguous-large.h5");
  g_autofree char *bytes_url = g_strconcat (path, "#mode=bytes", NULL);
  const char *urls[] = { path, bytes_url };
  g_autofree double *ref = g_new (double, R * C);
  const hsize_t dims[] = { R, C };
  const guint64 starts[][2] = { { 0, 0 }, { 101, 0 }, { 0, 3 }, { 7, 10 }, { 5, 10 }, { 1, 999 } };
  const guint64 counts[][2] = { { R, C }, { 1000, C }, { R, 995 }, { 1100, 4 }, { 1000, 500 },
                                { R - 1, 1 } };
  const guint through_store[] = { 1, 1, 0, 0, 0, 0 };
  hid_t f, space, d;

  for (guint64 i = 0; i < R * C; i++)
    ref[i] = value_at (i) * 1e5 - (double) i;
  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  space = H5Screate_simple (2, dims, NULL);
  d = H5Dcreate2 (f, "v", H5T_IEEE_F64BE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ref), >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  H5Fclose (f);

  for (gsize u = 0; u < G_N_ELEMENTS (urls); u++)
    {
      NczDataset *ds = open_dataset (urls[u], NCZ_OPEN_READ);
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "v");

      g_assert_nonnull (v);
      for (gsize k = 0; k < G_N_ELEMENTS (starts); k++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GBytes) got = NULL;
          const double *vals;
          guint64 n = 0;

          reset_counts ();
          got = ncz_variable_read_bytes (v, starts[k], 2, counts[k], 2, NULL, 0, NULL, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (contiguous_reads, ==, urls[u] == path ? 1 : through_store[k]);
          g_assert_cmpuint (g_bytes_get_size (got), ==, counts[k][0] * counts[k][1] * 8);
          vals = g_bytes_get_data (got, NULL);
          for (guint64 a = 0; a < counts[k][0]; a++)
            for (guint64 b = 0; b < counts[k][1]; b++, n++)
              if (vals[n] != ref[(starts[k][0] + a) * C + starts[k][1] + b])
                g_error ("%s: slab %" G_GSIZE_FORMAT ": element (%" G_GUINT64_FORMAT ",%"
                         G_GUINT64_FORMAT ") differs", urls[u], k, starts[k][0] + a,
                         starts[k][1] + b);
        }
      close_dataset (ds);
    }
  g_unlink (path);
}

/* Datasets that stay with libhdf5: one never written (its fill value,
 * after a user block, where libhdf5 1.10's H5Dget_offset() gives an
 * address for storage that does not exist), one of no elements; a scalar
 * is read without it. */
static void
test_contiguous_unallocated (void)
{
  g_autofree char *path = temp_path ("contiguous-fill.h5");
  g_autoptr(GError) error = NULL;
  const hsize_t dims[] = { 6, 5 }, empty[] = { 0, 4 };
  hid_t fcpl = H5Pcreate (H5P_FILE_CREATE), dcpl = H5Pcreate (H5P_DATASET_CREATE);
  hid_t f, space, d;
  gint32 fill = 77, scalar = -12345;

  H5Pset_userblock (fcpl, 512);
  H5Pset_fill_value (dcpl, H5T_NATIVE_INT, &fill);
  f = H5Fcreate (path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  space = H5Screate_simple (2, dims, NULL);
  d = H5Dcreate2 (f, "unwritten", H5T_STD_I32BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  space = H5Screate_simple (2, empty, NULL);
  d = H5Dcreate2 (f, "empty", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  space = H5Screate (H5S_SCALAR);
  d = H5Dcreate2 (f, "scalar", H5T_STD_I32BE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &scalar), >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  H5Pclose (dcpl);
  H5Pclose (fcpl);
  H5Fclose (f);

  {
    NczDataset *ds = open_dataset (path, NCZ_OPEN_READ);
    NczGroup *root = ncz_dataset_get_root_group (ds);
    NczVariable *v = ncz_group_get_variable (root, "unwritten");
    const guint64 s[] = { 0, 0 }, c[] = { 6, 5 }, c0[] = { 0, 4 };
    g_autoptr(GBytes) got = NULL;
    const gint32 *vals;

    g_assert_nonnull (v);
    reset_counts ();
    got = ncz_variable_read_bytes (v, s, 2, c, 2, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (contiguous_reads, ==, 0);
    g_assert_cmpuint (g_bytes_get_size (got), ==, 30 * 4);
    vals = g_bytes_get_data (got, NULL);
    for (int i = 0; i < 30; i++)
      g_assert_cmpint (vals[i], ==, fill);
    g_clear_pointer (&got, g_bytes_unref);

    v = ncz_group_get_variable (root, "empty");
    g_assert_nonnull (v);
    got = ncz_variable_read_bytes (v, s, 2, c0, 2, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (got), ==, 0);
    g_clear_pointer (&got, g_bytes_unref);

    v = ncz_group_get_variable (root, "scalar");
    g_assert_nonnull (v);
    reset_counts ();
    got = ncz_variable_read_bytes (v, NULL, 0, NULL, 0, NULL, 0, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (contiguous_reads, ==, 1);
    g_assert_cmpuint (g_bytes_get_size (got), ==, 4);
    g_assert_cmpint (*(const gint32 *) g_bytes_get_data (got, NULL), ==, scalar);
    close_dataset (ds);
  }
  g_unlink (path);
}

/* Reads 1000 ints of @v and compares them with @ref. */
static void
read_ints (NczVariable *v, const gint32 *ref)
{
  g_autoptr(GError) error = NULL;
  const guint64 s[] = { 0 }, c[] = { 1000 };
  g_autoptr(GBytes) got = ncz_variable_read_bytes (v, s, 1, c, 1, NULL, 0, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got), ref, 1000 * 4);
}

/* Reads @name of @url: an error naming @path, the variable and @expect. */
static void
assert_read_fails (const char *url, const char *path, const char *name, const char *expect)
{
  g_autoptr(GError) error = NULL;
  NczDataset *ds = open_dataset (url, NCZ_OPEN_READ);
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);
  g_autofree char *quoted = g_strdup_printf ("variable '/%s'", name);
  const guint64 s[] = { 0 }, c[] = { 1000 };
  g_autoptr(GBytes) got = NULL;

  g_assert_nonnull (v);
  got = ncz_variable_read_bytes (v, s, 1, c, 1, NULL, 0, NULL, &error);
  g_assert_null (got);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, quoted));
  g_assert_nonnull (strstr (error->message, expect));
  close_dataset (ds);
}

/* Damaged files: a dataset whose address (in its layout message) lies
 * past the end of the file, or whose data runs past it (libhdf5 opens
 * both), and a file cut short after it was opened. Errors naming the
 * file and the variable, locally and through a store; the other
 * variables still read. */
static void
test_contiguous_past_eof (void)
{
  g_autofree char *path = temp_path ("contiguous-eof.h5");
  g_autofree char *bytes_url = g_strconcat (path, "#mode=bytes", NULL);
  const char *urls[] = { path, bytes_url };
  g_autofree gint32 *values = g_new (gint32, 1000);
  g_autofree gint32 *big = g_new (gint32, 20000);
  g_autofree guint8 *intact = NULL;
  const hsize_t dims[] = { 1000 }, big_dims[] = { 20000 };
  gsize length = 0;
  haddr_t addr, big_addr;
  guint8 *layout = NULL;
  hid_t f, space, d;

  for (int i = 0; i < 1000; i++)
    values[i] = i * 7 - 3000;
  for (int i = 0; i < 20000; i++)
    big[i] = i * 131 - 77;
  f = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  space = H5Screate_simple (1, dims, NULL);
  d = H5Dcreate2 (f, "v", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
  addr = H5Dget_offset (d);
  H5Dclose (d);
  d = H5Dcreate2 (f, "w", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  /* a block or more: read without libhdf5 through a store too */
  space = H5Screate_simple (1, big_dims, NULL);
  d = H5Dcreate2 (f, "big", H5T_STD_I32BE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, big), >=, 0);
  big_addr = H5Dget_offset (d);
  H5Dclose (d);
  H5Sclose (space);
  H5Fclose (f);
  g_assert_true (g_file_get_contents (path, (char **) &intact, &length, NULL));

  /* the layout message (version 3, contiguous): its address and size */
  for (gsize i = 0; i + 18 <= length && layout == NULL; i++)
    {
      guint64 a, n;

      memcpy (&a, intact + i + 2, 8);
      memcpy (&n, intact + i + 10, 8);
      if (intact[i] == 3 && intact[i + 1] == 1 && GUINT64_FROM_LE (a) == addr &&
          GUINT64_FROM_LE (n) == 4000)
        layout = intact + i;
    }
  g_assert_nonnull (layout);
  {
    const guint64 moved[] = { length + 4096, length - 100, G_GUINT64_CONSTANT (1) << 62 };

    for (gsize m = 0; m < G_N_ELEMENTS (moved); m++)
      {
        guint64 le = GUINT64_TO_LE (moved[m]);

        memcpy (layout + 2, &le, 8);
        g_assert_true (g_file_set_contents (path, (char *) intact, (gssize) length, NULL));
        for (gsize u = 0; u < G_N_ELEMENTS (urls); u++)
          {
            NczDataset *ds = open_dataset (urls[u], NCZ_OPEN_READ);
            NczVariable *w = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "w");

            g_assert_nonnull (w);
            read_ints (w, values);
            close_dataset (ds);
            assert_read_fails (urls[u], path, "v", "runs past the end of the file");
          }
      }
  }
  {
    guint64 le = GUINT64_TO_LE (addr);

    memcpy (layout + 2, &le, 8);
  }

  /* cut short after the open: a short read */
  g_assert_true (g_file_set_contents (path, (char *) intact, (gssize) length, NULL));
  for (gsize u = 0; u < G_N_ELEMENTS (urls); u++)
    {
      g_autoptr(GError) error = NULL;
      NczDataset *ds = open_dataset (urls[u], NCZ_OPEN_READ);
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), "big");
      const guint64 s[] = { 0 }, c[] = { 20000 };
      g_autoptr(GBytes) got = NULL;

      g_assert_nonnull (v);
      got = ncz_variable_read_bytes (v, s, 1, c, 1, NULL, 0, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got), big, 20000 * 4);
      g_clear_pointer (&got, g_bytes_unref);
      g_assert_cmpint (truncate (path, (off_t) big_addr + 100), ==, 0);
      got = ncz_variable_read_bytes (v, s, 1, c, 1, NULL, 0, NULL, &error);
      g_assert_null (got);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_nonnull (strstr (error->message, "variable '/big'"));
      g_assert_nonnull (strstr (error->message, "80000 bytes at offset"));
      close_dataset (ds);
      g_assert_true (g_file_set_contents (path, (char *) intact, (gssize) length, NULL));
    }
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("HDF5_PLUGIN_PATH");
  g_unsetenv ("NCZ_HDF5_DIRECT");
  g_log_set_writer_func (count_writer, NULL, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (filter_names); i++)
    {
      g_autofree char *name = g_strdup_printf ("/hdf5-io/round-trip/%s", filter_names[i]);

      g_test_add_data_func (name, GINT_TO_POINTER (i), test_round_trip);
    }
  g_test_add_func ("/hdf5-io/partial-writes", test_partial_writes);
  g_test_add_func ("/hdf5-io/big-endian", test_big_endian);
  g_test_add_func ("/hdf5-io/unlimited", test_unlimited);
  g_test_add_func ("/hdf5-io/foreign-file", test_foreign_file);
  g_test_add_func ("/hdf5-io/damaged-chunk", test_damaged_chunk);
  g_test_add_data_func ("/hdf5-io/contiguous/types", GUINT_TO_POINTER (0),
                        test_contiguous_types);
  g_test_add_data_func ("/hdf5-io/contiguous/types-user-block", GUINT_TO_POINTER (1024),
                        test_contiguous_types);
  g_test_add_func ("/hdf5-io/contiguous/large", test_contiguous_large);
  g_test_add_func ("/hdf5-io/contiguous/unallocated", test_contiguous_unallocated);
  g_test_add_func ("/hdf5-io/contiguous/past-eof", test_contiguous_past_eof);
  return g_test_run ();
}
