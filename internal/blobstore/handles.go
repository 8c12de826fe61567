package blobstore

import (
	"container/list"
	"os"
	"strings"
	"sync"
)

// maxOpenHandles bounds the read handles one FileStore keeps open.
const maxOpenHandles = 64

// cacheable reports whether reads of object path p may share a long-lived handle. Only Lance
// data files qualify: their names are unique (a UUID) and they are never rewritten, so a
// handle cannot go stale behind another process's rename. Every other object (manifests,
// _latest.manifest, deletion files, transaction files) is opened per read.
func cacheable(p string) bool { return strings.HasSuffix(p, ".lance") }

// handle is one shared open file. refs counts the reads in progress; a handle evicted or
// invalidated while in use is closed by its last reader.
type handle struct {
	f    *os.File
	key  string
	refs int
	gone bool // no longer in the cache
	elem *list.Element
}

// handleCache is a bounded LRU of open read-only files, keyed by local path. It starts no
// goroutines; handles are closed on eviction, on invalidation and by closeAll.
type handleCache struct {
	mu   sync.Mutex
	max  int
	m    map[string]*handle
	lru  list.List // front: most recently used; values are *handle
	open func(string) (*os.File, error)
}

func newHandleCache(max int) *handleCache {
	return &handleCache{max: max, m: map[string]*handle{}, open: os.Open}
}

// acquire returns an open handle for lp; the caller must release it.
func (c *handleCache) acquire(lp string) (*handle, error) {
	c.mu.Lock()
	if h, ok := c.m[lp]; ok {
		h.refs++
		c.lru.MoveToFront(h.elem)
		c.mu.Unlock()
		return h, nil
	}
	c.mu.Unlock()
	f, err := c.open(lp) // outside the lock: opens of different files proceed in parallel
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.m[lp]; ok { // another reader opened it meanwhile
		_ = f.Close()
		h.refs++
		c.lru.MoveToFront(h.elem)
		return h, nil
	}
	h := &handle{f: f, key: lp, refs: 1}
	h.elem = c.lru.PushFront(h)
	c.m[lp] = h
	for c.lru.Len() > c.max {
		c.dropLocked(c.lru.Back().Value.(*handle))
	}
	return h, nil
}

// release ends one read of h.
func (c *handleCache) release(h *handle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h.refs--
	if h.gone && h.refs == 0 {
		_ = h.f.Close() // read-only handle: a close error cannot lose data
	}
}

// invalidate drops the handle of lp, if any (the object was replaced or deleted).
func (c *handleCache) invalidate(lp string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.m[lp]; ok {
		c.dropLocked(h)
	}
}

// closeAll drops every handle; those in use close when their reads end.
func (c *handleCache) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.lru.Len() > 0 {
		c.dropLocked(c.lru.Back().Value.(*handle))
	}
}

// dropLocked removes h from the cache and closes it if no read uses it.
func (c *handleCache) dropLocked(h *handle) {
	c.lru.Remove(h.elem)
	delete(c.m, h.key)
	h.gone = true
	if h.refs == 0 {
		_ = h.f.Close()
	}
}

// openCount is the number of handles in the cache (for tests).
func (c *handleCache) openCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
