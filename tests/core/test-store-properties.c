/* test-store-properties.c: the module SDK's helpers for a store's
 * construct properties "url" and "flags" (<ncz/ncz-module.h>)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <ncz/ncz.h>
#include <ncz/ncz-module.h>

/* A store with the two properties of the interface and one of its own. */
#define TEST_TYPE_PROP_STORE (test_prop_store_get_type ())
G_DECLARE_FINAL_TYPE (TestPropStore, test_prop_store, TEST, PROP_STORE, GObject)

struct _TestPropStore
{
  GObject parent_instance;
  NczUrl *url;
  NczStoreFlags flags;
  guint depth;
};

enum {
  PROP_0,
  PROP_DEPTH,
  PROP_URL,
  PROP_FLAGS,
};

static void
test_prop_store_iface_init (NczStoreInterface *iface)
{
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestPropStore, test_prop_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,
                                                      test_prop_store_iface_init))

static void
test_prop_store_get_property (GObject *object, guint prop_id, GValue *value,
                              GParamSpec *pspec)
{
  TestPropStore *self = TEST_PROP_STORE (object);

  if (ncz_store_get_construct_property (pspec, value, self->url, self->flags))
    return;
  switch (prop_id)
    {
    case PROP_DEPTH:
      g_value_set_uint (value, self->depth);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
test_prop_store_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  TestPropStore *self = TEST_PROP_STORE (object);

  if (ncz_store_set_construct_property (pspec, value, &self->url, &self->flags))
    return;
  switch (prop_id)
    {
    case PROP_DEPTH:
      self->depth = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
test_prop_store_finalize (GObject *object)
{
  TestPropStore *self = TEST_PROP_STORE (object);

  g_clear_object (&self->url);
  G_OBJECT_CLASS (test_prop_store_parent_class)->finalize (object);
}

static void
test_prop_store_class_init (TestPropStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = test_prop_store_get_property;
  object_class->set_property = test_prop_store_set_property;
  object_class->finalize = test_prop_store_finalize;
  g_object_class_install_property (object_class, PROP_DEPTH,
      g_param_spec_uint ("depth", NULL, NULL, 0, 100, 7,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  ncz_store_class_override_properties (object_class, PROP_URL, PROP_FLAGS);
}

static void
test_prop_store_init (TestPropStore *self)
{
  self->depth = 7;
}

static void
test_properties (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NczUrl) url = ncz_url_parse ("file:///tmp/x.zarr#mode=nczarr,file", &error);
  g_autoptr(NczUrl) got = NULL;
  NczStoreFlags flags = 0;
  TestPropStore *store;
  guint depth = 0;

  g_assert_no_error (error);
  store = g_object_new (TEST_TYPE_PROP_STORE, "url", url,
                        "flags", NCZ_STORE_WRITE | NCZ_STORE_CREATE, "depth", 3, NULL);
  g_assert_true (ncz_store_get_url (NCZ_STORE (store)) == url);
  g_assert_cmpint (ncz_store_get_flags (NCZ_STORE (store)), ==,
                   NCZ_STORE_WRITE | NCZ_STORE_CREATE);
  g_object_get (store, "url", &got, "flags", &flags, "depth", &depth, NULL);
  g_assert_true (got == url);
  g_assert_cmpint (flags, ==, NCZ_STORE_WRITE | NCZ_STORE_CREATE);
  g_assert_cmpuint (depth, ==, 3);
  /* the store holds a reference, dropped with it */
  g_assert_cmpuint (G_OBJECT (url)->ref_count, ==, 3);
  g_object_unref (store);
  g_assert_cmpuint (G_OBJECT (url)->ref_count, ==, 2);

  /* the defaults of the construct properties */
  store = g_object_new (TEST_TYPE_PROP_STORE, NULL);
  g_assert_null (ncz_store_get_url (NCZ_STORE (store)));
  g_assert_cmpint (ncz_store_get_flags (NCZ_STORE (store)), ==, NCZ_STORE_READ);
  g_object_unref (store);
}

/* Any other property is left to the store. */
static void
test_other_properties (void)
{
  gpointer klass = g_type_class_ref (TEST_TYPE_PROP_STORE);
  GParamSpec *depth = g_object_class_find_property (klass, "depth");
  g_auto(GValue) value = G_VALUE_INIT;
  NczUrl *url = NULL;
  NczStoreFlags flags = NCZ_STORE_READ;

  g_value_init (&value, G_TYPE_UINT);
  g_assert_false (ncz_store_get_construct_property (depth, &value, NULL, NCZ_STORE_READ));
  g_assert_false (ncz_store_set_construct_property (depth, &value, &url, &flags));
  g_assert_null (url);
  g_type_class_unref (klass);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/store-properties/url-and-flags", test_properties);
  g_test_add_func ("/store-properties/others", test_other_properties);
  return g_test_run ();
}
