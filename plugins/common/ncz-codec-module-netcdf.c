/* ncz-codec-module-netcdf.c: the netcdf-c Codec ABI host of a codec module
 *
 * NCZ_get_codec_info's functions: codec JSON text <-> visible parameters
 * (the text written exactly as Ncz writes .zarray, integers as integers
 * and doubles with the shortest text that reads back) and, where the
 * host provides nc_inq_var and friends (looked up at run time), working
 * parameters.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ncz-codec-module-private.h"

/* ---- netcdf-c Codec ABI ---- */

static unsigned *
malloc_params (const GArray *params)
{
  unsigned *p = malloc (MAX (params->len, 1) * sizeof (unsigned));

  if (p != NULL && params->len > 0)
    memcpy (p, params->data, params->len * sizeof (unsigned));
  return p;
}

int
ncz_codec_module_to_hdf5 (const NczCodecModuleDesc *desc, const char *codec,
                          size_t *nparamsp, unsigned **paramsp)
{
  g_autoptr (GError) error = NULL;
  GArray *visible;
  unsigned *p;

  if (desc == NULL || codec == NULL || nparamsp == NULL || paramsp == NULL)
    return NCZ_ABI_NC_EINVAL;

  visible = ncz_codec_module_visible_from_json_text (desc, codec, &error);
  if (visible == NULL)
    {
      g_debug ("%s", error->message);
      return NCZ_ABI_NC_EFILTER;
    }
  p = malloc_params (visible);
  if (p == NULL)
    {
      g_array_unref (visible);
      return NCZ_ABI_NC_ENOMEM;
    }
  *nparamsp = visible->len;
  *paramsp = p;
  g_array_unref (visible);
  return NCZ_ABI_NC_NOERR;
}

int
ncz_codec_module_to_codec (const NczCodecModuleDesc *desc, size_t nparams,
                           const unsigned *params, char **codecp)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) dict = NULL;
  g_autoptr (NczJson) node = NULL;
  g_autofree char *text = NULL;
  char *copy;

  if (desc == NULL || codecp == NULL || (nparams > 0 && params == NULL))
    return NCZ_ABI_NC_EINVAL;

  dict = ncz_codec_module_json_from_visible (desc, params, nparams, &error);
  if (dict == NULL)
    {
      g_debug ("%s", error != NULL ? error->message : "no JSON");
      return NCZ_ABI_NC_EFILTER;
    }
  node = ncz_json_from_json_object (dict);
  text = ncz_json_to_string (node, FALSE);
  copy = strdup (text);
  if (copy == NULL)
    return NCZ_ABI_NC_ENOMEM;
  *codecp = copy;
  return NCZ_ABI_NC_NOERR;
}

/* The netCDF inquiry functions, present when loaded into libnetcdf. */
typedef int (*NcInqVarFunc) (int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                             int *dimidsp, int *nattsp);
typedef int (*NcInqTypeFunc) (int ncid, int xtype, char *name, size_t *sizep);
typedef int (*NcInqVarChunkingFunc) (int ncid, int varid, int *storagep, size_t *chunksizesp);
typedef int (*NcInqVarEndianFunc) (int ncid, int varid, int *endianp);
typedef int (*NcInqDimlenFunc) (int ncid, int dimid, size_t *lenp);

#define NC_CHUNKED_VALUE 0
#define NC_ENDIAN_BIG_VALUE 2
#define NC_ENDIAN_NATIVE_VALUE 0
#define NC_MAX_ATOMIC_TYPE_VALUE 12
#define NC_MAX_VAR_DIMS_VALUE 1024

static gpointer
host_symbol (const char *name)
{
  return dlsym (RTLD_DEFAULT, name);
}

