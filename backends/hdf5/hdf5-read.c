/* hdf5-read.c: loading a netCDF-4 file into the model
 *
 * The file is read in two passes over its group tree, in the order
 * netcdf-c reads it, so that names and numbers come out as ncdump shows
 * them:
 *
 * 1. Top down, each group's links in creation order (name order when the
 *    file does not track it): subgroups are added to the model, datasets
 *    are examined, and every dimension scale (CLASS = "DIMENSION_SCALE")
 *    becomes a dimension of its group, numbered by its _Netcdf4Dimid
 *    (scales without one are numbered after the highest id seen) and added
 *    in that order. A scale whose NAME starts with "This is a netCDF
 *    dimension but not a netCDF variable" is a dimension only; any other
 *    scale is also its coordinate variable. A dataset named
 *    "_nc4_non_coord_NAME" is the variable NAME that shares its name with
 *    a dimension without being its coordinate variable.
 *
 * 2. Children before parents, the other datasets become variables. A
 *    variable's dimensions come from _Netcdf4Coordinates (netCDF-4 ids,
 *    file-wide), else from the scales DIMENSION_LIST attaches to each axis
 *    (matched by object identity), else they are phony: a dimension of
 *    the group with the axis' length and unlimitedness not yet used by the
 *    variable, or a new one named "phony_dim_N" (N the next free id), as
 *    netcdf-c 4.9 infers them for files written by h5py and others. An
 *    unlimited dimension is as long as the longest extent along it.
 *
 * Hard and soft links are followed: an object reached by two links shows
 * twice, as netcdf-c shows it. External links (other files) and links
 * back to the group itself or an enclosing one are not followed.
 *
 * Attributes are read in creation order (the stored order when not
 * tracked).
 * Those netCDF-4 keeps for itself are not shown: _Netcdf4Dimid,
 * _Netcdf4Coordinates, DIMENSION_LIST, REFERENCE_LIST, CLASS, NAME,
 * _ARRAY_DIMENSIONS, _nc3_strict (it makes the file's format "netCDF-4
 * classic model"), and the root's _NCProperties, which ncdump -s shows
 * through ncz_h5_describe_dataset().
 *
 * User-defined types (compound, enum, opaque, vlen, references, ...) have
 * no place in the model: variables and attributes of those types, and
 * named datatypes, are left out of it (with a g_debug) rather than failing
 * the file, and ncz_h5_describe_dataset() lists them in a virtual
 * attribute `_Unsupported` ("/path/name (class)", one a line), so
 * ncz-dump -s shows what was left out.
 *
 * Fill values: a _FillValue attribute is the variable's fill value in
 * its place among the attributes (one not of the variable's type, which
 * the model cannot hold, is left out and listed as unsupported); otherwise a fill value set in the
 * dataset's creation properties fills unwritten elements without being an
 * attribute. A dataset whose fill time is "never", or whose fill value
 * was never set, has no fill (_NoFill), as netcdf-c reads it.
 *
 * Everything read is checked (ranks, sizes, counts, references, ids); a
 * damaged file gives a GError naming the file and the object at fault.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdarg.h>
#include <string.h>

#include "hdf5-private.h"

#define NON_COORD_PREFIX "_nc4_non_coord_"
#define DIM_ONLY_PREFIX "This is a netCDF dimension but not a netCDF variable"
/* More elements than this in one attribute is taken for damage */
#define MAX_ATTRIBUTE_ELEMENTS ((hsize_t) 1 << 26)
#define MAX_FILTER_PARAMS 256   /* libhdf5 refuses more */
#define MAX_DIMID (G_MAXINT / 2)

/* node->data of a variable read from the file */
typedef struct {
  int layout;          /* H5D_layout_t */
} VarInfo;

/* node->data of the root group */
typedef struct {
  gboolean is_netcdf4;
  gboolean classic;
  char unsupported[];  /* "/path (class)\n..." ; "" when nothing */
} RootInfo;

typedef struct {
  char *link_name;
  char *name;               /* the netCDF name */
  hid_t id;
  hid_t type;
  int rank;
  hsize_t dims[H5S_MAX_RANK];
  hsize_t maxdims[H5S_MAX_RANK];
  gboolean is_scale;
  gboolean dim_only;
  int dimid;                /* _Netcdf4Dimid, -1 when absent */
  GArray *coords;           /* int: _Netcdf4Coordinates, or NULL */
  NczDimension *dim;        /* the dimension of a scale */
} DsInfo;

typedef struct _GroupInfo GroupInfo;
struct _GroupInfo {
  NczGroup *group;
  hid_t id;                 /* owned by the group's node */
  char *path;
  GPtrArray *datasets;      /* DsInfo */
  GPtrArray *children;      /* GroupInfo */
  GroupInfo *parent;
  char *key;                /* object_key() of the group */
};

typedef struct {
  NczHdf5Format *self;
  const char *file;
  GHashTable *dims_by_id;   /* int id -> NczDimension */
  GHashTable *scales;       /* object key -> GPtrArray of NczDimension */
  GString *unsupported;
  int next_dimid;
  guint n_markers;          /* attributes with names netCDF-4 reserves */
  gboolean classic;
} Loader;

static void
ds_info_free (gpointer p)
{
  DsInfo *ds = p;

  if (ds->id >= 0)
    H5Dclose (ds->id);
  if (ds->type >= 0)
    H5Tclose (ds->type);
  g_free (ds->link_name);
  g_free (ds->name);
  if (ds->coords)
    g_array_unref (ds->coords);
  g_free (ds);
}

static void
group_info_free (gpointer p)
{
  GroupInfo *g = p;

  g_free (g->path);
  g_free (g->key);
  g_ptr_array_unref (g->datasets);
  g_ptr_array_unref (g->children);
  g_free (g);
}

static const char *
file_name (NczHdf5Format *self)
{
  if (self->path != NULL)
    return self->path;
  return self->url ? ncz_url_get_original (self->url) : "(HDF5 file)";
}

static char *
child_path (const char *parent, const char *name)
{
  return g_str_equal (parent, "/") ? g_strconcat ("/", name, NULL)
                                   : g_strconcat (parent, "/", name, NULL);
}

static void
bad (Loader *L, GError **error, const char *object, const char *format, ...) G_GNUC_PRINTF (4, 5);

static void
bad (Loader *L, GError **error, const char *object, const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, NCZ_H5_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: %s: %s",
               L->file, object, what);
}

static void
note_unsupported (Loader *L, const char *object, const char *what)
{
  g_debug ("%s: %s is left out: %s", L->file, object, what);
  g_string_append_printf (L->unsupported, "%s (%s)\n", object, what);
}

static const char *
class_name (hid_t type)
{
  switch (H5Tget_class (type))
    {
    case H5T_COMPOUND: return "compound type";
    case H5T_ENUM: return "enum type";
    case H5T_OPAQUE: return "opaque type";
    case H5T_VLEN: return "vlen type";
    case H5T_ARRAY: return "array type";
    case H5T_REFERENCE: return "reference type";
    case H5T_BITFIELD: return "bitfield type";
    case H5T_TIME: return "time type";
    case H5T_INTEGER: return "integer type of unusual size";
    case H5T_FLOAT: return "floating-point type of unusual size";
    case H5T_STRING: return "string type";
    default: return "unknown type";
    }
}

