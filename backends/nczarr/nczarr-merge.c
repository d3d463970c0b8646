/* nczarr-merge.c: one writer's metadata changes applied on top of what
 * other writers stored meanwhile
 *
 * A writer of an existing dataset does not store its view of the
 * metadata: that would undo what other writers stored since it opened
 * the dataset (the last to close would decide an unlimited dimension's
 * length and which attributes exist). It stores its changes instead:
 * the difference between the object as it built it at its previous sync
 * (or at open) and as it builds it now, applied to the object as stored
 * now. Member by member:
 *
 * - a member this writer did not change keeps the stored value;
 * - a member it added, changed or removed is set or removed (two writers
 *   changing one attribute: the later sync wins);
 * - objects inside are merged the same way (attribute types, group
 *   information);
 * - lengths only grow: an array's "shape" and a group's dimension lengths
 *   take the larger of this writer's and the stored value, element by
 *   element, so appends by several writers all stay visible, and the
 *   lists of a group's variables and subgroups take the union.
 *
 * .zmetadata is merged the same way, object by object.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "nczarr-private.h"

typedef enum {
  KIND_PLAIN,
  KIND_ZARRAY,
  KIND_GROUP_HOLDER,  /* .zgroup or .zattrs: may hold the group information */
  KIND_ZMETADATA,
  KIND_ZMETADATA_MAP,
  KIND_GROUP_INFO,
  KIND_DIMS,
  KIND_DIM,
  KIND_DIM_OBJECT,
  KIND_SHAPE,
  KIND_NAME_LIST,
  KIND_MAX,
} Kind;

static Kind
kind_of_key (const char *key)
{
  const char *slash = strrchr (key, '/');
  const char *last = slash != NULL ? slash + 1 : key;

  if (strcmp (last, ".zarray") == 0)
    return KIND_ZARRAY;
  if (strcmp (last, ".zgroup") == 0 || strcmp (last, ".zattrs") == 0)
    return KIND_GROUP_HOLDER;
  if (strcmp (last, NCZARR_CONSOLIDATED_KEY) == 0)
    return KIND_ZMETADATA;
  return KIND_PLAIN;
}

static Kind
kind_of_member (Kind parent, const char *name)
{
  switch (parent)
    {
    case KIND_ZARRAY:
      return strcmp (name, "shape") == 0 ? KIND_SHAPE : KIND_PLAIN;
    case KIND_GROUP_HOLDER:
      return g_ascii_strcasecmp (name, "_nczarr_group") == 0 ? KIND_GROUP_INFO : KIND_PLAIN;
    case KIND_ZMETADATA:
      return strcmp (name, "metadata") == 0 ? KIND_ZMETADATA_MAP : KIND_PLAIN;
    case KIND_ZMETADATA_MAP:
      return kind_of_key (name);
    case KIND_GROUP_INFO:
      if (strcmp (name, "dims") == 0 || strcmp (name, "dimensions") == 0)
        return KIND_DIMS;
      if (strcmp (name, "vars") == 0 || strcmp (name, "arrays") == 0 ||
          strcmp (name, "groups") == 0 || strcmp (name, NCZARR_UNLIMITED_KEY) == 0)
        return KIND_NAME_LIST;
      return KIND_PLAIN;
    case KIND_DIMS:
      return KIND_DIM;
    case KIND_DIM_OBJECT:
      return strcmp (name, "size") == 0 ? KIND_MAX : KIND_PLAIN;
    default:
      return KIND_PLAIN;
    }
}

static gboolean
get_count (const NczJson *node, guint64 *value)
{
  return node != NULL && ncz_json_get_kind (node) == NCZ_JSON_NUMBER &&
         ncz_json_get_uint64 (node, value);
}

static NczJson *
larger (NczJson *mine, NczJson *stored)
{
  guint64 a, b;

  if (get_count (mine, &a) && get_count (stored, &b) && b > a)
    return ncz_json_ref (stored);
  return ncz_json_ref (mine);
}

static NczJson *merge_value (Kind kind, NczJson *before, NczJson *after, NczJson *stored);

/* Applies the member changes @before → @after to a copy of @stored. */
static NczJson *
merge_object (Kind kind, NczJson *before, NczJson *after, NczJson *stored)
{
  NczJson *out = ncz_json_new_object ();

  for (gsize i = 0; i < ncz_json_object_get_size (stored); i++)
    ncz_json_object_set (out, ncz_json_object_get_key (stored, i),
                         ncz_json_ref (ncz_json_object_get_value (stored, i)));
  for (gsize i = 0; before != NULL && i < ncz_json_object_get_size (before); i++)
    {
      const char *name = ncz_json_object_get_key (before, i);
      if (ncz_json_object_get (after, name) == NULL)
        ncz_json_object_remove (out, name);   /* removed by this writer */
    }
  for (gsize i = 0; i < ncz_json_object_get_size (after); i++)
    {
      const char *name = ncz_json_object_get_key (after, i);
      NczJson *a = ncz_json_object_get_value (after, i);
      NczJson *b = before != NULL ? ncz_json_object_get (before, name) : NULL;
      NczJson *s = ncz_json_object_get (stored, name);

      if (b != NULL && ncz_json_equal (a, b))
        continue;   /* not this writer's change */
      if (s == NULL)
        ncz_json_object_set (out, name, ncz_json_ref (a));
      else
        ncz_json_object_set (out, name, merge_value (kind_of_member (kind, name), b, a, s));
    }
  return out;
}

