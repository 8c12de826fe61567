package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// WriteKind says what a Write operator does with its input.
type WriteKind int

// The write kinds.
const (
	WriteInsert WriteKind = iota // append the input rows (the table's columns)
	WriteDelete                  // delete the rows whose addresses the input yields
	WriteUpdate                  // replace rows: input is a row address then the new columns
)

var writeKindNames = [...]string{"INSERT", "DELETE", "UPDATE"}

// String names the kind as SQL does ("INSERT").
func (k WriteKind) String() string {
	if int(k) < len(writeKindNames) {
		return writeKindNames[k]
	}
	return fmt.Sprintf("WriteKind(%d)", int(k))
}

// Write runs INSERT, DELETE and UPDATE: its first Next drains the input, commits one new
// version of the target table through the catalog's capability (catalog.Writer.Append,
// catalog.Deleter.DeleteRows, catalog.Updater.UpdateRows) and outputs one row,
// plan.CountSchema, the number of rows affected. A write that affects no row still commits
// its (empty) version, as pylance's delete and update do: one version per statement. The input is held in memory until the commit (Lance writes a data file in one
// piece), reserved from the query's memory pool (Env.MemoryLimit bounds a write); non-nullable
// columns are checked before anything is written.
type Write struct {
	in      exec.Operator
	kind    WriteKind
	target  plan.WriteTarget
	env     exec.Env
	done    bool
	version uint64
}

