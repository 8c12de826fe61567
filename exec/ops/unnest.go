package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// Unnest runs DuckDB's UNNEST (plan.Unnest): every input row becomes as many rows as its
// longest list, carrying the input's columns and then the i-th element of each list
// (NULL past a list's end); rows whose lists are all NULL or empty vanish. Output batches
// hold at most BatchSize rows.
type Unnest struct {
	input  exec.Operator
	lists  []plan.Expr
	schema *arrow.Schema
	env    exec.Env
	evals  []expr.Evaluator
	out    splitter
}

// NewUnnest builds the operator of n over input.
func NewUnnest(input exec.Operator, n *plan.Unnest, env exec.Env) *Unnest {
	env = env.WithDefaults()
	return &Unnest{input: input, lists: n.Lists, schema: n.Schema(), env: env, out: splitter{size: int64(env.BatchSize)}}
}

// Schema implements exec.Operator.
func (u *Unnest) Schema() *arrow.Schema { return u.schema }

// Open implements exec.Operator.
func (u *Unnest) Open(ctx context.Context) error {
	evs, err := expr.CompileAll(u.lists, u.env.Mem)
	if err != nil {
		return err
	}
	u.evals = evs
	return u.input.Open(ctx)
}

// Next implements exec.Operator.
func (u *Unnest) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b := u.out.next(); b != nil {
			return b, nil
		}
		in, err := u.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		b, err := u.expand(ctx, in)
		in.Release()
		if err != nil {
			return nil, err
		}
		if b != nil {
			u.out.push(b)
		}
	}
}

// expand unnests one input batch; nil when it yields no row.
func (u *Unnest) expand(ctx context.Context, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	lists := make([]arrow.Array, 0, len(u.evals))
	defer func() { releaseArrays(lists) }()
	for _, ev := range u.evals {
		a, err := ev.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		lists = append(lists, a)
	}
	var rows []int32 // input row of every output row
	var pos []int64  // position within its row's lists
	for r := range int(in.NumRows()) {
		m := int64(0)
		for _, l := range lists {
			m = max(m, listLen(l, r))
		}
		for j := range m {
			rows = append(rows, int32(r))
			pos = append(pos, j)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	base, err := takeSel(ctx, u.env.Mem, in, rows)
	if err != nil {
		return nil, err
	}
	defer base.Release()
	cols := make([]arrow.Array, 0, u.schema.NumFields())
	for _, c := range base.Columns() {
		c.Retain()
		cols = append(cols, c)
	}
	for k, l := range lists {
		e, err := u.elements(ctx, l, rows, pos, u.schema.Field(base.Schema().NumFields()+k).Type)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, e)
	}
	return newBatchOwned(u.schema, cols, int64(len(rows))), nil
}

// listLen is the number of elements of list l at row r (0 when NULL).
func listLen(l arrow.Array, r int) int64 {
	ll, ok := l.(array.ListLike)
	if !ok || l.IsNull(r) {
		return 0
	}
	start, end := ll.ValueOffsets(r)
	return end - start
}

// elements gathers element pos[i] of list l at row rows[i], NULL past the list's end.
func (u *Unnest) elements(ctx context.Context, l arrow.Array, rows []int32, pos []int64, typ arrow.DataType) (arrow.Array, error) {
	ll, ok := l.(array.ListLike)
	if !ok || typ.ID() == arrow.NULL {
		return kernel.ArrayOfNull(u.env.Mem, typ, len(rows)), nil
	}
	idx := array.NewInt64Builder(u.env.Mem)
	defer idx.Release()
	idx.Reserve(len(rows))
	for i, r := range rows {
		if pos[i] >= listLen(l, int(r)) {
			idx.UnsafeAppendBoolToBitmap(false)
			continue
		}
		start, _ := ll.ValueOffsets(int(r))
		idx.UnsafeAppend(start + pos[i])
	}
	ia := idx.NewArray()
	defer ia.Release()
	return compute.TakeArray(compute.WithAllocator(ctx, u.env.Mem), ll.ListValues(), ia)
}

// Close implements exec.Operator.
func (u *Unnest) Close() error {
	if u.out.pending != nil {
		u.out.pending.Release()
		u.out.pending = nil
	}
	return u.input.Close()
}
