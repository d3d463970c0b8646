/* ncz-s3-config.c: where an S3 dataset is and how to reach it
 *
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The URL gives scheme, host, port, path and fragment; from them and the
 * user's AWS files this selects bucket, key prefix, addressing style,
 * endpoint, profile, region and credentials as spec/nczarr.md Appendix E
 * says. The files are read here, when a store opens, never when a URL is
 * parsed.
 */
#include "ncz-s3-config.h"

#include <stdlib.h>
#include <string.h>

#define URL_FLAGS (G_URI_FLAGS_PARSE_RELAXED | G_URI_FLAGS_ENCODED)

void
ncz_s3_config_free (NczS3Config *config)
{
  if (config == NULL)
    return;
  g_free (config->bucket);
  g_free (config->prefix);
  g_free (config->region);
  g_free (config->profile);
  g_free (config->scheme);
  g_free (config->host);
  g_free (config->access_key);
  if (config->secret_key != NULL)
    {
      memset (config->secret_key, 0, strlen (config->secret_key));
      g_free (config->secret_key);
    }
  if (config->session_token != NULL)
    {
      memset (config->session_token, 0, strlen (config->session_token));
      g_free (config->session_token);
    }
  g_free (config);
}

char *
ncz_s3_config_endpoint (const NczS3Config *config)
{
  gboolean ipv6 = strchr (config->host, ':') != NULL;
  GString *s = g_string_new (config->scheme);

  g_string_append (s, "://");
  g_string_append (s, ipv6 ? "[" : "");
  g_string_append (s, config->host);
  g_string_append (s, ipv6 ? "]" : "");
  if (config->port > 0)
    g_string_append_printf (s, ":%d", config->port);
  return g_string_free (s, FALSE);
}

static void set_error (GError **error, NczUrl *url, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
set_error (GError    **error,
           NczUrl     *url,
           const char *format,
           ...)
{
  va_list args;
  g_autofree char *what = NULL;
  g_autofree char *shown = g_strescape (ncz_url_get_original (url), "\"'");

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
               "S3 dataset URL '%s': %s", shown, what);
}

/* ---------------------------------------------------------------------- */
/* INI files: ~/.aws/config and ~/.aws/credentials */

static char *
aws_file_path (const char *env_name,
               const char *basename)
{
  const char *env = g_getenv (env_name);

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_home_dir (), ".aws", basename, NULL);
}

/* Reads a small regular file; anything else (missing, a directory, a
 * device, over 1 MiB) has no contents. */
static char *
read_small_file (const char *path)
{
  char *contents = NULL;
  gsize length = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  if (!g_file_get_contents (path, &contents, &length, NULL))
    return NULL;
  if (length > 1024 * 1024)
    {
      g_free (contents);
      return NULL;
    }
  return contents;
}

/* Strips an inline comment introduced by whitespace then '#' or ';'. */
static void
strip_inline_comment (char *value)
{
  for (char *p = value; *p; p++)
    if ((*p == '#' || *p == ';') && p > value && g_ascii_isspace (p[-1]))
      {
        *p = '\0';
        break;
      }
  g_strstrip (value);
}

/* "profile   x" → "profile x" */
static char *
section_name (const char *header)
{
  g_autofree char *inner = g_strstrip (g_strdup (header));

  if (g_str_has_prefix (inner, "profile") && g_ascii_isspace (inner[7]))
    return g_strconcat ("profile ", g_strstrip (inner + 7), NULL);
  return g_steal_pointer (&inner);
}

/* Every key=value of section @section of the INI text, in a table
 * (last definition wins, names lower case); NULL when the section is
 * absent. Sub-settings (indented lines under a key with an empty value,
 * as in "s3 =\n  addressing_style = x") are skipped. */