/* A key naming an object of the file (its address). */
static char *
object_key (hid_t obj)
{
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  char *text = NULL;
  char *key;

  if (H5Oget_info3 (obj, &info, H5O_INFO_BASIC) < 0)
    return NULL;
  if (H5Otoken_to_str (obj, &info.token, &text) < 0)
    return NULL;
  key = g_strdup_printf ("%lu:%s", (unsigned long) info.fileno, text);
  H5free_memory (text);
  return key;
#else
  H5O_info_t info;

  if (H5Oget_info2 (obj, &info, H5O_INFO_BASIC) < 0)
    return NULL;
  return g_strdup_printf ("%lu:%" G_GUINT64_FORMAT, (unsigned long) info.fileno,
                          (guint64) info.addr);
#endif
}

/* ---- reading small attributes netCDF-4 uses for itself ---- */

/* The number of elements of @space, FALSE if it is not a plain space of
 * at most MAX_ATTRIBUTE_ELEMENTS. */
static gboolean
space_n_elements (hid_t space, hsize_t *n)
{
  H5S_class_t klass = H5Sget_simple_extent_type (space);
  hssize_t npoints;

  if (klass == H5S_NULL)
    {
      *n = 0;
      return TRUE;
    }
  if (klass == H5S_SCALAR)
    {
      *n = 1;
      return TRUE;
    }
  if (klass != H5S_SIMPLE)
    return FALSE;
  npoints = H5Sget_simple_extent_npoints (space);
  if (npoints < 0 || (hsize_t) npoints > MAX_ATTRIBUTE_ELEMENTS)
    return FALSE;
  *n = (hsize_t) npoints;
  return TRUE;
}

/* Text of a string attribute (fixed or variable length, one element);
 * NULL when absent or of another kind. */
static char *
read_text_attribute (hid_t obj, const char *name)
{
  hid_t attr, type = H5I_INVALID_HID, space = H5I_INVALID_HID, mem = H5I_INVALID_HID;
  char *result = NULL;
  hsize_t n = 0;

  if (H5Aexists (obj, name) <= 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      return NULL;
    }
  attr = H5Aopen (obj, name, H5P_DEFAULT);
  if (attr < 0)
    goto out;
  type = H5Aget_type (attr);
  space = H5Aget_space (attr);
  if (type < 0 || space < 0 || H5Tget_class (type) != H5T_STRING ||
      !space_n_elements (space, &n) || n != 1)
    goto out;
  if (H5Tis_variable_str (type) > 0)
    {
      char *s = NULL;

      mem = H5Tcopy (H5T_C_S1);
      H5Tset_size (mem, H5T_VARIABLE);
      H5Tset_cset (mem, H5Tget_cset (type));
      if (ncz_h5_read_attribute (attr, mem, &s) >= 0)
        result = g_strdup (s ? s : "");
      H5free_memory (s);      /* also what a failed read converted */
    }
  else
    {
      size_t size = H5Tget_size (type);

      if (size > 0 && size < (1u << 24))
        {
          char *buf = g_malloc0 (size + 1);

          mem = H5Tcopy (type);
          if (ncz_h5_read_attribute (attr, mem, buf) >= 0)
            result = buf;
          else
            g_free (buf);
        }
    }
out:
  if (mem >= 0)
    H5Tclose (mem);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  if (attr >= 0)
    H5Aclose (attr);
  H5Eclear2 (H5E_DEFAULT);
  return result;
}

/* An integer attribute as ints: *@out NULL when absent; FALSE (with
 * @error) when present but not integers. */
static gboolean
read_int_attribute (Loader *L, hid_t obj, const char *object, const char *name, GArray **out,
                    GError **error)
{
  hid_t attr, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
  hsize_t n = 0;
  gboolean ok = FALSE;
  GArray *values;

  *out = NULL;
  if (H5Aexists (obj, name) <= 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      return TRUE;
    }
  attr = H5Aopen (obj, name, H5P_DEFAULT);
  if (attr < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: opening attribute %s of %s",
                        L->file, name, object);
      return FALSE;
    }
  type = H5Aget_type (attr);
  space = H5Aget_space (attr);
  if (type < 0 || space < 0 || H5Tget_class (type) != H5T_INTEGER ||
      !space_n_elements (space, &n) || n > H5S_MAX_RANK * 64)
    {
      H5Eclear2 (H5E_DEFAULT);
      bad (L, error, object, "attribute %s is not a short list of integers", name);
      goto out;
    }
  values = g_array_sized_new (FALSE, TRUE, sizeof (int), (guint) n);
  g_array_set_size (values, (guint) n);
  if (n > 0 && ncz_h5_read_attribute (attr, H5T_NATIVE_INT, values->data) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: reading attribute %s of %s",
                        L->file, name, object);
      g_array_unref (values);
      goto out;
    }
  *out = values;
  ok = TRUE;
out:
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (attr);
  return ok;
}

/* ---- attributes of the model ---- */

static gboolean
hidden_attribute (const char *name, gboolean is_root)
{
  static const char * const hidden[] = {
    "_Netcdf4Dimid", "_Netcdf4Coordinates", "DIMENSION_LIST", "REFERENCE_LIST",
    "CLASS", "NAME", "_ARRAY_DIMENSIONS", "_nc3_strict", "_NCZARR_ATTR", "_nczarr_attr",
    NULL
  };

  for (guint i = 0; hidden[i]; i++)
    if (g_str_equal (name, hidden[i]))
      return TRUE;
  return is_root && g_str_equal (name, "_NCProperties");
}

/* Attribute names netCDF-4 reserves for itself */
static gboolean
netcdf_marker (const char *name)
{
  static const char * const reserved[] = {
    "CLASS", "DIMENSION_LIST", "NAME", "REFERENCE_LIST", "_ARRAY_DIMENSIONS", "_Codecs",
    "_Format", "_IsNetcdf4", "_NCProperties", "_NCZARR_ATTR", "_Netcdf4Coordinates",
    "_Netcdf4Dimid", "_SuperblockVersion", "_nc3_strict", "_nczarr_attr", NULL
  };

  for (guint i = 0; reserved[i]; i++)
    if (g_str_equal (name, reserved[i]))
      return TRUE;
  return FALSE;
}

typedef struct {
  GPtrArray *names;
} NameList;

static herr_t
collect_attribute_name (hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
  NameList *list = data;

  g_ptr_array_add (list->names, g_strdup (name));
  return 0;
}

/* Names of @obj's attributes in creation order when tracked, else in the
 * order they are stored (which is the order they were written in while
 * few), as netcdf-c lists them. @cpl is the object's creation property list. */
static GPtrArray *
attribute_names (Loader *L, hid_t obj, hid_t cpl, const char *object, GError **error)
{
  unsigned flags = 0;
  H5_index_t index = H5_INDEX_NAME;
  H5_iter_order_t order = H5_ITER_NATIVE;
  NameList list = { g_ptr_array_new_with_free_func (g_free) };
  hsize_t idx = 0;

  if (cpl >= 0 && H5Pget_attr_creation_order (cpl, &flags) >= 0 &&
      (flags & H5P_CRT_ORDER_TRACKED) != 0)
    {
      index = H5_INDEX_CRT_ORDER;
      order = H5_ITER_INC;
    }
  H5Eclear2 (H5E_DEFAULT);
  if (H5Aiterate2 (obj, index, order, &idx, collect_attribute_name, &list) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: listing the attributes of %s", L->file, object);
      g_ptr_array_unref (list.names);
      return NULL;
    }
  return list.names;
}

