/* ncz-codec-registry-plugin.c: the "foreign" codec provider module
 *
 * Registers the codec provider "foreign": codecs no Ncz module provides
 * are looked up in the pairing table of the foreign HDF5 filter and Codec
 * libraries of HDF5_PLUGIN_PATH (ncz-foreign-scan.h), scanned the first
 * time one is asked for.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-foreign-codec.h"

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_foreign_describe (void);

/* One codec per row, whether it is looked up by codec id or filter id. */
static GMutex codecs_lock;
static GHashTable *codecs;     /* const NczForeignRow* → NczCodec* */

static NczCodec *
codec_for_row (NczForeignScan      *scan,
               const NczForeignRow *row)
{
  NczCodec *codec;

  g_mutex_lock (&codecs_lock);
  if (codecs == NULL)
    codecs = g_hash_table_new (g_direct_hash, g_direct_equal);
  codec = g_hash_table_lookup (codecs, row);
  if (codec == NULL)
    {
      /* Kept for the life of the process, as the module is. */
      codec = ncz_foreign_codec_new (scan, row);
      g_hash_table_insert (codecs, (gpointer) row, codec);
    }
  g_object_ref (codec);
  g_mutex_unlock (&codecs_lock);
  return codec;
}

static NczCodec *
provide_foreign_codec (NczRegistry  *registry,
                       const char   *codec_id,
                       guint         filter_id,
                       gpointer      user_data,
                       GError      **error)
{
  NczForeignScan *scan = ncz_foreign_scan_get_default ();
  const NczForeignRow *row = ncz_foreign_scan_lookup (scan, filter_id, codec_id);
  g_autofree char *what = codec_id != NULL ? g_strdup_printf ("codec '%s'", codec_id)
                                           : g_strdup_printf ("HDF5 filter %u", filter_id);

  if (row == NULL)
    {
      /* A library that could not be loaded may have been the one. */
      g_autoptr(GString) broken = g_string_new (NULL);
      guint n_broken = 0;

      for (guint i = 0; i < ncz_foreign_scan_get_n_rows (scan); i++)
        {
          const NczForeignRow *other = ncz_foreign_scan_get_row (scan, i);

          if (other->status != NCZ_FOREIGN_BROKEN || other->filter_id != 0)
            continue;
          if (n_broken++ < 3)
            g_string_append_printf (broken, "%s%s (%s)", broken->len > 0 ? "; " : "",
                                    other->library, other->reason);
        }
      if (n_broken == 0)
        return NULL;
      if (n_broken > 3)
        g_string_append_printf (broken, "; and %u more", n_broken - 3);
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "no library in the HDF5 plugin path provides %s, but %u could not be "
                   "used and might: %s", what, n_broken, broken->str);
      return NULL;
    }

  switch (row->status)
    {
    case NCZ_FOREIGN_USABLE:
      return codec_for_row (scan, row);
    case NCZ_FOREIGN_HDF5_ONLY:
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "HDF5 filter %u has an HDF5 library (%s) but no Codec library in the "
                   "HDF5 plugin path, so NCZarr cannot use it: %s",
                   row->filter_id, row->hdf5_library, row->reason);
      return NULL;
    case NCZ_FOREIGN_CODEC_ONLY:
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_NOT_FOUND,
                   "codec '%s' (HDF5 filter %u) has a Codec library (%s) but no HDF5 library "
                   "in the HDF5 plugin path", row->codec_id, row->filter_id, row->codec_library);
      return NULL;
    default:
      g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_LOAD,
                   "%s in the HDF5 plugin path cannot be used: %s", what,
                   row->reason != NULL ? row->reason : "unknown reason");
      return NULL;
    }
}

static gboolean
register_foreign (NczRegistry  *registry,
                  GError      **error)
{
  ncz_registry_add_codec_provider (registry, "foreign", provide_foreign_codec, NULL, NULL,
                                   NCZ_PRIORITY_FALLBACK);
  return TRUE;
}

static const NczPluginDesc foreign_plugin_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "foreign",
  .version = NCZ_VERSION_STRING,
  .license = "BSD-3-Clause",
  .description = "Codecs from foreign HDF5 filter and Codec libraries (HDF5_PLUGIN_PATH)",
  .register_func = register_foreign,
};

const NczPluginDesc *
ncz_plugin_foreign_describe (void)
{
  return &foreign_plugin_desc;
}
