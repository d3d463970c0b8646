/* ncz-buffer.c: reusable chunk-sized buffers
 *
 * Chunk I/O allocates and frees buffers of a few MiB for every chunk:
 * the chunk being built, the object read from the store, the codec's
 * output. Fresh allocations of that size are new mappings whose pages
 * fault in on first touch, which costs a third of the time of a fast
 * codec. Each thread keeps a few freed buffers for its own reuse: a chunk
 * task allocates and frees on the thread it runs on, and a buffer reused
 * on the same core is still in its caches (handing buffers between
 * threads through one shared pool made reads slower than fresh pages:
 * every line written had to leave the other core's cache first). At most
 * NCZ_BUFFER_CACHE_SLOTS buffers per thread are kept, and a thread's are
 * freed when it ends, so memory stays bounded whatever the dataset size.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "config.h"

#include "ncz-core-private.h"

#define NCZ_BUFFER_POOL_MIN (256 * 1024)   /* smaller ones come from malloc's caches */
#define NCZ_BUFFER_CACHE_SLOTS 4
#define NCZ_BUFFER_ROUND (64 * 1024)

typedef struct {
  gpointer data;
  gsize capacity;
} Slot;

typedef struct {
  Slot slots[NCZ_BUFFER_CACHE_SLOTS];
  guint len;
} ThreadCache;

static void
thread_cache_free (gpointer p)
{
  ThreadCache *cache = p;

  for (guint i = 0; i < cache->len; i++)
    g_free (cache->slots[i].data);
  g_free (cache);
}

static GPrivate cache_key = G_PRIVATE_INIT (thread_cache_free);

/* A buffer of at least @size bytes (contents undefined), one this thread
 * freed before when one of a close capacity is kept; NULL when out of
 * memory. Its capacity is returned in @capacity. */
gpointer
ncz_buffer_alloc (gsize size, gsize *capacity)
{
  if (size >= NCZ_BUFFER_POOL_MIN)
    {
      ThreadCache *cache = g_private_get (&cache_key);

      for (guint i = 0; cache != NULL && i < cache->len; i++)
        if (cache->slots[i].capacity >= size && cache->slots[i].capacity - size <= size / 2)
          {
            gpointer data = cache->slots[i].data;
            *capacity = cache->slots[i].capacity;
            cache->slots[i] = cache->slots[--cache->len];
            return data;
          }
    }
  /* compressed objects and codec outputs vary in size from chunk to
   * chunk: some headroom lets the next one reuse this buffer */
  if (size >= NCZ_BUFFER_POOL_MIN && size <= G_MAXSIZE / 2)
    size = (size + size / 8 + NCZ_BUFFER_ROUND - 1) & ~(gsize) (NCZ_BUFFER_ROUND - 1);
  *capacity = size;
  return g_try_malloc (MAX (size, 1));
}

/* Gives a buffer from ncz_buffer_alloc() back (on any thread) */
void
ncz_buffer_release (gpointer data, gsize capacity)
{
  if (data == NULL)
    return;
  if (capacity >= NCZ_BUFFER_POOL_MIN)
    {
      ThreadCache *cache = g_private_get (&cache_key);

      if (cache == NULL)
        {
          cache = g_new0 (ThreadCache, 1);
          g_private_set (&cache_key, cache);
        }
      if (cache->len < NCZ_BUFFER_CACHE_SLOTS)
        {
          cache->slots[cache->len].data = data;
          cache->slots[cache->len].capacity = capacity;
          cache->len++;
          return;
        }
      /* full: keep the newest, whose pages are the warmest */
      g_free (cache->slots[0].data);
      cache->slots[0].data = data;
      cache->slots[0].capacity = capacity;
      return;
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