static GHashTable *
ini_section (const char *contents,
             const char *section)
{
  g_auto (GStrv) lines = NULL;
  GHashTable *table = NULL;
  gboolean in_section = FALSE;
  gboolean in_nested = FALSE;

  if (contents == NULL)
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gboolean indented = g_ascii_isspace (line[0]);
      char *eq;

      g_strstrip (line);
      if (*line == '\0' || *line == '#' || *line == ';')
        continue;
      if (*line == '[')
        {
          char *end = strrchr (line, ']');
          g_autofree char *name = NULL;

          in_nested = FALSE;
          in_section = FALSE;
          if (end == NULL)
            continue;
          *end = '\0';
          name = section_name (line + 1);
          in_section = (strcmp (name, section) == 0);
          if (in_section && table == NULL)
            table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          continue;
        }
      if (indented && in_nested)
        continue;
      in_nested = FALSE;
      eq = strchr (line, '=');
      if (eq == NULL)
        continue;
      *eq = '\0';
      g_strstrip (line);
      strip_inline_comment (eq + 1);
      if (eq[1] == '\0')
        {
          in_nested = TRUE;
          continue;
        }
      if (in_section)
        g_hash_table_replace (table, g_ascii_strdown (line, -1), g_strdup (eq + 1));
    }
  return table;
}

typedef struct
{
  GHashTable *config;      /* the profile's section of the config file, or NULL */
  GHashTable *credentials; /* of the credentials file, or NULL */
  char *config_path;
  char *credentials_path;
} Profile;

static void
profile_clear (Profile *p)
{
  g_clear_pointer (&p->config, g_hash_table_unref);
  g_clear_pointer (&p->credentials, g_hash_table_unref);
  g_clear_pointer (&p->config_path, g_free);
  g_clear_pointer (&p->credentials_path, g_free);
}

/* config names its sections "profile x" (except default), credentials
 * names them "x"; both spellings are tolerated in both files. */
static GHashTable *
find_profile_section (const char *contents,
                      const char *profile,
                      gboolean    config_file)
{
  g_autofree char *prefixed = g_strconcat ("profile ", profile, NULL);
  const char *first = prefixed, *second = profile;
  GHashTable *t;

  if (!config_file || strcmp (profile, "default") == 0)
    {
      first = profile;
      second = prefixed;
    }
  t = ini_section (contents, first);
  if (t == NULL)
    t = ini_section (contents, second);
  return t;
}

static void
profile_load (Profile    *p,
              const char *profile)
{
  g_autofree char *config = NULL;
  g_autofree char *credentials = NULL;

  p->config_path = aws_file_path ("AWS_CONFIG_FILE", "config");
  p->credentials_path = aws_file_path ("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  config = read_small_file (p->config_path);
  credentials = read_small_file (p->credentials_path);
  p->config = find_profile_section (config, profile, TRUE);
  p->credentials = find_profile_section (credentials, profile, FALSE);
  if (config != NULL)
    memset (config, 0, strlen (config));
  if (credentials != NULL)
    memset (credentials, 0, strlen (credentials));
}

/* The first of @keys in the config section, then in the credentials
 * section (config first: it is where regions belong). */
static const char *
profile_get (Profile            *p,
             gboolean            credentials_first,
             const char * const *keys,
             const char        **path)
{
  GHashTable *order[2] = { p->config, p->credentials };
  const char *paths[2] = { p->config_path, p->credentials_path };

  if (credentials_first)
    {
      order[0] = p->credentials;
      order[1] = p->config;
      paths[0] = p->credentials_path;
      paths[1] = p->config_path;
    }
  for (int f = 0; f < 2; f++)
    for (guint k = 0; order[f] != NULL && keys[k] != NULL; k++)
      {
        const char *v = g_hash_table_lookup (order[f], keys[k]);

        if (v != NULL && *v != '\0')
          {
            if (path != NULL)
              *path = paths[f];
            return v;
          }
      }
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* .ncrc / .dodsrc */

/* The value of @key in the rc files: $NCRCENV_RC if set, else .ncrc then
 * .dodsrc in the current directory, then in the home directory. Lines are
 * "KEY=VALUE" or "[URL-PREFIX]KEY=VALUE", the latter only for URLs
 * starting with the prefix (or whose host is the prefix). A line for the
 * URL wins over a line for all; else the first file that sets it. */
static char *
rc_lookup (NczUrl     *url,
           const char *key)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("NCRCENV_RC");
  const char *original = ncz_url_get_original (url);
  const char *host = ncz_url_get_host (url);
  g_autofree char *generic = NULL;

  if (env != NULL && *env != '\0')
    g_ptr_array_add (paths, g_strdup (env));
  else
    {
      g_autofree char *cwd = g_get_current_dir ();
      const char *dirs[] = { cwd, g_get_home_dir () };

      for (int d = 0; d < 2; d++)
        {
          g_ptr_array_add (paths, g_build_filename (dirs[d], ".ncrc", NULL));
          g_ptr_array_add (paths, g_build_filename (dirs[d], ".dodsrc", NULL));
        }
    }

  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *contents = read_small_file (g_ptr_array_index (paths, i));
      g_auto (GStrv) lines = NULL;

      if (contents == NULL)
        continue;
      lines = g_strsplit (contents, "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        {
          char *line = g_strstrip (lines[l]);
          gboolean specific = FALSE;
          char *eq;

          if (*line == '\0' || *line == '#')
            continue;
          if (*line == '[')
            {
              char *end = strchr (line, ']');

              if (end == NULL)
                continue;
              *end = '\0';
              if (!g_str_has_prefix (original, line + 1)
                  && (host == NULL || g_ascii_strcasecmp (host, line + 1) != 0))
                continue;
              line = g_strstrip (end + 1);
              specific = TRUE;
            }
          eq = strchr (line, '=');
          if (eq == NULL)
            continue;
          *eq = '\0';
          g_strstrip (line);
          if (g_ascii_strcasecmp (line, key) != 0)
            continue;
          if (specific)
            return g_strdup (g_strstrip (eq + 1));
          if (generic == NULL)
            generic = g_strdup (g_strstrip (eq + 1));
        }
    }
  return g_steal_pointer (&generic);
}

