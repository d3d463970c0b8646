/* ncz-s3-store.c: S3 storage driver on libsoup-3
 *
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Every HTTP request runs on one thread the store owns, which iterates a
 * GMainContext of its own with the store's SoupSession (a session is used
 * from one thread). Callers on any thread hand it requests:
 * asynchronous calls get their GTask completed from there (GTask delivers
 * to the caller's thread-default context), synchronous calls wait on a
 * condition variable for the same code to finish. Many requests are in
 * flight at once, up to MAX_IN_FLIGHT; more wait in a queue.
 *
 * Each attempt of a request has a deadline (the session's I/O timeout and
 * a timer of our own that cancels the attempt); failures that may pass
 * (connection refused or reset, timeouts, HTTP 5xx, 503 SlowDown, 429)
 * are retried with exponential backoff and jitter, at most s3.retries
 * times.
 *
 * Replacing a dataset (NCZ_STORE_CREATE over existing objects): S3 has
 * no rename, so the store claims the dataset's generation object first
 * (below), then removes the old metadata objects (.zgroup, .zattrs,
 * .zarray, .zmetadata, .nczarr at every level) before its first write, so
 * that the old dataset no longer opens, holds back the new metadata
 * objects in memory, and at commit lists the prefix again, removes what it
 * did not write, then writes the metadata, the root's last. Until then
 * the prefix holds chunks only, which open as nothing. See docs/s3.md.
 *
 * Generations. Nothing in S3 makes several objects change at once, so a
 * replacement is announced in one object that every party reads: the
 * generation object GENERATION_KEY at the dataset's prefix, a small JSON
 * record {generation, state, host, pid, since, heartbeat, stale_after}
 * that only replacers write, always with a conditional PUT.
 *  - A replacer claims it before it changes anything at the prefix: a
 *    record "replacing" of another replacer that is alive (written less
 *    than its stale_after ago, by the server's clock) makes it wait up to
 *    lock.timeout, then fail with NCZ_STORAGE_ERROR_LOCKED naming that
 *    one; otherwise it writes its own record over what it read
 *    (If-Match, If-None-Match when there is none), and a CONFLICT means
 *    someone else was quicker: it reads again and waits for that one.
 *    While it works a thread rewrites the record (heartbeat) every
 *    stale_after / 5; a record not rewritten for stale_after belongs to a
 *    replacer presumed dead and may be taken over. Before each write the
 *    replacer makes sure its record is still its own and fresh, and before
 *    it publishes the root metadata it rewrites the record conditionally:
 *    a replacer whose record was taken over fails instead of publishing.
 *    Only once the root metadata is written does the record say
 *    "complete": a record that says so is never followed by a write of
 *    that replacement, so the next replacer, which waits for it, never
 *    has its prefix changed under it. A discarded replacement says
 *    "discarded", which the next one takes over like "complete".
 *  - A reader (or a writer in place) reads the record (its ETag, or
 *    none) before the first metadata object it reads: the generation it
 *    opened. A record "replacing" of a live replacer fails the open with
 *    NCZ_STORAGE_ERROR_CONFLICT. After every read of chunks it checks that
 *    the ETag is still the same (one HEAD, shared by the calls that finish
 *    while it is in flight), else the read fails with CONFLICT: "the
 *    dataset was replaced while it was being read". That is enough
 *    because a replacer changes the record before it changes anything
 *    else: if the record is the same after the chunks were received as
 *    before the metadata was read, no replacement began in between, so
 *    the metadata and the chunks are of the version that was complete
 *    when the reader opened it. A writer in place checks before each
 *    write, and its writes are checked after they were answered by its
 *    next check or at commit: its next write or its close fails if the
 *    dataset was replaced meanwhile.
 *  - A replacer's commit checks that each chunk it wrote is still there
 *    as it wrote it (the ETags of the listing): a writer in place whose
 *    write crossed the start of the replacement fails the replacement
 *    instead of mixing into it.
 * Old versions of Ncz and other programs do not know the record: they
 * are not protected, and do not protect others.
 *
 * Many writers of one dataset: read_tagged is a GET giving the ETag,
 * write_if one PUT with If-Match (or If-None-Match: *), a 412 a CONFLICT
 * unless a HEAD shows the server only mismatched the ETag's quotes
 * (radosgw): then the other form, remembered. While replacing, write_if
 * is write. Servers that ignore the headers protect nobody.
 */
#include "ncz-s3-store.h"
#include "ncz-s3-config.h"
#include "ncz-s3-sign.h"
#include "ncz-s3-xml.h"

#include <ncz/ncz-module.h>
#include <libsoup/soup.h>
#include <string.h>
#include <unistd.h>

#define MAX_IN_FLIGHT 64
#define IO_DEPTH_HINT 32
#define MULTIPART_THRESHOLD (16 * 1024 * 1024)
#define PART_SIZE (8 * 1024 * 1024)
#define DELETE_BATCH 1000
#define BACKOFF_BASE_MS 100
#define BACKOFF_MAX_MS 5000

/* The generation record lives beside the dataset's objects; listings do
 * not show it and a replacement's removals leave it. */
#define GENERATION_KEY ".ncz-generation"

enum { BASELINE_NONE, BASELINE_TAKING, BASELINE_TAKEN };

struct _NczS3Store
{
  GObject parent_instance;

  NczUrl *url;
  NczStoreFlags flags;
  NczS3Config *config;
  char *endpoint;     /* scheme://host[:port], for messages */
  char *root_path;    /* "/bucket" (path style) or "" (virtual style) */
  char *host_header;  /* host[:port] as signed */

  /* the request thread */
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
  SoupSession *session; /* used on the request thread only */
  GQueue waiting;       /* Calls waiting for a slot (request thread only) */
  guint active;         /* Calls holding a slot (request thread only) */

  GMutex lock;          /* guards what follows */
  GCond cond;
  guint64 n_requests;
  guint in_flight;
  guint max_in_flight;

  /* replacing a dataset */
  gboolean replacing;   /* opened with CREATE, not yet committed or discarded */
  gboolean prepared;    /* the generation is claimed, the old metadata objects are gone */
  GMutex prepare_lock;  /* one preparation at a time */
  GHashTable *old_keys; /* relative keys of the objects there when it was claimed */
  GHashTable *written;  /* relative keys written since → their ETag (or NULL) */
  GHashTable *held;     /* root metadata held back until commit: key → GBytes */
  gboolean initialized;

  /* the replacer's generation record (guarded by gen_lock) */
  GMutex gen_lock;
  char *gen_id;         /* its generation id */
  char *gen_since;      /* when it claimed it */
  char *gen_tag;        /* the record's ETag as this store last wrote it */
  gboolean claimed;     /* the record is this store's */
  gboolean gen_done;    /* "complete" or "discarded" written: no more heartbeats */
  gboolean lost;        /* another replacer took the record over (guarded by lock) */
  gint64 gen_written_at; /* monotonic time of its last successful write (guarded by lock) */
  GThread *heartbeat;
  GCond heartbeat_cond; /* with lock */
  gboolean heartbeat_stop;

  /* readers and writers in place: the generation opened (guarded by lock) */
  int baseline_state;   /* BASELINE_* */
  char *baseline_tag;   /* its ETag, NULL when there was no record */
  gboolean replaced;    /* a check found another generation: every call fails */
  gint64 checked_at;    /* monotonic time the last check that found it unchanged ended */
  gint64 write_done_at; /* … the last write of a writer in place was answered */
  gint64 covered_until; /* … the last check that found it unchanged was sent */
  /* checks in flight, on the request thread only */
  GPtrArray *check_pending; /* CheckWaiters waiting for the next HEAD */
  GPtrArray *check_riding;  /* … for the HEAD in flight (NULL: none) */
  gint64 check_sent_at;     /* … when it was sent */

  /* conditional writes: the server compares If-Match with the ETag
   * without its quotes (radosgw), learnt from a 412 on the current tag */
  gboolean etag_unquoted;
};

enum {
  PROP_0,
  PROP_URL,
  PROP_FLAGS,
  PROP_N_REQUESTS,
  PROP_MAX_IN_FLIGHT,
};

static void ncz_s3_store_store_init (NczStoreInterface *iface);
static void ncz_s3_store_initable_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczS3Store, ncz_s3_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE, ncz_s3_store_store_init)
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, ncz_s3_store_initable_init))

static const char * const metadata_names[] = { ".zgroup", ".zattrs", ".zarray", ".zmetadata",
                                                ".nczarr", NULL };

/* A metadata object (of any group or array) by its last segment. */
static gboolean
is_metadata (const char *key)
{
  const char *slash = strrchr (key, '/');

  return g_strv_contains (metadata_names, slash != NULL ? slash + 1 : key);
}

static gboolean
is_root_metadata (const char *key)
{
  return strchr (key, '/') == NULL && is_metadata (key);
}

/* ---------------------------------------------------------------------- */
/* Keys */

/* The object key in the bucket of a store key. */
static char *
object_key (NczS3Store *self,
            const char *key)
{
  if (*self->config->prefix == '\0')
    return g_strdup (key);
  if (*key == '\0')
    return g_strdup (self->config->prefix);
  return g_strconcat (self->config->prefix, "/", key, NULL);
}

/* The prefix a listing of the store prefix @key uses ("" or "a/b/"). */
static char *
list_prefix (NczS3Store *self,
             const char *key)
{
  g_autofree char *object = object_key (self, key);

  return *object == '\0' ? g_strdup ("") : g_strconcat (object, "/", NULL);
}

static gboolean
check_key_length (NczS3Store *self,
                  const char *key,
                  GError    **error)
{
  g_autofree char *object = object_key (self, key);

  if (strlen (object) <= NCZ_S3_MAX_KEY_BYTES)
    return TRUE;
  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY,
               "%s/%s: the S3 object key '%.200s…' of key '%.200s…' is %zu bytes long, "
               "over S3's limit of %d bytes",
               self->endpoint, self->config->bucket, object, key, strlen (object),
               NCZ_S3_MAX_KEY_BYTES);
  return FALSE;
}

/* ---------------------------------------------------------------------- */
/* Requests */

typedef struct _Call Call;
typedef void (*CallDone) (Call *call);

struct _Call
{
  NczS3Store *store;
  char *method;
  char *key;            /* the store key, for messages (NULL for bucket requests) */
  char *object;         /* the object key, NULL for the bucket itself */
  char **query;         /* name, value, …, NULL */
  GBytes *body;
  char *payload_hash;
  char *content_md5;
  char *content_type;
  char *range;
  char *if_match;       /* conditional PUT: If-Match, or … */
  char *if_none_match;  /* … If-None-Match */
  GCancellable *cancellable; /* the caller's */
  gulong cancel_id;
  GCancellable *attempt;     /* this attempt's */
  GSource *timer;
  GSource *backoff;
  SoupMessage *msg;
  GInputStream *stream; /* the reply's body */
  guint8 *buffer;       /* … read into this */
  gsize buffer_len;
  GBytes *body_in;
  guint n_attempts;
  gboolean timed_out;
  char *url;            /* of the request, for messages */

  /* results */
  guint status;
  GBytes *response;
  SoupMessageHeaders *headers;
  GError *error;        /* transport failure, set with status 0 */

  CallDone done;
  gpointer data;

  /* synchronous callers */
  gboolean finished;
};

static Call *
call_new (NczS3Store   *self,
          const char   *method,
          const char   *key,
          gboolean      object,
          GCancellable *cancellable)
{
  Call *call = g_new0 (Call, 1);

  call->store = self;
  call->method = g_strdup (method);
  call->key = g_strdup (key);
  call->object = object ? object_key (self, key != NULL ? key : "") : NULL;
  call->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  return call;
}

static void
call_set_query (Call               *call,
                const char * const *pairs)
{
  guint n = 0;

  while (pairs[n] != NULL)
    n += 2;
  g_strfreev (call->query);
  call->query = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    call->query[i] = g_strdup (pairs[i] != NULL ? pairs[i] : "");
}

static void
call_free (Call *call)
{
  g_free (call->method);
  g_free (call->key);
  g_free (call->object);
  g_strfreev (call->query);
  g_clear_pointer (&call->body, g_bytes_unref);
  g_free (call->payload_hash);
  g_free (call->content_md5);
  g_free (call->content_type);
  g_free (call->range);
  g_free (call->if_match);
  g_free (call->if_none_match);
  g_clear_object (&call->cancellable);
  g_clear_object (&call->attempt);
  g_clear_object (&call->msg);
  g_clear_object (&call->stream);
  g_free (call->buffer);
  g_clear_pointer (&call->body_in, g_bytes_unref);
  g_free (call->url);
  g_clear_pointer (&call->response, g_bytes_unref);
  g_clear_pointer (&call->headers, soup_message_headers_unref);
  g_clear_error (&call->error);
  g_free (call);
}

static gboolean
accept_any_certificate (SoupMessage         *msg,
                        GTlsCertificate     *certificate,
                        GTlsCertificateFlags errors,
                        gpointer             user_data)
{
  return TRUE;
}

static void call_attempt (Call *call);
static void call_slot_release (NczS3Store *self);

static void
cancel_attempt (GCancellable *cancellable,
                gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static gboolean
attempt_timed_out (gpointer user_data)
{
  Call *call = user_data;

  call->timed_out = TRUE;
  g_cancellable_cancel (call->attempt);
  g_clear_pointer (&call->timer, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
call_finish (Call *call)
{
  NczS3Store *self = call->store;

  call_slot_release (self);
  /* last: the callback may drop the last reference to the store */
  call->done (call);
}

static gboolean
retry_now (gpointer user_data)
{
  Call *call = user_data;

  g_clear_pointer (&call->backoff, g_source_unref);
  call_attempt (call);
  return G_SOURCE_REMOVE;
}

static gboolean
status_is_retryable (guint status)
{
  return status >= 500 || status == 429 || status == 408;
}

static gboolean
error_is_retryable (const GError *error)
{
  if (error->domain == G_TLS_ERROR)
    return FALSE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  return TRUE;
}

static void
schedule_retry (Call *call)
{
  NczS3Store *self = call->store;
  guint shift = MIN (call->n_attempts - 1, 16u);
  double ceiling = MIN ((double) BACKOFF_BASE_MS * (double) (1u << shift), (double) BACKOFF_MAX_MS);
  /* jitter: anywhere in the upper half of the window */
  guint delay = (guint) g_random_double_range (ceiling / 2, ceiling);

  g_clear_pointer (&call->response, g_bytes_unref);
  g_clear_pointer (&call->headers, soup_message_headers_unref);
  g_clear_error (&call->error);
  call->status = 0;
  call->backoff = g_timeout_source_new (delay);
  g_source_set_callback (call->backoff, retry_now, call, NULL);
  g_source_attach (call->backoff, self->context);
}

/* The end of an attempt: the body (or a transport failure) is in. */
static void
attempt_done (Call   *call,
              GBytes *body,
              GError *error)
{
  NczS3Store *self = call->store;
  gboolean user_cancelled = call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable);
  gboolean retry = FALSE;

  if (call->timer != NULL)
    {
      g_source_destroy (call->timer);
      g_clear_pointer (&call->timer, g_source_unref);
    }
  if (call->cancel_id != 0)
    {
      g_cancellable_disconnect (call->cancellable, call->cancel_id);
      call->cancel_id = 0;
    }
  g_mutex_lock (&self->lock);
  self->in_flight--;
  g_mutex_unlock (&self->lock);

  if (error != NULL)
    {
      if (user_cancelled)
        {
          g_clear_error (&error);
          g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
        }
      else if (call->timed_out || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        {
          g_clear_error (&error);
          g_set_error (&error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       "no complete answer within %u s", self->config->timeout);
        }
      call->error = error;
      call->status = 0;
      retry = !user_cancelled && error_is_retryable (error);
      g_clear_pointer (&body, g_bytes_unref);
    }
  else
    {
      call->status = soup_message_get_status (call->msg);
      call->response = body;
      call->headers = soup_message_headers_ref (soup_message_get_response_headers (call->msg));
      retry = status_is_retryable (call->status);
    }
  g_clear_object (&call->stream);
  g_clear_pointer (&call->buffer, g_free);
  g_clear_object (&call->msg);
  g_clear_object (&call->attempt);

  if (retry && call->n_attempts <= self->config->retries)
    {
      g_debug ("%s %s: attempt %u failed (%s), retrying", call->method, call->url,
               call->n_attempts, call->error != NULL ? call->error->message : "HTTP error");
      schedule_retry (call);
      return;
    }
  call_finish (call);
}

static void
on_closed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  GBytes *body = g_steal_pointer (&call->body_in);

  if (!g_input_stream_close_finish (G_INPUT_STREAM (source), result, &error))
    g_clear_pointer (&body, g_bytes_unref);
  attempt_done (call, body, error);
}

/* The body is read: the stream is closed (which lets libsoup reuse the
 * connection) before the attempt ends. */
static void
body_complete (Call   *call,
               GBytes *body)
{
  call->body_in = body;
  g_input_stream_close_async (call->stream, G_PRIORITY_DEFAULT, call->attempt, on_closed, call);
}

static void
on_body_all (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  gsize n = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &n, &error))
    {
      attempt_done (call, NULL, error);
      return;
    }
  if (n != call->buffer_len)
    {
      g_set_error (&error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                   "the reply ended after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes",
                   n, call->buffer_len);
      attempt_done (call, NULL, error);
      return;
    }
  body_complete (call, g_bytes_new_take (g_steal_pointer (&call->buffer), call->buffer_len));
}

