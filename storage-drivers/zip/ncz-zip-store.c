/* ncz-zip-store.c: zip-archive storage driver
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "ncz-zip-store.h"
#include <ncz/ncz-module.h>

/* NczZipStore: a dataset in one zip archive, key "a/b/.zarray" being the
 * entry "a/b/.zarray" (or "DIR/a/b/.zarray" in an archive made by
 * zipping the dataset's directory from its parent: see find_layout()).
 *
 * Reading: the central directory is read once, when the store is
 * initialized, into an index (key -> entry, prefix -> sorted child
 * names) that serves get_length and list without touching the file
 * again. Entry names with ".." segments, absolute paths, backslashes or
 * duplicates refuse the whole archive. Stored entries are read with
 * pread() at their data offset (found from the local header, checked
 * against the central directory) on the store's own descriptor, from any
 * number of threads at once; deflated entries are inflated by libzip
 * under a mutex into a buffer of the declared size, and an entry that
 * inflates to more or less than it declares is an error. A declared size
 * beyond what deflate can produce from the compressed size
 * (MAX_DEFLATE_RATIO) is refused before anything is allocated.
 *
 * Writing: objects written are kept in files of a staging directory
 * beside the archive (".NAME.ncz-zip-hHOST-pPID-XXXXXX",
 * <ncz/ncz-staging.h>), never in memory; commit
 * (and, for a store opened for update, the release of the store) builds
 * a new archive beside the old one from the staged files and the
 * untouched entries of the old archive, flushes it and renames it over
 * the old one. Until that rename the old archive is left as it was; a
 * failed or discarded write removes what was staged. Objects are written
 * stored (ZIP_CM_STORE), as zarr-python's ZipStore writes them: chunks
 * are compressed by their codecs already, and stored entries are what
 * the ranged reads serve.
 *
 * Writers: since every writer renames a whole archive of its own view
 * into place, two writers at once would lose the objects of the first
 * to rename. So a store opened for writing (for update or with CREATE)
 * takes the writer lock (NczLockFile, slot NCZ_LOCK_SLOT_WRITER) of
 * ".NAME.ncz-lock" beside the archive (beside the target of a symbolic
 * link) before it reads the central directory, and holds it until its
 * archive is renamed into place (commit, or the release of a store
 * opened for update) or its changes are discarded. A second writer
 * waits for it (the URL's lock.timeout, else NCZ_LOCK_TIMEOUT, else
 * NCZ_LOCK_DEFAULT_TIMEOUT_MS), then reads the archive the first one
 * left and adds its own objects to it; when the time runs out its open
 * fails with NCZ_STORAGE_ERROR_LOCKED naming the holder. A store
 * written again after a commit or a discard takes the lock again, and
 * reads the archive anew if another writer replaced it meanwhile. A
 * writer that cannot open the lock file does not open: without the lock
 * it could lose another writer's objects. Readers take no lock: they
 * read the archive they opened through their own descriptor, which a
 * rename does not change. The lock file stays beside the archive
 * (removing it would let two writers lock two different files), except
 * when a discarded creation removes the directories it made.
 *
 * Calls from several threads at once are safe.
 */

/* Deflate cannot expand by more than about 1032:1 (a 258-byte match
 * coded in 2 bits at best): a larger declared ratio is a lie or a bomb. */
#define MAX_DEFLATE_RATIO 1032
#define RATIO_SLACK 4096

/* The central directory is read whole into memory; no sane dataset
 * needs more. */
#define MAX_CENTRAL_DIR (G_GUINT64_CONSTANT (1) << 30)

#define EOCD_SIZE 22
#define EOCD64_SIZE 56
#define EOCD64_LOCATOR_SIZE 20
#define CDIR_HEADER_SIZE 46
#define LOCAL_HEADER_SIZE 30
#define MAX_COMMENT 65535

#define METHOD_STORE 0
#define METHOD_DEFLATE 8

typedef struct {
  char *name;           /* the entry's name in the archive */
  const char *key;      /* @name without the layout prefix (points into it) */
  guint64 index;        /* the entry's index in the central directory (libzip's) */
  guint64 comp_size;
  guint64 size;
  guint64 local_offset;
  guint64 data_offset;  /* 0 until the local header was read */
  guint16 method;
  guint16 gp_flags;
} ZipEntry;

typedef struct {
  ZipEntry *entry;      /* an entry of the archive read, or NULL */
  char *staged;         /* or the file holding what was written */
  guint64 size;
} ZipObject;

struct _NczZipStore
{
  GObject parent_instance;

  NczUrl *url;
  NczStoreFlags flags;
  char *path;           /* absolute path of the archive, for messages */
  char *target;         /* the path replaced at commit (where a link points) */
  gboolean ready;

  GMutex lock;          /* guards everything below and the zip_t */
  int fd;               /* the archive read, or -1 */
  zip_t *za;            /* the same archive through libzip (deflated entries) */
  guint64 cdir_offset;  /* where entry data ends */
  guint64 n_entries;    /* in the central directory */
  char *prefix;         /* layout prefix of entry names ("" or "DIR/") */
  GPtrArray *entries;   /* ZipEntry, central directory order */
  GHashTable *objects;  /* key -> ZipObject */
  GHashTable *children; /* prefix -> GTree (child name -> count of objects under it) */

  /* writing */
  NczLockFile *writer_lock; /* open exactly while the writer lock is held */
  gint64 lock_timeout_ms;
  gboolean view_lost;   /* the archive could not be read again after a relock */
  GArray *retired_fds;  /* descriptors of archives read before, for reads in flight */
  char *stage;          /* staging directory, made at the first write */
  int stage_fd;         /* @stage, locked shared while it lives */
  guint stage_seq;
  gboolean dirty;
  gboolean committed;
  GPtrArray *made_parents;
};

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
};

static const char *const store_markers[] = {
  ".zgroup", ".zarray", ".zattrs", ".zmetadata", ".nczarr",
};

static void ncz_zip_store_store_init (NczStoreInterface *iface);
static void ncz_zip_store_initable_init (GInitableIface *iface);
static gboolean zip_store_commit (NczStore *store, GCancellable *cancellable, GError **error);
static void zip_store_discard (NczStore *store);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczZipStore, ncz_zip_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      ncz_zip_store_store_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      ncz_zip_store_initable_init))

static int
storage_code_for_errno (int errsv)
{
  switch (errsv)
    {
    case ENOENT:
    case ENOTDIR:
      return NCZ_STORAGE_ERROR_NOT_FOUND;
    case EACCES:
    case EPERM:
      return NCZ_STORAGE_ERROR_PERMISSION;
    case EROFS:
      return NCZ_STORAGE_ERROR_READ_ONLY;
    default:
      return NCZ_STORAGE_ERROR_IO;
    }
}

static guint16
le16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}

static guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

static guint64
le64 (const guint8 *p)
{
  return (guint64) le32 (p) | ((guint64) le32 (p + 4) << 32);
}

/* Reads exactly @size bytes at @offset; FALSE with errno (0 for a short
 * file) otherwise. */