static NczJson *
merge_shape (NczJson *after, NczJson *stored)
{
  gsize n = ncz_json_array_get_length (after);
  NczJson *out;

  if (ncz_json_get_kind (stored) != NCZ_JSON_ARRAY || ncz_json_array_get_length (stored) != n)
    return ncz_json_ref (after);
  out = ncz_json_new_array ();
  for (gsize i = 0; i < n; i++)
    ncz_json_array_append (out, larger (ncz_json_array_get (after, i),
                                        ncz_json_array_get (stored, i)));
  return out;
}

static gboolean
list_contains (NczJson *list, NczJson *value)
{
  for (gsize i = 0; list != NULL && i < ncz_json_array_get_length (list); i++)
    if (ncz_json_equal (ncz_json_array_get (list, i), value))
      return TRUE;
  return FALSE;
}

/* The stored names, then those this writer added. */
static NczJson *
merge_names (NczJson *before, NczJson *after, NczJson *stored)
{
  NczJson *out;

  if (ncz_json_get_kind (stored) != NCZ_JSON_ARRAY)
    return ncz_json_ref (after);
  out = ncz_json_new_array ();
  for (gsize i = 0; i < ncz_json_array_get_length (stored); i++)
    {
      NczJson *v = ncz_json_array_get (stored, i);
      /* a name this writer removed (a rename) goes */
      if (list_contains (before, v) && !list_contains (after, v))
        continue;
      ncz_json_array_append (out, ncz_json_ref (v));
    }
  for (gsize i = 0; i < ncz_json_array_get_length (after); i++)
    {
      NczJson *v = ncz_json_array_get (after, i);
      if (!list_contains (out, v))
        ncz_json_array_append (out, ncz_json_ref (v));
    }
  return out;
}

static NczJson *
merge_value (Kind kind, NczJson *before, NczJson *after, NczJson *stored)
{
  NczJsonKind ak = ncz_json_get_kind (after);
  NczJsonKind sk = ncz_json_get_kind (stored);

  switch (kind)
    {
    case KIND_SHAPE:
      if (ak == NCZ_JSON_ARRAY)
        return merge_shape (after, stored);
      break;
    case KIND_MAX:
      return larger (after, stored);
    case KIND_DIM:
      if (ak == NCZ_JSON_NUMBER)
        return larger (after, stored);
      if (ak == NCZ_JSON_OBJECT && sk == NCZ_JSON_OBJECT)
        return merge_object (KIND_DIM_OBJECT,
                             before != NULL && ncz_json_get_kind (before) == NCZ_JSON_OBJECT
                               ? before : NULL,
                             after, stored);
      break;
    case KIND_NAME_LIST:
      if (ak == NCZ_JSON_ARRAY)
        return merge_names (before != NULL && ncz_json_get_kind (before) == NCZ_JSON_ARRAY
                              ? before : NULL,
                            after, stored);
      break;
    default:
      break;
    }
  if (ak == NCZ_JSON_OBJECT && sk == NCZ_JSON_OBJECT)
    return merge_object (kind, before != NULL && ncz_json_get_kind (before) == NCZ_JSON_OBJECT
                                 ? before : NULL,
                         after, stored);
  return ncz_json_ref (after);
}

/* A .zarray both writers created: the same definition, but for its shape,
 * or a conflict. */
static gboolean
same_definition (NczJson *a, NczJson *b)
{
  gsize n = ncz_json_object_get_size (a);

  if (ncz_json_get_kind (b) != NCZ_JSON_OBJECT || ncz_json_object_get_size (b) != n)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      const char *name = ncz_json_object_get_key (a, i);
      NczJson *v = ncz_json_object_get (b, name);
      if (v == NULL)
        return FALSE;
      if (strcmp (name, "shape") != 0 && !ncz_json_equal (ncz_json_object_get_value (a, i), v))
        return FALSE;
    }
  return TRUE;
}

/**
 * nczarr_merge_metadata:
 * @key: the metadata object's key
 * @before: (nullable): the object as this writer built it at its
 *   previous sync or at open; %NULL if it did not exist
 * @after: the object as this writer builds it now
 * @stored: (nullable): the object as stored now; %NULL if missing
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the object to store, or %NULL with
 * %NCZ_STORAGE_ERROR_CONFLICT when both this writer and another created
 * the array at @key with different definitions.
 */
NczJson *
nczarr_merge_metadata (const char *key, NczJson *before, NczJson *after, NczJson *stored,
                       GError **error)
{
  Kind kind = kind_of_key (key);

  if (stored == NULL)
    return ncz_json_ref (after);
  if (before == NULL && kind == KIND_ZARRAY && !same_definition (after, stored))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                   "%s: another writer defined this array differently at the same time", key);
      return NULL;
    }
  if (ncz_json_get_kind (after) != NCZ_JSON_OBJECT || ncz_json_get_kind (stored) != NCZ_JSON_OBJECT)
    return ncz_json_ref (after);
  return merge_object (kind, before != NULL && ncz_json_get_kind (before) == NCZ_JSON_OBJECT
                               ? before : NULL,
                       after, stored);
}
