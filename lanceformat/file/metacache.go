package file

import (
	"context"
	"sync"
	"unsafe"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// OpenOptions configure OpenWith. The zero value gives Open's behaviour.
type OpenOptions struct {
	// MetaBytes bounds the parsed page metadata (mini-block chunk tables) the Reader keeps
	// for all its reads to share: the file is immutable, so a table parsed once serves
	// every later ReadRange, Take and Cursor. 0 or less keeps none (each call, or each
	// Cursor, parses the tables it needs, as Open's Readers do).
	MetaBytes int64
	// OnMeta, when set, is called with the size of every parsed table the Reader keeps,
	// so that a cache holding the Reader can count its growth. It may be called from
	// concurrent reads.
	OnMeta func(bytes int64)
	// Blocks, when set, keeps the page bytes the Reader's calls read (ReadRange, Take,
	// Cursor) for later calls of this and other Readers sharing the cache. Bytes served
	// from it are not read from the store, so they are not counted by WithReadCounter.
	Blocks *BlockCache
	// FileID names the file to Blocks: it must differ between files of different stores
	// (a store URI plus the path, for example). Empty means the path.
	FileID string
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, store lanceio.ObjectStore, path string, opts OpenOptions) (*Reader, error) {
	r, err := Open(ctx, store, path)
	if err != nil {
		return nil, err
	}
	if opts.Blocks != nil {
		id := opts.FileID
		if id == "" {
			id = path
		}
		r.blocks, r.fileID = opts.Blocks, opts.Blocks.fileID(id, r.size)
	}
	if opts.MetaBytes > 0 {
		r.meta = &metaCache{limit: opts.MetaBytes, onAdd: opts.OnMeta, tabs: map[pageKey][]encoding.Chunk{}}
	}
	return r, nil
}

// chunkSize is the in-memory size of one parsed chunk table entry.
const chunkSize = int64(unsafe.Sizeof(encoding.Chunk{}))

// metaCache holds the parsed chunk tables of one Reader, up to limit bytes (tables past
// the limit are parsed per call again). It is safe for concurrent use. Tables are never
// evicted: the whole cache goes with its Reader.
type metaCache struct {
	mu    sync.Mutex
	tabs  map[pageKey][]encoding.Chunk
	used  int64
	limit int64
	onAdd func(int64)
}

// get returns the chunk table of key, if kept.
func (m *metaCache) get(key pageKey) ([]encoding.Chunk, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.tabs[key]
	return c, ok
}

// add keeps the chunk table of key if it fits the limit. Callers must not modify c
// afterwards (every read shares it).
func (m *metaCache) add(key pageKey, c []encoding.Chunk) {
	if m == nil {
		return
	}
	cost := int64(cap(c))*chunkSize + 64 // plus the map entry, roughly
	m.mu.Lock()
	if _, ok := m.tabs[key]; ok || m.used+cost > m.limit {
		m.mu.Unlock()
		return
	}
	m.tabs[key] = c
	m.used += cost
	m.mu.Unlock()
	if m.onAdd != nil {
		m.onAdd(cost)
	}
}

// MetaBytes is the size of the parsed page metadata the Reader keeps (OpenOptions.MetaBytes).
func (r *Reader) MetaBytes() int64 {
	if r.meta == nil {
		return 0
	}
	r.meta.mu.Lock()
	defer r.meta.mu.Unlock()
	return r.meta.used
}
