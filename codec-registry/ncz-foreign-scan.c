/* ncz-foreign-scan.c: foreign HDF5 filter and Codec libraries, paired
 *
 * The scan object: its search path, the scan run over it (probing in
 * ncz-foreign-probe.c, host libraries in ncz-foreign-host.c, pairing in
 * ncz-foreign-pair.c) and lookups in the result. Running the paired
 * filters is in ncz-foreign-run.c. See ncz-foreign-scan.h.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include "ncz-foreign-scan-private.h"

static gboolean
running_setuid (void)
{
#if defined(__linux__) && defined(AT_SECURE)
  return getauxval (AT_SECURE) != 0;
#else
  return getuid () != geteuid () || getgid () != getegid ();
#endif
}

const char *
ncz_foreign_status_to_string (NczForeignStatus status)
{
  switch (status)
    {
    case NCZ_FOREIGN_USABLE:
      return "usable";
    case NCZ_FOREIGN_HDF5_ONLY:
      return "hdf5-only";
    case NCZ_FOREIGN_CODEC_ONLY:
      return "codec-only";
    case NCZ_FOREIGN_DUPLICATE:
      return "duplicate";
    case NCZ_FOREIGN_BROKEN:
      return "broken";
    case NCZ_FOREIGN_NCZ_MODULE:
      return "ncz-module";
    default:
      return "unknown";
    }
}

static void
run_scan (NczForeignScan *self)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (ncz_foreign_candidate_free);

  for (guint i = 0; i + 1 < self->dirs->len; i++)
    ncz_foreign_scan_directory (g_ptr_array_index (self->dirs, i), candidates);

  /* Libraries that failed for an undefined symbol: again once their host
   * libraries are global, as long as that brings something new. */
  for (int round = 0; round < 4; round++)
    {
      gboolean pending = FALSE;

      for (guint i = 0; i < candidates->len && !pending; i++)
        pending = ((Candidate *) g_ptr_array_index (candidates, i))->retry;
      if (!pending || !ncz_foreign_provide_host_libraries (self, candidates))
        break;
      for (guint i = 0; i < candidates->len; i++)
        {
          Candidate *c = g_ptr_array_index (candidates, i);

          if (c->retry)
            ncz_foreign_candidate_open (c, FALSE);
        }
    }
  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *c = g_ptr_array_index (candidates, i);

      if (c->retry)
        ncz_foreign_candidate_open (c, TRUE);
    }

  ncz_foreign_pair (self, candidates);
}

static NczForeignScan *
scan_alloc (void)
{
  NczForeignScan *self = g_new0 (NczForeignScan, 1);

  self->ref_count = 1;
  self->strings = g_string_chunk_new (1024);
  self->dirs = g_ptr_array_new_with_free_func (g_free);
  self->sources = g_ptr_array_new ();
  self->exists = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->host_libraries = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->host_libraries, NULL);
  self->rows = g_ptr_array_new_with_free_func (g_free);
  return self;
}

static void
add_dir (NczForeignScan *self,
         const char     *dir,
         const char     *source)
{
  gboolean exists;

  if (dir[0] == '\0')
    return;
  for (guint i = 0; i < self->dirs->len; i++)
    if (strcmp (g_ptr_array_index (self->dirs, i), dir) == 0)
      return;
  g_ptr_array_add (self->dirs, g_strdup (dir));
  g_ptr_array_add (self->sources, (gpointer) source);
  exists = g_file_test (dir, G_FILE_TEST_IS_DIR);
  g_array_append_val (self->exists, exists);
}

static NczForeignScan *
scan_finish (NczForeignScan *self)
{
  g_ptr_array_add (self->dirs, NULL);
  run_scan (self);
  return self;
}

NczForeignScan *
ncz_foreign_scan_new (const char * const *dirs)
{
  NczForeignScan *self = scan_alloc ();

  for (gsize i = 0; dirs != NULL && dirs[i] != NULL; i++)
    add_dir (self, dirs[i], "explicit");
  return scan_finish (self);
}

NczForeignScan *
ncz_foreign_scan_new_from_environment (void)
{
  NczForeignScan *self = scan_alloc ();
  const char *env = running_setuid () ? NULL : g_getenv ("HDF5_PLUGIN_PATH");

  if (env != NULL)
    {
      g_auto(GStrv) entries = g_strsplit (env, ":", -1);

      for (gsize i = 0; entries[i] != NULL; i++)
        add_dir (self, entries[i], "HDF5_PLUGIN_PATH");
    }
  add_dir (self, NCZ_FOREIGN_DEFAULT_DIR, "default");
  return scan_finish (self);
}

NczForeignScan *
ncz_foreign_scan_get_default (void)
{
  static NczForeignScan *default_scan = NULL;

  if (g_once_init_enter (&default_scan))
    g_once_init_leave (&default_scan, ncz_foreign_scan_new_from_environment ());
  return default_scan;
}

NczForeignScan *
ncz_foreign_scan_ref (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
ncz_foreign_scan_unref (NczForeignScan *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;
  /* The libraries are not closed: codecs made from the rows may outlive
   * the scan. */
  g_ptr_array_unref (self->rows);
  g_ptr_array_unref (self->host_libraries);
  g_array_unref (self->exists);
  g_ptr_array_unref (self->sources);
  g_ptr_array_unref (self->dirs);
  g_string_chunk_free (self->strings);
  g_free (self);
}

const char * const *
ncz_foreign_scan_get_search_path (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->dirs->pdata;
}

const char *
ncz_foreign_scan_get_search_path_source (NczForeignScan *self,
                                         guint           index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->sources->len, NULL);
  return g_ptr_array_index (self->sources, index);
}

gboolean
ncz_foreign_scan_get_search_path_exists (NczForeignScan *self,
                                         guint           index)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (index < self->exists->len, FALSE);
  return g_array_index (self->exists, gboolean, index);
}

const char * const *
ncz_foreign_scan_get_host_libraries (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char * const *) self->host_libraries->pdata;
}

guint
ncz_foreign_scan_get_n_rows (NczForeignScan *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->rows->len;
}

const NczForeignRow *
ncz_foreign_scan_get_row (NczForeignScan *self,
                          guint           index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->rows->len, NULL);
  return &((Row *) g_ptr_array_index (self->rows, index))->pub;
}

const NczForeignRow *
ncz_foreign_scan_lookup (NczForeignScan *self,
                         guint           filter_id,
                         const char     *codec_id)
{
  const NczForeignRow *found = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (filter_id != 0 || codec_id != NULL, NULL);

  for (guint i = 0; i < self->rows->len && found == NULL; i++)
    {
      const NczForeignRow *row = &((Row *) g_ptr_array_index (self->rows, i))->pub;

      if (row->status != NCZ_FOREIGN_USABLE && row->status != NCZ_FOREIGN_HDF5_ONLY &&
          row->status != NCZ_FOREIGN_CODEC_ONLY)
        continue;
      if (filter_id != 0 ? row->filter_id == filter_id
                         : row->codec_id != NULL && strcmp (row->codec_id, codec_id) == 0)
        found = row;
    }
  /* A codec id is looked up among the usable rows first. */
  if (filter_id == 0 && found != NULL && found->status != NCZ_FOREIGN_USABLE)
    for (guint i = 0; i < self->rows->len; i++)
      {
        const NczForeignRow *row = &((Row *) g_ptr_array_index (self->rows, i))->pub;

        if (row->status == NCZ_FOREIGN_USABLE && strcmp (row->codec_id, codec_id) == 0)
          return row;
      }
  return found;
}
