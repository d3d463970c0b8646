/* test-h5abi.c: the built blosc, lz4 and szip modules through the two
 * foreign ABIs they export: the HDF5 filter plugin ABI (H5PLget_plugin_*
 * and the H5Z_class2_t filter function on malloc'd buffers) and
 * netcdf-c's Codec ABI (NCZ_get_codec_info). With libnetcdf linked in
 * (HAVE_NETCDF), NCZ_modify_parameters runs against a real netCDF-4
 * variable, as netcdf-c calls it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <gmodule.h>
#include <glib/gstdio.h>
#include <ncz/ncz.h>
#include <ncz/ncz-filter-abi.h>
#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif

#define LZ4_MARK 0x4e435a34u

typedef struct {
  GModule *module;
  const NczH5ZClass2 *h5;
  const NczAbiCodec *codec;
} Module;

static Module
open_module (const char *name)
{
  g_autofree char *path = g_strdup_printf ("%s/plugins/%s/libncz-codec-%s.so",
                                           g_getenv ("NCZ_BUILD_ROOT"), name, name);
  Module m = { NULL, };
  NczH5PLGetPluginTypeFunc get_type = NULL;
  NczH5PLGetPluginInfoFunc get_info = NULL;
  NczGetCodecInfoFunc get_codec = NULL;

  m.module = g_module_open (path, G_MODULE_BIND_LOCAL);
  g_assert_nonnull (m.module);
  g_assert_true (g_module_symbol (m.module, "H5PLget_plugin_type", (gpointer *) &get_type));
  g_assert_true (g_module_symbol (m.module, "H5PLget_plugin_info", (gpointer *) &get_info));
  g_assert_true (g_module_symbol (m.module, "NCZ_get_codec_info", (gpointer *) &get_codec));
  g_assert_cmpint (get_type (), ==, NCZ_H5PL_TYPE_FILTER);
  m.h5 = get_info ();
  m.codec = get_codec ();
  g_assert_nonnull (m.h5);
  g_assert_nonnull (m.codec);
  g_assert_cmpint (m.h5->version, ==, NCZ_H5Z_CLASS_T_VERS);
  g_assert_cmpuint (m.h5->encoder_present, ==, 1);
  g_assert_cmpuint (m.h5->decoder_present, ==, 1);
  g_assert_nonnull (m.h5->name);
  g_assert_nonnull (m.h5->filter);
  g_assert_cmpint (m.codec->version, ==, NCZ_ABI_CODEC_CLASS_VER);
  g_assert_cmpint (m.codec->sort, ==, NCZ_ABI_CODEC_HDF5);
  g_assert_cmpuint (m.codec->hdf5id, ==, (guint) m.h5->id);
  return m;
}

static guchar *
make_data (gsize n, guint32 seed)
{
  guchar *b = malloc (n);
  GRand *r = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < n; i++)
    b[i] = (guchar) (((i / 7) % 50) + (g_rand_int_range (r, 0, 20) == 0));
  g_rand_free (r);
  return b;
}

/* Runs the HDF5 filter forward then back on a malloc'd copy of @n bytes;
 * returns the encoded bytes (g_free). */
static guchar *
h5_roundtrip (const Module *m, const unsigned *cd, size_t n_cd, gsize n, gsize *encoded_len)
{
  guchar *orig = make_data (n, (guint32) n);
  void *buf = malloc (n);
  size_t buf_size = n, out;
  guchar *encoded;

  memcpy (buf, orig, n);
  out = m->h5->filter (0, n_cd, cd, n, &buf_size, &buf);
  g_assert_cmpuint (out, >, 0);
  g_assert_cmpuint (buf_size, >=, out);
  encoded = g_memdup2 (buf, out);
  *encoded_len = out;
  out = m->h5->filter (NCZ_H5Z_FLAG_REVERSE, n_cd, cd, out, &buf_size, &buf);
  g_assert_cmpuint (out, ==, n);
  g_assert_cmpmem (buf, n, orig, n);
  free (buf);
  free (orig);
  return encoded;
}

/* A damaged chunk: the filter returns 0 and leaves the buffer to the
 * caller. */
