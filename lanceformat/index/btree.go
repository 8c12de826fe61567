package index

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
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
// are read per query.
type btreeIndex struct {
	store     lanceio.ObjectStore
	dir       string
	covered   []uint32
	mem       memory.Allocator
	pages     []btreePage
	batchSize uint64

	mu   sync.Mutex
	data *file.Reader // opened on first use
}

func openBTree(ctx context.Context, store lanceio.ObjectStore, dir string, covered []uint32,
	mem memory.Allocator) (*btreeIndex, error) {
	r, err := openFile(ctx, store, dir, btreeLookupFile)
	if err != nil {
		return nil, err
	}
	b := &btreeIndex{store: store, dir: dir, covered: covered, mem: mem, batchSize: defaultBTreeBatch}
	if s, ok := r.Schema().Metadata["batch_size"]; ok {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || n == 0 {
			return nil, corrupt("%s: batch_size %q", r.Path(), s)
		}
		b.batchSize = n
	}
	arrs, err := readColumns(ctx, r, 0, r.NumRows(), mem, "min", "max", "null_count", "page_idx")
	if err != nil {
		return nil, err
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
	return b, nil
}

func (b *btreeIndex) Type() Type { return TypeBTree }

// Search reads the pages whose range overlaps the query and filters their rows.
func (b *btreeIndex) Search(ctx context.Context, q Query) (Result, error) {
	p, err := compile(q)
	if err != nil {
		return unanswerable(err)
	}
	out := Result{Kind: Exact, Rows: NewRowSet(), Covered: b.covered}
	if p.empty() {
		return out, nil
	}
	// Matching pages with consecutive page numbers (a range query's) are read together: one
	// read per run of up to maxPagesPerRead pages instead of one per page.
	first, n := uint32(0), uint32(0)
	flush := func() error {
		if n == 0 {
			return nil
		}
		err := b.searchPages(ctx, first, first+n, p, out.Rows)
		n = 0
		return err
	}
	for _, pg := range b.pages {
		if !b.pageMayMatch(pg, p) {
			continue
		}
		if n > 0 && (pg.idx != first+n || n == maxPagesPerRead) {
			if err := flush(); err != nil {
				return Result{}, err
			}
		}
		if n == 0 {
			first = pg.idx
		}
		n++
	}
	if err := flush(); err != nil {
		return Result{}, err
	}
	out.Rows.normalize()
	return out, nil
}

// maxPagesPerRead bounds the pages of page_data one read covers (and the rows it holds in
// memory: 64 pages of 4,096 rows).
const maxPagesPerRead = 64

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

// searchPages reads pages [k, kEnd) of page_data and adds their matching row ids to rows.
func (b *btreeIndex) searchPages(ctx context.Context, k, kEnd uint32, p plan, rows *RowSet) error {
	data, err := b.dataFile(ctx)
	if err != nil {
		return err
	}
	start := uint64(k) * b.batchSize
	end := min(uint64(kEnd)*b.batchSize, data.NumRows())
	if start >= end {
		return corrupt("%s: page %d starts at row %d of %d", data.Path(), k, start, data.NumRows())
	}
	arrs, err := readColumns(ctx, data, start, end, b.mem, "values", "ids")
	if err != nil {
		return err
	}
	defer releaseAll(arrs)
	ids, ok := arrs[1].(*array.Uint64)
	if !ok {
		return corrupt("%s: ids is %s, want uint64", data.Path(), arrs[1].DataType())
	}
	return filterPage(arrs[0], ids, p, rows)
}

// dataFile opens page_data.lance on first use (a failed open is retried next time).
func (b *btreeIndex) dataFile(ctx context.Context) (*file.Reader, error) {
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

// filterPage adds ids[i] to rows for each values[i] that matches p.
func filterPage(values arrow.Array, ids *array.Uint64, p plan, rows *RowSet) error {
	if ok, err := filterInt64Page(values, ids, p, rows); ok || err != nil {
		return err
	}
	for i := 0; i < values.Len(); i++ {
		v, ok := valueAt(values, i)
		if !ok {
			return notSupported("btree over %s", values.DataType())
		}
		if p.match(v) {
			if ids.IsNull(i) {
				return corrupt("null row id in btree page data")
			}
			rows.add(ids.Value(i))
		}
	}
	return nil
}

// String describes the segment for debugging.
func (b *btreeIndex) String() string {
	return fmt.Sprintf("btree(%s, %d pages of %d)", b.dir, len(b.pages), b.batchSize)
}
