/* test-url.c: NczUrl parsing, mode inference and S3 selection
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

static NczUrl *
parse_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  NczUrl *url = ncz_url_parse (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (url);
  g_assert_cmpstr (ncz_url_get_original (url), ==, text);
  return url;
}

/* Fails with NCZ_DATASET_ERROR_BAD_URL and a message that names @needle. */
static void
parse_bad (const char *text,
           const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (NczUrl) url = ncz_url_parse (text, &error);

  if (url != NULL)
    {
      g_autofree char *s = ncz_url_to_string (url);

      g_error ("'%s' should not parse (it gave '%s')", text, s);
    }
  g_assert_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL);
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("message '%s' for '%s' does not name '%s'", error->message, text, needle);
}

/* to_string, and parsing the result gives the same string again. */
static void
assert_canonical (NczUrl     *url,
                  const char *expected)
{
  g_autofree char *s = ncz_url_to_string (url);
  g_autoptr (NczUrl) again = NULL;
  g_autofree char *s2 = NULL;

  g_assert_cmpstr (s, ==, expected);
  again = parse_ok (s);
  s2 = ncz_url_to_string (again);
  g_assert_cmpstr (s2, ==, expected);
  g_assert_cmpint (ncz_url_get_mode (again), ==, ncz_url_get_mode (url));
  g_assert_cmpstr (ncz_url_get_storage (again), ==, ncz_url_get_storage (url));
  g_assert_cmpstr (ncz_url_get_local_path (again), ==, ncz_url_get_local_path (url));
  g_assert_cmpstr (ncz_url_get_s3_bucket (again), ==, ncz_url_get_s3_bucket (url));
  g_assert_cmpstr (ncz_url_get_s3_key (again), ==, ncz_url_get_s3_key (url));
  g_assert_cmpstr (ncz_url_get_s3_region (again), ==, ncz_url_get_s3_region (url));
  g_assert_cmpstr (ncz_url_get_s3_endpoint (again), ==, ncz_url_get_s3_endpoint (url));
}

static void
assert_no_s3 (NczUrl *url)
{
  g_assert_null (ncz_url_get_s3_bucket (url));
  g_assert_null (ncz_url_get_s3_key (url));
  g_assert_null (ncz_url_get_s3_region (url));
  g_assert_null (ncz_url_get_s3_profile (url));
  g_assert_null (ncz_url_get_s3_endpoint (url));
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr (GError) error = NULL;
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
test_file_nczarr (void)
{
  g_autoptr (NczUrl) url = parse_ok ("file:///xxx/yyy/testdata.file#mode=nczarr,file");

  g_assert_cmpstr (ncz_url_get_scheme (url), ==, "file");
  g_assert_null (ncz_url_get_host (url));
  g_assert_cmpint (ncz_url_get_port (url), ==, -1);
  g_assert_cmpstr (ncz_url_get_path (url), ==, "/xxx/yyy/testdata.file");
  g_assert_null (ncz_url_get_query (url));
  g_assert_cmpstr (ncz_url_get_local_path (url), ==, "/xxx/yyy/testdata.file");
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "file");
  g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
  g_assert_cmpint (ncz_url_get_mode (url), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_FILE);
  g_assert_false (ncz_url_is_pure_zarr (url));
  g_assert_true (ncz_url_use_xarray (url));
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "mode"), ==, "nczarr,file");
  g_assert_cmpint (ncz_url_get_s3_addressing_style (url), ==, NCZ_S3_ADDRESSING_PATH);
  assert_no_s3 (url);
  assert_canonical (url, "file:///xxx/yyy/testdata.file#mode=nczarr,file");
}

static void
test_file_zip (void)
{
  g_autoptr (NczUrl) url = parse_ok ("file:///xxx/yyy/testdata.zip#mode=zarr,zip");
  g_autoptr (NczUrl) anyext = parse_ok ("file:///xxx/yyy/testdata.anyext#mode=nczarr,file");

  g_assert_cmpstr (ncz_url_get_storage (url), ==, "zip");
  g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
  g_assert_cmpint (ncz_url_get_mode (url), ==,
                   NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_ZIP);
  g_assert_true (ncz_url_is_pure_zarr (url));
  g_assert_true (ncz_url_use_xarray (url));
  g_assert_cmpstr (ncz_url_get_local_path (url), ==, "/xxx/yyy/testdata.zip");
  assert_no_s3 (url);
  assert_canonical (url, "file:///xxx/yyy/testdata.zip#mode=nczarr,zarr,zip");

  g_assert_cmpstr (ncz_url_get_storage (anyext), ==, "file");
  g_assert_cmpstr (ncz_url_get_local_path (anyext), ==, "/xxx/yyy/testdata.anyext");
}

