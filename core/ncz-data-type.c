/* ncz-data-type.c: the atomic types
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>
#include <math.h>

#include <ncz/ncz.h>
#include "ncz-model-private.h"

static const struct {
  const char *name;
  gsize size;
} type_table[] = {
  [NCZ_DATA_TYPE_NONE] = { "none", 0 },
  [NCZ_DATA_TYPE_BYTE] = { "byte", 1 },
  [NCZ_DATA_TYPE_CHAR] = { "char", 1 },
  [NCZ_DATA_TYPE_SHORT] = { "short", 2 },
  [NCZ_DATA_TYPE_INT] = { "int", 4 },
  [NCZ_DATA_TYPE_FLOAT] = { "float", 4 },
  [NCZ_DATA_TYPE_DOUBLE] = { "double", 8 },
  [NCZ_DATA_TYPE_UBYTE] = { "ubyte", 1 },
  [NCZ_DATA_TYPE_USHORT] = { "ushort", 2 },
  [NCZ_DATA_TYPE_UINT] = { "uint", 4 },
  [NCZ_DATA_TYPE_INT64] = { "int64", 8 },
  [NCZ_DATA_TYPE_UINT64] = { "uint64", 8 },
  [NCZ_DATA_TYPE_STRING] = { "string", sizeof (char *) },
};

static gboolean
type_is_valid (NczDataType type)
{
  return type > NCZ_DATA_TYPE_NONE && type <= NCZ_DATA_TYPE_STRING;
}

/**
 * ncz_data_type_get_size:
 * @type: a type
 *
 * Gives how many bytes one value of @type takes in the buffers of reads,
 * writes and attributes.
 *
 * Returns: the size in bytes of one value of @type in memory (for
 *   %NCZ_DATA_TYPE_STRING, the size of a `char *`), 0 for an invalid type
 * Since: 1.0
 */
gsize
ncz_data_type_get_size (NczDataType type)
{
  return type_is_valid (type) ? type_table[type].size : 0;
}

/**
 * ncz_data_type_get_name:
 * @type: a type
 *
 * Gives the CDL name of a type, as `ncz-dump` and `ncz-gen` write it;
 * `none` for an invalid type. The string is static.
 *
 * Returns: the CDL name of @type ("int", "uint64", ...)
 * Since: 1.0
 */
const char *
ncz_data_type_get_name (NczDataType type)
{
  return type_is_valid (type) ? type_table[type].name : "none";
}

/**
 * ncz_data_type_from_name:
 * @name: a CDL type name
 *
 * Finds the type whose CDL name (as ncz_data_type_get_name() gives it,
 * such as `float` or `uint64`) is @name. The comparison is exact.
 *
 * Returns: the type called @name, or %NCZ_DATA_TYPE_NONE
 * Since: 1.0
 */
NczDataType
ncz_data_type_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, NCZ_DATA_TYPE_NONE);
  for (int t = NCZ_DATA_TYPE_BYTE; t <= NCZ_DATA_TYPE_STRING; t++)
    if (strcmp (type_table[t].name, name) == 0)
      return (NczDataType) t;
  return NCZ_DATA_TYPE_NONE;
}

/**
 * ncz_data_type_is_integer:
 * @type: a type
 *
 * Tells whether @type is one of the eight integer types, signed or not.
 * %NCZ_DATA_TYPE_CHAR is not an integer type.
 *
 * Returns: whether @type is an integer type
 * Since: 1.0
 */
gboolean
ncz_data_type_is_integer (NczDataType type)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: case NCZ_DATA_TYPE_SHORT: case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UBYTE: case NCZ_DATA_TYPE_USHORT: case NCZ_DATA_TYPE_UINT:
    case NCZ_DATA_TYPE_INT64: case NCZ_DATA_TYPE_UINT64:
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * ncz_data_type_is_unsigned:
 * @type: a type
 *
 * Tells whether @type is an unsigned integer type (ubyte, ushort, uint or
 * uint64).
 *
 * Returns: whether @type is an unsigned integer type
 * Since: 1.0
 */
gboolean
ncz_data_type_is_unsigned (NczDataType type)
{
  return type == NCZ_DATA_TYPE_UBYTE || type == NCZ_DATA_TYPE_USHORT ||
         type == NCZ_DATA_TYPE_UINT || type == NCZ_DATA_TYPE_UINT64;
}

/**
 * ncz_data_type_is_float:
 * @type: a type
 *
 * Tells whether @type is a floating-point type: the types that can be
 * quantized.
 *
 * Returns: whether @type is float or double
 * Since: 1.0
 */
