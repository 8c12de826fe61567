package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// NewAgg builds an aggregate call with its result type: count → int64 (never NULL),
// sum of integers → int64 (DuckDB returns HUGEINT; values compare equal), sum of floats →
// float64, sum of decimal(p,s) → decimal(38,s), avg → float64, min/max → the input type;
// median, quantiles, mode and arg_max/arg_min as orderStat (agg_quantile.go) types them.
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
	if name == "string_agg" {
		return stringAgg(a)
	}
	if orderStatAggs[name] {
		return orderStat(a) // agg_quantile.go
	}
	if len(args) != 1 {
		return a, noMatch(name, args)
	}
	in := args[0].Type()
	switch name {
	case "min", "max", "single_value", "first", "last", "any_value":
		a.DataType = in
	case "stddev_samp", "stddev_pop", "var_samp", "var_pop":
		if !IsNumeric(in) && in.ID() != arrow.NULL {
			return a, noMatch(name, args)
		}
		x, err := Cast(args[0], arrow.PrimitiveTypes.Float64)
		if err != nil {
			return a, err
		}
		a.Args, a.DataType = []plan.Expr{x}, arrow.PrimitiveTypes.Float64
	case "bool_and", "bool_or":
		x, err := Cast(args[0], arrow.FixedWidthTypes.Boolean)
		if err != nil || (in.ID() != arrow.BOOL && in.ID() != arrow.NULL) {
			return a, noMatch(name, args)
		}
		a.Args, a.DataType = []plan.Expr{x}, arrow.FixedWidthTypes.Boolean
	case "list":
		a.DataType = arrow.ListOf(in)
	case "approx_count_distinct":
		a.DataType, a.Null = arrow.PrimitiveTypes.Int64, false
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

// stringAgg types string_agg(x, sep): both VARCHAR, sep a constant (default ',').
func stringAgg(a plan.AggCall) (plan.AggCall, error) {
	if len(a.Args) < 1 || len(a.Args) > 2 {
		return a, noMatch(a.Func, a.Args)
	}
	args := make([]plan.Expr, 2)
	x, err := Cast(a.Args[0], arrow.BinaryTypes.String)
	if err != nil {
		return a, err
	}
	args[0] = x
	args[1] = &plan.Literal{Value: stringScalar(",")}
	if len(a.Args) == 2 {
		sep, ok := a.Args[1].(*plan.Literal)
		if !ok || !IsString(sep.Type()) {
			return a, dberr.NotSupported("string_agg with a non-constant separator")
		}
		args[1] = sep
	}
	a.Args, a.DataType = args, arrow.BinaryTypes.String
	return a, nil
}
