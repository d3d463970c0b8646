/* ncz-cdl.h: CDL text to an Ncz dataset, as ncz-gen does it
 *
 * The CDL accepted is what ncdump and ncz-dump print for the netCDF-4
 * data model without user-defined types: dimensions (fixed and
 * unlimited), variables of the atomic types, groups, attributes with
 * typed constants, the special (virtual) attributes of `ncdump -s`, and
 * data sections. Errors are NCZ_CDL_ERROR with messages of the form
 * "source:line:column: what is wrong".
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

#define NCZ_CDL_ERROR (ncz_cdl_error_quark ())
GQuark ncz_cdl_error_quark (void);

typedef enum {
  NCZ_CDL_ERROR_SYNTAX,        /* the text is not CDL */
  NCZ_CDL_ERROR_INVALID,       /* CDL that does not describe a valid dataset */
  NCZ_CDL_ERROR_UNSUPPORTED,   /* valid CDL that Ncz cannot represent */
  NCZ_CDL_ERROR_LIMIT,         /* more data than the caller allows */
} NczCdlError;

/* Defines the dataset described by @text (@length bytes, -1 for up to the
 * NUL) in @dataset, which must be writable and empty, and writes its data.
 * @source_name names the text in error messages. When @max_data_elements
 * is not 0, a data section of a variable longer than that, or a variable
 * whose chunks are larger than that many bytes, is an error
 * (NCZ_CDL_ERROR_LIMIT) rather than allocated. @dataset_name receives the
 * name after `netcdf` when not NULL. The dataset is not closed. */
gboolean ncz_cdl_generate_into (const char *text, gssize length,
                                const char *source_name, NczDataset *dataset,
                                guint64 max_data_elements, char **dataset_name,
                                GError **error);

/* Creates the dataset at @url and fills it from @text, then closes it.
 * On failure the new dataset is discarded, leaving what was at @url before
 * (on stores that stage, such as the file store: nothing, if nothing was
 * there). */
gboolean ncz_cdl_generate (const char *text, gssize length,
                           const char *source_name, const char *url,
                           NczCreateFlags flags, GError **error);

/* Parses @text and defines it in a dataset held in memory (data sections
 * of at most @max_data_elements elements each, 0 for no limit), then
 * discards it: a check that writes nothing to disk. */
gboolean ncz_cdl_check (const char *text, gssize length, const char *source_name,
                        guint64 max_data_elements, GError **error);

G_END_DECLS
