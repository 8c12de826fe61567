package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// caseEval is CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ... ELSE e END. Each condition is
// evaluated only on the rows no earlier condition took, and each value only on the rows its
// condition took, so expressions guarded by a condition never see the rows it excludes.
//
// Splitting a batch gathers only the columns the receiving expressions read (thenCols,
// restCols); the others are replaced by zero-copy prefixes of the right length that nothing
// reads, so a CASE over a wide batch does not copy its unused (often string) columns.
type caseEval struct {
	conds, vals []Evaluator
	elseVal     Evaluator // nil: NULL
	dt          arrow.DataType
	mem         memory.Allocator
	// thenCols[k] marks the input columns vals[k] reads; restCols[k] those read by the
	// branches after k (conds[k+1:], vals[k+1:] and the ELSE).
	thenCols, restCols [][]bool
}

func compileCase(c *plan.Call, mem memory.Allocator) (Evaluator, error) {
	if len(c.Args) < 2 {
		return nil, dberr.New(dberr.Internal, "case: %d arguments", len(c.Args))
	}
	args, err := CompileAll(c.Args, mem)
	if err != nil {
		return nil, err
	}
	ce := &caseEval{dt: c.DataType, mem: mem}
	for i := 0; i+1 < len(args); i += 2 {
		ce.conds = append(ce.conds, args[i])
		ce.vals = append(ce.vals, args[i+1])
	}
	if len(args)%2 == 1 {
		ce.elseVal = args[len(args)-1]
	}
	ce.thenCols, ce.restCols = caseColumns(c.Args)
	return ce, nil
}

// caseColumns returns, for each WHEN/THEN pair k of a CASE's arguments, the columns its THEN
// value reads and the columns read by everything after the pair.
func caseColumns(args []plan.Expr) (thenCols, restCols [][]bool) {
	width := 0
	for _, a := range args {
		plan.Columns(a, func(c *plan.ColumnRef) { width = max(width, c.Index+1) })
	}
	mark := func(es []plan.Expr) []bool {
		m := make([]bool, width)
		for _, e := range es {
			plan.Columns(e, func(c *plan.ColumnRef) {
				if c.Index >= 0 {
					m[c.Index] = true
				}
			})
		}
		return m
	}
	for i := 0; i+1 < len(args); i += 2 {
		thenCols = append(thenCols, mark(args[i+1:i+2]))
		restCols = append(restCols, mark(args[i+2:]))
	}
	return thenCols, restCols
}

func (c *caseEval) Type() arrow.DataType { return c.dt }

// piece is the value of one branch for some rows: rows[j] is the input row of vals[j].
type piece struct{ rows, vals arrow.Array }

func (c *caseEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	var pieces []piece
	defer func() {
		for _, p := range pieces {
			p.rows.Release()
			p.vals.Release()
		}
	}()
	b.Retain()
	cur := b
	rows := kernel.Iota(c.mem, int(b.NumRows()))
	defer func() { cur.Release(); rows.Release() }()
	for k := 0; k < len(c.conds) && cur.NumRows() > 0; k++ {
		var err error
		pieces, cur, rows, err = c.branch(ctx, k, pieces, cur, rows)
		if err != nil {
			return nil, err
		}
	}
	if cur.NumRows() > 0 {
		v, err := c.evalElse(ctx, cur)
		if err != nil {
			return nil, err
		}
		rows.Retain()
		pieces = append(pieces, piece{rows: rows, vals: v})
	}
	return c.assemble(ctx, pieces, int(b.NumRows()))
}

