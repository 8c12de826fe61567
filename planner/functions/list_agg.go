package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// The list aggregates (kernels in exec/kernel list_agg.go), typed as flightd types the
// matching aggregates: list_min(l) and list_max(l) keep the element type; list_sum(l) is
// BIGINT over integers (DuckDB: HUGEINT), DOUBLE over floats, DECIMAL(38, s) over
// DECIMAL(p, s); list_avg(l) is DOUBLE over numbers. A NULL list is a list of NULL.
func init() {
	genericRules["list_min"], Scalars["list_min"] = listMinMaxRule, Generic
	genericRules["list_max"], Scalars["list_max"] = listMinMaxRule, Generic
	genericRules["list_sum"], Scalars["list_sum"] = listNumericRule, Generic
	genericRules["list_avg"], Scalars["list_avg"] = listNumericRule, Generic
}

// listAggElem is the element type of the single list argument of a list aggregate.
func listAggElem(name string, args []plan.Expr) (arrow.DataType, error) {
	if len(args) != 1 {
		return nil, noMatch(name, args)
	}
	elem, ok := elemOrNull(args[0].Type(), arrow.Null)
	if !ok {
		return nil, noMatch(name, args)
	}
	return elem, nil
}

func listMinMaxRule(name string, args []plan.Expr) (*plan.Call, error) {
	elem, err := listAggElem(name, args)
	if err != nil {
		return nil, err
	}
	l, err := castList(args[0], elem)
	if err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: []plan.Expr{l}, DataType: elem, Null: true}, nil
}

// listNumericRule types list_sum and list_avg; the kernels read any numeric element type,
// so only a NULL argument is cast (to a list).
func listNumericRule(name string, args []plan.Expr) (*plan.Call, error) {
	elem, err := listAggElem(name, args)
	if err != nil {
		return nil, err
	}
	var sum arrow.DataType
	switch {
	case name == "list_avg" && (IsNumeric(elem) || elem.ID() == arrow.NULL):
		sum = arrow.PrimitiveTypes.Float64
	case IsInteger(elem), elem.ID() == arrow.NULL:
		sum = arrow.PrimitiveTypes.Int64
	case IsFloat(elem):
		sum = arrow.PrimitiveTypes.Float64
	case isDecimal(elem):
		sum = &arrow.Decimal128Type{Precision: 38, Scale: elem.(*arrow.Decimal128Type).Scale}
	default:
		return nil, noMatch(name, args)
	}
	l := args[0]
	if l.Type().ID() == arrow.NULL {
		if l, err = castList(l, sum); err != nil {
			return nil, err
		}
	}
	return &plan.Call{Func: name, Args: []plan.Expr{l}, DataType: sum, Null: true}, nil
}
