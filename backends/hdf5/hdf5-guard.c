/* hdf5-guard.c: checks on what libhdf5 reads, before it decodes it
 *
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libhdf5 1.10 trusts the global heap collections (GCOL: the strings of
 * variable-length string attributes and variables, DIMENSION_LIST's
 * references) it reads: an object whose size runs past its collection
 * makes H5HG_read() copy from outside the collection's buffer, and a free
 * object of size 0 makes the collection's decoding loop forever. Every
 * file driver the backend opens files with (this file's POSIX driver for
 * local files, hdf5-vfd.c's store driver for #mode=bytes) looks at each
 * block it reads that starts with a collection's signature and fails the
 * read when the collection's objects do not tile it. libhdf5 then fails
 * the call with an error, which becomes a GError.
 *
 * Raw data (a numeric variable's chunks and contiguous data) may start
 * with the same four bytes; the I/O code marks the calls that read only
 * raw data (ncz_h5_raw_reads_begin()), and no check is made during them.
 *
 * The descriptors of variable-length values, which name a collection's
 * objects from an attribute's or a variable's own data, are checked by a
 * conversion function wrapped around libhdf5's (see "variable-length
 * values" below).
 *
 * The POSIX driver ("ncz-posix") is libhdf5's sec2 driver's equivalent:
 * pread/pwrite, end of allocation kept in memory, flock for libhdf5's
 * file locking, truncation to the end of allocation at close. It opens
 * existing files, read-only or for update; new files are created with
 * libhdf5's own sec2 driver (they hold only what Ncz writes).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "hdf5-private.h"

#define HEAP_SIGNATURE "GCOL"
#define FILE_SIGNATURE "\211HDF\r\n\032\n"
#define POSIX_MAXADDR ((haddr_t) G_MAXINT64)

/* Guarded by the HDF5 lock, as every libhdf5 call is. */
static guint raw_reads;

void
ncz_h5_raw_reads_begin (void)
{
  raw_reads++;
}

void
ncz_h5_raw_reads_end (void)
{
  g_assert (raw_reads > 0);
  raw_reads--;
}

static guint64
decode_length (const guint8 *p, guint n)
{
  guint64 value = 0;

  for (guint i = n; i > 0; i--)
    value = (value << 8) | p[i - 1];
  return value;
}

static guint64
align8 (guint64 n)
{
  return (n + 7) & ~G_GUINT64_CONSTANT (7);
}

/* Notes the sizes of lengths and offsets a superblock read into
 * @buffer gives (0 for a size that is not one) */
static void
note_superblock (NczH5DriverFile *file, const void *buffer, gsize size)
{
  const guint8 *p = buffer;
  guint offsets, lengths;

  if (size < 16 || memcmp (p, FILE_SIGNATURE, 8) != 0)
    return;
  /* versions 0 and 1 say the sizes of offsets and lengths at bytes 13
   * and 14, versions 2 and 3 at bytes 9 and 10 */
  offsets = p[8] <= 1 ? p[13] : p[9];
  lengths = p[8] <= 1 ? p[14] : p[10];
  file->offset_size = offsets >= 2 && offsets <= 8 ? offsets : 0;
  file->length_size = lengths >= 2 && lengths <= 8 ? lengths : 0;
}

#define NO_OBJECT G_MAXUINT64

/* Walks the objects of the global heap collection at @addr whose first
 * @size bytes are in @buffer (starting with its signature and version,
 * @size at least 8 + @length_size): FALSE, with *@why set, when they do
 * not tile it. When @sizes is not NULL, sets its element i (guint64) to
 * the size of object i, NO_OBJECT for an index no object has. */
