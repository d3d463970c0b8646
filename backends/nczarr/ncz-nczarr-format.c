/* ncz-nczarr-format.c: the NCZarr / Zarr v2 format backend
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "nczarr-private.h"

/*
 * NczNczarrFormat:
 *
 * Reads every NCZarr layout netcdf-c has written and plain Zarr v2, and
 * writes NCZarr (metadata keys inside .zgroup/.zarray, the default, or as
 * attributes in .zattrs with the URL fragment `layout=attributes`) or
 * plain Zarr (`mode=zarr`).
 *
 * URL fragment keys understood besides `mode`:
 * - `layout=keys|attributes|keys-upper`: the NCZarr layout written:
 *   `keys` (default for new datasets) puts the NCZarr keys inside
 *   .zgroup/.zarray as netcdf-c 4.9.1-4.9.2 do, `attributes` puts them in
 *   .zattrs as netcdf-c 4.9.3+ do, `keys-upper` (alias `netcdf-4.9.0`)
 *   writes the upper-case keys and "<U1" chars netcdf-c 4.9.0 reads. An
 *   existing dataset keeps its own layout unless one is asked for.
 * - `anonymous_dim_prefix=<text>`: the name prefix of dimensions made up
 *   for unnamed Zarr axes (default `_Anonymous_Dim_`, as netcdf-c 4.9.3;
 *   netcdf-c 4.9.0-4.9.2 used `_zdim_`)
 * - `dimension_separator=.|/`: the chunk key separator of new arrays
 * - `json=ascii|utf-8`: how metadata text outside ASCII is written:
 *   `ascii` escapes every such character (`\u00e9`, a surrogate pair
 *   beyond U+FFFF), as zarr-python writes and as zarr-python before 2.14
 *   must read; `utf-8` writes it as it is, as netcdf-c writes, the only
 *   form netcdf-c reads (it does not decode `\u` escapes). The default
 *   is `ascii` for pure Zarr and `utf-8` for the NCZarr layouts.
 *
 * Reading, where netcdf-c's behaviour is not followed:
 * - unnamed Zarr axes become root-group dimensions `<prefix><length>`;
 *   `_ARRAY_DIMENSIONS` names become root-group dimensions, except that a
 *   name an enclosing group already uses with another length is defined
 *   in the array's own group. Two arrays of one group giving one name two
 *   lengths is an error naming both arrays (netcdf-c 4.9.0 truncated).
 *   An `_ARRAY_DIMENSIONS` whose length differs from the rank is ignored;
 *   `["_scalar_"]` on shape [1] marks a scalar.
 * - shape [] (zarr-python 0-d arrays) is a scalar with chunk key "0".
 * - "order": "F" chunks are transposed; ">" dtypes are byte-swapped
 *   (netcdf-c 4.9.0 wrote ">i4" with little-endian bytes: such data read
 *   as the dtype says, like zarr-python does).
 * - "<U1" is a one-byte char only in stores netcdf-c wrote (a root
 *   `_NCProperties` or NCZarr metadata); other dtypes outside integers,
 *   f4/f8 and "S<n>" fail the open with NCZ_BACKEND_ERROR_UNSUPPORTED.
 * - an array or group listed in NCZarr metadata without its .zarray or
 *   .zgroup (stores left half-written by netcdf-c 4.9.0) fails the open.
 * - attribute values without a types map: integers take the first of
 *   int, uint, int64, uint64 that holds every value, any real makes the
 *   attribute double, booleans are ubyte; strings, objects, null, mixed
 *   and nested arrays become char text (JSON as netcdf-c prints it); `[]`
 *   becomes an empty char attribute (netcdf-c fails the open).
 * - a fill_value equal to netcdf-c's default fill (floats compared at
 *   the six digits netcdf-c prints) is not a user fill value.
 * - pure Zarr: fill_value is the _FillValue only of arrays with
 *   _ARRAY_DIMENSIONS (xarray's); for others it only fills unwritten
 *   chunks (docs/fill-values.md).
 *
 * Writing: char text is stored as raw JSON only when it is a JSON object
 * or an array holding arrays or objects, so that text such as "42" or
 * "[1, 2]" reads back unchanged; floats are written with the digits that
 * read back exactly; "S" fill values other than NUL are base64 as Zarr
 * requires; codec parameters are JSON numbers. Unlimited dimensions are
 * written as {"size": n, "unlimited": 1} in the `attributes` layout
 * (netcdf-c 4.9.3+); netcdf-c before 4.9.3 fails or crashes on that form,
 * so `keys` and `keys-upper` write the plain length and list the names
 * under "ncz_unlimited" in the group information, which Ncz reads back
 * and those versions ignore. Each
 * metadata object is written only when its text changed; NCZarr V1
 * datasets open read-only.
 */
