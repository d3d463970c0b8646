/* hdf5-write.c: the model's objects written as netCDF-4 HDF5 objects
 *
 * A new file gets the creation properties of netCDF-4 (creation order of
 * links and attributes tracked and indexed, no object times, the 1.8
 * file format as the lowest bound) and the root's `_NCProperties`.
 *
 * Objects are created lazily: the definition hooks only take note, and
 * ncz_h5_materialize() (at sync and before the first slab I/O) creates
 * what is not in the file yet, group by group, parents first, in the
 * order netCDF-4 uses:
 * - groups first;
 * - in each group its attributes, then its dimensions and variables
 *   interleaved so that a coordinate variable's dataset is made where
 *   its dimension's scale would be: dimensions without a coordinate
 *   variable get a dataset of their own (a dimension scale whose NAME
 *   says so), a coordinate variable's dataset is the scale;
 * - then the scales are attached to the other variables (DIMENSION_LIST
 *   and REFERENCE_LIST, with libhdf5_hl's H5DS functions);
 * - `_Netcdf4Dimid` on every scale (and on every variable when netCDF-4
 *   would keep the dimension ids that way, see needs_dimids()),
 *   `_Netcdf4Coordinates` on every variable with dimensions; a variable
 *   named as a dimension of its group without being its coordinate
 *   variable is stored as `_nc4_non_coord_NAME`.
 *
 * A definition HDF5 cannot apply to a dataset already made (its storage,
 * filters, fill value, endianness) fails in the hook, naming the
 * variable. Attributes are kept in the model's order: when an object's
 * attributes changed, the file's are compared with the model's in
 * creation order and rewritten from the first that differs. At sync the
 * variables along an unlimited dimension are extended to its length.
 * In a file opened for writing, only what was defined since is created.
 *
 * All functions here run with the HDF5 lock held (ncz-hdf5-format.c
 * takes it around them).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>
#include <hdf5_hl.h>

#include "hdf5-private.h"

#define NON_COORD_PREFIX "_nc4_non_coord_"
#define DIM_WITHOUT_VARIABLE "This is a netCDF dimension but not a netCDF variable."
#define ATT_COORDINATES "_Netcdf4Coordinates"
#define ATT_DIMID "_Netcdf4Dimid"
#define ATT_NCPROPERTIES "_NCProperties"
#define CRT_ORDER (H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED)

/* Attributes netCDF-4 and HDF5's dimension scales keep for themselves:
 * never shown as attributes, never written from the model. */
static const char * const hidden_attributes[] = {
  "CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", ATT_COORDINATES, ATT_DIMID,
  ATT_NCPROPERTIES, "_nc3_strict", "_IsNetcdf4", "_SuperblockVersion", "_Format",
};

/* What the writer keeps for a file, on the format object. */
typedef struct {
  GHashTable *defined; /* groups, dimensions and variables defined since a
                        * file was opened for writing (a set) */
  gboolean dirty;   /* a definition since the last materialize */
  gboolean preserve_dimids; /* write _Netcdf4Dimid on every variable (below) */
  gboolean late_coordinate; /* a coordinate variable replaced its dimension's
                             * own dataset */
} WriteState;

static GQuark
write_state_quark (void)
{
  static GQuark q;

  if (q == 0)
    q = g_quark_from_static_string ("ncz-hdf5-write-state");
  return q;
}

static void
write_state_free (gpointer data)
{
  WriteState *st = data;

  g_hash_table_unref (st->defined);
  g_free (st);
}

static WriteState *
write_state (NczHdf5Format *self)
{
  WriteState *st = g_object_get_qdata (G_OBJECT (self), write_state_quark ());

  if (st == NULL)
    {
      st = g_new0 (WriteState, 1);
      st->defined = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_object_set_qdata_full (G_OBJECT (self), write_state_quark (), st, write_state_free);
    }
  return st;
}

/* Whether the writer makes @object's HDF5 object when it has none: in a
 * new file, everything; in a file opened for writing, what was defined
 * since (what the reader found without an HDF5 object of its own, such
 * as the phony dimensions of a file without dimension scales, stays
 * so). */
static gboolean
is_ours (NczHdf5Format *self, gpointer object)
{
  return self->created || g_hash_table_contains (write_state (self)->defined, object);
}

static void
note_defined (NczHdf5Format *self, gpointer object)
{
  g_hash_table_add (write_state (self)->defined, object);
}

static void
mark_dirty (NczHdf5Format *self)
{
  write_state (self)->dirty = TRUE;
}

static gboolean
is_hidden_attribute (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (hidden_attributes); i++)
    if (strcmp (name, hidden_attributes[i]) == 0)
      return TRUE;
  return FALSE;
}

static const char *
file_name (NczHdf5Format *self)
{
  return self->path != NULL ? self->path : "(netCDF-4 file)";
}

/* ---- types ---- */

/* The file type of a variable or attribute: strings are variable-length
 * UTF-8, char is a one-byte ASCII string, numbers in @endianness. */
static hid_t
file_type (NczDataType type, NczEndianness endianness)
{
  hid_t t = ncz_h5_file_type (type, endianness);

  if (t >= 0 && type == NCZ_DATA_TYPE_STRING)
    H5Tset_cset (t, H5T_CSET_UTF8);
  return t;
}

static hid_t
mem_type (NczDataType type)
{
  hid_t t = ncz_h5_mem_type (type);

  if (t >= 0 && type == NCZ_DATA_TYPE_STRING)
    H5Tset_cset (t, H5T_CSET_UTF8);
  return t;
}

static gboolean
is_numeric (NczDataType type)
{
  return type != NCZ_DATA_TYPE_CHAR && type != NCZ_DATA_TYPE_STRING;
}

/* ---- attributes ---- */

/* Writes @attr as netCDF-4 does: char text as one fixed-length string of
 * its length (scalar), strings as variable-length UTF-8 strings, numbers
 * in native order; an empty value has a null dataspace. */
static gboolean
write_attribute (NczHdf5Format *self, hid_t loc, const char *owner, NczAttribute *attr,
                 GError **error)
{
  const char *name = ncz_attribute_get_name (attr);
  NczDataType type = ncz_attribute_get_value_type (attr);
  gsize n = ncz_attribute_get_length (attr);
  hid_t ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hid_t a = H5I_INVALID_HID;
  gboolean ok = FALSE;
  herr_t status = 0;

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      ftype = file_type (NCZ_DATA_TYPE_CHAR, NCZ_ENDIANNESS_NATIVE);
      if (ftype >= 0 && n > 0)
        H5Tset_size (ftype, n);
      mtype = ftype >= 0 ? H5Tcopy (ftype) : H5I_INVALID_HID;
      space = H5Screate (n > 0 ? H5S_SCALAR : H5S_NULL);
    }
  else
    {
      hsize_t dims[1] = { n };

      ftype = file_type (type, NCZ_ENDIANNESS_NATIVE);
      mtype = mem_type (type);
      space = n > 0 ? H5Screate_simple (1, dims, NULL) : H5Screate (H5S_NULL);
    }
  if (ftype < 0 || mtype < 0 || space < 0)
    goto out;
  a = H5Acreate2 (loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0)
    goto out;
  if (n > 0)
    {
      if (type == NCZ_DATA_TYPE_STRING)
        {
          const char * const *strings = ncz_attribute_get_strings (attr);

          status = H5Awrite (a, mtype, strings);
        }
      else
        {
          gsize size = 0;
          gconstpointer values = ncz_attribute_peek_values (attr, &size);

          status = H5Awrite (a, mtype, values);
        }
      if (status < 0)
        goto out;
    }
  ok = TRUE;

