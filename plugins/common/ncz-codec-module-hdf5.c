/* ncz-codec-module-hdf5.c: the HDF5 plugin ABI host of a codec module
 *
 * H5PLget_plugin_info's H5Z_class2_t filter function and set_local
 * callback, running the module's encode/decode on malloc'd buffers.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "ncz-codec-module-private.h"

/* ---- HDF5 filter ABI ----
 *
 * HDF5 hands the filter its cd_values. Codecs whose descriptor sets
 * h5_set_local get a set_local callback that stores the working
 * parameters in the dataset (from its type and chunk shape); for the
 * others these are the visible parameters the application gave (h5py's
 * compression_opts). Each codec's encode/decode therefore accepts the
 * visible form as working parameters too, using defaults that keep
 * encode and decode consistent when a working value is absent (shuffle
 * without an element size shuffles bytes of size 1, that is, copies). */

/* The HDF5 calls set_local needs, from the libhdf5 that loaded us: it
 * may have been loaded with RTLD_LOCAL (Python extension modules are),
 * so it is looked up among the loaded objects by name as well. */
typedef ncz_h5_herr_t (*H5PGetFilterByIdFunc) (ncz_h5_hid_t plist, ncz_h5_filter_t id,
                                               unsigned *flags, size_t *cd_nelmts,
                                               unsigned cd_values[], size_t namelen,
                                               char name[], unsigned *filter_config);
typedef ncz_h5_herr_t (*H5PModifyFilterFunc) (ncz_h5_hid_t plist, ncz_h5_filter_t id,
                                              unsigned flags, size_t cd_nelmts,
                                              const unsigned cd_values[]);
typedef int (*H5PGetChunkFunc) (ncz_h5_hid_t plist, int max_ndims, unsigned long long dims[]);
typedef size_t (*H5TGetSizeFunc) (ncz_h5_hid_t type);
typedef int (*H5TGetOrderFunc) (ncz_h5_hid_t type);

#define NCZ_H5T_ORDER_BE 1
#define NCZ_H5_MAX_CD_VALUES 64

static int
find_libhdf5 (struct dl_phdr_info *info, size_t size, void *data)
{
  const char *name = info->dlpi_name;
  const char *base = name ? strrchr (name, '/') : NULL;

  base = base ? base + 1 : name;
  if (base != NULL && g_str_has_prefix (base, "libhdf5") && !g_str_has_prefix (base, "libhdf5_hl")
      && !g_str_has_prefix (base, "libhdf5_serial_hl") && strstr (base, ".so") != NULL)
    {
      *(char **) data = g_strdup (name);
      return 1;
    }
  return 0;
}

static gpointer
hdf5_symbol (const char *symbol)
{
  static gsize initialized;
  static void *handle;
  gpointer p = dlsym (RTLD_DEFAULT, symbol);

  if (p != NULL)
    return p;
  if (g_once_init_enter (&initialized))
    {
      g_autofree char *path = NULL;
      dl_iterate_phdr (find_libhdf5, &path);
      if (path != NULL)
        handle = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
      g_once_init_leave (&initialized, 1);
    }
  return handle ? dlsym (handle, symbol) : NULL;
}

