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

// CreateTable runs CREATE TABLE: its first Next drains the input (the rows of AS query, or
// none), creates the table with them through catalog.Writer.CreateTable (one commit) and
// outputs one row, plan.CountSchema, the rows written. With IfNotExists, an existing table
// is left alone and the count is 0.
type CreateTable struct {
	in   exec.Operator
	node *plan.CreateTable
	env  exec.Env
	done bool
}

// NewCreateTable builds the operator of n over in, n's source.
func NewCreateTable(in exec.Operator, n *plan.CreateTable, env exec.Env) *CreateTable {
	return &CreateTable{in: in, node: n, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (c *CreateTable) Schema() *arrow.Schema { return plan.CountSchema }

// Open implements exec.Operator.
func (c *CreateTable) Open(ctx context.Context) error { return c.in.Open(ctx) }

// Close implements exec.Operator.
func (c *CreateTable) Close() error { return c.in.Close() }

// Next implements exec.Operator. The first call creates the table.
func (c *CreateTable) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if c.done {
		return nil, nil
	}
	c.done = true
	w, ok := c.node.Catalog.(catalog.Writer)
	if !ok {
		return nil, dberr.NotSupported("CREATE TABLE: the catalog is read-only")
	}
	res := newReservation(c.env, "CREATE TABLE")
	defer res.Free()
	batches, err := drain(ctx, c.in, res)
	defer releaseAll(batches)
	if err != nil {
		return nil, err
	}
	rows, err := conform(batches, 0, c.node.Table, c.node.Name, "CREATE TABLE")
	defer releaseAll(rows)
	if err != nil {
		return nil, err
	}
	n := totalRows(rows)
	if _, err := w.CreateTable(ctx, c.node.Name, c.node.Table, rows, c.node.Mode); err != nil {
		if !c.node.IfNotExists || !errors.Is(err, catalog.ErrTableExists) {
			return nil, err
		}
		n = 0
	}
	b := array.NewInt64Builder(c.env.Mem)
	defer b.Release()
	b.Append(n)
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(plan.CountSchema, []arrow.Array{col}, 1), nil
}