out:
  if (!ok)
    ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                      "%s: writing attribute '%s' of %s", file_name (self), name, owner);
  if (a >= 0)
    H5Aclose (a);
  if (space >= 0)
    H5Sclose (space);
  if (mtype >= 0)
    H5Tclose (mtype);
  if (ftype >= 0)
    H5Tclose (ftype);
  return ok;
}

/* Whether the file's attribute @name of @loc holds what @attr holds (type,
 * length and values). */
static gboolean
attribute_matches (hid_t loc, NczAttribute *attr)
{
  const char *name = ncz_attribute_get_name (attr);
  NczDataType type = ncz_attribute_get_value_type (attr);
  gsize n = ncz_attribute_get_length (attr);
  hid_t a, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  gboolean match = FALSE;
  H5S_class_t sclass;
  hssize_t npoints;

  a = H5Aopen (loc, name, H5P_DEFAULT);
  if (a < 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      return FALSE;
    }
  ftype = H5Aget_type (a);
  space = H5Aget_space (a);
  if (ftype < 0 || space < 0)
    goto out;
  sclass = H5Sget_simple_extent_type (space);
  npoints = sclass == H5S_NULL ? 0 : H5Sget_simple_extent_npoints (space);
  if (type == NCZ_DATA_TYPE_CHAR)
    {
      gsize size = H5Tget_size (ftype);
      g_autofree char *file_text = NULL;
      g_autofree char *text = NULL;
      gsize length = 0;

      if (H5Tget_class (ftype) != H5T_STRING || H5Tis_variable_str (ftype) != 0)
        goto out;
      if (n == 0)
        {
          match = sclass == H5S_NULL;
          goto out;
        }
      if (sclass != H5S_SCALAR || size != n || H5Tget_cset (ftype) != H5T_CSET_ASCII)
        goto out;
      mtype = H5Tcopy (ftype);
      file_text = g_malloc0 (size + 1);
      if (mtype < 0 || ncz_h5_read_attribute (a, mtype, file_text) < 0)
        goto out;
      text = ncz_attribute_get_text (attr, &length);
      match = length == n && memcmp (text, file_text, n) == 0;
    }
  else if (type == NCZ_DATA_TYPE_STRING)
    {
      const char * const *strings = ncz_attribute_get_strings (attr);
      char **file_strings;

      if (H5Tget_class (ftype) != H5T_STRING || H5Tis_variable_str (ftype) <= 0 ||
          H5Tget_cset (ftype) != H5T_CSET_UTF8 || (gsize) npoints != n)
        goto out;
      if (n == 0)
        {
          match = sclass == H5S_NULL;
          goto out;
        }
      if (sclass != H5S_SIMPLE)
        goto out;
      mtype = mem_type (NCZ_DATA_TYPE_STRING);
      file_strings = g_new0 (char *, n);
      if (mtype >= 0 && ncz_h5_read_attribute (a, mtype, file_strings) >= 0)
        {
          match = TRUE;
          for (gsize i = 0; i < n; i++)
            if (g_strcmp0 (file_strings[i] ? file_strings[i] : "", strings[i]) != 0)
              match = FALSE;
          H5Dvlen_reclaim (mtype, space, H5P_DEFAULT, file_strings);
        }
      g_free (file_strings);
    }
  else
    {
      NczDataType ftype_ncz;
      NczEndianness e;
      gsize esize = ncz_data_type_get_size (type);
      gsize size = 0;
      gconstpointer values;
      g_autofree guint8 *buffer = NULL;

      if (!ncz_h5_type_to_ncz (ftype, &ftype_ncz, &e) || ftype_ncz != type ||
          (gsize) npoints != n)
        goto out;
      if (e != NCZ_ENDIANNESS_NATIVE &&
          (e == NCZ_ENDIANNESS_BIG) != (G_BYTE_ORDER == G_BIG_ENDIAN))
        goto out;
      if (n == 0)
        {
          match = sclass == H5S_NULL;
          goto out;
        }
      if (sclass != H5S_SIMPLE || H5Sget_simple_extent_ndims (space) != 1)
        goto out;
      mtype = mem_type (type);
      buffer = g_malloc (n * esize);
      if (mtype < 0 || ncz_h5_read_attribute (a, mtype, buffer) < 0)
        goto out;
      values = ncz_attribute_peek_values (attr, &size);
      match = memcmp (values, buffer, n * esize) == 0;
    }

out:
  if (mtype >= 0)
    H5Tclose (mtype);
  if (space >= 0)
    H5Sclose (space);
  if (ftype >= 0)
    H5Tclose (ftype);
  H5Aclose (a);
  H5Eclear2 (H5E_DEFAULT);
  return match;
}

static herr_t
collect_attribute_name (hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
  if (!is_hidden_attribute (name))
    g_ptr_array_add (data, g_strdup (name));
  return 0;
}

/* Makes the attributes of @loc those of @attrs (in order): the file's
 * (shown) attributes are compared in creation order with the model's, and
 * from the first that differs on, deleted and written again. */
static gboolean
sync_attributes (NczHdf5Format *self, hid_t loc, const char *owner, GPtrArray *attrs,
                 GError **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) model = g_ptr_array_new ();
  guint k = 0;

  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);

      if (!is_hidden_attribute (ncz_attribute_get_name (a)))
        g_ptr_array_add (model, a);
    }
  if (H5Aiterate2 (loc, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, collect_attribute_name,
                   names) < 0)
    {
      /* a file made without creation order: name order */
      H5Eclear2 (H5E_DEFAULT);
      g_ptr_array_set_size (names, 0);
      if (H5Aiterate2 (loc, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_attribute_name,
                       names) < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                            "%s: listing the attributes of %s", file_name (self), owner);
          return FALSE;
        }
    }
  while (k < names->len && k < model->len &&
         strcmp (g_ptr_array_index (names, k),
                 ncz_attribute_get_name (g_ptr_array_index (model, k))) == 0 &&
         attribute_matches (loc, g_ptr_array_index (model, k)))
    k++;
  for (guint i = k; i < names->len; i++)
    if (H5Adelete (loc, g_ptr_array_index (names, i)) < 0)
      {
        ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                          "%s: deleting attribute '%s' of %s", file_name (self),
                          (const char *) g_ptr_array_index (names, i), owner);
        return FALSE;
      }
  for (guint i = k; i < model->len; i++)
    if (!write_attribute (self, loc, owner, g_ptr_array_index (model, i), error))
      return FALSE;
  return TRUE;
}

