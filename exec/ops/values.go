package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Values outputs constant rows (SELECT without FROM, VALUES lists, EXPLAIN output): each
// row's expressions are evaluated over a one-row batch without columns, and a value whose
// type differs from its column's is cast to it. Rows come out in order, in batches of at
// most BatchSize rows. Rows without columns are supported (they only carry a row count).
type Values struct {
	rows   [][]plan.Expr
	schema *arrow.Schema
	env    exec.Env
	out    splitter
	done   bool
}

// NewValues builds a Values operator producing rows with the given schema.
func NewValues(rows [][]plan.Expr, schema *arrow.Schema, env exec.Env) *Values {
	env = env.WithDefaults()
	return &Values{rows: rows, schema: schema, env: env, out: splitter{size: int64(env.BatchSize)}}
}

// Schema implements exec.Operator.
func (v *Values) Schema() *arrow.Schema { return v.schema }

// Open implements exec.Operator.
func (v *Values) Open(context.Context) error {
	for i, r := range v.rows {
		if len(r) != v.schema.NumFields() {
			return dberr.New(dberr.Internal, "values row %d has %d expressions, schema has %d columns", i, len(r), v.schema.NumFields())
		}
	}
	return nil
}

// Next implements exec.Operator. The first call evaluates every row.
func (v *Values) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !v.done {
		v.done = true
		if len(v.rows) == 0 {
			return nil, nil
		}
		b, err := v.evalAll(ctx)
		if err != nil {
			return nil, err
		}
		v.out.push(b)
	}
	return v.out.next(), nil
}

// evalAll evaluates every row and concatenates the values column by column.
func (v *Values) evalAll(ctx context.Context) (arrow.RecordBatch, error) {
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	cols := make([]arrow.Array, 0, v.schema.NumFields())
	defer func() { releaseArrays(cols) }()
	for c, f := range v.schema.Fields() {
		parts := make([]arrow.Array, 0, len(v.rows))
		col, err := v.evalColumn(ctx, one, c, f.Type, &parts)
		releaseArrays(parts)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return newBatch(v.schema, cols, int64(len(v.rows))), nil
}

// evalColumn evaluates column c of every row into parts and concatenates them.
func (v *Values) evalColumn(ctx context.Context, one arrow.RecordBatch, c int, dt arrow.DataType, parts *[]arrow.Array) (arrow.Array, error) {
	for _, r := range v.rows {
		ev, err := expr.Compile(r[c], v.env.Mem)
		if err != nil {
			return nil, err
		}
		val, err := ev.Eval(ctx, one)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(val.DataType(), dt) {
			cast, err := compute.CastArray(compute.WithAllocator(ctx, v.env.Mem), val, compute.SafeCastOptions(dt))
			val.Release()
			if err != nil {
				return nil, dberr.Wrap(dberr.Conversion, err, "values: cast %s to %s", r[c].Type(), dt)
			}
			val = cast
		}
		*parts = append(*parts, val)
	}
	if len(*parts) == 1 {
		(*parts)[0].Retain()
		return (*parts)[0], nil
	}
	col, err := array.Concatenate(*parts, v.env.Mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "values: concatenate column %d", c)
	}
	return col, nil
}

// Close implements exec.Operator.
func (v *Values) Close() error {
	v.out.release()
	return nil
}
