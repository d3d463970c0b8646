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

static guint
length_size_of (const void *buffer, gsize size, guint current)
{
  const guint8 *p = buffer;
  guint found;

  if (size < 16 || memcmp (p, FILE_SIGNATURE, 8) != 0)
    return current;
  /* versions 0 and 1 say the sizes of offsets and lengths at bytes 13
   * and 14, versions 2 and 3 at bytes 9 and 10 */
  found = p[8] <= 1 ? p[14] : p[10];
  return found >= 2 && found <= 8 ? found : 0;
}

static gboolean
check_heap_read (const void *buffer, gsize size, guint64 addr, guint length_size,
                 char **why)
{
  const guint8 *p = buffer;
  guint64 collection, available, off, header, object_header;
  guint n = 0;

  if (raw_reads > 0 || length_size == 0 || size < 8 + length_size ||
      memcmp (p, HEAP_SIGNATURE, 4) != 0 || p[4] != 1)
    return TRUE;
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
      off += need;
    }
  return TRUE;
}

/* ---- what both drivers share ---- */

void
ncz_h5_driver_file_init (NczH5DriverFile *file, haddr_t eof, gboolean read_only)
{
  file->eoa = 0;
  file->eof = eof;
  file->length_size = 8;
  file->read_only = read_only;
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
    file->length_size = length_size_of (buffer, size, file->length_size);
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
static herr_t posix_get_handle (H5FD_t *file, hid_t fapl, void **handle);
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
  .get_handle = posix_get_handle,
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
posix_get_handle (H5FD_t *file, hid_t fapl, void **handle)
{
  *handle = &((PosixFile *) file)->fd;
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

static herr_t
posix_lock (H5FD_t *_file, hbool_t rw)
{
  PosixFile *file = (PosixFile *) _file;

  if (flock (file->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 || errno == ENOSYS)
    return 0;
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