/* the `json` URL fragment key */
typedef enum {
  NCZARR_JSON_TEXT_DEFAULT,   /* ascii for pure Zarr, utf-8 for NCZarr */
  NCZARR_JSON_TEXT_ASCII,
  NCZARR_JSON_TEXT_UTF8,
} NczarrJsonText;

struct _NczNczarrFormat
{
  GObject parent_instance;

  NczUrl *url;
  NczStore *store;
  char *anon_prefix;

  NczarrLayout layout;        /* of the store as opened, or as created */
  NczarrLayout write_layout;
  gboolean convert_pending;   /* rewrite every object on the next change */
  char *ncproperties;
  gboolean ncproperties_found;  /* the store had _NCProperties */
  char separator;
  NczarrJsonText json_text;

  GMutex lock;                /* protects @written */
  GHashTable *written;        /* key -> text last written (or read) */

  /* opened for writing: other writers may share the dataset, so a sync
   * stores this writer's changes merged into what is stored now, under
   * the store's metadata lock (nczarr-merge.c) */
  gboolean shared;
  gint64 lock_timeout_ms;
};

enum {
  PROP_0,
  PROP_URL,
  PROP_STORE,
  PROP_ANONYMOUS_DIM_PREFIX,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void ncz_nczarr_format_iface_init (NczFormatInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NczNczarrFormat, ncz_nczarr_format, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT,
                                                      ncz_nczarr_format_iface_init))

/* ---- per-variable state ---- */

/* Looked up once (chunk workers reach it at the same time). */
static GQuark
var_info_quark (void)
{
  static gsize quark;
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("ncz-nczarr-var-info"));
  return (GQuark) quark;
}

NczarrVarInfo *
nczarr_var_info_peek (NczVariable *variable)
{
  return g_object_get_qdata (G_OBJECT (variable), var_info_quark ());
}

NczarrVarInfo *
nczarr_var_info_ensure (NczVariable *variable, char separator)
{
  static GMutex lock;
  NczarrVarInfo *info;

  g_mutex_lock (&lock);
  info = g_object_get_qdata (G_OBJECT (variable), var_info_quark ());
  if (info == NULL)
    {
      info = g_new0 (NczarrVarInfo, 1);
      info->separator = separator;
      g_object_set_qdata_full (G_OBJECT (variable), var_info_quark (), info, g_free);
    }
  g_mutex_unlock (&lock);
  return info;
}

char *
nczarr_key_join (const char *prefix, const char *name)
{
  if (prefix == NULL || *prefix == '\0')
    return g_strdup (name);
  return g_strconcat (prefix, "/", name, NULL);
}

static char *
strip_root (char *full)
{
  if (full[0] == '/')
    memmove (full, full + 1, strlen (full));
  return full;
}

char *
nczarr_variable_key (NczVariable *variable)
{
  return strip_root (ncz_variable_get_full_name (variable));
}

char *
nczarr_group_key (NczGroup *group)
{
  return strip_root (ncz_group_get_full_name (group));
}

NczUrl *
nczarr_format_peek_url (NczNczarrFormat *self)
{
  return self->url;
}

NczStore *
nczarr_format_peek_store (NczNczarrFormat *self)
{
  return self->store;
}

const char *
ncz_nczarr_format_get_layout (NczNczarrFormat *self)
{
  g_return_val_if_fail (NCZ_IS_NCZARR_FORMAT (self), NULL);
  return nczarr_layout_name (self->layout);
}

/* ---- options from the URL ---- */

static const char *
fragment (NczNczarrFormat *self, const char *key)
{
  return self->url ? ncz_url_get_fragment_value (self->url, key) : NULL;
}

static gboolean
url_pure_zarr (NczNczarrFormat *self)
{
  return self->url && ncz_url_is_pure_zarr (self->url);
}

static gboolean
url_xarray (NczNczarrFormat *self)
{
  return self->url == NULL || ncz_url_use_xarray (self->url);
}

const char *
nczarr_format_location (NczNczarrFormat *self)
{
  return self->url ? ncz_url_get_original (self->url) : "(store)";
}

static const char *
location (NczNczarrFormat *self)
{
  return nczarr_format_location (self);
}

/* The layout to write when the URL does not ask for one. */
static gboolean
requested_layout (NczNczarrFormat *self, NczarrLayout *layout, GError **error)
{
  const char *l = fragment (self, "layout");

  if (url_pure_zarr (self))
    {
      *layout = NCZARR_LAYOUT_PURE;
      return TRUE;
    }
  if (l == NULL || *l == '\0')
    return FALSE;
  if (g_str_equal (l, "attributes"))
    *layout = NCZARR_LAYOUT_ATTRIBUTES;
  else if (g_str_equal (l, "keys"))
    *layout = NCZARR_LAYOUT_KEYS;
  else if (g_str_equal (l, "keys-upper") || g_str_equal (l, "netcdf-4.9.0"))
    *layout = NCZARR_LAYOUT_KEYS_UPPER;
  else
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "%s: unknown layout \"%s\" (use \"keys\", \"attributes\" or \"keys-upper\")",
                   location (self), l);
      return FALSE;
    }
  return TRUE;
}

