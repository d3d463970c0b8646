/* ncz-staging.c: what a store stages beside a dataset, and who may remove it
 *
 * See <ncz/ncz-staging.h> for the names and the rules.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ncz/ncz-staging.h"

/* How earlier versions cut NAME (they wrote no record). */
#define LEGACY_BASE_MAX 200
/* The random part g_mkstemp() and g_mkdtemp() write. */
#define RANDOM_LEN 6
#define HOST_DIGITS 16
/* Directories nested deeper than this are neither walked nor removed
 * (a store's keys are at most 1024 bytes, so at most 512 levels). */
#define MAX_TREE_DEPTH 512

#define FNV_OFFSET G_GUINT64_CONSTANT (14695981039346656037)
#define FNV_PRIME G_GUINT64_CONSTANT (1099511628211)

/* @text and its terminating NUL into an FNV-1a hash */
static guint64
fnv1a_add (guint64 h, const char *text)
{
  const guchar *p = (const guchar *) text;

  do
    {
      h ^= *p;
      h *= FNV_PRIME;
    }
  while (*p++ != '\0');
  return h;
}

/**
 * ncz_staging_get_host_tag:
 *
 * Returns: the tag of this host as staging names record it: the FNV-1a
 * hash of the host name, the boot id and the pid namespace (see
 * <ncz/ncz-staging.h>); the same for every process that shares all three.
 */
guint64
ncz_staging_get_host_tag (void)
{
  static gsize tag = 0;
  static guint64 value;

  if (g_once_init_enter (&tag))
    {
      g_autofree char *boot_id = NULL;
      g_autofree char *pid_ns = g_file_read_link ("/proc/self/ns/pid", NULL);
      guint64 h = FNV_OFFSET;

      /* where either is missing (not Linux, no /proc) the host name
       * alone is left: still one tag per host name */
      if (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot_id, NULL, NULL))
        g_strstrip (boot_id);
      h = fnv1a_add (h, g_get_host_name ());
      h = fnv1a_add (h, boot_id != NULL ? boot_id : "");
      h = fnv1a_add (h, pid_ns != NULL ? pid_ns : "");
      value = h;
      g_once_init_leave (&tag, 1);
    }
  return value;
}

static gboolean
kind_is_valid (const char *kind)
{
  gsize n = 0;

  if (kind == NULL)
    return FALSE;
  for (const char *p = kind; *p != '\0'; p++, n++)
    if (*p < 'a' || *p > 'z')
      return FALSE;
  return n <= NCZ_STAGING_KIND_MAX;
}

/* The directory and the last component of @target, trailing '/' ignored. */
static void
split_target (const char *target,
              char      **dir,
              char      **base)
{
  g_autofree char *copy = g_strdup (target);
  gsize len = strlen (copy);

  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  if (dir != NULL)
    *dir = g_path_get_dirname (copy);
  *base = g_path_get_basename (copy);
}

/* ".NAME.ncz-KIND-", NAME cut to @cut bytes ("KIND-" left out if empty) */
static char *
entry_prefix (const char *base,
              gsize       cut,
              const char *kind)
{
  return g_strdup_printf (".%.*s.ncz-%s%s", (int) MIN (strlen (base), cut), base, kind,
                          *kind != '\0' ? "-" : "");
}

/**
 * ncz_staging_path_for_owner:
 * @target: the path of a dataset (a directory or a file)
 * @kind: the kind of entry: lowercase letters, at most
 *   %NCZ_STAGING_KIND_MAX of them, or ""
 * @host: the host tag to record
 * @pid: the process to record, 0 for none
 *
 * Returns: (transfer full): "DIR/.NAME.ncz-KIND-hHOST-pPID-XXXXXX", a
 * template for g_mkstemp() or g_mkdtemp(), in the directory that holds
 * @target.
 */
