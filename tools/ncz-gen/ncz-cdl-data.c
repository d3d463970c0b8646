/* ncz-cdl-data.c: the data sections of CDL written to their variables,
 * laid out as ncgen lays them out
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "ncz-cdl-private.h"

#include <string.h>

#include <ncz/ncz-module.h>

void
cdl_data_item_free (gpointer p)
{
  DataItem *d = p;
  g_object_unref (d->var);
  g_array_unref (d->values);
  g_free (d);
}

/* The fill value used for '_' and for padding, @size bytes (zeros if the
 * variable has none). */
static void
fill_bytes (NczVariable *var, guint8 *out, gsize size)
{
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);
  memset (out, 0, size);
  if (fill && g_bytes_get_size (fill) == size)
    memcpy (out, g_bytes_get_data (fill, NULL), size);
}

static char *
fill_string (NczVariable *var)
{
  g_autoptr(GBytes) fill = ncz_variable_get_fill_value (var);
  gsize n = 0;
  const char *s = fill ? g_bytes_get_data (fill, &n) : NULL;
  return g_strndup (s ? s : "", n);
}

/* Writes the first @n elements (row-major) of @buffer: at most one
 * hyperslab per dimension. */
static gboolean
write_prefix (NczVariable *var, guint rank, const guint64 *shape, const guint8 *buffer,
              gsize elem_size, guint64 n, GError **error)
{
  g_autofree guint64 *start = g_new0 (guint64, MAX (rank, 1));
  g_autofree guint64 *count = g_new0 (guint64, MAX (rank, 1));
  guint64 offset = 0;

  if (rank == 0)
    return n == 0 || ncz_variable_write (var, NULL, 0, NULL, 0, NULL, 0, buffer, elem_size, NULL, error);
  for (guint d = 0; d < rank && offset < n; d++)
    {
      guint64 inner = 1, q;
      for (guint k = d + 1; k < rank; k++)
        inner *= shape[k];
      q = (n - offset) / inner;
      if (q > 0)
        {
          start[d] = 0;
          count[d] = q;
          for (guint k = d + 1; k < rank; k++)
            {
              start[k] = 0;
              count[k] = shape[k];
            }
          if (!ncz_variable_write (var, start, rank, count, rank, NULL, 0, buffer + offset * elem_size,
                                   (gsize) (q * inner) * elem_size, NULL, error))
            return FALSE;
          offset += q * inner;
        }
      start[d] = q;
      count[d] = 1;
    }
  return TRUE;
}