static gboolean consolidated_option (NczNczarrFormat *self, gboolean otherwise,
                                     gboolean *out, GError **error);

/* The `json=ascii|utf-8` fragment key. */
static gboolean
json_text_option (NczNczarrFormat *self, NczarrJsonText *out, GError **error)
{
  const char *v = fragment (self, "json");

  if (v == NULL || *v == '\0')
    *out = NCZARR_JSON_TEXT_DEFAULT;
  else if (g_ascii_strcasecmp (v, "ascii") == 0)
    *out = NCZARR_JSON_TEXT_ASCII;
  else if (g_ascii_strcasecmp (v, "utf-8") == 0 || g_ascii_strcasecmp (v, "utf8") == 0)
    *out = NCZARR_JSON_TEXT_UTF8;
  else
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "%s: json must be \"ascii\" or \"utf-8\", not \"%s\"", location (self), v);
      return FALSE;
    }
  return TRUE;
}

static gboolean
setup_write_options (NczNczarrFormat *self, GError **error)
{
  const char *sep = fragment (self, "dimension_separator");
  gboolean consolidated;

  if (!consolidated_option (self, FALSE, &consolidated, error))
    return FALSE;

  if (sep == NULL || *sep == '\0' || g_str_equal (sep, "."))
    self->separator = '.';
  else if (g_str_equal (sep, "/"))
    self->separator = '/';
  else
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "%s: dimension_separator must be \".\" or \"/\"", location (self));
      return FALSE;
    }
  return json_text_option (self, &self->json_text, error);
}

/* The `consolidated=true|false` fragment key: whether .zmetadata is read
 * and written; @otherwise when the URL does not say. */
static gboolean
consolidated_option (NczNczarrFormat *self, gboolean otherwise, gboolean *out, GError **error)
{
  const char *v = fragment (self, "consolidated");

  if (v == NULL)
    *out = otherwise;
  else if (*v == '\0' || g_ascii_strcasecmp (v, "true") == 0 || g_str_equal (v, "1"))
    *out = TRUE;
  else if (g_ascii_strcasecmp (v, "false") == 0 || g_str_equal (v, "0"))
    *out = FALSE;
  else
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_BAD_URL,
                   "%s: consolidated must be 'true' or 'false', not '%s'", location (self), v);
      return FALSE;
    }
  return TRUE;
}

/* .zmetadata is written unless the URL says otherwise: for pure Zarr, as
 * zarr-python does, and on a remote store, where it makes an open one
 * request; NCZarr on a local store lists its children in its own
 * metadata and does without. */
static gboolean
consolidate_by_default (NczNczarrFormat *self)
{
  return self->write_layout == NCZARR_LAYOUT_PURE ||
         (self->store != NULL && ncz_store_is_remote (self->store));
}

static char *
default_ncproperties (void)
{
  return g_strdup ("version=2,ncz=" NCZ_VERSION_STRING ",nczarr=" NCZARR_VERSION);
}

/* ---- metadata bookkeeping ---- */

static gboolean
ascii_json (NczNczarrFormat *self)
{
  /* pure Zarr as zarr-python writes it, NCZarr as netcdf-c writes it */
  return self->json_text == NCZARR_JSON_TEXT_ASCII ||
         (self->json_text == NCZARR_JSON_TEXT_DEFAULT &&
          self->write_layout == NCZARR_LAYOUT_PURE);
}

static void
build (NczNczarrFormat *self, NczDataset *dataset, GPtrArray *keys, GPtrArray *texts)
{
  NczarrWriteOptions o = { 0 };

  o.layout = self->write_layout;
  o.xarray = url_xarray (self);
  o.ncproperties = self->ncproperties;
  o.default_separator = self->separator;
  o.ascii_json = ascii_json (self);
  /* .zmetadata: on for pure Zarr, off for NCZarr unless asked (the URL
   * was checked when the dataset was opened or created) */
  consolidated_option (self, consolidate_by_default (self), &o.consolidated, NULL);
  nczarr_build_metadata (dataset, &o, keys, texts);
}

static void
remember_metadata (NczNczarrFormat *self, NczDataset *dataset)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();

  build (self, dataset, keys, texts);
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < keys->len; i++)
    g_hash_table_replace (self->written, g_strdup (g_ptr_array_index (keys, i)),
                          g_ptr_array_index (texts, i));
  g_mutex_unlock (&self->lock);
}

/* ---- NczFormat ---- */

static const char *
nczarr_get_name (NczFormat *format)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  return self->write_layout == NCZARR_LAYOUT_PURE ? "zarr" : "nczarr";
}