/* A scalar or one-dimensional 32-bit integer attribute (netCDF-4's own). */
static gboolean
write_int_attribute (NczHdf5Format *self, hid_t loc, const char *owner, const char *name,
                     const int *values, gsize n, gboolean scalar, GError **error)
{
  hsize_t dims[1] = { n };
  hid_t space, a = H5I_INVALID_HID;
  gboolean ok = FALSE;

  if (H5Aexists (loc, name) > 0)
    H5Adelete (loc, name);
  space = scalar ? H5Screate (H5S_SCALAR) : H5Screate_simple (1, dims, NULL);
  if (space >= 0)
    a = H5Acreate2 (loc, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0 && H5Awrite (a, H5T_NATIVE_INT, values) >= 0)
    ok = TRUE;
  if (!ok)
    ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: writing %s of %s",
                      file_name (self), name, owner);
  if (a >= 0)
    H5Aclose (a);
  if (space >= 0)
    H5Sclose (space);
  return ok;
}

/* ---- the file ---- */

gboolean
ncz_h5_create (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  hid_t fcpl, fapl, root, space = H5I_INVALID_HID, type = H5I_INVALID_HID, a = H5I_INVALID_HID;
  unsigned major = 0, minor = 0, release = 0;
  g_autofree char *properties = NULL;
  gboolean ok = FALSE;

  fcpl = H5Pcreate (H5P_FILE_CREATE);
  fapl = ncz_h5_new_fapl ();
  if (fcpl < 0 || fapl < 0 ||
      H5Pset_obj_track_times (fcpl, FALSE) < 0 ||
      H5Pset_link_creation_order (fcpl, CRT_ORDER) < 0 ||
      H5Pset_attr_creation_order (fcpl, CRT_ORDER) < 0 ||
      H5Pset_libver_bounds (fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: setting up the file's creation properties", self->path);
      goto out;
    }
  self->file = H5Fcreate (self->stage_path, H5F_ACC_TRUNC, fcpl, fapl);
  if (self->file < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: creating the netCDF-4 file (as %s)", self->path, self->stage_path);
      goto out;
    }
  root = H5Gopen2 (self->file, "/", H5P_DEFAULT);
  if (root < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: opening the root group",
                        self->path);
      goto out;
    }
  ncz_h5_node (self, ncz_dataset_get_root_group (dataset))->id = root;

  /* _NCProperties: who wrote the file, as netCDF-4 records it: one
   * fixed-length ASCII string */
  H5get_libversion (&major, &minor, &release);
  properties = g_strdup_printf ("version=2,ncz=%s,hdf5=%u.%u.%u", NCZ_VERSION_STRING,
                                major, minor, release);
  type = H5Tcopy (H5T_C_S1);
  space = H5Screate (H5S_SCALAR);
  if (type < 0 || space < 0 || H5Tset_size (type, strlen (properties)) < 0 ||
      H5Tset_strpad (type, H5T_STR_NULLTERM) < 0 || H5Tset_cset (type, H5T_CSET_ASCII) < 0 ||
      (a = H5Acreate2 (root, ATT_NCPROPERTIES, type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
      H5Awrite (a, type, properties) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: writing _NCProperties",
                        self->path);
      goto out;
    }
  g_free (self->nc_properties);
  self->nc_properties = g_steal_pointer (&properties);
  /* netCDF-4 strings are variable length */
  ncz_dataset_set_variable_length_strings (dataset, TRUE);
  self->next_dimid = 0;
  self->superblock_version = 2;
  mark_dirty (self);
  ok = TRUE;

out:
  if (a >= 0)
    H5Aclose (a);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  if (fcpl >= 0)
    H5Pclose (fcpl);
  if (fapl >= 0)
    H5Pclose (fapl);
  if (!ok && self->file >= 0)
    {
      GHashTableIter iter;
      NczH5Node *node;

      g_hash_table_iter_init (&iter, self->nodes);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &node))
        if (node->id >= 0)
          {
            H5Oclose (node->id);
            node->id = H5I_INVALID_HID;
          }
      H5Fclose (self->file);
      self->file = H5I_INVALID_HID;
      H5Eclear2 (H5E_DEFAULT);
    }
  return ok;
}

/* ---- model helpers ---- */

/* A coordinate variable: named as its first dimension, which is in its
 * own group. */
static gboolean
is_coordinate (NczVariable *var)
{
  NczDimension *d0;

  if (ncz_variable_get_n_dimensions (var) == 0)
    return FALSE;
  d0 = ncz_variable_get_dimension (var, 0);
  return strcmp (ncz_dimension_get_name (d0), ncz_variable_get_name (var)) == 0 &&
         ncz_dimension_get_group (d0) == ncz_variable_get_group (var);
}

/* The coordinate variable of @dim, or NULL. */
static NczVariable *
coordinate_variable (NczDimension *dim)
{
  NczVariable *var = ncz_group_get_variable (ncz_dimension_get_group (dim),
                                             ncz_dimension_get_name (dim));

  if (var != NULL && is_coordinate (var) && ncz_variable_get_dimension (var, 0) == dim)
    return var;
  return NULL;
}

/* The HDF5 name of a variable's dataset. */
static char *
dataset_name (NczVariable *var)
{
  const char *name = ncz_variable_get_name (var);

  if (!is_coordinate (var) &&
      ncz_group_get_dimension (ncz_variable_get_group (var), name) != NULL)
    return g_strconcat (NON_COORD_PREFIX, name, NULL);
  return g_strdup (name);
}

static int
dimension_id (NczHdf5Format *self, NczDimension *dim)
{
  NczH5Node *node = ncz_h5_node (self, dim);

  if (node->dimid < 0)
    {
      if (!self->created)
        {
          /* a file opened for writing: after the ids it already has */
          GHashTableIter iter;
          NczH5Node *other;

          g_hash_table_iter_init (&iter, self->nodes);
          while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
            self->next_dimid = MAX (self->next_dimid, other->dimid + 1);
        }
      node->dimid = self->next_dimid++;
    }
  return node->dimid;
}

/* ---- storage of a variable ---- */

typedef struct {
  gboolean chunked;
  guint n_dims;
  hsize_t dims[H5S_MAX_RANK];
  hsize_t maxdims[H5S_MAX_RANK];
  hsize_t chunks[H5S_MAX_RANK];
} Storage;

static void netcdf_default_chunks (NczVariable *var, Storage *st);

/* The dataspace and layout of a variable: scalars and fixed-size
 * variables without filters are contiguous (as netCDF-4 makes them by
 * default) unless chunking was chosen for them; variables with an
 * unlimited dimension or filters are chunked. Chunked variables have the
 * model's chunk shape (at most the length of each fixed dimension, as
 * HDF5 requires). */
