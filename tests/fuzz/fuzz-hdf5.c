/* fuzz-hdf5.c: fuzz target for netCDF-4/HDF5 files (the hdf5 format backend)
 *
 * One input is the bytes of a file. They are written to one file of a
 * per-process temporary directory, which is opened as a user opens a
 * file, ncz_dataset_open (PATH, NCZ_OPEN_READ): the format is chosen by
 * the signature probe and libhdf5 is reached through the hdf5 module
 * (NCZ_PLUGIN_PATH). What opens is walked: every group, dimension,
 * variable and attribute, the virtual attributes ncdump -s shows, and
 * every variable's values (whole when at most MAX_READ_BYTES, else one
 * element at its origin, so a lying header cannot make the target
 * allocate gigabytes). Then the dataset is closed.
 *
 * Findings (abort): a failure without a GError or with an empty message,
 * a critical or error log, HDF5 ids left open after the dataset is
 * closed, HDF5's automatic error printing turned back on; and whatever
 * the sanitizers and libFuzzer report (crashes, hangs, leaks).
 *
 * libhdf5 1.10.8 itself crashes or hangs on some hostile files. Crashes
 * whose innermost frames are in libhdf5 are defects of libhdf5, not of
 * Ncz: the standalone driver below (and run-hdf5-target.sh, which reruns
 * what libFuzzer found through it) runs the inputs in a child process,
 * tells such crashes apart by their backtrace, records them and goes on;
 * any other crash, hang, leak or sanitizer report fails. See
 * libhdf5-crashes/README.md.
 *
 * Standalone driver (not libFuzzer): `fuzz-hdf5-standalone [OPTIONS]
 * PATH...` runs every file (directories are listed, sorted) as it is and,
 * unless --as-is, with deterministic mutations aimed at the structure of
 * the file: truncations at many lengths, the superblock's bytes, the
 * bytes after every object header and heap / B-tree signature (OHDR, ...,
 * and version 1 object headers found by their shape), 8-byte addresses
 * and lengths set to edge values there, and random bytes elsewhere, with
 * a random generator seeded from the file's name. NCZ_FUZZ_MUTATIONS
 * scales the number of random mutations (default 40 per kind).
 * The child's stderr is captured while an input runs: HDF5's error stack
 * printed there is a finding. --save=DIR keeps every input that crashed
 * in DIR, as libhdf5-CHECKSUM or ncz-CHECKSUM. --require-open: every file as it is must open and read
 * without error (the seeds). Exit status 0 when no finding is Ncz's.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <ncz/ncz.h>

#include "fuzz-standalone.h"

#define MAX_READ_BYTES (64u << 10)

static gboolean verbose;        /* NCZ_FUZZ_VERBOSE: print why inputs are refused */

/* ---- libhdf5, looked up in the module's copy once loaded ---- */

typedef long (*ObjCountFunc) (long file_id, unsigned types);
typedef int (*GetAutoFunc) (long stack, void **func, void **data);

static ObjCountFunc h5_obj_count;
static GetAutoFunc h5_get_auto;

static int
find_hdf5 (struct dl_phdr_info *info, size_t size, void *data)
{
  const char *base = strrchr (info->dlpi_name, '/');

  base = base ? base + 1 : info->dlpi_name;
  if (g_str_has_prefix (base, "libhdf5") && !g_str_has_prefix (base, "libhdf5_hl") &&
      !g_str_has_prefix (base, "libhdf5_cpp") && !g_str_has_prefix (base, "libhdf5_serial_hl"))
    {
      *(char **) data = g_strdup (info->dlpi_name);
      return 1;
    }
  return 0;
}

/* hid_t is a 64-bit integer and H5F_OBJ_ALL / H5E_DEFAULT are fixed in
 * HDF5's ABI; the target does not link libhdf5 itself. */
#define H5F_OBJ_ALL_ 0x001Fu
#define H5E_DEFAULT_ 0

static void
look_up_hdf5 (void)
{
  char *path = NULL;
  void *handle;

  if (h5_obj_count != NULL)
    return;
  dl_iterate_phdr (find_hdf5, &path);
  if (path == NULL)
    return;                 /* not loaded yet: no input reached it */
  handle = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
  g_free (path);
  if (handle == NULL)
    return;
  h5_obj_count = (ObjCountFunc) dlsym (handle, "H5Fget_obj_count");
  h5_get_auto = (GetAutoFunc) dlsym (handle, "H5Eget_auto2");
}

static void
check_hdf5_state (void)
{
  void *func = NULL, *data = NULL;
  long n;

  look_up_hdf5 ();
  if (h5_obj_count == NULL)
    return;
  n = h5_obj_count (H5F_OBJ_ALL_, H5F_OBJ_ALL_);
  if (n != 0)
    {
      g_printerr ("fuzz-hdf5: %ld HDF5 ids are still open after the dataset was closed\n", n);
      abort ();
    }
  if (h5_get_auto != NULL && h5_get_auto (H5E_DEFAULT_, &func, &data) >= 0 && func != NULL)
    {
      g_printerr ("fuzz-hdf5: HDF5's automatic error printing is on\n");
      abort ();
    }
}

/* ---- the target ---- */

static guint n_opened, n_vars_read, n_refused;
static gboolean last_ok;        /* the last input opened and read without error */
/* NCZ_FUZZ_SELF_TEST: an input starting with SELF_TEST_MAGIC crashes the
 * target's own code (the test fuzz-hdf5-self-test, which must fail) */
static gboolean self_test;
#define SELF_TEST_MAGIC "ncz fuzz-hdf5 self-test: crash outside libhdf5"

static void
check_error (const char *what, gboolean ok, GError *error)
{
  if (ok && error != NULL)
    {
      g_printerr ("fuzz-hdf5: %s succeeded with an error set: %s\n", what, error->message);
      abort ();
    }
  if (!ok && (error == NULL || error->message == NULL || error->message[0] == '\0'))
    {
      g_printerr ("fuzz-hdf5: %s failed without saying why\n", what);
      abort ();
    }
}

