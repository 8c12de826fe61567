package optimize

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// pushFilters moves a Filter that sits directly on a Scan into the scan. The scan's output
// is its projected columns, so the condition is already indexed the way Scan.Filter wants.
// A scan that already has a limit keeps the Filter above it (the limit counts filtered rows).
func pushFilters(n plan.Node) plan.Node {
	return transformUp(n, func(n plan.Node) plan.Node {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n
		}
		s, ok := f.Input.(*plan.Scan)
		if !ok || s.Limit >= 0 {
			return n
		}
		out := copyScan(s)
		out.Filter = conjoin(s.Filter, f.Cond)
		return out
	})
}

// conjoin returns a AND b, or b when a is nil.
func conjoin(a, b plan.Expr) plan.Expr {
	if a == nil {
		return b
	}
	return &plan.Call{Func: "and", Args: []plan.Expr{a, b}, DataType: arrow.FixedWidthTypes.Boolean, Null: a.Nullable() || b.Nullable()}
}
