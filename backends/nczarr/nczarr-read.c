/* nczarr-read.c: loading NCZarr and Zarr v2 metadata into the model
 *
 * Every layout netcdf-c has written is read: NCZarr V1 (.nczarr,
 * .nczgroup, .nczarray, .nczattrs objects), _NCZARR_* keys (4.9.0),
 * _nczarr_* keys inside .zgroup/.zarray (4.9.1-4.9.2), _nczarr_*
 * attributes in .zattrs (4.9.3+), and plain Zarr v2 with or without the
 * XArray _ARRAY_DIMENSIONS convention.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "nczarr-dtype-private.h"

/* Largest number of elements of one array (exactly representable as a
 * double, as in JavaScript and zarr-python's JSON). */
#define NCZARR_MAX_ELEMENTS (G_GUINT64_CONSTANT (1) << 53)
/* Largest decoded chunk accepted. */
#define NCZARR_MAX_CHUNK_BYTES (G_GUINT64_CONSTANT (1) << 34)

static void
bad_metadata (GError **error, const char *key, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
bad_metadata (GError **error, const char *key, const char *format, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
               "%s: %s", key, msg);
}

/* ---- objects read ahead (nczarr_prefetch_tree) ---- */

static char absent_marker;
#define PREFETCH_ABSENT ((gpointer) &absent_marker)

static void
prefetched_value_free (gpointer value)
{
  if (value != PREFETCH_ABSENT)
    g_bytes_unref (value);
}

/* Whether @key was read ahead; then *@bytes is its object, or NULL when
 * the key holds none. */
static gboolean
prefetched_lookup (NczarrReader *r, const char *key, GBytes **bytes)
{
  gpointer value;

  if (r->prefetched == NULL ||
      !g_hash_table_lookup_extended (r->prefetched, key, NULL, &value))
    return FALSE;
  *bytes = value == PREFETCH_ABSENT ? NULL : g_bytes_ref (value);
  return TRUE;
}

/* Reads and parses a JSON object. Returns NULL without setting @error
 * when the object does not exist. */
static NczJson *
read_json (NczarrReader *r, const char *key, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(NczJson) node = NULL;
  gsize size = 0;
  const char *data;

  /* consolidated metadata checked by load_consolidated(): only objects
   * (an object it does not list does not exist). A .zarray is read from
   * the store all the same: zarr-python's resize and append rewrite it
   * (the shape) without consolidating again; except on a remote store,
   * where the consolidated metadata is taken as it is (one request). */
  if (r->consolidated != NULL &&
      (r->trust_consolidated || !g_str_has_suffix (key, ".zarray")))
    {
      NczJson *c = g_hash_table_lookup (r->consolidated, key);
      return c ? ncz_json_ref (c) : NULL;
    }
  if (prefetched_lookup (r, key, &bytes))
    {
      if (bytes == NULL)
        return NULL;
    }
  else
    {
      bytes = ncz_store_read (r->store, key, r->cancellable, &local);
      if (bytes == NULL)
        {
          if (g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            return NULL;
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", key);
          return NULL;
        }
    }
  data = g_bytes_get_data (bytes, &size);
  node = ncz_json_parse (data ? data : "", size, &local);
  if (node == NULL)
    {
      bad_metadata (error, key, "%s", local->message);
      return NULL;
    }
  if (ncz_json_get_kind (node) != NCZ_JSON_OBJECT)
    {
      bad_metadata (error, key, "the content is a JSON %s, not an object",
                    ncz_json_kind_name (ncz_json_get_kind (node)));
      return NULL;
    }
  return g_steal_pointer (&node);
}

static gboolean
key_exists (NczarrReader *r, const char *key, gboolean *exists, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GBytes) bytes = NULL;
  guint64 len;

  if (prefetched_lookup (r, key, &bytes))
    {
      *exists = bytes != NULL;
      return TRUE;
    }
  if (r->consolidated != NULL && g_str_has_prefix (g_strrstr (key, "/") ? g_strrstr (key, "/") + 1 : key, ".z"))
    {
      *exists = g_hash_table_contains (r->consolidated, key);
      return TRUE;
    }

  if (ncz_store_get_length (r->store, key, &len, r->cancellable, &local))
    {
      *exists = TRUE;
      return TRUE;
    }
  *exists = FALSE;
  if (g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    return TRUE;
  g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", key);
  return FALSE;
}

/* Lower- or upper-case NCZarr key of a metadata object. */
static NczJson *
nczarr_member (const NczJson *obj, const char *lower)
{
  NczJson *v;
  g_autofree char *upper = NULL;

  if (obj == NULL)
    return NULL;
  v = ncz_json_object_get (obj, lower);
  if (v)
    return v;
  upper = g_ascii_strup (lower, -1);
  return ncz_json_object_get (obj, upper);
}

/* "key: \"<member>\"", naming the NCZarr member @lower (or its upper
 * case form, whichever @obj has) of the object at @key in errors. */
static char *
member_name (const NczJson *obj, const char *lower)
{
  g_autofree char *upper = NULL;

  if (obj == NULL || ncz_json_object_get (obj, lower) != NULL)
    return g_strdup_printf ("\"%s\"", lower);
  upper = g_ascii_strup (lower, -1);
  return g_strdup_printf ("\"%s\"", upper);
}

static char *
member_where (const NczJson *obj, const char *key, const char *lower)
{
  g_autofree char *name = member_name (obj, lower);
  return g_strdup_printf ("%s: %s", key, name);
}

static gboolean
name_is_valid_segment (const char *name)
{
  if (name == NULL || *name == '\0' || g_str_equal (name, ".") || g_str_equal (name, ".."))
    return FALSE;
  if (strchr (name, '/') != NULL || !g_utf8_validate (name, -1, NULL))
    return FALSE;
  for (const char *p = name; *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return ncz_store_key_is_valid (name, FALSE, NULL);
}

static gboolean
check_zarr_format (const NczJson *obj, const char *key, gboolean required,
                   GError **error)
{
  const NczJson *zf = ncz_json_object_get (obj, "zarr_format");
  gint64 v = 0;

  if (zf == NULL)
    {
      if (!required)
        return TRUE;
      bad_metadata (error, key, "the key \"zarr_format\" is missing");
      return FALSE;
    }
  if (ncz_json_get_kind (zf) != NCZ_JSON_NUMBER || !ncz_json_get_int64 (zf, &v))
    {
      bad_metadata (error, key, "\"zarr_format\" is not an integer");
      return FALSE;
    }
  if (v != 2)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: \"zarr_format\" is %" G_GINT64_FORMAT ", only Zarr version 2 is supported",
                   key, v);
      return FALSE;
    }
  return TRUE;
}

/* Checks a "types" map: an object whose entries are strings naming
 * known attribute types. @key and @where (the JSON keys leading to the
 * map) name it in errors. */
static gboolean
check_types_map (const NczJson *types, const char *key, const char *where, GError **error)
{
  gsize n;

  if (ncz_json_get_kind (types) != NCZ_JSON_OBJECT)
    {
      bad_metadata (error, key, "%s is a JSON %s, not an object", where,
                    ncz_json_kind_name (ncz_json_get_kind (types)));
      return FALSE;
    }
  n = ncz_json_object_get_size (types);
  for (gsize i = 0; i < n; i++)
    {
      const char *name = ncz_json_object_get_key (types, i);
      const NczJson *t = ncz_json_object_get_value (types, i);
      NczarrDtype dt;

      if (ncz_json_get_kind (t) != NCZ_JSON_STRING)
        {
          bad_metadata (error, key, "%s: the type of \"%s\" is a JSON %s, not a string",
                        where, name, ncz_json_kind_name (ncz_json_get_kind (t)));
          return FALSE;
        }
      if (!nczarr_attr_dtype_parse (ncz_json_get_string (t, NULL), &dt))
        {
          bad_metadata (error, key, "%s: the type of \"%s\", '%s', is not a known attribute type",
                        where, name, ncz_json_get_string (t, NULL));
          return FALSE;
        }
    }
  return TRUE;
}

/* The "types" map of an object's attributes, from _nczarr_attr in
 * .zattrs or, for V1, from the .nczattrs object; NULL without an error
 * if there is none. A map that is not well formed is an error. *@where
 * is set to the object key and JSON key holding the map. */
static NczJson *
read_types_map (NczarrReader *r, const char *prefix, const char *zattrs_key,
                const NczJson *zattrs, char **where, GError **error)
{
  const char *info_name = "_nczarr_attr";
  NczJson *info = zattrs ? ncz_json_object_get (zattrs, info_name) : NULL;

  if (info == NULL && zattrs)
    info = ncz_json_object_get (zattrs, info_name = "_NCZARR_ATTR");
  if (info)
    {
      g_autofree char *w = g_strdup_printf ("\"%s\"", info_name);
      NczJson *types;

      if (ncz_json_get_kind (info) != NCZ_JSON_OBJECT)
        {
          bad_metadata (error, zattrs_key, "%s is a JSON %s, not an object", w,
                        ncz_json_kind_name (ncz_json_get_kind (info)));
          return NULL;
        }
      types = ncz_json_object_get (info, "types");
      if (types == NULL)
        return NULL;
      g_free (w);
      w = g_strdup_printf ("\"%s\": \"types\"", info_name);
      if (!check_types_map (types, zattrs_key, w, error))
        return NULL;
      *where = g_strdup_printf ("%s: %s", zattrs_key, w);
      return ncz_json_ref (types);
    }
  if (r->layout == NCZARR_LAYOUT_V1)
    {
      static const char *const names[] = { ".nczattrs", ".nczattr", ".nczvar" };
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *key = nczarr_key_join (prefix, names[i]);
          g_autoptr(GError) local = NULL;
          g_autoptr(NczJson) obj = read_json (r, key, &local);
          NczJson *types;
          if (local)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return NULL;
            }
          if (obj == NULL)
            continue;
          types = ncz_json_object_get (obj, "types");
          if (types == NULL)
            return NULL;
          if (!check_types_map (types, key, "\"types\"", error))
            return NULL;
          *where = g_strdup_printf ("%s: \"types\"", key);
          return ncz_json_ref (types);
        }
    }
  return NULL;
}

/* The types map of an object (see read_types_map). Read as plain Zarr, a
 * map that is not well formed is not used; otherwise it is an error. */