static void
walk_attributes (GPtrArray *attrs)
{
  for (guint i = 0; attrs != NULL && i < attrs->len; i++)
    {
      NczAttribute *a = g_ptr_array_index (attrs, i);
      gsize len = 0;

      (void) ncz_attribute_get_name (a);
      (void) ncz_attribute_peek_values (a, &len);
      if (ncz_attribute_get_value_type (a) == NCZ_DATA_TYPE_CHAR)
        g_free (ncz_attribute_get_text (a, &len));
    }
}

static gboolean
walk_variable (NczFormat *format, NczVariable *v)
{
  g_autoptr (GPtrArray) attrs = ncz_variable_get_attributes (v);
  g_autoptr (GPtrArray) described = format ? ncz_format_describe_variable (format, v) : NULL;
  g_autofree guint64 *shape = NULL;
  g_autofree guint64 *start = NULL;
  g_autofree guint64 *count = NULL;
  g_autoptr (GBytes) fill = NULL;
  GError *error = NULL;
  NczDataType type = ncz_variable_get_value_type (v);
  guint nd = 0, nc = 0;
  guint64 n = 1;
  gsize es;
  gboolean ok;

  walk_attributes (attrs);
  walk_attributes (described);
  fill = ncz_variable_get_fill_value (v);
  g_free (ncz_variable_get_codecs_json (v));
  (void) ncz_variable_get_chunk_sizes (v, &nc);

  shape = ncz_variable_get_shape (v, &nd);
  es = type == NCZ_DATA_TYPE_STRING ? sizeof (char *) : ncz_data_type_get_size (type);
  if (es == 0)
    return TRUE;
  start = g_new0 (guint64, nd + 1);
  count = g_new0 (guint64, nd + 1);
  for (guint i = 0; i < nd; i++)
    {
      if (shape[i] == 0)
        return TRUE;            /* nothing to read */
      count[i] = shape[i];
      n = shape[i] > G_MAXUINT64 / n ? G_MAXUINT64 : n * shape[i];
    }
  if (n > MAX_READ_BYTES / es)
    {
      /* too large to read whole here: one element at the origin */
      for (guint i = 0; i < nd; i++)
        count[i] = 1;
      n = 1;
    }
  if (type == NCZ_DATA_TYPE_STRING)
    {
      char **strv = ncz_variable_read_strings (v, start, nd, count, nd, NULL, 0, NULL, &error);

      ok = strv != NULL;
      g_strfreev (strv);
    }
  else
    {
      gpointer buf = g_malloc (n * es);

      ok = ncz_variable_read (v, start, nd, count, nd, NULL, 0, buf, n * es, NULL, &error);
      g_free (buf);
    }
  check_error ("reading a variable", ok, error);
  if (ok)
    n_vars_read++;
  g_clear_error (&error);
  return ok;
}

static gboolean
walk_group (NczFormat *format, NczGroup *g, int depth)
{
  g_autoptr (GPtrArray) attrs = ncz_group_get_attributes (g);
  g_autoptr (GPtrArray) dims = ncz_group_get_dimensions (g);
  g_autoptr (GPtrArray) vars = ncz_group_get_variables (g);
  g_autoptr (GPtrArray) groups = ncz_group_get_groups (g);
  gboolean ok = TRUE;

  walk_attributes (attrs);
  for (guint i = 0; i < dims->len; i++)
    {
      (void) ncz_dimension_get_name (g_ptr_array_index (dims, i));
      (void) ncz_dimension_get_length (g_ptr_array_index (dims, i));
    }
  for (guint i = 0; i < vars->len; i++)
    ok = walk_variable (format, g_ptr_array_index (vars, i)) && ok;
  if (depth < 300)
    for (guint i = 0; i < groups->len; i++)
      ok = walk_group (format, g_ptr_array_index (groups, i), depth + 1) && ok;
  return ok;
}

/* A critical means a library function was misused on the way: bad input
 * must give a GError instead. abort() so the input is kept. */
static GLogWriterOutput
abort_on_critical (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                   gpointer user_data)
{
  GLogWriterOutput out = g_log_writer_default (level, fields, n_fields, user_data);

  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    abort ();
  return out;
}

static char *tmp_dir;
static char *input_path;
static pid_t tmp_owner;         /* children of the standalone driver share it */

static void
remove_tmp_dir (void)
{
  if (getpid () != tmp_owner)
    return;
  if (input_path != NULL)
    g_unlink (input_path);
  if (tmp_dir != NULL)
    g_rmdir (tmp_dir);
}

static void
init_target (void)
{
  GError *error = NULL;

  if (input_path != NULL)
    return;
  g_log_set_writer_func (abort_on_critical, NULL, NULL);
  verbose = g_getenv ("NCZ_FUZZ_VERBOSE") != NULL;
  self_test = g_getenv ("NCZ_FUZZ_SELF_TEST") != NULL;
  {
    /* named by the process, so that a sanitizer's report (which names
     * it) leads to the input the process left there when it crashed
     * (run-hdf5-target.sh) */
    g_autofree char *template = g_strdup_printf ("ncz-fuzz-hdf5-%d-XXXXXX", (int) getpid ());

    tmp_dir = g_dir_make_tmp (template, &error);
  }
  if (tmp_dir == NULL)
    g_error ("fuzz-hdf5: %s", error->message);
  input_path = g_build_filename (tmp_dir, "input.nc", NULL);
  tmp_owner = getpid ();
  atexit (remove_tmp_dir);
}

