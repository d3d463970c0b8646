/* ncz-lzf-codec.c: Codec-only library for the LZF HDF5 filter (32000)
 *
 * Exports the netcdf-c Codec ABI for HDF5 filter 32000 and nothing else:
 * the compression itself is the HDF5 LZF filter library's (Debian's
 * hdf5-plugin-lzf, liblzf_filter.so), which has no Codec part. With both
 * in HDF5_PLUGIN_PATH the pairing table makes filter 32000 usable for
 * NCZarr, with the codec JSON {"id": "lzf"} (numcodecs has no LZF codec).
 * LZF has no visible parameters; the working ones (filter version, LZF
 * version, chunk bytes) are the HDF5 filter's business.
 *
 * Debian's liblzf_filter.so is not linked with liblzf, whose functions it
 * calls: it loads only in a process that already has liblzf. This library
 * names it through ncz_codec_host_libraries (), an Ncz extension the
 * codec-registry reads, so Ncz loads liblzf.so.1 globally before it
 * retries the filter library.
 *
 * Plain C, no dependency: the library can serve any host of the Codec
 * ABI.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include <ncz/ncz-filter-abi.h>

#define LZF_CODEC_EXPORT __attribute__((visibility ("default")))

#define LZF_FILTER_ID 32000
#define LZF_CODEC_ID "lzf"
#define LZF_CODEC_JSON "{\"id\": \"lzf\"}"
#define MAX_DEPTH 64

LZF_CODEC_EXPORT const void *NCZ_get_codec_info (void);
LZF_CODEC_EXPORT const char * const *ncz_codec_host_libraries (void);

/* A small JSON reader, enough to check that the text is one object whose
 * "id" is "lzf". Every function returns the position after what it read,
 * or NULL if the text is malformed; none reads past the terminating NUL. */

static const char *
skip_space (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

/* A string starting at the opening quote; @is_lzf tells whether its
 * contents are exactly lzf (without escapes). */
static const char *
read_string (const char *p, int *is_lzf)
{
  const char *start;

  if (*p != '"')
    return NULL;
  start = ++p;
  while (*p != '"')
    {
      if (*p == '\0' || (unsigned char) *p < 0x20)
        return NULL;
      if (*p == '\\')
        {
          p++;
          if (*p == '\0')
            return NULL;
        }
      p++;
    }
  if (is_lzf != NULL)
    *is_lzf = (size_t) (p - start) == strlen (LZF_CODEC_ID) &&
              memcmp (start, LZF_CODEC_ID, strlen (LZF_CODEC_ID)) == 0;
  return p + 1;
}

static const char *read_value (const char *p, int depth);

static const char *
read_container (const char *p, int depth, int object)
{
  char close = object ? '}' : ']';

  if (depth > MAX_DEPTH)
    return NULL;
  p = skip_space (p + 1);
  if (*p == close)
    return p + 1;
  for (;;)
    {
      if (object)
        {
          p = read_string (p, NULL);
          if (p == NULL)
            return NULL;
          p = skip_space (p);
          if (*p != ':')
            return NULL;
          p = skip_space (p + 1);
        }
      p = read_value (p, depth + 1);
      if (p == NULL)
        return NULL;
      p = skip_space (p);
      if (*p == close)
        return p + 1;
      if (*p != ',')
        return NULL;
      p = skip_space (p + 1);
    }
}

static const char *
read_literal (const char *p, const char *word)
{
  size_t n = strlen (word);

  return strncmp (p, word, n) == 0 ? p + n : NULL;
}

static const char *
read_number (const char *p)
{
  const char *start = p;

  if (*p == '-')
    p++;
  while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
         *p == '+' || *p == '-')
    p++;
  return p > start ? p : NULL;
}

static const char *
read_value (const char *p, int depth)
{
  switch (*p)
    {
    case '"':
      return read_string (p, NULL);
    case '{':
      return read_container (p, depth, 1);
    case '[':
      return read_container (p, depth, 0);
    case 't':
      return read_literal (p, "true");
    case 'f':
      return read_literal (p, "false");
    case 'n':
      return read_literal (p, "null");
    default:
      return read_number (p);
    }
}

/* 1 if @text is one JSON object whose "id" is "lzf" */
static int
is_lzf_codec (const char *text)
{
  const char *p = skip_space (text);
  int found = 0;

  if (*p != '{')
    return 0;
  p = skip_space (p + 1);
  if (*p == '}')
    return 0;
  for (;;)
    {
      const char *key = p;
      const char *end;
      int is_id, is_lzf = 0;

      p = read_string (p, NULL);
      if (p == NULL)
        return 0;
      end = p;
      is_id = end - key == 4 && memcmp (key, "\"id\"", 4) == 0;
      p = skip_space (p);
      if (*p != ':')
        return 0;
      p = skip_space (p + 1);
      if (is_id)
        {
          p = read_string (p, &is_lzf);
          if (p == NULL || !is_lzf)
            return 0;
          found = 1;
        }
      else
        {
          p = read_value (p, 1);
          if (p == NULL)
            return 0;
        }
      p = skip_space (p);
      if (*p == '}')
        break;
      if (*p != ',')
        return 0;
      p = skip_space (p + 1);
    }
  return found && *skip_space (p + 1) == '\0';
}

static int
lzf_codec_to_hdf5 (const char *codec, size_t *nparamsp, unsigned **paramsp)
{
  if (codec == NULL || nparamsp == NULL || paramsp == NULL || !is_lzf_codec (codec))
    return NCZ_ABI_NC_EINVAL;
  *nparamsp = 0;
  *paramsp = NULL;
  return NCZ_ABI_NC_NOERR;
}

static int
lzf_hdf5_to_codec (size_t nparams, const unsigned *params, char **codecp)
{
  char *text;

  /* Parameters (the HDF5 filter's working ones, if a caller passes them)
   * are not part of the codec JSON. */
  (void) nparams;
  (void) params;
  if (codecp == NULL)
    return NCZ_ABI_NC_EINVAL;
  text = malloc (sizeof LZF_CODEC_JSON);
  if (text == NULL)
    return NCZ_ABI_NC_ENOMEM;
  memcpy (text, LZF_CODEC_JSON, sizeof LZF_CODEC_JSON);
  *codecp = text;
  return NCZ_ABI_NC_NOERR;
}

static const NczAbiCodec lzf_codec = {
  .version = NCZ_ABI_CODEC_CLASS_VER,
  .sort = NCZ_ABI_CODEC_HDF5,
  .codecid = LZF_CODEC_ID,
  .hdf5id = LZF_FILTER_ID,
  .NCZ_codec_initialize = NULL,
  .NCZ_codec_finalize = NULL,
  .NCZ_codec_to_hdf5 = lzf_codec_to_hdf5,
  .NCZ_hdf5_to_codec = lzf_hdf5_to_codec,
  .NCZ_modify_parameters = NULL,
};

const void *
NCZ_get_codec_info (void)
{
  return &lzf_codec;
}

const char * const *
ncz_codec_host_libraries (void)
{
  static const char * const libraries[] = { "liblzf.so.1", NULL };

  return libraries;
}