static void
test_file_storage_inference (void)
{
  struct
  {
    const char *url;
    const char *storage;
    const char *local;
    const char *canonical;
  } cases[] = {
    { "file:///data/X.ZIP#mode=zarr", "zip", "/data/X.ZIP", "file:///data/X.ZIP#mode=nczarr,zarr,zip" },
    { "file:///data/x.zarr#mode=zarr", "file", "/data/x.zarr", "file:///data/x.zarr#mode=nczarr,zarr,file" },
    { "file:///data/x.zip#mode=nczarr,file", "file", "/data/x.zip", "file:///data/x.zip#mode=nczarr,file" },
    { "file:///data/dir#mode=nczarr,zip", "zip", "/data/dir", "file:///data/dir#mode=nczarr,zip" },
    { "file://localhost/a/b#mode=nczarr", "file", "/a/b", "file:///a/b#mode=nczarr,file" },
    { "FILE:///a/b#mode=nczarr", "file", "/a/b", "file:///a/b#mode=nczarr,file" },
    { "file:/a/b#mode=nczarr", "file", "/a/b", "file:///a/b#mode=nczarr,file" },
    { "file:///a%20b/c%23d#mode=nczarr,file", "file", "/a b/c#d", "file:///a%20b/c%23d#mode=nczarr,file" },
    { "file:///a/./b/../c/#mode=nczarr", "file", "/a/c", "file:///a/c#mode=nczarr,file" },
    { "file:///caf%C3%A9.zip", "zip", "/caf\xc3\xa9.zip", "file:///caf%C3%A9.zip#mode=nczarr,zip" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (NczUrl) url = parse_ok (cases[i].url);

      g_assert_cmpstr (ncz_url_get_storage (url), ==, cases[i].storage);
      g_assert_cmpstr (ncz_url_get_local_path (url), ==, cases[i].local);
      g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
      assert_canonical (url, cases[i].canonical);
    }
}

static void
test_plain_path (void)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *expected = g_build_filename (cwd, "rel", "x.zarr", NULL);
  g_autofree char *expected_uri = g_filename_to_uri (expected, NULL, NULL);
  g_autofree char *canonical = g_strconcat (expected_uri, "#mode=nczarr,zarr,file", NULL);
  g_autoptr (NczUrl) rel = parse_ok ("rel/./x.zarr#mode=zarr");
  g_autoptr (NczUrl) abs = parse_ok ("/no/such/dir/data.zip");
  g_autoptr (NczUrl) hash = parse_ok ("/no/such/a#b");
  g_autoptr (NczUrl) mixed = parse_ok ("/no/such/a#b#mode=noxarray");
  g_auto (GStrv) keys = NULL;

  g_assert_cmpstr (ncz_url_get_scheme (rel), ==, "file");
  g_assert_cmpstr (ncz_url_get_local_path (rel), ==, expected);
  g_assert_true (ncz_url_is_pure_zarr (rel));
  g_assert_cmpstr (ncz_url_get_storage (rel), ==, "file");
  assert_canonical (rel, canonical);

  g_assert_cmpstr (ncz_url_get_local_path (abs), ==, "/no/such/dir/data.zip");
  g_assert_cmpstr (ncz_url_get_storage (abs), ==, "zip");
  g_assert_cmpstr (ncz_url_get_format_name (abs), ==, "nczarr");
  g_assert_cmpint (ncz_url_get_mode (abs), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZIP);
  assert_canonical (abs, "file:///no/such/dir/data.zip#mode=nczarr,zip");

  /* '#' not followed by "mode=" is part of the file name */
  g_assert_cmpstr (ncz_url_get_local_path (hash), ==, "/no/such/a#b");
  keys = ncz_url_get_fragment_keys (hash);
  g_assert_cmpuint (g_strv_length (keys), ==, 1);
  assert_canonical (hash, "file:///no/such/a%23b#mode=nczarr,file");

  g_assert_cmpstr (ncz_url_get_local_path (mixed), ==, "/no/such/a#b");
  g_assert_false (ncz_url_use_xarray (mixed));
  g_assert_false (ncz_url_is_pure_zarr (mixed));
}

