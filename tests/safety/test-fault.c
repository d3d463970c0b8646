/* test-fault.c: every store operation of a write tried as the failing
 * one, through NczFaultStore over the file store
 *
 * For each write below, a clean run first counts the operations; then
 * for every N and every fault kind the write runs again with operation N
 * failing. A write that fails must fail with a GError and leave what was
 * at the path before byte for byte, with nothing beside it. A write the
 * store lied to (a zero-length write reported as done) may succeed, but
 * reading the result must then fail rather than give other values.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "fault-store.h"

#define NAME "data.zarr"

/* ---- trees on disk ---- */

/* relative path -> "d" for a directory, "l:TARGET" for a link, "f:" + the
 * bytes for a file */
static void
snapshot_walk (const char *root,
               const char *rel,
               GHashTable *out)
{
  g_autofree char *dir_path = rel[0] ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *sub = rel[0] ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *path = g_build_filename (root, sub, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISDIR (st.st_mode))
        {
          g_hash_table_insert (out, g_strdup (sub), g_bytes_new_static ("d", 1));
          snapshot_walk (root, sub, out);
        }
      else if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);
          g_autofree char *v = g_strconcat ("l:", target ? target : "", NULL);
          g_hash_table_insert (out, g_strdup (sub), g_bytes_new (v, strlen (v)));
        }
      else
        {
          g_autofree char *contents = NULL;
          gsize len = 0;
          GByteArray *v = g_byte_array_new ();

          g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
          g_byte_array_append (v, (const guint8 *) "f:", 2);
          g_byte_array_append (v, (const guint8 *) contents, (guint) len);
          g_hash_table_insert (out, g_strdup (sub), g_byte_array_free_to_bytes (v));
        }
    }
}

/* Every entry under @root (a directory, or nothing), by relative path;
 * the root itself is "" -> "d" when it exists. */
static GHashTable *
snapshot (const char *root)
{
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) g_bytes_unref);
  if (g_file_test (root, G_FILE_TEST_IS_DIR))
    {
      g_hash_table_insert (out, g_strdup (""), g_bytes_new_static ("d", 1));
      snapshot_walk (root, "", out);
    }
  else if (g_file_test (root, G_FILE_TEST_EXISTS))
    g_hash_table_insert (out, g_strdup (""), g_bytes_new_static ("?", 1));
  return out;
}