static gboolean
get_types_map (NczarrReader *r, const char *prefix, const char *zattrs_key,
               const NczJson *zattrs, NczJson **types, char **where, GError **error)
{
  g_autoptr(GError) local = NULL;

  *types = read_types_map (r, prefix, zattrs_key, zattrs, where, &local);
  if (local == NULL)
    return TRUE;
  if (r->pure)
    {
      g_debug ("ignoring the types map: %s", local->message);
      return TRUE;
    }
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

static const char *
types_lookup (const NczJson *types, const char *name)
{
  NczJson *t;
  if (types == NULL)
    return NULL;
  t = ncz_json_object_get (types, name);
  if (t && ncz_json_get_kind (t) == NCZ_JSON_STRING)
    return ncz_json_get_string (t, NULL);
  return NULL;
}

typedef gboolean (*SetAttributeFunc) (gpointer object, NczAttribute *attr, GError **error);

static gboolean
load_attributes (NczarrReader *r, const char *zattrs_key, const NczJson *zattrs,
                 const NczJson *types, const char *types_where, gpointer object,
                 SetAttributeFunc set, gboolean is_variable, GError **error)
{
  gsize n;

  if (zattrs == NULL)
    return TRUE;
  n = ncz_json_object_get_size (zattrs);
  for (gsize i = 0; i < n; i++)
    {
      const char *name = ncz_json_object_get_key (zattrs, i);
      const NczJson *value = ncz_json_object_get_value (zattrs, i);
      const char *dtype;
      g_autoptr(NczAttribute) attr = NULL;
      g_autoptr(GError) local = NULL;

      if (nczarr_attr_name_is_reserved (name))
        continue;
      if (*name == '\0' || strchr (name, '/') != NULL || !g_utf8_validate (name, -1, NULL))
        {
          /* not a netCDF name: the attribute cannot be shown, the rest can */
          g_debug ("%s: skipping attribute with invalid name \"%s\"", zattrs_key, name);
          continue;
        }
      if (is_variable && g_str_equal (name, "_FillValue"))
        continue;
      dtype = types_lookup (types, name);
      attr = nczarr_attr_from_json (name, value, dtype, &local);
      if (attr == NULL)
        {
          if (dtype != NULL && g_error_matches (local, NCZ_BACKEND_ERROR,
                                                NCZ_BACKEND_ERROR_BAD_METADATA))
            {
              /* the value contradicts its type: never reinterpret it */
              bad_metadata (error, zattrs_key, "\"%s\": %s (%s)", name, local->message,
                            types_where ? types_where : "types map");
              return FALSE;
            }
          g_debug ("%s: skipping attribute \"%s\": %s", zattrs_key, name,
                   local ? local->message : "cannot be converted");
          continue;
        }
      if (!set (object, attr, &local))
        {
          g_debug ("%s: skipping attribute \"%s\": %s", zattrs_key, name, local->message);
          continue;
        }
    }
  return TRUE;
}

static gboolean
set_group_attribute (gpointer object, NczAttribute *attr, GError **error)
{
  return ncz_group_set_attribute (object, attr, error);
}

static gboolean
set_variable_attribute (gpointer object, NczAttribute *attr, GError **error)
{
  return ncz_variable_set_attribute (object, attr, error);
}

/* ---- dimensions ---- */

/* Whether @name is in @unlimited, the NCZARR_UNLIMITED_KEY list of a
 * group (checked by the caller to hold only strings). */
static gboolean
listed_unlimited (const NczJson *unlimited, const char *name)
{
  if (unlimited == NULL)
    return FALSE;
  for (gsize i = 0; i < ncz_json_array_get_length (unlimited); i++)
    if (g_str_equal (ncz_json_get_string (ncz_json_array_get (unlimited, i), NULL), name))
      return TRUE;
  return FALSE;
}

static gboolean
parse_dims (NczarrReader *r, NczGroup *group, const char *info_key,
            const char *dims_key, const NczJson *dims, const NczJson *unlimited_list,
            GError **error)
{
  gsize n;

  if (unlimited_list != NULL && ncz_json_get_kind (unlimited_list) != NCZ_JSON_NULL)
    {
      if (ncz_json_get_kind (unlimited_list) != NCZ_JSON_ARRAY)
        {
          bad_metadata (error, info_key, "\"%s\" is a JSON %s, not an array",
                        NCZARR_UNLIMITED_KEY, ncz_json_kind_name (ncz_json_get_kind (unlimited_list)));
          return FALSE;
        }
      for (gsize i = 0; i < ncz_json_array_get_length (unlimited_list); i++)
        {
          const NczJson *u = ncz_json_array_get (unlimited_list, i);
          const char *uname = ncz_json_get_kind (u) == NCZ_JSON_STRING
                                ? ncz_json_get_string (u, NULL) : NULL;
          if (uname == NULL || dims == NULL || ncz_json_get_kind (dims) != NCZ_JSON_OBJECT ||
              ncz_json_object_get (dims, uname) == NULL)
            {
              g_autofree char *t = ncz_json_to_string (u, FALSE);
              bad_metadata (error, info_key, "\"%s\": %s is not a dimension of \"%s\"",
                            NCZARR_UNLIMITED_KEY, t, dims_key);
              return FALSE;
            }
        }
    }
  else
    unlimited_list = NULL;
  if (dims == NULL || ncz_json_get_kind (dims) == NCZ_JSON_NULL)
    return TRUE;
  if (ncz_json_get_kind (dims) != NCZ_JSON_OBJECT)
    {
      bad_metadata (error, info_key, "\"%s\" is a JSON %s, not an object", dims_key,
                    ncz_json_kind_name (ncz_json_get_kind (dims)));
      return FALSE;
    }
  n = ncz_json_object_get_size (dims);
  for (gsize i = 0; i < n; i++)
    {
      const char *name = ncz_json_object_get_key (dims, i);
      const NczJson *v = ncz_json_object_get_value (dims, i);
      guint64 len = 0;
      gboolean unlimited = FALSE;
      g_autoptr(GError) local = NULL;

      if (ncz_json_get_kind (v) == NCZ_JSON_OBJECT)
        {
          const NczJson *size = ncz_json_object_get (v, "size");
          const NczJson *unlim = ncz_json_object_get (v, "unlimited");
          if (size == NULL || ncz_json_get_kind (size) != NCZ_JSON_NUMBER ||
              !ncz_json_get_uint64 (size, &len))
            {
              bad_metadata (error, info_key,
                            "\"%s\": dimension \"%s\": \"size\" is not a non-negative integer", dims_key, name);
              return FALSE;
            }
          if (unlim)
            {
              gint64 u = 0;
              if (ncz_json_get_kind (unlim) == NCZ_JSON_BOOLEAN)
                unlimited = ncz_json_get_boolean (unlim);
              else if (ncz_json_get_kind (unlim) == NCZ_JSON_NUMBER && ncz_json_get_int64 (unlim, &u))
                unlimited = u != 0;
              else
                {
                  bad_metadata (error, info_key,
                                "\"%s\": dimension \"%s\": \"unlimited\" is not 0 or 1", dims_key, name);
                  return FALSE;
                }
            }
        }
      else if (ncz_json_get_kind (v) != NCZ_JSON_NUMBER || !ncz_json_get_uint64 (v, &len))
        {
          bad_metadata (error, info_key,
                        "\"%s\": the length of dimension \"%s\" is not a non-negative integer",
                        dims_key, name);
          return FALSE;
        }
      else
        unlimited = listed_unlimited (unlimited_list, name);
      if (len > NCZARR_MAX_ELEMENTS)
        {
          bad_metadata (error, info_key, "\"%s\": dimension \"%s\" is too long (%" G_GUINT64_FORMAT ")",
                        dims_key, name, len);
          return FALSE;
        }
      if (ncz_group_add_dimension (group, name, len, unlimited, &local) == NULL)
        {
          bad_metadata (error, info_key, "\"%s\": dimension \"%s\": %s", dims_key, name, local->message);
          return FALSE;
        }
    }
  return TRUE;
}

/* Root-group dimension for an unnamed axis of length @len. */
static NczDimension *
anonymous_dim (NczarrReader *r, guint64 len, const char *akey, const char *zarray_key,
               GError **error)
{
  NczGroup *root = ncz_dataset_get_root_group (r->dataset);
  g_autofree char *name = g_strdup_printf ("%s%" G_GUINT64_FORMAT, r->anon_prefix, len);
  NczDimension *d = ncz_group_get_dimension (root, name);
  g_autoptr(GError) local = NULL;

  if (d)
    {
      if (ncz_dimension_get_length (d) != len)
        {
          const char *other = g_hash_table_lookup (r->dim_owner, d);
          bad_metadata (error, zarray_key,
                        "\"shape\": dimension \"%s\" of length %" G_GUINT64_FORMAT
                        " conflicts with the length %" G_GUINT64_FORMAT " given by \"%s\"",
                        name, len, ncz_dimension_get_length (d), other ? other : "?");
          return NULL;
        }
      return d;
    }
  d = ncz_group_add_dimension (root, name, len, FALSE, &local);
  if (d == NULL)
    {
      bad_metadata (error, zarray_key, "\"shape\": %s", local->message);
      return NULL;
    }
  g_hash_table_insert (r->dim_owner, d, g_strdup (akey));
  return d;
}

/* A dimension named by _ARRAY_DIMENSIONS of an array in @group. */
static NczDimension *
xarray_dim (NczarrReader *r, NczGroup *group, const char *name, guint64 len,
            const char *akey, GError **error)
{
  NczGroup *root = ncz_dataset_get_root_group (r->dataset);
  NczDimension *d = ncz_group_lookup_dimension (group, name);
  g_autoptr(GError) local = NULL;
  NczGroup *where;

  if (d && ncz_dimension_get_length (d) == len)
    return d;
  if (d && ncz_dimension_is_unlimited (d))
    {
      /* arrays along an unlimited dimension may have different extents */
      ncz_dimension_grow (d, len);
      return d;
    }
  if (d && ncz_dimension_get_group (d) == group)
    {
      const char *other = g_hash_table_lookup (r->dim_owner, d);
      if (other != NULL)
        g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                     "%s/.zattrs: \"_ARRAY_DIMENSIONS\" gives dimension \"%s\" the length %"
                     G_GUINT64_FORMAT ", but array \"%s\" gives it the length %" G_GUINT64_FORMAT,
                     akey, name, len, other, ncz_dimension_get_length (d));
      else
        g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                     "%s/.zattrs: \"_ARRAY_DIMENSIONS\" gives dimension \"%s\" the length %"
                     G_GUINT64_FORMAT ", but the group defines it with length %" G_GUINT64_FORMAT,
                     akey, name, len, ncz_dimension_get_length (d));
      return NULL;
    }
  /* New names go to the root group; a name already used with another
   * length by an enclosing group is defined in the array's own group. */
  where = d ? group : root;
  d = ncz_group_add_dimension (where, name, len, FALSE, &local);
  if (d == NULL)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                   "%s/.zattrs: \"_ARRAY_DIMENSIONS\": %s", akey, local->message);
      return NULL;
    }
  g_hash_table_insert (r->dim_owner, d, g_strdup (akey));
  return d;
}

