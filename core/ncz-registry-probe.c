/* ncz-registry-probe.c: choosing the format of a URL
 *
 * The registry chooses a dataset's format before any store is opened or
 * any module loaded, from what the formats claim (NczFormatProbe): the
 * format a URL names (`#format=NAME`, or a mode word such as `zarr`), else
 * a file's signature in one read of its first bytes, else the existence of
 * marker keys at the root of a store. Claims come from the modules
 * registered so far, then from the manifests, then from the known formats
 * table (so that an HDF5 file is recognised with no HDF5 module).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include <string.h>

#include "ncz-registry-private.h"

/* One read of at most this many bytes from the start of a file. */
#define PROBE_HEAD_MAX (64 * 1024)
#define SIGNATURE_MAX 64

/* Claims */

static void
format_claim_clear (gpointer data)
{
  NczFormatClaim *claim = data;

  g_free (claim->format);
  g_strfreev (claim->modes);
  g_clear_pointer (&claim->signature, g_bytes_unref);
  g_array_unref (claim->offsets);
  g_strfreev (claim->markers);
}

NczFormatClaim *
_ncz_format_claim_ref (NczFormatClaim *claim)
{
  return g_atomic_rc_box_acquire (claim);
}

void
_ncz_format_claim_unref (gpointer claim)
{
  g_atomic_rc_box_release_full (claim, format_claim_clear);
}

static NczFormatClaim *
format_claim_alloc (const char *format)
{
  NczFormatClaim *claim = g_atomic_rc_box_new0 (NczFormatClaim);

  claim->format = g_strdup (format);
  claim->offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  claim->needs_store = TRUE;
  return claim;
}

NczFormatClaim *
_ncz_format_claim_new (const char           *format,
                       const NczFormatProbe *probe)
{
  NczFormatClaim *claim = format_claim_alloc (format);

  claim->modes = probe->modes != NULL ? g_strdupv ((char **) probe->modes) : g_new0 (char *, 1);
  claim->markers = probe->markers != NULL ? g_strdupv ((char **) probe->markers)
                                          : g_new0 (char *, 1);
  if (probe->signature != NULL && probe->signature_length > 0)
    {
      claim->signature = g_bytes_new (probe->signature, probe->signature_length);
      for (gsize i = 0; i < probe->n_signature_offsets; i++)
        g_array_append_val (claim->offsets, probe->signature_offsets[i]);
      claim->offsets_double = probe->signature_offsets_double;
    }
  claim->needs_store = probe->needs_store;
  return claim;
}

