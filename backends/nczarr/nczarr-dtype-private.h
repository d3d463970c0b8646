/* nczarr-dtype-private.h: how the values of an array are stored, for the
 * Zarr data types whose stored form differs from the model's
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "nczarr-private.h"

G_BEGIN_DECLS

/* How the elements of a chunk are stored, after the codecs that work on
 * bytes (compressors, shuffle, ...) have been undone. */
typedef enum {
  NCZARR_STORED_PLAIN,       /* as in the model (numbers, char, "|S<n>") */
  NCZARR_STORED_BOOL,        /* "|b1": one byte 0 or 1, a ubyte in the model */
  NCZARR_STORED_HALF,        /* "<f2"/">f2": IEEE half floats, float in the model */
  NCZARR_STORED_UNICODE,     /* "<U<n>"/">U<n>": n UTF-32 code points, NUL-padded */
  NCZARR_STORED_VLEN_UTF8,   /* "|O" + "vlen-utf8": count, then length + UTF-8 per item */
  NCZARR_STORED_VLEN_BYTES,  /* "|O" + "vlen-bytes": the same framing, raw bytes */
} NczarrStored;

/* The result of reading an array's "dtype". */
typedef struct {
  NczarrDtype dt;            /* the model's view; stored_size >= 1 */
  NczarrStored stored;
  gboolean is_object;        /* "|O": the object codec is in "filters" */
  char *unsupported;         /* why the values cannot be read, or NULL */
} NczarrArrayDtype;

/* Parses the dtype of an array. Never fails: a dtype that is not
 * supported gives a placeholder model type (string for "|O", else ubyte)
 * and the reason in @out->unsupported, so that the dataset still opens
 * and only reading the array fails. Free with nczarr_array_dtype_clear(). */
void nczarr_array_dtype_parse (const char *dtype, gboolean pure_zarr,
                               gboolean netcdf_written, NczarrArrayDtype *out);
void nczarr_array_dtype_clear (NczarrArrayDtype *out);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NczarrArrayDtype, nczarr_array_dtype_clear)

/* For an object ("|O") array: takes the object codec, which comes first
 * in "filters", out of the parsed chain @specs (element-type
 * NczFilterSpec) and sets @out->stored, or sets @out->unsupported
 * ("pickle", "json2", ... are refused). */
void nczarr_array_dtype_take_object_codec (NczarrArrayDtype *out, GPtrArray *specs);

/* A "|b1" array's "fill_value" is a JSON boolean: made the number 0 or 1
 * of the model's ubyte, in @zarray (the parsed .zarray). */
void nczarr_array_dtype_normalize_fill (const NczarrArrayDtype *adt, NczJson *zarray);

/* Records on @variable how its values are stored (after the model
 * variable is made from the array): the stored kind for the chunk code,
 * the stored data type kept for copies ("|b1", "<f2"), variable-length
 * strings, and the reason reading fails for an unsupported array.
 * @dtype is the "dtype" as found. */
void nczarr_storage_attach (NczVariable *variable, const NczarrArrayDtype *adt,
                            const char *dtype);

/* The "fill_value" of an object array (a JSON string; null or "" is the
 * empty string) fills its missing chunks. */
void nczarr_storage_object_fill (NczVariable *variable, const NczJson *fill_value);

/* How the chunks of @variable are stored; @pure: the dataset is written
 * as plain Zarr (for variables defined since it was opened). */
NczarrStored nczarr_storage_kind (NczVariable *variable, gboolean pure);
/* NULL, or why the values of @variable cannot be read or written
 * (naming the dtype or codec). */
const char *nczarr_storage_unsupported (NczVariable *variable);
/* The element width in the chunks of a fixed-width kind. */
gsize nczarr_storage_stored_size (NczVariable *variable, NczarrStored kind);

/* Rewrites, in a .zarray built for @variable, what its stored kind
 * changes: "dtype" ("|b1", "<f2", "|O", "<U<n>", or the unsupported
 * dtype as found), the object codec first in "filters", and an object
 * array's "fill_value" (a JSON string, or null). */
void nczarr_storage_fix_zarray (NczVariable *variable, gboolean pure, NczJson *zarray);

/* IEEE 754 half <-> single conversions (round to nearest even). */
float nczarr_half_to_float (guint16 h);
guint16 nczarr_float_to_half (float f);

G_END_DECLS