static void
test_plain_path_probe (void)
{
  const char *home = g_get_home_dir ();
  g_autofree char *dir = g_build_filename (home, "d.zarr", NULL);
  g_autofree char *nc = g_build_filename (home, "f.nc", NULL);
  g_autofree char *zip = g_build_filename (home, "f.ZIP", NULL);
  g_autofree char *missing = g_build_filename (home, "new.nc", NULL);
  g_autofree char *nc_mode = g_strconcat (nc, "#mode=nczarr", NULL);
  g_autofree char *nc_uri = g_filename_to_uri (nc, NULL, NULL);
  g_autoptr (NczUrl) u_dir = NULL;
  g_autoptr (NczUrl) u_nc = NULL;
  g_autoptr (NczUrl) u_zip = NULL;
  g_autoptr (NczUrl) u_missing = NULL;
  g_autoptr (NczUrl) u_nc_mode = NULL;
  g_autoptr (NczUrl) u_nc_uri = NULL;
  g_auto (GStrv) keys = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  write_file (nc, "\x89HDF\r\n\x1a\n");
  write_file (zip, "PK\x05\x06");

  u_dir = parse_ok (dir);
  g_assert_cmpstr (ncz_url_get_format_name (u_dir), ==, "nczarr");
  g_assert_cmpstr (ncz_url_get_storage (u_dir), ==, "file");

  /* a regular file that is not a zip: the backends probe it */
  u_nc = parse_ok (nc);
  g_assert_null (ncz_url_get_format_name (u_nc));
  g_assert_cmpstr (ncz_url_get_storage (u_nc), ==, "file");
  g_assert_cmpstr (ncz_url_get_local_path (u_nc), ==, nc);
  g_assert_cmpint (ncz_url_get_mode (u_nc), ==, NCZ_URL_MODE_FILE);
  g_assert_false (ncz_url_has_fragment_key (u_nc, "mode"));
  keys = ncz_url_get_fragment_keys (u_nc);
  g_assert_cmpuint (g_strv_length (keys), ==, 0);
  assert_canonical (u_nc, nc_uri);

  u_nc_uri = parse_ok (nc_uri);
  g_assert_null (ncz_url_get_format_name (u_nc_uri));

  u_zip = parse_ok (zip);
  g_assert_cmpstr (ncz_url_get_format_name (u_zip), ==, "nczarr");
  g_assert_cmpstr (ncz_url_get_storage (u_zip), ==, "zip");

  u_missing = parse_ok (missing);
  g_assert_cmpstr (ncz_url_get_format_name (u_missing), ==, "nczarr");

  u_nc_mode = parse_ok (nc_mode);
  g_assert_cmpstr (ncz_url_get_format_name (u_nc_mode), ==, "nczarr");
  g_assert_cmpstr (ncz_url_get_local_path (u_nc_mode), ==, nc);
}