/* ---- arrays ---- */

static gboolean
parse_uint_list (const NczJson *node, const char *key, const char *what,
                 GArray *out, GError **error)
{
  gsize n;

  if (node == NULL)
    {
      bad_metadata (error, key, "the key \"%s\" is missing", what);
      return FALSE;
    }
  if (ncz_json_get_kind (node) != NCZ_JSON_ARRAY)
    {
      bad_metadata (error, key, "\"%s\" is a JSON %s, not an array", what,
                    ncz_json_kind_name (ncz_json_get_kind (node)));
      return FALSE;
    }
  n = ncz_json_array_get_length (node);
  if (n > 1024)
    {
      bad_metadata (error, key, "\"%s\" has %" G_GSIZE_FORMAT " entries, too many dimensions",
                    what, n);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    {
      const NczJson *e = ncz_json_array_get (node, i);
      guint64 v = 0;
      if (ncz_json_get_kind (e) != NCZ_JSON_NUMBER || !ncz_json_get_uint64 (e, &v))
        {
          g_autofree char *t = ncz_json_to_string (e, FALSE);
          bad_metadata (error, key, "\"%s\"[%" G_GSIZE_FORMAT "] is %s, not a non-negative integer",
                        what, i, t);
          return FALSE;
        }
      g_array_append_val (out, v);
    }
  return TRUE;
}

static GPtrArray *
parse_filters (NczarrReader *r, const char *key, const NczJson *zarray, GError **error)
{
  g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  const NczJson *filters = ncz_json_object_get (zarray, "filters");
  const NczJson *compressor = ncz_json_object_get (zarray, "compressor");
  g_autoptr(GPtrArray) dicts = g_ptr_array_new ();
  g_autoptr(GPtrArray) where = g_ptr_array_new ();

  if (filters && ncz_json_get_kind (filters) != NCZ_JSON_NULL)
    {
      gsize n;
      if (ncz_json_get_kind (filters) != NCZ_JSON_ARRAY)
        {
          bad_metadata (error, key, "\"filters\" is a JSON %s, not an array or null",
                        ncz_json_kind_name (ncz_json_get_kind (filters)));
          return NULL;
        }
      n = ncz_json_array_get_length (filters);
      for (gsize i = 0; i < n; i++)
        {
          g_ptr_array_add (dicts, ncz_json_array_get (filters, i));
          g_ptr_array_add (where, "filters");
        }
    }
  if (compressor && ncz_json_get_kind (compressor) != NCZ_JSON_NULL)
    {
      g_ptr_array_add (dicts, (gpointer) compressor);
      g_ptr_array_add (where, "compressor");
    }

  for (guint i = 0; i < dicts->len; i++)
    {
      const NczJson *dict = g_ptr_array_index (dicts, i);
      const char *jkey = g_ptr_array_index (where, i);
      const NczJson *id;
      const char *codec_id;
      g_autofree char *json = NULL;
      NczCodec *codec;
      NczFilterSpec *spec;

      if (ncz_json_get_kind (dict) != NCZ_JSON_OBJECT)
        {
          bad_metadata (error, key, "\"%s\" holds a JSON %s, not a codec object", jkey,
                        ncz_json_kind_name (ncz_json_get_kind (dict)));
          return NULL;
        }
      id = ncz_json_object_get (dict, "id");
      if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING ||
          *(codec_id = ncz_json_get_string (id, NULL)) == '\0')
        {
          bad_metadata (error, key, "a codec in \"%s\" has no string \"id\"", jkey);
          return NULL;
        }
      json = ncz_json_to_string (dict, FALSE);
      codec = ncz_registry_lookup_codec (ncz_registry_get_default (), codec_id, NULL);
      spec = ncz_filter_spec_new (codec_id, codec ? ncz_codec_get_filter_id (codec) : 0, json);
      if (codec)
        {
          GArray *params = NULL;
          g_autoptr(GError) local = NULL;
          if (ncz_codec_params_from_json_text (codec, json, &params, &local))
            {
              if (spec->visible)
                g_array_unref (spec->visible);
              spec->visible = params;
            }
          else
            g_debug ("%s: codec \"%s\": %s", key, codec_id, local ? local->message : "bad parameters");
          spec->codec = codec;
        }
      g_ptr_array_add (specs, spec);
    }
  return g_steal_pointer (&specs);
}

/* Whether @fill (as read) is netcdf-c's default fill for @type, allowing
 * for the six significant digits netcdf-c prints floats with. */
static gboolean
is_default_fill (NczDataType type, GBytes *fill, gboolean netcdf_written)
{
  g_autoptr(GBytes) def = ncz_data_type_get_default_fill (type);

  if (def == NULL)
    return FALSE;
  if (g_bytes_equal (def, fill))
    return TRUE;
  if (netcdf_written && (type == NCZ_DATA_TYPE_FLOAT || type == NCZ_DATA_TYPE_DOUBLE))
    {
      double a, b;
      char ta[G_ASCII_DTOSTR_BUF_SIZE], tb[G_ASCII_DTOSTR_BUF_SIZE];
      if (type == NCZ_DATA_TYPE_FLOAT)
        {
          float fa, fb;
          memcpy (&fa, g_bytes_get_data (def, NULL), sizeof fa);
          memcpy (&fb, g_bytes_get_data (fill, NULL), sizeof fb);
          a = fa;
          b = fb;
        }
      else
        {
          memcpy (&a, g_bytes_get_data (def, NULL), sizeof a);
          memcpy (&b, g_bytes_get_data (fill, NULL), sizeof b);
        }
      g_ascii_formatd (ta, sizeof ta, "%.6g", a);
      g_ascii_formatd (tb, sizeof tb, "%.6g", b);
      return g_str_equal (ta, tb);
    }
  return FALSE;
}

static gboolean
is_base64 (const char *s, gsize len)
{
  gsize pad = 0;

  if (len == 0 || len % 4 != 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = s[i];
      if (c == '=')
        pad++;
      else if (pad > 0 || !(g_ascii_isalnum (c) || c == '+' || c == '/'))
        return FALSE;
    }
  return pad <= 2;
}

/* The fill value of a char array: Zarr stores "S" fill values
 * base64-encoded; netcdf-c writes the character itself ("" for NUL).
 * Returns NULL or why @node is not a char fill value. */
static const char *
char_fill (const NczJson *node, guint8 *out)
{
  gsize len = 0;
  const char *s;

  if (ncz_json_get_kind (node) != NCZ_JSON_STRING)
    return "is not a JSON string";
  s = ncz_json_get_string (node, &len);
  if (len <= 1)
    {
      *out = len ? (guint8) s[0] : 0;
      return NULL;
    }
  if (is_base64 (s, len))
    {
      gsize dlen = 0;
      g_autofree guchar *dec = g_base64_decode (s, &dlen);
      if (dec && dlen == 1)
        {
          *out = dec[0];
          return NULL;
        }
    }
  return "is neither one character nor the base64 encoding of one byte";
}

/* Reads @node, the fill value of an array of @type, into @buf; NULL or
 * why it is not a value of the type. */
static const char *
fill_from_json (const NczJson *node, NczDataType type, guint8 *buf)
{
  if (type == NCZ_DATA_TYPE_CHAR)
    return char_fill (node, buf);
  return nczarr_json_to_typed_value (node, type, buf);
}