static gboolean
pread_all (int      fd,
           void    *buf,
           gsize    size,
           guint64  offset)
{
  guint8 *p = buf;

  while (size > 0)
    {
      ssize_t r = pread (fd, p, MIN (size, (gsize) G_MAXSSIZE), (off_t) offset);

      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return FALSE;
      if (r == 0)
        {
          errno = 0;
          return FALSE;
        }
      p += r;
      size -= (gsize) r;
      offset += (guint64) r;
    }
  return TRUE;
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         size)
{
  while (size > 0)
    {
      ssize_t n = write (fd, data, MIN (size, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      if (n == 0)
        {
          errno = ENOSPC;
          return FALSE;
        }
      data += n;
      size -= (gsize) n;
    }
  return TRUE;
}

static void
zip_entry_free (gpointer data)
{
  ZipEntry *e = data;

  g_free (e->name);
  g_free (e);
}

static void
zip_object_free (gpointer data)
{
  ZipObject *o = data;

  if (o->staged != NULL)
    {
      unlink (o->staged);
      g_free (o->staged);
    }
  g_free (o);
}

/* ---- the index ---- */

static int
compare_strings (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  return strcmp (a, b);
}

/* Counts @key (an object) in the child sets of each of its prefixes. */
static void
index_add_key (NczZipStore *self,
               const char  *key)
{
  const char *seg = key;

  for (;;)
    {
      const char *slash = strchr (seg, '/');
      g_autofree char *prefix = g_strndup (key, seg == key ? 0 : (gsize) (seg - key - 1));
      g_autofree char *child = slash ? g_strndup (seg, (gsize) (slash - seg)) : g_strdup (seg);
      GTree *tree = g_hash_table_lookup (self->children, prefix);
      gpointer count;

      if (tree == NULL)
        {
          tree = g_tree_new_full (compare_strings, NULL, g_free, NULL);
          g_hash_table_insert (self->children, g_strdup (prefix), tree);
        }
      count = g_tree_lookup (tree, child);
      g_tree_insert (tree, g_steal_pointer (&child), GUINT_TO_POINTER (GPOINTER_TO_UINT (count) + 1));
      if (slash == NULL)
        break;
      seg = slash + 1;
    }
}

static void
index_remove_key (NczZipStore *self,
                  const char  *key)
{
  const char *seg = key;

  for (;;)
    {
      const char *slash = strchr (seg, '/');
      g_autofree char *prefix = g_strndup (key, seg == key ? 0 : (gsize) (seg - key - 1));
      g_autofree char *child = slash ? g_strndup (seg, (gsize) (slash - seg)) : g_strdup (seg);
      GTree *tree = g_hash_table_lookup (self->children, prefix);
      guint count;

      if (tree != NULL)
        {
          count = GPOINTER_TO_UINT (g_tree_lookup (tree, child));
          if (count <= 1)
            g_tree_remove (tree, child);
          else
            g_tree_insert (tree, g_strdup (child), GUINT_TO_POINTER (count - 1));
          if (g_tree_nnodes (tree) == 0)
            g_hash_table_remove (self->children, prefix);
        }
      if (slash == NULL)
        break;
      seg = slash + 1;
    }
}

static void
clear_index (NczZipStore *self)
{
  g_hash_table_remove_all (self->objects);
  g_hash_table_remove_all (self->children);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->prefix, g_free);
  if (self->za != NULL)
    {
      zip_discard (self->za);
      self->za = NULL;
    }
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
}

/* ---- reading the central directory ---- */

/* Why an entry name is refused, or NULL. */
static const char *
bad_entry_name (const char *name,
                gsize       len)
{
  const char *seg;

  if (len == 0)
    return "an empty name";
  if (memchr (name, '\0', len) != NULL)
    return "a NUL byte in the name";
  if (memchr (name, '\\', len) != NULL)
    return "a backslash in the name (zip names use '/')";
  if (name[0] == '/')
    return "an absolute path";
  if (len >= 2 && name[1] == ':' && g_ascii_isalpha (name[0]))
    return "an absolute path (a drive letter)";
  seg = name;
  for (;;)
    {
      const char *end = memchr (seg, '/', len - (gsize) (seg - name));
      gsize seglen = end ? (gsize) (end - seg) : len - (gsize) (seg - name);

      if (seglen == 2 && seg[0] == '.' && seg[1] == '.')
        return "a '..' segment";
      if (end == NULL)
        break;
      seg = end + 1;
    }
  return NULL;
}

static gboolean
set_damaged (NczZipStore *self,
             GError     **error,
             const char  *fmt,
             ...) G_GNUC_PRINTF (3, 4);

static gboolean
set_damaged (NczZipStore *self,
             GError     **error,
             const char  *fmt,
             ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, fmt);
  why = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
               "zip store '%s' is truncated or damaged: %s", self->path, why);
  return FALSE;
}

/* Finds the end of central directory record and the central directory
 * it describes: its offset, size and number of entries. */
static gboolean
read_end_record (NczZipStore *self,
                 guint64      file_size,
                 guint64     *cd_offset,
                 guint64     *cd_size,
                 guint64     *n_entries,
                 GError     **error)
{
  gsize tail_len = (gsize) MIN (file_size, (guint64) (MAX_COMMENT + EOCD_SIZE));
  g_autofree guint8 *tail = NULL;
  guint64 tail_start = file_size - tail_len;
  gssize pos;
  const guint8 *eocd;
  guint64 eocd_offset;

  if (file_size < EOCD_SIZE)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "'%s' is not a zip archive: %" G_GUINT64_FORMAT " bytes long, "
                   "shorter than the smallest archive", self->path, file_size);
      return FALSE;
    }
  tail = g_malloc (tail_len);
  if (!pread_all (self->fd, tail, tail_len, tail_start))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read zip store '%s': %s", self->path,
                   errno ? g_strerror (errno) : "the file shrank while being read");
      return FALSE;
    }
  for (pos = (gssize) tail_len - EOCD_SIZE; pos >= 0; pos--)
    if (memcmp (tail + pos, "PK\5\6", 4) == 0 &&
        (gsize) pos + EOCD_SIZE + le16 (tail + pos + 20) <= tail_len)
      break;
  if (pos < 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "'%s' is not a zip archive, or one that ends early: no end of central "
                   "directory record in its last %" G_GSIZE_FORMAT " bytes", self->path, tail_len);
      return FALSE;
    }
  eocd = tail + pos;
  eocd_offset = tail_start + (guint64) pos;
  if (le16 (eocd + 4) != 0 || le16 (eocd + 6) != 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "zip store '%s' spans several disks, which is not supported", self->path);
      return FALSE;
    }
  *n_entries = le16 (eocd + 10);
  *cd_size = le32 (eocd + 12);
  *cd_offset = le32 (eocd + 16);

  if (*n_entries == 0xffff || *cd_size == 0xffffffff || *cd_offset == 0xffffffff)
    {
      guint8 loc[EOCD64_LOCATOR_SIZE], rec[EOCD64_SIZE];
      guint64 rec_offset;

      if (eocd_offset < EOCD64_LOCATOR_SIZE ||
          !pread_all (self->fd, loc, sizeof loc, eocd_offset - EOCD64_LOCATOR_SIZE) ||
          memcmp (loc, "PK\6\7", 4) != 0)
        return set_damaged (self, error, "the zip64 end of central directory locator is missing");
      rec_offset = le64 (loc + 8);
      if (rec_offset > eocd_offset - EOCD64_LOCATOR_SIZE ||
          eocd_offset - EOCD64_LOCATOR_SIZE - rec_offset < EOCD64_SIZE ||
          !pread_all (self->fd, rec, sizeof rec, rec_offset) || memcmp (rec, "PK\6\6", 4) != 0)
        return set_damaged (self, error, "the zip64 end of central directory record is missing");
      *n_entries = le64 (rec + 32);
      *cd_size = le64 (rec + 40);
      *cd_offset = le64 (rec + 48);
      eocd_offset = rec_offset;
    }
  if (*cd_offset > eocd_offset || *cd_size > eocd_offset - *cd_offset)
    return set_damaged (self, error,
                        "its central directory (%" G_GUINT64_FORMAT " bytes at offset %"
                        G_GUINT64_FORMAT ") lies beyond the end of the file",
                        *cd_size, *cd_offset);
  if (*cd_size > MAX_CENTRAL_DIR)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "zip store '%s': a central directory of %" G_GUINT64_FORMAT " bytes is "
                   "beyond the limit of %" G_GUINT64_FORMAT, self->path, *cd_size,
                   MAX_CENTRAL_DIR);
      return FALSE;
    }
  if (*n_entries > *cd_size / CDIR_HEADER_SIZE)
    return set_damaged (self, error, "its end record claims %" G_GUINT64_FORMAT " entries in a "
                        "central directory of %" G_GUINT64_FORMAT " bytes", *n_entries, *cd_size);
  return TRUE;
}

/* Applies a zip64 extra field to the fields the central directory
 * header left at their maximum. */