static gboolean
nczarr_open (NczFormat *format, NczDataset *dataset, GCancellable *cancellable,
             GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  g_autoptr(GHashTable) owners = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GError) local = NULL;
  NczarrReader r = { 0 };
  NczarrLayout requested;

  if (self->store == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "%s: the NCZarr format needs a store", location (self));
      return FALSE;
    }
  if (!setup_write_options (self, error))
    return FALSE;

  r.format = self;
  r.dataset = dataset;
  r.store = self->store;
  r.url = self->url;
  r.cancellable = cancellable;
  r.pure = url_pure_zarr (self);
  r.xarray = url_xarray (self);
  r.anon_prefix = self->anon_prefix;
  r.dim_owner = owners;
  if (!consolidated_option (self, TRUE, &r.use_consolidated, error))
    return FALSE;
  r.trust_consolidated = ncz_store_is_remote (self->store);
  r.read_ahead = ncz_store_is_remote (self->store);

  if (!nczarr_read_dataset (&r, &local))
    {
      g_clear_pointer (&r.consolidated, g_hash_table_unref);
      g_clear_pointer (&r.listings, g_hash_table_unref);
      g_clear_pointer (&r.prefetched, g_hash_table_unref);
      g_free (r.ncproperties);
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", location (self));
      return FALSE;
    }
  g_clear_pointer (&r.consolidated, g_hash_table_unref);
  g_clear_pointer (&r.listings, g_hash_table_unref);
  g_clear_pointer (&r.prefetched, g_hash_table_unref);
  self->layout = r.layout;
  self->ncproperties_found = r.ncproperties != NULL;
  self->ncproperties = r.ncproperties ? r.ncproperties : default_ncproperties ();

  if (!requested_layout (self, &requested, &local))
    {
      if (local)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      switch (self->layout)
        {
        case NCZARR_LAYOUT_PURE: requested = NCZARR_LAYOUT_PURE; break;
        case NCZARR_LAYOUT_ATTRIBUTES: requested = NCZARR_LAYOUT_ATTRIBUTES; break;
        case NCZARR_LAYOUT_KEYS_UPPER: requested = NCZARR_LAYOUT_KEYS_UPPER; break;
        case NCZARR_LAYOUT_V1:
        case NCZARR_LAYOUT_KEYS:
        default:
          requested = NCZARR_LAYOUT_KEYS;
          break;
        }
    }
  self->write_layout = requested;
  /* plain Zarr stores new string variables as "|O" + "vlen-utf8" */
  ncz_dataset_set_variable_length_strings (dataset, requested == NCZARR_LAYOUT_PURE);

  if (ncz_dataset_is_writable (dataset))
    {
      if (self->layout == NCZARR_LAYOUT_V1)
        {
          g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_READ_ONLY,
                       "%s: NCZarr version 1 datasets can only be opened read-only",
                       location (self));
          return FALSE;
        }
      self->convert_pending = self->write_layout != self->layout;
      if (!ncz_lock_timeout_for_url (self->url, &self->lock_timeout_ms, error))
        return FALSE;
      self->shared = TRUE;
      remember_metadata (self, dataset);
      /* a root without .zgroup (as netcdf-c and Ncz open it) becomes a
       * Zarr group at the first sync */
      if (r.root_implicit)
        {
          g_mutex_lock (&self->lock);
          g_hash_table_remove (self->written, ".zgroup");
          g_mutex_unlock (&self->lock);
        }
    }
  return TRUE;
}

static gboolean
nczarr_create (NczFormat *format, NczDataset *dataset, GCancellable *cancellable,
               GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  g_autoptr(GError) local = NULL;
  NczarrLayout requested;

  if (self->store == NULL)
    {
      g_set_error (error, NCZ_DATASET_ERROR, NCZ_DATASET_ERROR_FAILED,
                   "%s: the NCZarr format needs a store", location (self));
      return FALSE;
    }
  if (!setup_write_options (self, error))
    return FALSE;
  if (!requested_layout (self, &requested, &local))
    {
      if (local)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      requested = NCZARR_LAYOUT_KEYS;
    }
  self->layout = self->write_layout = requested;
  self->convert_pending = FALSE;
  ncz_dataset_set_variable_length_strings (dataset, requested == NCZARR_LAYOUT_PURE);
  g_free (self->ncproperties);
  self->ncproperties = default_ncproperties ();
  self->ncproperties_found = TRUE;   /* it is written with the metadata */
  return TRUE;
}

/* Writing order: deepest objects first, the consolidated metadata
 * (.zmetadata) last, on its own. */
static guint
key_depth (const char *key)
{
  guint n = 1;
  if (g_str_equal (key, NCZARR_CONSOLIDATED_KEY))
    return 0;
  for (const char *p = key; *p; p++)
    if (*p == '/')
      n++;
  return n;
}

