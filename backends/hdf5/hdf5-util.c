/* hdf5-util.c: the HDF5 lock, HDF5 errors as GErrors, type mapping
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdarg.h>
#include <string.h>

#include "hdf5-private.h"

static GRecMutex h5_lock;
/* set in a thread once HDF5's automatic error printing is off there */
static GPrivate h5_quiet_thread;

void
ncz_h5_lock (void)
{
  g_rec_mutex_lock (&h5_lock);
  /* Debian's libhdf5 is built thread-safe, and then keeps the automatic
   * printing of its error stack per thread: it is turned off in every
   * thread that calls libhdf5 (worker threads, the user's), not only in
   * the one that loaded it */
  if (g_private_get (&h5_quiet_thread) == NULL)
    {
      H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
      g_private_set (&h5_quiet_thread, GINT_TO_POINTER (1));
    }
}

void
ncz_h5_unlock (void)
{
  g_rec_mutex_unlock (&h5_lock);
}

void
ncz_h5_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      ncz_h5_lock ();
      H5open ();
      /* HDF5 never prints its error stack: failures become GErrors */
      H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
      ncz_h5_register_codec_filters ();
      ncz_h5_install_vlen_check ();
      ncz_h5_unlock ();
      g_once_init_leave (&done, 1);
    }
}

typedef struct {
  GString *text;
  guint n;
} WalkData;

static herr_t
walk_error (unsigned n, const H5E_error2_t *e, void *client_data)
{
  WalkData *w = client_data;
  char minor[128] = "";

  if (w->n >= 6)
    return 0;
  if (H5Eget_msg (e->min_num, NULL, minor, sizeof minor) < 0)
    minor[0] = '\0';
  g_string_append (w->text, w->n == 0 ? ": " : "; ");
  if (e->desc != NULL && *e->desc != '\0')
    g_string_append (w->text, e->desc);
  else
    g_string_append (w->text, e->func_name != NULL ? e->func_name : "HDF5");
  if (minor[0] != '\0')
    g_string_append_printf (w->text, " (%s)", minor);
  w->n++;
  return 0;
}

void
ncz_h5_set_error (GError **error, gint code, const char *format, ...)
{
  WalkData w = { g_string_new (NULL), 0 };
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (w.text, format, args);
  va_end (args);
  /* innermost (where HDF5 found the fault) first */
  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, walk_error, &w);
  H5Eclear2 (H5E_DEFAULT);
  g_set_error_literal (error, NCZ_H5_ERROR, code, w.text->str);
  g_string_free (w.text, TRUE);
}

NczH5Node *
ncz_h5_peek_node (NczHdf5Format *self, gpointer object)
{
  return g_hash_table_lookup (self->nodes, object);
}

NczH5Node *
ncz_h5_node (NczHdf5Format *self, gpointer object)
{
  NczH5Node *node = g_hash_table_lookup (self->nodes, object);

  if (node == NULL)
    {
      node = g_new0 (NczH5Node, 1);
      node->id = H5I_INVALID_HID;
      node->scale = H5I_INVALID_HID;
      node->dimid = -1;
      g_hash_table_insert (self->nodes, object, node);
    }
  return node;
}

static hid_t
integer_type (NczDataType type, gboolean big)
{
  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE: return big ? H5T_STD_I8BE : H5T_STD_I8LE;
    case NCZ_DATA_TYPE_UBYTE: return big ? H5T_STD_U8BE : H5T_STD_U8LE;
    case NCZ_DATA_TYPE_SHORT: return big ? H5T_STD_I16BE : H5T_STD_I16LE;
    case NCZ_DATA_TYPE_USHORT: return big ? H5T_STD_U16BE : H5T_STD_U16LE;
    case NCZ_DATA_TYPE_INT: return big ? H5T_STD_I32BE : H5T_STD_I32LE;
    case NCZ_DATA_TYPE_UINT: return big ? H5T_STD_U32BE : H5T_STD_U32LE;
    case NCZ_DATA_TYPE_INT64: return big ? H5T_STD_I64BE : H5T_STD_I64LE;
    case NCZ_DATA_TYPE_UINT64: return big ? H5T_STD_U64BE : H5T_STD_U64LE;
    case NCZ_DATA_TYPE_FLOAT: return big ? H5T_IEEE_F32BE : H5T_IEEE_F32LE;
    case NCZ_DATA_TYPE_DOUBLE: return big ? H5T_IEEE_F64BE : H5T_IEEE_F64LE;
    default: return H5I_INVALID_HID;
    }
}

