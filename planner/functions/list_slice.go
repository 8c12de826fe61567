package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// array_slice(x, begin, end) is x[begin:end] on a list or a string: 1-based, both ends
// included, negative positions counting from the end, 0 meaning the start; NULL when any
// argument is NULL (DuckDB's array_slice; list_slice is an alias). The kernel is
// exec/kernel/slice.go. A step argument is not supported yet.
func init() {
	genericRules["array_slice"], Scalars["array_slice"] = sliceRule, Generic
	Aliases["list_slice"] = "array_slice"
}

func sliceRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 4 {
		return nil, dberr.NotSupported("list_slice with a step")
	}
	if len(args) != 3 {
		return nil, noMatch(name, args)
	}
	xt := args[0].Type()
	switch {
	case xt.ID() == arrow.LIST || xt.ID() == arrow.LARGE_LIST:
	case IsString(xt):
		var err error
		if args[0], err = Cast(args[0], tStr); err != nil {
			return nil, err
		}
		xt = tStr
	case xt.ID() == arrow.NULL:
		xt = tStr
	default:
		return nil, noMatch(name, args)
	}
	out := []plan.Expr{args[0], nil, nil}
	for i := 1; i < 3; i++ {
		bt := args[i].Type()
		if !IsInteger(bt) && bt.ID() != arrow.NULL && !isNumericType(bt) {
			return nil, noMatch(name, args)
		}
		b, err := Cast(args[i], tI64)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return &plan.Call{Func: name, Args: out, DataType: xt, Null: true}, nil
}

// isNumericType reports whether t is a float or decimal type (cast to BIGINT by rounding).
func isNumericType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}