static void
write_input (const uint8_t *data, size_t size)
{
  int fd = open (input_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  size_t done = 0;

  if (fd < 0)
    g_error ("fuzz-hdf5: %s: %s", input_path, g_strerror (errno));
  while (done < size)
    {
      ssize_t w = write (fd, data + done, size - done);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        g_error ("fuzz-hdf5: writing %s: %s", input_path, g_strerror (errno));
      done += (size_t) w;
    }
  close (fd);
}

#ifdef NCZ_LIBFUZZER
static gboolean ran_an_input;

/* LeakSanitizer's hook: no leak check in a process that ran no input.
 * That is the parent of libFuzzer's fork mode (run-hdf5-target.sh),
 * which only starts the processes that run inputs and reads what they
 * found: its at-exit check would look at nothing of Ncz's, and
 * LeakSanitizer's tracer thread sometimes crashes on a loaded machine.
 * Processes that ran inputs are checked as before. */
int __lsan_is_turned_off (void);

int
__lsan_is_turned_off (void)
{
  return !ran_an_input;
}
#endif

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (NczDataset) ds = NULL;
  GError *error = NULL;
  gboolean ok;

  init_target ();
  if (self_test && size >= strlen (SELF_TEST_MAGIC) &&
      memcmp (data, SELF_TEST_MAGIC, strlen (SELF_TEST_MAGIC)) == 0)
    {
      /* a crash in the target's own code, which must be a finding */
      volatile int *nowhere = NULL;

      *nowhere = 1;
    }
  write_input (data, size);
  last_ok = FALSE;

  ds = ncz_dataset_open (input_path, NCZ_OPEN_READ, NULL, &error);
  check_error ("opening", ds != NULL, error);
  if (ds == NULL)
    {
      if (verbose)
        g_printerr ("fuzz-hdf5: refused: %s\n", error->message);
      n_refused++;
      g_clear_error (&error);
      check_hdf5_state ();
      return 0;
    }
  n_opened++;
  {
    NczFormat *format = ncz_dataset_get_format (ds);
    g_autoptr (GPtrArray) described = format ? ncz_format_describe_dataset (format, ds) : NULL;

    walk_attributes (described);
    ok = walk_group (format, ncz_dataset_get_root_group (ds), 0);
  }
  if (!ncz_dataset_close (ds, NULL, &error))
    {
      check_error ("closing", FALSE, error);
      g_clear_error (&error);
      ok = FALSE;
    }
  g_clear_object (&ds);
  check_hdf5_state ();
  last_ok = ok;
  return 0;
}

#ifndef NCZ_LIBFUZZER

/* ======== standalone driver: deterministic mutations, crashes told apart ======== */

#include <execinfo.h>
#include <poll.h>
#include <time.h>
#include <sys/syscall.h>

#define INPUT_TIMEOUT_SECONDS 4

/* The child runs inputs read from a pipe; a crash is classified in the
 * child by its backtrace and the verdict written to the result pipe. */

/* Sanitizer options of the standalone program: the sanitizers leave
 * SIGSEGV, SIGBUS, SIGFPE and SIGABRT to the classifier below, and a
 * huge malloc returns NULL as glibc's does (libhdf5 asks for sizes read
 * from the file). ASAN_OPTIONS in the environment adds to these. */
const char *__asan_default_options (void) __attribute__ ((used, visibility ("default")));
const char *
__asan_default_options (void)
{
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:"
         "allow_user_segv_handler=1:allocator_may_return_null=1";
}

const char *__ubsan_default_options (void) __attribute__ ((used, visibility ("default")));
const char *
__ubsan_default_options (void)
{
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0";
}

/* present when the program runs under AddressSanitizer */
extern int __asan_report_present (void) __attribute__ ((weak));

static int result_fd = -1;      /* child → parent verdicts */
static int real_stderr = -1;    /* the child's stderr before capture */
static int capture_fd = -1;     /* what the child prints while running an input */
static timer_t input_timer;

enum {
  VERDICT_DONE = 'd',     /* the input ran; followed by 'o' (read) or 'r' (refused) */
  VERDICT_LIBHDF5 = 'h',  /* a crash or hang inside libhdf5; followed by a text line */
  VERDICT_NCZ = 'n',      /* anything else; followed by a text line */
};

