package lancecat

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/recycle"
	"github.com/flightd/flightd/lanceformat/file"
)

// Late materialization (catalog.Prefilter): per batch the reader decodes the prefilter's
// columns, asks it which rows to keep and decodes the other columns only at those rows
// (file.Cursor.ReadSel), unless it keeps more than Prefilter.MaxKept of them: then the
// other columns are decoded in full and the kept rows taken, as a scan without prefilter
// plus its filter would.

// colPart is a subset of a columnPlan's columns: per group (same order as the plan's
// groups) the field ids and output positions, and the missing columns it holds.
type colPart struct {
	ids     [][]int32
	outs    [][]int
	missing []int
}

// latePlan is how a reader applies a prefilter.
type latePlan struct {
	f      *catalog.Prefilter
	pre    colPart       // the prefilter's columns
	rest   colPart       // the other columns read from data files
	schema *arrow.Schema // of the batch Select gets
}

// planLate sets p.late when the reader can apply pre: its columns are plain output
// columns, every data file is read through a file.Cursor (legacy v1 files are not), and
// some other column lives in a data file (else there is nothing to decode late).
func (p *columnPlan) planLate(pre *catalog.Prefilter) {
	if pre == nil || len(pre.Columns) == 0 || pre.Select == nil || pre.Take == nil {
		return
	}
	nCols := p.schema.NumFields()
	fields := make([]arrow.Field, len(pre.Columns))
	for i, out := range pre.Columns {
		if out < 0 || out >= nCols {
			return
		}
		fields[i] = p.schema.Field(out)
	}
	lp := &latePlan{f: pre, schema: arrow.NewSchema(fields, nil)}
	lp.pre.ids, lp.pre.outs = make([][]int32, len(p.groups)), make([][]int, len(p.groups))
	lp.rest.ids, lp.rest.outs = make([][]int32, len(p.groups)), make([][]int, len(p.groups))
	restRead := false
	for gi, g := range p.groups {
		if _, ok := g.reader.(*file.Cursor); !ok {
			return
		}
		for i, out := range g.out {
			part := &lp.rest
			if slices.Contains(pre.Columns, out) {
				part = &lp.pre
			} else if !file.SelSupported(p.schema.Field(out).Type) {
				return
			} else {
				restRead = true
			}
			part.ids[gi] = append(part.ids[gi], g.ids[i])
			part.outs[gi] = append(part.outs[gi], out)
		}
	}
	for _, out := range p.missing {
		if slices.Contains(pre.Columns, out) {
			lp.pre.missing = append(lp.pre.missing, out)
		} else {
			lp.rest.missing = append(lp.rest.missing, out)
		}
	}
	if restRead {
		p.late = lp
	}
}

// Prefiltered implements catalog.Prefiltered: the reader applies its request's prefilter
// (index scans, which read picked rows, do not).
func (r *scanReader) Prefiltered() bool { return r.plan.late != nil && r.pick == nil }

// batchLate reads rows [start, end) (only rows if it is not nil; n rows) as batch does, but
// only the rows the prefilter keeps; it returns nil when it keeps none.
func (r *scanReader) batchLate(ctx context.Context, start, end uint64, rows []uint64, n int) (arrow.RecordBatch, error) {
	lp := r.plan.late
	cols := make([]arrow.Array, r.plan.schema.NumFields())
	defer releaseAll(cols)
	preMem := r.preMem()
	if err := r.readInto(ctx, preMem, cols, &lp.pre, start, end, rows, nil, n); err != nil {
		return nil, err
	}
	small := make([]arrow.Array, len(lp.f.Columns))
	for i, out := range lp.f.Columns {
		small[i] = cols[out]
	}
	sb := array.NewRecordBatch(lp.schema, small, int64(n))
	defer sb.Release()
	sel, err := lp.f.Select(ctx, sb)
	if err != nil {
		return nil, fmt.Errorf("prefilter: %w", err)
	}
	switch {
	case len(sel) == 0:
		return nil, nil
	case len(sel) == n:
		r.late.dense = true
		if preMem != r.mem { // the full prefilter columns would go out: copy them
			if err := r.copyPre(ctx, cols, sb, sel); err != nil {
				return nil, err
			}
		}
		return r.denseLate(ctx, cols, start, end, rows, n, sel)
	case float64(len(sel)) > lp.f.MaxKept*float64(n):
		r.late.dense = false // Take copies every column
		return r.denseLate(ctx, cols, start, end, rows, n, sel)
	}
	r.late.dense = false
	kept := make([]uint64, len(sel))
	for i, s := range sel {
		if rows != nil {
			kept[i] = rows[s]
		} else {
			kept[i] = start + uint64(s)
		}
	}
	taken, err := lp.f.Take(ctx, sb, sel)
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	releaseAll(cols)
	clear(cols)
	for i, out := range lp.f.Columns {
		cols[out] = taken.Column(i)
		cols[out].Retain()
	}
	if err := r.readInto(ctx, r.mem, cols, &lp.rest, start, end, nil, kept, len(kept)); err != nil {
		return nil, err
	}
	copy(cols[len(cols)-r.plan.rows.count():], r.plan.rows.arrays(start, end, kept, r.mem))
	return r.record(cols, len(kept))
}

