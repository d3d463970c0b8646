/* ncz-url.c: dataset URLs and their mode fragment
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include <ncz/ncz-error.h>
#include <ncz/ncz-url.h>

/**
 * NczUrl:
 *
 * A parsed dataset URL: where the dataset is stored, which storage driver
 * reaches it and which format backend reads it.
 *
 * Accepted forms:
 *
 * - `file:///abs/path#mode=nczarr,file` and `file:///abs/path.zip#mode=zarr,zip`
 * - plain filesystem paths, relative (made absolute with the current
 *   directory) or absolute. A plain path is never percent-decoded. If it
 *   contains `#mode=`, the text from that `#` on is the fragment; any other
 *   `#` is part of the file name.
 * - `https://host[:port]/bucket/key#mode=nczarr,s3` and `http://…` for
 *   S3-compatible servers (path style: the bucket is the first path
 *   segment)
 * - Amazon hosts in virtual-host style
 *   (`https://bucket.s3.us-west-1.amazonaws.com/key`) or path style
 *   (`https://s3.us-west-1.amazonaws.com/bucket/key`)
 * - `s3://bucket/key`, which means `mode=nczarr,s3`; its host is the
 *   bucket and its path the key
 *
 * The fragment is `key=value&key=value`; a key may come without a value.
 * Recognised keys:
 *
 * - `mode`: a comma-separated list of `nczarr`, `zarr`, `xarray`,
 *   `noxarray`, `file`, `zip` and `s3` (case-insensitive). Several `mode`
 *   keys are merged. A key without value made only of mode words (`#zarr`,
 *   `#nczarr,file`) counts as a `mode` list. An item of a mode list that
 *   holds a `=` (`mode=nczarr,awsprofile=x`) is read as one more fragment
 *   key. Any other word is an error.
 * - `layout`: kept for the format backend (`layout=attributes`)
 * - `store=NAME` (an Ncz extension): open the dataset's objects through
 *   the storage driver registered as NAME instead of the one the mode
 *   and scheme choose (which still decide the mode flags and the local
 *   path); for drivers outside the mode words, such as test stores
 * - any other key is kept for the storage driver and the format backend
 *   to read (the S3 driver reads `aws.profile`, `aws.region`, `endpoint`
 *   and `s3.*`; see docs/s3.md)
 *
 * Mode inference: `zarr` implies `nczarr`; `xarray` implies `zarr`;
 * `noxarray` implies `nczarr` but, unlike netcdf-c 4.9.1 and later, not
 * `zarr`: a dataset opened with `noxarray` stays NCZarr and simply has no
 * `_ARRAY_DIMENSIONS` attributes. `xarray` together with `noxarray` is an
 * error.
 *
 * Storage: an explicit `file`, `zip` or `s3` wins, and more than one of
 * them is an error. Otherwise a local path or `file:` URL is stored as
 * `zip` if its name ends in `.zip` (any case) and as `file` otherwise;
 * `s3://` URLs, Amazon S3 host names, `http[s]` URLs with a format mode or
 * an `endpoint` key are stored as `s3`.
 *
 * The URL does not say more about S3: bucket, key, region, profile,
 * credentials and addressing style are the S3 storage driver's to work
 * out when it opens the store (no file is read when a URL is parsed).
 *
 * Since: 1.0
 */

#define URL_FLAGS (G_URI_FLAGS_PARSE_RELAXED | G_URI_FLAGS_ENCODED)
#define STORAGE_MASK (NCZ_URL_MODE_FILE | NCZ_URL_MODE_ZIP | NCZ_URL_MODE_S3)

typedef struct
{
  char *key;
  char *value; /* "" for a key given without value */
} FragItem;

struct _NczUrl
{
  GObject parent_instance;

  char *original;
  char *scheme;
  char *host;
  int port;
  char *path;
  char *query;
  GPtrArray *fragment; /* FragItem */

  NczUrlMode mode;
  NczUrlMode given_mode; /* the mode words the URL wrote, before inference */
  const char *storage; /* static string or NULL */
  const char *format;  /* static string or NULL */

  char *local_path;
};

