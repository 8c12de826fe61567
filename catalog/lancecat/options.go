package lancecat

import (
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// DefaultCacheBytes is the memory budget of a catalog's caches when Options.CacheBytes is 0.
const DefaultCacheBytes = 256 << 20

// DefaultDataCacheBytes is the budget of a catalog's cache of data-file page bytes when
// Options.DataCacheBytes is 0.
const DefaultDataCacheBytes = 1 << 30

// Per-entry overheads added to the size estimates (Go structs, maps and pointers the
// decoded objects hold besides their encoded bytes).
const (
	manifestOverhead = 4 << 10
	fileOverhead     = 2 << 10
)

// Options configure a Catalog. The zero value gives New's defaults.
type Options struct {
	// CacheBytes bounds the memory of the catalog's caches, in bytes: a quarter for decoded
	// manifests, weighed by their protobuf size, and the rest for open data-file readers,
	// weighed by the metadata bytes (footer, column metadata, page tables) they read when
	// opened. 0 means DefaultCacheBytes; a negative value disables both caches.
	CacheBytes int64
	// DataCacheBytes bounds the catalog's cache of page bytes read from 2.0+ data files
	// (file.BlockCache, shared by all its tables): repeated scans decode cached pages
	// instead of reading them from the store again. Cache hits are not store reads, so
	// scans' BytesRead (EXPLAIN ANALYZE, scan stats) counts only the bytes a scan missed.
	// 0 means DefaultDataCacheBytes; a negative value disables the cache. Legacy (v1)
	// files are not cached yet.
	DataCacheBytes int64
	// Bases opens the object stores of datasets' base paths (lance.table.BasePath.path, a
	// URI or a local path); the catalog opens each base once. When nil, the catalog's store
	// opens them if it implements lanceio.Opener; otherwise reading a file under a base path
	// fails with table.ErrUnsupportedFeature.
	Bases lanceio.Opener
}

// cacheBudgets splits CacheBytes between the manifest and the data-file caches.
func (o Options) cacheBudgets() (manifests, files int64) {
	total := o.CacheBytes
	switch {
	case total == 0:
		total = DefaultCacheBytes
	case total < 0:
		return 0, 0
	}
	manifests = total / 4
	return manifests, total - manifests
}

// blockCache returns the data-file page cache DataCacheBytes asks for, nil for none.
func (o Options) blockCache() *file.BlockCache {
	switch n := o.DataCacheBytes; {
	case n < 0:
		return nil
	case n == 0:
		return file.NewBlockCache(DefaultDataCacheBytes)
	default:
		return file.NewBlockCache(n)
	}
}

// manifestCost is the size estimate of a cached manifest.
func manifestCost(m *table.Manifest) int64 { return m.EncodedSize() + manifestOverhead }

// fileCost is the size estimate of a cached data-file reader that read metadataBytes when
// it was opened.
func fileCost(metadataBytes int64) int64 { return metadataBytes + fileOverhead }