static gboolean
runtime_module (const char *base)
{
  static const char * const prefixes[] = {
    "libc.so", "libc-", "ld-linux", "linux-vdso", "libpthread", "libasan", "libubsan",
    "liblsan", "libgcc_s", "libz.so", "libsz.so", "libaec.so", "libm.so", NULL
  };

  for (guint i = 0; prefixes[i]; i++)
    if (g_str_has_prefix (base, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* A function of a sanitizer runtime linked into the program (clang). */
static gboolean
runtime_symbol (const char *symbol)
{
  static const char * const prefixes[] = {
    "__interceptor_", "__asan", "__sanitizer", "__lsan", "__ubsan", "_ZN6__asan",
    "_ZN11__sanitizer", "_ZN6__lsan", "_ZN7__ubsan", "malloc", "calloc", "realloc", "free",
    NULL
  };

  for (guint i = 0; prefixes[i]; i++)
    if (g_str_has_prefix (symbol, prefixes[i]))
      return TRUE;
  /* its interceptors of the C library's memset, memcpy, strlen, ... */
  return g_str_has_prefix (symbol, "mem") || g_str_has_prefix (symbol, "str") ||
         g_str_equal (symbol, "bcmp");
}

static void
write_all (int fd, const char *text, size_t len)
{
  while (len > 0)
    {
      ssize_t w = write (fd, text, len);

      if (w <= 0)
        return;
      text += w;
      len -= (size_t) w;
    }
}

static void
dump_capture (void)
{
  char buf[4096];
  ssize_t r;

  if (capture_fd < 0 || real_stderr < 0)
    return;
  lseek (capture_fd, 0, SEEK_SET);
  while ((r = read (capture_fd, buf, sizeof buf)) > 0)
    write_all (real_stderr, buf, (size_t) r);
}

/* A frame line of a sanitizer report ("    #3 0x... in FUNC (MODULE+0x...)")
 * that belongs to the sanitizer runtime, the C library or an allocator. */
static gboolean
runtime_frame (const char *line)
{
  static const char * const marks[] = {
    "__interceptor_", "__asan", "__sanitizer", "__ubsan", "__lsan", "libasan", "libubsan",
    "libc.so", "ld-linux", " in malloc", " in calloc", " in realloc", " in free",
    " in posix_memalign", " in aligned_alloc", "/libz.so", "libsz.so", "libaec.so",
    /* the C library's frames where its sources are known ("in
     * __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/...") */
    " string/../sysdeps/", " csu/../", " nptl/", " sysdeps/", NULL
  };
  /* the programs the reports come from: this one, and the libFuzzer
   * target whose reports run-hdf5-target.sh sorts (--sort-report) */
  const char * const programs[] = { g_get_prgname (), "fuzz-hdf5", NULL };
  const char *in;

  for (guint i = 0; marks[i]; i++)
    if (strstr (line, marks[i]) != NULL)
      return TRUE;
  /* an interceptor linked into the program under the C library's own name
   * ("in strdup (/.../fuzz-hdf5-standalone+0x...)") */
  in = strstr (line, " in ");
  for (guint i = 0; in != NULL && programs[i] != NULL; i++)
    {
      g_autofree char *module = g_strconcat ("/", programs[i], "+0x", NULL);
      g_autofree char *symbol = g_strndup (in + 4, strcspn (in + 4, " "));

      if (strstr (in, module) != NULL && runtime_symbol (symbol))
        return TRUE;
    }
  return FALSE;
}

/* The redzone AddressSanitizer puts around a heap block of @size bytes
 * (16 bytes for the smallest blocks, doubling with the size class, at
 * most 2048). */
static guint64
asan_redzone (guint64 size)
{
  static const guint64 limits[] = { 64 - 16, 128 - 32, 512 - 64, 4096 - 128,
                                    (1 << 14) - 256, (1 << 15) - 512, (1 << 16) - 1024 };
  guint log = 0;

  while (log < G_N_ELEMENTS (limits) && size > limits[log])
    log++;
  return (guint64) 16 << log;
}

/* Whether a report's "ADDR is located N bytes to the right of M-byte
 * region" line names a block the access merely lands near: farther from
 * it than its redzone, the access is wild (an offset read from the file)
 * and the block is only the nearest one AddressSanitizer found, whoever
 * allocated it. */
static gboolean
region_is_only_nearest (const char *line)
{
  const char *p = strstr (line, " is located ");
  guint64 distance, size;
  char side[8];

  if (p == NULL ||
      sscanf (p, " is located %" G_GUINT64_FORMAT " bytes to the %7s of %" G_GUINT64_FORMAT
              "-byte region", &distance, side, &size) != 3)
    return FALSE;
  return distance > asan_redzone (size);
}

/* Whether the sanitizer report in @text is all libhdf5's: an
 * AddressSanitizer error whose faulting stack and whose allocation and
 * free stacks all start (past the runtime) in libhdf5. The allocation
 * and free stacks are not looked at when the access lies beyond the
 * block's redzone (region_is_only_nearest()). LeakSanitizer and
 * UndefinedBehaviorSanitizer reports are always Ncz's (libhdf5 is not
 * instrumented). */
static gboolean
report_is_libhdf5 (const char *text)
{
  g_auto (GStrv) lines = NULL;
  gboolean in_stack = FALSE, decided = FALSE, all_hdf5 = TRUE, any = FALSE;
  gboolean wild = FALSE;

  if (strstr (text, "ERROR: AddressSanitizer") == NULL ||
      strstr (text, "LeakSanitizer") != NULL || strstr (text, "runtime error") != NULL)
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i];
      gboolean frame = g_str_has_prefix (g_strchug (lines[i]), "#");

      if (!frame)
        {
          if (any && region_is_only_nearest (l))
            wild = TRUE;
          in_stack = FALSE;
          continue;
        }
      /* past the faulting stack, the stacks of a block the access is not in */
      if (wild)
        continue;
      if (!in_stack)
        {
          in_stack = TRUE;      /* a new stack: its first frame past the runtime decides */
          decided = FALSE;
        }
      if (decided || runtime_frame (l))
        continue;
      decided = TRUE;
      any = TRUE;
      if (strstr (l, "libhdf5") == NULL)
        all_hdf5 = FALSE;
    }
  return any && all_hdf5;
}

/* The text the child printed while running the input (the sanitizer's
 * report), or NULL. */
static char *
read_capture (void)
{
  struct stat st;
  char *text;

  if (capture_fd < 0 || fstat (capture_fd, &st) != 0 || st.st_size <= 0 ||
      st.st_size > (1 << 24))
    return NULL;
  text = g_malloc0 ((gsize) st.st_size + 1);
  if (pread (capture_fd, text, (size_t) st.st_size, 0) != st.st_size)
    {
      g_free (text);
      return NULL;
    }
  return text;
}

/* Runs on the crashing thread (or the thread the input timer fired on):
 * the innermost frame that is not the C library, a sanitizer runtime or
 * a compression library libhdf5 calls decides who crashed. */
static void
crash_handler (int sig, siginfo_t *si, void *context)
{
  void *frames[128];
  int n = backtrace (frames, G_N_ELEMENTS (frames));
  char line[1024];
  const char *owner = NULL;
  gboolean past_trampoline = FALSE;
  int first_unnamed = -1;
  const char *program = g_get_prgname () ? g_get_prgname () : "";
  gboolean report = sig == SIGABRT && __asan_report_present && __asan_report_present ();
  g_autofree char *captured = report ? read_capture () : NULL;
  gboolean report_hdf5 = captured != NULL && report_is_libhdf5 (captured);

  dump_capture ();
  snprintf (line, sizeof line, "fuzz-hdf5: signal %d (%s)%s; backtrace:\n", sig,
            strsignal (sig), report ? " after a sanitizer report" : "");
  write_all (real_stderr, line, strlen (line));
  if (report)
    {
      /* the report decides, not the backtrace (which starts in the runtime) */
      snprintf (line, sizeof line, "%csanitizer report %s\n",
                report_hdf5 ? VERDICT_LIBHDF5 : VERDICT_NCZ,
                report_hdf5 ? "inside libhdf5 on libhdf5's memory" : "with an Ncz frame");
      owner = line;
      write_all (result_fd, line, strlen (line));
    }
  for (int i = 1; i < n; i++)
    {
      Dl_info info;
      const char *module = "?", *base = "?", *symbol = "?";
      gboolean info_sname_missing = TRUE;

      if (dladdr (frames[i], &info) != 0)
        {
          module = info.dli_fname ? info.dli_fname : "?";
          base = strrchr (module, '/') ? strrchr (module, '/') + 1 : module;
          symbol = info.dli_sname ? info.dli_sname : "?";
          info_sname_missing = info.dli_sname == NULL;
        }
      snprintf (line, sizeof line, "  #%d %p %s (%s)\n", i, frames[i], symbol, base);
      write_all (real_stderr, line, strlen (line));
      /* the frames before the signal trampoline (in the C library) are the
       * handler's and a sanitizer's wrapper of it */
      if (!past_trampoline)
        {
          past_trampoline = g_str_has_prefix (base, "libc.so") || g_str_has_prefix (base, "libc-");
          continue;
        }
      if (owner != NULL)
        continue;
      if (runtime_module (base) || runtime_symbol (symbol))
        {
          /* unnamed frames of the program just above were the sanitizer
           * runtime linked into it (clang), not the target's code */
          first_unnamed = -1;
          continue;
        }
      if (g_str_equal (base, program) && info_sname_missing)
        {
          if (first_unnamed < 0)
            first_unnamed = i;
          continue;
        }
      if (first_unnamed >= 0)
        {
          /* an unnamed frame of the program called from here: the
           * target's own code */
          snprintf (line, sizeof line, "%c%s %s in a function of %s\n", VERDICT_NCZ,
                    sig == SIGALRM ? "hang" : "crash", strsignal (sig), program);
          owner = line;
          write_all (result_fd, line, strlen (line));
          continue;
        }
      snprintf (line, sizeof line, "%c%s %s in %s (%s)\n",
                g_str_has_prefix (base, "libhdf5") ? VERDICT_LIBHDF5 : VERDICT_NCZ,
                sig == SIGALRM ? "hang" : "crash", strsignal (sig), symbol, base);
      owner = line;
      write_all (result_fd, line, strlen (line));
    }
  if (owner == NULL)
    {
      snprintf (line, sizeof line, "%ccrash %s with no frame outside the runtime\n",
                VERDICT_NCZ, strsignal (sig));
      write_all (result_fd, line, strlen (line));
    }
  _exit (3);
}

static void
install_handlers (void)
{
  static char alt_stack[1 << 16];
  stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof alt_stack };
  struct sigaction sa = { 0 };
  struct sigevent sev = { 0 };
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
  void *warm[2];

  backtrace (warm, 2);          /* loads libgcc_s now, not in the handler */
  sigaltstack (&ss, NULL);
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    sigaction (sigs[i], &sa, NULL);
  /* a hang: SIGALRM to this thread, the one running the input, after
   * INPUT_TIMEOUT_SECONDS of the process's CPU time (a loaded machine
   * does not make a slow input a hang; a deadlock, which uses no CPU, is
   * caught by the parent's backstop and is a finding) */
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGALRM;
#ifdef sigev_notify_thread_id
  sev.sigev_notify_thread_id = (pid_t) syscall (SYS_gettid);
#else
  sev._sigev_un._tid = (pid_t) syscall (SYS_gettid);
#endif
  if (timer_create (CLOCK_PROCESS_CPUTIME_ID, &sev, &input_timer) != 0)
    g_error ("fuzz-hdf5: timer_create: %s", g_strerror (errno));
}

