/* cdl-syntax.h: the words and characters of CDL, for the tools that read
 * it (ncz-gen) and write it (ncz-dump)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

/* ---- type names ---- */

/* The type a type keyword names: char byte ubyte short ushort int uint
 * int64 uint64 float double string, and the older integer, long (int)
 * and real (float). NCZ_DATA_TYPE_NONE for any other word. */
NczDataType cdl_type_from_keyword (const char *word);

/* The keyword ncdump writes for @type ("int", never "long"); NULL for
 * NCZ_DATA_TYPE_NONE. */
const char *cdl_type_keyword (NczDataType type);

/* ---- number suffixes ---- */

/* The type of an integer constant with suffix @suffix (case-insensitive:
 * b ub s us l u ul ll ull, and f d for reals); NCZ_DATA_TYPE_NONE for any
 * other. */
NczDataType cdl_type_from_suffix (const char *suffix);

/* The suffix ncdump writes after an attribute value of @type so that it
 * reads back with that type: "b" "UB" "s" "US" "U" "LL" "ULL" "f", and ""
 * for int, double, char and string. */
const char *cdl_type_suffix (NczDataType type);

/* ---- NaN and the infinities ---- */

/* NaN, nan, Infinity, Inf, inf and their float forms (NaNf, Infinityf,
 * ...): TRUE with the value and type (float or double) for one of them. */
gboolean cdl_special_real_from_word (const char *word, double *value, NczDataType *type);

/* Appends "NaN", "Infinity" or "-Infinity" for a value that is not
 * finite, then @suffix ("f" for float, "" for double). */
void cdl_append_special_real (GString *out, double value, const char *suffix);

/* ---- names ---- */

/* Characters of a name as the reader takes them: a letter, '_', a byte
 * of a UTF-8 sequence or a backslash escape to start; then also digits
 * and . @ + -. -1 (end of text) is neither. */
gboolean cdl_is_name_start_char (int ch);
gboolean cdl_is_name_char (int ch);

/* The words that open a section or a group ("dimensions", "variables",
 * "data", "group", "types"). */
gboolean cdl_is_keyword (const char *name);

/* ---- escapes in strings and character constants ---- */

/* Decodes the escape sequence that follows a backslash at @text (@length
 * bytes available): \n \t \r \b \f \v \a, \xHH (one or two hexadecimal
 * digits), \ooo (one to three octal digits), and any other character as
 * itself (\\ \" \' \?). Stores the byte in @out and returns the number
 * of bytes of @text used; 0 when @length is 0; -1 for \x without a
 * hexadecimal digit. */
gssize cdl_decode_escape (const char *text, gsize length, guint8 *out);

G_END_DECLS
