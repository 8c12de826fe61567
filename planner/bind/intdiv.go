package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindIntegerDivide binds a // b. As in DuckDB, integers divide in their common integer
// type, truncating toward zero (a zero divisor is an error); any other operands divide as
// a / b does.
func (eb *exprBinder) bindIntegerDivide(e *ast.Binary) (plan.Expr, error) {
	l, err := eb.bind(e.L)
	if err != nil {
		return nil, err
	}
	r, err := eb.bind(e.R)
	if err != nil {
		return nil, err
	}
	isInt := func(t arrow.DataType) bool { return functions.IsInteger(t) || t.ID() == arrow.NULL }
	common, ok := functions.CommonType(l.Type(), r.Type())
	if !isInt(l.Type()) || !isInt(r.Type()) || !ok {
		return functions.NewCall("divide", []plan.Expr{l, r})
	}
	if common.ID() == arrow.NULL {
		common = arrow.PrimitiveTypes.Int32
	}
	if l, err = functions.Cast(l, common); err != nil {
		return nil, err
	}
	if r, err = functions.Cast(r, common); err != nil {
		return nil, err
	}
	return &plan.Call{Func: "divide", Args: []plan.Expr{l, r}, DataType: common, Null: l.Nullable() || r.Nullable()}, nil
}