static char **
keyfile_list (GKeyFile    *keyfile,
              const char  *group,
              const char  *key)
{
  char **list = g_key_file_get_string_list (keyfile, group, key, NULL, NULL);
  GPtrArray *out = g_ptr_array_new ();

  for (gsize i = 0; list != NULL && list[i] != NULL; i++)
    {
      char *item = g_strstrip (list[i]);

      if (*item != '\0')
        g_ptr_array_add (out, g_strdup (item));
    }
  g_strfreev (list);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

NczFormatClaim *
_ncz_format_claim_from_keyfile (GKeyFile    *keyfile,
                                const char  *format,
                                const char  *where,
                                GError     **error)
{
  g_autofree char *group = g_strconcat (NCZ_MANIFEST_FORMAT_GROUP_PREFIX, format, NULL);
  NczFormatClaim *claim = format_claim_alloc (format);
  g_autofree char *signature = NULL;
  g_auto(GStrv) offsets = NULL;
  g_autoptr(GError) local_error = NULL;

  claim->modes = keyfile_list (keyfile, group, "Modes");
  claim->markers = keyfile_list (keyfile, group, "Markers");
  for (gsize i = 0; claim->markers[i] != NULL; i++)
    if (!ncz_store_key_is_valid (claim->markers[i], FALSE, NULL))
      {
        g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                     "%s: [%s] key Markers: '%s' is not a store key",
                     where, group, claim->markers[i]);
        goto fail;
      }

  signature = g_key_file_get_string (keyfile, group, "Signature", NULL);
  if (signature != NULL)
    {
      gsize len = strlen (g_strstrip (signature));
      guint8 bytes[SIGNATURE_MAX];

      if (len == 0 || len % 2 != 0 || len / 2 > SIGNATURE_MAX)
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "%s: [%s] key Signature: '%s' is not 1 to %d bytes in hexadecimal",
                       where, group, signature, SIGNATURE_MAX);
          goto fail;
        }
      for (gsize i = 0; i < len / 2; i++)
        {
          int hi = g_ascii_xdigit_value (signature[2 * i]);
          int lo = g_ascii_xdigit_value (signature[2 * i + 1]);

          if (hi < 0 || lo < 0)
            {
              g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                           "%s: [%s] key Signature: '%s' is not hexadecimal",
                           where, group, signature);
              goto fail;
            }
          bytes[i] = (guint8) (hi * 16 + lo);
        }
      claim->signature = g_bytes_new (bytes, len / 2);

      offsets = keyfile_list (keyfile, group, "SignatureOffsets");
      for (gsize i = 0; offsets[i] != NULL; i++)
        {
          guint64 offset;

          if (strcmp (offsets[i], "...") == 0 && offsets[i + 1] == NULL && i > 0)
            {
              claim->offsets_double = TRUE;
              break;
            }
          if (!g_ascii_string_to_unsigned (offsets[i], 10, 0, G_MAXINT64, &offset, NULL) ||
              (claim->offsets->len > 0 &&
               offset <= g_array_index (claim->offsets, guint64, claim->offsets->len - 1)))
            {
              g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                           "%s: [%s] key SignatureOffsets: '%s' is not an offset larger "
                           "than the one before (or a final '...')", where, group, offsets[i]);
              goto fail;
            }
          g_array_append_val (claim->offsets, offset);
        }
      if (claim->offsets->len == 0)
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "%s: [%s] has a Signature but no SignatureOffsets", where, group);
          goto fail;
        }
    }

  if (g_key_file_has_key (keyfile, group, "NeedsStore", NULL))
    {
      claim->needs_store = g_key_file_get_boolean (keyfile, group, "NeedsStore", &local_error);
      if (local_error != NULL)
        {
          g_set_error (error, NCZ_PLUGIN_ERROR, NCZ_PLUGIN_ERROR_MANIFEST,
                       "%s: [%s] key NeedsStore: %s", where, group, local_error->message);
          goto fail;
        }
    }
  return claim;

fail:
  _ncz_format_claim_unref (claim);
  return NULL;
}

char **
_ncz_format_claim_describe (const NczFormatClaim *claim)
{
  GPtrArray *builder = g_ptr_array_new ();

  if (claim->modes[0] != NULL)
    {
      g_autofree char *list = g_strjoinv (";", claim->modes);

      g_ptr_array_add (builder, g_strconcat ("Modes=", list, NULL));
    }
  if (claim->signature != NULL)
    {
      gsize len;
      const guint8 *bytes = g_bytes_get_data (claim->signature, &len);
      GString *hex = g_string_new ("Signature=");
      GString *offsets = g_string_new ("SignatureOffsets=");

      for (gsize i = 0; i < len; i++)
        g_string_append_printf (hex, "%02x", bytes[i]);
      for (guint i = 0; i < claim->offsets->len; i++)
        g_string_append_printf (offsets, "%s%" G_GUINT64_FORMAT, i > 0 ? ";" : "",
                                g_array_index (claim->offsets, guint64, i));
      if (claim->offsets_double)
        g_string_append (offsets, ";...");
      g_ptr_array_add (builder, g_string_free (hex, FALSE));
      g_ptr_array_add (builder, g_string_free (offsets, FALSE));
    }
  if (claim->markers[0] != NULL)
    {
      g_autofree char *list = g_strjoinv (";", claim->markers);

      g_ptr_array_add (builder, g_strconcat ("Markers=", list, NULL));
    }
  g_ptr_array_add (builder, g_strdup_printf ("NeedsStore=%s",
                                                 claim->needs_store ? "true" : "false"));
  g_ptr_array_add (builder, NULL);
  return (char **) g_ptr_array_free (builder, FALSE);
}

