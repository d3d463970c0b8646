/* nczarr-test-util.c: helpers for the NCZarr backend tests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "nczarr-test-util.h"
#include "ncz-nczarr-format.h"

void
nczt_init (void)
{
  /* The backend is linked into the test; rank it above the module on
   * NCZ_PLUGIN_PATH so that the module is never loaded. */
  ncz_registry_add_format (ncz_registry_get_default (), "nczarr",
                           NCZ_TYPE_NCZARR_FORMAT, NCZ_PRIORITY_PRIMARY + 1);
}

static NczUrl *
mem_url (const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("file:///unused#%s", fragment);
  NczUrl *url = ncz_url_parse (text, &error);
  g_assert_no_error (error);
  return url;
}

NczDataset *
nczt_create_mem (NczMemoryStore **store, const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = mem_url (fragment);
  NczDataset *ds;

  *store = ncz_memory_store_new ();
  ds = ncz_dataset_create_in_store (NCZ_STORE (*store), url, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

NczDataset *
nczt_open_mem (NczMemoryStore *store, const char *fragment, NczOpenFlags flags,
               GError **error)
{
  g_autoptr(NczUrl) url = mem_url (fragment);
  return ncz_dataset_open_store (NCZ_STORE (store), url, flags, NULL, error);
}

char *
nczt_get (NczMemoryStore *store, const char *key)
{
  g_autoptr(GBytes) b = ncz_store_read (NCZ_STORE (store), key, NULL, NULL);
  gsize n;
  const char *d;

  if (b == NULL)
    return NULL;
  d = g_bytes_get_data (b, &n);
  return g_strndup (d, n);
}

void
nczt_put_bytes (NczMemoryStore *store, const char *key, gconstpointer data, gsize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) b = g_bytes_new (data, len);
  g_assert_true (ncz_store_write (NCZ_STORE (store), key, b, NULL, &error));
  g_assert_no_error (error);
}

void
nczt_put (NczMemoryStore *store, const char *key, const char *text)
{
  nczt_put_bytes (store, key, text, strlen (text));
}

char *
nczt_corpus_path (const char *relpath)
{
  const char *dir = g_getenv ("NCZ_CORPUS_DIR");
  char *path = g_build_filename (dir ? dir : "/work/shared/corpus", "netcdf-c", relpath, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      return NULL;
    }
  return path;
}

char *
nczt_unpack (const char *relpath, const char *subdir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *archive = nczt_corpus_path (relpath);
  g_autofree char *tmp = NULL;
  int status = 0;
  gboolean ok;

  if (archive == NULL)
    return NULL;
  tmp = g_dir_make_tmp ("ncz-nczarr-XXXXXX", &error);
  g_assert_no_error (error);
  if (g_str_has_suffix (archive, ".zip"))
    {
      const char *argv[] = { "unzip", "-q", "-o", archive, "-d", tmp, NULL };
      ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                         NULL, NULL, &status, &error);
    }
  else
    {
      const char *argv[] = { "tar", "-xzf", archive, "-C", tmp, NULL };
      ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                         NULL, NULL, &status, &error);
    }
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  if (subdir == NULL)
    return g_steal_pointer (&tmp);
  return g_build_filename (tmp, subdir, NULL);
}

void
nczt_remove_tree (const char *dir)
{
  g_autofree char *top = NULL;
  const char *tmp = g_get_tmp_dir ();
  const char *rest;
  const char *argv[] = { "rm", "-rf", NULL, NULL };
  int status;

  if (dir == NULL)
    return;
  /* remove the whole temporary directory the store was unpacked into */
  g_assert_true (g_str_has_prefix (dir, tmp));
  rest = dir + strlen (tmp);
  while (*rest == '/')
    rest++;
  top = g_build_filename (tmp, rest, NULL);
  {
    char *slash = strchr (top + strlen (tmp) + 1, '/');
    if (slash)
      *slash = '\0';
  }
  g_assert_true (g_str_has_prefix (top, tmp) && strlen (top) > strlen (tmp) + 1);
  argv[2] = top;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                NULL, NULL, &status, NULL);
}

NczDataset *
nczt_open_dir (const char *dir, const char *mode, GError **error)
{
  g_autofree char *url = g_strdup_printf ("file://%s#mode=%s", dir, mode);
  return ncz_dataset_open (url, NCZ_OPEN_READ, NULL, error);
}

void
nczt_read_all (NczVariable *var, gpointer buffer, gsize size)
{
  g_autoptr(GError) error = NULL;
  guint n = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (var, &n);
  g_autofree guint64 *start = g_new0 (guint64, MAX (n, 1));
  gboolean ok = ncz_variable_read (var, start, n, shape, n, NULL, 0, buffer, size, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

char **
nczt_read_strings (NczVariable *var)
{
  g_autoptr(GError) error = NULL;
  guint n = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (var, &n);
  g_autofree guint64 *start = g_new0 (guint64, MAX (n, 1));
  char **s = ncz_variable_read_strings (var, start, n, shape, n, NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

static NczGroup *
walk (NczDataset *ds, const char *path, const char **last)
{
  NczGroup *g = ncz_dataset_get_root_group (ds);
  g_auto(GStrv) parts = g_strsplit (path[0] == '/' ? path + 1 : path, "/", -1);
  guint n = g_strv_length (parts);
  static char name[256];

  for (guint i = 0; i + 1 < n; i++)
    {
      g = ncz_group_get_group (g, parts[i]);
      g_assert_nonnull (g);
    }
  g_strlcpy (name, parts[n - 1], sizeof name);
  *last = name;
  return g;
}

NczVariable *
nczt_var (NczDataset *ds, const char *path)
{
  const char *name;
  NczGroup *g = walk (ds, path, &name);
  NczVariable *v = ncz_group_get_variable (g, name);
  if (v == NULL)
    g_error ("no variable %s", path);
  return v;
}

NczDimension *
nczt_dim (NczDataset *ds, const char *path)
{
  const char *name;
  NczGroup *g = walk (ds, path, &name);
  NczDimension *d = ncz_group_get_dimension (g, name);
  if (d == NULL)
    g_error ("no dimension %s", path);
  return d;
}

char *
nczt_attr_text (NczAttribute *attr)
{
  g_assert_nonnull (attr);
  g_assert_cmpint (ncz_attribute_get_value_type (attr), ==, NCZ_DATA_TYPE_CHAR);
  return ncz_attribute_get_text (attr, NULL);
}