ncz_h5_herr_t
ncz_codec_module_h5_set_local (const NczCodecModuleDesc *desc, ncz_h5_hid_t dcpl,
                               ncz_h5_hid_t type, ncz_h5_hid_t space)
{
  H5PGetFilterByIdFunc get_filter = (H5PGetFilterByIdFunc) hdf5_symbol ("H5Pget_filter_by_id2");
  H5PModifyFilterFunc modify_filter = (H5PModifyFilterFunc) hdf5_symbol ("H5Pmodify_filter");
  H5PGetChunkFunc get_chunk = (H5PGetChunkFunc) hdf5_symbol ("H5Pget_chunk");
  H5TGetSizeFunc get_size = (H5TGetSizeFunc) hdf5_symbol ("H5Tget_size");
  H5TGetOrderFunc get_order = (H5TGetOrderFunc) hdf5_symbol ("H5Tget_order");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  unsigned cd_values[NCZ_H5_MAX_CD_VALUES];
  unsigned long long dims[G_N_ELEMENTS (((NczCodecVarInfo *) NULL)->chunks)];
  size_t n = G_N_ELEMENTS (cd_values);
  unsigned flags = 0;
  NczCodecVarInfo info;
  int rank;

  if (get_filter == NULL || modify_filter == NULL || get_chunk == NULL || get_size == NULL)
    {
      /* not inside libhdf5 after all: keep the parameters as given */
      g_debug ("%s: HDF5 functions not found; parameters kept as given", desc->codec_id);
      return 0;
    }
  ncz_codec_module_ensure_initialized (desc);
  if (get_filter (dcpl, (ncz_h5_filter_t) desc->filter_id, &flags, &n, cd_values, 0, NULL,
                  NULL) < 0)
    return -1;
  if (n > G_N_ELEMENTS (cd_values))
    return -1;

  memset (&info, 0, sizeof info);
  info.type = NCZ_DATA_TYPE_NONE;
  info.type_size = get_size (type);
  info.big_endian = get_order != NULL && get_order (type) == NCZ_H5T_ORDER_BE;
  rank = get_chunk (dcpl, (int) G_N_ELEMENTS (dims), dims);
  if (rank < 0 || info.type_size == 0)
    return -1;
  info.rank = (guint) rank;
  info.chunk_bytes = info.type_size;
  for (int i = 0; i < rank; i++)
    {
      info.chunks[i] = dims[i];
      info.chunk_bytes = ncz_codec_module_mul_saturate (info.chunk_bytes, dims[i]);
    }

  visible = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n);
  g_array_append_vals (visible, cd_values, (guint) n);
  working = ncz_codec_module_working_from_visible (desc, &info, visible, &error);
  if (working == NULL)
    {
      g_debug ("%s: %s", desc->codec_id, error ? error->message : "modify failed");
      return -1;
    }
  return modify_filter (dcpl, (ncz_h5_filter_t) desc->filter_id, flags, working->len,
                        (const unsigned *) working->data);
}

gsize
ncz_codec_module_h5_filter (const NczCodecModuleDesc *desc, unsigned int flags,
                            size_t cd_nelmts, const unsigned int cd_values[],
                            size_t nbytes, size_t *buf_size, void **buf)
{
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) output = NULL;
  g_autoptr (GError) error = NULL;
  gboolean decode = (flags & NCZ_H5Z_FLAG_REVERSE) != 0;
  const guchar *data;
  gsize size;
  void *result;

  if (desc == NULL || buf == NULL || buf_size == NULL || (*buf == NULL && nbytes > 0))
    return 0;
  if (cd_nelmts > 0 && cd_values == NULL)
    return 0;

  ncz_codec_module_ensure_initialized (desc);
  input = g_bytes_new_static (*buf, nbytes);
  if (decode)
    {
      /* a codec may frame its data differently for HDF5 hosts (lz4) */
      NczCodecFilterFunc dec = desc->h5_decode ? desc->h5_decode : desc->decode;
      output = dec != NULL ? dec (cd_values, cd_nelmts, input, &error) : NULL;
    }
  else
    {
      NczCodecFilterFunc enc = desc->h5_encode ? desc->h5_encode : desc->encode;
      output = enc != NULL ? enc (cd_values, cd_nelmts, input, &error) : NULL;
    }
  if (output == NULL)
    {
      g_debug ("%s filter %u (%s) failed: %s", decode ? "decoding" : "encoding",
               desc->filter_id, desc->codec_id, error != NULL ? error->message : "no codec");
      return 0;
    }

  data = g_bytes_get_data (output, &size);
  result = malloc (size > 0 ? size : 1);
  if (result == NULL)
    return 0;
  if (size > 0)
    memcpy (result, data, size);
  free (*buf);
  *buf = result;
  *buf_size = size > 0 ? size : 1;
  return size;
}
