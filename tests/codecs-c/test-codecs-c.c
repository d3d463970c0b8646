/* test-codecs-c.c: the numcodecs codecs without an HDF5 id (gzip, delta,
 * crc32, adler32, fixedscaleoffset, bitround, quantize, astype,
 * packbits)
 * through NczCodec: formats, round trips, parameters and errors; bytes
 * compared with numcodecs 0.11 both ways; arrays written by zarr-python
 * read by Ncz and arrays written by Ncz read by zarr-python.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include <ncz/ncz.h>

#define PYTHON "/usr/bin/python3"

/* ---- helpers ---- */

static NczCodec *
lookup (const char *codec_id)
{
  g_autoptr (GError) error = NULL;
  NczCodec *codec = ncz_registry_lookup_codec (ncz_registry_get_default (), codec_id, &error);

  g_assert_no_error (error);
  g_assert_nonnull (codec);
  g_assert_cmpuint (ncz_codec_get_filter_id (codec), ==, 0);
  return codec;
}

/* The codec for @json with working parameters derived for @variable. */
static NczCodec *
codec_for_variable (const char *json, NczVariable *variable, GArray **working)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) visible = NULL;
  g_autofree char *id = NULL;
  const char *p = strstr (json, "\"id\"");
  NczCodec *codec;

  g_assert_nonnull (p);
  p = strchr (p + 4, '"');
  g_assert_nonnull (p);
  id = g_strndup (p + 1, strcspn (p + 1, "\""));
  codec = lookup (id);
  g_assert_true (ncz_codec_params_from_json_text (codec, json, &visible, &error));
  g_assert_no_error (error);
  g_assert_true (ncz_codec_modify_parameters (codec, variable, visible, working, &error));
  g_assert_no_error (error);
  return codec;
}

/* The codec for @json and its working parameters (no variable needed). */
static NczCodec *
codec_for_json (const char *json, GArray **working)
{
  return codec_for_variable (json, NULL, working);
}

/* A dataset in @dir holding one 1-D variable per type, named after it:
 * "f4", "f8", "f4be", "f8be", "i4". */
static NczDataset *
typed_variables (const char *dir)
{
  static const struct { const char *name; NczDataType type; gboolean big; } vars[] = {
    { "f4", NCZ_DATA_TYPE_FLOAT, FALSE }, { "f8", NCZ_DATA_TYPE_DOUBLE, FALSE },
    { "f4be", NCZ_DATA_TYPE_FLOAT, TRUE }, { "f8be", NCZ_DATA_TYPE_DOUBLE, TRUE },
    { "i4", NCZ_DATA_TYPE_INT, FALSE },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("file://%s/vars.zarr#mode=zarr,file", dir);
  NczDataset *ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  NczGroup *root;
  NczDimension *dim;

  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  dim = ncz_group_add_dimension (root, "n", 10, FALSE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      NczVariable *v = ncz_group_add_variable (root, vars[i].name, vars[i].type, 1, &dim, &error);
      g_assert_no_error (error);
      if (vars[i].big)
        {
          g_assert_true (ncz_variable_set_endianness (v, NCZ_ENDIANNESS_BIG, &error));
          g_assert_no_error (error);
        }
    }
  return ds;
}

static NczVariable *
typed_variable (NczDataset *ds, const char *name)
{
  NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), name);

  g_assert_nonnull (v);
  return v;
}

static GBytes *
run (NczCodec *codec, GArray *working, gboolean encode, GBytes *input)
{
  g_autoptr (GError) error = NULL;
  GBytes *out = encode
    ? ncz_codec_encode (codec, (const guint *) working->data, working->len, input, &error)
    : ncz_codec_decode (codec, (const guint *) working->data, working->len, input, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

static void
assert_bytes_equal (GBytes *a, GBytes *b)
{
  gsize la, lb;
  const guint8 *pa = g_bytes_get_data (a, &la);
  const guint8 *pb = g_bytes_get_data (b, &lb);

  g_assert_cmpuint (la, ==, lb);
  if (la > 0)
    g_assert_cmpmem (pa, la, pb, lb);
}

static GBytes *
random_bytes (gsize length, guint32 seed)
{
  guint8 *data = g_malloc (MAX (length, 1));
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < length; i++)
    data[i] = (i % 3 == 0) ? (guint8) g_rand_int (rand) : (guint8) (i / 100);
  g_rand_free (rand);
  return g_bytes_new_take (data, length);
}

/* Runs the python helper; FALSE (test skipped) if numcodecs or zarr is
 * missing. */
static gboolean
run_helper (const char *command, const char *dir)
{
  const char *script = HELPER_SCRIPT;
  const char *argv[] = { PYTHON, script, command, dir, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  if (!g_file_test (PYTHON, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no " PYTHON);
      return FALSE;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("numcodecs or zarr not installed");
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("helper %s %s failed:\n%s%s", command, dir, out, err);
  g_test_message ("helper %s: %s", command, out);
  return TRUE;
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
    }
  g_remove (path);
}

static GBytes *
read_file_bytes (const char *dir, const char *name, const char *ext)
{
  g_autofree char *base = g_strconcat (name, ext, NULL);
  g_autofree char *path = g_build_filename (dir, base, NULL);
  g_autoptr (GError) error = NULL;
  char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (contents, length);
}

/* ---- gzip ---- */

static void
test_gzip_format (void)
{
  static const guint levels[] = { 1, 9, 5, 0, G_MAXUINT /* -1 */ };
  static const guint8 xfl[] = { 4, 2, 0, 0, 0 };
  const char *text = "hello, hello, hello";
  g_autoptr (GBytes) input = g_bytes_new_static (text, strlen (text));

  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    {
      g_autoptr (NczCodec) codec = lookup ("gzip");
      g_autoptr (GArray) working = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr (GBytes) enc = NULL;
      g_autoptr (GBytes) dec = NULL;
      const guint8 *p;
      gsize n;

      g_array_append_val (working, levels[i]);
      enc = run (codec, working, TRUE, input);
      p = g_bytes_get_data (enc, &n);
      g_assert_cmpuint (n, >, 18);
      g_assert_cmphex (p[0], ==, 0x1f);
      g_assert_cmphex (p[1], ==, 0x8b);
      g_assert_cmphex (p[2], ==, 8);
      g_assert_cmphex (p[3], ==, 0);
      g_assert_cmphex (p[4] | p[5] | p[6] | p[7], ==, 0);   /* no time stamp */
      g_assert_cmphex (p[8], ==, xfl[i]);
      g_assert_cmphex (p[9], ==, 255);
      g_assert_cmpuint (p[n - 4] | p[n - 3] << 8, ==, strlen (text));
      dec = run (codec, working, FALSE, enc);
      assert_bytes_equal (dec, input);
    }
}

static void
test_gzip_roundtrip (void)
{
  static const gsize sizes[] = { 0, 1, 7, 1000, 100003 };
  static const char *const configs[] = {
    "{\"id\": \"gzip\"}", "{\"id\": \"gzip\", \"level\": 9}", "{\"id\": \"gzip\", \"level\": \"5\"}",
    "{\"id\": \"gzip\", \"level\": 0}", "{\"id\": \"gzip\", \"level\": -1}",
  };

  for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autoptr (GArray) working = NULL;
        g_autoptr (NczCodec) codec = codec_for_json (configs[c], &working);
        g_autoptr (GBytes) input = random_bytes (sizes[s], s + 1);
        g_autoptr (GBytes) enc = run (codec, working, TRUE, input);
        g_autoptr (GBytes) dec = run (codec, working, FALSE, enc);

        assert_bytes_equal (dec, input);
      }
}

static void
test_gzip_decode_forms (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"gzip\", \"level\": 5}", &working);
  g_autoptr (GBytes) a = random_bytes (3000, 7);
  g_autoptr (GBytes) b = random_bytes (17, 8);
  g_autoptr (GBytes) ea = run (codec, working, TRUE, a);
  g_autoptr (GBytes) eb = run (codec, working, TRUE, b);
  g_autoptr (GByteArray) joined = g_byte_array_new ();
  g_autoptr (GByteArray) expected = g_byte_array_new ();
  g_autoptr (GBytes) joined_bytes = NULL;
  g_autoptr (GBytes) expected_bytes = NULL;
  g_autoptr (GBytes) dec = NULL;
  g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr (GBytes) dec_empty = NULL;
  /* a member with a file name, comment and header CRC flag set */
  static const guint8 named[] = {
    0x1f, 0x8b, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 'x', '.', 'b', 'i', 'n', 0x00,
    0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
  };
  g_autoptr (GBytes) named_bytes = g_bytes_new_static (named, sizeof named);
  g_autoptr (GBytes) named_dec = NULL;

  /* two members, then zero padding: the two inputs joined */
  g_byte_array_append (joined, g_bytes_get_data (ea, NULL), (guint) g_bytes_get_size (ea));
  g_byte_array_append (joined, g_bytes_get_data (eb, NULL), (guint) g_bytes_get_size (eb));
  g_byte_array_append (joined, (const guint8 *) "\0\0\0", 3);
  g_byte_array_append (expected, g_bytes_get_data (a, NULL), (guint) g_bytes_get_size (a));
  g_byte_array_append (expected, g_bytes_get_data (b, NULL), (guint) g_bytes_get_size (b));
  joined_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&joined));
  expected_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&expected));
  dec = run (codec, working, FALSE, joined_bytes);
  assert_bytes_equal (dec, expected_bytes);

  named_dec = run (codec, working, FALSE, named_bytes);
  g_assert_cmpmem (g_bytes_get_data (named_dec, NULL), g_bytes_get_size (named_dec), "hello", 5);

  dec_empty = run (codec, working, FALSE, empty);
  g_assert_cmpuint (g_bytes_get_size (dec_empty), ==, 0);
}

