package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// list_extract(l, i) is element i of list l (l[i]): 1-based, negative from the end, NULL
// out of range (DuckDB's array_extract on lists).
func init() {
	genericRules["list_extract"], Scalars["list_extract"] = listExtractRule, Generic
}

func listExtractRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	elem, ok := listElem(args[0].Type())
	it := args[1].Type()
	if !ok || (!IsInteger(it) && it.ID() != arrow.NULL) {
		return nil, noMatch("array_extract", args)
	}
	idx, err := Cast(args[1], tI64)
	if err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: []plan.Expr{args[0], idx}, DataType: elem, Null: true}, nil
}
