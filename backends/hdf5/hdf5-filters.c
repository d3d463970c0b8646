/* hdf5-filters.c: Ncz's codecs registered with libhdf5 as filters
 *
 * Every Ncz codec module with an HDF5 filter id (zstd 32015, blosc 32001,
 * bzip2 307, lz4 32004, ...) exports HDF5's dynamically loaded filter ABI
 * (H5PLget_plugin_type, H5PLget_plugin_info returning an H5Z_class2_t).
 * libhdf5 finds such libraries only on HDF5_PLUGIN_PATH (or its built-in
 * plugin folder); this file makes the ones Ncz's registry knows available
 * to the libhdf5 the backend uses, so that netCDF-4 files using them are
 * read (H5Dread) and written (H5Dcreate runs the filters' set_local,
 * H5Dwrite the filters) without HDF5_PLUGIN_PATH.
 *
 * The choice: an id is registered when the backend first needs it (a
 * dataset's pipeline names it as a file is loaded, or a definition adds
 * it before H5Pset_filter: ncz_h5_filter_needed()), and the module behind
 * it is loaded when libhdf5 first runs it.
 *
 * - Which ids: those that the manifests of the default registry's plugins
 *   claim (`hdf5-filter:N` in ncz_plugin_info_get_provides(), read
 *   without loading any module) and that libhdf5 does not have:
 *   H5Zfilter_avail() is FALSE. That leaves out HDF5's own filters
 *   (deflate, shuffle, fletcher32, szip, nbit, scaleoffset: ids below
 *   256 are not even asked) and any library libhdf5 finds on its plugin
 *   path (HDF5_PLUGIN_PATH, or Debian's
 *   /usr/lib/x86_64-linux-gnu/hdf5/serial/plugins when it is unset):
 *   those are libhdf5's own business and are not registered a second
 *   time, whether codec-registry also sees them or not. Ids no Ncz plugin
 *   claims are left to libhdf5 without asking anything.
 * - Why lazily: H5Zfilter_avail() searches libhdf5's plugin path for an
 *   id it lacks, opening every library there until one matches; asking
 *   for all of Ncz's ids at the first open cost ncz-dump 50 to 100 ms
 *   with Debian's hdf5-filter-plugin libraries installed. Asked when an
 *   id is needed, the search happens once per id, for files that use it,
 *   where libhdf5 would search at the first H5Dread anyway; a process
 *   that opens files without such filters asks nothing and loads nothing.
 * - How: each id gets a stand-in H5Z_class2_t (one of MAX_SLOTS fixed
 *   trampolines, since HDF5 does not tell a filter function its own id)
 *   named "<plugin> (Ncz)", as Ncz's modules name their own classes
 *   ("zstd (Ncz)", "bzip2 (Ncz)"); libhdf5 records that name in the
 *   pipelines of the datasets it creates. Its callbacks load the module
 *   through the registry the first time HDF5 calls any of them
 *   (ncz_registry_load_plugin(), then the module's H5PLget_plugin_info),
 *   and forward to the module's class from then on. (The reader and the
 *   writer look the codec up in the registry for the model anyway, so the
 *   module is usually loaded by then; the stand-in keeps registration
 *   from loading anything itself, and reports a module that fails.)
 * - Where: the reader asks for every filter of every dataset it loads
 *   (hdf5-read.c, load_filters()), the writer for every filter it adds
 *   with H5Pset_filter (hdf5-write.c, add_filters()): every dataset the
 *   backend opens or creates went through one of them, whichever I/O
 *   path (HDF5's pipeline, direct chunk I/O) reads or writes it later.
 *
 * When a module cannot be loaded at first use, the callback pushes the
 * reason on HDF5's error stack (ncz_h5_set_error() shows it in the
 * GError) and fails, as libhdf5 fails for a filter it cannot find; it
 * then tries the next plugin claiming the id, if any, at the next call.
 *
 * Locking: ncz_h5_register_codec_filters() and ncz_h5_filter_needed()
 * run under the HDF5 lock, and libhdf5 calls the stand-ins only from
 * calls made under that lock, which guards the slots. The stand-ins take
 * the registry's lock while loading a module (HDF5 lock, then registry
 * lock), as the reader's codec lookups do; nothing takes them the other
 * way round.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <ncz/ncz-filter-abi.h>

#include "hdf5-private.h"

/* Filter ids HDF5 reserves for its own filters are below this. */
#define FIRST_PLUGIN_FILTER_ID 256u
#define MAX_SLOTS 32