/* NULL when equal, else what differs first (in key order). */
static char *
snapshot_diff (GHashTable *want,
               GHashTable *got)
{
  g_autoptr(GList) keys = g_hash_table_get_keys (want);
  g_autoptr(GList) extra = g_hash_table_get_keys (got);
  GString *out = g_string_new (NULL);
  guint n_extra = 0;

  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  for (GList *l = keys; l; l = l->next)
    {
      GBytes *g = g_hash_table_lookup (got, l->data);
      if (g == NULL)
        g_string_append_printf (out, "missing '%s'; ", (char *) l->data);
      else if (!g_bytes_equal (g, g_hash_table_lookup (want, l->data)))
        g_string_append_printf (out, "'%s' differs (%" G_GSIZE_FORMAT " bytes, was %"
                                G_GSIZE_FORMAT "); ", (char *) l->data,
                                g_bytes_get_size (g),
                                g_bytes_get_size (g_hash_table_lookup (want, l->data)));
    }
  extra = g_list_sort (extra, (GCompareFunc) strcmp);
  for (GList *l = extra; l; l = l->next)
    if (!g_hash_table_contains (want, l->data))
      {
        if (n_extra++ < 6)
          g_string_append_printf (out, "extra '%s'; ", (char *) l->data);
      }
  if (n_extra > 6)
    g_string_append_printf (out, "%u more extra; ", n_extra - 6);
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static int
compare_strings (gconstpointer a, gconstpointer b, gpointer user_data)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* The names in @dir, sorted and joined by spaces. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_add (names, NULL);
  g_qsort_with_data (names->pdata, (gint) names->len - 1, sizeof (char *),
                     compare_strings, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
remove_tree (const char *path)
{
  struct stat st;

  if (lstat (path, &st) < 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *sub = g_build_filename (path, name, NULL);
          remove_tree (sub);
        }
      g_assert_cmpint (g_rmdir (path), ==, 0);
    }
  else
    g_assert_cmpint (g_unlink (path), ==, 0);
}

/* ---- datasets ---- */

static NczUrl *
url_for (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = g_filename_to_uri (path, NULL, &error);
  g_autofree char *text = g_strconcat (uri, "#mode=nczarr,file", NULL);
  NczUrl *url;

  g_assert_no_error (error);
  url = ncz_url_parse (text, &error);
  g_assert_no_error (error);
  return url;
}

static NczStore *
open_file_store (const char *path,
                 guint       flags,
                 GError    **error)
{
  g_autoptr(NczUrl) url = url_for (path);
  return ncz_registry_open_store (ncz_registry_get_default (), url, flags, NULL, error);
}

#define TRY(expr) G_STMT_START { if (!(expr)) return FALSE; } G_STMT_END

static gboolean
set_text (NczGroup *g, NczVariable *v, const char *name, const char *text, GError **error)
{
  g_autoptr(NczAttribute) a = ncz_attribute_new_text (name, text, -1);
  return v ? ncz_variable_set_attribute (v, a, error) : ncz_group_set_attribute (g, a, error);
}

static gboolean
write_whole (NczVariable *v, gconstpointer data, gsize size, GError **error)
{
  guint rank = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (v, &rank);
  guint64 start[4] = { 0 };
  return ncz_variable_write (v, start, rank, shape, rank, NULL, 0, data, size, NULL, error);
}

#define NX 12
#define NY 10

/* The dataset the writes make: groups, attributes, four types, chunks
 * with edges, deflate + shuffle and zstd. */
static gboolean
build_rich (NczGroup *root, GError **error)
{
  NczDimension *x, *y, *dims[2];
  NczVariable *v;
  NczGroup *g, *h;
  float temp[NY * NX];
  gint32 count[NX];
  double d[NY];
  gint64 big[NX];
  double range[] = { -1.5, 99.25 };
  guint64 c_temp[] = { 4, 5 }, c_count[] = { 5 }, c_d[] = { 4 }, c_big[] = { 6 };

  for (int i = 0; i < NY * NX; i++)
    temp[i] = (float) i * 0.5f - 3.0f;
  for (int i = 0; i < NX; i++)
    count[i] = i * 3 - 7;
  for (int i = 0; i < NY; i++)
    d[i] = i / 3.0;
  for (int i = 0; i < NX; i++)
    big[i] = ((gint64) 1 << 40) + i;

  TRY (set_text (root, NULL, "title", "fault test", error));
  {
    g_autoptr(NczAttribute) a = ncz_attribute_new_values ("range", NCZ_DATA_TYPE_DOUBLE, range, 2, error);
    TRY (a != NULL);
    TRY (ncz_group_set_attribute (root, a, error));
  }
  TRY ((x = ncz_group_add_dimension (root, "x", NX, FALSE, error)) != NULL);
  TRY ((y = ncz_group_add_dimension (root, "y", NY, FALSE, error)) != NULL);

  dims[0] = y;
  dims[1] = x;
  TRY ((v = ncz_group_add_variable (root, "temp", NCZ_DATA_TYPE_FLOAT, 2, dims, error)) != NULL);
  TRY (ncz_variable_set_chunk_sizes (v, c_temp, 2, error));
  TRY (ncz_variable_set_deflate (v, TRUE, TRUE, 4, error));
  TRY (set_text (NULL, v, "units", "K", error));
  TRY (write_whole (v, temp, sizeof temp, error));

  TRY ((v = ncz_group_add_variable (root, "count", NCZ_DATA_TYPE_INT, 1, &x, error)) != NULL);
  TRY (ncz_variable_set_chunk_sizes (v, c_count, 1, error));
  TRY (ncz_variable_set_zstandard (v, 3, error));
  TRY (write_whole (v, count, sizeof count, error));

  TRY ((g = ncz_group_add_group (root, "g", error)) != NULL);
  TRY (set_text (g, NULL, "comment", "a group", error));
  TRY ((v = ncz_group_add_variable (g, "d", NCZ_DATA_TYPE_DOUBLE, 1, &y, error)) != NULL);
  TRY (ncz_variable_set_chunk_sizes (v, c_d, 1, error));
  TRY (write_whole (v, d, sizeof d, error));

  TRY ((h = ncz_group_add_group (g, "h", error)) != NULL);
  TRY ((v = ncz_group_add_variable (h, "big", NCZ_DATA_TYPE_INT64, 1, &x, error)) != NULL);
  TRY (ncz_variable_set_chunk_sizes (v, c_big, 1, error));
  TRY (write_whole (v, big, sizeof big, error));
  return TRUE;
}

/* What was at the path before a replacement: another, smaller dataset. */
static gboolean
build_old (NczGroup *root, GError **error)
{
  NczDimension *n;
  NczVariable *v;
  guint16 vals[7] = { 1, 1, 2, 3, 5, 8, 13 };
  guint64 c[] = { 3 };

  TRY (set_text (root, NULL, "title", "the previous dataset", error));
  TRY ((n = ncz_group_add_dimension (root, "n", 7, FALSE, error)) != NULL);
  TRY ((v = ncz_group_add_variable (root, "fib", NCZ_DATA_TYPE_USHORT, 1, &n, error)) != NULL);
  TRY (ncz_variable_set_chunk_sizes (v, c, 1, error));
  TRY (write_whole (v, vals, sizeof vals, error));
  return TRUE;
}

typedef gboolean (*BuildFunc) (NczGroup *root, GError **error);

static void
make_dataset (const char *path, BuildFunc build)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = url_for (path);
  g_autoptr(NczDataset) ds = ncz_dataset_create (ncz_url_get_original (url),
                                                 NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (build (ncz_dataset_get_root_group (ds), &error));
  g_assert_no_error (error);
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
}

/* Partial updates of a rich dataset opened for writing: a box across
 * four chunks of the deflated variable, two elements of another, an
 * attribute changed. */
static gboolean
rewrite_rich (NczGroup *root, GError **error)
{
  NczVariable *v;
  NczGroup *g;
  float box[2 * 5];
  double two[2] = { 99.0, -99.0 };
  guint64 start[2] = { 3, 2 }, count[2] = { 2, 5 };
  guint64 s1[1] = { 3 }, c1[1] = { 2 };

  for (int i = 0; i < 10; i++)
    box[i] = -100.0f - (float) i;
  TRY ((v = ncz_group_get_variable (root, "temp")) != NULL);
  TRY (ncz_variable_write (v, start, 2, count, 2, NULL, 0, box, sizeof box, NULL, error));
  TRY ((g = ncz_group_get_group (root, "g")) != NULL);
  TRY ((v = ncz_group_get_variable (g, "d")) != NULL);
  TRY (ncz_variable_write (v, s1, 1, c1, 1, NULL, 0, two, sizeof two, NULL, error));
  TRY (set_text (root, NULL, "title", "rewritten", error));
  return TRUE;
}

/* Copies the dimensions, attributes, variables (with chunks and
 * filters) and data of @src into @dst, group by group, as ncz-copy
 * does. */
static gboolean
copy_group (NczGroup *src, NczGroup *dst, GError **error)
{
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (src);
  g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (src);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (src);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (src);

  for (guint i = 0; i < dims->len; i++)
    {
      NczDimension *d = g_ptr_array_index (dims, i);
      TRY (ncz_group_add_dimension (dst, ncz_dimension_get_name (d), ncz_dimension_get_length (d),
                                    ncz_dimension_is_unlimited (d), error) != NULL);
    }
  for (guint i = 0; i < attrs->len; i++)
    TRY (ncz_group_set_attribute (dst, g_ptr_array_index (attrs, i), error));
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *sg = g_ptr_array_index (groups, i);
      NczGroup *dg = ncz_group_add_group (dst, ncz_group_get_name (sg), error);
      TRY (dg != NULL);
    }
  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *sv = g_ptr_array_index (vars, i);
      guint rank = ncz_variable_get_n_dimensions (sv);
      g_autoptr(GPtrArray) sdims = ncz_variable_get_dimensions (sv);
      g_autoptr(GPtrArray) vattrs = ncz_variable_get_attributes (sv);
      g_autoptr(GArray) ids = ncz_variable_get_filter_ids (sv);
      g_autofree guint64 *shape = ncz_variable_get_shape (sv, NULL);
      NczDimension *ddims[4];
      guint64 start[4] = { 0 };
      gsize size = ncz_data_type_get_size (ncz_variable_get_value_type (sv)) *
                   ncz_variable_get_n_elements (sv);
      g_autofree guint8 *buf = g_malloc (MAX (size, 1));
      const guint64 *chunks;
      NczVariable *dv;

      g_assert_cmpuint (rank, <=, 4);
      for (guint k = 0; k < rank; k++)
        ddims[k] = ncz_group_lookup_dimension (dst, ncz_dimension_get_name (g_ptr_array_index (sdims, k)));
      TRY ((dv = ncz_group_add_variable (dst, ncz_variable_get_name (sv),
                                         ncz_variable_get_value_type (sv), rank, ddims,
                                         error)) != NULL);
      chunks = ncz_variable_get_chunk_sizes (sv, NULL);
      TRY (ncz_variable_set_chunk_sizes (dv, chunks, rank, error));
      for (guint k = 0; k < ids->len; k++)
        {
          guint id = g_array_index (ids, guint, k);
          g_autoptr(GArray) params = ncz_variable_get_filter_params (sv, id, error);
          TRY (params != NULL);
          TRY (ncz_variable_add_filter (dv, id, (guint *) params->data, params->len, error));
        }
      for (guint k = 0; k < vattrs->len; k++)
        TRY (ncz_variable_set_attribute (dv, g_ptr_array_index (vattrs, k), error));
      TRY (ncz_variable_read (sv, start, rank, shape, rank, NULL, 0, buf, size, NULL, error));
      TRY (ncz_variable_write (dv, start, rank, shape, rank, NULL, 0, buf, size, NULL, error));
    }
  for (guint i = 0; i < groups->len; i++)
    {
      NczGroup *sg = g_ptr_array_index (groups, i);
      TRY (copy_group (sg, ncz_group_get_group (dst, ncz_group_get_name (sg)), error));
    }
  return TRUE;
}

