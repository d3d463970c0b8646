/* test-s3-sign.c: the AWS Signature V4 signer against AWS's published
 * examples, the payload hash and the S3 XML reader
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "ncz-s3-sign.h"
#include "ncz-s3-xml.h"

/* The example credentials of the AWS S3 SigV4 documentation. */
#define EXAMPLE_ACCESS_KEY "AKIAIOSFODNN7EXAMPLE"
#define EXAMPLE_SECRET_KEY "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define EXAMPLE_DATE "20130524T000000Z"

/* "GET Object": the first 10 bytes of examplebucket/test.txt. */
static void
test_get_object (void)
{
  NczS3Header headers[] = {
    { "Host", "examplebucket.s3.amazonaws.com" },
    { "Range", "bytes=0-9" },
    { "x-amz-content-sha256", NCZ_S3_EMPTY_SHA256 },
    { "x-amz-date", EXAMPLE_DATE },
  };
  g_autofree char *signed_headers = NULL;
  g_autofree char *request = ncz_s3_canonical_request ("GET", "/test.txt", "", headers,
                                                       G_N_ELEMENTS (headers), NCZ_S3_EMPTY_SHA256,
                                                       &signed_headers);
  g_autofree char *sts = ncz_s3_string_to_sign (EXAMPLE_DATE, "us-east-1", request);
  g_autofree char *signature = ncz_s3_signature (EXAMPLE_SECRET_KEY, EXAMPLE_DATE, "us-east-1", sts);
  g_autofree char *authorization = ncz_s3_authorization (EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET_KEY,
                                                         "us-east-1", EXAMPLE_DATE, "GET", "/test.txt",
                                                         "", headers, G_N_ELEMENTS (headers),
                                                         NCZ_S3_EMPTY_SHA256);

  g_assert_cmpstr (signed_headers, ==, "host;range;x-amz-content-sha256;x-amz-date");
  g_assert_cmpstr (request, ==,
                   "GET\n/test.txt\n\n"
                   "host:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                   "x-amz-content-sha256:" NCZ_S3_EMPTY_SHA256 "\n"
                   "x-amz-date:" EXAMPLE_DATE "\n\n"
                   "host;range;x-amz-content-sha256;x-amz-date\n" NCZ_S3_EMPTY_SHA256);
  g_assert_cmpstr (sts, ==,
                   "AWS4-HMAC-SHA256\n" EXAMPLE_DATE "\n20130524/us-east-1/s3/aws4_request\n"
                   "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  g_assert_cmpstr (signature, ==, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  g_assert_cmpstr (authorization, ==,
                   "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                   "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                   "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

/* "GET Bucket (List Objects)": GET /?max-keys=2&prefix=J */
static void
test_list_objects (void)
{
  const char *q[] = { "prefix", "J", "max-keys", "2", NULL };
  g_autofree char *query = ncz_s3_canonical_query (q);
  NczS3Header headers[] = {
    { "host", "examplebucket.s3.amazonaws.com" },
    { "x-amz-date", EXAMPLE_DATE },
    { "x-amz-content-sha256", NCZ_S3_EMPTY_SHA256 },
  };
  g_autofree char *authorization = NULL;

  /* sorted by name whatever the order given */
  g_assert_cmpstr (query, ==, "max-keys=2&prefix=J");
  authorization = ncz_s3_authorization (EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET_KEY, "us-east-1",
                                        EXAMPLE_DATE, "GET", "/", query, headers,
                                        G_N_ELEMENTS (headers), NCZ_S3_EMPTY_SHA256);
  g_assert_true (g_str_has_suffix (authorization,
                                   "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
}

/* "GET Bucket Lifecycle": GET /?lifecycle (a query name without value) */
static void
test_get_lifecycle (void)
{
  const char *q[] = { "lifecycle", "", NULL };
  g_autofree char *query = ncz_s3_canonical_query (q);
  NczS3Header headers[] = {
    { "host", "examplebucket.s3.amazonaws.com" },
    { "x-amz-date", EXAMPLE_DATE },
    { "x-amz-content-sha256", NCZ_S3_EMPTY_SHA256 },
  };
  g_autofree char *authorization = NULL;

  g_assert_cmpstr (query, ==, "lifecycle=");
  authorization = ncz_s3_authorization (EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET_KEY, "us-east-1",
                                        EXAMPLE_DATE, "GET", "/", query, headers,
                                        G_N_ELEMENTS (headers), NCZ_S3_EMPTY_SHA256);
  g_assert_true (g_str_has_suffix (authorization,
                                   "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
}

/* "PUT Object": the body "Welcome to Amazon S3." signed with its hash. */
static void
test_put_object (void)
{
  static const char body_text[] = "Welcome to Amazon S3.";
  g_autoptr(GBytes) body = g_bytes_new_static (body_text, strlen (body_text));
  g_autofree char *hash = ncz_s3_sha256_hex (body);
  g_autofree char *path = ncz_s3_uri_encode ("test$file.text", -1, TRUE);
  NczS3Header headers[] = {
    { "Host", "examplebucket.s3.amazonaws.com" },
    { "Date", "Fri, 24 May 2013 00:00:00 GMT" },
    { "x-amz-date", EXAMPLE_DATE },
    { "x-amz-storage-class", "REDUCED_REDUNDANCY" },
    { "x-amz-content-sha256", hash },
  };
  g_autofree char *authorization = NULL;
  g_autofree char *uri = g_strconcat ("/", path, NULL);

  g_assert_cmpstr (hash, ==, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  g_assert_cmpstr (uri, ==, "/test%24file.text");
  authorization = ncz_s3_authorization (EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET_KEY, "us-east-1",
                                        EXAMPLE_DATE, "PUT", uri, "", headers,
                                        G_N_ELEMENTS (headers), hash);
  g_assert_true (g_str_has_suffix (authorization,
                                   "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;"
                                   "x-amz-storage-class,"
                                   "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"));
}

/* The payload hash is the body's: a changed body changes the hash, and
 * so the signature (the server may not check the hash itself). */
static void
test_payload_hash (void)
{
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GBytes) a = g_bytes_new_static ("chunk data", 10);
  g_autoptr(GBytes) b = g_bytes_new_static ("chunk datb", 10);
  g_autofree char *h_null = ncz_s3_sha256_hex (NULL);
  g_autofree char *h_empty = ncz_s3_sha256_hex (empty);
  g_autofree char *h_a = ncz_s3_sha256_hex (a);
  g_autofree char *h_b = ncz_s3_sha256_hex (b);
  g_autofree char *direct = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) "chunk data", 10);
  g_autofree char *big_hash = NULL;
  g_autofree guint8 *big = g_malloc (3 * 1024 * 1024 + 7);
  g_autoptr(GBytes) big_bytes = NULL;
  NczS3Header headers[] = { { "host", "h" }, { "x-amz-date", EXAMPLE_DATE } };
  g_autofree char *sig_a = NULL;
  g_autofree char *sig_b = NULL;

  g_assert_cmpstr (h_null, ==, NCZ_S3_EMPTY_SHA256);
  g_assert_cmpstr (h_empty, ==, NCZ_S3_EMPTY_SHA256);
  g_assert_cmpstr (h_a, ==, direct);
  g_assert_cmpstr (h_a, !=, h_b);
  for (gsize i = 0; i < 3 * 1024 * 1024 + 7; i++)
    big[i] = (guint8) (i * 131 + 7);
  big_bytes = g_bytes_new (big, 3 * 1024 * 1024 + 7);
  big_hash = ncz_s3_sha256_hex (big_bytes);
  {
    g_autofree char *expected = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, big_bytes);
    g_assert_cmpstr (big_hash, ==, expected);
  }
  sig_a = ncz_s3_authorization ("K", "S", "us-east-1", EXAMPLE_DATE, "PUT", "/b/k", "", headers, 2, h_a);
  sig_b = ncz_s3_authorization ("K", "S", "us-east-1", EXAMPLE_DATE, "PUT", "/b/k", "", headers, 2, h_b);
  g_assert_cmpstr (sig_a, !=, sig_b);
}

static void
test_uri_encode (void)
{
  struct
  {
    const char *in;
    gboolean keep_slash;
    const char *out;
  } cases[] = {
    { "a/b/.zarray", TRUE, "a/b/.zarray" },
    { "a/b/.zarray", FALSE, "a%2Fb%2F.zarray" },
    { "A-Z_a~z.0 9", TRUE, "A-Z_a~z.0%209" },
    { "x+y=z&w", TRUE, "x%2By%3Dz%26w" },
    { "caf\xc3\xa9", TRUE, "caf%C3%A9" },
    { "100%", TRUE, "100%25" },
    { "*!'()", TRUE, "%2A%21%27%28%29" },
    { "", TRUE, "" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = ncz_s3_uri_encode (cases[i].in, -1, cases[i].keep_slash);

      g_assert_cmpstr (out, ==, cases[i].out);
    }
  {
    const char *q[] = { "continuation-token", "1/a+b=", "prefix", "d/", "delimiter", "/", NULL };
    g_autofree char *query = ncz_s3_canonical_query (q);

    g_assert_cmpstr (query, ==, "continuation-token=1%2Fa%2Bb%3D&delimiter=%2F&prefix=d%2F");
  }
}

static void
test_canonical_headers (void)
{
  NczS3Header headers[] = {
    { "X-Amz-Date", EXAMPLE_DATE },
    { "HOST", "  h.example   with  spaces  " },
  };
  g_autofree char *signed_headers = NULL;
  g_autofree char *request = ncz_s3_canonical_request ("HEAD", "/b/k", "", headers, 2,
                                                       NCZ_S3_EMPTY_SHA256, &signed_headers);

  g_assert_cmpstr (signed_headers, ==, "host;x-amz-date");
  g_assert_nonnull (strstr (request, "\nhost:h.example with spaces\nx-amz-date:" EXAMPLE_DATE "\n"));
}

static void
test_md5 (void)
{
  g_autoptr(GBytes) body = g_bytes_new_static ("<Delete></Delete>", 17);
  g_autofree char *md5 = ncz_s3_md5_base64 (body);
  g_autofree char *hex = g_compute_checksum_for_bytes (G_CHECKSUM_MD5, body);
  gsize len;
  g_autofree guchar *raw = g_base64_decode (md5, &len);
  GString *back = g_string_new (NULL);

  g_assert_cmpuint (len, ==, 16);
  for (gsize i = 0; i < len; i++)
    g_string_append_printf (back, "%02x", raw[i]);
  g_assert_cmpstr (back->str, ==, hex);
  g_string_free (back, TRUE);
}

static void
test_amz_date (void)
{
  g_autoptr(GDateTime) t = g_date_time_new_utc (2013, 5, 24, 0, 0, 0);
  g_autofree char *s = ncz_s3_amz_date (t);

  g_assert_cmpstr (s, ==, EXAMPLE_DATE);
}

static void
test_xml (void)
{
  static const char list[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    "<Name>b</Name><Prefix>d/</Prefix><KeyCount>3</KeyCount><MaxKeys>2</MaxKeys>"
    "<IsTruncated>true</IsTruncated>"
    "<Contents><Key>d/.zgroup</Key><Size>24</Size></Contents>"
    "<Contents><Key>d/a&amp;b&lt;c</Key><Size>1</Size></Contents>"
    "<CommonPrefixes><Prefix>d/var/</Prefix></CommonPrefixes>"
    "<NextContinuationToken>tok/+=</NextContinuationToken>"
    "</ListBucketResult>";
  static const char error[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SignatureDoesNotMatch</Code>"
    "<Message></Message><RequestId>tx1</RequestId></Error>";
  g_autoptr(GPtrArray) leaves = ncz_s3_xml_leaves (list, strlen (list));
  g_autoptr(GPtrArray) err = ncz_s3_xml_leaves (error, strlen (error));
  guint keys = 0;

  g_assert_nonnull (leaves);
  for (guint i = 0; i < leaves->len; i += 2)
    if (strcmp (g_ptr_array_index (leaves, i), "ListBucketResult/Contents/Key") == 0)
      keys++;
  g_assert_cmpuint (keys, ==, 2);
  g_assert_cmpstr (ncz_s3_xml_find (leaves, "ListBucketResult/CommonPrefixes/Prefix"), ==, "d/var/");
  g_assert_cmpstr (ncz_s3_xml_find (leaves, "ListBucketResult/NextContinuationToken"), ==, "tok/+=");
  g_assert_cmpstr (ncz_s3_xml_find (leaves, "ListBucketResult/IsTruncated"), ==, "true");
  g_assert_cmpstr (g_ptr_array_index (leaves, 15), ==, "d/a&b<c");
  g_assert_cmpstr (ncz_s3_xml_find (err, "Error/Code"), ==, "SignatureDoesNotMatch");
  g_assert_cmpstr (ncz_s3_xml_find (err, "Error/Message"), ==, "");

  /* not XML, truncated, too deep: no leaves, no crash */
  g_assert_null (ncz_s3_xml_leaves ("<html><body>oops", 16));
  g_assert_null (ncz_s3_xml_leaves ("not xml at all", 14));
  g_assert_null (ncz_s3_xml_leaves ("", 0));
  {
    GString *deep = g_string_new (NULL);

    for (int i = 0; i < 100; i++)
      g_string_append (deep, "<a>");
    for (int i = 0; i < 100; i++)
      g_string_append (deep, "</a>");
    g_assert_null (ncz_s3_xml_leaves (deep->str, deep->len));
    g_string_free (deep, TRUE);
  }
  {
    g_autofree char *escaped = ncz_s3_xml_escape ("a<b>&\"c'");
    g_assert_cmpstr (escaped, ==, "a&lt;b&gt;&amp;&quot;c&apos;");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/s3/sign/get-object", test_get_object);
  g_test_add_func ("/s3/sign/list-objects", test_list_objects);
  g_test_add_func ("/s3/sign/get-lifecycle", test_get_lifecycle);
  g_test_add_func ("/s3/sign/put-object", test_put_object);
  g_test_add_func ("/s3/sign/payload-hash", test_payload_hash);
  g_test_add_func ("/s3/sign/uri-encode", test_uri_encode);
  g_test_add_func ("/s3/sign/canonical-headers", test_canonical_headers);
  g_test_add_func ("/s3/sign/md5", test_md5);
  g_test_add_func ("/s3/sign/amz-date", test_amz_date);
  g_test_add_func ("/s3/xml", test_xml);

  return g_test_run ();
}
