package lancecat

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/table"
)

// selection returns the index selection of req (nil when req has none or the indexes do
// not narrow the scan).
func (t *Table) selection(ctx context.Context, req catalog.ScanRequest) (*catalog.RowSelection, error) {
	if req.Index == nil || req.Index.Expr == nil {
		return nil, nil
	}
	return t.SelectRows(ctx, req.Index.Expr)
}

// indexMorsels lists the morsels of an index scan: fragments without selected rows are
// dropped, and so are the morsel ranges that hold none. ok is false when the scan is not
// narrowed by an index (the caller lists morsels as usual). The scan's limit is not used
// to stop early: selected rows may still fail the filter.
func (t *Table) indexMorsels(ctx context.Context, req catalog.ScanRequest) (_ []catalog.Morsel, ok bool, _ error) {
	sel, err := t.selection(ctx, req)
	if err != nil || sel == nil {
		return nil, false, err
	}
	var out []catalog.Morsel
	for fi := range t.m.Fragments() {
		fs, found := sel.Fragments[t.keys[fi]]
		if found && fs.None() {
			continue
		}
		n, err := t.physicalRows(ctx, fi)
		if err != nil {
			return nil, false, err
		}
		for start := int64(0); start < n; start += morselRows {
			end := min(start+morselRows, n)
			if !found || fs.All || overlaps(fs.Ranges, start, end) {
				out = append(out, catalog.Morsel{Fragment: t.keys[fi], Start: start, End: end})
			}
		}
	}
	return out, true, nil
}

// overlaps reports whether any of the sorted ranges meets [start, end).
func overlaps(rs []catalog.RowRange, start, end int64) bool {
	for _, r := range rs {
		if r.Start < end && r.End > start {
			return true
		}
	}
	return false
}

// pickRows narrows reader rd of morsel m to the rows the index selects, if any.
func (t *Table) pickRows(ctx context.Context, req catalog.ScanRequest, m catalog.Morsel, rd *scanReader) error {
	sel, err := t.selection(ctx, req)
	if err != nil || sel == nil {
		return err
	}
	fs, ok := sel.Fragments[m.Fragment]
	if !ok || fs.All {
		return nil
	}
	var rs []catalog.RowRange
	for _, r := range fs.Ranges {
		if lo, hi := max(r.Start, m.Start), min(r.End, m.End); lo < hi {
			rs = append(rs, catalog.RowRange{Start: lo, End: hi})
		}
	}
	rd.pick = &rowPicker{ranges: rs}
	return nil
}

// rowPicker walks the selected rows of a morsel.
type rowPicker struct {
	ranges []catalog.RowRange
	i      int   // current range
	next   int64 // next row of the current range
}

// take returns up to limit selected rows that are not deleted, ascending.
func (p *rowPicker) take(limit int, dv *table.DeletionVector) []uint64 {
	var rows []uint64
	for p.i < len(p.ranges) && len(rows) < limit {
		r := p.ranges[p.i]
		p.next = max(p.next, r.Start)
		for ; p.next < r.End && len(rows) < limit; p.next++ {
			if !dv.Contains(uint64(p.next)) {
				rows = append(rows, uint64(p.next))
			}
		}
		if p.next >= r.End {
			p.i++
		}
	}
	return rows
}

// nextPicked is scanReader.Next for index scans: batches of the selected live rows, read
// as one range when they are contiguous and taken row by row otherwise.
func (r *scanReader) nextPicked(ctx context.Context) (arrow.RecordBatch, error) {
	if r.closed {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := r.pick.take(batchRows, r.dv)
	if len(rows) == 0 {
		return nil, nil
	}
	start, end := rows[0], rows[len(rows)-1]+1
	list := rows
	if end-start == uint64(len(rows)) {
		list = nil
	}
	rec, err := r.batch(file.WithReadCounter(ctx, &r.read), start, end, list, len(rows))
	if err != nil {
		return nil, classify(fmt.Errorf("scan table %q version %d rows [%d,%d) by index: %w",
			r.t.name, r.t.Version(), start, end, err))
	}
	return rec, nil
}