static gboolean
apply_zip64_extra (const guint8 *extra,
                   gsize         extra_len,
                   guint32       size32,
                   guint32       comp32,
                   guint32       offset32,
                   ZipEntry     *e)
{
  gsize pos = 0;

  while (pos + 4 <= extra_len)
    {
      guint16 id = le16 (extra + pos);
      guint16 len = le16 (extra + pos + 2);
      const guint8 *p = extra + pos + 4;
      gsize need = 0;

      if (pos + 4 + len > extra_len)
        return FALSE;
      if (id == 0x0001)
        {
          if (size32 == 0xffffffff)
            {
              if (need + 8 > len)
                return FALSE;
              e->size = le64 (p + need);
              need += 8;
            }
          if (comp32 == 0xffffffff)
            {
              if (need + 8 > len)
                return FALSE;
              e->comp_size = le64 (p + need);
              need += 8;
            }
          if (offset32 == 0xffffffff)
            {
              if (need + 8 > len)
                return FALSE;
              e->local_offset = le64 (p + need);
            }
          return TRUE;
        }
      pos += 4 + len;
    }
  return size32 != 0xffffffff && comp32 != 0xffffffff && offset32 != 0xffffffff;
}

static gboolean
is_marker (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (store_markers); i++)
    if (strcmp (name, store_markers[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The layout of the archive. A dataset directory zipped from inside has
 * its objects at the top (".zgroup", "v/0.0"); zipped from its parent,
 * every name starts with the directory's ("name.zarr/.zgroup"). The
 * names are read beneath one top-level directory DIR, and entries
 * outside it ignored, when no marker object (.zgroup, .zarray, .zattrs,
 * .zmetadata, .nczarr) is at the top and either exactly one top-level
 * directory has one directly in it, or every entry is under DIR and a
 * marker is somewhere beneath it (a group without .zgroup holding
 * arrays). */
static char *
find_layout (GPtrArray *entries)
{
  g_autoptr(GHashTable) candidates = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *common = NULL;
  gboolean one_dir = TRUE, deep_marker = FALSE;
  GHashTableIter iter;
  gpointer dir;

  for (guint i = 0; i < entries->len; i++)
    {
      const ZipEntry *e = g_ptr_array_index (entries, i);
      const char *slash = strchr (e->name, '/');
      const char *base = strrchr (e->name, '/');

      if (slash == NULL)
        {
          if (is_marker (e->name))
            return g_strdup ("");
          one_dir = FALSE;
          continue;
        }
      if (common == NULL)
        common = g_strndup (e->name, (gsize) (slash - e->name) + 1);
      else if (strncmp (e->name, common, strlen (common)) != 0)
        one_dir = FALSE;
      if (is_marker (base + 1))
        deep_marker = TRUE;
      if (strchr (slash + 1, '/') == NULL && is_marker (slash + 1))
        g_hash_table_add (candidates, g_strndup (e->name, (gsize) (slash - e->name) + 1));
    }
  if (g_hash_table_size (candidates) == 1)
    {
      g_hash_table_iter_init (&iter, candidates);
      g_hash_table_iter_next (&iter, &dir, NULL);
      return g_strdup (dir);
    }
  if (g_hash_table_size (candidates) == 0 && one_dir && deep_marker && common != NULL)
    return g_steal_pointer (&common);
  return g_strdup ("");
}

/* Reads the central directory of the open archive into the index. */
static gboolean
load_archive (NczZipStore *self,
              GError     **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (zip_entry_free);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree guint8 *cd = NULL;
  guint64 cd_offset, cd_size, n_entries, pos = 0;
  struct stat st;

  if (fstat (self->fd, &st) < 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errno),
                   "cannot open zip store '%s': %s", self->path, g_strerror (errno));
      return FALSE;
    }
  if (!read_end_record (self, (guint64) st.st_size, &cd_offset, &cd_size, &n_entries, error))
    return FALSE;
  cd = g_malloc (MAX (cd_size, 1));
  if (!pread_all (self->fd, cd, (gsize) cd_size, cd_offset))
    return set_damaged (self, error, "its central directory cannot be read: %s",
                        errno ? g_strerror (errno) : "the file is shorter than it says");

  for (guint64 i = 0; i < n_entries; i++)
    {
      const guint8 *h = cd + pos;
      guint16 name_len, extra_len, comment_len;
      guint32 size32, comp32, offset32;
      const char *why;
      ZipEntry *e;

      if (cd_size - pos < CDIR_HEADER_SIZE || memcmp (h, "PK\1\2", 4) != 0)
        return set_damaged (self, error, "central directory entry %" G_GUINT64_FORMAT
                            " of %" G_GUINT64_FORMAT " is missing", i, n_entries);
      name_len = le16 (h + 28);
      extra_len = le16 (h + 30);
      comment_len = le16 (h + 32);
      if (cd_size - pos - CDIR_HEADER_SIZE < (guint64) name_len + extra_len + comment_len)
        return set_damaged (self, error, "central directory entry %" G_GUINT64_FORMAT
                            " runs past the end of the directory", i);
      why = bad_entry_name ((const char *) h + CDIR_HEADER_SIZE, name_len);
      if (why != NULL)
        {
          g_autofree char *shown = g_strndup ((const char *) h + CDIR_HEADER_SIZE, name_len);
          g_autofree char *escaped = g_strescape (shown, NULL);

          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
                       "zip store '%s' is refused: its entry '%s' has %s", self->path,
                       escaped, why);
          return FALSE;
        }
      e = g_new0 (ZipEntry, 1);
      e->name = g_strndup ((const char *) h + CDIR_HEADER_SIZE, name_len);
      e->key = e->name;
      e->index = i;
      e->gp_flags = le16 (h + 8);
      e->method = le16 (h + 10);
      comp32 = le32 (h + 20);
      size32 = le32 (h + 24);
      offset32 = le32 (h + 42);
      e->comp_size = comp32;
      e->size = size32;
      e->local_offset = offset32;
      g_ptr_array_add (entries, e);
      if (!apply_zip64_extra (h + CDIR_HEADER_SIZE + name_len, extra_len, size32, comp32,
                              offset32, e))
        return set_damaged (self, error, "the entry '%s' lacks the zip64 sizes it refers to",
                            e->name);
      if (!g_hash_table_add (names, e->name))
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
                       "zip store '%s' is refused: the entry '%s' appears more than once",
                       self->path, e->name);
          return FALSE;
        }
      if (e->local_offset > cd_offset || e->comp_size > cd_offset - e->local_offset)
        return set_damaged (self, error, "the data of entry '%s' (%" G_GUINT64_FORMAT
                            " bytes at offset %" G_GUINT64_FORMAT ") overlaps the central "
                            "directory or lies beyond the end of the file",
                            e->name, e->comp_size, e->local_offset);
      pos += CDIR_HEADER_SIZE + (guint64) name_len + extra_len + comment_len;
    }

  self->cdir_offset = cd_offset;
  self->n_entries = n_entries;
  self->prefix = find_layout (entries);
  for (guint i = 0; i < entries->len; i++)
    {
      ZipEntry *e = g_ptr_array_index (entries, i);
      gsize plen = strlen (self->prefix);
      ZipObject *o;

      if (e->name[strlen (e->name) - 1] == '/')
        continue;   /* a directory entry */
      if (strncmp (e->name, self->prefix, plen) != 0)
        continue;   /* outside the dataset's directory */
      e->key = e->name + plen;
      /* names that cannot be keys ("a//b", "./x") are not objects */
      if (!ncz_store_key_is_valid (e->key, FALSE, NULL))
        continue;
      o = g_new0 (ZipObject, 1);
      o->entry = e;
      o->size = e->size;
      g_hash_table_insert (self->objects, g_strdup (e->key), o);
      index_add_key (self, e->key);
    }
  self->entries = g_steal_pointer (&entries);
  return TRUE;
}

/* Opens the archive at the path and reads its index. */
static gboolean
open_archive (NczZipStore *self,
              GError     **error)
{
  struct stat st;
  int fd = open (self->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    {
      int errsv = errno;

      if (errsv == ENOENT)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                     "no zip store at '%s': no such file", self->path);
      else
        g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                     "cannot open zip store '%s': %s", self->path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
                   "no zip store at '%s': not a regular file", self->path);
      return FALSE;
    }
  self->fd = fd;
  if (!load_archive (self, error))
    {
      clear_index (self);
      return FALSE;
    }
  return TRUE;
}

/* ---- reading objects ---- */

static gboolean
check_ready (NczZipStore *self,
             GError     **error)
{
  if (self->ready)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
               "the zip store was used before g_initable_init()");
  return FALSE;
}