/* Collecting the claims: registered, then manifests, then known; the
 * first claim of each format counts. */

static gboolean
has_claim_for (GPtrArray  *claims,
               const char *format)
{
  for (guint i = 0; i < claims->len; i++)
    if (strcmp (((NczFormatClaim *) g_ptr_array_index (claims, i))->format, format) == 0)
      return TRUE;
  return FALSE;
}

static gint
compare_registrations (gconstpointer a,
                       gconstpointer b)
{
  const NczRegistration *ra = *(NczRegistration * const *) a;
  const NczRegistration *rb = *(NczRegistration * const *) b;

  return rb->priority - ra->priority;
}

static GPtrArray *
collect_claims (NczRegistry *self)
{
  GPtrArray *claims = g_ptr_array_new_with_free_func (_ncz_format_claim_unref);
  g_autoptr(GPtrArray) regs = g_ptr_array_new ();
  GPtrArray *known = _ncz_known_format_claims ();
  GHashTableIter iter;
  gpointer key, value;

  g_rec_mutex_lock (&self->lock);
  _ncz_registry_ensure_scanned (self);

  g_hash_table_iter_init (&iter, self->registrations);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *list = value;

      for (guint i = 0; i < list->len; i++)
        {
          NczRegistration *reg = g_ptr_array_index (list, i);

          if (reg->kind == NCZ_FEATURE_FORMAT && reg->claim != NULL &&
              (reg->plugin == NULL || !reg->plugin->loading))
            g_ptr_array_add (regs, reg);
        }
    }
  g_ptr_array_sort (regs, compare_registrations);
  for (guint i = 0; i < regs->len; i++)
    {
      NczRegistration *reg = g_ptr_array_index (regs, i);

      if (!has_claim_for (claims, reg->claim->format))
        g_ptr_array_add (claims, _ncz_format_claim_ref (reg->claim));
    }
  for (guint i = 0; i < self->manifest_claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (self->manifest_claims, i);

      if (!has_claim_for (claims, claim->format))
        g_ptr_array_add (claims, _ncz_format_claim_ref (claim));
    }
  g_rec_mutex_unlock (&self->lock);

  for (guint i = 0; i < known->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (known, i);

      if (!has_claim_for (claims, claim->format))
        g_ptr_array_add (claims, _ncz_format_claim_ref (claim));
    }
  return claims;
}

static NczFormatClaim *
find_claim (GPtrArray  *claims,
            const char *format)
{
  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);

      if (strcmp (claim->format, format) == 0)
        return claim;
    }
  return NULL;
}

/* A format Ncz recognises but no module implements yet (the known table
 * names no module): choosing it is an error that says what was found. */
static gboolean
claim_is_unimplemented (NczRegistry    *self,
                        NczFormatClaim *claim)
{
  return claim->module != NULL && *claim->module == '\0' &&
         !ncz_registry_has_feature (self, NCZ_FEATURE_FORMAT, claim->format);
}

static char *
chosen (NczRegistry     *self,
        NczFormatClaim  *claim,
        const char      *url,
        const char      *found,
        char           **found_out,
        GError         **error)
{
  if (found_out != NULL)
    *found_out = g_strdup (found);
  if (claim_is_unimplemented (self, claim))
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
                   "%s: %s: this is format '%s', which Ncz recognises but no Ncz format "
                   "module reads yet", url, found, claim->format);
      return NULL;
    }
  return g_strdup (claim->format);
}

