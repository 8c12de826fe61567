package bind

import (
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// listValue binds a list literal [x, ...] (list_value(x, ...)) to a constant list.
func (eb *exprBinder) listValue(args []ast.Expr) (plan.Expr, error) {
	bound := make([]plan.Expr, len(args))
	for i, a := range args {
		x, err := eb.bind(a)
		if err != nil {
			return nil, err
		}
		bound[i] = x
	}
	return functions.ListValue(bound)
}