static gboolean
read_exact (int fd, void *buf, size_t len)
{
  guint8 *p = buf;

  while (len > 0)
    {
      ssize_t r = read (fd, p, len);

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return FALSE;
      p += r;
      len -= (size_t) r;
    }
  return TRUE;
}

/* The child: runs inputs (a 32-bit length then the bytes) until EOF. */
G_GNUC_NORETURN static void
child_main (int in_fd, int out_fd)
{
  g_autofree char *capture_path = NULL;
  guint32 len;

  result_fd = out_fd;
  real_stderr = dup (2);
  init_target ();
  capture_path = g_build_filename (tmp_dir, "stderr.txt", NULL);
  capture_fd = open (capture_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  g_unlink (capture_path);
  dup2 (capture_fd, 2);
  install_handlers ();

  while (read_exact (in_fd, &len, sizeof len))
    {
      g_autofree guint8 *data = g_malloc (MAX (len, 1));
      struct itimerspec arm = { .it_value = { INPUT_TIMEOUT_SECONDS, 0 } };
      struct itimerspec disarm = { 0 };
      struct stat st;
      char verdict[2] = { VERDICT_DONE, 0 };

      if (!read_exact (in_fd, data, len))
        break;
      if (ftruncate (capture_fd, 0) != 0 || lseek (capture_fd, 0, SEEK_SET) < 0)
        g_error ("fuzz-hdf5: capturing stderr: %s", g_strerror (errno));
      timer_settime (input_timer, 0, &arm, NULL);
      LLVMFuzzerTestOneInput (data, len);
      timer_settime (input_timer, 0, &disarm, NULL);
      if (fstat (capture_fd, &st) == 0 && st.st_size > 0)
        {
          g_autofree char *text = g_malloc0 ((gsize) st.st_size + 1);

          dump_capture ();
          lseek (capture_fd, 0, SEEK_SET);
          if (read_exact (capture_fd, text, (size_t) st.st_size) &&
              strstr (text, "HDF5-DIAG") != NULL)
            {
              const char *msg = "nHDF5 printed to stderr\n";

              write_all (result_fd, msg, strlen (msg));
              _exit (3);
            }
        }
      verdict[1] = last_ok ? 'o' : 'r';
      write_all (result_fd, verdict, 2);
    }
  /* a normal exit: LeakSanitizer checks for leaks now */
  dup2 (real_stderr, 2);
  exit (0);
}

typedef struct {
  pid_t pid;
  int in_fd;                  /* parent → child inputs */
  int out_fd;                 /* child → parent verdicts */
  FILE *out;
} Child;

typedef struct {
  Child child;
  gboolean as_is;
  gboolean require_open;
  char *save_dir;
  guint n_random;
  guint n_runs, n_read, n_refused_inputs;
  guint n_libhdf5, n_ncz;
  GHashTable *libhdf5_seen;   /* checksum → TRUE */
  GString *libhdf5_report;
} Driver;

static void
start_child (Driver *d)
{
  int to_child[2], from_child[2];
  pid_t pid;

  if (pipe (to_child) != 0 || pipe (from_child) != 0)
    g_error ("fuzz-hdf5: pipe: %s", g_strerror (errno));
  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid < 0)
    g_error ("fuzz-hdf5: fork: %s", g_strerror (errno));
  if (pid == 0)
    {
      close (to_child[1]);
      close (from_child[0]);
      child_main (to_child[0], from_child[1]);
    }
  close (to_child[0]);
  close (from_child[1]);
  d->child.pid = pid;
  d->child.in_fd = to_child[1];
  d->child.out_fd = from_child[0];
  d->child.out = fdopen (from_child[0], "r");
}

