/* test-zip-store.c: the zip-archive store
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gmodule.h>
#include <zlib.h>

#include "ncz-zip-store.h"
#include "store-checks.h"
#include <ncz/ncz-module.h>

/* rename() that fails on demand: the driver's sources are built into
 * this program, so the rename of its commit comes here (the one that
 * puts the archive in place, not libzip's own). */
static gint fail_rename;

int
rename (const char *from, const char *to)
{
  if (g_atomic_int_get (&fail_rename) && g_str_has_suffix (to, "/store.zip"))
    {
      errno = EIO;
      return -1;
    }
  return (int) syscall (SYS_rename, from, to);
}

typedef struct {
  char *base;       /* a scratch directory */
  char *path;       /* base/store.zip */
  NczStore *store;  /* path opened with NCZ_STORE_CREATE */
} Fixture;

/* @extra: more fragment keys ("&k=v"), or NULL */
static NczStore *
open_zip_with (const char *path,
               const char *extra,
               guint       flags,
               GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *uri = g_filename_to_uri (path, NULL, &local_error);
  g_autofree char *text = NULL;
  g_autoptr(NczUrl) url = NULL;

  g_assert_no_error (local_error);
  text = g_strconcat (uri, "#mode=nczarr,zip", extra, NULL);
  url = ncz_url_parse (text, &local_error);
  g_assert_no_error (local_error);
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "zip");
  return g_initable_new (NCZ_TYPE_ZIP_STORE, NULL, error, "url", url, "flags", flags, NULL);
}

static NczStore *
open_zip (const char *path,
          guint       flags,
          GError    **error)
{
  return open_zip_with (path, NULL, flags, error);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->base = g_dir_make_tmp ("ncz-zip-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->base, "store.zip", NULL);
  f->store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  store_release (&f->store);
  rm_rf (f->base);
  g_free (f->path);
  g_free (f->base);
}

typedef void (*StoreCheck) (NczStore *store);

static void
run_check (Fixture       *f,
           gconstpointer  data)
{
  ((StoreCheck) data) (f->store);
}

static GBytes *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

static void
write_file (const char *path,
            const void *data,
            gsize       len)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, data, (gssize) len, &error));
  g_assert_no_error (error);
}

/* Nothing but the archive @name and its writer lock file, which stays
 * beside it, is left in @dir (no staging directory, no temporary
 * archive). */
static void
assert_only (const char *dir,
             const char *name)
{
  g_autofree char *entries = dir_entries (dir);
  g_autofree char *expected = g_strdup_printf (".%s.ncz-lock|%s", name, name);

  g_assert_cmpstr (entries, ==, expected);
}

/* ---- a small zip writer, for archives libzip would not write ---- */

typedef struct {
  const char *name;
  const char *data;       /* the object's bytes */
  gsize len;
  gboolean deflate;
  gint64 declare_size;    /* >= 0: the uncompressed size written in the headers */
  gint64 declare_comp;    /* >= 0: the compressed size in the central directory */
} RawEntry;