/* ---------------------------------------------------------------------- */
/* Host names, buckets, keys */

gboolean
ncz_s3_parse_aws_host (const char  *host,
                       char       **bucket,
                       char       **region)
{
  static const char suffix[] = ".amazonaws.com";
  g_autofree char *lower = NULL;
  g_auto (GStrv) labels = NULL;
  gsize len;
  int s3 = -1;
  guint n;

  *bucket = NULL;
  *region = NULL;
  if (host == NULL)
    return FALSE;
  lower = g_ascii_strdown (host, -1);
  len = strlen (lower);
  if (len <= sizeof suffix - 1 || !g_str_has_suffix (lower, suffix))
    return FALSE;
  lower[len - (sizeof suffix - 1)] = '\0';
  labels = g_strsplit (lower, ".", -1);
  n = g_strv_length (labels);
  for (guint i = 0; i < n; i++)
    if (strcmp (labels[i], "s3") == 0 || g_str_has_prefix (labels[i], "s3-"))
      s3 = i;
  if (s3 < 0)
    return FALSE;

  if (s3 > 0)
    {
      GString *b = g_string_new (labels[0]);

      for (int i = 1; i < s3; i++)
        {
          g_string_append_c (b, '.');
          g_string_append (b, labels[i]);
        }
      *bucket = g_string_free (b, FALSE);
    }
  if (g_str_has_prefix (labels[s3], "s3-"))
    {
      const char *r = labels[s3] + 3;

      if (strcmp (r, "external-1") == 0)
        r = NCZ_S3_DEFAULT_REGION;
      if (*r != '\0')
        *region = g_strdup (r);
    }
  else
    {
      guint next = s3 + 1;

      if (next < n && strcmp (labels[next], "dualstack") == 0)
        next++;
      if (next < n && *labels[next] != '\0')
        *region = g_strdup (labels[next]);
    }
  return TRUE;
}