static gboolean
variable_storage (NczHdf5Format *self, NczVariable *var, Storage *st, GError **error)
{
  guint n = ncz_variable_get_n_dimensions (var);
  g_autoptr(GArray) filters = ncz_variable_get_filter_ids (var);
  const guint64 *chunks = NULL;
  gboolean unlimited = FALSE;

  memset (st, 0, sizeof *st);
  if (n > H5S_MAX_RANK)
    {
      g_autofree char *full = ncz_variable_get_full_name (var);

      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                   "%s: variable '%s' has %u dimensions, HDF5 allows %d",
                   file_name (self), full, n, H5S_MAX_RANK);
      return FALSE;
    }
  st->n_dims = n;
  if (n == 0)
    return TRUE;
  chunks = ncz_variable_get_chunk_sizes (var, NULL);
  for (guint i = 0; i < n; i++)
    {
      NczDimension *d = ncz_variable_get_dimension (var, i);
      guint64 len = ncz_dimension_get_length (d);

      st->dims[i] = len;
      if (ncz_dimension_is_unlimited (d))
        {
          unlimited = TRUE;
          st->maxdims[i] = H5S_UNLIMITED;
          st->chunks[i] = chunks != NULL && chunks[i] > 0 ? chunks[i] : 1;
        }
      else
        {
          st->maxdims[i] = len;
          st->chunks[i] = chunks != NULL && chunks[i] > 0 ? MIN (chunks[i], MAX (len, 1)) : MAX (len, 1);
        }
    }
  st->chunked = unlimited || filters->len > 0 ||
                (!ncz_variable_get_contiguous (var) && ncz_variable_is_chunking_set (var));
  if (st->chunked && !ncz_variable_is_chunking_set (var))
    netcdf_default_chunks (var, st);
  return TRUE;
}

/* netCDF-4's default chunk shape for a chunked variable whose chunking was
 * not chosen (netCDF-4 4.9's rule, so that a file reads back with the
 * chunk sizes netcdf-c would have given it): chunks of about 16 MiB,
 * shaped like the variable (the unlimited dimensions count 1), 4 KiB for
 * a one-dimensional record variable, halved while a chunk exceeds 4 GiB,
 * then trimmed so the last chunk along each fixed dimension is as full as
 * can be. */
#define NC4_DEFAULT_CHUNK_BYTES 16777216.0
#define NC4_DEFAULT_1D_UNLIMITED_BYTES 4096

static void
netcdf_default_chunks (NczVariable *var, Storage *st)
{
  NczDataType type = ncz_variable_get_value_type (var);
  gsize esize = type == NCZ_DATA_TYPE_STRING ? sizeof (char *) : ncz_data_type_get_size (type);
  guint n = st->n_dims, n_unlimited = 0;
  float n_values = 1;   /* single precision, as netCDF-4 counts */
  double bytes;

  for (guint i = 0; i < n; i++)
    {
      if (st->maxdims[i] == H5S_UNLIMITED)
        {
          n_unlimited++;
          st->chunks[i] = 1;
        }
      else
        {
          n_values *= (float) st->dims[i];
          st->chunks[i] = 0;
        }
    }
  if (n == 1 && n_unlimited == 1)
    {
      gsize per = (gsize) NC4_DEFAULT_CHUNK_BYTES / esize;

      per = per == 0 ? 1 : MIN (per, NC4_DEFAULT_1D_UNLIMITED_BYTES);
      st->chunks[0] = MAX (per / esize, 1);
    }
  if (n > 1 && n_unlimited == n)
    {
      hsize_t side = (hsize_t) pow (NC4_DEFAULT_CHUNK_BYTES / esize, 1.0 / n);

      for (guint i = 0; i < n; i++)
        st->chunks[i] = MAX (side, 1);
    }
  for (guint i = 0; i < n; i++)
    if (st->chunks[i] == 0)
      {
        double side = pow (NC4_DEFAULT_CHUNK_BYTES / (double) (n_values * (float) esize),
                           1.0 / (n - n_unlimited)) * (double) st->dims[i] - 0.5;
        hsize_t c = side > 0 ? (hsize_t) side : 0;

        st->chunks[i] = MAX (MIN (c, st->dims[i]), 1);
      }
  for (;;)
    {
      bytes = (double) esize;
      for (guint i = 0; i < n; i++)
        bytes *= (double) st->chunks[i];
      if (bytes <= (double) G_MAXUINT32)
        break;
      for (guint i = 0; i < n; i++)
        st->chunks[i] = MAX (st->chunks[i] / 2, 1);
    }
  for (guint i = 0; i < n; i++)
    {
      hsize_t len = st->maxdims[i] == H5S_UNLIMITED ? 0 : st->dims[i];
      hsize_t n_chunks = (len + st->chunks[i] - 1) / st->chunks[i];

      if (n_chunks > 0)
        st->chunks[i] -= (n_chunks * st->chunks[i] - len) / n_chunks;
    }
}