static void
test_mode_inference (void)
{
  struct
  {
    const char *url;
    NczUrlMode mode;
    gboolean pure;
    gboolean xarray;
    const char *canonical_mode;
  } cases[] = {
    { "/d#mode=nczarr", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_FILE, FALSE, TRUE, "nczarr,file" },
    { "/d#mode=zarr", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_FILE, TRUE, TRUE,
      "nczarr,zarr,file" },
    { "/d#mode=xarray,file",
      NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_XARRAY | NCZ_URL_MODE_FILE, TRUE, TRUE,
      "nczarr,zarr,xarray,file" },
    /* noxarray keeps NCZarr: it does not imply zarr */
    { "/d#mode=noxarray", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_NOXARRAY | NCZ_URL_MODE_FILE, FALSE, FALSE,
      "nczarr,noxarray,file" },
    { "/d#mode=zarr,noxarray",
      NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_NOXARRAY | NCZ_URL_MODE_FILE, TRUE, FALSE,
      "nczarr,zarr,noxarray,file" },
    { "/d#mode=file", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_FILE, FALSE, TRUE, "nczarr,file" },
    { "/d#mode=zip", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZIP, FALSE, TRUE, "nczarr,zip" },
    { "/d#mode=ZARR,File", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_FILE, TRUE, TRUE,
      "nczarr,zarr,file" },
    { "/d#mode=zarr,,file,", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_FILE, TRUE, TRUE,
      "nczarr,zarr,file" },
    { "/d#mode=zarr,zarr,file,file", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_FILE, TRUE,
      TRUE, "nczarr,zarr,file" },
    /* bare mode words and several mode keys */
    { "file:///d#zarr,zip", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_ZIP, TRUE, TRUE,
      "nczarr,zarr,zip" },
    { "file:///d#nczarr", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_FILE, FALSE, TRUE, "nczarr,file" },
    { "file:///d#mode=zarr&mode=zip", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_ZIP, TRUE,
      TRUE, "nczarr,zarr,zip" },
    { "file:///d#noxarray&zip", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_NOXARRAY | NCZ_URL_MODE_ZIP, FALSE,
      FALSE, "nczarr,noxarray,zip" },
    { "s3://bucket/k#mode=zarr", NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_ZARR | NCZ_URL_MODE_S3, TRUE, TRUE,
      "nczarr,zarr,s3" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (NczUrl) url = parse_ok (cases[i].url);

      g_test_message ("%s", cases[i].url);
      g_assert_cmpint (ncz_url_get_mode (url), ==, cases[i].mode);
      g_assert_cmpint (ncz_url_is_pure_zarr (url), ==, cases[i].pure);
      g_assert_cmpint (ncz_url_use_xarray (url), ==, cases[i].xarray);
      g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
      g_assert_cmpstr (ncz_url_get_fragment_value (url, "mode"), ==, cases[i].canonical_mode);
    }
}

static void
test_mode_errors (void)
{
  parse_bad ("file:///d#mode=nczarr,bogus", "'bogus'");
  parse_bad ("file:///d#mode=nczarr,bogus", "file:///d#mode=nczarr,bogus");
  parse_bad ("/d#mode=bytes", "'bytes'");
  parse_bad ("file:///d#nczarr,frobnicate", "'frobnicate'");
  parse_bad ("file:///d#mode=file,zip", "storage");
  parse_bad ("file:///d#mode=zarr&mode=s3&mode=file", "storage");
  parse_bad ("s3://bucket/key#mode=zip,s3", "storage");
  parse_bad ("file:///d#mode=xarray,noxarray", "noxarray");
  parse_bad ("file:///d#mode=nczarr,s3", "'s3'");
  parse_bad ("/d#mode=s3", "'s3'");
  parse_bad ("s3://bucket/key#mode=nczarr,file", "'file'");
  parse_bad ("https://example.com/b/k#mode=zarr,zip", "'zip'");
}

static void
test_bad_inputs (void)
{
  parse_bad ("", "empty");
  parse_bad ("s3://", "bucket");
  parse_bad ("s3:///key", "bucket");
  parse_bad ("s3://bucket:99/key", "s3://bucket:99/key");
  parse_bad ("s3://bu%20cket/x", NULL);
  parse_bad ("s3://bucket/a//b", "segment");
  parse_bad ("https://s3.us-west-1.amazonaws.com/", "bucket");
  parse_bad ("https://s3.us-west-1.amazonaws.com", "bucket");
  parse_bad ("http://127.0.0.1:8000/#mode=s3", "bucket");
  parse_bad ("http://", NULL);
  parse_bad ("ftp://host/path", "'ftp'");
  parse_bad ("garbage://x", "'garbage'");
  parse_bad ("file://otherhost/x", "'otherhost'");
  parse_bad ("file:///a%ZZ", "percent");
  parse_bad ("file:///a%00b", "percent");
  parse_bad ("file:relative/x", "absolute");
  parse_bad ("s3://bucket/key\n", "control");
  parse_bad ("file:///d#=x", "empty key");
  parse_bad ("file:///d#mode=zarr&k=%G1", "'k'");
  parse_bad ("s3://bucket/k#aws.region=us/east", "us/east");
  parse_bad ("s3://bucket/k#endpoint=ftp://host", "endpoint");
  parse_bad ("s3://bucket/k#endpoint=http://host:8000/prefix", "endpoint");
  parse_bad ("s3://bucket/k#endpoint=nonsense", "endpoint");
  parse_bad ("https://user:pw@host/b/k#mode=s3", "user");
  parse_bad ("s3://bucket/k#aws.profile=a]b", "profile");
  parse_bad ("s3://bucket/k#mode=nczarr,mode=zarr", "mode list");
  parse_bad ("s3://bucket/k#mode=nczarr,=x", "mode list");
  {
    /* deeply nested mode items end with an error, not a stack overflow */
    GString *deep = g_string_new ("s3://bucket/k#");

    for (int i = 0; i < 200000; i++)
      g_string_append (deep, "mode=");
    g_string_append (deep, "zarr");
    parse_bad (deep->str, "mode list");
    g_string_free (deep, TRUE);
  }
}

/* Odd inputs never crash: they either parse or set exactly one error. */
static void
test_garbage (void)
{
  const char *inputs[] = {
    "#", "#mode=", "#mode=zarr", "://", "s3:", "s3:/", "s3://#", "s3://?#",
    "http://[::1", "http://[zz]/b/k#mode=s3", "https://h:99999/b", "https://h:-1/b",
    "file://", "file:", "file:///", "file:///#", "file:///#&&&", "file:///#mode",
    "file:///#mode=,,,", "s3://a/b#mode=nczarr,awsprofile", "%", "%%", "\xff\xfe",
    "s3://\xff/k", "file:///\xff\xfe#mode=zarr", "https://bucket.s3.amazonaws.com",
    "https://.s3.us-west-1.amazonaws.com/k", "https://s3.amazonaws.com/b", "https://x.amazonaws.com/b",
    "a#mode=zarr&#mode=zip", "s3://b/k#endpoint=", "s3://b/k#aws.region=",
    "https://s3..amazonaws.com/b/k", "https://a..s3.us-west-1.amazonaws.com/k",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (NczUrl) url = ncz_url_parse (inputs[i], &error);

      g_test_message ("input %" G_GSIZE_FORMAT, i);
      g_assert_true ((url == NULL) == (error != NULL));
      if (url != NULL)
        {
          g_autofree char *s = ncz_url_to_string (url);
          g_autoptr (GError) error2 = NULL;
          g_autoptr (NczUrl) again = ncz_url_parse (s, &error2);

          g_assert_no_error (error2);
          g_assert_nonnull (again);
        }
      else
        g_assert_true (g_error_matches (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL));
    }
}

static void
test_s3_scheme (void)
{
  g_autoptr (NczUrl) url = parse_ok ("s3://datasetbucket/root/key/#mode=nczarr");
  g_autoptr (NczUrl) bare = parse_ok ("s3://datasetbucket");
  g_autoptr (NczUrl) aws = parse_ok ("s3://s3.us-west-2.amazonaws.com/datasetbucket#mode=zarr");

  g_assert_cmpstr (ncz_url_get_scheme (url), ==, "https");
  g_assert_cmpstr (ncz_url_get_host (url), ==, "s3.us-east-1.amazonaws.com");
  g_assert_cmpint (ncz_url_get_port (url), ==, -1);
  g_assert_cmpstr (ncz_url_get_path (url), ==, "/datasetbucket/root/key/");
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "s3");
  g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
  g_assert_cmpint (ncz_url_get_mode (url), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_S3);
  g_assert_null (ncz_url_get_local_path (url));
  g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, "datasetbucket");
  g_assert_cmpstr (ncz_url_get_s3_key (url), ==, "root/key");
  g_assert_cmpstr (ncz_url_get_s3_region (url), ==, "us-east-1");
  g_assert_cmpstr (ncz_url_get_s3_profile (url), ==, "default");
  g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, "https://s3.us-east-1.amazonaws.com");
  g_assert_cmpint (ncz_url_get_s3_addressing_style (url), ==, NCZ_S3_ADDRESSING_PATH);
  assert_canonical (url, "https://s3.us-east-1.amazonaws.com/datasetbucket/root/key/#mode=nczarr,s3");

  g_assert_cmpstr (ncz_url_get_s3_bucket (bare), ==, "datasetbucket");
  g_assert_cmpstr (ncz_url_get_s3_key (bare), ==, "");
  g_assert_cmpint (ncz_url_get_mode (bare), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_S3);
  assert_canonical (bare, "https://s3.us-east-1.amazonaws.com/datasetbucket#mode=nczarr,s3");

  /* an s3:// URL naming an Amazon host */
  g_assert_cmpstr (ncz_url_get_s3_bucket (aws), ==, "datasetbucket");
  g_assert_cmpstr (ncz_url_get_s3_key (aws), ==, "");
  g_assert_cmpstr (ncz_url_get_s3_region (aws), ==, "us-west-2");
  g_assert_true (ncz_url_is_pure_zarr (aws));
  assert_canonical (aws, "https://s3.us-west-2.amazonaws.com/datasetbucket#mode=nczarr,zarr,s3");
}