// denseLate reads the other columns of the batch in full (cols holds the prefilter's) and
// returns its rows at sel.
func (r *scanReader) denseLate(ctx context.Context, cols []arrow.Array, start, end uint64, rows []uint64, n int,
	sel []int32) (arrow.RecordBatch, error) {
	if err := r.readInto(ctx, r.mem, cols, &r.plan.late.rest, start, end, rows, nil, n); err != nil {
		return nil, err
	}
	copy(cols[len(cols)-r.plan.rows.count():], r.plan.rows.arrays(start, end, rows, r.mem))
	full, err := r.record(cols, n)
	if err != nil || len(sel) == n {
		return full, err
	}
	defer full.Release()
	return r.plan.late.f.Take(ctx, full, sel)
}

// preRecycleMax bounds the bytes of released buffers a reader's recycler keeps: the
// prefilter columns of a few batches.
const preRecycleMax = 4 << 20

// lateState is a reader's late-materialization state: where it decodes the prefilter's
// columns.
type lateState struct {
	// tmp recycles the buffers of the prefilter columns decoded in full for a batch, which
	// are temporaries whenever the batch keeps fewer than all rows (Take copies those it
	// keeps); nil until first used, or when the columns' types are not all plain.
	tmp *recycle.Recycler
	// dense is set when the last batch kept all its rows: its prefilter columns went out
	// as they were decoded, so the next batch decodes them from the reader's allocator.
	dense   bool
	checked bool // tmp was decided on
}

// preMem returns the allocator to decode the batch's prefilter columns from: the reader's
// recycler, unless the last batch kept all rows or a column's Take might share its buffers
// (dictionaries, nested types).
func (r *scanReader) preMem() memory.Allocator {
	if !r.late.checked {
		r.late.checked = true
		if plainTypes(r.plan.late.schema) {
			r.late.tmp = recycle.New(r.mem, preRecycleMax)
		}
	}
	if r.late.tmp == nil || r.late.dense {
		return r.mem
	}
	return r.late.tmp
}

// plainTypes reports whether every field of s is fixed-width or string/binary, whose
// Take copies the values it keeps.
func plainTypes(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		switch f.Type.(type) {
		case arrow.FixedWidthDataType, arrow.BinaryDataType:
		default:
			return false
		}
		switch f.Type.ID() {
		case arrow.DICTIONARY, arrow.EXTENSION, arrow.STRING_VIEW, arrow.BINARY_VIEW:
			return false
		}
	}
	return true
}

// copyPre replaces the prefilter columns in cols (decoded from the recycler, whole batch
// kept) with copies from the reader's allocator, so that no recycled buffer goes out.
func (r *scanReader) copyPre(ctx context.Context, cols []arrow.Array, sb arrow.RecordBatch, sel []int32) error {
	taken, err := r.plan.late.f.Take(ctx, sb, sel)
	if err != nil {
		return err
	}
	defer taken.Release()
	for i, out := range r.plan.late.f.Columns {
		cols[out].Release()
		cols[out] = taken.Column(i)
		cols[out].Retain()
	}
	return nil
}