static void
dump_attrs (GString *out, GPtrArray *attrs)
{
  for (guint i = 0; i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      g_autoptr(GBytes) data = ncz_attribute_get_data (a);
      g_string_append_printf (out, " @%s:%d:", ncz_attribute_get_name (a),
                              (int) ncz_attribute_get_value_type (a));
      if (data != NULL)
        {
          gsize n;
          const guint8 *p = g_bytes_get_data (data, &n);
          for (gsize k = 0; k < n; k++)
            g_string_append_printf (out, "%02x", p[k]);
        }
    }
}

/* Every group, dimension, attribute and value of a dataset as text. */
static gboolean
dump_group (NczGroup *g, GString *out, GError **error)
{
  g_autoptr(GPtrArray) dims = ncz_group_get_dimensions (g);
  g_autoptr(GPtrArray) attrs = ncz_group_get_attributes (g);
  g_autoptr(GPtrArray) vars = ncz_group_get_variables (g);
  g_autoptr(GPtrArray) groups = ncz_group_get_groups (g);
  g_autofree char *name = ncz_group_get_full_name (g);

  g_string_append_printf (out, "group %s\n", name);
  for (guint i = 0; i < dims->len; i++)
    g_string_append_printf (out, " dim %s=%" G_GUINT64_FORMAT "\n",
                            ncz_dimension_get_name (g_ptr_array_index (dims, i)),
                            ncz_dimension_get_length (g_ptr_array_index (dims, i)));
  dump_attrs (out, attrs);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < vars->len; i++)
    {
      NczVariable *v = g_ptr_array_index (vars, i);
      guint rank = ncz_variable_get_n_dimensions (v);
      g_autofree guint64 *shape = ncz_variable_get_shape (v, NULL);
      g_autoptr(GPtrArray) vattrs = ncz_variable_get_attributes (v);
      guint64 start[4] = { 0 };
      gsize size = ncz_data_type_get_size (ncz_variable_get_value_type (v)) *
                   ncz_variable_get_n_elements (v);
      g_autofree guint8 *buf = g_malloc (MAX (size, 1));

      TRY (ncz_variable_read (v, start, rank, shape, rank, NULL, 0, buf, size, NULL, error));
      g_string_append_printf (out, " var %s:", ncz_variable_get_name (v));
      dump_attrs (out, vattrs);
      g_string_append_c (out, '=');
      for (gsize k = 0; k < size; k++)
        g_string_append_printf (out, "%02x", buf[k]);
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < groups->len; i++)
    TRY (dump_group (g_ptr_array_index (groups, i), out, error));
  return TRUE;
}

