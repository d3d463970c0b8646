/* ncz.h: the Ncz library
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#define __NCZ_H_INSIDE__

#include <ncz/ncz-version-macros.h>
#include <ncz/ncz-error.h>
#include <ncz/ncz-data-type.h>
#include <ncz/ncz-url.h>
#include <ncz/ncz-store.h>
#include <ncz/ncz-memory-store.h>
#include <ncz/ncz-attribute.h>
#include <ncz/ncz-dimension.h>
#include <ncz/ncz-variable.h>
#include <ncz/ncz-chunk-info.h>
#include <ncz/ncz-group.h>
#include <ncz/ncz-dataset.h>
#include <ncz/ncz-format.h>
#include <ncz/ncz-codec.h>
#include <ncz/ncz-registry.h>
#include <ncz/ncz-plugin.h>
#include <ncz/ncz-enum-types.h>

#undef __NCZ_H_INSIDE__
