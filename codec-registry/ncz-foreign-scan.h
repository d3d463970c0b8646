/* ncz-foreign-scan.h: foreign HDF5 filter and Codec libraries, paired
 *
 * The scan of HDF5_PLUGIN_PATH and the pairing table of filters.md
 * ("Using Plugin Libraries"), for the codec-registry module, ncz-inspect
 * and the tests. Built as a static library (ncz_foreign_scan_dep); not
 * installed. Plain C on purpose: every program or module that links it
 * has its own copy, and a copy registers no GType.
 *
 * Search path: the directories of HDF5_PLUGIN_PATH (':'-separated), then
 * /usr/local/hdf5/lib/plugin (listed even when it does not exist, so that
 * tools can show it; a missing directory gives nothing). Directories are
 * read in order, the entries of each sorted by name (the first library
 * found for a filter id wins, so the order must not depend on the file
 * system). In each directory every regular file named
 * lib*.so* (a ".so" extension segment: libx.so, libx.so.1) is loaded and
 * asked for:
 *  - the HDF5 plugin ABI: H5PLget_plugin_type () == H5PL_TYPE_FILTER and
 *    H5PLget_plugin_info () -> H5Z_class2_t of version 1;
 *  - the Codec ABI: NCZ_get_codec_info () -> NCZ_codec_t of version 1,
 *    sort 1; or NCZ_codec_info_defaults () -> a NULL-terminated vector of
 *    them (a "defaults library", used only for filter ids nothing else
 *    gives a Codec part).
 * The pairing is by HDF5 filter id: the first library found for an id
 * fills its HDF5 slot and/or its Codec slot; an id with both is usable
 * for NCZarr, an HDF5 part alone is not (until a Codec library for the
 * same id is added), a Codec part alone is ignored. Later libraries for a
 * filled slot are listed as duplicates. A library that cannot be used
 * (not loadable, wrong struct version, not a filter, ids that disagree,
 * neither ABI) is listed as broken with the reason and the scan goes on.
 * Ncz's own codec modules (libncz-codec-*.so, or a library exporting the
 * entry point its file name implies: libncz-codec-zstd.so or libzstd.so →
 * ncz_plugin_zstd_describe) export both ABIs but are served natively;
 * they are listed and left out of the pairing.
 *
 * Loading: dlopen (RTLD_NOW | RTLD_LOCAL), so that a library using a
 * symbol nothing provides fails now instead of aborting the process at
 * its first call (RTLD_LAZY would). netcdf-c loads with RTLD_GLOBAL so its
 * codec libraries can call nc_inq_* back in the host; Ncz offers no
 * nc_inq_* symbols and never calls NCZ_modify_parameters (see
 * ncz_foreign_working_params). A library failing for an undefined symbol
 * is tried again after the scan made its host libraries global: libhdf5
 * (HDF5 filter plugins may rely on the HDF5 host for it) and the
 * libraries Codec libraries name through the Ncz extension
 *   const char * const *ncz_codec_host_libraries (void);
 * (a NULL-terminated list of sonames the paired HDF5 library needs from
 * its host). If it still fails, it is opened lazily only to be listed (an
 * HDF5 part found that way is never used; it is closed again). Libraries
 * that loaded are never closed, used or not: unloading third-party code
 * (constructors, atexit handlers, memory its globals hold) is a risk for
 * little gain.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz-module.h>

G_BEGIN_DECLS

/*
 * NczForeignStatus:
 * @NCZ_FOREIGN_USABLE: HDF5 + Codec part: usable for NCZarr
 * @NCZ_FOREIGN_HDF5_ONLY: an HDF5 part without a Codec part: not usable
 *   for NCZarr until a Codec library for the same id is present
 * @NCZ_FOREIGN_CODEC_ONLY: a Codec part without an HDF5 part: ignored
 * @NCZ_FOREIGN_DUPLICATE: a library (or a defaults-library codec) for an
 *   id whose slot an earlier one filled: skipped
 * @NCZ_FOREIGN_BROKEN: a library that cannot be used: skipped (see reason)
 * @NCZ_FOREIGN_NCZ_MODULE: one of Ncz's own codec modules: served
 *   natively through NCZ_PLUGIN_PATH, not paired here
 */
typedef enum {
  NCZ_FOREIGN_USABLE,
  NCZ_FOREIGN_HDF5_ONLY,
  NCZ_FOREIGN_CODEC_ONLY,
  NCZ_FOREIGN_DUPLICATE,
  NCZ_FOREIGN_BROKEN,
  NCZ_FOREIGN_NCZ_MODULE,
} NczForeignStatus;

/*
 * NczForeignRow:
 * One row of the pairing table (USABLE, HDF5_ONLY, CODEC_ONLY: one per
 * filter id) or one skipped library (DUPLICATE, BROKEN, NCZ_MODULE).
 * Strings belong to the scan.
 */