char *
ncz_staging_path_for_owner (const char *target,
                            const char *kind,
                            guint64     host,
                            guint       pid)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (target != NULL && *target != '\0', NULL);
  g_return_val_if_fail (kind_is_valid (kind), NULL);

  split_target (target, &dir, &base);
  prefix = entry_prefix (base, NCZ_STAGING_BASE_MAX, kind);
  name = g_strdup_printf ("%sh%016" G_GINT64_MODIFIER "x-p%u-XXXXXX", prefix, host, pid);
  return g_build_filename (dir, name, NULL);
}

/**
 * ncz_staging_path_for:
 * @target: the path of a dataset (a directory or a file)
 * @kind: the kind of entry (see ncz_staging_path_for_owner())
 *
 * Returns: (transfer full): the template of an entry of this process
 * beside @target: ncz_staging_path_for_owner() with this host's tag and
 * this process's id.
 */
char *
ncz_staging_path_for (const char *target,
                      const char *kind)
{
  return ncz_staging_path_for_owner (target, kind, ncz_staging_get_host_tag (),
                                     (guint) getpid ());
}

/* "XXXXXX", optionally followed by ".YYYYYY" (a library's temporary file
 * made from the entry's name) */
static gboolean
is_random_part (const char *s)
{
  for (int i = 0; i < RANDOM_LEN; i++)
    if (!g_ascii_isalnum (s[i]))
      return FALSE;
  s += RANDOM_LEN;
  if (*s == '\0')
    return TRUE;
  if (*s != '.' || s[1] == '\0')
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!g_ascii_isalnum (*s))
      return FALSE;
  return TRUE;
}

/* "hHOST-pPID-XXXXXX[.YYYYYY]"; *random is where "XXXXXX" starts */
static gboolean
parse_record (const char      *s,
              NczStagingOwner *owner,
              const char     **random)
{
  guint64 host = 0, pid = 0;
  int digits = 0;

  if (*s++ != 'h')
    return FALSE;
  for (int i = 0; i < HOST_DIGITS; i++, s++)
    {
      if (!g_ascii_isxdigit (*s) || g_ascii_isupper (*s))
        return FALSE;
      host = host << 4 | (guint64) g_ascii_xdigit_value (*s);
    }
  if (s[0] != '-' || s[1] != 'p')
    return FALSE;
  s += 2;
  if (s[0] == '0' && g_ascii_isdigit (s[1]))
    return FALSE;   /* one way to write each number */
  for (; g_ascii_isdigit (*s); s++)
    {
      if (++digits > 10)
        return FALSE;
      pid = pid * 10 + (guint64) g_ascii_digit_value (*s);
    }
  if (digits == 0 || pid > G_MAXINT || *s++ != '-' || !is_random_part (s))
    return FALSE;
  *random = s;
  owner->recorded = TRUE;
  owner->host = host;
  owner->pid = (guint) pid;
  return TRUE;
}

/* The two prefixes of one kind beside one dataset. */
typedef struct {
  char *current;   /* NAME cut to NCZ_STAGING_BASE_MAX, followed by the record */
  char *legacy;    /* NAME cut to LEGACY_BASE_MAX, no record */
} Prefixes;

static void
prefixes_init (Prefixes   *p,
               const char *base,
               const char *kind)
{
  p->current = entry_prefix (base, NCZ_STAGING_BASE_MAX, kind);
  p->legacy = entry_prefix (base, LEGACY_BASE_MAX, kind);
}

static void
prefixes_clear (Prefixes *p)
{
  g_free (p->current);
  g_free (p->legacy);
}

/* Whether @name is an entry of @p's kind; *random (optional) is where
 * its random part starts. */
static gboolean
parse_with (const Prefixes  *p,
            const char      *name,
            NczStagingOwner *owner,
            const char     **random)
{
  NczStagingOwner o = { 0 };
  const char *r = NULL;

  if (g_str_has_prefix (name, p->current) &&
      parse_record (name + strlen (p->current), &o, &r))
    ;
  else if (g_str_has_prefix (name, p->legacy) && is_random_part (name + strlen (p->legacy)))
    {
      o.recorded = FALSE;
      r = name + strlen (p->legacy);
    }
  else
    return FALSE;
  if (owner != NULL)
    *owner = o;
  if (random != NULL)
    *random = r;
  return TRUE;
}