// branch runs WHEN conds[k] THEN vals[k] over cur and returns the rows left for later
// branches. It takes ownership of cur and rows.
func (c *caseEval) branch(ctx context.Context, k int, pieces []piece, cur arrow.RecordBatch, rows arrow.Array) ([]piece, arrow.RecordBatch, arrow.Array, error) {
	cond, err := c.conds[k].Eval(ctx, cur)
	if err != nil {
		return pieces, cur, rows, err
	}
	isTrue, notTrue, nTrue, err := kernel.TruthMasks(c.mem, cond)
	cond.Release()
	if err != nil {
		return pieces, cur, rows, err
	}
	defer isTrue.Release()
	defer notTrue.Release()
	if nTrue == 0 {
		return pieces, cur, rows, nil
	}
	taken, takenRows, err := c.split(ctx, cur, rows, isTrue, nTrue, c.thenCols[k])
	if err != nil {
		return pieces, cur, rows, err
	}
	v, err := c.vals[k].Eval(ctx, taken)
	taken.Release()
	if err != nil {
		takenRows.Release()
		return pieces, cur, rows, err
	}
	pieces = append(pieces, piece{rows: takenRows, vals: v})
	left, leftRows, err := c.split(ctx, cur, rows, notTrue, int(cur.NumRows())-nTrue, c.restCols[k])
	if err != nil {
		return pieces, cur, rows, err
	}
	cur.Release()
	rows.Release()
	return pieces, left, leftRows, nil
}

// split keeps the rows of cur (and their input positions) where mask is set. Only the
// columns marked in need are gathered; the others become prefixes of cur's columns with the
// right length and type but meaningless values, which the receiving expressions never read.
func (c *caseEval) split(ctx context.Context, cur arrow.RecordBatch, rows, mask arrow.Array, n int, need []bool) (arrow.RecordBatch, arrow.Array, error) {
	if n == int(cur.NumRows()) {
		cur.Retain()
		rows.Retain()
		return cur, rows, nil
	}
	idx, err := kernel.MaskIndices(c.mem, mask, n)
	if err != nil {
		return nil, nil, err
	}
	defer idx.Release()
	sub, err := takeNeeded(ctx, c.mem, cur, idx, need)
	if err != nil {
		return nil, nil, err
	}
	subRows, err := compute.TakeArray(compute.WithAllocator(ctx, c.mem), rows, idx)
	if err != nil {
		sub.Release()
		return nil, nil, dberr.Wrap(dberr.Internal, err, "case: take rows")
	}
	return sub, subRows, nil
}

// takeNeeded is TakeBatch for the columns marked in need; every other column is replaced by
// a zero-copy prefix of itself of idx.Len() rows.
func takeNeeded(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, idx arrow.Array, need []bool) (arrow.RecordBatch, error) {
	n := idx.Len()
	cols := make([]arrow.Array, 0, b.NumCols())
	for i, col := range b.Columns() {
		if i >= len(need) || !need[i] {
			cols = append(cols, array.NewSlice(col, 0, int64(n)))
			continue
		}
		t, err := compute.TakeArray(compute.WithAllocator(ctx, mem), col, idx)
		if err != nil {
			releaseAll(cols)
			return nil, dberr.Wrap(dberr.Internal, err, "case: take rows")
		}
		cols = append(cols, t)
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(n))
	releaseAll(cols)
	return out, nil
}

func (c *caseEval) evalElse(ctx context.Context, cur arrow.RecordBatch) (arrow.Array, error) {
	if c.elseVal == nil {
		return kernel.ArrayOfNull(c.mem, c.dt, int(cur.NumRows())), nil
	}
	return c.elseVal.Eval(ctx, cur)
}

// assemble scatters the pieces back into input order.
func (c *caseEval) assemble(ctx context.Context, pieces []piece, n int) (arrow.Array, error) {
	if len(pieces) == 1 && pieces[0].vals.Len() == n {
		v := pieces[0].vals
		v.Retain()
		return conform(ctx, c.mem, v, c.dt)
	}
	vals := make([]arrow.Array, len(pieces))
	for i, p := range pieces {
		v := p.vals
		v.Retain()
		v, err := conform(ctx, c.mem, v, c.dt)
		if err != nil {
			releaseAll(vals)
			return nil, err
		}
		vals[i] = v
	}
	all, err := array.Concatenate(vals, c.mem)
	releaseAll(vals)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "case: concatenate branches")
	}
	defer all.Release()
	inv := kernel.NewFixed[int32](c.mem, arrow.PrimitiveTypes.Int32, n)
	j := int32(0)
	for _, p := range pieces {
		for _, r := range p.rows.(*array.Int32).Int32Values() {
			inv.Values[r] = j
			j++
		}
	}
	idx := inv.Finish()
	defer idx.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, c.mem), all, idx)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "case: scatter branches")
	}
	return out, nil
}
