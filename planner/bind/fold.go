package bind

import (
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// foldInteger evaluates integer add, subtract, multiply and negate over literals, so that
// constant clauses (AT, LIMIT, OFFSET) may be written as 1 + 1. Anything else, and results
// that overflow int64, are returned unchanged.
func foldInteger(e plan.Expr) plan.Expr {
	c, ok := e.(*plan.Call)
	if !ok {
		return e
	}
	vals := make([]int64, len(c.Args))
	for i, a := range c.Args {
		lit, ok := foldInteger(a).(*plan.Literal)
		if !ok {
			return e
		}
		n, ok := functions.IntValue(lit.Value)
		if !ok {
			return e
		}
		vals[i] = n
	}
	out, ok := functions.IntArith(c.Func, vals)
	if !ok {
		return e
	}
	return &plan.Literal{Value: scalar.NewInt64Scalar(out)}
}