/* Waits for the child to end; its status as text. */
static char *
reap_child (Driver *d)
{
  int status = 0;

  close (d->child.in_fd);
  fclose (d->child.out);
  while (waitpid (d->child.pid, &status, 0) < 0 && errno == EINTR)
    ;
  d->child.pid = 0;
  if (WIFEXITED (status))
    return g_strdup_printf ("exit status %d", WEXITSTATUS (status));
  return g_strdup_printf ("signal %d", WTERMSIG (status));
}

static void
save_input (const char *dir, const char *prefix, const char *sum, const guint8 *data, gsize size)
{
  g_autofree char *path = NULL;
  GError *error = NULL;

  if (dir == NULL)
    return;
  g_mkdir_with_parents (dir, 0755);
  path = g_strdup_printf ("%s/%s-%.16s", dir, prefix, sum);
  if (!g_file_set_contents (path, (const char *) data, (gssize) size, &error))
    {
      g_printerr ("fuzz-hdf5: %s\n", error->message);
      g_clear_error (&error);
    }
  else
    g_printerr ("fuzz-hdf5: saved as %s\n", path);
}

/* Runs one input in the child (started if needed); returns its verdict:
 * 'o' opened and read, 'r' refused, 'h' libhdf5 crash, 'n' Ncz finding. */
static char
run_one (Driver *d, const char *label, const guint8 *data, gsize size)
{
  guint32 len = (guint32) size;
  char line[1024] = "";
  struct pollfd pfd;
  int c;

  if (d->child.pid == 0)
    start_child (d);
  d->n_runs++;
  write_all (d->child.in_fd, (const char *) &len, sizeof len);
  write_all (d->child.in_fd, (const char *) data, size);

  /* the child's own timer fires after INPUT_TIMEOUT_SECONDS of CPU time;
   * this is the backstop if it cannot report (a deadlock) */
  pfd.fd = d->child.out_fd;
  pfd.events = POLLIN;
  if (poll (&pfd, 1, (INPUT_TIMEOUT_SECONDS + 56) * 1000) == 0)
    {
      kill (d->child.pid, SIGKILL);
      g_snprintf (line, sizeof line, "%cno progress for a minute (a deadlock?)\n", VERDICT_NCZ);
    }
  else if ((c = fgetc (d->child.out)) == VERDICT_DONE)
    {
      int r = fgetc (d->child.out);

      if (r == 'o')
        d->n_read++;
      else
        d->n_refused_inputs++;
      return (char) r;
    }
  else if (c == VERDICT_LIBHDF5 || c == VERDICT_NCZ)
    {
      line[0] = (char) c;
      if (fgets (line + 1, sizeof line - 1, d->child.out) == NULL)
        line[1] = '\0';
    }
  else
    g_snprintf (line, sizeof line, "%cdied without a report", VERDICT_NCZ);

  {
    g_autofree char *status = reap_child (d);
    g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, data, size);
    char *nl = strchr (line, '\n');

    if (nl)
      *nl = '\0';
    if (line[0] == VERDICT_LIBHDF5)
      {
        d->n_libhdf5++;
        g_printerr ("fuzz-hdf5: %s: libhdf5 defect: %s (%s), input %.16s\n", label, line + 1,
                    status, sum);
        if (!g_hash_table_contains (d->libhdf5_seen, sum))
          {
            g_hash_table_add (d->libhdf5_seen, g_strdup (sum));
            g_string_append_printf (d->libhdf5_report, "  %s: %s (input %.16s)\n", label,
                                    line + 1, sum);
            save_input (d->save_dir, "libhdf5", sum, data, size);
          }
        return VERDICT_LIBHDF5;
      }
    d->n_ncz++;
    g_printerr ("fuzz-hdf5: %s: FINDING: %s (%s), input %.16s\n", label, line + 1, status, sum);
    save_input (d->save_dir, "ncz", sum, data, size);
    return VERDICT_NCZ;
  }
}

static const char * const signatures[] = {
  "OHDR", "OCHK", "FRHP", "FHDB", "FHIB", "FSHD", "FSSE", "BTHD", "BTIN", "BTLF",
  "TREE", "HEAP", "SNOD", "GCOL", "SMTB", "SMLI", NULL
};

/* Offsets of the file's structures: signatures, and version 1 object
 * headers found by their shape (version 1, reserved 0, 1 to 4096
 * messages, a reference count, a header size inside the file, zero
 * padding, a known first message type). */
static GArray *
find_structures (const guint8 *data, gsize size)
{
  GArray *at = g_array_new (FALSE, FALSE, sizeof (gsize));

  for (gsize p = 0; p + 4 <= size; p++)
    for (guint s = 0; signatures[s]; s++)
      if (memcmp (data + p, signatures[s], 4) == 0)
        {
          g_array_append_val (at, p);
          break;
        }
  for (gsize p = 0; p + 24 <= size; p += 8)
    {
      guint nmsgs = data[p + 2] | (data[p + 3] << 8);
      guint32 refs = data[p + 4] | (data[p + 5] << 8) | (data[p + 6] << 16) |
                     ((guint32) data[p + 7] << 24);
      guint32 hsize = data[p + 8] | (data[p + 9] << 8) | (data[p + 10] << 16) |
                      ((guint32) data[p + 11] << 24);
      guint type = data[p + 16] | (data[p + 17] << 8);

      if (data[p] == 1 && data[p + 1] == 0 && nmsgs >= 1 && nmsgs <= 4096 && refs >= 1 &&
          refs <= 1000 && hsize >= 8 && hsize <= size && data[p + 12] == 0 &&
          data[p + 13] == 0 && data[p + 14] == 0 && data[p + 15] == 0 && type <= 0x18)
        g_array_append_val (at, p);
    }
  return at;
}

