/* ncz-foreign-run.c: running paired foreign filters: codec JSON, working parameters, the HDF5 filter function
 *
 * See ncz-foreign-scan.h and ncz-foreign-scan-private.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "ncz-foreign-scan-private.h"

GMutex ncz_foreign_lock;

/* Working parameters */

GArray *
ncz_foreign_working_params (guint        filter_id,
                            const guint *visible,
                            gsize        n_visible,
                            gsize        type_size,
                            gsize        chunk_bytes)
{
  GArray *working = g_array_new (FALSE, TRUE, sizeof (guint));
  guint ts = (guint) MIN (type_size, G_MAXUINT);
  guint cb = (guint) MIN (chunk_bytes, G_MAXUINT);

  switch (filter_id)
    {
    case 2:       /* shuffle: the element size */
      g_array_append_val (working, ts);
      break;
    case 3:       /* fletcher32: nothing */
      break;
    case 32000:   /* LZF: filter version, LZF version, chunk bytes */
      {
        guint values[3] = { 4, 0x0105, cb };

        g_array_append_vals (working, values, 3);
      }
      break;
    case 32001:   /* blosc: [0, 0, 0, blocksize, clevel, shuffle, compcode] */
      {
        guint values[7] = { 2, 2, ts, cb, 5, 1, 0 };

        for (gsize i = 4; i < 7 && i < n_visible; i++)
          values[i] = visible[i];
        g_array_append_vals (working, values, 7);
      }
      break;
    case 32008:   /* bitshuffle: [major, minor, element size, block size, compression] */
      {
        guint values[5] = { 0, 0, ts, 0, 0 };
        gsize n = MAX (n_visible, 3);

        for (gsize i = 0; i < n_visible && i < 5; i++)
          if (i != 2)
            values[i] = visible[i];
        g_array_append_vals (working, values, MIN (n, 5));
      }
      break;
    default:
      if (n_visible > 0)
        g_array_append_vals (working, visible, (guint) n_visible);
      break;
    }
  return working;
}

/* Using a row */

static const char *
row_library (const Row *row)
{
  return row->pub.codec_library != NULL ? row->pub.codec_library : row->pub.library;
}

static gboolean
row_check_usable (const Row  *row,
                  GError    **error)
{
  if (row->pub.status == NCZ_FOREIGN_USABLE && row->h5 != NULL && row->codec != NULL)
    return TRUE;
  g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_NOT_AVAILABLE,
               "HDF5 filter %u (%s) is not usable for NCZarr: %s", row->pub.filter_id,
               row->pub.library, row->pub.reason != NULL ? row->pub.reason : "unknown reason");
  return FALSE;
}

/* NCZ_codec_initialize runs once per codec and process, whatever the
 * number of scans using it. */
static void
row_initialize (Row *row)
{
  static GHashTable *initialized;   /* const NczAbiCodec* */

  if (g_once_init_enter (&row->initialized))
    {
      g_mutex_lock (&ncz_foreign_lock);
      if (initialized == NULL)
        initialized = g_hash_table_new (g_direct_hash, g_direct_equal);
      if (!g_hash_table_contains (initialized, row->codec))
        {
          g_hash_table_add (initialized, (gpointer) row->codec);
          if (row->codec->NCZ_codec_initialize != NULL)
            row->codec->NCZ_codec_initialize ();
        }
      g_mutex_unlock (&ncz_foreign_lock);
      g_once_init_leave (&row->initialized, 1);
    }
}

gboolean
ncz_foreign_row_params_from_json (const NczForeignRow  *pub,
                                  const char           *json,
                                  GArray              **params,
                                  GError              **error)
{
  Row *row = (Row *) pub;
  size_t n = 0;
  unsigned *values = NULL;
  int status;

  g_return_val_if_fail (pub != NULL, FALSE);
  g_return_val_if_fail (json != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  if (!row_check_usable (row, error))
    return FALSE;
  row_initialize (row);

  g_mutex_lock (&ncz_foreign_lock);
  status = row->codec->NCZ_codec_to_hdf5 (json, &n, &values);
  g_mutex_unlock (&ncz_foreign_lock);

  if (status != NCZ_ABI_NC_NOERR)
    {
      free (values);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s cannot read %s: NCZ_codec_to_hdf5 failed with error %d",
                   row->pub.codec_id, row_library (row), json, status);
      return FALSE;
    }
  if (n > MAX_PARAMS || (n > 0 && values == NULL))
    {
      free (values);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s read %s as %" G_GSIZE_FORMAT " parameters%s",
                   row->pub.codec_id, row_library (row), json, (gsize) n,
                   n > MAX_PARAMS ? " (too many)" : " without returning them");
      return FALSE;
    }
  *params = g_array_sized_new (FALSE, FALSE, sizeof (guint), (guint) n);
  if (n > 0)
    g_array_append_vals (*params, values, (guint) n);
  free (values);
  return TRUE;
}

