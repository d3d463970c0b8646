/* ncz-cdl-value.c: the constants of CDL attribute and data lists as the
 * bytes of a type, converted as ncgen converts them
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void
value_clear (gpointer p)
{
  Value *v = p;
  g_clear_pointer (&v->str, g_free);
}

GArray *
cdl_value_list_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Value));
  g_array_set_clear_func (a, value_clear);
  return a;
}

guint64
cdl_value_bits (const Value *v)
{
  if (v->kind == VAL_CHAR)
    return v->ch;
  if (v->is_real)
    {
      double d = v->real;
      if (isnan (d))
        return 0;
      if (d >= 18446744073709551616.0)
        return G_MAXUINT64;
      if (d >= 9223372036854775808.0)
        return (guint64) d;
      if (d <= -9223372036854775808.0)
        return (guint64) G_MININT64;
      return (guint64) (gint64) d;
    }
  return v->neg ? (guint64) 0 - v->mag : v->mag;
}

static double
value_real (const Value *v)
{
  if (v->kind == VAL_CHAR)
    return v->ch;
  if (v->is_real)
    return v->real;
  return v->neg ? -(double) v->mag : (double) v->mag;
}

/* @v as a float, rounded once to nearest as C converts a value to float:
 * a double beyond FLT_MAX but below FLT_MAX + half a unit in the last
 * place is FLT_MAX, from there on it is Infinity (no undefined
 * conversion of an out-of-range double). */
static float
value_float (const Value *v)
{
  static const double overflow = 0x1.ffffffp+127;   /* FLT_MAX + half an ulp */
  double d;

  if (v->kind == VAL_CHAR)
    return v->ch;
  if (!v->is_real)
    return v->neg ? (float) (gint64) ((guint64) 0 - v->mag) : (float) v->mag;
  d = v->real;
  if (isnan (d) || isinf (d) || fabs (d) <= FLT_MAX)
    return (float) d;
  if (fabs (d) >= overflow)
    return d > 0 ? INFINITY : -INFINITY;
  return d > 0 ? FLT_MAX : -FLT_MAX;
}

void
cdl_value_store (const Value *v, NczDataType type, guint8 *out)
{
  guint64 bits = cdl_value_bits (v);

  switch (type)
    {
    case NCZ_DATA_TYPE_BYTE:
    case NCZ_DATA_TYPE_UBYTE:
    case NCZ_DATA_TYPE_CHAR:
      *out = (guint8) bits;
      break;
    case NCZ_DATA_TYPE_SHORT:
    case NCZ_DATA_TYPE_USHORT:
      {
        guint16 x = (guint16) bits;
        memcpy (out, &x, sizeof x);
        break;
      }
    case NCZ_DATA_TYPE_INT:
    case NCZ_DATA_TYPE_UINT:
      {
        guint32 x = (guint32) bits;
        memcpy (out, &x, sizeof x);
        break;
      }
    case NCZ_DATA_TYPE_INT64:
    case NCZ_DATA_TYPE_UINT64:
      memcpy (out, &bits, sizeof bits);
      break;
    case NCZ_DATA_TYPE_FLOAT:
      {
        float f = value_float (v);
        memcpy (out, &f, sizeof f);
        break;
      }
    case NCZ_DATA_TYPE_DOUBLE:
      {
        double d = value_real (v);
        memcpy (out, &d, sizeof d);
        break;
      }
    default:
      break;
    }
}