static void
set_not_found (NczZipStore *self,
               GError     **error,
               const char  *key)
{
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND,
               "no object '%s' in zip store '%s'", key, self->path);
}

/* The data offset of a stored entry, from its local header, which must
 * agree with the central directory. Called with the lock held. */
static gboolean
locate_data (NczZipStore *self,
             ZipEntry    *e,
             GError     **error)
{
  guint8 h[LOCAL_HEADER_SIZE];
  guint64 data;

  if (e->data_offset != 0)
    return TRUE;
  if (!pread_all (self->fd, h, sizeof h, e->local_offset) || memcmp (h, "PK\3\4", 4) != 0)
    return set_damaged (self, error, "the local header of entry '%s' is missing", e->name);
  if (le16 (h + 8) != e->method)
    return set_damaged (self, error, "the local header of entry '%s' gives another "
                        "compression method than the central directory", e->name);
  if (le16 (h + 26) != strlen (e->name))
    return set_damaged (self, error, "the local header of entry '%s' gives another name",
                        e->name);
  /* sizes in the local header are zero with a data descriptor (bit 3) */
  if ((e->gp_flags & 0x8) == 0 && le32 (h + 18) != 0xffffffff &&
      (le32 (h + 18) != (guint32) e->comp_size || le32 (h + 22) != (guint32) e->size))
    return set_damaged (self, error, "entry '%s' has other sizes in its local header than "
                        "in the central directory", e->name);
  data = e->local_offset + LOCAL_HEADER_SIZE + le16 (h + 26) + le16 (h + 28);
  if (data > self->cdir_offset || e->comp_size > self->cdir_offset - data)
    return set_damaged (self, error, "the data of entry '%s' runs into the central directory",
                        e->name);
  e->data_offset = data;
  return TRUE;
}

static gboolean
check_entry_readable (NczZipStore *self,
                      ZipEntry    *e,
                      GError     **error)
{
  if ((e->gp_flags & 0x1) != 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "cannot read '%s' in zip store '%s': the entry is encrypted", e->key,
                   self->path);
      return FALSE;
    }
  if (e->method == METHOD_STORE)
    {
      if (e->comp_size != e->size)
        return set_damaged (self, error, "the stored entry '%s' declares %" G_GUINT64_FORMAT
                            " bytes but holds %" G_GUINT64_FORMAT, e->name, e->size,
                            e->comp_size);
      return TRUE;
    }
  if (e->method != METHOD_DEFLATE)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "cannot read '%s' in zip store '%s': compression method %u of the entry "
                   "is not supported (stored and deflated entries are)", e->key, self->path,
                   e->method);
      return FALSE;
    }
  if (e->size > e->comp_size * MAX_DEFLATE_RATIO + RATIO_SLACK)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "zip store '%s' is refused: the entry '%s' declares %" G_GUINT64_FORMAT
                   " bytes inflated from %" G_GUINT64_FORMAT " compressed, more than deflate "
                   "can produce (a zip bomb or a damaged archive)", self->path, e->name,
                   e->size, e->comp_size);
      return FALSE;
    }
  if (e->size > G_MAXSIZE / 2)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read '%s' in zip store '%s': %" G_GUINT64_FORMAT
                   " bytes do not fit in memory", e->key, self->path, e->size);
      return FALSE;
    }
  return TRUE;
}

/* libzip reads the archive, through its own descriptor of the same
 * file, for deflated entries and to copy entries into a new archive:
 * opened at the first need, since nothing else uses it. Called with the
 * lock held. */
static gboolean
ensure_libzip (NczZipStore *self,
               GError     **error)
{
  zip_int64_t n;
  int zerr = 0, fd;

  if (self->za != NULL)
    return TRUE;
  fd = dup (self->fd);
  if (fd < 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read zip store '%s': %s", self->path, g_strerror (errno));
      return FALSE;
    }
  self->za = zip_fdopen (fd, 0, &zerr);
  if (self->za == NULL)
    {
      zip_error_t ze;

      close (fd);
      zip_error_init_with_code (&ze, zerr);
      set_damaged (self, error, "libzip cannot read it: %s", zip_error_strerror (&ze));
      zip_error_fini (&ze);
      return FALSE;
    }
  n = zip_get_num_entries (self->za, 0);
  if (n < 0 || (guint64) n != self->n_entries)
    {
      set_damaged (self, error, "libzip finds %" G_GINT64_FORMAT " entries where the central "
                   "directory has %" G_GUINT64_FORMAT, (gint64) n, self->n_entries);
      zip_discard (self->za);
      self->za = NULL;
      return FALSE;
    }
  return TRUE;
}

/* The entry @e as libzip sees it: the same name at the same index. */
static gboolean
check_libzip_entry (NczZipStore *self,
                    ZipEntry    *e,
                    GError     **error)
{
  const char *name;

  if (!ensure_libzip (self, error))
    return FALSE;
  name = zip_get_name (self->za, e->index, ZIP_FL_ENC_RAW);
  if (name == NULL || strcmp (name, e->name) != 0)
    return set_damaged (self, error, "libzip finds another entry than '%s' at its place",
                        e->name);
  return TRUE;
}

/* Inflates a deflated entry whole into a buffer of its declared size.
 * Called with the lock held (libzip's archive is not thread-safe). */
static GBytes *
inflate_entry (NczZipStore *self,
               ZipEntry    *e,
               GError     **error)
{
  zip_file_t *zf;
  guint8 *buf = NULL;
  gsize capacity = 0, done = 0;
  guint8 extra;
  zip_int64_t r = 0;

  /* the local header must agree with the central directory, as for
   * stored entries */
  if (!locate_data (self, e, error) || !check_libzip_entry (self, e, error))
    return NULL;
  zf = zip_fopen_index (self->za, e->index, 0);
  if (zf == NULL)
    {
      set_damaged (self, error, "the entry '%s' cannot be opened: %s", e->name,
                   zip_strerror (self->za));
      return NULL;
    }
  if (e->size > 0 && (buf = ncz_buffer_alloc ((gsize) e->size, &capacity)) == NULL)
    {
      zip_fclose (zf);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read '%s' in zip store '%s': %" G_GUINT64_FORMAT
                   " bytes do not fit in memory", e->key, self->path, e->size);
      return NULL;
    }
  while (done < e->size)
    {
      r = zip_fread (zf, buf + done, MIN ((guint64) (e->size - done), (guint64) (1 << 30)));
      if (r <= 0)
        break;
      done += (gsize) r;
    }
  if (done == e->size)
    r = zip_fread (zf, &extra, 1);   /* the end: libzip checks the CRC here */
  if (r < 0)
    set_damaged (self, error, "the entry '%s' cannot be inflated: %s", e->name,
                 zip_file_strerror (zf));
  else if (done < e->size)
    set_damaged (self, error, "the entry '%s' inflates to %" G_GSIZE_FORMAT " bytes where "
                 "it declares %" G_GUINT64_FORMAT, e->name, done, e->size);
  else if (r > 0)
    set_damaged (self, error, "the entry '%s' inflates to more than the %" G_GUINT64_FORMAT
                 " bytes it declares", e->name, e->size);
  zip_fclose (zf);
  if (r != 0 || done < e->size)
    {
      if (buf != NULL)
        ncz_buffer_release (buf, capacity);
      return NULL;
    }
  if (buf == NULL)
    return g_bytes_new (NULL, 0);
  return ncz_buffer_new_bytes (buf, (gsize) e->size, capacity);
}

static gboolean
check_range (NczZipStore *self,
             const char  *key,
             guint64      size,
             guint64      offset,
             gint64       length,
             guint64     *n,
             GError     **error)
{
  if (offset > size)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "range beyond end: object '%s' in zip store '%s' is %" G_GUINT64_FORMAT
                   " bytes long, read asked from byte %" G_GUINT64_FORMAT,
                   key, self->path, size, offset);
      return FALSE;
    }
  *n = size - offset;
  if (length >= 0 && (guint64) length < *n)
    *n = (guint64) length;
  return TRUE;
}