static gboolean
apply_fill (NczarrReader *r, NczVariable *var, const char *akey, const char *dtype,
            NczDataType type, const NczJson *zarray, const NczJson *zattrs,
            const NczJson *types, GError **error)
{
  const NczJson *fill_json = ncz_json_object_get (zarray, "fill_value");
  const NczJson *attr_fill = zattrs ? ncz_json_object_get (zattrs, "_FillValue") : NULL;
  g_autofree char *zarray_key = nczarr_key_join (akey, ".zarray");
  g_autofree char *zattrs_key = nczarr_key_join (akey, ".zattrs");
  gsize tsize = ncz_data_type_get_size (type);
  guint8 buf[16] = { 0 };
  guint8 abuf[16] = { 0 };
  g_autoptr(GError) local = NULL;
  gboolean no_fill = fill_json != NULL && ncz_json_get_kind (fill_json) == NCZ_JSON_NULL;
  /* Pure Zarr: "fill_value" is the _FillValue only of arrays that carry
   * xarray's _ARRAY_DIMENSIONS, which xarray alone opens and masks with
   * it; for any other array it only fills unwritten chunks, as
   * zarr-python and netcdf-c show it (docs/fill-values.md). */
  gboolean fill_is_attr = r->pure && zattrs != NULL &&
                          ncz_json_object_get (zattrs, "_ARRAY_DIMENSIONS") != NULL;

  /* "fill_value" must be a value of the dtype (Zarr v2), whatever
   * _FillValue says */
  if (fill_json && !no_fill)
    {
      const char *why;
      if (type == NCZ_DATA_TYPE_STRING)
        why = ncz_json_get_kind (fill_json) == NCZ_JSON_STRING ? NULL : "is not a JSON string";
      else
        why = fill_from_json (fill_json, type, buf);
      if (why != NULL)
        {
          g_autofree char *t = ncz_json_to_string (fill_json, FALSE);
          bad_metadata (error, zarray_key, "\"fill_value\" %s %s, but \"dtype\" is '%s'",
                        t, why, dtype);
          return FALSE;
        }
    }

  if (type == NCZ_DATA_TYPE_STRING)
    {
      const NczJson *f = attr_fill;
      g_autoptr(NczAttribute) a = NULL;

      /* pure Zarr: a non-empty fill_value of an xarray array is the
       * _FillValue, as for numbers */
      if (f == NULL && fill_is_attr && fill_json && !no_fill &&
          ncz_json_get_string (fill_json, NULL)[0] != '\0')
        f = fill_json;
      if (f && ncz_json_get_kind (f) == NCZ_JSON_STRING)
        {
          const char *values[] = { ncz_json_get_string (f, NULL), NULL };
          a = ncz_attribute_new_strings ("_FillValue", values, 1);
        }
      else if (f)
        a = nczarr_attr_from_json ("_FillValue", f, types_lookup (types, "_FillValue"), NULL);
      if (a && !ncz_variable_set_attribute (var, a, &local))
        {
          bad_metadata (error, attr_fill ? zattrs_key : zarray_key, "\"_FillValue\": %s",
                        local->message);
          return FALSE;
        }
    }
  else if (attr_fill)
    {
      const char *why = fill_from_json (attr_fill, type, abuf);
      g_autoptr(GBytes) b = NULL;

      if (why != NULL)
        {
          g_autofree char *t = ncz_json_to_string (attr_fill, FALSE);
          bad_metadata (error, zattrs_key, "\"_FillValue\" %s %s, but the \"dtype\" of the "
                        "array is '%s'", t, why, dtype);
          return FALSE;
        }
      b = g_bytes_new (abuf, tsize);
      if (!ncz_variable_set_fill_value (var, b, &local))
        {
          bad_metadata (error, zattrs_key, "\"_FillValue\": %s", local->message);
          return FALSE;
        }
    }
  else if (fill_json && !no_fill)
    {
      g_autoptr(GBytes) b = g_bytes_new (buf, tsize);
      gboolean is_default = is_default_fill (type, b, r->netcdf_written);

      if (fill_is_attr && !(is_default && r->netcdf_written))
        {
          /* Pure Zarr with _ARRAY_DIMENSIONS: fill_value is the
           * _FillValue, as xarray reads it (it writes no _FillValue
           * attribute), so that missing values stay missing. Only
           * netCDF's default fill written by netcdf-c or Ncz stays
           * implicit. */
          if (!ncz_variable_set_fill_value (var, b, &local))
            {
              bad_metadata (error, zarray_key, "\"fill_value\": %s", local->message);
              return FALSE;
            }
        }
      /* NCZarr, and pure Zarr arrays without _ARRAY_DIMENSIONS: a
       * fill_value without a _FillValue attribute fills unwritten
       * elements but is not an attribute of the variable (netcdf-c and
       * zarr-python show none either). */
      else if (!is_default)
        ncz_variable_set_storage_fill_value (var, b);
    }
  if (no_fill && !ncz_variable_set_no_fill (var, TRUE, &local))
    {
      bad_metadata (error, zarray_key, "\"fill_value\" null: %s", local->message);
      return FALSE;
    }
  return TRUE;
}

/* _FillValue keeps the place it has in .zattrs among the attributes */
static void
keep_fill_value_place (NczVariable *var, const NczJson *zattrs)
{
  guint before = 0;

  if (zattrs == NULL || ncz_variable_get_attribute (var, "_FillValue") == NULL)
    return;
  for (gsize i = 0; i < ncz_json_object_get_size (zattrs); i++)
    {
      const char *name = ncz_json_object_get_key (zattrs, i);
      if (g_str_equal (name, "_FillValue"))
        {
          ncz_variable_move_attribute (var, "_FillValue", before);
          return;
        }
      if (ncz_variable_get_attribute (var, name) != NULL)
        before++;
    }
}