static const guint8 interesting_bytes[] = { 0x00, 0x01, 0x02, 0x03, 0x07, 0x08, 0x10, 0x7f,
                                            0x80, 0xfe, 0xff };

static void
mutate_byte (GRand *rand, guint8 *b)
{
  switch (g_rand_int_range (rand, 0, 3))
    {
    case 0:
      *b ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
      break;
    case 1:
      *b = interesting_bytes[g_rand_int_range (rand, 0, G_N_ELEMENTS (interesting_bytes))];
      break;
    default:
      *b = (guint8) g_rand_int_range (rand, 0, 256);
    }
}

/* An 8-byte little-endian edge value (an address or length) at @p. */
static void
put_edge_value (GRand *rand, guint8 *copy, gsize size, gsize p)
{
  guint64 values[] = { 0, 1, size - 1, size, size + 1, (guint64) size * 2, 0x7fffffffu,
                       0xffffffffu, G_MAXINT64, G_MAXUINT64, G_MAXUINT64 - 1,
                       (guint64) 1 << 40 };
  guint64 v = values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))];
  guint width = g_rand_boolean (rand) ? 8 : 4;

  for (guint i = 0; i < width && p + i < size; i++)
    copy[p + i] = (guint8) (v >> (8 * i));
}

static gboolean
run_checked (Driver *d, const char *name, const char *kind, gsize arg, const guint8 *data,
             gsize size)
{
  g_autofree char *label = g_strdup_printf ("%s %s %" G_GSIZE_FORMAT, name, kind, arg);

  return run_one (d, label, data, size) != VERDICT_NCZ;
}

static void
run_file (Driver *d, const char *path)
{
  g_autofree char *contents = NULL;
  g_autofree char *name = g_path_get_basename (path);
  g_autoptr (GArray) structs = NULL;
  g_autoptr (GRand) rand = NULL;
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize size = 0;
  guint8 *data, *copy;
  GError *error = NULL;
  char v;

  if (!g_file_get_contents (path, &contents, &size, &error))
    g_error ("%s", error->message);
  data = (guint8 *) contents;
  v = run_one (d, name, data, size);
  if (d->require_open && v != 'o')
    {
      d->n_ncz++;
      g_printerr ("fuzz-hdf5: %s: FINDING: the seed does not open and read without error\n",
                  name);
    }
  if (d->as_is || size == 0)
    return;

  rand = g_rand_new_with_seed (g_str_hash (name));
  structs = find_structures (data, size);
  copy = g_memdup2 (data, size);

  /* truncations: the first bytes, the superblock's fields, evenly
   * spaced lengths, and at and just after every structure */
  {
    static const gsize fixed[] = { 0, 1, 4, 7, 8, 9, 12, 16, 20, 24, 32, 40, 44, 48, 56,
                                   64, 72, 80, 88, 96, 100, 128, 192, 256, 384, 512, 1024 };

    for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
      g_array_append_val (cuts, fixed[i]);
    for (guint i = 1; i < 32; i++)
      {
        gsize c = size * i / 32;
        g_array_append_val (cuts, c);
      }
    for (guint i = 0; i < structs->len; i++)
      {
        gsize c = g_array_index (structs, gsize, i), c2 = c + 12;
        g_array_append_val (cuts, c);
        g_array_append_val (cuts, c2);
      }
    for (guint i = 0; i < cuts->len; i++)
      {
        gsize c = g_array_index (cuts, gsize, i);
        gboolean dup = FALSE;

        for (guint j = 0; j < i && !dup; j++)
          dup = g_array_index (cuts, gsize, j) == c;
        if (!dup && c < size)
          run_checked (d, name, "cut at", c, data, c);
      }
  }

  /* the superblock: every byte of the first 96 set to 0xff, then random
   * changes in the first 256 */
  for (gsize p = 0; p < MIN (size, 96); p++)
    {
      guint8 saved = copy[p];

      if (saved == 0xff)
        continue;
      copy[p] = 0xff;
      run_checked (d, name, "superblock 0xff at", p, copy, size);
      copy[p] = saved;
    }
  for (guint m = 0; m < d->n_random; m++)
    {
      gsize p = (gsize) g_rand_int_range (rand, 0, (gint32) MIN (size, 256));
      guint8 saved = copy[p];

      mutate_byte (rand, &copy[p]);
      run_checked (d, name, "superblock byte", p, copy, size);
      copy[p] = saved;
    }

  /* object headers and the other structures: random bytes in their first
   * 64 bytes, and edge values as addresses or lengths */
  for (guint m = 0; m < 3 * d->n_random && structs->len > 0; m++)
    {
      gsize base = g_array_index (structs, gsize,
                                  g_rand_int_range (rand, 0, (gint32) structs->len));
      gsize p = MIN (base + (gsize) g_rand_int_range (rand, 0, 64), size - 1);
      g_autofree guint8 *saved = g_memdup2 (copy + p, MIN (8, size - p));

      if (g_rand_int_range (rand, 0, 4) == 0)
        put_edge_value (rand, copy, size, p);
      else
        mutate_byte (rand, &copy[p]);
      run_checked (d, name, "structure byte", p, copy, size);
      memcpy (copy + p, saved, MIN (8, size - p));
    }

  /* anywhere: one or a few random bytes */
  for (guint m = 0; m < d->n_random; m++)
    {
      guint k = (guint) g_rand_int_range (rand, 1, 4);
      gsize ps[4] = { 0 };
      guint8 saved[4] = { 0 };

      for (guint i = 0; i < k; i++)
        {
          ps[i] = (gsize) g_rand_int_range (rand, 0, (gint32) MIN (size, G_MAXINT32));
          saved[i] = copy[ps[i]];
          mutate_byte (rand, &copy[ps[i]]);
        }
      run_checked (d, name, "random bytes from", ps[0], copy, size);
      for (guint i = k; i-- > 0;)
        copy[ps[i]] = saved[i];
    }
  g_free (copy);
}

