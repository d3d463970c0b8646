/* ncz-s3-sign.c: AWS Signature Version 4 for S3 requests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-s3-sign.h"

#include <string.h>

char *
ncz_s3_uri_encode (const char *text,
                   gssize      length,
                   gboolean    keep_slash)
{
  static const char hex[] = "0123456789ABCDEF";
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  GString *s = g_string_sized_new (len + 16);

  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) text[i];

      if (g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.' || c == '~'
          || (keep_slash && c == '/'))
        g_string_append_c (s, (char) c);
      else
        {
          g_string_append_c (s, '%');
          g_string_append_c (s, hex[c >> 4]);
          g_string_append_c (s, hex[c & 15]);
        }
    }
  return g_string_free (s, FALSE);
}

char *
ncz_s3_sha256_hex (GBytes *data)
{
  gsize size = 0;
  const guchar *bytes = data != NULL ? g_bytes_get_data (data, &size) : NULL;

  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, bytes != NULL ? bytes : (const guchar *) "", size);
}

char *
ncz_s3_md5_base64 (GBytes *data)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_MD5);
  guint8 digest[16];
  gsize digest_len = sizeof digest;
  gsize size = 0;
  const guchar *bytes = data != NULL ? g_bytes_get_data (data, &size) : NULL;

  if (size > 0)
    g_checksum_update (sum, bytes, size);
  g_checksum_get_digest (sum, digest, &digest_len);
  return g_base64_encode (digest, digest_len);
}

char *
ncz_s3_amz_date (GDateTime *time)
{
  g_autoptr(GDateTime) utc = g_date_time_to_utc (time);

  return g_date_time_format (utc, "%Y%m%dT%H%M%SZ");
}

typedef struct
{
  char *name;
  char *value;
} Pair;

static int
compare_pairs (gconstpointer a,
               gconstpointer b)
{
  const Pair *pa = a;
  const Pair *pb = b;
  int c = strcmp (pa->name, pb->name);

  return c != 0 ? c : strcmp (pa->value, pb->value);
}

char *
ncz_s3_canonical_query (const char * const *pairs)
{
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (Pair));
  GString *s = g_string_new (NULL);

  for (guint i = 0; pairs != NULL && pairs[i] != NULL; i += 2)
    {
      Pair p;

      p.name = ncz_s3_uri_encode (pairs[i], -1, FALSE);
      p.value = ncz_s3_uri_encode (pairs[i + 1] != NULL ? pairs[i + 1] : "", -1, FALSE);
      g_array_append_val (items, p);
    }
  g_array_sort (items, compare_pairs);
  for (guint i = 0; i < items->len; i++)
    {
      Pair *p = &g_array_index (items, Pair, i);

      if (i > 0)
        g_string_append_c (s, '&');
      g_string_append (s, p->name);
      g_string_append_c (s, '=');
      g_string_append (s, p->value);
      g_free (p->name);
      g_free (p->value);
    }
  return g_string_free (s, FALSE);
}

/* Header value as signed: leading/trailing space removed, inner runs of
 * spaces folded to one. */
static void
append_trimmed (GString    *s,
                const char *value)
{
  gboolean space = FALSE;
  gboolean started = FALSE;

  for (const char *p = value; *p; p++)
    {
      if (*p == ' ' || *p == '\t')
        {
          space = started;
          continue;
        }
      if (space)
        g_string_append_c (s, ' ');
      space = FALSE;
      started = TRUE;
      g_string_append_c (s, *p);
    }
}