static gboolean
walk_heap (const guint8 *p, gsize size, guint64 addr, guint length_size, GArray *sizes,
           char **why)
{
  guint64 collection, available, off, header, object_header;
  guint n = 0;

  header = align8 (8 + length_size);
  object_header = align8 (8 + length_size);
  collection = decode_length (p + 8, length_size);
  if (collection < header)
    {
      *why = g_strdup_printf ("the global heap collection at offset %" G_GUINT64_FORMAT
                              " says it is %" G_GUINT64_FORMAT " bytes, less than its header",
                              addr, collection);
      return FALSE;
    }
  /* libhdf5 reads a collection's first 4096 bytes, then all of it: what
   * was read is checked, the rest when it is read */
  available = MIN ((guint64) size, collection);
  for (off = header; collection - off >= object_header; n++)
    {
      guint64 index, object_size, need;

      if (available - MIN (available, off) < object_header)
        return TRUE;
      index = decode_length (p + off, 2);
      object_size = decode_length (p + off + 8, length_size);
      if (index == 0)
        /* free space: its size counts its own header */
        need = object_size < object_header ? 0 : object_size;
      else
        need = object_size > collection - off - object_header
                 ? 0 : object_header + align8 (object_size);
      if (need == 0 || need > collection - off)
        {
          *why = g_strdup_printf ("the global heap collection at offset %" G_GUINT64_FORMAT
                                  " (%" G_GUINT64_FORMAT " bytes) is damaged: its object %u"
                                  " (index %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                                  " bytes) at byte %" G_GUINT64_FORMAT " %s",
                                  addr, collection, n, index, object_size, off,
                                  index == 0 && object_size < object_header
                                    ? "is free space smaller than its own header"
                                    : "runs past the collection's end");
          return FALSE;
        }
      if (sizes != NULL && index != 0)
        {
          guint old_len = sizes->len;

          if (index >= old_len)
            {
              g_array_set_size (sizes, (guint) index + 1);
              for (guint i = old_len; i < sizes->len; i++)
                g_array_index (sizes, guint64, i) = NO_OBJECT;
            }
          g_array_index (sizes, guint64, index) = object_size;
        }
      off += need;
    }
  return TRUE;
}

static gboolean
check_heap_read (const void *buffer, gsize size, guint64 addr, guint length_size,
                 char **why)
{
  const guint8 *p = buffer;

  if (raw_reads > 0 || length_size == 0 || size < 8 + length_size ||
      memcmp (p, HEAP_SIGNATURE, 4) != 0 || p[4] != 1)
    return TRUE;
  return walk_heap (p, size, addr, length_size, NULL, why);
}

/* ---- what both drivers share ---- */

/* The files Ncz's drivers have open (NczH5DriverFile *), guarded by the
 * HDF5 lock: libhdf5 opens and closes them inside calls made with it. */
static GHashTable *open_files;

void
ncz_h5_driver_file_init (NczH5DriverFile *file, haddr_t eof, gboolean read_only)
{
  file->eoa = 0;
  file->eof = eof;
  file->length_size = 8;
  file->offset_size = 8;
  file->read_only = read_only;
  if (open_files == NULL)
    open_files = g_hash_table_new (NULL, NULL);
  g_hash_table_add (open_files, file);
}

void
ncz_h5_driver_file_clear (NczH5DriverFile *file)
{
  g_hash_table_remove (open_files, file);
}

NczH5DriverFile *
ncz_h5_driver_file_of (hid_t file)
{
  void *handle = NULL;

  if (H5Fget_vfd_handle (file, H5P_DEFAULT, &handle) < 0 || open_files == NULL ||
      !g_hash_table_contains (open_files, handle))
    {
      H5Eclear2 (H5E_DEFAULT);
      return NULL;
    }
  return handle;
}

herr_t
ncz_h5_driver_get_handle (H5FD_t *file, hid_t fapl, void **handle)
{
  *handle = file;
  return 0;
}