static void
assert_decode_fails (NczCodec *codec, GArray *working, const guint8 *data, gsize length,
                     gint code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) input = g_bytes_new (data, length);
  g_autoptr (GBytes) out = ncz_codec_decode (codec, (const guint *) working->data, working->len,
                                             input, &error);

  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, code);
  g_assert_nonnull (strstr (error->message, needle));
}

static void
test_gzip_corrupt (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"gzip\", \"level\": 1}", &working);
  g_autoptr (GBytes) input = random_bytes (5000, 3);
  g_autoptr (GBytes) enc = run (codec, working, TRUE, input);
  gsize n;
  g_autofree guint8 *copy = g_memdup2 (g_bytes_get_data (enc, &n), g_bytes_get_size (enc));

  /* truncated: no trailer, half the data, the header only */
  assert_decode_fails (codec, working, copy, n - 8, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  assert_decode_fails (codec, working, copy, n / 2, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  assert_decode_fails (codec, working, copy, 10, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  /* wrong CRC-32, wrong length, not gzip (a zlib stream), garbage after it */
  copy[n - 8] ^= 1;
  assert_decode_fails (codec, working, copy, n, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  copy[n - 8] ^= 1;
  copy[n - 4] ^= 1;
  assert_decode_fails (codec, working, copy, n, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  copy[n - 4] ^= 1;
  assert_decode_fails (codec, working, (const guint8 *) "\x78\x9c\x03\x00\x00\x00\x00\x01", 8,
                       NCZ_CODEC_ERROR_CORRUPT, "gzip");
  {
    g_autofree guint8 *longer = g_malloc (n + 2);
    memcpy (longer, copy, n);
    longer[n] = 0x1f;
    longer[n + 1] = 0x00;
    assert_decode_fails (codec, working, longer, n + 2, NCZ_CODEC_ERROR_CORRUPT, "gzip");
  }
}

static void
assert_json_rejected (const char *codec_id, const char *json, const char *needle)
{
  g_autoptr (NczCodec) codec = lookup (codec_id);
  g_autoptr (GError) error = NULL;
  GArray *visible = NULL;

  g_assert_false (ncz_codec_params_from_json_text (codec, json, &visible, &error));
  g_assert_null (visible);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  if (strstr (error->message, needle) == NULL || strstr (error->message, codec_id) == NULL)
    g_error ("'%s' does not name '%s' and '%s'", error->message, codec_id, needle);
}

static void
assert_json_form (const char *json, const char *expected)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json (json, &working);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = ncz_codec_params_to_json_text (codec, (const guint *) working->data,
                                                    working->len, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_gzip_json (void)
{
  assert_json_form ("{\"id\": \"gzip\"}", "{\"id\": \"gzip\", \"level\": 1}");
  assert_json_form ("{\"id\": \"gzip\", \"level\": \"7\"}", "{\"id\": \"gzip\", \"level\": 7}");
  assert_json_form ("{\"id\": \"gzip\", \"level\": -1}", "{\"id\": \"gzip\", \"level\": -1}");
  assert_json_rejected ("gzip", "{\"id\": \"gzip\", \"level\": 10}", "level");
  assert_json_rejected ("gzip", "{\"id\": \"gzip\", \"level\": \"fast\"}", "level");
  assert_json_rejected ("gzip", "{\"id\": \"zlib\", \"level\": 1}", "id");
}

/* ---- delta ---- */

static const char *const delta_types[] = {
  "|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4",
  "<i8", ">i8", "<u8", ">u8", "<f4", ">f4", "<f8", ">f8",
};

static void
test_delta_roundtrip (void)
{
  static const gsize counts[] = { 0, 1, 7, 1000 };

  for (guint t = 0; t < G_N_ELEMENTS (delta_types); t++)
    for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
      {
        const char *type = delta_types[t];
        gsize size = (gsize) (type[2] - '0');
        gboolean is_float = type[1] == 'f';
        g_autofree char *json = g_strdup_printf ("{\"id\": \"delta\", \"dtype\": \"%s\"}", type);
        g_autoptr (GArray) working = NULL;
        g_autoptr (NczCodec) codec = codec_for_json (json, &working);
        g_autoptr (GBytes) input = NULL;
        g_autoptr (GBytes) enc = NULL;
        g_autoptr (GBytes) dec = NULL;

        if (is_float)
          {
            /* small whole numbers: their differences and sums are exact */
            guint8 *data = g_malloc (MAX (counts[c] * size, 1));
            for (gsize i = 0; i < counts[c]; i++)
              {
                gdouble v = (gdouble) ((gint) ((i * 7919) % 2001) - 1000);
                guint8 raw[8];
                if (size == 4)
                  {
                    gfloat f = (gfloat) v;
                    memcpy (raw, &f, 4);
                  }
                else
                  memcpy (raw, &v, 8);
                for (gsize k = 0; k < size; k++)
                  data[i * size + k] = type[0] == '>' ? raw[size - 1 - k] : raw[k];
              }
            input = g_bytes_new_take (data, counts[c] * size);
          }
        else
          input = random_bytes (counts[c] * size, t * 10 + c);
        enc = run (codec, working, TRUE, input);
        g_assert_cmpuint (g_bytes_get_size (enc), ==, counts[c] * size);
        dec = run (codec, working, FALSE, enc);
        assert_bytes_equal (dec, input);
      }
}

static void
test_delta_known (void)
{
  /* numcodecs' own example: int16 100, 102, ... 118 as int8 differences */
  gint16 values[10];
  gint8 expected[10] = { 100, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = NULL;
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) enc = NULL;
  g_autoptr (GBytes) dec = NULL;

  for (guint i = 0; i < 10; i++)
    values[i] = GINT16_TO_LE ((gint16) (100 + 2 * i));
  codec = codec_for_json ("{\"id\": \"delta\", \"dtype\": \"<i2\", \"astype\": \"|i1\"}", &working);
  input = g_bytes_new (values, sizeof values);
  enc = run (codec, working, TRUE, input);
  g_assert_cmpmem (g_bytes_get_data (enc, NULL), g_bytes_get_size (enc), expected, sizeof expected);
  dec = run (codec, working, FALSE, enc);
  assert_bytes_equal (dec, input);

  /* uint8 differences wrap around: 200, 10 -> 200, 66 */
  {
    guint8 u[2] = { 200, 10 }, e[2] = { 200, 66 };
    g_autoptr (GArray) w2 = NULL;
    g_autoptr (NczCodec) c2 = codec_for_json ("{\"id\": \"delta\", \"dtype\": \"|u1\"}", &w2);
    g_autoptr (GBytes) in2 = g_bytes_new (u, 2);
    g_autoptr (GBytes) enc2 = run (c2, w2, TRUE, in2);
    g_autoptr (GBytes) dec2 = run (c2, w2, FALSE, enc2);
    g_assert_cmpmem (g_bytes_get_data (enc2, NULL), 2, e, 2);
    assert_bytes_equal (dec2, in2);
  }
}

static void
test_delta_json (void)
{
  assert_json_form ("{\"id\": \"delta\", \"dtype\": \"<i4\"}",
                    "{\"id\": \"delta\", \"dtype\": \"<i4\", \"astype\": \"<i4\"}");
  assert_json_form ("{\"id\": \"delta\", \"dtype\": \"i2\", \"astype\": \"i1\"}",
                    "{\"id\": \"delta\", \"dtype\": \"<i2\", \"astype\": \"|i1\"}");
  assert_json_form ("{\"id\": \"delta\", \"dtype\": \">f8\", \"astype\": null}",
                    "{\"id\": \"delta\", \"dtype\": \">f8\", \"astype\": \">f8\"}");
  assert_json_form ("{\"id\": \"delta\", \"dtype\": \"<u1\"}",
                    "{\"id\": \"delta\", \"dtype\": \"|u1\", \"astype\": \"|u1\"}");
  /* integers and floats mixed, types numcodecs has that Ncz does not run */
  assert_json_rejected ("delta", "{\"id\": \"delta\", \"dtype\": \"<i4\", \"astype\": \"<f8\"}",
                        "{\"id\": \"delta\", \"dtype\": \"<i4\", \"astype\": \"<f8\"}");
  assert_json_rejected ("delta", "{\"id\": \"delta\", \"dtype\": \"<f2\"}", "'<f2'");
  assert_json_rejected ("delta", "{\"id\": \"delta\", \"dtype\": \"|b1\"}", "'|b1'");
  assert_json_rejected ("delta", "{\"id\": \"delta\", \"dtype\": \"<U8\"}", "'<U8'");
  assert_json_rejected ("delta", "{\"id\": \"delta\"}", "'dtype' is missing");
  assert_json_rejected ("delta", "{\"id\": \"delta\", \"dtype\": 4}", "'dtype'");
}

static void
test_delta_errors (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"delta\", \"dtype\": \"<i4\", \"astype\": \"<i2\"}",
                                               &working);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) odd = g_bytes_new ("abcdef", 6);
  g_autoptr (GBytes) out = ncz_codec_encode (codec, (const guint *) working->data, working->len,
                                             odd, &error);
  guint bad[2] = { 0x12345, 7 };

  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "delta"));
  g_clear_error (&error);
  /* decoding: 3 bytes are not whole int16 elements */
  assert_decode_fails (codec, working, (const guint8 *) "abc", 3, NCZ_CODEC_ERROR_CORRUPT, "'<i2'");
  /* parameters that are not element types */
  out = ncz_codec_encode (codec, bad, 2, odd, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "delta"));
}

