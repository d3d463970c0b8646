/* fixture-probe.c: a format module that registers a probe with every kind
 * of claim (signature at listed and doubling offsets, store markers, no
 * store needed), for the manifest round trip of the probe keys
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

typedef struct { GObject parent_instance; } FixtureProbeFormat;
typedef struct { GObjectClass parent_class; } FixtureProbeFormatClass;
static GType fixture_probe_format_get_type (void);
static void fixture_probe_format_iface_init (NczFormatInterface *iface) { }
G_DEFINE_TYPE_WITH_CODE (FixtureProbeFormat, fixture_probe_format, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (NCZ_TYPE_FORMAT,
                                                fixture_probe_format_iface_init))
static void fixture_probe_format_class_init (FixtureProbeFormatClass *klass) { }
static void fixture_probe_format_init (FixtureProbeFormat *self) { }

static const guint8 fixture_signature[] = { 'N', 'C', 'Z', 0x00, 0xff, 'F', 'X' };
static const guint64 fixture_offsets[] = { 0, 100, 256 };
static const char * const fixture_markers[] = { "fixture.marker", "meta/fixture.json", NULL };

static const NczFormatProbe fixture_probe = {
  .signature = fixture_signature,
  .signature_length = sizeof fixture_signature,
  .signature_offsets = fixture_offsets,
  .n_signature_offsets = G_N_ELEMENTS (fixture_offsets),
  .signature_offsets_double = TRUE,
  .markers = fixture_markers,
  .needs_store = FALSE,
};

static gboolean
register_probe (NczRegistry *registry,
                GError     **error)
{
  ncz_registry_add_format_with_probe (registry, "fixture-fmt", fixture_probe_format_get_type (),
                                      NCZ_PRIORITY_PRIMARY, &fixture_probe);
  return TRUE;
}

static const NczPluginDesc probe_desc = {
  .abi = NCZ_PLUGIN_ABI,
  .name = "fixture-probe",
  .version = "1.0.0",
  .license = "BSD-3-Clause",
  .description = "Registry test fixture: a format with a probe",
  .register_func = register_probe,
};

NCZ_PLUGIN_EXPORT const NczPluginDesc *ncz_plugin_fixture_probe_describe (void);

const NczPluginDesc *
ncz_plugin_fixture_probe_describe (void)
{
  return &probe_desc;
}