#define READ_STEP (256 * 1024)

/* Bodies of unknown length (chunked): read in large steps. */
static void
on_body_step (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  if (n < 0)
    {
      attempt_done (call, NULL, error);
      return;
    }
  if (n == 0)
    {
      gsize len = call->buffer_len;

      body_complete (call, g_bytes_new_take (g_steal_pointer (&call->buffer), len));
      return;
    }
  call->buffer_len += (gsize) n;
  call->buffer = g_realloc (call->buffer, call->buffer_len + READ_STEP);
  g_input_stream_read_async (call->stream, call->buffer + call->buffer_len, READ_STEP,
                             G_PRIORITY_DEFAULT, call->attempt, on_body_step, call);
}

/* Headers are in: the body is read into one buffer of the announced
 * length (libsoup's own reader copies it in 8 KiB steps). */
static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  SoupMessageHeaders *headers;
  goffset length;

  call->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (call->stream == NULL)
    {
      attempt_done (call, NULL, error);
      return;
    }
  headers = soup_message_get_response_headers (call->msg);
  if (strcmp (call->method, "HEAD") == 0)
    {
      body_complete (call, g_bytes_new (NULL, 0));
      return;
    }
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH
      && (length = soup_message_headers_get_content_length (headers)) >= 0
      && (guint64) length <= G_MAXSIZE / 2)
    {
      if (length == 0)
        {
          body_complete (call, g_bytes_new (NULL, 0));
          return;
        }
      call->buffer_len = (gsize) length;
      call->buffer = g_try_malloc (call->buffer_len);
      if (call->buffer == NULL)
        {
          g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                       "no memory for a reply of %" G_GSIZE_FORMAT " bytes", call->buffer_len);
          attempt_done (call, NULL, error);
          return;
        }
      g_input_stream_read_all_async (call->stream, call->buffer, call->buffer_len, G_PRIORITY_DEFAULT,
                                     call->attempt, on_body_all, call);
      return;
    }
  call->buffer_len = 0;
  call->buffer = g_malloc (READ_STEP);
  g_input_stream_read_async (call->stream, call->buffer, READ_STEP, G_PRIORITY_DEFAULT,
                             call->attempt, on_body_step, call);
}

static char *
build_path (Call *call)
{
  NczS3Store *self = call->store;
  g_autofree char *encoded = call->object != NULL ? ncz_s3_uri_encode (call->object, -1, TRUE) : NULL;

  if (encoded == NULL)
    return g_strconcat (self->root_path, "/", NULL);
  return g_strconcat (self->root_path, "/", encoded, NULL);
}

static void
set_body (SoupMessage *msg,
          Call        *call)
{
  soup_message_set_request_body_from_bytes (msg,
                                            call->content_type != NULL ? call->content_type
                                                                       : "application/octet-stream",
                                            call->body);
}

static void
call_attempt (Call *call)
{
  NczS3Store *self = call->store;
  NczS3Config *config = self->config;
  g_autofree char *path = build_path (call);
  g_autofree char *query = ncz_s3_canonical_query ((const char * const *) call->query);
  g_autofree char *text = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;

  call->n_attempts++;
  call->timed_out = FALSE;
  text = g_strconcat (self->endpoint, path, *query ? "?" : "", query, NULL);
  if (call->url == NULL)
    call->url = g_strdup (text);
  uri = g_uri_parse (text, G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, &error);
  if (uri == NULL)
    {
      call->error = g_steal_pointer (&error);
      call_finish (call);
      return;
    }
  call->msg = soup_message_new_from_uri (call->method, uri);
  headers = soup_message_get_request_headers (call->msg);
  if (!config->tls_verify)
    g_signal_connect (call->msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
  if (call->body != NULL)
    {
      set_body (call->msg, call);
      /* libsoup re-sends a request itself when a kept-alive connection
       * turns out closed; the body stream it read is then at its end and
       * would go out empty: it is given again */
      g_signal_connect (call->msg, "restarted", G_CALLBACK (set_body), call);
    }
  if (call->range != NULL)
    soup_message_headers_replace (headers, "Range", call->range);
  if (call->content_md5 != NULL)
    soup_message_headers_replace (headers, "Content-MD5", call->content_md5);
  if (call->if_match != NULL)
    soup_message_headers_replace (headers, "If-Match", call->if_match);
  if (call->if_none_match != NULL)
    soup_message_headers_replace (headers, "If-None-Match", call->if_none_match);

  if (config->access_key != NULL)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *date = ncz_s3_amz_date (now);
      g_autofree char *authorization = NULL;
      NczS3Header signed_headers[4] = {
        { "host", self->host_header },
        { "x-amz-content-sha256", call->payload_hash },
        { "x-amz-date", date },
        { "x-amz-security-token", config->session_token },
      };
      guint n = config->session_token != NULL ? 4 : 3;

      authorization = ncz_s3_authorization (config->access_key, config->secret_key, config->region,
                                            date, call->method, path, query, signed_headers, n,
                                            call->payload_hash);
      soup_message_headers_replace (headers, "x-amz-content-sha256", call->payload_hash);
      soup_message_headers_replace (headers, "x-amz-date", date);
      if (config->session_token != NULL)
        soup_message_headers_replace (headers, "x-amz-security-token", config->session_token);
      soup_message_headers_replace (headers, "Authorization", authorization);
      memset (authorization, 0, strlen (authorization));
    }

  call->attempt = g_cancellable_new ();
  if (call->cancellable != NULL)
    call->cancel_id = g_cancellable_connect (call->cancellable, G_CALLBACK (cancel_attempt),
                                             g_object_ref (call->attempt), g_object_unref);
  call->timer = g_timeout_source_new_seconds (config->timeout);
  g_source_set_callback (call->timer, attempt_timed_out, call, NULL);
  g_source_attach (call->timer, self->context);

  g_mutex_lock (&self->lock);
  self->n_requests++;
  self->in_flight++;
  self->max_in_flight = MAX (self->max_in_flight, self->in_flight);
  g_mutex_unlock (&self->lock);

  soup_session_send_async (self->session, call->msg, G_PRIORITY_DEFAULT, call->attempt, on_sent, call);
}

/* On the request thread: a call gets a slot or waits for one. */
static gboolean
call_submit_here (gpointer user_data)
{
  Call *call = user_data;
  NczS3Store *self = call->store;

  if (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable))
    {
      g_set_error_literal (&call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      self->active++;
      call_finish (call);
      return G_SOURCE_REMOVE;
    }
  if (self->active >= MAX_IN_FLIGHT)
    {
      g_queue_push_tail (&self->waiting, call);
      return G_SOURCE_REMOVE;
    }
  self->active++;
  call_attempt (call);
  return G_SOURCE_REMOVE;
}

static void
call_slot_release (NczS3Store *self)
{
  Call *next;

  self->active--;
  next = g_queue_pop_head (&self->waiting);
  if (next != NULL)
    {
      /* started from an idle so a long queue does not recurse */
      GSource *idle = g_idle_source_new ();

      g_source_set_callback (idle, call_submit_here, next, NULL);
      g_source_attach (idle, self->context);
      g_source_unref (idle);
    }
}

/* From any thread: hands @call to the request thread; @done runs there. */
static void
call_submit (Call    *call,
             CallDone done,
             gpointer data)
{
  NczS3Store *self = call->store;
  GSource *idle;

  call->done = done;
  call->data = data;
  if (call->payload_hash == NULL)
    call->payload_hash = ncz_s3_sha256_hex (call->body);
  idle = g_idle_source_new ();
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, call_submit_here, call, NULL);
  g_source_attach (idle, self->context);
  g_source_unref (idle);
}

static void
sync_done (Call *call)
{
  NczS3Store *self = call->store;

  g_mutex_lock (&self->lock);
  call->finished = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* Runs @call and waits for it. */
static void
call_run (Call *call)
{
  NczS3Store *self = call->store;

  call_submit (call, sync_done, NULL);
  g_mutex_lock (&self->lock);
  while (!call->finished)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

/* Runs calls at once and waits for all. */
static void
calls_run (Call **calls,
           guint  n)
{
  NczS3Store *self;

  if (n == 0)
    return;
  self = calls[0]->store;
  for (guint i = 0; i < n; i++)
    call_submit (calls[i], sync_done, NULL);
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < n; i++)
    while (!calls[i]->finished)
      g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

/* ---------------------------------------------------------------------- */
/* Errors */

static gboolean
call_ok (Call *call)
{
  return call->error == NULL && call->status >= 200 && call->status < 300;
}

static gboolean
call_missing (Call *call)
{
  return call->error == NULL && call->status == 404;
}

/* The error of a failed call: names the request URL, the key and the S3
 * error code; never a credential. */
static void
call_set_error (Call    *call,
                GError **error,
                const char *what)
{
  NczS3Store *self = call->store;
  g_autofree char *key_part = call->key != NULL ? g_strdup_printf (" (key '%s')", call->key)
                                                : g_strdup ("");
  const char *url = call->url != NULL ? call->url : self->endpoint;
  NczStorageError code;

  if (call->error != NULL)
    {
      if (g_error_matches (call->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, call->error->message);
          return;
        }
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO,
                   "S3 %s %s%s: %s: %s (%u attempt%s)", call->method, url, key_part, what,
                   call->error->message, call->n_attempts, call->n_attempts == 1 ? "" : "s");
      return;
    }
  {
    g_autoptr(GPtrArray) leaves = NULL;
    const char *s3_code = NULL;
    const char *s3_message = NULL;

    if (call->response != NULL)
      {
        gsize size;
        const char *data = g_bytes_get_data (call->response, &size);

        leaves = ncz_s3_xml_leaves (data, size);
        s3_code = ncz_s3_xml_find (leaves, "Error/Code");
        s3_message = ncz_s3_xml_find (leaves, "Error/Message");
      }
    switch (call->status)
      {
      case 404:
        code = NCZ_STORAGE_ERROR_NOT_FOUND;
        break;
      case 401:
      case 403:
        code = NCZ_STORAGE_ERROR_PERMISSION;
        break;
      default:
        code = call->status >= 500 ? NCZ_STORAGE_ERROR_IO : NCZ_STORAGE_ERROR_FAILED;
        break;
      }
    g_set_error (error, NCZ_STORAGE_ERROR, code, "S3 %s %s%s: %s: HTTP %u %s%s%s%s%s",
                 call->method, url, key_part, what, call->status,
                 s3_code != NULL ? s3_code : soup_status_get_phrase (call->status),
                 s3_message != NULL && *s3_message ? " (" : "",
                 s3_message != NULL ? s3_message : "",
                 s3_message != NULL && *s3_message ? ")" : "",
                 call->n_attempts > 1 ? " (after retries)" : "");
  }
}

/* ---------------------------------------------------------------------- */
/* Bodies */

/* The bytes of a GET, @offset and @length applied when the server sent
 * the whole object (200) for a ranged request. */
static GBytes *
range_of (GBytes  *whole,
          guint64  offset,
          gint64   length)
{
  gsize size = g_bytes_get_size (whole);

  if (offset >= size)
    return g_bytes_new (NULL, 0);
  if (length < 0 || offset + (guint64) length > size)
    length = (gint64) (size - offset);
  return g_bytes_new_from_bytes (whole, offset, (gsize) length);
}

static char *
range_header (guint64 offset,
              gint64  length)
{
  if (length < 0)
    return offset == 0 ? NULL : g_strdup_printf ("bytes=%" G_GUINT64_FORMAT "-", offset);
  if (length == 0)
    return g_strdup_printf ("bytes=%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, offset, offset);
  return g_strdup_printf ("bytes=%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, offset,
                          offset + (guint64) length - 1);
}

/* ---------------------------------------------------------------------- */
/* Replacing a dataset: held root metadata */

static GBytes *
held_lookup (NczS3Store *self,
             const char *key)
{
  GBytes *bytes = NULL;

  g_mutex_lock (&self->lock);
  if (self->replacing && self->held != NULL)
    bytes = g_hash_table_lookup (self->held, key);
  if (bytes != NULL)
    g_bytes_ref (bytes);
  g_mutex_unlock (&self->lock);
  return bytes;
}

static gboolean
held_lookup_has (NczS3Store *self,
                 const char *key)
{
  g_autoptr(GBytes) held = held_lookup (self, key);

  return held != NULL;
}

static gboolean
holds_back (NczS3Store *self,
            const char *key)
{
  gboolean held;

  g_mutex_lock (&self->lock);
  held = self->replacing && is_metadata (key);
  g_mutex_unlock (&self->lock);
  return held;
}

/* @etag: the ETag the server gave the write, or NULL */
static void
note_written (NczS3Store *self,
              const char *key,
              const char *etag)
{
  g_mutex_lock (&self->lock);
  if (self->replacing)
    g_hash_table_replace (self->written, g_strdup (key), g_strdup (etag));
  else
    self->write_done_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->lock);
}

/* The ETag header of a reply, or NULL. */
static const char *
call_etag (Call *call)
{
  const char *etag = call->headers != NULL ? soup_message_headers_get_one (call->headers, "ETag")
                                           : NULL;

  return etag != NULL && *etag != '\0' ? etag : NULL;
}

static char *etag_bare (const char *etag);
static gboolean needs_prepare (NczS3Store *self);
static gboolean prepare_replace (NczS3Store *self, GCancellable *cancellable, GError **error);

/* Generations, below */
typedef void (*CheckDone) (NczS3Store   *self,
                           const char   *tag,
                           const GError *io_error,
                           gpointer      data);
static gboolean ensure_baseline (NczS3Store *self, const char *key, GCancellable *cancellable,
                                 GError **error);
static gboolean checks_generation (NczS3Store *self);
static gboolean needs_baseline (NczS3Store *self, const char *key);
static gboolean store_usable (NczS3Store *self, const char *key, gboolean writing,
                              GError **error);
static gboolean check_generation (NczS3Store *self, const char *key, gboolean writing,
                                  GError **error);
static gboolean check_after_read (NczS3Store *self, const char *key, GError **error);
static void check_submit (NczS3Store *self, CheckDone done, gpointer data);
static gboolean generation_unchanged (NczS3Store *self, const char *tag, const GError *io_error,
                                      const char *key, gboolean writing, GError **error);
static gboolean before_write (NczS3Store *self, const char *key, GCancellable *cancellable,
                              GError **error);
static gboolean replace_guard (NczS3Store *self, GCancellable *cancellable, GError **error);
static gboolean replace_guard_is_due (NczS3Store *self);

/* Listings do not show the generation record. */
static void
drop_generation_key (const char *prefix,
                     GPtrArray  *names)
{
  if (*prefix != '\0')
    return;
  for (guint i = 0; i < names->len; i++)
    if (g_strcmp0 (g_ptr_array_index (names, i), GENERATION_KEY) == 0)
      {
        g_ptr_array_remove_index (names, i);
        return;
      }
}

/* ---------------------------------------------------------------------- */
/* Synchronous operations */

static gboolean
get_length_sync (NczS3Store   *self,
                 const char   *key,
                 guint64      *length,
                 GCancellable *cancellable,
                 GError      **error)
{
  Call *call;
  gboolean ok;

  call = call_new (self, "HEAD", key, TRUE, cancellable);
  call_run (call);
  ok = call_ok (call);
  if (ok)
    *length = (guint64) soup_message_headers_get_content_length (call->headers);
  else
    call_set_error (call, error, "reading the length");
  call_free (call);
  return ok;
}

static GBytes *
ncz_s3_store_read (NczStore     *store,
                   const char   *key,
                   guint64       offset,
                   gint64        length,
                   GCancellable *cancellable,
                   GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autoptr(GBytes) held = held_lookup (self, key);
  g_autoptr(GError) local = NULL;
  GBytes *result = NULL;
  Call *call;

  if (held != NULL)
    return range_of (held, offset, length);
  if (!check_key_length (self, key, error) || !store_usable (self, key, FALSE, error)
      || !ensure_baseline (self, key, cancellable, error))
    return NULL;
  call = call_new (self, "GET", key, TRUE, cancellable);
  call->range = range_header (offset, length);
  call_run (call);
  if (call->error == NULL && call->status == 206)
    result = range_of (call->response, 0, length);
  else if (call->error == NULL && call->status == 200)
    result = range_of (call->response, offset, length);
  else if (call->error == NULL && call->status == 416)
    {
      guint64 size = 0;

      /* a range at or past the end: empty at the end, else an error */
      if (get_length_sync (self, key, &size, cancellable, &local))
        {
          if (offset == size)
            result = g_bytes_new (NULL, 0);
          else
            g_set_error (&local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                         "S3 GET %s (key '%s'): offset %" G_GUINT64_FORMAT
                         " is past the end of the object (%" G_GUINT64_FORMAT " bytes)",
                         call->url, key, offset, size);
        }
    }
  else
    call_set_error (call, &local, "reading");
  call_free (call);
  if (result != NULL && !check_after_read (self, key, &local))
    g_clear_pointer (&result, g_bytes_unref);
  /* the root group missing from a dataset opened whole: a replacement
   * that began since removed it, which the generation tells */
  if (result == NULL && strcmp (key, ".zgroup") == 0
      && g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND)
      && checks_generation (self))
    {
      g_autoptr(GError) replaced = NULL;

      if (!check_generation (self, key, FALSE, &replaced)
          && g_error_matches (replaced, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT))
        {
          g_clear_error (&local);
          local = g_steal_pointer (&replaced);
        }
    }
  if (result == NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return result;
}

/* PUT of one whole object; its new ETag in @etag. */
static gboolean
put_object (NczS3Store   *self,
            const char   *key,
            GBytes       *data,
            char        **etag,
            GCancellable *cancellable,
            GError      **error)
{
  Call *call = call_new (self, "PUT", key, TRUE, cancellable);
  gboolean ok;

  call->body = g_bytes_ref (data);
  call_run (call);
  ok = call_ok (call);
  if (ok && etag != NULL)
    *etag = g_strdup (call_etag (call));
  if (!ok)
    call_set_error (call, error, "writing");
  call_free (call);
  return ok;
}

static void
abort_upload (NczS3Store *self,
              const char *key,
              const char *upload_id)
{
  const char *q[] = { "uploadId", upload_id, NULL };
  Call *call = call_new (self, "DELETE", key, TRUE, NULL);
  g_autoptr(GError) error = NULL;

  call_set_query (call, q);
  call_run (call);
  if (!call_ok (call))
    {
      call_set_error (call, &error, "aborting a multipart upload");
      g_debug ("%s", error->message);
    }
  call_free (call);
}

/* Multipart upload: parts of PART_SIZE (the last shorter), all in
 * flight at once up to the store's limit; aborted on failure. The
 * object's ETag in @new_tag. */
static gboolean
put_multipart (NczS3Store   *self,
               const char   *key,
               GBytes       *data,
               char        **new_tag,
               GCancellable *cancellable,
               GError      **error)
{
  static const char * const create_q[] = { "uploads", "", NULL };
  gsize size = g_bytes_get_size (data);
  guint n_parts = (guint) ((size + PART_SIZE - 1) / PART_SIZE);
  g_autofree char *upload_id = NULL;
  g_autoptr(GPtrArray) leaves = NULL;
  g_autoptr(GString) complete = NULL;
  g_autoptr(GChecksum) md5s = g_checksum_new (G_CHECKSUM_MD5);
  gboolean md5s_ok = TRUE;
  Call **parts;
  Call *call;
  gboolean ok = TRUE;

  call = call_new (self, "POST", key, TRUE, cancellable);
  call_set_query (call, create_q);
  call_run (call);
  if (call_ok (call))
    {
      gsize len;
      const char *text = g_bytes_get_data (call->response, &len);

      leaves = ncz_s3_xml_leaves (text, len);
      upload_id = g_strdup (ncz_s3_xml_find (leaves, "InitiateMultipartUploadResult/UploadId"));
      if (upload_id == NULL)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "S3 POST %s (key '%s'): starting a multipart upload: no UploadId in the reply",
                     call->url, key);
    }
  else
    call_set_error (call, error, "starting a multipart upload");
  call_free (call);
  if (upload_id == NULL)
    return FALSE;

  parts = g_new0 (Call *, n_parts);
  for (guint i = 0; i < n_parts; i++)
    {
      g_autofree char *number = g_strdup_printf ("%u", i + 1);
      const char *q[] = { "partNumber", number, "uploadId", upload_id, NULL };
      gsize start = (gsize) i * PART_SIZE;

      parts[i] = call_new (self, "PUT", key, TRUE, cancellable);
      call_set_query (parts[i], q);
      parts[i]->body = g_bytes_new_from_bytes (data, start, MIN ((gsize) PART_SIZE, size - start));
    }
  calls_run (parts, n_parts);
  complete = g_string_new ("<CompleteMultipartUpload>");
  for (guint i = 0; i < n_parts; i++)
    {
      const char *etag = NULL;

      if (ok && call_ok (parts[i]))
        etag = soup_message_headers_get_one (parts[i]->headers, "ETag");
      if (ok && etag == NULL)
        {
          if (call_ok (parts[i]))
            g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                         "S3 PUT %s (key '%s'): part %u has no ETag", parts[i]->url, key, i + 1);
          else
            call_set_error (parts[i], error, "uploading a part");
          ok = FALSE;
        }
      if (ok)
        {
          g_autofree char *escaped = ncz_s3_xml_escape (etag);
          g_autofree char *bare = etag_bare (etag);
          guint8 digest[16];

          g_string_append_printf (complete, "<Part><PartNumber>%u</PartNumber><ETag>%s</ETag></Part>",
                                  i + 1, escaped);
          /* the object's ETag, where the server does not say it: the MD5
           * of the parts' MD5s, "-", the number of parts */
          md5s_ok = md5s_ok && strlen (bare) == 32;
          for (guint b = 0; md5s_ok && b < 16; b++)
            {
              int hi = g_ascii_xdigit_value (bare[2 * b]), lo = g_ascii_xdigit_value (bare[2 * b + 1]);

              md5s_ok = hi >= 0 && lo >= 0;
              digest[b] = (guint8) (hi * 16 + lo);
            }
          if (md5s_ok)
            g_checksum_update (md5s, digest, sizeof digest);
        }
      call_free (parts[i]);
    }
  g_free (parts);
  g_string_append (complete, "</CompleteMultipartUpload>");

  if (ok)
    {
      const char *q[] = { "uploadId", upload_id, NULL };

      call = call_new (self, "POST", key, TRUE, cancellable);
      call_set_query (call, q);
      call->content_type = g_strdup ("application/xml");
      call->body = g_bytes_new (complete->str, complete->len);
      call_run (call);
      ok = call_ok (call);
      if (ok)
        {
          /* a 200 may still carry an error */
          gsize len;
          const char *text = g_bytes_get_data (call->response, &len);
          g_autoptr(GPtrArray) reply = ncz_s3_xml_leaves (text, len);

          if (ncz_s3_xml_find (reply, "Error/Code") != NULL)
            {
              call->status = 500;
              ok = FALSE;
            }
          else if (new_tag != NULL)
            {
              /* radosgw 16.2 leaves it empty */
              const char *etag = ncz_s3_xml_find (reply, "CompleteMultipartUploadResult/ETag");

              if (etag != NULL && *etag != '\0')
                *new_tag = g_strdup (etag);
              else if (md5s_ok)
                *new_tag = g_strdup_printf ("\"%s-%u\"", g_checksum_get_string (md5s), n_parts);
            }
        }
      if (!ok)
        call_set_error (call, error, "completing a multipart upload");
      call_free (call);
    }
  if (!ok)
    abort_upload (self, key, upload_id);
  return ok;
}

