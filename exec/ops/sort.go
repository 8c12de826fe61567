package ops

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Sort orders its whole input by the sort keys (stable; the first key most significant)
// and outputs it in batches of at most Env.BatchSize rows. It sorts in memory: the input is
// concatenated, the key expressions are evaluated once, row positions are sorted stably with
// per-key comparators (NaN above every number, as DuckDB orders it), and the rows are taken
// in order. It does not spill yet. (arrow's sort_indices is not used: in arrow-go v18.8.0 it
// leaks its result buffer.)
type Sort struct {
	input exec.Operator
	keys  []plan.SortKey
	env   exec.Env
	evals []expr.Evaluator
	res   *exec.Reservation
	out   splitter
	done  bool
}

// NewSort builds a sort over input.
func NewSort(input exec.Operator, keys []plan.SortKey, env exec.Env) *Sort {
	env = env.WithDefaults()
	return &Sort{input: input, keys: keys, env: env, out: splitter{size: int64(env.BatchSize)},
		res: newReservation(env, "sort")}
}

// Schema implements exec.Operator.
func (s *Sort) Schema() *arrow.Schema { return s.input.Schema() }

// Open implements exec.Operator.
func (s *Sort) Open(ctx context.Context) error {
	exprs := make([]plan.Expr, len(s.keys))
	for i, k := range s.keys {
		exprs[i] = k.Expr
	}
	evs, err := expr.CompileAll(exprs, s.env.Mem)
	if err != nil {
		return err
	}
	s.evals = evs
	return s.input.Open(ctx)
}

// Next implements exec.Operator.
func (s *Sort) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.done {
		s.done = true
		all, err := drainConcat(ctx, s.input, s.env, s.res)
		if err != nil || all == nil {
			return nil, err
		}
		sorted, err := s.sort(ctx, all)
		all.Release()
		if err != nil {
			return nil, err
		}
		s.out.push(sorted)
	}
	return s.out.next(), nil
}

// sort returns b's rows in key order (a stable sort of row positions).
func (s *Sort) sort(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(s.evals) == 0 || b.NumRows() < 2 {
		b.Retain()
		return b, nil
	}
	return s.sortPrefix(ctx, b, b.NumRows())
}

// sortPrefix returns the first k rows of b in key order (a stable sort of row positions).
func (s *Sort) sortPrefix(ctx context.Context, b arrow.RecordBatch, k int64) (arrow.RecordBatch, error) {
	keyCols := make([]arrow.Array, 0, len(s.evals))
	defer func() { releaseArrays(keyCols) }()
	cmps := make([]rowComparator, len(s.evals))
	for i, ev := range s.evals {
		c, err := ev.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		keyCols = append(keyCols, c)
		if cmps[i], err = keyComparator(c, s.keys[i]); err != nil {
			return nil, err
		}
	}
	idx := kernel.NewFixed[int32](s.env.Mem, arrow.PrimitiveTypes.Int32, int(b.NumRows()))
	for i := range idx.Values {
		idx.Values[i] = int32(i)
	}
	if k < int64(len(idx.Values))/4 {
		idx.Values = selectTop(idx.Values, int(k), cmps) // a heap: O(n log k)
	}
	slices.SortStableFunc(idx.Values, func(x, y int32) int {
		for _, c := range cmps {
			if r := c(int(x), int(y)); r != 0 {
				return r
			}
		}
		return 0
	})
	perm := idx.Finish()
	defer perm.Release()
	if k < int64(perm.Len()) {
		prefix := array.NewSlice(perm, 0, k)
		defer prefix.Release()
		return takeBatch(ctx, s.env, b, prefix)
	}
	return takeBatch(ctx, s.env, b, perm)
}

// takeBatch returns the rows of b at idx.
func takeBatch(ctx context.Context, env exec.Env, b arrow.RecordBatch, idx arrow.Array) (arrow.RecordBatch, error) {
	return expr.TakeBatch(ctx, env.Mem, b, idx)
}

// drainConcat reads input to the end and returns one batch holding every row, or nil if
// the input had no rows.
// Every kept batch is first reserved in res (which stays grown until the caller frees it);
// a refused reservation ends the drain with the pool's OutOfMemory error.
func drainConcat(ctx context.Context, input exec.Operator, env exec.Env, res *exec.Reservation) (arrow.RecordBatch, error) {
	var batches []arrow.RecordBatch
	defer func() { releaseBatches(batches) }()
	var rows int64
	for {
		b, err := input.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if err := res.TryGrow(batchBytes(b)); err != nil {
			b.Release()
			return nil, err
		}
		rows += b.NumRows()
		batches = append(batches, b)
	}
	return concatBatches(input.Schema(), batches, rows, env)
}

// concatBatches returns one batch holding the rows of batches (not released), or nil if
// there are none.
func concatBatches(schema *arrow.Schema, batches []arrow.RecordBatch, rows int64, env exec.Env) (arrow.RecordBatch, error) {
	switch len(batches) {
	case 0:
		return nil, nil
	case 1:
		b := batches[0]
		b.Retain()
		return b, nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	for c := range cols {
		parts := make([]arrow.Array, len(batches))
		for i, b := range batches {
			parts[i] = b.Column(c)
		}
		col, err := array.Concatenate(parts, env.Mem)
		if err != nil {
			releaseArrays(cols)
			return nil, dberr.Wrap(dberr.Internal, err, "concatenate column %d", c)
		}
		cols[c] = col
	}
	return newBatchOwned(schema, cols, rows), nil
}

// Close implements exec.Operator.
func (s *Sort) Close() error {
	s.out.release()
	s.res.Free()
	return s.input.Close()
}