/**
 * ncz_registry_format_from_url:
 * @self: a registry
 * @url: a dataset URL
 *
 * The format @url names, without any I/O: the value of its `format` key
 * (`#format=hdf5`), else the format that claims one of the mode words
 * the URL wrote (`#mode=zarr` is `nczarr`; see ncz_url_get_given_mode()).
 *
 * Returns: (transfer full) (nullable): the format name, or %NULL when the
 *   URL names none and the format must be probed
 * Since: 1.0
 */
char *
ncz_registry_format_from_url (NczRegistry *self,
                              NczUrl      *url)
{
  g_autoptr(GPtrArray) claims = NULL;
  GFlagsClass *modes;
  const char *forced;
  NczUrlMode given;
  char *result = NULL;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);

  forced = ncz_url_get_fragment_value (url, "format");
  if (forced != NULL && *forced != '\0')
    return g_strdup (forced);

  given = ncz_url_get_given_mode (url) &
          ~(NCZ_URL_MODE_FILE | NCZ_URL_MODE_ZIP | NCZ_URL_MODE_S3);
  if (given == 0)
    return NULL;

  claims = collect_claims (self);
  modes = g_type_class_ref (NCZ_TYPE_URL_MODE);
  for (guint i = 0; i < modes->n_values && result == NULL; i++)
    {
      const GFlagsValue *flag = &modes->values[i];

      if (flag->value == 0 || (given & flag->value) == 0)
        continue;
      for (guint j = 0; j < claims->len && result == NULL; j++)
        {
          NczFormatClaim *claim = g_ptr_array_index (claims, j);

          if (g_strv_contains ((const char * const *) claim->modes, flag->value_nick))
            result = g_strdup (claim->format);
        }
    }
  g_type_class_unref (modes);
  return result;
}

/**
 * ncz_registry_format_needs_store:
 * @self: a registry
 * @name: a format name
 *
 * Whether the format reads and writes through an #NczStore (NCZarr), or
 * opens its file itself (HDF5), as its probe claims. A format that
 * claims nothing is taken to need a store.
 *
 * Returns: %TRUE if the format needs a store
 * Since: 1.0
 */
gboolean
ncz_registry_format_needs_store (NczRegistry *self,
                                 const char  *name)
{
  g_autoptr(GPtrArray) claims = NULL;
  NczFormatClaim *claim;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), TRUE);
  g_return_val_if_fail (name != NULL, TRUE);

  claims = collect_claims (self);
  claim = find_claim (claims, name);
  return claim == NULL || claim->needs_store;
}

/**
 * ncz_registry_describe_format_probe:
 * @self: a registry
 * @name: a format name
 *
 * What the format claims, as the `KEY=VALUE` lines of its manifest's
 * `[Format NAME]` group (`Modes`, `Signature`, `SignatureOffsets`,
 * `Markers`, `NeedsStore`; see docs/plugins.md): from the module if it
 * registered a probe, else from its manifest, else from the known formats
 * table. No module is loaded.
 *
 * Returns: (transfer full) (array zero-terminated=1) (nullable): the
 *   lines, or %NULL if nothing claims the format
 * Since: 1.0
 */
char **
ncz_registry_describe_format_probe (NczRegistry *self,
                                    const char  *name)
{
  g_autoptr(GPtrArray) claims = NULL;
  NczFormatClaim *claim;

  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  claims = collect_claims (self);
  claim = find_claim (claims, name);
  return claim != NULL ? _ncz_format_claim_describe (claim) : NULL;
}

static char *probe_store (NczRegistry *self, NczStore *store, const char *url,
                          GCancellable *cancellable, char **found_out, GError **error);
static char *probe_stream (NczRegistry *self, GInputStream *stream, const char *url,
                           GCancellable *cancellable, char **found_out, GError **error);

/* Probing a store: existence checks of marker keys */