static GByteArray *
deflate_raw (const char *data,
             gsize       len)
{
  GByteArray *out = g_byte_array_new ();
  z_stream zs = { 0 };
  guint8 buf[4096];
  int r;

  g_assert_cmpint (deflateInit2 (&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  zs.next_in = (Bytef *) data;
  zs.avail_in = (uInt) len;
  do
    {
      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      r = deflate (&zs, Z_FINISH);
      g_byte_array_append (out, buf, (guint) (sizeof buf - zs.avail_out));
    }
  while (r == Z_OK);
  g_assert_cmpint (r, ==, Z_STREAM_END);
  deflateEnd (&zs);
  return out;
}

static void
put16 (GByteArray *a, guint v)
{
  guint8 b[2] = { v & 0xff, (v >> 8) & 0xff };
  g_byte_array_append (a, b, 2);
}

static void
put32 (GByteArray *a, guint32 v)
{
  guint8 b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };
  g_byte_array_append (a, b, 4);
}

static GByteArray *
build_raw_zip (const RawEntry *entries,
               guint           n)
{
  GByteArray *out = g_byte_array_new ();
  g_autoptr(GByteArray) cd = g_byte_array_new ();
  guint32 cd_offset;

  for (guint i = 0; i < n; i++)
    {
      const RawEntry *e = &entries[i];
      g_autoptr(GByteArray) comp = NULL;
      guint32 crc = (guint32) crc32 (0, (const Bytef *) e->data, (uInt) e->len);
      guint32 offset = out->len;
      guint32 size = e->declare_size >= 0 ? (guint32) e->declare_size : (guint32) e->len;
      guint32 csize;
      gsize nlen = strlen (e->name);

      if (e->deflate)
        comp = deflate_raw (e->data, e->len);
      else
        {
          comp = g_byte_array_new ();
          g_byte_array_append (comp, (const guint8 *) e->data, (guint) e->len);
        }
      csize = comp->len;

      put32 (out, 0x04034b50);
      put16 (out, 20);
      put16 (out, 0);
      put16 (out, e->deflate ? 8 : 0);
      put16 (out, 0);
      put16 (out, 0x21);
      put32 (out, crc);
      put32 (out, csize);
      put32 (out, size);
      put16 (out, (guint) nlen);
      put16 (out, 0);
      g_byte_array_append (out, (const guint8 *) e->name, (guint) nlen);
      g_byte_array_append (out, comp->data, comp->len);

      put32 (cd, 0x02014b50);
      put16 (cd, 20);
      put16 (cd, 20);
      put16 (cd, 0);
      put16 (cd, e->deflate ? 8 : 0);
      put16 (cd, 0);
      put16 (cd, 0x21);
      put32 (cd, crc);
      put32 (cd, e->declare_comp >= 0 ? (guint32) e->declare_comp : csize);
      put32 (cd, size);
      put16 (cd, (guint) nlen);
      put16 (cd, 0);
      put16 (cd, 0);
      put16 (cd, 0);
      put16 (cd, 0);
      put32 (cd, 0);
      put32 (cd, offset);
      g_byte_array_append (cd, (const guint8 *) e->name, (guint) nlen);
    }
  cd_offset = out->len;
  g_byte_array_append (out, cd->data, cd->len);
  put32 (out, 0x06054b50);
  put16 (out, 0);
  put16 (out, 0);
  put16 (out, n);
  put16 (out, n);
  put32 (out, cd->len);
  put32 (out, cd_offset);
  put16 (out, 0);
  return out;
}

#define RAW(n, d) { n, d, sizeof d - 1, FALSE, -1, -1 }
#define RAW_DEFLATED(n, d) { n, d, sizeof d - 1, TRUE, -1, -1 }

static void
write_raw_zip (const char     *path,
               const RawEntry *entries,
               guint           n)
{
  g_autoptr(GByteArray) zip = build_raw_zip (entries, n);

  write_file (path, zip->data, zip->len);
}

/* ---- tests ---- */

static void
put_and_commit (NczStore *store)
{
  g_autoptr(GError) error = NULL;

  store_put (store, ".zgroup", "{\"zarr_format\": 2}");
  store_put (store, "v/.zarray", "{\"shape\": [4]}");
  store_put (store, "v/0", "0123456789abcdef");
  store_put (store, "g/w/0.0", "chunk");
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
}

/* Written, committed, read back by a new store: the objects, their
 * listing, entries stored, nothing left beside the archive. */
static void
test_commit_and_read (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) reader = NULL;

  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
  put_and_commit (f->store);
  assert_only (f->base, "store.zip");

  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (reader, ".zgroup", "{\"zarr_format\": 2}");
  store_assert_content (reader, "v/0", "0123456789abcdef");
  store_assert_content (reader, "g/w/0.0", "chunk");
  store_assert_list (reader, "", ".zgroup", "g", "v", NULL);
  store_assert_list (reader, "v", ".zarray", "0", NULL);
  store_assert_list (reader, "g", "w", NULL);
  store_assert_list (reader, "nothing", NULL);
  store_assert_list (reader, "v/0", NULL);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (reader)), ==, "");
  g_assert_true (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (reader), "v/0", NULL));
  g_assert_true (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (reader), ".zgroup", NULL));
  g_assert_cmpuint (ncz_store_get_io_depth_hint (reader), ==, 1);

  /* read-only */
  g_assert_false (ncz_store_write (reader, "x", g_bytes_new_static ("x", 1), NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (ncz_store_remove (reader, "v", NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY);
}

/* A stored entry's bytes are read where they lie in the file: the data
 * offset found from the local header holds the object, and a range is
 * read from there. */
static void
test_ranged_stored (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) reader = NULL;
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GBytes) range = NULL;
  g_autoptr(GPtrArray) ranges = NULL;
  NczStoreRange want[] = { { 2, 3 }, { 10, -1 }, { 0, 0 } };
  guint64 offset = 0;
  gsize len;
  const char *bytes;

  put_and_commit (f->store);
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_true (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (reader), "v/0", &offset));
  file = read_file (f->path);
  bytes = g_bytes_get_data (file, &len);
  g_assert_cmpuint (offset + 16, <=, len);
  g_assert_cmpmem (bytes + offset, 16, "0123456789abcdef", 16);

  range = ncz_store_read_range (reader, "v/0", 4, 5, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (range, NULL), g_bytes_get_size (range), "456789", 5);
  g_clear_pointer (&range, g_bytes_unref);
  range = ncz_store_read_range (reader, "v/0", 17, -1, NULL, &error);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED);
  g_assert_null (range);
  g_clear_error (&error);

  ranges = ncz_store_read_ranges (reader, "v/0", want, G_N_ELEMENTS (want), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (ranges->pdata[0], NULL), g_bytes_get_size (ranges->pdata[0]),
                   "234", 3);
  g_assert_cmpmem (g_bytes_get_data (ranges->pdata[1], NULL), g_bytes_get_size (ranges->pdata[1]),
                   "abcdef", 6);
  g_assert_cmpuint (g_bytes_get_size (ranges->pdata[2]), ==, 0);
}