/* Reads one attribute. Returns FALSE with @error on damage; TRUE with
 * *@out NULL when the attribute's type has no place in the model (then
 * *@why says which). */
static gboolean
read_attribute (Loader *L, hid_t obj, const char *object, const char *name, NczAttribute **out,
                const char **why, GError **error)
{
  hid_t attr, type = H5I_INVALID_HID, space = H5I_INVALID_HID, mem = H5I_INVALID_HID;
  hsize_t n = 0;
  gboolean ok = FALSE;
  NczDataType t;
  g_autofree char *where = g_strdup_printf ("attribute %s of %s", name, object);

  *out = NULL;
  *why = NULL;
  attr = H5Aopen (obj, name, H5P_DEFAULT);
  if (attr < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: opening %s", L->file, where);
      return FALSE;
    }
  type = H5Aget_type (attr);
  space = H5Aget_space (attr);
  if (type < 0 || space < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading the type and shape of %s", L->file, where);
      goto out;
    }
  if (!space_n_elements (space, &n))
    {
      bad (L, error, where, "its dataspace is not a plain list of at most %" G_GUINT64_FORMAT
           " values", (guint64) MAX_ATTRIBUTE_ELEMENTS);
      goto out;
    }
  if (!ncz_h5_type_to_ncz (type, &t, NULL))
    {
      H5Eclear2 (H5E_DEFAULT);
      *why = class_name (type);
      ok = TRUE;
      goto out;
    }

  if (H5Tget_class (type) == H5T_STRING && H5Tis_variable_str (type) <= 0)
    {
      /* char: the fixed-size text as it is stored (one string) */
      size_t size = H5Tget_size (type);
      g_autofree char *buf = NULL;

      if (size == 0 || size > (1u << 28) || (n > 0 && size > (1u << 28) / n))
        {
          bad (L, error, where, "a text of %zu bytes by %" G_GUINT64_FORMAT " is too large",
               size, (guint64) n);
          goto out;
        }
      if ((hsize_t) size * n > H5Aget_storage_size (attr))
        {
          bad (L, error, where, "%" G_GUINT64_FORMAT " values of %zu bytes do not fit in its "
               "%" G_GUINT64_FORMAT " bytes", (guint64) n, size,
               (guint64) H5Aget_storage_size (attr));
          goto out;
        }
      buf = g_malloc0 (size * n + 1);
      mem = H5Tcopy (type);
      if (n > 0 && (mem < 0 || ncz_h5_read_attribute (attr, mem, buf) < 0))
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: reading %s",
                            L->file, where);
          goto out;
        }
      if (n <= 1)
        *out = ncz_attribute_new_text (name, buf, (gssize) (size * n));
      else
        {
          /* several fixed-size strings: a string attribute, each one up
           * to its first NUL */
          g_autoptr(GPtrArray) strv = g_ptr_array_new_with_free_func (g_free);

          for (hsize_t i = 0; i < n; i++)
            g_ptr_array_add (strv, g_strndup (buf + i * size, size));
          *out = ncz_attribute_new_strings (name, (const char * const *) strv->pdata,
                                            (gssize) n);
        }
    }
  else if (t == NCZ_DATA_TYPE_STRING)
    {
      g_autofree char **strv = g_new0 (char *, n + 1);
      g_autofree const char **shown = g_new0 (const char *, n + 1);

      mem = H5Tcopy (H5T_C_S1);
      H5Tset_size (mem, H5T_VARIABLE);
      H5Tset_cset (mem, H5Tget_cset (type));
      if (n > 0 && ncz_h5_read_attribute (attr, mem, strv) < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: reading %s",
                            L->file, where);
          /* the strings libhdf5 converted before it failed are ours */
          for (hsize_t i = 0; i < n; i++)
            H5free_memory (strv[i]);
          goto out;
        }
      for (hsize_t i = 0; i < n; i++)
        shown[i] = strv[i] ? strv[i] : "";
      *out = ncz_attribute_new_strings (name, shown, (gssize) n);
      if (n > 0)
        H5Dvlen_reclaim (mem, space, H5P_DEFAULT, strv);
    }
  else
    {
      gsize size = ncz_data_type_get_size (t);
      g_autofree guint8 *buf = NULL;
      g_autoptr(GError) local = NULL;

      if ((hsize_t) H5Tget_size (type) * n > H5Aget_storage_size (attr))
        {
          bad (L, error, where, "%" G_GUINT64_FORMAT " values of %zu bytes do not fit in its "
               "%" G_GUINT64_FORMAT " bytes", (guint64) n, H5Tget_size (type),
               (guint64) H5Aget_storage_size (attr));
          goto out;
        }
      buf = g_malloc0 (MAX (size * n, 1));

      mem = ncz_h5_mem_type (t);
      if (n > 0 && (mem < 0 || ncz_h5_read_attribute (attr, mem, buf) < 0))
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: reading %s",
                            L->file, where);
          goto out;
        }
      *out = ncz_attribute_new_values (name, t, buf, n, &local);
      if (*out == NULL)
        {
          bad (L, error, where, "%s", local->message);
          goto out;
        }
    }
  if (*out == NULL)
    {
      bad (L, error, where, "not a valid attribute");
      goto out;
    }
  ok = TRUE;
out:
  H5Eclear2 (H5E_DEFAULT);
  if (mem >= 0)
    H5Tclose (mem);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (attr);
  return ok;
}

/* Reads @obj's attributes into the group (@group) or variable (@var). */
static gboolean
load_attributes (Loader *L, hid_t obj, hid_t cpl, const char *object, NczGroup *group,
                 NczVariable *var, gboolean is_root, GError **error)
{
  g_autoptr(GPtrArray) names = attribute_names (L, obj, cpl, object, error);

  if (names == NULL)
    return FALSE;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(NczAttribute) attr = NULL;
      g_autoptr(GError) local = NULL;
      const char *why = NULL;
      gboolean ok;

      if (hidden_attribute (name, is_root))
        continue;
      if (*name == '\0' || !g_utf8_validate (name, -1, NULL))
        {
          /* the model's attribute names are UTF-8 (a damaged name) */
          g_autofree char *shown = g_utf8_make_valid (name, -1);

          bad (L, error, object, "attribute name '%s' is not valid UTF-8", shown);
          return FALSE;
        }
      if (!read_attribute (L, obj, object, name, &attr, &why, error))
        return FALSE;
      if (attr == NULL)
        {
          g_autofree char *what = g_strdup_printf ("%s:%s", object, name);
          note_unsupported (L, what, why);
          continue;
        }
      ok = var ? ncz_variable_set_attribute (var, attr, &local)
               : ncz_group_set_attribute (group, attr, &local);
      if (!ok && var != NULL && g_str_equal (name, "_FillValue"))
        {
          /* not one value of the variable's type: the model has no place
           * for it; the dataset's own fill value still applies */
          g_autofree char *what = g_strdup_printf ("%s:%s", object, name);
          note_unsupported (L, what, "_FillValue not of the variable's type");
          continue;
        }
      if (!ok)
        {
          g_autofree char *where = g_strdup_printf ("attribute %s of %s", name, object);
          bad (L, error, where, "%s", local->message);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- pass 1: groups, datasets, dimension scales ---- */

/* Names of @gid's links in creation order when tracked, else name order. */
static GPtrArray *
link_names (Loader *L, hid_t gid, const char *path, GError **error)
{
  hid_t gcpl = H5Gget_create_plist (gid);
  unsigned flags = 0;
  H5_index_t index = H5_INDEX_NAME;
  H5G_info_t info;
  GPtrArray *names;

  if (gcpl >= 0 && H5Pget_link_creation_order (gcpl, &flags) >= 0 &&
      (flags & H5P_CRT_ORDER_TRACKED) != 0)
    index = H5_INDEX_CRT_ORDER;
  if (gcpl >= 0)
    H5Pclose (gcpl);
  H5Eclear2 (H5E_DEFAULT);
  if (H5Gget_info (gid, &info) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: reading group %s",
                        L->file, path);
      return NULL;
    }
  if (info.nlinks > (1u << 24))
    {
      bad (L, error, path, "%" G_GUINT64_FORMAT " links is more than a group can hold",
           (guint64) info.nlinks);
      return NULL;
    }
  names = g_ptr_array_new_with_free_func (g_free);
  for (hsize_t i = 0; i < info.nlinks; i++)
    {
      ssize_t len = H5Lget_name_by_idx (gid, ".", index, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
      char *name;

      if (len < 0 || len > (1 << 20))
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: reading the name of link %" G_GUINT64_FORMAT " of group %s",
                            L->file, (guint64) i, path);
          g_ptr_array_unref (names);
          return NULL;
        }
      name = g_malloc0 ((gsize) len + 1);
      if (H5Lget_name_by_idx (gid, ".", index, H5_ITER_INC, i, name, (size_t) len + 1,
                              H5P_DEFAULT) < 0)
        {
          g_free (name);
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: reading the name of link %" G_GUINT64_FORMAT " of group %s",
                            L->file, (guint64) i, path);
          g_ptr_array_unref (names);
          return NULL;
        }
      g_ptr_array_add (names, name);
    }
  return names;
}