/* ---- crc32, adler32 ---- */

static void
test_checksums (void)
{
  static const char *const ids[] = { "crc32", "adler32" };
  static const gsize sizes[] = { 0, 1, 7, 4096, 100003 };
  /* zlib's check values of "123456789" */
  static const guint32 check[] = { 0xcbf43926, 0x091e01de };

  for (guint c = 0; c < G_N_ELEMENTS (ids); c++)
    {
      g_autofree char *json = g_strdup_printf ("{\"id\": \"%s\"}", ids[c]);
      g_autoptr (GArray) working = NULL;
      g_autoptr (NczCodec) codec = codec_for_json (json, &working);
      g_autoptr (GBytes) digits = g_bytes_new_static ("123456789", 9);
      g_autoptr (GBytes) enc = run (codec, working, TRUE, digits);
      const guint8 *p = g_bytes_get_data (enc, NULL);
      g_autofree char *text = ncz_codec_params_to_json_text (codec, NULL, 0, NULL);

      g_assert_cmpstr (text, ==, json);
      g_assert_cmpuint (g_bytes_get_size (enc), ==, 13);
      g_assert_cmphex ((guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16
                       | (guint32) p[3] << 24, ==, check[c]);
      g_assert_cmpmem (p + 4, 9, "123456789", 9);

      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        {
          g_autoptr (GBytes) input = random_bytes (sizes[s], 40 + s);
          g_autoptr (GBytes) e = run (codec, working, TRUE, input);
          g_autoptr (GBytes) d = run (codec, working, FALSE, e);
          gsize n;
          g_autofree guint8 *copy = g_memdup2 (g_bytes_get_data (e, &n), g_bytes_get_size (e));

          assert_bytes_equal (d, input);
          /* any changed byte, in the checksum or the data, is caught */
          copy[n - 1] ^= 0x10;
          assert_decode_fails (codec, working, copy, n, NCZ_CODEC_ERROR_CORRUPT, ids[c]);
          copy[n - 1] ^= 0x10;
          copy[0] ^= 0x01;
          assert_decode_fails (codec, working, copy, n, NCZ_CODEC_ERROR_CORRUPT, "mismatch");
          /* shorter than a checksum */
          assert_decode_fails (codec, working, copy, MIN (n, 3), NCZ_CODEC_ERROR_CORRUPT,
                               "no checksum");
        }
    }
}

/* ---- fixedscaleoffset ---- */

static GBytes *
doubles_le (const gdouble *values, gsize n)
{
  guint8 *data = g_malloc (MAX (n * 8, 1));

  for (gsize i = 0; i < n; i++)
    {
      guint64 bits;
      memcpy (&bits, &values[i], 8);
      bits = GUINT64_TO_LE (bits);
      memcpy (data + 8 * i, &bits, 8);
    }
  return g_bytes_new_take (data, n * 8);
}

static void
test_fso_known (void)
{
  /* 1000 + k/9, offset 1000, scale 10, as uint8: k/9 * 10 rounded */
  static const guint8 expected[10] = { 0, 1, 2, 3, 4, 6, 7, 8, 9, 10 };
  /* halves round to even */
  static const gdouble ties[] = { 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 1e6 + 0.5 };
  static const gint32 ties_expected[] = { 0, 2, 2, 0, -2, -2, 0, 1000000 };
  gdouble values[10];
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"fixedscaleoffset\", \"offset\": 1000, "
                                               "\"scale\": 10, \"dtype\": \"<f8\", "
                                               "\"astype\": \"|u1\"}", &working);
  g_autoptr (GBytes) input = NULL, enc = NULL, dec = NULL;
  const guint8 *p;

  for (guint i = 0; i < 10; i++)
    values[i] = 1000.0 + (gdouble) i / 9.0;
  input = doubles_le (values, 10);
  enc = run (codec, working, TRUE, input);
  g_assert_cmpmem (g_bytes_get_data (enc, NULL), g_bytes_get_size (enc), expected, 10);
  dec = run (codec, working, FALSE, enc);
  g_assert_cmpuint (g_bytes_get_size (dec), ==, 80);
  p = g_bytes_get_data (dec, NULL);
  for (guint i = 0; i < 10; i++)
    {
      guint64 bits;
      gdouble d;
      memcpy (&bits, p + 8 * i, 8);
      bits = GUINT64_FROM_LE (bits);
      memcpy (&d, &bits, 8);
      g_assert_cmpfloat (d, ==, (gdouble) expected[i] / 10.0 + 1000.0);
    }

  {
    g_autoptr (GArray) w2 = NULL;
    g_autoptr (NczCodec) c2 = codec_for_json ("{\"id\": \"fixedscaleoffset\", \"offset\": 0, "
                                              "\"scale\": 1, \"dtype\": \"<f8\", "
                                              "\"astype\": \"<i4\"}", &w2);
    g_autoptr (GBytes) in2 = doubles_le (ties, G_N_ELEMENTS (ties));
    g_autoptr (GBytes) enc2 = run (c2, w2, TRUE, in2);
    const guint8 *q = g_bytes_get_data (enc2, NULL);

    g_assert_cmpuint (g_bytes_get_size (enc2), ==, 4 * G_N_ELEMENTS (ties));
    for (guint i = 0; i < G_N_ELEMENTS (ties); i++)
      g_assert_cmpint ((gint32) (q[4 * i] | q[4 * i + 1] << 8 | q[4 * i + 2] << 16
                                 | (guint32) q[4 * i + 3] << 24), ==, ties_expected[i]);
  }
}

static void
test_fso_json (void)
{
  assert_json_form ("{\"id\": \"fixedscaleoffset\", \"offset\": 1000, \"scale\": 10, "
                    "\"dtype\": \"<f8\", \"astype\": \"<i2\"}",
                    "{\"id\": \"fixedscaleoffset\", \"scale\": 10, \"offset\": 1000, "
                    "\"dtype\": \"<f8\", \"astype\": \"<i2\"}");
  assert_json_form ("{\"id\": \"fixedscaleoffset\", \"offset\": \"-1.25\", \"scale\": 0.1, "
                    "\"dtype\": \">f4\"}",
                    "{\"id\": \"fixedscaleoffset\", \"scale\": 0.1, \"offset\": -1.25, "
                    "\"dtype\": \">f4\", \"astype\": \">f4\"}");
  /* integer dtypes (numpy computes in wrapping integers) are not run */
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": 0, \"scale\": 2, "
                        "\"dtype\": \"<i4\", \"astype\": \"<i2\"}",
                        "\"dtype\": \"<i4\"");
  /* numpy switches to float64 for scalars of magnitude 3.4e38 and more
   * (3.40282e38 still fits a float32) */
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": 1e39, \"scale\": 2, "
                        "\"dtype\": \"<f8\", \"astype\": \"<f4\"}", "float32");
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": 0, \"scale\": 3.40282e38, "
                        "\"dtype\": \"<f4\"}", "3.4e38");
  assert_json_form ("{\"id\": \"fixedscaleoffset\", \"offset\": -3.39e38, \"scale\": 1, "
                    "\"dtype\": \"<f4\", \"astype\": \"<f8\"}",
                    "{\"id\": \"fixedscaleoffset\", \"scale\": 1, \"offset\": -3.39e+38, "
                    "\"dtype\": \"<f4\", \"astype\": \"<f8\"}");
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": 0, \"dtype\": \"<f8\"}",
                        "'scale' is missing");
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": \"x\", \"scale\": 1, "
                        "\"dtype\": \"<f8\"}", "'offset'");
  assert_json_rejected ("fixedscaleoffset",
                        "{\"id\": \"fixedscaleoffset\", \"offset\": 0, \"scale\": 1, "
                        "\"dtype\": \"<f2\"}", "'<f2'");
}

