/* test-s3-config.c: what the S3 store makes of a URL and the AWS files:
 * bucket, key prefix, addressing style, endpoint, profile, region,
 * credentials and options (spec/nczarr.md Appendix E)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <glib/gstdio.h>

#include "ncz-s3-config.h"

static NczS3Config *
resolve (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse (text, &error);
  NczS3Config *config;

  g_assert_no_error (error);
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "s3");
  config = ncz_s3_config_resolve (url, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (config);
  return config;
}

/* Fails (when the store opens, not when the URL is parsed) with a message
 * naming @needle. */
static void
resolve_bad (const char *text,
             const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse (text, &error);
  g_autoptr(NczS3Config) config = NULL;

  g_assert_no_error (error);
  config = ncz_s3_config_resolve (url, NULL, &error);
  if (config != NULL)
    g_error ("'%s' should not resolve", text);
  g_assert_nonnull (error);
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("message '%s' for '%s' does not name '%s'", error->message, text, needle);
}

static char *
endpoint_of (NczS3Config *config)
{
  return ncz_s3_config_endpoint (config);
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static char *
aws_path (const char *name)
{
  return g_build_filename (g_get_home_dir (), ".aws", name, NULL);
}

/* ---------------------------------------------------------------------- */

static void
test_s3_scheme (void)
{
  g_autoptr(NczS3Config) c = resolve ("s3://datasetbucket/root/key/#mode=nczarr");
  g_autoptr(NczS3Config) bare = resolve ("s3://datasetbucket");
  g_autoptr(NczS3Config) aws = resolve ("s3://s3.us-west-2.amazonaws.com/datasetbucket#mode=zarr");
  g_autofree char *e = endpoint_of (c);
  g_autofree char *e_aws = endpoint_of (aws);

  g_assert_cmpstr (c->bucket, ==, "datasetbucket");
  g_assert_cmpstr (c->prefix, ==, "root/key");
  g_assert_cmpstr (c->region, ==, "us-east-1");
  g_assert_cmpstr (c->profile, ==, "default");
  g_assert_cmpint (c->style, ==, NCZ_S3_STYLE_PATH);
  g_assert_cmpstr (e, ==, "https://s3.us-east-1.amazonaws.com");
  g_assert_null (c->access_key); /* no credentials anywhere: unsigned */
  g_assert_cmpuint (c->timeout, ==, NCZ_S3_DEFAULT_TIMEOUT);
  g_assert_cmpuint (c->retries, ==, NCZ_S3_DEFAULT_RETRIES);
  g_assert_true (c->tls_verify);

  g_assert_cmpstr (bare->bucket, ==, "datasetbucket");
  g_assert_cmpstr (bare->prefix, ==, "");

  g_assert_cmpstr (aws->bucket, ==, "datasetbucket");
  g_assert_cmpstr (aws->prefix, ==, "");
  g_assert_cmpstr (aws->region, ==, "us-west-2");
  g_assert_cmpstr (e_aws, ==, "https://s3.us-west-2.amazonaws.com");
}

static void
test_s3_key_decoding (void)
{
  g_autoptr(NczS3Config) c = resolve ("s3://my.bucket_1/a%20b/c%2Bd#mode=zarr");
  g_autoptr(NczS3Config) dots = resolve ("s3://bucket/a/../b/./c");
  g_autoptr(NczS3Config) encoded = resolve ("s3://bucket/a/%2E%2E/%2e%2E/b/%2e/c");

  g_assert_cmpstr (c->bucket, ==, "my.bucket_1");
  g_assert_cmpstr (c->prefix, ==, "a b/c+d");
  /* dot segments, even percent-encoded ones, are resolved as RFC 3986
   * says: a key never holds "." or ".." */
  g_assert_cmpstr (dots->prefix, ==, "b/c");
  g_assert_cmpstr (encoded->prefix, ==, "b/c");
  g_assert_cmpstr (encoded->bucket, ==, "bucket");
}

static void
test_s3_virtual (void)
{
  struct
  {
    const char *url;
    const char *bucket;
    const char *key;
    const char *region;
    const char *endpoint;
  } cases[] = {
    { "https://bucket.s3.us-west-1.amazonaws.com/key/sub#mode=nczarr,s3", "bucket", "key/sub",
      "us-west-1", "https://bucket.s3.us-west-1.amazonaws.com" },
    { "https://bucket.s3.us-west-1.amazonaws.com/key", "bucket", "key", "us-west-1",
      "https://bucket.s3.us-west-1.amazonaws.com" },
    { "https://my.dotted.bucket.s3.eu-west-2.amazonaws.com/k", "my.dotted.bucket", "k", "eu-west-2",
      "https://my.dotted.bucket.s3.eu-west-2.amazonaws.com" },
    { "https://Bucket.S3-EU-WEST-1.AmazonAWS.com/k", "bucket", "k", "eu-west-1",
      "https://bucket.s3-eu-west-1.amazonaws.com" },
    { "https://b.s3.dualstack.ap-south-1.amazonaws.com/", "b", "", "ap-south-1",
      "https://b.s3.dualstack.ap-south-1.amazonaws.com" },
    { "https://bucket.s3.amazonaws.com/k", "bucket", "k", "us-east-1",
      "https://bucket.s3.amazonaws.com" },
    /* a local server with "rgw dns name = localhost" */
    { "http://mybucket.localhost:8000/data/set#mode=nczarr,s3", "mybucket", "data/set", "us-east-1",
      "http://mybucket.localhost:8000" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NczS3Config) c = resolve (cases[i].url);
      g_autofree char *e = endpoint_of (c);

      g_test_message ("%s", cases[i].url);
      g_assert_cmpint (c->style, ==, NCZ_S3_STYLE_VIRTUAL);
      g_assert_cmpstr (c->bucket, ==, cases[i].bucket);
      g_assert_cmpstr (c->prefix, ==, cases[i].key);
      g_assert_cmpstr (c->region, ==, cases[i].region);
      g_assert_cmpstr (e, ==, cases[i].endpoint);
    }
}

static void
test_s3_path_style (void)
{
  g_autoptr(NczS3Config) c = resolve ("https://s3.us-west-1.amazonaws.com/bucket/key/sub#mode=nczarr,s3");
  g_autoptr(NczS3Config) legacy = resolve ("https://s3-eu-west-1.amazonaws.com/bucket/k");
  g_autofree char *e = endpoint_of (c);

  g_assert_cmpint (c->style, ==, NCZ_S3_STYLE_PATH);
  g_assert_cmpstr (c->bucket, ==, "bucket");
  g_assert_cmpstr (c->prefix, ==, "key/sub");
  g_assert_cmpstr (c->region, ==, "us-west-1");
  g_assert_cmpstr (e, ==, "https://s3.us-west-1.amazonaws.com");

  g_assert_cmpint (legacy->style, ==, NCZ_S3_STYLE_PATH);
  g_assert_cmpstr (legacy->bucket, ==, "bucket");
  g_assert_cmpstr (legacy->region, ==, "eu-west-1");
}

static void
test_s3_compatible (void)
{
  g_autoptr(NczS3Config) c = resolve ("http://127.0.0.1:8000/bucket/key#mode=zarr,s3");
  g_autoptr(NczS3Config) v6 = resolve ("http://[::1]:9000/b/k/#mode=s3");
  g_autoptr(NczS3Config) inferred = resolve ("https://example.com/b/k?x=1#mode=nczarr");
  g_autofree char *e = endpoint_of (c);
  g_autofree char *e6 = endpoint_of (v6);
  g_autofree char *ei = endpoint_of (inferred);

  g_assert_cmpstr (e, ==, "http://127.0.0.1:8000");
  g_assert_cmpstr (c->bucket, ==, "bucket");
  g_assert_cmpstr (c->prefix, ==, "key");
  g_assert_cmpstr (c->region, ==, "us-east-1");
  g_assert_cmpint (c->style, ==, NCZ_S3_STYLE_PATH);

  g_assert_cmpstr (v6->host, ==, "::1");
  g_assert_cmpstr (e6, ==, "http://[::1]:9000");
  g_assert_cmpstr (v6->prefix, ==, "k");
  g_assert_cmpstr (ei, ==, "https://example.com");
}

static void
test_s3_endpoint (void)
{
  g_autoptr(NczS3Config) c = resolve ("s3://bucket/key#endpoint=http://127.0.0.1:8000");
  g_autoptr(NczS3Config) virt = resolve ("https://bucket.s3.us-west-1.amazonaws.com/key#endpoint=HTTP://localhost:9000/");
  g_autofree char *e = endpoint_of (c);
  g_autofree char *ev = endpoint_of (virt);

  g_assert_cmpstr (e, ==, "http://127.0.0.1:8000");
  g_assert_cmpint (c->style, ==, NCZ_S3_STYLE_PATH);
  g_assert_cmpstr (c->bucket, ==, "bucket");
  g_assert_cmpstr (c->prefix, ==, "key");

  g_assert_cmpstr (ev, ==, "http://localhost:9000");
  g_assert_cmpint (virt->style, ==, NCZ_S3_STYLE_PATH);
  g_assert_cmpstr (virt->bucket, ==, "bucket");
  g_assert_cmpstr (virt->region, ==, "us-west-1");
}

static void
test_bad (void)
{
  resolve_bad ("s3://bucket:99/key", "s3://bucket:99/key");
  resolve_bad ("s3://bu%20cket/x", "bucket");
  resolve_bad ("s3://bucket/a//b", "segment");
  resolve_bad ("https://s3.us-west-1.amazonaws.com/", "bucket");
  resolve_bad ("https://s3.us-west-1.amazonaws.com", "bucket");
  resolve_bad ("http://127.0.0.1:8000/#mode=s3", "bucket");
  resolve_bad ("s3://bucket/k#aws.region=us/east", "us/east");
  resolve_bad ("s3://bucket/k#endpoint=ftp://host", "endpoint");
  resolve_bad ("s3://bucket/k#endpoint=http://host:8000/prefix", "endpoint");
  resolve_bad ("s3://bucket/k#endpoint=nonsense", "endpoint");
  resolve_bad ("s3://bucket/k#aws.profile=a]b", "profile");
  resolve_bad ("s3://bucket/k#s3.timeout=soon", "s3.timeout");
  resolve_bad ("s3://bucket/k#s3.retries=-1", "s3.retries");
  resolve_bad ("s3://bucket/k#s3.replace-stale=5m", "s3.replace-stale");
  resolve_bad ("s3://bucket/k#s3.tls-verify=maybe", "s3.tls-verify");
  {
    /* a key prefix over S3's 1024 bytes is named in the error */
    GString *url = g_string_new ("s3://bucket/");

    for (int i = 0; i < 1100; i++)
      g_string_append_c (url, 'k');
    resolve_bad (url->str, "kkkk");
    resolve_bad (url->str, "1024");
    g_string_free (url, TRUE);
  }
}

static void
test_options (void)
{
  g_autoptr(NczS3Config) c = resolve ("s3://b/k#s3.timeout=7&s3.retries=0&s3.tls-verify=false"
                                      "&s3.replace-stale=20");
  g_autoptr(NczS3Config) d = NULL;
  g_autoptr(NczS3Config) rc = NULL;
  g_autofree char *ncrc = g_build_filename (g_get_home_dir (), ".ncrc", NULL);

  g_assert_cmpuint (c->timeout, ==, 7);
  g_assert_cmpuint (c->retries, ==, 0);
  g_assert_false (c->tls_verify);
  g_assert_cmpuint (c->replace_stale, ==, 20);

  g_setenv ("NCZ_S3_TIMEOUT", "3", TRUE);
  g_setenv ("NCZ_S3_RETRIES", "9", TRUE);
  g_setenv ("NCZ_S3_REPLACE_STALE", "0", TRUE);
  d = resolve ("s3://b/k#s3.retries=2");
  g_assert_cmpuint (d->timeout, ==, 3);
  g_assert_cmpuint (d->retries, ==, 2); /* the URL wins */
  g_assert_cmpuint (d->replace_stale, ==, 300); /* 0: the default */
  g_unsetenv ("NCZ_S3_TIMEOUT");
  g_unsetenv ("NCZ_S3_RETRIES");
  g_unsetenv ("NCZ_S3_REPLACE_STALE");

  write_file (ncrc, "# rc file\nHTTP.SSL.VERIFYPEER=0\n");
  rc = resolve ("s3://b/k");
  g_assert_false (rc->tls_verify);
  g_assert_cmpint (g_remove (ncrc), ==, 0);
}

/* ---------------------------------------------------------------------- */
/* AWS profile and region selection */

static const char aws_config[] =
  "# comment\n"
  "[default]\n"
  "output = json\n"
  "region = eu-central-1\n"
  "\n"
  "[profile unidata]\n"
  "aws_region=ap-south-1   # inline comment\n"
  "s3 =\n"
  "  region = nested-wrong\n"
  "  addressing_style = path\n"
  "[profile   spaced]\n"
  "  region = ca-central-1\n"
  "[plain]\n"
  "region = me-south-1\n"
  "[profile broken]\n"
  "region = not/a/region\n";

static const char aws_credentials[] =
  "[default]\n"
  "aws_access_key_id = AKIDEXAMPLE\n"
  "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n"
  "region = us-gov-west-1\n"
  "[other]\n"
  "aws_region = sa-east-1\n"
  "aws_access_key_id = OTHERID\n"
  "aws_secret_access_key = other/secret+\n"
  "aws_session_token = tok\n"
  "[unidata]\n"
  "aws_region = af-south-1\n"
  "aws_access_key_id = UNIDATAID\n"
  "aws_secret_access_key = unidata-secret\n"
  "[spaced]\n"
  "aws_access_key_id = S\n"
  "aws_secret_access_key = S\n"
  "[plain]\n"
  "aws_access_key_id = P\n"
  "aws_secret_access_key = P\n"
  "[third]\n"
  "aws_access_key_id = T\n"
  "aws_secret_access_key = T\n"
  "[nothing]\n"
  "aws_access_key_id = N\n"
  "aws_secret_access_key = N\n";

static void
write_aws_files (void)
{
  g_autofree char *config = aws_path ("config");
  g_autofree char *credentials = aws_path ("credentials");

  write_file (config, aws_config);
  write_file (credentials, aws_credentials);
}

static const char *
region_of (const char *text,
           const char *expected_profile)
{
  static char region[64];
  g_autoptr(NczS3Config) c = resolve (text);

  g_assert_cmpstr (c->profile, ==, expected_profile);
  g_strlcpy (region, c->region, sizeof region);
  return region;
}

static void
test_aws_region_selection (void)
{
  write_aws_files ();

  /* config wins over credentials; default profile */
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "eu-central-1");
  /* a named profile, nested settings ignored, inline comment stripped */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=unidata", "unidata"), ==, "ap-south-1");
  /* legacy key, profile only in credentials */
  g_assert_cmpstr (region_of ("s3://b/k#awsprofile=other", "other"), ==, "sa-east-1");
  g_assert_cmpstr (region_of ("s3://b/k#mode=nczarr,awsprofile=other", "other"), ==, "sa-east-1");
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=spaced", "spaced"), ==, "ca-central-1");
  /* "[plain]" in config is tolerated */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=plain", "plain"), ==, "me-south-1");
  /* profile none: unsigned, files not used */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=none", "none"), ==, "us-east-1");
  /* aws.region beats the profile */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=unidata&aws.region=us-west-2", "unidata"), ==,
                   "us-west-2");
  /* the host name beats everything */
  g_assert_cmpstr (region_of ("https://s3.us-west-1.amazonaws.com/b/k#aws.profile=unidata", "unidata"),
                   ==, "us-west-1");
  /* non-Amazon hosts use the profile too */
  g_assert_cmpstr (region_of ("http://127.0.0.1:8000/b/k#mode=s3&aws.profile=unidata", "unidata"), ==,
                   "ap-south-1");
  /* the region selects Amazon's host for s3:// URLs */
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k#aws.profile=unidata");
    g_autofree char *e = endpoint_of (c);

    g_assert_cmpstr (e, ==, "https://s3.ap-south-1.amazonaws.com");
  }

  resolve_bad ("s3://b/k#aws.profile=broken", "not/a/region");
  /* a profile named explicitly must exist (with keys) */
  resolve_bad ("s3://b/k#aws.profile=missing", "missing");
}