static gboolean
add_filters (NczHdf5Format *self, NczVariable *var, hid_t dcpl, GError **error)
{
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (var);

  for (guint i = 0; i < ids->len; i++)
    {
      guint id = g_array_index (ids, guint, i);
      g_autoptr(GArray) params = ncz_variable_get_filter_params (var, id, NULL);
      const guint *p = params != NULL ? (const guint *) params->data : NULL;
      guint np = params != NULL ? params->len : 0;
      herr_t status;

      switch (id)
        {
        case NCZ_FILTER_DEFLATE:
          status = H5Pset_deflate (dcpl, np > 0 ? p[0] : 1);
          break;
        case NCZ_FILTER_SHUFFLE:
          status = H5Pset_shuffle (dcpl);
          break;
        case NCZ_FILTER_FLETCHER32:
          status = H5Pset_fletcher32 (dcpl);
          break;
        case NCZ_FILTER_SZIP:
          status = np >= 2 ? H5Pset_szip (dcpl, p[0], p[1]) : -1;
          break;
        default:
          ncz_h5_filter_needed (id);          /* Ncz's codec as HDF5's filter */
          status = H5Pset_filter (dcpl, (H5Z_filter_t) id, H5Z_FLAG_MANDATORY, np, p);
          break;
        }
      if (status < 0)
        {
          g_autofree char *full = ncz_variable_get_full_name (var);

          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                            "%s: adding filter %u to variable '%s'", file_name (self), id, full);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
set_fill (NczHdf5Format *self, NczVariable *var, hid_t dcpl, GError **error)
{
  NczDataType type = ncz_variable_get_value_type (var);
  g_autoptr(GBytes) fill = NULL;
  gsize size = 0;
  const char *data;
  hid_t mtype;
  herr_t status;

  /* libhdf5 refuses fill time "never" for a variable-length type: a
   * string variable without fill keeps libhdf5's default, no fill value
   * defined, which reads back as _NoFill (as netcdf-c reads it) */
  if (ncz_variable_get_no_fill (var))
    return type == NCZ_DATA_TYPE_STRING ||
           H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER) >= 0;
  fill = ncz_variable_get_fill_value (var);
  data = fill != NULL ? g_bytes_get_data (fill, &size) : NULL;
  mtype = mem_type (type);
  if (mtype < 0)
    return FALSE;
  if (type == NCZ_DATA_TYPE_STRING)
    {
      g_autofree char *text = g_strndup (data != NULL ? data : "", size);

      status = H5Pset_fill_value (dcpl, mtype, &text);
    }
  else if (data != NULL && size == ncz_data_type_get_size (type))
    status = H5Pset_fill_value (dcpl, mtype, data);
  else
    status = 0;
  H5Tclose (mtype);
  if (status < 0)
    {
      g_autofree char *full = ncz_variable_get_full_name (var);

      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: setting the fill value of variable '%s'", file_name (self), full);
      return FALSE;
    }
  return TRUE;
}

/* ---- creating objects ---- */

static hid_t
object_create_plist (hid_t klass)
{
  hid_t plist = H5Pcreate (klass);

  if (plist < 0)
    return plist;
  if (H5Pset_obj_track_times (plist, FALSE) < 0 ||
      H5Pset_attr_creation_order (plist, CRT_ORDER) < 0 ||
      (klass == H5P_GROUP_CREATE && H5Pset_link_creation_order (plist, CRT_ORDER) < 0))
    {
      H5Pclose (plist);
      return H5I_INVALID_HID;
    }
  return plist;
}

/* Creates the groups of the tree that are not in the file, parents first. */
static gboolean
create_groups (NczHdf5Format *self, NczGroup *group, GError **error)
{
  NczH5Node *node = ncz_h5_node (self, group);
  g_autoptr(GPtrArray) children = NULL;

  if (node->id < 0 && !is_ours (self, group))
    return TRUE;
  if (node->id < 0)
    {
      NczH5Node *parent = ncz_h5_node (self, ncz_group_get_parent (group));
      hid_t gcpl = object_create_plist (H5P_GROUP_CREATE);

      if (gcpl >= 0)
        node->id = H5Gcreate2 (parent->id, ncz_group_get_name (group), H5P_DEFAULT, gcpl,
                               H5P_DEFAULT);
      if (gcpl >= 0)
        H5Pclose (gcpl);
      if (node->id < 0)
        {
          g_autofree char *full = ncz_group_get_full_name (group);

          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED, "%s: creating group '%s'",
                            file_name (self), full);
          return FALSE;
        }
      node->attrs_dirty = TRUE;
    }
  children = ncz_group_get_groups (group);
  for (guint i = 0; i < children->len; i++)
    if (!create_groups (self, g_ptr_array_index (children, i), error))
      return FALSE;
  return TRUE;
}

/* Makes @dataset the scale of @dim with netCDF-4's conventions. */
static gboolean
make_scale (NczHdf5Format *self, NczDimension *dim, hid_t dataset, const char *scale_name,
            GError **error)
{
  g_autofree char *full = ncz_dimension_get_full_name (dim);
  int dimid = dimension_id (self, dim);

  if (H5DSset_scale (dataset, scale_name) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: making the dimension scale of dimension '%s'",
                        file_name (self), full);
      return FALSE;
    }
  return write_int_attribute (self, dataset, full, ATT_DIMID, &dimid, 1, TRUE, error);
}

/* The dataset of a dimension without a coordinate variable. */
static gboolean
create_dimension_scale (NczHdf5Format *self, NczGroup *group, NczDimension *dim,
                        GError **error)
{
  NczH5Node *gnode = ncz_h5_node (self, group);
  NczH5Node *node = ncz_h5_node (self, dim);
  const char *name = ncz_dimension_get_name (dim);
  g_autofree char *full = ncz_dimension_get_full_name (dim);
  g_autofree char *scale_name = NULL;
  gboolean unlimited = ncz_dimension_is_unlimited (dim);
  /* an unlimited dimension's dataset is made empty, as netCDF-4 makes it
   * when the dimension is defined; the variables give its length */
  guint64 len = unlimited ? 0 : ncz_dimension_get_length (dim);
  hsize_t dims[1] = { len }, maxdims[1] = { unlimited ? H5S_UNLIMITED : len };
  hsize_t chunk[1] = { 1 };
  hid_t dcpl, space = H5I_INVALID_HID, dset = H5I_INVALID_HID;

  /* a variable stored under the dimension's name before the dimension
   * existed is not its coordinate variable: it moves aside */
  if (H5Lexists (gnode->id, name, H5P_DEFAULT) > 0)
    {
      g_autofree char *aside = g_strconcat (NON_COORD_PREFIX, name, NULL);

      if (H5Lmove (gnode->id, name, gnode->id, aside, H5P_DEFAULT, H5P_DEFAULT) < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                            "%s: renaming the dataset '%s' for dimension '%s'",
                            file_name (self), name, full);
          return FALSE;
        }
    }
  H5Eclear2 (H5E_DEFAULT);
  dcpl = object_create_plist (H5P_DATASET_CREATE);
  if (dcpl >= 0 && unlimited)
    H5Pset_chunk (dcpl, 1, chunk);
  if (dcpl >= 0)
    space = H5Screate_simple (1, dims, maxdims);
  if (space >= 0)
    dset = H5Dcreate2 (gnode->id, name, H5T_IEEE_F32BE, space, H5P_DEFAULT, dcpl,
                       H5P_DEFAULT);
  if (space >= 0)
    H5Sclose (space);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (dset < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: creating the dataset of dimension '%s'", file_name (self), full);
      return FALSE;
    }
  node->scale = dset;
  /* NAME says what it is, with the length it was made with */
  scale_name = g_strdup_printf ("%s%10u", DIM_WITHOUT_VARIABLE, (guint) MIN (len, G_MAXUINT));
  return make_scale (self, dim, dset, scale_name, error);
}

/* Every variable of the file using @dim, with the position of @dim. */
typedef struct {
  NczVariable *var;
  guint index;
} DimUse;

static GArray *
dimension_users (NczHdf5Format *self, NczDimension *dim)
{
  GArray *uses = g_array_new (FALSE, FALSE, sizeof (DimUse));
  GHashTableIter iter;
  gpointer key;
  NczH5Node *node;

  g_hash_table_iter_init (&iter, self->nodes);
  while (g_hash_table_iter_next (&iter, &key, (gpointer *) &node))
    {
      guint n;

      if (node->id < 0 || !NCZ_IS_VARIABLE (key))
        continue;
      n = ncz_variable_get_n_dimensions (key);
      for (guint i = 0; i < n; i++)
        if (ncz_variable_get_dimension (key, i) == dim)
          {
            DimUse u = { key, i };

            g_array_append_val (uses, u);
          }
    }
  return uses;
}