static void
test_fso_errors (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"fixedscaleoffset\", \"offset\": 0, "
                                               "\"scale\": 10, \"dtype\": \"<f8\", "
                                               "\"astype\": \"|i1\"}", &working);
  static const gdouble bad[][2] = { { 1.0, 12.8 }, { NAN, 0 }, { -12.86, 0 }, { INFINITY, 1 } };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) input = doubles_le (bad[i], 2);
      g_autoptr (GBytes) out = ncz_codec_encode (codec, (const guint *) working->data,
                                                 working->len, input, &error);

      /* never a wrapped or undefined value: the chunk is refused */
      g_assert_null (out);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "fixedscaleoffset"));
      g_assert_nonnull (strstr (error->message, "'|i1'"));
      g_assert_nonnull (strstr (error->message, "\"astype\": \"|i1\""));
    }
  /* edges that fit: 12.74 -> 127, -12.84 -> -128 */
  {
    static const gdouble edge[] = { 12.74, -12.84 };
    g_autoptr (GBytes) input = doubles_le (edge, 2);
    g_autoptr (GBytes) enc = run (codec, working, TRUE, input);
    const guint8 *p = g_bytes_get_data (enc, NULL);
    g_assert_cmpint ((gint8) p[0], ==, 127);
    g_assert_cmpint ((gint8) p[1], ==, -128);
  }
  /* an empty chunk encodes and decodes to nothing */
  {
    g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
    g_autoptr (GBytes) enc = run (codec, working, TRUE, empty);
    g_autoptr (GBytes) dec = run (codec, working, FALSE, enc);
    g_assert_cmpuint (g_bytes_get_size (enc), ==, 0);
    g_assert_cmpuint (g_bytes_get_size (dec), ==, 0);
  }
}

/* ---- bitround ---- */

static guint32
float_bits (gfloat f)
{
  guint32 b;

  memcpy (&b, &f, 4);
  return b;
}

static void
test_bitround (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-c-XXXXXX", &error);
  g_autoptr (NczDataset) ds = typed_variables (dir);
  /* float32 bit patterns and their rounding to 7 mantissa bits */
  static const guint32 in[] = {
    0x3f800000, /* 1.0 */ 0x3f808000, /* a tie, kept bits even: down */
    0x3f818000, /* a tie, kept bits odd: up */ 0x3f80ffff, 0x3f817fff,
    0x7f7fffff, /* the carry makes it inf */
    0x7fffffff, /* a NaN whose carry reaches the sign: -0 */ 0x80000001, 0x00000000,
  };
  static const guint32 out7[] = {
    0x3f800000, 0x3f800000, 0x3f820000, 0x3f810000, 0x3f810000, 0x7f800000,
    0x80000000, 0x80000000, 0x00000000,
  };
  guint8 le[sizeof in], be[sizeof in];
  g_autoptr (GBytes) in_le = NULL, in_be = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    for (guint k = 0; k < 4; k++)
      {
        le[4 * i + k] = (guint8) (in[i] >> (8 * k));
        be[4 * i + 3 - k] = (guint8) (in[i] >> (8 * k));
      }
  in_le = g_bytes_new (le, sizeof le);
  in_be = g_bytes_new (be, sizeof be);
  for (guint order = 0; order < 2; order++)
    {
      g_autoptr (GArray) working = NULL;
      g_autoptr (NczCodec) codec = codec_for_variable ("{\"id\": \"bitround\", \"keepbits\": 7}",
                                                       typed_variable (ds, order ? "f4be" : "f4"),
                                                       &working);
      g_autoptr (GBytes) enc = run (codec, working, TRUE, order ? in_be : in_le);
      g_autoptr (GBytes) dec = run (codec, working, FALSE, enc);
      const guint8 *p = g_bytes_get_data (enc, NULL);

      g_assert_cmpuint (g_bytes_get_size (enc), ==, sizeof in);
      for (guint i = 0; i < G_N_ELEMENTS (in); i++)
        {
          guint32 b = 0;
          for (guint k = 0; k < 4; k++)
            b |= (guint32) p[4 * i + (order ? 3 - k : k)] << (8 * k);
          g_assert_cmphex (b, ==, out7[i]);
        }
      assert_bytes_equal (dec, enc);   /* decoding changes nothing */
    }

  /* 23 bits keep float32 data as it is, 52 float64 data; 0 keeps none */
  {
    g_autoptr (GArray) w23 = NULL, w52 = NULL, w0 = NULL;
    g_autoptr (NczCodec) c23 = codec_for_variable ("{\"id\": \"bitround\", \"keepbits\": 23}",
                                                   typed_variable (ds, "f4"), &w23);
    g_autoptr (NczCodec) c52 = codec_for_variable ("{\"id\": \"bitround\", \"keepbits\": \"52\"}",
                                                   typed_variable (ds, "f8be"), &w52);
    g_autoptr (NczCodec) c0 = codec_for_variable ("{\"id\": \"bitround\", \"keepbits\": 0}",
                                                  typed_variable (ds, "f4"), &w0);
    g_autoptr (GBytes) e23 = run (c23, w23, TRUE, in_le);
    g_autoptr (GBytes) in8 = g_bytes_new_from_bytes (in_be, 0, 32);
    g_autoptr (GBytes) e52 = run (c52, w52, TRUE, in8);
    gfloat f[3] = { 1.4f, 1.6f, -3.1f };
    g_autoptr (GBytes) fb = g_bytes_new (f, sizeof f);
    g_autoptr (GBytes) e0 = run (c0, w0, TRUE, fb);
    const guint8 *p0 = g_bytes_get_data (e0, NULL);
    guint32 r[3];

    assert_bytes_equal (e23, in_le);
    assert_bytes_equal (e52, in8);
    memcpy (r, p0, sizeof r);
    g_assert_cmphex (r[0], ==, float_bits (1.0f));
    g_assert_cmphex (r[1], ==, float_bits (2.0f));
    g_assert_cmphex (r[2], ==, float_bits (-4.0f));
  }

  /* errors: keepbits beyond the type, a non-float variable, no variable,
   * odd lengths */
  {
    g_autoptr (NczCodec) codec = lookup ("bitround");
    g_autoptr (GArray) visible = NULL;
    GArray *working = NULL;
    g_autoptr (GBytes) odd = g_bytes_new ("abcdef", 6);
    g_autoptr (GBytes) out = NULL;

    g_assert_true (ncz_codec_params_from_json_text (codec, "{\"id\": \"bitround\", \"keepbits\": 24}",
                                               &visible, &error));
    g_assert_false (ncz_codec_modify_parameters (codec, typed_variable (ds, "f4"), visible,
                                                 &working, &error));
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (error->message, "{\"id\": \"bitround\", \"keepbits\": 24}"));
    g_clear_error (&error);
    g_assert_false (ncz_codec_modify_parameters (codec, typed_variable (ds, "i4"), visible,
                                                 &working, &error));
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (error->message, "bitround"));
    g_clear_error (&error);
    /* 24 is fine for float64 */
    g_assert_true (ncz_codec_modify_parameters (codec, typed_variable (ds, "f8"), visible,
                                                &working, &error));
    out = ncz_codec_encode (codec, (const guint *) working->data, working->len, odd, &error);
    g_assert_null (out);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    g_clear_error (&error);
    g_array_unref (working);
    working = NULL;
    g_assert_true (ncz_codec_modify_parameters (codec, NULL, visible, &working, &error));
    out = ncz_codec_encode (codec, (const guint *) working->data, working->len, in_le, &error);
    g_assert_null (out);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (error->message, "bitround"));
    g_clear_error (&error);
    g_array_unref (working);
  }
  assert_json_form ("{\"id\": \"bitround\", \"keepbits\": \"9\"}",
                    "{\"id\": \"bitround\", \"keepbits\": 9}");
  assert_json_rejected ("bitround", "{\"id\": \"bitround\", \"keepbits\": -1}", "keepbits");
  assert_json_rejected ("bitround", "{\"id\": \"bitround\", \"keepbits\": 53}", "keepbits");
  assert_json_rejected ("bitround", "{\"id\": \"bitround\"}", "keepbits");
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  remove_tree (dir);
}

/* ---- quantize ---- */

static gdouble
double_at (GBytes *bytes, gsize i, gboolean big)
{
  const guint8 *p = g_bytes_get_data (bytes, NULL);
  guint64 bits = 0;
  gdouble d;

  for (guint k = 0; k < 8; k++)
    bits |= (guint64) p[8 * i + (big ? 7 - k : k)] << (8 * k);
  memcpy (&d, &bits, 8);
  return d;
}

static gfloat
float_at (GBytes *bytes, gsize i, gboolean big)
{
  const guint8 *p = g_bytes_get_data (bytes, NULL);
  guint32 bits = 0;
  gfloat f;

  for (guint k = 0; k < 4; k++)
    bits |= (guint32) p[4 * i + (big ? 3 - k : k)] << (8 * k);
  memcpy (&f, &bits, 4);
  return f;
}

static GBytes *
floats_le (const gfloat *values, gsize n)
{
  guint8 *data = g_malloc (MAX (n * 4, 1));

  for (gsize i = 0; i < n; i++)
    {
      guint32 bits;
      memcpy (&bits, &values[i], 4);
      bits = GUINT32_TO_LE (bits);
      memcpy (data + 4 * i, &bits, 4);
    }
  return g_bytes_new_take (data, n * 4);
}