static void
test_aws_credentials (void)
{
  write_aws_files ();
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k");

    g_assert_cmpstr (c->access_key, ==, "AKIDEXAMPLE");
    g_assert_cmpstr (c->secret_key, ==, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    g_assert_null (c->session_token);
  }
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k#aws.profile=other");

    g_assert_cmpstr (c->access_key, ==, "OTHERID");
    g_assert_cmpstr (c->secret_key, ==, "other/secret+");
    g_assert_cmpstr (c->session_token, ==, "tok");
  }
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k#aws.profile=none");

    g_assert_null (c->access_key);
    g_assert_null (c->secret_key);
  }

  /* the environment's keys beat the default profile's … */
  g_setenv ("AWS_ACCESS_KEY_ID", "ENVID", TRUE);
  g_setenv ("AWS_SECRET_ACCESS_KEY", "env/secret", TRUE);
  g_setenv ("AWS_SESSION_TOKEN", "envtok", TRUE);
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k");

    g_assert_cmpstr (c->access_key, ==, "ENVID");
    g_assert_cmpstr (c->secret_key, ==, "env/secret");
    g_assert_cmpstr (c->session_token, ==, "envtok");
  }
  /* … but not a profile the URL names; none stays unsigned */
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k#aws.profile=unidata");
    g_autoptr(NczS3Config) n = resolve ("s3://b/k#aws.profile=none");

    g_assert_cmpstr (c->access_key, ==, "UNIDATAID");
    g_assert_null (c->session_token);
    g_assert_null (n->access_key);
  }
  /* a named profile without keys falls back to the environment's */
  {
    g_autoptr(NczS3Config) c = resolve ("s3://b/k#aws.profile=broken&aws.region=us-east-2");

    g_assert_cmpstr (c->access_key, ==, "ENVID");
  }
  g_unsetenv ("AWS_ACCESS_KEY_ID");
  g_unsetenv ("AWS_SECRET_ACCESS_KEY");
  g_unsetenv ("AWS_SESSION_TOKEN");
}

