/* test-s3-store.c: the S3 store's behaviour that needs no S3 server:
 * connection failures are retried and reported, attempts time out,
 * cancellation, over-long keys, secrets kept out of errors, and
 * asynchronous results delivered to the caller's main context. The
 * requests to a real server are tested in tests/s3 (radosgw).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz.h>

#define SECRET "test+secret/NeverShown42"

/* A port nothing listens on. */
static guint16
closed_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint16 port;

  g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);
  return port;
}

/* A server that takes connections and never answers. */
static GSocket *
silent_server (guint16 *port)
{
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                  G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
  g_socket_set_listen_backlog (socket, 64);
  g_assert_true (g_socket_listen (socket, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return socket;
}

static NczStore *
open_store (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse (text, &error);
  NczStore *store;

  g_assert_no_error (error);
  store = ncz_registry_open_store (ncz_registry_get_default (), url, NCZ_STORE_READ, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

static guint64
n_requests (NczStore *store)
{
  guint64 n = 0;

  g_object_get (store, "n-requests", &n, NULL);
  return n;
}

static void
test_type (void)
{
  g_autoptr(NczStore) store = open_store ("s3://bucket/prefix#aws.profile=none");
  guint in_flight = 99;

  g_assert_cmpstr (G_OBJECT_TYPE_NAME (store), ==, "NczS3Store");
  g_assert_cmpuint (ncz_store_get_io_depth_hint (store), ==, 32);
  g_object_get (store, "max-in-flight", &in_flight, NULL);
  g_assert_cmpuint (in_flight, ==, 0);
  g_assert_cmpuint (n_requests (store), ==, 0); /* opening for reading sends nothing */
}

static void
test_refused (void)
{
  g_autofree char *text = g_strdup_printf ("http://127.0.0.1:%u/bucket/ds#mode=nczarr,s3&s3.retries=2",
                                           closed_port ());
  g_autoptr(NczStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  g_setenv ("AWS_ACCESS_KEY_ID", "AKIDTEST", TRUE);
  g_setenv ("AWS_SECRET_ACCESS_KEY", SECRET, TRUE);
  store = open_store (text);
  bytes = ncz_store_read (store, "var/.zarray", NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "/bucket/ds/var/.zarray"));
  g_assert_nonnull (strstr (error->message, "'var/.zarray'"));
  g_assert_nonnull (strstr (error->message, "3 attempts"));
  g_assert_null (strstr (error->message, SECRET));
  g_assert_null (strstr (error->message, "AKIDTEST"));
  g_assert_cmpuint (n_requests (store), ==, 3);
  g_unsetenv ("AWS_ACCESS_KEY_ID");
  g_unsetenv ("AWS_SECRET_ACCESS_KEY");
}

typedef struct
{
  GThread *thread;
  GAsyncResult *result;
} Async;

static void
async_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Async *a = user_data;

  /* delivered in the caller's thread */
  g_assert_true (a->thread == g_thread_self ());
  a->result = g_object_ref (result);
}

/* An attempt that gets no answer times out; asynchronous calls end in
 * the context they were started from. */
static void
test_timeout_async (void)
{
  guint16 port;
  g_autoptr(GSocket) server = silent_server (&port);
  g_autofree char *text = g_strdup_printf ("http://127.0.0.1:%u/bucket/ds#mode=nczarr,s3&aws.profile=none"
                                           "&s3.timeout=1&s3.retries=1", port);
  g_autoptr(NczStore) store = open_store (text);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GError) error = NULL;
  const char *keys[] = { "a/0", "a/1", "a/2", NULL };
  Async a = { g_thread_self (), NULL };
  GPtrArray *many;

  g_assert_true (G_IS_SOCKET (server));
  g_main_context_push_thread_default (context);
  ncz_store_read_many_async (store, keys, G_PRIORITY_DEFAULT, NULL, async_done, &a);
  while (a.result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  many = ncz_store_read_many_finish (store, a.result, &error);
  g_object_unref (a.result);
  g_assert_null (many);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "within 1 s"));
  g_assert_nonnull (strstr (error->message, "2 attempts"));
  g_assert_cmpuint (n_requests (store), ==, 6);
  {
    guint in_flight = 0;

    g_object_get (store, "max-in-flight", &in_flight, NULL);
    g_assert_cmpuint (in_flight, ==, 3);
  }
}

static gboolean
cancel_soon (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static gpointer
cancel_thread (gpointer data)
{
  GMainContext *context = g_main_context_new ();
  GSource *timer = g_timeout_source_new (200);

  g_source_set_callback (timer, cancel_soon, data, NULL);
  g_source_attach (timer, context);
  g_main_context_iteration (context, TRUE);
  g_source_unref (timer);
  g_main_context_unref (context);
  return NULL;
}

static void
test_cancel (void)
{
  guint16 port;
  g_autoptr(GSocket) server = silent_server (&port);
  g_autofree char *text = g_strdup_printf ("http://127.0.0.1:%u/bucket/ds#mode=nczarr,s3&aws.profile=none"
                                           "&s3.timeout=3600", port);
  g_autoptr(NczStore) store = open_store (text);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GThread *thread;

  g_assert_true (G_IS_SOCKET (server));
  thread = g_thread_new ("cancel", cancel_thread, cancellable);

  bytes = ncz_store_read (store, "x", cancellable, &error);
  g_thread_join (thread);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_long_key (void)
{
  g_autoptr(NczStore) store = open_store ("s3://bucket/prefix#aws.profile=none");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) key = g_string_new ("var/");
  g_autoptr(GBytes) data = g_bytes_new_static ("x", 1);

  while (key->len < 1020)
    g_string_append (key, "abcdefghij");
  g_assert_null (ncz_store_read (store, key->str, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_nonnull (strstr (error->message, "var/abcdefghij"));
  g_assert_nonnull (strstr (error->message, "1024"));
  g_clear_error (&error);
  g_assert_false (ncz_store_write (store, key->str, data, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_INVALID_KEY);
  g_assert_cmpuint (n_requests (store), ==, 0);
}

/* Opening fails cleanly when the URL or the options are wrong. */
static void
test_bad_open (void)
{
  const char *bad[] = {
    "s3://bucket/k#endpoint=nonsense",
    "s3://bucket/k#s3.timeout=forever",
    "http://127.0.0.1:9/#mode=s3",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NczUrl) url = ncz_url_parse (bad[i], &error);
      g_autoptr(NczStore) store = NULL;

      g_assert_no_error (error);
      store = ncz_registry_open_store (ncz_registry_get_default (), url, NCZ_STORE_READ, NULL, &error);
      g_assert_null (store);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
    }
}

int
main (int   argc,
      char *argv[])
{
  const char *vars[] = { "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE",
                         "AWS_SHARED_CREDENTIALS_FILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                         "AWS_SESSION_TOKEN", "NCRCENV_RC", "NCZ_S3_TIMEOUT", "NCZ_S3_RETRIES",
                         "http_proxy", "HTTP_PROXY", "no_proxy" };

  for (gsize i = 0; i < G_N_ELEMENTS (vars); i++)
    g_unsetenv (vars[i]);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/s3/store/type", test_type);
  g_test_add_func ("/s3/store/refused", test_refused);
  g_test_add_func ("/s3/store/timeout-async", test_timeout_async);
  g_test_add_func ("/s3/store/cancel", test_cancel);
  g_test_add_func ("/s3/store/long-key", test_long_key);
  g_test_add_func ("/s3/store/bad-open", test_bad_open);

  return g_test_run ();
}
