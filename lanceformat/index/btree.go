package index

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// defaultBTreeBatch is the page size when page_lookup has no batch_size metadata.
const defaultBTreeBatch = 4096

// btreePage is one row of page_lookup.lance: the page's value range and null count.
type btreePage struct {
	min, max  value
	nullCount uint32
	idx       uint32
}

// btreeIndex reads a BTree segment (§8.1): page_lookup is loaded at open, page_data pages
// are read when a query first needs them and kept in the page cache (cache.go).
type btreeIndex struct {
	store     lanceio.ObjectStore
	dir       string
	covered   []uint32
	mem       memory.Allocator
	pages     []btreePage
	ints      *intBounds // the pages' bounds as int64s; nil unless every page has them
	batchSize uint64

	owner uint64 // this segment's entries in the page cache
	// legacy is set for BTrees in legacy v1 files: page k is page_data's batch k
	// (legacy_btree.go).
	legacy bool

	mu   sync.Mutex
	data indexFile // opened on first use
}

func openBTree(ctx context.Context, store lanceio.ObjectStore, dir string, covered []uint32,
	mem memory.Allocator) (*btreeIndex, error) {
	r, err := openFile(ctx, store, dir, btreeLookupFile)
	if err != nil {
		return nil, err
	}
	b := &btreeIndex{store: store, dir: dir, covered: covered, mem: mem, batchSize: defaultBTreeBatch,
		owner: newCacheOwner()}
	if s, ok := r.Schema().Metadata["batch_size"]; ok {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || n == 0 {
			return nil, corrupt("%s: batch_size %q", r.Path(), s)
		}
		b.batchSize = n
	}
	_, b.legacy = r.(*legacy.Reader)
	arrs, err := readColumns(ctx, r, 0, r.NumRows(), mem, "min", "max", "null_count", "page_idx")
	if err != nil {
		return nil, err
	}
	if b.legacy {
		arrs[0], arrs[1] = legacyNoNulls(arrs[0]), legacyNoNulls(arrs[1])
	}
	defer releaseAll(arrs)
	nulls, ok1 := arrs[2].(*array.Uint32)
	idx, ok2 := arrs[3].(*array.Uint32)
	if !ok1 || !ok2 {
		return nil, corrupt("%s: null_count/page_idx are %s/%s, want uint32", r.Path(), arrs[2].DataType(), arrs[3].DataType())
	}
	for i := range int(r.NumRows()) {
		lo, okLo := valueAt(arrs[0], i)
		hi, okHi := valueAt(arrs[1], i)
		if !okLo || !okHi {
			return nil, notSupported("btree over %s", arrs[0].DataType())
		}
		b.pages = append(b.pages, btreePage{min: lo, max: hi, nullCount: nulls.Value(i), idx: idx.Value(i)})
	}
	b.ints = newIntBounds(b.pages)
	return b, nil
}

func (b *btreeIndex) Type() Type { return TypeBTree }

// Search filters the rows of the pages whose range overlaps the query. Pages come from the
// page cache when there; the missing ones are read from page_data, runs of consecutive
// pages (a range query's) in one read of up to maxPagesPerRead pages, and cached.
func (b *btreeIndex) Search(ctx context.Context, q Query) (Result, error) {
	if b.legacy {
		if reason := b.legacyUnanswerable(); reason != "" {
			return Result{Kind: NotAnswerable, Reason: reason}, nil
		}
	}
	p, err := compile(q)
	if err != nil {
		return unanswerable(err)
	}
	out := Result{Kind: Exact, Rows: NewRowSet(), Covered: b.covered}
	if p.empty() {
		return out, nil
	}
	want := b.candidatePages(p)
	add := rowAdder{set: out.Rows, hint: min(len(want)*int(b.batchSize), maxRowHint)}
	if err := b.eachPage(ctx, want, func(pd *btreePageRows) { pd.filter(p, &add) }); err != nil {
		return Result{}, err
	}
	out.Rows.normalize()
	return out, nil
}

// maxRowHint bounds the offsets a search reserves room for at once (4 MiB).
const maxRowHint = 1 << 20