static gint
compare_depth_desc (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GPtrArray *keys = user_data;
  guint ia = GPOINTER_TO_UINT (*(gpointer *) a), ib = GPOINTER_TO_UINT (*(gpointer *) b);
  guint da = key_depth (g_ptr_array_index (keys, ia));
  guint db = key_depth (g_ptr_array_index (keys, ib));
  if (da != db)
    return da > db ? -1 : 1;
  return ia < ib ? -1 : ia > ib;   /* stable: keep the built order */
}

/* What to store at @key: this writer's changes since its last sync
 * (@before → @after) applied to @stored, the object as stored now. */
static GBytes *
merged_object (NczNczarrFormat *self, const char *key, const char *before, const char *after,
               GBytes *stored, GError **error)
{
  g_autoptr(NczJson) jb = before != NULL ? ncz_json_parse (before, -1, NULL) : NULL;
  g_autoptr(NczJson) ja = ncz_json_parse (after, -1, NULL);
  g_autoptr(NczJson) js = NULL;
  g_autoptr(NczJson) merged = NULL;
  char *text;

  if (stored != NULL)
    {
      gsize len;
      const char *data = g_bytes_get_data (stored, &len);
      g_autoptr(GError) local = NULL;
      /* what others stored cannot be kept if it cannot be read: say so
       * rather than write over it */
      js = ncz_json_parse (data != NULL ? data : "", (gssize) len, &local);
      if (js == NULL)
        {
          g_set_error (error, NCZ_BACKEND_ERROR, NCZ_BACKEND_ERROR_BAD_METADATA,
                       "%s as stored now cannot be merged with this writer's changes: %s",
                       key, local->message);
          return NULL;
        }
    }
  if (ja == NULL || js == NULL)
    return g_bytes_new (after, strlen (after));
  merged = nczarr_merge_metadata (key, jb, ja, js, error);
  if (merged == NULL)
    return NULL;
  text = ascii_json (self) ? ncz_json_to_ascii_string (merged, FALSE)
                           : ncz_json_to_string (merged, FALSE);
  return g_bytes_new_take (text, strlen (text));
}

/* The objects of one level: merged with what is stored when @merge. Where
 * the store has locks the caller holds its metadata lock, and the level
 * is read and written in batches; otherwise, with conditional writes,
 * each object is read with its version and written if still that
 * version, again until it is. */
static gboolean
write_level (NczNczarrFormat *self, GPtrArray *lkeys, GPtrArray *ltexts, gboolean merge,
             GCancellable *cancellable, GError **error)
{
  g_autoptr(GPtrArray) ldata = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GPtrArray) befores = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GError) local = NULL;

  if (!merge)
    {
      for (guint i = 0; i < lkeys->len; i++)
        {
          const char *text = g_ptr_array_index (ltexts, i);
          g_ptr_array_add (ldata, g_bytes_new (text, strlen (text)));
        }
      goto write;
    }
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < lkeys->len; i++)
    g_ptr_array_add (befores, g_strdup (g_hash_table_lookup (self->written,
                                                             g_ptr_array_index (lkeys, i))));
  g_mutex_unlock (&self->lock);

  if (!ncz_store_has_locks (self->store) && ncz_store_has_conditional_writes (self->store))
    {
      for (guint i = 0; i < lkeys->len; i++)
        {
          const char *key = g_ptr_array_index (lkeys, i);
          for (guint attempt = 0;; attempt++)
            {
              g_autofree char *tag = NULL;
              g_autoptr(GBytes) now = ncz_store_read_tagged (self->store, key, &tag,
                                                             cancellable, &local);
              g_autoptr(GBytes) out = NULL;
              if (now == NULL && !g_error_matches (local, NCZ_STORAGE_ERROR,
                                                   NCZ_STORAGE_ERROR_NOT_FOUND))
                goto failed;
              g_clear_error (&local);
              out = merged_object (self, key, g_ptr_array_index (befores, i),
                                   g_ptr_array_index (ltexts, i), now, &local);
              if (out == NULL)
                goto failed;
              if (ncz_store_write_if (self->store, key, out, tag, cancellable, &local))
                break;
              if (!g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_CONFLICT) ||
                  attempt >= 100)
                goto failed;
              g_clear_error (&local);
              /* another writer stored it between the read and the write */
              nczarr_conflict_backoff (attempt);
            }
        }
      return TRUE;
    }

  g_ptr_array_add (lkeys, NULL);
  stored = ncz_store_read_many (self->store, (const char * const *) lkeys->pdata,
                                cancellable, &local);
  g_ptr_array_remove_index (lkeys, lkeys->len - 1);
  if (stored == NULL)
    goto failed;
  g_ptr_array_set_free_func (stored, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < lkeys->len; i++)
    {
      GBytes *out = merged_object (self, g_ptr_array_index (lkeys, i),
                                   g_ptr_array_index (befores, i),
                                   g_ptr_array_index (ltexts, i),
                                   g_ptr_array_index (stored, i), &local);
      if (out == NULL)
        goto failed;
      g_ptr_array_add (ldata, out);
    }