static void
test_quantize_known (void)
{
  /* numcodecs' own example: 0, 1/9, ... 1 to 1 digit (a step of 1/16) */
  static const gdouble one_digit[10] = { 0, 0.125, 0.25, 0.3125, 0.4375, 0.5625, 0.6875,
                                         0.75, 0.875, 1 };
  gdouble x[10];
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"quantize\", \"digits\": 1, "
                                               "\"dtype\": \"<f8\"}", &working);
  g_autoptr (GBytes) input = NULL, enc = NULL, dec = NULL;

  for (guint i = 0; i < 10; i++)
    x[i] = (gdouble) i / 9.0;
  input = doubles_le (x, 10);
  enc = run (codec, working, TRUE, input);
  g_assert_cmpuint (g_bytes_get_size (enc), ==, 80);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpfloat (double_at (enc, i, FALSE), ==, one_digit[i]);
  dec = run (codec, working, FALSE, enc);
  assert_bytes_equal (dec, enc);

  /* halves to even (a step of 1 for 0 digits), NaN, infinities, -0,
   * float64 to big-endian float32 and back */
  {
    static const gdouble in[] = { 0.5, 1.5, 2.5, -2.5, -0.2, NAN, INFINITY, -INFINITY, 1e300 };
    static const gdouble out[] = { 0, 2, 2, -2, -0.0, NAN, INFINITY, -INFINITY, INFINITY };
    g_autoptr (GArray) w2 = NULL;
    g_autoptr (NczCodec) c2 = codec_for_json ("{\"id\": \"quantize\", \"digits\": 0, "
                                              "\"dtype\": \"<f8\", \"astype\": \">f4\"}", &w2);
    g_autoptr (GBytes) in2 = doubles_le (in, G_N_ELEMENTS (in));
    g_autoptr (GBytes) enc2 = run (c2, w2, TRUE, in2);
    g_autoptr (GBytes) dec2 = run (c2, w2, FALSE, enc2);

    g_assert_cmpuint (g_bytes_get_size (enc2), ==, 4 * G_N_ELEMENTS (in));
    g_assert_cmpuint (g_bytes_get_size (dec2), ==, 8 * G_N_ELEMENTS (in));
    for (guint i = 0; i < G_N_ELEMENTS (in); i++)
      {
        gfloat f = float_at (enc2, i, TRUE);
        gdouble d = double_at (dec2, i, FALSE);
        if (isnan (out[i]))
          g_assert_true (isnan (f) && isnan (d));
        else
          {
            g_assert_cmpfloat (f, ==, out[i]);
            g_assert_cmpfloat (d, ==, out[i]);
            g_assert_cmpint (signbit (f) != 0, ==, signbit (out[i]) != 0);
          }
      }
  }

  /* float32 arithmetic: 38 digits give 2^127, and 2.25 * 2^127 overflows
   * float32; 39 digits give 2^130, beyond float32, so float64 is used;
   * -300 digits give a scale float32 rounds to 0: NaN, as numpy */
  {
    static const gfloat in[] = { 1.5f, 2.25f, -3.7f };
    g_autoptr (GBytes) in3 = floats_le (in, G_N_ELEMENTS (in));
    g_autoptr (GArray) w38 = NULL, w39 = NULL, wm = NULL;
    g_autoptr (NczCodec) c38 = codec_for_json ("{\"id\": \"quantize\", \"digits\": 38, "
                                               "\"dtype\": \"<f4\"}", &w38);
    g_autoptr (NczCodec) c39 = codec_for_json ("{\"id\": \"quantize\", \"digits\": 39, "
                                               "\"dtype\": \"<f4\"}", &w39);
    g_autoptr (NczCodec) cm = codec_for_json ("{\"id\": \"quantize\", \"digits\": -300, "
                                              "\"dtype\": \"<f4\"}", &wm);
    g_autoptr (GBytes) e38 = run (c38, w38, TRUE, in3);
    g_autoptr (GBytes) e39 = run (c39, w39, TRUE, in3);
    g_autoptr (GBytes) em = run (cm, wm, TRUE, in3);

    g_assert_cmpfloat (float_at (e38, 0, FALSE), ==, 1.5f);
    g_assert_true (isinf (float_at (e38, 1, FALSE)) && float_at (e38, 1, FALSE) > 0);
    g_assert_true (isinf (float_at (e38, 2, FALSE)) && float_at (e38, 2, FALSE) < 0);
    assert_bytes_equal (e39, in3);
    for (guint i = 0; i < 3; i++)
      g_assert_true (isnan (float_at (em, i, FALSE)));
  }
}

static void
test_quantize_json (void)
{
  assert_json_form ("{\"id\": \"quantize\", \"digits\": 3, \"dtype\": \"<f8\"}",
                    "{\"id\": \"quantize\", \"digits\": 3, \"dtype\": \"<f8\", "
                    "\"astype\": \"<f8\"}");
  assert_json_form ("{\"id\": \"quantize\", \"digits\": \"-2\", \"dtype\": \">f4\", "
                    "\"astype\": \"<f8\"}",
                    "{\"id\": \"quantize\", \"digits\": -2, \"dtype\": \">f4\", "
                    "\"astype\": \"<f8\"}");
  assert_json_form ("{\"id\": \"quantize\", \"digits\": 1.5, \"dtype\": \"f8\", "
                    "\"astype\": null}",
                    "{\"id\": \"quantize\", \"digits\": 1.5, \"dtype\": \"<f8\", "
                    "\"astype\": \"<f8\"}");
  /* integer types, as in numcodecs, are not allowed */
  assert_json_rejected ("quantize",
                        "{\"id\": \"quantize\", \"digits\": 3, \"dtype\": \"<f8\", "
                        "\"astype\": \"<i4\"}", "\"astype\": \"<i4\"");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": 3, "
                        "\"dtype\": \"<i2\"}", "float types");
  /* the scale overflows (308 digits), 10^-digits overflows (-309) or is 0
   * (400) */
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": 308, "
                        "\"dtype\": \"<f8\"}", "overflows");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": -309, "
                        "\"dtype\": \"<f8\"}", "overflows");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": 400, "
                        "\"dtype\": \"<f8\"}", "is 0");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"dtype\": \"<f8\"}",
                        "'digits' is missing");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": 2}",
                        "'dtype' is missing");
  assert_json_rejected ("quantize", "{\"id\": \"quantize\", \"digits\": 2, "
                        "\"dtype\": \"<f2\"}", "'<f2'");
}

static void
test_quantize_errors (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"quantize\", \"digits\": 2, "
                                               "\"dtype\": \"<f8\", \"astype\": \"<f4\"}",
                                               &working);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) odd = g_bytes_new ("abcdefghij", 10);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr (GBytes) enc = NULL, dec = NULL;
  /* dtype <f8, astype <f4, digits 308 (two halves): the scale overflows */
  guint bad[4] = { 3 << 16 | 8, 3 << 16 | 4, 0, 0 };
  gdouble d308 = 308;
  guint64 bits;

  out = ncz_codec_encode (codec, (const guint *) working->data, working->len, odd, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "quantize"));
  g_clear_error (&error);
  assert_decode_fails (codec, working, (const guint8 *) "abcdef", 6, NCZ_CODEC_ERROR_CORRUPT,
                       "'<f4'");
  memcpy (&bits, &d308, 8);
  bad[2] = (guint) (bits & 0xffffffffu);
  bad[3] = (guint) (bits >> 32);
  out = ncz_codec_encode (codec, bad, 4, odd, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "\"id\": \"quantize\", \"digits\": 308"));
  g_clear_error (&error);
  out = ncz_codec_encode (codec, bad, 2, odd, &error);
  g_assert_null (out);
  g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
  g_assert_nonnull (strstr (error->message, "quantize"));
  g_clear_error (&error);
  enc = run (codec, working, TRUE, empty);
  dec = run (codec, working, FALSE, enc);
  g_assert_cmpuint (g_bytes_get_size (enc), ==, 0);
  g_assert_cmpuint (g_bytes_get_size (dec), ==, 0);
}

/* ---- astype ---- */

static GBytes *
astype_run (const char *encode_dtype, const char *decode_dtype, gboolean encode,
            const void *data, gsize length)
{
  g_autofree char *json = g_strdup_printf ("{\"id\": \"astype\", \"encode_dtype\": \"%s\", "
                                           "\"decode_dtype\": \"%s\"}", encode_dtype,
                                           decode_dtype);
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json (json, &working);
  g_autoptr (GBytes) input = g_bytes_new (data, length);

  return run (codec, working, encode, input);
}

