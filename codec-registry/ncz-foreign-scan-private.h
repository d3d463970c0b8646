/* ncz-foreign-scan-private.h: what the parts of the foreign-library scan
 * share; internal to codec-registry/ (see ncz-foreign-scan.h).
 *
 *   ncz-foreign-scan.c   the scan object, its search path and lookups
 *   ncz-foreign-probe.c  probing libraries: loading, asking for the ABIs
 *   ncz-foreign-host.c   host libraries made global for foreign ones
 *   ncz-foreign-pair.c   the pairing table
 *   ncz-foreign-run.c    running paired filters (JSON, working
 *                        parameters, the HDF5 filter function)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "ncz-foreign-scan.h"

G_BEGIN_DECLS

#ifndef NCZ_FOREIGN_DEFAULT_DIR
#define NCZ_FOREIGN_DEFAULT_DIR "/usr/local/hdf5/lib/plugin"
#endif

/* Sonames tried, in order, when libhdf5 must be provided to foreign
 * libraries (Debian, then plain builds of HDF5 1.10, 1.12, 1.14).
 * Packagers may override it with -D. */
#ifndef NCZ_FOREIGN_HDF5_LIBRARIES
#define NCZ_FOREIGN_HDF5_LIBRARIES \
  "libhdf5_serial.so.103:libhdf5.so.103:libhdf5.so.200:libhdf5.so.310:libhdf5.so"
#endif

#define HDF5_FILTER_MAX 65535
#define CODEC_ID_MAX 128
#define MAX_DEFAULTS 1024
#define MAX_HOST_LIBRARIES 16
#define MAX_PARAMS 4096
#define NCZ_MODULE_PREFIX "libncz-codec-"

typedef NczAbiCodec const *AbiCodecPtr;
typedef const char * const *(*NczCodecHostLibrariesFunc) (void);

/* One library found in the search path */
typedef struct {
  char *path;
  void *handle;
  char *broken;                  /* why it cannot be used, or NULL */
  char *load_error;              /* dlopen's error for an undefined symbol */
  gboolean retry;                /* failed for an undefined symbol: try again */
  gboolean lazy;                 /* opened lazily only to be listed */
  gboolean ncz_module;
  const NczH5ZClass2 *h5;        /* HDF5 part, or NULL */
  const NczAbiCodec *codec;      /* Codec part, or NULL */
  GPtrArray *defaults;           /* AbiCodecPtr, when a defaults library */
  NczCodecHostLibrariesFunc host_libraries;
} Candidate;

/* One filter id of the pairing table, while pairing */
typedef struct {
  guint id;
  guint order;                   /* when it was first seen */
  Candidate *first;
  Candidate *h5_lib;
  const NczH5ZClass2 *h5;
  Candidate *codec_lib;
  const NczAbiCodec *codec;
  gboolean codec_default;
} Slot;

typedef struct {
  NczForeignRow pub;
  const NczH5ZClass2 *h5;
  const NczAbiCodec *codec;
  gsize initialized;
} Row;

struct _NczForeignScan
{
  gint ref_count;
  GStringChunk *strings;
  GPtrArray *dirs;               /* char*, NULL-terminated */
  GPtrArray *sources;            /* const char* (static) */
  GArray *exists;                /* gboolean */
  GPtrArray *host_libraries;     /* char*, NULL-terminated */
  GPtrArray *rows;               /* Row*, owned */
};

/* Foreign libraries may share one libhdf5 that is not thread-safe, and
 * most were never written to be called from several threads. */
extern GMutex ncz_foreign_lock;

static inline const char *
ncz_foreign_intern (NczForeignScan *self,
                    const char     *str)
{
  return str != NULL ? g_string_chunk_insert_const (self->strings, str) : NULL;
}

/* ncz-foreign-probe.c */
void ncz_foreign_candidate_free (gpointer data);
/* Loads @c and asks it for the ABIs; @lazy: only to list it. */
void ncz_foreign_candidate_open (Candidate *c, gboolean lazy);
/* Adds a candidate for every library of @dirname, in name order. */
void ncz_foreign_scan_directory (const char *dirname, GPtrArray *candidates);

/* ncz-foreign-host.c: provides libhdf5 and what the loaded Codec
 * libraries ask for; TRUE if something new was loaded. */
gboolean ncz_foreign_provide_host_libraries (NczForeignScan *self, GPtrArray *candidates);

/* ncz-foreign-pair.c: the pairing table of @candidates into self->rows. */
void ncz_foreign_pair (NczForeignScan *self, GPtrArray *candidates);

G_END_DECLS