herr_t
ncz_h5_driver_query (const H5FD_t *file, unsigned long *flags)
{
  if (flags != NULL)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
             H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t
ncz_h5_driver_get_eoa (const H5FD_t *file, H5FD_mem_t type)
{
  return ((const NczH5DriverFile *) file)->eoa;
}

herr_t
ncz_h5_driver_set_eoa (H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
  ((NczH5DriverFile *) file)->eoa = addr;
  return 0;
}

haddr_t
ncz_h5_driver_get_eof (const H5FD_t *file, H5FD_mem_t type)
{
  return ((const NczH5DriverFile *) file)->eof;
}

gboolean
ncz_h5_driver_check_range (const NczH5DriverFile *file, haddr_t addr, size_t size, char **why)
{
  if (addr != HADDR_UNDEF && addr <= (haddr_t) G_MAXINT64 &&
      size <= (haddr_t) G_MAXINT64 - addr && addr + size <= file->eoa)
    {
      if (!file->read_only || addr + size <= file->eof + NCZ_H5_MAX_PAST_EOF)
        return TRUE;
      *why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT
                              " run past the end of the file (%" G_GUINT64_FORMAT " bytes)",
                              size, (guint64) addr, (guint64) file->eof);
      return FALSE;
    }
  *why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT
                          " lie beyond the end of allocation (%" G_GUINT64_FORMAT ")",
                          size, (guint64) addr, (guint64) file->eoa);
  return FALSE;
}

gboolean
ncz_h5_driver_check_read (NczH5DriverFile *file, H5FD_mem_t type, const void *buffer,
                          gsize size, haddr_t addr, char **why)
{
  if (type == H5FD_MEM_SUPER)
    note_superblock (file, buffer, size);
  return check_heap_read (buffer, size, addr, file->length_size, why);
}

gssize
ncz_h5_pread_all (int fd, void *buffer, gsize size, guint64 offset)
{
  guint8 *p = buffer;
  gsize done = 0;

  while (done < size)
    {
      ssize_t n = pread (fd, p + done, size - done, (off_t) (offset + done));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      done += (gsize) n;
    }
  return (gssize) done;
}

/* ---- variable-length values ----
 *
 * In the file a variable-length value (a string, a sequence) is a
 * descriptor: its length in elements (4 bytes), the address of a global
 * heap collection (the size of offsets) and the index of an object in it
 * (4 bytes). libhdf5 1.10's conversion of such values to memory
 * allocates and clears length × element size bytes, then copies the
 * object named into them: a damaged length asks for gigabytes, an index
 * the collection does not have reads outside libhdf5's table of objects,
 * an object larger than the length says overruns the buffer. Ncz's
 * reads (ncz_h5_read_attribute(), ncz_h5_read_dataset()) register the
 * file they read; a conversion function registered for variable-length
 * data checks every descriptor against its collection (read through the
 * file's driver, which checks the collection too), then runs libhdf5's
 * own conversion. A file open for writing is flushed before such a
 * read: libhdf5's cache may hold collections the file does not have
 * yet. */

/* libhdf5's own conversion of variable-length data, run after the check;
 * NULL when the check is not installed */
static H5T_conv_t library_vlen_conv;
/* the file the current read reads, when it is checked */
static NczH5DriverFile *vlen_file;
/* the collections read during the current read: address (guint64 *) →
 * GArray of object sizes by index (see walk_heap()) */
static GHashTable *vlen_collections;

static void
vlen_fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
vlen_fail (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  H5Epush2 (H5E_DEFAULT, __FILE__, G_STRFUNC, __LINE__, H5E_ERR_CLS, H5E_DATATYPE,
            H5E_CANTCONVERT, "%s", message);
}

static void
array_free (gpointer data)
{
  g_array_unref (data);
}

/* Reads @size bytes at HDF5 address @addr of the current file through
 * its driver (which checks them as it checks what libhdf5 reads). */
static gboolean
vlen_read (guint64 addr, gsize size, void *buffer)
{
  H5FD_t *file = &vlen_file->pub;

  return addr <= G_MAXUINT64 - file->base_addr &&
         file->cls->read (file, H5FD_MEM_GHEAP, H5P_DEFAULT, addr + file->base_addr, size,
                          buffer) >= 0;
}

/* The sizes of the objects of the collection at @addr (cached for the
 * current read), or NULL with an HDF5 error pushed. */
