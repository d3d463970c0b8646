/* fixture.c: foreign filter libraries for the codec-registry tests
 *
 * Compiled once per fixture with -D options choosing what it exports:
 *   FX_H5_ID=n         the HDF5 plugin ABI for filter n
 *   FX_H5_VERSION=v    H5Z_class2_t version (default 1)
 *   FX_H5_TYPE=t       H5PLget_plugin_type () result (default 0, filter)
 *   FX_H5_HALF         only H5PLget_plugin_type, no H5PLget_plugin_info
 *   FX_H5_FAIL         the filter always fails (returns 0)
 *   FX_H5_LIE          the filter claims more bytes than its buffer holds
 *   FX_CODEC_ID="id"   the Codec ABI (NCZ_get_codec_info) for codec id ...
 *   FX_CODEC_HDF5=n    ... paired with HDF5 filter n
 *   FX_CODEC_VERSION, FX_CODEC_SORT   NCZ_codec_t version / sort (1)
 *   FX_BADJSON         NCZ_hdf5_to_codec writes text that is not JSON
 *   FX_DEFAULTS        a defaults library (NCZ_codec_info_defaults) with
 *                      codecs fxa (40010), fxb (40011), fxc (40012), and an
 *                      NCZ_get_codec_info (fxignored, 40099) never used
 *   FX_MARKER=symbol   also exports symbol (an Ncz module's entry point)
 *
 * The filter: encoding writes a new buffer "FX", key, 0, then the data
 * XOR key (key = cd_values[0], else 0x5A), replacing the caller's buffer;
 * decoding checks the header and undoes it in place. The codec JSON is
 * {"id": ID, "k": key}; "bad" anywhere in it is refused.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz-filter-abi.h>

#define FX_EXPORT __attribute__((visibility ("default")))

FX_EXPORT int fx_init_count;
int fx_init_count = 0;

/* ---- HDF5 side ---- */

#ifdef FX_H5_ID
#ifndef FX_H5_VERSION
#define FX_H5_VERSION 1
#endif
#ifndef FX_H5_TYPE
#define FX_H5_TYPE 0
#endif

#ifndef FX_H5_HALF
static size_t
fx_filter (unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
           size_t nbytes, size_t *buf_size, void **buf)
{
  unsigned char key = cd_nelmts > 0 ? (unsigned char) cd_values[0] : 0x5A;
  unsigned char *in = *buf;

#ifdef FX_H5_FAIL
  return 0;
#endif
#ifdef FX_H5_LIE
  return *buf_size + 100;
#endif
  if (flags & NCZ_H5Z_FLAG_REVERSE)
    {
      if (nbytes < 4 || in[0] != 'F' || in[1] != 'X' || in[2] != key || in[3] != 0)
        return 0;
      memmove (in, in + 4, nbytes - 4);
      for (size_t i = 0; i < nbytes - 4; i++)
        in[i] ^= key;
      return nbytes - 4;
    }
  else
    {
      unsigned char *out = malloc (nbytes + 4);

      if (out == NULL)
        return 0;
      out[0] = 'F';
      out[1] = 'X';
      out[2] = key;
      out[3] = 0;
      for (size_t i = 0; i < nbytes; i++)
        out[i + 4] = in[i] ^ key;
      free (*buf);
      *buf = out;
      *buf_size = nbytes + 4;
      return nbytes + 4;
    }
}

static const NczH5ZClass2 fx_class = {
  .version = FX_H5_VERSION,
  .id = FX_H5_ID,
  .encoder_present = 1,
  .decoder_present = 1,
  .name = "fixture filter",
  .can_apply = NULL,
  .set_local = NULL,
  .filter = fx_filter,
};
#endif

FX_EXPORT NczH5PLType H5PLget_plugin_type (void);
NczH5PLType
H5PLget_plugin_type (void)
{
  return (NczH5PLType) FX_H5_TYPE;
}