static gboolean
read_variable (NczarrReader *r, NczGroup *group, const char *gkey,
               const char *name, const char *listed_in, const char *listed_under,
               GError **error)
{
  g_autofree char *akey = nczarr_key_join (gkey, name);
  g_autofree char *zarray_key = nczarr_key_join (akey, ".zarray");
  g_autofree char *zattrs_key = nczarr_key_join (akey, ".zattrs");
  g_autoptr(NczJson) zarray = NULL;
  g_autoptr(NczJson) zattrs = NULL;
  g_autoptr(NczJson) types = NULL;
  g_autofree char *types_where = NULL;
  g_autofree char *info_where = NULL;
  g_autoptr(NczJson) v1info = NULL;
  g_autoptr(GArray) shape = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) chunks = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GPtrArray) dims = g_ptr_array_new ();
  g_autoptr(GPtrArray) filters = NULL;
  g_autoptr(GError) local = NULL;
  const NczJson *node;
  const NczJson *info = NULL;
  g_auto(NczarrArrayDtype) adt = { 0 };
  NczarrDtype dt;
  const char *dtype;
  char separator = '.';
  gboolean fortran = FALSE;
  gboolean scalar = FALSE, zero_dim = FALSE;
  guint64 n_elements = 1, chunk_elements = 1;
  NczVariable *var;
  NczarrVarInfo *vinfo;

  zarray = read_json (r, zarray_key, error);
  if (zarray == NULL)
    {
      if (error && *error)
        return FALSE;
      if (listed_under)
        bad_metadata (error, zarray_key, "array \"%s\" listed in %s does not exist (%s)",
                      name, listed_in, listed_under);
      else
        bad_metadata (error, zarray_key, "array \"%s\" listed in %s does not exist",
                      name, listed_in);
      return FALSE;
    }
  zattrs = read_json (r, zattrs_key, error);
  if (zattrs == NULL && error && *error)
    return FALSE;

  if (!check_zarr_format (zarray, zarray_key, TRUE, error))
    return FALSE;

  /* shape and chunks */
  if (!parse_uint_list (ncz_json_object_get (zarray, "shape"), zarray_key, "shape", shape, error))
    return FALSE;
  node = ncz_json_object_get (zarray, "chunks");
  if (shape->len == 0 && (node == NULL || ncz_json_get_kind (node) == NCZ_JSON_NULL))
    ;
  else if (!parse_uint_list (node, zarray_key, "chunks", chunks, error))
    return FALSE;
  if (chunks->len != shape->len)
    {
      bad_metadata (error, zarray_key, "\"chunks\" has %u entries but \"shape\" has %u",
                    chunks->len, shape->len);
      return FALSE;
    }
  for (guint i = 0; i < shape->len; i++)
    {
      guint64 s = g_array_index (shape, guint64, i);
      guint64 c = g_array_index (chunks, guint64, i);
      if (c == 0)
        {
          bad_metadata (error, zarray_key, "\"chunks\"[%u] is 0", i);
          return FALSE;
        }
      if (s > NCZARR_MAX_ELEMENTS || (s > 0 && n_elements > NCZARR_MAX_ELEMENTS / s))
        {
          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                       "%s: \"shape\" describes more than 2^53 elements", zarray_key);
          return FALSE;
        }
      n_elements *= s;
      if (c > NCZARR_MAX_CHUNK_BYTES || chunk_elements > NCZARR_MAX_CHUNK_BYTES / c)
        {
          bad_metadata (error, zarray_key, "\"chunks\" describes a chunk that is too large");
          return FALSE;
        }
      chunk_elements *= c;
    }

  /* dtype */
  node = ncz_json_object_get (zarray, "dtype");
  if (node == NULL)
    {
      bad_metadata (error, zarray_key, "the key \"dtype\" is missing");
      return FALSE;
    }
  if (ncz_json_get_kind (node) != NCZ_JSON_STRING)
    {
      bad_metadata (error, zarray_key, "\"dtype\" is a JSON %s, not a string",
                    ncz_json_kind_name (ncz_json_get_kind (node)));
      return FALSE;
    }
  dtype = ncz_json_get_string (node, NULL);
  /* a dtype that is not supported does not fail the open: the array is
   * shown and reading it fails (nczarr-dtype.c) */
  nczarr_array_dtype_parse (dtype, r->pure, r->netcdf_written, &adt);
  dt = adt.dt;
  if (chunk_elements > NCZARR_MAX_CHUNK_BYTES / dt.stored_size)
    {
      bad_metadata (error, zarray_key, "\"chunks\" describes a chunk that is too large");
      return FALSE;
    }

  /* order and dimension_separator */
  node = ncz_json_object_get (zarray, "order");
  if (node && ncz_json_get_kind (node) != NCZ_JSON_NULL)
    {
      const char *o = ncz_json_get_kind (node) == NCZ_JSON_STRING ? ncz_json_get_string (node, NULL) : "";
      if (g_str_equal (o, "F"))
        fortran = TRUE;
      else if (!g_str_equal (o, "C"))
        {
          bad_metadata (error, zarray_key, "\"order\" must be \"C\" or \"F\"");
          return FALSE;
        }
    }
  node = ncz_json_object_get (zarray, "dimension_separator");
  if (node && ncz_json_get_kind (node) != NCZ_JSON_NULL)
    {
      const char *s = ncz_json_get_kind (node) == NCZ_JSON_STRING ? ncz_json_get_string (node, NULL) : "";
      if (g_str_equal (s, "/"))
        separator = '/';
      else if (!g_str_equal (s, "."))
        {
          bad_metadata (error, zarray_key, "\"dimension_separator\" must be \".\" or \"/\"");
          return FALSE;
        }
    }

  filters = parse_filters (r, zarray_key, zarray, error);
  if (filters == NULL)
    return FALSE;
  nczarr_array_dtype_take_object_codec (&adt, filters);

  /* NCZarr array information */
  if (!r->pure)
    {
      info = nczarr_member (zarray, "_nczarr_array");
      info_where = member_where (zarray, zarray_key, "_nczarr_array");
      if (info == NULL)
        {
          info = nczarr_member (zattrs, "_nczarr_array");
          g_free (info_where);
          info_where = member_where (zattrs, zattrs_key, "_nczarr_array");
        }
      if (info == NULL && r->layout == NCZARR_LAYOUT_V1)
        {
          g_free (info_where);
          info_where = nczarr_key_join (akey, ".nczarray");
          v1info = read_json (r, info_where, error);
          if (v1info == NULL && error && *error)
            return FALSE;
          info = v1info;
        }
      if (info && ncz_json_get_kind (info) != NCZ_JSON_OBJECT)
        {
          bad_metadata (error, info_where, "is a JSON %s, not an object",
                        ncz_json_kind_name (ncz_json_get_kind (info)));
          return FALSE;
        }
    }
  /* plain Zarr too: a types map left by NCZarr still types the attributes */
  if (!get_types_map (r, akey, zattrs_key, zattrs, &types, &types_where, error))
    return FALSE;

  if (shape->len == 0)
    zero_dim = TRUE;
  else if (info)
    {
      const NczJson *refs = ncz_json_object_get (info, "dimension_references");
      const NczJson *storage = ncz_json_object_get (info, "storage");
      const NczJson *sflag = ncz_json_object_get (info, "scalar");
      const char *refs_key = "dimension_references";
      gsize nrefs;

      if (refs == NULL)
        {
          refs = ncz_json_object_get (info, "dimrefs");
          refs_key = "dimrefs";
        }
      if (storage && ncz_json_get_kind (storage) == NCZ_JSON_STRING &&
          g_str_equal (ncz_json_get_string (storage, NULL), "scalar"))
        scalar = TRUE;
      if (sflag)
        {
          gint64 sv = 0;
          if (ncz_json_get_kind (sflag) == NCZ_JSON_BOOLEAN)
            scalar = scalar || ncz_json_get_boolean (sflag);
          else if (ncz_json_get_kind (sflag) == NCZ_JSON_NUMBER && ncz_json_get_int64 (sflag, &sv))
            scalar = scalar || sv != 0;
        }
      if (refs != NULL && ncz_json_get_kind (refs) != NCZ_JSON_ARRAY)
        {
          bad_metadata (error, info_where, "\"%s\" is not a JSON array", refs_key);
          return FALSE;
        }
      nrefs = refs ? ncz_json_array_get_length (refs) : 0;
      if (nrefs == 0 && shape->len == 1 && g_array_index (shape, guint64, 0) == 1)
        scalar = TRUE;
      if (scalar)
        {
          if (shape->len != 1 || g_array_index (shape, guint64, 0) != 1)
            {
              bad_metadata (error, zarray_key, "\"shape\" must be [1] for a scalar (%s)",
                            info_where);
              return FALSE;
            }
        }
      else if (nrefs != shape->len)
        {
          bad_metadata (error, info_where,
                        "\"%s\" names %" G_GSIZE_FORMAT " dimensions but \"shape\" in %s has %u",
                        refs_key, nrefs, zarray_key, shape->len);
          return FALSE;
        }
      else
        {
          NczGroup *root = ncz_dataset_get_root_group (r->dataset);
          for (gsize i = 0; i < nrefs; i++)
            {
              const NczJson *ref = ncz_json_array_get (refs, i);
              const char *fqn;
              NczDimension *d;
              guint64 len = g_array_index (shape, guint64, i);

              if (ncz_json_get_kind (ref) != NCZ_JSON_STRING)
                {
                  bad_metadata (error, info_where, "\"%s\"[%" G_GSIZE_FORMAT "] is not a string",
                                refs_key, i);
                  return FALSE;
                }
              fqn = ncz_json_get_string (ref, NULL);
              d = fqn[0] == '/' ? ncz_group_lookup_dimension (root, fqn)
                                : ncz_group_lookup_dimension (group, fqn);
              if (d == NULL)
                {
                  bad_metadata (error, info_where, "\"%s\"[%" G_GSIZE_FORMAT
                                "]: dimension \"%s\" is not defined", refs_key, i, fqn);
                  return FALSE;
                }
              if (ncz_dimension_get_length (d) != len && !ncz_dimension_is_unlimited (d))
                {
                  bad_metadata (error, zarray_key, "\"shape\"[%" G_GSIZE_FORMAT "] is %"
                                G_GUINT64_FORMAT " but dimension \"%s\" has length %" G_GUINT64_FORMAT,
                                i, len, fqn, ncz_dimension_get_length (d));
                  return FALSE;
                }
              ncz_dimension_grow (d, len);
              g_ptr_array_add (dims, d);
            }
        }
    }
  else
    {
      const NczJson *xdims = r->xarray && zattrs ? ncz_json_object_get (zattrs, "_ARRAY_DIMENSIONS") : NULL;
      gboolean use_x = FALSE;

      if (xdims && ncz_json_get_kind (xdims) == NCZ_JSON_ARRAY &&
          ncz_json_array_get_length (xdims) == shape->len)
        {
          use_x = TRUE;
          for (guint i = 0; i < shape->len && use_x; i++)
            use_x = ncz_json_get_kind (ncz_json_array_get (xdims, i)) == NCZ_JSON_STRING;
        }
      if (use_x && shape->len == 1 && g_array_index (shape, guint64, 0) == 1 &&
          g_str_equal (ncz_json_get_string (ncz_json_array_get (xdims, 0), NULL), "_scalar_"))
        scalar = TRUE;
      else
        for (guint i = 0; i < shape->len; i++)
          {
            guint64 len = g_array_index (shape, guint64, i);
            NczDimension *d;
            if (use_x)
              d = xarray_dim (r, group, ncz_json_get_string (ncz_json_array_get (xdims, i), NULL),
                              len, akey, error);
            else
              d = anonymous_dim (r, len, akey, zarray_key, error);
            if (d == NULL)
              return FALSE;
            g_ptr_array_add (dims, d);
          }
    }

  var = ncz_group_add_variable (group, name, dt.type, dims->len,
                                (NczDimension **) dims->pdata, &local);
  if (var == NULL)
    {
      bad_metadata (error, zarray_key, "%s", local->message);
      return FALSE;
    }
  vinfo = nczarr_var_info_ensure (var, separator);
  vinfo->separator = separator;
  vinfo->fortran_order = fortran;
  vinfo->from_store = TRUE;
  vinfo->zero_dim = zero_dim;
  vinfo->stored_width = dt.type == NCZ_DATA_TYPE_STRING ? (guint) dt.stored_size : 0;

  if (zero_dim)
    ncz_variable_set_zero_dim (var, TRUE);
  if (dims->len > 0 &&
      !ncz_variable_set_chunk_sizes (var, (const guint64 *) chunks->data, chunks->len, &local))
    {
      bad_metadata (error, zarray_key, "\"chunks\": %s", local->message);
      return FALSE;
    }
  if (!ncz_variable_set_endianness (var, dt.endianness, &local))
    {
      bad_metadata (error, zarray_key, "\"dtype\": %s", local->message);
      return FALSE;
    }
  if (!load_attributes (r, zattrs_key, zattrs, types, types_where, var,
                        set_variable_attribute, TRUE, error))
    return FALSE;
  nczarr_storage_attach (var, &adt, dtype);
  nczarr_array_dtype_normalize_fill (&adt, zarray);
  if (adt.unsupported == NULL &&
      !apply_fill (r, var, akey, dtype, dt.type, zarray, zattrs, types, error))
    return FALSE;
  keep_fill_value_place (var, zattrs);
  /* the stored width wins over the attributes' */
  if (adt.stored == NCZARR_STORED_PLAIN && dt.type == NCZ_DATA_TYPE_STRING &&
      ncz_variable_get_max_string_length (var) != dt.stored_size)
    ncz_variable_set_max_string_length (var, (guint) dt.stored_size);
  if (adt.unsupported == NULL && adt.is_object)
    nczarr_storage_object_fill (var, ncz_json_object_get (zarray, "fill_value"));
  ncz_variable_set_filters (var, filters->len ? g_steal_pointer (&filters) : NULL);
  return TRUE;
}

/* ---- groups ---- */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Children of a group found by listing the store. */
static gboolean
list_children (NczarrReader *r, const char *gkey, GPtrArray *vars, GPtrArray *groups,
               GError **error)
{
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  gpointer cached = NULL, cached_key = NULL;

  /* the listing made while checking .zmetadata, if any */
  if (r->listings != NULL &&
      g_hash_table_steal_extended (r->listings, gkey, &cached_key, &cached))
    {
      g_free (cached_key);
      names = cached;
    }
  else
    names = ncz_store_list (r->store, gkey, r->cancellable, &local);

  if (names == NULL)
    {
      if (local == NULL || g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "listing \"%s\": ",
                                  *gkey ? gkey : "/");
      return FALSE;
    }
  for (guint i = 0; names[i]; i++)
    g_ptr_array_add (sorted, names[i]);
  g_ptr_array_sort (sorted, compare_names);
  for (guint i = 0; i < sorted->len; i++)
    {
      const char *name = g_ptr_array_index (sorted, i);
      g_autofree char *ckey = NULL;
      g_autofree char *k = NULL;
      gboolean exists = FALSE;

      if (name[0] == '.' || !name_is_valid_segment (name))
        continue;
      ckey = nczarr_key_join (gkey, name);
      k = nczarr_key_join (ckey, ".zarray");
      if (!key_exists (r, k, &exists, error))
        return FALSE;
      if (exists)
        {
          g_ptr_array_add (vars, g_strdup (name));
          continue;
        }
      g_free (k);
      k = nczarr_key_join (ckey, ".zgroup");
      if (!key_exists (r, k, &exists, error))
        return FALSE;
      if (exists)
        g_ptr_array_add (groups, g_strdup (name));
    }
  return TRUE;
}

static gboolean
name_list (const NczJson *info, const char *info_key, const char *k1, const char *k2,
           GPtrArray *out, gboolean *present, GError **error)
{
  const NczJson *list = ncz_json_object_get (info, k1);
  const char *used = k1;
  gsize n;

  if (list == NULL && k2)
    {
      list = ncz_json_object_get (info, k2);
      used = k2;
    }
  *present = list != NULL;
  if (list == NULL || ncz_json_get_kind (list) == NCZ_JSON_NULL)
    return TRUE;
  if (ncz_json_get_kind (list) != NCZ_JSON_ARRAY)
    {
      bad_metadata (error, info_key, "\"%s\" is not a JSON array", used);
      return FALSE;
    }
  n = ncz_json_array_get_length (list);
  for (gsize i = 0; i < n; i++)
    {
      const NczJson *e = ncz_json_array_get (list, i);
      const char *name;
      if (ncz_json_get_kind (e) != NCZ_JSON_STRING)
        {
          bad_metadata (error, info_key, "\"%s\"[%" G_GSIZE_FORMAT "] is not a string", used, i);
          return FALSE;
        }
      name = ncz_json_get_string (e, NULL);
      if (!name_is_valid_segment (name) || name[0] == '.')
        {
          bad_metadata (error, info_key, "\"%s\"[%" G_GSIZE_FORMAT "]: \"%s\" is not a valid name",
                        used, i, name);
          return FALSE;
        }
      g_ptr_array_add (out, g_strdup (name));
    }
  return TRUE;
}

