/* nczarr-write.c: the metadata objects of a model
 *
 * Produces the text of every .zgroup, .zattrs and .zarray object for one
 * of the layouts: NCZarr with its keys inside .zgroup/.zarray (as
 * netcdf-c 4.9.1-4.9.2 write it), NCZarr with everything as attributes
 * in .zattrs (4.9.3+), or plain Zarr.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "nczarr-dtype-private.h"

typedef struct {
  const NczarrWriteOptions *options;
  GPtrArray *keys;
  GPtrArray *texts;
  NczGroup *root;
  guint default_width;
  /* the NCZarr key names: lower case, or upper case for netcdf-c 4.9.0 */
  const char *k_superblock;
  const char *k_group;
  const char *k_array;
  const char *k_attr;
  const char *char_dtype;
} Builder;

static char *
write_json (const NczarrWriteOptions *options, const NczJson *obj)
{
  return options->ascii_json ? ncz_json_to_ascii_string (obj, FALSE)
                             : ncz_json_to_string (obj, FALSE);
}

static void
emit (Builder *b, char *key, NczJson *obj)
{
  g_ptr_array_add (b->keys, key);
  g_ptr_array_add (b->texts, write_json (b->options, obj));
  ncz_json_unref (obj);
}

static gboolean
is_nczarr (Builder *b)
{
  return b->options->layout != NCZARR_LAYOUT_PURE;
}

static gboolean
is_attributes_layout (Builder *b)
{
  return b->options->layout == NCZARR_LAYOUT_ATTRIBUTES;
}

/* User attributes into @zattrs and their dtypes into @types. */
static guint
add_attributes (Builder *b, GPtrArray *attrs, gboolean fill_in_zarray, NczJson *zattrs,
                NczJson *types)
{
  guint n = 0;

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      const char *name = ncz_attribute_get_name (a);
      g_autofree char *dtype = NULL;

      if (nczarr_attr_name_is_reserved (name))
        continue;
      /* Pure Zarr: the fill value is "fill_value" (what xarray reads)
       * and, the same value, the _FillValue attribute, which is what
       * netcdf-c reads in pure Zarr (without it, every netCDF version
       * prints missing values as data). */
      ncz_json_object_set (zattrs, name, nczarr_attr_to_json (a));
      if (ncz_attribute_get_value_type (a) == NCZ_DATA_TYPE_CHAR)
        dtype = g_strdup (b->char_dtype);
      else
        dtype = nczarr_attr_dtype (a, b->default_width);
      ncz_json_object_set (types, name, ncz_json_new_string (dtype, -1));
      n++;
    }
  return n;
}

static NczJson *
types_info (NczJson *types)
{
  NczJson *info = ncz_json_new_object ();
  ncz_json_object_set (info, "types", types);
  return info;
}

static NczJson *
fill_value_json (NczVariable *var, NczDataType type)
{
  g_autoptr(GBytes) fill = NULL;
  gsize len = 0;
  const guint8 *p;

  if (ncz_variable_get_no_fill (var))
    return ncz_json_new_null ();
  fill = ncz_variable_get_fill_value (var);
  if (fill == NULL)
    return ncz_json_new_null ();
  p = g_bytes_get_data (fill, &len);
  if (type == NCZ_DATA_TYPE_CHAR || type == NCZ_DATA_TYPE_STRING)
    {
      /* Zarr encodes "S" fill values in base64; the default (NUL) fill is
       * the empty string, as netcdf-c writes it. */
      gsize n = 0;
      g_autofree char *b64 = NULL;
      while (n < len && p[n] != 0)
        n++;
      if (type == NCZ_DATA_TYPE_CHAR)
        n = MIN (n, 1);
      if (n == 0)
        return ncz_json_new_string ("", 0);
      b64 = g_base64_encode (p, n);
      return ncz_json_new_string (b64, -1);
    }
  if (len < ncz_data_type_get_size (type))
    return ncz_json_new_null ();
  return nczarr_value_to_json (type, p);
}

