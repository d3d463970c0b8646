/* fixture.h: trivial types for the registry's fixture modules
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

/* A store type that implements NczStore without doing anything. */
#define FIXTURE_STORE_TYPE(TypeName, type_name)                              \
  typedef struct { GObject parent_instance; } TypeName;                     \
  typedef struct { GObjectClass parent_class; } TypeName##Class;            \
  static GType type_name##_get_type (void);                                 \
  static void type_name##_store_init (NczStoreInterface *iface) { }         \
  G_DEFINE_TYPE_WITH_CODE (TypeName, type_name, G_TYPE_OBJECT,              \
                           G_IMPLEMENT_INTERFACE (NCZ_TYPE_STORE,           \
                                                  type_name##_store_init))  \
  static void type_name##_class_init (TypeName##Class *klass) { }           \
  static void type_name##_init (TypeName *self) { }

/* A codec type that implements NczCodec without doing anything. */
#define FIXTURE_CODEC_TYPE(TypeName, type_name)                              \
  typedef struct { GObject parent_instance; } TypeName;                     \
  typedef struct { GObjectClass parent_class; } TypeName##Class;            \
  static GType type_name##_get_type (void);                                 \
  static void type_name##_codec_init (NczCodecInterface *iface) { }         \
  G_DEFINE_TYPE_WITH_CODE (TypeName, type_name, G_TYPE_OBJECT,              \
                           G_IMPLEMENT_INTERFACE (NCZ_TYPE_CODEC,           \
                                                  type_name##_codec_init))  \
  static void type_name##_class_init (TypeName##Class *klass) { }           \
  static void type_name##_init (TypeName *self) { }
