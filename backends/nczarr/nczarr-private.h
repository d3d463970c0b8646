/* nczarr-private.h: internals of the NCZarr / Zarr v2 format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz-module.h>
#include "ncz-nczarr-format.h"

G_BEGIN_DECLS

/* NCZarr extension version written in the superblock and _NCProperties. */
#define NCZARR_VERSION "2.0.0"

/* Key of the group information (in the layouts netcdf-c writes before
 * 4.9.3) listing the unlimited dimensions, whose lengths are written as
 * plain numbers there. */
#define NCZARR_UNLIMITED_KEY "ncz_unlimited"

/* Default prefix of the dimensions invented for arrays without names. */
#define NCZARR_DEFAULT_ANON_PREFIX "_Anonymous_Dim_"

/* How the NCZarr metadata of a store is laid out. */
typedef enum {
  NCZARR_LAYOUT_PURE,        /* plain Zarr v2, nothing NCZarr-specific */
  NCZARR_LAYOUT_V1,          /* .nczarr/.nczgroup/.nczarray/.nczattrs objects (4.8) */
  NCZARR_LAYOUT_KEYS_UPPER,  /* _NCZARR_* keys inside .zgroup/.zarray (4.9.0) */
  NCZARR_LAYOUT_KEYS,        /* _nczarr_* keys inside .zgroup/.zarray (4.9.1-4.9.2) */
  NCZARR_LAYOUT_ATTRIBUTES,  /* _nczarr_* as attributes in .zattrs (4.9.3+) */
} NczarrLayout;

const char *nczarr_layout_name (NczarrLayout layout);

/* ---- dtypes (nczarr-dtype.c) ---- */

typedef struct {
  NczDataType type;
  NczEndianness endianness;
  gsize stored_size;   /* bytes per element in the chunks */
  gboolean is_json;    /* "|J0": NCZarr's own JSON-valued attributes */
} NczarrDtype;

/* Parses a variable dtype. @pure_zarr: every "S" dtype is a string.
 * @netcdf_written: "U1" means char stored as one byte (netcdf-c 4.9.0). */
gboolean nczarr_dtype_parse (const char *dtype, gboolean pure_zarr,
                             gboolean netcdf_written, NczarrDtype *out);
/* Parses an entry of an attribute types map: dtypes, "|J0", and the
 * decimal nc_type codes of NCZarr V1. */
gboolean nczarr_attr_dtype_parse (const char *dtype, NczarrDtype *out);
/* The dtype written for a variable or attribute. @string_width is used
 * for strings. */
char *nczarr_dtype_for (NczDataType type, NczEndianness endianness, guint string_width);

/* Converts a JSON scalar (number, bool, numeric or NaN/Infinity string)
 * to @type, writing ncz_data_type_get_size(type) bytes in native order.
 * Returns FALSE if it is not representable. */
gboolean nczarr_json_to_value (const NczJson *node, NczDataType type, gpointer out);
/* The same under the Zarr rules for fill values and typed attributes:
 * integers only from JSON numbers holding an integer in the type's range,
 * floats from JSON numbers and the strings "NaN", "Infinity", "-Infinity",
 * char from a string of at most one byte. Returns NULL on success, else
 * why the value does not fit ("is not a JSON number", ...). */
const char *nczarr_json_to_typed_value (const NczJson *node, NczDataType type, gpointer out);
/* JSON for one native value of a numeric or char type. */
NczJson *nczarr_value_to_json (NczDataType type, gconstpointer value);
/* Shortest text that reads back as the float @value (a JSON number node). */
NczJson *nczarr_json_new_float (float value);

/* ---- attributes (nczarr-attrs.c) ---- */

gboolean nczarr_attr_name_is_reserved (const char *name);
/* Builds a model attribute from a JSON value and an optional types-map
 * dtype. Without a dtype (or with "|J0") the type is inferred and complex
 * values become text; a char dtype takes any value (the JSON convention).
 * A dtype that is not known, or a value that is not of the dtype (a
 * string for ">i4", 300 for "<i1"), is an NCZ_BACKEND_ERROR_BAD_METADATA
 * whose message names the value and the dtype. */
NczAttribute *nczarr_attr_from_json (const char *name, const NczJson *value,
                                     const char *dtype, GError **error);
/* JSON value of a model attribute (the JSON convention for char). */
NczJson *nczarr_attr_to_json (NczAttribute *attr);
/* Types-map dtype of a model attribute. */
char *nczarr_attr_dtype (NczAttribute *attr, guint default_string_width);

/* ---- per-variable state ---- */

typedef struct {
  char separator;          /* '.' or '/' */
  gboolean fortran_order;  /* chunks stored in F order */
  guint stored_width;      /* string element width in the chunks; 0 = model width */
  gboolean from_store;     /* read from an existing .zarray */
  gboolean zero_dim;       /* shape [] in the store */
} NczarrVarInfo;

NczarrVarInfo *nczarr_var_info_peek (NczVariable *variable);
NczarrVarInfo *nczarr_var_info_ensure (NczVariable *variable, char separator);

/* Store key of a variable or group ("" for the root group, "a/b" ...) */
char *nczarr_variable_key (NczVariable *variable);
char *nczarr_group_key (NczGroup *group);
char *nczarr_key_join (const char *prefix, const char *name);