/* Deflated entries (as netcdf-c's and Python's zip tools write them) are
 * inflated; ranges of them too. */
static void
test_deflated (Fixture       *f,
               gconstpointer  data)
{
  static const RawEntry entries[] = {
    RAW_DEFLATED (".zgroup", "{\"zarr_format\": 2}"),
    RAW_DEFLATED ("v/0", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabcd"),
    RAW ("v/1", "stored"),
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) reader = NULL;
  g_autoptr(GBytes) range = NULL;

  write_raw_zip (f->path, entries, G_N_ELEMENTS (entries));
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (reader, ".zgroup", "{\"zarr_format\": 2}");
  store_assert_content (reader, "v/0", entries[1].data);
  store_assert_content (reader, "v/1", "stored");
  g_assert_false (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (reader), "v/0", NULL));
  range = ncz_store_read_range (reader, "v/0", 63, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (range, NULL), g_bytes_get_size (range), "abcd", 4);
}

/* Zipped from inside the dataset's directory, from its parent, with
 * directory entries and foreign entries beside it. */
static void
test_layouts (Fixture       *f,
              gconstpointer  data)
{
  static const RawEntry inside[] = {
    RAW ("v/", ""), RAW (".zgroup", "{}"), RAW ("v/.zarray", "{}"), RAW ("v/0.0", "x"),
  };
  static const RawEntry parent[] = {
    RAW ("ds.zarr/", ""), RAW ("ds.zarr/.zgroup", "{}"), RAW ("ds.zarr/v/", ""),
    RAW ("ds.zarr/v/.zarray", "{}"), RAW ("ds.zarr/v/0.0", "x"),
    RAW ("__MACOSX/ds.zarr/._.zgroup", "junk"),
  };
  static const RawEntry two_dirs[] = {
    RAW ("a/.zgroup", "{}"), RAW ("b/.zgroup", "{}"),
  };
  static const RawEntry no_root_group[] = {
    RAW ("ds/", ""), RAW ("ds/lat/.zarray", "{}"), RAW ("ds/lat/0", "y"), RAW ("ds/lon/.zarray", "{}"),
  };
  g_autoptr(GError) error = NULL;
  NczStore *reader;

  write_raw_zip (f->path, inside, G_N_ELEMENTS (inside));
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (reader)), ==, "");
  store_assert_list (reader, "", ".zgroup", "v", NULL);
  store_assert_list (reader, "v", ".zarray", "0.0", NULL);
  store_assert_content (reader, "v/0.0", "x");
  g_object_unref (reader);

  write_raw_zip (f->path, parent, G_N_ELEMENTS (parent));
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (reader)), ==, "ds.zarr/");
  store_assert_list (reader, "", ".zgroup", "v", NULL);
  store_assert_list (reader, "v", ".zarray", "0.0", NULL);
  store_assert_content (reader, "v/0.0", "x");
  g_object_unref (reader);

  /* from the parent, a group without .zgroup holding arrays */
  write_raw_zip (f->path, no_root_group, G_N_ELEMENTS (no_root_group));
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (reader)), ==, "ds/");
  store_assert_list (reader, "", "lat", "lon", NULL);
  store_assert_content (reader, "lat/0", "y");
  g_object_unref (reader);

  /* two candidates: nothing is guessed */
  write_raw_zip (f->path, two_dirs, G_N_ELEMENTS (two_dirs));
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (reader)), ==, "");
  store_assert_list (reader, "", "a", "b", NULL);
  g_object_unref (reader);
}

/* Updating a dataset zipped from its parent keeps its layout and the
 * entries not rewritten (deflated ones included). */