write:
  if (ncz_store_write_many (self->store, (const char * const *) lkeys->pdata,
                            (GBytes * const *) ldata->pdata, lkeys->len, cancellable, &local))
    return TRUE;
failed:
  g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: writing metadata: ",
                              location (self));
  return FALSE;
}

/* Deepest keys first, one level at a time, so that an object is never
 * visible before the objects below it that it lists. Objects of one
 * level are written together (in parallel where the store can). */
static gboolean
write_changed (NczNczarrFormat *self, GPtrArray *keys, GPtrArray *texts, GPtrArray *changed,
               gboolean merge, GCancellable *cancellable, GError **error)
{
  g_ptr_array_sort_with_data (changed, compare_depth_desc, keys);
  for (guint j = 0; j < changed->len;)
    {
      guint depth = key_depth (g_ptr_array_index (keys, GPOINTER_TO_UINT (changed->pdata[j])));
      g_autoptr(GPtrArray) lkeys = g_ptr_array_new ();
      g_autoptr(GPtrArray) ltexts = g_ptr_array_new ();
      guint first = j;

      for (; j < changed->len; j++)
        {
          guint i = GPOINTER_TO_UINT (g_ptr_array_index (changed, j));
          const char *key = g_ptr_array_index (keys, i);
          if (key_depth (key) != depth)
            break;
          g_ptr_array_add (lkeys, (gpointer) key);
          g_ptr_array_add (ltexts, g_ptr_array_index (texts, i));
        }
      if (!write_level (self, lkeys, ltexts, merge, cancellable, error))
        return FALSE;
      /* what this writer built, not what was merged: the base of its next
       * changes */
      g_mutex_lock (&self->lock);
      for (guint m = first; m < j; m++)
        {
          guint i = GPOINTER_TO_UINT (g_ptr_array_index (changed, m));
          g_hash_table_replace (self->written, g_strdup (g_ptr_array_index (keys, i)),
                                g_strdup (g_ptr_array_index (texts, i)));
        }
      g_mutex_unlock (&self->lock);
    }
  return TRUE;
}

static gboolean
remove_stale (NczNczarrFormat *self, GPtrArray *stale, GCancellable *cancellable,
              GError **error)
{
  for (guint i = 0; i < stale->len; i++)
    {
      const char *key = g_ptr_array_index (stale, i);
      g_autoptr(GError) local = NULL;
      if (!ncz_store_remove (self->store, key, cancellable, &local) &&
          !g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: removing %s: ",
                                      location (self), key);
          return FALSE;
        }
      g_mutex_lock (&self->lock);
      g_hash_table_remove (self->written, key);
      g_mutex_unlock (&self->lock);
    }
  return TRUE;
}

static gboolean
nczarr_sync (NczFormat *format, NczDataset *dataset, GCancellable *cancellable,
             GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) changed = g_ptr_array_new ();
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer k, v;
  gboolean merge, ok;

  if (ncz_dataset_is_data_only (dataset))
    return TRUE;   /* chunks only: the metadata is the coordinator's */
  build (self, dataset, keys, texts);

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);
      const char *old = g_hash_table_lookup (self->written, key);
      g_hash_table_add (present, (gpointer) key);
      if (old == NULL || !g_str_equal (old, g_ptr_array_index (texts, i)))
        g_ptr_array_add (changed, GUINT_TO_POINTER (i));
    }
  /* .zattrs objects that were written before and are no longer needed */
  g_hash_table_iter_init (&iter, self->written);
  while (g_hash_table_iter_next (&iter, &k, &v))
    if (!g_hash_table_contains (present, k) && g_str_has_suffix (k, ".zattrs"))
      g_ptr_array_add (stale, g_strdup (k));
  g_mutex_unlock (&self->lock);

  if (changed->len > 0 && self->convert_pending)
    {
      /* a store of another layout: rewrite everything in the new one */
      g_ptr_array_set_size (changed, 0);
      for (guint i = 0; i < keys->len; i++)
        g_ptr_array_add (changed, GUINT_TO_POINTER (i));
    }

  /* Other writers may have stored metadata since this one opened the
   * dataset: merge into it, under the metadata lock. */
  merge = self->shared && !self->convert_pending && changed->len > 0;
  if (merge && !ncz_store_lock_key (self->store, NULL, self->lock_timeout_ms, cancellable, error))
    {
      g_prefix_error (error, "%s: writing metadata: ", location (self));
      return FALSE;
    }
  ok = write_changed (self, keys, texts, changed, merge, cancellable, error) &&
       remove_stale (self, stale, cancellable, error);
  if (merge)
    ncz_store_unlock_key (self->store, NULL);
  if (!ok)
    return FALSE;
  if (changed->len > 0)
    {
      gboolean consolidated = FALSE;
      consolidated_option (self, consolidate_by_default (self), &consolidated, NULL);
      if (!consolidated)
        {
          /* a .zmetadata left from before would be stale */
          g_autoptr(GError) local = NULL;
          if (!ncz_store_remove (self->store, NCZARR_CONSOLIDATED_KEY, cancellable, &local) &&
              !g_error_matches (local, NCZ_STORAGE_ERROR, NCZ_STORAGE_ERROR_NOT_FOUND))
            {
              g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: removing %s: ",
                                          location (self), NCZARR_CONSOLIDATED_KEY);
              return FALSE;
            }
        }
      self->convert_pending = FALSE;
      self->layout = self->write_layout;
    }
  return TRUE;
}