/* ---- format internals shared by the read/write/chunk code ---- */

NczUrl *nczarr_format_peek_url (NczNczarrFormat *self);
NczStore *nczarr_format_peek_store (NczNczarrFormat *self);
/* The dataset's URL as given, for error messages ("(store)" without one). */
const char *nczarr_format_location (NczNczarrFormat *self);

typedef struct {
  NczNczarrFormat *format;
  NczDataset *dataset;
  NczStore *store;
  NczUrl *url;
  GCancellable *cancellable;
  NczarrLayout layout;
  gboolean pure;            /* read as plain Zarr */
  gboolean netcdf_written;  /* _NCProperties found in the root */
  gboolean root_implicit;   /* no .zgroup at the root, arrays or groups below */
  gboolean xarray;
  const char *anon_prefix;
  char *ncproperties;       /* as found, or NULL */
  GHashTable *dim_owner;    /* NczDimension* -> array key that defined it */
  /* consolidated metadata (.zmetadata): key -> NczJson object, or NULL
   * when absent, not asked for, malformed or stale */
  GHashTable *consolidated;
  gboolean use_consolidated;  /* look for .zmetadata */
  /* take .zmetadata as it is, without listing the groups to check it is
   * not stale (a remote store, where each listing is a round trip) */
  gboolean trust_consolidated;
  /* group key -> GStrv listing made while checking .zmetadata, used
   * once more when the group is loaded (one listing per group) */
  GHashTable *listings;
  /* metadata objects read ahead a level of the tree at a time
   * (nczarr_prefetch_tree): key -> GBytes, or the absent marker for a key
   * that holds no object; keys not in it are read when asked for */
  GHashTable *prefetched;
  gboolean read_ahead;      /* read the tree ahead (remote stores) */
  guint n_prefetch_rounds;  /* batches of requests sent, for tests */
} NczarrReader;

gboolean nczarr_read_dataset (NczarrReader *reader, GError **error);

/* Key of zarr-python's consolidated metadata at the root of a store. */
#define NCZARR_CONSOLIDATED_KEY ".zmetadata"

typedef struct {
  NczarrLayout layout;
  gboolean xarray;
  gboolean consolidated;  /* also write .zmetadata */
  /* JSON text in ASCII only, every other character a \u escape
   * (zarr-python before 2.14 reads nothing else; netcdf-c does not
   * decode the escapes) */
  gboolean ascii_json;
  const char *ncproperties;
  char default_separator;
} NczarrWriteOptions;

/* Appends (key, text) pairs to @out for every metadata object of the
 * model, children before their parents. */
void nczarr_build_metadata (NczDataset *dataset, const NczarrWriteOptions *options,
                            GPtrArray *keys, GPtrArray *texts);

GPtrArray *nczarr_chunk_read_many (NczNczarrFormat *self, NczVariable *variable,
                                   const guint64 *chunk_indices, guint n_chunks,
                                   GCancellable *cancellable, GError **error);
GBytes *nczarr_chunk_read (NczNczarrFormat *self, NczVariable *variable,
                           const guint64 *chunk_index, GCancellable *cancellable,
                           GError **error);
gboolean nczarr_chunk_write (NczNczarrFormat *self, NczVariable *variable,
                             const guint64 *chunk_index, GBytes *data,
                             GCancellable *cancellable, GError **error);
gboolean nczarr_chunk_write_many (NczNczarrFormat *self, NczVariable *variable,
                                  const guint64 *chunk_indices, guint n_chunks,
                                  GBytes * const *data, GCancellable *cancellable,
                                  GError **error);
char *nczarr_chunk_key (NczVariable *variable, const guint64 *chunk_index);
/* Stored size of each chunk (gint64, -1 when never written) */
GArray *nczarr_chunk_query_many (NczNczarrFormat *self, NczVariable *variable,
                                 const guint64 *chunk_indices, guint n_chunks,
                                 GCancellable *cancellable, GError **error);
gboolean nczarr_chunk_update (NczNczarrFormat *self, NczVariable *variable,
                              const guint64 *chunk_index, NczChunkUpdateFunc func,
                              gpointer user_data, gboolean shared, gint64 timeout_ms,
                              GCancellable *cancellable, GError **error);

/* Re-serialises a codec dict for writing: numeric strings become numbers,
 * shuffle's elementsize 0 becomes @element_size. */
char *nczarr_codec_json_normalize (const char *json, gsize element_size);

/* One writer's changes to a metadata object (@before → @after) applied to
 * the object as stored now (nczarr-merge.c). */
NczJson *nczarr_merge_metadata (const char *key, NczJson *before, NczJson *after,
                                NczJson *stored, GError **error);

/* Waits before retrying a conditional write that lost to another writer
 * (@attempt counts from 0): 1 ms plus a random part growing with the
 * attempts, up to 100 ms, so writers that collided spread out. */
static inline void
nczarr_conflict_backoff (guint attempt)
{
  g_usleep (1000 + g_random_int_range (0, 2000 * (gint) MIN (attempt + 1, 50)));
}

G_END_DECLS