/**
 * ncz_staging_parse:
 * @target: the path of a dataset
 * @name: the name of an entry in the directory that holds @target
 * @kind: the kind to recognize
 * @owner: (out) (optional): who made it
 *
 * Returns: whether @name is an entry of kind @kind beside @target, named
 * with the record of its maker (ncz_staging_path_for()) or as earlier
 * versions named it (@owner->recorded then %FALSE).
 */
gboolean
ncz_staging_parse (const char      *target,
                   const char      *name,
                   const char      *kind,
                   NczStagingOwner *owner)
{
  g_autofree char *base = NULL;
  Prefixes p;
  gboolean ok;

  g_return_val_if_fail (target != NULL && name != NULL, FALSE);
  g_return_val_if_fail (kind_is_valid (kind), FALSE);

  split_target (target, NULL, &base);
  prefixes_init (&p, base, kind);
  ok = parse_with (&p, name, owner, NULL);
  prefixes_clear (&p);
  return ok;
}

/**
 * ncz_staging_hold_lock:
 * @fd: an open descriptor of the entry just made (for %NCZ_STAGING_LOCK_OFD
 *   a regular file opened for reading)
 * @lock: how the entry's kind shows that its owner lives
 *
 * Takes the shared lock that marks the entry as its owner's until @fd is
 * closed (or the process ends).
 *
 * Returns: whether the lock is held; %FALSE where the file system has no
 * such locks (errno tells), and then only the record of the entry's name
 * protects it.
 */
gboolean
ncz_staging_hold_lock (int            fd,
                       NczStagingLock lock)
{
  int r = 0;

  switch (lock)
    {
    case NCZ_STAGING_LOCK_NONE:
      return TRUE;
    case NCZ_STAGING_LOCK_FLOCK:
      do
        r = flock (fd, LOCK_SH);
      while (r < 0 && errno == EINTR);
      return r == 0;
    case NCZ_STAGING_LOCK_OFD:
      {
        struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

        return fcntl (fd, F_OFD_SETLK, &fl) == 0;
      }
    default:
      g_return_val_if_reached (FALSE);
    }
}

/**
 * ncz_staging_lock_if_abandoned:
 * @path: an entry
 * @directory: whether @path is expected to be a directory (else a regular file)
 * @lock: how its owner shows that it lives
 *
 * Opens @path (never through a symbolic link) and takes its lock
 * exclusively without waiting, which succeeds only when no one holds it
 * shared: on this host at least, its owners are gone.
 *
 * Returns: the descriptor holding the exclusive lock, which the caller
 * closes once it removed @path; -1 if @path is held, is not what
 * @directory says, cannot be opened, or its file system has no such
 * locks. With %NCZ_STAGING_LOCK_NONE, nothing is locked.
 */
int
ncz_staging_lock_if_abandoned (const char    *path,
                               gboolean       directory,
                               NczStagingLock lock)
{
  int flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  struct stat st;
  gboolean taken;
  int fd;

  if (directory)
    flags |= O_RDONLY | O_DIRECTORY;
  else
    /* a write lock needs a descriptor open for writing */
    flags |= lock == NCZ_STAGING_LOCK_OFD ? O_RDWR : O_RDONLY;
  fd = open (path, flags);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0 || (directory ? !S_ISDIR (st.st_mode) : !S_ISREG (st.st_mode)))
    {
      close (fd);
      return -1;
    }
  switch (lock)
    {
    case NCZ_STAGING_LOCK_FLOCK:
      taken = flock (fd, LOCK_EX | LOCK_NB) == 0;
      break;
    case NCZ_STAGING_LOCK_OFD:
      {
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

        taken = fcntl (fd, F_OFD_SETLK, &fl) == 0;
      }
      break;
    case NCZ_STAGING_LOCK_NONE:
    default:
      taken = TRUE;
      break;
    }
  if (!taken)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static gboolean
process_is_alive (guint pid)
{
  if (pid == 0 || pid > G_MAXINT)
    return FALSE;
  /* EPERM: it exists, as another user's */
  return kill ((pid_t) pid, 0) == 0 || errno == EPERM;
}