static gboolean
write_object (NczS3Store   *self,
              const char   *key,
              GBytes       *data,
              GCancellable *cancellable,
              GError      **error)
{
  g_autofree char *etag = NULL;
  gboolean ok;

  if (!check_key_length (self, key, error))
    return FALSE;
  if (holds_back (self, key))
    {
      g_mutex_lock (&self->lock);
      g_hash_table_replace (self->held, g_strdup (key), g_bytes_ref (data));
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  if (needs_prepare (self) && !prepare_replace (self, cancellable, error))
    return FALSE;
  if (!before_write (self, key, cancellable, error))
    return FALSE;
  if (g_bytes_get_size (data) > MULTIPART_THRESHOLD)
    ok = put_multipart (self, key, data, &etag, cancellable, error);
  else
    ok = put_object (self, key, data, &etag, cancellable, error);
  if (!ok)
    return FALSE;
  note_written (self, key, etag);
  return TRUE;
}

static gboolean
ncz_s3_store_write (NczStore     *store,
                    const char   *key,
                    GBytes       *data,
                    GCancellable *cancellable,
                    GError      **error)
{
  return write_object (NCZ_S3_STORE (store), key, data, cancellable, error);
}

/* One ListObjectsV2 request. */
static Call *
list_call_new (NczS3Store   *self,
               const char   *prefix,
               gboolean      delimited,
               const char   *token,
               guint         max_keys,
               GCancellable *cancellable)
{
  g_autofree char *max_text = g_strdup_printf ("%u", MAX (1u, MIN (max_keys, 1000u)));
  const char *q[12];
  guint n = 0;
  Call *call = call_new (self, "GET", NULL, FALSE, cancellable);

  q[n++] = "list-type";
  q[n++] = "2";
  q[n++] = "prefix";
  q[n++] = prefix;
  q[n++] = "max-keys";
  q[n++] = max_text;
  if (delimited)
    {
      q[n++] = "delimiter";
      q[n++] = "/";
    }
  if (token != NULL)
    {
      q[n++] = "continuation-token";
      q[n++] = token;
    }
  q[n] = NULL;
  call->key = g_strdup (prefix);
  call_set_query (call, q);
  return call;
}

/* The names (after @prefix) and the continuation token of a listing. */
static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
list_parse (Call        *call,
            const char  *prefix,
            GPtrArray   *names,
            char       **next_token,
            GError     **error)
{
  g_autoptr(GPtrArray) leaves = NULL;
  gsize plen = strlen (prefix);
  guint first = names->len;
  const char *truncated;
  const char *text;
  gsize len;

  *next_token = NULL;
  if (!call_ok (call))
    {
      call_set_error (call, error, "listing");
      return FALSE;
    }
  text = g_bytes_get_data (call->response, &len);
  leaves = ncz_s3_xml_leaves (text, len);
  if (leaves == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "S3 GET %s (prefix '%s'): listing: the reply is not XML", call->url, prefix);
      return FALSE;
    }
  for (guint i = 0; i + 1 < leaves->len; i += 2)
    {
      const char *path = g_ptr_array_index (leaves, i);
      const char *value = g_ptr_array_index (leaves, i + 1);

      if ((strcmp (path, "ListBucketResult/Contents/Key") == 0
           || strcmp (path, "ListBucketResult/CommonPrefixes/Prefix") == 0)
          && strncmp (value, prefix, plen) == 0)
        g_ptr_array_add (names, g_strdup (value + plen));
    }
  /* a reply lists the objects, then the common prefixes: one sorted
   * sequence of names, page after page, as S3 orders keys */
  if (names->len > first)
    qsort (&names->pdata[first], names->len - first, sizeof (gpointer), compare_names);
  truncated = ncz_s3_xml_find (leaves, "ListBucketResult/IsTruncated");
  if (truncated != NULL && g_ascii_strcasecmp (truncated, "true") == 0)
    {
      const char *next = ncz_s3_xml_find (leaves, "ListBucketResult/NextContinuationToken");

      if (next == NULL || *next == '\0')
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "S3 GET %s (prefix '%s'): listing: truncated without a continuation token",
                       call->url, prefix);
          return FALSE;
        }
      *next_token = g_strdup (next);
    }
  return TRUE;
}

static gboolean
list_request (NczS3Store   *self,
              const char   *prefix,
              gboolean      delimited,
              const char   *token,
              guint         max_keys,
              GPtrArray    *names,
              char        **next_token,
              GCancellable *cancellable,
              GError      **error)
{
  Call *call = list_call_new (self, prefix, delimited, token, max_keys, cancellable);
  gboolean ok;

  call_run (call);
  ok = list_parse (call, prefix, names, next_token, error);
  call_free (call);
  return ok;
}

/* Every name under @prefix, page after page: the object keys (relative
 * to @prefix) recursively, or with @delimited the objects and common
 * prefixes of one level. */
static GPtrArray *
list_all (NczS3Store   *self,
          const char   *prefix,
          gboolean      delimited,
          GCancellable *cancellable,
          GError      **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *token = NULL;

  do
    {
      char *next = NULL;

      if (!list_request (self, prefix, delimited, token, 1000, names, &next, cancellable, error))
        return NULL;
      g_free (token);
      token = next;
    }
  while (token != NULL);
  return g_steal_pointer (&names);
}

/* Turns raw listing entries into child names: "" (the prefix's own
 * marker object) dropped, the '/' of common prefixes cut. */
static void
clean_names (GPtrArray *names)
{
  for (guint i = 0; i < names->len;)
    {
      char *name = g_ptr_array_index (names, i);
      gsize len = strlen (name);

      if (len > 0 && name[len - 1] == '/')
        name[--len] = '\0';
      if (len == 0 || strchr (name, '/') != NULL)
        g_ptr_array_remove_index (names, i);
      else
        i++;
    }
}

static char **
ncz_s3_store_list (NczStore     *store,
                   const char   *prefix,
                   GCancellable *cancellable,
                   GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autofree char *lp = list_prefix (self, prefix);
  g_autoptr(GPtrArray) names = list_all (self, lp, TRUE, cancellable, error);

  if (names == NULL)
    return NULL;
  clean_names (names);
  drop_generation_key (prefix, names);
  /* metadata held back until commit is listed as if written */
  g_mutex_lock (&self->lock);
  if (self->replacing)
    {
      GHashTableIter iter;
      gpointer key;
      gsize plen = strlen (prefix);

      g_hash_table_iter_init (&iter, self->held);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          const char *rest = key;
          const char *slash;

          if (plen > 0)
            {
              if (strncmp (key, prefix, plen) != 0 || ((char *) key)[plen] != '/')
                continue;
              rest = (char *) key + plen + 1;
            }
          slash = strchr (rest, '/');
          g_ptr_array_add (names, slash != NULL ? g_strndup (rest, slash - rest) : g_strdup (rest));
        }
    }
  g_mutex_unlock (&self->lock);
  /* sorted, and each name once (a held group's name may also be a
   * common prefix of its chunks) */
  g_ptr_array_sort (names, compare_names);
  for (guint i = 1; i < names->len;)
    if (strcmp (g_ptr_array_index (names, i), g_ptr_array_index (names, i - 1)) == 0)
      g_ptr_array_remove_index (names, i);
    else
      i++;
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

