/* test-staging.c: the module SDK's staging names and leftover rule
 * (<ncz/ncz-staging.h>)
 *
 * Other hosts are played by names that carry another host tag; live
 * owners by child processes that hold a lock, or by a process id that is
 * alive; dead writers by the id of a child that has ended.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#define DAY (24 * 60 * 60)

/* ---- names ---- */

static char *
expected_name (const char *prefix, guint64 host, guint pid)
{
  return g_strdup_printf ("%sh%016" G_GINT64_MODIFIER "x-p%u-XXXXXX", prefix, host, pid);
}

static void
test_names (void)
{
  guint64 host = ncz_staging_get_host_tag ();
  g_autofree char *a = ncz_staging_path_for ("/data/run/ds.zarr", "new");
  g_autofree char *b = ncz_staging_path_for ("/data/run/ds.zarr/", "new");
  g_autofree char *c = ncz_staging_path_for_owner ("ds.zip", "zip", 0x1a2b3c4dULL, 0);
  g_autofree char *d = ncz_staging_path_for ("/data/x.nc", "");
  g_autofree char *want_a = expected_name ("/data/run/.ds.zarr.ncz-new-", host,
                                           (guint) getpid ());
  g_autofree char *want_d = expected_name ("/data/.x.nc.ncz-", host, (guint) getpid ());

  g_assert_cmpstr (a, ==, want_a);
  g_assert_cmpstr (b, ==, want_a);
  g_assert_cmpstr (c, ==, "./.ds.zip.ncz-zip-h000000001a2b3c4d-p0-XXXXXX");
  g_assert_cmpstr (d, ==, want_d);
}

/* The tag is the documented hash: FNV-1a over the host name, the boot id
 * and the pid namespace, each with its NUL. */
static guint64
fnv (guint64 h, const char *s)
{
  const guchar *p = (const guchar *) s;

  do
    {
      h ^= *p;
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  while (*p++ != '\0');
  return h;
}

static void
test_host_tag (void)
{
  g_autofree char *boot_id = NULL;
  g_autofree char *pid_ns = g_file_read_link ("/proc/self/ns/pid", NULL);
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  pid_t pid;
  int fds[2], status;
  guint64 child_tag = 0;

  if (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot_id, NULL, NULL))
    g_strstrip (boot_id);
  h = fnv (h, g_get_host_name ());
  h = fnv (h, boot_id != NULL ? boot_id : "");
  h = fnv (h, pid_ns != NULL ? pid_ns : "");
  g_assert_cmpuint (ncz_staging_get_host_tag (), ==, h);

  /* another process of this host gets the same tag */
  g_assert_cmpint (pipe (fds), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      guint64 tag = ncz_staging_get_host_tag ();

      _exit (write (fds[1], &tag, sizeof tag) == sizeof tag ? 0 : 1);
    }
  close (fds[1]);
  g_assert_cmpint (read (fds[0], &child_tag, sizeof child_tag), ==, sizeof child_tag);
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_cmpuint (child_tag, ==, h);
}

/* @template (taken) with its random part as g_mkstemp() makes it. */
static char *
made (char *template)
{
  memcpy (template + strlen (template) - 6, "aZ09bY", 6);
  return template;
}