/**
 * ncz_registry_probe_store:
 * @self: a registry
 * @store: a store open for reading
 * @url: (nullable): the URL shown in errors
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Chooses the format of the dataset in @store by checking whether the
 * marker keys the formats claim exist at its root: one existence check
 * per marker, in claim order, stopping at the first found (an NCZarr or
 * Zarr v2 store costs one check). Nothing is read and no module loaded.
 *
 * Returns: (transfer full): the format name, or %NULL with @error set:
 *   %NCZ_DATASET_ERROR_NOT_NCZ naming the markers looked for when none
 *   exists, or naming the marker found when it marks a format no module
 *   reads yet (Zarr v3's `zarr.json`)
 * Since: 1.0
 */
char *
ncz_registry_probe_store (NczRegistry   *self,
                          NczStore      *store,
                          const char    *url,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return probe_store (self, store, url, cancellable, NULL, error);
}

static char *
probe_store (NczRegistry   *self,
             NczStore      *store,
             const char    *url,
             GCancellable  *cancellable,
             char         **found_out,
             GError       **error)
{
  g_autoptr(GPtrArray) claims = NULL;
  g_autoptr(GHashTable) checked = NULL;
  GString *looked_for;

  if (url == NULL)
    url = "the store";
  claims = collect_claims (self);
  checked = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);

      for (gsize j = 0; claim->markers[j] != NULL; j++)
        {
          const char *marker = claim->markers[j];
          g_autoptr(GError) local_error = NULL;

          if (!g_hash_table_add (checked, (gpointer) marker))
            continue;
          if (ncz_store_exists (store, marker, cancellable, &local_error))
            {
              g_autofree char *found = g_strdup_printf ("found %s", marker);

              return chosen (self, claim, url, found, found_out, error);
            }
          if (local_error != NULL)
            {
              g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                          "%s: checking for %s: ", url, marker);
              return NULL;
            }
        }
    }

  looked_for = g_string_new (NULL);
  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);
      g_autofree char *list = NULL;

      if (claim->markers[0] == NULL)
        continue;
      list = g_strjoinv (", ", claim->markers);
      g_string_append_printf (looked_for, "%s%s (%s)", looked_for->len > 0 ? "; " : "",
                              list, claim->format);
    }
  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
               "%s: no format claims this store: none of the marker keys %s exists at its root",
               url, looked_for->len > 0 ? looked_for->str : "(none claimed)");
  g_string_free (looked_for, TRUE);
  return NULL;
}

/* Probing a file: one read of its first bytes */

/* The offsets where @claim's signature may lie within @head_len bytes,
 * in order; iterates with *state (start at 0). */
static gboolean
next_offset (NczFormatClaim *claim,
             guint          *index,
             guint64        *offset)
{
  if (*index < claim->offsets->len)
    {
      *offset = g_array_index (claim->offsets, guint64, (*index)++);
      return TRUE;
    }
  if (!claim->offsets_double || claim->offsets->len == 0)
    return FALSE;
  if (*index == claim->offsets->len)
    {
      /* first doubling: from the last listed offset */
      *offset = g_array_index (claim->offsets, guint64, claim->offsets->len - 1);
      if (*offset == 0)
        return FALSE;
      (*index)++;
    }
  if (*offset > G_MAXUINT64 / 2)
    return FALSE;
  *offset *= 2;
  return TRUE;
}

static gsize
head_size (GPtrArray *claims)
{
  gsize size = 0;

  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);
      gsize sig_len;
      guint64 last;

      if (claim->signature == NULL)
        continue;
      sig_len = g_bytes_get_size (claim->signature);
      if (claim->offsets_double)
        return PROBE_HEAD_MAX;
      last = g_array_index (claim->offsets, guint64, claim->offsets->len - 1);
      if (last + sig_len > size)
        size = MIN (last + sig_len, PROBE_HEAD_MAX);
    }
  return size;
}