/* Whether link @name of @gid is followed: hard and soft links are, as
 * netcdf-c follows them (an object reached by two links shows twice);
 * external links, which name other files, are not. */
static gboolean
link_followed (hid_t gid, const char *name)
{
#if H5_VERSION_GE(1, 12, 0)
  H5L_info2_t info;

  if (H5Lget_info2 (gid, name, &info, H5P_DEFAULT) < 0)
#else
  H5L_info_t info;

  if (H5Lget_info (gid, name, &info, H5P_DEFAULT) < 0)
#endif
    {
      H5Eclear2 (H5E_DEFAULT);
      return FALSE;
    }
  if (info.type == H5L_TYPE_SOFT && H5Oexists_by_name (gid, name, H5P_DEFAULT) <= 0)
    {
      /* a dangling soft link */
      H5Eclear2 (H5E_DEFAULT);
      return FALSE;
    }
  return info.type == H5L_TYPE_HARD || info.type == H5L_TYPE_SOFT;
}

static gboolean
examine_dataset (Loader *L, GroupInfo *g, hid_t id, const char *link_name, GError **error)
{
  DsInfo *ds = g_new0 (DsInfo, 1);
  g_autofree char *object = child_path (g->path, link_name);
  g_autofree char *klass = NULL;
  g_autoptr(GArray) dimid = NULL;
  hid_t space;
  H5S_class_t sclass;

  ds->id = id;
  ds->type = H5I_INVALID_HID;
  ds->dimid = -1;
  ds->link_name = g_strdup (link_name);
  ds->name = g_strdup (link_name);
  g_ptr_array_add (g->datasets, ds);

  ds->type = H5Dget_type (id);
  space = H5Dget_space (id);
  if (ds->type < 0 || space < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading the type and shape of dataset %s", L->file, object);
      if (space >= 0)
        H5Sclose (space);
      return FALSE;
    }
  sclass = H5Sget_simple_extent_type (space);
  if (sclass == H5S_SCALAR)
    ds->rank = 0;
  else if (sclass == H5S_SIMPLE)
    {
      ds->rank = H5Sget_simple_extent_ndims (space);
      if (ds->rank < 0 || ds->rank > H5S_MAX_RANK ||
          H5Sget_simple_extent_dims (space, ds->dims, ds->maxdims) < 0)
        {
          H5Sclose (space);
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: reading the shape of dataset %s", L->file, object);
          return FALSE;
        }
    }
  else
    ds->rank = -1;      /* a null dataspace: no place in the model */
  H5Sclose (space);

  /* netCDF-4's own attribute names, counted to tell whether netCDF-4
   * wrote the file (_IsNetcdf4) as netcdf-c does */
  {
    g_autoptr(GPtrArray) names = attribute_names (L, id, H5I_INVALID_HID, object, error);

    if (names == NULL)
      return FALSE;
    for (guint i = 0; i < names->len; i++)
      if (netcdf_marker (g_ptr_array_index (names, i)))
        L->n_markers++;
  }

  klass = read_text_attribute (id, "CLASS");
  ds->is_scale = klass != NULL && g_str_equal (klass, "DIMENSION_SCALE") && ds->rank >= 1;
  if (!read_int_attribute (L, id, object, "_Netcdf4Coordinates", &ds->coords, error))
    return FALSE;
  if (g_str_has_prefix (link_name, NON_COORD_PREFIX) && link_name[strlen (NON_COORD_PREFIX)])
    {
      g_free (ds->name);
      ds->name = g_strdup (link_name + strlen (NON_COORD_PREFIX));
    }
  if (!ds->is_scale)
    return TRUE;

  {
    g_autofree char *nm = read_text_attribute (id, "NAME");
    ds->dim_only = nm != NULL && g_str_has_prefix (nm, DIM_ONLY_PREFIX);
  }
  if (!read_int_attribute (L, id, object, "_Netcdf4Dimid", &dimid, error))
    return FALSE;
  if (dimid)
    {
      if (dimid->len != 1 || g_array_index (dimid, int, 0) < 0 ||
          g_array_index (dimid, int, 0) > MAX_DIMID)
        {
          bad (L, error, object, "_Netcdf4Dimid is not one dimension id");
          return FALSE;
        }
      ds->dimid = g_array_index (dimid, int, 0);
    }
  return TRUE;
}

static int
compare_scales (gconstpointer a, gconstpointer b)
{
  const DsInfo *x = *(DsInfo * const *) a, *y = *(DsInfo * const *) b;

  return (x->dimid > y->dimid) - (x->dimid < y->dimid);
}

