/* ncz-filter-abi.h: the binary plugin ABIs Ncz speaks (module SDK)
 *
 * Ncz's own declarations (facts of the ABIs, no code from HDF5 or
 * netcdf-c) of:
 *  - the HDF5 dynamically loaded filter ABI (H5PLget_plugin_type,
 *    H5PLget_plugin_info returning an H5Z_class2_t), and
 *  - netcdf-c's Codec ABI (NCZ_get_codec_info returning an NCZ_codec_t,
 *    NCZ_codec_info_defaults returning a NULL-terminated vector).
 * Used by Ncz's codec modules (which export both, so the same .so serves
 * HDF5/h5py, netcdf-c and Ncz) and by codec-registry (which loads foreign
 * libraries through them). Part of the module SDK.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once


#include <stddef.h>
#include <stdint.h>

/* ---- HDF5 side (HDF5 >= 1.10) ---- */

typedef int64_t ncz_h5_hid_t;       /* hid_t */
typedef int ncz_h5_herr_t;          /* herr_t */
typedef int ncz_h5_htri_t;          /* htri_t */
typedef int ncz_h5_filter_t;        /* H5Z_filter_t */

typedef enum {
  NCZ_H5PL_TYPE_ERROR = -1,
  NCZ_H5PL_TYPE_FILTER = 0,
  NCZ_H5PL_TYPE_VOL = 1,
  NCZ_H5PL_TYPE_NONE = 2,
} NczH5PLType;

#define NCZ_H5Z_CLASS_T_VERS 1
#define NCZ_H5Z_FLAG_REVERSE 0x0100u
#define NCZ_H5Z_FLAG_OPTIONAL 0x0001u

typedef ncz_h5_htri_t (*NczH5ZCanApplyFunc) (ncz_h5_hid_t dcpl, ncz_h5_hid_t type, ncz_h5_hid_t space);
typedef ncz_h5_herr_t (*NczH5ZSetLocalFunc) (ncz_h5_hid_t dcpl, ncz_h5_hid_t type, ncz_h5_hid_t space);
typedef size_t (*NczH5ZFilterFunc) (unsigned int flags, size_t cd_nelmts,
                                    const unsigned int cd_values[], size_t nbytes,
                                    size_t *buf_size, void **buf);

/* Layout of H5Z_class2_t */
typedef struct {
  int version;                      /* NCZ_H5Z_CLASS_T_VERS */
  ncz_h5_filter_t id;
  unsigned encoder_present;
  unsigned decoder_present;
  const char *name;
  NczH5ZCanApplyFunc can_apply;
  NczH5ZSetLocalFunc set_local;
  NczH5ZFilterFunc filter;
} NczH5ZClass2;

typedef NczH5PLType (*NczH5PLGetPluginTypeFunc) (void);
typedef const void *(*NczH5PLGetPluginInfoFunc) (void);

/* ---- netcdf-c Codec side ---- */

#define NCZ_ABI_CODEC_CLASS_VER 1
#define NCZ_ABI_CODEC_HDF5 1
#define NCZ_ABI_NC_NOERR 0
#define NCZ_ABI_NC_EINVAL (-36)
#define NCZ_ABI_NC_ENOMEM (-61)
#define NCZ_ABI_NC_EFILTER (-132)

/* Layout of NCZ_codec_t (netcdf-c's header; its nparamsp is size_t*) */
typedef struct {
  int version;                      /* NCZ_ABI_CODEC_CLASS_VER */
  int sort;                         /* NCZ_ABI_CODEC_HDF5 */
  const char *codecid;
  unsigned int hdf5id;
  void (*NCZ_codec_initialize) (void);
  void (*NCZ_codec_finalize) (void);
  int (*NCZ_codec_to_hdf5) (const char *codec, size_t *nparamsp, unsigned **paramsp);
  int (*NCZ_hdf5_to_codec) (size_t nparams, const unsigned *params, char **codecp);
  int (*NCZ_modify_parameters) (int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp,
                                size_t *wnparamsp, unsigned **wparamsp);
} NczAbiCodec;

typedef const void *(*NczGetCodecInfoFunc) (void);
typedef const void *(*NczCodecInfoDefaultsFunc) (void);