/* Reads @n bytes at @offset of @fd into a new buffer. */
static GBytes *
read_file_range (NczZipStore *self,
                 int          fd,
                 const char  *key,
                 guint64      offset,
                 guint64      n,
                 GError     **error)
{
  guint8 *buf;
  gsize capacity = 0;

  if (n == 0)
    return g_bytes_new (NULL, 0);
  if (n > G_MAXSIZE || (buf = ncz_buffer_alloc ((gsize) n, &capacity)) == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot read '%s' in zip store '%s': %" G_GUINT64_FORMAT
                   " bytes do not fit in memory", key, self->path, n);
      return NULL;
    }
  if (!pread_all (fd, buf, (gsize) n, offset))
    {
      int errsv = errno;

      ncz_buffer_release (buf, capacity);
      if (errsv == 0)
        set_damaged (self, error, "the data of '%s' ends early", key);
      else
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                     "cannot read '%s' in zip store '%s': %s", key, self->path,
                     g_strerror (errsv));
      return NULL;
    }
  return ncz_buffer_new_bytes (buf, (gsize) n, capacity);
}

/* What a read needs of an object, taken under the lock: a descriptor
 * and offset for bytes read as they are (stored entries, staged
 * objects), or the whole inflated object. */
typedef struct {
  int fd;               /* -1: see @whole */
  gboolean own_fd;
  guint64 base;         /* where the object's bytes start in @fd */
  guint64 size;
  GBytes *whole;
} ReadPlan;

static void
read_plan_clear (ReadPlan *plan)
{
  if (plan->own_fd && plan->fd >= 0)
    close (plan->fd);
  g_clear_pointer (&plan->whole, g_bytes_unref);
}

static gboolean
plan_read (NczZipStore *self,
           const char  *key,
           ReadPlan    *plan,
           GError     **error)
{
  ZipObject *o;
  gboolean ok = TRUE;

  memset (plan, 0, sizeof *plan);
  plan->fd = -1;
  if (!check_ready (self, error))
    return FALSE;

  g_mutex_lock (&self->lock);
  o = g_hash_table_lookup (self->objects, key);
  if (o == NULL)
    {
      set_not_found (self, error, key);
      ok = FALSE;
    }
  else if (o->staged != NULL)
    {
      plan->fd = open (o->staged, O_RDONLY | O_CLOEXEC);
      plan->own_fd = TRUE;
      plan->size = o->size;
      if (plan->fd < 0)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                       "cannot read '%s' in zip store '%s': %s", key, self->path,
                       g_strerror (errno));
          ok = FALSE;
        }
    }
  else if (!check_entry_readable (self, o->entry, error))
    ok = FALSE;
  else if (o->entry->method == METHOD_STORE)
    {
      ok = locate_data (self, o->entry, error);
      plan->fd = self->fd;
      plan->base = o->entry->data_offset;
      plan->size = o->entry->size;
    }
  else
    {
      plan->whole = inflate_entry (self, o->entry, error);
      plan->size = o->entry->size;
      ok = plan->whole != NULL;
    }
  /* a descriptor of the archive stays valid after the lock: the archive
   * is replaced only by commit, which readers never overlap */
  g_mutex_unlock (&self->lock);
  return ok;
}

static GBytes *
plan_read_range (NczZipStore *self,
                 ReadPlan    *plan,
                 const char  *key,
                 guint64      offset,
                 gint64       length,
                 GError     **error)
{
  guint64 n;

  if (!check_range (self, key, plan->size, offset, length, &n, error))
    return NULL;
  if (plan->whole != NULL)
    {
      if (offset == 0 && n == plan->size)
        return g_bytes_ref (plan->whole);
      return g_bytes_new_from_bytes (plan->whole, (gsize) offset, (gsize) n);
    }
  return read_file_range (self, plan->fd, key, plan->base + offset, n, error);
}

static GBytes *
zip_store_read (NczStore     *store,
                const char   *key,
                guint64       offset,
                gint64        length,
                GCancellable *cancellable,
                GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  ReadPlan plan;
  GBytes *bytes = NULL;

  if (plan_read (self, key, &plan, error))
    bytes = plan_read_range (self, &plan, key, offset, length, error);
  read_plan_clear (&plan);
  return bytes;
}

/* Many ranges of one object: a deflated entry is inflated once. */
static GPtrArray *
zip_store_read_ranges (NczStore            *store,
                       const char          *key,
                       const NczStoreRange *ranges,
                       guint                n_ranges,
                       GCancellable        *cancellable,
                       GError             **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  g_autoptr(GPtrArray) result = g_ptr_array_new_full (n_ranges, (GDestroyNotify) g_bytes_unref);
  ReadPlan plan;

  if (!plan_read (self, key, &plan, error))
    {
      read_plan_clear (&plan);
      return NULL;
    }
  for (guint i = 0; i < n_ranges; i++)
    {
      GBytes *bytes;

      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          (bytes = plan_read_range (self, &plan, key, ranges[i].offset, ranges[i].length,
                                    error)) == NULL)
        {
          read_plan_clear (&plan);
          return NULL;
        }
      g_ptr_array_add (result, bytes);
    }
  read_plan_clear (&plan);
  return g_steal_pointer (&result);
}

static gboolean
zip_store_get_length (NczStore     *store,
                      const char   *key,
                      guint64      *length,
                      GCancellable *cancellable,
                      GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  ZipObject *o;

  if (!check_ready (self, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  o = g_hash_table_lookup (self->objects, key);
  if (o != NULL)
    *length = o->size;
  g_mutex_unlock (&self->lock);
  if (o == NULL)
    {
      set_not_found (self, error, key);
      return FALSE;
    }
  return TRUE;
}

static gboolean
collect_child (gpointer key,
               gpointer value,
               gpointer data)
{
  g_ptr_array_add (data, g_strdup (key));
  return FALSE;
}

static char **
zip_store_list (NczStore     *store,
                const char   *prefix,
                GCancellable *cancellable,
                GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  GPtrArray *names = g_ptr_array_new ();
  GTree *tree;

  if (!check_ready (self, error))
    {
      g_ptr_array_unref (names);
      return NULL;
    }
  g_mutex_lock (&self->lock);
  tree = g_hash_table_lookup (self->children, prefix);
  if (tree != NULL)
    g_tree_foreach (tree, collect_child, names);
  g_mutex_unlock (&self->lock);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/* ---- writing ---- */

static gboolean
check_writable (NczZipStore *self,
                const char  *key,
                GError     **error)
{
  if (!check_ready (self, error))
    return FALSE;
  if ((self->flags & (NCZ_STORE_WRITE | NCZ_STORE_CREATE)) != 0)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_READ_ONLY,
               "cannot change '%s': zip store '%s' was opened read-only", key, self->path);
  return FALSE;
}

/* ---- the writer lock ---- */

/* How long a writer waits for the writer lock: the URL's lock.timeout,
 * else NCZ_LOCK_TIMEOUT (unset or empty: not given), else the SDK's
 * default. */
static gboolean
read_lock_timeout (NczZipStore *self,
                   GError     **error)
{
  return ncz_lock_timeout_for_url (self->url, &self->lock_timeout_ms, error);
}

/* Takes the writer lock, waiting while another writer holds it. @key is
 * the object about to change, or NULL while opening. Called with the
 * mutex held. */
static gboolean
take_writer_lock (NczZipStore  *self,
                  const char   *key,
                  GCancellable *cancellable,
                  GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *doing = key == NULL
    ? g_strdup_printf ("cannot open zip store '%s' for writing", ncz_url_get_original (self->url))
    : g_strdup_printf ("cannot write '%s' in zip store '%s'", key,
                       ncz_url_get_original (self->url));
  g_autofree char *lock_path = NULL;
  NczLockFile *lock_file;

  if (self->writer_lock != NULL)
    return TRUE;
  lock_path = ncz_lock_file_path_for (self->target);
  lock_file = ncz_lock_file_open (lock_path, &local_error);
  if (lock_file == NULL)
    {
      int errsv = 0;

      /* an archive nobody may write: say that, not why the lock failed */
      if (access (self->target, F_OK) == 0 && access (self->target, W_OK) < 0)
        errsv = errno;
      if (errsv == EACCES || errsv == EPERM || errsv == EROFS)
        g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                     "%s: the archive is not writable (%s); open it read-only", doing,
                     g_strerror (errsv));
      else
        g_set_error (error, NCZ_STORAGE_ERROR, local_error->code,
                     "%s: %s (writers of the archive wait for each other through that "
                     "file, so its directory must be writable)", doing, local_error->message);
      return FALSE;
    }
  if (!ncz_lock_file_lock (lock_file, NCZ_LOCK_SLOT_WRITER, TRUE, self->lock_timeout_ms,
                           cancellable, &local_error))
    {
      ncz_lock_file_close (lock_file);
      g_set_error (error, local_error->domain, local_error->code, "%s: %s", doing,
                   local_error->message);
      return FALSE;
    }
  self->writer_lock = lock_file;
  return TRUE;
}

static void
release_writer_lock (NczZipStore *self)
{
  if (self->writer_lock == NULL)
    return;
  ncz_lock_file_unlock (self->writer_lock, NCZ_LOCK_SLOT_WRITER);
  g_clear_pointer (&self->writer_lock, ncz_lock_file_close);
}

/* Closes the descriptors of archives read before: called when no read
 * is in flight (commit, finalize). */
static void
close_retired_fds (NczZipStore *self)
{
  for (guint i = 0; self->retired_fds != NULL && i < self->retired_fds->len; i++)
    close (g_array_index (self->retired_fds, int, i));
  g_clear_pointer (&self->retired_fds, g_array_unref);
}

/* Before a change to a store that released the writer lock (after a
 * commit or a discard, so with nothing staged): takes it again, and if
 * another writer replaced the archive meanwhile, reads that one, so that
 * its objects are kept. Called with the mutex held. */
static gboolean
relock_for_change (NczZipStore  *self,
                   const char   *key,
                   GCancellable *cancellable,
                   GError      **error)
{
  struct stat seen, now;
  int old_fd;

  if (self->view_lost)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "cannot write '%s' in zip store '%s': the archive another writer left "
                   "could not be read", key, self->path);
      return FALSE;
    }
  if (self->writer_lock != NULL)
    return TRUE;
  if (!take_writer_lock (self, key, cancellable, error))
    return FALSE;
  if (self->fd < 0 || fstat (self->fd, &seen) < 0 || stat (self->target, &now) < 0 ||
      (seen.st_dev == now.st_dev && seen.st_ino == now.st_ino))
    return TRUE;

  g_assert (!self->dirty && self->stage == NULL);
  /* a read of a stored entry may still be using the old descriptor
   * outside the mutex: it is closed at the next commit */
  old_fd = self->fd;
  self->fd = -1;
  if (self->retired_fds == NULL)
    self->retired_fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_array_append_val (self->retired_fds, old_fd);
  clear_index (self);
  if (!open_archive (self, error))
    {
      /* with no view of the archive, a commit would drop its objects */
      self->view_lost = TRUE;
      release_writer_lock (self);
      g_prefix_error (error, "cannot write '%s' in zip store '%s': ", key, self->path);
      return FALSE;
    }
  return TRUE;
}