static gboolean
add_scale_dimensions (Loader *L, GroupInfo *g, GError **error)
{
  g_autoptr(GPtrArray) scales = g_ptr_array_new ();

  for (guint i = 0; i < g->datasets->len; i++)
    {
      DsInfo *ds = g_ptr_array_index (g->datasets, i);

      if (!ds->is_scale)
        continue;
      if (ds->dimid >= 0)
        {
          if (g_hash_table_contains (L->dims_by_id, GINT_TO_POINTER (ds->dimid)))
            {
              g_autofree char *object = child_path (g->path, ds->link_name);
              bad (L, error, object, "_Netcdf4Dimid %d is used twice", ds->dimid);
              return FALSE;
            }
          /* reserved now, set below */
          g_hash_table_insert (L->dims_by_id, GINT_TO_POINTER (ds->dimid), NULL);
          L->next_dimid = MAX (L->next_dimid, ds->dimid + 1);
        }
      g_ptr_array_add (scales, ds);
    }
  for (guint i = 0; i < scales->len; i++)
    {
      DsInfo *ds = g_ptr_array_index (scales, i);

      if (ds->dimid < 0)
        {
          if (L->next_dimid > MAX_DIMID)
            {
              bad (L, error, g->path, "too many dimensions");
              return FALSE;
            }
          ds->dimid = L->next_dimid++;
          g_hash_table_insert (L->dims_by_id, GINT_TO_POINTER (ds->dimid), NULL);
        }
    }
  g_ptr_array_sort (scales, compare_scales);
  for (guint i = 0; i < scales->len; i++)
    {
      DsInfo *ds = g_ptr_array_index (scales, i);
      g_autofree char *object = child_path (g->path, ds->link_name);
      g_autoptr(GError) local = NULL;
      gboolean unlimited = ds->maxdims[0] == H5S_UNLIMITED;
      NczH5Node *node;
      char *key;

      /* an unlimited dimension is as long as its longest variable, as
       * netcdf-c counts it: the extent of a dimension-only scale does not
       * count */
      ds->dim = ncz_group_add_dimension (g->group, ds->name,
                                         unlimited && ds->dim_only ? 0 : ds->dims[0],
                                         unlimited, &local);
      if (ds->dim == NULL)
        {
          bad (L, error, object, "dimension %s: %s", ds->name, local->message);
          return FALSE;
        }
      g_hash_table_insert (L->dims_by_id, GINT_TO_POINTER (ds->dimid), ds->dim);
      key = object_key (ds->id);
      if (key == NULL)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: reading the object header of %s", L->file, object);
          return FALSE;
        }
      {
        /* a scale reached by several links is a dimension in each group */
        GPtrArray *dims = g_hash_table_lookup (L->scales, key);

        if (dims == NULL)
          {
            dims = g_ptr_array_new ();
            g_hash_table_insert (L->scales, key, dims);
          }
        else
          g_free (key);
        g_ptr_array_add (dims, ds->dim);
      }
      node = ncz_h5_node (L->self, ds->dim);
      node->dimid = ds->dimid;
      if (ds->dim_only)
        {
          /* the node owns the scale from now on */
          node->scale = ds->id;
          ds->id = H5I_INVALID_HID;
        }
    }
  return TRUE;
}

static gboolean
read_group (Loader *L, GroupInfo *g, int depth, GError **error)
{
  g_autoptr(GPtrArray) names = NULL;

  if (depth > 256)
    {
      bad (L, error, g->path, "groups are nested too deep");
      return FALSE;
    }
  names = link_names (L, g->id, g->path, error);
  if (names == NULL)
    return FALSE;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *object = child_path (g->path, name);
      hid_t obj;
      H5I_type_t kind;

      if (!link_followed (g->id, name))
        continue;
      obj = H5Oopen (g->id, name, H5P_DEFAULT);
      if (obj < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: opening %s",
                            L->file, object);
          return FALSE;
        }
      kind = H5Iget_type (obj);
      if (kind == H5I_GROUP)
        {
          g_autofree char *key = object_key (obj);
          gboolean cycle = key == NULL;

          for (GroupInfo *a = g; a != NULL && !cycle; a = a->parent)
            cycle = a->key != NULL && g_str_equal (a->key, key);
          if (cycle)
            {
              /* a link to the group itself or an enclosing one */
              H5Eclear2 (H5E_DEFAULT);
              H5Gclose (obj);
              note_unsupported (L, object, "a link to an enclosing group");
              continue;
            }
          g_free (g_steal_pointer (&key));
        }
      if (kind == H5I_GROUP)
        {
          GroupInfo *child = g_new0 (GroupInfo, 1);
          g_autoptr(GError) local = NULL;

          child->id = obj;
          child->parent = g;
          child->key = object_key (obj);
          child->path = g_steal_pointer (&object);
          child->datasets = g_ptr_array_new_with_free_func (ds_info_free);
          child->children = g_ptr_array_new_with_free_func (group_info_free);
          g_ptr_array_add (g->children, child);
          child->group = ncz_group_add_group (g->group, name, &local);
          if (child->group == NULL)
            {
              H5Gclose (obj);
              bad (L, error, child->path, "%s", local->message);
              return FALSE;
            }
          ncz_h5_node (L->self, child->group)->id = obj;
        }
      else if (kind == H5I_DATASET)
        {
          if (!examine_dataset (L, g, obj, name, error))
            return FALSE;
        }
      else
        {
          if (kind == H5I_DATATYPE)
            note_unsupported (L, object, "named datatype");
          H5Oclose (obj);
        }
    }
  if (!add_scale_dimensions (L, g, error))
    return FALSE;
  for (guint i = 0; i < g->children->len; i++)
    if (!read_group (L, g_ptr_array_index (g->children, i), depth + 1, error))
      return FALSE;
  return TRUE;
}

/* ---- pass 2: variables ---- */

/* Whether @dim is in @group or a group enclosing it. */
static gboolean
dimension_visible (NczGroup *group, NczDimension *dim)
{
  NczGroup *owner = ncz_dimension_get_group (dim);

  for (NczGroup *g = group; g != NULL; g = ncz_group_get_parent (g))
    if (g == owner)
      return TRUE;
  return FALSE;
}

/* The scales DIMENSION_LIST attaches to each axis (NULL where none). */
static gboolean
dimension_list (Loader *L, NczGroup *group, DsInfo *ds, const char *object, NczDimension **dims,
                GError **error)
{
  hid_t attr, type = H5I_INVALID_HID, space = H5I_INVALID_HID, mem = H5I_INVALID_HID;
  hvl_t lists[H5S_MAX_RANK];
  hsize_t n = 0;
  gboolean ok = FALSE, read = FALSE;

  if (H5Aexists (ds->id, "DIMENSION_LIST") <= 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      return TRUE;
    }
  attr = H5Aopen (ds->id, "DIMENSION_LIST", H5P_DEFAULT);
  if (attr < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: opening DIMENSION_LIST of %s", L->file, object);
      return FALSE;
    }
  type = H5Aget_type (attr);
  space = H5Aget_space (attr);
  if (type < 0 || space < 0 || H5Tget_class (type) != H5T_VLEN ||
      !space_n_elements (space, &n) || n != (hsize_t) ds->rank)
    {
      H5Eclear2 (H5E_DEFAULT);
      bad (L, error, object, "DIMENSION_LIST is not one list of references per dimension");
      goto out;
    }
  {
    hid_t base = H5Tget_super (type);
    gboolean refs = base >= 0 && H5Tget_class (base) == H5T_REFERENCE;

    if (base >= 0)
      H5Tclose (base);
    if (!refs)
      {
        H5Eclear2 (H5E_DEFAULT);
        bad (L, error, object, "DIMENSION_LIST does not hold object references");
        goto out;
      }
  }
  mem = H5Tvlen_create (H5T_STD_REF_OBJ);
  memset (lists, 0, sizeof lists);
  if (mem < 0 || ncz_h5_read_attribute (attr, mem, lists) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading DIMENSION_LIST of %s", L->file, object);
      /* the lists libhdf5 converted before it failed are ours */
      for (int i = 0; i < ds->rank; i++)
        H5free_memory (lists[i].p);
      goto out;
    }
  read = TRUE;
  for (int i = 0; i < ds->rank; i++)
    {
      hobj_ref_t ref;
      hid_t scale;
      g_autofree char *key = NULL;
      GPtrArray *dims_of_scale;
      NczDimension *dim;

      if (lists[i].len == 0 || lists[i].p == NULL)
        continue;
      memcpy (&ref, lists[i].p, sizeof ref);
      scale = H5Rdereference2 (ds->id, H5P_DEFAULT, H5R_OBJECT, &ref);
      if (scale < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: following the reference of DIMENSION_LIST[%d] of %s",
                            L->file, i, object);
          goto out;
        }
      key = object_key (scale);
      H5Oclose (scale);
      dims_of_scale = key ? g_hash_table_lookup (L->scales, key) : NULL;
      dim = NULL;
      for (guint j = 0; dims_of_scale && j < dims_of_scale->len && dim == NULL; j++)
        if (dimension_visible (group, g_ptr_array_index (dims_of_scale, j)))
          dim = g_ptr_array_index (dims_of_scale, j);
      H5Eclear2 (H5E_DEFAULT);
      if (dim == NULL)
        {
          bad (L, error, object, "DIMENSION_LIST[%d] does not refer to a dimension scale of "
               "the group or an enclosing one", i);
          goto out;
        }
      dims[i] = dim;
    }
  ok = TRUE;