static int
var_info_from_netcdf (int ncid, int varid, NczCodecVarInfo *info)
{
  NcInqVarFunc inq_var = (NcInqVarFunc) host_symbol ("nc_inq_var");
  NcInqTypeFunc inq_type = (NcInqTypeFunc) host_symbol ("nc_inq_type");
  NcInqVarChunkingFunc inq_chunking = (NcInqVarChunkingFunc) host_symbol ("nc_inq_var_chunking");
  NcInqVarEndianFunc inq_endian = (NcInqVarEndianFunc) host_symbol ("nc_inq_var_endian");
  NcInqDimlenFunc inq_dimlen = (NcInqDimlenFunc) host_symbol ("nc_inq_dimlen");
  g_autofree int *dimids = NULL;
  g_autofree size_t *chunks = NULL;
  int xtype = 0, ndims = 0, storage = NC_CHUNKED_VALUE, endian = NC_ENDIAN_NATIVE_VALUE;
  size_t type_size = 0;
  int status;

  memset (info, 0, sizeof *info);
  if (inq_var == NULL || inq_type == NULL)
    return NCZ_ABI_NC_EFILTER;

  status = inq_var (ncid, varid, NULL, &xtype, &ndims, NULL, NULL);
  if (status != NCZ_ABI_NC_NOERR)
    return status;
  if (ndims < 0 || ndims > NC_MAX_VAR_DIMS_VALUE)
    return NCZ_ABI_NC_EINVAL;
  status = inq_type (ncid, xtype, NULL, &type_size);
  if (status != NCZ_ABI_NC_NOERR)
    return status;

  info->type = (xtype >= 1 && xtype <= NC_MAX_ATOMIC_TYPE_VALUE) ? (NczDataType) xtype : NCZ_DATA_TYPE_NONE;
  info->type_size = type_size;
  info->chunk_bytes = type_size;

  if (ndims > 0)
    {
      dimids = g_new0 (int, ndims);
      chunks = g_new0 (size_t, ndims);
      status = inq_var (ncid, varid, NULL, NULL, NULL, dimids, NULL);
      if (status != NCZ_ABI_NC_NOERR)
        return status;
      if (inq_chunking != NULL)
        {
          status = inq_chunking (ncid, varid, &storage, chunks);
          if (status != NCZ_ABI_NC_NOERR)
            return status;
        }
      else
        storage = -1;
      if (storage != NC_CHUNKED_VALUE)
        {
          /* not chunked: one chunk covers the variable */
          if (inq_dimlen == NULL)
            return NCZ_ABI_NC_EFILTER;
          for (int i = 0; i < ndims; i++)
            {
              status = inq_dimlen (ncid, dimids[i], &chunks[i]);
              if (status != NCZ_ABI_NC_NOERR)
                return status;
            }
        }
      info->rank = MIN ((guint) ndims, G_N_ELEMENTS (info->chunks));
      for (int i = 0; i < ndims; i++)
        {
          if ((guint) i < G_N_ELEMENTS (info->chunks))
            info->chunks[i] = chunks[i];
          info->chunk_bytes = ncz_codec_module_mul_saturate (info->chunk_bytes, chunks[i]);
        }
    }

  if (inq_endian != NULL && inq_endian (ncid, varid, &endian) != NCZ_ABI_NC_NOERR)
    endian = NC_ENDIAN_NATIVE_VALUE;
  info->big_endian = endian == NC_ENDIAN_BIG_VALUE
                     || (endian == NC_ENDIAN_NATIVE_VALUE && ncz_codec_module_host_is_big_endian ());
  return NCZ_ABI_NC_NOERR;
}

int
ncz_codec_module_modify (const NczCodecModuleDesc *desc, int ncid, int varid,
                         size_t *vnparamsp, unsigned **vparamsp,
                         size_t *wnparamsp, unsigned **wparamsp)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = NULL;
  g_autoptr (GArray) working = NULL;
  NczCodecVarInfo info;
  unsigned *new_visible = NULL;
  unsigned *new_working;
  gboolean visible_changed;
  gsize n_visible;
  int status;

  if (desc == NULL || vnparamsp == NULL || vparamsp == NULL || wnparamsp == NULL
      || wparamsp == NULL)
    return NCZ_ABI_NC_EINVAL;
  n_visible = *vnparamsp;
  if (n_visible > 0 && *vparamsp == NULL)
    return NCZ_ABI_NC_EINVAL;
  if (n_visible > 4096)
    return NCZ_ABI_NC_EINVAL;

  visible = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_visible);
  if (n_visible > 0)
    g_array_append_vals (visible, *vparamsp, n_visible);

  memset (&info, 0, sizeof info);
  if (desc->modify != NULL)
    {
      status = var_info_from_netcdf (ncid, varid, &info);
      if (status != NCZ_ABI_NC_NOERR)
        return status;
    }

  working = ncz_codec_module_working_from_visible (desc, &info, visible, &error);
  if (working == NULL)
    {
      g_debug ("%s", error != NULL ? error->message : "modify failed");
      return NCZ_ABI_NC_EFILTER;
    }

  visible_changed = visible->len != n_visible
                    || (n_visible > 0
                        && memcmp (visible->data, *vparamsp, n_visible * sizeof (unsigned)) != 0);
  if (visible_changed)
    {
      new_visible = malloc_params (visible);
      if (new_visible == NULL)
        return NCZ_ABI_NC_ENOMEM;
    }
  new_working = malloc_params (working);
  if (new_working == NULL)
    {
      free (new_visible);
      return NCZ_ABI_NC_ENOMEM;
    }

  if (visible_changed)
    {
      free (*vparamsp);
      *vparamsp = new_visible;
      *vnparamsp = visible->len;
    }
  free (*wparamsp);
  *wparamsp = new_working;
  *wnparamsp = working->len;
  return NCZ_ABI_NC_NOERR;
}
