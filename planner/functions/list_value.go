package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// ListValue builds the literal of list_value(x, ...), the call a list literal [x, ...]
// parses to: a list of the items' common type (DuckDB's typing: [1, 2.5] is a list of
// DECIMAL), a literal when every item is a constant, else a list_value call. [] is a list
// of NULL.
func ListValue(args []plan.Expr) (plan.Expr, error) {
	if len(args) == 0 {
		return &plan.Literal{Value: scalar.NewListScalar(array.MakeArrayOfNull(memory.DefaultAllocator, arrow.Null, 0))}, nil
	}
	items, common, err := unify("list_value", args)
	if err != nil {
		return nil, err
	}
	vals := make([]scalar.Scalar, len(items))
	for i, it := range items {
		lit, ok := it.(*plan.Literal)
		if !ok {
			return &plan.Call{Func: "list_value", Args: items, DataType: arrow.ListOf(common)}, nil
		}
		vals[i] = lit.Value
	}
	arr, err := ArrayOf(common, vals)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return &plan.Literal{Value: scalar.NewListScalar(arr)}, nil
}

// ArrayOf builds an array of type t from scalars of that type (the items of a list
// literal). A NULL-typed array ("NULL"[] in DuckDB, [NULL]) holds only NULLs.
func ArrayOf(t arrow.DataType, vals []scalar.Scalar) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	if t.ID() == arrow.NULL {
		for i, v := range vals {
			if v.IsValid() {
				return nil, dberr.New(dberr.Internal, "build list of NULL: item %d is %s", i, v.DataType())
			}
		}
		return array.NewNull(len(vals)), nil
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	if err := scalar.AppendSlice(b, vals); err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "build list of %s", t)
	}
	return b.NewArray(), nil
}

// foldListCast converts a constant list to another list type: every item is cast (and
// must fold), and a cast to a fixed-size array checks the length as DuckDB does. ok is
// false when an item's cast is left to run time.
func foldListCast(lit *plan.Literal, to arrow.DataType) (plan.Expr, bool, error) {
	ls, isList := lit.Value.(scalar.ListScalar)
	toElem, toList := listElem(to)
	if !isList || !toList {
		return nil, false, nil
	}
	items := ls.GetList()
	if fsl, ok := to.(*arrow.FixedSizeListType); ok && int(fsl.Len()) != items.Len() {
		return nil, false, dberr.New(dberr.Conversion, "Cannot cast list with length %d to array with length %d", items.Len(), fsl.Len())
	}
	vals := make([]scalar.Scalar, items.Len())
	for i := range vals {
		s, err := scalar.GetScalar(items, i)
		if err != nil {
			return nil, false, dberr.Wrap(dberr.Internal, err, "list item %d", i)
		}
		c, err := Cast(&plan.Literal{Value: s}, toElem)
		if err != nil {
			return nil, false, err
		}
		cl, folded := c.(*plan.Literal)
		if !folded {
			return nil, false, nil
		}
		vals[i] = cl.Value
	}
	arr, err := ArrayOf(toElem, vals)
	if err != nil {
		return nil, false, err
	}
	defer arr.Release()
	if fsl, ok := to.(*arrow.FixedSizeListType); ok {
		return &plan.Literal{Value: scalar.NewFixedSizeListScalarWithType(arr, arrow.FixedSizeListOf(fsl.Len(), toElem))}, true, nil
	}
	return &plan.Literal{Value: scalar.NewListScalar(arr)}, true, nil
}

func init() {
	genericRules["list_value"], Scalars["list_value"] = listValueRule, Generic
}

// listValueRule types list_value(x, ...) (the Substrait consumer's call).
func listValueRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch(name, args)
	}
	items, common, err := unify(name, args)
	if err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: items, DataType: arrow.ListOf(common)}, nil
}

// commonList is the common type of two lists: a list of their elements' common type,
// found recursively as DuckDB does ([[1], [2.5]] is DECIMAL(11,1)[][]).
func commonList(a, b *arrow.ListType) (arrow.DataType, bool) {
	elem, ok := CommonType(a.Elem(), b.Elem())
	if !ok {
		return nil, false
	}
	return arrow.ListOf(elem), true
}