static void
test_update (Fixture       *f,
             gconstpointer  data)
{
  static const RawEntry parent[] = {
    RAW ("ds.zarr/", ""), RAW_DEFLATED ("ds.zarr/.zgroup", "{\"zarr_format\": 2}"),
    RAW ("ds.zarr/v/.zarray", "{}"), RAW ("ds.zarr/v/0.0", "old"), RAW ("ds.zarr/v/0.1", "gone"),
  };
  g_autoptr(GError) error = NULL;
  NczStore *store;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;

  g_clear_object (&f->store);
  write_raw_zip (f->path, parent, G_N_ELEMENTS (parent));
  before = read_file (f->path);

  /* discarded changes leave the archive as it was */
  store = open_zip (f->path, NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, "v/0.0", "new");
  g_assert_true (ncz_store_remove (store, "v/0.1", NULL, &error));
  store_assert_list (store, "v", ".zarray", "0.0", NULL);
  ncz_store_discard (store);
  store_assert_content (store, "v/0.1", "gone");
  g_object_unref (store);
  after = read_file (f->path);
  g_assert_true (g_bytes_equal (before, after));
  assert_only (f->base, "store.zip");

  /* changes written when the store is released */
  store = open_zip (f->path, NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, "v/0.0", "new");
  store_put (store, "w/0", "added");
  g_assert_true (ncz_store_remove (store, "v/0.1", NULL, &error));
  store_assert_content (store, "v/0.0", "new");
  store_assert_content (store, ".zgroup", "{\"zarr_format\": 2}");
  g_object_unref (store);
  assert_only (f->base, "store.zip");

  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ncz_zip_store_get_entry_prefix (NCZ_ZIP_STORE (store)), ==, "ds.zarr/");
  store_assert_content (store, "v/0.0", "new");
  store_assert_content (store, "w/0", "added");
  store_assert_content (store, ".zgroup", "{\"zarr_format\": 2}");
  /* copied as it was: still deflated; what was written is stored */
  g_assert_false (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (store), ".zgroup", NULL));
  g_assert_true (ncz_zip_store_is_stored_entry (NCZ_ZIP_STORE (store), "w/0", NULL));
  g_assert_false (ncz_store_exists (store, "v/0.1", NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", ".zgroup", "v", "w", NULL);
  g_object_unref (store);
}

/* Replacing an archive: the old one stays, byte for byte, until commit;
 * a discarded or failed replacement leaves it and nothing else. */
static void
test_replace (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  NczStore *store;

  put_and_commit (f->store);
  g_clear_object (&f->store);
  before = read_file (f->path);

  store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{\"new\": true}");
  g_assert_false (ncz_store_exists (store, "v/0", NULL, &error));
  after = read_file (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_clear_pointer (&after, g_bytes_unref);
  ncz_store_discard (store);
  g_object_unref (store);
  after = read_file (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_clear_pointer (&after, g_bytes_unref);
  assert_only (f->base, "store.zip");

  /* released without commit: the same */
  store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{\"new\": true}");
  g_object_unref (store);
  after = read_file (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_clear_pointer (&after, g_bytes_unref);
  assert_only (f->base, "store.zip");

  /* the rename at commit fails */
  store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{\"new\": true}");
  g_atomic_int_set (&fail_rename, 1);
  g_assert_false (ncz_store_commit (store, NULL, &error));
  g_atomic_int_set (&fail_rename, 0);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "unchanged"));
  g_clear_error (&error);
  ncz_store_discard (store);
  g_object_unref (store);
  after = read_file (f->path);
  g_assert_true (g_bytes_equal (before, after));
  g_clear_pointer (&after, g_bytes_unref);
  assert_only (f->base, "store.zip");

  /* committed: the new archive, and only it */
  store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{\"new\": true}");
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  store_assert_list (store, "", ".zgroup", NULL);
  g_object_unref (store);
  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_content (store, ".zgroup", "{\"new\": true}");
  store_assert_list (store, "", ".zgroup", NULL);
  g_object_unref (store);
  assert_only (f->base, "store.zip");
}

/* A reader keeps reading the archive it opened while a writer replaces
 * it. */
static void
test_reader_survives_replace (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczStore) reader = NULL;
  g_autoptr(NczStore) writer = NULL;

  put_and_commit (f->store);
  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  writer = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (writer, "v/0", "replaced");
  g_assert_true (ncz_store_commit (writer, NULL, &error));
  g_assert_no_error (error);
  store_assert_content (reader, "v/0", "0123456789abcdef");
  store_assert_content (writer, "v/0", "replaced");
}

/* Names that would leave the dataset's directory, duplicates: the whole
 * archive is refused, and the error names the entry and the archive. */
static void
test_hostile_names (Fixture       *f,
                    gconstpointer  data)
{
  static const char *const bad[] = {
    "../evil", "a/../../evil", "/etc/passwd", "a\\..\\evil", "C:/evil", "v/..",
  };
  g_autoptr(GError) error = NULL;

  g_clear_object (&f->store);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      RawEntry entries[] = { RAW (".zgroup", "{}"), { bad[i], "x", 1, FALSE, -1, -1 } };
      NczStore *store;

      write_raw_zip (f->path, entries, G_N_ELEMENTS (entries));
      store = open_zip (f->path, NCZ_STORE_READ, &error);
      g_assert_null (store);
      g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
      g_assert_nonnull (strstr (error->message, f->path));
      if (strchr (bad[i], '\\') == NULL)
        g_assert_nonnull (strstr (error->message, bad[i]));
      g_clear_error (&error);
    }

  {
    RawEntry dup[] = { RAW (".zgroup", "{}"), RAW ("v/0", "one"), RAW ("v/0", "two") };
    NczStore *store;

    write_raw_zip (f->path, dup, G_N_ELEMENTS (dup));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    g_assert_null (store);
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
    g_assert_nonnull (strstr (error->message, "'v/0'"));
    g_assert_nonnull (strstr (error->message, "more than once"));
    g_clear_error (&error);
  }

  /* and never written */
  {
    NczStore *store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);

    g_assert_no_error (error);
    g_assert_false (ncz_store_write (store, "a\\b", g_bytes_new_static ("x", 1), NULL, &error));
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
    g_clear_error (&error);
    g_assert_false (ncz_store_write (store, "../x", g_bytes_new_static ("x", 1), NULL, &error));
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
    g_clear_error (&error);
    g_assert_false (ncz_store_write (store, "/x", g_bytes_new_static ("x", 1), NULL, &error));
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
    g_clear_error (&error);
    g_object_unref (store);
  }
}