static void
test_astype_known (void)
{
  /* float64 to int8, truncated toward zero */
  {
    static const gdouble in[] = { 1.9, -1.9, -0.5, 127.99, -128.99, -0.0 };
    static const gint8 out[] = { 1, -1, 0, 127, -128, 0 };
    g_autoptr (GBytes) x = doubles_le (in, G_N_ELEMENTS (in));
    g_autoptr (GBytes) enc = astype_run ("|i1", "<f8", TRUE, g_bytes_get_data (x, NULL),
                                         g_bytes_get_size (x));
    g_autoptr (GBytes) dec = NULL;

    g_assert_cmpmem (g_bytes_get_data (enc, NULL), g_bytes_get_size (enc), out, sizeof out);
    dec = astype_run ("|i1", "<f8", FALSE, out, sizeof out);
    for (guint i = 0; i < G_N_ELEMENTS (out); i++)
      g_assert_cmpfloat (double_at (dec, i, FALSE), ==, out[i]);
  }
  /* integers wrap around; signed types widen with their sign */
  {
    static const guint8 in[] = { 0x2c, 0x01, 0, 0, 0xff, 0xff, 0xff, 0xff };   /* <i4 300, -1 */
    static const guint8 to_u1[] = { 44, 255 };
    static const guint8 to_u2be[] = { 0x01, 0x2c, 0xff, 0xff };
    static const guint8 i1[] = { 0xc8 };   /* -56 */
    static const guint8 to_u8be[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc8 };
    static const guint8 u1[] = { 0xc8 };   /* 200 */
    static const guint8 to_i2[] = { 0xc8, 0 };
    g_autoptr (GBytes) a = astype_run ("|u1", "<i4", TRUE, in, sizeof in);
    g_autoptr (GBytes) b = astype_run ("<i4", ">u2", FALSE, in, sizeof in);
    g_autoptr (GBytes) c = astype_run (">u8", "|i1", TRUE, i1, 1);
    g_autoptr (GBytes) d = astype_run ("|u1", "<i2", FALSE, u1, 1);

    g_assert_cmpmem (g_bytes_get_data (a, NULL), g_bytes_get_size (a), to_u1, sizeof to_u1);
    g_assert_cmpmem (g_bytes_get_data (b, NULL), g_bytes_get_size (b), to_u2be, sizeof to_u2be);
    g_assert_cmpmem (g_bytes_get_data (c, NULL), g_bytes_get_size (c), to_u8be, sizeof to_u8be);
    g_assert_cmpmem (g_bytes_get_data (d, NULL), g_bytes_get_size (d), to_i2, sizeof to_i2);
  }
  /* int64 to float32 in one rounding: 2^60 + 2^36 + 1 is above the
   * half-way point, though through float64 it would be a tie (to 2^60) */
  {
    gint64 v = GINT64_TO_LE ((G_GINT64_CONSTANT (1) << 60) + (G_GINT64_CONSTANT (1) << 36) + 1);
    guint64 u = GUINT64_TO_LE (G_MAXUINT64);
    g_autoptr (GBytes) f = astype_run ("<f4", "<i8", TRUE, &v, 8);
    g_autoptr (GBytes) g = astype_run ("<f8", "<u8", TRUE, &u, 8);

    g_assert_cmpfloat (float_at (f, 0, FALSE), ==, ldexp (1.0, 60) + ldexp (1.0, 37));
    g_assert_cmpfloat (double_at (g, 0, FALSE), ==, ldexp (1.0, 64));
  }
  /* float64 to float32 overflows to infinity, keeps NaN, -0 */
  {
    static const gdouble in[] = { 1e300, -1e300, NAN, -0.0, 0.1 };
    g_autoptr (GBytes) x = doubles_le (in, G_N_ELEMENTS (in));
    g_autoptr (GBytes) f = astype_run (">f4", "<f8", TRUE, g_bytes_get_data (x, NULL),
                                       g_bytes_get_size (x));

    g_assert_true (isinf (float_at (f, 0, TRUE)) && float_at (f, 0, TRUE) > 0);
    g_assert_true (isinf (float_at (f, 1, TRUE)) && float_at (f, 1, TRUE) < 0);
    g_assert_true (isnan (float_at (f, 2, TRUE)));
    g_assert_true (float_at (f, 3, TRUE) == 0 && signbit (float_at (f, 3, TRUE)));
    g_assert_cmpfloat (float_at (f, 4, TRUE), ==, 0.1f);
  }
  /* empty */
  {
    g_autoptr (GBytes) e = astype_run ("<f4", "<i8", TRUE, NULL, 0);
    g_assert_cmpuint (g_bytes_get_size (e), ==, 0);
  }
}

static void
test_astype_errors (void)
{
  static const struct { const char *enc, *dec; gboolean encode; gdouble value; } bad[] = {
    { "|i1", "<f8", TRUE, 128.0 }, { "|i1", "<f8", TRUE, -129.0 }, { "|u1", "<f8", TRUE, -1.0 },
    { "<i4", "<f8", TRUE, NAN }, { "<u8", "<f8", TRUE, INFINITY },
    { "<i8", "<f8", TRUE, 9223372036854775808.0 },
    /* decoding too: what a float encoding holds may not fit decode_dtype */
    { "<f8", ">i2", FALSE, 32768.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"id\": \"astype\", \"encode_dtype\": \"%s\", "
                                               "\"decode_dtype\": \"%s\"}", bad[i].enc,
                                               bad[i].dec);
      g_autoptr (GArray) working = NULL;
      g_autoptr (NczCodec) codec = codec_for_json (json, &working);
      gdouble values[2] = { 1.0, bad[i].value };
      g_autoptr (GBytes) input = doubles_le (values, 2);
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) out = bad[i].encode
        ? ncz_codec_encode (codec, (const guint *) working->data, working->len, input, &error)
        : ncz_codec_decode (codec, (const guint *) working->data, working->len, input, &error);
      g_autofree char *type = g_strdup_printf ("'%s'", bad[i].encode ? bad[i].enc : bad[i].dec);

      /* never a platform-dependent value: the chunk is refused */
      g_assert_null (out);
      g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "element 1"));
      g_assert_nonnull (strstr (error->message, type));
      g_assert_nonnull (strstr (error->message, json));
    }
  {
    g_autoptr (GArray) working = NULL;
    g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"astype\", \"encode_dtype\": "
                                                 "\"<f4\", \"decode_dtype\": \"<f8\"}",
                                                 &working);
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) odd = g_bytes_new ("abcdef", 6);
    g_autoptr (GBytes) out = ncz_codec_encode (codec, (const guint *) working->data,
                                               working->len, odd, &error);
    guint params[1] = { 0 };

    g_assert_null (out);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "'<f8'"));
    g_clear_error (&error);
    assert_decode_fails (codec, working, (const guint8 *) "abc", 3, NCZ_CODEC_ERROR_CORRUPT,
                         "'<f4'");
    out = ncz_codec_encode (codec, params, 1, odd, &error);
    g_assert_null (out);
    g_assert_error (error, NCZ_CODEC_ERROR, NCZ_CODEC_ERROR_BAD_PARAMETERS);
    g_assert_nonnull (strstr (error->message, "astype"));
  }
  assert_json_form ("{\"id\": \"astype\", \"encode_dtype\": \"i1\", \"decode_dtype\": \">f8\"}",
                    "{\"id\": \"astype\", \"encode_dtype\": \"|i1\", "
                    "\"decode_dtype\": \">f8\"}");
  assert_json_rejected ("astype", "{\"id\": \"astype\", \"encode_dtype\": \"<f4\"}",
                        "'decode_dtype' is missing");
  assert_json_rejected ("astype", "{\"id\": \"astype\", \"encode_dtype\": \"|b1\", "
                        "\"decode_dtype\": \"|u1\"}", "'|b1'");
  assert_json_rejected ("astype", "{\"id\": \"astype\", \"encode_dtype\": \"<f2\", "
                        "\"decode_dtype\": \"<f4\"}", "'<f2'");
}

/* ---- packbits ---- */

static void
test_packbits (void)
{
  g_autoptr (GArray) working = NULL;
  g_autoptr (NczCodec) codec = codec_for_json ("{\"id\": \"packbits\"}", &working);
  /* numcodecs' own example: true, false, false, true -> 4, 0x90; any
   * nonzero byte is true */
  static const guint8 four[] = { 1, 0, 0, 7 }, four_enc[] = { 4, 0x90 };
  static const guint8 nine[] = { 1, 1, 0, 1, 0, 0, 0, 1, 1 }, nine_enc[] = { 7, 0xd1, 0x80 };
  static const guint8 eight[] = { 0, 0, 0, 0, 0, 0, 0, 255 }, eight_enc[] = { 0, 0x01 };
  static const guint8 empty_enc[] = { 0 };
  static const struct { const guint8 *in; gsize n; const guint8 *enc; gsize n_enc; } known[] = {
    { four, 4, four_enc, 2 }, { nine, 9, nine_enc, 3 }, { eight, 8, eight_enc, 2 },
    { NULL, 0, empty_enc, 1 },
  };
  g_autofree char *text = ncz_codec_params_to_json_text (codec, NULL, 0, NULL);

  g_assert_cmpstr (text, ==, "{\"id\": \"packbits\"}");
  for (guint k = 0; k < G_N_ELEMENTS (known); k++)
    {
      g_autoptr (GBytes) input = g_bytes_new (known[k].in, known[k].n);
      g_autoptr (GBytes) enc = run (codec, working, TRUE, input);
      g_autoptr (GBytes) dec = run (codec, working, FALSE, enc);
      const guint8 *d = g_bytes_get_data (dec, NULL);

      g_assert_cmpmem (g_bytes_get_data (enc, NULL), g_bytes_get_size (enc), known[k].enc,
                       known[k].n_enc);
      g_assert_cmpuint (g_bytes_get_size (dec), ==, known[k].n);
      for (gsize i = 0; i < known[k].n; i++)
        g_assert_cmpuint (d[i], ==, known[k].in[i] != 0);
    }
  /* round trips of 0/1 bytes, every length to 40, and a long one */
  for (gsize n = 0; n <= 4001; n += n < 40 ? 1 : 3961)
    {
      g_autoptr (GBytes) raw = random_bytes (n, (guint32) n);
      g_autofree guint8 *bits = g_memdup2 (g_bytes_get_data (raw, NULL), n);
      g_autoptr (GBytes) input = NULL, enc = NULL, dec = NULL;

      for (gsize i = 0; i < n; i++)
        bits[i] &= 1;
      input = g_bytes_new (bits, n);
      enc = run (codec, working, TRUE, input);
      g_assert_cmpuint (g_bytes_get_size (enc), ==, 1 + (n + 7) / 8);
      dec = run (codec, working, FALSE, enc);
      assert_bytes_equal (dec, input);
    }
  /* padding bits left set are dropped */
  {
    static const guint8 set[] = { 3, 0xff };
    static const guint8 five[] = { 1, 1, 1, 1, 1 };
    g_autoptr (GBytes) input = g_bytes_new (set, 2);
    g_autoptr (GBytes) dec = run (codec, working, FALSE, input);
    g_assert_cmpmem (g_bytes_get_data (dec, NULL), g_bytes_get_size (dec), five, 5);
  }
  /* corrupt: no count byte, a count above 7, a count with no data */
  assert_decode_fails (codec, working, NULL, 0, NCZ_CODEC_ERROR_CORRUPT, "packbits");
  assert_decode_fails (codec, working, (const guint8 *) "\x08\xff", 2, NCZ_CODEC_ERROR_CORRUPT,
                       "packbits: padding count 8");
  assert_decode_fails (codec, working, (const guint8 *) "\x03", 1, NCZ_CODEC_ERROR_CORRUPT,
                       "packbits: padding count 3");
}

