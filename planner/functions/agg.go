package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// NewAgg builds an aggregate call with its result type: count → int64 (never NULL),
// sum of integers → int64 (DuckDB returns HUGEINT; values compare equal), sum of floats →
// float64, sum of decimal(p,s) → decimal(38,s), avg → float64, min/max → the input type.
func NewAgg(name string, args []plan.Expr, distinct bool, outName string) (plan.AggCall, error) {
	a := plan.AggCall{Func: name, Args: args, Distinct: distinct, Name: outName, Null: true}
	if !Aggregates[name] {
		return a, dberr.New(dberr.Binder, "aggregate function %s does not exist", name)
	}
	if name == "count" {
		if len(args) > 1 {
			return a, noMatch(name, args)
		}
		a.DataType, a.Null = arrow.PrimitiveTypes.Int64, false
		return a, nil
	}
	if len(args) != 1 {
		return a, noMatch(name, args)
	}
	in := args[0].Type()
	switch name {
	case "min", "max":
		a.DataType = in
	case "avg":
		if !IsNumeric(in) {
			return a, noMatch(name, args)
		}
		a.DataType = arrow.PrimitiveTypes.Float64
	case "sum":
		switch {
		case IsInteger(in), in.ID() == arrow.NULL:
			a.DataType = arrow.PrimitiveTypes.Int64
		case IsFloat(in):
			a.DataType = arrow.PrimitiveTypes.Float64
		case isDecimal(in):
			a.DataType = &arrow.Decimal128Type{Precision: 38, Scale: in.(*arrow.Decimal128Type).Scale}
		default:
			return a, noMatch(name, args)
		}
	}
	return a, nil
}