static char **
ncz_s3_store_list_page (NczStore      *store,
                        const char    *prefix,
                        const char    *token,
                        guint          max_names,
                        char         **next_token,
                        GCancellable  *cancellable,
                        GError       **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autofree char *lp = list_prefix (self, prefix);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  char *next = NULL;
  gboolean replacing;

  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  g_mutex_unlock (&self->lock);
  if (replacing)
    {
      /* metadata held back are listed too: the whole listing, cut into
       * pages whose token is the last name given */
      g_auto(GStrv) all = ncz_s3_store_list (store, prefix, cancellable, error);
      guint i = 0, n = 0;

      if (all == NULL)
        return NULL;
      while (all[i] != NULL && token != NULL && strcmp (all[i], token) <= 0)
        i++;
      for (; all[i] != NULL && n < max_names; i++, n++)
        g_ptr_array_add (names, g_strdup (all[i]));
      if (next_token != NULL)
        *next_token = all[i] != NULL && n > 0 ? g_strdup (all[i - 1]) : NULL;
      g_ptr_array_add (names, NULL);
      return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
    }
  if (!list_request (self, lp, TRUE, token, max_names, names, &next, cancellable, error))
    return NULL;
  clean_names (names);
  drop_generation_key (prefix, names);
  if (next_token != NULL)
    *next_token = next;
  else
    g_free (next);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* Deletes object keys (full keys) with multi-object delete requests. */
static gboolean
delete_objects (NczS3Store   *self,
                GPtrArray    *objects,
                GCancellable *cancellable,
                GError      **error)
{
  static const char * const q[] = { "delete", "", NULL };

  for (guint first = 0; first < objects->len; first += DELETE_BATCH)
    {
      guint last = MIN (first + DELETE_BATCH, objects->len);
      g_autoptr(GString) body = g_string_new ("<Delete><Quiet>true</Quiet>");
      Call *call;
      gboolean ok;

      for (guint i = first; i < last; i++)
        {
          g_autofree char *escaped = ncz_s3_xml_escape (g_ptr_array_index (objects, i));

          g_string_append_printf (body, "<Object><Key>%s</Key></Object>", escaped);
        }
      g_string_append (body, "</Delete>");
      call = call_new (self, "POST", NULL, FALSE, cancellable);
      call_set_query (call, q);
      call->content_type = g_strdup ("application/xml");
      call->body = g_bytes_new (body->str, body->len);
      call->content_md5 = ncz_s3_md5_base64 (call->body);
      call_run (call);
      ok = call_ok (call);
      if (ok)
        {
          gsize len;
          const char *text = g_bytes_get_data (call->response, &len);
          g_autoptr(GPtrArray) leaves = ncz_s3_xml_leaves (text, len);
          const char *key = ncz_s3_xml_find (leaves, "DeleteResult/Error/Key");

          if (key != NULL)
            {
              const char *code = ncz_s3_xml_find (leaves, "DeleteResult/Error/Code");

              g_set_error (error, NCZ_STORAGE_ERROR,
                           g_strcmp0 (code, "AccessDenied") == 0 ? NCZ_STORAGE_ERROR_PERMISSION
                                                                 : NCZ_STORAGE_ERROR_FAILED,
                           "S3 POST %s: deleting object '%s': %s", call->url, key,
                           code != NULL ? code : "failed");
              ok = FALSE;
            }
        }
      else
        call_set_error (call, error, "deleting objects");
      call_free (call);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
ncz_s3_store_remove (NczStore     *store,
                     const char   *key,
                     GCancellable *cancellable,
                     GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autofree char *lp = list_prefix (self, key);
  g_autoptr(GPtrArray) below = NULL;
  g_autoptr(GPtrArray) objects = g_ptr_array_new_with_free_func (g_free);

  if (!check_key_length (self, key, error) || !before_write (self, key, cancellable, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  if (self->replacing)
    {
      /* during a replacement, what is at the URL is either written by
       * this store or old and removed at commit anyway: only the former
       * is deleted now, and no listing is needed */
      gsize len = strlen (key);
      GHashTable *tables[2] = { self->held, self->written };

      for (int t = 0; t < 2; t++)
        {
          GHashTableIter iter;
          gpointer k;

          g_hash_table_iter_init (&iter, tables[t]);
          while (g_hash_table_iter_next (&iter, &k, NULL))
            if (len == 0 || strcmp (k, key) == 0
                || (strncmp (k, key, len) == 0 && ((char *) k)[len] == '/'))
              {
                if (t == 1)
                  g_ptr_array_add (objects, object_key (self, k));
                g_hash_table_iter_remove (&iter);
              }
        }
      g_mutex_unlock (&self->lock);
      return delete_objects (self, objects, cancellable, error);
    }
  g_mutex_unlock (&self->lock);

  below = list_all (self, lp, FALSE, cancellable, error);
  if (below == NULL)
    return FALSE;
  if (*key != '\0')
    g_ptr_array_add (objects, object_key (self, key));
  for (guint i = 0; i < below->len; i++)
    g_ptr_array_add (objects, g_strconcat (lp, (char *) g_ptr_array_index (below, i), NULL));
  if (!delete_objects (self, objects, cancellable, error))
    return FALSE;
  note_written (self, key, NULL);
  return TRUE;
}

static gboolean
ncz_s3_store_get_length (NczStore     *store,
                         const char   *key,
                         guint64      *length,
                         GCancellable *cancellable,
                         GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autoptr(GBytes) held = held_lookup (self, key);

  if (held != NULL)
    {
      *length = g_bytes_get_size (held);
      return TRUE;
    }
  if (!check_key_length (self, key, error))
    return FALSE;
  return get_length_sync (self, key, length, cancellable, error);
}

/* ---------------------------------------------------------------------- */
/* Versions and conditional writes */

/* An ETag without its quotes and weak marker. */
static char *
etag_bare (const char *etag)
{
  gsize len;

  if (g_str_has_prefix (etag, "W/"))
    etag += 2;
  len = strlen (etag);
  if (len >= 2 && etag[0] == '"' && etag[len - 1] == '"')
    return g_strndup (etag + 1, len - 2);
  return g_strdup (etag);
}

static gboolean
etag_equal (const char *a,
            const char *b)
{
  g_autofree char *bare_a = etag_bare (a);
  g_autofree char *bare_b = etag_bare (b);

  return strcmp (bare_a, bare_b) == 0;
}

/* The If-Match value for @tag: as the server gave it (quoted, as RFC 7232
 * and AWS have it) or bare, for a server that compares it so. */
static char *
if_match_value (const char *tag,
                gboolean    bare)
{
  return bare ? etag_bare (tag) : g_strdup (tag);
}

static GBytes *
ncz_s3_store_read_tagged (NczStore     *store,
                          const char   *key,
                          char        **tag,
                          GCancellable *cancellable,
                          GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GBytes *held = held_lookup (self, key);
  GBytes *result = NULL;
  Call *call;

  *tag = NULL;
  /* held back while replacing: no version; write_if writes plainly then */
  if (held != NULL)
    return held;
  if (!check_key_length (self, key, error) || !store_usable (self, key, TRUE, error)
      || !ensure_baseline (self, key, cancellable, error))
    return NULL;
  call = call_new (self, "GET", key, TRUE, cancellable);
  call_run (call);
  if (call_ok (call))
    {
      const char *etag = soup_message_headers_get_one (call->headers, "ETag");

      if (etag != NULL && *etag != '\0')
        {
          *tag = g_strdup (etag);
          result = g_bytes_ref (call->response);
        }
      else
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                     "S3 GET %s (key '%s'): the reply has no ETag, which conditional "
                     "writes need", call->url, key);
    }
  else
    call_set_error (call, error, "reading");
  call_free (call);
  return result;
}

/* The ETag of the object at @key now, %NULL in @etag when there is none. */
static gboolean
current_etag (NczS3Store   *self,
              const char   *key,
              char        **etag,
              GCancellable *cancellable,
              GError      **error)
{
  Call *call = call_new (self, "HEAD", key, TRUE, cancellable);
  gboolean ok = TRUE;

  *etag = NULL;
  call_run (call);
  if (call_ok (call))
    *etag = g_strdup (soup_message_headers_get_one (call->headers, "ETag"));
  else if (!call_missing (call))
    {
      call_set_error (call, error, "reading the version after a failed conditional write");
      ok = FALSE;
    }
  call_free (call);
  return ok;
}

/* A PUT with If-Match (@tag) or If-None-Match: * (@tag NULL): one
 * request, never a multipart upload. Its HTTP status in @status, 0
 * after a transport failure (with @error set); FALSE with @error set on
 * any failure but 412 and 409, which leave @error alone. */
static gboolean
put_conditional (NczS3Store   *self,
                 const char   *key,
                 GBytes       *data,
                 const char   *tag,
                 gboolean      bare,
                 guint        *status,
                 char        **url,
                 char        **new_tag,
                 GCancellable *cancellable,
                 GError      **error)
{
  Call *call = call_new (self, "PUT", key, TRUE, cancellable);
  gboolean ok;

  call->body = g_bytes_ref (data);
  if (tag != NULL)
    call->if_match = if_match_value (tag, bare);
  else
    call->if_none_match = g_strdup ("*");
  call_run (call);
  ok = call_ok (call);
  *status = call->error == NULL ? call->status : 0;
  *url = g_strdup (call->url);
  if (ok && new_tag != NULL)
    *new_tag = g_strdup (call_etag (call));
  if (!ok && *status != 412 && *status != 409)
    call_set_error (call, error, "writing");
  call_free (call);
  return ok;
}

/* Writes @data at @key if the object is still the version @tag (the ETag
 * read_tagged gave), or with @tag NULL if there is none; the new ETag in
 * @new_tag (NULL when the server gave none).
 *
 * A 412 to If-Match is checked with a HEAD: when the object is still the
 * version @tag, the server did not match the tag as it was sent (radosgw
 * compares If-Match with the ETag without its quotes): the other form is
 * tried once and, if it succeeds, used from then on. Otherwise another
 * writer changed the object: NCZ_STORAGE_ERROR_CONFLICT, as for a 409
 * (AWS: a conditional write of the same key in progress).
 *
 * Identical bytes are not taken as success: the object holding what this
 * write carries may come from another writer whose change looks the same
 * (two increments of one counter). A PUT retried after a lost answer may
 * thus see its own first attempt and say CONFLICT: the caller reads
 * again and redoes its change, which Ncz's updates (metadata merges,
 * regions of a chunk) survive. */
static gboolean
write_conditional (NczS3Store   *self,
                   const char   *key,
                   GBytes       *data,
                   const char   *tag,
                   char        **new_tag,
                   GCancellable *cancellable,
                   GError      **error)
{
  gboolean bare;
  gboolean switched = FALSE;

  g_mutex_lock (&self->lock);
  bare = self->etag_unquoted;
  g_mutex_unlock (&self->lock);

  for (;;)
    {
      g_autofree char *url = NULL;
      g_autofree char *now = NULL;
      guint status = 0;

      if (put_conditional (self, key, data, tag, bare, &status, &url, new_tag, cancellable,
                           error))
        {
          if (switched)
            {
              g_mutex_lock (&self->lock);
              self->etag_unquoted = bare;
              g_mutex_unlock (&self->lock);
              g_debug ("S3 store %s/%s: the server matches If-Match against the ETag %s quotes",
                       self->endpoint, self->config->bucket, bare ? "without" : "with");
            }
          return TRUE;
        }
      if (status != 412 && status != 409)
        return FALSE;
      if (status == 409)
        {
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                       "S3 PUT %s (key '%s'): another writer was writing the object at the "
                       "same time (HTTP 409)", url, key);
          return FALSE;
        }
      if (!current_etag (self, key, &now, cancellable, error))
        return FALSE;
      if (now != NULL && tag != NULL && etag_equal (now, tag))
        {
          if (!switched)
            {
              switched = TRUE;
              bare = !bare;
              continue;
            }
          g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "S3 PUT %s (key '%s'): the server refuses If-Match with the "
                       "object's current ETag %s, quoted or not (HTTP 412): it cannot "
                       "take conditional writes", url, key, now);
          return FALSE;
        }
      if (tag != NULL)
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                     "S3 PUT %s (key '%s'): the object was changed by another writer since "
                     "it was read (HTTP 412, If-Match %s, now %s)", url, key, tag,
                     now != NULL ? now : "removed");
      else
        g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                     "S3 PUT %s (key '%s'): the object was created by another writer since "
                     "it was found missing (HTTP 412, If-None-Match *)", url, key);
      return FALSE;
    }
}

static gboolean
ncz_s3_store_write_if (NczStore     *store,
                       const char   *key,
                       GBytes       *data,
                       const char   *tag,
                       GCancellable *cancellable,
                       GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  gboolean replacing;

  if (!check_key_length (self, key, error))
    return FALSE;
  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  g_mutex_unlock (&self->lock);
  /* a dataset being replaced is this store's alone until its commit:
   * plain writes, metadata held back as by write */
  if (replacing)
    return write_object (self, key, data, cancellable, error);
  if (!ensure_baseline (self, key, cancellable, error) || !before_write (self, key, cancellable, error))
    return FALSE;
  if (!write_conditional (self, key, data, tag, NULL, cancellable, error))
    return FALSE;
  note_written (self, key, NULL);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Generations (see the top of the file) */

/* a replacer waiting for another reads the record again after this, doubled each time */
#define GENERATION_POLL_MIN_MS 50
#define GENERATION_POLL_MAX_MS 1000
/* A check that found the generation unchanged this recently stands for the
 * check before a write (which only spares work: the check after the write
 * is the one that tells the writer). Sequential metadata merges then cost
 * one HEAD per object, not two, on a nearby server. */
#define CHECK_REUSE_US (20 * G_TIME_SPAN_MILLISECOND)

/* No generation record, as far as this store may know: a 404, or a 403
 * (S3 answers a missing key with 403 to those who may not list the
 * bucket, as anonymous readers of a public dataset). */
static gboolean
record_missing (Call *call)
{
  return call_missing (call) || (call->error == NULL && call->status == 403);
}

/* "S3 dataset <endpoint>/<bucket>/<prefix>", for messages */
static char *
location (NczS3Store *self)
{
  return g_strdup_printf ("%s/%s%s%s", self->endpoint, self->config->bucket,
                          *self->config->prefix != '\0' ? "/" : "", self->config->prefix);
}

/* A generation record as read. */
typedef struct
{
  char *tag;            /* its ETag; NULL when there is no record */
  GBytes *body;
  char *id;
  char *state;          /* "replacing", "complete", "discarded"; NULL when unreadable */
  char *host;
  gint64 pid;
  char *since;
  gint64 stale_after;   /* seconds */
  gint64 age;           /* seconds since it was written, by the server's clock; -1: unknown */
} GenRecord;

static void
gen_record_clear (GenRecord *rec)
{
  g_free (rec->tag);
  g_clear_pointer (&rec->body, g_bytes_unref);
  g_free (rec->id);
  g_free (rec->state);
  g_free (rec->host);
  g_free (rec->since);
  memset (rec, 0, sizeof *rec);
}

static char *
json_string_member (const NczJson *object,
                    const char    *name)
{
  NczJson *v = ncz_json_object_get (object, name);

  if (v == NULL || ncz_json_get_kind (v) != NCZ_JSON_STRING)
    return NULL;
  return g_strdup (ncz_json_get_string (v, NULL));
}

static gint64
json_int_member (const NczJson *object,
                 const char    *name,
                 gint64         fallback)
{
  NczJson *v = ncz_json_object_get (object, name);
  gint64 n;

  if (v != NULL && ncz_json_get_kind (v) == NCZ_JSON_NUMBER && ncz_json_get_int64 (v, &n))
    return n;
  return fallback;
}

/* How long ago a record was written: the reply's Date minus its
 * Last-Modified, both by the server's clock, so that the clocks of the
 * hosts involved do not matter; else the record's own heartbeat against
 * this host's clock. */
static gint64
record_age (SoupMessageHeaders *headers,
            const char         *heartbeat)
{
  const char *date = soup_message_headers_get_one (headers, "Date");
  const char *modified = soup_message_headers_get_one (headers, "Last-Modified");
  g_autoptr(GDateTime) d = date != NULL ? soup_date_time_new_from_http_string (date) : NULL;
  g_autoptr(GDateTime) m = modified != NULL ? soup_date_time_new_from_http_string (modified)
                                            : NULL;

  if (d != NULL && m != NULL)
    return MAX (0, g_date_time_difference (d, m) / G_TIME_SPAN_SECOND);
  if (heartbeat != NULL)
    {
      g_autoptr(GDateTime) h = g_date_time_new_from_iso8601 (heartbeat, NULL);
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      if (h != NULL)
        return MAX (0, g_date_time_difference (now, h) / G_TIME_SPAN_SECOND);
    }
  return -1;
}

static gboolean
read_generation (NczS3Store   *self,
                 GenRecord    *rec,
                 GCancellable *cancellable,
                 GError      **error)
{
  Call *call = call_new (self, "GET", GENERATION_KEY, TRUE, cancellable);
  gboolean ok = TRUE;

  memset (rec, 0, sizeof *rec);
  call_run (call);
  if (call_ok (call) && call_etag (call) == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "S3 GET %s (key '%s'): the reply has no ETag, which replacing a dataset "
                   "needs", call->url, GENERATION_KEY);
      ok = FALSE;
    }
  else if (call_ok (call))
    {
      gsize len;
      const char *text = g_bytes_get_data (call->response, &len);
      g_autoptr(NczJson) json = ncz_json_parse (text != NULL ? text : "", (gssize) len, NULL);
      g_autofree char *heartbeat = NULL;

      rec->tag = g_strdup (call_etag (call));
      rec->body = g_bytes_ref (call->response);
      rec->stale_after = NCZ_S3_DEFAULT_REPLACE_STALE;
      /* a record that does not read is taken as settled: it cannot name a replacer */
      if (json != NULL && ncz_json_get_kind (json) == NCZ_JSON_OBJECT)
        {
          rec->id = json_string_member (json, "generation");
          rec->state = json_string_member (json, "state");
          rec->host = json_string_member (json, "host");
          rec->since = json_string_member (json, "since");
          heartbeat = json_string_member (json, "heartbeat");
          rec->pid = json_int_member (json, "pid", 0);
          rec->stale_after = json_int_member (json, "stale_after", NCZ_S3_DEFAULT_REPLACE_STALE);
        }
      rec->age = record_age (call->headers, heartbeat);
    }
  else if (!record_missing (call))
    {
      call_set_error (call, error, "reading the dataset's generation object");
      ok = FALSE;
    }
  call_free (call);
  return ok;
}

/* Whether @rec is a replacement in progress: its replacer rewrote it less
 * than its stale_after ago. */
static gboolean
record_replacing (const GenRecord *rec)
{
  return rec->tag != NULL && g_strcmp0 (rec->state, "replacing") == 0
         && (rec->age < 0 || rec->age < MAX (rec->stale_after, 1));
}

static char *
record_holder (const GenRecord *rec)
{
  return g_strdup_printf ("host %s, process %" G_GINT64_FORMAT ", since %s, record written %"
                          G_GINT64_FORMAT " s ago", rec->host != NULL ? rec->host : "?",
                          rec->pid, rec->since != NULL ? rec->since : "?", MAX (rec->age, 0));
}

/* This store's record in @state, written now. */
static GBytes *
generation_body (NczS3Store *self,
                 const char *state)
{
  g_autoptr(NczJson) object = ncz_json_new_object ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *beat = g_date_time_format_iso8601 (now);
  char *text;

  ncz_json_object_set (object, "generation", ncz_json_new_string (self->gen_id, -1));
  ncz_json_object_set (object, "state", ncz_json_new_string (state, -1));
  ncz_json_object_set (object, "host", ncz_json_new_string (g_get_host_name (), -1));
  ncz_json_object_set (object, "pid", ncz_json_new_int64 ((gint64) getpid ()));
  ncz_json_object_set (object, "since", ncz_json_new_string (self->gen_since, -1));
  ncz_json_object_set (object, "heartbeat", ncz_json_new_string (beat, -1));
  ncz_json_object_set (object, "stale_after", ncz_json_new_int64 (self->config->replace_stale));
  text = ncz_json_to_string (object, TRUE);
  return g_bytes_new_take (text, strlen (text));
}