static void
append_offsets (GString        *out,
                NczFormatClaim *claim,
                gsize           head_len)
{
  guint index = 0;
  guint64 offset = 0;
  gsize sig_len = g_bytes_get_size (claim->signature);
  gboolean first = TRUE;

  while (next_offset (claim, &index, &offset) && offset + sig_len <= MAX (head_len, sig_len))
    {
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, first ? "" : ", ", offset);
      first = FALSE;
    }
  if (first)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT,
                            g_array_index (claim->offsets, guint64, 0));
}

/**
 * ncz_registry_probe_stream:
 * @self: a registry
 * @stream: the start of a file
 * @url: (nullable): the URL shown in errors
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Chooses the format of a file from the signatures the formats claim,
 * with one read of its first bytes (as many as the claimed offsets need,
 * at most 64 KiB: HDF5's signature at 0, 512, 1024, ... 32768). Only the
 * bytes that one read returns are probed. No module is loaded.
 *
 * Returns: (transfer full): the format name, or %NULL with @error set
 *   (%NCZ_DATASET_ERROR_NOT_NCZ naming the signatures and offsets looked
 *   for)
 * Since: 1.0
 */
char *
ncz_registry_probe_stream (NczRegistry   *self,
                           GInputStream  *stream,
                           const char    *url,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return probe_stream (self, stream, url, cancellable, NULL, error);
}

static char *
probe_stream (NczRegistry   *self,
              GInputStream  *stream,
              const char    *url,
              GCancellable  *cancellable,
              char         **found_out,
              GError       **error)
{
  g_autoptr(GPtrArray) claims = NULL;
  g_autofree guint8 *head = NULL;
  GString *looked_for;
  gsize size, n_read = 0;

  if (url == NULL)
    url = "the file";
  claims = collect_claims (self);
  size = MAX (head_size (claims), 4);  /* 4: netCDF classic signatures */
  head = g_malloc (MAX (size, 1));
  /* One request: what a single read returns is what is probed (a local
   * file gives all it has up to @size). */
  if (size > 0)
    {
      gssize got = g_input_stream_read (stream, head, size, cancellable, error);

      if (got < 0)
        {
          g_prefix_error (error, "%s: reading its first bytes: ", url);
          return NULL;
        }
      n_read = (gsize) got;
    }

  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);
      gsize sig_len;
      const guint8 *sig;
      guint index = 0;
      guint64 offset = 0;

      if (claim->signature == NULL)
        continue;
      sig = g_bytes_get_data (claim->signature, &sig_len);
      while (next_offset (claim, &index, &offset) && offset + sig_len <= n_read)
        if (memcmp (head + offset, sig, sig_len) == 0)
          {
            g_autofree char *found =
              g_strdup_printf ("found the signature of format '%s' at offset %" G_GUINT64_FORMAT,
                               claim->format, offset);

            return chosen (self, claim, url, found, found_out, error);
          }
    }

  if (n_read >= 4 && memcmp (head, "CDF", 3) == 0 &&
      (head[3] == 1 || head[3] == 2 || head[3] == 5))
    {
      static const char * const names[] = {
        NULL, "netCDF classic (CDF-1)", "netCDF 64-bit offset (CDF-2)", NULL, NULL,
        "netCDF 64-bit data (CDF-5)",
      };

      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
                   "%s is a %s file, which Ncz does not read: it reads netCDF-4 (HDF5) "
                   "files and NCZarr/Zarr stores (nccopy -k nc4 converts it)",
                   url, names[head[3]]);
      return NULL;
    }

  if (n_read >= 4 && memcmp (head, "CDF", 3) == 0 &&
      (head[3] == 1 || head[3] == 2 || head[3] == 5))
    {
      static const char * const names[] = {
        NULL, "netCDF classic (CDF-1)", "netCDF 64-bit offset (CDF-2)", NULL, NULL,
        "netCDF 64-bit data (CDF-5)",
      };

      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
                   "%s is a %s file, which Ncz does not read: it reads netCDF-4 (HDF5) "
                   "files and NCZarr/Zarr stores (nccopy -k nc4 converts it)",
                   url, names[head[3]]);
      return NULL;
    }

  looked_for = g_string_new (NULL);
  for (guint i = 0; i < claims->len; i++)
    {
      NczFormatClaim *claim = g_ptr_array_index (claims, i);
      gsize sig_len;
      const guint8 *sig;

      if (claim->signature == NULL)
        continue;
      sig = g_bytes_get_data (claim->signature, &sig_len);
      g_string_append_printf (looked_for, "%s%s signature ", looked_for->len > 0 ? "; " : "",
                              claim->format);
      for (gsize j = 0; j < sig_len; j++)
        g_string_append_printf (looked_for, "%02x", sig[j]);
      g_string_append (looked_for, " at offset ");
      append_offsets (looked_for, claim, n_read);
    }
  g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_NOT_NCZ,
               "%s: no format claims this file: looked for %s in its first %" G_GSIZE_FORMAT
               " bytes (a directory or a store holds NCZarr and Zarr datasets)",
               url, looked_for->len > 0 ? looked_for->str : "no signature (none claimed)",
               n_read);
  g_string_free (looked_for, TRUE);
  return NULL;
}

