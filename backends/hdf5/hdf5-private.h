/* hdf5-private.h: internals of the HDF5 (netCDF-4) format backend
 *
 * The backend is split by job:
 * - ncz-hdf5-format.c: the GObject, the file's life (open, create into a
 *   staging file beside the target, rename at close, discard), dispatch;
 * - hdf5-util.c: the module-wide HDF5 lock, HDF5 error stack → GError,
 *   type mapping, the node table;
 * - hdf5-read.c: loading a file's groups, dimensions, variables and
 *   attributes into the model (netCDF-4 conventions, phony dimensions),
 *   and the virtual attributes ncdump -s shows;
 * - hdf5-write.c: creating the HDF5 objects of the model with netCDF-4's
 *   conventions (dimension scales, _Netcdf4Dimid, ...), definition hooks;
 * - hdf5-filters.c: Ncz's codecs registered as HDF5 filters;
 * - hdf5-io.c: hyperslab I/O, with HDF5's direct chunk I/O and the codec
 *   chain on the worker pool for filtered chunked variables;
 * - hdf5-contig.c: contiguous datasets of read-only files read with
 *   pread() (or the store's ranged reads) outside libhdf5;
 * - hdf5-vfd.c: an HDF5 virtual file driver reading through an NczStore
 *   (#mode=bytes: a netCDF-4 file in S3, over https or inside a zip);
 * - hdf5-guard.c: the POSIX driver local files are opened with, and the
 *   checks both drivers make on what libhdf5 reads (global heaps).
 *
 * libhdf5 runs one call at a time at best (Debian's build is thread-safe
 * through a global lock; others are not thread-safe at all) and a
 * sequence of calls must not interleave with another thread's: every
 * HDF5 call is made with the module-wide lock held (ncz_h5_lock()), from
 * any thread.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <hdf5.h>
#include <ncz/ncz-module.h>
#include "ncz-hdf5-format.h"

G_BEGIN_DECLS

/* What the backend keeps for one object of the model. */
typedef struct {
  hid_t id;          /* the HDF5 group or dataset; H5I_INVALID_HID until
                      * opened or created */
  hid_t scale;       /* dimensions: the dimension-scale dataset (the
                      * coordinate variable's, or a dataset made for a
                      * dimension without a variable); H5I_INVALID_HID
                      * before it exists */
  gboolean attrs_dirty; /* attributes to (re)write at the next sync */
  gboolean unsupported; /* a variable of a user-defined type: listed,
                         * not readable */
  int dimid;         /* dimensions: netCDF-4's dimension id (_Netcdf4Dimid) */
  gpointer data;     /* owned by the file that created it (freed with
                      * g_free) */
  struct _NczH5Pipeline *pipeline; /* variables: the dataset's filter
                      * pipeline for direct chunk I/O (hdf5-direct.c),
                      * resolved on first use */
  struct _NczH5Contiguous *contiguous; /* variables of read-only files:
                      * where a contiguous dataset's bytes are
                      * (hdf5-contig.c), resolved on first read */
} NczH5Node;

struct _NczHdf5Format
{
  GObject parent_instance;

  NczUrl *url;
  NczStore *store;          /* the "store" property: always NULL */
  NczStore *bytes_store;    /* the store a #mode=bytes file is read through */
  char *bytes_key;          /* the file's key in @bytes_store */
  char *path;               /* local path of the file */
  char *stage_path;         /* the file being created, renamed to @path at
                             * close; NULL when the file was opened */
  int stage_fd;             /* holds a lock on @stage_path while it is
                             * written (see hdf5_create); -1 otherwise */
  hid_t file;
  gboolean writable;
  gboolean created;
  NczDataset *dataset;      /* not owned */
  GHashTable *nodes;        /* model object (not owned) → NczH5Node */
  int next_dimid;           /* the next _Netcdf4Dimid to give */
  guint superblock_version;
  char *nc_properties;      /* the root's _NCProperties as read, or NULL */
  /* read-only files: where raw chunks are read without libhdf5 (set at
   * open, see ncz_h5_open_raw_source()) */
  int raw_fd;               /* a local file's own descriptor, or -1 */
  guint64 base_addr;        /* where HDF5's address 0 is in the file (the
                             * user block's size) */
  gboolean raw_source;      /* raw_fd or bytes_store can be read from */
  guint64 raw_end;          /* the file's length when opened: no raw read
                             * goes past it */
};