typedef struct {
  guint id;
  char *name;                  /* "<plugin> (Ncz)"; HDF5 keeps the pointer */
  GPtrArray *candidates;       /* NczPluginInfo claiming the id, search order */
  guint next_candidate;        /* the next one to try */
  gboolean decided;            /* libhdf5 was asked; the stand-in registered
                                * if it lacked the id */
  const H5Z_class2_t *module;  /* the module's class once loaded */
  char *failure;               /* why the last load failed */
  H5Z_class2_t stand_in;
} Slot;

static Slot slots[MAX_SLOTS];
static guint n_slots;
static gboolean collected;

/* ---- loading the module behind a slot ---- */

/* The module's own H5Z_class2_t, loaded on first use; NULL (with
 * slot->failure set) if no candidate loads. */
static const H5Z_class2_t *
slot_module (Slot *slot)
{
  NczRegistry *registry = ncz_registry_get_default ();

  if (slot->module != NULL)
    return slot->module;
  while (slot->next_candidate < slot->candidates->len)
    {
      NczPluginInfo *info = g_ptr_array_index (slot->candidates, slot->next_candidate);
      g_autoptr(GError) error = NULL;
      gpointer get_type = NULL, get_info = NULL;
      const H5Z_class2_t *cls = NULL;

      slot->next_candidate++;
      g_clear_pointer (&slot->failure, g_free);
      if (!ncz_registry_load_plugin (registry, info, &error))
        {
          slot->failure = g_strdup_printf ("HDF5 filter %u: Ncz plugin '%s' (%s) cannot be "
                                           "loaded: %s", slot->id,
                                           ncz_plugin_info_get_name (info),
                                           ncz_plugin_info_get_filename (info),
                                           error != NULL ? error->message : "unknown error");
          continue;
        }
      if (!ncz_plugin_info_lookup_symbol (info, "H5PLget_plugin_type", &get_type) ||
          !ncz_plugin_info_lookup_symbol (info, "H5PLget_plugin_info", &get_info) ||
          ((NczH5PLGetPluginTypeFunc) get_type) () != NCZ_H5PL_TYPE_FILTER)
        {
          slot->failure = g_strdup_printf ("HDF5 filter %u: Ncz plugin '%s' (%s) does not "
                                           "export an HDF5 filter", slot->id,
                                           ncz_plugin_info_get_name (info),
                                           ncz_plugin_info_get_filename (info));
          continue;
        }
      cls = ((NczH5PLGetPluginInfoFunc) get_info) ();
      if (cls == NULL || cls->version != H5Z_CLASS_T_VERS || cls->id != (H5Z_filter_t) slot->id ||
          cls->filter == NULL)
        {
          slot->failure = g_strdup_printf ("HDF5 filter %u: Ncz plugin '%s' (%s) exports the "
                                           "HDF5 filter class of another filter (%d) or version",
                                           slot->id, ncz_plugin_info_get_name (info),
                                           ncz_plugin_info_get_filename (info),
                                           cls != NULL ? (int) cls->id : -1);
          continue;
        }
      g_debug ("HDF5 filter %u: using Ncz plugin '%s' (%s)", slot->id,
               ncz_plugin_info_get_name (info), ncz_plugin_info_get_filename (info));
      slot->module = cls;
      return cls;
    }
  if (slot->failure == NULL)
    slot->failure = g_strdup_printf ("HDF5 filter %u: no Ncz plugin providing it can be loaded",
                                     slot->id);
  return NULL;
}

