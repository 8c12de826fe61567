// Package index reads and writes Lance scalar indices (spec §3.6 and §8): the index
// metadata of a dataset version, and the BTREE, BITMAP, LABEL_LIST, ZONEMAP and BLOOMFILTER
// index files under _indices/{uuid}/.
//
//	List:   manifest IndexSection → []Info (name, uuid, fields, type, segments' coverage)
//	Open:   Info + store → Index (reads only the small lookup structures)
//	Search: Query (=, IN, <, <=, >, >=, BETWEEN, IS [NOT] NULL, array_has_any/all)
//	        → Result: Exact row-address set, AtMost candidate zones, or NotAnswerable
//	Write*: Arrow values + row addresses → index files + the IndexMetadata to commit
//	Commit: CommitSegment (a new index, or a delta segment from BuildFragments over the
//	        fragments appended since) and Drop, each one CreateIndex transaction
//
// Row addresses are fragment id << 32 | row offset. Results may contain deleted rows and
// cover only the segment's fragments: callers apply deletion vectors and scan uncovered
// fragments themselves.
//
// Not supported yet (errors wrap ErrNotSupported): searching vector, full-text, NGram and
// JSON indices (they are listed); index files in the legacy v1 Lance file format other
// than a BTree's (Lance ≤ 0.20 wrote BTrees so; legacy_open.go reads them), and legacy
// BTrees over columns with nulls (v1 pages cannot mark them; Search is NotAnswerable);
// building indices on datasets with stable row ids (searching them answers row ids, which
// callers map to addresses: see Open); writing label lists with the null-list buffer (we
// write index_version 0, so IS NULL on our label lists is not answerable); zone maps and
// bloom filters without the newer "null_bitmap" global buffer.
package index