/* What writers that died left beside the archive: staging directories
 * (".NAME.ncz-zip-hHOST-pPID-XXXXXX", locked shared by their writer
 * while it lives) and new archives never renamed into place
 * (".NAME.ncz-new-hHOST-pPID-XXXXXX", locked while being written, and
 * libzip's temporary files beside them, which add ".XXXXXX" and belong
 * to the same writer). Which of them are leftovers is the rule of
 * <ncz/ncz-staging.h>. The scan runs with the writer lock held, so no
 * other live writer of the archive should have anything staged; the
 * rule stays the proof that a leftover is abandoned all the same, since
 * it does not depend on every writer holding the same lock file (a
 * discarded creation unlinks the one a waiting writer may have open). */
static const NczStagingKind staging_kinds[] = {
  { "zip", TRUE, NCZ_STAGING_LOCK_FLOCK },
  { "new", FALSE, NCZ_STAGING_LOCK_FLOCK },
};

static void
remove_dir_files (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);

      unlink (p);
    }
  rmdir (path);
}

static void
remove_leftovers (NczZipStore *self)
{
  ncz_staging_remove_leftovers (self->target, staging_kinds, G_N_ELEMENTS (staging_kinds),
                                NULL, NULL);
}

/* Makes the staging directory beside the archive. Called with the lock. */
static gboolean
ensure_stage (NczZipStore *self,
              const char  *key,
              GError     **error)
{
  char *stage;

  if (self->stage != NULL)
    return TRUE;
  remove_leftovers (self);
  stage = ncz_staging_path_for (self->target, "zip");
  if (g_mkdtemp_full (stage, 0700) == NULL)
    {
      int errsv = errno;

      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv) ==
                   NCZ_STORAGE_ERROR_NOT_FOUND ? NCZ_STORAGE_ERROR_FAILED
                   : storage_code_for_errno (errsv),
                   "cannot write '%s' in zip store '%s': cannot make the staging directory "
                   "'%s': %s", key, self->path, stage, g_strerror (errsv));
      g_free (stage);
      return FALSE;
    }
  /* until it is locked, this process's id in its name keeps it */
  self->stage_fd = open (stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self->stage_fd >= 0 && !ncz_staging_hold_lock (self->stage_fd, NCZ_STAGING_LOCK_FLOCK))
    g_debug ("cannot lock the staging directory '%s': %s", stage, g_strerror (errno));
  self->stage = stage;
  return TRUE;
}

static gboolean
zip_store_write (NczStore     *store,
                 const char   *key,
                 GBytes       *data,
                 GCancellable *cancellable,
                 GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  g_autofree char *path = NULL;
  gconstpointer bytes;
  ZipObject *o, *old;
  gsize size;
  int fd;

  if (!check_writable (self, key, error))
    return FALSE;
  if (bad_entry_name (key, strlen (key)) != NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
                   "cannot write '%s' in zip store '%s': a zip entry cannot have %s",
                   key, self->path, bad_entry_name (key, strlen (key)));
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  if (!relock_for_change (self, key, cancellable, error) || !ensure_stage (self, key, error))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  path = g_strdup_printf ("%s/%u", self->stage, self->stage_seq++);
  g_mutex_unlock (&self->lock);

  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  bytes = g_bytes_get_data (data, &size);
  if (fd < 0 || !write_all (fd, bytes, size) || close (fd) < 0)
    {
      int errsv = errno;

      if (fd >= 0)
        close (fd);
      unlink (path);
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv) ==
                   NCZ_STORAGE_ERROR_NOT_FOUND ? NCZ_STORAGE_ERROR_FAILED
                   : storage_code_for_errno (errsv),
                   "cannot write '%s' in zip store '%s': %s", key, self->path,
                   g_strerror (errsv));
      return FALSE;
    }

  o = g_new0 (ZipObject, 1);
  o->staged = g_steal_pointer (&path);
  o->size = size;
  g_mutex_lock (&self->lock);
  old = g_hash_table_lookup (self->objects, key);
  if (old == NULL)
    index_add_key (self, key);
  g_hash_table_insert (self->objects, g_strdup (key), o);
  self->dirty = TRUE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