G_DEFINE_FINAL_TYPE (NczUrl, ncz_url, G_TYPE_OBJECT)

typedef enum {
  URL_KIND_LOCAL,
  URL_KIND_S3,
  URL_KIND_HTTP,
} UrlKind;

static const struct
{
  const char *word;
  NczUrlMode flag;
} mode_words[] = {
  { "nczarr", NCZ_URL_MODE_NCZARR },
  { "zarr", NCZ_URL_MODE_ZARR },
  { "xarray", NCZ_URL_MODE_XARRAY },
  { "noxarray", NCZ_URL_MODE_NOXARRAY },
  { "file", NCZ_URL_MODE_FILE },
  { "zip", NCZ_URL_MODE_ZIP },
  { "s3", NCZ_URL_MODE_S3 },
  { "bytes", NCZ_URL_MODE_BYTES },
};

static void
frag_item_free (gpointer data)
{
  FragItem *item = data;

  g_free (item->key);
  g_free (item->value);
  g_free (item);
}

static void
ncz_url_finalize (GObject *object)
{
  NczUrl *self = NCZ_URL (object);

  g_free (self->original);
  g_free (self->scheme);
  g_free (self->host);
  g_free (self->path);
  g_free (self->query);
  g_ptr_array_unref (self->fragment);
  g_free (self->local_path);

  G_OBJECT_CLASS (ncz_url_parent_class)->finalize (object);
}

static void
ncz_url_class_init (NczUrlClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ncz_url_finalize;
}

static void
ncz_url_init (NczUrl *self)
{
  self->port = -1;
  self->fragment = g_ptr_array_new_with_free_func (frag_item_free);
}

/* ---------------------------------------------------------------------- */
/* Errors */

/* The URL as it can be shown in a message: control characters and
 * invalid UTF-8 are escaped. */
static char *
describe_url (const char *url)
{
  gboolean plain = g_utf8_validate (url, -1, NULL);

  for (const char *p = url; plain && *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      plain = FALSE;
  if (plain)
    return g_strdup (url);
  return g_strescape (url, NULL);
}

static void set_url_error (GError    **error,
                           const char *url,
                           const char *format,
                           ...) G_GNUC_PRINTF (3, 4);

static void
set_url_error (GError    **error,
               const char *url,
               const char *format,
               ...)
{
  va_list args;
  g_autofree char *what = NULL;
  g_autofree char *shown = describe_url (url);

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
               "invalid dataset URL '%s': %s", shown, what);
}

/* ---------------------------------------------------------------------- */
/* Fragment */

static FragItem *
fragment_find (NczUrl     *self,
               const char *key)
{
  for (guint i = 0; i < self->fragment->len; i++)
    {
      FragItem *item = g_ptr_array_index (self->fragment, i);

      if (strcmp (item->key, key) == 0)
        return item;
    }
  return NULL;
}

static void
fragment_set (NczUrl     *self,
              const char *key,
              const char *value)
{
  FragItem *item = fragment_find (self, key);

  if (item == NULL)
    {
      item = g_new0 (FragItem, 1);
      item->key = g_strdup (key);
      g_ptr_array_add (self->fragment, item);
    }
  g_free (item->value);
  item->value = g_strdup (value != NULL ? value : "");
}

static gboolean
lookup_mode_word (const char *word,
                  NczUrlMode *flag)
{
  for (gsize i = 0; i < G_N_ELEMENTS (mode_words); i++)
    if (g_ascii_strcasecmp (word, mode_words[i].word) == 0)
      {
        *flag = mode_words[i].flag;
        return TRUE;
      }
  return FALSE;
}