gboolean
ncz_data_type_is_float (NczDataType type)
{
  return type == NCZ_DATA_TYPE_FLOAT || type == NCZ_DATA_TYPE_DOUBLE;
}

/**
 * ncz_data_type_get_default_fill:
 * @type: a numeric or char type
 *
 * The netCDF default fill value of @type (for example -2147483647 for
 * int, 9.96920996838686905e+36 for float and double), in native byte
 * order. For %NCZ_DATA_TYPE_STRING the default fill is the empty string and
 * the bytes are a single NUL.
 *
 * Returns: (transfer full) (nullable): the fill value
 * Since: 1.0
 */
GBytes *
ncz_data_type_get_default_fill (NczDataType type)
{
  union {
    gint8 b; guint8 ub; gint16 s; guint16 us; gint32 i; guint32 ui;
    gint64 i64; guint64 ui64; float f; double d; char c;
  } v;
  gsize size = ncz_data_type_get_size (type);

  memset (&v, 0, sizeof v);
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: v.b = -127; break;
    case NCZ_DATA_TYPE_CHAR: v.c = 0; break;
    case NCZ_DATA_TYPE_SHORT: v.s = -32767; break;
    case NCZ_DATA_TYPE_INT: v.i = -2147483647; break;
    case NCZ_DATA_TYPE_FLOAT: v.f = 9.9692099683868690e+36f; break;
    case NCZ_DATA_TYPE_DOUBLE: v.d = 9.9692099683868690e+36; break;
    case NCZ_DATA_TYPE_UBYTE: v.ub = 255; break;
    case NCZ_DATA_TYPE_USHORT: v.us = 65535; break;
    case NCZ_DATA_TYPE_UINT: v.ui = 4294967295U; break;
    case NCZ_DATA_TYPE_INT64: v.i64 = G_GINT64_CONSTANT (-9223372036854775806); break;
    case NCZ_DATA_TYPE_UINT64: v.ui64 = G_GUINT64_CONSTANT (18446744073709551614); break;
    case NCZ_DATA_TYPE_STRING: return g_bytes_new ("", 1);
    default: return NULL;
    }
  return g_bytes_new (&v, size);
}

/**
 * ncz_endianness_needs_swap: (skip)
 *
 * Since: 1.0
 */
gboolean
ncz_endianness_needs_swap (NczEndianness endianness)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  return endianness == NCZ_ENDIANNESS_BIG;
#else
  return endianness == NCZ_ENDIANNESS_LITTLE;
#endif
}

/**
 * ncz_byteswap_buffer: (skip)
 *
 * Since: 1.0
 */
void
ncz_byteswap_buffer (gpointer data, gsize element_size, gsize n_elements)
{
  guint8 *p = data;

  switch (element_size)
    {
    case 2:
      for (gsize i = 0; i < n_elements; i++)
        {
          guint16 x;
          memcpy (&x, p + 2 * i, 2);
          x = GUINT16_SWAP_LE_BE (x);
          memcpy (p + 2 * i, &x, 2);
        }
      break;
    case 4:
      for (gsize i = 0; i < n_elements; i++)
        {
          guint32 x;
          memcpy (&x, p + 4 * i, 4);
          x = GUINT32_SWAP_LE_BE (x);
          memcpy (p + 4 * i, &x, 4);
        }
      break;
    case 8:
      for (gsize i = 0; i < n_elements; i++)
        {
          guint64 x;
          memcpy (&x, p + 8 * i, 8);
          x = GUINT64_SWAP_LE_BE (x);
          memcpy (p + 8 * i, &x, 8);
        }
      break;
    default:
      break;
    }
}

/**
 * ncz_fill_buffer: (skip)
 *
 * Since: 1.0
 */
void
ncz_fill_buffer (gpointer buffer, gsize element_size, gsize n_elements,
                 GBytes *fill)
{
  gsize fill_size = 0;
  const guint8 *f = fill ? g_bytes_get_data (fill, &fill_size) : NULL;
  guint8 *out = buffer;
  gsize total = element_size * n_elements;
  gboolean all_zero = TRUE;

  if (total == 0)
    return;
  for (gsize i = 0; f && i < fill_size && i < element_size; i++)
    if (f[i] != 0)
      all_zero = FALSE;
  if (f == NULL || all_zero)
    {
      memset (out, 0, total);
      return;
    }
  /* first element, then double the filled region */
  memset (out, 0, element_size);
  memcpy (out, f, MIN (fill_size, element_size));
  gsize done = element_size;
  while (done < total)
    {
      gsize n = MIN (done, total - done);
      memcpy (out + done, out, n);
      done += n;
    }
}