static void
test_s3_key_decoding (void)
{
  g_autoptr (NczUrl) url = parse_ok ("s3://my.bucket_1/a%20b/c%2Bd#mode=zarr");

  g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, "my.bucket_1");
  g_assert_cmpstr (ncz_url_get_s3_key (url), ==, "a b/c+d");
  {
    g_autoptr (NczUrl) dots = parse_ok ("s3://bucket/a/../b/./c");

    g_autoptr (NczUrl) encoded = parse_ok ("s3://bucket/a/%2E%2E/%2e%2E/b/%2e/c");

    /* dot segments, even percent-encoded ones, are resolved as RFC 3986
     * says: a key never holds "." or ".." */
    g_assert_cmpstr (ncz_url_get_s3_key (dots), ==, "b/c");
    g_assert_cmpstr (ncz_url_get_s3_key (encoded), ==, "b/c");
    g_assert_cmpstr (ncz_url_get_s3_bucket (encoded), ==, "bucket");
  }
  assert_canonical (url, "https://s3.us-east-1.amazonaws.com/my.bucket_1/a%20b/c%2Bd#mode=nczarr,zarr,s3");
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
      "us-west-1", "https://s3.us-west-1.amazonaws.com" },
    /* no mode: an Amazon S3 host means s3 storage and nczarr */
    { "https://bucket.s3.us-west-1.amazonaws.com/key", "bucket", "key", "us-west-1",
      "https://s3.us-west-1.amazonaws.com" },
    { "https://my.dotted.bucket.s3.eu-west-2.amazonaws.com/k", "my.dotted.bucket", "k", "eu-west-2",
      "https://s3.eu-west-2.amazonaws.com" },
    { "https://Bucket.S3-EU-WEST-1.AmazonAWS.com/k", "bucket", "k", "eu-west-1",
      "https://s3.eu-west-1.amazonaws.com" },
    { "https://b.s3.dualstack.ap-south-1.amazonaws.com/", "b", "", "ap-south-1",
      "https://s3.ap-south-1.amazonaws.com" },
    { "https://bucket.s3.amazonaws.com/k", "bucket", "k", "us-east-1",
      "https://s3.us-east-1.amazonaws.com" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (NczUrl) url = parse_ok (cases[i].url);

      g_test_message ("%s", cases[i].url);
      g_assert_cmpint (ncz_url_get_s3_addressing_style (url), ==, NCZ_S3_ADDRESSING_VIRTUAL);
      g_assert_cmpstr (ncz_url_get_storage (url), ==, "s3");
      g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
      g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, cases[i].bucket);
      g_assert_cmpstr (ncz_url_get_s3_key (url), ==, cases[i].key);
      g_assert_cmpstr (ncz_url_get_s3_region (url), ==, cases[i].region);
      g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, cases[i].endpoint);
    }

  {
    g_autoptr (NczUrl) url = parse_ok ("https://bucket.s3.us-west-1.amazonaws.com/key#mode=zarr");

    g_assert_cmpstr (ncz_url_get_host (url), ==, "bucket.s3.us-west-1.amazonaws.com");
    g_assert_cmpstr (ncz_url_get_path (url), ==, "/key");
    assert_canonical (url, "https://bucket.s3.us-west-1.amazonaws.com/key#mode=nczarr,zarr,s3");
  }
}