static void
test_aws_environment (void)
{
  g_autofree char *alt = g_build_filename (g_get_home_dir (), "alt-config", NULL);
  g_autofree char *alt_credentials = g_build_filename (g_get_home_dir (), "alt-credentials", NULL);

  write_aws_files ();
  write_file (alt, "[default]\nregion = eu-north-1\n[profile other]\nregion = eu-south-1\n");
  write_file (alt_credentials,
              "[third]\nregion = il-central-1\naws_access_key_id = X\naws_secret_access_key = Y\n"
              "[other]\naws_access_key_id = X\naws_secret_access_key = Y\n"
              "[nothing]\naws_access_key_id = X\naws_secret_access_key = Y\n");

  g_setenv ("AWS_PROFILE", "unidata", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k", "unidata"), ==, "ap-south-1");
  /* the fragment beats AWS_PROFILE */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=other", "other"), ==, "sa-east-1");
  g_unsetenv ("AWS_PROFILE");

  g_setenv ("AWS_CONFIG_FILE", alt, TRUE);
  g_setenv ("AWS_SHARED_CREDENTIALS_FILE", alt_credentials, TRUE);
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "eu-north-1");
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=other", "other"), ==, "eu-south-1");
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=third", "third"), ==, "il-central-1");

  /* no region in any file: AWS_REGION, AWS_DEFAULT_REGION, then the default */
  g_setenv ("AWS_REGION", "eu-west-3", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "eu-west-3");
  g_unsetenv ("AWS_REGION");
  g_setenv ("AWS_DEFAULT_REGION", "ap-east-1", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "ap-east-1");
  g_unsetenv ("AWS_DEFAULT_REGION");
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "us-east-1");
  g_unsetenv ("AWS_CONFIG_FILE");
  g_unsetenv ("AWS_SHARED_CREDENTIALS_FILE");
}