/* A coordinate variable defined after its dimension's own dataset was
 * made: that dataset is detached from the variables using it and
 * deleted, the variable's dataset is created in its place. Returns the
 * uses to attach the new scale to. */
static gboolean
drop_dimension_scale (NczHdf5Format *self, NczDimension *dim, GArray **uses, GError **error)
{
  NczH5Node *node = ncz_h5_node (self, dim);
  NczH5Node *gnode = ncz_h5_node (self, ncz_dimension_get_group (dim));
  g_autofree char *full = ncz_dimension_get_full_name (dim);

  *uses = dimension_users (self, dim);
  for (guint i = 0; i < (*uses)->len; i++)
    {
      DimUse *u = &g_array_index (*uses, DimUse, i);
      NczH5Node *vnode = ncz_h5_node (self, u->var);

      if (vnode->id != node->scale && H5DSis_attached (vnode->id, node->scale, u->index) > 0 &&
          H5DSdetach_scale (vnode->id, node->scale, u->index) < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                            "%s: detaching the dataset of dimension '%s'",
                            file_name (self), full);
          return FALSE;
        }
    }
  H5Eclear2 (H5E_DEFAULT);
  H5Dclose (node->scale);
  node->scale = H5I_INVALID_HID;
  if (H5Ldelete (gnode->id, ncz_dimension_get_name (dim), H5P_DEFAULT) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: deleting the dataset of dimension '%s'", file_name (self), full);
      return FALSE;
    }
  return TRUE;
}

static gboolean
attach_scales (NczHdf5Format *self, NczVariable *var, GError **error)
{
  NczH5Node *node = ncz_h5_node (self, var);
  guint n = ncz_variable_get_n_dimensions (var);

  /* a dimension scale cannot have scales attached: coordinate variables
   * tell their dimensions with _Netcdf4Coordinates only */
  if (is_coordinate (var))
    return TRUE;
  for (guint i = 0; i < n; i++)
    {
      NczDimension *dim = ncz_variable_get_dimension (var, i);
      NczH5Node *dnode = ncz_h5_peek_node (self, dim);

      if ((dnode == NULL || dnode->scale < 0) && !is_ours (self, dim))
        continue;   /* a dimension the file has no scale for (phony) */
      if (dnode == NULL || dnode->scale < 0 || H5DSattach_scale (node->id, dnode->scale, i) < 0)
        {
          g_autofree char *full = ncz_variable_get_full_name (var);
          g_autofree char *dfull = ncz_dimension_get_full_name (dim);

          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                            "%s: attaching the scale of dimension '%s' to variable '%s'",
                            file_name (self), dfull, full);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
create_variable (NczHdf5Format *self, NczVariable *var, GError **error)
{
  NczH5Node *node = ncz_h5_node (self, var);
  NczH5Node *gnode = ncz_h5_node (self, ncz_variable_get_group (var));
  g_autofree char *full = ncz_variable_get_full_name (var);
  g_autofree char *hname = dataset_name (var);
  g_autoptr(GPtrArray) attrs = NULL;
  g_autoptr(GArray) reattach = NULL;
  NczDataType type = ncz_variable_get_value_type (var);
  gboolean coordinate = is_coordinate (var);
  guint n = ncz_variable_get_n_dimensions (var);
  hid_t ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
  Storage st;
  gboolean ok = FALSE;

  if (!variable_storage (self, var, &st, error))
    return FALSE;
  if (coordinate)
    {
      NczH5Node *dnode = ncz_h5_node (self, ncz_variable_get_dimension (var, 0));

      if (dnode->scale >= 0)
        {
          WriteState *ws = write_state (self);

          if (!drop_dimension_scale (self, ncz_variable_get_dimension (var, 0), &reattach, error))
            return FALSE;
          ws->late_coordinate = ws->preserve_dimids = TRUE;
        }
    }
  ftype = file_type (type, ncz_variable_get_endianness (var));
  space = n == 0 ? H5Screate (H5S_SCALAR) : H5Screate_simple (n, st.dims, st.maxdims);
  dcpl = object_create_plist (H5P_DATASET_CREATE);
  if (ftype < 0 || space < 0 || dcpl < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: setting up the dataset of variable '%s'", file_name (self), full);
      goto out;
    }
  if (st.chunked && H5Pset_chunk (dcpl, n, st.chunks) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: chunking variable '%s'", file_name (self), full);
      goto out;
    }
  if (st.chunked && !add_filters (self, var, dcpl, error))
    goto out;
  if (!set_fill (self, var, dcpl, error))
    goto out;
  node->id = H5Dcreate2 (gnode->id, hname, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (node->id < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                        "%s: creating the dataset of variable '%s'", file_name (self), full);
      goto out;
    }
  if (n > 0)
    {
      g_autofree int *dimids = g_new (int, n);

      for (guint i = 0; i < n; i++)
        dimids[i] = dimension_id (self, ncz_variable_get_dimension (var, i));
      if (!write_int_attribute (self, node->id, full, ATT_COORDINATES, dimids, n, FALSE, error))
        goto out;
    }
  if (!coordinate && n > 0 && write_state (self)->preserve_dimids)
    {
      int dimid = dimension_id (self, ncz_variable_get_dimension (var, 0));

      if (!write_int_attribute (self, node->id, full, ATT_DIMID, &dimid, 1, TRUE, error))
        goto out;
    }
  if (coordinate)
    {
      NczDimension *dim = ncz_variable_get_dimension (var, 0);
      NczH5Node *dnode = ncz_h5_node (self, dim);

      if (!make_scale (self, dim, node->id, ncz_variable_get_name (var), error))
        goto out;
      /* the dimension holds a reference of its own to the dataset */
      H5Iinc_ref (node->id);
      dnode->scale = node->id;
      for (guint i = 0; reattach != NULL && i < reattach->len; i++)
        {
          DimUse *u = &g_array_index (reattach, DimUse, i);

          if (u->var != var && !attach_scales (self, u->var, error))
            goto out;
        }
    }
  attrs = ncz_variable_get_attributes (var);
  if (!sync_attributes (self, node->id, full, attrs, error))
    goto out;
  node->attrs_dirty = FALSE;
  ok = TRUE;

out:
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (space >= 0)
    H5Sclose (space);
  if (ftype >= 0)
    H5Tclose (ftype);
  return ok;
}

/* Creates what is missing of one group (not its subgroups). */
static gboolean
materialize_group (NczHdf5Format *self, NczGroup *group, GError **error)
{
  NczH5Node *gnode = ncz_h5_node (self, group);
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (group);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) created = g_ptr_array_new ();
  guint di = 0, vi = 0;

  if (gnode->attrs_dirty)
    {
      g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (group);
      g_autofree char *full = ncz_group_get_full_name (group);
      g_autofree char *owner = g_strdup_printf ("group '%s'", full);

      if (!sync_attributes (self, gnode->id, owner, attrs, error))
        return FALSE;
      gnode->attrs_dirty = FALSE;
    }

  /* dimensions in order up to one with a coordinate variable, then the
   * variables in order up to that one, and so on */
  while (di < dims->len || vi < vars->len)
    {
      NczVariable *waiting = NULL;

      while (di < dims->len && waiting == NULL)
        {
          NczDimension *dim = g_ptr_array_index (dims, di++);
          NczH5Node *dnode = ncz_h5_node (self, dim);

          waiting = coordinate_variable (dim);
          if (waiting != NULL && ncz_h5_node (self, waiting)->id >= 0)
            waiting = NULL;   /* already in the file */
          if (waiting == NULL && dnode->scale < 0 && is_ours (self, dim) &&
              !create_dimension_scale (self, group, dim, error))
            return FALSE;
        }
      while (vi < vars->len)
        {
          NczVariable *var = g_ptr_array_index (vars, vi++);
          NczH5Node *vnode = ncz_h5_node (self, var);

          if (vnode->unsupported || (vnode->id < 0 && !is_ours (self, var)))
            ;   /* not Ncz's to make (a type Ncz does not model, ...) */
          else if (vnode->id < 0)
            {
              if (!create_variable (self, var, error))
                return FALSE;
              g_ptr_array_add (created, var);
            }
          else if (vnode->attrs_dirty)
            {
              g_autoptr(GPtrArray) attrs = ncz_variable_get_attributes (var);
              g_autofree char *full = ncz_variable_get_full_name (var);

              if (!sync_attributes (self, vnode->id, full, attrs, error))
                return FALSE;
              vnode->attrs_dirty = FALSE;
            }
          if (var == waiting)
            break;
        }
    }
  for (guint i = 0; i < created->len; i++)
    if (!attach_scales (self, g_ptr_array_index (created, i), error))
      return FALSE;
  return TRUE;
}

static gboolean
materialize_tree (NczHdf5Format *self, NczGroup *group, GError **error)
{
  g_autoptr(GPtrArray) children = NULL;

  if (ncz_h5_node (self, group)->id < 0)
    return TRUE;
  if (!materialize_group (self, group, error))
    return FALSE;
  children = ncz_group_get_groups (group);
  for (guint i = 0; i < children->len; i++)
    if (!materialize_tree (self, g_ptr_array_index (children, i), error))
      return FALSE;
  return TRUE;
}

/* Whether netCDF-4 would record each variable's first dimension id in
 * _Netcdf4Dimid too, because the dimension ids would not follow from the
 * order of the datasets when the file is read again: a coordinate
 * variable with more than one dimension, coordinate variables in another
 * order than their dimensions, or a coordinate variable made after its
 * dimension's own dataset. */
static gboolean
needs_dimids (NczHdf5Format *self, NczGroup *group)
{
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) children = ncz_group_get_groups (group);
  int last = -1;

  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *var = g_ptr_array_index (vars, i);
      int dimid;

      if (!is_coordinate (var))
        continue;
      if (ncz_variable_get_n_dimensions (var) > 1)
        return TRUE;
      dimid = dimension_id (self, ncz_variable_get_dimension (var, 0));
      if (dimid < last)
        return TRUE;
      last = dimid;
    }
  for (guint i = 0; i < children->len; i++)
    if (needs_dimids (self, g_ptr_array_index (children, i)))
      return TRUE;
  return FALSE;
}

