/* ncz-s3-sign.h: AWS Signature Version 4 for S3 requests (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The hex SHA-256 of an empty body. */
#define NCZ_S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct
{
  const char *name;  /* any case; signed in lower case */
  const char *value; /* trimmed, inner runs of spaces folded, when signed */
} NczS3Header;

/* Percent-encodes @text as SigV4 wants: every byte but A-Z a-z 0-9 - _ . ~
 * becomes %XX (upper-case hex); '/' is kept when @keep_slash. */
char *ncz_s3_uri_encode (const char *text, gssize length, gboolean keep_slash);

/* Hex SHA-256 of @data (NULL: empty). */
char *ncz_s3_sha256_hex (GBytes *data);

/* Base64 MD5 of @data, for Content-MD5. */
char *ncz_s3_md5_base64 (GBytes *data);

/* "20130524T000000Z" for @time (UTC). */
char *ncz_s3_amz_date (GDateTime *time);

/* The canonical query string from decoded name/value pairs (@pairs is
 * name, value, name, value, …, NULL; a NULL value is an empty one). */
char *ncz_s3_canonical_query (const char * const *pairs);

/* The canonical request. @canonical_uri is already encoded (see
 * ncz_s3_uri_encode with keep_slash); @canonical_query from
 * ncz_s3_canonical_query. @signed_headers receives "a;b;c". */
char *ncz_s3_canonical_request (const char        *method,
                                const char        *canonical_uri,
                                const char        *canonical_query,
                                const NczS3Header *headers,
                                guint              n_headers,
                                const char        *payload_hash,
                                char             **signed_headers);

char *ncz_s3_string_to_sign (const char *amz_date,
                             const char *region,
                             const char *canonical_request);

/* The hex signature of @string_to_sign. */
char *ncz_s3_signature (const char *secret_key,
                        const char *amz_date,
                        const char *region,
                        const char *string_to_sign);

/* The whole Authorization header value for a request. */
char *ncz_s3_authorization (const char        *access_key,
                            const char        *secret_key,
                            const char        *region,
                            const char        *amz_date,
                            const char        *method,
                            const char        *canonical_uri,
                            const char        *canonical_query,
                            const NczS3Header *headers,
                            guint              n_headers,
                            const char        *payload_hash);

G_END_DECLS