zip_store_remove (NczStore     *store,
                  const char   *key,
                  GCancellable *cancellable,
                  GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  g_autoptr(GPtrArray) doomed = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *under = g_strconcat (key, "/", NULL);
  GHashTableIter iter;
  gpointer k;

  if (!check_writable (self, key, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  if (!relock_for_change (self, key, cancellable, error))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  g_hash_table_iter_init (&iter, self->objects);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    if (key[0] == '\0' || strcmp (k, key) == 0 || g_str_has_prefix (k, under))
      g_ptr_array_add (doomed, g_strdup (k));
  for (guint i = 0; i < doomed->len; i++)
    {
      index_remove_key (self, g_ptr_array_index (doomed, i));
      g_hash_table_remove (self->objects, g_ptr_array_index (doomed, i));
    }
  if (doomed->len > 0)
    self->dirty = TRUE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Removes what was staged; the objects written are gone. Called with the
 * lock held or when no other thread uses the store. */
static void
drop_stage (NczZipStore *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->objects);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      ZipObject *o = value;

      if (o->staged != NULL)
        g_hash_table_iter_remove (&iter);
    }
  if (self->stage != NULL)
    {
      remove_dir_files (self->stage);
      g_clear_pointer (&self->stage, g_free);
    }
  if (self->stage_fd >= 0)
    {
      close (self->stage_fd);
      self->stage_fd = -1;
    }
}

/* An archive with no entry, which libzip does not write (it removes the
 * file instead): the end of central directory record alone. */
static gboolean
write_empty_archive (const char *path)
{
  guint8 eocd[EOCD_SIZE] = { 'P', 'K', 5, 6 };
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write_all (fd, eocd, sizeof eocd);
  return close (fd) == 0 && ok;
}

/* Builds the new archive at @tmp (an empty file): the objects in key
 * order, staged ones stored, untouched ones copied from the old archive
 * as they are. Called with the lock held. */
static gboolean
build_archive (NczZipStore *self,
               const char  *tmp,
               GError     **error)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer k;
  zip_t *za;
  int zerr = 0;

  g_hash_table_iter_init (&iter, self->objects);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    g_ptr_array_add (keys, k);
  if (keys->len == 0)
    {
      if (write_empty_archive (tmp))
        return TRUE;
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errno),
                   "cannot write zip store '%s': %s", self->path, g_strerror (errno));
      return FALSE;
    }
  g_ptr_array_sort (keys, compare_keys);

  za = zip_open (tmp, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
  if (za == NULL)
    {
      zip_error_t ze;

      zip_error_init_with_code (&ze, zerr);
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot write zip store '%s': %s", self->path, zip_error_strerror (&ze));
      zip_error_fini (&ze);
      return FALSE;
    }
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      ZipObject *o = g_hash_table_lookup (self->objects, key);
      g_autofree char *name = g_strconcat (self->prefix ? self->prefix : "", key, NULL);
      zip_source_t *src;
      zip_int64_t idx;

      /* never written: names a zip reader would take outside the archive's
       * directory (zip_store_write refuses such keys before) */
      if (bad_entry_name (name, strlen (name)) != NULL)
        {
          zip_discard (za);
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
                       "cannot write zip store '%s': the entry name '%s' has %s", self->path,
                       name, bad_entry_name (name, strlen (name)));
          return FALSE;
        }
      if (o->staged == NULL && (!check_entry_readable (self, o->entry, error) ||
                                !locate_data (self, o->entry, error) ||
                                !check_libzip_entry (self, o->entry, error)))
        {
          zip_discard (za);
          return FALSE;
        }
      if (o->staged != NULL)
        src = zip_source_file (za, o->staged, 0, -1);
      else
        src = zip_source_zip (za, self->za, o->entry->index, 0, 0, -1);
      if (src == NULL || (idx = zip_file_add (za, name, src, ZIP_FL_ENC_UTF_8)) < 0)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                       "cannot write '%s' in zip store '%s': %s", key, self->path,
                       zip_strerror (za));
          if (src != NULL)
            zip_source_free (src);
          zip_discard (za);
          return FALSE;
        }
      if (o->staged != NULL && zip_set_file_compression (za, (zip_uint64_t) idx, ZIP_CM_STORE, 0) < 0)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                       "cannot write '%s' in zip store '%s': %s", key, self->path,
                       zip_strerror (za));
          zip_discard (za);
          return FALSE;
        }
    }
  if (zip_close (za) < 0)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot write zip store '%s': %s", self->path, zip_strerror (za));
      zip_discard (za);
      return FALSE;
    }
  return TRUE;
}

static gboolean
sync_path (const char *path,
           int         flags)
{
  int fd = open (path, flags | O_CLOEXEC);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = fsync (fd) == 0;
  close (fd);
  return ok;
}

/* Writes the archive beside the old one and renames it into place. */
static gboolean
zip_store_commit (NczStore     *store,
                  GCancellable *cancellable,
                  GError      **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);
  g_autofree char *tmp = NULL;
  g_autofree char *parent = NULL;
  gboolean ok;
  int fd;

  if (!self->ready || (self->flags & (NCZ_STORE_WRITE | NCZ_STORE_CREATE)) == 0)
    return TRUE;
  g_mutex_lock (&self->lock);
  if (!self->dirty && ((self->flags & NCZ_STORE_CREATE) == 0 || self->committed))
    {
      /* nothing to write: the archive stays as this writer found it */
      release_writer_lock (self);
      g_mutex_unlock (&self->lock);
      return TRUE;
    }

  tmp = ncz_staging_path_for (self->target, "new");
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int errsv = errno;

      g_mutex_unlock (&self->lock);
      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                   "cannot write zip store '%s': cannot make '%s' beside it: %s; what was "
                   "there is unchanged", self->path, tmp, g_strerror (errsv));
      return FALSE;
    }
  /* locked until it is in place or removed: not a leftover */
  if (!ncz_staging_hold_lock (fd, NCZ_STAGING_LOCK_FLOCK))
    g_debug ("cannot lock '%s': %s", tmp, g_strerror (errno));

  ok = build_archive (self, tmp, error);
  if (ok && !sync_path (tmp, O_RDONLY))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "cannot write zip store '%s': %s", self->path, g_strerror (errno));
      ok = FALSE;
    }
  if (ok && rename (tmp, self->target) < 0)
    {
      int errsv = errno;

      g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                   "cannot put the new zip store '%s' in place: %s", self->path,
                   g_strerror (errsv));
      ok = FALSE;
    }
  if (!ok)
    unlink (tmp);
  close (fd);
  if (!ok)
    {
      g_mutex_unlock (&self->lock);
      if (error != NULL && *error != NULL)
        {
          char *message = g_strdup_printf ("%s; what was at '%s' is unchanged",
                                           (*error)->message, self->path);

          g_free ((*error)->message);
          (*error)->message = message;
        }
      return FALSE;
    }
  parent = g_path_get_dirname (self->target);
  sync_path (parent, O_RDONLY | O_DIRECTORY);

  /* the store now reads the archive just written; no read is in flight */
  self->committed = TRUE;
  self->dirty = FALSE;
  drop_stage (self);
  g_clear_pointer (&self->made_parents, g_ptr_array_unref);
  clear_index (self);
  close_retired_fds (self);
  ok = open_archive (self, error);
  /* without a view of the archive, a later write would drop its objects */
  if (!ok)
    self->view_lost = TRUE;
  /* the archive is in place: the next writer may read it */
  release_writer_lock (self);
  g_mutex_unlock (&self->lock);
  return ok;
}

static void
remove_made_parents (NczZipStore *self)
{
  if (self->made_parents == NULL)
    return;
  for (guint i = self->made_parents->len; i > 0; i--)
    rmdir (g_ptr_array_index (self->made_parents, i - 1));
  g_clear_pointer (&self->made_parents, g_ptr_array_unref);
}

static void
zip_store_discard (NczStore *store)
{
  NczZipStore *self = NCZ_ZIP_STORE (store);

  g_mutex_lock (&self->lock);
  drop_stage (self);
  if ((self->flags & NCZ_STORE_CREATE) != 0 && !self->committed)
    {
      self->committed = TRUE;   /* nothing more to write */
      /* the lock file is in a directory this store made and now removes:
       * a writer waiting on it finds that directory gone when it commits */
      if (self->writer_lock != NULL && self->made_parents != NULL &&
          self->made_parents->len > 0)
        unlink (ncz_lock_file_get_path (self->writer_lock));
      release_writer_lock (self);
      remove_made_parents (self);
    }
  else if ((self->flags & NCZ_STORE_CREATE) == 0 && self->dirty && self->ready)
    {
      /* objects removed come back: the archive is as it was */
      g_autoptr(GError) error = NULL;

      clear_index (self);
      if (!open_archive (self, &error))
        {
          g_debug ("%s", error->message);
          self->view_lost = TRUE;
        }
    }
  self->dirty = FALSE;
  release_writer_lock (self);
  g_mutex_unlock (&self->lock);
}

/* A local file: reads are copies from the page cache (see the file
 * store). */
static guint
zip_store_get_io_depth_hint (NczStore *store)
{
  return 1;
}

static void
ncz_zip_store_store_init (NczStoreInterface *iface)
{
  iface->get_io_depth_hint = zip_store_get_io_depth_hint;
  iface->read = zip_store_read;
  iface->read_ranges = zip_store_read_ranges;
  iface->write = zip_store_write;
  iface->remove = zip_store_remove;
  iface->get_length = zip_store_get_length;
  iface->list = zip_store_list;
  iface->commit = zip_store_commit;
  iface->discard = zip_store_discard;
}

