/* ncz-dump-cdl.c: what ncz-dump needs beyond writing CDL text
 * (tools/common/cdl-format.c): the fill value comparison of data
 * sections and the dataset name derived from a location
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-dump-cdl.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <ncz/ncz.h>

gboolean
cdl_float_equals (float value, float fill)
{
  if ((value > 0.0f) != (fill > 0.0f))
    return FALSE;
  if (isfinite (value) && isfinite (fill))
    {
      /* the tolerance is relative to the value, not to the fill value */
      float diff = fill - value;
      float tolerance = FLT_EPSILON * value;
      return fabsf (diff) <= fabsf (tolerance);
    }
  if (isnan (value) && isnan (fill))
    return TRUE;
  return isinf (value) && isinf (fill);
}

gboolean
cdl_double_equals (double value, double fill)
{
  if ((value > 0.0) != (fill > 0.0))
    return FALSE;
  if (isfinite (value) && isfinite (fill))
    return fabs (fill - value) <= fabs (DBL_EPSILON * value);
  if (isnan (value) && isnan (fill))
    return TRUE;
  return isinf (value) && isinf (fill);
}

/* The last '/'-separated component of @path with everything from its
 * last '.' on removed. */
static char *
strip_component (const char *path, gsize length)
{
  const char *start = path;
  const char *dot = NULL;

  for (gsize i = 0; i < length; i++)
    if (path[i] == '/')
      start = path + i + 1;
  for (const char *p = start; p < path + length; p++)
    if (*p == '.')
      dot = p;
  return g_strndup (start, (gsize) ((dot ? dot : path + length) - start));
}

/* Offset of the path of a "scheme://authority/path?query#fragment"
 * URL and its length; FALSE if @location is not such a URL. */
static gboolean
url_path_span (const char *location, gsize *offset, gsize *length)
{
  const char *p = location;
  const char *path;

  if (!g_ascii_isalpha (*p))
    return FALSE;
  while (g_ascii_isalnum (*p) || *p == '+' || *p == '-' || *p == '.')
    p++;
  if (strncmp (p, "://", 3) != 0)
    return FALSE;
  p += 3;
  path = p + strcspn (p, "/?#");
  *offset = (gsize) (path - location);
  *length = *path == '/' ? strcspn (path, "?#") : 0;
  return TRUE;
}

char *
cdl_dataset_name_from_location (const char *location)
{
  gsize offset, length;

  /* "#mode=bytes&key=dir/f.nc": the file is the key in the store the
   * URL names */
  if (strchr (location, '#') != NULL)
    {
      g_autoptr(NczUrl) url = ncz_url_parse (location, NULL);
      const char *key = url != NULL ? ncz_url_get_fragment_value (url, "key") : NULL;

      if (key != NULL && *key != '\0')
        return strip_component (key, strlen (key));
    }
  if (url_path_span (location, &offset, &length))
    {
      const char *path = location + offset;
      const char *slash = path;

      for (gsize i = 0; i < length; i++)
        if (path[i] == '/')
          slash = path + i;
      /* A URL whose path ends with '/' is named like a plain path */
      if (slash + 1 < path + length)
        return strip_component (path, length);
      return strip_component (location, strlen (location));
    }
  /* A plain path: a "#mode=..." fragment is not part of the name */
  return strip_component (location, strcspn (location, "#"));
}