static gboolean
read_group (NczarrReader *r, NczGroup *group, const char *gkey,
            const NczJson *zgroup, const NczJson *zattrs, GError **error)
{
  g_autofree char *zgroup_key = nczarr_key_join (gkey, ".zgroup");
  g_autofree char *zattrs_key = nczarr_key_join (gkey, ".zattrs");
  g_autofree char *info_key = NULL;
  g_autofree char *info_where = NULL;
  g_autofree char *info_member = NULL;
  g_autoptr(NczJson) types = NULL;
  g_autofree char *types_where = NULL;
  g_autoptr(NczJson) v1info = NULL;
  g_autoptr(GPtrArray) vars = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);
  const NczJson *info = NULL;
  gboolean need_listing = TRUE;

  if (zgroup && !check_zarr_format (zgroup, zgroup_key, FALSE, error))
    return FALSE;

  if (!r->pure)
    {
      info = nczarr_member (zgroup, "_nczarr_group");
      info_key = g_strdup (zgroup_key);
      info_member = member_name (zgroup, "_nczarr_group");
      if (info == NULL)
        {
          info = nczarr_member (zattrs, "_nczarr_group");
          g_free (info_key);
          info_key = g_strdup (zattrs_key);
          g_free (info_member);
          info_member = member_name (zattrs, "_nczarr_group");
        }
      info_where = g_strdup_printf ("%s: %s", info_key, info_member);
      if (info == NULL && r->layout == NCZARR_LAYOUT_V1)
        {
          g_free (info_key);
          info_key = nczarr_key_join (gkey, ".nczgroup");
          g_free (info_where);
          info_where = g_strdup (info_key);
          g_clear_pointer (&info_member, g_free);
          v1info = read_json (r, info_key, error);
          if (v1info == NULL && error && *error)
            return FALSE;
          info = v1info;
        }
    }

  if (!get_types_map (r, gkey, zattrs_key, zattrs, &types, &types_where, error) ||
      !load_attributes (r, zattrs_key, zattrs, types, types_where, group,
                        set_group_attribute, FALSE, error))
    return FALSE;

  if (info)
    {
      gboolean has_vars = FALSE, has_groups = FALSE;
      const NczJson *dims;
      const char *dims_key;

      if (ncz_json_get_kind (info) != NCZ_JSON_OBJECT)
        {
          bad_metadata (error, info_where, "is a JSON %s, not an object",
                        ncz_json_kind_name (ncz_json_get_kind (info)));
          return FALSE;
        }
      dims = ncz_json_object_get (info, dims_key = "dimensions");
      if (dims == NULL)
        dims = ncz_json_object_get (info, dims_key = "dims");
      if (!parse_dims (r, group, info_where, dims_key, dims,
                       ncz_json_object_get (info, NCZARR_UNLIMITED_KEY), error))
        return FALSE;
      if (!name_list (info, info_where, "arrays", "vars", vars, &has_vars, error) ||
          !name_list (info, info_where, "groups", NULL, groups, &has_groups, error))
        return FALSE;
      need_listing = !has_vars && !has_groups;
    }
  if (need_listing && !list_children (r, gkey, vars, groups, error))
    return FALSE;

  for (guint i = 0; i < vars->len; i++)
    if (!read_variable (r, group, gkey, g_ptr_array_index (vars, i),
                        info_key ? info_key : zgroup_key, info_member, error))
      return FALSE;

  for (guint i = 0; i < groups->len; i++)
    {
      const char *name = g_ptr_array_index (groups, i);
      g_autofree char *ckey = nczarr_key_join (gkey, name);
      g_autofree char *cg_key = nczarr_key_join (ckey, ".zgroup");
      g_autofree char *ca_key = nczarr_key_join (ckey, ".zattrs");
      g_autoptr(NczJson) cg = NULL;
      g_autoptr(NczJson) ca = NULL;
      g_autoptr(GError) local = NULL;
      NczGroup *child;

      cg = read_json (r, cg_key, error);
      if (cg == NULL)
        {
          if (error && *error)
            return FALSE;
          if (info_member)
            bad_metadata (error, cg_key, "group \"%s\" listed in %s does not exist (%s)", name,
                          info_key, info_member);
          else
            bad_metadata (error, cg_key, "group \"%s\" listed in %s does not exist", name,
                          info_key ? info_key : zgroup_key);
          return FALSE;
        }
      ca = read_json (r, ca_key, error);
      if (ca == NULL && error && *error)
        return FALSE;
      child = ncz_group_add_group (group, name, &local);
      if (child == NULL)
        {
          bad_metadata (error, cg_key, "%s", local->message);
          return FALSE;
        }
      if (!read_group (r, child, ckey, cg, ca, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- reading the tree ahead ----
 *
 * Without consolidated metadata, every group and array has its own
 * objects. Read one by one, an open costs a round trip per object (800
 * for 400 arrays, each a GET on S3). Instead the tree is read ahead a
 * level at a time: the metadata objects of every child of every group of
 * one level go out in one batch (ncz_store_read_many(), requests in
 * flight together), and the groups without a list of their children are
 * listed together. The number of batches is then bounded by the depth of
 * the tree, not its size. Reading ahead fills r->prefetched, and
 * read_group() and read_variable() then read from it and check what they
 * read as before. A read or listing that fails fails the open. Only
 * remote stores read ahead: a local file system answers each read at
 * once, and threads would only add to it. */

typedef struct
{
  char *gkey;
  NczJson *zgroup;
  NczJson *zattrs;
  char **listing;           /* the group's listing, when it needs one */
} AheadGroup;

static void
ahead_group_free (gpointer data)
{
  AheadGroup *g = data;

  g_free (g->gkey);
  g_clear_pointer (&g->zgroup, ncz_json_unref);
  g_clear_pointer (&g->zattrs, ncz_json_unref);
  g_strfreev (g->listing);
  g_free (g);
}

static AheadGroup *
ahead_group_new (const char *gkey, const NczJson *zgroup, const NczJson *zattrs)
{
  AheadGroup *g = g_new0 (AheadGroup, 1);

  g->gkey = g_strdup (gkey);
  g->zgroup = zgroup ? ncz_json_ref ((NczJson *) zgroup) : NULL;
  g->zattrs = zattrs ? ncz_json_ref ((NczJson *) zattrs) : NULL;
  return g;
}

/* Reads the objects of @keys not read yet, in one batch. */
static gboolean
prefetch_keys (NczarrReader *r, GPtrArray *keys, GError **error)
{
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GError) local = NULL;

  if (r->prefetched == NULL)
    r->prefetched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           prefetched_value_free);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      if (!g_hash_table_contains (r->prefetched, key))
        {
          g_hash_table_insert (r->prefetched, g_strdup (key), PREFETCH_ABSENT);
          g_ptr_array_add (todo, (gpointer) key);
        }
    }
  if (todo->len == 0)
    return TRUE;
  g_ptr_array_add (todo, NULL);
  got = ncz_store_read_many (r->store, (const char * const *) todo->pdata, r->cancellable,
                             &local);
  r->n_prefetch_rounds++;
  for (guint i = 0; i + 1 < todo->len; i++)
    {
      const char *key = g_ptr_array_index (todo, i);
      GBytes *b = got ? g_ptr_array_index (got, i) : NULL;

      if (got == NULL)
        g_hash_table_remove (r->prefetched, key);
      else
        g_hash_table_insert (r->prefetched, g_strdup (key),
                             b ? g_bytes_ref (b) : PREFETCH_ABSENT);
    }
  if (got == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  GMutex lock;
  GCond done;
  guint pending;
  NczarrReader *reader;
  GError *error;            /* the first listing that failed */
} AheadListing;

static void
ahead_list_one (gpointer data, gpointer user_data)
{
  AheadGroup *g = data;
  AheadListing *l = user_data;
  g_autoptr(GError) local = NULL;
  char **names = ncz_store_list (l->reader->store, g->gkey, l->reader->cancellable, &local);

  if (names == NULL && local != NULL &&
      g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
    g_clear_error (&local);
  g_mutex_lock (&l->lock);
  g->listing = names ? names : g_new0 (char *, 1);
  if (local != NULL && l->error == NULL)
    {
      g_prefix_error (&local, "listing \"%s\": ", *g->gkey ? g->gkey : "/");
      l->error = g_steal_pointer (&local);
    }
  if (--l->pending == 0)
    g_cond_signal (&l->done);
  g_mutex_unlock (&l->lock);
}

/* Lists the groups of @todo (AheadGroup) together, a thread each (at
 * most 32). */
static gboolean
ahead_list (NczarrReader *r, GPtrArray *todo, GError **error)
{
  AheadListing l = { .reader = r, .pending = todo->len };
  GThreadPool *pool = NULL;

  if (todo->len == 0)
    return TRUE;
  r->n_prefetch_rounds++;
  g_mutex_init (&l.lock);
  g_cond_init (&l.done);
  if (todo->len > 1)
    pool = g_thread_pool_new (ahead_list_one, &l, (gint) MIN (todo->len, 32u), FALSE, NULL);
  if (pool == NULL)
    for (guint i = 0; i < todo->len; i++)
      ahead_list_one (g_ptr_array_index (todo, i), &l);
  else
    {
      for (guint i = 0; i < todo->len; i++)
        g_thread_pool_push (pool, g_ptr_array_index (todo, i), NULL);
      g_mutex_lock (&l.lock);
      while (l.pending > 0)
        g_cond_wait (&l.done, &l.lock);
      g_mutex_unlock (&l.lock);
      g_thread_pool_free (pool, FALSE, TRUE);
    }
  g_mutex_clear (&l.lock);
  g_cond_clear (&l.done);
  if (l.error != NULL)
    {
      g_propagate_error (error, l.error);
      return FALSE;
    }
  return TRUE;
}

/* The names of the arrays and groups NCZarr metadata list for @g, or
 * FALSE when it lists none (the group is then listed). */
static gboolean
ahead_listed_children (NczarrReader *r, AheadGroup *g, GPtrArray *vars, GPtrArray *groups)
{
  const NczJson *info;
  gboolean has_vars = FALSE, has_groups = FALSE;

  if (r->pure)
    return FALSE;
  info = nczarr_member (g->zgroup, "_nczarr_group");
  if (info == NULL)
    info = nczarr_member (g->zattrs, "_nczarr_group");
  if (info == NULL || ncz_json_get_kind (info) != NCZ_JSON_OBJECT)
    return FALSE;
  if (!name_list (info, "", "arrays", "vars", vars, &has_vars, NULL) ||
      !name_list (info, "", "groups", NULL, groups, &has_groups, NULL))
    {
      g_ptr_array_set_size (vars, 0);
      g_ptr_array_set_size (groups, 0);
      return FALSE;
    }
  return has_vars || has_groups;
}

static NczJson *
ahead_json (NczarrReader *r, const char *key)
{
  g_autoptr(GBytes) bytes = NULL;
  gsize size = 0;
  const char *data;
  NczJson *node;

  if (!prefetched_lookup (r, key, &bytes) || bytes == NULL)
    return NULL;
  data = g_bytes_get_data (bytes, &size);
  node = ncz_json_parse (data ? data : "", size, NULL);
  if (node != NULL && ncz_json_get_kind (node) != NCZ_JSON_OBJECT)
    g_clear_pointer (&node, ncz_json_unref);
  return node;
}

static void
ahead_add_keys (GPtrArray *keys, const char *gkey, const char *name, gboolean array,
                gboolean group)
{
  g_autofree char *ckey = nczarr_key_join (gkey, name);

  if (array)
    g_ptr_array_add (keys, nczarr_key_join (ckey, ".zarray"));
  if (group)
    g_ptr_array_add (keys, nczarr_key_join (ckey, ".zgroup"));
  g_ptr_array_add (keys, nczarr_key_join (ckey, ".zattrs"));
}

/* Reads the metadata of the tree below the root ahead, a level at a
 * time (see above). */
static gboolean
nczarr_prefetch_tree (NczarrReader *r, const NczJson *zgroup, const NczJson *zattrs,
                      GError **error)
{
  g_autoptr(GPtrArray) level = g_ptr_array_new_with_free_func (ahead_group_free);

  /* consolidated metadata already hold the tree; NCZarr V1 keeps its
   * own objects, read as they are met */
  if (r->consolidated != NULL || r->layout == NCZARR_LAYOUT_V1 || !r->read_ahead)
    return TRUE;
  g_ptr_array_add (level, ahead_group_new ("", zgroup, zattrs));

  while (level->len > 0 && !g_cancellable_is_cancelled (r->cancellable))
    {
      g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) to_list = g_ptr_array_new ();
      g_autoptr(GPtrArray) next = g_ptr_array_new_with_free_func (ahead_group_free);
      g_autoptr(GPtrArray) child_keys = g_ptr_array_new_with_free_func (g_free);

      /* the groups whose metadata name no children are listed together */
      for (guint i = 0; i < level->len; i++)
        {
          AheadGroup *g = g_ptr_array_index (level, i);
          g_autoptr(GPtrArray) vars = g_ptr_array_new_with_free_func (g_free);
          g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);

          if (!ahead_listed_children (r, g, vars, groups))
            g_ptr_array_add (to_list, g);
        }
      if (!ahead_list (r, to_list, error))
        return FALSE;

      for (guint i = 0; i < level->len; i++)
        {
          AheadGroup *g = g_ptr_array_index (level, i);
          g_autoptr(GPtrArray) vars = g_ptr_array_new_with_free_func (g_free);
          g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);

          if (g->listing != NULL)
            {
              /* listed: any child may be an array or a group */
              if (r->listings == NULL)
                r->listings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     (GDestroyNotify) g_strfreev);
              for (guint k = 0; g->listing[k]; k++)
                {
                  const char *name = g->listing[k];
                  if (name[0] == '.' || !name_is_valid_segment (name))
                    continue;
                  ahead_add_keys (keys, g->gkey, name, TRUE, TRUE);
                  g_ptr_array_add (child_keys, nczarr_key_join (g->gkey, name));
                }
              /* list_children() takes this listing instead of listing again */
              if (!g_hash_table_contains (r->listings, g->gkey))
                g_hash_table_insert (r->listings, g_strdup (g->gkey),
                                     g_steal_pointer (&g->listing));
              continue;
            }
          ahead_listed_children (r, g, vars, groups);
          for (guint k = 0; k < vars->len; k++)
            ahead_add_keys (keys, g->gkey, g_ptr_array_index (vars, k), TRUE, FALSE);
          for (guint k = 0; k < groups->len; k++)
            {
              ahead_add_keys (keys, g->gkey, g_ptr_array_index (groups, k), FALSE, TRUE);
              g_ptr_array_add (child_keys, nczarr_key_join (g->gkey, g_ptr_array_index (groups, k)));
            }
        }
      if (!prefetch_keys (r, keys, error))
        return FALSE;

      /* the next level: the children that turned out to be groups */
      for (guint i = 0; i < child_keys->len; i++)
        {
          const char *ckey = g_ptr_array_index (child_keys, i);
          g_autofree char *gk = nczarr_key_join (ckey, ".zgroup");
          g_autofree char *ak = nczarr_key_join (ckey, ".zattrs");
          g_autofree char *xk = nczarr_key_join (ckey, ".zarray");
          g_autoptr(NczJson) cg = ahead_json (r, gk);
          g_autoptr(NczJson) ca = ahead_json (r, ak);
          g_autoptr(GBytes) array = NULL;

          if (cg == NULL)
            continue;
          if (prefetched_lookup (r, xk, &array) && array != NULL)
            continue;
          g_ptr_array_add (next, ahead_group_new (ckey, cg, ca));
        }
      g_ptr_array_set_size (level, 0);
      g_ptr_array_extend_and_steal (level, g_steal_pointer (&next));
    }
  return !g_cancellable_set_error_if_cancelled (r->cancellable, error);
}