out:
  if (read)
    H5Dvlen_reclaim (mem, space, H5P_DEFAULT, lists);
  H5Eclear2 (H5E_DEFAULT);
  if (mem >= 0)
    H5Tclose (mem);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  H5Aclose (attr);
  return ok;
}

/* A dimension of @g for an axis without a scale: one of the group's with
 * that length and unlimitedness not used by the variable's earlier axes,
 * or a new phony_dim_N. */
static NczDimension *
phony_dimension (Loader *L, GroupInfo *g, guint64 len, gboolean unlimited,
                 NczDimension **used, int n_used, GError **error)
{
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (g->group);
  g_autofree char *name = NULL;
  g_autoptr(GError) local = NULL;
  NczDimension *dim;

  for (guint i = 0; dims && i < dims->len; i++)
    {
      NczDimension *d = g_ptr_array_index (dims, i);
      gboolean taken = FALSE;

      if (ncz_dimension_get_length (d) != len || !ncz_dimension_is_unlimited (d) != !unlimited)
        continue;
      for (int j = 0; j < n_used && !taken; j++)
        taken = used[j] == d;
      if (!taken)
        return d;
    }
  if (L->next_dimid > MAX_DIMID)
    {
      bad (L, error, g->path, "too many dimensions");
      return NULL;
    }
  name = g_strdup_printf ("phony_dim_%d", L->next_dimid);
  dim = ncz_group_add_dimension (g->group, name, len, unlimited, &local);
  if (dim == NULL)
    {
      bad (L, error, g->path, "dimension %s: %s", name, local->message);
      return NULL;
    }
  ncz_h5_node (L->self, dim)->dimid = L->next_dimid;
  g_hash_table_insert (L->dims_by_id, GINT_TO_POINTER (L->next_dimid), dim);
  L->next_dimid++;
  return dim;
}

static NczFilterSpec *
filter_spec (guint id, const unsigned *cd, size_t n_cd)
{
  guint params[MAX_FILTER_PARAMS];
  gsize n = 0;
  g_autoptr(NczCodec) codec = NULL;
  NczFilterSpec *spec = NULL;

  switch (id)
    {
    case NCZ_FILTER_DEFLATE:
      if (n_cd >= 1)
        params[n++] = cd[0];
      break;
    case NCZ_FILTER_SHUFFLE:
    case NCZ_FILTER_FLETCHER32:
      break;       /* HDF5 adds the element size; netCDF shows none */
    case NCZ_FILTER_SZIP:
      /* options mask (coding method only: HDF5 adds its own flags) and
       * pixels per block, as netCDF shows them */
      if (n_cd >= 2)
        {
          params[n++] = cd[0] & (4u | 32u);
          params[n++] = cd[1];
        }
      break;
    default:
      for (; n < n_cd && n < MAX_FILTER_PARAMS; n++)
        params[n] = cd[n];
    }
  codec = ncz_registry_lookup_codec_by_filter_id (ncz_registry_get_default (), id, NULL);
  if (codec != NULL)
    {
      g_autofree char *json = ncz_codec_params_to_json_text (codec, params, n, NULL);

      if (json != NULL)
        {
          spec = ncz_filter_spec_new (ncz_codec_get_codec_id (codec), id, json);
          spec->codec = g_object_ref (codec);
        }
    }
  if (spec == NULL)
    spec = ncz_filter_spec_new (NULL, id, NULL);
  if (n > 0)
    g_array_append_vals (spec->visible, params, (guint) n);
  return spec;
}

static gboolean
load_filters (Loader *L, hid_t dcpl, const char *object, GPtrArray **out, GError **error)
{
  int n = H5Pget_nfilters (dcpl);
  g_autoptr(GPtrArray) specs = NULL;

  *out = NULL;
  if (n < 0 || n > 64)
    {
      H5Eclear2 (H5E_DEFAULT);
      bad (L, error, object, "the filter pipeline cannot be read");
      return FALSE;
    }
  if (n == 0)
    return TRUE;
  specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ncz_filter_spec_free);
  for (int i = 0; i < n; i++)
    {
      unsigned flags = 0, config = 0;
      size_t n_cd = MAX_FILTER_PARAMS;
      g_autofree unsigned *cd = g_new0 (unsigned, MAX_FILTER_PARAMS);
      char fname[64];
      H5Z_filter_t id = H5Pget_filter2 (dcpl, (unsigned) i, &flags, &n_cd, cd, sizeof fname,
                                        fname, &config);

      if (id < 0)
        {
          ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                            "%s: reading filter %d of %s", L->file, i, object);
          return FALSE;
        }
      if (id == 0 || id > 65535 || n_cd > MAX_FILTER_PARAMS)
        {
          bad (L, error, object, "filter %d has id %d and %zu parameters", i, (int) id, n_cd);
          return FALSE;
        }
      ncz_h5_filter_needed ((guint) id);    /* Ncz's codec as HDF5's filter */
      g_ptr_array_add (specs, filter_spec ((guint) id, cd, n_cd));
    }
  *out = g_steal_pointer (&specs);
  return TRUE;
}

/* The fill value and the no-fill flag of the dataset's creation
 * properties, when no _FillValue attribute said it. */