static void
run_path (Driver *d, const char *path)
{
  GError *error = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *dir = g_dir_open (path, 0, &error);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        g_error ("%s", error->message);
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.' && !g_str_has_suffix (name, ".md"))
          g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_dir_close (dir);
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < names->len; i++)
        run_path (d, g_ptr_array_index (names, i));
      return;
    }
  run_file (d, path);
}

/* --classify-reports FILE...: sorts saved sanitizer reports as the crash
 * handler sorts a child's (report_is_libhdf5()), each expected to be
 * libhdf5's or Ncz's as its name starts with "libhdf5-" or "ncz-"
 * (asan-reports/). Exit status 1 when one is sorted otherwise. */
static int
classify_reports (int n, char **paths)
{
  int status = n > 0 ? 0 : 2;

  for (int i = 0; i < n; i++)
    {
      g_autofree char *text = NULL;
      g_autofree char *base = g_path_get_basename (paths[i]);
      g_autoptr (GError) error = NULL;
      gboolean expect_hdf5 = g_str_has_prefix (base, "libhdf5-");
      gboolean is_hdf5;

      if (!expect_hdf5 && !g_str_has_prefix (base, "ncz-"))
        {
          g_printerr ("fuzz-hdf5: %s: the name says neither libhdf5- nor ncz-\n", paths[i]);
          status = 1;
          continue;
        }
      if (!g_file_get_contents (paths[i], &text, NULL, &error))
        {
          g_printerr ("fuzz-hdf5: %s\n", error->message);
          status = 1;
          continue;
        }
      is_hdf5 = report_is_libhdf5 (text);
      g_print ("%s %s: sorted as %s's\n", is_hdf5 == expect_hdf5 ? "ok" : "WRONG", base,
               is_hdf5 ? "libhdf5" : "Ncz");
      if (is_hdf5 != expect_hdf5)
        status = 1;
    }
  return status;
}

/* --sort-report FILE: sorts one sanitizer report written while libFuzzer
 * ran (run-hdf5-target.sh) as the crash handler sorts a child's. Prints
 * what it is; exit status 0 for libhdf5's, 1 for Ncz's, 3 for a file
 * without an error report: warnings only (allocator_may_return_null=1
 * warns of each huge allocation it refuses), or a fault of
 * LeakSanitizer's own runtime (its tracer thread crashing), which is no
 * report on the program. */
static int
sort_report (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  if (!g_file_get_contents (path, &text, NULL, &error))
    {
      g_printerr ("fuzz-hdf5: %s\n", error->message);
      return 1;
    }
  if (strstr (text, "ERROR: ") == NULL)
    {
      g_print ("%s\n", strstr (text, "LeakSanitizer has encountered a fatal error") != NULL
                         ? "a fault of LeakSanitizer's runtime"
                         : "no error (warnings only: a huge allocation refused, ...)");
      return 3;
    }
  if (report_is_libhdf5 (text))
    {
      g_print ("libhdf5's\n");
      return 0;
    }
  g_print ("Ncz's\n");
  return 1;
}

int
main (int argc, char **argv)
{
  Driver d = { 0 };
  const char *env = g_getenv ("NCZ_FUZZ_MUTATIONS");
  guint n_paths = 0;
  int status;

  d.n_random = env ? (guint) g_ascii_strtoull (env, NULL, 10) : 40;
  {
    g_autofree char *base = g_path_get_basename (argv[0]);

    g_set_prgname (base);       /* the program's own frames in backtraces */
  }
  d.libhdf5_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d.libhdf5_report = g_string_new (NULL);
  signal (SIGPIPE, SIG_IGN);      /* a dead child's pipe gives EPIPE */
  if (argc > 1 && g_str_equal (argv[1], "--classify-reports"))
    return classify_reports (argc - 2, argv + 2);
  if (argc == 3 && g_str_equal (argv[1], "--sort-report"))
    return sort_report (argv[2]);
  /* the children share one directory, made before any of them */
  init_target ();
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--as-is"))
        d.as_is = TRUE;
      else if (g_str_equal (argv[i], "--require-open"))
        d.require_open = TRUE;
      else if (g_str_has_prefix (argv[i], "--save="))
        d.save_dir = g_strdup (argv[i] + strlen ("--save="));
      else if (argv[i][0] == '-')
        continue;            /* libFuzzer-style flags are ignored */
    }
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-')
      {
        run_path (&d, argv[i]);
        n_paths++;
      }
  if (d.child.pid != 0)
    {
      g_autofree char *end = reap_child (&d);

      if (!g_str_equal (end, "exit status 0"))
        {
          d.n_ncz++;
          g_printerr ("fuzz-hdf5: FINDING: the last child ended with %s (leaks?)\n", end);
        }
    }
  if (n_paths == 0)
    {
      g_printerr ("usage: fuzz-hdf5-standalone [--as-is] [--require-open] [--save=DIR] "
                  "FILE_OR_DIR...\n"
                  "       fuzz-hdf5-standalone --classify-reports REPORT...\n"
                  "       fuzz-hdf5-standalone --sort-report REPORT\n");
      return 2;
    }
  g_print ("fuzz-hdf5: %u inputs: %u opened and read, %u refused with an error, "
           "%u crashed or hung inside libhdf5 (%u distinct), %u Ncz findings\n",
           d.n_runs, d.n_read, d.n_refused_inputs, d.n_libhdf5,
           g_hash_table_size (d.libhdf5_seen), d.n_ncz);
  if (d.libhdf5_report->len > 0)
    g_print ("fuzz-hdf5: libhdf5 defects (not Ncz's; see libhdf5-crashes/README.md):\n%s",
             d.libhdf5_report->str);
  status = d.n_ncz > 0 ? 1 : d.n_runs > 0 ? 0 : 1;
  g_hash_table_unref (d.libhdf5_seen);
  g_string_free (d.libhdf5_report, TRUE);
  g_free (d.save_dir);
  return status;
}

#endif
