package lancecat

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
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
// dropped; a fragment the index narrows gets morsels that span only its selected rows
// (selectedMorsels), so that the scan's workers share even a single fragment's selection
// (a 1% range of 100k rows is 7 morsels read in parallel, not one). ok is false when the
// scan is not narrowed by an index (the caller lists morsels as usual). The scan's limit is
// not used to stop early: selected rows may still fail the filter.
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
		if found && !fs.All {
			out = append(out, selectedMorsels(t.keys[fi], fs.Ranges)...)
			continue
		}
		n, err := t.physicalRows(ctx, fi)
		if err != nil {
			return nil, false, err
		}
		for start := int64(0); start < n; start += morselRows {
			out = append(out, catalog.Morsel{Fragment: t.keys[fi], Start: start, End: min(start+morselRows, n)})
		}
	}
	return out, true, nil
}

// pickedMorselRows is the fewest selected rows a morsel of an index scan holds (one batch),
// unless its fragment has fewer; maxPickedMorsels bounds the morsels of one fragment (each
// morsel opens its own cursor, which reads page metadata again).
const (
	pickedMorselRows = batchRows
	maxPickedMorsels = 8
)

// morselAlign: a morsel of an index scan that ends inside a selected range ends at the last
// multiple of morselAlign rows of the fragment before that cut, when the morsel still
// starts before it. Mini-block chunks hold a power of two of rows from their page's start
// (256 to 4096 in the files pylance writes, whose pages mostly start at such multiples),
// so the cut falls between chunks instead of decoding one chunk partly in both morsels.
// The morsel is then a little short of its share: a fragment may get a morsel or two more
// than maxPickedMorsels.
const morselAlign = 4096

// selectedMorsels cuts the sorted, disjoint selected ranges of one fragment into morsels of
// about equal numbers of selected rows (at least pickedMorselRows, at most maxPickedMorsels
// morsels, cuts inside a range aligned to morselAlign, the last morsel taking up to
// morselAlign rows more rather than leaving a morsel of a few rows), every morsel spanning from its first
// selected row to its last (the rows between are not read: pickRows narrows each morsel
// back to the selection).
func selectedMorsels(frag uint64, rs []catalog.RowRange) []catalog.Morsel {
	var total int64
	for _, r := range rs {
		total += r.End - r.Start
	}
	size := max(pickedMorselRows, (total+maxPickedMorsels-1)/maxPickedMorsels)
	var out []catalog.Morsel
	var cur catalog.Morsel
	var rows, want, left int64 = 0, 0, total // want: this morsel's rows; left: rows in no morsel yet
	for _, r := range rs {
		for start := r.Start; start < r.End; {
			if rows == 0 {
				cur = catalog.Morsel{Fragment: frag, Start: start}
				want = size
				if left <= size+morselAlign { // the rest, rather than a last morsel of a few rows
					want = left
				}
			}
			end := min(r.End, start+want-rows)
			full := rows+end-start == want
			if a := end - end%morselAlign; full && end < r.End && a > start {
				end = a
			}
			rows, left = rows+end-start, left-(end-start)
			cur.End = end
			start = end
			if full {
				out = append(out, cur)
				rows = 0
			}
		}
	}
	if rows > 0 {
		out = append(out, cur)
	}
	return out
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
	rd.pick = &rowPicker{ranges: windowRanges(fs.Ranges, m)}
	return nil
}

// windowRanges returns the parts of the sorted, disjoint ranges rs inside morsel m.
func windowRanges(rs []catalog.RowRange, m catalog.Morsel) []catalog.RowRange {
	var out []catalog.RowRange
	first, _ := slices.BinarySearchFunc(rs, m.Start, func(r catalog.RowRange, start int64) int {
		return cmp.Compare(r.End, start+1) // the first range ending after m.Start
	})
	for _, r := range rs[first:] {
		if r.Start >= m.End {
			break
		}
		out = append(out, catalog.RowRange{Start: max(r.Start, m.Start), End: min(r.End, m.End)})
	}
	return out
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

// span returns the next batch of up to limit selected rows when it is one run of
// consecutive live rows that take would return as well: a full batch inside one range, or
// the rest of the last range. ok is false otherwise (take then lists the rows). It saves
// listing, and then checking, every row of the runs a range query selects.
func (p *rowPicker) span(limit int, dv *table.DeletionVector) (start, end uint64, ok bool) {
	if p.i >= len(p.ranges) {
		return 0, 0, false
	}
	r := p.ranges[p.i]
	s := max(p.next, r.Start)
	e := min(r.End, s+int64(limit))
	if s >= e || (e-s < int64(limit) && p.i < len(p.ranges)-1) {
		return 0, 0, false
	}
	if dv != nil && dv.CountIn(uint64(s), uint64(e)) > 0 {
		return 0, 0, false
	}
	p.next = e
	if e >= r.End {
		p.i++
	}
	return uint64(s), uint64(e), true
}

// nextBatch returns the next batch of up to limit selected live rows: n rows in
// [start, end), listed in rows unless they are all the rows of that span. n is 0 at the end.
func (p *rowPicker) nextBatch(limit int, dv *table.DeletionVector) (start, end uint64, rows []uint64, n int) {
	if start, end, ok := p.span(limit, dv); ok {
		return start, end, nil, int(end - start)
	}
	rows = p.take(limit, dv)
	if len(rows) == 0 {
		return 0, 0, nil, 0
	}
	start, end = rows[0], rows[len(rows)-1]+1
	if end-start == uint64(len(rows)) {
		return start, end, nil, len(rows)
	}
	return start, end, rows, len(rows)
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
	start, end, list, n := r.pick.nextBatch(batchRows, r.dv)
	if n == 0 {
		return nil, nil
	}
	rec, err := r.batch(r.counting(ctx), start, end, list, n)
	if err != nil {
		return nil, classify(fmt.Errorf("scan table %q version %d rows [%d,%d) by index: %w",
			r.t.name, r.t.Version(), start, end, err))
	}
	return rec, nil
}