static GArray *
vlen_collection (guint64 addr)
{
  guint length_size = vlen_file->length_size;
  g_autofree guint8 *buffer = NULL;
  g_autofree char *why = NULL;
  guint8 head[16];
  guint64 size, *key;
  GArray *sizes;

  if (vlen_collections == NULL)
    vlen_collections = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, array_free);
  sizes = g_hash_table_lookup (vlen_collections, &addr);
  if (sizes != NULL)
    return sizes;
  if (length_size == 0 || !vlen_read (addr, 8 + length_size, head))
    {
      vlen_fail ("a variable-length value names a global heap collection at offset %"
                 G_GUINT64_FORMAT ", which cannot be read", addr);
      return NULL;
    }
  size = decode_length (head + 8, length_size);
  if (memcmp (head, HEAP_SIGNATURE, 4) != 0 || head[4] != 1)
    {
      vlen_fail ("a variable-length value names a global heap collection at offset %"
                 G_GUINT64_FORMAT ", where there is none", addr);
      return NULL;
    }
  /* the driver refuses what lies beyond the end of allocation, after
   * the allocation is made: first the end of the file */
  if (size < 8 + length_size || size > vlen_file->eof ||
      (buffer = g_try_malloc (size)) == NULL ||
      !vlen_read (addr, size, buffer))
    {
      vlen_fail ("the global heap collection at offset %" G_GUINT64_FORMAT " (%"
                 G_GUINT64_FORMAT " bytes) cannot be read", addr, size);
      return NULL;
    }
  sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (!walk_heap (buffer, size, addr, length_size, sizes, &why))
    {
      vlen_fail ("%s", why);
      g_array_unref (sizes);
      return NULL;
    }
  key = g_new (guint64, 1);
  *key = addr;
  g_hash_table_insert (vlen_collections, key, sizes);
  return sizes;
}

/* FALSE, with an HDF5 error pushed, when one of the @n descriptors of
 * type @src in @buffer does not name an object of the size it says. */
static gboolean
vlen_check (hid_t src, size_t n, size_t stride, const guint8 *buffer)
{
  guint offset_size = vlen_file->offset_size;
  size_t descriptor = 8 + offset_size;
  guint64 base;

  /* in memory (a char * or an hvl_t) there is nothing to check; this
   * also skips types of another size than the file's descriptors */
  if (offset_size == 0 || H5Tget_size (src) != descriptor)
    return TRUE;
  if (H5Tget_class (src) == H5T_STRING)
    base = 1;
  else
    {
      hid_t super = H5Tget_super (src);

      base = super >= 0 ? H5Tget_size (super) : 0;
      if (super >= 0)
        H5Tclose (super);
      if (base == 0)
        {
          vlen_fail ("a variable-length type without an element type");
          return FALSE;
        }
    }
  if (stride == 0)
    stride = descriptor;
  for (size_t i = 0; i < n; i++)
    {
      const guint8 *p = buffer + i * stride;
      guint64 length = decode_length (p, 4);
      guint64 addr = decode_length (p + 4, offset_size);
      guint64 index = decode_length (p + 4 + offset_size, 4);
      GArray *sizes;

      /* address 0: a null value, which libhdf5 does not follow */
      if (addr == 0)
        continue;
      sizes = vlen_collection (addr);
      if (sizes == NULL)
        return FALSE;
      if (index == 0 || index >= sizes->len ||
          g_array_index (sizes, guint64, index) == NO_OBJECT)
        {
          vlen_fail ("a variable-length value names object %" G_GUINT64_FORMAT
                     " of the global heap collection at offset %" G_GUINT64_FORMAT
                     ", which has no such object", index, addr);
          return FALSE;
        }
      if (length > G_MAXUINT64 / base || g_array_index (sizes, guint64, index) != length * base)
        {
          vlen_fail ("a variable-length value of %" G_GUINT64_FORMAT " elements of %"
                     G_GUINT64_FORMAT " bytes names object %" G_GUINT64_FORMAT
                     " of the global heap collection at offset %" G_GUINT64_FORMAT
                     ", which is %" G_GUINT64_FORMAT " bytes", length, base, index, addr,
                     g_array_index (sizes, guint64, index));
          return FALSE;
        }
    }
  return TRUE;
}

