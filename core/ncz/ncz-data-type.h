/* ncz-data-type.h: the atomic types of the netCDF-4 data model
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib-object.h>
#include <ncz/ncz-version-macros.h>

G_BEGIN_DECLS

/**
 * NczDataType:
 * @NCZ_DATA_TYPE_NONE: no type
 * @NCZ_DATA_TYPE_BYTE: signed 8-bit integer (NC_BYTE)
 * @NCZ_DATA_TYPE_CHAR: 8-bit character (NC_CHAR)
 * @NCZ_DATA_TYPE_SHORT: signed 16-bit integer
 * @NCZ_DATA_TYPE_INT: signed 32-bit integer
 * @NCZ_DATA_TYPE_FLOAT: 32-bit IEEE float
 * @NCZ_DATA_TYPE_DOUBLE: 64-bit IEEE float
 * @NCZ_DATA_TYPE_UBYTE: unsigned 8-bit integer
 * @NCZ_DATA_TYPE_USHORT: unsigned 16-bit integer
 * @NCZ_DATA_TYPE_UINT: unsigned 32-bit integer
 * @NCZ_DATA_TYPE_INT64: signed 64-bit integer
 * @NCZ_DATA_TYPE_UINT64: unsigned 64-bit integer
 * @NCZ_DATA_TYPE_STRING: string (variable length in the API, fixed width in Zarr)
 *
 * The atomic types. The numeric values equal netCDF's `nc_type` codes.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_DATA_TYPE_NONE = 0,
  NCZ_DATA_TYPE_BYTE = 1,
  NCZ_DATA_TYPE_CHAR = 2,
  NCZ_DATA_TYPE_SHORT = 3,
  NCZ_DATA_TYPE_INT = 4,
  NCZ_DATA_TYPE_FLOAT = 5,
  NCZ_DATA_TYPE_DOUBLE = 6,
  NCZ_DATA_TYPE_UBYTE = 7,
  NCZ_DATA_TYPE_USHORT = 8,
  NCZ_DATA_TYPE_UINT = 9,
  NCZ_DATA_TYPE_INT64 = 10,
  NCZ_DATA_TYPE_UINT64 = 11,
  NCZ_DATA_TYPE_STRING = 12,
} NczDataType;

/**
 * NczEndianness:
 * @NCZ_ENDIANNESS_NATIVE: the machine's byte order
 * @NCZ_ENDIANNESS_LITTLE: little-endian storage
 * @NCZ_ENDIANNESS_BIG: big-endian storage
 *
 * Byte order in which a variable's data is stored.
 *
 * Since: 1.0
 */
typedef enum {
  NCZ_ENDIANNESS_NATIVE,
  NCZ_ENDIANNESS_LITTLE,
  NCZ_ENDIANNESS_BIG,
} NczEndianness;

NCZ_AVAILABLE_IN_ALL
gsize ncz_data_type_get_size (NczDataType type);
NCZ_AVAILABLE_IN_ALL
const char *ncz_data_type_get_name (NczDataType type);
NCZ_AVAILABLE_IN_ALL
NczDataType ncz_data_type_from_name (const char *name);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_data_type_is_integer (NczDataType type);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_data_type_is_unsigned (NczDataType type);
NCZ_AVAILABLE_IN_ALL
gboolean ncz_data_type_is_float (NczDataType type);
NCZ_AVAILABLE_IN_ALL
GBytes *ncz_data_type_get_default_fill (NczDataType type);

G_END_DECLS