static gboolean
load_fill (Loader *L, DsInfo *ds, NczVariable *var, NczDataType type, hid_t dcpl,
           const char *object, GError **error)
{
  H5D_fill_value_t status;
  H5D_fill_time_t fill_time = H5D_FILL_TIME_IFSET;
  g_autoptr(GError) local = NULL;
  gboolean no_fill;

  if (H5Pfill_value_defined (dcpl, &status) < 0 || H5Pget_fill_time (dcpl, &fill_time) < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading the fill value of %s", L->file, object);
      return FALSE;
    }
  no_fill = fill_time == H5D_FILL_TIME_NEVER || status != H5D_FILL_VALUE_USER_DEFINED;
  if (status == H5D_FILL_VALUE_USER_DEFINED && !ncz_variable_has_user_fill_value (var) &&
      !no_fill)
    {
      g_autoptr(GBytes) value = NULL;
      hid_t mem = ncz_h5_mem_type (type);

      if (mem < 0)
        return TRUE;
      if (type == NCZ_DATA_TYPE_STRING)
        {
          char *s = NULL;

          if (H5Pget_fill_value (dcpl, mem, &s) >= 0 && s != NULL)
            {
              if (*s != '\0')
                value = g_bytes_new (s, strlen (s) + 1);
              H5free_memory (s);
            }
        }
      else if (type == NCZ_DATA_TYPE_CHAR)
        {
          char c = 0;

          if (H5Pget_fill_value (dcpl, mem, &c) >= 0 && c != 0)
            value = g_bytes_new (&c, 1);
        }
      else
        {
          guint8 buf[8] = { 0 };
          gsize size = ncz_data_type_get_size (type);
          g_autoptr(GBytes) dflt = ncz_data_type_get_default_fill (type);

          if (H5Pget_fill_value (dcpl, mem, buf) >= 0)
            {
              value = g_bytes_new (buf, size);
              if (dflt && g_bytes_equal (dflt, value))
                g_clear_pointer (&value, g_bytes_unref);
            }
        }
      H5Tclose (mem);
      H5Eclear2 (H5E_DEFAULT);
      if (value)
        ncz_variable_set_storage_fill_value (var, value);
    }
  if (no_fill && !ncz_variable_set_no_fill (var, TRUE, &local))
    {
      bad (L, error, object, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_variable (Loader *L, GroupInfo *g, DsInfo *ds, GError **error)
{
  g_autofree char *object = child_path (g->path, ds->link_name);
  NczDimension *dims[H5S_MAX_RANK] = { NULL };
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) filters = NULL;
  NczDataType type;
  NczEndianness endianness;
  NczVariable *var;
  NczH5Node *node;
  VarInfo *info;
  hid_t dcpl;
  H5D_layout_t layout;
  gboolean ok = FALSE;

  if (ds->rank < 0)
    {
      note_unsupported (L, object, "null dataspace");
      return TRUE;
    }
  if (!ncz_h5_type_to_ncz (ds->type, &type, &endianness))
    {
      H5Eclear2 (H5E_DEFAULT);
      note_unsupported (L, object, class_name (ds->type));
      return TRUE;
    }

  /* the dimensions of each axis */
  if (ds->coords)
    {
      if (ds->coords->len != (guint) ds->rank)
        {
          bad (L, error, object, "_Netcdf4Coordinates has %u ids for %d dimensions",
               ds->coords->len, ds->rank);
          return FALSE;
        }
      for (int i = 0; i < ds->rank; i++)
        {
          int id = g_array_index (ds->coords, int, i);
          NczDimension *d = id >= 0 ? g_hash_table_lookup (L->dims_by_id, GINT_TO_POINTER (id))
                                    : NULL;

          if (d == NULL || !dimension_visible (g->group, d))
            {
              bad (L, error, object, "_Netcdf4Coordinates[%d] = %d is not a dimension of the "
                   "group or an enclosing one", i, id);
              return FALSE;
            }
          dims[i] = d;
        }
    }
  else
    {
      if (ds->is_scale)
        dims[0] = ds->dim;
      if (ds->rank > (ds->is_scale ? 1 : 0) && !dimension_list (L, g->group, ds, object, dims, error))
        return FALSE;
      if (ds->is_scale)
        dims[0] = ds->dim;
      for (int i = 0; i < ds->rank; i++)
        if (dims[i] != NULL && !dimension_visible (g->group, dims[i]))
          {
            bad (L, error, object, "dimension %d is not in the group or an enclosing one", i);
            return FALSE;
          }
    }
  for (int i = 0; i < ds->rank; i++)
    {
      gboolean unlimited = ds->maxdims[i] == H5S_UNLIMITED;

      if (dims[i] == NULL)
        {
          dims[i] = phony_dimension (L, g, ds->dims[i], unlimited, dims, i, error);
          if (dims[i] == NULL)
            return FALSE;
        }
      if (!ncz_dimension_is_unlimited (dims[i]) &&
          ncz_dimension_get_length (dims[i]) != ds->dims[i])
        {
          bad (L, error, object, "dimension %d has length %" G_GUINT64_FORMAT " but %s is %"
               G_GUINT64_FORMAT " long", i, (guint64) ds->dims[i],
               ncz_dimension_get_name (dims[i]), ncz_dimension_get_length (dims[i]));
          return FALSE;
        }
    }

  var = ncz_group_add_variable (g->group, ds->name, type, (guint) ds->rank, dims, &local);
  if (var == NULL)
    {
      bad (L, error, object, "%s", local->message);
      return FALSE;
    }
  for (int i = 0; i < ds->rank; i++)
    if (ncz_dimension_is_unlimited (dims[i]))
      ncz_dimension_grow (dims[i], ds->dims[i]);

  node = ncz_h5_node (L->self, var);
  node->id = ds->id;
  ds->id = H5I_INVALID_HID;
  if (ds->is_scale && ds->dim != NULL)
    ncz_h5_node (L->self, ds->dim)->scale = node->id;
  info = g_new0 (VarInfo, 1);
  node->data = info;

  if (type == NCZ_DATA_TYPE_STRING)
    {
      if (H5Tis_variable_str (ds->type) > 0)
        ncz_variable_set_variable_length_strings (var, TRUE);
      else
        {
          size_t size = H5Tget_size (ds->type);

          if (size == 0 || size > G_MAXINT)
            {
              bad (L, error, object, "a string type of %zu bytes", size);
              return FALSE;
            }
          ncz_variable_set_variable_length_strings (var, FALSE);
          ncz_variable_set_max_string_length (var, (guint) size);
        }
    }
  else if (type != NCZ_DATA_TYPE_CHAR &&
           !ncz_variable_set_endianness (var, endianness, &local))
    {
      bad (L, error, object, "%s", local->message);
      return FALSE;
    }

  dcpl = H5Dget_create_plist (node->id);
  if (dcpl < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading the creation properties of %s", L->file, object);
      return FALSE;
    }
  layout = H5Pget_layout (dcpl);
  info->layout = layout;
  if (layout == H5D_CHUNKED)
    {
      hsize_t chunks[H5S_MAX_RANK];
      guint64 sizes[H5S_MAX_RANK];
      int n = H5Pget_chunk (dcpl, H5S_MAX_RANK, chunks);

      if (n != ds->rank)
        {
          H5Eclear2 (H5E_DEFAULT);
          bad (L, error, object, "its chunks have rank %d, the dataset %d", n, ds->rank);
          goto out;
        }
      for (int i = 0; i < n; i++)
        {
          if (chunks[i] == 0)
            {
              bad (L, error, object, "a chunk size is 0");
              goto out;
            }
          sizes[i] = chunks[i];
        }
      if (n > 0 && !ncz_variable_set_chunk_sizes (var, sizes, (guint) n, &local))
        {
          bad (L, error, object, "chunk sizes: %s", local->message);
          goto out;
        }
    }
  else if (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT || layout == H5D_VIRTUAL)
    {
      if (!ncz_variable_set_contiguous (var, TRUE, &local))
        {
          bad (L, error, object, "%s", local->message);
          goto out;
        }
    }
  else
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA,
                        "%s: reading the storage layout of %s", L->file, object);
      goto out;
    }
  if (!load_filters (L, dcpl, object, &filters, error))
    goto out;
  if (!load_attributes (L, node->id, dcpl, object, NULL, var, FALSE, error))
    goto out;
  if (!load_fill (L, ds, var, type, dcpl, object, error))
    goto out;
  ncz_variable_set_filters (var, g_steal_pointer (&filters));
  ok = TRUE;
out:
  H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  return ok;
}