// NewWrite builds a Write of kind over in, whose schema must be the kind's source schema
// (see plan.Insert, plan.Delete, plan.Update).
func NewWrite(in exec.Operator, kind WriteKind, target plan.WriteTarget, env exec.Env) *Write {
	return &Write{in: in, kind: kind, target: target, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (w *Write) Schema() *arrow.Schema { return plan.CountSchema }

// Open implements exec.Operator.
func (w *Write) Open(ctx context.Context) error { return w.in.Open(ctx) }

// Close implements exec.Operator.
func (w *Write) Close() error { return w.in.Close() }

// Version is the table version the write committed, 0 before the commit.
func (w *Write) Version() uint64 { return w.version }

// Next implements exec.Operator. The first call does the write.
func (w *Write) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if w.done {
		return nil, nil
	}
	w.done = true
	res := newReservation(w.env, w.kind.String())
	defer res.Free()
	batches, err := drain(ctx, w.in, res)
	defer releaseAll(batches)
	if err != nil {
		return nil, err
	}
	n, err := w.commit(ctx, batches)
	if err != nil {
		return nil, err
	}
	b := array.NewInt64Builder(w.env.Mem)
	defer b.Release()
	b.Append(n)
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(plan.CountSchema, []arrow.Array{col}, 1), nil
}

// commit writes the drained input and returns the number of rows affected.
func (w *Write) commit(ctx context.Context, batches []arrow.RecordBatch) (int64, error) {
	switch w.kind {
	case WriteInsert:
		return w.insert(ctx, batches)
	case WriteDelete:
		return w.delete(ctx, batches)
	case WriteUpdate:
		return w.update(ctx, batches)
	}
	return 0, dberr.New(dberr.Internal, "write: unknown kind %d", int(w.kind))
}

func (w *Write) insert(ctx context.Context, batches []arrow.RecordBatch) (int64, error) {
	wr, ok := w.target.Catalog.(catalog.Writer)
	if !ok {
		return 0, dberr.NotSupported("INSERT: the catalog is read-only")
	}
	rows, err := w.tableRows(batches, 0)
	defer releaseAll(rows)
	if err != nil {
		return 0, err
	}
	if w.version, err = wr.Append(ctx, w.target.Table.Name(), rows); err != nil {
		return 0, err
	}
	return totalRows(rows), nil
}

func (w *Write) delete(ctx context.Context, batches []arrow.RecordBatch) (int64, error) {
	d, ok := w.target.Catalog.(catalog.Deleter)
	if !ok {
		return 0, dberr.NotSupported("DELETE: the catalog cannot delete rows")
	}
	addrs, err := rowAddrs(batches)
	if err != nil {
		return 0, err
	}
	t := w.target.Table
	if w.version, err = d.DeleteRows(ctx, t.Name(), t.Version(), addrs); err != nil {
		return 0, err
	}
	return int64(len(addrs)), nil
}

func (w *Write) update(ctx context.Context, batches []arrow.RecordBatch) (int64, error) {
	u, ok := w.target.Catalog.(catalog.Updater)
	if !ok {
		return 0, dberr.NotSupported("UPDATE: the catalog cannot update rows")
	}
	addrs, err := rowAddrs(batches)
	if err != nil {
		return 0, err
	}
	rows, err := w.tableRows(batches, 1)
	defer releaseAll(rows)
	if err != nil {
		return 0, err
	}
	t := w.target.Table
	if w.version, err = u.UpdateRows(ctx, t.Name(), t.Version(), addrs, rows); err != nil {
		return 0, err
	}
	return int64(len(addrs)), nil
}

// tableRows re-labels the columns from index first on of each batch with the target
// table's schema, checking types and NOT NULL columns. The caller releases the result.
func (w *Write) tableRows(batches []arrow.RecordBatch, first int) ([]arrow.RecordBatch, error) {
	return conform(batches, first, w.target.Table.Schema(), w.target.Table.Name(), w.kind.String())
}

// conform re-labels the columns from index first on of each non-empty batch with schema sc
// of table name, checking types and NOT NULL columns. The caller releases the result (also
// on error).
func conform(batches []arrow.RecordBatch, first int, sc *arrow.Schema, name, what string) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, 0, len(batches))
	for _, b := range batches {
		if b.NumRows() == 0 {
			continue
		}
		cols := b.Columns()[first:]
		if len(cols) != sc.NumFields() {
			return out, dberr.New(dberr.Internal, "%s: source has %d columns, table %q has %d", what, len(cols), name, sc.NumFields())
		}
		for i, f := range sc.Fields() {
			if !arrow.TypeEqual(cols[i].DataType(), f.Type) {
				return out, dberr.New(dberr.Internal, "%s: column %q is %s, table %q has %s", what, f.Name, cols[i].DataType(), name, f.Type)
			}
			if !f.Nullable && cols[i].NullN() > 0 {
				return out, dberr.New(dberr.Constraint, "NOT NULL constraint failed: %s.%s", name, f.Name)
			}
		}
		out = append(out, array.NewRecordBatch(sc, cols, b.NumRows()))
	}
	return out, nil
}

// rowAddrs collects the row addresses in column 0 of batches.
func rowAddrs(batches []arrow.RecordBatch) ([]uint64, error) {
	var out []uint64
	for _, b := range batches {
		if b.NumRows() == 0 {
			continue
		}
		col, ok := b.Column(0).(*array.Uint64)
		if !ok || col.NullN() > 0 {
			return nil, dberr.New(dberr.Internal, "write: row addresses must be non-null uint64, got %s", b.Column(0).DataType())
		}
		out = append(out, col.Uint64Values()...)
	}
	return out, nil
}

// drain reads every batch of in, reserving their bytes from env's pool (a write holds its
// rows until the commit); the caller releases the batches (also on error) and frees the
// reservation.
func drain(ctx context.Context, in exec.Operator, res *exec.Reservation) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		b, err := in.Next(ctx)
		if err != nil || b == nil {
			return out, err
		}
		out = append(out, b)
		if err := res.TryGrow(batchBytes(b)); err != nil {
			return out, err
		}
	}
}

func releaseAll(batches []arrow.RecordBatch) {
	for _, b := range batches {
		b.Release()
	}
}

func totalRows(batches []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range batches {
		n += b.NumRows()
	}
	return n
}
