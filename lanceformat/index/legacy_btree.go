package index

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file/legacy"
)

// legacyIDsColumn names the row address column of a legacy v1 page_data file (newer files
// name it "ids").
const legacyIDsColumn = "row_ids"

// BTrees in legacy v1 files differ from the newer layout in two ways:
//   - page_data keeps one page per record batch (pages hold any number of rows), so page k
//     is batch k instead of rows [k*batch_size, (k+1)*batch_size);
//   - v1 plain pages have no validity: a null key reads as some value, and so may the
//     min or max of a page holding nulls (Lance took them from the sorted page's ends).
//     Neither the null rows nor the bounds of such pages can be trusted, so a legacy BTree
//     with any null is not answerable (the caller scans); without nulls it answers exactly
//     as the newer layout does.

// legacyUnanswerable returns why a legacy BTree cannot answer queries, or "".
func (b *btreeIndex) legacyUnanswerable() string {
	for _, pg := range b.pages {
		if pg.nullCount > 0 {
			return fmt.Sprintf("not supported yet: legacy v1 BTree with nulls (page %d holds %d), which v1 files do not mark",
				pg.idx, pg.nullCount)
		}
	}
	return ""
}

// readLegacyPages reads and decodes pages [k, kEnd) of a legacy v1 page_data file: its
// record batches [k, kEnd), in one read.
func readLegacyPages(ctx context.Context, data *legacy.Reader, k, kEnd uint32,
	mem memory.Allocator) ([]*btreePageRows, error) {
	start, _, err := data.BatchRows(int(k))
	if err != nil {
		return nil, corrupt("btree page %d: %v", k, err)
	}
	_, end, err := data.BatchRows(int(kEnd) - 1)
	if err != nil {
		return nil, corrupt("btree page %d: %v", kEnd-1, err)
	}
	arrs, err := readColumns(ctx, data, start, end, mem, "values", legacyIDsColumn)
	if err != nil {
		return nil, err
	}
	arrs[0] = legacyNoNulls(arrs[0])
	defer releaseAll(arrs)
	ids, ok := arrs[1].(*array.Uint64)
	if !ok {
		return nil, corrupt("%s: %s is %s, want uint64", data.Path(), legacyIDsColumn, arrs[1].DataType())
	}
	out := make([]*btreePageRows, 0, kEnd-k)
	for i := k; i < kEnd; i++ {
		lo, hi, err := data.BatchRows(int(i))
		if err != nil {
			return nil, corrupt("btree page %d: %v", i, err)
		}
		pd, err := decodePageRows(arrs[0], ids, int(lo-start), int(hi-start))
		if err != nil {
			return nil, err
		}
		out = append(out, pd)
	}
	return out, nil
}

// legacyNoNulls returns a (releasing it) with every null read as the empty value. v1 files
// cannot mark nulls, and their reader takes an empty string or byte string of a nullable
// field for a null; a legacy BTree that answers queries holds no nulls (legacyUnanswerable
// checks page_lookup's counts), so those are empty values, which must stay searchable.
func legacyNoNulls(a arrow.Array) arrow.Array {
	switch a.DataType().ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
	default:
		return a
	}
	if a.NullN() == 0 {
		return a
	}
	d := a.Data()
	bufs := append([]*memory.Buffer{nil}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), d.Len(), bufs, d.Children(), 0, d.Offset())
	defer nd.Release()
	a.Release()
	return array.MakeFromData(nd)
}
