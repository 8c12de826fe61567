package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
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

// predicate is a compiled filter: conjuncts applied in order.
type predicate struct {
	conds []expr.Evaluator
	mem   memory.Allocator
}

func newPredicate(cond plan.Expr, mem memory.Allocator) (*predicate, error) {
	if cond == nil {
		return nil, nil
	}
	evs, err := expr.CompileAll(conjuncts(cond), mem)
	if err != nil {
		return nil, err
	}
	return &predicate{conds: evs, mem: mem}, nil
}

// apply returns the rows of b for which every conjunct is TRUE. It takes ownership of b.
// The result may have zero rows.
func (p *predicate) apply(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	for _, c := range p.conds {
		if b.NumRows() == 0 {
			return b, nil
		}
		next, err := p.applyOne(ctx, c, b)
		b.Release()
		if err != nil {
			return nil, err
		}
		b = next
	}
	return b, nil
}

func (p *predicate) applyOne(ctx context.Context, c expr.Evaluator, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cond, err := c.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	isTrue, notTrue, nTrue, err := kernel.TruthMasks(p.mem, cond)
	cond.Release()
	if err != nil {
		return nil, err
	}
	defer isTrue.Release()
	defer notTrue.Release()
	if nTrue == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	return expr.FilterBatch(ctx, p.mem, b, isTrue, nTrue)
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
