package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"

	"github.com/flightd/flightd/planner/plan"
)

// list_concat(l1, ...) (list_cat, array_concat, array_cat; concat and || when an argument
// is a list) joins lists of a common element type, a NULL list counting as empty; flatten(l)
// joins the inner lists of a list of lists; list_sort, list_reverse_sort (NULLs last) and
// list_distinct keep the element type. Kernels: exec/kernel list_concat.go, list_sort.go.
func init() {
	stringConcat := genericRules["concat"]
	genericRules["concat"] = func(name string, args []plan.Expr) (*plan.Call, error) {
		for _, a := range args {
			if isListType(a.Type()) {
				return listConcatRule("list_concat", args)
			}
		}
		return stringConcat(name, args)
	}
	genericRules["list_concat"], Scalars["list_concat"] = listConcatRule, Generic
	genericRules["flatten"], Scalars["flatten"] = flattenRule, Generic
	for _, n := range []string{"list_sort", "list_reverse_sort", "list_distinct"} {
		genericRules[n], Scalars[n] = sameListRule, Generic
	}
	Aliases["array_sort"] = "list_sort"
	Aliases["array_reverse_sort"] = "list_reverse_sort"
	Aliases["array_distinct"] = "list_distinct"
	for _, alias := range []string{"list_cat", "array_concat", "array_cat"} {
		Aliases[alias] = "list_concat"
	}
}

func listConcatRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch(name, args)
	}
	var common arrow.DataType = arrow.Null
	for _, a := range args {
		elem, ok := elemOrNull(a.Type(), arrow.Null)
		if !ok {
			return nil, noMatch(name, args)
		}
		if common, ok = CommonType(common, elem); !ok {
			return nil, noMatch(name, args)
		}
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		c, err := asList(a, common)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return &plan.Call{Func: "list_concat", Args: out, DataType: arrow.ListOf(common)}, nil
}

// asList casts e to a variable-length list of elem, keeping it when it is one.
func asList(e plan.Expr, elem arrow.DataType) (plan.Expr, error) {
	if l, ok := e.Type().(*arrow.ListType); ok && arrow.TypeEqual(l.Elem(), elem) {
		return e, nil
	}
	return Cast(e, arrow.ListOf(elem))
}

func flattenRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 1 {
		return nil, noMatch(name, args)
	}
	inner, ok := listElem(args[0].Type())
	if !ok {
		return nil, noMatch(name, args)
	}
	elem, ok := listElem(inner)
	if !ok {
		return nil, noMatch(name, args)
	}
	return &plan.Call{Func: name, Args: args, DataType: arrow.ListOf(elem), Null: args[0].Nullable()}, nil
}

// sameListRule types list_sort(l [, 'ASC' | 'DESC']), list_reverse_sort(l) and
// list_distinct(l): a list of l's element type. A DESC order makes list_sort a
// list_reverse_sort; the NULL order argument is not supported yet.
func sameListRule(name string, args []plan.Expr) (*plan.Call, error) {
	if name == "list_sort" && len(args) == 2 {
		lit, ok := args[1].(*plan.Literal)
		s, isStr := stringLiteral(lit, ok)
		switch {
		case !isStr:
			return nil, dberr.NotSupported("list_sort with a non-constant order")
		case strings.EqualFold(s, "DESC"):
			name = "list_reverse_sort"
		case !strings.EqualFold(s, "ASC"):
			return nil, dberr.New(dberr.InvalidInput, "Sorting order must be either ASC or DESC")
		}
		args = args[:1]
	}
	if len(args) > 1 {
		return nil, dberr.NotSupported(name + " with a NULL order argument")
	}
	if len(args) != 1 {
		return nil, noMatch(name, args)
	}
	elem, ok := listElem(args[0].Type())
	if !ok {
		return nil, noMatch(name, args)
	}
	l, err := asList(args[0], elem)
	if err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: []plan.Expr{l}, DataType: arrow.ListOf(elem), Null: l.Nullable()}, nil
}

// stringLiteral returns the value of a non-NULL string literal.
func stringLiteral(lit *plan.Literal, ok bool) (string, bool) {
	if !ok || !lit.Value.IsValid() || !IsString(lit.Type()) {
		return "", false
	}
	return lit.Value.String(), true
}
