package bind

import (
	"math/bits"

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
	var out int64
	var overflow bool
	switch {
	case c.Func == "negate" && len(vals) == 1:
		out, overflow = -vals[0], vals[0] == -1<<63
	case c.Func == "add" && len(vals) == 2:
		out = vals[0] + vals[1]
		overflow = (out > vals[0]) != (vals[1] > 0)
	case c.Func == "subtract" && len(vals) == 2:
		out = vals[0] - vals[1]
		overflow = (out < vals[0]) != (vals[1] > 0)
	case c.Func == "multiply" && len(vals) == 2:
		hi, lo := bits.Mul64(uint64(abs(vals[0])), uint64(abs(vals[1])))
		overflow = hi != 0 || lo > 1<<63-1
		out = vals[0] * vals[1]
	default:
		return e
	}
	if overflow {
		return e
	}
	return &plan.Literal{Value: scalar.NewInt64Scalar(out)}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
