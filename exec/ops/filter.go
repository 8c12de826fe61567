package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// Filter keeps the rows for which the condition is TRUE (NULL counts as false). The
// top-level AND operands are applied one after another, each on the rows that passed the
// earlier ones.
type Filter struct {
	input exec.Operator
	cond  plan.Expr
	env   exec.Env
	pred  *predicate
}

// NewFilter builds a filter over input.
func NewFilter(input exec.Operator, cond plan.Expr, env exec.Env) *Filter {
	return &Filter{input: input, cond: cond, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (f *Filter) Schema() *arrow.Schema { return f.input.Schema() }

// Open implements exec.Operator.
func (f *Filter) Open(ctx context.Context) error {
	pred, err := newPredicate(f.cond, f.env.Mem)
	if err != nil {
		return err
	}
	f.pred = pred
	return f.input.Open(ctx)
}

// Next implements exec.Operator.
func (f *Filter) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := f.input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		if f.pred != nil {
			if b, err = f.pred.applyPooled(ctx, b); err != nil {
				return nil, err
			}
		}
		if b.NumRows() > 0 {
			return b, nil
		}
		b.Release()
	}
}

// Close implements exec.Operator.
func (f *Filter) Close() error { return f.input.Close() }
