package catalog

// ScanStats is an optional capability of a RecordReader: how much it has read from storage.
// The executor's scan asks every reader it closes for it (with a type assertion) and shows
// the total in EXPLAIN ANALYZE; readers without it count as zero bytes.
type ScanStats interface {
	// BytesRead is the number of bytes this reader has read from storage so far (for an
	// in-memory table: the size of the column data it returned).
	BytesRead() int64
}

// CacheStats is an optional capability of a RecordReader next to ScanStats: how many bytes
// of data pages it took from a cache in memory instead of reading them from storage. EXPLAIN
// ANALYZE shows them as cached= beside read=.
type CacheStats interface {
	// BytesCached is the number of page bytes this reader has taken from a cache so far.
	BytesCached() int64
}