static NczJson *
codec_json (NczFilterSpec *spec, gsize element_size)
{
  g_autofree char *json = NULL;
  g_autofree char *norm = NULL;
  NczJson *node = NULL;

  if (spec->json)
    json = g_strdup (spec->json);
  else if (spec->codec)
    json = ncz_codec_params_to_json_text (spec->codec, (const guint *) spec->visible->data,
                                     spec->visible->len, NULL);
  if (json)
    {
      norm = nczarr_codec_json_normalize (json, element_size);
      node = ncz_json_parse (norm, -1, NULL);
    }
  if (node == NULL || ncz_json_get_kind (node) != NCZ_JSON_OBJECT)
    {
      g_autofree char *id = spec->codec_id ? g_strdup (spec->codec_id)
                                           : g_strdup_printf ("hdf5-%u", spec->filter_id);
      if (node)
        ncz_json_unref (node);
      node = ncz_json_new_object ();
      ncz_json_object_set (node, "id", ncz_json_new_string (id, -1));
    }
  return node;
}

static void
build_variable (Builder *b, NczGroup *group, NczVariable *var, const char *gkey)
{
  const char *name = ncz_variable_get_name (var);
  NczarrVarInfo *info = nczarr_var_info_peek (var);
  NczDataType type = ncz_variable_get_value_type (var);
  guint n = ncz_variable_get_n_dimensions (var);
  gboolean zero_dim = ncz_variable_is_zero_dim (var) || (info && info->zero_dim);
  gboolean scalar = n == 0 && !zero_dim;
  g_autofree char *akey = nczarr_key_join (gkey, name);
  g_autofree char *dtype = NULL;
  g_autoptr(GPtrArray) attrs = ncz_variable_get_attributes (var);
  GPtrArray *filters = ncz_variable_peek_filters (var);
  NczJson *zarray = ncz_json_new_object ();
  NczJson *zattrs = ncz_json_new_object ();
  NczJson *types = ncz_json_new_object ();
  NczJson *shape = ncz_json_new_array ();
  NczJson *chunks = ncz_json_new_array ();
  NczJson *refs = ncz_json_new_array ();
  guint width = 0;
  guint n_user;

  if (type == NCZ_DATA_TYPE_STRING)
    width = info && info->stored_width ? info->stored_width
                                       : ncz_variable_get_max_string_length (var);
  if (type == NCZ_DATA_TYPE_CHAR)
    dtype = g_strdup (b->char_dtype);
  else
    dtype = nczarr_dtype_for (type, ncz_variable_get_endianness (var), width);

  if (scalar)
    {
      ncz_json_array_append (shape, ncz_json_new_uint64 (1));
      ncz_json_array_append (chunks, ncz_json_new_uint64 (1));
    }
  else if (n > 0)
    {
      const guint64 *cs = ncz_variable_get_chunk_sizes (var, NULL);
      for (guint i = 0; i < n; i++)
        {
          NczDimension *d = ncz_variable_get_dimension (var, i);
          g_autofree char *fqn = ncz_dimension_get_full_name (d);
          ncz_json_array_append (shape, ncz_json_new_uint64 (ncz_dimension_get_length (d)));
          ncz_json_array_append (chunks, ncz_json_new_uint64 (cs[i]));
          ncz_json_array_append (refs, ncz_json_new_string (fqn, -1));
        }
    }

  ncz_json_object_set (zarray, "zarr_format", ncz_json_new_int64 (2));
  ncz_json_object_set (zarray, "shape", shape);
  ncz_json_object_set (zarray, "dtype", ncz_json_new_string (dtype, -1));
  ncz_json_object_set (zarray, "chunks", chunks);
  ncz_json_object_set (zarray, "fill_value", fill_value_json (var, type));
  ncz_json_object_set (zarray, "order",
                       ncz_json_new_string (info && info->fortran_order ? "F" : "C", -1));
  if (filters == NULL || filters->len == 0)
    {
      ncz_json_object_set (zarray, "compressor", ncz_json_new_null ());
      ncz_json_object_set (zarray, "filters", ncz_json_new_null ());
    }
  else
    {
      gsize es = type == NCZ_DATA_TYPE_STRING ? width : ncz_data_type_get_size (type);
      NczJson *list = NULL;
      ncz_json_object_set (zarray, "compressor",
                           codec_json (g_ptr_array_index (filters, filters->len - 1), es));
      if (filters->len > 1)
        {
          list = ncz_json_new_array ();
          for (guint i = 0; i + 1 < filters->len; i++)
            ncz_json_array_append (list, codec_json (g_ptr_array_index (filters, i), es));
        }
      ncz_json_object_set (zarray, "filters", list ? list : ncz_json_new_null ());
    }
  /* "|b1", "f2", "|O" + "vlen-utf8", "U<n>" (nczarr-dtype.c) */
  nczarr_storage_fix_zarray (var, b->options->layout == NCZARR_LAYOUT_PURE, zarray);
  {
    char sep = info ? info->separator : b->options->default_separator;
    if (sep == '/')
      ncz_json_object_set (zarray, "dimension_separator", ncz_json_new_string ("/", -1));
  }

  n_user = add_attributes (b, attrs, type != NCZ_DATA_TYPE_STRING, zattrs, types);

  /* every variable of every group, with the plain dimension names, so
   * that xarray opens any group (xr.open_zarr(..., group=...)) */
  if (b->options->xarray)
    {
      NczJson *names = ncz_json_new_array ();
      if (scalar)
        ncz_json_array_append (names, ncz_json_new_string ("_scalar_", -1));
      for (guint i = 0; i < n; i++)
        ncz_json_array_append (names, ncz_json_new_string (
                                 ncz_dimension_get_name (ncz_variable_get_dimension (var, i)), -1));
      ncz_json_object_set (zattrs, "_ARRAY_DIMENSIONS", names);
      n_user++;
    }

  if (is_nczarr (b))
    {
      NczJson *ainfo = ncz_json_new_object ();
      if (is_attributes_layout (b))
        {
          ncz_json_object_set (ainfo, "dimension_references", refs);
          if (scalar)
            ncz_json_object_set (ainfo, "scalar", ncz_json_new_int64 (1));
          ncz_json_object_set (ainfo, "storage", ncz_json_new_string ("chunked", -1));
          ncz_json_object_set (zattrs, "_nczarr_array", ainfo);
          ncz_json_object_set (types, "_nczarr_array", ncz_json_new_string ("|J0", -1));
          ncz_json_object_set (types, "_nczarr_attr", ncz_json_new_string ("|J0", -1));
          ncz_json_object_set (zattrs, "_nczarr_attr", types_info (types));
          types = NULL;
          n_user++;
        }
      else
        {
          ncz_json_object_set (ainfo, "dimrefs", refs);
          ncz_json_object_set (ainfo, "storage",
                               ncz_json_new_string (scalar ? "scalar" : "chunked", -1));
          ncz_json_object_set (zarray, b->k_array, ainfo);
          if (n_user > 0)
            {
              ncz_json_object_set (zattrs, b->k_attr, types_info (types));
              types = NULL;
            }
        }
      refs = NULL;
    }
  if (refs)
    ncz_json_unref (refs);
  if (types)
    ncz_json_unref (types);

  emit (b, nczarr_key_join (akey, ".zarray"), zarray);
  if (n_user > 0)
    emit (b, nczarr_key_join (akey, ".zattrs"), zattrs);
  else
    ncz_json_unref (zattrs);
}

