/* ncz-buffer.c: reusable chunk-sized buffers
 *
 * Chunk I/O allocates and frees buffers of a few MiB for every chunk:
 * the chunk being built, the codec's output. Fresh allocations of that
 * size are new mappings whose pages fault in on first touch, which costs
 * a third of the time of a fast codec. A small pool keeps some freed
 * buffers for reuse; it holds at most NCZ_BUFFER_POOL_MAX of them, so
 * memory stays bounded whatever the dataset size.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"

#define NCZ_BUFFER_POOL_MIN (256 * 1024)   /* smaller ones come from malloc's caches */
#define NCZ_BUFFER_POOL_MAX 16

typedef struct {
  gpointer data;
  gsize capacity;
} PoolSlot;

static GMutex pool_lock;
static PoolSlot pool[NCZ_BUFFER_POOL_MAX];
static guint pool_len;

/* A buffer of at least @size bytes (contents undefined), from the pool
 * when one of a close capacity is free; NULL when out of memory. Its
 * capacity is returned in @capacity. */
gpointer
ncz_buffer_alloc (gsize size, gsize *capacity)
{
  if (size >= NCZ_BUFFER_POOL_MIN)
    {
      g_mutex_lock (&pool_lock);
      for (guint i = 0; i < pool_len; i++)
        if (pool[i].capacity >= size && pool[i].capacity - size <= size / 4)
          {
            gpointer data = pool[i].data;
            *capacity = pool[i].capacity;
            pool[i] = pool[--pool_len];
            g_mutex_unlock (&pool_lock);
            return data;
          }
      g_mutex_unlock (&pool_lock);
    }
  *capacity = size;
  return g_try_malloc (MAX (size, 1));
}

/* Gives a buffer from ncz_buffer_alloc() back */
void
ncz_buffer_release (gpointer data, gsize capacity)
{
  if (data == NULL)
    return;
  if (capacity >= NCZ_BUFFER_POOL_MIN)
    {
      g_mutex_lock (&pool_lock);
      if (pool_len < NCZ_BUFFER_POOL_MAX)
        {
          pool[pool_len].data = data;
          pool[pool_len].capacity = capacity;
          pool_len++;
          g_mutex_unlock (&pool_lock);
          return;
        }
      g_mutex_unlock (&pool_lock);
    }
  g_free (data);
}

typedef struct {
  gpointer data;
  gsize capacity;
} Held;

static void
held_free (gpointer p)
{
  Held *h = p;
  ncz_buffer_release (h->data, h->capacity);
  g_free (h);
}

/* Wraps the first @length bytes of a buffer from ncz_buffer_alloc() in a
 * GBytes that gives the buffer back when freed. */
GBytes *
ncz_buffer_new_bytes (gpointer data, gsize length, gsize capacity)
{
  Held *h = g_new (Held, 1);
  h->data = data;
  h->capacity = capacity;
  return g_bytes_new_with_free_func (data, length, held_free, h);
}