static gboolean
nczarr_close (NczFormat *format, NczDataset *dataset, GCancellable *cancellable,
              GError **error)
{
  return TRUE;
}

static GBytes *
nczarr_read_chunk (NczFormat *format, NczVariable *variable, const guint64 *chunk_index,
                   GCancellable *cancellable, GError **error)
{
  return nczarr_chunk_read (NCZ_NCZARR_FORMAT (format), variable, chunk_index,
                            cancellable, error);
}

static GPtrArray *
nczarr_read_chunks (NczFormat *format, NczVariable *variable, const guint64 *chunk_indices,
                    guint n_chunks, GCancellable *cancellable, GError **error)
{
  return nczarr_chunk_read_many (NCZ_NCZARR_FORMAT (format), variable, chunk_indices,
                                 n_chunks, cancellable, error);
}

static gboolean
nczarr_write_chunk (NczFormat *format, NczVariable *variable, const guint64 *chunk_index,
                    GBytes *data, GCancellable *cancellable, GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);

  if (nczarr_var_info_peek (variable) == NULL)
    {
      /* a variable defined since the dataset was opened */
      nczarr_var_info_ensure (variable, self->separator);
    }
  return nczarr_chunk_write (self, variable, chunk_index, data, cancellable, error);
}

static GArray *
nczarr_query_chunks (NczFormat *format, NczVariable *variable, const guint64 *chunk_indices,
                     guint n_chunks, GCancellable *cancellable, GError **error)
{
  return nczarr_chunk_query_many (NCZ_NCZARR_FORMAT (format), variable, chunk_indices,
                                  n_chunks, cancellable, error);
}

static gboolean
nczarr_update_chunk (NczFormat *format, NczVariable *variable, const guint64 *chunk_index,
                     NczChunkUpdateFunc func, gpointer user_data, GCancellable *cancellable,
                     GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  return nczarr_chunk_update (self, variable, chunk_index, func, user_data, self->shared,
                              self->lock_timeout_ms, cancellable, error);
}

static gboolean
nczarr_write_chunks (NczFormat *format, NczVariable *variable, const guint64 *chunk_indices,
                     gsize n_values, GBytes * const *data, guint n_chunks,
                     GCancellable *cancellable, GError **error)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);

  if (nczarr_var_info_peek (variable) == NULL)
    nczarr_var_info_ensure (variable, self->separator);
  return nczarr_chunk_write_many (self, variable, chunk_indices, n_chunks, data, cancellable,
                                  error);
}

/* Virtual attributes as ncdump -s shows them */

static void
add_text (GPtrArray *out, const char *name, const char *text)
{
  g_ptr_array_add (out, ncz_attribute_new_text (name, text, -1));
}

static void
add_int (GPtrArray *out, const char *name, gint32 value)
{
  g_ptr_array_add (out, ncz_attribute_new_values (name, NCZ_DATA_TYPE_INT, &value, 1, NULL));
}

static GPtrArray *
nczarr_describe_dataset (NczFormat *format, NczDataset *dataset)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (format);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  if (self->ncproperties_found)
    add_text (out, "_NCProperties", self->ncproperties);
  /* the NCZarr superblock's major version; 0 for plain Zarr */
  add_int (out, "_SuperblockVersion", self->ncproperties_found ? 2 : 0);
  add_int (out, "_IsNetcdf4", 1);
  add_text (out, "_Format", "netCDF-4");
  return out;
}

/* The filter virtual attributes as ncdump -s shows them: fletcher32 and
 * shuffle as _Fletcher32 and _Shuffle; the other filters whose HDF5 id
 * and visible parameters are known in _Filter ("id,p,p|id,p"), except a
 * deflate filter on its own (besides shuffle and fletcher32), shown as
 * _DeflateLevel; then _Codecs, the chain as codec JSON, which also shows
 * codecs that are not available. */
