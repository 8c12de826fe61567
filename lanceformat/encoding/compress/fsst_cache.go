package compress

import "sync"

// A page's FSST symbol table is stored in its page metadata, so every read of the page (a
// point lookup reads one row) would parse the 2 KiB blob again: ~8 KiB allocated (symbol
// slices and the decoding table) and a pass over 256 symbols. ParseFSSTSymbolTable keeps the
// tables it parsed, keyed by the blob's full content (so a cache hit is exactly the table
// the blob parses to, whoever's memory the blob is in). The cache holds at most
// fsstCacheCap tables and is emptied when full: a process reads a bounded working set of
// pages, and refilling costs one parse per table.

// fsstCacheCap bounds the number of cached tables (~10 KiB each).
const fsstCacheCap = 512

// fsstCache maps symbol table blobs to their parsed tables.
type fsstCache struct {
	mu sync.RWMutex
	m  map[string]*FSSTTable
}

var fsstTables = &fsstCache{m: map[string]*FSSTTable{}}

// get returns the table cached for blob, nil if none.
func (c *fsstCache) get(blob []byte) *FSSTTable {
	c.mu.RLock()
	t := c.m[string(blob)] // no copy: the compiler looks the bytes up in place
	c.mu.RUnlock()
	return t
}

// put caches tab, the table blob parses to. The caller does not modify blob afterwards.
func (c *fsstCache) put(blob []byte, tab *FSSTTable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= fsstCacheCap {
		clear(c.m)
	}
	c.m[string(blob)] = tab
}
