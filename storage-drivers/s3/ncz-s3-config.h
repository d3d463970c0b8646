/* ncz-s3-config.h: where an S3 dataset is and how to reach it (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

typedef enum {
  NCZ_S3_STYLE_PATH,    /* scheme://host/bucket/key */
  NCZ_S3_STYLE_VIRTUAL, /* scheme://bucket.host/key */
} NczS3Style;

#define NCZ_S3_DEFAULT_REGION "us-east-1"
#define NCZ_S3_DEFAULT_TIMEOUT 30
#define NCZ_S3_DEFAULT_RETRIES 5
#define NCZ_S3_DEFAULT_REPLACE_STALE 300
#define NCZ_S3_MAX_KEY_BYTES 1024

typedef struct
{
  char *bucket;
  char *prefix;        /* decoded root key prefix, no leading or trailing '/' */
  char *region;
  char *profile;       /* the active profile; "none": unsigned requests */
  char *scheme;        /* "http" or "https" */
  char *host;          /* the host requests go to (with the bucket in virtual style) */
  int port;            /* -1: the scheme's default */
  NczS3Style style;
  char *access_key;    /* NULL: unsigned requests */
  char *secret_key;
  char *session_token;
  guint timeout;       /* seconds per attempt */
  guint retries;       /* extra attempts on retryable failures */
  guint replace_stale; /* seconds a replacement's generation record lives without heartbeat */
  gboolean tls_verify;
} NczS3Config;

NczS3Config *ncz_s3_config_resolve (NczUrl        *url,
                                    GCancellable  *cancellable,
                                    GError       **error);
void ncz_s3_config_free (NczS3Config *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NczS3Config, ncz_s3_config_free)

/* "scheme://host[:port]" of the requests, for messages */
char *ncz_s3_config_endpoint (const NczS3Config *config);

/* Whether @host is an Amazon S3 host name; its bucket (virtual style)
 * and region when it names them. */
gboolean ncz_s3_parse_aws_host (const char  *host,
                                char       **bucket,
                                char       **region);

G_END_DECLS