// maxPagesPerRead bounds the pages of page_data one read covers (and the rows it holds in
// memory: 64 pages of 4,096 rows).
const maxPagesPerRead = 64

// candidatePages returns the numbers of the pages that can hold rows matching p, in
// page_lookup order.
func (b *btreeIndex) candidatePages(p plan) []uint32 {
	var want []uint32
	if spans, ok := int64Spans(p); ok && b.ints != nil && !p.nulls {
		for _, i := range b.ints.pages(spans) {
			want = append(want, b.pages[i].idx)
		}
		return want
	}
	for _, pg := range b.pages {
		if b.pageMayMatch(pg, p) {
			want = append(want, pg.idx)
		}
	}
	return want
}

// pageMayMatch reports whether page pg can hold rows matching p.
func (b *btreeIndex) pageMayMatch(pg btreePage, p plan) bool {
	if p.nulls && pg.nullCount > 0 {
		return true
	}
	if pg.max.isNull() {
		return false // only nulls
	}
	for _, iv := range p.ivs {
		if iv.overlaps(pg.min, pg.max) {
			return true
		}
	}
	return false
}

// eachPage calls fn with each decoded page numbered in want (ascending page numbers): the
// cached ones first, then the others, read in runs of consecutive pages and cached. At most
// one run is held in memory besides the cache.
func (b *btreeIndex) eachPage(ctx context.Context, want []uint32, fn func(*btreePageRows)) error {
	var missing []uint32
	for _, k := range want {
		if v, ok := pages.get(cacheKey{b.owner, uint64(k)}); ok {
			fn(v.(*btreePageRows))
		} else {
			missing = append(missing, k)
		}
	}
	for len(missing) > 0 {
		n := 1
		for n < len(missing) && n < maxPagesPerRead && missing[n] == missing[0]+uint32(n) {
			n++
		}
		run, err := b.readPages(ctx, missing[0], missing[0]+uint32(n))
		if err != nil {
			return err
		}
		for j, pd := range run {
			pages.add(cacheKey{b.owner, uint64(missing[j])}, pd, pd.cost())
			fn(pd)
		}
		missing = missing[n:]
	}
	return nil
}

// readPages reads and decodes pages [k, kEnd) of page_data.
func (b *btreeIndex) readPages(ctx context.Context, k, kEnd uint32) ([]*btreePageRows, error) {
	data, err := b.dataFile(ctx)
	if err != nil {
		return nil, err
	}
	if lr, ok := data.(*legacy.Reader); ok {
		return readLegacyPages(ctx, lr, k, kEnd, b.mem)
	}
	start := uint64(k) * b.batchSize
	end := min(uint64(kEnd)*b.batchSize, data.NumRows())
	if start >= end {
		return nil, corrupt("%s: page %d starts at row %d of %d", data.Path(), k, start, data.NumRows())
	}
	arrs, err := readColumns(ctx, data, start, end, b.mem, "values", "ids")
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	ids, ok := arrs[1].(*array.Uint64)
	if !ok {
		return nil, corrupt("%s: ids is %s, want uint64", data.Path(), arrs[1].DataType())
	}
	if ids.NullN() > 0 {
		return nil, corrupt("%s: null row id in btree page data", data.Path())
	}
	out := make([]*btreePageRows, 0, kEnd-k)
	for lo := uint64(0); lo < end-start; lo += b.batchSize {
		hi := min(lo+b.batchSize, end-start)
		pd, err := decodePageRows(arrs[0], ids, int(lo), int(hi))
		if err != nil {
			return nil, err
		}
		out = append(out, pd)
	}
	return out, nil
}

// dataFile opens page_data.lance on first use (a failed open is retried next time).
func (b *btreeIndex) dataFile(ctx context.Context) (indexFile, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data == nil {
		r, err := openFile(ctx, b.store, b.dir, btreeDataFile)
		if err != nil {
			return nil, err
		}
		b.data = r
	}
	return b.data, nil
}

// String describes the segment for debugging.
func (b *btreeIndex) String() string {
	return fmt.Sprintf("btree(%s, %d pages of %d)", b.dir, len(b.pages), b.batchSize)
}
