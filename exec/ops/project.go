package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// Project computes one output column per expression.
type Project struct {
	input  exec.Operator
	exprs  []plan.Expr
	schema *arrow.Schema
	env    exec.Env
	evals  []expr.Evaluator
}

// NewProject builds a projection over input; schema has one field per expression.
func NewProject(input exec.Operator, exprs []plan.Expr, schema *arrow.Schema, env exec.Env) *Project {
	return &Project{input: input, exprs: exprs, schema: schema, env: env.WithDefaults()}
}

// Schema implements exec.Operator.
func (p *Project) Schema() *arrow.Schema { return p.schema }

// Open implements exec.Operator.
func (p *Project) Open(ctx context.Context) error {
	evs, err := expr.CompileAll(p.exprs, p.env.Mem)
	if err != nil {
		return err
	}
	p.evals = evs
	return p.input.Open(ctx)
}

// Next implements exec.Operator.
func (p *Project) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := p.input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	defer b.Release()
	cols := make([]arrow.Array, 0, len(p.evals))
	for _, ev := range p.evals {
		c, err := ev.Eval(ctx, b)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, c)
	}
	return newBatchOwned(p.schema, cols, b.NumRows()), nil
}

// Close implements exec.Operator.
func (p *Project) Close() error { return p.input.Close() }