static GPtrArray *
nczarr_describe_variable (NczFormat *format, NczVariable *variable)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  GPtrArray *chain = ncz_variable_peek_filters (variable);
  g_autoptr(GPtrArray) others = g_ptr_array_new ();
  gboolean fletcher32 = FALSE, shuffle = FALSE;

  for (guint i = 0; chain && i < chain->len; i++)
    {
      NczFilterSpec *f = g_ptr_array_index (chain, i);
      if (f->codec == NULL || f->filter_id == 0)
        continue;
      if (f->filter_id == NCZ_FILTER_FLETCHER32)
        fletcher32 = TRUE;
      else if (f->filter_id == NCZ_FILTER_SHUFFLE)
        shuffle = TRUE;
      else
        g_ptr_array_add (others, f);
    }
  if (fletcher32)
    add_text (out, "_Fletcher32", "true");
  if (shuffle)
    add_text (out, "_Shuffle", "true");
  if (others->len == 1 && ((NczFilterSpec *) others->pdata[0])->filter_id == NCZ_FILTER_DEFLATE)
    {
      NczFilterSpec *f = others->pdata[0];
      gint32 level = f->visible && f->visible->len > 0 ? (gint32) g_array_index (f->visible, guint, 0) : 0;
      add_int (out, "_DeflateLevel", level);
    }
  else if (others->len > 0)
    {
      g_autofree char *text = ncz_filter_spec_list_to_text (others);
      add_text (out, "_Filter", text);
    }
  if (ncz_variable_get_n_codecs (variable) > 0)
    {
      g_autofree char *codecs = ncz_variable_get_codecs_json (variable);
      add_text (out, "_Codecs", codecs);
    }
  return out;
}

static void
ncz_nczarr_format_iface_init (NczFormatInterface *iface)
{
  iface->get_name = nczarr_get_name;
  iface->open = nczarr_open;
  iface->create = nczarr_create;
  iface->sync = nczarr_sync;
  iface->close = nczarr_close;
  iface->read_chunk = nczarr_read_chunk;
  iface->read_chunks = nczarr_read_chunks;
  iface->write_chunk = nczarr_write_chunk;
  iface->write_chunks = nczarr_write_chunks;
  iface->update_chunk = nczarr_update_chunk;
  iface->query_chunks = nczarr_query_chunks;
  iface->describe_variable = nczarr_describe_variable;
  iface->describe_dataset = nczarr_describe_dataset;
}

/* ---- GObject ---- */

static void
ncz_nczarr_format_set_property (GObject *object, guint prop_id,
                                const GValue *value, GParamSpec *pspec)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_set_object (&self->url, g_value_get_object (value));
      break;
    case PROP_STORE:
      g_set_object (&self->store, g_value_get_object (value));
      break;
    case PROP_ANONYMOUS_DIM_PREFIX:
      g_free (self->anon_prefix);
      self->anon_prefix = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_nczarr_format_get_property (GObject *object, guint prop_id,
                                GValue *value, GParamSpec *pspec)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_object (value, self->url);
      break;
    case PROP_STORE:
      g_value_set_object (value, self->store);
      break;
    case PROP_ANONYMOUS_DIM_PREFIX:
      g_value_set_string (value, self->anon_prefix);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ncz_nczarr_format_constructed (GObject *object)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (object);

  G_OBJECT_CLASS (ncz_nczarr_format_parent_class)->constructed (object);
  if (self->anon_prefix == NULL)
    {
      const char *p = fragment (self, "anonymous_dim_prefix");
      self->anon_prefix = g_strdup (p && *p ? p : NCZARR_DEFAULT_ANON_PREFIX);
    }
}

static void
ncz_nczarr_format_finalize (GObject *object)
{
  NczNczarrFormat *self = NCZ_NCZARR_FORMAT (object);

  g_clear_object (&self->url);
  g_clear_object (&self->store);
  g_free (self->anon_prefix);
  g_free (self->ncproperties);
  g_hash_table_unref (self->written);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ncz_nczarr_format_parent_class)->finalize (object);
}

static void
ncz_nczarr_format_class_init (NczNczarrFormatClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = ncz_nczarr_format_set_property;
  object_class->get_property = ncz_nczarr_format_get_property;
  object_class->constructed = ncz_nczarr_format_constructed;
  object_class->finalize = ncz_nczarr_format_finalize;

  properties[PROP_URL] =
    g_param_spec_object ("url", NULL, NULL, NCZ_TYPE_URL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STORE] =
    g_param_spec_object ("store", NULL, NULL, NCZ_TYPE_STORE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ANONYMOUS_DIM_PREFIX] =
    g_param_spec_string ("anonymous-dim-prefix", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ncz_nczarr_format_init (NczNczarrFormat *self)
{
  g_mutex_init (&self->lock);
  self->written = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->separator = '.';
  self->layout = self->write_layout = NCZARR_LAYOUT_KEYS;
}
