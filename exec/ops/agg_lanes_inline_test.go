package ops_test

import (
	"testing"

	"github.com/flightd/flightd/planner/plan"
)

// TestAggregateLanesInlined: products whose linear operand is computed inside the product
// (used once) or in a pass of its own (shared with another product, an aggregate's own
// argument, or both operands of one product linear) give what the general path gives.
func TestAggregateLanesInlined(t *testing.T) {
	p, d, tx := col(1, dec(15, 2)), col(2, dec(15, 2)), col(3, dec(15, 2))
	one := decLit(100, 15, 2)
	lin := func(fn string, x plan.Expr) plan.Expr { return call(fn, dec(16, 2), one, x) }
	cases := map[string][]plan.AggCall{
		"once": {agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), p, lin("subtract", d))),
			agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), lin("add", tx), p))},
		"shared": {agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), p, lin("subtract", d))),
			agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), tx, lin("subtract", d)))},
		"also-argument": {agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), p, lin("subtract", d))),
			agg("avg", f64, false, lin("subtract", d))},
		"both-linear": {agg("sum", dec(38, 4), false, call("multiply", dec(33, 4), lin("subtract", d), lin("add", tx)))},
		"constant":    {agg("sum", dec(38, 4), false, call("multiply", dec(20, 4), decLit(-3, 4, 2), lin("add", tx)))},
	}
	rows := laneRows(130)
	for name, aggs := range cases {
		requireFastPath(t, fastCase{name: name, schema: laneSchema, rows: rows, keys: []plan.Expr{col(0, str)}, aggs: aggs}, lanesPath)
	}
}