static herr_t
vlen_check_conv (hid_t src, hid_t dst, H5T_cdata_t *cdata, size_t n, size_t buf_stride,
                 size_t bkg_stride, void *buffer, void *background, hid_t dxpl)
{
  if (cdata->command == H5T_CONV_CONV && vlen_file != NULL && n > 0 && buffer != NULL &&
      !vlen_check (src, n, buf_stride, buffer))
    return -1;
  return library_vlen_conv (src, dst, cdata, n, buf_stride, bkg_stride, buffer, background,
                            dxpl);
}

void
ncz_h5_install_vlen_check (void)
{
  unsigned major, minor, release;
  H5T_cdata_t *cdata = NULL;
  hid_t src, dst;

  /* conversion functions have this calling convention up to 1.12; the
   * check is made with those versions only */
  if (library_vlen_conv != NULL || H5get_libversion (&major, &minor, &release) < 0 ||
      major != 1 || (minor != 10 && minor != 12))
    return;
  /* libhdf5's function is the one of a conversion between two sequence
   * types that differ (between equal types there is none) */
  src = H5Tvlen_create (H5T_STD_I32BE);
  dst = H5Tvlen_create (H5T_STD_I32LE);
  if (src >= 0 && dst >= 0)
    library_vlen_conv = H5Tfind (src, dst, &cdata);
  if (library_vlen_conv != NULL &&
      H5Tregister (H5T_PERS_SOFT, "ncz-vlen-check", src, dst, vlen_check_conv) < 0)
    library_vlen_conv = NULL;
  if (library_vlen_conv == NULL)
    g_warning ("HDF5 backend: variable-length values are read without the checks: "
               "libhdf5's conversion cannot be wrapped");
  if (src >= 0)
    H5Tclose (src);
  if (dst >= 0)
    H5Tclose (dst);
  H5Eclear2 (H5E_DEFAULT);
}

/* The file @object is in, when it is a file of Ncz's drivers and a read
 * of @mem_type converts variable-length values. A file open for writing
 * is flushed first, so that the collections its values name are in the
 * file as libhdf5's cache holds them. */
static NczH5DriverFile *
checked_file_of (hid_t object, hid_t mem_type)
{
  NczH5DriverFile *found = NULL;
  void *handle = NULL;
  hid_t file;

  if (library_vlen_conv == NULL || open_files == NULL ||
      (H5Tis_variable_str (mem_type) <= 0 && H5Tdetect_class (mem_type, H5T_VLEN) <= 0))
    {
      H5Eclear2 (H5E_DEFAULT);
      return NULL;
    }
  file = H5Iget_file_id (object);
  if (file >= 0 && H5Fget_vfd_handle (file, H5P_DEFAULT, &handle) >= 0 &&
      g_hash_table_contains (open_files, handle) &&
      (((NczH5DriverFile *) handle)->read_only || H5Fflush (file, H5F_SCOPE_LOCAL) >= 0))
    found = handle;
  if (file >= 0)
    H5Fclose (file);
  H5Eclear2 (H5E_DEFAULT);
  return found;
}

typedef struct {
  NczH5DriverFile *file;
  GHashTable *collections;
} VlenScope;

static void
vlen_scope_begin (hid_t object, hid_t mem_type, VlenScope *saved)
{
  saved->file = vlen_file;
  saved->collections = vlen_collections;
  vlen_file = checked_file_of (object, mem_type);
  vlen_collections = NULL; /* made by the first collection read */
}

static void
vlen_scope_end (const VlenScope *saved)
{
  g_clear_pointer (&vlen_collections, g_hash_table_unref);
  vlen_file = saved->file;
  vlen_collections = saved->collections;
}

herr_t
ncz_h5_read_attribute (hid_t attr, hid_t mem_type, void *buffer)
{
  VlenScope saved;
  herr_t status;

  vlen_scope_begin (attr, mem_type, &saved);
  status = H5Aread (attr, mem_type, buffer);
  vlen_scope_end (&saved);
  return status;
}