static void
test_s3_path_style (void)
{
  g_autoptr (NczUrl) url = parse_ok ("https://s3.us-west-1.amazonaws.com/bucket/key/sub#mode=nczarr,s3");
  g_autoptr (NczUrl) legacy = parse_ok ("https://s3-eu-west-1.amazonaws.com/bucket/k");

  g_assert_cmpint (ncz_url_get_s3_addressing_style (url), ==, NCZ_S3_ADDRESSING_PATH);
  g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, "bucket");
  g_assert_cmpstr (ncz_url_get_s3_key (url), ==, "key/sub");
  g_assert_cmpstr (ncz_url_get_s3_region (url), ==, "us-west-1");
  g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, "https://s3.us-west-1.amazonaws.com");
  assert_canonical (url, "https://s3.us-west-1.amazonaws.com/bucket/key/sub#mode=nczarr,s3");

  g_assert_cmpint (ncz_url_get_s3_addressing_style (legacy), ==, NCZ_S3_ADDRESSING_PATH);
  g_assert_cmpstr (ncz_url_get_s3_bucket (legacy), ==, "bucket");
  g_assert_cmpstr (ncz_url_get_s3_region (legacy), ==, "eu-west-1");
}

static void
test_s3_compatible (void)
{
  g_autoptr (NczUrl) url = parse_ok ("http://127.0.0.1:8000/bucket/key#mode=zarr,s3");
  g_autoptr (NczUrl) v6 = parse_ok ("http://[::1]:9000/b/k/#mode=s3");
  g_autoptr (NczUrl) inferred = parse_ok ("https://example.com/b/k?x=1#mode=nczarr");
  g_autoptr (NczUrl) plain = parse_ok ("https://example.com/data.nc");

  g_assert_cmpstr (ncz_url_get_scheme (url), ==, "http");
  g_assert_cmpstr (ncz_url_get_host (url), ==, "127.0.0.1");
  g_assert_cmpint (ncz_url_get_port (url), ==, 8000);
  g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, "http://127.0.0.1:8000");
  g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, "bucket");
  g_assert_cmpstr (ncz_url_get_s3_key (url), ==, "key");
  g_assert_cmpstr (ncz_url_get_s3_region (url), ==, "us-east-1");
  g_assert_cmpint (ncz_url_get_s3_addressing_style (url), ==, NCZ_S3_ADDRESSING_PATH);
  g_assert_true (ncz_url_is_pure_zarr (url));
  assert_canonical (url, "http://127.0.0.1:8000/bucket/key#mode=nczarr,zarr,s3");

  g_assert_cmpstr (ncz_url_get_host (v6), ==, "::1");
  g_assert_cmpstr (ncz_url_get_s3_endpoint (v6), ==, "http://[::1]:9000");
  g_assert_cmpstr (ncz_url_get_s3_key (v6), ==, "k");
  assert_canonical (v6, "http://[::1]:9000/b/k/#mode=nczarr,s3");

  g_assert_cmpstr (ncz_url_get_storage (inferred), ==, "s3");
  g_assert_cmpstr (ncz_url_get_query (inferred), ==, "x=1");
  g_assert_cmpstr (ncz_url_get_s3_endpoint (inferred), ==, "https://example.com");
  assert_canonical (inferred, "https://example.com/b/k?x=1#mode=nczarr,s3");

  /* no mode and no S3 host: nothing decided */
  g_assert_null (ncz_url_get_storage (plain));
  g_assert_null (ncz_url_get_format_name (plain));
  g_assert_cmpint (ncz_url_get_mode (plain), ==, NCZ_URL_MODE_NONE);
  g_assert_null (ncz_url_get_local_path (plain));
  assert_no_s3 (plain);
  assert_canonical (plain, "https://example.com/data.nc");
}