static gboolean
is_valid_region (const char *region)
{
  if (*region == '\0' || strlen (region) > 64)
    return FALSE;
  for (const char *p = region; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-')
      return FALSE;
  return TRUE;
}

static gboolean
is_valid_bucket (const char *bucket)
{
  gsize len = strlen (bucket);

  if (len == 0 || len > 255)
    return FALSE;
  for (const char *p = bucket; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/* Splits an encoded path into the bucket (when @want_bucket) and the
 * decoded key prefix. */
static gboolean
split_path (NczS3Config *config,
            NczUrl      *url,
            const char  *path,
            gboolean     want_bucket,
            GError     **error)
{
  g_autofree char *decoded = g_uri_unescape_string (path != NULL ? path : "", NULL);
  g_auto (GStrv) segments = NULL;
  g_autoptr(GString) key = g_string_new (NULL);
  guint first = 0, last;

  if (decoded == NULL)
    {
      set_error (error, url, "bad percent-encoding in the path");
      return FALSE;
    }
  /* leading and trailing slashes are dropped; empty, "." and ".."
   * segments inside the key are refused */
  segments = g_strsplit (decoded, "/", -1);
  last = g_strv_length (segments);
  while (first < last && *segments[first] == '\0')
    first++;
  while (last > first && *segments[last - 1] == '\0')
    last--;
  for (guint i = first; i < last; i++)
    {
      const char *seg = segments[i];

      if (want_bucket && config->bucket == NULL)
        {
          config->bucket = g_strdup (seg);
          continue;
        }
      if (key->len == 0 && *seg == '\0')
        continue; /* "bucket//key" */
      if (*seg == '\0' || strcmp (seg, ".") == 0 || strcmp (seg, "..") == 0)
        {
          set_error (error, url, "the object key '%s' has an empty, '.' or '..' segment", decoded);
          return FALSE;
        }
      for (const char *p = seg; *p; p++)
        if ((guchar) *p < 0x20 || *p == 0x7f)
          {
            set_error (error, url, "control character in the object key");
            return FALSE;
          }
      if (key->len > 0)
        g_string_append_c (key, '/');
      g_string_append (key, seg);
    }
  if (config->bucket == NULL)
    {
      set_error (error, url, "no S3 bucket named");
      return FALSE;
    }
  if (!is_valid_bucket (config->bucket))
    {
      set_error (error, url, "invalid S3 bucket name '%s'", config->bucket);
      return FALSE;
    }
  if (key->len > NCZ_S3_MAX_KEY_BYTES)
    {
      set_error (error, url, "the key prefix '%s' is longer than %d bytes", key->str,
                 NCZ_S3_MAX_KEY_BYTES);
      return FALSE;
    }
  config->prefix = g_string_free (g_steal_pointer (&key), FALSE);
  return TRUE;
}

/* The "endpoint" fragment key: http[s]://host[:port][/]. */
static GUri *
parse_endpoint (NczUrl      *url,
                const char  *value,
                GError     **error)
{
  g_autoptr(GUri) uri = g_uri_parse (value, URL_FLAGS, NULL);
  const char *scheme = uri ? g_uri_get_scheme (uri) : NULL;
  const char *path = uri ? g_uri_get_path (uri) : NULL;

  if (uri == NULL || scheme == NULL
      || (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
      || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0'
      || (path != NULL && *path != '\0' && strcmp (path, "/") != 0)
      || g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL
      || g_uri_get_userinfo (uri) != NULL)
    {
      set_error (error, url, "endpoint '%s' is not of the form http[s]://host[:port]", value);
      return NULL;
    }
  return g_steal_pointer (&uri);
}

static int
uri_port (GUri *uri)
{
  const char *scheme = g_uri_get_scheme (uri);
  int port = g_uri_get_port (uri);

  if ((port == 80 && g_ascii_strcasecmp (scheme, "http") == 0)
      || (port == 443 && g_ascii_strcasecmp (scheme, "https") == 0)
      || port <= 0)
    return -1;
  return port;
}

/* ---------------------------------------------------------------------- */
/* Profile, region, credentials, options */

static gboolean
resolve_profile (NczS3Config *config,
                 NczUrl      *url,
                 gboolean    *explicit,
                 GError     **error)
{
  const char *given = ncz_url_get_fragment_value (url, "aws.profile");
  g_autofree char *rc = NULL;
  const char *profile = NULL;

  *explicit = TRUE;
  if (given == NULL || *given == '\0')
    given = ncz_url_get_fragment_value (url, "awsprofile");
  if (given != NULL && *given != '\0')
    profile = given;
  if (profile == NULL)
    {
      const char *env = g_getenv ("AWS_PROFILE");

      if (env != NULL && *env != '\0')
        {
          profile = env;
          *explicit = FALSE;
        }
    }
  if (profile == NULL)
    {
      rc = rc_lookup (url, "AWS.PROFILE");
      if (rc != NULL && *rc != '\0')
        profile = rc;
    }
  if (profile == NULL)
    {
      profile = "default";
      *explicit = FALSE;
    }
  for (const char *p = profile; *p; p++)
    if ((guchar) *p < 0x20 || *p == '[' || *p == ']')
      {
        set_error (error, url, "invalid AWS profile name '%s'", profile);
        return FALSE;
      }
  config->profile = g_strdup (profile);
  return TRUE;
}

static gboolean
resolve_region (NczS3Config *config,
                NczUrl      *url,
                Profile     *profile,
                GError     **error)
{
  static const char * const keys[] = { "region", "aws_region", NULL };
  const char *given = ncz_url_get_fragment_value (url, "aws.region");
  const char *path = NULL;
  const char *value;
  g_autofree char *rc = NULL;

  if (given != NULL)
    {
      if (!is_valid_region (given))
        {
          set_error (error, url, "invalid AWS region '%s'", given);
          return FALSE;
        }
      config->region = g_strdup (given);
      return TRUE;
    }
  value = profile_get (profile, FALSE, keys, &path);
  if (value != NULL)
    {
      if (!is_valid_region (value))
        {
          set_error (error, url, "region '%s' of AWS profile '%s' in '%s' is not a region name",
                     value, config->profile, path);
          return FALSE;
        }
      config->region = g_strdup (value);
      return TRUE;
    }
  rc = rc_lookup (url, "AWS.REGION");
  if (rc != NULL && is_valid_region (rc))
    {
      config->region = g_steal_pointer (&rc);
      return TRUE;
    }
  value = g_getenv ("AWS_REGION");
  if (value == NULL || !is_valid_region (value))
    value = g_getenv ("AWS_DEFAULT_REGION");
  if (value == NULL || !is_valid_region (value))
    value = NCZ_S3_DEFAULT_REGION;
  config->region = g_strdup (value);
  return TRUE;
}

static gboolean
env_credentials (NczS3Config *config)
{
  const char *id = g_getenv ("AWS_ACCESS_KEY_ID");
  const char *secret = g_getenv ("AWS_SECRET_ACCESS_KEY");
  const char *token = g_getenv ("AWS_SESSION_TOKEN");

  if (id == NULL || *id == '\0' || secret == NULL || *secret == '\0')
    return FALSE;
  config->access_key = g_strdup (id);
  config->secret_key = g_strdup (secret);
  if (token != NULL && *token != '\0')
    config->session_token = g_strdup (token);
  return TRUE;
}

static gboolean
profile_credentials (NczS3Config *config,
                     Profile     *profile)
{
  static const char * const id_keys[] = { "aws_access_key_id", NULL };
  static const char * const secret_keys[] = { "aws_secret_access_key", NULL };
  static const char * const token_keys[] = { "aws_session_token", NULL };
  const char *id = profile_get (profile, TRUE, id_keys, NULL);
  const char *secret = profile_get (profile, TRUE, secret_keys, NULL);
  const char *token = profile_get (profile, TRUE, token_keys, NULL);

  if (id == NULL || secret == NULL)
    return FALSE;
  config->access_key = g_strdup (id);
  config->secret_key = g_strdup (secret);
  if (token != NULL)
    config->session_token = g_strdup (token);
  return TRUE;
}

/* Credentials: none for the profile "none"; a profile named by the URL or
 * an rc file takes its keys from the AWS files (the environment's keys
 * when the files have none); otherwise the environment's keys come first,
 * then the profile's; with neither, requests go unsigned. */
static gboolean
resolve_credentials (NczS3Config *config,
                     NczUrl      *url,
                     Profile     *profile,
                     gboolean     explicit,
                     GError     **error)
{
  if (strcmp (config->profile, "none") == 0)
    return TRUE;
  if (explicit)
    {
      if (profile_credentials (config, profile) || env_credentials (config))
        return TRUE;
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_PERMISSION,
                   "S3 dataset '%s': AWS profile '%s' has no aws_access_key_id and "
                   "aws_secret_access_key in '%s' or '%s' (the profile 'none' sends unsigned requests)",
                   ncz_url_get_original (url), config->profile, profile->credentials_path,
                   profile->config_path);
      return FALSE;
    }
  if (env_credentials (config) || profile_credentials (config, profile))
    return TRUE;
  return TRUE; /* anonymous */
}

static gboolean
parse_uint_option (NczUrl      *url,
                   const char  *key,
                   const char  *env,
                   guint        fallback,
                   guint        max,
                   guint       *out,
                   GError     **error)
{
  const char *text = ncz_url_get_fragment_value (url, key);
  const char *what = key;
  guint64 v;

  if (text == NULL)
    {
      text = g_getenv (env);
      what = env;
    }
  if (text == NULL || *text == '\0')
    {
      *out = fallback;
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (text, 10, 0, max, &v, NULL))
    {
      set_error (error, url, "%s='%s' is not a whole number from 0 to %u", what, text, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
resolve_options (NczS3Config *config,
                 NczUrl      *url,
                 GError     **error)
{
  const char *verify = ncz_url_get_fragment_value (url, "s3.tls-verify");
  g_autofree char *rc = NULL;

  if (!parse_uint_option (url, "s3.timeout", "NCZ_S3_TIMEOUT", NCZ_S3_DEFAULT_TIMEOUT, 86400,
                          &config->timeout, error)
      || !parse_uint_option (url, "s3.retries", "NCZ_S3_RETRIES", NCZ_S3_DEFAULT_RETRIES, 100,
                             &config->retries, error)
      || !parse_uint_option (url, "s3.replace-stale", "NCZ_S3_REPLACE_STALE",
                             NCZ_S3_DEFAULT_REPLACE_STALE, 86400, &config->replace_stale, error))
    return FALSE;
  if (config->timeout == 0)
    config->timeout = NCZ_S3_DEFAULT_TIMEOUT;
  if (config->replace_stale == 0)
    config->replace_stale = NCZ_S3_DEFAULT_REPLACE_STALE;

  config->tls_verify = TRUE;
  if (verify != NULL)
    {
      if (g_ascii_strcasecmp (verify, "false") == 0 || strcmp (verify, "0") == 0
          || g_ascii_strcasecmp (verify, "no") == 0 || g_ascii_strcasecmp (verify, "off") == 0)
        config->tls_verify = FALSE;
      else if (!(g_ascii_strcasecmp (verify, "true") == 0 || strcmp (verify, "1") == 0
                 || g_ascii_strcasecmp (verify, "yes") == 0 || g_ascii_strcasecmp (verify, "on") == 0
                 || *verify == '\0'))
        {
          set_error (error, url, "s3.tls-verify='%s' is neither true nor false", verify);
          return FALSE;
        }
      return TRUE;
    }
  rc = rc_lookup (url, "HTTP.SSL.VERIFYPEER");
  if (rc != NULL && (strcmp (rc, "0") == 0 || g_ascii_strcasecmp (rc, "false") == 0))
    config->tls_verify = FALSE;
  return TRUE;
}

/* ---------------------------------------------------------------------- */

NczS3Config *
ncz_s3_config_resolve (NczUrl        *url,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(NczS3Config) config = g_new0 (NczS3Config, 1);
  g_autoptr(GUri) endpoint = NULL;
  g_autofree char *host_bucket = NULL;
  g_autofree char *host_region = NULL;
  const char *scheme = ncz_url_get_scheme (url);
  const char *host = ncz_url_get_host (url);
  const char *endpoint_value = ncz_url_get_fragment_value (url, "endpoint");
  gboolean aws = FALSE;
  gboolean explicit = FALSE;
  Profile profile = { 0 };
  gboolean ok;

  g_return_val_if_fail (NCZ_IS_URL (url), NULL);

  if (endpoint_value != NULL && (endpoint = parse_endpoint (url, endpoint_value, error)) == NULL)
    return NULL;

  if (g_strcmp0 (scheme, "s3") == 0)
    {
      if (host == NULL || *host == '\0')
        {
          set_error (error, url, "no S3 bucket named");
          return NULL;
        }
      aws = ncz_s3_parse_aws_host (host, &host_bucket, &host_region);
      if (!aws && ncz_url_get_port (url) > 0)
        {
          set_error (error, url, "an s3:// URL names a bucket, not a host and port");
          return NULL;
        }
      config->scheme = g_strdup ("https");
      if (aws)
        {
          config->host = g_ascii_strdown (host, -1);
          config->port = -1;
        }
      else
        {
          config->bucket = g_strdup (host);
          if (!is_valid_bucket (config->bucket))
            {
              set_error (error, url, "invalid S3 bucket name '%s'", config->bucket);
              return NULL;
            }
        }
    }
  else if (g_strcmp0 (scheme, "http") == 0 || g_strcmp0 (scheme, "https") == 0)
    {
      if (host == NULL || *host == '\0')
        {
          set_error (error, url, "no host named");
          return NULL;
        }
      aws = ncz_s3_parse_aws_host (host, &host_bucket, &host_region);
      config->scheme = g_strdup (scheme);
      config->host = g_ascii_strdown (host, -1);
      config->port = ncz_url_get_port (url);
      if (!aws)
        {
          /* BUCKET.localhost: virtual-host style on a local server */
          const char *suffix = ".localhost";
          gsize len = strlen (config->host);

          if (len > strlen (suffix) && g_str_has_suffix (config->host, suffix))
            host_bucket = g_strndup (host, len - strlen (suffix));
        }
    }
  else
    {
      set_error (error, url, "the S3 store needs an s3, http or https URL");
      return NULL;
    }

  if (host_bucket != NULL)
    {
      config->style = NCZ_S3_STYLE_VIRTUAL;
      config->bucket = g_steal_pointer (&host_bucket);
      if (!split_path (config, url, ncz_url_get_path (url), FALSE, error))
        return NULL;
    }
  else
    {
      config->style = NCZ_S3_STYLE_PATH;
      if (!split_path (config, url, ncz_url_get_path (url), config->bucket == NULL, error))
        return NULL;
    }
  if (host_region != NULL && !is_valid_region (host_region))
    {
      set_error (error, url, "invalid AWS region '%s' in the host name", host_region);
      return NULL;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (!resolve_profile (config, url, &explicit, error))
    return NULL;
  if (strcmp (config->profile, "none") != 0)
    profile_load (&profile, config->profile);
  if (host_region != NULL)
    {
      config->region = g_steal_pointer (&host_region);
      ok = TRUE;
    }
  else
    ok = resolve_region (config, url, &profile, error);
  ok = ok && resolve_credentials (config, url, &profile, explicit, error);
  profile_clear (&profile);
  if (!ok || !resolve_options (config, url, error))
    return NULL;

  if (endpoint != NULL)
    {
      /* an S3-compatible server: path style on its host */
      g_free (config->scheme);
      g_free (config->host);
      config->scheme = g_ascii_strdown (g_uri_get_scheme (endpoint), -1);
      config->host = g_ascii_strdown (g_uri_get_host (endpoint), -1);
      config->port = uri_port (endpoint);
      config->style = NCZ_S3_STYLE_PATH;
    }
  else if (config->host == NULL)
    {
      /* s3://bucket/key: Amazon's regional endpoint, path style */
      config->host = g_strdup_printf ("s3.%s.amazonaws.com", config->region);
      config->port = -1;
      config->style = NCZ_S3_STYLE_PATH;
    }
  return g_steal_pointer (&config);
}
