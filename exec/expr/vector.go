package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// vectorEval evaluates a distance function (array_distance, list_inner_product, ...).
// A literal argument (the query vector of a kNN search) is materialized once as a
// one-row array and applied to every row instead of being broadcast per batch.
type vectorEval struct {
	name   string
	op     kernel.VectorOp
	args   [2]Evaluator
	consts [2]arrow.Array // one-row arrays for literal arguments, else nil
	dt     arrow.DataType
	mem    memory.Allocator
}

func compileVector(c *plan.Call, op kernel.VectorOp, mem memory.Allocator) (Evaluator, error) {
	if len(c.Args) != 2 {
		return nil, dberr.New(dberr.Internal, "%s: %d arguments", c.Func, len(c.Args))
	}
	v := &vectorEval{name: c.Func, op: op, dt: c.DataType, mem: mem}
	for i, a := range c.Args {
		if lit, ok := a.(*plan.Literal); ok && lit.Value.IsValid() {
			// Go-allocated: the constant lives as long as the compiled plan, outside
			// the query's accounted memory (a few hundred bytes for a query vector).
			arr, err := scalar.MakeArrayFromScalar(lit.Value, 1, memory.DefaultAllocator)
			if err != nil {
				return nil, dberr.Wrap(dberr.Internal, err, "%s: constant argument", c.Func)
			}
			v.consts[i] = arr
			continue
		}
		ev, err := Compile(a, mem)
		if err != nil {
			return nil, err
		}
		v.args[i] = ev
	}
	return v, nil
}

func (v *vectorEval) Type() arrow.DataType { return v.dt }

func (v *vectorEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	var in [2]arrow.Array
	for i := range in {
		if v.consts[i] != nil {
			in[i] = v.consts[i]
			in[i].Retain()
			continue
		}
		x, err := v.args[i].Eval(ctx, b)
		if err != nil {
			if i == 1 && in[0] != nil {
				in[0].Release()
			}
			return nil, err
		}
		in[i] = x
	}
	defer in[0].Release()
	defer in[1].Release()
	for _, a := range in {
		if a.DataType().ID() == arrow.NULL {
			return array.MakeArrayOfNull(v.mem, v.dt, n), nil
		}
	}
	double := v.dt.ID() == arrow.FLOAT64
	out, err := kernel.Distance(v.mem, v.name, v.op, in[0], in[1], n, double)
	if err != nil {
		return nil, err
	}
	return out, nil
}