static hid_t
string_type (gboolean variable)
{
  hid_t t = H5Tcopy (H5T_C_S1);

  if (t < 0)
    return H5I_INVALID_HID;
  if (variable)
    H5Tset_size (t, H5T_VARIABLE);
  H5Tset_strpad (t, H5T_STR_NULLTERM);
  H5Tset_cset (t, H5T_CSET_ASCII);
  return t;
}

hid_t
ncz_h5_file_type (NczDataType type, NczEndianness endianness)
{
  gboolean big;

  if (type == NCZ_DATA_TYPE_CHAR)
    return string_type (FALSE);
  if (type == NCZ_DATA_TYPE_STRING)
    return string_type (TRUE);
  if (endianness == NCZ_ENDIANNESS_BIG)
    big = TRUE;
  else if (endianness == NCZ_ENDIANNESS_LITTLE)
    big = FALSE;
  else
    big = G_BYTE_ORDER == G_BIG_ENDIAN;
  if (integer_type (type, big) < 0)
    return H5I_INVALID_HID;
  return H5Tcopy (integer_type (type, big));
}

hid_t
ncz_h5_mem_type (NczDataType type)
{
  if (type == NCZ_DATA_TYPE_CHAR)
    return string_type (FALSE);
  if (type == NCZ_DATA_TYPE_STRING)
    return string_type (TRUE);
  if (integer_type (type, G_BYTE_ORDER == G_BIG_ENDIAN) < 0)
    return H5I_INVALID_HID;
  return H5Tcopy (integer_type (type, G_BYTE_ORDER == G_BIG_ENDIAN));
}

gboolean
ncz_h5_type_to_ncz (hid_t type, NczDataType *out, NczEndianness *endianness)
{
  H5T_class_t klass = H5Tget_class (type);
  size_t size = H5Tget_size (type);
  H5T_order_t order;
  NczDataType t;

  if (endianness != NULL)
    *endianness = NCZ_ENDIANNESS_NATIVE;
  switch (klass)
    {
    case H5T_INTEGER:
      {
        gboolean is_signed = H5Tget_sign (type) == H5T_SGN_2;

        switch (size)
          {
          case 1: t = is_signed ? NCZ_DATA_TYPE_BYTE : NCZ_DATA_TYPE_UBYTE; break;
          case 2: t = is_signed ? NCZ_DATA_TYPE_SHORT : NCZ_DATA_TYPE_USHORT; break;
          case 4: t = is_signed ? NCZ_DATA_TYPE_INT : NCZ_DATA_TYPE_UINT; break;
          case 8: t = is_signed ? NCZ_DATA_TYPE_INT64 : NCZ_DATA_TYPE_UINT64; break;
          default: return FALSE;
          }
        break;
      }
    case H5T_FLOAT:
      if (size == 4)
        t = NCZ_DATA_TYPE_FLOAT;
      else if (size == 8)
        t = NCZ_DATA_TYPE_DOUBLE;
      else
        return FALSE;
      break;
    case H5T_STRING:
      {
        htri_t variable = H5Tis_variable_str (type);

        if (variable < 0)
          return FALSE;
        t = (!variable && size == 1) ? NCZ_DATA_TYPE_CHAR : NCZ_DATA_TYPE_STRING;
        *out = t;
        return TRUE;
      }
    default:
      return FALSE;
    }
  order = H5Tget_order (type);
  if (endianness != NULL)
    *endianness = order == H5T_ORDER_BE ? NCZ_ENDIANNESS_BIG : NCZ_ENDIANNESS_LITTLE;
  *out = t;
  return TRUE;
}

/* netCDF-4's raw data chunk cache (netcdf-c's defaults): 16 MiB, 4133
 * slots, preemption 0.75. HDF5's own 1 MiB holds none of the multi-MiB
 * chunks netCDF-4 writes by default, and a chunk that does not fit is
 * read and written row by row. */
#define CHUNK_CACHE_BYTES (16u << 20)
#define CHUNK_CACHE_SLOTS 4133
#define CHUNK_CACHE_PREEMPTION 0.75

hid_t
ncz_h5_new_fapl (void)
{
  hid_t fapl = H5Pcreate (H5P_FILE_ACCESS);

  if (fapl < 0)
    return H5I_INVALID_HID;
  if (H5Pset_fclose_degree (fapl, H5F_CLOSE_STRONG) < 0 ||
      H5Pset_cache (fapl, 0, CHUNK_CACHE_SLOTS, CHUNK_CACHE_BYTES, CHUNK_CACHE_PREEMPTION) < 0)
    {
      H5Pclose (fapl);
      return H5I_INVALID_HID;
    }
  return fapl;
}
