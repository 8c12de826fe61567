package ops

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

// conjuncts flattens a tree of AND calls into its operands, so that a filter can apply them
// one after another, each only on the rows the earlier ones kept (DuckDB's WHERE semantics:
// "b <> 0 AND a // b > 1" never divides by zero).
func conjuncts(e plan.Expr) []plan.Expr {
	if c, ok := e.(*plan.Call); ok && c.Func == "and" {
		var out []plan.Expr
		for _, a := range c.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []plan.Expr{e}
}

// predicate is a compiled filter: conjuncts applied in order. Consecutive conjuncts that
// cannot fail (safeStep) form one step: they are all evaluated on the same rows and
// their results ANDed, so the rows are taken once per step, not once per conjunct.
type predicate struct {
	steps [][]preConjunct // predicate_fast.go
	mem   memory.Allocator
}

func newPredicate(cond plan.Expr, mem memory.Allocator) (*predicate, error) {
	if cond == nil {
		return nil, nil
	}
	p := &predicate{mem: mem}
	prevSafe := false
	for _, c := range conjuncts(cond) {
		ev, err := compileConjunct(c, mem)
		if err != nil {
			return nil, err
		}
		safe := safeStep(c)
		if safe && prevSafe {
			p.steps[len(p.steps)-1] = append(p.steps[len(p.steps)-1], ev)
		} else {
			p.steps = append(p.steps, []preConjunct{ev})
		}
		prevSafe = safe
	}
	return p, nil
}

// safeConjunct reports whether evaluating e cannot fail on any row: a comparison of column
// references and literals (possibly cast to a floating-point type), so it may run on rows an
// earlier conjunct rejects.
func safeConjunct(e plan.Expr) bool {
	c, ok := e.(*plan.Call)
	if !ok {
		return false
	}
	switch c.Func {
	case "equal", "not_equal", "lt", "lte", "gt", "gte":
	default:
		return false
	}
	for _, a := range c.Args {
		if !safeOperand(a) {
			return false
		}
	}
	return true
}

// safeStep is safeConjunct extended to ORs of safe comparisons (what x IN (a, b) binds to),
// for grouping a filter's conjuncts into steps; fused aggregate filters (FusableFilter)
// keep to safeConjunct.
func safeStep(e plan.Expr) bool {
	if c, ok := e.(*plan.Call); ok && c.Func == "or" && len(c.Args) > 0 {
		for _, a := range c.Args {
			if !safeStep(a) {
				return false
			}
		}
		return true
	}
	return safeConjunct(e)
}

func safeOperand(e plan.Expr) bool {
	switch e := e.(type) {
	case *plan.ColumnRef, *plan.Literal:
		return true
	case *plan.Cast:
		in := e.Input.Type().ID()
		numeric := arrow.IsInteger(in) || arrow.IsFloating(in) || in == arrow.DECIMAL128
		return !e.Try && numeric && arrow.IsFloating(e.DataType.ID()) && safeOperand(e.Input)
	}
	return false
}

// apply returns the rows of b for which every conjunct is TRUE. It takes ownership of b.
// The result may have zero rows.
func (p *predicate) apply(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	for _, step := range p.steps {
		if b.NumRows() == 0 {
			return b, nil
		}
		next, err := p.applyStep(ctx, step, b)
		b.Release()
		if err != nil {
			return nil, err
		}
		b = next
	}
	return b, nil
}

// applyStep keeps the rows of b where every conjunct of step is TRUE.
func (p *predicate) applyStep(ctx context.Context, step []preConjunct, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	sel, err := selectConjuncts(ctx, step, b, nil)
	if err != nil {
		return nil, err
	}
	if len(sel) == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	return takeSel(ctx, p.mem, b, sel)
}

// takeSel returns the rows of b at positions sel (kernel.Take where it applies, arrow's
// take otherwise). The caller releases the result.
func takeSel(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, b.NumCols())
	var idx arrow.Array
	defer func() {
		if idx != nil {
			idx.Release()
		}
	}()
	for _, c := range b.Columns() {
		if t, ok := kernel.Take(mem, c, sel); ok {
			cols = append(cols, t)
			continue
		}
		if idx == nil {
			f := kernel.NewFixed[int32](mem, arrow.PrimitiveTypes.Int32, len(sel))
			copy(f.Values, sel)
			idx = f.Finish()
		}
		t, err := compute.TakeArray(compute.WithAllocator(ctx, mem), c, idx)
		if err != nil {
			releaseArrays(cols)
			return nil, dberr.Wrap(dberr.Internal, err, "filter: take rows")
		}
		cols = append(cols, t)
	}
	return newBatchOwned(b.Schema(), cols, int64(len(sel))), nil
}

// splitter cuts batches into slices of at most size rows.
type splitter struct {
	size    int64
	pending arrow.RecordBatch
	off     int64
}

// push hands b (owned) to the splitter; it must be empty.
func (s *splitter) push(b arrow.RecordBatch) {
	s.pending, s.off = b, 0
}

// next returns the next slice, or nil when the pending batch is used up.
func (s *splitter) next() arrow.RecordBatch {
	if s.pending == nil {
		return nil
	}
	n := s.pending.NumRows()
	if s.off == 0 && n <= s.size {
		b := s.pending
		s.pending = nil
		return b
	}
	end := min(n, s.off+s.size)
	out := s.pending.NewSlice(s.off, end)
	s.off = end
	if s.off >= n {
		s.pending.Release()
		s.pending = nil
	}
	return out
}

func (s *splitter) release() {
	if s.pending != nil {
		s.pending.Release()
		s.pending = nil
	}
}

// withSchema returns b with exactly schema (the same columns); it takes ownership of b.
func withSchema(b arrow.RecordBatch, schema *arrow.Schema) arrow.RecordBatch {
	if b.Schema().Equal(schema) {
		return b
	}
	defer b.Release()
	return newBatch(schema, b.Columns(), b.NumRows())
}

// newBatch builds a batch over cols, retaining them.
func newBatch(schema *arrow.Schema, cols []arrow.Array, n int64) arrow.RecordBatch {
	return array.NewRecordBatch(schema, cols, n)
}

// newBatchOwned builds a batch over cols and releases the caller's references to them.
func newBatchOwned(schema *arrow.Schema, cols []arrow.Array, n int64) arrow.RecordBatch {
	b := array.NewRecordBatch(schema, cols, n)
	releaseArrays(cols)
	return b
}

func releaseArrays(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		if b != nil {
			b.Release()
		}
	}
}