/* The rewrite of the record every this long. */
static gint64
heartbeat_interval (NczS3Store *self)
{
  return MAX ((gint64) self->config->replace_stale * G_TIME_SPAN_SECOND / 5,
              100 * G_TIME_SPAN_MILLISECOND);
}

static void
set_lost_error (NczS3Store *self,
                const char *who,
                GError    **error)
{
  g_autofree char *where = location (self);

  g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
               "S3 dataset %s: another replacement of the dataset took it over%s%s%s (this "
               "one's generation record was taken for abandoned after %u s without heartbeat): "
               "this replacement stops", where, who != NULL ? " (" : "", who != NULL ? who : "",
               who != NULL ? ")" : "", self->config->replace_stale);
}

/* @body, as this store wrote it, is the record now: a conditional PUT
 * retried after its answer was lost meets its own first attempt (412).
 * Its ETag in @tag. */
static gboolean
record_is (NczS3Store   *self,
           GBytes       *body,
           char        **tag,
           char        **holder,
           GCancellable *cancellable)
{
  GenRecord now;
  gboolean same = FALSE;

  if (read_generation (self, &now, cancellable, NULL))
    {
      same = now.body != NULL && g_bytes_equal (now.body, body);
      if (same)
        *tag = g_steal_pointer (&now.tag);
      else if (holder != NULL && now.tag != NULL)
        *holder = record_holder (&now);
    }
  gen_record_clear (&now);
  return same;
}

/* Writes this store's record in @state over the version it last wrote;
 * with gen_lock held. A conflict means that another replacer took the
 * record over: the store has lost the dataset. */
static gboolean
generation_put_locked (NczS3Store   *self,
                       const char   *state,
                       GCancellable *cancellable,
                       GError      **error)
{
  g_autoptr(GBytes) body = generation_body (self, state);
  g_autofree char *tag = NULL;
  g_autofree char *holder = NULL;
  g_autoptr(GError) local = NULL;

  if (!write_conditional (self, GENERATION_KEY, body, self->gen_tag, &tag, cancellable, &local))
    {
      if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                      "writing the dataset's generation object: ");
          return FALSE;
        }
      if (!record_is (self, body, &tag, &holder, cancellable))
        {
          g_mutex_lock (&self->lock);
          self->lost = TRUE;
          g_mutex_unlock (&self->lock);
          set_lost_error (self, holder, error);
          return FALSE;
        }
    }
  else if (tag == NULL && !record_is (self, body, &tag, NULL, cancellable))
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "writing the dataset's generation object: the server gave no ETag");
      return FALSE;
    }
  g_free (self->gen_tag);
  self->gen_tag = g_steal_pointer (&tag);
  g_mutex_lock (&self->lock);
  self->gen_written_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* A heartbeat: the record rewritten as it is, to show the replacer alive. */
static gboolean
generation_beat (NczS3Store   *self,
                 GCancellable *cancellable,
                 GError      **error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&self->gen_lock);
  if (self->claimed && !self->gen_done)
    ok = generation_put_locked (self, "replacing", cancellable, error);
  g_mutex_unlock (&self->gen_lock);
  return ok;
}

static gpointer
heartbeat_run (gpointer data)
{
  NczS3Store *self = data;

  g_mutex_lock (&self->lock);
  while (!self->heartbeat_stop && !self->lost)
    {
      gint64 until = g_get_monotonic_time () + heartbeat_interval (self);

      while (!self->heartbeat_stop && g_get_monotonic_time () < until)
        g_cond_wait_until (&self->heartbeat_cond, &self->lock, until);
      if (self->heartbeat_stop)
        break;
      g_mutex_unlock (&self->lock);
      {
        g_autoptr(GError) error = NULL;

        if (!generation_beat (self, NULL, &error))
          g_debug ("S3 store %s/%s: heartbeat: %s", self->endpoint, self->config->bucket,
                   error->message);
      }
      g_mutex_lock (&self->lock);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

static void
start_heartbeat (NczS3Store *self)
{
  g_mutex_lock (&self->lock);
  if (self->heartbeat == NULL && !self->heartbeat_stop)
    self->heartbeat = g_thread_new ("ncz-s3-heartbeat", heartbeat_run, self);
  g_mutex_unlock (&self->lock);
}

static void
stop_heartbeat (NczS3Store *self)
{
  GThread *thread;

  g_mutex_lock (&self->lock);
  self->heartbeat_stop = TRUE;
  g_cond_broadcast (&self->heartbeat_cond);
  thread = g_steal_pointer (&self->heartbeat);
  g_mutex_unlock (&self->lock);
  if (thread != NULL)
    g_thread_join (thread);
}

static gboolean
sleep_ms (gint64         ms,
          GCancellable *cancellable,
          GError      **error)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      gint64 left = end - g_get_monotonic_time ();

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (left <= 0)
        return TRUE;
      g_usleep (MIN (left, 10 * G_TIME_SPAN_MILLISECOND));
    }
}

/* Makes the dataset's generation this store's, before the replacement
 * changes anything at the prefix: waits (lock.timeout) while another
 * replacement is alive, then writes a new record over the one read. */
static gboolean
claim_generation (NczS3Store   *self,
                  GCancellable *cancellable,
                  GError      **error)
{
  gint64 timeout_ms;
  gint64 start = g_get_monotonic_time ();
  gint64 poll_ms = GENERATION_POLL_MIN_MS;

  if (!ncz_lock_timeout_for_url (self->url, &timeout_ms, error))
    return FALSE;
  for (;;)
    {
      GenRecord rec;
      g_autoptr(GBytes) body = NULL;
      g_autofree char *tag = NULL;
      g_autoptr(GError) local = NULL;
      gboolean ok;

      if (!read_generation (self, &rec, cancellable, error))
        return FALSE;
      if (record_replacing (&rec))
        {
          gint64 waited_ms = (g_get_monotonic_time () - start) / 1000;

          if (timeout_ms >= 0 && waited_ms >= timeout_ms)
            {
              g_autofree char *holder = record_holder (&rec);
              g_autofree char *where = location (self);

              g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED,
                           "S3 dataset %s: another replacement of the dataset is in progress "
                           "(%s); gave up waiting for it after %.1f s (lock.timeout)", where,
                           holder, (double) waited_ms / 1000.0);
              gen_record_clear (&rec);
              return FALSE;
            }
          gen_record_clear (&rec);
          if (!sleep_ms (timeout_ms < 0 ? poll_ms : MIN (poll_ms, timeout_ms - waited_ms),
                         cancellable, error))
            return FALSE;
          poll_ms = MIN (poll_ms * 2, GENERATION_POLL_MAX_MS);
          continue;
        }

      g_mutex_lock (&self->gen_lock);
      if (self->gen_id == NULL)
        self->gen_id = g_uuid_string_random ();
      g_free (self->gen_since);
      {
        g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

        self->gen_since = g_date_time_format_iso8601 (now);
      }
      body = generation_body (self, "replacing");
      /* over the version read, or only where there is none */
      ok = write_conditional (self, GENERATION_KEY, body, rec.tag, &tag, cancellable, &local);
      if (!ok && g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT)
          && record_is (self, body, &tag, NULL, cancellable))
        {
          ok = TRUE;
          g_clear_error (&local);
        }
      if (ok && tag == NULL && !record_is (self, body, &tag, NULL, cancellable))
        {
          ok = FALSE;
          g_set_error (&local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "writing the dataset's generation object: the server gave no ETag");
        }
      if (ok)
        {
          self->gen_tag = g_steal_pointer (&tag);
          g_mutex_lock (&self->lock);
          self->claimed = TRUE;
          self->gen_written_at = g_get_monotonic_time ();
          g_mutex_unlock (&self->lock);
          g_mutex_unlock (&self->gen_lock);
          if (g_strcmp0 (rec.state, "replacing") == 0)
            {
              g_autofree char *holder = record_holder (&rec);

              g_debug ("S3 store %s/%s: took over an abandoned replacement (%s)", self->endpoint,
                       self->config->bucket, holder);
            }
          gen_record_clear (&rec);
          return TRUE;
        }
      g_mutex_unlock (&self->gen_lock);
      gen_record_clear (&rec);
      if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                      "claiming the dataset's generation object: ");
          return FALSE;
        }
      /* another replacer wrote the record between the read and the write:
       * read it again, and wait for that one */
    }
}

/* Before a replacer changes the prefix: its record is still its own and
 * fresh, so nobody may take it over before the change lands. The
 * heartbeat thread keeps it fresh; if it fell behind (the process was
 * stopped, requests hang), the record is rewritten here first. */
static gboolean
replace_guard (NczS3Store   *self,
               GCancellable *cancellable,
               GError      **error)
{
  g_autoptr(GError) local = NULL;
  gboolean claimed, lost;
  gint64 since;

  g_mutex_lock (&self->lock);
  claimed = self->claimed;
  lost = self->lost;
  since = g_get_monotonic_time () - self->gen_written_at;
  g_mutex_unlock (&self->lock);
  if (!claimed)
    return TRUE;
  if (lost)
    {
      set_lost_error (self, NULL, error);
      return FALSE;
    }
  if (since <= 2 * heartbeat_interval (self))
    return TRUE;
  if (generation_beat (self, cancellable, &local))
    return TRUE;
  g_mutex_lock (&self->lock);
  lost = self->lost;
  g_mutex_unlock (&self->lock);
  if (lost || since >= (gint64) self->config->replace_stale * G_TIME_SPAN_SECOND)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  g_debug ("S3 store %s/%s: heartbeat: %s", self->endpoint, self->config->bucket,
           local->message);
  return TRUE;
}

/* Whether a replacer's write would need a request of the guard first. */
static gboolean
replace_guard_is_due (NczS3Store *self)
{
  gboolean due;

  g_mutex_lock (&self->lock);
  due = self->claimed && (self->lost || g_get_monotonic_time () - self->gen_written_at
                                          > 2 * heartbeat_interval (self));
  g_mutex_unlock (&self->lock);
  return due;
}

/* Readers and writers in place: the generation they opened is read
 * before the first metadata object (so that it is older than all of
 * them). A replacement in progress refuses the open. */
static gboolean
ensure_baseline (NczS3Store   *self,
                 const char   *key,
                 GCancellable *cancellable,
                 GError      **error)
{
  GenRecord rec = { 0 };
  gboolean ok;

  if ((self->flags & NCZ_STORE_CREATE) != 0 || !is_metadata (key))
    return TRUE;
  g_mutex_lock (&self->lock);
  while (self->baseline_state == BASELINE_TAKING)
    g_cond_wait (&self->cond, &self->lock);
  if (self->baseline_state == BASELINE_TAKEN)
    {
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  self->baseline_state = BASELINE_TAKING;
  g_mutex_unlock (&self->lock);

  ok = read_generation (self, &rec, cancellable, error);
  if (!ok)
    {
      /* name the object the caller asked for too */
      g_autofree char *object = object_key (self, key);
      g_autofree char *encoded = ncz_s3_uri_encode (object, -1, TRUE);

      g_prefix_error (error, "reading %s%s/%s (key '%s') needs the dataset's generation first: ",
                      self->endpoint, self->root_path, encoded, key);
    }
  if (ok && record_replacing (&rec))
    {
      g_autofree char *holder = record_holder (&rec);
      g_autofree char *where = location (self);

      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                   "S3 dataset %s: the dataset is being replaced (%s): open it again when "
                   "the replacement is done", where, holder);
      ok = FALSE;
    }
  g_mutex_lock (&self->lock);
  if (ok)
    {
      self->baseline_tag = g_steal_pointer (&rec.tag);
      self->baseline_state = BASELINE_TAKEN;
      self->checked_at = g_get_monotonic_time ();
    }
  else
    self->baseline_state = BASELINE_NONE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  gen_record_clear (&rec);
  return ok;
}

/* Whether reading @key first reads the generation (not yet read). */
static gboolean
needs_baseline (NczS3Store *self,
                const char *key)
{
  gboolean needed;

  if ((self->flags & NCZ_STORE_CREATE) != 0 || !is_metadata (key))
    return FALSE;
  g_mutex_lock (&self->lock);
  needed = self->baseline_state != BASELINE_TAKEN;
  g_mutex_unlock (&self->lock);
  return needed;
}

/* Whether reads and writes are checked against the generation opened. */
static gboolean
checks_generation (NczS3Store *self)
{
  gboolean on;

  if ((self->flags & NCZ_STORE_CREATE) != 0)
    return FALSE;
  g_mutex_lock (&self->lock);
  on = self->baseline_state == BASELINE_TAKEN;
  g_mutex_unlock (&self->lock);
  return on;
}

static void
set_replaced_error (NczS3Store *self,
                    const char *key,
                    gboolean    writing,
                    GError    **error)
{
  g_autofree char *where = location (self);
  g_autofree char *of_key = key != NULL ? g_strdup_printf (" (key '%s')", key) : g_strdup ("");

  if (writing)
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                 "S3 dataset %s%s: the dataset was replaced while it was being written: "
                 "another process began replacing it after this writer opened it (its "
                 "generation object %s changed), so what this writer wrote since may be lost; "
                 "open the new dataset and write again", where, of_key, GENERATION_KEY);
  else
    g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                 "S3 dataset %s%s: the dataset was replaced while it was being read (its "
                 "generation object %s changed): open it again to read the new one", where,
                 of_key, GENERATION_KEY);
}

/* Once a check found another generation, every call fails at once: the
 * store's view of the dataset is of a version that is gone. (This also
 * ends the read-modify-write loops of the formats at their next read.) */
static gboolean
store_usable (NczS3Store *self,
              const char *key,
              gboolean    writing,
              GError    **error)
{
  gboolean replaced;

  if ((self->flags & NCZ_STORE_CREATE) != 0)
    return TRUE;
  g_mutex_lock (&self->lock);
  replaced = self->replaced;
  g_mutex_unlock (&self->lock);
  if (replaced)
    set_replaced_error (self, key, writing, error);
  return !replaced;
}

/* The outcome of a check: @tag the record's ETag now (NULL: none) or
 * @io_error. */
static gboolean
generation_unchanged (NczS3Store   *self,
                      const char   *tag,
                      const GError *io_error,
                      const char   *key,
                      gboolean      writing,
                      GError      **error)
{
  gboolean same;

  if (io_error != NULL)
    {
      g_propagate_prefixed_error (error, g_error_copy (io_error),
                                  "checking that the dataset was not replaced: ");
      return FALSE;
    }
  g_mutex_lock (&self->lock);
  same = tag == NULL ? self->baseline_tag == NULL
                     : self->baseline_tag != NULL && etag_equal (tag, self->baseline_tag);
  if (same)
    self->checked_at = g_get_monotonic_time ();
  else
    self->replaced = TRUE;
  g_mutex_unlock (&self->lock);
  if (!same)
    set_replaced_error (self, key, writing, error);
  return same;
}

/* Checks share HEADs: on the request thread, a caller whose data is in
 * joins the queue; one HEAD of the record is in flight at a time, and
 * answers every caller that was queued before it was sent (so the HEAD
 * is always sent after the caller's data came in, which is what makes the
 * check sound). A burst of reads costs one or two HEADs, not one each. */
typedef struct
{
  NczS3Store *store;
  CheckDone done;
  gpointer data;
} CheckWaiter;

static void check_start (NczS3Store *self);

static void
check_head_done (Call *call)
{
  NczS3Store *self = call->store;
  GPtrArray *riding = g_steal_pointer (&self->check_riding);
  g_autofree char *tag = NULL;
  g_autoptr(GError) io_error = NULL;

  if (call_ok (call))
    tag = g_strdup (call_etag (call) != NULL ? call_etag (call) : "");
  else if (!record_missing (call))
    call_set_error (call, &io_error, "reading the dataset's generation object");
  call_free (call);
  /* unchanged: every write answered before the HEAD was sent is checked */
  g_mutex_lock (&self->lock);
  if (io_error == NULL && self->baseline_state == BASELINE_TAKEN
      && (tag == NULL ? self->baseline_tag == NULL
                      : self->baseline_tag != NULL && etag_equal (tag, self->baseline_tag)))
    self->covered_until = MAX (self->covered_until, self->check_sent_at);
  g_mutex_unlock (&self->lock);
  if (self->check_pending->len > 0)
    check_start (self);
  /* last: a caller's callback may drop the last reference to the store */
  for (guint i = 0; i < riding->len; i++)
    {
      CheckWaiter *w = g_ptr_array_index (riding, i);

      w->done (w->store, tag, io_error, w->data);
      g_free (w);
    }
  g_ptr_array_unref (riding);
}

static void
check_start (NczS3Store *self)
{
  Call *call = call_new (self, "HEAD", GENERATION_KEY, TRUE, NULL);

  self->check_riding = g_steal_pointer (&self->check_pending);
  self->check_pending = g_ptr_array_new ();
  g_mutex_lock (&self->lock);
  self->check_sent_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->lock);
  call_submit (call, check_head_done, NULL);
}