typedef struct {
  guint filter_id;             /* HDF5 filter id; 0 when unknown (broken library) */
  const char *codec_id;        /* Zarr codec id of the Codec part; NULL if none */
  const char *library;         /* the library the row is about: the skipped
                                  library, or the first one found for the id */
  const char *hdf5_library;    /* path of the HDF5 part's library, or NULL */
  const char *codec_library;   /* path of the Codec part's library, or NULL */
  const char *hdf5_name;       /* the H5Z_class2_t name, or NULL */
  gboolean codec_is_default;   /* the Codec part comes from a defaults library */
  NczForeignStatus status;
  const char *reason;          /* why it is not usable or was skipped; NULL if usable */
} NczForeignRow;

typedef struct _NczForeignScan NczForeignScan;

/* The scan of the process: HDF5_PLUGIN_PATH (ignored in setuid programs)
 * then /usr/local/hdf5/lib/plugin, done the first time it is asked for,
 * from any thread. Transfer none; never freed. Later changes of
 * HDF5_PLUGIN_PATH are not seen. */
NczForeignScan *ncz_foreign_scan_get_default (void);

/* A new scan of @dirs (NULL-terminated; NULL for none), done now, with
 * search-path source "explicit". Transfer full. */
NczForeignScan *ncz_foreign_scan_new (const char * const *dirs);

/* A new scan of the search path the default scan would use, done now. */
NczForeignScan *ncz_foreign_scan_new_from_environment (void);

NczForeignScan *ncz_foreign_scan_ref (NczForeignScan *self);
/* Libraries in use stay loaded. */
void ncz_foreign_scan_unref (NczForeignScan *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczForeignScan, ncz_foreign_scan_unref)

/* The directories searched, in order (NULL-terminated, owned by @self),
 * and for each where it came from: "HDF5_PLUGIN_PATH", "default" or
 * "explicit", and whether it was an existing directory. */
const char * const *ncz_foreign_scan_get_search_path (NczForeignScan *self);
const char *ncz_foreign_scan_get_search_path_source (NczForeignScan *self, guint index);
gboolean ncz_foreign_scan_get_search_path_exists (NczForeignScan *self, guint index);

/* Libraries the scan loaded into the global symbol scope so that foreign
 * libraries built without linking what they use could load: libhdf5, as
 * an HDF5 host provides it, and those a Codec library names through
 * ncz_codec_host_libraries () (see below). NULL-terminated, owned by
 * @self; empty when nothing needed them. */
const char * const *ncz_foreign_scan_get_host_libraries (NczForeignScan *self);

/* The rows: the pairing table by increasing filter id, then the skipped
 * libraries in the order they were found. */
guint ncz_foreign_scan_get_n_rows (NczForeignScan *self);
const NczForeignRow *ncz_foreign_scan_get_row (NczForeignScan *self, guint index);

/* The pairing-table row (USABLE, HDF5_ONLY or CODEC_ONLY) for @filter_id
 * (when non-zero) or for the Zarr @codec_id, or NULL. */
const NczForeignRow *ncz_foreign_scan_lookup (NczForeignScan *self, guint filter_id,
                                              const char *codec_id);

/* "usable", "hdf5-only", "codec-only", "duplicate", "broken", "ncz-module" */
const char *ncz_foreign_status_to_string (NczForeignStatus status);

/* Working parameters Ncz derives itself for the filter ids whose layout
 * it knows (the foreign NCZ_modify_parameters needs netcdf-c's nc_inq_*
 * functions, which Ncz does not offer): shuffle (2) [type size],
 * fletcher32 (3) [], blosc (32001) [2, 2, type size, chunk bytes, clevel,
 * shuffle, compcode], LZF (32000) [4, 0x0105, chunk bytes], bitshuffle
 * (32008) [v0, v1, type size, block, compression]; every other id uses
 * the visible parameters. @type_size and @chunk_bytes may be 0 (unknown).
 * Returns a new array of guint. */
GArray *ncz_foreign_working_params (guint filter_id, const guint *visible, gsize n_visible,
                                    gsize type_size, gsize chunk_bytes);

/* Using a USABLE row (from any thread). Errors are NCZ_CODEC_ERROR and
 * name the library. The first use of a row calls its codec's
 * NCZ_codec_initialize. */
gboolean ncz_foreign_row_params_from_json (const NczForeignRow *row, const char *json,
                                           GArray **params, GError **error);
char *ncz_foreign_row_params_to_json (const NczForeignRow *row, const guint *params,
                                      gsize n_params, GError **error);
/* Runs the HDF5 filter function over a malloc'd copy of @input (flags 0,
 * or H5Z_FLAG_REVERSE when @reverse). Calls into foreign libraries are
 * serialised: they may share a non-thread-safe libhdf5. */
GBytes *ncz_foreign_row_filter (const NczForeignRow *row, gboolean reverse,
                                const guint *working, gsize n_working, GBytes *input,
                                GError **error);

G_END_DECLS