/* Every prefix of a valid archive is refused with an error; so is the
 * archive with any one byte of its central directory or end record
 * changed, or reads of it fail with an error: never a crash. */
static void
test_truncated (Fixture       *f,
                gconstpointer  data)
{
  static const RawEntry entries[] = {
    RAW_DEFLATED (".zgroup", "{\"zarr_format\": 2}"),
    RAW ("v/.zarray", "{}"),
    RAW ("v/0", "0123456789"),
  };
  g_autoptr(GByteArray) zip = build_raw_zip (entries, G_N_ELEMENTS (entries));
  g_autoptr(GError) error = NULL;

  g_clear_object (&f->store);
  for (guint len = 0; len < zip->len; len++)
    {
      NczStore *store;

      write_file (f->path, zip->data, len);
      store = open_zip (f->path, NCZ_STORE_READ, &error);
      g_assert_null (store);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, f->path));
      g_clear_error (&error);
    }

  /* damage: each byte in turn set to 0xff */
  for (guint pos = 0; pos < zip->len; pos++)
    {
      g_autoptr(GByteArray) copy = g_byte_array_sized_new (zip->len);
      NczStore *store;

      g_byte_array_append (copy, zip->data, zip->len);
      copy->data[pos] ^= 0xff;
      write_file (f->path, copy->data, copy->len);
      store = open_zip (f->path, NCZ_STORE_READ, &error);
      if (store == NULL)
        {
          g_assert_nonnull (error);
          g_clear_error (&error);
          continue;
        }
      for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
        {
          g_autoptr(GBytes) bytes = ncz_store_read (store, entries[i].name, NULL, &error);

          g_assert_true ((bytes == NULL) == (error != NULL));
          g_clear_error (&error);
        }
      g_object_unref (store);
    }
}

/* Sizes the headers lie about. */
static void
test_lying_sizes (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  NczStore *store;
  GBytes *bytes;

  g_clear_object (&f->store);

  /* a stored entry declaring more bytes than it holds */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", "0123456789", 10, FALSE, 20, -1 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    if (store != NULL)
      {
        bytes = ncz_store_read (store, "v/0", NULL, &error);
        g_assert_null (bytes);
        g_object_unref (store);
      }
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, f->path));
    g_clear_error (&error);
  }

  /* a compressed size in the central directory running past the data */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", "0123456789", 10, FALSE, -1, 100000 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    g_assert_null (store);
    g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
    g_assert_nonnull (strstr (error->message, "v/0"));
    g_clear_error (&error);
  }

  /* a deflated entry that inflates to fewer bytes than it declares */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", "0123456789", 10, TRUE, 50, -1 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    if (store != NULL)
      {
        bytes = ncz_store_read (store, "v/0", NULL, &error);
        g_assert_null (bytes);
        g_object_unref (store);
      }
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
}

/* Zip bombs: a declared size beyond what deflate can make of the
 * compressed bytes is refused before any allocation; an entry inflating
 * past its declared size is an error, after a buffer of the declared
 * size only. */
