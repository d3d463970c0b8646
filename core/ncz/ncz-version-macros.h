/* ncz-version-macros.h: visibility and availability macros
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if !defined(__NCZ_H_INSIDE__) && !defined(NCZ_COMPILATION) && !defined(NCZ_ENABLE_MODULE_API)
#error "Only <ncz/ncz.h> can be included directly."
#endif

#include <glib.h>

#include <ncz/ncz-version.h>

#if defined(_WIN32) && defined(NCZ_COMPILATION)
#  define _NCZ_EXPORT __declspec(dllexport)
#elif defined(_WIN32)
#  define _NCZ_EXPORT __declspec(dllimport)
#elif defined(__GNUC__)
#  define _NCZ_EXPORT __attribute__((visibility("default")))
#else
#  define _NCZ_EXPORT
#endif

#define _NCZ_EXTERN _NCZ_EXPORT extern

/**
 * NCZ_AVAILABLE_IN_ALL:
 *
 * Marks a symbol that is part of the public API since the first release.
 */
#define NCZ_AVAILABLE_IN_ALL _NCZ_EXTERN
#define NCZ_AVAILABLE_IN_1_0 _NCZ_EXTERN

#define NCZ_DEPRECATED_IN_1_4_FOR(f) G_DEPRECATED_FOR(f) _NCZ_EXTERN

/* For symbols exported for Ncz's own modules but not part of the
 * stable public API (declared only in private headers). */
#define NCZ_PRIVATE_API _NCZ_EXTERN

/* For the functions of the module SDK (<ncz/ncz-module.h>). */
#define NCZ_MODULE_API _NCZ_EXTERN

/* For the entry points of plugin modules. */
#define NCZ_PLUGIN_EXPORT _NCZ_EXPORT