static void
h5_rejects (const Module *m, const unsigned *cd, size_t n_cd, const guchar *enc, gsize len)
{
  for (gsize cut = 0; cut < len; cut += MAX (len / 50, 1))
    {
      void *buf = malloc (MAX (cut, 1));
      size_t buf_size = MAX (cut, 1);

      memcpy (buf, enc, cut);
      g_assert_cmpuint (m->h5->filter (NCZ_H5Z_FLAG_REVERSE, n_cd, cd, cut, &buf_size, &buf), ==, 0);
      free (buf);
    }
}

static guint32
be32 (const guchar *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static void
test_blosc (void)
{
  Module m = open_module ("blosc");
  const unsigned visible[] = { 0, 0, 0, 0, 5, 1, 5 };
  const unsigned h5file[] = { 2, 2, 4, 40000, 9, 2, 1 };
  gsize len;
  g_autofree guchar *a = NULL, *b = NULL, *c = NULL;
  size_t n = 0;
  unsigned *params = NULL;
  char *json = NULL;

  g_assert_cmpint (m.h5->id, ==, 32001);
  g_assert_cmpstr (m.codec->codecid, ==, "blosc");

  a = h5_roundtrip (&m, visible, 7, 40000, &len);
  g_assert_cmpuint (a[0], ==, 2);   /* a Blosc buffer */
  h5_rejects (&m, visible, 7, a, len);
  b = h5_roundtrip (&m, h5file, 7, 40000, &len);
  g_assert_cmpuint (b[3], ==, 4);   /* its typesize */
  c = h5_roundtrip (&m, NULL, 0, 1000, &len);

  g_assert_cmpint (m.codec->NCZ_codec_to_hdf5 ("{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 3, "
                                               "\"shuffle\": 2, \"blocksize\": 0}", &n, &params), ==, 0);
  g_assert_cmpuint (n, ==, 7);
  g_assert_cmpuint (params[4], ==, 3);
  g_assert_cmpuint (params[5], ==, 2);
  g_assert_cmpuint (params[6], ==, 5);
  g_assert_cmpint (m.codec->NCZ_hdf5_to_codec (n, params, &json), ==, 0);
  g_assert_cmpstr (json, ==, "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 3, \"shuffle\": 2, \"blocksize\": 0}");
  free (json);
  free (params);
  g_assert_cmpint (m.codec->NCZ_codec_to_hdf5 ("{\"id\": \"blosc\", \"cname\": \"nope\"}", &n, &params), !=, 0);
}

static void
test_lz4 (void)
{
  Module m = open_module ("lz4");
  const unsigned block[] = { 5000 };
  const unsigned working[] = { 0, 1, LZ4_MARK };
  gsize len;
  g_autofree guchar *a = NULL, *b = NULL, *c = NULL;
  size_t n = 0;
  unsigned *params = NULL;
  char *json = NULL;

  g_assert_cmpint (m.h5->id, ==, 32004);
  g_assert_cmpstr (m.codec->codecid, ==, "lz4");

  /* libhdf5 passes the cd_values of the file: the HDF5 lz4 framing */
  a = h5_roundtrip (&m, NULL, 0, 30000, &len);
  g_assert_cmpuint (be32 (a), ==, 0);
  g_assert_cmpuint (be32 (a + 4), ==, 30000);
  g_assert_cmpuint (be32 (a + 8), ==, 30000);
  h5_rejects (&m, NULL, 0, a, len);
  b = h5_roundtrip (&m, block, 1, 30000, &len);
  g_assert_cmpuint (be32 (b + 8), ==, 5000);
  /* netcdf-c passes the working parameters of modify: numcodecs framing */
  c = h5_roundtrip (&m, working, 3, 30000, &len);
  g_assert_cmpuint (c[0] | c[1] << 8 | c[2] << 16 | (guint32) c[3] << 24, ==, 30000);
  h5_rejects (&m, working, 3, c, len);

  g_assert_cmpint (m.codec->NCZ_codec_to_hdf5 ("{\"id\": \"lz4\", \"acceleration\": 1}", &n, &params), ==, 0);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpint (m.codec->NCZ_hdf5_to_codec (n, params, &json), ==, 0);
  g_assert_cmpstr (json, ==, "{\"id\": \"lz4\", \"acceleration\": 1}");
  free (json);
  free (params);
}

static void
test_szip (void)
{
  Module m = open_module ("szip");
  const unsigned working[] = { 32 | 1 | 128 | 8, 16, 8, 2048 };
  gsize len;
  g_autofree guchar *a = NULL;
  size_t n = 0;
  unsigned *params = NULL;
  char *json = NULL;

  g_assert_cmpint (m.h5->id, ==, 4);
  g_assert_cmpstr (m.codec->codecid, ==, "szip");
  a = h5_roundtrip (&m, working, 4, 30000, &len);
  g_assert_cmpuint (a[0] | a[1] << 8 | a[2] << 16 | (guint32) a[3] << 24, ==, 30000);
  g_assert_cmpuint (len, <, 30000);
  h5_rejects (&m, working, 4, a, len);

  g_assert_cmpint (m.codec->NCZ_codec_to_hdf5 ("{\"id\": \"szip\", \"mask\": 4, \"pixels-per-block\": 8}", &n, &params), ==, 0);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (m.codec->NCZ_hdf5_to_codec (n, params, &json), ==, 0);
  g_assert_cmpstr (json, ==, "{\"id\": \"szip\", \"mask\": 4, \"pixels-per-block\": 8}");
  free (json);
  free (params);
}

#ifdef HAVE_NETCDF
/* NCZ_modify_parameters as netcdf-c calls it: with a netCDF variable's
 * ncid/varid, the module asking libnetcdf (nc_inq_*) about the type,
 * chunking and byte order. */
static void
test_netcdf_modify (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "modify.nc", NULL);
  Module blosc = open_module ("blosc");
  Module lz4 = open_module ("lz4");
  Module szip = open_module ("szip");
  int ncid, dims[2], varid;
  const size_t chunks[] = { 10, 300 };
  struct { const Module *m; unsigned visible[7]; size_t n_visible; unsigned expected[7]; size_t n_expected; } cases[] = {
    { &blosc, { 0, 0, 0, 0, 5, 1, 1 }, 7, { 2, 2, 2, 6000, 5, 1, 1 }, 7 },
    { &lz4, { 0 }, 0, { 0, 1, LZ4_MARK }, 3 },
    { &szip, { 32, 16 }, 2, { 32 | 1 | 128 | 16, 16, 16, 300 }, 4 },
  };

  g_assert_cmpint (nc_create (path, NC_NETCDF4 | NC_CLOBBER, &ncid), ==, NC_NOERR);
  g_assert_cmpint (nc_def_dim (ncid, "y", 100, &dims[0]), ==, NC_NOERR);
  g_assert_cmpint (nc_def_dim (ncid, "x", 300, &dims[1]), ==, NC_NOERR);
  g_assert_cmpint (nc_def_var (ncid, "v", NC_SHORT, 2, dims, &varid), ==, NC_NOERR);
  g_assert_cmpint (nc_def_var_chunking (ncid, varid, NC_CHUNKED, chunks), ==, NC_NOERR);
  g_assert_cmpint (nc_def_var_endian (ncid, varid, NC_ENDIAN_BIG), ==, NC_NOERR);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      size_t vn = cases[i].n_visible, wn = 0;
      unsigned *vp = malloc (MAX (vn, 1) * sizeof (unsigned));
      unsigned *wp = NULL;

      memcpy (vp, cases[i].visible, vn * sizeof (unsigned));
      g_assert_cmpint (cases[i].m->codec->NCZ_modify_parameters (ncid, varid, &vn, &vp, &wn, &wp), ==, 0);
      g_assert_cmpuint (wn, ==, cases[i].n_expected);
      for (size_t k = 0; k < wn; k++)
        g_assert_cmpuint (wp[k], ==, cases[i].expected[k]);
      free (vp);
      free (wp);
    }
  g_assert_cmpint (nc_close (ncid), ==, NC_NOERR);
  g_unlink (path);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/h5abi/blosc", test_blosc);
  g_test_add_func ("/h5abi/lz4", test_lz4);
  g_test_add_func ("/h5abi/szip", test_szip);
#ifdef HAVE_NETCDF
  g_test_add_func ("/h5abi/netcdf-modify", test_netcdf_modify);
#endif

  return g_test_run ();
}