/* Puts why the slot's module is missing on HDF5's error stack. */
static void
push_failure (Slot *slot, const char *callback)
{
  H5Epush2 (H5E_DEFAULT, __FILE__, callback, __LINE__, H5E_ERR_CLS, H5E_PLUGIN, H5E_NOFILTER,
            "%s", slot->failure != NULL ? slot->failure : "Ncz filter module not loaded");
}

/* ---- the stand-in callbacks ---- */

static htri_t
slot_can_apply (Slot *slot, hid_t dcpl, hid_t type, hid_t space)
{
  const H5Z_class2_t *cls = slot_module (slot);

  if (cls == NULL)
    {
      push_failure (slot, "can_apply");
      return -1;
    }
  return cls->can_apply != NULL ? cls->can_apply (dcpl, type, space) : 1;
}

static herr_t
slot_set_local (Slot *slot, hid_t dcpl, hid_t type, hid_t space)
{
  const H5Z_class2_t *cls = slot_module (slot);

  if (cls == NULL)
    {
      push_failure (slot, "set_local");
      return -1;
    }
  return cls->set_local != NULL ? cls->set_local (dcpl, type, space) : 0;
}

static size_t
slot_filter (Slot *slot, unsigned flags, size_t n_cd, const unsigned cd[], size_t nbytes,
             size_t *buf_size, void **buf)
{
  const H5Z_class2_t *cls = slot_module (slot);

  if (cls == NULL)
    {
      push_failure (slot, "filter");
      return 0;
    }
  return cls->filter (flags, n_cd, cd, nbytes, buf_size, buf);
}

#define STAND_IN(i)                                                                           \
  static htri_t can_apply_##i (hid_t dcpl, hid_t type, hid_t space)                           \
  { return slot_can_apply (&slots[i], dcpl, type, space); }                                   \
  static herr_t set_local_##i (hid_t dcpl, hid_t type, hid_t space)                           \
  { return slot_set_local (&slots[i], dcpl, type, space); }                                   \
  static size_t filter_##i (unsigned flags, size_t n_cd, const unsigned cd[], size_t nbytes,  \
                            size_t *buf_size, void **buf)                                     \
  { return slot_filter (&slots[i], flags, n_cd, cd, nbytes, buf_size, buf); }

#define EACH_SLOT(X)                                                                          \
  X (0) X (1) X (2) X (3) X (4) X (5) X (6) X (7) X (8) X (9) X (10) X (11) X (12) X (13)     \
  X (14) X (15) X (16) X (17) X (18) X (19) X (20) X (21) X (22) X (23) X (24) X (25) X (26)  \
  X (27) X (28) X (29) X (30) X (31)

EACH_SLOT (STAND_IN)

#define CAN_APPLY_ENTRY(i) can_apply_##i,
#define SET_LOCAL_ENTRY(i) set_local_##i,
#define FILTER_ENTRY(i) filter_##i,

static const H5Z_can_apply_func_t can_apply_funcs[MAX_SLOTS] = { EACH_SLOT (CAN_APPLY_ENTRY) };
static const H5Z_set_local_func_t set_local_funcs[MAX_SLOTS] = { EACH_SLOT (SET_LOCAL_ENTRY) };
static const H5Z_func_t filter_funcs[MAX_SLOTS] = { EACH_SLOT (FILTER_ENTRY) };

/* ---- registration ---- */

/* The HDF5 filter id a `hdf5-filter:N` feature names, or 0. */
static guint
feature_filter_id (const char *feature)
{
  guint64 id = 0;

  if (!g_str_has_prefix (feature, "hdf5-filter:") ||
      !g_ascii_string_to_unsigned (feature + strlen ("hdf5-filter:"), 10, 1, G_MAXINT, &id, NULL))
    return 0;
  return (guint) id;
}