gboolean
ncz_h5_materialize (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  WriteState *st = write_state (self);
  NczGroup *root;

  if (!self->writable || self->file < 0 || !st->dirty)
    return TRUE;
  root = ncz_dataset_get_root_group (dataset);
  if (ncz_h5_node (self, root)->id < 0)
    {
      g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_FAILED,
                   "%s: the root group is not open", file_name (self));
      return FALSE;
    }
  st->preserve_dimids = st->late_coordinate || needs_dimids (self, root);
  if (!create_groups (self, root, error) || !materialize_tree (self, root, error))
    return FALSE;
  st->dirty = FALSE;
  return TRUE;
}

/* ---- sync: the extents along unlimited dimensions ---- */

static gboolean
extend_dataset (NczHdf5Format *self, hid_t dset, const guint64 *lengths, guint n,
                const char *what, GError **error)
{
  hsize_t cur[H5S_MAX_RANK], want[H5S_MAX_RANK];
  hid_t space = H5Dget_space (dset);
  gboolean grow = FALSE;
  int rank;

  if (space < 0)
    goto fail;
  rank = H5Sget_simple_extent_ndims (space);
  if (rank < 0 || (guint) rank != n || H5Sget_simple_extent_dims (space, cur, NULL) < 0)
    {
      H5Sclose (space);
      goto fail;
    }
  H5Sclose (space);
  for (guint i = 0; i < n; i++)
    {
      want[i] = MAX (cur[i], lengths[i]);
      if (want[i] > cur[i])
        grow = TRUE;
    }
  if (!grow || H5Dset_extent (dset, want) >= 0)
    return TRUE;

fail:
  ncz_h5_set_error (error, NCZ_BACKEND_ERROR_FAILED,
                    "%s: extending %s along its unlimited dimension", file_name (self), what);
  return FALSE;
}

/* Variables along an unlimited dimension are extended to its length (the
 * dataset of a dimension without a variable keeps the length it was made
 * with, as in netCDF-4: readers take the longest variable). */
static gboolean
sync_group (NczHdf5Format *self, NczGroup *group, GError **error)
{
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (group);
  g_autoptr(GPtrArray) children = ncz_group_get_groups (group);

  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *var = g_ptr_array_index (vars, i);
      NczH5Node *node = ncz_h5_peek_node (self, var);
      guint n = ncz_variable_get_n_dimensions (var);
      guint64 lengths[H5S_MAX_RANK];
      gboolean unlimited = FALSE;

      if (node == NULL || node->id < 0 || node->unsupported || n == 0 || n > H5S_MAX_RANK)
        continue;
      for (guint d = 0; d < n; d++)
        {
          NczDimension *dim = ncz_variable_get_dimension (var, d);

          lengths[d] = ncz_dimension_get_length (dim);
          unlimited |= ncz_dimension_is_unlimited (dim);
        }
      if (unlimited)
        {
          g_autofree char *full = ncz_variable_get_full_name (var);
          g_autofree char *what = g_strdup_printf ("variable '%s'", full);

          if (!extend_dataset (self, node->id, lengths, n, what, error))
            return FALSE;
        }
    }
  for (guint i = 0; i < children->len; i++)
    if (!sync_group (self, g_ptr_array_index (children, i), error))
      return FALSE;
  return TRUE;
}

gboolean
ncz_h5_sync (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  if (!self->writable || self->file < 0)
    return TRUE;
  return sync_group (self, ncz_dataset_get_root_group (dataset), error);
}