/* ---- numcodecs, both ways ---- */

static void
test_numcodecs (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-c-XXXXXX", &error);
  g_autoptr (GDir) d = NULL;
  const char *name;
  guint n_cases = 0;
  g_autoptr (NczDataset) vars = NULL;

  g_assert_no_error (error);
  if (!run_helper ("encode", dir))
    {
      remove_tree (dir);
      return;
    }
  vars = typed_variables (dir);
  d = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *json_text = NULL;
      g_autofree char *json_path = NULL;
      g_autofree char *ncz_path = NULL;
      g_autofree char *cname = NULL;
      g_autofree char *dtype_path = NULL;
      g_autofree char *dtype_text = NULL;
      g_autoptr (GArray) working = NULL;
      g_autoptr (NczCodec) codec = NULL;
      g_autoptr (GBytes) raw = NULL, enc = NULL, dec = NULL, mine = NULL, decoded = NULL;
      gsize n_mine, n_enc;
      const guint8 *p_mine, *p_enc;
      gboolean is_gzip;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      cname = g_strndup (name, strlen (name) - 5);
      json_path = g_build_filename (dir, name, NULL);
      g_assert_true (g_file_get_contents (json_path, &json_text, NULL, &error));
      dtype_path = g_strconcat (dir, G_DIR_SEPARATOR_S, cname, ".dtype", NULL);
      if (g_file_get_contents (dtype_path, &dtype_text, NULL, NULL))
        codec = codec_for_variable (json_text, typed_variable (vars, g_str_equal (dtype_text, "<f4")
                                                                     ? "f4" : "f8"), &working);
      else
        codec = codec_for_json (json_text, &working);
      is_gzip = g_str_equal (ncz_codec_get_codec_id (codec), "gzip");
      raw = read_file_bytes (dir, cname, ".raw");
      enc = read_file_bytes (dir, cname, ".enc");
      dec = read_file_bytes (dir, cname, ".dec");

      /* Ncz decodes what numcodecs wrote to what numcodecs decodes */
      decoded = run (codec, working, FALSE, enc);
      if (g_bytes_compare (decoded, dec) != 0)
        g_error ("%s: Ncz decodes numcodecs' encoding differently", cname);

      /* Ncz encodes to numcodecs' bytes (gzip: but for the time stamp) */
      mine = run (codec, working, TRUE, raw);
      p_mine = g_bytes_get_data (mine, &n_mine);
      p_enc = g_bytes_get_data (enc, &n_enc);
      if (n_mine != n_enc)
        g_error ("%s: Ncz encodes to %" G_GSIZE_FORMAT " bytes, numcodecs to %" G_GSIZE_FORMAT,
                 cname, n_mine, n_enc);
      for (gsize i = 0; i < n_mine; i++)
        if (p_mine[i] != p_enc[i] && !(is_gzip && i >= 4 && i < 8))
          g_error ("%s: Ncz's encoding differs from numcodecs' at byte %" G_GSIZE_FORMAT,
                   cname, i);

      ncz_path = g_strconcat (dir, G_DIR_SEPARATOR_S, cname, ".ncz", NULL);
      g_assert_true (g_file_set_contents (ncz_path, (const char *) p_mine, (gssize) n_mine, &error));
      g_assert_no_error (error);
      n_cases++;
    }
  g_test_message ("%u cases", n_cases);
  g_assert_cmpuint (n_cases, >=, 97 + 192 + 486 + 19);
  g_assert_true (ncz_dataset_close (vars, NULL, &error));
  g_assert_no_error (error);
  /* numcodecs decodes what Ncz wrote */
  run_helper ("check", dir);
  remove_tree (dir);
}

/* ---- datasets ---- */

static void
test_zarr_python_written (void)
{
  static const char *const names[] = {
    "delta_gzip", "delta_narrow", "delta_float", "gzip_only", "delta_be_2d", "checksums",
    "fso_f8_i2", "fso_f4_u1", "bitround_f4", "bitround_f8", "quantize_f8_f4", "quantize_f4be",
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-c-XXXXXX", &error);
  g_autofree char *url = NULL;
  g_autoptr (NczDataset) ds = NULL;

  g_assert_no_error (error);
  if (!run_helper ("write-zarr", dir))
    {
      remove_tree (dir);
      return;
    }
  url = g_strdup_printf ("file://%s/py.zarr#mode=zarr,file", dir);
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), names[i]);
      g_autoptr (GBytes) expected = read_file_bytes (dir, names[i], ".expect");
      g_autoptr (GBytes) values = NULL;
      g_autofree char *codecs = NULL;
      guint64 start[2] = { 0, 0 }, count[2] = { 0, 0 };
      guint rank;

      g_assert_nonnull (v);
      rank = ncz_variable_get_n_dimensions (v);
      for (guint k = 0; k < rank; k++)
        count[k] = ncz_dimension_get_length (ncz_variable_get_dimension (v, k));
      codecs = ncz_variable_get_codecs_json (v);
      g_test_message ("%s: %s", names[i], codecs);
      values = ncz_variable_read_bytes (v, start, rank, count, rank, NULL, 0, NULL, &error);
      g_assert_no_error (error);
      assert_bytes_equal (values, expected);
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  remove_tree (dir);
}

typedef struct {
  const char *name;
  NczDataType type;
  guint rank;
  guint64 shape[2];
  guint64 chunks[2];
  const char *filters[2];
  const char *codec_ids;
  gdouble tolerance;   /* lossy codecs: how far read values may be from written ones */
} NczWritten;