static void
test_bomb (Fixture       *f,
           gconstpointer  data)
{
  gsize big_len = 8 << 20;
  g_autofree char *zeros = g_malloc0 (big_len);
  g_autoptr(GError) error = NULL;
  NczStore *store;
  GBytes *bytes;

  g_clear_object (&f->store);

  /* 4 GiB - 1 declared for a few compressed bytes */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", "0000000000", 10, TRUE, 0xfffffffe, -1 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    if (store != NULL)
      {
        guint64 length = 0;

        /* listed with its declared size, never read */
        g_assert_true (ncz_store_get_length (store, "v/0", &length, NULL, &error));
        g_assert_no_error (error);
        bytes = ncz_store_read (store, "v/0", NULL, &error);
        g_assert_null (bytes);
        g_object_unref (store);
      }
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, "zip bomb"));
    g_clear_error (&error);
  }

  /* 8 MiB of zeros declared as 1000 bytes */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", zeros, big_len, TRUE, 1000, -1 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    if (store != NULL)
      {
        bytes = ncz_store_read (store, "v/0", NULL, &error);
        g_assert_null (bytes);
        g_object_unref (store);
      }
    g_assert_nonnull (error);
    g_clear_error (&error);
  }

  /* the same, truthfully declared: read */
  {
    RawEntry e[] = { RAW (".zgroup", "{}"), { "v/0", zeros, big_len, TRUE, -1, -1 } };

    write_raw_zip (f->path, e, G_N_ELEMENTS (e));
    store = open_zip (f->path, NCZ_STORE_READ, &error);
    g_assert_no_error (error);
    bytes = ncz_store_read (store, "v/0", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), zeros, big_len);
    g_bytes_unref (bytes);
    g_object_unref (store);
  }
}

/* Other things that are not zip datasets. */
static void
test_not_zip (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  NczStore *store;

  g_clear_object (&f->store);
  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_null (store);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  write_file (f->path, "", 0);
  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, "not a zip archive"));
  g_clear_error (&error);

  write_file (f->path, "this is plain text, not an archive at all", 41);
  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, "not a zip archive"));
  g_clear_error (&error);

  g_assert_cmpint (g_unlink (f->path), ==, 0);
  g_assert_cmpint (g_mkdir (f->path, 0700), ==, 0);
  store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_null (store);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  store = open_zip (f->path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_null (store);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_cmpint (g_rmdir (f->path), ==, 0);
}

/* Created in a directory that does not exist yet: made, and removed
 * again when discarded. */