static Slot *
find_slot (guint id)
{
  for (guint i = 0; i < n_slots; i++)
    if (slots[i].id == id)
      return &slots[i];
  return NULL;
}

/* Whether libhdf5 has the filter: built in, registered, or found on its
 * plugin path (which this loads). */
static gboolean
hdf5_has_filter (guint id)
{
  htri_t avail = H5Zfilter_avail ((H5Z_filter_t) id);

  /* a miss leaves the plugin search's errors on the stack */
  H5Eclear2 (H5E_DEFAULT);
  return avail > 0;
}

/* The slots of the ids that plugins claim, with their candidates, in the
 * registry's search order. */
static void
collect_slots (void)
{
  g_autoptr(GPtrArray) plugins = NULL;

  if (collected)
    return;
  collected = TRUE;
  plugins = ncz_registry_list_plugins (ncz_registry_get_default ());

  for (guint p = 0; p < plugins->len; p++)
    {
      NczPluginInfo *info = g_ptr_array_index (plugins, p);
      const char * const *provides = ncz_plugin_info_get_provides (info);
      NczPluginStatus status = ncz_plugin_info_get_status (info);

      if (status != NCZ_PLUGIN_STATUS_AVAILABLE && status != NCZ_PLUGIN_STATUS_LOADED)
        continue;
      for (gsize i = 0; provides != NULL && provides[i] != NULL; i++)
        {
          guint id = feature_filter_id (provides[i]);
          Slot *slot;

          if (id < FIRST_PLUGIN_FILTER_ID)
            continue;
          slot = find_slot (id);
          if (slot == NULL)
            {
              if (n_slots == MAX_SLOTS)
                {
                  g_debug ("HDF5 filter %u (plugin '%s'): more than %d Ncz filter ids; "
                           "not registered with HDF5", id, ncz_plugin_info_get_name (info),
                           MAX_SLOTS);
                  continue;
                }
              slot = &slots[n_slots++];
              slot->id = id;
              slot->name = g_strdup_printf ("%s (Ncz)", ncz_plugin_info_get_name (info));
              slot->candidates = g_ptr_array_new_with_free_func (g_object_unref);
            }
          g_ptr_array_add (slot->candidates, g_object_ref (info));
        }
    }
}

/* Reads which ids Ncz's plugins claim (their manifests: no module is
 * loaded, libhdf5 is not asked). */
void
ncz_h5_register_codec_filters (void)
{
  collect_slots ();
}

void
ncz_h5_filter_needed (guint id)
{
  Slot *slot;
  guint i;

  if (id < FIRST_PLUGIN_FILTER_ID)
    return;
  collect_slots ();
  slot = find_slot (id);
  if (slot == NULL || slot->decided)
    return;
  slot->decided = TRUE;
  if (hdf5_has_filter (slot->id))
    {
      g_debug ("HDF5 filter %u: libhdf5 has it already; %s not registered", slot->id,
               slot->name);
      return;
    }
  i = (guint) (slot - slots);
  slot->stand_in.version = H5Z_CLASS_T_VERS;
  slot->stand_in.id = (H5Z_filter_t) slot->id;
  slot->stand_in.encoder_present = 1;
  slot->stand_in.decoder_present = 1;
  slot->stand_in.name = slot->name;
  slot->stand_in.can_apply = can_apply_funcs[i];
  slot->stand_in.set_local = set_local_funcs[i];
  slot->stand_in.filter = filter_funcs[i];
  if (H5Zregister (&slot->stand_in) < 0)
    {
      H5Eclear2 (H5E_DEFAULT);
      g_debug ("HDF5 filter %u: H5Zregister failed; %s not registered", slot->id, slot->name);
      return;
    }
  g_debug ("HDF5 filter %u: registered %s (its module is loaded on first use)", slot->id,
           slot->name);
}