/* ---- definition hooks ---- */

gboolean
ncz_h5_group_defined (NczHdf5Format *self, NczGroup *group,
                      NczDefinitionChange change, GError **error)
{
  if (change == NCZ_DEFINITION_ADDED)
    note_defined (self, group);
  mark_dirty (self);
  return TRUE;
}

gboolean
ncz_h5_dimension_defined (NczHdf5Format *self, NczDimension *dimension,
                          NczDefinitionChange change, GError **error)
{
  if (change == NCZ_DEFINITION_ADDED)
    {
      note_defined (self, dimension);
      dimension_id (self, dimension);
    }
  mark_dirty (self);
  return TRUE;
}

/* What of the dataset of @var differs from the model's definition, or
 * NULL. */
static const char *
dataset_difference (NczHdf5Format *self, NczVariable *var, hid_t dset)
{
  const char *what = NULL;
  hid_t dcpl = H5Dget_create_plist (dset);
  hid_t type = H5Dget_type (dset);
  Storage st;
  H5D_layout_t layout;
  g_autoptr(GArray) ids = ncz_variable_get_filter_ids (var);
  NczDataType t;
  NczEndianness e;
  H5D_fill_time_t fill_time;
  H5D_fill_value_t fill_status;

  if (dcpl < 0 || type < 0 || !variable_storage (self, var, &st, NULL))
    {
      what = "its definition";
      goto out;
    }
  layout = H5Pget_layout (dcpl);
  if (st.n_dims > 0 && (layout == H5D_CHUNKED) != st.chunked && layout != H5D_COMPACT)
    {
      what = st.chunked ? "its chunking (the dataset is contiguous)"
                        : "its storage (the dataset is chunked)";
      goto out;
    }
  if (layout == H5D_CHUNKED && st.chunked)
    {
      hsize_t chunks[H5S_MAX_RANK];
      int rank = H5Pget_chunk (dcpl, H5S_MAX_RANK, chunks);

      if (rank < 0 || (guint) rank != st.n_dims ||
          memcmp (chunks, st.chunks, rank * sizeof (hsize_t)) != 0)
        {
          what = "its chunk sizes";
          goto out;
        }
    }
  if ((guint) MAX (H5Pget_nfilters (dcpl), 0) != (st.chunked ? ids->len : 0))
    {
      what = "its filters";
      goto out;
    }
  for (guint i = 0; st.chunked && i < ids->len; i++)
    {
      unsigned flags = 0;
      size_t n = 16;
      unsigned values[16];
      guint id = g_array_index (ids, guint, i);
      H5Z_filter_t fid = H5Pget_filter2 (dcpl, i, &flags, &n, values, 0, NULL, NULL);

      if (fid < 0 || (guint) fid != id)
        {
          what = "its filters";
          goto out;
        }
      if (id != NCZ_FILTER_SHUFFLE && id != NCZ_FILTER_SZIP && id != NCZ_FILTER_FLETCHER32)
        {
          g_autoptr(GArray) params = ncz_variable_get_filter_params (var, id, NULL);
          guint np = params != NULL ? params->len : 0;

          if (np > n || (np > 0 && n <= 16 &&
                         memcmp (values, params->data, np * sizeof (guint)) != 0))
            {
              what = "the parameters of its filters";
              goto out;
            }
        }
    }
  if (ncz_h5_type_to_ncz (type, &t, &e) && is_numeric (t) &&
      ncz_data_type_get_size (t) > 1 && ncz_variable_get_endianness (var) != NCZ_ENDIANNESS_NATIVE &&
      e != ncz_variable_get_endianness (var))
    {
      what = "its endianness";
      goto out;
    }
  /* without fill as the reader sees it: never filled, or (strings) no
   * fill value defined */
  if (H5Pget_fill_time (dcpl, &fill_time) >= 0 &&
      H5Pfill_value_defined (dcpl, &fill_status) >= 0 &&
      (fill_time == H5D_FILL_TIME_NEVER || fill_status != H5D_FILL_VALUE_USER_DEFINED) !=
        (ncz_variable_get_no_fill (var) != FALSE))
    {
      what = "its fill mode";
      goto out;
    }
  if (!ncz_variable_get_no_fill (var) && ncz_h5_type_to_ncz (type, &t, NULL))
    {
      g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);
      hid_t mtype = mem_type (t);
      guint8 buffer[16] = { 0 };
      gsize size = 0;
      gconstpointer data = fill != NULL ? g_bytes_get_data (fill, &size) : NULL;

      if (t == NCZ_DATA_TYPE_STRING)
        {
          char *file_fill = NULL;
          g_autofree char *text = g_strndup (data != NULL ? data : "", size);

          if (mtype >= 0 && H5Pget_fill_value (dcpl, mtype, &file_fill) >= 0 &&
              g_strcmp0 (file_fill != NULL ? file_fill : "", text) != 0)
            what = "its fill value";
          H5free_memory (file_fill);
        }
      else if (mtype >= 0 && data != NULL && size <= sizeof buffer &&
               H5Pget_fill_value (dcpl, mtype, buffer) >= 0 && memcmp (buffer, data, size) != 0)
        what = "its fill value";
      if (mtype >= 0)
        H5Tclose (mtype);
    }

out:
  if (type >= 0)
    H5Tclose (type);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  return what;
}

gboolean
ncz_h5_variable_defined (NczHdf5Format *self, NczVariable *variable,
                         NczDefinitionChange change, GError **error)
{
  NczH5Node *node = ncz_h5_node (self, variable);

  if (change == NCZ_DEFINITION_ADDED)
    note_defined (self, variable);
  mark_dirty (self);
  node->attrs_dirty = TRUE;   /* _FillValue, _Quantize... follow definitions */
  if (change == NCZ_DEFINITION_CHANGED && node->id >= 0 && !node->unsupported)
    {
      const char *what = dataset_difference (self, variable, node->id);

      if (what != NULL)
        {
          g_autofree char *full = ncz_variable_get_full_name (variable);

          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_UNSUPPORTED,
                       "%s: variable '%s' is already in the file: HDF5 cannot change %s",
                       file_name (self), full, what);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ncz_h5_attribute_defined (NczHdf5Format *self, GObject *owner, const char *name,
                          NczAttribute *attribute, NczDefinitionChange change,
                          GError **error)
{
  if (attribute != NULL && is_hidden_attribute (name))
    {
      g_autofree char *full = NCZ_IS_VARIABLE (owner)
                              ? ncz_variable_get_full_name (NCZ_VARIABLE (owner))
                              : ncz_group_get_full_name (NCZ_GROUP (owner));

      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_INVALID,
                   "%s: attribute '%s' of '%s': the name is reserved by netCDF-4/HDF5",
                   file_name (self), name, full);
      return FALSE;
    }
  ncz_h5_node (self, owner)->attrs_dirty = TRUE;
  mark_dirty (self);
  return TRUE;
}