/* .ncrc / .dodsrc: AWS.PROFILE and AWS.REGION (Appendix E) */
static void
test_rc_files (void)
{
  g_autofree char *ncrc = g_build_filename (g_get_home_dir (), ".ncrc", NULL);
  g_autofree char *dodsrc = g_build_filename (g_get_home_dir (), ".dodsrc", NULL);
  g_autofree char *other = g_build_filename (g_get_home_dir (), "other-rc", NULL);

  write_aws_files ();
  write_file (ncrc, "AWS.PROFILE=unidata\n[http://127.0.0.1:9]AWS.PROFILE=other\n");
  g_assert_cmpstr (region_of ("s3://b/k", "unidata"), ==, "ap-south-1");
  /* a URL prefix selects its own line */
  g_assert_cmpstr (region_of ("http://127.0.0.1:9/b/k#mode=s3", "other"), ==, "sa-east-1");
  /* the fragment and AWS_PROFILE beat the rc file */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=plain", "plain"), ==, "me-south-1");
  g_setenv ("AWS_PROFILE", "spaced", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k", "spaced"), ==, "ca-central-1");
  g_unsetenv ("AWS_PROFILE");
  g_assert_cmpint (g_remove (ncrc), ==, 0);

  /* AWS.REGION when the profile has none, before the environment */
  write_file (dodsrc, "AWS.REGION=eu-west-2\n");
  g_setenv ("AWS_REGION", "eu-west-3", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "eu-west-2");
  g_unsetenv ("AWS_REGION");
  /* NCRCENV_RC names the one rc file */
  write_file (other, "AWS.REGION=us-west-1\n");
  g_setenv ("NCRCENV_RC", other, TRUE);
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "us-west-1");
  g_unsetenv ("NCRCENV_RC");
  g_assert_cmpint (g_remove (dodsrc), ==, 0);
}