static gboolean
load_variables (Loader *L, GroupInfo *g, GError **error)
{
  hid_t gcpl;
  gboolean ok;

  /* children first: netcdf-c numbers phony dimensions that way */
  for (guint i = 0; i < g->children->len; i++)
    if (!load_variables (L, g_ptr_array_index (g->children, i), error))
      return FALSE;
  for (guint i = 0; i < g->datasets->len; i++)
    {
      DsInfo *ds = g_ptr_array_index (g->datasets, i);

      if (ds->is_scale && ds->dim_only)
        continue;
      if (!load_variable (L, g, ds, error))
        return FALSE;
    }
  gcpl = H5Gget_create_plist (g->id);
  ok = load_attributes (L, g->id, gcpl, g->path, g->group, NULL,
                        ncz_group_get_parent (g->group) == NULL, error);
  if (gcpl >= 0)
    H5Pclose (gcpl);
  return ok;
}

gboolean
ncz_h5_load (NczHdf5Format *self, NczDataset *dataset, GError **error)
{
  Loader L = { 0 };
  GroupInfo *root;
  hid_t rid;
  H5F_info2_t finfo;
  gboolean ok;
  g_autofree char *strict = NULL;
  NczH5Node *node;
  RootInfo *info;

  L.self = self;
  L.file = file_name (self);
  rid = H5Gopen2 (self->file, "/", H5P_DEFAULT);
  if (rid < 0)
    {
      ncz_h5_set_error (error, NCZ_BACKEND_ERROR_BAD_METADATA, "%s: opening the root group",
                        L.file);
      return FALSE;
    }
  if (H5Fget_info2 (self->file, &finfo) >= 0)
    self->superblock_version = finfo.super.version;
  H5Eclear2 (H5E_DEFAULT);
  g_clear_pointer (&self->nc_properties, g_free);
  self->nc_properties = read_text_attribute (rid, "_NCProperties");
  strict = read_text_attribute (rid, "_nc3_strict");
  if (strict == NULL && H5Aexists (rid, "_nc3_strict") > 0)
    L.classic = TRUE;
  else if (strict != NULL)
    L.classic = TRUE;
  H5Eclear2 (H5E_DEFAULT);

  L.dims_by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  L.scales = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                    (GDestroyNotify) g_ptr_array_unref);
  L.unsupported = g_string_new (NULL);

  root = g_new0 (GroupInfo, 1);
  root->group = ncz_dataset_get_root_group (dataset);
  root->id = rid;
  root->path = g_strdup ("/");
  root->key = object_key (rid);
  H5Eclear2 (H5E_DEFAULT);
  root->datasets = g_ptr_array_new_with_free_func (ds_info_free);
  root->children = g_ptr_array_new_with_free_func (group_info_free);
  node = ncz_h5_node (self, root->group);
  node->id = rid;

  ok = read_group (&L, root, 0, error) && load_variables (&L, root, error);
  self->next_dimid = L.next_dimid;

  info = g_malloc0 (sizeof (RootInfo) + L.unsupported->len + 1);
  /* as netcdf-c 4.9 decides it: not the classic model, and at least two
   * of netCDF-4's attributes on datasets (a file with no dimensions is
   * not netCDF-4's by that rule, even with _NCProperties; netcdf-c 4.10
   * says 1 for any file with _NCProperties and for the classic model) */
  info->is_netcdf4 = !L.classic && L.n_markers >= 2;
  info->classic = L.classic;
  memcpy (info->unsupported, L.unsupported->str, L.unsupported->len);
  g_free (node->data);
  node->data = info;

  group_info_free (root);
  g_hash_table_unref (L.dims_by_id);
  g_hash_table_unref (L.scales);
  g_string_free (L.unsupported, TRUE);
  H5Eclear2 (H5E_DEFAULT);
  return ok;
}

/* ---- virtual attributes (ncdump -s) ---- */

static void
add_text (GPtrArray *out, const char *name, const char *text)
{
  g_ptr_array_add (out, ncz_attribute_new_text (name, text, -1));
}

static void
add_int (GPtrArray *out, const char *name, gint32 value)
{
  g_ptr_array_add (out, ncz_attribute_new_values (name, NCZ_DATA_TYPE_INT, &value, 1, NULL));
}

/* In ncdump's order: _Storage, _ChunkSizes, _Fletcher32, _Shuffle,
 * _DeflateLevel, then _Filter with the other filters ("id,p,p|id,p", in
 * pipeline order). _Endianness and _NoFill follow from the model. */
GPtrArray *
ncz_h5_describe_variable (NczHdf5Format *self, NczVariable *variable)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  NczH5Node *node = ncz_h5_peek_node (self, variable);
  VarInfo *info = node ? node->data : NULL;
  GPtrArray *chain = ncz_variable_peek_filters (variable);
  g_autoptr(GPtrArray) others = g_ptr_array_new ();
  gboolean fletcher32 = FALSE, shuffle = FALSE;
  NczFilterSpec *deflate = NULL;
  guint rank = 0;
  const guint64 *chunks = ncz_variable_get_chunk_sizes (variable, &rank);
  gboolean contiguous = ncz_variable_get_contiguous (variable);

  if (info != NULL && node->id >= 0 && info->layout == H5D_COMPACT && contiguous)
    add_text (out, "_Storage", "compact");
  else
    add_text (out, "_Storage", contiguous ? "contiguous" : "chunked");
  if (!contiguous && rank > 0 && chunks != NULL)
    {
      g_autofree gint64 *v = g_new (gint64, rank);

      for (guint i = 0; i < rank; i++)
        v[i] = (gint64) chunks[i];
      g_ptr_array_add (out, ncz_attribute_new_values ("_ChunkSizes", NCZ_DATA_TYPE_INT64,
                                                      v, rank, NULL));
    }
  for (guint i = 0; chain && i < chain->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (chain, i);

      if (f->filter_id == NCZ_FILTER_FLETCHER32)
        fletcher32 = TRUE;
      else if (f->filter_id == NCZ_FILTER_SHUFFLE)
        shuffle = TRUE;
      else if (f->filter_id == NCZ_FILTER_DEFLATE && deflate == NULL)
        deflate = f;
      else if (f->filter_id != 0)
        g_ptr_array_add (others, f);
    }
  if (fletcher32)
    add_text (out, "_Fletcher32", "true");
  if (shuffle)
    add_text (out, "_Shuffle", "true");
  if (deflate)
    add_int (out, "_DeflateLevel", deflate->visible->len > 0
             ? (gint32) g_array_index (deflate->visible, guint, 0) : 0);
  if (others->len > 0)
    {
      g_autofree char *text = ncz_filter_spec_list_to_text (others);

      add_text (out, "_Filter", text);
    }
  return out;
}

GPtrArray *
ncz_h5_describe_dataset (NczHdf5Format *self, NczDataset *dataset)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  NczH5Node *node = ncz_h5_peek_node (self, ncz_dataset_get_root_group (dataset));
  RootInfo *info = node && !self->created ? node->data : NULL;

  if (self->nc_properties != NULL)
    add_text (out, "_NCProperties", self->nc_properties);
  add_int (out, "_SuperblockVersion", (gint32) self->superblock_version);
  add_int (out, "_IsNetcdf4", info == NULL || info->is_netcdf4 ? 1 : 0);
  add_text (out, "_Format", info != NULL && info->classic ? "netCDF-4 classic model"
                                                          : "netCDF-4");
  if (info != NULL && info->unsupported[0] != '\0')
    {
      g_autofree char *list = g_strndup (info->unsupported, strlen (info->unsupported) - 1);

      add_text (out, "_Unsupported", list);
    }
  return out;
}