char *
ncz_s3_canonical_request (const char        *method,
                          const char        *canonical_uri,
                          const char        *canonical_query,
                          const NczS3Header *headers,
                          guint              n_headers,
                          const char        *payload_hash,
                          char             **signed_headers)
{
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (Pair));
  GString *s = g_string_new (method);
  GString *names = g_string_new (NULL);

  g_string_append_c (s, '\n');
  g_string_append (s, canonical_uri);
  g_string_append_c (s, '\n');
  g_string_append (s, canonical_query != NULL ? canonical_query : "");
  g_string_append_c (s, '\n');

  for (guint i = 0; i < n_headers; i++)
    {
      Pair p;
      GString *v = g_string_new (NULL);

      p.name = g_ascii_strdown (headers[i].name, -1);
      append_trimmed (v, headers[i].value);
      p.value = g_string_free (v, FALSE);
      g_array_append_val (items, p);
    }
  g_array_sort (items, compare_pairs);
  for (guint i = 0; i < items->len; i++)
    {
      Pair *p = &g_array_index (items, Pair, i);

      g_string_append_printf (s, "%s:%s\n", p->name, p->value);
      if (i > 0)
        g_string_append_c (names, ';');
      g_string_append (names, p->name);
      g_free (p->name);
      g_free (p->value);
    }
  g_string_append_c (s, '\n');
  g_string_append (s, names->str);
  g_string_append_c (s, '\n');
  g_string_append (s, payload_hash);
  if (signed_headers != NULL)
    *signed_headers = g_string_free (names, FALSE);
  else
    g_string_free (names, TRUE);
  return g_string_free (s, FALSE);
}

char *
ncz_s3_string_to_sign (const char *amz_date,
                       const char *region,
                       const char *canonical_request)
{
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical_request, -1);

  return g_strdup_printf ("AWS4-HMAC-SHA256\n%s\n%.8s/%s/s3/aws4_request\n%s",
                          amz_date, amz_date, region, hash);
}

/* HMAC-SHA256 of @data under @key into @out (32 bytes). */
static void
hmac (const guint8 *key,
      gsize         key_len,
      const char   *data,
      guint8       *out)
{
  g_autoptr(GHmac) h = g_hmac_new (G_CHECKSUM_SHA256, key, key_len);
  gsize len = 32;

  g_hmac_update (h, (const guchar *) data, (gssize) strlen (data));
  g_hmac_get_digest (h, out, &len);
}

char *
ncz_s3_signature (const char *secret_key,
                  const char *amz_date,
                  const char *region,
                  const char *string_to_sign)
{
  g_autofree char *k_secret = g_strconcat ("AWS4", secret_key, NULL);
  char day[9];
  guint8 k1[32], k2[32], k3[32], k4[32];
  char *result;

  g_strlcpy (day, amz_date, sizeof day);
  hmac ((const guint8 *) k_secret, strlen (k_secret), day, k1);
  hmac (k1, sizeof k1, region, k2);
  hmac (k2, sizeof k2, "s3", k3);
  hmac (k3, sizeof k3, "aws4_request", k4);
  result = g_compute_hmac_for_string (G_CHECKSUM_SHA256, k4, sizeof k4, string_to_sign, -1);
  /* the derived keys are as secret as the key itself */
  memset (k_secret, 0, strlen (k_secret));
  memset (k1, 0, sizeof k1);
  memset (k2, 0, sizeof k2);
  memset (k3, 0, sizeof k3);
  memset (k4, 0, sizeof k4);
  return result;
}

char *
ncz_s3_authorization (const char        *access_key,
                      const char        *secret_key,
                      const char        *region,
                      const char        *amz_date,
                      const char        *method,
                      const char        *canonical_uri,
                      const char        *canonical_query,
                      const NczS3Header *headers,
                      guint              n_headers,
                      const char        *payload_hash)
{
  g_autofree char *signed_headers = NULL;
  g_autofree char *request = ncz_s3_canonical_request (method, canonical_uri, canonical_query,
                                                       headers, n_headers, payload_hash,
                                                       &signed_headers);
  g_autofree char *sts = ncz_s3_string_to_sign (amz_date, region, request);
  g_autofree char *signature = ncz_s3_signature (secret_key, amz_date, region, sts);

  return g_strdup_printf ("AWS4-HMAC-SHA256 Credential=%s/%.8s/%s/s3/aws4_request,"
                          "SignedHeaders=%s,Signature=%s",
                          access_key, amz_date, region, signed_headers, signature);
}
