package lancecat

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// batchRows is the largest number of physical rows read per output batch. It equals
// exec.DefaultBatchSize (16Ki), so a scan's batches reach the operators and the Flight
// writer whole: cut from a larger read, every batch after the first would be a slice,
// whose string offsets the IPC writer copies and rebases.
const batchRows = 16 << 10

// fileGroup is the requested columns that live in one data file.
type fileGroup struct {
	reader dataFile
	ids    []int32 // top-level field ids to read
	out    []int   // their positions in the output schema
}

// columnPlan says where each requested column comes from.
type columnPlan struct {
	schema  *arrow.Schema
	groups  []fileGroup
	missing []int       // output positions of columns no data file of the fragment holds (all null)
	rows    *rowColumns // the hidden _rowid/_rowaddr columns, after the others; nil if none
	late    *latePlan   // the request's prefilter, when this reader applies it (scan_late.go)
}

// planColumns maps the requested columns to the fragment's data files. A column lives in
// the file whose field list holds any id of the column's subtree (2.1+ files list only leaf
// ids); a column found in no file reads as nulls.
func (t *Table) planColumns(ctx context.Context, fi int, cols []int) (*columnPlan, error) {
	f := t.m.Fragments()[fi]
	fields := make([]arrow.Field, len(cols))
	plan := &columnPlan{}
	byFile := map[int]int{} // data file index -> group index
	for out, ci := range cols {
		if ci < 0 || ci >= len(t.schema.Fields) {
			return nil, fmt.Errorf("scan table %q: column %d out of range (%d columns)", t.name, ci, len(t.schema.Fields))
		}
		sf := t.schema.Fields[ci]
		fields[out] = t.arrow.Field(ci)
		dfi := fileHolding(t.m.Fragments()[fi].GetFiles(), sf.PreOrder())
		if dfi < 0 {
			plan.missing = append(plan.missing, out)
			continue
		}
		gi, ok := byFile[dfi]
		if !ok {
			r, err := t.reader(ctx, fi, dfi)
			if err != nil {
				return nil, fmt.Errorf("scan table %q version %d fragment %d: %w", t.name, t.Version(), f.GetId(), err)
			}
			if fr, ok := r.(*file.Reader); ok {
				r = fr.NewCursor() // this scan's own: page metadata kept across its batches
			}
			gi = len(plan.groups)
			byFile[dfi] = gi
			plan.groups = append(plan.groups, fileGroup{reader: r})
		}
		plan.groups[gi].ids = append(plan.groups[gi].ids, sf.ID)
		plan.groups[gi].out = append(plan.groups[gi].out, out)
	}
	md := t.arrow.Metadata()
	plan.schema = arrow.NewSchema(fields, &md)
	return plan, nil
}

// fileHolding returns the index of the data file holding any of the fields, or -1.
func fileHolding[F interface{ GetFields() []int32 }](files []F, fields []*schema.Field) int {
	for i, df := range files {
		for _, sf := range fields {
			if slices.Contains(df.GetFields(), sf.ID) {
				return i
			}
		}
	}
	return -1
}

// scanReader reads one morsel batch by batch. It implements catalog.ScanStats: it counts
// the bytes its reads fetch from 2.0+ data files (file.WithReadCounter). Not counted yet:
// the metadata read when Scan first opens a data file, and legacy v1 files' reads.
type scanReader struct {
	t      *Table
	plan   *columnPlan
	dv     *table.DeletionVector
	next   uint64 // next physical row to read
	end    uint64
	mem    memory.Allocator
	closed bool
	read   atomic.Int64 // bytes read from storage
	cached atomic.Int64 // page bytes taken from the catalog's block cache
	pick   *rowPicker   // index scans: the selected rows (index_scan.go); nil reads [next, end)
	late   lateState    // late materialization's per-reader state (scan_late.go)
}

// BytesRead implements catalog.ScanStats.
func (r *scanReader) BytesRead() int64 { return r.read.Load() }

// BytesCached implements catalog.CacheStats.
func (r *scanReader) BytesCached() int64 { return r.cached.Load() }

// counting returns ctx counting the reader's store and cache bytes.
func (r *scanReader) counting(ctx context.Context) context.Context {
	return file.WithCacheCounter(file.WithReadCounter(ctx, &r.read), &r.cached)
}