/* Opens the dataset at @path read-only and reads all of it. */
static char *
dump_dataset (const char *path, GError **error)
{
  g_autoptr(NczUrl) url = url_for (path);
  g_autoptr(NczDataset) ds = ncz_dataset_open (ncz_url_get_original (url), NCZ_OPEN_READ,
                                               NULL, error);
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean ok;

  if (ds == NULL)
    return NULL;
  ok = dump_group (ncz_dataset_get_root_group (ds), out, error);
  ncz_dataset_close (ds, NULL, NULL);
  return ok ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
}

/* ---- the writes ---- */

typedef enum {
  WRITE_CREATE,      /* a first-time create of a rich dataset */
  WRITE_REPLACE,     /* a rich dataset created over an existing one */
  WRITE_REWRITE,     /* partial updates of a dataset opened for WRITE */
  WRITE_COPY_OUT,    /* a full copy over an existing one; faults on the output */
  WRITE_COPY_IN,     /* the same copy; faults on the input */
} WriteKind;

typedef struct {
  WriteKind kind;
  char *base;        /* holds NAME only */
  char *path;        /* base/NAME */
  char *src_base;    /* holds the copy's source */
  char *src;
  GHashTable *before;
  char *before_list;
  char *dump_before; /* NULL: nothing at the path */
  char *dump_after;  /* of a clean run */
  GHashTable *after; /* of a clean run */
  GString *failures;
  guint n_failures;
  guint n_runs;
} Fixture;

