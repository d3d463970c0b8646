/* interop-values.c: see interop-values.h
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "interop-values.h"

void
interop_value_at (NczDataType t, guint64 n, gpointer out)
{
  switch (t)
    {
    case NCZ_DATA_TYPE_BYTE:
      *(gint8 *) out = (gint8) ((gint64) ((n * 37 + 11) % 256) - 128);
      break;
    case NCZ_DATA_TYPE_UBYTE:
      *(guint8 *) out = (guint8) ((n * 37 + 11) % 256);
      break;
    case NCZ_DATA_TYPE_SHORT:
      *(gint16 *) out = (gint16) ((gint64) ((n * 1237 + 11) % 65536) - 32768);
      break;
    case NCZ_DATA_TYPE_USHORT:
      *(guint16 *) out = (guint16) ((n * 1237 + 11) % 65536);
      break;
    case NCZ_DATA_TYPE_INT:
      *(gint32 *) out = (gint32) ((gint64) ((n * 2654435761u + 12345u) % 4294967296u)
                                  - 2147483648LL);
      break;
    case NCZ_DATA_TYPE_UINT:
      *(guint32 *) out = (guint32) ((n * 2654435761u + 12345u) % 4294967296u);
      break;
    case NCZ_DATA_TYPE_INT64:
      {
        guint64 u = n * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) + 1;
        *(gint64 *) out = (gint64) (u ^ G_GUINT64_CONSTANT (0x8000000000000000));
      }
      break;
    case NCZ_DATA_TYPE_UINT64:
      *(guint64 *) out = n * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) + 1;
      break;
    case NCZ_DATA_TYPE_FLOAT:
      {
        volatile double p = (double) n * 1.1;
        *(float *) out = (float) (p - 5.0);
      }
      break;
    case NCZ_DATA_TYPE_DOUBLE:
      {
        volatile double p = (double) n * 0.1;
        *(double *) out = p - 3.0 / 7.0;
      }
      break;
    case NCZ_DATA_TYPE_CHAR:
      *(char *) out = (char) ('a' + n % 26);
      break;
    default:
      g_assert_not_reached ();
    }
}
