package ops

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// IndexDDL runs CREATE INDEX, DROP INDEX or ALTER INDEX ... OPTIMIZE: its first Next calls
// the catalog's catalog.Indexer (one commit, or none when there is nothing to do) and
// outputs one row, plan.CountSchema: the rows the new index segment covers (0 for DROP).
type IndexDDL struct {
	node *plan.IndexDDL
	env  exec.Env
	done bool
}

// NewIndexDDL builds the operator of n; it has no input.
func NewIndexDDL(n *plan.IndexDDL, env exec.Env) *IndexDDL {
	return &IndexDDL{node: n, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (d *IndexDDL) Schema() *arrow.Schema { return plan.CountSchema }

// Open implements exec.Operator.
func (d *IndexDDL) Open(context.Context) error { return nil }

// Close implements exec.Operator.
func (d *IndexDDL) Close() error { return nil }

// Next implements exec.Operator. The first call does the statement.
func (d *IndexDDL) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if d.done {
		return nil, nil
	}
	d.done = true
	n, err := d.run(ctx)
	if err != nil {
		return nil, err
	}
	b := array.NewInt64Builder(d.env.Mem)
	defer b.Release()
	b.Append(n)
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(plan.CountSchema, []arrow.Array{col}, 1), nil
}

// run calls the Indexer and returns the rows indexed.
func (d *IndexDDL) run(ctx context.Context) (int64, error) {
	n := d.node
	if n.Table == "" { // DROP INDEX IF EXISTS of an index no table has
		return 0, nil
	}
	ix, ok := n.Catalog.(catalog.Indexer)
	if !ok {
		return 0, dberr.NotSupported(n.Kind.String() + ": the catalog cannot build indexes")
	}
	var ch catalog.IndexChange
	var err error
	switch n.Kind {
	case plan.CreateIndex:
		ch, err = ix.CreateIndex(ctx, n.Table, catalog.IndexSpec{Name: n.Name, Column: n.Column, Type: n.Type, Allocator: d.env.Mem})
		if errors.Is(err, catalog.ErrIndexExists) {
			if n.IfNotExists {
				return 0, nil
			}
			return 0, dberr.Wrap(dberr.Catalog, err, "Index with name %q already exists on table %q!", n.Name, n.Table)
		}
	case plan.DropIndex:
		ch, err = ix.DropIndex(ctx, n.Table, n.Name)
	case plan.OptimizeIndex:
		ch, err = ix.OptimizeIndex(ctx, n.Table, n.Name, d.env.Mem)
	default:
		return 0, dberr.New(dberr.Internal, "index DDL kind %d", n.Kind)
	}
	if errors.Is(err, catalog.ErrNoSuchIndex) {
		if n.IfExists {
			return 0, nil
		}
		return 0, dberr.Wrap(dberr.Catalog, err, "Index with name %q does not exist on table %q!", n.Name, n.Table)
	}
	if err != nil {
		return 0, err
	}
	return ch.Rows, nil
}
