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
 * NCZ_ENCODE_VERSION:
 * @major: a major version
 * @minor: a minor version
 *
 * Encodes a version for comparisons with %NCZ_VERSION_MIN_REQUIRED and
 * %NCZ_VERSION_MAX_ALLOWED.
 *
 * Since: 1.0
 */
#define NCZ_ENCODE_VERSION(major, minor) ((major) << 16 | (minor) << 8)

/**
 * NCZ_VERSION_1_0:
 *
 * The encoded version 1.0.
 *
 * Since: 1.0
 */
#define NCZ_VERSION_1_0 (NCZ_ENCODE_VERSION (1, 0))

/**
 * NCZ_VERSION_CUR_STABLE:
 *
 * The encoded version of the Ncz headers in use (major.minor of the
 * package version).
 *
 * Since: 1.0
 */
#define NCZ_VERSION_CUR_STABLE (NCZ_ENCODE_VERSION (NCZ_MAJOR_VERSION, NCZ_MINOR_VERSION))

/* The macros below go up to the package version: a release that raises
 * it adds NCZ_VERSION_x_y, NCZ_AVAILABLE_IN_x_y and NCZ_DEPRECATED_IN_x_y
 * for it, and its new symbols carry "Since: x.y" (tests/python/
 * test_versions.py checks that the three agree). */
#if NCZ_VERSION_CUR_STABLE != NCZ_VERSION_1_0
#error "ncz-version-macros.h has no availability macros for the package version"
#endif

/**
 * NCZ_VERSION_MIN_REQUIRED:
 *
 * Define it before including <ncz/ncz.h> (to an NCZ_VERSION_x_y) to get
 * no deprecation warnings for symbols deprecated after that version.
 * Default: the version of the headers.
 *
 * Since: 1.0
 */
#ifndef NCZ_VERSION_MIN_REQUIRED
#define NCZ_VERSION_MIN_REQUIRED (NCZ_VERSION_CUR_STABLE)
#endif

/**
 * NCZ_VERSION_MAX_ALLOWED:
 *
 * Define it before including <ncz/ncz.h> (to an NCZ_VERSION_x_y) to get
 * a warning for every use of a symbol newer than that version. Default:
 * the version of the headers.
 *
 * Since: 1.0
 */
#ifndef NCZ_VERSION_MAX_ALLOWED
#define NCZ_VERSION_MAX_ALLOWED (NCZ_VERSION_CUR_STABLE)
#endif

#if NCZ_VERSION_MAX_ALLOWED < NCZ_VERSION_MIN_REQUIRED
#error "NCZ_VERSION_MAX_ALLOWED must be >= NCZ_VERSION_MIN_REQUIRED"
#endif

/**
 * NCZ_AVAILABLE_IN_ALL:
 *
 * Marks a symbol that is part of the public API since the first release
 * (1.0).
 *
 * Since: 1.0
 */
#define NCZ_AVAILABLE_IN_ALL _NCZ_EXTERN

/**
 * NCZ_AVAILABLE_IN_1_0:
 *
 * Marks a symbol added in version 1.0.
 *
 * Since: 1.0
 */
#if NCZ_VERSION_MAX_ALLOWED < NCZ_VERSION_1_0
#define NCZ_AVAILABLE_IN_1_0 G_UNAVAILABLE (1, 0) _NCZ_EXTERN
#else
#define NCZ_AVAILABLE_IN_1_0 _NCZ_EXTERN
#endif

/**
 * NCZ_DEPRECATED:
 *
 * Marks a deprecated symbol.
 *
 * Since: 1.0
 */
#define NCZ_DEPRECATED G_DEPRECATED _NCZ_EXTERN
/**
 * NCZ_DEPRECATED_FOR:
 * @f: the replacement
 *
 * Marks a deprecated symbol and names its replacement.
 *
 * Since: 1.0
 */
#define NCZ_DEPRECATED_FOR(f) G_DEPRECATED_FOR (f) _NCZ_EXTERN

/**
 * NCZ_DEPRECATED_IN_1_0:
 *
 * Marks a symbol deprecated in version 1.0.
 *
 * Since: 1.0
 */
/**
 * NCZ_DEPRECATED_IN_1_0_FOR:
 * @f: the replacement
 *
 * Marks a symbol deprecated in version 1.0 and names its replacement.
 *
 * Since: 1.0
 */
#if NCZ_VERSION_MIN_REQUIRED >= NCZ_VERSION_1_0
#define NCZ_DEPRECATED_IN_1_0 NCZ_DEPRECATED
#define NCZ_DEPRECATED_IN_1_0_FOR(f) NCZ_DEPRECATED_FOR (f)
#else
#define NCZ_DEPRECATED_IN_1_0 _NCZ_EXTERN
#define NCZ_DEPRECATED_IN_1_0_FOR(f) _NCZ_EXTERN
#endif

/* For symbols exported for Ncz's own modules but not part of the
 * stable public API (declared only in private headers). */
#define NCZ_PRIVATE_API _NCZ_EXTERN

/* For the functions of the module SDK (<ncz/ncz-module.h>). */
#define NCZ_MODULE_API _NCZ_EXTERN

/* For the entry points of plugin modules. */
#define NCZ_PLUGIN_EXPORT _NCZ_EXPORT