static void
fill_values (NczDataType type, gsize n, guint8 *data)
{
  for (gsize i = 0; i < n; i++)
    {
      gint64 w = (gint64) ((i * i) / 7) - 3000;
      switch (type)
        {
        case NCZ_DATA_TYPE_INT:
          ((gint32 *) data)[i] = (gint32) w;
          break;
        case NCZ_DATA_TYPE_SHORT:
          /* a triangle wave: differences fit the int8 of the delta's astype */
          ((gint16 *) data)[i] = (gint16) (ABS ((gint64) (i % 200) - 100) - 50);
          break;
        case NCZ_DATA_TYPE_UBYTE:
          /* booleans */
          data[i] = (guint8) (i % 3 == 0 || i % 7 == 1);
          break;
        case NCZ_DATA_TYPE_DOUBLE:
          ((gdouble *) data)[i] = (gdouble) ((gint64) (i % 1000) - 500) * 0.25;
          break;
        case NCZ_DATA_TYPE_FLOAT:
          ((gfloat *) data)[i] = (gfloat) (280.0 + 10.0 * sin ((gdouble) i / 30.0));
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

static void
test_ncz_written (void)
{
  static const NczWritten vars[] = {
    { "delta_gzip", NCZ_DATA_TYPE_INT, 1, { 1000 }, { 128 },
      { "{\"id\": \"delta\", \"dtype\": \"<i4\"}", "{\"id\": \"gzip\", \"level\": 5}" },
      "delta gzip" },
    { "delta_narrow", NCZ_DATA_TYPE_SHORT, 1, { 1000 }, { 100 },
      { "{\"id\": \"delta\", \"dtype\": \"<i2\", \"astype\": \"|i1\"}", "{\"id\": \"gzip\"}" },
      "delta gzip" },
    { "delta_double", NCZ_DATA_TYPE_DOUBLE, 1, { 777 }, { 333 },
      { "{\"id\": \"delta\", \"dtype\": \"<f8\"}", NULL }, "delta" },
    { "gzip_float", NCZ_DATA_TYPE_FLOAT, 1, { 1000 }, { 250 },
      { "{\"id\": \"gzip\", \"level\": 9}", NULL }, "gzip" },
    { "delta_2d", NCZ_DATA_TYPE_INT, 2, { 35, 23 }, { 10, 7 },
      { "{\"id\": \"delta\", \"dtype\": \"<i4\"}", "{\"id\": \"gzip\", \"level\": 1}" },
      "delta gzip" },
    { "checksums", NCZ_DATA_TYPE_INT, 1, { 1000 }, { 300 },
      { "{\"id\": \"crc32\"}", "{\"id\": \"adler32\"}" }, "crc32 adler32" },
    /* quarters scaled by 4 are whole numbers: exact */
    { "fso_double", NCZ_DATA_TYPE_DOUBLE, 1, { 1000 }, { 200 },
      { "{\"id\": \"fixedscaleoffset\", \"offset\": 0, \"scale\": 4, \"dtype\": \"<f8\", "
        "\"astype\": \"<i2\"}", "{\"id\": \"gzip\"}" }, "fixedscaleoffset gzip" },
    { "fso_float", NCZ_DATA_TYPE_FLOAT, 1, { 1000 }, { 250 },
      { "{\"id\": \"fixedscaleoffset\", \"offset\": 270, \"scale\": 100, \"dtype\": \"<f4\", "
        "\"astype\": \"<u2\"}", NULL }, "fixedscaleoffset", 0.005 + 1e-4 },
    /* 280 + 10 sin: 7 mantissa bits leave steps of 2, so errors up to 1 */
    { "bitround_float", NCZ_DATA_TYPE_FLOAT, 1, { 1000 }, { 250 },
      { "{\"id\": \"bitround\", \"keepbits\": 7}", "{\"id\": \"gzip\"}" }, "bitround gzip",
      1.0 + 1e-4 },
    /* 2 digits: a step of 2^-7, so errors up to 2^-8 */
    { "quantize_float", NCZ_DATA_TYPE_FLOAT, 1, { 1000 }, { 300 },
      { "{\"id\": \"quantize\", \"digits\": 2, \"dtype\": \"<f4\", \"astype\": \"<f8\"}",
        "{\"id\": \"gzip\"}" }, "quantize gzip", 1.0 / 256 + 1e-4 },
    /* quarters: exact in float32 */
    { "astype_double", NCZ_DATA_TYPE_DOUBLE, 1, { 777 }, { 333 },
      { "{\"id\": \"astype\", \"encode_dtype\": \"<f4\", \"decode_dtype\": \"<f8\"}",
        "{\"id\": \"gzip\"}" }, "astype gzip" },
    /* the triangle wave fits int8 */
    { "astype_short", NCZ_DATA_TYPE_SHORT, 1, { 1000 }, { 100 },
      { "{\"id\": \"astype\", \"encode_dtype\": \"|i1\", \"decode_dtype\": \"<i2\"}",
        NULL }, "astype" },
    { "packbits_ubyte", NCZ_DATA_TYPE_UBYTE, 2, { 35, 23 }, { 10, 7 },
      { "{\"id\": \"packbits\"}", "{\"id\": \"gzip\"}" }, "packbits gzip" },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ncz-codecs-c-XXXXXX", &error);
  g_autofree char *url = NULL;
  g_autoptr (NczDataset) ds = NULL;
  NczGroup *root;

  g_assert_no_error (error);
  url = g_strdup_printf ("file://%s/ncz.zarr#mode=zarr,file", dir);
  ds = ncz_dataset_create (url, NCZ_CREATE_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  root = ncz_dataset_get_root_group (ds);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const NczWritten *w = &vars[i];
      NczDimension *dims[2];
      NczVariable *v;
      gsize n = 1, size = ncz_data_type_get_size (w->type);
      g_autofree guint8 *data = NULL;
      g_autofree char *path = NULL;
      g_autofree char *codecs_path = NULL;
      guint64 start[2] = { 0, 0 };

      for (guint k = 0; k < w->rank; k++)
        {
          g_autofree char *dname = g_strdup_printf ("%s_d%u", w->name, k);
          dims[k] = ncz_group_add_dimension (root, dname, w->shape[k], FALSE, &error);
          g_assert_no_error (error);
          n *= w->shape[k];
        }
      v = ncz_group_add_variable (root, w->name, w->type, w->rank, dims, &error);
      g_assert_no_error (error);
      g_assert_true (ncz_variable_set_chunk_sizes (v, w->chunks, w->rank, &error));
      for (guint f = 0; f < 2 && w->filters[f] != NULL; f++)
        {
          g_assert_true (ncz_variable_add_filter_json (v, w->filters[f], &error));
          g_assert_no_error (error);
        }
      data = g_malloc (n * size);
      fill_values (w->type, n, data);
      g_assert_true (ncz_variable_write (v, start, w->rank, w->shape, w->rank, NULL, 0, data, n * size, NULL,
                                         &error));
      g_assert_no_error (error);
      if (w->tolerance == 0)
        {
          path = g_strdup_printf ("%s/%s.expect", dir, w->name);
          g_assert_true (g_file_set_contents (path, (const char *) data, (gssize) (n * size),
                                              &error));
        }
      codecs_path = g_strdup_printf ("%s/%s.codecs", dir, w->name);
      g_assert_true (g_file_set_contents (codecs_path, w->codec_ids, -1, &error));
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&ds);

  /* Ncz reads back what it wrote */
  ds = ncz_dataset_open (url, NCZ_OPEN_READ, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      NczVariable *v = ncz_group_get_variable (ncz_dataset_get_root_group (ds), vars[i].name);
      g_autoptr (GBytes) expected = NULL;
      guint64 start[2] = { 0, 0 };
      g_autoptr (GBytes) values = ncz_variable_read_bytes (v, start, vars[i].rank, vars[i].shape, vars[i].rank, NULL, 0, NULL, &error);
      g_assert_no_error (error);
      if (vars[i].tolerance == 0)
        {
          expected = read_file_bytes (dir, vars[i].name, ".expect");
          assert_bytes_equal (values, expected);
        }
      else
        {
          /* lossy: near the written values; zarr-python must read these */
          gsize n = vars[i].shape[0], size = ncz_data_type_get_size (vars[i].type);
          g_autofree guint8 *written = g_malloc (n * size);
          g_autofree char *path = g_strdup_printf ("%s/%s.expect", dir, vars[i].name);
          const gfloat *got = g_bytes_get_data (values, NULL);

          g_assert_cmpint (vars[i].type, ==, NCZ_DATA_TYPE_FLOAT);
          g_assert_cmpuint (g_bytes_get_size (values), ==, n * size);
          fill_values (vars[i].type, n, written);
          for (gsize k = 0; k < n; k++)
            g_assert_cmpfloat_with_epsilon (got[k], ((const gfloat *) written)[k],
                                            vars[i].tolerance);
          g_assert_true (g_file_set_contents (path, (const char *) got, (gssize) (n * size),
                                              &error));
        }
    }
  g_assert_true (ncz_dataset_close (ds, NULL, &error));

  /* and zarr-python reads it */
  run_helper ("read-zarr", dir);
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/codecs-c/gzip/format", test_gzip_format);
  g_test_add_func ("/codecs-c/gzip/roundtrip", test_gzip_roundtrip);
  g_test_add_func ("/codecs-c/gzip/decode-forms", test_gzip_decode_forms);
  g_test_add_func ("/codecs-c/gzip/corrupt", test_gzip_corrupt);
  g_test_add_func ("/codecs-c/gzip/json", test_gzip_json);
  g_test_add_func ("/codecs-c/delta/roundtrip", test_delta_roundtrip);
  g_test_add_func ("/codecs-c/delta/known", test_delta_known);
  g_test_add_func ("/codecs-c/delta/json", test_delta_json);
  g_test_add_func ("/codecs-c/delta/errors", test_delta_errors);
  g_test_add_func ("/codecs-c/checksums", test_checksums);
  g_test_add_func ("/codecs-c/fixedscaleoffset/known", test_fso_known);
  g_test_add_func ("/codecs-c/fixedscaleoffset/json", test_fso_json);
  g_test_add_func ("/codecs-c/fixedscaleoffset/errors", test_fso_errors);
  g_test_add_func ("/codecs-c/bitround", test_bitround);
  g_test_add_func ("/codecs-c/quantize/known", test_quantize_known);
  g_test_add_func ("/codecs-c/quantize/json", test_quantize_json);
  g_test_add_func ("/codecs-c/quantize/errors", test_quantize_errors);
  g_test_add_func ("/codecs-c/astype/known", test_astype_known);
  g_test_add_func ("/codecs-c/astype/errors", test_astype_errors);
  g_test_add_func ("/codecs-c/packbits", test_packbits);
  g_test_add_func ("/codecs-c/numcodecs", test_numcodecs);
  g_test_add_func ("/codecs-c/dataset/zarr-python-written", test_zarr_python_written);
  g_test_add_func ("/codecs-c/dataset/ncz-written", test_ncz_written);
  return g_test_run ();
}