static void
test_parse (void)
{
  const char *target = "/data/run/ds.zarr";
  g_autofree char *path = made (ncz_staging_path_for_owner (target, "new", 0xfeedULL, 4242));
  g_autofree char *name = g_path_get_basename (path);
  NczStagingOwner owner = { TRUE, 1, 1 };
  static const char *const not_entries[] = {
    ".ds.zarr.ncz-lock",                                  /* the lock file */
    ".ds.zarr.ncz-new-",                                  /* no random part */
    ".ds.zarr.ncz-new-aZ09b",                             /* too short */
    ".ds.zarr.ncz-new-aZ09bY.",                           /* a tail without name */
    ".ds.zarr.ncz-new-aZ09bY-x",                          /* not a tail */
    ".ds.zarr.ncz-new-aZ09bYz",                           /* too long */
    ".ds.zarr.ncz-new-h000000000000FEED-p1-aZ09bY",       /* capitals */
    ".ds.zarr.ncz-new-h00000000000feed-p1-aZ09bY",        /* 15 digits */
    ".ds.zarr.ncz-new-h000000000000feed-p01-aZ09bY",      /* a leading zero */
    ".ds.zarr.ncz-new-h000000000000feed-p-aZ09bY",        /* no pid */
    ".ds.zarr.ncz-new-h000000000000feed-p2147483648-aZ09bY",   /* beyond pid_t */
    ".ds.zarr.ncz-new-h000000000000feed-p12345678901-aZ09bY",  /* 11 digits */
    ".ds.zarr.ncz-new-h000000000000feed-aZ09bY",          /* no "-p" */
    ".ds.zarr.ncz-newer-aZ09bY",                          /* another kind */
    ".ds.zarrx.ncz-new-aZ09bY",                           /* another dataset */
    "ds.zarr.ncz-new-aZ09bY",                             /* not hidden */
  };

  g_assert_true (ncz_staging_parse (target, name, "new", &owner));
  g_assert_true (owner.recorded);
  g_assert_cmpuint (owner.host, ==, 0xfeed);
  g_assert_cmpuint (owner.pid, ==, 4242);
  g_assert_true (ncz_staging_parse (target, name, "new", NULL));
  g_assert_false (ncz_staging_parse (target, name, "old", NULL));
  g_assert_false (ncz_staging_parse (target, name, "", NULL));
  g_assert_false (ncz_staging_parse ("/data/run/other.zarr", name, "new", NULL));

  /* a library's temporary file made from the entry's name is the entry's */
  {
    g_autofree char *tail = g_strconcat (name, ".Q1w2E3", NULL);

    g_assert_true (ncz_staging_parse (target, tail, "new", &owner));
    g_assert_cmpuint (owner.pid, ==, 4242);
  }

  /* pid 0: no process */
  g_assert_true (ncz_staging_parse (target, ".ds.zarr.ncz-old-h0123456789abcdef-p0-aZ09bY",
                                    "old", &owner));
  g_assert_true (owner.recorded);
  g_assert_cmpuint (owner.host, ==, G_GUINT64_CONSTANT (0x0123456789abcdef));
  g_assert_cmpuint (owner.pid, ==, 0);

  /* names of earlier versions: no record */
  g_assert_true (ncz_staging_parse (target, ".ds.zarr.ncz-new-aZ09bY", "new", &owner));
  g_assert_false (owner.recorded);
  g_assert_true (ncz_staging_parse (target, ".ds.zarr.ncz-new-aZ09bY.Q1w2E3", "new", &owner));
  g_assert_false (owner.recorded);

  /* no kind: the HDF5 backend's ".NAME.ncz-XXXXXX" */
  g_assert_true (ncz_staging_parse ("x.nc", ".x.nc.ncz-Abc123", "", &owner));
  g_assert_false (owner.recorded);
  g_assert_true (ncz_staging_parse ("x.nc", ".x.nc.ncz-h0123456789abcdef-p7-Abc123", "",
                                    &owner));
  g_assert_true (owner.recorded);
  g_assert_cmpuint (owner.pid, ==, 7);
  g_assert_false (ncz_staging_parse ("x.nc", ".x.nc.ncz-lock", "", NULL));
  g_assert_false (ncz_staging_parse ("x.nc", ".x.nc.ncz-abc12", "", NULL));
  g_assert_false (ncz_staging_parse ("x.nc", ".x.nc.ncz-new-Abc123", "", NULL));
  g_assert_false (ncz_staging_parse ("x.nc", ".x.nc.ncz-new-h0123456789abcdef-p7-Abc123", "",
                                     NULL));

  for (gsize i = 0; i < G_N_ELEMENTS (not_entries); i++)
    {
      g_test_message ("%s", not_entries[i]);
      g_assert_false (ncz_staging_parse (target, not_entries[i], "new", NULL));
    }
}