/* ---- opening ---- */

/* Makes the missing parents of the target, remembering them so that a
 * discarded store leaves no trace. */
static gboolean
make_missing_parents (NczZipStore *self,
                      GError     **error)
{
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  char *dir = g_path_get_dirname (self->target);
  struct stat st;

  while (lstat (dir, &st) < 0 && errno == ENOENT)
    {
      char *up = g_path_get_dirname (dir);

      g_ptr_array_add (missing, dir);
      if (strcmp (up, dir) == 0)
        {
          g_free (up);
          dir = NULL;
          break;
        }
      dir = up;
    }
  g_free (dir);

  self->made_parents = g_ptr_array_new_with_free_func (g_free);
  for (guint i = missing->len; i > 0; i--)
    {
      const char *path = g_ptr_array_index (missing, i - 1);

      if (mkdir (path, 0777) < 0 && errno != EEXIST)
        {
          int errsv = errno;

          remove_made_parents (self);
          g_set_error (error, NCZ_STORAGE_ERROR, storage_code_for_errno (errsv),
                       "cannot create zip store '%s': cannot make the directory '%s': %s",
                       self->path, path, g_strerror (errsv));
          return FALSE;
        }
      g_ptr_array_add (self->made_parents, g_strdup (path));
    }
  return TRUE;
}

static char *
resolve_target (const char *path)
{
  struct stat st;
  char *real;
  char *result;

  if (lstat (path, &st) < 0 || !S_ISLNK (st.st_mode) || (real = realpath (path, NULL)) == NULL)
    return g_strdup (path);
  result = g_strdup (real);
  free (real);
  return result;
}

/* Where a new archive puts its entries: at its root, as zarr-python's
 * ZipStore does (the default), or, with the URL's `zip.layout=dir`, under
 * one directory named after the archive (NAME.zip holds NAME/.zgroup...),
 * the layout netcdf-c writes and reads. */
static gboolean
create_layout (NczZipStore *self, GError **error)
{
  const char *layout = self->url ? ncz_url_get_fragment_value (self->url, "zip.layout") : NULL;

  if (layout == NULL || g_str_equal (layout, "root"))
    self->prefix = g_strdup ("");
  else if (g_str_equal (layout, "dir"))
    {
      g_autofree char *base = g_path_get_basename (self->path);
      gsize len = strlen (base);

      if (len > 4 && g_ascii_strcasecmp (base + len - 4, ".zip") == 0)
        base[len - 4] = '\0';
      self->prefix = g_strconcat (base, "/", NULL);
      if (bad_entry_name (self->prefix, strlen (self->prefix)) != NULL)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
                       "cannot create zip store '%s': '%s' cannot name its directory",
                       self->path, base);
          return FALSE;
        }
    }
  else
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "cannot create zip store '%s': zip.layout must be 'root' or 'dir', not '%s'",
                   self->path, layout);
      return FALSE;
    }
  return TRUE;
}

static gboolean
ncz_zip_store_initable_init_impl (GInitable     *initable,
                                  GCancellable  *cancellable,
                                  GError       **error)
{
  NczZipStore *self = NCZ_ZIP_STORE (initable);
  const char *path;
  struct stat st;
  gboolean writing;
  gboolean ok;

  if (self->ready)
    return TRUE;
  if (self->url == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "the zip store was created without a URL");
      return FALSE;
    }
  path = ncz_url_get_local_path (self->url);
  if (path == NULL || path[0] == '\0')
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "URL '%s' does not name a local zip file", ncz_url_get_original (self->url));
      return FALSE;
    }
  g_clear_pointer (&self->path, g_free);
  if (g_path_is_absolute (path))
    self->path = g_strdup (path);
  else
    {
      g_autofree char *cwd = g_get_current_dir ();

      self->path = g_build_filename (cwd, path, NULL);
    }
  g_clear_pointer (&self->target, g_free);
  self->target = resolve_target (self->path);

  writing = (self->flags & (NCZ_STORE_WRITE | NCZ_STORE_CREATE)) != 0;
  if (writing && !read_lock_timeout (self, error))
    return FALSE;

  g_mutex_lock (&self->lock);
  if ((self->flags & NCZ_STORE_CREATE) != 0)
    {
      /* nothing is read from, or written at, the path until commit */
      ok = TRUE;
      if (stat (self->target, &st) == 0 && !S_ISREG (st.st_mode))
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_EXISTS,
                       "cannot create zip store '%s': %s is in the way", self->path,
                       S_ISDIR (st.st_mode) ? "a directory" : "something that is not a file");
          ok = FALSE;
        }
      else if (stat (self->target, &st) < 0 && errno == ENOENT)
        ok = make_missing_parents (self, error);
      if (ok)
        ok = create_layout (self, error);
      /* held until the new archive is in place or discarded, so that
       * writers replacing the archive, or updating it, take turns */
      if (ok && !take_writer_lock (self, NULL, cancellable, error))
        {
          remove_made_parents (self);
          ok = FALSE;
        }
    }
  else if (writing)
    {
      /* the lock first: the index must include what the last writer
       * committed, or this writer's archive would drop it */
      ok = take_writer_lock (self, NULL, cancellable, error) && open_archive (self, error);
      if (!ok)
        release_writer_lock (self);
    }
  else
    ok = open_archive (self, error);
  self->ready = ok;
  g_mutex_unlock (&self->lock);
  return ok;
}

static void
ncz_zip_store_initable_init (GInitableIface *iface)
{
  iface->init = ncz_zip_store_initable_init_impl;
}

const char *
ncz_zip_store_get_entry_prefix (NczZipStore *self)
{
  return self->prefix;
}

gboolean
ncz_zip_store_is_stored_entry (NczZipStore *self,
                               const char  *key,
                               guint64     *data_offset)
{
  ZipObject *o;
  gboolean stored = FALSE;

  g_mutex_lock (&self->lock);
  o = g_hash_table_lookup (self->objects, key);
  if (o != NULL && o->entry != NULL && o->entry->method == METHOD_STORE &&
      locate_data (self, o->entry, NULL))
    {
      stored = TRUE;
      if (data_offset != NULL)
        *data_offset = o->entry->data_offset;
    }
  g_mutex_unlock (&self->lock);
  return stored;
}

static void
ncz_zip_store_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  NczZipStore *self = NCZ_ZIP_STORE (object);

  if (!ncz_store_get_construct_property (pspec, value, self->url, self->flags))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_zip_store_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  NczZipStore *self = NCZ_ZIP_STORE (object);

  if (!ncz_store_set_construct_property (pspec, value, &self->url, &self->flags))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ncz_zip_store_finalize (GObject *object)
{
  NczZipStore *self = NCZ_ZIP_STORE (object);

  if (self->ready)
    {
      /* an archive opened for update is written back when released;
       * a replacement never committed leaves what was at the path */
      if ((self->flags & NCZ_STORE_CREATE) == 0 && self->dirty)
        {
          g_autoptr(GError) error = NULL;

          if (!zip_store_commit (NCZ_STORE (self), NULL, &error))
            g_warning ("%s", error->message);
        }
      zip_store_discard (NCZ_STORE (self));
    }
  release_writer_lock (self);
  clear_index (self);
  close_retired_fds (self);
  g_hash_table_unref (self->objects);
  g_hash_table_unref (self->children);
  g_clear_pointer (&self->made_parents, g_ptr_array_unref);
  g_free (self->stage);
  g_free (self->path);
  g_free (self->target);
  g_clear_object (&self->url);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (ncz_zip_store_parent_class)->finalize (object);
}

static void
ncz_zip_store_class_init (NczZipStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ncz_zip_store_get_property;
  object_class->set_property = ncz_zip_store_set_property;
  object_class->finalize = ncz_zip_store_finalize;

  ncz_store_class_override_properties (object_class, PROP_URL, PROP_FLAGS);
}

static void
ncz_zip_store_init (NczZipStore *self)
{
  self->fd = -1;
  self->stage_fd = -1;
  g_mutex_init (&self->lock);
  self->objects = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, zip_object_free);
  self->children = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_tree_unref);
}
