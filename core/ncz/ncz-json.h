/* ncz-json.h: the exact JSON reader/writer used for Zarr metadata (module SDK)
 *
 * json-glib cannot hold the values Zarr metadata carries: unsigned 64-bit
 * integers above G_MAXINT64 (uint64 fill values), the bare NaN / Infinity
 * tokens netcdf-c 4.9.0 writes, and the exact number text needed to keep
 * full precision. This small tree keeps every number's text, keeps object
 * key order, and parses with a depth limit and positions in its errors.
 *
 * Exported for Ncz's own modules; not installed.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(NCZ_ENABLE_MODULE_API) && !defined(NCZ_COMPILATION)
#error "<ncz/ncz-json.h> is part of the module SDK: define NCZ_ENABLE_MODULE_API and include <ncz/ncz-module.h>."
#endif

#include <ncz/ncz.h>

G_BEGIN_DECLS

typedef enum {
  NCZ_JSON_NULL,
  NCZ_JSON_BOOLEAN,
  NCZ_JSON_NUMBER,
  NCZ_JSON_STRING,
  NCZ_JSON_ARRAY,
  NCZ_JSON_OBJECT,
} NczJsonKind;

typedef struct _NczJson NczJson;

/* Parsing: strict JSON plus bare NaN, Infinity, -Infinity (any case) and
 * -nan. Strings may hold raw UTF-8 (taken byte for byte) and \uXXXX
 * escapes, a character beyond U+FFFF as a surrogate pair; a surrogate
 * outside a pair reads as U+FFFD. Duplicate object keys: the last wins.
 * Nesting deeper than 256 is an error. Errors are
 * NCZ_BACKEND_ERROR_BAD_METADATA with "line L column C". */
NCZ_MODULE_API NczJson *ncz_json_parse (const char *text, gssize length, GError **error);

NCZ_MODULE_API NczJson *ncz_json_ref (NczJson *node);
NCZ_MODULE_API void ncz_json_unref (NczJson *node);
NCZ_MODULE_API NczJsonKind ncz_json_get_kind (const NczJson *node);
NCZ_MODULE_API const char *ncz_json_kind_name (NczJsonKind kind);

NCZ_MODULE_API gboolean ncz_json_get_boolean (const NczJson *node);
/* Strings are UTF-8 and may contain NUL; length in bytes. */
NCZ_MODULE_API const char *ncz_json_get_string (const NczJson *node, gsize *length);
/* Numbers keep their text. */
NCZ_MODULE_API const char *ncz_json_get_number_text (const NczJson *node);
NCZ_MODULE_API gboolean ncz_json_number_is_integer (const NczJson *node);
NCZ_MODULE_API double ncz_json_get_double (const NczJson *node);
/* FALSE if the value is not an integer representable in the type. */
NCZ_MODULE_API gboolean ncz_json_get_int64 (const NczJson *node, gint64 *value);
NCZ_MODULE_API gboolean ncz_json_get_uint64 (const NczJson *node, guint64 *value);

NCZ_MODULE_API gsize ncz_json_array_get_length (const NczJson *node);
NCZ_MODULE_API NczJson *ncz_json_array_get (const NczJson *node, gsize index);
NCZ_MODULE_API gsize ncz_json_object_get_size (const NczJson *node);
NCZ_MODULE_API const char *ncz_json_object_get_key (const NczJson *node, gsize index);
NCZ_MODULE_API NczJson *ncz_json_object_get_value (const NczJson *node, gsize index);
/* NULL if absent or @node is not an object. */
NCZ_MODULE_API NczJson *ncz_json_object_get (const NczJson *node, const char *key);

NCZ_MODULE_API NczJson *ncz_json_new_null (void);
NCZ_MODULE_API NczJson *ncz_json_new_boolean (gboolean value);
NCZ_MODULE_API NczJson *ncz_json_new_int64 (gint64 value);
NCZ_MODULE_API NczJson *ncz_json_new_uint64 (guint64 value);
/* Finite doubles are written with the fewest digits that read back
 * exactly; NaN and infinities are written as the strings "NaN",
 * "Infinity", "-Infinity". */
NCZ_MODULE_API NczJson *ncz_json_new_double (double value);
NCZ_MODULE_API NczJson *ncz_json_new_string (const char *value, gssize length);
NCZ_MODULE_API NczJson *ncz_json_new_array (void);
NCZ_MODULE_API NczJson *ncz_json_new_object (void);
/* These take ownership of @value. */
NCZ_MODULE_API void ncz_json_array_append (NczJson *array, NczJson *value);
NCZ_MODULE_API void ncz_json_object_set (NczJson *object, const char *key, NczJson *value);
NCZ_MODULE_API gboolean ncz_json_object_remove (NczJson *object, const char *key);

/* Single line, `", "` between object members and `","` between array
 * elements, as netcdf-c writes; pretty = multi-line with 4-space indent
 * as zarr-python writes. */
NCZ_MODULE_API char *ncz_json_to_string (const NczJson *node, gboolean pretty);
/* The same text in ASCII only, as Python's json.dumps() writes by
 * default: every other character is a \uXXXX escape, one beyond U+FFFF a
 * UTF-16 surrogate pair ("\ud83d\ude00"). A byte of a string that is not
 * UTF-8 is written as the Latin-1 character of that value. zarr-python
 * before 2.14 reads metadata only in this form. */
NCZ_MODULE_API char *ncz_json_to_ascii_string (const NczJson *node, gboolean pretty);
/* Compact: no spaces at all (used for the text of JSON-valued attributes). */
NCZ_MODULE_API char *ncz_json_to_compact_string (const NczJson *node);
NCZ_MODULE_API gboolean ncz_json_equal (const NczJson *a, const NczJson *b);

/* Shortest text that strtod() reads back as @value ("%.17g" at worst). */
NCZ_MODULE_API char *ncz_format_double_roundtrip (double value);

/* Bridges to json-glib, the type codec configuration crosses the API in.
 * Integers that fit a gint64 become json-glib integers, other numbers
 * doubles; back, json-glib integers are written as integers and doubles
 * with the shortest text that reads back (as ncz_json_new_double()).
 * json-glib strings cannot hold NUL: each one becomes U+FFFD.
 * Returns new references (transfer full); ncz_json_to_json_object()
 * returns NULL if @node is not an object. */
NCZ_MODULE_API JsonNode *ncz_json_to_json_node (const NczJson *node);
NCZ_MODULE_API JsonObject *ncz_json_to_json_object (const NczJson *node);
NCZ_MODULE_API NczJson *ncz_json_from_json_node (JsonNode *node);
NCZ_MODULE_API NczJson *ncz_json_from_json_object (JsonObject *object);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczJson, ncz_json_unref)

G_END_DECLS