static gboolean
check_enqueue_here (gpointer data)
{
  CheckWaiter *w = data;
  NczS3Store *self = w->store;

  g_ptr_array_add (self->check_pending, w);
  if (self->check_riding == NULL)
    check_start (self);
  return G_SOURCE_REMOVE;
}

/* From any thread, once the data to check is in: @done runs on the
 * request thread. */
static void
check_submit (NczS3Store *self,
              CheckDone   done,
              gpointer    data)
{
  CheckWaiter *w = g_new0 (CheckWaiter, 1);
  GSource *idle = g_idle_source_new ();

  w->store = self;
  w->done = done;
  w->data = data;
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, check_enqueue_here, w, NULL);
  g_source_attach (idle, self->context);
  g_source_unref (idle);
}

typedef struct
{
  gboolean finished;
  char *tag;
  GError *io_error;
} SyncCheck;

static void
sync_check_done (NczS3Store   *self,
                 const char   *tag,
                 const GError *io_error,
                 gpointer      data)
{
  SyncCheck *sc = data;

  g_mutex_lock (&self->lock);
  sc->tag = g_strdup (tag);
  sc->io_error = io_error != NULL ? g_error_copy (io_error) : NULL;
  sc->finished = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* A check of the generation now (never on the request thread). */
static gboolean
check_generation (NczS3Store *self,
                  const char *key,
                  gboolean    writing,
                  GError    **error)
{
  SyncCheck sc = { 0 };
  gboolean ok;

  check_submit (self, sync_check_done, &sc);
  g_mutex_lock (&self->lock);
  while (!sc.finished)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  ok = generation_unchanged (self, sc.tag, sc.io_error, key, writing, error);
  g_free (sc.tag);
  g_clear_error (&sc.io_error);
  return ok;
}

/* After chunks were read: still the generation opened? */
static gboolean
check_after_read (NczS3Store *self,
                  const char *key,
                  GError    **error)
{
  if (is_metadata (key) || !checks_generation (self))
    return TRUE;
  return check_generation (self, key, FALSE, error);
}

/* Before a write: a replacer's guard; for a writer in place, the
 * generation is still the one opened, so that a write never goes into a
 * replacement that began before it.
 *
 * A writer in place's writes are checked after they were answered too,
 * but not at once: by the next check this store sends (before its next
 * write, after a read of chunks) or, at the latest, at commit. The writer
 * is told at its next write or at its close, as the file store tells it,
 * and a write costs one HEAD before it rather than one on each side. A
 * replacement that began between this check and the write finds the
 * write at its commit (if the write landed among its chunks) or removes
 * it (if not); either way the writer's next check fails. */
static gboolean
before_write (NczS3Store   *self,
              const char   *key,
              GCancellable *cancellable,
              GError      **error)
{
  gboolean replacing;
  gboolean recent;

  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  recent = g_get_monotonic_time () - self->checked_at < CHECK_REUSE_US;
  g_mutex_unlock (&self->lock);
  if (replacing)
    return replace_guard (self, cancellable, error);
  if (!store_usable (self, key, TRUE, error))
    return FALSE;
  if (recent || !checks_generation (self))
    return TRUE;
  return check_generation (self, key, TRUE, error);
}


/* ---------------------------------------------------------------------- */
/* Asynchronous operations: real requests on the request thread */

typedef struct
{
  guint64 offset;
  gint64 length;
  char *key;
} ReadData;

static void
read_data_free (gpointer data)
{
  ReadData *rd = data;

  g_free (rd->key);
  g_free (rd);
}

/* On the request thread: a read's result once the generation was checked. */
static void
read_checked (NczS3Store   *self,
              const char   *tag,
              const GError *io_error,
              gpointer      data)
{
  GTask *task = data;
  ReadData *rd = g_task_get_task_data (task);
  GBytes *result = g_object_steal_data (G_OBJECT (task), "result");
  GError *error = NULL;

  if (generation_unchanged (self, tag, io_error, rd->key, FALSE, &error))
    g_task_return_pointer (task, result, (GDestroyNotify) g_bytes_unref);
  else
    {
      g_bytes_unref (result);
      g_task_return_error (task, error);
    }
  g_object_unref (task);
}

static void
read_async_done (Call *call)
{
  GTask *task = call->data;
  ReadData *rd = g_task_get_task_data (task);
  GBytes *result = NULL;

  if (call->error == NULL && call->status == 206)
    result = range_of (call->response, 0, rd->length);
  else if (call->error == NULL && call->status == 200)
    result = range_of (call->response, rd->offset, rd->length);
  else
    {
      GError *error = NULL;

      call_set_error (call, &error, "reading");
      g_task_return_error (task, error);
    }
  if (result != NULL && !is_metadata (rd->key) && checks_generation (call->store))
    {
      /* the task's reference goes with the check */
      g_object_set_data (G_OBJECT (task), "result", result);
      check_submit (call->store, read_checked, task);
      call_free (call);
      return;
    }
  if (result != NULL)
    g_task_return_pointer (task, result, (GDestroyNotify) g_bytes_unref);
  call_free (call);
  g_object_unref (task);
}

/* The synchronous read in a thread: a range past the end (416), which
 * needs another request, or the first read of metadata, which reads the
 * generation first. */
static void
read_in_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  ReadData *rd = task_data;
  GError *error = NULL;
  GBytes *bytes = ncz_s3_store_read (NCZ_STORE (source), rd->key, rd->offset, rd->length,
                                     cancellable, &error);

  if (bytes != NULL)
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_error (task, error);
}

static void
read_async_done_checked (Call *call)
{
  GTask *task = call->data;

  if (call->error == NULL && call->status == 416)
    {
      /* never wait for another request on the request thread */
      call_free (call);
      g_task_run_in_thread (task, read_in_thread);
      g_object_unref (task);
      return;
    }
  read_async_done (call);
}