/* A comma-separated list of mode words (already percent-decoded). */
static gboolean
parse_mode_list (NczUrl      *self,
                 const char  *list,
                 NczUrlMode  *mode,
                 GError     **error)
{
  g_auto (GStrv) words = g_strsplit (list, ",", -1);

  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *word = g_strstrip (words[i]);
      NczUrlMode flag;

      if (*word == '\0')
        continue;
      if (strchr (word, '=') != NULL)
        {
          /* "mode=nczarr,awsprofile=x": a key hidden in the mode list */
          g_auto (GStrv) kv = g_strsplit (word, "=", 2);

          g_strstrip (kv[0]);
          if (*kv[0] == '\0' || strcmp (kv[0], "mode") == 0)
            {
              set_url_error (error, self->original, "bad item '%s' in the mode list", word);
              return FALSE;
            }
          fragment_set (self, kv[0], kv[1]);
          continue;
        }
      if (!lookup_mode_word (word, &flag))
        {
          set_url_error (error, self->original,
                         "unknown mode '%s' (expected nczarr, zarr, xarray, "
                         "noxarray, file, zip, s3 or bytes)", word);
          return FALSE;
        }
      *mode |= flag;
    }
  return TRUE;
}

/* A key without value that is really a mode list: "#zarr", "#nczarr,file". */
static gboolean
is_mode_list (const char *text)
{
  NczUrlMode flag;

  return strchr (text, ',') != NULL || lookup_mode_word (text, &flag);
}

static gboolean
parse_fragment_item (NczUrl      *self,
                     const char  *item,
                     NczUrlMode  *mode,
                     GError     **error)
{
  const char *eq = strchr (item, '=');
  g_autofree char *raw_key = eq ? g_strndup (item, eq - item) : g_strdup (item);
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;

  key = g_uri_unescape_string (raw_key, NULL);
  if (key == NULL)
    {
      set_url_error (error, self->original,
                     "bad percent-encoding in fragment key '%s'", raw_key);
      return FALSE;
    }
  g_strstrip (key);
  if (eq != NULL)
    {
      value = g_uri_unescape_string (eq + 1, NULL);
      if (value == NULL)
        {
          set_url_error (error, self->original,
                         "bad percent-encoding in the value of fragment key '%s'", key);
          return FALSE;
        }
    }
  if (*key == '\0')
    {
      if (eq == NULL)
        return TRUE; /* "a&&b" or a trailing '&' */
      set_url_error (error, self->original, "empty key in fragment item '%s'", item);
      return FALSE;
    }

  if (strcmp (key, "mode") == 0)
    return parse_mode_list (self, value != NULL ? value : "", mode, error);
  if (value == NULL && is_mode_list (key))
    return parse_mode_list (self, key, mode, error);

  fragment_set (self, key, value);
  return TRUE;
}

static gboolean
parse_fragment (NczUrl      *self,
                const char  *fragment,
                NczUrlMode  *mode,
                GError     **error)
{
  g_auto (GStrv) items = NULL;

  if (fragment == NULL)
    return TRUE;
  items = g_strsplit (fragment, "&", -1);
  for (guint i = 0; items[i] != NULL; i++)
    if (!parse_fragment_item (self, items[i], mode, error))
      return FALSE;
  return TRUE;
}

static char *
mode_to_string (NczUrlMode mode)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (mode_words); i++)
    if (mode & mode_words[i].flag)
      {
        if (s->len > 0)
          g_string_append_c (s, ',');
        g_string_append (s, mode_words[i].word);
      }
  return g_string_free (s, FALSE);
}

static const char *
mode_flag_word (NczUrlMode flag)
{
  for (gsize i = 0; i < G_N_ELEMENTS (mode_words); i++)
    if (mode_words[i].flag == flag)
      return mode_words[i].word;
  return "?";
}

/* ---------------------------------------------------------------------- */
/* S3 host names */

/* Whether @host is an Amazon S3 host name:
 * [bucket.]s3[.dualstack][.region].amazonaws.com or the older
 * [bucket.]s3-region.amazonaws.com. Which bucket and region it names is
 * the S3 store's business. */
static gboolean
is_aws_s3_host (const char *host)
{
  static const char suffix[] = ".amazonaws.com";
  g_autofree char *lower = NULL;
  g_auto (GStrv) labels = NULL;
  gsize len;

  if (host == NULL)
    return FALSE;
  lower = g_ascii_strdown (host, -1);
  len = strlen (lower);
  if (len <= sizeof suffix - 1 || !g_str_has_suffix (lower, suffix))
    return FALSE;
  lower[len - (sizeof suffix - 1)] = '\0';
  labels = g_strsplit (lower, ".", -1);
  for (guint i = 0; labels[i] != NULL; i++)
    if (strcmp (labels[i], "s3") == 0 || g_str_has_prefix (labels[i], "s3-"))
      return TRUE;
  return FALSE;
}

