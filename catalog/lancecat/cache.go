package lancecat

import (
	"math"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// byteCache is a least-recently-used cache bounded by the summed size estimates of its
// values rather than by their number. It is safe for concurrent use.
//
// A value whose estimate alone exceeds the budget is not cached. A budget of 0 or less
// disables the cache: Get always misses and Add does nothing.
type byteCache[K comparable, V any] struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[K, *sized[V]]
	budget int64
	used   int64
}

// sized is a cached value with the size estimate it was added with.
type sized[V any] struct {
	v    V
	cost int64
}

// newByteCache returns a cache holding at most budget bytes of values.
func newByteCache[K comparable, V any](budget int64) *byteCache[K, V] {
	c := &byteCache[K, V]{budget: budget}
	// The entry count is unbounded (math.MaxInt never fails NewLRU); eviction is by bytes.
	l, err := simplelru.NewLRU[K, *sized[V]](math.MaxInt, func(_ K, s *sized[V]) { c.used -= s.cost })
	if err != nil {
		panic(err) // unreachable: NewLRU fails only for a non-positive size
	}
	c.lru = l
	return c
}

// Get returns the value cached under k and marks it most recently used.
func (c *byteCache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.lru.Get(k)
	if !ok {
		var zero V
		return zero, false
	}
	return s.v, true
}

// Add caches v under k with the size estimate cost (bytes), replacing any value there, and
// evicts least recently used values until the cache fits its budget again.
func (c *byteCache[K, V]) Add(k K, v V, cost int64) {
	cost = max(cost, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost > c.budget {
		c.lru.Remove(k) // a stale smaller value must not outlive a replacement we refuse
		return
	}
	c.lru.Remove(k)
	c.lru.Add(k, &sized[V]{v: v, cost: cost})
	c.used += cost
	for c.used > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// Grow adds delta bytes to the size estimate of the value cached under k, if same accepts
// it (a value that grows after it was added, such as a data-file reader keeping parsed
// page metadata; same tells it from a newer value under the same key), and evicts least
// recently used values until the cache fits its budget again: a value grown past the
// whole budget is dropped. Recency is unchanged.
func (c *byteCache[K, V]) Grow(k K, same func(V) bool, delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.lru.Peek(k)
	if !ok || !same(s.v) {
		return
	}
	c.used += delta
	s.cost += delta // the eviction callback subtracts the grown cost
	if s.cost > c.budget {
		c.lru.Remove(k)
		return
	}
	for c.used > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// Budget is the most bytes of values the cache holds (0 or less: caching is off).
func (c *byteCache[K, V]) Budget() int64 { return c.budget }

// Bytes is the summed size estimate of the cached values.
func (c *byteCache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Len is the number of cached values.
func (c *byteCache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Contains reports whether k is cached, without changing its recency.
func (c *byteCache[K, V]) Contains(k K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Contains(k)
}
