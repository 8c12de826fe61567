package lancecat

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/table"
)

// rowColumns is what a scan needs to produce the hidden _rowid and _rowaddr columns of
// one fragment (catalog.ScanRequest.RowID and RowAddr).
type rowColumns struct {
	rowID, rowAddr bool
	fragID         uint64   // the fragment's id: the high 32 bits of its row addresses
	stable         []uint64 // stable row id of every physical row; nil: the row id is the address
}

// planRowColumns appends the hidden row columns req asks for to the plan of fragment fi:
// _rowaddr is fragment id << 32 | physical offset (deleted rows keep their offsets), and
// _rowid is the same unless the table has stable row ids (reader flag 2), in which case it
// comes from the fragment's row id sequence, inline or in an external file.
func (t *Table) planRowColumns(ctx context.Context, fi int, req catalog.ScanRequest, plan *columnPlan) error {
	plan.planLate(req.Prefilter) // scan_late.go: Table.Scan's last planning step (table.go is not this file's)
	if !req.RowID && !req.RowAddr {
		return nil
	}
	f := t.m.Fragments()[fi]
	rc := &rowColumns{rowID: req.RowID, rowAddr: req.RowAddr, fragID: f.GetId()}
	if req.RowID && t.m.Proto.GetReaderFeatureFlags()&table.FlagStableRowIDs != 0 {
		ids, err := t.stableRowIDs(ctx, fi)
		if err != nil {
			return err
		}
		rc.stable = ids
	}
	fields := append(plan.schema.Fields(), req.RowFields()...)
	md := plan.schema.Metadata()
	plan.schema = arrow.NewSchema(fields, &md)
	plan.rows = rc
	return nil
}

// stableRowIDs decodes the row id sequence of fragment fi: one id per physical row.
func (t *Table) stableRowIDs(ctx context.Context, fi int) ([]uint64, error) {
	f := t.m.Fragments()[fi]
	n, err := t.physicalRows(ctx, fi)
	if err != nil {
		return nil, err
	}
	data := f.GetInlineRowIds()
	if ext := f.GetExternalRowIds(); ext != nil {
		p := t.ds.Path(ext.GetPath())
		if data, err = t.ds.Store().ReadRange(ctx, p, int64(ext.GetOffset()), int64(ext.GetSize())); err != nil {
			return nil, fmt.Errorf("table %q version %d fragment %d: read row ids %s: %w", t.name, t.Version(), f.GetId(), p, err)
		}
	} else if data == nil {
		return nil, fmt.Errorf("table %q version %d fragment %d: stable row ids without a row id sequence: %w",
			t.name, t.Version(), f.GetId(), table.ErrCorruptFile)
	}
	ids, err := table.DecodeRowIDs(data, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("table %q version %d fragment %d: %w", t.name, t.Version(), f.GetId(), err)
	}
	return ids, nil
}

// arrays builds the hidden columns for physical rows [start, end), or only rows if it is
// not nil, in output order (_rowid, then _rowaddr).
func (rc *rowColumns) arrays(start, end uint64, rows []uint64, mem memory.Allocator) []arrow.Array {
	if rc == nil {
		return nil
	}
	offset := func(i int) uint64 { return start + uint64(i) }
	n := int(end - start)
	if rows != nil {
		offset = func(i int) uint64 { return rows[i] }
		n = len(rows)
	}
	var out []arrow.Array
	if rc.rowID {
		out = append(out, rc.build(n, offset, rc.stable, mem))
	}
	if rc.rowAddr {
		out = append(out, rc.build(n, offset, nil, mem))
	}
	return out
}

// build makes one uint64 column: ids[offset] when ids is set, else the row address.
func (rc *rowColumns) build(n int, offset func(int) uint64, ids []uint64, mem memory.Allocator) arrow.Array {
	b := array.NewUint64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		o := offset(i)
		if ids != nil {
			b.UnsafeAppend(ids[o])
		} else {
			b.UnsafeAppend(rc.fragID<<32 | o)
		}
	}
	return b.NewArray()
}

// count is the number of hidden columns rc produces (0 for nil).
func (rc *rowColumns) count() int {
	if rc == nil {
		return 0
	}
	n := 0
	if rc.rowID {
		n++
	}
	if rc.rowAddr {
		n++
	}
	return n
}