herr_t
ncz_h5_read_dataset (hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                     void *buffer)
{
  VlenScope saved;
  herr_t status;

  vlen_scope_begin (dset, mem_type, &saved);
  status = H5Dread (dset, mem_type, mem_space, file_space, H5P_DEFAULT, buffer);
  vlen_scope_end (&saved);
  return status;
}

/* ---- the POSIX driver ---- */

typedef struct {
  NczH5DriverFile base; /* first */
  int fd;
  char *name;
  dev_t device;
  ino_t inode;
} PosixFile;

static H5FD_t *posix_open (const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr);
static herr_t posix_close (H5FD_t *file);
static int posix_cmp (const H5FD_t *a, const H5FD_t *b);
static herr_t posix_read (H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr,
                          size_t size, void *buffer);
static herr_t posix_write (H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr,
                           size_t size, const void *buffer);
static herr_t posix_truncate (H5FD_t *file, hid_t dxpl, hbool_t closing);
static herr_t posix_lock (H5FD_t *file, hbool_t rw);
static herr_t posix_unlock (H5FD_t *file);

static const H5FD_class_t posix_class = {
  .name = "ncz-posix",
  .maxaddr = POSIX_MAXADDR,
  .fc_degree = H5F_CLOSE_STRONG,
  .open = posix_open,
  .close = posix_close,
  .cmp = posix_cmp,
  .query = ncz_h5_driver_query,
  .get_eoa = ncz_h5_driver_get_eoa,
  .set_eoa = ncz_h5_driver_set_eoa,
  .get_eof = ncz_h5_driver_get_eof,
  .get_handle = ncz_h5_driver_get_handle,
  .read = posix_read,
  .write = posix_write,
  .truncate = posix_truncate,
  .lock = posix_lock,
  .unlock = posix_unlock,
  .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static hid_t posix_id = H5I_INVALID_HID;

static void
posix_fail (const char *func, H5E_minor_t minor, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
posix_fail (const char *func, H5E_minor_t minor, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  H5Epush2 (H5E_DEFAULT, __FILE__, func, __LINE__, H5E_ERR_CLS, H5E_VFL, minor, "%s",
            message);
}

gboolean
ncz_h5_set_posix_driver (hid_t fapl)
{
  if (posix_id < 0 || H5Iis_valid (posix_id) <= 0)
    posix_id = H5FDregister (&posix_class);
  return posix_id >= 0 && H5Pset_driver (fapl, posix_id, NULL) >= 0;
}

static H5FD_t *
posix_open (const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
  int open_flags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  PosixFile *file;
  struct stat st;
  int fd;

  if ((flags & (H5F_ACC_TRUNC | H5F_ACC_CREAT | H5F_ACC_EXCL)) != 0)
    {
      posix_fail (G_STRFUNC, H5E_CANTOPENFILE, "%s: this driver opens existing files only",
                  name);
      return NULL;
    }
  fd = open (name, open_flags | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int e = errno;

      if (fd >= 0)
        close (fd);
      posix_fail (G_STRFUNC, H5E_CANTOPENFILE, "%s: %s", name, g_strerror (e));
      return NULL;
    }
  file = g_new0 (PosixFile, 1);
  ncz_h5_driver_file_init (&file->base, (haddr_t) st.st_size, !(flags & H5F_ACC_RDWR));
  file->fd = fd;
  file->name = g_strdup (name);
  file->device = st.st_dev;
  file->inode = st.st_ino;
  return &file->base.pub;
}

static herr_t
posix_close (H5FD_t *_file)
{
  PosixFile *file = (PosixFile *) _file;
  herr_t status = 0;

  if (close (file->fd) != 0)
    {
      posix_fail (G_STRFUNC, H5E_CANTCLOSEFILE, "%s: %s", file->name, g_strerror (errno));
      status = -1;
    }
  ncz_h5_driver_file_clear (&file->base);
  g_free (file->name);
  g_free (file);
  return status;
}

static int
posix_cmp (const H5FD_t *_a, const H5FD_t *_b)
{
  const PosixFile *a = (const PosixFile *) _a, *b = (const PosixFile *) _b;

  if (a->device != b->device)
    return a->device < b->device ? -1 : 1;
  if (a->inode != b->inode)
    return a->inode < b->inode ? -1 : 1;
  return 0;
}

static herr_t
posix_read (H5FD_t *_file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
            void *buffer)
{
  PosixFile *file = (PosixFile *) _file;
  g_autofree char *why = NULL;
  gssize n;

  if (!ncz_h5_driver_check_range (&file->base, addr, size, &why))
    {
      posix_fail (G_STRFUNC, H5E_OVERFLOW, "%s: %s", file->name, why);
      return -1;
    }
  n = ncz_h5_pread_all (file->fd, buffer, size, addr);
  if (n < 0)
    {
      posix_fail (G_STRFUNC, H5E_READERROR, "%s: reading %" G_GSIZE_FORMAT " bytes at %"
                  G_GUINT64_FORMAT ": %s", file->name, size, (guint64) addr,
                  g_strerror (errno));
      return -1;
    }
  /* past the end of the file reads as zeros */
  memset ((guint8 *) buffer + n, 0, size - (gsize) n);
  if (!ncz_h5_driver_check_read (&file->base, type, buffer, size, addr, &why))
    {
      posix_fail (G_STRFUNC, H5E_BADVALUE, "%s: %s", file->name, why);
      return -1;
    }
  return 0;
}

static herr_t
posix_write (H5FD_t *_file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
             const void *buffer)
{
  PosixFile *file = (PosixFile *) _file;
  const guint8 *p = buffer;
  g_autofree char *why = NULL;
  gsize done = 0;

  if (!ncz_h5_driver_check_range (&file->base, addr, size, &why))
    {
      posix_fail (G_STRFUNC, H5E_OVERFLOW, "%s: %s", file->name, why);
      return -1;
    }
  while (done < size)
    {
      ssize_t n = pwrite (file->fd, p + done, size - done, (off_t) (addr + done));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          posix_fail (G_STRFUNC, H5E_WRITEERROR, "%s: writing %" G_GSIZE_FORMAT
                      " bytes at %" G_GUINT64_FORMAT ": %s", file->name, size - done,
                      (guint64) (addr + done), n < 0 ? g_strerror (errno) : "nothing written");
          return -1;
        }
      done += (gsize) n;
    }
  file->base.eof = MAX (file->base.eof, addr + size);
  return 0;
}

static herr_t
posix_truncate (H5FD_t *_file, hid_t dxpl, hbool_t closing)
{
  PosixFile *file = (PosixFile *) _file;

  if (file->base.eoa == file->base.eof)
    return 0;
  if (ftruncate (file->fd, (off_t) file->base.eoa) != 0)
    {
      posix_fail (G_STRFUNC, H5E_SEEKERROR, "%s: setting its length to %" G_GUINT64_FORMAT
                  ": %s", file->name, (guint64) file->base.eoa, g_strerror (errno));
      return -1;
    }
  file->base.eof = file->base.eoa;
  return 0;
}

/* Set when an open failed because another process holds the file's lock
 * (under the HDF5 lock, as every use of this driver). */
static gboolean lock_busy;

gboolean
ncz_h5_take_lock_busy (void)
{
  gboolean busy = lock_busy;
  lock_busy = FALSE;
  return busy;
}

static herr_t
posix_lock (H5FD_t *_file, hbool_t rw)
{
  PosixFile *file = (PosixFile *) _file;

  if (flock (file->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 || errno == ENOSYS)
    return 0;
  if (errno == EWOULDBLOCK)
    lock_busy = TRUE;
  posix_fail (G_STRFUNC, H5E_CANTLOCKFILE, "%s: cannot lock it (%s): %s", file->name,
              rw ? "for writing" : "for reading", g_strerror (errno));
  return -1;
}

static herr_t
posix_unlock (H5FD_t *_file)
{
  PosixFile *file = (PosixFile *) _file;

  if (flock (file->fd, LOCK_UN) == 0 || errno == ENOSYS)
    return 0;
  posix_fail (G_STRFUNC, H5E_CANTUNLOCKFILE, "%s: cannot unlock it: %s", file->name,
              g_strerror (errno));
  return -1;
}