/* Puts what is at the path before the write. */
static void
prepare (Fixture *f)
{
  remove_tree (f->path);
  switch (f->kind)
    {
    case WRITE_CREATE:
      break;
    case WRITE_REPLACE:
    case WRITE_COPY_OUT:
    case WRITE_COPY_IN:
      make_dataset (f->path, build_old);
      break;
    case WRITE_REWRITE:
      make_dataset (f->path, build_rich);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Runs the write with @fault armed on the store the write goes through
 * (the input's store for WRITE_COPY_IN). Returns FALSE with @error set
 * when some call of the write, or the close, failed. */
static gboolean
run_write (Fixture       *f,
           NczFaultKind   kind,
           guint          n,
           NczFaultStore **fault_out,
           GError       **error)
{
  g_autoptr(NczUrl) url = url_for (f->path);
  g_autoptr(NczStore) inner = NULL;
  g_autoptr(NczFaultStore) fault = NULL;
  g_autoptr(NczDataset) ds = NULL;
  g_autoptr(NczDataset) src = NULL;
  gboolean ok;

  if (f->kind == WRITE_COPY_IN)
    {
      g_autoptr(NczUrl) src_url = url_for (f->src);
      g_autoptr(NczStore) src_inner = open_file_store (f->src, NCZ_STORE_READ, error);
      g_assert_nonnull (src_inner);
      fault = ncz_fault_store_new (src_inner);
      ncz_fault_store_arm (fault, kind, n);
      *fault_out = g_object_ref (fault);
      src = ncz_dataset_open_store (NCZ_STORE (fault), src_url, NCZ_OPEN_READ, NULL, error);
      if (src == NULL)
        return FALSE;
    }
  else if (f->kind == WRITE_COPY_OUT)
    {
      g_autoptr(NczUrl) src_url = url_for (f->src);
      src = ncz_dataset_open (ncz_url_get_original (src_url), NCZ_OPEN_READ, NULL, error);
      g_assert_nonnull (src);
    }

  if (f->kind == WRITE_REWRITE)
    {
      inner = open_file_store (f->path, NCZ_STORE_WRITE, error);
      g_assert_nonnull (inner);
      fault = ncz_fault_store_new (inner);
      ncz_fault_store_arm (fault, kind, n);
      *fault_out = g_object_ref (fault);
      ds = ncz_dataset_open_store (NCZ_STORE (fault), url, NCZ_OPEN_WRITE, NULL, error);
      if (ds == NULL)
        return FALSE;
      ok = rewrite_rich (ncz_dataset_get_root_group (ds), error);
    }
  else
    {
      inner = open_file_store (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, error);
      g_assert_nonnull (inner);
      if (f->kind == WRITE_COPY_IN)
        ds = ncz_dataset_create_in_store (inner, url, NULL, error);
      else
        {
          fault = ncz_fault_store_new (inner);
          ncz_fault_store_arm (fault, kind, n);
          *fault_out = g_object_ref (fault);
          ds = ncz_dataset_create_in_store (NCZ_STORE (fault), url, NULL, error);
        }
      if (ds == NULL)
        return FALSE;
      if (src != NULL)
        ok = copy_group (ncz_dataset_get_root_group (src), ncz_dataset_get_root_group (ds), error);
      else
        ok = build_rich (ncz_dataset_get_root_group (ds), error);
    }

  /* a program that meets an error drops what it wrote */
  if (!ok)
    {
      ncz_dataset_discard (ds);
      return FALSE;
    }
  return ncz_dataset_close (ds, NULL, error);
}

static void
fixture_fail (Fixture *f, NczFaultKind kind, guint n, const char *op,
              const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
fixture_fail (Fixture *f, NczFaultKind kind, guint n, const char *op,
              const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  f->n_failures++;
  if (f->n_failures <= 40)
    g_string_append_printf (f->failures, "  %s at op %u (%s): %s\n",
                            ncz_fault_kind_to_string (kind), n, op ? op : "not reached", what);
}

/* Whether what is at the path now is what was there before, byte for
 * byte, with nothing beside it; for a first-time create, nothing at all:
 * a failed create leaves no trace that could block the next one. */
static void
check_unchanged (Fixture *f, NczFaultKind kind, guint n, const char *op)
{
  g_autoptr(GHashTable) now = snapshot (f->path);
  g_autofree char *list = list_dir (f->base);
  g_autofree char *diff = snapshot_diff (f->before, now);

  if (g_strcmp0 (list, f->before_list) != 0)
    fixture_fail (f, kind, n, op, "the parent directory holds '%s', not '%s'", list, f->before_list);
  if (diff != NULL)
    fixture_fail (f, kind, n, op, "the previous dataset changed: %s", diff);
}

/* A rewrite in place is not one transaction: each object must be either
 * its previous or its new version, and nothing else may be left. */
static void
check_each_object_old_or_new (Fixture *f, NczFaultKind kind, guint n, const char *op)
{
  g_autoptr(GHashTable) now = snapshot (f->path);
  g_autofree char *list = list_dir (f->base);
  GHashTableIter iter;
  gpointer key, value;

  if (g_strcmp0 (list, f->before_list) != 0)
    fixture_fail (f, kind, n, op, "the parent directory holds '%s'", list);
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GBytes *old = g_hash_table_lookup (f->before, key);
      GBytes *new = g_hash_table_lookup (f->after, key);

      if (old == NULL && new == NULL)
        fixture_fail (f, kind, n, op, "'%s' was left in the dataset", (char *) key);
      else if (!(old && g_bytes_equal (old, value)) && !(new && g_bytes_equal (new, value)))
        fixture_fail (f, kind, n, op, "'%s' is neither its previous nor its new version "
                      "(%" G_GSIZE_FORMAT " bytes)", (char *) key, g_bytes_get_size (value) - 2);
    }
  g_hash_table_iter_init (&iter, f->before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (now, key))
      fixture_fail (f, kind, n, op, "'%s' is gone", (char *) key);
}

/* After a write that reported success: reading the dataset gives the
 * values of a clean run, or fails; never other values. */
static void
check_result_reads_true (Fixture *f, NczFaultKind kind, guint n, const char *op,
                         gboolean lied_to)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dump = dump_dataset (f->path, &error);
  g_autofree char *list = list_dir (f->base);

  if (g_strcmp0 (list, f->before_list) != 0 && !(f->kind == WRITE_CREATE && g_str_equal (list, NAME)))
    fixture_fail (f, kind, n, op, "the parent directory holds '%s'", list);
  if (dump == NULL)
    {
      if (!lied_to)
        fixture_fail (f, kind, n, op, "the write succeeded but the result does not read: %s",
                      error->message);
      else
        g_test_message ("%s at op %u (%s): the write succeeded; reading it fails: %s",
                        ncz_fault_kind_to_string (kind), n, op, error->message);
      return;
    }
  if (!g_str_equal (dump, f->dump_after))
    fixture_fail (f, kind, n, op, "the write succeeded and the result reads without error "
                  "but holds other values than a clean write");
  else if (lied_to)
    g_test_message ("%s at op %u (%s): the write succeeded and the result reads as a clean one",
                    ncz_fault_kind_to_string (kind), n, op);
}

static void
run_one (Fixture *f, NczFaultKind kind, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczFaultStore) fault = NULL;
  g_autofree char *op = NULL;
  gboolean ok, fired;

  prepare (f);
  f->n_runs++;
  ok = run_write (f, kind, n, &fault, &error);
  fired = fault != NULL && ncz_fault_store_has_fired (fault);
  op = fault ? ncz_fault_store_dup_fired_op (fault) : NULL;
  g_clear_object (&fault);

  if (!ok && error == NULL)
    fixture_fail (f, kind, n, op, "the write failed without a GError");
  if (!ok && !fired)
    fixture_fail (f, kind, n, op, "the write failed though the fault had no effect: %s",
                  error ? error->message : "?");

  if (!ok)
    {
      if (kind == NCZ_FAULT_SHORT_READ)
        g_test_message ("short-read at read %u (%s): the write fails: %s", n, op,
                        error ? error->message : "?");
      if (f->kind == WRITE_REWRITE)
        check_each_object_old_or_new (f, kind, n, op);
      else
        check_unchanged (f, kind, n, op);
      return;
    }

  /* the write reported success */
  if (fired && kind != NCZ_FAULT_ZERO_WRITE)
    fixture_fail (f, kind, n, op, "the write succeeded: the fault was not reported");
  check_result_reads_true (f, kind, n, op, fired && kind == NCZ_FAULT_ZERO_WRITE);
}

static void
run_fault_matrix (gconstpointer data)
{
  WriteKind wk = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(NczFaultStore) fault = NULL;
  static const NczFaultKind kinds[] = {
    NCZ_FAULT_ENOSPC, NCZ_FAULT_EIO, NCZ_FAULT_EACCES,
    NCZ_FAULT_SHORT_READ, NCZ_FAULT_ZERO_WRITE,
  };
  Fixture f = { 0 };
  guint n_ops, n_reads, n_writes;

  f.kind = wk;
  f.base = g_dir_make_tmp ("ncz-fault-XXXXXX", &error);
  g_assert_no_error (error);
  f.path = g_build_filename (f.base, NAME, NULL);
  f.failures = g_string_new (NULL);
  if (wk == WRITE_COPY_IN || wk == WRITE_COPY_OUT)
    {
      f.src_base = g_dir_make_tmp ("ncz-fault-src-XXXXXX", &error);
      g_assert_no_error (error);
      f.src = g_build_filename (f.src_base, "src.zarr", NULL);
      make_dataset (f.src, build_rich);
    }

  /* the state before, and a clean run */
  prepare (&f);
  f.before = snapshot (f.path);
  f.before_list = list_dir (f.base);
  f.dump_before = g_file_test (f.path, G_FILE_TEST_EXISTS) ? dump_dataset (f.path, &error) : NULL;
  g_assert_no_error (error);
  g_assert_true (run_write (&f, NCZ_FAULT_NONE, 0, &fault, &error));
  g_assert_no_error (error);
  n_ops = ncz_fault_store_get_n_ops (fault);
  n_reads = ncz_fault_store_get_n_reads (fault);
  n_writes = ncz_fault_store_get_n_writes (fault);
  g_clear_object (&fault);
  f.after = snapshot (f.path);
  f.dump_after = dump_dataset (f.path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f.dump_after);
  g_assert_cmpstr (f.dump_after, !=, f.dump_before);
  g_assert_cmpuint (n_ops, >, 0);
  g_test_message ("a clean run: %u operations, %u reads, %u writes", n_ops, n_reads, n_writes);

  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      guint count = kinds[k] == NCZ_FAULT_SHORT_READ ? n_reads :
                    kinds[k] == NCZ_FAULT_ZERO_WRITE ? n_writes : n_ops;
      for (guint n = 1; n <= count; n++)
        run_one (&f, kinds[k], n);
    }

  g_test_message ("%u runs, %u failed checks", f.n_runs, f.n_failures);
  if (f.n_failures > 0)
    g_test_fail_printf ("%u of the checks failed:\n%s", f.n_failures, f.failures->str);

  remove_tree (f.path);
  g_assert_cmpint (g_rmdir (f.base), ==, 0);
  if (f.src_base)
    {
      remove_tree (f.src);
      g_assert_cmpint (g_rmdir (f.src_base), ==, 0);
    }
  g_free (f.base);
  g_free (f.path);
  g_free (f.src_base);
  g_free (f.src);
  g_hash_table_unref (f.before);
  g_hash_table_unref (f.after);
  g_free (f.before_list);
  g_free (f.dump_before);
  g_free (f.dump_after);
  g_string_free (f.failures, TRUE);
}