static void
test_s3_endpoint (void)
{
  g_autoptr (NczUrl) url = parse_ok ("s3://bucket/key#endpoint=http://127.0.0.1:8000");
  g_autoptr (NczUrl) virt = parse_ok ("https://bucket.s3.us-west-1.amazonaws.com/key#endpoint=HTTP://localhost:9000/");

  g_assert_cmpstr (ncz_url_get_scheme (url), ==, "http");
  g_assert_cmpstr (ncz_url_get_host (url), ==, "127.0.0.1");
  g_assert_cmpint (ncz_url_get_port (url), ==, 8000);
  g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, "http://127.0.0.1:8000");
  g_assert_cmpstr (ncz_url_get_s3_bucket (url), ==, "bucket");
  g_assert_cmpstr (ncz_url_get_s3_key (url), ==, "key");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "endpoint"), ==, "http://127.0.0.1:8000");
  assert_canonical (url, "http://127.0.0.1:8000/bucket/key#mode=nczarr,s3&endpoint=http://127.0.0.1:8000");

  g_assert_cmpstr (ncz_url_get_s3_endpoint (virt), ==, "http://localhost:9000");
  g_assert_cmpint (ncz_url_get_s3_addressing_style (virt), ==, NCZ_S3_ADDRESSING_VIRTUAL);
  g_assert_cmpstr (ncz_url_get_s3_bucket (virt), ==, "bucket");
  g_assert_cmpstr (ncz_url_get_s3_region (virt), ==, "us-west-1");
}

