package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// Range produces the BIGINT values of range/generate_series (plan.Range) lazily, at most
// BatchSize per batch, so that huge ranges stream and stop on cancellation.
type Range struct {
	n    *plan.Range
	env  exec.Env
	cur  int64
	done bool
}

// NewRange builds the operator of n.
func NewRange(n *plan.Range, env exec.Env) *Range {
	return &Range{n: n, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (r *Range) Schema() *arrow.Schema { return r.n.Schema() }

// Open implements exec.Operator.
func (r *Range) Open(context.Context) error {
	r.cur, r.done = r.n.Start, r.n.Empty || r.n.Step == 0
	return nil
}

// inRange reports whether v is still produced.
func (r *Range) inRange(v int64) bool {
	switch {
	case r.n.Step > 0 && r.n.Inclusive:
		return v <= r.n.Stop
	case r.n.Step > 0:
		return v < r.n.Stop
	case r.n.Inclusive:
		return v >= r.n.Stop
	}
	return v > r.n.Stop
}

// Next implements exec.Operator.
func (r *Range) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.done || !r.inRange(r.cur) {
		r.done = true
		return nil, nil
	}
	bld := array.NewInt64Builder(r.env.Mem)
	defer bld.Release()
	bld.Reserve(r.env.BatchSize)
	for bld.Len() < r.env.BatchSize && r.inRange(r.cur) {
		bld.UnsafeAppend(r.cur)
		next := r.cur + r.n.Step
		if (next > r.cur) != (r.n.Step > 0) { // overflow: the last value
			r.done = true
			break
		}
		r.cur = next
	}
	col := bld.NewArray()
	return newBatchOwned(r.n.Schema(), []arrow.Array{col}, int64(col.Len())), nil
}

// Close implements exec.Operator.
func (r *Range) Close() error { return nil }