#ifndef FX_H5_HALF
FX_EXPORT const void *H5PLget_plugin_info (void);
const void *
H5PLget_plugin_info (void)
{
  return &fx_class;
}
#endif
#endif

/* ---- Codec side ---- */

#if defined(FX_CODEC_ID) || defined(FX_DEFAULTS)

static void
fx_initialize (void)
{
  fx_init_count++;
}

static int
fx_to_hdf5 (const char *codec, size_t *nparamsp, unsigned **paramsp)
{
  const char *k;

  if (strstr (codec, "bad") != NULL)
    return NCZ_ABI_NC_EINVAL;
  *nparamsp = 0;
  *paramsp = NULL;
  k = strstr (codec, "\"k\"");
  if (k != NULL)
    {
      k += 3;
      while (*k == ' ' || *k == ':')
        k++;
      *paramsp = malloc (sizeof (unsigned));
      **paramsp = (unsigned) strtoul (k, NULL, 10);
      *nparamsp = 1;
    }
  return NCZ_ABI_NC_NOERR;
}

static int
fx_to_codec_named (const char *id, size_t nparams, const unsigned *params, char **codecp)
{
  char text[128];

  if (nparams > 1)
    return NCZ_ABI_NC_EINVAL;
#ifdef FX_BADJSON
  snprintf (text, sizeof text, "this is not JSON");
#else
  if (nparams == 1)
    snprintf (text, sizeof text, "{\"id\": \"%s\", \"k\": %u}", id, params[0]);
  else
    snprintf (text, sizeof text, "{\"id\": \"%s\"}", id);
#endif
  *codecp = malloc (strlen (text) + 1);
  if (*codecp == NULL)
    return NCZ_ABI_NC_ENOMEM;
  memcpy (*codecp, text, strlen (text) + 1);
  return NCZ_ABI_NC_NOERR;
}

#define FX_DEFINE_CODEC(sym, id, hdf5, ver, srt)                                \
  static int sym##_to_codec (size_t n, const unsigned *p, char **c)             \
  { return fx_to_codec_named (id, n, p, c); }                                   \
  static const NczAbiCodec sym = {                                              \
    .version = ver, .sort = srt, .codecid = id, .hdf5id = hdf5,                 \
    .NCZ_codec_initialize = fx_initialize, .NCZ_codec_finalize = NULL,          \
    .NCZ_codec_to_hdf5 = fx_to_hdf5, .NCZ_hdf5_to_codec = sym##_to_codec,       \
    .NCZ_modify_parameters = NULL,                                              \
  };

#ifdef FX_DEFAULTS
FX_DEFINE_CODEC (fx_codec, "fxignored", 40099, 1, 1)
FX_DEFINE_CODEC (fx_default_a, "fxa", 40010, 1, 1)
FX_DEFINE_CODEC (fx_default_b, "fxb", 40011, 1, 1)
FX_DEFINE_CODEC (fx_default_c, "fxc", 40012, 1, 1)

FX_EXPORT const void *NCZ_codec_info_defaults (void);
const void *
NCZ_codec_info_defaults (void)
{
  static const NczAbiCodec *vector[] = { &fx_default_a, &fx_default_b, &fx_default_c, NULL };

  return vector;
}
#else
#ifndef FX_CODEC_VERSION
#define FX_CODEC_VERSION 1
#endif
#ifndef FX_CODEC_SORT
#define FX_CODEC_SORT 1
#endif
FX_DEFINE_CODEC (fx_codec, FX_CODEC_ID, FX_CODEC_HDF5, FX_CODEC_VERSION, FX_CODEC_SORT)
#endif

FX_EXPORT const void *NCZ_get_codec_info (void);
const void *
NCZ_get_codec_info (void)
{
  return &fx_codec;
}
#endif

#ifdef FX_MARKER
FX_EXPORT const void *FX_MARKER (void);
const void *
FX_MARKER (void)
{
  return NULL;
}
#endif