gboolean
cdl_data_write_item (Cdl *c, DataItem *item)
{
  NczVariable *var = item->var;
  NczDataType type = ncz_variable_get_value_type (var);
  guint rank = 0;
  g_autofree guint64 *shape = ncz_variable_get_shape (var, &rank);
  gboolean first_unlimited = rank > 0 && ncz_dimension_is_unlimited (ncz_variable_get_dimension (var, 0));
  guint64 capacity = 1, inner = 1;
  gsize elem_size = type == NCZ_DATA_TYPE_STRING ? sizeof (char *) : ncz_data_type_get_size (type);
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  guint64 n = 0;
  GError *err = NULL;
  const char *vname = ncz_variable_get_name (var);

  for (guint k = 1; k < rank; k++)
    {
      if (shape[k] == 0)
        return cdl_fail_at (c, item->line, item->col, NCZ_CDL_ERROR_INVALID,
                        "variable '%s' has a dimension of length 0: no room for data", vname);
      inner = inner > G_MAXUINT64 / shape[k] ? G_MAXUINT64 : inner * shape[k];
    }
  if (rank == 0)
    capacity = 1;
  else if (first_unlimited)
    capacity = G_MAXUINT64;
  else
    capacity = shape[0] == 0 ? 0 : (inner > G_MAXUINT64 / shape[0] ? G_MAXUINT64 : inner * shape[0]);

  if (c->max_elements > 0 && ncz_variable_get_chunk_n_elements (var) > c->max_elements)
    return cdl_fail_at (c, item->line, item->col, NCZ_CDL_ERROR_LIMIT,
                    "variable '%s': chunks larger than the limit of %" G_GUINT64_FORMAT " elements",
                    vname, c->max_elements);

  if (type == NCZ_DATA_TYPE_CHAR)
    {
      /* As ncgen lays char data out: a string starts on a row (the last
       * dimension, when it is not unlimited) and takes whole rows, an
       * empty one a row of its own; consecutive single characters run on.
       * What a string does not fill is the fill value, as are the
       * elements after the data, which are not written. */
      guint64 row = 1;
      guint8 fill;
      fill_bytes (var, &fill, 1);
      if (rank > 0 && !ncz_dimension_is_unlimited (ncz_variable_get_dimension (var, rank - 1)))
        row = shape[rank - 1];
      for (guint i = 0; i < item->values->len; i++)
        {
          Value *v = &g_array_index (item->values, Value, i);
          guint64 at = buf->len, want;
          if (v->kind == VAL_NIL)
            return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID, "NIL in char data");
          if (v->kind == VAL_STRING)
            {
              guint64 len = MAX (v->str_len, 1);
              if (row > 1)
                {
                  at = (at + row - 1) / row * row;
                  len = (len + row - 1) / row * row;
                }
              want = at + len;
            }
          else
            want = at + 1;
          if (want > capacity)
            want = capacity;
          if (c->max_elements > 0 && want > c->max_elements)
            return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_LIMIT,
                            "data of '%s' longer than the limit of %" G_GUINT64_FORMAT " elements",
                            vname, c->max_elements);
          if (want > G_MAXUINT32)
            return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_LIMIT, "data of '%s' too long", vname);
          if (at >= capacity)
            break;
          if (v->kind == VAL_STRING)
            {
              gsize old = buf->len;
              g_byte_array_set_size (buf, (guint) want);
              memset (buf->data + old, fill, buf->len - old);
              memcpy (buf->data + at, v->str, MIN (v->str_len, buf->len - at));
            }
          else
            {
              guint8 b = v->kind == VAL_FILL ? fill : (guint8) cdl_value_bits (v);
              g_byte_array_append (buf, &b, 1);
            }
        }
      n = buf->len;
    }
  else
    {
      if (item->values->len > capacity)
        {
          Value *v = &g_array_index (item->values, Value, (guint) MIN (capacity, G_MAXUINT));
          return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                          "too many values for variable '%s' (it holds %" G_GUINT64_FORMAT ")",
                          vname, capacity);
        }
      if (c->max_elements > 0 && item->values->len > c->max_elements)
        return cdl_fail_at (c, item->line, item->col, NCZ_CDL_ERROR_LIMIT,
                        "data of '%s' longer than the limit of %" G_GUINT64_FORMAT " elements",
                        vname, c->max_elements);
      n = item->values->len;
      g_byte_array_set_size (buf, (guint) (n * elem_size));
      for (guint i = 0; i < item->values->len; i++)
        {
          Value *v = &g_array_index (item->values, Value, i);
          guint8 *out = buf->data + i * elem_size;
          if (type == NCZ_DATA_TYPE_STRING)
            {
              if (v->kind == VAL_STRING)
                g_ptr_array_add (strings, g_strdup (v->str));
              else if (v->kind == VAL_NIL)
                g_ptr_array_add (strings, g_strdup (""));
              else if (v->kind == VAL_FILL)
                g_ptr_array_add (strings, fill_string (var));
              else if (v->kind == VAL_CHAR)
                g_ptr_array_add (strings, g_strndup ((const char *) &v->ch, 1));
              else
                return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                                "a number in data of string variable '%s'", vname);
              memcpy (out, &strings->pdata[strings->len - 1], sizeof (char *));
              continue;
            }
          if (v->kind == VAL_STRING)
            return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                            "a string in data of %s variable '%s'", ncz_data_type_get_name (type), vname);
          if (v->kind == VAL_NIL)
            return cdl_fail_at (c, v->line, v->col, NCZ_CDL_ERROR_INVALID,
                            "NIL in data of %s variable '%s'", ncz_data_type_get_name (type), vname);
          if (v->kind == VAL_FILL)
            fill_bytes (var, out, elem_size);
          else
            cdl_value_store (v, type, out);
        }
    }

  if (n == 0)
    return TRUE;
  if (!write_prefix (var, rank, shape, buf->data, elem_size, n, &err))
    return cdl_fail_model (c, item->line, item->col, err);
  return TRUE;
}