static void
build_group (Builder *b, NczGroup *group, const char *gkey)
{
  gboolean is_root = group == b->root;
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (group);
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (group);
  g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (group);
  NczJson *zgroup = ncz_json_new_object ();
  NczJson *zattrs = ncz_json_new_object ();
  NczJson *types = ncz_json_new_object ();
  guint n_attrs;

  for (guint i = 0; i < vars->len; i++)
    build_variable (b, group, g_ptr_array_index (vars, i), gkey);
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *child = g_ptr_array_index (groups, i);
      g_autofree char *ckey = nczarr_key_join (gkey, ncz_group_get_name (child));
      build_group (b, child, ckey);
    }

  ncz_json_object_set (zgroup, "zarr_format", ncz_json_new_int64 (2));
  n_attrs = add_attributes (b, attrs, FALSE, zattrs, types);
  if (is_root)
    {
      ncz_json_object_set (zattrs, "_NCProperties",
                           ncz_json_new_string (b->options->ncproperties, -1));
      ncz_json_object_set (types, "_NCProperties", ncz_json_new_string (b->char_dtype, -1));
      n_attrs++;
    }

  if (is_nczarr (b))
    {
      gboolean attrs_layout = is_attributes_layout (b);
      NczJson *ginfo = ncz_json_new_object ();
      NczJson *jdims = ncz_json_new_object ();
      NczJson *jvars = ncz_json_new_array ();
      NczJson *jgroups = ncz_json_new_array ();
      NczJson *junlim = NULL;

      for (guint i = 0; i < dims->len; i++)
        {
          NczDimension *d = g_ptr_array_index (dims, i);
          guint64 len = ncz_dimension_get_length (d);
          if (ncz_dimension_is_unlimited (d) && !attrs_layout)
            {
              /* netcdf-c before 4.9.3 has no unlimited dimensions in
               * NCZarr and fails (or crashes) on the object form: the
               * length stays a plain number and the names go to a list
               * of Ncz's own that those versions ignore */
              if (junlim == NULL)
                junlim = ncz_json_new_array ();
              ncz_json_array_append (junlim, ncz_json_new_string (ncz_dimension_get_name (d), -1));
              ncz_json_object_set (jdims, ncz_dimension_get_name (d), ncz_json_new_uint64 (len));
            }
          else if (ncz_dimension_is_unlimited (d))
            {
              NczJson *o = ncz_json_new_object ();
              ncz_json_object_set (o, "size", ncz_json_new_uint64 (len));
              ncz_json_object_set (o, "unlimited", ncz_json_new_int64 (1));
              ncz_json_object_set (jdims, ncz_dimension_get_name (d), o);
            }
          else
            ncz_json_object_set (jdims, ncz_dimension_get_name (d), ncz_json_new_uint64 (len));
        }
      for (guint i = 0; i < vars->len; i++)
        ncz_json_array_append (jvars, ncz_json_new_string (
                                 ncz_variable_get_name (g_ptr_array_index (vars, i)), -1));
      for (guint i = 0; i < groups->len; i++)
        ncz_json_array_append (jgroups, ncz_json_new_string (
                                 ncz_group_get_name (g_ptr_array_index (groups, i)), -1));
      ncz_json_object_set (ginfo, attrs_layout ? "dimensions" : "dims", jdims);
      ncz_json_object_set (ginfo, attrs_layout ? "arrays" : "vars", jvars);
      ncz_json_object_set (ginfo, "groups", jgroups);
      if (junlim)
        ncz_json_object_set (ginfo, NCZARR_UNLIMITED_KEY, junlim);

      if (attrs_layout)
        {
          ncz_json_object_set (zattrs, "_nczarr_group", ginfo);
          ncz_json_object_set (types, "_nczarr_group", ncz_json_new_string ("|J0", -1));
          if (is_root)
            {
              NczJson *sb = ncz_json_new_object ();
              ncz_json_object_set (sb, "version", ncz_json_new_string (NCZARR_VERSION, -1));
              ncz_json_object_set (zattrs, "_nczarr_superblock", sb);
              ncz_json_object_set (types, "_nczarr_superblock", ncz_json_new_string ("|J0", -1));
            }
          ncz_json_object_set (types, "_nczarr_attr", ncz_json_new_string ("|J0", -1));
          ncz_json_object_set (zattrs, "_nczarr_attr", types_info (types));
          types = NULL;
          n_attrs++;
        }
      else
        {
          if (is_root)
            {
              NczJson *sb = ncz_json_new_object ();
              ncz_json_object_set (sb, "version", ncz_json_new_string (NCZARR_VERSION, -1));
              ncz_json_object_set (zgroup, b->k_superblock, sb);
            }
          ncz_json_object_set (zgroup, b->k_group, ginfo);
          if (n_attrs > 0)
            {
              ncz_json_object_set (zattrs, b->k_attr, types_info (types));
              types = NULL;
            }
        }
    }
  if (types)
    ncz_json_unref (types);

  if (n_attrs > 0)
    emit (b, nczarr_key_join (gkey, ".zattrs"), zattrs);
  else
    ncz_json_unref (zattrs);
  emit (b, nczarr_key_join (gkey, ".zgroup"), zgroup);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* .zmetadata as zarr-python consolidates a store: every metadata object
 * built, by key, with "zarr_consolidated_format": 1 */