/* The port of @uri, or -1 when absent or the default of its scheme. */
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
/* Parsing */

/* TRUE for "scheme://…" and "file:…"; *scheme is lower case. */
static gboolean
peek_scheme (const char  *url,
             char       **scheme)
{
  gsize i = 1;

  if (!g_ascii_isalpha (url[0]))
    return FALSE;
  while (g_ascii_isalnum (url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')
    i++;
  if (url[i] != ':')
    return FALSE;
  if (!(url[i + 1] == '/' && url[i + 2] == '/') && !(i == 4 && g_ascii_strncasecmp (url, "file", 4) == 0))
    return FALSE;
  *scheme = g_ascii_strdown (url, i);
  return TRUE;
}

static gboolean
has_zip_suffix (const char *path)
{
  gsize len = strlen (path);

  return len >= 4 && g_ascii_strcasecmp (path + len - 4, ".zip") == 0;
}

/* Fills scheme/path/local_path from an absolute local path. */
static gboolean
setup_local (NczUrl      *self,
             const char  *absolute,
             GError     **error)
{
  g_autofree char *uri = NULL;
  g_autoptr (GError) local_error = NULL;

  self->local_path = g_canonicalize_filename (absolute, NULL);
  uri = g_filename_to_uri (self->local_path, NULL, &local_error);
  if (uri == NULL)
    {
      set_url_error (error, self->original, "%s", local_error->message);
      return FALSE;
    }
  g_free (self->scheme);
  self->scheme = g_strdup ("file");
  g_free (self->host);
  self->host = NULL;
  self->port = -1;
  g_free (self->path);
  self->path = g_strdup (uri + strlen ("file://"));
  return TRUE;
}

static gboolean
parse_scheme_url (NczUrl      *self,
                  const char  *scheme,
                  UrlKind     *kind,
                  char       **fragment,
                  GError     **error)
{
  g_autoptr (GUri) uri = NULL;
  g_autoptr (GError) local_error = NULL;

  for (const char *p = self->original; *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      {
        set_url_error (error, self->original, "control character in URL");
        return FALSE;
      }

  if (strcmp (scheme, "file") == 0)
    *kind = URL_KIND_LOCAL;
  else if (strcmp (scheme, "s3") == 0)
    *kind = URL_KIND_S3;
  else if (strcmp (scheme, "http") == 0 || strcmp (scheme, "https") == 0)
    *kind = URL_KIND_HTTP;
  else
    {
      set_url_error (error, self->original,
                     "unsupported scheme '%s' (expected file, s3, http or https)", scheme);
      return FALSE;
    }

  uri = g_uri_parse (self->original, URL_FLAGS, &local_error);
  if (uri == NULL)
    {
      set_url_error (error, self->original, "%s", local_error->message);
      return FALSE;
    }

  self->scheme = g_strdup (scheme);
  self->host = g_strdup (g_uri_get_host (uri));
  self->port = uri_port (uri);
  self->path = g_strdup (g_uri_get_path (uri));
  self->query = g_strdup (g_uri_get_query (uri));
  *fragment = g_strdup (g_uri_get_fragment (uri));

  if (*kind == URL_KIND_LOCAL)
    {
      g_autofree char *decoded = NULL;

      if (self->host != NULL && *self->host != '\0'
          && g_ascii_strcasecmp (self->host, "localhost") != 0)
        {
          set_url_error (error, self->original,
                         "file URLs on another host ('%s') are not supported", self->host);
          return FALSE;
        }
      if (self->path == NULL || self->path[0] != '/')
        {
          set_url_error (error, self->original, "a file URL needs an absolute path");
          return FALSE;
        }
      decoded = g_uri_unescape_string (self->path, "/");
      if (decoded == NULL)
        {
          set_url_error (error, self->original, "bad percent-encoding in the path");
          return FALSE;
        }
      return setup_local (self, decoded, error);
    }

  if (g_uri_get_userinfo (uri) != NULL)
    {
      set_url_error (error, self->original, "user information in the URL is not supported");
      return FALSE;
    }
  if (*kind == URL_KIND_HTTP && (self->host == NULL || *self->host == '\0'))
    {
      set_url_error (error, self->original, "no host named");
      return FALSE;
    }
  return TRUE;
}

static gboolean
ncz_url_parse_internal (NczUrl  *self,
                        GError **error)
{
  g_autofree char *scheme = NULL;
  g_autofree char *fragment = NULL;
  gboolean endpoint;
  NczUrlMode given = NCZ_URL_MODE_NONE;
  NczUrlMode storage;
  UrlKind kind;

  if (*self->original == '\0')
    {
      set_url_error (error, self->original, "empty URL");
      return FALSE;
    }

  if (peek_scheme (self->original, &scheme))
    {
      if (!parse_scheme_url (self, scheme, &kind, &fragment, error))
        return FALSE;
    }
  else
    {
      const char *hash = strstr (self->original, "#mode=");
      g_autofree char *path = hash ? g_strndup (self->original, hash - self->original)
                                   : g_strdup (self->original);

      kind = URL_KIND_LOCAL;
      if (*path == '\0')
        {
          set_url_error (error, self->original, "empty path");
          return FALSE;
        }
      if (hash != NULL)
        fragment = g_strdup (hash + 1);
      if (!setup_local (self, path, error))
        return FALSE;
    }

  /* Fragment and mode inference */
  if (!parse_fragment (self, fragment, &given, error))
    return FALSE;
  self->given_mode = given;
  if ((given & NCZ_URL_MODE_XARRAY) && (given & NCZ_URL_MODE_NOXARRAY))
    {
      set_url_error (error, self->original, "modes 'xarray' and 'noxarray' contradict each other");
      return FALSE;
    }
  if (given & NCZ_URL_MODE_XARRAY)
    given |= NCZ_URL_MODE_ZARR;
  if (given & (NCZ_URL_MODE_ZARR | NCZ_URL_MODE_NOXARRAY))
    given |= NCZ_URL_MODE_NCZARR;

  storage = given & STORAGE_MASK;
  if (storage != 0 && (storage & (storage - 1)) != 0)
    {
      g_autofree char *words = mode_to_string (storage);

      set_url_error (error, self->original,
                     "more than one storage mode (%s): give one of file, zip or s3", words);
      return FALSE;
    }

  endpoint = ncz_url_get_fragment_value (self, "endpoint") != NULL;

  switch (kind)
    {
    case URL_KIND_LOCAL:
      if (storage == NCZ_URL_MODE_S3)
        {
          set_url_error (error, self->original,
                         "mode 's3' needs an s3, http or https URL, not a local path");
          return FALSE;
        }
      if (storage == 0)
        storage = has_zip_suffix (self->local_path) ? NCZ_URL_MODE_ZIP : NCZ_URL_MODE_FILE;
      /* With no mode at all, a regular file that is not a zip archive is
       * left for the other format backends to probe. */
      if ((given & NCZ_URL_MODE_BYTES) == 0
          && ((given & (STORAGE_MASK | NCZ_URL_MODE_NCZARR)) != 0
              || storage == NCZ_URL_MODE_ZIP
              || !g_file_test (self->local_path, G_FILE_TEST_IS_REGULAR)))
        self->format = "nczarr";
      break;

    case URL_KIND_S3:
    case URL_KIND_HTTP:
      if (storage == NCZ_URL_MODE_FILE || storage == NCZ_URL_MODE_ZIP)
        {
          set_url_error (error, self->original,
                         "mode '%s' needs a file URL or a local path", mode_flag_word (storage));
          return FALSE;
        }
      if (kind == URL_KIND_S3 && (self->host == NULL || *self->host == '\0'))
        {
          set_url_error (error, self->original, "no S3 bucket named");
          return FALSE;
        }
      if (storage == 0
          && (kind == URL_KIND_S3 || (given & (NCZ_URL_MODE_NCZARR | NCZ_URL_MODE_BYTES))
              || endpoint || is_aws_s3_host (self->host)))
        storage = NCZ_URL_MODE_S3;
      /* mode=bytes: one file read through the store with ranged reads,
       * whose format the backend that claims "bytes" is */
      if (storage == NCZ_URL_MODE_S3 && (given & NCZ_URL_MODE_BYTES) == 0)
        self->format = "nczarr";
      break;

    default:
      g_assert_not_reached ();
    }

  self->mode = given | storage;
  if (self->format != NULL)
    self->mode |= NCZ_URL_MODE_NCZARR;

  switch (storage)
    {
    case NCZ_URL_MODE_FILE:
      self->storage = "file";
      break;
    case NCZ_URL_MODE_ZIP:
      self->storage = "zip";
      break;
    case NCZ_URL_MODE_S3:
      self->storage = "s3";
      break;
    default:
      self->storage = NULL;
      break;
    }

  if (self->format != NULL)
    {
      FragItem *item = g_new0 (FragItem, 1);

      item->key = g_strdup ("mode");
      item->value = mode_to_string (self->mode);
      g_ptr_array_insert (self->fragment, 0, item);
    }
  return TRUE;
}

/**
 * ncz_url_parse:
 * @url: (type filename): a URL or a local path
 *
 * Parses a dataset URL, infers its mode and chooses the storage driver.
 * No file is read (the S3 driver reads the AWS files when it opens a
 * store). See [class@Ncz.Url] for the accepted forms.
 *
 * A local path is stored as `file` or `zip` storage. When it names no
 * mode, its format is `nczarr` unless it is an existing regular file whose
 * name does not end in `.zip`, which is left for other backends to probe.
 *
 * Returns: (transfer full): the parsed URL, or %NULL with
 *   %NCZ_DATASET_ERROR_BAD_URL set
 *
 * Since: 1.0
 */
NczUrl *
ncz_url_parse (const char  *url,
               GError     **error)
{
  g_autoptr (NczUrl) self = NULL;

  g_return_val_if_fail (url != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (NCZ_TYPE_URL, NULL);
  self->original = g_strdup (url);
  if (!ncz_url_parse_internal (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * ncz_url_to_string:
 * @self: a URL
 *
 * Builds the canonical form of the URL, with the inferred mode first in
 * the fragment: `file:///abs/path#mode=nczarr,file`,
 * `s3://bucket/key#mode=nczarr,s3`. Parsing it again gives the same URL.
 * Local paths become `file://` URLs.
 *
 * Returns: (transfer full): the canonical URL
 *
 * Since: 1.0
 */
char *
ncz_url_to_string (NczUrl *self)
{
  /* characters left unescaped in fragment keys and values */
  static const char key_allowed[] = "!$'()*+,;:@/?";
  static const char value_allowed[] = "!$'()*+,;:@/?=";
  GString *s;

  g_return_val_if_fail (NCZ_IS_URL (self), NULL);

  s = g_string_new (self->scheme);
  g_string_append (s, "://");
  if (self->host != NULL)
    {
      gboolean ipv6 = strchr (self->host, ':') != NULL;

      g_string_append (s, ipv6 ? "[" : "");
      g_string_append (s, self->host);
      g_string_append (s, ipv6 ? "]" : "");
    }
  if (self->port > 0)
    g_string_append_printf (s, ":%d", self->port);
  if (self->path != NULL)
    g_string_append (s, self->path);
  if (self->query != NULL)
    {
      g_string_append_c (s, '?');
      g_string_append (s, self->query);
    }
  for (guint i = 0; i < self->fragment->len; i++)
    {
      FragItem *item = g_ptr_array_index (self->fragment, i);

      g_string_append_c (s, i == 0 ? '#' : '&');
      g_string_append_uri_escaped (s, item->key, key_allowed, FALSE);
      /* "key=" stays so when a bare "key" would read as a mode list */
      if (*item->value != '\0' || is_mode_list (item->key))
        {
          g_string_append_c (s, '=');
          g_string_append_uri_escaped (s, item->value, value_allowed, FALSE);
        }
    }
  return g_string_free (s, FALSE);
}

/**
 * ncz_url_get_original:
 * @self: a URL
 *
 * Gives the URL exactly as it was given, before any parsing or
 * normalization. The string belongs to the URL.
 *
 * Returns: the string given to [func@Ncz.Url.parse]
 *
 * Since: 1.0
 */
const char *
ncz_url_get_original (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->original;
}

/**
 * ncz_url_get_scheme:
 * @self: a URL
 *
 * The scheme, in lower case: `file` for local paths.
 *
 * Returns: the scheme
 *
 * Since: 1.0
 */
const char *
ncz_url_get_scheme (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->scheme;
}

/**
 * ncz_url_get_host:
 * @self: a URL
 *
 * The host; for an `s3://bucket/key` URL, the bucket.
 *
 * Returns: (nullable): the host, or %NULL for local paths
 *
 * Since: 1.0
 */
const char *
ncz_url_get_host (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->host;
}

/**
 * ncz_url_get_port:
 * @self: a URL
 *
 * Gives the port of a remote URL (`https://host:9000/...`).
 *
 * Returns: the port, or -1 when none was given (or it is the scheme's
 *   default)
 *
 * Since: 1.0
 */
int
ncz_url_get_port (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), -1);
  return self->port;
}

/**
 * ncz_url_get_path:
 * @self: a URL
 *
 * The path, percent-encoded as in the URL. For local paths it is the
 * path of the equivalent `file://` URL; for `s3://bucket/key` it is
 * `/key`.
 *
 * Returns: the path
 *
 * Since: 1.0
 */
const char *
ncz_url_get_path (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->path;
}

/**
 * ncz_url_get_query:
 * @self: a URL
 *
 * Gives the query part of the URL (after `?`, without it). The string
 * belongs to the URL.
 *
 * Returns: (nullable): the query, percent-encoded, or %NULL
 *
 * Since: 1.0
 */
const char *
ncz_url_get_query (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->query;
}

/**
 * ncz_url_get_fragment_value:
 * @self: a URL
 * @key: a fragment key
 *
 * The percent-decoded value of a fragment key. The `mode` key holds the
 * inferred mode (`nczarr,zarr,zip`), as in [method@Ncz.Url.to_string].
 *
 * Returns: (nullable): the value, an empty string for a key given without
 *   value, or %NULL if the key is absent
 *
 * Since: 1.0
 */
const char *
ncz_url_get_fragment_value (NczUrl     *self,
                            const char *key)
{
  FragItem *item;

  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  item = fragment_find (self, key);
  return item != NULL ? item->value : NULL;
}

/**
 * ncz_url_has_fragment_key:
 * @self: a URL
 * @key: a fragment key
 *
 * Tells whether the URL's fragment (after `#`) has @key, with or without
 * a value (`#mode=zarr,file&log` has both `mode` and `log`). See
 * ncz_url_get_fragment_value() for the value.
 *
 * Returns: whether the fragment has @key
 *
 * Since: 1.0
 */
gboolean
ncz_url_has_fragment_key (NczUrl     *self,
                          const char *key)
{
  g_return_val_if_fail (NCZ_IS_URL (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  return fragment_find (self, key) != NULL;
}

/**
 * ncz_url_get_fragment_keys:
 * @self: a URL
 *
 * The fragment keys in order, `mode` first when a mode was inferred.
 *
 * Returns: (transfer full) (array zero-terminated=1): the keys
 *
 * Since: 1.0
 */
char **
ncz_url_get_fragment_keys (NczUrl *self)
{
  char **keys;

  g_return_val_if_fail (NCZ_IS_URL (self), NULL);

  keys = g_new0 (char *, self->fragment->len + 1);
  for (guint i = 0; i < self->fragment->len; i++)
    keys[i] = g_strdup (((FragItem *) g_ptr_array_index (self->fragment, i))->key);
  return keys;
}

/**
 * ncz_url_get_given_mode:
 * @self: a URL
 *
 * The mode words the URL itself wrote (`#mode=zarr,file` gives
 * %NCZ_URL_MODE_ZARR and %NCZ_URL_MODE_FILE), without what
 * ncz_url_get_mode() infers. The registry chooses the format by these
 * words and probes when they name none.
 *
 * Returns: the mode as written
 *
 * Since: 1.0
 */
NczUrlMode
ncz_url_get_given_mode (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NCZ_URL_MODE_NONE);
  return self->given_mode;
}

/**
 * ncz_url_get_mode:
 * @self: a URL
 *
 * The mode flags after inference, including the storage flag and
 * %NCZ_URL_MODE_NCZARR when the format is NCZarr.
 *
 * Returns: the mode
 *
 * Since: 1.0
 */
NczUrlMode
ncz_url_get_mode (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NCZ_URL_MODE_NONE);
  return self->mode;
}

/**
 * ncz_url_is_pure_zarr:
 * @self: a URL
 *
 * Tells whether the URL's mode asks for pure Zarr v2: datasets are read
 * and written without the NCZarr metadata, so zarr-python and xarray see
 * only Zarr.
 *
 * Returns: whether `zarr` (or `xarray`) was given: read and write pure
 *   Zarr v2, without the NCZarr metadata
 *
 * Since: 1.0
 */
gboolean
ncz_url_is_pure_zarr (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), FALSE);
  return (self->mode & NCZ_URL_MODE_ZARR) != 0;
}

/**
 * ncz_url_use_xarray:
 * @self: a URL
 *
 * Tells whether the dimension names of variables go into (and are read
 * from) the XArray `_ARRAY_DIMENSIONS` attribute, which is how xarray
 * names the dimensions of a pure Zarr dataset.
 *
 * Returns: whether `_ARRAY_DIMENSIONS` attributes are read and written,
 *   that is, unless `noxarray` was given
 *
 * Since: 1.0
 */
gboolean
ncz_url_use_xarray (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), TRUE);
  return (self->mode & NCZ_URL_MODE_NOXARRAY) == 0;
}

/**
 * ncz_url_get_storage:
 * @self: a URL
 *
 * Gives the name of the storage driver the URL selects, from its scheme
 * and `mode` fragment key, or the `store=NAME` fragment key when given.
 * The registry opens the store through the plugin of that name. The
 * string belongs to the URL.
 *
 * Returns: (nullable): the storage driver name: `file`, `zip`, `s3`, the
 *   `store` key's value, or %NULL for an http(s) URL that names neither a
 *   mode nor an S3 host
 *
 * Since: 1.0
 */
const char *
ncz_url_get_storage (NczUrl *self)
{
  const char *forced;
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  /* Ncz extension: "#store=NAME" picks a storage driver by name */
  forced = ncz_url_get_fragment_value (self, "store");
  if (forced != NULL && *forced != '\0')
    return forced;
  return self->storage;
}

/**
 * ncz_url_get_format_name:
 * @self: a URL
 *
 * The fragment key `format=NAME` (an Ncz extension) selects a backend
 * by name; otherwise the mode decides.
 *
 * Returns: (nullable): the format backend name (`nczarr`, for NCZarr and
 *   pure Zarr), or %NULL when the URL does not decide it and the backends
 *   should probe
 *
 * Since: 1.0
 */
const char *
ncz_url_get_format_name (NczUrl *self)
{
  const char *forced;
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  /* Ncz extension: "#format=NAME" picks a format backend by name */
  forced = ncz_url_get_fragment_value (self, "format");
  if (forced != NULL && *forced != '\0')
    return forced;
  return self->format;
}

/**
 * ncz_url_get_local_path:
 * @self: a URL
 *
 * Gives the file or directory a local URL (a plain path, `file://`, or a
 * `#mode=...,zip` URL) names, ready for file system calls. Remote URLs
 * have none. The string belongs to the URL.
 *
 * Returns: (nullable) (type filename): the absolute, percent-decoded
 *   filesystem path for `file` and `zip` storage, or %NULL
 *
 * Since: 1.0
 */
const char *
ncz_url_get_local_path (NczUrl *self)
{
  g_return_val_if_fail (NCZ_IS_URL (self), NULL);
  return self->local_path;
}
