/* ncz-s3-xml.h: the few S3 XML replies the store reads (not installed)
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The text of every leaf element of an XML document, in document order,
 * as pairs "Root/Parent/Leaf", text (a GPtrArray of char*, 2 entries a
 * leaf), or NULL when @data is not well-formed XML. */
GPtrArray *ncz_s3_xml_leaves (const char *data, gsize length);

/* The text of the first leaf at @path, or NULL. */
const char *ncz_s3_xml_find (GPtrArray *leaves, const char *path);

/* XML character escaping of @text for an element's content. */
char *ncz_s3_xml_escape (const char *text);

G_END_DECLS
