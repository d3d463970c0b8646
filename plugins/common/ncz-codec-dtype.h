/* ncz-codec-dtype.h: numpy-style element types for Ncz's codec modules
 *
 * The numcodecs codecs that work on numbers (delta, fixedscaleoffset,
 * quantize, astype) name their element types in codec JSON as numpy
 * type strings: "<i4", ">f8", "|u1". These helpers parse and print them,
 * pack one into a single visible parameter, and load and store elements
 * in the type's byte order.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-codec-module.h"

G_BEGIN_DECLS

typedef enum {
  NCZ_CODEC_DTYPE_INT = 1,     /* 'i': signed integer, 1, 2, 4 or 8 bytes */
  NCZ_CODEC_DTYPE_UINT = 2,    /* 'u': unsigned integer, 1, 2, 4 or 8 bytes */
  NCZ_CODEC_DTYPE_FLOAT = 3,   /* 'f': IEEE float, 4 or 8 bytes */
} NczCodecDtypeKind;

typedef struct {
  NczCodecDtypeKind kind;
  guint size;
  gboolean big_endian;
} NczCodecDtype;

/* Parses a numpy type string: an optional byte order ('<', '>', '|',
 * '='; none means the host's), then i1..i8, u1..u8, f4 or f8. */
gboolean ncz_codec_dtype_parse (const char *text, NczCodecDtype *dtype, GError **error);
/* The numpy .str form: "<i4", ">f8", "|u1" (newly allocated). */
char *ncz_codec_dtype_to_string (const NczCodecDtype *dtype);
/* One visible parameter: kind << 16 | big_endian << 8 | size. */
guint ncz_codec_dtype_pack (const NczCodecDtype *dtype);
gboolean ncz_codec_dtype_unpack (guint packed, NczCodecDtype *dtype, GError **error);
/* Reads the member @key of a codec JSON dict as a type string. */
gboolean ncz_codec_json_get_dtype (JsonObject *dict, const char *key, NczCodecDtype *dtype,
                                   GError **error);

/* Appends " (codec JSON {...})" to the message of *@error, if any. */
void ncz_codec_error_append_json (GError **error, JsonObject *dict);

/* Element @index of @data as raw bits (zero-extended), in host order. */
guint64 ncz_codec_dtype_load_bits (const NczCodecDtype *dtype, const guint8 *data, gsize index);
void ncz_codec_dtype_store_bits (const NczCodecDtype *dtype, guint8 *data, gsize index,
                                 guint64 bits);
/* Integer elements as signed 64-bit values (sign-extended for 'i'). */
gint64 ncz_codec_dtype_load_int (const NczCodecDtype *dtype, const guint8 *data, gsize index);
/* Float elements ('f') as doubles; a float32 is stored rounded to
 * nearest, as a C conversion does. */
gdouble ncz_codec_dtype_load_float (const NczCodecDtype *dtype, const guint8 *data, gsize index);
void ncz_codec_dtype_store_float (const NczCodecDtype *dtype, guint8 *data, gsize index,
                                  gdouble value);

/* Checks that @length bytes hold whole elements of @dtype; the error
 * names @codec_id. */
gboolean ncz_codec_dtype_check_length (const NczCodecDtype *dtype, const char *codec_id,
                                       gsize length, GError **error);

/* Converts @value, truncated toward zero as a C (and numpy) conversion
 * does, to the integer type @dtype ('i' or 'u'): FALSE when @value is
 * NaN or the truncated value lies outside @dtype's range (numpy's result
 * is then not defined portably). *@bits: the value's bit pattern. */
gboolean ncz_codec_dtype_float_to_int (const NczCodecDtype *dtype, gdouble value, guint64 *bits);

/* Reads the member @key of a codec JSON dict as a finite number (a JSON
 * number or a numeric string). */
gboolean ncz_codec_json_get_double (JsonObject *dict, const char *key, gdouble *value,
                                    GError **error);
/* A double as two visible parameters (low 32 bits first), and back. */
void ncz_codec_params_append_double (GArray *params, gdouble value);
gdouble ncz_codec_params_get_double (const guint *params);
/* A JSON number for @value: an integer when it is one (and exact), as
 * numcodecs' configurations usually hold them. */
JsonNode *ncz_codec_json_new_number (gdouble value);

G_END_DECLS