char *
ncz_foreign_row_params_to_json (const NczForeignRow  *pub,
                                const guint          *params,
                                gsize                 n_params,
                                GError              **error)
{
  Row *row = (Row *) pub;
  static const unsigned no_params[1] = { 0 };
  g_autoptr(NczJson) node = NULL;
  g_autoptr(GError) local_error = NULL;
  const NczJson *id;
  char *text = NULL;
  int status;

  g_return_val_if_fail (pub != NULL, NULL);
  g_return_val_if_fail (params != NULL || n_params == 0, NULL);

  if (!row_check_usable (row, error))
    return NULL;
  row_initialize (row);

  g_mutex_lock (&ncz_foreign_lock);
  status = row->codec->NCZ_hdf5_to_codec (n_params, n_params > 0 ? params : no_params, &text);
  g_mutex_unlock (&ncz_foreign_lock);

  if (status != NCZ_ABI_NC_NOERR || text == NULL)
    {
      free (text);
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS,
                   "codec '%s' of %s cannot write its JSON for %" G_GSIZE_FORMAT
                   " parameters: NCZ_hdf5_to_codec failed with error %d",
                   row->pub.codec_id, row_library (row), n_params, status);
      return NULL;
    }
  node = ncz_json_parse (text, -1, &local_error);
  id = node != NULL && ncz_json_get_kind (node) == NCZ_JSON_OBJECT
       ? ncz_json_object_get (node, "id") : NULL;
  if (id == NULL || ncz_json_get_kind (id) != NCZ_JSON_STRING)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "codec '%s' of %s wrote %s, not a JSON object with a string \"id\"%s%s",
                   row->pub.codec_id, row_library (row), text,
                   local_error != NULL ? ": " : "",
                   local_error != NULL ? local_error->message : "");
      free (text);
      return NULL;
    }
  free (text);
  return ncz_json_to_string (node, FALSE);
}

GBytes *
ncz_foreign_row_filter (const NczForeignRow  *pub,
                        gboolean              reverse,
                        const guint          *working,
                        gsize                 n_working,
                        GBytes               *input,
                        GError              **error)
{
  Row *row = (Row *) pub;
  static const unsigned no_params[1] = { 0 };
  const guint8 *data;
  gsize nbytes;
  size_t buf_size;
  void *buf;
  size_t produced;

  g_return_val_if_fail (pub != NULL, NULL);
  g_return_val_if_fail (working != NULL || n_working == 0, NULL);
  g_return_val_if_fail (input != NULL, NULL);

  if (!row_check_usable (row, error))
    return NULL;
  row_initialize (row);

  data = g_bytes_get_data (input, &nbytes);
  buf_size = MAX (nbytes, 1);
  buf = malloc (buf_size);
  if (buf == NULL)
    {
      g_set_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED,
                   "out of memory for a %" G_GSIZE_FORMAT "-byte chunk", nbytes);
      return NULL;
    }
  if (nbytes > 0)
    memcpy (buf, data, nbytes);

  g_mutex_lock (&ncz_foreign_lock);
  produced = row->h5->filter (reverse ? NCZ_H5Z_FLAG_REVERSE : 0, n_working,
                              n_working > 0 ? working : no_params, nbytes, &buf_size, &buf);
  g_mutex_unlock (&ncz_foreign_lock);

  if (produced == 0 || buf == NULL || produced > buf_size)
    {
      free (buf);
      g_set_error (error, NCZ_CODEC_ERROR,
                   reverse && produced == 0 ? NCZ_CODEC_ERROR_CORRUPT : NCZ_CODEC_ERROR_FAILED,
                   "HDF5 filter %u (%s) failed to %s a %" G_GSIZE_FORMAT "-byte chunk%s",
                   row->pub.filter_id, row->pub.hdf5_library, reverse ? "decode" : "encode",
                   nbytes,
                   produced == 0 ? "" : buf == NULL ? ": it returned no buffer"
                                                    : ": it claims more bytes than its buffer holds");
      return NULL;
    }
  if (produced < buf_size / 2)
    {
      void *smaller = realloc (buf, produced);

      if (smaller != NULL)
        buf = smaller;
    }
  return g_bytes_new_with_free_func (buf, produced, free, buf);
}