static void
test_missing_parents (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->base, "a", "b", "c.zip", NULL);
  NczStore *store;

  store = open_zip (path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{}");
  ncz_store_discard (store);
  g_object_unref (store);
  g_clear_object (&f->store);
  /* the lock file of a/b/c.zip went with the directories; that of the
   * fixture's store.zip stays */
  {
    g_autofree char *entries = dir_entries (f->base);

    g_assert_cmpstr (entries, ==, ".store.zip.ncz-lock");
  }

  store = open_zip (path, NCZ_STORE_CREATE | NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_put (store, ".zgroup", "{}");
  g_assert_true (ncz_store_commit (store, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (store);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

static void
make_old (const char *path)
{
  struct utimbuf times = { time (NULL) - 2 * 86400, time (NULL) - 2 * 86400 };

  g_assert_cmpint (utime (path, &times), ==, 0);
}

/* The pid of a process that has ended (and been reaped). */
static guint
dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return (guint) pid;
}

/* An entry beside @target of @kind made by @pid of this host, with
 * @random as its random part (and whatever @tail adds). */
static char *
entry_of (const char *target,
          const char *kind,
          guint       pid,
          const char *random,
          const char *tail)
{
  g_autofree char *path = ncz_staging_path_for_owner (target, kind,
                                                      ncz_staging_get_host_tag (), pid);

  memcpy (path + strlen (path) - 6, random, 6);
  return g_strconcat (path, tail, NULL);
}

/* What dead writers left beside the archive goes with the next write;
 * what a live one holds (locked), or made while it lives, stays, and so
 * does what an earlier version's writer (whose names say nobody) left
 * less than a day ago (<ncz/ncz-staging.h>). */
static void
test_leftovers (Fixture       *f,
                gconstpointer  data)
{
  guint dead = dead_pid ();
  g_autofree char *dead_stage = entry_of (f->path, "zip", dead, "AAAAAA", "");
  g_autofree char *dead_file = g_build_filename (dead_stage, "0", NULL);
  g_autofree char *dead_new = entry_of (f->path, "new", dead, "BBBBBB", "");
  g_autofree char *dead_libzip = entry_of (f->path, "new", dead, "BBBBBB", ".x1Y2z3");
  g_autofree char *live_stage = entry_of (f->path, "zip", dead, "CCCCCC", "");
  g_autofree char *live_new = entry_of (f->path, "new", (guint) getpid (), "DDDDDD", "");
  g_autofree char *fresh_new = g_build_filename (f->base, ".store.zip.ncz-new-EEEEEE", NULL);
  g_autofree char *old_stage = g_build_filename (f->base, ".store.zip.ncz-zip-FFFFFF", NULL);
  g_autofree char *old_file = g_build_filename (old_stage, "0", NULL);
  g_autofree char *old_new = g_build_filename (f->base, ".store.zip.ncz-new-GGGGGG", NULL);
  g_autofree char *other = g_build_filename (f->base, ".other.zip.ncz-new-HHHHHH", NULL);
  g_autoptr(GError) error = NULL;
  int live_fd;

  g_assert_cmpint (g_mkdir (dead_stage, 0700), ==, 0);
  write_file (dead_file, "x", 1);
  write_file (dead_new, "x", 1);
  write_file (dead_libzip, "x", 1);
  g_assert_cmpint (g_mkdir (live_stage, 0700), ==, 0);
  make_old (live_stage);
  live_fd = open (live_stage, O_RDONLY | O_DIRECTORY);
  g_assert_cmpint (flock (live_fd, LOCK_SH), ==, 0);
  write_file (live_new, "x", 1);
  write_file (fresh_new, "x", 1);
  g_assert_cmpint (g_mkdir (old_stage, 0700), ==, 0);
  write_file (old_file, "x", 1);
  make_old (old_file);
  make_old (old_stage);
  write_file (old_new, "x", 1);
  make_old (old_new);
  write_file (other, "x", 1);
  make_old (other);

  store_put (f->store, ".zgroup", "{}");
  g_assert_false (g_file_test (dead_stage, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (dead_new, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (dead_libzip, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old_stage, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old_new, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live_stage, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (live_new, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (fresh_new, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (other, G_FILE_TEST_IS_REGULAR));
  close (live_fd);
  g_assert_cmpint (g_rmdir (live_stage), ==, 0);
  g_assert_cmpint (g_unlink (live_new), ==, 0);
  g_assert_cmpint (g_unlink (fresh_new), ==, 0);
  g_assert_cmpint (g_unlink (other), ==, 0);
  g_assert_true (ncz_store_commit (f->store, NULL, &error));
  g_assert_no_error (error);
}

/* Another writer of @path cannot open now: the writer lock is held, by
 * this process. */
static void
assert_writer_locked_out (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *pid = g_strdup_printf ("pid %d ", (int) getpid ());
  NczStore *other = open_zip_with (path, "&lock.timeout=0", NCZ_STORE_WRITE, &error);

  g_assert_null (other);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  g_assert_nonnull (strstr (error->message, "lock.timeout=0"));
  g_assert_nonnull (strstr (error->message, pid));
}

static void
assert_writer_can_open (const char *path)
{
  g_autoptr(GError) error = NULL;
  NczStore *other = open_zip_with (path, "&lock.timeout=0", NCZ_STORE_WRITE, &error);

  g_assert_no_error (error);
  g_object_unref (other);
}

/* Writers take turns: a writer holds the writer lock from its open to
 * its commit or discard (or its release); one that writes again after
 * its commit takes it again and first reads what another writer
 * committed meanwhile, so that its archive keeps it. Readers never
 * wait. */
static void
test_writers_take_turns (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  NczStore *a, *b, *reader;

  /* the fixture's store (a creation) holds the lock until its commit */
  store_put (f->store, ".zgroup", "{}");
  assert_writer_locked_out (f->path);
  g_assert_true (ncz_store_commit (f->store, NULL, &error));
  g_assert_no_error (error);
  assert_writer_can_open (f->path);

  a = open_zip (f->path, NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  assert_writer_locked_out (f->path);
  reader = open_zip_with (f->path, "&lock.timeout=0", NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  g_object_unref (reader);
  store_put (a, "v/a", "A");
  g_assert_true (ncz_store_commit (a, NULL, &error));
  g_assert_no_error (error);

  /* b adds to what a committed */
  b = open_zip (f->path, NCZ_STORE_WRITE, &error);
  g_assert_no_error (error);
  store_assert_content (b, "v/a", "A");
  store_put (b, "v/b", "B");
  g_assert_true (ncz_store_commit (b, NULL, &error));
  g_assert_no_error (error);

  /* a writes again: it reads b's archive first */
  store_put (a, "v/a2", "A2");
  assert_writer_locked_out (f->path);
  store_assert_list (a, "v", "a", "a2", "b", NULL);
  g_assert_true (ncz_store_commit (a, NULL, &error));
  g_assert_no_error (error);

  /* a removal takes the lock too; a discard gives it back */
  g_assert_true (ncz_store_remove (b, "v/a", NULL, &error));
  g_assert_no_error (error);
  assert_writer_locked_out (f->path);
  store_assert_list (b, "v", "a2", "b", NULL);
  ncz_store_discard (b);
  assert_writer_can_open (f->path);
  store_assert_list (b, "v", "a", "a2", "b", NULL);
  g_object_unref (b);

  /* a store released with changes commits them, and then unlocks */
  store_put (a, "v/c", "C");
  g_object_unref (a);
  assert_writer_can_open (f->path);

  reader = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  store_assert_list (reader, "v", "a", "a2", "b", "c", NULL);
  store_assert_content (reader, "v/a", "A");
  store_assert_content (reader, "v/b", "B");
  store_assert_content (reader, "v/a2", "A2");
  store_assert_content (reader, "v/c", "C");
  g_object_unref (reader);
  assert_only (f->base, "store.zip");
}

typedef struct {
  NczStore *store;
  const RawEntry *entries;
  guint n;
} ReadJob;

static gpointer
read_all_thread (gpointer data)
{
  ReadJob *job = data;

  for (int round = 0; round < 50; round++)
    for (guint i = 0; i < job->n; i++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(GBytes) bytes = ncz_store_read (job->store, job->entries[i].name, NULL, &error);

        g_assert_no_error (error);
        g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                         job->entries[i].data, job->entries[i].len);
      }
  return NULL;
}

/* Stored and deflated entries read from several threads at once. */
static void
test_concurrent_archive_reads (Fixture       *f,
                               gconstpointer  data)
{
  static const RawEntry entries[] = {
    RAW_DEFLATED (".zgroup", "{\"zarr_format\": 2}"),
    RAW_DEFLATED ("v/0", "deflated deflated deflated deflated"),
    RAW ("v/1", "stored one"),
    RAW ("v/2", "stored two"),
  };
  g_autoptr(GError) error = NULL;
  GThread *threads[4];
  ReadJob job;

  g_clear_object (&f->store);
  write_raw_zip (f->path, entries, G_N_ELEMENTS (entries));
  job.store = open_zip (f->path, NCZ_STORE_READ, &error);
  g_assert_no_error (error);
  job.entries = entries;
  job.n = G_N_ELEMENTS (entries);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("reader", read_all_thread, &job);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_object_unref (job.store);
}

static void
test_plugin_entry (void)
{
  const NczPluginDesc *(*describe) (void) = NULL;
  const NczPluginDesc *desc;
  g_autoptr(GError) error = NULL;
  GModule *module;

  module = g_module_open_full (ZIP_MODULE_PATH, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL,
                               &error);
  g_assert_no_error (error);
  g_assert_nonnull (module);
  g_assert_true (g_module_symbol (module, "ncz_plugin_zip_describe", (gpointer *) &describe));
  desc = describe ();
  g_assert_cmpuint (desc->abi, ==, NCZ_PLUGIN_ABI);
  g_assert_cmpstr (desc->name, ==, "zip");
  g_assert_cmpstr (desc->license, ==, "BSD-3-Clause");
  g_assert_nonnull (desc->register_func);
  g_assert_false (g_module_symbol (module, "ncz_zip_store_get_type", (gpointer *) &describe));
  g_module_make_resident (module);
  g_module_close (module);

}

static void
add_check (const char *name,
           StoreCheck  check)
{
  g_autofree char *path = g_strconcat ("/zip/store/", name, NULL);

  g_test_add (path, Fixture, (gconstpointer) check, fixture_setup, run_check, fixture_teardown);
}

#define ADD(name, func) \
  g_test_add ("/zip/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  add_check ("basic", store_check_basic);
  add_check ("range", store_check_range);
  add_check ("replace", store_check_replace);
  add_check ("prefix-is-not-object", store_check_prefix_is_not_object);
  add_check ("list", store_check_list);
  add_check ("remove", store_check_remove);
  add_check ("invalid-keys", store_check_invalid_keys);
  add_check ("read-many", store_check_read_many);
  add_check ("read-async", store_check_read_async);
  add_check ("cancelled", store_check_cancelled);
  add_check ("concurrent-reads", store_check_concurrent_reads);
  add_check ("read-ranges", store_check_read_ranges);
  add_check ("list-pages", store_check_list_pages);
  add_check ("async-calls", store_check_async_calls);
  ADD ("commit-and-read", test_commit_and_read);
  ADD ("ranged-stored", test_ranged_stored);
  ADD ("deflated", test_deflated);
  ADD ("layouts", test_layouts);
  ADD ("update", test_update);
  ADD ("replace", test_replace);
  ADD ("reader-survives-replace", test_reader_survives_replace);
  ADD ("hostile-names", test_hostile_names);
  ADD ("truncated", test_truncated);
  ADD ("lying-sizes", test_lying_sizes);
  ADD ("bomb", test_bomb);
  ADD ("not-zip", test_not_zip);
  ADD ("missing-parents", test_missing_parents);
  ADD ("leftovers", test_leftovers);
  ADD ("concurrent-archive-reads", test_concurrent_archive_reads);
  ADD ("writers-take-turns", test_writers_take_turns);
  g_test_add_func ("/zip/plugin-entry", test_plugin_entry);

  return g_test_run ();
}