static void
keep_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The fault store itself: counts, forwards, fails the armed operation. */
static void
test_fault_store_basics (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczMemoryStore) mem = ncz_memory_store_new ();
  g_autoptr(NczFaultStore) fault = ncz_fault_store_new (NCZ_STORE (mem));
  NczStore *store = NCZ_STORE (fault);
  g_autoptr(GBytes) hello = g_bytes_new_static ("hello", 5);
  g_autoptr(GBytes) got = NULL;
  g_auto(GStrv) names = NULL;
  const char *keys[] = { "a", "b", NULL };
  GBytes *two[] = { hello, hello };
  g_autoptr(GPtrArray) many = NULL;
  guint64 len = 0;

  g_assert_true (ncz_store_write (store, "a", hello, NULL, &error));
  g_assert_true (ncz_store_write_many (store, keys, two, 2, NULL, &error));
  got = ncz_store_read (store, "a", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (got, hello));
  g_clear_pointer (&got, g_bytes_unref);
  g_assert_true (ncz_store_get_length (store, "b", &len, NULL, &error));
  g_assert_cmpuint (len, ==, 5);
  names = ncz_store_list (store, "", NULL, &error);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_true (ncz_store_remove (store, "b", NULL, &error));
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ncz_fault_store_get_n_ops (fault), ==, 8);
  g_assert_cmpuint (ncz_fault_store_get_n_reads (fault), ==, 1);
  g_assert_cmpuint (ncz_fault_store_get_n_writes (fault), ==, 3);
  g_assert_false (ncz_fault_store_has_fired (fault));

  /* the second write of a write_many fails; the first is written */
  ncz_fault_store_arm (fault, NCZ_FAULT_ENOSPC, 4);
  g_assert_true (ncz_store_write (store, "c", hello, NULL, &error));
  g_assert_true (ncz_store_remove (store, "a", NULL, &error));
  keys[0] = "d";
  keys[1] = "e";
  g_assert_false (ncz_store_write_many (store, keys, two, 2, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "'e'"));
  g_clear_error (&error);
  g_assert_true (ncz_fault_store_has_fired (fault));
  g_assert_true (ncz_store_exists (NCZ_STORE (mem), "d", NULL, NULL));
  g_assert_false (ncz_store_exists (NCZ_STORE (mem), "e", NULL, NULL));

  ncz_fault_store_arm (fault, NCZ_FAULT_EACCES, 1);
  g_assert_false (ncz_store_commit (store, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION);
  g_clear_error (&error);

  /* short reads: of a plain read, of a read_many, of an async read */
  ncz_fault_store_arm (fault, NCZ_FAULT_SHORT_READ, 2);
  got = ncz_store_read (store, "c", NULL, &error);
  g_assert_cmpuint (g_bytes_get_size (got), ==, 5);
  g_clear_pointer (&got, g_bytes_unref);
  keys[0] = "c";
  keys[1] = "d";
  many = ncz_store_read_many (store, keys, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (g_ptr_array_index (many, 0)), ==, 2);
  g_assert_cmpuint (g_bytes_get_size (g_ptr_array_index (many, 1)), ==, 5);

  /* the asynchronous read comes through the fault store too */
  ncz_fault_store_arm (fault, NCZ_FAULT_EIO, 1);
  {
    g_autoptr(GAsyncResult) result = NULL;
    ncz_store_read_async (store, "c", G_PRIORITY_DEFAULT, NULL, keep_result, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_null (ncz_store_read_finish (store, result, &error));
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
    g_clear_error (&error);
  }

  /* a zero-length write reports success and stores nothing */
  ncz_fault_store_arm (fault, NCZ_FAULT_ZERO_WRITE, 1);
  g_assert_true (ncz_store_write (store, "z", hello, NULL, &error));
  g_assert_no_error (error);
  got = ncz_store_read (NCZ_STORE (mem), "z", NULL, &error);
  g_assert_cmpuint (g_bytes_get_size (got), ==, 0);
}

int
main (int argc, char **argv)
{
  /* one thread numbers the operations in the same order every run */
  g_setenv ("NCZ_THREADS", "1", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/safety/fault-store", test_fault_store_basics);
  g_test_add_data_func ("/safety/fault/create", GINT_TO_POINTER (WRITE_CREATE), run_fault_matrix);
  g_test_add_data_func ("/safety/fault/replace", GINT_TO_POINTER (WRITE_REPLACE), run_fault_matrix);
  g_test_add_data_func ("/safety/fault/rewrite", GINT_TO_POINTER (WRITE_REWRITE), run_fault_matrix);
  g_test_add_data_func ("/safety/fault/copy-out", GINT_TO_POINTER (WRITE_COPY_OUT), run_fault_matrix);
  g_test_add_data_func ("/safety/fault/copy-in", GINT_TO_POINTER (WRITE_COPY_IN), run_fault_matrix);

  return g_test_run ();
}
