package index

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// DefaultCacheBytes is the default budget of the process-wide cache of decoded index pages
// (BTree page_data pages and bitmaps), as Lance keeps an index cache across queries.
const DefaultCacheBytes = 256 << 20

// SetCacheBytes sets the budget of the process-wide cache of decoded index pages and
// empties it; 0 or less disables the cache.
func SetCacheBytes(n int64) { pages.reset(n) }

// CacheStats are counters of the page cache.
type CacheStats struct {
	Hits, Misses int64 // lookups
	Bytes        int64 // summed size estimates of the cached pages
	Entries      int
}

// PageCacheStats returns the page cache's counters (for tests and benchmarks).
func PageCacheStats() CacheStats {
	pages.mu.Lock()
	defer pages.mu.Unlock()
	return CacheStats{Hits: pages.hits, Misses: pages.misses, Bytes: pages.used, Entries: pages.lru.Len()}
}

// pages is the process-wide page cache. Entries hold only Go memory (no Arrow buffers), so
// nothing is released on eviction and callers' allocators stay balanced.
var pages = newPageCache(DefaultCacheBytes)

// cacheKey names one cached item: owner is an opened segment (newCacheOwner), item a page
// number or a key row within it. Segments are opened once per snapshot and their files are
// immutable, so entries never go stale; a segment opened again gets a new owner.
type cacheKey struct {
	owner, item uint64
}

// owners numbers opened segments.
var owners atomic.Uint64

// newCacheOwner returns a new owner id for a segment's cache entries.
func newCacheOwner() uint64 { return owners.Add(1) }

// pageCache is a least-recently-used cache bounded by the summed size estimates of its
// values.
type pageCache struct {
	mu           sync.Mutex
	lru          *simplelru.LRU[cacheKey, cachedPage]
	budget, used int64
	hits, misses int64
}

// cachedPage is a cached value with its size estimate.
type cachedPage struct {
	v    any
	cost int64
}

func newPageCache(budget int64) *pageCache {
	c := &pageCache{}
	c.reset(budget)
	return c
}

// reset empties the cache and sets its budget.
func (c *pageCache) reset(budget int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The entry count is unbounded (math.MaxInt never fails NewLRU); eviction is by bytes.
	l, _ := simplelru.NewLRU[cacheKey, cachedPage](math.MaxInt, func(_ cacheKey, p cachedPage) { c.used -= p.cost })
	c.lru, c.budget, c.used = l, budget, 0
}

// get returns the value cached under k.
func (c *pageCache) get(k cacheKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.lru.Get(k)
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return p.v, ok
}

// add caches v under k with size estimate cost (bytes), evicting the least recently used
// values beyond the budget. A value larger than the budget is not cached.
func (c *pageCache) add(k cacheKey, v any, cost int64) {
	cost = max(cost, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost > c.budget {
		return
	}
	c.lru.Remove(k)
	c.lru.Add(k, cachedPage{v: v, cost: cost})
	c.used += cost
	for c.used > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}