static void
test_aws_no_files (void)
{
  g_autofree char *dir = g_build_filename (g_get_home_dir (), ".aws", NULL);
  g_autofree char *config = aws_path ("config");

  /* no ~/.aws at all */
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "us-east-1");

  /* an unreadable "file" (a directory) and binary junk are ignored */
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "us-east-1");
  g_assert_cmpint (g_rmdir (config), ==, 0);
  write_file (config, "[default\nregion\n=\n[]\n\x01\x02\xff=\xfe\n[default]\nregion=\n");
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "us-east-1");
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));

  /* a device is not read */
  g_setenv ("AWS_CONFIG_FILE", "/dev/zero", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k", "default"), ==, "us-east-1");
  g_unsetenv ("AWS_CONFIG_FILE");
}

/* The AWS files are read when the store opens: a cancelled open stops. */
static void
test_cancelled (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("s3://b/k", &error);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(NczS3Config) c = NULL;

  g_cancellable_cancel (cancellable);
  c = ncz_s3_config_resolve (url, cancellable, &error);
  g_assert_null (c);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int   argc,
      char *argv[])
{
  const char *vars[] = { "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE",
                         "AWS_SHARED_CREDENTIALS_FILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                         "AWS_SESSION_TOKEN", "NCRCENV_RC", "NCZ_S3_TIMEOUT", "NCZ_S3_RETRIES" };

  for (gsize i = 0; i < G_N_ELEMENTS (vars); i++)
    g_unsetenv (vars[i]);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* .ncrc and .dodsrc are looked for in the current directory too */
  {
    g_autofree char *cwd = g_dir_make_tmp ("ncz-s3-config-XXXXXX", NULL);

    g_assert_nonnull (cwd);
    g_assert_cmpint (g_chdir (cwd), ==, 0);
  }

  g_test_add_func ("/s3/config/scheme", test_s3_scheme);
  g_test_add_func ("/s3/config/key-decoding", test_s3_key_decoding);
  g_test_add_func ("/s3/config/virtual", test_s3_virtual);
  g_test_add_func ("/s3/config/path-style", test_s3_path_style);
  g_test_add_func ("/s3/config/compatible", test_s3_compatible);
  g_test_add_func ("/s3/config/endpoint", test_s3_endpoint);
  g_test_add_func ("/s3/config/bad", test_bad);
  g_test_add_func ("/s3/config/options", test_options);
  g_test_add_func ("/s3/aws/region-selection", test_aws_region_selection);
  g_test_add_func ("/s3/aws/credentials", test_aws_credentials);
  g_test_add_func ("/s3/aws/environment", test_aws_environment);
  g_test_add_func ("/s3/aws/rc-files", test_rc_files);
  g_test_add_func ("/s3/aws/no-files", test_aws_no_files);
  g_test_add_func ("/s3/config/cancelled", test_cancelled);

  return g_test_run ();
}