static void
ncz_s3_store_read_async (NczStore            *store,
                         const char          *key,
                         guint64              offset,
                         gint64               length,
                         int                  io_priority,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  g_autoptr(GBytes) held = held_lookup (self, key);
  ReadData *rd = g_new0 (ReadData, 1);
  GError *error = NULL;
  Call *call;

  g_task_set_source_tag (task, ncz_s3_store_read_async);
  rd->offset = offset;
  rd->length = length;
  rd->key = g_strdup (key);
  g_task_set_task_data (task, rd, read_data_free);
  if (held != NULL)
    {
      g_task_return_pointer (task, range_of (held, offset, length), (GDestroyNotify) g_bytes_unref);
      g_object_unref (task);
      return;
    }
  if (!check_key_length (self, key, &error) || !store_usable (self, key, FALSE, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (needs_baseline (self, key))
    {
      g_task_run_in_thread (task, read_in_thread);
      g_object_unref (task);
      return;
    }
  call = call_new (self, "GET", key, TRUE, cancellable);
  call->range = range_header (offset, length);
  call_submit (call, read_async_done_checked, task);
}

static GBytes *
ncz_s3_store_read_finish (NczStore      *store,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Several requests for one GTask: the results in order. */
typedef struct
{
  GPtrArray *results;   /* GBytes or NULL */
  GError *error;
  guint pending;
  gboolean missing_is_null; /* read_many: a missing object is a NULL element */
  NczStoreRange *ranges;  /* read_ranges: the ranges of @key */
  char *key;
  char *check_key;      /* a chunk read: the generation is checked after it, naming this key */
} Many;

/* a range that starts at or past the end (HTTP 416), settled later */
static char range_not_satisfiable;
#define UNSATISFIABLE ((gpointer) &range_not_satisfiable)

static void
many_free (gpointer data)
{
  Many *m = data;

  g_ptr_array_unref (m->results);
  g_clear_error (&m->error);
  g_free (m->ranges);
  g_free (m->key);
  g_free (m->check_key);
  g_free (m);
}


typedef struct
{
  GTask *task;
  guint index;
} ManyPart;

/* In a thread: ranges that start at or past the end are empty at the
 * end and an error past it, as the store's read_range says. */
static void
many_settle_in_thread (GTask        *task,
                       gpointer      source,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  NczS3Store *self = NCZ_S3_STORE (source);
  Many *m = task_data;
  guint64 size = 0;
  GError *error = NULL;

  if (!get_length_sync (self, m->key, &size, cancellable, &error))
    {
      for (guint i = 0; i < m->results->len; i++)
        if (g_ptr_array_index (m->results, i) == UNSATISFIABLE)
          g_ptr_array_index (m->results, i) = NULL;
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < m->results->len; i++)
    if (g_ptr_array_index (m->results, i) == UNSATISFIABLE)
      {
        g_ptr_array_index (m->results, i) = NULL;
        if (m->ranges[i].offset == size)
          g_ptr_array_index (m->results, i) = g_bytes_new (NULL, 0);
        else if (error == NULL)
          g_set_error (&error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                       "S3 %s/%s (key '%s'): offset %" G_GUINT64_FORMAT
                       " is past the end of the object (%" G_GUINT64_FORMAT " bytes)",
                       self->endpoint, self->config->bucket, m->key, m->ranges[i].offset, size);
      }
  if (error == NULL && m->check_key != NULL)
    check_generation (self, m->check_key, FALSE, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_ptr_array_ref (m->results), (GDestroyNotify) g_ptr_array_unref);
}

/* On the request thread: the reads' results once the generation was checked. */
static void
many_checked (NczS3Store   *self,
              const char   *tag,
              const GError *io_error,
              gpointer      data)
{
  GTask *task = data;
  Many *m = g_task_get_task_data (task);
  GError *error = NULL;

  if (generation_unchanged (self, tag, io_error, m->check_key, FALSE, &error))
    g_task_return_pointer (task, g_ptr_array_ref (m->results), (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
  g_object_unref (task);
}

/* On the request thread (all parts of one Many finish there). */
static void
many_done (Call *call)
{
  ManyPart *part = call->data;
  GTask *task = part->task;
  Many *m = g_task_get_task_data (task);
  NczStoreRange *range = m->ranges != NULL ? &m->ranges[part->index] : NULL;
  gpointer result = NULL;
  GError *error = NULL;

  if (call->error == NULL && call->status == 206)
    result = range_of (call->response, 0, range != NULL ? range->length : -1);
  else if (call->error == NULL && call->status == 200)
    result = range != NULL ? range_of (call->response, range->offset, range->length)
                           : g_bytes_ref (call->response);
  else if (call->error == NULL && call->status == 416 && range != NULL)
    result = UNSATISFIABLE;
  else if (!(m->missing_is_null && call_missing (call)))
    call_set_error (call, &error, "reading");

  if (error != NULL)
    {
      if (m->error == NULL)
        m->error = error;
      else
        g_error_free (error);
    }
  g_ptr_array_index (m->results, part->index) = result;
  g_free (part);
  call_free (call);

  if (--m->pending > 0)
    return;
  if (m->error != NULL)
    {
      for (guint i = 0; i < m->results->len; i++)
        if (g_ptr_array_index (m->results, i) == UNSATISFIABLE)
          g_ptr_array_index (m->results, i) = NULL;
      g_task_return_error (task, g_steal_pointer (&m->error));
    }
  else
    {
      gboolean unsatisfiable = FALSE;

      for (guint i = 0; i < m->results->len; i++)
        unsatisfiable |= g_ptr_array_index (m->results, i) == UNSATISFIABLE;
      if (unsatisfiable)
        g_task_run_in_thread (task, many_settle_in_thread);
      else if (m->check_key != NULL)
        {
          /* the task's reference goes with the check */
          check_submit (NCZ_S3_STORE (g_task_get_source_object (task)), many_checked, task);
          return;
        }
      else
        g_task_return_pointer (task, g_ptr_array_ref (m->results), (GDestroyNotify) g_ptr_array_unref);
    }
  g_object_unref (task);
}

static Many *
many_new (guint n)
{
  Many *m = g_new0 (Many, 1);

  m->results = g_ptr_array_new_full (n, (GDestroyNotify) g_bytes_unref);
  g_ptr_array_set_size (m->results, n);
  m->pending = n;
  return m;
}

static void
many_submit (NczS3Store   *self,
             GTask        *task,
             const char   *key,
             guint         index,
             const NczStoreRange *range,
             GCancellable *cancellable)
{
  ManyPart *part = g_new0 (ManyPart, 1);
  Call *call = call_new (self, "GET", key, TRUE, cancellable);

  part->task = g_object_ref (task);
  part->index = index;
  if (range != NULL)
    call->range = range_header (range->offset, range->length);
  call_submit (call, many_done, part);
}

static void
many_part_release (GTask *task)
{
  g_object_unref (task);
}

static GPtrArray *ncz_s3_store_read_many (NczStore *store, const char * const *keys,
                                          GCancellable *cancellable, GError **error);
static GPtrArray *ncz_s3_store_read_ranges (NczStore *store, const char *key,
                                            const NczStoreRange *ranges, guint n_ranges,
                                            GCancellable *cancellable, GError **error);

/* The first read of metadata reads the generation first: the
 * synchronous call, in a thread. */
static void
many_sync_in_thread (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  Many *m = task_data;
  char **keys = g_object_get_data (G_OBJECT (task), "keys");
  GError *error = NULL;
  GPtrArray *result;

  if (keys != NULL)
    result = ncz_s3_store_read_many (NCZ_STORE (source), (const char * const *) keys,
                                     cancellable, &error);
  else
    result = ncz_s3_store_read_ranges (NCZ_STORE (source), m->key, m->ranges, m->results->len,
                                       cancellable, &error);
  if (result != NULL)
    g_task_return_pointer (task, result, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static void
ncz_s3_store_read_many_async (NczStore            *store,
                              const char * const  *keys,
                              int                  io_priority,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  guint n = g_strv_length ((char **) keys);
  Many *m = many_new (n);
  GError *error = NULL;
  guint remote = 0;

  g_task_set_source_tag (task, ncz_s3_store_read_many_async);
  g_task_set_task_data (task, m, many_free);
  m->missing_is_null = TRUE;
  for (guint i = 0; i < n; i++)
    if (!check_key_length (self, keys[i], &error) || !store_usable (self, keys[i], FALSE, &error))
      {
        g_task_return_error (task, error);
        g_object_unref (task);
        return;
      }
  for (guint i = 0; i < n; i++)
    if (needs_baseline (self, keys[i]))
      {
        g_object_set_data_full (G_OBJECT (task), "keys", g_strdupv ((char **) keys),
                                (GDestroyNotify) g_strfreev);
        g_task_run_in_thread (task, many_sync_in_thread);
        g_object_unref (task);
        return;
      }
  for (guint i = 0; i < n; i++)
    {
      GBytes *held = held_lookup (self, keys[i]);

      if (held != NULL)
        g_ptr_array_index (m->results, i) = held;
      else
        {
          remote++;
          if (m->check_key == NULL && !is_metadata (keys[i]) && checks_generation (self))
            m->check_key = g_strdup (keys[i]);
        }
    }
  m->pending = remote;
  if (remote == 0)
    {
      g_task_return_pointer (task, g_ptr_array_ref (m->results), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  /* the task's own reference goes with the last part */
  for (guint i = 0; i < n; i++)
    if (g_ptr_array_index (m->results, i) == NULL)
      many_submit (self, task, keys[i], i, NULL, cancellable);
  many_part_release (task);
}

static GPtrArray *
ncz_s3_store_read_many_finish (NczStore      *store,
                               GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ncz_s3_store_read_ranges_async (NczStore            *store,
                                const char          *key,
                                const NczStoreRange *ranges,
                                guint                n_ranges,
                                int                  io_priority,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  g_autoptr(GBytes) held = held_lookup (self, key);
  Many *m = many_new (n_ranges);
  GError *error = NULL;

  g_task_set_source_tag (task, ncz_s3_store_read_ranges_async);
  g_task_set_task_data (task, m, many_free);
  m->ranges = g_memdup2 (ranges, sizeof (NczStoreRange) * n_ranges);
  m->key = g_strdup (key);
  if (!check_key_length (self, key, &error)
      || (held == NULL && !store_usable (self, key, FALSE, &error)))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (held == NULL && n_ranges > 0 && needs_baseline (self, key))
    {
      g_task_run_in_thread (task, many_sync_in_thread);
      g_object_unref (task);
      return;
    }
  if (!is_metadata (key) && checks_generation (self))
    m->check_key = g_strdup (key);
  if (held != NULL || n_ranges == 0)
    {
      for (guint i = 0; i < n_ranges; i++)
        {
          if (ranges[i].offset > g_bytes_get_size (held))
            {
              g_task_return_new_error (task, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                                       "key '%s': offset %" G_GUINT64_FORMAT " is past the end",
                                       key, ranges[i].offset);
              g_object_unref (task);
              return;
            }
          g_ptr_array_index (m->results, i) = range_of (held, ranges[i].offset, ranges[i].length);
        }
      g_task_return_pointer (task, g_ptr_array_ref (m->results), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  for (guint i = 0; i < n_ranges; i++)
    many_submit (self, task, key, i, &ranges[i], cancellable);
  many_part_release (task);
}

static GPtrArray *
ncz_s3_store_read_ranges_finish (NczStore      *store,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The synchronous forms of the many-request reads run the asynchronous
 * ones in a context of their own and wait. */
typedef struct
{
  GAsyncResult *result;
} Waiter;

static void
waiter_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Waiter *w = user_data;

  w->result = g_object_ref (result);
}

static GAsyncResult *
wait_for (GMainContext *context,
          Waiter       *w)
{
  while (w->result == NULL)
    g_main_context_iteration (context, TRUE);
  return w->result;
}

static GPtrArray *
ncz_s3_store_read_many (NczStore           *store,
                        const char * const *keys,
                        GCancellable       *cancellable,
                        GError            **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  Waiter w = { NULL };
  GPtrArray *result;

  /* the generation before the first metadata (here, not in a thread) */
  for (guint i = 0; keys[i] != NULL; i++)
    if (held_lookup_has (NCZ_S3_STORE (store), keys[i]) == FALSE
        && !ensure_baseline (NCZ_S3_STORE (store), keys[i], cancellable, error))
      return NULL;
  g_main_context_push_thread_default (context);
  ncz_s3_store_read_many_async (store, keys, G_PRIORITY_DEFAULT, cancellable, waiter_done, &w);
  wait_for (context, &w);
  g_main_context_pop_thread_default (context);
  result = ncz_s3_store_read_many_finish (store, w.result, error);
  g_object_unref (w.result);
  return result;
}

static GPtrArray *
ncz_s3_store_read_ranges (NczStore            *store,
                          const char          *key,
                          const NczStoreRange *ranges,
                          guint                n_ranges,
                          GCancellable        *cancellable,
                          GError             **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  Waiter w = { NULL };
  GPtrArray *result;

  if (n_ranges > 0 && !held_lookup_has (NCZ_S3_STORE (store), key)
      && !ensure_baseline (NCZ_S3_STORE (store), key, cancellable, error))
    return NULL;
  g_main_context_push_thread_default (context);
  ncz_s3_store_read_ranges_async (store, key, ranges, n_ranges, G_PRIORITY_DEFAULT, cancellable,
                                  waiter_done, &w);
  wait_for (context, &w);
  g_main_context_pop_thread_default (context);
  result = ncz_s3_store_read_ranges_finish (store, w.result, error);
  g_object_unref (w.result);
  return result;
}

static gboolean
ncz_s3_store_write_many (NczStore           *store,
                         const char * const *keys,
                         GBytes * const     *data,
                         guint               n,
                         GCancellable       *cancellable,
                         GError            **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autofree Call **calls = g_new0 (Call *, n);
  g_autoptr(GPtrArray) big = g_ptr_array_new ();
  guint n_calls = 0;
  gboolean ok = TRUE;

  for (guint i = 0; i < n; i++)
    if (!check_key_length (self, keys[i], error))
      return FALSE;
  for (guint i = 0; i < n; i++)
    if (holds_back (self, keys[i]) || g_bytes_get_size (data[i]) > MULTIPART_THRESHOLD)
      g_ptr_array_add (big, GUINT_TO_POINTER (i + 1));
  if (big->len < n && needs_prepare (self) && !prepare_replace (self, cancellable, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (holds_back (self, keys[i]) || g_bytes_get_size (data[i]) > MULTIPART_THRESHOLD)
        continue;
      calls[n_calls] = call_new (self, "PUT", keys[i], TRUE, cancellable);
      calls[n_calls]->body = g_bytes_ref (data[i]);
      n_calls++;
    }
  /* one check of the generation before the batch and one after */
  if (n_calls > 0 && !before_write (self, calls[0]->key, cancellable, error))
    {
      for (guint i = 0; i < n_calls; i++)
        call_free (calls[i]);
      return FALSE;
    }
  calls_run (calls, n_calls);
  for (guint i = 0; i < n_calls; i++)
    {
      if (call_ok (calls[i]))
        note_written (self, calls[i]->key, call_etag (calls[i]));
      else if (ok)
        {
          call_set_error (calls[i], error, "writing");
          ok = FALSE;
        }
      call_free (calls[i]);
    }
  for (guint j = 0; ok && j < big->len; j++)
    {
      guint i = GPOINTER_TO_UINT (g_ptr_array_index (big, j)) - 1;

      ok = write_object (self, keys[i], data[i], cancellable, error);
    }
  return ok;
}

static gboolean
write_checks_first (NczS3Store *self)
{
  gboolean replacing;

  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  g_mutex_unlock (&self->lock);
  if (replacing)
    return replace_guard_is_due (self);
  return !store_usable (self, NULL, TRUE, NULL) || checks_generation (self);
}

/* write_async: one PUT on the request thread; large objects (multipart),
 * held metadata and the first write of a replacement run synchronously
 * in a thread (they may wait for other requests). The task data is the
 * key (a ReadData without range). */
static void
write_in_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  ReadData *wd = task_data;
  GError *error = NULL;
  GBytes *data = g_object_get_data (G_OBJECT (task), "data");

  if (write_object (NCZ_S3_STORE (source), wd->key, data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
write_async_done (Call *call)
{
  GTask *task = call->data;

  if (call_ok (call))
    {
      note_written (call->store, call->key, call_etag (call));
      g_task_return_boolean (task, TRUE);
    }
  else
    {
      GError *error = NULL;

      call_set_error (call, &error, "writing");
      g_task_return_error (task, error);
    }
  call_free (call);
  g_object_unref (task);
}

static void
ncz_s3_store_write_async (NczStore            *store,
                          const char          *key,
                          GBytes              *data,
                          int                  io_priority,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  GError *error = NULL;
  Call *call;

  g_task_set_source_tag (task, ncz_s3_store_write_async);
  if (!check_key_length (self, key, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* and the writes that check something first: a replacer's guard that
   * needs a request, a writer in place's generation */
  if (holds_back (self, key) || needs_prepare (self)
      || g_bytes_get_size (data) > MULTIPART_THRESHOLD || write_checks_first (self))
    {
      ReadData *wd = g_new0 (ReadData, 1);

      wd->key = g_strdup (key);
      g_task_set_task_data (task, wd, read_data_free);
      g_object_set_data_full (G_OBJECT (task), "data", g_bytes_ref (data),
                              (GDestroyNotify) g_bytes_unref);
      g_task_run_in_thread (task, write_in_thread);
      g_object_unref (task);
      return;
    }
  call = call_new (self, "PUT", key, TRUE, cancellable);
  call->body = g_bytes_ref (data);
  call_submit (call, write_async_done, task);
}

static gboolean
ncz_s3_store_write_finish (NczStore      *store,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
get_length_async_done (Call *call)
{
  GTask *task = call->data;

  if (call_ok (call))
    {
      guint64 *length = g_new (guint64, 1);

      *length = (guint64) soup_message_headers_get_content_length (call->headers);
      g_task_return_pointer (task, length, g_free);
    }
  else
    {
      GError *error = NULL;

      call_set_error (call, &error, "reading the length");
      g_task_return_error (task, error);
    }
  call_free (call);
  g_object_unref (task);
}

static void
ncz_s3_store_get_length_async (NczStore            *store,
                               const char          *key,
                               int                  io_priority,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  g_autoptr(GBytes) held = held_lookup (self, key);
  GError *error = NULL;

  g_task_set_source_tag (task, ncz_s3_store_get_length_async);
  if (held != NULL)
    {
      guint64 *length = g_new (guint64, 1);

      *length = g_bytes_get_size (held);
      g_task_return_pointer (task, length, g_free);
      g_object_unref (task);
      return;
    }
  if (!check_key_length (self, key, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  call_submit (call_new (self, "HEAD", key, TRUE, cancellable), get_length_async_done, task);
}

static gboolean
ncz_s3_store_get_length_finish (NczStore      *store,
                                GAsyncResult  *result,
                                guint64       *length,
                                GError       **error)
{
  g_autofree guint64 *value = g_task_propagate_pointer (G_TASK (result), error);

  if (value == NULL)
    return FALSE;
  if (length != NULL)
    *length = *value;
  return TRUE;
}

typedef struct
{
  char **names;
  char *next_token;
} Page;

static void
page_free (gpointer data)
{
  Page *page = data;

  g_strfreev (page->names);
  g_free (page->next_token);
  g_free (page);
}

typedef struct
{
  char *prefix;
  char *token;
  guint max_names;
} PageArgs;

static void
page_args_free (gpointer data)
{
  PageArgs *args = data;

  g_free (args->prefix);
  g_free (args->token);
  g_free (args);
}

static char **ncz_s3_store_list_page (NczStore *store, const char *prefix, const char *token,
                                      guint max_names, char **next_token,
                                      GCancellable *cancellable, GError **error);

static void
list_page_in_thread (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  PageArgs *args = task_data;
  GError *error = NULL;
  Page *page = g_new0 (Page, 1);

  page->names = ncz_s3_store_list_page (NCZ_STORE (source), args->prefix, args->token,
                                        args->max_names, &page->next_token, cancellable, &error);
  if (page->names == NULL)
    {
      page_free (page);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, page, page_free);
}

static void
list_page_done (Call *call)
{
  GTask *task = call->data;
  const char *lp = g_task_get_task_data (task);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  Page *page = g_new0 (Page, 1);
  GError *error = NULL;

  if (list_parse (call, lp, names, &page->next_token, &error))
    {
      g_autofree char *root = list_prefix (call->store, "");

      clean_names (names);
      if (strcmp (lp, root) == 0)
        drop_generation_key ("", names);
      g_ptr_array_add (names, NULL);
      page->names = (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
      g_task_return_pointer (task, page, page_free);
    }
  else
    {
      page_free (page);
      g_task_return_error (task, error);
    }
  call_free (call);
  g_object_unref (task);
}

static void
ncz_s3_store_list_page_async (NczStore            *store,
                              const char          *prefix,
                              const char          *token,
                              guint                max_names,
                              int                  io_priority,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  char *lp = list_prefix (self, prefix);

  gboolean replacing;

  g_task_set_source_tag (task, ncz_s3_store_list_page_async);
  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  g_mutex_unlock (&self->lock);
  if (replacing)
    {
      /* held metadata are merged in by the synchronous call */
      PageArgs *args = g_new0 (PageArgs, 1);

      g_free (lp);
      args->prefix = g_strdup (prefix);
      args->token = g_strdup (token);
      args->max_names = max_names;
      g_task_set_task_data (task, args, page_args_free);
      g_task_run_in_thread (task, list_page_in_thread);
      g_object_unref (task);
      return;
    }
  g_task_set_task_data (task, lp, g_free);
  call_submit (list_call_new (self, lp, TRUE, token, max_names, cancellable), list_page_done, task);
}

static char **
ncz_s3_store_list_page_finish (NczStore      *store,
                               GAsyncResult  *result,
                               char         **next_token,
                               GError       **error)
{
  Page *page = g_task_propagate_pointer (G_TASK (result), error);
  char **names;

  if (page == NULL)
    return NULL;
  names = g_steal_pointer (&page->names);
  if (next_token != NULL)
    *next_token = g_steal_pointer (&page->next_token);
  page_free (page);
  return names;
}

static guint
ncz_s3_store_get_io_depth_hint (NczStore *store)
{
  return IO_DEPTH_HINT;
}

/* every request is a round trip: formats consolidate their metadata */
static gboolean
ncz_s3_store_is_remote (NczStore *store)
{
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Replacing a dataset */

static gboolean
needs_prepare (NczS3Store *self)
{
  gboolean needed;

  g_mutex_lock (&self->lock);
  needed = self->replacing && !self->prepared;
  g_mutex_unlock (&self->lock);
  return needed;
}

/* Before the first write over an old dataset: the generation becomes
 * this store's (which may wait for another replacement), then the
 * metadata objects at the prefix go, so that it no longer opens (what
 * follows would mix old and new). The prefix is listed now, after the
 * claim: a replacement that finished while this one waited left its own
 * objects. */
static gboolean
prepare_replace (NczS3Store   *self,
                 GCancellable *cancellable,
                 GError      **error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&self->prepare_lock);
  if (needs_prepare (self))
    {
      g_autofree char *lp = list_prefix (self, "");
      g_autoptr(GPtrArray) old = NULL;
      g_autoptr(GPtrArray) objects = g_ptr_array_new_with_free_func (g_free);
      gboolean claimed;

      g_mutex_lock (&self->lock);
      claimed = self->claimed;
      g_mutex_unlock (&self->lock);
      ok = claimed || claim_generation (self, cancellable, error);
      if (ok)
        {
          start_heartbeat (self);
          old = list_all (self, lp, FALSE, cancellable, error);
          ok = old != NULL;
        }
      if (ok)
        {
          g_mutex_lock (&self->lock);
          g_hash_table_remove_all (self->old_keys);
          for (guint i = 0; i < old->len; i++)
            {
              const char *key = g_ptr_array_index (old, i);

              if (*key == '\0' || strcmp (key, GENERATION_KEY) == 0)
                continue;
              g_hash_table_add (self->old_keys, g_strdup (key));
              if (is_metadata (key))
                g_ptr_array_add (objects, object_key (self, key));
            }
          g_mutex_unlock (&self->lock);
          ok = replace_guard (self, cancellable, error)
               && delete_objects (self, objects, cancellable, error);
          if (!ok)
            g_prefix_error (error, "removing the metadata of the dataset being replaced: ");
        }
      if (ok)
        {
          g_mutex_lock (&self->lock);
          self->prepared = TRUE;
          g_mutex_unlock (&self->lock);
        }
    }
  g_mutex_unlock (&self->prepare_lock);
  return ok;
}

/* Every object under @prefix (a list prefix) with its ETag: relative
 * key → ETag (NULL when the listing gave none). */
static GHashTable *
list_tagged (NczS3Store   *self,
             const char   *prefix,
             GCancellable *cancellable,
             GError      **error)
{
  g_autoptr(GHashTable) out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *token = NULL;
  gsize plen = strlen (prefix);

  do
    {
      Call *call = list_call_new (self, prefix, FALSE, token, 1000, cancellable);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) leaves = NULL;
      const char *current = NULL;
      char *next = NULL;
      const char *text;
      gsize len;

      call_run (call);
      if (!list_parse (call, prefix, names, &next, error))
        {
          call_free (call);
          return NULL;
        }
      /* each Contents element gives its Key, then its ETag */
      text = g_bytes_get_data (call->response, &len);
      leaves = ncz_s3_xml_leaves (text, len);
      for (guint i = 0; leaves != NULL && i + 1 < leaves->len; i += 2)
        {
          const char *path = g_ptr_array_index (leaves, i);
          const char *value = g_ptr_array_index (leaves, i + 1);

          if (strcmp (path, "ListBucketResult/Contents/Key") == 0)
            {
              current = strncmp (value, prefix, plen) == 0 && value[plen] != '\0'
                          ? value + plen : NULL;
              if (current != NULL)
                g_hash_table_replace (out, g_strdup (current), NULL);
            }
          else if (strcmp (path, "ListBucketResult/Contents/ETag") == 0 && current != NULL)
            {
              g_hash_table_replace (out, g_strdup (current), g_strdup (value));
              current = NULL;
            }
        }
      call_free (call);
      g_free (token);
      token = next;
    }
  while (token != NULL);
  return g_steal_pointer (&out);
}

/* A writer in place whose last writes were not checked after they were
 * answered: the dataset was not replaced since it was opened (as the
 * file store's commit says). */
static gboolean
commit_in_place (NczS3Store   *self,
                 GCancellable *cancellable,
                 GError      **error)
{
  gboolean unchecked;

  /* writes not yet followed by a check (before_write) */
  g_mutex_lock (&self->lock);
  unchecked = self->write_done_at > self->covered_until;
  g_mutex_unlock (&self->lock);
  if (!unchecked)
    return TRUE;
  if (!store_usable (self, NULL, TRUE, error))
    return FALSE;
  return !checks_generation (self) || check_generation (self, NULL, TRUE, error);
}

static gboolean
ncz_s3_store_commit (NczStore     *store,
                     GCancellable *cancellable,
                     GError      **error)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  static const char * const order[] = { ".zattrs", ".nczarr", ".zmetadata", ".zgroup", NULL };
  g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) changed = g_string_new (NULL);
  g_autoptr(GHashTable) held = NULL;
  g_autoptr(GHashTable) listed = NULL;
  g_autofree char *lp = list_prefix (self, "");
  g_autoptr(GError) local = NULL;
  guint n_changed = 0;
  GHashTableIter iter;
  gpointer key, value;
  gboolean replacing;
  gboolean ok;

  g_mutex_lock (&self->lock);
  replacing = self->replacing;
  g_mutex_unlock (&self->lock);
  if (!replacing)
    return commit_in_place (self, cancellable, error);

  /* a dataset without chunks claims its generation here */
  if (needs_prepare (self) && !prepare_replace (self, cancellable, error))
    return FALSE;
  if (!replace_guard (self, cancellable, error))
    return FALSE;
  /* The prefix as it is now, listed again: whatever this replacement did
   * not write goes, whoever wrote it (an interrupted replacement, a writer
   * in place that missed the start of this one); and each chunk it wrote
   * must still be as it wrote it, else another writer wrote into this
   * replacement and the result would be a mix. */
  listed = list_tagged (self, lp, cancellable, error);
  if (listed == NULL)
    {
      g_prefix_error (error, "listing the dataset being replaced: ");
      return FALSE;
    }
  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, listed);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *ours;

      if (strcmp (key, GENERATION_KEY) == 0 || g_hash_table_contains (self->held, key))
        continue;
      if (!g_hash_table_lookup_extended (self->written, key, NULL, (gpointer *) &ours))
        g_ptr_array_add (stale, object_key (self, key));
      else if (ours != NULL && value != NULL && !etag_equal (ours, value) && n_changed++ < 3)
        g_string_append_printf (changed, "%s'%s' (changed)", changed->len > 0 ? ", " : "",
                                (char *) key);
    }
  g_hash_table_iter_init (&iter, self->written);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (listed, key) && n_changed++ < 3)
      g_string_append_printf (changed, "%s'%s' (removed)", changed->len > 0 ? ", " : "",
                              (char *) key);
  g_mutex_unlock (&self->lock);
  if (n_changed > 0)
    {
      g_autofree char *where = location (self);

      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT,
                   "S3 dataset %s: another writer changed %u of the objects this replacement "
                   "wrote (%s%s) while it ran: the replacement is abandoned, the dataset does "
                   "not open; replace it again", where, n_changed, changed->str,
                   n_changed > 3 ? ", …" : "");
      return FALSE;
    }

  /* old objects not rewritten go first … */
  if (!replace_guard (self, cancellable, error) || !delete_objects (self, stale, cancellable, error))
    {
      g_prefix_error (error, "removing the objects of the replaced dataset: ");
      return FALSE;
    }
  /* … then the metadata of groups and arrays below the root … */
  g_mutex_lock (&self->lock);
  held = g_hash_table_ref (self->held);
  g_mutex_unlock (&self->lock);
  {
    g_autofree Call **calls = g_new0 (Call *, g_hash_table_size (held) + 1);
    guint n = 0;

    ok = TRUE;
    g_hash_table_iter_init (&iter, held);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      if (!is_root_metadata (key))
        {
          calls[n] = call_new (self, "PUT", key, TRUE, cancellable);
          calls[n]->body = g_bytes_ref (g_hash_table_lookup (held, key));
          n++;
        }
    calls_run (calls, n);
    for (guint i = 0; i < n; i++)
      {
        if (ok && !call_ok (calls[i]))
          {
            call_set_error (calls[i], error, "writing metadata");
            ok = FALSE;
          }
        call_free (calls[i]);
      }
    if (!ok)
      return FALSE;
  }
  /* … and the root's last make the new dataset visible: only while the
   * generation is still this replacement's, as a conditional rewrite of
   * its record proves (a replacer presumed dead whose record was taken
   * over stops here, before it publishes anything) */
  if (!generation_beat (self, cancellable, error))
    return FALSE;
  for (guint i = 0; order[i] != NULL; i++)
    {
      GBytes *data = g_hash_table_lookup (held, order[i]);

      if (data != NULL && !put_object (self, order[i], data, NULL, cancellable, error))
        return FALSE;
    }
  /* The dataset is whole: from here on, this store never writes to the
   * prefix again, so the record may say "complete" and the next
   * replacement start. (Saying it before the root metadata was written
   * would let the next replacer list and clear the prefix while this one
   * still writes its root.) */
  g_mutex_lock (&self->lock);
  self->replacing = FALSE;
  g_hash_table_remove_all (self->held);
  g_hash_table_remove_all (self->written);
  g_hash_table_remove_all (self->old_keys);
  g_mutex_unlock (&self->lock);
  g_mutex_lock (&self->gen_lock);
  ok = generation_put_locked (self, "complete", cancellable, &local);
  self->gen_done = TRUE;
  g_mutex_unlock (&self->gen_lock);
  stop_heartbeat (self);
  if (!ok)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                  "the new dataset is written, but its generation object could "
                                  "not be marked complete (readers refuse the dataset and "
                                  "replacements wait until it is %u s old): ",
                                  self->config->replace_stale);
      return FALSE;
    }
  return TRUE;
}

/* Drops what this replacement wrote. The old dataset stays whole when
 * nothing was written yet; otherwise its root metadata is already gone
 * and what is left of it does not open. The generation record then says
 * "discarded", which the next replacement takes over at once (and
 * readers take for settled: the old dataset if it is still whole, else
 * nothing that opens). A store whose record was taken over removes
 * nothing: the objects may be the new replacement's. */
static void
ncz_s3_store_discard (NczStore *store)
{
  NczS3Store *self = NCZ_S3_STORE (store);
  g_autoptr(GPtrArray) objects = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer key;
  gboolean lost;

  g_mutex_lock (&self->lock);
  if (!self->replacing)
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  self->replacing = FALSE;
  lost = self->lost;
  g_hash_table_iter_init (&iter, self->written);
  while (!lost && g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (self->old_keys, key))
      g_ptr_array_add (objects, object_key (self, key));
  g_hash_table_remove_all (self->held);
  g_hash_table_remove_all (self->written);
  g_mutex_unlock (&self->lock);
  if (!delete_objects (self, objects, NULL, &error))
    {
      g_debug ("discarding a replacement: %s", error->message);
      g_clear_error (&error);
    }
  g_mutex_lock (&self->gen_lock);
  if (self->claimed && !self->gen_done && !lost
      && !generation_put_locked (self, "discarded", NULL, &error))
    g_debug ("discarding a replacement: %s", error->message);
  self->gen_done = TRUE;
  g_mutex_unlock (&self->gen_lock);
  stop_heartbeat (self);
}

static void
ncz_s3_store_store_init (NczStoreInterface *iface)
{
  iface->read = ncz_s3_store_read;
  iface->write = ncz_s3_store_write;
  iface->remove = ncz_s3_store_remove;
  iface->get_length = ncz_s3_store_get_length;
  iface->list = ncz_s3_store_list;
  iface->read_many = ncz_s3_store_read_many;
  iface->write_many = ncz_s3_store_write_many;
  iface->commit = ncz_s3_store_commit;
  iface->discard = ncz_s3_store_discard;
  iface->read_ranges = ncz_s3_store_read_ranges;
  iface->list_page = ncz_s3_store_list_page;
  iface->get_io_depth_hint = ncz_s3_store_get_io_depth_hint;
  iface->is_remote = ncz_s3_store_is_remote;
  iface->read_async = ncz_s3_store_read_async;
  iface->read_finish = ncz_s3_store_read_finish;
  iface->read_ranges_async = ncz_s3_store_read_ranges_async;
  iface->read_ranges_finish = ncz_s3_store_read_ranges_finish;
  iface->read_many_async = ncz_s3_store_read_many_async;
  iface->read_many_finish = ncz_s3_store_read_many_finish;
  iface->write_async = ncz_s3_store_write_async;
  iface->write_finish = ncz_s3_store_write_finish;
  iface->get_length_async = ncz_s3_store_get_length_async;
  iface->get_length_finish = ncz_s3_store_get_length_finish;
  iface->list_page_async = ncz_s3_store_list_page_async;
  iface->list_page_finish = ncz_s3_store_list_page_finish;
  iface->read_tagged = ncz_s3_store_read_tagged;
  iface->write_if = ncz_s3_store_write_if;
}

/* ---------------------------------------------------------------------- */
/* The request thread */

typedef struct
{
  GMainContext *context;
  GMainLoop *loop;
  guint timeout;
  SoupSession **session_out;
  GMutex lock;
  GCond cond;
  gboolean ready;
} ThreadStart;

/* Proxies from the environment (http_proxy, https_proxy, no_proxy, as
 * curl and the AWS tools read them), not from the desktop's settings: a
 * storage driver runs in batch jobs and test harnesses as often as on a
 * desktop. */
static GProxyResolver *
environment_proxy_resolver (void)
{
  const char *http = g_getenv ("http_proxy");
  const char *https = g_getenv ("https_proxy");
  const char *no_proxy = g_getenv ("no_proxy");
  g_auto (GStrv) ignore = NULL;
  GProxyResolver *resolver;

  if (http == NULL || *http == '\0')
    http = g_getenv ("HTTP_PROXY");
  if (https == NULL || *https == '\0')
    https = g_getenv ("HTTPS_PROXY");
  if (no_proxy == NULL || *no_proxy == '\0')
    no_proxy = g_getenv ("NO_PROXY");
  if ((http == NULL || *http == '\0') && (https == NULL || *https == '\0'))
    return NULL;
  if (no_proxy != NULL && *no_proxy != '\0')
    {
      ignore = g_strsplit (no_proxy, ",", -1);
      for (guint i = 0; ignore[i] != NULL; i++)
        g_strstrip (ignore[i]);
    }
  resolver = g_simple_proxy_resolver_new (NULL, ignore);
  if (http != NULL && *http != '\0')
    g_simple_proxy_resolver_set_uri_proxy (G_SIMPLE_PROXY_RESOLVER (resolver), "http", http);
  if (https != NULL && *https != '\0')
    g_simple_proxy_resolver_set_uri_proxy (G_SIMPLE_PROXY_RESOLVER (resolver), "https", https);
  return resolver;
}

static gpointer
request_thread (gpointer data)
{
  ThreadStart *start = data;
  GMainContext *context = g_main_context_ref (start->context);
  GMainLoop *loop = g_main_loop_ref (start->loop);
  g_autoptr(GProxyResolver) proxies = environment_proxy_resolver ();
  SoupSession *session;

  g_main_context_push_thread_default (context);
  session = soup_session_new_with_options ("max-conns", 2 * MAX_IN_FLIGHT,
                                           "max-conns-per-host", MAX_IN_FLIGHT,
                                           "timeout", start->timeout,
                                           "idle-timeout", 60,
                                           "user-agent", "ncz/" NCZ_VERSION_STRING,
                                           "proxy-resolver", proxies,
                                           NULL);
  g_mutex_lock (&start->lock);
  *start->session_out = session;
  start->ready = TRUE;
  g_cond_signal (&start->cond);
  g_mutex_unlock (&start->lock);
  /* start is gone from here on */

  g_main_loop_run (loop);

  soup_session_abort (session);
  g_object_unref (session);
  /* let sources that hold the session's last references run out */
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);
  g_main_loop_unref (loop);
  g_main_context_unref (context);
  return NULL;
}

static void
start_request_thread (NczS3Store *self)
{
  ThreadStart start = { 0 };

  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  start.context = self->context;
  start.loop = self->loop;
  start.timeout = self->config->timeout;
  start.session_out = &self->session;
  g_mutex_init (&start.lock);
  g_cond_init (&start.cond);
  self->thread = g_thread_new ("ncz-s3", request_thread, &start);
  g_mutex_lock (&start.lock);
  while (!start.ready)
    g_cond_wait (&start.cond, &start.lock);
  g_mutex_unlock (&start.lock);
  g_mutex_clear (&start.lock);
  g_cond_clear (&start.cond);
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

static void
stop_request_thread (NczS3Store *self)
{
  GSource *idle;

  if (self->thread == NULL)
    return;
  idle = g_idle_source_new ();
  g_source_set_callback (idle, quit_loop, g_main_loop_ref (self->loop),
                         (GDestroyNotify) g_main_loop_unref);
  g_source_attach (idle, self->context);
  g_source_unref (idle);
  if (g_thread_self () == self->thread)
    g_thread_unref (self->thread); /* finishes on its own */
  else
    g_thread_join (self->thread);
  self->thread = NULL;
  self->session = NULL;
}

/* ---------------------------------------------------------------------- */
/* Initialisation */

/* With NCZ_STORE_CREATE: the bucket is made when missing. */
static gboolean
ensure_bucket (NczS3Store   *self,
               GCancellable *cancellable,
               GError      **error)
{
  Call *call = call_new (self, "HEAD", NULL, FALSE, cancellable);
  gboolean ok;

  call_run (call);
  ok = call_ok (call);
  if (!ok && call_missing (call))
    {
      gboolean aws = g_str_has_suffix (self->config->host, ".amazonaws.com");

      call_free (call);
      call = call_new (self, "PUT", NULL, FALSE, cancellable);
      if (aws && strcmp (self->config->region, NCZ_S3_DEFAULT_REGION) != 0)
        {
          g_autofree char *body = g_strdup_printf (
            "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            "<LocationConstraint>%s</LocationConstraint></CreateBucketConfiguration>",
            self->config->region);

          call->content_type = g_strdup ("application/xml");
          call->body = g_bytes_new (body, strlen (body));
        }
      call_run (call);
      ok = call_ok (call) || (call->error == NULL && call->status == 409);
      if (!ok)
        call_set_error (call, error, "creating the bucket");
    }
  else if (!ok)
    call_set_error (call, error, "looking for the bucket");
  call_free (call);
  return ok;
}

static gboolean
ncz_s3_store_initable_init_impl (GInitable     *initable,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  NczS3Store *self = NCZ_S3_STORE (initable);
  NczS3Config *config;

  if (self->initialized)
    return TRUE;
  if (self->url == NULL)
    {
      g_set_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_FAILED,
                   "the S3 store needs a URL");
      return FALSE;
    }
  config = self->config = ncz_s3_config_resolve (self->url, cancellable, error);
  if (config == NULL)
    return FALSE;
  self->endpoint = ncz_s3_config_endpoint (config);
  if (config->style == NCZ_S3_STYLE_PATH)
    {
      g_autofree char *bucket = ncz_s3_uri_encode (config->bucket, -1, FALSE);

      self->root_path = g_strconcat ("/", bucket, NULL);
    }
  else
    self->root_path = g_strdup ("");
  {
    gboolean ipv6 = strchr (config->host, ':') != NULL;

    self->host_header = g_strdup_printf ("%s%s%s", ipv6 ? "[" : "", config->host, ipv6 ? "]" : "");
    if (config->port > 0)
      {
        char *with_port = g_strdup_printf ("%s:%d", self->host_header, config->port);

        g_free (self->host_header);
        self->host_header = with_port;
      }
  }
  g_debug ("S3 store: %s bucket '%s' prefix '%s' region %s profile %s (%s)", self->endpoint,
           config->bucket, config->prefix, config->region, config->profile,
           config->access_key != NULL ? "signed" : "unsigned");

  start_request_thread (self);

  /* a replacement lists the prefix when it claims the generation, at
   * its first write: nothing at the prefix changes before */
  if (self->flags & NCZ_STORE_CREATE)
    {
      if (!ensure_bucket (self, cancellable, error))
        return FALSE;
      self->replacing = TRUE;
      self->prepared = FALSE;
    }
  self->initialized = TRUE;
  return TRUE;
}

static void
ncz_s3_store_initable_init (GInitableIface *iface)
{
  iface->init = ncz_s3_store_initable_init_impl;
}

/* ---------------------------------------------------------------------- */
/* GObject */

static void
ncz_s3_store_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  NczS3Store *self = NCZ_S3_STORE (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_N_REQUESTS:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->n_requests);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_mutex_lock (&self->lock);
      g_value_set_uint (value, self->max_in_flight);
      g_mutex_unlock (&self->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_s3_store_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  NczS3Store *self = NCZ_S3_STORE (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_set_object (&self->url, g_value_get_object (value));
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_s3_store_finalize (GObject *object)
{
  NczS3Store *self = NCZ_S3_STORE (object);

  /* a replacement never committed: drop what it wrote */
  if (self->thread != NULL && g_thread_self () != self->thread)
    ncz_s3_store_discard (NCZ_STORE (self));
  stop_heartbeat (self);
  stop_request_thread (self);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_queue_clear (&self->waiting);
  ncz_s3_config_free (self->config);
  g_free (self->endpoint);
  g_free (self->root_path);
  g_free (self->host_header);
  g_hash_table_unref (self->old_keys);
  g_hash_table_unref (self->written);
  g_hash_table_unref (self->held);
  g_free (self->gen_id);
  g_free (self->gen_since);
  g_free (self->gen_tag);
  g_free (self->baseline_tag);
  g_ptr_array_unref (self->check_pending);
  g_mutex_clear (&self->prepare_lock);
  g_mutex_clear (&self->gen_lock);
  g_cond_clear (&self->heartbeat_cond);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_clear_object (&self->url);

  G_OBJECT_CLASS (ncz_s3_store_parent_class)->finalize (object);
}

static void
ncz_s3_store_class_init (NczS3StoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ncz_s3_store_get_property;
  object_class->set_property = ncz_s3_store_set_property;
  object_class->finalize = ncz_s3_store_finalize;

  g_object_class_override_property (object_class, PROP_URL, "url");
  g_object_class_override_property (object_class, PROP_FLAGS, "flags");
  g_object_class_install_property (object_class, PROP_N_REQUESTS,
    g_param_spec_uint64 ("n-requests", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (object_class, PROP_MAX_IN_FLIGHT,
    g_param_spec_uint ("max-in-flight", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
ncz_s3_store_init (NczS3Store *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_mutex_init (&self->prepare_lock);
  g_mutex_init (&self->gen_lock);
  g_cond_init (&self->heartbeat_cond);
  g_queue_init (&self->waiting);
  self->check_pending = g_ptr_array_new ();
  self->old_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->written = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_bytes_unref);
}
