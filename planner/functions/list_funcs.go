package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// DuckDB's list search functions (kernels in exec/kernel list_search.go):
//   - array_length(l) (len, length on a list): BIGINT element count;
//   - list_contains(l, x) (list_has, array_contains, array_has): BOOLEAN;
//   - list_position(l, x) (list_indexof, array_position, array_indexof): 1-based INTEGER;
//   - array_has_any(a, b) (list_has_any), array_has_all(a, b) (list_has_all): BOOLEAN.
//
// The needle (or the second list's elements) and the list's elements meet at their common
// type. The operators a && b, a @> b and a <@ b (planner/parse, planner/bind) bind to
// array_has_any(a, b), array_has_all(a, b) and array_has_all(b, a). Not supported yet:
// array_length's dimension argument.
func init() {
	stringLength := genericRules["length"]
	genericRules["length"] = func(name string, args []plan.Expr) (*plan.Call, error) {
		if len(args) == 1 && isListType(args[0].Type()) {
			return arrayLengthRule("array_length", args)
		}
		return stringLength(name, args)
	}
	genericRules["array_length"] = arrayLengthRule
	genericRules["list_contains"] = needleRule(tBol)
	genericRules["list_position"] = needleRule(arrow.PrimitiveTypes.Int32)
	genericRules["array_has_any"] = listPairRule
	genericRules["array_has_all"] = listPairRule
	for _, n := range []string{"array_length", "list_contains", "list_position", "array_has_any", "array_has_all"} {
		Scalars[n] = Generic
	}
	for alias, name := range map[string]string{
		"len": "length", "list_has": "list_contains", "array_contains": "list_contains",
		"array_has": "list_contains", "list_indexof": "list_position",
		"array_position": "list_position", "array_indexof": "list_position",
		"list_has_any": "array_has_any", "list_has_all": "array_has_all",
	} {
		Aliases[alias] = name
	}
}

// isListType reports whether t is a list, large list or fixed-size list.
func isListType(t arrow.DataType) bool {
	_, ok := listElem(t)
	return ok
}

func arrayLengthRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 1 || (!isListType(args[0].Type()) && args[0].Type().ID() != arrow.NULL) {
		return nil, noMatch(name, args)
	}
	return &plan.Call{Func: "array_length", Args: args, DataType: tI64, Null: args[0].Nullable()}, nil
}

// elemOrNull is the element type of a list argument; a NULL argument takes other.
func elemOrNull(t, other arrow.DataType) (arrow.DataType, bool) {
	if t.ID() == arrow.NULL {
		return other, true
	}
	return listElem(t)
}

// castList casts a list argument to a list of elem, keeping it when its elements are elem.
func castList(e plan.Expr, elem arrow.DataType) (plan.Expr, error) {
	if have, ok := listElem(e.Type()); ok && arrow.TypeEqual(have, elem) {
		return e, nil
	}
	return Cast(e, arrow.ListOf(elem))
}

// needleRule types list_contains and list_position: a list and a value of its element type.
func needleRule(out arrow.DataType) rule {
	return func(name string, args []plan.Expr) (*plan.Call, error) {
		if len(args) != 2 {
			return nil, noMatch(name, args)
		}
		elem, ok := elemOrNull(args[0].Type(), args[1].Type())
		if !ok {
			return nil, noMatch(name, args)
		}
		needle, err := adaptLiteral(args[1], elem)
		if err != nil {
			return nil, err
		}
		common, ok := CommonType(elem, needle.Type())
		if !ok {
			return nil, noMatch(name, args)
		}
		l, err := castList(args[0], common)
		if err != nil {
			return nil, err
		}
		if needle, err = Cast(needle, common); err != nil {
			return nil, err
		}
		return &plan.Call{Func: name, Args: []plan.Expr{l, needle}, DataType: out, Null: true}, nil
	}
}

// listPairRule types array_has_any and array_has_all: two lists of a common element type.
func listPairRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	a, aok := elemOrNull(args[0].Type(), arrow.Null)
	b, bok := elemOrNull(args[1].Type(), a)
	if !aok || !bok {
		return nil, noMatch(name, args)
	}
	if a.ID() == arrow.NULL {
		a = b
	}
	common, ok := CommonType(a, b)
	if !ok {
		return nil, noMatch(name, args)
	}
	out := make([]plan.Expr, 2)
	for i, arg := range args {
		c, err := castList(arg, common)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return &plan.Call{Func: name, Args: out, DataType: tBol, Null: true}, nil
}