/* ---- hdf5-util.c ---- */

/* The module-wide lock around every libhdf5 call (recursive). */
void ncz_h5_lock (void);
void ncz_h5_unlock (void);
/* Turns off HDF5's printing of its error stack (done once, under the lock). */
void ncz_h5_init (void);

/* Sets @error (NCZ_BACKEND_ERROR, @code) to "@format: " followed by the
 * messages of HDF5's current error stack (innermost last), and clears the
 * stack. Call with the lock held, right after the failing call. */
void ncz_h5_set_error (GError **error, gint code, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* A file access property list with netCDF-4's settings: strong close,
 * the raw data chunk cache netcdf-c uses. H5Pclose() it. */
hid_t ncz_h5_new_fapl (void);

/* hdf5-guard.c: checks on the blocks file drivers read. Calls that read
 * nothing but raw data (numeric or fixed-length values, raw chunks) are
 * put between ncz_h5_raw_reads_begin() and _end(), with the lock held. */
void ncz_h5_raw_reads_begin (void);
void ncz_h5_raw_reads_end (void);

/* What both file drivers' open files keep (hdf5-guard.c's POSIX driver,
 * hdf5-vfd.c's store driver), first in their own structures; the
 * query, get_eoa, set_eoa and get_eof callbacks below serve both. */
typedef struct {
  H5FD_t pub;           /* first: libhdf5's part */
  haddr_t eoa;
  haddr_t eof;
  guint length_size;    /* the superblock's size of lengths; 8 until read */
  guint offset_size;    /* the superblock's size of offsets; 8 until read */
  gboolean read_only;
} NczH5DriverFile;

/* Called by both drivers' open and close: the backend keeps a set of the
 * files its drivers have open (see ncz_h5_read_attribute()). */
void ncz_h5_driver_file_init (NczH5DriverFile *file, haddr_t eof, gboolean read_only);
void ncz_h5_driver_file_clear (NczH5DriverFile *file);
/* The driver file of the open HDF5 file @file, if one of the two drivers
 * holds it (lock held); NULL otherwise. */
NczH5DriverFile *ncz_h5_driver_file_of (hid_t file);
/* Both drivers' get_handle: the NczH5DriverFile itself. */
herr_t ncz_h5_driver_get_handle (H5FD_t *file, hid_t fapl, void **handle);
herr_t ncz_h5_driver_query (const H5FD_t *file, unsigned long *flags);
haddr_t ncz_h5_driver_get_eoa (const H5FD_t *file, H5FD_mem_t type);
herr_t ncz_h5_driver_set_eoa (H5FD_t *file, H5FD_mem_t type, haddr_t addr);
haddr_t ncz_h5_driver_get_eof (const H5FD_t *file, H5FD_mem_t type);
/* FALSE, with *@why set, when @size bytes at @addr are not all below
 * @file's end of allocation or, in a read-only file, run more than
 * NCZ_H5_MAX_PAST_EOF bytes past its end (libhdf5 refuses a read-only
 * file shorter than its superblock says once it has read the superblock,
 * so only a hostile superblock asks for more: zero-filling gigabytes
 * would only stall). */
#define NCZ_H5_MAX_PAST_EOF ((haddr_t) 1 << 20)
gboolean ncz_h5_driver_check_range (const NczH5DriverFile *file, haddr_t addr, size_t size,
                                    char **why);
/* Looks at a block just read into @buffer: notes a superblock's size of
 * lengths; FALSE, with *@why set, when the block starts a global heap
 * collection whose objects do not fit in it. */
gboolean ncz_h5_driver_check_read (NczH5DriverFile *file, H5FD_mem_t type,
                                   const void *buffer, gsize size, haddr_t addr,
                                   char **why);
/* pread() until @size bytes are read or the file ends: the number read,
 * or -1 with errno set. */
gssize ncz_h5_pread_all (int fd, void *buffer, gsize size, guint64 offset);
/* H5Aread() and H5Dread() (lock held), checking every variable-length
 * value (string, DIMENSION_LIST's list) they read from a file opened by
 * one of Ncz's drivers before libhdf5 follows it (a file open for
 * writing is flushed first): libhdf5 1.10 takes the length and the
 * global heap object named by the value's descriptor on trust. A value that does not name an object of its
 * collection, or whose length does not match that object, fails the
 * read with an HDF5 error that says so. Use them for every read of data
 * that may hold variable-length values. */
herr_t ncz_h5_read_attribute (hid_t attr, hid_t mem_type, void *buffer);
herr_t ncz_h5_read_dataset (hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                            void *buffer);
/* Installs the check above (at init, lock held): a conversion function
 * for variable-length data that checks, then runs libhdf5's own. */
void ncz_h5_install_vlen_check (void);

/* Sets @fapl's driver to the checking POSIX driver (existing local
 * files). Lock held. */
gboolean ncz_h5_set_posix_driver (hid_t fapl);
/* Whether the last open failed because another process holds the file's
 * lock; clears it. */
gboolean ncz_h5_take_lock_busy (void);

/* After a read-only open (lock held): makes raw chunk bytes and
 * contiguous datasets readable without libhdf5 (hdf5-direct.c,
 * hdf5-contig.c), from the file's own descriptor or the #mode=bytes
 * store, so that they are read outside the lock and, from a store, many
 * at once; notes the file's length (raw_end). Without it (a file opened
 * for writing, whose chunk cache may hold unwritten chunks) chunks go
 * through H5Dread_chunk and contiguous data through H5Dread. */
void ncz_h5_open_raw_source (NczHdf5Format *self);

/* hdf5-chunks.c: the stored size of each chunk (gint64, -1 when not
 * allocated); a contiguous or compact dataset is one chunk. Takes the lock. */
GArray *ncz_h5_query_chunks (NczHdf5Format *self, NczVariable *variable,
                             const guint64 *chunk_indices, guint n_chunks,
                             GCancellable *cancellable, GError **error);

/* Node of @object, made (with invalid ids) if missing. */
NczH5Node *ncz_h5_node (NczHdf5Format *self, gpointer object);
/* Node of @object or NULL. */
NczH5Node *ncz_h5_peek_node (NczHdf5Format *self, gpointer object);

/* Type mapping. The file type of an atomic type in @endianness (native
 * for NCZ_ENDIANNESS_NATIVE); strings are variable length. Returns a
 * type to H5Tclose(), or H5I_INVALID_HID. */
hid_t ncz_h5_file_type (NczDataType type, NczEndianness endianness);
/* The memory type of an atomic type (native order; strings variable
 * length char*). Returns a type to H5Tclose(). */
hid_t ncz_h5_mem_type (NczDataType type);
/* The model type of an HDF5 type: FALSE if it is not one netCDF-4's
 * atomic types map to (compound, enum, vlen, opaque, ...). Fixed-length
 * strings of length 1 are char; other strings are string. */
gboolean ncz_h5_type_to_ncz (hid_t type, NczDataType *out, NczEndianness *endianness);

/* The error domain used for HDF5 failures. */
#define NCZ_H5_ERROR NCZ_BACKEND_ERROR

/* ---- hdf5-read.c ---- */

/* Loads the open file's (self->file) groups, dimensions, variables and
 * attributes into @dataset's root group, recording nodes. */
gboolean ncz_h5_load (NczHdf5Format *self, NczDataset *dataset, GError **error);
GPtrArray *ncz_h5_describe_variable (NczHdf5Format *self, NczVariable *variable);
GPtrArray *ncz_h5_describe_dataset (NczHdf5Format *self, NczDataset *dataset);

/* ---- hdf5-write.c ---- */

/* Creates the new file at self->stage_path (sets self->file) with the
 * creation properties netCDF-4 uses, and writes what a new netCDF-4 file
 * holds before anything is defined (_NCProperties, ...). */
gboolean ncz_h5_create (NczHdf5Format *self, NczDataset *dataset, GError **error);
/* Creates every object of the model not yet in the file, and writes
 * attributes marked dirty. Called at sync and before slab I/O. */
gboolean ncz_h5_materialize (NczHdf5Format *self, NczDataset *dataset, GError **error);
gboolean ncz_h5_group_defined (NczHdf5Format *self, NczGroup *group,
                               NczDefinitionChange change, GError **error);
gboolean ncz_h5_dimension_defined (NczHdf5Format *self, NczDimension *dimension,
                                   NczDefinitionChange change, GError **error);
gboolean ncz_h5_variable_defined (NczHdf5Format *self, NczVariable *variable,
                                  NczDefinitionChange change, GError **error);
gboolean ncz_h5_attribute_defined (NczHdf5Format *self, GObject *owner, const char *name,
                                   NczAttribute *attribute, NczDefinitionChange change,
                                   GError **error);
/* Writes what sync stores beyond ncz_h5_materialize() (dimension lengths
 * of unlimited dimensions, ...). */
gboolean ncz_h5_sync (NczHdf5Format *self, NczDataset *dataset, GError **error);

/* ---- hdf5-filters.c ---- */

/* Ncz's codecs registered with libhdf5 as filters, so files using zstd,
 * blosc, bzip2, ... read and write without HDF5_PLUGIN_PATH (see the
 * file's comment). At init: reads which HDF5 filter ids Ncz's plugins
 * claim (manifests only). Lock held. */
void ncz_h5_register_codec_filters (void);
/* Registers filter @id with libhdf5 (once; its module is loaded when
 * libhdf5 first runs it) if an Ncz plugin claims it and libhdf5 does not
 * have it. Call for each filter of a dataset's pipeline as it is loaded,
 * and before H5Pset_filter of a filter that is not HDF5's own. Lock held. */
void ncz_h5_filter_needed (guint id);

/* ---- hdf5-io.c ---- */

/* Fills @n storage elements of @variable with its fill value. */
void ncz_h5_fill_storage (NczVariable *variable, gpointer buffer, guint64 n);
/* Extends @dset along its unlimited dimensions to hold the selection
 * (lock held). */
gboolean ncz_h5_extend_for (NczHdf5Format *self, NczVariable *variable, hid_t dset,
                            const guint64 *start, const guint64 *count, const gint64 *stride,
                            GError **error);

gboolean ncz_h5_read_slab (NczHdf5Format *self, NczVariable *variable,
                           const guint64 *start, const guint64 *count, const gint64 *stride,
                           gpointer buffer, GCancellable *cancellable, GError **error);
gboolean ncz_h5_write_slab (NczHdf5Format *self, NczVariable *variable,
                            const guint64 *start, const guint64 *count, const gint64 *stride,
                            gconstpointer buffer, GCancellable *cancellable, GError **error);

/* ---- hdf5-direct.c ---- */

/* Slab I/O of a chunked, filtered variable with HDF5's direct chunk I/O
 * (raw chunks read and written under the lock) and Ncz's codec chain run
 * on the worker pool without it. Sets *@handled to FALSE, returning TRUE,
 * when the variable is not one it does (then hdf5-io.c does plain
 * H5Dread/H5Dwrite). Take the lock themselves. */
gboolean ncz_h5_direct_read (NczHdf5Format *self, NczVariable *variable,
                             const guint64 *start, const guint64 *count, const gint64 *stride,
                             gpointer buffer, gboolean *handled,
                             GCancellable *cancellable, GError **error);
gboolean ncz_h5_direct_write (NczHdf5Format *self, NczVariable *variable,
                              const guint64 *start, const guint64 *count, const gint64 *stride,
                              gconstpointer buffer, gboolean *handled,
                              GCancellable *cancellable, GError **error);

/* Frees a node's pipeline (NULL is fine). */
void ncz_h5_pipeline_free (struct _NczH5Pipeline *pipeline);

/* ---- hdf5-contig.c ---- */

/* Reads a hyperslab of a contiguous dataset of a read-only file without
 * libhdf5 (pread into @buffer, or the store's ranged reads), on the
 * worker pool when it is large. Sets *@handled to FALSE, returning TRUE,
 * when the variable or the selection is not one it reads (then
 * hdf5-io.c does plain H5Dread). Takes the lock itself. */
gboolean ncz_h5_contiguous_read (NczHdf5Format *self, NczVariable *variable,
                                 const guint64 *start, const guint64 *count,
                                 const gint64 *stride, gpointer buffer, gboolean *handled,
                                 GCancellable *cancellable, GError **error);
/* Frees a node's contiguous layout (NULL is fine). */
void ncz_h5_contiguous_free (struct _NczH5Contiguous *contiguous);

/* ---- hdf5-vfd.c ---- */

/* The blocks the store driver caches; a raw data read of a block or more
 * goes to the store directly. */
#define NCZ_H5_STORE_BLOCK_SIZE (G_GUINT64_CONSTANT (64) * 1024)

/* Opens the file of a URL that is not a local file, or has mode "bytes":
 * opens its store (self->bytes_store) and key (self->bytes_key) and the
 * file read-only through the store driver (sets self->file). Lock held. */
gboolean ncz_h5_open_bytes (NczHdf5Format *self, GError **error);

G_END_DECLS
