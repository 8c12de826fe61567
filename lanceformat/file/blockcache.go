package file

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"sync"
	"sync/atomic"
)

// BlockCache keeps page bytes read from Lance data files between calls, bounded by bytes
// and evicting the least recently used block first, so that repeated scans of the same
// pages decode from memory instead of copying them out of the store (the OS page cache)
// again. Data files are immutable once written, so a block never goes stale: it is keyed
// by the file's identity (given to OpenWith, plus its size) and the extent (offset,
// length) a read asked for. Blocks are shared by concurrent reads and must never be
// written to; decoders only read page bytes. An evicted block still referenced by a
// running read stays alive until that read drops it (the garbage collector frees it).
//
// Reads larger than an eighth of the budget bypass the cache (they would flush most of
// it). When the environment variable FLIGHTD_POISON_FREED is set (make test sets it),
// every block keeps a CRC-32 of its bytes taken when it was inserted, checked on every
// hit: a mismatch (a decoder wrote into page bytes) panics. A BlockCache is safe for
// concurrent use; the zero value is not usable, use NewBlockCache.
type BlockCache struct {
	mu       sync.Mutex
	budget   int64
	maxBlock int64
	used     int64
	blocks   map[blockKey]*cachedBlock
	lru      cachedBlock // sentinel of the recency ring: lru.next is the newest block
	files    map[fileIdent]uint64
	checksum bool

	hits, misses atomic.Int64
}

// blockOverhead is the bookkeeping a cached block costs besides its bytes (entry, map slot).
const blockOverhead = 128

// blockKey identifies an extent of a file; file is the number BlockCache.fileID gave it.
type blockKey struct {
	file     uint64
	off, len uint64
}

// fileIdent is what identifies a file to the cache: the name its opener gave (store and
// path) and its size, in case a name is ever reused for other bytes.
type fileIdent struct {
	name string
	size uint64
}

// cachedBlock is one cached extent, linked into the recency ring.
type cachedBlock struct {
	key        blockKey
	data       []byte
	sum        uint32 // CRC-32 of data at insert (checksum mode only)
	prev, next *cachedBlock
}

// errBlockMutated is the panic value of a checksum mismatch (checksum mode).
var errBlockMutated = errors.New("cached page bytes changed after they were cached: a decoder wrote into its input")

// NewBlockCache returns a cache of at most budget bytes of page data (budget > 0).
func NewBlockCache(budget int64) *BlockCache {
	c := &BlockCache{budget: budget, maxBlock: budget / 8, blocks: map[blockKey]*cachedBlock{},
		files: map[fileIdent]uint64{}, checksum: os.Getenv("FLIGHTD_POISON_FREED") != ""}
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	return c
}

// fileID returns the number that stands for the file in block keys, assigning one on
// first use. Numbers are never reused; a file costs one small map entry for the cache's
// lifetime.
func (c *BlockCache) fileID(name string, size uint64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fileIdent{name, size}
	id, ok := c.files[k]
	if !ok {
		id = uint64(len(c.files)) + 1
		c.files[k] = id
	}
	return id
}

// fits reports whether a read of n bytes may be cached.
func (c *BlockCache) fits(n uint64) bool { return n > 0 && n <= uint64(c.maxBlock) }

// get returns the cached bytes of extent [off, off+n) of file id, marking them recently used.
func (c *BlockCache) get(id, off, n uint64) ([]byte, bool) {
	c.mu.Lock()
	b, ok := c.blocks[blockKey{id, off, n}]
	if ok {
		c.unlink(b)
		c.pushFront(b)
	}
	c.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	if c.checksum && crc32.ChecksumIEEE(b.data) != b.sum {
		panic(fmt.Errorf("block cache: file %d [%d, +%d): %w", id, off, n, errBlockMutated))
	}
	return b.data, true
}

// put caches data as extent [off, off+len(data)) of file id and returns the bytes callers
// should use: data, or the block already cached for the extent. data must not be written
// to afterwards. Blocks too large for the cache are returned without being kept.
func (c *BlockCache) put(id, off uint64, data []byte) []byte {
	n := uint64(len(data))
	if !c.fits(n) {
		return data
	}
	data = data[:n:n]
	b := &cachedBlock{key: blockKey{id, off, n}, data: data}
	if c.checksum {
		b.sum = crc32.ChecksumIEEE(data)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.blocks[b.key]; ok {
		return old.data
	}
	c.blocks[b.key] = b
	c.pushFront(b)
	c.used += int64(n) + blockOverhead
	for c.used > c.budget && c.lru.prev != &c.lru {
		old := c.lru.prev
		c.unlink(old)
		delete(c.blocks, old.key)
		c.used -= int64(len(old.data)) + blockOverhead
	}
	return data
}

// putCopy is put of a copy of data, made only if the extent is not cached yet: for bytes
// that lie inside a larger read, which a slice would keep alive.
func (c *BlockCache) putCopy(id, off uint64, data []byte) {
	if !c.fits(uint64(len(data))) {
		return
	}
	c.mu.Lock()
	_, ok := c.blocks[blockKey{id, off, uint64(len(data))}]
	c.mu.Unlock()
	if !ok {
		c.put(id, off, slices.Clone(data))
	}
}

func (c *BlockCache) unlink(b *cachedBlock) {
	b.prev.next, b.next.prev = b.next, b.prev
	b.prev, b.next = nil, nil
}

func (c *BlockCache) pushFront(b *cachedBlock) {
	b.prev, b.next = &c.lru, c.lru.next
	c.lru.next.prev = b
	c.lru.next = b
}

// BlockCacheStats is a snapshot of a BlockCache's counters.
type BlockCacheStats struct {
	Hits, Misses int64 // lookups of cacheable extents that found / did not find a block
	Blocks       int   // blocks held
	Bytes        int64 // bytes held, bookkeeping included
}

// Stats returns the cache's counters.
func (c *BlockCache) Stats() BlockCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return BlockCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Blocks: len(c.blocks), Bytes: c.used}
}

// Verify checks every cached block against the checksum taken when it was inserted
// (checksum mode: FLIGHTD_POISON_FREED set; otherwise it checks nothing) and returns an
// error naming the first block whose bytes changed. Tests call it after reading.
func (c *BlockCache) Verify() error {
	if !c.checksum {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for b := c.lru.next; b != &c.lru; b = b.next {
		if crc32.ChecksumIEEE(b.data) != b.sum {
			return fmt.Errorf("block cache: file %d [%d, +%d): %w", b.key.file, b.key.off, b.key.len, errBlockMutated)
		}
	}
	return nil
}