/* True if the store holds any Zarr object directly below the root. */
static gboolean
has_zarr_children (NczarrReader *r, gboolean *found, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) names = ncz_store_list (r->store, "", r->cancellable, &local);

  *found = FALSE;
  if (names == NULL)
    {
      if (local == NULL || g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  for (guint i = 0; names[i] && !*found; i++)
    {
      static const char *const objs[] = { ".zarray", ".zgroup" };
      if (names[i][0] == '.' || !name_is_valid_segment (names[i]))
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (objs) && !*found; j++)
        {
          g_autofree char *k = g_strconcat (names[i], "/", objs[j], NULL);
          if (!key_exists (r, k, found, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The NCZarr superblock: an object whose "version" (4.9.3 also reads
 * "nczarr_version") is one that netcdf-c writes: "2.0.0" (every 4.9.x
 * and 4.10.x) or "3.0.0" (its NCZarr 3 code, which adds "format": 2 in
 * Zarr v2 stores). Other versions may mean other metadata: refused. */
static gboolean
check_superblock (const NczJson *sb, const char *key, const char *name, GError **error)
{
  static const char *const known[] = { "2.0.0", "3.0.0", NULL };
  const NczJson *version, *format;
  const char *vkey = "version";
  const char *v;
  gint64 f = 0;

  if (ncz_json_get_kind (sb) != NCZ_JSON_OBJECT)
    {
      bad_metadata (error, key, "\"%s\" is a JSON %s, not an object", name,
                    ncz_json_kind_name (ncz_json_get_kind (sb)));
      return FALSE;
    }
  version = ncz_json_object_get (sb, vkey);
  if (version == NULL)
    version = ncz_json_object_get (sb, vkey = "nczarr_version");
  if (version == NULL)
    {
      bad_metadata (error, key, "\"%s\" has no \"version\"", name);
      return FALSE;
    }
  if (ncz_json_get_kind (version) != NCZ_JSON_STRING)
    {
      bad_metadata (error, key, "\"%s\": \"%s\" is a JSON %s, not a string", name, vkey,
                    ncz_json_kind_name (ncz_json_get_kind (version)));
      return FALSE;
    }
  v = ncz_json_get_string (version, NULL);
  if (!g_strv_contains (known, v))
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: \"%s\": \"%s\": NCZarr version '%s' is not supported "
                   "(known versions: 2.0.0, 3.0.0)", key, name, vkey, v);
      return FALSE;
    }
  format = ncz_json_object_get (sb, "format");
  if (format != NULL &&
      (ncz_json_get_kind (format) != NCZ_JSON_NUMBER || !ncz_json_get_int64 (format, &f) || f != 2))
    {
      g_autofree char *t = ncz_json_to_string (format, FALSE);
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: \"%s\": \"format\": NCZarr format %s is not supported in a "
                   "Zarr version 2 store (known: 2)", key, name, t);
      return FALSE;
    }
  return TRUE;
}

/* Whether every child of group @gkey that has a .zarray or .zgroup in
 * the store is listed in @map: one listing per group; an array or group
 * created after the metadata was consolidated makes it stale. */
static gboolean
consolidated_covers_group (NczarrReader *r, GHashTable *map, const char *gkey,
                           gboolean *covers, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) names = ncz_store_list (r->store, gkey, r->cancellable, &local);

  *covers = TRUE;
  if (names == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ",
                                  gkey[0] ? gkey : NCZARR_CONSOLIDATED_KEY);
      return FALSE;
    }
  if (r->listings == NULL)
    r->listings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_strfreev);
  g_hash_table_replace (r->listings, g_strdup (gkey), g_strdupv (names));
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *ckey = NULL;
      g_autofree char *za = NULL;
      g_autofree char *zg = NULL;
      gboolean exists = FALSE;

      if (names[i][0] == '.' || !name_is_valid_segment (names[i]))
        continue;
      ckey = nczarr_key_join (gkey, names[i]);
      za = nczarr_key_join (ckey, ".zarray");
      zg = nczarr_key_join (ckey, ".zgroup");
      if (g_hash_table_contains (map, za) || g_hash_table_contains (map, zg))
        continue;
      if (!key_exists (r, za, &exists, error))
        return FALSE;
      if (!exists && !key_exists (r, zg, &exists, error))
        return FALSE;
      if (exists)
        {
          g_debug ("%s: '%s' is not in %s: the consolidated metadata is stale",
                   nczarr_format_location (r->format), ckey, NCZARR_CONSOLIDATED_KEY);
          *covers = FALSE;
          return TRUE;
        }
    }
  return TRUE;
}

