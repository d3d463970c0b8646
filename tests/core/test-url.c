/* test-url.c: NczUrl parsing, mode inference and storage choice
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
  g_assert_cmpstr (ncz_url_get_host (again), ==, ncz_url_get_host (url));
  g_assert_cmpstr (ncz_url_get_path (again), ==, ncz_url_get_path (url));
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

/* mode=bytes: one file read through a store; no Zarr format is implied */
static void
test_mode_bytes (void)
{
  g_autoptr (NczUrl) s3 = parse_ok ("s3://bucket/dir/f.nc#mode=bytes");
  g_autoptr (NczUrl) https = parse_ok ("https://example.com/bucket/f.nc#mode=bytes");
  g_autoptr (NczUrl) zip = parse_ok ("/tmp/a.zip#mode=bytes&key=f.nc");
  g_autoptr (NczUrl) plain = parse_ok ("https://example.com/bucket/f.nc");

  g_assert_cmpstr (ncz_url_get_storage (s3), ==, "s3");
  g_assert_null (ncz_url_get_format_name (s3));
  g_assert_cmpint (ncz_url_get_given_mode (s3), ==, NCZ_URL_MODE_BYTES);
  g_assert_cmpstr (ncz_url_get_storage (https), ==, "s3");
  g_assert_null (ncz_url_get_format_name (https));
  g_assert_cmpstr (ncz_url_get_storage (zip), ==, "zip");
  g_assert_null (ncz_url_get_format_name (zip));
  g_assert_cmpstr (ncz_url_get_fragment_value (zip, "key"), ==, "f.nc");
  g_assert_cmpint (ncz_url_get_given_mode (plain) & NCZ_URL_MODE_BYTES, ==, 0);
}

static void
test_mode_errors (void)
{
  parse_bad ("file:///d#mode=nczarr,bogus", "'bogus'");
  parse_bad ("file:///d#mode=nczarr,bogus", "file:///d#mode=nczarr,bogus");
  parse_bad ("/d#mode=bites", "'bites'");
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
  parse_bad ("https://user:pw@host/b/k#mode=s3", "user");
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

/* S3 URLs: core only chooses the storage; bucket, key, region and the
 * rest are the S3 driver's (tests/s3-unit). */
static void
test_s3_scheme (void)
{
  g_autoptr (NczUrl) url = parse_ok ("s3://datasetbucket/root/key/#mode=nczarr");
  g_autoptr (NczUrl) bare = parse_ok ("s3://datasetbucket");
  g_autoptr (NczUrl) aws = parse_ok ("s3://s3.us-west-2.amazonaws.com/datasetbucket#mode=zarr");

  g_assert_cmpstr (ncz_url_get_scheme (url), ==, "s3");
  g_assert_cmpstr (ncz_url_get_host (url), ==, "datasetbucket");
  g_assert_cmpint (ncz_url_get_port (url), ==, -1);
  g_assert_cmpstr (ncz_url_get_path (url), ==, "/root/key/");
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "s3");
  g_assert_cmpstr (ncz_url_get_format_name (url), ==, "nczarr");
  g_assert_cmpint (ncz_url_get_mode (url), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_S3);
  g_assert_null (ncz_url_get_local_path (url));
  assert_canonical (url, "s3://datasetbucket/root/key/#mode=nczarr,s3");

  g_assert_cmpint (ncz_url_get_mode (bare), ==, NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_S3);
  assert_canonical (bare, "s3://datasetbucket#mode=nczarr,s3");

  g_assert_true (ncz_url_is_pure_zarr (aws));
  g_assert_cmpstr (ncz_url_get_host (aws), ==, "s3.us-west-2.amazonaws.com");
  assert_canonical (aws, "s3://s3.us-west-2.amazonaws.com/datasetbucket#mode=nczarr,zarr,s3");
}

static void
test_s3_storage_inference (void)
{
  struct
  {
    const char *url;
    const char *storage;
    const char *canonical;
  } cases[] = {
    /* an Amazon S3 host means s3 storage and nczarr, virtual or path style */
    { "https://bucket.s3.us-west-1.amazonaws.com/key", "s3",
      "https://bucket.s3.us-west-1.amazonaws.com/key#mode=nczarr,s3" },
    { "https://Bucket.S3-EU-WEST-1.AmazonAWS.com/k", "s3",
      "https://Bucket.S3-EU-WEST-1.AmazonAWS.com/k#mode=nczarr,s3" },
    { "https://s3.us-west-1.amazonaws.com/bucket/key/sub", "s3",
      "https://s3.us-west-1.amazonaws.com/bucket/key/sub#mode=nczarr,s3" },
    /* another host: a format mode or an endpoint key makes it s3 */
    { "http://127.0.0.1:8000/bucket/key#mode=zarr,s3", "s3",
      "http://127.0.0.1:8000/bucket/key#mode=nczarr,zarr,s3" },
    { "http://[::1]:9000/b/k/#mode=s3", "s3", "http://[::1]:9000/b/k/#mode=nczarr,s3" },
    { "https://example.com/b/k?x=1#mode=nczarr", "s3", "https://example.com/b/k?x=1#mode=nczarr,s3" },
    { "http://bucket.localhost:8000/k#mode=nczarr", "s3",
      "http://bucket.localhost:8000/k#mode=nczarr,s3" },
    { "https://example.com/b/k#endpoint=http://127.0.0.1:8000", "s3",
      "https://example.com/b/k#mode=nczarr,s3&endpoint=http://127.0.0.1:8000" },
    { "s3://bucket/key#endpoint=http://127.0.0.1:8000", "s3",
      "s3://bucket/key#mode=nczarr,s3&endpoint=http://127.0.0.1:8000" },
    /* no mode and no S3 host: nothing decided */
    { "https://example.com/data.nc", NULL, "https://example.com/data.nc" },
    { "https://x.amazonaws.com/b", NULL, "https://x.amazonaws.com/b" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (NczUrl) url = parse_ok (cases[i].url);

      g_test_message ("%s", cases[i].url);
      g_assert_cmpstr (ncz_url_get_storage (url), ==, cases[i].storage);
      g_assert_cmpstr (ncz_url_get_format_name (url), ==, cases[i].storage ? "nczarr" : NULL);
      g_assert_null (ncz_url_get_local_path (url));
      assert_canonical (url, cases[i].canonical);
    }
}

/* Parsing reads no file: a broken ~/.aws/config does not matter here. */
static void
test_s3_no_files_read (void)
{
  g_autofree char *config = g_build_filename (g_get_home_dir (), ".aws", "config", NULL);
  g_autofree char *dir = g_path_get_dirname (config);
  g_autoptr (NczUrl) url = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (config, "[default]\nregion = not/a/region\n", -1, NULL));
  url = parse_ok ("s3://b/k#aws.region=whatever&aws.profile=a]b&endpoint=nonsense");
  g_assert_cmpstr (ncz_url_get_storage (url), ==, "s3");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "aws.profile"), ==, "a]b");
  g_assert_cmpstr (ncz_url_get_fragment_value (url, "endpoint"), ==, "nonsense");
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
  g_test_add_func ("/url/mode/bytes", test_mode_bytes);
  g_test_add_func ("/url/bad-inputs", test_bad_inputs);
  g_test_add_func ("/url/garbage", test_garbage);
  g_test_add_func ("/url/s3/scheme", test_s3_scheme);
  g_test_add_func ("/url/s3/storage-inference", test_s3_storage_inference);
  g_test_add_func ("/url/s3/no-files-read", test_s3_no_files_read);
  g_test_add_func ("/url/fragment", test_fragment);

  return g_test_run ();
}