// Schema implements catalog.RecordReader.
func (r *scanReader) Schema() *arrow.Schema { return r.plan.schema }

// Close implements catalog.RecordReader.
func (r *scanReader) Close() error {
	r.closed = true
	if r.late.tmp != nil {
		r.late.tmp.Close()
	}
	return nil
}

// Next implements catalog.RecordReader.
func (r *scanReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.pick != nil {
		return r.nextPicked(ctx)
	}
	for !r.closed && r.next < r.end {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start, end := r.next, min(r.next+batchRows, r.end)
		r.next = end
		deleted := r.dv.CountIn(start, end)
		live := int(end-start) - deleted
		if live == 0 {
			continue
		}
		var rows []uint64
		if deleted > 0 {
			rows = make([]uint64, 0, live)
			for row := start; row < end; row++ {
				if !r.dv.Contains(row) {
					rows = append(rows, row)
				}
			}
		}
		var rec arrow.RecordBatch
		var err error
		if r.plan.late != nil {
			rec, err = r.batchLate(r.counting(ctx), start, end, rows, live)
		} else {
			rec, err = r.batch(r.counting(ctx), start, end, rows, live)
		}
		if err == nil && rec == nil {
			continue // the prefilter kept no row
		}
		if err != nil {
			return nil, classify(fmt.Errorf("scan table %q version %d rows [%d,%d): %w",
				r.t.name, r.t.Version(), start, end, err))
		}
		return rec, nil
	}
	return nil, nil
}

// batch reads rows [start, end), or only rows if it is not nil, into one record batch.
func (r *scanReader) batch(ctx context.Context, start, end uint64, rows []uint64, n int) (_ arrow.RecordBatch, err error) {
	cols := make([]arrow.Array, r.plan.schema.NumFields())
	defer releaseAll(cols)
	if err := r.readInto(ctx, r.mem, cols, nil, start, end, rows, nil, n); err != nil {
		return nil, err
	}
	copy(cols[len(cols)-r.plan.rows.count():], r.plan.rows.arrays(start, end, rows, r.mem))
	return r.record(cols, n)
}

// readInto reads the columns of part (nil: every column read from data files, and the
// missing ones) into cols, by output position: rows [start, end), or only rows if it is
// not nil, or only the physical rows sel (ascending, within [start, end)) if it is not
// nil, which needs every group's reader to be a *file.Cursor (planLate checks it), from
// mem. n is the number of rows read.
func (r *scanReader) readInto(ctx context.Context, mem memory.Allocator, cols []arrow.Array, part *colPart,
	start, end uint64, rows, sel []uint64, n int) error {
	missing := r.plan.missing
	if part != nil {
		missing = part.missing
	}
	for i := range r.plan.groups {
		g := &r.plan.groups[i]
		ids, outs := g.ids, g.out
		if part != nil {
			ids, outs = part.ids[i], part.outs[i]
		}
		if len(ids) == 0 {
			continue
		}
		var arrs []arrow.Array
		var err error
		switch {
		case sel != nil:
			arrs, err = g.reader.(*file.Cursor).ReadSel(ctx, ids, start, end, sel, mem)
		case rows != nil:
			arrs, err = g.reader.Take(ctx, ids, rows, mem)
		default:
			arrs, err = g.reader.ReadRange(ctx, ids, start, end, mem)
		}
		if err != nil {
			return err
		}
		for i, a := range arrs {
			cols[outs[i]] = a
		}
	}
	for _, out := range missing {
		cols[out] = array.MakeArrayOfNull(mem, r.plan.schema.Field(out).Type, n)
	}
	return nil
}

// record checks the columns read against the output schema and makes the batch of n rows
// (retaining the columns).
func (r *scanReader) record(cols []arrow.Array, n int) (arrow.RecordBatch, error) {
	for i, c := range cols {
		want := r.plan.schema.Field(i)
		if c.Len() != n {
			return nil, fmt.Errorf("column %q: %d values, want %d", want.Name, c.Len(), n)
		}
		if !arrow.TypeEqual(c.DataType(), want.Type) {
			return nil, fmt.Errorf("column %q: data file type %s, table type %s", want.Name, c.DataType(), want.Type)
		}
	}
	return array.NewRecordBatch(r.plan.schema, cols, int64(n)), nil
}

// releaseAll releases the non-nil arrays.
func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

var _ catalog.ScanStats = (*scanReader)(nil)