/* Whether the URL is a local regular file that is not a zip archive: a
 * file probed by its signature rather than a store. */
gboolean
_ncz_url_is_plain_file (NczUrl *url)
{
  const char *path = ncz_url_get_local_path (url);

  return path != NULL && g_strcmp0 (ncz_url_get_storage (url), "file") == 0 &&
         g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/**
 * ncz_registry_choose_format:
 * @self: a registry
 * @url: a dataset URL
 * @store: (nullable): the dataset's store if it is open already
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Chooses the format of an existing dataset: the one @url names
 * (ncz_registry_format_from_url()); else for a local file that is not a
 * store, the one whose signature its first bytes hold
 * (ncz_registry_probe_stream()); else the one whose marker keys exist in
 * the store (@store, or the store of @url opened for reading and closed
 * again; ncz_registry_probe_store()). Nothing falls back to a default
 * format, and no module is loaded.
 *
 * Returns: (transfer full): the format name, or %NULL with @error set
 * Since: 1.0
 */
char *
ncz_registry_choose_format (NczRegistry   *self,
                            NczUrl        *url,
                            NczStore      *store,
                            GCancellable  *cancellable,
                            GError       **error)
{
  g_return_val_if_fail (NCZ_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (NCZ_IS_URL (url), NULL);
  g_return_val_if_fail (store == NULL || NCZ_IS_STORE (store), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _ncz_registry_choose_format_full (self, url, store, cancellable, NULL, error);
}

char *
_ncz_registry_choose_format_full (NczRegistry   *self,
                                  NczUrl        *url,
                                  NczStore      *store,
                                  GCancellable  *cancellable,
                                  char         **found_out,
                                  GError       **error)
{
  g_autoptr(NczStore) opened = NULL;
  char *name;

  name = ncz_registry_format_from_url (self, url);
  if (name != NULL)
    return name;

  if (store == NULL && _ncz_url_is_plain_file (url))
    {
      g_autoptr(GFile) file = g_file_new_for_path (ncz_url_get_local_path (url));
      g_autoptr(GFileInputStream) stream = g_file_read (file, cancellable, error);

      if (stream == NULL)
        {
          g_prefix_error (error, "%s: ", ncz_url_get_original (url));
          return NULL;
        }
      return probe_stream (self, G_INPUT_STREAM (stream), ncz_url_get_original (url),
                           cancellable, found_out, error);
    }

  if (store == NULL)
    {
      opened = ncz_registry_open_store (self, url, NCZ_STORE_READ, cancellable, error);
      if (opened == NULL)
        return NULL;
      store = opened;
    }
  return probe_store (self, store, ncz_url_get_original (url), cancellable, found_out, error);
}
