package substrait

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// integerDivide reads the standard divide over two integers: Substrait's integer division,
// truncating toward zero, in the operands' common integer type (SQL's a // b in DuckDB).
// functions.NewCall would divide as doubles (SQL's a / b), so the call is built here.
func integerDivide(args []plan.Expr, path string) (plan.Expr, error) {
	common, ok := functions.CommonType(args[0].Type(), args[1].Type())
	if !ok || !functions.IsInteger(common) {
		return nil, dberr.NotSupported("Substrait integer division of " + args[0].Type().String() + " by " + args[1].Type().String() + " (at " + path + ")")
	}
	out := make([]plan.Expr, 2)
	for i, a := range args {
		c, err := functions.Cast(a, common)
		if err != nil {
			return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
		}
		out[i] = c
	}
	return &plan.Call{Func: "divide", Args: out, DataType: common, Null: out[0].Nullable() || out[1].Nullable()}, nil
}
