/* test-lock-file.c: the module SDK's lock file (<ncz/ncz-lock-file.h>)
 *
 * Two NczLockFiles on one path are two open file descriptions, which the
 * kernel treats as two processes would be; a child process is used where
 * death releasing the lock is the point.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  char *dir;
  char *path;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("ncz-lock-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->path = g_build_filename (f->dir, ".ds.zarr.ncz-lock", NULL);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_unlink (f->path);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static void
test_path_for (void)
{
  g_autofree char *a = ncz_lock_file_path_for ("/data/run/ds.zarr");
  g_autofree char *b = ncz_lock_file_path_for ("/data/run/ds.zarr/");
  g_autofree char *c = ncz_lock_file_path_for ("ds.zip");

  g_assert_cmpstr (a, ==, "/data/run/.ds.zarr.ncz-lock");
  g_assert_cmpstr (b, ==, "/data/run/.ds.zarr.ncz-lock");
  g_assert_cmpstr (c, ==, "./.ds.zip.ncz-lock");
}

static void
test_slots (void)
{
  /* stable across processes and versions: a fixed value */
  g_assert_cmpuint (ncz_lock_file_slot_for_key ("t/0.0"), ==,
                    ncz_lock_file_slot_for_key ("t/0.0"));
  g_assert_cmpuint (ncz_lock_file_slot_for_key ("t/0.0"), !=,
                    ncz_lock_file_slot_for_key ("t/0.1"));
  g_assert_cmpuint (ncz_lock_file_slot_for_key (""), !=, NCZ_LOCK_SLOT_WRITER);
  g_assert_cmpuint (ncz_lock_file_slot_for_key ("a"), ==,
                    1 + G_GUINT64_CONSTANT (12638187200555641996) % (G_GUINT64_CONSTANT (1) << 30));
}