static void
add_consolidated (const NczarrWriteOptions *options, GPtrArray *keys, GPtrArray *texts)
{
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(GHashTable) text_of = g_hash_table_new (g_str_hash, g_str_equal);
  NczJson *meta = ncz_json_new_object ();
  NczJson *top = ncz_json_new_object ();

  for (guint i = 0; i < keys->len; i++)
    {
      g_ptr_array_add (order, g_ptr_array_index (keys, i));
      g_hash_table_insert (text_of, g_ptr_array_index (keys, i), g_ptr_array_index (texts, i));
    }
  g_ptr_array_sort (order, compare_strings);
  for (guint i = 0; i < order->len; i++)
    {
      const char *key = g_ptr_array_index (order, i);
      NczJson *node = ncz_json_parse (g_hash_table_lookup (text_of, key), -1, NULL);
      if (node)
        ncz_json_object_set (meta, key, node);
    }
  ncz_json_object_set (top, "metadata", meta);
  ncz_json_object_set (top, "zarr_consolidated_format", ncz_json_new_int64 (1));
  g_ptr_array_add (keys, g_strdup (NCZARR_CONSOLIDATED_KEY));
  g_ptr_array_add (texts, write_json (options, top));
  ncz_json_unref (top);
}

void
nczarr_build_metadata (NczDataset *dataset, const NczarrWriteOptions *options,
                       GPtrArray *keys, GPtrArray *texts)
{
  Builder b = { 0 };
  NczAttribute *dm;

  b.options = options;
  b.keys = keys;
  b.texts = texts;
  b.root = ncz_dataset_get_root_group (dataset);
  b.default_width = NCZ_DEFAULT_MAX_STRLEN;
  if (options->layout == NCZARR_LAYOUT_KEYS_UPPER)
    {
      b.k_superblock = "_NCZARR_SUPERBLOCK";
      b.k_group = "_NCZARR_GROUP";
      b.k_array = "_NCZARR_ARRAY";
      b.k_attr = "_NCZARR_ATTR";
      b.char_dtype = "<U1";
    }
  else
    {
      b.k_superblock = "_nczarr_superblock";
      b.k_group = "_nczarr_group";
      b.k_array = "_nczarr_array";
      b.k_attr = "_nczarr_attr";
      b.char_dtype = ">S1";
    }
  dm = ncz_group_get_attribute (b.root, "_nczarr_default_maxstrlen");
  if (dm && ncz_data_type_is_integer (ncz_attribute_get_value_type (dm)) &&
      ncz_attribute_get_length (dm) >= 1)
    {
      gint64 w = ncz_attribute_get_int64 (dm, 0, NULL);
      if (w > 0 && w <= G_MAXINT32)
        b.default_width = (guint) w;
    }
  build_group (&b, b.root, "");
  if (options->consolidated)
    add_consolidated (options, keys, texts);
}