/* Whether the entry @name of @dir_fd, or anything in it, was modified at
 * @limit or later, or cannot be looked at: what cannot be seen whole is
 * not taken for old. Modification times only: the status change time
 * would tell more (a rename sets it) but cannot be set back, and the
 * stores set the modification time of what they rename for others to see
 * (a retired tree) themselves. */
static gboolean
changed_since (int         dir_fd,
               const char *name,
               time_t      limit,
               int         depth)
{
  struct dirent *de;
  struct stat st;
  gboolean changed = FALSE;
  DIR *dir;
  int fd;

  if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return TRUE;
  if (st.st_mtime >= limit)
    return TRUE;
  if (!S_ISDIR (st.st_mode))
    return FALSE;
  if (depth >= MAX_TREE_DEPTH)
    return TRUE;
  fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return TRUE;
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return TRUE;
    }
  while (!changed && (de = readdir (dir)) != NULL)
    if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      changed = changed_since (dirfd (dir), de->d_name, limit, depth + 1);
  closedir (dir);
  return changed;
}

/* Removes the entry @name of @dir_fd and, for a directory, everything in
 * it, never following a symbolic link. */
static void
remove_at (int         dir_fd,
           const char *name,
           int         depth)
{
  struct dirent *de;
  struct stat st;
  DIR *dir;
  int fd;

  if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      if (unlinkat (dir_fd, name, 0) < 0)
        g_debug ("cannot remove the leftover '%s': %s", name, g_strerror (errno));
      return;
    }
  if (depth >= MAX_TREE_DEPTH)
    return;
  fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return;
    }
  while ((de = readdir (dir)) != NULL)
    if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      remove_at (dirfd (dir), de->d_name, depth + 1);
  closedir (dir);
  if (unlinkat (dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    g_debug ("cannot remove the leftover '%s': %s", name, g_strerror (errno));
}

/* The rule of <ncz/ncz-staging.h>. Returns whether the entry at @path is a
 * leftover; *lock_fd is then the descriptor holding its lock exclusively
 * (or -1 for a kind without a lock), to be closed after the removal. */
static gboolean
is_leftover (const char            *path,
             const NczStagingKind  *kind,
             const NczStagingOwner *owner,
             guint64                this_host,
             time_t                 limit,
             int                   *lock_fd)
{
  *lock_fd = -1;
  if (owner->recorded && owner->host == this_host)
    {
      /* this host: a process id and a lock are the truth here */
      if (owner->pid != 0 && process_is_alive (owner->pid))
        return FALSE;
      if (kind->lock != NCZ_STAGING_LOCK_NONE)
        {
          *lock_fd = ncz_staging_lock_if_abandoned (path, kind->directory, kind->lock);
          return *lock_fd >= 0;
        }
      if (owner->pid != 0)
        return TRUE;   /* its maker is dead, and nobody else had it */
      /* no process and no lock to ask: its age tells, as below */
    }
  /* another host's, or named by an earlier version that could be running
   * on any host: its process cannot be asked and a lock taken here may be
   * this host's only, so only a long time without a change makes it a
   * leftover, and a lock held, where it shows, still keeps it */
  if (changed_since (AT_FDCWD, path, limit, 0))
    return FALSE;
  if (kind->lock == NCZ_STAGING_LOCK_NONE)
    return TRUE;
  *lock_fd = ncz_staging_lock_if_abandoned (path, kind->directory, kind->lock);
  return *lock_fd >= 0;
}

/* Takes the leftover at @path over before removing it: renames it to an
 * entry of the same kind named for this process, with @random, its
 * random part. A removal takes time; renamed first, the entry can no
 * longer be renamed into place by a writer that was taken for gone (its
 * commit fails instead of putting a half-removed dataset in place), nor
 * be removed by another scan at the same time, and if this process dies
 * before it is done, what is left is this process's, which the rule
 * removes. Returns the new path, or NULL if the rename failed (the entry
 * is then left for a later scan). */
static char *
claim (const char *dir,
       const char *path,
       const char *prefix,
       guint64     this_host,
       const char *random)
{
  g_autofree char *name = g_strdup_printf ("%sh%016" G_GINT64_MODIFIER "x-p%u-%s", prefix,
                                           this_host, (guint) getpid (), random);
  g_autofree char *claimed = g_build_filename (dir, name, NULL);
  struct stat st;

  if (strcmp (claimed, path) == 0)
    return g_steal_pointer (&claimed);
  if (renameat2 (AT_FDCWD, path, AT_FDCWD, claimed, RENAME_NOREPLACE) == 0)
    return g_steal_pointer (&claimed);
  if ((errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) &&
      lstat (claimed, &st) < 0 && errno == ENOENT && rename (path, claimed) == 0)
    return g_steal_pointer (&claimed);
  g_debug ("%s: cannot take the leftover over: %s", path, g_strerror (errno));
  return NULL;
}

/**
 * ncz_staging_remove_leftovers:
 * @target: the path of a dataset
 * @kinds: (array length=n_kinds): the kinds of entry the store makes
 * @n_kinds: the number of @kinds
 * @remove: (nullable) (scope call): removes one leftover; %NULL removes
 *   files and directory trees without following symbolic links
 * @user_data: for @remove
 *
 * Removes the entries of @kinds beside @target that are leftovers by the
 * rule of <ncz/ncz-staging.h>: those of this host whose process is dead
 * and whose lock nobody holds, and those of other hosts (or named by
 * earlier versions) unchanged for %NCZ_STAGING_EXPIRY_SECONDS and not
 * locked. A leftover is first renamed to an entry of its kind named for
 * this process, then removed (@remove receives that new path), while its
 * lock is held exclusively. Failures are not errors: what stays is looked
 * at again by the next scan.
 */
void
ncz_staging_remove_leftovers (const char           *target,
                              const NczStagingKind *kinds,
                              gsize                 n_kinds,
                              NczStagingRemoveFunc  remove,
                              gpointer              user_data)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree Prefixes *prefixes = NULL;
  g_autoptr(GDir) d = NULL;
  guint64 this_host = ncz_staging_get_host_tag ();
  time_t limit = time (NULL) - NCZ_STAGING_EXPIRY_SECONDS;
  const char *name;

  g_return_if_fail (target != NULL && *target != '\0');
  g_return_if_fail (kinds != NULL || n_kinds == 0);
  for (gsize k = 0; k < n_kinds; k++)
    g_return_if_fail (kind_is_valid (kinds[k].kind));

  split_target (target, &dir, &base);
  d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  prefixes = g_new (Prefixes, n_kinds);
  for (gsize k = 0; k < n_kinds; k++)
    prefixes_init (&prefixes[k], base, kinds[k].kind);

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *claimed = NULL;
      const NczStagingKind *kind = NULL;
      const Prefixes *prefix = NULL;
      const char *random = NULL;
      NczStagingOwner owner;
      struct stat st;
      int lock_fd;

      if (name[0] != '.')
        continue;
      for (gsize k = 0; k < n_kinds && kind == NULL; k++)
        if (parse_with (&prefixes[k], name, &owner, &random))
          {
            kind = &kinds[k];
            prefix = &prefixes[k];
          }
      if (kind == NULL)
        continue;
      path = g_build_filename (dir, name, NULL);
      if (lstat (path, &st) < 0 || (kind->directory ? !S_ISDIR (st.st_mode)
                                                    : !S_ISREG (st.st_mode)))
        continue;
      if (!is_leftover (path, kind, &owner, this_host, limit, &lock_fd))
        continue;
      claimed = claim (dir, path, prefix->current, this_host, random);
      if (claimed != NULL)
        {
          g_debug ("%s: removing a leftover of a writer or reader that is gone (as %s)",
                   path, claimed);
          if (remove != NULL)
            remove (claimed, kind->directory, user_data);
          else
            remove_at (AT_FDCWD, claimed, 0);
        }
      if (lock_fd >= 0)
        close (lock_fd);
    }
  for (gsize k = 0; k < n_kinds; k++)
    prefixes_clear (&prefixes[k]);
}