static void
test_exclusive (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczLockFile) a = ncz_lock_file_open (f->path, &error);
  g_autoptr(NczLockFile) b = NULL;
  g_autofree char *expect = NULL;
  gint64 t0;

  g_assert_no_error (error);
  b = ncz_lock_file_open (f->path, &error);
  g_assert_no_error (error);

  g_assert_true (ncz_lock_file_lock (a, NCZ_LOCK_SLOT_WRITER, TRUE, 0, NULL, &error));
  g_assert_no_error (error);
  /* held: the other fails at once, naming this process */
  g_assert_false (ncz_lock_file_lock (b, NCZ_LOCK_SLOT_WRITER, TRUE, 0, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  expect = g_strdup_printf ("host %s pid %ld since ", g_get_host_name (), (long) getpid ());
  g_assert_nonnull (strstr (error->message, expect));
  g_assert_nonnull (strstr (error->message, f->path));
  g_clear_error (&error);
  /* shared is refused too; a timeout is waited */
  t0 = g_get_monotonic_time ();
  g_assert_false (ncz_lock_file_lock (b, NCZ_LOCK_SLOT_WRITER, FALSE, 120, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 120 * 1000);
  g_assert_nonnull (strstr (error->message, "waited"));
  g_clear_error (&error);
  /* other slots are free */
  g_assert_true (ncz_lock_file_lock (b, ncz_lock_file_slot_for_key ("v/0"), TRUE, 0, NULL,
                                     &error));
  g_assert_false (ncz_lock_file_lock (a, ncz_lock_file_slot_for_key ("v/0"), TRUE, 0, NULL,
                                      &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  g_clear_error (&error);
  ncz_lock_file_unlock (b, ncz_lock_file_slot_for_key ("v/0"));

  ncz_lock_file_unlock (a, NCZ_LOCK_SLOT_WRITER);
  g_assert_true (ncz_lock_file_lock (b, NCZ_LOCK_SLOT_WRITER, TRUE, 0, NULL, &error));
  g_assert_no_error (error);
  ncz_lock_file_unlock (b, NCZ_LOCK_SLOT_WRITER);
}

static void
test_shared (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczLockFile) a = ncz_lock_file_open (f->path, &error);
  g_autoptr(NczLockFile) b = ncz_lock_file_open (f->path, &error);
  guint64 s = ncz_lock_file_slot_for_key ("x");

  g_assert_true (ncz_lock_file_lock (a, s, FALSE, 0, NULL, &error));
  g_assert_true (ncz_lock_file_lock (a, s, FALSE, 0, NULL, &error));
  g_assert_true (ncz_lock_file_lock (b, s, FALSE, 0, NULL, &error));
  g_assert_no_error (error);
  ncz_lock_file_unlock (b, s);
  /* a's two shared holds: one release keeps the lock */
  ncz_lock_file_unlock (a, s);
  g_assert_false (ncz_lock_file_lock (b, s, TRUE, 0, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  g_clear_error (&error);
  ncz_lock_file_unlock (a, s);
  g_assert_true (ncz_lock_file_lock (b, s, TRUE, 0, NULL, &error));
  ncz_lock_file_unlock (b, s);
}

typedef struct {
  NczLockFile *lf;
  volatile gint inside;
  volatile gint max_inside;
  volatile gint counter;
} Shared;

static gpointer
worker (gpointer data)
{
  Shared *sh = data;

  for (int i = 0; i < 200; i++)
    {
      g_autoptr(GError) error = NULL;
      gint now, c;
      g_assert_true (ncz_lock_file_lock (sh->lf, 7, TRUE, -1, NULL, &error));
      now = g_atomic_int_add (&sh->inside, 1) + 1;
      if (now > g_atomic_int_get (&sh->max_inside))
        g_atomic_int_set (&sh->max_inside, now);
      c = g_atomic_int_get (&sh->counter);   /* a read-modify-write the lock guards */
      g_thread_yield ();
      g_atomic_int_set (&sh->counter, c + 1);
      g_atomic_int_add (&sh->inside, -1);
      ncz_lock_file_unlock (sh->lf, 7);
    }
  return NULL;
}

static void
test_threads (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  Shared sh = { 0 };
  GThread *t[4];

  sh.lf = ncz_lock_file_open (f->path, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 4; i++)
    t[i] = g_thread_new ("locker", worker, &sh);
  for (int i = 0; i < 4; i++)
    g_thread_join (t[i]);
  g_assert_cmpint (sh.max_inside, ==, 1);
  g_assert_cmpint (sh.counter, ==, 800);
  ncz_lock_file_close (sh.lf);
}

/* A holder that dies releases its lock; one that waits gets it then. */
static void
test_holder_dies (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczLockFile) b = NULL;
  int ready[2];
  char c;
  pid_t pid;
  int status;

  g_assert_cmpint (pipe (ready), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      NczLockFile *a = ncz_lock_file_open (f->path, NULL);
      if (a == NULL || !ncz_lock_file_lock (a, NCZ_LOCK_SLOT_WRITER, TRUE, 0, NULL, NULL))
        _exit (1);
      if (write (ready[1], "x", 1) != 1)
        _exit (1);
      g_usleep (200 * 1000);
      _exit (0);   /* dies holding it */
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  b = ncz_lock_file_open (f->path, &error);
  g_assert_false (ncz_lock_file_lock (b, NCZ_LOCK_SLOT_WRITER, TRUE, 0, NULL, &error));
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_LOCKED);
  {
    g_autofree char *pidtext = g_strdup_printf ("pid %ld ", (long) pid);
    g_assert_nonnull (strstr (error->message, pidtext));
  }
  g_clear_error (&error);
  g_assert_true (ncz_lock_file_lock (b, NCZ_LOCK_SLOT_WRITER, TRUE, 10000, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  ncz_lock_file_unlock (b, NCZ_LOCK_SLOT_WRITER);
}

static void
test_cancel_and_timeout_text (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczLockFile) a = ncz_lock_file_open (f->path, &error);
  g_autoptr(NczLockFile) b = ncz_lock_file_open (f->path, &error);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gint64 ms = 0;

  g_assert_true (ncz_lock_file_lock (a, 3, TRUE, 0, NULL, &error));
  g_cancellable_cancel (cancellable);
  g_assert_false (ncz_lock_file_lock (b, 3, TRUE, -1, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  ncz_lock_file_unlock (a, 3);

  g_assert_true (ncz_lock_timeout_from_text ("2.5", &ms, &error));
  g_assert_cmpint (ms, ==, 2500);
  g_assert_true (ncz_lock_timeout_from_text ("inf", &ms, &error));
  g_assert_cmpint (ms, ==, -1);
  g_assert_true (ncz_lock_timeout_from_text ("0", &ms, &error));
  g_assert_cmpint (ms, ==, 0);
  g_assert_false (ncz_lock_timeout_from_text ("-1", &ms, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ncz_lock_timeout_from_text ("10s", &ms, &error));
  g_clear_error (&error);
  g_assert_false (ncz_lock_timeout_from_text ("", &ms, &error));
  g_clear_error (&error);
}

static void
test_open_fails (void)
{
  g_autoptr(GError) error = NULL;
  NczLockFile *lf = ncz_lock_file_open ("/nonexistent-dir-ncz/.x.ncz-lock", &error);

  g_assert_null (lf);
  g_assert_error (error, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir-ncz/.x.ncz-lock"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lock-file/path-for", test_path_for);
  g_test_add_func ("/lock-file/slots", test_slots);
  g_test_add_func ("/lock-file/open-fails", test_open_fails);
  g_test_add ("/lock-file/exclusive", Fixture, NULL, setup, test_exclusive, teardown);
  g_test_add ("/lock-file/shared", Fixture, NULL, setup, test_shared, teardown);
  g_test_add ("/lock-file/threads", Fixture, NULL, setup, test_threads, teardown);
  g_test_add ("/lock-file/holder-dies", Fixture, NULL, setup, test_holder_dies, teardown);
  g_test_add ("/lock-file/cancel", Fixture, NULL, setup, test_cancel_and_timeout_text, teardown);
  return g_test_run ();
}