static void
test_fragment (void)
{
  g_autoptr (NczUrl) url = parse_ok ("file:///d#layout=attributes&mode=zarr&log&x=a%26b%3Dc&&x2=caf%C3%A9");
  g_auto (GStrv) keys = ncz_url_get_fragment_keys (url);
  const char *expected[] = { "mode", "layout", "log", "x", "x2", NULL };

  g_assert_cmpstrv (keys, expected);
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "layout"), ==, "attributes");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "log"), ==, "");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "x"), ==, "a&b=c");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "x2"), ==, "caf\xc3\xa9");
  g_assert_null (ncz_url_get_fragment_value (url, "nope"));
  g_assert_true (ncz_url_has_fragment_key (url, "log"));
  g_assert_false (ncz_url_has_fragment_key (url, "nope"));
  assert_canonical (url, "file:///d#mode=nczarr,zarr,file&layout=attributes&log&x=a%26b=c&x2=caf%C3%A9");
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
  "[unidata]\n"
  "aws_region = af-south-1\n";

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
  g_autoptr (NczUrl) url = parse_ok (text);

  g_assert_cmpstr (ncz_url_get_s3_profile (url), ==, expected_profile);
  g_strlcpy (region, ncz_url_get_s3_region (url), sizeof region);
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
  /* unknown profile: the default region */
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=missing", "missing"), ==, "us-east-1");
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
  /* the region selects the rewritten host of s3:// URLs */
  {
    g_autoptr (NczUrl) url = parse_ok ("s3://b/k#aws.profile=unidata");

    g_assert_cmpstr (ncz_url_get_host (url), ==, "s3.ap-south-1.amazonaws.com");
    g_assert_cmpstr (ncz_url_get_s3_endpoint (url), ==, "https://s3.ap-south-1.amazonaws.com");
    assert_canonical (url, "https://s3.ap-south-1.amazonaws.com/b/k#mode=nczarr,s3&aws.profile=unidata");
  }

  parse_bad ("s3://b/k#aws.profile=broken", "not/a/region");
}

static void
test_aws_environment (void)
{
  g_autofree char *alt = g_build_filename (g_get_home_dir (), "alt-config", NULL);
  g_autofree char *alt_credentials = g_build_filename (g_get_home_dir (), "alt-credentials", NULL);

  write_aws_files ();
  write_file (alt, "[default]\nregion = eu-north-1\n[profile other]\nregion = eu-south-1\n");
  write_file (alt_credentials, "[third]\nregion = il-central-1\n");

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

  /* no region in any file: AWS_REGION, then the default */
  g_setenv ("AWS_REGION", "eu-west-3", TRUE);
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "eu-west-3");
  g_unsetenv ("AWS_REGION");
  g_unsetenv ("AWS_CONFIG_FILE");
  g_unsetenv ("AWS_SHARED_CREDENTIALS_FILE");
  g_assert_cmpstr (region_of ("s3://b/k#aws.profile=nothing", "nothing"), ==, "us-east-1");
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

int
main (int   argc,
      char *argv[])
{
  g_unsetenv ("AWS_PROFILE");
  g_unsetenv ("AWS_REGION");
  g_unsetenv ("AWS_DEFAULT_REGION");
  g_unsetenv ("AWS_CONFIG_FILE");
  g_unsetenv ("AWS_SHARED_CREDENTIALS_FILE");

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/url/file/nczarr", test_file_nczarr);
  g_test_add_func ("/url/file/zip", test_file_zip);
  g_test_add_func ("/url/file/storage-inference", test_file_storage_inference);
  g_test_add_func ("/url/plain/path", test_plain_path);
  g_test_add_func ("/url/plain/probe", test_plain_path_probe);
  g_test_add_func ("/url/mode/inference", test_mode_inference);
  g_test_add_func ("/url/mode/errors", test_mode_errors);
  g_test_add_func ("/url/bad-inputs", test_bad_inputs);
  g_test_add_func ("/url/garbage", test_garbage);
  g_test_add_func ("/url/s3/scheme", test_s3_scheme);
  g_test_add_func ("/url/s3/key-decoding", test_s3_key_decoding);
  g_test_add_func ("/url/s3/virtual", test_s3_virtual);
  g_test_add_func ("/url/s3/path-style", test_s3_path_style);
  g_test_add_func ("/url/s3/compatible", test_s3_compatible);
  g_test_add_func ("/url/s3/endpoint", test_s3_endpoint);
  g_test_add_func ("/url/fragment", test_fragment);
  g_test_add_func ("/url/aws/region-selection", test_aws_region_selection);
  g_test_add_func ("/url/aws/environment", test_aws_environment);
  g_test_add_func ("/url/aws/no-files", test_aws_no_files);

  return g_test_run ();
}