/* Fills r->listings with the children each group has in the consolidated
 * @map ("a/b/.zarray" makes "b" a child of group "a"), an empty listing
 * for a group without any. */
static void
listings_from_consolidated (NczarrReader *r, GHashTable *map)
{
  g_autoptr(GHashTable) children = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_hash_table_unref);
  GHashTableIter iter;
  gpointer k, v;

  g_hash_table_iter_init (&iter, map);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    {
      const char *key = k;
      const char *slash = strrchr (key, '/');
      g_autofree char *node = NULL;
      const char *name, *cut;
      g_autofree char *parent = NULL;
      GHashTable *set;

      if (slash == NULL)
        {
          if (g_str_equal (key, ".zgroup") && !g_hash_table_contains (children, ""))
            g_hash_table_insert (children, g_strdup (""),
                                 g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
          continue;
        }
      if (!g_str_equal (slash + 1, ".zarray") && !g_str_equal (slash + 1, ".zgroup"))
        continue;
      node = g_strndup (key, (gsize) (slash - key));
      if (g_str_equal (slash + 1, ".zgroup") && !g_hash_table_contains (children, node))
        g_hash_table_insert (children, g_strdup (node),
                             g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
      cut = strrchr (node, '/');
      name = cut ? cut + 1 : node;
      parent = cut ? g_strndup (node, (gsize) (cut - node)) : g_strdup ("");
      set = g_hash_table_lookup (children, parent);
      if (set == NULL)
        {
          set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          g_hash_table_insert (children, g_strdup (parent), set);
        }
      g_hash_table_add (set, g_strdup (name));
    }
  if (r->listings == NULL)
    r->listings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_strfreev);
  g_hash_table_iter_init (&iter, children);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      GPtrArray *names = g_ptr_array_new ();
      GHashTableIter it;
      gpointer name;

      g_hash_table_iter_init (&it, v);
      while (g_hash_table_iter_next (&it, &name, NULL))
        g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_add (names, NULL);
      g_hash_table_replace (r->listings, g_strdup (k),
                            (char **) g_ptr_array_free (names, FALSE));
    }
}

/* Reads .zmetadata (zarr_consolidated_format 1) into r->consolidated when
 * it is well formed and not stale; otherwise the objects are read one by
 * one, as without it: the per-object metadata wins. Only a failure to
 * read the store (not a missing or malformed .zmetadata) is an error. */
static gboolean
load_consolidated (NczarrReader *r, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(NczJson) node = NULL;
  g_autoptr(GHashTable) map = NULL;
  const NczJson *fmt, *meta;
  gint64 version = 0;
  gsize size = 0;
  const char *data;
  const char *why = NULL;

  if (!r->use_consolidated)
    return TRUE;
  bytes = ncz_store_read (r->store, NCZARR_CONSOLIDATED_KEY, r->cancellable, &local);
  if (bytes == NULL)
    {
      if (g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ",
                                  NCZARR_CONSOLIDATED_KEY);
      return FALSE;
    }
  data = g_bytes_get_data (bytes, &size);
  node = ncz_json_parse (data ? data : "", size, NULL);
  fmt = node && ncz_json_get_kind (node) == NCZ_JSON_OBJECT
          ? ncz_json_object_get (node, "zarr_consolidated_format") : NULL;
  meta = node && ncz_json_get_kind (node) == NCZ_JSON_OBJECT
           ? ncz_json_object_get (node, "metadata") : NULL;
  if (node == NULL || ncz_json_get_kind (node) != NCZ_JSON_OBJECT)
    why = "is not a JSON object";
  else if (fmt == NULL || ncz_json_get_kind (fmt) != NCZ_JSON_NUMBER ||
           !ncz_json_get_int64 (fmt, &version) || version != 1)
    why = "\"zarr_consolidated_format\" is not 1";
  else if (meta == NULL || ncz_json_get_kind (meta) != NCZ_JSON_OBJECT)
    why = "\"metadata\" is not an object";
  if (why == NULL)
    {
      map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) ncz_json_unref);
      for (gsize i = 0; i < ncz_json_object_get_size (meta) && why == NULL; i++)
        {
          const char *key = ncz_json_object_get_key (meta, i);
          NczJson *v = (NczJson *) ncz_json_object_get_value (meta, i);
          const char *base = g_strrstr (key, "/") ? g_strrstr (key, "/") + 1 : key;
          if (!g_str_equal (base, ".zarray") && !g_str_equal (base, ".zgroup") &&
              !g_str_equal (base, ".zattrs"))
            continue;
          if (ncz_json_get_kind (v) != NCZ_JSON_OBJECT)
            why = "\"metadata\" holds an entry that is not a JSON object";
          else
            g_hash_table_replace (map, g_strdup (key), ncz_json_ref (v));
        }
    }
  if (why == NULL && !g_hash_table_contains (map, ".zgroup"))
    why = "\"metadata\" has no \".zgroup\"";
  if (why != NULL)
    {
      g_debug ("%s: %s %s: ignored", nczarr_format_location (r->format),
               NCZARR_CONSOLIDATED_KEY, why);
      return TRUE;
    }
  if (r->trust_consolidated)
    {
      /* the children of each group come from the map: no listing */
      listings_from_consolidated (r, map);
      r->consolidated = g_steal_pointer (&map);
      return TRUE;
    }
  /* stale: an array or group of the store that it does not list */
  {
    GHashTableIter iter;
    gpointer k;
    gboolean covers = TRUE;

    if (!consolidated_covers_group (r, map, "", &covers, error))
      return FALSE;
    g_hash_table_iter_init (&iter, map);
    while (covers && g_hash_table_iter_next (&iter, &k, NULL))
      if (g_str_has_suffix (k, "/.zgroup"))
        {
          g_autofree char *gkey = g_strndup (k, strlen (k) - strlen ("/.zgroup"));
          if (!consolidated_covers_group (r, map, gkey, &covers, error))
            return FALSE;
        }
    if (!covers)
      return TRUE;
  }
  r->consolidated = g_steal_pointer (&map);
  return TRUE;
}

gboolean
nczarr_read_dataset (NczarrReader *r, GError **error)
{
  g_autoptr(NczJson) zgroup = NULL;
  g_autoptr(NczJson) zattrs = NULL;
  const NczJson *props;
  gboolean exists = FALSE;

  if (!load_consolidated (r, error))
    return FALSE;
  /* without consolidated metadata, the root's two objects in one round */
  if (r->consolidated == NULL && r->read_ahead)
    {
      g_autoptr(GPtrArray) root = g_ptr_array_new ();
      g_ptr_array_add (root, (gpointer) ".zgroup");
      g_ptr_array_add (root, (gpointer) ".zattrs");
      if (!prefetch_keys (r, root, error))
        return FALSE;
    }
  zgroup = read_json (r, ".zgroup", error);
  if (zgroup == NULL && error && *error)
    return FALSE;
  zattrs = read_json (r, ".zattrs", error);
  if (zattrs == NULL && error && *error)
    return FALSE;

  r->root_implicit = zgroup == NULL;
  if (zgroup == NULL)
    {
      gboolean children = FALSE;
      if (!key_exists (r, ".zarray", &exists, error))
        return FALSE;
      if (exists)
        {
          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                       ".zarray: the root of the store is a Zarr array; "
                       "only groups can be opened as datasets");
          return FALSE;
        }
      if (!key_exists (r, ".nczarr", &exists, error))
        return FALSE;
      if (!exists && zattrs == NULL)
        {
          if (!has_zarr_children (r, &children, error))
            return FALSE;
          if (!children)
            {
              g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
                           "Unknown file format: no Zarr group or array at the root");
              return FALSE;
            }
        }
    }

  props = zattrs ? ncz_json_object_get (zattrs, "_NCProperties") : NULL;
  if (props && ncz_json_get_kind (props) == NCZ_JSON_STRING)
    r->ncproperties = g_strdup (ncz_json_get_string (props, NULL));

  r->layout = NCZARR_LAYOUT_PURE;
  if (!r->pure)
    {
      if (zattrs && ncz_json_object_get (zattrs, "_nczarr_superblock"))
        r->layout = NCZARR_LAYOUT_ATTRIBUTES;
      else if (zgroup && ncz_json_object_get (zgroup, "_nczarr_superblock"))
        r->layout = NCZARR_LAYOUT_KEYS;
      else if (zgroup && ncz_json_object_get (zgroup, "_NCZARR_SUPERBLOCK"))
        r->layout = NCZARR_LAYOUT_KEYS_UPPER;
      else
        {
          if (!key_exists (r, ".nczarr", &exists, error))
            return FALSE;
          if (exists)
            r->layout = NCZARR_LAYOUT_V1;
        }
      if (r->layout == NCZARR_LAYOUT_PURE)
        r->pure = TRUE;
      else if (r->layout == NCZARR_LAYOUT_ATTRIBUTES &&
               !check_superblock (ncz_json_object_get (zattrs, "_nczarr_superblock"),
                                  ".zattrs", "_nczarr_superblock", error))
        return FALSE;
      else if (r->layout == NCZARR_LAYOUT_KEYS &&
               !check_superblock (ncz_json_object_get (zgroup, "_nczarr_superblock"),
                                  ".zgroup", "_nczarr_superblock", error))
        return FALSE;
      else if (r->layout == NCZARR_LAYOUT_KEYS_UPPER &&
               !check_superblock (ncz_json_object_get (zgroup, "_NCZARR_SUPERBLOCK"),
                                  ".zgroup", "_NCZARR_SUPERBLOCK", error))
        return FALSE;
    }
  r->netcdf_written = r->ncproperties != NULL || r->layout != NCZARR_LAYOUT_PURE;

  if (!nczarr_prefetch_tree (r, zgroup, zattrs, error))
    return FALSE;
  return read_group (r, ncz_dataset_get_root_group (r->dataset), "", zgroup, zattrs, error);
}