static gboolean
string_is_json_number (const char *s, gsize len)
{
  g_autoptr(NczJson) node = NULL;
  if (len == 0 || strlen (s) != len)
    return FALSE;
  if (!(g_ascii_isdigit (s[0]) || (s[0] == '-' && g_ascii_isdigit (s[1]))))
    return FALSE;
  node = ncz_json_parse (s, len, NULL);
  return node && ncz_json_get_kind (node) == NCZ_JSON_NUMBER;
}

char *
nczarr_codec_json_normalize (const char *json, gsize element_size)
{
  g_autoptr(NczJson) node = ncz_json_parse (json, -1, NULL);
  const NczJson *id;
  gsize n;

  if (node == NULL || ncz_json_get_kind (node) != NCZ_JSON_OBJECT)
    return g_strdup (json);
  n = ncz_json_object_get_size (node);
  for (gsize i = 0; i < n; i++)
    {
      const char *key = ncz_json_object_get_key (node, i);
      const NczJson *v = ncz_json_object_get_value (node, i);
      gsize len = 0;
      const char *s;

      if (g_str_equal (key, "id") || ncz_json_get_kind (v) != NCZ_JSON_STRING)
        continue;
      s = ncz_json_get_string (v, &len);
      if (string_is_json_number (s, len))
        ncz_json_object_set (node, key, ncz_json_parse (s, len, NULL));
    }
  id = ncz_json_object_get (node, "id");
  if (id && ncz_json_get_kind (id) == NCZ_JSON_STRING &&
      g_str_equal (ncz_json_get_string (id, NULL), "shuffle") && element_size > 0)
    {
      const NczJson *es = ncz_json_object_get (node, "elementsize");
      gint64 v = 0;
      if (es == NULL || (ncz_json_get_kind (es) == NCZ_JSON_NUMBER &&
                         ncz_json_get_int64 (es, &v) && v == 0))
        ncz_json_object_set (node, "elementsize", ncz_json_new_uint64 (element_size));
    }
  return ncz_json_to_string (node, FALSE);
}
