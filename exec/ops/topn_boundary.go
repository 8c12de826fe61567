package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/internal/dberr"
)

// The TopN boundary: once the buffer holds offset+count rows, its last row in key order is
// the worst row that can still be output. A later row that does not sort strictly before
// it cannot be output (on a tie the earlier row wins, as in a stable sort), so such rows
// are dropped before they are buffered; most of a large input never reaches the sort.

// setBoundary keeps the sort keys of the last row of top (sorted, keep rows) as the boundary.
func (t *TopN) setBoundary(ctx context.Context, top arrow.RecordBatch) error {
	releaseArrays(t.boundary)
	t.boundary = nil
	if top.NumRows() < t.keep || t.keep == 0 {
		return nil
	}
	last := top.NewSlice(top.NumRows()-1, top.NumRows())
	defer last.Release()
	for _, ev := range t.sorter.evals {
		k, err := ev.Eval(ctx, last)
		if err != nil {
			releaseArrays(t.boundary)
			t.boundary = nil
			return err
		}
		t.boundary = append(t.boundary, k)
	}
	return nil
}

// beforeBoundary returns the rows of b that sort strictly before the boundary (b itself,
// retained, when there is no boundary or every row does; nil when none does).
func (t *TopN) beforeBoundary(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if t.boundary == nil {
		b.Retain()
		return b, nil
	}
	cmps := make([]rowComparator, len(t.boundary))
	var keep []arrow.Array
	defer func() { releaseArrays(keep) }()
	for i, ev := range t.sorter.evals {
		k, err := ev.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		both, err := array.Concatenate([]arrow.Array{t.boundary[i], k}, t.env.Mem) // row 0: the boundary
		k.Release()
		if err != nil {
			return nil, dberr.Wrap(dberr.Internal, err, "top-n boundary keys")
		}
		keep = append(keep, both)
		if cmps[i], err = keyComparator(both, t.sorter.keys[i]); err != nil {
			return nil, err
		}
	}
	var rows []int32
	for r := range int(b.NumRows()) {
		if compareRows(cmps, r+1, 0) < 0 {
			rows = append(rows, int32(r))
		}
	}
	switch len(rows) {
	case 0:
		return nil, nil
	case int(b.NumRows()):
		b.Retain()
		return b, nil
	}
	return takeRows(ctx, t.env, b, rows)
}

func compareRows(cmps []rowComparator, i, j int) int {
	for _, c := range cmps {
		if r := c(i, j); r != 0 {
			return r
		}
	}
	return 0
}