static void
test_kinds (void)
{
  if (g_test_subprocess ())
    {
      g_assert_null (ncz_staging_path_for ("ds.zarr", "New"));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*kind_is_valid*");

  /* sixteen letters are the most */
  {
    g_autofree char *p = ncz_staging_path_for ("ds.zarr", "abcdefghijklmnop");

    g_assert_nonnull (p);
  }
}

static void
test_kind_too_long (void)
{
  if (g_test_subprocess ())
    {
      g_assert_null (ncz_staging_path_for ("ds.zarr", "abcdefghijklmnopq"));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*kind_is_valid*");
}

/* NAME is cut, so that every name fits NAME_MAX with a library's
 * ".XXXXXX" added, and still parses; names of earlier versions, cut at
 * 200 bytes, are recognized too. */
static void
test_long_names (void)
{
  g_autofree char *base = g_strnfill (300, 'n');
  g_autofree char *target = g_build_filename ("/data", base, NULL);
  g_autofree char *path = made (ncz_staging_path_for_owner (target, "abcdefghijklmnop",
                                                            G_MAXUINT64, G_MAXINT));
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *cut = g_strnfill (NCZ_STAGING_BASE_MAX, 'n');
  g_autofree char *legacy_cut = g_strnfill (200, 'n');
  g_autofree char *legacy = g_strdup_printf (".%s.ncz-new-aZ09bY", legacy_cut);
  g_autofree char *longer = g_strdup_printf (".%s.ncz-new-aZ09bY", base);
  g_autofree char *with_tail = g_strconcat (name, ".Q1w2E3", NULL);
  NczStagingOwner owner;

  g_assert_cmpuint (strlen (name), ==, 239);
  g_assert_cmpuint (strlen (with_tail), <=, NAME_MAX);
  g_assert_true (g_str_has_prefix (name + 1, cut));
  g_assert_true (g_str_has_prefix (name + 1 + NCZ_STAGING_BASE_MAX, ".ncz-abcdefghijklmnop-"));
  g_assert_true (ncz_staging_parse (target, name, "abcdefghijklmnop", &owner));
  g_assert_cmpuint (owner.host, ==, G_MAXUINT64);
  g_assert_cmpuint (owner.pid, ==, G_MAXINT);
  g_assert_true (ncz_staging_parse (target, with_tail, "abcdefghijklmnop", NULL));

  g_assert_true (ncz_staging_parse (target, legacy, "new", &owner));
  g_assert_false (owner.recorded);
  g_assert_false (ncz_staging_parse (target, longer, "new", NULL));

  /* the same for a name that needs no cut */
  {
    g_autofree char *short_path = ncz_staging_path_for ("/data/ds.zarr", "new");
    g_autofree char *short_name = g_path_get_basename (short_path);

    g_assert_cmpuint (strlen (short_name), <=, 239);
  }
}

/* ---- the rule, on fake leftovers ---- */

typedef struct {
  char *dir;
  char *target;   /* dir/ds.zarr */
  GPtrArray *removed;
} Fixture;

static const NczStagingKind kinds[] = {
  { "new", TRUE, NCZ_STAGING_LOCK_FLOCK },
  { "init", TRUE, NCZ_STAGING_LOCK_NONE },
  { "part", FALSE, NCZ_STAGING_LOCK_OFD },
};

static void
setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("ncz-staging-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->target = g_build_filename (f->dir, "ds.zarr", NULL);
  f->removed = g_ptr_array_new_with_free_func (g_free);
}

static void
remove_all (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_all (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  remove_all (f->dir);
  g_ptr_array_unref (f->removed);
  g_free (f->target);
  g_free (f->dir);
}

/* The removal callback: records, then removes as the default would. A
 * leftover reaches it renamed for this process, which took it over. */
static void
record_removal (const char *path, gboolean directory, gpointer user_data)
{
  Fixture *f = user_data;
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *ours = g_strdup_printf ("h%016" G_GINT64_MODIFIER "x-p%u-",
                                           ncz_staging_get_host_tag (), (guint) getpid ());

  g_assert_nonnull (strstr (name, ours));

  g_ptr_array_add (f->removed, g_strdup_printf ("%s%s", name, directory ? "/" : ""));
  if (directory)
    remove_all (path);
  else
    g_assert_cmpint (g_unlink (path), ==, 0);
}

static void
scan (Fixture *f)
{
  ncz_staging_remove_leftovers (f->target, kinds, G_N_ELEMENTS (kinds), record_removal, f);
}

static guint
dead_pid (void)
{
  pid_t pid = fork ();
  int status;

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return (guint) pid;
}

/* An entry beside the target: a directory holding a file at "a/b/chunk"
 * for a kind of directories, else a file. */
static char *
entry (Fixture *f, const char *kind, guint64 host, guint pid, const char *random)
{
  char *path = ncz_staging_path_for_owner (f->target, kind, host, pid);
  gboolean directory = strcmp (kind, "part") != 0;

  memcpy (path + strlen (path) - 6, random, 6);
  if (directory)
    {
      g_autofree char *sub = g_build_filename (path, "a", "b", NULL);
      g_autofree char *chunk = g_build_filename (sub, "chunk", NULL);

      g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
      g_assert_true (g_file_set_contents (chunk, "data", -1, NULL));
    }
  else
    g_assert_true (g_file_set_contents (path, "data", -1, NULL));
  return path;
}

/* An entry as earlier versions named it. */
static char *
legacy_entry (Fixture *f, const char *kind, const char *random)
{
  g_autofree char *name = g_strdup_printf (".ds.zarr.ncz-%s-%s", kind, random);
  char *path = g_build_filename (f->dir, name, NULL);

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  return path;
}

/* Dates @path, and everything in it, @seconds back. */
static void
age (const char *path, gint64 seconds)
{
  struct utimbuf times = { time (NULL) - seconds, time (NULL) - seconds };
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      age (child, seconds);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_assert_cmpint (utime (path, &times), ==, 0);
}

/* A child process that holds @path's lock until released. */
typedef struct {
  pid_t pid;
  int release;
} Holder;

static Holder
hold_in_child (const char *path, gboolean directory, NczStagingLock lock)
{
  Holder h;
  int ready[2], release[2];
  char c = 0;

  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (release), ==, 0);
  h.pid = fork ();
  g_assert_cmpint (h.pid, >=, 0);
  if (h.pid == 0)
    {
      int fd;

      /* the ends of other holders' pipes, inherited, would keep them
       * from seeing their release */
      for (int i = 3; i < 1024; i++)
        if (i != ready[1] && i != release[0])
          close (i);
      fd = open (path, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
      if (fd < 0 || !ncz_staging_hold_lock (fd, lock) || write (ready[1], "x", 1) != 1)
        _exit (1);
      /* until the parent closes its end */
      while (read (release[0], &c, 1) > 0)
        ;
      _exit (0);
    }
  close (ready[1]);
  close (release[0]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  h.release = release[1];
  return h;
}

static void
release_child (Holder *h)
{
  int status;

  close (h->release);
  g_assert_cmpint (waitpid (h->pid, &status, 0), ==, h->pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static gboolean
exists (const char *path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Another host's entries: young ones stay whatever their lock says
 * (a lock taken here proves nothing there); those unchanged for a day go
 * unless locked where the lock shows; one file changed recently deep in
 * an old tree keeps it. */
static void
test_other_host (Fixture *f, gconstpointer data)
{
  guint64 other = ncz_staging_get_host_tag () ^ G_GUINT64_CONSTANT (0x8000000000000001);
  guint dead = dead_pid ();
  g_autofree char *young = entry (f, "new", other, dead, "AAAAAA");
  g_autofree char *hour = entry (f, "new", other, dead, "BBBBBB");
  g_autofree char *old = entry (f, "new", other, dead, "CCCCCC");
  g_autofree char *old_held = entry (f, "new", other, dead, "DDDDDD");
  g_autofree char *old_but_written = entry (f, "new", other, dead, "EEEEEE");
  g_autofree char *written = g_build_filename (old_but_written, "a", "b", "chunk", NULL);
  g_autofree char *old_init = entry (f, "init", other, dead, "FFFFFF");
  g_autofree char *young_init = entry (f, "init", other, dead, "GGGGGG");
  g_autofree char *old_part = entry (f, "part", other, dead, "HHHHHH");
  /* its pid is alive here, which says nothing about the other host */
  g_autofree char *old_alive = entry (f, "new", other, (guint) getpid (), "IIIIII");
  Holder holder;

  age (hour, 3600);
  age (old, 2 * DAY);
  age (old_held, 2 * DAY);
  age (old_but_written, 2 * DAY);
  age (written, 60);
  age (old_init, DAY + 60);
  age (old_part, 2 * DAY);
  age (old_alive, 2 * DAY);
  holder = hold_in_child (old_held, TRUE, NCZ_STAGING_LOCK_FLOCK);

  scan (f);
  g_assert_true (exists (young));
  g_assert_true (exists (hour));
  g_assert_false (exists (old));
  g_assert_true (exists (old_held));
  g_assert_true (exists (old_but_written));
  g_assert_false (exists (old_init));
  g_assert_true (exists (young_init));
  g_assert_false (exists (old_part));
  g_assert_false (exists (old_alive));
  g_assert_cmpuint (f->removed->len, ==, 4);

  release_child (&holder);
  scan (f);
  g_assert_false (exists (old_held));
}

/* This host's entries: the process and the lock tell, whatever the age. */
static void
test_this_host (Fixture *f, gconstpointer data)
{
  guint64 here = ncz_staging_get_host_tag ();
  guint dead = dead_pid ();
  g_autofree char *abandoned = entry (f, "new", here, dead, "AAAAAA");
  g_autofree char *abandoned_old = entry (f, "new", here, dead, "BBBBBB");
  g_autofree char *held = entry (f, "new", here, dead, "CCCCCC");
  g_autofree char *alive_unlocked = NULL;
  g_autofree char *held_by_owner = entry (f, "new", here, 0, "DDDDDD");
  g_autofree char *owner_name = NULL;
  g_autofree char *dead_init = entry (f, "init", here, dead, "EEEEEE");
  g_autofree char *live_init = entry (f, "init", here, (guint) getpid (), "FFFFFF");
  g_autofree char *no_process = entry (f, "new", here, 0, "GGGGGG");
  g_autofree char *no_process_held = entry (f, "new", here, 0, "HHHHHH");
  g_autofree char *dead_part = entry (f, "part", here, dead, "IIIIII");
  g_autofree char *held_part = entry (f, "part", here, dead, "JJJJJJ");
  g_autofree char *no_process_init = entry (f, "init", here, 0, "KKKKKK");
  Holder h_held, h_owner, h_alive, h_no_process, h_part;

  /* a process of this host that lives and holds nothing */
  h_alive = hold_in_child (f->dir, TRUE, NCZ_STAGING_LOCK_NONE);
  alive_unlocked = entry (f, "new", here, (guint) h_alive.pid, "LLLLLL");
  age (alive_unlocked, 2 * DAY);
  /* a process of this host that made its entry and holds its lock: the
   * entry is named for it once it holds it */
  h_owner = hold_in_child (held_by_owner, TRUE, NCZ_STAGING_LOCK_FLOCK);
  owner_name = ncz_staging_path_for_owner (f->target, "new", here, (guint) h_owner.pid);
  memcpy (owner_name + strlen (owner_name) - 6, "DDDDDD", 6);
  g_assert_cmpint (g_rename (held_by_owner, owner_name), ==, 0);
  /* a dead writer's entry held by another process (a child that
   * inherited the descriptor, or a reader) */
  h_held = hold_in_child (held, TRUE, NCZ_STAGING_LOCK_FLOCK);
  h_no_process = hold_in_child (no_process_held, TRUE, NCZ_STAGING_LOCK_FLOCK);
  h_part = hold_in_child (held_part, FALSE, NCZ_STAGING_LOCK_OFD);
  age (abandoned_old, 2 * DAY);

  scan (f);
  g_assert_false (exists (abandoned));
  g_assert_false (exists (abandoned_old));
  g_assert_true (exists (held));
  g_assert_true (exists (alive_unlocked));
  g_assert_true (exists (owner_name));
  g_assert_false (exists (dead_init));
  g_assert_true (exists (live_init));
  g_assert_false (exists (no_process));
  g_assert_true (exists (no_process_held));
  g_assert_false (exists (dead_part));
  g_assert_true (exists (held_part));
  /* no process and no lock to ask: its age tells */
  g_assert_true (exists (no_process_init));
  g_assert_cmpuint (f->removed->len, ==, 5);

  /* the owners go */
  release_child (&h_held);
  release_child (&h_owner);
  release_child (&h_alive);
  release_child (&h_no_process);
  release_child (&h_part);
  age (no_process_init, 2 * DAY);
  scan (f);
  g_assert_false (exists (held));
  g_assert_false (exists (alive_unlocked));
  g_assert_false (exists (owner_name));
  g_assert_false (exists (no_process_held));
  g_assert_false (exists (held_part));
  g_assert_false (exists (no_process_init));
  g_assert_true (exists (live_init));
}

/* Names of earlier versions record no owner: a day without a change,
 * and no lock held, make them leftovers. */
static void
test_legacy (Fixture *f, gconstpointer data)
{
  g_autofree char *young = legacy_entry (f, "new", "AAAAAA");
  g_autofree char *hour = legacy_entry (f, "new", "BBBBBB");
  g_autofree char *old = legacy_entry (f, "new", "CCCCCC");
  g_autofree char *old_held = legacy_entry (f, "new", "DDDDDD");
  g_autofree char *young_init = legacy_entry (f, "init", "EEEEEE");
  g_autofree char *old_init = legacy_entry (f, "init", "FFFFFF");
  Holder h;

  age (hour, 3600);
  age (old, 2 * DAY);
  age (old_held, 2 * DAY);
  age (old_init, 2 * DAY);
  h = hold_in_child (old_held, TRUE, NCZ_STAGING_LOCK_FLOCK);
  scan (f);
  g_assert_true (exists (young));
  g_assert_true (exists (hour));
  g_assert_false (exists (old));
  g_assert_true (exists (old_held));
  g_assert_true (exists (young_init));
  g_assert_false (exists (old_init));
  release_child (&h);
}

/* Only entries of the listed kinds beside this dataset, of the type the
 * kind says, are looked at; the default removal takes whole trees and
 * follows no link. */
static void
test_scope (Fixture *f, gconstpointer data)
{
  guint dead = dead_pid ();
  guint64 here = ncz_staging_get_host_tag ();
  g_autofree char *outside = g_dir_make_tmp ("ncz-staging-outside-XXXXXX", NULL);
  g_autofree char *precious = g_build_filename (outside, "precious", NULL);
  g_autofree char *ours = entry (f, "new", here, dead, "AAAAAA");
  g_autofree char *link_in = g_build_filename (ours, "a", "outside", NULL);
  g_autofree char *other_target = g_build_filename (f->dir, "ds.zarr2", NULL);
  g_autofree char *other_dataset = ncz_staging_path_for_owner (other_target, "new", here, dead);
  g_autofree char *wrong_type = NULL;
  g_autofree char *link_entry = NULL;
  g_autofree char *unlisted = entry (f, "old", here, dead, "BBBBBB");

  g_assert_cmpint (g_mkdir (other_dataset, 0755), ==, 0);
  wrong_type = ncz_staging_path_for_owner (f->target, "new", here, dead);
  memcpy (wrong_type + strlen (wrong_type) - 6, "CCCCCC", 6);
  g_assert_true (g_file_set_contents (wrong_type, "a file, not a stage", -1, NULL));
  link_entry = ncz_staging_path_for_owner (f->target, "new", here, dead);
  memcpy (link_entry + strlen (link_entry) - 6, "DDDDDD", 6);
  g_assert_cmpint (symlink (outside, link_entry), ==, 0);
  g_assert_true (g_file_set_contents (precious, "keep", -1, NULL));
  g_assert_cmpint (symlink (outside, link_in), ==, 0);

  ncz_staging_remove_leftovers (f->target, kinds, G_N_ELEMENTS (kinds), NULL, NULL);
  g_assert_false (exists (ours));
  g_assert_true (exists (other_dataset));
  g_assert_true (exists (wrong_type));
  g_assert_true (g_file_test (link_entry, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (exists (unlisted));
  g_assert_true (exists (precious));
  g_unlink (precious);
  g_rmdir (outside);
}

/* Locks as owners hold them: a flock or an OFD lock held shared keeps
 * the entry from being locked exclusively; released, it can be. */
static void
test_locks (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = entry (f, "new", 1, 0, "AAAAAA");
  g_autofree char *file = entry (f, "part", 1, 0, "BBBBBB");
  int fd_dir = open (dir, O_RDONLY | O_DIRECTORY);
  int fd_file = open (file, O_RDONLY);
  int probe;

  g_assert_true (ncz_staging_hold_lock (fd_dir, NCZ_STAGING_LOCK_FLOCK));
  g_assert_true (ncz_staging_hold_lock (fd_file, NCZ_STAGING_LOCK_OFD));
  /* another description, as another process would be */
  g_assert_cmpint (ncz_staging_lock_if_abandoned (dir, TRUE, NCZ_STAGING_LOCK_FLOCK), ==, -1);
  g_assert_cmpint (ncz_staging_lock_if_abandoned (file, FALSE, NCZ_STAGING_LOCK_OFD), ==, -1);
  /* not what the kind says */
  g_assert_cmpint (ncz_staging_lock_if_abandoned (file, TRUE, NCZ_STAGING_LOCK_NONE), ==, -1);
  g_assert_cmpint (ncz_staging_lock_if_abandoned (dir, FALSE, NCZ_STAGING_LOCK_NONE), ==, -1);
  close (fd_dir);
  close (fd_file);
  probe = ncz_staging_lock_if_abandoned (dir, TRUE, NCZ_STAGING_LOCK_FLOCK);
  g_assert_cmpint (probe, >=, 0);
  close (probe);
  probe = ncz_staging_lock_if_abandoned (file, FALSE, NCZ_STAGING_LOCK_OFD);
  g_assert_cmpint (probe, >=, 0);
  close (probe);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/staging/names", test_names);
  g_test_add_func ("/staging/host-tag", test_host_tag);
  g_test_add_func ("/staging/parse", test_parse);
  g_test_add_func ("/staging/kinds", test_kinds);
  g_test_add_func ("/staging/kind-too-long", test_kind_too_long);
  g_test_add_func ("/staging/long-names", test_long_names);
  g_test_add ("/staging/scan/other-host", Fixture, NULL, setup, test_other_host, teardown);
  g_test_add ("/staging/scan/this-host", Fixture, NULL, setup, test_this_host, teardown);
  g_test_add ("/staging/scan/legacy", Fixture, NULL, setup, test_legacy, teardown);
  g_test_add ("/staging/scan/scope", Fixture, NULL, setup, test_scope, teardown);
  g_test_add ("/staging/locks", Fixture, NULL, setup, test_locks, teardown);
  return g_test_run ();
}
