/* ncz-cdl.c: CDL text to an Ncz dataset: the entry points
 *
 * The text is parsed (ncz-cdl-lexer.c, ncz-cdl-parser.c) into the
 * dataset, then the data sections collected on the way are written
 * (ncz-cdl-data.c).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl-private.h"

#include <string.h>

G_DEFINE_QUARK (ncz-cdl-error-quark, ncz_cdl_error)

gboolean
ncz_cdl_generate_into (const char *text, gssize length, const char *source_name,
                       NczDataset *dataset, guint64 max_data_elements, char **dataset_name,
                       GError **error)
{
  Cdl c = { 0 };
  gboolean ok = FALSE;

  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_return_val_if_fail (NCZ_IS_DATASET (dataset), FALSE);

  c.text = text ? text : "";
  c.len = length < 0 ? strlen (text) : (gsize) length;
  c.line = 1;
  c.source = source_name ? source_name : "<stdin>";
  c.ds = dataset;
  c.max_elements = max_data_elements;
  c.tok.text = g_string_new (NULL);
  c.data = g_ptr_array_new_with_free_func (cdl_data_item_free);

  /* a UTF-8 byte order mark */
  if (c.len >= 3 && memcmp (c.text, "\xef\xbb\xbf", 3) == 0)
    c.pos = c.line_start = 3;

  if (!cdl_parse_dataset (&c, dataset_name))
    goto out;
  for (guint i = 0; i < c.data->len; i++)
    if (!cdl_data_write_item (&c, g_ptr_array_index (c.data, i)))
      goto out;
  ok = TRUE;

out:
  if (!ok)
    {
      if (c.error == NULL)
        g_set_error (&c.error, NCZ_CDL_ERROR, NCZ_CDL_ERROR_SYNTAX, "%s: failed", c.source);
      g_propagate_error (error, c.error);
      if (dataset_name)
        g_clear_pointer (dataset_name, g_free);
    }
  g_string_free (c.tok.text, TRUE);
  g_ptr_array_unref (c.data);
  return ok;
}

gboolean
ncz_cdl_generate (const char *text, gssize length, const char *source_name,
                  const char *url, NczCreateFlags flags, GError **error)
{
  g_autoptr(NczDataset) ds = NULL;

  g_return_val_if_fail (url != NULL, FALSE);
  /* Text that fails leaves nothing at @url: ncz_dataset_discard() drops
   * what was written (the file store writes a new dataset beside the
   * path and puts it there only when it is closed). */
  ds = ncz_dataset_create (url, flags, NULL, error);
  if (ds == NULL)
    return FALSE;
  if (!ncz_cdl_generate_into (text, length, source_name, ds, 0, NULL, error))
    {
      /* what was at the URL before stays as it was */
      ncz_dataset_discard (ds);
      return FALSE;
    }
  return ncz_dataset_close (ds, NULL, error);
}

gboolean
ncz_cdl_check (const char *text, gssize length, const char *source_name,
               guint64 max_data_elements, GError **error)
{
  g_autoptr(NczMemoryStore) store = ncz_memory_store_new ();
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///ncz-cdl-check#mode=nczarr,file", error);
  g_autoptr(NczDataset) ds = NULL;
  gboolean ok;

  if (url == NULL)
    return FALSE;
  ds = ncz_dataset_create_in_store (NCZ_STORE (store), url, NULL, error);
  if (ds == NULL)
    return FALSE;
  ok = ncz_cdl_generate_into (text, length, source_name, ds, max_data_elements, NULL, error);
  if (!ncz_dataset_close (ds, NULL, ok ? error : NULL))
    ok = FALSE;
  return ok;
}
